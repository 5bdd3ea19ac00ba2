"""The UI strings in English and Chinese: i18n.py merges the strings_*.py tables, one per part of the app."""
