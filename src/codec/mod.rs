//! Primitives shared by the formats: bit- and byte-level encodings with no notion of a file.
//!
//! Each codec works on caller-provided buffers so that the container readers can reuse
//! their allocations from one chunk to the next.

pub mod bits;
pub mod huffman;
pub mod string;
pub mod uuid;
pub mod varint;
