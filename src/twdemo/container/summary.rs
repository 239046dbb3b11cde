//! What `demokit info` reports about a demo: header fields and chunk counts from one pass
//! over the chunk headers (payloads are not decoded), and the embedded map's own facts from
//! the [datafile reader](crate::datafile).

use super::error::ReadError;
use super::format::ChunkKind;
use super::reader::{Chunk, DemoSlice};
use crate::datafile::MapFacts;

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
    /// Header timestamp.
    pub timestamp: String,
    /// Timeline markers in use.
    pub timeline_markers: Vec<i32>,
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
        let p = slice.prelude();
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
            timestamp: h.timestamp.to_string_lossy(),
            timeline_markers: p.markers_in_use().to_vec(),
            map_offset: slice.map_offset(),
            chunks_offset: slice.chunks_offset(),
            first_tick: None,
            last_tick: None,
            counts: Counts::default(),
            payload_bytes: 0,
            map: None,
            map_error: None,
        };
        if !slice.map().is_empty() {
            match MapFacts::read(slice.map()) {
                Ok(facts) => summary.map = Some(facts),
                Err(e) => {
                    summary.map_error = Some(MapReadError {
                        offset: slice.map_offset() as u64 + e.offset,
                        message: e.kind.to_string(),
                    })
                }
            }
        }
        let c = &mut summary.counts;
        for item in slice.chunks() {
            let item = match item {
                Ok(item) => item,
                Err(e) => return Ok((summary, Some(e))),
            };
            match item.chunk {
                Chunk::Tick(m) => {
                    c.tick_markers += 1;
                    c.keyframes += m.keyframe as u64;
                    summary.first_tick.get_or_insert(m.tick);
                    summary.last_tick = Some(m.tick);
                }
                Chunk::Data(d) => {
                    summary.payload_bytes += d.payload.len() as u64;
                    match d.kind {
                        ChunkKind::Snapshot => c.snapshots += 1,
                        ChunkKind::SnapshotDelta => c.deltas += 1,
                        ChunkKind::Message => c.messages += 1,
                        ChunkKind::Unknown => c.unknown += 1,
                    }
                }
            }
        }
        Ok((summary, None))
    }
}
