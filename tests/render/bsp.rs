//! Source pictures over the map's world: the floors and walls of a BSP file, or an
//! overview image placed by its description.
//!
//! No real Source map with a real demo on it could be found under a licence that lets
//! it ship with demokit: the map here is the room the tests write (`common::bsp`), the
//! demo is TF2's `fixtures/source/tf2_short_2024.dem` (played on cp_steel, not on the
//! room), and the positions checked on the floors are sampled from the room's floor
//! polygons, not a player's. The player's own path is checked to stay drawn over them.

use super::{Image, share_in_color};
use crate::common;
use demokit::recording::{Error, MapProblem, Recording};
use demokit::render::{OverviewImage, RenderOptions, Rgb};

fn demo() -> Recording {
    Recording::open(common::root().join("fixtures/source/tf2_short_2024.dem")).unwrap()
}

fn luminance(c: Rgb) -> u32 {
    u32::from(c[0]) + u32::from(c[1]) + u32::from(c[2])
}

#[test]
fn floors_are_drawn_under_the_paths_and_shaded_by_height() {
    let recording = demo();
    let plain = recording.scene(&RenderOptions::default()).unwrap();
    let plain_png = plain.to_png();
    let mut options = RenderOptions::default();
    options.map = Some(common::bsp::room(20, false).bytes);
    let scene = recording.scene(&options).unwrap();
    assert!(
        scene.note.as_deref().is_some_and(|n| n.contains("BSP v20")),
        "{:?}",
        scene.note
    );
    assert_eq!(scene.grid, None, "no grid under a map");
    // The view holds the room (0..1024 square) and the paths.
    let [vx, vy, vw, vh] = scene.view;
    assert!(vx <= 0.0 && vy <= 0.0 && vx + vw >= 1024.0 && vy + vh >= 1024.0);
    let png = scene.to_png();
    let image = Image::decode(&png);
    let background = Image::decode(&plain_png).at(2.0, 200.0);
    // Positions sampled from the floor (z 0) and from the platform (z 128).
    let at = |x: f64, y: f64| {
        let (px, py) = scene.project(x, y);
        image.at(px, py).unwrap()
    };
    let floor = at(300.0, 700.0);
    let platform = at(800.0, 800.0);
    let outside = at(512.0, -800.0);
    assert_ne!(Some(floor), background);
    assert_ne!(floor, outside, "the floor is filled");
    assert!(
        luminance(platform) > luminance(floor),
        "{platform:?} over {floor:?}"
    );
    assert!(
        luminance(platform) < 3 * 130,
        "the floors stay dark: {platform:?}"
    );
    for (x, y) in [
        (100.0, 600.0),
        (500.0, 500.0),
        (900.0, 100.0),
        (450.0, 950.0),
    ] {
        assert_eq!(at(x, y), floor, "({x}, {y}) on the floor at z 0");
    }
    // The walls: darker outlines along the room's edges.
    let (wx, wy) = scene.project(0.0, 512.0);
    let wall = (-1..=1)
        .filter_map(|d| image.at(wx + f64::from(d), wy))
        .min_by_key(|&c| luminance(c))
        .unwrap();
    assert!(luminance(wall) < luminance(floor), "{wall:?}");
    // The player's path is still drawn in its colour.
    let player = &scene.players[0];
    let points: Vec<(f64, f64)> = player
        .segments
        .iter()
        .flatten()
        .map(|p| (f64::from(p[0]), f64::from(p[1])))
        .collect();
    assert!(share_in_color(&scene, &image, &points, player.color) > 0.2);
    // The SVG has the floors as filled paths.
    let svg = scene.to_svg();
    assert!(svg.contains("<path d=\"M"), "{svg}");
    eprintln!(
        "PNG without the world {} bytes, with it {} bytes; SVG {} bytes",
        plain_png.len(),
        png.len(),
        svg.len()
    );
}

#[test]
fn a_map_that_does_not_read_is_refused() {
    let recording = demo();
    let mut options = RenderOptions::default();
    let mut bytes = common::bsp::room(20, false).bytes;
    bytes.truncate(2000);
    options.map = Some(bytes);
    match recording.scene(&options) {
        Err(Error::Map {
            problem: MapProblem::Invalid { message },
            ..
        }) => assert!(message.contains("lump"), "{message}"),
        other => panic!("{other:?}"),
    }
    // A Teeworlds recording does not take an overview.
    let tw = Recording::open(common::root().join("fixtures/recorded_v6.demo")).unwrap();
    let mut options = RenderOptions::default();
    options.overview = Some(OverviewImage::new(png(4, 4, [200, 0, 0]), DESCRIPTION).unwrap());
    assert!(matches!(tw.scene(&options), Err(Error::Argument { .. })));
}

const DESCRIPTION: &str = "\"room\" { \"pos_x\" \"0\" \"pos_y\" \"1024\" \"scale\" \"16\" }";

/// A `width` x `height` PNG of one colour.
fn png(width: u32, height: u32, color: Rgb) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    let data: Vec<u8> = (0..width * height).flat_map(|_| color).collect();
    writer.write_image_data(&data).unwrap();
    drop(writer);
    out
}

#[test]
fn an_overview_image_is_drawn_where_its_description_puts_it() {
    let recording = demo();
    let mut options = RenderOptions::default();
    // 64 pixels of 16 units: world x 0..1024, y 1024 down to 0.
    options.overview = Some(OverviewImage::new(png(64, 64, [90, 30, 120]), DESCRIPTION).unwrap());
    let scene = recording.scene(&options).unwrap();
    let image = Image::decode(&scene.to_png());
    for (x, y) in [(100.0, 100.0), (512.0, 512.0), (1000.0, 900.0)] {
        let (px, py) = scene.project(x, y);
        assert_eq!(image.at(px, py), Some([90, 30, 120]), "({x}, {y})");
    }
    let (px, py) = scene.project(1200.0, 512.0);
    assert_ne!(image.at(px, py), Some([90, 30, 120]), "outside the image");
    assert!(scene.to_svg().contains("data:image/png;base64,"));
    assert!(OverviewImage::new(b"not a png".to_vec(), DESCRIPTION).is_err());
    assert!(OverviewImage::new(png(4, 4, [0, 0, 0]), "\"x\" {}").is_err());
}
