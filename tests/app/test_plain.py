"""plain(): untrusted text cannot become markdown (links, images, emphasis, Streamlit directives)."""

from __future__ import annotations

from sparrow_ui.plain import plain


def test_plain_escapes_every_markup_character() -> None:
    assert plain("![x](http://e/x.png)") == r"\!\[x\]\(http\://e/x\.png\)"
    assert plain("**b** _i_ `c` <b> :red[x] $x$ #h\n- item") == (
        r"\*\*b\*\* \_i\_ \`c\` \<b\> \:red\[x\] \$x\$ \#h \- item"
    )
    assert plain("calculator") == "calculator" and plain("日期") == "日期"
