"""The evaluation's terms: their names, their slots, and the weights file that prices them.

Beyond the piece-square sums (:mod:`transpo.engine.pesto`, kept by make/unmake),
the evaluation is a dot product: every term is a *feature*, an integer count
taken White minus Black (a white isolated pawn counts +1, a black one -1),
and every term has two weights, middlegame and endgame, blended by game phase
exactly like the piece-square sums.  So

    score_mg = psq_mg + sum(weights[t, 0] * features[t])
    score_eg = psq_eg + sum(weights[t, 1] * features[t])

which is linear in the weights: that is what lets ``transpo tune`` fit them all
at once by logistic regression (Texel's method, :mod:`transpo.tools.tune`).  (The
endgame score is then scaled by ``evaluate.endgame_scale``, a factor that depends on
the material and the piece-square sum, not on the weights, so it stays linear.)

Two blocks, in this order:

* the pawn-structure terms, which depend on the pawns alone and are cached in
  the pawn hash table under the pawn key (:mod:`transpo.engine.pawns`);
* the piece terms, computed at every evaluation (mobility, king safety (safe checks
  included), rooks on files and on the 7th, threats (pawn pushes, hanging pawns and
  squares to attack the queen from included), outposts, bishops hindered by their own
  pawns or on long diagonals, minors behind pawns and near their king, pawnless flanks,
  passed pawns against pieces, kings and attack maps, tempo).

The weights are data: ``engine/data/eval_weights.json`` maps each term name to
``[mg, eg]`` and says how they were made.  They reach compiled code as an
array argument (in each searcher's scratch), never as a global, so a new
weights file takes effect without recompiling (docs/NUMBA.md, trap 5).

An optional ``psq`` section replaces PeSTO's piece-square tables (material
included) with fitted ones: for each name of :data:`~transpo.engine.pesto.PIECE_NAMES`,
``{"mg": [64 ints], "eg": [64 ints]}`` indexed a1 = 0, b1 = 1, ..., h8 = 63 from
White's side (Black's squares are mirrored).  They too reach compiled code as an
argument: the table a position's snapshot carries (``evaluate.PSQ``).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np

from transpo.engine.pesto import PIECE_NAMES

PAWN_TERMS = (
    "pawn_doubled",  # a pawn with a pawn of its own colour in front of it on its file
    "pawn_isolated",  # no pawn of its colour on either neighbouring file
    "pawn_backward",  # no own pawn beside or behind it on the neighbouring files, stop square hit by an enemy pawn
    "pawn_supported",  # defended by a pawn of its colour
    "pawn_phalanx",  # a pawn of its colour beside it on the same rank
    "passed_rank2",  # a passed pawn (no enemy pawn ahead on its own or a neighbouring file) by relative rank
    "passed_rank3",
    "passed_rank4",
    "passed_rank5",
    "passed_rank6",
    "passed_rank7",
)
PIECE_TERMS = (
    "bishop_pair",
    "rook_open_file",  # no pawn at all on the rook's file
    "rook_semi_open_file",  # no pawn of its own colour on the file
    "knight_mobility",  # per reachable square not held by an own piece nor hit by an enemy pawn, minus a centre
    "bishop_mobility",
    "rook_mobility",
    "queen_mobility",
    "knight_king_attack",  # per square of the enemy king's zone (the king's square and its neighbours) attacked
    "bishop_king_attack",
    "rook_king_attack",
    "queen_king_attack",
    "king_danger",  # (attack units)^2 / 16 when two or more pieces attack the zone: danger grows faster than linear
    "king_shield_near",  # own pawns on the three squares in front of the king
    "king_shield_far",  # own pawns two ranks in front of the king
    "king_open_file",  # files at or beside the king with no pawn of its own
    "pawn_threat",  # enemy pieces (not pawns) attacked by a pawn
    "knight_safe_check",  # squares from which a knight could check the enemy king, not attacked by the enemy
    "bishop_safe_check",  # the same for a bishop (the diagonals from the king, up to the first piece)
    "rook_safe_check",  # the same for a rook (the files and ranks from the king)
    "queen_safe_check",  # the same for a queen (both)
    "hanging_piece",  # enemy knights, bishops, rooks and queens attacked and not defended
    "minor_threat",  # enemy rooks and queens attacked by a knight or bishop
    "rook_threat",  # enemy queens attacked by a rook
    "hanging_pawn",  # enemy pawns attacked and not defended
    "pawn_push_threat",  # enemy pieces (not pawns) a safe pawn push would attack
    "knight_outpost",  # knights on ranks 4-6 defended by a pawn, where no enemy pawn can ever attack them
    "bishop_outpost",  # the same for bishops
    "bishop_pawns",  # per bishop, own pawns on squares of its colour
    "minor_behind_pawn",  # a knight or bishop with a pawn (either colour) right in front of it
    "king_protector",  # per knight and bishop, its king distance from its own king
    "rook_on_seventh",  # a rook on the 7th rank when the enemy king is on the 8th or enemy pawns are on the 7th
    "long_diagonal_bishop",  # a bishop on a long diagonal that sees both centre squares on it
    "pawnless_flank",  # the king's flank (its file and the nearby ones) holds no pawn at all
    "knight_on_queen",  # squares from which a knight could attack the lone enemy queen, not hit by enemy pawns
    "slider_on_queen",  # the same for bishops and rooks (along the queen's lines, up to the first piece)
    "passed_safe_path",  # passed pawn whose way to promotion the enemy does not attack, times its rank scale
    "passed_safe_stop",  # passed pawn whose stop square the enemy does not attack, times its rank scale
    "passed_rook_behind",  # an own rook or queen behind the passed pawn on its file
    "passed_enemy_rook_behind",  # an enemy rook or queen behind the passed pawn on its file
    "king_danger_checks",  # (attack units + 3 per safe check)^2 / 16, one attacker or more: danger with the checks
    "passed_free",  # passed pawn whose stop square is empty, times its rank scale
    "passed_own_king",  # distance of the own king to the stop square, times the rank scale
    "passed_enemy_king",  # distance of the enemy king to the stop square, times the rank scale
    "passed_unstoppable",  # the enemy has only king and pawns and its king is outside the pawn's square
    "tempo",  # +1 when White is to move, -1 when Black is
)
# Material imbalance: a second-degree polynomial in the piece counts (after Tord Romstad's imbalance
# tables), so that a piece's worth can depend on what else is on the board (a knight with many pawns,
# two rooks against a queen).  The "pieces" are pawn, knight, bishop, rook, queen and the bishop pair
# (1 with two bishops or more), each counted from the starting material's (8, 2, 2, 2, 1 and 1), so that
# the polynomial has no slope there: near the start it changes no piece's worth, which the piece-square
# tables hold, only how the worth of each changes as material comes off.
# Two kinds of term, each White's product minus Black's:
#   imbalance_A_B     own A count x own B count (A at or before B in that order);
#   imbalance_A_vs_B  own A count x the enemy's B count (B before A: a pair with B after A is the
#                     same term seen from the other side).
# The bishop pair with itself or with the bishops is left out: it is the bishop_pair term again.
# These weights are in 1/IMBALANCE_DIVISOR centipawn per product: the block's sum is divided by it
# (rounding towards zero), because a whole centipawn per product (up to 64 for pawn x pawn) is too coarse.
IMBALANCE_PIECES = ("pawn", "knight", "bishop", "rook", "queen", "bishop_pair")
IMBALANCE_DIVISOR = 16
_BISHOP, _PAIR = 2, len(IMBALANCE_PIECES) - 1
# (a, b, against): the two counts each imbalance term multiplies (indices into IMBALANCE_PIECES), in slot order.
IMBALANCE_PAIRS = tuple(
    [(a, b, False) for a in range(_PAIR + 1) for b in range(a, _PAIR + 1) if not (b == _PAIR and a in (_BISHOP, _PAIR))]
    + [(a, b, True) for a in range(_PAIR + 1) for b in range(a)]
)
IMBALANCE_TERMS = tuple(
    f"imbalance_{IMBALANCE_PIECES[a]}_{'vs_' if against else ''}{IMBALANCE_PIECES[b]}"
    for a, b, against in IMBALANCE_PAIRS
)

TERM_NAMES = PAWN_TERMS + PIECE_TERMS + IMBALANCE_TERMS
N_PAWN_TERMS = len(PAWN_TERMS)
N_TERMS = len(TERM_NAMES)

# Slots (indices into the features and weights arrays), one constant per term.
(
    PAWN_DOUBLED, PAWN_ISOLATED, PAWN_BACKWARD, PAWN_SUPPORTED, PAWN_PHALANX, PASSED_RANK2,
) = range(6)  # fmt: skip
(
    BISHOP_PAIR, ROOK_OPEN_FILE, ROOK_SEMI_OPEN_FILE,
    KNIGHT_MOBILITY, BISHOP_MOBILITY, ROOK_MOBILITY, QUEEN_MOBILITY,
    KNIGHT_KING_ATTACK, BISHOP_KING_ATTACK, ROOK_KING_ATTACK, QUEEN_KING_ATTACK, KING_DANGER,
    KING_SHIELD_NEAR, KING_SHIELD_FAR, KING_OPEN_FILE, PAWN_THREAT,
    KNIGHT_SAFE_CHECK, BISHOP_SAFE_CHECK, ROOK_SAFE_CHECK, QUEEN_SAFE_CHECK,
    HANGING_PIECE, MINOR_THREAT, ROOK_THREAT,
    HANGING_PAWN, PAWN_PUSH_THREAT, KNIGHT_OUTPOST, BISHOP_OUTPOST, BISHOP_PAWNS,
    MINOR_BEHIND_PAWN, KING_PROTECTOR, ROOK_ON_SEVENTH, LONG_DIAGONAL_BISHOP, PAWNLESS_FLANK,
    KNIGHT_ON_QUEEN, SLIDER_ON_QUEEN, PASSED_SAFE_PATH, PASSED_SAFE_STOP, PASSED_ROOK_BEHIND,
    PASSED_ENEMY_ROOK_BEHIND, KING_DANGER_CHECKS,
    PASSED_FREE, PASSED_OWN_KING, PASSED_ENEMY_KING, PASSED_UNSTOPPABLE, TEMPO,
) = range(N_PAWN_TERMS, N_PAWN_TERMS + len(PIECE_TERMS))  # fmt: skip
IMBALANCE_FIRST = N_PAWN_TERMS + len(PIECE_TERMS)  # the imbalance terms fill the slots from here to N_TERMS
# What one unit of each term's weight is worth in centipawns per count: 1, or 1/IMBALANCE_DIVISOR.
WEIGHT_UNIT = np.array([1.0] * IMBALANCE_FIRST + [1.0 / IMBALANCE_DIVISOR] * len(IMBALANCE_TERMS))


def term_sums(weights: np.ndarray, features: np.ndarray) -> tuple[int, int]:
    """(mg, eg) centipawns that ``features`` (one position's counts) add under ``weights``, summed as the
    evaluation sums them: the imbalance block in its own unit, divided rounding towards zero."""
    weights = np.asarray(weights, dtype=np.int64)
    features = np.asarray(features, dtype=np.int64)
    linear, imbalance = slice(0, IMBALANCE_FIRST), slice(IMBALANCE_FIRST, None)
    return tuple(  # type: ignore[return-value]
        int(weights[linear, h] @ features[linear])
        + int(np.trunc(int(weights[imbalance, h] @ features[imbalance]) / IMBALANCE_DIVISOR))
        for h in (0, 1)
    )


WEIGHTS_FILE = "eval_weights.json"


class WeightsError(ValueError):
    """A weights file that does not price exactly the terms of this evaluation."""


def weights_from_mapping(terms: dict[str, list[int]]) -> np.ndarray:
    """``int32[N_TERMS, 2]`` from a ``{name: [mg, eg]}`` mapping that names every term once."""
    missing = [name for name in TERM_NAMES if name not in terms]
    unknown = [name for name in terms if name not in TERM_NAMES]
    if missing or unknown:
        raise WeightsError(f"weights file: {_names('missing', missing)}{_names('unknown', unknown)}".rstrip("; "))
    weights = np.zeros((N_TERMS, 2), dtype=np.int32)
    for slot, name in enumerate(TERM_NAMES):
        mg, eg = terms[name]
        weights[slot] = (int(mg), int(eg))
    return weights


def _names(what: str, names: list[str], shown: int = 4) -> str:
    if not names:
        return ""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"{what} terms {', '.join(names[:shown])}{more}; "


def weights_to_mapping(weights: np.ndarray) -> dict[str, list[int]]:
    """The ``{name: [mg, eg]}`` mapping of a weights file, from ``[N_TERMS, 2]`` weights (rounded to ints)."""
    return {name: [round(float(mg)), round(float(eg))] for name, (mg, eg) in zip(TERM_NAMES, weights)}


def psq_from_mapping(section: dict[str, dict[str, list[int]]]) -> np.ndarray:
    """``int32[2, 6, 64]`` piece-square values (mg/eg, piece type, square) from a weights file's ``psq`` section."""
    if sorted(section) != sorted(PIECE_NAMES):
        raise WeightsError(f"weights file: the psq section must name exactly {list(PIECE_NAMES)}")
    values = np.zeros((2, 6, 64), dtype=np.int32)
    for ptype, name in enumerate(PIECE_NAMES):
        for half, phase in enumerate(("mg", "eg")):
            squares = section[name].get(phase, [])
            if len(squares) != 64:
                raise WeightsError(f"weights file: psq {name} {phase} needs 64 values, not {len(squares)}")
            values[half, ptype] = [int(v) for v in squares]
    return values


def psq_to_mapping(values: np.ndarray) -> dict[str, dict[str, list[int]]]:
    """A weights file's ``psq`` section from ``[2, 6, 64]`` values (rounded to ints)."""
    rounded = np.rint(values).astype(np.int64)
    return {
        name: {"mg": rounded[0, ptype].tolist(), "eg": rounded[1, ptype].tolist()}
        for ptype, name in enumerate(PIECE_NAMES)
    }


def _read_weights_file(path: str | Path | None) -> dict:
    """The parsed JSON of a weights file (default: the shipped ``engine/data/eval_weights.json``)."""
    if path is None:
        text = resources.files("transpo.engine").joinpath("data", WEIGHTS_FILE).read_text()
    else:
        try:
            text = Path(path).read_text()
        except OSError as error:
            raise WeightsError(f"cannot read weights file {path}: {error.strerror}") from None
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("terms"), dict):
        raise WeightsError(f"weights file {path}: not a JSON object with a 'terms' mapping of [mg, eg] pairs")
    return parsed


def load_weights(path: str | Path | None = None) -> np.ndarray:
    """The evaluation weights of a JSON file (default: the shipped ``engine/data/eval_weights.json``).

    Raises :class:`WeightsError` with a one-line reason for a file that cannot be read or used.
    """
    try:
        return weights_from_mapping(_read_weights_file(path)["terms"])
    except (TypeError, ValueError) as error:
        if isinstance(error, WeightsError):
            raise
        raise WeightsError(f"weights file {path}: every term needs a pair [mg, eg] of integers") from None


def load_psq(path: str | Path | None = None) -> np.ndarray | None:
    """The piece-square values of a weights file's ``psq`` section, or None when it has none (PeSTO's then)."""
    section = _read_weights_file(path).get("psq")
    return None if section is None else psq_from_mapping(section)


DEFAULT_WEIGHTS = load_weights()
