//! A recorder for programs that write demos, following DDNet's `CDemoRecorder`.
//!
//! It computes the map's CRC-32 and SHA-256, picks the tick-marker form the way DDNet does,
//! pads and encodes payloads, keeps timeline markers under DDNet's rules, and patches the
//! length and markers on [`finish`](Recorder::finish). Until then the header says length 0
//! and no markers, so a recording cut off by a crash still reads, as in DDNet.

use super::error::WriteError;
use super::format::*;
use super::reader::{Prelude, TickMarker};
use super::writer::DemoWriter;
use crate::codec::huffman::LengthRule;
use crate::codec::string::FixedStr;
use crate::codec::varint;
use sha2::Digest;
use std::io::{Seek, SeekFrom, Write};

/// Most bytes DDNet's recorder accepts for one payload before padding.
pub const MAX_RAW_PAYLOAD: usize = 64 * 1024;
/// Ticks per second of a Teeworlds server: the unit of `length` and of marker spacing.
pub const SERVER_TICK_SPEED: i32 = 50;

/// What a recording starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecorderConfig {
    /// Format version, 3 to 6. DDNet writes 6; vanilla Teeworlds 0.6 writes 4 (0.6.1: 3).
    pub version: u8,
    /// Network version, e.g. `"0.6 626fce9a778df4d4"`.
    pub net_version: String,
    /// Map base name.
    pub map_name: String,
    /// `"client"` or `"server"`.
    pub kind: String,
    /// Start time as `"%Y-%m-%d_%H-%M-%S"`.
    pub timestamp: String,
    /// The Huffman length rule: [`LengthRule::Tight`] as DDNet 20.1 writes, or
    /// [`LengthRule::TrailingByte`] as every earlier writer did.
    pub huffman_rule: LengthRule,
    /// The map CRC-32 to store; `None` computes it from the map. DDNet's recorder takes
    /// the value its caller already has, which is what this is for.
    pub map_crc: Option<u32>,
    /// The map SHA-256 to store (version 6); `None` computes it from the map.
    pub map_sha256: Option<[u8; 32]>,
}

impl RecorderConfig {
    /// DDNet's current defaults: version 6, the 0.6 network version, a client demo, tight
    /// Huffman streams; the timestamp is left to the caller (it is local time in DDNet).
    pub fn ddnet(map_name: &str, timestamp: &str) -> Self {
        RecorderConfig {
            version: 6,
            net_version: "0.6 626fce9a778df4d4".into(),
            map_name: map_name.into(),
            kind: "client".into(),
            timestamp: timestamp.into(),
            huffman_rule: LengthRule::Tight,
            map_crc: None,
            map_sha256: None,
        }
    }
}

/// Records a demo to a seekable sink.
pub struct Recorder<W: Write + Seek> {
    writer: DemoWriter<W>,
    base: u64,
    version: u8,
    rule: LengthRule,
    first_tick: Option<i32>,
    markers: Vec<i32>,
    words: Vec<i32>,
}

fn field<const N: usize>(text: &str, name: &'static str) -> Result<FixedStr<N>, WriteError> {
    FixedStr::new(text).ok_or(WriteError::FieldTooLong {
        field: name,
        size: N,
    })
}

impl<W: Write + Seek> Recorder<W> {
    /// Writes the header and the map and returns a recorder ready for tick markers.
    pub fn start(mut sink: W, config: &RecorderConfig, map: &[u8]) -> Result<Self, WriteError> {
        if !(OLDEST_VERSION..=FIRST_VERSION_WITH_SHA256).contains(&config.version) {
            return Err(WriteError::UnsupportedVersion(config.version));
        }
        let map_size = u32::try_from(map.len()).map_err(|_| WriteError::TooLarge {
            what: "map",
            size: map.len(),
            limit: u32::MAX as usize,
        })?;
        let header = Header {
            net_version: field(&config.net_version, "net_version")?,
            map_name: field(&config.map_name, "map_name")?,
            map_size,
            map_crc: config.map_crc.unwrap_or_else(|| crc32fast::hash(map)),
            kind: field(&config.kind, "type")?,
            length: 0,
            timestamp: field(&config.timestamp, "timestamp")?,
        };
        let prelude = Prelude {
            version_header: VersionHeader {
                magic: MAGIC,
                version: config.version,
            },
            header,
            timeline_markers: (config.version >= FIRST_VERSION_WITH_MARKERS)
                .then_some(TimelineMarkers::EMPTY),
            map_sha256: (config.version >= FIRST_VERSION_WITH_SHA256).then(|| MapSha256 {
                uuid: SHA256_EXTENSION_UUID,
                digest: config
                    .map_sha256
                    .unwrap_or_else(|| sha2::Sha256::digest(map).into()),
            }),
        };
        let base = sink.stream_position()?;
        Ok(Recorder {
            writer: DemoWriter::new(sink, &prelude, map)?,
            base,
            version: config.version,
            rule: config.huffman_rule,
            first_tick: None,
            markers: Vec::new(),
            words: Vec::new(),
        })
    }

    /// Writes a tick marker. Like DDNet, the marker is absolute when it is the first, a
    /// keyframe, or too far from the previous one for the one-byte form (31 ticks from
    /// version 5 on, 63 before, as vanilla Teeworlds writes); otherwise it is one byte.
    pub fn record_tick_marker(&mut self, tick: i32, keyframe: bool) -> Result<(), WriteError> {
        if !(0..super::reader::MAX_TICK as i32).contains(&tick) {
            return Err(WriteError::Unrepresentable(
                "tick is outside [0, 0x6FFFFFFF), which readers reject",
            ));
        }
        let form = if keyframe || !self.writer.delta_fits(tick) {
            TickForm::Absolute
        } else {
            TickForm::Delta
        };
        self.writer.write_tick_marker(TickMarker {
            tick,
            keyframe,
            form,
        })?;
        self.first_tick.get_or_insert(tick);
        Ok(())
    }

    /// Writes a full-snapshot chunk from its int words.
    pub fn record_snapshot_ints(&mut self, ints: &[i32]) -> Result<(), WriteError> {
        self.record_ints(ChunkKind::Snapshot, ints)
    }

    /// Writes a snapshot-delta chunk from its int words.
    pub fn record_delta_ints(&mut self, ints: &[i32]) -> Result<(), WriteError> {
        self.record_ints(ChunkKind::SnapshotDelta, ints)
    }

    /// Writes a message chunk: the packed network message, zero-padded to whole words as
    /// DDNet pads it (a reader gets the padded length back).
    pub fn record_message(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.record_bytes(ChunkKind::Message, bytes)
    }

    /// Writes a chunk of `kind` from a byte payload, padded like DDNet's `Write`.
    pub fn record_bytes(&mut self, kind: ChunkKind, bytes: &[u8]) -> Result<(), WriteError> {
        if bytes.len() > MAX_RAW_PAYLOAD {
            return Err(WriteError::TooLarge {
                what: "chunk payload",
                size: bytes.len(),
                limit: MAX_RAW_PAYLOAD,
            });
        }
        let mut words = std::mem::take(&mut self.words);
        words.clear();
        varint::pad_to_words(bytes, &mut words);
        let result = self.writer.write_ints(kind, &words, self.rule, None);
        self.words = words;
        result
    }

    fn record_ints(&mut self, kind: ChunkKind, ints: &[i32]) -> Result<(), WriteError> {
        if ints.len() * 4 > MAX_RAW_PAYLOAD {
            return Err(WriteError::TooLarge {
                what: "chunk payload",
                size: ints.len() * 4,
                limit: MAX_RAW_PAYLOAD,
            });
        }
        self.writer.write_ints(kind, ints, self.rule, None)
    }

    /// Adds a timeline marker at `tick`. Like DDNet it returns `false` and ignores the
    /// marker when 64 exist already or the previous one is less than a second (50 ticks)
    /// before it. Version 3 has no marker block; markers are then kept but not written.
    pub fn add_timeline_marker(&mut self, tick: i32) -> bool {
        if self.markers.len() >= MAX_TIMELINE_MARKERS {
            return false;
        }
        if let Some(&last) = self.markers.last()
            && (tick as i64 - last as i64) < SERVER_TICK_SPEED as i64
        {
            return false;
        }
        self.markers.push(tick);
        true
    }

    /// Adds a timeline marker at the last tick marker written (DDNet's `AddDemoMarker()`).
    pub fn add_timeline_marker_now(&mut self) -> bool {
        match self.writer.last_tick() {
            Some(tick) => self.add_timeline_marker(tick),
            None => false,
        }
    }

    /// The tick of the last tick marker written.
    pub fn last_tick(&self) -> Option<i32> {
        self.writer.last_tick()
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.writer.position()
    }

    /// Flushes what has been written, so that a crash after this leaves it readable.
    pub fn flush(&mut self) -> Result<(), WriteError> {
        self.writer.flush()
    }

    /// The sink, as far as it has been written (what a crash would leave behind, once
    /// flushed).
    pub fn get_ref(&self) -> &W {
        self.writer.get_ref()
    }

    /// The length DDNet stores: whole seconds from the first to the last tick marker.
    pub fn length(&self) -> i32 {
        match (self.first_tick, self.writer.last_tick()) {
            (Some(first), Some(last)) => (last - first) / SERVER_TICK_SPEED,
            _ => 0,
        }
    }

    /// Patches the length and the timeline markers into the header, like DDNet's `Stop`,
    /// and returns the sink positioned at the end of the demo.
    pub fn finish(self) -> Result<W, WriteError> {
        let length = self.length();
        let mut sink = self.writer.into_inner()?;
        let end = sink.stream_position()?;
        sink.seek(SeekFrom::Start(self.base + LENGTH_OFFSET))?;
        sink.write_all(&length.to_be_bytes())?;
        if self.version >= FIRST_VERSION_WITH_MARKERS {
            let mut block = Vec::with_capacity(4 + 4 * self.markers.len());
            block.extend_from_slice(&(self.markers.len() as i32).to_be_bytes());
            for tick in &self.markers {
                block.extend_from_slice(&tick.to_be_bytes());
            }
            sink.seek(SeekFrom::Start(self.base + TIMELINE_MARKERS_OFFSET))?;
            sink.write_all(&block)?;
        }
        sink.seek(SeekFrom::Start(end))?;
        sink.flush()?;
        Ok(sink)
    }
}
