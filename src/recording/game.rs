//! The game layer through the entry point: players, chat and events of every format
//! (Teeworlds demos, teehistorian files, Source demos), handed out one record at a time so
//! that memory does not grow with the recording.

use super::{Error, Format, Operation, Recording};
use crate::gamenet::summary::GameLog;
use crate::gamenet::{AnyMessage, Unpacked};
use crate::teehistorian::game::GameEventAt;
use crate::teehistorian::trim as th_trim;
use crate::time::{RangeBound, TickRange};
use crate::twdemo::DemoReader;
use crate::twdemo::edit::trim as tw_trim;
use crate::twdemo::game::chat::DemoChatLine;
use crate::twdemo::game::{Event as DemoEvent, GameReplay, ObjectAt};

/// One game event, in its format's own terms.
///
/// With the `serde` feature: `{"tick", "kind", ...}` with the event's fields (a teehistorian
/// event also has the `offset` of its message).
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
// Handed to a callback one at a time: boxing the large variant would allocate per event.
#[allow(clippy::large_enum_variant)]
pub enum GameEvent<'a> {
    /// An event a demo's snapshots and messages show.
    TwDemo {
        /// The tick.
        tick: i32,
        /// What happened.
        #[cfg_attr(feature = "serde", serde(flatten))]
        event: &'a DemoEvent,
    },
    /// An event a teehistorian file's messages record.
    Teehistorian(GameEventAt<'a>),
    /// What a Source demo's messages say: a game event typed by the demo's descriptors,
    /// a chat line, a player joining, leaving or renaming, server text.
    Source(crate::source::game::Item<'a>),
}

/// One typed record of a recording's game protocol, as `dump --objects` lists them.
///
/// With the `serde` feature: `{"record": "object" | "message", "tick", ...}` for a demo's
/// snapshot items and messages, a teehistorian file's events as [`GameEvent`], a Source
/// demo's items as [`crate::source::game::Item`] (`"record": "entity"` for each entity an
/// update touched, with its props by name).
#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[non_exhaustive]
// Handed to a callback one at a time: boxing the large variant would allocate per record.
#[allow(clippy::large_enum_variant)]
pub enum GameRecord<'a> {
    /// A demo's snapshot item or message.
    TwDemo(DemoRecord<'a>),
    /// A teehistorian file's event, with every client message typed.
    Teehistorian(GameEventAt<'a>),
    /// A Source demo's entity update, chat line, game event, join, leave, rename or text.
    Source(crate::source::game::Item<'a>),
}

impl GameRecord<'_> {
    /// The tick the record belongs to.
    pub fn tick(&self) -> i32 {
        match self {
            GameRecord::TwDemo(DemoRecord::Object { tick, .. })
            | GameRecord::TwDemo(DemoRecord::Message { tick, .. }) => *tick,
            GameRecord::Teehistorian(event) => event.tick,
            GameRecord::Source(item) => item.tick(),
        }
    }
}

/// A demo's typed snapshot item or message of a tick.
#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "record", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum DemoRecord<'a> {
    /// A snapshot item.
    Object {
        /// The tick.
        tick: i32,
        /// The item.
        #[cfg_attr(feature = "serde", serde(flatten))]
        object: &'a ObjectAt<'a>,
    },
    /// A message chunk.
    Message {
        /// The tick.
        tick: i32,
        /// The message.
        #[cfg_attr(feature = "serde", serde(flatten))]
        message: &'a Unpacked<'a, AnyMessage<'a>>,
    },
}

/// How a walk over the game layer ended.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct GameWalk {
    /// Demos: snapshots or deltas that were invalid and skipped, as DDNet's player skips
    /// them.
    pub skipped: usize,
    /// The error that ended the walk early; everything before it was handed out.
    pub error: Option<Error>,
}

impl Recording {
    /// The players (their stints on the server) and the chat of a recording, and the error
    /// that ended the walk early, if any.
    pub fn game_log(&self) -> Result<(GameLog, Option<Error>), Error> {
        match self.format {
            Format::TwDemo => {
                // Streamed: memory does not grow with the file.
                let (log, error) = crate::twdemo::game::game_log_reader(self.reader()?)?;
                Ok((log, error.map(Into::into)))
            }
            Format::Teehistorian => {
                // Streamed: memory does not grow with the file.
                let (log, error) = crate::teehistorian::game::game_log_reader(self.reader()?)?;
                Ok((log, error.map(Into::into)))
            }
            Format::SourceDemo => {
                // Streamed: memory does not grow with the file. The entities give every
                // player's team, which the events say only for those who changed it.
                let (log, error) = crate::source::game::game_log_reader_with(
                    self.reader()?,
                    crate::source::game::Walk::entities(),
                    |_| {},
                )?;
                Ok((log, error.map(Into::into)))
            }
            _ => Err(self.unsupported(Operation::GameLog)),
        }
    }

    /// The ticks `from..=to` as the format counts them, each bound a tick, seconds (`30s`)
    /// or a demo's timeline marker (`m1`) as `trim` and `render` take them: `None` for
    /// the whole recording (no bound given). A bound the recording cannot have (a marker
    /// it lacks, seconds in a Source demo) or an empty range is an [`Error::Argument`].
    pub fn tick_range(
        &self,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
    ) -> Result<Option<TickRange>, Error> {
        self.range_for(Operation::Select, from, to)
    }

    /// [`tick_range`](Self::tick_range), its errors naming `operation`.
    pub(super) fn range_for(
        &self,
        operation: Operation,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
    ) -> Result<Option<TickRange>, Error> {
        if from.is_none() && to.is_none() {
            return Ok(None);
        }
        let argument = |e: &dyn std::fmt::Display| Error::Argument {
            operation,
            message: e.to_string(),
        };
        match self.format {
            Format::TwDemo => tw_trim::resolve_range_reader(self.reader()?, from, to)
                .map(Some)
                .map_err(|e| match e {
                    tw_trim::RangeError::Read(e) => e.into(),
                    usage => argument(&usage),
                }),
            Format::Teehistorian => th_trim::resolve_range_reader(self.reader()?, from, to)
                .map(Some)
                .map_err(|e| match e {
                    th_trim::RangeError::Read(e) => e.into(),
                    usage => argument(&usage),
                }),
            _ => {
                // Source ticks are the demo's own: only tick numbers name them.
                let tick = |bound: Option<RangeBound>, open: i32| match bound {
                    None => Ok(open),
                    Some(RangeBound::Tick(t)) => Ok(t),
                    Some(other) => Err(argument(&format!(
                        "{other}: a Source demo's range is given in ticks (e.g. 1500)"
                    ))),
                };
                let (from, to) = (tick(from, i32::MIN)?, tick(to, i32::MAX)?);
                if from > to {
                    return Err(argument(&format!(
                        "the range is empty: it starts at tick {from}, after its end at tick {to}"
                    )));
                }
                Ok(Some(TickRange::new(from, to)))
            }
        }
    }

    /// Checks `selection` against this recording (the kinds that exist, its players by id
    /// or name, its ticks), the bounds `from` and `to` given as `trim` takes them (ticks,
    /// seconds, markers). A selection that names what the recording does not have is an
    /// [`Error::Argument`] listing what it has. The game log is read for the players'
    /// names only when the selection names players.
    pub fn select(
        &self,
        kinds: &[String],
        players: &[String],
        from: Option<RangeBound>,
        to: Option<RangeBound>,
    ) -> Result<crate::model::Selected, Error> {
        let ticks = self.tick_range(from, to)?;
        let selection = crate::model::Selection {
            kinds: kinds.to_vec(),
            ticks,
            players: players.to_vec(),
        };
        if selection.is_everything() {
            return Ok(crate::model::Selected::default());
        }
        let log = if players.is_empty() {
            GameLog::default()
        } else {
            self.game_log()?.0
        };
        let span = match ticks {
            Some(_) => self.summary()?.0.ticks(),
            None => None,
        };
        selection
            .resolve(&log, span)
            .map_err(|message| Error::Argument {
                operation: Operation::Select,
                message,
            })
    }

    /// A demo's chat lines as DDNet's `demo_extract_chat` tool prints them (0.7 demos read
    /// as DDNet's client reads them; see [`chat`](crate::twdemo::game::chat)), and the
    /// error that ended the walk early, if any. Only demos have such a listing: for the
    /// other formats it is [`Error::Unsupported`], and their chat is in
    /// [`game_log`](Self::game_log).
    pub fn chat(&self) -> Result<(Vec<DemoChatLine>, Option<Error>), Error> {
        if self.format != Format::TwDemo {
            return Err(self.unsupported(Operation::GameLog));
        }
        // Streamed: memory does not grow with the file.
        let (lines, error) = crate::twdemo::game::chat::chat_lines_reader(self.reader()?)?;
        Ok((lines, error.map(Into::into)))
    }

    /// Hands every game event (kills, finishes, joins, chat, ...) to `each`, in order.
    pub fn events(&self, mut each: impl FnMut(GameEvent<'_>)) -> Result<GameWalk, Error> {
        let mut walk = GameWalk::default();
        match self.format {
            Format::TwDemo => {
                // Streamed: memory does not grow with the file.
                let mut replay = GameReplay::from_reader(DemoReader::new(self.reader()?)?);
                while let Some(tick) = replay.next() {
                    match tick {
                        Ok(tick) => {
                            for event in tick.world.events() {
                                each(GameEvent::TwDemo {
                                    tick: tick.tick,
                                    event,
                                });
                            }
                        }
                        Err(e) => {
                            walk.error = Some(e.into());
                            break;
                        }
                    }
                }
                walk.skipped = replay.skipped();
            }
            Format::Teehistorian => {
                // Streamed: memory does not grow with the file.
                let error =
                    crate::teehistorian::game::game_events_reader(self.reader()?, |_, event| {
                        each(GameEvent::Teehistorian(event))
                    })?;
                walk.error = error.map(Into::into);
            }
            Format::SourceDemo => {
                // Streamed: memory does not grow with the file.
                let end = crate::source::game::walk_reader(self.reader()?, |item| {
                    each(GameEvent::Source(item))
                })?;
                walk.error = end.error.map(Into::into);
            }
            _ => return Err(self.unsupported(Operation::GameLog)),
        }
        Ok(walk)
    }

    /// Hands every typed record of the game protocol to `each`, in order: a demo's snapshot
    /// items and messages tick by tick, a teehistorian file's events.
    pub fn game_records(&self, mut each: impl FnMut(GameRecord<'_>)) -> Result<GameWalk, Error> {
        if self.format == Format::Teehistorian {
            return self.events(|event| match event {
                GameEvent::Teehistorian(event) => each(GameRecord::Teehistorian(event)),
                GameEvent::TwDemo { .. } | GameEvent::Source(_) => {}
            });
        }
        if self.format == Format::SourceDemo {
            use crate::source::game::{Item, Walk, walk_reader_with};
            // Streamed: memory does not grow with the file.
            let end = walk_reader_with(self.reader()?, Walk::objects(), |item| {
                if !matches!(item, Item::Players { .. }) {
                    each(GameRecord::Source(item));
                }
            })?;
            return Ok(GameWalk {
                error: end.error.map(Into::into),
                ..GameWalk::default()
            });
        }
        if self.format != Format::TwDemo {
            return Err(self.unsupported(Operation::GameObjects));
        }
        // Streamed: memory does not grow with the file.
        let mut replay = GameReplay::from_reader(DemoReader::new(self.reader()?)?);
        let mut walk = GameWalk::default();
        while let Some(tick) = replay.next() {
            let tick = match tick {
                Ok(tick) => tick,
                Err(e) => {
                    walk.error = Some(e.into());
                    break;
                }
            };
            for object in tick.objects() {
                each(GameRecord::TwDemo(DemoRecord::Object {
                    tick: tick.tick,
                    object: &object,
                }));
            }
            for message in tick.messages() {
                each(GameRecord::TwDemo(DemoRecord::Message {
                    tick: tick.tick,
                    message: &message,
                }));
            }
        }
        walk.skipped = replay.skipped();
        Ok(walk)
    }
}
