"""Games of any length, and the FEN leniencies python-chess has (dropped castling rights, fullmove 0).

A ``Position`` keeps its key history and undo stack in fixed-size arrays; a game
longer than ``MAX_GAME_PLIES`` compacts them (the last ``HISTORY_KEEP`` plies are
kept).  These tests check that the game state after a compaction still agrees with
python-chess, and that the search sees the same history as in a short game.
"""

from __future__ import annotations

import chess
import pytest

from transpo import IllegalMove, InvalidFEN, Position, Status
from transpo.core.board import HISTORY_KEEP, MAX_GAME_PLIES, ST_PLY

CYCLE = ["g1f3", "g8f6", "f3g1", "f6g8"]


def _python_chess_status(board: chess.Board) -> Status:
    """What ``Position.status`` should say, in its order of precedence, from python-chess."""
    if board.is_checkmate():
        return Status.CHECKMATE
    if board.is_stalemate():
        return Status.STALEMATE
    if board.is_insufficient_material():
        return Status.INSUFFICIENT_MATERIAL
    if board.halfmove_clock >= 100:
        return Status.FIFTY_MOVE
    if board.is_repetition(3):
        return Status.THREEFOLD_REPETITION
    return Status.ONGOING


def _play(moves: list[str], fen: str | None = None) -> tuple[Position, chess.Board]:
    position = Position() if fen is None else Position.from_fen(fen)
    board = chess.Board() if fen is None else chess.Board(fen)
    for move in moves:
        position.push(move)
        board.push_uci(move)
    return position, board


def test_twenty_thousand_plies_of_knight_shuffles():
    moves = CYCLE * 5000
    position, board = _play(moves)
    assert position.dropped_plies > 0
    assert int(position.state[ST_PLY]) <= MAX_GAME_PLIES
    assert position.fen() == board.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 20000 10001"
    assert position.key == Position().key
    assert position.status() is _python_chess_status(board) is Status.FIFTY_MOVE
    assert position.is_repetition(3)
    # pop works for the kept plies, then says why it cannot go further
    kept = len(position.moves)
    assert HISTORY_KEEP <= kept <= MAX_GAME_PLIES
    for _ in range(kept):
        position.pop()
    with pytest.raises(IndexError, match="keeps only its last"):
        position.pop()


def test_repetition_after_a_compaction_matches_python_chess():
    # 2040 plies of shuffles, a pawn move each (the last irreversible moves), then shuffles that
    # cross the compaction at ply 2048: threefold repetition must be seen across it.
    prefix = CYCLE * 510
    tail = ["e2e4", "e7e5"] + CYCLE * 3 + ["b1c3", "b8c6", "c3b1", "c6b8"] * 2
    position, board = _play(prefix)
    for move in tail:
        position.push(move)
        board.push_uci(move)
        assert position.status() is _python_chess_status(board), (move, len(board.move_stack))
        assert position.is_repetition(2) == board.is_repetition(2)
        assert position.fen() == board.fen()
    assert position.dropped_plies > 0
    assert position.status() is Status.THREEFOLD_REPETITION


def test_search_sees_the_same_history_after_a_compaction():
    """A fixed-depth search from a compacted long game equals the one from the short game with the
    same moves since the last pawn move, and differs from a search with no history at all: with
    every root move scored (MultiPV), the move back to a position of the history is a draw, 0."""
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    tail = ["e2e4", "e7e5"] + CYCLE * 2 + ["g1f3", "g8f6", "f3g1"]  # Black to move; ...f6g8 repeats
    long_game, _ = _play(CYCLE * 510 + tail)
    short_game, _ = _play(tail)
    assert long_game.dropped_plies > 0
    no_history = Position.from_fen(short_game.fen())

    def search(position: Position):
        result = Engine(hash_mb=1, multipv=64).search(position, Limits(depth=4))
        return result.best_move, result.nodes, {line.pv[0]: line.score for line in result.lines}

    assert search(long_game) == search(short_game)
    assert search(short_game)[2]["f6g8"] == 0
    assert search(no_history)[2]["f6g8"] != 0  # without the history the knight's return is no draw


def test_divide_and_perft_across_a_compaction():
    position, _ = _play(CYCLE * (MAX_GAME_PLIES // 4))
    assert int(position.state[ST_PLY]) == MAX_GAME_PLIES
    assert position.perft(2) == 400
    assert sum(position.divide(2).values()) == 400
    assert position.fen().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ")


def test_copy_after_a_compaction_is_independent():
    position, _ = _play(CYCLE * 520)
    other = position.copy()
    other.push("e2e4")
    assert position.fen() != other.fen()
    assert position.dropped_plies == other.dropped_plies


# --- FEN leniencies --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fen,dropped,expected",
    [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
            "K",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1",
        ),
        ("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", "KQkq", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        ("r4k1r/8/8/8/8/8/8/R3K2R w KQkq - 3 9", "kq", "r4k1r/8/8/8/8/8/8/R3K2R w KQ - 3 9"),
    ],
)
def test_clean_castling_drops_rights_like_python_chess(fen, dropped, expected):
    with pytest.raises(InvalidFEN, match="castling right"):
        Position.from_fen(fen)  # strict by default (the command line)
    position = Position.from_fen(fen, clean_castling=True)
    assert position.dropped_castling == dropped
    assert position.fen() == expected == chess.Board(fen).fen()
    assert sorted(position.legal_moves()) == sorted(m.uci() for m in chess.Board(fen).legal_moves)


def test_clean_castling_still_refuses_a_malformed_field():
    for field in ("KQkx", "KKq"):
        with pytest.raises(InvalidFEN, match="bad castling field"):
            Position.from_fen(f"4k3/8/8/8/8/8/8/4K3 w {field} - 0 1", clean_castling=True)


def test_fullmove_zero_is_accepted_and_written_as_one():
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0"
    position = Position.from_fen(fen)
    assert position.fen() == chess.Board(fen).fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    position.push("e2e4")
    position.push("e7e5")
    assert position.fen().endswith(" 0 2")
    with pytest.raises(InvalidFEN, match="fullmove number"):
        Position.from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -1")


def test_illegal_move_in_a_long_game_changes_nothing():
    position, _ = _play(CYCLE * 600)
    before = position.fen(), position.key, len(position.moves)
    with pytest.raises(IllegalMove):
        position.push("e2e5")
    assert (position.fen(), position.key, len(position.moves)) == before


def test_two_digits_in_a_row_are_refused_like_python_chess():
    fen = "4k3/8/8/8/44/8/8/4K3 w - - 0 1"
    with pytest.raises(ValueError):
        chess.Board(fen)
    with pytest.raises(InvalidFEN, match=r"rank 4 \('44'\) has two digits in a row"):
        Position.from_fen(fen)


def test_perft_deeper_than_the_history_allows_is_refused():
    with pytest.raises(ValueError, match="perft depth must be from 0 to 128, not 129"):
        Position().perft(129)
    with pytest.raises(ValueError, match="not -1"):
        Position().perft(-1)
