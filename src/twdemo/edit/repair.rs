//! Repairing a recording that was cut off mid-write, and extracting the embedded map.
//!
//! [`repair`] does what DDNet's recorder would have done had it reached `Stop`: it keeps the
//! file up to the end of the last chunk that reads completely, drops what follows (a chunk
//! cut short, or bytes that do not read as a chunk), and patches the two header fields
//! `Stop` patches: `length`, from the first and last tick marker kept, and the timeline
//! markers. Nothing else is touched, so a complete demo whose header already says what
//! `Stop` would write comes back byte for byte.
//!
//! Timeline markers: a cut-off DDNet recording still has the block as the recorder started
//! it (count 0), and its real markers are lost with the process; nothing can bring them
//! back. Markers the header does list are kept as they are, unless they point beyond the
//! last tick marker kept (the part of the recording they marked is gone): those are dropped
//! and the rest are moved up, as `Stop` would have written only the markers it had. Slots
//! past the old count are left as found.
//!
//! Payloads are not decoded: a cut never leaves a complete chunk with bad contents, so the
//! chunk structure is all a repair needs. A result DDNet could not play at all (no keyframe
//! tick marker, or fewer than two tick markers) is refused ([`RepairError::Unplayable`]);
//! everything else DDNet checks (the map, decodable payloads) is for
//! [`validate`](super::validate::validate).
//! A file cut inside its header or embedded map cannot be repaired: the map is what the
//! header's size, CRC and SHA-256 describe.
//!
//! [`extract_map`] returns the embedded map with the header's CRC-32 and SHA-256 checked
//! against it, the checks DDNet's client makes before it uses a demo's map.

use crate::time::SERVER_TICK_SPEED;
use crate::twdemo::container::error::{ReadError, ReadErrorKind};
use crate::twdemo::container::format::{
    LENGTH_OFFSET, MAX_TIMELINE_MARKERS, TIMELINE_MARKERS_OFFSET,
};
use crate::twdemo::container::reader::{Chunk, ChunkSource, DemoReader, Prelude};
use sha2::Digest;
use std::fmt;
use std::io::{self, Read, Write};

use super::stream::{CopyError, Counting, HEAD, copy_patched, open_failed};

use crate::format::BreakOff;

/// What [`repair`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RepairReport {
    /// Size of the input.
    pub input_len: usize,
    /// Size of the result.
    pub output_len: usize,
    /// Bytes dropped from the end.
    pub bytes_dropped: usize,
    /// Chunks kept (tick markers and data chunks).
    pub chunks_kept: usize,
    /// Tick markers kept.
    pub tick_markers_kept: usize,
    /// Keyframe tick markers kept.
    pub keyframes_kept: usize,
    /// Tick of the first tick marker kept.
    pub first_tick: Option<i32>,
    /// Tick of the last tick marker kept.
    pub last_tick: Option<i32>,
    /// The header's `length` before.
    pub old_length: i32,
    /// The header's `length` after: whole seconds from the first to the last tick marker.
    pub new_length: i32,
    /// Timeline markers kept.
    pub markers_kept: Vec<i32>,
    /// Timeline markers dropped because they point beyond the last tick marker.
    pub markers_dropped: Vec<i32>,
    /// Where the file breaks off, if it does: everything from there was dropped.
    pub break_off: Option<BreakOff>,
}

impl RepairReport {
    /// Whether the result differs from the input.
    pub fn changed(&self) -> bool {
        self.bytes_dropped != 0
            || self.old_length != self.new_length
            || !self.markers_dropped.is_empty()
    }
}

/// Why [`repair`] refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepairError {
    /// The header, its blocks or the embedded map are incomplete or invalid. A repair
    /// rebuilds only what the recorder patches at the end, never these.
    #[error("the part before the chunks does not read: {0}")]
    Prelude(#[from] ReadError),
    /// The kept part would not read back: a version-6 demo without the SHA-256 block whose
    /// map and kept chunks (fewer than 16 bytes) begin like the block's UUID reads as a
    /// demo cut inside that block. Only a hand-made file gets here.
    #[error("the kept part would read as cut short ({0})")]
    Ambiguous(ReadError),
    /// What is left would not play in DDNet: its scan needs a keyframe tick marker and
    /// its player two tick markers. Nothing is written, so that no repair reports success
    /// for a file DDNet refuses.
    #[error(
        "only {tick_markers} tick marker(s) and {keyframes} keyframe(s) are left; DDNet needs a keyframe and two tick markers to play a demo"
    )]
    Unplayable {
        /// Tick markers in the complete chunks.
        tick_markers: usize,
        /// Keyframe tick markers among them.
        keyframes: usize,
    },
    /// The output could not be written.
    #[error("writing the repaired demo: {0}")]
    Write(#[from] std::io::Error),
    /// [`repair_reader`]'s second reading of the demo, which copies the bytes kept, failed
    /// or ended before them (the file changed since the first reading); part of the result
    /// has been written.
    #[error("reading the demo again to copy it: {0}")]
    Reread(ReadError),
}

/// Repairs a recording cut off mid-write (see the [module docs](self) for the rules) into
/// `out`, written once every check has passed (nothing is written when the repair is
/// refused).
pub fn repair<W: Write>(input: &[u8], out: W) -> Result<RepairReport, RepairError> {
    repair_reader(|| Ok(input), out)
}

/// [`repair`] of a demo read twice as a stream from its start, each time from what `open`
/// returns (a file opened again): once to find the last complete chunk and the ticks the
/// header's fields are made from, once to copy the bytes kept with those fields written
/// over the header. Memory does not grow with the demo (the first reading holds one chunk
/// and the embedded map, the second a buffer). The second reading stops where the first
/// found the last complete chunk, so a file that grew in between is repaired as it was
/// when first read; one that shrank is [`RepairError::Reread`], with part of the result
/// written.
pub fn repair_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> io::Result<R>,
    out: W,
) -> Result<RepairReport, RepairError> {
    let mut input = Counting::keeping(open().map_err(open_failed)?, HEAD);
    let mut chunks = DemoReader::new(&mut input)?;
    let prelude = *chunks.prelude();
    let chunks_offset = prelude.map_offset() as u64 + u64::from(prelude.header.map_size);
    let scan = scan(&mut chunks, chunks_offset);
    drop(chunks);
    // The bytes after the last complete chunk are dropped: count them all (as far as they
    // read: a tail that fails to read is dropped all the same).
    let input_len = input.len_to_end().unwrap_or(input.count);

    // DDNet's `Length()`: (LastTickMarker - FirstTick) / SERVER_TICK_SPEED, truncating like
    // C. Both ticks lie in [0, 0x6FFFFFFF), so the difference fits an i32.
    let new_length = match (scan.first_tick, scan.last_tick) {
        (Some(first), Some(last)) => (last - first) / SERVER_TICK_SPEED,
        _ => 0,
    };
    let length = new_length.to_be_bytes();
    let mut patches: Vec<(u64, &[u8])> = vec![(LENGTH_OFFSET, &length)];

    let in_use = prelude.markers_in_use();
    let (markers_kept, markers_dropped): (Vec<i32>, Vec<i32>) = in_use
        .iter()
        .partition(|&&tick| scan.last_tick.is_some_and(|last| tick <= last));
    let mut block = Vec::new();
    if !markers_dropped.is_empty() {
        // `Stop` writes the count and the markers it has; the slots of the dropped ones are
        // zeroed, as they were before the recorder would have filled them.
        block.reserve(4 + 4 * in_use.len());
        block.extend_from_slice(&(markers_kept.len() as i32).to_be_bytes());
        for i in 0..in_use.len().min(MAX_TIMELINE_MARKERS) {
            let tick = markers_kept.get(i).copied().unwrap_or(0);
            block.extend_from_slice(&tick.to_be_bytes());
        }
        patches.push((TIMELINE_MARKERS_OFFSET, &block));
    }

    // The result must read back: its prelude is in its first bytes.
    let mut head = input.head;
    head.truncate(scan.end as usize);
    for &(offset, bytes) in &patches {
        patch(&mut head, offset, bytes);
    }
    if let Err(e) = reads_back(&head, scan.end) {
        return Err(RepairError::Ambiguous(e));
    }
    if scan.keyframes == 0 || scan.tick_markers < 2 {
        return Err(RepairError::Unplayable {
            tick_markers: scan.tick_markers,
            keyframes: scan.keyframes,
        });
    }

    let again = open().map_err(|e| RepairError::Reread(open_failed(e)))?;
    copy_patched(again, scan.end, &patches, out).map_err(|e| match e {
        CopyError::Read(e) => RepairError::Reread(e),
        CopyError::Write(e) => RepairError::Write(e),
    })?;
    Ok(RepairReport {
        input_len: input_len as usize,
        output_len: scan.end as usize,
        bytes_dropped: (input_len - scan.end) as usize,
        chunks_kept: scan.chunks_kept,
        tick_markers_kept: scan.tick_markers,
        keyframes_kept: scan.keyframes,
        first_tick: scan.first_tick,
        last_tick: scan.last_tick,
        old_length: prelude.header.length,
        new_length,
        markers_kept,
        markers_dropped,
        break_off: scan.break_off,
    })
}

/// What the chunks that read completely tell a repair.
struct Scan {
    /// Offset of the end of the last complete chunk (of the map, if there is none).
    end: u64,
    chunks_kept: usize,
    tick_markers: usize,
    keyframes: usize,
    first_tick: Option<i32>,
    last_tick: Option<i32>,
    break_off: Option<BreakOff>,
}

/// Reads the chunks that start at `chunks_offset` up to the first that does not read.
fn scan(chunks: &mut impl ChunkSource, chunks_offset: u64) -> Scan {
    let mut scan = Scan {
        end: chunks_offset,
        chunks_kept: 0,
        tick_markers: 0,
        keyframes: 0,
        first_tick: None,
        last_tick: None,
        break_off: None,
    };
    while let Some(item) = chunks.next_chunk() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                scan.break_off = Some(BreakOff {
                    offset: e.offset,
                    truncated: matches!(e.kind, ReadErrorKind::UnexpectedEnd { .. }),
                    reason: e.kind.to_string(),
                });
                break;
            }
        };
        scan.chunks_kept += 1;
        if let Chunk::Tick(m) = item.chunk {
            scan.tick_markers += 1;
            scan.keyframes += m.keyframe as usize;
            scan.first_tick.get_or_insert(m.tick);
            scan.last_tick = Some(m.tick);
        }
        scan.end = item.offset + (item.header.len() + item.header.payload_size()) as u64;
    }
    scan
}

/// Whether a demo of `len` bytes that starts with `head` reads up to its chunks, as
/// [`DemoSlice::parse`](crate::twdemo::DemoSlice::parse) of the whole of it would say:
/// `head` is the whole demo or at least its first [`HEAD`] bytes, which hold any prelude.
fn reads_back(head: &[u8], len: u64) -> Result<(), ReadError> {
    let prelude = Prelude::parse(head)?;
    let map_offset = prelude.map_offset() as u64;
    let map_size = prelude.header.map_size;
    let available = len.saturating_sub(map_offset);
    if u64::from(map_size) > available {
        return Err(ReadError::new(
            map_offset,
            ReadErrorKind::MapPastEnd {
                map_size,
                available,
            },
        ));
    }
    Ok(())
}

/// Overwrites `bytes` at `offset` if they fit inside `out` whole (the prelude was parsed,
/// so the header's fields are inside the part kept).
fn patch(out: &mut [u8], offset: u64, bytes: &[u8]) {
    let start = offset as usize;
    if let Some(dst) = out.get_mut(start..start + bytes.len()) {
        dst.copy_from_slice(bytes);
    }
}

/// A header value and the value computed from the embedded map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MapCheck<T> {
    /// What the header says.
    pub expected: T,
    /// What the embedded map gives.
    pub actual: T,
}

impl<T: PartialEq> MapCheck<T> {
    /// Whether the map matches the header.
    pub fn matches(&self) -> bool {
        self.expected == self.actual
    }
}

/// The map embedded in a demo, with the header's checks against it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ExtractedMap {
    /// The header's map name, lossily decoded.
    pub name: String,
    /// Offset of the map in the demo.
    pub offset: usize,
    /// The map file's bytes.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub bytes: Vec<u8>,
    /// The header's CRC-32 against the map's.
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_crc32_check"))]
    pub crc32: MapCheck<u32>,
    /// The header's SHA-256 against the map's, when the demo has the SHA-256 block (with
    /// the `serde` feature: both digests in hex).
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_sha256_check"))]
    pub sha256: Option<MapCheck<[u8; 32]>>,
}

/// A CRC-32 check as `{"expected": <hex>, "actual": <hex>}`, eight lowercase hex digits as
/// the demo summary and the text output write a map's CRC (`801ce63d`).
#[cfg(feature = "serde")]
fn serialize_crc32_check<S: serde::Serializer>(
    check: &MapCheck<u32>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let hex = MapCheck {
        expected: format!("{:08x}", check.expected),
        actual: format!("{:08x}", check.actual),
    };
    serde::Serialize::serialize(&hex, s)
}

/// A SHA-256 check as `{"expected": <hex>, "actual": <hex>}`.
#[cfg(feature = "serde")]
fn serialize_sha256_check<S: serde::Serializer>(
    check: &Option<MapCheck<[u8; 32]>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let hex = check.map(|c| MapCheck {
        expected: hex::encode(c.expected),
        actual: hex::encode(c.actual),
    });
    serde::Serialize::serialize(&hex, s)
}

impl ExtractedMap {
    /// Whether every check the demo carries holds.
    pub fn matches(&self) -> bool {
        self.crc32.matches() && self.sha256.is_none_or(|s| s.matches())
    }

    /// `Ok` if the map matches every check the demo carries, otherwise which failed.
    pub fn verify(&self) -> Result<(), MapMismatch> {
        if self.matches() {
            return Ok(());
        }
        Err(MapMismatch {
            crc32: (!self.crc32.matches()).then_some(self.crc32),
            sha256: self.sha256.filter(|s| !s.matches()),
        })
    }
}

/// The checks an embedded map failed. DDNet's client refuses such a map: for version 6 on
/// a SHA-256 mismatch ("map differs from the server"), before that a CRC-32 mismatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MapMismatch {
    /// The CRC-32 check, if it failed.
    pub crc32: Option<MapCheck<u32>>,
    /// The SHA-256 check, if it failed.
    pub sha256: Option<MapCheck<[u8; 32]>>,
}

impl fmt::Display for MapMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(c) = &self.crc32 {
            write!(
                f,
                "embedded map CRC-32 is {:08x}, the header says {:08x}",
                c.actual, c.expected
            )?;
            sep = "; ";
        }
        if let Some(s) = &self.sha256 {
            write!(
                f,
                "{sep}embedded map SHA-256 is {}, the header says {}",
                hex::encode(s.actual),
                hex::encode(s.expected)
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for MapMismatch {}

/// Why [`extract_map`] found no map.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExtractError {
    /// The header, its blocks or the map could not be read (the file ends inside the map).
    #[error("reading the demo: {0}")]
    Read(#[from] ReadError),
    /// The header's map size is 0: the recorder was told not to embed the map.
    #[error("the demo embeds no map (map_size is 0)")]
    NoMap,
}

/// The embedded map of `data`, with its CRC-32 (and SHA-256, for a demo with the SHA-256
/// block) checked against the header. A mismatch is not an error here, so a damaged map
/// can still be saved; [`ExtractedMap::verify`] says which check failed.
pub fn extract_map(data: &[u8]) -> Result<ExtractedMap, ExtractError> {
    extract_map_reader(data)
}

/// [`extract_map`] of a demo read as a stream: only the prelude and the map are read (the
/// map is what is returned), the chunks not at all.
pub fn extract_map_reader<R: Read>(input: R) -> Result<ExtractedMap, ExtractError> {
    let reader = DemoReader::new(input)?;
    let prelude = *reader.prelude();
    let map = reader.into_map();
    if map.is_empty() {
        return Err(ExtractError::NoMap);
    }
    Ok(ExtractedMap {
        name: prelude.header.map_name.to_string_lossy(),
        offset: prelude.map_offset(),
        crc32: MapCheck {
            expected: prelude.header.map_crc,
            actual: crc32fast::hash(&map),
        },
        sha256: prelude.map_sha256.map(|block| MapCheck {
            expected: block.digest,
            actual: sha2::Sha256::digest(&map).into(),
        }),
        bytes: map,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twdemo::container::reader::DemoSlice;
    use crate::twdemo::{Recorder, RecorderConfig};
    use std::io::Cursor;

    /// [`repair`] into memory.
    fn repair_in_memory(data: &[u8]) -> Result<(Vec<u8>, RepairReport), RepairError> {
        let mut out = Vec::new();
        let report = repair(data, &mut out)?;
        Ok((out, report))
    }

    fn recorded(version: u8) -> Vec<u8> {
        let mut config = RecorderConfig::ddnet("m", "2024-01-01_00-00-00");
        config.version = version;
        let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"MAP").unwrap();
        for tick in [100, 101, 160, 220, 300] {
            rec.record_tick_marker(tick, tick == 100).unwrap();
            rec.record_message(&[1; 40]).unwrap();
            rec.add_timeline_marker_now();
        }
        rec.finish().unwrap().into_inner()
    }

    #[test]
    fn intact_demo_is_unchanged() {
        for version in 3..=6 {
            let data = recorded(version);
            let (out, report) = repair_in_memory(&data).unwrap();
            assert!(out == data);
            assert!(!report.changed());
            assert_eq!(report.new_length, 4);
            assert_eq!(report.break_off, None);
        }
    }

    #[test]
    fn cut_demo_drops_the_partial_chunk_and_late_markers() {
        let data = recorded(6);
        let slice = DemoSlice::parse(&data).unwrap();
        let offsets: Vec<_> = slice.chunks().map(|c| c.unwrap()).collect();
        // Cut inside the last message: the last tick marker (300) stays.
        let last = offsets.last().unwrap().offset as usize;
        let (out, report) = repair_in_memory(&data[..data.len() - 5]).unwrap();
        assert_eq!(report.last_tick, Some(300));
        assert_eq!(report.bytes_dropped, data.len() - 5 - last);
        assert_eq!(report.chunks_kept, offsets.len() - 1);
        let cut = report.break_off.as_ref().unwrap();
        assert!(cut.truncated);
        assert_eq!(cut.offset, last as u64);
        assert_eq!(out[..], data[..last]);
        // Cut inside the message after 160: markers 220 and 300 point beyond it.
        let cut = offsets
            .iter()
            .find(|c| matches!(c.chunk, Chunk::Tick(m) if m.tick == 220))
            .unwrap()
            .offset as usize
            - 1;
        let (out, report) = repair_in_memory(&data[..cut]).unwrap();
        assert_eq!(report.markers_kept, vec![100, 160]);
        assert_eq!(report.markers_dropped, vec![220, 300]);
        assert_eq!((report.old_length, report.new_length), (4, 1));
        let p = *DemoSlice::parse(&out).unwrap().prelude();
        assert_eq!(p.header.length, 1);
        assert_eq!(p.markers_in_use(), &[100, 160]);
        assert_eq!(p.timeline_markers.unwrap().ticks[2..4], [0, 0]);
        // Repairing again changes nothing.
        let (again, report) = repair_in_memory(&out).unwrap();
        assert!(again == out && !report.changed());
    }

    #[test]
    fn too_little_left_to_play_is_refused() {
        let data = recorded(6);
        let slice = DemoSlice::parse(&data).unwrap();
        let ends: Vec<usize> = {
            let mut it = slice.chunks();
            let mut v = Vec::new();
            while it.next().is_some() {
                v.push(it.position());
            }
            v
        };
        // Only the keyframe marker and its message: one tick marker.
        let e = repair_in_memory(&data[..ends[1]]).unwrap_err();
        assert!(matches!(
            e,
            RepairError::Unplayable {
                tick_markers: 1,
                keyframes: 1
            }
        ));
        assert!(e.to_string().contains("two tick markers"));
        // Nothing at all after the map.
        let e = repair_in_memory(&data[..slice.chunks_offset()]).unwrap_err();
        assert!(matches!(
            e,
            RepairError::Unplayable {
                tick_markers: 0,
                keyframes: 0
            }
        ));
        // Two tick markers and a keyframe: repaired.
        assert!(repair_in_memory(&data[..ends[2] + 1]).is_ok());
    }

    #[test]
    fn unrepairable_and_map_checks() {
        let data = recorded(6);
        assert!(matches!(
            repair_in_memory(&data[..300]),
            Err(RepairError::Prelude(_))
        ));
        let map = extract_map(&data).unwrap();
        assert_eq!(map.bytes, b"MAP");
        assert!(map.verify().is_ok());
        let mut bad = data.clone();
        bad[map.offset] ^= 1;
        let e = extract_map(&bad).unwrap().verify().unwrap_err();
        assert!(e.crc32.is_some() && e.sha256.is_some());
        assert!(e.to_string().starts_with("embedded map CRC-32 is "));
        assert!(e.to_string().contains("; embedded map SHA-256 is "));
    }
}
