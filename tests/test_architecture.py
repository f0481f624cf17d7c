"""The layering rules of docs/ARCHITECTURE.md, checked on the source.

* Arrows point down: core <- engine <- tools <- lab <- cli/uci; the core never imports the
  engine, the engine never imports the lab, the tools or the user-facing layer; the
  tools (matches, test suites) never import the lab, which may use them (``lab games``
  measures by matches).
* No lab experiment imports another experiment, only the lab's spine (and its own helper module).
* One boundary to compiled code per part: the lab, the CLI and the UCI module never
  name a numba-compiled function of the core or the engine (they use ``Position``,
  ``Engine`` and ``TranspositionTable``).
* ``transpo.executors`` (where jobs run, used by both the lab and the tools) imports no
  other Transpo module.
* The plain-Python modules load no numba (so ``uci`` is answered at once).
* Nothing in the repository points outside it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest
from numba.core.registry import CPUDispatcher

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "transpo"
SPINE = {"options", "positions", "runner", "stats", "claims", "report", "commands", "__init__"}
HELPERS = {"keysums": {"keyquality"}}  # a part of one experiment in its own module: only that experiment imports it


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import in the file, functions' local imports included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
    return found


def _files(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).glob("*.py")) if layer else [PACKAGE / "cli.py", PACKAGE / "uci.py"]


@pytest.mark.parametrize(
    "layer, forbidden",
    [
        ("core", ("transpo.engine", "transpo.lab", "transpo.tools", "transpo.cli", "transpo.uci")),
        ("engine", ("transpo.lab", "transpo.tools", "transpo.cli", "transpo.uci")),
        ("lab", ("transpo.cli", "transpo.uci")),
        ("tools", ("transpo.lab", "transpo.cli", "transpo.uci")),
    ],
)
def test_arrows_point_down(layer, forbidden):
    for path in _files(layer):
        for module, _ in _imports(path):
            assert not module.startswith(forbidden), f"{path.name} imports {module}"


def test_the_executors_import_no_other_part():
    for module, _ in _imports(PACKAGE / "executors.py"):
        assert not module.startswith("transpo"), f"executors.py imports {module}"


def test_no_experiment_imports_another():
    for path in _files("lab"):
        for module, _ in _imports(path):
            if module.startswith("transpo.lab."):
                name = module.split(".")[-1]
                allowed = name in SPINE or path.stem in HELPERS.get(name, ())
                assert allowed, f"lab/{path.name} imports the experiment {module}"


@pytest.mark.parametrize("layer", ["lab", "tools", ""])
def test_front_ends_call_no_compiled_function(layer):
    for path in _files(layer):
        for module, names in _imports(path):
            if not module.startswith(("transpo.core", "transpo.engine")):
                continue
            imported = import_module(module)
            for name in names:
                value = getattr(imported, name, None)
                assert not isinstance(value, CPUDispatcher), f"{path.name} imports the compiled {module}.{name}"


def test_plain_python_modules_load_no_numba():
    code = (
        "import sys; import transpo.settings, transpo.uci, transpo.cli, transpo.core.fen, transpo.core.board; "
        "import transpo.tools.commands, transpo.tools.match, transpo.tools.stats, transpo.tools.openings; "
        "import transpo.executors; "
        "print('numba' in sys.modules or 'ray' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_nothing_points_outside_the_repository():
    outside = "../" + "shared"
    for path in [*ROOT.glob("*.md"), *ROOT.glob("docs/**/*.md"), *PACKAGE.rglob("*.py"), *ROOT.glob("tests/*.py"),
                 *ROOT.glob("benchmarks/*")]:  # fmt: skip
        if path.is_file():
            assert outside not in path.read_text(errors="replace"), path
