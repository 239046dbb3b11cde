"""PySpark: archives of recordings expanded into demokit's tables by Spark itself.

Spark reads the directory as ``binaryFile`` (one row per file with its bytes), and each
partition turns its files into the rows of one table inside ``mapInArrow``, with demokit
running in every executor::

    from pyspark.sql import SparkSession
    from demokit import spark as dk

    session = SparkSession.builder.master("local[*]").getOrCreate()
    chat = dk.read_table(session, "/data/recordings", "chat")
    chat.groupBy("name").count().show()

The rows are those ``demokit export`` writes for the same files (read from an absolute
directory), except that Spark has no unsigned integers: ``uint64`` columns come as
``int64``, and ``modified_ns`` is Spark's modification time (in microseconds, times 1000).
Files of no format demokit reads are left out, as a directory export leaves them out.
"""

from __future__ import annotations

from typing import Callable, Iterator
from urllib.parse import unquote, urlparse

import pyarrow as pa

from . import READ_FORMATS, _demokit, detect_format, read_bytes
from . import schema as demokit_schema


def arrow_schema(table: str) -> pa.Schema:
    """The table's schema as Spark takes it: unsigned integers widened to ``int64``,
    dictionary-encoded strings (``path``) as plain strings."""

    def spark_field(f: pa.Field) -> pa.Field:
        if pa.types.is_unsigned_integer(f.type):
            return pa.field(f.name, pa.int64(), f.nullable)
        if pa.types.is_dictionary(f.type):
            return pa.field(f.name, f.type.value_type, f.nullable)
        return f

    return pa.schema([spark_field(f) for f in demokit_schema(table)])


def local_path(uri: str) -> str:
    """Spark's ``file:`` URI of a file as the local path ``demokit export`` names it by."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def expand(table: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function that turns ``binaryFile`` rows (``path``,
    ``modificationTime``, ``content``) into the rows of ``table``."""
    schema = arrow_schema(table)

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            paths = batch.column("path").to_pylist()
            times = batch.column("modificationTime").cast(pa.int64()).to_pylist()
            contents = batch.column("content")
            for i, uri in enumerate(paths):
                data = contents[i].as_py()
                # As `demokit export DIR`: other files are passed over, unless named like
                # a recording (their `files` row says what they are).
                path = local_path(uri)
                if detect_format(data) not in READ_FORMATS and not _demokit.named_like_a_recording(path):
                    continue
                modified_ns = None if times[i] is None else times[i] * 1000
                rows = read_bytes(data, path, modified_ns).table(table)
                for out in rows.cast(schema).to_batches():
                    yield out

    return run


def read_table(session, directory: str, table: str):
    """``table`` of every recording under ``directory`` (searched recursively), as a Spark
    DataFrame."""
    from pyspark.sql.pandas.types import from_arrow_schema

    files = (
        session.read.format("binaryFile")
        .option("recursiveFileLookup", "true")
        .load(directory)
    )
    return files.mapInArrow(expand(table), from_arrow_schema(arrow_schema(table)))
