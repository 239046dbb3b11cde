"""Teeworlds/DDNet demos, DDNet teehistorian files and Source engine demos as pyarrow tables.

``demokit.open(path)`` reads one recording, ``demokit.scan(directory)`` every recording
under a directory; both give a :class:`Recording` whose tables (``files``, ``chat``,
``players``, ``ticks``, ``inputs``, ``game_events``, ``frames``) are ``pyarrow.Table`` objects, handed over
from Rust through the Arrow C stream interface without copying. Reading releases the GIL,
so threads read files in parallel. The columns are those of ``demokit export``.

``demokit.info`` and ``demokit.validate`` give what ``demokit info --json`` and ``demokit
validate --json`` print, as dicts. ``Recording.to_pandas`` (or :func:`pandas_types` as
pyarrow's ``types_mapper``) keeps nullable integer columns integers in pandas, and
:func:`sort_by` sorts by the dictionary-encoded columns pyarrow's ``sort_by`` refuses.

``demokit.rewrite``, ``repair``, ``trim`` and ``convert`` turn one recording into another
file as the command-line tool's commands of those names do: never a partial output, never
over the input, over an existing file only with ``overwrite=True``; each returns the
library's report as a dict.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import pyarrow as pa
import pyarrow.compute as pc

from . import _demokit

__all__ = [
    "DemokitError",
    "NotFoundError",
    "PermissionDeniedError",
    "ReadWriteError",
    "InvalidRecordingError",
    "UsageError",
    "PartialReadWarning",
    "EVENT_KINDS",
    "TickBound",
    "Ticks",
    "Recording",
    "open",
    "scan",
    "read_bytes",
    "detect_format",
    "schema",
    "info",
    "validate",
    "pandas_types",
    "sort_by",
    "rewrite",
    "repair",
    "trim",
    "convert",
    "scrub",
    "TeehistorianRecorder",
    "SCHEMA_VERSION",
    "__version__",
]

__version__: str = _demokit.__version__
SCHEMA_VERSION: int = _demokit.SCHEMA_VERSION

PathLike = Union[str, "os.PathLike[str]"]


class DemokitError(Exception):
    """Why demokit could not do what was asked: what is wrong, where, and in which file.

    Raised as one of its kinds, each also the standard library's exception of that kind:
    :class:`NotFoundError` (a ``FileNotFoundError``), :class:`PermissionDeniedError` (a
    ``PermissionError``), :class:`ReadWriteError` (an ``OSError``),
    :class:`InvalidRecordingError` (a ``ValueError``: the bytes are no recording demokit
    reads, or not a valid one) and :class:`UsageError` (a ``ValueError``: what was asked
    does not fit, such as a range outside the recording or an output that exists).
    ``str(error)`` is ``PATH: at byte N: what is wrong``."""

    def __init__(self, message: str, offset: Optional[int], path: str) -> None:
        text = message
        # The message of a read error may name its offset already.
        if offset is not None and f"at byte {offset}" not in message:
            text = f"at byte {offset}: {message}"
        super().__init__(f"{path}: {text}" if path else text)
        #: What is wrong, without the path.
        self.message = message
        #: The byte offset of the problem in the file, when it has one.
        self.offset = offset
        #: The file.
        self.path = path

    def __str__(self) -> str:
        # OSError's own __str__ would show its (empty) errno fields instead.
        return str(self.args[0]) if self.args else ""


class NotFoundError(DemokitError, FileNotFoundError):
    """The file is not there."""


class PermissionDeniedError(DemokitError, PermissionError):
    """The file may not be read, or the output not written."""


class ReadWriteError(DemokitError, OSError):
    """Reading the input or writing the output failed otherwise."""


class InvalidRecordingError(DemokitError, ValueError):
    """The bytes are no recording demokit reads, or not a valid one."""


class UsageError(DemokitError, ValueError):
    """What was asked does not fit: a range outside the recording, an output that is the
    input or exists, a recorder call out of order."""


class PartialReadWarning(UserWarning):
    """A recording was read in part: it breaks off, or is damaged past its start. The
    tables hold what came before the break; :attr:`Recording.error` (or the ``error``
    column of ``files``) says where and why. The command-line tool exits 1 in the same
    case. Turn it into an exception with ``warnings.simplefilter("error",
    demokit.PartialReadWarning)``."""


def _warn_partial(path: str, message: str, offset: Optional[int], stacklevel: int = 4) -> None:
    where = f"at byte {offset}: " if offset is not None and f"at byte {offset}" not in message else ""
    warnings.warn(
        PartialReadWarning(f"{path}: read in part, up to the error: {where}{message}"),
        stacklevel=stacklevel,
    )


def _warn_partial_files(files: pa.Table) -> None:
    """Warns once for a table of files some of which were not read whole."""
    errors = [
        (path, error)
        for path, error in zip(files["path"].to_pylist(), files["error"].to_pylist())
        if error is not None
    ]
    if errors:
        shown = "; ".join(f"{path}: {error}" for path, error in errors[:3])
        more = f"; and {len(errors) - 3} more" if len(errors) > 3 else ""
        warnings.warn(
            PartialReadWarning(
                f"{len(errors)} of {files.num_rows} files were not read whole (see the "
                f"error column of files): {shown}{more}"
            ),
            stacklevel=3,
        )


_KINDS = {
    "not_found": NotFoundError,
    "permission_denied": PermissionDeniedError,
    "io": ReadWriteError,
    "invalid": InvalidRecordingError,
    "usage": UsageError,
}


def _error(args: Sequence[Any]) -> DemokitError:
    message, offset, path, kind = args
    return _KINDS.get(kind, DemokitError)(message, offset, path)


def _wrapped(call, *args):
    try:
        return call(*args)
    except _demokit.NativeError as e:
        raise _error(e.args) from None


# The ticks a table can hold (its `tick` column is an int32): an open end of a range.
_TICK_MIN = -(2**31)
_TICK_MAX = 2**31 - 1


def _shown(ticks: range) -> str:
    """A range of ticks in words: ``ticks 300 to 400``, ``ticks from 300 on``."""
    first, last = ticks.start, ticks.stop - 1
    if first <= _TICK_MIN and last >= _TICK_MAX:
        return "ticks (all of them)"
    if first <= _TICK_MIN:
        return f"ticks up to {last}"
    if last >= _TICK_MAX:
        return f"ticks from {first} on"
    return f"ticks {first} to {last}"


#: A bound of a tick range: a tick (``1500``), seconds from the start (``"30s"``), a
#: demo's timeline marker (``"m1"``), or ``None`` (open), as ``demokit trim --from/--to``
#: take them.
TickBound = Union[int, str, None]

#: ``ticks=`` of every call that takes a tick range: a ``range`` of step 1, or ``(from,
#: to)`` (both kept) of :data:`TickBound`.
Ticks = Union[range, Tuple[TickBound, TickBound], None]


def _bounds(ticks: Ticks, path: Any = None) -> Tuple[Optional[str], Optional[str]]:
    """``ticks=`` as the library's ``--from``/``--to`` texts (``None``: open)."""
    if ticks is None:
        return (None, None)
    if isinstance(ticks, range):
        if ticks.step != 1 or len(ticks) == 0:
            raise UsageError(f"ticks={ticks!r}: a range of step 1 that holds a tick", None, path)
        return (str(ticks.start), str(ticks.stop - 1))
    if isinstance(ticks, tuple) and len(ticks) == 2:
        return tuple(None if b is None else str(b) for b in ticks)  # type: ignore[return-value]
    raise UsageError("ticks is a range of step 1, or (from, to)", None, path)


def _in_ticks(column: Any, ticks: range) -> Any:
    """The mask of the rows of ``column`` (a ``tick`` column) in ``ticks``."""
    return pc.and_(pc.greater_equal(column, ticks.start), pc.less(column, ticks.stop))


def _listed(players: Union[int, str, Sequence[Union[int, str]], None]) -> Optional[List[Union[int, str]]]:
    """``players=`` as a list: one player (a client id or a name) or several."""
    if players is None:
        return None
    if isinstance(players, (int, str)):
        return [players]
    return list(players)


def _columns(table: str, columns: Sequence[str], path: str) -> List[str]:
    """``columns`` of ``table`` as a list; one the table does not have raises
    :class:`UsageError` listing its columns."""
    names = schema(table).names
    unknown = [c for c in columns if c not in names]
    if unknown:
        raise UsageError(
            f"the {table} table has no column {', '.join(map(repr, unknown))}: its columns are {', '.join(names)}",
            None,
            path,
        )
    return list(columns)


def __dir__() -> Sequence[str]:
    # The API only, not the modules this one imports (PEP 562).
    return sorted(__all__)


class Recording:
    """The tables of one recording, or of every recording under a directory."""

    def __init__(
        self,
        read: Any,
        reread: Optional[Any] = None,
        *,
        path: Optional[str] = None,
        format: Optional[str] = None,  # noqa: A002
        tables: Optional[Sequence[str]] = None,
    ) -> None:
        # What was read; for a file from `open`, nothing until a table is asked for.
        self._read_now = read
        # For a file from `open`: reads the tables named (all for None).
        self._reread = reread
        # The tables a file's first reading takes: those `open` was given, or all.
        self._first_tables = tables
        self._path = path if read is None else read.path
        self._format = format if read is None else read.format
        self._tables: Dict[str, pa.Table] = {}
        self._header: Optional[Dict[str, Any]] = None
        # Whether a reading that stopped at an error has said so (once per recording).
        self._warned = False

    @property
    def _read(self) -> Any:
        # A file from `open` is read (the tables it was opened with) when first needed.
        if self._read_now is None:
            self._read_now = self._reread(self._first_tables)
            self._warn_once(self._read_now)
        return self._read_now

    def _warn_once(self, read: Any) -> None:
        """Warns (:class:`PartialReadWarning`) that a reading stopped at an error, once."""
        if read.error is not None and not self._warned:
            self._warned = True
            message, offset = read.error
            _warn_partial(self._path, message, offset)

    def _table_alone(self, name: str) -> pa.Table:
        """The table ``name``; for a file from :func:`open` of which nothing was read yet,
        read alone (a pass that makes no other table) rather than with every table."""
        if name not in self._tables and self._read_now is None and self._reread is not None:
            read = self._reread([name])
            self._warn_once(read)
            self._tables[name] = pa.table(read.table(name))
        return self.table(name)

    @property
    def path(self) -> str:
        """The file or directory read."""
        return self._path

    @property
    def format(self) -> str:
        """``twdemo``, ``teehistorian``, ``source`` (the names the tool's JSON and the tables
        use), or ``directory`` for :func:`scan`."""
        return self._format

    @property
    def header(self) -> Dict[str, Any]:
        """The recording's summary (header fields, tick range, counts), as ``demokit info
        --json`` gives it; empty for a directory or bytes. Read when first asked for (a
        pass over the file)."""
        if self._header is None:
            if self._reread is None:
                self._header = {}
            else:
                self._header = json.loads(_wrapped(_demokit.summary, self._path))
        return self._header

    @property
    def error(self) -> Optional[DemokitError]:
        """Why the recording could not be read to its end, if it could not; the tables
        hold everything before that point."""
        if self._read.error is None:
            return None
        message, offset = self._read.error
        return InvalidRecordingError(message, offset, self._path)

    def table(self, name: str) -> pa.Table:
        """The table ``name`` (one of :attr:`TABLES`)."""
        if name not in self._tables:
            read = self._read
            if self._reread is not None and not read.has_table(name):
                read = self._reread([name])
            self._tables[name] = pa.table(read.table(name))
        return self._tables[name]

    #: The tables, in order.
    TABLES = tuple(_demokit.Read.table_names())

    def render(
        self,
        *,
        map: Optional[PathLike] = None,  # noqa: A002
        ticks: Ticks = None,
        players: Optional[Sequence[str]] = None,
        heatmap: bool = False,
        size: Tuple[int, int] = (1024, 768),
        format: str = "png",  # noqa: A002
    ) -> bytes:
        """A picture of the game, as ``demokit render`` draws it: the map's tiles (the
        demo's embedded map, or ``map``, the map file a teehistorian file needs), each
        player's path in its own colour, marks for spawns, deaths, kills and finishes, and
        a title. ``ticks`` as :meth:`ticks` takes them, ``players`` by name,
        ``heatmap`` for where the players were most, ``size`` as (width, height) in
        pixels. Returns the PNG's bytes (``format="svg"``: the SVG document's). A notebook
        shows it with ``IPython.display.Image(recording.render())``."""
        if self._reread is None:
            raise UsageError("only a recording opened with demokit.open can be drawn", None, self._path)
        if format not in ("png", "svg"):
            raise UsageError(f"format {format!r}: png or svg", None, self._path)
        start, end = _bounds(ticks, self._path)
        width, height = size
        return _wrapped(
            _demokit.render_file,
            self._path,
            None if map is None else os.fspath(map),
            start,
            end,
            None if players is None else list(players),
            heatmap,
            int(width),
            int(height),
            format == "svg",
        )

    def files(self) -> pa.Table:
        """One row per file: format, version, map, tick range, error."""
        return self.table("files")

    def chat(self) -> pa.Table:
        """One row per chat line (teehistorian: the server console's ``say``)."""
        return self.table("chat")

    def players(self) -> pa.Table:
        """One row per player stint: a client id from joining to leaving."""
        return self.table("players")

    def events(
        self,
        kind: Union[str, Sequence[str], None] = None,
        players: Union[int, str, Sequence[Union[int, str]], None] = None,
        ticks: Ticks = None,
    ) -> pa.Table:
        """One row per game event (kills, deaths, finishes, votes called, joins, leaves,
        name and team changes). ``kind`` keeps only events of that kind or kinds
        (``"kill"``, ``["join", "leave"]``); a kind that does not exist raises
        :class:`UsageError` listing the kinds (:data:`EVENT_KINDS`). ``players`` and
        ``ticks`` select as in :meth:`ticks`: the events of those players (by client id or
        name; the player's ``client_id`` or ``victim``: a kill is its killer's and its
        victim's), and of those ticks."""
        kinds = None
        if kind is not None:
            kinds = [kind] if isinstance(kind, str) else list(kind)
            unknown = [k for k in kinds if k not in EVENT_KINDS]
            if unknown:
                raise UsageError(
                    f"no event kind {', '.join(map(repr, unknown))}: the kinds are {', '.join(EVENT_KINDS)}",
                    None,
                    self.path,
                )
        players = _listed(players)
        selected_ticks = self._tick_selection(ticks)
        ids = None if players is None else self._client_ids(players, check=False)
        table = self.table("events")
        keep = []
        if kinds is not None:
            keep.append(pc.is_in(table["kind"], value_set=pa.array(kinds, pa.string())))
        if ids is not None:
            value_set = pa.array(ids, pa.int32())
            keep.append(
                pc.or_(
                    pc.fill_null(pc.is_in(table["client_id"], value_set=value_set), False),
                    pc.fill_null(pc.is_in(table["victim"], value_set=value_set), False),
                )
            )
        if selected_ticks is not None:
            keep.append(_in_ticks(table["tick"], selected_ticks))
        if keep:
            mask = keep[0]
            for more in keep[1:]:
                mask = pc.and_(mask, more)
            table = table.filter(mask)
        if table.num_rows == 0:
            self._check_selection(players, selected_ticks)
        return table

    def _tick_bounds(self, start: Union[int, str, None], end: Union[int, str, None]) -> range:
        """The ticks ``start`` to ``end``, both kept, as ``demokit trim --from/--to`` takes
        them: a tick (``1500``), seconds (``"30s"``), a demo's timeline marker (``"m1"``)
        or ``None`` (open). Ticks and open ends need no pass over the file; seconds and
        markers are resolved by the library (``Recording::tick_range``) and need a file
        opened with :func:`open`."""
        if all(b is None or isinstance(b, int) for b in (start, end)):
            first = _TICK_MIN if start is None else start
            last = _TICK_MAX if end is None else end
        elif self._reread is None:
            raise UsageError("(from, to) of a directory or bytes are ticks", None, self.path)
        else:
            first, last = _wrapped(
                _demokit.tick_range,
                self._path,
                None if start is None else str(start),
                None if end is None else str(end),
            )
        return range(first, last + 1)

    def _tick_selection(
        self, ticks: Ticks
    ) -> Optional[range]:
        """``ticks=`` of :meth:`ticks` and :meth:`events` as a range of step 1 (``None``:
        every tick); an empty one raises :class:`UsageError`."""
        if ticks is None:
            return None
        if isinstance(ticks, tuple) and len(ticks) == 2:
            ticks = self._tick_bounds(*ticks)
        if not isinstance(ticks, range) or ticks.step != 1:
            raise UsageError("ticks is a range of step 1, or (from, to)", None, self.path)
        if len(ticks) == 0:
            raise UsageError(f"the tick range {ticks!r} is empty", None, self.path)
        return ticks

    def _tick_span(self) -> Optional[Tuple[int, int]]:
        """The first and last tick of play, as ``info`` gives them (over every file for a
        directory), or ``None`` when the recording has no ticks."""
        if self._reread is not None:
            first, last = self.header.get("first_tick"), self.header.get("last_tick")
        else:
            files = self.table("files")
            firsts = [t for t in files["first_tick"].to_pylist() if t is not None]
            lasts = [t for t in files["last_tick"].to_pylist() if t is not None]
            first, last = (min(firsts), max(lasts)) if firsts and lasts else (None, None)
        if first is None or last is None:
            return None
        return (min(first, last), max(first, last))

    def _check_ticks(self, ticks: range) -> None:
        """Raises :class:`UsageError` for a tick range that lies outside the recording's
        ticks: a selection of nothing is a mistake, never 0 rows. (Asked only when a
        selection came out empty: the recording's tick range is a pass over the file.)"""
        span = self._tick_span()
        if span is None:
            raise UsageError(f"the {_shown(ticks)} select nothing: the recording has no ticks", None, self.path)
        first, last = span
        if ticks.stop <= first or ticks.start > last:
            raise UsageError(
                f"the {_shown(ticks)} are outside the recording's ticks {first} to {last}",
                None,
                self.path,
            )

    def _check_selection(self, players: Optional[Sequence[Union[int, str]]], ticks: Optional[range]) -> None:
        """For a selection that came out empty: raises :class:`UsageError` if it names
        ticks outside the recording or a player it does not have."""
        if ticks is not None:
            self._check_ticks(ticks)
        if players is not None:
            self._client_ids(players, check=True)

    def _client_ids(self, players: Sequence[Union[int, str]], check: bool) -> List[int]:
        """The client ids of ``players``, given by id or by name (every stint of that
        name). A name is looked up in :meth:`players` (read alone, the first time: a pass
        over the file); ids are checked there only with ``check`` (when a selection came
        out empty), so that a selection by id keeps the reading's fast path. One the
        recording does not have raises :class:`UsageError` listing those it has."""
        if not players:
            raise UsageError("players=[] selects nothing", None, self.path)
        out: List[int] = [int(p) for p in players if not isinstance(p, str)]
        by_name = [p for p in players if isinstance(p, str)]
        if not by_name and not check:
            return sorted(set(out))
        table = self._table_alone("players")
        ids = table["client_id"].to_pylist()
        names = table["name"].to_pylist()
        for player in by_name:
            found = [i for i, n in zip(ids, names) if n == player]
            if not found:
                known = ", ".join(sorted({repr(n) for n in names})) or "none"
                raise UsageError(f"no player named {player!r}: the players are {known}", None, self.path)
            out.extend(found)
        for player in out:
            if check and player not in ids:
                known = ", ".join(str(i) for i in sorted(set(ids))) or "none"
                raise UsageError(f"no player with client id {player}: the ids are {known}", None, self.path)
        return sorted(set(out))

    def ticks(
        self,
        columns: Optional[Sequence[str]] = None,
        players: Union[int, str, Sequence[Union[int, str]], None] = None,
        ticks: Ticks = None,
    ) -> pa.Table:
        """One row per tick per character (demos) or player position (teehistorian).

        ``columns`` keeps only those columns, in that order (one the table does not have
        raises :class:`UsageError` listing its columns); ``players`` only the rows of
        those players, by client id or by name (a player the recording does not have
        raises :class:`UsageError` listing those it has); ``ticks`` only those ticks: a
        ``range`` (step 1), or ``(from, to)`` with both kept, each a tick, seconds
        (``"30s"``), a timeline marker (``"m1"``) as ``demokit trim`` takes them, or ``None``
        (open). For a file opened with :func:`open` the selection is pushed into the
        reading: the rows left out are never made, the walk of a teehistorian file
        follows only the selected players, and the reading stops after the last selected
        tick. For :func:`scan` and :func:`read_bytes` it filters the table read. A
        ``ticks`` range that is empty or outside the recording's ticks raises
        :class:`UsageError` (a ``ValueError``) naming the recording's ticks.

        A selection by name first reads the ``players`` table (a pass over the file, once
        per recording); one by client id reads nothing but the selection."""
        if columns is None and players is None and ticks is None:
            return self.table("ticks")
        if columns is not None:
            columns = _columns("ticks", [columns] if isinstance(columns, str) else columns, self.path)
        players = _listed(players)
        selected_ticks = self._tick_selection(ticks)
        ids = None if players is None else self._client_ids(players, check=False)
        if self._reread is not None:
            bounds = None
            if selected_ticks is not None:
                bounds = (max(selected_ticks.start, _TICK_MIN), min(selected_ticks.stop, _TICK_MAX))
            read = _wrapped(_demokit.read_file, self._path, ["ticks"], ids, bounds, columns)
            self._warn_once(read)
            table = pa.table(read.table("ticks"))
        else:
            table = self.table("ticks")
            if ids is not None:
                table = table.filter(pc.is_in(table["client_id"], value_set=pa.array(ids, pa.int32())))
            if selected_ticks is not None:
                table = table.filter(_in_ticks(table["tick"], selected_ticks))
            if columns is not None:
                table = table.select(columns)
        if table.num_rows == 0:
            self._check_selection(players, selected_ticks)
        return table

    def inputs(self) -> pa.Table:
        """One row per input a client sent (teehistorian)."""
        return self.table("inputs")

    def frames(self) -> pa.Table:
        """One row per frame (Source demos)."""
        return self.table("frames")

    def game_events(self) -> pa.Table:
        """One row per game event of a Source demo: its name and its values as a JSON
        object keyed by the demo's own descriptor."""
        return self.table("game_events")

    def to_pandas(self, table: str) -> "pandas.DataFrame":  # noqa: F821
        """The table ``table`` (one of :attr:`TABLES`) as a pandas DataFrame whose integer
        and boolean columns stay nullable (pandas' ``Int32``, ``UInt64``, ``boolean``...:
        a missing value is ``<NA>``, and an int column with one stays ints, not floats);
        see :func:`pandas_types`. Needs pandas."""
        return self.table(table).to_pandas(types_mapper=pandas_types)

    def __repr__(self) -> str:
        return f"<demokit.Recording {self.format} {self.path!r}>"


def open(path: PathLike, tables: Optional[Sequence[str]] = None) -> Recording:  # noqa: A001
    """Opens one recording, reading its header only. Raises :class:`DemokitError` if it is
    no recording demokit reads or its header cannot be read. The tables are read when
    first asked for: every table at once, or only ``tables`` (any other is read when
    asked for); :meth:`Recording.ticks` with a selection reads only that. A recording that
    breaks off later has :attr:`Recording.error` set."""
    path = os.fspath(path)
    format = _wrapped(_demokit.check_file, path)  # noqa: A001

    def read(names):
        return _wrapped(_demokit.read_file, path, None if names is None else list(names))

    return Recording(None, read, path=path, format=format, tables=tables)


def scan(path: PathLike) -> Recording:
    """Reads every recording under a directory (other files are left out) into one set of
    tables, joined on ``path``. Files not read whole (their ``files`` row's ``error``)
    raise one :class:`PartialReadWarning` naming them."""
    recording = Recording(_wrapped(_demokit.read_dir, os.fspath(path)))
    _warn_partial_files(recording.files())
    return recording


def read_bytes(data: bytes, path: str, modified_ns: Optional[int] = None) -> Recording:
    """Reads a file's bytes as ``demokit export`` reads a file: never raises for what the
    bytes hold (its ``files`` row names the error). For engines that hand over file
    contents, such as Spark's ``binaryFile`` source (see :mod:`demokit.spark`)."""
    return Recording(_demokit.read_bytes(data, path, modified_ns))


def detect_format(data: bytes) -> Optional[str]:
    """The format of a file from its first bytes: ``twdemo``, ``teehistorian``,
    ``source`` (read by demokit), ``goldsrc``, ``source2`` (named, not read), or
    ``None``."""
    return _demokit.detect_format(data)


#: The kinds of the ``events`` table's rows, as :meth:`Recording.events` takes them.
EVENT_KINDS: Tuple[str, ...] = tuple(_demokit.event_kinds())

#: The formats demokit reads, as :func:`detect_format` names them.
READ_FORMATS = ("twdemo", "teehistorian", "source")


def schema(table: str) -> pa.Schema:
    """The Arrow schema of ``table`` (one of :attr:`Recording.TABLES`)."""
    return pa.table(_demokit.empty_table(table)).schema


def info(path: PathLike) -> Dict[str, Any]:
    """What ``demokit info --json PATH`` prints, as a dict: ``file`` (the path), the
    library's summary of the recording (its format, header fields, tick range, counts;
    for a Teeworlds/DDNet map, the map's facts) and, for a recording that breaks off,
    ``error`` (``{"offset", "message"}``: the summary is of what came before; a
    :class:`PartialReadWarning` says so too). Raises :class:`DemokitError` for a file that
    is neither a recording demokit reads nor a map, or whose header cannot be read."""
    path = os.fspath(path)
    summary = json.loads(_wrapped(_demokit.info, path))
    error = summary.get("error")
    if error is not None:
        _warn_partial(path, error["message"], error["offset"], stacklevel=3)
    return summary


def validate(path: PathLike) -> Dict[str, Any]:
    """What ``demokit validate --json PATH`` prints, as a dict: ``file`` (the path), then the
    library's findings: ``format``, ``accepted`` (no fatal problem), for a demo ``verdict``
    (how DDNet's client ends with it: ``plays``, ``rejects`` or ``crashes``) and
    ``problems`` (each with its ``offset``, ``message``, ``fatal``, ...; the warnings,
    then the fatal problem the check stopped at). A rejected file is a result, not an
    exception; a file that is no recording demokit reads raises :class:`DemokitError`."""
    return json.loads(_wrapped(_demokit.validate, os.fspath(path)))


# Arrow's integer and boolean types and pandas' nullable dtype of each (filled in when
# first asked for: pandas is imported only then).
_PANDAS_TYPES: Dict[pa.DataType, Any] = {}


def pandas_types(arrow_type: pa.DataType) -> Optional[Any]:
    """A ``types_mapper`` for pyarrow's ``to_pandas``: pandas' nullable dtype of an Arrow
    integer or boolean type (``Int32``, ``UInt64``, ``boolean``...), ``None`` (pyarrow's
    default) for any other. With it a column with nulls (``victim``, ``weapon`` and
    ``x`` of ``events``, ``first_tick`` of ``files``...) stays integers with ``<NA>``
    where pyarrow alone makes floats with NaN::

        df = recording.events().to_pandas(types_mapper=demokit.pandas_types)

    (:meth:`Recording.to_pandas` does this.) Dictionary-encoded columns become pandas
    categoricals, strings Python strings, as pyarrow makes them. Needs pandas."""
    if not _PANDAS_TYPES:
        import pandas as pd

        _PANDAS_TYPES.update(
            {
                pa.int8(): pd.Int8Dtype(),
                pa.int16(): pd.Int16Dtype(),
                pa.int32(): pd.Int32Dtype(),
                pa.int64(): pd.Int64Dtype(),
                pa.uint8(): pd.UInt8Dtype(),
                pa.uint16(): pd.UInt16Dtype(),
                pa.uint32(): pd.UInt32Dtype(),
                pa.uint64(): pd.UInt64Dtype(),
                pa.bool_(): pd.BooleanDtype(),
            }
        )
    return _PANDAS_TYPES.get(arrow_type)


def sort_by(table: pa.Table, sorting: Union[str, Sequence[Tuple[str, str]]]) -> pa.Table:
    """``table.sort_by(sorting)`` that also sorts by the dictionary-encoded string columns
    (``path``, the ``name`` of ``ticks`` and ``events``...), which pyarrow's ``sort_by``
    refuses ("ArrowNotImplementedError: dictionary<values=string, ...>"). ``sorting`` as
    pyarrow takes it: a column name (ascending), or ``[(name, "ascending" or
    "descending"), ...]``. The rows are sorted by the columns' values (not by dictionary
    index); the table returned keeps its schema, dictionaries included."""
    keys = [(sorting, "ascending")] if isinstance(sorting, str) else list(sorting)
    # The key columns alone, the dictionary-encoded ones decoded, give the order.
    columns = {}
    for name, _ in keys:
        column = table[name]
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        columns[name] = column
    order = pc.sort_indices(pa.table(columns), sort_keys=keys)
    return table.take(order)


def _edited(call, input: PathLike, output: PathLike, *args) -> Dict[str, Any]:
    return json.loads(_wrapped(call, os.fspath(input), os.fspath(output), *args))


def rewrite(input: PathLike, output: PathLike, *, overwrite: bool = False) -> Dict[str, Any]:  # noqa: A002
    """Decodes every record of ``input`` and encodes it again into ``output``: a recording
    demokit reads comes out byte for byte. Returns the statistics (records re-encoded,
    kept as stored); a file that breaks off is written up to the break and the dict's
    ``error`` says why. Raises :class:`DemokitError` when nothing could be written."""
    return _edited(_demokit.rewrite_file, input, output, overwrite)


def repair(
    input: PathLike,  # noqa: A002
    output: PathLike,
    *,
    overwrite: bool = False,
    tick_interval: Optional[float] = None,
) -> Dict[str, Any]:
    """Writes a cut-off or unfinished recording as a complete one (every complete record
    kept, the end and the header's totals as the recorder would have written them).
    ``tick_interval``: seconds per tick, for Source demos of unknown games. Returns the
    report."""
    return _edited(_demokit.repair_file, input, output, overwrite, tick_interval)


def trim(
    input: PathLike,  # noqa: A002
    output: PathLike,
    *,
    ticks: Ticks = None,
    overwrite: bool = False,
) -> Dict[str, Any]:
    """Keeps the ticks ``ticks`` of a Teeworlds demo, a teehistorian file or a Source demo:
    a ``range``, or ``(from, to)`` (both kept), each a tick (``1500``),
    seconds (``"30s"``: from a demo's first tick, from tick 0 in a teehistorian file; not
    for a Source demo) or a demo's timeline marker (``"m1"``); ``None``: the first or the
    last tick. A demo starts with a rebuilt keyframe, a Source demo with packets that
    restore the state at the cut, a teehistorian file with the state a reader needs (see
    ``demokit trim``). Returns the report."""
    start, end = _bounds(ticks, input)
    return _edited(_demokit.trim_file, input, output, start, end, overwrite)


def convert(
    input: PathLike,  # noqa: A002
    output: PathLike,
    version: int,
    *,
    overwrite: bool = False,
) -> Dict[str, Any]:
    """Converts a Teeworlds demo to another demo version (3 to 6). Returns the report."""
    return _edited(_demokit.convert_file, input, output, version, overwrite)


def scrub(
    input: PathLike,  # noqa: A002
    output: PathLike,
    *,
    names: bool = False,
    key: Optional[bytes] = None,
    chat: Optional[str] = None,
    credentials: bool = False,
    drop_reasons: bool = False,
    server: bool = False,
    clear_header: Sequence[str] = (),
    all: bool = False,  # noqa: A002
    mapping: Optional[PathLike] = None,
    overwrite: bool = False,
) -> Dict[str, Any]:
    """Writes a teehistorian file, a Teeworlds demo or a Source demo with
    what the options name taken out, as ``demokit scrub`` does: ``names`` (or a ``key``)
    gives players and clans pseudonyms (with a key the same in every file; in a Source demo
    Steam ids, addresses and voice go too), ``chat`` drops ``"all"`` chat, ``"whispers"``
    or ``"team"`` chat, ``server`` what identifies the server (its name, port, address,
    MOTD and every free-text setting), ``credentials``, ``drop_reasons`` and
    ``clear_header`` (teehistorian only) drop credential commands, empty drop reasons and
    header keys (``config.NAME`` takes one setting out; a key no header holds raises);
    ``all`` is all of them. Everything else stays as it was, byte for byte.

    Returns the report, which holds no name (``pseudonyms`` is how many were given). With
    ``mapping``, the pseudonyms (original name -> pseudonym) are written to that JSON file,
    readable by its owner only, and the two files are written together or not at all:
    keep it private, it undoes the scrub."""
    return _edited(
        _demokit.scrub_file,
        input,
        output,
        names,
        key,
        chat,
        credentials,
        drop_reasons,
        server,
        list(clear_header),
        all,
        None if mapping is None else os.fspath(mapping),
        overwrite,
    )


class TeehistorianRecorder:
    """Records a teehistorian file as a DDNet server does, tick by tick (the library's
    ``teehistorian::Recorder``): what a game server written in Python, or a tool making
    test files, calls. The file is written as it grows, so a crash leaves every complete
    tick readable (``demokit.repair`` finishes it).

    Each tick: ``begin_tick(t)``, then ``begin_players()``, ``record_player(cid, x, y)`` or
    ``record_dead_player(cid)`` per client in client id order, ``end_players()``,
    ``begin_inputs()``, ``record_player_input(cid, unique_client_id, input)`` (the ten ints
    of the client's input), ``end_inputs()``, ``end_tick()``. Joins, drops, messages and
    console commands may come between. A call the recorder's rules do not allow raises
    :class:`DemokitError` and writes nothing. ``with`` finishes the file on leaving."""

    def __init__(self, path: PathLike, header: Dict[str, Any], *, overwrite: bool = False) -> None:
        self.path = os.fspath(path)
        self._native = _wrapped(
            _demokit.TeehistorianRecorder, self.path, json.dumps(header), overwrite
        )

    @property
    def tick(self) -> int:
        """The tick being recorded."""
        return _wrapped(lambda: self._native.tick)

    def begin_tick(self, tick: int) -> None:
        """Starts tick ``tick`` (above the previous one); nothing is written until something
        is recorded in it."""
        _wrapped(self._native.begin_tick, tick)

    def begin_players(self) -> None:
        """Opens the tick's players phase."""
        _wrapped(self._native.begin_players)

    def record_player(self, cid: int, x: int, y: int) -> None:
        """Client ``cid``'s character is at (``x``, ``y``): written as new, as a move, or not at
        all if it stood still. Players come in ascending client id order."""
        _wrapped(self._native.record_player, cid, x, y)

    def record_dead_player(self, cid: int) -> None:
        """Client ``cid`` has no character (it died or is a spectator)."""
        _wrapped(self._native.record_dead_player, cid)

    def end_players(self) -> None:
        """Closes the players phase."""
        _wrapped(self._native.end_players)

    def begin_inputs(self) -> None:
        """Opens the tick's inputs phase."""
        _wrapped(self._native.begin_inputs)

    def record_player_input(self, cid: int, unique_client_id: int, input: Sequence[int]) -> None:  # noqa: A002
        """Client ``cid``'s input this tick: its ten ints (direction, target x and y, jump,
        fire, hook, player flags, wanted, next and previous weapon); written as new or as
        the difference from the last one."""
        _wrapped(self._native.record_player_input, cid, unique_client_id, list(input))

    def end_inputs(self) -> None:
        """Closes the inputs phase."""
        _wrapped(self._native.end_inputs)

    def end_tick(self) -> None:
        """Ends the tick; the recorder hands its bytes to the file."""
        _wrapped(self._native.end_tick)

    def record_player_join(self, cid: int, protocol: int = 6) -> None:
        """A client joins: ``protocol`` 6 (0.6/DDNet) or 7 (0.7)."""
        _wrapped(self._native.record_player_join, cid, protocol)

    def record_player_name(self, cid: int, name: str) -> None:
        """The client's name, as DDNet records it when a player joins or is renamed (the
        name the ``players`` and ``ticks`` tables give the client's rows from then on)."""
        _wrapped(self._native.record_player_name, cid, name)

    def record_player_drop(self, cid: int, reason: str = "") -> None:
        """Client ``cid`` leaves the server, for ``reason``."""
        _wrapped(self._native.record_player_drop, cid, reason)

    def record_player_message(self, cid: int, data: bytes) -> None:
        """A network message the client sent, as its packed bytes."""
        _wrapped(self._native.record_player_message, cid, data)

    def record_console_command(self, cid: int, flag_mask: int, cmd: str, args: Sequence[str] = ()) -> None:
        """A console command ``cmd`` with ``args`` run by client ``cid`` (-1: the server),
        with the command's flag mask."""
        _wrapped(self._native.record_console_command, cid, flag_mask, cmd, list(args))

    def finish(self) -> None:
        """Writes FINISH and closes the file."""
        _wrapped(self._native.finish)

    def __enter__(self) -> "TeehistorianRecorder":
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self._native.finish()
        except _demokit.NativeError:
            pass  # finished already
