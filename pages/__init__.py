"""Streamlit pages of the Sparrow workbench (run with ``streamlit run app.py``)."""
