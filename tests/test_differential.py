"""Differential test against python-chess on positions reached by seeded random playouts.

For every position: the same legal move set, the same FEN (python-chess's
``en_passant="xfen"``, i.e. the en-passant square only when a pawn of the side to
move stands beside the pawn - PolyGlot's rule), a lossless FEN round trip, the
same PolyGlot key, the same check flag and the same mate/stalemate verdict.
Taking the playout back with ``pop`` must retrace the same FENs and keys.
"""

from __future__ import annotations

import random
from collections import Counter

import chess
import chess.polyglot
import pytest

from transpo import START_FEN, Position, Status

SEED = 20240611
MIN_POSITIONS = 6000
MAX_PLIES = 120

START_FENS = [
    START_FEN,
    # Kiwipete: castling both ways, pins, en passant.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    # CPW position 3: en passant along a rank with the king beside (discovered check).
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    # CPW position 4 and its mirror: promotions with capture, castling under attack.
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    # CPW position 5.
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    # Pawns one step from promotion for both sides, rooks on the promotion squares' neighbours.
    "rn2k1nr/P1P3PP/8/8/8/8/p1p3pp/RN2K1NR w KQkq - 0 1",
    "4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1",
    "1r2k2r/2P3P1/8/8/8/8/2p3p1/1R2K2R b Kk - 0 1",
    # En passant available at the start, one of them pinned along the rank.
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
    # Open position with every castling right and few pieces in the way.
    "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    # Pawn races where double steps meet enemy pawns (en passant).
    "4k3/p1p1p1p1/8/1P1P1P1P/1p1p1p1p/8/P1P1P1P1/4K3 w - - 0 1",
    # Lone kings against queen or rook: random play runs into mates and stalemates.
    "8/8/8/4k3/8/8/8/1Q2K3 w - - 0 1",
    "8/8/3k4/8/8/8/1R6/4K3 b - - 0 1",
]

KINDS = ("capture", "promotion", "underpromotion", "castling", "en passant", "check", "checkmate", "stalemate")


def _kinds_of(board: chess.Board, move: chess.Move) -> list[str]:
    kinds = []
    if board.is_capture(move):
        kinds.append("capture")
    if move.promotion:
        kinds.append("promotion")
        if move.promotion != chess.QUEEN:
            kinds.append("underpromotion")
    if board.is_castling(move):
        kinds.append("castling")
    if board.is_en_passant(move):
        kinds.append("en passant")
    if board.gives_check(move):
        kinds.append("check")
    return kinds


def _offers_en_passant(board: chess.Board, move: chess.Move) -> bool:
    """A double pawn step that lands beside an enemy pawn."""
    if board.piece_type_at(move.from_square) != chess.PAWN or abs(move.to_square - move.from_square) != 16:
        return False
    enemy_pawns = board.pieces(chess.PAWN, not board.turn)
    rank, file = divmod(move.to_square, 8)
    return any(0 <= f < 8 and chess.square(f, rank) in enemy_pawns for f in (file - 1, file + 1))


def _ends_game(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    over = not any(board.generate_legal_moves())
    board.pop()
    return over


def _pick(rng: random.Random, board: chess.Board, moves: list[chess.Move]) -> chess.Move:
    """Mostly uniform, but often prefer a special move so that every kind shows up many times."""
    if rng.random() < 0.6:
        few_pieces = chess.popcount(board.occupied) <= 6
        enders = [m for m in moves if (few_pieces or board.gives_check(m)) and _ends_game(board, m)]
        if enders:
            return rng.choice(enders)
        special = [
            m
            for m in moves
            if m.promotion or board.is_castling(m) or board.is_en_passant(m) or _offers_en_passant(board, m)
        ]
        if special:
            return rng.choice(special)
    return rng.choice(moves)


def _compare(p: Position, board: chess.Board) -> None:
    ours = sorted(p.legal_moves())
    theirs = sorted(m.uci() for m in board.legal_moves)
    fen = board.fen(en_passant="xfen")
    assert ours == theirs, f"legal moves differ in {fen}: extra {set(ours) - set(theirs)}, missing {set(theirs) - set(ours)}"
    assert len(ours) == len(set(ours)), f"duplicate moves in {fen}"
    assert p.fen() == fen
    assert p.key == chess.polyglot.zobrist_hash(board), fen
    again = Position.from_fen(fen)
    assert again.fen() == fen
    assert again.key == p.key
    assert p.is_check() == board.is_check(), fen
    if not theirs:
        assert p.status() == (Status.CHECKMATE if board.is_checkmate() else Status.STALEMATE), fen


@pytest.fixture(scope="module")
def playout_report() -> dict:
    """Run the playouts once (comparing every position) and report what they covered."""
    rng = random.Random(SEED)
    played: Counter[str] = Counter()  # moves of each kind played on the way
    available: Counter[str] = Counter()  # positions where a move of that kind was legal
    positions = 0
    distinct: set[int] = set()
    game = 0
    while positions < MIN_POSITIONS:
        fen = START_FENS[game % len(START_FENS)]
        game += 1
        p, board = Position.from_fen(fen), chess.Board(fen)
        trail = []
        for _ply in range(rng.randint(10, MAX_PLIES)):
            _compare(p, board)
            positions += 1
            distinct.add(p.key)
            moves = sorted(board.legal_moves, key=chess.Move.uci)
            if not moves:
                played["checkmate" if board.is_check() else "stalemate"] += 1
                break
            if board.halfmove_clock >= 100:
                break
            for kind in {k for m in moves for k in _kinds_of(board, m)}:
                available[kind] += 1
            move = _pick(rng, board, moves)
            for kind in _kinds_of(board, move):
                played[kind] += 1
            trail.append((p.fen(), p.key))
            p.push(move.uci())
            board.push(move)
        # Take the whole playout back: every pop must restore the FEN and the key.
        while trail:
            fen_before, key_before = trail.pop()
            p.pop()
            assert (p.fen(), p.key) == (fen_before, key_before)
        with pytest.raises(IndexError):
            p.pop()
    return {"positions": positions, "distinct": len(distinct), "played": played, "available": available, "games": game}


def test_playouts_agree_with_python_chess(playout_report):
    assert playout_report["positions"] >= MIN_POSITIONS
    assert playout_report["distinct"] >= 0.9 * MIN_POSITIONS


@pytest.mark.parametrize("kind", KINDS)
def test_playouts_cover_every_kind_of_move(playout_report, kind):
    """The compared set really contains captures, promotions, castling, en passant, checks, mates."""
    minimum = 3 if kind in ("checkmate", "stalemate") else 25
    assert playout_report["played"][kind] >= minimum, playout_report["played"]
    if kind not in ("checkmate", "stalemate"):
        assert playout_report["available"][kind] >= minimum, playout_report["available"]


def test_known_special_positions_agree_with_python_chess():
    """Hand-picked positions at the edges: every start FEN and a few rule corner cases."""
    extra = [
        # Black may not castle through the attacked f8; white may castle queen-side past an attacked b1.
        "r3k2r/8/8/8/8/8/8/1r2K2R w Kkq - 0 1",
        "r3k2r/8/8/8/8/8/5R2/R3K3 b Qkq - 0 1",
        # En passant that would expose the king on a diagonal.
        "8/1k6/8/8/3Pp3/8/6B1/4K3 b - d3 0 1",
        "8/8/3k4/8/2pP4/8/B7/4K3 b - d3 0 1",
        # Double check: only king moves.
        "4k3/8/8/8/8/8/3n4/r3K3 w - - 0 1",
        # Checkmate and stalemate.
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ]
    for fen in START_FENS + extra:
        board = chess.Board(fen)
        assert board.is_valid(), fen
        _compare(Position.from_fen(fen), board)
