//! Source engine demos (`HL2DEMO`): the container shared by TF2, HL2, Portal 1 and 2,
//! Left 4 Dead 1 and 2 and CS:GO.
//!
//! * [`format`](mod@format): the byte layouts as binrw structs.
//! * [`profile`]: how each game build numbers its commands, how many view splits its
//!   packets carry and whether frame headers have a player-slot byte.
//! * [`reader`]: a zero-copy slice reader and a streaming reader, yielding command frames.
//! * [`writer`]: writes any frame sequence; a rewrite of a real file is byte-identical.
//! * [`net`]: the network messages inside signon and packet frames, for every engine
//!   branch, decoded and encoded bit for bit; string tables and game events.
//! * [`entity`]: send tables, server classes, entity updates and the players among the
//!   entities.
//!
//! GoldSrc (`HLDEMO`) and Source 2 (`PBDEMS2`) demos are different formats; the reader
//! names them and refuses them.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod entity;
pub mod error;
pub mod format;
pub mod game;
pub mod net;
pub mod operations;
pub mod profile;
pub mod reader;
pub mod repair;
pub mod scrub;
#[cfg(any(test, feature = "proptest"))]
pub mod strategies;
pub mod summary;
pub mod trim;
pub mod writer;

pub use error::{ReadError, ReadErrorKind, WriteError};
pub use format::{Header, ViewInfo};
pub use operations::SourceDemo;
pub use profile::{Command, CommandTable, Profile, ProfileOrigin, playback_time, tick_interval};
pub use reader::{Body, Frame, FrameAt, Frames, PacketBody, SourceReader, SourceSlice, stop_tick};
pub use writer::{RewriteError, RewriteStats, SourceWriter, rewrite, rewrite_reader};

// The operations every format has, under the same names at the format's root.
pub use repair::{RepairError, RepairOptions, RepairReport, repair, repair_reader};
pub use scrub::{ScrubError, ScrubReport, scrub, scrub_reader};
pub use summary::{Summary, validate};
pub use trim::{TrimError, TrimReport, trim, trim_reader};
