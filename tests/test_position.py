"""The Position API: construction, FEN, moves, push/pop, check, game status, copy, str()."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_snapshot, snapshot

from transpo import START_FEN, IllegalMove, InvalidFEN, Position, Status
from transpo.core.board import MAX_GAME_PLIES

START_MOVES = {
    "a2a3", "a2a4", "b2b3", "b2b4", "c2c3", "c2c4", "d2d3", "d2d4", "e2e3", "e2e4",
    "f2f3", "f2f4", "g2g3", "g2g4", "h2h3", "h2h4", "b1a3", "b1c3", "g1f3", "g1h3",
}  # fmt: skip


def test_start_position():
    p = Position()
    assert p.fen() == START_FEN
    assert p.turn == "w"
    assert p.key == 0x463B96181691FC9C
    assert set(p.legal_moves()) == START_MOVES and len(p.legal_moves()) == 20
    assert not p.is_check()
    assert p.status() is Status.ONGOING
    assert p.moves == []
    assert Position.from_fen(START_FEN).fen() == START_FEN


def test_from_fen_round_trips_and_accepts_epd_four_fields():
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 3 17"
    assert Position.from_fen(fen).fen() == fen
    epd = Position.from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -")
    assert epd.fen().endswith(" w KQkq - 0 1")
    assert Position.from_fen(START_FEN.replace(" ", "  ")).fen() == START_FEN


def test_en_passant_square_kept_only_when_a_pawn_can_take():
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    p = Position.from_fen(after_e4)
    assert p.fen() == after_e4.replace(" e3 ", " - ")
    q = Position()
    q.push("e2e4")
    assert q.fen() == p.fen() and q.key == p.key
    takeable = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    r = Position.from_fen(takeable)
    assert r.fen() == takeable
    assert "e5f6" in r.legal_moves()


def test_push_and_pop():
    p = Position()
    start = snapshot(p)
    assert p.push("e2e4") is None
    assert p.turn == "b"
    assert p.moves and len(p.moves) == 1
    p.push("e7e5")
    assert p.fen() == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert p.pop() == "e7e5"
    assert p.pop() == "e2e4"
    assert_same_snapshot(snapshot(p), start)
    with pytest.raises(IndexError):
        p.pop()
    assert_same_snapshot(snapshot(p), start)


def test_special_moves_in_uci():
    castle = Position.from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert {"e1g1", "e1c1"} <= set(castle.legal_moves())
    castle.push("e1g1")
    assert castle.fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    castle.push("e8c8")
    assert castle.fen() == "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2"
    promo = Position.from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    assert {"b7b8q", "b7b8r", "b7b8b", "b7b8n"} <= set(promo.legal_moves())
    assert "b7b8" not in promo.legal_moves()
    promo.push("b7b8n")
    assert promo.fen() == "1N2k3/8/8/8/8/8/8/4K3 b - - 0 1"
    assert promo.pop() == "b7b8n"
    ep = Position.from_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
    ep.push("e5f6")
    assert ep.fen() == "rnbqkbnr/ppp1p1pp/5P2/3p4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"


def test_is_check():
    assert Position.from_fen("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1").is_check()
    assert not Position.from_fen("4k3/8/8/8/8/8/8/3R2K1 b - - 0 1").is_check()
    p = Position()
    for move in ("e2e4", "f7f6", "d1h5"):
        p.push(move)
    assert p.is_check()
    p.pop()
    assert not p.is_check()


def test_checkmate():
    p = Position()
    for move in ("f2f3", "e7e5", "g2g4", "d8h4"):
        p.push(move)
    assert p.is_check()
    assert p.legal_moves() == []
    assert p.status() is Status.CHECKMATE


def test_stalemate():
    p = Position.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert not p.is_check()
    assert p.legal_moves() == []
    assert p.status() is Status.STALEMATE


def test_fifty_move_rule():
    assert Position.from_fen("7k/8/8/8/8/8/R7/K7 w - - 100 80").status() is Status.FIFTY_MOVE
    p = Position.from_fen("7k/8/8/8/8/8/R7/K7 w - - 99 80")
    assert p.status() is Status.ONGOING
    p.push("a2b2")
    assert p.status() is Status.FIFTY_MOVE
    p.pop()
    assert p.status() is Status.ONGOING
    # A capture or pawn move resets the clock.
    q = Position.from_fen("7k/8/8/8/8/1p6/R7/K7 w - - 99 80")
    q.push("a2a3")
    assert q.status() is Status.FIFTY_MOVE
    q.pop()
    q.push("a1b2")
    assert q.status() is Status.FIFTY_MOVE
    q.pop()
    q.push("a2b2")
    assert q.status() is Status.FIFTY_MOVE
    q.pop()
    r = Position.from_fen("7k/8/8/8/8/1p6/R7/K7 b - - 99 80")
    r.push("b3a2")  # capture
    assert r.fen().split()[4] == "0"
    assert r.status() is Status.ONGOING


def test_checkmate_takes_precedence_over_fifty_move_rule():
    p = Position.from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80")
    assert p.status() is Status.CHECKMATE


INSUFFICIENT = {
    "K v K": ("8/8/8/4k3/8/8/8/4K3 w - - 0 1", True),
    "KB v K": ("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1", True),
    "K v KB": ("8/8/8/4k3/8/8/8/2b1K3 w - - 0 1", True),
    "KN v K": ("8/8/8/4k3/8/8/8/1N2K3 w - - 0 1", True),
    "K v KN": ("8/8/3n4/4k3/8/8/8/4K3 w - - 0 1", True),
    "KB v KB same colour": ("5b2/8/8/4k3/8/8/8/2B1K3 w - - 0 1", True),
    "KBB v K same colour": ("8/8/8/3k4/8/4B3/8/2B1K3 w - - 0 1", True),
    "KB v KB opposite colours": ("2b5/8/8/4k3/8/8/8/2B1K3 w - - 0 1", False),
    # Our definition: two minor pieces of which one is a knight can still mate, so they play on.
    "KNN v K": ("8/8/8/4k3/8/8/8/1NN1K3 w - - 0 1", False),
    "KB v KN": ("8/8/3n4/4k3/8/8/8/2B1K3 w - - 0 1", False),
    "KN v KN": ("8/8/3n4/4k3/8/8/8/1N2K3 w - - 0 1", False),
    "KP v K": ("8/8/8/4k3/8/8/P7/4K3 w - - 0 1", False),
    "KR v K": ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", False),
    "KQ v K": ("8/8/8/4k3/8/8/8/Q3K3 b - - 0 1", False),
}


@pytest.mark.parametrize("fen,insufficient", INSUFFICIENT.values(), ids=INSUFFICIENT.keys())
def test_insufficient_material(fen, insufficient):
    p = Position.from_fen(fen)
    assert p.is_insufficient_material() is insufficient
    assert p.status() is (Status.INSUFFICIENT_MATERIAL if insufficient else Status.ONGOING)


def test_insufficient_material_after_the_last_capture():
    q = Position.from_fen("8/8/8/4k3/8/8/4r3/2B1K3 w - - 0 1")
    assert q.status() is Status.ONGOING
    q.push("e1e2")
    assert q.status() is Status.INSUFFICIENT_MATERIAL
    q.pop()
    assert q.status() is Status.ONGOING


def test_status_values_are_strings():
    assert Status.CHECKMATE == "checkmate"
    assert {s.value for s in Status} >= {"ongoing", "stalemate", "threefold repetition", "insufficient material"}


def test_copy_is_independent():
    p = Position()
    p.push("e2e4")
    q = p.copy()
    assert q.fen() == p.fen() and q.key == p.key and q.moves == p.moves
    for name in ("board", "state", "keys", "undo"):
        assert not np.shares_memory(getattr(p, name), getattr(q, name)), name
    before = snapshot(p)
    q.push("e7e5")
    q.push("g1f3")
    assert_same_snapshot(snapshot(p), before)
    assert q.pop() == "g1f3" and q.pop() == "e7e5" and q.pop() == "e2e4"  # history was copied
    assert_same_snapshot(snapshot(p), before)
    p.push("c7c5")
    assert q.fen() == START_FEN and q.moves == []
    assert p.pop() == "c7c5" and p.pop() == "e2e4"


def test_str_is_an_ascii_board():
    expected = "\n".join(
        [
            "8 r n b q k b n r",
            "7 p p p p p p p p",
            "6 . . . . . . . .",
            "5 . . . . . . . .",
            "4 . . . . . . . .",
            "3 . . . . . . . .",
            "2 P P P P P P P P",
            "1 R N B Q K B N R",
            "  a b c d e f g h",
        ]
    )
    assert str(Position()) == expected
    p = Position()
    p.push("e2e4")
    assert str(p).splitlines()[4] == "4 . . . . P . . ."
    assert str(p).isascii()
    assert repr(p) == f"Position({p.fen()!r})"


def test_game_longer_than_the_history_arrays_is_accepted():
    """Was: the game length limit raised IllegalMove; now the history compacts (see tests/test_long_game.py)."""
    p = Position()
    cycle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for i in range(MAX_GAME_PLIES):
        p.push(cycle[i % 4])
    p.push("g1f3")
    p.push("g8f6")
    p.push("f3g1")
    p.push("f6g8")
    assert p.key == Position().key
    assert p.is_repetition(3)
    assert p.status() is Status.FIFTY_MOVE  # the fifty-move rule is checked before repetition


def test_exceptions_are_value_errors():
    assert issubclass(InvalidFEN, ValueError)
    assert issubclass(IllegalMove, ValueError)
