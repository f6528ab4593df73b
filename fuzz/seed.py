#!/usr/bin/env python3
"""Builds the starting corpus of each fuzz target from the sample county (data/sample) and the rule sets."""
import pathlib
import struct

root = pathlib.Path(__file__).resolve().parent
sample = root.parent / "data" / "sample"
corpus = root / "corpus"


def put(target, name, data):
    folder = corpus / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


for stem in ("parcels", "watershed", "floodplain"):
    shx = (sample / f"{stem}.shx").read_bytes()
    dbf = (sample / f"{stem}.dbf").read_bytes()
    shp = (sample / f"{stem}.shp").read_bytes()
    if len(shx) < 1 << 16 and len(dbf) < 1 << 16:
        put("shapefile", stem, struct.pack("<HH", len(shx), len(dbf)) + shx + dbf + shp)
for prj in sample.glob("*.prj"):
    put("prj", prj.stem, prj.read_bytes())
for geojson in sample.glob("*.geojson"):
    put("geojson", geojson.stem, geojson.read_bytes())
    # A few features on their own: the target also reads its input as the one feature of a collection.
    for i, line in enumerate(geojson.read_text(encoding="utf-8").splitlines()[1:-1][:3]):
        put("geojson", f"{geojson.stem}-feature-{i}", line.rstrip(",").encode())
for csv in sample.glob("*.csv"):
    put("csv_records", csv.stem, csv.read_bytes())
for toml in list(sample.glob("*.toml")) + list((root.parent / "data" / "rules").glob("*.toml")):
    put("config_toml", toml.stem, toml.read_bytes())
