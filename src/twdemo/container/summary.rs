//! What `demokit info` reports about a demo: header fields and chunk counts from one pass
//! over the chunk headers (payloads are not decoded), and the embedded map's own facts from
//! the [datafile reader](crate::datafile).

use super::error::ReadError;
use super::format::ChunkKind;
use super::reader::{Chunk, ChunkAt, DemoReader, DemoSlice, Prelude};
use crate::datafile::MapFacts;
use std::io::Read;

/// Chunk counts by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Counts {
    /// All tick markers, keyframes included.
    pub tick_markers: u64,
    /// Tick markers with the keyframe bit.
    pub keyframes: u64,
    /// Full snapshot chunks.
    pub snapshots: u64,
    /// Snapshot-delta chunks.
    pub deltas: u64,
    /// Message chunks.
    pub messages: u64,
    /// Chunks of the unused type 0.
    pub unknown: u64,
}

/// A demo's header fields and chunk counts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Summary {
    /// Always `"twdemo"`.
    pub format: &'static str,
    /// Format version.
    pub version: u8,
    /// Network version string.
    pub net_version: String,
    /// Map name.
    pub map_name: String,
    /// Embedded map size in bytes.
    pub map_size: u32,
    /// Header map CRC-32, 8 hex digits.
    pub map_crc: String,
    /// Header map SHA-256 in hex, if the file has the block.
    pub map_sha256: Option<String>,
    /// `"client"` or `"server"`.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub kind: String,
    /// Header length in seconds.
    pub length: i32,
    /// When the recording started: the header's timestamp (local time, DDNet writes
    /// `2026-11-22_01-37-51`) in ISO 8601 (`2026-11-22T01:37:51`), as the game model
    /// writes every start time ([`crate::model::start_time_of_demo`]).
    pub start_time: String,
    /// The timeline markers in use: their ticks.
    pub markers: Vec<i32>,
    /// Offset of the embedded map.
    pub map_offset: usize,
    /// Offset of the first chunk.
    pub chunks_offset: usize,
    /// Tick of the first tick marker.
    pub first_tick: Option<i32>,
    /// Tick of the last tick marker.
    pub last_tick: Option<i32>,
    /// Chunk counts.
    pub counts: Counts,
    /// Compressed payload bytes over all data chunks.
    pub payload_bytes: u64,
    /// The embedded map's own facts, read from the map file (none when the demo embeds
    /// no map or the map is no datafile).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub map: Option<MapFacts>,
    /// Why the embedded map does not open as a datafile, when it does not.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub map_error: Option<MapReadError>,
}

/// Where and why an embedded map is not a datafile.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MapReadError {
    /// Offset in the demo file.
    pub offset: u64,
    /// What is wrong.
    pub message: String,
}

impl Summary {
    /// Scans a demo. On a chunk error the summary covers everything before it and the
    /// error is returned beside it.
    pub fn scan(data: &[u8]) -> Result<(Summary, Option<ReadError>), ReadError> {
        let slice = DemoSlice::parse(data)?;
        let mut summary = Summary::start(
            slice.prelude(),
            slice.map(),
            slice.map_offset(),
            slice.chunks_offset(),
        );
        for item in slice.chunks() {
            match item {
                Ok(item) => summary.add(&item),
                Err(e) => return Ok((summary, Some(e))),
            }
        }
        Ok((summary, None))
    }

    /// [`scan`](Self::scan) over any [`Read`], one chunk at a time: memory does not grow
    /// with the demo beyond its embedded map.
    pub fn scan_reader<R: Read>(input: R) -> Result<(Summary, Option<ReadError>), ReadError> {
        let mut reader = DemoReader::new(input)?;
        let map_offset = reader.prelude().map_offset();
        let chunks_offset = usize::try_from(reader.position()).unwrap_or(usize::MAX);
        let mut summary = Summary::start(reader.prelude(), reader.map(), map_offset, chunks_offset);
        while let Some(item) = reader.next() {
            match item {
                Ok(item) => summary.add(&item),
                Err(e) => return Ok((summary, Some(e))),
            }
        }
        Ok((summary, None))
    }

    /// The summary of the prelude and the map, before any chunk.
    fn start(p: &Prelude, map: &[u8], map_offset: usize, chunks_offset: usize) -> Summary {
        let h = &p.header;
        let mut summary = Summary {
            format: "twdemo",
            version: p.version(),
            net_version: h.net_version.to_string_lossy(),
            map_name: h.map_name.to_string_lossy(),
            map_size: h.map_size,
            map_crc: format!("{:08x}", h.map_crc),
            map_sha256: p.map_sha256.map(|s| hex::encode(s.digest)),
            kind: h.kind.to_string_lossy(),
            length: h.length,
            start_time: crate::model::start_time_of_demo(&h.timestamp.to_string_lossy()),
            markers: p.markers_in_use().to_vec(),
            map_offset,
            chunks_offset,
            first_tick: None,
            last_tick: None,
            counts: Counts::default(),
            payload_bytes: 0,
            map: None,
            map_error: None,
        };
        if !map.is_empty() {
            match MapFacts::read(map) {
                Ok(facts) => summary.map = Some(facts),
                Err(e) => {
                    summary.map_error = Some(MapReadError {
                        offset: map_offset as u64 + e.offset,
                        message: e.kind.to_string(),
                    })
                }
            }
        }
        summary
    }

    /// Counts one chunk.
    fn add(&mut self, item: &ChunkAt<'_>) {
        let c = &mut self.counts;
        match item.chunk {
            Chunk::Tick(m) => {
                c.tick_markers += 1;
                c.keyframes += m.keyframe as u64;
                self.first_tick.get_or_insert(m.tick);
                self.last_tick = Some(m.tick);
            }
            Chunk::Data(d) => {
                self.payload_bytes += d.payload.len() as u64;
                match d.kind {
                    ChunkKind::Snapshot => c.snapshots += 1,
                    ChunkKind::SnapshotDelta => c.deltas += 1,
                    ChunkKind::Message => c.messages += 1,
                    ChunkKind::Unknown => c.unknown += 1,
                }
            }
        }
    }
}
