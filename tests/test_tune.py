"""``transpo tune``: the feature rows are the engine's evaluation, K and the weights are recovered, quiet positions."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import chess
import numpy as np
import pytest
from conftest import STARTS, playout_fens

from transpo import Position
from transpo.cli import main
from transpo.engine.evaluate import PSQ, PSQ_VALUES, SCALE_FULL, evaluate_features, feature_rows, taper
from transpo.engine.pesto import pesto_values, psq_table
from transpo.engine.scratch import new_scratch
from transpo.engine.terms import (
    DEFAULT_WEIGHTS,
    TERM_NAMES,
    WEIGHT_UNIT,
    load_psq,
    load_weights,
    psq_from_mapping,
    psq_to_mapping,
    term_sums,
    weights_to_mapping,
)
from transpo.tools import tune
from transpo.tools.openings import epd_records

FENS = STARTS + playout_fens(400, seed=7) + ["8/8/8/4k3/8/8/3NK3/8 w - - 0 1", "8/8/4k3/8/8/2b5/3BK3/8 b - - 0 1"]


def test_feature_rows_reproduce_the_compiled_score_exactly():
    """Every row's psq sums + weights . features, scaled and tapered as the engine does, is the compiled score
    (White view)."""
    rows = feature_rows(FENS)
    scratch = new_scratch()
    checked = 0
    for i, fen in enumerate(FENS):
        arrays = Position(fen).snapshot(PSQ)
        compiled = int(evaluate_features(arrays.board, arrays.state, scratch))
        white_view = compiled if rows.white_to_move[i] else -compiled
        if rows.fixed[i]:  # a fixed 0, or a dead draw the engine may still score: not fit data
            assert compiled == 0 or Position(fen).is_insufficient_material()
            continue
        terms_mg, terms_eg = term_sums(DEFAULT_WEIGHTS, rows.features[i])
        mg = int(rows.psq_mg[i]) + terms_mg
        eg = int(rows.psq_eg[i]) + terms_eg
        eg = int(np.trunc(eg * int(rows.eg_scale[i]) / SCALE_FULL))  # the endgame scale, rounded towards zero
        assert int(taper(mg, eg, int(rows.phase[i]))) == white_view, fen
        checked += 1
    assert checked >= 400 and rows.fixed[-2:].all() and not KEPT[-2:].any()


DATA, KEPT = tune.build_fit_data(tune.Labelled(FENS, np.zeros(len(FENS)), ["g"] * len(FENS)), with_pieces=True)
START = tune.Params(DEFAULT_WEIGHTS.astype(np.float64), PSQ_VALUES.astype(np.float64))


def test_the_fit_model_is_the_engine_to_within_rounding():
    """The tuner's float scores, and its piece-square sums rebuilt with python-chess, agree with the engine."""
    rows = feature_rows(FENS)
    mg, eg = tune._psq_sums(DATA, START.psq)
    np.testing.assert_array_equal(mg, rows.psq_mg[KEPT])
    np.testing.assert_array_equal(eg, rows.psq_eg[KEPT])
    scratch = new_scratch()
    for fen, score in zip(np.array(FENS)[KEPT], tune.white_scores(DATA, START)):
        arrays = Position(fen).snapshot(PSQ)
        compiled = int(evaluate_features(arrays.board, arrays.state, scratch))
        # Up to four roundings towards zero in the engine, each less than 1: the imbalance block's (mg and
        # eg), the endgame scale's and the taper's.
        assert abs((compiled if chess.Board(fen).turn == chess.WHITE else -compiled) - score) < 4.0


def test_k_fit_recovers_a_known_k():
    rng = np.random.default_rng(3)
    scores = rng.normal(0.0, 300.0, 20000)
    exact = tune.win_probability(scores, 1.3)
    assert tune.fit_k(scores, exact) == pytest.approx(1.3, abs=1e-4)
    outcomes = (rng.random(len(scores)) < exact).astype(np.float64)  # decisive games drawn with those odds
    assert tune.fit_k(scores, outcomes) == pytest.approx(1.3, rel=0.08)


@pytest.mark.parametrize("with_psq", [False, True])
def test_fit_moves_the_weights_towards_the_ones_that_made_the_labels(with_psq):
    rng = np.random.default_rng(5)
    target = tune.Params(
        START.weights + rng.normal(0.0, 15.0, START.weights.shape),
        START.psq + rng.normal(0.0, 20.0, START.psq.shape) if with_psq else None,
    )
    data = dataclasses.replace(DATA, results=tune.win_probability(tune.white_scores(DATA, target), 1.0))
    start = START if with_psq else tune.Params(START.weights, None)
    fitted = tune.fit_params(data, start, 1.0, epochs=300, lr=2.0)
    assert tune.loss(data, fitted, 1.0) < 0.2 * tune.loss(data, start, 1.0)
    # A term few positions have says little about its weight (nor do positions whose endgame scale is 0
    # about its endgame weight): only weights that at least 20 positions bear on are compared.
    present = DATA.features != 0
    used = np.stack([(present & (share[:, None] > 0)).sum(0) >= 20 for share in (DATA.mg_share, DATA.eg_share)], 1)
    # Distances in centipawns per count: an imbalance weight's unit is a sixteenth of one (terms.WEIGHT_UNIT).
    unit = WEIGHT_UNIT[:, None]
    before = (np.abs(start.weights - target.weights) * unit)[used].sum()
    assert (np.abs(fitted.weights - target.weights) * unit)[used].sum() < 0.8 * before
    if with_psq:  # likewise a square few positions hold a piece on: the data says little about it
        held = np.bincount(DATA.pieces[DATA.signs != 0], minlength=START.psq[0].size).reshape(START.psq[0].shape)
        seen = held >= 20
        assert np.abs(fitted.psq - target.psq)[:, seen].sum() < 0.9 * np.abs(start.psq - target.psq)[:, seen].sum()


def test_l2_holds_the_weights_near_their_start():
    """The same pull as above, with a strong --l2: the weights move far less, and the loss still falls."""
    rng = np.random.default_rng(5)
    target = tune.Params(START.weights + rng.normal(0.0, 15.0, START.weights.shape), None)
    data = dataclasses.replace(DATA, results=tune.win_probability(tune.white_scores(DATA, target), 1.0))
    start = tune.Params(START.weights, None)
    free = tune.fit_params(data, start, 1.0, epochs=300, lr=2.0)
    held = tune.fit_params(data, start, 1.0, epochs=300, lr=2.0, l2=1.0)
    assert np.abs(held.weights - start.weights).sum() < 0.5 * np.abs(free.weights - start.weights).sum()
    assert tune.loss(data, held, 1.0) < tune.loss(data, start, 1.0)


def test_keep_material_moves_values_between_squares_never_a_pieces_mean():
    """--keep-material: the same pull with knight and bishop values moved in the target; the fitted tables still
    lower the loss, and each piece's mean where the positions' pieces stand (per half) stays the start's."""
    rng = np.random.default_rng(6)
    target_psq = START.psq + rng.normal(0.0, 20.0, START.psq.shape)
    target_psq[:, 1] += 60.0  # knights worth more, bishops less: a material change only imbalances show
    target_psq[:, 2] -= 60.0
    target = tune.Params(START.weights, target_psq)
    data = dataclasses.replace(DATA, results=tune.win_probability(tune.white_scores(DATA, target), 1.0))
    occupancy = tune.piece_occupancy(data)
    fitted = tune.fit_params(data, START, 1.0, epochs=100, lr=2.0, material_fixed=True)
    assert tune.loss(data, fitted, 1.0) < tune.loss(data, START, 1.0)
    np.testing.assert_allclose(tune.piece_values(fitted.psq, occupancy), tune.piece_values(START.psq, occupancy))
    assert np.abs(fitted.psq - START.psq).max() > 5.0  # the squares did move
    np.testing.assert_array_equal(fitted.psq[:, 0, :8], START.psq[:, 0, :8])  # no pawn on the first rank
    np.testing.assert_array_equal(fitted.psq[:, 0, 56:], START.psq[:, 0, 56:])  # nor on the last
    free = tune.fit_params(data, START, 1.0, epochs=100, lr=2.0)
    shifts = tune.piece_values(free.psq, occupancy) - tune.piece_values(START.psq, occupancy)
    assert np.abs(shifts).sum() > 10.0  # without it the pieces' worth moves towards the target's


def test_piece_occupancy_counts_each_piece_by_its_positions_phase_shares():
    occupancy = tune.piece_occupancy(DATA)
    per_position = (DATA.signs != 0).sum(1)
    assert occupancy[0].sum() == pytest.approx(per_position @ DATA.mg_share)
    assert occupancy[1].sum() == pytest.approx(per_position @ DATA.eg_share)
    assert per_position.min() >= 2 and occupancy.min() >= 0
    kings = occupancy[:, 5].sum(1)  # two kings in every position
    np.testing.assert_allclose(kings, [2 * DATA.mg_share.sum(), 2 * DATA.eg_share.sum()])


def test_gradient_matches_finite_differences():
    params = tune.Params(START.weights.copy(), START.psq.copy())
    data = dataclasses.replace(DATA, results=(np.arange(len(DATA)) % 3) / 2.0)
    grads = tune.gradients(data, params, 1.1)
    for array, grad, index in ((params.weights, grads[0], (TERM_NAMES.index("rook_mobility"), 1)),
                               (params.psq, grads[1], (0, 1, 21))):  # fmt: skip
        array[index] += 0.5
        up = tune.loss(data, params, 1.1)
        array[index] -= 1.0
        down = tune.loss(data, params, 1.1)
        array[index] += 0.5
        assert grad[index] == pytest.approx(up - down, rel=1e-3, abs=1e-12)


TINY_PGN = """[Event "t"]
[Result "1-0"]
[Opening "test opening"]

1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. Bb5+ c6 5. Ba4 Nf6 6. Nf3 Bg4 7. h3 Bxf3 8. Qxf3 e6 1-0

[Event "t"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 *

[Event "t"]
[Result "1/2-1/2"]
[FEN "8/P7/8/8/8/8/k7/4K3 w - - 0 1"]
[SetUp "1"]

1. Kd2 Kb2 2. a8=Q Kb3 3. Qb7+ Ka2 4. Kc2 1/2-1/2
"""


def _after(fen: str, sans: str, plies: list[int]) -> list[str]:
    """The positions (EPD, 4 fields) after each of ``plies`` plies of ``sans`` from ``fen``."""
    moves = sans.split()
    found = []
    for ply in plies:
        board = chess.Board(fen)
        for san in moves[:ply]:
            board.push_san(san)
        found.append(board.epd())
    return found


def test_positions_keeps_exactly_the_quiet_positions(tmp_path, capsys):
    pgn = tmp_path / "tiny.pgn"
    pgn.write_text(TINY_PGN)
    out = tmp_path / "pos.epd"
    assert main(["tune", "positions", str(pgn), "--out", str(out), "--skip-plies", "2"]) == 0
    printed = capsys.readouterr().out
    # Game 1: plies 2-4 are or follow captures, 7 is in check after Bb5+, 13-15 captures again.
    game1 = _after(chess.STARTING_FEN, "e4 d5 exd5 Qxd5 Nc3 Qa5 Bb5+ c6 Ba4 Nf6 Nf3 Bg4 h3 Bxf3 Qxf3 e6",
                   [5, 6, 8, 9, 10, 11, 12])  # fmt: skip
    # Game 3: ply 2 promotes, ply 5 is in check; game 2 has no result.
    game3 = _after("8/P7/8/8/8/8/k7/4K3 w - - 0 1", "Kd2 Kb2 a8=Q Kb3 Qb7+ Ka2 Kc2", [3, 4, 6])
    expected = [(epd, "1-0", "test opening") for epd in game1]
    expected += [(epd, "1/2-1/2", "8/P7/8/8/8/8/k7/4K3 w - - 0 1") for epd in game3]
    records = [(board.epd(), ops["c9"], ops["c8"]) for _, board, ops, _ in epd_records(out)]
    assert records == expected
    assert "unfinished ('*') 1" in printed and "written: 10" in printed
    assert main(["tune", "positions", str(pgn), "--out", str(out), "--skip-plies", "2", "--per-game", "2"]) == 0
    sampled = [(board.epd(), ops["c9"], ops["c8"]) for _, board, ops, _ in epd_records(out)]
    assert len(sampled) == 4 and set(sampled) <= set(expected)


def test_fit_writes_a_weights_file_the_engine_can_load(tmp_path, capsys):
    epd = tmp_path / "pos.epd"
    lines = [f'{chess.Board(fen).epd()} c8 "g{i % 7}"; c9 "{("1-0", "0-1", "1/2-1/2")[i % 3]}";'
             for i, fen in enumerate(FENS[:120])]  # fmt: skip
    epd.write_text("\n".join(lines) + "\n")
    out = tmp_path / "w.json"
    assert main(["tune", "fit", str(epd), "--out", str(out), "--epochs", "5", "--psq", "--validation", "0.3"]) == 0
    printed = capsys.readouterr().out
    assert "K = " in printed and "validation" in printed and "Biggest weight changes" in printed
    document = json.loads(out.read_text())
    assert "120 quiet positions" in document["how_made"] and "command: transpo tune fit" in document["how_made"]
    assert load_weights(out).shape == DEFAULT_WEIGHTS.shape
    assert psq_table(load_psq(out)).shape == PSQ.shape


def test_fit_from_a_given_start_with_a_given_k_is_that_fit(tmp_path, capsys):
    """--start and --k: the command's weights are fit_params' from those weights with that K, and the file says so."""
    epd = tmp_path / "pos.epd"
    epd.write_text("".join(f'{chess.Board(fen).epd()} c8 "g{i % 7}"; c9 "{0.2 + 0.6 * (i % 5) / 4}";\n'
                           for i, fen in enumerate(FENS[:150])))  # fmt: skip
    start = tmp_path / "start.json"
    shifted = DEFAULT_WEIGHTS.copy()
    shifted[TERM_NAMES.index("rook_mobility")] += 7
    start.write_text(json.dumps({"terms": weights_to_mapping(shifted)}))
    out = tmp_path / "w.json"
    argv = ["tune", "fit", str(epd), "--out", str(out), "--epochs", "20", "--validation", "0.3", "--k", "1.25"]
    assert main([*argv, "--start", str(start)]) == 0
    assert "K = 1.2500 (given)" in capsys.readouterr().out
    labelled = tune.read_labelled([epd])
    data, keep = tune.build_fit_data(labelled, with_pieces=False)
    held = tune.validation_mask([g for g, k in zip(labelled.groups, keep) if k], 0.3, 1)
    expected = tune.fit_params(data.subset(~held), tune.Params(shifted.astype(np.float64), None), 1.25, 20, 1.0)
    np.testing.assert_array_equal(load_weights(out), expected.rounded().weights.astype(np.int32))
    how_made = json.loads(out.read_text())["how_made"]
    assert "K = 1.2500 (given)" in how_made and f"starting weights {start}" in how_made and "--k 1.25" in how_made


def test_psq_section_round_trip_gives_the_pesto_table():
    values = psq_from_mapping(json.loads(json.dumps(psq_to_mapping(pesto_values()))))
    np.testing.assert_array_equal(psq_table(values), psq_table())
    assert load_psq() is None or load_psq().shape == (2, 6, 64)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["tune", "positions", "missing.pgn", "--out", "x.epd"], "error: no PGN file missing.pgn"),
        (["tune", "fit", "missing.epd", "--out", "w.json"], "error: no EPD file missing.epd"),
        (["tune", "fit", "{epd}", "--out", "w.json", "--validation", "1.5"], "error: --validation must be"),
        (["tune", "fit", "{epd}", "--out", "w.json", "--keep-material"], "--keep-material needs --psq"),
        (["tune", "fit", "{bad}", "--out", "w.json"], "bad.epd:2: no label"),
        (["tune", "fit", "{epd}", "--out", "w.json", "--k", "0"], "error: --k must be > 0"),
        (["tune", "fit", "{epd}", "--out", "w.json", "--start", "none.json"], "error: no weights file none.json"),
        (["tune", "score", "{epd}", "--out", "s.epd", "--depth", "3", "--nodes", "9"], "not both"),
        (["tune", "score", "{epd}", "--out", "s.epd", "--depth", "0"], "must be >= 1"),
        (["tune", "score", "{epd}", "--out", "s.epd", "--engine", "/no/such/engine"], "cannot start engine"),
        (["tune"], "error: the following arguments are required: step"),
    ],
)
def test_bad_input_is_one_error_line(tmp_path, capsys, argv, message):
    (tmp_path / "ok.epd").write_text(f'{chess.Board().epd()} c9 "1-0";\n')
    (tmp_path / "bad.epd").write_text(f'{chess.Board().epd()} c9 "1-0";\n{chess.Board().epd()} c9 "*";\n')
    argv = [a.format(epd=tmp_path / "ok.epd", bad=tmp_path / "bad.epd") for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error:") and message in err


FAKE_ENGINE = Path(__file__).parent / "fake_uci_engine.py"


def test_expected_result_and_labels():
    assert tune.expected_result(0) == 0.5
    assert tune.expected_result(400) == pytest.approx(10 / 11)
    assert tune.expected_result(-400) == pytest.approx(1 / 11)
    assert tune._label("1-0") == 1.0 and tune._label("1/2-1/2") == 0.5 and tune._label("0.25") == 0.25
    assert tune._label("1.5") is None and tune._label("*") is None and tune._label(None) is None


def test_score_relabels_by_the_engine_from_whites_view(tmp_path, capsys):
    """The fake engine says +900 cp for the side to move: White's label is high when White moves, low otherwise."""
    epd = tmp_path / "pos.epd"
    white_to_move = chess.Board()
    black_to_move = chess.Board()
    black_to_move.push_san("e4")
    epd.write_text(f'{white_to_move.epd()} c8 "g1"; c9 "0-1";\n{black_to_move.epd()} c8 "g2"; c9 "1-0";\n')
    out = tmp_path / "scored.epd"
    engine = f"{sys.executable} {FAKE_ENGINE} up 1000"
    assert main(["tune", "score", str(epd), "--out", str(out), "--engine", engine, "--depth", "1"]) == 0
    assert "positions scored: 2" in capsys.readouterr().out
    records = [(board.epd(), ops["c8"], float(ops["c9"])) for _, board, ops, _ in epd_records(out)]
    high = round(tune.expected_result(900), 4)
    assert records == [(white_to_move.epd(), "g1", high), (black_to_move.epd(), "g2", round(1 - high, 4))]
    labelled = tune.read_labelled([out])
    np.testing.assert_allclose(labelled.results, [high, round(1 - high, 4)])
    assert labelled.groups == ["g1", "g2"]
