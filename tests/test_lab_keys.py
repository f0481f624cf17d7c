"""``transpo lab keys``: GF(2) rank, planted dependencies, Hamming distances, playouts, the report."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from transpo.cli import main
from transpo.core.keys import raw_key_set
from transpo.core.position import START_FEN, Position
from transpo.lab import keyquality as kq
from transpo.lab import keysums as ks

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
REPORT_KEYS = {"schema", "command", "config", "rows", "summary", "machine"}


def _as_sets(found: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(i) for i in row) for row in found}


@pytest.fixture(scope="module")
def prng_keys() -> np.ndarray:
    return raw_key_set("prng")


def test_planted_triple_is_found(prng_keys):
    keys = prng_keys.copy()
    keys[3] = keys[1] ^ keys[2]
    found = kq.dependent_subsets(keys)
    assert _as_sets(found[3]) == {(1, 2, 3)}
    assert len(found[1]) == len(found[2]) == 0
    assert min(size for size, f in found.items() if len(f)) == 3
    assert kq.gf2_rank(keys[[1, 2, 3]]) == 2


def test_planted_pair_and_quad_are_found(prng_keys):
    keys = prng_keys.copy()
    keys[8] = keys[7]
    keys[40] = keys[10] ^ keys[20] ^ keys[30]
    found = kq.dependent_subsets(keys)
    assert _as_sets(found[2]) == {(7, 8)}
    assert (10, 20, 30, 40) in _as_sets(found[4])
    keys[0] = 0
    assert _as_sets(kq.dependent_subsets(keys, max_size=1)[1]) == {(0,)}


@pytest.mark.parametrize("name", ["polyglot", "prng"])
def test_full_rank_and_no_small_dependencies_at_64_bits(name):
    keys = raw_key_set(name)
    assert kq.gf2_rank(keys) == 64
    found = kq.dependent_subsets(keys)
    assert all(len(f) == 0 for f in found.values())


def test_sixteen_bits_are_full_of_dependencies(prng_keys):
    found = kq.dependent_subsets(kq.truncate(prng_keys, 16, "high"))
    assert len(found[3]) > 500 and len(found[4]) > 100_000  # C(781,3)/2^16 ~ 1209, C(781,4)/2^16 ~ 232,000


def test_rank_of_small_tables():
    assert kq.gf2_rank([1 << i for i in range(64)]) == 64
    assert kq.gf2_rank([3, 5, 6]) == 2
    assert kq.gf2_rank([0, 0]) == 0


def test_truncation_ends():
    keys = np.array([0xFEDC_BA98_7654_3210], dtype=np.uint64)
    assert int(kq.truncate(keys, 16, "high")[0]) == 0xFEDC
    assert int(kq.truncate(keys, 16, "low")[0]) == 0x3210
    assert int(kq.truncate(keys, 64, "full")[0]) == 0xFEDC_BA98_7654_3210
    with pytest.raises(ValueError):
        kq.truncate(keys, 16, "middle")


def test_hamming_distances():
    x = np.uint64(0x0123_4567_89AB_CDEF)
    assert kq.pairwise_hamming(np.array([x, x], dtype=np.uint64)).tolist() == [0]
    keys = np.array([0, 1, 3, 0xFFFF_FFFF_FFFF_FFFF], dtype=np.uint64)
    assert sorted(kq.pairwise_hamming(keys).tolist()) == [1, 1, 2, 62, 63, 64]


def test_bit_balance_and_chi_square():
    keys = np.array([0b01, 0b11], dtype=np.uint64)
    assert kq.bit_balance(keys, 2).tolist() == [1.0, 0.5]
    assert kq.chi2_sf_even(2.0, 2) == pytest.approx(np.exp(-1.0))
    assert kq.chi2_sf_even(0.0, 64) == 1.0


def test_linear_complexity_sees_knuths_low_bit():
    rng = np.random.default_rng(1)
    bits = list(rng.integers(0, 2, 55))
    for n in range(55, 781):
        bits.append(bits[n - 24] ^ bits[n - 55])
    assert kq.linear_complexity(bits) == 55
    assert 370 < kq.linear_complexity(rng.integers(0, 2, 781)) < 410
    knuth = kq.column_complexities(raw_key_set("knuth"))
    assert knuth[0] == knuth[32] == 55  # the low bit of each 32-bit draw is an LFSR
    assert knuth[1:32].min() > 370
    triples = kq.lag_triples(raw_key_set("knuth"))
    assert not (triples & np.uint64(1 | 1 << 32)).any()


def test_key_names():
    assert kq.key_name(0) == "black pawn a1"
    assert kq.key_name(64 + 12) == "white pawn e2"
    assert kq.key_name(11 * 64 + 4) == "white king e1"
    assert kq.key_name(768) == "castle white O-O"
    assert kq.key_name(774) == "ep file c"
    assert kq.key_name(780) == "white to move"


def test_playout_is_seeded_and_keys_match_the_position():
    series = (("polyglot", "xor"), ("knuth", "xor"), ("polyglot", "add"))
    item = (START_FEN, 7, 0, 12, series, kq.DEFAULT_PRNG_SEED)
    game = kq.playout(item)
    assert game == kq.playout(item)
    assert game != kq.playout((START_FEN, 8, 0, 12, series, kq.DEFAULT_PRNG_SEED))
    assert len(game["ids"]) == 13
    assert game["keys"][("polyglot", "xor")][0] == Position().key
    assert game["keys"][("knuth", "xor")][0] == Position(keys="knuth").key
    assert game["keys"][("polyglot", "add")][0] == Position(combine="add").key


def test_distance_rows_skip_repetitions():
    s = ("s", "xor")
    games = [{"ids": ["a", "b", "a"], "keys": {s: [0b0, 0b111, 0b0]}}, {"ids": ["c", "d"], "keys": {s: [1, 3]}}]
    rows = {r["k"]: r for r in kq.distance_rows(games, [s], [1, 2], seed=1, random_pairs=50)}
    assert rows[1]["pairs"] == 3 and rows[1]["mean"] == pytest.approx((3 + 3 + 1) / 3)
    assert rows[2]["pairs"] == 0 and rows[2]["repeated_positions"] == 1
    assert rows["random"]["pairs"] > 0 and rows["random"]["collisions"] == 0


def test_report_json_and_plot(tmp_path, capsys):
    out, png = tmp_path / "keys.json", tmp_path / "keys.png"
    argv = ["lab", "keys", "--key-sets", "prng", "knuth", "--widths", "32", "64", "--games", "4", "--plies", "20",
            "--distances", "1", "2", "--random-pairs", "200", "--json", str(out), "--plot", str(png)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert set(report) == REPORT_KEYS
    assert report["schema"] == "transpo-lab/1" and report["command"] == "keys"
    assert report["config"]["key_sets"] == ["prng", "knuth"] and report["config"]["seed"] == 1
    table = [r for r in report["rows"] if r["section"] == "table"]
    assert [(r["key_set"], r["bits"], r["end"], r["combine"]) for r in table] == [
        ("prng", 32, "high", "xor"), ("prng", 32, "low", "xor"), ("prng", 64, "full", "xor"),
        ("knuth", 32, "high", "xor"), ("knuth", 32, "low", "xor"), ("knuth", 64, "full", "xor"),
    ]  # fmt: skip
    assert all(r["rank"] == r["bits"] for r in table)
    games = [r for r in report["rows"] if r["section"] == "games"]
    assert {r["k"] for r in games} == {1, 2, "random"}
    assert report["summary"]["knuth_min_column_linear_complexity"] == 55
    assert png.read_bytes()[:8] == PNG_SIGNATURE
    assert "Hamming distance of 64-bit keys" in capsys.readouterr().out


# --- addition instead of XOR (transpo.lab.keysums) -------------------------------------------------


def _brute_zero_sums(keys: np.ndarray, bits: int, end: str, max_size: int = 4) -> dict[int, set[tuple[int, ...]]]:
    """Every signed sum of every subset, tried one by one (the definition, for small key tables)."""
    mask, w = ks.zero_sum_window(bits, end)
    values = [int(k) & mask for k in keys]
    found: dict[int, set[tuple[int, ...]]] = {}
    for size in range(1, max_size + 1):
        found[size] = set()
        for subset in itertools.combinations(range(len(values)), size):
            for signs in itertools.product((1, -1), repeat=size - 1):
                total = (values[subset[0]] + sum(s * values[i] for s, i in zip(signs, subset[1:]))) % (mask + 1)
                if total <= w or total >= mask + 1 - w:
                    found[size].add(subset)
                    break
    return found


@pytest.mark.parametrize(("bits", "end", "small"), [(7, "low", False), (8, "full", False), (55, "high", True)])
def test_zero_sums_match_brute_force(bits, end, small):
    rng = np.random.default_rng(bits)
    if small:  # keys near 0 and near 2^64, so that the high window (|sum| < 2^9) sees many sets, some wrapping
        keys = rng.integers(0, 1 << 10, 28, dtype=np.uint64)
        keys[::3] = np.uint64(0) - keys[::3]
    else:
        keys = rng.integers(0, 1 << 63, 28, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, 28, dtype=np.uint64)
    found = ks.zero_sum_subsets(keys, bits, end)
    expected = _brute_zero_sums(keys, bits, end)
    assert sum(len(v) for v in expected.values()) > 50  # the comparison is not empty
    for size in range(1, 5):
        assert _as_sets(found[size]) == expected[size]


def test_planted_signed_sums_are_found(prng_keys):
    keys = prng_keys.copy()
    mask = (1 << 64) - 1
    keys[40] = (int(keys[10]) + int(keys[20]) - int(keys[30])) & mask  # a + b - c - d = 0 mod 2^64
    keys[5] = -int(keys[6]) & mask  # a + b = 0
    found = ks.zero_sum_subsets(keys, 64, "full")
    assert _as_sets(found[2]) == {(5, 6)}
    assert _as_sets(found[4]) == {(10, 20, 30, 40)}
    assert len(kq.dependent_subsets(keys)[4]) == 0  # XOR does not see them


def test_low_bits_of_a_sum_depend_only_on_low_bits(prng_keys):
    """Carries only go up: a relation among the low 16 bits holds for the low 16 bits of every additive key."""
    found = ks.zero_sum_subsets(prng_keys, 16, "low", max_size=3)
    a, b, c = (int(i) for i in found[3][0])
    mask = (1 << 16) - 1
    signs = [(sa, sb) for sa in (1, -1) for sb in (1, -1)
             if (int(prng_keys[a]) + sa * int(prng_keys[b]) + sb * int(prng_keys[c])) & mask == 0]  # fmt: skip
    assert signs


def test_uniform_expectation_and_the_memory_guard(prng_keys):
    assert ks.expected_zero_sums(781, 4, 64, "full") < 1e-8
    low, high = ks.expected_zero_sums(781, 4, 16, "low"), ks.expected_zero_sums(781, 4, 16, "high")
    assert high == pytest.approx(2 * low, 1e-3)  # the signature window is twice as wide as one residue
    assert ks.zero_sum_subsets(prng_keys, 12, "low")[4] is None  # ~1.8e8 candidates: refused, not attempted
    with pytest.raises(ValueError):
        ks.zero_sum_window(16, "middle")


def test_report_side_by_side_xor_and_add(tmp_path, capsys):
    out = tmp_path / "keys.json"
    argv = ["lab", "keys", "--key-sets", "prng", "--widths", "32,64", "--games", "3", "--plies", "12",
            "--distances", "1", "--random-pairs", "100", "--combine", "xor,add", "--json", str(out)]  # fmt: skip
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["config"]["combine"] == ["xor", "add"]
    table = [r for r in report["rows"] if r["section"] == "table"]
    assert [(r["bits"], r["end"], r["combine"]) for r in table] == [
        (32, "high", "xor"), (32, "high", "add"), (32, "low", "xor"), (32, "low", "add"),
        (64, "full", "xor"), (64, "full", "add"),
    ]  # fmt: skip
    for row in table:
        assert (row["rank"] is None) == (row["combine"] == "add")
        assert row["dependent_quads"] is not None and row["expected_quads"] > 0
    full = {r["combine"]: r for r in table if r["bits"] == 64}
    assert full["add"]["dependent_quads"] == 0 and full["add"]["mean_hamming"] == full["xor"]["mean_hamming"]
    games = [r for r in report["rows"] if r["section"] == "games"]
    assert {(r["combine"], r["k"]) for r in games} == {("xor", 1), ("xor", "random"), ("add", 1), ("add", "random")}
    assert report["summary"]["prng_smallest_dependent_64_add"] == "none <= 4"
    assert "combine" in capsys.readouterr().out


def test_bad_combination_is_a_one_line_error(capsys):
    assert main(["lab", "keys", "--combine", "mul"]) == 2
    err = capsys.readouterr().err
    assert "unknown key combination 'mul'; choose one of xor, add" in err and "Traceback" not in err
