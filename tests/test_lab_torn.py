"""The torn-entry audit of the table and ``transpo lab torn``.

Torn entries are planted by hand (word 1 of one store beside word 0 of another,
what two threads storing into one slot at once can leave): the audit must count
them as seen, the lockless check must refuse them, the plain layout must hand
them to the probe, and a cutoff on one must be counted.  A single thread with
the audit searches exactly as without it and tears nothing.  The command runs
end to end on a tiny configuration.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from transpo.cli import main
from transpo.core.position import Position
from transpo.engine import table as T
from transpo.engine.engine import Engine
from transpo.engine.table import BOUND_LOWER, BOUND_NONE, TranspositionTable
from transpo.engine.timeman import Limits
from transpo.lab.torn import parse_lockless

KEY_A = 0x7711_2222_3333_0384  # bucket 0x384 of a 1 MB table (14 index bits)
KEY_B = 0x7812_4444_5555_4384  # the same bucket, another position and slot-choice bits


def _table(lockless: bool) -> TranspositionTable:
    tt = TranspositionTable(1, policy="bucket", lockless=lockless, torn_audit=True)
    tt.store(KEY_A, move=0x0101, score=10, static_eval=0, depth=3, bound=BOUND_LOWER)
    tt.store(KEY_B, move=0x1E1E, score=-400, static_eval=0, depth=9, bound=BOUND_LOWER)
    return tt


def _slot(tt: TranspositionTable, key: int) -> int:
    return int(T.locate(tt.arrays, np.uint64(key), np.uint64(0)))


def _tear(tt: TranspositionTable) -> None:
    """A's key word beside B's data word (A's seal stays): a torn pair."""
    tt.words[_slot(tt, KEY_A) + 1] = tt.words[_slot(tt, KEY_B) + 1]


@pytest.mark.parametrize("lockless", [True, False])
def test_intact_entries_are_consistent(lockless):
    tt = _table(lockless)
    tt.reset_counters()
    assert tt.probe(KEY_A).move == 0x0101 and tt.probe(KEY_B).move == 0x1E1E
    counts = tt.counters()
    assert counts["hits"] == 2 and counts["torn_seen"] == counts["torn_hits"] == 0


def test_a_torn_entry_is_seen_and_refused_by_the_lockless_check():
    tt = _table(lockless=True)
    _tear(tt)
    tt.reset_counters()
    assert tt.probe(KEY_A).bound == BOUND_NONE
    counts = tt.counters()
    assert counts["torn_seen"] >= 1 and counts["torn_hits"] == 0


def test_a_torn_entry_is_seen_and_taken_without_the_lockless_check():
    tt = _table(lockless=False)
    _tear(tt)
    tt.reset_counters()
    torn = tt.probe(KEY_A)
    assert (torn.move, torn.score, torn.depth) == (0x1E1E, -400, 9)  # B's data taken as A's
    counts = tt.counters()
    assert counts["torn_seen"] >= 1 and counts["torn_hits"] == 1
    T.record_cutoff(tt.arrays, np.uint64(KEY_A), np.uint64(0))  # the search ends the node on it
    assert tt.counters()["torn_cutoffs"] == 1
    tt.probe(KEY_B)  # an intact entry: a cutoff on it is not a torn cutoff
    T.record_cutoff(tt.arrays, np.uint64(KEY_B), np.uint64(0))
    assert tt.counters()["torn_cutoffs"] == 1


def test_the_two_audits_exclude_each_other_and_switching_clears():
    with pytest.raises(ValueError, match="use one at a time"):
        TranspositionTable(1, audit=True, torn_audit=True)
    tt = TranspositionTable(1, audit=True)
    with pytest.raises(ValueError, match="use one at a time"):
        tt.torn_audit = True
    assert tt.audit and not tt.torn_audit
    tt = TranspositionTable(1)
    tt.store(KEY_A, move=1, score=0, static_eval=0, depth=1, bound=BOUND_LOWER)
    tt.torn_audit = True  # entries without a seal would look torn: the table starts empty
    assert tt.torn_audit and tt.check.size == tt.entries
    assert tt.probe(KEY_A).bound == BOUND_NONE and tt.counters()["torn_seen"] == 0
    tt.torn_audit = False
    assert tt.check.size == 1


FEN = "r1bq1rk1/pppnbppp/4pn2/3p2B1/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 3 7"


@pytest.mark.parametrize("lockless", [True, False])
def test_one_thread_with_the_torn_audit_searches_the_same_and_tears_nothing(lockless):
    results = []
    for torn_audit in (False, True):
        engine = Engine(hash_mb=1, move_overhead=0, lockless=lockless)
        engine.table.torn_audit = torn_audit
        result = engine.search(Position.from_fen(FEN), Limits(depth=7))
        results.append((result.best_move, result.score, result.nodes))
        counts = engine.table.counters()
        assert counts["torn_seen"] == counts["torn_hits"] == counts["torn_cutoffs"] == 0
    assert results[0] == results[1]


def test_parse_lockless():
    assert parse_lockless("on") == [True]
    assert parse_lockless("off,on") == [False, True]
    with pytest.raises(ValueError, match="on, off or on,off"):
        parse_lockless("maybe")


def test_torn_command(tmp_path):
    out_json, out_png = tmp_path / "torn.json", tmp_path / "torn.png"
    argv = ["lab", "torn", "--limit", "2", "--depth", "5", "--threads", "1,2", "--json", str(out_json),
            "--plot", str(out_png)]  # fmt: skip
    assert main(argv) == 0
    assert out_png.read_bytes()[:4] == b"\x89PNG"
    report = json.loads(out_json.read_text())
    assert report["command"] == "torn"
    rows = {row["variant"]: row for row in report["rows"] if row["section"] == "variant"}
    assert set(rows) == {f"{t} thread{'s' if t > 1 else ''}, lockless {s}" for t in (1, 2) for s in ("on", "off")}
    for name in ("1 thread, lockless on", "1 thread, lockless off"):
        row = rows[name]
        assert row["seen"] == row["accepted"] == row["cutoffs"] == row["root_changed"] == 0  # one thread tears nothing
    for row in rows.values():
        assert row["searches"] == 2 and row["probes"] > 0
        assert row["accepted"] <= row["seen"] and row["rejected"] == row["seen"] - row["accepted"]
        assert row["root_changed_after_torn_cutoff"] <= row["searches_with_torn_cutoff"] <= row["searches"]
    assert main(["lab", "torn", "--threads", "0", "--limit", "1"]) == 2
    assert main(["lab", "torn", "--lockless", "sometimes", "--limit", "1"]) == 2
