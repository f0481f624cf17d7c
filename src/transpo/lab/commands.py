"""``transpo lab ...``: one subcommand per experiment module.

Each experiment exposes ``add_parser(subparsers)``, which registers its
subcommand with ``func`` set to its ``run(args)``.  The lab modules are
imported only when ``transpo lab`` is used, so the engine's start-up stays fast.
"""

from __future__ import annotations

import argparse
from importlib import import_module

EXPERIMENTS = (
    "transpo.lab.odds",
    "transpo.lab.errors",
    "transpo.lab.tt_gain",
    "transpo.lab.crashes",
    "transpo.lab.keyquality",
    "transpo.lab.torn",
    "transpo.lab.games",
)


def add_lab_parser(subparsers: argparse._SubParsersAction, parser_class: type[argparse.ArgumentParser]) -> None:
    """Register ``lab`` and its subcommands."""
    lab = subparsers.add_parser("lab", help="the hash lab: crash odds, false hits, table gain, key quality, torn entries, game results")
    commands = lab.add_subparsers(dest="lab_command", parser_class=parser_class, required=True)
    for name in EXPERIMENTS:
        import_module(name).add_parser(commands)
