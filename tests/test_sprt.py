"""The match statistics against values computed here independently.

* Elo from a score by the logistic formula, at known points.
* The 95 % interval against the delta method (``se_elo = se_s * 400 / (ln 10 s (1 - s))``).
* The GSPRT LLR against a brute-force maximum likelihood: the log-likelihood of the
  sample maximised over all pentanomial distributions with the hypothesised mean,
  by SciPy's constrained optimiser (SLSQP), for H1 minus H0; and against the
  normal approximation ``N (s1 - s0)(2 m - s0 - s1) / (2 var)`` on a larger sample.
* The stopping logic of ``transpo match --sprt``: synthetic pair results fed to the
  match's bookkeeping (no engines) stop it at the first pair whose LLR crosses a bound.
"""

from __future__ import annotations

import math

import pytest

from transpo.tools.match import GameResult, Match, build_config
from transpo.tools.stats import (
    PAIR_SCORES,
    REGULARIZE,
    SprtConfig,
    Tally,
    elo_estimate,
    elo_from_score,
    llr,
    score_from_elo,
    sprt_verdict,
)

PENTA = tuple(v / 2 for v in PAIR_SCORES)


def test_logistic_elo_at_known_points():
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert elo_from_score(0.75) == pytest.approx(190.848, abs=1e-3)
    assert elo_from_score(1 / 11) == pytest.approx(-400.0)
    assert elo_from_score(0.0) == -math.inf and elo_from_score(1.0) == math.inf
    for elo in (-300, -5, 0, 5, 123.4):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


def test_interval_matches_the_delta_method():
    counts = [30, 160, 420, 190, 40]  # pentanomial: 840 pairs
    est = elo_estimate(PENTA, counts)
    n = sum(counts)
    mean = sum(v * c for v, c in zip(PENTA, counts)) / n
    var = sum(c * (v - mean) ** 2 for v, c in zip(PENTA, counts)) / n
    se_elo = math.sqrt(var / n) * 400 / (math.log(10) * mean * (1 - mean))
    assert est.elo == pytest.approx(-400 * math.log10(1 / mean - 1))
    assert est.error == pytest.approx(1.959964 * se_elo, rel=0.01)
    assert est.low < est.elo < est.high


def test_trinomial_interval_by_hand():
    # 10 wins, 20 draws, 10 losses: s = 0.5, var = (10*.25 + 10*.25) / 40 = 0.125
    est = elo_estimate((0.0, 0.5, 1.0), [10, 20, 10])
    se = math.sqrt(0.125 / 40)
    assert est.high == pytest.approx(-400 * math.log10(1 / (0.5 + 1.959964 * se) - 1), rel=1e-5)
    assert est.low == pytest.approx(-est.high)


def _brute_force_max_loglik(counts, s):
    """max over distributions p on PENTA with mean s of sum counts_i log p_i (SLSQP)."""
    import numpy as np
    from scipy.optimize import minimize

    c = np.array(counts, dtype=float)
    a = np.array(PENTA)
    cons = [{"type": "eq", "fun": lambda p: p.sum() - 1}, {"type": "eq", "fun": lambda p: p @ a - s}]
    best = -math.inf
    for start in (c / c.sum(), np.full(5, 0.2)):
        res = minimize(lambda p: -(c @ np.log(np.maximum(p, 1e-300))), start, constraints=cons,
                       bounds=[(1e-12, 1)] * 5, method="SLSQP", options={"ftol": 1e-14, "maxiter": 1000})  # fmt: skip
        best = max(best, -res.fun)
    return best


@pytest.mark.parametrize("counts", [[1, 3, 7, 4, 2], [0, 2, 5, 6, 3], [4, 6, 9, 2, 1]])
@pytest.mark.parametrize("elo0, elo1", [(0, 5), (-10, 10), (0, 40)])
def test_llr_equals_a_brute_force_likelihood_ratio(counts, elo0, elo1):
    pytest.importorskip("scipy")
    regularized = [max(c, REGULARIZE) for c in counts]  # what llr() does with an empty cell
    expected = _brute_force_max_loglik(regularized, score_from_elo(elo1)) - _brute_force_max_loglik(
        regularized, score_from_elo(elo0)
    )
    assert llr(PENTA, counts, elo0, elo1) == pytest.approx(expected, abs=2e-4)


def test_llr_close_to_the_normal_approximation():
    counts = [20, 150, 400, 180, 50]
    n = sum(counts)
    m = sum(v * c for v, c in zip(PENTA, counts)) / n
    var = sum(c * (v - m) ** 2 for v, c in zip(PENTA, counts)) / n
    s0, s1 = score_from_elo(0), score_from_elo(5)
    approx = n * (s1 - s0) * (2 * m - s0 - s1) / (2 * var)
    assert llr(PENTA, counts, 0, 5) == pytest.approx(approx, rel=0.02)


def test_bounds_and_parsing():
    sprt = SprtConfig.parse("elo0=0,elo1=5,alpha=0.05,beta=0.05")
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95)) and sprt.upper == pytest.approx(math.log(0.95 / 0.05))
    assert SprtConfig.parse("elo1=10").elo1 == 10
    for bad in ("elo0=5,elo1=0", "alpha=0.7", "gamma=1", "elo0=x"):
        with pytest.raises(ValueError):
            SprtConfig.parse(bad)
    assert sprt_verdict(3.0, sprt) == "H1" and sprt_verdict(-3.0, sprt) == "H0" and sprt_verdict(0.0, sprt) is None


def test_tally_counts_pairs():
    t = Tally()
    for a, b in [(1, 1), (1, 0.5), (0.5, 0.5), (0, 1), (0, 0.5), (0, 0)]:
        t.add_game(a)
        t.add_game(b)
        t.add_pair(a + b)
    assert (t.wins, t.draws, t.losses) == (4, 4, 4)
    assert t.pairs == [1, 1, 2, 1, 1]


def _match(tmp_path, sprt):
    config = build_config(["a=true", "b=true"], [], 400, "1+0", sprt=sprt, json=str(tmp_path / "m.json"))
    return Match(config)


def _feed(match, pair_scores):
    """Feed games whose pairs score ``pair_scores`` (first engine's view); the pairs fed before the stop."""
    fed = 0
    for pair, score in enumerate(pair_scores):
        if match.stop.is_set():
            break
        first = {2: (1, 1), 1.5: (1, 0.5), 1: (0.5, 0.5), 0.5: (0.5, 0), 0: (0, 0)}[score]
        for k, s in enumerate(first):
            white, black = ("a", "b") if k == 0 else ("b", "a")
            result = "1/2-1/2" if s == 0.5 else ("1-0" if (s == 1) == (white == "a") else "0-1")
            match._record(GameResult(2 * pair + k, 0, pair, pair, "", white, black, result, "test"))
        fed += 1
    return fed


def test_sprt_stops_at_the_first_crossing_of_the_upper_bound(tmp_path):
    match = _match(tmp_path, "elo0=0,elo1=10")
    sequence = [2, 1.5, 1, 1.5, 2, 1.5, 0.5, 1.5, 2, 1] * 40  # lopsided: about +190 Elo
    fed = _feed(match, sequence)
    state = match.states[0]
    assert match.stop.is_set() and state.verdict == "H1"
    history = state.llr_history
    assert len(history) == fed < len(sequence)
    assert history[-1] >= match.config.sprt.upper and all(v < match.config.sprt.upper for v in history[:-1])
    assert "H1 accepted" in match.stopped_by


def test_sprt_accepts_h0_on_a_losing_sequence(tmp_path):
    match = _match(tmp_path, "elo0=0,elo1=10")
    fed = _feed(match, [0, 0.5, 1, 0.5, 0, 1, 0.5, 0.5] * 50)
    assert match.states[0].verdict == "H0" and fed < 400
    assert match.states[0].llr_history[-1] <= match.config.sprt.lower
