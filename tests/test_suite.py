"""The suite itself: CI runs exactly the README's test command, and every test that starts a bot
(in-process against the local server, or as processes of its own) carries the ``e2e`` marker,
so ``-m "not e2e"`` is the quick run docs/development.md promises."""

from __future__ import annotations

import ast
import re
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# what starts a bot: botkit's world (the bot in-process), a ``python -m bot`` process, several
STARTERS = frozenset({"world", "local_bot", "BotProcess", "BotCluster"})


def readme_test_command() -> str:
    text = (ROOT / "README.md").read_text()
    (command,) = re.findall(r"^    (python3 -m pip install -e '\.\[test\]' && .+)$", text, re.M)
    return str(command)


def test_ci_runs_the_readme_test_command() -> None:
    command = readme_test_command()
    assert " -n " in command  # in parallel: minutes, not twenty
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert command in ci


def _marked_e2e(decorators: list[ast.expr]) -> bool:
    return any("mark.e2e" in ast.unparse(d) for d in decorators)


def _starts_a_bot(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in STARTERS:
            return True
        if isinstance(sub, ast.Call | ast.List | ast.Tuple):  # a process ``python -m bot …``
            items = sub.args if isinstance(sub, ast.Call) else sub.elts
            args = [a.value if isinstance(a, ast.Constant) else None for a in items]
            if any(x == "-m" and y == "bot" for x, y in pairwise(args)):
                return True
    return False


def unmarked_bot_tests(source: str) -> list[str]:
    """The tests of a module that start a bot (themselves, through a function of the module or a
    fixture of the module) without the ``e2e`` marker, on them or on the whole module."""
    tree = ast.parse(source)
    module_marked = any(
        isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in n.targets)
        and "mark.e2e" in ast.unparse(n.value)
        for n in tree.body
    )
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    starting = {name for name, f in funcs.items() if _starts_a_bot(f)}
    grew = True
    while grew:  # a function calling (or, as a fixture, taken by) one that starts a bot
        used = {
            name: {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
            | {a.arg for a in f.args.args}
            for name, f in funcs.items()
        }
        more = {name for name, names in used.items() if names & starting} - starting
        starting |= more
        grew = bool(more)
    return sorted(
        name
        for name in starting
        if name.startswith("test_")
        and not module_marked
        and not _marked_e2e(funcs[name].decorator_list)
    )


def test_every_test_that_starts_a_bot_is_marked_e2e() -> None:
    unmarked = {
        path.name: names
        for path in sorted(TESTS.glob("test_*.py"))
        if (names := unmarked_bot_tests(path.read_text()))
    }
    assert unmarked == {}


def test_the_marker_check_sees_bots_started_through_helpers_and_fixtures() -> None:
    source = """
import pytest
from botkit import world

async def helper(tmp):
    async with world(tmp) as w:
        return w

@pytest.fixture
async def w(tmp_path):
    return await helper(tmp_path)

async def test_direct(tmp_path):
    async with world(tmp_path):
        pass

async def test_by_helper(tmp_path):
    await helper(tmp_path)

async def test_by_fixture(w):
    pass

def test_a_process():
    subprocess.run([sys.executable, "-m", "bot", "check"])

@pytest.mark.e2e
async def test_marked(tmp_path):
    await helper(tmp_path)

def test_pure():
    assert True
"""
    assert unmarked_bot_tests(source) == [
        "test_a_process",
        "test_by_fixture",
        "test_by_helper",
        "test_direct",
    ]
    assert unmarked_bot_tests("import pytest\npytestmark = pytest.mark.e2e\n" + source) == []


MAX_LINES = 600  # a module longer than this does more than one job (docs/development.md)


def test_no_module_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for top in ("bot", "engine", "renderers", "tests")
        for path in (ROOT / top).rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"
