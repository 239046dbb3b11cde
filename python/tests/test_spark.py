"""The PySpark recipe (``demokit.spark``): Spark in local mode reads the real recordings
as ``binaryFile``, expands them with demokit inside ``mapInArrow``, and gets the rows
``demokit export`` writes for the same directory (``uint64`` columns as ``int64``, as Spark
has no unsigned integers; ``modified_ns`` left out, Spark keeps microseconds).

Needs ``pyspark`` and Java: skipped without them, unless ``DEMOKIT_REQUIRE_SPARK=1``
(``.ci/run`` sets it).
"""

import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import demokit
from test_demokit import demokit_bin, shared

try:
    from pyspark.sql import SparkSession
except ImportError:  # pragma: no cover - depends on the machine
    SparkSession = None


@pytest.fixture(scope="module")
def spark():
    if SparkSession is None:
        if os.environ.get("DEMOKIT_REQUIRE_SPARK") == "1":
            pytest.fail("DEMOKIT_REQUIRE_SPARK=1 but pyspark is not installed")
        pytest.skip("pyspark is not installed")
    # The workers run this Python, which has demokit and pyarrow.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("demokit-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


def test_spark_expands_recordings_into_the_exported_rows(spark, tmp_path):
    from demokit import spark as dk

    fixtures = shared().resolve()
    out = tmp_path / "dataset"
    # negative/'s two files named like recordings fail the export (exit 1), their rows kept.
    done = subprocess.run([demokit_bin(), "export", fixtures, "-o", out], capture_output=True)
    assert done.returncode == 1, done.stderr
    for name in demokit.Recording.TABLES:
        ours = dk.read_table(spark, str(fixtures), name).toArrow()
        # The default layout is Hive-partitioned: compare the table's own columns.
        exported = ds.dataset(out / name, format="parquet", partitioning="hive")
        exported = exported.to_table(columns=ours.schema.names)
        exported = exported.cast(dk.arrow_schema(name))
        if name == "files":
            ours = ours.drop_columns(["modified_ns"])
            exported = exported.drop_columns(["modified_ns"])
        # Spark marks every column nullable: compare values, not nullability.
        ours = ours.cast(pa.schema([f.with_nullable(True) for f in ours.schema]))
        exported = exported.cast(pa.schema([f.with_nullable(True) for f in exported.schema]))
        assert ours.num_rows == exported.num_rows, name
        key = [(c, "ascending") for c in exported.schema.names]
        assert ours.sort_by(key).equals(exported.sort_by(key)), name
        # Spark reads the dataset itself, the partition columns from the directory names.
        read = spark.read.parquet(str(out / name))
        assert read.columns[-1] == "date" and "format" in read.columns, name
        assert read.count() == exported.num_rows, name
        if name == "files":
            formats = {r["format"] for r in read.select("format").distinct().collect()}
            assert {"twdemo", "teehistorian", "source"} <= formats, formats
            assert read.where("date is null").count() == 0
