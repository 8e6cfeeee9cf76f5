"""Find the shell examples of a Markdown file: fenced ```sh / ```bash blocks, in order.

A block that cannot run in a test (``make run``, ``git clone``, Docker) is marked on the line just before
its fence with ``<!-- docs-test: skip <why> -->``; it is returned with ``skip`` set to the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
SKIP_RE = re.compile(r"^\s*<!--\s*docs-test:\s*skip\b\s*(?P<why>.*?)\s*-->\s*$")
FENCE_RE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    skip: str | None  # the reason, when annotated

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def shell_blocks(path: Path) -> list[Block]:
    lines = path.read_text().splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE_RE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, language = opening.group("fence"), opening.group("lang").lower()
        start = index
        index += 1
        body: list[str] = []
        while index < len(lines) and not lines[index].startswith(fence):
            body.append(lines[index])
            index += 1
        index += 1  # the closing fence
        if language not in SHELL_LANGUAGES:
            continue
        previous = lines[start - 1] if start > 0 else ""
        skipped = SKIP_RE.match(previous)
        why = (skipped.group("why") or "annotated") if skipped else None
        blocks.append(Block(path, start + 1, language, "\n".join(body) + "\n", why))
    return blocks
