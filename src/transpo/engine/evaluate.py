"""Static evaluation: tapered piece-square sums plus a dot product of terms and weights.

Four parts, each blended by game phase (24 = all pieces on, 0 = bare kings
and pawns) like PeSTO's tables, and returned from the side to move's view:

1. the piece-square sums ``ST_MG``/``ST_EG``, kept by make/unmake from the
   ``psq`` table built here (the rule that keeps them valid is in
   :mod:`transpo.core.makemove`): reading them costs nothing;
2. the pawn-structure terms, cached in the searcher's pawn hash table under
   the pawn key (:mod:`transpo.engine.pawns`);
3. the piece terms (:mod:`transpo.engine.terms` lists them all): one pass over
   the board walks each knight, bishop, rook and queen's moves once, counting
   its mobility and its attacks on the enemy king's zone together and adding
   its squares to its side's attack maps; from both sides' maps come the safe
   checks (a check square the defender does not attack) and the threats
   (undefended pieces and pawns attacked, rooks and queens hit by lesser
   pieces, pieces a safe pawn push would attack, squares from which the lone
   enemy queen could be attacked, king danger with the safe checks in it,
   passed pawns whose way or stop square the enemy does not attack, rooks
   behind passers); knights and bishops on outposts, bishops on the colour of
   their own pawns or on a long diagonal, minors behind pawns and their
   distance to their king, rooks on the 7th and kings on pawnless flanks are
   counted too;
4. the material imbalance (a second-degree polynomial in the piece counts,
   :mod:`transpo.engine.terms`), priced once per set of counts through the
   searcher's material cache.

Before the blend the endgame half is scaled (:func:`endgame_scale`, in 64ths):
less when the side ahead has few pawns, almost nothing when it has none and
is at most a minor piece up, half with bishops on opposite colours and no
other piece.  The linear model cannot say "an extra piece wins nothing here";
a factor on the whole endgame score can.

Every term is a White-minus-Black count written into ``sc.features`` and
priced by ``sc.weights``; ``evaluate_features`` computes all of them without
the cache, which is what tuning (through :func:`feature_rows`) and
``transpo eval`` read.

The piece-square values come from the weights file's ``psq`` section when it
has one (a ``transpo tune fit --psq`` result), otherwise from PeSTO.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from transpo.core.board import (
    BISHOP,
    EMPTY,
    KING_STEPS,
    KNIGHT,
    KNIGHT_STEPS,
    PAWN,
    QUEEN,
    RAY_BB,
    ROOK,
    SQ64_TO_120,
    SQ120_TO_64,
    ST_COUNT,
    ST_EG,
    ST_KING,
    ST_MG,
    ST_OCCUPIED,
    ST_PAWN_KEY,
    ST_PAWNS,
    ST_PHASE,
    ST_SIDE,
    WHITE,
)
from transpo.core.position import Position
from transpo.engine.intrinsics import popcount, prefetch
from transpo.engine.pawns import (
    BIT,
    FILE_BB,
    FORWARD_FILE,
    pawn_attacks,
    pawn_bitboards,
    pawn_features,
    pawn_slot,
)
from transpo.engine.pesto import PHASE_MAX, pesto_values, psq_table
from transpo.engine.scratch import CTL_WHITE_DRAW, EVAL_ENTRIES, MATERIAL_ENTRIES, SCRATCH_TYPE, new_scratch
from transpo.engine.terms import (
    BISHOP_KING_ATTACK,
    BISHOP_MOBILITY,
    BISHOP_OUTPOST,
    BISHOP_PAIR,
    BISHOP_PAWNS,
    BISHOP_SAFE_CHECK,
    HANGING_PAWN,
    HANGING_PIECE,
    IMBALANCE_DIVISOR,
    IMBALANCE_FIRST,
    IMBALANCE_PAIRS,
    KING_DANGER,
    KING_DANGER_CHECKS,
    KING_OPEN_FILE,
    KING_PROTECTOR,
    KING_SHIELD_FAR,
    KING_SHIELD_NEAR,
    KNIGHT_KING_ATTACK,
    KNIGHT_MOBILITY,
    KNIGHT_ON_QUEEN,
    KNIGHT_OUTPOST,
    KNIGHT_SAFE_CHECK,
    LONG_DIAGONAL_BISHOP,
    MINOR_BEHIND_PAWN,
    MINOR_THREAT,
    N_PAWN_TERMS,
    N_TERMS,
    PASSED_ENEMY_KING,
    PASSED_ENEMY_ROOK_BEHIND,
    PASSED_FREE,
    PASSED_OWN_KING,
    PASSED_ROOK_BEHIND,
    PASSED_SAFE_PATH,
    PASSED_SAFE_STOP,
    PASSED_UNSTOPPABLE,
    PAWN_PUSH_THREAT,
    PAWN_THREAT,
    PAWNLESS_FLANK,
    QUEEN_KING_ATTACK,
    QUEEN_MOBILITY,
    QUEEN_SAFE_CHECK,
    ROOK_KING_ATTACK,
    ROOK_MOBILITY,
    ROOK_ON_SEVENTH,
    ROOK_OPEN_FILE,
    ROOK_SAFE_CHECK,
    ROOK_SEMI_OPEN_FILE,
    ROOK_THREAT,
    SLIDER_ON_QUEEN,
    TEMPO,
    TERM_NAMES,
    WEIGHT_UNIT,
    load_psq,
)

_FITTED_PSQ = load_psq()
PSQ_VALUES = pesto_values() if _FITTED_PSQ is None else _FITTED_PSQ  # int32[2, 6, 64]: (mg, eg) x piece x square
PSQ = psq_table(PSQ_VALUES)

# Evaluation cache (``sc.eval_cache``, one uint64 per slot): bits 16-63 are the position's key bits 16-63,
# bits 0-15 its evaluation (side to move) in two's complement.  The slot is the key's low bits
# (eval_slot; EVAL_ENTRIES >= 2**16 slots), so slot and word hold the whole key: a hit is an exact match.
EVAL_SCORE_BITS = np.uint64(16)
EVAL_SCORE_SPAN = 1 << 16
EVAL_SCORE_MASK = np.uint64(EVAL_SCORE_SPAN - 1)
assert EVAL_ENTRIES >= EVAL_SCORE_SPAN

LAZY_MARGIN = 400  # mobility, king safety, rooks and threats together rarely move a score this far
LAZY_OFF = 1 << 40  # a window this wide turns lazy evaluation off

# Mobility counts from this centre up or down: a knight with 4 safe squares scores 0.
MOBILITY_CENTRE = np.array([0, 0, 4, 6, 6, 12, 0], dtype=np.int64)  # by piece type
# Weight of one attacked king-zone square in the king-danger units, by piece type.
ATTACK_UNITS = np.array([0, 0, 2, 2, 3, 5, 0], dtype=np.int64)
# Bitboard masks (a1 = bit 0, transpo.engine.pawns): light squares (b1, a2, ...; a1 is dark); by colour
# (White, Black), the outpost ranks (4-6 from its own side) and the rank a single pawn push must land on
# for a double push to follow (3rd for White, 6th for Black).
LIGHT_SQUARES = np.uint64(0x55AA55AA55AA55AA)
OUTPOST_RANKS = np.array([0x0000FFFFFF000000, 0x000000FFFFFF0000], dtype=np.uint64)
DOUBLE_PUSH_RANK = np.array([0x0000000000FF0000, 0x0000FF0000000000], dtype=np.uint64)
# By colour: the 7th and 8th ranks from its own side; the two long diagonals and the four centre squares.
SEVENTH_RANK = np.array([0x00FF000000000000, 0x000000000000FF00], dtype=np.uint64)
EIGHTH_RANK = np.array([0xFF00000000000000, 0x00000000000000FF], dtype=np.uint64)
LONG_DIAGONALS = np.uint64(0x8142241818244281)
CENTRE = np.uint64(0x0000001818000000)
# Files as 8 bits (bit f: file f): the queen side a-d, the king side e-h, and KING_FLANK[f], the flank
# of a king on file f: a-d, c-f or e-h.
QUEEN_SIDE = np.uint64(0x0F)
KING_SIDE = np.uint64(0xF0)
KING_FLANK = np.array([0x0F, 0x0F, 0x0F, 0x3C, 0x3C, 0xF0, 0xF0, 0xF0], dtype=np.uint64)
CHECK_UNITS = 3  # king_danger_checks: one safe check weighs as much as this many attack units

# Endgame scale (endgame_scale): the endgame half of the score is multiplied by scale / SCALE_FULL, lower
# where the side ahead has few winning chances.  MATERIAL_UNITS: a piece's weight in that test, by type.
SCALE_FULL = 64
MATERIAL_UNITS = np.array([0, 0, 3, 3, 5, 9, 0], dtype=np.int64)
NO_PAWNS_MINOR_SCALE = 0  # no pawns, ahead by at most a minor piece, and only a minor piece: a draw
NO_PAWNS_SCALE = 6  # no pawns, ahead by at most a minor piece (rook against bishop, ...)
BISHOPS_ONLY_SCALE = 32  # bishops on opposite colours and no other piece
PAWN_SCALE_BASE = 40  # otherwise PAWN_SCALE_BASE + PAWN_SCALE_STEP per pawn of the side ahead, minus
PAWN_SCALE_STEP = 7  # ONE_FLANK_PENALTY when all pawns stand on one flank (files a-d or e-h), at most SCALE_FULL
ONE_FLANK_PENALTY = 4
# SQUARE_BIT[sq]: the bitboard bit (a1 = bit 0, transpo.engine.pawns) of a mailbox square, 0 off the board.
SQUARE_BIT = np.zeros(120, dtype=np.uint64)
SQUARE_BIT[SQ64_TO_120] = BIT


def _king_zones() -> np.ndarray:
    """KING_ZONE[sq]: bitboard of the zone of a king on mailbox square sq: its own square and its neighbours."""
    zones = np.zeros(120, dtype=np.uint64)
    for sq in SQ64_TO_120:
        zones[sq] = SQUARE_BIT[sq] | np.bitwise_or.reduce(SQUARE_BIT[sq + KING_STEPS])
    return zones


KING_ZONE = _king_zones()


def _knight_reach() -> np.ndarray:
    """KNIGHT_REACH[sq]: bitboard of the board squares a knight on mailbox square sq jumps to."""
    reach = np.zeros(120, dtype=np.uint64)
    for sq in SQ64_TO_120:
        reach[sq] = np.bitwise_or.reduce(SQUARE_BIT[sq + KNIGHT_STEPS])
    return reach


KNIGHT_REACH = _knight_reach()
def _shelter_masks() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SHELTER_NEAR[c, sq], SHELTER_FAR[c, sq]: the squares one and two ranks ahead of a colour-c king on
    mailbox square sq, on its file and the two beside it (bitboards; off-board squares left out);
    SHELTER_FILES[sq]: those files as 8 bits (bit f: file f)."""
    near = np.zeros((2, 120), dtype=np.uint64)
    far = np.zeros((2, 120), dtype=np.uint64)
    files = np.zeros(120, dtype=np.uint64)
    for sq in SQ64_TO_120:
        file, rank = sq % 10 - 1, sq // 10 - 2
        for side in (-1, 0, 1):
            f = file + side
            if not 0 <= f < 8:
                continue
            files[sq] |= np.uint64(1 << f)
            for colour, ahead in ((0, 1), (1, -1)):
                for distance_ahead, masks in ((1, near), (2, far)):
                    r = rank + ahead * distance_ahead
                    if 0 <= r < 8:
                        masks[colour, sq] |= BIT[8 * r + f]
    return near, far, files


SHELTER_NEAR, SHELTER_FAR, SHELTER_FILES = _shelter_masks()

# RAY64[d, s]: the squares beyond bitboard square s along direction d (BISHOP_STEPS, then ROOK_STEPS), as uint64.
RAY64 = np.ascontiguousarray(RAY_BB[:, SQ64_TO_120].view(np.uint64))

# _evaluate prices the terms in two groups: those set before the lazy test (the bishop pair first,
# the passers and tempo after the piece terms, the material imbalance last) and those _pieces and
# _king_shelter set (every slot between the bishop pair and the passers).
assert BISHOP_PAIR == N_PAWN_TERMS and PASSED_FREE < PASSED_OWN_KING < PASSED_ENEMY_KING < PASSED_UNSTOPPABLE < TEMPO
assert TEMPO == IMBALANCE_FIRST - 1 and PASSED_UNSTOPPABLE == TEMPO - 1 and PASSED_FREE == TEMPO - 4


@njit(cache=True, inline="always")
def eval_slot(key):
    """The evaluation-cache slot of a position: the low bits of its key."""
    return np.int64(key & np.uint64(EVAL_ENTRIES - 1))


@njit(cache=True, inline="always")
def prefetch_eval(sc, key):
    """Start loading the evaluation-cache slot of ``key``: the child about to be searched may look it up
    (a cache of 512 KB is read at random, so the slot is seldom in the processor's caches)."""
    prefetch(sc.eval_cache, eval_slot(key))


@njit(cache=True, inline="always")
def _only_minor_pieces(state, color):
    base = ST_COUNT + (color << 3)
    majors = state[base + PAWN] + state[base + ROOK] + state[base + QUEEN]
    return majors == 0 and state[base + KNIGHT] + state[base + BISHOP] <= 1


@njit(cache=True, inline="always")
def _no_mating_force(state):
    """Neither side has more than a king and one minor piece: no side can force mate."""
    return _only_minor_pieces(state, 0) and _only_minor_pieces(state, 1)


@njit(cache=True, inline="always")
def draw_score(ctl, state):
    """A draw's score for the side to move: minus the contempt when it is the root side, plus it otherwise.

    The search scores repetitions, the fifty-move rule and stalemate with it, and the evaluation
    the positions no side can win: with a contempt, all of them cost the root side the same, so
    it does not trade into a bare-minor ending to dodge a repetition. Keyed by colour
    (``ctl[CTL_WHITE_DRAW]``), not by ply parity: a null move does not flip it, and the table's
    entries agree from one search to the next while the engine plays one side.
    """
    return ctl[CTL_WHITE_DRAW] if state[ST_SIDE] == WHITE else -ctl[CTL_WHITE_DRAW]


@njit(cache=True, inline="always")
def _material(state, colour):
    """The knights, bishops, rooks and queens of ``colour`` in MATERIAL_UNITS (3, 3, 5, 9)."""
    base = ST_COUNT + (colour << 3)
    return (
        MATERIAL_UNITS[KNIGHT] * state[base + KNIGHT] + MATERIAL_UNITS[BISHOP] * state[base + BISHOP]
        + MATERIAL_UNITS[ROOK] * state[base + ROOK] + MATERIAL_UNITS[QUEEN] * state[base + QUEEN]
    )  # fmt: skip


@njit(cache=True, inline="always")
def _bishop_is_light(board, state, colour):
    """Whether the first bishop of ``colour`` (by square) stands on a light square."""
    rest = np.uint64(state[ST_OCCUPIED + colour]) & ~np.uint64(state[ST_PAWNS + colour])
    while rest != 0:
        s = np.int64(trailing_zeros(rest))
        rest &= rest - np.uint64(1)
        if board[SQ64_TO_120[s]] & 7 == BISHOP:
            return BIT[s] & LIGHT_SQUARES != 0
    return False


@njit(cache=True, inline="always")
def _scale_for(board, state, strong):
    """The endgame scale (of SCALE_FULL) when ``strong`` is the side ahead."""
    weak = 1 - strong
    strong_pawns = state[ST_COUNT + (strong << 3) + PAWN]
    strong_material = _material(state, strong)
    weak_material = _material(state, weak)
    if strong_pawns == 0 and strong_material - weak_material <= MATERIAL_UNITS[BISHOP]:
        return NO_PAWNS_MINOR_SCALE if strong_material < MATERIAL_UNITS[ROOK] else NO_PAWNS_SCALE
    if (
        strong_material == MATERIAL_UNITS[BISHOP] and weak_material == MATERIAL_UNITS[BISHOP]
        and state[ST_COUNT + BISHOP] == 1 and state[ST_COUNT + 8 + BISHOP] == 1
        and _bishop_is_light(board, state, 0) != _bishop_is_light(board, state, 1)
    ):  # fmt: skip
        return BISHOPS_ONLY_SCALE
    files = _pawn_files(np.uint64(state[ST_PAWNS]) | np.uint64(state[ST_PAWNS + 1]))
    one_flank = files & QUEEN_SIDE == 0 or files & KING_SIDE == 0
    return min(SCALE_FULL, PAWN_SCALE_BASE + PAWN_SCALE_STEP * strong_pawns - ONE_FLANK_PENALTY * one_flank)


@njit(cache=True, inline="always")
def endgame_scale(board, state):
    """How much of the endgame score counts, of SCALE_FULL: less with few pawns for the side ahead
    (by the piece-square endgame sum), none or little without them and a small material edge, half with
    bishops on opposite colours and nothing else; for an even sum, the larger of the two sides' scales."""
    eg = state[ST_EG]
    if eg > 0:
        return _scale_for(board, state, 0)
    if eg < 0:
        return _scale_for(board, state, 1)
    return max(_scale_for(board, state, 0), _scale_for(board, state, 1))


@njit(cache=True, inline="always")
def _scaled(eg, scale):
    """``eg * scale / SCALE_FULL`` rounded towards zero (so that colours are symmetric)."""
    return _divide_towards_zero(eg * scale, SCALE_FULL)


@njit(cache=True, inline="always")
def _divide_towards_zero(value, divisor):
    """``value / divisor`` rounded towards zero (floor division would favour one colour)."""
    return value // divisor if value >= 0 else -(-value // divisor)


@njit(cache=True, inline="always")
def has_pieces(state, color):
    """Whether ``color`` has a knight, bishop, rook or queen (null move and the rule of the square need it)."""
    base = ST_COUNT + (color << 3)
    return state[base + KNIGHT] + state[base + BISHOP] + state[base + ROOK] + state[base + QUEEN] > 0


@njit(cache=True, inline="always")
def distance(a, b):
    """King-move (Chebyshev) distance between two mailbox squares."""
    return max(abs(a % 10 - b % 10), abs(a // 10 - b // 10))


@njit(cache=True, inline="always")
def _ray_reach(direction, s, occupied, rising):
    """The squares a slider on bitboard square ``s`` sees along RAY64 ``direction``: up to and with the first piece.

    The squares beyond that piece are its own ray in the same direction; the
    nearest piece is the lowest bit of the ray's pieces for a ``rising``
    direction, the highest for a falling one (a constant at every call site).
    """
    ray = RAY64[direction, s]
    blockers = ray & occupied
    if blockers != 0:
        first = np.int64(trailing_zeros(blockers)) if rising else 63 - np.int64(leading_zeros(blockers))
        ray ^= RAY64[direction, first]
    return ray


@njit(cache=True, inline="always")
def _slider_reach(s, occupied, first):
    """A bishop's (``first`` 0: RAY64 directions 0-3, steps -11, -9, 9, 11) or rook's (``first`` 4: steps
    -10, -1, 1, 10) reach from bitboard square ``s``; in both groups the first two directions fall."""
    return (
        _ray_reach(first, s, occupied, False) | _ray_reach(first + 1, s, occupied, False)
        | _ray_reach(first + 2, s, occupied, True) | _ray_reach(first + 3, s, occupied, True)
    )  # fmt: skip


@njit(cache=True, inline="always")
def _piece_reach(sq, kind, own, occupied):
    """(reach, targets) bitboards of the piece on mailbox square ``sq``; ``own``: its side's pieces.

    ``reach``: every square it sees, the own pieces that block it included (what
    the king-zone count takes); ``targets``: those it could move to (empty, or
    held by the other side).  A knight's reach is its table entry; a slider's
    is its rays, each up to the first piece of either side.
    """
    if kind == KNIGHT:
        reach = KNIGHT_REACH[sq]
    else:
        s = SQ120_TO_64[sq]
        if kind == BISHOP:
            reach = _slider_reach(s, occupied, 0)
        elif kind == ROOK:
            reach = _slider_reach(s, occupied, 4)
        else:
            reach = _slider_reach(s, occupied, 0) | _slider_reach(s, occupied, 4)
    return reach, reach & ~own


@njit(cache=True, nogil=True, _nrt=False)
def _pieces(board, state, white, black, passed, features):
    """The piece terms that need the attack maps or a visit of the pieces (White minus Black): mobility,
    king attacks, rooks, minors, safe checks, threats and the passers against the attack maps (the king
    shelter, the bishop pair, tempo and the passers against the kings are counted elsewhere).

    Each side's pieces are visited once, their counts summed in local variables
    (a register each) and written into ``features`` at the end.  The visit also
    gathers what each side attacks (every piece, pawns and king included) and
    where its knights, bishops, rooks and queens reach: the safe checks need
    both sides' maps, so they are counted after both visits (:func:`_safe_checks`, :func:`_threats`,
    :func:`_on_queen`, :func:`_passer_paths`).

    Compiled as a function of its own, not inlined: inlined into each of the
    evaluation's sites in the search it made the search's cold compile take
    twice as long (275 s against 142 s), and the call costs no measurable speed.
    """
    occupied = np.uint64(state[ST_OCCUPIED]) | np.uint64(state[ST_OCCUPIED + 1])
    pawns = white | black
    pawn_attack_maps = (pawn_attacks(white, 0), pawn_attacks(black, 1))
    white_attacks = black_attacks = np.uint64(0)
    white_n = white_b = white_r = white_q = white_majors = white_queens = np.uint64(0)
    black_n = black_b = black_r = black_q = black_majors = black_queens = np.uint64(0)
    white_units = black_units = 0
    for colour in range(2):
        sign = 1 - 2 * colour
        own = np.uint64(state[ST_OCCUPIED + colour])
        enemy_attacks = pawn_attack_maps[1 - colour]
        zone_of_enemy_king = KING_ZONE[state[ST_KING + 1 - colour]]
        own_pawns = white if colour == 0 else black
        enemy_pawns = black if colour == 0 else white
        attacks = KING_ZONE[state[ST_KING + colour]] | pawn_attack_maps[colour]
        n_reach = b_reach = r_reach = q_reach = majors = queens = knights = bishops = np.uint64(0)
        light_pawns = popcount(own_pawns & LIGHT_SQUARES)
        dark_pawns = popcount(own_pawns) - light_pawns
        threatened = 0
        bishop_pawns = 0
        n_mob = b_mob = r_mob = q_mob = 0
        n_att = b_att = r_att = q_att = 0
        open_files = semi_open = 0
        units = 0
        attackers = 0
        own_king = state[ST_KING + colour]
        protector = 0
        long_diagonal = 0
        rest = own & ~own_pawns & ~SQUARE_BIT[own_king]  # knights, bishops, rooks, queens
        while rest != 0:
            sq = SQ64_TO_120[np.int64(trailing_zeros(rest))]
            rest &= rest - np.uint64(1)
            kind = board[sq] & 7
            if enemy_attacks & SQUARE_BIT[sq]:
                threatened += 1  # the other side's pawn hits this piece
            reach, targets = _piece_reach(sq, kind, own, occupied)
            attacks |= reach
            # Mobility: squares an enemy pawn guards do not count.
            moves = popcount(targets & ~enemy_attacks) - MOBILITY_CENTRE[kind]
            zone = popcount(reach & zone_of_enemy_king)  # own pieces it guards there count too
            if zone > 0:
                units += zone * ATTACK_UNITS[kind]
                attackers += 1
            if kind == KNIGHT:
                n_mob += moves
                n_att += zone
                n_reach |= targets
                knights |= SQUARE_BIT[sq]
                protector += distance(sq, own_king)
            elif kind == BISHOP:
                b_mob += moves
                b_att += zone
                b_reach |= targets
                bishops |= SQUARE_BIT[sq]
                bishop_pawns += light_pawns if SQUARE_BIT[sq] & LIGHT_SQUARES else dark_pawns
                protector += distance(sq, own_king)
                if SQUARE_BIT[sq] & LONG_DIAGONALS and popcount((reach | SQUARE_BIT[sq]) & CENTRE) >= 2:
                    long_diagonal += 1
            elif kind == ROOK:
                r_mob += moves
                r_att += zone
                r_reach |= targets
                majors |= SQUARE_BIT[sq]
                file_pawns = FILE_BB[sq % 10 - 1] & pawns
                if file_pawns == 0:
                    open_files += 1
                elif file_pawns & own_pawns == 0:
                    semi_open += 1
            else:
                q_mob += moves
                q_att += zone
                q_reach |= targets
                majors |= SQUARE_BIT[sq]
                queens |= SQUARE_BIT[sq]
        outposts = OUTPOST_RANKS[colour] & pawn_attack_maps[colour] & ~_pawn_attack_span(enemy_pawns, 1 - colour)
        features[KNIGHT_OUTPOST] += sign * popcount(knights & outposts)
        features[BISHOP_OUTPOST] += sign * popcount(bishops & outposts)
        features[BISHOP_PAWNS] += sign * bishop_pawns
        features[KING_PROTECTOR] += sign * protector
        features[LONG_DIAGONAL_BISHOP] += sign * long_diagonal
        in_front = (pawns >> np.uint64(8)) if colour == 0 else (pawns << np.uint64(8))
        features[MINOR_BEHIND_PAWN] += sign * popcount((knights | bishops) & in_front)
        if enemy_pawns & SEVENTH_RANK[colour] or SQUARE_BIT[state[ST_KING + 1 - colour]] & EIGHTH_RANK[colour]:
            features[ROOK_ON_SEVENTH] += sign * popcount(majors & ~queens & SEVENTH_RANK[colour])
        if colour == 0:
            white_attacks = attacks
            white_n, white_b, white_r, white_q = n_reach, b_reach, r_reach, q_reach
            white_majors, white_queens = majors, queens
            white_units = units
        else:
            black_attacks = attacks
            black_n, black_b, black_r, black_q = n_reach, b_reach, r_reach, q_reach
            black_majors, black_queens = majors, queens
            black_units = units
        features[PAWN_THREAT] -= sign * threatened
        features[KNIGHT_MOBILITY] += sign * n_mob
        features[BISHOP_MOBILITY] += sign * b_mob
        features[ROOK_MOBILITY] += sign * r_mob
        features[QUEEN_MOBILITY] += sign * q_mob
        features[KNIGHT_KING_ATTACK] += sign * n_att
        features[BISHOP_KING_ATTACK] += sign * b_att
        features[ROOK_KING_ATTACK] += sign * r_att
        features[QUEEN_KING_ATTACK] += sign * q_att
        features[ROOK_OPEN_FILE] += sign * open_files
        features[ROOK_SEMI_OPEN_FILE] += sign * semi_open
        features[KING_DANGER] += sign * ((units * units if attackers >= 2 else 0) // 16)
    white_pieces = np.uint64(state[ST_OCCUPIED]) & ~white & ~SQUARE_BIT[state[ST_KING]]
    black_pieces = np.uint64(state[ST_OCCUPIED + 1]) & ~black & ~SQUARE_BIT[state[ST_KING + 1]]
    white_checks = _safe_checks(state[ST_KING + 1], occupied, black_attacks, white_n, white_b, white_r, white_q, 1,
                                features)
    black_checks = _safe_checks(state[ST_KING], occupied, white_attacks, black_n, black_b, black_r, black_q, -1,
                                features)
    features[KING_DANGER_CHECKS] += ((white_units + CHECK_UNITS * white_checks) ** 2 // 16
                                     - (black_units + CHECK_UNITS * black_checks) ** 2 // 16)
    _on_queen(occupied, black_queens, pawn_attack_maps[1], white_n, white_b, white_r, 1, features)
    _on_queen(occupied, white_queens, pawn_attack_maps[0], black_n, black_b, black_r, -1, features)
    _passer_paths(board, passed, occupied, white_attacks, black_attacks, features)
    _threats(white_attacks, white_n | white_b, white_r, black_attacks, black_pieces, black_majors, black_queens,
             1, features)
    _threats(black_attacks, black_n | black_b, black_r, white_attacks, white_pieces, white_majors, white_queens,
             -1, features)  # fmt: skip
    _pawn_threats(white, 0, occupied, white_attacks, black_attacks, black, pawn_attack_maps[1], black_pieces, 1,
                  features)
    _pawn_threats(black, 1, occupied, black_attacks, white_attacks, white, pawn_attack_maps[0], white_pieces, -1,
                  features)  # fmt: skip


@njit(cache=True, inline="always")
def _pawn_attack_span(pawns, colour):
    """Every square ``colour``'s pawns attack now or could attack after advancing (their attacks filled forward)."""
    span = pawn_attacks(pawns, colour)
    for shift in (8, 16, 32):
        span |= (span << np.uint64(shift)) if colour == 0 else (span >> np.uint64(shift))
    return span


@njit(cache=True, inline="always")
def _pawn_threats(pawns, colour, occupied, attacks, enemy_attacks, enemy_pawns, enemy_pawn_attacks, enemy_pieces,
                  sign, features):  # fmt: skip
    """Threats of ``colour`` beyond those on pieces (:func:`_threats`): undefended enemy pawns it attacks,
    and enemy pieces (not pawns, not the king) that a safe push of one of its pawns would attack.

    A push (one step, or two from the pawn's first rank) is safe to a square no enemy pawn
    attacks and that the enemy does not attack at all or ``colour`` also attacks.
    """
    features[HANGING_PAWN] += sign * popcount(enemy_pawns & attacks & ~enemy_attacks)
    step = np.uint64(8)
    pushes = ((pawns << step) if colour == 0 else (pawns >> step)) & ~occupied
    doubles = pushes & DOUBLE_PUSH_RANK[colour]
    pushes |= ((doubles << step) if colour == 0 else (doubles >> step)) & ~occupied
    safe = pushes & ~enemy_pawn_attacks & (attacks | ~enemy_attacks)
    features[PAWN_PUSH_THREAT] += sign * popcount(pawn_attacks(safe, colour) & enemy_pieces)


@njit(cache=True, inline="always")
def _threats(attacks, minor_reach, rook_reach, defended, pieces, majors, queens, sign, features):
    """Threats on the defender's pieces (not pawns, not the king): undefended ones attacked by anything,
    rooks and queens attacked by a knight or bishop, queens attacked by a rook."""
    features[HANGING_PIECE] += sign * popcount(pieces & attacks & ~defended)
    features[MINOR_THREAT] += sign * popcount(majors & minor_reach)
    features[ROOK_THREAT] += sign * popcount(queens & rook_reach)


@njit(cache=True, inline="always")
def _safe_checks(king, occupied, defended, n_reach, b_reach, r_reach, q_reach, sign, features):
    """Count, per piece kind, the squares from which one of the attacker's pieces could check ``king``.

    ``*_reach`` are the squares the attacker's knights, bishops, rooks and
    queens could move to (own pieces excluded); ``defended`` is everything the
    defender attacks, its king's neighbours included.  A check square counts
    when the defender does not attack it: the checking piece would stand there
    unchallenged (a piece that is itself pinned or overloaded is not looked at).
    Returns the number of safe check squares of all kinds (for king_danger_checks).
    """
    safe = ~defended
    s = SQ120_TO_64[king]
    diagonal = _slider_reach(s, occupied, 0)  # where a bishop checks from: the king's diagonals
    straight = _slider_reach(s, occupied, 4)
    knight = popcount(KNIGHT_REACH[king] & n_reach & safe)
    bishop = popcount(diagonal & b_reach & safe)
    rook = popcount(straight & r_reach & safe)
    queen = popcount((diagonal | straight) & q_reach & safe)
    features[KNIGHT_SAFE_CHECK] += sign * knight
    features[BISHOP_SAFE_CHECK] += sign * bishop
    features[ROOK_SAFE_CHECK] += sign * rook
    features[QUEEN_SAFE_CHECK] += sign * queen
    return knight + bishop + rook + queen


@njit(cache=True, inline="always")
def _on_queen(occupied, queens, pawn_guarded, n_reach, b_reach, r_reach, sign, features):
    """Squares from which the attacker's knights, or bishops and rooks, could attack the defender's queen
    (when it has exactly one), not guarded by the defender's pawns."""
    if queens == 0 or queens & (queens - np.uint64(1)) != 0:
        return
    s = np.int64(trailing_zeros(queens))
    safe = ~pawn_guarded
    features[KNIGHT_ON_QUEEN] += sign * popcount(KNIGHT_REACH[SQ64_TO_120[s]] & n_reach & safe)
    lines = (_slider_reach(s, occupied, 0) & b_reach) | (_slider_reach(s, occupied, 4) & r_reach)
    features[SLIDER_ON_QUEEN] += sign * popcount(lines & safe)


@njit(cache=True, inline="always")
def _passer_scale(s, colour):
    """What the passer terms multiply by for a passed pawn on bitboard square ``s``: its relative rank
    minus 2, at least 0 (it matters more the further it has come)."""
    relative_rank = (s >> 3) if colour == 0 else 7 - (s >> 3)
    return max(relative_rank - 2, 0)


@njit(cache=True, inline="always")
def _passer_paths(board, passed, occupied, white_attacks, black_attacks, features):
    """Passed pawns against the attack maps: a way to promotion or a stop square the enemy does not attack,
    and rooks or queens of either side behind them on their file."""
    rest = passed
    while rest != 0:
        s = np.int64(trailing_zeros(rest))
        rest &= rest - np.uint64(1)
        colour = board[SQ64_TO_120[s]] >> 3
        sign = 1 - 2 * colour
        scale = _passer_scale(s, colour)
        enemy_attacks = black_attacks if colour == 0 else white_attacks
        path = FORWARD_FILE[colour, s]
        if path & enemy_attacks == 0:
            features[PASSED_SAFE_PATH] += sign * scale
        stop = BIT[s + 8] if colour == 0 else BIT[s - 8]
        if stop & enemy_attacks == 0:
            features[PASSED_SAFE_STOP] += sign * scale
        behind = FORWARD_FILE[1 - colour, s] & occupied
        if behind != 0:
            first = (63 - np.int64(leading_zeros(behind))) if colour == 0 else np.int64(trailing_zeros(behind))
            piece = board[SQ64_TO_120[first]]
            if piece & 7 == ROOK or piece & 7 == QUEEN:
                if piece >> 3 == colour:
                    features[PASSED_ROOK_BEHIND] += sign
                else:
                    features[PASSED_ENEMY_ROOK_BEHIND] += sign


@njit(cache=True, inline="always")
def _pawn_files(pawns):
    """The files that hold at least one of ``pawns``, as 8 bits (bit f: file f)."""
    pawns |= pawns >> np.uint64(32)
    pawns |= pawns >> np.uint64(16)
    pawns |= pawns >> np.uint64(8)
    return pawns & np.uint64(0xFF)


@njit(cache=True, inline="always")
def _king_shelter(state, white, black, features):
    """Pawn shield in front of each king, the pawnless files at or beside it (masks: SHELTER_*) and
    whether its whole flank (KING_FLANK) is without pawns."""
    pawn_files = _pawn_files(white | black)
    for colour in range(2):
        sign = 1 - 2 * colour
        king = state[ST_KING + colour]
        pawns = white if colour == 0 else black
        features[KING_SHIELD_NEAR] += sign * popcount(pawns & SHELTER_NEAR[colour, king])
        features[KING_SHIELD_FAR] += sign * popcount(pawns & SHELTER_FAR[colour, king])
        features[KING_OPEN_FILE] += sign * popcount(SHELTER_FILES[king] & ~_pawn_files(pawns))
        if KING_FLANK[king % 10 - 1] & pawn_files == 0:
            features[PAWNLESS_FLANK] += sign


@njit(cache=True, inline="always")
def _passers(board, state, passed, features):
    """Passed pawns against the pieces and kings: free path, king distances, the rule of the square."""
    rest = passed
    while rest != 0:
        s = np.int64(trailing_zeros(rest))  # the lowest passer left, a1 first (int64: uint64 would float the ranks)
        rest &= rest - np.uint64(1)
        sq = SQ64_TO_120[s]
        colour = board[sq] >> 3
        sign = 1 - 2 * colour
        relative_rank = (s >> 3) if colour == 0 else 7 - (s >> 3)
        scale = _passer_scale(s, colour)
        stop = sq + (10 if colour == 0 else -10)
        if board[stop] == EMPTY:
            features[PASSED_FREE] += sign * scale
        features[PASSED_OWN_KING] += sign * scale * distance(state[ST_KING + colour], stop)
        enemy_king = state[ST_KING + 1 - colour]
        features[PASSED_ENEMY_KING] += sign * scale * distance(enemy_king, stop)
        if not has_pieces(state, 1 - colour):
            promotion = sq % 10 + (90 if colour == 0 else 20)
            plies_to_go = min(7 - relative_rank, 5)  # a pawn on its first rank can step twice
            king_distance = distance(enemy_king, promotion) - (1 if state[ST_SIDE] != colour else 0)
            if king_distance > plies_to_go:
                features[PASSED_UNSTOPPABLE] += sign


# Material imbalance (transpo.engine.terms).  IMBALANCE_COUNTS[t]: the two piece codes that term
# IMBALANCE_FIRST + t multiplies (0 stands for the bishop pair) and whether the second is the enemy's.
# IMBALANCE_REFERENCE[code]: that piece's count in the starting material, from which the counts are measured.
_PIECE_CODES = (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, 0)
IMBALANCE_COUNTS = np.array(
    [(_PIECE_CODES[a], _PIECE_CODES[b], int(against)) for a, b, against in IMBALANCE_PAIRS], dtype=np.int64
)
IMBALANCE_REFERENCE = np.array([1, 8, 2, 2, 2, 1, 0], dtype=np.int64)


@njit(cache=True, inline="always")
def _imbalance_count(state, colour, code):
    """How many pieces of ``code`` ``colour`` has more than at the start (code 0: the bishop pair, 1 or 0)."""
    if code == 0:
        return int(state[ST_COUNT + 8 * colour + BISHOP] >= 2) - IMBALANCE_REFERENCE[0]
    return state[ST_COUNT + 8 * colour + code] - IMBALANCE_REFERENCE[code]


@njit(cache=True, inline="always")
def _imbalance(state, weights, features):
    """The material imbalance terms' features (White's products minus Black's) and their (mg, eg), in cp."""
    for t in range(IMBALANCE_COUNTS.shape[0]):
        a = IMBALANCE_COUNTS[t, 0]
        b = IMBALANCE_COUNTS[t, 1]
        against = IMBALANCE_COUNTS[t, 2]
        white = _imbalance_count(state, WHITE, a) * _imbalance_count(state, WHITE ^ against, b)
        black = _imbalance_count(state, WHITE ^ 1, a) * _imbalance_count(state, WHITE ^ 1 ^ against, b)
        features[IMBALANCE_FIRST + t] = white - black
    mg, eg = _block(weights, features, IMBALANCE_FIRST, N_TERMS)
    return _divide_towards_zero(mg, IMBALANCE_DIVISOR), _divide_towards_zero(eg, IMBALANCE_DIVISOR)


# Material cache (``sc.material_keys``, ``sc.material_scores``): the imbalance depends on the piece counts
# alone, and a search meets few of them, so each is priced once.  The material key packs the ten counts,
# 6 bits each (a FEN may put up to 62 pieces of one kind on the board): bits 6 * (5 * colour + code - 1)
# .. +5 hold the count of piece code 1..5 (pawn .. queen) of that colour.  Its slot is a multiplicative
# hash of it; the slot's word is the whole key, so a hit is an exact match.  Key 0 (bare kings), which an
# empty slot holds, never gets here: the evaluation scores it as a draw first.
#     material_keys[i]          uint64  the material key stored there
#     material_scores[i, 0..1]  int32   the imbalance's middlegame and endgame score, in centipawns
MATERIAL_COUNT_BITS = 6
MATERIAL_HASH = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / golden ratio: spreads the packed counts over the slots
MATERIAL_SHIFT = np.uint64(64 - (MATERIAL_ENTRIES.bit_length() - 1))
assert MATERIAL_ENTRIES & (MATERIAL_ENTRIES - 1) == 0


@njit(cache=True, inline="always")
def _material_key(state):
    """The packed piece counts of both colours (layout above)."""
    key = np.uint64(0)
    for colour in range(2):
        for code in range(PAWN, QUEEN + 1):
            shift = np.uint64(MATERIAL_COUNT_BITS * (5 * colour + code - PAWN))
            key |= np.uint64(state[ST_COUNT + 8 * colour + code]) << shift
    return key


@njit(cache=True, inline="always")
def _imbalance_cached(state, sc):
    """:func:`_imbalance` through the material cache (the features are not counted on a hit)."""
    key = _material_key(state)
    slot = np.int64((key * MATERIAL_HASH) >> MATERIAL_SHIFT)
    if sc.material_keys[slot] == key:
        return np.int64(sc.material_scores[slot, 0]), np.int64(sc.material_scores[slot, 1])
    mg, eg = _imbalance(state, sc.weights, sc.features)
    sc.material_keys[slot] = key
    sc.material_scores[slot, 0] = mg
    sc.material_scores[slot, 1] = eg
    return mg, eg


@njit(cache=True, inline="always")
def _block(weights, features, first, last):
    """(mg, eg) that the terms ``first..last-1`` of ``features`` add up to."""
    mg = 0
    eg = 0
    for t in range(first, last):
        mg += weights[t, 0] * features[t]
        eg += weights[t, 1] * features[t]
    return mg, eg


@njit(cache=True, inline="always")
def evaluate_inline(board, state, sc, key, use_cache, alpha, beta):
    """The evaluation itself, inlined into each caller: :func:`evaluate`, :func:`evaluate_lazy`
    and the search's two call sites (a call would pass every array of the scratch, field by field)."""
    if _no_mating_force(state):
        return draw_score(sc.ctl, state)  # K, K+N, K+B against each other
    cached = eval_slot(key)
    if use_cache and (sc.eval_cache[cached] ^ key) >> EVAL_SCORE_BITS == 0:
        low = np.int64(sc.eval_cache[cached] & EVAL_SCORE_MASK)
        return low - EVAL_SCORE_SPAN if low >= EVAL_SCORE_SPAN // 2 else low
    weights = sc.weights
    features = sc.features
    slot = pawn_slot(state[ST_PAWN_KEY])
    if use_cache and sc.pawn_keys[slot] == np.uint64(state[ST_PAWN_KEY]):
        white = sc.pawn_bits[slot, 0]
        black = sc.pawn_bits[slot, 1]
        passed = sc.pawn_bits[slot, 2]
        pawn_mg = sc.pawn_scores[slot, 0]
        pawn_eg = sc.pawn_scores[slot, 1]
    else:
        white, black = pawn_bitboards(state)
        passed = pawn_features(board, white, black, features)
        pawn_mg, pawn_eg = _block(weights, features, 0, N_PAWN_TERMS)
        if use_cache:
            sc.pawn_keys[slot] = np.uint64(state[ST_PAWN_KEY])
            sc.pawn_bits[slot, 0] = white
            sc.pawn_bits[slot, 1] = black
            sc.pawn_bits[slot, 2] = passed
            sc.pawn_scores[slot, 0] = pawn_mg
            sc.pawn_scores[slot, 1] = pawn_eg

    for t in range(N_PAWN_TERMS, IMBALANCE_FIRST):  # not the imbalance's: _imbalance writes them when it runs
        features[t] = 0
    features[BISHOP_PAIR] = int(state[ST_COUNT + BISHOP] >= 2) - int(state[ST_COUNT + 8 + BISHOP] >= 2)
    features[TEMPO] = 1 - 2 * state[ST_SIDE]
    _passers(board, state, passed, features)
    # The terms known so far (bishop pair, passers, tempo, material imbalance) are priced once, before the
    # lazy test; the piece and shelter terms, the block between them, after it (the layout asserted below).
    known_mg, known_eg = _block(weights, features, BISHOP_PAIR, BISHOP_PAIR + 1)
    passers_mg, passers_eg = _block(weights, features, PASSED_FREE, IMBALANCE_FIRST)
    if use_cache:
        imbalance_mg, imbalance_eg = _imbalance_cached(state, sc)
    else:
        imbalance_mg, imbalance_eg = _imbalance(state, weights, features)
    mg = state[ST_MG] + pawn_mg + known_mg + passers_mg + imbalance_mg
    eg = state[ST_EG] + pawn_eg + known_eg + passers_eg + imbalance_eg
    scale = endgame_scale(board, state)
    if alpha > -LAZY_OFF or beta < LAZY_OFF:  # lazy: the terms still missing cannot bring the score inside the window
        quick = taper(mg, _scaled(eg, scale), state[ST_PHASE])
        quick = quick if state[ST_SIDE] == 0 else -quick
        if quick - LAZY_MARGIN >= beta or quick + LAZY_MARGIN <= alpha:
            return quick
    _pieces(board, state, white, black, passed, features)
    _king_shelter(state, white, black, features)
    piece_mg, piece_eg = _block(weights, features, BISHOP_PAIR + 1, PASSED_FREE)
    mg += piece_mg
    eg += piece_eg
    score = taper(mg, _scaled(eg, scale), state[ST_PHASE])
    score = score if state[ST_SIDE] == 0 else -score
    if use_cache and -EVAL_SCORE_SPAN // 2 <= score < EVAL_SCORE_SPAN // 2:
        sc.eval_cache[cached] = (key & ~EVAL_SCORE_MASK) | (np.uint64(score & (EVAL_SCORE_SPAN - 1)))
    return score


@njit(cache=True, inline="always")
def taper(mg, eg, phase):
    """Blend middlegame and endgame scores by phase, rounding towards zero so that colours are symmetric."""
    phase = min(phase, PHASE_MAX)
    return _divide_towards_zero(mg * phase + eg * (PHASE_MAX - phase), PHASE_MAX)


@njit(types.int64(types.int8[::1], types.int64[::1], SCRATCH_TYPE, types.uint64), cache=True, nogil=True, _nrt=False)
def evaluate(board, state, sc, key):
    """Score in centipawns for the side to move of the position with Zobrist key ``key``.

    Three caches of the searcher's scratch save work: whole evaluations by the full
    key (iterative deepening meets the same leaves again every iteration), the
    pawn-structure terms by the pawn key and the material imbalance by the piece counts.
    """
    return evaluate_inline(board, state, sc, key, True, -LAZY_OFF, LAZY_OFF)


@njit(
    types.int64(types.int8[::1], types.int64[::1], SCRATCH_TYPE, types.uint64, types.int64, types.int64),
    cache=True,
    nogil=True,
    _nrt=False,
)
def evaluate_lazy(board, state, sc, key, alpha, beta):
    """:func:`evaluate`, except that a score already LAZY_MARGIN outside (alpha, beta) without the
    piece terms is returned as it is (quiescence's stand pat needs no more); only whole
    evaluations go into the cache."""
    return evaluate_inline(board, state, sc, key, True, alpha, beta)


@njit(types.int64(types.int8[::1], types.int64[::1], SCRATCH_TYPE), cache=True, nogil=True, _nrt=False)
def evaluate_features(board, state, sc):
    """The same score computed without any cache, every term's count left in ``sc.features`` (after
    :func:`evaluate`, which may take terms from a cache, some of those counts are stale)."""
    return evaluate_inline(board, state, sc, np.uint64(0), False, -LAZY_OFF, LAZY_OFF)


@njit(types.int64(types.int8[::1], types.int64[::1]), cache=True, nogil=True, _nrt=False)
def endgame_scale_of(board, state):
    """:func:`endgame_scale` of a position, for Python callers (tuning, ``explain``)."""
    return endgame_scale(board, state)


@njit(types.boolean(types.int64[::1]), cache=True, nogil=True, _nrt=False)
def scored_as_draw(state):
    """True when the evaluation is a fixed 0 whatever the weights (no side can force mate)."""
    return _no_mating_force(state)


class FeatureRows(NamedTuple):
    """What the evaluation of many positions is made of, one row per position (all from White's view).

    For a row with ``fixed`` False the evaluation is linear in the weights but for one rounding (the imbalance
    block's sum is divided by IMBALANCE_DIVISOR towards zero: :func:`transpo.engine.terms.term_sums`)::

        (terms_mg, terms_eg) = term_sums(weights, features)
        mg = psq_mg + terms_mg      eg = psq_eg + terms_eg
        white_view = taper(mg, eg * eg_scale / SCALE_FULL, phase);  score = white_view if white_to_move else -white_view

    (``eg_scale`` depends on the material and the piece-square endgame sum alone, not on the weights.)
    """

    features: np.ndarray  # int32[n, N_TERMS]: White-minus-Black term counts
    psq_mg: np.ndarray  # int64[n]: piece-square sums (material included) under PSQ
    psq_eg: np.ndarray  # int64[n]
    phase: np.ndarray  # int64[n]: game phase, 0..PHASE_MAX
    eg_scale: np.ndarray  # int64[n]: the endgame scale, 0..SCALE_FULL (endgame_scale)
    white_to_move: np.ndarray  # bool[n]
    fixed: np.ndarray  # bool[n]: a draw the weights cannot change (fixed 0, or insufficient material): not fit data


def feature_rows(fens: Sequence[str]) -> FeatureRows:
    """The :class:`FeatureRows` of positions given as FENs (one scratch for all: nothing allocated per row)."""
    n = len(fens)
    rows = FeatureRows(
        np.zeros((n, N_TERMS), dtype=np.int32), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.bool_),
        np.zeros(n, dtype=np.bool_),
    )  # fmt: skip
    scratch = new_scratch()
    for i, fen in enumerate(fens):
        position = Position(fen, clean_castling=True)  # castling rights do not change the evaluation
        arrays = position.snapshot(PSQ)
        state = arrays.state
        rows.psq_mg[i] = state[ST_MG]
        rows.psq_eg[i] = state[ST_EG]
        rows.phase[i] = min(state[ST_PHASE], PHASE_MAX)
        rows.eg_scale[i] = endgame_scale_of(arrays.board, state)
        rows.white_to_move[i] = state[ST_SIDE] == 0
        drawn = scored_as_draw(state)
        rows.fixed[i] = drawn or position.is_insufficient_material()
        if not drawn:  # a fixed 0 returns before the terms are counted: the row stays zero
            evaluate_features(arrays.board, state, scratch)
            rows.features[i] = scratch.features
    return rows


def explain(position: Position, weights: np.ndarray | None = None) -> Explanation:
    """The static evaluation of ``position`` term by term (``weights``: default the shipped ones)."""
    scratch = new_scratch() if weights is None else new_scratch(weights)
    arrays = position.snapshot(PSQ)
    score = int(evaluate_features(arrays.board, arrays.state, scratch))
    terms = [
        Term(name, int(count), int(scratch.weights[t, 0] * count * WEIGHT_UNIT[t]),
             int(scratch.weights[t, 1] * count * WEIGHT_UNIT[t]))  # fmt: skip
        for t, (name, count) in enumerate(zip(TERM_NAMES, scratch.features))
    ]
    state = arrays.state
    phase = int(min(state[ST_PHASE], PHASE_MAX))
    return Explanation(score, int(state[ST_MG]), int(state[ST_EG]), phase, int(endgame_scale_of(arrays.board, state)),
                       terms)


class Term(NamedTuple):
    """One evaluation term of a position: its White-minus-Black count and what it adds (mg, eg)."""

    name: str
    count: int
    mg: int
    eg: int


class Explanation(NamedTuple):
    """A static evaluation taken apart: the score (side to move), the piece-square sums (White's view), the
    phase, the endgame scale and the terms."""

    score: int
    psq_mg: int
    psq_eg: int
    phase: int
    eg_scale: int  # of SCALE_FULL: how much of the endgame half counts
    terms: list[Term]
