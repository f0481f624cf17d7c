"""Opening positions for matches: the shipped balanced set, or an EPD or PGN file.

An EPD line whose ``c0`` operation holds a SAN line from the start position
that reaches the same position is played as those moves (engines then see
``position startpos moves ...`` and the game's history); otherwise the
position is set up from its FEN.  A PGN game is taken to its last move.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import chess
import chess.pgn

DEFAULT_OPENINGS = "openings.epd"


@dataclass(frozen=True)
class Opening:
    """One start position: a name and a board (with the moves that lead to it when known)."""

    name: str
    board: chess.Board


def data_path(name: str) -> Path:
    """A file shipped in ``transpo/tools/data``."""
    return Path(str(resources.files("transpo.tools") / "data" / name))


def epd_records(path: Path) -> Iterator[tuple[int, chess.Board | None, dict, str]]:
    """(line number, board, operations, fault) of every EPD line that is not blank or a ``#`` comment.

    A line python-chess cannot read, or whose position is not legal, comes with
    board None and the fault in words; the caller decides to refuse or skip it.
    """
    for number, text in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        try:
            board, ops = chess.Board.from_epd(text)
        except ValueError as exc:
            yield number, None, {}, f"not an EPD line ({' '.join(str(exc).split())})"
            continue
        if not board.is_valid():
            yield number, None, ops, "not a legal position"
            continue
        yield number, board, ops, ""


def _line_board(line: str) -> chess.Board | None:
    """The board after a SAN line like '1. e4 e5 2. Nf3', or None if it does not parse."""
    board = chess.Board()
    try:
        for token in line.replace(".", ". ").split():
            if token.endswith(".") or token.rstrip(".").isdigit():
                continue
            board.push_san(token)
    except ValueError:
        return None
    return board


def load_openings(path: str | Path | None = None) -> list[Opening]:
    """The openings of an EPD or PGN file (default: the shipped set); ValueError naming a bad line."""
    path = data_path(DEFAULT_OPENINGS) if path is None else Path(path)
    if not path.is_file():
        raise ValueError(f"no opening file {path}")
    openings: list[Opening] = []
    if path.suffix.lower() == ".pgn":
        with open(path, encoding="utf-8", errors="replace") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                if game.errors:
                    raise ValueError(f"{path}: game {len(openings) + 1}: {game.errors[0]}")
                board = game.end().board()
                name = game.headers.get("Opening") or game.headers.get("Event") or f"game {len(openings) + 1}"
                openings.append(Opening(name, board))
    else:
        for number, board, ops, fault in epd_records(path):
            if board is None:
                raise ValueError(f"{path}:{number}: {fault}")
            line = ops.get("c0")
            played = _line_board(line) if isinstance(line, str) else None
            if played is not None and played.epd() == board.epd():
                board = played
            name = line if isinstance(line, str) else str(ops.get("id", f"{path.name}:{number}"))
            openings.append(Opening(name, board))
    if not openings:
        raise ValueError(f"{path}: no opening positions")
    return openings
