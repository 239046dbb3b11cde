//! The BSP reader (`demokit::bsp`): a room the tests write themselves, in both
//! lump-directory orders; a real map when one is given; damaged files, which must return
//! errors and never panic.
//!
//! No real Source map could be found under a licence that lets it ship with demokit, so
//! the real-map tests read the file named by `DEMOKIT_BSP` and say that they skipped
//! without it. They were written against snake-biscuits/bsp_tool @ c9f1af4b,
//! `tests/maps/Team Fortress 2/test_displacement_decompile.bsp` (871,964 bytes, a
//! hand-made TF2 test map; its repository's licence is GPL-3.0 today, MIT when the map
//! was added, so it is used locally only), whose counts Valve's own `vbspinfo` printed
//! next to it (`…bsp.info.txt`): 168 planes, 2223 vertices, 4459 edges, 8864 surface
//! edges, 2195 faces, 3 texture infos, 3 displacements and 75 displacement vertices.

use crate::common::bsp::room;
use crate::common::skip::skipped;
use demokit::bsp::{BspErrorKind, LumpOrder, Overview, SurfaceKind, World};

/// The real map named by `DEMOKIT_BSP`, or `None` after noting the skip.
fn real_map() -> Option<Vec<u8>> {
    let Some(path) = std::env::var_os("DEMOKIT_BSP") else {
        skipped("no real BSP map ships with demokit: set DEMOKIT_BSP to a .bsp file");
        return None;
    };
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.to_string_lossy())))
}

#[test]
fn the_room_reads_in_both_lump_orders_and_every_version() {
    for version in [19, 20, 21] {
        for l4d2 in [false, true] {
            let r = room(version, l4d2);
            let world = World::read(&r.bytes).unwrap();
            assert_eq!(world.version, version);
            let order = if l4d2 {
                LumpOrder::Left4Dead2
            } else {
                LumpOrder::Standard
            };
            assert_eq!(world.lump_order, order);
            assert_eq!(world.counts.faces, r.faces);
            assert_eq!(world.counts.planes, r.planes);
            assert_eq!(world.counts.hidden_faces, 1, "the sky face");
            assert_eq!(world.counts.ceilings, 1);
            assert_eq!(world.counts.displacements, 1);
            assert_eq!(world.counts.disp_vertices, 25);
            let walls = world
                .polygons
                .iter()
                .filter(|p| p.kind == SurfaceKind::Wall)
                .count();
            assert_eq!(walls, 4);
            // The floor and the platform, then the displacement as 4 x 4 quads.
            let floors: Vec<_> = world.floors().collect();
            assert_eq!(floors.len(), 2 + 16, "{floors:#?}");
            assert!(
                floors
                    .iter()
                    .any(|p| p.mean_z() == 0.0 && p.points.len() == 4)
            );
            assert!(floors.iter().any(|p| p.mean_z() == 128.0));
            // The displacement's middle vertex is raised by 2 x 28 units.
            let top = floors
                .iter()
                .flat_map(|p| p.points.iter())
                .filter(|p| p[0] == 192.0 && p[1] == 192.0)
                .map(|p| p[2])
                .fold(f32::MIN, f32::max);
            assert_eq!(top, 8.0 + 56.0);
            assert_eq!(world.bounds, [[0.0, 0.0, 0.0], [1024.0, 1024.0, 256.0]]);
        }
    }
}

#[test]
fn other_versions_and_stamps_are_refused_by_name() {
    let mut r = room(20, false).bytes;
    r[4] = 17;
    let e = World::read(&r).unwrap_err();
    assert_eq!(e.offset, 4);
    assert!(matches!(
        e.kind,
        BspErrorKind::UnsupportedVersion { version: 17 }
    ));
    r[0] = b'I';
    assert!(matches!(
        World::read(&r).unwrap_err().kind,
        BspErrorKind::BadMagic { .. }
    ));
}

/// Every prefix of the header and of the file returns an error, never a panic; the
/// header's prefixes are all truncations.
#[test]
fn truncated_files_are_errors() {
    let r = room(20, false).bytes;
    for len in 0..r.len() {
        let result = World::read(&r[..len]);
        let e = result.expect_err("a prefix is not a whole map");
        if (8..=1036).contains(&len) {
            assert!(e.is_truncation(), "{len}: {e}");
        }
    }
}

/// A deterministic stream of byte flips and overwrites over the whole room: each read
/// returns, never panics, and allocates no more than the file could describe.
#[test]
fn corrupted_files_never_panic() {
    let original = room(21, true).bytes;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let mut bytes = original.clone();
        for _ in 0..1 + next() % 8 {
            let at = (next() % bytes.len() as u64) as usize;
            bytes[at] = if next() % 2 == 0 {
                bytes[at] ^ (1 << (next() % 8))
            } else {
                next() as u8
            };
        }
        let _ = World::read(&bytes);
    }
}

#[test]
fn out_of_range_indices_name_the_face() {
    let mut r = room(20, false).bytes;
    // The first face's plane index (faces lump is the fourth lump written).
    let faces_at = i32::from_le_bytes(r[8 + 7 * 16..8 + 7 * 16 + 4].try_into().unwrap()) as usize;
    r[faces_at..faces_at + 2].copy_from_slice(&999u16.to_le_bytes());
    let e = World::read(&r).unwrap_err();
    assert_eq!(e.offset as usize, faces_at);
    assert!(
        matches!(e.kind, BspErrorKind::BadIndex { what: "plane", .. }),
        "{e}"
    );
}

#[test]
fn overview_descriptions_calibrate_the_image() {
    let text = r#"// an overview
"de_example"
{
	"material"	"overviews/de_example"
	"pos_x"		"-2476"
	"pos_y"		"3239"
	"scale"		"4.4"
	"rotate"	"1"
}
"#;
    let o = Overview::parse(text).unwrap();
    assert_eq!(
        (o.pos_x, o.pos_y, o.scale, o.rotate),
        (-2476.0, 3239.0, 4.4, 1.0)
    );
    let (px, py) = o.pixel(-2476.0 + 44.0, 3239.0 - 88.0);
    assert!((px - 10.0).abs() < 1e-9 && (py - 20.0).abs() < 1e-9);
    assert!(Overview::parse("\"x\" { \"pos_x\" \"1\" \"pos_y\" \"2\" }").is_err());
    assert!(Overview::parse("\"pos_x\" \"a\" \"pos_y\" \"2\" \"scale\" \"1\"").is_err());
    assert!(Overview::parse("\"pos_x\" \"1\" \"pos_y\" \"2\" \"scale\" \"0\"").is_err());
    assert!(Overview::parse("\"pos_x").is_err());
}

/// The real map: the counts agree with a reading of the lump directory done here by
/// hand, and, for the map the tests were written against, with Valve's `vbspinfo`.
#[test]
fn a_real_map_agrees_with_its_lump_directory() {
    let Some(bytes) = real_map() else { return };
    let started = std::time::Instant::now();
    let world = World::read(&bytes).unwrap();
    let took = started.elapsed();
    let word = |at: usize| i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let count = |lump: usize, size: i32| {
        let (offset, length) = (word(8 + lump * 16), word(8 + lump * 16 + 4));
        assert!(offset as usize + length as usize <= bytes.len());
        (length / size) as usize
    };
    assert_eq!(world.lump_order, LumpOrder::Standard);
    assert_eq!(world.counts.planes, count(1, 20));
    assert_eq!(world.counts.vertices, count(3, 12));
    assert_eq!(world.counts.texinfos, count(6, 72));
    let faces = if count(7, 56) > 0 {
        count(7, 56)
    } else {
        count(58, 56)
    };
    assert_eq!(world.counts.faces, faces);
    assert_eq!(world.counts.edges, count(12, 4));
    assert_eq!(world.counts.surfedges, count(13, 4));
    assert_eq!(world.counts.displacements, count(26, 176));
    assert_eq!(world.counts.disp_vertices, count(33, 20));
    assert!(world.floors().count() > 0, "a map has somewhere to stand");
    eprintln!(
        "{} bytes: {:?}, {} polygons ({} floors), read in {took:?}",
        bytes.len(),
        world.counts,
        world.polygons.len(),
        world.floors().count()
    );
    if bytes.len() == 871_964 {
        // snake-biscuits/bsp_tool's test_displacement_decompile.bsp, as vbspinfo read it.
        let c = world.counts;
        assert_eq!(
            (c.planes, c.vertices, c.edges, c.surfedges, c.faces),
            (168, 2223, 4459, 8864, 2195)
        );
        assert_eq!((c.texinfos, c.displacements, c.disp_vertices), (3, 3, 75));
    }
    // Every prefix of its header is an error; cuts through its lumps return (an error,
    // or the surfaces when the cut is past the lumps read).
    for len in 0..1036 {
        assert!(World::read(&bytes[..len]).is_err(), "{len}");
    }
    for len in (1036..bytes.len()).step_by(bytes.len() / 64 + 1) {
        let _ = World::read(&bytes[..len]);
    }
}
