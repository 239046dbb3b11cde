//! Writing the tables' batches as a Parquet dataset: `DIR/<table>/part-<n>.parquet`, one
//! directory per table and one part per run, so that DuckDB, Spark or pyarrow read each
//! table as a dataset and a later run adds to it.

use super::{SCHEMA_VERSION, Table};
use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Rows per Parquet row group, at most.
const ROW_GROUP_ROWS: usize = 128 * 1024;

/// The most bytes a table's unwritten row group may hold before it is written: tables with
/// few rows per file (`files`, `chat`, `players`) would otherwise keep a row for each of
/// thousands of files in memory, and peak memory would grow with the number of files.
const ROW_GROUP_BYTES: usize = 256 * 1024;

/// The most bytes of a column's page, and of its dictionary.
const PAGE_BYTES: usize = 32 * 1024;

/// The most rows of a page. A dictionary-encoded column's page is small in bytes but
/// holds an index and levels per row until it is cut: at the default (20,000 rows) every
/// column of every table held that many rows once there were enough files, and peak memory
/// grew with the number of files up to there. Smaller pages compress a little worse.
const PAGE_ROWS: usize = 4 * 1024;

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
}

/// Adds the files one `files` part names to `out`.
fn read_exported(path: &Path, out: &mut Vec<ExportedFile>) -> Result<(), ExportError> {
    use arrow_array::{Array, Int64Array, StringArray, UInt64Array};
    let parquet = |source| ExportError::Parquet {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(|source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(parquet)?
        .build()
        .map_err(parquet)?;
    for batch in reader {
        let batch = batch.map_err(|e| parquet(e.into()))?;
        let column = |name: &str| batch.column_by_name(name).cloned();
        let (Some(paths), Some(bytes), Some(modified)) =
            (column("path"), column("bytes"), column("modified_ns"))
        else {
            continue;
        };
        let (Some(paths), Some(bytes), Some(modified)) = (
            paths.as_any().downcast_ref::<StringArray>(),
            bytes.as_any().downcast_ref::<UInt64Array>(),
            modified.as_any().downcast_ref::<Int64Array>(),
        ) else {
            continue;
        };
        for row in 0..batch.num_rows() {
            out.push(ExportedFile {
                path: paths.value(row).to_owned(),
                bytes: bytes.value(row),
                modified_ns: modified.is_valid(row).then(|| modified.value(row)),
            });
        }
    }
    Ok(())
}

/// One open table file: the writer and the names it is written under.
struct Part {
    writer: ArrowWriter<File>,
    /// Where it is written until [`DatasetWriter::finish`].
    temporary: PathBuf,
    /// Where it goes then.
    path: PathBuf,
}

/// Writes record batches of the [`Table`]s as Parquet files (Snappy-compressed), one
/// directory per table, each file carrying `demokit.schema_version` in its metadata.
///
/// Each table's file is written under a temporary name and renamed into place by
/// [`finish`](Self::finish): a run that stops early leaves no file that looks complete.
/// A table that gets no rows gets no file.
pub struct DatasetWriter {
    dir: PathBuf,
    /// The number of this run's parts: one past the highest part already in the dataset.
    run: u64,
    parts: BTreeMap<Table, Part>,
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
}

/// The number of a part file (`part-<n>.parquet`), if `name` is one.
fn part_number(name: &str) -> Option<u64> {
    name.strip_prefix("part-")?
        .strip_suffix(".parquet")?
        .parse()
        .ok()
}

impl std::fmt::Debug for DatasetWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetWriter")
            .field("dir", &self.dir)
            .field("tables", &self.parts.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl DatasetWriter {
    /// A dataset in `dir` (made if missing); this run's files are new parts beside the
    /// ones there.
    pub fn create(dir: impl AsRef<Path>) -> Result<Self, ExportError> {
        let dir = dir.as_ref().to_path_buf();
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ExportError::Io { path, source }
        };
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let mut run = 0;
        for &table in Table::ALL {
            let table_dir = dir.join(table.name());
            if !table_dir.is_dir() {
                continue;
            }
            for entry in std::fs::read_dir(&table_dir).map_err(io(&table_dir))? {
                let entry = entry.map_err(io(&table_dir))?;
                if let Some(n) = part_number(&entry.file_name().to_string_lossy()) {
                    run = run.max(n + 1);
                }
            }
        }
        Ok(DatasetWriter {
            dir,
            run,
            parts: BTreeMap::new(),
        })
    }

    /// The files the dataset in `dir` already holds, from its `files` table (none if
    /// there is no dataset yet).
    pub fn exported(dir: impl AsRef<Path>) -> Result<Vec<ExportedFile>, ExportError> {
        let table_dir = dir.as_ref().join(Table::Files.name());
        let mut out = Vec::new();
        let Ok(entries) = std::fs::read_dir(&table_dir) else {
            return Ok(out);
        };
        for entry in entries {
            let path = entry
                .map_err(|source| ExportError::Io {
                    path: table_dir.clone(),
                    source,
                })?
                .path();
            if path
                .file_name()
                .and_then(|n| part_number(&n.to_string_lossy()))
                .is_some()
            {
                read_exported(&path, &mut out)?;
            }
        }
        Ok(out)
    }

    /// The path a table's file gets in this run.
    pub fn table_path(&self, table: Table) -> PathBuf {
        self.dir
            .join(table.name())
            .join(format!("part-{}.parquet", self.run))
    }

    /// Appends a batch of `table`.
    pub fn write(&mut self, table: Table, batch: &RecordBatch) -> Result<(), ExportError> {
        if !self.parts.contains_key(&table) {
            let part = self.open(table)?;
            self.parts.insert(table, part);
        }
        let part = self.parts.get_mut(&table).expect("opened above");
        let parquet = |source| ExportError::Parquet {
            path: part.temporary.clone(),
            source,
        };
        part.writer.write(batch).map_err(parquet)?;
        if part.writer.in_progress_size() >= ROW_GROUP_BYTES {
            part.writer.flush().map_err(parquet)?;
        }
        Ok(())
    }

    fn open(&self, table: Table) -> Result<Part, ExportError> {
        let path = self.table_path(table);
        let temporary = path.with_extension("parquet.partial");
        let parent = path.parent().expect("a table's file is in its directory");
        std::fs::create_dir_all(parent).map_err(|source| ExportError::Io {
            path: parent.to_path_buf(),
            source,
        })?;
        let file = File::create(&temporary).map_err(|source| ExportError::Io {
            path: temporary.clone(),
            source,
        })?;
        let properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            // Row groups of this size bound what the writer buffers per table (a million
            // rows, its default, is tens of MB for the widest tables).
            .set_max_row_group_size(ROW_GROUP_ROWS)
            // Each column buffers a page, and a dictionary, before writing them: at the
            // defaults (1 MiB each) dozens of columns hold tens of MB between them.
            .set_data_page_size_limit(PAGE_BYTES)
            .set_dictionary_page_size_limit(PAGE_BYTES)
            .set_data_page_row_count_limit(PAGE_ROWS)
            // Page-level statistics (the column and offset indexes) are held for every
            // page until the file is closed, so they grow with the rows written: the row
            // groups' own statistics, in the footer, are what readers prune with.
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_key_value_metadata(Some(vec![KeyValue::new(
                "demokit.schema_version".to_owned(),
                SCHEMA_VERSION.to_string(),
            )]))
            .build();
        let writer =
            ArrowWriter::try_new(file, table.schema(), Some(properties)).map_err(|source| {
                ExportError::Parquet {
                    path: temporary.clone(),
                    source,
                }
            })?;
        Ok(Part {
            writer,
            temporary,
            path,
        })
    }

    /// Closes every table's file and moves it into place; returns the tables written.
    pub fn finish(self) -> Result<Vec<Table>, ExportError> {
        let mut written = Vec::new();
        for (table, part) in self.parts {
            part.writer.close().map_err(|source| ExportError::Parquet {
                path: part.temporary.clone(),
                source,
            })?;
            std::fs::rename(&part.temporary, &part.path).map_err(|source| ExportError::Io {
                path: part.path.clone(),
                source,
            })?;
            written.push(table);
        }
        Ok(written)
    }
}
