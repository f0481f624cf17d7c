"""A small pure-Python search over python-chess: the UCI engine's answer while numba compiles.

The first start on a machine compiles the numba core and search (about 9 s on the
development machine).  A GUI that sends ``go`` with a clock in that time must still get a
legal, sensible move in time, so the UCI front end answers it with this search:
iterative-deepening alpha-beta with a capture-only quiescence, MVV-LVA ordering, the
previous iteration's best move first, and PeSTO's tapered piece-square evaluation
(the same published values the compiled engine starts from), stopped by a deadline or
a ``stop``.  It needs nothing compiled and starts in milliseconds; it searches a few
thousand nodes per second, enough for two or three plies plus captures.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import chess

from transpo.engine.pesto import EG_TABLES, EG_VALUE, MG_TABLES, MG_VALUE, PHASE_INC, PHASE_MAX

MATE_SCORE = 30000  # a mate at the root; mate in n plies scores MATE_SCORE - n
INFINITY = 32000
CHECK_EVERY = 256  # nodes between looks at the clock and the stop flag
MAX_DEPTH = 64
VICTIM_ORDER = (0, 1, 3, 3, 5, 9, 0)  # by python-chess piece type (1 pawn .. 6 king), for MVV-LVA


def _square_tables() -> tuple[list[list[list[int]]], list[list[list[int]]]]:
    """[colour][piece type][square] middlegame and endgame values, material included (python-chess squares)."""
    mg = [[[0] * 64 for _ in range(7)] for _ in range(2)]
    eg = [[[0] * 64 for _ in range(7)] for _ in range(2)]
    for kind in range(6):
        for square in range(64):
            for colour, index in ((chess.WHITE, square), (chess.BLACK, square ^ 56)):
                mg[colour][kind + 1][square] = MG_VALUE[kind] + MG_TABLES[kind][index]
                eg[colour][kind + 1][square] = EG_VALUE[kind] + EG_TABLES[kind][index]
    return mg, eg


MG_SQUARE, EG_SQUARE = _square_tables()


def evaluate(board: chess.Board) -> int:
    """PeSTO's tapered score in centipawns, from the side to move's point of view."""
    mg = [0, 0]
    eg = [0, 0]
    phase = 0
    for square, piece in board.piece_map().items():
        colour = piece.color
        mg[colour] += MG_SQUARE[colour][piece.piece_type][square]
        eg[colour] += EG_SQUARE[colour][piece.piece_type][square]
        phase += PHASE_INC[piece.piece_type - 1]
    phase = min(phase, PHASE_MAX)
    us, them = board.turn, not board.turn
    return ((mg[us] - mg[them]) * phase + (eg[us] - eg[them]) * (PHASE_MAX - phase)) // PHASE_MAX


@dataclass
class QuickResult:
    """What the quick search found: the best move (UCI text, None without legal moves) and its line."""

    best_move: str | None
    score: int = 0
    depth: int = 0
    nodes: int = 0
    pv: list[str] = field(default_factory=list)


class _OutOfTime(Exception):
    """The deadline passed or ``stop`` came: the iteration in progress is abandoned."""


class QuickSearch:
    """One search of one position; :meth:`run` deepens until the deadline, ``stop`` or ``max_depth``."""

    def __init__(self, board: chess.Board, deadline: float | None, stop: threading.Event | None = None) -> None:
        """``deadline``: a ``time.monotonic()`` value (None: until ``stop``); the board is copied."""
        self.board = board.copy(stack=True)
        self.deadline = deadline
        self.stop = stop or threading.Event()
        self.nodes = 0

    def run(
        self, max_depth: int = MAX_DEPTH, on_iteration: Callable[[QuickResult], None] | None = None
    ) -> QuickResult:
        """Iterative deepening; the last finished iteration's move (the first ordered move if none finished)."""
        moves = self._ordered(list(self.board.legal_moves), None)
        if not moves:
            return QuickResult(None)
        result = QuickResult(moves[0].uci(), depth=0)
        best: chess.Move | None = None
        for depth in range(1, max_depth + 1):
            try:
                score, line = self._root(depth, best)
            except _OutOfTime:
                break
            best = line[0]
            result = QuickResult(best.uci(), score, depth, self.nodes, [move.uci() for move in line])
            if on_iteration:
                on_iteration(result)
            if abs(score) > MATE_SCORE - MAX_DEPTH or len(moves) == 1:
                break  # a mate is found, or the move is forced
        result.nodes = self.nodes
        return result

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0 and (
            self.stop.is_set() or (self.deadline is not None and time.monotonic() >= self.deadline)
        ):
            raise _OutOfTime

    def _root(self, depth: int, first: chess.Move | None) -> tuple[int, list[chess.Move]]:
        alpha = -INFINITY
        line: list[chess.Move] = []
        for move in self._ordered(list(self.board.legal_moves), first):
            self.board.push(move)
            score, child = self._negamax(depth - 1, -INFINITY, -alpha, 1)
            self.board.pop()
            score = -score
            if score > alpha or not line:
                alpha, line = score, [move, *child]
        return alpha, line

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> tuple[int, list[chess.Move]]:
        self._tick()
        board = self.board
        if board.is_checkmate():
            return -(MATE_SCORE - ply), []
        if board.is_stalemate() or board.is_insufficient_material() or board.halfmove_clock >= 100:
            return 0, []
        if board.is_repetition(2):
            return 0, []
        if depth <= 0:
            return self._quiesce(alpha, beta), []
        best_line: list[chess.Move] = []
        for move in self._ordered(list(board.legal_moves), None):
            board.push(move)
            score, child = self._negamax(depth - 1, -beta, -alpha, ply + 1)
            board.pop()
            score = -score
            if score > alpha:
                alpha, best_line = score, [move, *child]
                if alpha >= beta:
                    break
        return alpha, best_line

    def _quiesce(self, alpha: int, beta: int) -> int:
        self._tick()
        stand_pat = evaluate(self.board)
        if stand_pat >= beta:
            return stand_pat
        alpha = max(alpha, stand_pat)
        for move in self._ordered(list(self.board.generate_legal_captures()), None):
            self.board.push(move)
            score = -self._quiesce(-beta, -alpha)
            self.board.pop()
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
        return alpha

    def _ordered(self, moves: list[chess.Move], first: chess.Move | None) -> list[chess.Move]:
        """``first``, then captures and promotions by MVV-LVA, then the quiet moves."""
        board = self.board

        def key(move: chess.Move) -> int:
            if move == first:
                return 1_000_000
            score = 0
            if board.is_capture(move):
                victim = board.piece_type_at(move.to_square) or chess.PAWN  # en passant
                score += 1000 + 10 * VICTIM_ORDER[victim] - VICTIM_ORDER[board.piece_type_at(move.from_square)]
            if move.promotion:
                score += 900 + VICTIM_ORDER[move.promotion]
            return score

        return sorted(moves, key=key, reverse=True)
