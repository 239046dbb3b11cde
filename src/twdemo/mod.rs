//! Teeworlds and DDNet demos (`TWDEMO`, versions 3 to 6), in four layers, each built on
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
//! The types used most are re-exported here (for example [`DemoSlice`], [`Recorder`],
//! [`Snapshot`]); everything else is reached through its layer (for example
//! `twdemo::container::reader`, `twdemo::edit::trim`).
//!
//! The first three layers know snapshot items and messages as numbers; what they mean is
//! the game layer's, built on the protocol tables of [`gamenet`](crate::gamenet).

pub mod container;
pub mod edit;
pub mod game;
pub mod operations;
pub mod snapshot;

pub use container::demo::{DataRecord, Demo, Payload, Record};
pub use container::error::{PayloadError, ReadError, ReadErrorKind, WriteError};
pub use container::format::{ChunkKind, RawChunkHeader, SizeForm, TickForm};
pub use container::payload::{DecodedPayload, PayloadDecoder, PayloadEncoder};
pub use container::reader::{
    Chunk, ChunkAt, ChunkSource, Chunks, DataChunk, DemoReader, DemoSlice, Prelude, TickMarker,
};
pub use container::summary::Summary;
pub use container::writer::DemoWriter;
pub use operations::TwDemo;
pub use snapshot::delta::{ItemSizes, apply_delta, create_delta};
pub use snapshot::recorder::{Recorder, RecorderConfig};
pub use snapshot::{ItemTypes, Snapshot, SnapshotBuf, SnapshotBuilder};

// The operations every format has, under the same names at the format's root (see
// `crate::recording` for the one entry point over all formats).
pub use container::demo::{RewriteError, RewriteStats, rewrite, rewrite_reader};
pub use edit::repair::{RepairError, RepairReport, repair, repair_reader};
pub use edit::scrub::{ScrubError, ScrubReport, scrub, scrub_reader};
pub use edit::trim::{
    RangeError, TrimError, TrimReport, resolve_range, resolve_range_reader, trim, trim_reader,
};
pub use edit::validate::validate;
