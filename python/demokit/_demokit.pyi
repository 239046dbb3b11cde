"""Type stubs of the native module (``demokit._demokit``); use the ``demokit`` package."""

from typing import List, Optional, Tuple

__version__: str
SCHEMA_VERSION: int

class NativeError(Exception):
    """args: (message, offset or None, path); ``demokit`` raises ``DemokitError`` instead."""

class ArrowStream:
    """One table's batches, as an Arrow C stream (``pyarrow.table(stream)``)."""
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __len__(self) -> int: ...

class Read:
    """What reading a file or a directory gave."""
    path: str
    format: str
    summary_json: Optional[str]
    error: Optional[Tuple[str, Optional[int]]]
    def table(self, name: str) -> ArrowStream: ...
    @staticmethod
    def table_names() -> List[str]: ...

def read_file(path: str) -> Read: ...
def read_dir(path: str) -> Read: ...
def read_bytes(data: bytes, path: str, modified_ns: Optional[int] = None) -> Read: ...
def detect_format(data: bytes) -> Optional[str]: ...
def empty_table(name: str) -> ArrowStream: ...
