"""The core: array board, Zobrist keys, legal move generation, make/unmake and perft."""
