"""``--plot``: the benchmarks' figures drawn to a PNG (latency CDF, throughput over time, bars)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooling.bench import plot
from tooling.bench.series import Bars, Series

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_every_kind_of_panel_lands_in_one_png(tmp_path: Path) -> None:
    fast = Series("memhq", [1_000_000 + 10_000 * i for i in range(200)], [i / 40 for i in range(200)])
    slow = Series("baseline", [3_000_000 + 20_000 * i for i in range(100)], [i / 20 for i in range(100)])
    bars = Bars("phase medians", {"persist": 4.5, "index": 117.5})
    target = tmp_path / "out" / "bench.png"
    path = plot.save(target, "a run", latencies=[fast, slow], rates=[fast], charts=[bars])
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 10_000


def test_nothing_to_draw_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="nothing to plot"):
        plot.save(tmp_path / "empty.png", "nothing")
