"""Time management: how long to think about one move.

``allot`` turns the UCI ``go`` limits into two budgets in milliseconds:

* **soft**: when an iteration finishes past it, no new iteration starts
  (one that starts late would most likely not finish anyway);
* **hard**: the search is stopped there, mid-iteration, by a timer thread.

With a clock the base share is ``time / moves_to_go + 3/4 * increment``; the
hard limit may stretch to a few shares but never past a fraction of the
remaining time.  ``Move Overhead`` is taken off everything, so GUI and process
latency cannot flag the engine even at 1 s + 0.01 s per game.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MOVES_TO_GO = 30
MIN_BUDGET_MS = 5


@dataclass
class Limits:
    """What ``go`` asked for; ``None`` means no such limit."""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    mate: int | None = None
    infinite: bool = False
    ponder: bool = False

    def clock(self, white: bool) -> tuple[int | None, int]:
        """(time left, increment) of the side to move."""
        return (self.wtime, self.winc) if white else (self.btime, self.binc)


@dataclass
class Budget:
    """Milliseconds for one search: start no new iteration after ``soft_ms``, stop at ``hard_ms`` (None: no limit)."""

    soft_ms: float | None
    hard_ms: float | None


def allot(limits: Limits, white: bool, overhead_ms: int) -> Budget:
    """The soft and hard time budgets for one search (``None``: unlimited)."""
    if limits.infinite:
        return Budget(None, None)
    if limits.movetime is not None:
        budget = max(MIN_BUDGET_MS, limits.movetime - overhead_ms)
        return Budget(budget, budget)
    left, inc = limits.clock(white)
    if left is None:
        return Budget(None, None)
    usable = max(1, left - overhead_ms)  # at least a millisecond: "go" must still answer a move
    moves_to_go = min(limits.movestogo or DEFAULT_MOVES_TO_GO, DEFAULT_MOVES_TO_GO)
    share = usable / moves_to_go + 0.75 * inc
    hard_cap = usable * (0.8 if moves_to_go == 1 else 0.3)
    hard = min(max(MIN_BUDGET_MS, min(4 * share, hard_cap)), usable)  # the floor never eats the overhead
    soft = min(max(MIN_BUDGET_MS / 2, 0.6 * share), hard)
    return Budget(soft, hard)
