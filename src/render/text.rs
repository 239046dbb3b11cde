//! Text in pictures: names in any script, measured and drawn from real glyph outlines.
//!
//! Player names come in every script (`{БАЛДЕЖ}`, `泽泽`, `ΑΩ`), so the pictures carry two
//! fonts of their own (`src/render/fonts/README.md` names their origins and licences):
//! DejaVu Sans for Latin, Greek, Cyrillic and symbols, and Droid
//! Sans Fallback for CJK ideographs, Hangul and kana. Each character takes the first font
//! that has it; one neither has is drawn as an empty box of the same advance, so that a
//! name never turns into `?`. The fonts are embedded rather than looked up on the machine
//! so that a picture is the same wherever it is drawn (a test of its pixels holds on every
//! machine), at the cost of 4 MB in the library.
//!
//! [`Fonts::width`] measures a line as [`Fonts::outline`] lays it out (advance widths, no
//! kerning or shaping: scripts that join or reorder letters, such as Arabic, come out as
//! their letters one by one, left to right). The raster fills the outlines with tiny-skia;
//! an SVG names the same fonts and lets the viewer draw them, laid out with these widths.
//!
//! This module knows no format and no scene: it turns a line of text into widths and
//! outlines.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use std::sync::OnceLock;
use ttf_parser::{Face, GlyphId, OutlineBuilder};

/// The Latin, Greek and Cyrillic font.
const PRIMARY: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
/// The CJK, Hangul and kana font.
const FALLBACK: &[u8] = include_bytes!("fonts/DroidSansFallback.ttf");

/// The font families an SVG names for its text, in the order the raster tries them.
pub(crate) const SVG_FAMILIES: &str = "'DejaVu Sans', 'Droid Sans Fallback', 'Noto Sans', \
     'Noto Sans CJK SC', sans-serif";

/// Where the baseline lies below a line's top, in font sizes.
const ASCENT: f64 = 0.93;
/// A line's height, in font sizes.
pub(crate) const LINE: f64 = 1.2;
/// The advance of a character no font has (its empty box), in font sizes.
const MISSING_ADVANCE: f64 = 0.6;

/// The fonts the pictures are written with.
pub(crate) struct Fonts {
    faces: Vec<Face<'static>>,
}

/// The embedded fonts, parsed once.
pub(crate) fn fonts() -> &'static Fonts {
    static FONTS: OnceLock<Fonts> = OnceLock::new();
    FONTS.get_or_init(|| Fonts {
        // Both files are part of the library; one that did not parse would leave its
        // characters as boxes, not stop the picture.
        faces: [PRIMARY, FALLBACK]
            .into_iter()
            .filter_map(|data| Face::parse(data, 0).ok())
            .collect(),
    })
}

/// How a character is drawn: by a face's glyph, as an empty box, or not at all.
#[derive(Clone, Copy)]
enum Glyph<'a> {
    /// The glyph of `face`, scaled by `scale` (pixels per font unit for a size of 1).
    Outline {
        face: &'a Face<'static>,
        id: GlyphId,
        scale: f64,
    },
    /// No font has the character: an empty box.
    Missing,
    /// A control character or a zero-width format character: nothing.
    Skipped,
}

impl Fonts {
    /// How `c` is drawn.
    fn glyph(&self, c: char) -> Glyph<'_> {
        if c.is_control() || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}') {
            return Glyph::Skipped;
        }
        for face in &self.faces {
            if let Some(id) = face.glyph_index(c) {
                let scale = 1.0 / f64::from(face.units_per_em().max(1));
                return Glyph::Outline { face, id, scale };
            }
        }
        if c.is_whitespace() {
            return Glyph::Skipped;
        }
        Glyph::Missing
    }

    /// The advance of `glyph` at `size` pixels.
    fn advance(glyph: Glyph<'_>, size: f64) -> f64 {
        match glyph {
            Glyph::Outline { face, id, scale } => {
                f64::from(face.glyph_hor_advance(id).unwrap_or(0)) * scale * size
            }
            Glyph::Missing => MISSING_ADVANCE * size,
            Glyph::Skipped => 0.0,
        }
    }

    /// The width of `text` at `size` pixels.
    pub(crate) fn width(&self, text: &str, size: f64) -> f64 {
        text.chars()
            .map(|c| Self::advance(self.glyph(c), size))
            .sum()
    }

    /// `text` cut to at most `max` pixels wide at `size` (an ellipsis where it was cut).
    pub(crate) fn fit(&self, text: &str, size: f64, max: f64) -> String {
        if self.width(text, size) <= max {
            return text.to_owned();
        }
        let room = max - self.width("…", size);
        let mut out = String::new();
        let mut used = 0.0;
        for c in text.chars() {
            let w = Self::advance(self.glyph(c), size);
            if used + w > room {
                break;
            }
            used += w;
            out.push(c);
        }
        out.push('…');
        out
    }

    /// Adds the outlines of `text` at `size` pixels, its top-left corner at (`x`, `top`),
    /// to `path` (boxes for the characters no font has); stops past `right`.
    pub(crate) fn outline(
        &self,
        text: &str,
        (x, top): (f64, f64),
        size: f64,
        right: f64,
        path: &mut tiny_skia::PathBuilder,
    ) {
        let baseline = top + ASCENT * size;
        let mut pen = x;
        for c in text.chars() {
            if pen > right {
                break;
            }
            let glyph = self.glyph(c);
            match glyph {
                Glyph::Outline { face, id, scale } => {
                    let mut to = ToPath {
                        path,
                        x: pen,
                        baseline,
                        scale: scale * size,
                    };
                    face.outline_glyph(id, &mut to);
                }
                Glyph::Missing => {
                    // An empty box, as tall as a capital: its outline and its inside
                    // wound the other way round, so that filling leaves it hollow.
                    let (w, h) = (MISSING_ADVANCE * size * 0.8, 0.72 * size);
                    let (l, t) = (pen + MISSING_ADVANCE * size * 0.1, baseline - h);
                    let line = (size / 12.0).max(1.0);
                    push_box(path, l, t, w, h, false);
                    push_box(
                        path,
                        l + line,
                        t + line,
                        w - 2.0 * line,
                        h - 2.0 * line,
                        true,
                    );
                }
                Glyph::Skipped => {}
            }
            pen += Self::advance(glyph, size);
        }
    }
}

/// A closed rectangle, clockwise (or counter-clockwise when `reverse`).
fn push_box(path: &mut tiny_skia::PathBuilder, x: f64, y: f64, w: f64, h: f64, reverse: bool) {
    let corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)];
    let mut points = corners.iter();
    let mut rev = corners.iter().rev();
    let it: &mut dyn Iterator<Item = &(f64, f64)> = if reverse { &mut rev } else { &mut points };
    if let Some(&(x0, y0)) = it.next() {
        path.move_to(x0 as f32, y0 as f32);
        for &(x, y) in it {
            path.line_to(x as f32, y as f32);
        }
        path.close();
    }
}

/// A glyph's outline, in font units with y up, into a path in pixels with y down.
struct ToPath<'p> {
    path: &'p mut tiny_skia::PathBuilder,
    x: f64,
    baseline: f64,
    scale: f64,
}

impl ToPath<'_> {
    fn at(&self, x: f32, y: f32) -> (f32, f32) {
        (
            (self.x + f64::from(x) * self.scale) as f32,
            (self.baseline - f64::from(y) * self.scale) as f32,
        )
    }
}

impl OutlineBuilder for ToPath<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        let (x, y) = self.at(x, y);
        self.path.move_to(x, y);
    }

    fn line_to(&mut self, x: f32, y: f32) {
        let (x, y) = self.at(x, y);
        self.path.line_to(x, y);
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let (x1, y1) = self.at(x1, y1);
        let (x, y) = self.at(x, y);
        self.path.quad_to(x1, y1, x, y);
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let (x1, y1) = self.at(x1, y1);
        let (x2, y2) = self.at(x2, y2);
        let (x, y) = self.at(x, y);
        self.path.cubic_to(x1, y1, x2, y2, x, y);
    }

    fn close(&mut self) {
        self.path.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_script_of_the_issue_has_glyphs() {
        let f = fonts();
        assert_eq!(f.faces.len(), 2, "both embedded fonts parse");
        for c in "{БАЛДЕЖ}泽ΑΩaé한かカ".chars() {
            assert!(
                matches!(f.glyph(c), Glyph::Outline { .. }),
                "{c:?} has no glyph"
            );
        }
        // A private-use character: no font has it.
        assert!(matches!(f.glyph('\u{F0000}'), Glyph::Missing));
        assert!(matches!(f.glyph('\u{202e}'), Glyph::Skipped));
    }

    #[test]
    fn fitting_cuts_with_an_ellipsis_within_the_width() {
        let f = fonts();
        let long = "a very long player name indeed";
        let cut = f.fit(long, 12.0, 60.0);
        assert!(cut.ends_with('…'), "{cut}");
        assert!(f.width(&cut, 12.0) <= 60.0 + 1e-9);
        assert_eq!(f.fit("ab", 12.0, 60.0), "ab");
    }
}
