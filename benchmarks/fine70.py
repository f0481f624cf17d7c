#!/usr/bin/env python3
"""Fine #70 (the Lasker-Reichhelm position): what the transposition table buys.

    8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1      only 1. Kb1 (a1b1) wins

Without a table the tree of king moves explodes; with one, the transpositions
collapse it and the win (the f5 or d6 pawn falls after some 26 plies) is seen
at moderate nominal depth.  For each run the script records, from the finished
iterations of ``Engine.search`` (``on_info`` lines with an exact score):

* the first depth (and elapsed time) at which a1b1 is the best move;
* the first depth from which a1b1 stays the best move until the run ends;
* for each threshold T of ``--thresholds`` (default 150 and 200), the first depth
  (and time) at which a1b1 is the best move **with a winning score**,
  ``score >= T`` centipawns (mate scores count as winning).  Mind the baseline:
  our evaluation already gives White about +100 here (every iteration up to
  depth 18 scores +91..+118 for a non-winning king move), so +150 is half a
  pawn above it and +200 a whole pawn.

A run stops as soon as the highest threshold is reached (``--full``: it runs
for its whole cap, to show the score growing).

The with-table run (``Engine()``) is repeated ``--runs`` times (fresh engine
each time) and the median is printed; the no-table run
(``Engine(use_tt=False)``) is capped at ``--cap-no-tt`` seconds (default 60)
and run once.  Target: the win seen within 5 s with the table.

Usage::

    python benchmarks/fine70.py
    python benchmarks/fine70.py --runs 1 --cap-no-tt 10    # quick
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

FEN = "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1"
WINNING_MOVE = "a1b1"
TARGET_S = 5.0


@dataclass
class Run:
    label: str
    best_depth: int | None = None  # first depth where a1b1 is the best move
    best_time: float | None = None
    stable_depth: int | None = None  # first depth from which a1b1 is best until the end of the run
    stable_time: float | None = None
    wins: dict[int, tuple[int, float, int]] = field(default_factory=dict)  # threshold -> (depth, s, score)
    stays_best: bool = True  # a1b1 best in every iteration after the first win
    last_depth: int = 0
    last_move: str | None = None
    last_score: int = 0
    nodes: int = 0
    elapsed: float = 0.0
    trace: list[tuple[int, str, int, float]] = field(default_factory=list)


def run_once(label: str, use_tt: bool, cap_s: float, thresholds: list[int], hash_mb: int, stop_at_win: bool) -> Run:
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.table import MATE_BOUND
    from transpo.engine.timeman import Limits

    engine = Engine(hash_mb=hash_mb, use_tt=use_tt, move_overhead=0)
    run = Run(label)

    def on_info(info) -> None:
        if info.bound is not None or info.multipv != 1 or not info.pv:
            return  # only finished iterations
        move, score, seconds = info.pv[0], info.score, info.time_ms / 1000
        run.trace.append((info.depth, move, score, seconds))
        run.last_depth, run.last_move, run.last_score = info.depth, move, score
        if move == WINNING_MOVE:
            if run.best_depth is None:
                run.best_depth, run.best_time = info.depth, seconds
            if run.stable_depth is None:
                run.stable_depth, run.stable_time = info.depth, seconds
            for threshold in thresholds:
                if threshold not in run.wins and (score >= threshold or score > MATE_BOUND):
                    run.wins[threshold] = (info.depth, seconds, score)
            if stop_at_win and len(run.wins) == len(thresholds):
                engine.stop()
        else:
            run.stable_depth = run.stable_time = None
            if run.wins:
                run.stays_best = False

    started = time.perf_counter()
    result = engine.search(Position.from_fen(FEN), Limits(movetime=int(cap_s * 1000)), on_info=on_info)
    run.elapsed = time.perf_counter() - started
    run.nodes = result.nodes
    return run


def warm_up() -> None:
    """Load (or compile) the numba code before anything is timed."""
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    Engine(hash_mb=1).search(Position.from_fen(FEN), Limits(depth=4))


def fmt(value, spec: str, missing: str = "-") -> str:
    return missing if value is None else format(value, spec)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fine #70: depth and time to find 1. Kb1 with and without the table")
    parser.add_argument("--runs", type=int, default=3, help="with-table runs; the median is reported (default 3)")
    parser.add_argument("--cap", type=float, default=30.0, help="time cap of a with-table run in s (default 30)")
    parser.add_argument("--cap-no-tt", type=float, default=60.0, help="time cap of the no-table run in s (default 60)")
    parser.add_argument("--thresholds", type=int, nargs="+", default=[150, 200], metavar="CP",
                        help="winning scores in centipawns (default 150 200); the first is the target's")
    parser.add_argument("--hash", type=int, default=64, help="table size in MB (default 64)")
    parser.add_argument("--full", action="store_true", help="search for the whole cap instead of stopping at the win")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every finished iteration")
    args = parser.parse_args(argv)
    thresholds = args.thresholds
    main_threshold = thresholds[0]

    warm_up()
    print(f"Fine #70  {FEN}  (only {WINNING_MOVE} wins)")
    print(f"winning score: >= {', '.join(f'+{t}' for t in thresholds)} cp or mate (target on +{main_threshold});"
          f" load average at start {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print()
    runs: list[Run] = []
    for i in range(args.runs):
        runs.append(run_once(f"table #{i + 1}", True, args.cap, thresholds, args.hash, not args.full))
    no_tt = run_once("no table", False, args.cap_no_tt, thresholds, args.hash, not args.full)

    cells = [f"{'run':<10}", f"{'1st best':>9}", f"{'stable':>12}"]
    cells += [f"{'>=+' + str(t):>16}" for t in thresholds]
    cells += [f"{'last d/move/score':>18}", f"{'nodes':>12}", f"{'s':>5}"]
    print(" ".join(cells))
    print(" ".join([f"{'':<10}", f"{'depth':>9}", f"{'depth   s':>12}"] + [f"{'depth   s  cp':>16}"] * len(thresholds)))
    for run in runs + [no_tt]:
        cells = [f"{run.label:<10}", f"{fmt(run.best_depth, 'd'):>9}"]
        cells.append(f"{fmt(run.stable_depth, 'd'):>5} {fmt(run.stable_time, '6.3f'):>6}")
        for t in thresholds:
            if t in run.wins:
                depth, seconds, score = run.wins[t]
                cells.append(f"{depth:>5} {seconds:6.3f} {score:+4d}")
            else:
                cells.append(f"{'not found':>16}")
        cells.append(f"{f'{run.last_depth}/{run.last_move}/{run.last_score:+d}':>18}")
        cells.append(f"{run.nodes:>12,}")
        cells.append(f"{run.elapsed:>5.1f}")
        print(" ".join(cells))
        if args.verbose:
            for depth, move, score, seconds in run.trace:
                print(f"    depth {depth:3d}  {move}  {score:+6d}  {seconds:8.3f} s")
    if any(not run.stays_best for run in runs + [no_tt]):
        print("  (a1b1 lost its place as best move after a winning score in some run)")
    print("  stable: the first depth from which a1b1 stayed best until the run stopped")
    print()

    complete = all(t in r.wins for r in runs for t in thresholds)
    if complete:
        for t in thresholds:
            median_time = statistics.median(r.wins[t][1] for r in runs)
            median_depth = statistics.median(r.wins[t][0] for r in runs)
            verdict = f"  [<= {TARGET_S:g} s: {'PASS' if median_time <= TARGET_S else 'MISS'}]" if t == main_threshold else ""
            print(f"with table, median of {len(runs)}: a1b1 at >= +{t} cp at depth {median_depth:g}"
                  f" after {median_time:.3f} s{verdict}")
        print(f"with table, median of {len(runs)}: a1b1 first best at depth "
              f"{statistics.median(r.best_depth for r in runs):g}")
    else:
        print(f"with table: a winning a1b1 was NOT found in every run (cap {args.cap:g} s)  MISS")
    for t in thresholds:
        if t in no_tt.wins:
            depth, seconds, score = no_tt.wins[t]
            print(f"no table: a1b1 at >= +{t} cp at depth {depth} after {seconds:.3f} s")
        else:
            print(f"no table: no a1b1 at >= +{t} cp within the {args.cap_no_tt:g} s cap"
                  f" (reached depth {no_tt.last_depth}: {no_tt.last_move} {no_tt.last_score:+d})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
