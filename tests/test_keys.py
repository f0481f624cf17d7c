"""Zobrist key sets: reproducibility, distinctness, the Knuth generator of Stuart Cracraft's
post (computer-go mailing list, Nov 1999; a copy is tests/data/seed_004_random32.txt, see
docs/REFERENCES.md) re-implemented here, PolyGlot's published keys, and repetition detection."""

from __future__ import annotations

import re

import chess
import chess.polyglot
import numpy as np
import pytest
from conftest import DATA_DIR

from transpo import Position, Status
from transpo.core import keys as K

SEED_DOC = DATA_DIR / "seed_004_random32.txt"


# --- the post's Random32, implemented independently -------------------------------------
def seeds_from_document() -> list[int]:
    """The 55 numbers of ``static unsigned long x[55] = {...}`` in the post's C code."""
    text = SEED_DOC.read_text()
    body = re.search(r"x\[55\]\s*=\s*\{(.*?)\}", text, re.S)[1]
    values = [int(v) for v in re.findall(r"(\d+)UL", body)]
    assert len(values) == 55
    return values


def random32_c_transcription(count: int) -> list[int]:
    """Line-by-line transcription of ``Random32`` as compiled on LP64 Linux.

    ``unsigned long`` is 64 bits there, so ``y[k] += y[j]`` wraps at 2**64 and
    only the ``(unsigned int)`` cast at the return truncates to 32 bits.
    """
    y = np.array(seeds_from_document(), dtype=np.uint64)
    j, k = 24 - 1, 55 - 1
    out = []
    for _ in range(count):
        y[k] = y[k] + y[j]  # numpy uint64 arrays wrap silently, like C
        ul = y[k]
        j -= 1
        if j < 0:
            j = 55 - 1
        k -= 1
        if k < 0:
            k = 55 - 1
        out.append(int(ul) & 0xFFFFFFFF)
    return out


def random32_sequence(count: int) -> list[int]:
    """The same generator as Knuth's sequence s(n) = s(n-24) + s(n-55) mod 2**32.

    The ring is walked downwards, so s(0..54) are the seeds in reverse order and
    output t is s(55 + t).  Blocks of 24 are independent, so numpy computes them at once.
    """
    s = np.zeros(55 + count + 24, dtype=np.uint32)
    s[:55] = seeds_from_document()[::-1]
    for n in range(55, 55 + count, 24):
        s[n : n + 24] = s[n - 55 : n - 31] + s[n - 24 : n]
    return [int(v) for v in s[55 : 55 + count]]


def test_seed_document_matches_the_seeds_in_the_package():
    assert list(K.KNUTH_SEEDS) == seeds_from_document()


def test_knuth_first_outputs_by_hand():
    """y[54] += y[23], then y[53] += y[22], then y[52] += y[21] (mod 2**32)."""
    assert (2393861397 + 1961600170) % 2**32 == 60494271
    assert 384606609 + 832845075 == 1217451684
    assert 810735053 + 117491133 == 928226186
    assert K.knuth_random32(3) == [60494271, 1217451684, 928226186]


def test_knuth_random32_matches_independent_implementations():
    ours = K.knuth_random32(1000)
    assert ours == random32_c_transcription(1000)
    assert ours == random32_sequence(1000)


def test_knuth_key_set_packs_two_draws_high_first():
    draws = random32_sequence(2 * K.RAW_KEYS)
    expected = np.array([(draws[2 * i] << 32) | draws[2 * i + 1] for i in range(K.RAW_KEYS)], dtype=np.uint64)
    np.testing.assert_array_equal(K.raw_key_set("knuth"), expected)


# --- key sets --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", K.KEY_SET_NAMES)
def test_key_set_is_reproducible_distinct_and_nonzero(name):
    a, b = K.raw_key_set(name), K.raw_key_set(name)
    assert a.dtype == np.uint64 and a.shape == (K.RAW_KEYS,)
    np.testing.assert_array_equal(a, b)
    assert len(set(a.tolist())) == K.RAW_KEYS
    assert 0 not in a.tolist()
    np.testing.assert_array_equal(K.key_set(name), K.key_set(name))
    assert K.key_set(name).shape == (K.ZOB_SIZE,)


def test_key_sets_differ_from_each_other():
    sets = {name: set(K.raw_key_set(name).tolist()) for name in K.KEY_SET_NAMES}
    for a in K.KEY_SET_NAMES:
        for b in K.KEY_SET_NAMES:
            if a < b:
                assert not sets[a] & sets[b], (a, b)
    start = {name: Position(keys=name).key for name in K.KEY_SET_NAMES}
    assert len(set(start.values())) == 3


def test_prng_key_set_depends_on_the_seed():
    np.testing.assert_array_equal(K.raw_key_set("prng", seed=1), K.raw_key_set("prng", seed=1))
    assert not np.array_equal(K.raw_key_set("prng", seed=1), K.raw_key_set("prng", seed=2))
    np.testing.assert_array_equal(K.raw_key_set("prng"), K.raw_key_set("prng", seed=K.DEFAULT_PRNG_SEED))
    assert Position(keys="prng", seed=1).key != Position(keys="prng", seed=2).key
    assert Position(keys="prng", seed=1).key == Position(keys="prng", seed=1).key


def test_splitmix64_reference_outputs():
    """Vigna's splitmix64 from seed 0 (the values every port checks against)."""
    assert K.splitmix64(0, 3) == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_unknown_key_set_is_refused():
    with pytest.raises(ValueError, match="unknown key set"):
        K.raw_key_set("md5")


def test_polyglot_random_array_known_entries():
    raw = K.raw_key_set("polyglot")
    assert int(raw[0]) == 0x9D39247E33776D41  # first piece key
    assert int(raw[768]) == 0x31D71DCE64B2C310  # white O-O
    assert int(raw[772]) == 0x70CC73D90BC26E24  # en passant file a
    assert int(raw[780]) == 0xF8D626AAAF278509  # white to move
    np.testing.assert_array_equal(raw, np.array(chess.polyglot.POLYGLOT_RANDOM_ARRAY, dtype=np.uint64))


@pytest.mark.parametrize("name", K.KEY_SET_NAMES)
def test_expanded_layout_matches_raw_keys(name):
    """Spot-check the mailbox expansion against PolyGlot's 64 * kind + 8 * rank + file layout."""
    raw, zob = K.raw_key_set(name), K.key_set(name)
    # white pawn (kind 1) on e2 (rank 1, file 4) = mailbox 35; black king (kind 10) on e8 = mailbox 95.
    assert zob[K.Z_PIECE + 120 * 1 + 35] == raw[64 * 1 + 8 * 1 + 4]
    assert zob[K.Z_PIECE + 120 * (6 | 8) + 95] == raw[64 * 10 + 8 * 7 + 4]
    assert zob[K.Z_CASTLE + 0] == 0
    assert zob[K.Z_CASTLE + 15] == raw[768] ^ raw[769] ^ raw[770] ^ raw[771]
    np.testing.assert_array_equal(zob[K.Z_EP : K.Z_EP + 8], raw[772:780])
    assert zob[K.Z_SIDE] == raw[780]


# --- PolyGlot's published test positions --------------------------------------------------------------
POLYGLOT_SPEC = [
    ("", 0x463B96181691FC9C),
    ("e2e4", 0x823C9B50FD114196),
    ("e2e4 d7d5", 0x0756B94461C50FB0),
    ("e2e4 d7d5 e4e5", 0x662FAFB965DB29D4),
    ("e2e4 d7d5 e4e5 f7f5", 0x22A48B5A8E47FF78),
    ("e2e4 d7d5 e4e5 f7f5 e1e2", 0x652A607CA3F242C1),
    ("e2e4 d7d5 e4e5 f7f5 e1e2 e8f7", 0x00FDD303C946BDD9),
    ("a2a4 b7b5 h2h4 b5b4 c2c4", 0x3C8123EA7B067637),
    ("a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3", 0x5C3F9B829B279560),
]


@pytest.mark.parametrize("moves,expected", POLYGLOT_SPEC, ids=[m or "start" for m, _ in POLYGLOT_SPEC])
def test_polyglot_book_format_keys(moves, expected):
    p = Position()
    board = chess.Board()
    for move in moves.split():
        p.push(move)
        board.push_uci(move)
    assert p.key == expected
    assert chess.polyglot.zobrist_hash(board) == expected
    assert K.compute_key(p.board, p.state, p.zobrist) == expected
    assert Position.from_fen(p.fen()).key == expected


def test_en_passant_file_only_keyed_when_a_pawn_can_take():
    """e2e4 leaves no black pawn beside e4: no ep key; after ... e4e5 f7f5 the e5 pawn can take."""
    p = Position()
    p.push("e2e4")
    assert p.fen().split()[3] == "-"
    for move in ("d7d5", "e4e5", "f7f5"):
        p.push(move)
    assert p.fen().split()[3] == "f6"


# --- repetition -----------------------------------------------------------------------------------
def test_threefold_repetition_after_knight_shuffle_twice():
    p = Position()
    cycle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for i, move in enumerate(cycle):
        p.push(move)
        assert not p.is_repetition(2) or i == 3
    assert p.key == Position().key
    assert p.is_repetition(2)
    assert not p.is_repetition(3)
    assert p.status() is Status.ONGOING
    for move in cycle[:-1]:
        p.push(move)
        assert not p.is_repetition(3)
        assert p.status() is Status.ONGOING
    p.push(cycle[-1])
    assert p.is_repetition(3)
    assert not p.is_repetition(4)
    assert p.status() is Status.THREEFOLD_REPETITION
    p.pop()
    assert p.status() is Status.ONGOING


def test_pawn_move_starts_a_new_repetition_count():
    p = Position()
    for move in ("g1f3", "g8f6", "f3g1", "f6g8", "e2e4", "e7e5"):
        p.push(move)
    # After the pawn moves the start position cannot come back: the shuffle starts a new count.
    for move in ("g1f3", "g8f6", "f3g1", "f6g8"):
        p.push(move)
    assert p.is_repetition(2)
    assert not p.is_repetition(3)


def test_repetition_counts_positions_from_the_fen_only():
    """A Position made from a FEN knows no earlier history."""
    p = Position()
    for move in ("g1f3", "g8f6", "f3g1", "f6g8"):
        p.push(move)
    q = Position.from_fen(p.fen())
    assert q.key == p.key
    assert p.is_repetition(2) and not q.is_repetition(2)


def test_is_repetition_one_is_always_true():
    p = Position()
    assert p.is_repetition(1)
    p.push("e2e4")
    assert p.is_repetition(1)


# --- addition instead of XOR (combine="add") ---------------------------------------------------------
def _feature_keys(board: chess.Board, raw: np.ndarray) -> list[int]:
    """The raw keys of a position's features, found with python-chess in PolyGlot's layout (see transpo.core.keys)."""
    features = [64 * (2 * (piece.piece_type - 1) + int(piece.color)) + square
                for square, piece in board.piece_map().items()]  # fmt: skip
    for i, color in enumerate((chess.WHITE, chess.BLACK)):
        if board.has_kingside_castling_rights(color):
            features.append(768 + 2 * i)
        if board.has_queenside_castling_rights(color):
            features.append(769 + 2 * i)
    ep = board.ep_square
    if ep is not None and chess.BB_PAWN_ATTACKS[not board.turn][ep] & board.pieces_mask(chess.PAWN, board.turn):
        features.append(772 + chess.square_file(ep))  # PolyGlot: only when a pawn of the side to move can take
    if board.turn == chess.WHITE:
        features.append(780)
    return [int(raw[i]) for i in features]


@pytest.mark.parametrize("name", K.KEY_SET_NAMES)
def test_additive_key_is_the_sum_of_the_same_features(name):
    """Along PolyGlot's test lines, the XOR of the features is the known key and their sum mod 2^64 the additive one."""
    raw = K.raw_key_set(name)
    for moves, _ in POLYGLOT_SPEC:
        board, xor_pos, add_pos = chess.Board(), Position(keys=name), Position(keys=name, combine="add")
        for move in moves.split():
            board.push_uci(move)
            xor_pos.push(move)
            add_pos.push(move)
        features = _feature_keys(board, raw)
        by_xor = 0
        for key in features:
            by_xor ^= key
        assert xor_pos.key == by_xor
        assert add_pos.key == sum(features) % (1 << 64)
        assert add_pos.pawn_key == sum(int(raw[64 * int(p.color) + s]) for s, p in board.piece_map().items()
                                       if p.piece_type == chess.PAWN) % (1 << 64)  # fmt: skip


def test_additive_expansion_sums_the_castling_keys():
    raw, zob = K.raw_key_set("polyglot"), K.key_set("polyglot", combine="add")
    assert zob[K.Z_COMBINE] == K.COMBINE_ADD and K.key_set("polyglot")[K.Z_COMBINE] == K.COMBINE_XOR
    assert int(zob[K.Z_CASTLE + 15]) == sum(int(k) for k in raw[768:772]) % (1 << 64)
    assert int(zob[K.Z_CASTLE + 0b0101]) == (int(raw[768]) + int(raw[770])) % (1 << 64)
    np.testing.assert_array_equal(zob[: K.Z_CASTLE], K.key_set("polyglot")[: K.Z_CASTLE])  # the same piece keys


def test_default_combination_is_xor_and_polyglot_compatible():
    assert Position().combine == "xor" and Position().key == POLYGLOT_SPEC[0][1]
    assert Position(combine="add").key != Position().key


@pytest.mark.parametrize("bad", ["mul", "XOR", "", None])
def test_unknown_combination_is_refused_in_one_line(bad):
    with pytest.raises(ValueError, match=r"^unknown key combination .*; choose one of xor, add$"):
        Position(combine=bad)
    with pytest.raises(ValueError, match="unknown key combination"):
        K.key_set("polyglot", combine=bad)


def test_lowest_bit_of_an_additive_key_is_the_xor_keys_lowest_bit():
    """Carries only go up: bit 0 of a sum is the XOR of bit 0 of its terms, so both keys share it everywhere."""
    xor_pos, add_pos = Position(), Position(combine="add")
    line = "e2e4 d7d5 e4d5 g8f6 f1b5 c7c6 d5c6 d8a5 c6b7 a5b5 b7a8q e8d8 g1f3 c8g4 d2d3 e7e6 e1g1"  # captures, a promotion, O-O
    for move in line.split():
        xor_pos.push(move)
        add_pos.push(move)
        assert add_pos.key & 1 == xor_pos.key & 1 and add_pos.key != xor_pos.key
