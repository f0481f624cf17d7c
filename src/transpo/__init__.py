"""Transpo: a chess engine built around Zobrist hashing and the transposition table,
and a laboratory that measures what hashing does to a search."""

from transpo.core.position import START_FEN, IllegalMove, InvalidFEN, Position, Status

__all__ = ["Position", "IllegalMove", "InvalidFEN", "Status", "START_FEN"]
__version__ = "0.1.0"
