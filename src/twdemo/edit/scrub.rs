//! Scrubbing a Teeworlds/DDNet demo before it is shared: player names and clans become
//! pseudonyms, chat is taken out, everything else is kept byte for byte.
//!
//! [`scrub`] takes the [`ScrubOptions`] of every format's scrub and makes the same
//! pseudonyms (`player-<8 hex>`/`clan-<6 hex>` from HMAC-SHA256 with the key, else numbered
//! per file in order of appearance; see [`crate::scrub`](mod@crate::scrub)), so that a
//! player scrubbed with one key has the same pseudonym in a demo and in a teehistorian file.
//!
//! * **Names** ([`ScrubOptions::names`]): a demo carries names in snapshot items, the
//!   0.6/DDNet `ClientInfo` item (type 11) and the 0.7 `De_ClientInfo` item (type 13), and
//!   in 0.7 demos in `Sv_ClientInfo` messages. Their name and clan become pseudonyms; skins
//!   and every other field keep their ints. A snapshot chunk (keyframe) holding such an item
//!   is re-encoded with the edited items; a delta chunk that updates one is re-encoded with
//!   those updates taken against the *edited* previous snapshot (other updates, deletions,
//!   counts and trailing ints unchanged), so the player rebuilds the edited snapshot at
//!   every tick. Deltas that do not touch a `ClientInfo` item stay byte for byte: the items
//!   they change are the same in both snapshots. Names are replaced inside the text of
//!   `Sv_Chat`, `Sv_Broadcast`, `Sv_Motd` (when kept), `Sv_VoteSet` (description and reason),
//!   `Sv_VoteOptionAdd` and `Sv_VoteOptionRemove`, as the teehistorian scrub replaces them
//!   in free text (a name of one or two bytes only where it is the whole text). Any other
//!   message whose bytes still hold a name of three bytes or more (0.6's
//!   `Sv_VoteOptionListAdd`, an unknown message) is dropped: its fields are not known well
//!   enough to rewrite. `Sv_KillMsg` holds client ids only and stays.
//! * **Chat** ([`ScrubOptions::chat`]): `Sv_Chat` message chunks are dropped: all of them;
//!   with [`ChatFilter::Team`](crate::scrub::ChatFilter::Team) 0.6 chat with `team` 1 and
//!   0.7 chat in mode 2 (team); with
//!   [`ChatFilter::Whispers`](crate::scrub::ChatFilter::Whispers) DDNet's whispers (0.6
//!   `team` 2 and 3, `TEAM_WHISPER_SEND` and `TEAM_WHISPER_RECV`) and 0.7 whispers (mode 3,
//!   and DDNet's 0.7 whisper modes 6 and 7).
//!   Tick markers stay, so the timeline is unchanged.
//! * **Server** ([`ScrubOptions::server`]): the one place a demo carries the server's own
//!   words, `Sv_Motd` (the message of the day, which often names the server, its owner and
//!   where to reach them), is dropped. The header names no server.
//! * [`ScrubOptions::credentials`], [`drop_reasons`](ScrubOptions::drop_reasons) and
//!   [`clear_header`](ScrubOptions::clear_header) mean nothing for a demo (it holds no
//!   console commands, drop reasons or JSON header) and are refused with
//!   [`ScrubError::Options`].
//!
//! Re-encoded chunks keep their kind and the Huffman length rule the input uses (the
//! chunk's own when its stored length tells, else the first chunk's that tells, else
//! DDNet's for the version); their size is written in the shortest form, as DDNet writes
//! it. The header, the timeline markers, the map and its SHA-256 are kept. A name that
//! already has the shape of a pseudonym is left alone, so scrubbing the output again gives
//! the same bytes.
//!
//! A demo whose chunks do not all read and decode is refused ([`ScrubError::Read`],
//! [`ScrubError::Payload`]): what follows a break could hold anything, so `demokit repair`
//! should make it whole first. Snapshots and deltas the player skips (invalid, or a delta
//! that does not apply) are copied as stored.
//!
//! Left to others: names in the embedded map, in the header (map name) and in snapshot
//! items other than the ones named above are not searched; a name the demo never carries in
//! a `ClientInfo` item or `Sv_ClientInfo` message is not known to be one; a snapshot chunk
//! the player skips as invalid, or a delta that does not apply, is copied as stored and
//! keeps whatever names it holds (the player never shows them).

use crate::codec::huffman::LengthRule;
use crate::gamenet::wire::IntString;
use crate::gamenet::{AnyMessage, Protocol, seven, six};
use crate::scrub::{Mapping, NameKind, Names, ScrubOptions, split_strings};
use crate::twdemo::container::error::{PayloadError, ReadError, WriteError};
use crate::twdemo::container::format::{ChunkKind, SizeForm};
use crate::twdemo::container::payload::{PayloadDecoder, PayloadEncoder};
use crate::twdemo::container::reader::{Chunk, ChunkSource, DemoReader, Prelude};
use crate::twdemo::container::writer::DemoWriter;
use crate::twdemo::snapshot::Snapshot;
use crate::twdemo::snapshot::delta::{Delta, ItemSizes};
use crate::twdemo::snapshot::replay::{SnapshotOrder, SnapshotState};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, Read, Write};

use super::stream::open_failed;

/// The 0.6/DDNet `ClientInfo` item type: name in ints 0..4, clan in 4..7.
const CLIENT_INFO_SIX: i32 = 11;
/// The 0.7 `De_ClientInfo` item type: name in ints 2..6, clan in 6..9.
const CLIENT_INFO_SEVEN: i32 = 13;

/// What [`scrub`] changed. Scrubbing its output again with the same options reports no
/// change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ScrubReport {
    /// Size of the input.
    pub input_len: usize,
    /// Size of the output.
    pub output_len: usize,
    /// Chunks read, tick markers included.
    pub chunks: u64,
    /// Chunks copied as stored.
    pub chunks_kept: u64,
    /// Snapshot chunks (keyframes) re-encoded with edited `ClientInfo` items.
    pub snapshots_rewritten: u64,
    /// Delta chunks re-encoded against the edited previous snapshot.
    pub deltas_rewritten: u64,
    /// Message chunks re-encoded (names replaced).
    pub messages_rewritten: u64,
    /// Names replaced: in `ClientInfo` items (counted per chunk that stores one) and
    /// `Sv_ClientInfo` messages.
    pub names_rewritten: u64,
    /// Clans replaced, counted as names are.
    pub clans_rewritten: u64,
    /// Message texts in which names were replaced.
    pub texts_rewritten: u64,
    /// Message chunks dropped, by message name (`Sv_Chat`, ...).
    pub dropped: BTreeMap<String, u64>,
    /// The pseudonyms given: what undoes the scrub. A report is serialized with their
    /// number only (as `pseudonyms`), so that printing or logging it gives no name away;
    /// the mapping goes only where its caller sends it (the tool's `--mapping` file).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "pseudonyms", serialize_with = "Mapping::serialize_count")
    )]
    pub mapping: Mapping,
}

impl ScrubReport {
    /// Message chunks dropped, of all kinds.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.values().sum()
    }

    /// Whether the output differs from the input.
    pub fn changed(&self) -> bool {
        self.snapshots_rewritten
            + self.deltas_rewritten
            + self.messages_rewritten
            + self.dropped_total()
            > 0
    }
}

/// Why a demo cannot be scrubbed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScrubError {
    /// The options ask for something a demo does not have (credentials, drop reasons,
    /// header keys).
    #[error("{0}")]
    Options(String),
    /// The demo does not read to its end: nothing is written (`demokit repair` keeps every
    /// complete chunk).
    #[error("{0}; nothing was written (a repair keeps every complete chunk)")]
    Read(#[source] ReadError),
    /// A chunk's payload does not decode.
    #[error("at byte {offset}: chunk payload: {error}; nothing was written")]
    Payload {
        /// Offset of the chunk.
        offset: u64,
        /// What went wrong.
        error: PayloadError,
    },
    /// Writing failed (a chunk that does not encode); the offset is the input chunk's.
    #[error("at byte {offset}: {source}")]
    Write {
        /// Offset of the input chunk being written (0 for the prelude).
        offset: u64,
        /// What went wrong.
        #[source]
        source: WriteError,
    },
}

impl ScrubError {
    /// The byte offset of the input the error is about, if there is one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            ScrubError::Options(_) => None,
            ScrubError::Read(e) => Some(e.offset),
            ScrubError::Payload { offset, .. } | ScrubError::Write { offset, .. } => Some(*offset),
        }
    }
}

/// The protocol of a demo, from its network version.
fn protocol_of(prelude: &Prelude) -> Protocol {
    if prelude.header.net_version.text_bytes().starts_with(b"0.7") {
        Protocol::Seven
    } else {
        Protocol::Six
    }
}

/// Where a protocol's client-info item keeps its name and clan: (type, name start, clan
/// start); the name is 4 ints, the clan 3.
fn info_layout(protocol: Protocol) -> (i32, usize, usize) {
    match protocol {
        Protocol::Seven => (CLIENT_INFO_SEVEN, 2, 6),
        _ => (CLIENT_INFO_SIX, 0, 4),
    }
}

/// The name and clan bytes of a client-info item's data, if it is long enough.
fn info_strings(data: &[i32], name_at: usize, clan_at: usize) -> Option<(Vec<u8>, Vec<u8>)> {
    let name: [i32; 4] = data.get(name_at..name_at + 4)?.try_into().ok()?;
    let clan: [i32; 3] = data.get(clan_at..clan_at + 3)?.try_into().ok()?;
    Some((IntString(name).text_bytes(), IntString(clan).text_bytes()))
}

/// Message bytes as a demo chunk stores them: little-endian ints.
fn message_bytes(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// Bytes padded with zeros to whole ints, as DDNet's recorder stores a message.
fn message_ints(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            for (to, &from) in w.iter_mut().zip(c) {
                *to = from;
            }
            i32::from_le_bytes(w)
        })
        .collect()
}

/// How a message is scrubbed.
enum Shape {
    /// `Sv_Chat`: `ints` ints, then the text; team chat, whisper.
    Chat {
        ints: usize,
        team: bool,
        whisper: bool,
    },
    /// Free text: `ints` ints, then `strings` texts.
    Text { ints: usize, strings: usize },
    /// `Sv_Motd`: the server's message of the day, one text; it goes with
    /// [`ScrubOptions::server`].
    Motd,
    /// 0.7 `Sv_ClientInfo`: 3 ints, then name and clan.
    Info,
    /// Anything else.
    Other,
}

fn shape(message: &AnyMessage<'_>) -> Shape {
    match message {
        AnyMessage::Six(six::Message::SvChat(m)) => Shape::Chat {
            ints: 2,
            team: m.team == 1,
            whisper: matches!(m.team, 2 | 3),
        },
        AnyMessage::Seven(seven::Message::SvChat(m)) => Shape::Chat {
            ints: 3,
            team: m.mode == 2,
            whisper: matches!(m.mode, 3 | 6 | 7),
        },
        AnyMessage::Six(six::Message::SvMotd(_)) | AnyMessage::Seven(seven::Message::SvMotd(_)) => {
            Shape::Motd
        }
        AnyMessage::Six(six::Message::SvBroadcast(_))
        | AnyMessage::Seven(seven::Message::SvBroadcast(_)) => Shape::Text {
            ints: 0,
            strings: 1,
        },
        AnyMessage::Six(six::Message::SvVoteSet(_)) => Shape::Text {
            ints: 1,
            strings: 2,
        },
        AnyMessage::Seven(seven::Message::SvVoteSet(_)) => Shape::Text {
            ints: 3,
            strings: 2,
        },
        AnyMessage::Six(six::Message::SvVoteOptionAdd(_) | six::Message::SvVoteOptionRemove(_))
        | AnyMessage::Seven(
            seven::Message::SvVoteOptionAdd(_) | seven::Message::SvVoteOptionRemove(_),
        ) => Shape::Text {
            ints: 0,
            strings: 1,
        },
        AnyMessage::Seven(seven::Message::SvClientInfo(_)) => Shape::Info,
        _ => Shape::Other,
    }
}

/// `head`, the strings each with its NUL, `tail`.
fn join(head: &[u8], strings: &[&[u8]], tail: &[u8]) -> Vec<u8> {
    let mut out = head.to_vec();
    for s in strings {
        out.extend_from_slice(s);
        out.push(0);
    }
    out.extend_from_slice(tail);
    out
}

/// Writes `input` with what `options` asks for taken out (see the [module docs](self)) to
/// `out`, and says what changed.
///
/// The whole input is read and decoded before a byte is written.
///
/// The scrubbed demo is written to `out` whole once it is complete: nothing is written
/// when the input does not read to its end, nor when a chunk cannot be written.
pub fn scrub<W: Write>(
    input: &[u8],
    options: &ScrubOptions,
    mut out: W,
) -> Result<ScrubReport, ScrubError> {
    let mut bytes = Vec::with_capacity(input.len());
    let report = scrub_reader(|| Ok(input), options, &mut bytes)?;
    out.write_all(&bytes).map_err(|e| ScrubError::Write {
        offset: 0,
        source: WriteError::Io(e),
    })?;
    Ok(report)
}

/// [`scrub`] of a demo read twice as a stream from its start, each time from what `open`
/// returns (a file opened again): once to check that every chunk reads and decodes and to
/// find the names, once to write into `out` as it goes. Memory does not grow with the demo
/// (the embedded map, a snapshot or two and the names are held). Nothing is written when
/// the first reading finds a problem; a chunk that cannot be written is an error with part
/// of the demo written. The second reading stops where the first ended, so a demo that grew
/// in between is scrubbed as it was when first read (a name only in the part added would
/// not be known to be one).
pub fn scrub_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> io::Result<R>,
    options: &ScrubOptions,
    out: W,
) -> Result<ScrubReport, ScrubError> {
    if options.credentials {
        return Err(ScrubError::Options(
            "a demo holds no credentials (console commands or accounts) to scrub".into(),
        ));
    }
    if options.drop_reasons {
        return Err(ScrubError::Options(
            "a demo holds no drop reasons to scrub".into(),
        ));
    }
    if !options.clear_header.is_empty() {
        return Err(ScrubError::Options(
            "a demo has no JSON header: there are no header keys to clear".into(),
        ));
    }
    let opened = |e| ScrubError::Read(open_failed(e));
    let mut chunks = DemoReader::new(open().map_err(opened)?).map_err(ScrubError::Read)?;
    let prelude = *chunks.prelude();
    let protocol = protocol_of(&prelude);
    let (info_type, name_at, clan_at) = info_layout(protocol);
    let sizes = ItemSizes::for_net_version(&prelude.header.net_version.to_string_lossy());
    let order = SnapshotOrder::for_prelude(&prelude);

    // Pass 1: every chunk reads and decodes; the names in order of appearance (each once:
    // a name is found again at every snapshot, and only its first appearance counts); the
    // rule.
    let mut found = Found::default();
    let mut file_rule = None;
    let mut decoder = PayloadDecoder::new();
    let mut state = SnapshotState::new(sizes, order);
    while let Some(item) = chunks.next_chunk() {
        let item = item.map_err(ScrubError::Read)?;
        let Chunk::Data(chunk) = item.chunk else {
            continue;
        };
        let decoded = decoder
            .decode(chunk.payload)
            .map_err(|error| ScrubError::Payload {
                offset: item.offset,
                error,
            })?;
        if file_rule.is_none() && !decoded.rules_agree() {
            file_rule = decoded.length_rule(chunk.payload.len());
        }
        let ints = decoder.last_ints();
        match chunk.kind {
            ChunkKind::Snapshot => state.keyframe(ints),
            ChunkKind::SnapshotDelta => {
                let _ = state.delta(ints);
            }
            ChunkKind::Message if options.names.is_some() => {
                let bytes = message_bytes(ints);
                let unpacked = protocol.unpack_message(&bytes);
                if let Shape::Info = shape(&unpacked.message) {
                    let end = bytes.len() - unpacked.trailing.0.len();
                    // The trailing bytes are the end of `bytes`.
                    let body = bytes.get(..end).unwrap_or(&bytes);
                    if let Some((_, s, _)) = split_strings(body, 3, 2)
                        && let [name, clan] = *s
                    {
                        found.push(NameKind::Name, name);
                        found.push(NameKind::Clan, clan);
                    }
                }
                continue;
            }
            _ => continue,
        }
        if options.names.is_some()
            && let Some(current) = &state.current
        {
            for it in current.as_snapshot().items() {
                if it.type_id == info_type
                    && let Some((name, clan)) = info_strings(it.data, name_at, clan_at)
                {
                    found.push(NameKind::Name, &name);
                    found.push(NameKind::Clan, &clan);
                }
            }
        }
    }
    // Every chunk read: this is the end of the demo.
    let input_len = chunks.position();
    drop(chunks);
    let names = match &options.names {
        Some(p) => Names::build(&found.in_order, p.key.as_deref()),
        None => Names::default(),
    };
    let rule = file_rule.unwrap_or(if prelude.version() >= 6 {
        LengthRule::Tight
    } else {
        LengthRule::TrailingByte
    });

    // Pass 2: write.
    let mut report = ScrubReport {
        input_len: input_len as usize,
        mapping: names.mapping.clone(),
        ..ScrubReport::default()
    };
    let again = open().map_err(opened)?.take(input_len);
    let mut chunks = DemoReader::new(again).map_err(ScrubError::Read)?;
    let mut w = DemoWriter::new(out, &prelude, chunks.map())
        .map_err(|source| ScrubError::Write { offset: 0, source })?;
    let mut s = Scrubber {
        options,
        names: &names,
        protocol,
        info_type,
        name_at,
        clan_at,
        input: SnapshotState::new(sizes, order),
        output: SnapshotState::new(sizes, order),
        sizes,
        report: &mut report,
    };
    let mut encoder = PayloadEncoder::new();
    while let Some(item) = chunks.next_chunk() {
        let item = item.map_err(ScrubError::Read)?;
        s.report.chunks += 1;
        let offset = item.offset;
        let werr = |source| ScrubError::Write { offset, source };
        let chunk = match item.chunk {
            Chunk::Tick(marker) => {
                s.report.chunks_kept += 1;
                w.write_raw(&item.header, Some(marker.tick), &[])
                    .map_err(werr)?;
                continue;
            }
            Chunk::Data(chunk) => chunk,
        };
        let decoded = decoder
            .decode(chunk.payload)
            .map_err(|error| ScrubError::Payload { offset, error })?;
        let chunk_rule = if decoded.rules_agree() {
            rule
        } else {
            decoded.length_rule(chunk.payload.len()).unwrap_or(rule)
        };
        let ints = decoder.last_ints();
        let action = match chunk.kind {
            ChunkKind::Snapshot => s.keyframe(ints),
            ChunkKind::SnapshotDelta => s.delta(ints),
            ChunkKind::Message => s.message(ints),
            ChunkKind::Unknown => Action::Keep,
        };
        match action {
            Action::Keep => {
                s.report.chunks_kept += 1;
                w.write_raw(&item.header, None, chunk.payload)
                    .map_err(werr)?;
            }
            Action::Drop(name) => *s.report.dropped.entry(name).or_insert(0) += 1,
            Action::Rewrite(new) => {
                let stored = encoder.encode(&new, chunk_rule);
                w.write_stored(chunk.kind, SizeForm::shortest(stored.len()), stored)
                    .map_err(werr)?;
            }
        }
    }
    report.output_len = w.position() as usize;
    w.into_inner().map_err(|source| ScrubError::Write {
        offset: input_len,
        source,
    })?;
    Ok(report)
}

/// The names found, each once, in order of first appearance: what [`Names::build`] makes
/// the same pseudonyms from as from every appearance.
#[derive(Default)]
struct Found {
    in_order: Vec<(NameKind, Vec<u8>)>,
    seen: HashMap<NameKind, HashSet<Vec<u8>>>,
}

impl Found {
    fn push(&mut self, kind: NameKind, name: &[u8]) {
        // Looked up by the borrowed name: a name seen before costs no allocation.
        let seen = self.seen.entry(kind).or_default();
        if !seen.contains(name) {
            seen.insert(name.to_vec());
            self.in_order.push((kind, name.to_vec()));
        }
    }
}

/// What to do with one data chunk.
enum Action {
    Keep,
    Drop(String),
    /// Write these ints instead.
    Rewrite(Vec<i32>),
}

struct Scrubber<'o> {
    options: &'o ScrubOptions,
    names: &'o Names,
    protocol: Protocol,
    info_type: i32,
    name_at: usize,
    clan_at: usize,
    sizes: ItemSizes,
    /// The player's snapshot replaying the input.
    input: SnapshotState,
    /// The player's snapshot replaying the output.
    output: SnapshotState,
    report: &'o mut ScrubReport,
}

impl Scrubber<'_> {
    /// A client-info item's data with name and clan replaced, and how many of the two
    /// changed; `None` when nothing changes.
    fn edit_info(&self, data: &[i32]) -> Option<(Vec<i32>, bool, bool)> {
        self.options.names.as_ref()?;
        let (name, clan) = info_strings(data, self.name_at, self.clan_at)?;
        let new_name = self.names.get(NameKind::Name, &name);
        let new_clan = self.names.get(NameKind::Clan, &clan);
        let (name_changed, clan_changed) = (new_name != name, new_clan != clan);
        if !name_changed && !clan_changed {
            return None;
        }
        let mut out = data.to_vec();
        if name_changed {
            let ints = IntString::<4>::from_text(new_name)?;
            (out.get_mut(self.name_at..self.name_at + 4)?).copy_from_slice(&ints.0);
        }
        if clan_changed {
            let ints = IntString::<3>::from_text(new_clan)?;
            (out.get_mut(self.clan_at..self.clan_at + 3)?).copy_from_slice(&ints.0);
        }
        Some((out, name_changed, clan_changed))
    }

    fn keyframe(&mut self, ints: &[i32]) -> Action {
        self.input.keyframe(ints);
        let Ok(snapshot) = Snapshot::parse(ints) else {
            // Skipped by the player: copied as stored.
            self.output.keyframe(ints);
            return Action::Keep;
        };
        let mut new: Option<Vec<i32>> = None;
        let data_start = 2 + snapshot.len();
        for (index, item) in snapshot.items().enumerate() {
            if item.type_id != self.info_type {
                continue;
            }
            let Some((data, name, clan)) = self.edit_info(item.data) else {
                continue;
            };
            let Some(&offset) = snapshot.offsets().get(index) else {
                continue;
            };
            let at = data_start + offset as usize / 4 + 1;
            let new = new.get_or_insert_with(|| ints.to_vec());
            // Parsing checked that the item's data is inside the snapshot.
            let Some(to) = new.get_mut(at..at + data.len()) else {
                continue;
            };
            to.copy_from_slice(&data);
            self.report.names_rewritten += u64::from(name);
            self.report.clans_rewritten += u64::from(clan);
        }
        match new {
            Some(new) => {
                self.output.keyframe(&new);
                self.report.snapshots_rewritten += 1;
                Action::Rewrite(new)
            }
            None => {
                self.output.keyframe(ints);
                Action::Keep
            }
        }
    }

    fn delta(&mut self, ints: &[i32]) -> Action {
        let skipped = self.input.skipped;
        let previous_output = self.output.current.clone();
        let applied = self.input.delta(ints).is_ok() && self.input.skipped == skipped;
        let touches = Delta::parse(ints, &self.sizes)
            .ok()
            .filter(|d| d.updates.iter().any(|u| u.type_id == self.info_type));
        let (Some(delta), true, Some(previous), Some(current)) = (
            touches,
            applied && self.options.names.is_some(),
            previous_output,
            self.input.current.as_ref(),
        ) else {
            let _ = self.output.delta(ints);
            return Action::Keep;
        };
        // The updates of client-info items, taken against the edited previous snapshot.
        let previous = previous.as_snapshot();
        let current = current.as_snapshot();
        let mut out = Vec::with_capacity(ints.len());
        // The delta's header (it parsed: the three ints are there).
        out.extend(ints.iter().take(3));
        out.extend_from_slice(delta.deleted);
        let mut changed = false;
        let (mut names, mut clans) = (0, 0);
        for update in &delta.updates {
            out.extend([update.type_id, update.id]);
            if update.size_written {
                out.push(update.data.len() as i32);
            }
            let target = (update.type_id == self.info_type)
                .then(|| current.find(update.key()))
                .flatten()
                .filter(|item| item.data.len() == update.data.len());
            let Some(target) = target else {
                out.extend_from_slice(update.data);
                continue;
            };
            let (edited, name, clan) = match self.edit_info(target.data) {
                Some(e) => e,
                None => (target.data.to_vec(), false, false),
            };
            names += u64::from(name);
            clans += u64::from(clan);
            let data: Vec<i32> = match previous.find(update.key()) {
                Some(old) if old.data.len() == edited.len() => edited
                    .iter()
                    .zip(old.data)
                    .map(|(n, o)| n.wrapping_sub(*o))
                    .collect(),
                _ => edited,
            };
            changed |= data != update.data;
            out.extend_from_slice(&data);
        }
        out.extend_from_slice(delta.trailing);
        if !changed {
            let _ = self.output.delta(ints);
            return Action::Keep;
        }
        let _ = self.output.delta(&out);
        self.report.deltas_rewritten += 1;
        self.report.names_rewritten += names;
        self.report.clans_rewritten += clans;
        Action::Rewrite(out)
    }

    fn message(&mut self, ints: &[i32]) -> Action {
        let bytes = message_bytes(ints);
        let unpacked = self.protocol.unpack_message(&bytes);
        let end = bytes.len() - unpacked.trailing.0.len();
        // The trailing bytes are the end of `bytes`.
        let body = bytes.get(..end).unwrap_or(&bytes);
        let message = unpacked.message;
        let dropped = || Action::Drop(message.name().to_string());
        let names_on = self.options.names.is_some();
        let rewrite = |new: Vec<u8>| Action::Rewrite(message_ints(&new));
        match shape(&message) {
            Shape::Chat {
                ints,
                team,
                whisper,
            } => {
                if self.options.removes_chat(team, whisper) {
                    return dropped();
                }
                self.texts(body, ints, 1).map_or(Action::Keep, rewrite)
            }
            Shape::Motd if self.options.server => dropped(),
            Shape::Motd => self.texts(body, 0, 1).map_or(Action::Keep, rewrite),
            Shape::Text { ints, strings } => self
                .texts(body, ints, strings)
                .map_or(Action::Keep, rewrite),
            Shape::Info if names_on => {
                let Some((head, strings, tail)) = split_strings(body, 3, 2) else {
                    return if self.names.found_in(&bytes) {
                        dropped()
                    } else {
                        Action::Keep
                    };
                };
                // Two strings were asked for.
                let [old_name, old_clan] = *strings else {
                    return Action::Keep;
                };
                let name = self.names.get(NameKind::Name, old_name);
                let clan = self.names.get(NameKind::Clan, old_clan);
                if name == old_name && clan == old_clan {
                    return Action::Keep;
                }
                self.report.names_rewritten += u64::from(name != old_name);
                self.report.clans_rewritten += u64::from(clan != old_clan);
                self.report.messages_rewritten += 1;
                rewrite(join(head, &[name, clan], tail))
            }
            Shape::Info => Action::Keep,
            Shape::Other if names_on && self.names.found_in(body) => dropped(),
            Shape::Other => Action::Keep,
        }
    }

    /// The message with names replaced in its `count` texts after `ints` ints; `None` when
    /// nothing changes (or names are not scrubbed).
    fn texts(&mut self, body: &[u8], ints: usize, count: usize) -> Option<Vec<u8>> {
        self.options.names.as_ref()?;
        let (head, strings, tail) = split_strings(body, ints, count)?;
        let new: Vec<Option<Vec<u8>>> = strings.iter().map(|s| self.names.replace_in(s)).collect();
        if new.iter().all(Option::is_none) {
            return None;
        }
        let joined: Vec<&[u8]> = strings
            .iter()
            .zip(&new)
            .map(|(old, new)| new.as_deref().unwrap_or(old))
            .collect();
        self.report.texts_rewritten += 1;
        self.report.messages_rewritten += 1;
        Some(join(head, &joined, tail))
    }
}
