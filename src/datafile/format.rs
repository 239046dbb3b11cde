//! The byte layouts of a datafile, as binrw structs.
//!
//! A datafile is little-endian throughout (DDNet reads it in the machine's order and swaps
//! on big-endian hosts only): a 36-byte [`Header`], then the tables (item types, item
//! offsets, data offsets and, in version 4, the inflated data sizes), then the items, then
//! the data blocks. Which counts and offsets must agree is the [`reader`](super::reader)'s
//! business; these types only describe bytes.

use binrw::binrw;

/// The magic as Teeworlds writes it on a little-endian machine.
pub const MAGIC: [u8; 4] = *b"DATA";
/// The magic as a big-endian writer stores it; DDNet accepts both.
pub(crate) const MAGIC_SWAPPED: [u8; 4] = *b"ATAD";
/// Size of [`Header`].
pub const HEADER_SIZE: usize = 36;
/// Bytes of the header that `size` and `swaplen` do not count: magic, version and the two
/// fields themselves.
pub(crate) const HEADER_SIZE_OFFSET: i64 = 16;
/// Size of one [`ItemType`] entry.
pub const ITEM_TYPE_SIZE: usize = 12;
/// Size of an item's own header: the type-and-id key and the data size.
pub const ITEM_HEADER_SIZE: usize = 8;
/// The largest item type (types are 16 bits in the key).
pub(crate) const MAX_ITEM_TYPE: i32 = 0xffff;
/// The item type that maps a UUID to an internal type (DDNet's `ITEMTYPE_EX`).
pub(crate) const ITEMTYPE_EX: i32 = 0xffff;
/// Internal item types above this one stand for UUID types (DDNet's `OFFSET_UUID_TYPE`).
pub const OFFSET_UUID_TYPE: i32 = 0x8000;
/// The datafile version without inflated data sizes: data blocks are stored raw.
pub(crate) const VERSION_RAW: i32 = 3;
/// The datafile version with zlib-compressed data blocks and their inflated sizes.
pub(crate) const VERSION_COMPRESSED: i32 = 4;

/// Byte offset of [`Header::version`].
pub(crate) const VERSION_OFFSET: u64 = 4;
/// Byte offset of [`Header::size`].
pub(crate) const SIZE_OFFSET: u64 = 8;
/// Byte offset of [`Header::swaplen`].
pub(crate) const SWAPLEN_OFFSET: u64 = 12;
/// Byte offset of [`Header::num_item_types`].
pub(crate) const COUNTS_OFFSET: u64 = 16;

/// The fixed header at the start of every datafile.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// `"DATA"` or `"ATAD"`.
    pub magic: [u8; 4],
    /// 3 (raw data) or 4 (compressed data).
    pub version: i32,
    /// File size minus the first 16 bytes. Version-4 writers before 2020 left out the
    /// inflated-size table; DDNet accepts that and so does the reader.
    pub size: i32,
    /// Bytes DDNet byte-swaps on big-endian hosts: everything up to the data, minus the
    /// first 16 bytes (same quirk as `size`).
    pub swaplen: i32,
    /// Entries in the item-type table.
    pub num_item_types: i32,
    /// Items in the file.
    pub num_items: i32,
    /// Data blocks in the file.
    pub num_data: i32,
    /// Bytes of all items, their 8-byte headers included.
    pub item_size: i32,
    /// Bytes of all data blocks as stored.
    pub data_size: i32,
}

impl Header {
    /// Whether the magic is one DDNet accepts.
    pub(crate) fn magic_ok(&self) -> bool {
        self.magic == MAGIC || self.magic == MAGIC_SWAPPED
    }

    /// Whether data blocks are zlib-compressed with a table of inflated sizes.
    pub fn compressed(&self) -> bool {
        self.version == VERSION_COMPRESSED
    }
}

/// One entry of the item-type table: the items of `type_id` are items `start` to
/// `start + num - 1`.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ItemType {
    /// The item type (0 to 0xffff).
    pub type_id: i32,
    /// Index of its first item.
    pub start: i32,
    /// Number of its items.
    pub num: i32,
}

/// The type of an item key: its upper 16 bits.
pub(crate) const fn key_type(key: u32) -> i32 {
    ((key >> 16) & 0xffff) as i32
}

/// The id of an item key: its lower 16 bits.
pub(crate) const fn key_id(key: u32) -> i32 {
    (key & 0xffff) as i32
}
