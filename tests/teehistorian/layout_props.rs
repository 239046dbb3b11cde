//! The declarative layouts (`teehistorian::layout`) and the fast zero-copy decoder
//! (`Message::decode`) describe the same bytes: on any input, valid or not, they take the
//! same message of the same length, or both refuse it for the same reason. Writing goes
//! through the layouts, and JSON of a message deserializes into its owned form. Case counts
//! follow PROPTEST_CASES; failures persist under proptest-regressions/.

use binrw::{BinRead, BinWrite};
use demokit::codec::varint;
use demokit::teehistorian::format::id;
use demokit::teehistorian::layout::{MessageLayout, OwnedMessage};
use demokit::teehistorian::strategies;
use demokit::teehistorian::{DecodeError, EncodeError, ExKind, Message};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::FileFailurePersistence;
use std::io::Cursor;

/// What reading `input` gives: the message and its length, or the kind of refusal.
#[derive(Debug, PartialEq)]
enum Outcome<'a> {
    Read(Message<'a>, usize),
    /// The input ends inside the message.
    Cut,
    /// A size or count is negative.
    Negative,
    /// The id names no message.
    UnknownId,
}

fn fast(input: &[u8]) -> Outcome<'_> {
    match Message::decode(input) {
        Ok(d) => Outcome::Read(d.message, d.len),
        Err(DecodeError::Incomplete { .. }) => Outcome::Cut,
        Err(DecodeError::NegativeLength { .. }) => Outcome::Negative,
        Err(DecodeError::UnknownMessageId { .. }) => Outcome::UnknownId,
    }
}

/// Reads with the layouts and compares through `check`, which gets the outcome.
fn declarative(input: &[u8], check: impl FnOnce(Outcome<'_>)) {
    let mut cursor = Cursor::new(input);
    match MessageLayout::read_le(&mut cursor) {
        Ok(layout) => check(Outcome::Read(
            layout.as_message(),
            cursor.position() as usize,
        )),
        Err(e) if e.is_eof() => check(Outcome::Cut),
        Err(binrw::Error::NoVariantMatch { .. }) => check(Outcome::UnknownId),
        Err(e) => match e.root_cause() {
            binrw::Error::AssertFail { message, .. } if message.starts_with("negative") => {
                check(Outcome::Negative)
            }
            other => panic!("unexpected layout error {other:?}"),
        },
    }
}

fn agree(input: &[u8]) -> Result<(), TestCaseError> {
    let expected = fast(input);
    let mut result = Ok(());
    declarative(input, |got| {
        if got != expected {
            result = Err(TestCaseError::fail(format!(
                "input {input:02x?}: layouts give {got:?}, the fast decoder {expected:?}"
            )));
        }
    });
    result
}

fn packed(ints: &[i32]) -> Vec<u8> {
    let mut out = Vec::new();
    varint::pack_ints(ints, &mut out);
    out
}

/// Inputs that reach every message kind and every EX layout, then go on with anything:
/// an id (every known one, PLAYER_DIFF ids, unknown ones), for EX a UUID (each of the 21,
/// or another) and a size that may or may not fit, then arbitrary bytes that may hold
/// small ints, NULs, negative sizes or nothing at all.
fn arbitrary_input() -> impl Strategy<Value = Vec<u8>> {
    let id = prop_oneof![
        (id::LOWEST - 2..=3),
        Just(id::EX),
        Just(id::CONSOLE_COMMAND)
    ];
    let uuid = prop_oneof![
        proptest::sample::select(ExKind::ALL).prop_map(|k| *k.uuid().as_bytes()),
        any::<[u8; 16]>(),
    ];
    let byte = prop_oneof![0u8..0x10, 0x40u8..0x50, Just(0u8), any::<u8>()];
    (id, uuid, -2i32..40, proptest::collection::vec(byte, 0..40)).prop_map(
        |(id, uuid, size, tail)| {
            let mut out = packed(&[id]);
            if id == id::EX {
                out.extend_from_slice(&uuid);
                out.extend(packed(&[size]));
            }
            out.extend(tail);
            out
        },
    )
}

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/teehistorian_layout_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Valid messages of every kind: both read what was written, and the layouts write what
    /// `encode` writes.
    #[test]
    fn layouts_and_fast_decoder_agree_on_valid_messages(generated in strategies::message()) {
        let message = generated.message();
        let mut bytes = Vec::new();
        message.encode(&mut bytes).unwrap();
        prop_assert_eq!(fast(&bytes), Outcome::Read(message, bytes.len()));
        agree(&bytes)?;

        // Writing through binrw's own path (an EX payload put together in a buffer) gives
        // the bytes `encode` gives (payload written, frame rotated in front).
        let mut cursor = Cursor::new(Vec::new());
        message.to_layout().write_le(&mut cursor).unwrap();
        prop_assert_eq!(cursor.into_inner(), bytes.clone());

        // Every cut of the message: both see the cut, or (for a message whose prefix is a
        // shorter message) both read the same thing.
        for cut in 0..bytes.len() {
            agree(&bytes[..cut])?;
        }
    }

    /// Arbitrary input, valid or not.
    #[test]
    fn layouts_and_fast_decoder_agree_on_any_input(input in arbitrary_input()) {
        agree(&input)?;
    }

    /// Single bytes flipped in a valid message.
    #[test]
    fn layouts_and_fast_decoder_agree_on_damaged_messages(
        generated in strategies::message(),
        at in any::<prop::sample::Index>(),
        value in any::<u8>(),
    ) {
        let mut bytes = Vec::new();
        generated.message().encode(&mut bytes).unwrap();
        let at = at.index(bytes.len());
        bytes[at] = value;
        agree(&bytes)?;
    }

    /// JSON of a message deserializes into its owned form, which is the same message and
    /// serializes to the same JSON.
    #[test]
    fn json_round_trips_through_the_owned_form(generated in strategies::message()) {
        let message = generated.message();
        let json = serde_json::to_string(&message).unwrap();
        let owned: OwnedMessage = serde_json::from_str(&json)
            .map_err(|e| TestCaseError::fail(format!("{json}: {e}")))?;
        prop_assert_eq!(owned.as_message(), message);
        prop_assert_eq!(serde_json::to_string(&owned).unwrap(), json);
    }
}

/// The arbitrary-input strategy reaches every message id and every EX layout, typed: the
/// property above is not vacuous for any kind.
#[test]
fn every_kind_reads_through_both() {
    let mut kinds = std::collections::BTreeSet::new();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..20_000 {
        let input = arbitrary_input().new_tree(&mut runner).unwrap().current();
        if let Ok(d) = Message::decode(&input) {
            kinds.insert(d.message.kind_name().into_owned());
        }
    }
    let mut expected: Vec<String> = (id::LOWEST + 1..=0)
        .map(|id| {
            demokit::teehistorian::message::id_name(id)
                .unwrap()
                .to_string()
        })
        .collect();
    expected.extend(ExKind::ALL.iter().map(|k| k.kind_name().to_string()));
    let missing: Vec<&String> = expected.iter().filter(|k| !kinds.contains(*k)).collect();
    assert!(missing.is_empty(), "never read: {missing:?}");
}

/// The layouts refuse what would read back as something else, with the encoder's errors.
#[test]
fn layouts_refuse_what_reads_back_differently() {
    let refused = |message: Message<'_>| {
        let mut cursor = Cursor::new(Vec::new());
        let e = message.to_layout().write_le(&mut cursor).unwrap_err();
        let layout_error = *e.custom_err::<EncodeError>().unwrap();
        assert_eq!(message.encode(&mut Vec::new()), Err(layout_error));
        layout_error
    };
    assert_eq!(
        refused(Message::PlayerDiff {
            cid: -1,
            dx: 0,
            dy: 0
        }),
        EncodeError::NegativePlayerDiffCid { cid: -1 }
    );
    assert_eq!(
        refused(Message::Drop {
            cid: 0,
            reason: b"a\0b"[..].into()
        }),
        EncodeError::NulInString {
            what: "DROP reason"
        }
    );
    let args: &[&[u8]] = &[b"x\0"];
    assert_eq!(
        refused(Message::ConsoleCommand {
            cid: 0,
            flags: 0,
            cmd: "say".into(),
            args: demokit::teehistorian::Args::list(args),
        }),
        EncodeError::NulInString {
            what: "CONSOLE_COMMAND args"
        }
    );
    // An untyped record whose payload fits its UUID's layout would read back typed.
    let untyped = demokit::teehistorian::Ex::Unknown {
        uuid: ExKind::JoinVer6.uuid(),
        data: &[3],
    };
    assert_eq!(
        refused(Message::Ex(untyped)),
        EncodeError::UntypedKnownExtension {
            name: ExKind::JoinVer6.kind_name()
        }
    );
}

/// The reader's items and the semantic events serialize with their place in the file and
/// the message's own fields.
#[test]
fn items_and_events_serialize() {
    use demokit::teehistorian::{Header, TeehistorianSlice, TeehistorianWriter};
    let mut w = TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
    w.write(&Message::Join { cid: 3 }).unwrap();
    w.write(&Message::PlayerNew {
        cid: 3,
        x: 10,
        y: 20,
    })
    .unwrap();
    w.write(&Message::PlayerDiff {
        cid: 3,
        dx: 1,
        dy: -2,
    })
    .unwrap();
    w.write(&Message::NetMessage {
        cid: 3,
        data: &[0xab, 0x01],
    })
    .unwrap();
    let bytes = w.finish().unwrap();
    let file = TeehistorianSlice::parse(&bytes).unwrap();

    let items: Vec<serde_json::Value> = file
        .messages()
        .map(|item| serde_json::to_value(item.unwrap()).unwrap())
        .collect();
    assert_eq!(items[0]["kind"], "JOIN");
    assert_eq!(items[1]["size"], 4);
    assert_eq!(items[1]["tick"], 1);
    assert_eq!(items[3]["data"], "ab01");
    assert!(items[3].get("non_canonical").is_none());

    let events: Vec<serde_json::Value> = demokit::teehistorian::Events::new(file.messages())
        .map(|event| serde_json::to_value(event.unwrap()).unwrap())
        .collect();
    let moved = events.iter().find(|e| e["event"] == "player_move").unwrap();
    assert_eq!(
        (&moved["x"], &moved["y"], &moved["dx"]),
        (&11.into(), &18.into(), &1.into())
    );
    let net = events.iter().find(|e| e["event"] == "net_message").unwrap();
    assert_eq!(net["data"], "ab01");
}

proptest! {
    #![proptest_config(config())]

    /// The header, the other record of the format, round-trips through serde too.
    #[test]
    fn header_json_round_trips(header in strategies::header()) {
        let json = serde_json::to_string(&header).unwrap();
        let back: demokit::teehistorian::Header = serde_json::from_str(&json)
            .map_err(|e| TestCaseError::fail(format!("{json}: {e}")))?;
        prop_assert_eq!(back, header);
    }
}
