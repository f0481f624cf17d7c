"""The statistics of the lab: geometric mean, Poisson intervals, the normal quantile and two slopes.

Plain Python and numpy (scipy is not a dependency).  The maths is exactly what
the experiments have always used, so the reports do not change.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence

import numpy as np

# The exact Garwood interval sums the Poisson series term by term; past this many
# events the normal approximation is as good and much cheaper.
EXACT_POISSON_LIMIT = 400
Z_975 = 1.959963984540054  # the 97.5 % point of the standard normal: a 95 % two-sided interval


def geometric_mean(values: Sequence[float]) -> float | None:
    """exp(mean(log v)) over the positive values; None if there are none."""
    positive = [v for v in values if v > 0]
    if not positive:
        return None
    return float(math.exp(sum(math.log(v) for v in positive) / len(positive)))


def normal_quantile(p: float) -> float:
    """The standard normal quantile: the ``z`` with P(Z <= z) = ``p`` (bisection on erfc)."""
    low, high = -10.0, 10.0
    for _ in range(100):
        middle = (low + high) / 2
        if 0.5 * math.erfc(-middle / math.sqrt(2)) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def poisson_cdf(count: int, mean: float) -> float:
    """P(X <= ``count``) for X ~ Poisson(``mean``)."""
    if mean == 0:
        return 1.0
    term = math.exp(-mean)
    total = term
    for i in range(1, count + 1):
        term *= mean / i
        total += term
    return min(1.0, total)


def _bisect(inside: Callable[[float], bool], low: float, high: float) -> float:
    """The boundary between ``inside`` (true below it) and not, to the last bit after 100 halvings."""
    for _ in range(100):
        middle = (low + high) / 2
        if inside(middle):
            low = middle
        else:
            high = middle
    return (low + high) / 2


def poisson_interval(count: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Garwood) interval for a Poisson mean given ``count`` events; normal approximation past 400."""
    tail = (1 - level) / 2
    if count > EXACT_POISSON_LIMIT:
        z = Z_975 if level == 0.95 else normal_quantile(1 - tail)
        half = z * math.sqrt(count)
        return max(0.0, count - half), count + half
    search_top = count + 10 * math.sqrt(count + 1) + 10
    upper = _bisect(lambda mean: poisson_cdf(count, mean) > tail, 0.0, search_top)
    lower = 0.0 if count == 0 else _bisect(lambda mean: 1 - poisson_cdf(count - 1, mean) < tail, 0.0, search_top)
    return lower, upper


def ols_slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Least-squares slope of ys on xs (None with fewer than two distinct xs)."""
    if len(xs) < 2 or len(set(xs)) < 2:
        return None
    return float(np.polyfit(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), 1)[0])


def poisson_slope(
    bits: Sequence[float],
    events: Sequence[int],
    trials: Sequence[float],
    groups: Sequence[Hashable] | None = None,
) -> tuple[float, float, float] | None:
    """Maximum-likelihood common slope ``s`` of ``events ~ Poisson(trials * 2**(a_g + s*bits))``.

    Returns (s, se, dispersion).  Each group ``g`` (e.g. a table size and policy)
    gets its own intercept ``a_g``; all share the slope.  Zero counts take part (a
    plain log-log fit has to drop them).  ``se`` is the Poisson standard error;
    ``dispersion`` is Pearson's chi-square per degree of freedom (1 for pure Poisson
    counts; false hits come in clusters - the same pair of positions can meet again -
    so multiply ``se`` by ``sqrt(dispersion)`` when it exceeds 1).  None if there is
    nothing to fit.
    """
    groups = list(groups) if groups is not None else [0] * len(bits)
    keep = [i for i in range(len(bits)) if trials[i] > 0]
    names = sorted({groups[i] for i in keep}, key=str)
    names = [
        g for g in names if sum(events[i] for i in keep if groups[i] == g) > 0
    ]  # a group with no event has no intercept
    keep = [i for i in keep if groups[i] in names]
    if not keep or len({bits[i] for i in keep}) < 2:
        return None
    x = np.array([bits[i] for i in keep], dtype=float)
    y = np.array([events[i] for i in keep], dtype=float)
    offset = np.log(np.array([trials[i] for i in keep], dtype=float))
    onehot = np.array([[1.0 if groups[i] == g else 0.0 for g in names] for i in keep])
    design = np.column_stack([onehot, x]) * math.log(2)
    theta = np.zeros(design.shape[1])
    theta[-1] = -1.0
    for g in range(len(names)):  # start each intercept at its group's observed rate
        mask = onehot[:, g] > 0
        theta[g] = math.log2(max(y[mask].sum(), 0.5) / np.sum(np.exp(offset[mask]) * 2.0 ** -x[mask]))
    for _ in range(100):  # Newton-Raphson on the Poisson log-likelihood
        mu = np.exp(np.clip(offset + design @ theta, -700, 700))
        gradient = design.T @ (y - mu)
        hessian = (design * mu[:, None]).T @ design
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            return None
        theta = theta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    mu = np.exp(offset + design @ theta)
    try:
        covariance = np.linalg.inv((design * mu[:, None]).T @ design)
    except np.linalg.LinAlgError:
        return None
    dof = len(x) - design.shape[1]
    dispersion = float(np.sum((y - mu) ** 2 / mu) / dof) if dof > 0 else float("nan")
    return float(theta[-1]), float(math.sqrt(max(covariance[-1, -1], 0.0))), dispersion
