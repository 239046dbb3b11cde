//! The game layer through the entry point: players, chat and events of every format
//! (Teeworlds demos, teehistorian files, Source demos), handed out one record at a time so
//! that memory does not grow with the recording.

use super::{Error, Format, GameWalk, Operation, Recording, RecordingFormat};
use crate::gamenet::summary::GameLog;
use crate::teehistorian::game::GameEventAt;
use crate::time::{RangeBound, TickRange};
use crate::twdemo::game::chat::DemoChatLine;
use crate::twdemo::operations::{DemoRecord, EventAt};

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
    /// An event a demo's snapshots and messages show, and its tick.
    TwDemo(EventAt<'a>),
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

from_formats!(GameEvent<'a>, Event);
from_formats!(GameRecord<'a>, GameRecord);

impl GameRecord<'_> {
    /// The tick the record belongs to.
    pub fn tick(&self) -> i32 {
        match self {
            GameRecord::TwDemo(record) => record.tick(),
            GameRecord::Teehistorian(event) => event.tick,
            GameRecord::Source(item) => item.tick(),
        }
    }
}

impl Recording {
    /// The players (their stints on the server) and the chat of a recording, and the error
    /// that ended the walk early, if any.
    pub fn game_log(&self) -> Result<(GameLog, Option<Error>), Error> {
        // Streamed: memory does not grow with the file.
        let input = self.input();
        forward!(self.format, F => F::game_log(input))
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
    pub(crate) fn range_for(
        &self,
        operation: Operation,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
    ) -> Result<Option<TickRange>, Error> {
        if from.is_none() && to.is_none() {
            return Ok(None);
        }
        let input = self.input();
        forward!(self.format, F => F::tick_range(input, from, to, operation).map(Some))
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
        self.require(Operation::Chat)?;
        let input = self.input();
        forward!(self.format, F => F::chat(input).map(|(lines, e)| (lines.into(), e)))
    }

    /// The Teeworlds/DDNet map the game was played on, as a map file's bytes, for
    /// `operation`: `given` (checked against the recording's checksum where it has one)
    /// or the one a demo embeds; `None` for a Source demo, or a demo without a map. A
    /// teehistorian file without `given` is [`Error::Map`]. (What the pictures and pages
    /// draw the game on.)
    #[cfg(feature = "render")]
    pub(crate) fn game_map(
        &self,
        given: Option<&[u8]>,
        operation: Operation,
    ) -> Result<Option<Vec<u8>>, Error> {
        let input = self.input();
        forward!(self.format, F => F::game_map(input, given, operation))
    }

    /// Where and when the game was played, as the recording's header says (nothing after
    /// the header is read).
    pub fn facts(&self) -> Result<crate::model::GameFacts, Error> {
        let input = self.input();
        forward!(self.format, F => F::facts(input))
    }

    /// The game stream: the game as the [model](crate::model) states it, whatever the
    /// format. The players in the game at every tick of `options`' range go to `sink`
    /// tick by tick, with what else `options` asks for that the format records (a
    /// teehistorian file's inputs, a Source demo's typed events and frames); the game's
    /// facts and log (players, events, chat) and how much was read come back at the end,
    /// with the error that ended the walk early, if any. Streamed: memory does not grow
    /// with the file. The tables, pictures and report pages are made from it.
    pub fn game(
        &self,
        options: &crate::model::GameOptions,
        sink: &mut dyn crate::model::GameSink,
    ) -> Result<super::GameEnd, Error> {
        let input = self.input();
        forward!(self.format, F => F::game(input, options, sink))
    }

    /// Hands every game event (kills, finishes, joins, chat, ...) to `each`, in order.
    /// Streamed: memory does not grow with the file.
    pub fn events(&self, mut each: impl FnMut(GameEvent<'_>)) -> Result<GameWalk, Error> {
        let input = self.input();
        forward!(self.format, F => F::events(input, &mut |event| each(event.into())))
    }

    /// Hands every typed record of the game protocol to `each`, in order: a demo's snapshot
    /// items and messages tick by tick, a teehistorian file's events, a Source demo's
    /// entity updates and messages. Streamed: memory does not grow with the file.
    pub fn game_records(&self, mut each: impl FnMut(GameRecord<'_>)) -> Result<GameWalk, Error> {
        let input = self.input();
        forward!(self.format, F => F::game_records(input, &mut |record| each(record.into())))
    }
}
