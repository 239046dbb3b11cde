//! DDNet teehistorian files (versions 1 and 2): everything a server saw, as a stream of
//! messages behind a JSON header.
//!
//! * [`format`](mod@format): constants, message ids, the variable-width int for binrw and
//!   the EX frame.
//! * [`records`]: the one description of every message and EX record (name, id or UUID,
//!   fields and their encodings), from which the next two are built.
//! * [`layout`]: every message and EX payload as a declarative binrw layout, through which
//!   messages are written; with `'static`, the owned (and serde) form of a message.
//! * [`header`]: the typed JSON header and DDNet's way of writing it (key order, escaping).
//! * [`message`]: the zero-copy views of every message and the 22 typed extension (EX)
//!   records; a fast decoder that counts non-canonical ints (a property test holds it to the
//!   layouts) and the encoder.
//! * [`reader`]: a zero-copy slice reader and a streaming reader, yielding each message with
//!   its offset and its tick as DDNet's writer numbers them ([`TickState`]).
//! * [`semantic`]: the reconstructed state ([`World`]: absolute positions and inputs) and
//!   an event per message ([`Events`]); [`walk`]: the same world tick by tick without an
//!   event per message, the fast way for tables ([`TickWalk`], over a slice or a stream).
//! * [`writer`]: writes a header and messages; a read-and-write-again copy is byte-identical.
//! * [`game`](mod@game): the players by name and their clients' messages, typed (the
//!   game layer, on top of [`semantic`]).
//! * [`summary`]: header fields, tick range and counts by kind, for `info`, and `validate`.
//! * [`repair`](mod@repair): keeps every complete message of an unfinished or cut file and
//!   appends FINISH.
//! * [`trim`](mod@trim): a tick range as a file of its own, starting with the state a reader
//!   needs at its first tick, with the original tick numbers.
//! * [`scrub`](mod@scrub): a file to share: player names and clans as pseudonyms,
//!   credentials, chat, drop reasons and header fields taken out, the rest byte for byte.
//!
//! ```
//! use demokit::teehistorian::{Header, Message, TeehistorianSlice, TeehistorianWriter};
//!
//! let header = Header { map_name: Some("dm1".into()), ..Header::new("2") };
//! let mut w = TeehistorianWriter::new(Vec::new(), &header)?;
//! w.write(&Message::Join { cid: 0 })?;
//! w.write(&Message::PlayerNew { cid: 0, x: 100, y: 200 })?; // opens tick 1 implicitly
//! w.write(&Message::TickSkip { dt: 3 })?;                   // tick 5
//! let bytes = w.finish()?;                                  // writes FINISH
//!
//! let file = TeehistorianSlice::parse(&bytes)?;
//! for item in file.messages() {
//!     let item = item?;
//!     println!("{} tick {} {}", item.offset, item.tick, item.message.kind_name());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[macro_use]
pub mod records;

pub mod error;
pub mod format;
pub mod game;
pub mod header;
pub mod layout;
pub mod message;
pub mod operations;
pub mod reader;
pub mod recorder;
pub mod repair;
pub mod scrub;
pub mod semantic;
#[cfg(any(test, feature = "proptest"))]
pub mod strategies;
mod stream;
pub mod summary;
pub mod trim;
pub mod walk;
pub mod writer;

pub use error::{EncodeError, HeaderError, ReadError, ReadErrorKind, WriteError};
pub use header::Header;
pub use layout::{ExLayout, MessageLayout, OwnedMessage};
pub use message::{Args, AuthRole, DecodeError, Decoded, Ex, ExKind, Message, apply_input_diff};
pub use operations::Teehistorian;
pub use reader::{
    MessageAt, Messages, TeehistorianReader, TeehistorianSlice, TickError, TickState,
};
pub use recorder::{FlushPolicy, Phase, Recorder, RecorderError};
pub use repair::{RepairError, RepairReport, repair};
pub use scrub::{ScrubError, ScrubReport, scrub};
pub use semantic::{
    Event, EventKind, Events, SemanticError, SemanticErrorKind, StreamEvents, World,
};
pub use summary::{Summary, validate};
pub use trim::{RangeError, TrimError, TrimReport, resolve_range, trim};
pub use walk::{TickWalk, WalkSource};
pub use writer::{RewriteError, RewriteStats, TeehistorianWriter, rewrite};
