"""``transpo analyse``, ``transpo bench`` and ``transpo uci`` on the command line.

Most runs go in-process through ``main(argv)`` (same code path, no interpreter
start-up); one bench and the ``uci`` subcommand run as real subprocesses, which
also shows that the bench signature is the same in another process.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import chess
import pytest

from transpo.cli import main

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"
ITERATION = re.compile(r"^depth +(\d+)/(\d+)( +\d+)? +score +(\S+)( \(\w+ bound\))?  nodes +([\d,]+)  nps +([\d,]+)  time +\d+ ms  pv (.*)$")
BENCH_DEPTH = 4


def _env() -> dict:
    env = dict(os.environ)
    for name in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK"):
        env.pop(name, None)
    return env


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def _san_moves(text: str) -> list[str]:
    """SAN moves of '1. e4 e5 2. Nf3' or '1... e5 2. Nf3'."""
    return [token for token in text.split() if not re.fullmatch(r"\d+\.(\.\.)?", token)]


def _check_san_line(fen: str, text: str) -> list[chess.Move]:
    board = chess.Board(fen)
    moves = []
    for san in _san_moves(text):
        move = board.parse_san(san)  # raises if not legal SAN in that position
        moves.append(move)
        board.push(move)
    return moves


# --- analyse ------------------------------------------------------------------------------------------------
def test_analyse_depth(capsys):
    status, out, err = _run(capsys, ["analyse", "--fen", KIWIPETE, "--depth", "5"])
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == f"Position: {KIWIPETE}"
    iterations = [m for m in map(ITERATION.match, lines) if m]
    assert [int(m[1]) for m in iterations if not m[5]] == [1, 2, 3, 4, 5]
    for m in iterations:
        _check_san_line(KIWIPETE, m[8])
        assert int(m[6].replace(",", "")) > 0
    best = next(line for line in lines if line.startswith("Best move: "))
    san, uci = re.match(r"Best move: (\S+) \((\w+)\)  depth 5  nodes [\d,]+  time \d+ ms  nps [\d,]+$", best).groups()
    board = chess.Board(KIWIPETE)
    assert board.san(chess.Move.from_uci(uci)) == san
    pv_line = next(line for line in lines if line.startswith("PV 1: "))
    pv = _check_san_line(KIWIPETE, pv_line.split("  ", 1)[1])
    assert pv[0].uci() == uci
    assert "Transposition table" in out
    for row in ("size", "hashfull", "probes", "hits", "cutoffs", "stores", "replacements"):
        assert re.search(rf"│ {row} +│ +[\d,]+", out), row


def test_analyse_multipv_moves_and_limits(capsys):
    status, out, err = _run(capsys, ["analyse", "--moves", "e2e4", "e7e5", "--nodes", "20000", "--multipv", "3", "--hash", "4"])
    assert status == 0, err
    fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert out.splitlines()[0] == f"Position: {fen}"
    pvs = [line for line in out.splitlines() if line.startswith("PV ")]
    assert [line[:4] for line in pvs] == ["PV 1", "PV 2", "PV 3"]
    firsts = [_check_san_line(fen, line.split("  ", 1)[1])[0] for line in pvs]
    assert len(set(firsts)) == 3
    assert "4 MB" in out

    status, out, err = _run(capsys, ["analyse", "--movetime", "300"])
    assert status == 0, err
    assert "Best move: " in out


def test_analyse_mate_and_no_move(capsys):
    status, out, _ = _run(capsys, ["analyse", "--fen", MATE_IN_ONE, "--depth", "3"])
    assert status == 0
    assert "Best move: Rd8# (d1d8)" in out
    assert "PV 1: #1  1. Rd8#" in out
    status, out, _ = _run(capsys, ["analyse", "--fen", "7k/7P/6K1/8/3B4/8/8/8 b - - 0 1"])
    assert status == 0
    assert "No legal move: checkmate" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["analyse", "--moves", "e2e5"], "illegal move e2e5"),
        (["analyse", "--fen", "8/8/8 w - - 0 1"], "8 ranks"),
        (["analyse", "--depth", "0"], "--depth must be >= 1"),
        (["analyse", "--depth", "3", "--nodes", "100"], "not allowed with"),
        (["analyse", "--hash", "0"], "hash size"),
        (["analyse", "--multipv", "0"], "--multipv"),
        (["bench", "--depth", "0"], "--depth must be >= 1"),
    ],
)
def test_errors_are_one_line(capsys, argv, message):
    status, out, err = _run(capsys, argv)
    assert status == 2
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err


# --- bench ------------------------------------------------------------------------------------------------
def _bench_summary(out: str) -> tuple[int, int]:
    nodes = re.search(r"^Nodes searched: (\d+)$", out, re.M)
    nps = re.search(r"^Nodes/second: (\d+)$", out, re.M)
    assert nodes and nps, out
    return int(nodes[1]), int(nps[1])


def test_bench_positions():
    from transpo.core.position import Position
    from transpo.engine.bench import POSITIONS

    assert len(POSITIONS) >= 30
    assert len({fen for fen, _ in POSITIONS}) == len(POSITIONS)
    pieces = []
    for fen, moves in POSITIONS:
        position = Position.from_fen(fen)
        for move in moves:
            position.push(move)
        pieces.append(sum(ch.isalpha() for ch in fen.split()[0]))
    assert min(pieces) <= 5 and max(pieces) == 32  # endgames to the opening


def test_bench_is_deterministic(capsys):
    status, first, err = _run(capsys, ["bench", "--depth", str(BENCH_DEPTH)])
    assert status == 0, err
    status, second, err = _run(capsys, ["bench", "--depth", str(BENCH_DEPTH)])
    assert status == 0, err
    nodes, nps = _bench_summary(first)
    assert nodes > 10_000 and nps > 0
    assert _bench_summary(second)[0] == nodes
    per_position = re.findall(r"^Position +(\d+)/(\d+) +(\S+) +nodes +(\d+) ", first, re.M)
    assert len(per_position) == int(per_position[0][1])
    assert per_position == re.findall(r"^Position +(\d+)/(\d+) +(\S+) +nodes +(\d+) ", second, re.M)
    assert sum(int(p[3]) for p in per_position) == nodes
    # another process, the same signature
    result = subprocess.run(
        [sys.executable, "-m", "transpo.cli", "bench", "--depth", str(BENCH_DEPTH)],
        capture_output=True, text=True, env=_env(), timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _bench_summary(result.stdout)[0] == nodes


# --- uci subcommand ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, end", [(["uci"], "quit\n"), ([], "")])
def test_uci_subcommand(argv, end):
    """``transpo uci`` and bare ``transpo``; a script piped in ending at EOF gets every answer."""
    result = subprocess.run(
        [sys.executable, "-m", "transpo.cli", *argv],
        input="uci\nisready\nposition startpos moves e2e4\ngo depth 2\nisready\n" + end,
        capture_output=True, text=True, env=_env(), timeout=120,
    )  # fmt: skip
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "id name Transpo"
    assert "uciok" in lines
    assert result.stderr == ""
    if not end:  # after quit, lines still queued get at most QUIT_GRACE_S: only EOF waits for the warm-up
        assert lines.count("readyok") == 2
        best = [line for line in lines if line.startswith("bestmove ")]
        assert len(best) == 1
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(best[0].split()[1]) in board.legal_moves
