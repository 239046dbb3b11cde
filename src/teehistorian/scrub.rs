//! Scrubbing a teehistorian file before it is shared: player names and clans, credentials,
//! chat, drop reasons and header fields taken out, everything else kept byte for byte.
//!
//! Teehistorian archives are handed to researchers, and a file holds more than the game:
//! the players' names and clans (PLAYER_NAME records, `Cl_StartInfo`/`Cl_ChangeInfo`
//! messages), account names (AUTH_INIT/AUTH_LOGIN), console commands that can carry
//! passwords (older servers recorded `auth_add`, `sv_rcon_password` and the like; DDNet at
//! 28baa427 marks them `CFGFLAG_NONTEEHISTORIC` and records them no more), whispers and
//! other chat a client sent, drop reasons and header fields such as the server's name.
//! [`scrub`] rewrites a file with what [`ScrubOptions`] asks for taken out (the options,
//! pseudonyms and chat filters are those of every format's scrub, in
//! [`crate::scrub`](mod@crate::scrub); what is teehistorian's is here):
//!
//! * **Names** ([`ScrubOptions::names`]): every player name and clan becomes a pseudonym,
//!   the same one for the same name throughout the file: `player-<8 hex>` and
//!   `clan-<6 hex>`, the first bytes of HMAC-SHA256(key, name) when a key is given (so the
//!   same player gets the same pseudonym in every file scrubbed with that key), else
//!   `player-1`, `player-2`, … and `clan-1`, … in order of appearance in the file. Both fit
//!   DDNet's limits (15 bytes for a name, 11 for a clan). The names are rewritten where the
//!   game carries them (PLAYER_NAME, the name and clan fields of `Cl_StartInfo` and
//!   `Cl_ChangeInfo`, other fields of those messages kept byte for byte), and replaced
//!   inside free text wherever they occur: console command arguments, drop reasons, chat
//!   text, saved teams' strings, account names. A name of one or two bytes is replaced in
//!   free text only where it is the whole text (as a substring it would hit every word).
//!   Any other client message or EX record of an unknown kind whose bytes still hold a
//!   name of three bytes or more is dropped: its fields are not known well enough to
//!   rewrite.
//! * **Antibot data** (`teehistorian-antibot@ddnet.org`, which the closed-source antibot
//!   module writes: data about players that no reader can check) is dropped by every
//!   scrub, and counted in the report's `dropped`. A name that already has the shape of a pseudonym
//!   (`player-` and 8 hex digits or a number; `clan-` and 6 hex digits or a number) is left
//!   as it is, which is what makes scrubbing idempotent; counters skip numbers already
//!   taken so.
//! * **Credentials** ([`ScrubOptions::credentials`]): console commands that carry
//!   passwords, keys or account data ([`CREDENTIAL_COMMANDS`]) are dropped; account names
//!   of AUTH_INIT, AUTH_INIT_ROLE and AUTH_LOGIN become `account-<…>` pseudonyms (made as
//!   names are), and rcon roles by name (DDNet #12788) `role-<…>` ones; the
//!   header's `config` loses the variables that hold passwords ([`CREDENTIAL_COMMANDS`]
//!   names them too).
//! * **Chat** ([`ScrubOptions::chat`]): `Cl_Say` messages (all of them, team chat only, or
//!   whispers only) are dropped, and with all or whispers the whisper commands (`w`,
//!   `whisper`, `c`, `converse`) that clients send as chat and a server may record as
//!   console commands. DDNet records no `Cl_Say` itself; other writers may.
//! * **Drop reasons** ([`ScrubOptions::drop_reasons`]): DROP reasons become empty.
//! * **Server** ([`ScrubOptions::server`]): what identifies the server that recorded the
//!   file goes from the header: `server_name` and `server_port` ([`SERVER_HEADER_KEYS`])
//!   are emptied, `server_version` keeps only its version numbers (`0.6.4, 11.0.1 (…)`
//!   becomes `0.6.4, 11.0.1`: builds put free text after them), `config` loses every
//!   variable whose value is not a plain number and every port ([`is_server_identity`]:
//!   `sv_name`, `sv_port`, `bindaddr`, `sv_motd`, `sv_welcome`, rules lines, log file
//!   names …), and keys other writers add lose their text. Kept: the numeric settings,
//!   `tuning`, `game_type`, the map's name and checksums, `start_time`, `game_uuid` and
//!   `prev_game_uuid` (they link a file to the games before and after it; clear them with
//!   `clear_header` when that link is too much), `comment` and `prng_description`.
//! * **Header** ([`ScrubOptions::clear_header`]): the named keys get an empty value (an
//!   empty string; `config` and `tuning` an empty object, `uuids` an empty array), and
//!   `config.NAME` or `tuning.NAME` takes one setting out, so the header keeps its keys and
//!   stays one DDNet could have written; a changed header is written as DDNet writes
//!   headers ([`Header::write_json`]), an unchanged one keeps its bytes. `version` cannot be
//!   cleared: readers need it. A key no header can hold (not one of DDNet's keys, not a
//!   key this file's writer added, not `config.NAME`/`tuning.NAME` with NAME a variable's
//!   name) is refused, so that a misspelt key does not pass for a scrub.
//!
//! What stays: every message not named above is copied as stored (non-canonical ints and
//! all), and no player, input, join, TICK_SKIP or FINISH record is ever dropped or changed.
//! Only those records and TICK_SKIP move a reader's tick ([`TickState`](super::TickState)),
//! so every message kept has the tick it had, and the [semantic layer](super::semantic)
//! gives the same positions, inputs and connected clients at every tick. A tick whose only
//! other records were dropped keeps its TICK_SKIP: DDNet writes no tick without a record,
//! but a reader numbers it the same, and folding it into the next TICK_SKIP would take the
//! tick out of the stream.
//!
//! A file that does not read to its end (cut inside a message, bytes that do not read,
//! bytes after FINISH) is refused with a [`ScrubError`] naming the offset: what is after
//! the break could hold anything, so `demokit repair` should make the file whole first. A
//! file that ends on a message boundary without FINISH is scrubbed and stays unfinished.
//! The whole input is read before a byte is written: [`scrub_reader`] reads a file twice
//! as a stream (to check it and find the names, then to write), so that a server's
//! multi-gigabyte file is scrubbed in the memory of a few messages.
//!
//! Left to others: names inside the fields of client messages other than the ones named
//! above are not rewritten (the message is dropped when a name shows in its bytes); the
//! header's free text is not searched for names (with `server` none is left but the map's
//! and the game type's names); IP addresses are not in teehistorian
//! files; a name given in a console command before the player's first name record is
//! replaced too (the whole file is read first), but a name a file never records as a name
//! is not known to be one.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{ReadError, ReadErrorKind, WriteError};
use super::header::{DDNET_KEY_ORDER, Header};
use super::message::{Args, AuthRole, Ex, Message};
use super::reader::{MessageAt, ReadMessages, TeehistorianReader};
use super::writer::TeehistorianWriter;
use crate::codec::string::NulStr;
use crate::gamenet::{AnyMessage, Protocol, seven, six};
use crate::scrub::{ChatFilter, Mapping, NameKind, Names, ScrubOptions, split_strings};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};

/// Console commands (and config variables, which are commands too) whose arguments carry
/// passwords, keys or account data, from DDNet at 28baa427 (those marked
/// `CFGFLAG_NONTEEHISTORIC` for that reason, and `login`/`ec_password` of older servers
/// and the econ).
pub const CREDENTIAL_COMMANDS: &[&str] = &[
    "login",
    "auth_add",
    "auth_add_p",
    "auth_change",
    "auth_change_p",
    "auth_remove",
    "add_sqlserver",
    "password",
    "sv_rcon_password",
    "sv_rcon_mod_password",
    "sv_rcon_helper_password",
    "sv_reserved_slots_pass",
    "sv_dnsbl_key",
    "ec_password",
];

/// The chat commands DDNet registers for whispers (`CFGFLAG_CHAT`): `/w NAME TEXT`,
/// `/whisper`, and `/c TEXT`, `/converse` to answer the last whisper.
pub(crate) const WHISPER_COMMANDS: &[&str] = &["w", "whisper", "c", "converse"];

/// What [`scrub`] changed. Scrubbing its output again with the same options reports no
/// change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ScrubReport {
    /// Size of the input.
    pub input_len: usize,
    /// Size of the output.
    pub output_len: u64,
    /// Messages read (FINISH included).
    pub messages: u64,
    /// Messages copied as stored.
    pub messages_kept: u64,
    /// Player names rewritten (PLAYER_NAME records and name fields of client messages).
    pub names_rewritten: u64,
    /// Clan fields rewritten.
    pub clans_rewritten: u64,
    /// Account names rewritten.
    pub accounts_rewritten: u64,
    /// Rcon role names rewritten (AUTH_INIT_ROLE, AUTH_LOGIN with a role by name).
    pub roles_rewritten: u64,
    /// Free-text fields in which names were replaced (console arguments, drop reasons, chat
    /// text, saved teams).
    pub texts_rewritten: u64,
    /// DROP reasons emptied.
    pub reasons_cleared: u64,
    /// Messages dropped, by kind: `CONSOLE_COMMAND <cmd>`, `MESSAGE <message name>`, or an
    /// EX record's kind name.
    pub dropped: BTreeMap<String, u64>,
    /// Header keys whose values were emptied (or, for `server_version`, cut to its
    /// versions), and `config.<variable>`/`tuning.<variable>` for settings taken out.
    pub header_cleared: Vec<String>,
    /// Whether the input (and so the output) ends with FINISH.
    pub finished: bool,
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
    /// Messages dropped, of all kinds.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.values().sum()
    }

    /// Whether the output differs from the input.
    pub fn changed(&self) -> bool {
        self.names_rewritten
            + self.clans_rewritten
            + self.accounts_rewritten
            + self.roles_rewritten
            + self.texts_rewritten
            + self.reasons_cleared
            + self.dropped_total()
            > 0
            || !self.header_cleared.is_empty()
    }
}

/// Why a file cannot be scrubbed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScrubError {
    /// The options ask for something that cannot be done (clearing `version`).
    #[error("{0}")]
    Options(String),
    /// The file UUID or the JSON header cannot be read.
    #[error("the header cannot be read: {0}")]
    Header(#[source] ReadError),
    /// A message does not read (cut short, unknown, or bytes after FINISH): nothing is
    /// written, since what follows cannot be checked (`demokit repair` keeps the complete
    /// messages).
    #[error("{0}; nothing was written (a repair keeps every complete message)")]
    Read(#[source] ReadError),
    /// Writing failed: an I/O error of the sink, or a rewritten message that does not
    /// encode (the offset is the input message's).
    #[error("at byte {offset}: {source}")]
    Write {
        /// Offset of the input message being written (the body's start for the header).
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
            ScrubError::Header(e) | ScrubError::Read(e) => Some(e.offset),
            ScrubError::Write { offset, .. } => Some(*offset),
        }
    }
}

/// Each client id's protocol, as the join-version records announce it (a 0.7 client's
/// messages are recorded as it sent them).
struct Protocols {
    sixup: [bool; 128],
    next: [bool; 128],
}

impl Protocols {
    fn new() -> Self {
        Protocols {
            sixup: [false; 128],
            next: [false; 128],
        }
    }

    fn slot(cid: i32) -> Option<usize> {
        usize::try_from(cid).ok().filter(|&c| c < 128)
    }

    fn follow(&mut self, message: &Message<'_>) {
        match message {
            Message::Ex(Ex::JoinVer7 { cid }) | Message::Ex(Ex::JoinVer6 { cid }) => {
                if let Some(next) = Self::slot(*cid).and_then(|c| self.next.get_mut(c)) {
                    *next = matches!(message, Message::Ex(Ex::JoinVer7 { .. }));
                }
            }
            Message::Join { cid } => {
                if let Some(c) = Self::slot(*cid)
                    && let (Some(sixup), Some(next)) = (self.sixup.get_mut(c), self.next.get_mut(c))
                {
                    *sixup = std::mem::take(next);
                }
            }
            _ => {}
        }
    }

    fn of(&self, cid: i32) -> Protocol {
        match Self::slot(cid) {
            Some(c) if self.sixup.get(c) == Some(&true) => Protocol::Seven,
            _ => Protocol::Six,
        }
    }
}

/// What a client message is, for scrubbing.
enum Said {
    /// `Cl_StartInfo`/`Cl_ChangeInfo`: name and clan are the first two fields.
    Info,
    /// `Cl_Say`: `ints` ints before the text; whether it is team chat or a whisper.
    Say {
        ints: usize,
        team: bool,
        whisper: bool,
    },
    /// Anything else.
    Other,
}

fn classify(message: &AnyMessage<'_>) -> Said {
    match message {
        AnyMessage::Six(six::Message::ClStartInfo(_) | six::Message::ClChangeInfo(_))
        | AnyMessage::Seven(seven::Message::ClStartInfo(_)) => Said::Info,
        AnyMessage::Six(six::Message::ClSay(m)) => {
            let text = &m.message.0;
            let whisper = [&b"/w "[..], b"/whisper ", b"/c ", b"/converse "]
                .iter()
                .any(|p| text.starts_with(p));
            Said::Say {
                ints: 1,
                team: m.team != 0,
                whisper,
            }
        }
        AnyMessage::Seven(seven::Message::ClSay(m)) => Said::Say {
            ints: 2,
            team: m.mode == 2,
            whisper: m.mode == 3,
        },
        _ => Said::Other,
    }
}

/// The header keys [`ScrubOptions::server`] empties: the server's name and port.
pub const SERVER_HEADER_KEYS: &[&str] = &["server_name", "server_port"];

/// Whether [`ScrubOptions::server`] takes the config variable `name` with value `value` out:
/// every value that is not a plain number (names, addresses, the MOTD, the welcome and
/// rules texts, file names: free text that can say anything), and the port numbers
/// (variables ending in `port`), which with the address find the server.
pub fn is_server_identity(name: &str, value: &str) -> bool {
    let number = value.strip_prefix('-').unwrap_or(value);
    let plain_number = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit());
    !plain_number || name.ends_with("port")
}

/// The part of a `server_version` that is versions only: DDNet writes `0.6.4, 20.1`, and
/// builds add free text after it (`0.6.4, 11.0.1 (git hash)`, a fork's own name). What is
/// kept is the leading run of comma-separated version numbers (digits and dots).
fn versions_only(version: &str) -> &str {
    let is_version = |token: &str| {
        token.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && token.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    };
    let (mut start, mut end) = (0, 0);
    for part in version.split(", ") {
        let token = part.split(' ').next().unwrap_or("");
        if !is_version(token) {
            break;
        }
        end = start + token.len();
        if token.len() < part.len() {
            break;
        }
        start += part.len() + 2;
    }
    &version[..end]
}

/// Adds `key` to the keys a scrub cleared, once.
fn note(cleared: &mut Vec<String>, key: String) {
    if !cleared.contains(&key) {
        cleared.push(key);
    }
}

/// Empties the header keys asked for (and with `server`, what identifies the server);
/// returns the keys it changed. A key the header cannot hold is an error.
fn clear_header(header: &mut Header, options: &ScrubOptions) -> Result<Vec<String>, ScrubError> {
    let mut cleared = Vec::new();
    for key in &options.clear_header {
        if key == "version" {
            return Err(ScrubError::Options(
                "the header's version cannot be cleared: readers need it".into(),
            ));
        }
        if let Some((table, variable)) = key.split_once('.') {
            let pairs = match table {
                "config" => &mut header.config,
                "tuning" => &mut header.tuning,
                _ => {
                    return Err(ScrubError::Options(format!(
                        "--clear-header {key:?}: only config and tuning hold variables \
                         (config.NAME, tuning.NAME)"
                    )));
                }
            };
            let well_formed = !variable.is_empty()
                && variable
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if !well_formed {
                return Err(ScrubError::Options(format!(
                    "--clear-header {key:?}: {variable:?} is no {table} variable's name"
                )));
            }
            // A variable the file does not list is no value to clear: most likely a typo
            // (`config.sv_nmae`), which must not pass as done.
            let held: Vec<String> = pairs.iter().flatten().map(|(k, _)| k.clone()).collect();
            if !held.iter().any(|k| k == variable) {
                let shown: Vec<&str> = held.iter().take(40).map(String::as_str).collect();
                return Err(ScrubError::Options(format!(
                    "--clear-header {key:?}: this file's {table} holds no {variable:?} ({})",
                    if shown.is_empty() {
                        format!("it holds no {table} variable")
                    } else {
                        format!(
                            "it holds {}{}",
                            shown.join(", "),
                            if held.len() > shown.len() {
                                ", …"
                            } else {
                                ""
                            }
                        )
                    }
                )));
            }
            if let Some(pairs) = pairs {
                pairs.retain(|(k, _)| k != variable);
                note(&mut cleared, key.clone());
            }
            continue;
        }
        let in_extra = header.extra.iter().any(|(k, _)| k == key);
        // `version` was refused above; every other key DDNet writes can be cleared.
        if !DDNET_KEY_ORDER.contains(&key.as_str()) && !in_extra {
            return Err(ScrubError::Options(format!(
                "--clear-header {key:?}: the header has no such key (it has {}, config.NAME, \
                 tuning.NAME and keys other writers add)",
                DDNET_KEY_ORDER[..]
                    .iter()
                    .filter(|&&k| k != "version")
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        if empty_key(header, key) {
            note(&mut cleared, key.clone());
        }
    }
    if options.server {
        for key in SERVER_HEADER_KEYS {
            if empty_key(header, key) {
                note(&mut cleared, (*key).to_owned());
            }
        }
        if let Some(version) = &mut header.server_version {
            let kept = versions_only(version).len();
            if kept < version.len() {
                version.truncate(kept);
                note(&mut cleared, "server_version".to_owned());
            }
        }
        if let Some(config) = &mut header.config {
            config.retain(|(k, v)| {
                let identity = is_server_identity(k, v);
                if identity {
                    note(&mut cleared, format!("config.{k}"));
                }
                !identity
            });
        }
        // Keys other writers add are free text DDNet does not know the meaning of.
        for (k, v) in &mut header.extra {
            if v.is_string() && *v != Value::String(String::new()) {
                *v = Value::String(String::new());
                note(&mut cleared, k.clone());
            }
        }
    }
    if options.credentials
        && let Some(config) = &mut header.config
    {
        config.retain(|(k, _)| {
            let secret = CREDENTIAL_COMMANDS.contains(&k.as_str());
            if secret {
                note(&mut cleared, format!("config.{k}"));
            }
            !secret
        });
    }
    Ok(cleared)
}

/// Empties one top-level key (an empty string; `config` and `tuning` an empty object,
/// `uuids` an empty array; a key another writer added an empty string); whether it
/// changed.
fn empty_key(header: &mut Header, key: &str) -> bool {
    let empty_str = |v: &mut Option<String>| match v {
        Some(s) if !s.is_empty() => {
            s.clear();
            true
        }
        _ => false,
    };
    let changed = match key {
        "comment" => empty_str(&mut header.comment),
        "version_minor" => empty_str(&mut header.version_minor),
        "game_uuid" => empty_str(&mut header.game_uuid),
        "prev_game_uuid" => empty_str(&mut header.prev_game_uuid),
        "server_version" => empty_str(&mut header.server_version),
        "start_time" => empty_str(&mut header.start_time),
        "server_name" => empty_str(&mut header.server_name),
        "server_port" => empty_str(&mut header.server_port),
        "game_type" => empty_str(&mut header.game_type),
        "map_name" => empty_str(&mut header.map_name),
        "map_size" => empty_str(&mut header.map_size),
        "map_sha256" => empty_str(&mut header.map_sha256),
        "map_crc" => empty_str(&mut header.map_crc),
        "prng_description" => empty_str(&mut header.prng_description),
        "config" | "tuning" => {
            let pairs = if key == "config" {
                &mut header.config
            } else {
                &mut header.tuning
            };
            match pairs {
                Some(p) if !p.is_empty() => {
                    p.clear();
                    true
                }
                _ => false,
            }
        }
        "uuids" => match &mut header.uuids {
            Some(u) if !u.is_empty() => {
                u.clear();
                true
            }
            _ => false,
        },
        _ => false,
    };
    // Known keys holding another kind of value, and unknown keys, are in `extra`.
    let mut changed_extra = false;
    for (k, v) in &mut header.extra {
        if k == key && *v != Value::String(String::new()) {
            *v = Value::String(String::new());
            changed_extra = true;
        }
    }
    changed || changed_extra
}

/// Writes `input` with what `options` asks for taken out (see the [module docs](self)).
///
/// The whole input is read first; a file that does not read to its end is refused before
/// anything is written. On a write error the sink may hold part of the output.
pub fn scrub<W: Write>(
    input: &[u8],
    options: &ScrubOptions,
    out: W,
) -> Result<ScrubReport, ScrubError> {
    scrub_reader(|| Ok(input), options, out)
}

/// [`scrub`] of a file read twice as a stream from its start, each time from what `open`
/// returns (a file opened again): once to check that it reads and to find the names, once
/// to write. Memory does not grow with the file. The second reading stops where the first
/// ended, so a file that grew in between is scrubbed as it was when first read (a name
/// only in the part added would not be known to be one).
pub fn scrub_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> std::io::Result<R>,
    options: &ScrubOptions,
    out: W,
) -> Result<ScrubReport, ScrubError> {
    let opened = |open: &mut dyn FnMut() -> std::io::Result<R>| {
        open().map_err(|e| ScrubError::Header(ReadError::new(0, ReadErrorKind::Io(e))))
    };
    let mut messages = TeehistorianReader::new(opened(&mut open)?).map_err(ScrubError::Header)?;
    let body = messages.body_offset();

    // Pass 1: check that every message reads, and find the names in order of appearance.
    let mut found = Vec::new();
    let mut protocols = Protocols::new();
    while let Some(item) = messages.next_message() {
        let item = item.map_err(ScrubError::Read)?;
        protocols.follow(&item.message);
        match item.message {
            Message::Ex(Ex::PlayerName { name, .. }) => {
                found.push((NameKind::Name, name.as_bytes().to_vec()))
            }
            Message::Ex(
                ex @ (Ex::AuthInit { auth_name, .. }
                | Ex::AuthInitRole { auth_name, .. }
                | Ex::AuthLogin { auth_name, .. }),
            ) if options.credentials => {
                found.push((NameKind::Account, auth_name.as_bytes().to_vec()));
                if let Ex::AuthInitRole { role, .. }
                | Ex::AuthLogin {
                    role: AuthRole::Name(role),
                    ..
                } = ex
                {
                    found.push((NameKind::Role, role.as_bytes().to_vec()));
                }
            }
            Message::NetMessage { cid, data } => {
                let message = protocols.of(cid).unpack_message(data).message;
                if let Said::Info = classify(&message)
                    && let Some((_, strings, _)) = split_strings(data, 0, 2)
                    && let [name, clan] = *strings
                {
                    found.push((NameKind::Name, name.to_vec()));
                    found.push((NameKind::Clan, clan.to_vec()));
                }
            }
            _ => {}
        }
    }
    let finished = ReadMessages::finished(&messages);
    let input_len = messages.position();
    let header_json = messages.header_json().to_vec();
    let mut header = messages.header().clone();
    drop(messages);
    if !options.credentials {
        found.retain(|(k, _)| !matches!(k, NameKind::Account | NameKind::Role));
    }
    let names = match &options.names {
        Some(p) => Names::build(&found, p.key.as_deref()),
        None if options.credentials => {
            // Accounts are pseudonymised with credentials even when names are not.
            found.retain(|(k, _)| matches!(k, NameKind::Account | NameKind::Role));
            Names::build(&found, None)
        }
        None => Names::default(),
    };

    let cleared = clear_header(&mut header, options)?;
    let mut report = ScrubReport {
        input_len: usize::try_from(input_len).unwrap_or(usize::MAX),
        finished,
        header_cleared: cleared,
        mapping: names.mapping.clone(),
        ..ScrubReport::default()
    };
    let json = if report.header_cleared.is_empty() {
        header_json
    } else {
        let mut json = Vec::new();
        header.write_json(&mut json);
        json
    };
    let mut w =
        TeehistorianWriter::with_header_json(out, &json).map_err(|source| ScrubError::Write {
            offset: body,
            source,
        })?;

    // Pass 2: write.
    let mut scrubber = Scrubber {
        options,
        names: &names,
        protocols: Protocols::new(),
        report: &mut report,
    };
    let mut messages =
        TeehistorianReader::new(opened(&mut open)?.take(input_len)).map_err(ScrubError::Header)?;
    while let Some(item) = messages.next_message() {
        let item = item.map_err(ScrubError::Read)?;
        scrubber.report.messages += 1;
        scrubber.protocols.follow(&item.message);
        let write = |w: &mut TeehistorianWriter<W>, m: &Message<'_>| {
            w.write(m).map(drop).map_err(|source| ScrubError::Write {
                offset: item.offset,
                source,
            })
        };
        match scrubber.decide(&item) {
            Action::Keep => {
                scrubber.report.messages_kept += 1;
                w.write_item(&item).map_err(|source| ScrubError::Write {
                    offset: item.offset,
                    source,
                })?;
            }
            Action::Drop(kind) => *scrubber.report.dropped.entry(kind).or_insert(0) += 1,
            Action::Command {
                cid,
                flags,
                cmd,
                args,
            } => {
                let list: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
                let message = Message::ConsoleCommand {
                    cid,
                    flags,
                    cmd,
                    args: Args::list(&list),
                };
                write(&mut w, &message)?;
            }
            Action::Rewrite(owned) => write(&mut w, &owned.message())?,
        }
    }
    let sink_len = w.position();
    w.into_inner().map_err(|source| ScrubError::Write {
        offset: input_len,
        source,
    })?;
    report.output_len = sink_len;
    Ok(report)
}

/// Which authentication record a rewritten one is, with what it says of the client's role.
enum AuthRecord {
    /// AUTH_INIT, at a level.
    Init { level: i32 },
    /// AUTH_INIT_ROLE, with a role by name.
    InitRole { role: Vec<u8> },
    /// AUTH_LOGIN, at a level or with a role by name.
    Login { role: AuthRole<Vec<u8>> },
}

/// A rewritten message, owning its new strings.
enum Owned {
    Drop {
        cid: i32,
        reason: Vec<u8>,
    },
    NetMessage {
        cid: i32,
        data: Vec<u8>,
    },
    PlayerName {
        cid: i32,
        name: Vec<u8>,
    },
    Auth {
        record: AuthRecord,
        cid: i32,
        name: Vec<u8>,
    },
    Save {
        load: bool,
        team: i32,
        save_id: uuid::Uuid,
        team_save: Vec<u8>,
    },
}

impl Owned {
    fn message(&self) -> Message<'_> {
        match self {
            Owned::Drop { cid, reason } => Message::Drop {
                cid: *cid,
                reason: NulStr::borrowed(reason),
            },
            Owned::NetMessage { cid, data } => Message::NetMessage { cid: *cid, data },
            Owned::PlayerName { cid, name } => Message::Ex(Ex::PlayerName {
                cid: *cid,
                name: NulStr::borrowed(name),
            }),
            Owned::Auth { record, cid, name } => {
                let (cid, auth_name) = (*cid, NulStr::borrowed(name));
                Message::Ex(match record {
                    AuthRecord::Init { level } => Ex::AuthInit {
                        cid,
                        level: *level,
                        auth_name,
                    },
                    AuthRecord::InitRole { role } => Ex::AuthInitRole {
                        cid,
                        role: NulStr::borrowed(role),
                        auth_name,
                    },
                    AuthRecord::Login { role } => Ex::AuthLogin {
                        cid,
                        role: role.as_borrowed(),
                        auth_name,
                    },
                })
            }
            Owned::Save {
                load,
                team,
                save_id,
                team_save,
            } => {
                let (team, save_id, team_save) = (*team, *save_id, NulStr::borrowed(team_save));
                Message::Ex(if *load {
                    Ex::LoadSuccess {
                        team,
                        save_id,
                        team_save,
                    }
                } else {
                    Ex::SaveSuccess {
                        team,
                        save_id,
                        team_save,
                    }
                })
            }
        }
    }
}

/// What to do with one message.
enum Action<'a> {
    Keep,
    Drop(String),
    Command {
        cid: i32,
        flags: i32,
        cmd: NulStr<&'a [u8]>,
        args: Vec<Vec<u8>>,
    },
    Rewrite(Owned),
}

struct Scrubber<'o> {
    options: &'o ScrubOptions,
    names: &'o Names,
    protocols: Protocols,
    report: &'o mut ScrubReport,
}

impl Scrubber<'_> {
    /// Free text with names replaced, when names are scrubbed.
    fn text(&self, text: &[u8]) -> Option<Vec<u8>> {
        self.options.names.as_ref()?;
        self.names.replace_in(text)
    }

    fn decide<'a>(&mut self, item: &MessageAt<'a>) -> Action<'a> {
        let options = self.options;
        match item.message {
            Message::ConsoleCommand {
                cid,
                flags,
                ref cmd,
                args,
            } => {
                let name = cmd.as_bytes();
                let is = |list: &[&str]| list.iter().any(|c| c.as_bytes() == name);
                let whisper_filter =
                    matches!(options.chat, Some(ChatFilter::All | ChatFilter::Whispers));
                if (options.credentials && is(CREDENTIAL_COMMANDS))
                    || (whisper_filter && is(WHISPER_COMMANDS))
                {
                    return Action::Drop(format!("CONSOLE_COMMAND {}", cmd.to_string_lossy()));
                }
                let mut changed = false;
                let args: Vec<Vec<u8>> = args
                    .iter()
                    .map(|a| match self.text(a.as_bytes()) {
                        Some(new) => {
                            changed = true;
                            new
                        }
                        None => a.as_bytes().to_vec(),
                    })
                    .collect();
                if !changed {
                    return Action::Keep;
                }
                if item.cut_args > 0 {
                    // Re-encoded whole, a command that DDNet's old packer cut would read
                    // differently in a file of that packer: drop it instead.
                    return Action::Drop(format!("CONSOLE_COMMAND {}", cmd.to_string_lossy()));
                }
                self.report.texts_rewritten += 1;
                Action::Command {
                    cid,
                    flags,
                    cmd: *cmd,
                    args,
                }
            }
            Message::Drop { cid, ref reason } => {
                let new = if options.drop_reasons && !reason.is_empty() {
                    self.report.reasons_cleared += 1;
                    Vec::new()
                } else if let Some(new) = self.text(reason.as_bytes()) {
                    self.report.texts_rewritten += 1;
                    new
                } else {
                    return Action::Keep;
                };
                Action::Rewrite(Owned::Drop { cid, reason: new })
            }
            Message::NetMessage { cid, data } => self.net_message(cid, data),
            Message::Ex(ref ex) => self.ex(*ex),
            _ => Action::Keep,
        }
    }

    fn net_message<'a>(&mut self, cid: i32, data: &'a [u8]) -> Action<'a> {
        let message = self.protocols.of(cid).unpack_message(data).message;
        let dropped = || Action::Drop(format!("MESSAGE {}", message.name()));
        match classify(&message) {
            Said::Say {
                ints,
                team,
                whisper,
            } => {
                if self.options.removes_chat(team, whisper) {
                    return dropped();
                }
                if self.options.names.is_none() {
                    return Action::Keep;
                }
                let Some((head, strings, tail)) = split_strings(data, ints, 1) else {
                    // Not a whole Cl_Say after all: keep it only if it shows no name.
                    return if self.names.found_in(data) {
                        dropped()
                    } else {
                        Action::Keep
                    };
                };
                let Some(text) = strings.first().and_then(|s| self.names.replace_in(s)) else {
                    return Action::Keep;
                };
                self.report.texts_rewritten += 1;
                let mut new = head.to_vec();
                new.extend_from_slice(&text);
                new.push(0);
                new.extend_from_slice(tail);
                Action::Rewrite(Owned::NetMessage { cid, data: new })
            }
            Said::Info if self.options.names.is_some() => {
                let Some((head, strings, tail)) = split_strings(data, 0, 2) else {
                    return if self.names.found_in(data) {
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
                let mut new = head.to_vec();
                for s in [name, clan] {
                    new.extend_from_slice(s);
                    new.push(0);
                }
                new.extend_from_slice(tail);
                Action::Rewrite(Owned::NetMessage { cid, data: new })
            }
            Said::Info => Action::Keep,
            Said::Other if self.options.names.is_some() && self.names.found_in(data) => dropped(),
            Said::Other => Action::Keep,
        }
    }

    fn ex<'a>(&mut self, ex: Ex<'a>) -> Action<'a> {
        let options = self.options;
        match ex {
            Ex::PlayerName { cid, ref name } if options.names.is_some() => {
                let new = self.names.get(NameKind::Name, name.as_bytes());
                if new == name.as_bytes() {
                    return Action::Keep;
                }
                self.report.names_rewritten += 1;
                Action::Rewrite(Owned::PlayerName {
                    cid,
                    name: new.to_vec(),
                })
            }
            Ex::AuthInit { cid, auth_name, .. }
            | Ex::AuthInitRole { cid, auth_name, .. }
            | Ex::AuthLogin { cid, auth_name, .. } => {
                let old = auth_name.as_bytes();
                let mut changed = false;
                let name = if options.credentials {
                    let new = self.names.get(NameKind::Account, old);
                    if new != old {
                        self.report.accounts_rewritten += 1;
                        changed = true;
                    }
                    new.to_vec()
                } else if let Some(new) = self.text(old) {
                    self.report.texts_rewritten += 1;
                    changed = true;
                    new
                } else {
                    old.to_vec()
                };
                // A role's name is pseudonymised as an account's is: a server's own roles
                // can name people or teams.
                let mut role = |old: NulStr<&[u8]>| {
                    let old = old.as_bytes();
                    let new = self.names.get(NameKind::Role, old);
                    if options.credentials && new != old {
                        self.report.roles_rewritten += 1;
                        changed = true;
                        return new.to_vec();
                    }
                    old.to_vec()
                };
                let record = match ex {
                    Ex::AuthInit { level, .. } => AuthRecord::Init { level },
                    Ex::AuthInitRole { role: name, .. } => {
                        AuthRecord::InitRole { role: role(name) }
                    }
                    Ex::AuthLogin {
                        role: AuthRole::Name(name),
                        ..
                    } => AuthRecord::Login {
                        role: AuthRole::Name(NulStr(role(name))),
                    },
                    Ex::AuthLogin {
                        role: AuthRole::Level(level),
                        ..
                    } => AuthRecord::Login {
                        role: AuthRole::Level(level),
                    },
                    _ => return Action::Keep,
                };
                if !changed {
                    return Action::Keep;
                }
                Action::Rewrite(Owned::Auth { record, cid, name })
            }
            Ex::SaveSuccess {
                team,
                save_id,
                ref team_save,
            }
            | Ex::LoadSuccess {
                team,
                save_id,
                ref team_save,
            } => {
                let Some(new) = self.text(team_save.as_bytes()) else {
                    return Action::Keep;
                };
                self.report.texts_rewritten += 1;
                Action::Rewrite(Owned::Save {
                    load: matches!(ex, Ex::LoadSuccess { .. }),
                    team,
                    save_id,
                    team_save: new,
                })
            }
            // The antibot's records are data about players that no scrub can read: they go
            // whatever is asked.
            Ex::Antibot { .. } => Action::Drop(Message::Ex(ex).kind_name().into_owned()),
            Ex::Unknown { data, .. } if options.names.is_some() && self.names.found_in(data) => {
                Action::Drop(Message::Ex(ex).kind_name().into_owned())
            }
            _ => Action::Keep,
        }
    }
}
