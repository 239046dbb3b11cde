//! The `serde` forms of the Teeworlds demo and Source demo records: every owned record type
//! reads back from its JSON as the same value (floats by their bits), on generated values
//! and on the real recordings; the borrowed records write the field names their docs give.

use crate::common;

use demokit::codec::huffman::LengthRule;
use demokit::codec::string::FixedStr;
use demokit::source::format::{
    CustomDataPrefix, FrameHead, LengthPrefix, PacketTrailer, UserCmdPrefix,
};
use demokit::source::{self, Command, SourceSlice, ViewInfo};
use demokit::twdemo::container::format::{MapSha256, TimelineMarkers, VersionHeader};
use demokit::twdemo::container::strategies;
use demokit::twdemo::snapshot::replay::SnapshotReplay;
use demokit::twdemo::{
    ChunkKind, DataRecord, Demo, DemoSlice, Payload, PayloadDecoder, Prelude, RawChunkHeader,
    Record, SizeForm, SnapshotBuf, SnapshotBuilder, TickForm, TickMarker,
};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::fmt::Debug;

/// `value` as JSON, and back.
fn round_trip<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let text = serde_json::to_string(value).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Asserts that `value` reads back from its JSON as itself, and that the JSON of the copy
/// is the same text.
fn assert_round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T) {
    let back = round_trip(value);
    assert_eq!(&back, value);
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        serde_json::to_string(value).unwrap()
    );
}

/// The bits of a view's floats (NaN is not equal to itself, its bits are).
fn view_bits(v: &ViewInfo) -> Vec<u32> {
    [
        v.view_origin,
        v.view_angles,
        v.local_view_angles,
        v.view_origin2,
        v.view_angles2,
        v.local_view_angles2,
    ]
    .iter()
    .flatten()
    .map(|f| f.to_bits())
    .collect()
}

/// A view-info block of any float bits, NaNs and infinities included.
fn any_view_info() -> impl Strategy<Value = ViewInfo> {
    (any::<i32>(), prop::array::uniform18(any::<u32>())).prop_map(|(flags, bits)| {
        let v = |i: usize| std::array::from_fn(|k| f32::from_bits(bits[i + k]));
        ViewInfo {
            flags,
            view_origin: v(0),
            view_angles: v(3),
            local_view_angles: v(6),
            view_origin2: v(9),
            view_angles2: v(12),
            local_view_angles2: v(15),
        }
    })
}

/// A snapshot built from up to 20 items, a few of extended types.
fn any_snapshot() -> impl Strategy<Value = SnapshotBuf> {
    let item = (
        prop_oneof![0i32..30, Just(-1)],
        0i32..=0xffff,
        prop::collection::vec(any::<i32>(), 0..12),
        any::<u128>(),
    );
    prop::collection::vec(item, 0..20).prop_map(|items| {
        let mut builder = SnapshotBuilder::new();
        for (type_id, id, data, uuid) in items {
            // Negative types stand for an extended type here; refused items are dropped.
            let _ = if type_id < 0 {
                builder
                    .add_extended_item(uuid::Uuid::from_u128(uuid % 3 + 1), id, &data)
                    .map(|_| ())
            } else {
                builder.add_item(type_id, id, &data)
            };
        }
        builder.finish()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64)
    ))]

    /// A whole demo (prelude, map, records of every kind, raw ones included) and each of
    /// its parts read back from JSON as themselves.
    #[test]
    fn twdemo_records_round_trip(demo in strategies::any_demo(12, 64)) {
        assert_round_trip(&demo);
        let p = demo.prelude;
        assert_round_trip(&p);
        assert_round_trip(&p.version_header);
        assert_round_trip(&p.header);
        if let Some(m) = p.timeline_markers {
            assert_round_trip(&m);
        }
        if let Some(sha) = p.map_sha256 {
            assert_round_trip(&sha);
        }
        for record in &demo.records {
            assert_round_trip(record);
            if let Record::Data(data) = record {
                assert_round_trip(data);
                assert_round_trip(&data.payload);
                assert_round_trip(&data.kind);
                assert_round_trip(&data.size_form);
            }
        }
    }

    /// Chunk headers of every form, tick markers and the small enums.
    #[test]
    fn twdemo_headers_and_markers_round_trip(
        header in strategies::raw_chunk_header(),
        tick in any::<i32>(),
        keyframe in any::<bool>(),
        absolute in any::<bool>(),
        kind in 0u8..4,
        tight in any::<bool>(),
    ) {
        assert_round_trip(&header);
        let form = if absolute { TickForm::Absolute } else { TickForm::Delta };
        assert_round_trip(&TickMarker { tick, keyframe, form });
        assert_round_trip(&ChunkKind::from_type_id(kind));
        assert_round_trip(&if tight { LengthRule::Tight } else { LengthRule::TrailingByte });
        for size_form in [SizeForm::Inline, SizeForm::Byte, SizeForm::Word] {
            assert_round_trip(&size_form);
        }
    }

    /// String fields of any bytes: text, garbage after the NUL, no NUL at all.
    #[test]
    fn fixed_strings_round_trip(raw in prop::array::uniform32(any::<u8>()), text in "[a-z]{0,31}") {
        assert_round_trip(&FixedStr::<32>::from_raw(raw));
        let canonical = FixedStr::<32>::new(&text).unwrap();
        assert_round_trip(&canonical);
        // A field that is only text is written as that text.
        prop_assert_eq!(serde_json::to_value(canonical).unwrap(), json!(text));
    }

    /// Snapshots built as DDNet builds them, extended types included.
    #[test]
    fn snapshots_round_trip(snapshot in any_snapshot()) {
        assert_round_trip(&snapshot);
    }

    /// Source headers, frame prefixes and view-info blocks; floats of any bits (NaN
    /// payloads included) come back bit for bit.
    #[test]
    fn source_records_round_trip(
        header in source::strategies::profile().prop_flat_map(source::strategies::header_for),
        view in any_view_info(),
        time_bits in any::<u32>(),
        ints in any::<[i32; 3]>(),
        command in any::<u8>(),
    ) {
        assert_round_trip(&header);
        let odd_time = source::Header { playback_time: f32::from_bits(time_bits), ..header };
        let back = round_trip(&odd_time);
        prop_assert_eq!(back.playback_time.to_bits(), time_bits);
        prop_assert_eq!(
            source::Header { playback_time: 0.0, ..back },
            source::Header { playback_time: 0.0, ..odd_time }
        );
        let back = round_trip(&view);
        prop_assert_eq!(back.flags, view.flags);
        prop_assert_eq!(view_bits(&back), view_bits(&view));
        let [a, b, c] = ints;
        assert_round_trip(&FrameHead { command, tick: a, slot: None });
        assert_round_trip(&FrameHead { command, tick: b, slot: Some(command) });
        assert_round_trip(&PacketTrailer { seq_in: a, seq_out: b, length: c });
        assert_round_trip(&UserCmdPrefix { sequence: a, length: b });
        assert_round_trip(&CustomDataPrefix { callback: a, length: b });
        assert_round_trip(&LengthPrefix { length: c });
    }
}

/// The Source command names, in JSON as in the counts and dumps.
#[test]
fn source_commands_round_trip() {
    for command in Command::ALL {
        assert_round_trip(&command);
        let name = serde_json::to_value(command).unwrap();
        assert_eq!(name, json!(command.name()));
    }
}

/// Every real demo, read into a [`Demo`], reads back from its JSON as the same demo; every
/// replayed snapshot too.
#[test]
fn real_demos_round_trip() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in common::twdemo_facts(&shared) {
        let data = std::fs::read(&path).unwrap();
        let demo = Demo::from_bytes(&data).unwrap();
        assert_eq!(round_trip(&demo), demo, "{}", path.display());
        let slice = DemoSlice::parse(&data).unwrap();
        let mut replay = SnapshotReplay::new(&slice);
        let mut snapshots = 0;
        while let Some(tick) = replay.next() {
            if let Some(snapshot) = tick.unwrap().snapshot {
                let buf = SnapshotBuf::from(snapshot);
                assert_eq!(round_trip(&buf), buf, "{}", path.display());
                snapshots += 1;
            }
        }
        assert!(snapshots > 0, "{}", path.display());
    }
}

/// The borrowed records write the names their docs give: a data chunk and a tick marker
/// with their headers, a decoded payload, a replayed tick.
#[test]
fn twdemo_borrowed_records_have_documented_names() {
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/recorded_v6.demo"
    ))
    .unwrap();
    let demo = DemoSlice::parse(&data).unwrap();
    let mut decoder = PayloadDecoder::new();
    let (mut ticks, mut datas) = (0, 0);
    for item in demo.chunks() {
        let item = item.unwrap();
        let v = serde_json::to_value(item).unwrap();
        assert_eq!(v["offset"], json!(item.offset));
        assert_eq!(v["header"]["lead"], json!(item.header.lead));
        match item.chunk {
            demokit::twdemo::Chunk::Tick(marker) => {
                ticks += 1;
                assert_eq!(v["type"], "tick");
                assert_eq!(v["tick"], json!(marker.tick));
                assert_eq!(v["keyframe"], json!(marker.keyframe));
                assert!(v["form"] == "absolute" || v["form"] == "delta", "{v}");
            }
            demokit::twdemo::Chunk::Data(chunk) => {
                datas += 1;
                assert_eq!(v["type"], "data");
                assert_eq!(v["kind"], serde_json::to_value(chunk.kind).unwrap());
                assert_eq!(v["payload"], json!(hex::encode(chunk.payload)));
                let decoded = decoder.decode(chunk.payload).unwrap();
                let d = serde_json::to_value(decoded).unwrap();
                assert_eq!(d["ints"], json!(decoded.ints));
                assert_eq!(d["packed"], json!(hex::encode(decoded.packed)));
                assert_eq!(d["huffman_bits"], json!(decoded.huffman_bits));
                assert_eq!(d["non_canonical_ints"], json!(0));
            }
        }
    }
    assert!(ticks > 0 && datas > 0);
    let mut replay = SnapshotReplay::new(&demo);
    let tick = loop {
        let tick = replay.next().unwrap().unwrap();
        if tick.snapshot.is_some() {
            break tick;
        }
    };
    let v = serde_json::to_value(tick).unwrap();
    let items = v["snapshot"]["items"].as_array().unwrap();
    let first = tick.snapshot.unwrap().item(0).unwrap();
    assert_eq!(items.len(), tick.snapshot.unwrap().len());
    assert_eq!(
        items[0],
        json!({"type_id": first.type_id, "id": first.id, "data": first.data})
    );
    for key in ["tick", "keyframe", "offset", "messages"] {
        assert!(v.get(key).is_some(), "{key}: {v}");
    }
}

/// An item of an extended type carries its UUID; the UUID is not read back (the type-0
/// item holds it).
#[test]
fn snapshot_items_of_extended_types_name_their_uuid() {
    let uuid = uuid::Uuid::from_u128(0x1234);
    let mut builder = SnapshotBuilder::new();
    let type_id = builder.add_extended_item(uuid, 7, &[1, 2]).unwrap();
    builder.add_item(3, 1, &[5]).unwrap();
    let snapshot = builder.finish();
    let v = serde_json::to_value(&snapshot).unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["type_id"], 0);
    assert!(items[0].get("uuid").is_none());
    assert_eq!(items[1]["type_id"], type_id);
    assert_eq!(items[1]["uuid"], json!(uuid.to_string()));
    assert!(items[2].get("uuid").is_none());
    assert_round_trip(&snapshot);
    // An item list that is no valid snapshot is refused.
    let too_big = json!({"items": [{"type_id": 1, "id": 0, "data": vec![0; 20_000]}]});
    assert!(serde_json::from_value::<SnapshotBuf>(too_big).is_err());
}

/// Every frame of the real Source demos writes the names the docs give.
#[test]
fn source_frames_have_documented_names() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = shared.join("real-fixtures/source");
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        let slice = SourceSlice::parse(&data).unwrap();
        assert_round_trip(slice.header());
        files += 1;
        for item in slice.frames() {
            let item = item.unwrap();
            let v: Value = serde_json::to_value(&item).unwrap();
            let frame = &item.frame;
            assert_eq!(v["offset"], json!(item.offset));
            assert_eq!(v["len"], json!(item.len));
            assert_eq!(v["tick"], json!(frame.tick));
            assert_eq!(v.get("slot").cloned(), frame.slot.map(|s| json!(s)));
            assert_eq!(v["command"], json!(frame.command().name()));
            match &frame.body {
                source::Body::Signon(p) | source::Body::Packet(p) => {
                    assert_eq!(v["seq_in"], json!(p.seq_in));
                    assert_eq!(v["seq_out"], json!(p.seq_out));
                    assert_eq!(v["data"], json!(hex::encode(p.data)));
                    let views = v["views"].as_array().unwrap();
                    assert_eq!(views.len() * 76, p.view.len());
                    let first = p.view_infos().next().unwrap();
                    assert_eq!(views[0], serde_json::to_value(first).unwrap());
                }
                source::Body::Stop { tail } => assert_eq!(v["tail"], json!(hex::encode(tail))),
                source::Body::UserCmd { sequence, data } => {
                    assert_eq!(v["sequence"], json!(sequence));
                    assert_eq!(v["data"], json!(hex::encode(data)));
                }
                source::Body::CustomData { callback, data } => {
                    assert_eq!(v["callback"], json!(callback));
                    assert_eq!(v["data"], json!(hex::encode(data)));
                }
                source::Body::SyncTick => {}
                body => assert_eq!(v["data"], json!(hex::encode(frame.payload())), "{body:?}"),
            }
        }
    }
    assert_eq!(files, 4);
}

/// A header whose string fields hold bytes after their NUL writes them as `{"text", "raw"}`;
/// the timeline markers keep all 64 slots.
#[test]
fn twdemo_prelude_keeps_every_byte() {
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/recorded_v6.demo"
    ))
    .unwrap();
    let prelude = Prelude::parse(&data).unwrap();
    let mut garbage = prelude;
    let mut raw = *garbage.header.map_name.raw();
    raw[60] = 0xAB;
    garbage.header.map_name = FixedStr::from_raw(raw);
    let mut markers = TimelineMarkers::EMPTY;
    markers.ticks[63] = 77;
    garbage.timeline_markers = Some(markers);
    let v = serde_json::to_value(garbage).unwrap();
    assert_eq!(
        v["header"]["map_name"]["text"],
        json!(prelude.header.map_name.to_string_lossy())
    );
    assert_eq!(v["header"]["map_name"]["raw"], json!(hex::encode(raw)));
    assert_eq!(v["timeline_markers"]["ticks"][63], 77);
    assert_round_trip(&garbage);
    assert_eq!(
        serde_json::to_value(VersionHeader {
            magic: *b"TWDEMO\0",
            version: 6
        })
        .unwrap(),
        json!({"magic": "545744454d4f00", "version": 6})
    );
    let sha = MapSha256 {
        uuid: [1; 16],
        digest: [2; 32],
    };
    assert_eq!(
        serde_json::to_value(sha).unwrap()["uuid"],
        json!("01".repeat(16))
    );
    let record = DataRecord {
        kind: ChunkKind::Message,
        size_form: SizeForm::Inline,
        payload: Payload::Stored(vec![0xab, 0xcd]),
    };
    assert_eq!(
        serde_json::to_value(&record).unwrap(),
        json!({"kind": "message", "size_form": "inline", "payload": "abcd"})
    );
    let header = RawChunkHeader::data(ChunkKind::Snapshot, 300, SizeForm::Word).unwrap();
    assert_eq!(
        serde_json::to_value(header).unwrap(),
        json!({"lead": 0x3f, "size_word": 300})
    );
}
