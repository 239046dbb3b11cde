//! The container layer: a demo file as a header, a prelude and a stream of chunks.
//!
//! * [`format`](mod@format): the byte layouts as binrw structs.
//! * [`reader`]: a zero-copy slice reader and a streaming reader, yielding tick markers and
//!   raw data chunks.
//! * [`payload`]: chunk payload decoding and encoding (Huffman, then packed ints).
//! * [`writer`]: emits any chunk sequence, byte-exactly when given the stored forms.
//! * [`demo`]: a whole demo as an owned value, for round trips and rewriting.
//! * [`summary`]: header fields, tick range and chunk counts, for `info`.
//! * [`error`]: what reading and writing report.
//!
//! This layer knows chunks, not snapshots: what a snapshot or delta payload holds is the
//! [snapshot layer](super::snapshot)'s business, and cutting or converting a file is the
//! [editing tools](super::edit)'.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod demo;
pub mod error;
pub mod format;
pub mod payload;
pub mod reader;
#[cfg(any(test, feature = "proptest"))]
pub mod strategies;
pub mod summary;
pub mod writer;
