"""The engine: transposition table, move ordering, search, evaluation, time control and the bench.

Arrows point down: the engine imports the core and ``transpo.settings``, never the lab,
the tools or the user-facing layer (``transpo.cli``, ``transpo.uci``).
"""
