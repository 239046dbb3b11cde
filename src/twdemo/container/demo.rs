//! A whole demo as an owned value: the prelude, the map and every chunk, decoded as far as
//! re-encoding reproduces the stored bytes.
//!
//! This is what a rewrite goes through: each chunk is decoded to ints and encoded again by
//! the [`DemoWriter`]; only where the encoder would not reproduce the stored bytes (a foreign
//! writer's quirk) is the stored form kept, and [`RewriteStats`] counts those.

use super::error::{ReadError, WriteError};
use super::format::{ChunkKind, RawChunkHeader, SizeForm};
use super::payload::{PayloadDecoder, PayloadEncoder};
use super::reader::{Chunk, ChunkAt, ChunkSource, DemoReader, DemoSlice, Prelude, TickMarker};
use super::writer::{DemoWriter, tick_marker_header};
use crate::codec::huffman::LengthRule;
use crate::format::stopped;
use std::io::{Read, Write};

/// A demo held in memory.
///
/// With the `serde` feature: `{"prelude": {...}, "map": <hex>, "records": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Demo {
    /// Version header, header, timeline markers and SHA-256 block.
    pub prelude: Prelude,
    /// The embedded map.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_bytes"))]
    pub map: Vec<u8>,
    /// The chunks in file order.
    pub records: Vec<Record>,
}

/// One chunk of a [`Demo`].
///
/// With the `serde` feature: the variant's fields with `"type": "tick"`, `"data"` or
/// `"raw"` among them; a raw record's payload is hex.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
pub enum Record {
    /// A tick marker, re-encoded from its tick and form.
    Tick(TickMarker),
    /// A data chunk.
    Data(DataRecord),
    /// A chunk whose stored header no encoder would produce (for example a tick marker
    /// with stray bits); kept exactly.
    Raw {
        /// The stored header.
        header: RawChunkHeader,
        /// The absolute tick, for a tick marker.
        tick: Option<i32>,
        /// The stored payload (empty for a tick marker).
        #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_bytes"))]
        payload: Vec<u8>,
    },
}

/// A data chunk of a [`Demo`].
///
/// With the `serde` feature: `{"kind", "size_form", "payload"}` (see [`Payload`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DataRecord {
    /// What the chunk holds.
    pub kind: ChunkKind,
    /// How its header stores the size.
    pub size_form: SizeForm,
    /// The payload.
    pub payload: Payload,
}

/// A data chunk's payload.
///
/// With the `serde` feature: decoded ints are `{"ints": [...], "rule": "tight" |
/// "trailing_byte"}`, stored bytes a hex string.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum Payload {
    /// Decoded ints, re-encoded under `rule` when written.
    Ints {
        /// The ints.
        ints: Vec<i32>,
        /// The Huffman length rule the chunk was stored with.
        rule: LengthRule,
    },
    /// Stored bytes that re-encoding would not reproduce (or an unknown chunk type).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_bytes"))]
    Stored(Vec<u8>),
}

/// What a rewrite did with each chunk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RewriteStats {
    /// Tick markers re-encoded from their tick.
    pub tick_markers: usize,
    /// Data chunks decoded and encoded again.
    pub reencoded: usize,
    /// Data chunks written as stored because re-encoding differs or decoding failed.
    pub kept_stored: usize,
    /// Chunks whose header was kept as stored.
    pub kept_raw_headers: usize,
}

/// Turns one read chunk into a record, decoding as far as re-encoding reproduces it.
pub(crate) fn to_record(
    item: &ChunkAt<'_>,
    tick_compression: bool,
    last_tick: Option<i32>,
    decoder: &mut PayloadDecoder,
    encoder: &mut PayloadEncoder,
) -> Record {
    let raw = |payload: &[u8], tick| Record::Raw {
        header: item.header,
        tick,
        payload: payload.to_vec(),
    };
    match item.chunk {
        Chunk::Tick(marker) => {
            if tick_marker_header(&marker, last_tick, tick_compression) == Some(item.header) {
                Record::Tick(marker)
            } else {
                raw(&[], Some(marker.tick))
            }
        }
        Chunk::Data(data) => {
            let size_form = item.header.size_form();
            if RawChunkHeader::data(data.kind, data.payload.len(), size_form) != Some(item.header) {
                return raw(data.payload, None);
            }
            let payload = decode_reproducible(data.kind, data.payload, decoder, encoder)
                .unwrap_or_else(|| Payload::Stored(data.payload.to_vec()));
            Record::Data(DataRecord {
                kind: data.kind,
                size_form,
                payload,
            })
        }
    }
}

/// Decodes `stored` to ints if encoding them again gives back exactly `stored`.
fn decode_reproducible(
    kind: ChunkKind,
    stored: &[u8],
    decoder: &mut PayloadDecoder,
    encoder: &mut PayloadEncoder,
) -> Option<Payload> {
    let rule = reencode(kind, stored, decoder, encoder)?.0;
    Some(Payload::Ints {
        ints: decoder.last_ints().to_vec(),
        rule,
    })
}

/// Decodes `stored` and encodes the ints again under the rule it was stored with; returns
/// the rule and the encoder's output if that output is exactly `stored`.
fn reencode<'e>(
    kind: ChunkKind,
    stored: &[u8],
    decoder: &mut PayloadDecoder,
    encoder: &'e mut PayloadEncoder,
) -> Option<(LengthRule, &'e [u8])> {
    if kind == ChunkKind::Unknown {
        return None;
    }
    let decoded = decoder.decode(stored).ok()?;
    let rule = decoded.length_rule(stored.len())?;
    if decoded.non_canonical_ints != 0 {
        return None;
    }
    let encoded = encoder.encode(decoded.ints, rule);
    (encoded == stored).then_some((rule, encoded))
}

impl Demo {
    /// Reads a whole demo. Fails on the first error, wherever it is.
    pub fn from_bytes(data: &[u8]) -> Result<Demo, ReadError> {
        let slice = DemoSlice::parse(data)?;
        let tick_compression = slice.prelude().tick_compression();
        let mut decoder = PayloadDecoder::new();
        let mut encoder = PayloadEncoder::new();
        let mut records = Vec::new();
        let mut last_tick = None;
        for item in slice.chunks() {
            let item = item?;
            records.push(to_record(
                &item,
                tick_compression,
                last_tick,
                &mut decoder,
                &mut encoder,
            ));
            if let Chunk::Tick(m) = item.chunk {
                last_tick = Some(m.tick);
            }
        }
        Ok(Demo {
            prelude: *slice.prelude(),
            map: slice.map().to_vec(),
            records,
        })
    }

    /// Writes the demo to `sink`.
    pub(crate) fn write_to<W: Write>(&self, sink: W) -> Result<W, WriteError> {
        let mut writer = DemoWriter::new(sink, &self.prelude, &self.map)?;
        for record in &self.records {
            write_record(&mut writer, record)?;
        }
        writer.into_inner()
    }

    /// The demo's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        self.write_to(Vec::new())
    }
}

/// Writes one record through `writer`.
pub(crate) fn write_record<W: Write>(
    writer: &mut DemoWriter<W>,
    record: &Record,
) -> Result<(), WriteError> {
    match record {
        Record::Tick(marker) => writer.write_tick_marker(*marker),
        Record::Data(data) => match &data.payload {
            Payload::Ints { ints, rule } => {
                writer.write_ints(data.kind, ints, *rule, Some(data.size_form))
            }
            Payload::Stored(bytes) => writer.write_stored(data.kind, data.size_form, bytes),
        },
        Record::Raw {
            header,
            tick,
            payload,
        } => writer.write_raw(header, *tick, payload),
    }
}

/// Rewrites a demo chunk by chunk: every chunk is decoded and encoded again through the
/// writer, keeping each chunk's Huffman length rule and header form.
///
/// On a read error everything before it has been written, and the error is returned with
/// the statistics so far.
pub fn rewrite<W: Write>(
    data: &[u8],
    sink: W,
) -> Result<(W, RewriteStats), (RewriteStats, RewriteError)> {
    rewrite_reader(data, sink)
}

/// [`rewrite`] of a demo read as a stream: one chunk is held at a time (and the embedded
/// map), so memory does not grow with the demo.
pub fn rewrite_reader<R: Read, W: Write>(
    input: R,
    sink: W,
) -> Result<(W, RewriteStats), (RewriteStats, RewriteError)> {
    let mut stats = RewriteStats::default();
    let mut chunks = DemoReader::new(input).map_err(stopped(stats))?;
    let mut writer =
        DemoWriter::new(sink, chunks.prelude(), chunks.map()).map_err(stopped(stats))?;
    let tick_compression = chunks.prelude().tick_compression();
    let mut decoder = PayloadDecoder::new();
    let mut encoder = PayloadEncoder::new();
    while let Some(item) = chunks.next_chunk() {
        let item = item.map_err(stopped(stats))?;
        rewrite_chunk(
            &item,
            tick_compression,
            &mut writer,
            &mut decoder,
            &mut encoder,
            &mut stats,
        )
        .map_err(stopped(stats))?;
    }
    let sink = writer.into_inner().map_err(stopped(stats))?;
    Ok((sink, stats))
}

/// Writes one chunk through `writer`: re-encoded from its decoded form where that
/// reproduces it, as stored otherwise. Uses only the coders' reusable buffers.
fn rewrite_chunk<W: Write>(
    item: &ChunkAt<'_>,
    tick_compression: bool,
    writer: &mut DemoWriter<W>,
    decoder: &mut PayloadDecoder,
    encoder: &mut PayloadEncoder,
    stats: &mut RewriteStats,
) -> Result<(), WriteError> {
    match item.chunk {
        Chunk::Tick(marker) => {
            if tick_marker_header(&marker, writer.last_tick(), tick_compression)
                == Some(item.header)
            {
                stats.tick_markers += 1;
                writer.write_tick_marker(marker)
            } else {
                stats.kept_raw_headers += 1;
                writer.write_raw(&item.header, Some(marker.tick), &[])
            }
        }
        Chunk::Data(data) => {
            let form = item.header.size_form();
            if RawChunkHeader::data(data.kind, data.payload.len(), form) != Some(item.header) {
                stats.kept_raw_headers += 1;
                return writer.write_raw(&item.header, None, data.payload);
            }
            match reencode(data.kind, data.payload, decoder, encoder) {
                Some((_, encoded)) => {
                    stats.reencoded += 1;
                    writer.write_stored(data.kind, form, encoded)
                }
                None => {
                    stats.kept_stored += 1;
                    writer.write_stored(data.kind, form, data.payload)
                }
            }
        }
    }
}

/// Why [`rewrite`] stopped: the input could not be read, or a chunk could not be written
/// again (the shape every format's rewrite shares).
pub type RewriteError = crate::format::RewriteError<ReadError, WriteError>;

crate::format::rewrite_error_from!(ReadError, WriteError);
