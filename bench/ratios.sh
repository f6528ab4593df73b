#!/usr/bin/env bash
# Times `lakeshore schedule`, `buffer` and `map` on one county and prints each against `schedule` (a ratio, not
# a time: the machine's speed cancels out). Each is the best of 3 runs (RUNS=k changes it).
#
#   bench/ratios.sh LAKESHORE_BIN COUNTY_DIR [MAX_RATIO]
#
# With MAX_RATIO the script exits 1 when `buffer` or `map` takes more than MAX_RATIO times as long as `schedule`
# (.ci/run gives 5 on a 10,000-parcel bench county). With PEER_PY set to a Python that has shapely 2, GeoPandas
# and matplotlib, it also times the peers in the same run: GEOS's buffer of the shoreline (bench/geos_buffer.py,
# the operation alone, in its process) beside our buffer polygon stage (`buffer -v`, "buffer: polygon"), and a
# GeoPandas + matplotlib map of the same county (bench/geopandas_map.py, the whole process) beside `map`. With
# DUCK_PY set to a Python that has DuckDB spatial, the buffer inventory is timed as a DuckDB query too
# (bench/duckdb_buffer.py, the whole process); PEER_MAP=0 leaves out GeoPandas (the bench stops it above 1M
# parcels, where it takes many minutes). DUTIES=1 also times `obligations --format csv`, `notices --format csv`
# (its letters and labels too) and `workload`; MAPS=1 the SVG map and the HTML map (tiled above a county's size),
# and with BROWSER=1 that page opened in headless Chromium (its own clock: data-ready, a view, a filter).
# Prints rows "command|wall s|peak MiB|ratio to schedule|peer|peer s|peer/ours (how many times faster we are)".
set -u
cd "$(dirname "$0")/.." || exit 1
bin="$1" dir="$2" max="${3:-}"
runs="${RUNS:-3}"
as_of="${AS_OF:-2027-01-15}"
# measure, best_of
source bench/measure.sh

common=(--config "$dir/county.toml" --as-of "$as_of" -q)
read -r scode swall srss < <(best_of "$runs" "$dir/ratio-schedule.log" "$bin" schedule "${common[@]}" \
    --out "$dir/ratio-out" --format csv)
read -r bcode bwall brss < <(best_of "$runs" "$dir/ratio-buffer.log" "$bin" buffer "${common[@]}" \
    --out "$dir/ratio-out" --format csv --distance 500)
read -r mcode mwall mrss < <(best_of "$runs" "$dir/ratio-map.log" "$bin" map "${common[@]}" \
    --out "$dir/ratio-out/map.png")
# The other commands, each best of RUNS, in rows "name code wall rss" (DUTIES=1: obligations, notices and workload;
# MAPS=1: the SVG map and the HTML map, tiled above a county's size as `map` decides).
others=()
time_other() {
    local name="$1"; shift
    local code wall rss
    read -r code wall rss < <(best_of "$runs" "$dir/ratio-$name.log" "$bin" "$@" "${common[@]}")
    others+=("$name $code $wall $rss")
}
if [ "${DUTIES:-0}" = 1 ]; then
    time_other obligations obligations --out "$dir/ratio-out" --format csv
    time_other notices notices --out "$dir/ratio-out" --format csv --year "${as_of%%-*}"
    time_other workload workload --out "$dir/ratio-out"
fi
if [ "${MAPS:-0}" = 1 ]; then
    time_other map-svg map --out "$dir/ratio-out/map.svg"
    time_other map-html map --out "$dir/ratio-out/map.html"
fi
failed=0
for c in "schedule $scode" "buffer $bcode" "map $mcode" "${others[@]}"; do
    set -- $c
    case "$2" in
        0 | 2) ;;
        *) echo "ratios: $1 failed (exit $2); see $dir/ratio-$1.log" >&2; failed=1 ;;
    esac
done
[ "$failed" = 0 ] || exit 1
ratio() { python3 -c "print(f'{$1 / max($2, 0.001):.1f}')"; }
buffer_ratio="$(ratio "$bwall" "$swall")" map_ratio="$(ratio "$mwall" "$swall")"

geos="-|-|-" peer_map="-|-|-" duck_buffer=""
if [ -n "${DUCK_PY:-}" ]; then
    # The same inventory as a DuckDB spatial query (the whole process, as `buffer` is timed whole).
    read -r dcode dwall _ < <(best_of "$runs" "$dir/ratio-duckdb-buffer.log" "$DUCK_PY" bench/duckdb_buffer.py \
        "$dir" "$dir/ratio-out/duckdb-buffer.csv" 500)
    [ "$dcode" = 0 ] && duck_buffer="DuckDB ST_DWithin inventory|$dwall|$(ratio "$dwall" "$bwall")x"
fi
if [ -n "${PEER_PY:-}" ]; then
    # Our polygon stage, from the stage table of one more run.
    "$bin" buffer --config "$dir/county.toml" --as-of "$as_of" --out "$dir/ratio-out" --format csv \
        --distance 500 -v >"$dir/ratio-buffer-v.log" 2>&1
    ours_polygon="$(awk '/buffer: polygon/ {for (i = 1; i <= NF; i++) if ($i == "s") {print $(i - 1); exit}}' \
        "$dir/ratio-buffer-v.log")"
    geos_s="$("$PEER_PY" bench/geos_buffer.py time "$dir/shoreline.shp" 500 2>"$dir/ratio-geos.log")"
    if [ -n "$geos_s" ] && [ -n "$ours_polygon" ]; then
        geos="GEOS buffer polygon: ours ${ours_polygon} s|$geos_s|$(ratio "$geos_s" "$ours_polygon")x"
    fi
    if [ "${PEER_MAP:-1}" = 1 ]; then
        read -r pcode pwall _ < <(best_of "$runs" "$dir/ratio-geopandas.log" "$PEER_PY" bench/geopandas_map.py \
            "$dir" "$dir/ratio-out/geopandas.png")
        [ "$pcode" = 0 ] && peer_map="GeoPandas + matplotlib|$pwall|$(ratio "$pwall" "$mwall")x"
    fi
fi
echo "schedule|$swall|$((srss / 1024))|1.0x|-|-|-"
echo "buffer|$bwall|$((brss / 1024))|${buffer_ratio}x|$geos"
[ -n "$duck_buffer" ] && echo "buffer|$bwall|$((brss / 1024))|${buffer_ratio}x|$duck_buffer"
echo "map|$mwall|$((mrss / 1024))|${map_ratio}x|$peer_map"
for c in "${others[@]}"; do
    read -r name _ wall rss <<<"$c"
    echo "$name|$wall|$((rss / 1024))|$(ratio "$wall" "$swall")x|-|-|-"
done
# BROWSER=1: the HTML map opened from disk in headless Chromium (tests/it/map_browser.rs, measure_map_load_time):
# the time to data-ready, a tiled page's first view of parcels, and the overdue filter on and off.
if [ "${BROWSER:-0}" = 1 ] && [ "${MAPS:-0}" = 1 ]; then
    LAKESHORE_MAP_HTML="$dir/ratio-out/map.html" cargo test --quiet --test it \
        map_browser::measure_map_load_time -- --ignored --nocapture --exact >"$dir/ratio-browser.log" 2>&1
    ready="$(sed -n 's/.*data-ready after \([0-9]*\) ms.*/\1/p' "$dir/ratio-browser.log")"
    view="$(sed -n 's/^a view at zoom \([0-9]*\): \(.*\) after \([0-9]*\) ms/zoom \1: \2 in \3 ms; /p' "$dir/ratio-browser.log")"
    filter="$(sed -n 's/^overdue filter on \([0-9]*\) ms, off \([0-9]*\) ms/overdue filter \1 \/ \2 ms/p' "$dir/ratio-browser.log")"
    if [ -n "$ready" ]; then
        echo "map-html in Chromium|$(python3 -c "print(f'{$ready / 1000:.2f}')")|-|-|data-ready; ${view}${filter}|-|-"
    else
        echo "ratios: the HTML map could not be measured in Chromium; see $dir/ratio-browser.log" >&2
    fi
fi
if [ -n "$max" ]; then
    over="$(python3 -c "print(int($buffer_ratio > $max or $map_ratio > $max))")"
    if [ "$over" = 1 ]; then
        echo "ratios: buffer takes ${buffer_ratio}x and map ${map_ratio}x the time of schedule on $dir;" \
            "each must stay within ${max}x" >&2
        exit 1
    fi
    echo "ratios: buffer ${buffer_ratio}x, map ${map_ratio}x the time of schedule (limit ${max}x)"
fi
