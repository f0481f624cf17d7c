#!/usr/bin/env python3
"""The same lab sweep and the same short match through the local executors and through ``--ray local``.

Each run is a ``transpo`` command of its own (so the Ray run pays for starting Ray
and its actors, as a user's would) writing ``--json``; the script checks that the
two runs of each pair give the same rows (the lab: every row but its wall and
search times and the rates per second) or the same games (the match: every field but the clocks), and
prints both wall times.

* Lab: ``lab errors`` at a fixed depth over the first ``--limit`` built-in positions,
  two signature widths: ``--jobs 2`` (a process pool) against ``--ray local --jobs 2``.
* Match: ``--games`` games between two copies of the deterministic test engine
  (``tests/fake_uci_engine.py``, the first legal move), ``--concurrency 2`` (threads)
  against ``--ray local --concurrency 2``.

The machine has 2 cores shared with other jobs: the load average is printed.

Usage::

    python benchmarks/executors.py                  # depth 7, 12 positions, 8 games
    python benchmarks/executors.py --depth 8 --limit 20 --games 16
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests" / "fake_uci_engine.py"
TIMES = ("wall_s", "time_ms", "time_s", "nps", "fh_per_second", "pred_per_second")  # wall-time figures


def timed(argv: list[str]) -> float:
    """Run ``python -m transpo ARGV``; its wall time in seconds (SystemExit with its stderr if it fails)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "transpo", *argv], check=False, capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"transpo {' '.join(argv)} failed:\n{done.stderr}")
    return wall


def lab_rows(path: Path) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in TIMES} for row in json.loads(path.read_text())["rows"]]


def match_games(path: Path) -> list[dict]:
    return [{k: v for k, v in game.items() if k != "clocks"} for game in json.loads(path.read_text())["games"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=7, help="lab errors: depth per position (default 7)")
    parser.add_argument("--limit", type=int, default=12, help="lab errors: positions (default 12)")
    parser.add_argument("--games", type=int, default=8, help="match: games (default 8)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        lab = ["lab", "errors", "--depth", str(args.depth), "--limit", str(args.limit), "--bits", "12,16"]
        engine = f"{sys.executable} {FAKE} ok 0"
        match = ["match", "--engine", f"a={engine}", "--engine", f"b={engine}", "--games", str(args.games),
                 "--tc", "10", "--concurrency", "2"]  # fmt: skip
        figures = []
        for name, command, where, read in (
            ("lab errors", lab, ["--jobs", "2"], lab_rows),
            ("match", match, [], match_games),
        ):
            local = timed([*command, *where, "--json", str(out / "local.json")])
            ray = timed([*command, *where, "--ray", "local", "--json", str(out / "ray.json")])
            same = read(out / "local.json") == read(out / "ray.json")
            count = len(read(out / "local.json"))
            figures.append((name, count, local, ray, same))
    for name, count, local, ray, same in figures:
        print(f"{name:<10} {count:>3} {'rows' if name != 'match' else 'games'}: local {local:6.1f} s, "
              f"--ray local {ray:6.1f} s, same results: {'yes' if same else 'NO'}")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.2f}")
    if not all(same for *_, same in figures):
        raise SystemExit("the executors disagree")


if __name__ == "__main__":
    main()
