"""``may_give_check``: the search prunes a move without making it only when the filter says it gives no check.

A "no" must always be right: every legal move in every position two plies from
the suite positions is made and tested for check.  The filter must also be
worth its place: it says "no" to most of the moves that give no check.
"""

from __future__ import annotations

import numpy as np
from conftest import CPW_EPD, SUITE_EPD, load_epd

from transpo import Position
from transpo.core.board import MAX_MOVES
from transpo.core.makemove import EMPTY_PSQ, make_move, unmake_move
from transpo.core.movegen import generate_moves, in_check, may_give_check


def _walk(p: Position, depth: int, tally: dict[str, int]) -> None:
    buffer = np.zeros(MAX_MOVES, dtype=np.int32)
    n = generate_moves(p.board, p.state, buffer, 0, False)
    for move in (int(m) for m in buffer[:n]):
        maybe = may_give_check(p.board, p.state, move)
        make_move(p.board, p.state, p.keys, p.undo, move, p.zobrist, EMPTY_PSQ)
        checks = in_check(p.board, p.state)
        assert maybe or not checks, (p.fen(), move)
        tally["checks" if checks else "not_cleared" if maybe else "cleared"] += 1  # cleared: no check, said "no"
        if depth > 0:
            _walk(p, depth - 1, tally)
        unmake_move(p.board, p.state, p.undo, move)


def test_a_move_the_filter_clears_never_gives_check():
    tally = {"checks": 0, "cleared": 0, "not_cleared": 0}
    for fen, _, _ in load_epd(SUITE_EPD) + load_epd(CPW_EPD):
        p = Position.from_fen(fen)
        _walk(p, 1, tally)
    assert tally["checks"] > 1_000  # the suites' positions have plenty of checking moves
    assert tally["cleared"] > 10 * tally["not_cleared"]  # nearly every non-checking move is cleared without a make


def test_known_checks_are_flagged():
    cases = {
        # direct checks by each piece kind, a discovered check, castling with check, en passant, a promotion
        "4k3/8/8/8/4N3/8/8/4K3 w - - 0 1": "e4f6",
        "4k3/8/8/8/8/8/8/1B2K3 w - - 0 1": "b1g6",
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1": "a1a8",
        "4k3/8/3P4/8/8/8/8/4K3 w - - 0 1": "d6d7",
        "4k3/8/8/8/8/8/4N3/4R1K1 w - - 0 1": "e2c3",
        "5k2/8/8/8/8/8/8/4K2R w K - 0 1": "e1g1",
        "8/8/8/8/3Pp3/8/2K5/4k3 b - d3 0 1": "e4d3",
        "8/3P4/8/k7/8/8/8/4K3 w - - 0 1": "d7d8q",
    }
    buffer = np.zeros(MAX_MOVES, dtype=np.int32)
    for fen, uci in cases.items():
        p = Position.from_fen(fen)
        n = generate_moves(p.board, p.state, buffer, 0, False)
        move = p.parse_move(uci)
        assert move in buffer[:n], (fen, uci)
        assert may_give_check(p.board, p.state, move), (fen, uci)
        p.push(uci)
        assert in_check(p.board, p.state), (fen, uci)  # the case is what it says
