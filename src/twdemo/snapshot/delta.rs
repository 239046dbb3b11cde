//! Snapshot deltas as DDNet creates and applies them (`CSnapshotDelta` in
//! src/engine/shared/snapshot.cpp).
//!
//! A delta is the int array `[num_deleted, num_updated, num_temp, deleted_keys...,
//! updates...]`, each update `[type, id, size?, data...]`. The size (in ints) is written
//! only for types without a static size in the [`ItemSizes`] table both sides agree on; a
//! demo's table follows from its network version ([`ItemSizes::for_net_version`]).
//!
//! * [`create_delta`] writes what DDNet's `CreateDelta` writes, int for int.
//! * [`apply_delta`] rebuilds the new snapshot as DDNet's `UnpackDelta` does, with the
//!   same checks (each [`DeltaError`] names DDNet's error code) and the same item order:
//!   the kept old items in their old order, then the new items in delta order.
//! * [`Delta::parse`] splits a delta into its parts without applying it.
//!
//! Snapshots themselves are in [`items`](super::items); choosing keyframes and
//! writing chunks is the [`recorder`](super::recorder)'s job.

use super::items::{
    BuildError, HEADER_INTS as SNAPSHOT_HEADER_INTS, ItemTypes, KEY_INTS, KeyTable, MAX_ID,
    MAX_ITEMS, MAX_SIZE, Snapshot, SnapshotBuf, SnapshotBuilder, key,
};

/// Ints of the delta header: deleted, updated and temporary item counts.
pub(crate) const HEADER_INTS: usize = 3;
/// Types below this may have a static size (DDNet's `MAX_NETOBJSIZES`).
pub const MAX_STATIC_TYPES: usize = 64;

/// Item sizes of the 0.6 protocol, in bytes, by type (DDNet's `GetObjSize(i)` for
/// `i < NUM_NETOBJTYPES = 21`, generated from datasrc/network.py; identical in vanilla
/// Teeworlds 0.6). Type 0 (`NETOBJTYPE_EX`, `NETOBJTYPE_INVALID` in vanilla) has none.
const SIZES_0_6: [u16; 21] = [
    0,  // EX / invalid
    40, // PlayerInput
    24, // Projectile
    20, // Laser
    16, // Pickup
    12, // Flag
    32, // GameInfo
    16, // GameData
    60, // CharacterCore
    88, // Character
    20, // PlayerInfo
    68, // ClientInfo
    12, // SpectatorInfo
    8,  // Common
    8,  // Explosion
    8,  // Spawn
    8,  // HammerHit
    12, // Death
    12, // SoundGlobal
    12, // SoundWorld
    12, // DamageInd
];

/// Item sizes of the 0.7 protocol for the 23 types of the first 0.7 release, in bytes.
///
/// From DDNet's datasrc/seven/network.py (the same objects as Teeworlds 0.7's
/// datasrc/network.py): both the Teeworlds 0.7 client and DDNet's sixup code register
/// static sizes only for `i < OLD_NUM_NETOBJTYPES = 23` ("so new items don't break the
/// snapshot delta"), so PlayerInfoRace (23) and GameDataRace (24) carry their size.
const SIZES_0_7: [u16; 23] = [
    0,   // invalid
    40,  // PlayerInput: 10 ints
    24,  // Projectile: 6
    20,  // Laser: 5
    12,  // Pickup: x, y, type
    12,  // Flag: x, y, team
    12,  // GameData: 3
    8,   // GameDataTeam: 2
    16,  // GameDataFlag: 4
    60,  // CharacterCore: 15
    88,  // Character: core + 7
    12,  // PlayerInfo: 3
    16,  // SpectatorInfo: 4
    232, // De_ClientInfo: 2 + 4 + 3 + 1 + 36 + 6 + 6
    20,  // De_GameInfo: 5
    128, // De_TuneParams: 32
    8,   // Common
    8,   // Explosion
    8,   // Spawn
    8,   // HammerHit
    12,  // Death
    12,  // SoundWorld
    28,  // Damage: common + 5
];

// Both tables fit an [`ItemSizes`] whole.
const _: () = assert!(SIZES_0_6.len() <= MAX_STATIC_TYPES && SIZES_0_7.len() <= MAX_STATIC_TYPES);

/// The static item sizes a delta's writer and reader agree on: the size in bytes of each
/// type below [`MAX_STATIC_TYPES`], or none (then every update of that type carries its
/// size). DDNet's `CSnapshotDelta::m_aItemSizes`, set through `SetStaticsize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ItemSizes {
    bytes: [u16; MAX_STATIC_TYPES],
    /// How item types are read and which a delta takes.
    types: ItemTypes,
}

impl ItemSizes {
    /// No static sizes: every update carries its size.
    pub const NONE: ItemSizes = ItemSizes {
        bytes: [0; MAX_STATIC_TYPES],
        types: ItemTypes::Reference,
    };
    /// The 0.6 table DDNet and Teeworlds 0.6 use (types 0 to 20).
    pub const DDNET_0_6: ItemSizes = ItemSizes::from_table(&SIZES_0_6);
    /// The 0.7 table (types 0 to 22), for demos whose network version starts with "0.7":
    /// Teeworlds 0.7 recordings and DDNet's sixup recordings.
    pub const TEEWORLDS_0_7: ItemSizes = ItemSizes::from_table(&SIZES_0_7);

    /// The table's sizes (at most [`MAX_STATIC_TYPES`]: the tables are checked below).
    const fn from_table(table: &[u16]) -> ItemSizes {
        let mut bytes = [0; MAX_STATIC_TYPES];
        let mut to = bytes.as_mut_slice();
        let mut from = table;
        while let ([slot, to_rest @ ..], [size, from_rest @ ..]) = (to, from) {
            *slot = *size;
            (to, from) = (to_rest, from_rest);
        }
        ItemSizes {
            bytes,
            types: ItemTypes::Reference,
        }
    }

    /// The same table with item types read as `types` says: with
    /// [`ItemTypes::DdnetPr12563`] (off by default), updates take types up to 0xffff,
    /// old items of any key are kept, and [`create_delta`] writes a key's type unsigned, as
    /// DDNet PR #12563 does.
    pub const fn with_item_types(mut self, types: ItemTypes) -> ItemSizes {
        self.types = types;
        self
    }

    /// How item types are read ([`ItemTypes::Reference`] unless
    /// [`with_item_types`](Self::with_item_types) said otherwise).
    pub const fn item_types(&self) -> ItemTypes {
        self.types
    }

    /// The table for a demo header's network version: the 0.7 table when it starts with
    /// `"0.7"` (where DDNet's player switches to sixup), the 0.6 table otherwise.
    pub fn for_net_version(net_version: &str) -> ItemSizes {
        if net_version.starts_with("0.7") {
            ItemSizes::TEEWORLDS_0_7
        } else {
            ItemSizes::DDNET_0_6
        }
    }

    /// The static size in bytes of `type_id`, or `None` if updates of it carry their size.
    pub fn static_size(&self, type_id: i32) -> Option<usize> {
        let size = *self.bytes.get(usize::try_from(type_id).ok()?)?;
        (size != 0).then_some(size as usize)
    }

    /// The table with `type_id` given a static size of `bytes` (0 removes it). `None` if
    /// the type is not below [`MAX_STATIC_TYPES`] or the size is not a multiple of 4.
    pub const fn with_static_size(mut self, type_id: usize, bytes: u16) -> Option<ItemSizes> {
        if !bytes.is_multiple_of(4) {
            return None;
        }
        let Some((_, [slot, ..])) = self.bytes.split_at_mut_checked(type_id) else {
            return None;
        };
        *slot = bytes;
        Some(self)
    }

    /// Whether an update of `type_id` carries its size.
    fn includes_size(&self, type_id: i32) -> bool {
        self.static_size(type_id).is_none()
    }
}

impl Default for ItemSizes {
    /// The 0.6 table.
    fn default() -> Self {
        ItemSizes::DDNET_0_6
    }
}

/// DDNet's `CreateDelta` looks keys up in a hash table of 256 buckets that each hold at
/// most 64 keys; keys past that are not found. Mirroring it keeps even such degenerate
/// snapshots byte-identical.
const HASH_BUCKETS: usize = 256;
const HASH_BUCKET_SIZE: usize = 64;

/// DDNet's `CalcHashId`: djb2 over the key's 4 little-endian bytes.
fn hash_bucket(key: i32) -> usize {
    let mut hash: u32 = 5381;
    for byte in key.to_le_bytes() {
        hash = hash.wrapping_mul(33).wrapping_add(byte as u32);
    }
    hash as usize % HASH_BUCKETS
}

/// The lookup DDNet's `GetItemIndexHashed` gives over one snapshot's keys.
struct KeyIndex {
    /// (key, index of its first item), for the keys DDNet's table holds, sorted by key.
    entries: Vec<(i32, usize)>,
}

impl KeyIndex {
    fn new(snapshot: &Snapshot<'_>) -> Self {
        let mut filled = [0u8; HASH_BUCKETS];
        let mut entries = Vec::with_capacity(snapshot.len());
        for (index, item) in snapshot.items().enumerate() {
            // `hash_bucket` is below `HASH_BUCKETS`: the bucket is there.
            let Some(bucket) = filled.get_mut(hash_bucket(item.key)) else {
                continue;
            };
            if (*bucket as usize) < HASH_BUCKET_SIZE {
                *bucket += 1;
                entries.push((item.key, index));
            }
        }
        // Stable: for a duplicated key the first item stays first, as the bucket scan
        // finds it first.
        entries.sort_by_key(|&(key, _)| key);
        KeyIndex { entries }
    }

    fn get(&self, key: i32) -> Option<usize> {
        let at = self.entries.partition_point(|&(k, _)| k < key);
        self.entries
            .get(at)
            .filter(|&&(k, _)| k == key)
            .map(|&(_, index)| index)
    }
}

/// The delta from `from` to `to`, as DDNet's `CreateDelta` writes it. See
/// [`create_delta_into`].
pub fn create_delta(from: &Snapshot<'_>, to: &Snapshot<'_>, sizes: &ItemSizes) -> Vec<i32> {
    let mut out = Vec::new();
    create_delta_into(from, to, sizes, &mut out);
    out
}

/// Writes the delta from `from` to `to` into `out` (cleared first), exactly as DDNet's
/// `CreateDelta` does, and returns whether it is non-empty.
///
/// * Deleted: the keys of `from` that `to` lacks, in `from`'s order.
/// * Updated, in `to`'s order: items new in `to`, in full; items in both whose data
///   differ, as `new - old` per int with wrapping.
///
/// An empty delta (nothing deleted or updated) is the header `[0, 0, 0]`; DDNet's
/// `CreateDelta` reports it as size 0, and its recorder then writes only a tick marker.
///
/// Like DDNet, this trusts the snapshots: a static-size type with another size gives a
/// delta nobody can read back, and a kept item whose size changed is diffed against the
/// ints that follow the old item's start (zero past the old snapshot's end, where DDNet
/// reads whatever memory follows); DDNet's reader refuses such an update (-207).
pub fn create_delta_into(
    from: &Snapshot<'_>,
    to: &Snapshot<'_>,
    sizes: &ItemSizes,
    out: &mut Vec<i32>,
) -> bool {
    out.clear();
    out.extend_from_slice(&[0; HEADER_INTS]);
    let in_to = KeyIndex::new(to);
    let mut deleted = 0;
    for item in from.items() {
        if in_to.get(item.key).is_none() {
            out.push(item.key);
            deleted += 1;
        }
    }
    let in_from = KeyIndex::new(from);
    let from_ints = from.as_ints();
    let mut updated = 0;
    for item in to.items() {
        // `CSnapshotItem::InternalType`: signed at the reference commit, unsigned with
        // DDNet PR #12563.
        let type_id = sizes.types.type_of(item.key);
        let with_size = sizes.includes_size(type_id);
        let start = out.len();
        out.push(type_id);
        out.push(item.id);
        if with_size {
            out.push(item.data.len() as i32);
        }
        match in_from.get(item.key) {
            Some(past) => {
                let past_data = past_data(from, from_ints, past);
                let mut changed = false;
                for (i, &new) in item.data.iter().enumerate() {
                    let old = past_data.get(i).copied().unwrap_or(0);
                    let diff = new.wrapping_sub(old);
                    changed |= diff != 0;
                    out.push(diff);
                }
                if changed {
                    updated += 1;
                } else {
                    out.truncate(start);
                }
            }
            None => {
                out.extend_from_slice(item.data);
                updated += 1;
            }
        }
    }
    if let [num_deleted, num_updated, ..] = out.as_mut_slice() {
        (*num_deleted, *num_updated) = (deleted, updated);
    }
    deleted != 0 || updated != 0
}

/// The old item's data as DDNet's `DiffItem` reads it: from its first data int on, on
/// into whatever follows it in the snapshot.
fn past_data<'a>(from: &Snapshot<'a>, from_ints: &'a [i32], index: usize) -> &'a [i32] {
    let data_start = 2 + from.len();
    let Some(&offset) = from.offsets().get(index) else {
        return &[];
    };
    let start = data_start + offset as usize / 4 + 1;
    from_ints.get(start..).unwrap_or_default()
}

/// Whether `delta` changes nothing: no deleted and no updated items (what DDNet's
/// `CreateDelta` reports as size 0). Too short a delta counts as not empty.
pub fn is_empty(delta: &[i32]) -> bool {
    matches!(delta, [0, 0, _, ..])
}

/// Why a delta cannot be applied. Each variant names the error code DDNet's
/// `UnpackDelta` returns for it (see [`code`](Self::code)); the player logs those and
/// skips the delta. `update` counts the updates from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeltaError {
    /// Fewer than the 3 header ints.
    #[error("expected the 3 delta header ints, found {ints}")]
    TooShort {
        /// Ints given.
        ints: usize,
    },
    /// The deleted count is negative (-201).
    #[error("deleted item count {count} is negative")]
    NegativeDeletedCount {
        /// The count.
        count: i32,
    },
    /// The deleted keys run past the end (-101).
    #[error("{count} deleted keys announced, but only {available} ints follow the header")]
    DeletedPastEnd {
        /// The count.
        count: i32,
        /// Ints after the header.
        available: usize,
    },
    /// A kept old item did not fit into the new snapshot (-301).
    #[error("old item {item} cannot be kept: {reason}")]
    KeepFailed {
        /// The item's index in the old snapshot.
        item: usize,
        /// What the builder refused.
        reason: BuildError,
    },
    /// An update's type and id run past the end (-102).
    #[error("update {update}: the delta ends before its type and id")]
    UpdatePastEnd {
        /// The update's index.
        update: usize,
    },
    /// An update's type is outside `0..=0x7fff` (`0..=0xffff` with DDNet PR #12563's
    /// [`ItemTypes::DdnetPr12563`]) (-202).
    #[error("update {update}: type {type_id} is outside the valid item types")]
    BadType {
        /// The update's index.
        update: usize,
        /// The type.
        type_id: i32,
    },
    /// An update's id is outside `0..=0xffff` (-203).
    #[error("update {update}: id {id} is outside 0..={MAX_ID}")]
    BadId {
        /// The update's index.
        update: usize,
        /// The id.
        id: i32,
    },
    /// An update of a type without static size ends before its size (-103).
    #[error("update {update}: the delta ends before its size")]
    SizePastEnd {
        /// The update's index.
        update: usize,
    },
    /// An update's size is negative or too large for a byte count (-204).
    #[error("update {update}: size {size} ints is out of range")]
    BadSize {
        /// The update's index.
        update: usize,
        /// The size in ints.
        size: i32,
    },
    /// An update's data runs past the end (-205).
    #[error("update {update}: {bytes} data bytes, but only {available} remain")]
    DataPastEnd {
        /// The update's index.
        update: usize,
        /// The data size in bytes.
        bytes: usize,
        /// Bytes left in the delta.
        available: usize,
    },
    /// An update's size differs from the item with its key already in the new
    /// snapshot (-206).
    #[error("update {update}: {bytes} bytes for key {key:#x}, whose item has {existing}")]
    SizeChanged {
        /// The update's index.
        update: usize,
        /// The key.
        key: i32,
        /// The update's size in bytes.
        bytes: usize,
        /// The existing item's size in bytes.
        existing: usize,
    },
    /// An update's size differs from the old item it is a diff against (-207).
    #[error("update {update}: {bytes} bytes for key {key:#x}, whose old item has {old}")]
    OldSizeDiffers {
        /// The update's index.
        update: usize,
        /// The key.
        key: i32,
        /// The update's size in bytes.
        bytes: usize,
        /// The old item's size in bytes.
        old: usize,
    },
    /// A new item did not fit into the new snapshot (-302).
    #[error("update {update}: the item cannot be added: {reason}")]
    AddFailed {
        /// The update's index.
        update: usize,
        /// What the builder refused.
        reason: BuildError,
    },
}

impl DeltaError {
    /// DDNet's error code for this failure (`UnpackDelta`'s negative return values;
    /// [`TooShort`](Self::TooShort) has DDNet's `DebugDumpDelta` code -505).
    pub fn code(&self) -> i32 {
        match self {
            DeltaError::TooShort { .. } => -505,
            DeltaError::DeletedPastEnd { .. } => -101,
            DeltaError::UpdatePastEnd { .. } => -102,
            DeltaError::SizePastEnd { .. } => -103,
            DeltaError::NegativeDeletedCount { .. } => -201,
            DeltaError::BadType { .. } => -202,
            DeltaError::BadId { .. } => -203,
            DeltaError::BadSize { .. } => -204,
            DeltaError::DataPastEnd { .. } => -205,
            DeltaError::SizeChanged { .. } => -206,
            DeltaError::OldSizeDiffers { .. } => -207,
            DeltaError::KeepFailed { .. } => -301,
            DeltaError::AddFailed { .. } => -302,
        }
    }
}

/// One update of a delta: a new item in full, or the per-int difference to the old one.
///
/// With the `serde` feature: `{"type_id", "id", "size_written", "data"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Update<'a> {
    /// The internal type.
    pub type_id: i32,
    /// The id.
    pub id: i32,
    /// Whether the size was written (the type has no static size).
    pub size_written: bool,
    /// The data ints: absolute for a new item, `new - old` for a changed one.
    pub data: &'a [i32],
}

impl Update<'_> {
    /// The item key.
    pub fn key(&self) -> i32 {
        key(self.type_id, self.id)
    }
}

/// The header and deleted keys of a delta, checked as DDNet checks them.
fn split_header(delta: &[i32]) -> Result<(&[i32], i32, &[i32]), DeltaError> {
    let [num_deleted, num_updated, _num_temp, rest @ ..] = delta else {
        return Err(DeltaError::TooShort { ints: delta.len() });
    };
    if *num_deleted < 0 {
        return Err(DeltaError::NegativeDeletedCount {
            count: *num_deleted,
        });
    }
    if *num_deleted as usize > rest.len() {
        return Err(DeltaError::DeletedPastEnd {
            count: *num_deleted,
            available: rest.len(),
        });
    }
    let (deleted, updates) = rest.split_at(*num_deleted as usize);
    Ok((deleted, *num_updated, updates))
}

/// Reads the next update from `rest` with DDNet's checks, advancing `rest`.
fn next_update<'a>(
    rest: &mut &'a [i32],
    update: usize,
    sizes: &ItemSizes,
) -> Result<Update<'a>, DeltaError> {
    let [type_id, id, tail @ ..] = *rest else {
        return Err(DeltaError::UpdatePastEnd { update });
    };
    let (type_id, id) = (*type_id, *id);
    if !sizes.types.is_valid(type_id) {
        return Err(DeltaError::BadType { update, type_id });
    }
    if !(0..=MAX_ID).contains(&id) {
        return Err(DeltaError::BadId { update, id });
    }
    let (ints, size_written, tail) = match sizes.static_size(type_id) {
        Some(bytes) => (bytes / 4, false, tail),
        None => {
            let [size, tail @ ..] = tail else {
                return Err(DeltaError::SizePastEnd { update });
            };
            if *size < 0 || *size > i32::MAX / 4 {
                return Err(DeltaError::BadSize {
                    update,
                    size: *size,
                });
            }
            (*size as usize, true, tail)
        }
    };
    if ints > tail.len() {
        return Err(DeltaError::DataPastEnd {
            update,
            bytes: ints * 4,
            available: tail.len() * 4,
        });
    }
    let (data, tail) = tail.split_at(ints);
    *rest = tail;
    Ok(Update {
        type_id,
        id,
        size_written,
        data,
    })
}

/// A delta split into its parts, without an old snapshot to apply it to.
///
/// With the `serde` feature: `{"deleted": [keys], "updates": [...], "num_temp": n,
/// "trailing": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Delta<'a> {
    /// The keys of deleted items.
    pub deleted: &'a [i32],
    /// The updates, in order.
    pub updates: Vec<Update<'a>>,
    /// The temporary item count (DDNet writes 0 and ignores it).
    pub num_temp: i32,
    /// Ints after the last update, which DDNet ignores.
    pub trailing: &'a [i32],
}

impl<'a> Delta<'a> {
    /// Splits `delta` with the checks DDNet's `UnpackDelta` makes on the delta alone (the
    /// size checks against the snapshots are [`apply_delta`]'s). A negative update count
    /// reads as none, as in DDNet.
    pub fn parse(delta: &'a [i32], sizes: &ItemSizes) -> Result<Self, DeltaError> {
        let (deleted, num_updated, mut rest) = split_header(delta)?;
        // Every update takes at least 2 ints, which bounds the allocation by the input.
        let mut updates = Vec::with_capacity((num_updated.max(0) as usize).min(rest.len() / 2));
        for update in 0..num_updated.max(0) as usize {
            updates.push(next_update(&mut rest, update, sizes)?);
        }
        Ok(Delta {
            deleted,
            updates,
            // `split_header` checked that the header's three ints are there.
            num_temp: delta.get(2).copied().unwrap_or_default(),
            trailing: rest,
        })
    }

    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.deleted.is_empty() && self.updates.is_empty()
    }
}

/// Applies `delta` to `from` and returns the new snapshot, as DDNet's `UnpackDelta`
/// does: the items of `from` whose keys are not deleted, in order, then the updates in
/// order (an update to an item already in the new snapshot changes it in place; one to a
/// key in `from` is added to the old data with wrapping; any other is new).
pub fn apply_delta(
    from: &Snapshot<'_>,
    delta: &[i32],
    sizes: &ItemSizes,
) -> Result<SnapshotBuf, DeltaError> {
    let mut builder = SnapshotBuilder::new();
    apply_delta_with(from, delta, sizes, &mut builder)?;
    Ok(builder.finish())
}

/// [`apply_delta`] into a caller's builder (emptied first with a fresh extended-type
/// registry), to reuse its allocations; on success the builder holds the new snapshot.
pub(crate) fn apply_delta_with(
    from: &Snapshot<'_>,
    delta: &[i32],
    sizes: &ItemSizes,
    builder: &mut SnapshotBuilder,
) -> Result<(), DeltaError> {
    builder.clear();
    let (deleted, num_updated, mut rest) = split_header(delta)?;
    // DDNet compares every old key with every deleted key; a sorted copy gives the same
    // answer without the quadratic cost. Its size is bounded by the input.
    let mut deleted_sorted = deleted.to_vec();
    deleted_sorted.sort_unstable();
    let mut from_index = std::mem::take(&mut builder.from_index);
    let mut built_index = std::mem::take(&mut builder.built_index);
    let updates_max = (num_updated.max(0) as usize).min(rest.len() / 2);
    from_index.reset(from.len());
    built_index.reset(from.len() + updates_max);
    let mut unique = true;
    for (index, item) in from.items().enumerate() {
        from_index.insert(item.key, index);
        if deleted_sorted.binary_search(&item.key).is_ok() {
            continue;
        }
        unique &= built_index.insert(item.key, builder.len());
        // DDNet's builder refuses a negative type (a key DDNet's checks let through); with
        // DDNet PR #12563 no key has one.
        let type_id = sizes.types.type_of(item.key);
        if type_id < 0 {
            return Err(DeltaError::KeepFailed {
                item: index,
                reason: BuildError::InvalidType { type_id },
            });
        }
        let new = builder
            .new_item(type_id, item.id, item.data.len())
            .map_err(|reason| DeltaError::KeepFailed {
                item: index,
                reason,
            })?;
        builder.item_data_mut(new).copy_from_slice(item.data);
    }
    debug_assert!(builder.len() <= MAX_ITEMS);
    for index in 0..num_updated.max(0) as usize {
        let update = next_update(&mut rest, index, sizes)?;
        let key = update.key();
        let bytes = update.data.len() * 4;
        let target = match built_index.get(key) {
            Some(existing) => {
                let existing_bytes = builder.item_size(existing) * 4;
                if existing_bytes != bytes {
                    return Err(DeltaError::SizeChanged {
                        update: index,
                        key,
                        bytes,
                        existing: existing_bytes,
                    });
                }
                existing
            }
            None => {
                let new = builder
                    .new_item(update.type_id, update.id, update.data.len())
                    .map_err(|reason| DeltaError::AddFailed {
                        update: index,
                        reason,
                    })?;
                built_index.insert(key, new);
                new
            }
        };
        match from_index.get(key).and_then(|i| from.item(i)) {
            Some(old) => {
                if old.data.len() * 4 != bytes {
                    return Err(DeltaError::OldSizeDiffers {
                        update: index,
                        key,
                        bytes,
                        old: old.data.len() * 4,
                    });
                }
                for ((out, &old), &diff) in builder
                    .item_data_mut(target)
                    .iter_mut()
                    .zip(old.data)
                    .zip(update.data)
                {
                    *out = old.wrapping_add(diff);
                }
            }
            None => builder.item_data_mut(target).copy_from_slice(update.data),
        }
    }
    builder.from_index = from_index;
    builder.built_index = built_index;
    builder.built_unique = unique;
    Ok(())
}

/// What applying a delta in place needs to know of the current snapshot: where each key's
/// first item is, and whether changing items in place gives exactly the snapshot
/// [`apply_delta_with`] would rebuild. Kept from one delta to the next while the keys do
/// not change.
#[derive(Debug, Default)]
pub(crate) struct InPlace {
    index: KeyTable,
    /// Items packed from offset 0, no negative type, and sorted when the replay sorts:
    /// then a rebuild lays out the same items the same way.
    eligible: bool,
    /// Whether the replay sorts each snapshot by key: then added items (which a rebuild
    /// would sort in) go to the rebuild.
    sorted: bool,
    /// Items an update of the delta being checked touches.
    touched: Vec<bool>,
    /// The delta's deleted keys, sorted.
    deleted: Vec<i32>,
    /// Keys the delta adds, with their sizes in ints, in order.
    added: Vec<(i32, usize)>,
    /// Each update of the delta being applied: the item it changes (an index into the
    /// current snapshot, or `NEW` plus its place in `added`) and where its data lies in
    /// the delta.
    plan: Vec<(i32, usize, std::ops::Range<usize>)>,
    /// The int array the next snapshot is laid out in when items come or go (the
    /// previous snapshot's array, reused).
    scratch: Vec<i32>,
    /// The items (indices into the snapshot before it) the last delta applied in place
    /// removed, in order.
    removed: Vec<usize>,
    /// The number of items it kept (the added ones follow them).
    num_kept: usize,
}

impl InPlace {
    /// Learns the keys of `snapshot`, the new current one; `sorted` if the replay sorts
    /// each snapshot by key.
    pub(crate) fn learn(&mut self, snapshot: &Snapshot<'_>, sorted: bool, types: ItemTypes) {
        self.index.reset(snapshot.len());
        // Packed as a builder packs: the first item at offset 0 (the last one always ends
        // at the data size), or no data at all.
        let mut eligible = match snapshot.offsets().first() {
            Some(&first) => first == 0,
            None => snapshot.data_size() == 0,
        };
        let mut last_key = i32::MIN;
        for (i, item) in snapshot.items().enumerate() {
            // A key held twice is left to the rebuild, which knows which item DDNet keeps.
            let new_key = self.index.insert(item.key, i);
            eligible &=
                new_key && types.type_of(item.key) >= 0 && (!sorted || item.key >= last_key);
            last_key = item.key;
        }
        self.eligible = eligible;
        self.sorted = sorted;
    }
}

impl InPlace {
    /// What the last delta applied in place did to the items' places: the items it
    /// removed (indices before it, in order: the others kept their order), the items it
    /// added (indices after it: they follow the kept ones), and the items it updated
    /// (indices after it, the added ones among them).
    pub(crate) fn last_edit(
        &self,
    ) -> (
        &[usize],
        std::ops::Range<usize>,
        impl Iterator<Item = usize> + '_,
    ) {
        let added = self.num_kept..self.num_kept + self.added.len();
        let updated = self.plan.iter().map(|&(_, target, _)| target);
        (&self.removed, added, updated)
    }

    /// Takes over the key table [`apply_delta_with`] left in `builder` for the snapshot it
    /// built (packed, no negative type), instead of learning the keys again; the builder
    /// gets this table's allocation as its scratch. Only for a replay that does not sort.
    pub(crate) fn adopt(&mut self, builder: &mut SnapshotBuilder) {
        std::mem::swap(&mut self.index, &mut builder.built_index);
        // A key held twice is left to the rebuild, which knows which item DDNet keeps.
        self.eligible = builder.built_unique;
        self.sorted = false;
    }
}

/// Applies `delta` to `current` in place when that gives exactly what [`apply_delta_with`]
/// gives; returns whether it did. Otherwise `current` is untouched and the caller rebuilds.
/// `state` must have learnt `current`.
///
/// Updates change the items they name in place; when the delta also deletes or adds
/// items, the kept items are copied once into a new array with the added ones after them
/// (the layout a rebuild gives) and only the keys are learnt again. What a rebuild would
/// do differently or refuse is left to it: an update of a key the delta deletes (the
/// rebuild re-adds it from the deleted item), a key updated twice, an update of another
/// size, a snapshot over DDNet's limits.
pub(crate) fn apply_delta_in_place(
    current: &mut SnapshotBuf,
    delta: &[i32],
    sizes: &ItemSizes,
    state: &mut InPlace,
) -> bool {
    if !state.eligible {
        return false;
    }
    let Ok((deleted, num_updated, updates)) = split_header(delta) else {
        return false;
    };
    if num_updated < 0 {
        return false;
    }
    let snapshot = current.as_snapshot();
    state.deleted.clear();
    state.deleted.extend_from_slice(deleted);
    state.deleted.sort_unstable();
    state.added.clear();
    state.plan.clear();
    state.touched.clear();
    state.touched.resize(snapshot.len(), false);
    let mut rest = updates;
    for update in 0..num_updated as usize {
        let Ok(update) = next_update(&mut rest, update, sizes) else {
            return false;
        };
        let key = update.key();
        if state.deleted.binary_search(&key).is_ok() {
            return false;
        }
        let target = match state.index.get(key) {
            Some(i) => {
                // The key is checked again, so that a table that does not describe
                // `current` can only make this path give way to the rebuild, never change
                // the wrong item.
                let fits = snapshot
                    .item(i)
                    .is_some_and(|item| item.key == key && item.data.len() == update.data.len());
                let touched = (state.touched.get_mut(i)).is_none_or(|t| std::mem::replace(t, true));
                if !fits || touched {
                    return false;
                }
                i
            }
            None => {
                // Few items come per tick; a long list goes to the rebuild rather than
                // being searched quadratically.
                if state.sorted
                    || state.added.len() >= 64
                    || state.added.iter().any(|&(k, _)| k == key)
                {
                    return false;
                }
                state.added.push((key, update.data.len()));
                NEW + state.added.len() - 1
            }
        };
        // `data` is a subslice of `delta`: its place is the pointer difference.
        let start = update.data.as_ptr() as usize - delta.as_ptr() as usize;
        let start = start / std::mem::size_of::<i32>();
        state
            .plan
            .push((key, target, start..start + update.data.len()));
    }
    state.removed.clear();
    state.num_kept = snapshot.len();
    if !state.deleted.is_empty() || !state.added.is_empty() {
        let Some(num_kept) = relayout(current, state) else {
            return false;
        };
        state.num_kept = num_kept;
        // The table follows the items: removed keys go, later items move down by the
        // removed ones before them, added keys follow the kept items.
        for &key in &state.deleted {
            state.index.remove(key);
        }
        state.index.close_gaps(&state.removed);
        if state.index.has_room(state.added.len()) {
            for (i, &(key, _)) in state.added.iter().enumerate() {
                state.index.insert(key, num_kept + i);
            }
        } else {
            let sorted = state.sorted;
            state.learn(&current.as_snapshot(), sorted, sizes.item_types());
        }
        for (_, target, _) in &mut state.plan {
            *target = if *target >= NEW {
                num_kept + (*target - NEW)
            } else {
                *target - state.removed.partition_point(|&r| r < *target)
            };
        }
    }
    for (_, target, data) in &state.plan {
        // New items start at zero, so adding the update to them copies it, as the
        // rebuild does for a key the old snapshot lacks.
        // The range is where `next_update` found the update in `delta`.
        if let Some(diff) = delta.get(data.clone()) {
            current.add_to_item(*target, diff);
        }
    }
    true
}

/// Marks an update's target in [`InPlace::plan`] as an added item.
const NEW: usize = usize::MAX / 2;

/// Lays out the snapshot a delta with deletions or additions gives: the items of
/// `current` whose keys `state.deleted` does not hold, then `state.added` (zeroed), packed
/// from offset 0 as a rebuild packs them. Returns the number of kept items, or `None`
/// (with `current` untouched) if the result would break DDNet's limits.
///
/// The removed items are found through the key table (keys are unique in a snapshot the
/// table has learnt), and the kept ones are copied as the runs between them: a delta
/// deletes a few items of hundreds.
fn relayout(current: &mut SnapshotBuf, state: &mut InPlace) -> Option<usize> {
    let snapshot = current.as_snapshot();
    state.removed.clear();
    let mut previous = None;
    for &key in &state.deleted {
        // `deleted` is sorted: a key deleted twice is looked up once.
        if previous.replace(key) == Some(key) {
            continue;
        }
        if let Some(index) = state.index.get(key) {
            // A table that does not describe `current` gives way to the rebuild.
            if snapshot.item(index).is_none_or(|item| item.key != key) {
                return None;
            }
            state.removed.push(index);
        }
    }
    state.removed.sort_unstable();
    let offsets = snapshot.offsets();
    let data_ints = snapshot.data_size() / 4;
    let data = (snapshot.as_ints())
        .get(SNAPSHOT_HEADER_INTS + offsets.len()..)?
        .get(..data_ints)?;
    // Where item `i` starts in `data`, in ints (the end of the data for `i == len`).
    let start_of = |i: usize| offsets.get(i).map_or(data_ints, |&o| o as usize / 4);
    let removed_ints: usize = state
        .removed
        .iter()
        .map(|&i| start_of(i + 1) - start_of(i))
        .sum();
    let num_kept = offsets.len() - state.removed.len();
    let items = num_kept + state.added.len();
    let added_ints: usize = state.added.iter().map(|&(_, size)| KEY_INTS + size).sum();
    let new_data_ints = data_ints - removed_ints + added_ints;
    if items > MAX_ITEMS || 4 * (SNAPSHOT_HEADER_INTS + items + new_data_ints) > MAX_SIZE {
        return None;
    }
    let out = &mut state.scratch;
    out.clear();
    out.reserve(SNAPSHOT_HEADER_INTS + items + new_data_ints);
    out.extend([4 * new_data_ints as i32, items as i32]);
    // The kept items' offsets: each run between removed items moves down by the bytes
    // removed before it.
    let mut shift = 0;
    let mut run_start = 0;
    for &removed in state.removed.iter().chain([&offsets.len()]) {
        out.extend(offsets.get(run_start..removed)?.iter().map(|&o| o - shift));
        if removed < offsets.len() {
            shift += 4 * (start_of(removed + 1) - start_of(removed)) as i32;
        }
        run_start = removed + 1;
    }
    let mut offset = 4 * (data_ints - removed_ints) as i32;
    for &(_, size) in &state.added {
        out.push(offset);
        offset += 4 * (KEY_INTS + size) as i32;
    }
    let mut run_start = 0;
    for &removed in state.removed.iter().chain([&offsets.len()]) {
        out.extend_from_slice(data.get(start_of(run_start)..start_of(removed))?);
        run_start = removed + 1;
    }
    for &(key, size) in &state.added {
        out.push(key);
        out.resize(out.len() + size, 0);
    }
    current.swap_ints(&mut state.scratch);
    Some(num_kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Item types 0x8000..=0xffff, DDNet PR #12563 (head 4ba3f903573ce3d47746956be4812769d3dae782:
    /// `InternalType() = (m_TypeAndId >> 16) & 0xffff`, `MAX_TYPE = 0xffff`): refused as
    /// at the reference commit by default, read, kept and written unsigned with the opt-in.
    mod pr_12563 {
        use super::*;

        const PR: ItemSizes = ItemSizes::DDNET_0_6.with_item_types(ItemTypes::DdnetPr12563);

        /// A snapshot of items (type, id, data) built with PR #12563's item types.
        fn wide(items: &[(i32, i32, &[i32])]) -> SnapshotBuf {
            let mut b = SnapshotBuilder::new();
            b.set_item_types(ItemTypes::DdnetPr12563);
            for &(t, id, data) in items {
                b.add_item(t, id, data).unwrap();
            }
            b.finish()
        }

        #[test]
        fn keys_read_both_ways() {
            let key = key(0xffff, 1);
            assert_eq!(key, 0xffff_0001_u32 as i32);
            assert_eq!(ItemTypes::Reference.type_of(key), -1);
            assert_eq!(ItemTypes::DdnetPr12563.type_of(key), 0xffff);
            assert_eq!(ItemTypes::default(), ItemTypes::Reference);
            assert_eq!(ItemSizes::DDNET_0_6.item_types(), ItemTypes::Reference);
            assert_eq!(ItemTypes::DdnetPr12563.max_type(), 0xffff);
            let mut b = SnapshotBuilder::new();
            assert_eq!(
                b.add_item(0x8000, 0, &[]),
                Err(BuildError::InvalidType { type_id: 0x8000 })
            );
            b.set_item_types(ItemTypes::DdnetPr12563);
            b.add_item(0x8000, 0, &[]).unwrap();
            assert_eq!(
                b.add_item(0x10000, 0, &[]),
                Err(BuildError::InvalidType { type_id: 0x10000 })
            );
        }

        #[test]
        fn deltas_carry_wide_types_unsigned() {
            let from = snap(&[(5, 0, &[1, 2, 3])]);
            let to = wide(&[
                (5, 0, &[1, 2, 3]),
                (0x8000, 2, &[7]),
                (0xffff, 0xffff, &[8, 9]),
            ]);
            assert_eq!(to.as_snapshot().item(2).unwrap().key, -1);
            // The update's type is the key's upper 16 bits unsigned; the size is written
            // (no static size above 63).
            let delta = create_delta(&from.as_snapshot(), &to.as_snapshot(), &PR);
            let expected = [0, 2, 0, 0x8000, 2, 1, 7, 0xffff, 0xffff, 2, 8, 9];
            assert_eq!(delta, expected);
            let applied = apply_delta(&from.as_snapshot(), &delta, &PR).unwrap();
            assert_eq!(applied, to);
            let parsed = Delta::parse(&delta, &PR).unwrap();
            assert_eq!(parsed.updates[1].type_id, 0xffff);
            // At the reference commit DDNet refuses the update (-202).
            assert_eq!(
                apply_delta(&from.as_snapshot(), &delta, &ItemSizes::DDNET_0_6),
                Err(DeltaError::BadType {
                    update: 0,
                    type_id: 0x8000
                })
            );
            // Its CreateDelta writes the signed type, which nobody reads back.
            let signed = create_delta(
                &from.as_snapshot(),
                &to.as_snapshot(),
                &ItemSizes::DDNET_0_6,
            );
            assert_eq!(signed[3..7], [-0x8000, 2, 1, 7]);
        }

        #[test]
        fn old_items_of_wide_types_are_kept() {
            let from = wide(&[(0xffff, 3, &[1]), (5, 0, &[1, 2, 3])]);
            let to = wide(&[(0xffff, 3, &[1]), (5, 0, &[1, 2, 4])]);
            let delta = create_delta(&from.as_snapshot(), &to.as_snapshot(), &PR);
            assert_eq!(delta, [0, 1, 0, 5, 0, 0, 0, 1]);
            assert_eq!(apply_delta(&from.as_snapshot(), &delta, &PR).unwrap(), to);
            // At the reference commit the kept item's type is negative: DDNet's builder
            // refuses it.
            assert!(matches!(
                apply_delta(&from.as_snapshot(), &delta, &ItemSizes::DDNET_0_6),
                Err(DeltaError::KeepFailed { item: 0, .. })
            ));
            // Deleting it works either way (keys are keys).
            let gone = wide(&[(5, 0, &[1, 2, 3])]);
            let delete = create_delta(&from.as_snapshot(), &gone.as_snapshot(), &PR);
            assert_eq!(delete, [1, 0, 0, key(0xffff, 3)]);
            assert_eq!(
                apply_delta(&from.as_snapshot(), &delete, &PR).unwrap(),
                gone
            );
        }

        #[test]
        fn in_place_application_agrees_with_the_rebuild() {
            let from = wide(&[(0x8001, 1, &[10, 20]), (5, 0, &[1, 2, 3])]);
            let to = wide(&[
                (0x8001, 1, &[11, 20]),
                (5, 0, &[1, 2, 3]),
                (0xfffe, 9, &[4]),
            ]);
            let delta = create_delta(&from.as_snapshot(), &to.as_snapshot(), &PR);
            let mut state = InPlace::default();
            let mut current = from.clone();
            state.learn(&current.as_snapshot(), false, ItemTypes::DdnetPr12563);
            assert!(apply_delta_in_place(&mut current, &delta, &PR, &mut state));
            assert_eq!(current, to);
            // At the reference commit the negative type leaves it to the rebuild, which
            // refuses it.
            let mut state = InPlace::default();
            let mut current = from.clone();
            state.learn(&current.as_snapshot(), false, ItemTypes::Reference);
            assert!(!apply_delta_in_place(
                &mut current,
                &delta,
                &ItemSizes::DDNET_0_6,
                &mut state
            ));
        }
    }

    fn snap(items: &[(i32, i32, &[i32])]) -> SnapshotBuf {
        let mut b = SnapshotBuilder::new();
        for &(t, id, data) in items {
            b.add_item(t, id, data).unwrap();
        }
        b.finish()
    }

    #[test]
    fn reference_deltas() {
        // ref_client.demo, ticks 100 -> 101 -> 103 (minus the extended item) -> 140.
        let s100 = snap(&[(5, 0, &[100, 200, 1])]);
        let s101 = snap(&[(5, 0, &[101, 200, 1])]);
        let sizes = ItemSizes::DDNET_0_6;
        let d = create_delta(&s100.as_snapshot(), &s101.as_snapshot(), &sizes);
        assert_eq!(d, [0, 1, 0, 5, 0, 1, 0, 0]);
        assert!(!create_delta_into(
            &s101.as_snapshot(),
            &s101.as_snapshot(),
            &sizes,
            &mut Vec::new()
        ));
        let s103 = snap(&[(5, 0, &[101, 200, 1]), (4, 7, &[16, 32, 1, 0])]);
        let s140 = snap(&[(5, 0, &[102, 200, 1])]);
        let d = create_delta(&s103.as_snapshot(), &s140.as_snapshot(), &sizes);
        assert_eq!(d, [1, 1, 0, 4 << 16 | 7, 5, 0, 1, 0, 0]);
        assert_eq!(apply_delta(&s103.as_snapshot(), &d, &sizes).unwrap(), s140);
    }

    #[test]
    fn new_items_go_last() {
        let sizes = ItemSizes::NONE;
        let a = snap(&[(30, 1, &[1]), (30, 2, &[2])]);
        let b = snap(&[(30, 3, &[3]), (30, 2, &[5])]);
        let d = create_delta(&a.as_snapshot(), &b.as_snapshot(), &sizes);
        assert_eq!(d, [1, 2, 0, 30 << 16 | 1, 30, 3, 1, 3, 30, 2, 1, 3]);
        let back = apply_delta(&a.as_snapshot(), &d, &sizes).unwrap();
        assert_eq!(back, snap(&[(30, 2, &[5]), (30, 3, &[3])]));
    }

    #[test]
    fn error_codes() {
        let from = snap(&[(5, 0, &[1, 2, 3])]);
        let f = from.as_snapshot();
        let sizes = ItemSizes::DDNET_0_6;
        let code = |d: &[i32]| apply_delta(&f, d, &sizes).unwrap_err().code();
        assert_eq!(code(&[0, 0]), -505);
        assert_eq!(code(&[-1, 0, 0]), -201);
        assert_eq!(code(&[2, 0, 0, 1]), -101);
        assert_eq!(code(&[0, 1, 0, 5]), -102);
        assert_eq!(code(&[0, 1, 0, -5, 0]), -202);
        assert_eq!(code(&[0, 1, 0, 5, 0x10000]), -203);
        assert_eq!(code(&[0, 1, 0, 30, 0]), -103);
        assert_eq!(code(&[0, 1, 0, 30, 0, -1]), -204);
        assert_eq!(code(&[0, 1, 0, 5, 0, 1, 2]), -205);
        // Deleted and re-added: still a diff against the old item.
        let back = apply_delta(&f, &[1, 1, 0, 5 << 16, 5, 0, 1, 2, 3], &sizes).unwrap();
        assert_eq!(back, snap(&[(5, 0, &[2, 4, 6])]));
        let sizes_none = ItemSizes::NONE;
        let code = |d: &[i32]| apply_delta(&f, d, &sizes_none).unwrap_err().code();
        assert_eq!(code(&[0, 1, 0, 5, 0, 2, 1, 2]), -206);
        assert_eq!(code(&[1, 1, 0, 5 << 16, 5, 0, 2, 1, 2]), -207);
    }

    #[test]
    fn static_sizes() {
        assert_eq!(ItemSizes::DDNET_0_6.static_size(9), Some(88));
        assert_eq!(ItemSizes::DDNET_0_6.static_size(0), None);
        assert_eq!(ItemSizes::DDNET_0_6.static_size(21), None);
        assert_eq!(ItemSizes::DDNET_0_6.static_size(-1), None);
        assert_eq!(ItemSizes::TEEWORLDS_0_7.static_size(13), Some(232));
        assert_eq!(ItemSizes::TEEWORLDS_0_7.static_size(23), None);
        assert_eq!(
            ItemSizes::for_net_version("0.7 802f1be60a05665f"),
            ItemSizes::TEEWORLDS_0_7
        );
        assert_eq!(ItemSizes::NONE.with_static_size(64, 4), None);
        assert_eq!(ItemSizes::NONE.with_static_size(3, 6), None);
    }

    /// The ints of a delta: deleted keys, then updates (`(type, id, data)`, with the size
    /// where `sizes` has none).
    fn delta_ints(
        deleted: &[(i32, i32)],
        updates: &[(i32, i32, Vec<i32>)],
        sizes: &ItemSizes,
    ) -> Vec<i32> {
        let mut out = vec![deleted.len() as i32, updates.len() as i32, 0];
        out.extend(deleted.iter().map(|&(t, id)| key(t, id)));
        for (t, id, data) in updates {
            out.extend([*t, *id]);
            if sizes.static_size(*t).is_none() {
                out.push(data.len() as i32);
            }
            out.extend(data);
        }
        out
    }

    #[test]
    fn in_place_applies_the_common_case() {
        let from = snap(&[(5, 0, &[100, 200, 1]), (9, 1, &[7, 7])]);
        let sizes = ItemSizes::NONE;
        let delta = delta_ints(&[], &[(5, 0, vec![1, 0, 0])], &sizes);
        let mut current = from.clone();
        let mut state = InPlace::default();
        state.learn(&current.as_snapshot(), false, ItemTypes::Reference);
        assert!(apply_delta_in_place(
            &mut current,
            &delta,
            &sizes,
            &mut state
        ));
        assert_eq!(
            current,
            apply_delta(&from.as_snapshot(), &delta, &sizes).unwrap()
        );
        // A new key and a deletion are applied too, laid out as the rebuild lays them out.
        for delta in [
            delta_ints(&[], &[(6, 0, vec![1])], &sizes),
            delta_ints(&[(9, 1)], &[(5, 0, vec![0, 1, 0]), (7, 3, vec![4])], &sizes),
        ] {
            let expected = apply_delta(&current.as_snapshot(), &delta, &sizes).unwrap();
            assert!(apply_delta_in_place(
                &mut current,
                &delta,
                &sizes,
                &mut state
            ));
            assert_eq!(current, expected);
        }
        // Two updates of one item, an update of another size, or of a deleted key take
        // the rebuild.
        for delta in [
            delta_ints(&[], &[(5, 0, vec![1, 0, 0]), (5, 0, vec![1, 0, 0])], &sizes),
            delta_ints(&[], &[(5, 0, vec![1, 0])], &sizes),
            delta_ints(&[(5, 0)], &[(5, 0, vec![1, 0, 0])], &sizes),
        ] {
            assert!(!apply_delta_in_place(
                &mut current,
                &delta,
                &sizes,
                &mut state
            ));
        }
    }

    proptest::proptest! {
        /// Changing items in place gives exactly the snapshot a rebuild gives, whenever it
        /// is taken: duplicate keys, sizes that differ, repeated updates, deletions, new
        /// keys, unsorted items in a sorting replay and a first item after unused ints all
        /// occur.
        #[test]
        fn in_place_gives_what_a_rebuild_gives(
            items in proptest::collection::vec((0i32..5, 0i32..3, proptest::collection::vec(-3i32..3, 0..2)), 0..10),
            updates in proptest::collection::vec((0i32..3, 0i32..2, proptest::collection::vec(-3i32..3, 0..2)), 0..6),
            deleted in proptest::collection::vec((0i32..5, 0i32..3), 0..2),
            sorted in proptest::bool::ANY,
            gap in proptest::bool::weighted(0.1),
            static_sizes in proptest::bool::ANY,
        ) {
            let sizes = if static_sizes { ItemSizes::DDNET_0_6 } else { ItemSizes::NONE };
            let mut b = SnapshotBuilder::new();
            for (t, id, data) in &items {
                b.add_item(*t, *id, data).unwrap();
            }
            let mut from = b.finish();
            if sorted && !gap {
                from.sort_by_key();
            }
            if gap {
                // The same items after one unused int: valid, but no builder lays it out.
                let s = from.as_snapshot();
                let n = s.len();
                let mut ints = vec![s.data_size() as i32 + 4, n as i32];
                ints.extend(s.offsets().iter().map(|o| o + 4));
                ints.push(0);
                ints.extend_from_slice(&s.as_ints()[2 + n..]);
                from = SnapshotBuf::from_ints(ints).unwrap();
            }
            let updates: Vec<_> = updates
                .into_iter()
                .map(|(t, id, data)| match sizes.static_size(t) {
                    Some(bytes) => (t, id, vec![1; bytes / 4]),
                    None => (t, id, data),
                })
                .collect();
            let delta = delta_ints(&deleted, &updates, &sizes);
            let rebuilt = apply_delta(&from.as_snapshot(), &delta, &sizes).map(|mut next| {
                if sorted {
                    next.sort_by_key();
                }
                next
            });
            let mut current = from.clone();
            let mut state = InPlace::default();
            state.learn(&current.as_snapshot(), sorted, ItemTypes::Reference);
            if apply_delta_in_place(&mut current, &delta, &sizes, &mut state) {
                proptest::prop_assert_eq!(Ok(current), rebuilt);
            } else {
                proptest::prop_assert_eq!(current, from);
            }
        }
    }
}
