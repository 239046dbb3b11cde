//! A raster written as a palette PNG: one byte a pixel, the colours in a table.
//!
//! A picture of a game is a few flat colours (air, tiles, the bands, each player's path)
//! and the anti-aliased edges between them. Written as 8-bit RGBA, the empty grid of a
//! Source picture took 533 KB; as a palette it takes a few KB, and a report page that
//! embeds its picture shrinks as much. The palette is the picture's own colours where
//! it has at most 256; otherwise the 256 that cover the most pixels (every flat fill among
//! them, kept exact), each other colour (an edge's blend) drawn in its nearest one. No
//! dithering: the blends it would spread are a pixel wide.
//!
//! This module knows no scene: it encodes a raster.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use std::collections::HashMap;

/// The most colours a palette holds.
const PALETTE: usize = 256;

/// `pixmap` as a palette PNG (colour type 3, 8 bits), or `None` if the encoder fails
/// (it writes into a `Vec`, which does not).
pub(crate) fn palette_png(pixmap: &tiny_skia::Pixmap) -> Option<Vec<u8>> {
    // The scene paints every pixel opaque (the margin first), so the premultiplied
    // colour is the colour.
    let pixels: Vec<u32> = pixmap
        .pixels()
        .iter()
        .map(|p| u32::from_be_bytes([0, p.red(), p.green(), p.blue()]))
        .collect();
    let mut counts: HashMap<u32, u32> = HashMap::new();
    for &p in &pixels {
        *counts.entry(p).or_default() += 1;
    }
    let mut by_count: Vec<(u32, u32)> = counts.into_iter().collect();
    // Most pixels first; ties by colour, so that the same picture gives the same bytes.
    by_count.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let palette: Vec<u32> = by_count.iter().take(PALETTE).map(|c| c.0).collect();
    let mut index: HashMap<u32, u8> = palette
        .iter()
        .enumerate()
        .map(|(i, &c)| (c, u8::try_from(i).unwrap_or(u8::MAX)))
        .collect();
    let mut indices = Vec::with_capacity(pixels.len());
    for p in pixels {
        let i = match index.get(&p) {
            Some(&i) => i,
            None => {
                let i = nearest(&palette, p);
                index.insert(p, i);
                i
            }
        };
        indices.push(i);
    }
    let table: Vec<u8> = palette
        .iter()
        .flat_map(|c| {
            let [_, r, g, b] = c.to_be_bytes();
            [r, g, b]
        })
        .collect();
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(table);
        // Rows of palette indices compress best unfiltered.
        encoder.set_filter(png::FilterType::NoFilter);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::NonAdaptive);
        encoder.set_compression(png::Compression::Best);
        let mut writer = encoder.write_header().ok()?;
        writer.write_image_data(&indices).ok()?;
        writer.finish().ok()?;
    }
    Some(out)
}

/// The index of the colour in `palette` nearest to `color` (squared distance in RGB).
fn nearest(palette: &[u32], color: u32) -> u8 {
    let [_, r, g, b] = color.to_be_bytes();
    let mut best = (u32::MAX, 0usize);
    for (i, &c) in palette.iter().enumerate() {
        let [_, pr, pg, pb] = c.to_be_bytes();
        let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).unsigned_abs().pow(2);
        let distance = d(r, pr) + d(g, pg) + d(b, pb);
        if distance < best.0 {
            best = (distance, i);
        }
    }
    u8::try_from(best.1).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_colours_are_kept_exactly_and_many_go_to_the_nearest() {
        let mut pixmap = tiny_skia::Pixmap::new(300, 2).unwrap();
        let mut paint = tiny_skia::Paint::default();
        paint.set_color_rgba8(10, 20, 30, 255);
        pixmap.fill_rect(
            tiny_skia::Rect::from_xywh(0.0, 0.0, 300.0, 1.0).unwrap(),
            &paint,
            tiny_skia::Transform::identity(),
            None,
        );
        // The second row: 300 greys, more than a palette holds.
        for x in 0..300u32 {
            let v = (x * 255 / 299) as u8;
            paint.set_color_rgba8(v, v, v, 255);
            pixmap.fill_rect(
                tiny_skia::Rect::from_xywh(x as f32, 1.0, 1.0, 1.0).unwrap(),
                &paint,
                tiny_skia::Transform::identity(),
                None,
            );
        }
        let bytes = palette_png(&pixmap).unwrap();
        let mut decoder = png::Decoder::new(bytes.as_slice());
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap();
        assert_eq!(reader.info().color_type, png::ColorType::Indexed);
        let mut buf = vec![0; reader.output_buffer_size()];
        let frame = reader.next_frame(&mut buf).unwrap();
        assert_eq!(frame.color_type, png::ColorType::Rgb);
        assert_eq!(&buf[..3], &[10, 20, 30], "the flat fill is exact");
        let row = &buf[300 * 3..600 * 3];
        for x in 0..300usize {
            let want = (x * 255 / 299) as i32;
            let got = i32::from(row[x * 3]);
            assert!((got - want).abs() <= 2, "grey {x}: {got} for {want}");
        }
    }
}
