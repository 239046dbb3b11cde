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

/// A decoded image, as RGB.
struct Image {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Image {
    /// Decodes a PNG, its palette expanded to RGB (pictures are palette PNGs).
    fn decode(png_bytes: &[u8]) -> Image {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().expect("a PNG header");
        assert_eq!(
            reader.info().color_type,
            png::ColorType::Indexed,
            "a palette PNG"
        );
        let mut rgb = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut rgb).expect("a PNG frame");
        assert_eq!(
            info.color_type,
            png::ColorType::Rgb,
            "opaque: no transparency"
        );
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        rgb.truncate(info.buffer_size());
        Image {
            width: info.width,
            height: info.height,
            rgb,
        }
    }

    /// The colour at a canvas position, `None` outside.
    fn at(&self, x: f64, y: f64) -> Option<Rgb> {
        if x < 0.0 || y < 0.0 || x >= self.width as f64 || y >= self.height as f64 {
            return None;
        }
        let i = ((y as u32 * self.width + x as u32) * 3) as usize;
        let p = &self.rgb[i..i + 3];
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
    // The canvas is fitted to the game within the size asked for: one side is the size's.
    assert_eq!((image.width, image.height), (scene.width, scene.height));
    assert!(image.width <= 1024 && image.height <= 768);
    assert!(
        image.width == 1024 || image.height == 768,
        "{}x{}",
        image.width,
        image.height
    );
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
    // The view is fitted to this one player's path: fewer tiles lie in it.
    let checked = check_solid_tiles(&scene, &image, &map);
    assert!(checked > 5, "{checked} solid tiles checked");
}

#[test]
fn every_player_has_a_colour_of_their_own_on_their_path() {
    let Some(path) = real("twdemo", "v6_ddnet201_server_dm1.demo") else {
        return;
    };
    let recording = Recording::open(&path).unwrap();
    let scene = recording.scene(&RenderOptions::default()).unwrap();
    let image = Image::decode(&scene.to_png());
    let colors: std::collections::BTreeSet<Rgb> = scene.players.iter().map(|p| p.color).collect();
    assert_eq!(colors.len(), scene.players.len().min(64));
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
    assert!(svg.contains("stroke-linecap=\"round\"") && svg.contains("<path d=\"M"));
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
    assert!(image.width <= 320 && image.height <= 200);
    assert!(
        image.width == 320 || image.height == 200,
        "{}x{}",
        image.width,
        image.height
    );
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

/// The real recordings whose pictures the layout is checked on: every Teeworlds demo and
/// Source demo of the shared fixtures (the most players: 63 on multeasymap), and the
/// bundled Source demos.
fn pictured_recordings() -> Vec<PathBuf> {
    let mut files = common::source_demos();
    if let Some(shared) = common::shared_dir() {
        let real = shared.join("real-fixtures");
        files.extend(common::files_with_extension(&real.join("twdemo"), "demo"));
        files.extend(common::files_with_extension(&real.join("source"), "dem"));
    } else {
        eprintln!("SKIPPED (in part): the shared fixtures are absent; the bundled ones only");
    }
    files
}

/// The share of the canvas's width and height that the players' positions span.
fn extent_share(scene: &Scene) -> (f64, f64) {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for p in scene
        .players
        .iter()
        .flat_map(|p| p.segments.iter().flatten())
    {
        let (x, y) = scene.project(p[0] as f64, p[1] as f64);
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    (
        (x1 - x0) / scene.width as f64,
        (y1 - y0) / scene.height as f64,
    )
}

#[test]
fn the_legend_fits_inside_the_picture_and_lists_every_player_or_counts_them() {
    let mut most = 0;
    for path in pictured_recordings() {
        let recording = Recording::open(&path).unwrap();
        for size in [(1024, 768), (640, 400), (400, 300)] {
            let mut options = RenderOptions::default();
            options.size = size;
            let Ok(scene) = recording.scene(&options) else {
                continue;
            };
            let labels = scene.legend_labels();
            for (label, [x, y, w, h]) in &labels {
                assert!(
                    *x >= 0.0
                        && *y >= 0.0
                        && x + w <= scene.width as f64 + 0.5
                        && y + h <= scene.height as f64 + 0.5,
                    "{}: {label:?} at {x:.0},{y:.0} {w:.0}x{h:.0} outside {}x{}",
                    path.display(),
                    scene.width,
                    scene.height
                );
            }
            // Every player is named, or the last player entry counts the rest.
            let more: usize = labels
                .iter()
                .filter_map(|(l, _)| {
                    l.strip_prefix('+')?
                        .strip_suffix(" more")?
                        .parse::<usize>()
                        .ok()
                })
                .sum();
            let named = scene
                .players
                .iter()
                .filter(|p| labels.iter().any(|(l, _)| l == &p.name || l.ends_with('…')))
                .count()
                .min(scene.players.len() - more);
            assert_eq!(named + more, scene.players.len(), "{}", path.display());
            most = most.max(scene.players.len());
        }
    }
    if common::shared_dir().is_some() {
        assert!(most >= 60, "the fixture with the most players has {most}");
    }
}

#[test]
fn the_game_fills_at_least_four_fifths_of_one_axis() {
    let mut checked = 0;
    for path in pictured_recordings() {
        let recording = Recording::open(&path).unwrap();
        let Ok(scene) = recording.scene(&RenderOptions::default()) else {
            continue;
        };
        let (w, h) = extent_share(&scene);
        // A game smaller than the least view (a tenth of a Source map's grid, 16
        // Teeworlds tiles) is drawn in that view, not blown up to fill the picture.
        let least = if scene.y_up { 1024.0 } else { 16.0 * 32.0 };
        if w * (scene.width as f64) / scene.scale() < least * 0.8
            && h * (scene.height as f64) / scene.scale() < least * 0.8
        {
            eprintln!("{}: smaller than the least view", path.display());
            continue;
        }
        checked += 1;
        assert!(
            w >= 0.8 || h >= 0.8,
            "{}: the positions span {:.0} % by {:.0} % of {}x{}",
            path.display(),
            w * 100.0,
            h * 100.0,
            scene.width,
            scene.height
        );
    }
    assert!(checked >= 5, "only {checked} pictures checked");
}

/// A teehistorian file on dm1 whose players are named `names`, each walking a few tiles
/// of dm1's air (written with the library's recorder).
fn named_players(names: &[&str]) -> Vec<u8> {
    use demokit::gamenet::Protocol;
    use demokit::teehistorian::{Header, Recorder};
    let header = Header {
        map_name: Some("dm1".into()),
        ..Header::new("2")
    };
    let mut rec = Recorder::new(Vec::new(), &header).unwrap();
    for (cid, name) in names.iter().enumerate() {
        rec.record_player_join(cid as i32, Protocol::Six).unwrap();
        rec.record_player_name(cid as i32, name).unwrap();
    }
    for tick in 1..=100 {
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        for cid in 0..names.len() as i32 {
            rec.record_player(cid, 400 + tick * 8, 300 + cid * 200)
                .unwrap();
        }
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
    }
    rec.finish().unwrap()
}

/// The pixels of `rect` in `image` that are text (near the text's colour), as a bitmap.
fn ink(image: &Image, [x, y, w, h]: [f64; 4]) -> Vec<bool> {
    let mut out = Vec::new();
    for py in y as u32..(y + h) as u32 {
        for px in x as u32..(x + w) as u32 {
            let c = image.at(px as f64, py as f64).unwrap_or([0, 0, 0]);
            out.push(c.iter().all(|&v| v > 120));
        }
    }
    out
}

#[test]
fn names_in_cyrillic_and_cjk_are_drawn_in_their_own_glyphs() {
    // Each name beside one of the same length in question marks: a picture that put `?`
    // for the letters it cannot draw would draw the two alike.
    let names = ["{БАЛДЕЖ}", "{??????}", "泽泽", "??", "Ωmega"];
    let map = std::fs::read(common::bundled_dir().join("real-fixtures/maps/dm1_0.6.map")).unwrap();
    let recording = Recording::from_bytes(named_players(&names)).unwrap();
    let mut options = RenderOptions::default();
    options.map = Some(map);
    let scene = recording.scene(&options).unwrap();
    let image = Image::decode(&scene.to_png());
    let labels = scene.legend_labels();
    let bitmap = |name: &str| {
        let (_, rect) = labels
            .iter()
            .find(|(l, _)| l == name)
            .unwrap_or_else(|| panic!("{name} is not in the legend: {labels:?}"));
        (ink(&image, *rect), *rect)
    };
    for (name, marks) in [("{БАЛДЕЖ}", "{??????}"), ("泽泽", "??")] {
        let (glyphs, rect) = bitmap(name);
        let (questions, _) = bitmap(marks);
        let inked = glyphs.iter().filter(|&&p| p).count();
        assert!(
            inked as f64 > rect[2] * rect[3] * 0.08,
            "{name}: {inked} text pixels in {rect:?}"
        );
        // Compared over the narrower of the two boxes.
        let differ = glyphs
            .iter()
            .zip(&questions)
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            differ as f64 > inked as f64 * 0.3,
            "{name} is drawn like {marks}: {differ} of {inked} pixels differ"
        );
    }
    // The SVG writes the names as they are, for the viewer's fonts.
    let svg = scene.to_svg();
    assert!(svg.contains("{БАЛДЕЖ}") && svg.contains("泽泽"));
}
