//! `demokit validate` against DDNet's verdict, on a corpus of crafted demos.
//!
//! Each case in `fixtures/validate/` is a small demo made here from the library's recorder
//! and datafile writer, named for what is wrong with it; `fixtures/validate/verdicts.json`
//! says for each what DDNet's client (reference commit 28baa427, no local maps, so the
//! embedded map is extracted and loaded, then played to the end) does with it: `plays`,
//! `rejects` or `crashes`, the message it gives, the kind of problem `validate` must
//! report, and why (which DDNet function and check decides). This test rebuilds every file
//! and the manifest and checks the committed bytes (`DEMOKIT_BLESS=1 cargo test --test
//! twdemo_validate_ddnet` writes them anew), then runs `validate` on each file.

use crate::common;

use demokit::codec::huffman::{self, LengthRule};
use demokit::datafile::map::{
    ITEM_GROUP, ITEM_INFO, ITEM_LAYER, ITEM_VERSION, TILES_GAME, group_item, minimal_map,
    minimal_map_builder, tiles_layer_item,
};
use demokit::datafile::{Datafile, DatafileBuilder};
use demokit::twdemo::edit::validate::validate;
use demokit::twdemo::{PayloadEncoder, Recorder, RecorderConfig};
use demokit::validation::{ProblemKind, Verdict};
use serde::{Deserialize, Serialize};
use std::io::Cursor;
use std::path::PathBuf;

/// One crafted demo and DDNet's verdict on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Case {
    /// File name in `fixtures/validate/`.
    file: String,
    /// What DDNet's client does: "plays", "rejects" or "crashes".
    verdict: Verdict,
    /// The kind of the problem `validate` must stop at (for "plays": a warning it must
    /// give, if any).
    kind: Option<ProblemKind>,
    /// What DDNet says (its message, or what it does).
    ddnet: String,
    /// Why: which DDNet function and check decides.
    why: String,
}

const CHUNK_SNAPSHOT: u8 = 1;
const CHUNK_MESSAGE: u8 = 2;
const CHUNK_DELTA: u8 = 3;

/// A data chunk header (shortest size form) and payload.
fn chunk(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let lead = (kind & 3) << 5;
    match payload.len() {
        n if n < 30 => out.push(lead | n as u8),
        n if n < 256 => out.extend([lead | 30, n as u8]),
        n => {
            out.push(lead | 31);
            out.extend((n as u16).to_le_bytes());
        }
    }
    out.extend_from_slice(payload);
    out
}

/// A data chunk holding `ints`, packed and Huffman-coded as DDNet's recorder does.
fn ints(kind: u8, values: &[i32]) -> Vec<u8> {
    chunk(
        kind,
        PayloadEncoder::new().encode(values, LengthRule::Tight),
    )
}

/// A tick marker with an absolute tick (the 5-byte form of every version).
fn tick(t: i32, keyframe: bool) -> Vec<u8> {
    let mut out = vec![0x80 | if keyframe { 0x40 } else { 0 }];
    out.extend(t.to_be_bytes());
    out
}

/// A full snapshot with one flag item (type 5, 3 ints).
fn snapshot(x: i32) -> Vec<u8> {
    ints(CHUNK_SNAPSHOT, &[16, 1, 0, 5 << 16, x, 200, 1])
}

/// A delta moving the flag by `dx` (type 5 has a static size: no size int).
fn delta(dx: i32) -> Vec<u8> {
    ints(CHUNK_DELTA, &[0, 1, 0, 5, 0, dx, 0, 0])
}

/// A chat message (Sv_Chat, "hi").
fn message() -> Vec<u8> {
    chunk(
        CHUNK_MESSAGE,
        PayloadEncoder::new().encode(&[0x0040_0006, 0x6968], LengthRule::Tight),
    )
}

/// The chunks of a demo DDNet plays: a keyframe, a message, two deltas.
fn body() -> Vec<u8> {
    [
        tick(100, true),
        snapshot(100),
        message(),
        tick(101, false),
        delta(1),
        tick(102, false),
        delta(1),
    ]
    .concat()
}

/// The map the cases embed unless they are about the map.
fn good_map() -> Vec<u8> {
    minimal_map(4, 3, "demokit").unwrap()
}

/// Header, blocks and `map` as DDNet's recorder writes them for `version` (3 to 6).
fn prelude_with(version: u8, map_name: &str, map: &[u8], net_version: &str) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet(map_name, "2026-01-01_00-00-00");
    config.version = version;
    config.net_version = net_version.into();
    let rec = Recorder::start(Cursor::new(Vec::new()), &config, map).unwrap();
    rec.finish().unwrap().into_inner()
}

fn prelude(version: u8, map: &[u8]) -> Vec<u8> {
    prelude_with(version, "validate", map, "0.6 626fce9a778df4d4")
}

/// A version-`version` demo of `map` and `chunks`.
fn demo(version: u8, map: &[u8], chunks: &[u8]) -> Vec<u8> {
    [prelude(version, map), chunks.to_vec()].concat()
}

/// The good demo of `version`.
fn good(version: u8) -> Vec<u8> {
    demo(version, &good_map(), &body())
}

const SHA_UUID_OFFSET: usize = 436;

/// A v6 demo with the SHA-256 block removed (the map then starts at 436).
fn without_sha_block(mut v6: Vec<u8>) -> Vec<u8> {
    v6.drain(SHA_UUID_OFFSET..SHA_UUID_OFFSET + 48);
    v6
}

fn put_i32_le(bytes: &mut [u8], at: usize, v: i32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get_i32_le(bytes: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Offsets of a datafile's tables: (item offsets, data offsets, inflated sizes, data start).
fn tables(map: &[u8]) -> (usize, usize, usize, usize) {
    let (types, items, data) = (
        get_i32_le(map, 16) as usize,
        get_i32_le(map, 20) as usize,
        get_i32_le(map, 24) as usize,
    );
    let item_offsets = 36 + 12 * types;
    let data_offsets = item_offsets + 4 * items;
    let sizes = data_offsets + 4 * data;
    let data_start = sizes + 4 * data + get_i32_le(map, 28) as usize;
    (item_offsets, data_offsets, sizes, data_start)
}

/// `map` with `edit` applied to its bytes.
fn edited(map: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut m = map.to_vec();
    edit(&mut m);
    m
}

/// The good map as a version-3 datafile: raw data blocks, no inflated-size table.
fn map_v3() -> Vec<u8> {
    let v4 = good_map();
    let file = Datafile::parse(&v4).unwrap();
    let blocks: Vec<Vec<u8>> = (0..file.num_data())
        .map(|i| file.data(i as i64).unwrap().into_owned())
        .collect();
    let (item_offsets, _, sizes, _) = tables(&v4);
    let item_size = get_i32_le(&v4, 28) as usize;
    let items = &v4[sizes + 4 * blocks.len()..sizes + 4 * blocks.len() + item_size];
    let mut out = v4[..item_offsets + 4 * file.num_items()].to_vec();
    let mut offset = 0;
    for b in &blocks {
        out.extend((offset as i32).to_le_bytes());
        offset += b.len();
    }
    out.extend_from_slice(items);
    let before_data = out.len();
    for b in &blocks {
        out.extend_from_slice(b);
    }
    let len = out.len() as i32;
    put_i32_le(&mut out, 4, 3);
    put_i32_le(&mut out, 8, len - 16);
    put_i32_le(&mut out, 12, before_data as i32 - 16);
    put_i32_le(&mut out, 32, offset as i32);
    out
}

/// A map whose only group holds a game layer built from `layer` with `tiles` as its data.
fn map_with_layer(layer: Vec<i32>, tiles: &[u8]) -> Vec<u8> {
    let mut b = DatafileBuilder::new();
    b.add_data(tiles);
    b.add_item(ITEM_VERSION, 0, &[1]).unwrap();
    b.add_item(ITEM_GROUP, 0, &group_item(0, 1, "Game"))
        .unwrap();
    b.add_item(ITEM_LAYER, 0, &layer).unwrap();
    b.finish().unwrap()
}

/// A map with one 2x2 game layer (zeroed tiles) in a group claiming `group_layers` layers,
/// and a version item saying `version` (none for `None`).
fn game_layer_map(version: Option<i32>, group_layers: i32) -> Vec<u8> {
    let mut b = DatafileBuilder::new();
    let d = b.add_data(&[0; 16]);
    if let Some(version) = version {
        b.add_item(ITEM_VERSION, 0, &[version]).unwrap();
    }
    b.add_item(ITEM_GROUP, 0, &group_item(0, group_layers, ""))
        .unwrap();
    b.add_item(
        ITEM_LAYER,
        0,
        &tiles_layer_item(2, 2, TILES_GAME, d, "Game"),
    )
    .unwrap();
    b.finish().unwrap()
}

struct Corpus(Vec<(Case, Vec<u8>)>);

impl Corpus {
    fn add(
        &mut self,
        file: &str,
        bytes: Vec<u8>,
        verdict: Verdict,
        kind: Option<ProblemKind>,
        ddnet: &str,
        why: &str,
    ) {
        let case = Case {
            file: format!("{file}.demo"),
            verdict,
            kind,
            ddnet: ddnet.into(),
            why: why.into(),
        };
        self.0.push((case, bytes));
    }

    fn plays(&mut self, file: &str, bytes: Vec<u8>, why: &str) {
        self.add(file, bytes, Verdict::Plays, None, "plays to the end", why);
    }

    fn plays_warning(
        &mut self,
        file: &str,
        bytes: Vec<u8>,
        warning: ProblemKind,
        ddnet: &str,
        why: &str,
    ) {
        self.add(file, bytes, Verdict::Plays, Some(warning), ddnet, why);
    }

    fn rejects(&mut self, file: &str, bytes: Vec<u8>, kind: ProblemKind, ddnet: &str, why: &str) {
        self.add(file, bytes, Verdict::Rejects, Some(kind), ddnet, why);
    }

    fn crashes(&mut self, file: &str, bytes: Vec<u8>, kind: ProblemKind, ddnet: &str, why: &str) {
        self.add(file, bytes, Verdict::Crashes, Some(kind), ddnet, why);
    }
}

const NOT_FOUND: &str = "Could not find map 'validate'";

fn corpus() -> Vec<(Case, Vec<u8>)> {
    use ProblemKind as K;
    let mut c = Corpus(Vec::new());
    let map = good_map();

    // Versions and the header.
    for v in 3..=6 {
        c.plays(
            &format!("valid-v{v}"),
            good(v),
            "every check of CDemoPlayer::Load, ExtractMap, LoadMap (CMap::Load) and DoTick passes",
        );
    }
    c.plays(
        "valid-v7-with-sha-block",
        edited(&good(6), |d| d[7] = 7),
        "GetDemoInfo has no upper version bound; version 7 is read like 6",
    );
    c.rejects(
        "bad-magic",
        edited(&good(6), |d| d[5] = b'X'),
        K::Header,
        "Error reading demo header",
        "CDemoHeader::Valid compares the marker with \"TWDEMO\\0\"",
    );
    c.rejects(
        "version-2",
        edited(&good(6), |d| d[7] = 2),
        K::Version,
        "Demo version '2' is not supported",
        "GetDemoInfo refuses versions below gs_OldVersion = 3",
    );
    c.rejects(
        "version-0",
        edited(&good(6), |d| d[7] = 0),
        K::Version,
        "Demo version '0' is not supported",
        "GetDemoInfo refuses versions below 3",
    );
    c.rejects(
        "header-cut",
        good(6)[..100].to_vec(),
        K::Header,
        "Error reading demo header",
        "GetDemoInfo reads the 176-byte header with one io_read, which comes up short",
    );
    c.rejects(
        "net-version-unterminated",
        edited(&good(6), |d| d[8..72].fill(b'a')),
        K::Header,
        "Error reading demo header",
        "CDemoHeader::Valid: mem_has_null fails on the 64-byte net version",
    );
    c.rejects(
        "map-name-not-utf8",
        edited(&good(6), |d| {
            d[72] = 0xff;
            d[73] = 0
        }),
        K::Header,
        "Error reading demo header",
        "CDemoHeader::Valid: str_utf8_check fails on the map name",
    );
    c.rejects(
        "type-unterminated",
        edited(&good(6), |d| d[144..152].fill(b't')),
        K::Header,
        "Error reading demo header",
        "CDemoHeader::Valid: the 8-byte type field has no NUL",
    );
    c.rejects(
        "timestamp-not-utf8",
        edited(&good(6), |d| d[156] = 0xc3),
        K::Header,
        "Error reading demo header",
        "CDemoHeader::Valid: str_utf8_check fails on the timestamp (a lone lead byte)",
    );
    c.rejects(
        "v4-timeline-markers-cut",
        prelude(4, &[])[..300].to_vec(),
        K::TimelineMarkers,
        "Error reading timeline markers",
        "GetDemoInfo reads the 260-byte marker block for versions above 3; the file ends inside it",
    );
    c.plays(
        "v4-timeline-marker-count-garbage",
        edited(&good(4), |d| {
            d[176..180].copy_from_slice(&1000i32.to_be_bytes())
        }),
        "Load clamps the marker count to 0..64; the markers do not affect playback",
    );

    // The SHA-256 block and the map checksums.
    c.rejects(
        "v6-sha256-block-cut",
        good(6)[..SHA_UUID_OFFSET + 26].to_vec(),
        K::Sha256Block,
        "Error reading SHA256",
        "GetDemoInfo found the extension UUID, then could not read the 32-byte digest",
    );
    c.crashes("v6-without-sha256-block", without_sha_block(good(6)), K::Sha256Missing, "assertion \"SHA256 missing for version 6 demo\"", "GetDemoInfo takes the block as optional (\"Demo version incremented, but not by DDNet\"), but CDemoPlayer::ExtractMap dbg_asserts the SHA-256 for versions >= 6");
    c.crashes("v6-sha256-uuid-damaged", edited(&good(6), |d| d[SHA_UUID_OFFSET + 5] ^= 0x40), K::Sha256Missing, "assertion \"SHA256 missing for version 6 demo\"", "a damaged UUID reads as no block, the map size bytes from 436 are extracted, then ExtractMap asserts");
    c.crashes(
        "v7-without-sha256-block",
        edited(&without_sha_block(good(6)), |d| d[7] = 7),
        K::Sha256Missing,
        "assertion \"SHA256 missing for version 7 demo\"",
        "ExtractMap asserts for every version >= 6 without the block",
    );
    c.rejects(
        "v6-without-sha256-block-no-keyframe",
        without_sha_block(demo(
            6,
            &map,
            &[tick(100, false), message(), tick(101, false)].concat(),
        )),
        K::NoKeyframe,
        "Error scanning demo file",
        "Load fails in ScanFile before the map is extracted, so the assertion is never reached",
    );
    c.rejects(
        "v6-without-sha256-block-map-size-0",
        without_sha_block(demo(6, &[], &body())),
        K::MapMissing,
        "Could not find map 'validate'",
        "GetMapData returns nothing for map size 0, so ExtractMap returns before its assertion",
    );
    c.rejects("v6-sha256-mismatch", edited(&good(6), |d| d[SHA_UUID_OFFSET + 16] ^= 1), K::MapChecksum, NOT_FOUND, "LoadMap compares the loaded map's SHA-256 with the header's (\"map differs from the server\"), then LoadMapSearch finds no other map");
    c.plays_warning(
        "v6-crc-mismatch-sha256-matches",
        edited(&good(6), |d| d[140] ^= 0xff),
        K::MapChecksum,
        "plays (the CRC is never compared)",
        "LoadMap only checks the CRC when no SHA-256 is wanted",
    );
    for v in 3..=5 {
        c.plays_warning(&format!("v{v}-crc-mismatch"), edited(&good(v), |d| d[140] ^= 0xff), K::MapChecksum, "plays from the embedded map", "ExtractMap hashes the embedded map and sets the wanted SHA-256 to it, so LoadMap never compares the CRC");
    }
    c.rejects("v5-map-size-0", demo(5, &[], &body()), K::MapMissing, NOT_FOUND, "GetMapData returns nothing for map size 0: ExtractMap fails and DemoPlayer_Play gives LoadMapSearch's error");
    c.rejects(
        "v6-map-size-0",
        demo(6, &[], &body()),
        K::MapMissing,
        NOT_FOUND,
        "as for v5: no map bytes to extract",
    );
    c.rejects("map-past-end", edited(&good(6), |d| d[136..140].copy_from_slice(&0x0010_0000u32.to_be_bytes())), K::NoKeyframe, "Error scanning demo file", "Load skips the map with a seek that cannot fail; ScanFile starts past the end and finds no keyframe");
    c.rejects("map-name-with-folder", [prelude_with(6, "maps/validate", &map, "0.6 626fce9a778df4d4"), body()].concat(), K::MapMissing, "Could not find map 'maps/validate'", "ExtractMap cannot open downloadedmaps/maps/validate_<sha256>.map for writing: the folder does not exist");
    c.rejects(
        "map-name-leaves-folder",
        [
            prelude_with(6, "../validate", &map, "0.6 626fce9a778df4d4"),
            body(),
        ]
        .concat(),
        K::MapMissing,
        "Could not find map '../validate'",
        "IStorage::OpenFile refuses paths containing \"../\"",
    );
    c.plays(
        "map-name-dot-folder",
        [
            prelude_with(6, "./validate", &map, "0.6 626fce9a778df4d4"),
            body(),
        ]
        .concat(),
        "downloadedmaps/./validate_<sha256>.map is an ordinary path",
    );

    // The embedded map as DDNet's datafile reader and CMap::Load check it.
    let map_rejects = |c: &mut Corpus, name: &str, m: Vec<u8>, why: &str| {
        c.rejects(name, demo(6, &m, &body()), K::MapLoad, NOT_FOUND, why);
    };
    map_rejects(
        &mut c,
        "map-not-a-datafile",
        b"MAPDATA!".to_vec(),
        "CDataFileReader::Open cannot read the 36-byte header",
    );
    map_rejects(
        &mut c,
        "map-datafile-truncated",
        map[..map.len() - 5].to_vec(),
        "CDataFileReader::Open: the header's counts no longer add up to the file size",
    );
    map_rejects(
        &mut c,
        "map-datafile-bad-magic",
        edited(&map, |m| m[0] = b'X'),
        "CDataFileReader::Open: wrong header magic",
    );
    map_rejects(
        &mut c,
        "map-datafile-version-5",
        edited(&map, |m| put_i32_le(m, 4, 5)),
        "CDataFileReader::Open: only versions 3 and 4",
    );
    map_rejects(
        &mut c,
        "map-datafile-header-size-wrong",
        edited(&map, |m| {
            let v = get_i32_le(m, 8);
            put_i32_le(m, 8, v + 4)
        }),
        "CDataFileReader::Open: invalid header size",
    );
    map_rejects(
        &mut c,
        "map-item-offset-out-of-bounds",
        edited(&map, |m| {
            let (items, ..) = tables(m);
            put_i32_le(m, items + 4, 100_000)
        }),
        "CDatafile::Validate: an item offset past the item data",
    );
    map_rejects(
        &mut c,
        "map-data-offset-out-of-bounds",
        edited(&map, |m| {
            let (_, data, ..) = tables(m);
            put_i32_le(m, data + 4, 100_000)
        }),
        "CDatafile::Validate: a data offset past the data",
    );
    map_rejects(
        &mut c,
        "map-data-size-negative",
        edited(&map, |m| {
            let (_, _, sizes, _) = tables(m);
            put_i32_le(m, sizes + 4, -1)
        }),
        "CDatafile::Validate: a negative inflated size",
    );
    map_rejects(
        &mut c,
        "map-game-data-does-not-inflate",
        edited(&map, |m| {
            let (_, data, _, start) = tables(m);
            let end = start + get_i32_le(m, data + 4) as usize;
            m[end - 1] ^= 0xff
        }),
        "GetData: zlib's uncompress fails on the game layer's block (its Adler-32 is damaged), so CMap::Load's GetData of the game layer gives nothing",
    );
    map_rejects(
        &mut c,
        "map-game-data-wrong-size",
        edited(&map, |m| {
            let (_, _, sizes, _) = tables(m);
            let v = get_i32_le(m, sizes);
            put_i32_le(m, sizes, v + 4)
        }),
        "GetData: the block inflates to fewer bytes than its declared size",
    );
    map_rejects(
        &mut c,
        "map-game-data-size-0",
        edited(&map, |m| {
            let (_, _, sizes, _) = tables(m);
            put_i32_le(m, sizes, 0)
        }),
        "GetData refuses a block of inflated size 0 (Open only warns)",
    );
    map_rejects(
        &mut c,
        "map-no-version-item",
        game_layer_map(None, 1),
        "CMap::ValidateMapVersion: no item of type 0 with id 0",
    );
    map_rejects(
        &mut c,
        "map-version-2",
        game_layer_map(Some(2), 1),
        "CMap::ValidateMapVersion: the version item must say 1",
    );
    map_rejects(
        &mut c,
        "map-no-game-layer",
        map_with_layer(tiles_layer_item(2, 2, 0, 0, "Tiles"), &[0; 16]),
        "CMap::Load: \"Game layer is missing\"",
    );
    map_rejects(
        &mut c,
        "map-game-layer-1x1",
        map_with_layer(tiles_layer_item(1, 1, TILES_GAME, 0, "Game"), &[0; 4]),
        "EnsureTileLayerProperties: width and height must be at least 2",
    );
    map_rejects(
        &mut c,
        "map-group-layer-range-out-of-bounds",
        game_layer_map(Some(1), 2),
        "CMap::Load: a group uses layers past the last one",
    );
    map_rejects(
        &mut c,
        "map-two-groups-share-a-layer",
        {
            let mut b = minimal_map_builder(2, 2, "");
            b.add_item(ITEM_GROUP, 1, &group_item(0, 1, "")).unwrap();
            b.finish().unwrap()
        },
        "CMap::Load: a layer used by two groups",
    );
    map_rejects(
        &mut c,
        "map-game-tiles-truncated",
        map_with_layer(tiles_layer_item(4, 4, TILES_GAME, 0, "Game"), &[0; 40]),
        "the game layer's data processor: fewer tiles than width x height",
    );
    map_rejects(
        &mut c,
        "map-game-tile-padding-nonzero",
        map_with_layer(
            tiles_layer_item(2, 2, TILES_GAME, 0, "Game"),
            &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        ),
        "the game layer's data processor: a tile's padding byte must be 0",
    );
    map_rejects(
        &mut c,
        "map-game-layer-data-index-missing",
        map_with_layer(tiles_layer_item(2, 2, TILES_GAME, 5, "Game"), &[0; 16]),
        "ValidateAndUnpackTilesLayerData: the data index names no block",
    );
    map_rejects(
        &mut c,
        "map-tiles-layer-truncated",
        map_with_layer(
            tiles_layer_item(2, 2, TILES_GAME, 0, "Game")[..10].to_vec(),
            &[0; 16],
        ),
        "UpgradeAndValidateTilesLayerItem: a tiles layer item shorter than 60 bytes",
    );
    c.plays(
        "map-datafile-v3",
        demo(6, &map_v3(), &body()),
        "CDataFileReader::Open reads version 3 (raw data blocks)",
    );
    c.plays(
        "map-datafile-magic-atad",
        {
            let m = edited(&map, |m| m[..4].copy_from_slice(b"ATAD"));
            demo(6, &m, &body())
        },
        "CDataFileReader::Open accepts both \"DATA\" and \"ATAD\"",
    );
    c.plays("map-old-writer-size-fields", { let m = edited(&map, |m| { let d = 4 * get_i32_le(m, 24); let s = get_i32_le(m, 8); put_i32_le(m, 8, s - d); let w = get_i32_le(m, 12); put_i32_le(m, 12, w - d) }); demo(6, &m, &body()) }, "CDataFileReader::Open forgives size and swaplen without the inflated-size table (old version-4 writers)");
    let with_extra = |edit: fn(&mut Vec<u8>)| {
        let mut b = minimal_map_builder(4, 3, "demokit");
        b.add_data(&[9; 64]);
        edited(&b.finish().unwrap(), edit)
    };
    c.plays(
        "map-unused-data-does-not-inflate",
        demo(
            6,
            &with_extra(|m| {
                let n = m.len();
                m[n - 1] ^= 0xff
            }),
            &body(),
        ),
        "GetData is lazy: only the game layer's block is loaded by CMap::Load",
    );
    c.plays(
        "map-unused-data-size-0",
        demo(
            6,
            &with_extra(|m| {
                let (_, _, sizes, _) = tables(m);
                put_i32_le(m, sizes + 8, 0)
            }),
            &body(),
        ),
        "Validate only warns about inflated size 0; the block is never loaded",
    );
    c.plays(
        "map-with-extra-info-item",
        {
            let mut b = minimal_map_builder(3, 3, "x");
            b.add_item(ITEM_INFO, 1, &[1, -1, -1, -1, -1]).unwrap();
            demo(6, &b.finish().unwrap(), &body())
        },
        "items CMap::Load does not look at are left alone",
    );

    // Tick markers and chunk headers.
    c.rejects(
        "no-keyframe",
        demo(
            6,
            &map,
            &[tick(100, false), message(), tick(101, false), message()].concat(),
        ),
        K::NoKeyframe,
        "Error scanning demo file",
        "ScanFile reached the end without a keyframe tick marker",
    );
    c.rejects(
        "tick-markers-0",
        demo(6, &map, &[message(), message()].concat()),
        K::NoKeyframe,
        "Error scanning demo file",
        "no tick marker at all, so no keyframe",
    );
    c.rejects(
        "tick-markers-1",
        demo(
            6,
            &map,
            &[tick(100, true), snapshot(100), message()].concat(),
        ),
        K::EmptyDemo,
        "Empty demo",
        "DoTick reaches the end while the previous tick is still -1: Play needs two tick markers",
    );
    c.plays(
        "tick-markers-2",
        demo(
            6,
            &map,
            &[tick(100, true), snapshot(100), tick(101, false)].concat(),
        ),
        "two tick markers are enough for Play",
    );
    c.plays(
        "keyframe-without-snapshot",
        demo(
            6,
            &map,
            &[tick(100, true), message(), tick(101, false), message()].concat(),
        ),
        "ScanFile only looks at the keyframe bit; playback needs no snapshot unless a delta comes",
    );
    c.plays(
        "v3-legacy-tick-deltas",
        demo(
            3,
            &map,
            &[
                tick(100, true),
                snapshot(100),
                vec![0x81],
                delta(1),
                vec![0x82],
                delta(1),
            ]
            .concat(),
        ),
        "versions below 5 add the low 6 bits of a tick marker",
    );
    c.plays(
        "v5-compressed-tick-delta-0",
        demo(
            5,
            &map,
            &[
                tick(100, true),
                snapshot(100),
                vec![0xa0],
                vec![0xa1],
                delta(1),
            ]
            .concat(),
        ),
        "a compressed delta of 0 is legal",
    );
    c.rejects("relative-tick-before-absolute", demo(6, &map, &[vec![0xa1], tick(100, true), snapshot(100), tick(101, false)].concat()), K::ChunkHeader, "Error reading chunk header", "ReadChunkHeader refuses a tick delta before any tick; ScanFile forgives it (keyframes or not), DoTick stops");
    c.rejects(
        "tick-out-of-range",
        demo(6, &map, &[body(), tick(0x7000_0000, false)].concat()),
        K::ChunkHeader,
        "Error reading chunk header",
        "ReadChunkHeader: ticks must lie in [0, 0x6FFFFFFF)",
    );
    c.rejects(
        "tick-marker-cut",
        [good(6), vec![0x80, 0, 0]].concat(),
        K::ChunkHeader,
        "Error reading chunk header",
        "ReadChunkHeader cannot read the 4-byte tick",
    );
    c.rejects(
        "size-escape-cut",
        [good(6), vec![0x5f, 0x10]].concat(),
        K::ChunkHeader,
        "Error reading chunk header",
        "ReadChunkHeader cannot read the 2-byte size of escape 31",
    );
    c.plays(
        "size-escape-30",
        demo(
            6,
            &map,
            &[body(), {
                let payload = PayloadEncoder::new()
                    .encode(&[7; 40], LengthRule::Tight)
                    .to_vec();
                assert!((30..256).contains(&payload.len()));
                chunk(CHUNK_MESSAGE, &payload)
            }]
            .concat(),
        ),
        "a one-byte size after escape 30",
    );
    c.plays(
        "size-escape-31",
        demo(
            6,
            &map,
            &[body(), {
                let values: Vec<i32> = (0..300).map(|i| i * 1_000_003).collect();
                let payload = PayloadEncoder::new()
                    .encode(&values, LengthRule::Tight)
                    .to_vec();
                assert!(payload.len() >= 256);
                chunk(CHUNK_MESSAGE, &payload)
            }]
            .concat(),
        ),
        "a little-endian two-byte size after escape 31",
    );
    c.rejects(
        "chunk-data-cut",
        {
            let g = good(6);
            g[..g.len() - 2].to_vec()
        },
        K::ChunkData,
        "Error reading chunk data",
        "DoTick's io_read of the payload comes up short (ScanFile skipped it with a seek)",
    );
    c.plays(
        "message-before-first-tick",
        demo(6, &map, &[message(), body()].concat()),
        "chunks before the first tick marker are played in the first DoTick",
    );

    // Payload decoding.
    c.rejects(
        "huffman-failure",
        demo(
            6,
            &map,
            &[body(), chunk(CHUNK_MESSAGE, &[0xff; 8])].concat(),
        ),
        K::Huffman,
        "Error during network decompression",
        "CNetBase::Decompress: the bits never reach the Huffman EOF code",
    );
    c.rejects(
        "intpack-failure",
        demo(
            6,
            &map,
            &[body(), {
                let mut out = Vec::new();
                huffman::compress(&[0x80], LengthRule::Tight, &mut out);
                chunk(CHUNK_MESSAGE, &out)
            }]
            .concat(),
        ),
        K::IntPack,
        "Error during intpack decompression",
        "CVariableInt::Decompress: the last int's continuation bit runs past the data",
    );
    c.plays(
        "zero-size-message",
        demo(6, &map, &[body(), chunk(CHUNK_MESSAGE, &[])].concat()),
        "DoTick does not decompress a chunk of size 0; an empty message is ignored",
    );
    c.plays("zero-size-snapshot", demo(6, &map, &[body(), chunk(CHUNK_SNAPSHOT, &[]), tick(103, false), delta(1)].concat()), "an empty full snapshot fails IsValid and is only logged; the next delta applies to the last valid one");
    c.plays(
        "zero-size-delta",
        demo(6, &map, &[body(), chunk(CHUNK_DELTA, &[])].concat()),
        "an empty delta fails to unpack and is only logged",
    );
    c.rejects(
        "zero-size-delta-first",
        demo(
            6,
            &map,
            &[tick(100, true), chunk(CHUNK_DELTA, &[]), tick(101, false)].concat(),
        ),
        K::DeltaBeforeSnapshot,
        "Delta snapshot before any full snapshot",
        "the delta check does not depend on the chunk size",
    );
    c.plays(
        "zero-size-unknown-chunk",
        demo(6, &map, &[body(), chunk(0, &[])].concat()),
        "a type-0 chunk of size 0 is neither decoded nor used",
    );
    c.plays_warning(
        "unknown-chunk-with-payload",
        demo(6, &map, &[body(), ints(0, &[1, 2, 3])].concat()),
        K::UnknownChunk,
        "plays (the chunk is decoded and ignored)",
        "DoTick decompresses every chunk with a size, then ignores type 0",
    );
    c.rejects(
        "unknown-chunk-huffman-failure",
        demo(6, &map, &[body(), chunk(0, &[0xff; 8])].concat()),
        K::Huffman,
        "Error during network decompression",
        "a type-0 chunk with a size is decompressed like any other",
    );

    // Snapshots and deltas.
    c.rejects(
        "delta-before-keyframe",
        demo(
            6,
            &map,
            &[tick(100, true), delta(1), tick(101, false)].concat(),
        ),
        K::DeltaBeforeSnapshot,
        "Delta snapshot before any full snapshot",
        "DoTick: no full snapshot stored yet",
    );
    c.rejects("invalid-snapshot-negative-item-count-then-delta", demo(6, &map, &[tick(100, true), ints(CHUNK_SNAPSHOT, &[0, -1]), tick(101, false), delta(1)].concat()), K::DeltaBeforeSnapshot, "Delta snapshot before any full snapshot", "CSnapshot::IsValid fails (negative item count), the snapshot is dropped, so the delta has none");
    c.rejects(
        "invalid-snapshot-bad-offset-then-delta",
        demo(
            6,
            &map,
            &[
                tick(100, true),
                ints(CHUNK_SNAPSHOT, &[16, 1, 2, 5 << 16, 1, 2, 3]),
                tick(101, false),
                delta(1),
            ]
            .concat(),
        ),
        K::DeltaBeforeSnapshot,
        "Delta snapshot before any full snapshot",
        "CSnapshot::IsValid fails (an offset not 4-aligned)",
    );
    c.rejects(
        "invalid-snapshot-size-mismatch-then-delta",
        demo(
            6,
            &map,
            &[
                tick(100, true),
                ints(CHUNK_SNAPSHOT, &[20, 1, 0, 5 << 16, 1, 2, 3]),
                tick(101, false),
                delta(1),
            ]
            .concat(),
        ),
        K::DeltaBeforeSnapshot,
        "Delta snapshot before any full snapshot",
        "CSnapshot::IsValid fails (data size does not add up)",
    );
    c.plays_warning(
        "invalid-snapshot-after-valid-one",
        demo(
            6,
            &map,
            &[
                body(),
                tick(103, true),
                ints(CHUNK_SNAPSHOT, &[0, -1]),
                tick(104, false),
                delta(1),
            ]
            .concat(),
        ),
        K::SnapshotInvalid,
        "plays (\"Snapshot invalid\" is logged)",
        "the invalid snapshot is skipped; the delta applies to the last valid one",
    );
    c.crashes("negative-item-type-then-delta", demo(6, &map, &[tick(100, true), ints(CHUNK_SNAPSHOT, &[16, 1, 0, -65536, 1, 2, 3]), tick(101, false), ints(CHUNK_DELTA, &[0, 0, 0])].concat()), K::NegativeItemType, "assertion \"Invalid snap item Type: -1\"", "IsValid does not look at keys; UnpackDelta keeps the item and CSnapshotBuilder::NewItemRaw dbg_asserts on its negative type");
    c.plays("negative-item-type-deleted-by-delta", demo(6, &map, &[tick(100, true), ints(CHUNK_SNAPSHOT, &[16, 1, 0, -65536, 1, 2, 3]), tick(101, false), ints(CHUNK_DELTA, &[1, 0, 0, -65536])].concat()), "the delta deletes the item, so UnpackDelta never adds it; the client itself skips negative types");
    c.plays("negative-item-type-without-delta", demo(6, &map, &[tick(100, true), ints(CHUNK_SNAPSHOT, &[16, 1, 0, -65536, 1, 2, 3]), tick(101, false), message()].concat()), "the client's UnpackAndValidateSnapshot skips items of negative type; no delta ever keeps it");
    c.plays_warning(
        "delta-bad-item-type",
        demo(
            6,
            &map,
            &[
                body(),
                tick(103, false),
                ints(CHUNK_DELTA, &[0, 1, 0, -5, 0, 1]),
            ]
            .concat(),
        ),
        K::DeltaFailed,
        "plays (\"Error unpacking snapshot delta\" is logged)",
        "UnpackDelta returns -202, which DoTick only logs",
    );
    c.plays_warning(
        "delta-size-differs-from-old-item",
        demo(
            6,
            &map,
            &[
                tick(100, true),
                ints(CHUNK_SNAPSHOT, &[12, 1, 0, 30 << 16, 1, 2]),
                tick(101, false),
                ints(CHUNK_DELTA, &[0, 1, 0, 30, 0, 3, 1, 1, 1]),
            ]
            .concat(),
        ),
        K::DeltaFailed,
        "plays (the delta is logged and skipped)",
        "UnpackDelta returns -207: the update's size differs from the old item's",
    );
    c.plays_warning(
        "delta-deleted-keys-past-end",
        demo(
            6,
            &map,
            &[body(), tick(103, false), ints(CHUNK_DELTA, &[5, 0, 0, 1])].concat(),
        ),
        K::DeltaFailed,
        "plays (the delta is logged and skipped)",
        "UnpackDelta returns -101",
    );
    c.plays(
        "sixup-net-version",
        [
            prelude_with(6, "validate", &map, "0.7 802f1be60a05665f"),
            body(),
        ]
        .concat(),
        "a 0.7 (sixup) demo plays with the 0.7 item sizes (the flag is 3 ints in both)",
    );
    // A 0.7 header over a 0.6 snapshot: the 0.6 game info (type 6, 8 ints) is no 0.7
    // object of that type (GameData, 3 ints). The client's 0.7 path (TranslateSnap, from
    // CClient::OnDemoPlayerSnapshot) marks it invalid (key -1) in the buffer the player
    // handed over; for a delta's result and for a replayed snapshot that is the player's
    // own last snapshot, the base of the next delta.
    let sixup = |chunks: &[Vec<u8>]| {
        [
            prelude_with(6, "validate", &map, "0.7 802f1be60a05665f"),
            chunks.concat(),
        ]
        .concat()
    };
    let six_snapshot = ints(
        CHUNK_SNAPSHOT,
        &[
            52,
            2,
            0,
            36,
            6 << 16,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            5 << 16,
            100,
            200,
            1,
        ],
    );
    let crash = "assertion \"Invalid snap item Type: -1\"";
    c.crashes(
        "sixup-invalid-item-then-two-deltas",
        sixup(&[tick(100, true), six_snapshot.clone(), tick(101, false), delta(1), tick(102, false), delta(1)]),
        K::NegativeItemType,
        crash,
        "the first delta's result is translated in the player's own buffer (m_Snapshot, then copied to m_LastSnapshotData) with the type-6 item marked -1; the second delta keeps it and CSnapshotBuilder::NewItemRaw dbg_asserts",
    );
    c.plays(
        "sixup-invalid-item-then-one-delta",
        sixup(&[
            tick(100, true),
            six_snapshot.clone(),
            tick(101, false),
            delta(1),
            tick(102, false),
        ]),
        "the marked item would crash the next delta, but none comes",
    );
    c.plays(
        "sixup-invalid-item-keyframes-only",
        sixup(&[tick(100, true), six_snapshot.clone(), tick(101, true), six_snapshot.clone(), tick(102, true), six_snapshot.clone()]),
        "a full snapshot is translated in the chunk's buffer after DoTick copied it to m_LastSnapshotData: no delta ever sees the mark",
    );
    c.crashes(
        "sixup-invalid-item-replayed-then-delta",
        sixup(&[tick(100, true), six_snapshot.clone(), tick(101, false), message(), tick(102, false), delta(1)]),
        K::NegativeItemType,
        crash,
        "tick 101 has no snapshot, so its message makes DoTick replay m_LastSnapshotData itself, which the translation marks; the delta of tick 102 keeps the mark",
    );
    c.plays(
        "sixup-invalid-item-deleted-by-delta",
        sixup(&[
            tick(100, true),
            six_snapshot,
            tick(101, false),
            delta(1),
            tick(102, false),
            ints(CHUNK_DELTA, &[1, 1, 0, -1, 5, 0, 1, 0, 0]),
        ]),
        "the second delta lists key -1 as deleted, so UnpackDelta does not keep the marked item",
    );
    c.0
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/validate")
}

fn manifest_text(cases: &[Case]) -> String {
    serde_json::to_string_pretty(cases).unwrap() + "\n"
}

#[test]
fn committed_corpus_is_what_the_code_makes() {
    let corpus = corpus();
    let bless = std::env::var("DEMOKIT_BLESS").is_ok_and(|v| v == "1");
    let dir = dir();
    let mut names = std::collections::BTreeSet::new();
    for (case, _) in &corpus {
        assert!(
            names.insert(case.file.clone()),
            "{} is made twice",
            case.file
        );
    }
    let cases: Vec<Case> = corpus.iter().map(|(c, _)| c.clone()).collect();
    let manifest = manifest_text(&cases);
    if bless {
        std::fs::create_dir_all(&dir).unwrap();
        for (case, bytes) in &corpus {
            std::fs::write(dir.join(&case.file), bytes).unwrap();
        }
        std::fs::write(dir.join("verdicts.json"), &manifest).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if name != "verdicts.json" && !names.contains(&name) {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
    }
    for (case, bytes) in &corpus {
        let path = dir.join(&case.file);
        let committed = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (DEMOKIT_BLESS=1 makes it)", path.display()));
        assert!(
            committed == *bytes,
            "{} differs from what the code makes now",
            case.file
        );
    }
    let committed = std::fs::read_to_string(dir.join("verdicts.json")).unwrap();
    assert_eq!(
        committed, manifest,
        "verdicts.json differs from the cases in this file"
    );
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            name == "verdicts.json" || names.contains(&name),
            "stray file {name}"
        );
    }
}

/// The manifest as committed: every file it names, with DDNet's verdict.
fn committed_cases() -> Vec<Case> {
    let text = std::fs::read_to_string(dir().join("verdicts.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn corpus_has_at_least_60_cases_of_every_verdict() {
    let cases = committed_cases();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    for verdict in [Verdict::Plays, Verdict::Rejects, Verdict::Crashes] {
        assert!(
            cases.iter().any(|c| c.verdict == verdict),
            "no {verdict:?} case"
        );
    }
    for c in &cases {
        assert!(!c.why.is_empty() && !c.ddnet.is_empty(), "{}", c.file);
        if c.verdict != Verdict::Plays {
            assert!(c.kind.is_some(), "{}: a refusal names its kind", c.file);
        }
    }
}

#[test]
fn validate_gives_ddnets_verdict_on_every_case() {
    let mut wrong = Vec::new();
    for case in committed_cases() {
        let data = std::fs::read(dir().join(&case.file)).unwrap();
        let report = validate(&data);
        let fatal = report.first_fatal().map(|p| p.kind);
        let ok = report.verdict() == case.verdict
            && match case.verdict {
                Verdict::Plays => case
                    .kind
                    .is_none_or(|k| report.problems.iter().any(|p| p.kind == k)),
                _ => fatal == case.kind,
            };
        if !ok {
            wrong.push(format!(
                "{}: expected {:?} {:?}, validate says {:?} {:?}: {:?}",
                case.file,
                case.verdict,
                case.kind,
                report.verdict(),
                fatal,
                report.problems
            ));
        }
        // A crash is always named as one.
        if case.verdict == Verdict::Crashes {
            let message = &report.first_fatal().unwrap().message;
            assert!(
                message.contains("DDNet would crash"),
                "{}: {message}",
                case.file
            );
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Every real recording is playable, and `validate` says so with no fatal problem.
#[test]
fn real_demos_play() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in common::twdemo_facts(&shared) {
        let data = std::fs::read(&path).unwrap();
        let report = validate(&data);
        assert_eq!(
            report.verdict(),
            Verdict::Plays,
            "{}: {:?}",
            path.display(),
            report.problems
        );
    }
}

/// A snapshot of `items` (type, id, data).
fn snapshot_of(items: &[(i32, i32, Vec<i32>)]) -> demokit::twdemo::snapshot::SnapshotBuf {
    let mut builder = demokit::twdemo::snapshot::SnapshotBuilder::new();
    for (type_id, id, data) in items {
        builder.add_item(*type_id, *id, data).unwrap();
    }
    builder.finish()
}

/// A demo recorded with `net_version` in its header from 0.6 / DDNet snapshots: a player
/// (0.6 `PlayerInfo`, `ClientInfo` and `Character`, which the 0.7 protocol numbers as
/// other objects of other sizes) standing still while a flag (3 ints in both protocols, so
/// the deltas read alike) moves for `ticks` ticks.
fn recorded_six_snapshots(net_version: &str, ticks: i32) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet("validate", "2026-01-01_00-00-00");
    config.net_version = net_version.into();
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, &good_map()).unwrap();
    let mut character = vec![0; 22];
    character[0] = 100;
    for t in 0..ticks {
        let snapshot = snapshot_of(&[
            (10, 0, vec![1, 0, 0, 0, 0]),
            (11, 0, vec![0; 17]),
            (9, 0, character.clone()),
            (5, 0, vec![32 * t, 200, 1]),
        ]);
        rec.record_snapshot(100 + t, snapshot.as_snapshot())
            .unwrap();
    }
    rec.finish().unwrap().into_inner()
}

/// A demo whose header says 0.7 but whose snapshots are 0.6 ones: DDNet's client takes the
/// 0.7 path, marks every item that fails 0.7 validation invalid in the player's own
/// snapshot, and asserts at the delta after next ("Invalid snap item Type: -1"). The same
/// snapshots under a 0.6 header play.
#[test]
fn a_sixup_header_over_six_snapshots_does_not_play() {
    let seven = recorded_six_snapshots("0.7 802f1be60a05665f", 4);
    let report = validate(&seven);
    assert_eq!(report.verdict(), Verdict::Crashes, "{:?}", report.problems);
    let fatal = report.first_fatal().unwrap();
    assert_eq!(fatal.kind, ProblemKind::NegativeItemType);
    assert!(
        fatal.message.contains("0.7 translation"),
        "{}",
        fatal.message
    );
    assert!(
        fatal.message.contains("DDNet would crash"),
        "{}",
        fatal.message
    );

    let six = recorded_six_snapshots("0.6 626fce9a778df4d4", 4);
    let report = validate(&six);
    assert_eq!(report.verdict(), Verdict::Plays, "{:?}", report.problems);
}

/// The real 0.7 recordings (a vanilla 0.7.5 client's and a DDNet client's on a 0.7
/// server) play on the 0.7 path: every item of theirs passes 0.7 validation.
#[test]
fn real_sixup_demos_play_on_the_sixup_path() {
    // Neither ships with the repository (their licence is unknown).
    let Some(shared) = common::full_corpus() else {
        common::skip::skipped(common::NOT_BUNDLED);
        return;
    };
    let mut seen = 0;
    for (path, _) in common::twdemo_facts(&shared) {
        let data = std::fs::read(&path).unwrap();
        let demo = demokit::twdemo::DemoSlice::parse(&data).unwrap();
        if !demo
            .prelude()
            .header
            .net_version
            .text_bytes()
            .starts_with(b"0.7")
        {
            continue;
        }
        seen += 1;
        let report = validate(&data);
        assert_eq!(
            report.verdict(),
            Verdict::Plays,
            "{}: {:?}",
            path.display(),
            report.problems
        );
    }
    common::check_total("the two 0.7 recordings of real-fixtures/twdemo", seen, 2);
}
