"""Bad input: malformed or impossible FENs raise InvalidFEN naming the fault; malformed or
illegal moves raise IllegalMove and leave the position exactly as it was."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from transpo import START_FEN, IllegalMove, InvalidFEN, Position

S = START_FEN
BAD_FENS = {
    # field count
    "empty string": ("", r"expected 6 fields \(or 4\), got 0"),
    "one field": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", r"expected 6 fields \(or 4\), got 1"),
    "five fields": (S.rsplit(" ", 1)[0], r"expected 6 fields \(or 4\), got 5"),
    "seven fields": (S + " 7", r"expected 6 fields \(or 4\), got 7"),
    # piece placement
    "piece letter X": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w Qkq - 0 1", r"unknown piece letter or digit 'X' in rank 1"),
    "digit 9": ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"unknown piece letter or digit '9' in rank 6"),
    "digit 0": ("rnbqkbnr/pppppppp/8/8/8/08/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"unknown piece letter or digit '0' in rank 3"),
    "rank too short": ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"rank 7 \('ppppppp'\) covers 7 squares, not 8"),
    "empty rank": ("rnbqkbnr/pppppppp//8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"rank 6 \(''\) covers 0 squares, not 8"),
    "rank too long (piece)": ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"rank 7 \('ppppppppp'\) covers more than 8 squares"),
    "rank too long (digits)": ("rnbqkbnr/pppppppp/8/8/441/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"rank 4 \('441'\) covers 9 squares, not 8"),
    "seven ranks": ("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"piece placement needs 8 ranks, got 7"),
    "nine ranks": ("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"piece placement needs 8 ranks, got 9"),
    "no white king": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", r"white has no king"),
    "no black king": ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", r"black has no king"),
    "two black kings": ("rnbqkbnr/pppppppp/8/8/3k4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"black has 2 kings"),
    "two white kings": ("rnbqkbnr/pppppppp/8/8/3K4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"white has 2 kings"),
    "pawn on rank 8": ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", r"pawn on rank 8 \(h8\)"),
    "pawn on rank 1": ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", r"pawn on rank 1 \(a1\)"),
    # side to move
    "side x": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", r"side to move must be 'w' or 'b', not 'x'"),
    "side W": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1", r"side to move must be 'w' or 'b', not 'W'"),
    # castling rights the board contradicts
    "K without h1 rook": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", r"castling right 'K' needs the king on e1 and a rook on h1"),
    "Q without a1 rook": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq - 0 1", r"castling right 'Q' needs the king on e1 and a rook on a1"),
    "k with king moved": ("r4k1r/8/8/8/8/8/8/R3K2R w KQk - 0 1", r"castling right 'k' needs the king on e8 and a rook on h8"),
    "q without a8 rook": ("4k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", r"castling right 'q' needs the king on e8 and a rook on a8"),
    "castling letter": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", r"bad castling field 'KQkx'"),
    "castling twice": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKq - 0 1", r"bad castling field 'KKq'"),
    # en passant
    "ep on the wrong rank": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", r"impossible en-passant square 'e3'"),
    "ep without the pawn": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", r"impossible en-passant square 'e6'"),
    "ep behind an occupied square": ("rnbqkbnr/pppp1ppp/4p3/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", r"impossible en-passant square 'e6'"),
    "ep for the wrong side": ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", r"impossible en-passant square 'e3'"),
    "ep not a square": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", r"bad en-passant field 'e9'"),
    # the side that just moved left its king in check
    "white to move, black in check": ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", r"the side not to move \(b\) is in check"),
    "black to move, white in check": ("4k3/8/8/8/8/5n2/8/6K1 b - - 0 1", r"the side not to move \(w\) is in check"),
    "kings touching": ("8/8/8/8/8/8/8/Kk6 w - - 0 1", r"the side not to move \(b\) is in check"),
    # clocks
    "halfmove not a number": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", r"halfmove clock must be an integer .*'x'"),
    "negative halfmove": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", r"halfmove clock must be an integer .*'-1'"),
    "negative fullmove": ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -1", r"fullmove number must be an integer .*'-1'"),
}  # fmt: skip


@pytest.mark.parametrize("fen,message", BAD_FENS.values(), ids=BAD_FENS.keys())
def test_invalid_fen_names_the_fault(fen, message):
    with pytest.raises(InvalidFEN, match=message) as info:
        Position.from_fen(fen)
    assert isinstance(info.value, ValueError)


def test_side_not_to_move_in_check_is_refused_by_position_with_nothing_changed():
    """fen.py (plain Python) accepts the text; Position refuses it with the same InvalidFEN."""
    from transpo.core.fen import parse_fen

    fen = "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"
    parse_fen(fen)  # placement, fields and clocks are fine
    p = Position()
    with pytest.raises(InvalidFEN, match=r"the side not to move \(b\) is in check"):
        p = Position.from_fen(fen)
    assert p.fen() == START_FEN


def test_fen_module_imports_no_numba():
    """FEN text <-> arrays is plain Python: importing it must not load numba."""
    code = "import sys, transpo.core.fen; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize(
    "fen,message",
    [
        ("4k3/8/8/8/8/8/8/4K3 w - - 99999999999999999999999 1", "halfmove clock"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999999999999999", "fullmove number"),
        ("4k3/8/8/8/8/8/8/4K3 w - - \u00b2 1", "halfmove clock"),  # '²' passes str.isdigit, not int()
        ("4k3/8/8/8/8/8/8/4K3 w - - \u0663 1", "halfmove clock"),  # Arabic-Indic three
    ],
    ids=["huge halfmove", "huge fullmove", "superscript digit", "non-ASCII digit"],
)
def test_clock_out_of_range_or_not_ascii_is_invalid_fen(fen, message):
    """Regression: these raised OverflowError / plain ValueError / were accepted (fixed in fen._counter)."""
    with pytest.raises(InvalidFEN, match=message):
        Position.from_fen(fen)


@pytest.mark.parametrize("fen", [None, 42, b"8/8/8/8/8/8/8/8 w - - 0 1"], ids=["None", "int", "bytes"])
def test_non_string_fen_is_invalid_fen(fen):
    """Regression: a non-string FEN raised AttributeError."""
    with pytest.raises(InvalidFEN):
        Position.from_fen(fen)


def test_valid_edge_fens_are_accepted():
    """The validation must not refuse legal positions at its edges."""
    for fen in [
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",  # bare kings
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # ep that can be taken
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",  # ep nobody can take: accepted, dropped
        "4k3/8/8/8/8/8/8/4R1K1 b - - 0 1",  # the side to move may be in check
        "r3k2r/8/8/8/8/8/8/R3K2R w Qk - 0 1",  # a subset of rights
    ]:
        Position.from_fen(fen)


# --- moves ------------------------------------------------------------------------------------------
MALFORMED = ["e2", "e2e9", "xx", "", " ", "e2e4 ", " e2e4", "E2E4", "e2-e4", "e7e8k", "e2e4qq", "0000", "i2i4", None, 42, b"e2e4"]
ILLEGAL = ["e2e5", "e1g1", "e1c1", "a7a8q", "e7e5", "g1g3", "e2e4q", "d1d3", "a1a1"]


def _full_state(p: Position) -> dict:
    return {
        "fen": p.fen(),
        "key": p.key,
        "board": p.board.copy(),
        "state": p.state.copy(),
        "keys": p.keys.copy(),
        "undo": p.undo.copy(),
        "moves": list(p.moves),
        "legal": p.legal_moves(),
    }


def _assert_unchanged(p: Position, before: dict) -> None:
    after = _full_state(p)
    for name in ("fen", "key", "moves", "legal"):
        assert after[name] == before[name], name
    for name in ("board", "state", "keys", "undo"):
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)


@pytest.mark.parametrize("after", ["", "e2e4 c7c5 g1f3"], ids=["start", "after 3 moves"])
@pytest.mark.parametrize("move", MALFORMED, ids=[repr(m) for m in MALFORMED])
def test_malformed_move_raises_and_changes_nothing(after, move):
    p = Position()
    for m in after.split():
        p.push(m)
    before = _full_state(p)
    with pytest.raises(IllegalMove, match="malformed move"):
        p.push(move)
    _assert_unchanged(p, before)


@pytest.mark.parametrize("move", ILLEGAL)
def test_illegal_move_raises_and_changes_nothing(move):
    p = Position()
    p.push("g1f3")
    p.push("g8f6")
    before = _full_state(p)
    with pytest.raises(IllegalMove, match=f"illegal move {move}"):
        p.push(move)
    _assert_unchanged(p, before)


@pytest.mark.parametrize(
    "fen,move",
    [
        ("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8"),  # promotion without a piece
        ("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1", "b2b3q"),  # promotion piece on a quiet move
        ("4k3/8/8/8/8/8/4r3/4K2R w K - 0 1", "e1g1"),  # castling out of check
        ("4k3/8/8/8/8/8/8/R3K2r w Q - 0 1", "e1c1"),  # castling while in check
        ("5r2/4k3/8/8/8/8/8/4K2R w K - 0 1", "e1g1"),  # castling through an attacked square
        ("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", "e1d1"),  # king steps into the rook's file
        ("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1", "e1f2"),  # ... or onto its rank
        ("8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1", "e4d3"),  # en passant exposing the king on the rank
        ("4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1", "e2d3"),  # pinned bishop leaves the line
    ],
)
def test_illegal_special_moves_raise(fen, move):
    p = Position.from_fen(fen)
    assert move not in p.legal_moves()
    before = _full_state(p)
    with pytest.raises(IllegalMove):
        p.push(move)
    _assert_unchanged(p, before)
