//! Pictures through the entry point: the range resolved and the map found and checked as
//! the recording's format has them, then the game read into a [`Scene`] by the render
//! layer ([`crate::render`]).

use super::{Error, Format, MapProblem, Operation, Recording};
use crate::datafile::PhysicsLayers;
use crate::render::{Gathered, Gatherer, ImageFormat, RenderOptions, Scene};
use crate::teehistorian::TeehistorianReader;
use sha2::Digest;

impl Recording {
    /// The picture of the game over `options`' range: the map (a demo's embedded one, or
    /// [`RenderOptions::map`], which a teehistorian file needs), the paths of the players
    /// asked for and the marks of their events. A range outside the recording, a player
    /// it does not have or a size out of bounds is [`Error::Argument`]; a missing map, one
    /// that does not load or one whose checksum is not the recording's is [`Error::Map`].
    pub fn scene(&self, options: &RenderOptions) -> Result<Scene, Error> {
        let (mut gathered, layers) = self.gather(options)?;
        crate::render::build(&mut gathered, layers.as_ref(), options).map_err(|message| {
            Error::Argument {
                operation: Operation::Render,
                message,
            }
        })
    }

    /// What a picture or a report page is drawn from: the range's positions, events and
    /// chat, and the map's physics layers where there is a map that loads.
    pub(crate) fn gather(
        &self,
        options: &RenderOptions,
    ) -> Result<(Gathered, Option<PhysicsLayers>), Error> {
        let map = self.render_map(options)?;
        let range = self.range_for(Operation::Render, options.from, options.to)?;
        // A map given that does not load is refused; a demo's embedded one is left out,
        // and the picture says why.
        let mut map_note = None;
        let layers = match &map {
            Some(bytes) => match crate::datafile::physics_layers(bytes) {
                Ok(layers) => Some(layers),
                Err(e) if options.map.is_some() => {
                    return Err(Error::Map {
                        operation: Operation::Render,
                        problem: MapProblem::Invalid {
                            message: e.to_string(),
                        },
                    });
                }
                Err(e) => {
                    map_note = Some(format!("the embedded map does not load ({e}): no tiles"));
                    None
                }
            },
            None => None,
        };
        let mut gathered = self.visit(&mut Gatherer { range })??;
        gathered.map_note = map_note;
        Ok((gathered, layers))
    }

    /// The picture of [`scene`](Self::scene) as a PNG image or an SVG document.
    pub fn render(&self, options: &RenderOptions, format: ImageFormat) -> Result<Vec<u8>, Error> {
        let scene = self.scene(options)?;
        Ok(match format {
            ImageFormat::Png => scene.to_png(),
            ImageFormat::Svg => scene.to_svg().into_bytes(),
        })
    }

    /// The map to draw: the one given, checked against the recording's checksum, or a
    /// demo's embedded map; `None` for a Source demo, or a demo without a map.
    fn render_map(&self, options: &RenderOptions) -> Result<Option<Vec<u8>>, Error> {
        let mismatch = |checksum, expected: String, actual: String| Error::Map {
            operation: Operation::Render,
            problem: MapProblem::Mismatch {
                checksum,
                expected,
                actual,
            },
        };
        match self.format {
            Format::TwDemo => {
                let embedded = self.extract_map().ok();
                match (&options.map, embedded) {
                    (Some(map), Some(embedded)) => {
                        let actual = crc32fast::hash(map);
                        if actual != embedded.crc32.expected {
                            return Err(mismatch(
                                "CRC-32",
                                format!("{:08x}", embedded.crc32.expected),
                                format!("{actual:08x}"),
                            ));
                        }
                        Ok(Some(map.clone()))
                    }
                    (Some(map), None) => Ok(Some(map.clone())),
                    (None, embedded) => {
                        Ok(embedded.map(|e| e.bytes).filter(|bytes| !bytes.is_empty()))
                    }
                }
            }
            Format::Teehistorian => {
                let reader = TeehistorianReader::new(self.reader()?)?;
                let header = reader.header();
                let Some(map) = &options.map else {
                    return Err(Error::Map {
                        operation: Operation::Render,
                        problem: MapProblem::Missing {
                            format: self.format,
                            name: header.map_name.clone().unwrap_or_default(),
                            sha256: header.map_sha256.as_ref().map(|s| s.to_lowercase()),
                            crc32: header
                                .map_crc
                                .as_ref()
                                .and_then(|s| u32::from_str_radix(s, 16).ok())
                                .map(|crc| format!("{crc:08x}")),
                        },
                    });
                };
                if let Some(expected) = &header.map_sha256 {
                    let actual = hex::encode(sha2::Sha256::digest(map));
                    if !actual.eq_ignore_ascii_case(expected) {
                        return Err(mismatch("SHA-256", expected.to_lowercase(), actual));
                    }
                } else if let Some(expected) = &header.map_crc {
                    let actual = crc32fast::hash(map);
                    if u32::from_str_radix(expected, 16).ok() != Some(actual) {
                        return Err(mismatch(
                            "CRC-32",
                            expected.to_lowercase(),
                            format!("{actual:08x}"),
                        ));
                    }
                }
                Ok(Some(map.clone()))
            }
            _ => match options.map {
                Some(_) => Err(Error::Argument {
                    operation: Operation::Render,
                    message: "a Source demo's map is a BSP file, which is not drawn: its paths \
                              are drawn on the map's plane without a map"
                        .into(),
                }),
                None => Ok(None),
            },
        }
    }
}
