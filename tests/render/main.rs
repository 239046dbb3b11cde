//! Pictures of games (`demokit::render`), tested as a person would look at them: the PNG
//! is decoded and its pixels checked where the map and the positions say they are (a
//! solid tile in the solid colour, a player's positions in the player's colour), not only
//! that an image was written.

#[path = "../common/mod.rs"]
mod common;

mod attack;
mod bsp;
mod page;

use demokit::datafile::physics_layers;
use demokit::recording::{Error, MapProblem, Recording};
use demokit::render::{ImageFormat, RenderOptions, Rgb, Scene, TileKind};
use demokit::twdemo::DemoSlice;
use demokit::twdemo::game::GameReplay;
use std::path::PathBuf;

/// A decoded RGBA image.
struct Image {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Image {
    fn decode(png_bytes: &[u8]) -> Image {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().expect("a PNG header");
        let mut rgba = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut rgba).expect("a PNG frame");
        assert_eq!(info.color_type, png::ColorType::Rgba);
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        rgba.truncate(info.buffer_size());
        Image {
            width: info.width,
            height: info.height,
            rgba,
        }
    }

    /// The colour at a canvas position, `None` outside.
    fn at(&self, x: f64, y: f64) -> Option<Rgb> {
        if x < 0.0 || y < 0.0 || x >= self.width as f64 || y >= self.height as f64 {
            return None;
        }
        let i = ((y as u32 * self.width + x as u32) * 4) as usize;
        let p = &self.rgba[i..i + 4];
        assert_eq!(p[3], 255, "the picture is opaque");
        Some([p[0], p[1], p[2]])
    }
}

fn real(dir: &str, name: &str) -> Option<PathBuf> {
    let path = common::shared_dir()?
        .join("real-fixtures")
        .join(dir)
        .join(name);
    assert!(path.is_file(), "{} is missing", path.display());
    Some(path)
}

/// Whether a world position is inside the scene's map area (not under the bands).
fn inside(scene: &Scene, x: f64, y: f64) -> bool {
    let (px, py) = scene.project(x, y);
    let [ax, ay, aw, ah] = scene.map_area();
    px >= ax + 1.0 && py >= ay + 1.0 && px < ax + aw - 1.0 && py < ay + ah - 1.0
}

/// Checks that every tile of the map deep inside solid ground (it and its eight
/// neighbours solid, so no path or mark reaches its centre) is drawn in the solid colour
/// at its centre; returns how many were checked.
fn check_solid_tiles(scene: &Scene, image: &Image, map: &[u8]) -> usize {
    let layers = physics_layers(map).expect("the map loads");
    let game = &layers.game;
    let solid = |x: usize, y: usize| TileKind::of_index(game.kind(x, y)) == Some(TileKind::Solid);
    let mut checked = 0;
    for y in 1..game.height - 1 {
        for x in 1..game.width - 1 {
            let deep = (y - 1..=y + 1).all(|ny| (x - 1..=x + 1).all(|nx| solid(nx, ny)));
            let (cx, cy) = (x as f64 * 32.0 + 16.0, y as f64 * 32.0 + 16.0);
            if !deep || !inside(scene, cx, cy) {
                continue;
            }
            let (px, py) = scene.project(cx, cy);
            assert_eq!(
                image.at(px, py),
                Some(TileKind::Solid.color()),
                "tile ({x}, {y}) is solid, drawn at ({px:.0}, {py:.0})"
            );
            checked += 1;
        }
    }
    checked
}

/// The share of `positions` whose pixel has exactly `color`.
fn share_in_color(scene: &Scene, image: &Image, positions: &[(f64, f64)], color: Rgb) -> f64 {
    let inside: Vec<_> = positions
        .iter()
        .filter(|&&(x, y)| inside(scene, x, y))
        .collect();
    assert!(!inside.is_empty(), "no position inside the picture");
    let hits = inside
        .iter()
        .filter(|&&&(x, y)| {
            let (px, py) = scene.project(x, y);
            image.at(px, py) == Some(color)
        })
        .count();
    hits as f64 / inside.len() as f64
}

#[test]
fn demo_with_embedded_map_draws_solid_tiles_and_paths() {
    let Some(path) = real("twdemo", "v6_ddnet201_server_dm1.demo") else {
        return;
    };
    let recording = Recording::open(&path).unwrap();
    let map = recording.extract_map().unwrap().bytes;
    let scene = recording.scene(&RenderOptions::default()).unwrap();
    assert!(!scene.players.is_empty());
    assert!(!scene.tiles.is_empty(), "the embedded map is drawn");
    let image = Image::decode(&scene.to_png());
    assert_eq!((image.width, image.height), (1024, 768));
    let checked = check_solid_tiles(&scene, &image, &map);
    assert!(checked > 20, "only {checked} solid tiles checked");

    // One player alone: the pixels at their positions (the library's own replay of the
    // demo, not the picture's data) are in their colour.
    let bytes = std::fs::read(&path).unwrap();
    let demo = DemoSlice::parse(&bytes).unwrap();
    let mut replay = GameReplay::new(&demo);
    let mut positions: std::collections::BTreeMap<i32, Vec<(f64, f64)>> = Default::default();
    let mut names: std::collections::BTreeMap<i32, String> = Default::default();
    while let Some(Ok(tick)) = replay.next() {
        for c in tick.world.characters() {
            positions
                .entry(c.client_id)
                .or_default()
                .push((c.x as f64, c.y as f64));
            if let Some(p) = tick.world.player(c.client_id) {
                names.insert(c.client_id, p.name.clone());
            }
        }
    }
    let (&cid, _) = positions.iter().max_by_key(|(_, p)| p.len()).unwrap();
    let name = names[&cid].clone();
    let mut options = RenderOptions::default();
    options.players = vec![name.clone()];
    let scene = recording.scene(&options).unwrap();
    assert_eq!(scene.players.len(), 1);
    assert_eq!(scene.players[0].name, name);
    let image = Image::decode(&scene.to_png());
    let share = share_in_color(&scene, &image, &positions[&cid], scene.players[0].color);
    assert!(
        share > 0.9,
        "{share:.3} of {name}'s positions in their colour"
    );
    // Another player's positions are not in this player's colour where nothing was drawn.
    assert!(check_solid_tiles(&scene, &image, &map) > 20);
}

#[test]
fn every_player_has_a_colour_of_their_own_on_their_path() {
    let Some(path) = real("twdemo", "v6_ddnet201_server_dm1.demo") else {
        return;
    };
    let recording = Recording::open(&path).unwrap();
    let scene = recording.scene(&RenderOptions::default()).unwrap();
    let image = Image::decode(&scene.to_png());
    let mut colors: Vec<Rgb> = scene.players.iter().map(|p| p.color).collect();
    colors.dedup();
    assert_eq!(colors.len(), scene.players.len().min(12));
    for player in &scene.players {
        let points: Vec<(f64, f64)> = player
            .segments
            .iter()
            .flatten()
            .map(|p| (p[0] as f64, p[1] as f64))
            .collect();
        // Paths drawn later cross earlier ones: some of each player's own are visible.
        let share = share_in_color(&scene, &image, &points, player.color);
        assert!(share > 0.2, "{}: {share:.3}", player.name);
    }
}

#[test]
fn svg_has_the_same_shapes() {
    let Some(path) = real("twdemo", "v6_ddnet201_server_dm1.demo") else {
        return;
    };
    let recording = Recording::open(&path).unwrap();
    let svg = recording
        .render(&RenderOptions::default(), ImageFormat::Svg)
        .unwrap();
    let svg = String::from_utf8(svg).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    let [r, g, b] = TileKind::Solid.color();
    assert!(svg.contains(&format!("fill=\"#{r:02x}{g:02x}{b:02x}\"")));
    assert!(svg.contains("<polyline"));
    assert!(svg.contains("dm1"), "the title names the map");
}

#[test]
fn teehistorian_needs_its_own_map() {
    let (Some(path), Some(map), Some(other)) = (
        real("teehistorian", "v2_ddnet1261_dm1.teehistorian"),
        real("maps", "dm1_0.6.map"),
        real("maps", "dm1_2008-01.map"),
    ) else {
        return;
    };
    let recording = Recording::open(&path).unwrap();
    match recording.scene(&RenderOptions::default()) {
        Err(Error::Map {
            problem: MapProblem::Missing { name, .. },
            ..
        }) => assert_eq!(name, "dm1"),
        other => panic!("{other:?}"),
    }
    let mut options = RenderOptions::default();
    options.map = Some(std::fs::read(&other).unwrap());
    match recording.scene(&options) {
        Err(Error::Map {
            problem: MapProblem::Mismatch { checksum, .. },
            ..
        }) => assert_eq!(checksum, "SHA-256"),
        other => panic!("{other:?}"),
    }
    let map = std::fs::read(&map).unwrap();
    options.map = Some(map.clone());
    let scene = recording.scene(&options).unwrap();
    assert!(!scene.players.is_empty());
    let image = Image::decode(&scene.to_png());
    assert!(check_solid_tiles(&scene, &image, &map) > 20);
    for player in &scene.players {
        let points: Vec<(f64, f64)> = player
            .segments
            .iter()
            .flatten()
            .map(|p| (p[0] as f64, p[1] as f64))
            .collect();
        let share = share_in_color(&scene, &image, &points, player.color);
        assert!(share > 0.2, "{}: {share:.3}", player.name);
    }
}

#[test]
fn range_players_and_size_are_checked() {
    let Some(path) = real("twdemo", "v6_ddnet201_server_dm1.demo") else {
        return;
    };
    let recording = Recording::open(&path).unwrap();
    let mut options = RenderOptions::default();
    options.players = vec!["nobody at all".into()];
    assert!(matches!(
        recording.scene(&options),
        Err(Error::Argument { .. })
    ));
    let mut options = RenderOptions::default();
    options.size = (10, 10);
    assert!(matches!(
        recording.scene(&options),
        Err(Error::Argument { .. })
    ));
    let mut options = RenderOptions::default();
    options.from = Some("1s".parse().unwrap());
    options.to = Some("3s".parse().unwrap());
    options.size = (320, 200);
    let scene = recording.scene(&options).unwrap();
    let image = Image::decode(&scene.to_png());
    assert_eq!((image.width, image.height), (320, 200));
    assert!(scene.title.contains("0:02"), "{}", scene.title);
    options.heatmap = true;
    let scene = recording.scene(&options).unwrap();
    assert!(
        scene
            .heat
            .as_ref()
            .is_some_and(|h| h.counts.iter().any(|&n| n > 0))
    );
}

#[test]
fn source_demo_paths_on_the_plane() {
    let path = common::root().join("fixtures/source/tf2_short_2024.dem");
    let recording = Recording::open(&path).unwrap();
    let scene = recording.scene(&RenderOptions::default()).unwrap();
    assert!(scene.y_up);
    assert!(scene.tiles.is_empty());
    assert!(!scene.players.is_empty(), "{}", scene.title);
    assert!(scene.note.as_deref().is_some_and(|n| n.contains("x ")));
    let image = Image::decode(&scene.to_png());
    let player = &scene.players[0];
    let points: Vec<(f64, f64)> = player
        .segments
        .iter()
        .flatten()
        .map(|p| (p[0] as f64, p[1] as f64))
        .collect();
    assert!(share_in_color(&scene, &image, &points, player.color) > 0.2);
    let mut options = RenderOptions::default();
    options.map = Some(vec![1, 2, 3]);
    assert!(matches!(
        recording.scene(&options),
        Err(Error::Argument { .. })
    ));
}

#[test]
fn an_embedded_map_that_does_not_load_is_left_out_and_named() {
    // The fixtures demokit's recorder wrote embed a placeholder map.
    let recording = Recording::open(common::root().join("fixtures/recorded_v6.demo")).unwrap();
    let scene = recording.scene(&RenderOptions::default()).unwrap();
    assert!(scene.tiles.is_empty());
    let note = scene.note.as_deref().unwrap_or_default();
    assert!(note.contains("the embedded map does not load"), "{note}");
    Image::decode(&scene.to_png());
    // A map given that does not load is refused.
    let mut options = RenderOptions::default();
    options.map = Some(b"not a map".to_vec());
    match recording.scene(&options) {
        Err(Error::Map {
            problem: MapProblem::Invalid { .. } | MapProblem::Mismatch { .. },
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}
