//! Why a packet's messages could not be decoded or encoded.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

/// A failure at a bit offset inside one packet's (or one message's) data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at bit {bit}: {kind}")]
pub struct NetError {
    /// The bit, counted from the start of the data being decoded or encoded.
    pub bit: usize,
    /// What went wrong.
    pub kind: NetErrorKind,
}

impl NetError {
    /// An error of `kind` at `bit`.
    pub fn new(bit: usize, kind: NetErrorKind) -> Self {
        NetError { bit, kind }
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum NetErrorKind {
    /// The data ended inside a field.
    #[error("the data ends, {wanted} more bits wanted")]
    Ended {
        /// How many bits the field needed.
        wanted: usize,
    },
    /// A message number the engine branch does not have.
    #[error("unknown message number {number}")]
    UnknownMessage {
        /// The number read.
        number: u32,
    },
    /// A value or length that does not fit its field.
    #[error("{len} does not fit a field that holds at most {max}")]
    TooLong {
        /// The value or length.
        len: usize,
        /// The largest the field holds.
        max: u64,
    },
    /// Fields of a typed message contradict each other (encoding only).
    #[error("cannot encode: {what}")]
    Inconsistent {
        /// Which rule is broken.
        what: &'static str,
    },
    /// Bits that no encoder of this layout writes.
    #[error("invalid data: {what}")]
    Invalid {
        /// What is wrong.
        what: &'static str,
    },
    /// This message kind has no layout on the engine branch.
    #[error("{message} is not a message of {branch}")]
    NotOnBranch {
        /// The message's name.
        message: &'static str,
        /// The branch's name.
        branch: &'static str,
    },
}
