#!/usr/bin/env bash
# Install Transpo with its test dependencies and run the default test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q -e ".[test]"
# sunfish pins an old python-chess; it is only an opponent, so install it without dependencies.
python3 -m pip install -q --no-deps sunfish
python3 -m pytest -q "$@"
