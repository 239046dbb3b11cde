//! Would DDNet's client play this demo, and how does it end? [`validate`] follows the
//! client's demo path at the reference commit step by step, for a client that has none of
//! the demo's maps, so the embedded one is extracted and loaded, and that plays the demo to
//! its end:
//!
//! 1. `CDemoPlayer::Load`: the header (magic, NUL-terminated UTF-8 strings), version (3 or
//!    later, no upper bound), the timeline-marker block (version 4 on), the optional map
//!    SHA-256 block (version 6 on), then `ScanFile`, which needs a keyframe unless it
//!    stopped early at a chunk header it could not read.
//! 2. The map: `ExtractMap` needs the map's bytes (a header map size of 0 gives none) and,
//!    for version 6 on, the SHA-256 block, without which DDNet asserts (crashes); the map
//!    is written under `downloadedmaps/`, so the map name must make a path that can be
//!    opened; then `LoadMap` loads it as a datafile ([`check_load`]) and, for version 6 on,
//!    compares its SHA-256 with the header's. A version 3 to 5 demo is loaded by the
//!    SHA-256 of its own map, so its header CRC-32 is never compared: a mismatch is a
//!    warning. Every failure here is "Could not find map".
//! 3. Playback (`DoTick` until the end): chunk headers and data must read, non-empty
//!    payloads must Huffman- and int-decode (an empty chunk is not decoded); a delta needs
//!    a valid full snapshot before it; a delta unpacked over a snapshot that holds an item
//!    of negative type makes DDNet's snapshot builder assert (crash); an invalid full
//!    snapshot and a delta that fails to unpack are only logged; at least two tick markers
//!    must be read, or the player stops with "Empty demo".
//! 4. For a demo whose header's network version starts with `"0.7"`, the client's 0.7
//!    path (`CClient::OnDemoPlayerSnapshot` calls `CGameClient::TranslateSnap`): every
//!    snapshot the player hands over is checked item by item against the 0.7 protocol
//!    ([`object_is_valid`]), and an item of a static type that fails is marked invalid
//!    (type -1) in the buffer the player handed over. For a delta's result, and for the
//!    last snapshot replayed in a tick that has none, that buffer is the player's own
//!    last snapshot, the base of the next delta, which then asserts as in step 3. (A full
//!    snapshot is handed over from the chunk's buffer after the player copied it, so its
//!    invalidation reaches no later delta.)
//!
//! DDNet stops at the first fatal problem, and so does the report: it holds the warnings
//! met before it, then that problem. [`Report::verdict`] says how DDNet ends.
//! Not modelled: the game layer of the client (what it does with the messages and
//! snapshot items it accepts), the rest of the 0.7 snapshot translation (its 0.6 items
//! are the client's own), and maps DDNet ships itself.

use super::stream::Counting;
use crate::datafile::check_load;
use crate::gamenet::seven::object_is_valid;
use crate::twdemo::container::error::{ReadError, ReadErrorKind};
use crate::twdemo::container::format::{
    ChunkKind, FIRST_VERSION_WITH_SHA256, HEADER_SIZE, TIMELINE_MARKERS_SIZE,
};
use crate::twdemo::container::payload::PayloadDecoder;
use crate::twdemo::container::reader::{Chunk, DemoReader, Prelude};
use crate::twdemo::snapshot::delta::{self, DeltaError, ItemSizes};
use crate::twdemo::snapshot::{
    BuildError, EXTENDED_TYPE_ITEM, OFFSET_UUID_TYPE, Snapshot, SnapshotBuf, SnapshotBuilder,
};
use sha2::Digest;
use std::io::{self, Read};

use crate::validation::{ProblemKind, Report};

impl Report {
    /// Records a fatal problem; DDNet stops there, and so does the walk.
    fn stop(&mut self, offset: u64, kind: ProblemKind, message: impl Into<String>) -> Stop {
        self.fail(offset, kind, message);
        Stop
    }
}

/// DDNet stopped (the fatal problem is in the report).
struct Stop;

/// Checks `data` the way DDNet's client plays it; see the [module docs](self).
pub fn validate(data: &[u8]) -> Report {
    validate_reader(|| Ok(data))
}

/// [`validate`] of a demo read as a stream from its start, each time from what `open`
/// returns (a file opened again): once for DDNet's scan of the chunk headers, once to play
/// it. Memory does not grow with the demo beyond its embedded map and one snapshot.
pub fn validate_reader<R: Read>(mut open: impl FnMut() -> io::Result<R>) -> Report {
    let mut report = Report::default();
    let _ = walk(&mut open, &mut report);
    report
}

fn walk<R: Read>(open: &mut impl FnMut() -> io::Result<R>, r: &mut Report) -> Result<(), Stop> {
    let reopen_failed = |e: io::Error, r: &mut Report| {
        r.stop(0, ProblemKind::Header, format!("cannot read the demo: {e}"))
    };
    let mut counted = Counting::new(open().map_err(|e| reopen_failed(e, r))?);
    let mut first = match DemoReader::new(&mut counted) {
        Ok(reader) => reader,
        Err(e) => return Err(load_failure(&e, r)),
    };
    let p = *first.prelude();
    let h = &p.header;
    for (name, offset, ok) in [
        ("net_version", 8, h.net_version.to_str().is_ok()),
        ("map_name", 72, h.map_name.to_str().is_ok()),
        ("type", 144, h.kind.to_str().is_ok()),
        ("timestamp", 156, h.timestamp.to_str().is_ok()),
    ] {
        if !ok {
            let message = format!(
                "header field {name} is not valid UTF-8: DDNet fails with \"Error reading demo header\""
            );
            return Err(r.stop(offset, ProblemKind::Header, message));
        }
    }
    let version = p.version();
    let sha_offset = (HEADER_SIZE + TIMELINE_MARKERS_SIZE) as u64;
    if version >= FIRST_VERSION_WITH_SHA256 && p.map_sha256.is_none() {
        r.warn(
            sha_offset,
            ProblemKind::Sha256Missing,
            "no map SHA-256 block where version 6 has it (\"Demo version incremented, but not by DDNet\"): the map is read from here",
        );
    }
    let keyframes = scan(&mut first);
    let map = first.map().to_vec();
    drop(first);
    // The file's length, for the problems found at its end.
    let len = counted.count + io::copy(&mut counted.inner, &mut io::sink()).unwrap_or(0);
    if keyframes == 0 {
        let message = "no keyframe tick marker: DDNet fails with \"Error scanning demo file\"";
        return Err(r.stop(len, ProblemKind::NoKeyframe, message));
    }
    load_map(&p, &map, r)?;
    drop(map);
    let input = open().map_err(|e| reopen_failed(e, r))?;
    let mut second = DemoReader::new(input).map_err(|e| load_failure(&e, r))?;
    play(&p, &mut second, len, r)
}

/// A prelude DDNet's `GetDemoInfo` or `Load` refuses.
fn load_failure(e: &ReadError, r: &mut Report) -> Stop {
    let (kind, ddnet) = match &e.kind {
        ReadErrorKind::UnsupportedVersion { version } => (
            ProblemKind::Version,
            format!("Demo version '{version}' is not supported"),
        ),
        ReadErrorKind::UnexpectedEnd { expected, .. } if expected.contains("timeline") => (
            ProblemKind::TimelineMarkers,
            "Error reading timeline markers".into(),
        ),
        ReadErrorKind::UnexpectedEnd { expected, .. } if expected.contains("SHA-256") => {
            (ProblemKind::Sha256Block, "Error reading SHA256".into())
        }
        // DDNet skips the map with a seek that cannot fail; its scan then starts past the
        // end of the file and finds nothing.
        ReadErrorKind::MapPastEnd { .. } => {
            (ProblemKind::NoKeyframe, "Error scanning demo file".into())
        }
        _ => (ProblemKind::Header, "Error reading demo header".into()),
    };
    r.stop(
        e.offset,
        kind,
        format!("{}: DDNet fails with \"{ddnet}\"", e.kind),
    )
}

/// `ScanFile`: it walks the chunk headers, skipping payloads with a seek (so a payload cut
/// short is not noticed), and fails only if it reaches the end without a keyframe; a chunk
/// header it cannot read stops it early but is forgiven. The keyframes it saw.
fn scan<R: Read>(chunks: &mut DemoReader<R>) -> u64 {
    let mut keyframes = 0u64;
    while let Some(item) = chunks.next() {
        match item {
            Ok(item) => {
                if let Chunk::Tick(m) = item.chunk {
                    keyframes += m.keyframe as u64;
                }
            }
            Err(e) if is_cut_payload(&e) => break,
            // A header it cannot read: DDNet stops its scan there and goes on as if it had
            // found a keyframe.
            Err(_) => return keyframes.max(1),
        }
    }
    keyframes
}

fn is_cut_payload(e: &ReadError) -> bool {
    matches!(e.kind, ReadErrorKind::UnexpectedEnd { expected, .. } if expected == "a chunk payload")
}

/// Why DDNet could not write or open `downloadedmaps/<name>_<sha256>.map`, if it could not
/// (as on Linux, in a fresh `downloadedmaps` folder).
fn map_path_problem(name: &str) -> Option<&'static str> {
    if name.contains("../") || name.contains("..\\") {
        return Some("DDNet's storage refuses paths that leave its folders");
    }
    // The name's own directories must already exist: only "" and "." always do.
    let mut parts: Vec<&str> = name.split('/').collect();
    parts.pop();
    if parts.iter().any(|p| !p.is_empty() && *p != ".") {
        return Some("it names a folder that does not exist under downloadedmaps/");
    }
    None
}

/// `ExtractMap` and `LoadMapSearch`, for a client that has none of the demo's maps.
fn load_map(p: &Prelude, map: &[u8], r: &mut Report) -> Result<(), Stop> {
    let h = &p.header;
    let name = h.map_name.to_string_lossy();
    let not_found = format!("DDNet fails with \"Could not find map '{name}'\"");
    let map_offset = p.map_offset() as u64;
    if map.is_empty() {
        let message = format!("the demo embeds no map (map size 0): {not_found}");
        return Err(r.stop(136, ProblemKind::MapMissing, message));
    }
    if p.version() >= FIRST_VERSION_WITH_SHA256 && p.map_sha256.is_none() {
        let message = format!(
            "version {} demo without the map SHA-256 block: DDNet would crash (assertion \"SHA256 missing for version {} demo\" when it extracts the map)",
            p.version(),
            p.version()
        );
        return Err(r.stop(
            (HEADER_SIZE + TIMELINE_MARKERS_SIZE) as u64,
            ProblemKind::Sha256Missing,
            message,
        ));
    }
    if let Some(why) = map_path_problem(&name) {
        let message = format!("the map cannot be saved under this name ({why}): {not_found}");
        return Err(r.stop(72, ProblemKind::MapMissing, message));
    }
    if let Err(e) = check_load(map) {
        let message = format!("the embedded map does not load ({}): {not_found}", e.kind);
        return Err(r.stop(map_offset + e.offset, ProblemKind::MapLoad, message));
    }
    let crc = crc32fast::hash(map);
    match &p.map_sha256 {
        Some(sha) => {
            let digest: [u8; 32] = sha2::Sha256::digest(map).into();
            if digest != sha.digest {
                let message = format!(
                    "embedded map SHA-256 is {}, the header says {} (\"map differs from the server\"): {not_found}",
                    hex::encode(digest),
                    hex::encode(sha.digest)
                );
                return Err(r.stop(map_offset, ProblemKind::MapChecksum, message));
            }
            if crc != h.map_crc {
                r.warn(
                    map_offset,
                    ProblemKind::MapChecksum,
                    format!(
                        "embedded map CRC-32 is {crc:08x}, the header says {:08x} (DDNet does not compare it: the SHA-256 matches)",
                        h.map_crc
                    ),
                );
            }
        }
        None if crc != h.map_crc => r.warn(
            map_offset,
            ProblemKind::MapChecksum,
            format!(
                "embedded map CRC-32 is {crc:08x}, the header says {:08x} (DDNet loads the embedded map by its SHA-256 and plays it anyway)",
                h.map_crc
            ),
        ),
        None => {}
    }
    Ok(())
}

/// `Play` and `DoTick` to the end of the file.
fn play<R: Read>(
    p: &Prelude,
    chunks: &mut DemoReader<R>,
    len: u64,
    r: &mut Report,
) -> Result<(), Stop> {
    let net_version = p.header.net_version.to_string_lossy();
    let sizes = ItemSizes::for_net_version(&net_version);
    let mut decoder = PayloadDecoder::new();
    let mut builder = SnapshotBuilder::new();
    let mut last: Option<SnapshotBuf> = None;
    let mut tick_markers = 0u64;
    // The client's 0.7 path: a network version starting with "0.7" (`m_Sixup`).
    let sixup = p.header.net_version.text_bytes().starts_with(b"0.7");
    // Whether the player handed a snapshot to the client since the last tick marker
    // (`GotSnapshot` of `DoTick`): if not, the next chunk that is neither a snapshot nor a
    // delta makes it hand over its last snapshot again.
    let mut got_snapshot = false;
    // The items of `last` the 0.7 translation marked invalid, for the crash's message.
    let mut translated: Vec<String> = Vec::new();
    while let Some(item) = chunks.next() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                let (kind, ddnet) = if is_cut_payload(&e) {
                    (ProblemKind::ChunkData, "Error reading chunk data")
                } else {
                    (ProblemKind::ChunkHeader, "Error reading chunk header")
                };
                let mut message = format!("{}: DDNet stops with \"{ddnet}\"", e.kind);
                let truncated = e.is_truncation();
                if truncated {
                    // A recording cut off mid-write: the chunks before the cut are whole.
                    message.push_str(
                        "; the file is cut inside a chunk: a repair keeps every \
                         complete chunk before it and finishes the header",
                    );
                }
                if truncated {
                    r.fail_truncated(e.offset, kind, message);
                    return Err(Stop);
                }
                return Err(r.stop(e.offset, kind, message));
            }
        };
        let at = item.offset;
        let replays = match &item.chunk {
            Chunk::Tick(_) => true,
            Chunk::Data(chunk) => {
                !matches!(chunk.kind, ChunkKind::Snapshot | ChunkKind::SnapshotDelta)
            }
        };
        if replays && !got_snapshot && last.is_some() {
            got_snapshot = true;
            if sixup && let Some(buf) = last.take() {
                // Replayed from the player's own buffer: what the translation marks
                // invalid stays so for the next delta.
                let (buf, marked) = translate_seven(buf, at);
                translated.extend(marked);
                last = Some(buf);
            }
        }
        let chunk = match item.chunk {
            Chunk::Tick(_) => {
                tick_markers += 1;
                got_snapshot = false;
                continue;
            }
            Chunk::Data(chunk) => chunk,
        };
        // DDNet decodes only chunks with a payload; an empty one reaches it as no data.
        let ints: &[i32] = if chunk.payload.is_empty() {
            &[]
        } else {
            match decoder.decode(chunk.payload) {
                Ok(_) => decoder.last_ints(),
                Err(e) => {
                    let (kind, ddnet) = match e {
                        crate::twdemo::container::error::PayloadError::Huffman(_) => {
                            (ProblemKind::Huffman, "Error during network decompression")
                        }
                        crate::twdemo::container::error::PayloadError::VarInt(_) => {
                            (ProblemKind::IntPack, "Error during intpack decompression")
                        }
                    };
                    let message = format!(
                        "{} chunk: {e}: DDNet stops with \"{ddnet}\"",
                        chunk.kind.name()
                    );
                    return Err(r.stop(at, kind, message));
                }
            }
        };
        match chunk.kind {
            ChunkKind::Snapshot => match Snapshot::parse(ints) {
                Ok(snapshot) => {
                    // The player copies the chunk before the client sees it: the
                    // translation's marks land in the chunk's buffer, not in `last`.
                    match &mut last {
                        Some(buf) => buf.copy_from(snapshot),
                        None => last = Some(snapshot.to_buf()),
                    }
                    translated.clear();
                    got_snapshot = true;
                }
                Err(e) => r.warn(
                    at,
                    ProblemKind::SnapshotInvalid,
                    format!(
                        "invalid full snapshot ({e}): DDNet logs \"Snapshot invalid\" and skips it"
                    ),
                ),
            },
            ChunkKind::SnapshotDelta => {
                let Some(from) = &last else {
                    let message = "delta before any valid full snapshot: DDNet stops with \"Delta snapshot before any full snapshot\"";
                    return Err(r.stop(at, ProblemKind::DeltaBeforeSnapshot, message));
                };
                match delta::apply_delta_with(&from.as_snapshot(), ints, &sizes, &mut builder) {
                    Ok(()) => {
                        let buf = builder.finish();
                        translated.clear();
                        got_snapshot = true;
                        last = Some(if sixup {
                            // The client translates the player's own result, which the
                            // player then keeps as the base of the next delta.
                            let (buf, marked) = translate_seven(buf, at);
                            translated = marked;
                            buf
                        } else {
                            buf
                        });
                    }
                    Err(DeltaError::KeepFailed {
                        item,
                        reason: BuildError::InvalidType { type_id },
                    }) => {
                        // Name a few of the marked items; a 0.6 snapshot may hold hundreds.
                        let why = match translated.len() {
                            0 => String::new(),
                            n => format!(
                                " (the client's 0.7 translation marked it invalid: {}{} failed 0.7 validation)",
                                translated.get(..n.min(3)).unwrap_or_default().join(", "),
                                if n > 3 {
                                    format!(" and {} more", n - 3)
                                } else {
                                    String::new()
                                }
                            ),
                        };
                        let message = format!(
                            "the delta keeps item {item} of the previous snapshot, whose type {type_id} is negative{why}: DDNet would crash (assertion \"Invalid snap item Type\" in its snapshot builder)"
                        );
                        return Err(r.stop(at, ProblemKind::NegativeItemType, message));
                    }
                    Err(e) => r.warn(
                        at,
                        ProblemKind::DeltaFailed,
                        format!(
                            "delta does not apply ({e}): DDNet logs \"Error unpacking snapshot delta. DataSize={}\" and skips it",
                            e.code()
                        ),
                    ),
                }
            }
            ChunkKind::Unknown if !chunk.payload.is_empty() => r.warn(
                at,
                ProblemKind::UnknownChunk,
                "chunk of unknown type 0: decoded, then ignored",
            ),
            _ => {}
        }
    }
    if tick_markers < 2 {
        let message = format!(
            "{tick_markers} tick marker{}: DDNet needs two to start playing and stops with \"Empty demo\"",
            if tick_markers == 1 { "" } else { "s" }
        );
        return Err(r.stop(len, ProblemKind::EmptyDemo, message));
    }
    Ok(())
}

/// What `CGameClient::TranslateSnap` does to the snapshot the demo player hands it: every
/// item of a static type (not an `EX` item, not a negative type, not an extended type,
/// which it reads as DDNet objects instead) that fails 0.7 validation gets the key -1,
/// in place. Returns the snapshot and, for the report, the items it marked (found while
/// handing over the snapshot of the chunk at `at`).
fn translate_seven(buf: SnapshotBuf, at: u64) -> (SnapshotBuf, Vec<String>) {
    let snapshot = buf.as_snapshot();
    let failing: Vec<(usize, String)> = snapshot
        .items()
        .enumerate()
        .filter(|(_, item)| {
            item.type_id > EXTENDED_TYPE_ITEM
                && item.type_id < OFFSET_UUID_TYPE
                && !object_is_valid(item.type_id, item.data)
        })
        .map(|(i, item)| {
            let what = format!(
                "type {} id {} ({} ints, snapshot at byte {at})",
                item.type_id,
                item.id,
                item.data.len()
            );
            (i, what)
        })
        .collect();
    if failing.is_empty() {
        return (buf, Vec::new());
    }
    // Where each item's key is in the int array: after the two header ints and the
    // offsets, at the item's byte offset.
    let data_start = 2 + snapshot.len();
    let offsets = snapshot.offsets();
    let keys: Vec<usize> = failing
        .iter()
        .filter_map(|&(i, _)| Some(data_start + *offsets.get(i)? as usize / 4))
        .collect();
    let mut ints = buf.as_ints().to_vec();
    for k in keys {
        if let Some(key) = ints.get_mut(k) {
            *key = -1;
        }
    }
    // Keys are not part of a snapshot's validity, so the marked snapshot stays valid (were
    // it not, the snapshot would be handed over unmarked).
    let buf = SnapshotBuf::from_ints(ints).unwrap_or(buf);
    (buf, failing.into_iter().map(|(_, what)| what).collect())
}
