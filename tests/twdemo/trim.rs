//! Trimming demos at any tick ([`demokit::twdemo::edit::trim`]).
//!
//! On every real recording in the corpus's real-fixtures/twdemo (read in place), trimmed at
//! ranges that start at ticks whose marker is not a keyframe, and over its whole range:
//!
//! * the output passes `validate`, has the input's header fields, map and Huffman rule,
//!   and the length DDNet's recorder would patch;
//! * its tick markers are exactly the input's in the range (the range clamped to existing
//!   ticks), the first a keyframe followed by a snapshot chunk, later keyframes where
//!   DDNet's recorder puts them (more than 250 ticks after the last) or where a delta could
//!   not keep the item order;
//! * replaying it gives, at every tick, the snapshot replaying the input gives there, item
//!   for item and in the same order;
//! * every message of the input in the range is there, with the same payload, at the same
//!   tick, in the same order, after that tick's snapshot.
//!
//! Recorder-made demos cover what the real files lack: timeline markers, a message before
//! the first tick marker, errors before, in and after the range, the Huffman rule fallback,
//! item order against DDNet's keyframe rule, and inputs that must not panic.

use crate::common;

use demokit::codec::huffman::LengthRule;
use demokit::time::TickRange;
use demokit::twdemo::edit::trim::{
    KeyframePolicy, RuleSource, TrimError, TrimOptions, TrimReport, trim_into,
};
use demokit::twdemo::edit::validate::validate;
use demokit::twdemo::snapshot::delta::{self, ItemSizes};
use demokit::twdemo::snapshot::replay::SnapshotOrder;
use demokit::twdemo::snapshot::{Snapshot, SnapshotBuf, SnapshotBuilder};
use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, PayloadDecoder, Recorder, RecorderConfig};
use std::io::{Cursor, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// The library's [`trim`](demokit::twdemo::edit::trim::trim) of the ticks `from..=to`
/// into memory: the bytes and the report.
fn trim(data: &[u8], from: i32, to: i32) -> Result<(Vec<u8>, TrimReport), TrimError> {
    trim_with(data, from, to, &TrimOptions::default())
}

/// The library's [`trim_with`](demokit::twdemo::edit::trim::trim_with) into memory, checked
/// against [`trim_with_reader`](demokit::twdemo::edit::trim::trim_with_reader) (its two runs
/// over a stream, into a sink that cannot seek): the same bytes and report, or the same
/// error.
fn trim_with(
    data: &[u8],
    from: i32,
    to: i32,
    options: &TrimOptions,
) -> Result<(Vec<u8>, TrimReport), TrimError> {
    use demokit::twdemo::edit::trim::{trim_with as in_memory, trim_with_reader};
    let range = TickRange::new(from, to);
    let mut out = Vec::new();
    let report = in_memory(data, range, options, &mut out);
    let mut streamed = Vec::new();
    let streamed_report = trim_with_reader(|| Ok(data), range, options, &mut streamed);
    match (&report, &streamed_report) {
        (Ok(report), Ok(streamed_report)) => {
            assert!(
                out == streamed,
                "trim {from}..={to}: the streamed trim differs"
            );
            assert_eq!(report, streamed_report, "trim {from}..={to}");
        }
        (Err(e), Err(streamed_e)) => {
            assert_eq!(e.to_string(), streamed_e.to_string(), "trim {from}..={to}")
        }
        _ => panic!("trim {from}..={to}: {report:?} but streamed {streamed_report:?}"),
    }
    Ok((out, report?))
}

/// Files recorded by a writer whose snapshots are ordered by key (Teeworlds 0.7), replayed
/// with the items sorted after each delta, as in tests/twdemo/snapshots.rs.
const SORTED_BY_KEY: &[&str] = &["v4_tw075_client_dm1.demo"];

/// One tick of a replay.
#[derive(Debug, Clone)]
struct TickInfo {
    tick: i32,
    keyframe: bool,
    /// The snapshot the player holds once the tick's chunks are read.
    snapshot: Option<Arc<SnapshotBuf>>,
    /// The kinds of the tick's data chunks, in order.
    kinds: Vec<ChunkKind>,
    /// The tick's message payloads as the player gets them (whole words), in order.
    messages: Vec<Vec<u8>>,
}

/// Replays a demo that reads to its end: every tick with its snapshot and messages.
/// Messages before the first tick marker are counted to the first tick.
fn replay(data: &[u8], sorted: bool) -> Vec<TickInfo> {
    let slice = DemoSlice::parse(data).unwrap();
    let net_version = slice.prelude().header.net_version.to_string_lossy();
    let sizes = ItemSizes::for_net_version(&net_version);
    let mut decoder = PayloadDecoder::new();
    let mut current: Option<Arc<SnapshotBuf>> = None;
    let mut ticks: Vec<TickInfo> = Vec::new();
    let mut early_messages = Vec::new();
    for (n, chunk) in slice.chunks().enumerate() {
        match chunk.unwrap().chunk {
            Chunk::Tick(m) => {
                if let Some(last) = ticks.last_mut() {
                    last.snapshot = current.clone();
                }
                ticks.push(TickInfo {
                    tick: m.tick,
                    keyframe: m.keyframe,
                    snapshot: None,
                    kinds: Vec::new(),
                    messages: std::mem::take(&mut early_messages),
                });
            }
            Chunk::Data(d) => {
                let ints = decoder.decode(d.payload).unwrap().ints;
                if let Some(last) = ticks.last_mut() {
                    last.kinds.push(d.kind);
                }
                match d.kind {
                    ChunkKind::Snapshot => {
                        let snap = Snapshot::parse(ints)
                            .unwrap_or_else(|e| panic!("chunk {n}: keyframe snapshot: {e}"));
                        current = Some(Arc::new(snap.to_buf()));
                    }
                    ChunkKind::SnapshotDelta => {
                        let from = current.as_ref().expect("delta before any snapshot");
                        let mut next = delta::apply_delta(&from.as_snapshot(), ints, &sizes)
                            .unwrap_or_else(|e| panic!("chunk {n}: delta: {e}"));
                        if sorted {
                            next.sort_by_key();
                        }
                        current = Some(Arc::new(next));
                    }
                    ChunkKind::Message => {
                        let bytes = ints.iter().flat_map(|i| i.to_le_bytes()).collect();
                        match ticks.last_mut() {
                            Some(last) => last.messages.push(bytes),
                            None => early_messages.push(bytes),
                        }
                    }
                    // Unknown, and kinds a later version may add: ignored, as DDNet does.
                    _ => {}
                }
            }
        }
    }
    if let Some(last) = ticks.last_mut() {
        last.snapshot = current;
    }
    ticks
}

/// The keys of a snapshot, for failure messages.
fn keys(s: &SnapshotBuf) -> Vec<i32> {
    s.as_snapshot().items().map(|i| i.key).collect()
}

/// Whether two snapshots hold the same items in the same order.
fn same_items(a: &SnapshotBuf, b: &SnapshotBuf) -> bool {
    a.as_snapshot().items().eq(b.as_snapshot().items())
}

/// The items of a snapshot as (key, data), sorted: the snapshot without its order.
fn item_set(s: &SnapshotBuf) -> Vec<(i32, Vec<i32>)> {
    let mut items: Vec<_> = s
        .as_snapshot()
        .items()
        .map(|i| (i.key, i.data.to_vec()))
        .collect();
    items.sort();
    items
}

/// The Huffman rule a real file was written with, from its facts.
fn expected_rule(facts: &serde_json::Value) -> LengthRule {
    let h = &facts["huffman_reencode"];
    let chunks = h["chunks"].as_u64().unwrap();
    let tight = h["identical_with_tight_rule"].as_u64().unwrap() == chunks;
    let trailing = h["identical_with_trailing_byte_rule"].as_u64().unwrap() == chunks;
    match (tight, trailing) {
        (true, false) => LengthRule::Tight,
        (false, true) => LengthRule::TrailingByte,
        _ => panic!("facts do not tell the rule"),
    }
}

/// Every data chunk of `data` is stored as `rule` stores it.
fn assert_rule(data: &[u8], rule: LengthRule, what: &str) {
    let slice = DemoSlice::parse(data).unwrap();
    let mut decoder = PayloadDecoder::new();
    for c in slice.chunks() {
        let c = c.unwrap();
        if let Chunk::Data(d) = c.chunk {
            let decoded = decoder.decode(d.payload).unwrap();
            assert!(
                decoded.rules_agree() || decoded.length_rule(d.payload.len()) == Some(rule),
                "{what}: chunk at {} is not stored as {rule:?}",
                c.offset
            );
        }
    }
}

/// Checks a trimmed demo against the input and its replay; returns the output's replay.
#[allow(clippy::too_many_arguments)]
fn check_trim(
    what: &str,
    input: &[u8],
    original: &[TickInfo],
    (from, to): (i32, i32),
    out: &[u8],
    report: &TrimReport,
    sorted: bool,
    policy: KeyframePolicy,
) -> Vec<TickInfo> {
    // DDNet's player takes it.
    let v = validate(out);
    assert!(v.accepted(), "{what}: not accepted: {:?}", v.problems);

    // The header fields, map and blocks of the input; the length DDNet would patch.
    let inp = DemoSlice::parse(input).unwrap();
    let outp = DemoSlice::parse(out).unwrap();
    let (a, b) = (inp.prelude(), outp.prelude());
    assert_eq!(a.version(), b.version(), "{what}: version");
    let (ha, hb) = (&a.header, &b.header);
    assert_eq!(ha.net_version, hb.net_version, "{what}: net_version");
    assert_eq!(ha.map_name, hb.map_name, "{what}: map_name");
    assert_eq!(ha.map_size, hb.map_size, "{what}: map_size");
    assert_eq!(ha.map_crc, hb.map_crc, "{what}: map_crc");
    assert_eq!(ha.kind, hb.kind, "{what}: type");
    assert_eq!(ha.timestamp, hb.timestamp, "{what}: timestamp");
    assert_eq!(a.map_sha256, b.map_sha256, "{what}: SHA-256 block");
    assert_eq!(inp.map(), outp.map(), "{what}: map");
    assert_eq!(
        hb.length,
        (report.last_tick - report.first_tick) / 50,
        "{what}: length"
    );

    // Exactly the input's tick markers in the range.
    let kept: Vec<&TickInfo> = original
        .iter()
        .filter(|t| (from..=to).contains(&t.tick))
        .collect();
    let sorted_order = if sorted {
        SnapshotOrder::SortedByKey
    } else {
        SnapshotOrder::AsApplied
    };
    assert_eq!(report.snapshot_order, sorted_order, "{what}: order");
    let trimmed = replay(out, sorted);
    let out_ticks: Vec<i32> = trimmed.iter().map(|t| t.tick).collect();
    let want_ticks: Vec<i32> = kept.iter().map(|t| t.tick).collect();
    assert_eq!(out_ticks, want_ticks, "{what}: tick markers");
    assert_eq!(report.first_tick, want_ticks[0], "{what}: first tick");
    assert_eq!(report.last_tick, *want_ticks.last().unwrap(), "{what}");
    assert_eq!(report.ticks, want_ticks.len(), "{what}: ticks");

    // A keyframe with a snapshot chunk first.
    assert!(trimmed[0].keyframe, "{what}: first marker is no keyframe");
    assert_eq!(
        trimmed[0].kinds.first(),
        Some(&ChunkKind::Snapshot),
        "{what}: first marker is not followed by a snapshot"
    );

    // The same snapshot at every tick; the same messages at every tick, after the
    // snapshot; keyframes where the policy puts them.
    let mut last_keyframe: Option<i32> = None;
    let (mut keyframes, mut early_keyframes, mut deltas, mut messages) = (0, 0, 0, 0);
    for (got, want) in trimmed.iter().zip(&kept) {
        let t = got.tick;
        let (g, w) = (
            got.snapshot.as_ref().unwrap(),
            want.snapshot.as_ref().unwrap(),
        );
        match policy {
            KeyframePolicy::KeepItemOrder => assert!(
                same_items(g, w),
                "{what}: tick {t}: snapshot differs: keys {:?} want {:?}",
                keys(g),
                keys(w)
            ),
            KeyframePolicy::Ddnet => {
                assert_eq!(item_set(g), item_set(w), "{what}: tick {t}: items differ")
            }
        }
        assert_eq!(got.messages, want.messages, "{what}: tick {t}: messages");
        messages += got.messages.len();
        let snapshot_chunks: Vec<_> = got
            .kinds
            .iter()
            .filter(|k| **k != ChunkKind::Message)
            .collect();
        assert!(
            snapshot_chunks.len() <= 1,
            "{what}: tick {t}: {:?}",
            got.kinds
        );
        if let Some(first) = got.kinds.first() {
            assert_ne!(
                (first, snapshot_chunks.is_empty()),
                (&ChunkKind::Message, false),
                "{what}: tick {t}: a message before the snapshot"
            );
        }
        let due = last_keyframe.is_none_or(|k| t - k > 250);
        if due {
            assert!(
                got.keyframe,
                "{what}: tick {t}: DDNet's keyframe is missing"
            );
        }
        if got.keyframe {
            assert_eq!(snapshot_chunks, [&ChunkKind::Snapshot], "{what}: tick {t}");
            keyframes += 1;
            early_keyframes += !due as usize;
            last_keyframe = Some(t);
        } else if !snapshot_chunks.is_empty() {
            assert_eq!(
                snapshot_chunks,
                [&ChunkKind::SnapshotDelta],
                "{what}: tick {t}"
            );
            deltas += 1;
        }
    }
    assert_eq!(report.keyframes, keyframes, "{what}: keyframes");
    assert_eq!(report.order_keyframes, early_keyframes, "{what}");
    if policy == KeyframePolicy::Ddnet {
        assert_eq!(report.order_keyframes, 0, "{what}");
    }
    assert_eq!(report.deltas, deltas, "{what}: deltas");
    assert_eq!(report.snapshots, keyframes + deltas, "{what}");
    assert_eq!(
        report.unchanged_ticks,
        report.ticks - keyframes - deltas,
        "{what}"
    );
    assert_eq!(report.messages, messages, "{what}: messages");
    assert_eq!(report.skipped_snapshots, 0, "{what}");
    assert_eq!(report.unknown_chunks, 0, "{what}");
    assert_rule(out, report.huffman_rule, what);
    trimmed
}

/// The index of the first tick at or after `index` whose marker is not a keyframe.
fn non_keyframe_from(ticks: &[TickInfo], index: usize) -> usize {
    (index.max(1)..ticks.len())
        .find(|&i| !ticks[i].keyframe)
        .expect("a non-keyframe tick")
}

/// Ranges starting at non-keyframe ticks: 1/4 in to past the end, 1/2 in (from a tick
/// between markers where there is one) to 3/4 in, and a short one right after a keyframe
/// of the input (its second, when it has one). For a slow file the first range starts 7/8
/// in.
fn ranges(ticks: &[TickInfo], slow: bool) -> Vec<(i32, i32)> {
    let n = ticks.len();
    let quarter = non_keyframe_from(ticks, if slow { 7 * n / 8 } else { n / 4 });
    let half = non_keyframe_from(ticks, n / 2);
    let three_quarters = (3 * n / 4).max(half + 1).min(n - 2);
    let half_from = match ticks[half].tick - ticks[half - 1].tick {
        gap if gap > 1 => ticks[half - 1].tick + 1,
        _ => ticks[half].tick,
    };
    let after_key = ticks
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, t)| t.keyframe)
        .map_or(n / 8, |(i, _)| i + 1);
    let short = non_keyframe_from(ticks, after_key);
    vec![
        (ticks[quarter].tick, i32::MAX),
        (half_from, ticks[three_quarters].tick),
        (ticks[short].tick, ticks[(short + 30).min(n - 1)].tick),
    ]
}

/// A real demo with its facts and its replay.
struct RealDemo {
    name: String,
    data: Vec<u8>,
    facts: serde_json::Value,
    /// Replayed with items sorted by key after each delta.
    sorted: bool,
    /// The replay.
    ticks: Vec<TickInfo>,
}

/// The file whose snapshots are large (up to 348 items): applying a delta looks each
/// updated key up item by item, so its replays take most of the time. Its first range
/// starts later and its full-range result is not trimmed a second time.
const SLOW: &str = "v6_ddnet_client_multeasymap_2020.demo";

/// The real demos, read and replayed once for all tests.
fn real_demos() -> &'static [RealDemo] {
    static DEMOS: OnceLock<Vec<RealDemo>> = OnceLock::new();
    DEMOS.get_or_init(|| {
        let Some(shared) = common::shared_dir() else {
            return Vec::new();
        };
        let demos: Vec<_> = common::twdemo_facts(&shared)
            .into_iter()
            .map(|(path, facts): (PathBuf, _)| {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let data = std::fs::read(&path).unwrap();
                let sorted = SORTED_BY_KEY.contains(&name.as_str());
                let ticks = replay(&data, sorted);
                RealDemo {
                    name,
                    data,
                    facts,
                    sorted,
                    ticks,
                }
            })
            .collect();
        common::check_total("real demos", demos.len(), 10);
        demos
    })
}

#[test]
fn real_demos_trim_at_non_keyframe_ticks() {
    for demo in real_demos() {
        let RealDemo {
            name,
            data,
            facts,
            sorted,
            ticks: original,
        } = demo;
        let sorted = *sorted;
        assert_eq!(
            original.first().unwrap().tick as i64,
            facts["first_tick"].as_i64().unwrap()
        );
        let rule = expected_rule(facts);
        for (from, to) in ranges(original, name == SLOW) {
            let what = format!("{name} [{from}, {to}]");
            let first = original.iter().find(|t| t.tick >= from).unwrap();
            assert!(!first.keyframe, "{what}: starts at a keyframe");
            let (out, report) = trim(data, from, to).unwrap_or_else(|e| panic!("{what}: {e}"));
            check_trim(
                &what,
                data,
                original,
                (from, to),
                &out,
                &report,
                sorted,
                KeyframePolicy::KeepItemOrder,
            );
            assert_eq!(report.huffman_rule, rule, "{what}: Huffman rule");
            assert!(
                matches!(report.rule_source, RuleSource::Detected { .. }),
                "{what}: {:?}",
                report.rule_source
            );
            eprintln!(
                "{what}: ticks {}..={} ({}), keyframes {} (for order {}), deltas {}, unchanged {}, messages {}, {} -> {} bytes",
                report.first_tick,
                report.last_tick,
                report.ticks,
                report.keyframes,
                report.order_keyframes,
                report.deltas,
                report.unchanged_ticks,
                report.messages,
                data.len(),
                out.len()
            );
        }
    }
}

/// With DDNet's keyframe rule alone the output holds the same items at every tick. Where
/// the default policy needed no keyframe for the order, the two outputs are the same bytes;
/// where it did, DDNet's rule gives another order at some tick. Order keyframes fall only
/// on ticks where the input has a keyframe: a delta can always rebuild what a delta built.
#[test]
fn real_demos_ddnet_keyframe_policy() {
    for demo in real_demos() {
        let (name, data, sorted, original) = (&demo.name, &demo.data, demo.sorted, &demo.ticks);
        let (from, to) = ranges(original, name == SLOW)[1];
        let what = format!("{name} [{from}, {to}] DDNet keyframes");
        let ddnet = TrimOptions {
            keyframes: KeyframePolicy::Ddnet,
            ..TrimOptions::default()
        };
        let (out, report) = trim_with(data, from, to, &ddnet).unwrap();
        let trimmed = check_trim(
            &what,
            data,
            original,
            (from, to),
            &out,
            &report,
            sorted,
            KeyframePolicy::Ddnet,
        );
        let (kept_order, kept_report) = trim(data, from, to).unwrap();
        let kept = replay(&kept_order, sorted);
        let reordered = trimmed
            .iter()
            .zip(original.iter().filter(|t| t.tick >= from))
            .filter(|(g, w)| {
                !same_items(g.snapshot.as_ref().unwrap(), w.snapshot.as_ref().unwrap())
            })
            .count();
        for t in kept.iter().skip(1).filter(|t| t.keyframe) {
            let input = original.iter().find(|o| o.tick == t.tick).unwrap();
            let due = kept
                .iter()
                .rfind(|k| k.keyframe && k.tick < t.tick)
                .is_none_or(|k| t.tick - k.tick > 250);
            assert!(
                due || input.keyframe,
                "{what}: order keyframe at {} where the input has none",
                t.tick
            );
        }
        if kept_report.order_keyframes == 0 {
            assert_eq!(out, kept_order, "{what}: differs without order keyframes");
        } else {
            assert!(reordered > 0, "{what}: order keyframes were not needed");
        }
        eprintln!(
            "{what}: keyframes {} (default policy {}, {} for order); ticks in another order {reordered}",
            report.keyframes, kept_report.keyframes, kept_report.order_keyframes
        );
    }
}

/// The whole range: every tick of the input with its snapshot and messages, and trimming
/// the result again changes nothing.
#[test]
fn real_demos_full_range() {
    for demo in real_demos() {
        let (name, data, sorted, original) = (&demo.name, &demo.data, demo.sorted, &demo.ticks);
        let what = format!("{name} full range");
        let (out, report) = trim(data, i32::MIN, i32::MAX).unwrap();
        check_trim(
            &what,
            data,
            original,
            (i32::MIN, i32::MAX),
            &out,
            &report,
            sorted,
            KeyframePolicy::KeepItemOrder,
        );
        assert_eq!(report.ticks, original.len(), "{what}");
        assert_eq!(
            report.last_tick as i64,
            demo.facts["last_tick"].as_i64().unwrap(),
            "{what}"
        );
        let total: usize = original.iter().map(|t| t.messages.len()).sum();
        assert_eq!(report.messages, total, "{what}");
        assert_eq!(
            total as u64,
            demo.facts["chunk_counts"]["msg"].as_u64().unwrap(),
            "{what}"
        );
        if name == SLOW {
            continue;
        }
        let (again, again_report) = trim(&out, i32::MIN, i32::MAX).unwrap();
        assert_eq!(again_report.order_keyframes, 0, "{what}: trimmed again");
        assert_eq!(again, out, "{what}: trimmed again");
    }
}

#[test]
fn real_demos_range_errors() {
    for demo in real_demos() {
        let (name, data, original) = (&demo.name, &demo.data, &demo.ticks);
        let first = original[0].tick;
        let last = original.last().unwrap().tick;
        let middle = original[original.len() / 2].tick;
        assert!(matches!(
            trim(data, middle + 1, middle),
            Err(TrimError::InvalidRange { .. })
        ));
        for (from, to) in [(last + 1, i32::MAX), (i32::MIN, first - 1)] {
            match trim(data, from, to) {
                Err(TrimError::EmptyRange { from: f, to: t }) => assert_eq!((f, t), (from, to)),
                other => panic!("{name} [{from}, {to}]: {:?}", other.map(|r| r.1)),
            }
        }
        // A one-tick range: a keyframe alone, which DDNet calls an empty demo.
        let (out, report) = trim(data, middle, middle).unwrap();
        assert_eq!(
            (report.first_tick, report.last_tick, report.ticks),
            (middle, middle, 1)
        );
        assert!(!validate(&out).accepted(), "{name}: one tick plays");
        // Between two tick markers (server demos record every other tick).
        if let Some(w) = original.windows(2).find(|w| w[1].tick - w[0].tick > 1) {
            let gap = w[0].tick + 1;
            assert!(matches!(
                trim(data, gap, gap),
                Err(TrimError::EmptyRange { .. })
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Recorder-made demos.

const FLAG: i32 = 5;
const PICKUP: i32 = 4;

/// The snapshot of `tick` in the synthetic recording: a flag that moves except on ticks
/// 300 to 320, and pickups that come and go.
fn synthetic_snapshot(tick: i32) -> SnapshotBuf {
    let mut b = SnapshotBuilder::new();
    let x = if (300..=320).contains(&tick) {
        300
    } else {
        tick
    };
    b.add_item(FLAG, 0, &[x, 200, 1]).unwrap();
    for id in 0..4 {
        if (tick / 20 + id) % 3 != 0 {
            b.add_item(PICKUP, id, &[16 * id, 32, 1, 0]).unwrap();
        }
    }
    b.finish()
}

/// A server recording of ticks 100 to 700: a message before the first tick marker, a chat
/// message every 10 ticks, timeline markers at 150, 300, 450 and 600.
fn synthetic(version: u8, rule: LengthRule) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet("synthetic", "2026-11-22_12-00-00");
    config.version = version;
    config.kind = "server".into();
    config.huffman_rule = rule;
    // A map DDNet loads: `validate` judges the output as DDNet's client would.
    let map = demokit::datafile::minimal_map(8, 4, "synthetic").unwrap();
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, &map).unwrap();
    rec.record_message(b"\x05early\0").unwrap();
    for tick in 100..=700 {
        rec.record_snapshot(tick, synthetic_snapshot(tick).as_snapshot())
            .unwrap();
        if tick % 10 == 0 {
            rec.record_message(format!("\x06\x00\x40tick {tick}\0").as_bytes())
                .unwrap();
        }
        if tick % 150 == 0 {
            assert!(rec.add_timeline_marker(tick));
        }
    }
    rec.finish().unwrap().into_inner()
}

/// The offset of the first data chunk of `kind` after the tick marker of `tick`.
fn chunk_after(data: &[u8], tick: i32, kind: ChunkKind) -> (u64, usize) {
    let slice = DemoSlice::parse(data).unwrap();
    let mut seen = false;
    for c in slice.chunks() {
        let c = c.unwrap();
        match c.chunk {
            Chunk::Tick(m) => seen |= m.tick == tick,
            Chunk::Data(d) if seen && d.kind == kind => {
                return (c.offset, c.header.len() + d.payload.len());
            }
            _ => {}
        }
    }
    panic!("no {kind:?} after tick {tick}")
}

#[test]
fn synthetic_markers_messages_and_snapshots() {
    for (version, rule) in [
        (6, LengthRule::Tight),
        (5, LengthRule::TrailingByte),
        (4, LengthRule::TrailingByte),
        (3, LengthRule::TrailingByte),
    ] {
        let data = synthetic(version, rule);
        let original = replay(&data, false);
        for (from, to) in [(100, 700), (205, 512), (299, 330), (90, 101)] {
            let what = format!("v{version} [{from}, {to}]");
            let (out, report) = trim(&data, from, to).unwrap();
            check_trim(
                &what,
                &data,
                &original,
                (from, to),
                &out,
                &report,
                false,
                KeyframePolicy::KeepItemOrder,
            );
            assert_eq!(report.huffman_rule, rule, "{what}");
            let want: Vec<i32> = if version >= 4 {
                [150, 300, 450, 600]
                    .into_iter()
                    .filter(|m| (report.first_tick..=report.last_tick).contains(m))
                    .collect()
            } else {
                Vec::new()
            };
            assert_eq!(report.markers, want, "{what}");
            let prelude = *DemoSlice::parse(&out).unwrap().prelude();
            assert_eq!(prelude.markers_in_use(), want, "{what}");
            // The message before the first tick marker goes with the first tick.
            let early = trim(&data, from, to).unwrap();
            let first_messages = &replay(&early.0, false)[0].messages;
            assert_eq!(
                first_messages
                    .first()
                    .is_some_and(|m| m.starts_with(b"\x05early")),
                from <= 100,
                "{what}"
            );
        }
    }
}

#[test]
fn read_errors_before_in_and_after_the_range() {
    let data = synthetic(6, LengthRule::Tight);
    let (whole, _) = trim(&data, 200, 400).unwrap();
    // Cut inside a chunk after the range: the same result.
    let (offset, len) = chunk_after(&data, 450, ChunkKind::SnapshotDelta);
    let cut = &data[..offset as usize + len - 1];
    assert_eq!(trim(cut, 200, 400).unwrap().0, whole);
    // Cut inside the range: an error at that chunk.
    let (offset, len) = chunk_after(&data, 300, ChunkKind::SnapshotDelta);
    let err = trim(&data[..offset as usize + len - 1], 200, 400).unwrap_err();
    assert!(
        matches!(&err, TrimError::Read(e) if e.is_truncation()),
        "{err}"
    );
    assert_eq!(err.offset(), Some(offset));
    // A payload that does not decode, before, in and after the range.
    let mut decoder = PayloadDecoder::new();
    for (tick, ok) in [(150, false), (300, false), (450, true)] {
        let (offset, len) = chunk_after(&data, tick, ChunkKind::Message);
        let mut bad = data.clone();
        let header_len = len - {
            let slice = DemoSlice::parse(&data).unwrap();
            let c = slice
                .chunks()
                .map(Result::unwrap)
                .find(|c| c.offset == offset)
                .unwrap();
            match c.chunk {
                Chunk::Data(d) => d.payload.len(),
                Chunk::Tick(_) => unreachable!(),
            }
        };
        let payload = &mut bad[offset as usize + header_len..offset as usize + len];
        payload.fill(0xff);
        assert!(decoder.decode(payload).is_err(), "garbage decodes");
        match trim(&bad, 200, 400) {
            Ok((out, _)) => {
                assert!(ok, "tick {tick}: no error");
                assert_eq!(out, whole);
            }
            Err(e) => {
                assert!(!ok, "tick {tick}: {e}");
                assert!(matches!(e, TrimError::Payload { .. }), "{e}");
                assert_eq!(e.offset(), Some(offset), "tick {tick}");
            }
        }
    }
    // Not a demo at all.
    assert!(matches!(trim(b"TWDEMO", 0, 1), Err(TrimError::Read(_))));
}

/// A tick of a hand-made demo: its tick, its keyframe flag, and its chunks as kinds and
/// ints.
type HandTick = (i32, bool, Vec<(ChunkKind, Vec<i32>)>);

/// A demo written chunk by chunk.
fn handmade(version: u8, rule: LengthRule, ticks: &[HandTick]) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet("handmade", "2026-11-22_12-00-00");
    config.version = version;
    config.huffman_rule = rule;
    let mut rec = Recorder::start(
        Cursor::new(Vec::new()),
        &config,
        &demokit::datafile::minimal_map(2, 2, "m").unwrap(),
    )
    .unwrap();
    for (tick, keyframe, chunks) in ticks {
        rec.record_tick_marker(*tick, *keyframe).unwrap();
        for (kind, ints) in chunks {
            match kind {
                ChunkKind::Snapshot => rec.record_snapshot_ints(ints).unwrap(),
                ChunkKind::SnapshotDelta => rec.record_delta_ints(ints).unwrap(),
                ChunkKind::Message => {
                    let bytes: Vec<u8> = ints.iter().flat_map(|i| i.to_le_bytes()).collect();
                    rec.record_message(&bytes).unwrap()
                }
                other => {
                    let bytes: Vec<u8> = ints.iter().flat_map(|i| i.to_le_bytes()).collect();
                    rec.record_bytes(*other, &bytes).unwrap()
                }
            }
        }
    }
    rec.finish().unwrap().into_inner()
}

fn snap(items: &[(i32, i32, &[i32])]) -> Vec<i32> {
    let mut b = SnapshotBuilder::new();
    for &(t, id, data) in items {
        b.add_item(t, id, data).unwrap();
    }
    b.finish().into_ints()
}

/// A keyframe that stores the items in another order than a delta would leave them: the
/// default policy writes a keyframe there, DDNet's rule writes the tick marker alone.
#[test]
fn keyframe_order_against_ddnet_rule() {
    let sizes = ItemSizes::DDNET_0_6;
    let ab = snap(&[(FLAG, 0, &[1, 2, 3]), (FLAG, 1, &[4, 5, 6])]);
    let abc = snap(&[
        (FLAG, 0, &[1, 2, 3]),
        (FLAG, 1, &[4, 5, 6]),
        (FLAG, 2, &[7, 8, 9]),
    ]);
    let cab = snap(&[
        (FLAG, 2, &[7, 8, 9]),
        (FLAG, 0, &[1, 2, 3]),
        (FLAG, 1, &[4, 5, 6]),
    ]);
    let add_c = delta::create_delta(
        &Snapshot::parse(&ab).unwrap(),
        &Snapshot::parse(&abc).unwrap(),
        &sizes,
    );
    let data = handmade(
        6,
        LengthRule::Tight,
        &[
            (10, true, vec![(ChunkKind::Snapshot, ab.clone())]),
            (11, false, vec![(ChunkKind::SnapshotDelta, add_c)]),
            (12, true, vec![(ChunkKind::Snapshot, cab.clone())]),
            (13, false, vec![]),
        ],
    );
    let original = replay(&data, false);
    let (out, report) = trim(&data, 11, 13).unwrap();
    check_trim(
        "order",
        &data,
        &original,
        (11, 13),
        &out,
        &report,
        false,
        KeyframePolicy::KeepItemOrder,
    );
    assert_eq!(
        (
            report.keyframes,
            report.order_keyframes,
            report.unchanged_ticks
        ),
        (2, 1, 1)
    );
    let ddnet = TrimOptions {
        keyframes: KeyframePolicy::Ddnet,
        ..TrimOptions::default()
    };
    let (out, report) = trim_with(&data, 11, 13, &ddnet).unwrap();
    check_trim(
        "ddnet",
        &data,
        &original,
        (11, 13),
        &out,
        &report,
        false,
        KeyframePolicy::Ddnet,
    );
    assert_eq!((report.keyframes, report.unchanged_ticks), (1, 2));
    let trimmed = replay(&out, false);
    assert_eq!(trimmed[1].snapshot.as_ref().unwrap().as_ints(), abc);
}

/// Ticks before the first snapshot are not written; their messages go with the first tick
/// written. A delta before any snapshot is an error, as in DDNet's player; an invalid
/// snapshot and a chunk of unknown type are skipped, as the player skips them.
#[test]
fn ticks_without_snapshot_skipped_chunks_and_delta_first() {
    let a = snap(&[(FLAG, 0, &[1, 2, 3])]);
    let b = snap(&[(FLAG, 0, &[1, 2, 4])]);
    let hello = vec![i32::from_le_bytes(*b"\x06hi\0")];
    let data = handmade(
        5,
        LengthRule::TrailingByte,
        &[
            (10, false, vec![(ChunkKind::Message, hello.clone())]),
            (11, false, vec![]),
            (12, true, vec![(ChunkKind::Snapshot, a.clone())]),
            (
                13,
                false,
                vec![
                    (ChunkKind::Snapshot, vec![4, 0]),
                    (ChunkKind::Unknown, vec![7]),
                ],
            ),
            (14, true, vec![(ChunkKind::Snapshot, b.clone())]),
        ],
    );
    assert!(matches!(
        trim(&data, 10, 11),
        Err(TrimError::NoSnapshot { from: 10, to: 11 })
    ));
    let (out, report) = trim(&data, 10, 14).unwrap();
    assert_eq!(
        (
            report.first_tick,
            report.ticks,
            report.ticks_without_snapshot
        ),
        (12, 3, 2)
    );
    assert_eq!(
        (
            report.skipped_snapshots,
            report.unknown_chunks,
            report.messages
        ),
        (1, 1, 1)
    );
    let trimmed = replay(&out, false);
    assert_eq!(trimmed[0].messages, [b"\x06hi\0".to_vec()]);
    // Tick 13 repeats tick 12: the invalid snapshot is skipped.
    assert_eq!(trimmed[1].snapshot.as_ref().unwrap().as_ints(), a);
    assert_eq!(trimmed[2].snapshot.as_ref().unwrap().as_ints(), b);
    assert!(validate(&out).accepted());

    let delta_first = handmade(
        6,
        LengthRule::Tight,
        &[
            (10, false, vec![(ChunkKind::SnapshotDelta, vec![0, 0, 0])]),
            (11, true, vec![(ChunkKind::Snapshot, a)]),
            (12, false, vec![]),
        ],
    );
    let (offset, _) = chunk_after(&delta_first, 10, ChunkKind::SnapshotDelta);
    let err = trim(&delta_first, 11, 12).unwrap_err();
    assert!(
        matches!(err, TrimError::DeltaBeforeSnapshot { .. }),
        "{err}"
    );
    assert_eq!(err.offset(), Some(offset));
}

/// The Huffman rule: read off the input, given, or (when no chunk tells) DDNet 20.1's for
/// version 6 and the trailing byte before.
#[test]
fn huffman_rule_detected_given_or_fallback() {
    for rule in [LengthRule::Tight, LengthRule::TrailingByte] {
        let data = synthetic(6, rule);
        let (out, report) = trim(&data, 250, 420).unwrap();
        assert_eq!(report.huffman_rule, rule);
        assert!(matches!(report.rule_source, RuleSource::Detected { .. }));
        assert_rule(&out, rule, "detected");
        let other = match rule {
            LengthRule::Tight => LengthRule::TrailingByte,
            LengthRule::TrailingByte => LengthRule::Tight,
        };
        let given = TrimOptions {
            huffman_rule: Some(other),
            ..TrimOptions::default()
        };
        let (out, report) = trim_with(&data, 250, 420, &given).unwrap();
        assert_eq!(
            (report.huffman_rule, report.rule_source),
            (other, RuleSource::Given)
        );
        assert_rule(&out, other, "given");
    }
    // A snapshot whose Huffman stream does not end on a byte boundary: no chunk tells.
    let mut decoder = PayloadDecoder::new();
    let mut encoder = demokit::twdemo::PayloadEncoder::new();
    let undecided = (0..1000)
        .map(|x| snap(&[(FLAG, 0, &[x, 200, 1])]))
        .find(|ints| {
            let stored = encoder.encode(ints, LengthRule::Tight).to_vec();
            decoder.decode(&stored).unwrap().rules_agree()
        })
        .unwrap();
    for (version, want) in [
        (6, LengthRule::Tight),
        (5, LengthRule::TrailingByte),
        (3, LengthRule::TrailingByte),
    ] {
        let data = handmade(
            version,
            LengthRule::Tight,
            &[
                (10, true, vec![(ChunkKind::Snapshot, undecided.clone())]),
                (11, false, vec![]),
                (12, false, vec![]),
            ],
        );
        let (out, report) = trim(&data, 11, 12).unwrap();
        assert_eq!(
            (report.huffman_rule, report.rule_source),
            (want, RuleSource::Fallback),
            "v{version}"
        );
        assert!(validate(&out).accepted());
    }
}

#[test]
fn snapshot_order_follows_the_writer() {
    for (version, net_version, want) in [
        (4, "0.7 802f1be60a05665f", SnapshotOrder::SortedByKey),
        (6, "0.7 802f1be60a05665f", SnapshotOrder::AsApplied),
        (4, "0.6 626fce9a778df4d4", SnapshotOrder::AsApplied),
    ] {
        let mut config = RecorderConfig::ddnet("m", "2026-11-22_12-00-00");
        config.version = version;
        config.net_version = net_version.into();
        let mut rec = Recorder::start(
            Cursor::new(Vec::new()),
            &config,
            &demokit::datafile::minimal_map(2, 2, "m").unwrap(),
        )
        .unwrap();
        rec.record_snapshot(1, Snapshot::empty()).unwrap();
        rec.record_snapshot(2, Snapshot::empty()).unwrap();
        let data = rec.finish().unwrap().into_inner();
        let prelude = *DemoSlice::parse(&data).unwrap().prelude();
        assert_eq!(SnapshotOrder::for_prelude(&prelude), want);
        assert_eq!(trim(&data, 0, 5).unwrap().1.snapshot_order, want);
        let given = TrimOptions {
            snapshot_order: Some(SnapshotOrder::AsApplied),
            ..TrimOptions::default()
        };
        assert_eq!(
            trim_with(&data, 0, 5, &given).unwrap().1.snapshot_order,
            SnapshotOrder::AsApplied
        );
    }
}

/// Into a sink that already holds bytes: the demo starts where the sink stood, and the
/// header is patched there.
#[test]
fn trim_into_a_sink_at_an_offset() {
    let data = synthetic(6, LengthRule::Tight);
    let (alone, report) = trim(&data, 205, 512).unwrap();
    let mut sink = Cursor::new(Vec::new());
    sink.write_all(b"prefix").unwrap();
    let (mut sink, again) = trim_into(&data, sink, 205, 512, &TrimOptions::default()).unwrap();
    assert_eq!(again, report);
    assert_eq!(sink.stream_position().unwrap(), 6 + alone.len() as u64);
    sink.seek(SeekFrom::Start(0)).unwrap();
    let bytes = sink.into_inner();
    assert_eq!(&bytes[..6], b"prefix");
    assert_eq!(&bytes[6..], alone);
}

/// Every cut and every byte changed in a small demo: no panic, and any output reads to its
/// end.
#[test]
fn damaged_inputs_do_not_panic() {
    let mut inputs = vec![handmade(
        6,
        LengthRule::Tight,
        &[
            (
                10,
                true,
                vec![(ChunkKind::Snapshot, snap(&[(FLAG, 0, &[1, 2, 3])]))],
            ),
            (11, false, vec![(ChunkKind::Message, vec![6, 7])]),
            (
                12,
                false,
                vec![(ChunkKind::SnapshotDelta, vec![0, 1, 0, FLAG, 0, 1, 0, 0])],
            ),
            (13, false, vec![]),
        ],
    )];
    if let Some(path) =
        common::shared_file_part("real-fixtures/twdemo/v6_ddnet_client_sixup_tinycave.demo")
    {
        inputs.push(std::fs::read(path).unwrap());
    }
    let mut outcomes = [0usize; 2];
    for data in &inputs {
        // Damage in the embedded map changes nothing the trim reads: leave it out.
        let slice = DemoSlice::parse(data).unwrap();
        let map = slice.map_offset()..slice.chunks_offset();
        let places: Vec<usize> = (0..data.len()).filter(|i| !map.contains(i)).collect();
        let mut damaged: Vec<Vec<u8>> = places.iter().map(|&n| data[..n].to_vec()).collect();
        for &i in &places {
            let mut d = data.clone();
            d[i] ^= 1 << (i % 8);
            damaged.push(d);
            let mut d = data.clone();
            d[i] = 0xff;
            damaged.push(d);
        }
        for d in &damaged {
            match trim(d, i32::MIN, i32::MAX) {
                Ok((out, _)) => {
                    outcomes[0] += 1;
                    let slice = DemoSlice::parse(&out).unwrap();
                    assert!(slice.chunks().all(|c| c.is_ok()));
                }
                Err(_) => outcomes[1] += 1,
            }
        }
    }
    eprintln!(
        "damaged inputs: {} trimmed, {} refused",
        outcomes[0], outcomes[1]
    );
    assert!(outcomes[0] > 0 && outcomes[1] > 0);
}
