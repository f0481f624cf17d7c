#!/usr/bin/env python3
"""Search speed of Transpo against sunfish, in nodes per second, in one run.

For every bench position (``transpo.engine.bench.POSITIONS`` when the module
exists, else the list below; positions without a legal move are skipped) the
script runs, one after the other:

* our ``Engine.search`` for ``--movetime`` ms (empty table: ``new_game()`` first);
* sunfish's ``Searcher.search`` on the same position for the same time (the FEN
  is converted with sunfish's own UCI ``from_fen``; the search is stopped by
  sunfish's in-search deadline, so it may overrun by a few hundred ms: the
  measured wall time is used, not the requested one).

Nodes and wall times are summed per engine over all positions; one such pass is
a *round*.  Each printed figure is the median over ``--rounds`` rounds, and the
ratio is the median of the per-round ratios (both engines measured in the same
round, interleaved position by position, so a change in machine load hits both).

A "node" is what each engine counts: ours counts every ``negamax`` and
quiescence call (``Engine.search`` ``nodes``), sunfish every ``bound`` call
(``Searcher.nodes``).  Both count one per position visited, so the ratio
compares like with like, roughly.

Both are also given per CPU second (``time.process_time`` of this process,
which runs both searches): on a loaded machine the wall-clock figures fall with
the CPU share the process gets, the CPU-time ones much less.

Targets: ratio >= 60x and our speed >= 1 M nodes/s on this machine.

Usage::

    python benchmarks/search_speed.py                  # 1 s per position, 3 rounds
    python benchmarks/search_speed.py --movetime 300 --rounds 1 --limit 10   # quick look
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import chess

TARGET_RATIO = 60.0
TARGET_NPS = 1_000_000

# Used only if transpo.engine.bench is not available: openings, middlegames, endgames.
FALLBACK_FENS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/2PP4/2N1PN2/PP1BBPPP/R2QK2R w KQ - 0 8",
    "rnbqk2r/ppp1bppp/4pn2/3p2B1/2PP4/2N5/PP2PPPP/R2QKBNR w KQkq - 4 5",
    "r2q1rk1/ppp2ppp/2npbn2/2b1p3/2B1P3/2PP1N2/PP1N1PPP/R1BQ1RK1 w - - 2 8",
    "2r2rk1/pp1bqppp/2n1pn2/3p4/3P4/2PB1N2/P1Q2PPP/R1B2RK1 w - - 4 14",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3NP3/1BN1B3/PPP1QPPP/R4RK1 w - - 0 12",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
    "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
    "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
    "8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1",
    "8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
    "8/pp2r1k1/2p1p3/3pP2p/1P1P1P1P/P5KR/8/8 w - - 0 1",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    "8/8/1P6/5pr1/8/4R3/7k/2K5 w - - 0 1",
)


def bench_fens() -> tuple[list[str], str]:
    """The FENs to search (moves applied, game-over positions dropped) and where they come from."""
    try:
        from transpo.engine.bench import POSITIONS

        entries, source = [(fen, moves) for fen, moves in POSITIONS], "transpo.engine.bench.POSITIONS"
    except ImportError:
        entries, source = [(fen, ()) for fen in FALLBACK_FENS], "built-in fallback list"
    fens = []
    for fen, moves in entries:
        board = chess.Board(fen)
        for move in moves:
            board.push_uci(move)
        if not board.is_game_over():
            fens.append(board.fen())
    return fens, source


# --- sunfish -----------------------------------------------------------------------
def sunfish_setup():
    """The sunfish module and a FEN -> sunfish Position converter (sunfish's own UCI parser)."""
    import sunfish
    import sunfish_ui.uci as sunfish_uci

    sunfish_uci.sunfish = sunfish  # from_fen reads the engine module from this global (set by its run())

    def to_position(fen: str):
        return sunfish_uci.from_fen(*fen.split()[:6])

    return sunfish, to_position


def sunfish_search(sunfish, position, seconds: float) -> tuple[int, float, float, int]:
    """(nodes, wall seconds, CPU seconds, depth reached) of one sunfish search of ``seconds``."""
    searcher = sunfish.Searcher()
    depth = 0
    cpu = time.process_time()
    started = time.perf_counter()
    searcher.deadline = time.time() + seconds  # checked every 2048 nodes inside the search
    searcher.soft = searcher.deadline  # no new iteration after it
    try:
        for depth, _gamma, _score, _move in searcher.search([position]):
            if time.time() > searcher.deadline:
                break
    except sunfish.Stop:
        pass
    return searcher.nodes, time.perf_counter() - started, time.process_time() - cpu, depth


# --- ours --------------------------------------------------------------------------
def transpo_setup(hash_mb: int):
    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    engine = Engine(hash_mb=hash_mb, move_overhead=0)
    engine.search(Position(), Limits(depth=3))  # load/compile the numba code outside the timing
    return engine, Position, Limits


def transpo_search(engine, Position, Limits, fen: str, movetime_ms: int) -> tuple[int, float, float, int]:
    """(nodes, wall seconds, CPU seconds, depth reached) of one search of ``movetime_ms`` from an empty table."""
    position = Position.from_fen(fen)
    engine.new_game()
    cpu = time.process_time()
    started = time.perf_counter()
    result = engine.search(position, Limits(movetime=movetime_ms))
    return result.nodes, time.perf_counter() - started, time.process_time() - cpu, result.depth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--movetime", type=int, default=1000, help="ms per position and engine (default 1000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over all positions; medians are printed (default 3)")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N positions (default all)")
    parser.add_argument("--hash", type=int, default=64, help="our table size in MB (default 64)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every position of every round")
    args = parser.parse_args(argv)

    fens, source = bench_fens()
    if args.limit:
        fens = fens[: args.limit]
    sunfish, to_sunfish = sunfish_setup()
    sunfish_positions = [to_sunfish(fen) for fen in fens]
    engine, Position, Limits = transpo_setup(args.hash)

    print(f"Search speed: Transpo vs sunfish ({sunfish.version}), {len(fens)} positions from {source}")
    print(f"{args.movetime} ms per position and engine, {args.rounds} round(s); Python {platform.python_version()},"
          f" {os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.2f}")
    print()
    header = f"{'round':>5}  {'ours nodes':>12} {'wall s':>6} {'cpu s':>6} {'n/s':>9} {'n/cpu-s':>9} {'depth':>5}  " \
             f"{'sunfish nodes':>13} {'wall s':>6} {'cpu s':>6} {'n/s':>7} {'n/cpu-s':>7} {'depth':>5}  " \
             f"{'ratio':>6} {'cpu':>6}"
    print(header)
    rows = []
    for rnd in range(1, args.rounds + 1):
        ours = [0, 0.0, 0.0]  # nodes, wall s, cpu s
        theirs = [0, 0.0, 0.0]
        ours_depths, sf_depths = [], []
        for index, (fen, sf_pos) in enumerate(zip(fens, sunfish_positions), 1):
            n1, t1, c1, d1 = transpo_search(engine, Position, Limits, fen, args.movetime)
            n2, t2, c2, d2 = sunfish_search(sunfish, sf_pos, args.movetime / 1000)
            for total, value in ((ours, (n1, t1, c1)), (theirs, (n2, t2, c2))):
                for k in range(3):
                    total[k] += value[k]
            ours_depths.append(d1)
            sf_depths.append(d2)
            if args.verbose:
                print(f"  {index:3d} ours {n1:>10,} n {t1:6.3f} s d{d1:<3d} {n1 / t1:>11,.0f} n/s | "
                      f"sunfish {n2:>8,} n {t2:6.3f} s d{d2:<3d} {n2 / t2:>8,.0f} n/s | {fen}", flush=True)
        ours_nps, sf_nps = ours[0] / ours[1], theirs[0] / theirs[1]
        ours_cpu_nps, sf_cpu_nps = ours[0] / max(ours[2], 1e-9), theirs[0] / max(theirs[2], 1e-9)
        row = (ours_nps, sf_nps, ours_nps / sf_nps, ours_cpu_nps, sf_cpu_nps, ours_cpu_nps / sf_cpu_nps)
        rows.append(row)
        print(f"{rnd:>5}  {ours[0]:>12,} {ours[1]:>6.1f} {ours[2]:>6.1f} {ours_nps:>9,.0f} {ours_cpu_nps:>9,.0f} "
              f"{statistics.mean(ours_depths):>5.1f}  {theirs[0]:>13,} {theirs[1]:>6.1f} {theirs[2]:>6.1f} "
              f"{sf_nps:>7,.0f} {sf_cpu_nps:>7,.0f} {statistics.mean(sf_depths):>5.1f}  {row[2]:>5.1f}x {row[5]:>5.1f}x",
              flush=True)

    med = [statistics.median(r[k] for r in rows) for k in range(6)]
    print()
    print(f"median of {len(rows)} round(s), wall clock: Transpo {med[0]:,.0f} nodes/s, sunfish {med[1]:,.0f} nodes/s, "
          f"ratio {med[2]:.1f}x (rounds: {', '.join(f'{r[2]:.1f}' for r in rows)})")
    print(f"median of {len(rows)} round(s), CPU time:   Transpo {med[3]:,.0f} nodes/s, sunfish {med[4]:,.0f} nodes/s, "
          f"ratio {med[5]:.1f}x (rounds: {', '.join(f'{r[5]:.1f}' for r in rows)})")
    print(f"  ratio >= {TARGET_RATIO:.0f}x (wall clock): {'PASS' if med[2] >= TARGET_RATIO else 'MISS'}")
    print(f"  Transpo >= {TARGET_NPS / 1e6:.0f} M nodes/s: wall clock {'PASS' if med[0] >= TARGET_NPS else 'MISS'},"
          f" per CPU second {'PASS' if med[3] >= TARGET_NPS else 'MISS'}"
          f" (load average now {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
