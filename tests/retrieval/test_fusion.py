"""Fusion is pure: votes from normalised signal scores, the speaker nudge, votes added up per stored message,
neighbours of the best messages, and dedupe on the messages an item stands for."""

from __future__ import annotations

import pytest

from retrieval.fusion import FusionSettings, Hit, dedupe, normalise, spread, vote
from retrieval.items import Item
from retrieval.rerank import ordered

SETTINGS = FusionSettings(
    weights={"vector": 0.5, "message_keyword": 1.0, "entity": 0.5},
    memory_share=0.5,
    speaker_boost=0.5,
    neighbour_weights={1: 0.4, -1: 0.2},
    neighbour_seeds=2,
)


def message(key: str, source: str, speaker: str = "Ana") -> Item:
    return Item(key=key, id=key, type="message", text=key, anchor=speaker, sources=[source])


def memory(key: str, *sources: str, about: str = "user") -> Item:
    return Item(key=key, id=key, type="memory", text=key, anchor=about, sources=list(sources))


def fused(
    items: list[Item], hits: list[Hit], query: str = "", settings: FusionSettings = SETTINGS
) -> list[Item]:
    by_key = {item.key: item for item in items}
    vote(by_key, hits, query, settings)
    spread(by_key, settings)
    return dedupe(ordered(items))


def test_normalise_is_min_max_and_tolerates_ties_and_gaps() -> None:
    assert normalise([3.0, 2.0, 1.0]) == [1.0, 0.5, 0.0]
    assert normalise([0.7, 0.7]) == [1.0, 1.0]
    assert normalise([None, 2.0, 1.0]) == [1.0, 1.0, 0.0]
    assert normalise([]) == []


def test_a_message_found_directly_and_through_its_memory_beats_one_found_once_and_the_memory_shows() -> None:
    both, once = message("m1", "e:1"), message("m2", "e:5")
    fact = memory("f1", "e:1")
    hits = [
        Hit("message_keyword", "m2", 2.0),
        Hit("message_keyword", "m1", 1.9),
        Hit("message_keyword", "m9", 0.0),
        Hit("vector", "f1", 0.8),
    ]
    items = [both, once, fact, message("m9", "e:9")]
    result = fused(items, hits)
    assert both.score == fact.score == pytest.approx(both.vote + 0.5 * fact.vote)
    assert both.score > once.score
    # The fact and its message tie: the fact shows, the message it carries is not repeated.
    assert [item.key for item in result[:2]] == ["f1", "m2"]
    assert "m1" not in [item.key for item in result]


def test_the_speaker_the_query_names_gets_the_boost() -> None:
    ana, bo = message("a", "e:1", speaker="Ana"), message("b", "e:7", speaker="Bo")
    hits = [Hit("message_keyword", "b", 1.0), Hit("message_keyword", "a", 1.0)]
    fused([ana, bo], hits, query="What did Ana say about the trip?")
    assert ana.vote == pytest.approx(1.5 * bo.vote)


def test_neighbours_of_the_best_messages_get_a_share_and_others_do_not() -> None:
    best, after, before = message("m1", "e:4"), message("m2", "e:5"), message("m0", "e:3")
    far, weak, weak_next = message("m9", "e:20"), message("w", "x:1"), message("wn", "x:2")
    hits = [
        Hit("message_keyword", "m1", 3.0),
        Hit("message_keyword", "m9", 2.0),
        Hit("message_keyword", "w", 0.0),
        Hit("neighbour", "m2", None),
        Hit("neighbour", "m0", None),
        Hit("neighbour", "wn", None),
    ]
    fused([best, after, before, far, weak, weak_next], hits)
    assert after.score == pytest.approx(0.4 * best.score)
    assert before.score == pytest.approx(0.2 * best.score)
    assert weak_next.score == 0.0  # "w" is not among the two best messages


def test_items_without_stored_messages_keep_their_vote() -> None:
    summary = Item(key="s", id="s", type="episode_summary", text="trip", anchor="")
    fused([summary], [Hit("entity", "s", 1.0)])
    assert summary.score == pytest.approx(0.5)


def test_dedupe_keeps_an_item_that_adds_a_message_and_hands_ranks_to_the_carrier() -> None:
    first, second, third = memory("a", "e:1"), memory("b", "e:1", "e:2"), message("c", "e:2")
    first.ranks, second.ranks, third.ranks = {"vector": 1}, {"vector": 2}, {"time": 1, "vector": 9}
    assert [item.key for item in dedupe([first, second, third])] == ["a", "b"]
    assert second.ranks == {"vector": 2, "time": 1}
