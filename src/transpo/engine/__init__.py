"""The engine: transposition table, move ordering, search, evaluation, time control and UCI."""
