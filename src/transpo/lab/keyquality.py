"""``transpo lab keys``: how good are the Zobrist key sets, as bit patterns and along games?

For each key set (``polyglot``, ``prng``, ``knuth``: the 781 keys of
:func:`transpo.core.keys.raw_key_set`) and each width ``b`` in 16, 32, 64 the keys are
truncated two ways, because the table uses both ends of a key:

* ``high``: the top ``b`` bits (``key >> (64 - b)``), what a ``b``-bit *signature* compares;
* ``low``: the bottom ``b`` bits (``key & (2^b - 1)``), where the bucket *index* comes from.

Measured per truncation:

* **GF(2) rank** of the 781 x b bit matrix (at most ``b``): below ``b``, some key bit is an
  XOR of others and the keys span fewer than ``2^b`` values.
* **Dependent subsets** of at most 4 keys whose XOR is zero (a zero key, two equal keys,
  ``a^b == c``, ``a^b == c^d``): a position change that toggles exactly those keys leaves the key
  unchanged, so two different positions collide by construction, whatever the table size.
* **Pairwise Hamming distance** (minimum and mean over all 304,590 pairs) and **per-bit
  balance** (fraction of ones per bit, largest deviation from 1/2).
* **Linear complexity** of each bit column (Berlekamp-Massey over the 781 keys in order):
  about 390 for random bits; a generator whose bit follows a short linear recurrence shows it here.

Along games (64-bit keys): the Hamming distance between the keys of positions ``k`` plies apart
in seeded random legal playouts, ``k`` = 1..32, and between random positions of different games,
to test the claim in the thread "hashing function" (rec.games.chess.computer, Oct 2000) that
positions close in the game have close (or should have far) keys.

``--seed`` seeds the random playouts and the choice of the random pairs; ``--key-seed``
seeds the ``prng`` key set.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from transpo.core.keys import RAW_KEYS, key_set, raw_key_set
from transpo.core.position import Position
from transpo.lab.keysums import expected_zero_sums, zero_sum_subsets
from transpo.lab.options import (
    Bounds,
    CommonConfig,
    add_combine_list,
    add_common_options,
    add_list_option,
    checked,
    choice_of,
    common_config,
    int_type,
    parse_seed,
)
from transpo.lab.report import Report, Row, Section, emit, make_report, pyplot, save_figure
from transpo.lab.runner import run_parallel
from transpo.settings import DEFAULT_PRNG_SEED, KEY_SET_NAMES

DEFAULT_WIDTHS = (16, 32, 64)
DEFAULT_DISTANCES = (1, 2, 4, 8, 16, 32)
MAX_SUBSET = 4
PIECE_NAMES = ("pawn", "knight", "bishop", "rook", "queen", "king")
CASTLE_NAMES = ("white O-O", "white O-O-O", "black O-O", "black O-O-O")


# --- key-table measures --------------------------------------------------------------


def truncate(keys: np.ndarray, bits: int, end: str) -> np.ndarray:
    """The top (``end="high"``) or bottom (``"low"``) ``bits`` bits of each 64-bit key, as uint64."""
    keys = np.asarray(keys, dtype=np.uint64)
    if bits == 64:
        return keys.copy()
    if end == "high":
        return keys >> np.uint64(64 - bits)
    if end == "low":
        return keys & np.uint64((1 << bits) - 1)
    raise ValueError(f"truncation end must be 'high' or 'low', not {end!r}")


def gf2_rank(keys: Sequence[int] | np.ndarray) -> int:
    """Rank over GF(2) of the keys as bit vectors (Gaussian elimination on an XOR basis)."""
    basis: dict[int, int] = {}
    for value in keys:
        v = int(value)
        while v:
            top = v.bit_length() - 1
            if top not in basis:
                basis[top] = v
                break
            v ^= basis[top]
    return len(basis)


def dependent_subsets(keys: np.ndarray, max_size: int = MAX_SUBSET) -> dict[int, np.ndarray]:
    """Every set of at most ``max_size`` (<= 4) distinct key indices whose keys XOR to zero.

    Returns {size: int64 array of sorted index tuples, shape (count, size)}.  Size 1 is a zero
    key, 2 two equal keys, 3 ``a^b == c`` (a hash lookup of every pair XOR among the keys),
    4 ``a^b == c^d`` with four distinct indices (equal pair XORs, found by sorting them).
    """
    if not 1 <= max_size <= 4:
        raise ValueError("dependent subsets are searched up to size 4")
    k = np.asarray(keys, dtype=np.uint64)
    n = len(k)
    found: dict[int, np.ndarray] = {1: np.flatnonzero(k == 0).astype(np.int64).reshape(-1, 1)}
    if max_size == 1:
        return found
    first, second = np.triu_indices(n, 1)
    pair_xor = k[first] ^ k[second]
    equal = pair_xor == 0
    found[2] = np.stack([first[equal], second[equal]], axis=1).astype(np.int64)
    if max_size >= 3:
        order = np.argsort(k, kind="stable")
        ordered = k[order]
        low = np.searchsorted(ordered, pair_xor, "left")
        high = np.searchsorted(ordered, pair_xor, "right")
        triples = set()
        for p in np.flatnonzero(high > low):
            a, b = int(first[p]), int(second[p])
            for c in order[low[p] : high[p]]:
                if c != a and c != b:
                    triples.add(tuple(sorted((a, b, int(c)))))
        found[3] = np.array(sorted(triples), dtype=np.int64).reshape(-1, 3)
    if max_size >= 4:
        order = np.argsort(pair_xor, kind="stable")
        ordered = pair_xor[order]
        codes = []
        gap = 1
        while gap < len(ordered):
            same = np.flatnonzero(ordered[:-gap] == ordered[gap:])  # equal pair XORs `gap` apart in sorted order
            if not len(same):
                break
            one, two = order[same], order[same + gap]
            quad = np.stack([first[one], second[one], first[two], second[two]], axis=1).astype(np.int64)
            quad.sort(axis=1)
            distinct = np.all(quad[:, 1:] != quad[:, :-1], axis=1)
            q = quad[distinct]
            codes.append(((q[:, 0] * n + q[:, 1]) * n + q[:, 2]) * n + q[:, 3])
            gap += 1
        code = np.unique(np.concatenate(codes)) if codes else np.empty(0, dtype=np.int64)
        digits = [code // n**3, code // n**2 % n, code // n % n, code % n]
        found[4] = np.stack(digits, axis=1).astype(np.int64) if len(code) else np.empty((0, 4), dtype=np.int64)
    return found


def popcount(values: np.ndarray) -> np.ndarray:
    """Ones in each uint64."""
    return np.bitwise_count(np.asarray(values, dtype=np.uint64)).astype(np.int64)


def pairwise_hamming(keys: np.ndarray) -> np.ndarray:
    """Hamming distances of all unordered pairs of keys."""
    k = np.asarray(keys, dtype=np.uint64)
    first, second = np.triu_indices(len(k), 1)
    return popcount(k[first] ^ k[second])


def bit_balance(keys: np.ndarray, bits: int) -> np.ndarray:
    """Fraction of ones in each of the low ``bits`` bit positions (index 0 = least significant)."""
    k = np.asarray(keys, dtype=np.uint64)
    return np.array([float(((k >> np.uint64(i)) & np.uint64(1)).mean()) for i in range(bits)])


def chi2_sf_even(x: float, df: int) -> float:
    """P(chi-square with an even ``df`` exceeds ``x``): exp(-x/2) * sum_{j < df/2} (x/2)^j / j!."""
    if df % 2:
        raise ValueError("closed form for even degrees of freedom only")
    half = x / 2
    term, total = 1.0, 1.0
    for j in range(1, df // 2):
        term *= half / j
        total += term
    return min(1.0, math.exp(-half) * total)


def balance_p_value(ones: np.ndarray, count: int) -> float:
    """Chi-square p-value that every bit is one half the time (sum of squared z; df = bits, made even)."""
    z2 = ((np.asarray(ones) - 0.5) ** 2 / (0.25 / count)).sum()
    df = len(ones) + len(ones) % 2
    return chi2_sf_even(float(z2), df)


def lag_triples(keys: np.ndarray, short: int = 24, long: int = 55) -> np.ndarray:
    """``key[i] ^ key[i - short] ^ key[i - long]``.

    The low bit of Knuth's y(n) = y(n-24) + y(n-55) is an LFSR with that trinomial, and taking
    every second draw keeps it; so for the ``knuth`` set bits 0 and 32 of these XORs are always zero.
    """
    k = np.asarray(keys, dtype=np.uint64)
    return k[long:] ^ k[long - short : len(k) - short] ^ k[: len(k) - long]


def linear_complexity(sequence: Sequence[int] | np.ndarray) -> int:
    """Length of the shortest GF(2) linear recurrence that generates the 0/1 sequence (Berlekamp-Massey)."""
    s = np.asarray(sequence, dtype=np.uint8) & 1
    n = len(s)
    c = np.zeros(n + 1, dtype=np.uint8)
    b = np.zeros(n + 1, dtype=np.uint8)
    c[0] = b[0] = 1
    length, m = 0, -1
    for i in range(n):
        d = (int(s[i]) + int(np.count_nonzero(c[1 : length + 1] & s[i - length : i][::-1]))) & 1
        if d:
            t = c.copy()
            shift = i - m
            c[shift:] ^= b[: n + 1 - shift]
            if 2 * length <= i:
                length, m, b = i + 1 - length, i, t
    return length


def column_complexities(keys: np.ndarray) -> np.ndarray:
    """Linear complexity of each of the 64 bit columns of a key table (index 0 = least significant bit)."""
    k = np.asarray(keys, dtype=np.uint64)
    return np.array([linear_complexity((k >> np.uint64(i)) & np.uint64(1)) for i in range(64)])


def key_name(index: int) -> str:
    """What a raw key stands for: 'white knight g1', 'castle black O-O', 'ep file c', 'white to move'."""
    if index < 768:
        kind, square = divmod(index, 64)
        rank, file = divmod(square, 8)
        colour = "white" if kind % 2 else "black"
        return f"{colour} {PIECE_NAMES[kind // 2]} {'abcdefgh'[file]}{rank + 1}"
    if index < 772:
        return f"castle {CASTLE_NAMES[index - 768]}"
    if index < 780:
        return f"ep file {'abcdefgh'[index - 772]}"
    return "white to move"


def table_rows(
    name: str, keys: np.ndarray, widths: Sequence[int], complexity: np.ndarray, combines: Sequence[str] = ("xor",)
) -> list[Row]:
    """Per width, end and key combination of one key set: rank, dependent sets, distances, balance, linear complexity.

    An ``xor`` row counts sets whose XOR is zero and gives the GF(2) rank; an ``add`` row counts sets
    with a zero signed sum in the sense of :mod:`transpo.lab.keysums` (rank: None, an XOR notion).
    Distances, balance and complexity describe the key set itself and are the same in both rows.
    """
    rows = []
    for bits in widths:
        for end in ("high", "low") if bits < 64 else ("full",):
            t = truncate(keys, bits, end)
            distances = pairwise_hamming(t)
            balance = bit_balance(t, bits)
            columns = range(64 - bits, 64) if end == "high" else range(bits)
            shared = {
                "min_hamming": int(distances.min()),
                "mean_hamming": float(distances.mean()),
                "max_bit_deviation": float(np.abs(balance - 0.5).max()),
                "max_bit_z": float(np.abs(balance - 0.5).max() / math.sqrt(0.25 / len(t))),
                "balance_p": balance_p_value(balance, len(t)),
                "lag_triple_mean_weight": float(popcount(lag_triples(t)).mean()),
                "ones_fraction": balance.tolist(),
                "min_linear_complexity": int(complexity[list(columns)].min()),
            }
            for combine in combines:
                if combine == "xor":
                    deps: dict[int, np.ndarray | None] = dict(dependent_subsets(t))
                    rank: int | None = gf2_rank(t)
                    expected = math.comb(RAW_KEYS, 4) / 2.0**bits
                else:
                    deps = zero_sum_subsets(keys, bits, end)
                    rank = None
                    expected = expected_zero_sums(RAW_KEYS, 4, bits, end)
                counts = {size: None if found is None else len(found) for size, found in deps.items()}
                smallest = min((size for size, c in counts.items() if c), default=None)
                searched = max(size for size, c in counts.items() if c is not None)  # sizes beyond: too many to list
                examples = [
                    [key_name(int(i)) for i in subset]
                    for size in sorted(deps)
                    for subset in (deps[size][:3] if deps[size] is not None else [])
                ][:6]
                rows.append(
                    {
                        "section": "table",
                        "key_set": name,
                        "bits": bits,
                        "end": end,
                        "combine": combine,
                        "rank": rank,
                        "zero_keys": counts[1],
                        "equal_pairs": counts[2],
                        "dependent_triples": counts[3],
                        "dependent_quads": counts[4],
                        "smallest_dependent": smallest,
                        "smallest_text": str(smallest) if smallest else f"none <= {searched}",
                        "expected_quads": expected,
                        **shared,
                        "dependent_examples": examples,
                    }
                )
    return rows


def _table_task(item: tuple[str, int, tuple[int, ...], tuple[str, ...]]) -> tuple[list[Row], list[int]]:
    """The table rows and column complexities of one key set (name, prng seed, widths, combinations), for the pool."""
    name, key_seed, widths, combines = item
    keys = raw_key_set(name, key_seed)
    complexity = column_complexities(keys)
    return table_rows(name, keys, widths, complexity, combines), complexity.tolist()


# --- distances along games -----------------------------------------------------------


Series = tuple[str, str]  # (key set, key combination): one sequence of keys along the games


def playout(item: tuple[str, int, int, int, tuple[Series, ...], int]) -> dict[str, Any]:
    """One seeded random legal playout: the position identities and the 64-bit keys of every series.

    ``item`` is (FEN, seed, game number, plies, series, prng key seed); the keys are in
    ``["keys"][(key set, combination)]``.
    """
    fen, seed, game, plies, series, key_seed = item
    rng = random.Random(f"{seed}:{game}")
    zobs = {pair: key_set(pair[0], key_seed, pair[1]) for pair in series}
    pos = Position(fen)
    ids: list[str] = []
    keys: dict[Series, list[int]] = {pair: [] for pair in series}

    def record() -> None:
        ids.append(" ".join(pos.fen().split()[:4]))
        for pair in series:
            keys[pair].append(pos.key_with(zobs[pair]))

    record()
    for _ in range(plies):
        moves = pos.encoded_moves()
        if not moves:
            break
        pos.push_encoded(rng.choice(moves))
        record()
    return {"ids": ids, "keys": keys}


def distance_rows(
    games: list[dict[str, Any]], series: Sequence[Series], distances: Sequence[int], seed: int, random_pairs: int
) -> list[Row]:
    """Per series (key set, combination) and ply gap (and ``random``: pairs from different games): Hamming distances.

    ``seed`` seeds the choice of the random pairs.
    """
    rows = []
    rng = np.random.default_rng([seed, 7])
    # Random pairs of positions from different games (the "far apart" baseline), shared by all key sets.
    owner = np.concatenate([np.full(len(g["ids"]), i) for i, g in enumerate(games)])
    ply = np.concatenate([np.arange(len(g["ids"])) for g in games])
    a = rng.integers(0, len(owner), random_pairs)
    b = rng.integers(0, len(owner), random_pairs)
    keep = owner[a] != owner[b]
    a, b = a[keep], b[keep]
    for pair in series:
        name, combine = pair
        for k in list(distances) + ["random"]:
            same = 0
            values = []
            if k == "random":
                for i, j in zip(a, b, strict=True):
                    gi, gj = games[owner[i]], games[owner[j]]
                    if gi["ids"][ply[i]] == gj["ids"][ply[j]]:
                        same += 1
                        continue
                    values.append((gi["keys"][pair][ply[i]] ^ gj["keys"][pair][ply[j]]).bit_count())
            else:
                for g in games:
                    ids, keys = g["ids"], g["keys"][pair]
                    for t in range(len(ids) - k):
                        if ids[t] == ids[t + k]:
                            same += 1  # the same position again (a repetition): distance 0 by definition
                            continue
                        values.append((keys[t] ^ keys[t + k]).bit_count())
            d = np.array(values, dtype=np.int64)
            collided = int((d == 0).sum())
            rows.append(
                {
                    "section": "games",
                    "key_set": name,
                    "combine": combine,
                    "k": k,
                    "pairs": len(d),
                    "repeated_positions": same,
                    "mean": float(d.mean()) if len(d) else None,
                    "std": float(d.std()) if len(d) else None,
                    "min": int(d.min()) if len(d) else None,
                    "max": int(d.max()) if len(d) else None,
                    "collisions": collided,
                    "histogram": np.bincount(d, minlength=65).tolist() if len(d) else [0] * 65,
                }
            )
    return rows


# --- output --------------------------------------------------------------------------

SECTIONS: tuple[Section, ...] = (
    (
        "table",
        (
            ("key_set", "key set"),
            ("bits", "bits"),
            ("end", "end"),
            ("combine", "combine"),
            ("rank", "GF(2) rank"),
            ("equal_pairs", "2-sets"),
            ("dependent_triples", "3-sets"),
            ("dependent_quads", "4-sets"),
            ("expected_quads", "4-sets if uniform"),
            ("smallest_text", "smallest dependent"),
            ("min_hamming", "min dist"),
            ("mean_hamming", "mean dist"),
            ("max_bit_deviation", "max |ones-1/2|"),
            ("balance_p", "balance χ² p"),
            ("min_linear_complexity", "min column LC"),
        ),
        (
            "The 781 keys (high = top bits: signature; low = bottom bits: index). Dependent k-sets: "
            "XOR zero (xor rows); a signed sum zero, mod 2^b for low, within ±2^(64-b) for high (add rows)"
        ),
        4,
    ),
    (
        "games",
        (
            ("key_set", "key set"),
            ("combine", "combine"),
            ("k", "plies apart"),
            ("pairs", "pairs"),
            ("repeated_positions", "repeats skipped"),
            ("mean", "mean distance"),
            ("std", "std"),
            ("min", "min"),
            ("max", "max"),
            ("collisions", "equal keys"),
        ),
        "Hamming distance of 64-bit keys k plies apart in random playouts",
        3,
    ),
)


def plot_keys(report: dict[str, Any], path: str) -> None:
    """Left: mean (± std) and minimum distance against plies apart.  Right: distance histograms at k = 1."""
    plt = pyplot()

    rows = [r for r in report["rows"] if r["section"] == "games"]
    series = list(dict.fromkeys((r["key_set"], r["combine"]) for r in rows))
    several = len({combine for _, combine in series}) > 1
    names = [f"{name} {combine}" if several else name for name, combine in series]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    for number, (name, pair) in enumerate(zip(names, series, strict=True)):
        mine = [r for r in rows if (r["key_set"], r["combine"]) == pair and r["pairs"]]
        labels = [str(r["k"]) for r in mine]
        x = np.arange(len(mine)) + (number - (len(names) - 1) / 2) * 0.12
        left.errorbar(
            x,
            [r["mean"] for r in mine],
            yerr=[r["std"] for r in mine],
            fmt="o-",
            capsize=3,
            color=f"C{number}",
            label=f"{name}: mean ± std",
        )
        left.plot(x, [r["min"] for r in mine], "v", color=f"C{number}", label=f"{name}: minimum")
        left.set_xticks(np.arange(len(mine)), labels)
    left.axhline(32, color="grey", ls="--", lw=0.8)
    left.set_xlabel("plies apart in the game (random: different games)")
    left.set_ylabel("Hamming distance of the 64-bit keys")
    left.set_ylim(0, 50)
    left.set_title("Does closeness in the game matter?")
    left.legend(fontsize=7, ncol=2, loc="lower right")
    bins = np.arange(65)
    for number, (name, pair) in enumerate(zip(names, series, strict=True)):
        first = next(r for r in rows if (r["key_set"], r["combine"]) == pair and r["k"] == rows[0]["k"])
        hist = np.array(first["histogram"], dtype=float)
        if hist.sum():
            right.step(bins, hist / hist.sum(), where="mid", color=f"C{number}", label=f"{name}, k = {first['k']}")
    binomial = np.array([math.comb(64, i) for i in bins], dtype=float) / 2.0**64
    right.plot(bins, binomial, "k:", label="Binomial(64, 1/2)")
    right.set_xlim(10, 54)
    right.set_xlabel("Hamming distance")
    right.set_ylabel("fraction of pairs")
    right.set_title("Distance between consecutive positions")
    right.legend(fontsize=8)
    save_figure(fig, path)


# --- command -------------------------------------------------------------------------


@dataclass(frozen=True)
class KeysConfig:
    """A checked ``lab keys`` run."""

    common: CommonConfig
    key_sets: tuple[str, ...]
    key_seed: int  # of the prng key set
    combines: tuple[str, ...]  # key combinations, measured side by side
    widths: tuple[int, ...]
    distances: tuple[int, ...]
    games: int
    plies: int
    random_pairs: int


def configure(args: argparse.Namespace) -> KeysConfig:
    """The checked configuration of a ``lab keys`` run."""
    return KeysConfig(
        common=common_config(args),
        key_sets=tuple(dict.fromkeys(args.key_sets)),
        key_seed=args.key_seed,
        combines=tuple(dict.fromkeys(args.combine)),
        widths=tuple(args.widths),
        distances=tuple(args.distances),
        games=args.games,
        plies=args.plies,
        random_pairs=args.random_pairs,
    )


def build_report(config: KeysConfig) -> Report:
    """Measure the key tables and play the random games (over ``--jobs`` processes); rows and summary."""
    names = list(config.key_sets)
    positions = config.common.positions
    report_config = {
        "key_sets": names,
        "key_seed": config.key_seed,
        "widths": list(config.widths),
        "combine": list(config.combines),
        "truncation": "high = key >> (64 - b) (signature bits), low = key & (2^b - 1) (index bits)",
        "add_dependence": "signed sum of the keys = 0 mod 2^b (low, full); |signed sum| < 2^(64 - b) (high)",
        "max_subset": MAX_SUBSET,
        "distances": list(config.distances),
        "games": config.games,
        "plies": config.plies,
        "random_pairs": config.random_pairs,
        "positions": config.common.positions_file or "built-in",
        "position_count": len(positions),
        "seed": config.common.seed,
        "jobs": config.common.jobs,
    }
    placement = config.common.placement
    widths = tuple(sorted(set(config.widths)))
    tasks = [(name, config.key_seed, widths, config.combines) for name in names]
    measured = run_parallel(_table_task, tasks, placement, "key tables")
    rows: list[Row] = [row for table, _ in measured for row in table]
    complexity = {name: np.array(c) for name, (_, c) in zip(names, measured, strict=True)}
    series = tuple((name, combine) for name in names for combine in config.combines)
    items = [
        (positions[g % len(positions)][0], config.common.seed, g, config.plies, series, config.key_seed)
        for g in range(config.games)
    ]
    games = run_parallel(playout, items, placement, "random playouts")
    rows += distance_rows(games, series, config.distances, config.common.seed, config.random_pairs)
    return make_report("keys", report_config, rows, summarize(config, rows, complexity, games))


def summarize(
    config: KeysConfig, rows: Sequence[Row], complexity: dict[str, np.ndarray], games: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Per key set: the 64-bit rank and smallest dependency, game distances, linear complexity, Knuth's lag triples.

    The figures of a combination other than XOR carry its name as a suffix (``polyglot_smallest_dependent_64_add``).
    """
    summary: dict[str, Any] = {}
    for name in config.key_sets:
        for combine in config.combines:
            suffix = "" if combine == "xor" else f"_{combine}"  # XOR keeps the key names of the first reports
            mine = [r for r in rows if r["key_set"] == name and r["combine"] == combine]
            full = [r for r in mine if r["section"] == "table" and r["bits"] == 64]
            if full:
                if full[0]["rank"] is not None:
                    summary[f"{name}_rank64"] = full[0]["rank"]
                summary[f"{name}_smallest_dependent_64{suffix}"] = full[0]["smallest_text"]
            means = [r["mean"] for r in mine if r["section"] == "games" and r["mean"] is not None]
            summary[f"{name}_game_distance_mean_range{suffix}"] = f"{min(means):.2f}..{max(means):.2f}"
        summary[f"{name}_min_column_linear_complexity"] = int(complexity[name].min())
        keys = raw_key_set(name, config.key_seed)
        summary[f"{name}_lag_24_55_triple_weight"] = float(popcount(lag_triples(keys)).mean())
    summary["plies_recorded"] = sum(len(g["ids"]) for g in games)
    return summary


def run(args: argparse.Namespace) -> None:
    """``lab keys``: configure, measure, print and write."""
    config = configure(args)
    emit(build_report(config), config.common, SECTIONS, plot_keys)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register ``lab keys``."""
    parser = subparsers.add_parser(
        "keys",
        help="key-set quality: GF(2) rank, small dependent subsets, Hamming distances, distances along games",
        description=__doc__.split("\n\n")[0],
    )
    add_list_option(parser, "--key-sets", KEY_SET_NAMES, "key sets to measure", choice_of("key set", KEY_SET_NAMES))
    parser.add_argument("--key-seed", type=checked(parse_seed), default=DEFAULT_PRNG_SEED,
                        help="seed of the prng key set (default: the engine's)")  # fmt: skip
    add_combine_list(parser, "the keys (xor: XOR-dependent sets and GF(2) rank; add: zero signed sums)")
    add_list_option(parser, "--widths", DEFAULT_WIDTHS, "truncation widths in bits", bounds=Bounds("width", 1, 64))
    add_list_option(parser, "--distances", DEFAULT_DISTANCES, "plies apart", bounds=Bounds("plies apart", 1))
    parser.add_argument("--games", type=int_type(Bounds("games", 1)), default=96,
                        help="random playouts (default 96, cycling over positions)")  # fmt: skip
    parser.add_argument("--plies", type=int_type(Bounds("plies", 1)), default=80,
                        help="plies per playout (default 80)")  # fmt: skip
    parser.add_argument("--random-pairs", type=int_type(Bounds("random pairs", 1)), default=20000,
                        help="pairs of positions from different games for the baseline (default 20000)")  # fmt: skip
    add_common_options(parser, "seed of the random playouts and of the random pairs")
    parser.set_defaults(func=run)
