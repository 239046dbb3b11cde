"""Reads a dataset `demokit export` wrote (in its default layout, Hive partitions by format
and date) with DuckDB and pyarrow and checks its row counts and partition columns.

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

    def table(name: str) -> str:
        return f"read_parquet('{dataset}/{name}/**/*.parquet', hive_partitioning=true)"

    for name, rows in sorted(expected.items()):
        by_duckdb = con.execute(f"select count(*) from {table(name)}").fetchall()[0][0]
        by_pyarrow = ds.dataset(
            f"{dataset}/{name}", format="parquet", partitioning="hive"
        ).count_rows()
        print(f"{name}: expected {rows}, duckdb {by_duckdb}, pyarrow {by_pyarrow}")
        if by_duckdb != rows or by_pyarrow != rows:
            return 1
    # The partition columns: every file in a partition of its format and date, a date
    # DuckDB types as DATE; the demos' and teehistorian files' dates are those their
    # headers start with, and every other table's rows are in their file's partition.
    types = dict(
        con.execute(f"select column_name, column_type from (describe from {table('ticks')})")
        .fetchall()
    )
    print("partition columns:", types["format"], types["date"])
    if types["date"] != "DATE":
        return 1
    wrong = con.execute(
        f"select count(*) from {table('files')} where format is null or date is null "
        "or (format in ('twdemo', 'teehistorian') "
        "and strftime(date, '%Y-%m-%d') <> left(start_time, 10))"
    ).fetchall()[0][0]
    misplaced = con.execute(
        f"select count(*) from {table('ticks')} t join {table('files')} f using (path) "
        "where t.format <> f.format or t.date <> f.date"
    ).fetchall()[0][0]
    formats = con.execute(
        f"select format, count(*) from {table('files')} group by all order by all"
    ).fetchall()
    print("files per format:", formats, "wrong:", wrong, "misplaced ticks:", misplaced)
    if wrong or misplaced:
        return 1
    # pyarrow names the same partition columns.
    names = ds.dataset(f"{dataset}/ticks", format="parquet", partitioning="hive").schema.names
    if names[-2:] != ["format", "date"]:
        print("pyarrow columns:", names)
        return 1
    # A query an analyst would write: chat lines per speaker, top speed per demo (in the
    # twdemo partition only, the one with velocities).
    speakers = con.execute(
        f"select name, count(*) from {table('chat')} "
        "where name <> '' group by name order by 2 desc, 1 limit 3"
    ).fetchall()
    top = con.execute(
        f"select path, max(sqrt(vel_x * vel_x + vel_y * vel_y)) as speed "
        f"from {table('ticks')} where format = 'twdemo' "
        "group by path order by speed desc limit 1"
    ).fetchall()
    print("top speakers:", speakers)
    print("fastest demo:", top)
    return 0 if speakers and top else 1


if __name__ == "__main__":
    sys.exit(main())
