"""The lab's spine: option syntax and ranges, output paths checked first, verdicts, statistics, the runner."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time

import pytest

from transpo.cli import build_parser, main
from transpo.executors import Placement
from transpo.lab import crashes, errors, odds, tt_gain
from transpo.lab.claims import Claim, judge, last_digit_unit
from transpo.lab.options import parse_list
from transpo.lab.positions import DEFAULT_POSITIONS
from transpo.lab.runner import EngineSettings, SearchJob, SearchLimit, SearchRecord, run_parallel, run_searches
from transpo.lab.stats import geometric_mean, normal_quantile, ols_slope, poisson_interval, poisson_slope


def parse(*argv: str):
    return build_parser().parse_args(["lab", *argv])


@pytest.fixture
def no_search(monkeypatch):
    """Make every experiment's search or pool fail loudly: a refused command must not get that far."""

    def refuse(*args, **kwargs):
        raise AssertionError("the run started")

    for module in (errors, crashes, tt_gain):
        monkeypatch.setattr(module, "run_searches", refuse)
    for module in (odds, tt_gain):
        monkeypatch.setattr(module, "run_parallel", refuse)


def one_line_error(capsys, *needles: str) -> str:
    """The command's stderr: exactly one line, ``error: ...``, holding every needle; nothing on stdout."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert "Traceback" not in captured.err and not captured.out
    for needle in needles:
        assert needle in lines[0]
    return lines[0]


# --- list syntax ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "words", [["16,32"], ["16", "32"], ["16,", "32"], ["16, 32"]], ids=["comma", "space", "both", "comma-space"]
)
def test_list_options_take_commas_and_spaces(words):
    assert parse("odds", "--bits", *words).bits == [16, 32]


def test_list_items_of_every_kind():
    args = parse("errors", "--bits", "8,12", "16", "--hash-mb", "1", "--policies", "bucket,always", "depth")
    assert (args.bits, args.hash_mb, args.policies) == ([8, 12, 16], [1], ["bucket", "always", "depth"])
    assert parse("keys", "--key-sets", "prng,knuth").key_sets == ["prng", "knuth"]
    assert parse("keys", "--key-sets", "prng", "knuth").key_sets == ["prng", "knuth"]
    assert parse("crashes", "--forced", "10,1e3", "10**7").forced == [10, 1000, 10**7]
    assert parse("odds", "--mc-bits").mc_bits == []  # no item: the Monte Carlo is skipped
    assert parse("errors").bits == list(errors.DEFAULT_BITS)


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["errors", "--bits", "8,x"], ["--bits", "not an integer: 'x'"]),
        (["errors", "--bits", "8,1.5e0"], ["not an integer"]),
        (["errors", "--policies", "bucket,lru"], ["unknown policy 'lru'"]),
        (["keys", "--key-sets", "prng,md5"], ["unknown key set 'md5'"]),
        (["odds", "--bits", "16,65"], ["key bits must be 1..64, not 65"]),
        (["crashes", "--bits", "4", "8"], ["signature bits must be 8..64, not 4"]),
        (["tt-gain", "--hash-mb", "0"], ["hash size must be 1..65536 MB, not 0"]),
    ],
)
def test_bad_list_items_are_one_line_errors(capsys, no_search, argv, needles):
    assert main(["lab", *argv]) == 2
    one_line_error(capsys, *needles)


def test_parse_list():
    assert parse_list(" 8, 12 ,16,") == [8, 12, 16]
    with pytest.raises(ValueError, match="no item"):
        parse_list(",")


# --- ranges ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["errors", "--limit", "0"], ["--limit", "limit must be >= 1, not 0"]),
        (["errors", "--limit", "-1"], ["limit must be >= 1, not -1"]),
        (["crashes", "--jobs", "0"], ["--jobs", "jobs must be >= 1, not 0"]),
        (["tt-gain", "--jobs", "-3"], ["jobs must be >= 1, not -3"]),
        (["odds", "--trials", "-1"], ["--trials", "trials must be >= 1, not -1"]),
        (["odds", "--trials", "0"], ["trials must be >= 1, not 0"]),
        (["errors", "--depth", "0"], ["depth must be 1..60, not 0"]),
        (["errors", "--movetime", "0"], ["movetime must be >= 1, not 0"]),
        (["tt-gain", "--depths", "3,61"], ["depth must be 1..60, not 61"]),
        (["tt-gain", "--game-depth", "-1"], ["game depth must be 0..60"]),
        (["tt-gain", "--fine70-seconds", "-2"], ["Fine #70 time must be >= 0"]),
        (["crashes", "--margin", "-5"], ["margin must be >= 0, not -5"]),
        (["crashes", "--forced", "-10"], ["forced interval must be >= 0"]),
        (["odds", "--probability", "1"], ["probability must be > 0 and < 1, not 1.0"]),
        (["odds", "--nps", "nan"], ["not a finite number"]),
        (["odds", "--mc-bits", "50"], ["Monte Carlo key bits must be 4..40"]),
        (["odds", "--slots", "8", "--entries", "4"], ["--entries (4) must be at least --slots (8)"]),
        (["keys", "--games", "0"], ["games must be >= 1, not 0"]),
        (["errors", "--keys", "prng", "--seed", str(0xA0D17)], ["check-key seed"]),
    ],
)
def test_out_of_range_values_are_refused_before_anything_runs(capsys, no_search, argv, needles):
    assert main(["lab", *argv]) == 2
    one_line_error(capsys, *needles)


# --- output paths ------------------------------------------------------------------------------------
@pytest.mark.parametrize("flag", ["--json", "--plot"])
@pytest.mark.parametrize("command", ["errors", "crashes", "tt-gain", "odds", "keys"])
def test_unwritable_outputs_are_refused_before_the_run(tmp_path, capsys, no_search, monkeypatch, flag, command):
    monkeypatch.setattr("transpo.lab.keyquality.run_parallel", lambda *a, **k: pytest.fail("the run started"))
    started = time.perf_counter()
    assert main(["lab", command, flag, str(tmp_path / "missing" / "out")]) == 2
    assert time.perf_counter() - started < 5
    one_line_error(capsys, "cannot write", "no directory")
    assert main(["lab", command, flag, str(tmp_path)]) == 2  # a directory
    one_line_error(capsys, "is a directory")


def test_a_writable_path_is_left_as_it_was(tmp_path):
    existing = tmp_path / "old.json"
    existing.write_text("keep")
    assert parse("odds", "--json", str(existing)).json == str(existing)
    assert existing.read_text() == "keep"
    assert parse("odds", "--plot", str(tmp_path / "new.png")).plot == str(tmp_path / "new.png")
    assert list(tmp_path.iterdir()) == [existing]  # the check left no file behind


# --- --seed ----------------------------------------------------------------------------------------
def test_seed_reaches_the_prng_key_set_of_every_search():
    for command, module in (("errors", errors), ("crashes", crashes)):
        config = module.configure(parse(command, "--keys", "prng", "--seed", "0x2a", "--limit", "1"))
        assert {(job.keys, job.seed) for job in module.search_jobs(config)} == {("prng", 42)}
    config = tt_gain.configure(parse("tt-gain", "--keys", "knuth", "--seed", "7", "--limit", "1"))
    jobs = tt_gain.fresh_jobs(config) + tt_gain.game_jobs(config)
    assert {(job.keys, job.seed) for job in jobs} == {("knuth", 7)}
    assert {(job.keys, job.seed) for job in tt_gain.fine70_jobs(config)} == {("knuth", 7)}


def test_odds_seed_drives_the_monte_carlo():
    first = odds.montecarlo_rows([10], 0.5, 30, seed=1, placement=Placement())[0]
    assert first == odds.montecarlo_rows([10], 0.5, 30, seed=1, placement=Placement())[0]
    assert (
        first["mean_first_collision"] != odds.montecarlo_rows([10], 0.5, 30, seed=2, placement=Placement())[0]["mean_first_collision"]
    )


# --- verdicts from claim data ----------------------------------------------------------------------
def test_a_claim_that_holds():
    claim = Claim.quoted("Newman", "errors/s at 53 bits", "4.47e-5", "750 / 2^24")
    verdict = judge(claim, 750 / 2**24)
    assert verdict.holds and verdict.text == "holds" and verdict.short == "holds"


def test_a_claim_that_fails_is_named_or_measured():
    n95, n05 = odds.birthday_keys(32, 0.95), odds.birthday_keys(32, 0.05)
    slip = Claim.quoted("Mayer", "keys for 95%", "20,991", "sqrt form", mistakes=(("the 5% point", n05),))
    verdict = judge(slip, n95)
    assert not verdict.holds and verdict.text == "wrong: that is the 5% point"
    plain = Claim("X", "keys for 95%", 1000.0, "sqrt form", relative_tolerance=0.01)
    assert judge(plain, 100.0).text == "wrong: too high (x10)"
    assert judge(plain, 4000.0).short == "too low (x0.25)"


def test_tolerance_edge_holds_and_beyond_fails():
    claim = Claim("X", "a figure", 100.0, "exact", absolute_tolerance=2.0)
    assert judge(claim, 102.0).holds and judge(claim, 98.0).holds  # the edge itself holds
    assert not judge(claim, 102.5).holds and not judge(claim, 97.5).holds
    relative = Claim("X", "a figure", 110.0, "exact", relative_tolerance=0.1)
    assert judge(relative, 100.0).holds and not judge(relative, 99.0).holds
    assert last_digit_unit("20,991") == 1 and last_digit_unit("1.3e9") == 1e8 and last_digit_unit("0.16") == 0.01


def test_odds_verdicts_follow_the_claims():
    rows = {(r["who"], r["case"]): r for r in odds.claim_rows()}
    assert rows[("Mayer", "64-bit keys stored for a 95% chance of a collision")]["verdict"] == (
        "wrong: that is the 5% point"
    )
    assert rows[("Koistinen", "s=1, p=2^32, h=2^40: chance of a crash")]["verdict"].startswith("holds (exact 0.0038")
    newman = [r for (who, _), r in rows.items() if who == "Newman"]
    assert [r["verdict"] for r in newman[:3]] == ["holds"] * 3
    assert newman[3]["verdict"].startswith("halving holds; 750/s anchor too high")


# --- statistics against closed forms -----------------------------------------------------------------
def test_geometric_mean():
    assert geometric_mean([1.0, 4.0]) == pytest.approx(2.0)
    assert geometric_mean([2.0, 8.0, 0.0, -1.0]) == pytest.approx(4.0)  # only the positive values count
    assert geometric_mean([0.0]) is None


def test_normal_quantile():
    assert normal_quantile(0.5) == pytest.approx(0.0, abs=1e-12)
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054, abs=1e-9)
    assert normal_quantile(0.5 * math.erfc(-1 / math.sqrt(2))) == pytest.approx(1.0, abs=1e-9)  # Phi(1)


def test_poisson_interval_closed_forms():
    # With no event the upper bound m solves exp(-m) = 0.025; with one, the lower bound solves 1 - exp(-m) = 0.025.
    assert poisson_interval(0) == (0.0, pytest.approx(-math.log(0.025), rel=1e-9))
    assert poisson_interval(1)[0] == pytest.approx(-math.log(0.975), rel=1e-9)
    # Past 400 events: count -+ z * sqrt(count).
    low, high = poisson_interval(900)
    assert (low, high) == (pytest.approx(900 - 1.959963984540054 * 30), pytest.approx(900 + 1.959963984540054 * 30))
    high90 = poisson_interval(900, level=0.9)[1]
    assert high90 - 900 == pytest.approx(1.6448536269514722 * 30, rel=1e-9)


def test_slopes():
    assert ols_slope([0, 1, 2], [1, 3, 5]) == pytest.approx(2.0)
    assert ols_slope([1, 1], [1, 2]) is None
    bits = [4, 6, 8, 10]
    trials = [100 * 2.0**b for b in bits]  # exactly 100 expected events at every width: slope -1, intercept 0
    slope, se, dispersion = poisson_slope(bits, [100] * 4, trials)
    assert slope == pytest.approx(-1.0, abs=1e-9)
    assert dispersion == pytest.approx(0.0, abs=1e-12)
    assert se == pytest.approx(math.sqrt(1 / (400 * math.log(2) ** 2 * 5)), rel=1e-6)  # 1/sqrt(sum mu (x-xbar)^2 ln2^2)


# --- the runner --------------------------------------------------------------------------------------
def test_run_parallel_keeps_the_order():
    assert run_parallel(abs, [-3, -1, -2], Placement(1), "test") == [3, 1, 2]
    assert run_parallel(abs, [-3, -1, -2], Placement(2), "test") == [3, 1, 2]


@pytest.mark.parametrize("processes", [1, 2])
def test_search_jobs_round_trip_through_the_pool(processes):
    jobs = [
        SearchJob(
            positions=(DEFAULT_POSITIONS[i],),
            first_index=i,
            limit=SearchLimit(depth=3),
            engine=EngineSettings(hash_mb=1, signature_bits=16, audit=True),
            tag={"number": i},
        )
        for i in (0, 9)
    ]
    results = run_searches(jobs, Placement(processes), "test")
    assert [len(records) for records in results] == [1, 1]
    for job, (record,) in zip(jobs, results, strict=True):
        assert isinstance(record, SearchRecord)
        assert record.position == job.first_index and record.name == job.positions[0][1]
        assert record.tag == {"number": job.first_index} and record.depth == 3 and record.best_move
        assert record.index_bits == 14  # 1 MB: 2^14 buckets
        row = record.row()
        assert row["number"] == job.first_index and row["probes"] == record.counters["probes"] > 0
        assert isinstance(row["pv"], list)


def test_search_limit_is_a_depth_or_a_time():
    assert SearchLimit(depth=4).text() == "depth 4" and SearchLimit(movetime_ms=250).text() == "250 ms"
    with pytest.raises(ValueError):
        SearchLimit()
    with pytest.raises(ValueError):
        SearchLimit(depth=4, movetime_ms=250)


def test_a_transpo_subprocess_runs_this_lab(tmp_path):
    """The comma syntax of ``--bits`` is new: a child process that accepts it imports this code, not another copy."""
    out = tmp_path / "odds.json"
    done = subprocess.run(
        [sys.executable, "-m", "transpo.cli", "lab", "odds", "--bits", "16,32", "--mc-bits", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["config"]["bits"] == [16, 32]
