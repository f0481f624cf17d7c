"""Time management: ``allot`` turns ``go`` limits into soft and hard budgets (milliseconds)."""

from __future__ import annotations

import pytest

from transpo.engine.timeman import DEFAULT_MOVES_TO_GO, MIN_BUDGET_MS, Budget, Limits, allot

OVERHEAD = 30


def test_movetime_is_used_whole_minus_overhead():
    b = allot(Limits(movetime=1000), True, OVERHEAD)
    assert b.soft_ms == b.hard_ms == 1000 - OVERHEAD
    b = allot(Limits(movetime=1000), False, 0)
    assert b.soft_ms == b.hard_ms == 1000
    # movetime wins over a clock that is also given
    b = allot(Limits(movetime=200, wtime=100_000, btime=100_000), True, OVERHEAD)
    assert b.soft_ms == b.hard_ms == 170


def test_movetime_below_overhead_keeps_a_minimum():
    b = allot(Limits(movetime=10), True, OVERHEAD)
    assert b.soft_ms == b.hard_ms == MIN_BUDGET_MS


@pytest.mark.parametrize("limits", [Limits(infinite=True), Limits(infinite=True, wtime=1000, btime=1000, movetime=50)])
def test_infinite_has_no_budget(limits):
    assert allot(limits, True, OVERHEAD) == Budget(None, None)
    assert allot(limits, False, OVERHEAD) == Budget(None, None)


@pytest.mark.parametrize("limits", [Limits(), Limits(depth=8), Limits(nodes=10_000), Limits(mate=3)])
def test_no_clock_no_budget(limits):
    assert allot(limits, True, OVERHEAD) == Budget(None, None)


def test_only_the_other_sides_clock_means_no_budget():
    assert allot(Limits(btime=60_000), True, OVERHEAD) == Budget(None, None)
    assert allot(Limits(wtime=60_000), False, OVERHEAD) == Budget(None, None)


def _check(b: Budget, left: int, overhead: int = OVERHEAD) -> None:
    assert b.soft_ms is not None and b.hard_ms is not None
    assert 0 < b.soft_ms <= b.hard_ms
    assert b.hard_ms <= left - overhead


def test_clock_without_increment():
    left = 60_000
    b = allot(Limits(wtime=left, btime=left), True, OVERHEAD)
    _check(b, left)
    share = (left - OVERHEAD) / DEFAULT_MOVES_TO_GO  # the documented base share
    assert b.soft_ms <= share <= b.hard_ms  # usually stop before the share, never cut before it
    assert b.hard_ms <= 0.5 * left  # one move never risks half the clock


def test_clock_side_to_move_decides():
    limits = Limits(wtime=60_000, btime=6_000, winc=1000, binc=0)
    white = allot(limits, True, OVERHEAD)
    black = allot(limits, False, OVERHEAD)
    _check(white, 60_000)
    _check(black, 6_000)
    assert white.soft_ms > 5 * black.soft_ms and white.hard_ms > 5 * black.hard_ms


def test_increment_adds_time():
    plain = allot(Limits(wtime=10_000), True, OVERHEAD)
    inc = allot(Limits(wtime=10_000, winc=500), True, OVERHEAD)
    _check(inc, 10_000)
    assert inc.soft_ms > plain.soft_ms and inc.hard_ms > plain.hard_ms
    # the documented share: time / moves_to_go + 3/4 increment
    assert plain.soft_ms <= (10_000 - OVERHEAD) / 30 <= plain.hard_ms
    assert inc.soft_ms <= (10_000 - OVERHEAD) / 30 + 375 <= inc.hard_ms


def test_big_increment_never_overdraws_a_small_clock():
    for left in (100, 300, 1000):
        b = allot(Limits(btime=left, binc=5000), False, OVERHEAD)
        _check(b, left)


def test_movestogo():
    left = 30_000
    many = allot(Limits(wtime=left, movestogo=40), True, OVERHEAD)
    default = allot(Limits(wtime=left), True, OVERHEAD)
    few = allot(Limits(wtime=left, movestogo=5), True, OVERHEAD)
    last = allot(Limits(wtime=left, movestogo=1), True, OVERHEAD)
    for b in (many, default, few, last):
        _check(b, left)
    assert many == default  # more moves to go than the default horizon: same as the default
    assert few.soft_ms > default.soft_ms and few.hard_ms > default.hard_ms
    assert last.soft_ms >= few.soft_ms and last.hard_ms > few.hard_ms
    # the last move before the time control may use most, but not all, of the clock
    assert 0.5 * (left - OVERHEAD) <= last.hard_ms < 0.9 * (left - OVERHEAD)


@pytest.mark.parametrize("inc", [0, 10])
@pytest.mark.parametrize("movestogo", [None, 1, 2, 10])
def test_tiny_clocks_never_exceed_remaining_minus_overhead(inc, movestogo):
    """1 s + 0.01 s games: at every clock reading down to what the overhead leaves, the hard limit
    (the timer that stops the search) fits in the remaining time minus the overhead."""
    for left in range(OVERHEAD + MIN_BUDGET_MS, 1001, 5):
        for white in (True, False):
            limits = Limits(wtime=left, btime=left, winc=inc, binc=inc, movestogo=movestogo)
            b = allot(limits, white, OVERHEAD)
            _check(b, left)


@pytest.mark.parametrize("latency", [0, 5])
def test_tiny_clock_game_never_flags(latency):
    """Simulate a 1 s + 0.01 s game in which every search runs to its hard limit and the GUI adds
    ``latency`` ms (up to half the increment; below the configured overhead): the clock settles
    instead of running out, over 300 moves."""
    left = 1000
    lowest = left
    for _ in range(300):
        b = allot(Limits(wtime=left, btime=left, winc=10, binc=10), True, OVERHEAD)
        used = b.hard_ms + latency
        assert used <= left - (OVERHEAD - latency)
        left = int(left - used + 10)
        lowest = min(lowest, left)
    assert lowest >= OVERHEAD


@pytest.mark.parametrize("overhead", [0, 30, 100, 500])
def test_overhead_is_taken_off(overhead):
    left = 20_000
    b = allot(Limits(wtime=left, winc=100), True, overhead)
    _check(b, left, overhead)
    if overhead:
        assert b.hard_ms <= allot(Limits(wtime=left, winc=100), True, 0).hard_ms


@pytest.mark.parametrize("left", [1, 20, 30, 31, 33, 34])
def test_minimum_budget_never_eats_the_overhead(left):
    """Below overhead + 5 ms the floor yields: hard + overhead stays within the clock (or 1 ms when none is left)."""
    budget = allot(Limits(wtime=left, winc=10), True, 30)
    assert budget.hard_ms + 30 <= max(left, 31)
    assert 0 < budget.soft_ms <= budget.hard_ms


def test_progress_gives_more_time_when_the_best_move_changes_or_the_score_drops():
    from transpo.engine.timeman import MAX_SCALE, Progress

    steady = Progress()
    for _ in range(3):
        steady.update("e2e4", 30)
    assert steady.scale() == 1.0
    changing = Progress()
    for move in ("e2e4", "d2d4", "c2c4"):
        changing.update(move, 30)
    assert changing.scale() > 1.4
    dropping = Progress()
    dropping.update("e2e4", 30)
    dropping.update("e2e4", -70)
    assert dropping.scale() == 1.5
    wild = Progress()
    for i in range(20):
        wild.update(str(i), -100 * i)
    assert wild.scale() == MAX_SCALE


def test_progress_saves_time_on_a_long_settled_answer():
    from transpo.engine.timeman import STABLE_ITERATIONS, Progress

    sure = Progress()
    for _ in range(STABLE_ITERATIONS + 1):
        sure.update("e2e4", 30)
    assert sure.scale() < 1.0
