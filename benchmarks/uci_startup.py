#!/usr/bin/env python3
"""How fast the UCI engine answers ``uci``, ``isready`` and its first ``go`` after it is started.

A GUI starts the engine, sends ``uci`` and waits (often only a few seconds)
for ``uciok``, then sends ``isready`` and waits for ``readyok``.  Transpo
answers ``uci`` from constants while a background thread loads the compiled
core; ``readyok`` comes when it is loaded (warm numba cache) or at once while
a cold cache is compiled in a child process.  The first ``bestmove`` under a
10 s + 0.1 s clock (python-chess ``play``) must come within the move's budget
either way: cold, it comes from the quick search.  Stockfish, when installed
(``/usr/games/stockfish``), is timed the same way as the peer.

Times are measured from process start (``Popen``) to each answer.  The cold
run uses a fresh, empty ``NUMBA_CACHE_DIR``; the warm runs reuse it (the
figure printed is the median of ``--runs`` warm runs).  Targets: warm
``readyok`` < 1 s; cold as short as possible (< 10 s ideally).

Usage::

    python benchmarks/uci_startup.py            # one cold run + 3 warm runs
    python benchmarks/uci_startup.py --runs 5
    python benchmarks/uci_startup.py --no-cold  # warm runs only, with the default cache
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 600
STOCKFISH = "/usr/games/stockfish"


def measure(env: dict) -> tuple[float, float]:
    """(seconds to uciok, seconds to readyok) of one engine start."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "transpo.cli"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        env=env,
    )
    try:
        proc.stdin.write("uci\n")
        proc.stdin.flush()
        uciok = _wait_for(proc, "uciok", started)
        proc.stdin.write("isready\n")
        proc.stdin.flush()
        readyok = _wait_for(proc, "readyok", started)
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=30)
        return uciok, readyok
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _wait_for(proc: subprocess.Popen, token: str, started: float) -> float:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the engine exited before {token!r}")
        if line.strip() == token:
            return time.perf_counter() - started
        if time.perf_counter() - started > TIMEOUT_S:
            raise RuntimeError(f"no {token!r} after {TIMEOUT_S} s")


def first_move(command: list[str], env: dict) -> float:
    """Seconds from process start to the first ``bestmove`` under a 10 s + 0.1 s clock."""
    import chess
    import chess.engine

    started = time.perf_counter()
    engine = chess.engine.SimpleEngine.popen_uci(command, env=env, stderr=subprocess.DEVNULL)
    try:
        engine.play(chess.Board(), chess.engine.Limit(white_clock=10, black_clock=10, white_inc=0.1, black_inc=0.1))
        return time.perf_counter() - started
    finally:
        engine.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="warm runs (median printed)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold run; warm runs use the default cache")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="transpo-numba-cache-") as cache:
        env = dict(os.environ)
        env.pop("NUMBA_DISABLE_JIT", None)
        if not args.no_cold:
            env["NUMBA_CACHE_DIR"] = cache
            uciok, readyok = measure(env)
            print(f"cold  uciok {uciok:6.3f} s   readyok {readyok:7.3f} s   (empty NUMBA_CACHE_DIR)")
            with tempfile.TemporaryDirectory(prefix="transpo-numba-cache-") as fresh:
                seconds = first_move([sys.executable, "-m", "transpo.cli"], dict(env, NUMBA_CACHE_DIR=fresh))
            print(f"cold  first bestmove under 10+0.1: {seconds:6.3f} s from start (empty NUMBA_CACHE_DIR)")
            # quit killed the compile of the cold runs: fill the cache before the warm runs
            subprocess.run([sys.executable, "-m", "transpo.cli", "analyse", "--depth", "1"], env=env,
                           capture_output=True, check=True, timeout=TIMEOUT_S)  # fmt: skip
        else:
            measure(env)  # make sure the default cache is warm
        runs = [measure(env) for _ in range(args.runs)]
        uciok = statistics.median(r[0] for r in runs)
        readyok = statistics.median(r[1] for r in runs)
        print(f"warm  uciok {uciok:6.3f} s   readyok {readyok:7.3f} s   (median of {args.runs})")
        warm_first = statistics.median(first_move([sys.executable, "-m", "transpo.cli"], env) for _ in range(args.runs))
        print(f"warm  first bestmove under 10+0.1: {warm_first:6.3f} s from start (median of {args.runs})")
        if os.path.exists(STOCKFISH):
            peer = statistics.median(first_move([STOCKFISH], env) for _ in range(args.runs))
            print(f"peer  Stockfish first bestmove under 10+0.1: {peer:6.3f} s from start; ratio Transpo/Stockfish "
                  f"{warm_first / peer:.1f}x warm")
        print(f"target warm readyok < 1 s: {'PASS' if readyok < 1.0 else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
