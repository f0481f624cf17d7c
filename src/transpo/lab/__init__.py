"""The hash lab: measurements of what Zobrist keys and the transposition table do to a search.

One module per command (``odds``, ``errors``, ``tt_gain``, ``crashes``, ``keys``);
:mod:`transpo.lab.common` holds the shared position set, parallel runner and report
output, and :mod:`transpo.lab.commands` wires them into ``transpo lab``.
The lab uses the engine; the engine never imports the lab.
"""
