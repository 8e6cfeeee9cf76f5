"""Extraction quality on a labelled set of user↔assistant conversations, measured through the real pipeline.

The set (``tests/fixtures/extraction_labelled.json``, written by hand for MemHQ, not taken from any
benchmark) is a list of cases. A case is one or more episodes of one user, sent in order (each with its
date and messages ``[role, content]`` or ``[role, content, name]``), and labels:

* ``expect``: memories the conversation must yield;
* ``optional``: memories it may yield (a correct paraphrase or side fact the labeller accepts, such as
  "User went hiking" next to "User loves hiking"); they never count for recall;
* ``supersedes``: ``{"old": ..., "new": ...}`` pairs: after all episodes, the ``old`` memory must be
  superseded by the ``new`` one;
* ``stays``: memories that must still be active at the end (a later episode that is not a change:
  someone else's move, a plan, a hypothetical);
* ``must_not``: what must not be stored (assistant suggestions the user did not take up, questions,
  hypotheticals, chatter, other people's facts attributed to the user).

Each label is a matcher: ``keywords`` (all must occur in the memory's text, case-insensitively, each at
the start of a word: "vegetarian" matches "vegetarians" but not "nonvegetarian"), and optionally
``predicate`` (equal to the memory's predicate) and ``subject`` (equal to its subject, case-insensitive).

Figures, over every case together (each case runs as its own user, all memories of any status count):

* **recall** = expected labels (``expect`` plus the ``old`` and ``new`` of every ``supersedes`` pair)
  matched by at least one stored memory / all of them;
* **precision** = stored memories that match some positive label (``expect``, ``optional``,
  ``supersedes``, ``stays``) and no ``must_not`` label / all stored memories — so anything stored that
  the labeller did not list counts against precision;
* **supersession accuracy** = correct checks / all checks, where each ``supersedes`` pair is one check
  (correct when a memory matching ``old`` has status superseded, ``superseded_by`` a memory matching
  ``new`` that is active, and ``valid_until`` equal to that memory's ``valid_from``) and each ``stays``
  label is one check (correct when a matching memory is active).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingestion.pipeline import run_inline
from memhq.models import Memory, MemoryStatus, Project
from memhq.services.episodes import episode_create

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "extraction_labelled.json"


@dataclass(frozen=True)
class Label:
    keywords: tuple[str, ...]
    predicate: str | None = None
    subject: str | None = None

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Label:
        return cls(tuple(data["keywords"]), data.get("predicate"), data.get("subject"))

    def matches(self, memory: Memory) -> bool:
        text = memory.text.casefold()
        if self.predicate is not None and memory.predicate != self.predicate:
            return False
        if self.subject is not None and memory.subject.casefold() != self.subject.casefold():
            return False
        return all(re.search(r"(?<!\w)" + re.escape(word.casefold()), text) for word in self.keywords)

    def __str__(self) -> str:
        extra = f" [{self.predicate}]" if self.predicate else ""
        return "+".join(self.keywords) + extra


@dataclass(frozen=True)
class Episode:
    date: str
    messages: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Case:
    id: str
    episodes: tuple[Episode, ...]
    expect: tuple[Label, ...] = ()
    optional: tuple[Label, ...] = ()
    supersedes: tuple[tuple[Label, Label], ...] = ()
    stays: tuple[Label, ...] = ()
    must_not: tuple[Label, ...] = ()

    @property
    def positives(self) -> tuple[Label, ...]:
        pairs = tuple(label for pair in self.supersedes for label in pair)
        return self.expect + self.optional + pairs + self.stays

    @property
    def required(self) -> tuple[Label, ...]:
        return self.expect + tuple(label for pair in self.supersedes for label in pair)


def load_cases(path: Path = DEFAULT_DATA, only: Iterable[str] = ()) -> list[Case]:
    wanted = set(only)
    cases = []
    for item in json.loads(path.read_text())["cases"]:
        if wanted and item["id"] not in wanted:
            continue
        labels = {key: tuple(Label.parse(x) for x in item.get(key, [])) for key in ("expect", "optional")}
        cases.append(
            Case(
                id=item["id"],
                episodes=tuple(
                    Episode(e["date"], tuple(tuple(m) for m in e["messages"])) for e in item["episodes"]
                ),
                supersedes=tuple(
                    (Label.parse(p["old"]), Label.parse(p["new"])) for p in item.get("supersedes", [])
                ),
                stays=tuple(Label.parse(x) for x in item.get("stays", [])),
                must_not=tuple(Label.parse(x) for x in item.get("must_not", [])),
                **labels,
            )
        )
    return cases


@dataclass
class CaseResult:
    id: str
    required: int = 0
    found: int = 0
    stored: int = 0
    correct: int = 0
    checks: int = 0
    checks_correct: int = 0
    missed: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)  # stored texts that count against precision
    failed_checks: list[str] = field(default_factory=list)


@dataclass
class Report:
    cases: list[CaseResult]

    @staticmethod
    def _ratio(num: int, den: int) -> float:
        return num / den if den else 1.0

    @property
    def precision(self) -> float:
        return self._ratio(sum(c.correct for c in self.cases), sum(c.stored for c in self.cases))

    @property
    def recall(self) -> float:
        return self._ratio(sum(c.found for c in self.cases), sum(c.required for c in self.cases))

    @property
    def supersession_accuracy(self) -> float:
        return self._ratio(sum(c.checks_correct for c in self.cases), sum(c.checks for c in self.cases))

    def figures(self) -> dict[str, float | int]:
        return {
            "cases": len(self.cases),
            "stored": sum(c.stored for c in self.cases),
            "required": sum(c.required for c in self.cases),
            "checks": sum(c.checks for c in self.cases),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "supersession_accuracy": round(self.supersession_accuracy, 4),
        }


#: Called before each episode is processed, with the case and the episode's position (to script a fake).
BeforeEpisode = Callable[[Case, int], None]


def ingest_case(
    project: Project, case: Case, user_id: str, before_episode: BeforeEpisode | None = None
) -> None:
    for position, episode in enumerate(case.episodes):
        messages = []
        for turn in episode.messages:
            message = {"role": turn[0], "content": turn[1]}
            if len(turn) > 2 and turn[2]:
                message["name"] = turn[2]
            messages.append(message)
        raw = json.dumps({"user_id": user_id, "messages": messages, "timestamp": episode.date}).encode()
        created = episode_create(project=project, user_id=user_id, raw_body=raw).episode
        if before_episode is not None:
            before_episode(case, position)
        run_inline(created.pk)


def _supersession_ok(old: Label, new: Label, memories: Sequence[Memory]) -> bool:
    by_id = {m.pk: m for m in memories}
    for memory in memories:
        if not old.matches(memory) or memory.status != MemoryStatus.SUPERSEDED:
            continue
        successor = by_id.get(memory.superseded_by_id) if memory.superseded_by_id else None
        if (
            successor is not None
            and new.matches(successor)
            and successor.status == MemoryStatus.ACTIVE
            and memory.valid_until == max(successor.valid_from, memory.valid_from)  # a plan called off early
        ):
            return True
    return False


def score_case(case: Case, memories: Sequence[Memory]) -> CaseResult:
    result = CaseResult(id=case.id, required=len(case.required), stored=len(memories))
    for label in case.required:
        if any(label.matches(m) for m in memories):
            result.found += 1
        else:
            result.missed.append(str(label))
    for memory in memories:
        good = any(label.matches(memory) for label in case.positives)
        bad = any(label.matches(memory) for label in case.must_not)
        if good and not bad:
            result.correct += 1
        else:
            result.unexpected.append(("FORBIDDEN " if bad else "") + memory.text)
    for old, new in case.supersedes:
        result.checks += 1
        if _supersession_ok(old, new, memories):
            result.checks_correct += 1
        else:
            result.failed_checks.append(f"{old} -> {new}")
    for label in case.stays:
        result.checks += 1
        if any(label.matches(m) and m.status == MemoryStatus.ACTIVE for m in memories):
            result.checks_correct += 1
        else:
            result.failed_checks.append(f"stays {label}")
    return result


def evaluate(project: Project, cases: Sequence[Case], before_episode: BeforeEpisode | None = None) -> Report:
    """Run every case through the pipeline (one user each) and score it."""
    results = []
    for case in cases:
        user_id = f"eval-{case.id}-{uuid.uuid4().hex[:8]}"
        ingest_case(project, case, user_id, before_episode)
        memories = list(Memory.objects.filter(project=project, user_id=user_id).defer("embedding"))
        results.append(score_case(case, memories))
    return Report(results)
