//! Errors of the datafile reader. Each names the byte offset (from the start of the
//! datafile) of the field or block at fault, and which of DDNet's checks failed.

/// A datafile does not open the way DDNet's `CDataFileReader::Open` opens one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {kind}")]
pub struct DatafileError {
    /// Offset of the field at fault.
    pub offset: u64,
    /// Which check failed.
    pub kind: DatafileErrorKind,
}

impl DatafileError {
    pub(crate) fn new(offset: u64, kind: DatafileErrorKind) -> Self {
        DatafileError { offset, kind }
    }
}

/// The checks of DDNet's datafile reader, in the order it makes them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DatafileErrorKind {
    /// Fewer bytes than the 36-byte header.
    #[error("expected the 36-byte datafile header, but the file has {len} bytes")]
    TooShort {
        /// The file's size.
        len: u64,
    },
    /// The magic is neither `"DATA"` nor `"ATAD"`.
    #[error("expected the magic \"DATA\" or \"ATAD\", found {}", crate::read::HexBytes(.found))]
    BadMagic {
        /// The first 4 bytes.
        found: [u8; 4],
    },
    /// The version is not 3 or 4.
    #[error("datafile version {version} is not supported (expected 3 or 4)")]
    UnsupportedVersion {
        /// The header's version.
        version: i32,
    },
    /// A header count or size is negative, or out of range.
    #[error(
        "invalid header counts: {num_item_types} item types, {num_items} items, {num_data} data blocks, {item_size} item bytes, {data_size} data bytes"
    )]
    BadCounts {
        /// Item types.
        num_item_types: i32,
        /// Items.
        num_items: i32,
        /// Data blocks.
        num_data: i32,
        /// Item bytes (must be a multiple of 4).
        item_size: i32,
        /// Data bytes.
        data_size: i32,
    },
    /// The tables, items and data do not add up to the file's size.
    #[error("header counts add up to {expected} bytes, but the file has {actual}")]
    SizeMismatch {
        /// What the counts imply.
        expected: i64,
        /// The file's size.
        actual: u64,
    },
    /// The header's `size` field disagrees with the file's size.
    #[error("header size field says {header} bytes, but the file has {actual}")]
    HeaderSize {
        /// `size` plus the 16 bytes it leaves out.
        header: i64,
        /// The file's size.
        actual: u64,
    },
    /// The header's `swaplen` field disagrees with where the data starts.
    #[error("header swaplen field says {header} bytes before the data, but there are {actual}")]
    Swaplen {
        /// `swaplen` plus the 16 bytes it leaves out.
        header: i64,
        /// Bytes before the data.
        actual: i64,
    },
    /// DDNet would need to allocate more than 2 GiB for the tables.
    #[error("tables need {bytes} bytes of memory, more than DDNet's 2 GiB limit")]
    TooLarge {
        /// What DDNet would allocate.
        bytes: i64,
    },
    /// An item type is outside 0..=0xffff.
    #[error("item type entry {index}: type {type_id} is outside 0..=65535")]
    ItemTypeOutOfRange {
        /// The entry's index.
        index: usize,
        /// Its type.
        type_id: i32,
    },
    /// Two item-type entries name the same type.
    #[error("item type entry {index}: type {type_id} is listed twice")]
    ItemTypeDuplicate {
        /// The entry's index.
        index: usize,
        /// Its type.
        type_id: i32,
    },
    /// An item-type entry has no items.
    #[error("item type entry {index} (type {type_id}): {num} items")]
    ItemTypeEmpty {
        /// The entry's index.
        index: usize,
        /// Its type.
        type_id: i32,
        /// Its item count.
        num: i32,
    },
    /// An item-type entry does not start where the previous one ended.
    #[error(
        "item type entry {index} (type {type_id}): starts at item {start}, expected {expected}"
    )]
    ItemTypeStart {
        /// The entry's index.
        index: usize,
        /// Its type.
        type_id: i32,
        /// Its start.
        start: i32,
        /// The items counted before it.
        expected: i64,
    },
    /// The item-type entries do not cover exactly the header's items.
    #[error("item type entries cover {counted} items, the header says {header}")]
    ItemCount {
        /// Items the entries cover (counting stops once past the header's count).
        counted: i64,
        /// The header's item count.
        header: i32,
    },
    /// An item offset is not 0 (first item), not above the previous one, or past the items.
    #[error("item {index}: offset {offset} is out of order or past the {total} item bytes")]
    ItemOffset {
        /// The item's index.
        index: usize,
        /// Its offset.
        offset: i32,
        /// The header's item bytes.
        total: i32,
    },
    /// An item's span has no room for its 8-byte header.
    #[error("item {index}: {size} bytes, too small for the 8-byte item header")]
    ItemTooSmall {
        /// The item's index.
        index: usize,
        /// Its span in bytes.
        size: i32,
    },
    /// An item's key names another type than its item-type entry.
    #[error("item {index}: type {type_id} in an entry of type {expected}")]
    ItemTypeMismatch {
        /// The item's index.
        index: usize,
        /// The type in its key.
        type_id: i32,
        /// The entry's type.
        expected: i32,
    },
    /// Two items of one type share an id (type 0xffff excepted, as in DDNet).
    #[error("item {index}: type {type_id} id {id} is used twice")]
    ItemDuplicateId {
        /// The item's index.
        index: usize,
        /// Its type.
        type_id: i32,
        /// Its id.
        id: i32,
    },
    /// An item's size field is negative, not a multiple of 4, or not its span minus 8.
    #[error("item {index}: size field {size} does not match its {span} bytes")]
    ItemSize {
        /// The item's index.
        index: usize,
        /// The size field.
        size: i32,
        /// Its span in bytes.
        span: i32,
    },
    /// The items do not add up to the header's item bytes.
    #[error("items add up to {counted} bytes, the header says {header}")]
    ItemBytes {
        /// Bytes counted (counting stops once past the header's total).
        counted: i64,
        /// The header's item bytes.
        header: i32,
    },
    /// A data offset is not 0 (first block), not above the previous one, or past the data.
    #[error("data block {index}: offset {offset} is out of order or past the {total} data bytes")]
    DataOffset {
        /// The block's index.
        index: usize,
        /// Its offset.
        offset: i32,
        /// The header's data bytes.
        total: i32,
    },
    /// A version-4 inflated size is negative.
    #[error("data block {index}: inflated size {size} is negative")]
    DataSizeNegative {
        /// The block's index.
        index: usize,
        /// The size.
        size: i32,
    },
}

/// A data block cannot be loaded the way DDNet's `GetData` loads it (DDNet then hands out
/// no data for it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: data block {index}: {kind}")]
pub struct DataError {
    /// Offset of the block (or, for a bad index, of the data section).
    pub offset: u64,
    /// The block's index.
    pub index: i64,
    /// What went wrong.
    pub kind: DataErrorKind,
}

/// Why a data block does not load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DataErrorKind {
    /// The index names no block.
    #[error("no such block (the file has {num_data})")]
    NoSuchBlock {
        /// Blocks in the file.
        num_data: usize,
    },
    /// A version-4 block whose inflated size is 0 (DDNet loads the file but not the block).
    #[error("inflated size is 0")]
    ZeroSize,
    /// The inflated size is larger than this reader's cap.
    #[error("inflated size {size} exceeds demokit's cap of {cap} bytes")]
    TooLarge {
        /// The declared inflated size.
        size: u64,
        /// [`MAX_INFLATED_SIZE`](super::reader::MAX_INFLATED_SIZE).
        cap: u64,
    },
    /// The block is not a zlib stream that ends within the declared size.
    #[error("zlib inflate failed: {message}")]
    Inflate {
        /// What the inflater said.
        message: String,
    },
    /// The block inflates to another size than declared.
    #[error("inflates to {actual} bytes, the table says {declared}")]
    WrongSize {
        /// The table's inflated size.
        declared: u64,
        /// What came out.
        actual: u64,
    },
}
