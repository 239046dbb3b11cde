//! `demokit export`: recordings as a Parquet dataset, one directory per table (the tables
//! are the library's, [`demokit::export`]).

use super::batch::{collect_jobs, progress_bar, read_whole};
use super::output::shown_name;
use super::{Exit, Outcome, Stop};
use demokit::export::{DatasetWriter, ExportError, Exporter, RecordBatch, Table};
use rayon::iter::{IntoParallelRefIterator, ParallelIterator};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Exports the files `paths` name (directories searched) into a dataset in `out`; files
/// are read in parallel, one whole file per worker at a time, and every file gets a row
/// in `files`, with its error if it could not be read to the end.
pub(crate) fn export(paths: &[PathBuf], out: &Path) -> Outcome {
    let (jobs, _) = collect_jobs(paths);
    let writer = DatasetWriter::create(out).map_err(failed)?;
    let writer = Mutex::new((writer, None::<ExportError>));
    let bar = progress_bar(jobs.len());
    let write = |table: Table, batch: RecordBatch| {
        let mut guard = writer.lock().unwrap_or_else(|poison| poison.into_inner());
        let (writer, error) = &mut *guard;
        if error.is_none()
            && let Err(e) = writer.write(table, &batch)
        {
            *error = Some(e);
        }
    };
    let counted = jobs
        .par_iter()
        .map(|job| {
            let mut exporter = Exporter::new();
            let mut sink = write;
            let path = job.path.to_string_lossy();
            let counted = match read_whole(job) {
                Ok(Some(data)) => {
                    exporter.add(&path, &data, &mut sink);
                    (1, 0)
                }
                Ok(None) => (0, 0),
                Err(why) => {
                    exporter.add_unreadable(&path, &why);
                    (1, 1)
                }
            };
            exporter.finish(&mut sink);
            bar.inc(1);
            counted
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let (exported, failures) = counted;
    bar.finish_and_clear();
    let (writer, error) = writer.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = error {
        return Err(failed(e));
    }
    let tables = writer.finish().map_err(failed)?;
    let names: Vec<&str> = tables.iter().map(|t| t.name()).collect();
    let _ = writeln!(
        io::stderr().lock(),
        "demokit: exported {} files into {} ({}){}",
        exported,
        shown_name(out),
        names.join(", "),
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
