//! Errors of the demo reader and writer. Every read error names the byte offset where the
//! problem was found and what was expected there.

use crate::codec::huffman::HuffmanError;
use crate::codec::varint::VarIntError;
use std::io;

/// A demo could not be read past its `offset`: the start of the failing element.
pub type ReadError = crate::read::ReadError<ReadErrorKind>;

/// The ways reading a demo can fail.
#[derive(Debug, thiserror::Error)]
pub enum ReadErrorKind {
    /// The file does not start with `"TWDEMO\0"`.
    #[error("expected the magic \"TWDEMO\\0\", found {found:02x?}")]
    BadMagic {
        /// The first bytes of the file (fewer than 7 if it is that short).
        found: Vec<u8>,
    },
    /// The version is older than 3, which DDNet does not read either.
    #[error("demo version {version} is not supported (expected 3 or later)")]
    UnsupportedVersion {
        /// The version byte.
        version: u8,
    },
    /// The input ended inside an element.
    #[error("expected {expected} ({needed} bytes), but only {available} remain")]
    UnexpectedEnd {
        /// What was being read.
        expected: &'static str,
        /// Bytes the element needs.
        needed: u64,
        /// Bytes that were left.
        available: u64,
    },
    /// A header string field has no NUL within its size.
    #[error("header field {field} is not NUL-terminated within its {size} bytes")]
    UnterminatedString {
        /// The field's name.
        field: &'static str,
        /// The field's size.
        size: usize,
    },
    /// The header announces more map bytes than the file holds.
    #[error("expected {map_size} bytes of embedded map, but only {available} remain")]
    MapPastEnd {
        /// The header's map size.
        map_size: u32,
        /// Bytes that were left.
        available: u64,
    },
    /// A relative tick marker came before any absolute one.
    #[error("expected an absolute tick marker before the first relative one")]
    DeltaBeforeFirstTick,
    /// A tick marker leads outside DDNet's tick range `[0, 0x6FFFFFFF)`.
    #[error("tick {tick} is outside the valid range [0, 0x6FFFFFFF)")]
    TickOutOfRange {
        /// The tick the marker leads to.
        tick: i64,
    },
    /// A chunk payload could not be decoded.
    #[error("chunk payload: {0}")]
    Payload(#[from] PayloadError),
    /// The underlying reader failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
}

impl crate::read::ErrorKind for ReadErrorKind {
    /// The input ended early: a truncated or still-growing file.
    fn is_truncation(&self) -> bool {
        matches!(
            self,
            ReadErrorKind::UnexpectedEnd { .. } | ReadErrorKind::MapPastEnd { .. }
        )
    }
}

/// A chunk payload could not be decoded (Huffman, then variable-width ints).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// The Huffman stream is corrupt ("Error during network decompression" in DDNet).
    #[error("Huffman decoding failed: {0}")]
    Huffman(#[from] HuffmanError),
    /// The packed ints are corrupt ("Error during intpack decompression" in DDNet).
    #[error("int unpacking failed: {0}")]
    VarInt(#[from] VarIntError),
}

/// A demo could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The sink failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// A payload is larger than a chunk can hold.
    #[error("{what} of {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// What was too large.
        what: &'static str,
        /// Its size.
        size: usize,
        /// The format's limit.
        limit: usize,
    },
    /// A chunk header form cannot express the value asked of it.
    #[error("{0}")]
    Unrepresentable(&'static str),
    /// A header field does not fit its fixed size with a NUL, or contains a NUL.
    #[error("header field {field} does not fit in {size} bytes with its NUL")]
    FieldTooLong {
        /// The field's name.
        field: &'static str,
        /// The field's size.
        size: usize,
    },
    /// The version cannot be written.
    #[error("demo version {0} cannot be written (3 to 6 can)")]
    UnsupportedVersion(u8),
    /// A call came out of order (for example a relative tick marker first).
    #[error("{0}")]
    Usage(&'static str),
    /// What was given would be written as bytes that read back as something else (or not
    /// at all); nothing was written.
    #[error("refused, the bytes would not read back as given: {0}")]
    Inconsistent(&'static str),
}

impl From<binrw::Error> for WriteError {
    fn from(e: binrw::Error) -> Self {
        match e {
            binrw::Error::Io(io) => WriteError::Io(io),
            other => WriteError::Io(io::Error::other(other.to_string())),
        }
    }
}
