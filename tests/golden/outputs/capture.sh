#!/usr/bin/env bash
# The SHA-256 of every output of the runs in commands.txt on one county, problems.csv and run.json (which holds
# the command line) excepted: of the bytes of
# the text outputs (CSV, GeoJSON, SVG, HTML, QML), and of what the binary ones hold (GeoPackage tables and rows,
# GeoParquet metadata and rows, PNG pixels) as `examples/read_back.rs` prints it, so that a new SQLite page
# layout, Parquet encoding or zlib level is no difference but a changed row, coordinate or CRS is.
#
#   tests/golden/outputs/capture.sh LAKESHORE_BIN READ_BACK_BIN COUNTY_TOML NAME          writes NAME.sha256
#   tests/golden/outputs/capture.sh --check LAKESHORE_BIN READ_BACK_BIN COUNTY_TOML NAME  fails unless they match
#   tests/golden/outputs/capture.sh --outputs DIR READ_BACK_BIN NAME                     writes NAME.sha256 from
#                                                                                         the runs' folders in DIR
#
# The digests were taken once, from the code as it was before the streaming pipeline (the read-backs from that
# code's outputs); every later version of the code is held to them (the `identical_outputs` tests for the
# samples, `.ci/run` for the 100k bench county).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

digests() { # DIR READ_BACK: one line per file, as sha256sum writes them, sorted by name
    (cd "$1" && find . -type f ! -name problems.csv ! -name run.json | sed 's|^\./||' | LC_ALL=C sort) | while read -r file; do
        case "$file" in
            *.gpkg | *.parquet | *.png) digest=$("$2" "$1/$file" | sha256sum) ;;
            *) digest=$(sha256sum <"$1/$file") ;;
        esac
        echo "${digest%% *}  $file"
    done
}

if [ "${1:-}" = --outputs ]; then
    digests "$(realpath "$2")" "$(realpath "$3")" >"$here/$4.sha256"
    wc -l "$here/$4.sha256"
    exit 0
fi
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
bin=$(realpath "$1"); read_back=$(realpath "$2"); config=$(realpath "$3"); name=$4
# GeoPackages record when they were written; a fixed time makes them comparable.
export SOURCE_DATE_EPOCH=1800000000
grep -v '^#' "$here/commands.txt" | while read -r run args; do
    [ -n "$run" ] || continue
    mkdir -p "$work/out/$run"
    # shellcheck disable=SC2086
    "$bin" ${args//\{out\}/$work/out/$run} --config "$config" --as-of 2027-01-15 -q 2>/dev/null || [ $? -eq 2 ]
done
digests "$work/out" "$read_back" >"$work/digests"
if [ "$check" = 1 ]; then
    if diff "$here/$name.sha256" "$work/digests"; then
        echo "$name: every output is identical to $name.sha256 (binary outputs as read back)"
    else
        echo "$name: outputs differ from $name.sha256 (lines with > are this build's); compare a binary output" \
            "with examples/read_back" >&2
        exit 1
    fi
else
    mv "$work/digests" "$here/$name.sha256"
    wc -l "$here/$name.sha256"
fi
