//! A demo's chat as DDNet's `demo_extract_chat` tool lists it: [`chat_lines`].
//!
//! The tool (`src/tools/demo_extract_chat.cpp` at the reference commit) plays the demo
//! with DDNet's demo player and prints one line per chat message and per broadcast line,
//! as `[time] kind: ...` (the [`Display`](std::fmt::Display) of [`DemoChatLine`]). What it
//! prints, and so what [`chat_lines`] returns:
//!
//! * `Sv_Chat` messages that pass DDNet's checks (team -2 to 3, client id -1 to 127, text
//!   valid UTF-8, control characters turned into spaces). One from the server (client id
//!   -1) prints as `*** text`; one from a client id whose name the tool does not know is
//!   left out. The tool learns names from the `ClientInfo` items of the snapshots the
//!   player hands it, in chunk order, and never forgets one: a player who left keeps
//!   their name, a message read before the snapshot that names its speaker has none.
//! * `Sv_Broadcast` messages, one line per non-empty line of their text (a line longer
//!   than 1023 bytes goes out in pieces of 1023, the size of the tool's buffer).
//! * The time is the whole seconds since the demo's first tick, never negative.
//!
//! Where the tool is wrong, this module does what DDNet's client does instead: the tool
//! types every demo as 0.6, so on a 0.7 demo (network version `"0.7 ..."`) it finds no
//! names (a 0.7 `PlayerInfo` item is too short for the 0.6 `ClientInfo` of the same type
//! number), prints no player's line, and misreads the server's (the 0.7 chat mode as the
//! 0.6 team, so all chat is "teamchat", and the 0.7 target id as the first byte of the
//! text, such as `@`). Here a 0.7 demo is read as the client's 0.7 path reads it
//! (`sixup_translate_game.cpp`, `sixup_translate_snapshot.cpp`): chat messages in 0.7's
//! layout and checks (the text also loses its leading whitespace), the chat mode made
//! the 0.6 team (all 0, team 1, a whisper 2 when the recording player sent it and 3 when
//! they received it, with the other side as the client id), and names from the 0.7
//! messages and demo items the client's translation context keeps (`Sv_ClientInfo`,
//! `Sv_ClientDrop`, and the `De_ClientInfo` items of snapshots that pass 0.7 validation),
//! as the `ClientInfo` items its translated snapshots carry.
//!
//! Not modelled: a snapshot the tool drops because its 0.6 objects, unpacked, outgrow a
//! snapshot (`UnpackAndValidateSnapshot` failing with -4), and a demo DDNet's player does
//! not load at all (no keyframe), for which the tool prints nothing.
//!
//! [`GameLog::chat`](crate::gamenet::summary::GameLog::chat) is another view: every chat
//! message, named by the replayed world, in the protocol's own numbering.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::super::container::error::ReadError;
use super::super::container::format::ChunkKind;
use super::super::container::payload::PayloadDecoder;
use super::super::container::reader::{Chunk, ChunkSource, DemoReader, DemoSlice, Prelude};
use super::super::snapshot::Snapshot;
use super::super::snapshot::delta::ItemSizes;
use super::super::snapshot::replay::{ReplayError, SnapshotOrder, SnapshotState};
use crate::gamenet::wire::IntString;
use crate::gamenet::{Protocol, seven, six};
use std::io::Read;

/// What a line of [`chat_lines`] is, named as the tool prefixes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum ChatKind {
    /// Chat to all (team 0).
    Chat,
    /// Chat to the team (team 1, and the negative teams the checks let through).
    TeamChat,
    /// A whisper (team 2 sent, 3 received).
    Whisper,
    /// A line of a broadcast.
    Broadcast,
}

impl ChatKind {
    /// The tool's prefix: `chat`, `teamchat`, `whisper` or `broadcast`.
    pub fn prefix(self) -> &'static str {
        match self {
            ChatKind::Chat => "chat",
            ChatKind::TeamChat => "teamchat",
            ChatKind::Whisper => "whisper",
            ChatKind::Broadcast => "broadcast",
        }
    }

    /// The kind of a chat message of `team` (0.6 numbering), as the tool tells them apart.
    fn of_team(team: i32) -> ChatKind {
        match team {
            2.. => ChatKind::Whisper,
            0 => ChatKind::Chat,
            _ => ChatKind::TeamChat,
        }
    }
}

/// One line of a demo's chat, as `demo_extract_chat` prints it; see the [module docs](self).
///
/// Its `Display` is the tool's line (without the newline): `[00:12] chat: name: text`,
/// `[00:12] teamchat: *** text` for the server, `[01:02:03] whisper: -> name: text` for a
/// whisper sent (`<-` received), `[00:12] broadcast: text`.
///
/// With the `serde` feature: `{"tick", "seconds", "kind", "client_id", "team", "name",
/// "text"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DemoChatLine {
    /// The tick DDNet's player was at when it read the message (-1 before the first tick
    /// marker).
    pub tick: i32,
    /// Whole seconds since the demo's first tick, as the tool prints them (0 for a line
    /// before it).
    pub seconds: i64,
    /// What the line is.
    pub kind: ChatKind,
    /// Who said it, -1 the server (and for broadcasts); for a whisper, the other side.
    pub client_id: i32,
    /// The channel in 0.6 numbering (0.7 chat modes translated as DDNet's client does):
    /// 0 all, 1 team, 2 whisper sent, 3 whisper received; 0 for broadcasts.
    pub channel: i32,
    /// The speaker's name as the tool knows it (empty for the server and broadcasts).
    pub name: String,
    /// The text, as DDNet's checks leave it.
    pub text: String,
}

/// `MAX_CLIENTS` at the reference commit: client ids the tool keeps names for.
const MAX_CLIENTS: usize = 128;
/// 0.6 `NETOBJTYPE_CLIENTINFO`.
const CLIENT_INFO: i32 = 11;
/// Ints of a 0.6 `ClientInfo`: a shorter item fails `SecureUnpackObj`.
const CLIENT_INFO_INTS: usize = 17;
/// 0.7 `NETOBJTYPE_DE_CLIENTINFO`.
const DE_CLIENT_INFO: i32 = 13;
/// Bytes of the tool's broadcast line buffer, NUL included.
const BROADCAST_BUFFER: usize = 1024;
/// `SERVER_TICK_SPEED`.
const TICKS_PER_SECOND: i64 = 50;

/// The chat lines of `demo` as `demo_extract_chat` prints them (0.7 demos as DDNet's
/// client reads them), and the error that ended the walk early, if any: the lines before
/// it are kept, as the tool prints them before DDNet's player stops.
pub fn chat_lines(demo: &DemoSlice<'_>) -> (Vec<DemoChatLine>, Option<ReplayError>) {
    lines_of(demo.prelude(), demo.chunks())
}

/// [`chat_lines`] of a demo read as a stream: memory grows with the lines, not with the
/// file. Only a prelude or map that cannot be read is an `Err`.
pub fn chat_lines_reader<R: Read>(
    input: R,
) -> Result<(Vec<DemoChatLine>, Option<ReplayError>), ReadError> {
    let reader = DemoReader::new(input)?;
    let prelude = *reader.prelude();
    Ok(lines_of(&prelude, reader))
}

/// The walk of [`chat_lines`] over any source of the demo's chunks.
fn lines_of(
    prelude: &Prelude,
    mut chunks: impl ChunkSource,
) -> (Vec<DemoChatLine>, Option<ReplayError>) {
    let net_version = prelude.header.net_version.to_string_lossy();
    let mut walk = Walk {
        protocol: Protocol::for_net_version(&net_version),
        names: vec![String::new(); MAX_CLIENTS],
        seven: Translation::default(),
        lines: Vec::new(),
        tick: -1,
    };
    let mut state = SnapshotState::new(
        ItemSizes::for_net_version(&net_version),
        SnapshotOrder::for_prelude(prelude),
    );
    let mut decoder = PayloadDecoder::new();
    let mut first_tick = None;
    // `GotSnapshot` of the player's `DoTick`: whether it handed the client a snapshot
    // since the last tick marker. If not, the next chunk that is neither a snapshot nor a
    // delta makes it hand over its last one again (which matters to 0.7's names).
    let mut got_snapshot = false;
    let mut error = None;
    while let Some(item) = chunks.next_chunk() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                error = Some(ReplayError::Read(e));
                break;
            }
        };
        let chunk = match item.chunk {
            Chunk::Tick(marker) => {
                if !got_snapshot && let Some(current) = &state.current {
                    walk.replay(&current.as_snapshot());
                }
                got_snapshot = false;
                walk.tick = marker.tick;
                first_tick.get_or_insert(marker.tick);
                continue;
            }
            Chunk::Data(chunk) => chunk,
        };
        // The player decodes every chunk with a payload, whatever its type.
        let ints: &[i32] = if chunk.payload.is_empty() {
            &[]
        } else {
            match decoder.decode(chunk.payload) {
                Ok(_) => decoder.last_ints(),
                Err(e) => {
                    error = Some(ReplayError::Payload {
                        offset: item.offset,
                        error: e,
                    });
                    break;
                }
            }
        };
        match chunk.kind {
            ChunkKind::Snapshot | ChunkKind::SnapshotDelta => {
                let skipped = state.skipped;
                if matches!(chunk.kind, ChunkKind::Snapshot) {
                    state.keyframe(ints);
                } else if state.delta(ints).is_err() {
                    error = Some(ReplayError::DeltaBeforeSnapshot {
                        offset: item.offset,
                    });
                    break;
                }
                // A snapshot or delta the player skips reaches no listener.
                if state.skipped == skipped
                    && let Some(current) = &state.current
                {
                    got_snapshot = true;
                    walk.snapshot(&current.as_snapshot());
                }
            }
            kind => {
                if !got_snapshot && let Some(current) = &state.current {
                    got_snapshot = true;
                    walk.replay(&current.as_snapshot());
                }
                if matches!(kind, ChunkKind::Message) {
                    walk.message(ints);
                }
            }
        }
    }
    // The tool's time: `(CurrentTick - FirstTick) / SERVER_TICK_SPEED` seconds, in
    // integers, and `str_time` shows a negative one as 0.
    let first_tick = first_tick.unwrap_or(-1);
    for line in &mut walk.lines {
        let ticks = i64::from(line.tick.wrapping_sub(first_tick));
        line.seconds = (ticks / TICKS_PER_SECOND).max(0);
    }
    (walk.lines, error)
}

/// The state of the walk that the lines depend on.
struct Walk {
    protocol: Protocol,
    /// The tool's names by client id ("" unknown), never cleared.
    names: Vec<String>,
    /// 0.7: the client's translation context.
    seven: Translation,
    lines: Vec<DemoChatLine>,
    /// The player's current tick.
    tick: i32,
}

/// What DDNet's client keeps of a 0.7 game outside its snapshots
/// (`CTranslationContext`): who is there under which name, and the recording player's
/// own client id.
#[derive(Debug)]
struct Translation {
    /// Names of the active clients (`None` inactive).
    clients: Vec<Option<String>>,
    /// The local client id, -1 before one is known.
    local: i32,
}

impl Default for Translation {
    fn default() -> Self {
        Translation {
            clients: vec![None; MAX_CLIENTS],
            local: -1,
        }
    }
}

impl Walk {
    /// The player hands the client its last snapshot again. The same items give the same
    /// 0.6 names, but the 0.7 translation builds names from its context, which messages
    /// may have changed since.
    fn replay(&mut self, snapshot: &Snapshot<'_>) {
        if self.protocol == Protocol::Seven {
            self.snapshot_seven(snapshot);
        }
    }

    /// The player hands the client `snapshot`.
    fn snapshot(&mut self, snapshot: &Snapshot<'_>) {
        match self.protocol {
            Protocol::Six => self.snapshot_six(snapshot),
            Protocol::Seven => self.snapshot_seven(snapshot),
        }
    }

    /// The tool's `OnNewSnapshot`: every `ClientInfo` item names its client.
    fn snapshot_six(&mut self, snapshot: &Snapshot<'_>) {
        for item in snapshot.items() {
            if item.type_id == CLIENT_INFO
                && let Some(name) = self.names.get_mut(item.id as usize)
                && item.data.len() >= CLIENT_INFO_INTS
            {
                *name = ints_to_str(item.data);
            }
        }
    }

    /// `TranslateSnap`, then the tool's `OnNewSnapshot` on the result: the translated
    /// snapshot has a `ClientInfo` for every client active in the context before this
    /// snapshot's `De_ClientInfo` items, which update the context after them. A
    /// `De_ClientInfo` for a client id past the last fails the translation there: the
    /// snapshot reaches no one, and the items after it change nothing.
    fn snapshot_seven(&mut self, snapshot: &Snapshot<'_>) {
        let infos = snapshot
            .items()
            .filter(|item| {
                item.type_id == DE_CLIENT_INFO && seven::object_is_valid(item.type_id, item.data)
            })
            .map(|item| (item.id as usize, item.data));
        let mut failed = false;
        let mut updates = Vec::new();
        for (id, data) in infos {
            if id >= MAX_CLIENTS {
                failed = true;
                break;
            }
            updates.push((id, data));
        }
        if !failed {
            for (name, client) in self.names.iter_mut().zip(&self.seven.clients) {
                if let Some(known) = client {
                    name.clone_from(known);
                }
            }
        }
        for (id, data) in updates {
            // Checked valid: `m_Local` (a bool), then the team, then the name's 4 ints.
            let [local, _, name @ ..] = data else {
                continue;
            };
            if *local != 0 {
                self.seven.local = id as i32;
            }
            if let Some(client) = self.seven.clients.get_mut(id) {
                *client = Some(ints_to_str(name));
            }
        }
    }

    /// The tool's `OnDemoPlayerMessage` on the ints of a message chunk.
    fn message(&mut self, ints: &[i32]) {
        let bytes: Vec<u8> = ints.iter().flat_map(|i| i.to_le_bytes()).collect();
        match self.protocol {
            Protocol::Six => self.message_six(&bytes),
            Protocol::Seven => self.message_seven(&bytes),
        }
    }

    fn message_six(&mut self, bytes: &[u8]) {
        match six::Message::unpack(bytes).message {
            six::Message::SvChat(m) => {
                // `SecureUnpackMsg`: the ranges and the text (`NetStringHalfStrict`).
                if !(-2..=3).contains(&m.team) || !(-1..MAX_CLIENTS as i32).contains(&m.client_id) {
                    return;
                }
                let Some(text) = checked_text(&m.message.0, false) else {
                    return;
                };
                self.chat(m.team, m.client_id, text);
            }
            six::Message::SvBroadcast(m) => self.broadcast(&m.message.0),
            _ => {}
        }
    }

    fn message_seven(&mut self, bytes: &[u8]) {
        let clients = -1..MAX_CLIENTS as i32;
        match seven::Message::unpack(bytes).message {
            seven::Message::SvChat(m) => {
                // `SecureUnpackMsg` of 0.7: the ranges, then the text (`NetStringStrict`).
                if !(0..=3).contains(&m.mode)
                    || !clients.contains(&m.client_id)
                    || !clients.contains(&m.target_id)
                {
                    return;
                }
                let Some(text) = checked_text(&m.message.0, true) else {
                    return;
                };
                // `TranslateGameMsg`: the mode as the 0.6 team, a whisper by direction.
                const CHAT_TEAM: i32 = 2;
                const CHAT_WHISPER: i32 = 3;
                let (team, client_id) = if m.mode == CHAT_WHISPER {
                    if m.target_id == self.seven.local {
                        (3, m.client_id)
                    } else {
                        (2, m.target_id)
                    }
                } else {
                    (i32::from(m.mode == CHAT_TEAM), m.client_id)
                };
                self.chat(team, client_id, text);
            }
            seven::Message::SvBroadcast(m) => self.broadcast(&m.message.0),
            seven::Message::SvClientInfo(m) => {
                let strict = |s: &[u8]| checked_text(s, true);
                let mut bools = m.use_custom_colors.iter().chain([&m.local, &m.silent]);
                if !(0..MAX_CLIENTS as i32).contains(&m.client_id)
                    || !(-1..=1).contains(&m.team)
                    || bools.any(|b| !(0..=1).contains(b))
                    || strict(&m.clan.0).is_none()
                    || m.skin_part_names.iter().any(|s| strict(&s.0).is_none())
                {
                    return;
                }
                let Some(name) = strict(&m.name.0) else {
                    return;
                };
                if m.local != 0 {
                    self.seven.local = m.client_id;
                }
                // `str_copy` into the 16 bytes of `m_aName`, cut on a character boundary.
                let mut end = name.len().min(15);
                while !name.is_char_boundary(end) {
                    end -= 1;
                }
                if let Some(client) = self.seven.clients.get_mut(m.client_id as usize) {
                    *client = Some(name.get(..end).unwrap_or_default().to_string());
                }
            }
            // `Client.Reset()`: inactive, so no longer in the translated snapshots.
            seven::Message::SvClientDrop(m)
                if (0..MAX_CLIENTS as i32).contains(&m.client_id)
                    && (0..=1).contains(&m.silent)
                    && checked_text(&m.reason.0, true).is_some() =>
            {
                if let Some(client) = self.seven.clients.get_mut(m.client_id as usize) {
                    *client = None;
                }
            }
            _ => {}
        }
    }

    /// A chat message that passed the checks, in 0.6 terms.
    fn chat(&mut self, team: i32, client_id: i32, text: String) {
        let name = match usize::try_from(client_id) {
            Ok(c) => match self.names.get(c) {
                Some(name) if !name.is_empty() => name.clone(),
                _ => return,
            },
            Err(_) => String::new(),
        };
        self.lines.push(DemoChatLine {
            tick: self.tick,
            seconds: 0,
            kind: ChatKind::of_team(team),
            client_id,
            channel: team,
            name,
            text,
        });
    }

    /// A broadcast (`NetString`: valid UTF-8, nothing sanitized), a line for each
    /// non-empty line of it.
    fn broadcast(&mut self, text: &[u8]) {
        if std::str::from_utf8(text).is_err() {
            return;
        }
        for line in text.split(|&b| b == b'\n') {
            // `str_next_token` copies at most the buffer's size less the NUL and goes on
            // from there.
            for piece in line.chunks(BROADCAST_BUFFER - 1) {
                self.lines.push(DemoChatLine {
                    tick: self.tick,
                    seconds: 0,
                    kind: ChatKind::Broadcast,
                    client_id: -1,
                    channel: 0,
                    name: String::new(),
                    text: String::from_utf8_lossy(piece).into_owned(),
                });
            }
        }
    }
}

/// A message string as DDNet's unpacker hands it out: `None` unless valid UTF-8; control
/// characters (below 32) become spaces (`SANITIZE_CC`), and for a `strict` string the
/// leading whitespace is skipped as `str_utf8_skip_whitespaces` does.
fn checked_text(bytes: &[u8], strict: bool) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text: String = text
        .chars()
        .map(|c| if (c as u32) < 32 { ' ' } else { c })
        .collect();
    if strict {
        return Some(text.trim_start_matches(is_ddnet_space).to_string());
    }
    Some(text)
}

/// `str_utf8_isspace`.
fn is_ddnet_space(c: char) -> bool {
    matches!(
        c as u32,
        0..=0x20
            | 0x85
            | 0xA0
            | 0x34F
            | 0x115F
            | 0x1160
            | 0x1680
            | 0x180E
            | 0x2000..=0x200F
            | 0x2028..=0x202F
            | 0x205F..=0x2064
            | 0x206A..=0x206F
            | 0x2800
            | 0x3000
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF9..=0xFFFC
    )
}

/// A name in the first 4 of `ints` as `IntsToStr` reads it: empty unless valid UTF-8 (or
/// fewer than 4 ints).
fn ints_to_str(ints: &[i32]) -> String {
    let Some(&name) = ints.first_chunk::<4>() else {
        return String::new();
    };
    IntString(name).to_str().unwrap_or_default()
}
