//! Converting a demo between format versions 3, 4, 5 and 6.
//!
//! What changes between those versions is only the container, so a conversion touches only
//! the container:
//!
//! * data chunks (snapshots, deltas, messages, unknown type 0) are copied exactly as stored,
//!   header size form included: their encoding does not depend on the version;
//! * tick markers are written again in the target version's forms, choosing between the
//!   one-byte delta and the five-byte absolute form the way that version's recorder does
//!   (see [`Recorder::record_tick_marker`](crate::twdemo::Recorder::record_tick_marker)): absolute
//!   for the first marker, for every keyframe, and when the delta does not fit (0 to 31 from
//!   version 5 on; 1 to 63 in versions 3 and 4, where 0 means "absolute tick follows");
//! * the timeline-marker block is kept (versions 4 and up), added empty (converting up
//!   from 3) or dropped (converting to 3, which loses the markers: the report lists them);
//! * the map SHA-256 block is kept for version 6 when the source has one, computed from the
//!   embedded map when it does not, and dropped below version 6;
//! * every other header field, the `length` included, is copied unchanged.
//!
//! Payloads are never decoded, so a conversion cannot fail on them and cannot repair them
//! either; [`validate`](super::validate::validate) judges the result, and
//! [`repair`](super::repair::repair) is for a source that ends inside a chunk (converting
//! refuses such a source rather than silently cutting it).

use super::stream::open_failed;
use crate::twdemo::container::error::{ReadError, ReadErrorKind, WriteError};
use crate::twdemo::container::format::{
    FIRST_VERSION_WITH_MARKERS, FIRST_VERSION_WITH_SHA256, MapSha256, OLDEST_VERSION,
    SHA256_EXTENSION_UUID, TickForm, TimelineMarkers, VersionHeader,
};
use crate::twdemo::container::reader::{Chunk, ChunkSource, DemoReader, Prelude, TickMarker};
use crate::twdemo::container::writer::{DemoWriter, tick_marker_header};
use sha2::Digest;
use std::io::{self, Read, Write};

/// What happened to an optional prelude block (timeline markers or map SHA-256).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BlockChange {
    /// Neither the source nor the result has the block.
    Absent,
    /// Copied from the source unchanged.
    Kept,
    /// Added: an empty timeline-marker block, or the SHA-256 of the embedded map.
    Added,
    /// Dropped, because the target version has no such block.
    Dropped,
}

/// What [`convert`] changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ConvertReport {
    /// The source's version.
    pub from_version: u8,
    /// The result's version.
    pub to_version: u8,
    /// The timeline-marker block.
    pub markers: BlockChange,
    /// The marker ticks in use that converting to version 3 dropped (empty otherwise).
    pub markers_dropped: Vec<i32>,
    /// The map SHA-256 block. Converting to version 6 leaves it [`Absent`](BlockChange::Absent)
    /// only when the source has none and the demo embeds no map: the digest of an empty map
    /// would claim a map nobody has, and DDNet reads a version-6 demo without the block.
    pub sha256: BlockChange,
    /// Tick markers written.
    pub tick_markers: usize,
    /// Tick markers whose stored bytes differ from the source's (a form or an encoding
    /// change); 0 when nothing about the ticks changed.
    pub tick_markers_reencoded: usize,
    /// Data chunks copied as stored.
    pub data_chunks: usize,
    /// Size of the source in bytes.
    pub input_len: usize,
    /// Size of the result in bytes.
    pub output_len: usize,
}

/// Why [`convert`] refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The target version is not one demokit writes (3 to 6).
    #[error("cannot convert to demo version {0} (3 to 6 can be written)")]
    UnsupportedVersion(u8),
    /// The source could not be read to its end. A cut-off recording needs
    /// [`repair`](super::repair::repair) first.
    #[error("reading the source demo: {0}")]
    Read(#[from] ReadError),
    /// Writing the result failed (a chunk the writer cannot express).
    #[error("writing the converted demo: {0}")]
    Write(#[from] WriteError),
    /// The result would be a version-6 demo without a SHA-256 block whose first chunk bytes
    /// look like the block's UUID, so every reader would take them for the block.
    #[error(
        "the version-6 result has no map to hash and its first chunk bytes read as the \
         SHA-256 block's UUID"
    )]
    AmbiguousSha256Block,
}

/// Converts `data` to demo format `version` (3 to 6); see the [module docs](self) for
/// exactly what changes. Converting a demo to its own version re-encodes only tick markers
/// a recorder of that version would have written differently (and adds the SHA-256 block
/// a version-6 source lacks), so a demo written by DDNet's recorder comes back unchanged.
pub fn convert(data: &[u8], version: u8) -> Result<(Vec<u8>, ConvertReport), ConvertError> {
    let mut out = Vec::new();
    let report = convert_reader(|| Ok(data), version, &mut out)?;
    Ok((out, report))
}

/// [`convert`] of a demo read as a stream from its start, from what `open` returns (a file
/// opened again), into `out` as it goes: one chunk is held at a time (and the embedded
/// map), so memory does not grow with the demo. On an error `out` may hold part of a demo.
///
/// The demo is read once; a second, short reading of what follows the map is made only
/// when the result is a version-6 demo without a SHA-256 block (no map to hash), to tell
/// whether its first chunk bytes would read as the block.
pub fn convert_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> io::Result<R>,
    version: u8,
    out: W,
) -> Result<ConvertReport, ConvertError> {
    if !(OLDEST_VERSION..=FIRST_VERSION_WITH_SHA256).contains(&version) {
        return Err(ConvertError::UnsupportedVersion(version));
    }
    let mut chunks = DemoReader::new(open().map_err(open_failed)?)?;
    let source = *chunks.prelude();
    let map = chunks.map();

    let (timeline_markers, markers_change, markers_dropped) =
        convert_markers(source.timeline_markers, version);
    let (map_sha256, sha256_change) = convert_sha256(source.map_sha256, map, version);
    if version >= FIRST_VERSION_WITH_SHA256 && map_sha256.is_none() {
        // A reader takes bytes after the marker block that start like the UUID for the
        // block (a file that ends inside them for a cut-off one), as DDNet does.
        let chunks_offset = source.map_offset() as u64 + u64::from(source.header.map_size);
        let rest = first_bytes_after(open().map_err(open_failed)?, chunks_offset)?;
        if !rest.is_empty() && SHA256_EXTENSION_UUID.starts_with(&rest) {
            return Err(ConvertError::AmbiguousSha256Block);
        }
    }
    let prelude = Prelude {
        version_header: VersionHeader {
            magic: source.version_header.magic,
            version,
        },
        header: source.header,
        timeline_markers,
        map_sha256,
    };

    let mut writer = DemoWriter::new(out, &prelude, map)?;
    let target_compression = prelude.tick_compression();
    let (mut tick_markers, mut reencoded, mut data_chunks) = (0, 0, 0);
    while let Some(item) = chunks.next_chunk() {
        let item = item?;
        match item.chunk {
            Chunk::Tick(marker) => {
                let last_tick = writer.last_tick();
                let header = recorder_tick_header(marker, last_tick, target_compression).ok_or(
                    WriteError::TickForm {
                        tick: marker.tick,
                        form: TickForm::Absolute,
                        last_tick,
                    },
                )?;
                // Two tick-marker headers store the same bytes exactly when their lead
                // bytes and absolute ticks agree, whatever version reads them.
                reencoded += (header != item.header) as usize;
                tick_markers += 1;
                writer.write_raw(&header, Some(marker.tick), &[])?;
            }
            Chunk::Data(chunk) => {
                data_chunks += 1;
                writer.write_raw(&item.header, None, chunk.payload)?;
            }
        }
    }
    let output_len = writer.position() as usize;
    writer.into_inner()?;
    Ok(ConvertReport {
        from_version: source.version(),
        to_version: version,
        markers: markers_change,
        markers_dropped,
        sha256: sha256_change,
        tick_markers,
        tick_markers_reencoded: reencoded,
        data_chunks,
        // The chunks read to the end of the input.
        input_len: chunks.position() as usize,
        output_len,
    })
}

/// Up to the UUID's length of the bytes of `input` from `offset` on.
fn first_bytes_after(input: impl Read, offset: u64) -> Result<Vec<u8>, ReadError> {
    let mut input = input;
    let io = |e| ReadError::new(offset, ReadErrorKind::Io(e));
    let skipped = io::copy(&mut (&mut input).take(offset), &mut io::sink()).map_err(io)?;
    let mut rest = Vec::with_capacity(SHA256_EXTENSION_UUID.len());
    if skipped == offset {
        input
            .take(SHA256_EXTENSION_UUID.len() as u64)
            .read_to_end(&mut rest)
            .map_err(io)?;
    }
    Ok(rest)
}

/// The header a recorder of the target version writes for `marker` after a marker at
/// `last_tick`: absolute when it is the first, a keyframe, or the delta does not fit.
fn recorder_tick_header(
    marker: TickMarker,
    last_tick: Option<i32>,
    tick_compression: bool,
) -> Option<crate::twdemo::container::format::RawChunkHeader> {
    let delta = TickMarker {
        form: TickForm::Delta,
        ..marker
    };
    if !marker.keyframe
        && let Some(header) = tick_marker_header(&delta, last_tick, tick_compression)
    {
        return Some(header);
    }
    let absolute = TickMarker {
        form: TickForm::Absolute,
        ..marker
    };
    tick_marker_header(&absolute, last_tick, tick_compression)
}

/// The target's timeline-marker block, what happened to it, and the ticks in use that
/// were dropped.
fn convert_markers(
    source: Option<TimelineMarkers>,
    version: u8,
) -> (Option<TimelineMarkers>, BlockChange, Vec<i32>) {
    match (source, version >= FIRST_VERSION_WITH_MARKERS) {
        // The whole block is kept, slots past the count included: older recorders left
        // garbage there, and keeping it is what makes a round trip byte-exact.
        (Some(block), true) => (Some(block), BlockChange::Kept, Vec::new()),
        (Some(block), false) => (None, BlockChange::Dropped, block.in_use().to_vec()),
        // What a recorder writes at the start; no markers are known from version 3.
        (None, true) => (Some(TimelineMarkers::EMPTY), BlockChange::Added, Vec::new()),
        (None, false) => (None, BlockChange::Absent, Vec::new()),
    }
}

/// The target's SHA-256 block and what happened to it.
fn convert_sha256(
    source: Option<MapSha256>,
    map: &[u8],
    version: u8,
) -> (Option<MapSha256>, BlockChange) {
    match (source, version >= FIRST_VERSION_WITH_SHA256) {
        (Some(block), true) => (Some(block), BlockChange::Kept),
        (Some(_), false) => (None, BlockChange::Dropped),
        (None, true) if !map.is_empty() => (
            Some(MapSha256 {
                uuid: SHA256_EXTENSION_UUID,
                digest: sha2::Sha256::digest(map).into(),
            }),
            BlockChange::Added,
        ),
        (None, _) => (None, BlockChange::Absent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twdemo::container::reader::DemoSlice;
    use crate::twdemo::{Recorder, RecorderConfig};
    use std::io::Cursor;

    /// A small demo recorded at `version`: ticks with small, large and zero gaps, a
    /// keyframe inside the delta range, and a timeline marker.
    fn recorded(version: u8, map: &[u8]) -> Vec<u8> {
        let mut config = RecorderConfig::ddnet("m", "2024-01-01_00-00-00");
        config.version = version;
        let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, map).unwrap();
        for (tick, key) in [
            (10, true),
            (11, false),
            (40, false),
            (80, false),
            (80, false),
            (81, true),
            (200, false),
        ] {
            rec.record_tick_marker(tick, key).unwrap();
            rec.record_message(&[1, 2, 3]).unwrap();
            if tick == 80 {
                rec.add_timeline_marker_now();
            }
        }
        rec.finish().unwrap().into_inner()
    }

    /// A tick marker's tick and keyframe flag, or a data chunk's payload.
    type Item = Result<(i32, bool), Vec<u8>>;

    fn stream(data: &[u8]) -> Vec<Item> {
        DemoSlice::parse(data)
            .unwrap()
            .chunks()
            .map(|c| match c.unwrap().chunk {
                Chunk::Tick(m) => Ok((m.tick, m.keyframe)),
                Chunk::Data(d) => Err(d.payload.to_vec()),
            })
            .collect()
    }

    #[test]
    fn matches_the_recorder_of_every_version() {
        for from in 3..=6 {
            let source = recorded(from, b"MAP");
            for to in 3..=6 {
                let (out, report) = convert(&source, to).unwrap();
                let mut expected = recorded(to, b"MAP");
                if from < 4 && to >= 4 {
                    // Version 3 has no markers to carry over.
                    expected[176..436].copy_from_slice(&out[176..436]);
                }
                assert!(out == expected, "{from} -> {to}");
                assert_eq!(stream(&out), stream(&source));
                assert_eq!(report.tick_markers, 7);
                assert_eq!(report.from_version, from);
            }
        }
    }

    #[test]
    fn reports_blocks() {
        let v6 = recorded(6, b"MAP");
        let (v3, r) = convert(&v6, 3).unwrap();
        assert_eq!(r.markers, BlockChange::Dropped);
        assert_eq!(r.markers_dropped, vec![80]);
        assert_eq!(r.sha256, BlockChange::Dropped);
        // Every one-byte marker changes (the 0x20 flag goes), 80 -> 80 (delta 0) becomes
        // absolute and 40 -> 80 (delta 40) becomes one byte; keyframes stay as they are.
        assert_eq!(r.tick_markers_reencoded, 4);
        let (_, r) = convert(&v3, 6).unwrap();
        assert_eq!(r.markers, BlockChange::Added);
        assert_eq!(r.sha256, BlockChange::Added);
        assert_eq!(
            convert(&v6, 7).unwrap_err().to_string(),
            "cannot convert to demo version 7 (3 to 6 can be written)"
        );
        assert!(matches!(
            convert(&v6[..v6.len() - 1], 5),
            Err(ConvertError::Read(_))
        ));
    }

    #[test]
    fn no_map_no_sha_block() {
        let v3 = recorded(3, b"");
        let (v6, r) = convert(&v3, 6).unwrap();
        assert_eq!(r.sha256, BlockChange::Absent);
        assert_eq!(DemoSlice::parse(&v6).unwrap().prelude().map_sha256, None);
        // A first chunk that starts like the UUID would be read as the block.
        let mut odd = v3[..176].to_vec();
        odd.extend_from_slice(&SHA256_EXTENSION_UUID[..3]);
        assert!(DemoSlice::parse(&odd).is_ok());
        assert!(matches!(
            convert(&odd, 6),
            Err(ConvertError::AmbiguousSha256Block)
        ));
    }
}
