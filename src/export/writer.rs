//! Writing the tables' batches as a Parquet dataset: `DIR/<table>/part-0.parquet`, one
//! directory per table, so that DuckDB, Spark or pyarrow read each table as a dataset.

use super::{SCHEMA_VERSION, Table};
use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

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
    parts: BTreeMap<Table, Part>,
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
    /// A dataset in `dir` (made if missing).
    pub fn create(dir: impl AsRef<Path>) -> Result<Self, ExportError> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|source| ExportError::Io {
            path: dir.clone(),
            source,
        })?;
        Ok(DatasetWriter {
            dir,
            parts: BTreeMap::new(),
        })
    }

    /// The path a table's file gets.
    pub fn table_path(&self, table: Table) -> PathBuf {
        self.dir.join(table.name()).join("part-0.parquet")
    }

    /// Appends a batch of `table`.
    pub fn write(&mut self, table: Table, batch: &RecordBatch) -> Result<(), ExportError> {
        if !self.parts.contains_key(&table) {
            let part = self.open(table)?;
            self.parts.insert(table, part);
        }
        let part = self.parts.get_mut(&table).expect("opened above");
        part.writer
            .write(batch)
            .map_err(|source| ExportError::Parquet {
                path: part.temporary.clone(),
                source,
            })
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
