#!/usr/bin/env bash
# The suite against the oldest supported PettingZoo (1.24): a throwaway venv with only
# numpy, gymnasium and pettingzoo==1.24.*, then experiments/examples/pettingzoo_compat_smoke.py.
# Usage: experiments/examples/check_pettingzoo_compat.sh [venv dir, default /tmp/pz124]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${1:-/tmp/pz124}"
[ -x "$venv/bin/python" ] || python3.11 -m venv "$venv"
"$venv/bin/pip" install -q "pettingzoo==1.24.*" numpy gymnasium
cd "$root"
PYTHONPATH="$root" "$venv/bin/python" -W ignore -m experiments.examples.pettingzoo_compat_smoke
