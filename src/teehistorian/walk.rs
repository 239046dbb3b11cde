//! [`TickWalk`]: a file's world tick by tick, the fast way through a body for tools that
//! want the positions after each tick and the inputs (tables, statistics, training data)
//! rather than an event per message.
//!
//! Over a [`TeehistorianSlice`] it gives what [`Events::next_tick`](super::Events::next_tick) gives: the same ticks,
//! the same [`World`] after each, the same inputs in the same order, and the same error at
//! the same offset (a property test holds the two together). What it saves is the layering:
//! the int-only messages that make up most of a body are decoded and applied in one step,
//! with no [`MessageAt`](super::MessageAt) or [`Event`] built for them; every
//! other message takes the reader's general path.
//!
//! ```
//! use demokit::teehistorian::{EventKind, Header, Protocol, Recorder, TeehistorianSlice, TickWalk};
//!
//! let mut rec = Recorder::new(Vec::new(), &Header::new("2"))?;
//! rec.record_player_join(0, Protocol::V6)?;
//! for tick in 1..=3 {
//!     rec.begin_tick(tick)?;
//!     rec.begin_players()?;
//!     rec.record_player(0, 100 + tick, 200)?;
//!     rec.end_players()?;
//!     rec.begin_inputs()?;
//!     rec.record_player_input(0, 1, &[0, 10 * tick, 0, 0, 0, 0, 0, 0, 0, 0])?;
//!     rec.end_inputs()?;
//!     rec.end_tick()?;
//! }
//! let bytes = rec.finish()?;
//!
//! let file = TeehistorianSlice::parse(&bytes)?;
//! let mut walk = TickWalk::new(&file);
//! let (mut positions, mut aims) = (Vec::new(), Vec::new());
//! while let Some(tick) = walk.next_tick(|event| {
//!     if let EventKind::Input { input, .. } = event.kind {
//!         aims.push((event.tick, input[1]));
//!     }
//! }) {
//!     positions.push((tick?, walk.world().position(0)));
//! }
//! assert_eq!(positions[3], (3, Some((103, 200))));
//! assert_eq!(aims, [(1, 10), (2, 20), (3, 30)]);
//! assert!(walk.finished());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::message::Message;
use super::reader::{Messages, TeehistorianSlice};
use super::semantic::{Event, SemanticError, World};

/// A message read ahead that opened the next tick; it is applied when that tick is walked.
#[derive(Debug, Clone, Copy)]
struct Pending<'a> {
    offset: u64,
    tick: i32,
    message: Message<'a>,
}

/// Walks a [`TeehistorianSlice`] tick by tick, keeping the [`World`]; see the module docs.
#[derive(Debug, Clone)]
pub struct TickWalk<'a> {
    messages: Messages<'a>,
    world: World,
    /// The tick being walked, once a message other than FINISH was read.
    tick: Option<i32>,
    pending: Option<Pending<'a>>,
    records: u64,
    finished: bool,
    done: bool,
}

impl<'a> TickWalk<'a> {
    /// A walk over `file`'s body from its first message, with an empty world.
    pub fn new(file: &TeehistorianSlice<'a>) -> Self {
        TickWalk {
            messages: file.messages(),
            world: World::new(),
            tick: None,
            pending: None,
            records: 0,
            finished: false,
            done: false,
        }
    }

    /// The state after the last tick returned (and, after an error, after the messages
    /// before it).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The tick of the last message applied (0 before the first), as
    /// [`Events::tick`](super::Events::tick).
    pub fn tick(&self) -> i32 {
        self.tick.unwrap_or(0)
    }

    /// The messages applied so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Whether FINISH has been read.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Walks to the end of the next tick and returns it; [`world`](Self::world) is then the
    /// state after that tick. `on_event` gets the event of every message of the tick as it
    /// is applied (the events [`Events`](super::Events) yields, but for its
    /// [`TickEnd`](super::EventKind::TickEnd)s); a caller that ignores most kinds pays little for
    /// them, as the callback is inlined. `None` at the end (a FINISH in a file without ticks
    /// is handed on in that call); after an error (returned once, with the messages before
    /// it applied and handed on) the walk ends.
    ///
    /// The ticks are those [`Events`](super::Events) ends with a
    /// [`TickEnd`](super::EventKind::TickEnd): ticks with messages, the last one included.
    pub fn next_tick(
        &mut self,
        mut on_event: impl FnMut(Event<'a>),
    ) -> Option<Result<i32, SemanticError>> {
        if self.done {
            return None;
        }
        if let Some(p) = self.pending.take()
            && let Err(e) = self.apply(p.offset, p.tick, &p.message, &mut on_event)
        {
            return Some(Err(e));
        }
        loop {
            let offset = self.messages.position() as u64;
            let (tick, message) = match self.messages.next_plain() {
                Some((tick, decoded)) => (tick, decoded.message),
                None => match self.messages.next() {
                    Some(Ok(at)) => (at.tick, at.message),
                    Some(Err(e)) => {
                        self.done = true;
                        return Some(Err(e.into()));
                    }
                    None => {
                        self.done = true;
                        return self.tick.map(Ok);
                    }
                },
            };
            // A message of another tick ends this one (FINISH never does: it changes no tick).
            if let Some(ended) = self.tick
                && ended != tick
            {
                self.pending = Some(Pending {
                    offset,
                    tick,
                    message,
                });
                return Some(Ok(ended));
            }
            if let Err(e) = self.apply(offset, tick, &message, &mut on_event) {
                return Some(Err(e));
            }
        }
    }

    #[inline(always)]
    fn apply(
        &mut self,
        offset: u64,
        tick: i32,
        message: &Message<'a>,
        on_event: &mut impl FnMut(Event<'a>),
    ) -> Result<(), SemanticError> {
        if matches!(message, Message::Finish) {
            self.finished = true;
        } else {
            self.tick = Some(tick);
        }
        match self.world.apply(message) {
            Ok(kind) => on_event(Event { offset, tick, kind }),
            Err(kind) => {
                self.done = true;
                return Err(SemanticError::State { offset, tick, kind });
            }
        }
        self.records += 1;
        Ok(())
    }
}
