"""Time management: how long to think about one move.

``allot`` turns the UCI ``go`` limits into two budgets in milliseconds:

* **soft**: when an iteration finishes past it, no new iteration starts
  (one that starts late would most likely not finish anyway);
* **hard**: the search is stopped there, mid-iteration, by a timer thread.

With a clock the base share is ``time / moves_to_go + 3/4 * increment``; the
hard limit may stretch to a few shares but never past a fraction of the
remaining time.  Between the two, :class:`Progress` stretches or shrinks the
soft limit by what the iterations showed: a best move that keeps changing or a
score that drops earns more time, a best move that has stood for many
iterations less (never past the hard limit).  ``Move Overhead`` is taken off everything, so GUI and process
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


INSTABILITY_WEIGHT = 0.5  # each recent change of the best move adds half the soft limit
INSTABILITY_DECAY = 0.5  # a change counts half as much one iteration later
DROP_FULL_CP = 100  # a drop of this many centipawns (or more) earns the largest extra time
DROP_WEIGHT = 0.5
STABLE_ITERATIONS = 5  # the same best move this many iterations in a row: save time
STABLE_SCALE = 0.75
MIN_SCALE, MAX_SCALE = 0.5, 2.5


@dataclass
class Progress:
    """How the answer moved from one iteration to the next: the time manager's evidence."""

    best_move: str | None = None
    score: int | None = None
    instability: float = 0.0  # recent best-move changes, decaying
    stable: int = 0  # iterations in a row with the same best move
    drop: int = 0  # centipawns the score fell in the last iteration (0 if it rose)

    def update(self, best_move: str, score: int) -> None:
        """Record a finished iteration's best move and score."""
        self.instability *= INSTABILITY_DECAY
        if self.best_move is not None and best_move != self.best_move:
            self.instability += 1
            self.stable = 0
        else:
            self.stable += 1
        self.drop = max(0, self.score - score) if self.score is not None else 0
        self.best_move, self.score = best_move, score

    def scale(self) -> float:
        """Factor on the soft time limit: above 1 when the search is unsettled, below when it is sure."""
        factor = 1 + INSTABILITY_WEIGHT * self.instability
        factor *= 1 + DROP_WEIGHT * min(self.drop, DROP_FULL_CP) / DROP_FULL_CP
        if self.stable >= STABLE_ITERATIONS:
            factor *= STABLE_SCALE
        return min(max(factor, MIN_SCALE), MAX_SCALE)
