"""perft: count the leaf nodes of the legal move tree, the standard proof of a move generator.

``perft`` is recursive and compiled with numba.  It is called directly from
Python (never from another cached jitted function: see docs/NUMBA.md, trap 1).
Without ``bulk`` every leaf move is made and unmade, which also exercises the
incremental key; with ``bulk`` the last ply only counts the legal moves.

Make and unmake are inlined (``_make``/``_unmake``) rather than called through
``make_move``/``unmake_move``: a call passes seven arrays field by field, and
avoiding it nearly doubles the every-leaf speed.
"""

from __future__ import annotations

from numba import njit

from transpo.core.board import MAX_MOVES
from transpo.core.makemove import _make, _unmake
from transpo.core.movegen import generate_moves


@njit(
    "int64(int8[::1], int64[::1], uint64[::1], int64[:, ::1], uint64[::1], int32[:, :, ::1], int32[::1], int64, boolean)",
    cache=True,
    nogil=True,
    _nrt=False,
)
def perft(board, state, keys, undo, zob, psq, buffer, depth, bulk):
    """Number of leaf nodes ``depth`` plies below the position (``buffer``: int32[depth * 256])."""
    if depth == 0:
        return 1
    start = (depth - 1) * MAX_MOVES
    end = generate_moves(board, state, buffer, start, False)
    if bulk and depth == 1:
        return end - start
    nodes = 0
    for i in range(start, end):
        move = buffer[i]
        _make(board, state, keys, undo, move, zob, psq)
        # The last ply is made and unmade but not recursed into: no call per leaf.
        nodes += 1 if depth == 1 else perft(board, state, keys, undo, zob, psq, buffer, depth - 1, bulk)
        _unmake(board, state, undo, move)
    return nodes
