"""Property tests: incremental state (Zobrist key, piece-square sums) equals a from-scratch
computation after any sequence of pushes and pops, and pop restores everything exactly."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_snapshot, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transpo import START_FEN, Position
from transpo.core.board import SQ64_TO_120, ST_EG, ST_MG, ST_OCCUPIED, ST_PAWNS, ST_PHASE, ST_PLY, ST_SIDE
from transpo.core.keys import KEY_SET_NAMES, compute_key, compute_pawn_key
from transpo.core.makemove import make_move, unmake_move
from transpo.settings import KEY_COMBINATIONS

FENS = [
    START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rn2k1nr/P1P3PP/8/8/8/8/p1p3pp/RN2K1NR w KQkq - 0 1",
    "4k3/p1p1p1p1/8/1P1P1P1P/1p1p1p1p/8/P1P1P1P1/4K3 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
]

# An op is (kind, pick): kind < 3 pops (if there is a move to take back), otherwise
# pushes legal move number ``pick % len(moves)``.  Pushes outnumber pops 7:3, so
# sequences wander a dozen or more plies deep and come back part of the way.
OPS = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 255)), min_size=1, max_size=80)
PROPERTY_SETTINGS = settings(
    max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(
    fen=st.sampled_from(FENS),
    ops=OPS,
    key_set=st.sampled_from(KEY_SET_NAMES),
    combine=st.sampled_from(KEY_COMBINATIONS),
)
def test_push_pop_key_matches_scratch_and_pop_restores(fen, ops, key_set, combine):
    p = Position.from_fen(fen, keys=key_set, combine=combine)
    history = [snapshot(p)]
    for kind, pick in ops:
        moves = p.legal_moves()
        if kind < 3 or not moves:
            if not p.moves:
                with pytest.raises(IndexError):
                    p.pop()
                continue
            p.pop()
            history.pop()
            assert_same_snapshot(snapshot(p), history[-1])
        else:
            p.push(moves[pick % len(moves)])
            history.append(snapshot(p))
        assert p.key == int(compute_key(p.board, p.state, p.zobrist))
        assert p.pawn_key == int(compute_pawn_key(p.board, p.zobrist))  # the pawn hash's key, kept the same way
        assert Position.from_fen(p.fen(), keys=key_set, combine=combine).key == p.key
        assert int(p.keys[p.state[ST_PLY]]) == p.key
    while p.moves:
        p.pop()
        history.pop()
        assert_same_snapshot(snapshot(p), history[-1])
    assert len(history) == 1


def scratch_sums(board: np.ndarray, psq: np.ndarray) -> tuple[int, int, int]:
    """(mg, eg, phase) summed over the pieces on the board, straight from the table."""
    squares = SQ64_TO_120
    codes = board[squares].astype(np.int64)
    on = codes > 0
    mg, eg, phase = psq[codes[on], squares[on]].astype(np.int64).sum(axis=0)
    return int(mg), int(eg), int(phase)


def _psq_tables() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(12345)
    tables = [("random", rng.integers(-1000, 1000, size=(16, 120, 3), dtype=np.int32))]
    try:
        from transpo.engine.pesto import psq_table
    except ImportError:  # the engine package is optional for the core tests
        pass
    else:
        tables.append(("pesto", np.ascontiguousarray(psq_table(), dtype=np.int32)))
    return tables


PSQ_TABLES = _psq_tables()


def test_scratch_sums_helper_on_the_start_position():
    """The helper itself: material is symmetric in the start position with PeSTO-like tables."""
    psq = np.zeros((16, 120, 3), dtype=np.int32)
    psq[1:7, :, 2] = 1  # white pieces count +1 phase
    psq[9:15, :, 2] = 1
    psq[1, :, 0] = 100
    psq[9, :, 0] = -100
    assert scratch_sums(Position().board, psq) == (0, 0, 32)


@PROPERTY_SETTINGS
@given(fen=st.sampled_from(FENS), ops=OPS, table=st.sampled_from(range(len(PSQ_TABLES))))
def test_make_move_keeps_psq_sums_equal_to_scratch(fen, ops, table):
    """make_move with a non-zero psq table updates ST_MG/ST_EG/ST_PHASE incrementally."""
    psq = PSQ_TABLES[table][1]
    p = Position.from_fen(fen)
    p.state[ST_MG], p.state[ST_EG], p.state[ST_PHASE] = scratch_sums(p.board, psq)
    played = []
    states = [(p.board.copy(), p.state.copy())]
    for kind, pick in ops:
        moves = p.encoded_moves()
        if kind < 3 or not moves:
            if not played:
                continue
            unmake_move(p.board, p.state, p.undo, played.pop())
            states.pop()
            np.testing.assert_array_equal(p.board, states[-1][0])
            np.testing.assert_array_equal(p.state, states[-1][1])
        else:
            move = moves[pick % len(moves)]
            make_move(p.board, p.state, p.keys, p.undo, move, p.zobrist, psq)
            played.append(move)
            states.append((p.board.copy(), p.state.copy()))
        sums = (int(p.state[ST_MG]), int(p.state[ST_EG]), int(p.state[ST_PHASE]))
        assert sums == scratch_sums(p.board, psq)
        assert int(p.keys[p.state[ST_PLY]]) == int(compute_key(p.board, p.state, p.zobrist))
        assert [int(v) for v in p.state[ST_OCCUPIED:ST_PAWNS + 2]] == scratch_bitboards(p.board)


def scratch_bitboards(board: np.ndarray) -> list[int]:
    """The colour and pawn bitboards of a board, from scratch: white, black pieces; white, black pawns (as int64)."""
    boards = [0, 0, 0, 0]
    for s, sq in enumerate(SQ64_TO_120):
        piece = int(board[sq])
        if piece > 0:
            boards[piece >> 3] |= 1 << s
            if piece & 7 == 1:
                boards[2 + (piece >> 3)] |= 1 << s
    return [b - (1 << 64) if b >= 1 << 63 else b for b in boards]


def test_psq_tables_under_test_are_not_trivial():
    names = [name for name, _ in PSQ_TABLES]
    assert "random" in names
    for _, psq in PSQ_TABLES:
        assert psq.shape == (16, 120, 3) and psq.dtype == np.int32 and psq.flags.c_contiguous
        assert np.count_nonzero(psq[:, SQ64_TO_120, :2]) > 500


def test_long_game_push_pop_round_trip():
    """A 600-ply seeded random walk, then every move taken back, restores the start exactly."""
    rng = np.random.default_rng(99)
    for fen in FENS[:4]:
        p = Position.from_fen(fen)
        start = snapshot(p)
        trail = []
        for _ in range(600):
            moves = p.legal_moves()
            if not moves:
                break
            trail.append(snapshot(p))
            p.push(moves[int(rng.integers(len(moves)))])
            assert p.key == int(compute_key(p.board, p.state, p.zobrist))
        while trail:
            p.pop()
            assert_same_snapshot(snapshot(p), trail.pop())
        assert_same_snapshot(snapshot(p), start)


@pytest.mark.parametrize("combine", KEY_COMBINATIONS)
@pytest.mark.parametrize("fen", [fen for fen in FENS if not Position.from_fen(fen).is_check()])
def test_null_move_key_matches_scratch_and_unmake_restores(fen, combine):
    from transpo.core.makemove import make_null, unmake_null

    p = Position.from_fen(fen, combine=combine)
    board, state, key = p.board.copy(), p.state.copy(), p.key
    make_null(p.state, p.keys, p.undo, p.zobrist)
    assert p.turn != "wb"[int(state[ST_SIDE])]
    assert p.key == int(compute_key(p.board, p.state, p.zobrist))
    assert p.key != key
    assert p.fen().split()[3] == "-"
    unmake_null(p.state, p.undo)
    np.testing.assert_array_equal(p.board, board)
    np.testing.assert_array_equal(p.state, state)
    assert p.key == key
