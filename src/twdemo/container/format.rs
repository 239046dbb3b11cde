//! The byte layouts of a demo file, as declarative binrw structs.
//!
//! Everything here is big-endian unless a field says otherwise. These types only describe
//! bytes; the rules that connect them (which blocks a version has, how tick deltas add up)
//! live in the reader and writer.

use crate::codec::string::FixedStr;
use binrw::binrw;

/// The seven bytes every demo starts with, before its version byte: `"TWDEMO\0"`.
pub const MAGIC: [u8; 7] = *b"TWDEMO\0";

/// Size of [`VersionHeader`] plus [`Header`]: where the timeline markers start.
pub const HEADER_SIZE: usize = 176;
/// Size of [`TimelineMarkers`] (versions 4 and later).
pub const TIMELINE_MARKERS_SIZE: usize = 260;
/// Size of [`MapSha256`] (version 6 when present).
pub(crate) const MAP_SHA256_SIZE: usize = 48;
/// Most timeline markers a header can hold.
pub const MAX_TIMELINE_MARKERS: usize = 64;
/// Offset of the `length` field, which a recorder patches when it stops.
pub const LENGTH_OFFSET: u64 = 152;
/// Offset of the timeline-marker block, which a recorder patches when it stops.
pub const TIMELINE_MARKERS_OFFSET: u64 = 176;

/// The UUID that introduces the version-6 map SHA-256 block:
/// uuid3("demoitem-sha256@ddnet.tw") in the Teeworlds namespace.
pub const SHA256_EXTENSION_UUID: [u8; 16] = [
    0x6b, 0xe6, 0xda, 0x4a, 0xce, 0xbd, 0x38, 0x0c, 0x9b, 0x5b, 0x12, 0x89, 0xc8, 0x42, 0xd7, 0x80,
];

/// First version with the timeline-marker block.
pub(crate) const FIRST_VERSION_WITH_MARKERS: u8 = 4;
/// First version whose tick markers use the 5-bit compressed-delta form.
pub(crate) const FIRST_VERSION_WITH_TICK_COMPRESSION: u8 = 5;
/// First version that may carry the map SHA-256 block.
pub(crate) const FIRST_VERSION_WITH_SHA256: u8 = 6;
/// Oldest version DDNet (and demokit) reads.
pub(crate) const OLDEST_VERSION: u8 = 3;

/// Magic and version: the first 8 bytes.
///
/// With the `serde` feature: `{"magic": <7 bytes in hex>, "version": n}`.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VersionHeader {
    /// `"TWDEMO\0"` in a valid file; kept raw so the reader can say what it found instead.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_array"))]
    pub magic: [u8; 7],
    /// Format version, 3 to 6 in files seen so far.
    pub version: u8,
}

/// The 168 header bytes after [`VersionHeader`].
///
/// With the `serde` feature the fields keep their names, each string as
/// [`FixedStr`] writes it (a string, or `{"text", "raw"}` when it holds more than text).
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Header {
    /// Game network version, e.g. `"0.6 626fce9a778df4d4"`; `"0.7 ..."` marks a sixup demo.
    pub net_version: FixedStr<64>,
    /// Map base name.
    pub map_name: FixedStr<64>,
    /// Byte size of the embedded map.
    pub map_size: u32,
    /// CRC-32 of the map file.
    pub map_crc: u32,
    /// `"client"` or `"server"`.
    pub kind: FixedStr<8>,
    /// Length in seconds, patched when the recorder stops (0 in a cut-off recording).
    pub length: i32,
    /// Local time the recording started, `"%Y-%m-%d_%H-%M-%S"`.
    pub timestamp: FixedStr<20>,
}

/// The timeline-marker block of versions 4 and later: a count and 64 tick slots.
///
/// All 64 slots are kept as read, since real files hold garbage past the count.
///
/// With the `serde` feature: `{"count": n, "ticks": [64 ints]}`, every slot.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TimelineMarkers {
    /// Number of markers in use as written; readers clamp it to 0..=64.
    pub count: i32,
    /// Marker ticks; only the first `count` are meaningful.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::int_array"))]
    pub ticks: [i32; MAX_TIMELINE_MARKERS],
}

impl TimelineMarkers {
    /// An empty block, as a recorder writes at the start.
    pub const EMPTY: TimelineMarkers = TimelineMarkers {
        count: 0,
        ticks: [0; MAX_TIMELINE_MARKERS],
    };

    /// The markers in use, with the count clamped to 0..=64 as DDNet does.
    pub fn in_use(&self) -> &[i32] {
        let n = self.count.clamp(0, MAX_TIMELINE_MARKERS as i32) as usize;
        self.ticks.get(..n).unwrap_or(&self.ticks)
    }
}

/// The version-6 block that identifies the embedded map by SHA-256.
///
/// With the `serde` feature: `{"uuid": <16 bytes in hex>, "digest": <32 bytes in hex>}`.
#[binrw]
#[brw(big)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MapSha256 {
    /// [`SHA256_EXTENSION_UUID`].
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_array"))]
    pub uuid: [u8; 16],
    /// The map's SHA-256 digest.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_array"))]
    pub digest: [u8; 32],
}

/// The header of one chunk, byte for byte as stored: a lead byte and what it calls for.
///
/// The lead byte decides the rest: bit 7 set means a tick marker, which may be followed by a
/// big-endian absolute tick; bit 7 clear means a data chunk whose 5-bit size may escape to
/// one more byte (30) or a little-endian u16 (31). Whether a tick marker carries an absolute
/// tick depends on the demo version, hence the `tick_compression` argument (true from
/// version 5 on).
///
/// With the `serde` feature: `{"lead": n}` and whichever of `absolute_tick`, `size_byte`
/// and `size_word` the header has (absent ones are left out).
#[binrw]
#[brw(big, import(tick_compression: bool))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RawChunkHeader {
    /// The first byte.
    pub lead: u8,
    /// The absolute tick of a tick marker in its 5-byte form.
    #[br(if(lead & TICK_MARKER_FLAG != 0 && !tick_is_inline(lead, tick_compression)))]
    #[cfg_attr(
        feature = "serde",
        serde(skip_serializing_if = "Option::is_none", default)
    )]
    pub absolute_tick: Option<i32>,
    /// The size of a data chunk whose lead byte says 30.
    #[br(if(lead & TICK_MARKER_FLAG == 0 && lead & SIZE_MASK == SIZE_ESCAPE_BYTE))]
    #[cfg_attr(
        feature = "serde",
        serde(skip_serializing_if = "Option::is_none", default)
    )]
    pub size_byte: Option<u8>,
    /// The size of a data chunk whose lead byte says 31; little-endian, unlike the rest.
    #[br(if(lead & TICK_MARKER_FLAG == 0 && lead & SIZE_MASK == SIZE_ESCAPE_WORD), little)]
    #[bw(little)]
    #[cfg_attr(
        feature = "serde",
        serde(skip_serializing_if = "Option::is_none", default)
    )]
    pub size_word: Option<u16>,
}

/// Lead-byte bit of a tick marker.
pub const TICK_MARKER_FLAG: u8 = 0x80;
/// Tick-marker bit: a keyframe (a full snapshot follows).
pub const KEYFRAME_FLAG: u8 = 0x40;
/// Tick-marker bit (version 5 on): the low 5 bits are a delta.
pub const TICK_COMPRESSED_FLAG: u8 = 0x20;
/// Delta bits of a version-5 tick marker.
pub(crate) const TICK_DELTA_MASK: u8 = 0x1F;
/// Delta bits of a version-3/4 tick marker (0 means an absolute tick follows).
pub(crate) const LEGACY_TICK_DELTA_MASK: u8 = 0x3F;
/// Size bits of a data chunk.
pub(crate) const SIZE_MASK: u8 = 0x1F;
/// Size value meaning "one size byte follows".
pub(crate) const SIZE_ESCAPE_BYTE: u8 = 30;
/// Size value meaning "a little-endian u16 size follows".
pub(crate) const SIZE_ESCAPE_WORD: u8 = 31;

/// Whether a tick-marker lead byte holds its tick as an inline delta (no 4 bytes follow).
pub(crate) const fn tick_is_inline(lead: u8, tick_compression: bool) -> bool {
    if tick_compression {
        lead & TICK_COMPRESSED_FLAG != 0
    } else {
        lead & LEGACY_TICK_DELTA_MASK != 0
    }
}

impl RawChunkHeader {
    /// How many bytes the header occupies, decided by its lead byte alone.
    pub const fn len_from_lead(lead: u8, tick_compression: bool) -> usize {
        if lead & TICK_MARKER_FLAG != 0 {
            if tick_is_inline(lead, tick_compression) {
                1
            } else {
                5
            }
        } else {
            match lead & SIZE_MASK {
                SIZE_ESCAPE_BYTE => 2,
                SIZE_ESCAPE_WORD => 3,
                _ => 1,
            }
        }
    }

    /// Whether the header is exactly what its lead byte announces: the 4-byte tick of a
    /// tick marker in its absolute form, the size byte or word of an escaped data size, and
    /// nothing else. A header that is not would be written as bytes that read back as
    /// another header (the lead byte decides what follows it).
    pub fn is_well_formed(&self, tick_compression: bool) -> bool {
        use binrw::{BinRead, BinWrite};
        let mut bytes = binrw::io::Cursor::new([0u8; 8]);
        if self.write_args(&mut bytes, (tick_compression,)).is_err() {
            return false;
        }
        let len = bytes.position() as usize;
        len == Self::len_from_lead(self.lead, tick_compression)
            && bytes.get_ref().get(..len).is_some_and(|written| {
                Self::read_args(&mut binrw::io::Cursor::new(written), (tick_compression,))
                    .is_ok_and(|back| back == *self)
            })
    }

    /// The number of bytes this header occupies.
    pub fn len(&self) -> usize {
        1 + 4 * self.absolute_tick.is_some() as usize
            + self.size_byte.is_some() as usize
            + 2 * self.size_word.is_some() as usize
    }

    /// Always false: a header has at least its lead byte. Present for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether this is a tick marker rather than a data chunk.
    pub(crate) const fn is_tick_marker(&self) -> bool {
        self.lead & TICK_MARKER_FLAG != 0
    }

    /// The payload size of a data chunk (0 for a tick marker).
    pub fn payload_size(&self) -> usize {
        if self.is_tick_marker() {
            return 0;
        }
        match (self.size_byte, self.size_word) {
            (Some(b), _) => b as usize,
            (_, Some(w)) => w as usize,
            _ => (self.lead & SIZE_MASK) as usize,
        }
    }

    /// The header of a data chunk of `kind` with a payload of `size` bytes, in `form`.
    ///
    /// Returns `None` if `size` cannot be expressed in `form`.
    pub fn data(kind: ChunkKind, size: usize, form: SizeForm) -> Option<Self> {
        let type_bits = (kind.type_id() & 3) << 5;
        let (lead_size, size_byte, size_word) = match form {
            SizeForm::Inline if size < SIZE_ESCAPE_BYTE as usize => (size as u8, None, None),
            SizeForm::Byte if size <= u8::MAX as usize => {
                (SIZE_ESCAPE_BYTE, Some(size as u8), None)
            }
            SizeForm::Word if size <= u16::MAX as usize => {
                (SIZE_ESCAPE_WORD, None, Some(size as u16))
            }
            _ => return None,
        };
        Some(RawChunkHeader {
            lead: type_bits | lead_size,
            absolute_tick: None,
            size_byte,
            size_word,
        })
    }

    /// The size form of a data chunk header.
    pub fn size_form(&self) -> SizeForm {
        match (self.size_byte, self.size_word) {
            (Some(_), _) => SizeForm::Byte,
            (_, Some(_)) => SizeForm::Word,
            _ => SizeForm::Inline,
        }
    }

    /// The chunk type bits of a data chunk.
    pub fn kind(&self) -> ChunkKind {
        ChunkKind::from_type_id((self.lead >> 5) & 3)
    }
}

/// What a data chunk holds, from the two type bits of its lead byte.
///
/// With the `serde` feature: `"unknown"`, `"snapshot"`, `"message"` or `"snapshot_delta"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum ChunkKind {
    /// Type 0: not used by any writer; readers skip it.
    Unknown,
    /// Type 1: a full snapshot (after a keyframe tick marker).
    Snapshot,
    /// Type 2: a network message.
    Message,
    /// Type 3: a delta against the previous snapshot.
    SnapshotDelta,
}

impl ChunkKind {
    /// The kind for type bits 0..=3 (higher bits are ignored).
    pub const fn from_type_id(id: u8) -> Self {
        match id & 3 {
            1 => ChunkKind::Snapshot,
            2 => ChunkKind::Message,
            3 => ChunkKind::SnapshotDelta,
            _ => ChunkKind::Unknown,
        }
    }

    /// The two type bits.
    pub const fn type_id(self) -> u8 {
        match self {
            ChunkKind::Unknown => 0,
            ChunkKind::Snapshot => 1,
            ChunkKind::Message => 2,
            ChunkKind::SnapshotDelta => 3,
        }
    }

    /// A short lowercase name, as the CLI prints it.
    pub const fn name(self) -> &'static str {
        match self {
            ChunkKind::Unknown => "unknown",
            ChunkKind::Snapshot => "snapshot",
            ChunkKind::Message => "message",
            ChunkKind::SnapshotDelta => "delta",
        }
    }
}

/// How a data chunk header stores its payload size.
///
/// With the `serde` feature: `"inline"`, `"byte"` or `"word"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum SizeForm {
    /// In the lead byte: sizes 0..=29.
    Inline,
    /// Escape 30, one size byte: up to 255.
    Byte,
    /// Escape 31, a little-endian u16: up to 65535.
    Word,
}

impl SizeForm {
    /// The form DDNet's recorder picks for `size`: the shortest one.
    pub const fn shortest(size: usize) -> Self {
        if size < SIZE_ESCAPE_BYTE as usize {
            SizeForm::Inline
        } else if size < 256 {
            SizeForm::Byte
        } else {
            SizeForm::Word
        }
    }
}

/// How a tick marker stores its tick.
///
/// With the `serde` feature: `"absolute"` or `"delta"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum TickForm {
    /// Five bytes: the lead byte and a big-endian absolute tick.
    Absolute,
    /// One byte: a delta from the previous tick marker in the lead byte.
    Delta,
}

#[cfg(test)]
mod tests {
    use super::*;
    use binrw::{BinRead, BinWrite};
    use std::io::Cursor;

    fn round_trip(bytes: &[u8], tick_compression: bool) -> RawChunkHeader {
        let h = RawChunkHeader::read_args(&mut Cursor::new(bytes), (tick_compression,)).unwrap();
        assert_eq!(h.len(), bytes.len());
        assert_eq!(
            RawChunkHeader::len_from_lead(bytes[0], tick_compression),
            bytes.len()
        );
        let mut out = Cursor::new(Vec::new());
        h.write_args(&mut out, (tick_compression,)).unwrap();
        assert_eq!(out.into_inner(), bytes);
        h
    }

    #[test]
    fn chunk_header_forms() {
        let h = round_trip(&[0xc0, 0, 0, 0, 0x64], true);
        assert_eq!(h.absolute_tick, Some(100));
        assert_eq!(round_trip(&[0xa1], true).absolute_tick, None);
        // Under v3/v4 rules 0xa1 is a delta of 33, and 0x80 needs four more bytes.
        assert_eq!(round_trip(&[0xa1], false).absolute_tick, None);
        assert_eq!(
            round_trip(&[0x80, 0, 0, 1, 0], false).absolute_tick,
            Some(256)
        );
        let h = round_trip(&[0x7e, 0x2b], true);
        assert_eq!((h.kind(), h.payload_size()), (ChunkKind::SnapshotDelta, 43));
        let h = round_trip(&[0x3f, 0x34, 0x12], true);
        assert_eq!((h.kind(), h.payload_size()), (ChunkKind::Snapshot, 0x1234));
        let h = round_trip(&[0x48], true);
        assert_eq!((h.kind(), h.payload_size()), (ChunkKind::Message, 8));
    }

    #[test]
    fn data_header_forms() {
        assert_eq!(
            RawChunkHeader::data(ChunkKind::Message, 29, SizeForm::Inline)
                .unwrap()
                .lead,
            0x5d
        );
        assert!(RawChunkHeader::data(ChunkKind::Message, 30, SizeForm::Inline).is_none());
        assert!(RawChunkHeader::data(ChunkKind::Message, 256, SizeForm::Byte).is_none());
        assert_eq!(SizeForm::shortest(255), SizeForm::Byte);
        assert_eq!(SizeForm::shortest(256), SizeForm::Word);
    }

    #[test]
    fn layout_sizes() {
        let mut out = Cursor::new(Vec::new());
        VersionHeader {
            magic: MAGIC,
            version: 6,
        }
        .write(&mut out)
        .unwrap();
        Header {
            net_version: FixedStr::default(),
            map_name: FixedStr::default(),
            map_size: 0,
            map_crc: 0,
            kind: FixedStr::default(),
            length: 0,
            timestamp: FixedStr::default(),
        }
        .write(&mut out)
        .unwrap();
        assert_eq!(out.get_ref().len(), HEADER_SIZE);
        TimelineMarkers::EMPTY.write(&mut out).unwrap();
        assert_eq!(out.get_ref().len(), HEADER_SIZE + TIMELINE_MARKERS_SIZE);
    }
}
