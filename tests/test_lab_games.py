"""``transpo lab games``: variants, the flip to the variant's side, games needed, and one tiny gauntlet end to end."""

from __future__ import annotations

import json
import math

import pytest

from transpo.cli import main
from transpo.lab.games import (
    NO_TABLE,
    games_needed,
    pair_game_sd,
    parse_variants,
    variant_options,
    variant_row,
)


def test_parse_variants():
    assert parse_variants("no-table,8,16") == [NO_TABLE, 8, 16]
    assert parse_variants("16, 16 ,NO-TABLE") == [16, NO_TABLE]
    for bad, message in (("64", "reference"), ("7", "8..63"), ("x", "no-table or signature bits"), (",", "at least")):
        with pytest.raises(ValueError, match=message):
            parse_variants(bad)


def test_variant_options_are_uci_options():
    assert variant_options(NO_TABLE) == {"UseTT": "false"}
    assert variant_options(24) == {"SignatureBits": "24"}


def test_pair_sd_matches_the_games_it_stands_for():
    # pairs all 1-1 (two draws or a win and a loss each): the per-game mean never moves, sd 0
    assert pair_game_sd([0, 0, 7, 0, 0]) == 0
    # pairs all 2 or all 0 in equal numbers: pair variance 1, per game sqrt(1/2)
    assert pair_game_sd([5, 0, 0, 0, 5]) == pytest.approx(math.sqrt(0.5))
    assert pair_game_sd([0, 0, 1, 0, 0]) is None  # one pair: no variance


def test_games_needed_against_a_direct_computation():
    # 10 Elo is a score of 0.514387...; with sd 0.4 per game the interval 1.96 * 0.4 / sqrt(n) must fit in it
    margin = 1 / (1 + 10 ** (-10 / 400)) - 0.5
    n = games_needed(10, 0.4)
    assert 1.959963984540054 * 0.4 / math.sqrt(n) <= margin < 1.959963984540054 * 0.4 / math.sqrt(n - 1)
    assert games_needed(20, 0.4) < n / 3  # a quarter, rounded up
    assert games_needed(0, 0.4) is None and games_needed(10, None) is None


def test_variant_row_is_from_the_variants_side():
    summary = {"games": 10, "wins": 6, "draws": 3, "losses": 1, "score": 0.75, "elo": 190.8, "elo_low": 80.0,
               "elo_high": 320.0, "pentanomial": [0, 1, 1, 2, 1], "forfeits": {}}  # fmt: skip
    row = variant_row(16, summary)
    assert (row["wins"], row["draws"], row["losses"]) == (1, 3, 6)
    assert row["score"] == 0.25 and row["elo"] == -190.8
    assert (row["elo_low"], row["elo_high"]) == (-320.0, -80.0)
    assert row["pentanomial"] == [1, 2, 1, 1, 0] and row["variant"] == "16-bit" and row["bits"] == 16


def test_games_command(tmp_path):
    out_json, out_png = tmp_path / "games.json", tmp_path / "games.png"
    argv = ["lab", "games", "--variants", "no-table,8", "--games", "2", "--tc", "1+0.02", "--hash-mb", "1",
            "--json", str(out_json), "--plot", str(out_png)]  # fmt: skip
    assert main(argv) == 0
    assert out_png.read_bytes()[:4] == b"\x89PNG"
    report = json.loads(out_json.read_text())
    assert report["command"] == "games"
    rows = {r["variant"]: r for r in report["rows"] if r["section"] == "variant"}
    assert set(rows) == {NO_TABLE, "8-bit"}
    for row in rows.values():
        assert row["games"] == 2 and row["wins"] + row["draws"] + row["losses"] == 2
        assert sum(row["pentanomial"]) == 1
    assert [r["elo"] for r in report["rows"] if r["section"] == "needed"] == [5, 10, 20, 50, 100]


def test_bad_options_are_one_line_errors(capsys):
    assert main(["lab", "games", "--games", "3"]) == 2
    assert "even" in capsys.readouterr().err
    assert main(["lab", "games", "--variants", "64"]) == 2
    assert main(["lab", "games", "--positions", "x.epd"]) == 2
    assert main(["lab", "games", "--tc", "fast"]) == 2
