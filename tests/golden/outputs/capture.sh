#!/usr/bin/env bash
# The SHA-256 of every output of the runs in commands.txt on one county, problems.csv excepted.
#
#   tests/golden/outputs/capture.sh LAKESHORE_BIN COUNTY_TOML NAME          writes NAME.sha256
#   tests/golden/outputs/capture.sh --check LAKESHORE_BIN COUNTY_TOML NAME  fails unless they match it
#
# The digests were taken once, from the code as it was before the streaming pipeline; every later version of
# the code is held to them (the `identical_outputs` tests for the samples, `.ci/run` for the 100k bench county).
set -euo pipefail
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
bin=$(realpath "$1"); config=$(realpath "$2"); name=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# GeoPackages record when they were written; a fixed time makes them comparable.
export SOURCE_DATE_EPOCH=1800000000
grep -v '^#' "$here/commands.txt" | while read -r run args; do
    [ -n "$run" ] || continue
    mkdir -p "$work/out/$run"
    # shellcheck disable=SC2086
    "$bin" ${args//\{out\}/$work/out/$run} --config "$config" --as-of 2027-01-15 -q 2>/dev/null || [ $? -eq 2 ]
done
(cd "$work/out" && find . -type f ! -name problems.csv | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum) >"$work/digests"
if [ "$check" = 1 ]; then
    if diff "$here/$name.sha256" "$work/digests"; then
        echo "$name: every output is byte-identical to $name.sha256"
    else
        echo "$name: outputs differ from $name.sha256 (lines with > are this build's)" >&2
        exit 1
    fi
else
    mv "$work/digests" "$here/$name.sha256"
    wc -l "$here/$name.sha256"
fi
