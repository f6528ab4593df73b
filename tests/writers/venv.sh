#!/usr/bin/env bash
# Creates or updates the Python venv of tests/writers/requirements.txt (GeoPandas, DuckDB: the writers the
# integration tests read files of) and prints its python, for LAKESHORE_WRITERS_PYTHON. .ci/run calls it.
#
#   export LAKESHORE_WRITERS_PYTHON="$(tests/writers/venv.sh)"
#
# Environment:
#   WRITERS_VENV    the venv to create or reuse (default ~/.cache/lakeshore-writers-venv, where the tests
#                   also look for it)
#   WRITERS_PYTHON  the Python that creates it (default python3)
set -euo pipefail
cd "$(dirname "$0")/../.."

venv="${WRITERS_VENV:-$HOME/.cache/lakeshore-writers-venv}"
requirements="tests/writers/requirements.txt"
if [ ! -x "$venv/bin/python" ]; then
    echo "writers: creating venv $venv" >&2
    "${WRITERS_PYTHON:-python3}" -m venv "$venv"
fi
# Installed only when requirements.txt (or the Python) changed since the last install.
stamp="$venv/.lakeshore-requirements.sha256"
want="$({ sha256sum "$requirements"; "$venv/bin/python" -VV; } | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    echo "writers: installing $requirements into $venv" >&2
    rm -f "$stamp"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: -r "$requirements" >&2
    echo "$want" >"$stamp"
fi
echo "$venv/bin/python"
