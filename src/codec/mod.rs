//! Primitives shared by the formats: bit- and byte-level encodings with no notion of a file.
//!
//! Each codec works on caller-provided buffers so that the container readers can reuse
//! their allocations from one chunk to the next.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod bits;
pub mod huffman;
pub mod string;
pub mod uuid;
pub mod varint;
