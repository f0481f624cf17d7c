#!/usr/bin/env bash
# Print the command that runs Transpo at git revision REV, for `transpo match --engine base="..."`.
# Creates (once) a git worktree of REV under /tmp/transpo-rev-<sha> (or $TRANSPO_WORKTREES/...); the engine runs from its own
# sources (PYTHONPATH), and its numba cache lands in its own folder: the package names the cache
# folder after a hash of its core/ and engine/ sources (src/transpo/__init__.py); older revisions
# without that get NUMBA_CACHE_DIR=/tmp/transpo-rev-<sha>.nbc of their own.
#   transpo match --engine new="python3 -m transpo" --engine base="$(scripts/worktree-engine.sh 76655b1)" --games 100 --tc 5+0.05
set -euo pipefail
rev=${1:?usage: scripts/worktree-engine.sh REV}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
sha=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}") || { echo "error: no revision $rev" >&2; exit 2; }
dir=${TRANSPO_WORKTREES:-/tmp}/transpo-rev-${sha:0:12}
if [ ! -d "$dir" ]; then
  git -C "$root" worktree add --detach "$dir" "$sha" >&2
fi
cache=$dir.nbc
if grep -q _use_versioned_numba_cache "$dir/src/transpo/__init__.py" 2>/dev/null; then
  cache=${NUMBA_CACHE_DIR:-$HOME/.cache/transpo/numba}
  # Called from a Transpo process, NUMBA_CACHE_DIR may be that version's own folder: take its parent,
  # which every version's folder sits in (revisions before cabb969 would nest theirs inside it).
  [[ $(basename "$cache") =~ ^transpo-[0-9a-f]{16}$ ]] && cache=$(dirname "$cache")
fi
module=transpo
[ -f "$dir/src/transpo/__main__.py" ] || module=transpo.cli  # older revisions: no python -m transpo
command=(env PYTHONPATH="$dir/src" NUMBA_CACHE_DIR="$cache" "$(command -v python3)" -m "$module")
# Compile (once) before any game: on a cold cache the UCI engine answers with its small pure-Python
# search until its compile finishes, and on a loaded machine that took minutes of games.
# TRANSPO_WARMUP replaces the warm-up command (the tests use "perft 1": the core, not minutes of search).
read -r -a warmup <<< "${TRANSPO_WARMUP:-bench --depth 1}"
"${command[@]}" "${warmup[@]}" >/dev/null 2>&1 || echo "warning: a warm-up ${warmup[*]} of $rev failed" >&2
printf '%s\n' "${command[*]}"
