//! proptest strategies for valid demos, public under the `proptest` feature so that
//! projects using demokit can property-test their own demo code.
//!
//! Every value these strategies produce writes without error and reads back to itself:
//! the header strings are NUL-terminated (with arbitrary bytes after the NUL), tick
//! markers use forms the version can express, and payload length rules are normalized the
//! way the reader reports them.

// Test support (feature `proptest`): strategies build valid inputs for property tests and
// fail loudly where a generated value breaks their own invariants.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use super::demo::{DataRecord, Demo, Payload, Record};
use super::format::*;
use super::payload::{MAX_PAYLOAD_BYTES, PayloadEncoder};
use super::reader::{MAX_TICK, Prelude, TickMarker};
use crate::codec::huffman::{self, LengthRule};
use crate::codec::string::FixedStr;
use proptest::collection::vec;
use proptest::prelude::*;

/// A terminated fixed string field: random bytes with a NUL somewhere.
pub fn fixed_str<const N: usize>() -> impl Strategy<Value = FixedStr<N>> {
    (vec(any::<u8>(), N), 0..N).prop_map(|(bytes, nul)| {
        let mut raw = [0u8; N];
        raw.copy_from_slice(&bytes);
        raw[nul] = 0;
        FixedStr::from_raw(raw)
    })
}

/// A version the writer supports: 3 to 6.
pub fn version() -> impl Strategy<Value = u8> {
    3u8..=6
}

/// A prelude for `version` announcing a map of `map_size` bytes.
pub fn prelude(version: u8, map_size: u32) -> impl Strategy<Value = Prelude> {
    let markers =
        (any::<i32>(), vec(any::<i32>(), MAX_TIMELINE_MARKERS)).prop_map(|(count, ticks)| {
            TimelineMarkers {
                count,
                ticks: ticks.try_into().expect("64 ticks"),
            }
        });
    let sha = proptest::option::of(any::<[u8; 32]>()).prop_map(|digest| {
        digest.map(|digest| MapSha256 {
            uuid: SHA256_EXTENSION_UUID,
            digest,
        })
    });
    (
        fixed_str::<64>(),
        fixed_str::<64>(),
        any::<u32>(),
        fixed_str::<8>(),
        any::<i32>(),
        fixed_str::<20>(),
        markers,
        sha,
    )
        .prop_map(
            move |(net_version, map_name, map_crc, kind, length, timestamp, markers, sha)| {
                Prelude {
                    version_header: VersionHeader {
                        magic: MAGIC,
                        version,
                    },
                    header: Header {
                        net_version,
                        map_name,
                        map_size,
                        map_crc,
                        kind,
                        length,
                        timestamp,
                    },
                    timeline_markers: (version >= FIRST_VERSION_WITH_MARKERS).then_some(markers),
                    map_sha256: if version >= FIRST_VERSION_WITH_SHA256 {
                        sha
                    } else {
                        None
                    },
                }
            },
        )
}

/// Ints as they appear in payloads: mostly small, sometimes anything.
pub fn payload_ints(max_len: usize) -> impl Strategy<Value = Vec<i32>> {
    vec(prop_oneof![4 => -70i32..70, 1 => any::<i32>()], 0..max_len)
}

/// One step of a chunk sequence before tick forms are resolved.
#[derive(Debug, Clone)]
enum Step {
    Tick {
        advance: i32,
        absolute: bool,
        keyframe: bool,
    },
    Data {
        kind: ChunkKind,
        ints: Vec<i32>,
        rule: LengthRule,
        widen: u8,
    },
    Unknown(Vec<u8>),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0i32..80, any::<bool>(), any::<bool>()).prop_map(|(advance, absolute, keyframe)| {
            Step::Tick { advance, absolute, keyframe }
        }),
        4 => (
            prop_oneof![
                Just(ChunkKind::Snapshot),
                Just(ChunkKind::Message),
                Just(ChunkKind::SnapshotDelta)
            ],
            payload_ints(120),
            prop_oneof![Just(LengthRule::Tight), Just(LengthRule::TrailingByte)],
            0u8..3,
        )
            .prop_map(|(kind, ints, rule, widen)| Step::Data { kind, ints, rule, widen }),
        1 => vec(any::<u8>(), 0..40).prop_map(Step::Unknown),
    ]
}

fn size_form(len: usize, widen: u8) -> SizeForm {
    // Widening picks a longer size form than needed, which real writers never do but the
    // format allows; the round trip must keep it.
    match (SizeForm::shortest(len), widen) {
        (SizeForm::Inline, 1) => SizeForm::Byte,
        (SizeForm::Inline | SizeForm::Byte, 2) => SizeForm::Word,
        (form, _) => form,
    }
}

/// A chunk sequence valid for `version`: tick forms the version can express, payloads that
/// fit, Huffman rules as the reader will report them.
pub fn records(version: u8, max_len: usize) -> impl Strategy<Value = Vec<Record>> {
    let tick_compression = version >= FIRST_VERSION_WITH_TICK_COMPRESSION;
    (0i32..10_000, vec(step(), 0..=max_len)).prop_map(move |(start, steps)| {
        let mut encoder = PayloadEncoder::new();
        let mut last: Option<i32> = None;
        let mut out = Vec::with_capacity(steps.len());
        for step in steps {
            match step {
                Step::Tick {
                    advance,
                    absolute,
                    keyframe,
                } => {
                    let tick = last.map_or(start, |t| t + advance).min(MAX_TICK as i32 - 1);
                    let delta_ok = last.is_some_and(|l| {
                        let d = tick - l;
                        if tick_compression {
                            (0..=TICK_DELTA_MASK as i32).contains(&d)
                        } else {
                            (1..=LEGACY_TICK_DELTA_MASK as i32).contains(&d)
                        }
                    });
                    let form = if absolute || !delta_ok {
                        TickForm::Absolute
                    } else {
                        TickForm::Delta
                    };
                    out.push(Record::Tick(TickMarker {
                        tick,
                        keyframe,
                        form,
                    }));
                    last = Some(tick);
                }
                Step::Data {
                    kind,
                    ints,
                    rule,
                    widen,
                } => {
                    let stored_len = encoder.encode(&ints, rule).len();
                    if stored_len > MAX_PAYLOAD_BYTES {
                        continue;
                    }
                    let mut packed = Vec::new();
                    crate::codec::varint::pack_ints(&ints, &mut packed);
                    let bits = huffman::compressed_bits(&packed);
                    // When the bits end mid-byte both rules store the same bytes and the
                    // reader reports Tight.
                    let rule = if !bits.is_multiple_of(8) {
                        LengthRule::Tight
                    } else {
                        rule
                    };
                    out.push(Record::Data(DataRecord {
                        kind,
                        size_form: size_form(stored_len, widen),
                        payload: Payload::Ints { ints, rule },
                    }));
                }
                Step::Unknown(bytes) => out.push(Record::Data(DataRecord {
                    kind: ChunkKind::Unknown,
                    size_form: SizeForm::shortest(bytes.len()),
                    payload: Payload::Stored(bytes),
                })),
            }
        }
        out
    })
}

/// A whole valid demo of any version 3 to 6 with up to `max_records` chunks and a map of
/// up to `max_map` bytes.
pub fn demo(max_records: usize, max_map: usize) -> impl Strategy<Value = Demo> {
    (version(), vec(any::<u8>(), 0..=max_map)).prop_flat_map(move |(version, map)| {
        let map_size = map.len() as u32;
        (
            prelude(version, map_size),
            Just(map),
            records(version, max_records),
        )
            .prop_filter_map(
                "a v6 map without SHA block must not start like the SHA UUID",
                |(prelude, map, records)| {
                    let n = map.len().min(SHA256_EXTENSION_UUID.len());
                    if prelude.version() >= FIRST_VERSION_WITH_SHA256
                        && prelude.map_sha256.is_none()
                        && n > 0
                        && map[..n] == SHA256_EXTENSION_UUID[..n]
                    {
                        return None;
                    }
                    Some(Demo {
                        prelude,
                        map,
                        records,
                    })
                },
            )
    })
}

/// A chunk header as a caller might fill it in by hand: any lead byte, and optional fields
/// that agree with it about half of the time.
pub fn raw_chunk_header() -> impl Strategy<Value = RawChunkHeader> {
    (
        any::<u8>(),
        any::<bool>(),
        proptest::option::of(any::<i32>()),
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<u16>()),
        any::<bool>(),
    )
        .prop_map(|(lead, agree, tick, byte, word, tick_compression)| {
            if !agree {
                return RawChunkHeader {
                    lead,
                    absolute_tick: tick,
                    size_byte: byte,
                    size_word: word,
                };
            }
            let marker = lead & TICK_MARKER_FLAG != 0;
            let size = lead & SIZE_MASK;
            RawChunkHeader {
                lead,
                absolute_tick: (marker && !tick_is_inline(lead, tick_compression))
                    .then(|| tick.unwrap_or(0)),
                size_byte: (!marker && size == SIZE_ESCAPE_BYTE).then(|| byte.unwrap_or(0)),
                size_word: (!marker && size == SIZE_ESCAPE_WORD).then(|| word.unwrap_or(0)),
            }
        })
}

/// Any record a caller could hand the writer, valid or not: tick markers at any tick in
/// either form, data chunks of any kind and size form with ints or arbitrary stored bytes,
/// and raw chunks with hand-made headers, ticks and payloads.
pub fn any_record() -> impl Strategy<Value = Record> {
    let kind = (0u8..4).prop_map(ChunkKind::from_type_id);
    let form = prop_oneof![
        Just(SizeForm::Inline),
        Just(SizeForm::Byte),
        Just(SizeForm::Word)
    ];
    let rule = prop_oneof![Just(LengthRule::Tight), Just(LengthRule::TrailingByte)];
    prop_oneof![
        (
            prop_oneof![3 => 0i32..100_000, 1 => any::<i32>()],
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(tick, keyframe, absolute)| Record::Tick(TickMarker {
                tick,
                keyframe,
                form: if absolute {
                    TickForm::Absolute
                } else {
                    TickForm::Delta
                },
            })),
        (kind.clone(), form.clone(), payload_ints(40), rule).prop_map(
            |(kind, size_form, ints, rule)| Record::Data(DataRecord {
                kind,
                size_form,
                payload: Payload::Ints { ints, rule },
            })
        ),
        (kind, form, vec(any::<u8>(), 0..300)).prop_map(|(kind, size_form, bytes)| {
            Record::Data(DataRecord {
                kind,
                size_form,
                payload: Payload::Stored(bytes),
            })
        }),
        (
            raw_chunk_header(),
            proptest::option::of(prop_oneof![0i32..100_000, any::<i32>()]),
            vec(any::<u8>(), 0..40)
        )
            .prop_map(|(header, tick, payload)| Record::Raw {
                header,
                tick,
                payload,
            }),
    ]
}

/// A demo as a caller might put it together, valid or not: a valid demo ([`demo`]) with a
/// few [`any_record`]s spliced in, and sometimes a prelude that disagrees with itself or
/// its map (another version, a block added or dropped, another map size, a map starting
/// with the SHA-256 block's UUID). For testing that the writer refuses what would not read
/// back as given.
pub fn any_demo(max_records: usize, max_map: usize) -> impl Strategy<Value = Demo> {
    (
        demo(max_records, max_map),
        vec((any::<prop::sample::Index>(), any_record()), 0..3),
        vec((any::<prop::sample::Index>(), 0u8..6, any::<u8>()), 0..3),
        prop_oneof![6 => Just(None), 1 => (0u8..8).prop_map(Some)],
        prop_oneof![6 => Just(0u8), 1 => 1u8..5],
    )
        .prop_map(|(mut demo, wild, raws, version, twist)| {
            for (at, how, bits) in raws {
                if !demo.records.is_empty() {
                    let at = at.index(demo.records.len());
                    demo.records[at] = as_raw(&demo, at, how, bits);
                }
            }
            for (at, record) in wild {
                let at = at.index(demo.records.len() + 1);
                demo.records.insert(at, record);
            }
            if let Some(version) = version {
                demo.prelude.version_header.version = version;
            }
            match twist {
                1 => {
                    demo.prelude.timeline_markers = match demo.prelude.timeline_markers {
                        Some(_) => None,
                        None => Some(TimelineMarkers {
                            count: 0,
                            ticks: [0; MAX_TIMELINE_MARKERS],
                        }),
                    }
                }
                2 => {
                    demo.prelude.map_sha256 = match demo.prelude.map_sha256 {
                        Some(_) => None,
                        None => Some(MapSha256 {
                            uuid: SHA256_EXTENSION_UUID,
                            digest: [0; 32],
                        }),
                    }
                }
                3 => demo.prelude.header.map_size ^= 1,
                4 => {
                    demo.prelude.map_sha256 = None;
                    let n = demo.map.len().min(SHA256_EXTENSION_UUID.len());
                    demo.map[..n].copy_from_slice(&SHA256_EXTENSION_UUID[..n]);
                }
                _ => {}
            }
            demo
        })
}

/// Record `at` of `demo` as the raw chunk a reader sees (header, tick, payload), then
/// changed the way a hand-made header goes wrong, by `how`: 0 keeps it, 1 drops the field
/// the lead byte announces, 2 adds one it does not, 3 flips lead bits by `bits`, 4 and 5
/// move the tick by one.
fn as_raw(demo: &Demo, at: usize, how: u8, bits: u8) -> Record {
    let tick_compression = demo.prelude.tick_compression();
    let last_tick = demo.records[..at].iter().rev().find_map(|r| match r {
        Record::Tick(m) => Some(m.tick),
        Record::Raw { tick, .. } => *tick,
        Record::Data(_) => None,
    });
    let (mut header, mut tick, payload) = match &demo.records[at] {
        Record::Tick(marker) => {
            let Some(header) =
                super::writer::tick_marker_header(marker, last_tick, tick_compression)
            else {
                return demo.records[at].clone();
            };
            (header, Some(marker.tick), Vec::new())
        }
        Record::Data(data) => {
            let payload = match &data.payload {
                Payload::Ints { ints, rule } => PayloadEncoder::new().encode(ints, *rule).to_vec(),
                Payload::Stored(bytes) => bytes.clone(),
            };
            let Some(header) = RawChunkHeader::data(data.kind, payload.len(), data.size_form)
            else {
                return demo.records[at].clone();
            };
            (header, None, payload)
        }
        raw @ Record::Raw { .. } => return raw.clone(),
    };
    match how {
        1 => {
            header.absolute_tick = None;
            header.size_byte = None;
            header.size_word = None;
        }
        2 if header.is_tick_marker() => {
            header.absolute_tick = Some(header.absolute_tick.unwrap_or(0) ^ 1)
        }
        2 => header.size_byte = Some(header.size_byte.unwrap_or(bits)),
        3 => header.lead ^= bits | 1,
        4 | 5 => tick = tick.map(|t| if how == 4 { t + 1 } else { t - 1 }),
        _ => {}
    }
    Record::Raw {
        header,
        tick,
        payload,
    }
}
