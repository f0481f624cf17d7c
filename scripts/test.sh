#!/usr/bin/env bash
# Install Transpo with its test dependencies and the Ray extra (tests/test_executors.py), then run the default suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -e ".[test,ray]"
# sunfish pins an old python-chess; it is only an opponent, so install it without dependencies.
python3 -m pip install -q --no-deps sunfish
python3 -m pytest -q "$@"
