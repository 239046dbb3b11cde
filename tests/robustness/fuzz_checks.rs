//! The properties demokit's fuzz targets check, one function per target.
//!
//! Each function takes any bytes and panics only when demokit breaks a promise it makes
//! about untrusted input: a reader panics or loops, the slice and streaming readers
//! disagree, a cut-off input does not yield everything before the cut, something that
//! reads does not write back to the same bytes, or an edit produces a file that does not
//! read. Two crates compile this file: the fuzz crate (`fuzz/src/lib.rs`, whose targets
//! call these functions under libFuzzer) and `tests/robustness/fuzz_regressions.rs`, which runs every
//! function on every committed fixture and on each input a fuzzer ever found
//! (`fixtures/malformed/fuzz/`), so what fuzzing finds stays fixed without a fuzzer. It
//! lives here, beside the tests, because the published crate ships `tests/` but not the
//! fuzz crate; it uses nothing but demokit and std, so that both can include it.
//!
//! Nothing here may allocate in proportion to a length field of the input: the harness's
//! own bookkeeping is bounded by the input's size.

use demokit::codec::huffman::{self, LengthRule};
use demokit::codec::varint;
use demokit::source;
use demokit::teehistorian as th;
use demokit::twdemo as tw;
use std::io::Read;

/// A reader that hands out its bytes in pieces of varying size (1 byte up to a few KiB),
/// so that the streaming readers meet every buffer boundary the slice readers never see.
pub struct Dribble<'a> {
    data: &'a [u8],
    step: usize,
}

impl<'a> Dribble<'a> {
    /// A reader over `data` whose piece sizes follow from `seed`.
    pub fn new(data: &'a [u8], seed: usize) -> Self {
        Dribble { data, step: seed }
    }
}

impl Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        const SIZES: [usize; 8] = [1, 7, 3, 4096, 2, 64, 13, 1 << 20];
        self.step = self.step.wrapping_add(1);
        let n = SIZES[self.step % SIZES.len()]
            .min(buf.len())
            .min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// A cut point inside `data` that depends on all of its bytes, so that the fuzzer
/// explores cuts everywhere without spending input bytes on choosing one.
pub fn cut_point(data: &[u8]) -> usize {
    if data.is_empty() {
        return 0;
    }
    fnv1a(data) as usize % data.len()
}

/// FNV-1a: cheap, deterministic, and needs no dependency.
fn fnv1a(data: &[u8]) -> u32 {
    data.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// What a reader yielded: each item with its start and end offsets, then the error (offset
/// and message) that ended the reading, if any.
type Reading<T> = (Vec<(u64, u64, T)>, Option<(u64, String)>);

/// An error as the harness compares it: offset and message.
fn described<E: std::fmt::Display>(offset: u64, e: &E) -> (u64, String) {
    (offset, e.to_string())
}

/// Checks that `cut` (the items read from a prefix of length `cut_len`) agrees with
/// `full` (the items read from the whole input): the prefix yields the same items as the
/// whole, every item that ends within the prefix, and an error unless the prefix is whole
/// (a prefix that reads cleanly must be a complete file in its own right).
fn check_prefix<T: PartialEq + std::fmt::Debug>(
    what: &str,
    full: &[(u64, u64, T)],
    cut: &[(u64, u64, T)],
    cut_len: usize,
) {
    assert!(
        cut.len() <= full.len(),
        "{what}: a prefix of {cut_len} bytes yields more items ({}) than the whole ({})",
        cut.len(),
        full.len()
    );
    for (i, (a, b)) in cut.iter().zip(full).enumerate() {
        assert_eq!(a, b, "{what}: item {i} differs when cut at {cut_len}");
    }
    let complete = full
        .iter()
        .take_while(|(_, end, _)| *end <= cut_len as u64)
        .count();
    assert!(
        cut.len() >= complete,
        "{what}: cut at {cut_len}, {complete} items end before the cut but only {} were read",
        cut.len()
    );
}

// ---------------------------------------------------------------------------------------
// Teeworlds demos

/// One chunk as the harness compares it.
#[derive(Debug, PartialEq, Eq)]
enum TwItem {
    Tick(tw::TickMarker),
    Data {
        kind: tw::ChunkKind,
        payload: Vec<u8>,
    },
}

fn tw_item(chunk: &tw::Chunk<'_>) -> TwItem {
    match chunk {
        tw::Chunk::Tick(m) => TwItem::Tick(*m),
        tw::Chunk::Data(d) => TwItem::Data {
            kind: d.kind,
            payload: d.payload.to_vec(),
        },
    }
}

/// Chunks (offset, end, item) and the error that ended the reading, from the slice reader.
fn tw_slice(data: &[u8]) -> Reading<TwItem> {
    let slice = match tw::DemoSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(described(e.offset, &e))),
    };
    let mut items = Vec::new();
    let mut chunks = slice.chunks();
    loop {
        match chunks.next() {
            None => return (items, None),
            Some(Ok(at)) => {
                let end = chunks.position() as u64;
                assert!(at.offset < end, "twdemo: a chunk that takes no bytes");
                items.push((at.offset, end, tw_item(&at.chunk)));
            }
            Some(Err(e)) => return (items, Some(described(e.offset, &e))),
        }
    }
}

/// The same from the streaming reader.
fn tw_stream(data: &[u8], seed: usize) -> Reading<TwItem> {
    let mut reader = match tw::DemoReader::new(Dribble::new(data, seed)) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(described(e.offset, &e))),
    };
    let mut items = Vec::new();
    loop {
        let (offset, item) = match reader.next() {
            None => return (items, None),
            Some(Ok(at)) => (at.offset, tw_item(&at.chunk)),
            Some(Err(e)) => return (items, Some(described(e.offset, &e))),
        };
        items.push((offset, reader.position(), item));
    }
}

/// The demo readers: the slice and streaming readers agree chunk for chunk and on the
/// error; a prefix yields what the whole yields up to the cut; every payload decodes or
/// fails cleanly and re-encodes to itself when its ints are canonical; summary, validation,
/// snapshot replay and map extraction run to an end; a repair gives a file that reads to
/// its end and that a second repair leaves alone.
pub fn twdemo_read(data: &[u8]) {
    let (items, error) = tw_slice(data);
    let stream = tw_stream(data, data.len());
    assert_eq!(
        (&items, &error),
        (&stream.0, &stream.1),
        "twdemo: slice and streaming readers differ"
    );
    if let Some((offset, _)) = &error {
        assert!(
            *offset <= data.len() as u64,
            "twdemo: error offset past the end"
        );
    }
    let cut = cut_point(data);
    let (cut_items, cut_error) = tw_slice(&data[..cut]);
    check_prefix("twdemo", &items, &cut_items, cut);
    // A demo has no end marker: a cut between chunks reads cleanly, one inside a chunk
    // must not.
    if items
        .iter()
        .any(|(start, end, _)| *start < cut as u64 && (cut as u64) < *end)
    {
        assert!(
            cut_error.is_some(),
            "twdemo: a cut inside a chunk reads cleanly"
        );
    }

    let mut decoder = tw::PayloadDecoder::new();
    let mut encoder = tw::PayloadEncoder::new();
    for (_, _, item) in &items {
        let TwItem::Data { payload, .. } = item else {
            continue;
        };
        let Ok(decoded) = decoder.decode(payload) else {
            continue;
        };
        // Re-encoding gives a payload of the same length under the stored length rule that
        // decodes to the same ints. (The bytes themselves can differ: the bits after the
        // Huffman EOF code, and the high bits of a fifth int byte, are ignored by readers.)
        if let Some(rule) = decoded.length_rule(payload.len()) {
            let ints = decoded.ints.to_vec();
            let encoded = encoder.encode(&ints, rule).to_vec();
            if decoded.non_canonical_ints == 0 {
                assert_eq!(encoded.len(), payload.len(), "twdemo: re-encoded length");
            }
            let mut again = tw::PayloadDecoder::new();
            assert_eq!(
                again.decode(&encoded).map(|d| d.ints.to_vec()).ok(),
                Some(ints),
                "twdemo: a re-encoded payload decodes to other ints"
            );
        }
    }

    let _ = tw::Summary::scan(data);
    let report = tw::edit::validate::validate(data);
    if error.is_some() {
        assert!(
            !report.accepted(),
            "twdemo: validate accepts a file that does not read"
        );
    }
    let _ = tw::edit::repair::extract_map(data);
    if let Ok(slice) = tw::DemoSlice::parse(data) {
        let mut replay = tw::snapshot::replay::SnapshotReplay::new(&slice);
        let mut ticks = 0usize;
        while let Some(tick) = replay.next() {
            ticks += 1;
            assert!(
                ticks <= items.len() + 1,
                "twdemo: replay yields more ticks than chunks"
            );
            if tick.is_err() {
                break;
            }
        }
    }
    let mut repaired = Vec::new();
    if tw::edit::repair::repair(data, &mut repaired).is_ok() {
        let (r_items, r_error) = tw_slice(&repaired);
        assert!(
            r_error.is_none(),
            "twdemo: repaired file does not read: {r_error:?}"
        );
        assert!(r_items.len() <= items.len() + 1);
        let mut again = Vec::new();
        let report =
            tw::edit::repair::repair(&repaired, &mut again).expect("repaired file repairs");
        assert!(
            !report.changed(),
            "twdemo: a second repair changes the file"
        );
        assert_eq!(again, repaired, "twdemo: a second repair changes the file");
    }
}

/// Round trip: a demo that reads completely is written back byte for byte, both through
/// the owned [`tw::Demo`] and through the chunk-by-chunk rewrite.
pub fn twdemo_roundtrip(data: &[u8]) {
    let Ok(demo) = tw::Demo::from_bytes(data) else {
        return;
    };
    let bytes = demo
        .to_bytes()
        .expect("twdemo: a demo that reads does not write");
    assert!(
        bytes == data,
        "twdemo: Demo::to_bytes differs from the input"
    );
    let (out, _) = tw::container::demo::rewrite(data, Vec::new())
        .unwrap_or_else(|(_, e)| panic!("twdemo: rewrite of a demo that reads fails: {e}"));
    assert!(out == data, "twdemo: rewrite differs from the input");
    assert_eq!(tw::Demo::from_bytes(&bytes).ok(), Some(demo));
}

/// The editing tools on any input: conversion to every version gives a file that reads
/// with the same data chunks; a trim gives a file that reads; neither panics.
pub fn twdemo_tools(data: &[u8]) {
    let (items, error) = tw_slice(data);
    let data_chunks = |items: &[(u64, u64, TwItem)]| -> Vec<(tw::ChunkKind, Vec<u8>)> {
        items
            .iter()
            .filter_map(|(_, _, i)| match i {
                TwItem::Data { kind, payload } => Some((*kind, payload.clone())),
                TwItem::Tick(_) => None,
            })
            .collect()
    };
    for version in 3..=6 {
        if let Ok((converted, _)) = tw::edit::convert::convert(data, version) {
            let (c_items, c_error) = tw_slice(&converted);
            assert!(
                c_error.is_none() && error.is_none(),
                "twdemo: convert to v{version} gives {c_error:?} from an input with {error:?}"
            );
            assert_eq!(
                data_chunks(&c_items),
                data_chunks(&items),
                "twdemo: convert to v{version} changes data chunks"
            );
        }
    }
    let ticks: Vec<i32> = items
        .iter()
        .filter_map(|(_, _, i)| match i {
            TwItem::Tick(m) => Some(m.tick),
            TwItem::Data { .. } => None,
        })
        .collect();
    if let (Some(&first), Some(&last)) = (ticks.get(ticks.len() / 3), ticks.last()) {
        for (from, to) in [(first, last), (first, first), (last, first)] {
            let mut trimmed = Vec::new();
            let range = demokit::time::TickRange::new(from, to);
            if tw::edit::trim::trim(data, range, &mut trimmed).is_ok() {
                let (_, t_error) = tw_slice(&trimmed);
                assert!(
                    t_error.is_none(),
                    "twdemo: trim {from}..={to} gives a file that does not read: {t_error:?}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Teehistorian

/// One message as the harness compares it.
#[derive(Debug, PartialEq, Eq)]
struct ThItem {
    tick: i32,
    raw: Vec<u8>,
    non_canonical: u32,
    debug: String,
}

fn th_item(at: &th::MessageAt<'_>) -> (u64, u64, ThItem) {
    (
        at.offset,
        at.end(),
        ThItem {
            tick: at.tick,
            raw: at.raw.to_vec(),
            non_canonical: at.non_canonical,
            debug: format!("{:?}", at.message),
        },
    )
}

fn th_slice(data: &[u8]) -> Reading<ThItem> {
    let slice = match th::TeehistorianSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(described(e.offset, &e))),
    };
    let mut items = Vec::new();
    for item in slice.messages() {
        match item {
            Ok(at) => items.push(th_item(&at)),
            Err(e) => return (items, Some(described(e.offset, &e))),
        }
    }
    (items, None)
}

/// [`th_slice`] through the lending [`th::Messages::next_ref`].
fn th_lent(data: &[u8]) -> Reading<ThItem> {
    let slice = match th::TeehistorianSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(described(e.offset, &e))),
    };
    let mut items = Vec::new();
    let mut messages = slice.messages();
    while let Some(item) = messages.next_ref() {
        match item {
            Ok(at) => items.push(th_item(at)),
            Err(e) => return (items, Some(described(e.offset, &e))),
        }
    }
    (items, None)
}

fn th_stream(data: &[u8], seed: usize) -> Reading<ThItem> {
    let mut reader = match th::TeehistorianReader::new(Dribble::new(data, seed)) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(described(e.offset, &e))),
    };
    let mut items = Vec::new();
    while let Some(item) = reader.next() {
        match item {
            Ok(at) => items.push(th_item(&at)),
            Err(e) => return (items, Some(described(e.offset, &e))),
        }
    }
    (items, None)
}

/// The teehistorian readers: slice and streaming readers agree message for message and on
/// the error; a prefix yields what the whole yields up to the cut; the summary (both ways)
/// agrees with the messages; validation and the semantic layer run to an end.
pub fn teehistorian_read(data: &[u8]) {
    let (items, error) = th_slice(data);
    let stream = th_stream(data, data.len());
    assert_eq!(
        (&items, &error),
        (&stream.0, &stream.1),
        "teehistorian: slice and streaming readers differ"
    );
    let lent = th_lent(data);
    assert_eq!(
        (&items, &error),
        (&lent.0, &lent.1),
        "teehistorian: next and next_ref differ"
    );
    if let Some((offset, _)) = &error {
        assert!(
            *offset <= data.len() as u64,
            "teehistorian: error offset past the end"
        );
    }
    for pair in items.windows(2) {
        assert_eq!(
            pair[0].1, pair[1].0,
            "teehistorian: messages do not follow each other"
        );
    }
    let cut = cut_point(data);
    let (cut_items, cut_error) = th_slice(&data[..cut]);
    check_prefix("teehistorian", &items, &cut_items, cut);
    if cut < data.len() && cut_items.len() < items.len() {
        // A cut on a message boundary is an unfinished file, which reads cleanly; any
        // other cut is an error.
        let body_start = th::TeehistorianSlice::parse(data).map(|s| s.body_offset() as u64);
        let boundary = cut_items.last().map(|item| item.1).or(body_start.ok());
        assert!(
            cut_error.is_some() || boundary == Some(cut as u64),
            "teehistorian: a cut inside a message reads cleanly"
        );
    }

    let scanned = th::Summary::scan(data);
    let streamed = th::Summary::scan_reader(Dribble::new(data, 3));
    match (&scanned, &streamed) {
        (Ok((a, ae)), Ok((b, be))) => {
            assert_eq!(a, b, "teehistorian: summaries differ");
            assert_eq!(
                ae.as_ref().map(|e| described(e.offset, e)),
                be.as_ref().map(|e| described(e.offset, e))
            );
            assert_eq!(
                a.messages,
                items.len() as u64,
                "teehistorian: summary counts other messages"
            );
        }
        (Err(a), Err(b)) => assert_eq!(described(a.offset, a), described(b.offset, b)),
        _ => panic!("teehistorian: summary from slice and stream disagree"),
    }
    let report = th::summary::validate(data);
    if error.is_some() {
        assert!(
            !report.accepted(),
            "teehistorian: validate accepts a file that does not read"
        );
    }
    if let Ok(slice) = th::TeehistorianSlice::parse(data) {
        let mut events = th::Events::new(slice.messages());
        let mut n = 0usize;
        for event in events.by_ref() {
            n += 1;
            // At most a tick start and end around each message, plus the file's end.
            assert!(n <= 3 * items.len() + 3, "teehistorian: events do not end");
            if event.is_err() {
                break;
            }
        }
    }
}

/// Round trip: a file that reads without error is written back byte for byte, and every
/// message whose ints are canonical encodes to its stored bytes.
pub fn teehistorian_roundtrip(data: &[u8]) {
    let Ok((bytes, _)) = th::rewrite(data, Vec::new()) else {
        return;
    };
    assert!(
        bytes == data,
        "teehistorian: rewrite differs from the input"
    );
}

// ---------------------------------------------------------------------------------------
// Source demos

#[derive(Debug, PartialEq, Eq)]
struct SrcItem {
    /// The stop command, whose tail is everything after it.
    stop: bool,
    debug: String,
}

fn src_item(at: &source::FrameAt<'_>) -> (u64, u64, SrcItem) {
    (
        at.offset,
        at.offset + at.len as u64,
        SrcItem {
            stop: matches!(at.frame.body, source::Body::Stop { .. }),
            debug: format!("{:?}", at.frame),
        },
    )
}

/// The frames before the stop command: the stop's tail runs to the end of the input, so a
/// prefix has a shorter one.
fn before_stop<T>(items: &[(u64, u64, T)], is_stop: impl Fn(&T) -> bool) -> &[(u64, u64, T)] {
    let end = items
        .iter()
        .position(|i| is_stop(&i.2))
        .unwrap_or(items.len());
    &items[..end]
}

fn src_slice(data: &[u8]) -> Reading<SrcItem> {
    let slice = match source::SourceSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(described(e.offset, &e))),
    };
    let mut items = Vec::new();
    for item in slice.frames() {
        match item {
            Ok(at) => items.push(src_item(&at)),
            Err(e) => return (items, Some(described(e.offset, &e))),
        }
    }
    (items, None)
}

fn src_stream(data: &[u8], seed: usize) -> Reading<SrcItem> {
    let mut reader = match source::SourceReader::new(Dribble::new(data, seed)) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(described(e.offset, &e))),
    };
    let mut items = Vec::new();
    while let Some(item) = reader.next() {
        match item {
            Ok(at) => items.push(src_item(&at)),
            Err(e) => return (items, Some(described(e.offset, &e))),
        }
    }
    (items, None)
}

/// The Source readers: slice and streaming readers agree frame for frame and on the error
/// (when both settle on the same profile); a prefix yields what the whole yields up to the
/// cut; summary and validation run; a repair gives a file that reads to its stop command
/// and that a second repair leaves alone.
pub fn source_read(data: &[u8]) {
    let (items, error) = src_slice(data);
    let stream = src_stream(data, data.len());
    assert_eq!(
        (&items, &error),
        (&stream.0, &stream.1),
        "source: slice and streaming readers differ"
    );
    if let Some((offset, _)) = &error {
        assert!(
            *offset <= data.len() as u64,
            "source: error offset past the end"
        );
    }
    for pair in items.windows(2) {
        assert_eq!(
            pair[0].1, pair[1].0,
            "source: frames do not follow each other"
        );
    }
    // A prefix may settle on another profile when the header leaves it open (the frames
    // decide), so the prefix property holds only for a profile the header names.
    if let Ok(whole) = source::SourceSlice::parse(data) {
        let cut = cut_point(data);
        if let Ok(part) = source::SourceSlice::parse(&data[..cut])
            && part.profile() == whole.profile()
        {
            let (cut_items, _) = src_slice(&data[..cut]);
            let is_stop = |i: &SrcItem| i.stop;
            check_prefix(
                "source",
                before_stop(&items, is_stop),
                before_stop(&cut_items, is_stop),
                cut,
            );
        }
    }

    let scanned = source::summary::Summary::scan(data);
    let streamed = source::summary::Summary::scan_reader(Dribble::new(data, 5));
    match (&scanned, &streamed) {
        (Ok((a, ae)), Ok((b, be))) => {
            // Compared as text: a header's playback time can be NaN, which is not equal to
            // itself.
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "source: summaries differ"
            );
            assert_eq!(
                ae.as_ref().map(|e| described(e.offset, e)),
                be.as_ref().map(|e| described(e.offset, e))
            );
        }
        (Err(a), Err(b)) => assert_eq!(described(a.offset, a), described(b.offset, b)),
        _ => panic!("source: summary from slice and stream disagree"),
    }
    let _ = source::summary::validate(data);
    let options = source::repair::RepairOptions::default();
    let mut repaired = Vec::new();
    if source::repair::repair(data, &options, &mut repaired).is_ok() {
        let (r_items, r_error) = src_slice(&repaired);
        assert!(
            r_error.is_none(),
            "source: repaired file does not read: {r_error:?}"
        );
        assert!(
            !r_items.is_empty(),
            "source: repaired file has no stop command"
        );
        let mut again_bytes = Vec::new();
        source::repair::repair(&repaired, &options, &mut again_bytes)
            .expect("source: a repaired file repairs");
        // A second repair changes nothing, as long as the repaired file is read with the
        // profile the repair used. When the header leaves the profile open, the first
        // frames settle it (or it is guessed); the repaired frames (cut, a stop appended)
        // can settle another one, under which they are other frames: then there is
        // nothing the repair could keep. A profile the header decides cannot change.
        let profile = |bytes: &[u8]| {
            source::SourceSlice::parse(bytes).map(|s| (*s.profile(), s.profile_origin()))
        };
        let (before, after) = (profile(data), profile(&repaired));
        let same_profile = matches!((&before, &after), (Ok(b), Ok(a)) if b.0 == a.0);
        if same_profile {
            assert!(
                again_bytes == repaired,
                "source: a second repair changes the file"
            );
        } else {
            assert!(
                matches!(
                    before,
                    Ok((
                        _,
                        source::ProfileOrigin::Guessed | source::ProfileOrigin::Detected
                    ))
                ),
                "source: repair changed a profile the header decides: {before:?} -> {after:?}"
            );
        }
    }
}

/// Round trip: a demo that reads to its stop command is written back byte for byte.
pub fn source_roundtrip(data: &[u8]) {
    let mut out = Vec::new();
    if source::rewrite(data, &mut out).is_ok() {
        assert!(out == data, "source: rewrite differs from the input");
    }
}

// ---------------------------------------------------------------------------------------
// Codecs

/// Huffman: decoding any bytes under any output limit never exceeds the limit and, on
/// error, leaves the output as it was; what decodes compresses (under both length rules)
/// to bytes that decode to the same output; any bytes compress and decompress to
/// themselves, at the predicted length.
pub fn huffman(data: &[u8]) {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let limit = match selector % 4 {
        0 => 0,
        1 => usize::from(selector),
        2 => 4096,
        _ => 65536,
    };
    let mut out = vec![0xAB; 3];
    match huffman::decompress(input, &mut out, limit) {
        Ok(decoded) => {
            assert!(out.len() - 3 <= limit, "huffman: output beyond the limit");
            assert!(
                decoded.bits <= input.len() * 8,
                "huffman: more bits than input"
            );
            let plain = out[3..].to_vec();
            for rule in [LengthRule::Tight, LengthRule::TrailingByte] {
                let mut packed = Vec::new();
                huffman::compress(&plain, rule, &mut packed);
                let mut again = Vec::new();
                huffman::decompress(&packed, &mut again, plain.len())
                    .expect("huffman: own output does not decode");
                assert_eq!(again, plain, "huffman: round trip of decoded bytes");
            }
        }
        Err(_) => assert_eq!(out, [0xAB; 3], "huffman: output changed on error"),
    }
    for rule in [LengthRule::Tight, LengthRule::TrailingByte] {
        let mut packed = Vec::new();
        huffman::compress(input, rule, &mut packed);
        assert_eq!(packed.len(), huffman::compressed_len(input, rule));
        let mut plain = Vec::new();
        let decoded = huffman::decompress(&packed, &mut plain, input.len())
            .expect("huffman: own output does not decode");
        assert_eq!(plain, input, "huffman: round trip of any bytes");
        assert_eq!(decoded.bits, huffman::compressed_bits(input));
        assert_eq!(decoded.len_under(rule), packed.len());
    }
}

/// Variable-width ints: every way of reading agrees (one at a time, a whole buffer, the
/// branch-free word reader), canonical forms pack back to their bytes, and every int read
/// packs and reads back to itself.
pub fn varint(data: &[u8]) {
    let limit = data.first().map_or(0, |&b| usize::from(b) * 4);
    let mut all = Vec::new();
    let bulk = varint::unpack_ints(data, &mut all, limit);
    let mut pos = 0;
    let mut one_by_one = Vec::new();
    let mut non_canonical = 0;
    while pos < data.len() && one_by_one.len() < limit {
        let Some((value, len)) = varint::unpack(&data[pos..]) else {
            break;
        };
        assert!((1..=varint::MAX_BYTES).contains(&len) && pos + len <= data.len());
        let mut word = [0u8; 8];
        let avail = (data.len() - pos).min(8);
        word[..avail].copy_from_slice(&data[pos..pos + avail]);
        let (w_value, w_len, w_last) = varint::unpack_word(u64::from_le_bytes(word));
        assert_eq!(
            (w_value, w_len),
            (value, len),
            "varint: word reader differs"
        );
        assert_eq!(w_last, data[pos + len - 1]);
        let mut buf = [0u8; varint::MAX_BYTES];
        let n = varint::pack(value, &mut buf);
        assert_eq!(n, varint::packed_len(value));
        assert_eq!(varint::unpack(&buf[..n]), Some((value, n)));
        if varint::is_canonical(value, &data[pos..pos + len]) {
            assert_eq!(
                &buf[..n],
                &data[pos..pos + len],
                "varint: canonical form differs"
            );
        } else {
            non_canonical += 1;
        }
        one_by_one.push(value);
        pos += len;
    }
    assert_eq!(all, one_by_one, "varint: bulk and single reads differ");
    if let Ok(count) = bulk {
        assert_eq!(count, non_canonical);
        assert_eq!(pos, data.len());
    }
    let mut packed = Vec::new();
    varint::pack_ints(&all, &mut packed);
    let mut back = Vec::new();
    assert_eq!(varint::unpack_ints(&packed, &mut back, all.len()), Ok(0));
    assert_eq!(back, all);
    let mut words = Vec::new();
    varint::pad_to_words(data, &mut words);
    assert_eq!(words.len(), data.len().div_ceil(4));
}

/// Snapshots and deltas: any ints parse as a snapshot or fail cleanly; a delta applied to
/// a valid snapshot gives a valid snapshot or a typed error; what applies can be expressed
/// again: the delta created between the two snapshots rebuilds the same snapshot.
///
/// Input: a byte choosing the item-size table, a byte pair for the snapshot's int count,
/// then little-endian ints (the snapshot, then the delta).
pub fn snapshot_delta(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let sizes = match data[0] % 3 {
        0 => tw::ItemSizes::DDNET_0_6,
        1 => tw::ItemSizes::TEEWORLDS_0_7,
        _ => tw::snapshot::delta::ItemSizes::NONE,
    };
    let ints: Vec<i32> = data[3..]
        .chunks_exact(4)
        .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let split = usize::from(u16::from_le_bytes([data[1], data[2]])).min(ints.len());
    let (from_ints, delta) = ints.split_at(split);
    let Ok(from) = tw::Snapshot::parse(from_ints) else {
        return;
    };
    // Every item the parse accepted lies inside the input.
    for item in from.items() {
        assert!(item.data.len() <= from_ints.len());
    }
    let _ = tw::snapshot::delta::Delta::parse(delta, &sizes);
    let Ok(to) = tw::apply_delta(&from, delta, &sizes) else {
        return;
    };
    let to = to.as_snapshot();
    tw::Snapshot::parse(to.as_ints()).expect("snapshot_delta: apply gives an invalid snapshot");
    // The builder renumbers extended item types, which can give a key of `from` another
    // size in `to`; no DDNet delta can express that (its reader refuses it, -207), so
    // such a pair has no delta to rebuild it from.
    if to.items().any(|i| {
        from.find(i.key)
            .is_some_and(|o| o.data.len() != i.data.len())
    }) {
        return;
    }
    // Nor can a delta name one of two items that share a key (DDNet's checks let such
    // snapshots through; its delta code finds the first).
    let has_duplicate_keys = |snap: &tw::Snapshot<'_>| {
        let mut keys: Vec<i32> = snap.items().map(|i| i.key).collect();
        keys.sort_unstable();
        keys.windows(2).any(|w| w[0] == w[1])
    };
    if has_duplicate_keys(&from) || has_duplicate_keys(&to) {
        return;
    }
    let again = tw::create_delta(&from, &to, &sizes);
    let rebuilt = tw::apply_delta(&from, &again, &sizes)
        .expect("snapshot_delta: a created delta does not apply");
    assert_eq!(
        rebuilt.as_ints(),
        to.as_ints(),
        "snapshot_delta: create then apply does not rebuild the snapshot"
    );
}

// ---------------------------------------------------------------------------------------
// Source entities

/// Source entities and the bit layer: a whole demo's data tables flatten and its entity
/// updates decode or fail with a typed error; a data tables frame that decodes encodes
/// back to its bytes; an update or baseline of any bits against any tables decodes or
/// fails cleanly; values the bit reader reads write back and read again the same.
///
/// Input: a demo, or a byte choosing the branch (its high bits: the update's baseline
/// flags), four bytes of the tables' length, the data tables frame, then the update's
/// bits (the first byte is also its entity count).
pub fn source_entity(data: &[u8]) {
    use demokit::codec::bits::{BitReader, BitWriter};
    use demokit::source::entity::{
        DataTables, EntityState, ServerClasses, decode_baseline, players, temp_entities,
    };
    use demokit::source::net::message::PacketEntities;
    use demokit::source::net::{Branch, NetMessage, Protocol};

    // The bit layer: each value read writes back to bits that read the same value.
    let mut r = BitReader::new(data);
    let mut w = BitWriter::new();
    let mut values = Vec::new();
    while r.remaining() > 0 {
        let Ok(op) = r.read(2) else { break };
        let value = match op {
            0 => r.read_ubitvar().map(u64::from),
            1 => r.read_varint32().map(u64::from),
            2 => r.read_u64(r.remaining().min(64) as u32),
            _ => r.read_signed(13).map(|v| v as u64),
        };
        let Ok(value) = value else { break };
        values.push((op, value));
        w.write(op, 2);
        match op {
            0 => w.write_ubitvar(value as u32),
            1 => w.write_varint32(value as u32),
            2 => {}
            _ => w.write_signed(value as i32, 13),
        }
        if op == 2 {
            break;
        }
    }
    let written = w.finish();
    let mut again = written.reader();
    for &(op, value) in &values {
        assert_eq!(
            again.read(2),
            Ok(op),
            "bits: an op written does not read back"
        );
        let back = match op {
            0 => again.read_ubitvar().map(u64::from),
            1 => again.read_varint32().map(u64::from),
            2 => break,
            _ => again.read_signed(13).map(|v| v as u64),
        };
        assert_eq!(back, Ok(value), "bits: a value written does not read back");
    }

    // A whole demo.
    if let Ok(slice) = source::SourceSlice::parse(data)
        && let Some(mut state) = source::net::state::NetState::of_header(slice.header())
    {
        let mut classes = None;
        let mut entities = EntityState::new();
        for frame in slice.frames() {
            let Ok(frame) = frame else { break };
            match &frame.frame.body {
                source::Body::DataTables(bytes) => {
                    if let Ok(tables) = DataTables::decode(bytes, state.protocol) {
                        assert_eq!(
                            tables.encode(state.protocol).as_deref(),
                            Ok(&bytes[..]),
                            "entity: data tables do not encode back"
                        );
                        classes = ServerClasses::new(tables, state.protocol).ok();
                    }
                }
                source::Body::StringTables(bytes) => {
                    let _ = state.apply_string_tables_frame(bytes);
                }
                source::Body::Signon(p) | source::Body::Packet(p) => {
                    let mut messages = state.messages(p.data);
                    let decoded: Vec<_> = messages.by_ref().filter_map(Result::ok).collect();
                    state.learned(&messages);
                    for m in decoded {
                        let _ = state.apply(&m.message);
                        if let (NetMessage::TempEntities(te), Some(classes)) =
                            (&m.message, &classes)
                        {
                            let _ = temp_entities(te.count, &te.data, classes);
                        }
                        if let (NetMessage::PacketEntities(update), Some(classes)) =
                            (&m.message, &classes)
                            && entities
                                .apply(update, classes, state.table("instancebaseline"))
                                .is_ok()
                        {
                            let _ = players(&entities, classes);
                        }
                    }
                }
                _ => {}
            }
        }
        return;
    }

    // Tables and an update from the bytes.
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let protocols = [
        (Branch::Classic, 7, 7),
        (Branch::Classic, 14, 14),
        (Branch::Classic, 15, 15),
        (Branch::Classic, 24, 24),
        (Branch::Left4Dead, 1040, 1040),
        (Branch::Left4Dead2, 2042, 2091),
        (Branch::Left4Dead2, 2027, 2027),
        (Branch::Portal2, 2001, 2001),
    ];
    let (branch, network, build) = protocols[usize::from(selector) % protocols.len()];
    let protocol = Protocol {
        branch,
        network,
        build,
        table_index_bits: 5,
        table_index_bits_known: true,
    };
    let Some((len, rest)) = rest.split_first_chunk::<4>() else {
        return;
    };
    let len = (u32::from_le_bytes(*len) as usize).min(rest.len());
    let (frame, update) = rest.split_at(len);
    let Ok(tables) = DataTables::decode(frame, protocol) else {
        return;
    };
    assert_eq!(
        tables.encode(protocol).as_deref(),
        Ok(frame),
        "entity: data tables do not encode back"
    );
    let Ok(classes) = ServerClasses::new(tables, protocol) else {
        return;
    };
    let bits = demokit::codec::bits::Bits::from_bytes(update.to_vec());
    for class in classes.classes.iter().take(4) {
        let _ = decode_baseline(&bits, class, protocol);
    }
    let _ = temp_entities(selector & 0x3f, &bits, &classes);
    let mut entities = EntityState::new();
    for delta_from in [None, Some(1)] {
        let message = PacketEntities {
            max_entries: 2047,
            delta_from,
            baseline: selector & 0x80 != 0,
            updated: u16::from(update.first().copied().unwrap_or(0)),
            update_baseline: selector & 0x40 != 0,
            data: bits.clone(),
        };
        if entities.apply(&message, &classes, None).is_ok() {
            let _ = players(&entities, &classes);
        }
    }
}

/// A recording of any format made into pictures and a page, as `render` and `report` make
/// them (PNG and SVG, with and without a heat map, the page's HTML): never a panic, a
/// hang or an allocation sized by the input beyond what a picture can hold, and the page
/// keeps its structure (its two script elements) whatever the recording's text.
///
/// Input: a recording (the first byte also picks the picture's size, 64 to 319 pixels a
/// side).
pub fn render_page(data: &[u8]) {
    use demokit::page::PageOptions;
    use demokit::recording::Recording;
    use demokit::render::RenderOptions;
    let Ok(recording) = Recording::from_bytes(data.to_vec()) else {
        return;
    };
    let side = 64 + u32::from(data.first().copied().unwrap_or(0));
    for heatmap in [false, true] {
        let mut options = RenderOptions::default();
        options.size = (side, side * 3 / 4);
        options.heatmap = heatmap;
        if let Ok(scene) = recording.scene(&options) {
            assert!(scene.to_png().starts_with(b"\x89PNG"));
            assert!(scene.to_svg().starts_with("<svg"));
        }
    }
    let mut options = PageOptions::default();
    options.render.size = (side, side * 3 / 4);
    options.max_samples = 5_000;
    if let Ok(page) = recording.page(&options) {
        assert_eq!(page.to_html().matches("</script>").count(), 2);
    }
}
