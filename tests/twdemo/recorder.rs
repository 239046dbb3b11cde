//! The recorder against DDNet's own output, and its output against the readers.

use crate::common;

use demokit::codec::huffman::LengthRule;
use demokit::twdemo::edit::validate::validate;
use demokit::twdemo::{
    Chunk, ChunkKind, DemoReader, DemoSlice, PayloadDecoder, Recorder, RecorderConfig, Summary,
};
use std::io::Cursor;

/// The payload ints of every data chunk in `data`, in order, with their kinds.
fn payloads(data: &[u8]) -> Vec<(ChunkKind, Vec<i32>)> {
    let slice = DemoSlice::parse(data).unwrap();
    let mut decoder = PayloadDecoder::new();
    slice
        .chunks()
        .filter_map(|c| match c.unwrap().chunk {
            Chunk::Data(d) => Some((d.kind, decoder.decode(d.payload).unwrap().ints.to_vec())),
            Chunk::Tick(_) => None,
        })
        .collect()
}

/// Drives the recorder with the calls listed in twdemo-ddnet.md ("How ref_client.demo was
/// made"), tick markers chosen by DDNet's RecordSnapshot rule, and compares every byte.
#[test]
fn reproduces_ddnet_ref_client_demo() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let reference =
        std::fs::read(shared.join("conformance/ddnet-recorder/ref_client.demo")).unwrap();
    // The timestamp is the only field that depends on the clock.
    let timestamp = DemoSlice::parse(&reference)
        .unwrap()
        .prelude()
        .header
        .timestamp
        .to_string_lossy();
    let mut config = RecorderConfig::ddnet("testmap", &timestamp);
    config.map_crc = Some(0x1234_5678);
    config.map_sha256 = Some(std::array::from_fn(|i| i as u8));

    // Payloads: the message and the first snapshot and delta are spelled out in the
    // conformance notes; the deltas that involve the extended item and the second keyframe
    // are DDNet's CreateDelta output, taken from the reference file (building snapshots and
    // deltas is not the recorder's job).
    let from_file = payloads(&reference);
    let snapshot_100 = vec![16, 1, 0, 5 << 16, 100, 200, 1];
    let delta_101 = vec![0, 1, 0, 5, 0, 1, 0, 0];
    assert_eq!(from_file[0], (ChunkKind::Snapshot, snapshot_100.clone()));
    assert_eq!(from_file[2], (ChunkKind::SnapshotDelta, delta_101.clone()));

    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"MAPDATA!").unwrap();
    rec.record_tick_marker(100, true).unwrap();
    rec.record_snapshot_ints(&snapshot_100).unwrap();
    rec.record_message(&[0x06, 0x00, 0x40, b'h', b'i', 0x00])
        .unwrap();
    rec.record_tick_marker(101, false).unwrap();
    rec.record_delta_ints(&delta_101).unwrap();
    rec.record_tick_marker(102, false).unwrap(); // empty delta: marker only
    rec.record_tick_marker(103, false).unwrap();
    rec.record_delta_ints(&from_file[3].1).unwrap();
    assert!(rec.add_timeline_marker(103));
    rec.record_tick_marker(140, false).unwrap();
    rec.record_delta_ints(&from_file[4].1).unwrap();
    rec.record_tick_marker(351, true).unwrap();
    rec.record_snapshot_ints(&from_file[5].1).unwrap();
    assert!(rec.add_timeline_marker(351));
    rec.record_tick_marker(352, false).unwrap();
    assert_eq!(rec.length(), 5);
    let out = rec.finish().unwrap().into_inner();
    assert_eq!(out.len(), reference.len());
    assert!(out == reference, "recorder output differs from DDNet's");
}

/// Drives `record_snapshot` with the calls listed in twdemo-ddnet.md ("How ref_client.demo
/// was made"), the snapshots built with the builder, so that keyframes, deltas, the
/// extended item and the marker-only ticks all come from the library, and compares every
/// byte with DDNet's output.
#[test]
fn record_snapshot_reproduces_ddnet_ref_client_demo() {
    use demokit::codec::uuid::teeworlds_uuid;
    use demokit::twdemo::snapshot::{SnapshotBuf, SnapshotBuilder};

    let Some(shared) = common::shared_dir() else {
        return;
    };
    let reference =
        std::fs::read(shared.join("conformance/ddnet-recorder/ref_client.demo")).unwrap();
    // The timestamp is the only field that depends on the clock: take it from the file.
    let timestamp = DemoSlice::parse(&reference)
        .unwrap()
        .prelude()
        .header
        .timestamp
        .to_string_lossy();
    let mut config = RecorderConfig::ddnet("testmap", &timestamp);
    config.map_crc = Some(0x1234_5678);
    config.map_sha256 = Some(std::array::from_fn(|i| i as u8));

    // DDNet's extended object SpecChar (datasrc/network.py: NetObjectEx("SpecChar",
    // "spec-char@netobj.ddnet.tw", [m_X, m_Y])).
    let spec_char = teeworlds_uuid("spec-char@netobj.ddnet.tw");
    const FLAG: i32 = 5;
    const PICKUP: i32 = 4;
    // One fresh builder per snapshot, as the reference was made.
    let snapshot = |flag_x: i32, pickup: bool, spec: bool| -> SnapshotBuf {
        let mut b = SnapshotBuilder::new();
        b.add_item(FLAG, 0, &[flag_x, 200, 1]).unwrap();
        if pickup {
            b.add_item(PICKUP, 7, &[16, 32, 1, 0]).unwrap();
        }
        if spec {
            b.add_extended_item(spec_char, 3, &[5, 6]).unwrap();
        }
        b.finish()
    };

    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"MAPDATA!").unwrap();
    rec.record_snapshot(100, snapshot(100, false, false).as_snapshot())
        .unwrap();
    // Sv_Chat: varint((3 << 1) | 0), team 0, client -1, "hi".
    rec.record_message(&[0x06, 0x00, 0x40, b'h', b'i', 0x00])
        .unwrap();
    rec.record_snapshot(101, snapshot(101, false, false).as_snapshot())
        .unwrap();
    rec.record_snapshot(102, snapshot(101, false, false).as_snapshot())
        .unwrap();
    rec.record_snapshot(103, snapshot(101, true, true).as_snapshot())
        .unwrap();
    assert!(rec.add_timeline_marker(103));
    rec.record_snapshot(140, snapshot(102, false, true).as_snapshot())
        .unwrap();
    rec.record_snapshot(351, snapshot(103, false, true).as_snapshot())
        .unwrap();
    assert_eq!(rec.last_keyframe(), Some(351));
    assert!(rec.add_timeline_marker(351));
    rec.record_snapshot(352, snapshot(103, false, true).as_snapshot())
        .unwrap();
    assert_eq!(rec.length(), 5);
    let out = rec.finish().unwrap().into_inner();

    // The extended item's type-0 item carries the UUID as 4 big-endian ints, as in the
    // annotated stream.
    let delta_103 = &payloads(&out)[3].1;
    assert_eq!(
        delta_103[9..16],
        [0, 32767, 4, 1266687092, -498320160, -1188251820, -802358134]
    );
    assert_eq!(out.len(), reference.len());
    let differing: Vec<usize> = (0..out.len()).filter(|&i| out[i] != reference[i]).collect();
    assert!(
        differing.is_empty(),
        "bytes differ from DDNet's at {differing:?}"
    );
}

/// A map DDNet's client loads: `validate` judges the embedded map as the client does.
fn small_map() -> Vec<u8> {
    demokit::datafile::minimal_map(4, 3, "recorder").unwrap()
}

fn record_small(version: u8, rule: LengthRule) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet("dm1", "2026-11-22_10-00-00");
    config.version = version;
    config.huffman_rule = rule;
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, &small_map()).unwrap();
    rec.record_message(&[0x0c, 0x01]).unwrap(); // before the first marker, like servers do
    for tick in [50, 51, 52, 60, 123, 124, 200, 301, 302] {
        let keyframe = tick == 50 || tick == 301;
        rec.record_tick_marker(tick, keyframe).unwrap();
        if keyframe {
            // A flag (type 5: 3 ints), so that DDNet's player takes the snapshot.
            rec.record_snapshot_ints(&[16, 1, 0, 5 << 16, tick, -tick, 0])
                .unwrap();
        } else {
            rec.record_delta_ints(&[0, 1, 0, 5, 0, 1, -1, 0]).unwrap();
            rec.record_message(&vec![0xAB; tick as usize]).unwrap();
        }
        rec.add_timeline_marker_now();
    }
    rec.finish().unwrap().into_inner()
}

#[test]
fn every_version_reads_back_and_validates() {
    for version in 3..=6 {
        for rule in [LengthRule::Tight, LengthRule::TrailingByte] {
            let data = record_small(version, rule);
            let report = validate(&data);
            assert!(report.accepted(), "v{version} {rule:?}: {report:?}");
            let (s, err) = Summary::scan(&data).unwrap();
            assert!(err.is_none());
            assert_eq!(s.version, version);
            assert_eq!((s.first_tick, s.last_tick), (Some(50), Some(302)));
            assert_eq!(s.counts.tick_markers, 9);
            assert_eq!(s.counts.keyframes, 2);
            assert_eq!(s.counts.messages, 8);
            assert_eq!(s.length, (302 - 50) / 50);
            assert_eq!(s.map_crc, format!("{:08x}", crc32fast::hash(&small_map())));
            assert_eq!(s.map_sha256.is_some(), version == 6);
            // Markers closer than 50 ticks are dropped, as in DDNet; v3 has no block.
            let expected: &[i32] = if version == 3 {
                &[]
            } else {
                &[50, 123, 200, 301]
            };
            assert_eq!(s.markers, expected);
            // Messages come back padded to whole words.
            let p = payloads(&data);
            assert_eq!(p[0], (ChunkKind::Message, vec![0x010c]));
            let long = p
                .iter()
                .find(|(k, i)| *k == ChunkKind::Message && i.len() > 1)
                .unwrap();
            assert_eq!(long.1.len(), 13); // 51 bytes -> 13 words
        }
    }
}

#[test]
fn cut_off_recording_still_reads() {
    // A recorder that never reaches finish(): the header keeps length 0 and no markers.
    let mut config = RecorderConfig::ddnet("dm1", "2026-11-22_10-00-00");
    config.version = 5;
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, &small_map()).unwrap();
    rec.record_tick_marker(10, true).unwrap();
    rec.record_snapshot_ints(&[0, 0]).unwrap();
    rec.record_tick_marker(11, false).unwrap();
    rec.record_delta_ints(&[0, 1, 0, 5, 0, 1]).unwrap();
    rec.record_tick_marker(12, false).unwrap();
    assert!(rec.add_timeline_marker(11));
    rec.flush().unwrap();
    // What is on disk when the process dies here: finish() never ran.
    let data = rec.get_ref().get_ref().clone();
    let (s, err) = Summary::scan(&data).unwrap();
    assert!(err.is_none());
    assert_eq!(s.length, 0);
    assert!(s.markers.is_empty());
    assert_eq!((s.first_tick, s.last_tick), (Some(10), Some(12)));
    assert!(validate(&data).accepted());
    // And finishing afterwards patches what DDNet patches.
    let done = rec.finish().unwrap().into_inner();
    let (s, _) = Summary::scan(&done).unwrap();
    assert_eq!(s.markers, [11]);
    assert_eq!(done.len(), data.len());
}

#[test]
fn stream_reader_reads_recorder_output() {
    let data = record_small(6, LengthRule::Tight);
    let mut reader = DemoReader::new(&data[..]).unwrap();
    let mut n = 0;
    while let Some(item) = reader.next() {
        item.unwrap();
        n += 1;
    }
    assert_eq!(n, 9 + 2 + 7 + 8); // markers, snapshots, deltas, messages
}
