"""Writes a layer as an Esri JSON FeatureSet, as an ArcGIS REST query (f=json) answers, after the GeoServices
REST specification (its Geometry objects and FeatureSet): polygon rings clockwise for outer rings and
counter-clockwise for holes, every ring of a multipart polygon in one `rings` array; polyline `paths`; point
`x`, `y`; each feature's `attributes` keyed by the `fields` array, an OBJECTID first.

    python esri_json.py LAYER OUT.json WKID [LATEST_WKID]

The layer is read with GDAL (pyogrio); no part of lakeshore is used.
"""
import json
import sys

import geopandas
import pandas
from shapely.geometry import polygon as shapely_polygon

ESRI_TYPES = {"Polygon": "esriGeometryPolygon", "MultiPolygon": "esriGeometryPolygon",
              "LineString": "esriGeometryPolyline", "MultiLineString": "esriGeometryPolyline",
              "Point": "esriGeometryPoint"}


def rings(geometry):
    parts = geometry.geoms if geometry.geom_type == "MultiPolygon" else [geometry]
    out = []
    for part in parts:
        # sign=-1: the exterior clockwise, the interiors counter-clockwise.
        part = shapely_polygon.orient(part, sign=-1.0)
        out.append([list(c) for c in part.exterior.coords])
        out.extend([list(c) for c in ring.coords] for ring in part.interiors)
    return out


def esri_geometry(geometry):
    kind = geometry.geom_type
    if kind in ("Polygon", "MultiPolygon"):
        return {"rings": rings(geometry)}
    if kind in ("LineString", "MultiLineString"):
        lines = geometry.geoms if kind == "MultiLineString" else [geometry]
        return {"paths": [[list(c) for c in line.coords] for line in lines]}
    if kind == "Point":
        return {"x": geometry.x, "y": geometry.y}
    raise ValueError(kind)


def write(layer, out, wkid, latest=None):
    """Writes the layer at `layer` to `out`, its spatialReference `wkid` (and `latestWkid`)."""
    frame = geopandas.read_file(layer)
    columns = [c for c in frame.columns if c != "geometry"]
    fields = [{"name": "OBJECTID", "type": "esriFieldTypeOID", "alias": "OBJECTID"}]
    fields += [{"name": c, "type": "esriFieldTypeString", "alias": c, "length": 254} for c in columns]
    reference = {"wkid": wkid} if latest is None else {"wkid": wkid, "latestWkid": latest}
    features = []
    for i, row in enumerate(frame.itertuples(index=False)):
        attributes = {"OBJECTID": i + 1}
        # A missing value is null, as ArcGIS writes it (pandas reads it as NaN).
        attributes.update({c: None if pandas.isna(getattr(row, c)) else getattr(row, c) for c in columns})
        features.append({"attributes": attributes, "geometry": esri_geometry(row.geometry)})
    kinds = {ESRI_TYPES[g.geom_type] for g in frame.geometry}
    document = {
        "displayFieldName": columns[0],
        "fieldAliases": {f["name"]: f["alias"] for f in fields},
        "geometryType": kinds.pop(),
        "spatialReference": reference,
        "fields": fields,
        "features": features,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(document, f, allow_nan=False)


if __name__ == "__main__":
    write(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else None)
