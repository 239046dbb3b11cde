//! Reads every file in `fixtures/malformed/` (made by `tests/robustness/malformed_corpus.rs`) to the
//! end with the matching slice reader, decoding twdemo payloads too, and checks the outcome
//! the table below names for it: the items delivered, then the error kind and its byte
//! offset, or a clean end for inputs that are odd but legal. The streaming readers must
//! agree, and no single allocation, nor the heap live at once, may reach 64 MB.

use crate::common;

use demokit::codec::huffman::HuffmanError;
use demokit::codec::varint::VarIntError;
use demokit::{source, teehistorian as th, twdemo as tw};
use std::path::PathBuf;

/// How reading a file ended: items delivered, then an error (offset and kind) or none.
#[derive(Debug)]
enum Outcome {
    Tw(usize, Option<tw::ReadError>),
    Th(usize, Option<th::ReadError>),
    Src(usize, Option<source::ReadError>),
}

fn read_tw(data: &[u8]) -> Outcome {
    let slice = match tw::DemoSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return Outcome::Tw(0, Some(e)),
    };
    let mut decoder = tw::PayloadDecoder::new();
    let mut n = 0;
    for item in slice.chunks() {
        let c = match item {
            Ok(c) => c,
            Err(e) => return Outcome::Tw(n, Some(e)),
        };
        if let tw::Chunk::Data(d) = c.chunk
            && let Err(e) = decoder.decode(d.payload)
        {
            let kind = tw::ReadErrorKind::Payload(e);
            return Outcome::Tw(
                n,
                Some(tw::ReadError {
                    offset: c.offset,
                    kind,
                }),
            );
        }
        n += 1;
    }
    Outcome::Tw(n, None)
}

fn read_th(data: &[u8]) -> Outcome {
    let slice = match th::TeehistorianSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return Outcome::Th(0, Some(e)),
    };
    let mut n = 0;
    for item in slice.messages() {
        match item {
            Ok(_) => n += 1,
            Err(e) => return Outcome::Th(n, Some(e)),
        }
    }
    Outcome::Th(n, None)
}

fn read_src(data: &[u8]) -> Outcome {
    let slice = match source::SourceSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return Outcome::Src(0, Some(e)),
    };
    let mut n = 0;
    for item in slice.frames() {
        match item {
            Ok(_) => n += 1,
            Err(e) => return Outcome::Src(n, Some(e)),
        }
    }
    Outcome::Src(n, None)
}

fn read(name: &str, data: &[u8]) -> Outcome {
    if name.ends_with(".demo") {
        read_tw(data)
    } else if name.ends_with(".teehistorian") {
        read_th(data)
    } else if name.ends_with(".dem") {
        read_src(data)
    } else {
        panic!("{name}: unknown extension")
    }
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/malformed")
}

/// The streaming readers over the same bytes: items and error, as [`read`] gives them.
fn read_stream(name: &str, data: &[u8]) -> Outcome {
    macro_rules! drain {
        ($variant:ident, $reader:expr) => {{
            let mut reader = match $reader {
                Ok(r) => r,
                Err(e) => return Outcome::$variant(0, Some(e)),
            };
            let mut n = 0;
            while let Some(item) = reader.next() {
                match item {
                    Ok(_) => n += 1,
                    Err(e) => return Outcome::$variant(n, Some(e)),
                }
            }
            Outcome::$variant(n, None)
        }};
    }
    if name.ends_with(".demo") {
        let mut reader = match tw::DemoReader::new(data) {
            Ok(r) => r,
            Err(e) => return Outcome::Tw(0, Some(e)),
        };
        let mut decoder = tw::PayloadDecoder::new();
        let mut n = 0;
        while let Some(item) = reader.next() {
            let c = match item {
                Ok(c) => c,
                Err(e) => return Outcome::Tw(n, Some(e)),
            };
            if let tw::Chunk::Data(d) = c.chunk
                && let Err(e) = decoder.decode(d.payload)
            {
                let kind = tw::ReadErrorKind::Payload(e);
                return Outcome::Tw(
                    n,
                    Some(tw::ReadError {
                        offset: c.offset,
                        kind,
                    }),
                );
            }
            n += 1;
        }
        Outcome::Tw(n, None)
    } else if name.ends_with(".teehistorian") {
        drain!(Th, th::TeehistorianReader::new(data))
    } else {
        drain!(Src, source::SourceReader::new(data))
    }
}

/// What a case expects of the error.
#[derive(Clone, Copy)]
enum Check {
    Tw(fn(&tw::ReadErrorKind) -> bool),
    Th(fn(&th::ReadErrorKind) -> bool),
    Src(fn(&source::ReadErrorKind) -> bool),
}

/// One file and its expected outcome: `items` chunks, messages or frames delivered, then
/// `error` (its offset, the kind as written in the table, and the check), or a clean end.
struct Case {
    name: &'static str,
    items: usize,
    error: Option<(u64, &'static str, Check)>,
}

macro_rules! ok {
    ($name:literal, $items:literal) => {
        Case {
            name: $name,
            items: $items,
            error: None,
        }
    };
}

macro_rules! tw {
    ($name:literal, $items:literal, $offset:literal, $($kind:tt)+) => {
        Case {
            name: $name,
            items: $items,
            error: Some((
                $offset,
                stringify!($($kind)+),
                Check::Tw(|k| matches!(k, tw::ReadErrorKind::$($kind)+)),
            )),
        }
    };
}

macro_rules! th {
    ($name:literal, $items:literal, $offset:literal, $($kind:tt)+) => {
        Case {
            name: $name,
            items: $items,
            error: Some((
                $offset,
                stringify!($($kind)+),
                Check::Th(|k| matches!(k, th::ReadErrorKind::$($kind)+)),
            )),
        }
    };
}

macro_rules! src {
    ($name:literal, $items:literal, $offset:literal, $($kind:tt)+) => {
        Case {
            name: $name,
            items: $items,
            error: Some((
                $offset,
                stringify!($($kind)+),
                Check::Src(|k| matches!(k, source::ReadErrorKind::$($kind)+)),
            )),
        }
    };
}

/// Every file in `fixtures/malformed/` and what reading it gives.
///
/// Offsets in the files: a version-6 demo's map starts at 484 and, with the 32-byte map,
/// its chunks at 516 (468 and 208 for versions 5/4 and 3 made without chunks); the
/// teehistorian header ends at 75 (a JSON header of "2" with a map and server name); a
/// Source demo's frames start at 1072, after a 5-byte synctick frame at 1077.
#[rustfmt::skip]
fn cases() -> Vec<Case> {
    vec![
    ok!("src-bytes-after-stop.dem", 6),
    src!("src-classic-unknown-command-8.dem", 1, 1077, UnknownCommand { command: 8, table: source::CommandTable::Classic }),
    src!("src-consolecmd-length-i32-max.dem", 1, 1077, PayloadTooLong { what: "the console command", length: 2147483647 }),
    ok!("src-consolecmd-unterminated.dem", 3),
    src!("src-cut-in-frame-header.dem", 0, 1072, UnexpectedEnd { expected: "a frame header", available: 3 }),
    src!("src-cut-in-header.dem", 0, 0, UnexpectedEnd { expected: "the 1072-byte HL2DEMO header", available: 1000 }),
    src!("src-cut-in-packet-trailer.dem", 1, 1077, UnexpectedEnd { expected: "the packet sequence numbers and length", available: 89 }),
    src!("src-cut-in-payload.dem", 4, 1297, UnexpectedEnd { expected: "the user command", available: 13 }),
    src!("src-cut-in-usercmd-prefix.dem", 1, 1077, UnexpectedEnd { expected: "the user command's sequence and length", available: 9 }),
    src!("src-cut-in-view-info.dem", 1, 1077, UnexpectedEnd { expected: "the view-info blocks", available: 45 }),
    ok!("src-demo-protocol-negative.dem", 6),
    src!("src-empty.dem", 0, 0, BadMagic { .. }),
    src!("src-goldsrc-stamp.dem", 0, 0, GoldSrc),
    src!("src-header-only.dem", 0, 1072, UnexpectedEnd { expected: "a command (the file ends without dem_stop)", available: 0 }),
    ok!("src-header-strings-unterminated.dem", 6),
    src!("src-l4d-cut-in-view-info.dem", 0, 1072, UnexpectedEnd { expected: "the view-info blocks", available: 234 }),
    src!("src-negative-consolecmd-length.dem", 1, 1077, NegativeLength { what: "the console command", value: -2147483648 }),
    src!("src-negative-datatables-length.dem", 0, 1072, NegativeLength { what: "the data tables", value: -1024 }),
    src!("src-negative-packet-length.dem", 1, 1077, NegativeLength { what: "the packet data", value: -1 }),
    src!("src-negative-stringtables-length.dem", 1, 1077, NegativeLength { what: "the string tables", value: -1 }),
    ok!("src-negative-tick.dem", 2),
    src!("src-negative-usercmd-length.dem", 1, 1077, NegativeLength { what: "the user command", value: -8 }),
    src!("src-no-stop.dem", 2, 1173, UnexpectedEnd { expected: "a command (the file ends without dem_stop)", available: 0 }),
    src!("src-packet-length-i32-max.dem", 1, 1077, PayloadTooLong { what: "the packet data", length: 2147483647 }),
    src!("src-packet-length-past-end.dem", 1, 1077, UnexpectedEnd { expected: "the packet data", available: 96 }),
    ok!("src-packet-length-zero.dem", 3),
    src!("src-portal2-customdata-length-past-end.dem", 0, 1072, UnexpectedEnd { expected: "the custom data", available: 24 }),
    src!("src-portal2-cut-before-slot-byte.dem", 0, 1072, UnexpectedEnd { expected: "a frame header", available: 5 }),
    src!("src-portal2-negative-customdata-length.dem", 0, 1072, NegativeLength { what: "the custom data", value: -1 }),
    src!("src-protocol3-unknown-command-9.dem", 1, 1077, UnknownCommand { command: 9, table: source::CommandTable::StringTables8 }),
    src!("src-source2-stamp.dem", 0, 0, Source2),
    src!("src-stamp-cut-4.dem", 0, 0, UnexpectedEnd { expected: "the 1072-byte HL2DEMO header", available: 4 }),
    src!("src-stamp-lowercase.dem", 0, 0, BadMagic { .. }),
    src!("src-stamp-missing-nul.dem", 0, 0, BadMagic { .. }),
    src!("src-stamp-only.dem", 0, 0, UnexpectedEnd { expected: "the 1072-byte HL2DEMO header", available: 8 }),
    ok!("src-stop-3-byte-tail.dem", 2),
    ok!("src-stop-tail-2000-bytes.dem", 2),
    ok!("src-stop-without-tail.dem", 2),
    src!("src-teehistorian-magic.dem", 0, 0, BadMagic { .. }),
    src!("src-twdemo-magic.dem", 0, 0, BadMagic { .. }),
    src!("src-unknown-command-0.dem", 1, 1077, UnknownCommand { command: 0, table: source::CommandTable::StringTables8 }),
    src!("src-unknown-command-10.dem", 1, 1077, UnknownCommand { command: 10, table: source::CommandTable::StringTables8 }),
    src!("src-unknown-command-255.dem", 0, 1072, UnknownCommand { command: 255, table: source::CommandTable::StringTables8 }),
    th!("th-bytes-after-finish.teehistorian", 7, 108, DataAfterFinish { len: 3 }),
    th!("th-console-command-arg-count-i32-max.teehistorian", 0, 75, UnexpectedEnd { expected: "the rest of the CONSOLE_COMMAND message", available: 15 }),
    th!("th-console-command-arg-count-negative.teehistorian", 0, 75, NegativeLength { what: "CONSOLE_COMMAND args count", value: -2 }),
    th!("th-console-command-unterminated-name.teehistorian", 0, 75, UnexpectedEnd { expected: "the rest of the CONSOLE_COMMAND message", available: 6 }),
    // Unfinished files (no FINISH, ending on a message boundary) read to their end.
    ok!("th-cut-before-finish.teehistorian", 6),
    th!("th-cut-in-input-new.teehistorian", 1, 77, UnexpectedEnd { expected: "the rest of the INPUT_NEW message", available: 7 }),
    th!("th-cut-in-player-new.teehistorian", 0, 75, UnexpectedEnd { expected: "the rest of the PLAYER_NEW message", available: 4 }),
    th!("th-drop-unterminated-reason.teehistorian", 1, 77, UnexpectedEnd { expected: "the rest of the DROP message", available: 9 }),
    th!("th-empty.teehistorian", 0, 0, UnexpectedEnd { expected: "the 16-byte teehistorian UUID", available: 0 }),
    th!("th-ex-cut-in-uuid.teehistorian", 0, 75, UnexpectedEnd { expected: "the rest of the EX message", available: 8 }),
    th!("th-ex-size-i32-max.teehistorian", 0, 75, MessageTooLong { at_least: 2147483669 }),
    th!("th-ex-size-negative.teehistorian", 0, 75, NegativeLength { what: "EX size", value: -100 }),
    ok!("th-ex-unknown-uuid.teehistorian", 2),
    th!("th-finish-twice.teehistorian", 7, 108, DataAfterFinish { len: 1 }),
    th!("th-header-duplicate-version.teehistorian", 0, 16, Header(th::HeaderError::Json(_))),
    th!("th-header-empty.teehistorian", 0, 16, Header(th::HeaderError::Json(_))),
    ok!("th-header-invalid-utf8-in-value.teehistorian", 1),
    th!("th-header-json-array.teehistorian", 0, 16, Header(th::HeaderError::Json(_))),
    th!("th-header-no-version.teehistorian", 0, 16, Header(th::HeaderError::Json(_))),
    th!("th-header-not-json.teehistorian", 0, 16, Header(th::HeaderError::Json(_))),
    th!("th-header-nul-inside-string.teehistorian", 0, 16, Header(th::HeaderError::Json(_))),
    th!("th-header-unclosed-object.teehistorian", 0, 16, Header(th::HeaderError::Json(_))),
    th!("th-header-version-0.teehistorian", 0, 16, UnsupportedVersion { version } if version == "0"),
    th!("th-header-version-3.teehistorian", 0, 16, UnsupportedVersion { version } if version == "3"),
    th!("th-header-version-is-number.teehistorian", 0, 16, Header(th::HeaderError::Json(_))),
    th!("th-header-without-nul.teehistorian", 0, 16, UnexpectedEnd { expected: "the JSON header and its terminating NUL", available: 58 }),
    th!("th-hl2demo-magic.teehistorian", 0, 0, BadMagic { .. }),
    th!("th-message-size-i32-max.teehistorian", 0, 75, MessageTooLong { at_least: 2147483654 }),
    th!("th-message-size-negative.teehistorian", 1, 77, NegativeLength { what: "MESSAGE data size", value: -1 }),
    th!("th-message-size-past-end.teehistorian", 0, 75, UnexpectedEnd { expected: "the rest of the MESSAGE message", available: 6 }),
    ok!("th-no-finish-empty-body.teehistorian", 0),
    th!("th-player-diff-cid-1000.teehistorian", 0, 75, ClientIdOutOfRange { cid: 1000 }),
    th!("th-player-new-cid-128.teehistorian", 1, 78, ClientIdOutOfRange { cid: 128 }),
    th!("th-player-old-cid-minus-1.teehistorian", 0, 75, ClientIdOutOfRange { cid: -1 }),
    th!("th-player-record-past-i32-max-tick.teehistorian", 2, 83, TickOutOfRange { tick: 2147483648 }),
    th!("th-tick-skip-i32-max.teehistorian", 1, 77, TickOutOfRange { tick: 2147483652 }),
    th!("th-tick-skip-negative-below-zero.teehistorian", 0, 75, TickOutOfRange { tick: -4 }),
    th!("th-twdemo-magic.teehistorian", 0, 0, BadMagic { .. }),
    th!("th-unknown-message-id-i32-min.teehistorian", 0, 75, UnknownMessageId { id: -2147483648 }),
    th!("th-unknown-message-id-minus-12.teehistorian", 1, 77, UnknownMessageId { id: -12 }),
    th!("th-uuid-cut-8.teehistorian", 0, 0, UnexpectedEnd { expected: "the 16-byte teehistorian UUID", available: 8 }),
    th!("th-uuid-first-byte-wrong.teehistorian", 0, 0, BadMagic { .. }),
    th!("th-uuid-last-byte-wrong.teehistorian", 0, 0, BadMagic { .. }),
    th!("th-uuid-only.teehistorian", 0, 16, UnexpectedEnd { expected: "the JSON header and its terminating NUL", available: 0 }),
    th!("th-varint-extend-bit-at-end.teehistorian", 1, 77, UnexpectedEnd { expected: "a message id", available: 1 }),
    ok!("th-varint-overlong-5-bytes.teehistorian", 2),
    ok!("th-version-1.teehistorian", 1),
    ok!("twdemo-chunk-type-0.demo", 2),
    tw!("twdemo-cut-after-version.demo", 0, 8, UnexpectedEnd { expected: "the demo header", needed: 168, available: 0 }),
    tw!("twdemo-cut-in-header.demo", 0, 8, UnexpectedEnd { expected: "the demo header", needed: 168, available: 92 }),
    tw!("twdemo-cut-in-map.demo", 0, 484, MapPastEnd { map_size: 32, available: 10 }),
    tw!("twdemo-cut-in-payload.demo", 13, 577, UnexpectedEnd { expected: "a chunk payload", needed: 13, available: 10 }),
    tw!("twdemo-cut-in-sha256-digest.demo", 0, 436, UnexpectedEnd { expected: "the map SHA-256 block", needed: 48, available: 24 }),
    tw!("twdemo-cut-in-sha256-uuid.demo", 0, 436, UnexpectedEnd { expected: "the map SHA-256 block", needed: 48, available: 8 }),
    tw!("twdemo-cut-in-size-byte.demo", 1, 521, UnexpectedEnd { expected: "a chunk header", needed: 2, available: 1 }),
    tw!("twdemo-cut-in-size-word.demo", 1, 521, UnexpectedEnd { expected: "a chunk header", needed: 3, available: 2 }),
    tw!("twdemo-cut-in-timeline-markers.demo", 0, 176, UnexpectedEnd { expected: "the timeline-marker block", needed: 260, available: 124 }),
    tw!("twdemo-empty.demo", 0, 0, UnexpectedEnd { expected: "the demo magic and version", needed: 8, available: 0 }),
    tw!("twdemo-hl2demo-magic.demo", 0, 0, BadMagic { .. }),
    tw!("twdemo-huffman-cut-before-eof.demo", 1, 521, Payload(tw::PayloadError::Huffman(HuffmanError::MissingEof { decoded: 11 }))),
    tw!("twdemo-huffman-empty-payload-size-byte.demo", 1, 521, Payload(tw::PayloadError::Huffman(HuffmanError::MissingEof { decoded: 0 }))),
    tw!("twdemo-huffman-empty-payload.demo", 1, 521, Payload(tw::PayloadError::Huffman(HuffmanError::MissingEof { decoded: 0 }))),
    tw!("twdemo-huffman-no-eof-all-ones.demo", 2, 530, Payload(tw::PayloadError::Huffman(HuffmanError::MissingEof { decoded: 64 }))),
    ok!("twdemo-keyframe-relative-tick.demo", 3),
    ok!("twdemo-length-negative.demo", 14),
    tw!("twdemo-magic-cut-3.demo", 0, 0, UnexpectedEnd { expected: "the demo magic and version", needed: 8, available: 3 }),
    tw!("twdemo-magic-lowercase.demo", 0, 0, BadMagic { .. }),
    tw!("twdemo-magic-missing-nul.demo", 0, 0, BadMagic { .. }),
    tw!("twdemo-magic-without-version.demo", 0, 0, UnexpectedEnd { expected: "the demo magic and version", needed: 8, available: 7 }),
    tw!("twdemo-map-size-huge.demo", 0, 484, MapPastEnd { map_size: 4294967295, available: 107 }),
    tw!("twdemo-map-size-one-past-end.demo", 0, 484, MapPastEnd { map_size: 108, available: 107 }),
    tw!("twdemo-map-size-zero-map-read-as-chunks.demo", 0, 484, Payload(tw::PayloadError::Huffman(HuffmanError::MissingEof { decoded: 0 }))),
    ok!("twdemo-no-chunks.demo", 0),
    tw!("twdemo-payload-past-end.demo", 1, 521, UnexpectedEnd { expected: "a chunk payload", needed: 5, available: 2 }),
    tw!("twdemo-payload-size-word-65535.demo", 1, 521, UnexpectedEnd { expected: "a chunk payload", needed: 65535, available: 8 }),
    tw!("twdemo-relative-tick-before-absolute.demo", 0, 516, DeltaBeforeFirstTick),
    tw!("twdemo-relative-tick-past-max.demo", 1, 521, TickOutOfRange { tick: 1879048207 }),
    tw!("twdemo-sha256-uuid-wrong-map-shifted.demo", 0, 468, Payload(tw::PayloadError::Huffman(HuffmanError::MissingEof { decoded: 25 }))),
    tw!("twdemo-teehistorian-magic.demo", 0, 0, BadMagic { .. }),
    tw!("twdemo-tick-0x70000000.demo", 0, 516, TickOutOfRange { tick: 1879048192 }),
    tw!("twdemo-tick-negative.demo", 1, 525, TickOutOfRange { tick: -1 }),
    ok!("twdemo-timeline-marker-count-1000.demo", 14),
    ok!("twdemo-timeline-marker-count-negative.demo", 14),
    tw!("twdemo-trailing-lone-tick-lead-byte.demo", 2, 530, UnexpectedEnd { expected: "a chunk header", needed: 5, available: 1 }),
    tw!("twdemo-unterminated-map-name.demo", 0, 72, UnterminatedString { field: "map_name", size: 64 }),
    tw!("twdemo-unterminated-net-version.demo", 0, 8, UnterminatedString { field: "net_version", size: 64 }),
    tw!("twdemo-unterminated-timestamp.demo", 0, 156, UnterminatedString { field: "timestamp", size: 20 }),
    tw!("twdemo-unterminated-type.demo", 0, 144, UnterminatedString { field: "type", size: 8 }),
    tw!("twdemo-v3-cut-in-map.demo", 0, 176, MapPastEnd { map_size: 32, available: 5 }),
    tw!("twdemo-v3-cut-in-payload.demo", 13, 269, UnexpectedEnd { expected: "a chunk payload", needed: 13, available: 11 }),
    tw!("twdemo-v3-relative-tick-before-absolute.demo", 0, 208, DeltaBeforeFirstTick),
    tw!("twdemo-v4-cut-in-timeline-markers.demo", 0, 176, UnexpectedEnd { expected: "the timeline-marker block", needed: 260, available: 24 }),
    tw!("twdemo-v4-relative-tick-before-absolute.demo", 0, 468, DeltaBeforeFirstTick),
    tw!("twdemo-v5-cut-in-tick-marker.demo", 0, 468, UnexpectedEnd { expected: "a chunk header", needed: 5, available: 3 }),
    tw!("twdemo-varint-cut-in-third-int.demo", 1, 521, Payload(tw::PayloadError::VarInt(VarIntError::UnexpectedEnd { offset: 2 }))),
    tw!("twdemo-varint-extend-bit-at-end.demo", 1, 521, Payload(tw::PayloadError::VarInt(VarIntError::UnexpectedEnd { offset: 0 }))),
    ok!("twdemo-varint-overlong-5-bytes.demo", 2),
    tw!("twdemo-varint-too-many-ints.demo", 1, 521, Payload(tw::PayloadError::VarInt(VarIntError::TooMany { limit: 16384 }))),
    tw!("twdemo-version-0.demo", 0, 7, UnsupportedVersion { version: 0 }),
    tw!("twdemo-version-1.demo", 0, 7, UnsupportedVersion { version: 1 }),
    tw!("twdemo-version-2.demo", 0, 7, UnsupportedVersion { version: 2 }),
    ok!("twdemo-version-255.demo", 14),
    ok!("twdemo-version-7.demo", 14),
    ]
}

/// The largest single allocation, and the most heap live at once, that reading any file may
/// cause.
const MEMORY_LIMIT: usize = 64 << 20;

fn check(case: &Case, outcome: &Outcome, reader: &str) -> Result<(), String> {
    let (items, err): (usize, Option<(u64, String, bool)>) = match (outcome, case.error) {
        (Outcome::Tw(n, e), Some((_, _, Check::Tw(f)))) => (
            *n,
            e.as_ref()
                .map(|e| (e.offset, format!("{:?}", e.kind), f(&e.kind))),
        ),
        (Outcome::Th(n, e), Some((_, _, Check::Th(f)))) => (
            *n,
            e.as_ref()
                .map(|e| (e.offset, format!("{:?}", e.kind), f(&e.kind))),
        ),
        (Outcome::Src(n, e), Some((_, _, Check::Src(f)))) => (
            *n,
            e.as_ref()
                .map(|e| (e.offset, format!("{:?}", e.kind), f(&e.kind))),
        ),
        (Outcome::Tw(n, e), None) => (
            *n,
            e.as_ref()
                .map(|e| (e.offset, format!("{:?}", e.kind), false)),
        ),
        (Outcome::Th(n, e), None) => (
            *n,
            e.as_ref()
                .map(|e| (e.offset, format!("{:?}", e.kind), false)),
        ),
        (Outcome::Src(n, e), None) => (
            *n,
            e.as_ref()
                .map(|e| (e.offset, format!("{:?}", e.kind), false)),
        ),
        _ => {
            return Err(format!(
                "{}: the table's check is for another format",
                case.name
            ));
        }
    };
    let name = case.name;
    match (&case.error, err) {
        (None, None) => {}
        (None, Some((offset, kind, _))) => {
            return Err(format!(
                "{name} ({reader}): expected a clean end, got {kind} at {offset}"
            ));
        }
        (Some((offset, text, _)), None) => {
            return Err(format!(
                "{name} ({reader}): expected {text} at {offset}, got a clean end"
            ));
        }
        (Some((offset, text, _)), Some((got_offset, kind, matched))) => {
            if !matched || got_offset != *offset {
                return Err(format!(
                    "{name} ({reader}): expected {text} at {offset}, got {kind} at {got_offset}"
                ));
            }
        }
    }
    if items != case.items {
        return Err(format!(
            "{name} ({reader}): expected {} items before the end, got {items}",
            case.items
        ));
    }
    Ok(())
}

#[test]
fn every_malformed_input_gives_its_outcome_within_the_memory_bound() {
    let cases = cases();
    let mut failures = Vec::new();
    let mut highest_peak = (0, "");
    for case in &cases {
        let data =
            std::fs::read(dir().join(case.name)).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        for (reader, f) in [
            ("slice reader", read as fn(&str, &[u8]) -> Outcome),
            ("streaming reader", read_stream),
        ] {
            let (outcome, usage) = common::alloc::measure(|| f(case.name, &data));
            if usage.largest >= MEMORY_LIMIT || usage.peak >= MEMORY_LIMIT {
                failures.push(format!(
                    "{} ({reader}): allocated {} bytes at once, {} live at the peak",
                    case.name, usage.largest, usage.peak
                ));
            }
            highest_peak = highest_peak.max((usage.peak, case.name));
            if let Err(e) = check(case, &outcome, reader) {
                failures.push(e);
            }
        }
    }
    println!(
        "highest peak of live heap: {} bytes ({})",
        highest_peak.0, highest_peak.1
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_file_is_in_the_table_and_the_corpus_is_large_enough() {
    let cases = cases();
    let listed: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.name).collect();
    assert_eq!(listed.len(), cases.len(), "a file is listed twice");
    let mut on_disk = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let entry = entry.unwrap();
        // fixtures/malformed/fuzz/ holds fuzzer findings (tests/robustness/fuzz_regressions.rs).
        if entry.file_type().unwrap().is_dir() {
            continue;
        }
        let name = entry.file_name().into_string().unwrap();
        assert!(
            listed.contains(name.as_str()),
            "fixtures/malformed/{name} is not in the table"
        );
        on_disk.insert(name);
    }
    for name in &listed {
        assert!(
            on_disk.contains(*name),
            "{name} is in the table but not on disk"
        );
    }
    assert!(cases.len() >= 100, "only {} inputs", cases.len());
    for prefix in ["twdemo-", "th-", "src-"] {
        let n = cases.iter().filter(|c| c.name.starts_with(prefix)).count();
        assert!(n >= 30, "only {n} {prefix} inputs");
    }
}
