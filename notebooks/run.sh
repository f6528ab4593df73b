#!/usr/bin/env bash
# Executes notebooks/sample_county.ipynb headless and fails if any cell fails. CI runs it from .ci/run.
#
#   notebooks/run.sh
#
# Environment:
#   NOTEBOOK_VENV            the Python venv to create or reuse (default ~/.cache/lakeshore-notebook-venv)
#   NOTEBOOK_PYTHON          the Python that creates it (default python3; requirements.txt pins CPython 3.11)
#   CARGO_TARGET_DIR         where `cargo build --release` puts the binary (default target/)
#   LAKESHORE_BIN            a lakeshore binary (or command) to use instead of building one
#   LAKESHORE_NOTEBOOK_OUT   where lakeshore's outputs, the PNGs and the executed notebook go
#                            (default notebooks/out/; the committed notebook is never overwritten)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

venv="${NOTEBOOK_VENV:-$HOME/.cache/lakeshore-notebook-venv}"
requirements="notebooks/requirements.txt"
notebook="notebooks/sample_county.ipynb"
out="${LAKESHORE_NOTEBOOK_OUT:-notebooks/out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
export LAKESHORE_NOTEBOOK_OUT="$out"

# 1. The venv, installed only when requirements.txt (or the Python) changed since the last install.
if [ ! -x "$venv/bin/python" ]; then
    echo "notebook: creating venv $venv"
    "${NOTEBOOK_PYTHON:-python3}" -m venv "$venv"
fi
stamp="$venv/.lakeshore-requirements.sha256"
want="$({ sha256sum "$requirements"; "$venv/bin/python" -VV; } | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    echo "notebook: installing $requirements into $venv"
    rm -f "$stamp"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: -r "$requirements"
    # The kernel the notebook names (python3), pointing at this venv's python.
    "$venv/bin/python" -m ipykernel install --prefix "$venv" --name python3 --display-name "Python 3 (lakeshore)" >/dev/null
    echo "$want" >"$stamp"
else
    echo "notebook: venv $venv is up to date"
fi
# Look for kernels in the venv first, so a python3 kernel installed elsewhere (~/.local) cannot take over.
export JUPYTER_PATH="$venv/share/jupyter"
export JUPYTER_PLATFORM_DIRS=1

# 2. The binary, built once here so that the notebook's three runs do not each go through cargo.
if [ -z "${LAKESHORE_BIN:-}" ]; then
    echo "notebook: cargo build --release"
    cargo build --release --quiet
    bin="${CARGO_TARGET_DIR:-target}/release/lakeshore"
    case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac
    [ -x "$bin" ] || { echo "notebook: no binary at $bin after the build" >&2; exit 1; }
    export LAKESHORE_BIN="$(printf '%q' "$bin")"  # the notebook splits it like a shell would
fi
echo "notebook: LAKESHORE_BIN=$LAKESHORE_BIN"

# 3. Execute the notebook in notebooks/ (its working folder under Jupyter too); keep the executed copy in $out.
# The kernel talks over Unix sockets in a private temp folder rather than TCP ports on localhost.
executed="$out/sample_county.executed.ipynb"
sockets="$(mktemp -d)"
trap 'rm -rf "$sockets"' EXIT
echo "notebook: executing $notebook -> $executed"
"$venv/bin/python" - "$notebook" "$executed" "$sockets" <<'PY'
import sys
import time

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

source, executed, sockets = sys.argv[1:4]
nb = nbformat.read(source, as_version=4)
km = KernelManager(kernel_name="python3", transport="ipc", ip=f"{sockets}/kernel")
client = NotebookClient(nb, km=km, timeout=600, kernel_name="python3",
                        resources={"metadata": {"path": "notebooks"}})
started = time.monotonic()
try:
    client.execute()
except CellExecutionError:
    for index, cell in enumerate(nb.cells):
        if any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
            print(f"notebook: cell {index} failed (execution {cell.get('execution_count')}): {first}",
                  file=sys.stderr)
    raise
finally:
    nbformat.write(nb, executed)
    if km.has_kernel:  # nbclient leaves a kernel manager it was given running
        km.shutdown_kernel(now=True)
print(f"notebook: {len(nb.cells)} cells ran in {time.monotonic() - started:.1f} s; executed copy in {executed}")
PY
