"""The worked records of RECORDS.md (copied from shared/examples) replay to their exact output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "records"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "examples"
CASES = sorted(p.stem for p in HERE.glob("*.json") if not p.stem.endswith(".out"))


def _strip_message(out: dict) -> dict:  # type: ignore[type-arg]
    out = json.loads(json.dumps(out))
    if "error" in out:
        out["error"].pop("message", None)
    return out


@pytest.mark.parametrize("name", CASES)
def test_example_replays_exactly(name: str) -> None:
    expected = json.loads((HERE / f"{name}.out.json").read_text(encoding="utf-8"))
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(HERE / f"{name}.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    got = json.loads(proc.stdout)
    assert _strip_message(got) == _strip_message(expected)
    assert proc.returncode == (0 if expected["ok"] else 1)
    if not expected["ok"]:
        assert got["error"]["message"]


def test_examples_present() -> None:
    assert len(CASES) >= 7


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared/ is not beside this checkout")
def test_copies_match_shared() -> None:
    for p in SHARED.glob("*.json"):
        assert (HERE / p.name).read_text(encoding="utf-8") == p.read_text(encoding="utf-8")
