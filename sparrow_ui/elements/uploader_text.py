"""The file uploader's own words in the UI language: Streamlit draws "Upload" and "…MB per file" in English only.

For Chinese, CSS puts the translated words in their place (a fixed string: the size comes from Streamlit's
``server.maxUploadSize`` option, an integer). Nothing for English.
"""

from __future__ import annotations

import streamlit as st

from sparrow_ui.translations.i18n import lang

_ZH = """
<style>
[data-testid="stFileUploaderDropzone"] button {font-size: 0 !important;}
[data-testid="stFileUploaderDropzone"] button::after {content: "上传"; font-size: 0.875rem;}
[data-testid="stFileUploaderDropzoneInstructions"] span {font-size: 0 !important;}
[data-testid="stFileUploaderDropzoneInstructions"] span::after {
  content: "每个文件最大 %dMB • JSON"; font-size: 0.8rem;}
</style>
"""


def uploader_words() -> None:
    """Translate the uploader's built-in words when the UI is in Chinese (takes no space)."""
    if lang() == "zh":
        st.html(_ZH % int(st.get_option("server.maxUploadSize")))
