"""GEOS (through shapely 2) as the oracle and the peer of lakeshore's buffer polygon.

    python geos_buffer.py compare SOURCE.wkt DISTANCE OURS.wkt
        The buffer of the source features (one WKT geometry a line) by GEOS, timed, against ours (one WKT
        geometry): prints one JSON object with GEOS's seconds, the band's area (the buffer less the source's
        own area), the area of the symmetric difference of the two buffers and its share of the band.
    python geos_buffer.py within SOURCE.wkt DISTANCE PARCELS.tsv
        The ids of the parcels (lines "id<TAB>WKT") whose distance from the source, by GEOS, is at most
        DISTANCE (a parcel inside a source polygon is at distance 0): one id a line, sorted. A parcel within
        0.01 of DISTANCE is marked with a "~" before its id, since its side of the line is a rounding away.
    python geos_buffer.py time SHORELINE DISTANCE
        GEOS's time for the buffer of the features of a layer file (read with GeoPandas), in seconds.

The buffer is GEOS's default (round joins and caps, 8 segments a quarter circle); the source features are
buffered together (the union of their buffers), as lakeshore buffers them.
"""

import json
import sys
import time

import shapely
from shapely import wkt


def read_wkt(path):
    with open(path, encoding="utf-8") as f:
        return [wkt.loads(line) for line in f if line.strip()]


def buffer_of(geoms, distance):
    start = time.perf_counter()
    zone = shapely.union_all(shapely.buffer(geoms, distance)) if len(geoms) > 1 else geoms[0].buffer(distance)
    return zone, time.perf_counter() - start


def main(argv):
    mode = argv[1]
    if mode == "compare":
        source, distance, ours = read_wkt(argv[2]), float(argv[3]), read_wkt(argv[4])[0]
        theirs, seconds = buffer_of(source, distance)
        own = shapely.union_all([g for g in source if g.geom_type in ("Polygon", "MultiPolygon")]).area
        band = theirs.area - own
        differ = ours.symmetric_difference(theirs).area
        print(json.dumps({"geos_s": seconds, "band": band, "xor": differ, "share": differ / band}))
    elif mode == "within":
        source, distance = read_wkt(argv[2]), float(argv[3])
        whole = shapely.GeometryCollection(source)
        found = []
        with open(argv[4], encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                pid, text = line.rstrip("\n").split("\t", 1)
                d = wkt.loads(text).distance(whole)
                if d <= distance + 0.01:
                    found.append(("~" if abs(d - distance) < 0.01 else "") + pid)
        print("\n".join(sorted(found)))
    elif mode == "time":
        import geopandas

        layer = geopandas.read_file(argv[2])
        _, seconds = buffer_of(list(layer.geometry), float(argv[3]))
        print(f"{seconds:.3f}")
    else:
        sys.exit(f"unknown mode {mode}: give compare, within or time")


if __name__ == "__main__":
    main(sys.argv)
