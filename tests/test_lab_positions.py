"""The built-in lab positions are what their names say: legal boards with a possible army on each side."""

from __future__ import annotations

import chess
import pytest

from transpo.lab.positions import DEFAULT_POSITIONS

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"  # CPW


@pytest.mark.parametrize(("fen", "name"), DEFAULT_POSITIONS, ids=[name for _, name in DEFAULT_POSITIONS])
def test_builtin_position_is_valid(fen: str, name: str) -> None:
    board = chess.Board(fen)
    assert board.is_valid(), f"{name}: {board.status()!r}"
    for color in (chess.WHITE, chess.BLACK):
        pawns = len(board.pieces(chess.PAWN, color))
        pieces = board.occupied_co[color].bit_count()
        assert pawns <= 8 and pieces <= 16, f"{name}: {pawns} pawns, {pieces} pieces"
        # promotions aside, no side has more than its starting minor pieces and rooks
        for kind, most in ((chess.KNIGHT, 2), (chess.BISHOP, 2), (chess.ROOK, 2), (chess.QUEEN, 1)):
            assert len(board.pieces(kind, color)) <= most + (8 - pawns), name


@pytest.mark.parametrize(
    ("name", "moves"),
    [
        ("two knights", "e4 e5 Nf3 Nc6 Bc4 Nf6"),
        ("queen's gambit", "d4 d5 c4 e6 Nc3 Nf6 Nf3 Be7 Bf4 O-O e3 c5 dxc5 Bxc5"),
        ("sicilian", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Bc4 e6 Bb3 b5 O-O Be7 Be3 O-O Qf3 Bb7 Qe2 Nbd7"),
    ],
)
def test_opening_positions_follow_their_moves(name: str, moves: str) -> None:
    board = chess.Board()
    for san in moves.split():
        board.push_san(san)
    assert {n: f for f, n in DEFAULT_POSITIONS}[name] == board.fen()


def test_kiwipete_is_the_cpw_position() -> None:
    assert {n: f for f, n in DEFAULT_POSITIONS}["kiwipete"] == KIWIPETE
