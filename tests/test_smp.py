"""Lazy SMP: several search threads over one shared, lockless transposition table.

* One thread is the single-threaded search, node for node (the bench signature), whether the
  table is lockless or not and whether the engine had helpers before.
* Eight threads on a 1 MB table with 8-bit signatures (false hits and torn entries galore) never
  crash and never return an illegal move or PV, over many searches of varied positions.
* ``stop`` reaches every thread within milliseconds; no helper thread outlives its search.
* Reported nodes are those of all threads; the helpers' table counters are added to the table's.
* ``transpo bench``/``analyse --threads``; UCI: ``setoption name Threads value 2`` (and
  ``LocklessHash``) and searches through python-chess.

The searches are short: the machine is shared, and eight threads on two cores only take turns.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import chess
import chess.engine
import numpy as np
import pytest
from conftest import playout_fens

from transpo import Position
from transpo.engine.bench import POSITIONS, run_bench
from transpo.engine.engine import Engine
from transpo.engine.scratch import CTL_NODES
from transpo.engine.timeman import Limits
from transpo.settings import THREADS

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
BENCH_SUBSET = POSITIONS[:12]
BENCH_DEPTH = 7


def _helpers_alive() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("transpo-helper") and t.is_alive()]


def _assert_legal_line(fen: str, result) -> None:
    board = chess.Board(fen)
    if not any(board.legal_moves):
        assert result.best_move is None
        return
    assert chess.Move.from_uci(result.best_move) in board.legal_moves, (fen, result.best_move)
    for move in result.pv:
        parsed = chess.Move.from_uci(move)
        assert parsed in board.legal_moves, (fen, result.pv, move)
        board.push(parsed)


# --- one thread is the old search ---------------------------------------------------------------------
def test_one_thread_gives_the_single_threaded_bench_signature():
    """The bench node count (the search's signature) with Threads 1 equals that of an engine that never
    had a helper, of one whose helpers were taken away again, and of a table with plain keys."""
    plain = run_bench(BENCH_DEPTH, 16, BENCH_SUBSET).nodes
    assert run_bench(BENCH_DEPTH, 16, BENCH_SUBSET, threads=1).nodes == plain

    def nodes_of(engine: Engine) -> list[int]:
        out = []
        for fen, moves in BENCH_SUBSET:
            position = Position.from_fen(fen)
            for move in moves:
                position.push(move)
            engine.new_game()
            out.append(engine.search(position, Limits(depth=BENCH_DEPTH)).nodes)
        return out

    reference = nodes_of(Engine(hash_mb=16))
    assert sum(reference) == plain
    shrunk = Engine(hash_mb=16, threads=3)
    shrunk.search(Position.from_fen(KIWIPETE), Limits(depth=6))  # the helpers ran once
    shrunk.set_threads(1)
    assert shrunk.threads == 1 and not shrunk.helpers
    assert nodes_of(shrunk) == reference
    assert nodes_of(Engine(hash_mb=16, lockless=False)) == reference


# --- many threads, tiny table, narrow signatures ----------------------------------------------------------
def test_eight_threads_on_a_tiny_table_with_8_bit_signatures_play_only_legal_moves():
    engine = Engine(hash_mb=1, signature_bits=8, threads=8)
    assert engine.threads == 8 and len(engine.helpers) == 7
    fens = [KIWIPETE] + [chess.Board(fen).fen() for fen, _ in POSITIONS[1:12]] + playout_fens(48, seed=77)
    helper_nodes = 0
    for index, fen in enumerate(fens):
        if index % 10 == 0:
            engine.new_game()
        limits = Limits(nodes=20_000) if index % 2 else Limits(depth=6)
        result = engine.search(Position.from_fen(fen), limits)
        _assert_legal_line(fen, result)
        helper_nodes += sum(int(h.ctl[CTL_NODES]) for h in engine.helpers)
        assert not _helpers_alive()
    assert not engine.helper_errors
    assert helper_nodes > 0  # the helpers searched too
    counters = engine.table.counters()
    assert counters["probes"] > counters["hits"] > 0


def test_threads_with_the_audit_and_forced_false_hits_stay_legal():
    """The lab's modes with helpers: nothing crashes, moves stay legal, the audit still counts."""
    engine = Engine(hash_mb=1, signature_bits=8, threads=4, audit=True)
    engine.table.set_forced_false_hits(50)
    for fen in playout_fens(8, seed=5):
        result = engine.search(Position.from_fen(fen), Limits(depth=5))
        _assert_legal_line(fen, result)
    counters = engine.table.counters()
    assert not engine.helper_errors
    assert counters["forced_false_hits"] > 0 and counters["false_hits"] > 0


# --- stop ------------------------------------------------------------------------------------------------
def test_stop_ends_every_thread_within_milliseconds():
    engine = Engine(hash_mb=16, threads=4)
    position = Position.from_fen(KIWIPETE)
    engine.arm(position, Limits(infinite=True))
    results = []
    searcher = threading.Thread(target=lambda: results.append(engine.search(position, Limits(infinite=True))))
    searcher.start()
    deadline = time.monotonic() + 20
    while any(int(sc.ctl[CTL_NODES]) < 5000 for sc in (engine.scratch, *engine.helpers)):
        assert time.monotonic() < deadline, "the threads never got going"
        time.sleep(0.01)
    assert len(_helpers_alive()) == 3
    stopped = time.perf_counter()
    engine.stop()
    searcher.join(timeout=5)
    took = time.perf_counter() - stopped
    assert not searcher.is_alive() and results
    assert not _helpers_alive()
    print(f"stop to return with 4 threads: {took * 1000:.1f} ms")
    assert took < 0.5  # milliseconds on an idle machine; generous for a loaded one
    _assert_legal_line(KIWIPETE, results[0])


def test_a_stop_before_the_search_starts_stops_the_helpers_too():
    engine = Engine(hash_mb=4, threads=3)
    position = Position.from_fen(KIWIPETE)
    engine.arm(position, Limits(infinite=True))
    engine.stop()  # arrives before search() starts: no thread may run on
    started = time.perf_counter()
    result = engine.search(position, Limits(infinite=True))
    assert time.perf_counter() - started < 2
    assert result.best_move is not None and not _helpers_alive()


# --- nodes and counters -----------------------------------------------------------------------------------
def test_reported_nodes_are_those_of_every_thread():
    engine = Engine(hash_mb=16, threads=3)
    seen = []

    def on_info(info) -> None:  # the main thread is in Python here: its count stands still
        seen.append((info.nodes, int(engine.scratch.ctl[CTL_NODES])))

    result = engine.search(Position.from_fen(KIWIPETE), Limits(depth=9), on_info)
    main = int(engine.scratch.ctl[CTL_NODES])
    helpers = [int(h.ctl[CTL_NODES]) for h in engine.helpers]
    assert result.nodes == main + sum(helpers) == engine.nodes()
    assert all(total >= own for total, own in seen)
    assert [total for total, _ in seen] == sorted(total for total, _ in seen)
    assert min(helpers) > 0 and result.nodes > main
    assert result.lines[0].nps == int(result.lines[0].nodes * 1000 / max(result.lines[0].time_ms, 1))
    probes = engine.table.counters()["probes"]
    assert probes > main  # the helpers' probes were added to the table's counters


def test_new_game_clears_every_searcher_and_threads_are_checked():
    engine = Engine(hash_mb=4, threads=2)
    engine.search(Position.from_fen(KIWIPETE), Limits(depth=7))
    assert any(h.history.any() for h in engine.helpers)
    engine.new_game()
    for sc in (engine.scratch, *engine.helpers):
        assert not sc.history.any() and not sc.killers.any() and not sc.counter.any() and not sc.continuation.any()
    with pytest.raises(ValueError):
        engine.set_threads(0)
    engine.set_threads(4)
    assert engine.threads == 4 and all(np.array_equal(h.weights, engine.scratch.weights) for h in engine.helpers)


def test_threads_range_is_two_per_cpu():
    assert (THREADS.low, THREADS.high, THREADS.default) == (1, 2 * (os.cpu_count() or 1), 1)


# --- command line and UCI ------------------------------------------------------------------------------
def _clean_env() -> dict:
    env = dict(os.environ)
    for name in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK"):
        env.pop(name, None)
    return env


def test_bench_and_analyse_take_threads():
    bench = subprocess.run(
        [sys.executable, "-m", "transpo.cli", "bench", "--depth", "3", "--threads", "2"],
        check=False, capture_output=True, text=True, env=_clean_env(), timeout=300,
    )  # fmt: skip
    assert bench.returncode == 0, bench.stderr
    assert "Threads: 2" in bench.stdout and "Nodes searched:" in bench.stdout
    analyse = subprocess.run(
        [sys.executable, "-m", "transpo.cli", "analyse", "--fen", KIWIPETE, "--depth", "6", "--threads", "2"],
        check=False, capture_output=True, text=True, env=_clean_env(), timeout=300,
    )  # fmt: skip
    assert analyse.returncode == 0, analyse.stderr
    assert "Best move:" in analyse.stdout
    too_many = subprocess.run(
        [sys.executable, "-m", "transpo.cli", "bench", "--threads", str(THREADS.high + 1)],
        check=False, capture_output=True, text=True, env=_clean_env(), timeout=300,
    )  # fmt: skip
    assert too_many.returncode == 2 and f"--threads must be 1..{THREADS.high}" in too_many.stderr


def test_uci_threads_2_searches_through_python_chess():
    engine = chess.engine.SimpleEngine.popen_uci(
        [sys.executable, "-m", "transpo.cli"], timeout=120, env=_clean_env(), stderr=subprocess.PIPE
    )
    try:
        assert engine.options["Threads"].max == THREADS.high
        engine.configure({"Threads": 2})
        board = chess.Board(KIWIPETE)
        with engine.analysis(board, chess.engine.Limit(depth=8)) as analysis:
            infos = list(analysis)
            best = analysis.wait()
        assert best.move in board.legal_moves
        lines = [info for info in infos if "depth" in info and "nodes" in info]
        assert lines and lines[-1]["depth"] == 8
        nodes = [info["nodes"] for info in lines]
        assert nodes == sorted(nodes)
        played = engine.play(board, chess.engine.Limit(time=0.3))
        assert played.move in board.legal_moves
        engine.configure({"LocklessHash": False})  # the lab's plain keys, still with two threads
        assert engine.play(board, chess.engine.Limit(depth=6)).move in board.legal_moves
        engine.configure({"Threads": 1, "LocklessHash": True})
        assert engine.play(board, chess.engine.Limit(depth=4)).move in board.legal_moves
    finally:
        engine.quit()
