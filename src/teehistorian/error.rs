//! Errors of the teehistorian reader and writer. Every read error names the byte offset where
//! the failing element starts and what was expected there.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use std::io;

/// A teehistorian file could not be read past its `offset`: the start of the failing
/// element (for a message, its first byte).
pub type ReadError = crate::read::ReadError<ReadErrorKind>;

/// The ways reading a teehistorian file can fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// The file does not start with the teehistorian UUID.
    #[error(
        "expected the teehistorian UUID 699db17b-8efb-34ff-b1d8-da6f60c15dd1, found {}",
        crate::read::HexBytes(.found)
    )]
    BadMagic {
        /// The first bytes of the file (fewer than 16 if it is that short).
        found: Vec<u8>,
    },
    /// The input ended inside an element, or before FINISH.
    #[error("expected {expected}, but the input ends after {available} more bytes")]
    UnexpectedEnd {
        /// What was being read.
        expected: &'static str,
        /// Bytes present from the element's start to the end of the input.
        available: u64,
    },
    /// The JSON header is not valid or lacks what a reader needs.
    #[error("header: {0}")]
    Header(#[from] HeaderError),
    /// The header's `version` is not one this crate reads.
    #[error("teehistorian version {version:?} is not supported (expected \"1\" or \"2\")")]
    UnsupportedVersion {
        /// The header's version string.
        version: String,
    },
    /// A message id below the lowest known one (EX, -11): its length cannot be known.
    #[error("unknown message id {id} (the lowest known is -11, EX)")]
    UnknownMessageId {
        /// The id.
        id: i32,
    },
    /// A size or count field is negative.
    #[error("{what} is negative ({value})")]
    NegativeLength {
        /// The field.
        what: &'static str,
        /// Its value.
        value: i32,
    },
    /// Applying the message would move the tick outside `0..=i32::MAX`.
    #[error("the message leads to tick {tick}, outside 0..=2147483647")]
    TickOutOfRange {
        /// The tick it would lead to.
        tick: i64,
    },
    /// A player record (PLAYER_DIFF, PLAYER_NEW, PLAYER_OLD) for a client id outside
    /// `0..128` (DDNet's `MAX_CLIENTS`): no DDNet server writes one, and its tick cannot be
    /// numbered.
    #[error("a player record for client id {cid}, outside 0..128")]
    ClientIdOutOfRange {
        /// The client id.
        cid: i32,
    },
    /// The JSON header has no terminating NUL within [`MAX_HEADER_LEN`] bytes.
    ///
    /// [`MAX_HEADER_LEN`]: super::reader::MAX_HEADER_LEN
    #[error("the JSON header is longer than the limit of {limit} bytes", limit = super::reader::MAX_HEADER_LEN)]
    HeaderTooLong,
    /// A message is longer than [`MAX_MESSAGE_LEN`]: its size field says so, or no end of it
    /// was found within that many bytes.
    ///
    /// [`MAX_MESSAGE_LEN`]: super::reader::MAX_MESSAGE_LEN
    #[error(
        "a message of at least {at_least} bytes, beyond the limit of {limit}",
        limit = super::reader::MAX_MESSAGE_LEN
    )]
    MessageTooLong {
        /// How long the message is at least.
        at_least: u64,
    },
    /// Bytes follow the FINISH message.
    #[error("{len} bytes follow the FINISH message")]
    DataAfterFinish {
        /// How many.
        len: u64,
    },
    /// The underlying reader failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
}

impl crate::read::ErrorKind for ReadErrorKind {
    /// The input ended inside an element (the header or a message): a file cut short, or
    /// caught while a message was half written. (A file that ends on a message boundary
    /// without FINISH is no error: the readers end there with `finished()` false.)
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

/// The JSON header could not be interpreted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderError {
    /// Not a JSON object, not UTF-8, a key with a value of the wrong type, a duplicate key, or
    /// no `version`; the message is serde_json's.
    #[error("{0}")]
    Json(String),
}

impl From<serde_json::Error> for HeaderError {
    fn from(e: serde_json::Error) -> Self {
        HeaderError::Json(e.to_string())
    }
}

/// A message or header could not be encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// A string field contains a NUL byte, which would end it early.
    #[error("{what} contains a NUL byte")]
    NulInString {
        /// The field.
        what: &'static str,
    },
    /// A PLAYER_DIFF with a negative client id: its first int would name another message.
    #[error("PLAYER_DIFF client id {cid} is negative")]
    NegativePlayerDiffCid {
        /// The client id.
        cid: i32,
    },
    /// An [`Ex::Unknown`](super::Ex::Unknown) whose UUID is one of DDNet's and whose payload
    /// fits that extension's layout: it would read back as the typed message, so write that.
    #[error("an untyped {name} message whose payload fits its layout: write the typed message")]
    UntypedKnownExtension {
        /// The extension's kind name.
        name: &'static str,
    },
    /// A whole console command in a file whose header names DDNet's old 2 KiB packer
    /// (version 1, or a minor version below 9), with an argument before the last ending in
    /// the packer's last 4 bytes: readers of such a file take it for a command the packer
    /// cut ([`Message::decode_cut_console_command`](super::Message::decode_cut_console_command)).
    #[error(
        "a console command that readers of a file from DDNet's old 2 KiB packer would take for a cut one"
    )]
    ReadsAsCutConsoleCommand,
    /// A payload or list is longer than its int length field can say.
    #[error("{what} of {len} exceeds the largest length an int can hold")]
    TooLong {
        /// The field.
        what: &'static str,
        /// Its length.
        len: usize,
    },
}

/// A teehistorian file could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The sink failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// A message or the header could not be encoded.
    #[error("{0}")]
    Encode(#[from] EncodeError),
    /// The tick a message leads to is outside `0..=i32::MAX`.
    #[error("the message leads to tick {tick}, outside 0..=2147483647")]
    TickOutOfRange {
        /// The tick it would lead to.
        tick: i64,
    },
    /// A player record (PLAYER_DIFF, PLAYER_NEW, PLAYER_OLD) for a client id outside
    /// `0..128`, which a reader refuses ([`ReadErrorKind::ClientIdOutOfRange`]).
    #[error("a player record for client id {cid}, outside 0..128")]
    ClientIdOutOfRange {
        /// The client id.
        cid: i32,
    },
    /// A call came out of order (for example a message after FINISH).
    #[error("{0}")]
    Usage(&'static str),
}

impl From<binrw::Error> for WriteError {
    fn from(e: binrw::Error) -> Self {
        match e {
            binrw::Error::Io(io) => WriteError::Io(io),
            other => WriteError::Io(io::Error::other(other.to_string())),
        }
    }
}
