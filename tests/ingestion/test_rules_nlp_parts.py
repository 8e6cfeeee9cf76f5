"""ingestion.extractors.rules_nlp: texts parsed in parts on helper threads, annotated as if parsed alone."""

from __future__ import annotations

from typing import Any

import pytest

from ingestion.extractors import rules_nlp
from ingestion.extractors.rules_nlp import add_entities, in_parts, parse_all
from memhq.ai import beside

TEXTS = [
    "I moved to Lisbon in March and started a new job at a small bakery near the river.",
    "ok",
    "My brother Tomás lives in Porto; he visits every other weekend with his two dogs.",
    "Can you suggest a vegetarian recipe for Friday? I'm cooking for six people.",
    "I switched from Java to Kotlin last year and I'm not going back. " * 6,
    "Thanks!",
    "We're flying to Osaka on 12 May, then taking the train to Kyoto for a week.",
]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7, 20])
def test_parts_are_consecutive_nonempty_and_cover_every_item(count: int) -> None:
    parts = rules_nlp._parts(TEXTS, count)
    assert [text for part in parts for text in part] == TEXTS
    assert all(parts) and len(parts) <= count


def test_parts_are_about_equal_in_length() -> None:
    texts = ["x" * 100] * 8
    assert [len(part) for part in rules_nlp._parts(texts, 4)] == [2, 2, 2, 2]


def test_in_parts_keeps_the_order(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(beside, "spare_cores", lambda: 8)
    settings.MEMHQ_MODEL_HELPERS = 3
    words = [f"w{n}" * (n % 7 + 1) for n in range(50)]
    assert in_parts(words, lambda part: [word.upper() for word in part]) == [word.upper() for word in words]
    assert in_parts([], lambda part: pytest.fail("nothing to run")) == []


def annotated(texts: list[str], helpers: int, settings: Any) -> list[list[tuple[Any, ...]]]:
    settings.MEMHQ_MODEL_HELPERS = helpers
    docs = parse_all(texts)
    add_entities([sentence for doc in docs for sentence in doc.sents])
    return [
        [(t.text, t.tag_, t.dep_, t.head.i, t.lemma_, t.ent_type_, t.is_sent_start) for t in doc]
        for doc in docs
    ]


def test_threads_change_no_annotation(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The threaded pass first, on words the process has not seen: the threads create the vocabulary's
    entries (lexemes, strings, tokenizer cache) at the same time."""
    monkeypatch.setattr(beside, "spare_cores", lambda: 8)  # lent whatever else the box runs
    texts = [
        f"I met Zorvath{n} Quellmire at the Brindlecott{n} café, and we talked about {word}{n} kelp."
        for n, word in enumerate(["glimmer", "snarf", "plov", "twindle"] * 6)
    ] + TEXTS * 2
    threaded = annotated(texts, 2, settings)
    assert any(ent for doc in threaded for (*_, ent, _) in doc)  # NER ran: the comparison covers entities
    assert annotated(texts, 0, settings) == threaded


def test_ner_is_skipped_for_the_parse_only() -> None:
    doc = parse_all(["My brother Tomás lives in Porto."])[0]
    assert not doc.ents
    assert rules_nlp.NER_PIPE in rules_nlp.get_nlp().pipe_names  # the shared pipeline keeps it
