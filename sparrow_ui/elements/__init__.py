"""Small elements and cells: translated choices, literal untrusted text, sortable measured cells, the imported-copy
mark."""
