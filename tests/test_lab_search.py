"""The search lab commands: errors (Newman's method), tt-gain and crashes.

Fast: two positions at depths 3-5.  The commands run through ``transpo.cli.main``
with ``--json`` and ``--plot``; the false-hit counter is checked against planted
collisions at table level; audit mode must leave the search alone; the
reference search must be deterministic.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from transpo.cli import main
from transpo.core.position import Position
from transpo.engine.engine import Engine
from transpo.engine.table import TranspositionTable, locate, store
from transpo.engine.timeman import Limits
from transpo.lab.options import parse_list
from transpo.lab.positions import DEFAULT_POSITIONS
from transpo.lab.report import SCHEMA
from transpo.lab.runner import EngineSettings, SearchJob, SearchLimit, search
from transpo.lab.stats import poisson_interval, poisson_slope
from transpo.lab.tt_gain import FINE70, pv_gain

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TOP_KEYS = {"schema", "command", "config", "rows", "summary", "machine"}


def run_lab(tmp_path, *argv: str) -> dict:
    out_json = tmp_path / "report.json"
    out_png = tmp_path / "plot.png"
    assert main(["lab", *argv, "--json", str(out_json), "--plot", str(out_png)]) == 0
    assert out_png.read_bytes()[:8] == PNG_SIGNATURE
    report = json.loads(out_json.read_text())
    assert TOP_KEYS <= set(report)
    assert report["schema"] == SCHEMA
    assert report["rows"] and all(isinstance(row, dict) for row in report["rows"])
    assert isinstance(report["summary"], dict) and isinstance(report["config"], dict)
    assert report["machine"]["cpu_count"] >= 1
    return report


def rows_of(report: dict, section: str) -> list[dict]:
    return [row for row in report["rows"] if row["section"] == section]


# --- the commands ------------------------------------------------------------------------------
def test_errors_command(tmp_path):
    report = run_lab(
        tmp_path, "errors", "--limit", "2", "--depth", "4", "--bits", "8,16", "--hash-mb", "1", "--policies", "bucket"
    )
    assert report["command"] == "errors"
    assert report["config"]["bits"] == [8, 16] and report["config"]["depth"] == 4
    widths = rows_of(report, "width")
    assert len(widths) == 2
    for row in widths:
        for key in ("probes", "hits", "compared", "other_compared", "false_hits", "predicted", "fh_per_probe",
                    "pred_per_probe", "fh_per_hit", "fh_per_node", "fh_per_second", "pred_per_second"):  # fmt: skip
            assert key in row
        assert row["other_compared"] == row["compared"] - (row["hits"] - row["false_hits"])
        assert row["predicted"] == pytest.approx(row["other_compared"] * 2.0 ** -row["bits"])
        assert row["index_bits"] == 14  # 1 MB = 16384 buckets of 64 bytes
    assert len(rows_of(report, "position")) == 2 * 2  # one record per position and width
    assert {r["section"] for r in report["rows"]} == {"width", "position"}
    assert "slope_per_comparison_mle" in report["summary"]


def test_errors_command_side_by_side_xor_and_add(tmp_path, capsys):
    report = run_lab(tmp_path, "errors", "--limit", "2", "--depth", "4", "--bits", "8,12", "--hash-mb", "1",
                     "--policies", "always", "--combine", "xor,add")  # fmt: skip
    assert report["config"]["combine"] == ["xor", "add"] and "XOR" in report["config"]["check_key"]
    widths = rows_of(report, "width")
    assert [(r["bits"], r["combine"]) for r in widths] == [(8, "xor"), (8, "add"), (12, "xor"), (12, "add")]
    for row in widths:
        assert row["predicted"] == pytest.approx(row["other_compared"] * 2.0 ** -row["bits"])
    positions = rows_of(report, "position")
    assert {r["combine"] for r in positions} == {"xor", "add"} and len(positions) == 2 * 4
    for combine in ("xor", "add"):
        assert f"measured_over_predicted_{combine}" in report["summary"]
    assert "slope_ols_always_1MB_add" in report["summary"]
    assert " add " in capsys.readouterr().out


def test_search_job_hashes_with_its_combination():
    """A job's searches use its key combination: each matches a search by hand with it, and the two differ."""
    fen, name = DEFAULT_POSITIONS[1]
    settings = EngineSettings(hash_mb=1, policy="always", signature_bits=8, audit=True)
    seen = {}
    for combine in ("xor", "add"):
        job = SearchJob(positions=((fen, name),), limit=SearchLimit(depth=5), combine=combine, engine=settings)
        record = search(job)[0]
        engine = Engine(hash_mb=1, policy="always", signature_bits=8, audit=True, move_overhead=0)
        result = engine.search(Position.from_fen(fen, combine=combine), Limits(depth=5))
        assert (record.nodes, record.best_move) == (result.nodes, result.best_move)
        assert record.counters == engine.table.counters()
        seen[combine] = (record.nodes, record.counters["compared"])
    assert seen["xor"] != seen["add"]  # other keys, other table traffic


def test_tt_gain_command(tmp_path):
    report = run_lab(tmp_path, "tt-gain", "--limit", "2", "--depths", "3", "--hash-mb", "1",
                     "--policies", "bucket,always", "--fine70-seconds", "2")  # fmt: skip
    rows = rows_of(report, "table")
    assert [(r["policy"], r["hash_mb"]) for r in rows] == [("none", None), ("bucket", 1), ("always", 1)]
    none = rows[0]
    assert none["reduction_geomean"] == pytest.approx(1.0) and none["move_differs_from_none"] == 0
    assert none["probes"] == 0 and none["stores"] == 0  # no table: no probe, no store
    for row in rows[1:]:
        # A table changes the tree, not always to fewer nodes: with no table, internal iterative reduction
        # cuts every node that has no hash move, so at some depths the search without one is the smaller.
        assert row["probes"] > 0 and row["stores"] > 0 and row["nodes"] != none["nodes"]
        assert row["reduction_geomean"] > 0
    assert set(report["summary"]["strongest_policy"].split(" = ")) <= {"bucket", "always"}
    games = rows_of(report, "game")
    assert {(r["policy"], r["hash_mb"]) for r in games} == {("bucket", 1), ("always", 1)}
    assert min(r["nodes_vs_best"] for r in games) == 1
    assert len(rows_of(report, "game position")) == 2 * 2
    fine70 = {r["policy"]: r for r in rows_of(report, "fine70")}
    assert set(fine70) == {"none", "bucket", "always"}
    assert fine70["bucket"]["found"] and fine70["bucket"]["winning_depth"] >= fine70["bucket"]["first_depth"]


def test_crashes_command(tmp_path):
    report = run_lab(tmp_path, "crashes", "--limit", "2", "--depth", "4", "--bits", "8,64", "--forced", "10,1e7")
    assert report["summary"]["reference_deterministic"] is True
    rows = {row["variant"]: row for row in rows_of(report, "variant")}
    assert set(rows) == {"reference again", "8-bit", "64-bit", "every 10", "every 10,000,000"}
    for name in ("reference again", "64-bit"):
        row = rows[name]
        assert row["crashes"] == 0 and row["root_changed"] == 0
        assert row["score_changed"] == 0 and row["tree_changed"] == 0
    forced = [r for r in rows_of(report, "position") if r["kind"] == "forced" and r["value"] == 10]
    assert rows["every 10"]["crashes"] == sum(r["forced_false_hits"] + r["false_hits"] for r in forced)
    for row in rows.values():
        assert row["type1"] + row["type2"] + row["score_only"] == row["crashed"]
        assert row["both"] <= min(row["root_changed"], row["score_changed"])


def test_bad_options_are_one_line_errors(capsys):
    assert main(["lab", "errors", "--bits", "4", "--limit", "1"]) == 2
    assert "signature bits" in capsys.readouterr().err
    assert main(["lab", "errors", "--combine", "xor,sub", "--limit", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown key combination 'sub'; choose one of xor, add" in err and "Traceback" not in err
    assert main(["lab", "crashes", "--depth", "0", "--limit", "1"]) == 2


# --- the false-hit counter against planted collisions ---------------------------------------------
def _planted(bits: int):
    tt = TranspositionTable(1, signature_bits=bits, audit=True)
    key_a = np.uint64(0xAB00_0000_0000_1234)
    key_b = np.uint64(0xAB00_0F0F_0000_1234)  # same bucket, same top 8 bits, another position
    check_a, check_b = np.uint64(111), np.uint64(222)
    store(tt.arrays, key_a, check_a, 0, 10, 0, 5, 3, 0)
    return tt, key_a, key_b, check_a, check_b


def test_planted_collision_is_counted():
    tt, key_a, key_b, check_a, check_b = _planted(8)
    assert locate(tt.arrays, key_b, check_b) >= 0  # signatures match: a hit ...
    counters = tt.counters()
    assert counters["hits"] == 1 and counters["false_hits"] == 1 and counters["compared"] == 1  # ... and a false one


def test_identical_position_is_not_a_false_hit():
    tt, key_a, _, check_a, _ = _planted(8)
    assert locate(tt.arrays, key_a, check_a) >= 0
    counters = tt.counters()
    assert counters["hits"] == 1 and counters["false_hits"] == 0


def test_wider_signature_tells_the_positions_apart():
    tt, _, key_b, _, check_b = _planted(64)
    assert locate(tt.arrays, key_b, check_b) == -1
    counters = tt.counters()
    assert counters["hits"] == 0 and counters["false_hits"] == 0 and counters["compared"] == 1


def test_empty_bucket_compares_nothing():
    tt, _, _, _, _ = _planted(8)
    other_bucket = np.uint64(0xAB00_0000_0000_0001)
    assert locate(tt.arrays, other_bucket, np.uint64(5)) == -1
    assert tt.counters()["compared"] == 0


# --- the search: audit is transparent, the reference is deterministic ------------------------------
SEARCHED = [fen for fen, _ in DEFAULT_POSITIONS[:4]]


@pytest.mark.parametrize("fen", SEARCHED)
def test_audit_does_not_change_the_search(fen):
    results = []
    for audit in (False, True):
        engine = Engine(hash_mb=1, audit=audit, move_overhead=0)
        result = engine.search(Position.from_fen(fen), Limits(depth=5))
        results.append((result.best_move, result.score, result.nodes, result.pv))
        if audit:
            assert engine.table.counters()["false_hits"] == 0  # 64-bit signatures: no false hit
    assert results[0] == results[1]


def search_one(job: SearchJob) -> dict:
    """The one record of a one-position job, as a report row."""
    (record,) = search(job)
    return record.row()


def test_reference_search_is_deterministic():
    job = SearchJob(positions=DEFAULT_POSITIONS[:2], limit=SearchLimit(depth=5), engine=EngineSettings(hash_mb=1, audit=True))
    first, second = [r.row() for r in search(job)], [r.row() for r in search(job)]
    strip = [{k: v for k, v in r.items() if k not in ("time_ms", "wall_s")} for r in first]
    assert strip == [{k: v for k, v in r.items() if k not in ("time_ms", "wall_s")} for r in second]


def test_new_game_equals_a_fresh_engine():
    """search without ``carry_table`` calls new_game between positions: same as a fresh engine."""
    second = DEFAULT_POSITIONS[1]
    fresh = search_one(SearchJob(positions=(second,), limit=SearchLimit(depth=5), engine=EngineSettings(hash_mb=1)))
    both = [r.row() for r in search(SearchJob(positions=(DEFAULT_POSITIONS[0], second), limit=SearchLimit(depth=5),
                                              engine=EngineSettings(hash_mb=1)))]  # fmt: skip
    assert both[1]["name"] == second[1]
    for key in ("best_move", "score", "nodes", "probes", "hits", "stores"):
        assert both[1][key] == fresh[key]


def test_forced_false_hits_are_injected_and_counted():
    job = SearchJob(positions=DEFAULT_POSITIONS[:1], limit=SearchLimit(depth=10), forced_every=10,
                    engine=EngineSettings(hash_mb=1, audit=True))  # fmt: skip
    record = search_one(job)
    assert record["forced_false_hits"] > 0
    assert record["false_hits"] == 0  # the audit counts only natural crashes


# --- helpers ------------------------------------------------------------------------------------
def test_int_list():
    assert parse_list("8, 12,16") == [8, 12, 16]
    assert parse_list("10,1e3,10**7") == [10, 1000, 10**7]


def test_poisson_slope_recovers_halving():
    rng = np.random.default_rng(1)
    bits = [8, 10, 12, 14, 16, 18]
    trials = [2e6] * len(bits)
    events = [int(rng.poisson(t * 2.0**-b)) for t, b in zip(trials, bits, strict=True)]
    slope, se, dispersion = poisson_slope(bits, events, trials)
    assert abs(slope + 1) < 4 * se + 0.02
    assert 0 < dispersion < 5
    assert poisson_slope(bits, [0] * len(bits), trials) is None


def test_poisson_interval():
    low, high = poisson_interval(0)
    assert low == 0 and high == pytest.approx(3.689, abs=0.01)
    low, high = poisson_interval(10)
    assert low == pytest.approx(4.795, abs=0.01) and high == pytest.approx(18.39, abs=0.02)
    assert math.isclose(sum(poisson_interval(10_000)) / 2, 10_000)


def test_pv_gain_counts_a_won_pawn():
    win = (
        "a1b1 a7b7 b1c1 b7c7 c1d1 c7d7 d1c2 d7c8 c2d2 c8d7 d2c3 d7c7 c3d3 c7b7 d3e3 b7c8 e3f3 c8d7 f3g3 d7c7"
        " g3h4 c7b8 h4g5 b8c7 g5f5"
    )
    assert pv_gain(FINE70, win.split()) == 1
    assert pv_gain(FINE70, ["a1b2", "a7b6"]) == 0
