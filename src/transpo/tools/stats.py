"""Match statistics: Elo from a score, its 95 % interval, pentanomial pair counts, the GSPRT.

Plain Python (no numpy, no numba).  Scores are from the first engine's point of
view: a game is 0, 1/2 or 1; a *pair* (one opening, colours reversed) is
0, 1/2, 1, 3/2 or 2.  The formulas and their sources:

* **Logistic Elo** of a mean score ``s`` per game: ``Elo(s) = -400 log10(1/s - 1)``
  (the Elo/logistic model used by BayesElo, cutechess-cli and fishtest).
* **Interval**: the per-pair mean score ``s = mean(x_j)/2`` with ``x_j`` the pair
  scores, its standard error ``se = sqrt(var(x_j/2) / N_pairs)`` (pentanomial:
  the pair is the independent unit, so the correlation between the two games of
  a pair is accounted for); without pairs the per-game (trinomial) variance.
  The 95 % interval is ``Elo(s - 1.96 se) .. Elo(s + 1.96 se)``; ``+-`` is half
  its width.  (cutechess-cli and fishtest's ``stat_util`` do the same mapping of
  a normal interval on the score.)
* **GSPRT** (generalized SPRT, Michel Van den Bergh, "A pentanomial model for
  engine testing" / fishtest ``stats/LLRcalc.py``): with the empirical pair
  distribution ``p^_i`` over the outcomes ``a_i`` (the pair score / 2), and
  ``s0, s1`` the scores of ``elo0, elo1`` in the logistic model,
  ``LLR = N * sum_i p^_i log(p_i(s1) / p_i(s0))`` where ``p(s)`` is the maximum
  likelihood distribution with mean ``s``: ``p_i(s) = p^_i / (1 + theta (a_i - s))``
  with ``theta`` the root of ``sum_i p^_i (a_i - s) / (1 + theta (a_i - s)) = 0``
  in ``(-1/(a_max - s), 1/(s - a_min))`` (Van den Bergh, "Maximum likelihood
  estimation for multinomial distributions with a given mean",
  support_MLE_multinomial.pdf, Proposition 1.1).  The same with the three game
  outcomes (trinomial) for unpaired games.
* **Bounds** (Wald): stop when ``LLR <= log(beta / (1 - alpha))`` (H0 accepted) or
  ``LLR >= log((1 - beta) / alpha)`` (H1 accepted).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

Z95 = 1.959963984540054  # the 97.5 % quantile of the standard normal distribution
PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
REGULARIZE = 1e-3  # the count given to an empty outcome cell in the LLR (fishtest's regularize)


def elo_from_score(score: float) -> float:
    """Logistic Elo difference of a mean score per game in [0, 1] (infinite at 0 and 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score per game of an Elo difference (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    """Elo with its 95 % interval, from ``n`` units (pairs or games) with mean score ``score``."""

    score: float
    elo: float
    low: float
    high: float
    units: int

    @property
    def error(self) -> float:
        """Half the width of the interval (infinite while it is unbounded)."""
        if math.isfinite(self.low) and math.isfinite(self.high):
            return (self.high - self.low) / 2
        return math.inf


def _mean_var(values: list[float], weights: list[float]) -> tuple[float, float, float]:
    n = sum(weights)
    mean = sum(v * w for v, w in zip(values, weights)) / n
    var = sum(w * (v - mean) ** 2 for v, w in zip(values, weights)) / n
    return n, mean, var


def elo_estimate(values: tuple[float, ...], counts: list[int]) -> EloEstimate | None:
    """Elo and interval from the counts of outcomes ``values`` (each a score per game in [0, 1])."""
    if sum(counts) == 0:
        return None
    n, mean, var = _mean_var(list(values), [float(c) for c in counts])
    se = math.sqrt(var / n)
    low = elo_from_score(max(0.0, mean - Z95 * se))
    high = elo_from_score(min(1.0, mean + Z95 * se))
    return EloEstimate(mean, elo_from_score(mean), low, high, int(n))


def _mle(values: list[float], probs: list[float], s: float) -> list[float]:
    """The distribution over ``values`` nearest (max. likelihood) to ``probs`` with mean ``s`` (Prop. 1.1)."""
    lo_v, hi_v = min(values), max(values)
    if not lo_v < s < hi_v:
        raise ValueError("the hypothesised score must lie strictly between the extreme outcomes")
    d = [v - s for v in values]

    def f(theta: float) -> float:
        return sum(p * x / (1 + theta * x) for p, x in zip(probs, d))

    eps = 1e-12
    a, b = -1 / (hi_v - s) + eps, 1 / (s - lo_v) - eps
    for _ in range(200):  # bisection: f decreases from +inf to -inf on (a, b) when every p > 0
        mid = (a + b) / 2
        if f(mid) > 0:
            a = mid
        else:
            b = mid
    theta = (a + b) / 2
    return [p / (1 + theta * x) for p, x in zip(probs, d)]


def llr(values: tuple[float, ...], counts: list[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0), logistic Elo.

    ``values`` are the outcomes as scores per game (pairs: 0, 1/4, 1/2, 3/4, 1)
    and ``counts`` how often each occurred.  As in fishtest, an empty cell counts
    ``REGULARIZE`` (so one lopsided outcome alone still moves the LLR); 0 before
    any result.
    """
    if sum(counts) == 0:
        return 0.0
    counts_r = [max(float(c), REGULARIZE) for c in counts]
    n = sum(counts_r)
    probs = [c / n for c in counts_r]
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    p0, p1 = _mle(list(values), probs, s0), _mle(list(values), probs, s1)
    return n * sum(p * math.log(a / b) for p, a, b in zip(probs, p1, p0))


@dataclass(frozen=True)
class SprtConfig:
    """``--sprt elo0=0,elo1=5,alpha=0.05,beta=0.05``."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    @classmethod
    def parse(cls, text: str) -> SprtConfig:
        """``elo0=0,elo1=5,alpha=0.05,beta=0.05`` (any subset; the rest default) -> config; ValueError if bad."""
        values: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = part.partition("=")
            name = name.strip()
            if not sep or name not in ("elo0", "elo1", "alpha", "beta"):
                raise ValueError(f"--sprt: expected elo0=X,elo1=Y,alpha=A,beta=B, not {part!r}")
            try:
                values[name] = float(value)
            except ValueError:
                raise ValueError(f"--sprt: {name} must be a number, not {value!r}") from None
        config = cls(**values)
        if not config.elo0 < config.elo1:
            raise ValueError("--sprt: elo0 must be below elo1")
        if not (0 < config.alpha < 0.5 and 0 < config.beta < 0.5):
            raise ValueError("--sprt: alpha and beta must lie between 0 and 0.5")
        return config


@dataclass
class Tally:
    """The results of one pairing from the first engine's view, game by game and pair by pair."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    pairs: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])  # counts of pair scores 0, .5, 1, 1.5, 2

    def add_game(self, score: float) -> None:
        """Count one game scored ``score`` (1, 1/2, 0) by the first engine."""
        if score == 1:
            self.wins += 1
        elif score == 0:
            self.losses += 1
        else:
            self.draws += 1

    def add_pair(self, score: float) -> None:
        """Count one finished pair scored ``score`` (0..2 in halves)."""
        self.pairs[round(score * 2)] += 1

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Mean score per game (0.5 with no games)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    def elo(self) -> EloEstimate | None:
        """Elo and interval: from the pairs when every game is in one, else from the games."""
        if sum(self.pairs) and 2 * sum(self.pairs) == self.games:
            return elo_estimate(tuple(v / 2 for v in PAIR_SCORES), self.pairs)
        return elo_estimate((0.0, 0.5, 1.0), [self.losses, self.draws, self.wins])

    def llr(self, sprt: SprtConfig) -> float:
        """The pentanomial GSPRT LLR of the finished pairs."""
        return llr(tuple(v / 2 for v in PAIR_SCORES), self.pairs, sprt.elo0, sprt.elo1)


def sprt_verdict(value: float, sprt: SprtConfig) -> str | None:
    """'H1' (accepted: elo1), 'H0' (accepted: elo0) or None (go on)."""
    if value >= sprt.upper:
        return "H1"
    if value <= sprt.lower:
        return "H0"
    return None


def format_elo(value: float) -> str:
    """+12.3, -4.0, +inf."""
    return f"{value + 0.0:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")
