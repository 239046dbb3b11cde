//! proptest strategies for teehistorian messages, headers and whole files, public under the
//! `proptest` feature so that projects using demokit can property-test their own code.
//!
//! Every value these strategies produce encodes without error and decodes back to itself:
//! strings hold no NUL, player records (PLAYER_DIFF, PLAYER_NEW, PLAYER_OLD) have client ids
//! in `0..128`, unknown EX messages carry
//! UUIDs that are not DDNet's (a DDNet UUID with a matching payload would be typed on
//! reading), and header extras use keys DDNet does not.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]
// Test support (feature `proptest`): strategies build valid inputs for property tests and
// fail loudly where a generated value breaks their own invariants.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use super::format::{INPUT_INTS, MAX_CLIENTS};
use super::header::Header;
use super::layout::{self, ExLayout, MessageLayout, OwnedMessage, StrList};
use super::message::{AuthRole, ExKind, Message};
use super::recorder::{Recorder, RecorderError};
use super::writer::TeehistorianWriter;
use crate::codec::string::{Bytes, NulStr};
use crate::gamenet::Protocol;
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::Value;
use std::borrow::Cow;
use uuid::Uuid;

/// Ints as messages hold them: mostly small (positions, diffs, ids), sometimes anything.
pub fn int() -> impl Strategy<Value = i32> {
    prop_oneof![4 => -70i32..70, 2 => -100_000i32..100_000, 1 => any::<i32>()]
}

/// String bytes without a NUL: mostly printable ASCII, sometimes any other byte.
pub(crate) fn str_bytes(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    vec(prop_oneof![4 => 0x20u8..0x7f, 1 => 1u8..=255], 0..=max_len)
}

/// The strategy of a field encoding (see [`records`](super::records)).
macro_rules! field_strategy {
    (int) => {
        int()
    };
    (input) => {
        proptest::array::uniform10(int())
    };
    (uuid) => {
        any::<u128>().prop_map(Uuid::from_u128)
    };
    (str) => {
        str_bytes(24).prop_map(|b| NulStr(Cow::Owned(b)))
    };
    (bytes) => {
        vec(any::<u8>(), 0..48).prop_map(|b| Bytes(Cow::Owned(b)))
    };
    (rest) => {
        vec(any::<u8>(), 0..48).prop_map(|b| Bytes(Cow::Owned(b)))
    };
    (args) => {
        vec(str_bytes(8), 0..4).prop_map(|items| StrList::from_strings(&items).expect("no NUL"))
    };
    // Level 0 is left out: its bytes are those of an empty role name, which it reads
    // back as (see `AuthRole`).
    (role) => {
        prop_oneof![
            int()
                .prop_filter("level 0 reads as an empty name", |l| *l != 0)
                .prop_map(AuthRole::Level),
            str_bytes(12).prop_map(|b| AuthRole::Name(NulStr(Cow::Owned(b)))),
        ]
    };
}

/// One strategy per message kind of the table, built from its fields.
macro_rules! message_strategies {
    ($(
        $(#[$doc:meta])*
        $variant:ident $(<$lt:lifetime>)? = $id:ident, $name:literal
        $({ $( $(#[$fdoc:meta])* $field:ident $(as $json:literal)? : $kind:ident ),* $(,)? })? $(;)?
    )*) => {
        fn table_messages() -> Vec<BoxedStrategy<OwnedMessage>> {
            vec![$(
                (Just(()), $($(field_strategy!($kind),)*)?)
                    .prop_map(|(_, $($($field,)*)?)| {
                        MessageLayout::$variant(layout::$variant { $($($field,)*)? })
                    })
                    .boxed(),
            )*]
        }
    };
}

/// One strategy per EX kind of the table, built from its fields.
macro_rules! ex_strategies {
    ($(
        $(#[$doc:meta])*
        $variant:ident $(<$lt:lifetime>)? = $name:literal, $uuid:literal
        $({ $( $(#[$fdoc:meta])* $field:ident $(as $json:literal)? : $kind:ident ),* $(,)? })? $(;)?
    )*) => {
        fn table_ex() -> Vec<BoxedStrategy<ExLayout<'static>>> {
            vec![$(
                (Just(()), $($(field_strategy!($kind),)*)?)
                    .prop_map(|(_, $($($field,)*)?)| {
                        ExLayout::$variant(layout::ex::$variant { $($($field,)*)? })
                    })
                    .boxed(),
            )*]
        }
    };
}

message_records!(message_strategies);
ex_records!(ex_strategies);

/// An owned message from [`message`]: [`GeneratedMessage::message`] borrows it as a
/// [`Message`].
#[derive(Debug, Clone)]
pub struct GeneratedMessage(pub OwnedMessage);

impl GeneratedMessage {
    /// The message.
    pub fn message(&self) -> Message<'_> {
        self.0.as_message()
    }

    /// Makes the message fit in a file that reads back cleanly: no FINISH before the end
    /// (turned into a JOIN) and a TICK_SKIP of at most 999 ticks, so ticks stay in range.
    fn for_file(mut self) -> Self {
        match &mut self.0 {
            MessageLayout::Finish(_) => self.0 = MessageLayout::Join(layout::Join { cid: 0 }),
            MessageLayout::TickSkip(skip) => skip.dt = skip.dt.rem_euclid(1000),
            _ => {}
        }
        self
    }
}

/// A player record's client id from any int: `0..128`, the ids a reader can number ticks by.
fn player_cid(i: i32) -> i32 {
    i.rem_euclid(MAX_CLIENTS)
}

/// Any EX record: every typed one, and untyped ones whose UUID is not DDNet's.
fn ex() -> impl Strategy<Value = ExLayout<'static>> {
    let unknown = (any::<u128>(), vec(any::<u8>(), 0..48)).prop_map(|(uuid, data)| {
        let mut uuid = Uuid::from_u128(uuid);
        if ExKind::from_uuid(uuid).is_some() {
            uuid = Uuid::nil();
        }
        ExLayout::Unknown {
            uuid,
            data: Bytes(Cow::Owned(data)),
        }
    });
    let mut kinds = table_ex();
    kinds.push(unknown.boxed());
    proptest::strategy::Union::new(kinds)
}

/// Any message: every kind of versions 1 and 2 (each equally likely, the typed EX records
/// and untyped ones among EX), built from the description in [`records`](super::records).
pub fn message() -> impl Strategy<Value = GeneratedMessage> {
    let player_diff = (int(), int(), int())
        .prop_map(|(cid, dx, dy)| MessageLayout::PlayerDiff(layout::PlayerDiff { cid, dx, dy }));
    let mut kinds = table_messages();
    kinds.push(player_diff.boxed());
    kinds.push(ex().prop_map(MessageLayout::Ex).boxed());
    proptest::strategy::Union::new(kinds).prop_map(|mut message| {
        // Player records with client ids a reader numbers ticks by.
        match &mut message {
            MessageLayout::PlayerDiff(m) => m.cid = player_cid(m.cid),
            MessageLayout::PlayerNew(m) => m.cid = player_cid(m.cid),
            MessageLayout::PlayerOld(m) => m.cid = player_cid(m.cid),
            _ => {}
        }
        GeneratedMessage(message)
    })
}

/// Header text: any characters, with control characters, quotes, backslashes and slashes
/// common, since those are what the escaping is about.
pub(crate) fn header_string() -> impl Strategy<Value = String> {
    vec(
        prop_oneof![
            4 => proptest::char::range(' ', '~'),
            1 => proptest::char::range('\0', '\x1f'),
            1 => prop_oneof![Just('"'), Just('\\'), Just('/'), Just('\x7f')],
            1 => any::<char>(),
        ],
        0..16,
    )
    .prop_map(String::from_iter)
}

fn extra_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        header_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((header_string(), inner), 0..4)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// A header any reader of this crate accepts: version "1" or "2", any subset of DDNet's
/// keys with arbitrary text, and sometimes keys DDNet does not write (named `"x-..."`).
pub fn header() -> impl Strategy<Value = Header> {
    let s = || proptest::option::of(header_string());
    let pairs = || proptest::option::of(vec((header_string(), header_string()), 0..4));
    (
        (prop_oneof![Just("1"), Just("2")], s(), s(), s(), s(), s()),
        (s(), s(), s(), s(), s(), s()),
        (s(), s(), s(), pairs(), pairs()),
        proptest::option::of(vec(header_string(), 0..6)),
        vec((header_string(), extra_value()), 0..3),
    )
        .prop_map(|(a, b, c, uuids, extra)| {
            let (version, comment, version_minor, game_uuid, prev_game_uuid, server_version) = a;
            let (start_time, server_name, server_port, game_type, map_name, map_size) = b;
            let (map_sha256, map_crc, prng_description, config, tuning) = c;
            Header {
                comment,
                version: version.to_owned(),
                version_minor,
                game_uuid,
                prev_game_uuid,
                server_version,
                start_time,
                server_name,
                server_port,
                game_type,
                map_name,
                map_size,
                map_sha256,
                map_crc,
                prng_description,
                config,
                tuning,
                uuids,
                extra: extra
                    .into_iter()
                    .map(|(k, v)| (format!("x-{k}"), v))
                    .collect(),
            }
        })
}

/// Messages that make a valid body: no FINISH among them and ticks that stay in range.
pub fn body(max_messages: usize) -> impl Strategy<Value = Vec<GeneratedMessage>> {
    vec(
        message().prop_map(GeneratedMessage::for_file),
        0..=max_messages,
    )
}

/// The bytes of a whole valid file: a header, up to `max_messages` messages and, when
/// `finished`, FINISH.
pub fn file(max_messages: usize) -> impl Strategy<Value = Vec<u8>> {
    (header(), body(max_messages), any::<bool>())
        .prop_map(|(header, body, finished)| write_file(&header, &body, finished))
}

/// Writes a file from a header and messages; FINISH at the end when `finished`.
///
/// Panics if a message cannot be written, which the strategies here never produce.
pub fn write_file(header: &Header, body: &[GeneratedMessage], finished: bool) -> Vec<u8> {
    let mut w = TeehistorianWriter::new(Vec::new(), header).expect("header writes");
    for m in body {
        w.write(&m.message()).expect("generated message writes");
    }
    if finished {
        w.finish().expect("finish writes")
    } else {
        w.into_inner().expect("flush")
    }
}

// ---------------------------------------------------------------------------------------
// Server event sequences
// ---------------------------------------------------------------------------------------

/// A player record of a [`ServerTick`], with absolute values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerState {
    /// The client has a character at this position ([`Recorder::record_player`]).
    Alive {
        /// Position.
        x: i32,
        /// Position.
        y: i32,
    },
    /// The client has no character ([`Recorder::record_dead_player`]).
    Dead,
}

/// A record of a [`ServerTick`] other than players and inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerRecord {
    /// A client joined ([`Recorder::record_player_join`], 0.6 protocol).
    Join(i32),
    /// A client left ([`Recorder::record_player_drop`]).
    Drop(i32, String),
    /// A client's network message ([`Recorder::record_player_message`]).
    NetMessage(i32, Vec<u8>),
    /// A console command ([`Recorder::record_console_command`]): cid, name, arguments.
    ConsoleCommand(i32, String, Vec<String>),
    /// EX PLAYER_READY.
    PlayerReady(i32),
    /// EX PLAYER_NAME.
    PlayerName(i32, String),
    /// EX PLAYER_FINISH: cid, time in ticks.
    PlayerFinish(i32, i32),
    /// EX TEST (empty payload).
    Test,
}

/// One tick as a server records it, with absolute positions and inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTick {
    /// The tick (ticks of a sequence strictly increase, from 1).
    pub tick: i32,
    /// Player records, in strictly ascending client id order.
    pub players: Vec<(i32, PlayerState)>,
    /// Inputs: client id, unique client id (never 0), input; at most one per client id.
    pub inputs: Vec<(i32, u32, [i32; INPUT_INTS])>,
    /// Joins, drops, messages, commands and EX records, recorded after the inputs.
    pub records: Vec<ServerRecord>,
}

impl ServerTick {
    /// Records the tick through the whole tick loop.
    pub fn record<W: std::io::Write>(&self, rec: &mut Recorder<W>) -> Result<(), RecorderError> {
        rec.begin_tick(self.tick)?;
        rec.begin_players()?;
        for &(cid, state) in &self.players {
            match state {
                PlayerState::Alive { x, y } => rec.record_player(cid, x, y)?,
                PlayerState::Dead => rec.record_dead_player(cid)?,
            }
        }
        rec.end_players()?;
        rec.begin_inputs()?;
        for (cid, id, input) in &self.inputs {
            rec.record_player_input(*cid, *id, input)?;
        }
        for record in &self.records {
            match record {
                ServerRecord::Join(cid) => rec.record_player_join(*cid, Protocol::Six)?,
                ServerRecord::Drop(cid, reason) => rec.record_player_drop(*cid, reason)?,
                ServerRecord::NetMessage(cid, data) => rec.record_player_message(*cid, data)?,
                ServerRecord::ConsoleCommand(cid, cmd, args) => {
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    rec.record_console_command(*cid, 0, cmd, &args)?
                }
                ServerRecord::PlayerReady(cid) => rec.record_player_ready(*cid)?,
                ServerRecord::PlayerName(cid, name) => rec.record_player_name(*cid, name)?,
                ServerRecord::PlayerFinish(cid, time) => rec.record_player_finish(*cid, *time)?,
                ServerRecord::Test => rec.record_test_extra()?,
            }
        }
        rec.end_inputs()?;
        rec.end_tick()
    }
}

/// What a generated player record does, before it is made absolute.
#[derive(Debug, Clone, Copy)]
enum PlayerCall {
    Dead,
    Stay,
    Move(i32, i32),
    Teleport(i32, i32),
}

/// What a generated input does, before it is made absolute.
#[derive(Debug, Clone, Copy)]
enum InputCall {
    Same,
    Tweak(usize, i32),
    NewId([i32; INPUT_INTS]),
}

/// Client ids: mostly a few low ones so that records meet earlier state, sometimes any of
/// DDNet's 128, and some at the top, where a 128-slot server differs from a 64-slot one.
fn cid() -> impl Strategy<Value = i32> {
    prop_oneof![6 => 0i32..6, 1 => 0i32..MAX_CLIENTS, 1 => 120i32..MAX_CLIENTS]
}

fn player_call() -> impl Strategy<Value = PlayerCall> {
    prop_oneof![
        1 => Just(PlayerCall::Dead),
        2 => Just(PlayerCall::Stay),
        3 => (-5i32..=5, -5i32..=5).prop_map(|(dx, dy)| PlayerCall::Move(dx, dy)),
        1 => (int(), int()).prop_map(|(x, y)| PlayerCall::Teleport(x, y)),
    ]
}

fn input_call() -> impl Strategy<Value = InputCall> {
    prop_oneof![
        1 => Just(InputCall::Same),
        4 => (0..INPUT_INTS, int()).prop_map(|(i, v)| InputCall::Tweak(i, v)),
        1 => proptest::array::uniform10(int()).prop_map(InputCall::NewId),
    ]
}

fn server_record() -> impl Strategy<Value = ServerRecord> {
    let text = || "[a-z ]{0,8}";
    prop_oneof![
        2 => cid().prop_map(ServerRecord::Join),
        2 => (cid(), text()).prop_map(|(c, r)| ServerRecord::Drop(c, r)),
        1 => (cid(), vec(any::<u8>(), 0..12)).prop_map(|(c, d)| ServerRecord::NetMessage(c, d)),
        1 => (-1i32..MAX_CLIENTS, "[a-z_]{1,8}", vec(text(), 0..3))
            .prop_map(|(c, cmd, args)| ServerRecord::ConsoleCommand(c, cmd, args)),
        1 => cid().prop_map(ServerRecord::PlayerReady),
        1 => (cid(), text()).prop_map(|(c, n)| ServerRecord::PlayerName(c, n)),
        1 => (cid(), int()).prop_map(|(c, t)| ServerRecord::PlayerFinish(c, t)),
        1 => Just(ServerRecord::Test),
    ]
}

/// Valid server event sequences of up to `max_ticks` ticks: increasing ticks (mostly
/// consecutive, sometimes gaps), per tick player states in ascending client id order
/// (appearing, standing still, moving, jumping anywhere, dying), inputs with non-zero
/// unique client ids (changed, unchanged, or whole under a new id), and a few joins,
/// drops, messages, commands and EX records. Every sequence records without error
/// ([`ServerTick::record`]).
pub fn server_ticks(max_ticks: usize) -> impl Strategy<Value = Vec<ServerTick>> {
    let tick = (
        prop_oneof![8 => Just(1i32), 3 => 2i32..5, 1 => 5i32..1000],
        btree_map(cid(), player_call(), 0..6),
        btree_map(cid(), input_call(), 0..4),
        vec(server_record(), 0..3),
    );
    vec(tick, 0..=max_ticks).prop_map(|ticks| {
        let mut positions = [None::<(i32, i32)>; MAX_CLIENTS as usize];
        let mut inputs = [(0u32, [0i32; INPUT_INTS]); MAX_CLIENTS as usize];
        let mut now = 0i32;
        ticks
            .into_iter()
            .map(|(gap, players, input_calls, records)| {
                now += gap;
                let players = players
                    .into_iter()
                    .map(|(cid, call)| {
                        let slot = &mut positions[cid as usize];
                        let here = slot.unwrap_or((0, 0));
                        *slot = match call {
                            PlayerCall::Dead => None,
                            PlayerCall::Stay => Some(here),
                            PlayerCall::Move(dx, dy) => {
                                Some((here.0.wrapping_add(dx), here.1.wrapping_add(dy)))
                            }
                            PlayerCall::Teleport(x, y) => Some((x, y)),
                        };
                        let state = match *slot {
                            Some((x, y)) => PlayerState::Alive { x, y },
                            None => PlayerState::Dead,
                        };
                        (cid, state)
                    })
                    .collect();
                let inputs = input_calls
                    .into_iter()
                    .map(|(cid, call)| {
                        let (id, input) = &mut inputs[cid as usize];
                        match call {
                            InputCall::Same => {}
                            InputCall::Tweak(i, v) => input[i] = v,
                            InputCall::NewId(new) => {
                                *input = new;
                                *id = id.wrapping_add(1);
                            }
                        }
                        if *id == 0 {
                            *id = 1;
                        }
                        (cid, *id, *input)
                    })
                    .collect();
                ServerTick {
                    tick: now,
                    players,
                    inputs,
                    records,
                }
            })
            .collect()
    })
}
