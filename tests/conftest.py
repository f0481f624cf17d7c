"""Shared helpers for the core test suite."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from transpo.core.board import ST_PLY

DATA_DIR = Path(__file__).parent / "data"
SUITE_EPD = DATA_DIR / "perftsuite.epd"
CPW_EPD = DATA_DIR / "perft_cpw6.epd"

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
