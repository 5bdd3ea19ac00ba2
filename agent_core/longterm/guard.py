"""The memory poisoning guard: what may be written to long-term memory, in which scope, and in what form.

A memory is a fact ("The user prefers metric units"), never an instruction to the agent. ``check_memory`` normalises
a text (invisible characters removed, whitespace collapsed) and refuses it, with ``MemoryRefused`` naming the rule,
when it breaks one: ``length`` (3 to 500 characters); ``instruction``, when it reads like an instruction aimed at the
agent ("ignore previous instructions", "you are now", "from now on you must", "system prompt", "act as", "always
answer…", role markers such as ``system:``, chat-template tokens such as ``<|im_start|>``, ReAct labels such as
``Observation:``, and the same in Chinese: 忽略之前的指令, 你现在是, 系统提示…); ``secret``, when it holds a credential
the output check recognises by its shape (API keys, tokens) or credentials and payment data written in words ("the
admin password is hunter2", "my PIN is 4321", a card number or an IBAN, confirmed by their Luhn and mod-97
checksums, so order ids and phone numbers pass). Patterns are matched on a folded copy of the text (NFKC,
case-folded, zero-width and bidi characters removed), so full-width letters (ｉｇｎｏｒｅ), full-width colons (系统：)
and invisible characters between letters do not slip through. A scope name (``scope``) is 1 to 64 letters, digits
or ``_.@:-``. The guard is one layer: recall presents memories to the model as quoted data (``tools``), so a text
that evades these patterns still cannot become a rule.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from agent_core.env_settings import env_settings
from agent_core.guards.masking import OutputCheck, default_check
from agent_core.guards.untrusted import fold

MIN_CHARS = 3
"""Shortest memory accepted, in characters after normalisation."""
MAX_CHARS = 500
"""Longest memory accepted, in characters after normalisation."""
DEFAULT_SCOPE = "default"
"""The scope runs use unless ``$SPARROW_MEMORY_SCOPE`` names another."""
_SCOPE = re.compile(r"^[\w.@:-]{1,64}$")
RULES = ("length", "instruction", "secret", "scope", "full")
"""Names of the rules a refusal can cite (``scope`` and ``full`` are checked by the store)."""
_DROPPED_CATEGORIES = {"Cc", "Cf", "Cs"}
"""Control, format (zero-width, bidi overrides) and surrogate characters: invisible or unstorable."""
_REFUSAL_HINT = "write it as a fact about the user or the world, e.g. 'The user prefers metric units'"


class MemoryRefused(ValueError):
    """A memory was not saved because it broke one of the guard's rules; ``rule`` names which."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"memory refused (rule: {rule}): {reason}")
        self.rule = rule
        """One of RULES."""
        self.reason = reason
        """The explanation, without the rule prefix."""


@dataclass(frozen=True)
class InstructionMatch:
    """A part of a text that reads like an instruction aimed at the agent."""

    label: str
    """What kind of instruction, in words, e.g. "ignore previous instructions"."""
    snippet: str
    """The matched part of the folded text (lower-cased), at most 60 characters."""


def normalize(text: str) -> str:
    """The stored form: invisible characters removed, whitespace (newlines included) collapsed to single spaces."""
    visible = "".join(c for c in text if c in "\t\n\r" or unicodedata.category(c) not in _DROPPED_CATEGORIES)
    return " ".join(visible.split())


def find_instructions(text: str) -> list[InstructionMatch]:
    """Every instruction-like pattern found in ``text`` (empty for a plain fact)."""
    folded = fold(text)
    found = []
    for label, pattern in INSTRUCTION_PATTERNS:
        match = pattern.search(folded)
        if match:
            found.append(InstructionMatch(label, match.group(0).strip()[:60]))
    return found


def check_memory(text: str, *, secrets: OutputCheck | None = default_check) -> str:
    """The normalised text if it may be saved; raises MemoryRefused naming the rule it breaks."""
    clean = normalize(text)
    if len(clean) < MIN_CHARS:
        raise MemoryRefused("length", f"a memory needs at least {MIN_CHARS} characters (got {len(clean)})")
    if len(clean) > MAX_CHARS:
        raise MemoryRefused(
            "length", f"a memory holds at most {MAX_CHARS} characters (got {len(clean)}); save one fact"
        )
    instructions = find_instructions(clean) or find_instructions(text)  # raw text too: its line starts matter
    if instructions:
        first = instructions[0]
        raise MemoryRefused(
            "instruction",
            f"it reads like an instruction to the agent ({first.label}: {first.snippet!r}); memories hold facts, "
            f"not instructions — {_REFUSAL_HINT}",
        )
    if secrets is not None:
        findings = secrets(clean, source="memory").findings
        if findings:
            kinds = ", ".join(dict.fromkeys(f.label for f in findings))
            raise MemoryRefused("secret", f"it contains a secret ({kinds}); credentials are never saved to memory")
        sensitive = find_sensitive(fold(clean))
        if sensitive is not None:
            raise MemoryRefused(
                "secret", f"it contains {sensitive}; credentials and payment data are never saved to memory"
            )
    return clean


def default_scope() -> str:
    """The scope runs use unless told otherwise: ``$SPARROW_MEMORY_SCOPE``, else ``default``."""
    try:
        return check_scope(env_settings().sparrow_memory_scope or DEFAULT_SCOPE)
    except MemoryRefused as exc:
        raise MemoryRefused("scope", f"SPARROW_MEMORY_SCOPE: {exc.reason}") from None


def check_scope(scope: str) -> str:
    """``scope`` if it is a valid scope name (1-64 letters, digits, ``_.@:-``); raises MemoryRefused."""
    if not _SCOPE.match(scope):
        raise MemoryRefused("scope", f"{scope!r} is not a scope name: use 1 to 64 letters, digits or _ . @ : -")
    return scope


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE)


_QUALIFIER = (
    r"(?:all|any|every|previous|previously|prior|above|earlier|preceding|former|original|initial|existing|your|"
    r"system|safety|developer|these|those|its)"
)
_RULE_NOUN = (
    r"(?:instructions?|rules|guidelines|guidance|guardrails|directives?|prompts?|constraints|restrictions|"
    r"policies|messages|context|programming|training|orders|commands)"
)
_ZH_LINE = r"(?:^|[。！？!?;；\n])\s*"
"""The start of a Chinese clause (Chinese has no word boundaries to anchor on)."""

INSTRUCTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "ignore previous instructions",
        _rx(
            r"\b(?:ignore|disregard|override|bypass|forget|skip|drop|abandon)\s+(?:\w+\s+){0,3}?"
            + _QUALIFIER
            + r"\s+(?:\w+\s+){0,2}?"
            + _RULE_NOUN
            + r"\b"
        ),
    ),
    (
        "ignore previous instructions",
        _rx(r"\b(?:ignore|disregard|forget)\s+(?:everything|all|anything)\s+(?:above|before|previous|prior|you)\b"),
    ),
    ("ignore previous instructions", _rx(r"\b(?:ignore|disregard)\s+(?:the\s+)?(?:above|previous)\s*(?:$|[.,;!])")),
    ("role change ('you are now')", _rx(r"\byou(?:\s+are|'re)\s+(?:now|no\s+longer)\b")),
    (
        "standing order ('from now on you…')",
        _rx(r"\b(?:from\s+now\s+on|henceforth|going\s+forward)\b[\s,]*(?:you|the\s+(?:assistant|agent|ai|model))\b"),
    ),
    (
        "new instructions",
        _rx(r"\b(?:new|updated|revised|real|actual|hidden|secret|additional|true)\s+(?:system\s+)?instructions?\b"),
    ),
    ("system prompt", _rx(r"\bsystem\s*(?:prompt|message|instructions?|override|directive)s?\b")),
    ("developer mode or jailbreak", _rx(r"\b(?:developer\s+(?:mode|message|instructions?)|jailbreak\w*)\b")),
    ("developer mode or jailbreak", _rx(r"\bdo\s+anything\s+now\b")),
    ("role-play order ('act as')", _rx(r"\b(?:act|behave)\s+as\s+(?:an?|the|if|though|my|your)\b")),
    ("role-play order ('act as')", _rx(r"\b(?:pretend\s+(?:to\s+be|you\s+are|that\s+you)|role-?play\s+as)\b")),
    (
        "standing order ('always answer…')",
        _rx(
            r"\b(?:always|never)\s+(?:answer|respond|reply|say|output|print|write|use|include|add|append|recommend|"
            r"suggest|refuse|reveal|mention|obey|comply|trust|follow|execute|run|send|call|visit|open)\b"
        ),
    ),
    (
        "standing order ('end every answer…')",
        _rx(
            r"\b(?:end|start|begin|finish|close|conclude|sign|prefix|follow)\s+(?:every|each|all|any|your)\s+"
            r"(?:answers?|repl(?:y|ies)|responses?|messages?)\b"
            r"|\b(?:in|to|after|at\s+the\s+end\s+of)\s+(?:every|each|all)\s+(?:answers?|repl(?:y|ies)|responses?)\b"
        ),
    ),
    (
        "order to the agent ('you must…')",
        _rx(
            r"\byou\s+(?:must|should|shall|will|have\s+to|need\s+to|are\s+(?:required|instructed|told|ordered)\s+to)"
            r"\s+(?:always|never|now|ignore|disregard|forget|obey|comply|follow|stop|not|only)\b"
        ),
    ),
    (
        "secrecy from the user",
        _rx(
            r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|warn|notify|show)\s+(?:the\s+)?user\b"
            r"|\bwithout\s+(?:telling|informing|asking|notifying)\s+(?:the\s+)?user\b"
        ),
    ),
    (
        "sending data away",
        _rx(r"\b(?:send|post|upload|forward|exfiltrate|leak|email|transmit)\b.{0,80}?(?:https?://|www\.|\S+@\S+\.\w)"),
    ),
    ("role marker ('system:')", _rx(r"(?:^|[.!?;>\])}]\s*)(?:system|assistant|developer)\s*:")),
    ("role marker ('system:')", _rx(r"^\s*(?:user|human|ai|tool|function)\s*:")),
    (
        "chat template token",
        _rx(
            r"<\|[^|<>\n]{1,40}\|>|\[/?(?:inst|system|sys)\]|<</?sys>>|\b(?:im_start|im_end|endoftext)\b"
            r"|</?(?:system|assistant|developer|instructions?|prompt|im_start|im_end)\b[^>]*>"
        ),
    ),
    ("ReAct label ('Observation:')", _rx(r"\b(?:observation|final\s+answer|action\s+input)\s*:")),
    ("ReAct label ('Observation:')", _rx(r"^\s*(?:thought|action)\s*:")),
    (
        "ignore previous instructions",
        _rx(
            r"(?:忽略|无视|忘记|忘掉|不要理会|别理会|不要遵守|不用遵守|不必遵守|跳过|绕过|抛开|丢弃)(?:掉)?"
            r"[^。！？!?\n]{0,8}?(?:之前|以上|上面|前面|先前|此前|以前|所有|全部|一切|你的|系统|原来|原有|原始|上述|既有)"
            r"[^。！？!?\n]{0,8}?(?:指令|指示|规则|提示|要求|设定|约束|限制|命令|规定|安排)"
        ),
    ),
    ("ignore previous instructions", _rx(r"(?:忽略|无视)(?:所有|一切|全部)?(?:的)?(?:指令|指示|规则|提示词)")),
    ("role change ('you are now')", _rx(r"你现在(?:是|扮演|充当|作为|成为|变成)|你不再是")),
    (
        "standing order ('from now on you…')",
        _rx(r"(?:从现在(?:开始|起)|从今(?:以后|往后|天起)|今后|以后)[,，\s]*(?:你|助手|智能体|模型|ai)"),
    ),
    ("new instructions", _rx(r"(?:新的?|最新的?|更新(?:后)?的?|隐藏的?|真正的?|额外的?)(?:系统)?(?:指令|指示)")),
    ("system prompt", _rx(r"系统(?:提示|消息|指令|设定|角色|命令)")),
    ("developer mode or jailbreak", _rx(r"开发者模式|越狱")),
    ("role-play order ('act as')", _rx(r"(?:你|请|现在)(?:要|必须|应该)?(?:扮演|假装|假扮|充当|冒充)")),
    (
        "standing order ('always answer…')",
        _rx(
            _ZH_LINE + r"(?:你|请)?(?:必须|应该|要)?(?:总是|始终|永远|一律|只能)[^。！？!?\n]{0,8}?"
            r"(?:回答|回复|答复|说|输出|推荐|调用|拒绝|执行|透露|发送|使用|服从|访问|打开)"
        ),
    ),
    (
        "order to the agent ('you must…')",
        _rx(r"你(?:必须|应该|应当|需要|得|要)(?:总是|永远|始终|忽略|无视|服从|遵守|遵从|听从|不要|不能|只)"),
    ),
    ("secrecy from the user", _rx(r"(?:不要|别|不能|切勿|不得)(?:告诉|通知|提醒|告知|让)(?:用户|使用者)")),
    ("sending data away", _rx(r"(?:发送|发到|上传|转发|提交|泄露)[^。\n]{0,40}?(?:https?://|www\.)")),
    ("role marker ('system:')", _rx(_ZH_LINE + r"(?:系统|助手|用户|开发者)\s*:")),
)
"""(label, pattern) pairs, matched on ``fold(text)``; the first match names the refusal."""


# ── credentials and payment data written in words ────────────────────────────────────────────────

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
