//! `demokit export`: recordings as a Parquet dataset, one directory per table, in Hive
//! partitions by format and date by default (the tables and partitions are the library's,
//! [`demokit::export`]).

use super::batch::{ExportFile, progress_bar, read_for_export, walk_jobs};
use super::output::shown_name;
use super::{Exit, Outcome, Stop};
use demokit::export::{
    DatasetWriter, ExportError, ExportedFile, Exporter, Partition, Partitioning, RecordBatch,
    Table, modified_ns,
};
use rayon::iter::{ParallelBridge, ParallelIterator};
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// `--partition-by`: the keys of the partition directories.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum PartitionArg {
    /// `format=<format>/date=<YYYY-MM-DD>/`.
    #[value(name = "format,date")]
    FormatDate,
    /// `format=<format>/`.
    Format,
    /// `date=<YYYY-MM-DD>/`.
    Date,
    /// No partitions: `<table>/part-<n>.parquet`.
    None,
}

impl From<PartitionArg> for Partitioning {
    fn from(arg: PartitionArg) -> Self {
        match arg {
            PartitionArg::FormatDate => Partitioning::FormatDate,
            PartitionArg::Format => Partitioning::Format,
            PartitionArg::Date => Partitioning::Date,
            PartitionArg::None => Partitioning::None,
        }
    }
}

/// Exports the files `paths` name (directories searched) into a dataset in `out`, its
/// parts in the partition directories of `partitioning` (each file's rows in its own
/// partition); files
/// are read in parallel, one file per worker at a time (teehistorian files as a stream,
/// the others whole), and every file gets a row
/// in `files`, with its error if it could not be read to the end. Files the dataset holds
/// already (the same path, size and modification time) are skipped.
///
/// The directories are walked as the workers take files, not listed first, so that memory
/// does not grow with the number of files (a first walk only counts them, for the progress
/// bar).
pub(crate) fn export(paths: &[PathBuf], out: &Path, partitioning: Partitioning) -> Outcome {
    // The writer first: it locks the dataset, so what it holds cannot change under us.
    let writer = DatasetWriter::with_partitioning(out, partitioning).map_err(failed)?;
    let exported: HashSet<ExportedFile> = writer.exported().map_err(failed)?.into_iter().collect();
    // The writer encodes on the calling worker's thread and locks only to append a full
    // row group; the first error stops the writes (the dataset is not finished then).
    let error = Mutex::new(None::<ExportError>);
    let bar = progress_bar(walk_jobs(paths.to_vec()).count());
    let write = |table: Table, partition: &Partition, batch: RecordBatch| {
        let failed = || error.lock().unwrap_or_else(|p| p.into_inner()).is_some();
        if !failed()
            && let Err(e) = writer.write_in(table, partition, &batch)
        {
            error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(e);
        }
    };
    let counted = walk_jobs(paths.to_vec())
        .par_bridge()
        .map(|job| {
            let mut exporter = Exporter::new();
            let path = job.path.to_string_lossy();
            let modified_ns = modified_ns(&job.path);
            let unchanged = std::fs::metadata(&job.path).is_ok_and(|m| {
                exported.contains(&ExportedFile {
                    path: path.to_string(),
                    bytes: m.len(),
                    modified_ns,
                })
            });
            if unchanged {
                bar.inc(1);
                return (0, 0, 1);
            }
            // One exporter per file: its batches are all the file's, in its partition.
            let (counted, partition) = match read_for_export(&job) {
                Ok(Some(ExportFile::Recording(recording))) => {
                    let partition = Partition::of_recording(&recording, modified_ns);
                    let mut sink = |table, batch| write(table, &partition, batch);
                    exporter.add_recording(&path, modified_ns, &recording, &mut sink);
                    ((1, 0, 0), partition)
                }
                Ok(Some(ExportFile::Other(data))) => {
                    let partition = Partition::of(&data, modified_ns);
                    let mut sink = |table, batch| write(table, &partition, batch);
                    exporter.add_modified(&path, modified_ns, &data, &mut sink);
                    ((1, 0, 0), partition)
                }
                Ok(None) => ((0, 0, 0), Partition::unreadable()),
                Err(why) => {
                    exporter.add_unreadable(&path, &why);
                    ((1, 1, 0), Partition::unreadable())
                }
            };
            exporter.finish(&mut |table, batch| write(table, &partition, batch));
            bar.inc(1);
            counted
        })
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    let (added, failures, skipped) = counted;
    bar.finish_and_clear();
    if let Some(e) = error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(failed(e));
    }
    let tables = writer.finish().map_err(failed)?;
    let names: Vec<&str> = tables.iter().map(|t| t.name()).collect();
    let _ = writeln!(
        io::stderr().lock(),
        "demokit: exported {added} files into {}{}{}{}",
        shown_name(out),
        if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        },
        if skipped > 0 {
            format!("; {skipped} unchanged since an earlier export, skipped")
        } else {
            String::new()
        },
        if failures > 0 {
            format!("; {failures} could not be read (see their rows in files)")
        } else {
            String::new()
        }
    );
    // As `info` does: an input that cannot be opened or read is an I/O failure (exit 3),
    // though the dataset keeps its row.
    if failures > 0 {
        return Err(Stop(Exit::Io));
    }
    Ok(())
}

fn failed(e: ExportError) -> Stop {
    let _ = writeln!(io::stderr().lock(), "demokit: export: {e}");
    Stop(Exit::Io)
}
