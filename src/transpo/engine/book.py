"""Polyglot opening books: read a ``.bin`` file, list a position's moves, pick one.

The format, as Michel Van den Bergh describes it from PolyGlot's source in
"Polyglot book format" (http://hgm.nubati.net/book_format.html, shipped by
Debian as ``/usr/share/doc/polyglot/book_format.html``): "A Polyglot book is a
series of "entries" of 16 bytes" -- ``key`` uint64, ``move`` uint16,
``weight`` uint16, ``learn`` uint32 -- "All integers are stored highest byte
first" and "The entries are ordered according to key. Lowest key first."
The move's bits 0-5 are the to square, 6-11 the from square (``8 * row +
file``, a1 = 0), 12-14 the promotion piece (0 none, 1 knight, 2 bishop, 3 rook,
4 queen); castling is written as the king taking its own rook (``e1h1`` is
White's O-O).  The key is PolyGlot's Zobrist key, which is what
:attr:`transpo.core.position.Position.key` is with the default key set.

Plain Python and numpy, no numba: the UCI front end opens a book while the
engine is still compiling, and answers from it with a python-chess board then
(:meth:`Book.lookup` takes a key and moves from anywhere).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from transpo.core.board import ST_KING, ST_SIDE, square_name
from transpo.settings import BOOK_MODES, check_choice

if TYPE_CHECKING:  # pragma: no cover - only for the annotations: importing it loads numba
    from transpo.core.position import Position

__all__ = ["ENTRY_DTYPE", "Book", "BookEntry", "BookError", "choose", "decode_move", "king_square"]

# One entry, big-endian as the file stores it.
ENTRY_DTYPE = np.dtype([("key", ">u8"), ("move", ">u2"), ("weight", ">u2"), ("learn", ">u4")])
PROMOTION_LETTERS = ("", "n", "b", "r", "q")  # by the move's bits 12-14; 5..7 name no piece
# The king "taking" its own rook, as PolyGlot writes castling, and the UCI move it stands for.
CASTLING = {"e1h1": "e1g1", "e1a1": "e1c1", "e8h8": "e8g8", "e8a8": "e8c8"}


class BookError(ValueError):
    """A book file that cannot be used: missing, unreadable, empty, of a wrong size or not sorted by key."""


class BookEntry(NamedTuple):
    """One book move for a position: UCI text (castling as ``e1g1``), weight and learn field as stored."""

    move_uci: str
    weight: int
    learn: int


def _square(index: int) -> str:
    """PolyGlot's square numbering (``8 * row + file``, a1 = 0) as a name."""
    return "abcdefgh"[index & 7] + str((index >> 3) + 1)


def decode_move(raw: int, king_square: str | None = None) -> str | None:
    """UCI text of a PolyGlot move, or None if its promotion field names no piece.

    ``king_square`` is where the king of the side to move stands: only a move
    from that square onto its own rook's corner is castling and becomes
    ``e1g1``/``e1c1``/``e8g8``/``e8c8``.  Anything else (a rook on e1 going to
    h1, say) is read as written; whether it is legal is the caller's question.
    """
    promotion = (raw >> 12) & 7
    if promotion >= len(PROMOTION_LETTERS):
        return None
    text = _square((raw >> 6) & 63) + _square(raw & 63)
    if text[:2] == king_square and text in CASTLING:
        text = CASTLING[text]
    return text + PROMOTION_LETTERS[promotion]


def choose(entries: Sequence[BookEntry], mode: str = "weighted", rng: random.Random | None = None) -> str | None:
    """A move among ``entries``: at random in proportion to weight, or (``best``) the heaviest one.

    Entries of weight 0 are never chosen (PolyGlot's convention: such a move
    is deleted from the book); with no positive weight there is no move.  In
    ``best`` mode the first of equally heavy entries wins, so the choice is
    repeatable.
    """
    check_choice("book mode", mode, BOOK_MODES)
    playable = [entry for entry in entries if entry.weight > 0]
    if not playable:
        return None
    if mode == "best":
        return max(playable, key=lambda entry: entry.weight).move_uci
    draw = (rng or random).randrange(sum(entry.weight for entry in playable))
    for entry in playable:
        draw -= entry.weight
        if draw < 0:
            return entry.move_uci
    raise AssertionError("unreachable: the draw is below the total weight")


def king_square(position: Position) -> str:
    """The square of the king of the side to move in ``position``."""
    side = int(position.state[ST_SIDE])
    return square_name(int(position.state[ST_KING + side]))


class Book:
    """A Polyglot book file, mapped into memory.

    The keys are copied once into a native ``uint64`` array (8 bytes per entry)
    so that :func:`numpy.searchsorted` can bisect them directly: on the
    big-endian view numpy would byte-swap the whole column on every call.  The
    moves, weights and learn fields stay in the mapped file and are read only
    for the key looked up.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        """Open ``path``; :class:`BookError` in one line if it cannot serve as a book."""
        self.path = os.fspath(path)
        self._data = _map(self.path)
        self._keys = np.asarray(self._data["key"], dtype=np.uint64)  # native copy, see the class docstring
        if np.any(self._keys[1:] < self._keys[:-1]):
            at = int(np.argmax(self._keys[1:] < self._keys[:-1])) + 1
            raise BookError(f"book file {self.path} is not sorted by key (entry {at} is lower than the one before)")

    def __len__(self) -> int:
        """The number of entries in the file."""
        return len(self._keys)

    def raw_entries(self, key: int) -> np.ndarray:
        """The stored entries of ``key`` (a structured array in file order, legal or not)."""
        probe = np.array([key & 0xFFFF_FFFF_FFFF_FFFF], dtype=np.uint64)  # never a float: keys use all 64 bits
        low = int(np.searchsorted(self._keys, probe, side="left")[0])
        high = int(np.searchsorted(self._keys, probe, side="right")[0])
        return self._data[low:high]

    def lookup(self, key: int, legal_moves: Iterable[str], king_at: str | None) -> list[BookEntry]:
        """The entries of ``key`` whose move is in ``legal_moves`` (UCI text), in file order.

        ``king_at`` is the square of the king of the side to move (castling is
        recognised only from there).  An entry whose move is not legal is left
        out: it belongs to another position with the same key (a collision), or
        the book is broken, and a GUI must never get an illegal move.
        :meth:`raw_entries` still shows it.
        """
        legal = set(legal_moves)
        found = []
        for record in self.raw_entries(key):
            move = decode_move(int(record["move"]), king_at)
            if move is not None and move in legal:
                found.append(BookEntry(move, int(record["weight"]), int(record["learn"])))
        return found

    def entries(self, position: Position) -> list[BookEntry]:
        """The legal book moves of ``position`` (PolyGlot key set and XOR combination, the defaults), in file order."""
        return self.lookup(position.key, position.legal_moves(), king_square(position))

    def pick(self, position: Position, mode: str = "weighted", rng: random.Random | None = None) -> str | None:
        """A book move for ``position`` (see :func:`choose`), or None when the book has none."""
        return choose(self.entries(position), mode, rng)


def _map(path: str) -> np.memmap | np.ndarray:
    """The entries of the file at ``path``, mapped read-only; :class:`BookError` for anything unusable."""
    try:
        if os.path.isdir(path):
            raise BookError(f"book file {path} is a directory")
        size = os.path.getsize(path)
        if size == 0:
            raise BookError(f"book file {path} is empty")
        if size % ENTRY_DTYPE.itemsize:
            raise BookError(
                f"book file {path} is not a Polyglot book: its size ({size} bytes) is not a multiple of "
                f"{ENTRY_DTYPE.itemsize}"
            )
        return np.memmap(path, dtype=ENTRY_DTYPE, mode="r")
    except FileNotFoundError:
        raise BookError(f"book file {path} does not exist") from None
    except OSError as exc:
        raise BookError(f"cannot read book file {path}: {exc.strerror or exc}") from None
