"""``transpo lab odds``: the closed-form arithmetic of hash collisions, and the old threads' figures checked.

Three questions, each answered by a formula (and the first one also by a seeded
Monte Carlo run, so the formula is not taken on trust):

* **Birthday bound.**  With ``n`` keys of ``b`` random bits stored, the chance that
  two of them are equal is ``1 - prod_{i<n} (1 - i/2^b)``.  The usual inverse,
  ``n = sqrt(2 * 2^b * ln(1/(1-p)))``, gives the number of keys for chance ``p``;
  the exact product is evaluated too (a power-sum series when ``n`` is too large to
  multiply out) and solved for the smallest ``n`` by bisection.
* **Koistinen's rule.**  A probe that compares ``s`` live slots against a
  ``h = 2^bits`` signature falsely matches with chance ``~ s/h``; over ``p`` probes
  the expected number of false hits is ``s*p/h`` (exactly ``1 - (1 - 1/h)^(s*p)``
  for "at least one").
* **False hits per second** of a full table: ``nps * probes_per_node * slots / 2^e``,
  where ``e = min(signature bits, 64 - index bits)``: the bucket index already fixes
  the low key bits, so signature bits that overlap them tell nothing apart.

The claims checked come from the thread "hashing function" (rec.games.chess.computer,
Oct 2000: Chris Mayer, Urban Koistinen) and Dan Newman's post on measuring hash
errors (Computer Chess Club, 10 Oct 1997).  Each is a :class:`~transpo.lab.claims.Claim`
and its verdict is computed by comparing the recomputed figure with it.

Rows carry a ``section`` (``birthday``, ``montecarlo``, ``claim``, ``false-hits``);
each section prints as its own table.  ``--seed`` seeds the Monte Carlo run.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from transpo.executors import Placement
from transpo.lab.claims import Claim, Verdict, judge
from transpo.lab.options import (
    Bounds,
    CommonConfig,
    add_common_options,
    add_list_option,
    common_config,
    float_type,
    int_type,
)
from transpo.lab.report import Report, Row, Section, emit, log_axis, make_report, pyplot, save_figure
from transpo.lab.runner import run_parallel

SECONDS_PER_YEAR = 365.25 * 86400
DEFAULT_BITS = (16, 32, 48, 64)
DEFAULT_SIGNATURE_BITS = (16, 24, 32, 40, 48, 64)
DEFAULT_MC_BITS = (16, 24, 32)
MC_BATCH = 25  # Monte Carlo trials per parallel task
MC_STANDARD_ERRORS = 3  # the Monte Carlo agrees with the formula within this many standard errors
KEY_BITS = Bounds("key bits", 1, 64)
MC_BITS = Bounds("Monte Carlo key bits", 4, 40)  # the Monte Carlo stores ~sqrt(2^bits) keys
PROBABILITY = Bounds("probability", 0, 1, low_open=True, high_open=True)

# Dan Newman's measurements (Computer Chess Club, 10 Oct 1997): total hash bits (index + key) -> errors/s he saw,
# as (low, high).  At 41 bits he saw "only 3 errors over a few minutes": read as 3 in 180 s.
NEWMAN_INDEX_BITS = 20
NEWMAN_KNPS = (70e3, 120e3)
NEWMAN_DATA = {29: (600.0, 900.0), 33: (0.0, 8.0), 37: (0.0, 1.0), 41: (3 / 180, 3 / 180)}


# --- the formulas ------------------------------------------------------------------


def birthday_keys(bits: int, probability: float) -> float:
    """Keys of ``bits`` random bits to store for a collision with chance ``probability`` (square-root form)."""
    return math.sqrt(2.0 * 2.0**bits * math.log(1.0 / (1.0 - probability)))


def collision_probability(n: int, bits: int) -> float:
    """Exact chance that ``n`` uniform ``bits``-bit keys hold a repeat: ``1 - prod_{i<n} (1 - i/2^bits)``."""
    n = int(n)
    space = 1 << bits
    if n <= 1:
        return 0.0
    if n > space:
        return 1.0
    if n <= 4_000_000:  # multiply it out, in logs
        log_none = 0.0
        for start in range(0, n, 1_000_000):
            i = np.arange(start, min(n, start + 1_000_000), dtype=np.float64)
            log_none += float(np.log1p(-i / space).sum())
        return -math.expm1(log_none)
    if n * 1000 >= space:  # more than 4e6 keys in a space under 4e9: n^2/2N > 2000, no chance of no repeat
        return 1.0
    # ln prod (1 - i/N) = -sum_k S_k / (k N^k), S_k = sum_{i<n} i^k; n/N < 1e-3, so k <= 3 is exact in doubles.
    s1 = n * (n - 1) // 2
    s2 = (n - 1) * n * (2 * n - 1) // 6
    s3 = s1 * s1
    log_none = -(s1 / space + s2 / (2 * space**2) + s3 / (3 * space**3))
    return -math.expm1(log_none)


def birthday_keys_exact(bits: int, probability: float) -> int:
    """The smallest ``n`` whose exact collision chance reaches ``probability`` (bisection on the product)."""
    guess = max(2, int(birthday_keys(bits, probability)))
    low, high = max(1, guess // 2), guess * 2 + 2
    while collision_probability(low, bits) >= probability and low > 1:
        low //= 2
    while collision_probability(high, bits) < probability:
        high *= 2
    while high - low > 1:
        mid = (low + high) // 2
        if collision_probability(mid, bits) >= probability:
            high = mid
        else:
            low = mid
    return high


def koistinen(slots: float, probes: float, values: float) -> float:
    """Koistinen's ``s*p/h``: expected false matches (and, when small, the chance of one)."""
    return slots * probes / values


def koistinen_exact(slots: float, probes: float, values: float) -> float:
    """Chance of at least one false match: ``1 - (1 - 1/h)^(s*p)``."""
    return -math.expm1(slots * probes * math.log1p(-1.0 / values))


def probes_until(probability: float, per_probe: float) -> float:
    """Probes until at least one false match has chance ``probability``, each probe matching with ``per_probe``."""
    return math.log1p(-probability) / math.log1p(-per_probe)


def effective_signature_bits(signature_bits: int, entries: int, slots: int) -> int:
    """Signature bits that can tell apart two keys already in the same bucket (index = low key bits)."""
    buckets = max(1, entries // slots)
    index_bits = buckets.bit_length() - 1
    return min(signature_bits, 64 - index_bits)


def false_hits_per_second(nps: float, probes_per_node: float, slots: int, signature_bits: int, entries: int) -> float:
    """Expected false hits per second of a full table (Koistinen's rule per probe times probes per second)."""
    bits = effective_signature_bits(signature_bits, entries, slots)
    return nps * probes_per_node * slots / 2.0**bits


def number_text(value: float) -> str:
    """A figure for the terminal: 160,416 / 1.051e10 / 0.003906 / 4.47e-05."""
    if value == 0:
        return "0"
    if abs(value) >= 1e7:
        return f"{value:.4g}".replace("e+0", "e").replace("e+", "e")
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1e-3:
        return f"{value:.4g}"
    return f"{value:.3g}"


def human_interval(seconds: float) -> str:
    """'12 ms', '3.4 h', '2.1e+06 years'."""
    if not math.isfinite(seconds):
        return "never"
    for unit, size in (("years", SECONDS_PER_YEAR), ("days", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0)):
        if seconds >= size:
            value = seconds / size
            return f"{value:.3g} {unit}" if value < 1e4 else f"{value:.2e} {unit}"
    return f"{seconds * 1000:.3g} ms"


# --- Monte Carlo check of the birthday bound -----------------------------------------


def first_collisions(bits: int, seed: int, trials: Sequence[int]) -> list[int]:
    """Per trial: how many uniform ``bits``-bit keys were stored when the first repeat arrived (the repeat included)."""
    out = []
    block = int(3 * math.sqrt(2.0**bits)) + 16  # P(no repeat in 3*sqrt(N)) = e^-4.5: one block nearly always does
    for trial in trials:
        rng = np.random.default_rng([seed, bits, trial])
        keys = np.empty(0, dtype=np.uint64)
        first = 0
        while not first:
            keys = np.concatenate([keys, rng.integers(0, 1 << bits, size=block, dtype=np.uint64)])
            ordered = np.sort(keys)
            repeated = ordered[1:][ordered[1:] == ordered[:-1]]
            seen: set[int] = set()
            for index in np.flatnonzero(np.isin(keys, repeated)):  # a handful: scan them in draw order
                value = int(keys[index])
                if value in seen:
                    first = int(index) + 1
                    break
                seen.add(value)
        out.append(first)
    return out


def _mc_task(item: tuple[int, int, tuple[int, ...]]) -> list[int]:
    """:func:`first_collisions` of one batch (width, seed, trial numbers), for the process pool."""
    bits, seed, trials = item
    return first_collisions(bits, seed, trials)


# --- rows --------------------------------------------------------------------------


def birthday_rows(bits_list: Sequence[int], probability: float) -> list[Row]:
    """Per width: keys for ``probability`` by the square-root form and by the exact product."""
    rows = []
    for bits in bits_list:
        n = birthday_keys(bits, probability)
        exact = birthday_keys_exact(bits, probability)
        check = collision_probability(round(n), bits)
        rows.append(
            {
                "section": "birthday",
                "bits": bits,
                "probability": probability,
                "n_keys": n,
                "n_keys_exact": exact,
                "p_exact_at_n_keys": check,
                "n_keys_50": birthday_keys(bits, 0.5),
                "n_keys_text": number_text(n),
                "n_keys_exact_text": f"{exact:,}",
                "n_keys_50_text": number_text(birthday_keys(bits, 0.5)),
                "p_exact_at_n_keys_exact": collision_probability(exact, bits),
            }
        )
    return rows


def montecarlo_rows(
    bits_list: Sequence[int], probability: float, trials: int, seed: int, placement: Placement
) -> list[Row]:
    """Per width: the fraction of seeded trials that collided within the exact ``n`` for ``probability``.

    The verdict is "agrees" when that fraction lies within 3 standard errors of ``probability``.
    """
    if not bits_list or trials <= 0:
        return []
    items = [
        (bits, seed, tuple(range(start, min(trials, start + MC_BATCH))))
        for bits in bits_list
        for start in range(0, trials, MC_BATCH)
    ]
    results = run_parallel(_mc_task, items, placement, "birthday Monte Carlo")
    rows = []
    for bits in bits_list:
        firsts = np.array([n for item, res in zip(items, results, strict=True) if item[0] == bits for n in res])
        n_p = birthday_keys_exact(bits, probability)
        hit = float(np.mean(firsts <= n_p))
        se = math.sqrt(probability * (1 - probability) / len(firsts))
        formula = Claim("birthday bound", f"P(a repeat among {n_p:,} {bits}-bit keys) = {probability:g}", probability,
                        "fraction of trials collided by then", absolute_tolerance=MC_STANDARD_ERRORS * se)  # fmt: skip
        agrees = judge(formula, hit).holds
        rows.append(
            {
                "section": "montecarlo",
                "bits": bits,
                "trials": len(firsts),
                "n_keys_exact": n_p,
                "probability": probability,
                "fraction_collided": hit,
                "standard_error": se,
                "median_first_collision": float(np.median(firsts)),
                "median_predicted": birthday_keys(bits, 0.5),
                "median_first_collision_text": number_text(float(np.median(firsts))),
                "median_predicted_text": number_text(birthday_keys(bits, 0.5)),
                "mean_first_collision": float(firsts.mean()),
                "mean_predicted": math.sqrt(math.pi / 2 * 2.0**bits) + 2 / 3,
                "verdict": "agrees" if agrees else "DISAGREES",
            }
        )
    return rows


def claim_row(claim: Claim, verdict: Verdict, verdict_text: str, note: str, **extra: Any) -> Row:
    """A ``claim`` row: who, the claim, the thread's figure, the correct one, the verdict and a note."""
    return {
        "section": "claim",
        "who": claim.who,
        "case": claim.statement,
        "thread": claim.claimed,
        "correct": verdict.figure,
        "thread_text": number_text(claim.claimed),
        "correct_text": number_text(verdict.figure),
        "ratio": verdict.figure / claim.claimed if claim.claimed else None,
        "verdict": verdict_text,
        "note": note,
        **extra,
    }


def claim_rows() -> list[Row]:
    """The threads' own figures, recomputed: claim, thread's figure, correct figure, computed verdict (+ note)."""
    rows: list[Row] = []
    for bits, said in ((32, "20,991"), (64, "1.3e9")):
        n95 = birthday_keys(bits, 0.95)
        n05 = birthday_keys(bits, 0.05)
        claim = Claim.quoted("Mayer", f"{bits}-bit keys stored for a 95% chance of a collision", said,
                             f"sqrt(2*2^{bits}*ln(1/(1-0.95)))", mistakes=(("the 5% point", n05),))  # fmt: skip
        verdict = judge(claim, n95)
        at_thread = collision_probability(int(claim.claimed), bits)
        rows.append(claim_row(
            claim, verdict, verdict.text,
            f"sqrt(2*2^{bits}*ln(1/0.95)) = {number_text(n05)}: with that many keys one is 95% sure of NO collision; "
            f"the chance of one at {number_text(claim.claimed)} keys is {at_thread:.3f}",
            bits=bits, n_keys_5pct=n05, p_at_thread_figure=at_thread,
        ))  # fmt: skip
    per_probe = 2.0**20 / 2.0**64
    expected = koistinen_exact(1, 1.67e13, 2.0**44)
    claim = Claim.quoted(
        "Mayer", "2^20 full entries, 64-bit keys: positions for a 95% chance of a false match", "1.67e13",
        "probes until P(a false match) = 0.95, 2^20/2^64 per probe",
        mistakes=((f"0.95 EXPECTED matches (P = {expected:.0%})", 0.95 / per_probe),),
    )  # fmt: skip
    verdict = judge(claim, probes_until(0.95, per_probe))
    rows.append(claim_row(
        claim, verdict, verdict.text,
        "1.67e13 = 0.95*2^44, where 0.95 false matches are expected (P = 61%); the 95% point is ln(20)*2^44; "
        f"his equation (1-2^-44)^N = 0.95 solves for P = 5%: N = {number_text(probes_until(0.05, per_probe))}",
        per_probe=per_probe, n_expected_095=0.95 / per_probe, p_at_thread_figure=expected,
        n_5pct=probes_until(0.05, per_probe),
    ))  # fmt: skip
    exact = koistinen_exact(1, 2.0**32, 2.0**40)
    claim = Claim("Koistinen", "s=1, p=2^32, h=2^40: chance of a crash", 1 / 256, "s*p/h")
    verdict = judge(claim, koistinen(1, 2.0**32, 2.0**40))
    note = "s*p/h = 2^-8 exactly; 1-(1-2^-40)^(2^32) = 1-exp(-1/256) is 0.2% lower"
    rows.append(claim_row(claim, verdict, f"{verdict.text} (exact {exact:.6f})", note, exact=exact))
    rate53 = 750.0 / 2.0 ** (53 - 29)
    rate64 = 750.0 / 2.0 ** (64 - 29)
    for statement, said, figure, note in (
        ("750 errors/s at 29 bits, halved per bit: errors/s at 53 bits", "4.47e-5", rate53, "750 / 2^24 per second"),
        ("errors/hour at 53 bits", "0.16", rate53 * 3600, "750 / 2^24 * 3600"),
        ("errors/year at 64 bits", "0.7", rate64 * SECONDS_PER_YEAR, "750 / 2^35 * 3.156e7"),
    ):
        claim = Claim.quoted("Newman", statement, said, note)
        verdict = judge(claim, figure)
        rows.append(claim_row(claim, verdict, verdict.text, note))
    rows.append(newman_data_row())
    return rows


def newman_data_row() -> Row:
    """Newman's own measurements at 33..41 bits against his halving law and his 750/s anchor at 29 bits."""
    mids = {bits: (low + high) / 2 for bits, (low, high) in NEWMAN_DATA.items()}
    xs = np.array([b for b in mids if b > 29], dtype=float)
    slope, intercept = np.polyfit(xs, np.log2([mids[b] for b in xs]), 1)
    at29 = float(2.0 ** (intercept + slope * 29))
    halving = judge(Claim("Newman", "each added bit halves the error rate", 2.0,
                          "factor per bit of the least-squares line through his 33/37/41-bit rates",
                          absolute_tolerance=0.2), 2.0**-slope)  # fmt: skip
    anchor = judge(Claim.quoted("Newman", "750 errors/s at 29 bits", "750", "that line at 29 bits"), at29)
    claim = Claim("Newman", "errors/year at 64 bits from his own 33/37/41-bit data (least squares on log2)", 0.7,
                  "that line at 64 bits")  # fmt: skip
    return claim_row(
        claim,
        judge(claim, float(2.0 ** (intercept + slope * 64) * SECONDS_PER_YEAR)),
        f"halving {halving.short}; 750/s anchor {anchor.short}",
        f"rate falls x{2**-slope:.2f} per bit from 33 to 41 bits; that line gives "
        f"{at29:.0f}/s at 29 bits, not 750 (range midpoints; 41 bits read as 3 in 180 s)",
        slope_log2_per_bit=float(slope),
        intercept_log2=float(intercept),
        rate_at_29_from_fit=at29,
    )


def false_hit_rows(
    signature_bits: Sequence[int], nps: float, probes_per_node: float, slots: int, entries: int
) -> list[Row]:
    """Per signature width: false hits per probe, second and hour of a full table, and one every how long."""
    rows = []
    for bits in signature_bits:
        eff = effective_signature_bits(bits, entries, slots)
        rate = false_hits_per_second(nps, probes_per_node, slots, bits, entries)
        rows.append(
            {
                "section": "false-hits",
                "signature_bits": bits,
                "effective_bits": eff,
                "entries": entries,
                "slots": slots,
                "nps": nps,
                "probes_per_node": probes_per_node,
                "per_probe": slots / 2.0**eff,
                "per_second": rate,
                "per_hour": rate * 3600,
                "interval": human_interval(1.0 / rate),
            }
        )
    return rows


# --- output ------------------------------------------------------------------------


SECTIONS: tuple[Section, ...] = (
    (
        "claim",
        (
            ("who", "who"),
            ("case", "claim"),
            ("thread_text", "thread says"),
            ("correct_text", "correct"),
            ("verdict", "verdict"),
        ),
        "The seed threads' figures, recomputed",
    ),
    (
        "birthday",
        (
            ("bits", "bits"),
            ("probability", "P"),
            ("n_keys_text", "keys: sqrt(2·2^b·ln 1/(1-P))"),
            ("n_keys_exact_text", "keys: exact product"),
            ("p_exact_at_n_keys", "exact P at sqrt form"),
            ("n_keys_50_text", "keys for P=0.5"),
        ),
        "Birthday bound: stored keys until two are equal",
    ),
    (
        "montecarlo",
        (
            ("bits", "bits"),
            ("trials", "trials"),
            ("n_keys_exact", "n for P"),
            ("fraction_collided", "fraction collided by n"),
            ("standard_error", "s.e."),
            ("median_first_collision_text", "median first repeat"),
            ("median_predicted_text", "predicted median"),
            ("verdict", "verdict"),
        ),
        "Monte Carlo: uniform random keys, first repeat",
    ),
    (
        "false-hits",
        (
            ("signature_bits", "signature bits"),
            ("effective_bits", "effective bits"),
            ("per_probe", "false hit / probe"),
            ("per_second", "false hits / s"),
            ("per_hour", "false hits / h"),
            ("interval", "one every"),
        ),
        "False hits of a full table (Koistinen: s·p/h)",
    ),
)


def plot_odds(report: dict[str, Any], path: str) -> None:
    """Left: collision chance vs stored keys per bit width, the thread's cases marked.  Right: Newman's data."""
    plt = pyplot()

    config = report["config"]
    probability = config["probability"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.2))
    top = max(19.0, (max(config["bits"]) / 2 + 3) * math.log10(2))
    for bits in config["bits"]:
        n = np.logspace(0, (bits / 2 + 3) * math.log10(2), 600)
        p = -np.expm1(-n * (n - 1) / (2 * 2.0**bits))
        left.plot(n, p, label=f"{bits}-bit keys")
    probes = np.logspace(10.5, 15, 400)
    left.plot(
        probes, -np.expm1(-probes / 2.0**44), "k--", lw=1, label="2^20 entries full,\n64 bits: false match\nin n probes"
    )
    left.axhline(probability, color="grey", ls="--", lw=0.8)
    left.axhline(1 - probability, color="grey", ls=":", lw=0.8)
    for row in report["rows"]:
        if row["section"] != "claim" or "p_at_thread_figure" not in row:
            continue
        left.plot(row["thread"], row["p_at_thread_figure"], "rx", ms=9, mew=2)
        left.annotate(
            f"Mayer\n{row['thread_text']}\nP={row['p_at_thread_figure']:.2f}",
            (row["thread"], row["p_at_thread_figure"]),
            textcoords="offset points",
            xytext=(-5, 8),  # up and to the left: the curve through the mark runs to the right and up
            ha="right",
            color="red",
            fontsize=7,
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85},
        )
        left.plot(row["correct"], 0.95, "ko", mfc="none", ms=8)
        left.annotate(
            row["correct_text"], (row["correct"], 0.95), textcoords="offset points", xytext=(6, -12), fontsize=7
        )
    left.set_xscale("log")
    left.set_xlim(1, 10**top)
    left.set_xlabel("keys stored (or probes of a full table)")
    left.set_ylabel("probability of at least one collision")
    left.set_title("Birthday bound: x = Mayer's figures, o = the 95% points")
    left.legend(loc="lower right", bbox_to_anchor=(1.0, 0.12), fontsize=7)

    bits = np.arange(27, 66)
    right.plot(bits, 750.0 / 2.0 ** (bits - 29), "C1-", label="Newman: 750/s at 29 bits, halved per bit")
    for knps in NEWMAN_KNPS:
        right.plot(bits, knps / 2.0 ** (bits - NEWMAN_INDEX_BITS), "C0:", lw=1)
    right.fill_between(
        bits,
        NEWMAN_KNPS[0] / 2.0 ** (bits - NEWMAN_INDEX_BITS),
        NEWMAN_KNPS[1] / 2.0 ** (bits - NEWMAN_INDEX_BITS),
        color="C0",
        alpha=0.15,
        label="s·p/h: 70-120k probes/s, s=1, 20 index bits",
    )
    for b, (low, high) in NEWMAN_DATA.items():
        mid = (low + high) / 2
        right.errorbar([b], [mid], yerr=[[mid - max(low, mid / 100)], [high - mid]], fmt="ks", capsize=3)
    right.plot([], [], "ks", label="Newman's measurements (range)")
    log_axis(right)
    right.set_xlabel("hash bits (index + compared signature)")
    right.set_ylabel("false hits per second")
    right.set_title("Newman's error rates against the rule")
    right.legend(fontsize=8)
    right.grid(alpha=0.3)
    save_figure(fig, path)


# --- command -----------------------------------------------------------------------


@dataclass(frozen=True)
class OddsConfig:
    """A checked ``lab odds`` run: the table and search it describes, and the Monte Carlo check."""

    common: CommonConfig
    bits: tuple[int, ...]
    probability: float
    nps: float
    entries: int
    slots: int
    signature_bits: tuple[int, ...]
    probes_per_node: float
    mc_bits: tuple[int, ...]
    trials: int


def configure(args: argparse.Namespace) -> OddsConfig:
    """The checked configuration of a ``lab odds`` run (no positions: it is arithmetic)."""
    common = common_config(args, uses_positions=False)
    if args.entries < args.slots:
        raise ValueError(f"--entries ({args.entries}) must be at least --slots ({args.slots})")
    return OddsConfig(
        common=common,
        bits=tuple(args.bits),
        probability=args.probability,
        nps=args.nps,
        entries=args.entries,
        slots=args.slots,
        signature_bits=tuple(args.signature_bits),
        probes_per_node=args.probes_per_node,
        mc_bits=tuple(args.mc_bits),
        trials=args.trials,
    )


def build_report(config: OddsConfig) -> Report:
    """Every section's rows and the headline figures (the Monte Carlo runs over ``--jobs`` processes)."""
    report_config = {
        "bits": list(config.bits),
        "probability": config.probability,
        "nps": config.nps,
        "entries": config.entries,
        "slots": config.slots,
        "signature_bits": list(config.signature_bits),
        "probes_per_node": config.probes_per_node,
        "mc_bits": list(config.mc_bits),
        "trials": config.trials,
        "seed": config.common.seed,
        "jobs": config.common.jobs,
    }
    rows = birthday_rows(config.bits, config.probability)
    common = config.common
    rows += montecarlo_rows(config.mc_bits, config.probability, config.trials, common.seed, common.placement)
    rows += false_hit_rows(config.signature_bits, config.nps, config.probes_per_node, config.slots, config.entries)
    rows += claim_rows()
    return make_report("odds", report_config, rows, summarize(config, rows))


def summarize(config: OddsConfig, rows: Sequence[Row]) -> dict[str, Any]:
    """The headline figures: keys for the probability at 32 and 64 bits, the threads' cases, claims found wrong."""
    summary: dict[str, Any] = {}
    for bits in (32, 64):
        summary[f"keys_for_{config.probability:g}_at_{bits}_bits"] = birthday_keys(bits, config.probability)
    summary["koistinen_s1_p2^32_h2^40"] = koistinen(1, 2.0**32, 2.0**40)
    summary["mayer_1M_entries_95pct_positions"] = probes_until(0.95, 2.0**-44)
    full = max(config.signature_bits)
    summary[f"false_hits_per_hour_at_{full}_signature_bits"] = (
        false_hits_per_second(config.nps, config.probes_per_node, config.slots, full, config.entries) * 3600
    )
    summary["claims_wrong"] = sum(1 for r in rows if r["section"] == "claim" and r["verdict"].startswith("wrong"))
    return summary


def run(args: argparse.Namespace) -> None:
    """``lab odds``: configure, compute, print and write."""
    config = configure(args)
    emit(build_report(config), config.common, SECTIONS, plot_odds)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``lab odds``."""
    parser = subparsers.add_parser(
        "odds",
        help="collision arithmetic: birthday bound, Koistinen's s·p/h, false hits per second; the threads checked",
        description=__doc__.split("\n\n")[0],
    )
    add_list_option(parser, "--bits", DEFAULT_BITS, "key widths for the birthday bound", bounds=KEY_BITS)
    parser.add_argument("--probability", type=float_type(PROBABILITY), default=0.95, metavar="P",
                        help="collision chance to solve for (default 0.95)")  # fmt: skip
    parser.add_argument("--nps", type=float_type(Bounds("nodes per second", 0, low_open=True)), default=1e6,
                        help="nodes per second (default 1e6)")  # fmt: skip
    parser.add_argument("--entries", type=int_type(Bounds("entries", 1)), default=4 * 2**20,
                        help="table entries (default 4194304: 64 MB of 16-byte entries)")  # fmt: skip
    parser.add_argument("--slots", type=int_type(Bounds("slots", 1)), default=4,
                        help="slots compared per probe, i.e. per bucket (default 4)")  # fmt: skip
    add_list_option(parser, "--signature-bits", DEFAULT_SIGNATURE_BITS, "signature widths for the false-hit rates",
                    bounds=KEY_BITS)  # fmt: skip
    parser.add_argument("--probes-per-node", type=float_type(Bounds("probes per node", 0, low_open=True)),
                        default=1.0, help="table probes per node (default 1)")  # fmt: skip
    add_list_option(parser, "--mc-bits", DEFAULT_MC_BITS, "key widths for the Monte Carlo check (no item: skip it)",
                    bounds=MC_BITS, allow_empty=True)  # fmt: skip
    parser.add_argument("--trials", type=int_type(Bounds("trials", 1)), default=400,
                        help="Monte Carlo trials per width (default 400)")  # fmt: skip
    add_common_options(parser, "seed of the Monte Carlo check (numpy generators seeded by seed, width, trial)")
    parser.set_defaults(func=run)
