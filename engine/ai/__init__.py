"""AI players (docs/rules.md throughout): easy (random legal), normal (heuristic), hard (search).

One entry point, :func:`decide`, for empty seats, 托管 and hints (docs/ai.md)::

    d = decide(match, seat, "normal", random.Random(7))
    match.apply(d.action)   # d.reason is a code of REASONS, d.params its parameters
"""

from .decision import ARENA_LEVELS, DEFAULT_BUDGET_MS, LEVELS, Decision, decide, decide_async
from .reasons import REASONS
from .timeout import timeout_action

__all__ = [
    "ARENA_LEVELS",
    "DEFAULT_BUDGET_MS",
    "LEVELS",
    "REASONS",
    "Decision",
    "decide",
    "decide_async",
    "timeout_action",
]
