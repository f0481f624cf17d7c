"""Static exchange evaluation against an independent recursive exchange on python-chess boards."""

from __future__ import annotations

import random

import chess
import pytest

from transpo import Position
from transpo.engine.see import SEE_VALUE, see_ge

VALUE = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 20000}


def _exchange(board: chess.Board, square: int, side: bool) -> int:
    """Best result for ``side`` of going on capturing on ``square`` (it may stop: never below 0)."""
    attackers = [s for s in board.attackers(side, square)]
    if not attackers:
        return 0
    attacker = min(attackers, key=lambda s: VALUE[board.piece_type_at(s)])
    if board.piece_type_at(attacker) == chess.KING and board.attackers(not side, square):
        return 0  # the king may not take a defended piece
    captured = VALUE[board.piece_type_at(square)]
    piece = board.remove_piece_at(attacker)
    taken = board.remove_piece_at(square)
    board.set_piece_at(square, piece)
    value = max(0, captured - _exchange(board, square, not side))
    board.set_piece_at(square, taken)
    board.set_piece_at(attacker, piece)
    return value


def reference_see(board: chess.Board, move: chess.Move) -> int:
    """What the side to move gains by ``move`` and the exchange that follows on its square."""
    board = board.copy(stack=False)
    if board.is_castling(move):
        return 0
    gained = 0
    if board.is_en_passant(move):
        gained = VALUE[chess.PAWN]
        board.remove_piece_at(move.to_square + (-8 if board.turn else 8))
    elif board.piece_at(move.to_square):
        gained = VALUE[board.piece_type_at(move.to_square)]
    mover = board.remove_piece_at(move.from_square)
    if move.promotion:
        gained += VALUE[move.promotion] - VALUE[chess.PAWN]
        mover = chess.Piece(move.promotion, mover.color)
    board.set_piece_at(move.to_square, mover)
    return gained - _exchange(board, move.to_square, not mover.color)


CASES = [  # (FEN, move, exchange value), worked out by hand
    ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100),  # a free pawn
    ("4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 0),  # pawn for pawn
    ("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5", 100 - 900),  # the queen takes a defended pawn
    ("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100),  # x-ray: the second rook backs the first
    ("3rk3/3r4/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100 - 500),  # two defenders against two attackers
    ("4k3/8/8/3n4/8/8/8/3QK3 w - - 0 1", "d1d5", 320),  # an undefended knight
    ("4k3/8/4p3/3n4/8/8/B7/3QK3 w - - 0 1", "a2d5", 320 - 330 + 100),  # BxN, pxB, QxP
]


@pytest.mark.parametrize("fen, uci, value", CASES)
def test_known_exchanges(fen, uci, value):
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    assert reference_see(board, move) == value
    position = Position.from_fen(fen)
    code = position.parse_move(uci)
    for threshold in (value - 1, value, value + 1):
        assert see_ge(position.board, position.state, code, threshold) == (value >= threshold), threshold


def test_the_king_takes_part_only_against_an_undefended_square():
    taker = Position.from_fen("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1")
    assert see_ge(taker.board, taker.state, taker.parse_move("e1d2"), 900)  # the king takes the undefended queen
    # The rook takes a pawn defended only by the king, which may recapture (nothing else attacks d5).
    rook = Position.from_fen("8/8/4k3/3p4/8/8/8/3RK3 w - - 0 1")
    assert not see_ge(rook.board, rook.state, rook.parse_move("d1d5"), 0)
    # With a second rook behind, the king may not recapture: the pawn is won.
    backed = Position.from_fen("3R4/8/4k3/3p4/8/8/8/3RK3 w - - 0 1")
    assert see_ge(backed.board, backed.state, backed.parse_move("d1d5"), 100)


def test_agrees_with_the_reference_on_random_positions():
    rng = random.Random(11)
    compared = 0
    for game in range(60):
        board = chess.Board()
        position = Position()
        for _ in range(rng.randrange(10, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            for move in moves:
                if not (board.is_capture(move) or move.promotion) and rng.random() > 0.1:
                    continue
                value = reference_see(board, move)
                code = position.parse_move(move.uci())
                before = position.board.copy()
                for threshold in (-400, -1, 0, 1, 100, 320, 600):
                    assert see_ge(position.board, position.state, code, threshold) == (value >= threshold), (board.fen(), move, threshold, value)
                assert (position.board == before).all()  # the board is only read
                compared += 1
            move = rng.choice(moves)
            board.push(move)
            position.push(move.uci())
    assert compared > 1000, compared


def test_values_are_the_ordering_values():
    from transpo.engine.ordering import PIECE_VALUE

    assert tuple(SEE_VALUE) == tuple(PIECE_VALUE)
