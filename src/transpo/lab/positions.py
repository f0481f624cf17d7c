"""The positions the lab searches: the built-in set, or an EPD/FEN file."""

from __future__ import annotations

from pathlib import Path

from transpo.core.position import Position

Positions = tuple[tuple[str, str], ...]  # (FEN, name) pairs

# The built-in position set: varied middlegames and endgames (FEN, name).
# Sources: well-known test positions (CPW perft positions, Fine #70, WAC-style tactics) and
# positions from master-game openings; all verified legal by Position.from_fen, and by python-chess
# (tests/test_lab_positions.py: Board.is_valid(), at most 8 pawns and 16 pieces a side).
# The opening positions are the boards after these moves (built with python-chess):
#   two knights     1.e4 e5 2.Nf3 Nc6 3.Bc4 Nf6
#   queen's gambit  1.d4 d5 2.c4 e6 3.Nc3 Nf6 4.Nf3 Be7 5.Bf4 O-O 6.e3 c5 7.dxc5 Bxc5
#   sicilian        1.e4 c5 2.Nf3 d6 3.d4 cxd4 4.Nxd4 Nf6 5.Nc3 a6 6.Bc4 e6 7.Bb3 b5 8.O-O Be7
#                   9.Be3 O-O 10.Qf3 Bb7 11.Qe2 Nbd7
# (Before 2026-11-30 three entries were wrong: "kiwipete" had 3PP3 for CPW's 3PN3, a ninth white
# pawn; "queen's gambit" had no white dark-squared bishop; "sicilian" had one black knight.)
DEFAULT_POSITIONS: Positions = (
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "start"),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "kiwipete"),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", "two knights"),
    ("rnbq1rk1/pp3ppp/4pn2/2bp4/2P2B2/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8", "queen's gambit"),
    ("r2q1rk1/1b1nbppp/p2ppn2/1p6/3NP3/1BN1B3/PPP1QPPP/R4RK1 w - - 8 12", "sicilian"),
    ("r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7", "giuoco piano"),
    ("2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 0 11", "symmetrical middlegame"),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", "cpw position 6"),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "cpw position 3 (rook endgame)"),
    ("8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1", "fine 70"),
    ("8/8/4k3/8/2p5/8/B2K4/8 w - - 0 1", "bishop v pawn"),
    ("8/5pk1/6p1/8/5P2/6PK/8/8 w - - 0 1", "pawn endgame"),
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "back-rank mate"),
    ("4r1k1/p4ppp/8/8/2q5/2P3Q1/P4PPP/4R1K1 w - - 0 1", "heavy pieces"),
    ("8/8/1k6/8/8/8/6K1/4R3 w - - 0 1", "KR v K"),
    ("2r3k1/5pp1/p3p2p/1p2P3/3R4/P1r3P1/5PKP/3R4 w - - 0 30", "double rook endgame"),
)


def load_positions(path: str | None) -> Positions:
    """(FEN, name) pairs from an EPD/FEN file (one per line, ``#`` comments), or the default set."""
    if path is None:
        return DEFAULT_POSITIONS
    positions = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        text = line.split(";")[0].strip()
        if not text or text.startswith("#"):
            continue
        fields = text.split()
        fen = " ".join(fields[:6]) if len(fields) >= 6 and fields[4].isdigit() else " ".join(fields[:4])
        try:
            Position.from_fen(fen)
        except ValueError as exc:  # InvalidFEN: the message says why
            raise ValueError(f"{path}:{number}: {exc}") from None
        positions.append((fen, f"{Path(path).name}:{number}"))
    if not positions:
        raise ValueError(f"{path} holds no positions")
    return tuple(positions)
