//! Property tests of the teehistorian module, using the public strategies of the `proptest`
//! feature. Case counts follow PROPTEST_CASES; failures persist under proptest-regressions/.

use crate::common;

use common::read::Dribble;
use demokit::codec::varint;
use demokit::gamenet::Protocol;
use demokit::teehistorian::format::{FILE_UUID, MAX_CLIENTS};
use demokit::teehistorian::reader::MAX_MESSAGE_LEN;
use demokit::teehistorian::recorder::MIN_CONSOLE_CLIENT_ID;
use demokit::teehistorian::strategies;
use demokit::teehistorian::{
    DecodeError, Decoded, Events, Ex, Header, Message, MessageAt, ReadError, Recorder,
    RecorderError, TeehistorianReader, TeehistorianSlice, TeehistorianWriter, rewrite, validate,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::io::Read;

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/teehistorian_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// Everything the slice reader yields.
fn read_all(data: &[u8]) -> (Vec<MessageAt<'_>>, Option<ReadError>) {
    let slice = match TeehistorianSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut items = Vec::new();
    for item in slice.messages() {
        match item {
            Ok(item) => items.push(item),
            Err(e) => return (items, Some(e)),
        }
    }
    (items, None)
}

/// The streaming reader over `source` yields what the slice reader yields over `data`,
/// errors included (compared by offset and text).
fn stream_agrees(data: &[u8], source: impl Read) -> Result<(), TestCaseError> {
    let (expected, expected_err) = read_all(data);
    let mut stream = match TeehistorianReader::new(source) {
        Ok(s) => s,
        Err(e) => {
            let want = expected_err.expect("the slice reader fails too");
            prop_assert_eq!((e.offset, e.to_string()), (want.offset, want.to_string()));
            return Ok(());
        }
    };
    for e in &expected {
        let got = stream.next().expect("an item").expect("no error");
        prop_assert_eq!(&got, e);
    }
    match (stream.next(), expected_err) {
        (None, None) => {}
        (Some(Err(got)), Some(want)) => {
            prop_assert_eq!(
                (got.offset, got.to_string()),
                (want.offset, want.to_string())
            );
        }
        (got, want) => prop_assert!(false, "stream gave {:?}, slice {:?}", got, want),
    }
    prop_assert!(stream.next().is_none());
    Ok(())
}

/// The file UUID and a minimal header, so that arbitrary bytes after it reach the message
/// decoder.
fn prefix() -> Vec<u8> {
    let mut data = FILE_UUID.to_vec();
    data.extend_from_slice(br#"{"version":"2"}"#);
    data.push(0);
    data
}

/// `value` packed with `extra` needless bytes (at most five in all) and, when it takes five
/// bytes, `garbage` in the top nibble of the fifth byte, which the unpacker ignores.
fn widen(value: i32, extra: usize, garbage: u8) -> (Vec<u8>, bool) {
    let mut v = Vec::new();
    varint::pack_into(value, &mut v);
    let canonical = v.clone();
    while v.len() < (canonical.len() + extra).min(varint::MAX_BYTES) {
        *v.last_mut().unwrap() |= 0x80;
        v.push(0);
    }
    if v.len() == varint::MAX_BYTES {
        v[4] |= garbage << 4;
    }
    let changed = v != canonical;
    (v, changed)
}

/// Whether `message` with `tail` after it decodes to `alone` (its decoding by itself). With
/// enough input behind it, an ints-only message takes the decoder's fast path; the result
/// must not differ.
fn decodes_the_same_followed_by(message: &[u8], tail: &[u8], alone: &Decoded<'_>) -> bool {
    let mut input = message.to_vec();
    input.extend_from_slice(tail);
    Message::decode(&input).as_ref() == Ok(alone)
}

/// Payload lengths about as long as the longest message a reader takes
/// (`MAX_MESSAGE_LEN`), on either side of it.
fn near_limit() -> impl Strategy<Value = usize> {
    MAX_MESSAGE_LEN - 24..MAX_MESSAGE_LEN + 4
}

/// Payload lengths: mostly short, sometimes [`near_limit`].
fn payload_len() -> impl Strategy<Value = usize> {
    prop_oneof![30 => 0..8usize, 1 => near_limit()]
}

/// Client ids: DDNet's slots, both ends of them and past them, and any int.
fn any_cid() -> impl Strategy<Value = i32> {
    prop_oneof![4 => 0..4i32, 1 => -5..4i32, 1 => 124..132i32, 1 => any::<i32>()]
}

/// A recorder call with a client id and a payload length (strings and byte payloads of
/// that many bytes).
#[derive(Debug, Clone)]
enum Call {
    /// A whole tick with a player record of this client id.
    Tick(i32),
    Message(i32, usize),
    Join(i32),
    JoinVersion(i32),
    Drop(i32, usize),
    Command(i32, usize),
    DdnetVersionOld(i32),
    DdnetVersion(i32, usize),
    AuthInit(i32, usize),
    AuthLogin(i32),
    AuthLogout(i32),
    Swap(i32, i32),
    Name(i32, usize),
    Team(i32, i32),
    Ready(i32),
    Rejoin(i32),
    PlayerFinish(i32),
    Antibot(usize),
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        3 => any_cid().prop_map(Call::Tick),
        2 => (any_cid(), payload_len()).prop_map(|(c, n)| Call::Message(c, n)),
        1 => any_cid().prop_map(Call::Join),
        1 => any_cid().prop_map(Call::JoinVersion),
        1 => (any_cid(), payload_len()).prop_map(|(c, n)| Call::Drop(c, n)),
        2 => (any_cid(), payload_len()).prop_map(|(c, n)| Call::Command(c, n)),
        1 => any_cid().prop_map(Call::DdnetVersionOld),
        1 => (any_cid(), payload_len()).prop_map(|(c, n)| Call::DdnetVersion(c, n)),
        1 => (any_cid(), payload_len()).prop_map(|(c, n)| Call::AuthInit(c, n)),
        1 => any_cid().prop_map(Call::AuthLogin),
        1 => any_cid().prop_map(Call::AuthLogout),
        1 => (any_cid(), any_cid()).prop_map(|(a, b)| Call::Swap(a, b)),
        1 => (any_cid(), payload_len()).prop_map(|(c, n)| Call::Name(c, n)),
        1 => (any_cid(), 0..3i32).prop_map(|(c, t)| Call::Team(c, t)),
        1 => any_cid().prop_map(Call::Ready),
        1 => any_cid().prop_map(Call::Rejoin),
        1 => any_cid().prop_map(Call::PlayerFinish),
        1 => payload_len().prop_map(Call::Antibot),
    ]
}

impl Call {
    /// Whether every client id of the call is one it takes: DDNet's slots `0..128`, or for
    /// a console command also the console's own ids down to `MIN_CONSOLE_CLIENT_ID`.
    fn cids_in_range(&self) -> bool {
        let slot = |cid: &i32| (0..MAX_CLIENTS).contains(cid);
        match self {
            Call::Antibot(_) => true,
            Call::Command(c, _) => (MIN_CONSOLE_CLIENT_ID..MAX_CLIENTS).contains(c),
            Call::Swap(a, b) => slot(a) && slot(b),
            Call::Tick(c)
            | Call::Message(c, _)
            | Call::Join(c)
            | Call::JoinVersion(c)
            | Call::Drop(c, _)
            | Call::DdnetVersionOld(c)
            | Call::DdnetVersion(c, _)
            | Call::AuthInit(c, _)
            | Call::AuthLogin(c)
            | Call::AuthLogout(c)
            | Call::Name(c, _)
            | Call::Team(c, _)
            | Call::Ready(c)
            | Call::Rejoin(c)
            | Call::PlayerFinish(c) => slot(c),
        }
    }

    /// Makes the call on `rec`; `tick` is the next tick to begin.
    fn run(&self, rec: &mut Recorder<Vec<u8>>, tick: i32) -> Result<(), RecorderError> {
        let bytes = |n: usize| vec![0x42u8; n];
        let text = |n: usize| "a".repeat(n);
        match *self {
            Call::Tick(cid) => {
                rec.begin_tick(tick)?;
                rec.begin_players()?;
                // The tick goes on to its end whether the record was taken or not.
                let player = rec.record_player(cid, tick, -tick);
                rec.end_players()?;
                rec.begin_inputs()?;
                rec.end_inputs()?;
                rec.end_tick()?;
                player
            }
            Call::Message(cid, n) => rec.record_player_message(cid, &bytes(n)),
            Call::Join(cid) => rec.record_player_join(cid, Protocol::Six),
            Call::JoinVersion(cid) => rec.record_join_version(cid, Protocol::Seven),
            Call::Drop(cid, n) => rec.record_player_drop(cid, &text(n)),
            Call::Command(cid, n) => rec.record_console_command(cid, 0, "echo", &[&text(n)]),
            Call::DdnetVersionOld(cid) => rec.record_ddnet_version_old(cid, 15000),
            Call::DdnetVersion(cid, n) => {
                rec.record_ddnet_version(cid, uuid::Uuid::nil(), 16050, &text(n))
            }
            Call::AuthInit(cid, n) => rec.record_auth_initial(cid, 2, &text(n)),
            Call::AuthLogin(cid) => rec.record_auth_login(cid, 3, "admin"),
            Call::AuthLogout(cid) => rec.record_auth_logout(cid),
            Call::Swap(a, b) => rec.record_player_swap(a, b),
            Call::Name(cid, n) => rec.record_player_name(cid, &text(n)),
            Call::Team(cid, team) => rec.record_player_team(cid, team),
            Call::Ready(cid) => rec.record_player_ready(cid),
            Call::Rejoin(cid) => rec.record_player_rejoin(cid),
            Call::PlayerFinish(cid) => rec.record_player_finish(cid, 2250),
            Call::Antibot(n) => rec.record_antibot(&bytes(n)),
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// What a caller hands the writer besides well-formed messages: raw bytes (a stored
    /// message, cut, padded or arbitrary) through `write_raw`, and untyped EX messages with
    /// DDNet's UUIDs whose payload may fit the typed layout. Each is refused with nothing
    /// written, or reads back as exactly what was given, at the tick the writer reported.
    #[test]
    fn accepted_messages_read_back_as_given(
        items in proptest::collection::vec(
            (
                strategies::message(),
                0u8..5,
                proptest::collection::vec(any::<u8>(), 0..12),
                // Now and then a network message about as long as a reader takes.
                prop_oneof![40 => Just(None), 1 => near_limit().prop_map(Some)],
            ),
            0..30,
        ),
    ) {
        let header = br#"{"version":"2"}"#;
        let mut w = TeehistorianWriter::with_header_json(Vec::new(), header).unwrap();
        // The bytes given or encoded, the tick the writer reported, and for a typed call the
        // message it was given.
        let mut written: Vec<(Vec<u8>, i32, Option<String>)> = Vec::new();
        for (m, how, extra, long) in &items {
            let long = long.map(|n| vec![0x42u8; n]);
            let message = match &long {
                Some(data) => Message::NetMessage { cid: 0, data },
                None => m.message(),
            };
            let mut bytes = Vec::new();
            message.encode(&mut bytes).unwrap();
            let before = w.position();
            let result = match (how, message) {
                // The payload of a typed EX message under its UUID, but untyped.
                (0, Message::Ex(ex)) => {
                    let mut data = Vec::new();
                    ex.encode_payload(&mut data).unwrap();
                    data.extend_from_slice(&extra[..extra.len() % 3]);
                    let untyped = Message::Ex(Ex::Unknown { uuid: ex.uuid(), data: &data });
                    bytes.clear();
                    untyped.encode(&mut bytes).ok();
                    w.write(&untyped).map(|tick| (tick, Some(format!("{untyped:?}"))))
                }
                (1, _) => w.write_raw(&bytes).map(|tick| (tick, None)),
                (2, _) => {
                    bytes.truncate(bytes.len() / 2);
                    w.write_raw(&bytes).map(|tick| (tick, None))
                }
                (3, _) => {
                    bytes.extend_from_slice(extra);
                    w.write_raw(&bytes).map(|tick| (tick, None))
                }
                (_, message) => w.write(&message).map(|tick| (tick, Some(format!("{message:?}")))),
            };
            match result {
                Ok((tick, given)) => written.push((bytes, tick, given)),
                Err(_) => prop_assert_eq!(w.position(), before),
            }
        }
        let data = w.into_inner().unwrap();
        let (read, err) = read_all(&data);
        prop_assert!(err.is_none(), "{:?}", err);
        prop_assert_eq!(read.len(), written.len());
        for (item, (bytes, tick, given)) in read.iter().zip(&written) {
            prop_assert_eq!(item.raw, &bytes[..]);
            prop_assert_eq!(item.tick, *tick);
            if let Some(given) = given {
                prop_assert_eq!(&format!("{:?}", item.message), given);
            }
        }
    }

    /// Recorder calls of any client id and payload length: each is refused, with nothing
    /// written and the tick not made explicit, or recorded; a client id the call does not
    /// take is always refused; and the file reads to FINISH without an error, validates,
    /// and its events read through the semantic layer.
    #[test]
    fn recorder_refuses_or_writes_what_readers_accept(
        calls in proptest::collection::vec(call(), 0..24),
    ) {
        let mut rec = Recorder::new(Vec::new(), &Header::new("2")).unwrap();
        for call in &calls {
            let before = (rec.position(), rec.buffered(), rec.tick_state());
            let tick = rec.tick() + 1;
            match call.run(&mut rec, tick) {
                Ok(()) => prop_assert!(call.cids_in_range(), "{:?} was recorded", call),
                Err(e) => {
                    prop_assert!(
                        matches!(
                            e,
                            RecorderError::ClientIdOutOfRange { .. }
                                | RecorderError::MessageTooLong { .. }
                        ),
                        "{:?}: {}", call, e
                    );
                    if matches!(e, RecorderError::MessageTooLong { .. }) {
                        prop_assert!(call.cids_in_range());
                    }
                    // A tick's other calls went on; only a record outside one left all as it was.
                    if !matches!(call, Call::Tick(_)) {
                        let after = (rec.position(), rec.buffered(), rec.tick_state());
                        prop_assert_eq!(after, before, "{:?}", call);
                    }
                }
            }
        }
        let data = rec.finish().unwrap();
        let (items, err) = read_all(&data);
        prop_assert!(err.is_none(), "{:?}", err);
        prop_assert_eq!(items.last().map(|i| &i.message), Some(&Message::Finish));
        let report = validate(&data);
        prop_assert!(report.accepted(), "{:?}", report);
        let slice = TeehistorianSlice::parse(&data).unwrap();
        let mut events = Events::new(slice.messages());
        for event in events.by_ref() {
            prop_assert!(event.is_ok(), "{:?}", event.err());
        }
        prop_assert!(events.finished());
    }

    /// Any message: encode, decode to the same message with no non-canonical ints, encode to
    /// the same bytes; every proper prefix is incomplete, never an error or a panic.
    #[test]
    fn every_message_kind_round_trips(
        m in strategies::message(),
        tail in proptest::collection::vec(any::<u8>(), 64..80),
    ) {
        let message = m.message();
        let mut bytes = Vec::new();
        message.encode(&mut bytes).unwrap();
        let d = Message::decode(&bytes).unwrap();
        prop_assert_eq!(&d.message, &message);
        prop_assert_eq!(d.len, bytes.len());
        prop_assert_eq!(d.non_canonical, 0);
        let mut again = Vec::new();
        d.message.encode(&mut again).unwrap();
        prop_assert_eq!(&again, &bytes);
        prop_assert_eq!(message.encoded_len().unwrap(), bytes.len());
        for cut in 0..bytes.len() {
            let is_incomplete = matches!(Message::decode(&bytes[..cut]), Err(DecodeError::Incomplete { .. }));
            prop_assert!(is_incomplete, "cut at {}", cut);
        }
        prop_assert!(decodes_the_same_followed_by(&bytes, &tail, &d));
    }

    /// Ints-only messages with needless bytes or ignored bits: decoded to the same values,
    /// counted, and copied back byte for byte by the writer.
    #[test]
    fn non_canonical_ints_round_trip_through_the_writer(
        m in strategies::message(),
        widths in proptest::collection::vec((0usize..5, 0u8..16), 12),
        tail in proptest::collection::vec(any::<u8>(), 64..80),
    ) {
        let message = m.message();
        let ints: Vec<i32> = match message {
            Message::PlayerDiff { cid, dx, dy } => vec![cid, dx, dy],
            Message::Finish => vec![-1],
            Message::TickSkip { dt } => vec![-2, dt],
            Message::PlayerNew { cid, x, y } => vec![-3, cid, x, y],
            Message::PlayerOld { cid } => vec![-4, cid],
            Message::InputDiff { cid, diff } => [-5, cid].into_iter().chain(diff).collect(),
            Message::InputNew { cid, input } => [-6, cid].into_iter().chain(input).collect(),
            Message::Join { cid } => vec![-8, cid],
            _ => return Ok(()),
        };
        let mut raw = Vec::new();
        let mut changed = 0;
        for (&v, &(extra, garbage)) in ints.iter().zip(&widths) {
            let (bytes, c) = widen(v, extra, garbage);
            raw.extend_from_slice(&bytes);
            changed += c as u32;
        }
        let d = Message::decode(&raw).unwrap();
        prop_assert_eq!(&d.message, &message);
        prop_assert_eq!(d.len, raw.len());
        prop_assert_eq!(d.non_canonical, changed);
        prop_assert!(decodes_the_same_followed_by(&raw, &tail, &d));
        // In a file, through the reader and the writer.
        let mut data = prefix();
        data.extend_from_slice(&raw);
        let out = rewrite(&data, Vec::new());
        match message {
            // A TICK_SKIP may leave the tick range; then both sides refuse it.
            Message::TickSkip { dt } if dt < -1 => prop_assert!(out.is_err()),
            _ => {
                let (items, _) = read_all(&data);
                prop_assert_eq!(items.len(), 1);
                prop_assert_eq!(items[0].non_canonical, changed);
                let mut w = TeehistorianWriter::with_header_json(Vec::new(), br#"{"version":"2"}"#).unwrap();
                w.write_item(&items[0]).unwrap();
                prop_assert_eq!(w.into_inner().unwrap(), data);
            }
        }
    }

    /// A typed header written DDNet's way reads back to itself.
    #[test]
    fn header_round_trips(h in strategies::header()) {
        let json = h.to_json();
        prop_assert!(!json.contains(&0));
        let back = Header::from_json(&json).unwrap();
        prop_assert_eq!(&back, &h);
        prop_assert_eq!(back.to_json(), json);
    }

    /// A whole generated file: rewritten byte for byte, and both readers agree on it.
    #[test]
    fn whole_file_round_trips_and_readers_agree(data in strategies::file(40), n in 1usize..64) {
        let (items, err) = read_all(&data);
        // A generated file either ends with FINISH or is unfinished (it stops right after a
        // message): both read to their end and rewrite byte for byte.
        prop_assert!(err.is_none(), "{:?}", err);
        let end = items.last().map_or(0, |i| i.offset as usize + i.raw.len());
        prop_assert!(items.is_empty() || end == data.len());
        prop_assert_eq!(rewrite(&data, Vec::new()).unwrap().0, data.clone());
        // Repair keeps every message and ends the file with FINISH.
        let finished = items.last().is_some_and(|i| i.message == Message::Finish);
        let (repaired, report) = common::into_vec(|out| demokit::teehistorian::repair(&data, out)).unwrap();
        prop_assert_eq!(&repaired[..data.len()], &data[..]);
        prop_assert_eq!(repaired.len() - data.len(), usize::from(!finished));
        prop_assert_eq!(report.finish_appended, !finished);
        let (again, _) = read_all(&repaired);
        prop_assert_eq!(&again[..items.len()], &items[..]);
        stream_agrees(&data, &data[..])?;
        stream_agrees(&data, Dribble { data: &data, n })?;
    }

    /// A generated file cut anywhere gives its complete messages, then (unless the cut is on
    /// a message boundary) a truncation error where the first incomplete message starts;
    /// repair keeps those messages and appends FINISH.
    #[test]
    fn cut_files_give_complete_messages_then_truncation(data in strategies::file(20), at in any::<prop::sample::Index>()) {
        let cut = at.index(data.len() + 1);
        let (full, _) = read_all(&data);
        let (items, err) = read_all(&data[..cut]);
        let complete = full.iter().take_while(|m| m.offset as usize + m.raw.len() <= cut).count();
        prop_assert_eq!(&items[..], &full[..complete]);
        let body_offset = TeehistorianSlice::parse(&data).unwrap().body_offset();
        if let Some(e) = err {
            prop_assert!(e.is_truncation(), "{}", e);
            let expected = if cut < FILE_UUID.len() {
                0
            } else if cut < body_offset {
                FILE_UUID.len() as u64
            } else {
                full.get(complete).map_or(cut as u64, |next| next.offset)
            };
            prop_assert_eq!(e.offset, expected);
        } else {
            let end = items.last().map_or(body_offset, |i| i.offset as usize + i.raw.len());
            prop_assert_eq!(end, cut, "a cut inside a message read cleanly");
        }
        if cut >= body_offset {
            let (repaired, _) = common::into_vec(|out| demokit::teehistorian::repair(&data[..cut], out)).unwrap();
            let (again, err) = read_all(&repaired);
            prop_assert!(err.is_none());
            prop_assert_eq!(again.last().map(|i| &i.message), Some(&Message::Finish));
            let kept = complete.min(again.len());
            prop_assert_eq!(&again[..kept], &full[..kept]);
        }
        stream_agrees(&data[..cut], Dribble { data: &data[..cut], n: 3 })?;
    }

    /// Arbitrary bytes never panic either reader, and the readers agree on them.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        stream_agrees(&bytes, &bytes[..])?;
    }

    /// Arbitrary bytes after a valid header: the message decoder sees everything, and
    /// nothing panics.
    #[test]
    fn arbitrary_bodies_never_panic(
        body in proptest::collection::vec(
            prop_oneof![3 => any::<u8>(), 1 => 0x40u8..0x4c, 1 => Just(0u8)], 0..400),
        n in 1usize..16,
    ) {
        let mut data = prefix();
        data.extend_from_slice(&body);
        let (items, err) = read_all(&data);
        // Whatever was read encodes back to its bytes (canonical ones through the encoder).
        let mut w = TeehistorianWriter::with_header_json(Vec::new(), br#"{"version":"2"}"#).unwrap();
        for item in &items {
            w.write_item(item).unwrap();
        }
        let end = items.last().map_or(prefix().len(), |i| i.offset as usize + i.raw.len());
        prop_assert_eq!(w.into_inner().unwrap(), data[..end].to_vec());
        if err.is_none() {
            prop_assert_eq!(end, data.len());
        }
        stream_agrees(&data, Dribble { data: &data, n })?;
    }
}
