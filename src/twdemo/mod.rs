//! Teeworlds and DDNet demos (`TWDEMO`, versions 3 to 6): the container.
//!
//! * [`format`](mod@format): the byte layouts as binrw structs.
//! * [`reader`]: a zero-copy slice reader and a streaming reader, yielding tick markers and
//!   raw data chunks.
//! * [`payload`]: chunk payload decoding and encoding (Huffman, then packed ints).
//! * [`writer`]: emits any chunk sequence, byte-exactly when given the stored forms.
//! * [`recorder`]: records a demo the way DDNet's recorder does, from ints or from full
//!   snapshots (keyframes and deltas chosen as DDNet chooses them).
//! * [`snapshot`]: snapshots as DDNet stores them (items, extended UUID item types), checked
//!   as DDNet checks them, and a builder.
//! * [`delta`]: snapshot deltas, created and applied with the protocol's item sizes.
//! * [`demo`]: a whole demo as an owned value, for round trips and rewriting.
//! * [`convert`]: between versions 3 to 6, payloads untouched.
//! * [`repair`]: a recording cut off mid-write made whole again, and the embedded map.
//! * [`replay`]: the full snapshot at every tick.
//! * [`trim`]: a tick range cut out at any tick, starting with a rebuilt keyframe.
//! * [`validate`]: what DDNet's player would reject.
//!
//! The meaning of snapshot items and network messages (which object a type is, what a
//! message says) is left to callers.

pub mod convert;
pub mod delta;
pub mod demo;
pub mod error;
pub mod format;
pub mod payload;
pub mod reader;
pub mod recorder;
pub mod repair;
pub mod replay;
pub mod snapshot;
#[cfg(any(test, feature = "proptest"))]
pub mod strategies;
pub mod summary;
pub mod trim;
pub mod validate;
pub mod writer;

pub use delta::{ItemSizes, apply_delta, create_delta};
pub use demo::{DataRecord, Demo, Payload, Record};
pub use error::{PayloadError, ReadError, ReadErrorKind, WriteError};
pub use format::{ChunkKind, RawChunkHeader, SizeForm, TickForm};
pub use payload::{DecodedPayload, PayloadDecoder, PayloadEncoder};
pub use reader::{Chunk, ChunkAt, Chunks, DataChunk, DemoReader, DemoSlice, Prelude, TickMarker};
pub use recorder::{Recorder, RecorderConfig};
pub use snapshot::{Snapshot, SnapshotBuf, SnapshotBuilder};
pub use summary::Summary;
pub use writer::DemoWriter;
