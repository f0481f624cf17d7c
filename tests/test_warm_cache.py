"""The numba on-disk cache: a second process must run from a warm cache.

docs/NUMBA.md, trap 1: a cached jitted function that calls a cached recursive one can
crash (segfault, silent exit, unresolved symbol) only in the *second* process,
the one that loads the cache.  So the same script runs twice against one
``NUMBA_CACHE_DIR`` that no earlier process of this session used except the UCI
cold-start test's engine (the shared folder of ``conftest.shared_numba_cache``):
the first run compiles what is missing and loads what that engine's compile child
wrote (the search), the second loads everything, and both must exit 0 with the
right output.  Run alone, the first run compiles everything.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from transpo import Position
    from transpo.core.keys import compute_key
    from transpo.core.makemove import make_move, unmake_move
    from transpo.core.movegen import generate_moves, is_attacked, in_check

    p = Position()
    print("perft4", p.perft(4))
    print("perft5_bulk", p.perft(5, bulk=True))
    kiwi = Position.from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    print("kiwipete3", kiwi.perft(3))
    print("divide_e2e4", Position().divide(3)["e2e4"])
    for name in ("polyglot", "prng", "knuth"):
        q = Position(keys=name)
        q.push("e2e4")
        assert q.key == int(compute_key(q.board, q.state, q.zobrist))
        print("key", name, hex(q.key))
    psq = np.ones((16, 120, 3), dtype=np.int32)
    r = Position()
    move = r.encoded_moves()[0]
    make_move(r.board, r.state, r.keys, r.undo, move, r.zobrist, psq)
    unmake_move(r.board, r.state, r.undo, move)
    buf = np.zeros(256, dtype=np.int32)
    print("moves", generate_moves(r.board, r.state, buf, 0, False), bool(is_attacked(r.board, 25, 1)), bool(in_check(r.board, r.state)))
    print("status", Position.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").status().value)
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits
    result = Engine(hash_mb=1, audit=True).search(Position(), Limits(depth=5))
    print("search", result.best_move, result.nodes)
    """
)

EXPECTED = [
    "perft4 197281",
    "perft5_bulk 4865609",
    "kiwipete3 97862",
    "divide_e2e4 600",
    "key polyglot 0x823c9b50fd114196",
]


def _run(env: dict, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=600)


def _check(result: subprocess.CompletedProcess, which: str) -> list[str]:
    assert result.returncode == 0, f"{which} run failed ({result.returncode}):\n{result.stderr[-3000:]}"
    lines = result.stdout.splitlines()
    for line in EXPECTED:
        assert line in lines, (which, lines)
    assert "moves 20 False False" in lines
    assert "status stalemate" in lines
    assert any(line.startswith("search ") for line in lines), lines
    return lines


@pytest.fixture(scope="module")
def cache_env(shared_numba_cache) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(shared_numba_cache))
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NUMBA_BOUNDSCHECK", None)
    return env


def test_second_process_runs_from_warm_cache(cache_env):
    cache = cache_env["NUMBA_CACHE_DIR"]
    # No process has compiled perft into the folder yet (the UCI engine compiles the search only),
    # so the first run writes at least that part and the second loads it from another process.
    assert not any("perft" in f for _, _, files in os.walk(cache) for f in files), os.listdir(cache)
    first = _check(_run(cache_env, ["-c", SCRIPT]), "first")
    index_files = [f for _, _, files in os.walk(cache) for f in files if f.endswith(".nbi")]
    assert any("perft" in f for f in index_files), index_files
    assert any("generate_moves" in f for f in index_files), index_files
    assert any("negamax" in f for f in index_files), index_files  # the recursive search on its bundles
    second = _check(_run(cache_env, ["-c", SCRIPT]), "warm")
    assert first == second
    # The CLI in a third process, also from the warm cache.
    cli = _run(cache_env, ["-m", "transpo.cli", "perft", "3"])
    assert cli.returncode == 0, cli.stderr
    assert "Nodes: 8902" in cli.stdout.splitlines()
    key = _run(cache_env, ["-m", "transpo.cli", "key", "--moves", "e2e4"])
    assert key.returncode == 0 and key.stdout.strip() == "0x823c9b50fd114196", key.stderr


BOUNDSCHECK_SCRIPT = textwrap.dedent(
    """
    import random, sys
    import numpy as np
    sys.path.insert(0, {tests!r})
    from conftest import SUITE_EPD, CPW_EPD, load_epd
    from transpo import Position
    from transpo.core.keys import compute_key
    from transpo.core.makemove import make_move, unmake_move

    bad = 0
    for fen, counts, _ in load_epd(SUITE_EPD) + load_epd(CPW_EPD):
        p = Position.from_fen(fen)
        for depth in (1, 2, 3):
            if p.perft(depth) != counts[depth] or p.perft(depth, True) != counts[depth]:
                bad += 1
                print("MISMATCH", fen, depth)
    rng = random.Random(1)
    psq = np.arange(16 * 120 * 3, dtype=np.int32).reshape(16, 120, 3)
    for fen, _, _ in load_epd(CPW_EPD):
        p = Position.from_fen(fen)
        played = []
        for _ in range(400):
            moves = p.encoded_moves()
            if not moves or (played and rng.random() < 0.3):
                if not played:
                    break
                unmake_move(p.board, p.state, p.undo, played.pop())
                continue
            m = rng.choice(moves)
            make_move(p.board, p.state, p.keys, p.undo, m, p.zobrist, psq)
            played.append(m)
            assert p.keys[p.state[7]] == compute_key(p.board, p.state, p.zobrist)
    from transpo.core.movegen import is_attacked
    try:
        is_attacked(Position().board, 119, 0)  # a knight step from 119 reads past the 120 squares
        print("boundscheck off")
    except IndexError:
        print("boundscheck on")
    print("done", bad)
    """
)


@pytest.mark.slow
def test_core_under_numba_boundscheck(tmp_path):
    """docs/NUMBA.md, trap 3: run the core with NUMBA_BOUNDSCHECK=1 (fresh cache) so an out-of-bounds read raises."""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("NUMBA_DISABLE_JIT", None)
    tests = os.path.dirname(__file__)
    result = _run(env, ["-c", BOUNDSCHECK_SCRIPT.format(tests=tests)])
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines()[-2:] == ["boundscheck on", "done 0"], result.stdout[-3000:]
