//! The one error type of every operation: what went wrong with a recording, whatever its
//! format, with the byte offset where one applies.
//!
//! Each format keeps its own detailed error kinds; its [`RecordingFormat`](super::RecordingFormat)
//! implementation turns them into this error once (a message, an offset and a [`Cause`]),
//! which is what a front end needs to report them and to choose an exit status. What to do
//! about an error (which command to run next) is the front end's to say.

use super::Format;
use std::fmt;
use std::io;

/// An operation of the entry point, as [`Error::Unsupported`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Operation {
    /// [`Recording::summary`](crate::recording::Recording::summary).
    Summary,
    /// [`Recording::validate`](crate::recording::Recording::validate).
    Validate,
    /// [`Recording::dump`](crate::recording::Recording::dump).
    Dump,
    /// [`Recording::rewrite`](crate::recording::Recording::rewrite).
    Rewrite,
    /// [`Recording::repair`](crate::recording::Recording::repair).
    Repair,
    /// [`Recording::trim`](crate::recording::Recording::trim).
    Trim,
    /// [`Recording::scrub`](crate::recording::Recording::scrub).
    Scrub,
    /// [`Recording::convert`](crate::recording::Recording::convert).
    Convert,
    /// [`Recording::markers`](crate::recording::Recording::markers) and
    /// [`Recording::edit_markers`](crate::recording::Recording::edit_markers).
    Markers,
    /// [`Recording::extract_map`](crate::recording::Recording::extract_map).
    ExtractMap,
    /// [`Recording::game_log`](crate::recording::Recording::game_log): players, chat and events.
    GameLog,
    /// [`Recording::chat`](crate::recording::Recording::chat): a demo's chat lines as DDNet's
    /// `demo_extract_chat` lists them.
    Chat,
    /// [`Recording::snapshots`](crate::recording::Recording::snapshots): a demo's full
    /// snapshot at every tick.
    Snapshots,
    /// [`Recording::game_records`](crate::recording::Recording::game_records): typed snapshot
    /// objects and messages.
    GameRecords,
    /// `Recording::render` (with the `render` feature): a picture of the game.
    Render,
    /// `Recording::page` (with the `page` feature): a report page that plays the game.
    Page,
    /// [`Recording::select`](crate::recording::Recording::select) and
    /// [`Recording::tick_range`](crate::recording::Recording::tick_range): a selection of the game.
    Select,
}

impl Operation {
    /// The operation's name as the command-line tool spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Operation::Summary => "info",
            Operation::Validate => "validate",
            Operation::Dump => "dump",
            Operation::Rewrite => "rewrite",
            Operation::Repair => "repair",
            Operation::Trim => "trim",
            Operation::Scrub => "scrub",
            Operation::Convert => "convert",
            Operation::Markers => "markers",
            Operation::ExtractMap => "extract-map",
            Operation::GameLog => "read the game (chat, players, events)",
            Operation::Chat => "chat",
            Operation::Snapshots => "dump --snapshots",
            Operation::GameRecords => "dump --objects",
            Operation::Render => "render",
            Operation::Page => "report",
            Operation::Select => "select",
        }
    }
}

/// The formats of an operation as a phrase: "a Teeworlds/DDNet demo (TWDEMO) or a DDNet
/// teehistorian".
fn formats_phrase(formats: &[Format]) -> String {
    let names: Vec<String> = formats.iter().map(|f| format!("a {}", f.name())).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The sentence of [`Error::Unsupported`]: what the operation needs, when that is known.
fn unsupported_message(operation: Operation, format: Format, formats: &[Format]) -> String {
    if formats.is_empty() {
        format!("{operation} is not an operation of a {}", format.name())
    } else {
        format!(
            "{operation} needs {}, not a {}",
            formats_phrase(formats),
            format.name()
        )
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What kind of trouble an [`Error`] is, for a front end choosing how to report it (the
/// command-line tool's exit status, Python's exception class).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Cause {
    /// The input could not be opened or read, or the output not written: the system's
    /// trouble, not the recording's.
    Io,
    /// The bytes are not a recording demokit reads, or not a valid one.
    Invalid,
    /// The recording is valid, but the operation cannot do what was asked of it (a
    /// version it cannot convert to, an operation its format does not have).
    Refused,
    /// What the operation was asked does not fit this recording: a tick range outside it,
    /// a marker it does not have.
    Argument,
}

/// Why a recording could not be opened, read or processed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The recording's format does not have this operation (a Source demo has no
    /// timeline markers, a teehistorian file no embedded map).
    #[error("{}", unsupported_message(*operation, *format, formats))]
    Unsupported {
        /// The recording's format.
        format: Format,
        /// What was asked of it.
        operation: Operation,
        /// The formats that have the operation, as the entry point reads them from the
        /// formats' implementations; empty when a format's implementation is called
        /// directly.
        formats: Vec<Format>,
    },
    /// The input is none of the formats demokit reads (or is one it knows and refuses,
    /// such as a GoldSrc or Source 2 demo). Always at byte 0.
    #[error("at byte 0: {message}")]
    UnknownFormat {
        /// The format it was recognized as, when it is one demokit knows but does not read.
        format: Option<Format>,
        /// What the input is, in a sentence.
        message: String,
    },
    /// A stream (a pipe, a terminal, a device) sent more than the limit the recording was
    /// opened with before it ended, or a compressed recording read into memory
    /// decompressed to more than it (a decompression bomb).
    #[error(
        "the input is longer than {limit} bytes, the limit for a stream that is not a regular file or a decompressed recording held in memory (Limits::max_stream_bytes)"
    )]
    TooLong {
        /// The limit, in bytes.
        limit: u64,
    },
    /// Reading the input, or writing the output, failed.
    #[error("{context}: {source}")]
    Io {
        /// "cannot read" or "cannot write".
        context: &'static str,
        /// The system's error.
        source: io::Error,
    },
    /// The recording's bytes are not valid at `offset`.
    #[error("at byte {offset}: {message}")]
    Invalid {
        /// Offset from the start of the file.
        offset: u64,
        /// What is wrong there.
        message: String,
        /// Whether the input simply ended early (cut off, or still being written).
        truncated: bool,
        /// Whether the reader's own source failed (an I/O error met while streaming).
        io: bool,
    },
    /// The arguments of the operation do not fit the recording (a range outside it, a
    /// marker it does not have).
    #[error("cannot {operation}: {message}")]
    Argument {
        /// The operation.
        operation: Operation,
        /// What does not fit.
        message: String,
    },
    /// The operation refused what it was asked, for a reason it states.
    #[error("cannot {operation}: {message}")]
    Refused {
        /// The operation.
        operation: Operation,
        /// Why, as the format's own error says it.
        message: String,
    },
    /// The map the operation needs is missing, does not load, or is not the one the
    /// recording was played on.
    #[error("cannot {operation}: {problem}")]
    Map {
        /// The operation.
        operation: Operation,
        /// What is wrong with the map.
        problem: MapProblem,
    },
}

/// What is wrong with the map an operation needs ([`Error::Map`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MapProblem {
    /// The recording does not hold its map (a teehistorian file names it only), and none
    /// was given.
    #[error(
        "a {} does not hold its map {name:?}: give the map file it was played on",
        format.name()
    )]
    Missing {
        /// The recording's format.
        format: Format,
        /// The map's name, as the recording gives it.
        name: String,
        /// The map file's SHA-256 as the recording gives it (lowercase hex), if it does:
        /// a map found under another file name is known by it.
        sha256: Option<String>,
        /// The map file's CRC-32 as the recording gives it (8 lowercase hex digits), if it
        /// does.
        crc32: Option<String>,
    },
    /// The map given is not the one the recording names: its checksum differs.
    #[error(
        "the map given is not the recording's: its {checksum} is {actual}, the recording's map has {expected}"
    )]
    Mismatch {
        /// `"SHA-256"` or `"CRC-32"`.
        checksum: &'static str,
        /// The recording's, in hex.
        expected: String,
        /// The given map's, in hex.
        actual: String,
    },
    /// The map does not load as DDNet loads a map.
    #[error("the map does not load: {message}")]
    Invalid {
        /// Why, with the offset.
        message: String,
    },
}

impl Error {
    /// The kind of trouble.
    pub fn cause(&self) -> Cause {
        match self {
            Error::Io { .. } | Error::Invalid { io: true, .. } => Cause::Io,
            Error::UnknownFormat { .. } | Error::TooLong { .. } | Error::Invalid { .. } => {
                Cause::Invalid
            }
            Error::Unsupported { .. } | Error::Refused { .. } => Cause::Refused,
            Error::Argument { .. } | Error::Map { .. } => Cause::Argument,
        }
    }

    /// The system's kind of error, for an input that could not be opened or read or an
    /// output that could not be written ([`Cause::Io`]): `NotFound`, `PermissionDenied`, ...
    /// A front end maps it to its own kinds (Python's `FileNotFoundError`, for one).
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            Error::Io { source, .. } => Some(source.kind()),
            _ => None,
        }
    }

    /// The byte offset the error is at, where one applies.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Invalid { offset, .. } => Some(*offset),
            Error::UnknownFormat { .. } => Some(0),
            _ => None,
        }
    }

    /// What went wrong, without the offset.
    pub fn message(&self) -> String {
        match self {
            Error::Invalid { message, .. } | Error::UnknownFormat { message, .. } => {
                message.clone()
            }
            other => other.to_string(),
        }
    }

    /// Whether the input simply ended early: a file cut short, or one still being written.
    pub fn is_truncation(&self) -> bool {
        matches!(
            self,
            Error::Invalid {
                truncated: true,
                ..
            }
        )
    }

    /// [`Error::Unsupported`] for `operation` on a `format` that lacks it, without the
    /// formats that have it (the entry point adds them).
    pub(crate) fn unsupported(format: Format, operation: Operation) -> Error {
        Error::Unsupported {
            format,
            operation,
            formats: Vec::new(),
        }
    }

    /// A compressed stream that does not decompress, met where the recording is read at
    /// `offset`: invalid (and truncated when the compressed stream is cut off), not the
    /// system's trouble.
    pub(crate) fn compressed(offset: u64, stream: &crate::compressed::StreamError) -> Error {
        Error::Invalid {
            offset,
            message: stream.to_string(),
            truncated: stream.truncated,
            io: false,
        }
    }

    /// A failed read of the input.
    pub(crate) fn read(source: io::Error) -> Error {
        if let Some(stream) = crate::compressed::StreamError::of(&source) {
            return Error::compressed(stream.offset, stream);
        }
        Error::Io {
            context: "cannot read",
            source,
        }
    }

    /// Whether this is a failed write of the output (not of reading the recording): the
    /// output's trouble, to be named by the output's path.
    pub fn is_write(&self) -> bool {
        matches!(
            self,
            Error::Io {
                context: "cannot write",
                ..
            }
        )
    }

    /// A failed write of the output.
    pub(crate) fn write(source: io::Error) -> Error {
        Error::Io {
            context: "cannot write",
            source,
        }
    }

    /// The refusal of `operation`, for the reason `error` gives.
    pub(crate) fn refused(operation: Operation, error: impl fmt::Display) -> Error {
        Error::Refused {
            operation,
            message: error.to_string(),
        }
    }
}

impl<K: crate::read::ErrorKind + fmt::Display> From<crate::read::ReadError<K>> for Error {
    fn from(error: crate::read::ReadError<K>) -> Error {
        if let Some(stream) = error
            .kind
            .io_error()
            .and_then(crate::compressed::StreamError::of)
        {
            return Error::compressed(error.offset, stream);
        }
        Error::Invalid {
            offset: error.offset,
            truncated: error.kind.is_truncation(),
            io: error.kind.is_io(),
            message: error.kind.to_string(),
        }
    }
}
