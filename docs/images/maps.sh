#!/usr/bin/env bash
# Regenerates the README's pictures of the SYNTHETIC sample county's maps: docs/images/map-county.png (by status,
# whole county), docs/images/map-owasco.png (the Town of Owasco by tier), both 1200 x 900, and
# docs/images/map-html.png, the interactive HTML map photographed in headless Chromium (1400 x 900).
#
#   bash docs/images/maps.sh
#
# LAKESHORE=path/to/lakeshore uses that binary instead of building the debug one.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${LAKESHORE:-}"
if [ -z "$bin" ]; then
    cargo build --quiet --bin lakeshore
    target_dir="$(cargo metadata --format-version 1 --no-deps |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
    bin="$target_dir/debug/lakeshore"
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Exit code 2 ("done, with problems reported") is accepted: the pictures are of the maps, not of the problems.
map() { "$bin" map --config data/sample/county.toml --as-of 2027-01-15 -q "$@" || [ $? -eq 2 ]; }
# Each map is written in a folder of its own (with its run.json and problems.csv) and the picture copied.
map --by status --width 1200 --height 900 --out "$tmp/county/map.png"
map --by tier --town Owasco --width 1200 --height 900 --out "$tmp/owasco/map.png"
cp "$tmp/county/map.png" docs/images/map-county.png
cp "$tmp/owasco/map.png" docs/images/map-owasco.png
map --format html --out "$tmp/map.html"
chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome)}"
# The page draws within its first frames; the virtual time budget lets them run before the picture.
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1400,900 --virtual-time-budget=5000 \
    --screenshot="$PWD/docs/images/map-html.png" "file://$tmp/map.html" 2>/dev/null
echo "wrote docs/images/map-county.png, map-owasco.png and map-html.png"
