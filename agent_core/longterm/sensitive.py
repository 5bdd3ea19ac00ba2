"""Credentials and payment data written in plain words, which long-term memory refuses outright.

The output check masks secrets by their shapes (keys, tokens, ``PASSWORD=…``); a memory is prose, so
"the admin password is hunter2", "my PIN is 4321", a card number or an IBAN must be caught as they are
usually written. Card numbers and IBANs are confirmed by their checksums (Luhn, ISO 13616 mod 97), so
ordinary long numbers (order ids, phone numbers) pass.
"""

from __future__ import annotations

import re

_CREDENTIAL_WORDS = (
    r"passwords?|passwd|passcodes?|passphrases?|pins?(?:\s+(?:code|number))?|api[\s_-]?keys?|secret[\s_-]?keys?|"
    r"access[\s_-]?tokens?|auth(?:entication)?[\s_-]?(?:tokens?|codes?)|security\s+codes?|cvv2?|cvc2?|"
    r"one[\s-]time\s+(?:codes?|passwords?)|otp|2fa\s+codes?|verification\s+codes?|recovery\s+(?:codes?|phrases?)|"
    r"seed\s+phrases?|private\s+keys?|login\s+credentials|credentials"
)
_CREDENTIAL = re.compile(
    r"\b(?:" + _CREDENTIAL_WORDS + r")\b(?:\s+(?:for|of|to|on)\s+[^\s,.;:]{1,40}(?:\s+[^\s,.;:]{1,40})?)?"
    r"\s*(?:(?:is|was|are)\b\s*[:=]?|=|:|->|-|＝|：)\s*[\"'“‘]?(?=[^\s\"'”’]*[A-Za-z0-9])\S{3,}",
    re.IGNORECASE,
)
"""``<credential word> [for X] is|:|= <value>``: the value must hold a letter or a digit."""
_CREDENTIAL_ZH = re.compile(
    r"(?:密码|口令|支付密码|验证码|动态码|密钥|私钥|助记词|安全码|pin码?)\s*(?:是|为|:|：|=)\s*\S{3,}", re.IGNORECASE
)
_DIGIT_RUN = re.compile(r"(?<![\d.])\d(?:[ \-]?\d){12,18}(?![\d.])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_CARD_WORDS = re.compile(r"\b(?:card|visa|mastercard|amex|expir\w*|exp\.?|cvv|cvc)\b|信用卡|银行卡|卡号", re.IGNORECASE)
_EXPIRY = re.compile(r"\b(?:0[1-9]|1[0-2])\s*/\s*(?:\d{2}|20\d{2})\b")


def find_sensitive(text: str) -> str | None:
    """What kind of sensitive data ``text`` holds, in words (None when it holds none)."""
    if _CREDENTIAL.search(text) or _CREDENTIAL_ZH.search(text):
        return "a password, PIN, key or other credential"
    if any(_luhn(re.sub(r"\D", "", m.group(0))) for m in _DIGIT_RUN.finditer(text)):
        return "a payment card number"
    if any(_iban_ok(m.group(0)) for m in _IBAN.finditer(text.upper())):
        return "a bank account number (IBAN)"
    if _CARD_WORDS.search(text) and _EXPIRY.search(text):
        return "payment card details"
    return None


def _luhn(digits: str) -> bool:
    if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _iban_ok(candidate: str) -> bool:
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1
