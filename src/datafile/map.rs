//! Teeworlds/DDNet maps: the datafile items a map is made of, whether DDNet's client
//! would load one (its `CMap::Load`), and the facts a user wants about one.
//!
//! [`check_load`] opens the datafile, then makes the checks `CMap::Load` makes at the
//! reference commit, in its order: the version item (type 0, id 0) must say 1; every group
//! must name layers that exist and that no other group uses; every tiles layer item must be
//! long enough for its version (2 to 4), set at most one physics flag, be at least 2×2,
//! have a valid name and, unless it is a physics layer, colour channels in 0..=255; there
//! must be a game layer; every tiles layer must point at its own data block, physics layers
//! at least as large as the game layer; and the game layer's data block must load (inflate
//! to its declared size) and hold the tiles (at least width × height of them with zero skip
//! and padding, or, for version 4 layers, a run-length stream that fills exactly the layer).
//! Other data blocks (images, sounds, other layers' tiles) are loaded lazily by DDNet when
//! something draws them, so they do not decide whether the map loads and are not checked.
//!
//! [`MapFacts`] summarises a map for `demokit info`. [`minimal_map`] writes the smallest
//! map DDNet loads, for tests and crafted demos.

use super::error::{DataErrorKind, DatafileError, DatafileErrorKind};
use super::reader::{Datafile, Item};
use super::writer::{DatafileBuilder, DatafileWriteError};
use sha2::Digest;
use std::collections::{BTreeMap, HashSet};

/// Item type of the map version item.
pub const ITEM_VERSION: i32 = 0;
/// Item type of the map info item (author, version, credits, licence, settings).
pub const ITEM_INFO: i32 = 1;
/// Item type of images.
pub const ITEM_IMAGE: i32 = 2;
/// Item type of envelopes.
pub const ITEM_ENVELOPE: i32 = 3;
/// Item type of layer groups.
pub const ITEM_GROUP: i32 = 4;
/// Item type of layers.
pub const ITEM_LAYER: i32 = 5;
/// Item type of envelope points.
pub const ITEM_ENVPOINTS: i32 = 6;
/// Item type of sounds.
pub const ITEM_SOUND: i32 = 7;

/// Layer type of tiles layers (game and physics layers included).
pub const LAYER_TILES: i32 = 2;
/// Layer type of quads layers.
pub const LAYER_QUADS: i32 = 3;
/// Layer type of the deprecated sounds layers.
pub const LAYER_SOUNDS_DEPRECATED: i32 = 9;
/// Layer type of sounds layers.
pub const LAYER_SOUNDS: i32 = 10;

/// Tiles-layer flag: the game layer.
pub const TILES_GAME: i32 = 1;
/// Tiles-layer flag: the teleporter layer.
pub const TILES_TELE: i32 = 2;
/// Tiles-layer flag: the speedup layer.
pub const TILES_SPEEDUP: i32 = 4;
/// Tiles-layer flag: the front layer.
pub const TILES_FRONT: i32 = 8;
/// Tiles-layer flag: the switch layer.
pub const TILES_SWITCH: i32 = 16;
/// Tiles-layer flag: the tune layer.
pub const TILES_TUNE: i32 = 32;
const PHYSICS_FLAGS: i32 =
    TILES_GAME | TILES_TELE | TILES_SPEEDUP | TILES_FRONT | TILES_SWITCH | TILES_TUNE;

/// Bytes of a group item up to its layer range (DDNet's `CMapItemGroup_v1`).
const GROUP_V1_SIZE: usize = 28;
/// Bytes of a layer item's common part (`CMapItemLayer`).
const LAYER_SIZE: usize = 12;
/// Bytes of a version-2 tiles layer item (`CMapItemLayerTilemap_v2`).
const TILEMAP_V2_SIZE: usize = 60;
/// Bytes of a Teeworlds version-3 tiles layer item, with its name (`_v3Teeworlds`).
const TILEMAP_V3_SIZE: usize = 72;
/// Bytes of a full DDNet tiles layer item (`CMapItemLayerTilemap`).
const TILEMAP_SIZE: usize = 92;

/// A map does not load the way DDNet's `CMap::Load` loads it. The offset is from the start
/// of the map file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {kind}")]
pub struct MapError {
    /// Offset of the item, field or data block at fault.
    pub offset: u64,
    /// Which check failed.
    pub kind: MapErrorKind,
}

/// The checks of `CMap::Load`, after the datafile's own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MapErrorKind {
    /// The file does not open as a datafile.
    #[error("not a valid datafile: {0}")]
    Datafile(DatafileErrorKind),
    /// No item of type 0 with id 0.
    #[error("the map version item is missing")]
    VersionMissing,
    /// The version item is shorter than one int.
    #[error("the map version item is truncated ({size} bytes)")]
    VersionTruncated {
        /// Its size.
        size: usize,
    },
    /// The version item does not say 1.
    #[error("map version {version} is not supported (DDNet loads version 1)")]
    VersionUnsupported {
        /// What it says.
        version: i32,
    },
    /// A group item is shorter than its layer range.
    #[error("group {group} is truncated ({size} bytes)")]
    GroupTruncated {
        /// The group's index.
        group: usize,
        /// Its size.
        size: usize,
    },
    /// A group names layers that do not exist.
    #[error("group {group} uses layers {start}..{start}+{num}, but the map has {layers}")]
    GroupLayers {
        /// The group's index.
        group: usize,
        /// Its first layer.
        start: i32,
        /// Its layer count.
        num: i32,
        /// Layers in the map.
        layers: usize,
    },
    /// Two groups use one layer.
    #[error("layer {layer} of group {group} is also used by another group")]
    LayerShared {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
    },
    /// A layer item is shorter than the common layer fields, or a tiles layer item shorter
    /// than its version needs.
    #[error("layer {layer} of group {group} is truncated ({size} bytes)")]
    LayerTruncated {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
        /// Its size.
        size: usize,
    },
    /// A tiles layer of a version other than 2 to 4.
    #[error("tiles layer {layer} of group {group} has unsupported version {version}")]
    TilesVersion {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
        /// Its version.
        version: i32,
    },
    /// A tiles layer with more than one physics flag.
    #[error("tiles layer {layer} of group {group} sets more than one physics flag ({flags:#x})")]
    TilesFlags {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
        /// Its flags.
        flags: i32,
    },
    /// A physics layer whose item ends before its data index.
    #[error("{name} layer {layer} of group {group} is truncated ({size} bytes)")]
    PhysicsTruncated {
        /// "Tele", "Speedup", "Front", "Switch" or "Tune".
        name: &'static str,
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
        /// Its size.
        size: usize,
    },
    /// A tiles layer narrower or lower than 2 tiles.
    #[error("tiles layer {layer} of group {group} is {width}×{height} (at least 2×2 needed)")]
    TilesTooSmall {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
        /// Its width.
        width: i32,
        /// Its height.
        height: i32,
    },
    /// A tiles layer name that is not UTF-8.
    #[error("tiles layer {layer} of group {group} has an invalid name")]
    TilesName {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
    },
    /// A colour channel outside 0..=255 (non-physics tiles layers).
    #[error("tiles layer {layer} of group {group} has colour {color:?} outside 0..=255")]
    TilesColor {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
        /// Red, green, blue, alpha.
        color: [i32; 4],
    },
    /// No tiles layer has the game flag.
    #[error("the game layer is missing")]
    GameLayerMissing,
    /// A tiles layer's data index names no data block.
    #[error(
        "tiles layer {layer} of group {group} points at data block {index}, which does not exist"
    )]
    TileDataIndex {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
        /// The index.
        index: i32,
    },
    /// Two tiles layers point at one data block.
    #[error("tiles layer {layer} of group {group} shares data block {index} with another layer")]
    TileDataShared {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
        /// The index.
        index: i32,
    },
    /// Width × height overflows DDNet's int arithmetic.
    #[error("tiles layer {layer} of group {group} is too big ({width}×{height})")]
    TilesOverflow {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
        /// Its width.
        width: i32,
        /// Its height.
        height: i32,
    },
    /// A physics layer with fewer tiles than the game layer.
    #[error("physics layer {layer} of group {group} is smaller than the game layer")]
    PhysicsSmaller {
        /// The group's index.
        group: usize,
        /// The layer's index in the group.
        layer: usize,
    },
    /// The game layer's data block does not load.
    #[error("the game layer's data block {index} does not load: {kind}")]
    GameData {
        /// The block's index.
        index: i32,
        /// Why.
        kind: DataErrorKind,
    },
    /// The game layer's tiles are not what its size and version call for.
    #[error("the game layer's tiles are invalid: {problem}")]
    GameTiles {
        /// What is wrong.
        problem: String,
    },
}

impl From<DatafileError> for MapError {
    fn from(e: DatafileError) -> Self {
        MapError {
            offset: e.offset,
            kind: MapErrorKind::Datafile(e.kind),
        }
    }
}

/// A tiles layer item as `CMap::Load` sees it after upgrading old versions.
#[derive(Debug, Clone, Copy)]
struct Tilemap {
    version: i32,
    width: i32,
    height: i32,
    flags: i32,
    data: i32,
    tele: i32,
    speedup: i32,
    front: i32,
    switch: i32,
    tune: i32,
}

/// Decodes a name stored as ints the Teeworlds way (each byte +128, big-endian in its int,
/// the last byte of the last int always 0), as DDNet's `IntsToStr`; `None` if not UTF-8.
pub(crate) fn ints_to_str(ints: &[i32]) -> Option<String> {
    let mut bytes: Vec<u8> = ints
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .map(|b| b.wrapping_sub(128))
        .collect();
    if let Some(last) = bytes.last_mut() {
        *last = 0;
    }
    let text = bytes.split(|&b| b == 0).next().unwrap_or_default();
    std::str::from_utf8(text).ok().map(str::to_owned)
}

/// Encodes `text` into `n` ints the Teeworlds way (DDNet's `StrToInts`): NUL-padded, each
/// byte +128, the last byte 0. Text longer than `4n - 1` bytes is cut.
pub(crate) fn str_to_ints(text: &str, n: usize) -> Vec<i32> {
    let mut bytes = vec![0u8; 4 * n];
    let len = text.len().min((4 * n).saturating_sub(1));
    for (to, from) in bytes.iter_mut().zip(text.as_bytes()).take(len) {
        *to = *from;
    }
    let mut ints: Vec<i32> = bytes
        .as_chunks::<4>()
        .0
        .iter()
        .map(|c| i32::from_be_bytes(c.map(|b| b.wrapping_add(128))))
        .collect();
    if let Some(last) = ints.last_mut() {
        *last &= !0xff;
    }
    ints
}

/// The ints of an item, as far as it has whole ones.
fn item_ints(item: &Item<'_>) -> Vec<i32> {
    (0..item.len_ints()).filter_map(|i| item.int(i)).collect()
}

/// Checks `map` as DDNet's client loads a map; see the [module docs](self).
pub fn check_load(map: &[u8]) -> Result<(), MapError> {
    let file = Datafile::parse(map)?;
    check_version(&file)?;
    let groups = file.type_range(ITEM_GROUP);
    let layers = file.type_range(ITEM_LAYER);
    let mut used_layers = HashSet::new();
    let mut tilemaps: BTreeMap<usize, Tilemap> = BTreeMap::new();
    let mut game: Option<Tilemap> = None;
    // (group, layer index in group, layer item index) in the order DDNet walks them.
    let mut walk = Vec::new();
    // `Datafile::parse` checked that every type's items exist.
    for (group, item) in groups.filter_map(|i| file.item(i)).enumerate() {
        let at = item.offset;
        if item.data.len() < GROUP_V1_SIZE {
            let size = item.data.len();
            return Err(err(at, MapErrorKind::GroupTruncated { group, size }));
        }
        let (start, num) = (item.int(5).unwrap_or(0), item.int(6).unwrap_or(0));
        if start < 0 || num < 0 || start as i64 + num as i64 > layers.len() as i64 {
            let kind = MapErrorKind::GroupLayers {
                group,
                start,
                num,
                layers: layers.len(),
            };
            return Err(err(at, kind));
        }
        for layer in 0..num as usize {
            let layer_index = layers.start + start as usize + layer;
            if !used_layers.insert(layer_index) {
                return Err(err(at, MapErrorKind::LayerShared { group, layer }));
            }
            let Some(item) = file.item(layer_index) else {
                let kind = MapErrorKind::GroupLayers {
                    group,
                    start,
                    num,
                    layers: layers.len(),
                };
                return Err(err(at, kind));
            };
            if item.data.len() < LAYER_SIZE {
                let size = item.data.len();
                let kind = MapErrorKind::LayerTruncated { group, layer, size };
                return Err(err(item.offset, kind));
            }
            if item.int(1) == Some(LAYER_TILES) {
                let tilemap = upgrade_tilemap(&item, group, layer)?;
                if tilemap.flags & TILES_GAME != 0 {
                    game = Some(tilemap);
                }
                tilemaps.insert(layer_index, tilemap);
            }
            walk.push((group, layer, layer_index, item.offset));
        }
    }
    let Some(game) = game else {
        return Err(err(0, MapErrorKind::GameLayerMissing));
    };
    let mut used_data = HashSet::new();
    for &(group, layer, layer_index, at) in &walk {
        let Some(t) = tilemaps.get(&layer_index) else {
            continue;
        };
        check_tile_data(&file, t, &game, group, layer, at, &mut used_data)?;
    }
    check_game_tiles(&file, &game)
}

fn err(offset: u64, kind: MapErrorKind) -> MapError {
    MapError { offset, kind }
}

fn check_version(file: &Datafile<'_>) -> Result<(), MapError> {
    let Some(item) = file
        .find_item(ITEM_VERSION, 0)
        .and_then(|index| file.item(index))
    else {
        return Err(err(0, MapErrorKind::VersionMissing));
    };
    match item.int(0) {
        None => Err(err(
            item.offset,
            MapErrorKind::VersionTruncated {
                size: item.data.len(),
            },
        )),
        Some(1) => Ok(()),
        Some(version) => Err(err(
            item.offset,
            MapErrorKind::VersionUnsupported { version },
        )),
    }
}

/// DDNet's `UpgradeAndValidateTilesLayerItem` and `EnsureTileLayerProperties`.
fn upgrade_tilemap(item: &Item<'_>, group: usize, layer: usize) -> Result<Tilemap, MapError> {
    let at = item.offset;
    let size = item.data.len();
    if size < TILEMAP_V2_SIZE {
        return Err(err(at, MapErrorKind::LayerTruncated { group, layer, size }));
    }
    let ints = item_ints(item);
    let [
        _,
        _,
        _,
        version,
        width,
        height,
        flags,
        r,
        g,
        b,
        a,
        _,
        _,
        _,
        data,
        ..,
    ] = *ints
    else {
        return Err(err(at, MapErrorKind::LayerTruncated { group, layer, size }));
    };
    if !(2..=4).contains(&version) {
        let kind = MapErrorKind::TilesVersion {
            group,
            layer,
            version,
        };
        return Err(err(at + 12, kind));
    }
    if (flags & PHYSICS_FLAGS).count_ones() > 1 {
        return Err(err(
            at + 24,
            MapErrorKind::TilesFlags {
                group,
                layer,
                flags,
            },
        ));
    }
    // Old items may end before some physics data indices; that is fine unless the layer
    // is of that kind.
    let physics = |flag: i32, index: usize, name: &'static str| match ints.get(index) {
        Some(&data) => Ok(data),
        None if flags & flag != 0 => {
            let kind = MapErrorKind::PhysicsTruncated {
                name,
                group,
                layer,
                size,
            };
            Err(err(at, kind))
        }
        None => Ok(-1),
    };
    let (name, first_physics) = if version == 2 {
        (Some(String::new()), 15)
    } else if let Some(name) = ints.get(15..18)
        && size >= TILEMAP_V3_SIZE
    {
        (ints_to_str(name), 18)
    } else {
        return Err(err(at, MapErrorKind::LayerTruncated { group, layer, size }));
    };
    let t = Tilemap {
        version,
        width,
        height,
        flags,
        data,
        tele: physics(TILES_TELE, first_physics, "Tele")?,
        speedup: physics(TILES_SPEEDUP, first_physics + 1, "Speedup")?,
        front: physics(TILES_FRONT, first_physics + 2, "Front")?,
        switch: physics(TILES_SWITCH, first_physics + 3, "Switch")?,
        tune: physics(TILES_TUNE, first_physics + 4, "Tune")?,
    };
    debug_assert!(size >= TILEMAP_SIZE || version == 2 || first_physics == 18);
    if t.width < 2 || t.height < 2 {
        let kind = MapErrorKind::TilesTooSmall {
            group,
            layer,
            width: t.width,
            height: t.height,
        };
        return Err(err(at + 16, kind));
    }
    if name.is_none() {
        return Err(err(at + 60, MapErrorKind::TilesName { group, layer }));
    }
    let color = [r, g, b, a];
    if flags & PHYSICS_FLAGS == 0 && color.iter().any(|c| !(0..=255).contains(c)) {
        return Err(err(
            at + 28,
            MapErrorKind::TilesColor {
                group,
                layer,
                color,
            },
        ));
    }
    Ok(t)
}

/// Bytes per tile of a tiles layer's data, and the data index it uses.
fn tile_kind(t: &Tilemap) -> (usize, i32, bool) {
    // (tile size, data index, whether it is a physics layer other than game)
    if t.flags & TILES_GAME != 0 {
        (4, t.data, false)
    } else if t.flags & TILES_TELE != 0 {
        (2, t.tele, true)
    } else if t.flags & TILES_SPEEDUP != 0 {
        (6, t.speedup, true)
    } else if t.flags & TILES_FRONT != 0 {
        (4, t.front, true)
    } else if t.flags & TILES_SWITCH != 0 {
        (4, t.switch, true)
    } else if t.flags & TILES_TUNE != 0 {
        (2, t.tune, true)
    } else {
        (4, t.data, false)
    }
}

/// DDNet's `ValidateAndUnpackTilesLayerData`, up to registering the lazy data check.
fn check_tile_data(
    file: &Datafile<'_>,
    t: &Tilemap,
    game: &Tilemap,
    group: usize,
    layer: usize,
    at: u64,
    used: &mut HashSet<i32>,
) -> Result<(), MapError> {
    let (_, index, physics) = tile_kind(t);
    if index < 0 || index as usize >= file.num_data() {
        return Err(err(
            at,
            MapErrorKind::TileDataIndex {
                group,
                layer,
                index,
            },
        ));
    }
    if !used.insert(index) {
        return Err(err(
            at,
            MapErrorKind::TileDataShared {
                group,
                layer,
                index,
            },
        ));
    }
    let count = t.width as u64 * t.height as u64;
    // DDNet checks `(int)count / width == height`: the product must survive a cast to int.
    if (count as u32 as i32) / t.width != t.height {
        let kind = MapErrorKind::TilesOverflow {
            group,
            layer,
            width: t.width,
            height: t.height,
        };
        return Err(err(at, kind));
    }
    if physics && count < game.width as u64 * game.height as u64 {
        return Err(err(at, MapErrorKind::PhysicsSmaller { group, layer }));
    }
    Ok(())
}

/// Loads the game layer's data block and runs DDNet's tile check on it.
fn check_game_tiles(file: &Datafile<'_>, game: &Tilemap) -> Result<(), MapError> {
    let data = file.data(game.data as i64).map_err(|e| {
        err(
            e.offset,
            MapErrorKind::GameData {
                index: game.data,
                kind: e.kind,
            },
        )
    })?;
    let block_offset = file
        .data_raw(game.data as usize)
        .map_or(0, |raw| raw.as_ptr() as u64 - file.bytes().as_ptr() as u64);
    let tiles = data.chunks_exact(4);
    let saved = tiles.len() as u64;
    let count = game.width as u64 * game.height as u64;
    let fail = |problem: String| Err(err(block_offset, MapErrorKind::GameTiles { problem }));
    if game.version >= 4 {
        // Run-length encoded: each tile stands for itself and `skip` more copies.
        let (mut dest, mut src) = (0u64, 0u64);
        for &[_, _, skip, padding] in data.as_chunks::<4>().0 {
            if dest >= count {
                break;
            }
            if padding != 0 {
                return fail(format!("tile {src} has padding {padding} (must be 0)"));
            }
            dest += (skip as u64 + 1).min(count - dest);
            src += 1;
        }
        if dest != count {
            return fail(format!(
                "the run-length tiles give {dest} tiles, the layer has {count}"
            ));
        }
        if src != saved {
            return fail(format!(
                "{} tiles left over after filling the layer",
                saved - src
            ));
        }
        return Ok(());
    }
    if saved < count {
        return fail(format!("{saved} tiles, the layer has {count}"));
    }
    let tiles = data.as_chunks::<4>().0.iter().take(count as usize);
    for (i, &[_, _, skip, padding]) in tiles.enumerate() {
        if skip != 0 {
            return fail(format!(
                "tile {i} has skip {skip} but version {} does not use skips",
                game.version
            ));
        }
        if padding != 0 {
            return fail(format!("tile {i} has padding {padding} (must be 0)"));
        }
    }
    Ok(())
}

/// One physics layer's tiles, row by row (`width × height` of them): for each tile the
/// bytes DDNet stores for it in that layer (see [`PhysicsLayer::tile_size`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhysicsLayer {
    /// Width in tiles.
    pub width: usize,
    /// Height in tiles.
    pub height: usize,
    /// The tiles' bytes, `tile_size` per tile, run-length encoded game layers unpacked.
    pub data: Vec<u8>,
    /// Bytes per tile: 4 for the game, front and switch layers (`CTile`, `CSwitchTile`:
    /// index or number first), 2 for tele (number, type), 6 for speedup (force, max speed,
    /// type, padding, angle).
    pub tile_size: usize,
    /// Whether this is the switch layer, whose kind is its second byte.
    pub switch: bool,
}

impl PhysicsLayer {
    /// The bytes of the tile at (`x`, `y`), `None` outside the layer.
    pub fn tile(&self, x: usize, y: usize) -> Option<&[u8]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = (y * self.width + x) * self.tile_size;
        self.data.get(at..at + self.tile_size)
    }

    /// The tile's kind as DDNet's collision reads it: the index of a game or front tile,
    /// the type of a tele, speedup or switch tile; 0 (air) outside the layer.
    pub fn kind(&self, x: usize, y: usize) -> u8 {
        let Some(tile) = self.tile(x, y) else {
            return 0;
        };
        let byte = match self.tile_size {
            // Tele: (number, type); switch: (number, type, flags, delay).
            2 => 1,
            6 => 2,
            _ if self.switch => 1,
            _ => 0,
        };
        tile.get(byte).copied().unwrap_or(0)
    }
}

/// The physics layers of a map that loads: the game layer, and the front, tele, speedup
/// and switch layers where the map has them. What a tile means (solid, freeze, a
/// teleporter) is left to whoever draws or simulates the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhysicsLayers {
    /// The game layer.
    pub game: PhysicsLayer,
    /// DDNet's front layer.
    pub front: Option<PhysicsLayer>,
    /// DDNet's teleporter layer.
    pub tele: Option<PhysicsLayer>,
    /// DDNet's speedup layer.
    pub speedup: Option<PhysicsLayer>,
    /// DDNet's switch layer.
    pub switch: Option<PhysicsLayer>,
}

/// Reads the physics layers of `map`, after checking that DDNet would load it
/// ([`check_load`]). A physics layer other than the game layer whose data block does not
/// inflate to its tiles is left out (DDNet loads those lazily and ignores them then).
pub fn physics_layers(map: &[u8]) -> Result<PhysicsLayers, MapError> {
    check_load(map)?;
    let file = Datafile::parse(map)?;
    let mut layers = PhysicsLayers {
        game: PhysicsLayer::empty(),
        front: None,
        tele: None,
        speedup: None,
        switch: None,
    };
    let items = file
        .type_range(ITEM_LAYER)
        .filter_map(|index| file.item(index));
    for (layer, item) in items.enumerate() {
        if item.int(1) != Some(LAYER_TILES) {
            continue;
        }
        // Checked by `check_load`: a tiles layer item upgrades.
        let t = upgrade_tilemap(&item, 0, layer)?;
        if t.flags & PHYSICS_FLAGS == 0 {
            continue;
        }
        let (tile_size, data_index, _) = tile_kind(&t);
        let (width, height) = (t.width as usize, t.height as usize);
        let Ok(data) = file.data(data_index as i64) else {
            if t.flags & TILES_GAME != 0 {
                return Err(err(item.offset, MapErrorKind::GameLayerMissing));
            }
            continue;
        };
        let count = width * height;
        let data = if t.flags & TILES_GAME != 0 && t.version >= 4 {
            let mut tiles = Vec::with_capacity(count * 4);
            for &[index, flags, skip, _] in data.as_chunks::<4>().0 {
                for _ in 0..=skip {
                    if tiles.len() < count * 4 {
                        tiles.extend_from_slice(&[index, flags, 0, 0]);
                    }
                }
            }
            tiles
        } else {
            data.into_owned()
        };
        if data.len() < count * tile_size {
            continue;
        }
        let mut physics = PhysicsLayer {
            width,
            height,
            data,
            tile_size,
            switch: t.flags & TILES_SWITCH != 0,
        };
        physics.data.truncate(count * tile_size);
        let slot = match t.flags & PHYSICS_FLAGS {
            TILES_GAME => {
                layers.game = physics;
                continue;
            }
            TILES_FRONT => &mut layers.front,
            TILES_TELE => &mut layers.tele,
            TILES_SPEEDUP => &mut layers.speedup,
            TILES_SWITCH => &mut layers.switch,
            _ => continue,
        };
        *slot = Some(physics);
    }
    Ok(layers)
}

impl PhysicsLayer {
    fn empty() -> Self {
        PhysicsLayer {
            width: 0,
            height: 0,
            data: Vec::new(),
            tile_size: 4,
            switch: false,
        }
    }
}

/// The map info item's texts (DDNet's `CMapItemInfo`), where the map has them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MapInfo {
    /// Author.
    pub author: Option<String>,
    /// The map's own version text.
    pub version: Option<String>,
    /// Credits.
    pub credits: Option<String>,
    /// Licence.
    pub license: Option<String>,
    /// Number of server settings (commands) the map carries.
    pub settings: Option<usize>,
}

/// Layers by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LayerCounts {
    /// Tiles layers, game and physics layers included.
    pub tiles: usize,
    /// Quads layers.
    pub quads: usize,
    /// Sounds layers (both layer types).
    pub sounds: usize,
    /// Layers of any other type.
    pub other: usize,
}

/// Size of the game layer in tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GameLayer {
    /// Width.
    pub width: i32,
    /// Height.
    pub height: i32,
}

/// Where and why a map does not load, for JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LoadProblem {
    /// Offset in the map file.
    pub offset: u64,
    /// What is wrong.
    pub message: String,
}

/// What a user wants to know about a map: the datafile's shape, the map's version and info
/// texts, what it is made of, and whether DDNet would load it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MapFacts {
    /// Size of the map file.
    pub size: u64,
    /// CRC-32 of the map file, 8 hex digits.
    pub crc32: String,
    /// SHA-256 of the map file, hex.
    pub sha256: String,
    /// Datafile version (3 or 4).
    pub datafile_version: i32,
    /// Entries in the item-type table.
    pub item_types: usize,
    /// Items.
    pub items: usize,
    /// Data blocks.
    pub data_blocks: usize,
    /// The map version item's value (1 for every map DDNet loads).
    pub map_version: Option<i32>,
    /// The info item's texts.
    pub info: Option<MapInfo>,
    /// Images, embedded and external.
    pub images: usize,
    /// Images whose pixels are in the map.
    pub embedded_images: usize,
    /// Envelopes.
    pub envelopes: usize,
    /// Sounds.
    pub sounds: usize,
    /// Layer groups.
    pub groups: usize,
    /// Layers by kind.
    pub layers: LayerCounts,
    /// The (last) game layer's size.
    pub game_layer: Option<GameLayer>,
    /// Whether DDNet's client loads the map ([`check_load`]).
    pub loads: bool,
    /// Why it does not, if it does not.
    pub load_error: Option<LoadProblem>,
}

impl MapFacts {
    /// The facts of `map`; `Err` if it does not even open as a datafile.
    pub fn read(map: &[u8]) -> Result<MapFacts, DatafileError> {
        let file = Datafile::parse(map)?;
        let load_error = check_load(map).err().map(|e| LoadProblem {
            offset: e.offset,
            message: e.kind.to_string(),
        });
        let count = |t| file.type_range(t).len();
        let map_version = file
            .find_item(ITEM_VERSION, 0)
            .and_then(|i| file.item(i)?.int(0));
        let info = file
            .find_item(ITEM_INFO, 0)
            .and_then(|i| file.item(i))
            .map(|item| {
                let text = |k| {
                    item.int(k)
                        .filter(|&index| index >= 0)
                        .and_then(|index| file.data_string(index as i64))
                };
                MapInfo {
                    author: text(1),
                    version: text(2),
                    credits: text(3),
                    license: text(4),
                    settings: item
                        .int(5)
                        .filter(|&index| index >= 0)
                        .and_then(|index| file.data(index as i64).ok())
                        .map(|data| data.iter().filter(|&&b| b == 0).count()),
                }
            });
        let embedded_images = file
            .type_range(ITEM_IMAGE)
            .filter_map(|i| file.item(i))
            .filter(|item| item.int(3) == Some(0))
            .count();
        let mut layers = LayerCounts::default();
        let mut game_layer = None;
        for item in file.type_range(ITEM_LAYER).filter_map(|i| file.item(i)) {
            match item.int(1) {
                Some(LAYER_TILES) => {
                    layers.tiles += 1;
                    if item.int(6).is_some_and(|f| f & TILES_GAME != 0) {
                        game_layer = Some(GameLayer {
                            width: item.int(4).unwrap_or(0),
                            height: item.int(5).unwrap_or(0),
                        });
                    }
                }
                Some(LAYER_QUADS) => layers.quads += 1,
                Some(LAYER_SOUNDS | LAYER_SOUNDS_DEPRECATED) => layers.sounds += 1,
                _ => layers.other += 1,
            }
        }
        Ok(MapFacts {
            size: map.len() as u64,
            crc32: format!("{:08x}", crc32fast::hash(map)),
            sha256: hex::encode(sha2::Sha256::digest(map)),
            datafile_version: file.version(),
            item_types: file.item_types().len(),
            items: file.num_items(),
            data_blocks: file.num_data(),
            map_version,
            info,
            images: count(ITEM_IMAGE),
            embedded_images,
            envelopes: count(ITEM_ENVELOPE),
            sounds: count(ITEM_SOUND),
            groups: count(ITEM_GROUP),
            layers,
            game_layer,
            loads: load_error.is_none(),
            load_error,
        })
    }
}

/// The ints of a full (version 3, DDNet-extended) tiles layer item.
pub fn tiles_layer_item(width: i32, height: i32, flags: i32, data: i32, name: &str) -> Vec<i32> {
    let mut ints = vec![
        0,           // layer version (unused)
        LAYER_TILES, // layer type
        0,           // layer flags
        3,           // tiles layer version
        width,
        height,
        flags,
        255,
        255,
        255,
        255, // colour
        -1,  // colour envelope
        0,   // colour envelope offset
        -1,  // image
        data,
    ];
    ints.extend(str_to_ints(name, 3));
    ints.extend([-1; 5]); // tele, speedup, front, switch, tune
    ints
}

/// The ints of a group item (version 3) holding `num` layers from `start`.
pub fn group_item(start: i32, num: i32, name: &str) -> Vec<i32> {
    let mut ints = vec![3, 0, 0, 100, 100, start, num, 0, 0, 0, 0, 0];
    ints.extend(str_to_ints(name, 3));
    ints
}

/// A builder holding the smallest map DDNet loads: the version item, an info item with
/// `author`, one group with one game layer of `width` × `height` empty tiles. Add items or
/// data to it before [`finish`](DatafileBuilder::finish) to make variants.
pub fn minimal_map_builder(width: i32, height: i32, author: &str) -> DatafileBuilder {
    let mut b = DatafileBuilder::new();
    let tiles = vec![0u8; (width.max(0) as usize) * (height.max(0) as usize) * 4];
    let data = b.add_data(&tiles);
    let author_index = b.add_data(&[author.as_bytes(), b"\0"].concat());
    // The keys are the map item types', all in range.
    b.push_item(ITEM_VERSION as u16, 0, &[1]);
    b.push_item(ITEM_INFO as u16, 0, &[1, author_index, -1, -1, -1]);
    b.push_item(ITEM_GROUP as u16, 0, &group_item(0, 1, "Game"));
    let layer = tiles_layer_item(width, height, TILES_GAME, data, "Game");
    b.push_item(ITEM_LAYER as u16, 0, &layer);
    b
}

/// The bytes of [`minimal_map_builder`]`(width, height, author)`; fails only where the
/// tiles do not fit the format (a layer of more than 2 GiB).
pub fn minimal_map(width: i32, height: i32, author: &str) -> Result<Vec<u8>, DatafileWriteError> {
    minimal_map_builder(width, height, author).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let ints = str_to_ints("Game", 3);
        assert_eq!(ints_to_str(&ints).as_deref(), Some("Game"));
        assert_eq!(ints_to_str(&str_to_ints("", 3)).as_deref(), Some(""));
        // 11 bytes fit; the 12th is the terminator.
        assert_eq!(
            ints_to_str(&str_to_ints("abcdefghijklmn", 3)).as_deref(),
            Some("abcdefghijk")
        );
        // A lone lead byte (0xc3, stored as 0x43) is not UTF-8.
        assert_eq!(
            ints_to_str(&[0x4380_8080u32 as i32, 0x8080_8000u32 as i32]),
            None
        );
    }

    #[test]
    fn minimal_map_loads() {
        let map = minimal_map(2, 2, "demokit").unwrap();
        check_load(&map).unwrap();
        let facts = MapFacts::read(&map).unwrap();
        assert_eq!(facts.map_version, Some(1));
        assert_eq!(facts.groups, 1);
        assert_eq!(facts.layers.tiles, 1);
        assert_eq!(
            facts.game_layer,
            Some(GameLayer {
                width: 2,
                height: 2
            })
        );
        assert_eq!(facts.info.unwrap().author.as_deref(), Some("demokit"));
        assert!(facts.loads);
    }

    #[test]
    fn load_checks() {
        let kind = |b: DatafileBuilder| check_load(&b.finish().unwrap()).unwrap_err().kind;
        let mut b = DatafileBuilder::new();
        b.add_item(ITEM_INFO, 0, &[1, -1, -1, -1, -1]).unwrap();
        assert_eq!(kind(b), MapErrorKind::VersionMissing);
        let mut b = DatafileBuilder::new();
        b.add_item(ITEM_VERSION, 0, &[2]).unwrap();
        assert_eq!(kind(b), MapErrorKind::VersionUnsupported { version: 2 });
        let mut b = DatafileBuilder::new();
        b.add_item(ITEM_VERSION, 0, &[1]).unwrap();
        assert_eq!(kind(b), MapErrorKind::GameLayerMissing);
        let mut b = minimal_map_builder(2, 2, "");
        b.add_item(ITEM_GROUP, 1, &group_item(0, 1, "Again"))
            .unwrap();
        assert!(matches!(
            kind(b),
            MapErrorKind::LayerShared { group: 1, layer: 0 }
        ));
        // Too few tiles in the game layer's block.
        let mut b = DatafileBuilder::new();
        let data = b.add_data(&[0; 12]);
        b.add_item(ITEM_VERSION, 0, &[1]).unwrap();
        b.add_item(ITEM_GROUP, 0, &group_item(0, 1, "")).unwrap();
        b.add_item(
            ITEM_LAYER,
            0,
            &tiles_layer_item(2, 2, TILES_GAME, data, "Game"),
        )
        .unwrap();
        assert!(matches!(kind(b), MapErrorKind::GameTiles { .. }));
    }
}
