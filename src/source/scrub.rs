//! Scrubbing a Source demo before it is shared: player names become pseudonyms, Steam
//! identities, addresses and chat are taken out, everything else is kept bit for bit.
//!
//! [`scrub`] takes the [`ScrubOptions`] of every format's scrub and makes the same
//! pseudonyms (see [`crate::scrub`](mod@crate::scrub)), so that a player scrubbed with one
//! key has the same pseudonym in every file.
//!
//! * **Names** ([`ScrubOptions::names`]): each `userinfo` string-table entry (in
//!   `svc_CreateStringTable`, `svc_UpdateStringTable` and the `dem_stringtables` frame)
//!   gets its name and Steam friends name replaced and loses what identifies the account:
//!   the network id (SteamID: it becomes `STEAM_ID_LAN`, the engine's id of a player
//!   without a Steam account; a bot's `BOT` stays), the friends id, the XUID and the CRCs of
//!   the player's custom files (sprays) ([`PlayerInfo::scrub`]). Game events' `name`,
//!   `oldname` and `newname` become pseudonyms, their `networkid`/`steamid` `STEAM_ID_LAN`,
//!   their `address`/`ip` and `xuid` are emptied; names are replaced in every other string of an event, of the
//!   `SayText`, `SayText2` and `TextMsg` user messages, of `svc_Print`, console variables
//!   and console commands (the free-text rule of every format: a name of one or two bytes
//!   only where it is the whole text). The header's client name (the recording player, or
//!   SourceTV's name) becomes a pseudonym. Voice data (`svc_VoiceData`) is dropped.
//! * **Chat** ([`ScrubOptions::chat`]): the chat lines the game layer reads
//!   ([`SourceChat`](super::game::SourceChat)) are dropped: `SayText2` chat lines (all, or
//!   with [`ChatFilter::Team`] the team channels), plain `SayText` and a plugin's raw text
//!   sent in a player's name (the server's own raw text stays, names replaced),
//!   the `player_say`/`player_chat` events, and the recording player's own `say` and
//!   `say_team` console commands. Source has no whispers: that filter drops nothing.
//!   Voice data goes with all chat too.
//! * **Server** ([`ScrubOptions::server`]): the header's server name or address, the
//!   host name in `svc_ServerInfo`, the `hostname` and every password, download URL and
//!   SourceTV name among the console variables, the `server_spawn` event's host name and
//!   address, and the `connect`, `password` and `rcon` console commands (the recording
//!   client's, with the addresses and passwords they carry).
//! * [`ScrubOptions::credentials`], [`drop_reasons`](ScrubOptions::drop_reasons) and
//!   [`clear_header`](ScrubOptions::clear_header) mean nothing here and are refused.
//!
//! A packet is re-encoded only when one of its messages changed; a `userinfo` table
//! created compressed is written uncompressed (the engine reads both). The header's
//! `signon_length` follows the new size of the signon frames. A demo that does not read or
//! decode to its end is refused: what follows a break could hold anything, so `demokit
//! repair` should make it whole first. CS:GO's protobuf messages are edited field by
//! field ([`edit_bytes_field`](super::net::csgo::edit_bytes_field)): what the scrub does
//! not touch stays as stored, fields the crate's structs do not name included.
//!
//! Left to others: names inside entity properties (CS:GO's clan tags) and inside a
//! `dem_customdata` or `dem_datatables` frame are not searched, and a player never named
//! in `userinfo`, an event or a chat line is not known to be one.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{ReadError, ReadErrorKind, WriteError};
use super::format::{HEADER_SIZE, Header};
use super::game::player::{PlayerInfo, SCRUBBED_GUID};
use super::game::user_message::{SayText, SayText2, TextMessages, TextMsg};
use super::net::game_event::EventValue;
use super::net::message::{CreateStringTable, UpdateStringTable};
use super::net::state::{MAX_TABLE_BYTES, NetState};
use super::net::string_table::{
    EntryUpdate, StringTablesFrame, TableShape, code_entries, create_data,
};
use super::net::{Decoder, Encoder, NetMessage, NetStr, Packet, ProtoMessage};
use super::reader::{Body, Frame, PacketBody, SourceReader};
use super::writer::encode_frame;
use crate::codec::bits::{BitReader, BitWriter, Bits};
use crate::codec::string::NulStr;
use crate::scrub::{ChatFilter, Mapping, NameKind, Names, ScrubOptions};
use binrw::BinWrite;
use std::collections::BTreeMap;
use std::io::{self, Cursor, Read, Write};

/// The most bytes of signon frames held back until the header's `signon_length` is known
/// (real demos have a few megabytes at most).
pub const MAX_SIGNON_BYTES: usize = 64 << 20;

/// The name of the string table that describes the players.
const USERINFO: &[u8] = b"userinfo";

/// What [`scrub`] changed. Scrubbing its output again with the same options reports no
/// change but the pseudonyms' count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ScrubReport {
    /// Size of the input.
    pub input_len: u64,
    /// Size of the output.
    pub output_len: u64,
    /// Frames read, the stop command included.
    pub frames: u64,
    /// Frames written with changed contents (packets re-encoded, string tables rewritten,
    /// commands edited).
    pub frames_rewritten: u64,
    /// `userinfo` entries rewritten.
    pub players_rewritten: u64,
    /// Game events rewritten.
    pub events_rewritten: u64,
    /// Texts in which names were replaced or that were emptied (user messages, prints,
    /// console variables and commands).
    pub texts_rewritten: u64,
    /// Header fields changed (`client`, `server`).
    pub header_fields: Vec<&'static str>,
    /// Messages and frames dropped, by name (`svc_VoiceData`, `SayText2`, `player_say`,
    /// `dem_consolecmd`, ...).
    pub dropped: BTreeMap<String, u64>,
    /// The pseudonyms given: what undoes the scrub. A report is serialized with their
    /// number only (as `pseudonyms`), as the other formats' reports are.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "pseudonyms", serialize_with = "Mapping::serialize_count")
    )]
    pub mapping: Mapping,
}

impl ScrubReport {
    /// Messages and frames dropped, of all kinds.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.values().sum()
    }

    /// Whether the output differs from the input.
    pub fn changed(&self) -> bool {
        self.frames_rewritten + self.dropped_total() > 0 || !self.header_fields.is_empty()
    }
}

/// Why a Source demo cannot be scrubbed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScrubError {
    /// The options ask for something a Source demo does not have (credentials, drop
    /// reasons, header keys).
    #[error("{0}")]
    Options(String),
    /// The demo is of a branch whose messages demokit does not decode.
    #[error("{0} are not scrubbed yet; nothing was written")]
    Unsupported(&'static str),
    /// The demo does not read to its end: nothing is written.
    #[error("{0}; nothing was written (a repair keeps every complete frame)")]
    Read(#[source] ReadError),
    /// A frame's network data does not decode (or an edited message does not encode).
    #[error("at byte {offset}: {message}; nothing was written")]
    Network {
        /// Offset of the frame.
        offset: u64,
        /// What went wrong.
        message: String,
    },
    /// The signon frames before the first `dem_synctick` exceed [`MAX_SIGNON_BYTES`].
    #[error("at byte {offset}: more than {MAX_SIGNON_BYTES} bytes of signon frames")]
    SignonTooLong {
        /// Offset of the frame that passed the limit.
        offset: u64,
    },
    /// Writing failed; the offset is the input frame's.
    #[error("at byte {offset}: {source}")]
    Write {
        /// Offset of the input frame being written (0 for the header).
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
            ScrubError::Options(_) | ScrubError::Unsupported(_) => None,
            ScrubError::Read(e) => Some(e.offset),
            ScrubError::Network { offset, .. }
            | ScrubError::SignonTooLong { offset }
            | ScrubError::Write { offset, .. } => Some(*offset),
        }
    }
}

/// Scrubs the Source demo `data` as `options` ask (see the [module docs](self)) into `out`.
/// Nothing is written unless the whole demo reads and decodes.
pub fn scrub<W: Write>(
    data: &[u8],
    options: &ScrubOptions,
    out: W,
) -> Result<ScrubReport, ScrubError> {
    scrub_reader(|| Ok(data), options, out)
}

/// [`scrub`] of a demo read twice as a stream (to check it and find the names, then to
/// write), which `open` opens from its start each time: memory does not grow with the file
/// beyond its signon frames and its largest frame.
pub fn scrub_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> io::Result<R>,
    options: &ScrubOptions,
    mut out: W,
) -> Result<ScrubReport, ScrubError> {
    check_options(options)?;
    let opened = |e: io::Error| ScrubError::Read(ReadError::new(0, ReadErrorKind::Io(e)));
    // First reading: every name, in order of appearance, and a check that it all decodes.
    let mut found = Vec::new();
    {
        let mut reader = SourceReader::new(open().map_err(opened)?).map_err(ScrubError::Read)?;
        let mut walk = Walk::new(reader.header(), options, Namer::Collect(&mut found))?;
        walk.header(reader.header());
        while let Some(item) = reader.next() {
            let item = item.map_err(ScrubError::Read)?;
            walk.frame(item.offset, &item.frame)?;
        }
    }
    let names = Names::build(
        &found,
        options.names.as_ref().and_then(|p| p.key.as_deref()),
    );
    // Second reading: the same walk, writing.
    let mut reader = SourceReader::new(open().map_err(opened)?).map_err(ScrubError::Read)?;
    let profile = *reader.profile();
    let mut walk = Walk::new(reader.header(), options, Namer::Rename(&names))?;
    let mut header = walk.header(reader.header());
    // Frames before the first synctick wait for the header, whose `signon_length` counts
    // their bytes.
    let mut signon: Option<(Vec<u8>, u64)> = Some((Vec::new(), 0));
    let mut scratch = Vec::new();
    let mut written = 0u64;
    let write_failed = |offset: u64| move |source: WriteError| ScrubError::Write { offset, source };
    let io_failed = |offset: u64| {
        move |e: io::Error| ScrubError::Write {
            offset,
            source: e.into(),
        }
    };
    while let Some(item) = reader.next() {
        let item = item.map_err(ScrubError::Read)?;
        let offset = item.offset;
        walk.report.frames += 1;
        let Some(edited) = walk.frame(offset, &item.frame)? else {
            continue;
        };
        let frame = edited.frame(&item.frame);
        scratch.clear();
        encode_frame(&profile, &frame, &mut scratch).map_err(write_failed(offset))?;
        if let Some((buffered, input_len)) = &mut signon {
            if matches!(frame.body, Body::SyncTick) {
                let (buffered, old_len) = (std::mem::take(buffered), *input_len);
                written += write_header(&mut out, &mut header, old_len, &buffered)
                    .map_err(io_failed(0))?;
                signon = None;
            } else {
                buffered.extend_from_slice(&scratch);
                *input_len = offset + item.len as u64 - HEADER_SIZE as u64;
                if buffered.len() > MAX_SIGNON_BYTES {
                    return Err(ScrubError::SignonTooLong { offset });
                }
                continue;
            }
        }
        out.write_all(&scratch).map_err(io_failed(offset))?;
        written += scratch.len() as u64;
    }
    if let Some((buffered, old_len)) = signon {
        written += write_header(&mut out, &mut header, old_len, &buffered).map_err(io_failed(0))?;
    }
    out.flush().map_err(io_failed(0))?;
    let mut report = walk.report;
    report.input_len = reader.position();
    report.output_len = written;
    report.mapping = names.mapping.clone();
    Ok(report)
}

/// Writes the header, its `signon_length` moved by what the signon frames grew or shrank
/// (kept as it was when it did not count them), then the signon frames.
fn write_header<W: Write>(
    out: &mut W,
    header: &mut Header,
    old_signon: u64,
    signon: &[u8],
) -> io::Result<u64> {
    if u64::try_from(header.signon_length).ok() == Some(old_signon) {
        header.signon_length = i32::try_from(signon.len()).unwrap_or(i32::MAX);
    }
    let mut bytes = Cursor::new(Vec::with_capacity(HEADER_SIZE + signon.len()));
    header
        .write(&mut bytes)
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut bytes = bytes.into_inner();
    bytes.extend_from_slice(signon);
    out.write_all(&bytes)?;
    Ok(bytes.len() as u64)
}

/// Refuses the options a Source demo has nothing for.
fn check_options(options: &ScrubOptions) -> Result<(), ScrubError> {
    let refused = [
        (options.credentials, "credentials"),
        (options.drop_reasons, "drop reasons"),
        (!options.clear_header.is_empty(), "header keys"),
    ];
    match refused.iter().find(|(asked, _)| *asked) {
        Some((_, what)) => Err(ScrubError::Options(format!(
            "a Source demo holds no {what} to scrub"
        ))),
        None => Ok(()),
    }
}

/// What a walk does with names: the first reading collects them, the second replaces
/// them.
enum Namer<'a> {
    /// Names met, in order.
    Collect(&'a mut Vec<(NameKind, Vec<u8>)>),
    /// The pseudonyms.
    Rename(&'a Names),
}

impl Namer<'_> {
    /// A player's name: noted, or its pseudonym.
    fn name(&mut self, name: &[u8]) -> Vec<u8> {
        match self {
            Namer::Collect(found) => {
                if !name.is_empty() {
                    found.push((NameKind::Name, name.to_vec()));
                }
                name.to_vec()
            }
            Namer::Rename(names) => names.get(NameKind::Name, name).to_vec(),
        }
    }

    /// Free text with the names replaced, `None` when it holds none (or while collecting).
    fn text(&self, text: &[u8]) -> Option<Vec<u8>> {
        match self {
            Namer::Collect(_) => None,
            Namer::Rename(names) => names.replace_in(text),
        }
    }
}

/// What became of a frame.
enum Edited {
    /// Its body changed.
    Body(OwnedBody),
    /// It stays as it was.
    Same,
}

/// A frame body with owned data, for the frames a walk rewrites.
enum OwnedBody {
    /// A signon or packet frame's new network data.
    Packet(Vec<u8>),
    /// A console command's new text.
    ConsoleCmd(Vec<u8>),
    /// A `dem_stringtables` frame's new data.
    StringTables(Vec<u8>),
}

impl Edited {
    /// The frame to write: `input` with the new body.
    fn frame<'a>(&'a self, input: &Frame<'a>) -> Frame<'a> {
        let body = match (self, &input.body) {
            (Edited::Same, body) => body.clone(),
            (Edited::Body(OwnedBody::Packet(data)), Body::Signon(p)) => {
                Body::Signon(PacketBody { data, ..*p })
            }
            (Edited::Body(OwnedBody::Packet(data)), Body::Packet(p)) => {
                Body::Packet(PacketBody { data, ..*p })
            }
            (Edited::Body(OwnedBody::ConsoleCmd(data)), _) => Body::ConsoleCmd(data),
            (Edited::Body(OwnedBody::StringTables(data)), _) => Body::StringTables(data),
            (Edited::Body(_), body) => body.clone(),
        };
        Frame { body, ..*input }
    }
}

/// What became of a message.
enum Message {
    /// Kept as it was.
    Same(NetMessage),
    /// Changed.
    Changed(NetMessage),
    /// Dropped, under this name.
    Dropped(&'static str),
}

/// One reading of a demo: the state its messages build, and what the scrub does to them.
struct Walk<'o, 'n> {
    state: NetState,
    text_messages: TextMessages,
    options: &'o ScrubOptions,
    namer: Namer<'n>,
    report: ScrubReport,
}

impl<'o, 'n> Walk<'o, 'n> {
    fn new(
        header: &Header,
        options: &'o ScrubOptions,
        namer: Namer<'n>,
    ) -> Result<Self, ScrubError> {
        let state = NetState::of_header(header).ok_or(ScrubError::Unsupported(
            "demos whose network messages are not decoded",
        ))?;
        let game_dir = String::from_utf8_lossy(header.game_dir.text_bytes()).into_owned();
        Ok(Walk {
            text_messages: TextMessages::of(state.protocol, &game_dir),
            state,
            options,
            namer,
            report: ScrubReport::default(),
        })
    }

    /// Whether names are replaced.
    fn names(&self) -> bool {
        self.options.names.is_some()
    }

    /// Whether chat of this kind goes (team chat or not; Source has no whispers).
    fn drops_chat(&self, team: bool) -> bool {
        self.options.removes_chat(team, false)
    }

    /// The header to write.
    fn header(&mut self, input: &Header) -> Header {
        let mut header = *input;
        if self.names() {
            let client = self.namer.name(input.client.text_bytes());
            if client != input.client.text_bytes() {
                header.client = fixed(&client);
                self.report.header_fields.push("client");
            }
        }
        if self.options.server && !input.server.text_bytes().is_empty() {
            header.server = fixed(b"");
            self.report.header_fields.push("server");
        }
        header
    }

    /// Scrubs one frame: `None` when it is dropped.
    fn frame(&mut self, offset: u64, frame: &Frame<'_>) -> Result<Option<Edited>, ScrubError> {
        let failed = |message: String| ScrubError::Network { offset, message };
        let edited = match &frame.body {
            Body::Signon(packet) | Body::Packet(packet) => self
                .packet(packet.data)
                .map_err(failed)?
                .map_or(Edited::Same, |data| Edited::Body(OwnedBody::Packet(data))),
            Body::ConsoleCmd(text) => {
                let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
                let (command, after) = text.split_at_checked(end).unwrap_or((text, &[]));
                match self.command(command) {
                    Command::Same => Edited::Same,
                    Command::Dropped => {
                        *self
                            .report
                            .dropped
                            .entry("dem_consolecmd".into())
                            .or_default() += 1;
                        return Ok(None);
                    }
                    Command::Changed(mut new) => {
                        new.extend_from_slice(after);
                        Edited::Body(OwnedBody::ConsoleCmd(new))
                    }
                }
            }
            Body::StringTables(data) => self
                .string_tables(data)
                .map_err(failed)?
                .map_or(Edited::Same, |data| {
                    Edited::Body(OwnedBody::StringTables(data))
                }),
            _ => Edited::Same,
        };
        if matches!(edited, Edited::Body(_)) {
            self.report.frames_rewritten += 1;
        }
        Ok(Some(edited))
    }

    /// A packet's data with its messages scrubbed, `None` when none changed.
    fn packet(&mut self, data: &[u8]) -> Result<Option<Vec<u8>>, String> {
        let mut messages = self.state.messages(data);
        let mut kept = Vec::new();
        let mut changed = false;
        for at in messages.by_ref() {
            let message = at.map_err(|e| e.to_string())?.message;
            // Taken before the message changes the state (an update names its table by
            // index, a creation makes it).
            let edited = self.message(message)?;
            match edited {
                Message::Same(m) => kept.push(m),
                Message::Changed(m) => {
                    changed = true;
                    kept.push(m);
                }
                Message::Dropped(name) => {
                    changed = true;
                    *self.report.dropped.entry(name.into()).or_default() += 1;
                }
            }
        }
        self.state.learned(&messages);
        if !changed {
            return Ok(None);
        }
        // The input's tail (the bits after its last message, fewer than a message number)
        // is left out: after messages of another length it could make up a number with the
        // padding. The padding is zeros: at most a `net_NOP` (number 0), as the engine pads.
        let packet = Packet {
            messages: kept,
            tail: Bits::default(),
        };
        let bits = packet
            .encode(self.state.protocol)
            .map_err(|e| format!("the scrubbed packet does not encode: {e}"))?;
        Ok(Some(bits.as_bytes().to_vec()))
    }

    /// Scrubs one message; the state takes the input's message.
    fn message(&mut self, message: NetMessage) -> Result<Message, String> {
        let edited = match &message {
            NetMessage::Protobuf(p) => match self.protobuf(p, &message)? {
                Message::Dropped(name) => return Ok(Message::Dropped(name)),
                Message::Changed(new) => Some(new),
                Message::Same(_) => None,
            },
            NetMessage::CreateStringTable(create) if create.name.as_bytes() == USERINFO => self
                .created_userinfo(create)?
                .map(NetMessage::CreateStringTable),
            NetMessage::UpdateStringTable(update)
                if self
                    .state
                    .tables
                    .get(usize::from(update.table))
                    .is_some_and(|t| t.name.as_bytes() == USERINFO) =>
            {
                self.updated_userinfo(update)?
                    .map(NetMessage::UpdateStringTable)
            }
            NetMessage::GameEvent(_) => match self.event(&message)? {
                Some(Some(event)) => Some(event),
                Some(None) => return Ok(Message::Dropped("game event")),
                None => None,
            },
            NetMessage::UserMessage(user) => match self.user_message(user.number, &user.data)? {
                UserText::Same => None,
                UserText::Changed(data) => {
                    let mut user = user.clone();
                    user.data = data;
                    Some(NetMessage::UserMessage(user))
                }
                UserText::Dropped(name) => return Ok(Message::Dropped(name)),
            },
            NetMessage::VoiceData(_)
                if self.names() || self.options.chat == Some(ChatFilter::All) =>
            {
                return Ok(Message::Dropped("svc_VoiceData"));
            }
            NetMessage::ServerInfo(info) if self.options.server && !info.host_name.is_empty() => {
                let mut info = info.clone();
                info.host_name = NetStr::default();
                self.report.texts_rewritten += 1;
                Some(NetMessage::ServerInfo(info))
            }
            NetMessage::SetConVar(set) => {
                let mut set = set.clone();
                let mut changed = false;
                for var in &mut set.vars {
                    if let Some(value) = self.convar(var.name.as_bytes(), var.value.as_bytes()) {
                        var.value = NetStr::from(&value[..]);
                        changed = true;
                        self.report.texts_rewritten += 1;
                    }
                }
                changed.then_some(NetMessage::SetConVar(set))
            }
            NetMessage::StringCmd(cmd) => match self.command(cmd.command.as_bytes()) {
                Command::Same => None,
                Command::Dropped => return Ok(Message::Dropped("net_StringCmd")),
                Command::Changed(text) => {
                    let mut cmd = cmd.clone();
                    cmd.command = NetStr::from(&text[..]);
                    Some(NetMessage::StringCmd(cmd))
                }
            },
            NetMessage::Print(print) => self.namer.text(print.text.as_bytes()).map(|text| {
                self.report.texts_rewritten += 1;
                let mut print = print.clone();
                print.text = NetStr::from(&text[..]);
                NetMessage::Print(print)
            }),
            _ => None,
        };
        self.state
            .apply(&message)
            .map_err(|e| format!("string tables: {e}"))?;
        Ok(match edited {
            Some(new) if new != message => Message::Changed(new),
            _ => Message::Same(message),
        })
    }

    /// A CS:GO message scrubbed as its bit-layout twin is; every field not scrubbed stays
    /// as stored (its body is edited field by field, or decoded into a [`pb`] struct that
    /// names all its fields). `Message::Same` holds an empty message: the caller keeps its
    /// own.
    ///
    /// [`pb`]: super::net::csgo::pb
    fn protobuf(&mut self, p: &ProtoMessage, message: &NetMessage) -> Result<Message, String> {
        use super::net::csgo::{edit_bytes_field, pb};
        use super::net::message::MessageKind as Kind;
        let same = Ok(Message::Same(NetMessage::Nop(Default::default())));
        let changed = |body: Vec<u8>| {
            Ok(Message::Changed(NetMessage::Protobuf(ProtoMessage {
                kind: p.kind,
                body,
            })))
        };
        let not_protobuf = || "a CS:GO message that is not protobuf".to_string();
        match p.kind {
            Kind::CreateStringTable | Kind::UpdateStringTable => {
                let classic = p.classic().map_err(|e| e.to_string())?;
                let data = match &classic {
                    Some(NetMessage::CreateStringTable(create))
                        if create.name.as_bytes() == USERINFO =>
                    {
                        self.created_userinfo(create)?.map(|c| c.data)
                    }
                    Some(NetMessage::UpdateStringTable(update))
                        if self
                            .state
                            .tables
                            .get(usize::from(update.table))
                            .is_some_and(|t| t.name.as_bytes() == USERINFO) =>
                    {
                        self.updated_userinfo(update)?.map(|u| u.data)
                    }
                    _ => None,
                };
                // `string_data`: field 8 of a creation, 3 of an update.
                let field = if p.kind == Kind::CreateStringTable {
                    8
                } else {
                    3
                };
                match data {
                    Some(data) => changed(
                        edit_bytes_field(&p.body, field, |_| Some(data.as_bytes().to_vec()))
                            .ok_or_else(not_protobuf)?,
                    ),
                    None => same,
                }
            }
            Kind::GameEvent => match self.event(message)? {
                Some(Some(new)) => Ok(Message::Changed(new)),
                Some(None) => Ok(Message::Dropped("game event")),
                None => same,
            },
            Kind::UserMessage => {
                let user: pb::UserMessage = p.decode().map_err(|e| e.to_string())?;
                let data = user.msg_data.unwrap_or_default();
                match self.csgo_user_message(user.msg_type.unwrap_or(-1), &data) {
                    UserText::Same => same,
                    UserText::Dropped(name) => Ok(Message::Dropped(name)),
                    // `msg_data` is field 2; `passthrough` and others stay.
                    UserText::Changed(new) => changed(
                        edit_bytes_field(&p.body, 2, |_| Some(new.clone()))
                            .ok_or_else(not_protobuf)?,
                    ),
                }
            }
            Kind::VoiceData if self.names() || self.options.chat == Some(ChatFilter::All) => {
                Ok(Message::Dropped("svc_VoiceData"))
            }
            // `host_name` is field 19.
            Kind::ServerInfo if self.options.server => {
                let mut cleared = false;
                let body = edit_bytes_field(&p.body, 19, |name| {
                    cleared |= !name.is_empty();
                    (!name.is_empty()).then(Vec::new)
                })
                .ok_or_else(not_protobuf)?;
                if cleared {
                    self.report.texts_rewritten += 1;
                    changed(body)
                } else {
                    same
                }
            }
            Kind::Print => {
                let print: pb::Print = p.decode().map_err(|e| e.to_string())?;
                match self.namer.text(&print.text.unwrap_or_default()) {
                    Some(text) => {
                        self.report.texts_rewritten += 1;
                        changed(
                            edit_bytes_field(&p.body, 1, |_| Some(text.clone()))
                                .ok_or_else(not_protobuf)?,
                        )
                    }
                    None => same,
                }
            }
            Kind::StringCmd => {
                let cmd: pb::StringCmd = p.decode().map_err(|e| e.to_string())?;
                match self.command(&cmd.command.unwrap_or_default()) {
                    Command::Same => same,
                    Command::Dropped => Ok(Message::Dropped("net_StringCmd")),
                    Command::Changed(text) => changed(
                        edit_bytes_field(&p.body, 1, |_| Some(text.clone()))
                            .ok_or_else(not_protobuf)?,
                    ),
                }
            }
            Kind::SetConVar => {
                let mut set: pb::SetConVar = p.decode().map_err(|e| e.to_string())?;
                let mut any = false;
                for var in set.convars.iter_mut().flat_map(|c| c.cvars.iter_mut()) {
                    let name = var.name.clone().unwrap_or_default();
                    let value = var.value.clone().unwrap_or_default();
                    if let Some(new) = self.convar(&name, &value) {
                        var.value = Some(new);
                        any = true;
                        self.report.texts_rewritten += 1;
                    }
                }
                if any {
                    changed(prost::Message::encode_to_vec(&set))
                } else {
                    same
                }
            }
            _ => same,
        }
    }

    /// A console variable's new value, `None` when it stays.
    fn convar(&mut self, name: &[u8], value: &[u8]) -> Option<Vec<u8>> {
        let name = String::from_utf8_lossy(name).to_ascii_lowercase();
        let identifies_server = name == "hostname"
            || name.contains("password")
            || name == "sv_downloadurl"
            || name == "tv_name"
            || name == "sv_region";
        if self.options.server && identifies_server && !value.is_empty() {
            return Some(Vec::new());
        }
        if !self.names() {
            return None;
        }
        if name == "name" {
            let new = self.namer.name(value);
            return (new != value).then_some(new);
        }
        self.namer.text(value)
    }

    /// What becomes of a console command (the recording client's `dem_consolecmd`, or a
    /// `net_StringCmd`).
    fn command(&mut self, text: &[u8]) -> Command {
        let line = String::from_utf8_lossy(text);
        let word = line
            .trim_start()
            .split(|c: char| c.is_whitespace() || c == ';')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        let credentials = matches!(
            word.as_str(),
            "connect" | "password" | "rcon" | "rcon_password" | "rcon_address" | "redirect"
        );
        if self.options.server && credentials {
            return Command::Dropped;
        }
        if (word == "say" && self.drops_chat(false))
            || (word == "say_team" && self.drops_chat(true))
        {
            return Command::Dropped;
        }
        if !self.names() {
            return Command::Same;
        }
        if word == "name" || word == "setinfo" && line.contains(" name ") {
            // `name NEW`: the player's own name, as a name.
            let value = line.trim_start()[word.len()..].trim().trim_matches('"');
            let value = value
                .strip_prefix("name ")
                .map_or(value, |v| v.trim().trim_matches('"'));
            let new = self.namer.name(value.as_bytes());
            if new != value.as_bytes() {
                self.report.texts_rewritten += 1;
                let mut out = format!("{word} \"").into_bytes();
                if word == "setinfo" {
                    out.extend_from_slice(b"name\" \"");
                }
                out.extend_from_slice(&new);
                out.push(b'"');
                return Command::Changed(out);
            }
            return Command::Same;
        }
        match self.namer.text(text) {
            Some(new) => {
                self.report.texts_rewritten += 1;
                Command::Changed(new)
            }
            None => Command::Same,
        }
    }

    /// A `userinfo` entry's user data scrubbed, `None` when it stays.
    fn user_data(&mut self, data: &Bits) -> Option<Bits> {
        if !self.names() || !data.len().is_multiple_of(8) {
            return None;
        }
        let bytes = data.as_bytes();
        let namer = &mut self.namer;
        let new = PlayerInfo::scrub(bytes, |name| namer.name(name))?;
        (new != bytes).then(|| {
            self.report.players_rewritten += 1;
            Bits::from_bytes(new)
        })
    }

    /// Scrubs each `userinfo` entry's user data of `entries` in place; whether one changed.
    fn user_data_of<'d>(&mut self, entries: impl Iterator<Item = &'d mut Option<Bits>>) -> bool {
        let mut changed = false;
        for data in entries {
            if let Some(new) = data.as_ref().and_then(|d| self.user_data(d)) {
                *data = Some(new);
                changed = true;
            }
        }
        changed
    }

    /// Entries of a `userinfo` create or update, scrubbed and encoded again; `None` when
    /// none changed (or the entries are not readable: dictionary-encoded ones hold no
    /// player).
    fn entries(
        &mut self,
        data: &Bits,
        count: usize,
        shape: TableShape,
    ) -> Result<Option<Bits>, String> {
        let protocol = self.state.protocol;
        let mut entries: Vec<EntryUpdate> = Vec::new();
        let mut decoder = Decoder::new(data.reader());
        if code_entries(&mut decoder, &mut entries, count, shape, protocol).is_err() {
            return Ok(None);
        }
        let rest = decoder.reader().remaining();
        let changed = self.user_data_of(entries.iter_mut().map(|e| &mut e.user_data));
        if !changed {
            return Ok(None);
        }
        let mut encoder = Encoder::new(BitWriter::new());
        code_entries(&mut encoder, &mut entries, count, shape, protocol)
            .map_err(|e| format!("the scrubbed userinfo entries do not encode: {e}"))?;
        // Bits after the entries (none in real files) stay.
        let mut tail = data.reader();
        tail.skip(data.len() - rest).map_err(|e| e.to_string())?;
        encoder.writer_mut().write_reader(tail);
        Ok(Some(encoder.into_writer().finish()))
    }

    /// A `userinfo` creation scrubbed (its entries then uncompressed), `None` when it stays.
    fn created_userinfo(
        &mut self,
        create: &CreateStringTable,
    ) -> Result<Option<CreateStringTable>, String> {
        let data = create_data(create, MAX_TABLE_BYTES).map_err(|e| e.to_string())?;
        let shape = TableShape::of(create);
        Ok(self
            .entries(&data, usize::from(create.entries), shape)?
            .map(|data| {
                let mut create = create.clone();
                create.data = data;
                create.flags &= !1;
                create
            }))
    }

    /// A `userinfo` update scrubbed, `None` when it stays.
    fn updated_userinfo(
        &mut self,
        update: &UpdateStringTable,
    ) -> Result<Option<UpdateStringTable>, String> {
        let shape = (self.state.tables.get(usize::from(update.table)))
            .ok_or_else(|| format!("no string table {}", update.table))?
            .shape;
        let count = update.changed.map_or(1, usize::from);
        Ok(self.entries(&update.data, count, shape)?.map(|data| {
            let mut update = update.clone();
            update.data = data;
            update
        }))
    }

    /// A `dem_stringtables` frame with its `userinfo` entries scrubbed, `None` when it
    /// stays. The state takes the input's frame.
    fn string_tables(&mut self, data: &[u8]) -> Result<Option<Vec<u8>>, String> {
        self.state
            .apply_string_tables_frame(data)
            .map_err(|e| e.to_string())?;
        if !self.names() {
            return Ok(None);
        }
        let mut frame = StringTablesFrame::default();
        frame
            .code(&mut Decoder::new(BitReader::new(data)))
            .map_err(|e| e.to_string())?;
        let mut changed = false;
        for table in frame
            .tables
            .iter_mut()
            .filter(|t| t.name.as_bytes() == USERINFO)
        {
            let client = table.client_entries.iter_mut().flatten();
            let entries = table.entries.iter_mut().chain(client);
            changed |= self.user_data_of(entries.map(|e| &mut e.user_data));
        }
        if !changed {
            return Ok(None);
        }
        let mut encoder = Encoder::new(BitWriter::new());
        frame
            .code(&mut encoder)
            .map_err(|e| format!("the scrubbed string tables do not encode: {e}"))?;
        Ok(Some(encoder.into_writer().finish().as_bytes().to_vec()))
    }

    /// A game event scrubbed: `None` when it stays, `Some(None)` when it goes.
    fn event(&mut self, message: &NetMessage) -> Result<Option<Option<NetMessage>>, String> {
        let (descriptor, mut data) = match self.state.event_of(message) {
            Some(Ok((descriptor, data))) => (descriptor.clone(), data),
            Some(Err(e)) => return Err(format!("game event: {e}")),
            None => return Ok(None),
        };
        let event = descriptor.name.to_string_lossy().into_owned();
        let keys: Vec<String> = descriptor
            .keys
            .iter()
            .map(|k| k.name.to_string_lossy().into_owned())
            .collect();
        if matches!(event.as_str(), "player_say" | "player_chat") {
            let team = keys
                .iter()
                .zip(&data.values)
                .any(|(k, v)| k == "teamonly" && v.as_i64().is_some_and(|t| t != 0));
            if self.drops_chat(team) {
                return Ok(Some(None));
            }
        }
        let mut changed = Vec::new();
        for (i, (key, value)) in keys.iter().zip(&mut data.values).enumerate() {
            let new = match value {
                EventValue::String(text) => self.event_string(&event, key, text.as_bytes()),
                EventValue::Uint64(id) if self.names() && key == "xuid" && *id != 0 => {
                    Some(EventValue::Uint64(0))
                }
                EventValue::Long(ip)
                    if self.options.server
                        && event == "server_spawn"
                        && key == "ip"
                        && *ip != 0 =>
                {
                    Some(EventValue::Long(0))
                }
                _ => None,
            };
            if let Some(new) = new {
                *value = new;
                changed.push(i);
            }
        }
        if changed.is_empty() {
            return Ok(None);
        }
        self.report.events_rewritten += 1;
        if let NetMessage::Protobuf(p) = message {
            // CS:GO: the changed keys' values set in its protobuf event, the rest as it was.
            use super::net::csgo::pb;
            let mut event: pb::GameEvent = p.decode().map_err(|e| e.to_string())?;
            for i in changed {
                let Some(key) = event.keys.get_mut(i) else {
                    continue;
                };
                match data.values.get(i) {
                    Some(EventValue::String(text)) => key.val_string = Some(text.0.clone()),
                    Some(EventValue::Uint64(v)) => key.val_uint64 = Some(*v),
                    Some(EventValue::Long(v)) => key.val_long = Some(*v),
                    _ => {}
                }
            }
            return Ok(Some(Some(NetMessage::Protobuf(ProtoMessage::of(
                p.kind, &event,
            )))));
        }
        let mut encoder = Encoder::new(BitWriter::new());
        data.code(&mut encoder, &self.state.events)
            .map_err(|e| format!("the scrubbed game event does not encode: {e}"))?;
        let mut event = match message {
            NetMessage::GameEvent(event) => event.clone(),
            _ => return Ok(None),
        };
        event.data = encoder.into_writer().finish();
        Ok(Some(Some(NetMessage::GameEvent(event))))
    }

    /// A string value of a game event scrubbed, `None` when it stays.
    fn event_string(&mut self, event: &str, key: &str, text: &[u8]) -> Option<EventValue> {
        let string = |bytes: &[u8]| Some(EventValue::String(NetStr::from(bytes)));
        if self.options.server && event == "server_spawn" && matches!(key, "hostname" | "address") {
            return (!text.is_empty()).then(|| string(b"")).flatten();
        }
        if !self.names() {
            return None;
        }
        match key {
            "name" | "oldname" | "newname" => {
                let new = self.namer.name(text);
                (new != text).then(|| string(&new)).flatten()
            }
            "networkid" | "steamid" => {
                let kept = text.is_empty() || text == b"BOT" || text == SCRUBBED_GUID.as_bytes();
                (!kept).then(|| string(SCRUBBED_GUID.as_bytes())).flatten()
            }
            "address" | "ip" => (!text.is_empty()).then(|| string(b"")).flatten(),
            _ => self.namer.text(text).and_then(|new| string(&new)),
        }
    }

    /// A text user message of a bit-layout branch scrubbed.
    fn user_message(&mut self, number: u8, data: &Bits) -> Result<UserText, String> {
        let m = self.text_messages;
        let encoded = |code: &mut dyn FnMut(&mut Encoder) -> Result<(), super::net::NetError>| {
            let mut encoder = Encoder::new(BitWriter::new());
            code(&mut encoder)
                .map_err(|e| format!("the scrubbed user message does not encode: {e}"))?;
            Ok::<_, String>(encoder.into_writer().finish())
        };
        let edit = if number == m.say_text {
            let mut say = SayText::default();
            if say.code(&mut Decoder::new(data.reader())).is_err() {
                return Ok(UserText::Same);
            }
            match self.say_text(&mut say.text.0) {
                TextEdit::Changed => TextEdit::Changed.map(encoded(&mut |e| say.code(e))?),
                other => other.same(),
            }
        } else if Some(number) == m.say_text2 {
            let mut say = SayText2::default();
            if say.code(&mut Decoder::new(data.reader())).is_err() {
                return Ok(UserText::Same);
            }
            let mut params: Vec<Vec<u8>> = say.params.iter().map(|p| p.0.clone()).collect();
            match self.say_text2(say.client, &mut say.message.0, &mut params) {
                TextEdit::Changed => {
                    say.params = params.into_iter().map(NulStr).collect();
                    TextEdit::Changed.map(encoded(&mut |e| say.code(e))?)
                }
                other => other.same(),
            }
        } else if number == m.text_msg {
            let mut msg = TextMsg::default();
            if msg.code(&mut Decoder::new(data.reader())).is_err() {
                return Ok(UserText::Same);
            }
            let mut texts: Vec<Vec<u8>> = std::iter::once(msg.message.0.clone())
                .chain(msg.params.iter().map(|p| p.0.clone()))
                .collect();
            match self.text_msg(&mut texts) {
                TextEdit::Changed => {
                    msg.message = NulStr(texts.remove(0));
                    msg.params = texts.into_iter().map(NulStr).collect();
                    TextEdit::Changed.map(encoded(&mut |e| msg.code(e))?)
                }
                other => other.same(),
            }
        } else {
            return Ok(UserText::Same);
        };
        Ok(edit)
    }

    /// A CS:GO user message's data (`CCSUsrMsg_SayText`, `SayText2`, `TextMsg`) scrubbed.
    fn csgo_user_message(&mut self, number: i32, data: &[u8]) -> UserText<Vec<u8>> {
        use super::net::csgo::pb;
        use prost::Message as _;
        let m = self.text_messages;
        if number == i32::from(m.say_text) {
            let Ok(mut say) = pb::SayText::decode(data) else {
                return UserText::Same;
            };
            let mut text = say.text.clone().unwrap_or_default();
            match self.say_text(&mut text) {
                TextEdit::Changed => {
                    say.text = Some(text);
                    UserText::Changed(say.encode_to_vec())
                }
                other => other.same(),
            }
        } else if Some(number) == m.say_text2.map(i32::from) {
            let Ok(mut say) = pb::SayText2::decode(data) else {
                return UserText::Same;
            };
            let mut token = say.msg_name.clone().unwrap_or_default();
            let client = u8::try_from(say.ent_idx.unwrap_or(0)).unwrap_or(0);
            match self.say_text2(client, &mut token, &mut say.params) {
                TextEdit::Changed => {
                    say.msg_name = Some(token);
                    UserText::Changed(say.encode_to_vec())
                }
                other => other.same(),
            }
        } else if number == i32::from(m.text_msg) {
            let Ok(mut msg) = pb::TextMsg::decode(data) else {
                return UserText::Same;
            };
            match self.text_msg(&mut msg.params) {
                TextEdit::Changed => UserText::Changed(msg.encode_to_vec()),
                other => other.same(),
            }
        } else {
            UserText::Same
        }
    }

    /// `SayText`'s text: dropped with all chat, else its names replaced.
    fn say_text(&mut self, text: &mut Vec<u8>) -> TextEdit {
        if self.drops_chat(false) {
            return TextEdit::Dropped("SayText");
        }
        match self.namer.text(text) {
            Some(new) => {
                self.report.texts_rewritten += 1;
                *text = new;
                TextEdit::Changed
            }
            None => TextEdit::Same,
        }
    }

    /// `SayText2` from entity `client`: a chat line dropped as the filter asks, else its
    /// speaker (and a rename's old and new name) renamed and names replaced in the rest.
    fn say_text2(&mut self, client: u8, token: &mut Vec<u8>, params: &mut [Vec<u8>]) -> TextEdit {
        let text = String::from_utf8_lossy(token).into_owned();
        let raw = params.is_empty() || text.starts_with('\u{1}');
        let rename = text.contains("Name_Change");
        // A plugin's raw text in no player's name (entity 0) is the server's, not chat.
        let server_text = raw && client == 0;
        if !rename && !server_text {
            let team = text.contains("Team")
                || text.contains("team")
                || (text.starts_with("Cstrike_Chat_") && !text.starts_with("Cstrike_Chat_All"));
            if self.drops_chat(team && !raw) {
                return TextEdit::Dropped("SayText2");
            }
        }
        let mut changed = false;
        if raw && let Some(new) = self.namer.text(token) {
            *token = new;
            changed = true;
        }
        for (i, param) in params.iter_mut().enumerate() {
            // The speaker (and in a rename the old and the new name) are names.
            let new = if i == 0 || rename && i == 1 {
                let new = self.namer.name(param);
                (new != *param).then_some(new)
            } else {
                self.namer.text(param)
            };
            if let Some(new) = new {
                *param = new;
                changed = true;
            }
        }
        self.counted(changed)
    }

    /// `TextMsg`'s token and parameters with their names replaced.
    fn text_msg(&mut self, texts: &mut [Vec<u8>]) -> TextEdit {
        let mut changed = false;
        for text in texts {
            if let Some(new) = self.namer.text(text) {
                *text = new;
                changed = true;
            }
        }
        self.counted(changed)
    }

    /// What became of a message whose texts were edited in place, counted in the report
    /// when one changed.
    fn counted(&mut self, changed: bool) -> TextEdit {
        if changed {
            self.report.texts_rewritten += 1;
            TextEdit::Changed
        } else {
            TextEdit::Same
        }
    }
}

/// What becomes of a console command.
enum Command {
    Same,
    Changed(Vec<u8>),
    Dropped,
}

/// What becomes of a user message: its new data (bits, or a CS:GO body).
enum UserText<D = Bits> {
    Same,
    Changed(D),
    Dropped(&'static str),
}

/// What became of a user message's texts, edited in place.
enum TextEdit {
    Same,
    Changed,
    Dropped(&'static str),
}

impl TextEdit {
    /// The message's new data, when it changed.
    fn map<D>(self, data: D) -> UserText<D> {
        match self {
            TextEdit::Changed => UserText::Changed(data),
            other => other.same(),
        }
    }

    /// What becomes of a message whose texts did not change (or that goes).
    fn same<D>(self) -> UserText<D> {
        match self {
            TextEdit::Dropped(name) => UserText::Dropped(name),
            _ => UserText::Same,
        }
    }
}

/// A 260-byte header field holding `text` (cut to fit).
fn fixed(text: &[u8]) -> crate::codec::string::FixedStr<260> {
    let mut raw = [0u8; 260];
    for (to, from) in raw.iter_mut().take(259).zip(text) {
        *to = *from;
    }
    crate::codec::string::FixedStr::from_raw(raw)
}
