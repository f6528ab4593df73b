#!/usr/bin/env bash
# Times `lakeshore schedule` on synthetic grid counties of N parcels (SYNTHETIC data).
#
#   bench/run.sh                 # N = 10000 100000 1000000 4700000
#   bench/run.sh 5000 50000      # other sizes
#
# Builds the release binary and the generator once, writes each bench county into a fresh temp
# folder (generation is timed separately and is not part of the reported number), then times
#   target/release/lakeshore schedule --config DIR/county.toml --as-of 2027-01-15 \
#       --out DIR/out --format csv
# and prints wall time and peak RSS as a table, then the same with the default formats (CSV and GeoJSON, no
# --format flag) as a row "N default". A failing run is reported, not fatal.
# KEEP=1 keeps the temp folders; AS_OF=YYYY-MM-DD changes the as-of date.
# DUCKDB=0 skips the comparison with DuckDB spatial (bench/duckdb_job.py, the same job in SQL). Otherwise a
# venv with the PyPI packages `duckdb` and `duckdb-ext-spatial` is made once in $BENCH_VENV
# (default ~/.cache/lakeshore-bench-venv) and DuckDB's time, peak and the ratio are reported beside ours.
# GPKG=1 also copies each county into one GeoPackage (examples/gpkg_county.rs; the copy is not timed) and
# times scheduling it from there, as a second row "N gpkg".
# GEOJSON=1 also writes the county with its parcels as GeoJSON (synth_county --parcels-format geojson: the
# same records, EPSG:2261 named by a crs member) and times scheduling it, as a row "N geojson" whose result
# gives the reader alone (examples/read_layer.rs on parcels.geojson, the fields the schedule keeps) in
# seconds and features/s, and says whether schedule.csv differs from the shapefile run's.
# RATIOS=0 skips timing every other command against `schedule` on each county (bench/ratios.sh, best of 3 up to
# 100k parcels, one run above): `buffer --distance 500`, `map` as PNG, SVG and HTML, `obligations`, `notices`
# and `workload`, printed as a second table; PEERS=0 leaves out their peers there: GEOS's buffer
# of the same shoreline and a GeoPandas + matplotlib map of the same county, from shapely, geopandas and
# matplotlib installed once into the same venv. With DuckDB available that table also times the buffer inventory
# as a DuckDB ST_DWithin query (bench/duckdb_buffer.py), and `obligations` and `notices` against `schedule`.
# BAD=0 leaves out the row "N bad": the same county with every parcel a bow-tie (synth_county --bad), each a
# problem in problems.csv and still scheduled, timed with --format csv beside the clean county; its result
# checks that problems.csv holds one problem for each parcel.
# ACROSS=PERMILLE (default 10; 0 leaves it out) adds the row "N across": the same county with PERMILLE systems
# in a thousand on the owner's lot across the road (synth_county --across), each parcel waiting in the run for
# the lot its system lies on, as a county's do; its result checks that no such point is reported.
# DEM=PIXELS also writes each county with a PIXELS x PIXELS DEM over it (synth_county --dem, uncompressed
# 256 x 256 tiles) and times scheduling from its contour, as a row "N dem PIXELS²" (the DEM is not timed).
set -u

cd "$(dirname "$0")/.." || exit 1
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(10000 100000 1000000 4700000)
as_of="${AS_OF:-2027-01-15}"
target_dir="$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])' 2>/dev/null)"
target_dir="${target_dir:-target}"
bin="$target_dir/release/lakeshore"
gen="${GEN:-$target_dir/release/examples/synth_county}"
to_gpkg="$target_dir/release/examples/gpkg_county"
read_layer="$target_dir/release/examples/read_layer"
# The parcel fields the schedule keeps from the bench county.
bench_fields=(SWIS PRINT_KEY MUNI_NAME PRIMARY_OW LOC_ST_NBR LOC_STREET SEWER_TYPE)

duck_py=""
if [ "${DUCKDB:-1}" != 0 ]; then
    venv="${BENCH_VENV:-$HOME/.cache/lakeshore-bench-venv}"
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import duckdb, duckdb_ext' 2>/dev/null; then
        echo "bench: installing duckdb and duckdb-ext-spatial into $venv ..." >&2
        python3 -m venv "$venv" && "$venv/bin/pip" install -q duckdb-ext-spatial >&2
    fi
    if "$venv/bin/python" -c 'import duckdb, duckdb_ext' 2>/dev/null; then
        duck_py="$venv/bin/python"
    else
        echo "bench: DuckDB spatial is not available; comparing nothing" >&2
    fi
fi

# The peers of `buffer` and `map` (bench/ratios.sh): shapely (GEOS), GeoPandas and matplotlib, in the same venv.
peer_py=""
if [ "${RATIOS:-1}" != 0 ] && [ "${PEERS:-1}" != 0 ]; then
    venv="${BENCH_VENV:-$HOME/.cache/lakeshore-bench-venv}"
    peers='import shapely, geopandas, matplotlib'
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "$peers" 2>/dev/null; then
        echo "bench: installing shapely, geopandas and matplotlib into $venv ..." >&2
        { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } &&
            "$venv/bin/pip" install -q shapely geopandas matplotlib >&2
    fi
    if "$venv/bin/python" -c "$peers" 2>/dev/null; then
        peer_py="$venv/bin/python"
    else
        echo "bench: GEOS and GeoPandas are not available; buffer and map are compared with schedule only" >&2
    fi
fi

echo "building release binary and generator..." >&2
# GEN=PATH takes the generator from there (the debug build `cargo test` made, say): the release examples build
# polars a second time, with the features their dev-dependencies ask.
examples=(--example synth_county --example gpkg_county --example read_layer)
[ -n "${GEN:-}" ] && examples=()
if ! cargo build --release --quiet --bin lakeshore "${examples[@]}"; then
    echo "bench: cargo build --release failed" >&2
    exit 1
fi

# measure, best_of
source bench/measure.sh

# Writes the variant NAME of the county of $n parcels (synth_county bench with the further arguments ARGS)
# into $dir/NAME and schedules it from its TOML file TOML with --format csv, as the row LABEL; sets code, wall
# and rss, and status: ok when the exit code is one of the words of ACCEPTED, else FAILED with the last line
# of the run. Returns 1, the row LABEL added as failed, when the variant cannot be written.
# Usage: run_variant NAME LABEL TOML ACCEPTED [ARGS...]
run_variant() {
    local name="$1" label="$2" toml="$3" accepted="$4"
    shift 4
    if ! "$gen" bench --parcels "$n" --out "$dir/$name" "$@" >"$dir/$name-generate.log" 2>&1; then
        rows+=("$label|-|-|-|-|-|-|$name county failed: $(tail -1 "$dir/$name-generate.log" | cut -c1-80)")
        return 1
    fi
    sync
    read -r code wall rss < <(measure "$dir/$name-schedule.log" "$bin" schedule \
        --config "$dir/$name/$toml" --as-of "$as_of" --out "$dir/$name/out" --format csv)
    if [[ " $accepted " == *" $code "* ]]; then
        status="ok (exit $code)"
    else
        status="FAILED (exit $code, $accepted expected): $(grep -v '^\s*$' "$dir/$name-schedule.log" | tail -1 | cut -c1-60)"
    fi
}

rows=()
ratio_rows=()
for n in "${sizes[@]}"; do
    dir="$(mktemp -d "${TMPDIR:-/tmp}/lakeshore-bench-$n-XXXXXX")"
    echo "N=$n: generating into $dir ..." >&2
    read -r gcode gwall _ < <(measure "$dir/generate.log" "$gen" bench --parcels "$n" --out "$dir")
    if [ "$gcode" != 0 ]; then
        echo "N=$n: generator failed (exit $gcode):" >&2
        tail -5 "$dir/generate.log" >&2
        rows+=("$n|$gwall|-|-|generator failed")
        continue
    fi
    # The generator's files are flushed to disk first, so that the kernel's writeback of them does not run
    # during the timed job; they stay in the page cache, as a county's files do once they have been read.
    sync
    echo "N=$n: scheduling ..." >&2
    read -r code wall rss < <(measure "$dir/schedule.log" "$bin" schedule --config "$dir/county.toml" \
        --as-of "$as_of" --out "$dir/out" --format csv)
    rows_out="-"
    [ -f "$dir/out/schedule.csv" ] && rows_out="$(($(wc -l <"$dir/out/schedule.csv") - 1))"
    # Exit code 2 means "done, with issues reported", which the bench data may well trigger.
    case "$code" in
        0) status="ok" ;;
        2) status="ok, issues reported (exit 2)" ;;
        *) status="FAILED (exit $code): $(grep -v '^\s*$' "$dir/schedule.log" | tail -1 | cut -c1-80)" ;;
    esac
    duck="-|-|-"
    if [ -n "$duck_py" ]; then
        echo "N=$n: the same job in DuckDB spatial ..." >&2
        read -r dcode dwall drss < <(measure "$dir/duckdb.log" "$duck_py" bench/duckdb_job.py "$dir" \
            "$dir/out/duckdb.csv" "$as_of")
        if [ "$dcode" = 0 ]; then
            duck="$dwall|$((drss / 1024))|$(python3 -c "print(f'{$dwall / max($wall, 0.001):.1f}x')")"
        else
            duck="failed|-|-"
        fi
    fi
    rows+=("$n|$gwall|$wall|$((rss / 1024))|$duck|$status, $rows_out rows")
    echo "N=$n: scheduling with the default formats (CSV and GeoJSON) ..." >&2
    read -r code wall rss < <(measure "$dir/default.log" "$bin" schedule --config "$dir/county.toml" \
        --as-of "$as_of" --out "$dir/default")
    case "$code" in
        0 | 2) status="ok (exit $code)" ;;
        *) status="FAILED (exit $code)" ;;
    esac
    cmp -s "$dir/out/schedule.csv" "$dir/default/schedule.csv" || status="$status, schedule.csv differs"
    rows+=("$n default|-|$wall|$((rss / 1024))|-|-|-|$status")
    if [ "${BAD:-1}" != 0 ]; then
        echo "N=$n: the county with every parcel bad ..." >&2
        if run_variant bad "$n bad" county.toml 2 --bad; then
            bowties="$(grep -c 'has an invalid polygon: Self-intersection' "$dir/bad/out/problems.csv" 2>/dev/null)"
            [ "${bowties:-0}" = "$n" ] || status="$status, ${bowties:-no} bow-ties in problems.csv for $n parcels"
            cmp -s <(cut -d, -f1 "$dir/out/schedule.csv") <(cut -d, -f1 "$dir/bad/out/schedule.csv") ||
                status="$status, other parcel ids than the clean county's"
            rows+=("$n bad|-|$wall|$((rss / 1024))|-|-|-|$status, a problem for each parcel")
        fi
        rm -rf "$dir/bad"
    fi
    if [ "${ACROSS:-10}" != 0 ]; then
        echo "N=$n: the county with ${ACROSS:-10} systems in a thousand across the road ..." >&2
        if run_variant across "$n across" county.toml "0 2" --across "${ACROSS:-10}"; then
            strays="$(grep -c 'its point lies on' "$dir/across/out/problems.csv" 2>/dev/null)"
            [ "${strays:-0}" = 0 ] || status="$status, $strays system points reported"
            cmp -s <(cut -d, -f1 "$dir/out/schedule.csv") <(cut -d, -f1 "$dir/across/out/schedule.csv") ||
                status="$status, other parcel ids than the clean county's"
            rows+=("$n across|-|$wall|$((rss / 1024))|-|-|-|$status, ${ACROSS:-10}‰ of systems across the road")
        fi
        rm -rf "$dir/across"
    fi
    if [ "${GPKG:-0}" = 1 ]; then
        echo "N=$n: copying into a GeoPackage and scheduling it ..." >&2
        if "$to_gpkg" "$dir/county.toml" "$dir/gpkg" >"$dir/gpkg.log" 2>&1; then
            read -r code wall rss < <(measure "$dir/gpkg-schedule.log" "$bin" schedule --config "$dir/gpkg/county.toml" \
                --as-of "$as_of" --out "$dir/gpkg/out" --format csv)
            case "$code" in
                0 | 2) status="ok (exit $code)" ;;
                *) status="FAILED (exit $code)" ;;
            esac
            cmp -s "$dir/out/schedule.csv" "$dir/gpkg/out/schedule.csv" || status="$status, schedule.csv differs"
            rows+=("$n gpkg|$gwall|$wall|$((rss / 1024))|-|-|-|$status")
        else
            rows+=("$n gpkg|-|-|-|-|-|-|GeoPackage copy failed: $(tail -1 "$dir/gpkg.log" | cut -c1-80)")
        fi
    fi
    if [ "${GEOJSON:-0}" = 1 ]; then
        echo "N=$n: writing the parcels as GeoJSON and scheduling ..." >&2
        gj="$dir/geojson"
        read -r jcode jgwall _ < <(measure "$dir/geojson-generate.log" "$gen" bench --parcels "$n" --out "$gj" \
            --parcels-format geojson)
        if [ "$jcode" = 0 ]; then
            read -r code wall rss < <(measure "$dir/geojson-schedule.log" "$bin" schedule --config "$gj/county.toml" \
                --as-of "$as_of" --out "$gj/out" --format csv)
            case "$code" in
                0 | 2) status="ok (exit $code)" ;;
                *) status="FAILED (exit $code)" ;;
            esac
            cmp -s "$dir/out/schedule.csv" "$gj/out/schedule.csv" || status="$status, schedule.csv differs"
            # "N features, ...: S s, F features/s, peak M MiB"
            reader="$("$read_layer" "$gj/parcels.geojson" "${bench_fields[@]}" 2>&1 | tail -1)"
            reader="$(sed -n 's/.*: \([0-9.]* s\), \([0-9]*\) features\/s.*/\1, \2 features\/s/p' <<<"$reader")"
            rows+=("$n geojson|$jgwall|$wall|$((rss / 1024))|-|-|-|$status; parcels read in ${reader:-?}")
        else
            rows+=("$n geojson|-|-|-|-|-|-|GeoJSON county failed: $(tail -1 "$dir/geojson-generate.log" | cut -c1-80)")
        fi
    fi
    if [ -n "${DEM:-}" ]; then
        echo "N=$n: writing a ${DEM} x ${DEM} DEM and scheduling from its contour ..." >&2
        if run_variant dem "$n dem ${DEM}²" county-dem.toml "0 2" --dem "$DEM"; then
            rows+=("$n dem ${DEM}²|-|$wall|$((rss / 1024))|-|-|-|$status")
        fi
        rm -rf "$dir/dem"
    fi
    if [ "${RATIOS:-1}" != 0 ]; then
        echo "N=$n: every other command against schedule and their peers ..." >&2
        # Best of 3 up to 100k parcels, one run above; GeoPandas draws up to 1M parcels.
        runs=3 peer_map=1
        [ "$n" -ge 1000000 ] && runs=1
        [ "$n" -gt 1000000 ] && peer_map=0
        while IFS= read -r line; do
            ratio_rows+=("$n|$line")
        done < <(RUNS="$runs" PEER_MAP="$peer_map" PEER_PY="$peer_py" DUCK_PY="$duck_py" DUTIES=1 MAPS=1 \
            BROWSER="${BROWSER:-1}" bench/ratios.sh "$bin" "$dir")
    fi
    if [ "${KEEP:-0}" = 1 ]; then
        echo "N=$n: kept $dir" >&2
    else
        rm -rf "$dir"
    fi
done

echo
echo "lakeshore schedule --as-of $as_of --format csv  ($(uname -m), $(nproc) CPUs)"
printf '%-15s | %-12s | %-12s | %-10s | %-12s | %-10s | %-13s | %s\n' "parcels" "generate (s)" \
    "schedule (s)" "peak (MiB)" "DuckDB (s)" "peak (MiB)" "DuckDB/ours" "result"
printf '%s\n' "----------------+--------------+--------------+------------+--------------+------------+---------------+-------"
for r in "${rows[@]}"; do
    IFS='|' read -r n g w m dw dm ratio s <<<"$r"
    printf '%-15s | %12s | %12s | %10s | %12s | %10s | %13s | %s\n' "$n" "$g" "$w" "$m" "$dw" "$dm" "$ratio" "$s"
done
if [ ${#ratio_rows[@]} -gt 0 ]; then
    echo
    echo "every other command against schedule --format csv, and their peers (best of 3 up to 100k, one run above;"
    echo "GeoPandas up to 1M parcels)"
    printf '%-9s | %-11s | %-8s | %-10s | %-12s | %-40s | %-8s | %s\n' "parcels" "command" "wall (s)" "peak (MiB)" \
        "/ schedule" "peer" "peer (s)" "peer / ours"
    printf '%s\n' "----------+-------------+----------+------------+--------------+------------------------------------------+----------+------------"
    for r in "${ratio_rows[@]}"; do
        IFS='|' read -r n c w m ratio peer pw pr <<<"$r"
        printf '%-9s | %-11s | %8s | %10s | %12s | %-40s | %8s | %s\n' "$n" "$c" "$w" "$m" "$ratio" "$peer" "$pw" "$pr"
    done
fi
