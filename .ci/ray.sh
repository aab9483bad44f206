#!/usr/bin/env bash
# CI, second step: the Ray backend and RLlib tests in their own virtualenv.
# RLlib pins gymnasium exactly (ray[rllib]==2.60.0 -> gymnasium==1.2.2, over the 1.4 of the main
# venv), so Ray is not in the main test venv; here it gets the package with the `ray` extra and
# runs the tests that need Ray plus the env/wrapper tests under RLlib's gymnasium.
# Call from .ci/run after the main step:  bash .ci/ray.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=.ci/lib.sh
. .ci/lib.sh
python3.11 -m venv .venv-ray-ci 2>/dev/null || python3 -m venv .venv-ray-ci
# shellcheck disable=SC1091
. .venv-ray-ci/bin/activate
pip_install -q --upgrade pip
pip_install torch==2.13.0 -e ".[train,search,dev,ray]"
python -m pytest -n 2 tests/experiments/test_ray_backend.py tests/agents/test_rllib.py \
    tests/test_wrappers.py tests/conformance
