//! What the CLI prints: buffered stdout that ends quietly on a closed pipe, JSON lines,
//! aligned `key value` rows, file names, and `demokit: FILE: message` lines on stderr. It
//! knows no format.
//!
//! Everything shown to a person (text on stdout, every message on stderr) goes through
//! [`demokit::shown::for_terminal`]: a name, chat line or file name holding an escape
//! sequence or a bidirectional override is printed with it escaped, never raw. JSON keeps
//! the exact text, with C1 controls and U+2028/U+2029 escaped as well
//! ([`demokit::shown::for_json`]); bytes written as a file's content (`-` as OUTPUT) are
//! left alone.
//!
//! File names are printed so that two different names never print alike: a name that is
//! not UTF-8 shows each byte that is not part of a UTF-8 character as `\xNN` (the Unix
//! bytes of the name; on Windows, its WTF-8 bytes), where a lossy conversion would turn
//! them all into the same U+FFFD. In JSON such a name also gets `file_hex`, all its bytes
//! in hex, to open the file by. `-` (standard input) is `<stdin>` in messages and `-` in
//! JSON.

use super::{Exit, Outcome, Stop};
use demokit::recording::Error;
use serde::Serialize;
use std::fmt::{Display, Write as _};
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// `path` as text with each byte that is not part of a UTF-8 character written as
/// `\xNN`: the name as it is when it is UTF-8, and never the same text for two names
/// that differ only in such bytes.
pub(crate) fn escaped_name(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(text, "\\x{b:02x}");
        }
    }
    text
}

/// How a file is named in messages: `<stdin>` for `-`, else [`escaped_name`] with any
/// character that could drive a terminal escaped.
pub(crate) fn shown_name(path: &Path) -> String {
    if super::input::is_stdin(path) {
        "<stdin>".into()
    } else {
        demokit::shown::for_terminal(&escaped_name(path)).into_owned()
    }
}

/// Writes `text`, meant for a person, to stderr with every character that could drive a
/// terminal escaped; a failing stderr is ignored.
pub(crate) fn to_stderr(text: &str) {
    let _ = io::stderr()
        .lock()
        .write_all(demokit::shown::for_terminal(text).as_bytes());
}

/// A file's name in JSON, flattened into the object that names it.
#[derive(Debug, Serialize)]
pub(crate) struct FileJson {
    /// The path as given or found, as [`escaped_name`] writes it (`-` for standard input).
    file: String,
    /// All bytes of the path in hex, when it is not UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    file_hex: Option<String>,
}

impl FileJson {
    /// The JSON name of `path`.
    pub(crate) fn of(path: &Path) -> FileJson {
        let bytes = path.as_os_str().as_encoded_bytes();
        FileJson {
            file: escaped_name(path),
            file_hex: std::str::from_utf8(bytes)
                .is_err()
                .then(|| hex::encode(bytes)),
        }
    }
}

/// The line `demokit: FILE: message` (with its newline).
pub(crate) fn complaint(file: &Path, message: impl Display) -> String {
    if quiet() {
        return String::new();
    }
    let line = format!("demokit: {}: {message}\n", shown_name(file));
    one_location(&demokit::shown::for_terminal(&line))
}

/// `line` with every `at byte N: ` after the first that names the same N left out: an
/// error wrapped by another that names the same place (`at byte 7: cannot scrub: at byte
/// 7: ...`) says where once.
fn one_location(line: &str) -> String {
    const AT: &str = "at byte ";
    let mut out = String::with_capacity(line.len());
    let mut seen: Vec<&str> = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find(AT) {
        let after = &rest[i + AT.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let number = &after[..digits];
        let whole = digits > 0 && after[digits..].starts_with(": ");
        out.push_str(&rest[..i]);
        if whole && seen.contains(&number) {
            // The repeat and its ": " go.
        } else {
            out.push_str(&rest[i..i + AT.len() + digits + if whole { 2 } else { 0 }]);
            if whole {
                seen.push(number);
            }
        }
        rest = &after[digits + if whole { 2 } else { 0 }..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::one_location;

    #[test]
    fn a_place_is_named_once() {
        assert_eq!(
            one_location("demokit: f: at byte 7: cannot scrub: at byte 7: cut\n"),
            "demokit: f: at byte 7: cannot scrub: cut\n"
        );
        assert_eq!(
            one_location("demokit: f: at byte 2051: at byte 2051: a delta\n"),
            "demokit: f: at byte 2051: a delta\n"
        );
        // Two places, or a number that is no location, stay.
        let two = "demokit: f: at byte 7: the map at byte 9: bad; at byte x\n";
        assert_eq!(one_location(two), two);
    }
}

/// `--quiet`: no messages about single files and no progress bar on stderr; a batch's
/// closing note (its counts) and the exit status stay.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns `--quiet` on.
pub(crate) fn set_quiet() {
    QUIET.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether `--quiet` is on.
pub(crate) fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Prints `demokit: FILE: message` to stderr, ignoring a failing stderr.
pub(crate) fn complain(file: &Path, message: impl Display) {
    to_stderr(&complaint(file, message));
}

/// Prints `demokit: message` to stderr, for a message about the command line rather than
/// one file; ignores a failing stderr.
pub(crate) fn say(message: impl Display) {
    to_stderr(&format!("demokit: {message}\n"));
}

/// Warns that a demo replay skipped `skipped` snapshots or deltas (none: no warning).
pub(crate) fn warn_skipped(file: &Path, skipped: usize) {
    if skipped > 0 {
        complain(
            file,
            format_args!(
                "warning: {skipped} snapshots or deltas were invalid and skipped, as DDNet's \
                 player skips them"
            ),
        );
    }
}

/// Buffered, locked stdout (or stderr, for the report of a command whose output file goes
/// to stdout) that turns a closed pipe into a quiet, successful stop.
pub(crate) struct Output {
    /// The buffered stream.
    inner: BufWriter<Box<dyn Write>>,
    /// `<stdout>` or `<stderr>`, for a write error.
    name: &'static str,
}

impl Output {
    /// Locks stdout.
    pub(crate) fn new() -> Self {
        Output {
            inner: BufWriter::with_capacity(64 * 1024, Box::new(io::stdout().lock())),
            name: "<stdout>",
        }
    }

    /// Where a command's report goes: stdout, or stderr when `stdout_taken` (the command
    /// writes its output file there).
    pub(crate) fn for_report(stdout_taken: bool) -> Self {
        if !stdout_taken {
            return Output::new();
        }
        Output {
            inner: BufWriter::new(Box::new(io::stderr().lock())),
            name: "<stderr>",
        }
    }

    /// Turns a write error into a stop: quiet success for a closed pipe, else an I/O error.
    fn failed(&self, error: io::Error) -> Stop {
        if error.kind() == io::ErrorKind::BrokenPipe {
            Stop(Exit::Success)
        } else {
            let _ = writeln!(
                io::stderr().lock(),
                "demokit: {}: cannot write: {error}",
                self.name
            );
            Stop(Exit::Io)
        }
    }

    /// Writes formatted text for a person, escaped as [`Output::write_str`] escapes it.
    pub(crate) fn write_fmt(&mut self, args: std::fmt::Arguments<'_>) -> Outcome {
        match args.as_str() {
            Some(text) => self.write_str(text),
            None => self.write_str(&args.to_string()),
        }
    }

    /// Writes text for a person (or JSON lines, which [`json_line`] made safe already):
    /// any character that could drive a terminal is written as a visible escape.
    pub(crate) fn write_str(&mut self, text: &str) -> Outcome {
        self.write_bytes(demokit::shown::for_terminal(text).as_bytes())
    }

    /// Writes bytes as they are (a file's content, a completion script).
    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) -> Outcome {
        let result = self.inner.write_all(bytes);
        result.map_err(|e| self.failed(e))
    }

    /// Writes `value` as one line of JSON ([`json_line`]).
    pub(crate) fn json_line(&mut self, value: &impl Serialize) -> Outcome {
        self.write_bytes(json_line(value).as_bytes())
    }

    /// Writes `record` as one line of JSON, naming `file` first when there is one (a
    /// command over several files).
    pub(crate) fn json_record(
        &mut self,
        file: Option<&FileJson>,
        record: &impl Serialize,
    ) -> Outcome {
        match file {
            Some(file) => self.json_line(&WithFile { file, record }),
            None => self.json_line(record),
        }
    }

    /// Flushes everything written so far.
    pub(crate) fn flush(&mut self) -> Outcome {
        let result = self.inner.flush();
        result.map_err(|e| self.failed(e))
    }
}

/// A JSON line of a command over several files: the file, then the record's own fields.
#[derive(Serialize)]
pub(crate) struct WithFile<'a, T: Serialize> {
    /// The file.
    #[serde(flatten)]
    pub(crate) file: &'a FileJson,
    /// The record.
    #[serde(flatten)]
    pub(crate) record: T,
}

/// `value` as one line of JSON, newline included: the exact text of every string, with
/// C0 and C1 controls and U+2028/U+2029 escaped ([`demokit::shown::for_json`]).
// Only plain structs, strings and numbers go in (derived `Serialize`, maps with string
// keys): serializing them cannot fail.
#[allow(clippy::expect_used)]
pub(crate) fn json_line(value: &impl Serialize) -> String {
    let line = serde_json::to_string(value).expect("JSON of plain data");
    let mut line = demokit::shown::for_json(&line).into_owned();
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
    /// The JSON form of an error of the library.
    pub(crate) fn of(error: &Error) -> ErrorJson {
        ErrorJson {
            offset: error.offset(),
            message: error.message(),
        }
    }
}

/// Appends one `key value` row, the values aligned in one column.
pub(crate) fn row(out: &mut String, key: &str, value: impl Display) {
    let _ = writeln!(out, "{key:<17} {value}");
}
