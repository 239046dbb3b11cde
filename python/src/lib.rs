//! The native half of the `demokit` Python package: reads recordings with the library's
//! [`Exporter`] (the GIL released meanwhile) and hands its tables to Python through the
//! Arrow C stream interface (`__arrow_c_stream__`), so that `pyarrow.table(...)` takes the
//! columns without a copy. The Python half (`python/demokit/__init__.py`) gives them their
//! names and turns the errors into `demokit.DemokitError`.
//!
//! No format logic lives here: the tables, their schemas and the summaries are the
//! library's.

// No panics outside tests: errors are returned, and the few invariants that rule one out
// are proven where they are allowed (clippy.toml lets tests use these).
#![cfg_attr(
    not(test),
    deny(
        clippy::expect_used,
        clippy::unwrap_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;
use demokit::export::{Exporter, Table, TickSelection, modified_ns};
use demokit::output::{Overwrite, check_output, write_atomically, write_with_private_companion};
use demokit::recording::{Error, Format, Recording, RepairOptions, detect};
use demokit::time::RangeBound;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

create_exception!(
    _demokit,
    NativeError,
    PyException,
    "A recording that cannot be read: args are (message, offset or None, path, kind), the \
     kind one of `ErrorKind::id`'s names (`demokit.DemokitError` picks its class by it)."
);

/// One table's record batches, readable any number of times as an Arrow C stream.
#[pyclass(frozen, module = "demokit._demokit")]
struct ArrowStream {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

#[pymethods]
impl ArrowStream {
    /// The Arrow PyCapsule interface: a stream of the table's batches.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is the table's own; a consumer asking for another casts itself.
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            self.schema.clone(),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The number of rows.
    fn __len__(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// What reading one file or directory gave: the tables, and for a file its format, its
/// summary as JSON and the error that ended the reading early, if any.
#[pyclass(frozen, module = "demokit._demokit")]
struct Read {
    #[pyo3(get)]
    path: String,
    #[pyo3(get)]
    format: String,
    #[pyo3(get)]
    error: Option<(String, Option<u64>)>,
    /// The tables read (the others were not asked for).
    read_tables: Vec<Table>,
    tables: BTreeMap<Table, Vec<RecordBatch>>,
    /// The `ticks` table's schema when only some of its columns were read.
    ticks_schema: Option<SchemaRef>,
}

#[pymethods]
impl Read {
    /// The table named `name` as an Arrow stream (empty if the recording has no rows).
    fn table(&self, name: &str) -> PyResult<ArrowStream> {
        let table = table_named(name)?;
        let schema = match (&self.ticks_schema, table) {
            (Some(schema), Table::Ticks) => schema.clone(),
            _ => table.schema(),
        };
        Ok(ArrowStream {
            schema,
            batches: self.tables.get(&table).cloned().unwrap_or_default(),
        })
    }

    /// Whether the table named `name` was read.
    fn has_table(&self, name: &str) -> PyResult<bool> {
        Ok(self.read_tables.contains(&table_named(name)?))
    }

    /// The names of the tables, in order.
    #[staticmethod]
    fn table_names() -> Vec<&'static str> {
        Table::ALL.iter().map(|t| t.name()).collect()
    }
}

/// The table called `name`, or a `KeyError`.
fn table_named(name: &str) -> PyResult<Table> {
    Table::ALL
        .iter()
        .copied()
        .find(|t| t.name() == name)
        .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(name.to_owned()))
}

/// The table called `name` with no rows: its schema.
#[pyfunction]
fn empty_table(name: &str) -> PyResult<ArrowStream> {
    Ok(ArrowStream {
        schema: table_named(name)?.schema(),
        batches: Vec::new(),
    })
}

/// Which of Python's exception kinds an error becomes (`demokit/__init__.py` has a class
/// for each, a `DemokitError` and the standard library's kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ErrorKind {
    /// The file is not there: `FileNotFoundError`.
    NotFound,
    /// It may not be read or written: `PermissionError`.
    PermissionDenied,
    /// Reading or writing failed otherwise: `OSError`.
    Io,
    /// The bytes are no recording, or not a valid one: `ValueError`.
    Invalid,
    /// What was asked does not fit (a range outside the recording, an output that is the
    /// input or exists): `ValueError`.
    Usage,
}

impl ErrorKind {
    /// The kind of a library error.
    fn of(error: &Error) -> ErrorKind {
        match error.io_kind() {
            Some(std::io::ErrorKind::NotFound) => ErrorKind::NotFound,
            Some(std::io::ErrorKind::PermissionDenied) => ErrorKind::PermissionDenied,
            Some(_) => ErrorKind::Io,
            None => match error.cause() {
                demokit::recording::Cause::Io => ErrorKind::Io,
                demokit::recording::Cause::Invalid => ErrorKind::Invalid,
                _ => ErrorKind::Usage,
            },
        }
    }

    /// The kind of a system error.
    fn of_io(error: &std::io::Error) -> ErrorKind {
        match error.kind() {
            std::io::ErrorKind::NotFound => ErrorKind::NotFound,
            std::io::ErrorKind::PermissionDenied => ErrorKind::PermissionDenied,
            _ => ErrorKind::Io,
        }
    }

    /// The kind of an error that may carry a system error among its sources (a recorder's
    /// failed write); otherwise a usage error.
    fn of_source(error: &(dyn std::error::Error + 'static)) -> ErrorKind {
        let mut next = Some(error);
        while let Some(e) = next {
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                return ErrorKind::of_io(io);
            }
            next = e.source();
        }
        ErrorKind::Usage
    }

    /// The name `demokit/__init__.py` knows it by.
    fn id(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::PermissionDenied => "permission_denied",
            ErrorKind::Io => "io",
            ErrorKind::Invalid => "invalid",
            ErrorKind::Usage => "usage",
        }
    }
}

fn native_error((message, offset, kind): EditError, path: &Path) -> PyErr {
    NativeError::new_err((
        message,
        offset,
        path.to_string_lossy().into_owned(),
        kind.id(),
    ))
}

/// A usage error (no offset) as `NativeError`.
fn usage_error(message: impl std::fmt::Display, path: &Path) -> PyErr {
    native_error((message.to_string(), None, ErrorKind::Usage), path)
}

/// Reads one recording: the tables named (all if `None`; `files` always). The GIL is
/// released meanwhile. Raises for a file that is no recording demokit reads or whose
/// header cannot be read.
#[pyfunction]
#[pyo3(signature = (path, tables = None, players = None, ticks = None, columns = None))]
fn read_file(
    py: Python<'_>,
    path: PathBuf,
    tables: Option<Vec<String>>,
    players: Option<Vec<i32>>,
    ticks: Option<(i32, i32)>,
    columns: Option<Vec<String>>,
) -> PyResult<Read> {
    let columns = match &columns {
        Some(columns) => Some(TickSelection::column_indexes(columns).map_err(|c| {
            let schema = Table::Ticks.schema();
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            let message = format!(
                "the ticks table has no column {c:?}: its columns are {}",
                names.join(", ")
            );
            usage_error(message, &path)
        })?),
        None => None,
    };
    let selected_columns = columns.is_some();
    let selection = TickSelection {
        client_ids: players,
        ticks: ticks.map(|(start, end)| start..end),
        columns,
    };
    let wanted = match tables {
        Some(names) => Some(
            names
                .iter()
                .map(|n| table_named(n))
                .collect::<PyResult<Vec<Table>>>()?,
        ),
        None => None,
    };
    let read = py.detach(|| -> Result<Read, EditError> {
        // The entry point refuses what demokit does not read, with a sentence saying what
        // the file is; a teehistorian file is then read as a stream: its length costs no
        // memory of its own.
        let recording = Recording::open(&path).map_err(edit_error)?;
        let format = recording.format();
        let name = path.to_string_lossy();
        let mut tables: BTreeMap<Table, Vec<RecordBatch>> = BTreeMap::new();
        // One file, so a second core walks it while this one fills the tables.
        let exporter = match &wanted {
            Some(wanted) => Exporter::with_tables(wanted),
            None => Exporter::new(),
        };
        let mut exporter = exporter.pipelined(true).select_ticks(selection);
        let mut sink = |table, batch: RecordBatch| tables.entry(table).or_default().push(batch);
        exporter.add_recording(&name, modified_ns(&path), &recording, &mut sink);
        exporter.finish(&mut sink);
        let error = file_error(&tables);
        // A header that cannot be read is the caller's error, not a row.
        if let Some((message, offset)) = &error
            && file_row_is_empty(&tables)
        {
            return Err((message.clone(), *offset, ErrorKind::Invalid));
        }
        let read_tables = Table::ALL
            .iter()
            .copied()
            .filter(|&t| exporter.wants(t))
            .collect();
        let ticks_schema = selected_columns.then(|| exporter.schema(Table::Ticks));
        Ok(Read {
            path: name.into_owned(),
            format: format.id().to_owned(),
            error,
            read_tables,
            tables,
            ticks_schema,
        })
    });
    read.map_err(|e| native_error(e, &path))
}

/// Whether the one `files` row has no first tick: the file broke off before any record,
/// in its header.
fn file_row_is_empty(tables: &BTreeMap<Table, Vec<RecordBatch>>) -> bool {
    use arrow_array::{Array, UInt64Array};
    let Some(batch) = tables.get(&Table::Files).and_then(|b| b.first()) else {
        return true;
    };
    let records = batch
        .column_by_name("records")
        .and_then(|c| c.as_any().downcast_ref::<UInt64Array>().map(|a| a.value(0)));
    let version = batch.column_by_name("version").map(|c| c.is_null(0));
    records == Some(0) && version == Some(true)
}

/// Opens the recording at `path` and reads its header only, raising as `read_file` would
/// for a file that is no recording demokit reads or whose header cannot be read; its
/// format's name. What `demokit.open` does before it reads any table (lazily).
#[pyfunction]
fn check_file(py: Python<'_>, path: PathBuf) -> PyResult<&'static str> {
    let format = py.detach(|| -> Result<&'static str, EditError> {
        let recording = Recording::open(&path).map_err(edit_error)?;
        recording.check_header().map_err(edit_error)?;
        Ok(recording.format().id())
    });
    format.map_err(|e| native_error(e, &path))
}

/// The library's summary of a recording (what `demokit info --json` prints) as JSON; the
/// GIL is released meanwhile.
#[pyfunction]
fn summary(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let json = py.detach(|| -> Result<String, EditError> {
        let (summary, _) = Recording::open(&path)
            .and_then(|recording| recording.summary())
            .map_err(edit_error)?;
        Ok(serde_json::to_string(&summary).unwrap_or_default())
    });
    json.map_err(|e| native_error(e, &path))
}

/// The file's name as `demokit info --json` and `validate --json` give it, flattened into
/// the object that names it (the tool's `FileJson`).
#[derive(serde::Serialize)]
struct FileJson {
    /// The path, bytes that are not UTF-8 as `\xNN`.
    file: String,
    /// All bytes of the path in hex, when it is not UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    file_hex: Option<String>,
}

impl FileJson {
    fn of(path: &Path) -> FileJson {
        use std::fmt::Write as _;
        let bytes = path.as_os_str().as_encoded_bytes();
        let mut file = String::with_capacity(bytes.len());
        for chunk in bytes.utf8_chunks() {
            file.push_str(chunk.valid());
            for b in chunk.invalid() {
                let _ = write!(file, "\\x{b:02x}");
            }
        }
        let file_hex = std::str::from_utf8(bytes).is_err().then(|| {
            bytes.iter().fold(String::new(), |mut hex, b| {
                let _ = write!(hex, "{b:02x}");
                hex
            })
        });
        FileJson { file, file_hex }
    }
}

/// A read error as `demokit info --json` gives it.
#[derive(serde::Serialize)]
struct ErrorJson {
    offset: Option<u64>,
    message: String,
}

/// One line of `demokit info --json` or `validate --json`: the file, the library's value
/// (a summary or a validation) flattened after it, and the error that ended the reading
/// early, if any (the tool's `InfoJson` and `ValidateJson`).
#[derive(serde::Serialize)]
struct WithFile<'a, T: serde::Serialize> {
    #[serde(flatten)]
    file: FileJson,
    #[serde(flatten)]
    value: &'a T,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorJson>,
}

impl<'a, T: serde::Serialize> WithFile<'a, T> {
    fn json(path: &Path, value: &'a T, error: Option<&Error>) -> String {
        let line = WithFile {
            file: FileJson::of(path),
            value,
            error: error.map(|e| ErrorJson {
                offset: e.offset(),
                message: e.message(),
            }),
        };
        serde_json::to_string(&line).unwrap_or_default()
    }
}

/// What `demokit info --json FILE` prints, as JSON: the file, the library's summary of the
/// recording (of a map, for a Teeworlds/DDNet map file), and the error that ended the
/// reading early (`{"offset", "message"}`), if any. The GIL is released meanwhile.
#[pyfunction]
fn info(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let json = py.detach(|| -> Result<String, EditError> {
        let recording = match Recording::open(&path) {
            Ok(recording) => recording,
            // A map named on its own gets its facts, as the tool gives them.
            Err(refused) => {
                return match demokit::recording::map_summary(&path) {
                    Ok(Some(summary)) => Ok(WithFile::json(&path, &summary, None)),
                    Err(e @ Error::Invalid { .. }) => Err(edit_error(e)),
                    Ok(None) | Err(_) => Err(edit_error(refused)),
                };
            }
        };
        let (summary, error) = recording.summary().map_err(edit_error)?;
        Ok(WithFile::json(&path, &summary, error.as_ref()))
    });
    json.map_err(|e| native_error(e, &path))
}

/// What `demokit validate --json FILE` prints, as JSON: the file, then the library's
/// [`Validation`](demokit::recording::Validation) (`format`, `accepted`, a demo's
/// `verdict`, `problems`). A rejected file is a result, not an error; a file that is no
/// recording demokit reads raises. The GIL is released meanwhile.
#[pyfunction]
fn validate(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let json = py.detach(|| -> Result<String, EditError> {
        let recording = Recording::open(&path).map_err(edit_error)?;
        let validation = recording.validate().map_err(edit_error)?;
        Ok(WithFile::json(&path, &validation, None))
    });
    json.map_err(|e| native_error(e, &path))
}

/// The error the `files` row of a single file names.
fn file_error(tables: &BTreeMap<Table, Vec<RecordBatch>>) -> Option<(String, Option<u64>)> {
    use arrow_array::{Array, StringArray, UInt64Array};
    let batch = tables.get(&Table::Files)?.first()?;
    let errors = batch
        .column_by_name("error")?
        .as_any()
        .downcast_ref::<StringArray>()?;
    let offsets = batch
        .column_by_name("error_offset")?
        .as_any()
        .downcast_ref::<UInt64Array>()?;
    (errors.is_valid(0)).then(|| {
        (
            errors.value(0).to_owned(),
            offsets.is_valid(0).then(|| offsets.value(0)),
        )
    })
}

/// The format demokit detects from a file's first bytes, by its short name (`twdemo`,
/// `teehistorian`, `source`, `goldsrc`, `source2`), or `None`.
#[pyfunction]
fn detect_format(data: &[u8]) -> Option<&'static str> {
    detect(data).map(Format::id)
}

/// The ticks `from..=to` of the recording at `path`, each bound a tick, seconds (`"30s"`)
/// or a timeline marker (`"m1"`) as `trim` takes them (`None`: open), as the first and
/// last tick; a bound the recording cannot have is a usage error saying why.
#[pyfunction]
#[pyo3(signature = (path, start=None, end=None))]
fn tick_range(
    py: Python<'_>,
    path: PathBuf,
    start: Option<String>,
    end: Option<String>,
) -> PyResult<(i32, i32)> {
    let bound = |text: Option<String>| -> PyResult<Option<RangeBound>> {
        text.map(|t| t.parse::<RangeBound>().map_err(|e| usage_error(e, &path)))
            .transpose()
    };
    let (from, to) = (bound(start)?, bound(end)?);
    let range = py.detach(|| -> Result<Option<demokit::time::TickRange>, Error> {
        Recording::open(&path)?.tick_range(from, to)
    });
    match range {
        Ok(Some(range)) => Ok((range.from, range.to)),
        Ok(None) => Ok((i32::MIN, i32::MAX)),
        // What does not fit, without the operation's name.
        Err(Error::Argument { message, .. }) => Err(usage_error(message, &path)),
        Err(e) => Err(native_error(edit_error(e), &path)),
    }
}

/// The kinds of the `events` table's rows (`join`, `kill`, ...), as the library names
/// them.
#[pyfunction]
fn event_kinds() -> Vec<&'static str> {
    demokit::gamenet::summary::EventKind::ALL
        .iter()
        .map(|k| k.name())
        .collect()
}

/// Whether a file's name ends like a recording's (`.demo`, `.teehistorian`, `.dem`): found
/// in a directory and no recording, such a file is counted as failed, not passed over.
#[pyfunction]
fn named_like_a_recording(path: PathBuf) -> bool {
    Format::by_extension(&path).is_some()
}

/// Reads the bytes of one file as `demokit export` reads a file: never an exception for
/// what the bytes hold (a file that is no recording, or breaks off, names its error in its
/// `files` row). For engines that hand over file contents, such as Spark's `binaryFile`.
/// The GIL is released meanwhile.
#[pyfunction]
#[pyo3(signature = (data, path, modified_ns = None))]
fn read_bytes(py: Python<'_>, data: &[u8], path: &str, modified_ns: Option<i64>) -> Read {
    py.detach(|| {
        let mut tables: BTreeMap<Table, Vec<RecordBatch>> = BTreeMap::new();
        let mut exporter = Exporter::new();
        let mut sink = |table, batch| tables.entry(table).or_default().push(batch);
        exporter.add_modified(path, modified_ns, data, &mut sink);
        exporter.finish(&mut sink);
        Read {
            path: path.to_owned(),
            format: detect(data).map_or("unknown", Format::id).to_owned(),
            error: file_error(&tables),
            read_tables: Table::ALL.to_vec(),
            ticks_schema: None,
            tables,
        }
    })
}

/// Every file under `dir` (recursively, symbolic links to directories not followed), sorted.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            files_under(&entry.path(), out)?;
        } else if kind.is_file() || entry.path().is_file() {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// Reads every recording under a directory into one set of tables (files of no format
/// demokit reads are left out unless their names end like a recording's; recordings that
/// break off keep their rows and name their error in `files`), as `demokit export DIR`. The GIL is released meanwhile.
#[pyfunction]
fn read_dir(py: Python<'_>, path: PathBuf) -> PyResult<Read> {
    let read = py.detach(|| -> Result<Read, EditError> {
        let mut files = Vec::new();
        files_under(&path, &mut files).map_err(|e| {
            let kind = ErrorKind::of_io(&e);
            (format!("cannot read the directory: {e}"), None, kind)
        })?;
        files.sort();
        let mut tables: BTreeMap<Table, Vec<RecordBatch>> = BTreeMap::new();
        let mut exporter = Exporter::new();
        let mut sink = |table, batch| tables.entry(table).or_default().push(batch);
        for file in &files {
            let name = file.to_string_lossy();
            match Recording::open(file) {
                Ok(recording) => {
                    exporter.add_recording(&name, modified_ns(file), &recording, &mut sink);
                }
                // Files of no format demokit reads are left out, as `demokit export DIR`
                // passes them over, unless named like a recording: then their `files`
                // row says what they are.
                Err(Error::UnknownFormat { .. }) if Format::by_extension(file).is_none() => {}
                Err(Error::UnknownFormat { .. }) => {
                    match demokit::recording::read_input(file, demokit::recording::Limits::DEFAULT)
                    {
                        Ok(data) => {
                            exporter.add_modified(&name, modified_ns(file), &data, &mut sink);
                        }
                        Err(e) => exporter.add_unreadable(&name, &e.to_string()),
                    }
                }
                Err(e) => exporter.add_unreadable(&name, &e.to_string()),
            }
        }
        exporter.finish(&mut sink);
        Ok(Read {
            path: path.to_string_lossy().into_owned(),
            format: "directory".to_owned(),
            error: None,
            read_tables: Table::ALL.to_vec(),
            ticks_schema: None,
            tables,
        })
    });
    read.map_err(|e| native_error(e, &path))
}

/// What an editing function failed with: the message, the byte offset, if it has one, and
/// the kind of Python exception it becomes.
type EditError = (String, Option<u64>, ErrorKind);

/// The library's report as JSON.
fn report_json<S: serde::Serialize>(report: &S) -> String {
    serde_json::to_string(report).unwrap_or_default()
}

/// An error of the library as `NativeError`'s message, offset and kind.
fn edit_error(error: Error) -> EditError {
    edit_error_ref(&error)
}

/// Opens `input` through the library's entry point.
fn load_recording(input: &Path) -> Result<Recording, EditError> {
    Recording::open(input).map_err(edit_error)
}

/// Writes `bytes` to `output` through the library's atomic output: never a partial file,
/// never over the input, over an existing file only if `overwrite`.
fn write_output(
    input: &Path,
    output: &Path,
    overwrite: bool,
    bytes: &[u8],
) -> Result<(), EditError> {
    let overwrite = overwrite_policy(overwrite);
    check_output(output, overwrite, &[input])
        .map_err(|e| (e.to_string(), None, ErrorKind::Usage))?;
    let bytes = named_output(output, bytes)?;
    write_atomically(output, overwrite, &bytes)
        .map_err(|e| (e.to_string(), None, ErrorKind::of_source(&e)))
}

/// The bytes of a recording written as `output`: compressed when its name asks for it
/// (`out.demo.zst`).
fn named_output<'a>(
    output: &Path,
    bytes: &'a [u8],
) -> Result<std::borrow::Cow<'a, [u8]>, EditError> {
    demokit::recording::as_named(output, bytes)
        .map_err(|e| (format!("cannot compress: {e}"), None, ErrorKind::of_io(&e)))
}

/// The overwrite policy of an `overwrite=` argument.
fn overwrite_policy(overwrite: bool) -> Overwrite {
    if overwrite {
        Overwrite::Replace
    } else {
        Overwrite::Refuse
    }
}

/// Runs an editing function with the GIL released and turns its error into
/// `NativeError` for `input`.
fn edit(
    py: Python<'_>,
    input: &Path,
    work: impl FnOnce() -> Result<String, EditError> + Send,
) -> PyResult<String> {
    py.detach(work).map_err(|e| native_error(e, input))
}

/// Decodes every record of `input` and encodes it again into `output` (the library's
/// `rewrite` of its format); returns the statistics as JSON. A file that breaks off is
/// written up to the break, and the JSON names the error.
#[pyfunction]
#[pyo3(signature = (input, output, overwrite = false))]
fn rewrite_file(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    overwrite: bool,
) -> PyResult<String> {
    edit(py, &input, || {
        let recording = load_recording(&input)?;
        let mut bytes = Vec::new();
        let report = recording.rewrite(&mut bytes).map_err(edit_error)?;
        let mut stats = serde_json::to_value(&report.stats).unwrap_or_default();
        if let Some(error) = &report.error {
            if bytes.is_empty() {
                return Err(edit_error_ref(error));
            }
            if let Some(stats) = stats.as_object_mut() {
                stats.insert("error".into(), error.to_string().into());
            }
        }
        write_output(&input, &output, overwrite, &bytes)?;
        Ok(stats.to_string())
    })
}

/// [`edit_error`] of a borrowed error.
fn edit_error_ref(error: &Error) -> EditError {
    (error.message(), error.offset(), ErrorKind::of(error))
}

/// Repairs a cut-off or unfinished recording of any format into `output` (the library's
/// `repair` of its format); returns the report as JSON. `tick_interval` is for Source
/// demos only.
#[pyfunction]
#[pyo3(signature = (input, output, overwrite = false, tick_interval = None))]
fn repair_file(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    overwrite: bool,
    tick_interval: Option<f32>,
) -> PyResult<String> {
    edit(py, &input, || {
        let recording = load_recording(&input)?;
        let mut bytes = Vec::new();
        let options = RepairOptions::with_tick_interval(tick_interval);
        let report = recording.repair(&options, &mut bytes).map_err(edit_error)?;
        write_output(&input, &output, overwrite, &bytes)?;
        Ok(report_json(&report))
    })
}

/// Keeps the ticks `start..=end` of a Teeworlds demo or a teehistorian file (each a tick,
/// `"30s"` or, for demos, a timeline marker `"m1"`; `None`: the first or last tick);
/// returns the report as JSON.
#[pyfunction]
#[pyo3(signature = (input, output, start = None, end = None, overwrite = false))]
fn trim_file(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    start: Option<String>,
    end: Option<String>,
    overwrite: bool,
) -> PyResult<String> {
    edit(py, &input, || {
        let bound = |text: Option<String>| -> Result<Option<RangeBound>, EditError> {
            text.map(|t| {
                t.parse::<RangeBound>()
                    .map_err(|e| (e.to_string(), None, ErrorKind::Usage))
            })
            .transpose()
        };
        let (from, to) = (bound(start)?, bound(end)?);
        let recording = load_recording(&input)?;
        let mut bytes = Vec::new();
        let report = recording.trim(from, to, &mut bytes).map_err(edit_error)?;
        write_output(&input, &output, overwrite, &bytes)?;
        Ok(report_json(&report))
    })
}

/// Draws `input` as a picture (the library's `Recording::render`): the PNG's bytes, or an
/// SVG document's when `svg`. `map` is the map file (needed for a teehistorian file).
#[pyfunction]
#[pyo3(signature = (
    input, map = None, start = None, end = None, players = None, heatmap = false,
    width = 1024, height = 768, svg = false
))]
#[allow(clippy::too_many_arguments)]
fn render_file<'py>(
    py: Python<'py>,
    input: PathBuf,
    map: Option<PathBuf>,
    start: Option<String>,
    end: Option<String>,
    players: Option<Vec<String>>,
    heatmap: bool,
    width: u32,
    height: u32,
    svg: bool,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let work = || -> Result<Vec<u8>, (EditError, PathBuf)> {
        let on_input = |e: EditError| (e, input.clone());
        let bound = |text: Option<String>| -> Result<Option<RangeBound>, EditError> {
            text.map(|t| {
                t.parse::<RangeBound>()
                    .map_err(|e| (e.to_string(), None, ErrorKind::Usage))
            })
            .transpose()
        };
        let mut options = demokit::render::RenderOptions::default();
        options.from = bound(start).map_err(on_input)?;
        options.to = bound(end).map_err(on_input)?;
        options.players = players.unwrap_or_default();
        options.heatmap = heatmap;
        options.size = (width, height);
        if let Some(map) = &map {
            let bytes = demokit::recording::read_input(map, demokit::recording::Limits::DEFAULT)
                .map_err(|e| (edit_error(e), map.clone()))?;
            options.map = Some(bytes);
        }
        let recording = load_recording(&input).map_err(on_input)?;
        let format = if svg {
            demokit::render::ImageFormat::Svg
        } else {
            demokit::render::ImageFormat::Png
        };
        recording
            .render(&options, format)
            .map_err(|e| on_input(edit_error(e)))
    };
    let bytes = py
        .detach(work)
        .map_err(|(e, path)| native_error(e, &path))?;
    Ok(pyo3::types::PyBytes::new(py, &bytes))
}

/// Converts a Teeworlds demo to another demo version (3 to 6); returns the report as JSON.
#[pyfunction]
#[pyo3(signature = (input, output, version, overwrite = false))]
fn convert_file(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    version: u8,
    overwrite: bool,
) -> PyResult<String> {
    edit(py, &input, || {
        let recording = load_recording(&input)?;
        let mut bytes = Vec::new();
        let report = recording.convert(version, &mut bytes).map_err(edit_error)?;
        write_output(&input, &output, overwrite, &bytes)?;
        Ok(report_json(&report))
    })
}

/// Scrubs a teehistorian file or a Teeworlds demo into `output` (the library's `scrub`
/// of its format, with the options the CLI's flags set); returns the report as JSON,
/// which holds no name. `chat`: `"all"`, `"whispers"` or `"team"`; `names` (or a `key`)
/// turns pseudonyms on; `all` is everything the format can carry (the library's
/// `Recording::scrub_everything`). With `mapping`, the pseudonyms given (original ->
/// pseudonym) are written there as JSON, mode 0600, and the two files land together or
/// not at all.
#[pyfunction]
#[pyo3(signature = (input, output, names = false, key = None, chat = None, credentials = false,
                    drop_reasons = false, server = false, clear_header = Vec::new(),
                    all = false, mapping = None, overwrite = false))]
#[allow(clippy::too_many_arguments)] // The keyword arguments of `demokit.scrub`.
fn scrub_file(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    names: bool,
    key: Option<Vec<u8>>,
    chat: Option<String>,
    credentials: bool,
    drop_reasons: bool,
    server: bool,
    clear_header: Vec<String>,
    all: bool,
    mapping: Option<PathBuf>,
    overwrite: bool,
) -> PyResult<String> {
    use demokit::scrub::{ChatFilter, Pseudonyms, ScrubOptions};
    edit(py, &input, || {
        let chat = match chat.as_deref() {
            None => None,
            Some("all") => Some(ChatFilter::All),
            Some("whispers") => Some(ChatFilter::Whispers),
            Some("team") => Some(ChatFilter::Team),
            Some(other) => {
                return Err((
                    format!("chat={other:?}: \"all\", \"whispers\" or \"team\""),
                    None,
                    ErrorKind::Usage,
                ));
            }
        };
        let recording = load_recording(&input)?;
        let mut options = if all {
            recording.scrub_everything(key.clone())
        } else {
            ScrubOptions::default()
        };
        if names || key.is_some() {
            options.names = Some(Pseudonyms { key });
        }
        options.chat = chat.or(options.chat);
        options.credentials |= credentials;
        options.drop_reasons |= drop_reasons;
        options.server |= server;
        for k in clear_header {
            if !options.clear_header.contains(&k) {
                options.clear_header.push(k);
            }
        }
        let mut bytes = Vec::new();
        let report = recording.scrub(&options, &mut bytes).map_err(edit_error)?;
        match &mapping {
            Some(mapping) => {
                let overwrite = overwrite_policy(overwrite);
                let mut text = serde_json::to_vec_pretty(report.mapping())
                    .map_err(|e| (e.to_string(), None, ErrorKind::Usage))?;
                text.push(b'\n');
                if *mapping == output {
                    return Err((
                        "mapping= must not be the output".into(),
                        None,
                        ErrorKind::Usage,
                    ));
                }
                check_output(&output, overwrite, &[&input, mapping])
                    .and_then(|()| check_output(mapping, overwrite, &[&input, &output]))
                    .map_err(|e| (e.to_string(), None, ErrorKind::Usage))?;
                let bytes = named_output(&output, &bytes)?;
                write_with_private_companion(&output, overwrite, &bytes, mapping, overwrite, &text)
                    .map_err(|e| (e.to_string(), None, ErrorKind::of_source(&e)))?;
            }
            None => write_output(&input, &output, overwrite, &bytes)?,
        }
        Ok(report_json(&report))
    })
}

/// A teehistorian recorder writing to a file, driven from Python as a server drives
/// DDNet's: the library's [`Recorder`](demokit::teehistorian::Recorder) in an
/// `Option` (`None` once finished). Every call's error is the recorder's, with its
/// message; a call in the wrong phase is refused and writes nothing.
#[pyclass(module = "demokit._demokit")]
struct TeehistorianRecorder {
    recorder: Option<demokit::teehistorian::Recorder<std::fs::File>>,
    path: PathBuf,
}

impl TeehistorianRecorder {
    fn live(&mut self) -> PyResult<&mut demokit::teehistorian::Recorder<std::fs::File>> {
        let path = self.path.clone();
        self.recorder
            .as_mut()
            .ok_or_else(|| usage_error("the recording is finished", &path))
    }

    /// Runs one recorder call, turning its error into `NativeError`.
    fn call(
        &mut self,
        f: impl FnOnce(
            &mut demokit::teehistorian::Recorder<std::fs::File>,
        ) -> Result<(), demokit::teehistorian::RecorderError>,
    ) -> PyResult<()> {
        let path = self.path.clone();
        f(self.live()?).map_err(|e| {
            let kind = ErrorKind::of_source(&e);
            native_error((e.to_string(), None, kind), &path)
        })
    }
}

#[pymethods]
impl TeehistorianRecorder {
    /// Creates `path` (an existing file only with `overwrite`) and writes the header, from
    /// JSON as DDNet writes it (`{"version": "2", "map_name": ..., ...}`).
    #[new]
    #[pyo3(signature = (path, header_json, overwrite = false))]
    fn new(path: PathBuf, header_json: &str, overwrite: bool) -> PyResult<Self> {
        let fail = |message: String| usage_error(message, &path);
        let header = demokit::teehistorian::Header::from_json(header_json.as_bytes())
            .map_err(|e| fail(format!("bad header: {e}")))?;
        let mode = if overwrite {
            Overwrite::Replace
        } else {
            Overwrite::Refuse
        };
        check_output(&path, mode, &[]).map_err(|e| fail(e.to_string()))?;
        let file = if overwrite {
            std::fs::File::create(&path)
        } else {
            std::fs::File::create_new(&path)
        }
        .map_err(|e| {
            let kind = ErrorKind::of_io(&e);
            native_error((format!("cannot create: {e}"), None, kind), &path)
        })?;
        let recorder =
            demokit::teehistorian::Recorder::new(file, &header).map_err(|e| fail(e.to_string()))?;
        Ok(TeehistorianRecorder {
            recorder: Some(recorder),
            path,
        })
    }

    /// The tick being recorded.
    #[getter]
    fn tick(&mut self) -> PyResult<i32> {
        Ok(self.live()?.tick())
    }

    fn begin_tick(&mut self, tick: i32) -> PyResult<()> {
        self.call(|r| r.begin_tick(tick))
    }

    fn begin_players(&mut self) -> PyResult<()> {
        self.call(|r| r.begin_players())
    }

    fn record_player(&mut self, cid: i32, x: i32, y: i32) -> PyResult<()> {
        self.call(|r| r.record_player(cid, x, y))
    }

    fn record_dead_player(&mut self, cid: i32) -> PyResult<()> {
        self.call(|r| r.record_dead_player(cid))
    }

    fn end_players(&mut self) -> PyResult<()> {
        self.call(|r| r.end_players())
    }

    fn begin_inputs(&mut self) -> PyResult<()> {
        self.call(|r| r.begin_inputs())
    }

    fn record_player_input(
        &mut self,
        cid: i32,
        unique_client_id: u32,
        input: [i32; demokit::teehistorian::format::INPUT_INTS],
    ) -> PyResult<()> {
        self.call(|r| r.record_player_input(cid, unique_client_id, &input))
    }

    fn end_inputs(&mut self) -> PyResult<()> {
        self.call(|r| r.end_inputs())
    }

    fn end_tick(&mut self) -> PyResult<()> {
        self.call(|r| r.end_tick())
    }

    #[pyo3(signature = (cid, protocol = 6))]
    fn record_player_join(&mut self, cid: i32, protocol: u8) -> PyResult<()> {
        let protocol = match protocol {
            6 => demokit::gamenet::Protocol::Six,
            7 => demokit::gamenet::Protocol::Seven,
            other => {
                let path = self.path.clone();
                return Err(usage_error(
                    format!("protocol {other}: 6 (0.6/DDNet) or 7 (0.7)"),
                    &path,
                ));
            }
        };
        self.call(|r| r.record_player_join(cid, protocol))
    }

    /// EX PLAYER_NAME: client `cid`'s name (DDNet records it when a player joins or is
    /// renamed).
    fn record_player_name(&mut self, cid: i32, name: &str) -> PyResult<()> {
        self.call(|r| r.record_player_name(cid, name))
    }

    fn record_player_drop(&mut self, cid: i32, reason: &str) -> PyResult<()> {
        self.call(|r| r.record_player_drop(cid, reason))
    }

    fn record_player_message(&mut self, cid: i32, data: &[u8]) -> PyResult<()> {
        self.call(|r| r.record_player_message(cid, data))
    }

    fn record_console_command(
        &mut self,
        cid: i32,
        flag_mask: i32,
        cmd: &str,
        args: Vec<String>,
    ) -> PyResult<()> {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.call(|r| r.record_console_command(cid, flag_mask, cmd, &args))
    }

    /// Writes FINISH and closes the file; later calls are refused.
    fn finish(&mut self) -> PyResult<()> {
        let path = self.path.clone();
        match self.recorder.take() {
            Some(recorder) => recorder.finish().map(drop).map_err(|e| {
                let kind = ErrorKind::of_source(&e);
                native_error((e.to_string(), None, kind), &path)
            }),
            None => Err(usage_error("the recording is finished", &path)),
        }
    }
}

/// The native module `demokit._demokit`.
#[pymodule]
fn _demokit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SCHEMA_VERSION", demokit::export::SCHEMA_VERSION)?;
    m.add_class::<ArrowStream>()?;
    m.add_class::<Read>()?;
    m.add_class::<TeehistorianRecorder>()?;
    m.add_function(wrap_pyfunction!(read_file, m)?)?;
    m.add_function(wrap_pyfunction!(check_file, m)?)?;
    m.add_function(wrap_pyfunction!(read_dir, m)?)?;
    m.add_function(wrap_pyfunction!(read_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(detect_format, m)?)?;
    m.add_function(wrap_pyfunction!(named_like_a_recording, m)?)?;
    m.add_function(wrap_pyfunction!(event_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(tick_range, m)?)?;
    m.add_function(wrap_pyfunction!(empty_table, m)?)?;
    m.add_function(wrap_pyfunction!(summary, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite_file, m)?)?;
    m.add_function(wrap_pyfunction!(repair_file, m)?)?;
    m.add_function(wrap_pyfunction!(trim_file, m)?)?;
    m.add_function(wrap_pyfunction!(render_file, m)?)?;
    m.add_function(wrap_pyfunction!(convert_file, m)?)?;
    m.add_function(wrap_pyfunction!(scrub_file, m)?)?;
    Ok(())
}
