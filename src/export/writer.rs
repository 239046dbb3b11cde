//! Writing the tables' batches as a Parquet dataset: one directory per table, flat
//! (`DIR/<table>/part-<n>.parquet`) or in Hive-style partitions
//! (`DIR/<table>/format=<format>/date=<YYYY-MM-DD>/part-<n>.parquet`, see
//! [`Partitioning`]), so that DuckDB, Spark or pyarrow read each table as a dataset and a
//! later run adds parts to it. The partition columns are only in the directory names.
//!
//! One run writes a dataset at a time: a [`DatasetWriter`] holds a lock on
//! `DIR/`[`LOCK_FILE`] from its creation to its end (the kernel lets go of it when the
//! process dies, however it dies), and a second writer of the same directory is refused
//! with [`ExportError::Locked`], so two runs never add the same files' rows twice. Parts
//! are written under hidden temporary names (`.part-<n>.parquet.partial`), which pyarrow,
//! DuckDB's `*.parquet` globs and Spark all pass over; the temporary parts a killed run
//! left are removed by the next writer, which holds the lock and so knows them abandoned.

use super::{Partition, Partitioning, SCHEMA_VERSION, Table};
use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::arrow_writer::{ArrowColumnWriter, ArrowRowGroupWriterFactory, compute_leaves};
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Rows per Parquet row group, at most (DuckDB writes 122,880): the row group a writer
/// holds until it is full is one of the buffers that fill as the first files come.
const ROW_GROUP_ROWS: usize = 64 * 1024;

/// How much of a table a part's writer holds before writing it out. These bounds make
/// peak memory independent of the number of files once they are reached, and the sooner
/// they are reached, the sooner memory levels off: a table with a few rows per file must
/// hold fewer of them.
struct Buffering {
    /// The most rows of a page. A column holds a page's values, levels and dictionary
    /// indices until the page is cut: at the writer's default (20,000 rows) every column
    /// of every table held that many rows once there were enough files. Smaller pages
    /// compress a little worse.
    page_rows: usize,
    /// The most bytes (as encoded) a table's unwritten row group may hold before it is
    /// written.
    row_group_bytes: usize,
    /// Whether columns are dictionary-encoded. Each dictionary column's writer makes a
    /// hash table of 74 KB for every row group, which the allocator keeps once freed:
    /// for the tables of a few rows per file, that cost more memory than the
    /// dictionaries saved on disk.
    dictionary: bool,
}

impl Buffering {
    /// A table's limits.
    fn of(table: Table) -> Self {
        match table {
            // A row per tick or frame: a file has thousands, so these fill their pages
            // within the first files, and long row groups are what scans want.
            Table::Ticks | Table::Inputs | Table::Frames => Buffering {
                page_rows: 2 * 1024,
                row_group_bytes: 256 * 1024,
                dictionary: true,
            },
            // A few rows per file: with larger limits they would keep filling until
            // thousands of files had come, and peak memory would grow with the number
            // of files until then.
            Table::Files | Table::Chat | Table::Players | Table::Events | Table::GameEvents => {
                Buffering {
                    page_rows: 1024,
                    row_group_bytes: 64 * 1024,
                    dictionary: false,
                }
            }
        }
    }
}

/// The most bytes of a column's page, and of its dictionary.
const PAGE_BYTES: usize = 32 * 1024;

/// The row groups a part file gets by default before the next batches go to a new
/// part: the writer keeps each row group's metadata until the file is closed, so a part
/// without a limit would take memory in proportion to everything written to it.
pub const MAX_ROW_GROUPS_PER_PART: usize = 16;

/// The most Parquet files [`DatasetWriter`] keeps open per table by default: each holds
/// a row group being written, so memory grows with them, not with the partitions.
pub const MAX_OPEN_PARTS: usize = 8;

/// Why a dataset could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file or directory of the dataset could not be made or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The Parquet writer refused.
    #[error("{path}: {source}")]
    Parquet {
        /// The file.
        path: PathBuf,
        /// What the writer said.
        source: parquet::errors::ParquetError,
    },
    /// Another run is writing the dataset: it holds the lock on [`LOCK_FILE`].
    #[error(
        "{path}: another demokit export is writing this dataset; run again when it has finished"
    )]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
    /// The dataset holds parts of another schema version, which a run must not mix with
    /// its own: readers of a dataset expect one schema.
    #[error(
        "{path}: written with demokit's schema version {found}, this demokit writes {SCHEMA_VERSION}: export into a new directory"
    )]
    SchemaVersion {
        /// The part.
        path: PathBuf,
        /// Its `demokit.schema_version` (`none` if it has none).
        found: String,
    },
}

/// What the writer's own bookkeeping lacks for `table` (a writer, a row group or a part it
/// has just found or made): an error rather than a panic, never expected.
fn missing(table: Table) -> ExportError {
    ExportError::Parquet {
        path: PathBuf::from(table.name()),
        source: parquet::errors::ParquetError::General(format!(
            "the writer lost track of its {} table",
            table.name()
        )),
    }
}

/// The file in a dataset's directory that a [`DatasetWriter`] keeps locked while it writes
/// (hidden, so that readers of the dataset pass over it).
pub const LOCK_FILE: &str = ".demokit-lock";

/// Takes the lock on the dataset in `dir` (see [`LOCK_FILE`]).
fn lock_dataset(dir: &Path) -> Result<File, ExportError> {
    let path = dir.join(LOCK_FILE);
    let io = |source| ExportError::Io {
        path: path.clone(),
        source,
    };
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    // A lock just released can look held for a moment: a process that starts a program
    // (`fork`, then `exec`) holds a copy of every open file until the `exec`, the lock's
    // too. So a held lock is asked again for a little while before it is another run's.
    let deadline = std::time::Instant::now() + LOCK_PATIENCE;
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(lock),
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(std::fs::TryLockError::WouldBlock) => return Err(ExportError::Locked { path }),
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
    }
}

/// How long a held lock is asked again before [`ExportError::Locked`] (see
/// [`lock_dataset`]).
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

/// Removes every temporary part under `dir` (`.part-<n>.parquet.partial`, and
/// `part-<n>.parquet.partial` as earlier versions named them): only called with the
/// dataset's lock held, so none is another run's part in progress.
/// The commit journal in the dataset's directory: the parts a finishing run is moving into
/// place, one path (relative to the directory) per line. Written and synced before the
/// first rename and removed after the last, so that a run killed between them is
/// completed by the next one, which opens the dataset: no part of a committed run is lost, and
/// none of a run that never committed appears.
pub const COMMIT_JOURNAL: &str = ".demokit-commit";

/// Completes the commit a killed run began, if its journal is there: every part it names
/// that is still under its temporary name is moved into place, then the journal goes.
fn roll_forward(dir: &Path) -> Result<(), ExportError> {
    let journal = dir.join(COMMIT_JOURNAL);
    let text = match std::fs::read_to_string(&journal) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(ExportError::Io {
                path: journal,
                source,
            });
        }
    };
    for line in text.lines().filter(|l| !l.is_empty()) {
        let relative = Path::new(line);
        // Only parts under the dataset's directory: the journal is a file like any other.
        if !relative
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
        {
            continue;
        }
        let path = dir.join(relative);
        let from = temporary(&path);
        if from.is_file() {
            std::fs::rename(&from, &path).map_err(|source| ExportError::Io { path, source })?;
        }
    }
    sync_tree(dir)?;
    std::fs::remove_file(&journal).map_err(|source| ExportError::Io {
        path: journal,
        source,
    })
}

/// Syncs `dir` and the directories under it (on Unix; elsewhere a rename is as durable
/// as the file system makes it).
fn sync_tree(dir: &Path) -> Result<(), ExportError> {
    #[cfg(unix)]
    {
        let mut stack = vec![dir.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let io = |source| ExportError::Io {
                path: dir.clone(),
                source,
            };
            File::open(&dir).and_then(|d| d.sync_all()).map_err(io)?;
            for entry in std::fs::read_dir(&dir).map_err(io)?.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(entry.path());
                }
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

fn remove_abandoned_parts(dir: &Path) -> Result<(), ExportError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExportError::Io { path, source }
    };
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(io(&dir))? {
            let entry = entry.map_err(io(&dir))?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if entry.file_type().map_err(io(&path))?.is_dir() {
                stack.push(path);
            } else if name.ends_with(".parquet.partial")
                && part_number(name.trim_start_matches('.').trim_end_matches(".partial")).is_some()
            {
                std::fs::remove_file(&path).map_err(io(&path))?;
            }
        }
    }
    Ok(())
}

/// Adds the files one `files` part names to `out`.
fn read_exported(path: &Path, out: &mut Vec<ExportedFile>) -> Result<(), ExportError> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use arrow_array::{Array, Int64Array, StringArray, UInt64Array};
    let parquet = |source| ExportError::Parquet {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(|source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(parquet)?;
    let version = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .and_then(|pairs| pairs.iter().find(|kv| kv.key == "demokit.schema_version"))
        .and_then(|kv| kv.value.clone());
    if version.as_deref() != Some(SCHEMA_VERSION.to_string().as_str()) {
        return Err(ExportError::SchemaVersion {
            path: path.to_path_buf(),
            found: version.unwrap_or_else(|| "none".to_owned()),
        });
    }
    let reader = builder.build().map_err(parquet)?;
    for batch in reader {
        let batch = batch.map_err(|e| parquet(e.into()))?;
        let column = |name: &str| batch.column_by_name(name).cloned();
        let (Some(paths), Some(bytes), Some(modified)) =
            (column("path"), column("bytes"), column("modified_ns"))
        else {
            continue;
        };
        let Some(paths) = paths
            .as_dictionary_opt::<Int32Type>()
            .and_then(|d| d.downcast_dict::<StringArray>())
        else {
            continue;
        };
        let (Some(bytes), Some(modified)) = (
            bytes.as_any().downcast_ref::<UInt64Array>(),
            modified.as_any().downcast_ref::<Int64Array>(),
        ) else {
            continue;
        };
        let selections = column("selection");
        let selections = selections
            .as_ref()
            .and_then(|s| s.as_any().downcast_ref::<StringArray>());
        for (row, path) in paths.into_iter().enumerate() {
            let Some(path) = path else { continue };
            out.push(ExportedFile {
                path: path.to_owned(),
                bytes: bytes.value(row),
                modified_ns: modified.is_valid(row).then(|| modified.value(row)),
                selection: selections
                    .and_then(|s| s.is_valid(row).then(|| s.value(row).to_owned())),
            });
        }
    }
    Ok(())
}

/// One open part file: Parquet's file writer and the names it is written under. It holds
/// no rows: row groups come to it encoded (see [`Encoder`]) and are copied in.
struct OpenPart {
    table: Table,
    /// The partition's directory under the table's.
    dir: PathBuf,
    /// When a row group was last appended to it, in appends: the least recent is closed
    /// first.
    used: u64,
    writer: SerializedFileWriter<File>,
    /// Where it is written until [`DatasetWriter::finish`].
    temporary: PathBuf,
    /// Where it goes then.
    path: PathBuf,
}

/// A row group being encoded, for one table in one partition.
struct Group {
    table: Table,
    /// The partition's directory under the table's.
    dir: PathBuf,
    /// When it was last written to, in the encoder's writes.
    used: u64,
    /// A writer per leaf column, encoding and compressing pages as rows come.
    columns: Vec<ArrowColumnWriter>,
    rows: usize,
}

impl Group {
    /// Encodes `batch`'s columns into the group's pages.
    fn write(&mut self, batch: &RecordBatch) -> parquet::errors::Result<()> {
        let mut columns = self.columns.iter_mut();
        for (field, column) in batch.schema_ref().fields().iter().zip(batch.columns()) {
            for leaf in compute_leaves(field, column)? {
                let Some(writer) = columns.next() else {
                    return Err(parquet::errors::ParquetError::General(
                        "the batch has more columns than its table".to_owned(),
                    ));
                };
                writer.write(&leaf)?;
            }
        }
        self.rows += batch.num_rows();
        Ok(())
    }

    /// Whether the group is as large as a row group of its table gets.
    fn is_full(&self) -> bool {
        self.rows >= ROW_GROUP_ROWS
            || self
                .columns
                .iter()
                .map(|c| c.get_estimated_total_bytes())
                .sum::<usize>()
                >= Buffering::of(self.table).row_group_bytes
    }
}

/// What one writing thread encodes: a row group per table and partition, up to its share
/// of `max_open` per table, each written to its part once full. The encoders are what makes
/// [`DatasetWriter::write_in`] scale with threads: each thread encodes and compresses
/// with an encoder of its own, and only the copy of a full row group into its file is
/// done under the lock.
#[derive(Default)]
struct Encoder {
    groups: Vec<Group>,
    /// Writes so far, the clock of [`Group::used`].
    writes: u64,
}

/// A run's part files, which only the holder of [`DatasetWriter`]'s lock touches.
struct Parts {
    /// The number of this run's parts: one past the highest part already in the dataset,
    /// in any table.
    run: u64,
    /// The number of this run's next part of a partition that has one of number `run`
    /// already, per table (in [`Table::ALL`]'s order).
    next: Vec<u64>,
    /// The open parts, in no order.
    open: Vec<OpenPart>,
    /// The parts closed before [`DatasetWriter::finish`], by the names they get then
    /// (they are under their temporary names): a path per part, all the memory a
    /// partition keeps once its part is closed.
    closed: Vec<PathBuf>,
    /// The tables that got a part.
    written: BTreeSet<Table>,
    /// Row groups appended so far, the clock of [`OpenPart::used`].
    appends: u64,
}

/// Writes record batches of the [`Table`]s as Parquet files (Snappy-compressed), one
/// directory per table, each file carrying `demokit.schema_version` in its metadata,
/// either directly in the table's directory or in partition directories (see
/// [`with_partitioning`](Self::with_partitioning)).
///
/// Each file is written under a hidden temporary name (`.part-<n>.parquet.partial`) and renamed
/// into place by [`finish`](Self::finish): a run that stops early leaves no file that
/// looks complete. A table (or partition) that gets no rows gets no file. At most
/// [`MAX_OPEN_PARTS`] files per table are open at once (see
/// [`max_open_parts`](Self::max_open_parts)): a row group for another partition closes
/// the least recently written one, and a later row group for that partition goes to a
/// new part. A part that reaches [`MAX_ROW_GROUPS_PER_PART`] row groups is closed the same
/// way, so that memory stays the same however much a partition gets.
///
/// The writer is [`Sync`]: threads may call [`write_in`](Self::write_in) at once. Each
/// call encodes and compresses its batch into a row group of the calling thread's own
/// (kept between calls; as many sets of them as calls ran at once, which share the bound
/// on open parts, so that a table has about [`MAX_OPEN_PARTS`] row groups being encoded
/// in all), and only appending a full row group to its file takes the writer's lock, so
/// that the Parquet encoding, most of an export's time after reading, runs on every
/// thread.
pub struct DatasetWriter {
    dir: PathBuf,
    /// The locked [`LOCK_FILE`]: held until the writer is dropped.
    _lock: File,
    partitioning: Partitioning,
    max_open: usize,
    /// Row groups per part before a new part is begun.
    max_row_groups: usize,
    /// Per table (in [`Table::ALL`]'s order), what makes a row group's column writers.
    factories: Vec<ArrowRowGroupWriterFactory>,
    /// The part files.
    parts: Mutex<Parts>,
    /// The encoders no write is using: a write takes one (or makes one) and gives it
    /// back.
    encoders: Mutex<Vec<Encoder>>,
    /// How many encoders were made: as many as writes ran at once.
    encoders_made: AtomicUsize,
}

/// Locks `mutex`, also after a thread panicked holding it (the writer's state stays
/// consistent between its own steps, which do not panic).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The Parquet settings of `table`'s parts.
fn properties(table: Table) -> WriterProperties {
    let buffering = Buffering::of(table);
    WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        // Row groups of this size bound what a writer buffers per table (a million rows,
        // Parquet's default, is tens of MB for the widest tables).
        .set_max_row_group_size(ROW_GROUP_ROWS)
        // Each column buffers a page, and a dictionary, before writing them: at the
        // defaults (1 MiB each) dozens of columns hold tens of MB between them.
        .set_data_page_size_limit(PAGE_BYTES)
        .set_dictionary_page_size_limit(PAGE_BYTES)
        .set_data_page_row_count_limit(buffering.page_rows)
        // Page indexes (each page's statistics, and where it starts) are held for every
        // page until the file is closed, so they grow with the rows written: the row
        // groups' own statistics, in the footer, are what readers prune with.
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_offset_index_disabled(true)
        .set_key_value_metadata(Some(vec![KeyValue::new(
            "demokit.schema_version".to_owned(),
            SCHEMA_VERSION.to_string(),
        )]))
        .set_dictionary_enabled(buffering.dictionary)
        .build()
}

/// A Parquet file writer of `table`'s parts into `out`, and what makes the column
/// writers of its row groups. Made through Arrow's writer, which puts the Arrow schema
/// into the file's metadata (readers take dictionary columns and timestamps' units from
/// it).
fn file_writer<W: std::io::Write + Send>(
    table: Table,
    out: W,
) -> parquet::errors::Result<(SerializedFileWriter<W>, ArrowRowGroupWriterFactory)> {
    ArrowWriter::try_new(out, table.schema(), Some(properties(table)))?.into_serialized_writer()
}

/// A file an earlier run exported, as its `files` row names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExportedFile {
    /// The path as given then.
    pub path: String,
    /// Its size then.
    pub bytes: u64,
    /// Its modification time then, when known.
    pub modified_ns: Option<i64>,
    /// The selection its rows were exported with (the `files` column), `None` for all.
    pub selection: Option<String>,
}

/// The number of a part file (`part-<n>.parquet`), if `name` is one.
fn part_number(name: &str) -> Option<u64> {
    name.strip_prefix("part-")?
        .strip_suffix(".parquet")?
        .parse()
        .ok()
}

/// Calls `found` with every part file under `dir`, in any depth of directories (none if
/// `dir` does not exist).
fn walk_parts(
    dir: &Path,
    found: &mut dyn FnMut(&Path, u64) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExportError::Io { path, source }
    };
    if !dir.is_dir() {
        return Ok(());
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(io(&dir))? {
            let entry = entry.map_err(io(&dir))?;
            let path = entry.path();
            if entry.file_type().map_err(io(&path))?.is_dir() {
                stack.push(path);
            } else if let Some(n) = part_number(&entry.file_name().to_string_lossy()) {
                found(&path, n)?;
            }
        }
    }
    Ok(())
}

impl std::fmt::Debug for DatasetWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts = lock(&self.parts);
        f.debug_struct("DatasetWriter")
            .field("dir", &self.dir)
            .field("partitioning", &self.partitioning)
            .field("open", &parts.open.len())
            .field("closed", &parts.closed.len())
            .field("tables", &parts.written)
            .finish()
    }
}

impl DatasetWriter {
    /// A dataset in `dir` (made if missing), without partitions: this run's files are new
    /// parts beside the ones there. The same as
    /// [`with_partitioning`](Self::with_partitioning) with [`Partitioning::None`].
    pub fn create(dir: impl AsRef<Path>) -> Result<Self, ExportError> {
        Self::with_partitioning(dir, Partitioning::None)
    }

    /// A dataset in `dir` (made if missing) whose batches go to the partition directories
    /// of `partitioning` (see [`write_in`](Self::write_in)); this run's parts are numbered
    /// from one past the highest part anywhere in the dataset, so they never replace one.
    pub fn with_partitioning(
        dir: impl AsRef<Path>,
        partitioning: Partitioning,
    ) -> Result<Self, ExportError> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|source| ExportError::Io {
            path: dir.clone(),
            source,
        })?;
        let lock = lock_dataset(&dir)?;
        // A run killed while moving its parts into place is completed first; what is
        // left under a temporary name then belongs to a run that never committed.
        roll_forward(&dir)?;
        remove_abandoned_parts(&dir)?;
        let mut run = 0;
        for &table in Table::ALL {
            walk_parts(&dir.join(table.name()), &mut |_, n| {
                run = run.max(n + 1);
                Ok(())
            })?;
        }
        let factories = Table::ALL
            .iter()
            .map(|&table| file_writer(table, std::io::sink()).map(|(_, factory)| factory))
            .collect::<Result<_, _>>()
            .map_err(|source| ExportError::Parquet {
                path: dir.clone(),
                source,
            })?;
        Ok(DatasetWriter {
            dir,
            _lock: lock,
            partitioning,
            max_open: MAX_OPEN_PARTS,
            max_row_groups: MAX_ROW_GROUPS_PER_PART,
            factories,
            parts: Mutex::new(Parts {
                run,
                next: vec![run + 1; Table::ALL.len()],
                open: Vec::new(),
                closed: Vec::new(),
                written: BTreeSet::new(),
                appends: 0,
            }),
            encoders: Mutex::new(Vec::new()),
            encoders_made: AtomicUsize::new(0),
        })
    }

    /// Keeps at most `n` (at least 1) files open per table, instead of
    /// [`MAX_OPEN_PARTS`], and about as many row groups per table being encoded, shared
    /// between the writing threads (at least one each).
    pub fn max_open_parts(mut self, n: usize) -> Self {
        self.max_open = n.max(1);
        self
    }

    /// Begins a new part file once a part has written `n` (at least 1) row groups,
    /// instead of [`MAX_ROW_GROUPS_PER_PART`].
    pub fn max_row_groups_per_part(mut self, n: usize) -> Self {
        self.max_row_groups = n.max(1);
        self
    }

    /// How the dataset is partitioned.
    pub fn partitioning(&self) -> Partitioning {
        self.partitioning
    }

    /// The files the dataset already holds, from its `files` table in any layout, every
    /// part under `files/` read (none in a new dataset). Read through the writer, which
    /// holds the dataset's lock, so that no other run adds files between this answer and
    /// this run's parts. A part of another schema version is an
    /// [`ExportError::SchemaVersion`]: a run adds parts of its own version, and one dataset
    /// should hold one schema.
    pub fn exported(&self) -> Result<Vec<ExportedFile>, ExportError> {
        let mut out = Vec::new();
        walk_parts(&self.dir.join(Table::Files.name()), &mut |path, _| {
            read_exported(path, &mut out)
        })?;
        Ok(out)
    }

    /// Appends a batch of `table` to the null partition (with [`Partitioning::None`]: to
    /// the table's directory), as [`write_in`](Self::write_in) with
    /// [`Partition::default`].
    pub fn write(&self, table: Table, batch: &RecordBatch) -> Result<(), ExportError> {
        self.write_in(table, &Partition::default(), batch)
    }

    /// Appends a batch of `table` to its part in `partition` (whose directory comes from
    /// the keys of the dataset's [`Partitioning`]). The rows are encoded into a row group
    /// of the calling thread's, which goes to the partition's part once it is full, or
    /// when the thread's row groups of the table are too many, or at
    /// [`finish`](Self::finish). Safe to call from many threads at once (see the type's
    /// documentation). After an error the dataset misses rows: do not
    /// [`finish`](Self::finish) it.
    pub fn write_in(
        &self,
        table: Table,
        partition: &Partition,
        batch: &RecordBatch,
    ) -> Result<(), ExportError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let pooled = lock(&self.encoders).pop();
        let mut encoder = pooled.unwrap_or_else(|| {
            self.encoders_made.fetch_add(1, Ordering::Relaxed);
            Encoder::default()
        });
        // An encoder whose write failed is dropped: its groups may be half written.
        self.encode(&mut encoder, table, partition.dir(self.partitioning), batch)?;
        lock(&self.encoders).push(encoder);
        Ok(())
    }

    /// Encodes `batch` into `encoder`'s row group of `table` in the partition `dir`,
    /// appending each row group it fills to its part.
    fn encode(
        &self,
        encoder: &mut Encoder,
        table: Table,
        dir: PathBuf,
        batch: &RecordBatch,
    ) -> Result<(), ExportError> {
        let parquet = |source| ExportError::Parquet {
            path: self.dir.join(table.name()).join(&dir),
            source,
        };
        encoder.writes += 1;
        let mut rest = batch.clone();
        while rest.num_rows() > 0 {
            let at = match encoder
                .groups
                .iter()
                .position(|g| g.table == table && g.dir == dir)
            {
                Some(at) => at,
                None => {
                    // The open parts' bound shared between the encoders: the row groups
                    // being encoded of a table stay about as many as its open parts, however
                    // many threads write (each holds pages and dictionaries).
                    let made = self.encoders_made.load(Ordering::Relaxed).max(1);
                    let limit = (self.max_open / made).max(1);
                    let groups = encoder.groups.iter().filter(|g| g.table == table);
                    let least = encoder
                        .groups
                        .iter()
                        .enumerate()
                        .filter(|(_, g)| g.table == table)
                        .min_by_key(|(_, g)| g.used)
                        .map(|(at, _)| at);
                    if groups.count() >= limit
                        && let Some(least) = least
                    {
                        self.append(encoder.groups.swap_remove(least))?;
                    }
                    let columns = self
                        .factories
                        .get(table as usize)
                        .ok_or_else(|| missing(table))?
                        .create_column_writers(0)
                        .map_err(parquet)?;
                    encoder.groups.push(Group {
                        table,
                        dir: dir.clone(),
                        used: 0,
                        columns,
                        rows: 0,
                    });
                    encoder.groups.len() - 1
                }
            };
            let group = encoder.groups.get_mut(at).ok_or_else(|| missing(table))?;
            group.used = encoder.writes;
            // Row groups end at ROW_GROUP_ROWS, as Arrow's writer ends them.
            let now = rest.num_rows().min(ROW_GROUP_ROWS - group.rows);
            group.write(&rest.slice(0, now)).map_err(parquet)?;
            rest = rest.slice(now, rest.num_rows() - now);
            if group.is_full() {
                self.append(encoder.groups.swap_remove(at))?;
            }
        }
        Ok(())
    }

    /// Finishes encoding `group` (its last pages) and appends it to its part as a row
    /// group, under the lock: opening the part if it has none, closing the table's least
    /// recently written part first when too many are open, and closing the part when it
    /// has its row groups.
    fn append(&self, group: Group) -> Result<(), ExportError> {
        if group.rows == 0 {
            return Ok(());
        }
        let chunks = group
            .columns
            .into_iter()
            .map(ArrowColumnWriter::close)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| ExportError::Parquet {
                path: self.dir.join(group.table.name()).join(&group.dir),
                source,
            })?;
        let mut parts = lock(&self.parts);
        let parts = &mut *parts;
        parts.appends += 1;
        let found = parts
            .open
            .iter()
            .position(|p| p.table == group.table && p.dir == group.dir);
        let at = match found {
            Some(at) => at,
            None => {
                self.close_least_recent(parts, group.table)?;
                let open = self.open(parts, group.table, group.dir)?;
                parts.open.push(open);
                parts.open.len() - 1
            }
        };
        let part = parts.open.get_mut(at).ok_or_else(|| missing(group.table))?;
        part.used = parts.appends;
        let parquet = |source| ExportError::Parquet {
            path: part.temporary.clone(),
            source,
        };
        let mut row_group = part.writer.next_row_group().map_err(parquet)?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut row_group).map_err(parquet)?;
        }
        row_group.close().map_err(parquet)?;
        if part.writer.flushed_row_groups().len() >= self.max_row_groups {
            let full = parts.open.swap_remove(at);
            parts.closed.push(close(full)?);
        }
        Ok(())
    }

    /// Closes the least recently written part of `table` if it has as many open as it
    /// may; the part stays under its temporary name until [`finish`](Self::finish).
    fn close_least_recent(&self, parts: &mut Parts, table: Table) -> Result<(), ExportError> {
        let open = parts.open.iter().filter(|p| p.table == table).count();
        if open < self.max_open {
            return Ok(());
        }
        let least = parts
            .open
            .iter()
            .enumerate()
            .filter(|(_, p)| p.table == table)
            .min_by_key(|(_, p)| p.used)
            .map(|(at, _)| at);
        // `max_open` is at least 1: there is one.
        let Some(least) = least else {
            return Ok(());
        };
        let part = parts.open.swap_remove(least);
        parts.closed.push(close(part)?);
        Ok(())
    }

    /// Opens a new part of `table` in the partition `partition_dir`.
    fn open(
        &self,
        parts: &mut Parts,
        table: Table,
        partition_dir: PathBuf,
    ) -> Result<OpenPart, ExportError> {
        let dir = self.dir.join(table.name()).join(&partition_dir);
        // A partition's first part in this run is numbered `run`, as in every table; one
        // opened again after it was closed takes the table's next number.
        // A name is free if neither it nor its temporary name is there.
        let free = |n: u64| {
            let path = dir.join(format!("part-{n}.parquet"));
            let temporary = temporary(&path);
            (!path.exists() && !temporary.exists()).then_some((path, temporary))
        };
        let (path, temporary) = match free(parts.run) {
            Some(names) => names,
            None => loop {
                let next = parts
                    .next
                    .get_mut(table as usize)
                    .ok_or_else(|| missing(table))?;
                let number = *next;
                *next += 1;
                if let Some(names) = free(number) {
                    break names;
                }
            },
        };
        std::fs::create_dir_all(&dir).map_err(|source| ExportError::Io {
            path: dir.clone(),
            source,
        })?;
        let file = File::create(&temporary).map_err(|source| ExportError::Io {
            path: temporary.clone(),
            source,
        })?;
        let (writer, _) = file_writer(table, file).map_err(|source| ExportError::Parquet {
            path: temporary.clone(),
            source,
        })?;
        parts.written.insert(table);
        Ok(OpenPart {
            table,
            dir: partition_dir,
            used: 0,
            writer,
            temporary,
            path,
        })
    }

    /// Appends every row group being encoded, by any thread that is not writing now, to
    /// its part (still under its temporary name): what was written so far is then in the
    /// files, in smaller row groups than they would otherwise have.
    pub fn flush(&self) -> Result<(), ExportError> {
        let encoders = std::mem::take(&mut *lock(&self.encoders));
        for encoder in encoders {
            for group in encoder.groups {
                self.append(group)?;
            }
        }
        Ok(())
    }

    /// Appends every row group still being encoded, closes every open file and moves
    /// every file of this run into place; returns the tables written, in
    /// [`Table::ALL`]'s order.
    pub fn finish(self) -> Result<Vec<Table>, ExportError> {
        self.finish_observed(|_| {})
    }

    /// [`finish`](Self::finish), calling `moved` with each part's path once it is in
    /// place: for a progress display, or a test that stops a run in the middle of its
    /// commit (the next run completes it, see [`COMMIT_JOURNAL`]).
    pub fn finish_observed(self, mut moved: impl FnMut(&Path)) -> Result<Vec<Table>, ExportError> {
        self.flush()?;
        let parts = self
            .parts
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let mut closed = parts.closed;
        for open in parts.open {
            closed.push(close(open)?);
        }
        // The journal first (synced with every part it names), then the renames, then the
        // journal goes: a run killed among the renames is completed by the next one.
        // `files` goes last, so that a reader never finds a file recorded before its rows.
        closed.sort_by_key(|path| path.starts_with(self.dir.join(Table::Files.name())));
        let journal = self.dir.join(COMMIT_JOURNAL);
        let mut lines = String::new();
        for path in &closed {
            if let Ok(relative) = path.strip_prefix(&self.dir) {
                lines.push_str(&relative.to_string_lossy());
                lines.push('\n');
            }
        }
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ExportError::Io { path, source }
        };
        if !closed.is_empty() {
            let mut file = File::create(&journal).map_err(io(&journal))?;
            std::io::Write::write_all(&mut file, lines.as_bytes()).map_err(io(&journal))?;
            file.sync_all().map_err(io(&journal))?;
            sync_tree(&self.dir)?;
        }
        for path in &closed {
            std::fs::rename(temporary(path), path).map_err(io(path))?;
            moved(path);
        }
        if !closed.is_empty() {
            sync_tree(&self.dir)?;
            std::fs::remove_file(&journal).map_err(io(&journal))?;
        }
        Ok(Table::ALL
            .iter()
            .copied()
            .filter(|t| parts.written.contains(t))
            .collect())
    }
}

/// The name a part is written under until [`DatasetWriter::finish`]: hidden, so that
/// readers of the dataset pass over it (`.part-<n>.parquet.partial`).
fn temporary(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.partial"))
}

/// Writes a part's footer; returns the name it gets.
fn close(part: OpenPart) -> Result<PathBuf, ExportError> {
    part.writer.close().map_err(|source| ExportError::Parquet {
        path: part.temporary.clone(),
        source,
    })?;
    Ok(part.path)
}
