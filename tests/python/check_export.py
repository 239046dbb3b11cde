"""Reads a dataset `demokit export` wrote with DuckDB and pyarrow and checks its row counts.

    python check_export.py DATASET_DIR EXPECTED_JSON

EXPECTED_JSON maps each table name to the rows the Rust test counted through the library's
readers. Prints one line per table and exits 1 on the first difference.
"""

import json
import sys

import duckdb
import pyarrow.dataset as ds


def main() -> int:
    dataset, expected = sys.argv[1], json.loads(sys.argv[2])
    con = duckdb.connect()
    for table, rows in sorted(expected.items()):
        glob = f"{dataset}/{table}/*.parquet"
        by_duckdb = con.execute(f"select count(*) from read_parquet('{glob}')").fetchall()[0][0]
        by_pyarrow = ds.dataset(f"{dataset}/{table}", format="parquet").count_rows()
        print(f"{table}: expected {rows}, duckdb {by_duckdb}, pyarrow {by_pyarrow}")
        if by_duckdb != rows or by_pyarrow != rows:
            return 1
    # A query an analyst would write: chat lines per speaker, top speed per demo.
    speakers = con.execute(
        f"select name, count(*) from read_parquet('{dataset}/chat/*.parquet') "
        "where name <> '' group by name order by 2 desc, 1 limit 3"
    ).fetchall()
    top = con.execute(
        f"select path, max(sqrt(vel_x * vel_x + vel_y * vel_y)) as speed "
        f"from read_parquet('{dataset}/ticks/*.parquet') where vel_x is not null "
        "group by path order by speed desc limit 1"
    ).fetchall()
    print("top speakers:", speakers)
    print("fastest demo:", top)
    return 0 if speakers and top else 1


if __name__ == "__main__":
    sys.exit(main())
