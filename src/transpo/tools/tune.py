"""``transpo tune``: the evaluation's weights fitted to game results (Texel's tuning method).

Two steps, each a subcommand:

* ``positions``: PGN games -> quiet positions labelled with the game's result, as
  EPD lines ``<position> hmvc H; fmvn F; c8 "<group>"; c9 "<result>";`` where the
  result is ``1-0``, ``0-1`` or ``1/2-1/2`` (the convention of the published
  Texel sets, e.g. zurichess's ``quiet-labeled.epd``) and the group names the
  game's opening (its ``Opening`` header, else its ``FEN`` header, else
  ``file#game``).  A position is *quiet* when the side to move is not in check,
  the move played from it is neither a capture nor a promotion, and the move
  that led to it was not a capture: its static evaluation then means something
  without a search.
* ``score`` (optional): EPD -> the same positions labelled instead by a UCI
  engine's score (Stockfish by default, at a fixed depth), turned into White's
  expected result ``1 / (1 + 10^(-cp / 400))`` and written in ``c9`` as a number
  (``c9 "0.6234"``).  A game's result labels all its positions alike, right or
  wrong for each; a deeper engine's judgement of each position is a far less
  noisy target.  The engine is a tool here, never part of Transpo's play.
* ``fit``: EPD -> the evaluation's features of every position
  (:func:`transpo.engine.evaluate.feature_rows`) -> the scale ``K`` that best
  turns the current evaluation into an expected result, then every term weight
  (middlegame and endgame; with ``--psq`` also the piece-square values,
  material included) by full-batch Adam on that loss with ``K`` fixed.

The loss is Texel's: the mean squared error between the result r (1, 0.5, 0
for White) and ``1 / (1 + 10^(-K * s / 400))``, s the evaluation from White's
view.  s is linear in every weight (:mod:`transpo.engine.terms`), so the
gradient is a few matrix products (the endgame half is scaled by each
position's ``eg_scale``, read once with the features).  The model scales and
tapers in floating point where the engine rounds towards zero: the two differ
by less than 2 cp.  With ``--psq`` the scale stays the one of the starting
tables, although the side ahead it is taken for may change as they move.

Held-out positions keep the figures honest: a fraction of the groups (whole
openings, never single positions: the two games of a pair share their opening
moves and so their first positions) is left out of the fit, and the loss on
it is reported before and after.  Sources: Peter Österlund's description of the
method, https://www.chessprogramming.org/Texel%27s_Tuning_Method, and Kingma and
Ba, "Adam: a method for stochastic optimization" (arXiv:1412.6980).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from transpo.tools.openings import epd_records

RESULTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}
ENGINE_SCALE_CP = 400.0  # tune score: an engine's cp turned into an expected result 1 / (1 + 10^(-cp / 400))
DEFAULT_SCORE_DEPTH = 8  # tune score: the engine's depth when neither --depth nor --nodes is given
MATE_CP = 10_000  # tune score: a mate counts as this many centipawns (an expected result of 1 or 0)
RESULT_OP = "c9"  # the EPD operation that holds the game's result
GROUP_OP = "c8"  # the EPD operation that holds the game's group (for the validation split)
SCORE_SCALE = 400.0  # centipawns in the sigmoid 1 / (1 + 10^(-K s / 400))
ROW_CHUNK = 4096  # positions per feature_rows call (the progress bar advances per chunk)
MAX_PIECES = 32  # piece slots per position in the piece-square index arrays
CHECKPOINTS = 10  # lines of the loss-by-epoch table
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-12  # the gradients of a mean squared probability error are tiny: 1e-8 would damp rare terms
PRIOR_CP = 100.0  # --l2: a weight this many centipawns from its start costs l2 in the loss
FINAL_LR_SHARE = 0.1  # the step shrinks linearly to this share of --lr, so the weights settle instead of jittering
PAWN_RANKS_1_8 = np.zeros((6, 64), dtype=bool)  # --keep-material: [piece type, own square] no pawn stands on
PAWN_RANKS_1_8[0, :8] = PAWN_RANKS_1_8[0, 56:] = True


# --- step 1: quiet positions from games -----------------------------------------------------


@dataclass
class PositionCounts:
    """What ``tune positions`` read, dropped and kept."""

    games: int = 0
    unfinished: int = 0  # result "*" or none: no label
    unreadable: int = 0  # python-chess met an illegal or unreadable move
    plies: int = 0  # positions a move was played from, in the games used
    dropped: Counter = field(default_factory=Counter)  # reason -> positions
    quiet: int = 0
    written: int = 0


def _drop_reason(board: chess.Board, move: chess.Move, ply: int, skip_plies: int, after_capture: bool) -> str:
    """Why the position ``board``, from which ``move`` was played, is not fit data ("" if it is kept)."""
    if ply < skip_plies:
        return "opening plies"
    if board.is_check():
        return "in check"
    if board.is_capture(move) or move.promotion:
        return "capture or promotion played"
    if after_capture:
        return "reached by a capture"
    return ""


def _group(game: chess.pgn.Game, source: str, number: int) -> str:
    """The game's validation group: its opening (a match plays each twice), else the game itself."""
    headers = game.headers
    return headers.get("Opening") or headers.get("FEN") or f"{source}#{number}"


def quiet_positions(game: chess.pgn.Game, skip_plies: int, counts: PositionCounts) -> list[chess.Board]:
    """Copies of the quiet positions of ``game``'s main line (counting what is dropped in ``counts``)."""
    board = game.board()
    kept: list[chess.Board] = []
    after_capture = False
    for ply, move in enumerate(game.mainline_moves()):
        counts.plies += 1
        reason = _drop_reason(board, move, ply, skip_plies, after_capture)
        if reason:
            counts.dropped[reason] += 1
        else:
            kept.append(board.copy(stack=False))
        after_capture = board.is_capture(move)
        board.push(move)
    counts.quiet += len(kept)
    return kept


def read_games(paths: Sequence[str | Path]) -> Iterator[tuple[str, int, chess.pgn.Game]]:
    """(file name, game number in the file, game) of every game of the PGN files, in order."""
    for path in map(Path, paths):
        with open(path, encoding="utf-8", errors="replace") as handle:
            number = 0
            while (game := chess.pgn.read_game(handle)) is not None:
                number += 1
                yield path.name, number, game


def labelled_lines(
    paths: Sequence[str | Path], skip_plies: int, per_game: int | None, seed: int, counts: PositionCounts
) -> Iterator[str]:
    """The EPD lines of ``tune positions``: up to ``per_game`` quiet positions of each finished game."""
    rng = random.Random(seed)
    for source, number, game in read_games(paths):
        counts.games += 1
        result = game.headers.get("Result", "*")
        if result not in RESULTS:
            counts.unfinished += 1
            continue
        if game.errors:
            counts.unreadable += 1
            continue
        boards = quiet_positions(game, skip_plies, counts)
        if per_game is not None and len(boards) > per_game:
            boards = [boards[i] for i in sorted(rng.sample(range(len(boards)), per_game))]
        group = _group(game, source, number)
        for board in boards:
            counts.written += 1
            yield board.epd(hmvc=board.halfmove_clock, fmvn=board.fullmove_number, c8=group, c9=result)


def _check_inputs(paths: Sequence[str], kind: str) -> None:
    """ValueError naming the first of ``paths`` that is not a file."""
    for path in paths:
        if not Path(path).is_file():
            raise ValueError(f"no {kind} file {path}")


def _check_output(path: str) -> None:
    """ValueError if ``path`` cannot be an output file (checked before the work, not after it)."""
    out = Path(path)
    if out.is_dir():
        raise ValueError(f"--out {path} is a directory")
    if not out.parent.is_dir():
        raise ValueError(f"--out {path}: no directory {out.parent}")


def run_positions(args: argparse.Namespace) -> PositionCounts:
    """``transpo tune positions``: write the labelled quiet positions and print the counts."""
    _check_inputs(args.pgn, "PGN")
    if args.skip_plies < 0:
        raise ValueError("--skip-plies must be >= 0")
    if args.per_game is not None and args.per_game < 1:
        raise ValueError("--per-game must be >= 1")
    _check_output(args.out)
    counts = PositionCounts()
    command = ["transpo", "tune", "positions", *args.pgn, "--out", args.out, "--skip-plies", str(args.skip_plies),
               *(["--per-game", str(args.per_game)] if args.per_game else []), "--seed", str(args.seed)]  # fmt: skip
    with open(args.out, "w", encoding="utf-8") as out:
        out.write(f"# {shlex.join(command)}\n")
        lines = labelled_lines(args.pgn, args.skip_plies, args.per_game, args.seed, counts)
        out.writelines(line + "\n" for line in lines)
    _print_position_counts(counts, len(args.pgn), args.out)
    return counts


def _print_position_counts(counts: PositionCounts, files: int, out: str) -> None:
    used = counts.games - counts.unfinished - counts.unreadable
    print(f"games: {counts.games} in {files} file(s); used {used}, unfinished ('*') {counts.unfinished}, "
          f"unreadable {counts.unreadable}")  # fmt: skip
    dropped = ", ".join(f"{reason} {n}" for reason, n in counts.dropped.most_common()) or "none"
    print(f"positions with a move played: {counts.plies}; dropped: {dropped}")
    print(f"quiet positions: {counts.quiet}; written: {counts.written} -> {out}")


# --- step 1b (optional): labels from an engine's scores ----------------------------------------


def expected_result(cp: float) -> float:
    """White's expected result for an engine's White-view score in centipawns."""
    return 1.0 / (1.0 + 10.0 ** (-cp / ENGINE_SCALE_CP))


@dataclass
class ScoreCounts:
    """What ``tune score`` scored."""

    positions: int = 0
    mates: int = 0  # positions the engine scored as a forced mate


def scored_lines(
    paths: Sequence[str | Path], analyse: Callable[[chess.Board], chess.engine.PovScore], counts: ScoreCounts
) -> Iterator[str]:
    """The EPD lines of ``tune score``: every position of ``paths``, ``c9`` its expected result by ``analyse``.

    The group (``c8``) is kept, so the validation split of ``fit`` still holds out whole openings.
    """
    for path in map(Path, paths):
        for number, board, ops, fault in epd_records(path):
            if board is None:
                raise ValueError(f"{path}:{number}: {fault}")
            score = analyse(board).white()
            counts.positions += 1
            counts.mates += score.is_mate()
            label = expected_result(score.score(mate_score=MATE_CP))
            group = str(ops.get(GROUP_OP) or f"{path.name}:{number}")
            yield board.epd(hmvc=board.halfmove_clock, fmvn=board.fullmove_number, c8=group, c9=f"{label:.4f}")


def _count_positions(paths: Sequence[str]) -> int:
    return sum(1 for path in paths for _ in epd_records(Path(path)))


def run_score(args: argparse.Namespace) -> ScoreCounts:
    """``transpo tune score``: label the positions by the engine's scores; print the counts."""
    _check_inputs(args.epd, "EPD")
    if args.depth is not None and args.nodes is not None:
        raise ValueError("give --depth or --nodes, not both")
    depth = DEFAULT_SCORE_DEPTH if args.depth is None and args.nodes is None else args.depth
    if min(v for v in (depth, args.nodes) if v is not None) < 1:
        raise ValueError("--depth and --nodes must be >= 1")
    _check_output(args.out)
    limit = chess.engine.Limit(depth=depth, nodes=args.nodes)
    command = ["transpo", "tune", "score", *args.epd, "--out", args.out, "--engine", args.engine,
               *(["--depth", str(depth)] if depth else ["--nodes", str(args.nodes)])]  # fmt: skip
    counts = ScoreCounts()
    total = _count_positions(args.epd)
    try:
        engine = chess.engine.SimpleEngine.popen_uci(shlex.split(args.engine))
    except (OSError, chess.engine.EngineError) as error:
        raise ValueError(f"cannot start engine {args.engine!r}: {error}") from None
    try:
        if "Threads" in engine.options:
            engine.configure({"Threads": 1})

        def analyse(board: chess.Board) -> chess.engine.PovScore:
            return engine.analyse(board, limit)["score"]

        with open(args.out, "w", encoding="utf-8") as out, _progress() as progress:
            out.write(f"# {shlex.join(command)}\n")
            task = progress.add_task("scoring", total=total)
            for line in scored_lines(args.epd, analyse, counts):
                out.write(line + "\n")
                progress.advance(task)
    finally:
        engine.quit()
    print(f"positions scored: {counts.positions} (forced mates {counts.mates}) by {args.engine} -> {args.out}")
    return counts


# --- step 2: the fit -------------------------------------------------------------------------


@dataclass(frozen=True)
class Labelled:
    """Positions with their game results (White's score) and validation groups."""

    fens: list[str]
    results: np.ndarray  # float64[n]: 1, 0.5, 0 (game results) or an engine's expected result
    groups: list[str]


def _label(value: object) -> float | None:
    """White's score in a ``c9`` operation: a game result, or an expected result in [0, 1] (``tune score``)."""
    if value in RESULTS:
        return RESULTS[value]
    try:
        number = float(str(value))
    except ValueError:
        return None
    return number if 0.0 <= number <= 1.0 else None


def read_labelled(paths: Sequence[str | Path]) -> Labelled:
    """The positions of labelled EPD files; ValueError naming a line that has no position or no result."""
    fens: list[str] = []
    results: list[float] = []
    groups: list[str] = []
    for path in map(Path, paths):
        for number, board, ops, fault in epd_records(path):
            if board is None:
                raise ValueError(f"{path}:{number}: {fault}")
            label = _label(ops.get(RESULT_OP))
            if label is None:
                raise ValueError(
                    f'{path}:{number}: no label ({RESULT_OP} "1-0", "0-1", "1/2-1/2" or an expected result 0..1)'
                )
            fens.append(board.fen())
            results.append(label)
            groups.append(str(ops.get(GROUP_OP) or f"{path.name}:{number}"))
    return Labelled(fens, np.array(results, dtype=np.float64), groups)


@dataclass(frozen=True)
class FitData:
    """The linear pieces of the evaluation of every position, as the fit needs them (White's view)."""

    features: np.ndarray  # float64[n, N_TERMS]: term counts times their weight unit (terms.WEIGHT_UNIT)
    psq_mg: np.ndarray  # float64[n]: piece-square sums under the current tables
    psq_eg: np.ndarray
    mg_share: np.ndarray  # float64[n]: phase / PHASE_MAX, the middlegame part of the taper
    eg_share: np.ndarray  # float64[n]: (1 - mg_share) * eg_scale / SCALE_FULL, the endgame part (scaled)
    pieces: np.ndarray  # int64[n, MAX_PIECES]: piece type * 64 + square seen from its own side
    signs: np.ndarray  # float64[n, MAX_PIECES]: +1 White, -1 Black, 0 an empty slot
    results: np.ndarray  # float64[n]

    def subset(self, mask: np.ndarray) -> FitData:
        """The rows where ``mask`` holds."""
        return FitData(*(getattr(self, name)[mask] for name in self.__dataclass_fields__))

    def __len__(self) -> int:
        return len(self.results)


def _progress() -> Progress:
    """A progress bar on stderr that vanishes when done (and shows nothing when stderr is not a terminal)."""
    console = Console(stderr=True)
    return Progress(console=console, transient=True, disable=not console.is_terminal)


def piece_indices(fen: str) -> tuple[np.ndarray, np.ndarray]:
    """(index, sign) of every piece of ``fen`` into ``[6 * 64]`` piece-square values: Black's squares mirrored."""
    board = chess.Board(fen)
    index = np.zeros(MAX_PIECES, dtype=np.int64)
    sign = np.zeros(MAX_PIECES, dtype=np.float64)
    for slot, (square, piece) in enumerate(board.piece_map().items()):
        own_square = square if piece.color == chess.WHITE else square ^ 56
        index[slot] = (piece.piece_type - 1) * 64 + own_square
        sign[slot] = 1.0 if piece.color == chess.WHITE else -1.0
    return index, sign


def _rows_with_progress(fens: list[str]):
    """:func:`transpo.engine.evaluate.feature_rows` of ``fens``, in chunks so that a progress bar can advance."""
    from transpo.engine.evaluate import FeatureRows, feature_rows

    chunks = [feature_rows([])]  # an empty file still gives arrays of the right shapes
    with _progress() as progress:
        task = progress.add_task("features", total=len(fens))
        for start in range(0, len(fens), ROW_CHUNK):
            chunks.append(feature_rows(fens[start : start + ROW_CHUNK]))
            progress.advance(task, len(chunks[-1].fixed))
    return FeatureRows(*(np.concatenate(parts) for parts in zip(*chunks)))


def build_fit_data(labelled: Labelled, with_pieces: bool) -> tuple[FitData, np.ndarray]:
    """The :class:`FitData` of the positions the weights can move, and which labelled positions those are."""
    from transpo.engine.evaluate import SCALE_FULL
    from transpo.engine.pesto import PHASE_MAX
    from transpo.engine.terms import WEIGHT_UNIT

    rows = _rows_with_progress(labelled.fens)
    keep = ~rows.fixed
    n = int(keep.sum())
    pieces = np.zeros((n, MAX_PIECES), dtype=np.int64)
    signs = np.zeros((n, MAX_PIECES), dtype=np.float64)
    if with_pieces:  # only --psq needs them: python-chess per position is the slowest part of reading
        for i, fen in enumerate(fen for fen, kept in zip(labelled.fens, keep) if kept):
            pieces[i], signs[i] = piece_indices(fen)
    mg_share = rows.phase[keep] / PHASE_MAX
    eg_share = (1.0 - mg_share) * rows.eg_scale[keep] / SCALE_FULL
    features = rows.features[keep] * WEIGHT_UNIT  # counts in the units the weights are in
    data = FitData(features, rows.psq_mg[keep].astype(np.float64),
                   rows.psq_eg[keep].astype(np.float64), mg_share, eg_share, pieces, signs,
                   labelled.results[keep])  # fmt: skip
    return data, keep


def win_probability(scores: np.ndarray, k: float) -> np.ndarray:
    """White's expected result from White-view scores: ``1 / (1 + 10^(-K s / 400))``."""
    return 1.0 / (1.0 + np.power(10.0, -k * scores / SCORE_SCALE))


def texel_loss(scores: np.ndarray, results: np.ndarray, k: float) -> float:
    """Mean squared error between results and expected results."""
    return float(np.mean((results - win_probability(scores, k)) ** 2))


def fit_k(scores: np.ndarray, results: np.ndarray, low: float = 0.01, high: float = 10.0) -> float:
    """The K minimising :func:`texel_loss`: a log grid finds the valley, golden-section search its floor."""
    grid = np.geomspace(low, high, 61)
    best = int(np.argmin([texel_loss(scores, results, k) for k in grid]))
    a, b = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(60):  # the bracket shrinks by 0.618 each time: far below any useful precision
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if texel_loss(scores, results, c) < texel_loss(scores, results, d):
            b = d
        else:
            a = c
    return float((a + b) / 2)


@dataclass(frozen=True)
class Params:
    """What the fit moves: term weights and, with ``--psq``, the piece-square values."""

    weights: np.ndarray  # float64[N_TERMS, 2]: mg, eg
    psq: np.ndarray | None  # float64[2, 6, 64]: (mg, eg) x piece type x square; None: the current tables, fixed

    def arrays(self) -> list[np.ndarray]:
        """The arrays Adam updates."""
        return [self.weights] if self.psq is None else [self.weights, self.psq]

    def rounded(self) -> Params:
        """The integers a weights file holds."""
        return Params(np.rint(self.weights), None if self.psq is None else np.rint(self.psq))


def _psq_sums(data: FitData, psq: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(mg, eg) piece-square sums of every position: the stored ones, or recomputed from ``psq``."""
    if psq is None:
        return data.psq_mg, data.psq_eg
    return (data.signs * psq[0].ravel()[data.pieces]).sum(1), (data.signs * psq[1].ravel()[data.pieces]).sum(1)


def white_scores(data: FitData, params: Params) -> np.ndarray:
    """The evaluation of every position from White's view, tapered in floating point."""
    mg, eg = _psq_sums(data, params.psq)
    mg = mg + data.features @ params.weights[:, 0]
    eg = eg + data.features @ params.weights[:, 1]
    return data.mg_share * mg + data.eg_share * eg


def loss(data: FitData, params: Params, k: float) -> float:
    """Texel's loss of ``params`` on ``data``."""
    return texel_loss(white_scores(data, params), data.results, k)


def gradients(data: FitData, params: Params, k: float) -> list[np.ndarray]:
    """The gradient of :func:`loss` with respect to each of ``params.arrays()``."""
    p = win_probability(white_scores(data, params), k)
    # d loss / d score: the squared error's 2 (p - r) times the sigmoid's slope p (1 - p) K ln10 / 400.
    slope = 2.0 * (p - data.results) * p * (1.0 - p) * (k * math.log(10.0) / SCORE_SCALE) / len(data)
    by_phase = (slope * data.mg_share, slope * data.eg_share)
    grads = [np.stack([data.features.T @ part for part in by_phase], axis=1)]
    if params.psq is not None:
        grads.append(np.stack([
            np.bincount(data.pieces.ravel(), (data.signs * part[:, None]).ravel(), minlength=6 * 64).reshape(6, 64)
            for part in by_phase
        ]))  # fmt: skip
    return grads


def piece_occupancy(data: FitData) -> np.ndarray:
    """float64[2, 6, 64]: how much each (piece type, own square) weighs in the positions' mg and eg halves.

    A piece on a square, either colour, counts its position's middlegame share in
    the first half and its endgame share in the second: what a piece is worth *on
    average in these positions* is the mean of its values under these weights.
    """
    present = np.abs(data.signs)
    halves = [np.bincount(data.pieces.ravel(), (present * share[:, None]).ravel(), minlength=6 * 64)
              for share in (data.mg_share, data.eg_share)]  # fmt: skip
    return np.stack(halves).reshape(2, 6, 64)


def piece_values(psq: np.ndarray, occupancy: np.ndarray) -> np.ndarray:
    """float64[2, 6]: each piece's mean piece-square value per half, weighted by ``occupancy`` (its worth)."""
    return (psq * occupancy).sum(2) / np.maximum(occupancy.sum(2), 1e-12)


def keep_material(psq: np.ndarray, start: np.ndarray, occupancy: np.ndarray) -> None:
    """Shift each piece type's values (per half) so its occupancy-weighted mean is the start's again.

    The search's margins (futility, delta, SEE's piece values) are set on the
    material scale of the starting tables: ``--keep-material`` lets the fit move
    values between squares, never what a piece is worth where pieces stand.  (An
    unweighted mean would not do: raising the rare seventh-rank pawn squares would
    lower every common pawn square to pay for it.)
    """
    shift = piece_values(start, occupancy) - piece_values(psq, occupancy)
    psq += np.where(PAWN_RANKS_1_8[None], 0.0, shift[:, :, None])  # no pawn stands there: those values stay


def fit_params(
    data: FitData, start: Params, k: float, epochs: int, lr: float,
    on_epoch: Callable[[int, Params], None] | None = None, l2: float = 0.0, material_fixed: bool = False,
) -> Params:  # fmt: skip
    """``start`` moved by ``epochs`` full-batch Adam steps on Texel's loss with ``K`` fixed (unrounded).

    ``l2`` adds ``l2 * sum(((w - w_start) / PRIOR_CP) ** 2)`` to the loss: a pull back to the
    starting values, so that a few thousand correlated games cannot drag a rare term anywhere.
    ``material_fixed`` (with piece-square values) projects every step back onto tables whose
    per-piece means are the start's (:func:`keep_material`, weighted by where ``data``'s pieces stand).
    """
    params = Params(start.weights.astype(np.float64), None if start.psq is None else start.psq.astype(np.float64))
    arrays = params.arrays()
    anchors = [a.copy() for a in arrays]
    first = [np.zeros_like(a) for a in arrays]
    second = [np.zeros_like(a) for a in arrays]
    beta1, beta2 = ADAM_BETAS
    occupancy = piece_occupancy(data) if material_fixed and params.psq is not None else None
    for epoch in range(1, epochs + 1):
        step = lr * (1.0 - (1.0 - FINAL_LR_SHARE) * (epoch - 1) / max(epochs - 1, 1))
        for array, grad, m, v, anchor in zip(arrays, gradients(data, params, k), first, second, anchors):
            grad = grad + (2.0 * l2 / PRIOR_CP**2) * (array - anchor)
            m *= beta1
            m += (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad * grad
            array -= step * (m / (1 - beta1**epoch)) / (np.sqrt(v / (1 - beta2**epoch)) + ADAM_EPS)
        if occupancy is not None:
            keep_material(params.psq, start.psq, occupancy)
        if on_epoch is not None:
            on_epoch(epoch, params)
    return params


def validation_mask(groups: Sequence[str], fraction: float, seed: int) -> np.ndarray:
    """True for the positions of a random ``fraction`` of the groups (at least one group each side)."""
    names = sorted(set(groups))
    if len(names) < 2:
        raise ValueError("the positions come from a single game or opening: nothing to hold out for validation")
    random.Random(seed).shuffle(names)
    held = set(names[: min(max(1, round(fraction * len(names))), len(names) - 1)])
    return np.array([group in held for group in groups], dtype=bool)


@dataclass
class FitReport:
    """The figures of one fit, for the screen and the weights file's ``how_made``."""

    files: list[str]
    positions: int
    fixed: int
    train: int
    validation: int
    k: float
    before: tuple[float, float]  # (train, validation) loss with the starting weights
    after: tuple[float, float]  # the same with the fitted, rounded weights
    epochs: int
    lr: float
    psq: bool
    command: str
    checkpoints: list[tuple[int, float, float]] = field(default_factory=list)
    l2: float = 0.0
    material_fixed: bool = False
    k_given: bool = False  # K came from --k rather than from a fit with the starting weights
    start: str = ""  # the starting weights file (--start), "" for the shipped weights

    def how_made(self) -> str:
        """One paragraph: data, K, losses, epochs, date, command."""
        refit = "term weights"
        if self.psq:
            material = "each piece's mean value kept" if self.material_fixed else "material included"
            refit = f"term weights and piece-square values ({material})"
        k_source = "given" if self.k_given else "fitted with the starting weights, then fixed"
        return (
            f"Texel fit (transpo tune fit) of the {refit} on {', '.join(self.files)}: {self.positions} quiet positions "
            f"({self.fixed} fixed draws left out), {self.train} for training and {self.validation} held out for "
            f"validation (whole openings); K = {self.k:.4f} ({k_source}); "
            f"{'starting weights ' + self.start + '; ' if self.start else ''}mean squared "
            f"error train {self.before[0]:.6f} -> {self.after[0]:.6f}, validation {self.before[1]:.6f} -> "
            f"{self.after[1]:.6f}; {self.epochs} epochs of full-batch Adam, lr {self.lr:g}, l2 {self.l2:g}; {date.today().isoformat()}; "
            f"command: {self.command}"
        )


def _start_params(with_psq: bool, path: str | None = None) -> tuple[Params, np.ndarray | None]:
    """The starting term weights: the shipped ones, or those of the weights file ``path`` (its ``psq`` section,
    if any, is not read: the fit data's piece-square sums are the shipped tables'); the piece-square values if
    refitted; and the psq section the output carries over."""
    from transpo.engine.evaluate import PSQ_VALUES
    from transpo.engine.terms import DEFAULT_WEIGHTS, load_psq, load_weights

    weights = DEFAULT_WEIGHTS if path is None else load_weights(path)
    start = Params(weights.astype(np.float64), PSQ_VALUES.astype(np.float64) if with_psq else None)
    return start, load_psq()


def write_weights(path: str | Path, params: Params, carried_psq: np.ndarray | None, how_made: str) -> None:
    """A weights file like ``engine/data/eval_weights.json`` (``psq`` when fitted or carried over)."""
    from transpo.engine.terms import psq_to_mapping, weights_to_mapping

    document: dict = {"how_made": how_made, "terms": weights_to_mapping(params.weights)}
    psq = params.psq if params.psq is not None else carried_psq
    if psq is not None:
        document["psq"] = psq_to_mapping(psq)
    text = json.dumps(document, indent=2)
    # One line per list of numbers, as in the shipped file, not one line per number.
    text = re.sub(r"\[[-\d,\s]*\]", lambda match: json.dumps(json.loads(match.group(0))), text)
    Path(path).write_text(text + "\n", encoding="utf-8")


def _check_fit_args(args: argparse.Namespace) -> None:
    _check_inputs(args.epd, "EPD")
    if args.epochs < 1:
        raise ValueError("--epochs must be >= 1")
    if not args.lr > 0:
        raise ValueError("--lr must be > 0")
    if not args.l2 >= 0:
        raise ValueError("--l2 must be >= 0")
    if args.keep_material and not args.psq:
        raise ValueError("--keep-material needs --psq (without it no piece value moves)")
    if not 0 < args.validation < 1:
        raise ValueError("--validation must be a fraction between 0 and 1 (exclusive)")
    if args.k is not None and not args.k > 0:
        raise ValueError("--k must be > 0")
    if args.start is not None:
        _check_inputs([args.start], "weights")
    _check_output(args.out)


def _fit_command(args: argparse.Namespace) -> str:
    """The command line of a fit with every value spelled out (defaults included)."""
    words = ["transpo", "tune", "fit", *args.epd, "--out", args.out, "--epochs", str(args.epochs), "--lr",
             f"{args.lr:g}", "--validation", f"{args.validation:g}", "--seed", str(args.seed),
             "--l2", f"{args.l2:g}"]  # fmt: skip
    words += ["--k", f"{args.k:g}"] if args.k is not None else []
    words += ["--start", args.start] if args.start is not None else []
    return shlex.join(words + (["--psq"] if args.psq else []) + (["--keep-material"] if args.keep_material else []))


def run_fit(args: argparse.Namespace) -> FitReport:
    """``transpo tune fit``: K, then the weights; losses, biggest changes, the weights file."""
    _check_fit_args(args)
    console = Console(highlight=False, soft_wrap=True)
    labelled = read_labelled(args.epd)
    data, keep = build_fit_data(labelled, args.psq)
    if len(data) == 0:
        raise ValueError("no positions to fit (the files are empty, or every position is a fixed draw)")
    groups = [group for group, kept in zip(labelled.groups, keep) if kept]
    held = validation_mask(groups, args.validation, args.seed)
    train, valid = data.subset(~held), data.subset(held)
    start, carried_psq = _start_params(args.psq, args.start)
    k = args.k if args.k is not None else fit_k(white_scores(train, start), train.results)
    report = FitReport(list(args.epd), len(data), int((~keep).sum()), len(train), len(valid), k,
                       (loss(train, start, k), loss(valid, start, k)), (0.0, 0.0), args.epochs, args.lr, args.psq,
                       _fit_command(args), l2=args.l2, material_fixed=args.keep_material,
                       k_given=args.k is not None, start=args.start or "")  # fmt: skip
    held_groups = len({group for group, h in zip(groups, held) if h})
    console.print(f"{report.positions} positions ({report.fixed} fixed draws left out): {report.train} train, "
                  f"{report.validation} validation ({held_groups} of {len(set(groups))} groups held out)")  # fmt: skip
    source = "given" if args.k is not None else "fitted on the training positions with the starting weights"
    console.print(f"K = {k:.4f} ({source})")
    fitted = _fit_with_progress(train, valid, start, k, report).rounded()
    report.after = (loss(train, fitted, k), loss(valid, fitted, k))
    _print_fit(console, report, start, fitted, train)
    write_weights(args.out, fitted, carried_psq, report.how_made())
    console.print(f"weights written to {args.out}")
    return report


def _fit_with_progress(train: FitData, valid: FitData, start: Params, k: float, report: FitReport) -> Params:
    """:func:`fit_params` with a progress bar, the losses noted in ``report.checkpoints`` now and then."""
    every = max(report.epochs // CHECKPOINTS, 1)
    with _progress() as progress:
        task = progress.add_task("fitting", total=report.epochs)

        def on_epoch(epoch: int, params: Params) -> None:
            progress.advance(task)
            if epoch % every == 0 or epoch == report.epochs:
                report.checkpoints.append((epoch, loss(train, params, k), loss(valid, params, k)))

        return fit_params(train, start, k, report.epochs, report.lr, on_epoch, report.l2, report.material_fixed)


def _print_fit(console: Console, report: FitReport, start: Params, fitted: Params, positions: FitData,
               top: int = 12) -> None:  # fmt: skip
    """The loss table, the losses by epoch, the biggest weight changes (and piece values with ``--psq``)."""
    losses = Table(title="Texel loss (mean squared error)")
    for name in ("positions", "count", "before", "after (rounded weights)", "change"):
        losses.add_column(name, justify="right")
    for name, count, before, after in (("train", report.train, report.before[0], report.after[0]),
                                       ("validation", report.validation, report.before[1], report.after[1])):  # fmt: skip
        losses.add_row(name, str(count), f"{before:.6f}", f"{after:.6f}", f"{after - before:+.6f}")
    console.print(losses)
    by_epoch = Table(title="Loss by epoch (unrounded weights)")
    for name in ("epoch", "train", "validation"):
        by_epoch.add_column(name, justify="right")
    for epoch, train, valid in report.checkpoints:
        by_epoch.add_row(str(epoch), f"{train:.6f}", f"{valid:.6f}")
    console.print(by_epoch)
    console.print(_changes_table(start.weights, fitted.weights, top))
    if fitted.psq is not None and start.psq is not None:
        console.print(_piece_value_table(start.psq, fitted.psq, piece_occupancy(positions)))


def _changes_table(before: np.ndarray, after: np.ndarray, top: int) -> Table:
    """The ``top`` terms whose mg or eg weight moved most."""
    from transpo.engine.terms import TERM_NAMES

    moved = np.abs(after - before).max(axis=1)
    table = Table(title=f"Biggest weight changes (top {min(top, len(moved))} of {len(moved)} terms)")
    for name, justify in (("term", "left"), ("mg before", "right"), ("mg after", "right"), ("eg before", "right"),
                          ("eg after", "right")):  # fmt: skip
        table.add_column(name, justify=justify)
    for t in np.argsort(-moved, kind="stable")[:top]:
        table.add_row(TERM_NAMES[t], *(f"{v:.0f}" for v in (before[t, 0], after[t, 0], before[t, 1], after[t, 1])))
    return table


def _piece_value_table(before: np.ndarray, after: np.ndarray, occupancy: np.ndarray) -> Table:
    """Each piece's mean piece-square value where the training positions' pieces stand (its material, in
    effect) before and after a ``--psq`` fit."""
    from transpo.engine.pesto import PIECE_NAMES

    table = Table(title="Piece values (mean over the squares the training positions' pieces stand on)")
    for name in ("piece", "mg before", "mg after", "eg before", "eg after"):
        table.add_column(name, justify="right")
    old, new = piece_values(before, occupancy), piece_values(after, occupancy)
    for ptype, name in enumerate(PIECE_NAMES):
        table.add_row(name, *(f"{v:.0f}" for v in (old[0, ptype], new[0, ptype], old[1, ptype], new[1, ptype])))
    return table
