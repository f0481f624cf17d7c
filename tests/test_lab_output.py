"""Every lab command's tables fit a 100-column terminal: no line longer, no cell cut short ("…"), no table cropped."""

from __future__ import annotations

import pytest

from transpo.cli import main

WIDTH = 100
RIGHT_EDGE = {"┏": "┓", "┃": "┃", "┡": "┩", "│": "│", "└": "┘"}

COMMANDS = {
    "odds": ["odds", "--trials", "20"],
    "keys": ["keys", "--games", "4", "--plies", "12", "--random-pairs", "200"],
    "errors": ["errors", "--depth", "3", "--limit", "2"],
    "tt-gain": ["tt-gain", "--depths", "3", "--limit", "2", "--fine70-seconds", "0"],
    "crashes": ["crashes", "--depth", "3", "--limit", "2"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_tables_fit_100_columns(command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    assert main(["lab", *COMMANDS[command], "--jobs", "1"]) in (0, None)
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("┏") for line in lines), "no table printed"
    for line in lines:
        assert len(line) <= WIDTH, line
        assert "…" not in line, line
        if line[:1] in RIGHT_EDGE:
            assert line.endswith(RIGHT_EDGE[line[0]]), f"cropped: {line}"


def test_a_wide_table_is_split_repeating_its_name_columns() -> None:
    from transpo.lab.report import _split_columns

    assert _split_columns([10, 10, 10], 1, 100) == [[0, 1, 2]]
    parts = _split_columns([8, 4, 4] + [10] * 10, 3, 100)
    assert len(parts) == 2 and all(part[:3] == [0, 1, 2] for part in parts)
    assert sorted({i for part in parts for i in part}) == list(range(13))
    for part in parts:
        assert 1 + sum(([8, 4, 4] + [10] * 10)[i] + 3 for i in part) <= 100
