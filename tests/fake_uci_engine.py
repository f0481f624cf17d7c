#!/usr/bin/env python3
"""A tiny misbehaving UCI engine for the match tests (not a test module).

    fake_uci_engine.py MODE AFTER [PIDFILE]

It answers ``uci``/``isready`` and plays the first legal move (python-chess)
for ``AFTER`` searches; at the next ``go`` it misbehaves by MODE: ``crash``
(exits), ``hang`` (never answers again), ``illegal`` (answers a move that is not
legal), ``none`` (answers ``bestmove 0000``); ``ok`` never misbehaves; ``up`` and ``down``
play like ``ok`` but report +900 and -900 cp (for the score adjudication).  The count
restarts with every process.  PIDFILE: its pid is appended there.
"""

import sys
import time

import chess

mode, after = sys.argv[1], int(sys.argv[2])
if len(sys.argv) > 3:
    with open(sys.argv[3], "a") as handle:
        handle.write(f"{__import__('os').getpid()}\n")
board = chess.Board()
searches = 0
SCORES = {"up": 900, "down": -900}


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        say(f"id name fake-{mode}")
        say("uciok")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "position":
        if words[1] == "startpos":
            board, rest = chess.Board(), words[2:]
        else:
            board, rest = chess.Board(" ".join(words[2:8])), words[8:]
        for move in rest[1:] if rest and rest[0] == "moves" else []:
            board.push_uci(move)
    elif words[0] == "go":
        searches += 1
        if searches > after and mode == "crash":
            sys.exit(3)
        if searches > after and mode == "hang":
            while True:
                time.sleep(60)
        if searches > after and mode == "illegal":
            say("bestmove a1a8" if chess.Move.from_uci("a1a8") not in board.legal_moves else "bestmove h1h8")
            continue
        if searches > after and mode == "none":
            say("bestmove 0000")
            continue
        say(f"info depth 1 score cp {SCORES.get(mode, 0)}")
        say(f"bestmove {next(iter(board.legal_moves)).uci()}")
    elif words[0] == "quit":
        break
