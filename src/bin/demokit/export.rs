//! `demokit export`: recordings as a Parquet dataset, one directory per table (the tables
//! are the library's, [`demokit::export`]).

use super::batch::{progress_bar, read_whole, walk_jobs};
use super::output::shown_name;
use super::{Exit, Outcome, Stop};
use demokit::export::{
    DatasetWriter, ExportError, ExportedFile, Exporter, RecordBatch, Table, modified_ns,
};
use rayon::iter::{ParallelBridge, ParallelIterator};
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Exports the files `paths` name (directories searched) into a dataset in `out`; files
/// are read in parallel, one whole file per worker at a time, and every file gets a row
/// in `files`, with its error if it could not be read to the end. Files the dataset holds
/// already (the same path, size and modification time) are skipped.
///
/// The directories are walked as the workers take files, not listed first, so that memory
/// does not grow with the number of files (a first walk only counts them, for the progress
/// bar).
pub(crate) fn export(paths: &[PathBuf], out: &Path) -> Outcome {
    let exported: HashSet<ExportedFile> = DatasetWriter::exported(out)
        .map_err(failed)?
        .into_iter()
        .collect();
    let writer = DatasetWriter::create(out).map_err(failed)?;
    let writer = Mutex::new((writer, None::<ExportError>));
    let bar = progress_bar(walk_jobs(paths.to_vec()).count());
    let write = |table: Table, batch: RecordBatch| {
        let mut guard = writer.lock().unwrap_or_else(|poison| poison.into_inner());
        let (writer, error) = &mut *guard;
        if error.is_none()
            && let Err(e) = writer.write(table, &batch)
        {
            *error = Some(e);
        }
    };
    let counted = walk_jobs(paths.to_vec())
        .par_bridge()
        .map(|job| {
            let mut exporter = Exporter::new();
            let mut sink = write;
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
            let counted = match read_whole(&job) {
                Ok(Some(data)) => {
                    exporter.add_modified(&path, modified_ns, &data, &mut sink);
                    (1, 0, 0)
                }
                Ok(None) => (0, 0, 0),
                Err(why) => {
                    exporter.add_unreadable(&path, &why);
                    (1, 1, 0)
                }
            };
            exporter.finish(&mut sink);
            bar.inc(1);
            counted
        })
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    let (added, failures, skipped) = counted;
    bar.finish_and_clear();
    let (writer, error) = writer.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = error {
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
    Ok(())
}

fn failed(e: ExportError) -> Stop {
    let _ = writeln!(io::stderr().lock(), "demokit: export: {e}");
    Stop(Exit::Io)
}
