"""The evaluation: colour symmetry, the pawn cache, the linear model the tuner relies on, and known terms."""

from __future__ import annotations

import chess
import numpy as np
import pytest
from conftest import playout_fens

from transpo import Position
from transpo.engine.evaluate import (
    PSQ,
    SCALE_FULL,
    endgame_scale_of,
    evaluate,
    evaluate_features,
    explain,
    taper,
)
from transpo.engine.scratch import new_scratch
from transpo.engine.terms import (
    DEFAULT_WEIGHTS,
    IMBALANCE_PAIRS,
    IMBALANCE_PIECES,
    N_TERMS,
    TERM_NAMES,
    WeightsError,
    load_weights,
    term_sums,
)

FENS = playout_fens(1500)


def score(fen: str, scratch=None, cached: bool = False) -> int:
    position = Position(fen)
    arrays = position.snapshot(PSQ)
    scratch = scratch if scratch is not None else new_scratch()
    if cached:
        return int(evaluate(arrays.board, arrays.state, scratch, np.uint64(position.key)))
    return int(evaluate_features(arrays.board, arrays.state, scratch))


def test_colour_flip_gives_the_same_score_on_1500_positions():
    """A position and its mirror (colours swapped, board flipped, other side to move) score the same."""
    asymmetric = [
        fen for fen in FENS if score(fen) != score(chess.Board(fen).mirror().fen())
    ]  # fmt: skip
    assert len(FENS) >= 1000
    assert asymmetric == []


def test_caches_give_the_same_scores_as_computing_afresh():
    """The pawn hash, the material cache and the evaluation cache change no score (the second round hits
    all three)."""
    scratch = new_scratch()
    for fen in FENS[:600] + FENS[:600]:
        assert score(fen, scratch, cached=True) == score(fen)
    pawns_only = new_scratch()
    for fen in FENS[:300] + FENS[:300]:
        pawns_only.eval_cache[:] = 0  # only the pawn hash can hit
        assert score(fen, pawns_only, cached=True) == score(fen)
    material_only = new_scratch()
    for fen in FENS[:300] + FENS[:300]:
        material_only.eval_cache[:] = 0  # only the material cache can hit
        material_only.pawn_keys[:] = 0
        assert score(fen, material_only, cached=True) == score(fen)
    # The playouts' 300 positions share far fewer piece counts: each was priced once and stored.
    assert 0 < np.count_nonzero(material_only.material_keys) < 150


def test_the_material_cache_is_read_by_the_piece_counts_alone():
    """A stored imbalance is what a later position with the same counts gets (here a planted one, 1000 cp
    more in the middlegame), and counts beyond 15 of a kind do not alias smaller ones."""
    scratch = new_scratch()
    fen = FENS[100]
    score(fen, scratch, cached=True)
    scratch.material_scores[np.flatnonzero(scratch.material_keys), 0] += 1000
    scratch.eval_cache[:] = 0
    arrays = Position(fen).snapshot(PSQ)
    side = 1 if chess.Board(fen).turn == chess.WHITE else -1
    planted = int(taper(1000, 0, int(arrays.state[10])))
    assert abs(score(fen, scratch, cached=True) - score(fen) - side * planted) <= 1
    sixteen_knights, bishop_and_king = "NNNNNNNN/NNNNNNNN/8/8/8/8/p7/K6k w - - 0 1", "8/8/8/8/8/8/p7/KB5k w - - 0 1"
    scratch = new_scratch()
    score(sixteen_knights, scratch, cached=True)
    assert score(bishop_and_king, scratch, cached=True) == score(bishop_and_king)


def test_score_is_the_tapered_dot_product_of_weights_and_features():
    """What the tuner fits: psq sums plus weights . features, the endgame half scaled, blended by phase."""
    scratch = new_scratch()
    for fen in FENS[:300]:
        position = Position(fen)
        arrays = position.snapshot(PSQ)
        got = int(evaluate_features(arrays.board, arrays.state, scratch))
        if position.is_insufficient_material():
            continue
        terms_mg, terms_eg = term_sums(DEFAULT_WEIGHTS, scratch.features)
        mg = int(arrays.state[8]) + terms_mg
        eg = int(arrays.state[9]) + terms_eg
        scale = int(endgame_scale_of(arrays.board, arrays.state))
        eg = int(np.trunc(eg * scale / SCALE_FULL))
        white_view = int(taper(mg, eg, int(arrays.state[10])))
        assert got == (white_view if position.turn == "w" else -white_view)


@pytest.mark.parametrize(
    "fen, scale",
    [
        (chess.STARTING_FEN, 64),
        # Bishops on opposite colours (c1 dark, f5 light) and nothing else but pawns: half.
        ("4k3/pp6/8/5b2/8/8/PPP5/2B1K3 w - - 0 1", 32),
        # Bishops on one colour (c1, e5): 40 + 7 for each of White's three pawns - 4 (all on files a-d).
        ("4k3/pp6/8/4b3/8/8/PPP5/2B1K3 w - - 0 1", 57),
        # The same with a pawn on the other flank too: 40 + 28, at most 64.
        ("4k3/pp6/8/4b3/8/8/PPP4P/2B1K3 w - - 0 1", 64),
        # Rook against bishop, no pawns: little; bishop against pawn: nothing.
        ("4k3/8/8/8/8/8/8/R3K2b w - - 0 1", 6),
        ("4k3/8/8/8/8/8/p7/2B1K3 w - - 0 1", 0),
        # Black is the side ahead (a queen against a rook, two pawns): 40 + 14, on both flanks.
        ("3qk3/p6p/8/8/8/8/8/3RK3 w - - 0 1", 54),
    ],
)
def test_endgame_scale(fen, scale):
    arrays = Position(fen).snapshot(PSQ)
    assert endgame_scale_of(arrays.board, arrays.state) == scale
    assert explain(Position(fen)).eg_scale == scale


def counts(fen: str) -> dict[str, int]:
    return {term.name: term.count for term in explain(Position(fen)).terms if term.count}


@pytest.mark.parametrize(
    "fen, expected",
    [
        # White: isolated a-pawn, doubled c-pawns (the rear one counts), passed d-pawn on rank 5 (not blocked).
        ("4k3/5ppp/8/3P4/8/2P5/P1P5/4K3 w - - 0 1", {"pawn_isolated": 1, "pawn_doubled": 1, "passed_rank5": 1}),
        # Bishop pair for White only.
        ("4k3/pppp1ppp/8/8/8/8/PPPP1PPP/2B1KB2 w - - 0 1", {"bishop_pair": 1}),
        # White's rook on the open e-file; Black's on the d-file, closed by pawns of both colours.
        ("3r2k1/pppp1ppp/8/8/8/8/PPPP1PPP/4R1K1 w - - 0 1", {"rook_open_file": 1, "rook_semi_open_file": 0}),
        # A lone white pawn on a7 that the black king on h8 cannot catch: unstoppable, black to move or not.
        ("7k/P7/8/8/8/8/8/K7 b - - 0 1", {"passed_unstoppable": 1}),
        # The black king stands in front of the pawn: stoppable.
        ("k7/8/P7/8/8/8/8/K7 w - - 0 1", {"passed_unstoppable": 0}),
        # White's queen could check from a4, h5 and e2 unchallenged; d7, d8 and f7 are the black king's.
        ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", {"queen_safe_check": 3}),
        # A pawn on d7 closes the a4 diagonal (it would be taken on d7, next to the king): two are left.
        ("4k3/3p4/8/8/8/8/8/3QK3 w - - 0 1", {"queen_safe_check": 2}),
        # The knight on c3 reaches none of d6, f6, c7, g7: no knight check.
        ("4k3/8/8/8/8/2N5/8/4K3 w - - 0 1", {"knight_safe_check": 0}),
        # From b5 it reaches d6: a check the e8 king cannot meet; Black's e7 pawn guards neither d6 nor f6.
        ("4k3/4p3/8/1N6/8/8/8/4K3 w - - 0 1", {"knight_safe_check": 1}),
        # Black's rook checks from e5 (e-file) unchallenged; d1 is next to the white king.  It stands on d5
        # unguarded, where the c3 knight hits it: hanging and threatened by a minor piece.
        ("4k3/8/8/3r4/8/2N5/8/4K3 w - - 0 1", {"rook_safe_check": -1, "hanging_piece": 1, "minor_threat": 1}),
        # Guarded by the e6 pawn it no longer hangs; the knight still threatens it.
        ("4k3/8/4p3/3r4/8/2N5/8/4K3 w - - 0 1", {"hanging_piece": 0, "minor_threat": 1}),
        # A black queen on d5 hit by the d1 rook and the c3 knight; it checks from e5, e6 and h1.
        ("4k3/8/8/3q4/8/2N5/8/3RK3 w - - 0 1",
         {"rook_threat": 1, "minor_threat": 1, "hanging_piece": 1, "queen_safe_check": -3}),
        # Bishop checks on the e8 king's diagonals: b5 and g6 from d3, c6 and h5 from f3.
        ("4k3/8/8/8/8/3B1B2/8/4K3 w - - 0 1", {"bishop_safe_check": 4}),
        # The e5 knight stands on an outpost: the d4 pawn defends it and no black pawn can ever attack it ...
        ("4k3/8/8/4N3/3P4/8/8/4K3 w - - 0 1", {"knight_outpost": 1}),
        # ... until a black pawn on f7 could come to f6.
        ("4k3/5p2/8/4N3/3P4/8/8/4K3 w - - 0 1", {"knight_outpost": 0}),
        # The c1 bishop runs on dark squares: of d2 (dark) and e2 (light) one pawn hinders it.
        ("4k3/8/8/8/8/8/3PP3/2B1K3 w - - 0 1", {"bishop_pawns": 1}),
        # e3-e4 would attack the d5 knight, safely; the knight itself attacks the undefended e3 pawn.
        ("4k3/8/8/3n4/8/4P3/8/4K3 w - - 0 1", {"pawn_push_threat": 1, "hanging_pawn": -1}),
        # The c3 knight attacks the undefended d5 pawn.
        ("4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1", {"hanging_pawn": 1}),
        # The b7 rook on the 7th with the black king on the 8th; with the king on g6 and no pawn on the 7th, not.
        ("6k1/1R6/8/8/8/8/8/6K1 w - - 0 1", {"rook_on_seventh": 1}),
        ("8/1R6/6k1/8/8/8/8/6K1 w - - 0 1", {"rook_on_seventh": 0}),
        # The e3 knight stands behind the e4 pawn, two king steps from its king on e1; the pawn's stop square
        # e5 is one the black king does not reach.
        ("4k3/8/8/8/4P3/4N3/8/4K3 w - - 0 1", {"minor_behind_pawn": 1, "king_protector": 2, "passed_safe_stop": 1}),
        # The a1 bishop sees d4 and e5 along the long diagonal; a b2 pawn closes it.
        ("4k3/p7/8/8/8/8/8/B3K3 w - - 0 1", {"long_diagonal_bishop": 1, "king_protector": 4}),
        ("4k3/p7/8/8/8/8/1P6/B3K3 w - - 0 1", {"long_diagonal_bishop": 0}),
        # The g1 king's flank (files e-h) holds no pawn; the c8 king's (a-d) does.
        ("2k5/8/8/8/8/8/PPP5/6K1 w - - 0 1", {"pawnless_flank": 1}),
        # The d1 knight can go to c3 or e3 and attack the queen from there, until a black pawn on d4 guards both.
        ("4k3/8/8/3q4/8/8/8/3NK3 w - - 0 1", {"knight_on_queen": 2}),
        ("4k3/8/8/3q4/3p4/8/8/3NK3 w - - 0 1", {"knight_on_queen": 0, "passed_rook_behind": -1}),
        # The h1 rook can attack the d5 queen from d1 and h5.
        ("4k3/8/8/3q4/8/8/8/K6R w - - 0 1", {"slider_on_queen": 2}),
        # The d5 passer (rank scale 2) with a rook behind it: its stop square is safe, the way to d8 is not
        # (the e8 king guards d7 and d8) ...
        ("4k3/8/8/3P4/8/8/8/3RK3 w - - 0 1", {"passed_safe_stop": 2, "passed_safe_path": 0, "passed_rook_behind": 1}),
        # ... it is with the king on h8; an enemy rook behind it counts apart.
        ("7k/8/8/3P4/8/8/8/3RK3 w - - 0 1", {"passed_safe_path": 2}),
        ("4k3/8/8/3P4/8/8/8/3rK3 w - - 0 1", {"passed_enemy_rook_behind": 1, "passed_rook_behind": 0}),
        # King danger with the checks: the queen hits d7 and d8 of the king's zone (2 x 5 units) and has three
        # safe checks (3 x 3): (10 + 9)^2 / 16 = 22.
        ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", {"king_danger_checks": 22}),
    ],
)
def test_known_terms(fen, expected):
    got = counts(fen)
    for name, value in expected.items():
        assert got.get(name, 0) == value, (name, got)


def test_imbalance_terms_are_products_of_piece_counts():
    """Each imbalance count is White's product of two piece counts (from the start's) minus Black's,
    counted here with python-chess."""
    for fen in FENS[:200] + ["4k3/pp6/8/8/8/8/8/RR2K3 w - - 0 1", "2b1kb2/8/8/8/8/8/8/3QK3 b - - 0 1"]:
        board = chess.Board(fen)
        if board.is_insufficient_material():
            continue  # scored as a draw before any term is counted

        def count(colour: chess.Color, index: int) -> int:
            """The count measured from the starting material's."""
            if IMBALANCE_PIECES[index] == "bishop_pair":
                return int(len(board.pieces(chess.BISHOP, colour)) >= 2) - 1
            start = (8, 2, 2, 2, 1)[index]
            return len(board.pieces(index + 1, colour)) - start  # pawn .. queen are python-chess types 1 .. 5

        got = counts(fen)
        for (a, b, against), name in zip(IMBALANCE_PAIRS, TERM_NAMES[-len(IMBALANCE_PAIRS):]):
            white = count(chess.WHITE, a) * count(chess.WHITE if not against else chess.BLACK, b)
            black = count(chess.BLACK, a) * count(chess.BLACK if not against else chess.WHITE, b)
            assert got.get(name, 0) == white - black, (fen, name)


def test_tempo_and_side_to_move():
    """The start position: only the tempo term is non-zero, and it belongs to the side to move."""
    assert counts(chess.STARTING_FEN) == {"tempo": 1}
    black = chess.STARTING_FEN.replace(" w ", " b ")
    assert counts(black) == {"tempo": -1}
    assert score(chess.STARTING_FEN) == score(black)


def test_weights_file_must_name_every_term(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"terms": {"bishop_pair": [1, 2]}}')
    with pytest.raises(WeightsError, match="missing terms"):
        load_weights(path)
    assert DEFAULT_WEIGHTS.shape == (N_TERMS, 2)
    assert len(set(TERM_NAMES)) == N_TERMS


def test_changed_weights_change_the_score_without_recompiling():
    fen = "4k3/5ppp/8/3P4/8/2P5/P1P5/4K3 w - - 0 1"
    heavier = DEFAULT_WEIGHTS.copy()
    heavier[TERM_NAMES.index("pawn_isolated")] -= 100
    assert score(fen, new_scratch(heavier)) < score(fen) - 50


def test_lazy_evaluation_is_exact_inside_the_window_and_on_the_right_side_outside():
    from transpo.engine.evaluate import LAZY_MARGIN, evaluate_lazy

    for fen in FENS[:400]:
        position = Position(fen)
        arrays = position.snapshot(PSQ)
        key = np.uint64(position.key)
        full = score(fen)
        assert int(evaluate_lazy(arrays.board, arrays.state, new_scratch(), key, full - 1, full + 1)) == full
        high = int(evaluate_lazy(arrays.board, arrays.state, new_scratch(), key, -30000, full - 2 * LAZY_MARGIN))
        assert high >= full - 2 * LAZY_MARGIN  # a cut above beta stays a cut
