//! Snapshots as DDNet stores them: one array of 32-bit ints.
//!
//! A snapshot is `[data_size_bytes, num_items, offsets[num_items]..., items...]`, where each
//! offset is a byte offset into the item data and each item is `[key, data...]` with
//! `key = (type << 16) | id`. An item's size is implied by the next offset, or by
//! `data_size` for the last item. This is DDNet's `CSnapshot` (src/engine/shared/snapshot.cpp).
//!
//! * [`Snapshot`] is a zero-copy view over such an array, checked on
//!   [`parse`](Snapshot::parse) exactly as DDNet's `CSnapshot::IsValid` checks it.
//! * [`SnapshotBuilder`] builds the array from items in insertion order, like DDNet's
//!   `CSnapshotBuilder`, extended (UUID) item types included.
//! * [`SnapshotBuf`] is an owned, valid snapshot.
//!
//! Deltas between snapshots are in [`delta`](super::delta). What the items mean (which
//! type is a character, a flag, ...) is left to callers: only the extended-type
//! bookkeeping, which changes the item layout itself, is handled here.

use uuid::Uuid;

use crate::codec::uuid::{uuid_from_ints, uuid_to_ints};

/// The most bytes a snapshot may take, header and offsets included (`CSnapshot::MAX_SIZE`).
pub const MAX_SIZE: usize = 64 * 1024;
/// The most items a snapshot may hold (`CSnapshot::MAX_ITEMS`).
pub const MAX_ITEMS: usize = 1024;
/// The largest item type a key can carry (`CSnapshot::MAX_TYPE`).
pub const MAX_TYPE: i32 = 0x7fff;
/// The largest item id a key can carry (`CSnapshot::MAX_ID`).
pub(crate) const MAX_ID: i32 = 0xffff;
/// Internal types from here up may name extended types (`CSnapshot::OFFSET_UUID_TYPE`).
pub const OFFSET_UUID_TYPE: i32 = 0x4000;
/// The most extended item types one builder registers (DDNet's `MAX_EXTENDED_ITEM_TYPES`).
pub const MAX_EXTENDED_TYPES: usize = 64;
/// The item type (`NETOBJTYPE_EX`) of the items that name an extended type by its UUID.
pub(crate) const EXTENDED_TYPE_ITEM: i32 = 0;

/// Ints before the offsets: `data_size` and `num_items`.
pub(crate) const HEADER_INTS: usize = 2;
/// Ints an item takes besides its data: the key.
pub(crate) const KEY_INTS: usize = 1;

/// The key of the item of `type_id` and `id`: `(type << 16) | id`.
///
/// Both are taken as they come (DDNet does not check them here either); a type above
/// [`MAX_TYPE`] or an id outside `0..=MAX_ID` gives a key that does not split back.
pub const fn key(type_id: i32, id: i32) -> i32 {
    (type_id << 16) | id
}

/// The (internal) type of a key: its upper 16 bits, sign included, as DDNet's
/// `CSnapshotItem::InternalType` reads them.
pub const fn key_type(key: i32) -> i32 {
    key >> 16
}

/// How the type of an item key is read, and which types a delta or a builder takes: DDNet
/// at the reference commit 28baa427 (the default), or as DDNet PR #12563 (open) reads it.
///
/// A key is `(type << 16) | id` in a 32-bit int. At the reference commit the type is the
/// upper 16 bits with their sign (`key >> 16`, `CSnapshot::MAX_TYPE = 0x7fff`): a key with
/// bit 31 set has a negative type, which DDNet's delta unpacking refuses in an update
/// (-202) and cannot keep from the old snapshot. DDNet PR #12563 makes every key's type
/// valid: the upper 16 bits unsigned (`(key >> 16) & 0xffff`, `MAX_TYPE = 0xffff`), while
/// extended types still count down from 0x7fff ([`MAX_TYPE`]). The same keys and the same
/// ints either way; only which of them DDNet accepts, and the type number an update
/// carries, differ.
///
/// Snapshots themselves are read the same way under both (DDNet checks no key there), and
/// [`Item::type_id`] is always the signed `key >> 16`; [`ItemTypes::type_of`] reads a key
/// under either rule. The delta functions take the rule with their
/// [`ItemSizes`](super::delta::ItemSizes) ([`with_item_types`](super::delta::ItemSizes::with_item_types)),
/// a builder with [`SnapshotBuilder::set_item_types`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum ItemTypes {
    /// DDNet at the reference commit: `key >> 16`, types `0..=0x7fff`.
    #[default]
    Reference,
    /// DDNet PR #12563 item types: `(key >> 16) & 0xffff`, types `0..=0xffff`.
    DdnetPr12563,
}

impl ItemTypes {
    /// The largest item type a delta update or a builder takes: 0x7fff, or 0xffff under
    /// DDNet PR #12563.
    pub const fn max_type(self) -> i32 {
        match self {
            ItemTypes::Reference => MAX_TYPE,
            ItemTypes::DdnetPr12563 => 0xffff,
        }
    }

    /// The type of `key`: [`key_type`] (negative for a key with bit 31 set), or under
    /// DDNet PR #12563 its upper 16 bits unsigned.
    pub const fn type_of(self, key: i32) -> i32 {
        match self {
            ItemTypes::Reference => key_type(key),
            ItemTypes::DdnetPr12563 => (key >> 16) & 0xffff,
        }
    }

    /// Whether `type_id` is one an update or a builder takes: `0..=max_type()`.
    pub const fn is_valid(self, type_id: i32) -> bool {
        type_id >= 0 && type_id <= self.max_type()
    }
}

/// The id of a key: its lower 16 bits.
pub const fn key_id(key: i32) -> i32 {
    key & 0xffff
}

/// Why an int array is not a valid snapshot: which of DDNet's `CSnapshot::IsValid` checks
/// failed, and for which item. DDNet's player logs such a snapshot and skips it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// Fewer than the 2 header ints.
    #[error("expected at least the 2 snapshot header ints, found {ints}")]
    TooShort {
        /// Ints given.
        ints: usize,
    },
    /// More than [`MAX_SIZE`] bytes.
    #[error("snapshot of {bytes} bytes exceeds the limit of {MAX_SIZE} bytes")]
    TooLarge {
        /// Bytes given.
        bytes: usize,
    },
    /// `num_items` is negative or above [`MAX_ITEMS`].
    #[error("item count {num_items} is outside 0..={MAX_ITEMS}")]
    BadItemCount {
        /// The header's item count.
        num_items: i32,
    },
    /// `data_size` is negative.
    #[error("data size {data_size} is negative")]
    NegativeDataSize {
        /// The header's data size in bytes.
        data_size: i32,
    },
    /// The header's sizes do not add up to the array's length.
    #[error("header announces {expected} bytes, but the snapshot has {actual}")]
    SizeMismatch {
        /// `8 + 4 * num_items + data_size`.
        expected: i64,
        /// `4 * ints`.
        actual: usize,
    },
    /// An item offset is negative, past the data, or not a multiple of 4.
    #[error("item {item}: offset {offset} is negative, past the data or not 4-aligned")]
    BadOffset {
        /// The item's index.
        item: usize,
        /// Its byte offset.
        offset: i32,
    },
    /// An item has no room for its key: the offsets are not increasing by at least 4.
    #[error("item {item}: size {size} is negative")]
    NegativeItemSize {
        /// The item's index.
        item: usize,
        /// Its data size in bytes (the span minus the 4-byte key).
        size: i64,
    },
}

/// One snapshot item, borrowed from its snapshot.
///
/// With the `serde` feature: `{"type_id": n, "id": n, "data": [...]}` (the key is
/// `type_id << 16 | id`, so it is left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Item<'a> {
    /// `(type << 16) | id`.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub key: i32,
    /// The internal type: [`key_type`] of the key, with its sign as DDNet reads it at the
    /// reference commit (DDNet PR #12563 reads it unsigned: [`ItemTypes::type_of`]).
    /// Extended types appear as their internal type (see
    /// [`Snapshot::extended_type_uuid`]).
    pub type_id: i32,
    /// The id: [`key_id`] of the key.
    pub id: i32,
    /// The item's data ints, key excluded.
    pub data: &'a [i32],
}

impl<'a> Item<'a> {
    /// The item of a span of ints starting with its key, `None` if the span is empty.
    #[inline]
    fn from_span(span: &'a [i32]) -> Option<Self> {
        let (&key, data) = span.split_first()?;
        Some(Item {
            key,
            type_id: key_type(key),
            id: key_id(key),
            data,
        })
    }
}

/// A checked snapshot, borrowed from its int array.
///
/// With the `serde` feature: `{"items": [...]}`, the items in stored order as [`Item`]
/// writes them, each of an extended type (see [`extended_type_uuid`](Self::extended_type_uuid))
/// with `"uuid"` too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Snapshot<'a> {
    ints: &'a [i32],
    num_items: usize,
}

/// The ints of the empty snapshot: no data, no items.
const EMPTY_INTS: [i32; 2] = [0, 0];

impl<'a> Snapshot<'a> {
    /// Checks `ints` as DDNet's `CSnapshot::IsValid(4 * ints.len())` does, in the same
    /// order: total size, item count, data size, sizes adding up; then every offset in
    /// range and 4-aligned; then every item at least a key long.
    ///
    /// Keys are not checked, as in DDNet: a valid snapshot may hold any key, duplicates
    /// included.
    pub fn parse(ints: &'a [i32]) -> Result<Self, SnapshotError> {
        let bytes = ints.len().saturating_mul(4);
        if ints.len() < HEADER_INTS {
            return Err(SnapshotError::TooShort { ints: ints.len() });
        }
        if bytes > MAX_SIZE {
            return Err(SnapshotError::TooLarge { bytes });
        }
        let &[data_size, num_items, ref rest @ ..] = ints else {
            return Err(SnapshotError::TooShort { ints: ints.len() });
        };
        if !(0..=MAX_ITEMS as i32).contains(&num_items) {
            return Err(SnapshotError::BadItemCount { num_items });
        }
        if data_size < 0 {
            return Err(SnapshotError::NegativeDataSize { data_size });
        }
        let expected = 8 + 4 * num_items as i64 + data_size as i64;
        if expected != bytes as i64 {
            return Err(SnapshotError::SizeMismatch {
                expected,
                actual: bytes,
            });
        }
        let num_items = num_items as usize;
        // The sizes add up, so the offsets are there.
        let Some(offsets) = rest.get(..num_items) else {
            return Err(SnapshotError::SizeMismatch {
                expected,
                actual: bytes,
            });
        };
        for (item, &offset) in offsets.iter().enumerate() {
            if offset < 0 || offset > data_size || offset % 4 != 0 {
                return Err(SnapshotError::BadOffset { item, offset });
            }
        }
        for (item, &offset) in offsets.iter().enumerate() {
            let end = offsets.get(item + 1).copied().unwrap_or(data_size);
            let size = end as i64 - offset as i64 - 4;
            if size < 0 {
                return Err(SnapshotError::NegativeItemSize { item, size });
            }
        }
        Ok(Snapshot { ints, num_items })
    }

    /// The empty snapshot (DDNet's `CSnapshot::ms_EmptySnapshot`), the base a client
    /// applies its first delta to.
    pub fn empty() -> Snapshot<'static> {
        Snapshot {
            ints: &EMPTY_INTS,
            num_items: 0,
        }
    }

    /// Wraps ints the crate has built itself and knows to be valid.
    pub(crate) fn from_valid(ints: &'a [i32]) -> Self {
        debug_assert!(Snapshot::parse(ints).is_ok());
        Snapshot {
            num_items: ints.get(1).map_or(0, |&n| n as usize),
            ints,
        }
    }

    /// The whole int array, header included.
    pub fn as_ints(&self) -> &'a [i32] {
        self.ints
    }

    /// The header's data size in bytes: the items with their keys.
    pub fn data_size(&self) -> usize {
        self.ints.first().map_or(0, |&size| size as usize)
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.num_items
    }

    /// Whether the snapshot has no items.
    pub fn is_empty(&self) -> bool {
        self.num_items == 0
    }

    /// The byte offsets of the items into the data.
    pub fn offsets(&self) -> &'a [i32] {
        // Parsing checked that the offsets are there.
        (self.ints)
            .get(HEADER_INTS..HEADER_INTS + self.num_items)
            .unwrap_or_default()
    }

    /// The item at `index`, if there is one.
    #[inline]
    pub fn item(&self, index: usize) -> Option<Item<'a>> {
        self.span(index).and_then(Item::from_span)
    }

    /// The key and data ints of item `index`, if it exists. Parsing made sure every span
    /// lies inside the array and holds at least the key.
    #[inline]
    fn span(&self, index: usize) -> Option<&'a [i32]> {
        let data_start = HEADER_INTS + self.num_items;
        let offsets = self.offsets();
        let start = *offsets.get(index)? as usize / 4;
        let end = offsets
            .get(index + 1)
            .map_or(self.data_size() / 4, |&o| o as usize / 4);
        self.ints.get(data_start + start..data_start + end)
    }

    /// The items in their stored order.
    pub fn items(&self) -> Items<'a> {
        let data_start = HEADER_INTS + self.num_items;
        Items {
            offsets: self.offsets(),
            data: (self.ints)
                .get(data_start..data_start + self.data_size() / 4)
                .unwrap_or_default(),
            front: 0,
            back: self.num_items,
        }
    }

    /// The first item with `key`.
    pub fn find(&self, key: i32) -> Option<Item<'a>> {
        self.items().find(|item| item.key == key)
    }

    /// The first item of internal type `type_id` and `id`.
    pub fn find_item(&self, type_id: i32, id: i32) -> Option<Item<'a>> {
        self.find(key(type_id, id))
    }

    /// The UUID an internal type stands for, as DDNet's `GetExternalItemType` finds it:
    /// the data of the type-0 item whose id is `internal_type`, if it has at least 4 ints.
    /// `None` for types below [`OFFSET_UUID_TYPE`], which are not extended.
    pub fn extended_type_uuid(&self, internal_type: i32) -> Option<Uuid> {
        if internal_type < OFFSET_UUID_TYPE {
            return None;
        }
        let item = self.find_item(EXTENDED_TYPE_ITEM, internal_type)?;
        let ints: &[i32; 4] = item.data.get(..4)?.try_into().ok()?;
        Some(uuid_from_ints(ints))
    }

    /// The internal type an extended type got in this snapshot, found as DDNet's
    /// `CSnapshot::FindItem` does: the first type-0 item with an id from
    /// [`OFFSET_UUID_TYPE`] up whose data starts with the UUID.
    pub fn extended_internal_type(&self, uuid: &Uuid) -> Option<i32> {
        let wanted = uuid_to_ints(uuid);
        self.items()
            .find(|item| {
                item.type_id == EXTENDED_TYPE_ITEM
                    && item.id >= OFFSET_UUID_TYPE
                    && item.data.starts_with(&wanted)
            })
            .map(|item| item.id)
    }

    /// The first item of the extended type `uuid` with `id`.
    pub fn find_extended(&self, uuid: &Uuid, id: i32) -> Option<Item<'a>> {
        self.find_item(self.extended_internal_type(uuid)?, id)
    }

    /// An owned copy.
    pub fn to_buf(&self) -> SnapshotBuf {
        SnapshotBuf {
            ints: self.ints.to_vec(),
        }
    }
}

/// Iterator over a snapshot's items, from [`Snapshot::items`].
#[derive(Debug, Clone)]
pub struct Items<'a> {
    /// The item offsets in bytes, one per item not yet iterated plus those before `front`.
    offsets: &'a [i32],
    /// The data ints (keys and item data), exactly the header's data size.
    data: &'a [i32],
    front: usize,
    back: usize,
}

impl<'a> Items<'a> {
    /// Item `index`'s key and data. Parsing made sure every span lies inside the data and
    /// holds at least the key; the access below still checks (`None` otherwise), but reads
    /// each offset once rather than re-deriving the snapshot's regions per item as
    /// [`Snapshot::span`] does.
    #[inline]
    fn item(&self, index: usize) -> Option<Item<'a>> {
        let start = *self.offsets.get(index)? as usize / 4;
        let end = self
            .offsets
            .get(index + 1)
            .map_or(self.data.len(), |&o| o as usize / 4);
        Item::from_span(self.data.get(start..end)?)
    }
}

impl<'a> Iterator for Items<'a> {
    type Item = Item<'a>;

    #[inline]
    fn next(&mut self) -> Option<Item<'a>> {
        if self.front == self.back {
            return None;
        }
        self.front += 1;
        self.item(self.front - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.back - self.front, Some(self.back - self.front))
    }
}

impl DoubleEndedIterator for Items<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        self.item(self.back)
    }
}

impl ExactSizeIterator for Items<'_> {}

/// An owned snapshot, always valid.
///
/// With the `serde` feature it is written as [`Snapshot`] is, and read back from
/// `{"items": [{"type_id", "id", "data"}, ...]}` (a `"uuid"` is ignored: the type-0 items
/// hold it) by packing the items in that order from offset 0, as every builder lays a
/// snapshot out; the result is checked like [`Snapshot::parse`]. A snapshot stored with
/// unused ints between its items (valid, but written by no builder) reads back packed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SnapshotBuf {
    ints: Vec<i32>,
}

impl Default for SnapshotBuf {
    /// The empty snapshot.
    fn default() -> Self {
        SnapshotBuf {
            ints: EMPTY_INTS.to_vec(),
        }
    }
}

impl SnapshotBuf {
    /// The empty snapshot.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks `ints` like [`Snapshot::parse`] and takes them.
    pub fn from_ints(ints: Vec<i32>) -> Result<Self, SnapshotError> {
        Snapshot::parse(&ints)?;
        Ok(SnapshotBuf { ints })
    }

    /// Adds `diff` to the first ints of item `index`'s data, wrapping as DDNet does. The
    /// item must exist and hold at least `diff.len()` ints (nothing changes otherwise).
    #[inline]
    pub(crate) fn add_to_item(&mut self, index: usize, diff: &[i32]) {
        let Some((header, rest)) = self.ints.split_first_chunk_mut::<HEADER_INTS>() else {
            return;
        };
        let num_items = header[1] as usize;
        let Some(&offset) = rest.get(index) else {
            return;
        };
        let start = num_items + offset as usize / 4 + KEY_INTS;
        let Some(values) = rest.get_mut(start..start + diff.len()) else {
            return;
        };
        for (value, &d) in values.iter_mut().zip(diff) {
            *value = value.wrapping_add(d);
        }
    }

    /// Swaps the int array with `ints`, which the caller built as a valid snapshot (the
    /// old array goes to the caller, to be reused).
    pub(crate) fn swap_ints(&mut self, ints: &mut Vec<i32>) {
        debug_assert!(Snapshot::parse(ints).is_ok());
        std::mem::swap(&mut self.ints, ints);
    }

    /// The snapshot as a view.
    pub fn as_snapshot(&self) -> Snapshot<'_> {
        Snapshot::from_valid(&self.ints)
    }

    /// The int array.
    pub fn as_ints(&self) -> &[i32] {
        &self.ints
    }

    /// The int array, owned.
    pub fn into_ints(self) -> Vec<i32> {
        self.ints
    }

    /// Orders the items by key, keeping the order of equal keys, and packs them from
    /// offset 0. This is the order Teeworlds 0.7's `CSnapshotBuilder::Finish` gives every
    /// snapshot it builds (DDNet's keeps insertion order), so a replay that applies a
    /// vanilla 0.7 client's deltas needs it to see the snapshots that client recorded.
    pub fn sort_by_key(&mut self) {
        let snapshot = self.as_snapshot();
        let mut items: Vec<Item<'_>> = snapshot.items().collect();
        items.sort_by_key(|item| item.key);
        let mut out = Vec::with_capacity(self.ints.len());
        out.push(0);
        out.push(items.len() as i32);
        let mut offset = 0;
        for item in &items {
            out.push(offset);
            offset += 4 * (KEY_INTS + item.data.len()) as i32;
        }
        if let Some(size) = out.first_mut() {
            *size = offset;
        }
        for item in &items {
            out.push(item.key);
            out.extend_from_slice(item.data);
        }
        self.ints = out;
    }

    /// Replaces the contents with a copy of `snapshot`, keeping the allocation.
    pub(crate) fn copy_from(&mut self, snapshot: Snapshot<'_>) {
        self.ints.clear();
        self.ints.extend_from_slice(snapshot.as_ints());
    }
}

impl TryFrom<Vec<i32>> for SnapshotBuf {
    type Error = SnapshotError;

    fn try_from(ints: Vec<i32>) -> Result<Self, SnapshotError> {
        SnapshotBuf::from_ints(ints)
    }
}

impl From<Snapshot<'_>> for SnapshotBuf {
    fn from(snapshot: Snapshot<'_>) -> Self {
        snapshot.to_buf()
    }
}

/// Why the builder refused an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The type is outside `0..=MAX_TYPE` (`0..=0xffff` under
    /// [`ItemTypes::DdnetPr12563`]).
    #[error("item type {type_id} is outside the valid item types")]
    InvalidType {
        /// The type asked for.
        type_id: i32,
    },
    /// The id is outside `0..=MAX_ID`.
    #[error("item id {id} is outside 0..={MAX_ID}")]
    InvalidId {
        /// The id asked for.
        id: i32,
    },
    /// The snapshot already holds [`MAX_ITEMS`] items.
    #[error("the snapshot already holds {MAX_ITEMS} items")]
    TooManyItems,
    /// The item would make the snapshot larger than [`MAX_SIZE`] bytes.
    #[error("an item of {item_bytes} data bytes would make the snapshot exceed {MAX_SIZE} bytes")]
    TooLarge {
        /// The refused item's data size in bytes.
        item_bytes: usize,
    },
    /// [`MAX_EXTENDED_TYPES`] extended types are registered already.
    #[error("{MAX_EXTENDED_TYPES} extended item types are registered already")]
    TooManyExtendedTypes,
}

/// Builds a snapshot from items in insertion order, as DDNet's `CSnapshotBuilder` does.
///
/// Extended (UUID) item types get the internal type `0x7fff - index`, `index` counting the
/// extended types in the order the builder first saw them. The first item of an extended
/// type is preceded by a type-0 item with `id` = that internal type and the UUID as 4
/// big-endian ints as its data.
#[derive(Debug, Clone, Default)]
pub struct SnapshotBuilder {
    /// Byte offsets of the items into `data`.
    offsets: Vec<i32>,
    /// The items, keys included.
    data: Vec<i32>,
    /// The registered extended types; the index gives the internal type.
    extended: Vec<Uuid>,
    /// The item types [`add_item`](Self::add_item) takes.
    types: ItemTypes,
    /// Delta application's lookup of the old snapshot's keys (a scratch table kept here so
    /// that its allocation is reused from one delta to the next).
    pub(crate) from_index: KeyTable,
    /// Delta application's lookup of the keys built so far (DDNet's
    /// `FindItemIndexByKey`, whose linear search made applying a delta quadratic).
    pub(crate) built_index: KeyTable,
    /// Whether every key delta application kept was new to `built_index` (an old snapshot
    /// may hold a key twice, and the rebuild keeps both).
    pub(crate) built_unique: bool,
}

/// Open-addressing map from item key to the first index with that key: what DDNet finds
/// by a linear search, in constant time.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyTable {
    slots: Vec<(i32, u32)>,
    mask: usize,
    /// Keys held: at most half the slots, so that every probe ends at an empty one.
    len: usize,
}

impl KeyTable {
    /// Empties the table and sizes it for `n` keys.
    pub(crate) fn reset(&mut self, n: usize) {
        let cap = (n * 2).next_power_of_two().max(64);
        if self.slots.len() != cap {
            self.slots = vec![(0, 0); cap];
            self.mask = cap - 1;
        } else {
            self.slots.fill((0, 0));
        }
        self.len = 0;
    }

    /// Whether `extra` more keys fit (keeping the table at most half full).
    pub(crate) fn has_room(&self, extra: usize) -> bool {
        2 * (self.len + extra) <= self.slots.len()
    }

    /// Removes `key`, if it is there, moving later keys of its probe run back into the
    /// hole so that every lookup still ends at an empty slot.
    pub(crate) fn remove(&mut self, key: i32) {
        let mut hole = self.slot(key);
        loop {
            // `mask` is the slot count less one (a power of two): every slot is there,
            // unless the table was never sized.
            let Some(&(k, v)) = self.slots.get(hole) else {
                return;
            };
            if v == 0 {
                return;
            }
            if k == key {
                break;
            }
            hole = (hole + 1) & self.mask;
        }
        let mut j = hole;
        loop {
            j = (j + 1) & self.mask;
            let Some(&(k, v)) = self.slots.get(j) else {
                break;
            };
            if v == 0 {
                break;
            }
            // The key at `j` may fill the hole if the hole lies between its home slot
            // and `j` (going round).
            let home = self.slot(k);
            if j.wrapping_sub(home) & self.mask >= j.wrapping_sub(hole) & self.mask {
                if let Some(slot) = self.slots.get_mut(hole) {
                    *slot = (k, v);
                }
                hole = j;
            }
        }
        if let Some(slot) = self.slots.get_mut(hole) {
            *slot = (0, 0);
        }
        self.len -= 1;
    }

    /// Renumbers the indices after the items at `removed` (sorted, their keys already
    /// removed) left the snapshot: each later item moves down by those before it.
    pub(crate) fn close_gaps(&mut self, removed: &[usize]) {
        let Some(&first) = removed.first() else {
            return;
        };
        for (_, v) in &mut self.slots {
            // `v` is the index plus one; zero marks an empty slot.
            if *v as usize > first {
                let index = *v as usize - 1;
                *v -= removed.partition_point(|&r| r < index) as u32;
            }
        }
    }
    #[inline]
    fn slot(&self, key: i32) -> usize {
        ((key as u32).wrapping_mul(0x9E37_79B9) >> 7) as usize & self.mask
    }
    #[inline]
    pub(crate) fn get(&self, key: i32) -> Option<usize> {
        let mut i = self.slot(key);
        loop {
            let &(k, v) = self.slots.get(i)?;
            if v == 0 {
                return None;
            }
            if k == key {
                return Some(v as usize - 1);
            }
            i = (i + 1) & self.mask;
        }
    }
    /// Inserts unless the key is there (the first index wins); must have room. Returns
    /// whether the key was new.
    #[inline]
    pub(crate) fn insert(&mut self, key: i32, index: usize) -> bool {
        let mut i = self.slot(key);
        loop {
            let Some(slot) = self.slots.get_mut(i) else {
                return false;
            };
            let (k, v) = *slot;
            if v == 0 {
                *slot = (key, index as u32 + 1);
                self.len += 1;
                return true;
            }
            if k == key {
                return false;
            }
            i = (i + 1) & self.mask;
        }
    }
}

impl SnapshotBuilder {
    /// An empty builder with no extended types registered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a new snapshot the way DDNet's `CSnapshotBuilder::Init` does on a builder
    /// that is reused from tick to tick (as a server's is): the items go, the registered
    /// extended types stay, and their type-0 items are added again first, so that every
    /// internal type keeps its number. A fresh [`new`](Self::new) builder instead emits
    /// each type-0 item right before the first item of its type.
    pub fn reset(&mut self) {
        self.offsets.clear();
        self.data.clear();
        for index in 0..self.extended.len() {
            // Cannot fail: an empty snapshot has room for 64 items of 16 bytes.
            let _ = self.add_type_item(index);
        }
    }

    /// Empties the builder completely, extended types included: afterwards it is like
    /// [`new`](Self::new), with its allocations kept.
    pub fn clear(&mut self) {
        self.offsets.clear();
        self.data.clear();
        self.extended.clear();
    }

    /// The number of items added so far.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether no item has been added.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Takes item types as `types` says from now on: with [`ItemTypes::DdnetPr12563`],
    /// [`add_item`](Self::add_item) takes types up to 0xffff, as DDNet PR #12563's
    /// builder does (extended types still count down from [`MAX_TYPE`]).
    pub fn set_item_types(&mut self, types: ItemTypes) {
        self.types = types;
    }

    /// The item types [`add_item`](Self::add_item) takes.
    pub fn item_types(&self) -> ItemTypes {
        self.types
    }

    /// Adds an item of internal type `type_id` (0 to [`MAX_TYPE`], or to 0xffff with
    /// [`ItemTypes::DdnetPr12563`]) and `id`.
    pub fn add_item(&mut self, type_id: i32, id: i32, data: &[i32]) -> Result<(), BuildError> {
        if !self.types.is_valid(type_id) {
            return Err(BuildError::InvalidType { type_id });
        }
        if !(0..=MAX_ID).contains(&id) {
            return Err(BuildError::InvalidId { id });
        }
        let index = self.new_item(type_id, id, data.len())?;
        self.item_data_mut(index).copy_from_slice(data);
        Ok(())
    }

    /// Adds an item of the extended type `uuid` and `id`; returns the internal type it got.
    ///
    /// As in DDNet the type is registered (and its type-0 item added) before the room
    /// for the item itself is checked, so a refused item may leave its type-0 item behind.
    pub fn add_extended_item(
        &mut self,
        uuid: Uuid,
        id: i32,
        data: &[i32],
    ) -> Result<i32, BuildError> {
        if !(0..=MAX_ID).contains(&id) {
            return Err(BuildError::InvalidId { id });
        }
        let type_id = self.extended_type(uuid)?;
        let index = self.new_item(type_id, id, data.len())?;
        self.item_data_mut(index).copy_from_slice(data);
        Ok(type_id)
    }

    /// The internal type of the extended type `uuid`, registering it (and adding its
    /// type-0 item) if it is new, as DDNet's `GetExtendedItemTypeIndex` does.
    pub(crate) fn extended_type(&mut self, uuid: Uuid) -> Result<i32, BuildError> {
        if let Some(index) = self.extended.iter().position(|u| *u == uuid) {
            return Ok(MAX_TYPE - index as i32);
        }
        if self.extended.len() >= MAX_EXTENDED_TYPES {
            return Err(BuildError::TooManyExtendedTypes);
        }
        self.extended.push(uuid);
        let index = self.extended.len() - 1;
        if let Err(e) = self.add_type_item(index) {
            self.extended.pop();
            return Err(e);
        }
        Ok(MAX_TYPE - index as i32)
    }

    fn add_type_item(&mut self, index: usize) -> Result<(), BuildError> {
        let Some(uuid) = self.extended.get(index) else {
            return Ok(());
        };
        let ints = uuid_to_ints(uuid);
        let item = self.new_item(EXTENDED_TYPE_ITEM, MAX_TYPE - index as i32, ints.len())?;
        self.item_data_mut(item).copy_from_slice(&ints);
        Ok(())
    }

    /// Appends an item with `size` zeroed data ints after DDNet's capacity checks
    /// (`NewItemRaw`); returns its index. Type and id are not checked here.
    pub(crate) fn new_item(
        &mut self,
        type_id: i32,
        id: i32,
        size: usize,
    ) -> Result<usize, BuildError> {
        if self.offsets.len() >= MAX_ITEMS {
            return Err(BuildError::TooManyItems);
        }
        // Header, offsets with the new one, data so far, the new key and data.
        let total = 8 + 4 * (self.offsets.len() + 1) + 4 * self.data.len() + 4 + 4 * size;
        if total > MAX_SIZE {
            return Err(BuildError::TooLarge {
                item_bytes: 4 * size,
            });
        }
        self.offsets.push(4 * self.data.len() as i32);
        self.data.push(key(type_id, id));
        self.data.resize(self.data.len() + size, 0);
        Ok(self.offsets.len() - 1)
    }

    /// The data ints of item `index` (none if there is no such item).
    pub(crate) fn item_data_mut(&mut self, index: usize) -> &mut [i32] {
        let Some(&offset) = self.offsets.get(index) else {
            return &mut [];
        };
        let start = offset as usize / 4 + KEY_INTS;
        let end = self
            .offsets
            .get(index + 1)
            .map_or(self.data.len(), |&o| o as usize / 4);
        self.data.get_mut(start..end).unwrap_or_default()
    }

    /// The number of data ints of item `index`.
    pub(crate) fn item_size(&self, index: usize) -> usize {
        let end = self
            .offsets
            .get(index + 1)
            .map_or(self.data.len(), |&o| o as usize / 4);
        let start = (self.offsets.get(index)).map_or(end, |&o| o as usize / 4 + KEY_INTS);
        end.saturating_sub(start)
    }

    /// Writes the snapshot's int array into `out` (cleared first). The builder keeps its
    /// items.
    pub fn finish_into(&self, out: &mut Vec<i32>) {
        out.clear();
        out.reserve(HEADER_INTS + self.offsets.len() + self.data.len());
        out.push(4 * self.data.len() as i32);
        out.push(self.offsets.len() as i32);
        out.extend_from_slice(&self.offsets);
        out.extend_from_slice(&self.data);
    }

    /// Writes the snapshot built so far over `buf`, reusing its allocation.
    pub fn finish_over(&self, buf: &mut SnapshotBuf) {
        self.finish_into(&mut buf.ints);
    }

    /// The snapshot built so far. The builder keeps its items.
    pub fn finish(&self) -> SnapshotBuf {
        let mut ints = Vec::new();
        self.finish_into(&mut ints);
        SnapshotBuf { ints }
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::{Item, Snapshot, SnapshotBuf, key};
    use serde::ser::{SerializeSeq, SerializeStruct};

    /// An item with the UUID of its extended type, when it has one.
    #[derive(serde::Serialize)]
    struct ItemOut<'a> {
        #[serde(flatten)]
        item: Item<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        uuid: Option<uuid::Uuid>,
    }

    /// The items of a snapshot, each with its extended type's UUID.
    struct ItemsOut<'a>(Snapshot<'a>);

    impl serde::Serialize for ItemsOut<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(self.0.len()))?;
            for item in self.0.items() {
                let uuid = self.0.extended_type_uuid(item.type_id);
                seq.serialize_element(&ItemOut { item, uuid })?;
            }
            seq.end()
        }
    }

    impl serde::Serialize for Snapshot<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("Snapshot", 1)?;
            st.serialize_field("items", &ItemsOut(*self))?;
            st.end()
        }
    }

    impl serde::Serialize for SnapshotBuf {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.as_snapshot().serialize(s)
        }
    }

    /// An item as read back.
    #[derive(serde::Deserialize)]
    struct ItemIn {
        type_id: i32,
        id: i32,
        data: Vec<i32>,
    }

    /// A snapshot as read back.
    #[derive(serde::Deserialize)]
    struct SnapshotIn {
        items: Vec<ItemIn>,
    }

    impl<'de> serde::Deserialize<'de> for SnapshotBuf {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let input = SnapshotIn::deserialize(d)?;
            let data_ints: usize = input.items.iter().map(|i| 1 + i.data.len()).sum();
            let mut ints = Vec::with_capacity(2 + input.items.len() + data_ints);
            ints.push(i32::try_from(data_ints * 4).unwrap_or(i32::MAX));
            ints.push(i32::try_from(input.items.len()).unwrap_or(i32::MAX));
            let mut offset = 0usize;
            for item in &input.items {
                ints.push(i32::try_from(offset).unwrap_or(i32::MAX));
                offset += 4 * (1 + item.data.len());
            }
            for item in &input.items {
                ints.push(key(item.type_id, item.id));
                ints.extend_from_slice(&item.data);
            }
            SnapshotBuf::from_ints(ints).map_err(serde::de::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_reference_keyframe() {
        // ref_client.demo's keyframe at tick 351: Flag, then SpecChar behind its type item.
        let spec_char = crate::codec::uuid::teeworlds_uuid("spec-char@netobj.ddnet.tw");
        let mut b = SnapshotBuilder::new();
        b.add_item(5, 0, &[103, 200, 1]).unwrap();
        assert_eq!(b.add_extended_item(spec_char, 3, &[5, 6]).unwrap(), 0x7fff);
        let snap = b.finish();
        let mut expected = vec![48, 3, 0, 16, 36, 5 << 16, 103, 200, 1, 0x7fff];
        expected.extend(uuid_to_ints(&spec_char));
        expected.extend([0x7fff_0003, 5, 6]);
        assert_eq!(snap.as_ints(), expected);
        let s = snap.as_snapshot();
        assert_eq!(s.extended_type_uuid(0x7fff), Some(spec_char));
        assert_eq!(s.find_extended(&spec_char, 3).unwrap().data, [5, 6]);
        assert_eq!(s.items().next_back().unwrap().id, 3);
    }

    #[test]
    fn parse_checks_in_ddnet_order() {
        assert_eq!(
            Snapshot::parse(&[0]),
            Err(SnapshotError::TooShort { ints: 1 })
        );
        assert_eq!(
            Snapshot::parse(&[0, -1]),
            Err(SnapshotError::BadItemCount { num_items: -1 })
        );
        assert_eq!(
            Snapshot::parse(&[-4, 0]),
            Err(SnapshotError::NegativeDataSize { data_size: -4 })
        );
        assert_eq!(
            Snapshot::parse(&[4, 0]),
            Err(SnapshotError::SizeMismatch {
                expected: 12,
                actual: 8
            })
        );
        assert_eq!(
            Snapshot::parse(&[4, 1, 2, 0]),
            Err(SnapshotError::BadOffset { item: 0, offset: 2 })
        );
        assert_eq!(
            Snapshot::parse(&[8, 2, 4, 4, 0, 0]),
            Err(SnapshotError::NegativeItemSize { item: 0, size: -4 })
        );
        // A gap before the first item is allowed, as in DDNet.
        let s = Snapshot::parse(&[8, 1, 4, 99, 7]).unwrap();
        assert_eq!(s.item(0).unwrap().key, 7);
        assert!(s.item(0).unwrap().data.is_empty());
    }

    #[test]
    fn reset_re_emits_extended_types_first() {
        let a = Uuid::from_bytes([1; 16]);
        let mut b = SnapshotBuilder::new();
        b.add_item(1, 0, &[]).unwrap();
        b.add_extended_item(a, 0, &[9]).unwrap();
        b.reset();
        assert_eq!(b.len(), 1);
        b.add_extended_item(a, 1, &[]).unwrap();
        let s = b.finish();
        let keys: Vec<i32> = s.as_snapshot().items().map(|i| i.key).collect();
        assert_eq!(keys, [0x7fff, 0x7fff_0001]);
    }

    mod key_table {
        use super::super::KeyTable;
        use proptest::prelude::*;
        use std::collections::BTreeMap;

        #[derive(Debug, Clone)]
        enum Op {
            Insert(i32),
            Remove(i32),
            /// Removes the items at these indices (as a relayout does) and renumbers.
            RemoveAt(Vec<usize>),
        }

        fn op() -> impl Strategy<Value = Op> {
            // Few distinct keys in a 64-slot table, so that probe runs collide and wrap.
            let key = prop_oneof![0i32..40, (0i32..40).prop_map(|k| k << 16)];
            prop_oneof![
                4 => key.clone().prop_map(Op::Insert),
                2 => key.prop_map(Op::Remove),
                1 => proptest::collection::vec(0usize..32, 0..4).prop_map(Op::RemoveAt),
            ]
        }

        proptest! {
            /// Inserting, removing (with the backward shift) and renumbering keep the
            /// table equal to a plain map of keys to item indices.
            #[test]
            fn behaves_as_a_map(ops in proptest::collection::vec(op(), 0..200)) {
                let mut table = KeyTable::default();
                table.reset(0);
                // The items in order: their keys.
                let mut items: Vec<i32> = Vec::new();
                for op in ops {
                    match op {
                        Op::Insert(key) if !items.contains(&key) && table.has_room(1) => {
                            prop_assert!(table.insert(key, items.len()));
                            items.push(key);
                        }
                        Op::Insert(key) => {
                            if items.contains(&key) {
                                prop_assert!(!table.insert(key, 999));
                            }
                        }
                        Op::Remove(key) => {
                            table.remove(key);
                            if let Some(i) = items.iter().position(|&k| k == key) {
                                items.remove(i);
                                table.close_gaps(&[i]);
                            }
                        }
                        Op::RemoveAt(mut at) => {
                            at.retain(|&i| i < items.len());
                            at.sort_unstable();
                            at.dedup();
                            for &i in &at {
                                table.remove(items[i]);
                            }
                            table.close_gaps(&at);
                            for &i in at.iter().rev() {
                                items.remove(i);
                            }
                        }
                    }
                    let expected: BTreeMap<i32, usize> =
                        items.iter().enumerate().map(|(i, &k)| (k, i)).collect();
                    for key in (0..40).chain((0..40).map(|k| k << 16)) {
                        prop_assert_eq!(table.get(key), expected.get(&key).copied(), "key {}", key);
                    }
                    prop_assert_eq!(table.len, items.len());
                }
            }
        }
    }
}
