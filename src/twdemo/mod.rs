//! Teeworlds and DDNet demos (`TWDEMO`, versions 3 to 6), in three layers, each built on
//! the ones before it:
//!
//! 1. [`container`]: the file as header, prelude and chunks; readers, a writer, payload
//!    coding, and a whole demo as an owned value.
//! 2. [`snapshot`](mod@snapshot): what snapshot and delta chunks hold; deltas, replay and
//!    the recorder.
//! 3. [`edit`]: trim, convert, repair and validate whole files, and edit their timeline
//!    markers.
//! 4. [`game`]: the game protocol's view: typed snapshot items and messages, and the world
//!    (players, characters, chat, kills, ...) tick by tick.
//!
//! Each module is also reachable at its old place directly under `twdemo` (for example
//! `twdemo::reader`, `twdemo::trim`), and the types used most are re-exported here.
//!
//! The first three layers know snapshot items and messages as numbers; what they mean is
//! the game layer's, built on the protocol tables of [`gamenet`](crate::gamenet).

pub mod container;
pub mod edit;
pub mod game;
pub mod snapshot;

#[cfg(any(test, feature = "proptest"))]
#[doc(no_inline)]
pub use container::strategies;
#[doc(no_inline)]
pub use container::{demo, error, format, payload, reader, summary, writer};
#[doc(no_inline)]
pub use edit::{convert, markers, repair, scrub, trim, validate};
#[doc(no_inline)]
pub use snapshot::{delta, recorder, replay};

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
