"""The transposition table: numpy storage, numba probe and store, replacement policies.

Storage is one flat ``uint64`` array of buckets.  A bucket is 64 bytes, one
cache line, holding ``SLOTS`` = 4 entries of two words each::

    word 0  the position's full 64-bit Zobrist key XOR word 1 (lockless, the default);
            the plain key when the lockless check is off (``lockless=False``, for the lab)
    word 1  data, packed:
            bits  0-16  best move: from | to << 7 | promo << 14 (the low 17 bits of a move)
            bits 17-32  score + 32768 (mate scores relative to the node, see to_tt / from_tt)
            bits 33-48  static evaluation + 32768
            bits 49-55  depth in plies (0..127)
            bits 56-57  bound: 0 empty slot, 1 upper (fail low), 2 lower (fail high), 3 exact
            bits 58-63  generation (search counter mod 64), for ageing

Index and signature come from different key bits, as Robert Hyatt insists in the
"hashing function" thread (rec.games.chess.computer, 2000; docs/REFERENCES.md):
the bucket is ``key & (buckets - 1)`` (low bits) and a probe accepts an entry
whose *signature*, the top ``signature_bits`` of the key, equals the
position's.  With fewer signature bits than 64 - index bits, the remaining key
bits are never compared, so two positions can share an entry: a false hit,
the "crash" the lab measures.  Because word 0 keeps the whole key (and, in
audit mode, a parallel array keeps an independent check key), the table can
count its own false hits, Dan Newman's error-detection method (Computer Chess
Club, 1997).

Lockless entries (Hyatt and Mann, ICGA Journal 2002; docs/REFERENCES.md): the
search threads of Lazy SMP share the table without locks, and an entry is two
64-bit writes, so two threads storing into one slot at once can leave word 0 of
one entry beside word 1 of the other (a *torn* entry).  Word 0 therefore holds
``key ^ data``: a probe recovers the key as ``word0 ^ word1`` and compares that,
so a torn entry recovers a key that matches neither writer (its check fails,
within the compared bits) and is never used.  The compared bits are the
signature bits and the index bits (``key & (buckets - 1)``): an intact entry's
index bits always equal its bucket's, so comparing them changes no result, but
they catch torn entries under narrow signatures too.  ``data`` is read once per
slot and the same value is checked and decoded.  A single thread reads and
writes exactly what it did with plain keys, so its search is unchanged.

Torn-entry audit (the lab's ``torn`` experiment, ``TranspositionTable(torn_audit=True)``):
every store also writes a *seal* of the pair it stored, ``seal(key, data)``, into
the entry's check word, and every probe reads the seal before and after the
pair and tests the pair against both.  A pair that matches neither is
*inconsistent*: a torn pair, or (rarely) a whole pair whose seal was
overwritten twice while it was being read; three writes cannot be made atomic,
so the count is an upper bound on torn pairs.  The table counts the inconsistent slots it read,
those a probe accepted, and cutoffs made on an accepted one.  The seal uses the
check words, so the audit of false hits and the torn audit exclude each other.

The compiled functions take the whole table as one value, a :class:`TableArrays`
bundle (the words, the configuration, the counters and the audit's check keys),
never as globals (docs/NUMBA.md: globals are frozen at compile time).
:func:`probe` hands back the decoded entry; the table counts its own statistics.
Every search thread gets a bundle with its own ``counts`` (the other arrays are
the shared ones), so the hot counters are not written by several cores at once;
the engine adds the helpers' counts to the table's after each search.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, typeof, types

from transpo.core.keys import ZOB_SIZE, compute_key, key_set
from transpo.core.moves import MOVE_ID_BITS, MOVE_ID_MASK, NO_MOVE
from transpo.engine.intrinsics import prefetch
from transpo.engine.memory import large_zeros
from transpo.settings import (
    DEFAULT_LOCKLESS,
    DEFAULT_POLICY,
    HASH_MB,
    POLICIES,
    SIGNATURE_BITS,
    check_choice,
    check_fits,
)

SLOTS = 4
WORDS_PER_BUCKET = 2 * SLOTS
BUCKET_BYTES = 8 * WORDS_PER_BUCKET

BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 0, 1, 2, 3

# Data-word fields (layout in the module docstring): shift and width.
SCORE_SHIFT = MOVE_ID_BITS
EVAL_SHIFT = 33
DEPTH_SHIFT = 49
BOUND_SHIFT = 56
GEN_SHIFT = 58
FIELD16_MASK = 0xFFFF  # score and eval: 16 bits each, stored with SCORE_OFFSET added
SCORE_OFFSET = 32768
DEPTH_MASK = 127  # 7 bits: deeper results are stored as depth 127
MAX_STORED_DEPTH = DEPTH_MASK
BOUND_MASK = 3
GEN_MASK = 63  # 6 bits: the generation counts searches modulo 64
AGE_WEIGHT = 8  # bucket policy: one search of age costs as much as 8 plies of depth

MATE = 31000  # score of a mate at the root; mate in n plies is MATE - n
MATE_BOUND = MATE - 256  # scores beyond this are mate scores

AUDIT_KEY_SEED = 0xA0D17  # seed of the independent prng key set the audit compares (HashAudit)

# config[] slots: settings, and the generation of the current search
CF_MASK = 0  # buckets - 1
CF_POLICY = 1  # index into POLICIES
CF_GENERATION = 2  # 0..GEN_MASK
CF_SIG_BITS = 3  # signature width, 8..64
CF_INDEX_BITS = 4  # log2(buckets)
CF_AUDIT = 5  # 1: compare the independent check key on every hit
CF_ENABLED = 6  # 0: the search neither probes nor stores (the lab's "no table")
CF_FORCE_EVERY = 7  # lab: every Nth probe that misses returns another position's entry (0: never)
CF_LOCKLESS = 8  # 1: word 0 holds key ^ data (Hyatt and Mann's check); 0: the plain key (the lab)
CF_TORN = 9  # lab: 1: stores write a seal of each pair into its check word, probes test it (torn-entry audit)
CONFIG_SIZE = 10

SEAL_MULTIPLIER = 0x9E3779B97F4A7C15  # odd, so data -> data * SEAL_MULTIPLIER is a bijection of 64-bit words

# counts[] slots: what the table saw since the last reset
COUNTER_NAMES = (
    "probes", "hits", "cutoffs", "stores", "replacements", "false_hits", "forced_false_hits", "compared", "false_cutoffs",
    "torn_seen", "torn_hits", "torn_cutoffs",
)  # fmt: skip
(
    CN_PROBES,
    CN_HITS,
    CN_CUTOFFS,  # probes whose entry ended the node (the search reports them through record_cutoff)
    CN_STORES,
    CN_REPLACEMENTS,  # stores that overwrote another position's live entry
    CN_FALSE_HITS,  # audit: signature matched but the position differed
    CN_FORCED,  # lab: forced false hits injected
    CN_COMPARED,  # live slots whose signature a probe compared (Koistinen's s, summed over probes)
    CN_FALSE_CUTOFFS,  # cutoffs on another position's entry (an audited false hit or a forced one)
    CN_TORN_SEEN,  # torn audit: live slots read whose seal did not match (inconsistent entries)
    CN_TORN_HITS,  # torn audit: inconsistent entries a probe accepted (returned to the search)
    CN_TORN_CUTOFFS,  # torn audit: cutoffs made on an accepted inconsistent entry
) = range(len(COUNTER_NAMES))
CN_LAST_TORN = len(COUNTER_NAMES)  # not reported: 1 when this thread's last probe returned an inconsistent entry
COUNTS_SIZE = len(COUNTER_NAMES) + 1


class TableArrays(NamedTuple):
    """The table as compiled code sees it: one value, built by :attr:`TranspositionTable.arrays`."""

    words: np.ndarray  # uint64[buckets * WORDS_PER_BUCKET]: key (^ data when lockless) and data word of every slot
    config: np.ndarray  # int64[CONFIG_SIZE]: CF_* slots
    counts: np.ndarray  # int64[COUNTS_SIZE]: CN_* slots (one array per search thread)
    check: np.ndarray  # uint64[entries] in audit mode (each slot's independent check key) or torn audit (its seal)
    check_zobrist: np.ndarray  # uint64[ZOB_SIZE]: the audit's key set (zeros when the audit is off)


class Entry(NamedTuple):
    """A decoded probe result; ``bound == BOUND_NONE`` is a miss."""

    move: int  # the stored best move (from, to, promotion: MOVE_ID_MASK bits), or NO_MOVE
    score: int  # relative to the root (mate scores converted back by from_tt)
    depth: int
    bound: int
    static_eval: int  # the evaluation stored with it, so a hit need not evaluate again


TABLE_TYPE = typeof(
    TableArrays(
        np.zeros(WORDS_PER_BUCKET, np.uint64),
        np.zeros(CONFIG_SIZE, np.int64),
        np.zeros(COUNTS_SIZE, np.int64),
        np.zeros(1, np.uint64),
        np.zeros(ZOB_SIZE, np.uint64),
    )
)
ENTRY_TYPE = typeof(Entry(0, 0, 0, 0, 0))


@njit(cache=True, inline="always")
def signature_mask(config):
    """uint64 mask of the key bits a probe compares (the top CF_SIG_BITS bits)."""
    return np.uint64(0xFFFFFFFFFFFFFFFF) << np.uint64(64 - config[CF_SIG_BITS])


@njit(cache=True, inline="always")
def check_mask(config):
    """uint64 mask of the key bits a probe compares: the signature and the index bits.

    The index bits of an intact entry always equal its bucket's, so they decide
    nothing for it; a torn entry (module docstring) usually fails on them.
    """
    return signature_mask(config) | np.uint64(config[CF_MASK])


@njit(cache=True, inline="always")
def lockless_mask(config):
    """All ones when word 0 holds key ^ data (lockless), else 0: ``word0 ^ (word1 & mask)`` is the stored key."""
    if config[CF_LOCKLESS] != 0:
        return np.uint64(0xFFFFFFFFFFFFFFFF)
    return np.uint64(0)


@njit(cache=True, inline="always")
def seal(key, data):
    """The torn audit's check word for the pair (key, data): differs for any other pair with this key or data."""
    return key ^ (data * np.uint64(SEAL_MULTIPLIER))


@njit(cache=True, inline="always")
def to_tt(score, ply):
    """Mate scores are stored relative to the node, so they stay right at any ply."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@njit(cache=True, inline="always")
def from_tt(score, ply):
    """Undo :func:`to_tt`: a stored mate score becomes relative to the root again."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@njit(cache=True, inline="always")
def pack(move, score, static_eval, depth, bound, generation):
    """Pack one entry's data word (layout in the module docstring)."""
    return (
        np.uint64(move & MOVE_ID_MASK)
        | (np.uint64(score + SCORE_OFFSET) << np.uint64(SCORE_SHIFT))
        | (np.uint64(static_eval + SCORE_OFFSET) << np.uint64(EVAL_SHIFT))
        | (np.uint64(depth) << np.uint64(DEPTH_SHIFT))
        | (np.uint64(bound) << np.uint64(BOUND_SHIFT))
        | (np.uint64(generation) << np.uint64(GEN_SHIFT))
    )


@njit(cache=True, inline="always")
def data_move(data):
    """The best move of a data word (MOVE_ID_MASK bits of the move)."""
    return np.int64(data & np.uint64(MOVE_ID_MASK))


@njit(cache=True, inline="always")
def data_score(data):
    """The stored (node-relative) score of a data word."""
    return np.int64((data >> np.uint64(SCORE_SHIFT)) & np.uint64(FIELD16_MASK)) - SCORE_OFFSET


@njit(cache=True, inline="always")
def data_eval(data):
    """The static evaluation stored in a data word."""
    return np.int64((data >> np.uint64(EVAL_SHIFT)) & np.uint64(FIELD16_MASK)) - SCORE_OFFSET


@njit(cache=True, inline="always")
def data_depth(data):
    """The draft in plies of a data word."""
    return np.int64((data >> np.uint64(DEPTH_SHIFT)) & np.uint64(DEPTH_MASK))


@njit(cache=True, inline="always")
def data_bound(data):
    """The bound type of a data word (BOUND_NONE for an empty slot)."""
    return np.int64((data >> np.uint64(BOUND_SHIFT)) & np.uint64(BOUND_MASK))


@njit(cache=True, inline="always")
def data_generation(data):
    """The generation (search counter mod 64) that wrote a data word."""
    return np.int64(data >> np.uint64(GEN_SHIFT))


@njit(cache=True, inline="always")
def _bucket_base(tt, key):
    return np.int64(key & np.uint64(tt.config[CF_MASK])) * WORDS_PER_BUCKET


@njit(cache=True, inline="always")
def prefetch_bucket(tt, key):
    """Start loading the bucket of ``key`` into the cache: the search probes it soon (module prefetch)."""
    prefetch(tt.words, _bucket_base(tt, key))


@njit(cache=True, inline="always")
def is_enabled(tt):
    """False for the lab's no-table search: nothing is probed or stored."""
    return tt.config[CF_ENABLED] != 0


@njit(cache=True, inline="always")
def audit_key(tt, board, state):
    """The position's independent check key in audit mode, else 0 (no cost when the audit is off)."""
    if tt.config[CF_AUDIT] != 0:
        return compute_key(board, state, tt.check_zobrist)
    return np.uint64(0)


@njit(types.boolean(TABLE_TYPE, types.uint64, types.uint64), cache=True, nogil=True, _nrt=False)
def is_false_entry(tt, key, check_key):
    """Whether the entry a probe for ``key`` just returned belongs to another position (lab modes only).

    No live slot matching the signature means the probe was a forced false hit; a
    matching slot whose check key differs is an audited false hit.  A separate,
    non-inlined function: the search calls it only in the lab's modes.
    """
    base = _bucket_base(tt, key)
    mask = check_mask(tt.config)
    xor = lockless_mask(tt.config)
    for slot in range(SLOTS):
        w = base + 2 * slot
        data = tt.words[w + 1]
        if data_bound(data) != BOUND_NONE and ((tt.words[w] ^ (data & xor) ^ key) & mask) == 0:
            return tt.config[CF_AUDIT] != 0 and tt.check[w >> 1] != check_key
    return True


@njit(cache=True, inline="always")
def record_cutoff(tt, key, check_key):
    """The search ended the node of ``key`` on its probed entry's score.

    In the lab's modes (audit, forced false hits) it also tells whether that entry
    was another position's (:func:`is_false_entry`).  Outside them this costs one
    test, not a second probe.
    """
    tt.counts[CN_CUTOFFS] += 1
    if (tt.config[CF_AUDIT] != 0 or tt.config[CF_FORCE_EVERY] != 0) and is_false_entry(tt, key, check_key):
        tt.counts[CN_FALSE_CUTOFFS] += 1
    if tt.counts[CN_LAST_TORN] != 0:  # only ever set by the torn audit
        tt.counts[CN_TORN_CUTOFFS] += 1


@njit(cache=True, inline="always")
def _unsealed(tt, w, pair_seal, seal_before):
    """Torn audit: the pair just read matches neither the seal read before it nor the one after it.

    A pair that one store wrote whole matches that store's seal, which is in the
    check word before or after the pair is read unless two more stores hit the
    slot meanwhile; a torn pair matches no seal at all.
    """
    return pair_seal != seal_before and pair_seal != tt.check[w >> 1]


@njit(cache=True, nogil=True, inline="always")
def find(tt, key, check_key):
    """(word index, data word) of the entry a probe for ``key`` finds, or (-1, 0).

    The data word is read once per slot: the value whose check passed is the
    value returned, so another thread's store in between cannot slip in.
    Counts probes, compared slots and hits; in audit mode a hit whose
    independent check key differs is counted as a false hit (it is still
    returned: the search uses it exactly as it would without the audit).
    With ``CF_FORCE_EVERY`` = N, every Nth probe that finds nothing returns
    a live entry of another position instead (the lab's forced crash).
    With ``CF_TORN`` every live slot read is tested against its seal
    (module docstring); the thread's ``CN_LAST_TORN`` tells
    :func:`record_cutoff` whether the entry returned was inconsistent.
    """
    config = tt.config
    counts = tt.counts
    counts[CN_PROBES] += 1
    torn_audit = config[CF_TORN] != 0
    counts[CN_LAST_TORN] = 0
    base = _bucket_base(tt, key)
    mask = check_mask(config)
    xor = lockless_mask(config)
    live = -1
    live_data = np.uint64(0)
    for slot in range(SLOTS):
        w = base + 2 * slot
        seal_before = tt.check[w >> 1] if torn_audit else np.uint64(0)
        data = tt.words[w + 1]
        if data_bound(data) == BOUND_NONE:
            continue
        counts[CN_COMPARED] += 1  # a store between the two seal reads: they stay two loads
        live = w
        live_data = data
        word0 = tt.words[w]
        torn = torn_audit and _unsealed(tt, w, seal(word0 ^ (data & xor), data), seal_before)
        if torn:
            counts[CN_TORN_SEEN] += 1
        if ((word0 ^ (data & xor) ^ key) & mask) == 0:
            counts[CN_HITS] += 1
            if torn:
                counts[CN_TORN_HITS] += 1
                counts[CN_LAST_TORN] = 1
            if config[CF_AUDIT] != 0 and tt.check[w >> 1] != check_key:
                counts[CN_FALSE_HITS] += 1
            return w, data
    force = config[CF_FORCE_EVERY]
    if force > 0 and live >= 0 and counts[CN_PROBES] % force == 0:
        counts[CN_FORCED] += 1  # the lab's injected crash: answer with another position's entry
        return live, live_data
    return -1, np.uint64(0)


@njit(cache=True, nogil=True, inline="always")
def locate(tt, key, check_key):
    """Word index of the entry a probe for ``key`` finds (its data word is index + 1), or -1 (see :func:`find`)."""
    return find(tt, key, check_key)[0]


@njit(cache=True, inline="always")
def stored_key(tt, w):
    """The key the entry at word index ``w`` was stored with (word 0, un-XORed when lockless)."""
    return tt.words[w] ^ (tt.words[w + 1] & lockless_mask(tt.config))


@njit(ENTRY_TYPE(TABLE_TYPE, types.uint64, types.uint64, types.int64), cache=True, nogil=True, _nrt=False)
def probe(tt, key, check_key, ply):
    """The entry for ``key`` at search ply ``ply``, decoded (score relative to the root), or a miss
    (``bound == BOUND_NONE``); counted as :func:`find` says."""
    w, data = find(tt, key, check_key)
    if w < 0:
        return Entry(NO_MOVE, 0, 0, BOUND_NONE, 0)
    return Entry(data_move(data), from_tt(data_score(data), ply), data_depth(data), data_bound(data), data_eval(data))


@njit(cache=True, inline="always")
def _victim_slot(tt, base, key):
    """The slot a new entry for ``key`` goes to, by the configured policy."""
    policy = tt.config[CF_POLICY]
    generation = tt.config[CF_GENERATION]
    if policy == 0 or policy == 1:  # always / depth: direct-mapped, one slot per key
        return np.int64((key >> np.uint64(tt.config[CF_INDEX_BITS])) & np.uint64(SLOTS - 1))
    if policy == 2:  # two-tier: slot pair picked by a key bit; depth-preferred + always
        return 2 * np.int64((key >> np.uint64(tt.config[CF_INDEX_BITS])) & np.uint64(1))
    worst = 0
    worst_value = 1 << 30
    for slot in range(SLOTS):  # bucket: replace the lowest depth minus age
        data = tt.words[base + 2 * slot + 1]
        if data_bound(data) == BOUND_NONE:
            return slot
        age = (generation - data_generation(data)) & GEN_MASK
        value = data_depth(data) - AGE_WEIGHT * age
        if value < worst_value:
            worst_value = value
            worst = slot
    return worst


@njit(
    types.void(TABLE_TYPE, types.uint64, types.uint64, types.int64, types.int64, types.int64, types.int64,
               types.int64, types.int64),
    cache=True,
    nogil=True,
    _nrt=False,
)  # fmt: skip
def store(tt, key, check_key, move, score, static_eval, depth, bound, ply):
    """Save a search result found at ``ply``: mate scores are made node-relative, depth clamped to its field."""
    config = tt.config
    base = _bucket_base(tt, key)
    generation = config[CF_GENERATION]
    policy = config[CF_POLICY]
    mask = check_mask(config)
    xor = lockless_mask(config)
    score = to_tt(score, ply)
    depth = min(max(depth, 0), MAX_STORED_DEPTH)
    slot = -1
    for s in range(SLOTS):  # the same position (as far as the signature tells) is updated in place
        data = tt.words[base + 2 * s + 1]
        if data_bound(data) != BOUND_NONE and ((tt.words[base + 2 * s] ^ (data & xor) ^ key) & mask) == 0:
            slot = s
            if move == NO_MOVE:
                move = data_move(data)  # keep the old best move rather than lose it
            break
    if slot < 0:
        slot = _victim_slot(tt, base, key)
        old = tt.words[base + 2 * slot + 1]
        if data_bound(old) != BOUND_NONE:
            stale = ((generation - data_generation(old)) & GEN_MASK) != 0
            if policy == 1 and not stale and depth < data_depth(old):
                return  # depth-preferred: keep the deeper entry of this search
            if policy == 2 and not stale and depth < data_depth(old):
                slot += 1  # two-tier: the shallower result goes to the always-replace slot
            if data_bound(tt.words[base + 2 * slot + 1]) != BOUND_NONE:
                tt.counts[CN_REPLACEMENTS] += 1
    w = base + 2 * slot
    data = pack(move, score, static_eval, depth, bound, generation)
    tt.words[w] = key ^ (data & xor)  # lockless: a torn pair of words fails the probe's check
    tt.words[w + 1] = data
    if config[CF_AUDIT] != 0:
        tt.check[w >> 1] = check_key
    elif config[CF_TORN] != 0:
        tt.check[w >> 1] = seal(key, data)
    tt.counts[CN_STORES] += 1


@njit(types.int64(TABLE_TYPE), cache=True, nogil=True, _nrt=False)
def hashfull(tt):
    """Per mille of the first 1000 buckets' slots holding an entry of the current search."""
    buckets = min(1000, tt.config[CF_MASK] + 1)
    used = 0
    for b in range(buckets):
        for slot in range(SLOTS):
            data = tt.words[b * WORDS_PER_BUCKET + 2 * slot + 1]
            if data_bound(data) != BOUND_NONE and data_generation(data) == tt.config[CF_GENERATION]:
                used += 1
    return used * 1000 // (buckets * SLOTS)


class TranspositionTable:
    """A transposition table of ``size_mb`` megabytes (rounded down to a power of two of buckets).

    ``signature_bits`` (8..64) sets how many top key bits a probe compares;
    ``policy`` is one of :data:`~transpo.settings.POLICIES`; ``audit`` keeps an
    independent 64-bit check key per entry so false hits can be counted;
    ``lockless`` (default) stores ``key ^ data`` in word 0 so that an entry torn
    by two threads storing at once fails its own check (off: the plain key, for
    the lab; a single thread searches the same either way); ``torn_audit`` seals
    every entry so that inconsistent (torn) entries are counted (the lab; it
    excludes ``audit``, see the module docstring).
    """

    def __init__(
        self,
        size_mb: int = HASH_MB.default,
        policy: str = DEFAULT_POLICY,
        signature_bits: int = SIGNATURE_BITS.default,
        audit: bool = False,
        lockless: bool = DEFAULT_LOCKLESS,
        torn_audit: bool = False,
    ):
        self.config = np.zeros(CONFIG_SIZE, dtype=np.int64)
        self.counts = np.zeros(COUNTS_SIZE, dtype=np.int64)
        self.config[CF_ENABLED] = 1
        self.config[CF_LOCKLESS] = int(lockless)
        self.words = np.zeros(WORDS_PER_BUCKET, dtype=np.uint64)
        self.check = np.zeros(1, dtype=np.uint64)
        self.check_zobrist = np.zeros(ZOB_SIZE, dtype=np.uint64)
        self.size_mb = 0
        self.set_policy(policy)
        self.set_signature_bits(signature_bits)
        self.audit = audit
        self.torn_audit = torn_audit
        self.resize(size_mb)

    @property
    def arrays(self) -> TableArrays:
        """The bundle the compiled search takes (the same arrays, not copies)."""
        return TableArrays(self.words, self.config, self.counts, self.check, self.check_zobrist)

    def resize(self, size_mb: int) -> None:
        """Reallocate (and so clear) the table with ``size_mb`` megabytes (1..65536)."""
        HASH_MB.check(size_mb)
        buckets = 1 << ((size_mb * 1024 * 1024 // BUCKET_BYTES).bit_length() - 1)
        entries = buckets * SLOTS
        needed = buckets * BUCKET_BYTES + (8 * entries if self._uses_check_words() else 0)
        check_fits(needed, f"a {size_mb} MB hash table", freed=self.nbytes())
        previous_mb = self.size_mb
        self.words = self.check = np.zeros(0, dtype=np.uint64)  # release the old table before allocating
        try:
            self.words = large_zeros(buckets * WORDS_PER_BUCKET, np.uint64)
            self.check = large_zeros(entries if self._uses_check_words() else 1, np.uint64)
        except MemoryError:
            if previous_mb:
                self.resize(previous_mb)
            raise ValueError(f"a {size_mb} MB hash table does not fit in memory now") from None
        self.config[CF_MASK] = buckets - 1
        self.config[CF_INDEX_BITS] = buckets.bit_length() - 1
        self.size_mb = size_mb
        self.config[CF_GENERATION] = 0
        self.reset_counters()

    @property
    def audit(self) -> bool:
        """Whether every entry carries an independent check key (false-hit counting)."""
        return bool(self.config[CF_AUDIT])

    @audit.setter
    def audit(self, on: bool) -> None:
        if on and self.torn_audit:
            raise ValueError("the false-hit audit and the torn audit share the check words: use one at a time")
        self._check_words(on, "the hash audit's check keys")
        self.config[CF_AUDIT] = int(on)
        if on and not self.check_zobrist.any():
            self.check_zobrist = key_set("prng", AUDIT_KEY_SEED)

    @property
    def torn_audit(self) -> bool:
        """Whether every entry is sealed so that inconsistent (torn) entries are counted (the lab)."""
        return bool(self.config[CF_TORN])

    @torn_audit.setter
    def torn_audit(self, on: bool) -> None:
        if on and self.audit:
            raise ValueError("the false-hit audit and the torn audit share the check words: use one at a time")
        if bool(on) != self.torn_audit:
            self._check_words(on, "the torn audit's seals")
            self.config[CF_TORN] = int(on)
            self.clear()  # entries stored without a seal would all count as inconsistent

    def _uses_check_words(self) -> bool:
        return self.audit or self.torn_audit

    def _check_words(self, on: bool, what: str) -> None:
        """Allocate one check word per entry (``on``) or release them."""
        if on and self.check.size != self.words.size // 2:
            check_fits(self.words.nbytes // 2, what)
            self.check = large_zeros(self.words.size // 2, np.uint64)
        if not on:
            self.check = np.zeros(1, dtype=np.uint64)

    @property
    def lockless(self) -> bool:
        """Whether word 0 holds ``key ^ data`` (Hyatt and Mann's check against torn entries)."""
        return bool(self.config[CF_LOCKLESS])

    @lockless.setter
    def lockless(self, on: bool) -> None:
        if bool(on) != self.lockless:
            self.config[CF_LOCKLESS] = int(on)
            self.clear()  # the entries stored the other way would no longer be found

    def key_at(self, index: int) -> int:
        """The key the entry at word index ``index`` (even: its word 0) was stored with."""
        word0, word1 = int(self.words[index]), int(self.words[index + 1])
        return word0 ^ word1 if self.lockless else word0

    @property
    def enabled(self) -> bool:
        """False for the lab's no-table search."""
        return bool(self.config[CF_ENABLED])

    @enabled.setter
    def enabled(self, on: bool) -> None:
        self.config[CF_ENABLED] = int(on)

    @property
    def policy(self) -> str:
        """The replacement policy's name."""
        return POLICIES[int(self.config[CF_POLICY])]

    def set_policy(self, name: str) -> None:
        """Choose the replacement policy: always, depth, two-tier or bucket."""
        check_choice("replacement policy", name, POLICIES)
        self.config[CF_POLICY] = POLICIES.index(name)

    @property
    def signature_bits(self) -> int:
        """How many top key bits a probe compares."""
        return int(self.config[CF_SIG_BITS])

    def set_signature_bits(self, bits: int) -> None:
        """Compare only the top ``bits`` key bits (8..64) on a probe."""
        SIGNATURE_BITS.check(bits)
        self.config[CF_SIG_BITS] = bits

    @property
    def buckets(self) -> int:
        """Number of 64-byte buckets."""
        return int(self.config[CF_MASK]) + 1

    @property
    def index_bits(self) -> int:
        """log2(buckets): the low key bits that choose a bucket."""
        return int(self.config[CF_INDEX_BITS])

    @property
    def generation(self) -> int:
        """The current search's generation (0..63)."""
        return int(self.config[CF_GENERATION])

    @property
    def entries(self) -> int:
        """Number of entry slots (buckets x SLOTS)."""
        return self.buckets * SLOTS

    def clear(self) -> None:
        """Empty every entry (``ucinewgame``, ``Clear Hash``) and zero the counters."""
        self.words[:] = 0
        self.check[:] = 0
        self.config[CF_GENERATION] = 0
        self.reset_counters()

    def new_search(self) -> None:
        """Advance the generation: older entries age but stay usable."""
        self.config[CF_GENERATION] = (self.config[CF_GENERATION] + 1) & GEN_MASK

    def reset_counters(self) -> None:
        """Zero every counter."""
        self.counts[:] = 0

    def set_forced_false_hits(self, every: int) -> None:
        """Lab: make every ``every``-th missing probe return another position's entry (0: off)."""
        if every < 0:
            raise ValueError("forced false-hit interval must be >= 0")
        self.config[CF_FORCE_EVERY] = every

    def counters(self) -> dict[str, int]:
        """Every counter of :data:`COUNTER_NAMES` (probes, hits, cutoffs, ... torn_cutoffs) by name."""
        return {name: int(self.counts[i]) for i, name in enumerate(COUNTER_NAMES)}

    def hashfull(self) -> int:
        """Per mille of sampled slots filled in the current search."""
        return int(hashfull(self.arrays))

    def probe(self, key: int, ply: int = 0, check_key: int = 0) -> Entry:
        """Look ``key`` up as the search would at ``ply`` (counted like a search probe)."""
        return probe(self.arrays, np.uint64(key), np.uint64(check_key), ply)

    def store(self, key: int, move: int, score: int, static_eval: int, depth: int, bound: int,
              ply: int = 0, check_key: int = 0) -> None:  # fmt: skip
        """Save an entry as the search would at ``ply``."""
        store(self.arrays, np.uint64(key), np.uint64(check_key), move, score, static_eval, depth, bound, ply)

    def nbytes(self) -> int:
        """Memory held by the entries and the audit's check keys."""
        return int(self.words.nbytes + self.check.nbytes)
