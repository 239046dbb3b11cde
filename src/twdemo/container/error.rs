//! Errors of the demo reader and writer. Every read error names the byte offset where the
//! problem was found and what was expected there.

use super::format::{SizeForm, TickForm};
use crate::codec::huffman::HuffmanError;
use crate::codec::varint::VarIntError;
use std::io;

/// A demo could not be read past its `offset`: the start of the failing element.
pub type ReadError = crate::read::ReadError<ReadErrorKind>;

/// The ways reading a demo can fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// The file does not start with `"TWDEMO\0"`.
    #[error("expected the magic \"TWDEMO\\0\", found {}", crate::read::HexBytes(.found))]
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

/// A chunk payload could not be decoded (Huffman, then variable-width ints).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
#[non_exhaustive]
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
    /// The map is not as long as the header's `map_size` says.
    #[error("the map is {map_len} bytes, but the header's map_size is {map_size}")]
    MapSizeMismatch {
        /// The map's length.
        map_len: usize,
        /// The header's map size.
        map_size: u32,
    },
    /// The prelude has a timeline-marker block where its version has none or lacks one
    /// where it has one, or has a SHA-256 block before version 6.
    #[error("the prelude's blocks do not match its version {version}")]
    BlocksDoNotMatchVersion {
        /// The prelude's version.
        version: u8,
    },
    /// A tick marker that its form cannot express: a one-byte delta with no marker before
    /// it or too far from the one before (more than 31 ticks from version 5 on, outside 1
    /// to 63 before).
    #[error(
        "tick {tick} cannot be written as a {form:?} tick marker after {}",
        match last_tick { Some(t) => format!("tick {t}"), None => "no tick marker".into() }
    )]
    TickForm {
        /// The tick.
        tick: i32,
        /// The form asked for.
        form: TickForm,
        /// The tick of the marker before, if any.
        last_tick: Option<i32>,
    },
    /// A tick outside `[0, 0x6FFFFFFF)`, which readers reject.
    #[error("tick {tick} is outside [0, 0x6FFFFFFF), which readers reject")]
    TickOutOfRange {
        /// The tick.
        tick: i64,
    },
    /// A chunk payload whose size the size form asked for cannot hold.
    #[error("a {size}-byte chunk payload does not fit the {form:?} size form")]
    SizeForm {
        /// The payload's size.
        size: usize,
        /// The form asked for.
        form: SizeForm,
    },
    /// A prelude that would not read back as given: a bad magic, a version below 3, a
    /// header string without its NUL, or a version-6 map without the SHA-256 block that
    /// starts like the block's UUID.
    #[error(
        "the prelude does not read back as given (bad magic, version below 3, a header \
         string without its NUL, or a version-6 map without SHA-256 block that starts like \
         the block's UUID)"
    )]
    PreludeDoesNotReadBack,
    /// A raw chunk header whose fields are not the ones its lead byte announces.
    #[error("the raw chunk header's fields are not the ones its lead byte announces")]
    MalformedRawHeader,
    /// A raw tick marker given without the tick it stands for.
    #[error("a raw tick marker needs its tick")]
    RawTickMissing,
    /// A raw tick marker that a reader would put at another tick than the one given.
    #[error(
        "a raw tick marker for tick {tick} that a reader would put at {}",
        match reads_as { Some(t) => format!("tick {t}"), None => "no tick".into() }
    )]
    RawTickMismatch {
        /// The tick given.
        tick: i32,
        /// The tick a reader computes from the header, if any.
        reads_as: Option<i32>,
    },
    /// A payload given with a tick marker, which has none.
    #[error("a tick marker has no payload, but {len} bytes were given")]
    TickMarkerPayload {
        /// The payload's length.
        len: usize,
    },
    /// A raw data chunk whose header's size differs from its payload's length.
    #[error("the raw header's size is {header_size}, but the payload is {payload_len} bytes")]
    RawSizeMismatch {
        /// The size the header announces.
        header_size: usize,
        /// The payload's length.
        payload_len: usize,
    },
    /// The map and the chunks after it would read as the SHA-256 block's UUID (a
    /// version-6 map without the block that starts like it).
    #[error("the map and the chunks after it would read as the SHA-256 block's UUID")]
    ReadsAsSha256Block,
    /// The file would end in the first bytes of the SHA-256 block's UUID, which a reader
    /// takes for a cut block.
    #[error(
        "the file ends in the first bytes of the SHA-256 block's UUID, which a reader takes \
         for a cut block"
    )]
    EndsAsCutSha256Block,
}

impl From<binrw::Error> for WriteError {
    fn from(e: binrw::Error) -> Self {
        match e {
            binrw::Error::Io(io) => WriteError::Io(io),
            other => WriteError::Io(io::Error::other(other.to_string())),
        }
    }
}
