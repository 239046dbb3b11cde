//! Version conversion, repair of cut-off recordings and map extraction, on the real
//! recordings in the corpus's real-fixtures/twdemo, read in place.
//!
//! * Converting changes only the container: every demo converted to every version 3..=6
//!   reads back to the same chunk stream (ticks, keyframe flags, kinds, stored payloads and
//!   size forms), validates wherever the original does, converts back to itself when no
//!   information was lost on the way, and converts to its own version byte for byte.
//! * Repairing a demo cut at fixed-seed random offsets keeps exactly its complete chunks,
//!   patches the length as DDNet's recorder would, and validates unless too little is left
//!   to play (then with the specific reason DDNet gives).
//! * The embedded map matches the header's CRC-32 and SHA-256, and a damaged one is told
//!   apart by the check it fails.

use crate::common;

use demokit::twdemo::container::format::{LENGTH_OFFSET, TimelineMarkers, VersionHeader};
use demokit::twdemo::edit::convert::{BlockChange, convert};
use demokit::twdemo::edit::repair::{ExtractError, RepairError, extract_map, repair};
use demokit::twdemo::edit::validate::validate;
use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, RawChunkHeader, SizeForm, TickForm};
use demokit::validation::ProblemKind;
use sha2::Digest;
use std::path::PathBuf;

/// The real demos, as (path, bytes).
fn real_demos() -> Vec<(PathBuf, Vec<u8>)> {
    let Some(shared) = common::shared_dir() else {
        return Vec::new();
    };
    let demos: Vec<_> = common::twdemo_facts(&shared)
        .into_iter()
        .map(|(path, _)| {
            let data = std::fs::read(&path).unwrap();
            (path, data)
        })
        .collect();
    common::check_total("real demos", demos.len(), 10);
    demos
}

/// One chunk as the player sees it: a tick marker's tick and keyframe flag, or a data
/// chunk's kind, size form and stored payload.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Tick(i32, bool),
    Data(ChunkKind, SizeForm, Vec<u8>),
}

/// The chunk stream of a demo that reads to its end.
fn stream(data: &[u8]) -> Vec<Item> {
    DemoSlice::parse(data)
        .unwrap()
        .chunks()
        .map(|c| {
            let c = c.unwrap();
            match c.chunk {
                Chunk::Tick(m) => Item::Tick(m.tick, m.keyframe),
                Chunk::Data(d) => Item::Data(d.kind, c.header.size_form(), d.payload.to_vec()),
            }
        })
        .collect()
}

/// A tick marker as stored: its header, tick, keyframe flag and form, and the tick of the
/// marker before it.
struct StoredTick {
    header: RawChunkHeader,
    tick: i32,
    last: Option<i32>,
    keyframe: bool,
    form: TickForm,
}

/// The tick markers of `data` as stored.
fn tick_headers(data: &[u8]) -> Vec<StoredTick> {
    let mut last = None;
    let mut out = Vec::new();
    for c in DemoSlice::parse(data).unwrap().chunks() {
        let c = c.unwrap();
        if let Chunk::Tick(m) = c.chunk {
            out.push(StoredTick {
                header: c.header,
                tick: m.tick,
                last,
                keyframe: m.keyframe,
                form: m.form,
            });
            last = Some(m.tick);
        }
    }
    out
}

#[test]
fn v6_to_v3_to_v6_is_identity() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = shared.join("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo");
    let data = std::fs::read(path).unwrap();
    let slice = DemoSlice::parse(&data).unwrap();
    let p = slice.prelude();
    // What the round trip drops and recomputes is exactly what this file has: no
    // timeline markers (and all 64 slots zero), and the SHA-256 of the embedded map.
    assert_eq!(p.timeline_markers, Some(TimelineMarkers::EMPTY));
    let sha: [u8; 32] = sha2::Sha256::digest(slice.map()).into();
    assert_eq!(p.map_sha256.unwrap().digest, sha);

    let (v3, down) = convert(&data, 3).unwrap();
    assert_eq!(v3[7], 3);
    assert_eq!(down.markers, BlockChange::Dropped);
    assert!(down.markers_dropped.is_empty());
    assert_eq!(down.sha256, BlockChange::Dropped);
    // Every one-byte marker loses its 0x20 flag; none needs another form (no gap of 0 or
    // of 32..=63 ticks between non-keyframe markers).
    assert!(down.tick_markers_reencoded > 900);
    assert!(validate(&v3).accepted());

    let (back, up) = convert(&v3, 6).unwrap();
    assert_eq!(up.markers, BlockChange::Added);
    assert_eq!(up.sha256, BlockChange::Added);
    assert_eq!(up.tick_markers_reencoded, down.tick_markers_reencoded);
    assert!(back == data, "v6 -> v3 -> v6 differs from the input");
}

#[test]
fn every_demo_to_every_version_keeps_the_chunk_stream() {
    for (path, data) in real_demos() {
        let name = path.display();
        let original = stream(&data);
        let source = *DemoSlice::parse(&data).unwrap().prelude();
        let accepted = validate(&data).accepted();
        assert!(accepted, "{name}: {:?}", validate(&data).first_fatal());
        for version in 3..=6u8 {
            let (out, report) = convert(&data, version).unwrap();
            let slice = DemoSlice::parse(&out).unwrap();
            let p = slice.prelude();
            assert_eq!(p.version(), version, "{name} -> v{version}");
            assert_eq!(p.header, source.header, "{name} -> v{version}");
            assert_eq!(slice.map(), DemoSlice::parse(&data).unwrap().map());
            assert_eq!(p.timeline_markers.is_some(), version >= 4);
            assert_eq!(p.map_sha256.is_some(), version >= 6, "{name} -> v{version}");
            if version >= 4 {
                assert_eq!(
                    p.timeline_markers,
                    Some(source.timeline_markers.unwrap_or(TimelineMarkers::EMPTY))
                );
            }
            assert_eq!(stream(&out), original, "{name} -> v{version}");
            assert_eq!(report.output_len, out.len());
            assert_eq!(
                report.data_chunks + report.tick_markers,
                original.len(),
                "{name}"
            );
            // Nothing about validity depends on the version for these files: converting
            // down only drops a check (the SHA-256), converting up adds the digest of the
            // embedded map, which matches it by construction.
            let v = validate(&out);
            assert_eq!(v.accepted(), accepted, "{name} -> v{version}: {v:?}");
            assert_eq!(v.problems, validate(&data).problems, "{name} -> v{version}");

            // Tick markers are in the forms the target version's recorder writes.
            for t in tick_headers(&out) {
                let limit = if version >= 5 { 0..=31 } else { 1..=63 };
                let fits = t.last.is_some_and(|l| limit.contains(&(t.tick - l)));
                let expected = if t.keyframe || !fits {
                    TickForm::Absolute
                } else {
                    TickForm::Delta
                };
                assert_eq!(t.form, expected, "{name} -> v{version} at tick {}", t.tick);
                if version >= 5 {
                    assert_eq!(t.header.lead & 0x20 != 0, t.form == TickForm::Delta);
                }
            }

            // Back to the source's version: the same bytes, unless the way lost something
            // (markers in use or a non-empty marker block when going through version 3, a
            // SHA-256 that is not the map's when going below version 6).
            let lost_markers = version < 4
                && source
                    .timeline_markers
                    .is_some_and(|m| m != TimelineMarkers::EMPTY);
            let lost_sha = version < 6
                && source.map_sha256.is_some_and(|s| {
                    s.digest != <[u8; 32]>::from(sha2::Sha256::digest(slice.map()))
                });
            if !lost_markers && !lost_sha {
                let (back, _) = convert(&out, source.version()).unwrap();
                assert!(back == data, "{name} -> v{version} -> back differs");
            }
        }
    }
}

#[test]
fn convert_to_own_version_is_identity() {
    for (path, data) in real_demos() {
        let version = data[7];
        let (out, report) = convert(&data, version).unwrap();
        assert!(out == data, "{}: differs", path.display());
        assert_eq!(report.tick_markers_reencoded, 0, "{}", path.display());
        assert!(matches!(
            report.markers,
            BlockChange::Kept | BlockChange::Absent
        ));
        assert!(matches!(
            report.sha256,
            BlockChange::Kept | BlockChange::Absent
        ));
    }
}

#[test]
fn convert_refuses_what_it_cannot_do() {
    let demos = real_demos();
    let Some((_, data)) = demos.first() else {
        return;
    };
    for version in [0, 2, 7, 255] {
        assert!(convert(data, version).is_err(), "v{version}");
    }
    // A cut-off recording is refused (repair it first), as is garbage.
    assert!(convert(&data[..data.len() - 1], 4).is_err());
    assert!(convert(b"TWDEMO", 4).is_err());
    assert!(convert(b"", 4).is_err());
}

/// splitmix64, for offsets that are random but the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn repair_of_cut_demos() {
    let mut rng = Rng(0x7477_6465_6d6f);
    for (path, data) in real_demos() {
        let name = path.display();
        // Intact: byte for byte.
        let (out, report) = common::into_vec(|out| repair(&data, out)).unwrap();
        assert!(out == data, "{name}: repair of the intact demo differs");
        assert!(!report.changed() && report.break_off.is_none(), "{name}");

        let slice = DemoSlice::parse(&data).unwrap();
        let start = slice.chunks_offset();
        // (end offset, is tick marker, keyframe, tick) of every chunk.
        let chunks: Vec<(usize, Option<(i32, bool)>)> = {
            let mut it = slice.chunks();
            let mut v = Vec::new();
            while let Some(c) = it.next() {
                let tick = match c.unwrap().chunk {
                    Chunk::Tick(m) => Some((m.tick, m.keyframe)),
                    Chunk::Data(_) => None,
                };
                v.push((it.position(), tick));
            }
            v
        };
        // Cuts at random offsets, plus a few early ones where too little is left to play:
        // inside the first chunks, and right after each of the first five chunks.
        let mut cuts: Vec<usize> = (0..30)
            .map(|_| start + 1 + rng.below(data.len() - start - 1))
            .collect();
        cuts.extend([start, start + 1, start + 2]);
        cuts.extend(chunks.iter().take(5).map(|c| c.0));
        for cut in cuts {
            let input = &data[..cut];
            let kept: Vec<_> = chunks.iter().take_while(|c| c.0 <= cut).collect();
            let end = kept.last().map_or(start, |c| c.0);
            let ticks: Vec<(i32, bool)> = kept.iter().filter_map(|c| c.1).collect();
            let ctx = format!("{name} cut at {cut}");
            // Too little left for DDNet to play: refused, nothing to write.
            if !ticks.iter().any(|t| t.1) || ticks.len() < 2 {
                let keyframes = ticks.iter().filter(|t| t.1).count();
                assert!(
                    matches!(
                        common::into_vec(|out| repair(input, out)),
                        Err(RepairError::Unplayable { tick_markers, keyframes: k })
                            if tick_markers == ticks.len() && k == keyframes
                    ),
                    "{ctx}"
                );
                let fatal = validate(input).first_fatal().map(|p| p.kind);
                assert!(
                    matches!(
                        fatal,
                        Some(
                            ProblemKind::NoKeyframe
                                | ProblemKind::EmptyDemo
                                | ProblemKind::ChunkData
                                | ProblemKind::ChunkHeader
                        )
                    ),
                    "{ctx}: {fatal:?}"
                );
                continue;
            }
            let (out, report) = common::into_vec(|out| repair(input, out)).unwrap();

            // Everything up to the last complete chunk, and nothing else.
            assert_eq!(out.len(), end, "{ctx}");
            assert_eq!(out[start..], data[start..end], "{ctx}");
            assert_eq!(report.chunks_kept, kept.len(), "{ctx}");
            assert_eq!(report.bytes_dropped, cut - end, "{ctx}");
            assert_eq!(report.break_off.is_some(), cut != end, "{ctx}");
            if let Some(c) = &report.break_off {
                assert!(c.truncated, "{ctx}");
                assert_eq!(c.offset, end as u64, "{ctx}");
            }
            // The header as DDNet's Stop would have patched it: only the length differs
            // (these demos have no timeline markers).
            let length = match (ticks.first(), ticks.last()) {
                (Some(first), Some(last)) => (last.0 - first.0) / 50,
                _ => 0,
            };
            assert_eq!(report.new_length, length, "{ctx}");
            let l = LENGTH_OFFSET as usize;
            assert_eq!(out[..l], data[..l], "{ctx}");
            assert_eq!(out[l..l + 4], length.to_be_bytes(), "{ctx}");
            assert_eq!(out[l + 4..start], data[l + 4..start], "{ctx}");
            // Idempotent.
            let (again, r2) = common::into_vec(|again| repair(&out, again)).unwrap();
            assert!(again == out && !r2.changed(), "{ctx}");

            let v = validate(&out);
            assert!(v.accepted(), "{ctx}: {:?}", v.first_fatal());
        }
    }
}

#[test]
fn repair_refuses_a_cut_header_or_map() {
    for (path, data) in real_demos() {
        let map_offset = DemoSlice::parse(&data).unwrap().map_offset();
        for cut in [0, 7, 100, 176, map_offset - 1, map_offset + 1] {
            let r = common::into_vec(|out| repair(&data[..cut], out));
            assert!(
                matches!(r, Err(RepairError::Prelude(_))),
                "{} cut at {cut}",
                path.display()
            );
            assert!(matches!(
                extract_map(&data[..cut]),
                Err(ExtractError::Read(_))
            ));
        }
    }
}

#[test]
fn extract_map_matches_the_header() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, facts) in common::twdemo_facts(&shared) {
        let name = path.display();
        let data = std::fs::read(&path).unwrap();
        let map = extract_map(&data).unwrap();
        let offset = facts["map_offset"].as_u64().unwrap() as usize;
        let size = facts["map_size"].as_u64().unwrap() as usize;
        assert_eq!(map.offset, offset, "{name}");
        assert_eq!(map.bytes[..], data[offset..offset + size], "{name}");
        assert_eq!(map.name, facts["map_name"].as_str().unwrap(), "{name}");
        assert!(map.crc32.matches(), "{name}");
        assert_eq!(
            format!("{:08x}", map.crc32.actual),
            facts["map_crc"].as_str().unwrap()
        );
        assert_eq!(map.sha256.is_some(), data[7] >= 6, "{name}");
        if let Some(sha) = map.sha256 {
            assert!(sha.matches(), "{name}");
            assert_eq!(
                hex::encode(sha.actual),
                facts["map_sha256"].as_str().unwrap()
            );
        }
        assert!(map.verify().is_ok(), "{name}");
    }
}

#[test]
fn damaged_map_names_the_failed_check() {
    for (path, data) in real_demos() {
        let name = path.display();
        let map_offset = DemoSlice::parse(&data).unwrap().map_offset();
        let has_sha = data[7] >= 6;

        // One map byte flipped: the CRC-32 fails, and the SHA-256 too where there is one.
        let mut bad = data.clone();
        bad[map_offset + 1000] ^= 0x10;
        let e = extract_map(&bad).unwrap().verify().unwrap_err();
        assert!(e.crc32.is_some_and(|c| c.expected != c.actual), "{name}");
        assert_eq!(e.sha256.is_some(), has_sha, "{name}");
        assert!(e.to_string().contains("CRC-32"), "{name}");
        // DDNet's client: with the SHA-256 block the map no longer matches and is refused;
        // without it the map is loaded by its own SHA-256, the CRC-32 mismatch is only a
        // warning, and the demo plays if the damaged map still loads.
        let v = validate(&bad);
        let crc_warned = v.problems.iter().any(|p| {
            !p.fatal && p.kind == ProblemKind::MapChecksum && p.message.contains("CRC-32")
        });
        if has_sha {
            // Refused: the map either no longer loads or no longer matches the SHA-256.
            let kind = v.first_fatal().map(|p| p.kind);
            assert!(
                matches!(kind, Some(ProblemKind::MapChecksum | ProblemKind::MapLoad)),
                "{name}: {kind:?}"
            );
        } else {
            let loads =
                demokit::datafile::check_load(DemoSlice::parse(&bad).unwrap().map()).is_ok();
            assert_eq!(v.accepted(), loads, "{name}: {:?}", v.problems);
            assert_eq!(crc_warned, loads, "{name}");
        }

        // Only the header's SHA-256 changed: the SHA-256 check alone fails.
        if has_sha {
            let mut bad = data.clone();
            bad[map_offset - 1] ^= 1;
            let e = extract_map(&bad).unwrap().verify().unwrap_err();
            assert!(e.crc32.is_none(), "{name}");
            assert!(e.sha256.is_some(), "{name}");
            assert!(
                e.to_string().starts_with("embedded map SHA-256 is "),
                "{name}"
            );
        }
    }
}

#[test]
fn extract_map_without_a_map() {
    // A version-3 header with map_size 0 and no chunks.
    let mut data = Vec::new();
    let vh = VersionHeader {
        magic: *b"TWDEMO\0",
        version: 3,
    };
    data.extend_from_slice(&vh.magic);
    data.push(vh.version);
    data.resize(176, 0);
    assert!(matches!(extract_map(&data), Err(ExtractError::NoMap)));
    // Converted up, it gets a marker block but no SHA-256 block: there is nothing to hash.
    let (v6, report) = convert(&data, 6).unwrap();
    assert_eq!(report.sha256, BlockChange::Absent);
    assert_eq!(v6.len(), 176 + 260);
    assert_eq!(DemoSlice::parse(&v6).unwrap().prelude().map_sha256, None);
    // Nothing to play: the repair refuses rather than report success.
    assert!(matches!(
        common::into_vec(|out| repair(&data, out)),
        Err(RepairError::Unplayable {
            tick_markers: 0,
            keyframes: 0
        })
    ));
}

#[test]
fn damaged_inputs_give_errors_not_panics() {
    let mut rng = Rng(0x6261_6420_696e);
    for (path, data) in real_demos() {
        // The small demos are enough, and keep this quick.
        if data.len() > 300_000 {
            continue;
        }
        let map_offset = DemoSlice::parse(&data).unwrap().map_offset();
        for round in 0..60 {
            let mut bad = data.clone();
            // Damage the prelude and the chunks alike, then cut sometimes.
            for _ in 0..1 + rng.below(4) {
                let at = if round % 2 == 0 {
                    rng.below(map_offset + 8)
                } else {
                    rng.below(bad.len())
                };
                bad[at] = rng.next() as u8;
            }
            if round % 3 == 0 {
                bad.truncate(rng.below(bad.len() + 1));
            }
            let ctx = format!("{} round {round}", path.display());
            let readable = DemoSlice::parse(&bad)
                .map(|s| s.chunks().all(|c| c.is_ok()))
                .unwrap_or(false);
            for version in 3..=6 {
                match convert(&bad, version) {
                    Ok((out, _)) => assert_eq!(stream(&out), stream(&bad), "{ctx}"),
                    Err(_) => assert!(!readable || version == 6, "{ctx}"),
                }
            }
            if let Ok((out, report)) = common::into_vec(|out| repair(&bad, out)) {
                assert_eq!(out.len(), report.output_len, "{ctx}");
                let slice = DemoSlice::parse(&out).unwrap();
                assert!(slice.chunks().all(|c| c.is_ok()), "{ctx}");
            }
            let _ = extract_map(&bad).map(|m| m.verify());
        }
    }
}
