"""The transposition table: numpy storage, numba probe and store, replacement policies.

Storage is one flat ``uint64`` array of buckets.  A bucket is 64 bytes, one
cache line, holding ``SLOTS`` = 4 entries of two words each::

    word 0  the position's full 64-bit Zobrist key
    word 1  data, packed:
            bits  0-16  best move: from | to << 7 | promo << 14 (the low 17 bits of a move)
            bits 17-32  score + 32768 (mate scores relative to the node, see to_tt / from_tt)
            bits 33-48  static evaluation + 32768
            bits 49-55  depth in plies (0..127)
            bits 56-57  bound: 0 empty slot, 1 upper (fail low), 2 lower (fail high), 3 exact
            bits 58-63  generation (search counter mod 64), for ageing

Index and signature come from different key bits, as the seed thread insists:
the bucket is ``key & (buckets - 1)`` (low bits) and a probe accepts an entry
whose *signature*, the top ``signature_bits`` of the key, equals the
position's.  With fewer signature bits than 64 - index bits, the remaining key
bits are never compared, so two positions can share an entry: a false hit,
the "crash" the lab measures.  Because word 0 keeps the whole key (and, in
audit mode, a parallel array keeps an independent check key), the table can
count its own false hits, Dan Newman's error-detection method.

Configuration and counters travel to compiled code in ``info`` (``int64[INFO_SIZE]``,
``TI_*`` slots below), never as globals (NUMBA.md, trap 5).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from transpo.settings import DEFAULT_POLICY, HASH_MB, POLICIES, SIGNATURE_BITS, check_choice

SLOTS = 4
WORDS_PER_BUCKET = 2 * SLOTS
BUCKET_BYTES = 8 * WORDS_PER_BUCKET

BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 0, 1, 2, 3

MOVE_BITS = 17
SCORE_SHIFT = 17
EVAL_SHIFT = 33
DEPTH_SHIFT = 49
BOUND_SHIFT = 56
GEN_SHIFT = 58

MATE = 31000  # score of a mate at the root; mate in n plies is MATE - n
MATE_BOUND = MATE - 256  # scores beyond this are mate scores

# info[] slots: configuration ...
TI_MASK = 0  # buckets - 1
TI_POLICY = 1  # index into POLICIES
TI_GENERATION = 2  # 0..63
TI_SIG_BITS = 3  # signature width, 8..64
TI_INDEX_BITS = 4  # log2(buckets)
TI_AUDIT = 5  # 1: compare the independent check key on every hit
TI_ENABLED = 6  # 0: the search neither probes nor stores (the lab's "no table")
TI_FORCE_EVERY = 7  # lab: every Nth probe that misses returns another position's entry (0: never)
# ... and counters
TI_PROBES = 8
TI_HITS = 9
TI_CUTOFFS = 10
TI_STORES = 11
TI_REPLACEMENTS = 12  # stores that overwrote another position's live entry
TI_FALSE_HITS = 13  # audit: signature matched but the position differed
TI_FORCED = 14  # lab: forced false hits injected
TI_COMPARED = 15  # live slots whose signature a probe compared (Koistinen's s, summed over probes)
INFO_SIZE = 16
COUNTER_NAMES = ("probes", "hits", "cutoffs", "stores", "replacements", "false_hits", "forced_false_hits", "compared")


@njit(cache=True, inline="always")
def signature_mask(info):
    """uint64 mask of the key bits a probe compares (the top TI_SIG_BITS bits)."""
    return np.uint64(0xFFFFFFFFFFFFFFFF) << np.uint64(64 - info[TI_SIG_BITS])


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
        np.uint64(move & 0x1FFFF)
        | (np.uint64(score + 32768) << np.uint64(SCORE_SHIFT))
        | (np.uint64(static_eval + 32768) << np.uint64(EVAL_SHIFT))
        | (np.uint64(depth) << np.uint64(DEPTH_SHIFT))
        | (np.uint64(bound) << np.uint64(BOUND_SHIFT))
        | (np.uint64(generation) << np.uint64(GEN_SHIFT))
    )


@njit(cache=True, inline="always")
def data_move(data):
    return np.int64(data & np.uint64(0x1FFFF))


@njit(cache=True, inline="always")
def data_score(data):
    return np.int64((data >> np.uint64(SCORE_SHIFT)) & np.uint64(0xFFFF)) - 32768


@njit(cache=True, inline="always")
def data_eval(data):
    return np.int64((data >> np.uint64(EVAL_SHIFT)) & np.uint64(0xFFFF)) - 32768


@njit(cache=True, inline="always")
def data_depth(data):
    return np.int64((data >> np.uint64(DEPTH_SHIFT)) & np.uint64(127))


@njit(cache=True, inline="always")
def data_bound(data):
    return np.int64((data >> np.uint64(BOUND_SHIFT)) & np.uint64(3))


@njit(cache=True, inline="always")
def data_generation(data):
    return np.int64(data >> np.uint64(GEN_SHIFT))


@njit("int64(uint64[::1], int64[::1], uint64[::1], uint64, uint64)", cache=True, nogil=True, _nrt=False)
def probe(table, info, check, key, check_key):
    """Word index of the entry for ``key`` (its data word is index + 1), or -1.

    Counts probes, compared slots and hits; in audit mode a hit whose
    independent check key differs is counted as a false hit (it is still
    returned: the search uses it exactly as it would without the audit).
    With ``TI_FORCE_EVERY`` = N, every Nth probe that finds nothing returns
    a live entry of another position instead (the lab's forced crash).
    """
    info[TI_PROBES] += 1
    base = np.int64(key & np.uint64(info[TI_MASK])) * WORDS_PER_BUCKET
    mask = signature_mask(info)
    live = -1
    for slot in range(SLOTS):
        w = base + 2 * slot
        data = table[w + 1]
        if data_bound(data) == BOUND_NONE:
            continue
        info[TI_COMPARED] += 1
        live = w
        if ((table[w] ^ key) & mask) == 0:
            info[TI_HITS] += 1
            if info[TI_AUDIT] != 0 and check[w >> 1] != check_key:
                info[TI_FALSE_HITS] += 1
            return w
    force = info[TI_FORCE_EVERY]
    if force > 0 and live >= 0 and info[TI_PROBES] % force == 0:
        info[TI_FORCED] += 1  # the lab's injected crash: answer with another position's entry
        return live
    return -1


@njit(cache=True, inline="always")
def _victim_slot(table, info, base, key):
    """The slot a new entry for ``key`` goes to, by the configured policy; -1 to keep the bucket."""
    policy = info[TI_POLICY]
    generation = info[TI_GENERATION]
    if policy == 0 or policy == 1:  # always / depth: direct-mapped, one slot per key
        return np.int64((key >> np.uint64(info[TI_INDEX_BITS])) & np.uint64(SLOTS - 1))
    if policy == 2:  # two-tier: slot pair picked by a key bit; depth-preferred + always
        return 2 * np.int64((key >> np.uint64(info[TI_INDEX_BITS])) & np.uint64(1))
    worst = 0
    worst_value = 1 << 30
    for slot in range(SLOTS):  # bucket: replace the lowest depth minus age
        data = table[base + 2 * slot + 1]
        if data_bound(data) == BOUND_NONE:
            return slot
        age = (generation - data_generation(data)) & 63
        value = data_depth(data) - 8 * age
        if value < worst_value:
            worst_value = value
            worst = slot
    return worst


@njit(
    "void(uint64[::1], int64[::1], uint64[::1], uint64, uint64, int64, int64, int64, int64, int64)",
    cache=True,
    nogil=True,
    _nrt=False,
)
def store(table, info, check, key, check_key, move, score, static_eval, depth, bound):
    """Save a search result; ``score`` must already be node-relative (:func:`to_tt`)."""
    base = np.int64(key & np.uint64(info[TI_MASK])) * WORDS_PER_BUCKET
    generation = info[TI_GENERATION]
    policy = info[TI_POLICY]
    mask = signature_mask(info)
    slot = -1
    for s in range(SLOTS):  # the same position (as far as the signature tells) is updated in place
        data = table[base + 2 * s + 1]
        if data_bound(data) != BOUND_NONE and ((table[base + 2 * s] ^ key) & mask) == 0:
            slot = s
            if move == 0:
                move = data_move(data)  # keep the old best move rather than lose it
            break
    if slot < 0:
        slot = _victim_slot(table, info, base, key)
        old = table[base + 2 * slot + 1]
        if data_bound(old) != BOUND_NONE:
            stale = ((generation - data_generation(old)) & 63) != 0
            if policy == 1 and not stale and depth < data_depth(old):
                return  # depth-preferred: keep the deeper entry of this search
            if policy == 2 and not stale and depth < data_depth(old):
                slot += 1  # two-tier: the shallower result goes to the always-replace slot
            if data_bound(table[base + 2 * slot + 1]) != BOUND_NONE:
                info[TI_REPLACEMENTS] += 1
    w = base + 2 * slot
    table[w] = key
    table[w + 1] = pack(move, score, static_eval, depth, bound, generation)
    if info[TI_AUDIT] != 0:
        check[w >> 1] = check_key
    info[TI_STORES] += 1


@njit("int64(uint64[::1], int64[::1])", cache=True, nogil=True, _nrt=False)
def hashfull(table, info):
    """Per mille of the first 1000 buckets' slots holding an entry of the current search."""
    buckets = min(1000, info[TI_MASK] + 1)
    used = 0
    for b in range(buckets):
        for slot in range(SLOTS):
            data = table[b * WORDS_PER_BUCKET + 2 * slot + 1]
            if data_bound(data) != BOUND_NONE and data_generation(data) == info[TI_GENERATION]:
                used += 1
    return used * 1000 // (buckets * SLOTS)


class TranspositionTable:
    """A transposition table of ``size_mb`` megabytes (rounded down to a power of two of buckets).

    ``signature_bits`` (8..64) sets how many top key bits a probe compares;
    ``policy`` is one of :data:`POLICIES`; ``audit`` keeps an independent
    64-bit check key per entry so false hits can be counted.
    """

    def __init__(
        self,
        size_mb: int = HASH_MB.default,
        policy: str = DEFAULT_POLICY,
        signature_bits: int = SIGNATURE_BITS.default,
        audit: bool = False,
    ):
        self.info = np.zeros(INFO_SIZE, dtype=np.int64)
        self.info[TI_ENABLED] = 1
        self.table = np.zeros(WORDS_PER_BUCKET, dtype=np.uint64)
        self.check = np.zeros(1, dtype=np.uint64)
        self.size_mb = 0
        self.set_policy(policy)
        self.set_signature_bits(signature_bits)
        self.audit = audit
        self.resize(size_mb)

    def resize(self, size_mb: int) -> None:
        """Reallocate (and so clear) the table with ``size_mb`` megabytes (1..65536)."""
        HASH_MB.check(size_mb)
        buckets = 1 << ((size_mb * 1024 * 1024 // BUCKET_BYTES).bit_length() - 1)
        self.table = np.zeros(buckets * WORDS_PER_BUCKET, dtype=np.uint64)
        self.check = np.zeros(buckets * SLOTS if self.audit else 1, dtype=np.uint64)
        self.info[TI_MASK] = buckets - 1
        self.info[TI_INDEX_BITS] = buckets.bit_length() - 1
        self.size_mb = size_mb
        self.info[TI_GENERATION] = 0
        self.reset_counters()

    @property
    def audit(self) -> bool:
        """Whether every entry carries an independent check key (false-hit counting)."""
        return bool(self.info[TI_AUDIT])

    @audit.setter
    def audit(self, on: bool) -> None:
        self.info[TI_AUDIT] = int(on)
        if on and self.check.size != self.table.size // 2:
            self.check = np.zeros(self.table.size // 2, dtype=np.uint64)
        elif not on:
            self.check = np.zeros(1, dtype=np.uint64)

    @property
    def enabled(self) -> bool:
        """False for the lab's no-table search."""
        return bool(self.info[TI_ENABLED])

    @enabled.setter
    def enabled(self, on: bool) -> None:
        self.info[TI_ENABLED] = int(on)

    @property
    def policy(self) -> str:
        return POLICIES[int(self.info[TI_POLICY])]

    def set_policy(self, name: str) -> None:
        """Choose the replacement policy: always, depth, two-tier or bucket."""
        check_choice("replacement policy", name, POLICIES)
        self.info[TI_POLICY] = POLICIES.index(name)

    @property
    def signature_bits(self) -> int:
        return int(self.info[TI_SIG_BITS])

    def set_signature_bits(self, bits: int) -> None:
        """Compare only the top ``bits`` key bits (8..64) on a probe."""
        SIGNATURE_BITS.check(bits)
        self.info[TI_SIG_BITS] = bits

    @property
    def buckets(self) -> int:
        return int(self.info[TI_MASK]) + 1

    @property
    def entries(self) -> int:
        return self.buckets * SLOTS

    def clear(self) -> None:
        """Empty every entry (``ucinewgame``, ``Clear Hash``) and zero the counters."""
        self.table[:] = 0
        self.check[:] = 0
        self.info[TI_GENERATION] = 0
        self.reset_counters()

    def new_search(self) -> None:
        """Advance the generation: older entries age but stay usable."""
        self.info[TI_GENERATION] = (self.info[TI_GENERATION] + 1) & 63

    def reset_counters(self) -> None:
        self.info[TI_PROBES:INFO_SIZE] = 0

    def set_forced_false_hits(self, every: int) -> None:
        """Lab: make every ``every``-th missing probe return another position's entry (0: off)."""
        if every < 0:
            raise ValueError("forced false-hit interval must be >= 0")
        self.info[TI_FORCE_EVERY] = every

    def counters(self) -> dict[str, int]:
        """probes, hits, cutoffs, stores, replacements, false_hits, forced_false_hits, compared."""
        return {name: int(self.info[TI_PROBES + i]) for i, name in enumerate(COUNTER_NAMES)}

    def hashfull(self) -> int:
        """Per mille of sampled slots filled in the current search."""
        return int(hashfull(self.table, self.info))

    def nbytes(self) -> int:
        return int(self.table.nbytes + self.check.nbytes)
