//! `demokit render`: pictures of real recordings, checked pixel by pixel where the map
//! and the positions say (a solid tile in the solid colour, a player's positions in the
//! player's colour), for a demo with its embedded map, a teehistorian file with `--map`
//! and a Source demo; the refusals (a teehistorian file without `--map`, the wrong map, a
//! player the recording lacks, an unknown image kind) with their exit statuses; and output
//! safety (an existing file needs `--force`, a refusal leaves no file).

use crate::common;

use crate::run::{demokit, stderr, stdout};
use common::shared_dir;
use common::temp::TempDir;
use demokit::datafile::physics_layers;
use demokit::recording::Recording;
use demokit::render::{RenderOptions, Rgb, Scene, TileKind};
use std::path::PathBuf;

/// A PNG decoded to RGB (pictures are palette PNGs, expanded here).
fn decode(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap();
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().unwrap();
    assert_eq!(reader.info().color_type, png::ColorType::Indexed);
    let mut rgb = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut rgb).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    rgb.truncate(info.buffer_size());
    (info.width, info.height, rgb)
}

fn pixel(image: &(u32, u32, Vec<u8>), scene: &Scene, x: f64, y: f64) -> Option<Rgb> {
    let (px, py) = scene.project(x, y);
    let [ax, ay, aw, ah] = scene.map_area();
    if px < ax + 1.0 || py < ay + 1.0 || px >= ax + aw - 1.0 || py >= ay + ah - 1.0 {
        return None;
    }
    let i = ((py as u32 * image.0 + px as u32) * 3) as usize;
    Some([image.2[i], image.2[i + 1], image.2[i + 2]])
}

/// Checks the tool's picture at `out` against the library's scene for the same options:
/// solid tiles deep in the ground in the solid colour, each player's positions mostly in
/// their colour.
fn check_picture(out: &std::path::Path, scene: &Scene, map: Option<&[u8]>) {
    let image = decode(out);
    assert_eq!((image.0, image.1), (scene.width, scene.height));
    if let Some(map) = map {
        let game = physics_layers(map).unwrap().game;
        let solid =
            |x: usize, y: usize| TileKind::of_index(game.kind(x, y)) == Some(TileKind::Solid);
        let mut checked = 0;
        for y in 1..game.height - 1 {
            for x in 1..game.width - 1 {
                if !(y - 1..=y + 1).all(|ny| (x - 1..=x + 1).all(|nx| solid(nx, ny))) {
                    continue;
                }
                let (cx, cy) = (x as f64 * 32.0 + 16.0, y as f64 * 32.0 + 16.0);
                if let Some(color) = pixel(&image, scene, cx, cy) {
                    assert_eq!(color, TileKind::Solid.color(), "tile ({x}, {y})");
                    checked += 1;
                }
            }
        }
        assert!(checked > 10, "only {checked} solid tiles checked");
    }
    assert!(!scene.players.is_empty());
    for player in &scene.players {
        let colors: Vec<Option<Rgb>> = player
            .segments
            .iter()
            .flatten()
            .map(|p| pixel(&image, scene, p[0] as f64, p[1] as f64))
            .filter(Option::is_some)
            .collect();
        let hits = colors.iter().filter(|c| **c == Some(player.color)).count();
        assert!(
            hits * 5 > colors.len(),
            "{}: {hits} of {} positions in its colour",
            player.name,
            colors.len()
        );
    }
}

fn real(dir: &str, name: &str) -> Option<PathBuf> {
    Some(shared_dir()?.join("real-fixtures").join(dir).join(name))
}

#[test]
fn demo_picture_shows_the_map_and_the_paths() {
    let Some(input) = real("twdemo", "v6_ddnet201_server_dm1.demo") else {
        return;
    };
    let dir = TempDir::new("render-demo");
    let out = dir.path("game.png");
    let run = demokit(&[
        "render".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    // The picture takes the game's shape within the default 1024x768 box.
    assert!(stdout(&run).contains("1024x511"), "{}", stdout(&run));
    let recording = Recording::open(&input).unwrap();
    let map = recording.extract_map().unwrap().bytes;
    let scene = recording.scene(&RenderOptions::default()).unwrap();
    check_picture(&out, &scene, Some(&map));

    // An existing output needs --force; SVG by the extension.
    let again = demokit(&[
        "render".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    let svg = dir.path("game.svg");
    let run = demokit(&[
        "render".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        svg.as_os_str(),
        "--size".as_ref(),
        "640x400".as_ref(),
        "--from".as_ref(),
        "2s".as_ref(),
        "--to".as_ref(),
        "10s".as_ref(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("width=\"640\""));
    assert!(text.contains("0:08"), "the title gives the length drawn");
}

#[test]
fn teehistorian_needs_the_map_it_names() {
    let (Some(input), Some(map), Some(other)) = (
        real("teehistorian", "v2_ddnet1261_dm1.teehistorian"),
        real("maps", "dm1_0.6.map"),
        real("maps", "dm1_2008-01.map"),
    ) else {
        return;
    };
    let dir = TempDir::new("render-teehistorian");
    let out = dir.path("game.png");
    let args = |extra: &[&std::ffi::OsStr]| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "render".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        args.extend_from_slice(extra);
        demokit(&args)
    };
    let missing = args(&[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("does not hold its map"),
        "{}",
        stderr(&missing)
    );
    assert!(!out.exists(), "a refusal writes nothing");
    let wrong = args(&["--map".as_ref(), other.as_os_str()]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(stderr(&wrong).contains("SHA-256"), "{}", stderr(&wrong));
    assert!(!out.exists());
    let run = args(&["--map".as_ref(), map.as_os_str(), "--heatmap".as_ref()]);
    assert!(run.status.success(), "{}", stderr(&run));
    std::fs::remove_file(&out).unwrap();
    let run = args(&["--map".as_ref(), map.as_os_str()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let map = std::fs::read(&map).unwrap();
    let mut options = RenderOptions::default();
    options.map = Some(map.clone());
    let scene = Recording::open(&input).unwrap().scene(&options).unwrap();
    check_picture(&out, &scene, Some(&map));
}

#[test]
fn source_demo_paths_without_a_map() {
    let input = common::root().join("fixtures/source/tf2_short_2024.dem");
    let dir = TempDir::new("render-source");
    let out = dir.path("game.png");
    let run = demokit(&[
        "render".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let scene = Recording::open(&input)
        .unwrap()
        .scene(&RenderOptions::default())
        .unwrap();
    check_picture(&out, &scene, None);
}

#[test]
fn refusals() {
    let Some(input) = real("twdemo", "v6_ddnet201_server_dm1.demo") else {
        return;
    };
    let dir = TempDir::new("render-refusals");
    let run = |out: &str, extra: &[&str]| {
        let out = dir.path(out);
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "render".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
        (demokit(&args), out)
    };
    for (name, extra, expect) in [
        ("a.gif", &[][..], "end it with .png or .svg"),
        (
            "b.png",
            &["--players", "nobody here"][..],
            "no player named",
        ),
        ("c.png", &["--size", "12x12"][..], "out of range"),
        ("d.png", &["--size", "big"][..], "WIDTHxHEIGHT"),
        ("e.png", &["--from", "m9"][..], "timeline marker 9"),
    ] {
        let (out, path) = run(name, extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(expect), "{extra:?}: {}", stderr(&out));
        assert!(!path.exists(), "{extra:?} left a file");
    }
}
