#!/usr/bin/env bash
# Peak memory of `lakeshore schedule` on the sample county whose history is a hostile workbook, each small on
# disk: a cell at XFD1048576 and one at XFD8192, a 1 GB shared string, a 2 GB XML comment, 14 million rows
# of a cell each and 14 million empty rows,
# and, for scale, the sample history itself. Usage: bench/hostile_workbooks.sh [LAKESHORE_BINARY]
# (default: the release binary, built if missing). Reports exit code, peak RSS (GNU time) and the message.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [[ -z $bin ]]; then
  (cd "$root" && cargo build --release --bin lakeshore)
  bin=${CARGO_TARGET_DIR:-$root/target}/release/lakeshore
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$root/data/sample/history.csv" <<'PY'
import csv, sys, zipfile
work, history = sys.argv[1], sys.argv[2]
NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
WB = ('<?xml version="1.0"?><workbook ' + NS + ' xmlns:r="http://schemas.openxmlformats.org/officeDocument/'
      '2006/relationships"><sheets><sheet name="Log" sheetId="1" r:id="rId1"/></sheets></workbook>')
RELS = ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'worksheet" Target="worksheets/sheet1.xml"/></Relationships>')

def col(c):
    s = ''
    c += 1
    while c:
        c, r = divmod(c - 1, 26)
        s = chr(65 + r) + s
    return s

rows = list(csv.reader(open(history, newline='')))
def history_rows():
    out = []
    for r, rec in enumerate(rows, 1):
        cells = ''.join(f'<c r="{col(c)}{r}" t="inlineStr"><is><t>{v}</t></is></c>' for c, v in enumerate(rec) if v)
        out.append(f'<row r="{r}">{cells}</row>')
    return ''.join(out)

def book(name, sheet_chunks, strings_chunks=None):
    with zipfile.ZipFile(f'{work}/{name}.xlsx', 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr('xl/workbook.xml', WB)
        z.writestr('xl/_rels/workbook.xml.rels', RELS)
        with z.open('xl/worksheets/sheet1.xml', 'w', force_zip64=True) as f:
            f.write(('<?xml version="1.0"?><worksheet ' + NS + '><sheetData>').encode())
            for chunk in sheet_chunks:
                f.write(chunk)
            f.write(b'</sheetData></worksheet>')
        if strings_chunks is not None:
            with z.open('xl/sharedStrings.xml', 'w', force_zip64=True) as f:
                for chunk in strings_chunks:
                    f.write(chunk)

def repeat(piece, total):
    block = piece * (1 << 20)
    for _ in range(total // len(block)):
        yield block

book('sample', [history_rows().encode()])
book('far_XFD1048576', [history_rows().encode(), b'<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>x</t></is></c></row>'])
book('far_XFD8192', [history_rows().encode(), b'<row r="8192"><c r="XFD8192" t="inlineStr"><is><t>x</t></is></c></row>'])
book('string_1GB', [history_rows().encode(), b'<row r="99"><c r="A99" t="s"><v>0</v></c></row>'],
     [b'<sst ' + NS.encode() + b' count="1" uniqueCount="1"><si><t>', *repeat(b's', 1 << 30), b'</t></si></sst>'])
book('comment_2GB', [b'<!--', *repeat(b'c', 2 << 30), b'-->', history_rows().encode()])
book('rows_14M', [history_rows().encode(), *repeat(b'<row><c><v>1</v></c></row>', 14 * (1 << 20) * 25)])
book('rows_14M_empty', [history_rows().encode(), *repeat(b'<row/>', 14 * (1 << 20) * 6)])
PY

printf '%-16s %10s %6s %12s  %s\n' workbook size exit peak_MB message
for f in "$work"/*.xlsx; do
  name=$(basename "$f" .xlsx)
  county="$work/county-$name"
  mkdir -p "$county"
  cp "$root"/data/sample/* "$county"/ 2>/dev/null || true
  cp "$f" "$county/history.xlsx"
  sed -i 's/history = "history.csv"/history = "history.xlsx"/' "$county/county.toml"
  set +e
  (cd "$county" && /usr/bin/time -v "$bin" schedule --config county.toml --as-of 2027-01-15 --out out \
      --format csv --quiet) >"$work/$name.out" 2>"$work/$name.err"
  code=$?
  set -e
  peak=$(awk -F: '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/$name.err")
  message=$(grep -v -E '^\s|Command exited' "$work/$name.err" | head -1 | cut -c1-110 || true)
  printf '%-16s %10s %6s %12s  %s\n' "$name" "$(du -h "$f" | cut -f1)" "$code" "$peak" "$message"
done
