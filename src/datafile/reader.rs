//! Opening a datafile with exactly the checks of DDNet's `CDataFileReader::Open` (and its
//! `Validate`), and loading data blocks as its `GetData` loads them.
//!
//! [`Datafile::parse`] borrows the file's bytes; items are read in place. The tables are
//! copied into vectors, but only after the header's counts have been checked against the
//! file's size, so nothing is allocated from a count the file cannot back.
//! [`Datafile::data`] inflates one block, never beyond its declared size nor
//! [`MAX_INFLATED_SIZE`], and allocates only as the inflater produces output.

use super::error::{DataError, DataErrorKind, DatafileError, DatafileErrorKind};
use super::format::*;
use binrw::BinRead;
use std::borrow::Cow;
use std::collections::HashSet;
use std::io::Cursor;

/// The largest inflated data block [`Datafile::data`] produces (128 MiB). DDNet has no cap
/// of its own below 2 GiB; the largest blocks of real maps (big game layers) are a few
/// tens of MiB.
pub const MAX_INFLATED_SIZE: u64 = 128 << 20;

/// DDNet refuses a datafile whose tables would need more memory than this.
const MAX_ALLOC_SIZE: i64 = 2 << 30;
/// The fixed part of DDNet's in-memory `CDatafile` (two 512-byte paths, hashes, header,
/// pointers), which its 2 GiB check counts beside the tables; approximate, and only ever
/// decisive for files of hundreds of megabytes.
const CDATAFILE_SIZE: i64 = 1200;

/// One item: its type, id and data, borrowed from the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item<'a> {
    /// The item's index in the file.
    pub index: usize,
    /// Its (internal) type: the key's upper 16 bits.
    pub type_id: i32,
    /// Its id: the key's lower 16 bits.
    pub id: i32,
    /// Offset of its data in the file (after the 8-byte item header).
    pub offset: u64,
    /// Its data bytes (a multiple of 4).
    pub data: &'a [u8],
}

impl Item<'_> {
    /// The number of 32-bit ints the item holds.
    pub(crate) fn len_ints(&self) -> usize {
        self.data.len() / 4
    }

    /// The little-endian int at `index`, if the item is that long.
    pub fn int(&self, index: usize) -> Option<i32> {
        let bytes = self.data.get(4 * index..4 * index + 4)?;
        Some(i32::from_le_bytes(bytes.try_into().ok()?))
    }
}

/// A datafile that opens as DDNet opens it, borrowed from its bytes.
#[derive(Debug, Clone)]
pub struct Datafile<'a> {
    bytes: &'a [u8],
    header: Header,
    header_fixed: bool,
    item_types: Vec<ItemType>,
    item_offsets: Vec<i32>,
    data_offsets: Vec<i32>,
    data_sizes: Option<Vec<i32>>,
    items_start: usize,
    data_start: usize,
}

/// Little-endian i32s from `bytes` (whose length the caller made a multiple of 4).
fn ints(bytes: &[u8]) -> Vec<i32> {
    let (words, _) = bytes.as_chunks::<4>();
    words.iter().map(|w| i32::from_le_bytes(*w)).collect()
}

impl<'a> Datafile<'a> {
    /// Opens `bytes` with DDNet's checks, in DDNet's order; see the [module docs](self).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DatafileError> {
        use DatafileErrorKind as K;
        let fail = |offset: u64, kind| Err(DatafileError::new(offset, kind));
        let len = bytes.len() as u64;
        // The 36 bytes hold the whole header: reading it fails only where they are missing.
        let Some(mut header) = bytes
            .first_chunk::<HEADER_SIZE>()
            .and_then(|head| Header::read(&mut Cursor::new(head)).ok())
        else {
            return fail(0, K::TooShort { len });
        };
        if !header.magic_ok() {
            return fail(
                0,
                K::BadMagic {
                    found: header.magic,
                },
            );
        }
        if header.version != VERSION_RAW && header.version != VERSION_COMPRESSED {
            return fail(
                VERSION_OFFSET,
                K::UnsupportedVersion {
                    version: header.version,
                },
            );
        }
        let h = header;
        if h.num_item_types < 0
            || h.num_item_types > MAX_ITEM_TYPE + 1
            || h.num_items < 0
            || h.num_data < 0
            || h.item_size < 0
            || h.item_size % 4 != 0
            || h.data_size < 0
        {
            return fail(
                COUNTS_OFFSET,
                K::BadCounts {
                    num_item_types: h.num_item_types,
                    num_items: h.num_items,
                    num_data: h.num_data,
                    item_size: h.item_size,
                    data_size: h.data_size,
                },
            );
        }
        let (types, items, data) = (
            h.num_item_types as i64,
            h.num_items as i64,
            h.num_data as i64,
        );
        // Version 4 stores the inflated sizes too; writers before 2020 left them out of
        // `size` and `swaplen`, which DDNet forgives by exactly that amount.
        let size_fix = if h.compressed() { 4 * data } else { 0 };
        let tables = ITEM_TYPE_SIZE as i64 * types + 4 * items + 4 * data + size_fix;
        let size = tables + h.item_size as i64;
        let expected = HEADER_SIZE as i64 + size + h.data_size as i64;
        if expected != len as i64 {
            return fail(
                COUNTS_OFFSET,
                K::SizeMismatch {
                    expected,
                    actual: len,
                },
            );
        }
        let mut header_fixed = false;
        let header_len = h.size as i64 + HEADER_SIZE_OFFSET;
        if header_len != len as i64 {
            if size_fix != 0 && header_len + size_fix == len as i64 {
                header.size += size_fix as i32;
                header_fixed = true;
            } else {
                return fail(
                    SIZE_OFFSET,
                    K::HeaderSize {
                        header: header_len,
                        actual: len,
                    },
                );
            }
        }
        let swaplen = h.swaplen as i64 + HEADER_SIZE_OFFSET;
        let before_data = len as i64 - h.data_size as i64;
        if swaplen != before_data {
            if h.swaplen % 4 == 0 && size_fix != 0 && swaplen + size_fix == before_data {
                header.swaplen += size_fix as i32;
                header_fixed = true;
            } else {
                return fail(
                    SWAPLEN_OFFSET,
                    K::Swaplen {
                        header: swaplen,
                        actual: before_data,
                    },
                );
            }
        }
        let alloc = size + CDATAFILE_SIZE + data * 8 + data * 8 + items * 8 + data * 4;
        if alloc > MAX_ALLOC_SIZE {
            return fail(COUNTS_OFFSET, K::TooLarge { bytes: alloc });
        }

        // The counts are backed by the file now: every table lies inside it (the error is
        // for the sums above, were they wrong).
        let mut pos = HEADER_SIZE;
        let mut take = |n: usize| {
            let slice = bytes.get(pos..pos + n);
            pos += n;
            slice.ok_or(DatafileError::new(
                COUNTS_OFFSET,
                K::SizeMismatch {
                    expected,
                    actual: len,
                },
            ))
        };
        let type_bytes = take(ITEM_TYPE_SIZE * types as usize)?;
        let item_types: Vec<ItemType> = ints(type_bytes)
            .as_chunks::<3>()
            .0
            .iter()
            .map(|&[type_id, start, num]| ItemType {
                type_id,
                start,
                num,
            })
            .collect();
        let item_offsets = ints(take(4 * items as usize)?);
        let data_offsets = ints(take(4 * data as usize)?);
        let data_sizes = match h.compressed() {
            true => Some(ints(take(4 * data as usize)?)),
            false => None,
        };
        let items_start = pos;
        let data_start = items_start + h.item_size as usize;
        let file = Datafile {
            bytes,
            header,
            header_fixed,
            item_types,
            item_offsets,
            data_offsets,
            data_sizes,
            items_start,
            data_start,
        };
        file.validate()?;
        Ok(file)
    }

    /// Offset of item-type entry `index`.
    fn item_type_offset(&self, index: usize) -> u64 {
        (HEADER_SIZE + ITEM_TYPE_SIZE * index) as u64
    }

    /// Offset of the item-offset table entry `index`.
    fn item_offset_offset(&self, index: usize) -> u64 {
        self.item_type_offset(self.item_types.len()) + 4 * index as u64
    }

    /// Offset of the data-offset table entry `index`.
    fn data_offset_offset(&self, index: usize) -> u64 {
        self.item_offset_offset(self.item_offsets.len()) + 4 * index as u64
    }

    /// Offset of the inflated-size table entry `index` (version 4).
    fn data_size_offset(&self, index: usize) -> u64 {
        self.data_offset_offset(self.data_offsets.len()) + 4 * index as u64
    }

    /// The span of item `index` in bytes, its header included (DDNet's `GetFileItemSize`);
    /// `None` past the last item.
    fn item_span(&self, index: usize) -> Option<i32> {
        let end = self
            .item_offsets
            .get(index + 1)
            .copied()
            .unwrap_or(self.header.item_size);
        Some(end.wrapping_sub(*self.item_offsets.get(index)?))
    }

    /// The stored size of block `index` (DDNet's `GetFileDataSize`); `None` past the last
    /// block.
    fn data_span(&self, index: usize) -> Option<i32> {
        let end = self
            .data_offsets
            .get(index + 1)
            .copied()
            .unwrap_or(self.header.data_size);
        Some(end.wrapping_sub(*self.data_offsets.get(index)?))
    }

    /// Where item `index` starts in the file, its header included.
    fn item_start(&self, index: usize) -> Option<usize> {
        Some(self.items_start + *self.item_offsets.get(index)? as usize)
    }

    /// Key and size field of item `index`; `None` past the last item or where the file
    /// ends before its header.
    fn item_header(&self, index: usize) -> Option<(u32, i32)> {
        let at = self.item_start(index)?;
        let (key, size) = self
            .bytes
            .get(at..)?
            .first_chunk::<ITEM_HEADER_SIZE>()?
            .split_first_chunk::<4>()?;
        Some((
            u32::from_le_bytes(*key),
            i32::from_le_bytes(size.first_chunk().copied()?),
        ))
    }

    /// DDNet's `CDatafile::Validate`, check for check.
    fn validate(&self) -> Result<(), DatafileError> {
        use DatafileErrorKind as K;
        let h = &self.header;
        let mut counted: i64 = 0;
        let mut used_types = HashSet::new();
        for (index, t) in self.item_types.iter().enumerate() {
            let at = self.item_type_offset(index);
            if !(0..=MAX_ITEM_TYPE).contains(&t.type_id) {
                let kind = K::ItemTypeOutOfRange {
                    index,
                    type_id: t.type_id,
                };
                return Err(DatafileError::new(at, kind));
            }
            if !used_types.insert(t.type_id) {
                let kind = K::ItemTypeDuplicate {
                    index,
                    type_id: t.type_id,
                };
                return Err(DatafileError::new(at, kind));
            }
            if t.num <= 0 {
                let kind = K::ItemTypeEmpty {
                    index,
                    type_id: t.type_id,
                    num: t.num,
                };
                return Err(DatafileError::new(at + 8, kind));
            }
            if t.start as i64 != counted {
                let kind = K::ItemTypeStart {
                    index,
                    type_id: t.type_id,
                    start: t.start,
                    expected: counted,
                };
                return Err(DatafileError::new(at + 4, kind));
            }
            counted += t.num as i64;
            if counted > h.num_items as i64 {
                break;
            }
        }
        if counted != h.num_items as i64 {
            let kind = K::ItemCount {
                counted,
                header: h.num_items,
            };
            return Err(DatafileError::new(COUNTS_OFFSET + 4, kind));
        }

        let mut previous = -1;
        for (index, &offset) in self.item_offsets.iter().enumerate() {
            let in_order = if index == 0 {
                offset == 0
            } else {
                offset > previous
            };
            if !in_order || offset >= h.item_size {
                let kind = K::ItemOffset {
                    index,
                    offset,
                    total: h.item_size,
                };
                return Err(DatafileError::new(self.item_offset_offset(index), kind));
            }
            previous = offset;
        }

        let mut total: i64 = 0;
        for t in &self.item_types {
            let mut used_ids = HashSet::new();
            let range = t.start as usize..(t.start as i64 + t.num as i64) as usize;
            for index in range {
                // The types count no more items than there are (checked above).
                let (Some(span), Some(at)) = (self.item_span(index), self.item_start(index)) else {
                    let kind = K::ItemCount {
                        counted,
                        header: h.num_items,
                    };
                    return Err(DatafileError::new(COUNTS_OFFSET + 4, kind));
                };
                let at = at as u64;
                // The span lies inside the items (the offsets are checked above): a span of
                // a whole header holds one.
                let header = self
                    .item_header(index)
                    .filter(|_| span >= ITEM_HEADER_SIZE as i32);
                let Some((key, size)) = header else {
                    let kind = K::ItemTooSmall { index, size: span };
                    return Err(DatafileError::new(at, kind));
                };
                let type_id = key_type(key);
                if type_id != t.type_id {
                    let kind = K::ItemTypeMismatch {
                        index,
                        type_id,
                        expected: t.type_id,
                    };
                    return Err(DatafileError::new(at, kind));
                }
                // Old DDNet tools wrote duplicate UUID-type items; DDNet lets them be.
                if type_id != ITEMTYPE_EX && !used_ids.insert(key_id(key)) {
                    let kind = K::ItemDuplicateId {
                        index,
                        type_id,
                        id: key_id(key),
                    };
                    return Err(DatafileError::new(at, kind));
                }
                if size < 0 || size % 4 != 0 || size != span - ITEM_HEADER_SIZE as i32 {
                    let kind = K::ItemSize { index, size, span };
                    return Err(DatafileError::new(at + 4, kind));
                }
                total += span as i64;
                if total > h.item_size as i64 {
                    break;
                }
            }
        }
        if total != h.item_size as i64 {
            let kind = K::ItemBytes {
                counted: total,
                header: h.item_size,
            };
            return Err(DatafileError::new(COUNTS_OFFSET + 12, kind));
        }

        let mut previous = -1;
        for (index, &offset) in self.data_offsets.iter().enumerate() {
            let in_order = if index == 0 {
                offset == 0
            } else {
                offset > previous
            };
            if !in_order || offset >= h.data_size {
                let kind = K::DataOffset {
                    index,
                    offset,
                    total: h.data_size,
                };
                return Err(DatafileError::new(self.data_offset_offset(index), kind));
            }
            previous = offset;
        }
        if let Some(sizes) = &self.data_sizes {
            for (index, &size) in sizes.iter().enumerate() {
                if size < 0 {
                    let kind = K::DataSizeNegative { index, size };
                    return Err(DatafileError::new(self.data_size_offset(index), kind));
                }
            }
        }
        Ok(())
    }

    /// The header, with `size` and `swaplen` as DDNet fixes them for old version-4 files.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Whether the header's `size`/`swaplen` left out the inflated-size table (an old
    /// version-4 writer), which DDNet forgives.
    pub fn header_fixed(&self) -> bool {
        self.header_fixed
    }

    /// 3 or 4.
    pub fn version(&self) -> i32 {
        self.header.version
    }

    /// The whole file.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The item-type table.
    pub fn item_types(&self) -> &[ItemType] {
        &self.item_types
    }

    /// The number of items.
    pub fn num_items(&self) -> usize {
        self.item_offsets.len()
    }

    /// The number of data blocks.
    pub fn num_data(&self) -> usize {
        self.data_offsets.len()
    }

    /// Item `index`, if there is one.
    pub fn item(&self, index: usize) -> Option<Item<'a>> {
        if index >= self.num_items() {
            return None;
        }
        let (key, _) = self.item_header(index)?;
        let start = self.item_start(index)? + ITEM_HEADER_SIZE;
        let end = start + (self.item_span(index)? as usize).checked_sub(ITEM_HEADER_SIZE)?;
        Some(Item {
            index,
            type_id: key_type(key),
            id: key_id(key),
            offset: start as u64,
            data: self.bytes.get(start..end)?,
        })
    }

    /// The items in file order.
    pub fn items(&self) -> impl Iterator<Item = Item<'a>> + '_ {
        (0..self.num_items()).filter_map(|i| self.item(i))
    }

    /// The item indices of internal type `type_id`, as DDNet's `GetType` finds them
    /// (empty if the type is absent).
    pub(crate) fn type_range(&self, type_id: i32) -> std::ops::Range<usize> {
        self.item_types
            .iter()
            .find(|t| t.type_id == type_id)
            .map_or(0..0, |t| t.start as usize..(t.start + t.num) as usize)
    }

    /// The index of the item of `type_id` and `id`, as DDNet's `FindItemIndex` finds it.
    pub fn find_item(&self, type_id: i32, id: i32) -> Option<usize> {
        self.type_range(type_id).find(|&i| {
            self.item_header(i)
                .is_some_and(|(key, _)| key_id(key) == id)
        })
    }

    /// Where block `index` starts in the file.
    fn data_block_start(&self, index: usize) -> Option<usize> {
        Some(self.data_start + *self.data_offsets.get(index)? as usize)
    }

    /// Block `index` as stored (compressed in version 4).
    pub(crate) fn data_raw(&self, index: usize) -> Option<&'a [u8]> {
        let start = self.data_block_start(index)?;
        self.bytes
            .get(start..start + self.data_span(index)? as usize)
    }

    /// The size block `index` has once loaded: the table's inflated size in version 4,
    /// the stored size in version 3.
    pub fn data_size(&self, index: usize) -> Option<u64> {
        Some(match &self.data_sizes {
            Some(sizes) => *sizes.get(index)? as u64,
            None => self.data_span(index)? as u64,
        })
    }

    /// Loads block `index` as DDNet's `GetData` does: version 3 as stored; version 4
    /// inflated with zlib, which must give exactly the declared size (and may not be 0).
    pub fn data(&self, index: i64) -> Result<Cow<'a, [u8]>, DataError> {
        let num_data = self.num_data();
        let block = usize::try_from(index).ok().and_then(|i| {
            let offset = self.data_block_start(i)? as u64;
            Some((
                offset,
                self.data_raw(i)?,
                self.data_sizes.as_ref().map(|s| s.get(i)),
            ))
        });
        let Some((offset, raw, sizes)) = block else {
            return Err(DataError {
                offset: self.data_start as u64,
                index,
                kind: DataErrorKind::NoSuchBlock { num_data },
            });
        };
        let Some(size) = sizes else {
            return Ok(Cow::Borrowed(raw));
        };
        let fail = |kind| DataError {
            offset,
            index,
            kind,
        };
        // `validate` checked that every block has its inflated size.
        let declared = size.copied().unwrap_or(0) as u64;
        if declared == 0 {
            return Err(fail(DataErrorKind::ZeroSize));
        }
        if declared > MAX_INFLATED_SIZE {
            return Err(fail(DataErrorKind::TooLarge {
                size: declared,
                cap: MAX_INFLATED_SIZE,
            }));
        }
        inflate(raw, declared).map(Cow::Owned).map_err(fail)
    }

    /// Block `index` as a string, as DDNet's `GetDataString` reads one: index -1 is the
    /// empty string; otherwise the block must load, end with its only NUL and be UTF-8.
    /// `None` where DDNet gives no string.
    pub(crate) fn data_string(&self, index: i64) -> Option<String> {
        if index == -1 {
            return Some(String::new());
        }
        let data = self.data(index).ok()?;
        let (last, text) = data.split_last()?;
        if *last != 0 || text.contains(&0) {
            return None;
        }
        std::str::from_utf8(text).ok().map(str::to_owned)
    }
}

/// Inflates a zlib stream that must end with exactly `declared` bytes, as zlib's
/// `uncompress` with that output size accepts it. The output grows with what the inflater
/// produces, never past `declared + 1`.
fn inflate(input: &[u8], declared: u64) -> Result<Vec<u8>, DataErrorKind> {
    use flate2::{Decompress, FlushDecompress, Status};
    let limit = declared as usize + 1;
    let mut out = Vec::with_capacity(limit.min(64 * 1024));
    let mut z = Decompress::new(true);
    loop {
        let (in_before, out_before) = (z.total_in(), z.total_out());
        let rest = input.get(z.total_in() as usize..).unwrap_or_default();
        let status = z
            .decompress_vec(rest, &mut out, FlushDecompress::None)
            .map_err(|e| DataErrorKind::Inflate {
                message: e.to_string(),
            })?;
        if out.len() as u64 > declared {
            return Err(DataErrorKind::Inflate {
                message: format!("more than the declared {declared} bytes"),
            });
        }
        if status == Status::StreamEnd {
            break;
        }
        if out.len() == out.capacity() {
            let grow = out.capacity().max(64 * 1024).min(limit - out.len());
            out.reserve_exact(grow);
            continue;
        }
        if z.total_in() == in_before && z.total_out() == out_before {
            return Err(DataErrorKind::Inflate {
                message: "the stream ends before its end code".into(),
            });
        }
    }
    if out.len() as u64 != declared {
        return Err(DataErrorKind::WrongSize {
            declared,
            actual: out.len() as u64,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datafile::writer::DatafileBuilder;

    fn sample() -> Vec<u8> {
        let mut b = DatafileBuilder::new();
        b.add_item(0, 0, &[1]).unwrap();
        b.add_item(5, 0, &[1, 2, 3]).unwrap();
        b.add_item(5, 1, &[4]).unwrap();
        b.add_data(b"hello\0");
        b.add_data(&[7; 100]);
        b.finish().unwrap()
    }

    fn put(bytes: &mut [u8], at: usize, v: i32) {
        bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn kind(bytes: &[u8]) -> (u64, DatafileErrorKind) {
        let e = Datafile::parse(bytes).unwrap_err();
        (e.offset, e.kind)
    }

    #[test]
    fn reads_what_the_writer_wrote() {
        let bytes = sample();
        let f = Datafile::parse(&bytes).unwrap();
        assert_eq!((f.version(), f.num_items(), f.num_data()), (4, 3, 2));
        assert_eq!(f.type_range(5), 1..3);
        assert_eq!(f.find_item(5, 1), Some(2));
        assert_eq!(f.item(1).unwrap().int(2), Some(3));
        assert_eq!(f.data_string(0).as_deref(), Some("hello"));
        assert_eq!(f.data(1).unwrap().as_ref(), &[7; 100]);
        assert_eq!(f.data_string(-1).as_deref(), Some(""));
        assert!(matches!(
            f.data(2).unwrap_err().kind,
            DataErrorKind::NoSuchBlock { num_data: 2 }
        ));
    }

    #[test]
    fn header_checks_in_ddnet_order() {
        let good = sample();
        assert_eq!(
            kind(&good[..20]),
            (0, DatafileErrorKind::TooShort { len: 20 })
        );
        let mut b = good.clone();
        b[0] = b'X';
        assert!(matches!(kind(&b), (0, DatafileErrorKind::BadMagic { .. })));
        let mut b = good.clone();
        b[..4].copy_from_slice(b"ATAD");
        assert!(Datafile::parse(&b).is_ok());
        let mut b = good.clone();
        put(&mut b, 4, 5);
        assert_eq!(
            kind(&b),
            (4, DatafileErrorKind::UnsupportedVersion { version: 5 })
        );
        let mut b = good.clone();
        put(&mut b, 20, -1);
        assert!(matches!(
            kind(&b),
            (16, DatafileErrorKind::BadCounts { .. })
        ));
        // A cut file no longer adds up.
        assert!(matches!(
            kind(&good[..good.len() - 1]),
            (16, DatafileErrorKind::SizeMismatch { .. })
        ));
        let mut b = good.clone();
        put(&mut b, 8, 1000);
        assert!(matches!(
            kind(&b),
            (8, DatafileErrorKind::HeaderSize { .. })
        ));
        let mut b = good.clone();
        put(&mut b, 12, 1000);
        assert!(matches!(kind(&b), (12, DatafileErrorKind::Swaplen { .. })));
    }

    #[test]
    fn table_checks() {
        let good = sample();
        // Tables: 2 types (24 bytes) at 36, item offsets at 60, data offsets at 72,
        // inflated sizes at 80, items at 88.
        let mut b = good.clone();
        put(&mut b, 36 + 12, 0); // second type entry also type 0
        assert!(matches!(
            kind(&b),
            (48, DatafileErrorKind::ItemTypeDuplicate { index: 1, .. })
        ));
        let mut b = good.clone();
        put(&mut b, 64, 4); // item 1 at offset 4: the span of item 0 is too small
        assert!(matches!(
            kind(&b),
            (_, DatafileErrorKind::ItemTooSmall { index: 0, size: 4 })
        ));
        let mut b = good.clone();
        put(&mut b, 64, 0);
        assert!(matches!(
            kind(&b),
            (64, DatafileErrorKind::ItemOffset { index: 1, .. })
        ));
        let mut b = good.clone();
        put(&mut b, 76, 1000);
        assert!(matches!(
            kind(&b),
            (76, DatafileErrorKind::DataOffset { index: 1, .. })
        ));
        let mut b = good.clone();
        put(&mut b, 84, -5);
        assert!(matches!(
            kind(&b),
            (
                84,
                DatafileErrorKind::DataSizeNegative { index: 1, size: -5 }
            )
        ));
        let mut b = good.clone();
        // Items: type 0 at 88 (12 bytes), type 5 id 0 at 100 (20 bytes), type 5 id 1 at 120.
        put(&mut b, 120, 0x0005_0000);
        assert!(matches!(
            kind(&b),
            (_, DatafileErrorKind::ItemDuplicateId { .. })
        ));
    }

    #[test]
    fn data_loading_as_ddnet_does() {
        let good = sample();
        let f = Datafile::parse(&good).unwrap();
        let raw = f.data_raw(1).unwrap();
        let start = raw.as_ptr() as usize - good.as_ptr() as usize;
        // Declared size 0: the file opens, the block does not load.
        let mut b = good.clone();
        put(&mut b, 84, 0);
        let f = Datafile::parse(&b).unwrap();
        assert_eq!(f.data(1).unwrap_err().kind, DataErrorKind::ZeroSize);
        // Declared larger or smaller than what inflates.
        let mut b = good.clone();
        put(&mut b, 84, 101);
        let f = Datafile::parse(&b).unwrap();
        assert!(matches!(
            f.data(1).unwrap_err().kind,
            DataErrorKind::WrongSize {
                declared: 101,
                actual: 100
            }
        ));
        let mut b = good.clone();
        put(&mut b, 84, 99);
        let f = Datafile::parse(&b).unwrap();
        assert!(matches!(
            f.data(1).unwrap_err().kind,
            DataErrorKind::Inflate { .. }
        ));
        // A damaged stream (the Adler-32 checksum at its end) does not inflate.
        let mut b = good.clone();
        let last = start + raw.len() - 1;
        b[last] ^= 0xff;
        let f = Datafile::parse(&b).unwrap();
        assert!(matches!(
            f.data(1).unwrap_err().kind,
            DataErrorKind::Inflate { .. }
        ));
        // Over the cap: refused before inflating.
        let mut b = good.clone();
        put(&mut b, 84, i32::MAX);
        let f = Datafile::parse(&b).unwrap();
        assert!(matches!(
            f.data(1).unwrap_err().kind,
            DataErrorKind::TooLarge { .. }
        ));
    }
}
