//! `demokit`: the command-line front end.
//!
//! A thin layer over the library: it detects the format of a file from its magic bytes,
//! hands the bytes to [`demokit::twdemo`] and prints what comes back. It holds no format
//! logic of its own.
//!
//! Every error goes to stderr as `demokit: FILE: at byte N: message` (or
//! `demokit: FILE: message` where no offset applies, such as a file that cannot be opened),
//! and the exit status says what kind of failure it was (see [`LONG_ABOUT`]).

use clap::{Parser, Subcommand};
use demokit::detect::{self, Format};
use demokit::twdemo::demo::{RewriteError, RewriteStats, rewrite};
use demokit::twdemo::summary::Summary;
use demokit::twdemo::validate::{Problem, Report, validate};
use demokit::twdemo::{
    Chunk, ChunkAt, DemoSlice, PayloadDecoder, ReadError, ReadErrorKind, WriteError,
};
use serde::Serialize;
use std::fmt::Display;
use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The text `demokit --help` prints after the usage, documenting the exit codes.
const LONG_ABOUT: &str = "\
Inspects, checks and rewrites game recordings byte for byte.

The format is detected from the file's magic bytes. Teeworlds/DDNet demos (TWDEMO) are
supported; DDNet teehistorian and Source engine demos (HL2DEMO) are recognised but not
supported yet; GoldSrc (HLDEMO) and Source 2 (PBDEMS2) demos are different formats and are
refused.

Errors go to stderr as `demokit: FILE: at byte N: message`.

Exit codes:
  0  success
  1  the file is invalid or could not be read as its format (a format error), its format
     is not supported, or `validate` rejects it
  2  usage error (bad command line)
  3  I/O error: a file could not be opened, read or written";

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
    /// Prints the header fields and chunk counts of a recording.
    ///
    /// If the chunk stream breaks off, the summary of everything before the break is still
    /// printed (in JSON with an "error" field) and the exit status is non-zero.
    Info {
        /// The recording.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Prints every chunk with its offset, tick, kind, sizes and decoded payload.
    ///
    /// A payload that fails to decode is reported on its own line and the dump goes on (the
    /// exit status is then 1); a read error ends the dump, with the error on stderr and a
    /// non-zero exit status.
    Dump {
        /// The recording.
        file: PathBuf,
        /// Print JSON Lines (one object per chunk) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Decodes every chunk and encodes it again into a new file.
    ///
    /// Statistics go to stderr. If the input is cut off, what precedes the cut is written
    /// and the exit status is non-zero.
    Rewrite {
        /// The recording to read.
        input: PathBuf,
        /// The file to write.
        output: PathBuf,
    },
    /// Checks whether DDNet's player would accept a recording.
    ///
    /// Exits 0 if it would; otherwise prints each fatal problem to stderr and exits 1.
    /// Non-fatal problems are printed as warnings.
    Validate {
        /// The recording.
        file: PathBuf,
        /// Also print the report as one JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
}

/// How the process ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    /// Exit code 0 (also used to stop quietly when stdout is closed by the reader).
    Success = 0,
    /// Exit code 1: a format error, an unsupported format, or a rejected file.
    Invalid = 1,
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
        Command::Info { file, json } => info(file, *json),
        Command::Dump { file, json } => dump(file, *json),
        Command::Rewrite { input, output } => rewrite_file(input, output),
        Command::Validate { file, json } => validate_file(file, *json),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Stop(exit)) => ExitCode::from(exit as u8),
    }
}

/// Prints `demokit: FILE: message` to stderr, ignoring a failing stderr.
fn complain(file: &Path, message: impl Display) {
    let _ = writeln!(
        io::stderr().lock(),
        "demokit: {}: {message}",
        file.display()
    );
}

/// Prints `error` (whose Display starts with "at byte N:") and returns the matching stop.
fn read_failure(file: &Path, error: &ReadError) -> Stop {
    complain(file, error);
    Stop(read_exit(error))
}

/// The exit status for a read error: I/O trouble or a format error.
fn read_exit(error: &ReadError) -> Exit {
    match error.kind {
        ReadErrorKind::Io(_) => Exit::Io,
        _ => Exit::Invalid,
    }
}

/// Reads a whole file, or says why it could not.
fn load(file: &Path) -> Outcome<Vec<u8>> {
    std::fs::read(file).map_err(|e| {
        complain(file, format_args!("cannot read: {e}"));
        Stop(Exit::Io)
    })
}

/// Reads `file` and checks that it is a Teeworlds/DDNet demo, refusing other formats.
fn load_twdemo(file: &Path) -> Outcome<Vec<u8>> {
    let data = load(file)?;
    match detect::detect(&data) {
        Some(Format::TwDemo) => Ok(data),
        Some(format @ (Format::Teehistorian | Format::SourceDemo)) => {
            complain(
                file,
                format_args!("at byte 0: {} is not supported yet", format.name()),
            );
            Err(Stop(Exit::Invalid))
        }
        Some(format @ (Format::GoldSrcDemo | Format::Source2Demo)) => {
            complain(
                file,
                format_args!(
                    "at byte 0: {} is a different format (neither a Teeworlds/DDNet nor a \
                     Source engine demo) and is refused",
                    format.name()
                ),
            );
            Err(Stop(Exit::Invalid))
        }
        None if data.is_empty() => {
            complain(file, "at byte 0: the file is empty (unknown format)");
            Err(Stop(Exit::Invalid))
        }
        None => {
            let head = &data[..data.len().min(8)];
            complain(
                file,
                format_args!(
                    "at byte 0: unknown format: the file starts with {} ({:?}), which is no \
                     known magic (a Teeworlds/DDNet demo starts with \"TWDEMO\\0\")",
                    hex::encode(head),
                    String::from_utf8_lossy(head)
                ),
            );
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

/// `demokit info`.
fn info(file: &Path, json: bool) -> Outcome {
    let data = load_twdemo(file)?;
    let (summary, error) = Summary::scan(&data).map_err(|e| read_failure(file, &e))?;
    let mut out = Output::new();
    if json {
        out.json_line(&InfoJson {
            summary: &summary,
            error: error.as_ref().map(|e| ErrorJson {
                offset: e.offset,
                message: e.kind.to_string(),
            }),
        })?;
    } else {
        print_summary(&mut out, &summary)?;
        if let Some(e) = &error {
            writeln!(out, "{:<17} at byte {}: {}", "error", e.offset, e.kind)?;
        }
    }
    out.flush()?;
    match error {
        Some(e) => Err(read_failure(file, &e)),
        None => Ok(()),
    }
}

/// `demokit info --json` output: the summary's fields, then the error if there was one.
#[derive(Debug, Serialize)]
struct InfoJson<'a> {
    /// The summary of everything before the error.
    #[serde(flatten)]
    summary: &'a Summary,
    /// Why the chunk stream ended early.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorJson>,
}

/// A read error in JSON output.
#[derive(Debug, Serialize)]
struct ErrorJson {
    /// Offset the error was found at.
    offset: u64,
    /// What went wrong (without the offset).
    message: String,
}

/// Prints a summary as an aligned text block.
fn print_summary(out: &mut Output, s: &Summary) -> Outcome {
    let ticks = match (s.first_tick, s.last_tick) {
        (Some(first), Some(last)) => format!("{first} to {last}"),
        _ => "none".into(),
    };
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
        ("ticks", ticks),
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
        writeln!(out, "{key:<17} {value}")?;
    }
    Ok(())
}

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
    let data = load_twdemo(file)?;
    let slice = DemoSlice::parse(&data).map_err(|e| read_failure(file, &e))?;
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

/// `demokit rewrite`.
fn rewrite_file(input: &Path, output: &Path) -> Outcome {
    let data = load_twdemo(input)?;
    let mut bytes = Vec::with_capacity(data.len());
    let (stats, error) = match rewrite(&data, &mut bytes) {
        Ok((_, stats)) => (stats, None),
        Err((stats, error)) => (stats, Some(error)),
    };
    // Whatever precedes a read error is a valid demo prefix; write it too. When nothing
    // could be produced (the prelude itself is unreadable), OUT is left alone.
    if error.is_none() || !bytes.is_empty() {
        std::fs::write(output, &bytes).map_err(|e| {
            complain(output, format_args!("cannot write: {e}"));
            Stop(Exit::Io)
        })?;
    }
    print_rewrite_stats(input, output, &stats, bytes.len(), error.is_some());
    match error {
        None => Ok(()),
        Some(RewriteError::Read(e)) => Err(read_failure(input, &e)),
        Some(RewriteError::Write(WriteError::Io(e))) => {
            complain(output, format_args!("cannot write: {e}"));
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

/// `demokit validate --json` output.
#[derive(Debug, Serialize)]
struct ValidateJson<'a> {
    /// Whether DDNet's player would accept the file.
    accepted: bool,
    /// Everything found, in file order.
    problems: &'a [Problem],
}

/// `demokit validate`.
fn validate_file(file: &Path, json: bool) -> Outcome {
    let data = load_twdemo(file)?;
    let report: Report = validate(&data);
    for p in &report.problems {
        let prefix = if p.fatal { "" } else { "warning: " };
        complain(
            file,
            format_args!("{prefix}at byte {}: {}", p.offset, p.message),
        );
    }
    if json {
        let mut out = Output::new();
        out.json_line(&ValidateJson {
            accepted: report.accepted(),
            problems: &report.problems,
        })?;
        out.flush()?;
    }
    if report.accepted() {
        Ok(())
    } else {
        Err(Stop(Exit::Invalid))
    }
}
