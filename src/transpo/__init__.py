"""Transpo: a chess engine built around Zobrist hashing and the transposition table,
and a laboratory that measures what hashing does to a search.

The public names are imported lazily (PEP 562): ``import transpo`` alone must not
import numba, so the UCI engine (``python -m transpo.cli``) can answer ``uci``
at once while the compiled core loads in the background.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["Position", "IllegalMove", "InvalidFEN", "Status", "START_FEN"]
__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from transpo.core.position import START_FEN, IllegalMove, InvalidFEN, Position, Status


def __getattr__(name: str):
    if name in __all__:
        from transpo.core import position

        return getattr(position, name)
    raise AttributeError(f"module 'transpo' has no attribute {name!r}")
