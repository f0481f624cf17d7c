#!/usr/bin/env python3
"""Lazy SMP: nodes per second and time to a fixed depth with 1, 2 and 4 search threads.

Every bench position (``transpo.engine.bench.POSITIONS``, moves applied; positions
without a legal move skipped) is searched to ``--depth`` from an empty table
(``Engine.new_game()`` first) by an engine with N threads, for each N of
``--threads``.  Per N the script sums, over the positions:

* wall time to finish depth D (the main thread's iteration; helpers are stopped then),
* nodes of all threads, and nodes per wall second and per CPU second of the process,
* the main thread's nodes alone.

The speed-up is the 1-thread time to depth over the N-thread one (the figure
Lazy SMP is judged by: helpers fill the shared table, the main thread gets to the
depth sooner); nodes/s shows how much more searching the threads do.  With
``--rounds`` > 1 the rounds interleave the thread counts position by position
and the medians are printed.

The machine has 2 cores shared with other jobs (matches): a thread gets a core only
when nobody else wants it, so the figures depend on the load, which is printed at
the start and the end.  CPU time counts every thread of this process.

Usage::

    python benchmarks/smp.py                         # depth 11, threads 1 2 4, 1 round
    python benchmarks/smp.py --depth 9 --limit 20 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time


def bench_positions(limit: int):
    from transpo.core.position import Position
    from transpo.engine.bench import POSITIONS

    out = []
    for fen, moves in POSITIONS:
        position = Position.from_fen(fen)
        for move in moves:
            position.push(move)
        if position.legal_moves():
            out.append(position)
    return out[:limit] if limit else out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=11, help="depth of every search (default 11)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4], help="thread counts (default 1 2 4)")
    parser.add_argument("--hash", type=int, default=16, help="table size in MB (default 16)")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N positions (default all)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds; medians are printed (default 1)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every search")
    args = parser.parse_args(argv)

    from transpo.core.position import Position
    from transpo.engine.engine import Engine
    from transpo.engine.scratch import CTL_NODES
    from transpo.engine.timeman import Limits

    positions = bench_positions(args.limit)
    engines = {n: Engine(hash_mb=args.hash, threads=n) for n in args.threads}
    for engine in engines.values():
        engine.search(Position(), Limits(depth=3))  # load the compiled code and start the threads once
    print(
        f"Lazy SMP: {len(positions)} bench positions to depth {args.depth}, threads {args.threads}, "
        f"{args.hash} MB table, {args.rounds} round(s)"
    )
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average at start {os.getloadavg()[0]:.2f} (other jobs share the machine)"
    )
    print()

    totals: dict[int, list[tuple[float, float, int, int]]] = {n: [] for n in args.threads}
    for rnd in range(1, args.rounds + 1):
        acc = {n: [0.0, 0.0, 0, 0] for n in args.threads}  # wall s, cpu s, nodes, main nodes
        for index, position in enumerate(positions, 1):
            for n, engine in engines.items():
                engine.new_game()
                cpu = time.process_time()
                started = time.perf_counter()
                result = engine.search(position, Limits(depth=args.depth))
                wall = time.perf_counter() - started
                cpu = time.process_time() - cpu
                main_nodes = int(engine.scratch.ctl[CTL_NODES])
                for k, value in enumerate((wall, cpu, result.nodes, main_nodes)):
                    acc[n][k] += value
                if args.verbose:
                    print(
                        f"  round {rnd} pos {index:2d} threads {n}: {wall * 1000:7.0f} ms  {result.nodes:>10,} nodes"
                        f"  main {main_nodes:>10,}  {result.best_move}",
                        flush=True,
                    )
        for n in args.threads:
            totals[n].append(tuple(acc[n]))
        print(f"round {rnd}: " + ", ".join(f"{n} thr {acc[n][0]:.2f} s" for n in args.threads), flush=True)

    print()
    base_time = statistics.median(t[0] for t in totals[args.threads[0]])
    print(
        f"{'threads':>7} {'time to depth':>14} {'speed-up':>9} {'nodes':>12} {'main nodes':>12} "
        f"{'nodes/s':>10} {'nodes/cpu-s':>12} {'cpu/wall':>9}"
    )
    for n in args.threads:
        rows = totals[n]
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        nodes = int(statistics.median(r[2] for r in rows))
        main_nodes = int(statistics.median(r[3] for r in rows))
        print(
            f"{n:>7} {wall:>12.2f} s {base_time / wall:>8.2f}x {nodes:>12,} {main_nodes:>12,} "
            f"{nodes / wall:>10,.0f} {nodes / max(cpu, 1e-9):>12,.0f} {cpu / wall:>9.2f}"
        )
    print()
    print(
        f"load average at the end {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; cpu/wall is the number of "
        "cores the process got on average"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
