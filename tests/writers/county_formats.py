"""Writes the sample county's layers (data/sample) in the formats counties ship them, into a folder, with the
writers counties use: GDAL (through pyogrio) for zipped shapefiles, FlatGeobuf and GeoJSON text sequences;
Python's zipfile for shapefiles zipped by hand; GeoPandas and DuckDB for GeoParquet with a bbox covering
column and in the GeoArrow encodings; and esri_json.py, after the GeoServices specification, for Esri JSON.

    python county_formats.py SAMPLE_DIR OUT_DIR
"""
import json
import os
import sys
import zipfile

import duckdb
import geopandas
import pyarrow
import pyarrow.parquet
import pyogrio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import esri_json  # noqa: E402

sample, out = sys.argv[1], sys.argv[2]
parcels = geopandas.read_file(f"{sample}/parcels.shp")


def gdal(frame, name, driver, **options):
    pyogrio.write_dataframe(frame, f"{out}/{name}", driver=driver, layer_options=options or None)


# Zipped shapefiles: GDAL writes .shp.zip itself; a zip of the files as an office makes it by hand; and the
# county's shapefiles together in a folder of one zip.
gdal(parcels, "parcels.shp.zip", "ESRI Shapefile")
with zipfile.ZipFile(f"{out}/parcels.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for ext in ("shp", "shx", "dbf", "prj", "cpg"):
        z.write(f"{sample}/parcels.{ext}", f"parcels.{ext}")
with zipfile.ZipFile(f"{out}/county.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for layer in ("parcels", "watershed", "floodplain"):
        for ext in ("shp", "shx", "dbf", "prj", "cpg"):
            if os.path.exists(f"{sample}/{layer}.{ext}"):
                z.write(f"{sample}/{layer}.{ext}", f"county/{layer}.{ext}")

# FlatGeobuf, with its spatial index (GDAL's default: the features in Hilbert order) and without.
gdal(parcels, "parcels.fgb", "FlatGeobuf")
gdal(parcels, "parcels-unindexed.fgb", "FlatGeobuf", SPATIAL_INDEX="NO")
gdal(geopandas.read_file(f"{sample}/systems.geojson"), "systems.fgb", "FlatGeobuf")

# GeoJSON text sequences: newline-delimited, RFC 8142 (record separators), and one named .geojson.
gdal(parcels, "parcels.geojsonl", "GeoJSONSeq")
gdal(parcels, "parcels.geojsons", "GeoJSONSeq", RS="YES")
gdal(parcels, "parcels-lines.geojson", "GeoJSONSeq")
gdal(geopandas.read_file(f"{sample}/towns.geojson"), "towns.geojsonl", "GeoJSONSeq")

# GeoParquet: GeoPandas with the bbox covering column; DuckDB with one it packs itself; GeoPandas' GeoArrow
# encodings (the parcels multipolygon, their towns polygon, the systems point, separated and interleaved).
parcels.to_parquet(f"{out}/parcels-covering.parquet", write_covering_bbox=True)
bounds = parcels.geometry.bounds
table = parcels.drop(columns="geometry").assign(
    wkb=parcels.geometry.to_wkb(), xmin=bounds.minx, ymin=bounds.miny, xmax=bounds.maxx, ymax=bounds.maxy)
columns = ", ".join(f'"{c}"' for c in parcels.columns if c != "geometry")
covering = {k: ["bbox", k] for k in ("xmin", "ymin", "xmax", "ymax")}
geo = {"version": "1.1.0", "primary_column": "geometry", "columns": {"geometry": {
    "encoding": "WKB", "geometry_types": ["Polygon", "MultiPolygon"], "crs": json.loads(parcels.crs.to_json()),
    "covering": {"bbox": covering}}}}
con = duckdb.connect()
con.register("parcels", table)
metadata = json.dumps(geo).replace("'", "''")
con.sql(f"COPY (SELECT {columns}, wkb AS geometry, struct_pack(xmin := xmin, ymin := ymin, xmax := xmax, "
        f"ymax := ymax) AS bbox FROM parcels) TO '{out}/parcels-duckdb-covering.parquet' "
        f"(FORMAT parquet, KV_METADATA {{geo: '{metadata}'}})")
parcels.to_parquet(f"{out}/parcels-geoarrow.parquet", geometry_encoding="geoarrow")
geopandas.read_file(f"{sample}/towns.geojson").to_parquet(f"{out}/towns-geoarrow.parquet", geometry_encoding="geoarrow")
systems = geopandas.read_file(f"{sample}/systems.geojson")
systems.to_parquet(f"{out}/systems-geoarrow.parquet", geometry_encoding="geoarrow")
interleaved = pyarrow.table(systems.to_arrow(geometry_encoding="geoarrow", interleaved=True))
geo = pyarrow.parquet.read_metadata(f"{out}/systems-geoarrow.parquet").metadata[b"geo"]
pyarrow.parquet.write_table(interleaved.replace_schema_metadata({b"geo": geo}), f"{out}/systems-interleaved.parquet")

# Esri JSON: the parcels as ArcGIS answers in New York Central (its Esri wkid and the EPSG latestWkid), the
# shoreline in longitude/latitude.
esri_json.write(f"{sample}/parcels.shp", f"{out}/parcels-esri.json", 102716, 2261)
esri_json.write(f"{sample}/shoreline.geojson", f"{out}/shoreline.json", 4326)
