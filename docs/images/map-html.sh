#!/usr/bin/env bash
# Regenerates docs/images/map-html.png, the README's screenshot of the interactive HTML map of the SYNTHETIC
# sample county: builds lakeshore, writes the map and photographs it in headless Chromium (1400 x 900).
#
#   bash docs/images/map-html.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --bin lakeshore
target_dir="$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# The sample has bad records on purpose: exit code 2 is expected.
"$target_dir/debug/lakeshore" map --config data/sample/county.toml --as-of 2027-01-15 --format html \
    --out "$tmp/map.html" -q || [ $? -eq 2 ]
chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome)}"
# The page draws within its first frames; the virtual time budget lets them run before the picture.
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1400,900 --virtual-time-budget=5000 \
    --screenshot="$PWD/docs/images/map-html.png" "file://$tmp/map.html" 2>/dev/null
echo "wrote docs/images/map-html.png"
