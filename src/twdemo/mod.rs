//! Teeworlds and DDNet demos (`TWDEMO`, versions 3 to 6): the container.
//!
//! * [`format`](mod@format): the byte layouts as binrw structs.
//! * [`reader`]: a zero-copy slice reader and a streaming reader, yielding tick markers and
//!   raw data chunks.
//! * [`payload`]: chunk payload decoding and encoding (Huffman, then packed ints).
//! * [`writer`]: emits any chunk sequence, byte-exactly when given the stored forms.
//! * [`recorder`]: records a demo the way DDNet's recorder does.
//! * [`demo`]: a whole demo as an owned value, for round trips and rewriting.
//! * [`validate`]: what DDNet's player would reject.
//!
//! The meaning of payloads (snapshot items, network messages) is left to callers.

pub mod delta;
pub mod demo;
pub mod error;
pub mod format;
pub mod payload;
pub mod reader;
pub mod recorder;
pub mod snapshot;
#[cfg(any(test, feature = "proptest"))]
pub mod strategies;
pub mod summary;
pub mod validate;
pub mod writer;

pub use demo::{DataRecord, Demo, Payload, Record};
pub use error::{PayloadError, ReadError, ReadErrorKind, WriteError};
pub use format::{ChunkKind, RawChunkHeader, SizeForm, TickForm};
pub use payload::{DecodedPayload, PayloadDecoder, PayloadEncoder};
pub use reader::{Chunk, ChunkAt, Chunks, DataChunk, DemoReader, DemoSlice, Prelude, TickMarker};
pub use recorder::{Recorder, RecorderConfig};
pub use summary::Summary;
pub use writer::DemoWriter;
