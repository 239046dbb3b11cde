//! `demokit`: the command-line front end.
//!
//! A thin layer over the library: it detects the format of a file from its magic bytes,
//! hands the bytes to [`demokit::twdemo`], [`demokit::teehistorian`] or [`demokit::source`]
//! and prints what comes back. It holds no format logic of its own.
//!
//! `info` and `validate` also take several files or directories: the files are read on all
//! cores (one whole file per worker at a time, dropped when done) and reported in sorted
//! path order, with a progress bar when stderr is a terminal.
//!
//! Every file a command writes goes through [`destination`], which checks the output
//! against the input before any work and writes it atomically with [`demokit::output`].
//!
//! Every error goes to stderr as `demokit: FILE: at byte N: message` (or
//! `demokit: FILE: message` where no offset applies, such as a file that cannot be opened),
//! and the exit status says what kind of failure it was (see [`LONG_ABOUT`]).

#![forbid(unsafe_code)]

mod destination;
mod edit;
mod source;

use clap::{Parser, Subcommand};
use demokit::detect::{self, Format};
use demokit::teehistorian::{self as th, TeehistorianSlice, TeehistorianWriter};
use demokit::twdemo::demo::{RewriteError, RewriteStats, rewrite};
use demokit::twdemo::summary::Summary;
use demokit::twdemo::validate::{Problem, Report, Verdict, validate};
use demokit::twdemo::{
    Chunk, ChunkAt, DemoSlice, PayloadDecoder, ReadError, ReadErrorKind, WriteError,
};
use destination::{Destination, EditOutputArgs, OutputArgs, write_output};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::iter::{ParallelBridge, ParallelIterator};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::{Display, Write as _};
use std::io::{self, BufWriter, IsTerminal, Read, StdoutLock, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// The text `demokit --help` prints after the usage, documenting the exit codes.
const LONG_ABOUT: &str = "\
Inspects, checks and rewrites game recordings byte for byte.

The format is detected from the file's magic bytes. Teeworlds/DDNet demos (TWDEMO), DDNet
teehistorian files and Source engine demos (HL2DEMO: TF2, HL2, Portal 1 and 2, Left 4 Dead
1 and 2, CS:GO) are supported; GoldSrc (HLDEMO) and Source 2 (PBDEMS2) demos are different
formats and are refused.

`info` and `validate` take several files and directories. Directories are searched
recursively for recordings of the supported formats by their magic bytes; any other file found
there is named on stderr as skipped. The files are read in parallel on all cores and
reported in sorted path order (with --json: one JSON object per line, each with a \"file\"
field; a file that cannot be read at all gets an \"error\": {offset, message}). A progress
bar is drawn when stderr is a terminal. At the end, the files that failed are named on
stderr.

The commands that write a file (rewrite, repair, convert, trim, extract-map) never destroy
their input: an OUTPUT that is the input, under any spelling or through a hard or symbolic
link, is refused (exit 2). An existing OUTPUT is refused too (exit 2) unless --force (-f)
is given. repair and convert also take --in-place instead of OUTPUT to replace the input
with the result. The result is written to a temporary file beside OUTPUT, synced to disk
and renamed over it: a failure leaves no partial file, and any file already there stays as
it was.

Errors go to stderr as `demokit: FILE: at byte N: message`.

Exit codes:
  0  success
  1  the file is invalid or could not be read as its format (a format error), its format
     is not supported, or `validate` rejects it
  2  usage error: a bad command line, or an output refused (the input itself, an existing
     file without --force, not a regular file)
  3  I/O error: a file could not be opened, read or written
With several files, the highest code any file earned (skipped files count as 0).";

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(name = "demokit", version, about = "Inspects, checks and rewrites game recordings", long_about = LONG_ABOUT)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Prints the header fields and chunk or message counts of recordings.
    ///
    /// If the chunk or message stream breaks off, the summary of everything before the break
    /// is still printed (in JSON with an "error" field) and the exit status is non-zero.
    Info {
        /// Recordings, or directories to search for them.
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// Print one JSON object per file (JSON Lines) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Prints every chunk or message with its offset, tick, kind and decoded contents.
    ///
    /// One line per demo chunk or teehistorian message. A demo chunk payload that fails to decode is reported on its own line and the dump
    /// goes on (the exit status is then 1); a read error ends the dump, with the error on
    /// stderr and a non-zero exit status.
    Dump {
        /// The recording.
        file: PathBuf,
        /// Print JSON Lines (one object per chunk or message) instead of text.
        #[arg(long)]
        json: bool,
        /// Teeworlds demos: print the full snapshot at each tick instead (every item by
        /// type and id, deltas applied), one JSON object per tick with --json.
        #[arg(long)]
        snapshots: bool,
    },
    /// Decodes every chunk or message and encodes it again into a new file.
    ///
    /// Statistics go to stderr. If the input is cut off, what precedes the cut is written
    /// and the exit status is non-zero.
    Rewrite {
        /// The recording to read.
        input: PathBuf,
        /// Where to write.
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Repairs a recording whose recorder never finished.
    ///
    /// Teeworlds demo: keeps every complete chunk, drops a partial one at the end, and sets
    /// the header length and timeline markers as the recorder's finish would have.
    ///
    /// Teehistorian: keeps every complete message (a message cut short, bytes that do not
    /// read as a message, or bytes after FINISH are dropped) and appends FINISH; the result
    /// reads, validates and rewrites byte for byte.
    ///
    /// Source demo: keeps every complete frame, drops a partial one at the end, appends a
    /// stop command if there is none, and recomputes the header's ticks, frames, playback
    /// time and signon length from the frames. The tick interval comes from the game
    /// directory; for an unknown game, from the header's own time and ticks when they are
    /// set, else 0.015 s, and the report says it guessed.
    ///
    /// What changed is printed (JSON with --json).
    Repair {
        /// The recording to repair.
        input: PathBuf,
        /// Where to write.
        #[command(flatten)]
        output: EditOutputArgs,
        /// Source demos: seconds per tick, overriding the game directory's.
        #[arg(long, value_name = "SECONDS")]
        tick_interval: Option<f32>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Converts a Teeworlds demo to another format version (3 to 6).
    ///
    /// Data chunks are copied untouched; tick markers are re-encoded as that version's
    /// recorder writes them; the timeline-marker block (from version 4) and the map SHA-256
    /// block (version 6, computed from the map) are added or dropped.
    Convert {
        /// The demo to read.
        input: PathBuf,
        /// Where to write.
        #[command(flatten)]
        output: EditOutputArgs,
        /// The version to write.
        #[arg(long, value_parser = clap::value_parser!(u8).range(3..=6))]
        version: u8,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Cuts a tick range out of a Teeworlds demo, at any tick.
    ///
    /// The output starts with a keyframe rebuilt from the snapshot at the first tick; later
    /// ticks are recorded from their rebuilt snapshots as DDNet's recorder would (deltas
    /// re-encoded, a keyframe after more than 250 ticks, and one wherever a delta could not
    /// keep the snapshot's item order). Original tick numbers, messages and timeline markers
    /// in the range, the map and the header are kept; the length is recomputed.
    Trim {
        /// The demo to read.
        input: PathBuf,
        /// Where to write.
        #[command(flatten)]
        output: OutputArgs,
        /// First tick to keep.
        #[arg(long, allow_hyphen_values = true)]
        from: i32,
        /// Last tick to keep.
        #[arg(long, allow_hyphen_values = true)]
        to: i32,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Writes the map embedded in a Teeworlds demo to a file.
    ///
    /// Its CRC-32 (and SHA-256, for a version-6 demo with the block) are checked against the
    /// header; the map is written either way, and a mismatch exits 1.
    ExtractMap {
        /// The demo to read.
        input: PathBuf,
        /// Where to write the map.
        #[command(flatten)]
        output: OutputArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Checks recordings; exits 0 if every one passes.
    ///
    /// Each fatal problem is printed to stderr and makes the exit status non-zero; non-fatal
    /// problems are printed as warnings. A demo passes if DDNet's player would accept it. A
    /// Source demo passes if it reads to its stop command and its header agrees with its
    /// frames (signon length, frames, ticks, playback time). A teehistorian file passes if it
    /// reads to FINISH without error; fatal: an unreadable header or message, a missing
    /// FINISH (cut off), bytes after FINISH; a warning: messages holding ints in a
    /// non-canonical form (DDNet reads them, and a rewrite keeps them as stored).
    Validate {
        /// Recordings, or directories to search for them.
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        /// Also print the report as JSON on stdout (one object per file).
        #[arg(long)]
        json: bool,
    },
}

/// How the process ends; a later variant is the more serious.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Exit {
    /// Exit code 0 (also used to stop quietly when stdout is closed by the reader).
    Success = 0,
    /// Exit code 1: a format error, an unsupported format, or a rejected file.
    Invalid = 1,
    /// Exit code 2: a bad command line (clap exits with 2 itself for what it checks).
    Usage = 2,
    /// Exit code 3: a file or stream could not be opened, read or written.
    Io = 3,
}

/// A command stopped early; whatever needed saying has been said on stderr.
#[derive(Debug, Clone, Copy)]
struct Stop(Exit);

/// The result of a command or a step of one.
type Outcome<T = ()> = Result<T, Stop>;

/// Parses the command line, runs the command and turns its outcome into the exit status.
fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Info { files, json } => run_jobs(files, |job, batch| info_job(job, *json, batch)),
        Command::Dump {
            file,
            json,
            snapshots: false,
        } => dump(file, *json),
        Command::Dump {
            file,
            json,
            snapshots: true,
        } => with_twdemo(file, |data| edit::dump_snapshots(file, data, *json)),
        Command::Rewrite { input, output } => output
            .destination(input)
            .and_then(|output| rewrite_file(input, &output)),
        Command::Repair {
            input,
            output,
            tick_interval,
            json,
        } => output
            .destination(input)
            .and_then(|output| repair_file(input, &output, *tick_interval, *json)),
        Command::Convert {
            input,
            output,
            version,
            json,
        } => output.destination(input).and_then(|output| {
            with_twdemo(input, |data| {
                edit::convert_file(input, &output, data, *version, *json)
            })
        }),
        Command::Trim {
            input,
            output,
            from,
            to,
            json,
        } => output.destination(input).and_then(|output| {
            with_twdemo(input, |data| {
                edit::trim_file(input, &output, data, *from, *to, *json)
            })
        }),
        Command::ExtractMap {
            input,
            output,
            json,
        } => output.destination(input).and_then(|output| {
            with_twdemo(input, |data| {
                edit::extract_map_file(input, &output, data, *json)
            })
        }),
        Command::Validate { files, json } => {
            run_jobs(files, |job, batch| validate_job(job, *json, batch))
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Stop(exit)) => ExitCode::from(exit as u8),
    }
}

/// The line `demokit: FILE: message` (with its newline).
fn complaint(file: &Path, message: impl Display) -> String {
    format!("demokit: {}: {message}\n", file.display())
}

/// Prints `demokit: FILE: message` to stderr, ignoring a failing stderr.
fn complain(file: &Path, message: impl Display) {
    let _ = io::stderr()
        .lock()
        .write_all(complaint(file, message).as_bytes());
}

/// A read error of either format: where it is, what it says and the exit status it earns.
/// Its `Display` is `at byte N: message`.
trait Failure: Display {
    /// Offset the error was found at.
    fn offset(&self) -> u64;
    /// What went wrong (without the offset).
    fn message(&self) -> String;
    /// I/O trouble or a format error.
    fn exit(&self) -> Exit;
}

impl Failure for ReadError {
    fn offset(&self) -> u64 {
        self.offset
    }
    fn message(&self) -> String {
        self.kind.to_string()
    }
    fn exit(&self) -> Exit {
        match self.kind {
            ReadErrorKind::Io(_) => Exit::Io,
            _ => Exit::Invalid,
        }
    }
}

impl Failure for th::ReadError {
    fn offset(&self) -> u64 {
        self.offset
    }
    fn message(&self) -> String {
        self.kind.to_string()
    }
    fn exit(&self) -> Exit {
        match self.kind {
            th::ReadErrorKind::Io(_) => Exit::Io,
            _ => Exit::Invalid,
        }
    }
}

/// Prints `error` and returns the matching stop.
fn read_failure(file: &Path, error: &impl Failure) -> Stop {
    complain(file, error);
    Stop(error.exit())
}

/// The supported format `head` (the first bytes of a file, at least 16 unless the file is
/// shorter) starts like, or why the file is refused (without the "at byte 0: ").
fn supported(head: &[u8]) -> Result<Format, String> {
    match detect::detect(head) {
        Some(format @ (Format::TwDemo | Format::Teehistorian | Format::SourceDemo)) => Ok(format),
        Some(format @ (Format::GoldSrcDemo | Format::Source2Demo)) => Err(format!(
            "{} is a different format from Source's HL2DEMO (and from Teeworlds/DDNet \
             recordings) and is refused",
            format.name()
        )),
        None if head.is_empty() => Err("the file is empty (unknown format)".into()),
        None => {
            let head = &head[..head.len().min(8)];
            Err(format!(
                "unknown format: the file starts with {} ({:?}), which is no known magic (a \
                 Teeworlds/DDNet demo starts with \"TWDEMO\\0\", a DDNet teehistorian file \
                 with the UUID 699db17b-8efb-34ff-b1d8-da6f60c15dd1, a Source demo with \
                 \"HL2DEMO\\0\")",
                hex::encode(head),
                String::from_utf8_lossy(head)
            ))
        }
    }
}

/// The name of a supported format in JSON output, as the summaries spell it.
fn format_id(format: Format) -> &'static str {
    match format {
        Format::Teehistorian => "teehistorian",
        Format::SourceDemo => "source",
        _ => "twdemo",
    }
}

/// Reads a whole file, or says why it could not.
fn load(file: &Path) -> Outcome<Vec<u8>> {
    std::fs::read(file).map_err(|e| {
        complain(file, format_args!("cannot read: {e}"));
        Stop(Exit::Io)
    })
}

/// Reads `file` and checks that it is a demo or a teehistorian file, refusing other formats.
fn load_supported(file: &Path) -> Outcome<(Format, Vec<u8>)> {
    let data = load(file)?;
    match supported(&data) {
        Ok(format) => Ok((format, data)),
        Err(why) => {
            complain(file, format_args!("at byte 0: {why}"));
            Err(Stop(Exit::Invalid))
        }
    }
}

/// Buffered, locked stdout that turns a closed pipe into a quiet, successful stop.
struct Output {
    /// The buffered stream.
    inner: BufWriter<StdoutLock<'static>>,
}

impl Output {
    /// Locks stdout.
    fn new() -> Self {
        Output {
            inner: BufWriter::with_capacity(64 * 1024, io::stdout().lock()),
        }
    }

    /// Turns a write error into a stop: quiet success for a closed pipe, else an I/O error.
    fn failed(error: io::Error) -> Stop {
        if error.kind() == io::ErrorKind::BrokenPipe {
            Stop(Exit::Success)
        } else {
            let _ = writeln!(
                io::stderr().lock(),
                "demokit: <stdout>: cannot write: {error}"
            );
            Stop(Exit::Io)
        }
    }

    /// Writes formatted text.
    fn write_fmt(&mut self, args: std::fmt::Arguments<'_>) -> Outcome {
        self.inner.write_fmt(args).map_err(Self::failed)
    }

    /// Writes text as it is.
    fn write_str(&mut self, text: &str) -> Outcome {
        self.inner.write_all(text.as_bytes()).map_err(Self::failed)
    }

    /// Writes `value` as one line of JSON.
    fn json_line(&mut self, value: &impl Serialize) -> Outcome {
        serde_json::to_writer(&mut self.inner, value).map_err(|e| Self::failed(e.into()))?;
        self.inner.write_all(b"\n").map_err(Self::failed)
    }

    /// Flushes everything written so far.
    fn flush(&mut self) -> Outcome {
        self.inner.flush().map_err(Self::failed)
    }
}

/// `value` as one line of JSON, newline included.
fn json_line(value: &impl Serialize) -> String {
    // Only plain structs, strings and numbers go in: serializing them cannot fail.
    let mut line = serde_json::to_string(value).expect("JSON of plain data");
    line.push('\n');
    line
}

// ---------------------------------------------------------------------------------------
// Several files: `info` and `validate` over files and directories.
// ---------------------------------------------------------------------------------------

/// One path to work on, named on the command line or found in a directory.
#[derive(Debug)]
struct Job {
    /// The file.
    path: PathBuf,
    /// Found while searching a directory: skipped unless it is a demo or teehistorian file.
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
fn collect_jobs(paths: &[PathBuf]) -> (Vec<Job>, bool) {
    let mut jobs = Vec::new();
    let mut batch = paths.len() > 1;
    for path in paths {
        if path.is_dir() {
            batch = true;
            search(path, &mut jobs);
        } else {
            jobs.push(Job {
                path: path.clone(),
                found: false,
                settled: None,
            });
        }
    }
    // A path both named and found counts as named (it is read whatever its format).
    jobs.sort_by(|a, b| a.path.cmp(&b.path).then(a.found.cmp(&b.found)));
    jobs.dedup_by(|later, earlier| later.path == earlier.path);
    (jobs, batch)
}

/// Adds every file under `dir` to `jobs`. Symbolic links to files are followed, links to
/// directories are not (they could form a cycle).
fn search(dir: &Path, jobs: &mut Vec<Job>) {
    let failed = |e: io::Error| Job {
        path: dir.to_path_buf(),
        found: true,
        settled: Some(Settled::Fail(format!("cannot read the directory: {e}"))),
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return jobs.push(failed(e)),
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => return jobs.push(failed(e)),
        };
        let path = entry.path();
        let skip = |why: &str| Some(Settled::Skip(why.to_string()));
        let settled = match entry.file_type() {
            Ok(t) if t.is_dir() => {
                search(&path, jobs);
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
        jobs.push(Job {
            path,
            found: true,
            settled,
        });
    }
}

/// What one file produced, ready to print.
#[derive(Debug, Default)]
struct Done {
    /// Text for stdout: a JSON line, a text block, or nothing.
    out: String,
    /// Lines for stderr, each with its newline.
    err: String,
    /// How it went.
    status: Status,
}

/// How one file went.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Read (and, for `validate`, accepted).
    #[default]
    Ok,
    /// Found in a directory but not a demo or teehistorian file.
    Skipped,
    /// Failed, earning this exit status.
    Failed(Exit),
}

/// A read error in JSON output.
#[derive(Debug, Serialize)]
struct ErrorJson {
    /// Offset the error was found at (`null` when none applies, as for an I/O error).
    offset: Option<u64>,
    /// What went wrong (without the offset).
    message: String,
}

impl ErrorJson {
    /// The JSON form of a read error.
    fn of(error: &dyn Failure) -> ErrorJson {
        ErrorJson {
            offset: Some(error.offset()),
            message: error.message(),
        }
    }
}

/// A file that could not be read at all, in JSON output.
#[derive(Debug, Serialize)]
struct FailedJson {
    /// The file.
    file: String,
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
    file: String,
    /// Why it was skipped.
    skipped: &'a str,
}

impl Done {
    /// A file that could not be read at all (or not as any supported format).
    fn failed(
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
                file: file.display().to_string(),
                format: format.map(format_id),
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

    /// A file skipped during a directory search.
    fn skipped(file: &Path, why: &str, json: bool) -> Done {
        let out = if json {
            json_line(&SkippedJson {
                file: file.display().to_string(),
                skipped: why,
            })
        } else {
            String::new()
        };
        Done {
            out,
            err: complaint(file, format_args!("skipped: {why}")),
            status: Status::Skipped,
        }
    }
}

/// Reads a job's file: its format and bytes, or what ends the job already (a skip or a
/// failure).
fn read_job(job: &Job, json: bool) -> Result<(Format, Vec<u8>), Done> {
    let (format, data, file) = open_job(job, json)?;
    Ok((format, read_rest(job, json, data, file)?))
}

/// Reads the rest of an opened job's file after the `data` already read.
fn read_rest(
    job: &Job,
    json: bool,
    mut data: Vec<u8>,
    mut file: std::fs::File,
) -> Result<Vec<u8>, Done> {
    if let Ok(meta) = file.metadata() {
        data.reserve_exact(usize::try_from(meta.len()).unwrap_or(0).saturating_sub(16));
    }
    file.read_to_end(&mut data).map_err(|e| {
        let message = format!("cannot read: {e}");
        Done::failed(&job.path, None, Exit::Io, None, message, json)
    })?;
    Ok(data)
}

/// Opens a job's file and reads its magic: the format, the bytes read so far and the file
/// positioned after them, or what ends the job already (a skip or a failure).
fn open_job(job: &Job, json: bool) -> Result<(Format, Vec<u8>, std::fs::File), Done> {
    let path = &job.path;
    match &job.settled {
        Some(Settled::Skip(why)) => return Err(Done::skipped(path, why, json)),
        Some(Settled::Fail(why)) => {
            return Err(Done::failed(path, None, Exit::Io, None, why.clone(), json));
        }
        None => {}
    }
    let cannot_read = |e: io::Error| {
        let message = format!("cannot read: {e}");
        Done::failed(path, None, Exit::Io, None, message, json)
    };
    let mut file = std::fs::File::open(path).map_err(cannot_read)?;
    // The magic first, so that a file skipped for its format is not read whole.
    let mut data = Vec::new();
    (&mut file)
        .take(16)
        .read_to_end(&mut data)
        .map_err(cannot_read)?;
    let format = match supported(&data) {
        Ok(format) => format,
        Err(why) if job.found => {
            let why = match detect::detect(&data) {
                None if !data.is_empty() => {
                    "unknown format (neither a demo nor a teehistorian file)"
                }
                _ => &why,
            };
            return Err(Done::skipped(path, why, json));
        }
        Err(why) => return Err(Done::failed(path, None, Exit::Invalid, Some(0), why, json)),
    };
    Ok((format, data, file))
}

/// Runs `work` (given a job and whether this is a batch) on the files `paths` name.
///
/// One file named on its own is printed as it is. Otherwise the files are read in parallel
/// and printed in sorted order as they become ready; a closing note names the files that
/// failed.
fn run_jobs(paths: &[PathBuf], work: impl Fn(&Job, bool) -> Done + Sync) -> Outcome {
    let (jobs, batch) = collect_jobs(paths);
    if !batch {
        let done = work(&jobs[0], false);
        print_done(&mut Output::new(), &done, true)?;
        return match done.status {
            Status::Failed(exit) => Err(Stop(exit)),
            Status::Ok | Status::Skipped => Ok(()),
        };
    }
    if jobs.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let _ = writeln!(
            io::stderr().lock(),
            "demokit: no files found in {}",
            names.join(", ")
        );
        return Ok(());
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
    tally.report(jobs.len());
    match tally.worst {
        Exit::Success => Ok(()),
        exit => Err(Stop(exit)),
    }
}

/// A progress bar on stderr when it is a terminal, else one that draws nothing.
fn progress_bar(len: usize) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "{elapsed_precise} [{wide_bar}] {pos}/{len} files, {eta} left",
    )
    .map(|style| style.progress_chars("=> "))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr()).with_style(style)
}

/// What a batch came to.
#[derive(Debug)]
struct Tally {
    /// The files that failed, in order.
    failed: Vec<PathBuf>,
    /// How many files were skipped.
    skipped: usize,
    /// The most serious exit status earned.
    worst: Exit,
}

impl Tally {
    /// Prints the closing note: how many files were skipped, and which failed.
    fn report(&self, total: usize) {
        let mut text = String::new();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        if self.skipped > 0 {
            let _ = writeln!(
                text,
                "demokit: {} file{} skipped (not a demo or teehistorian file)",
                self.skipped,
                plural(self.skipped)
            );
        }
        if !self.failed.is_empty() {
            let read = total - self.skipped;
            let _ = writeln!(
                text,
                "demokit: {} of {read} file{} failed:",
                self.failed.len(),
                plural(read)
            );
            for path in &self.failed {
                let _ = writeln!(text, "  {}", path.display());
            }
        }
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }
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
    let mut tally = Tally {
        failed: Vec::new(),
        skipped: 0,
        worst: Exit::Success,
    };
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
                match done.status {
                    Status::Ok => {}
                    Status::Skipped => tally.skipped += 1,
                    Status::Failed(exit) => {
                        tally.failed.push(jobs[next].path.clone());
                        tally.worst = tally.worst.max(exit);
                    }
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
    let _ = io::stderr().lock().write_all(done.err.as_bytes());
    Ok(())
}

// ---------------------------------------------------------------------------------------
// info
// ---------------------------------------------------------------------------------------

/// `demokit info` on one file.
fn info_job(job: &Job, json: bool, batch: bool) -> Done {
    let path = &job.path;
    let (format, head, file) = match open_job(job, json) {
        Ok(opened) => opened,
        Err(done) => return done,
    };
    let header_failed = |e: &dyn Failure| {
        let (exit, offset) = (e.exit(), Some(e.offset()));
        Done::failed(path, Some(format), exit, offset, e.message(), json)
    };
    if format == Format::SourceDemo {
        let reader = io::BufReader::new(io::Cursor::new(head).chain(file));
        return match demokit::source::summary::Summary::scan_reader(reader) {
            Ok((s, error)) => {
                let text = |out: &mut String| source::summary_text(out, &s);
                info_done(path, &s, text, error.as_ref().map(|e| e as _), json, batch)
            }
            Err(e) => header_failed(&e),
        };
    }
    if format == Format::Teehistorian {
        // Streamed, so that memory stays flat however long the server ran.
        let reader = io::BufReader::new(io::Cursor::new(head).chain(file));
        return match th::Summary::scan_reader(reader) {
            Ok((s, error)) => {
                let text = |out: &mut String| teehistorian_text(out, &s);
                info_done(path, &s, text, error.as_ref().map(|e| e as _), json, batch)
            }
            Err(e) => header_failed(&e),
        };
    }
    let data = match read_rest(job, json, head, file) {
        Ok(data) => data,
        Err(done) => return done,
    };
    match Summary::scan(&data) {
        Ok((s, error)) => {
            let text = |out: &mut String| demo_text(out, &s);
            info_done(path, &s, text, error.as_ref().map(|e| e as _), json, batch)
        }
        Err(e) => header_failed(&e),
    }
}

/// `demokit info --json` output: the file, the summary's fields, then the error if there
/// was one.
#[derive(Debug, Serialize)]
struct InfoJson<'a, S: Serialize> {
    /// The file.
    file: String,
    /// The summary of everything before the error.
    #[serde(flatten)]
    summary: &'a S,
    /// Why the chunk or message stream ended early.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorJson>,
}

/// The output of `info` for a file whose header could be read: the summary (as JSON, or as
/// text written by `text`), and the error that ended the scan, if any.
fn info_done<S: Serialize>(
    file: &Path,
    summary: &S,
    text: impl FnOnce(&mut String),
    error: Option<&dyn Failure>,
    json: bool,
    batch: bool,
) -> Done {
    let mut done = Done::default();
    if json {
        done.out = json_line(&InfoJson {
            file: file.display().to_string(),
            summary,
            error: error.map(ErrorJson::of),
        });
    } else {
        if batch {
            row(&mut done.out, "file", file.display());
        }
        text(&mut done.out);
        if let Some(e) = error {
            row(&mut done.out, "error", e);
        }
        if batch {
            done.out.push('\n');
        }
    }
    if let Some(e) = error {
        done.err = complaint(file, e);
        done.status = Status::Failed(e.exit());
    }
    done
}

/// Appends one `key value` row, the values aligned in one column.
fn row(out: &mut String, key: &str, value: impl Display) {
    let _ = writeln!(out, "{key:<17} {value}");
}

/// `first to last`, or `none`.
fn tick_range(first: Option<i32>, last: Option<i32>) -> String {
    match (first, last) {
        (Some(first), Some(last)) => format!("{first} to {last}"),
        _ => "none".into(),
    }
}

/// Appends a demo summary as an aligned text block.
fn demo_text(out: &mut String, s: &Summary) {
    let markers = if s.timeline_markers.is_empty() {
        "none".to_string()
    } else {
        let list: Vec<String> = s.timeline_markers.iter().map(i32::to_string).collect();
        format!("{} ({})", s.timeline_markers.len(), list.join(", "))
    };
    let c = &s.counts;
    let rows: [(&str, String); 19] = [
        ("format", s.format.to_string()),
        ("version", s.version.to_string()),
        ("net version", s.net_version.clone()),
        ("map name", s.map_name.clone()),
        ("map size", format!("{} bytes", s.map_size)),
        ("map crc", s.map_crc.clone()),
        (
            "map sha256",
            s.map_sha256.clone().unwrap_or_else(|| "none".into()),
        ),
        ("type", s.kind.clone()),
        ("length", format!("{} s", s.length)),
        ("timestamp", s.timestamp.clone()),
        ("timeline markers", markers),
        (
            "map offset",
            format!("{} (chunks at {})", s.map_offset, s.chunks_offset),
        ),
        ("ticks", tick_range(s.first_tick, s.last_tick)),
        (
            "tick markers",
            format!(
                "{} ({} keyframe{})",
                c.tick_markers,
                c.keyframes,
                if c.keyframes == 1 { "" } else { "s" }
            ),
        ),
        ("snapshots", c.snapshots.to_string()),
        ("deltas", c.deltas.to_string()),
        ("messages", c.messages.to_string()),
        ("unknown chunks", c.unknown.to_string()),
        ("payload bytes", format!("{} (stored)", s.payload_bytes)),
    ];
    for (key, value) in rows {
        row(out, key, value);
    }
    map_text(out, s);
}

/// Appends the embedded map's own facts (from its datafile) to a demo's text block.
fn map_text(out: &mut String, s: &Summary) {
    if let Some(e) = &s.map_error {
        row(
            out,
            "map file",
            format_args!("not a datafile: at byte {}: {}", e.offset, e.message),
        );
        return;
    }
    let Some(m) = &s.map else {
        return;
    };
    row(
        out,
        "map file",
        format_args!(
            "datafile v{}, {} items ({} types), {} data blocks, crc {}",
            m.datafile_version, m.items, m.item_types, m.data_blocks, m.crc32
        ),
    );
    let version = m.map_version.map_or("none".to_string(), |v| v.to_string());
    row(out, "map version", version);
    if let Some(info) = &m.info {
        for (key, value) in [
            ("map author", &info.author),
            ("map release", &info.version),
            ("map credits", &info.credits),
            ("map license", &info.license),
        ] {
            if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
                row(out, key, v);
            }
        }
    }
    let game = m.game_layer.map_or("no game layer".to_string(), |g| {
        format!("game layer {}x{}", g.width, g.height)
    });
    row(
        out,
        "map contents",
        format_args!(
            "{} groups, {} layers ({} tiles, {} quads, {} sounds), {} images ({} embedded), {} envelopes, {} sounds; {game}",
            m.groups,
            m.layers.tiles + m.layers.quads + m.layers.sounds + m.layers.other,
            m.layers.tiles,
            m.layers.quads,
            m.layers.sounds,
            m.images,
            m.embedded_images,
            m.envelopes,
            m.sounds
        ),
    );
    match &m.load_error {
        None => row(out, "map loads", "yes (DDNet's map checks pass)"),
        Some(e) => row(
            out,
            "map loads",
            format_args!("no: at map byte {}: {}", e.offset, e.message),
        ),
    }
}

/// Appends a teehistorian summary as an aligned text block, then the counts by kind.
fn teehistorian_text(out: &mut String, s: &th::Summary) {
    let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    let version = match &s.version_minor {
        Some(minor) => format!("{} (minor {minor})", s.version),
        None => s.version.clone(),
    };
    let rows: [(&str, String); 11] = [
        ("format", s.format.to_string()),
        ("version", version),
        ("game uuid", or_none(&s.game_uuid)),
        ("server version", or_none(&s.server_version)),
        ("map name", or_none(&s.map_name)),
        ("start time", or_none(&s.start_time)),
        ("header", format!("{} bytes", s.header_len)),
        ("ticks", tick_range(s.first_tick, s.last_tick)),
        (
            "finished",
            if s.finished {
                "yes (FINISH)"
            } else {
                "no (the server did not finish it; `demokit repair` appends FINISH)"
            }
            .to_string(),
        ),
        ("trailing bytes", s.trailing_bytes.to_string()),
        (
            "messages",
            format!(
                "{} ({} with non-canonical ints)",
                s.messages, s.non_canonical_messages
            ),
        ),
    ];
    for (key, value) in rows {
        row(out, key, value);
    }
    let kind_width = s.counts.keys().map(String::len).max().unwrap_or(0);
    let count_width = s.counts.values().map(|n| n.to_string().len()).max();
    for (kind, n) in &s.counts {
        let _ = writeln!(
            out,
            "  {kind:<kind_width$}  {n:>w$}",
            w = count_width.unwrap_or(0)
        );
    }
}

// ---------------------------------------------------------------------------------------
// validate
// ---------------------------------------------------------------------------------------

/// `demokit validate --json` output.
#[derive(Debug, Serialize)]
struct ValidateJson<'a> {
    /// The file.
    file: String,
    /// "twdemo", "teehistorian" or "source".
    format: &'static str,
    /// Whether the file passes: no fatal problem.
    accepted: bool,
    /// Demos: how DDNet's client ends with it ("plays", "rejects" or "crashes").
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<Verdict>,
    /// Everything found, in file order.
    problems: &'a [Problem],
}

/// `demokit validate` on one file.
fn validate_job(job: &Job, json: bool, batch: bool) -> Done {
    let (format, data) = match read_job(job, json) {
        Ok(read) => read,
        Err(done) => return done,
    };
    let path = &job.path;
    let report: Report = match format {
        Format::Teehistorian => th::summary::validate(&data),
        Format::SourceDemo => demokit::source::summary::validate(&data),
        _ => validate(&data),
    };
    drop(data);
    let mut done = Done::default();
    for p in &report.problems {
        let prefix = if p.fatal { "" } else { "warning: " };
        done.err += &complaint(
            path,
            format_args!("{prefix}at byte {}: {}", p.offset, p.message),
        );
    }
    if json {
        done.out = json_line(&ValidateJson {
            file: path.display().to_string(),
            format: format_id(format),
            accepted: report.accepted(),
            verdict: (format == Format::TwDemo).then(|| report.verdict()),
            problems: &report.problems,
        });
    } else if batch {
        let warnings = report.problems.iter().filter(|p| !p.fatal).count();
        let verdict = match (report.accepted(), warnings) {
            (false, _) if report.verdict() == Verdict::Crashes => {
                "rejected (DDNet would crash)".to_string()
            }
            (false, _) => "rejected".to_string(),
            (true, 0) => "ok".to_string(),
            (true, 1) => "ok (1 warning)".to_string(),
            (true, n) => format!("ok ({n} warnings)"),
        };
        done.out = format!("{}: {verdict}\n", path.display());
    }
    if !report.accepted() {
        done.status = Status::Failed(Exit::Invalid);
    }
    done
}

// ---------------------------------------------------------------------------------------
// dump
// ---------------------------------------------------------------------------------------

/// One chunk as `demokit dump --json` prints it.
#[derive(Debug, Serialize)]
struct DumpLine<'a> {
    /// Offset of the chunk header.
    offset: u64,
    /// The current tick (`null` before the first tick marker).
    tick: Option<i32>,
    /// "tick", "snapshot", "delta", "message" or "unknown".
    kind: &'static str,
    /// For a tick marker: whether it is a keyframe.
    #[serde(skip_serializing_if = "Option::is_none")]
    keyframe: Option<bool>,
    /// Stored payload bytes (0 for a tick marker).
    raw_size: usize,
    /// Bytes after decoding (4 per int); absent if the payload was not decoded.
    #[serde(skip_serializing_if = "Option::is_none")]
    decoded_size: Option<usize>,
    /// The decoded ints.
    #[serde(skip_serializing_if = "Option::is_none")]
    ints: Option<&'a [i32]>,
    /// The stored payload in hex, for chunks of the unknown type (which are not decoded).
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_hex: Option<String>,
    /// Why the payload could not be decoded.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// How many ints a text dump line shows before it elides the rest.
const TEXT_INTS_SHOWN: usize = 16;

/// `demokit dump`.
fn dump(file: &Path, json: bool) -> Outcome {
    let (format, data) = load_supported(file)?;
    match format {
        Format::Teehistorian => dump_teehistorian(file, &data, json),
        Format::SourceDemo => source::dump(file, &data, json),
        _ => dump_twdemo(file, &data, json),
    }
}

/// `demokit dump` on a demo.
fn dump_twdemo(file: &Path, data: &[u8], json: bool) -> Outcome {
    let slice = DemoSlice::parse(data).map_err(|e| read_failure(file, &e))?;
    let mut out = Output::new();
    let mut decoder = PayloadDecoder::new();
    let mut tick = None;
    // Offset and message of the first payload that failed to decode, and how many did.
    let mut first_undecodable: Option<(u64, String)> = None;
    let mut undecodable = 0usize;
    if !json {
        writeln!(
            out,
            "{:>10} {:>10}  {:<8} {:>6} {:>7}  payload",
            "offset", "tick", "kind", "raw", "decoded"
        )?;
    }
    for item in slice.chunks() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                out.flush()?;
                return Err(read_failure(file, &e));
            }
        };
        if let Chunk::Tick(marker) = item.chunk {
            tick = Some(marker.tick);
        }
        let line = dump_line(&item, tick, &mut decoder);
        if let Some(error) = &line.error {
            undecodable += 1;
            first_undecodable.get_or_insert_with(|| (line.offset, error.clone()));
        }
        if json {
            out.json_line(&line)?;
        } else {
            print_dump_line(&mut out, &line)?;
        }
    }
    out.flush()?;
    match first_undecodable {
        None => Ok(()),
        Some((offset, error)) => {
            let plural = if undecodable == 1 { "" } else { "s" };
            complain(
                file,
                format_args!(
                    "at byte {offset}: {undecodable} chunk payload{plural} could not be \
                     decoded; the first: {error}"
                ),
            );
            Err(Stop(Exit::Invalid))
        }
    }
}

/// Describes one chunk, decoding its payload with `decoder`.
fn dump_line<'d>(
    item: &ChunkAt<'_>,
    tick: Option<i32>,
    decoder: &'d mut PayloadDecoder,
) -> DumpLine<'d> {
    let mut line = DumpLine {
        offset: item.offset,
        tick,
        kind: "tick",
        keyframe: None,
        raw_size: 0,
        decoded_size: None,
        ints: None,
        raw_hex: None,
        error: None,
    };
    match item.chunk {
        Chunk::Tick(marker) => line.keyframe = Some(marker.keyframe),
        Chunk::Data(d) => {
            line.kind = d.kind.name();
            line.raw_size = d.payload.len();
            if d.kind == demokit::twdemo::ChunkKind::Unknown {
                // Players skip this type; its payload need not be a Huffman stream at all.
                line.raw_hex = Some(hex::encode(d.payload));
            } else {
                match decoder.decode(d.payload) {
                    Ok(decoded) => {
                        line.decoded_size = Some(decoded.ints.len() * 4);
                        line.ints = Some(decoded.ints);
                    }
                    Err(e) => line.error = Some(e.to_string()),
                }
            }
        }
    }
    line
}

/// Prints one chunk as a text line.
fn print_dump_line(out: &mut Output, line: &DumpLine<'_>) -> Outcome {
    let tick = line.tick.map_or_else(|| "-".to_string(), |t| t.to_string());
    write!(out, "{:>10} {:>10}  {:<8}", line.offset, tick, line.kind)?;
    if let Some(keyframe) = line.keyframe {
        return writeln!(out, "{}", if keyframe { " keyframe" } else { "" });
    }
    let decoded = line
        .decoded_size
        .map_or_else(|| "-".to_string(), |n| n.to_string());
    write!(out, " {:>6} {:>7}  ", line.raw_size, decoded)?;
    if let Some(ints) = line.ints {
        let shown = &ints[..ints.len().min(TEXT_INTS_SHOWN)];
        let list: Vec<String> = shown.iter().map(i32::to_string).collect();
        write!(out, "[{}", list.join(" "))?;
        if ints.len() > shown.len() {
            write!(out, " ... +{} more", ints.len() - shown.len())?;
        }
        write!(out, "]")?;
    }
    if let Some(hex) = &line.raw_hex {
        let cut = hex.len().min(2 * TEXT_INTS_SHOWN * 4);
        write!(
            out,
            "raw {}{}",
            &hex[..cut],
            if cut < hex.len() { "..." } else { "" }
        )?;
    }
    if let Some(error) = &line.error {
        write!(out, "error: {error}")?;
    }
    writeln!(out)
}

/// `demokit dump` on a teehistorian file.
fn dump_teehistorian(file: &Path, data: &[u8], json: bool) -> Outcome {
    let slice = TeehistorianSlice::parse(data).map_err(|e| read_failure(file, &e))?;
    let mut out = Output::new();
    if !json {
        writeln!(
            out,
            "{:>10} {:>10}  {:<15} fields",
            "offset", "tick", "kind"
        )?;
    }
    for item in slice.messages() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                out.flush()?;
                return Err(read_failure(file, &e));
            }
        };
        if json {
            out.json_line(&item)?;
        } else {
            let kind = item.message.kind_name();
            let mut text = format!("{:>10} {:>10}  {:<15}", item.offset, item.tick, kind);
            // The fields as the library serializes them, the kind already shown.
            if let Ok(Value::Object(fields)) = serde_json::to_value(item.message) {
                for (key, value) in fields.iter().filter(|(k, _)| *k != "kind" && *k != "ex") {
                    let _ = write!(text, " {key}={value}");
                }
            }
            if item.non_canonical > 0 {
                let _ = write!(text, " non_canonical={}", item.non_canonical);
            }
            writeln!(out, "{}", text.trim_end())?;
        }
    }
    out.flush()
}

// ---------------------------------------------------------------------------------------
// rewrite
// ---------------------------------------------------------------------------------------

/// `demokit rewrite`.
fn rewrite_file(input: &Path, output: &Destination) -> Outcome {
    let (format, data) = load_supported(input)?;
    match format {
        Format::Teehistorian => rewrite_teehistorian(input, output, &data),
        Format::SourceDemo => source::rewrite(input, output, &data),
        _ => rewrite_twdemo(input, output, &data),
    }
}

/// Runs `work` on the bytes of `input` if it is a Teeworlds demo; other formats are refused.
fn with_twdemo(input: &Path, work: impl FnOnce(&[u8]) -> Outcome) -> Outcome {
    let (format, data) = load_supported(input)?;
    if format != Format::TwDemo {
        complain(
            input,
            format_args!(
                "this command needs a Teeworlds/DDNet demo, not a {}",
                format.name()
            ),
        );
        return Err(Stop(Exit::Invalid));
    }
    work(&data)
}

/// `demokit repair`: Teeworlds and Source demos.
fn repair_file(
    input: &Path,
    output: &Destination,
    tick_interval: Option<f32>,
    json: bool,
) -> Outcome {
    let (format, data) = load_supported(input)?;
    match format {
        Format::SourceDemo => source::repair_file(input, output, &data, tick_interval, json),
        Format::TwDemo => edit::repair_demo(input, output, &data, json),
        Format::Teehistorian => edit::repair_teehistorian(input, output, &data, json),
        other => {
            complain(
                input,
                format_args!("repair of a {} is not supported yet", other.name()),
            );
            Err(Stop(Exit::Invalid))
        }
    }
}

/// `demokit rewrite` on a demo.
fn rewrite_twdemo(input: &Path, output: &Destination, data: &[u8]) -> Outcome {
    let mut bytes = Vec::with_capacity(data.len());
    let (stats, error) = match rewrite(data, &mut bytes) {
        Ok((_, stats)) => (stats, None),
        Err((stats, error)) => (stats, Some(error)),
    };
    // Whatever precedes a read error is a valid demo prefix; write it too. When nothing
    // could be produced (the prelude itself is unreadable), OUT is left alone.
    if error.is_none() || !bytes.is_empty() {
        write_output(output, &bytes)?;
    }
    print_rewrite_stats(input, output.path(), &stats, bytes.len(), error.is_some());
    match error {
        None => Ok(()),
        Some(RewriteError::Read(e)) => Err(read_failure(input, &e)),
        Some(RewriteError::Write(WriteError::Io(e))) => {
            complain(output.path(), format_args!("cannot write: {e}"));
            Err(Stop(Exit::Io))
        }
        Some(RewriteError::Write(e)) => {
            complain(input, format_args!("cannot be written again: {e}"));
            Err(Stop(Exit::Invalid))
        }
    }
}

/// Prints what a rewrite did to stderr.
fn print_rewrite_stats(
    input: &Path,
    output: &Path,
    stats: &RewriteStats,
    written: usize,
    partial: bool,
) {
    let _ = writeln!(
        io::stderr().lock(),
        "demokit: {} -> {}: {}{written} bytes; {} tick markers, {} data chunks re-encoded, \
         {} kept stored, {} chunk headers kept as stored",
        input.display(),
        output.display(),
        if partial { "stopped early, " } else { "" },
        stats.tick_markers,
        stats.reencoded,
        stats.kept_stored,
        stats.kept_raw_headers,
    );
}

/// `demokit rewrite` on a teehistorian file: the stored header JSON, then every message
/// through the writer (re-encoded, or copied as stored when its ints are not canonical).
/// On a read error, the messages before it are written (without FINISH).
fn rewrite_teehistorian(input: &Path, output: &Destination, data: &[u8]) -> Outcome {
    let slice = TeehistorianSlice::parse(data).map_err(|e| read_failure(input, &e))?;
    let sink = Vec::with_capacity(data.len());
    let mut writer = TeehistorianWriter::with_header_json(sink, slice.header_json())
        .map_err(|e| write_failure(input, output.path(), e))?;
    let (mut reencoded, mut copied) = (0u64, 0u64);
    let mut error = None;
    for item in slice.messages() {
        let written = item
            .map_err(th::RewriteError::from)
            .and_then(|item| Ok(writer.write_item(&item).map(|_| item.non_canonical > 0)?));
        match written {
            Ok(true) => copied += 1,
            Ok(false) => reencoded += 1,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| write_failure(input, output.path(), e))?;
    write_output(output, &bytes)?;
    let _ = writeln!(
        io::stderr().lock(),
        "demokit: {} -> {}: {}{} bytes; {} messages re-encoded, {} copied as stored \
         (non-canonical ints), header JSON kept as stored",
        input.display(),
        output.path().display(),
        if error.is_some() {
            "stopped early, "
        } else {
            ""
        },
        bytes.len(),
        reencoded,
        copied,
    );
    match error {
        None => Ok(()),
        Some(th::RewriteError::Read(e)) => Err(read_failure(input, &e)),
        Some(th::RewriteError::Write(e)) => Err(write_failure(input, output.path(), e)),
    }
}

/// Reports a teehistorian write error: the output's I/O trouble, or a message of the input
/// that cannot be written again.
fn write_failure(input: &Path, output: &Path, error: th::WriteError) -> Stop {
    match error {
        th::WriteError::Io(e) => {
            complain(output, format_args!("cannot write: {e}"));
            Stop(Exit::Io)
        }
        e => {
            complain(input, format_args!("cannot be written again: {e}"));
            Stop(Exit::Invalid)
        }
    }
}
