//! What the CLI prints: buffered stdout that ends quietly on a closed pipe, JSON lines,
//! aligned `key value` rows, and `demokit: FILE: message` lines on stderr. It knows no
//! format.

use super::{Exit, Outcome, Stop};
use serde::Serialize;
use std::fmt::{Display, Write as _};
use std::io::{self, BufWriter, StdoutLock, Write};
use std::path::Path;

/// The line `demokit: FILE: message` (with its newline).
pub(crate) fn complaint(file: &Path, message: impl Display) -> String {
    format!("demokit: {}: {message}\n", file.display())
}

/// Prints `demokit: FILE: message` to stderr, ignoring a failing stderr.
pub(crate) fn complain(file: &Path, message: impl Display) {
    let _ = io::stderr()
        .lock()
        .write_all(complaint(file, message).as_bytes());
}

/// A read error of any format: where it is, what it says and the exit status it earns.
/// Its `Display` is `at byte N: message`.
pub(crate) trait Failure: Display {
    /// Offset the error was found at.
    fn offset(&self) -> u64;
    /// What went wrong (without the offset).
    fn message(&self) -> String;
    /// I/O trouble or a format error.
    fn exit(&self) -> Exit;
}

/// Prints `error` and returns the matching stop.
pub(crate) fn read_failure(file: &Path, error: &impl Failure) -> Stop {
    complain(file, error);
    Stop(error.exit())
}

/// Buffered, locked stdout that turns a closed pipe into a quiet, successful stop.
pub(crate) struct Output {
    /// The buffered stream.
    inner: BufWriter<StdoutLock<'static>>,
}

impl Output {
    /// Locks stdout.
    pub(crate) fn new() -> Self {
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
    pub(crate) fn write_fmt(&mut self, args: std::fmt::Arguments<'_>) -> Outcome {
        self.inner.write_fmt(args).map_err(Self::failed)
    }

    /// Writes text as it is.
    pub(crate) fn write_str(&mut self, text: &str) -> Outcome {
        self.inner.write_all(text.as_bytes()).map_err(Self::failed)
    }

    /// Writes `value` as one line of JSON.
    pub(crate) fn json_line(&mut self, value: &impl Serialize) -> Outcome {
        serde_json::to_writer(&mut self.inner, value).map_err(|e| Self::failed(e.into()))?;
        self.inner.write_all(b"\n").map_err(Self::failed)
    }

    /// Flushes everything written so far.
    pub(crate) fn flush(&mut self) -> Outcome {
        self.inner.flush().map_err(Self::failed)
    }
}

/// `value` as one line of JSON, newline included.
pub(crate) fn json_line(value: &impl Serialize) -> String {
    // Only plain structs, strings and numbers go in: serializing them cannot fail.
    let mut line = serde_json::to_string(value).expect("JSON of plain data");
    line.push('\n');
    line
}
/// A read error in JSON output.
#[derive(Debug, Serialize)]
pub(crate) struct ErrorJson {
    /// Offset the error was found at (`null` when none applies, as for an I/O error).
    pub(crate) offset: Option<u64>,
    /// What went wrong (without the offset).
    pub(crate) message: String,
}

impl ErrorJson {
    /// The JSON form of a read error.
    pub(crate) fn of(error: &dyn Failure) -> ErrorJson {
        ErrorJson {
            offset: Some(error.offset()),
            message: error.message(),
        }
    }
}

/// Appends one `key value` row, the values aligned in one column.
pub(crate) fn row(out: &mut String, key: &str, value: impl Display) {
    let _ = writeln!(out, "{key:<17} {value}");
}

/// `first to last`, or `none`.
pub(crate) fn tick_range(first: Option<i32>, last: Option<i32>) -> String {
    match (first, last) {
        (Some(first), Some(last)) => format!("{first} to {last}"),
        _ => "none".into(),
    }
}
