//! Networked string tables: the entries that `svc_CreateStringTable` and
//! `svc_UpdateStringTable` carry, the `dem_stringtables` frame, and the tables they build.
//!
//! The wire forms keep everything needed to write the same bits back: an entry says
//! whether its index followed the previous one or was written out, and whether its string
//! reuses the start of one of the update's last 32 strings. [`StringTable::apply`]
//! resolves them against the table, as the engine's `CNetworkStringTable::ParseUpdate`
//! does. What the entries mean (players in `userinfo`, entity baselines in
//! `instancebaseline`) is left to the layers above.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::branch::Protocol;
use super::coder::{Coder, Decoder, Length, NetStr};
use super::error::{NetError, NetErrorKind};
use super::message::{CreateStringTable, log2};
use crate::codec::bits::{BitReader, Bits};

/// The number of earlier strings of an update an entry can take a prefix from.
const HISTORY: usize = 32;
/// Bits of a history index and of a prefix length (`SUBSTRING_BITS`).
const SUBSTRING_BITS: u32 = 5;
/// The longest entry string accepted: the engine keeps strings of at most 1024 bytes, and
/// a longer one means the bits are not what they seem.
const MAX_STRING: usize = 4096;

/// How a table's entries store their user data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TableShape {
    /// The most entries the table can hold.
    pub max_entries: u16,
    /// Every entry's user data has this many bits, when fixed.
    pub fixed_user_data_bits: Option<u8>,
}

impl TableShape {
    /// The shape a creation message gives.
    pub fn of(create: &CreateStringTable) -> Self {
        TableShape {
            max_entries: create.max_entries,
            fixed_user_data_bits: create.fixed_user_data.as_ref().map(|f| f.bits),
        }
    }

    fn index_bits(self) -> u32 {
        log2(u32::from(self.max_entries))
    }
}

/// Where an entry of an update goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum EntryIndex {
    /// Right after the previous entry of the update (the first: index 0).
    #[default]
    Next,
    /// This index, written out.
    At(u16),
}

/// An entry's new string.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum EntryString {
    /// The whole string.
    Whole(NetStr),
    /// The first `prefix` bytes of the update's string `history` entries back from the
    /// oldest one kept, then `suffix`.
    Suffix {
        /// Which of the last 32 strings (0 the oldest kept).
        history: u8,
        /// How many of its bytes.
        prefix: u8,
        /// What follows them.
        suffix: NetStr,
    },
}

impl Default for EntryString {
    fn default() -> Self {
        EntryString::Whole(NetStr::default())
    }
}

/// One entry of an update, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EntryUpdate {
    /// Where it goes.
    pub index: EntryIndex,
    /// Its new string, if it has one.
    pub string: Option<EntryString>,
    /// Its new user data, if it has some.
    pub user_data: Option<Bits>,
}

/// Decodes or encodes the `count` entries of a create or update message's data.
pub fn code_entries<C: Coder>(
    c: &mut C,
    entries: &mut Vec<EntryUpdate>,
    count: usize,
    shape: TableShape,
    p: Protocol,
) -> Result<(), NetError> {
    if p.is_demo4() {
        // Demo protocol 4 reserves a bit for entries encoded with a dictionary that the
        // demo does not hold (Left 4 Dead sets it on its precache tables): such entries
        // cannot be read, only carried as bits; the `dem_stringtables` frame has them.
        let mut dictionary = false;
        let at = c.position();
        c.bool(&mut dictionary)?;
        if dictionary {
            return Err(NetError::new(
                at,
                NetErrorKind::Invalid {
                    what: "entries encoded with a dictionary the demo does not hold",
                },
            ));
        }
    }
    let index_bits = shape.index_bits();
    c.list(entries, count, |c, e| {
        let mut next = e.index == EntryIndex::Next;
        c.bool(&mut next)?;
        if next {
            e.index = EntryIndex::Next;
        } else {
            let mut i = match e.index {
                EntryIndex::At(i) => i,
                EntryIndex::Next => 0,
            };
            c.uint(&mut i, index_bits)?;
            e.index = EntryIndex::At(i);
        }
        c.opt(&mut e.string, |c, s| {
            let mut is_suffix = matches!(s, EntryString::Suffix { .. });
            c.bool(&mut is_suffix)?;
            if is_suffix {
                if let EntryString::Whole(_) = s {
                    *s = EntryString::Suffix {
                        history: 0,
                        prefix: 0,
                        suffix: NetStr::default(),
                    };
                }
                let EntryString::Suffix {
                    history,
                    prefix,
                    suffix,
                } = s
                else {
                    unreachable!("made a suffix above")
                };
                c.uint(history, SUBSTRING_BITS)?;
                c.uint(prefix, SUBSTRING_BITS)?;
                c.string(suffix)
            } else {
                if let EntryString::Suffix { .. } = s {
                    *s = EntryString::Whole(NetStr::default());
                }
                let EntryString::Whole(whole) = s else {
                    unreachable!("made a whole string above")
                };
                c.string(whole)
            }
        })?;
        c.opt(&mut e.user_data, |c, data| {
            match shape.fixed_user_data_bits {
                Some(bits) => c.bits(data, Length::Given(usize::from(bits))),
                None => c.bits(data, Length::Bytes(p.user_data_length_bits())),
            }
        })
    })
}

/// One entry of a table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Entry {
    /// Its string (for `userinfo`: the player's slot; for `instancebaseline`: the class id).
    pub string: NetStr,
    /// Its user data.
    pub user_data: Option<Bits>,
}

/// A string table as the client holds it.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StringTable {
    /// Its name.
    pub name: NetStr,
    /// How its entries are stored.
    pub shape: TableShape,
    /// The entries, by index.
    pub entries: Vec<Entry>,
}

impl StringTable {
    /// Applies decoded updates, as `ParseUpdate` does; returns the indexes changed, in order.
    /// The strings and user data move into the table.
    pub fn apply(&mut self, updates: Vec<EntryUpdate>) -> Result<Vec<usize>, StringTableError> {
        let mut history = History::default();
        let mut last: isize = -1;
        let mut changed = Vec::with_capacity(updates.len());
        for update in updates {
            let index = match update.index {
                EntryIndex::Next => (last + 1) as usize,
                EntryIndex::At(i) => usize::from(i),
            };
            if index >= usize::from(self.shape.max_entries.max(1)) {
                return Err(StringTableError::IndexOutOfRange { index });
            }
            last = index as isize;
            let string = match update.string {
                None => None,
                Some(EntryString::Whole(s)) => Some(s.0),
                Some(EntryString::Suffix {
                    history: h,
                    prefix,
                    suffix,
                }) => {
                    let base = history
                        .get(usize::from(h))
                        .ok_or(StringTableError::NoHistory {
                            index: usize::from(h),
                        })?;
                    let take = usize::from(prefix).min(base.len());
                    let mut s = Vec::with_capacity(take + suffix.0.len());
                    s.extend_from_slice(base.get(..take).unwrap_or(base));
                    s.extend_from_slice(&suffix.0);
                    Some(s)
                }
            };
            if string.as_ref().is_some_and(|s| s.len() > MAX_STRING) {
                return Err(StringTableError::StringTooLong);
            }
            let (index, entry) = if index < self.entries.len() {
                (index, self.entries.get_mut(index))
            } else {
                // A new entry goes at the end, whatever index was written (the engine's
                // `AddString`); the next `Next` index still follows the written one.
                self.entries.push(Entry::default());
                (self.entries.len() - 1, self.entries.last_mut())
            };
            let Some(entry) = entry else {
                return Err(StringTableError::IndexOutOfRange { index });
            };
            if let Some(s) = string {
                entry.string = NulStr(s);
            }
            // An entry sent without user data loses what it had (`SetStringUserData` with
            // no bytes).
            entry.user_data = update.user_data;
            history.push(&entry.string.0);
            changed.push(index);
        }
        Ok(changed)
    }
}

/// The last 32 strings of an update, each cut to the 31 bytes the engine keeps for
/// prefixes: a ring in place, as this runs for every entry of every update.
struct History {
    strings: [[u8; HISTORY - 1]; HISTORY],
    lens: [u8; HISTORY],
    /// Where the oldest string is.
    start: usize,
    /// How many strings there are.
    len: usize,
}

impl Default for History {
    fn default() -> Self {
        History {
            strings: [[0; HISTORY - 1]; HISTORY],
            lens: [0; HISTORY],
            start: 0,
            len: 0,
        }
    }
}

impl History {
    /// String `i`, counted from the oldest kept.
    fn get(&self, i: usize) -> Option<&[u8]> {
        if i >= self.len {
            return None;
        }
        // `% HISTORY` keeps the slot in both arrays: the checks fold away.
        let slot = (self.start + i) % HISTORY;
        let len = usize::from(*self.lens.get(slot)?);
        self.strings.get(slot)?.get(..len)
    }

    /// Keeps `s` (its first 31 bytes), dropping the oldest when 32 are kept.
    fn push(&mut self, s: &[u8]) {
        let slot = (self.start + self.len) % HISTORY;
        if self.len == HISTORY {
            self.start = (self.start + 1) % HISTORY;
        } else {
            self.len += 1;
        }
        let kept = s.len().min(HISTORY - 1);
        let string = self.strings.get_mut(slot).and_then(|t| t.get_mut(..kept));
        if let (Some(to), Some(from), Some(len)) = (string, s.get(..kept), self.lens.get_mut(slot))
        {
            to.copy_from_slice(from);
            *len = kept as u8;
        }
    }
}

use crate::codec::string::NulStr;

/// Why entries could not be applied to a table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StringTableError {
    /// An index past the table's maximum.
    #[error("entry {index} is past the table's maximum")]
    IndexOutOfRange {
        /// The index.
        index: usize,
    },
    /// A prefix from a string the update has not had yet.
    #[error("a prefix of history string {index}, which the update has not had")]
    NoHistory {
        /// The history index.
        index: usize,
    },
    /// A string longer than the engine keeps.
    #[error("a string longer than {MAX_STRING} bytes")]
    StringTooLong,
    /// The data could not be decompressed.
    #[error("compressed data: {0}")]
    Compression(&'static str),
    /// The entries' bits do not decode.
    #[error("entries: {0}")]
    Net(#[from] NetError),
    /// A demo creates more tables than the engine holds (`MAX_TABLES`).
    #[error("more than 32 string tables")]
    TooManyTables,
    /// An update names a table that was never created.
    #[error("no string table {0}")]
    NoTable(u8),
}

/// Valve's LZSS: a `"LZSS"` tag, the decompressed size as a little-endian u32, then groups
/// of eight items led by a flag byte (low bit first): a literal byte, or a 12-bit distance
/// and a 4-bit length back into the output; a length field of 0 ends the data.
pub fn decompress_lzss(input: &[u8], limit: usize) -> Result<Vec<u8>, StringTableError> {
    let err = StringTableError::Compression;
    let Some((b"LZSS", rest)) = input.split_first_chunk::<4>() else {
        return Err(err("no LZSS tag"));
    };
    let Some((size, _)) = rest.split_first_chunk::<4>() else {
        return Err(err("no LZSS tag"));
    };
    let size = u32::from_le_bytes(*size) as usize;
    if size > limit {
        return Err(err("the decompressed size is over the limit"));
    }
    let mut out = Vec::with_capacity(size);
    let mut i = 8;
    'outer: while let Some(&flags) = input.get(i) {
        i += 1;
        for bit in 0..8 {
            if flags >> bit & 1 == 1 {
                let (Some(&hi), Some(&lo)) = (input.get(i), input.get(i + 1)) else {
                    return Err(err("cut short inside a back reference"));
                };
                i += 2;
                let distance = (usize::from(hi) << 4 | usize::from(lo) >> 4) + 1;
                let count = usize::from(lo & 0xf) + 1;
                if count == 1 {
                    break 'outer;
                }
                if distance > out.len() {
                    return Err(err("a back reference before the start"));
                }
                if out.len() + count > size {
                    return Err(err("more data than the stated size"));
                }
                let from = out.len() - distance;
                // The copy may overlap what it writes (a distance below the count): byte
                // by byte, each from before the end.
                for k in 0..count {
                    let Some(&b) = out.get(from + k) else {
                        return Err(err("a back reference before the start"));
                    };
                    out.push(b);
                }
            } else {
                let Some(&b) = input.get(i) else { break 'outer };
                i += 1;
                if out.len() == size {
                    return Err(err("more data than the stated size"));
                }
                out.push(b);
            }
        }
    }
    if out.len() != size {
        return Err(err("less data than the stated size"));
    }
    Ok(out)
}

/// The entry data of a creation message, decompressed when it is compressed.
pub fn create_data(create: &CreateStringTable, limit: usize) -> Result<Bits, StringTableError> {
    if create.flags & 1 == 0 {
        return Ok(create.data.clone());
    }
    let mut r = create.data.reader();
    let read = |r: &mut BitReader<'_>| {
        r.read(32)
            .map_err(|_| StringTableError::Compression("cut short"))
    };
    let _decompressed = read(&mut r)?;
    let compressed = read(&mut r)? as usize;
    if compressed > r.remaining() / 8 {
        return Err(StringTableError::Compression("cut short"));
    }
    let bytes = r
        .read_bytes(compressed)
        .map_err(|_| StringTableError::Compression("cut short"))?;
    Ok(Bits::from_bytes(decompress(&bytes, limit)?))
}

/// Decompresses what the engine's `COM_BufferToBufferCompress` wrote: Valve's LZSS
/// (`"LZSS"` tag) or, from Source 2013 on, a raw Snappy block (`"SNAP"` tag).
pub fn decompress(input: &[u8], limit: usize) -> Result<Vec<u8>, StringTableError> {
    match input.get(..4) {
        Some(b"LZSS") => decompress_lzss(input, limit),
        Some(b"SNAP") => {
            let block = input.get(4..).unwrap_or_default();
            let len = snap::raw::decompress_len(block)
                .map_err(|_| StringTableError::Compression("a Snappy block without its length"))?;
            if len > limit {
                return Err(StringTableError::Compression(
                    "the decompressed size is over the limit",
                ));
            }
            snap::raw::Decoder::new()
                .decompress_vec(block)
                .map_err(|_| StringTableError::Compression("a broken Snappy block"))
        }
        _ => Err(StringTableError::Compression(
            "neither an LZSS nor a Snappy tag",
        )),
    }
}

/// One entry of a table in the `dem_stringtables` frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FrameEntry {
    /// Its string.
    pub string: NetStr,
    /// Its user data, whole bytes.
    pub user_data: Option<Bits>,
}

/// One table of the `dem_stringtables` frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FrameTable {
    /// Its name.
    pub name: NetStr,
    /// The server's entries.
    pub entries: Vec<FrameEntry>,
    /// The client's own entries, when it has any.
    pub client_entries: Option<Vec<FrameEntry>>,
}

/// The `dem_stringtables` frame: every table as the recording client held it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StringTablesFrame {
    /// The tables.
    pub tables: Vec<FrameTable>,
    /// The bits after the last table.
    pub tail: Bits,
}

fn code_frame_entries<C: Coder>(c: &mut C, entries: &mut Vec<FrameEntry>) -> Result<(), NetError> {
    let mut count = entries.len() as u32;
    c.uint(&mut count, 16)?;
    c.list(entries, count as usize, |c, e| {
        c.string(&mut e.string)?;
        c.opt(&mut e.user_data, |c, d| c.bits(d, Length::Bytes(16)))
    })
}

impl FrameTable {
    /// Decodes (or encodes) what follows the table's name.
    fn code_entries<C: Coder>(&mut self, c: &mut C) -> Result<(), NetError> {
        code_frame_entries(c, &mut self.entries)?;
        c.opt(&mut self.client_entries, |c, e| code_frame_entries(c, e))
    }
}

impl StringTablesFrame {
    /// Decodes (or encodes) the frame's data.
    pub fn code<C: Coder>(&mut self, c: &mut C) -> Result<(), NetError> {
        let mut count = self.tables.len() as u32;
        c.uint(&mut count, 8)?;
        c.list(&mut self.tables, count as usize, |c, t| {
            c.string(&mut t.name)?;
            t.code_entries(c)
        })?;
        c.bits(&mut self.tail, Length::Rest)
    }

    /// Reads a frame's data table by table without keeping the frame: `each` gets every
    /// table whose name `want` accepts; the others are stepped over without copying
    /// their strings ([`Decoder::skimming`]).
    pub fn read_tables(
        data: &[u8],
        want: impl Fn(&[u8]) -> bool,
        mut each: impl FnMut(FrameTable),
    ) -> Result<(), NetError> {
        let mut d = Decoder::new(BitReader::new(data));
        let mut count = 0u32;
        d.uint(&mut count, 8)?;
        for _ in 0..count {
            let mut table = FrameTable::default();
            d.string(&mut table.name)?;
            if want(table.name.as_bytes()) {
                table.code_entries(&mut d)?;
                each(table);
            } else {
                let mut skim = Decoder::skimming(*d.reader());
                table.code_entries(&mut skim)?;
                *d.reader_mut() = *skim.reader();
            }
        }
        Ok(())
    }
}
