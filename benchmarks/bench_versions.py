#!/usr/bin/env python3
"""``transpo bench`` of this checkout against another revision, in one run: nodes per second as a ratio.

Each round runs the bench of this checkout (``python -m transpo bench``) and then
the bench of ``--base`` (a git revision, run from its own worktree by
``scripts/worktree-engine.sh``, which also gives it its own numba cache), each
in a fresh process.  From each run's output the script reads ``Nodes searched``
(the search's signature) and ``Nodes/second`` (the bench's own timing, start-up
excluded).  The ratio is taken round by round, so a change of machine load
between rounds hits both sides alike; the medians over ``--rounds`` are printed,
with the load average before and after.

The first round of each side also compiles whatever its cache lacks: one
warm-up round, not counted, runs first.

    python benchmarks/bench_versions.py                     # against 76655b1, 5 rounds (about 2 min)
    python benchmarks/bench_versions.py --base HEAD~1 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIGNATURE = re.compile(r"Nodes searched: (\d+)")
SPEED = re.compile(r"Nodes/second: (\d+)")


def base_command(revision: str) -> list[str]:
    """The command line that runs Transpo at ``revision`` (its worktree is created once)."""
    script = ROOT / "scripts" / "worktree-engine.sh"
    line = subprocess.run([str(script), revision], check=True, capture_output=True, text=True).stdout.strip()
    return shlex.split(line)


def run_bench(command: list[str]) -> tuple[int, int]:
    """(nodes searched, nodes per second) of one ``bench`` run of ``command``."""
    output = subprocess.run([*command, "bench"], check=True, capture_output=True, text=True).stdout
    nodes = SIGNATURE.search(output)
    speed = SPEED.search(output)
    if nodes is None or speed is None:
        raise SystemExit(f"error: no bench figures in the output of {shlex.join(command)}")
    return int(nodes.group(1)), int(speed.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="transpo bench of this checkout against a base revision.")
    parser.add_argument("--base", default="76655b1", help="git revision to compare with (default 76655b1)")
    parser.add_argument("--rounds", type=int, default=5, help="counted rounds (default 5)")
    args = parser.parse_args(argv)
    ours = [sys.executable, "-m", "transpo"]
    theirs = base_command(args.base)
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    run_bench(ours)
    run_bench(theirs)
    speeds: list[tuple[int, int]] = []
    signatures: set[tuple[int, int]] = set()
    for round_number in range(1, args.rounds + 1):
        our_nodes, our_speed = run_bench(ours)
        base_nodes, base_speed = run_bench(theirs)
        signatures.add((our_nodes, base_nodes))
        speeds.append((our_speed, base_speed))
        print(f"round {round_number}: this {our_speed:,} n/s  {args.base} {base_speed:,} n/s  "
              f"ratio {our_speed / base_speed:.3f}")  # fmt: skip
    ours_median = statistics.median(s for s, _ in speeds)
    base_median = statistics.median(b for _, b in speeds)
    ratio = statistics.median(s / b for s, b in speeds)
    (our_nodes, base_nodes), *more = sorted(signatures)
    print(f"bench signature: this {our_nodes:,} nodes, {args.base} {base_nodes:,}" + (" (varied!)" if more else ""))
    print(f"median nodes/s: this {ours_median:,.0f}, {args.base} {base_median:,.0f}; median ratio {ratio:.3f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
