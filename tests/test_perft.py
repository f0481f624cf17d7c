"""perft against the published counts of perftsuite.epd (126 positions) and the CPW positions.

Default run: every count up to ``BULK_LIMIT`` leaves with bulk counting (last ply
counted, not made) and every count up to ``LEAF_LIMIT`` with every leaf made and
unmade (which also drives the incremental key and the undo stack).  The ``slow``
test runs every count of both files up to 200 million leaves.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from conftest import CPW_EPD, SUITE_EPD, assert_same_snapshot, load_epd, snapshot

from transpo import Position

# Budget: ~920 M leaves with bulk counting (~60 M leaves/s) and ~600 M leaves with
# every leaf made (~30 M leaves/s): about a minute of one core.
BULK_LIMIT = 100_000_000
LEAF_LIMIT = 40_000_000
SLOW_LIMIT = 200_000_000
SLOW_LEAF_LIMIT = 200_000_000

SUITE = load_epd(SUITE_EPD)
CPW = load_epd(CPW_EPD)
ALL_ROWS = [(SUITE_EPD.name, i, row) for i, row in enumerate(SUITE, 1)] + [
    (CPW_EPD.name, i, row) for i, row in enumerate(CPW, 1)
]


def test_data_files_are_complete():
    """The copied data files hold what the suite expects (126 + 7 positions)."""
    assert len(SUITE) == 126
    assert len(CPW) == 7
    for fen, counts, _ in SUITE + CPW:
        Position.from_fen(fen)  # every FEN parses
        assert sorted(counts) == list(range(1, max(counts) + 1))


def test_default_budget_covers_at_least_four_depths_per_cpw_position():
    for fen, counts, name in CPW:
        depths = [d for d, n in counts.items() if n <= BULK_LIMIT]
        assert len(depths) >= 4, name
    for fen, counts, name in SUITE:
        assert max(d for d, n in counts.items() if n <= BULK_LIMIT) >= 4, name


@pytest.mark.parametrize(
    "fen,counts", [pytest.param(fen, counts, id=f"{file}:{i}") for file, i, (fen, counts, _) in ALL_ROWS]
)
def test_perft_counts(fen, counts):
    """Bulk perft for every count <= BULK_LIMIT; every-leaf perft for every count <= LEAF_LIMIT."""
    p = Position.from_fen(fen)
    before = snapshot(p)
    for depth, expected in sorted(counts.items()):
        if expected <= BULK_LIMIT:
            assert p.perft(depth, bulk=True) == expected, f"bulk perft({depth})"
        if expected <= LEAF_LIMIT:
            assert p.perft(depth, bulk=False) == expected, f"perft({depth})"
    # perft makes and unmakes on the position's own arrays: nothing may have changed.
    assert_same_snapshot(snapshot(p), before)


@pytest.mark.parametrize("fen,counts,name", CPW[:3], ids=[row[2] for row in CPW[:3]])
def test_divide_sums_to_perft(fen, counts, name):
    p = Position.from_fen(fen)
    for bulk in (False, True):
        split = p.divide(3, bulk=bulk)
        assert sorted(split) == sorted(p.legal_moves())
        assert sum(split.values()) == counts[3]
    for move, count in p.divide(2).items():
        p.push(move)
        assert count == len(p.legal_moves())
        p.pop()


def test_perft_depth_zero_and_negative():
    p = Position()
    assert p.perft(0) == 1
    assert p.perft(0, bulk=True) == 1
    with pytest.raises(ValueError):
        p.perft(-1)
    with pytest.raises(ValueError):
        p.divide(0)


def test_perft_of_mated_and_stalemated_positions():
    mated = Position.from_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    stalemate = Position.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    for p in (mated, stalemate):
        for bulk in (False, True):
            assert p.perft(1, bulk) == 0
            assert p.perft(3, bulk) == 0


@pytest.mark.slow
def test_perft_every_count_up_to_200_million():
    """Every count of both files up to 200 M leaves, both with bulk counting and with every leaf made.

    perft is compiled with ``nogil=True``, so two threads (one Position each) use both cores.
    """
    jobs = []
    for file, i, (fen, counts, _) in ALL_ROWS:
        for depth, expected in counts.items():
            if expected <= SLOW_LIMIT:
                jobs.append((expected, f"{file}:{i}", fen, depth, True))
            if expected <= SLOW_LEAF_LIMIT:
                jobs.append((expected, f"{file}:{i}", fen, depth, False))
    jobs.sort(key=lambda job: -job[0] * (1 if job[4] else 2))  # biggest first balances the two workers

    def run(job):
        expected, where, fen, depth, bulk = job
        got = Position.from_fen(fen).perft(depth, bulk)
        return None if got == expected else f"{where} depth {depth} bulk={bulk}: expected {expected}, got {got}"

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        failures = [r for r in pool.map(run, jobs) if r]
    elapsed = time.perf_counter() - started
    nodes = sum(job[0] for job in jobs)
    print(f"\nslow perft: {len(jobs)} counts, {nodes:,} leaves in {elapsed:.1f} s")
    assert not failures, "\n".join(failures)
    assert len(jobs) > 900 and np.isfinite(elapsed)
