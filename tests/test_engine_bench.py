"""``python -m engine bench --against PATH``: both engines run the fixed workload in fresh
interpreters and the last line is JSON with both trees' figures and their ratios (never a timed
assertion: the figures only have to be there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.__main__ import main

ROOT = Path(__file__).resolve().parent.parent


def test_bench_against_a_tree_prints_both_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--against", str(ROOT), "--rounds", "1", "--games", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("round 1: ")
    figures = json.loads(lines[-1])
    assert figures["rounds"] == 1 and figures["games"] == 3
    for side in ("this", "against"):
        assert figures[side]["tree"] == str(ROOT)
        assert figures[side]["games_per_s"] > 0
        assert figures[side]["legal_us"] > 0 and figures[side]["lead_us"] > 0
    assert figures["ratio"] > 0 and len(figures["ratio_rounds"]) == 1


def test_bench_against_a_path_without_an_engine_is_refused(tmp_path: Path) -> None:
    assert main(["bench", "--against", str(tmp_path), "--rounds", "1", "--games", "1"]) == 2
