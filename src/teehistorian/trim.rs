//! Cutting a tick range out of a teehistorian file.
//!
//! A teehistorian file stores what changed: PLAYER_DIFF moves a character from where the
//! last record put it, INPUT_DIFF changes the last input, a client is connected from its
//! JOIN to its DROP, and a player's name and team come from records that may be thousands
//! of ticks old. So the messages of a range, copied alone, do not read. [`trim`] writes a new,
//! finished file holding the ticks `from..=to` of its input, which the
//! [semantic layer](super::semantic) reads to the same positions, inputs and connected
//! clients as the input at every tick of the range, numbered with the input's tick numbers,
//! and the [game layer](super::game) to the same players:
//!
//! * The header is the input's, written as DDNet writes headers
//!   ([`Header::write_json`]: a header DDNet wrote keeps its bytes, one that no DDNet
//!   wrote comes out in DDNet's key order, escaping and value lengths), with two changes: a
//!   fresh `game_uuid`, so that the cut is not taken for the original game, and a key
//!   [`HEADER_KEY`] (`"cut"`) after all of DDNet's, whose value is an object of strings, as
//!   DDNet writes `config` and `tuning`:
//!   `"cut":{"from_tick":"1500","original_game_uuid":"…","to_tick":"3000"}` (its keys in
//!   that, alphabetical, order). To a JSON reader it is one key more; this crate's readers
//!   keep it in [`Header::extra`], and a parser that hands the header text on (such as the
//!   `teehistorian` crate) reads the file as any other. The new `game_uuid` is a
//!   version-3 UUID (DDNet's kind of name-based UUID) of the input's header
//!   and the range, so the same cut of the same file is the same file; `original_game_uuid`
//!   is the input's `game_uuid` (left out if it has none), or, when the input is itself a
//!   cut, the one its own `"cut"` key names: the game whose ticks these are.
//! * The first tick, `from`, starts with a TICK_SKIP of `from - 1`, so that a reader
//!   numbers it `from` (DDNet's rule, see [`TickState`](super::TickState); none for tick 0).
//!   Then comes the state a reader would otherwise have built from the messages before it,
//!   with the first tick's own messages:
//!   * the records of each client's state, copied as stored, in the order the input has
//!     them: JOIN for every connected client, with the JOINVER6/JOINVER7 record before it
//!     when the input has one (a JOINVER announcing the next join is kept too); the last
//!     `Cl_StartInfo`/`Cl_ChangeInfo` message of the connection (name, clan, country and
//!     skin for the game layer) and its last PLAYER_NAME, DDNETVER (or DDNETVER_OLD) and
//!     AUTH_INIT/AUTH_LOGIN record (unless AUTH_LOGOUT followed); the last PLAYER_TEAM of a
//!     client id whose team is not 0 and the last TEAM_PRACTICE of a team in practice
//!     (DDNet writes those two only on a change from team 0 and no practice);
//!   * PLAYER_NEW for every character, at its position after the first tick: a second
//!     player record of a client id in the same tick would open the next tick, so the
//!     first tick's own player records are folded into these (one that is a PLAYER_NEW of
//!     a client without a character before is copied as stored);
//!   * INPUT_NEW with the whole input of every client id with one (inputs outlive their
//!     clients, as the format's diffs require);
//!   * the first tick's other messages, as stored.
//! * The later ticks' messages up to `to`, as stored. Where the first of them would be
//!   numbered differently after the rebuilt first tick, a TICK_SKIP is written before it
//!   (or, if it is one, with another `dt`), so that every tick keeps its number.
//! * FINISH, appended unless the input's own falls in the range.
//!
//! What differs from the input within the range: the events of the first tick (the state
//! comes as new records), a player's join tick in the game layer (the first tick, for a
//! client connected before it), and the bytes of the first tick's player records.
//!
//! Errors: the input is read up to the range before anything is written, and a file that
//! cannot be cut is refused with a [`TrimError`] naming the offset: a header or a message
//! before the first tick that does not read, or a message before it (or a player record of
//! it) that does not fit the state. A file that breaks off inside the range (cut off, or
//! bytes that do not read) is cut up to its last complete message, as
//! [`repair`](super::repair()) keeps it, and the report says where ([`TrimReport::break_off`]).
//!
//! Left to others: what the range should be ([`resolve_range`] turns ticks and seconds into
//! one), what the messages mean (network messages and console commands are copied, not
//! interpreted: a replay of the server from the cut would need the game's state, which the
//! file does not hold), and state that no reader of this crate keeps (saves and loads,
//! PLAYER_READY, antibot records and EX records of unknown kinds before the range are not
//! carried over).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{ReadError, ReadErrorKind, WriteError};
use super::format::MAX_CLIENTS;
use super::header::Header;
use super::message::{Ex, Message, has_legacy_packer};
use super::reader::{MessageAt, TeehistorianReader};
use super::semantic::{SemanticErrorKind, World};
use super::writer::TeehistorianWriter;
use crate::codec::uuid::TEEWORLDS_NAMESPACE;
use crate::gamenet::{AnyMessage, Protocol, seven, six};
use crate::time::{RangeBound, RangeEnd, TickRange, tick_after_seconds};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Take, Write};
use uuid::Uuid;

use crate::format::BreakOff;

/// The header key that marks a cut: an object of strings, `from_tick`, `to_tick` and
/// `original_game_uuid` (see the [module docs](self)).
pub const HEADER_KEY: &str = "cut";

/// What [`trim`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TrimReport {
    /// The range asked for.
    pub range: TickRange,
    /// The ticks of the input's messages, first to last (up to a message that does not
    /// read).
    pub input_ticks: TickRange,
    /// The first tick of the output: the range's start (0 for a negative one).
    pub first_tick: i32,
    /// The last tick the output covers: the range's end, or the input's last tick if that
    /// is earlier. (Ticks without messages at the end write no bytes.)
    pub last_tick: i32,
    /// Ticks covered, `first_tick..=last_tick`.
    pub ticks: u64,
    /// Messages of the range copied as stored (the input's FINISH included, when it is in
    /// the range).
    pub messages_kept: u64,
    /// Messages of the range not copied as stored: the first tick's TICK_SKIP and player
    /// records (folded into the PLAYER_NEW records of the state) and a later TICK_SKIP
    /// written with another `dt`.
    pub messages_replaced: u64,
    /// The messages written that are not copies of the range's, by kind
    /// ([`Message::kind_name`]): the first tick's TICK_SKIP, the state's records (copies
    /// of earlier messages, PLAYER_NEW and INPUT_NEW) and any TICK_SKIP keeping the later
    /// ticks' numbers. An appended FINISH is not counted here.
    pub synthesized: BTreeMap<String, u64>,
    /// Whether FINISH was appended (it is, unless the input's own is in the range).
    pub finish_appended: bool,
    /// The output's `game_uuid`.
    pub game_uuid: String,
    /// The game the ticks are from, as the header's [`HEADER_KEY`] names it.
    pub original_game_uuid: Option<String>,
    /// Size of the input.
    pub input_len: usize,
    /// Size of the output.
    pub output_len: u64,
    /// Where the input broke off inside the range, if it did: the output holds every
    /// complete message before that offset.
    pub break_off: Option<BreakOff>,
}

impl TrimReport {
    /// How many messages were synthesized, of all kinds.
    pub fn synthesized_total(&self) -> u64 {
        self.synthesized.values().sum()
    }
}

/// Why a file cannot be cut.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrimError {
    /// `from` is after `to`.
    #[error("the range is empty: from {from} is after to {to}")]
    InvalidRange {
        /// The first tick asked for.
        from: i32,
        /// The last tick asked for.
        to: i32,
    },
    /// The file has no message at or after `from` (or `to` is negative, before any file's
    /// first tick).
    #[error(
        "the file has no tick in [{}, {}]: its messages end at tick {}",
        range.from,
        range.to,
        last_tick.map_or("(none: no message)".to_string(), |t| t.to_string())
    )]
    OutsideFile {
        /// The range asked for.
        range: TickRange,
        /// The tick of the file's last message, if it has one.
        last_tick: Option<i32>,
    },
    /// The file UUID or the JSON header cannot be read.
    #[error("the header cannot be read: {0}")]
    Header(#[source] ReadError),
    /// The file breaks off (ends inside a message, or holds bytes that do not read as one)
    /// before any message of a tick at or after `from`: the state at the cut cannot be
    /// known.
    #[error("the file does not read up to the first tick of the range: {0}")]
    Read(#[source] ReadError),
    /// A message before the first tick, or a player record of it, does not fit the state
    /// built from the messages before it.
    #[error("at byte {offset} (tick {tick}): {kind}")]
    State {
        /// Offset of the message.
        offset: u64,
        /// Its tick.
        tick: i32,
        /// What is wrong.
        kind: SemanticErrorKind,
    },
    /// The output could not be written.
    #[error("writing the cut: {0}")]
    Write(#[from] WriteError),
}

impl TrimError {
    /// The input offset the error was found at, where it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            TrimError::Header(e) | TrimError::Read(e) => Some(e.offset),
            TrimError::State { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

/// Cuts the ticks `range.from..=range.to` out of the teehistorian file `input` and writes a
/// finished file into `out`; see the [module docs](self).
///
/// The range is clamped to the file: a negative start is tick 0, an end after the file's
/// last tick is that tick. Each message is one `write_all` on `out`: wrap a file in a
/// [`BufWriter`](std::io::BufWriter). Nothing is written when the input is refused; on a
/// write error, `out` may hold part of a file.
///
/// Errors: `from > to` ([`TrimError::InvalidRange`]); no message at or after `from`, or a
/// negative `to` ([`TrimError::OutsideFile`]); a header that does not read
/// ([`TrimError::Header`]); a message before the first tick of the range that does not read
/// ([`TrimError::Read`]) or does not fit the state ([`TrimError::State`]); a failing sink.
pub fn trim<W: Write>(input: &[u8], range: TickRange, out: W) -> Result<TrimReport, TrimError> {
    trim_reader(|| Ok(input), range, out)
}

/// [`trim`] of a file read twice as a stream from its start, each time from what `open`
/// returns (a file opened again): once to find its ticks and whether it reads up to the
/// range, once to write. Memory does not grow with the file: what is kept is the header, the
/// records of each client's state and the first tick's messages. The second reading stops
/// where the first ended, so a file that grew in between is cut as it was when first read.
pub fn trim_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> std::io::Result<R>,
    range: TickRange,
    out: W,
) -> Result<TrimReport, TrimError> {
    if range.from > range.to {
        return Err(TrimError::InvalidRange {
            from: range.from,
            to: range.to,
        });
    }
    let mut open =
        || open().map_err(|e| TrimError::Header(ReadError::new(0, ReadErrorKind::Io(e))));
    let mut messages = TeehistorianReader::new(open()?).map_err(TrimError::Header)?;

    // Pass 1: the input's ticks, and whether it reads up to the range.
    let mut input_ticks: Option<TickRange> = None;
    let mut broken = None;
    while let Some(item) = messages.next() {
        match item {
            Ok(at) => {
                let first = input_ticks.map_or(at.tick, |r| r.from);
                input_ticks = Some(TickRange::new(first, at.tick));
            }
            Err(e) => broken = Some(e),
        }
    }
    let input_len = messages.position();
    let last = input_ticks.map(|r| r.to);
    let Some(input_ticks) = input_ticks.filter(|r| r.to >= range.from && range.to >= 0) else {
        return Err(match broken {
            Some(e) if range.to >= 0 => TrimError::Read(e),
            _ => TrimError::OutsideFile {
                range,
                last_tick: last,
            },
        });
    };
    let from = range.from.max(0);
    let to = range.to.min(input_ticks.to);

    // Pass 2: the state before the first tick, and the first tick's messages.
    let mut messages =
        TeehistorianReader::new(open()?.take(input_len)).map_err(TrimError::Header)?;
    let header = messages.header();
    let legacy = has_legacy_packer(&header.version, header.version_minor.as_deref());
    let (header, game_uuid, original_game_uuid) =
        cut_header(header, messages.header_json(), from, to);
    let mut before = Before::new();
    let mut first = Vec::new();
    let mut next = None;
    let mut cut_at = None;
    while let Some(item) = next_of(&mut messages, &mut broken) {
        match item {
            Ok(at) if at.tick < from => before.apply(&at)?,
            Ok(at) if at.tick == from => {
                let finish = matches!(at.message, Message::Finish);
                first.push(Stored::new(&at));
                // Bytes after FINISH are no part of any tick.
                if finish {
                    break;
                }
            }
            Ok(at) => {
                next = Some(Stored::new(&at));
                break;
            }
            Err(e) if first.is_empty() => return Err(TrimError::Read(e)),
            Err(e) => cut_at = Some(e),
        }
    }
    let first = first
        .iter()
        .map(|stored| stored.at(legacy))
        .collect::<Result<Vec<_>, _>>()?;
    let (characters, spawns) = fold_characters(&before.world, &first)?;

    let mut out = Output {
        writer: TeehistorianWriter::new(out, &header)?,
        kept: 0,
        replaced: 0,
        synthesized: BTreeMap::new(),
    };
    // The first tick: the TICK_SKIP that numbers it (from tick 0 a player record would
    // open tick 1 without it), the state, then the tick's other messages.
    if from > 0 || characters.players().next().is_some() {
        out.synthesize(&Message::TickSkip { dt: from - 1 })?;
    }
    for (_, stored) in before.records() {
        out.restate(&stored.at(legacy)?)?;
    }
    for (cid, (x, y)) in characters.players() {
        match spawns.get(cid as usize).and_then(Option::as_ref) {
            Some(at) => {
                out.keep(at)?;
            }
            None => {
                out.synthesize(&Message::PlayerNew { cid, x, y })?;
            }
        }
    }
    for (cid, input) in (0..).zip(before.world.inputs()) {
        if let Some(input) = *input {
            out.synthesize(&Message::InputNew { cid, input })?;
        }
    }
    for at in &first {
        if matches!(at.message, Message::TickSkip { .. }) {
            out.replaced += 1;
        } else if at.message.player_record_cid().is_some() {
            let copied = spawns.iter().flatten().any(|s| s.offset == at.offset);
            out.replaced += u64::from(!copied);
        } else {
            out.keep(at)?;
        }
    }

    // The later ticks, as stored, up to `to`.
    if let Some(stored) = next.filter(|stored| stored.tick <= to) {
        out.copy(&stored.at(legacy)?)?;
        while cut_at.is_none() && !out.writer.finished() {
            let at = match next_of(&mut messages, &mut broken) {
                Some(Ok(at)) => at,
                Some(Err(e)) => {
                    cut_at = Some(e);
                    break;
                }
                None => break,
            };
            if at.tick > to {
                break;
            }
            out.copy(&at)?;
        }
    }

    let finish_appended = !out.writer.finished();
    let Output {
        writer,
        kept,
        replaced,
        synthesized,
    } = out;
    let output_len = writer.position() + u64::from(finish_appended);
    writer.finish()?;
    Ok(TrimReport {
        range,
        input_ticks,
        first_tick: from,
        last_tick: to,
        ticks: (i64::from(to) - i64::from(from) + 1) as u64,
        messages_kept: kept,
        messages_replaced: replaced,
        synthesized,
        finish_appended,
        game_uuid,
        original_game_uuid,
        input_len: usize::try_from(input_len).unwrap_or(usize::MAX),
        output_len,
        break_off: cut_at.map(|e| BreakOff {
            offset: e.offset,
            truncated: e.is_truncation(),
            reason: e.kind.to_string(),
        }),
    })
}

/// The next message of the second reading, which stops where the first ended: there, the
/// error the first one met, if any.
fn next_of<'m, R: Read>(
    messages: &'m mut TeehistorianReader<Take<R>>,
    broken: &mut Option<ReadError>,
) -> Option<Result<MessageAt<'m>, ReadError>> {
    match messages.next() {
        None => broken.take().map(Err),
        item => item,
    }
}

/// A message of the input kept past the reader's next one: its place and its bytes as
/// stored (the streaming reader lends each message only until the next).
#[derive(Debug, Clone)]
struct Stored {
    offset: u64,
    tick: i32,
    raw: Box<[u8]>,
}

impl Stored {
    fn new(at: &MessageAt<'_>) -> Self {
        Stored {
            offset: at.offset,
            tick: at.tick,
            raw: at.raw.into(),
        }
    }

    /// The message again, decoded from its bytes as the reader decoded them (`legacy`: the
    /// file's writer used the old packer, [`has_legacy_packer`]).
    fn at(&self, legacy: bool) -> Result<MessageAt<'_>, TrimError> {
        let decoded = Message::decode_stored(&self.raw, legacy).ok_or(TrimError::Write(
            WriteError::Usage("a message the reader read does not decode again (a bug)"),
        ))?;
        Ok(MessageAt {
            offset: self.offset,
            tick: self.tick,
            message: decoded.message,
            raw: &self.raw,
            non_canonical: decoded.non_canonical,
            cut_args: decoded.cut_args,
        })
    }
}

/// The characters after the first tick: the state's, with the tick's player records
/// applied; and, by client id, the record to copy as stored: a PLAYER_NEW of a client
/// without a character before, its only player record in the tick.
#[allow(clippy::type_complexity)]
fn fold_characters<'a>(
    before: &World,
    first: &[MessageAt<'a>],
) -> Result<(World, [Option<MessageAt<'a>>; MAX_CLIENTS as usize]), TrimError> {
    let mut world = before.clone();
    let mut records = [0u32; MAX_CLIENTS as usize];
    let mut spawns = [const { None }; MAX_CLIENTS as usize];
    for at in first {
        let Some(cid) = at.message.player_record_cid() else {
            continue;
        };
        world.apply(&at.message).map_err(|kind| TrimError::State {
            offset: at.offset,
            tick: at.tick,
            kind,
        })?;
        // The reader numbers player records only for client ids in 0..128.
        if let (Some(count), Some(spawn)) =
            (records.get_mut(cid as usize), spawns.get_mut(cid as usize))
        {
            *count += 1;
            *spawn = (*count == 1
                && before.position(cid).is_none()
                && matches!(at.message, Message::PlayerNew { .. }))
            .then_some(*at);
        }
    }
    Ok((world, spawns))
}

/// The output header: the input's with a fresh `game_uuid` and the [`HEADER_KEY`]; with the
/// new game UUID and the original one.
fn cut_header(
    header: &Header,
    header_json: &[u8],
    from: i32,
    to: i32,
) -> (Header, String, Option<String>) {
    let mut header = header.clone();
    // A cut of a cut names the game of the first.
    let original = header
        .extra
        .iter()
        .find(|(k, _)| k == HEADER_KEY)
        .and_then(|(_, v)| v.get("original_game_uuid")?.as_str())
        .map(str::to_owned)
        .or_else(|| header.game_uuid.clone());
    let mut name = b"teehistorian-cut@demokit\0".to_vec();
    name.extend_from_slice(header_json);
    name.extend_from_slice(format!("\0{from}\0{to}").as_bytes());
    let game_uuid = Uuid::new_v3(&TEEWORLDS_NAMESPACE, &name)
        .hyphenated()
        .to_string();
    header.game_uuid = Some(game_uuid.clone());
    // A stored `game_uuid` that was not a string is kept among the extras: it goes, or the
    // key would be written twice.
    header
        .extra
        .retain(|(k, _)| k != HEADER_KEY && k != "game_uuid");
    // Inserted in alphabetical order, so that the text is the same whether serde_json keeps
    // insertion order or sorts.
    let mut marker = serde_json::Map::new();
    marker.insert("from_tick".into(), Value::String(from.to_string()));
    if let Some(original) = &original {
        marker.insert("original_game_uuid".into(), Value::String(original.clone()));
    }
    marker.insert("to_tick".into(), Value::String(to.to_string()));
    header
        .extra
        .push((HEADER_KEY.to_owned(), Value::Object(marker)));
    (header, game_uuid, original)
}

/// A message of the input and its place among the messages before the range.
type Record = (u64, Stored);

/// The records of one client id's state, as [`Before`] keeps them.
#[derive(Debug, Clone, Default)]
struct Client {
    /// The JOIN of the current connection.
    join: Option<Record>,
    /// The JOINVER6/JOINVER7 that the current JOIN followed.
    join_version: Option<Record>,
    /// A JOINVER6/JOINVER7 announcing the next JOIN.
    next_join_version: Option<Record>,
    /// Whether that was a JOINVER7.
    next_sixup: bool,
    /// Whether the current connection is a 0.7 client (its messages are unpacked so).
    sixup: bool,
    /// The connection's last `Cl_StartInfo`/`Cl_ChangeInfo` message.
    info: Option<Record>,
    /// The connection's last PLAYER_NAME.
    name: Option<Record>,
    /// The connection's last DDNETVER or DDNETVER_OLD.
    ddnet_version: Option<Record>,
    /// The connection's last AUTH_INIT or AUTH_LOGIN, unless AUTH_LOGOUT followed.
    auth: Option<Record>,
    /// The client id's last PLAYER_TEAM and its team.
    team: Option<(Record, i32)>,
}

/// The state before the range: the semantic layer's [`World`] and the records the
/// [game layer](super::game) and DDNet's writer build their state from.
struct Before {
    world: World,
    clients: Vec<Client>,
    /// Each team's last TEAM_PRACTICE and whether it turned practice on.
    practice: BTreeMap<i32, (Record, bool)>,
    /// Messages seen.
    seen: u64,
}

/// Whether a client's network message sets its name, clan, country and skin in the game
/// layer ([`GameEvents`](super::game::GameEvents) reads these).
fn sets_player_info(protocol: Protocol, data: &[u8]) -> bool {
    matches!(
        protocol.unpack_message(data).message,
        AnyMessage::Six(six::Message::ClStartInfo(_) | six::Message::ClChangeInfo(_))
            | AnyMessage::Seven(seven::Message::ClStartInfo(_))
    )
}

impl Before {
    fn new() -> Self {
        Before {
            world: World::new(),
            clients: vec![Client::default(); MAX_CLIENTS as usize],
            practice: BTreeMap::new(),
            seen: 0,
        }
    }

    fn client(&mut self, cid: i32) -> Option<&mut Client> {
        self.clients.get_mut(usize::try_from(cid).ok()?)
    }

    /// Takes in a message before the range.
    fn apply(&mut self, at: &MessageAt<'_>) -> Result<(), TrimError> {
        self.world
            .apply(&at.message)
            .map_err(|kind| TrimError::State {
                offset: at.offset,
                tick: at.tick,
                kind,
            })?;
        let seen = self.seen;
        self.seen += 1;
        // Only the few records that make up a client's state are copied.
        let record = || (seen, Stored::new(at));
        match at.message {
            Message::Join { cid } => {
                if let Some(c) = self.client(cid) {
                    // The game layer starts the player afresh, with the protocol announced.
                    c.join = Some(record());
                    c.join_version = c.next_join_version.take();
                    c.sixup = c.join_version.is_some() && c.next_sixup;
                    c.info = None;
                    c.name = None;
                }
            }
            Message::Drop { cid, .. } => {
                if let Some(c) = self.client(cid) {
                    *c = Client {
                        next_join_version: c.next_join_version.take(),
                        next_sixup: c.next_sixup,
                        team: c.team.take(),
                        ..Client::default()
                    };
                }
            }
            Message::NetMessage { cid, data } => {
                if let Some(c) = self.client(cid) {
                    let protocol = if c.sixup {
                        Protocol::Seven
                    } else {
                        Protocol::Six
                    };
                    if c.join.is_some() && sets_player_info(protocol, data) {
                        c.info = Some(record());
                    }
                }
            }
            Message::Ex(ex) => match ex {
                Ex::JoinVer6 { cid } | Ex::JoinVer7 { cid } => {
                    if let Some(c) = self.client(cid) {
                        c.next_join_version = Some(record());
                        c.next_sixup = matches!(ex, Ex::JoinVer7 { .. });
                    }
                }
                Ex::PlayerName { cid, .. } => {
                    if let Some(c) = self.client(cid)
                        && c.join.is_some()
                    {
                        c.name = Some(record());
                    }
                }
                Ex::DdnetVersion { cid, .. } | Ex::DdnetVersionOld { cid, .. } => {
                    if let Some(c) = self.client(cid) {
                        c.ddnet_version = Some(record());
                    }
                }
                Ex::AuthInit { cid, .. }
                | Ex::AuthInitRole { cid, .. }
                | Ex::AuthLogin { cid, .. } => {
                    if let Some(c) = self.client(cid) {
                        c.auth = Some(record());
                    }
                }
                Ex::AuthLogout { cid } => {
                    if let Some(c) = self.client(cid) {
                        c.auth = None;
                    }
                }
                Ex::PlayerTeam { cid, team } => {
                    if let Some(c) = self.client(cid) {
                        c.team = Some((record(), team));
                    }
                }
                Ex::TeamPractice { team, practice } => {
                    self.practice.insert(team, (record(), practice != 0));
                }
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// The records to carry over, in the input's order.
    fn records(&self) -> Vec<&Record> {
        let mut records: Vec<&Record> = Vec::new();
        for c in &self.clients {
            let team = c
                .team
                .as_ref()
                .filter(|(_, team)| *team != 0)
                .map(|(r, _)| r);
            records.extend(
                [
                    c.join.as_ref(),
                    c.join_version.as_ref(),
                    c.next_join_version.as_ref(),
                    c.info.as_ref(),
                    c.name.as_ref(),
                    c.ddnet_version.as_ref(),
                    c.auth.as_ref(),
                    team,
                ]
                .into_iter()
                .flatten(),
            );
        }
        records.extend(
            self.practice
                .values()
                .filter(|(_, on)| *on)
                .map(|(record, _)| record),
        );
        records.sort_unstable_by_key(|(seen, _)| *seen);
        records
    }
}

/// The output being written, and what went into it.
struct Output<W: Write> {
    writer: TeehistorianWriter<W>,
    kept: u64,
    replaced: u64,
    synthesized: BTreeMap<String, u64>,
}

impl<W: Write> Output<W> {
    fn count(&mut self, message: &Message<'_>) {
        *self
            .synthesized
            .entry(message.kind_name().into_owned())
            .or_default() += 1;
    }

    /// Writes a message of the output's own.
    fn synthesize(&mut self, message: &Message<'_>) -> Result<i32, TrimError> {
        let tick = self.writer.write(message)?;
        self.count(message);
        Ok(tick)
    }

    /// Writes a message from before the range again, as stored.
    fn restate(&mut self, at: &MessageAt<'_>) -> Result<(), TrimError> {
        self.writer.write_item(at)?;
        self.count(&at.message);
        Ok(())
    }

    /// Copies a message of the range, as stored.
    fn keep(&mut self, at: &MessageAt<'_>) -> Result<i32, TrimError> {
        let tick = self.writer.write_item(at)?;
        self.kept += 1;
        Ok(tick)
    }

    /// Copies a message after the first tick, with a TICK_SKIP before it (or in its place,
    /// for a TICK_SKIP) where the reader would otherwise number it differently from the
    /// input.
    fn copy(&mut self, at: &MessageAt<'_>) -> Result<(), TrimError> {
        let before = self.writer.tick_state();
        let mut probe = before;
        if probe.apply(&at.message) != Ok(at.tick) {
            // Only the first message after the first tick can need this: from there on the
            // output's tick state is the input's. The output's tick is not beyond the
            // input's (the first tick is `from`, before `at.tick`), so `dt >= -1`.
            let dt = i64::from(at.tick) - i64::from(before.tick()) - 1;
            let dt = i32::try_from(dt).map_err(|_| {
                WriteError::Usage("a cut's ticks ran ahead of its input's (a bug in the cut)")
            })?;
            self.synthesize(&Message::TickSkip { dt })?;
            if matches!(at.message, Message::TickSkip { .. }) {
                self.replaced += 1;
                return Ok(());
            }
        }
        let tick = self.keep(at)?;
        debug_assert_eq!(tick, at.tick, "a copied message keeps its tick");
        Ok(())
    }
}

/// Why [`resolve_range`] cannot turn bounds into a [`TickRange`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RangeError {
    /// The range resolves to a first tick after its last one.
    #[error("the range is empty: it starts at tick {from}, after its end at tick {to}")]
    Empty {
        /// The first tick.
        from: i32,
        /// The last tick.
        to: i32,
    },
    /// A timeline marker: teehistorian files have none.
    #[error(
        "m{marker}: teehistorian files have no timeline markers (give a tick, e.g. 1500, or \
         seconds from the start, e.g. 30s)"
    )]
    Marker {
        /// The marker asked for (from 1).
        marker: usize,
    },
    /// The header does not read.
    #[error("{0}")]
    Read(#[source] ReadError),
}

/// The ticks the bounds name in the teehistorian file `data`, for [`trim`].
///
/// A [`RangeBound::Tick`] is that tick. A [`RangeBound::Seconds`] counts from tick 0, the
/// start of the game (the header's `start_time`), at 50 ticks a second: a start rounds up
/// to the next whole tick, an end down, so the range holds no tick outside the times
/// given. Without a start the range starts at tick 0; without an end it ends at the tick of
/// the file's last message that reads (0 if none does). A [`RangeBound::Marker`] is refused:
/// teehistorian files have no timeline markers.
///
/// Errors: a marker ([`RangeError::Marker`]), a start after the end
/// ([`RangeError::Empty`]), a header that does not read ([`RangeError::Read`]).
pub fn resolve_range(
    data: &[u8],
    from: Option<RangeBound>,
    to: Option<RangeBound>,
) -> Result<TickRange, RangeError> {
    resolve_range_reader(data, from, to)
}

/// [`resolve_range`] of a file read as a stream: without an end, it is read to its last
/// message; otherwise only its header is.
pub fn resolve_range_reader<R: Read>(
    input: R,
    from: Option<RangeBound>,
    to: Option<RangeBound>,
) -> Result<TickRange, RangeError> {
    let mut messages = TeehistorianReader::new(input).map_err(RangeError::Read)?;
    let mut resolve = |bound: Option<RangeBound>, is_from: bool| match bound {
        Some(RangeBound::Tick(tick)) => Ok(tick),
        Some(RangeBound::Marker(marker)) => Err(RangeError::Marker { marker }),
        Some(RangeBound::Seconds(seconds)) => {
            let end = if is_from {
                RangeEnd::Start
            } else {
                RangeEnd::End
            };
            Ok(tick_after_seconds(0, seconds, end))
        }
        None if is_from => Ok(0),
        None => {
            let mut last = 0;
            while let Some(Ok(at)) = messages.next() {
                last = at.tick;
            }
            Ok(last)
        }
    };
    let (from, to) = (resolve(from, true)?, resolve(to, false)?);
    if from > to {
        return Err(RangeError::Empty { from, to });
    }
    Ok(TickRange::new(from, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teehistorian::{Events, TeehistorianSlice};

    /// The body of the conformance reference file (DDNet's own writer) behind a header with
    /// a game UUID.
    fn reference() -> Vec<u8> {
        crate::teehistorian::semantic::reference_file(br#"{"version":"2","game_uuid":"a-b"}"#)
    }

    fn messages(data: &[u8]) -> Vec<(i32, String)> {
        let file = TeehistorianSlice::parse(data).unwrap();
        file.messages()
            .map(|m| {
                let m = m.unwrap();
                (m.tick, format!("{:?}", m.message))
            })
            .collect()
    }

    #[test]
    fn a_cut_at_tick_2_of_the_reference() {
        let data = reference();
        let mut out = Vec::new();
        let report = trim(&data, TickRange::new(2, 10), &mut out).unwrap();
        let got = messages(&out);
        let want: Vec<(i32, String)> = [
            (2, "TickSkip { dt: 1 }"),
            (2, "Ex(JoinVer6 { cid: 0 })"),
            (2, "Join { cid: 0 }"),
            (2, "Ex(PlayerName { cid: 0, name: \"nameless tee\" })"),
            (2, "PlayerNew { cid: 0, x: 103, y: 200 }"),
            (
                2,
                "InputNew { cid: 0, input: [1, 10, -20, 0, 0, 0, 0, 0, 0, 0] }",
            ),
            (
                2,
                "InputDiff { cid: 0, diff: [-1, 0, 0, 1, 0, 0, 0, 0, 0, 0] }",
            ),
            (10, "TickSkip { dt: 7 }"),
            (10, "PlayerOld { cid: 0 }"),
            (10, "Finish"),
        ]
        .into_iter()
        .map(|(t, m)| (t, m.to_owned()))
        .collect();
        assert_eq!(got, want);
        assert_eq!(
            (report.first_tick, report.last_tick, report.ticks),
            (2, 10, 9)
        );
        assert_eq!(report.input_ticks, TickRange::new(0, 11));
        // Kept: INPUT_DIFF, TICK_SKIP 7, PLAYER_OLD; replaced: the PLAYER_DIFF.
        assert_eq!((report.messages_kept, report.messages_replaced), (3, 1));
        assert_eq!(report.synthesized_total(), 6);
        assert_eq!(report.synthesized["EX:teehistorian-joinver6@ddnet.tw"], 1);
        assert!(report.finish_appended && report.break_off.is_none());

        let file = TeehistorianSlice::parse(&out).unwrap();
        let marker = &file
            .header()
            .extra
            .iter()
            .find(|(k, _)| k == HEADER_KEY)
            .unwrap()
            .1;
        assert_eq!(
            marker.to_string(),
            r#"{"from_tick":"2","original_game_uuid":"a-b","to_tick":"10"}"#
        );
        assert_eq!(file.header().game_uuid.as_deref(), Some(&*report.game_uuid));
        assert_ne!(report.game_uuid, "a-b");

        // The same cut again is the same file; a cut of the cut names the first game.
        let mut again = Vec::new();
        trim(&data, TickRange::new(2, 10), &mut again).unwrap();
        assert_eq!(again, out);
        let mut twice = Vec::new();
        let report = trim(&out, TickRange::new(10, 10), &mut twice).unwrap();
        assert_eq!(report.original_game_uuid.as_deref(), Some("a-b"));
        let mut events = Events::new(TeehistorianSlice::parse(&twice).unwrap().messages());
        assert_eq!(events.next_tick().unwrap().unwrap(), 10);
        assert!(events.world().is_connected(0));
        assert_eq!(events.world().position(0), None);
    }

    #[test]
    fn the_whole_file_from_tick_0_is_the_body_unchanged() {
        let data = reference();
        let mut out = Vec::new();
        let report = trim(&data, TickRange::new(-5, i32::MAX), &mut out).unwrap();
        let body = TeehistorianSlice::parse(&data).unwrap().body_offset();
        let out_body = TeehistorianSlice::parse(&out).unwrap().body_offset();
        assert_eq!(out[out_body..], data[body..]);
        assert_eq!(report.synthesized_total(), 0);
        assert!(!report.finish_appended);
        assert_eq!((report.first_tick, report.last_tick), (0, 11));
    }

    #[test]
    fn refusals() {
        let data = reference();
        let refuse = |from, to| trim(&data, TickRange::new(from, to), Vec::new()).unwrap_err();
        assert!(matches!(
            refuse(5, 4),
            TrimError::InvalidRange { from: 5, to: 4 }
        ));
        assert!(matches!(
            refuse(12, 20),
            TrimError::OutsideFile {
                last_tick: Some(11),
                ..
            }
        ));
        assert!(matches!(refuse(-5, -1), TrimError::OutsideFile { .. }));
        // Cut inside the PLAYER_DIFF of tick 2: the state at tick 10 cannot be known.
        let body = TeehistorianSlice::parse(&data).unwrap().body_offset();
        let broken = &data[..body + 72];
        let e = trim(broken, TickRange::new(10, 11), Vec::new()).unwrap_err();
        assert!(matches!(&e, TrimError::Read(r) if r.is_truncation()), "{e}");
        assert_eq!(e.offset(), Some(body as u64 + 71));
        // From tick 1 on, the same file is cut up to its break.
        let mut out = Vec::new();
        let report = trim(broken, TickRange::new(1, 11), &mut out).unwrap();
        assert_eq!(report.break_off.unwrap().offset, body as u64 + 71);
        assert!(report.finish_appended);
        assert_eq!(messages(&out).last().unwrap(), &(1, "Finish".to_owned()));
        assert!(matches!(
            trim(&data[..20], TickRange::new(0, 1), Vec::new()),
            Err(TrimError::Header(_))
        ));
    }

    #[test]
    fn bounds_resolve_to_ticks() {
        let data = reference();
        let r = |from, to| resolve_range(&data, from, to);
        assert_eq!(r(None, None).unwrap(), TickRange::new(0, 11));
        assert_eq!(
            r(
                Some(RangeBound::Seconds(0.1)),
                Some(RangeBound::Seconds(0.19))
            )
            .unwrap(),
            TickRange::new(5, 9)
        );
        assert_eq!(
            r(Some(RangeBound::Tick(3)), None).unwrap(),
            TickRange::new(3, 11)
        );
        assert!(matches!(
            r(Some(RangeBound::Marker(1)), None),
            Err(RangeError::Marker { marker: 1 })
        ));
        assert!(matches!(
            r(Some(RangeBound::Tick(12)), None),
            Err(RangeError::Empty { from: 12, to: 11 })
        ));
    }
}
