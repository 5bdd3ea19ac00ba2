"""One masker: what the stored text masks, the streamed text masks too, and every output shows only that."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.guards.masking import StreamMask, default_check, mask_secrets
from agent_core.testing import FakeOpenAIServer, Reply
from tests.core.test_cli import ROOT, sparrow
from tests.core.test_secret_masking import ALNUM, KEYS, NAMES, VALUES, split_at

B64 = ALNUM + "+/"


def _random_key(alphabet: str, size: int) -> st.SearchStrategy[str]:
    """A key as a provider makes one: drawn at random (a seeded generator, so shrinking keeps it random-looking;
    hypothesis' own text shrinks towards '000…0Aa', which no entropy rule can tell from a run of zeros)."""
    return st.integers(0, 2**32).map(lambda seed: "".join(random.Random(seed).choices(alphabet, k=size)))


def _mixed(key: str) -> bool:
    """A digit, an upper-case and a lower-case letter: what a provider's random key nearly always has."""
    return any(c.isdigit() for c in key) and any(c.isupper() for c in key) and any(c.islower() for c in key)


UNKNOWN = st.one_of(
    st.integers(24, 40).flatmap(lambda n: _random_key(ALNUM, n)).map(lambda b: f"sk-live-{b}"),
    st.integers(24, 40).flatmap(lambda n: _random_key(ALNUM, n)).map(lambda b: f"pk-test-{b}"),
).filter(_mixed)
ASSIGNED = st.tuples(NAMES, VALUES, st.sampled_from(["{n}={v}", '"{n}": "{v}"', "export {n}='{v}'"])).map(
    lambda t: t[2].format(n=t[0], v=t[1])
)
WORDS = st.text(string.ascii_letters + " .,:\n", max_size=40)
TEXTS = st.lists(st.one_of(WORDS, KEYS, UNKNOWN, ASSIGNED), min_size=1, max_size=6).map(" ".join)
CUTS = st.lists(st.integers(0, 400), max_size=12)


def streamed(text: str, cuts: list[int]) -> str:
    """``text`` as a viewer of the stream sees it, fed in the pieces ``cuts`` makes."""
    mask = StreamMask(default_check)
    return "".join(mask.feed(piece) for piece in split_at(text, cuts)) + mask.flush()


def hidden(text: str) -> list[str]:
    """The secret parts the masker finds in ``text`` (all but the prefix a mask keeps)."""
    return [
        text[f.start : f.end][len(f.masked) - len("…[masked]") :]
        for f in default_check.find(text)
        if f.end - f.start >= 6
    ]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, cuts=CUTS)
def test_nothing_one_masks_survives_the_other(text: str, cuts: list[int]) -> None:
    stored, live = mask_secrets(text), streamed(text, cuts)
    for secret in hidden(text):
        assert secret not in live, (secret, live)
    assert stored == live  # the stream shows exactly what is stored


@settings(max_examples=200, deadline=None)
@given(key=UNKNOWN, before=WORDS, after=WORDS)
def test_unknown_key_shapes_are_masked_by_entropy(key: str, before: str, after: str) -> None:
    assert key[6:] not in mask_secrets(f"{before} {key} {after}")


def test_bare_random_keys_are_masked_nearly_always() -> None:
    """A bare base64 key (an AWS secret access key) has only its randomness to show: the entropy rule is a
    judgement, so it is held to a rate over 2,000 fixed keys (it misses about 0.5%: a key that happens to run
    lower-case letters together reads like words), not to every key hypothesis may draw."""
    keys = ["".join(random.Random(seed).choices(B64, k=40)) for seed in range(2_000)]
    keys = [k for k in keys if _mixed(k)]
    missed = [k for k in keys if k[6:] in mask_secrets(f"key {k} here")]
    assert len(missed) <= len(keys) // 100, missed


ORDINARY = [
    "see agent_core/store/migrations/versions/0001_baseline.py for the table",
    "ThisIsAVeryLongCamelCaseIdentifierNumber1 is a class name",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "https://en.wikipedia.org/wiki/Eurasian_tree_sparrow_population_estimates",
    "2024-05-20T12:00:00Z and 550e8400-e29b-41d4-a716-446655440000",
]


def test_ordinary_long_strings_are_left_alone() -> None:
    assert [mask_secrets(t) for t in ORDINARY] == ORDINARY


SECRETS = ["sk-live-4f9aKq2ZpL8xWmN3vB7cR1tYqq", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9aKEY0", "hunter2hunter2"]
REPLY = f"Your key is {SECRETS[0]}, the AWS secret {SECRETS[1]} and DB_PASSWORD={SECRETS[2]} as asked."


def test_a_secret_the_model_repeats_is_masked_in_every_output(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    reply = Reply(text=f"Thought: I repeat it.\nFinal Answer: {REPLY}")
    with FakeOpenAIServer([reply]) as server:
        done = sparrow(server, "ask", "what is my key?", "--json", "--tools", "calculator", "--db", db)
        session_id = done.stderr.split("session: ", 1)[1].split()[0]
        outputs = {"stdout --json": done.stdout, "stderr": done.stderr}
        for fmt in ("jsonl", "otel", "md", "html"):
            got = sparrow(server, "sessions", "export-trace", session_id, "--format", fmt, "--db", db)
            outputs[f"export-trace {fmt}"] = got.stdout
        outputs["export"] = sparrow(server, "sessions", "export", session_id, "--db", db).stdout
        outputs["show --json"] = sparrow(server, "sessions", "show", session_id, "--json", "--db", db).stdout
    outputs["database"] = _dump(tmp_path / "db.sqlite")
    assert done.returncode == 0, done.stderr
    assert "…[masked]" in outputs["stdout --json"]
    leaks = {name: s for name, text in outputs.items() for s in SECRETS if s[6:] in text}
    assert leaks == {}


def _dump(path: Path) -> str:
    """Every row of the database file as text (what an operator with the file could read)."""
    code = "import sqlite3,sys;c=sqlite3.connect(sys.argv[1]);print('\\n'.join(c.iterdump()))"
    return subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=ROOT).stdout


def test_streamed_deltas_as_json_hold_no_secret() -> None:
    pieces = [REPLY[i : i + 3] for i in range(0, len(REPLY), 3)]
    seen = json.dumps([streamed("".join(pieces), list(range(0, len(REPLY), 3)))])
    assert not [s for s in SECRETS if s[6:] in seen]
