"""The peer of `lakeshore map` in the bench: the same county drawn with GeoPandas and matplotlib.

    python geopandas_map.py COUNTY_DIR OUT.png

Reads the parcels, shoreline, watershed, floodplain and towns shapefiles of a bench county, draws the
parcels coloured by their sewer type (a stand-in for lakeshore's tier, which needs the schedule), the lake,
the 500-ft band along the shoreline (GEOS's buffer of the shoreline's boundary), the other layers as
outlines, and writes a 1600 × 1200 PNG, as `lakeshore map` does. The bench times the whole process.
"""

import sys
from pathlib import Path

import geopandas
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(county, out):
    county = Path(county)
    parcels = geopandas.read_file(county / "parcels.shp")
    shore = geopandas.read_file(county / "shoreline.shp")
    fig, ax = plt.subplots(figsize=(16, 12), dpi=100)
    parcels.plot(ax=ax, column="SEWER_TYPE", categorical=True, linewidth=0.1, edgecolor="#444444", legend=True)
    shore.plot(ax=ax, color="#D6EAF8")
    band = shore.boundary.buffer(500)
    band.plot(ax=ax, color="#08306B", alpha=0.22, linewidth=0)
    shore.boundary.plot(ax=ax, color="#08306B", linewidth=1.6)
    for name, colour in (("watershed", "#6A3D9A"), ("floodplain", "#2C7FB8"), ("towns", "#555555")):
        path = county / f"{name}.shp"
        if path.exists():
            geopandas.read_file(path).boundary.plot(ax=ax, color=colour, linewidth=1.0)
    ax.set_title("Bench county: parcels by sewer type")
    ax.set_axis_off()
    fig.savefig(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
