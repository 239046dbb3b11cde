//! Errors of the Source demo reader, writer and repair. Every read error names the byte
//! offset where the problem was found and what was expected there.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::profile::{Command, CommandTable};
use std::io;

/// A Source demo could not be read past its `offset`: the start of the failing element.
pub type ReadError = crate::read::ReadError<ReadErrorKind>;

/// The ways reading a Source demo can fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// The file does not start with `"HL2DEMO\0"` (nor with another known demo stamp).
    #[error("expected the stamp \"HL2DEMO\\0\", found {}", crate::read::HexBytes(.found))]
    BadMagic {
        /// The first bytes of the file (fewer than 8 if it is that short).
        found: Vec<u8>,
    },
    /// A GoldSrc (Half-Life 1) demo: a different format, not read here.
    #[error(
        "this is a GoldSrc (Half-Life 1) demo (stamp \"HLDEMO\"), a different format from \
         Source's HL2DEMO; it is not supported"
    )]
    GoldSrc,
    /// A Source 2 (CS2, Dota 2) demo: a protobuf-based format, not read here.
    #[error(
        "this is a Source 2 demo (stamp \"PBDEMS2\", CS2 or Dota 2), a protobuf-based format \
         different from Source 1's HL2DEMO; it is not supported"
    )]
    Source2,
    /// The input ended inside an element, or after the last frame without a stop command.
    #[error("expected {expected}, but only {available} bytes remain")]
    UnexpectedEnd {
        /// What was being read.
        expected: &'static str,
        /// Bytes that were left.
        available: u64,
    },
    /// A command byte that the file's command table does not have.
    #[error("unknown command {command} for the {table:?} command table")]
    UnknownCommand {
        /// The byte.
        command: u8,
        /// The table in use.
        table: CommandTable,
    },
    /// A length field is negative.
    #[error("{what} is negative ({value})")]
    NegativeLength {
        /// The field.
        what: &'static str,
        /// Its value.
        value: i32,
    },
    /// A length field announces more than [`MAX_PAYLOAD_LEN`] bytes.
    ///
    /// [`MAX_PAYLOAD_LEN`]: super::reader::MAX_PAYLOAD_LEN
    #[error(
        "{what} is {length} bytes long, beyond the limit of {limit}",
        limit = super::reader::MAX_PAYLOAD_LEN
    )]
    PayloadTooLong {
        /// The field.
        what: &'static str,
        /// Its value.
        length: i32,
    },
    /// The stop command is followed by more bytes than the streaming reader keeps.
    #[error("more than {limit} bytes follow the stop command")]
    StopTailTooLong {
        /// The limit ([`MAX_STREAM_STOP_TAIL`](super::reader::MAX_STREAM_STOP_TAIL)).
        limit: usize,
    },
    /// Reading from the source failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
}

impl crate::read::ErrorKind for ReadErrorKind {
    /// The input ended early: a truncated file, or one whose recorder never wrote the stop
    /// command.
    fn is_truncation(&self) -> bool {
        matches!(self, ReadErrorKind::UnexpectedEnd { .. })
    }

    fn is_io(&self) -> bool {
        matches!(self, ReadErrorKind::Io(_))
    }

    fn io_error(&self) -> Option<&io::Error> {
        match self {
            ReadErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Why a frame could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The profile's command table has no number for the command.
    #[error("the {table:?} command table has no {command:?} command")]
    CommandNotInTable {
        /// The command.
        command: Command,
        /// The table.
        table: CommandTable,
    },
    /// A signon or packet frame's view-info bytes do not match the profile's splits.
    #[error("view info is {len} bytes, but the profile needs {expected} ({splits} splits)")]
    ViewInfoSize {
        /// Bytes given.
        len: usize,
        /// Bytes needed.
        expected: usize,
        /// The profile's splits.
        splits: u8,
    },
    /// A payload is longer than the readers accept ([`MAX_PAYLOAD_LEN`]), or a stop tail
    /// longer than the streaming reader accepts ([`MAX_STREAM_STOP_TAIL`]).
    ///
    /// [`MAX_PAYLOAD_LEN`]: super::reader::MAX_PAYLOAD_LEN
    /// [`MAX_STREAM_STOP_TAIL`]: super::reader::MAX_STREAM_STOP_TAIL
    #[error("{len} bytes, beyond the limit of {limit} that readers accept")]
    TooLong {
        /// Its length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// What was given would be written as bytes that read back as something else (or not
    /// at all); nothing was written.
    #[error("refused, the bytes would not read back as given: {0}")]
    Inconsistent(&'static str),
    /// Writing to the sink failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
}
