"""Shared helpers for the core test suite."""

from __future__ import annotations

import queue
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import numpy as np
import pytest

from transpo.core.board import ST_PLY

DATA_DIR = Path(__file__).parent / "data"
SUITE_EPD = DATA_DIR / "perftsuite.epd"
CPW_EPD = DATA_DIR / "perft_cpw6.epd"


@pytest.fixture(scope="session")
def shared_numba_cache(tmp_path_factory) -> Path:
    """A numba cache folder that starts empty and is shared by the tests that need a cold compile.

    The whole engine takes minutes to compile cold, so the session pays for it once: the UCI
    cold-start test (``test_uci_coldstart.py``, collected first) starts its engine on the empty
    folder, and the engine's compile child fills it; the warm-cache test (``test_warm_cache.py``)
    then runs its script in processes that load what that other process wrote.  A test that needs
    the folder empty and finds it filled takes a fresh folder of its own instead.
    """
    return tmp_path_factory.mktemp("shared_numba_cache")


_DEPTH = re.compile(r"^D(\d+)\s+(\d+)$")


def load_epd(path: Path) -> list[tuple[str, dict[int, int], str]]:
    """Rows of a perft EPD file: (fen, {depth: leaf count}, id).

    The FEN part may have 4 or 6 fields; the ``;``-separated operations hold
    ``D<depth> <count>`` and an optional ``id "..."``.
    """
    rows = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        fen, *ops = (part.strip() for part in line.split(";"))
        counts: dict[int, int] = {}
        name = f"{path.stem}:{lineno}"
        for op in ops:
            m = _DEPTH.match(op)
            if m:
                counts[int(m[1])] = int(m[2])
            elif op.startswith("id "):
                name = op[3:].strip().strip('"')
        assert counts, f"{path.name}:{lineno} has no perft counts"
        rows.append((fen, counts, name))
    return rows


def snapshot(position) -> dict:
    """Everything that must come back exactly after a pop or a failed push."""
    ply = int(position.state[ST_PLY])
    return {
        "fen": position.fen(),
        "key": position.key,
        "board": position.board.copy(),
        "state": position.state.copy(),
        "keys": position.keys[: ply + 1].copy(),
        "moves": list(position.moves),
    }


def assert_same_snapshot(a: dict, b: dict) -> None:
    assert a["fen"] == b["fen"]
    assert a["key"] == b["key"]
    np.testing.assert_array_equal(a["board"], b["board"])
    np.testing.assert_array_equal(a["state"], b["state"])
    np.testing.assert_array_equal(a["keys"], b["keys"])
    assert a["moves"] == b["moves"]


STARTS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8",
    "4k3/pp3ppp/8/3P4/8/8/PPP2PPP/4K3 w - - 0 1",
]


def playout_fens(count: int, seed: int = 2026) -> list[str]:
    """``count`` positions from random games (python-chess), every tenth move a capture if one exists."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        board = chess.Board(rng.choice(STARTS))
        for _ in range(rng.randint(4, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.3 else moves))
            fens.append(board.fen())
    return fens[:count]


class UciPipe:
    """A raw UCI pipe: send lines, read lines with a timeout."""

    def __init__(self, env: dict, command: list[str] | None = None) -> None:
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "transpo"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, prefix: str, timeout: float) -> tuple[list[str], float]:
        """Lines up to the first that starts with ``prefix``, and the seconds it took."""
        started = time.monotonic()
        seen = []
        while True:
            left = timeout - (time.monotonic() - started)
            assert left > 0, f"no {prefix!r} within {timeout} s; got {seen}"
            line = self.lines.get(timeout=left)
            seen.append(line)
            if line.startswith(prefix):
                return seen, time.monotonic() - started
