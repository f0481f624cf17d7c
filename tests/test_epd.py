"""``transpo epd``: the shipped mate suite is solved, malformed lines are reported by number, JSON, bad input."""

from __future__ import annotations

import json

import chess

from transpo.cli import main
from transpo.tools.epd import read_suite
from transpo.tools.openings import data_path


def test_mate_suite_is_solved_with_known_answers(tmp_path, capsys):
    out = tmp_path / "mates.json"
    # depth 11: late move pruning skips the quiet Kf7 of "rook mate in 2" below depth 10 (sparing checking moves
    # from it found the mate at depth 5 but lost 33 Elo in 429 games, docs/STRENGTH.md), and since b00215e the
    # re-search after the mate in 3 fails high goes a ply shallower (aspiration, engine.py): Kf7 at depth 11
    assert main(["epd", "mates", "--depth", "11", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Solved 7/7" in text
    data = json.loads(out.read_text())
    assert data["solved"] == data["positions"] == 7
    played = {r["id"]: r["move"] for r in data["results"]}
    assert played["back rank, mate in 1"] == "Rd8#" and played["fool's mate, mate in 1"] == "Qh4#"
    assert all(r["depth"] >= 1 for r in data["results"])


def test_malformed_lines_are_reported_with_their_number_and_skipped(tmp_path, capsys):
    suite = tmp_path / "suite.epd"
    suite.write_text(
        "# a comment\n"
        '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id "ok";\n'
        "this is not a position\n"
        '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - id "no answer";\n'
        '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd7; id "wrong answer expected";\n'
        '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Qd8; id "illegal bm";\n'
    )
    assert main(["epd", str(suite), "--depth", "3"]) == 0
    text = capsys.readouterr().out
    assert "skipped suite.epd:3:" in text and "skipped suite.epd:4: no bm or am" in text
    assert "skipped suite.epd:6:" in text
    assert "Solved 1/2" in text and "FAIL wrong answer expected" in text


def test_bratko_kopec_is_shipped_whole():
    problems, skipped = read_suite(data_path("bk.epd"))
    assert len(problems) == 24 and not skipped
    assert problems[0].best == ("Qd1+",) and problems[4].best == ("Nd5", "a4")
    assert all(chess.Board(p.fen).is_valid() for p in problems)


def test_bad_input_is_one_error_line(capsys):
    for args, message in ((["nonexistent.epd"], "no EPD file"), (["mates", "--depth", "0"], "--depth"),
                          (["mates", "--movetime", "-5"], "--movetime"), (["mates", "--hash", "0"], "hash size")):  # fmt: skip
        assert main(["epd", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and err.count("\n") == 1
