"""The bench job in DuckDB spatial, for comparison with `lakeshore schedule` (bench/run.sh runs both).

    python bench/duckdb_job.py BENCH_DIR OUT_CSV [AS_OF]

Reads the bench county's shapefiles with ST_Read and computes, for every parcel, what lakeshore's schedule
computes: public sewer (SEWER_TYPE 3 or a sewer district), inside the county, the town (from the system point
when there is one, else a point on the parcel), the exact distance to the mean-high-water line (the lake
boundary cut into segments and joined with ST_DWithin, so DuckDB's spatial join can use its R-tree), the
watershed, the SFHA floodplain, the latest inspection, then the Article V tier, cycle and next due date on the
fixed cohort grid. Writes one CSV row per parcel sorted by parcel id.

It is a yardstick, not a second implementation: the tiers follow the Cayuga County rule set but the reason
sentences, floodplain elevations and problem reports are left out.
"""

import glob
import os
import sys

import duckdb

COHORTS = {
    "Aurelius": 2003, "Fleming": 2003, "Locke": 2003,
    "Brutus": 2004, "Niles": 2004, "Sennett": 2004,
    "Genoa": 2005, "Mentz": 2005, "Springport": 2005,
    "Ira": 2006, "Montezuma": 2006, "Venice": 2006,
    "Cato": 2007, "Scipio": 2007, "Sterling": 2007,
    "Conquest": 2008, "Ledyard": 2008, "Victory": 2008,
    "Owasco": 2009, "Sempronius": 2009, "Summerhill": 2009, "Throop": 2009,
}
WATERSHED_TOWNS = ["Owasco", "Niles", "Moravia", "Scipio", "Fleming", "Sterling"]


def spatial_extension():
    """The spatial extension file that the PyPI package `duckdb-ext-spatial` installs."""
    import duckdb_ext  # noqa: F401  (the package that carries the extension files)

    base = list(duckdb_ext.__path__)[0]  # a namespace package: no __file__
    found = sorted(glob.glob(os.path.join(base, "extensions", "*", "*", "spatial.duckdb_extension")))
    if not found:
        sys.exit("duckdb_job: no spatial.duckdb_extension under " + base)
    return found[-1]


def segments_table(shoreline):
    """SQL making the table `segments`: the exterior rings of the lakes in `shoreline` (an ST_Read call) cut
    into their straight segments, so that a spatial join with ST_DWithin can use DuckDB's R-tree."""
    return f"""CREATE TABLE segments AS
        WITH rings AS (
            SELECT row_number() OVER () AS ring_id, ST_ExteriorRing(geom) AS ring FROM {shoreline}),
        points AS (
            SELECT ring_id, unnest(ST_Dump(ST_Points(ring)), recursive := true) FROM rings),
        pairs AS (
            SELECT geom AS a, lead(geom) OVER (PARTITION BY ring_id ORDER BY path[1]) AS b FROM points)
        SELECT ST_MakeLine(a, b) AS geom FROM pairs WHERE b IS NOT NULL;"""


def main():
    bench_dir, out_csv = sys.argv[1], sys.argv[2]
    as_of = sys.argv[3] if len(sys.argv) > 3 else "2027-01-15"
    con = duckdb.connect()
    con.execute(f"LOAD '{spatial_extension()}'")
    con.execute(f"SET threads = {os.cpu_count() or 2}")

    def layer(name):
        return f"st_read('{os.path.join(bench_dir, name)}.shp')"

    cohorts = ", ".join(f"('{t}', {y})" for t, y in COHORTS.items())
    watershed_towns = ", ".join(f"'{t}'" for t in WATERSHED_TOWNS)
    con.execute(f"""
    CREATE TABLE parcels AS SELECT SWIS || '-' || PRINT_KEY AS id, SEWER_TYPE AS sewer, geom FROM {layer('parcels')};
    CREATE TABLE systems AS SELECT PARCEL_ID AS id, geom FROM {layer('systems')};
    CREATE TABLE here AS
        SELECT p.id, coalesce(s.geom, ST_PointOnSurface(p.geom)) AS pt, s.geom IS NOT NULL AS has_system
        FROM parcels p LEFT JOIN systems s USING (id);
    {segments_table(layer('shoreline'))}
    CREATE TABLE shore AS
        SELECT p.id, min(ST_Distance(p.geom, s.geom)) AS d
        FROM parcels p JOIN segments s ON ST_DWithin(p.geom, s.geom, 1000) GROUP BY p.id;
    CREATE TABLE system_shore AS
        SELECT h.id, min(ST_Distance(h.pt, s.geom)) AS d
        FROM here h JOIN segments s ON ST_DWithin(h.pt, s.geom, 500) WHERE h.has_system GROUP BY h.id;
    CREATE TABLE towns AS
        SELECT h.id, t.NAME AS town FROM here h JOIN {layer('towns')} t ON ST_Contains(t.geom, h.pt);
    CREATE TABLE in_county AS
        SELECT DISTINCT p.id FROM parcels p JOIN {layer('county')} c ON ST_Intersects(c.geom, p.geom);
    CREATE TABLE sewered AS
        SELECT DISTINCT h.id FROM here h JOIN {layer('sewered')} s ON ST_Contains(s.geom, h.pt);
    CREATE TABLE in_watershed AS
        SELECT DISTINCT p.id FROM parcels p JOIN {layer('watershed')} w ON ST_Intersects(w.geom, p.geom);
    CREATE TABLE flood AS
        SELECT DISTINCT h.id FROM here h JOIN (SELECT * FROM {layer('floodplain')} WHERE SFHA_TF = 'T') f
        ON ST_Contains(f.geom, h.pt);
    CREATE TABLE latest AS
        SELECT parcel_id AS id, max(CAST(inspection_date AS DATE)) AS last
        FROM read_csv('{os.path.join(bench_dir, 'history.csv')}', all_varchar = true) GROUP BY parcel_id;
    CREATE TABLE cohorts(town VARCHAR, first_year INTEGER);
    INSERT INTO cohorts VALUES {cohorts};
    CREATE TABLE tiers AS
        SELECT p.id, t.town, sh.d AS distance_ft, f.id IS NOT NULL AS floodplain, l.last,
            CASE
                WHEN p.sewer = '3' OR sw.id IS NOT NULL THEN 'sewered'
                WHEN c.id IS NULL THEN 'outside county'
                WHEN sh.d <= 10 AND (NOT h.has_system OR ss.d IS NOT NULL) THEN 'lakefront'
                WHEN sh.d > 10 AND sh.d <= 500 THEN 'near-shore'
                WHEN w.id IS NOT NULL AND t.town IN ({watershed_towns}) THEN 'watershed'
                WHEN k.first_year IS NOT NULL THEN 'county'
                ELSE 'unscheduled'
            END AS tier,
            k.first_year
        FROM parcels p JOIN here h USING (id)
        LEFT JOIN shore sh USING (id) LEFT JOIN system_shore ss USING (id) LEFT JOIN towns t USING (id)
        LEFT JOIN in_county c USING (id) LEFT JOIN sewered sw USING (id) LEFT JOIN in_watershed w USING (id)
        LEFT JOIN flood f USING (id) LEFT JOIN latest l USING (id) LEFT JOIN cohorts k ON k.town = t.town;
    CREATE TABLE grid AS
        SELECT *,
            CASE tier WHEN 'lakefront' THEN 2 WHEN 'near-shore' THEN 3 WHEN 'watershed' THEN 5
                      WHEN 'county' THEN 7 END AS cycle,
            CASE tier WHEN 'lakefront' THEN 1994 WHEN 'near-shore' THEN 1995 WHEN 'watershed' THEN 1996
                      WHEN 'county' THEN first_year END AS first
        FROM tiers;
    """)
    con.execute(f"""
    COPY (
        SELECT id, town, tier, cycle, round(distance_ft, 2) AS distance_ft, floodplain, last AS last_inspection,
            make_date(CAST(first + cycle * ceil(greatest(0, (year(DATE '{as_of}') - first
                - CASE WHEN DATE '{as_of}' <= make_date(year(DATE '{as_of}'), 11, 1) THEN 1 ELSE 0 END) + 1)
                / cycle) AS INTEGER), 11, 1) AS next_due
        FROM grid ORDER BY id
    ) TO '{out_csv}' (HEADER, DELIMITER ',')
    """)


if __name__ == "__main__":
    main()
