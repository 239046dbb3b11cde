//! What a Source picture draws under the paths: the map's floors and walls from its BSP
//! file ([`World`]), or an overview image calibrated by its description ([`Overview`]).
//!
//! Floors are filled and shaded by height, in a few bands from dark (low) to light (high)
//! that stay within the render module's dark palette, the higher drawn over the lower;
//! walls are thin darker outlines over them. An overview image is drawn so that world
//! (x, y) lands on its pixel ((x - `pos_x`) / `scale`, (`pos_y` - y) / `scale`). Either
//! way the picture's view becomes the backdrop's extent (with the paths inside it).
//!
//! The front ends find the files; [`crate::bsp`] reads them.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::{Raster, Rgb, Svg};
use crate::bsp::{Overview, SurfaceKind, World};
use std::fmt::Write as _;

/// An overview image and its description, for [`RenderOptions::overview`](super::RenderOptions::overview).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OverviewImage {
    /// The PNG image.
    pub png: Vec<u8>,
    /// The calibration, from `resource/overview/<map>.txt` ([`Overview::parse`]).
    pub calibration: Overview,
}

impl OverviewImage {
    /// An overview from its PNG bytes and its description's text.
    pub fn new(png: Vec<u8>, description: &str) -> Result<OverviewImage, String> {
        let calibration = Overview::parse(description).map_err(|e| e.to_string())?;
        png_size(&png)?;
        Ok(OverviewImage { png, calibration })
    }
}

/// The largest overview image side read, in pixels.
const MAX_IMAGE_SIDE: u32 = 8192;

/// A PNG's width and height from its header, refused past [`MAX_IMAGE_SIDE`].
fn png_size(png: &[u8]) -> Result<(u32, u32), String> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let word = |at: usize| {
        png.get(at..at + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_be_bytes)
    };
    if png.get(..8) != Some(&SIGNATURE[..]) || png.get(12..16) != Some(&b"IHDR"[..]) {
        return Err("the overview image is not a PNG file".into());
    }
    match (word(16), word(20)) {
        (Some(w), Some(h))
            if (1..=MAX_IMAGE_SIDE).contains(&w) && (1..=MAX_IMAGE_SIDE).contains(&h) =>
        {
            Ok((w, h))
        }
        (Some(w), Some(h)) => Err(format!(
            "the overview image is {w}x{h} pixels (each side 1 to {MAX_IMAGE_SIDE})"
        )),
        _ => Err("the overview image's PNG header is cut short".into()),
    }
}

/// What the recording's map gives a Source picture, as gathered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Backdrop {
    /// The map's surfaces, from its BSP file.
    World(World),
    /// An overview image.
    Overview(OverviewImage),
}

/// Floors are drawn in this many height bands.
const BANDS: usize = 12;
/// The lowest floor's colour: a little lighter than the background.
const FLOOR_LOW: Rgb = [34, 40, 52];
/// The highest floor's colour: still dark enough for the paths to stand out.
const FLOOR_HIGH: Rgb = [84, 94, 110];
/// The walls' outline.
const WALL: Rgb = [10, 12, 16];

/// The backdrop as the scene draws it: in world x/y, within the view.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Layer {
    /// Floor polygons by height band, low to high, each with its colour.
    bands: Vec<(Rgb, Vec<Vec<[f32; 2]>>)>,
    /// Wall outlines.
    walls: Vec<Vec<[f32; 2]>>,
    /// An overview image: the PNG, its pixel size and the world x and y of its top-left
    /// corner and world units per pixel.
    image: Option<PlacedImage>,
}

/// A PNG, its size in pixels, and the world x and y of its top-left corner with the world
/// units per pixel.
type PlacedImage = (std::sync::Arc<Vec<u8>>, [u32; 2], [f64; 3]);

impl Backdrop {
    /// The world rectangle it covers (left, bottom, width, height; y up), if any.
    fn extent(&self) -> Option<[f64; 4]> {
        match self {
            Backdrop::World(world) => {
                if world.polygons.is_empty() {
                    return None;
                }
                let [lo, hi] = world.bounds;
                let (x0, y0) = (f64::from(lo[0]), f64::from(lo[1]));
                let (w, h) = (f64::from(hi[0]) - x0, f64::from(hi[1]) - y0);
                (w.is_finite() && h.is_finite()).then_some([x0, y0, w.max(1.0), h.max(1.0)])
            }
            Backdrop::Overview(o) => {
                let (w, h) = png_size(&o.png).ok()?;
                let c = o.calibration;
                let (x1, y0) = c.world(f64::from(w), f64::from(h));
                Some([c.pos_x, y0, x1 - c.pos_x, c.pos_y - y0])
            }
        }
    }

    /// What the picture's second line says about the plane.
    pub(crate) fn describe(backdrop: Option<&Backdrop>) -> String {
        match backdrop {
            None => "no map: paths on the x/y plane, grid 512".into(),
            Some(Backdrop::World(w)) => format!(
                "BSP v{}: {} floors, {} walls",
                w.version,
                w.polygons
                    .iter()
                    .filter(|p| p.kind == SurfaceKind::Floor)
                    .count(),
                w.polygons
                    .iter()
                    .filter(|p| p.kind == SurfaceKind::Wall)
                    .count()
            ),
            Some(Backdrop::Overview(o)) => format!(
                "overview image: pos {:.0},{:.0}, scale {}",
                o.calibration.pos_x, o.calibration.pos_y, o.calibration.scale
            ),
        }
    }
}

/// The view of a Source picture with a backdrop: its extent, widened to hold the paths'
/// bounds (`paths`: x0, y0, x1, y1) with a margin; `view` unchanged without an extent.
pub(crate) fn frame(
    backdrop: Option<&Backdrop>,
    paths: Option<[f64; 4]>,
    view: [f64; 4],
) -> [f64; 4] {
    let Some([x, y, w, h]) = backdrop.and_then(Backdrop::extent) else {
        return view;
    };
    let (mut x0, mut y0, mut x1, mut y1) = (x, y, x + w, y + h);
    if let Some([px0, py0, px1, py1]) = paths
        && [px0, py0, px1, py1].iter().all(|v| v.is_finite())
    {
        x0 = x0.min(px0 - 64.0);
        y0 = y0.min(py0 - 64.0);
        x1 = x1.max(px1 + 64.0);
        y1 = y1.max(py1 + 64.0);
    }
    let pad = 0.02 * (x1 - x0).max(y1 - y0);
    [x0 - pad, y0 - pad, x1 - x0 + 2.0 * pad, y1 - y0 + 2.0 * pad]
}

/// The backdrop's shapes within `view`.
pub(crate) fn layer(backdrop: Option<&Backdrop>, view: [f64; 4]) -> Option<Layer> {
    let inside = |points: &[[f32; 2]]| {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for p in points {
            let (x, y) = (f64::from(p[0]), f64::from(p[1]));
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        x1 >= view[0] && x0 <= view[0] + view[2] && y1 >= view[1] && y0 <= view[1] + view[3]
    };
    match backdrop? {
        Backdrop::Overview(o) => {
            let size = png_size(&o.png).ok()?;
            let c = o.calibration;
            Some(Layer {
                bands: Vec::new(),
                walls: Vec::new(),
                image: Some((
                    std::sync::Arc::new(o.png.clone()),
                    [size.0, size.1],
                    [c.pos_x, c.pos_y, c.scale],
                )),
            })
        }
        Backdrop::World(world) => {
            let (mut zmin, mut zmax) = (f32::MAX, f32::MIN);
            for p in world.floors() {
                let z = p.mean_z();
                if z.is_finite() {
                    zmin = zmin.min(z);
                    zmax = zmax.max(z);
                }
            }
            let span = (zmax - zmin).max(1.0);
            let mut bands: Vec<(Rgb, Vec<Vec<[f32; 2]>>)> = (0..BANDS)
                .map(|i| {
                    let t = i as f32 / (BANDS - 1) as f32;
                    let mix = |k: usize| {
                        let (a, b) = (
                            FLOOR_LOW.get(k).copied().unwrap_or(0),
                            FLOOR_HIGH.get(k).copied().unwrap_or(0),
                        );
                        (f32::from(a) + (f32::from(b) - f32::from(a)) * t).round() as u8
                    };
                    ([mix(0), mix(1), mix(2)], Vec::new())
                })
                .collect();
            let mut walls = Vec::new();
            for polygon in &world.polygons {
                let mut flat: Vec<[f32; 2]> = polygon.points.iter().map(|p| [p[0], p[1]]).collect();
                if !flat.iter().all(|p| p[0].is_finite() && p[1].is_finite()) || !inside(&flat) {
                    continue;
                }
                match polygon.kind {
                    SurfaceKind::Floor => {
                        // Every polygon wound the same way, so that overlaps fill.
                        let area: f32 = flat
                            .iter()
                            .zip(flat.iter().cycle().skip(1))
                            .map(|(a, b)| a[0] * b[1] - b[0] * a[1])
                            .sum();
                        if area < 0.0 {
                            flat.reverse();
                        }
                        let t = ((polygon.mean_z() - zmin) / span).clamp(0.0, 1.0);
                        let band = ((t * (BANDS - 1) as f32).round() as usize).min(BANDS - 1);
                        if let Some((_, list)) = bands.get_mut(band) {
                            list.push(flat);
                        }
                    }
                    SurfaceKind::Wall => walls.push(flat),
                }
            }
            bands.retain(|(_, list)| !list.is_empty());
            Some(Layer {
                bands,
                walls,
                image: None,
            })
        }
    }
}

/// The shapes the backdrop is drawn with, which every canvas has besides its own.
pub(super) trait WorldShapes {
    /// Filled polygons of one colour (canvas pixels), non-zero winding.
    fn polygons(&mut self, polygons: &[Vec<(f64, f64)>], color: Rgb);
    /// Closed outlines of one colour and width.
    fn outlines(&mut self, polygons: &[Vec<(f64, f64)>], color: Rgb, width: f64);
    /// A PNG image stretched over the rectangle (`x`, `y`, `w`, `h`), clipped to `clip`.
    fn image(&mut self, png: &[u8], rect: [f64; 4], clip: [f64; 4]);
}

impl Layer {
    /// Draws the layer on `c`, `project` placing world x/y on the canvas, within `clip`
    /// (the map area: left, top, width, height).
    pub(super) fn draw(
        &self,
        c: &mut dyn WorldShapes,
        project: &dyn Fn(f64, f64) -> (f64, f64),
        clip: [f64; 4],
    ) {
        if let Some((png, [w, h], [pos_x, pos_y, scale])) = &self.image {
            let (x0, y0) = project(*pos_x, *pos_y);
            let (x1, y1) = project(pos_x + f64::from(*w) * scale, pos_y - f64::from(*h) * scale);
            c.image(png, [x0, y0, x1 - x0, y1 - y0], clip);
        }
        let on_canvas = |list: &[Vec<[f32; 2]>]| -> Vec<Vec<(f64, f64)>> {
            list.iter()
                .map(|poly| {
                    poly.iter()
                        .map(|p| project(f64::from(p[0]), f64::from(p[1])))
                        .collect()
                })
                .collect()
        };
        for (color, list) in &self.bands {
            c.polygons(&on_canvas(list), *color);
        }
        c.outlines(&on_canvas(&self.walls), WALL, 1.0);
    }
}

impl WorldShapes for Svg {
    fn polygons(&mut self, polygons: &[Vec<(f64, f64)>], color: Rgb) {
        let d = svg_path(polygons);
        if !d.is_empty() {
            let _ = writeln!(self.out, r#"<path d="{d}" fill="{}"/>"#, super::hex(color));
        }
    }

    fn outlines(&mut self, polygons: &[Vec<(f64, f64)>], color: Rgb, width: f64) {
        let d = svg_path(polygons);
        if !d.is_empty() {
            let _ = writeln!(
                self.out,
                r#"<path d="{d}" fill="none" stroke="{}" stroke-width="{width:.1}" stroke-linejoin="round"/>"#,
                super::hex(color)
            );
        }
    }

    fn image(&mut self, png: &[u8], rect: [f64; 4], clip: [f64; 4]) {
        let [x, y, w, h] = rect;
        let [cx, cy, cw, ch] = clip;
        let _ = writeln!(
            self.out,
            r#"<clipPath id="overview-clip"><rect x="{cx:.2}" y="{cy:.2}" width="{cw:.2}" height="{ch:.2}"/></clipPath><image clip-path="url(#overview-clip)" x="{x:.2}" y="{y:.2}" width="{w:.2}" height="{h:.2}" preserveAspectRatio="none" href="data:image/png;base64,{}"/>"#,
            base64(png)
        );
    }
}

/// Polygons as SVG path data, one closed subpath each, on tenths of a pixel.
fn svg_path(polygons: &[Vec<(f64, f64)>]) -> String {
    let mut d = String::new();
    for poly in polygons {
        let mut points = poly.iter();
        if let Some((x, y)) = points.next() {
            let _ = write!(d, "M{x:.1},{y:.1}");
            for (x, y) in points {
                let _ = write!(d, "L{x:.1},{y:.1}");
            }
            d.push('Z');
        }
    }
    d
}

/// Standard base64 with padding (for the SVG's embedded image).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                let index = (n >> shift & 63) as usize;
                out.push(char::from(ALPHABET.get(index).copied().unwrap_or(b'A')));
            } else {
                out.push('=');
            }
        }
    }
    out
}

impl Raster {
    /// A path of closed polygons, `None` when there is nothing to draw.
    fn polygon_path(polygons: &[Vec<(f64, f64)>]) -> Option<tiny_skia::Path> {
        let mut pb = tiny_skia::PathBuilder::new();
        for poly in polygons {
            let mut points = poly.iter();
            if let Some(&(x, y)) = points.next() {
                pb.move_to(x as f32, y as f32);
                for &(x, y) in points {
                    pb.line_to(x as f32, y as f32);
                }
                pb.close();
            }
        }
        pb.finish()
    }
}

impl WorldShapes for Raster {
    fn polygons(&mut self, polygons: &[Vec<(f64, f64)>], color: Rgb) {
        if let Some(path) = Raster::polygon_path(polygons) {
            self.fill_path(&path, color);
        }
    }

    fn outlines(&mut self, polygons: &[Vec<(f64, f64)>], color: Rgb, width: f64) {
        if let Some(path) = Raster::polygon_path(polygons) {
            self.stroke(&path, color, width, tiny_skia::LineCap::Butt);
        }
    }

    fn image(&mut self, png: &[u8], rect: [f64; 4], clip: [f64; 4]) {
        let Ok(image) = tiny_skia::Pixmap::decode_png(png) else {
            return;
        };
        let [x, y, w, h] = rect;
        let (sx, sy) = (w / f64::from(image.width()), h / f64::from(image.height()));
        let [cx, cy, cw, ch] = clip;
        let mask_rect = tiny_skia::Rect::from_xywh(cx as f32, cy as f32, cw as f32, ch as f32);
        let mut mask = tiny_skia::Mask::new(self.pixmap.width(), self.pixmap.height());
        if let (Some(mask), Some(r)) = (mask.as_mut(), mask_rect) {
            mask.fill_path(
                &tiny_skia::PathBuilder::from_rect(r),
                tiny_skia::FillRule::Winding,
                false,
                tiny_skia::Transform::identity(),
            );
        }
        if !(sx.is_finite() && sy.is_finite() && x.is_finite() && y.is_finite()) {
            return;
        }
        self.pixmap.draw_pixmap(
            0,
            0,
            image.as_ref(),
            &tiny_skia::PixmapPaint {
                quality: tiny_skia::FilterQuality::Bilinear,
                ..tiny_skia::PixmapPaint::default()
            },
            tiny_skia::Transform::from_row(sx as f32, 0.0, 0.0, sy as f32, x as f32, y as f32),
            mask.as_ref(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads_like_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
