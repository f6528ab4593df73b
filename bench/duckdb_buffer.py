"""The buffer inventory in DuckDB spatial, for comparison with `lakeshore buffer` (bench/ratios.sh runs both).

    python bench/duckdb_buffer.py BENCH_DIR OUT_CSV [DISTANCE_FT]

Reads the bench county's parcels and shoreline with ST_Read and lists every parcel within DISTANCE_FT (default
500) of the lake's boundary with its exact distance: the boundary cut into segments and joined with ST_DWithin,
so DuckDB's spatial join can use its R-tree, as a GIS analyst would write the query. Writes one CSV row per
parcel sorted by parcel id.
"""

import os
import sys

import duckdb

from duckdb_job import segments_table, spatial_extension


def main():
    bench_dir, out_csv = sys.argv[1], sys.argv[2]
    distance = float(sys.argv[3]) if len(sys.argv) > 3 else 500.0
    con = duckdb.connect()
    con.execute(f"LOAD '{spatial_extension()}'")
    con.execute(f"SET threads = {os.cpu_count() or 2}")

    def layer(name):
        return f"st_read('{os.path.join(bench_dir, name)}.shp')"

    con.execute(f"""
    CREATE TABLE parcels AS SELECT SWIS || '-' || PRINT_KEY AS id, geom FROM {layer('parcels')};
    {segments_table(layer('shoreline'))}
    """)
    con.execute(f"""
    COPY (
        SELECT p.id, round(min(ST_Distance(p.geom, s.geom)), 2) AS distance_ft
        FROM parcels p JOIN segments s ON ST_DWithin(p.geom, s.geom, {distance})
        GROUP BY p.id ORDER BY p.id
    ) TO '{out_csv}' (HEADER, DELIMITER ',')
    """)


if __name__ == "__main__":
    main()
