#!/usr/bin/env python3
"""Builds the starting corpus of each fuzz target from the sample county (data/sample) and the rule sets."""
import io
import json
import pathlib
import struct
import zipfile

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


def gpkg_blob(rings, srs_id=2261, envelope=True, big=False):
    """A GeoPackage geometry blob (GeoPackage 1.3 §2.1.3) of a WKB polygon with these rings."""
    order = ">" if big else "<"
    flags = (0 if big else 1) | (0b10 if envelope else 0)
    out = b"GP\x00" + bytes([flags]) + struct.pack(order + "i", srs_id)
    if envelope:
        xs = [x for ring in rings for x, _ in ring]
        ys = [y for ring in rings for _, y in ring]
        out += struct.pack(order + "4d", min(xs), max(xs), min(ys), max(ys))
    out += (b"\x00" if big else b"\x01") + struct.pack(order + "II", 3, len(rings))
    for ring in rings:
        out += struct.pack(order + "I", len(ring)) + b"".join(struct.pack(order + "2d", x, y) for x, y in ring)
    return out


def geopackage(path, fids, journal="DELETE"):
    """A small GeoPackage of one `lots` layer whose rows have these fids (GDAL and QGIS write any integer)."""
    import sqlite3

    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    con.executescript(
        """PRAGMA page_size = 512; PRAGMA application_id = 1196444487;
        CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
          organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL,
          description TEXT);
        CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,
          identifier TEXT UNIQUE, description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE,
          min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
        CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
          geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL);
        INSERT INTO gpkg_spatial_ref_sys VALUES ('NY Central', 2261, 'EPSG', 2261, 'undefined', NULL);
        INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('lots', 'features', 2261);
        INSERT INTO gpkg_geometry_columns VALUES ('lots', 'geom', 'POLYGON', 2261, 0, 0);
        CREATE TABLE lots (fid INTEGER PRIMARY KEY, geom BLOB, PRINT_KEY TEXT, ACRES REAL);"""
    )
    for i, fid in enumerate(fids):
        x, y = 800000.0 + 500 * i, 1000000.0
        ring = [(x, y), (x + 400, y), (x + 400, y + 400), (x, y + 400), (x, y)]
        blob = gpkg_blob([ring], envelope=i % 2 == 0, big=i % 3 == 2)
        con.execute("INSERT INTO lots VALUES (?, ?, ?, ?)", (fid, blob, f"1.00-1-{i}", 1.5 * i))
    con.commit()
    con.execute(f"PRAGMA journal_mode = {journal}")
    con.close()
    put("gpkg", path.name, path.read_bytes())
    path.unlink()


scratch = corpus / "gpkg-scratch"
scratch.mkdir(parents=True, exist_ok=True)
geopackage(scratch / "lots-from-1.gpkg", [1, 2, 3])
geopackage(scratch / "lots-from-0-wal.gpkg", [0, 1, 2], journal="WAL")
geopackage(scratch / "lots-extreme-fids.gpkg", [-(2**63), -1, 2**53, 2**63 - 1])
scratch.rmdir()
square = [(0.0, 0.0), (9.0, 0.0), (9.0, 9.0), (0.0, 0.0)]
put("gpkg", "blob-le", gpkg_blob([square]))
put("gpkg", "blob-be-no-envelope", gpkg_blob([square], envelope=False, big=True))


# The gdb target: File Geodatabases as GDAL writes them, through the writers' Python (tests/writers/venv.sh).
WRITE_GDB = """
import struct, sys
import numpy as np, geopandas, pyogrio, pyogrio.raw
parcels, out = sys.argv[1], sys.argv[2]
frame = geopandas.read_file(parcels)
pyogrio.write_dataframe(frame, f"{out}/parcels.gdb", layer="Parcels", driver="OpenFileGDB", promote_to_multi=True)
ring = [(0, 0), (10, 10), (20, 0), (10, -10), (0, 0)]
circle = struct.pack("<BII", 1, 10, 1) + struct.pack("<BII", 1, 8, len(ring)) + b"".join(struct.pack("<2d", *p) for p in ring)
pyogrio.raw.write(f"{out}/curve.gdb", np.array([circle], dtype=object), [np.array(["Round lot"], dtype=object)],
                  fields=["NAME"], geometry_type="MultiPolygon", crs="EPSG:2261", driver="OpenFileGDB", layer="Lots")
"""


def gdb_seeds():
    import os
    import subprocess
    import tempfile

    venv = pathlib.Path.home() / ".cache/lakeshore-writers-venv/bin/python"
    python = os.environ.get("LAKESHORE_WRITERS_PYTHON") or str(venv)
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([python, "-c", WRITE_GDB, str(sample / "parcels.shp"), out], capture_output=True)
        if run.returncode != 0:
            print(f"gdb: no corpus ({python} cannot write File Geodatabases with GDAL)")
            return
        for gdb in pathlib.Path(out).glob("*.gdb"):
            files = [gdb / name for name in ("a00000001.gdbtable", "a00000001.gdbtablx", "a00000009.gdbtablx")]
            data = b"".join(struct.pack("<H", len(f.read_bytes())) + f.read_bytes() for f in files)
            put("gdb", gdb.stem, data + (gdb / "a00000009.gdbtable").read_bytes())


gdb_seeds()

# Zipped shapefiles: the sample's parcels alone, and the three shapefiles in a folder of one zip.
def zipped(members):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, path in members:
            z.write(path, name)
    return out.getvalue()


parts = ("shp", "shx", "dbf", "prj", "cpg")
put("zipped", "parcels", zipped([(f"parcels.{e}", sample / f"parcels.{e}") for e in parts]))
put("zipped", "county", zipped([(f"county/{s}.{e}", sample / f"{s}.{e}") for s in ("parcels", "watershed", "floodplain")
                               for e in parts if (sample / f"{s}.{e}").exists()]))

# GeoJSON text sequences: each sample layer one feature a line, and with record separators.
for geojson in sample.glob("*.geojson"):
    features = json.loads(geojson.read_text(encoding="utf-8"))["features"]
    put("geojsonseq", geojson.stem, "".join(json.dumps(f) + "\n" for f in features).encode())
    put("geojsonseq", f"{geojson.stem}-rs", "".join("\x1e" + json.dumps(f) + "\n" for f in features).encode())

# Esri JSON: a FeatureSet of a parcel with a hole (outer ring clockwise, hole counter-clockwise), a line and a
# point; and one feature alone, which the target also reads inside a FeatureSet.
holed = {"rings": [[[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]], [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]]]}
esri = {"geometryType": "esriGeometryPolygon", "spatialReference": {"wkid": 102716, "latestWkid": 2261},
        "fields": [{"name": "NAME", "type": "esriFieldTypeString"}, {"name": "SOLD", "type": "esriFieldTypeDate"}],
        "features": [{"attributes": {"NAME": "lot", "SOLD": 1700006400000}, "geometry": holed},
                     {"attributes": {"NAME": "brook"}, "geometry": {"paths": [[[0, 0], [5, 5]]]}},
                     {"attributes": {"NAME": "well"}, "geometry": {"x": 1, "y": 2}}]}
put("esrijson", "featureset", json.dumps(esri).encode())
put("esrijson", "feature", json.dumps(esri["features"][0]).encode())

# FlatGeobuf: the sample's parcels as GDAL writes them, with and without the index (when pyogrio is there).
try:
    import tempfile

    import pyogrio

    frame = pyogrio.read_dataframe(sample / "parcels.shp")
    with tempfile.TemporaryDirectory() as tmp:
        for label, index in (("indexed", "YES"), ("unindexed", "NO")):
            path = pathlib.Path(tmp) / f"{label}.fgb"
            pyogrio.write_dataframe(frame, path, driver="FlatGeobuf", layer_options={"SPATIAL_INDEX": index})
            put("flatgeobuf", label, path.read_bytes())
except ImportError:
    print("seed.py: no pyogrio, so no FlatGeobuf seeds (tests/writers/venv.sh makes a Python with it)")
