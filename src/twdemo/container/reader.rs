//! Readers: a zero-copy one over a byte slice ([`DemoSlice`]) and a streaming one over any
//! [`Read`] ([`DemoReader`]). Both parse the same layouts through the same state machine and
//! yield the same [`ChunkAt`] items, so they agree by construction.
//!
//! A reader stops at the first error and reports it with its offset; every chunk before it
//! has been delivered. Payloads are handed out raw; decoding them is the caller's choice
//! (see [`PayloadDecoder`](crate::twdemo::PayloadDecoder)), so a scan that only counts chunks pays
//! nothing for Huffman.

use super::error::{ReadError, ReadErrorKind};
use super::format::*;
use super::payload::MAX_PAYLOAD_BYTES;
use crate::codec::string::FixedStr;
use binrw::{BinRead, binrw};
use std::io::{self, Cursor, Read};

/// Ticks must stay below this (DDNet's `MAX_TICK`).
pub(crate) const MAX_TICK: i64 = 0x6FFF_FFFF;

/// Everything before the embedded map: version header, header, and the blocks the
/// version calls for, as one declarative layout (read and written through binrw).
///
/// [`Prelude::parse`] reads it with typed errors; writing it (`BinWrite`) writes each block
/// that is present. With the `serde` feature the fields keep their names; an absent block is
/// `null`.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Prelude {
    /// Magic and version.
    pub version_header: VersionHeader,
    /// The fixed header.
    pub header: Header,
    /// The timeline-marker block (versions 4 and later).
    #[br(if(version_header.version >= FIRST_VERSION_WITH_MARKERS))]
    pub timeline_markers: Option<TimelineMarkers>,
    /// The map SHA-256 block (version 6 and later, when the file has it).
    #[br(parse_with = read_map_sha256, args(version_header.version))]
    pub map_sha256: Option<MapSha256>,
}

/// The optional SHA-256 block of version 6: DDNet takes it to be there when its UUID is, and
/// otherwise the map starts right here. A file that ends inside what starts like the UUID is
/// taken as cut short rather than as a demo without the block (DDNet's own reference demo
/// has a map of a few bytes, so "the rest is too short for the map" would not tell the two
/// apart).
#[binrw::parser(reader, endian)]
fn read_map_sha256(version: u8) -> binrw::BinResult<Option<MapSha256>> {
    if version < FIRST_VERSION_WITH_SHA256 {
        return Ok(None);
    }
    let start = reader.stream_position()?;
    let mut peek = Vec::with_capacity(SHA256_EXTENSION_UUID.len());
    reader
        .by_ref()
        .take(SHA256_EXTENSION_UUID.len() as u64)
        .read_to_end(&mut peek)?;
    reader.seek(io::SeekFrom::Start(start))?;
    if peek.is_empty() || !SHA256_EXTENSION_UUID.starts_with(&peek) {
        return Ok(None);
    }
    MapSha256::read_options(reader, endian, ()).map(Some)
}

impl Prelude {
    /// The format version.
    pub fn version(&self) -> u8 {
        self.version_header.version
    }

    /// Whether tick markers use the version-5 form.
    pub fn tick_compression(&self) -> bool {
        self.version() >= FIRST_VERSION_WITH_TICK_COMPRESSION
    }

    /// Bytes from the start of the file to the embedded map.
    pub fn map_offset(&self) -> usize {
        HEADER_SIZE
            + TIMELINE_MARKERS_SIZE * self.timeline_markers.is_some() as usize
            + MAP_SHA256_SIZE * self.map_sha256.is_some() as usize
    }

    /// The timeline markers in use (none for version 3).
    pub fn markers_in_use(&self) -> &[i32] {
        self.timeline_markers
            .as_ref()
            .map(TimelineMarkers::in_use)
            .unwrap_or(&[])
    }

    /// Parses the prelude from the start of `data`, which may hold more (the map and chunks).
    pub fn parse(data: &[u8]) -> Result<Prelude, ReadError> {
        let cut = |offset: usize, len: usize, expected: &'static str| {
            ReadError::new(
                offset as u64,
                ReadErrorKind::UnexpectedEnd {
                    expected,
                    needed: len as u64,
                    available: data.len().saturating_sub(offset) as u64,
                },
            )
        };
        let need = |offset: usize, len: usize, expected: &'static str| {
            if data.len() < offset + len {
                Err(cut(offset, len, expected))
            } else {
                Ok(())
            }
        };
        let Some((&version, _)) =
            (data.get(..8).and_then(<[u8]>::split_last)).filter(|(_, magic)| *magic == MAGIC)
        else {
            let found = data.get(..7).unwrap_or(data);
            if data.len() < 8 && MAGIC.starts_with(found) {
                need(0, 8, "the demo magic and version")?;
            }
            return Err(ReadError::new(
                0,
                ReadErrorKind::BadMagic {
                    found: found.to_vec(),
                },
            ));
        };
        if version < OLDEST_VERSION {
            return Err(ReadError::new(
                7,
                ReadErrorKind::UnsupportedVersion { version },
            ));
        }
        // The fixed-size blocks are checked first so that a cut names the block it is in.
        need(8, HEADER_SIZE - 8, "the demo header")?;
        let mut sha_offset = HEADER_SIZE;
        if version >= FIRST_VERSION_WITH_MARKERS {
            need(
                sha_offset,
                TIMELINE_MARKERS_SIZE,
                "the timeline-marker block",
            )?;
            sha_offset += TIMELINE_MARKERS_SIZE;
        }
        // What is left to fail is the SHA-256 block, whose UUID is there but not the rest.
        let prelude = Prelude::read(&mut Cursor::new(data))
            .map_err(|_| cut(sha_offset, MAP_SHA256_SIZE, "the map SHA-256 block"))?;
        check_terminated(&prelude.header)?;
        Ok(prelude)
    }
}

fn check_terminated(header: &Header) -> Result<(), ReadError> {
    fn check<const N: usize>(
        s: &FixedStr<N>,
        field: &'static str,
        offset: u64,
    ) -> Result<(), ReadError> {
        if s.is_terminated() {
            Ok(())
        } else {
            Err(ReadError::new(
                offset,
                ReadErrorKind::UnterminatedString { field, size: N },
            ))
        }
    }
    check(&header.net_version, "net_version", 8)?;
    check(&header.map_name, "map_name", 72)?;
    check(&header.kind, "type", 144)?;
    check(&header.timestamp, "timestamp", 156)
}

/// A tick marker with its absolute tick.
///
/// With the `serde` feature: `{"tick": n, "keyframe": bool, "form": "absolute" | "delta"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TickMarker {
    /// The absolute tick.
    pub tick: i32,
    /// Whether a full snapshot follows.
    pub keyframe: bool,
    /// How the file stores the tick.
    pub form: TickForm,
}

/// A data chunk: its kind and its stored (Huffman-coded) payload.
///
/// With the `serde` feature: `{"kind": "snapshot" | "message" | "snapshot_delta" |
/// "unknown", "payload": <the stored bytes in hex>}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DataChunk<'a> {
    /// What the chunk holds.
    pub kind: ChunkKind,
    /// The payload as stored.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_bytes"))]
    pub payload: &'a [u8],
}

/// One element of the chunk stream.
///
/// With the `serde` feature: the fields of the [`TickMarker`] or [`DataChunk`] with
/// `"type": "tick"` or `"type": "data"` among them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
pub enum Chunk<'a> {
    /// A tick marker.
    Tick(TickMarker),
    /// A snapshot, delta, message or unknown-type chunk.
    Data(DataChunk<'a>),
}

/// A chunk with its place in the file and its header exactly as stored.
///
/// With the `serde` feature: `{"offset": n, "header": {...}}` and the [`Chunk`]'s fields,
/// e.g. `{"offset": 1234, "header": {"lead": 65}, "type": "data", "kind": "snapshot",
/// "payload": "..."}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ChunkAt<'a> {
    /// Offset of the chunk header from the start of the file.
    pub offset: u64,
    /// The stored header (keeps size escapes and tick forms for byte-exact rewriting).
    pub header: RawChunkHeader,
    /// The chunk.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub chunk: Chunk<'a>,
}

/// The tick arithmetic shared by both readers: DDNet's `ReadChunkHeader` rules.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TickState {
    tick_compression: bool,
    current: Option<i32>,
}

impl TickState {
    pub(crate) fn new(tick_compression: bool) -> Self {
        TickState {
            tick_compression,
            current: None,
        }
    }

    /// The tick of the last marker applied.
    pub(crate) fn current(&self) -> Option<i32> {
        self.current
    }

    /// Turns a tick-marker header into its absolute tick.
    pub(crate) fn apply(&mut self, header: &RawChunkHeader) -> Result<TickMarker, ReadErrorKind> {
        let keyframe = header.lead & KEYFRAME_FLAG != 0;
        let (tick, form) = match header.absolute_tick {
            Some(tick) => (tick as i64, TickForm::Absolute),
            None => {
                let delta = if self.tick_compression {
                    header.lead & TICK_DELTA_MASK
                } else {
                    header.lead & LEGACY_TICK_DELTA_MASK
                };
                let current = self.current.ok_or(ReadErrorKind::DeltaBeforeFirstTick)?;
                (current as i64 + delta as i64, TickForm::Delta)
            }
        };
        if !(0..MAX_TICK).contains(&tick) {
            return Err(ReadErrorKind::TickOutOfRange { tick });
        }
        self.current = Some(tick as i32);
        Ok(TickMarker {
            tick: tick as i32,
            keyframe,
            form,
        })
    }
}

/// Parses a chunk header from `bytes`, which the callers checked to hold
/// [`RawChunkHeader::len_from_lead`] of them (else the error says how many are missing).
fn parse_header(bytes: &[u8], tick_compression: bool) -> Result<RawChunkHeader, ReadErrorKind> {
    RawChunkHeader::read_args(&mut Cursor::new(bytes), (tick_compression,)).map_err(|_| {
        let lead = bytes.first().copied().unwrap_or(0);
        ReadErrorKind::UnexpectedEnd {
            expected: "a chunk header",
            needed: RawChunkHeader::len_from_lead(lead, tick_compression) as u64,
            available: bytes.len() as u64,
        }
    })
}

/// A whole demo in memory, read without copying: the prelude, the map and the chunks all
/// borrow from the input.
#[derive(Debug, Clone, Copy)]
pub struct DemoSlice<'a> {
    data: &'a [u8],
    prelude: Prelude,
    map_offset: usize,
    chunks_offset: usize,
}

impl<'a> DemoSlice<'a> {
    /// Parses the prelude and locates the map; chunks are read lazily by [`chunks`](Self::chunks).
    pub fn parse(data: &'a [u8]) -> Result<Self, ReadError> {
        let prelude = Prelude::parse(data)?;
        let map_offset = prelude.map_offset();
        let map_size = prelude.header.map_size;
        let available = (data.len() - map_offset) as u64;
        if map_size as u64 > available {
            return Err(ReadError::new(
                map_offset as u64,
                ReadErrorKind::MapPastEnd {
                    map_size,
                    available,
                },
            ));
        }
        Ok(DemoSlice {
            data,
            prelude,
            map_offset,
            chunks_offset: map_offset + map_size as usize,
        })
    }

    /// The prelude.
    pub fn prelude(&self) -> &Prelude {
        &self.prelude
    }

    /// The embedded map's bytes.
    pub fn map(&self) -> &'a [u8] {
        // `parse` checked that the map lies inside the data.
        (self.data)
            .get(self.map_offset..self.chunks_offset)
            .unwrap_or_default()
    }

    /// Offset of the embedded map.
    pub fn map_offset(&self) -> usize {
        self.map_offset
    }

    /// Offset of the first chunk.
    pub fn chunks_offset(&self) -> usize {
        self.chunks_offset
    }

    /// The whole input.
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// An iterator over the chunks; it ends after the first error.
    pub fn chunks(&self) -> Chunks<'a> {
        Chunks {
            data: self.data,
            pos: self.chunks_offset,
            ticks: TickState::new(self.prelude.tick_compression()),
            failed: false,
        }
    }
}

/// The chunks of a [`DemoSlice`], borrowed from its input.
#[derive(Debug, Clone)]
pub struct Chunks<'a> {
    data: &'a [u8],
    pos: usize,
    ticks: TickState,
    failed: bool,
}

impl<'a> Chunks<'a> {
    /// Offset of the next chunk.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn fail(
        &mut self,
        offset: usize,
        kind: ReadErrorKind,
    ) -> Option<Result<ChunkAt<'a>, ReadError>> {
        self.failed = true;
        Some(Err(ReadError::new(offset as u64, kind)))
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Result<ChunkAt<'a>, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let start = self.pos;
        // `pos` never passes the end of the data: only whole chunks are stepped over.
        let rest = self.data.get(start..)?;
        let &lead = rest.first()?;
        let tick_compression = self.ticks.tick_compression;
        let header_len = RawChunkHeader::len_from_lead(lead, tick_compression);
        if rest.len() < header_len {
            return self.fail(
                start,
                ReadErrorKind::UnexpectedEnd {
                    expected: "a chunk header",
                    needed: header_len as u64,
                    available: rest.len() as u64,
                },
            );
        }
        let header = match parse_header(rest, tick_compression) {
            Ok(header) => header,
            Err(kind) => return self.fail(start, kind),
        };
        let chunk = if header.is_tick_marker() {
            match self.ticks.apply(&header) {
                Ok(marker) => Chunk::Tick(marker),
                Err(kind) => return self.fail(start, kind),
            }
        } else {
            let size = header.payload_size();
            let Some(payload) = rest.get(header_len..header_len + size) else {
                return self.fail(
                    start,
                    ReadErrorKind::UnexpectedEnd {
                        expected: "a chunk payload",
                        needed: size as u64,
                        available: (rest.len() - header_len) as u64,
                    },
                );
            };
            Chunk::Data(DataChunk {
                kind: header.kind(),
                payload,
            })
        };
        let len = header_len
            + match chunk {
                Chunk::Data(d) => d.payload.len(),
                Chunk::Tick(_) => 0,
            };
        self.pos += len;
        Some(Ok(ChunkAt {
            offset: start as u64,
            header,
            chunk,
        }))
    }
}

impl std::iter::FusedIterator for Chunks<'_> {}

/// Chunks in file order, whether from memory ([`Chunks`] of a [`DemoSlice`]) or from a
/// stream ([`DemoReader`]): what the snapshot and game layers walk, so that each of them
/// is written once and runs on a file of any size.
///
/// A chunk borrows the source until the next call, as a lending iterator's items do.
pub trait ChunkSource {
    /// The next chunk; `None` at a clean end of input and after an error.
    fn next_chunk(&mut self) -> Option<Result<ChunkAt<'_>, ReadError>>;
}

impl ChunkSource for Chunks<'_> {
    fn next_chunk(&mut self) -> Option<Result<ChunkAt<'_>, ReadError>> {
        self.next()
    }
}

impl<R: Read> ChunkSource for DemoReader<R> {
    fn next_chunk(&mut self) -> Option<Result<ChunkAt<'_>, ReadError>> {
        self.next()
    }
}

/// A streaming reader over any [`Read`]: it holds one chunk payload at a time.
///
/// The embedded map is read into memory as it arrives (never allocated from the header's
/// size alone). Reads are buffered internally.
pub struct DemoReader<R: Read> {
    // Bytes peeked while looking for the SHA-256 block that turned out to be chunk data
    // come first, then the rest of the stream.
    inner: io::Chain<Cursor<Vec<u8>>, io::BufReader<R>>,
    prelude: Prelude,
    map: Vec<u8>,
    pos: u64,
    ticks: TickState,
    payload: Vec<u8>,
    failed: bool,
}

impl<R: Read> DemoReader<R> {
    /// Reads the prelude and the embedded map.
    pub fn new(inner: R) -> Result<Self, ReadError> {
        let mut inner = io::BufReader::with_capacity(64 * 1024, inner);
        let mut head = Vec::with_capacity(HEADER_SIZE + TIMELINE_MARKERS_SIZE + MAP_SHA256_SIZE);
        read_up_to(&mut inner, &mut head, HEADER_SIZE, 0)?;
        if let Some((&version, magic)) = head.get(..8).and_then(<[u8]>::split_last)
            && magic == MAGIC
        {
            let mut want = HEADER_SIZE;
            if version >= FIRST_VERSION_WITH_MARKERS {
                want += TIMELINE_MARKERS_SIZE;
            }
            if version >= FIRST_VERSION_WITH_SHA256 {
                want += 16;
            }
            read_up_to(&mut inner, &mut head, want, 0)?;
            if version >= FIRST_VERSION_WITH_SHA256
                && head.len() == want
                && head.ends_with(&SHA256_EXTENSION_UUID)
            {
                read_up_to(&mut inner, &mut head, want + 32, 0)?;
            }
        }
        let prelude = Prelude::parse(&head)?;
        let map_offset = prelude.map_offset();
        let map_size = prelude.header.map_size as usize;
        // Bytes read past the prelude (16 that turned out not to be a SHA-256 UUID) belong
        // to the map, or past a tiny map to the chunks.
        let mut map = head.split_off(map_offset.min(head.len()));
        let spill = if map.len() > map_size {
            map.split_off(map_size)
        } else {
            read_up_to(&mut inner, &mut map, map_size, map_offset as u64)?;
            if map.len() < map_size {
                return Err(ReadError::new(
                    map_offset as u64,
                    ReadErrorKind::MapPastEnd {
                        map_size: prelude.header.map_size,
                        available: map.len() as u64,
                    },
                ));
            }
            Vec::new()
        };
        Ok(DemoReader {
            inner: Cursor::new(spill).chain(inner),
            prelude,
            map,
            pos: (map_offset + map_size) as u64,
            ticks: TickState::new(prelude.tick_compression()),
            payload: Vec::new(),
            failed: false,
        })
    }

    /// The prelude.
    pub fn prelude(&self) -> &Prelude {
        &self.prelude
    }

    /// The embedded map's bytes.
    pub fn map(&self) -> &[u8] {
        &self.map
    }

    /// The embedded map, taken out of a reader that is done with: what returns the map
    /// without a second copy of it.
    pub(crate) fn into_map(self) -> Vec<u8> {
        self.map
    }

    /// Offset of the next chunk.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Reads the next chunk; `None` at a clean end of input or after an error.
    ///
    /// The payload borrows the reader's buffer, which is reused for the next chunk.
    #[allow(clippy::should_implement_trait)] // A lending iterator: items borrow the reader.
    pub fn next(&mut self) -> Option<Result<ChunkAt<'_>, ReadError>> {
        if self.failed {
            return None;
        }
        match self.read_chunk() {
            Ok(Some((offset, header))) => {
                let chunk = if header.is_tick_marker() {
                    // read_chunk has already checked the tick.
                    Chunk::Tick(self.ticks.last_marker(&header))
                } else {
                    Chunk::Data(DataChunk {
                        kind: header.kind(),
                        payload: &self.payload,
                    })
                };
                Some(Ok(ChunkAt {
                    offset,
                    header,
                    chunk,
                }))
            }
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }

    fn read_chunk(&mut self) -> Result<Option<(u64, RawChunkHeader)>, ReadError> {
        let start = self.pos;
        let mut buf = [0u8; 5];
        if read_some(&mut self.inner, &mut buf[..1], start)? == 0 {
            return Ok(None);
        }
        let tick_compression = self.ticks.tick_compression;
        let header_len = RawChunkHeader::len_from_lead(buf[0], tick_compression);
        // A header is 1 to 5 bytes (`len_from_lead`): the rest of it fits `buf`.
        let got = 1 + match buf.get_mut(1..header_len) {
            Some(rest) => read_some(&mut self.inner, rest, start)?,
            None => 0,
        };
        if got < header_len {
            return Err(ReadError::new(
                start,
                ReadErrorKind::UnexpectedEnd {
                    expected: "a chunk header",
                    needed: header_len as u64,
                    available: got as u64,
                },
            ));
        }
        let header = parse_header(buf.get(..header_len).unwrap_or_default(), tick_compression)
            .map_err(|kind| ReadError::new(start, kind))?;
        if header.is_tick_marker() {
            self.ticks
                .apply(&header)
                .map_err(|kind| ReadError::new(start, kind))?;
        } else {
            let size = header.payload_size();
            debug_assert!(size <= MAX_PAYLOAD_BYTES);
            self.payload.resize(size, 0);
            let got = read_some(&mut self.inner, &mut self.payload, start)?;
            if got < size {
                return Err(ReadError::new(
                    start,
                    ReadErrorKind::UnexpectedEnd {
                        expected: "a chunk payload",
                        needed: size as u64,
                        available: got as u64,
                    },
                ));
            }
        }
        self.pos += (header_len + header.payload_size()) as u64;
        Ok(Some((start, header)))
    }
}

impl TickState {
    /// The marker `apply` produced for `header`, rebuilt without re-checking.
    fn last_marker(&self, header: &RawChunkHeader) -> TickMarker {
        TickMarker {
            tick: self.current.unwrap_or_default(),
            keyframe: header.lead & KEYFRAME_FLAG != 0,
            form: if header.absolute_tick.is_some() {
                TickForm::Absolute
            } else {
                TickForm::Delta
            },
        }
    }
}

/// Reads until `buf` is full or the input ends; returns how many bytes were read.
fn read_some(r: &mut impl Read, buf: &mut [u8], offset: u64) -> Result<usize, ReadError> {
    let mut filled = 0;
    while let Some(rest @ [_, ..]) = buf.get_mut(filled..) {
        match r.read(rest) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError::new(offset, ReadErrorKind::Io(e))),
        }
    }
    Ok(filled)
}

/// Appends to `buf` until it holds `len` bytes or the input ends, growing it only as data
/// arrives so that an untrusted `len` cannot cause a large allocation.
fn read_up_to(
    r: &mut impl Read,
    buf: &mut Vec<u8>,
    len: usize,
    offset: u64,
) -> Result<(), ReadError> {
    let missing = len.saturating_sub(buf.len()) as u64;
    r.take(missing)
        .read_to_end(buf)
        .map_err(|e| ReadError::new(offset, ReadErrorKind::Io(e)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(state: &mut TickState, bytes: &[u8]) -> Result<TickMarker, ReadErrorKind> {
        let h = parse_header(bytes, state.tick_compression)?;
        state.apply(&h)
    }

    #[test]
    fn ddnet_tick_rules() {
        // Version 5: 0x20 marks an inline delta, which may be 0.
        let mut v5 = TickState::new(true);
        assert!(matches!(
            marker(&mut v5, &[0xa1]),
            Err(ReadErrorKind::DeltaBeforeFirstTick)
        ));
        assert_eq!(marker(&mut v5, &[0xc0, 0, 0, 0, 100]).unwrap().tick, 100);
        assert_eq!(marker(&mut v5, &[0xa0]).unwrap().tick, 100);
        assert_eq!(marker(&mut v5, &[0xbf]).unwrap().tick, 131);
        // A compressed delta with the keyframe bit: DDNet reads it (libtw2 refuses).
        let m = marker(&mut v5, &[0xe1]).unwrap();
        assert_eq!((m.tick, m.keyframe, m.form), (132, true, TickForm::Delta));
        // Version 3/4: six delta bits; the same byte 0xa1 means +33.
        let mut v4 = TickState::new(false);
        assert_eq!(marker(&mut v4, &[0x80, 0, 0, 0, 100]).unwrap().tick, 100);
        assert_eq!(marker(&mut v4, &[0xa1]).unwrap().tick, 133);
        assert_eq!(marker(&mut v4, &[0xbf]).unwrap().tick, 196);
    }

    #[test]
    fn tick_range_is_checked() {
        let mut s = TickState::new(true);
        assert!(matches!(
            marker(&mut s, &[0x80, 0x70, 0, 0, 0]),
            Err(ReadErrorKind::TickOutOfRange { tick: 0x7000_0000 })
        ));
        assert!(matches!(
            marker(&mut s, &[0x80, 0xff, 0xff, 0xff, 0xff]),
            Err(ReadErrorKind::TickOutOfRange { tick: -1 })
        ));
        assert_eq!(
            marker(&mut s, &[0x80, 0x6f, 0xff, 0xff, 0xfe])
                .unwrap()
                .tick,
            0x6fff_fffe
        );
        assert!(matches!(
            marker(&mut s, &[0xa1]),
            Err(ReadErrorKind::TickOutOfRange { tick: 0x6fff_ffff })
        ));
    }

    #[test]
    fn v6_without_sha_block_starts_the_map_there() {
        let mut data = vec![0u8; HEADER_SIZE + TIMELINE_MARKERS_SIZE];
        data[..7].copy_from_slice(&MAGIC);
        data[7] = 6;
        data[136..140].copy_from_slice(&20u32.to_be_bytes());
        data.extend_from_slice(&[7u8; 20]); // the map
        data.push(0xc0); // a keyframe tick marker...
        data.extend_from_slice(&5i32.to_be_bytes());
        let slice = DemoSlice::parse(&data).unwrap();
        assert!(slice.prelude().map_sha256.is_none());
        assert_eq!(slice.map(), &[7u8; 20]);
        let chunks: Vec<_> = slice.chunks().collect::<Result<_, _>>().unwrap();
        assert_eq!(chunks.len(), 1);
        // The streaming reader peeks 16 bytes for the UUID and must give them back.
        let mut stream = DemoReader::new(&data[..]).unwrap();
        assert_eq!(stream.map(), &[7u8; 20]);
        assert_eq!(stream.next().unwrap().unwrap(), chunks[0]);
        // A map shorter than the 16 peeked bytes: the rest of them are chunk bytes.
        data[136..140].copy_from_slice(&3u32.to_be_bytes());
        data.truncate(HEADER_SIZE + TIMELINE_MARKERS_SIZE + 3);
        data.extend_from_slice(&[0xc0, 0, 0, 0, 9, 0xa1, 0xa2]);
        let slice = DemoSlice::parse(&data).unwrap();
        let expected: Vec<_> = slice.chunks().collect::<Result<_, _>>().unwrap();
        assert_eq!(expected.len(), 3);
        let mut stream = DemoReader::new(&data[..]).unwrap();
        for e in &expected {
            assert_eq!(&stream.next().unwrap().unwrap(), e);
        }
        assert!(stream.next().is_none());
    }
}
