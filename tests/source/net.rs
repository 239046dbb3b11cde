//! The network messages of every real Source demo: each signon and packet frame decodes to
//! its last message with no unknown message, and encodes back to the same bytes; string
//! tables, the `dem_stringtables` frame and game events decode against each demo's own
//! declarations.

use crate::common;

use demokit::codec::bits::BitReader;
use demokit::source::net::state::{NetState, TableChange};
use demokit::source::net::string_table::StringTablesFrame;
use demokit::source::net::{Decoder, Encoder, MessageKind, NetMessage, Packet};
use demokit::source::{Body, SourceSlice};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What one demo's walk found.
#[derive(Default, Debug)]
struct Walk {
    packets: usize,
    messages: usize,
    kinds: BTreeMap<MessageKind, usize>,
    unknown: usize,
    errors: Vec<String>,
    events: usize,
    tables: usize,
    unreadable_updates: usize,
    re_encoded_differently: usize,
    cut_short: bool,
}

fn walk(data: &[u8]) -> (String, Walk) {
    let slice = SourceSlice::parse(data).unwrap();
    let mut state = NetState::of_header(slice.header()).expect("a branch this layer decodes");
    let mut w = Walk::default();
    for frame in slice.frames() {
        // A recording that was never finished ends inside a frame: the container says
        // where, and the messages before it are still checked.
        let Ok(frame) = frame else {
            w.cut_short = true;
            break;
        };
        let at = frame.offset;
        match &frame.frame.body {
            Body::StringTables(bytes) => {
                let mut decoded = StringTablesFrame::default();
                decoded
                    .code(&mut Decoder::new(BitReader::new(bytes)))
                    .unwrap_or_else(|e| panic!("dem_stringtables at {at}: {e}"));
                let mut encoder = Encoder::default();
                decoded.code(&mut encoder).unwrap();
                assert_eq!(
                    encoder.into_writer().into_bytes(),
                    *bytes,
                    "dem_stringtables at {at} encodes back"
                );
                state.apply_string_tables_frame(bytes).unwrap();
            }
            Body::Signon(packet) | Body::Packet(packet) => {
                w.packets += 1;
                let mut messages = state.messages(packet.data);
                let mut decoded = Vec::new();
                for m in messages.by_ref() {
                    match m {
                        Ok(m) => decoded.push(m.message),
                        Err(e) => {
                            if matches!(
                                e.kind,
                                demokit::source::net::NetErrorKind::UnknownMessage { .. }
                            ) {
                                w.unknown += 1;
                            }
                            w.errors.push(format!("frame at {at}: {e}"));
                        }
                    }
                }
                let protocol_before = state.protocol;
                state.learned(&messages);
                let tail = messages.tail();
                for m in &decoded {
                    w.messages += 1;
                    *w.kinds.entry(m.kind()).or_default() += 1;
                    match state.apply(m) {
                        Ok(Some(TableChange::Unreadable { .. })) => w.unreadable_updates += 1,
                        Ok(Some(TableChange::Created { .. })) => w.tables += 1,
                        Ok(_) => {}
                        Err(e) => w
                            .errors
                            .push(format!("frame at {at}: {}: {e}", m.kind().name())),
                    }
                    match state.event_of(m) {
                        Some(Ok(_)) => w.events += 1,
                        Some(Err(e)) => w.errors.push(format!("frame at {at}: event: {e}")),
                        None => {}
                    }
                    if let NetMessage::Protobuf(p) = m
                        && let Err(e) = p.classic()
                    {
                        w.errors
                            .push(format!("frame at {at}: {}: {e}", p.kind.name()));
                    }
                }
                let mut p = protocol_before;
                let again = Packet::decode(packet.data, &mut p).unwrap();
                assert_eq!(again.messages, decoded);
                assert_eq!(again.tail, tail);
                if again.encode(p).unwrap().as_bytes() != packet.data {
                    w.re_encoded_differently += 1;
                }
            }
            _ => {}
        }
    }
    (
        format!("{:?} {}", state.protocol.branch, state.protocol.build),
        w,
    )
}

#[test]
fn every_packet_of_every_source_demo_decodes_and_encodes_back() {
    let demos = common::source_demos();
    assert!(demos.len() >= 8, "the fixtures hold 8 Source demos");
    let mut table = String::from(
        "file | branch build | packets | messages | unknown | errors | events | tables | unreadable | re-encoded differently | cut short\n",
    );
    let mut failures = Vec::new();
    for path in &demos {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(path).unwrap();
        let (branch, w) = walk(&data);
        writeln!(
            table,
            "{name} | {branch} | {} | {} | {} | {} | {} | {} | {} | {} | {}",
            w.packets,
            w.messages,
            w.unknown,
            w.errors.len(),
            w.events,
            w.tables,
            w.unreadable_updates,
            w.re_encoded_differently,
            w.cut_short
        )
        .unwrap();
        // The shortest, a Portal 2 mod's speedrun segment, has 80 packets.
        assert!(w.packets > 50 && w.messages > w.packets, "{name}: {w:?}");
        // Only the HLTV server's recording of the fixtures was never finished.
        assert_eq!(w.cut_short, name.contains("hltv_server"), "{name}");
        if w.unknown > 0 || !w.errors.is_empty() || w.re_encoded_differently > 0 {
            failures.push(format!("{name}: {:?}", &w.errors[..w.errors.len().min(5)]));
        }
        // Every demo declares its events and creates its tables.
        assert!(w.kinds.contains_key(&MessageKind::GameEventList), "{name}");
        let created = w.kinds[&MessageKind::CreateStringTable];
        assert!(created >= 10, "{name}: {created} tables");
    }
    println!("{table}");
    assert!(failures.is_empty(), "{failures:#?}\n{table}");
}

#[test]
fn every_branch_is_among_the_fixtures() {
    let mut seen = std::collections::BTreeSet::new();
    for path in common::source_demos() {
        let data = std::fs::read(&path).unwrap();
        let slice = SourceSlice::parse(&data).unwrap();
        let state = NetState::of_header(slice.header()).unwrap();
        seen.insert(format!(
            "{:?} {}",
            state.protocol.branch,
            state.protocol.type_bits()
        ));
    }
    for want in [
        "Classic 5",
        "Classic 6",
        "Left4Dead 5",
        "Left4Dead 6",
        "Left4Dead2 6",
    ] {
        assert!(seen.contains(want), "{want} missing from {seen:?}");
    }
}

/// The CS:GO demo (`DEMOKIT_CSGO_DEMO`): every message of every frame is a protobuf
/// message of a known number, its typed view decodes, and every packet encodes back to
/// the same bytes; the string tables and every event decode.
#[test]
fn every_packet_of_the_csgo_demo_decodes_and_encodes_back() {
    let Some(path) = common::csgo_demo() else {
        return;
    };
    let data = std::fs::read(&path).unwrap();
    let (branch, w) = walk(&data);
    println!("{branch}: {w:?}");
    assert!(branch.starts_with("CsGo "), "{branch}");
    assert!(w.packets > 100 && w.messages > w.packets, "{w:?}");
    assert_eq!(w.unknown, 0, "{w:?}");
    assert!(
        w.errors.is_empty(),
        "{:?}",
        &w.errors[..w.errors.len().min(5)]
    );
    assert_eq!(w.re_encoded_differently, 0, "{w:?}");
    assert!(!w.cut_short);
    assert!(w.kinds.contains_key(&MessageKind::GameEventList), "{w:?}");
    assert!(w.kinds[&MessageKind::CreateStringTable] >= 10, "{w:?}");
    assert!(
        w.events > 0 && w.kinds[&MessageKind::PacketEntities] > 0,
        "{w:?}"
    );
}
