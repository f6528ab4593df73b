#!/usr/bin/env bash
# Builds the release archives in dist/ (or DIR):
#   lakeshore-VERSION-x86_64-linux.tar.gz   lakeshore, for Linux x86_64 (glibc)
#   lakeshore-VERSION-x86_64-windows.zip    lakeshore.exe, for Windows x86_64 (cross-built with MinGW)
# each holding the program, README.md, the licences (LICENSE-MIT, LICENSE-APACHE), docs/law.md (which the
# README links), the sample counties (data/sample, data/sample-problems), the rule sets they name
# (data/rules) and the letter template to start a county's own from (data/templates).
#
#   scripts/release.sh [DIR]
#
# The Windows build needs what .ci/windows.sh installs (mingw-w64, the Rust target x86_64-pc-windows-gnu);
# without it only the Linux archive is built, and the script says so and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
dist=$(realpath -m "${1:-dist}")
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
windows=x86_64-pc-windows-gnu
mkdir -p "$dist"

# The files beside the program in either archive, copied into the folder $1.
stage() {
    mkdir -p "$1/docs" "$1/data"
    cp README.md LICENSE-MIT LICENSE-APACHE "$1/"
    cp docs/law.md "$1/docs/"
    cp -r data/sample data/sample-problems data/rules data/templates "$1/data/"
}

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# Files in a fixed order, owned by no one and dated by the last commit: the same tree gives the same archive.
epoch=$(git log -1 --format=%ct 2>/dev/null || echo 0)

cargo build --release --locked --bin lakeshore
name="lakeshore-$version-x86_64-linux"
stage "$staging/$name"
install -m 755 "$CARGO_TARGET_DIR/release/lakeshore" "$staging/$name/lakeshore"
tar -C "$staging" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -czf "$dist/$name.tar.gz" \
    "$name"
echo "wrote $dist/$name.tar.gz"

if ! rustup target list --installed 2>/dev/null | grep -qx "$windows" ||
    ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
    echo "release: no Windows archive: the Rust target $windows or MinGW (mingw-w64) is missing; .ci/windows.sh installs them" >&2
    exit 1
fi
cargo build --release --locked --target "$windows" --bin lakeshore
name="lakeshore-$version-x86_64-windows"
stage "$staging/$name"
cp "$CARGO_TARGET_DIR/$windows/release/lakeshore.exe" "$staging/$name/"
find "$staging/$name" -exec touch -h -d "@$epoch" {} +
rm -f "$dist/$name.zip"
(cd "$staging" && find "$name" -print | LC_ALL=C sort | zip -X -q "$dist/$name.zip" -@)
echo "wrote $dist/$name.zip"
