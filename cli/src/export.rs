//! `demokit export`: recordings as a Parquet dataset, one directory per table, in Hive
//! partitions by format and date by default (the tables and partitions are the library's,
//! [`demokit::export`]).

use super::batch::{ExportFile, closing_note, progress_bar, read_for_export, walk_jobs};
use super::output::{complain, shown_name};
use super::{Exit, Outcome, Stop};
use demokit::export::{
    DatasetWriter, ExportError, ExportedFile, Exporter, FileEnd, Partition, Partitioning,
    RecordBatch, Table, modified_ns,
};
use demokit::model::Selected;
use rayon::iter::{ParallelBridge, ParallelIterator};
use std::collections::HashSet;

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
///
/// With a selection (`select`), each recording's rows are those it selects (its players'
/// names resolved in that file); a file where it selects nothing (no such player, its
/// ticks outside the range) gets only its `files` row, and is named in the closing note.
/// A selection that selects nothing in any file is a usage error.
pub(crate) fn export(
    paths: &[PathBuf],
    out: &Path,
    partitioning: Partitioning,
    select: &super::Select,
) -> Outcome {
    // Kinds are the model's, the same in every file: a wrong one is known before any read.
    if let Err(message) = (demokit::model::Selection {
        kinds: select.kind.clone(),
        ..Default::default()
    })
    .resolve(&Default::default(), None)
    {
        super::output::say(format!("export: {message}"));
        return Err(Stop(Exit::Usage));
    }
    let described = select.described();
    // The writer first: it locks the dataset, so what it holds cannot change under us.
    let writer = DatasetWriter::with_partitioning(out, partitioning).map_err(failed)?;
    // The files the dataset holds, by their resolved paths: a file exported as `a.demo`
    // is unchanged when named `./a.demo` in a later run.
    let exported: HashSet<ExportedFile> = writer
        .exported()
        .map_err(failed)?
        .into_iter()
        .map(|file| ExportedFile {
            path: resolved(Path::new(&file.path)),
            ..file
        })
        // A file is unchanged for this run when exported with the same selection.
        .filter(|file| file.selection == described)
        .collect();
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
    // How the files went, for the closing note and the exit status.
    let tally = Mutex::new(ExportTally::default());
    let count = |path: &Path, how: How| {
        let mut tally = tally.lock().unwrap_or_else(|p| p.into_inner());
        tally.total += 1;
        match how {
            How::Whole => tally.exported += 1,
            How::Unchanged => tally.unchanged += 1,
            How::Skipped => tally.skipped += 1,
            How::Partial => {
                tally.exported += 1;
                tally.partial.push(path.to_path_buf());
            }
            How::Failed(exit) => {
                tally.exported += 1;
                tally.failed.push(path.to_path_buf());
                tally.worst = tally.worst.max(Some(exit));
            }
        }
    };
    // One file named twice, or under two spellings (`a.demo`, `./a.demo`, a link), is
    // exported once: the first of them.
    let seen = Mutex::new(HashSet::new());
    walk_jobs(paths.to_vec()).par_bridge().for_each(|job| {
        if let Some(identity) = identity(&job.path)
            && !seen
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(identity)
        {
            bar.inc(1);
            tally.lock().unwrap_or_else(|p| p.into_inner()).repeated += 1;
            return;
        }
        let path = job.path.to_string_lossy();
        let modified_ns = modified_ns(&job.path);
        let unchanged = std::fs::metadata(&job.path).is_ok_and(|m| {
            exported.contains(&ExportedFile {
                path: resolved(&job.path),
                bytes: m.len(),
                modified_ns,
                selection: described.clone(),
            })
        });
        if unchanged {
            bar.inc(1);
            count(&job.path, How::Unchanged);
            return;
        }
        // One exporter per file: its batches are all the file's, in its partition.
        let mut exporter = Exporter::new();
        let (how, partition) = match read_for_export(&job) {
            Ok(Some(ExportFile::Recording(recording))) => {
                if let Some(described) = &described {
                    let selected = match select.resolve(&recording) {
                        Ok(selected) => selected,
                        Err(e) => {
                            let mut tally = tally.lock().unwrap_or_else(|p| p.into_inner());
                            tally.unselected.push((job.path.clone(), e.to_string()));
                            Selected::NOTHING
                        }
                    };
                    exporter = exporter.select_game(selected, described.clone());
                }
                let partition = Partition::of_recording(&recording, modified_ns);
                let mut sink = |table, batch| write(table, &partition, batch);
                let end = exporter.add_recording(&path, modified_ns, &recording, &mut sink);
                (How::of(&job.path, end), partition)
            }
            Ok(Some(ExportFile::Other(data))) => {
                if let Some(described) = &described {
                    exporter = exporter.select_game(Selected::NOTHING, described.clone());
                }
                let partition = Partition::of(&data, modified_ns);
                let mut sink = |table, batch| write(table, &partition, batch);
                let end = exporter.add_modified(&path, modified_ns, &data, &mut sink);
                (How::of(&job.path, end), partition)
            }
            Ok(None) => (How::Skipped, Partition::unreadable()),
            Err((exit, why)) => {
                exporter.add_unreadable(&path, &why);
                complain(&job.path, &why);
                (How::Failed(exit), Partition::unreadable())
            }
        };
        exporter.finish(&mut |table, batch| write(table, &partition, batch));
        bar.inc(1);
        count(&job.path, how);
    });
    let tally = tally.into_inner().unwrap_or_else(|p| p.into_inner());
    bar.finish_and_clear();
    if let Some(e) = error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(failed(e));
    }
    let tables = writer.finish().map_err(failed)?;
    let names: Vec<&str> = tables.iter().map(|t| t.name()).collect();
    let mut text = format!(
        "demokit: exported {} files into {}{}\n",
        tally.exported,
        shown_name(out),
        if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        },
    );
    // The files counted as the other batch commands count them; a file unchanged since an
    // earlier export was read whole then.
    let mut notes = Vec::new();
    if tally.unchanged > 0 {
        notes.push(format!(
            "{} unchanged since an earlier export, counted ok",
            tally.unchanged
        ));
    }
    if let Some((path, why)) = tally.unselected.first() {
        notes.push(format!(
            "{} with nothing selected, e.g. {}: {why}",
            tally.unselected.len(),
            shown_name(path)
        ));
    }
    if tally.repeated > 0 {
        notes.push(format!(
            "{} named again under another path or spelling, exported once",
            tally.repeated
        ));
    }
    let unchanged = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    };
    text += &closing_note(
        tally.total,
        &tally.partial,
        &tally.failed,
        tally.skipped,
        &unchanged,
    );
    super::output::to_stderr(&text);
    // As every batch: a file not read whole (its rows in `files` say why) makes the exit
    // status 1, or 3 when a file could not be opened or read.
    let partial = (!tally.partial.is_empty()).then_some(Exit::Invalid);
    // A selection that selects nothing anywhere is a mistake (a misspelt name, ticks past
    // every file's end), not an empty answer.
    let read = tally.exported - tally.failed.len();
    if read > 0 && tally.unselected.len() == read {
        return Err(Stop(Exit::Usage));
    }
    match tally.worst.max(partial) {
        None => Ok(()),
        Some(exit) => Err(Stop(exit)),
    }
}

/// How one file of an export went.
enum How {
    /// Read whole.
    Whole,
    /// In the dataset already, unchanged.
    Unchanged,
    /// Found in a directory and no recording: passed over.
    Skipped,
    /// Read in part.
    Partial,
    /// Not read, earning this exit status.
    Failed(Exit),
}

/// The counts of an export's closing note.
#[derive(Default)]
struct ExportTally {
    /// Every file.
    total: usize,
    /// Files whose rows were added (whole, partial or only a `files` row).
    exported: usize,
    /// Files in the dataset already.
    unchanged: usize,
    /// Paths that named a file already exported in this run.
    repeated: usize,
    /// Files passed over.
    skipped: usize,
    /// Files read in part.
    partial: Vec<PathBuf>,
    /// Files not read.
    failed: Vec<PathBuf>,
    /// The worst exit status a failed file earned (`None`: none failed).
    worst: Option<Exit>,
    /// Recordings in which the selection selects nothing, and why.
    unselected: Vec<(PathBuf, String)>,
}

/// `path` resolved (symbolic links followed, `.` and `..` gone) as text, or as it is
/// when it cannot be.
fn resolved(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// What makes a file the same file under any path: its device and inode on Unix, its
/// resolved path elsewhere; `None` when it cannot be told (the path is read as it is).
fn identity(path: &Path) -> Option<(u64, u64, PathBuf)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some((meta.dev(), meta.ino(), PathBuf::new()))
    }
    #[cfg(not(unix))]
    {
        Some((0, 0, std::fs::canonicalize(path).ok()?))
    }
}

impl How {
    /// How a file read into the tables went, said on stderr when not whole (its `files`
    /// row says the same).
    fn of(path: &Path, end: FileEnd) -> How {
        // The `files` row's message names the offset itself where the library's does.
        let located = |offset: Option<u64>, message: &str| match offset {
            Some(offset) if !message.starts_with("at byte ") => {
                format!("at byte {offset}: {message}")
            }
            _ => message.to_owned(),
        };
        match end {
            FileEnd::Whole => How::Whole,
            FileEnd::Partial { offset, message } => {
                complain(path, located(offset, &message));
                How::Partial
            }
            FileEnd::Unread { offset, message } => {
                complain(path, located(offset, &message));
                How::Failed(Exit::Invalid)
            }
        }
    }
}

fn failed(e: ExportError) -> Stop {
    super::output::to_stderr(&format!("demokit: export: {e}\n"));
    Stop(Exit::Io)
}
