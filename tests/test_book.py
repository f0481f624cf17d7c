"""Polyglot opening books: the reader against python-chess's, picking, the UCI options and ``transpo book``.

The books are written here, from a few short games whose positions are keyed by
python-chess (``chess.polyglot.zobrist_hash``): castling both ways and by both
sides, promotions (an underpromotion too), an en-passant key, moves repeated
under one key, weight 0, and entries no position can play (an illegal move, a
promotion field that names no piece, the null move ``a1a1``, a rook's ``e1h1``
that is no castling).  Where ``/usr/games/polyglot`` exists, a book made by
PolyGlot itself from a PGN written here is read too.
"""

from __future__ import annotations

import ast
import io
import os
import random
import shutil
import struct
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import chess.polyglot
import pytest
from conftest import UciPipe

from transpo.cli import main
from transpo.core.position import Position
from transpo.engine.book import Book, BookEntry, BookError, choose, decode_move
from transpo.uci import UCI

ENGINE_CMD = [sys.executable, "-m", "transpo.cli"]
PACKAGE = Path(__file__).resolve().parent.parent / "src" / "transpo"
POLYGLOT = "/usr/games/polyglot"

GAMES = {  # SAN; short lines that reach the moves the format treats specially
    "ruy lopez, both castle short": "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 O-O",
    "italian, transposed": "e4 e5 Nf3 Nf6 Bc4 Bc5 O-O O-O",
    "both castle long": "d4 d5 Nc3 Nc6 Bf4 Bf5 Qd2 Qd7 O-O-O O-O-O",
    "promotions": "e4 d5 exd5 c6 dxc6 Nf6 cxb7 Nbd7 bxa8=Q",
    "underpromotion": "e4 d5 exd5 c6 dxc6 Nf6 cxb7 Nbd7 bxc8=N",
    "en passant": "e4 a6 e5 d5 exd6 cxd6",
    "queen's gambit": "d4 d5 c4 e6 Nc3 Nf6",
}
ROOK_ON_E1 = "6k1/8/8/8/8/8/K7/4R3 w - - 0 1"  # e1h1 and e1a1 are rook moves here, not castling
BLOCKED_CASTLING = "r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1"  # e1h1 and e1a1 stand for castling, which is blocked


def polyglot_move(board: chess.Board, move: chess.Move) -> int:
    """PolyGlot's 16-bit move: to | from << 6 | promotion << 12, castling as the king taking its rook."""
    to = move.to_square
    if board.is_castling(move):
        to = chess.square(7 if chess.square_file(move.to_square) == 6 else 0, chess.square_rank(move.from_square))
    promotion = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}[move.promotion]
    return to | move.from_square << 6 | promotion << 12


def raw(text: str, promotion: int = 0) -> int:
    """A PolyGlot move written as squares (``e1h1``), with a raw promotion field."""
    return chess.parse_square(text[2:4]) | chess.parse_square(text[:2]) << 6 | promotion << 12


def write_book(path: Path, records: list[tuple[int, int, int, int]]) -> Path:
    """Write (key, move, weight, learn) records sorted by key (stable: equal keys keep their order)."""
    ordered = sorted(records, key=lambda record: record[0])
    path.write_bytes(b"".join(struct.pack(">QHHI", *record) for record in ordered))
    return path


def game_boards() -> list[tuple[str, list[chess.Move]]]:
    """Each game's name and moves."""
    games = []
    for name, sans in GAMES.items():
        board, moves = chess.Board(), []
        for san in sans.split():
            moves.append(board.push_san(san))
        games.append((name, moves))
    return games


def game_records() -> list[tuple[int, int, int, int]]:
    """One entry per move of every game (repeated openings give repeated key and move), weights varied."""
    records = []
    for g, (_, moves) in enumerate(game_boards()):
        board = chess.Board()
        for ply, move in enumerate(moves):
            weight = 1 + (7 * ply + 3 * g) % 23
            records.append((chess.polyglot.zobrist_hash(board), polyglot_move(board, move), weight, 1000 * ply + g))
            board.push(move)
    return records


def odd_records() -> list[tuple[int, int, int, int]]:
    """Entries a reader must handle: unplayable moves, weight 0, extreme fields, non-castling e1h1."""
    start = chess.polyglot.zobrist_hash(chess.Board())
    rook = chess.polyglot.zobrist_hash(chess.Board(ROOK_ON_E1))
    blocked = chess.polyglot.zobrist_hash(chess.Board(BLOCKED_CASTLING))
    return [
        (start, raw("e2e5"), 50, 1),  # illegal here (another position's move under a colliding key)
        (start, raw("g1f3", promotion=5), 40, 2),  # a promotion field that names no piece
        (start, 0, 30, 3),  # a1a1, "should simply be ignored"
        (start, raw("b1c3"), 0, 4),  # weight 0: listed, never played
        (start, raw("g2g3"), 65535, 0xFFFFFFFF),  # the largest fields
        (rook, raw("e1h1"), 5, 5),
        (rook, raw("e1a1"), 6, 6),
        (blocked, raw("e1h1"), 7, 7),  # O-O, illegal: the knight on g1 blocks it
        (blocked, raw("e1a1"), 8, 8),  # O-O-O, illegal: the knight on b1 blocks it
        (blocked, raw("e1f1"), 9, 9),
    ]


@pytest.fixture(scope="module")
def book_path(tmp_path_factory) -> Path:
    return write_book(tmp_path_factory.mktemp("book") / "test.bin", game_records() + odd_records())


def test_positions() -> list[tuple[chess.Board, Position]]:
    """Every position of every game (and one step off each), plus the odd FENs, as python-chess and Transpo see them."""
    pairs = []
    for _, moves in game_boards():
        board, position = chess.Board(), Position()
        for move in [*moves, None]:
            pairs.append((board.copy(), position.copy()))
            side = next(iter(board.legal_moves), None)
            if side is not None:  # a position the book does not know
                off_board, off_position = board.copy(), position.copy()
                off_board.push(side)
                off_position.push(side.uci())
                pairs.append((off_board, off_position))
            if move is not None:
                board.push(move)
                position.push(move.uci())
    for fen in (ROOK_ON_E1, BLOCKED_CASTLING):
        pairs.append((chess.Board(fen), Position.from_fen(fen)))
    return pairs


test_positions.__test__ = False  # a helper, not a test


def theirs(reader, board: chess.Board) -> list[tuple[str, int, int]]:
    return [(e.move.uci(), e.weight, e.learn) for e in reader.find_all(board, minimum_weight=0)]


def ours(entries: list[BookEntry]) -> list[tuple[str, int, int]]:
    return [(e.move_uci, e.weight, e.learn) for e in entries]


# --- the reader ------------------------------------------------------------------------------------


def test_entries_equal_python_chess_on_every_position(book_path):
    book = Book(book_path)
    assert len(book) == len(game_records()) + len(odd_records())
    found = Counter()
    with chess.polyglot.open_reader(book_path) as reader:
        for board, position in test_positions():
            assert position.key == chess.polyglot.zobrist_hash(board), board.fen()
            expected = theirs(reader, board)
            assert ours(book.entries(position)) == expected, board.fen()
            for move, _, _ in expected:
                found["castling" if board.is_castling(chess.Move.from_uci(move)) else "other"] += 1
                found["promotion"] += len(move) == 5
                found["en passant"] += board.is_en_passant(chess.Move.from_uci(move))
            found["positions in the book"] += bool(expected)
    assert found["castling"] >= 6 and found["promotion"] >= 2 and found["en passant"] >= 1, found
    assert found["positions in the book"] >= 40, found


def test_lookup_with_a_python_chess_board_equals_entries(book_path):
    """The UCI engine's cold-start path: key, moves and king square from python-chess."""
    book = Book(book_path)
    for board, position in test_positions():
        king = chess.square_name(board.king(board.turn))
        looked_up = book.lookup(chess.polyglot.zobrist_hash(board), (m.uci() for m in board.legal_moves), king)
        assert looked_up == book.entries(position), board.fen()


def test_repeated_moves_under_one_key_are_kept_in_file_order(book_path):
    entries = Book(book_path).entries(Position())
    moves = [entry.move_uci for entry in entries]
    assert moves.count("e2e4") == 5 and moves.count("d2d4") == 2, moves  # five games open 1.e4, two 1.d4
    assert [e.weight for e in entries if e.move_uci == "e2e4"] == [1, 4, 10, 13, 16]  # 1 + (3 * game) % 23


def test_unplayable_entries_are_left_out_but_stay_in_the_raw_entries(book_path):
    book = Book(book_path)
    start = Position()
    moves = {entry.move_uci for entry in book.entries(start)}
    assert {"e2e5", "g1f3", "a1a1"}.isdisjoint(moves) and {"b1c3", "g2g3"} <= moves
    assert len(book.raw_entries(start.key)) == len(book.entries(start)) + 3
    assert BookEntry("g2g3", 65535, 0xFFFFFFFF) in book.entries(start)
    assert ours(book.entries(Position.from_fen(ROOK_ON_E1))) == [("e1h1", 5, 5), ("e1a1", 6, 6)]
    assert ours(book.entries(Position.from_fen(BLOCKED_CASTLING))) == [("e1f1", 9, 9)]


def test_castling_is_translated_only_from_the_kings_square():
    assert decode_move(raw("e1h1"), "e1") == "e1g1" and decode_move(raw("e1a1"), "e1") == "e1c1"
    assert decode_move(raw("e8h8"), "e8") == "e8g8" and decode_move(raw("e8a8"), "e8") == "e8c8"
    assert decode_move(raw("e1h1"), "a2") == "e1h1"  # a rook on e1
    assert decode_move(raw("e8h8"), "e1") == "e8h8"  # the other side's corner
    assert decode_move(raw("a7a8", promotion=4), "e1") == "a7a8q"
    assert decode_move(raw("a7a8", promotion=6), "e1") is None


def test_a_key_with_its_top_bit_set_is_found(tmp_path):
    key = 0xFFFF_FFFF_FFFF_FFF0  # a float64 would round it onto its neighbours
    path = write_book(tmp_path / "top.bin", [(key - 1, 1, 1, 0), (key, 2, 2, 0), (key + 1, 3, 3, 0)])
    assert [int(r["weight"]) for r in Book(path).raw_entries(key)] == [2]
    assert len(Book(path).raw_entries(12345)) == 0


@pytest.mark.skipif(not os.path.exists(POLYGLOT), reason="PolyGlot is not installed")
def test_a_book_made_by_polyglot_reads_as_python_chess_reads_it(tmp_path):
    pgn = tmp_path / "games.pgn"
    with pgn.open("w") as out:
        for g, (name, moves) in enumerate(game_boards()):
            game = chess.pgn.Game.from_board(_played(moves))
            game.headers["Event"] = name
            game.headers["Result"] = ("1-0", "1/2-1/2", "0-1")[g % 3]
            print(game, file=out, end="\n\n")
    bin_path = tmp_path / "games.bin"
    made = subprocess.run(
        [POLYGLOT, "make-book", "-pgn", str(pgn), "-bin", str(bin_path), "-min-game", "1"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert made.returncode == 0 and bin_path.stat().st_size > 0, made.stdout + made.stderr
    book, played = Book(bin_path), 0
    with chess.polyglot.open_reader(bin_path) as reader:
        for board, position in test_positions():
            expected = theirs(reader, board)
            assert ours(book.entries(position)) == expected, board.fen()
            played += len(expected)
    assert played >= 20
    assert "e2e4" in {entry.move_uci for entry in book.entries(Position())}


def _played(moves: list[chess.Move]) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push(move)
    return board


# --- bad files -------------------------------------------------------------------------------------


def test_unusable_files_are_one_line_book_errors(tmp_path):
    records = [(5, 1, 1, 0), (3, 1, 1, 0)]
    unsorted = tmp_path / "unsorted.bin"
    unsorted.write_bytes(b"".join(struct.pack(">QHHI", *r) for r in records))
    (tmp_path / "short.bin").write_bytes(b"\0" * 20)
    (tmp_path / "empty.bin").write_bytes(b"")
    cases = {
        tmp_path / "missing.bin": "does not exist",
        tmp_path: "is a directory",
        tmp_path / "short.bin": "not a multiple of 16",
        tmp_path / "empty.bin": "is empty",
        unsorted: r"not sorted by key \(entry 1 ",
    }
    for path, fragment in cases.items():
        with pytest.raises(BookError, match=fragment) as caught:
            Book(path)
        assert "\n" not in str(caught.value) and isinstance(caught.value, ValueError)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_a_book_error(book_path, tmp_path):
    locked = shutil.copy(book_path, tmp_path / "locked.bin")
    os.chmod(locked, 0)
    with pytest.raises(BookError, match="cannot read"):
        Book(locked)


# --- picking ---------------------------------------------------------------------------------------


@pytest.fixture
def weighted_book(tmp_path) -> Book:
    start = chess.polyglot.zobrist_hash(chess.Board())
    moves = [("e2e4", 6), ("d2d4", 3), ("c2c4", 0), ("g1f3", 1), ("b1c3", 6)]
    return Book(write_book(tmp_path / "w.bin", [(start, raw(m), w, 0) for m, w in moves]))


def test_weighted_picks_follow_the_weights(weighted_book):
    rng = random.Random(20240601)
    counts = Counter(weighted_book.pick(Position(), rng=rng) for _ in range(8000))
    assert counts["c2c4"] == 0 and set(counts) == {"e2e4", "d2d4", "g1f3", "b1c3"}
    for move, weight in (("e2e4", 6), ("d2d4", 3), ("g1f3", 1), ("b1c3", 6)):
        assert abs(counts[move] / 8000 - weight / 16) < 0.02, counts


def test_weighted_picks_equal_python_chess_with_the_same_seed(weighted_book):
    """python-chess draws randint(0, total - 1) and walks the cumulative weights: the same rule."""
    with chess.polyglot.open_reader(weighted_book.path) as reader:
        for seed in range(200):
            expected = reader.weighted_choice(chess.Board(), random=random.Random(seed)).move.uci()
            assert weighted_book.pick(Position(), rng=random.Random(seed)) == expected


def test_best_mode_takes_the_heaviest_move_first_in_file_order(weighted_book):
    assert weighted_book.pick(Position(), mode="best") == "e2e4"  # b1c3 weighs as much, but comes later
    assert choose([BookEntry("a2a3", 0, 0)], "best") is None  # weight 0 is never played
    assert choose([], "weighted") is None
    assert Book(weighted_book.path).pick(Position.from_fen(ROOK_ON_E1)) is None
    with pytest.raises(ValueError, match="unknown book mode 'random'"):
        choose([BookEntry("a2a3", 1, 0)], "random")


# --- layering --------------------------------------------------------------------------------------


def test_the_book_loads_no_numba_and_nothing_compiled_imports_it():
    code = "import sys, transpo.engine.book, transpo.uci; print('numba' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert result.stdout.strip() == "False", result.stderr
    for path in [*(PACKAGE / "core").glob("*.py"), *(PACKAGE / "engine").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and path.name != "book.py":
                assert node.module != "transpo.engine.book", path  # so the numba cache may ignore book.py
            if isinstance(node, (ast.Import, ast.ImportFrom)) and path.name == "book.py":
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert not any(name.startswith("numba") for name in names)


# --- UCI -------------------------------------------------------------------------------------------


def _clean_env() -> dict:
    env = dict(os.environ)
    for name in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module")
def warm_cache():
    """Compile (or load) the engine once, so the engine processes below start from a warm cache."""
    from transpo.engine.engine import Engine
    from transpo.engine.timeman import Limits

    Engine(hash_mb=1).search(Position(), Limits(depth=2))


def test_uci_declares_the_book_options():
    out = io.StringIO()
    UCI(out).cmd_uci([])
    lines = out.getvalue().splitlines()
    assert "option name OwnBook type check default false" in lines
    assert "option name BookFile type string default <empty>" in lines
    assert "option name BookMode type combo default weighted var weighted var best" in lines


def test_uci_plays_the_book_move_through_python_chess(book_path, warm_cache):
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=120, env=_clean_env(), stderr=subprocess.PIPE)
    try:
        engine.configure({"OwnBook": True, "BookFile": str(book_path), "BookMode": "best"})
        board = chess.Board()
        started = time.monotonic()
        played = engine.play(board, chess.engine.Limit(time=60), info=chess.engine.INFO_ALL)
        # Without a search: well within the 60 s it was given, however loaded the machine is.
        assert time.monotonic() - started < 30
        assert played.move == chess.Move.from_uci("g2g3")  # the heaviest start move of the test book
        assert "book move g2g3" in played.info.get("string", "")
        board.push_san("e4")
        board.push_san("e5")  # 1.e4 e5 is in the book: 2.Nf3 (two games)
        assert engine.play(board, chess.engine.Limit(depth=3)).move == chess.Move.from_uci("g1f3")
        out_of_book = chess.Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
        played = engine.play(out_of_book, chess.engine.Limit(depth=3), info=chess.engine.INFO_ALL)
        assert played.move in out_of_book.legal_moves and "book" not in played.info.get("string", "")
        engine.configure({"OwnBook": False})
        played = engine.play(chess.Board(), chess.engine.Limit(depth=2), info=chess.engine.INFO_ALL)
        assert "book" not in played.info.get("string", "") and played.info.get("depth") == 2
    finally:
        engine.quit()


def test_a_bad_book_file_is_reported_and_the_engine_goes_on(book_path, tmp_path, warm_cache):
    engine = UciPipe(_clean_env(), ENGINE_CMD)
    try:
        engine.send("uci")
        engine.until("uciok", 60)[0]
        engine.send("setoption name OwnBook value true")
        engine.send(f"setoption name BookFile value {tmp_path / 'missing.bin'}")
        engine.send("isready")
        lines = engine.until("readyok", 60)[0]
        assert any(line.startswith("info string error: book file") and "does not exist; no book is used" in line
                   for line in lines), lines  # fmt: skip
        engine.send("position startpos")
        engine.send("go depth 2")
        lines = engine.until("bestmove", 60)[0]
        assert any(line.startswith("info depth 2") for line in lines) and not any("book" in line for line in lines)
        engine.send(f"setoption name BookFile value {book_path}")  # a good book after the bad one
        engine.send("setoption name BookMode value best")
        engine.send("go depth 2")
        lines = engine.until("bestmove", 60)[0]
        assert lines[-1] == "bestmove g2g3" and any("book move g2g3 weight 65535" in line for line in lines), lines
        engine.send("setoption name BookFile value <empty>")  # no book again
        engine.send("go depth 1")
        assert not any("book" in line for line in engine.until("bestmove", 60)[0])
        engine.send("quit")
        assert engine.process.wait(timeout=10) == 0
        assert "Traceback" not in engine.process.stderr.read()
    finally:
        if engine.process.poll() is None:
            engine.process.kill()


def _cold_uci(book_path: Path) -> tuple[UCI, io.StringIO]:
    """A UCI front end whose engine is 'still compiling' (it never comes): only the cold-start paths run."""
    out = io.StringIO()
    uci = UCI(out)
    uci.cold = True  # and uci.ready stays unset
    for line in ("setoption name OwnBook value true", f"setoption name BookFile value {book_path}"):
        uci.handle(line)
    return uci, out


def _handle_in_time(uci: UCI, line: str, seconds: float = 10) -> None:
    """Run one command; it must not wait for the engine (which never comes here)."""
    worker = threading.Thread(target=uci.handle, args=(line,), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{line!r} waited for the engine"


def test_book_moves_come_while_the_engine_compiles(book_path):
    uci, out = _cold_uci(book_path)
    uci.handle("setoption name BookMode value best")
    uci.handle("position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6")
    _handle_in_time(uci, "go depth 9")  # no clock: without the book it would wait for the engine
    uci._search_thread.join(5)
    lines = out.getvalue().splitlines()
    assert lines[-1] == "bestmove e1g1" and "info string book move e1g1 weight" in lines[-2], lines
    uci.handle("position startpos moves e2e4 a7a6 e4e5 d7d5")  # the en-passant key
    _handle_in_time(uci, "go wtime 1000 btime 1000")
    uci._search_thread.join(5)
    assert out.getvalue().splitlines()[-1] == "bestmove e5d6"


def test_a_book_move_under_go_ponder_waits_for_ponderhit(book_path):
    uci, out = _cold_uci(book_path)
    uci.handle("position startpos moves d2d4 d7d5")  # 3.c4 or 3.Nc3
    _handle_in_time(uci, "go ponder wtime 1000 btime 1000")
    time.sleep(0.2)
    (line,) = [line for line in out.getvalue().splitlines() if "book move" in line]
    move = line.split()[4]
    assert move in ("c2c4", "b1c3") and "bestmove" not in out.getvalue()
    uci.handle("ponderhit")
    uci._search_thread.join(5)
    assert out.getvalue().splitlines()[-1] == f"bestmove {move}"


def test_go_infinite_searches_even_in_the_book(book_path):
    uci, out = _cold_uci(book_path)
    _handle_in_time(uci, "go infinite")  # analysis: the quick search, not the book
    time.sleep(0.3)
    uci.handle("stop")
    uci._search_thread.join(10)
    text = out.getvalue()
    assert "bestmove" in text and "book move" not in text and "quick search" in text


# --- transpo book --------------------------------------------------------------------------------


def test_cli_lists_the_entries_heaviest_first(book_path, capsys):
    assert main(["book", str(book_path)]) == 0
    out = capsys.readouterr().out
    rows = [line.split("│")[1:-1] for line in out.splitlines() if line.startswith("│")]
    cells = [[cell.strip() for cell in row] for row in rows]
    total = 65535 + (1 + 4 + 10 + 13 + 16) + (7 + 19)  # g2g3, five games' e2e4, two games' d2d4
    assert cells[0] == ["g2g3", "g3", "65535", f"{100 * 65535 / total:.1f}%", "4294967295"]
    weights = [int(row[2]) for row in cells]
    assert weights == sorted(weights, reverse=True) and cells[-1][:3] == ["b1c3", "Nc3", "0"]
    assert "3 more stored under this key are not legal here" in out
    assert "key 0x463b96181691fc9c" in out


def test_cli_shows_castling_and_promotion_in_san(book_path, capsys):
    assert main(["book", str(book_path), "--moves", *["e2e4", "d7d5", "e4d5", "c7c6", "d5c6", "g8f6", "c6b7", "b8d7"]]) == 0
    out = capsys.readouterr().out
    assert "b7a8q" in out and "bxa8=Q" in out and "b7c8n" in out and "bxc8=N" in out
    board = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3"]:  # Black castles next
        board.push_san(san)
    assert main(["book", str(book_path), "--fen", board.fen()]) == 0
    out = capsys.readouterr().out
    assert "e8g8" in out and "O-O" in out


def test_cli_says_no_entries(book_path, capsys):
    assert main(["book", str(book_path), "--moves", "a2a3"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "no entries"
    assert main(["book", str(book_path), "--fen", BLOCKED_CASTLING, "--moves", "e1f1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "no entries"


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["book", "/nonexistent/book.bin"], "error: book file /nonexistent/book.bin does not exist"),
        (["book", "BOOK", "--moves", "e2e5"], "error: illegal move e2e5"),
        (["book", "BOOK", "--fen", "not a fen"], "error: "),
        (["book"], "error: the following arguments are required: FILE"),
    ],
)
def test_cli_errors_are_one_line(book_path, capsys, argv, fragment):
    argv = [str(book_path) if arg == "BOOK" else arg for arg in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(fragment) and captured.err.count("\n") == 1, captured.err


def test_cli_in_a_process(book_path):
    done = subprocess.run([*ENGINE_CMD, "book", str(book_path), "--moves", "d2d4"], capture_output=True, text=True,
                          timeout=120, env=_clean_env(), check=False)  # fmt: skip
    assert done.returncode == 0 and "d7d5" in done.stdout and "Traceback" not in done.stderr
    done = subprocess.run([*ENGINE_CMD, "book", str(book_path.parent)], capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip
    assert done.returncode == 2 and done.stderr.strip().endswith("is a directory") and done.stdout == ""
