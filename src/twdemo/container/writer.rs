//! The writer: emits a prelude, a map and any sequence of chunks, in the tick-marker form
//! the version calls for.
//!
//! It writes exactly what it is told: given the stored header and payload of a chunk it
//! reproduces them byte for byte; given ints it encodes them as DDNet does. Policy (when a
//! keyframe is due, when a marker may be relative) belongs to the [`Recorder`](crate::twdemo::Recorder).
//!
//! Whatever it writes reads back as what it was given: the prelude is read back with the
//! reader's own parser before it is written, every tick marker goes through the reader's
//! tick arithmetic, and a stored chunk header must be exactly what its lead byte announces.
//! Anything else is refused with [`WriteError`] and nothing is written.

use super::error::WriteError;
use super::format::*;
use super::payload::{MAX_PAYLOAD_BYTES, PayloadEncoder};
use super::reader::{Prelude, TickMarker, TickState};
use crate::codec::huffman::LengthRule;
use binrw::BinWrite;
use std::io::{Cursor, Write};

/// Writes a demo to any [`Write`], front to back, never seeking.
pub struct DemoWriter<W: Write> {
    sink: W,
    tick_compression: bool,
    /// The tick arithmetic a reader applies to what has been written.
    ticks: TickState,
    /// How many bytes of the SHA-256 block's UUID the bytes after the timeline markers have
    /// matched so far, while a version-6 demo without the block could still read as one
    /// that has it (a map shorter than the UUID that starts like it).
    sha_prefix: Option<usize>,
    encoder: PayloadEncoder,
    position: u64,
}

impl<W: Write> DemoWriter<W> {
    /// Writes the prelude and the embedded map.
    ///
    /// `map.len()` must equal the header's `map_size`, or the file could not be read back.
    pub fn new(mut sink: W, prelude: &Prelude, map: &[u8]) -> Result<Self, WriteError> {
        if map.len() as u64 != prelude.header.map_size as u64 {
            return Err(WriteError::MapSizeMismatch {
                map_len: map.len(),
                map_size: prelude.header.map_size,
            });
        }
        let version = prelude.version();
        if prelude.timeline_markers.is_some() != (version >= FIRST_VERSION_WITH_MARKERS)
            || (prelude.map_sha256.is_some() && version < FIRST_VERSION_WITH_SHA256)
        {
            return Err(WriteError::BlocksDoNotMatchVersion { version });
        }
        let mut head = Cursor::new(Vec::with_capacity(prelude.map_offset()));
        prelude.write(&mut head)?;
        let mut head = head.into_inner();
        // The reader decides where the map starts from the bytes after the timeline markers
        // (in version 6, the SHA-256 block's UUID there means the block), and refuses magic,
        // versions and header strings it cannot read: ask it. A map shorter than the UUID
        // that starts like it is told apart only by the chunk bytes after it, which are
        // checked as they are written.
        let uuid = &SHA256_EXTENSION_UUID;
        let sha_prefix = (version >= FIRST_VERSION_WITH_SHA256
            && prelude.map_sha256.is_none()
            && map.len() < uuid.len()
            && uuid.starts_with(map))
        .then_some(map.len());
        let probe = if sha_prefix.is_some() {
            0
        } else {
            map.len().min(uuid.len())
        };
        head.extend(map.iter().take(probe));
        if Prelude::parse(&head).ok().as_ref() != Some(prelude) {
            return Err(WriteError::PreludeDoesNotReadBack);
        }
        head.truncate(head.len() - probe);
        sink.write_all(&head)?;
        sink.write_all(map)?;
        Ok(DemoWriter {
            sink,
            tick_compression: prelude.tick_compression(),
            ticks: TickState::new(prelude.tick_compression()),
            sha_prefix,
            encoder: PayloadEncoder::new(),
            position: (head.len() + map.len()) as u64,
        })
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// The tick of the last tick marker written.
    pub fn last_tick(&self) -> Option<i32> {
        self.ticks.current()
    }

    /// Whether `tick` can be written as a one-byte delta after the last marker.
    pub fn delta_fits(&self, tick: i32) -> bool {
        let marker = TickMarker {
            tick,
            keyframe: false,
            form: TickForm::Delta,
        };
        tick_marker_header(&marker, self.last_tick(), self.tick_compression).is_some()
    }

    /// Writes a tick marker in the form `marker.form` names.
    pub fn write_tick_marker(&mut self, marker: TickMarker) -> Result<(), WriteError> {
        let last_tick = self.last_tick();
        let header = tick_marker_header(&marker, last_tick, self.tick_compression).ok_or(
            WriteError::TickForm {
                tick: marker.tick,
                form: marker.form,
                last_tick,
            },
        )?;
        let mut ticks = self.ticks;
        // The header holds the marker's tick and form, so only the tick's range can fail.
        if ticks.apply(&header).ok() != Some(marker) {
            return Err(WriteError::TickOutOfRange {
                tick: marker.tick.into(),
            });
        }
        self.put_chunk(&header, &[])?;
        self.ticks = ticks;
        Ok(())
    }

    /// Writes a data chunk whose payload is already encoded, with its size in `form`.
    pub fn write_stored(
        &mut self,
        kind: ChunkKind,
        form: SizeForm,
        payload: &[u8],
    ) -> Result<(), WriteError> {
        if payload.len() > MAX_PAYLOAD_BYTES {
            return Err(WriteError::TooLarge {
                what: "compressed chunk payload",
                size: payload.len(),
                limit: MAX_PAYLOAD_BYTES,
            });
        }
        let header =
            RawChunkHeader::data(kind, payload.len(), form).ok_or(WriteError::SizeForm {
                size: payload.len(),
                form,
            })?;
        self.put_chunk(&header, payload)
    }

    /// Packs and Huffman-codes `ints` under `rule` and writes them as a data chunk, with the
    /// size in `form` or, if `None`, in the shortest form (as DDNet does).
    pub fn write_ints(
        &mut self,
        kind: ChunkKind,
        ints: &[i32],
        rule: LengthRule,
        form: Option<SizeForm>,
    ) -> Result<(), WriteError> {
        let mut encoder = std::mem::take(&mut self.encoder);
        let stored = encoder.encode(ints, rule);
        let form = form.unwrap_or(SizeForm::shortest(stored.len()));
        let result = self.write_stored(kind, form, stored);
        self.encoder = encoder;
        result
    }

    /// Writes a chunk exactly as stored: its header and, for a data chunk, its payload.
    ///
    /// The header must be well formed ([`RawChunkHeader::is_well_formed`]); for a tick
    /// marker, `tick` is the absolute tick it stands for, and must be the tick a reader
    /// computes from the header after the markers written so far.
    pub fn write_raw(
        &mut self,
        header: &RawChunkHeader,
        tick: Option<i32>,
        payload: &[u8],
    ) -> Result<(), WriteError> {
        if !header.is_well_formed(self.tick_compression) {
            return Err(WriteError::MalformedRawHeader);
        }
        if header.is_tick_marker() {
            let tick = tick.ok_or(WriteError::RawTickMissing)?;
            let mut ticks = self.ticks;
            let reads_as = ticks.apply(header).ok().map(|m| m.tick);
            if reads_as != Some(tick) {
                return Err(WriteError::RawTickMismatch { tick, reads_as });
            }
            if !payload.is_empty() {
                return Err(WriteError::TickMarkerPayload { len: payload.len() });
            }
            self.put_chunk(header, &[])?;
            self.ticks = ticks;
            return Ok(());
        }
        if header.payload_size() != payload.len() {
            return Err(WriteError::RawSizeMismatch {
                header_size: header.payload_size(),
                payload_len: payload.len(),
            });
        }
        self.put_chunk(header, payload)
    }

    /// Flushes the sink.
    pub fn flush(&mut self) -> Result<(), WriteError> {
        self.sink.flush()?;
        Ok(())
    }

    /// A reference to the sink.
    pub fn get_ref(&self) -> &W {
        &self.sink
    }

    /// Flushes and returns the sink.
    ///
    /// Fails, after flushing, when the file ends in what a reader takes for a cut SHA-256
    /// block: a version-6 map without the block that is a proper prefix of the block's
    /// UUID, with no chunk after it that tells the two apart.
    pub fn into_inner(mut self) -> Result<W, WriteError> {
        self.sink.flush()?;
        if self.sha_prefix.is_some_and(|matched| matched > 0) {
            return Err(WriteError::EndsAsCutSha256Block);
        }
        Ok(self.sink)
    }

    /// Writes a chunk's header and payload in one piece, unless they would continue a map
    /// that starts like the SHA-256 block's UUID into all of it.
    fn put_chunk(&mut self, header: &RawChunkHeader, payload: &[u8]) -> Result<(), WriteError> {
        let mut buf = Cursor::new([0u8; 5]);
        header.write_args(&mut buf, (self.tick_compression,))?;
        // The header was written into `buf`: its position is within it.
        let head = buf
            .get_ref()
            .get(..buf.position() as usize)
            .unwrap_or_default();
        let uuid = &SHA256_EXTENSION_UUID;
        let sha_prefix = self.sha_prefix.and_then(|matched| {
            let more = head.iter().chain(payload).take(uuid.len() - matched);
            let agree = more
                .zip(uuid.iter().skip(matched))
                .take_while(|(a, b)| a == b)
                .count();
            let total = (head.len() + payload.len()).min(uuid.len() - matched);
            // Still undecided only while every byte so far matched.
            (agree == total).then_some(matched + agree)
        });
        if sha_prefix == Some(uuid.len()) {
            return Err(WriteError::ReadsAsSha256Block);
        }
        self.sink.write_all(head)?;
        self.sink.write_all(payload)?;
        self.position += (head.len() + payload.len()) as u64;
        self.sha_prefix = sha_prefix;
        Ok(())
    }
}

/// The header of `marker` written after a marker at `last_tick`, or `None` if its form
/// cannot express it: a delta needs a previous marker and must fit 5 bits (version 5 on)
/// or be 1 to 63 (versions 3 and 4, where 0 means "absolute tick follows").
pub(crate) fn tick_marker_header(
    marker: &TickMarker,
    last_tick: Option<i32>,
    tick_compression: bool,
) -> Option<RawChunkHeader> {
    let keyframe = if marker.keyframe { KEYFRAME_FLAG } else { 0 };
    let (lead, absolute_tick) = match marker.form {
        TickForm::Absolute => (TICK_MARKER_FLAG | keyframe, Some(marker.tick)),
        TickForm::Delta => {
            let delta = marker.tick as i64 - last_tick? as i64;
            let (flag, range) = if tick_compression {
                (TICK_COMPRESSED_FLAG, 0..=TICK_DELTA_MASK as i64)
            } else {
                (0, 1..=LEGACY_TICK_DELTA_MASK as i64)
            };
            if !range.contains(&delta) {
                return None;
            }
            (TICK_MARKER_FLAG | keyframe | flag | delta as u8, None)
        }
    };
    Some(RawChunkHeader {
        lead,
        absolute_tick,
        size_byte: None,
        size_word: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twdemo::{DemoSlice, Recorder, RecorderConfig};

    /// The prelude and map of a small recorded demo.
    fn prelude_and_map() -> (Prelude, Vec<u8>) {
        let config = RecorderConfig::ddnet("dm1", "2024-01-01_00-00-00");
        let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"MAPDATA!").unwrap();
        rec.record_tick_marker(1, true).unwrap();
        let bytes = rec.finish().unwrap().into_inner();
        let slice = DemoSlice::parse(&bytes).unwrap();
        (*slice.prelude(), slice.map().to_vec())
    }

    /// Each refusal names what was wrong with the values involved, not a sentence.
    #[test]
    fn refusals_are_typed() {
        let (prelude, map) = prelude_and_map();
        assert!(matches!(
            DemoWriter::new(Vec::new(), &prelude, &map[1..]).err(),
            Some(WriteError::MapSizeMismatch {
                map_len: 7,
                map_size: 8
            })
        ));
        let mut w = DemoWriter::new(Vec::new(), &prelude, &map).unwrap();
        let delta = TickMarker {
            tick: 5,
            keyframe: false,
            form: TickForm::Delta,
        };
        assert!(matches!(
            w.write_tick_marker(delta),
            Err(WriteError::TickForm {
                tick: 5,
                form: TickForm::Delta,
                last_tick: None
            })
        ));
        let absolute = TickMarker {
            form: TickForm::Absolute,
            ..delta
        };
        let header = tick_marker_header(&absolute, None, true).unwrap();
        assert!(matches!(
            w.write_raw(&header, None, &[]),
            Err(WriteError::RawTickMissing)
        ));
        assert!(matches!(
            w.write_raw(&header, Some(6), &[]),
            Err(WriteError::RawTickMismatch {
                tick: 6,
                reads_as: Some(5)
            })
        ));
        assert!(matches!(
            w.write_raw(&header, Some(5), &[1]),
            Err(WriteError::TickMarkerPayload { len: 1 })
        ));
        let data = RawChunkHeader::data(ChunkKind::Message, 3, SizeForm::Inline).unwrap();
        assert!(matches!(
            w.write_raw(&data, None, &[1, 2]),
            Err(WriteError::RawSizeMismatch {
                header_size: 3,
                payload_len: 2
            })
        ));
        let far = TickMarker {
            tick: i32::MAX,
            ..absolute
        };
        assert!(matches!(
            w.write_tick_marker(far),
            Err(WriteError::TickOutOfRange { tick }) if tick == i64::from(i32::MAX)
        ));
        // Nothing refused was written: the file holds the prelude and map only.
        assert_eq!(
            w.into_inner().unwrap().len(),
            prelude.map_offset() + map.len()
        );
    }
}
