//! A recorder for programs that write demos, following DDNet's `CDemoRecorder`.
//!
//! It computes the map's CRC-32 and SHA-256, picks the tick-marker form the way DDNet does,
//! pads and encodes payloads, keeps timeline markers under DDNet's rules, and patches the
//! length and markers on [`finish`](Recorder::finish). Until then the header says length 0
//! and no markers, so a recording cut off by a crash still reads, as in DDNet.
//!
//! [`record_snapshot`](Recorder::record_snapshot) follows DDNet's `RecordSnapshot`:
//! keyframes, deltas against the last written snapshot, and marker-only ticks. Building
//! the snapshots is the caller's job ([`SnapshotBuilder`](super::items::SnapshotBuilder)).
//!
//! When the sink fails (disk full, closed pipe), the call returns [`WriteError::Io`] and the
//! recorder writes nothing more: how much of the failed write landed is unknown, so every
//! later call, [`finish`](Recorder::finish) included, returns [`WriteError::Io`] of the same
//! kind without touching the sink. The file then ends in whole chunks, possibly followed by
//! part of one, with length 0 and no markers in the header, as a crash leaves it
//! ([`repair`](crate::twdemo::edit::repair::repair) finishes it).

use super::delta::{self, ItemSizes};
use super::items::{Snapshot, SnapshotBuf};
use crate::codec::huffman::LengthRule;
use crate::codec::string::FixedStr;
use crate::codec::varint;
use crate::time::SERVER_TICK_SPEED;
use crate::twdemo::container::error::WriteError;
use crate::twdemo::container::format::*;
use crate::twdemo::container::reader::{Prelude, TickMarker};
use crate::twdemo::container::writer::DemoWriter;
use sha2::Digest;
use std::io::{self, Seek, SeekFrom, Write};

/// Most bytes DDNet's recorder accepts for one payload before padding.
pub(crate) const MAX_RAW_PAYLOAD: usize = 64 * 1024;
/// [`Recorder::record_snapshot`] writes a keyframe when more ticks than this have passed
/// since the last one (DDNet's `SERVER_TICK_SPEED * 5`).
pub const KEYFRAME_INTERVAL: i32 = SERVER_TICK_SPEED * 5;

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
    /// Static item sizes for deltas, from the network version.
    item_sizes: ItemSizes,
    /// The tick of the last keyframe `record_snapshot` wrote.
    last_keyframe: Option<i32>,
    /// The last snapshot `record_snapshot` wrote, in full or as a delta.
    last_snapshot: SnapshotBuf,
    /// Scratch for deltas.
    delta: Vec<i32>,
    /// The kind of the sink's error, once a write failed: nothing more is written.
    poisoned: Option<io::ErrorKind>,
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
            item_sizes: ItemSizes::for_net_version(&config.net_version),
            last_keyframe: None,
            last_snapshot: SnapshotBuf::new(),
            delta: Vec::new(),
            poisoned: None,
        })
    }

    /// Whether a write to the sink failed; the recorder then refuses every call.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.is_some()
    }

    /// Refuses every call once the sink has failed.
    fn live(&self) -> Result<(), WriteError> {
        match self.poisoned {
            None => Ok(()),
            Some(kind) => Err(WriteError::Io(io::Error::new(
                kind,
                "refused: an earlier write to the sink failed",
            ))),
        }
    }

    /// Passes `result` on, poisoning the recorder if the sink failed.
    fn watch<T>(&mut self, result: Result<T, WriteError>) -> Result<T, WriteError> {
        if let Err(WriteError::Io(e)) = &result {
            self.poisoned.get_or_insert(e.kind());
        }
        result
    }

    /// Records the snapshot of `tick` the way DDNet's `RecordSnapshot` does.
    ///
    /// * The first snapshot, and any more than [`KEYFRAME_INTERVAL`] ticks after the last
    ///   keyframe, is a keyframe: an absolute tick marker with the keyframe bit, then a
    ///   snapshot chunk with the whole snapshot.
    /// * Any other writes a tick marker, then a delta chunk against the last snapshot
    ///   written (in full or as a delta). If nothing changed, only the tick marker is
    ///   written and the last written snapshot stays the base of the next delta.
    ///
    /// Deltas use the item sizes of the configured network version (see
    /// [`set_item_sizes`](Self::set_item_sizes)). Unlike DDNet, which writes the marker
    /// and then silently drops a delta over 64 KiB, this refuses such a delta with
    /// [`WriteError::TooLarge`] before writing anything, and remembers nothing.
    pub fn record_snapshot(&mut self, tick: i32, snapshot: Snapshot<'_>) -> Result<(), WriteError> {
        self.live()?;
        let keyframe = self
            .last_keyframe
            .is_none_or(|last| tick as i64 - last as i64 > KEYFRAME_INTERVAL as i64);
        if keyframe {
            self.record_tick_marker(tick, true)?;
            self.record_snapshot_ints(snapshot.as_ints())?;
            self.last_keyframe = Some(tick);
            self.last_snapshot.copy_from(snapshot);
            return Ok(());
        }
        let changed = delta::create_delta_into(
            &self.last_snapshot.as_snapshot(),
            &snapshot,
            &self.item_sizes,
            &mut self.delta,
        );
        if changed && self.delta.len() * 4 > MAX_RAW_PAYLOAD {
            return Err(WriteError::TooLarge {
                what: "snapshot delta",
                size: self.delta.len() * 4,
                limit: MAX_RAW_PAYLOAD,
            });
        }
        self.record_tick_marker(tick, false)?;
        if changed {
            let delta = std::mem::take(&mut self.delta);
            let result = self.record_delta_ints(&delta);
            self.delta = delta;
            result?;
            self.last_snapshot.copy_from(snapshot);
        }
        Ok(())
    }

    /// The item sizes deltas are written with: from the network version given at
    /// [`start`](Self::start) (the 0.7 table when it starts with `"0.7"`).
    pub fn item_sizes(&self) -> &ItemSizes {
        &self.item_sizes
    }

    /// Sets the item sizes deltas are written with, for a protocol whose table the
    /// network version does not tell, or to write item types as DDNet PR #12563 does
    /// ([`ItemSizes::with_item_types`]).
    pub fn set_item_sizes(&mut self, sizes: ItemSizes) {
        self.item_sizes = sizes;
    }

    /// The tick of the last keyframe [`record_snapshot`](Self::record_snapshot) wrote.
    pub fn last_keyframe(&self) -> Option<i32> {
        self.last_keyframe
    }

    /// Writes a tick marker. Like DDNet, the marker is absolute when it is the first, a
    /// keyframe, or too far from the previous one for the one-byte form (31 ticks from
    /// version 5 on, 63 before, as vanilla Teeworlds writes); otherwise it is one byte.
    pub fn record_tick_marker(&mut self, tick: i32, keyframe: bool) -> Result<(), WriteError> {
        if !(0..crate::twdemo::container::reader::MAX_TICK as i32).contains(&tick) {
            return Err(WriteError::TickOutOfRange { tick: tick.into() });
        }
        let form = if keyframe || !self.writer.delta_fits(tick) {
            TickForm::Absolute
        } else {
            TickForm::Delta
        };
        self.live()?;
        let result = self.writer.write_tick_marker(TickMarker {
            tick,
            keyframe,
            form,
        });
        self.watch(result)?;
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
        self.live()?;
        let mut words = std::mem::take(&mut self.words);
        words.clear();
        varint::pad_to_words(bytes, &mut words);
        let result = self.writer.write_ints(kind, &words, self.rule, None);
        self.words = words;
        self.watch(result)
    }

    fn record_ints(&mut self, kind: ChunkKind, ints: &[i32]) -> Result<(), WriteError> {
        if ints.len() * 4 > MAX_RAW_PAYLOAD {
            return Err(WriteError::TooLarge {
                what: "chunk payload",
                size: ints.len() * 4,
                limit: MAX_RAW_PAYLOAD,
            });
        }
        self.live()?;
        let result = self.writer.write_ints(kind, ints, self.rule, None);
        self.watch(result)
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
        self.live()?;
        let result = self.writer.flush();
        self.watch(result)
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
    ///
    /// After a failed write it patches nothing and returns the error: the header keeps
    /// saying length 0 and no markers, as for a crash.
    pub fn finish(self) -> Result<W, WriteError> {
        self.live()?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twdemo::container::payload::PayloadDecoder;
    use crate::twdemo::container::reader::{Chunk, DemoSlice};
    use crate::twdemo::snapshot::SnapshotBuilder;
    use std::io::Cursor;

    fn snap(items: &[(i32, i32, &[i32])]) -> SnapshotBuf {
        let mut b = SnapshotBuilder::new();
        for &(t, id, data) in items {
            b.add_item(t, id, data).unwrap();
        }
        b.finish()
    }

    /// A tick marker as (tick, keyframe), or a chunk as (kind, ints).
    type Seen = (Option<(i32, bool)>, Option<(ChunkKind, Vec<i32>)>);

    /// Every marker and chunk, in order.
    fn records(data: &[u8]) -> Vec<Seen> {
        let mut decoder = PayloadDecoder::new();
        DemoSlice::parse(data)
            .unwrap()
            .chunks()
            .map(|c| match c.unwrap().chunk {
                Chunk::Tick(t) => (Some((t.tick, t.keyframe)), None),
                Chunk::Data(d) => (
                    None,
                    Some((d.kind, decoder.decode(d.payload).unwrap().ints.to_vec())),
                ),
            })
            .collect()
    }

    #[test]
    fn keyframes_deltas_and_marker_only_ticks() {
        let config = RecorderConfig::ddnet("dm1", "2026-11-22_10-00-00");
        let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"map").unwrap();
        let xy = snap(&[(30, 1, &[1]), (30, 2, &[2])]);
        let yx = snap(&[(30, 2, &[2]), (30, 1, &[1])]);
        rec.record_snapshot(10, xy.as_snapshot()).unwrap();
        // Same items in another order: nothing to write but the marker, and the base of
        // the next delta stays the written snapshot (its order decides the deleted list).
        rec.record_snapshot(11, yx.as_snapshot()).unwrap();
        rec.record_snapshot(260, snap(&[]).as_snapshot()).unwrap(); // 250 after: no keyframe
        rec.record_snapshot(261, xy.as_snapshot()).unwrap(); // 251 after: keyframe
        let out = rec.finish().unwrap().into_inner();
        let deleted = vec![2, 0, 0, 30 << 16 | 1, 30 << 16 | 2];
        assert_eq!(
            records(&out),
            [
                (Some((10, true)), None),
                (None, Some((ChunkKind::Snapshot, xy.as_ints().to_vec()))),
                (Some((11, false)), None),
                (Some((260, false)), None),
                (None, Some((ChunkKind::SnapshotDelta, deleted))),
                (Some((261, true)), None),
                (None, Some((ChunkKind::Snapshot, xy.as_ints().to_vec()))),
            ]
        );
    }

    #[test]
    fn sixup_demos_use_the_0_7_sizes() {
        let mut config = RecorderConfig::ddnet("dm1", "2026-11-22_10-00-00");
        config.net_version = "0.7 802f1be60a05665f".into();
        let rec = Recorder::start(Cursor::new(Vec::new()), &config, b"map").unwrap();
        assert_eq!(*rec.item_sizes(), ItemSizes::TEEWORLDS_0_7);
    }
}
