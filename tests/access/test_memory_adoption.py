"""Memories adopted at sign-in (bare subject -> ``ISSUER#SUBJECT``) deduplicate like memories saved afterwards;
datasets and experiments are adopted with them."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.experiments import DatasetItem, RunConfig, create_dataset, create_experiment, get_dataset
from agent_core.experiments.datasets import list_datasets
from agent_core.experiments.records import list_experiments
from agent_core.longterm import MemoryStore
from agent_core.store import Actor, SessionStore
from agent_core.store.access import owner_key

ISSUER = "https://id.example.com"
LEGACY = Actor.user("sub-alice")
"""How sign-in recorded Alice before migration 0007: her bare subject."""
ALICE = Actor.user(owner_key(ISSUER, "sub-alice"), "alice@example.com")
BOB = Actor.user(owner_key(ISSUER, "sub-bob"), "bob@example.com")
FACTS = ["Alice's team deploys on Fridays", "The build server is ci-3", "Prefers metric units"]
SCOPES = ["user", "team-x"]


def respelled(text: str, how: int) -> str:
    """The same fact written another way: case and spacing do not count for duplicates."""
    return [text, text.upper(), "  " + text.replace(" ", "   ") + " ", text.lower()][how % 4]


def adopted(store: SessionStore, facts: list[tuple[str, str]]) -> MemoryStore:
    """Alice's memories saved under her bare subject, then adopted as she signs in; her store after."""
    legacy = MemoryStore(store.engine, actor=LEGACY)
    for scope, text in facts:
        legacy.add(text, scope=scope)
    store.acting_as(ALICE).sessions.adopt_owner("sub-alice")
    return MemoryStore(store.engine, actor=ALICE)


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("how", range(4))
def test_an_adopted_memory_is_found_again_when_its_user_remembers_it(store: SessionStore, scope: str, how: int) -> None:
    mine = adopted(store, [(scope, fact) for fact in FACTS])
    before = [m.id for m in mine.list(scope)]
    again = mine.add(respelled(FACTS[1], how), scope=scope)
    assert again.existing and again.id in before
    assert [m.id for m in mine.list(scope)] == before
    theirs = MemoryStore(store.engine, actor=BOB).add(FACTS[1], scope=scope)
    assert not theirs.existing and theirs.id not in before  # another user's same text is their own memory
    assert [m.text for m in MemoryStore(store.engine, actor=BOB).list(scope)] == [FACTS[1]]


def test_a_fact_held_under_both_keys_is_kept_once_after_adoption(store: SessionStore) -> None:
    MemoryStore(store.engine, actor=ALICE).add(FACTS[0], scope="user")  # saved since, under the new key
    mine = adopted(store, [("user", FACTS[0]), ("user", FACTS[2])])
    assert sorted(m.text for m in mine.list("user")) == sorted([FACTS[0], FACTS[2]])
    assert mine.add(FACTS[0].upper(), scope="user").existing
    assert mine.count("user") == 2


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    facts=st.lists(
        st.tuples(st.sampled_from(SCOPES), st.sampled_from(FACTS)), min_size=1, max_size=6, unique_by=lambda f: f
    ),
    how=st.integers(0, 3),
)
def test_every_adopted_memory_deduplicates(store: SessionStore, facts: list[tuple[str, str]], how: int) -> None:
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM memories")
    mine = adopted(store, facts)
    counts = {scope: mine.count(scope) for scope in SCOPES}
    for scope, text in facts:
        assert mine.add(respelled(text, how), scope=scope).existing, (scope, text)
    assert {scope: mine.count(scope) for scope in SCOPES} == counts


def test_datasets_and_experiments_are_adopted_with_the_rest(store: SessionStore) -> None:
    legacy = store.acting_as(LEGACY)
    item = DatasetItem(id="a", question="What is 2 + 2?", expect=[{"number": 4}])
    old = create_dataset(legacy, "arith", [item])
    experiment = create_experiment(legacy, old.id, [RunConfig(name="r", model="m")])
    alice = store.acting_as(ALICE)
    create_dataset(alice, "arith", [item, item.model_copy(update={"id": "b"})])  # made since, under the new key
    alice.sessions.adopt_owner("sub-alice")
    assert sorted((d.name, d.version, d.item_count) for d in list_datasets(alice)) == [("arith", 1, 2), ("arith", 2, 1)]
    assert get_dataset(alice, old.id).version == 2
    assert [e.id for e in list_experiments(alice)] == [experiment.id]
    assert list_datasets(store.acting_as(BOB)) == [] and list_experiments(store.acting_as(BOB)) == []
