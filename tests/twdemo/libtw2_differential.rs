//! demokit against libtw2 (`pre-rfc3243-libtw2-demo`), an independent Teeworlds demo reader.
//!
//! Both readers go over the same bytes and their results are compared element by element:
//! the header fields, then every chunk (tick and keyframe flag; for snapshots and deltas the
//! Huffman-decoded bytes and the ints unpacked from them, the latter with libtw2_packer; for
//! messages the ints as little-endian bytes, which is what libtw2 hands out).
//!
//! Where libtw2 and DDNet disagree, demokit follows DDNet (the corpus's `conformance/`). Such
//! cases are never skipped: each is a named test below that asserts what each reader does
//! and says why DDNet's behaviour is the one taken. The real recordings all read alike; the
//! table in [`REAL_DEMOS`] pins that, with the warnings libtw2 raises, so a change on either
//! side fails the test.

use crate::common;

use demokit::codec::huffman::{self, LengthRule};
use demokit::twdemo::container::format::{KEYFRAME_FLAG, TICK_COMPRESSED_FLAG, TICK_MARKER_FLAG};
use demokit::twdemo::{
    Chunk, ChunkKind, DemoSlice, PayloadDecoder, PayloadEncoder, PayloadError, RawChunkHeader,
    ReadErrorKind, Recorder, RecorderConfig, SizeForm,
};
use libtw2_demo::{DemoKind, RawChunk, Warning};
use sha2::Digest;
use std::collections::BTreeSet;
use std::io::Cursor;

// ---------------------------------------------------------------------------------------------
// What the two readers produce, in a form that can be compared.

/// One element of a chunk stream, in the form both readers can produce.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    /// A tick marker.
    Tick { tick: i32, keyframe: bool },
    /// A full snapshot.
    Snapshot(Ints),
    /// A snapshot delta.
    Delta(Ints),
    /// A message as the little-endian bytes of its ints (what DDNet's player hands on).
    Message(Vec<u8>),
    /// A chunk of type 0. libtw2 does not hand out its payload, so neither side keeps it.
    Unknown,
}

/// A snapshot or delta payload: the Huffman-decoded (still packed) bytes and their ints.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ints {
    packed: Vec<u8>,
    ints: Vec<i32>,
}

/// The header fields both readers expose. The embedded map is kept as its SHA-256 so that a
/// failing comparison prints something readable.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HeaderFields {
    version: u8,
    net_version: Vec<u8>,
    map_name: Vec<u8>,
    map_size: u32,
    map_crc: u32,
    kind: Vec<u8>,
    length: i32,
    timestamp: Vec<u8>,
    timeline_markers: Vec<i32>,
    map_sha256: Option<[u8; 32]>,
    embedded_map_digest: [u8; 32],
}

/// Why demokit stopped before the end of the file.
#[derive(Debug)]
enum DemokitStop {
    /// The chunk reader failed (a chunk header, a tick, a truncated chunk).
    Read(ReadErrorKind),
    /// A payload did not decode; DDNet's player stops playback there too.
    Payload(PayloadError),
}

/// What demokit read from one demo.
#[derive(Debug)]
struct DemokitPass {
    header: HeaderFields,
    items: Vec<Item>,
    stop: Option<DemokitStop>,
}

/// Why libtw2 stopped before the end of the file.
#[derive(Debug)]
enum Libtw2Stop {
    /// `Reader::read_chunk` failed.
    Read(libtw2_demo::ReadError),
    /// libtw2_packer could not unpack a snapshot's bytes (libtw2's reader leaves snapshots
    /// packed; this harness unpacks them as DDNet's player does).
    SnapshotIntsCutShort,
}

/// What libtw2 read from one demo.
#[derive(Debug)]
struct Libtw2Pass {
    header: HeaderFields,
    items: Vec<Item>,
    stop: Option<Libtw2Stop>,
    /// Every distinct warning libtw2 raised, the packer's included.
    warnings: BTreeSet<Warning>,
}

/// Reads `data` with demokit: the slice reader, then [`PayloadDecoder::decode`] for every
/// data chunk. The pass stops at the first read or decode error, as DDNet's player does.
fn read_demokit(data: &[u8]) -> Result<DemokitPass, demokit::twdemo::ReadError> {
    let slice = DemoSlice::parse(data)?;
    let prelude = slice.prelude();
    let h = &prelude.header;
    let header = HeaderFields {
        version: prelude.version(),
        net_version: h.net_version.text_bytes().to_vec(),
        map_name: h.map_name.text_bytes().to_vec(),
        map_size: h.map_size,
        map_crc: h.map_crc,
        kind: h.kind.text_bytes().to_vec(),
        length: h.length,
        timestamp: h.timestamp.text_bytes().to_vec(),
        timeline_markers: prelude.markers_in_use().to_vec(),
        map_sha256: prelude.map_sha256.map(|s| s.digest),
        embedded_map_digest: sha2::Sha256::digest(slice.map()).into(),
    };
    let mut decoder = PayloadDecoder::new();
    let mut items = Vec::new();
    let mut stop = None;
    for chunk in slice.chunks() {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(e) => {
                stop = Some(DemokitStop::Read(e.kind));
                break;
            }
        };
        let data = match chunk.chunk {
            Chunk::Tick(m) => {
                items.push(Item::Tick {
                    tick: m.tick,
                    keyframe: m.keyframe,
                });
                continue;
            }
            Chunk::Data(data) => data,
        };
        // DDNet ignores type-0 chunks without decoding them, and so does this pass.
        if data.kind == ChunkKind::Unknown {
            items.push(Item::Unknown);
            continue;
        }
        let decoded = match decoder.decode(data.payload) {
            Ok(decoded) => decoded,
            Err(e) => {
                stop = Some(DemokitStop::Payload(e));
                break;
            }
        };
        let ints = || Ints {
            packed: decoded.packed.to_vec(),
            ints: decoded.ints.to_vec(),
        };
        items.push(match data.kind {
            ChunkKind::Snapshot => Item::Snapshot(ints()),
            ChunkKind::SnapshotDelta => Item::Delta(ints()),
            ChunkKind::Message => Item::Message(decoded.to_bytes()),
            _ => unreachable!("unknown chunks are handled above"),
        });
    }
    Ok(DemokitPass {
        header,
        items,
        stop,
    })
}

/// Reads `data` with libtw2's `Reader` until it returns `None` or fails. Snapshot and delta
/// bytes (which libtw2 leaves packed) are unpacked with libtw2_packer.
fn read_libtw2(data: &[u8]) -> Result<Libtw2Pass, libtw2_demo::ReadError> {
    // libtw2 takes any `Warn<Warning>`; a `Vec` collects them without naming libtw2_warn.
    let mut warnings: Vec<Warning> = Vec::new();
    let mut reader = libtw2_demo::Reader::new(Cursor::new(data), &mut warnings)?;
    let header = HeaderFields {
        version: reader.version() as u8,
        net_version: reader.net_version().to_vec(),
        map_name: reader.map_name().to_vec(),
        map_size: reader.map_size(),
        map_crc: reader.map_crc(),
        kind: match reader.kind() {
            DemoKind::Client => b"client".to_vec(),
            DemoKind::Server => b"server".to_vec(),
        },
        length: reader.length(),
        timestamp: reader.timestamp().to_vec(),
        timeline_markers: reader.timeline_markers().to_vec(),
        map_sha256: reader.map_sha256().map(|s| s.0),
        embedded_map_digest: sha2::Sha256::digest(reader.map_data()).into(),
    };
    let mut items = Vec::new();
    let mut stop = None;
    let mut packer_warnings = Vec::new();
    loop {
        let chunk = match reader.read_chunk(&mut warnings) {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) => {
                stop = Some(Libtw2Stop::Read(e));
                break;
            }
        };
        let item = match chunk {
            RawChunk::Tick { tick, keyframe } => Item::Tick { tick, keyframe },
            RawChunk::Snapshot(packed) | RawChunk::SnapshotDelta(packed) => {
                let Some(ints) = libtw2_unpack(packed, &mut packer_warnings) else {
                    stop = Some(Libtw2Stop::SnapshotIntsCutShort);
                    break;
                };
                let ints = Ints {
                    packed: packed.to_vec(),
                    ints,
                };
                match chunk {
                    RawChunk::Snapshot(_) => Item::Snapshot(ints),
                    _ => Item::Delta(ints),
                }
            }
            RawChunk::Message(bytes) => Item::Message(bytes.to_vec()),
            RawChunk::Unknown => Item::Unknown,
        };
        items.push(item);
    }
    let mut warnings: BTreeSet<Warning> = warnings.into_iter().collect();
    warnings.extend(packer_warnings.into_iter().map(Warning::from));
    Ok(Libtw2Pass {
        header,
        items,
        stop,
        warnings,
    })
}

/// Unpacks variable-width ints with libtw2_packer until the bytes run out; `None` if the
/// last int is cut short.
fn libtw2_unpack(packed: &[u8], warnings: &mut Vec<libtw2_packer::Warning>) -> Option<Vec<i32>> {
    let mut unpacker = libtw2_packer::Unpacker::new(packed);
    let mut ints = Vec::with_capacity(packed.len());
    while !unpacker.is_empty() {
        ints.push(unpacker.read_int(warnings).ok()?);
    }
    Some(ints)
}

/// Reads `data` with both readers; panics if either fails on the header.
fn read_both(name: &str, data: &[u8]) -> (DemokitPass, Libtw2Pass) {
    let demokit = read_demokit(data).unwrap_or_else(|e| panic!("{name}: demokit: {e}"));
    let libtw2 = read_libtw2(data).unwrap_or_else(|e| panic!("{name}: libtw2: {e:?}"));
    (demokit, libtw2)
}

/// Asserts that both readers read the whole file, to the same header and chunk stream.
fn assert_read_alike(name: &str, demokit: &DemokitPass, libtw2: &Libtw2Pass) {
    assert_eq!(
        demokit.header, libtw2.header,
        "{name}: header fields differ"
    );
    assert!(
        demokit.stop.is_none(),
        "{name}: demokit stopped: {:?}",
        demokit.stop
    );
    assert!(
        libtw2.stop.is_none(),
        "{name}: libtw2 stopped: {:?}",
        libtw2.stop
    );
    assert_same_items(name, &demokit.items, &libtw2.items);
}

/// Asserts that two chunk streams are equal, naming the first chunk where they differ.
fn assert_same_items(name: &str, demokit: &[Item], libtw2: &[Item]) {
    if let Some(i) = demokit.iter().zip(libtw2).position(|(a, b)| a != b) {
        panic!(
            "{name}: chunk {i} differs: {}",
            explain_difference(&demokit[i], &libtw2[i])
        );
    }
    assert_eq!(
        demokit.len(),
        libtw2.len(),
        "{name}: demokit read {} chunks, libtw2 {}",
        demokit.len(),
        libtw2.len()
    );
}

/// Says where two differing items differ, without printing whole payloads.
fn explain_difference(demokit: &Item, libtw2: &Item) -> String {
    fn at<T: PartialEq>(a: &[T], b: &[T]) -> String {
        let i = a.iter().zip(b).position(|(x, y)| x != y);
        let i = i.unwrap_or(a.len().min(b.len()));
        format!("from index {i} (lengths {} and {})", a.len(), b.len())
    }
    match (demokit, libtw2) {
        (Item::Snapshot(a), Item::Snapshot(b)) | (Item::Delta(a), Item::Delta(b)) => {
            if a.packed != b.packed {
                format!("packed bytes differ {}", at(&a.packed, &b.packed))
            } else {
                format!("ints differ {}", at(&a.ints, &b.ints))
            }
        }
        (Item::Message(a), Item::Message(b)) => format!("message bytes differ {}", at(a, b)),
        (a, b) => format!("demokit has {}, libtw2 has {}", a.label(), b.label()),
    }
}

impl Item {
    /// A one-line description without payload bytes.
    fn label(&self) -> String {
        match self {
            Item::Tick { tick, keyframe } => format!("tick {tick} (keyframe: {keyframe})"),
            Item::Snapshot(p) => format!("a snapshot of {} ints", p.ints.len()),
            Item::Delta(p) => format!("a delta of {} ints", p.ints.len()),
            Item::Message(m) => format!("a message of {} bytes", m.len()),
            Item::Unknown => "an unknown-type chunk".into(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The real recordings.

/// Every real demo, by its path in the corpus, with the warnings libtw2 raises on it.
///
/// libtw2 reads all of them to the same header and chunk stream as demokit, including the
/// version-3 file and the version-4 demo of a 0.7 client (libtw2 does not look at the
/// network version). Its only complaint is about the 2020 DDNet client demos, whose unused
/// timeline-marker slots hold garbage: DDNet uses only the first `count` slots, as do demokit
/// and libtw2, so the garbage changes nothing.
const REAL_DEMOS: &[(&str, &[Warning])] = &[
    ("real-fixtures/twdemo/v3_tw061_server_dm1.demo", &[]),
    ("real-fixtures/twdemo/v4_tw065_server_dm1.demo", &[]),
    ("real-fixtures/twdemo/v4_tw075_client_dm1.demo", &[]),
    ("real-fixtures/twdemo/v5_ddnet1261_server_dm1.demo", &[]),
    ("real-fixtures/twdemo/v6_ddnet194_client_tutorial.demo", &[]),
    ("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo", &[]),
    (
        "real-fixtures/twdemo/v6_ddnet_client_daydream_big_chungus.demo",
        &[],
    ),
    (
        "real-fixtures/twdemo/v6_ddnet_client_multeasymap_2020.demo",
        &[Warning::WeirdTimelineMarkerPadding],
    ),
    (
        "real-fixtures/twdemo/v6_ddnet_client_rainymore2_2020.demo",
        &[Warning::WeirdTimelineMarkerPadding],
    ),
    (
        "real-fixtures/twdemo/v6_ddnet_client_sixup_tinycave.demo",
        &[],
    ),
    ("conformance/ddnet-recorder/ref_client.demo", &[]),
];

#[test]
fn real_demos_read_alike() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    // The table must name every real demo, so a new fixture cannot go unchecked.
    let listed: BTreeSet<&str> = REAL_DEMOS.iter().map(|(file, _)| *file).collect();
    for (path, _) in common::twdemo_facts(&shared) {
        let relative = path
            .strip_prefix(&shared)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        assert!(
            listed.contains(relative.as_str()),
            "{relative} is not in REAL_DEMOS"
        );
    }
    for &(file, expected_warnings) in REAL_DEMOS {
        let Some(path) = common::shared_file_part(file) else {
            continue;
        };
        let data = std::fs::read(path).unwrap();
        let (demokit, libtw2) = read_both(file, &data);
        assert_read_alike(file, &demokit, &libtw2);
        assert!(!demokit.items.is_empty(), "{file}: no chunks");
        let expected: BTreeSet<Warning> = expected_warnings.iter().copied().collect();
        assert_eq!(libtw2.warnings, expected, "{file}: libtw2's warnings");
    }
}

// ---------------------------------------------------------------------------------------------
// demokit's recorder, read back by libtw2.

/// A map small enough to keep the files short; it does not start with the SHA-256 UUID.
const MAP: &[u8] = b"MAPDATA! a stand-in for an embedded map, 64 bytes long..........";

/// Records a demo with demokit's [`Recorder`]; `calls` run between start and finish.
fn record(
    version: u8,
    rule: LengthRule,
    calls: impl FnOnce(&mut Recorder<Cursor<Vec<u8>>>),
) -> Vec<u8> {
    let config = RecorderConfig {
        version,
        huffman_rule: rule,
        ..RecorderConfig::ddnet("testmap", "2026-01-01_00-00-00")
    };
    let mut recorder = Recorder::start(Cursor::new(Vec::new()), &config, MAP).unwrap();
    calls(&mut recorder);
    recorder.finish().unwrap().into_inner()
}

/// The ints of a snapshot with one Flag item (type 5, id 0) at `x`, as in the DDNet
/// reference recording.
fn flag_snapshot(x: i32) -> Vec<i32> {
    vec![16, 1, 0, 5 << 16, x, 200, 1]
}

/// Ints that exercise every packed length (1 to 5 bytes) and both signs.
const EXTREME_INTS: &[i32] = &[
    0,
    -1,
    63,
    -64,
    64,
    -65,
    0x1FFF,
    0x2000,
    -0x2001,
    0xF_FFFF,
    0x10_0000,
    0x7FF_FFFF,
    0x800_0000,
    i32::MAX,
    i32::MIN,
];

#[test]
fn recorder_output_reads_alike_in_libtw2() {
    // libtw2 supports versions 3 to 6, so every version the recorder writes reads alike.
    for version in 3..=6 {
        for rule in [LengthRule::Tight, LengthRule::TrailingByte] {
            let name = format!("recorder v{version} {rule:?}");
            let data = record(version, rule, |r| {
                // A server demo starts with a message before the first tick marker.
                r.record_message(&[0x0d, 1, 2, 3, 4, 5]).unwrap();
                r.record_tick_marker(100, true).unwrap();
                r.record_snapshot_ints(&flag_snapshot(100)).unwrap();
                r.record_message(&[0x06, 0x00, 0x40, b'h', b'i', 0])
                    .unwrap();
                r.record_tick_marker(101, false).unwrap();
                r.record_delta_ints(&[0, 1, 0, 5, 0, 1, 0, 0]).unwrap();
                // An empty delta writes only the tick marker.
                r.record_tick_marker(102, false).unwrap();
                r.record_tick_marker(103, false).unwrap();
                r.record_delta_ints(EXTREME_INTS).unwrap();
                assert!(r.add_timeline_marker_now());
                // 37 ticks on: absolute from version 5 on, one byte before.
                r.record_tick_marker(140, false).unwrap();
                r.record_message(&[]).unwrap();
                // 100 ticks on: absolute in every version.
                r.record_tick_marker(240, false).unwrap();
                r.record_tick_marker(351, true).unwrap();
                r.record_snapshot_ints(EXTREME_INTS).unwrap();
                assert!(r.add_timeline_marker_now());
                r.record_tick_marker(352, false).unwrap();
            });
            let (demokit, libtw2) = read_both(&name, &data);
            assert_read_alike(&name, &demokit, &libtw2);
            assert!(libtw2.warnings.is_empty(), "{name}: {:?}", libtw2.warnings);

            // And both read what was recorded, so they do not merely agree on a mistake.
            let markers = if version >= 4 { vec![103, 351] } else { vec![] };
            assert_eq!(demokit.header.timeline_markers, markers, "{name}");
            assert_eq!(demokit.header.length, (352 - 100) / 50, "{name}");
            let expected = vec![
                message(&[0x0d, 1, 2, 3, 4, 5, 0, 0]),
                tick(100, true),
                snapshot(&flag_snapshot(100)),
                message(&[0x06, 0x00, 0x40, b'h', b'i', 0, 0, 0]),
                tick(101, false),
                delta(&[0, 1, 0, 5, 0, 1, 0, 0]),
                tick(102, false),
                tick(103, false),
                delta(EXTREME_INTS),
                tick(140, false),
                message(&[]),
                tick(240, false),
                tick(351, true),
                snapshot(EXTREME_INTS),
                tick(352, false),
            ];
            assert_same_items(&name, &demokit.items, &expected);
        }
    }
}

/// A tick-marker item.
fn tick(tick: i32, keyframe: bool) -> Item {
    Item::Tick { tick, keyframe }
}

/// The packed form of `ints`, packed by demokit.
fn packed(ints: &[i32]) -> Ints {
    let mut packed = Vec::new();
    demokit::codec::varint::pack_ints(ints, &mut packed);
    Ints {
        packed,
        ints: ints.to_vec(),
    }
}

/// A snapshot item.
fn snapshot(ints: &[i32]) -> Item {
    Item::Snapshot(packed(ints))
}

/// A delta item.
fn delta(ints: &[i32]) -> Item {
    Item::Delta(packed(ints))
}

/// A message item from its (already padded) bytes.
fn message(bytes: &[u8]) -> Item {
    Item::Message(bytes.to_vec())
}

// ---------------------------------------------------------------------------------------------
// Where libtw2 and DDNet part ways. Each test builds the smallest demo that shows it.

/// A data chunk exactly as stored: a lead byte with the type and inline size, then `stored`.
fn stored_chunk(kind: ChunkKind, stored: &[u8]) -> Vec<u8> {
    let header = RawChunkHeader::data(kind, stored.len(), SizeForm::Inline)
        .expect("test payloads are shorter than 30 bytes");
    let mut out = vec![header.lead];
    out.extend_from_slice(stored);
    out
}

/// A data chunk holding `ints`, Huffman-coded under the tight rule as DDNet 20.1 writes.
fn int_chunk(kind: ChunkKind, ints: &[i32]) -> Vec<u8> {
    stored_chunk(kind, PayloadEncoder::new().encode(ints, LengthRule::Tight))
}

/// A five-byte (absolute) tick marker.
fn absolute_tick(tick: i32, keyframe: bool) -> Vec<u8> {
    let lead = TICK_MARKER_FLAG | if keyframe { KEYFRAME_FLAG } else { 0 };
    let mut out = vec![lead];
    out.extend_from_slice(&tick.to_be_bytes());
    out
}

/// A version-6 demo holding a keyframe at tick 100 with its snapshot, then `tail` as stored.
fn v6_with_tail(tail: &[u8]) -> Vec<u8> {
    let mut data = record(6, LengthRule::Tight, |r| {
        r.record_tick_marker(100, true).unwrap();
        r.record_snapshot_ints(&flag_snapshot(100)).unwrap();
    });
    data.extend_from_slice(tail);
    data
}

/// The items of [`v6_with_tail`] before the tail.
fn v6_head() -> Vec<Item> {
    vec![tick(100, true), snapshot(&flag_snapshot(100))]
}

/// The ints of a message; what they say does not matter to these tests.
const CHAT: &[i32] = &[0x06, 0x00, -1, 0x6968];

/// [`CHAT`] as the bytes a reader hands on.
fn chat_bytes() -> Vec<u8> {
    CHAT.iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// DDNet's `ReadChunkHeader` reads the keyframe bit and the inline delta independently, and
/// `ScanFile` indexes such a marker as a keyframe. DDNet never writes it, but accepts it;
/// libtw2 refuses it (`DeltaTickKeyframe`), after having advanced its tick.
#[test]
fn libtw2_rejects_keyframe_bit_on_delta_tick() {
    let keyframe_delta = TICK_MARKER_FLAG | KEYFRAME_FLAG | TICK_COMPRESSED_FLAG | 1;
    let mut tail = vec![keyframe_delta];
    tail.extend(int_chunk(ChunkKind::Message, CHAT));
    let (demokit, libtw2) = read_both("keyframe delta", &v6_with_tail(&tail));
    assert!(demokit.stop.is_none(), "{:?}", demokit.stop);
    let mut expected = v6_head();
    expected.extend([tick(101, true), message(&chat_bytes())]);
    assert_same_items("demokit", &demokit.items, &expected);
    assert!(
        matches!(
            libtw2.stop,
            Some(Libtw2Stop::Read(libtw2_demo::ReadError::DeltaTickKeyframe))
        ),
        "{:?}",
        libtw2.stop
    );
    assert_same_items("libtw2", &libtw2.items, &v6_head());
    assert!(
        libtw2
            .warnings
            .contains(&Warning::NonAbsoluteTickmarkerTick)
    );
}

/// DDNet sets the tick from an absolute marker without comparing it to the previous one
/// (only the range `[0, 0x6FFFFFFF)` is checked); libtw2 requires absolute ticks to grow.
#[test]
fn libtw2_rejects_absolute_tick_going_back() {
    let mut tail = absolute_tick(90, true);
    tail.extend(int_chunk(ChunkKind::Snapshot, &flag_snapshot(90)));
    let (demokit, libtw2) = read_both("tick going back", &v6_with_tail(&tail));
    assert!(demokit.stop.is_none(), "{:?}", demokit.stop);
    let mut expected = v6_head();
    expected.extend([tick(90, true), snapshot(&flag_snapshot(90))]);
    assert_same_items("demokit", &demokit.items, &expected);
    assert!(
        matches!(
            libtw2.stop,
            Some(Libtw2Stop::Read(libtw2_demo::ReadError::NotIncreasingTick))
        ),
        "{:?}",
        libtw2.stop
    );
    assert_same_items("libtw2", &libtw2.items, &v6_head());
}

/// DDNet reads (or, when scanning, skips) the payload of a type-0 chunk and ignores it.
/// libtw2 returns `Unknown` without consuming the payload, so it reads the payload bytes as
/// chunk headers: here two one-byte tick markers that are not in the file.
#[test]
fn libtw2_reads_unknown_chunk_payload_as_chunks() {
    let inline_delta_1 = TICK_MARKER_FLAG | TICK_COMPRESSED_FLAG | 1;
    let mut tail = stored_chunk(ChunkKind::Unknown, &[inline_delta_1, inline_delta_1]);
    tail.extend(int_chunk(ChunkKind::Message, CHAT));
    let (demokit, libtw2) = read_both("unknown chunk", &v6_with_tail(&tail));
    assert!(demokit.stop.is_none(), "{:?}", demokit.stop);
    assert!(libtw2.stop.is_none(), "{:?}", libtw2.stop);
    let mut expected = v6_head();
    expected.extend([Item::Unknown, message(&chat_bytes())]);
    assert_same_items("demokit", &demokit.items, &expected);
    let mut expected = v6_head();
    expected.extend([
        Item::Unknown,
        tick(101, false),
        tick(102, false),
        message(&chat_bytes()),
    ]);
    assert_same_items("libtw2", &libtw2.items, &expected);
    assert!(libtw2.warnings.contains(&Warning::UnknownChunkType));
}

/// DDNet rejects a tick outside `[0, 0x6FFFFFFF)` ("Error reading chunk header"); libtw2 has
/// no range check and reads on.
#[test]
fn libtw2_accepts_ticks_outside_ddnet_range() {
    let too_large = 0x7000_0000;
    let mut tail = absolute_tick(too_large, false);
    tail.extend(int_chunk(ChunkKind::Message, CHAT));
    let (demokit, libtw2) = read_both("tick out of range", &v6_with_tail(&tail));
    assert!(
        matches!(
            demokit.stop,
            Some(DemokitStop::Read(ReadErrorKind::TickOutOfRange { tick })) if tick == too_large as i64
        ),
        "{:?}",
        demokit.stop
    );
    assert_same_items("demokit", &demokit.items, &v6_head());
    assert!(libtw2.stop.is_none(), "{:?}", libtw2.stop);
    let mut expected = v6_head();
    expected.extend([tick(too_large, false), message(&chat_bytes())]);
    assert_same_items("libtw2", &libtw2.items, &expected);
}

/// DDNet 20.1 refuses a Huffman stream whose bits run out before the EOF code ("Error during
/// network decompression"), and so does demokit. libtw2, like readers before DDNet 20.1,
/// reads missing bits as zeros. EOF's 15-bit code ends in two zero bits, so what libtw2 does
/// with a stream cut by its last byte depends on how many bits of that code the byte held:
///
/// * at most two (both zero): the zeros complete the code and libtw2 reads the chunk as if
///   it were whole;
/// * more: the zeros never complete it, 0x00 (code `0`) is decoded until libtw2's 64 KiB
///   buffer is full, and it fails with a capacity error.
#[test]
fn huffman_stream_without_eof_code() {
    /// Reads a v6 demo whose last chunk is a message of `ints`, Huffman-coded under the
    /// tight rule and then cut by one byte. Also returns how many bits the last byte held.
    fn cut_message(ints: &[i32]) -> (DemokitPass, Libtw2Pass, usize) {
        let stored = PayloadEncoder::new()
            .encode(ints, LengthRule::Tight)
            .to_vec();
        let bits = PayloadDecoder::new().decode(&stored).unwrap().huffman_bits;
        let tail = stored_chunk(ChunkKind::Message, &stored[..stored.len() - 1]);
        let (demokit, libtw2) = read_both("missing EOF", &v6_with_tail(&tail));
        assert!(
            matches!(
                demokit.stop,
                Some(DemokitStop::Payload(PayloadError::Huffman(
                    huffman::HuffmanError::MissingEof { .. }
                )))
            ),
            "{:?}",
            demokit.stop
        );
        assert_same_items("demokit", &demokit.items, &v6_head());
        (demokit, libtw2, (bits - 1) % 8 + 1)
    }

    let (_, libtw2, bits_in_last_byte) = cut_message(CHAT);
    assert!(bits_in_last_byte <= 2, "{bits_in_last_byte}");
    assert!(libtw2.stop.is_none(), "{:?}", libtw2.stop);
    let mut expected = v6_head();
    expected.push(message(&chat_bytes()));
    assert_same_items("libtw2", &libtw2.items, &expected);

    let (_, libtw2, bits_in_last_byte) = cut_message(&[13, 1, 2]);
    assert!(bits_in_last_byte > 2, "{bits_in_last_byte}");
    assert!(
        matches!(
            libtw2.stop,
            Some(Libtw2Stop::Read(libtw2_demo::ReadError::Huffman(
                libtw2_huffman::DecompressionError::Capacity(_)
            )))
        ),
        "{:?}",
        libtw2.stop
    );
    assert_same_items("libtw2", &libtw2.items, &v6_head());
}

/// The fifth byte of a variable-width int carries four data bits. DDNet masks it with 0x0F
/// (`CVariableInt::Unpack`); libtw2 keeps seven bits, so bit 4 lands in the sign bit and the
/// value differs (it warns about the padding). 0xBF FF FF FF 7F is i32::MAX to DDNet and -1
/// to libtw2.
#[test]
fn libtw2_keeps_padding_bits_of_fifth_int_byte() {
    let packed = [0xBF, 0xFF, 0xFF, 0xFF, 0x7F];
    let mut stored = Vec::new();
    huffman::compress(&packed, LengthRule::Tight, &mut stored);
    let tail = stored_chunk(ChunkKind::Message, &stored);
    let (demokit, libtw2) = read_both("fifth byte padding", &v6_with_tail(&tail));
    assert!(demokit.stop.is_none(), "{:?}", demokit.stop);
    assert!(libtw2.stop.is_none(), "{:?}", libtw2.stop);
    let mut expected = v6_head();
    expected.push(message(&i32::MAX.to_le_bytes()));
    assert_same_items("demokit", &demokit.items, &expected);
    let mut expected = v6_head();
    expected.push(message(&(-1i32).to_le_bytes()));
    assert_same_items("libtw2", &libtw2.items, &expected);
    assert!(
        libtw2
            .warnings
            .contains(&Warning::Message(libtw2_packer::Warning::NonZeroIntPadding))
    );
}

/// DDNet treats the version-6 SHA-256 block as optional: when the 16 bytes after the marker
/// block are not its UUID, the map starts there ("Demo version incremented, but not by
/// DDNet"). libtw2 requires the block and fails on the header. The demo is a version-5
/// recording (whose chunks are laid out as in version 6) with its version byte set to 6.
#[test]
fn libtw2_requires_sha256_block_in_version_6() {
    let mut data = record(5, LengthRule::Tight, |r| {
        r.record_tick_marker(100, true).unwrap();
        r.record_snapshot_ints(&flag_snapshot(100)).unwrap();
    });
    data[7] = 6;
    let demokit = read_demokit(&data).unwrap();
    assert!(demokit.stop.is_none(), "{:?}", demokit.stop);
    assert_eq!(demokit.header.version, 6);
    assert_eq!(demokit.header.map_sha256, None);
    assert_eq!(
        demokit.header.embedded_map_digest,
        <[u8; 32]>::from(sha2::Sha256::digest(MAP))
    );
    assert_same_items("demokit", &demokit.items, &v6_head());
    let error = read_libtw2(&data).unwrap_err();
    assert_binrw_error(&error, &["assertion failed: `_uuid == SHA_256_EXTENSION`"]);
}

/// DDNet has no upper bound on the version: version 7 loads and is read like version 6.
/// libtw2 knows versions 3 to 6 only.
#[test]
fn libtw2_rejects_version_7() {
    let mut data = v6_with_tail(&[]);
    data[7] = 7;
    let demokit = read_demokit(&data).unwrap();
    assert!(demokit.stop.is_none(), "{:?}", demokit.stop);
    assert_eq!(demokit.header.version, 7);
    assert_same_items("demokit", &demokit.items, &v6_head());
    let error = read_libtw2(&data).unwrap_err();
    assert_binrw_error(&error, &["Unexpected value for enum: 7", "field 'version'"]);
}

/// DDNet's header check wants the type field NUL-terminated (and UTF-8), nothing more;
/// libtw2 accepts only "client" and "server".
#[test]
fn libtw2_rejects_other_type_strings() {
    let config = RecorderConfig {
        kind: "player".into(),
        ..RecorderConfig::ddnet("testmap", "2026-01-01_00-00-00")
    };
    let recorder = Recorder::start(Cursor::new(Vec::new()), &config, MAP).unwrap();
    let data = recorder.finish().unwrap().into_inner();
    let demokit = read_demokit(&data).unwrap();
    assert_eq!(demokit.header.kind, b"player");
    let error = read_libtw2(&data).unwrap_err();
    assert_binrw_error(&error, &["no variants matched at 0x90", "field 'kind'"]);
}

/// DDNet clamps the timeline-marker count to 0..=64; libtw2 fails on the header when it is
/// outside that range.
#[test]
fn libtw2_rejects_marker_count_out_of_range() {
    let mut data = v6_with_tail(&[]);
    let count_offset = demokit::twdemo::container::format::TIMELINE_MARKERS_OFFSET as usize;
    data[count_offset..count_offset + 4].copy_from_slice(&65i32.to_be_bytes());
    let demokit = read_demokit(&data).unwrap();
    assert_eq!(demokit.header.timeline_markers.len(), 64);
    assert_same_items("demokit", &demokit.items, &v6_head());
    let error = read_libtw2(&data).unwrap_err();
    assert_binrw_error(&error, &["assertion failed: `amount <= 64`"]);
}

/// Asserts that libtw2 failed in its binrw header parser with every one of `details` in the
/// error's text. binrw 0.11's error types are not reachable from here (demokit uses another
/// binrw), so the specific reason is checked by its description, colours stripped.
fn assert_binrw_error(error: &libtw2_demo::ReadError, details: &[&str]) {
    let libtw2_demo::ReadError::Binrw(e) = error else {
        panic!("expected a binrw header error, got {error:?}");
    };
    let text = strip_ansi(&e.to_string());
    for detail in details {
        assert!(text.contains(detail), "expected {detail:?} in {text}");
    }
}

/// Removes ANSI escape sequences (`ESC [ ... letter`), which binrw puts in its messages.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Malformed input both refuse, or read alike, for the same reason under different names.

/// A one-byte tick marker needs a tick to add to: DDNet returns `CHUNKHEADER_ERROR`, demokit
/// `DeltaBeforeFirstTick`, libtw2 `StartingDeltaSnapshot`.
#[test]
fn both_reject_delta_tick_before_any_absolute_one() {
    let mut data = record(6, LengthRule::Tight, |_| {});
    data.push(TICK_MARKER_FLAG | TICK_COMPRESSED_FLAG | 1);
    let (demokit, libtw2) = read_both("delta first", &data);
    assert!(
        matches!(
            demokit.stop,
            Some(DemokitStop::Read(ReadErrorKind::DeltaBeforeFirstTick))
        ),
        "{:?}",
        demokit.stop
    );
    assert!(
        matches!(
            libtw2.stop,
            Some(Libtw2Stop::Read(
                libtw2_demo::ReadError::StartingDeltaSnapshot
            ))
        ),
        "{:?}",
        libtw2.stop
    );
    assert!(demokit.items.is_empty() && libtw2.items.is_empty());
}

/// A file that ends inside a chunk payload: DDNet plays up to it and stops with "Error
/// reading chunk data"; both readers deliver the chunks before it, then fail.
#[test]
fn both_stop_at_a_truncated_payload() {
    let mut tail = int_chunk(ChunkKind::Message, CHAT);
    tail.pop();
    let (demokit, libtw2) = read_both("truncated", &v6_with_tail(&tail));
    assert!(
        matches!(
            &demokit.stop,
            Some(DemokitStop::Read(ReadErrorKind::UnexpectedEnd { .. }))
        ),
        "{:?}",
        demokit.stop
    );
    match &libtw2.stop {
        Some(Libtw2Stop::Read(libtw2_demo::ReadError::Io(e))) => {
            assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof)
        }
        other => panic!("{other:?}"),
    }
    assert_same_items("truncated", &demokit.items, &libtw2.items);
    assert_same_items("demokit", &demokit.items, &v6_head());
}

/// An int in more bytes than needed (which DDNet never writes) has the same value in both;
/// libtw2 warns about it, demokit counts it in `non_canonical_ints`.
#[test]
fn overlong_ints_read_alike() {
    // 0 in two bytes, then 1.
    let packed = [0x80, 0x00, 0x01];
    let mut stored = Vec::new();
    huffman::compress(&packed, LengthRule::Tight, &mut stored);
    let data = v6_with_tail(&stored_chunk(ChunkKind::SnapshotDelta, &stored));
    let (demokit, libtw2) = read_both("overlong", &data);
    assert_read_alike("overlong", &demokit, &libtw2);
    let Some(Item::Delta(last)) = demokit.items.last() else {
        panic!("expected a delta last");
    };
    assert_eq!(last.ints, [0, 1]);
    assert_eq!(
        PayloadDecoder::new()
            .decode(&stored)
            .unwrap()
            .non_canonical_ints,
        1
    );
    assert!(libtw2.warnings.contains(&Warning::Message(
        libtw2_packer::Warning::OverlongIntEncoding
    )));
}
