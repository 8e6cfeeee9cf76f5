"""Fusion is pure: votes blending normalised signal scores and RRF ranks, votes added up per stored message,
neighbours of the best messages, the speaker nudge, and dedupe on the messages an item stands for."""

from __future__ import annotations

from dataclasses import replace

import pytest

from retrieval.config import RetrievalConfig
from retrieval.fusion import Hit, dedupe, normalise, raise_instruction, spread, vote
from retrieval.items import Item
from retrieval.recall import relevant
from retrieval.rerank import ordered

SETTINGS = RetrievalConfig(
    weights={"vector": 0.5, "message_keyword": 1.0, "entity": 0.5},
    memory_share=0.5,
    speaker_boost=0.5,
    neighbour_weights={1: 0.4, -1: 0.2},
    neighbour_seeds=2,
    score_share=1.0,  # most tests below are about scores; the blend has its own tests
)


def message(key: str, source: str, speaker: str = "Ana") -> Item:
    return Item(key=key, id=key, type="message", text=key, anchor=speaker, sources=[source])


def memory(key: str, *sources: str, about: str = "user") -> Item:
    return Item(key=key, id=key, type="memory", text=key, anchor=about, sources=list(sources))


def fused(
    items: list[Item], hits: list[Hit], query: str = "", settings: RetrievalConfig = SETTINGS
) -> tuple[dict[str, Item], list[Item]]:
    """(every item as scored, by key; the deduped order). The steps leave their input alone."""
    by_key = {item.key: item for item in items}
    scored = spread(vote(by_key, hits, settings), query, settings)
    assert all(item.vote == 0.0 and item.score == 0.0 for item in items)
    return scored, dedupe(ordered(list(scored.values())))


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
    scored, result = fused(items, hits)
    both = scored[both.key]
    once = scored[once.key]
    fact = scored[fact.key]
    assert both.score == fact.score == pytest.approx(both.vote + 0.5 * fact.vote)
    assert both.score > once.score
    # The fact and its message tie: the fact shows, the message it carries is not repeated.
    assert [item.key for item in result[:2]] == ["f1", "m2"]
    assert "m1" not in [item.key for item in result]


def test_the_speaker_the_query_names_gets_the_boost() -> None:
    ana, bo = message("a", "e:1", speaker="Ana"), message("b", "e:7", speaker="Bo")
    hits = [Hit("message_keyword", "b", 1.0), Hit("message_keyword", "a", 1.0)]
    scored, _ = fused([ana, bo], hits, query="What did Ana say about the trip?")
    ana = scored[ana.key]
    bo = scored[bo.key]
    assert ana.vote == pytest.approx(bo.vote)
    assert ana.score == pytest.approx(1.5 * bo.score)


def test_the_named_speakers_reply_found_only_as_a_neighbour_outranks_the_other_speakers_turns() -> None:
    setback = message("s", "e:4", speaker="Greta")
    reply = message("r", "e:5", speaker="Nate")
    other = message("o", "e:9", speaker="Greta")
    hits = [
        Hit("message_keyword", "s", 3.0, rank=1),
        Hit("message_keyword", "o", 2.0, rank=2),
        Hit("message_keyword", "x", 0.0, rank=3),
        Hit("neighbour", "r", None),
    ]
    settings = replace(SETTINGS, neighbour_weights={1: 0.4}, speaker_boost=1.0)
    scored, result = fused(
        [setback, reply, other, message("x", "z:1")], hits, "What did Nate say after the setback?", settings
    )
    setback = scored[setback.key]
    reply = scored[reply.key]
    other = scored[other.key]
    assert reply.vote == 0.0
    assert reply.score == pytest.approx(0.4 * setback.score * 2.0)  # 0.8: without the boost 0.4, below "o"
    assert other.score == pytest.approx(2.0 / 3.0)
    assert [item.key for item in result[:3]] == ["s", "r", "o"]


def test_score_share_zero_is_weighted_rrf_and_ignores_how_far_ahead_a_score_is() -> None:
    a, b, c = message("a", "e:1"), message("b", "e:2"), message("c", "e:3")
    hits = [Hit("message_keyword", "a", 100.0, rank=1), Hit("message_keyword", "b", 1.0, rank=2)]
    hits += [Hit("vector", "c", 0.9, rank=1), Hit("message_keyword", "c", 0.5, rank=3)]
    rrf = replace(SETTINGS, score_share=0.0, rrf_k=60, neighbour_weights={})
    scored, _ = fused([a, b, c], hits, settings=rrf)
    a = scored[a.key]
    b = scored[b.key]
    c = scored[c.key]
    assert a.vote == pytest.approx(1.0 * 61 / 61)
    assert b.vote == pytest.approx(1.0 * 61 / 62)
    assert c.vote == pytest.approx(0.5 * 61 / 61 + 1.0 * 61 / 63)
    assert c.vote > a.vote > b.vote


def test_the_blend_is_the_share_weighted_mean_of_normalised_score_and_rank() -> None:
    a, b, c = message("a", "e:1"), message("b", "e:2"), message("c", "e:3")
    hits = [
        Hit("message_keyword", "a", 4.0, rank=1),
        Hit("message_keyword", "b", 3.0, rank=2),
        Hit("message_keyword", "c", 0.0, rank=3),
    ]
    blend = replace(SETTINGS, score_share=0.25, rrf_k=10, neighbour_weights={})
    scored, _ = fused([a, b, c], hits, settings=blend)
    a = scored[a.key]
    b = scored[b.key]
    c = scored[c.key]
    assert a.vote == pytest.approx(1.0)
    assert b.vote == pytest.approx(0.25 * 0.75 + 0.75 * 11 / 12)
    assert c.vote == pytest.approx(0.75 * 11 / 13)


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
    scored, _ = fused([best, after, before, far, weak, weak_next], hits)
    best = scored[best.key]
    after = scored[after.key]
    before = scored[before.key]
    weak_next = scored[weak_next.key]
    assert after.score == pytest.approx(0.4 * best.score)
    assert before.score == pytest.approx(0.2 * best.score)
    assert weak_next.score == 0.0  # "w" is not among the two best messages


def test_items_without_stored_messages_keep_their_vote() -> None:
    summary = Item(key="s", id="s", type="episode_summary", text="trip", anchor="")
    scored, _ = fused([summary], [Hit("entity", "s", 1.0)])
    assert scored["s"].score == pytest.approx(0.5)


def test_dedupe_keeps_an_item_that_adds_a_message_and_hands_ranks_to_the_carrier() -> None:
    first, second, third = memory("a", "e:1"), memory("b", "e:1", "e:2"), message("c", "e:2")
    first.ranks, second.ranks, third.ranks = {"vector": 1}, {"vector": 2}, {"time": 1, "vector": 9}
    kept = dedupe([first, second, third])
    assert [item.key for item in kept] == ["a", "b"]
    assert kept[1].ranks == {"vector": 2, "time": 1}
    assert second.ranks == {"vector": 2}  # the input is left as it was


def test_memories_of_one_message_each_stay_and_only_a_repeated_text_is_dropped() -> None:
    diet, spice, food = memory("d", "e:1"), memory("s", "e:1"), memory("f", "e:1")
    diet.text, spice.text, food.text = "User is vegetarian.", "User hates spicy food.", "User is Vegetarian"
    said = message("m", "e:1")
    kept = dedupe([diet, spice, food, said])
    assert [item.key for item in kept] == ["d", "s"]


def test_the_fact_the_query_matched_leads_the_other_facts_of_its_message() -> None:
    diet, spice, said = memory("d", "e:1"), memory("s", "e:1"), message("m", "e:1")
    hits = [
        Hit("message_keyword", "m", 1.0),
        Hit("vector", "d", 0.9),
        Hit("vector", "s", 0.3),
        Hit("vector", "x", 0.1),  # the signal's worst hit, so min-max leaves the two facts apart
    ]
    items = [diet, spice, said, memory("x", "e:9")]
    riding, _ = fused(items, hits, settings=replace(SETTINGS, sibling_exponent=0.0))
    assert riding["d"].score == riding["s"].score == riding["m"].score  # both ride on the message's score
    scored, result = fused(items, hits, settings=replace(SETTINGS, sibling_exponent=0.5))
    share = (scored["s"].vote / scored["d"].vote) ** 0.5
    assert scored["d"].score == riding["d"].score
    assert scored["s"].score == pytest.approx(scored["d"].score * share)
    assert [item.key for item in result[:2]] == ["d", "s"]  # both still shown: each competes on its own


def test_dedupe_with_a_limit_keeps_the_same_first_items_and_the_ranks_handed_on_past_it() -> None:
    # a, b kept; c past the limit of 2 (not kept, but it carries e:3); d repeats b's message; e repeats a's
    # text; f's messages are carried by b and by c (past the limit): it is a repeat in both cases.
    a, b, c = memory("a", "e:1"), memory("b", "e:2"), message("c", "e:3")
    d, e, f = (
        message("d", "e:2"),
        memory("e", "e:9"),
        Item(key="f", id="f", type="passage", text="f", anchor="Ana", sources=["e:2", "e:3"]),
    )
    e.text = "A"
    for item, signal in zip(
        (a, b, c, d, e, f), ("vector", "keyword", "time", "message_keyword", "entity", "x"), strict=True
    ):
        item.ranks = {signal: 1}
    whole = dedupe([a, b, c, d, e, f])
    limited = dedupe([a, b, c, d, e, f], limit=2)
    assert [item.key for item in whole] == ["a", "b", "c"]
    assert [(item.key, item.ranks) for item in limited] == [(item.key, item.ranks) for item in whole[:2]]
    assert limited[0].ranks == {"vector": 1, "entity": 1}
    assert limited[1].ranks == {"keyword": 1, "message_keyword": 1, "x": 1}


def test_the_nearest_instruction_is_raised_to_its_slot_when_near_enough() -> None:
    ranked = [memory(key, f"e:{n}") for n, key in enumerate("abcdef")]
    near = [Hit("instruction", "e", 0.42, rank=1), Hit("instruction", "f", 0.31, rank=2)]
    settings = replace(SETTINGS, instruction_slot=1, instruction_slot_cosine=0.3)
    assert [item.key for item in raise_instruction(ranked, near, settings)] == list("aebcdf")
    far = [Hit("instruction", "e", 0.2, rank=1)]  # on another topic: stays where fusion put it
    assert [item.key for item in raise_instruction(ranked, far, settings)] == list("abcdef")
    already = [Hit("instruction", "a", 0.9, rank=1)]  # never moved down
    assert [item.key for item in raise_instruction(ranked, already, settings)] == list("abcdef")
    off = replace(settings, instruction_slot=-1)
    assert [item.key for item in raise_instruction(ranked, near, off)] == list("abcdef")
    assert [item.key for item in ranked] == list("abcdef")  # the input is left as it was


def test_relevant_leaves_out_what_scores_below_a_share_of_the_best() -> None:
    ranked = [message(key, f"e:{n}") for n, key in enumerate("abc")]
    for item, score in zip(ranked, (1.0, 0.5, 0.1), strict=True):
        item.score = score
    assert [item.key for item in relevant(ranked, 0.3)] == ["a", "b"]
    assert relevant(ranked, 0.0) == ranked


def test_a_message_and_its_passages_count_once_with_the_best_vote() -> None:
    whole = message("m", "e:1")
    part = Item(key="p", id="p", type="passage", text="p", anchor="Ana", sources=["e:1"])
    other = message("o", "e:2")
    hits = [
        Hit("message_keyword", "m", 1.0, rank=1),
        Hit("message_keyword", "o", 1.0, rank=1),
        Hit("vector", "p", 1.0, rank=1),
    ]
    scored, _ = fused([whole, part, other], hits, settings=replace(SETTINGS, neighbour_weights={}))
    assert scored["p"].vote == pytest.approx(0.5) and scored["m"].vote == pytest.approx(1.0)
    assert scored["m"].score == scored["p"].score == pytest.approx(scored["o"].score)


def test_a_filler_turn_votes_filler_weight_of_its_vote() -> None:
    fact, chatter = message("fact", "e:1"), replace(message("chat", "e:2", "assistant"), filler=True)
    hits = [Hit("message_keyword", "fact", 2.0), Hit("message_keyword", "chat", 2.0)]
    half = replace(SETTINGS, filler_weight=0.5)
    scored, _ = fused([fact, chatter], hits, settings=half)
    plain, _ = fused([fact, replace(chatter, filler=False)], hits, settings=half)
    assert scored["chat"].vote == pytest.approx(0.5 * plain["chat"].vote)
    lent = 0.4 * plain["fact"].vote  # the fact's share to its next turn is the same
    assert scored["chat"].score == pytest.approx(scored["chat"].vote + lent)


def test_copy_with_is_replace_and_refuses_what_is_not_a_field() -> None:
    item = memory("m", "e:1")
    changed = item.copy_with(score=2.0, ranks={"vector": 1})
    assert changed == replace(item, score=2.0, ranks={"vector": 1})
    assert (item.score, item.ranks) == (0.0, {})
    with pytest.raises(TypeError, match="scroe"):
        item.copy_with(scroe=1.0)
