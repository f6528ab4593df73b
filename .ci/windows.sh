#!/usr/bin/env bash
# The Windows build: lakeshore cross-compiled for x86_64-pc-windows-gnu with MinGW, run under Wine on the
# sample county, its outputs compared byte for byte with the Linux binary's. Then, under Wine: a config whose
# layers are named by drive-letter paths (Z:\...) and by relative paths with backslashes; a second run into
# the same folder (the previous set replaced by renames); a run refused while another holds the folder's
# lock; and the program store (`notices --issue`, `--reprint`, `returned` with `--store Z:\...`).
#
#   .ci/windows.sh [LINUX_LAKESHORE]
#
# LINUX_LAKESHORE is the Linux release binary to compare with (default: $CARGO_TARGET_DIR/release/lakeshore,
# built if missing). What is missing is installed from the distribution's packages (mingw-w64, wine64) and
# with rustup (the target's standard library). Where that cannot be done (no network, not root), the script
# says so and exits 0, or 1 when CI is set: CI must check the Windows build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
target=x86_64-pc-windows-gnu

cannot() {
    echo "windows: $1; the Windows build is not checked" >&2
    if [ -n "${CI:-}" ] && [ "${CI}" != "0" ] && [ "${CI}" != "false" ]; then
        exit 1
    fi
    exit 0
}

find_wine() {
    for candidate in wine64 /usr/lib/wine/wine64 wine; do
        if command -v "$candidate" >/dev/null 2>&1; then
            command -v "$candidate"
            return
        fi
    done
}

missing=()
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(mingw-w64)
[ -n "$(find_wine)" ] || missing+=(wine64)
if [ "${#missing[@]}" -gt 0 ]; then
    echo "windows: installing ${missing[*]}" >&2
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}"; } >&2; then
        cannot "could not install ${missing[*]} (apt-get install -y ${missing[*]})"
    fi
fi
wine=$(find_wine)
if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    echo "windows: adding the Rust standard library for $target" >&2
    rustup target add "$target" >&2 ||
        cannot "the Rust standard library for $target ($(rustc --version)) could not be installed: rustup target add $target needs the network"
fi

linux=${1:-$CARGO_TARGET_DIR/release/lakeshore}
if [ ! -x "$linux" ]; then
    cargo build --release --locked --bin lakeshore
fi
cargo build --release --locked --target "$target" --bin lakeshore
exe="$CARGO_TARGET_DIR/$target/release/lakeshore.exe"

# A Wine prefix of its own, kept between runs (its first start takes a while); no Mono or Gecko asked for.
export WINEPREFIX="${LAKESHORE_WINEPREFIX:-$HOME/.cache/lakeshore-wine}"
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$WINEPREFIX"
# Rust's standard library (1.78 and later) takes its random numbers from ProcessPrng in bcryptprimitives.dll,
# which every Windows from 10 on has and Wine 8 (Debian bookworm's) does not: the program would not start
# (exit 53, c0000135). A stand-in built here on RtlGenRandom goes into the prefix, never beside the program.
wine_dlls="$WINEPREFIX/drive_c/windows/system32"
if [ ! -e "$wine_dlls/bcryptprimitives.dll" ] && ! ls /usr/lib/x86_64-linux-gnu/wine/x86_64-windows/bcryptprimitives.dll \
    /usr/lib/wine/x86_64-windows/bcryptprimitives.dll >/dev/null 2>&1; then
    "$wine" cmd /c exit 0 >/dev/null 2>&1 || true
    stand_in=$(mktemp -d)
    cat >"$stand_in/prng.c" <<'C'
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom, in advapi32 */
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
C
    printf 'LIBRARY bcryptprimitives.dll\nEXPORTS\n    ProcessPrng\n' >"$stand_in/prng.def"
    x86_64-w64-mingw32-gcc -O2 -shared -o "$wine_dlls/bcryptprimitives.dll" "$stand_in/prng.c" \
        "$stand_in/prng.def" -ladvapi32
    rm -rf "$stand_in"
    echo "windows: Wine has no bcryptprimitives.dll (ProcessPrng): a stand-in was put in $wine_dlls" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data"
cp -r data/sample data/rules "$work/data/"
cd "$work"

# The Windows name of a Linux path: Wine's drive Z: is the root.
win() { printf 'Z:%s' "${1//\//\\}"; }
# Runs the Windows binary; its exit code is the command's.
lakeshore_exe() { "$wine" "$exe" "$@"; }
fail() {
    echo "windows: FAILED: $1" >&2
    exit 1
}
# Every output of two runs is the same, byte for byte, but run.json (it names the command line) and
# batch.json, whose store path and random token differ; its other lines are the same.
same_outputs() {
    local a=$1 b=$2 file
    for file in "$a"/*; do
        file=$(basename "$file")
        case $file in
        run.json) ;;
        batch.json)
            diff <(grep -v '"store"\|"token"' "$a/$file") <(grep -v '"store"\|"token"' "$b/$file") >&2 ||
                fail "$b/$file differs from the Linux run's $a/$file"
            ;;
        *) cmp -s "$a/$file" "$b/$file" || fail "$b/$file differs from the Linux run's $a/$file" ;;
        esac
    done
}
as_of=(--as-of 2027-01-15)

echo "windows: $("$wine" --version 2>/dev/null || echo wine), $exe" >&2
"$linux" schedule --config data/sample/county.toml "${as_of[@]}" --out linux -q ||
    fail "the Linux run of the sample"
lakeshore_exe schedule --config "$(win "$work/data/sample/county.toml")" "${as_of[@]}" --out "$(win "$work/win")" -q ||
    fail "the sample under Wine (exit $?)"
cmp linux/schedule.csv win/schedule.csv || fail "schedule.csv under Wine is not the Linux one"
same_outputs linux win
echo "windows: the sample's schedule.csv under Wine is the Linux one, byte for byte" >&2

# Layers named with a drive letter and backslashes, and relative to the config with backslashes.
# The sample's config with each layer at FOLDER\FILE (TOML literal strings: the backslashes as they are).
config_at() {
    echo 'crs = "EPSG:2261"'
    echo '[layers]'
    local layer
    for layer in parcels.shp shoreline.geojson watershed.shp floodplain.shp towns.geojson systems.geojson \
        sewered.geojson county.geojson history.csv watercourses.geojson events.csv pump_outs.csv samples.csv \
        pipes.csv; do
        echo "${layer%.*} = '$1\\$layer'"
    done
    sed -n '/^\[office\]/,$p' data/sample/county.toml
}
mkdir -p configs
config_at "$(win "$work/data/sample")" >configs/drive.toml
config_at '..\data\sample' >configs/relative.toml
grep -qF "parcels = 'Z:\\" configs/drive.toml || fail "configs/drive.toml was not written as meant"
grep -qF "parcels = '..\\data\\sample\\parcels.shp'" configs/relative.toml ||
    fail "configs/relative.toml was not written as meant"
for config in drive relative; do
    lakeshore_exe schedule --config "configs\\$config.toml" "${as_of[@]}" --out "out\\$config" -q ||
        fail "configs/$config.toml under Wine"
    cmp linux/schedule.csv "out/$config/schedule.csv" || fail "configs/$config.toml gives another schedule.csv"
done
echo "windows: drive-letter and backslash paths in a config give the same schedule.csv" >&2

# A second run into the same folder replaces the set by renames: another format, the old files kept.
lakeshore_exe schedule --config "$(win "$work/data/sample/county.toml")" "${as_of[@]}" --out "$(win "$work/win")" \
    --format csv,gpkg -q || fail "a second run into the same folder under Wine"
cmp linux/schedule.csv win/schedule.csv || fail "schedule.csv after the second run"
[ -s win/schedule.gpkg ] && [ -s win/schedule.geojson ] || fail "the second run's set"
grep -q '"schedule.gpkg"' win/run.json && ! grep -q '"schedule.geojson"' win/run.json ||
    fail "run.json of the second run does not name its own files"
[ -z "$(find win -name '.lakeshore-*' ! -name .lakeshore.lock)" ] || fail "a staging folder was left in win/"

# The folder's lock: a run holds it while it works (a history of 300,000 rows keeps it at work), stopped
# (SIGSTOP) once its lock file names it; a second run into the folder meanwhile is refused naming it.
mkdir -p held
cp data/sample/* held/
tail -n +2 data/sample/history.csv >history.rows
for _ in $(seq 5000); do cat history.rows; done >>held/history.csv
"$wine" "$exe" schedule --config held/county.toml "${as_of[@]}" --out locked -q &
holder=$!
for _ in $(seq 1 3000); do
    grep -qs '^pid ' locked/.lakeshore.lock && break
    sleep 0.01
done
kill -STOP "$holder"
[ ! -e locked/run.json ] || fail "the run holding the lock finished before it could be stopped"
set +e
refused=$(lakeshore_exe schedule --config data/sample/county.toml "${as_of[@]}" --out locked -q 2>&1)
code=$?
set -e
kill -CONT "$holder"
set +e
wait "$holder"
held=$?
set -e
[ "$held" = 0 ] || [ "$held" = 2 ] || fail "the run that held the lock under Wine (exit $held)"
[ "$code" = 1 ] && grep -q 'another lakeshore run is writing into this folder (pid ' <<<"$refused" ||
    fail "a second run into a locked folder under Wine was not refused naming the holder (exit $code): $refused"
[ -s locked/schedule.csv ] && [ ! -e locked/.lakeshore.lock ] || fail "the set of the run that held the lock"
echo "windows: the output folder's lock holds under Wine, and its holder is named" >&2

# The program store: issue, reprint, record a returned letter; the letters are the Linux run's.
store=$(win "$work/store.sqlite")
issue=(notices --config data/sample/county.toml "${as_of[@]}" --year 2027 -q --issue)
"$linux" "${issue[@]}" --store linux.sqlite --out linux-notices || fail "the Linux notices"
lakeshore_exe "${issue[@]}" --store "$store" --out win-notices || fail "notices --issue under Wine"
same_outputs linux-notices win-notices
lakeshore_exe notices --config data/sample/county.toml --store "$store" --reprint 1 --out reprint -q ||
    fail "notices --reprint under Wine"
cmp win-notices/notices.csv reprint/notices.csv || fail "the reprint's notices.csv"
lakeshore_exe returned --config data/sample/county.toml --store "$store" --as-of 2027-02-03 2027-000004 ||
    fail "returned under Wine"
[ ! -e store.sqlite.lock ] || fail "the store's lock file was left"
echo "windows: the program store works under Wine (issue, reprint, returned)" >&2
echo "windows: ok" >&2
