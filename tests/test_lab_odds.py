"""``transpo lab odds``: the closed forms, the seed threads' cases, the report and the command line."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from transpo.cli import main
from transpo.executors import Placement
from transpo.lab import odds

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
REPORT_KEYS = {"schema", "command", "config", "rows", "summary", "machine"}


@pytest.mark.parametrize(("bits", "expected"), [(32, 1.6e5), (64, 1.05e10)])
def test_birthday_bound_at_95_percent(bits, expected):
    assert odds.birthday_keys(bits, 0.95) == pytest.approx(expected, rel=0.01)
    exact = odds.birthday_keys_exact(bits, 0.95)
    assert exact == pytest.approx(odds.birthday_keys(bits, 0.95), rel=1e-3)
    assert odds.collision_probability(exact, bits) >= 0.95 > odds.collision_probability(exact - 1, bits)


def test_mayers_figures_are_the_five_percent_points():
    assert round(odds.birthday_keys(32, 0.05)) == 20_991
    assert odds.birthday_keys(64, 0.05) == pytest.approx(1.38e9, rel=0.01)
    assert odds.collision_probability(20_991, 32) == pytest.approx(0.05, abs=1e-3)


def test_collision_probability_small_cases_and_series_branch():
    assert odds.collision_probability(1, 64) == 0.0
    assert odds.collision_probability(2, 1) == pytest.approx(0.5)  # two 1-bit keys agree half the time
    assert odds.collision_probability(5, 2) == 1.0  # more keys than values
    assert odds.collision_probability(3, 2) == pytest.approx(1 - (3 / 4) * (2 / 4))
    assert odds.collision_probability(3, 1) == 1.0
    # Above 4e6 keys the power-sum series takes over; it must agree with 1 - exp(-n(n-1)/2N) for n << N.
    n = 5_000_000
    assert odds.collision_probability(n, 48) == pytest.approx(-math.expm1(-n * (n - 1) / 2 / 2.0**48), rel=1e-6)


def test_koistinen_rule():
    assert odds.koistinen(1, 2.0**32, 2.0**40) == 1 / 256
    assert odds.koistinen_exact(1, 2.0**32, 2.0**40) == pytest.approx(-math.expm1(-1 / 256), rel=1e-9)


def test_mayers_full_table_case():
    per_probe = 2.0**20 / 2.0**64
    assert odds.probes_until(0.95, per_probe) == pytest.approx(math.log(20) * 2.0**44, rel=1e-9)
    assert odds.probes_until(0.95, per_probe) == pytest.approx(5.27e13, rel=0.01)
    assert odds.probes_until(0.05, per_probe) == pytest.approx(9.0e11, rel=0.01)
    assert 0.95 * 2.0**44 == pytest.approx(1.67e13, rel=0.01)  # what he computed: 0.95 false matches expected


def test_newmans_extrapolation():
    rows = {r["case"]: r for r in odds.claim_rows()}
    at53 = next(r for case, r in rows.items() if "errors/s at 53" in case)
    assert at53["correct"] == pytest.approx(4.47e-5, rel=1e-3)
    per_year = next(r for case, r in rows.items() if case == "errors/year at 64 bits")
    assert per_year["correct"] == pytest.approx(0.69, rel=0.01)


def test_every_claim_row_has_claim_figures_and_verdict():
    for row in odds.claim_rows():
        assert {"who", "case", "thread", "correct", "verdict"} <= row.keys()
        assert row["verdict"]
    verdicts = [r["verdict"].split(":")[0] for r in odds.claim_rows()]
    assert verdicts.count("wrong") == 3


def test_effective_signature_bits_of_our_table():
    # 64 MB: 2^20 buckets of 4 slots; the 20 index bits are equal within a bucket.
    assert odds.effective_signature_bits(64, 4 * 2**20, 4) == 44
    assert odds.effective_signature_bits(32, 4 * 2**20, 4) == 32
    rate = odds.false_hits_per_second(1e6, 1, 4, 32, 4 * 2**20)
    assert rate == pytest.approx(1e6 * 4 / 2.0**32)


def test_monte_carlo_is_reproducible_and_agrees():
    assert odds.first_collisions(12, 5, range(10)) == odds.first_collisions(12, 5, range(10))
    assert odds.first_collisions(12, 5, range(10)) != odds.first_collisions(12, 6, range(10))
    rows = odds.montecarlo_rows([12], 0.95, 200, seed=3, placement=Placement())
    assert rows[0]["trials"] == 200
    assert rows[0]["verdict"] == "agrees"


def test_human_interval():
    assert odds.human_interval(0.0164) == "16.4 ms"
    assert odds.human_interval(3600 * 3.4) == "3.4 h"
    assert odds.human_interval(math.inf) == "never"


def test_report_json_and_plot(tmp_path, capsys):
    out, png = tmp_path / "odds.json", tmp_path / "odds.png"
    assert main(["lab", "odds", "--json", str(out), "--plot", str(png), "--mc-bits", "12", "--trials", "25"]) == 0
    report = json.loads(out.read_text())
    assert set(report) == REPORT_KEYS
    assert report["schema"] == "transpo-lab/1" and report["command"] == "odds"
    assert report["config"]["seed"] == 1 and report["config"]["slots"] == 4
    assert {r["section"] for r in report["rows"]} == {"birthday", "montecarlo", "false-hits", "claim"}
    assert report["summary"]["koistinen_s1_p2^32_h2^40"] == 1 / 256
    assert png.read_bytes()[:8] == PNG_SIGNATURE
    printed = capsys.readouterr().out
    assert "The seed threads' figures, recomputed" in printed and "160,416" in printed


def test_positions_are_refused(capsys):
    assert main(["lab", "odds", "--positions", "x.epd"]) == 2
    assert "uses no positions" in capsys.readouterr().err


def test_cli_subprocess(tmp_path):
    out = tmp_path / "out.json"
    done = subprocess.run(
        [sys.executable, "-m", "transpo.cli", "lab", "odds", "--json", str(out), "--mc-bits"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert set(report) == REPORT_KEYS
    assert not [r for r in report["rows"] if r["section"] == "montecarlo"]
