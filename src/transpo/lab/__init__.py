"""The hash lab: measurements of what Zobrist keys and the transposition table do to a search.

The spine, shared by every experiment:

* :mod:`~transpo.lab.options` - the common options, list syntax, ranges and output paths, checked once;
* :mod:`~transpo.lab.positions` - the built-in position set and EPD/FEN files;
* :mod:`~transpo.lab.runner` - the typed search job and record, the executor (local or Ray), the warm-up;
* :mod:`~transpo.lab.stats` - geometric mean, Poisson intervals, slopes;
* :mod:`~transpo.lab.claims` - claims as data and the verdicts computed from them;
* :mod:`~transpo.lab.report` - the ``transpo-lab/1`` report, its tables, ``--json`` and ``--plot``.

The experiments, one command each and none importing another: ``odds``, ``keys``
(:mod:`~transpo.lab.keyquality`), ``errors``, ``tt-gain`` (:mod:`~transpo.lab.tt_gain`)
and ``crashes``; :mod:`~transpo.lab.commands` registers them under ``transpo lab``.
The lab uses the engine; the engine never imports the lab.
"""
