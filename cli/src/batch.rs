//! The batch runner behind `info` and `validate`: the files and directories of the command
//! line become jobs (directories searched recursively), the jobs run on all cores (one
//! whole file per worker at a time), and their results are printed in sorted path order
//! with a progress bar on a terminal and a closing note on the files skipped and failed.
//! What a job does with its file is the command's business ([`super::info`],
//! [`super::validate`]). `dump` and the editing commands' `--output-dir`
//! ([`super::output_dir`]) run their files one after the other instead ([`run_in_turn`],
//! [`Tally`]).

use super::input::{exit_of, is_stdin, open};
use super::output::{ErrorJson, FileJson, Output, complaint, json_line, shown_name};
use super::{Exit, Outcome, Stop};
use demokit::recording::{Error, Format, Limits, Recording, read_input};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::iter::{ParallelBridge, ParallelIterator};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// One path to work on, named on the command line or found in a directory.
#[derive(Debug)]
pub(crate) struct Job {
    /// The file.
    pub(crate) path: PathBuf,
    /// Found while searching a directory: skipped unless it is a Teeworlds demo,
    /// teehistorian file or Source demo.
    found: bool,
    /// Settled while searching: skipped, or an error that stopped the search there.
    settled: Option<Settled>,
}

/// A job settled before its file is read.
#[derive(Debug)]
enum Settled {
    /// Skipped for this reason.
    Skip(String),
    /// Failed with this I/O error message.
    Fail(String),
}

/// The jobs for the paths on the command line, sorted by path and without repeats, and
/// whether this is a batch (more than one path, or a directory) rather than one file.
pub(crate) fn collect_jobs(paths: &[PathBuf]) -> (Vec<Job>, bool) {
    let batch = is_batch(paths);
    let mut jobs: Vec<Job> = walk_jobs(paths.to_vec()).collect();
    // A path both named and found counts as named (it is read whatever its format).
    jobs.sort_by(|a, b| a.path.cmp(&b.path).then(a.found.cmp(&b.found)));
    jobs.dedup_by(|later, earlier| later.path == earlier.path);
    (jobs, batch)
}

/// Whether the paths on the command line make a batch (each file's output named) rather
/// than one file printed as it is: more than one path, or a directory.
pub(crate) fn is_batch(paths: &[PathBuf]) -> bool {
    paths.len() > 1 || paths.iter().any(|p| !is_stdin(p) && p.is_dir())
}

/// The jobs for the paths on the command line as a walk finds them: each named path, and
/// for a directory every file under it (recursively; symbolic links to files are followed,
/// links to directories are not, as they could form a cycle). Only the directories being
/// walked are held, so a walk over millions of files takes no memory for them; the files
/// come in directory order, a path named twice comes twice.
pub(crate) fn walk_jobs(paths: Vec<PathBuf>) -> impl Iterator<Item = Job> + Send {
    let mut named = paths.into_iter();
    // The directories being walked, innermost last.
    let mut open: Vec<(PathBuf, std::fs::ReadDir)> = Vec::new();
    std::iter::from_fn(move || {
        loop {
            let Some((dir, entries)) = open.last_mut() else {
                let path = named.next()?;
                if !is_stdin(&path) && path.is_dir() {
                    match std::fs::read_dir(&path) {
                        Ok(entries) => open.push((path, entries)),
                        Err(e) => return Some(unreadable_directory(path, e)),
                    }
                    continue;
                }
                return Some(Job {
                    path,
                    found: false,
                    settled: None,
                });
            };
            let entry = match entries.next() {
                None => {
                    open.pop();
                    continue;
                }
                Some(Ok(entry)) => entry,
                Some(Err(e)) => {
                    let dir = dir.clone();
                    open.pop();
                    return Some(unreadable_directory(dir, e));
                }
            };
            let path = entry.path();
            let skip = |why: &str| Some(Settled::Skip(why.to_string()));
            let settled = match entry.file_type() {
                Ok(t) if t.is_dir() => {
                    match std::fs::read_dir(&path) {
                        Ok(entries) => open.push((path, entries)),
                        Err(e) => return Some(unreadable_directory(path, e)),
                    }
                    continue;
                }
                Ok(t) if t.is_file() => None,
                Ok(t) if t.is_symlink() => match std::fs::metadata(&path) {
                    Ok(m) if m.is_file() => None,
                    Ok(m) if m.is_dir() => skip("a symbolic link to a directory (not followed)"),
                    Ok(_) => skip("not a regular file"),
                    Err(e) => skip(&format!("a symbolic link that cannot be followed ({e})")),
                },
                Ok(_) => skip("not a regular file"),
                Err(e) => Some(Settled::Fail(format!("cannot read: {e}"))),
            };
            return Some(Job {
                path,
                found: true,
                settled,
            });
        }
    })
}

/// The job for a directory the walk could not read (or read on).
fn unreadable_directory(dir: PathBuf, e: io::Error) -> Job {
    Job {
        path: dir,
        found: true,
        settled: Some(Settled::Fail(format!("cannot read the directory: {e}"))),
    }
}

/// What one file produced, ready to print.
#[derive(Debug, Default)]
pub(crate) struct Done {
    /// Text for stdout: a JSON line, a text block, or nothing.
    pub(crate) out: String,
    /// Lines for stderr, each with its newline.
    pub(crate) err: String,
    /// How it went.
    pub(crate) status: Status,
}

/// How one file went.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Read whole (and, for `validate`, accepted).
    #[default]
    Ok,
    /// Read in part: the recording breaks off or is damaged past its start, and what came
    /// before is shown; earns this exit status.
    Partial(Exit),
    /// Found in a directory but neither a Teeworlds demo, teehistorian file or Source demo
    /// by its first bytes nor named like one: passed over.
    Skipped,
    /// Not read at all (or, for `validate`, rejected), earning this exit status.
    Failed(Exit),
}

impl Status {
    /// The exit status this earns.
    pub(crate) fn exit(self) -> Exit {
        match self {
            Status::Ok | Status::Skipped => Exit::Success,
            Status::Partial(exit) | Status::Failed(exit) => exit,
        }
    }
}

/// A file that could not be read at all, in JSON output.
#[derive(Debug, Serialize)]
struct FailedJson {
    /// The file.
    #[serde(flatten)]
    file: FileJson,
    /// Its format, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<&'static str>,
    /// Why it could not be read.
    error: ErrorJson,
}

/// A file skipped during a directory search, in JSON output.
#[derive(Debug, Serialize)]
struct SkippedJson<'a> {
    /// The file.
    #[serde(flatten)]
    file: FileJson,
    /// Why it was skipped.
    skipped: &'a str,
}

impl Job {
    /// Whether the file was found in a directory (rather than named on the command line).
    pub(crate) fn found(&self) -> bool {
        self.found
    }
}

impl Done {
    /// A file that could not be read at all (or not as any supported format).
    pub(crate) fn failed(
        file: &Path,
        format: Option<Format>,
        exit: Exit,
        offset: Option<u64>,
        message: String,
        json: bool,
    ) -> Done {
        let err = match offset {
            Some(offset) => complaint(file, format_args!("at byte {offset}: {message}")),
            None => complaint(file, &message),
        };
        let out = if json {
            json_line(&FailedJson {
                file: FileJson::of(file),
                format: format.map(Format::id),
                error: ErrorJson { offset, message },
            })
        } else {
            String::new()
        };
        Done {
            out,
            err,
            status: Status::Failed(exit),
        }
    }

    /// A file skipped during a directory search: listed in JSON output, and otherwise only
    /// counted in the closing note (as ripgrep and fd pass over files quietly).
    fn skipped(file: &Path, why: &str, json: bool) -> Done {
        let out = if json {
            json_line(&SkippedJson {
                file: FileJson::of(file),
                skipped: why,
            })
        } else {
            String::new()
        };
        Done {
            out,
            err: String::new(),
            status: Status::Skipped,
        }
    }
}

impl Done {
    /// A file the library could not open or read (as its format, when it is known).
    pub(crate) fn error(file: &Path, format: Option<Format>, error: &Error, json: bool) -> Done {
        Done::failed(
            file,
            format,
            exit_of(error),
            error.offset(),
            error.message(),
            json,
        )
    }
}

/// Opens a job's recording through the library's entry point, or says what ends the job
/// already: a skip (settled so while searching, or a file found in a directory that is no
/// recording demokit reads) or a failure.
pub(crate) fn open_job(job: &Job, json: bool) -> Result<Recording, Done> {
    let path = &job.path;
    match &job.settled {
        Some(Settled::Skip(why)) => return Err(Done::skipped(path, why, json)),
        Some(Settled::Fail(why)) => {
            return Err(Done::failed(path, None, Exit::Io, None, why.clone(), json));
        }
        None => {}
    }
    match open(path) {
        Ok(recording) => Ok(recording),
        Err(Error::UnknownFormat {
            format, message, ..
        }) if job.found && passed_over(path) => {
            let why = match format {
                None if message.starts_with("unknown format") => {
                    "unknown format (not a Teeworlds demo, teehistorian file or Source demo)"
                }
                _ => &message,
            };
            Err(Done::skipped(path, why, json))
        }
        Err(e) => Err(Done::error(path, None, &e, json)),
    }
}

/// Whether a file found in a directory that is no recording by its first bytes is passed
/// over (counted as skipped) rather than counted as failed: it is, unless its name ends
/// like a recording's (`.demo`, `.teehistorian`, `.dem`), which says it was meant to be
/// one (a cut file, a text file under a recording's name, a GoldSrc demo).
pub(crate) fn passed_over(path: &Path) -> bool {
    Format::by_extension(path).is_none()
}

/// A file `demokit export` reads.
pub(crate) enum ExportFile {
    /// A recording, opened through the library's entry point (a teehistorian file on disk
    /// is then read as a stream, so that a long file costs no memory for its bytes).
    Recording(Recording),
    /// A file named on the command line that is no recording: its row in `files` says why.
    Other(Vec<u8>),
}

/// A job's file for `demokit export`: `Ok(None)` when it is skipped, `Err` with the exit
/// status it earns and the message when it cannot be read.
pub(crate) fn read_for_export(job: &Job) -> Result<Option<ExportFile>, (Exit, String)> {
    match &job.settled {
        Some(Settled::Skip(_)) => return Ok(None),
        Some(Settled::Fail(why)) => return Err((Exit::Io, why.clone())),
        None => {}
    }
    match open(&job.path) {
        Ok(recording) => Ok(Some(ExportFile::Recording(recording))),
        Err(Error::UnknownFormat { .. }) if job.found && passed_over(&job.path) => Ok(None),
        // A regular file is read again for its `files` row; a pipe or a device was read
        // once already (opening it again would wait for a writer that never comes).
        Err(e @ Error::UnknownFormat { .. })
            if !is_stdin(&job.path) && !std::fs::metadata(&job.path).is_ok_and(|m| m.is_file()) =>
        {
            Err((exit_of(&e), e.to_string()))
        }
        // Bounded as the entry point bounds a stream.
        Err(Error::UnknownFormat { .. }) if !is_stdin(&job.path) => {
            read_input(&job.path, Limits::DEFAULT)
                .map(|data| Some(ExportFile::Other(data)))
                .map_err(|e| (Exit::Io, format!("cannot read: {e}")))
        }
        Err(e) => Err((exit_of(&e), e.to_string())),
    }
}

/// Runs `work` (given a job and whether this is a batch) on the files `paths` name.
///
/// One file named on its own is printed as it is. Otherwise the files are read in parallel
/// and printed in sorted order as they become ready; a closing note names the files that
/// failed.
pub(crate) fn run_jobs(paths: &[PathBuf], work: impl Fn(&Job, bool) -> Done + Sync) -> Outcome {
    let (jobs, batch) = collect_jobs(paths);
    if let (false, [job]) = (batch, jobs.as_slice()) {
        let done = work(job, false);
        print_done(&mut Output::new(), &done, true)?;
        return match done.status.exit() {
            Exit::Success => Ok(()),
            exit => Err(Stop(exit)),
        };
    }
    if jobs.is_empty() {
        return no_files(paths);
    }
    let bar = progress_bar(jobs.len());
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Done)>();
    let (jobs_ref, bar_ref, stop_ref) = (&jobs, &bar, &stop);
    let tally = std::thread::scope(|s| {
        let printer = s.spawn(move || print_in_order(jobs_ref, rx, bar_ref, stop_ref));
        // `par_bridge` hands the jobs out in order, so results arrive nearly in order and
        // few wait to be printed; each worker holds one file's bytes at a time.
        jobs.iter()
            .enumerate()
            .par_bridge()
            .for_each_with(tx, |tx, (i, job)| {
                if !stop.load(Ordering::Relaxed) {
                    let _ = tx.send((i, work(job, true)));
                }
            });
        printer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })?;
    bar.finish_and_clear();
    tally.finish(jobs.len())
}

/// A batch that found no file at all: said, and a success (an empty directory holds no
/// recording that could not be read).
pub(crate) fn no_files(paths: &[PathBuf]) -> Outcome {
    let names: Vec<String> = paths.iter().map(|p| shown_name(p)).collect();
    super::output::to_stderr(&format!(
        "demokit: no files found in {}\n",
        names.join(", ")
    ));
    Ok(())
}

/// Runs `work` on the files `paths` name one after the other, streaming each one's output
/// as it goes (for `dump`, whose output is as long as the recording): one file named on
/// its own as it is; otherwise `work` is told the file to name on each JSON line, and in
/// text a `==> FILE <==` line heads each file's output. Files found in a directory that are
/// no recording are passed over and counted; a closing note names the files that failed.
pub(crate) fn run_in_turn(
    paths: &[PathBuf],
    work: impl Fn(&Path, Option<&FileJson>) -> Outcome,
    json: bool,
) -> Outcome {
    let (jobs, batch) = collect_jobs(paths);
    if let (false, [job]) = (batch, jobs.as_slice()) {
        return work(&job.path, None);
    }
    let mut tally = Tally::default();
    for job in &jobs {
        // Settled while searching, or found and no recording: the skips and failures
        // `open_job` decides, printed as the other batch commands print them.
        match open_job(job, json) {
            Err(done) => tally.settled(&job.path, &done)?,
            Ok(_) => tally.turn(&job.path, json, |file| work(&job.path, file))?,
        }
    }
    tally.finish(jobs.len())
}

/// A progress bar on stderr when it is a terminal, else one that draws nothing.
pub(crate) fn progress_bar(len: usize) -> ProgressBar {
    if !io::stderr().is_terminal() || super::output::quiet() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar}] {pos}/{len} files{msg}, {eta} left",
    )
    .map(|style| style.progress_chars("=> "))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr()).with_style(style)
}

/// What a batch came to.
#[derive(Debug)]
pub(crate) struct Tally {
    /// The files read in part, in order.
    partial: Vec<PathBuf>,
    /// The files that failed, in order.
    failed: Vec<PathBuf>,
    /// How many files were skipped.
    skipped: usize,
    /// The most serious exit status earned.
    worst: Exit,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            partial: Vec::new(),
            failed: Vec::new(),
            skipped: 0,
            worst: Exit::Success,
        }
    }
}

impl Tally {
    /// A file of a batch run in turn that is settled without its turn (skipped, or failed
    /// before it could be read, as [`open_job`] decides): printed as the other batch
    /// commands print it, and counted.
    pub(crate) fn settled(&mut self, path: &Path, done: &Done) -> Outcome {
        print_done(&mut Output::new(), done, true)?;
        self.count(path, done.status);
        Ok(())
    }

    /// Counts one file's status.
    pub(crate) fn count(&mut self, path: &Path, status: Status) {
        match status {
            Status::Ok => {}
            Status::Skipped => self.skipped += 1,
            Status::Partial(exit) => {
                self.partial.push(path.to_path_buf());
                self.worst = self.worst.max(exit);
            }
            Status::Failed(exit) => self.fail(path, exit),
        }
    }

    /// A file's turn in a batch run in turn: in text a `==> FILE <==` line first, then
    /// `work`, told the file to name on each JSON line. A failure is counted (what went
    /// wrong is on stderr already); a closed stdout ends the batch, as nothing more can
    /// be shown.
    pub(crate) fn turn(
        &mut self,
        path: &Path,
        json: bool,
        work: impl FnOnce(Option<&FileJson>) -> Outcome,
    ) -> Outcome {
        if !json {
            let mut out = Output::new();
            writeln!(out, "==> {} <==", shown_name(path))?;
            out.flush()?;
        }
        let file = FileJson::of(path);
        match work(Some(&file)) {
            Ok(()) => Ok(()),
            Err(Stop(Exit::Success)) => Err(Stop(Exit::Success)),
            // What the turn printed before the error cannot be told apart from nothing:
            // counted as failed.
            Err(Stop(exit)) => {
                self.fail(path, exit);
                Ok(())
            }
        }
    }

    /// Counts a failed file.
    fn fail(&mut self, path: &Path, exit: Exit) {
        self.failed.push(path.to_path_buf());
        self.worst = self.worst.max(exit);
    }

    /// Ends a batch of `total` files: the closing note, and the worst status earned.
    pub(crate) fn finish(self, total: usize) -> Outcome {
        self.report(total);
        self.status()
    }

    /// The worst status earned, without a closing note (for one file named on its own).
    pub(crate) fn status(&self) -> Outcome {
        match self.worst {
            Exit::Success => Ok(()),
            exit => Err(Stop(exit)),
        }
    }

    /// Prints the closing note of a batch (also with `--quiet`): the files counted as the
    /// progress bar counts them (every path of the batch) and how they went, then the files
    /// not read whole. E.g. `demokit: 11 files: 5 ok, 1 partial, 2 failed, 3 skipped`,
    /// then `  partial: FILE` and `  failed: FILE` lines.
    fn report(&self, total: usize) {
        let text = closing_note(total, &self.partial, &self.failed, self.skipped, "");
        super::output::to_stderr(&text);
    }
}

/// The closing note of a batch: `demokit: N files: A ok, B partial, C failed, D skipped`
/// (with `extra` before the newline), then a line for each file read in part or failed.
pub(crate) fn closing_note(
    total: usize,
    partial: &[PathBuf],
    failed: &[PathBuf],
    skipped: usize,
    extra: &str,
) -> String {
    let ok = total.saturating_sub(skipped + partial.len() + failed.len());
    let mut text = format!(
        "demokit: {total} file{}: {ok} ok, {} partial, {} failed, {skipped} skipped{extra}\n",
        if total == 1 { "" } else { "s" },
        partial.len(),
        failed.len(),
    );
    for (how, paths) in [("partial", partial), ("failed", failed)] {
        for path in paths {
            let _ = writeln!(text, "  {how}: {}", shown_name(path));
        }
    }
    text
}

/// Prints the results arriving on `results` in job order, counting them on `bar`. When
/// stdout is closed, sets `stop` (so the workers stop starting files) and ends.
fn print_in_order(
    jobs: &[Job],
    results: mpsc::Receiver<(usize, Done)>,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Outcome<Tally> {
    let mut out = Output::new();
    let mut tally = Tally::default();
    // Results that came early, by job index, and the index to print next.
    let mut waiting = BTreeMap::new();
    let mut next = 0;
    // On a terminal, each result is shown at once; into a pipe or file, stdout is flushed
    // only before stderr is written (so that the two keep their order in a shared log).
    let stdout_tty = io::stdout().is_terminal();
    let result = (|| {
        for (i, done) in results {
            bar.inc(1);
            waiting.insert(i, done);
            while let Some(done) = waiting.remove(&next) {
                if stdout_tty || !done.err.is_empty() {
                    bar.suspend(|| print_done(&mut out, &done, true))?;
                } else {
                    print_done(&mut out, &done, false)?;
                }
                if let Some(job) = jobs.get(next) {
                    tally.count(&job.path, done.status);
                }
                let troubled = tally.partial.len() + tally.failed.len();
                if troubled > 0 {
                    // Counted as the closing note counts them.
                    bar.set_message(format!(", {troubled} not read whole"));
                }
                next += 1;
            }
        }
        out.flush()
    })();
    if result.is_err() {
        stop.store(true, Ordering::Relaxed);
        bar.finish_and_clear();
    }
    result.map(|()| tally)
}

/// Prints one file's stdout text, then (after flushing stdout if `flush`, and always before
/// stderr text) its stderr lines.
fn print_done(out: &mut Output, done: &Done, flush: bool) -> Outcome {
    out.write_str(&done.out)?;
    if flush || !done.err.is_empty() {
        out.flush()?;
    }
    super::output::to_stderr(&done.err);
    Ok(())
}
