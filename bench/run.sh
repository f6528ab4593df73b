#!/usr/bin/env bash
# Times `lakeshore schedule` on synthetic grid counties of N parcels (SYNTHETIC data).
#
#   bench/run.sh                 # N = 10000 100000 1000000
#   bench/run.sh 5000 50000      # other sizes
#
# Builds the release binary and the generator once, writes each bench county into a fresh temp
# folder (generation is timed separately and is not part of the reported number), then times
#   target/release/lakeshore schedule --config DIR/county.toml --as-of 2027-01-15 \
#       --out DIR/out --format csv
# and prints wall time and peak RSS as a table. A failing run is reported, not fatal.
# KEEP=1 keeps the temp folders; AS_OF=YYYY-MM-DD changes the as-of date. GPKG=1 also copies each county
# into one GeoPackage (examples/gpkg_county.rs; the copy is not timed) and times scheduling it from there,
# as a second row "N gpkg".
set -u

cd "$(dirname "$0")/.." || exit 1
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(10000 100000 1000000)
as_of="${AS_OF:-2027-01-15}"
target_dir="$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])' 2>/dev/null)"
target_dir="${target_dir:-target}"
bin="$target_dir/release/lakeshore"
gen="$target_dir/release/examples/synth_county"
to_gpkg="$target_dir/release/examples/gpkg_county"

echo "building release binary and generator..." >&2
if ! cargo build --release --quiet --bin lakeshore --example synth_county --example gpkg_county; then
    echo "bench: cargo build --release failed" >&2
    exit 1
fi

# Runs "$@" and prints "<exit code> <wall seconds> <peak RSS KiB>" on stdout; the command's own
# output goes to $log. GNU time when present, else a python3 getrusage(RUSAGE_CHILDREN) wrapper.
measure() {
    local log="$1"; shift
    if /usr/bin/time -v true >/dev/null 2>&1; then
        local tfile; tfile="$(mktemp)"
        local start end code
        start="$(date +%s.%N)"
        /usr/bin/time -v -o "$tfile" "$@" >"$log" 2>&1
        code=$?
        end="$(date +%s.%N)"
        local rss; rss="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tfile")"
        rm -f "$tfile"
        echo "$code $(python3 -c "print(f'{$end - $start:.2f}')") ${rss:-0}"
    else
        python3 - "$log" "$@" <<'PY'
import resource, subprocess, sys, time
log, cmd = sys.argv[1], sys.argv[2:]
start = time.monotonic()
with open(log, "w") as out:
    code = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT)
wall = time.monotonic() - start
rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print(f"{code} {wall:.2f} {rss_kib}")
PY
    fi
}

rows=()
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
    configs=("$n|$dir/county.toml|$dir/out")
    if [ "${GPKG:-0}" = 1 ]; then
        echo "N=$n: copying into a GeoPackage ..." >&2
        if "$to_gpkg" "$dir/county.toml" "$dir/gpkg" >"$dir/gpkg.log" 2>&1; then
            configs+=("$n gpkg|$dir/gpkg/county.toml|$dir/gpkg/out")
        else
            rows+=("$n gpkg|-|-|-|GeoPackage copy failed: $(tail -1 "$dir/gpkg.log" | cut -c1-80)")
        fi
    fi
    for c in "${configs[@]}"; do
        IFS='|' read -r label config out <<<"$c"
        echo "N=$label: scheduling ..." >&2
        read -r code wall rss < <(measure "$out.log" "$bin" schedule --config "$config" \
            --as-of "$as_of" --out "$out" --format csv)
        rows_out="-"
        [ -f "$out/schedule.csv" ] && rows_out="$(($(wc -l <"$out/schedule.csv") - 1))"
        # Exit code 2 means "done, with issues reported", which the bench data may well trigger.
        case "$code" in
            0) status="ok" ;;
            2) status="ok, issues reported (exit 2)" ;;
            *) status="FAILED (exit $code): $(grep -v '^\s*$' "$out.log" | tail -1 | cut -c1-80)" ;;
        esac
        rows+=("$label|$gwall|$wall|$((rss / 1024))|$status, $rows_out rows")
    done
    if [ "${GPKG:-0}" = 1 ] && [ -f "$dir/out/schedule.csv" ] && [ -f "$dir/gpkg/out/schedule.csv" ]; then
        cmp -s "$dir/out/schedule.csv" "$dir/gpkg/out/schedule.csv" || echo "N=$n: the GeoPackage schedule differs" >&2
    fi
    if [ "${KEEP:-0}" = 1 ]; then
        echo "N=$n: kept $dir" >&2
    else
        rm -rf "$dir"
    fi
done

echo
echo "lakeshore schedule --as-of $as_of --format csv  ($(uname -m), $(nproc) CPUs)"
printf '%-10s | %-12s | %-15s | %-14s | %s\n' "parcels" "generate (s)" "schedule (s)" "peak RSS (MiB)" "result"
printf '%-10s-+-%-12s-+-%-15s-+-%-14s-+-%s\n' "----------" "------------" "---------------" "--------------" "------"
for r in "${rows[@]}"; do
    IFS='|' read -r n g w m s <<<"$r"
    printf '%-10s | %12s | %15s | %14s | %s\n' "$n" "$g" "$w" "$m" "$s"
done
