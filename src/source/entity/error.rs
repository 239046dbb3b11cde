//! Why send tables could not be flattened or an entity update could not be decoded.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use crate::codec::bits::BitsEnded;

/// A failure at a bit offset inside the data being decoded (an update's entity data, a
/// baseline's bits; 0 for flattening, which reads no bits).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at bit {bit}: {kind}")]
pub struct EntityError {
    /// The bit, counted from the start of the data.
    pub bit: usize,
    /// What went wrong.
    pub kind: EntityErrorKind,
}

impl EntityError {
    /// An error of `kind` at `bit`.
    pub fn new(bit: usize, kind: EntityErrorKind) -> Self {
        EntityError { bit, kind }
    }
}

impl From<BitsEnded> for EntityError {
    fn from(e: BitsEnded) -> Self {
        EntityError::new(e.at, EntityErrorKind::Ended { wanted: e.wanted })
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum EntityErrorKind {
    /// The data ended inside a field.
    #[error("the data ends, {wanted} more bits wanted")]
    Ended {
        /// How many bits the field needed.
        wanted: usize,
    },
    /// A data table links to, or a class names, a table the frame does not have.
    #[error("no send table named {0:?}")]
    NoTable(String),
    /// A data table contains itself.
    #[error("send table {0:?} links to itself")]
    Cycle(String),
    /// An update names a class id the data tables do not have.
    #[error("no server class with id {class}")]
    NoClass {
        /// The class id.
        class: u32,
    },
    /// An update changes an entity the client does not hold: the demo starts from a
    /// delta against a state it never recorded.
    #[error("entity {index} is updated but was never created")]
    NoEntity {
        /// The entity index.
        index: u32,
    },
    /// An entity index past the engine's limit of 2048.
    #[error("entity index {index} is past 2047")]
    EntityIndex {
        /// The index.
        index: u64,
    },
    /// A prop index past the class's flat list.
    #[error("prop index {index} of a class with {props} props")]
    PropIndex {
        /// The index read.
        index: u64,
        /// The number of props of the class.
        props: usize,
    },
    /// The data is longer than what it holds.
    #[error("{bits} bits are left over after the last field")]
    LeftOver {
        /// The bits left.
        bits: usize,
    },
    /// Bits or tables that no engine writes.
    #[error("invalid data: {what}")]
    Invalid {
        /// What is wrong.
        what: &'static str,
    },
    /// A layout this module does not decode.
    #[error("not supported: {what}")]
    NotSupported {
        /// What is not supported.
        what: &'static str,
    },
}
