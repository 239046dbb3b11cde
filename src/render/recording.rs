//! Pictures of a recording: the range resolved and the map found and checked by the entry
//! point as the recording's format has them, then the game stream read into a [`Scene`].
//! The methods are [`Recording`]'s, written here so that the entry point does not depend
//! on the pictures: this layer sits above it.

use super::{Gathered, ImageFormat, RenderOptions, Scene};
use crate::datafile::PhysicsLayers;
use crate::recording::{Error, MapProblem, Operation, Recording};

impl Recording {
    /// The picture of the game over `options`' range: the map (a demo's embedded one, or
    /// [`RenderOptions::map`], which a teehistorian file needs), the paths of the players
    /// asked for and the marks of their events. A range outside the recording, a player
    /// it does not have or a size out of bounds is [`Error::Argument`]; a missing map, one
    /// that does not load or one whose checksum is not the recording's is [`Error::Map`].
    pub fn scene(&self, options: &RenderOptions) -> Result<Scene, Error> {
        let (mut gathered, layers) = self.gather(options, false)?;
        crate::render::build(&mut gathered, layers.as_ref(), options).map_err(|message| {
            Error::Argument {
                operation: Operation::Render,
                message,
            }
        })
    }

    /// The map the recording names but does not hold ([`MapProblem::Missing`], with its
    /// name and checksums): what a front end looks for in a maps directory before drawing
    /// (a teehistorian file's map); `None` when the recording holds its map or names none.
    pub fn missing_map(&self) -> Option<MapProblem> {
        match self.game_map(None, Operation::Render) {
            Err(Error::Map {
                problem: problem @ MapProblem::Missing { .. },
                ..
            }) => Some(problem),
            _ => None,
        }
    }

    /// What a picture or a report page is drawn from: the range's positions, events and
    /// chat, and the map's physics layers where there is a map that loads. For a report
    /// `page`: a teehistorian file without its map is drawn on a grid (its chat, events
    /// and players need no map; the note says why), and the game's own events are read
    /// too (Source).
    pub(crate) fn gather(
        &self,
        options: &RenderOptions,
        page: bool,
    ) -> Result<(Gathered, Option<PhysicsLayers>), Error> {
        // A map given that does not load is refused; a demo's embedded one is left out,
        // and the picture says why.
        let mut map_note = None;
        let map = match self.game_map(options.map.as_deref(), Operation::Render) {
            Err(Error::Map {
                problem: MapProblem::Missing { name, .. },
                ..
            }) if page => {
                map_note = Some(format!(
                    "the map {name:?} was not given: positions on a grid of 10 tiles"
                ));
                None
            }
            map => map?,
        };
        let range = self.range_for(Operation::Render, options.from, options.to)?;
        let mut backdrop = None;
        if let Some(overview) = &options.overview {
            backdrop = Some(super::world::Backdrop::Overview(overview.clone()));
        }
        let layers = match &map {
            // A Source demo's map: its BSP file, read for its floors and walls (an
            // overview image, when given too, is drawn instead).
            Some(bytes) if crate::bsp::is_bsp(bytes) => {
                let world = crate::bsp::World::read(bytes).map_err(|e| Error::Map {
                    operation: Operation::Render,
                    problem: MapProblem::Invalid {
                        message: format!("the BSP file does not read: {e}"),
                    },
                })?;
                backdrop.get_or_insert(super::world::Backdrop::World(world));
                None
            }
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
        let mut gathered = crate::render::gather(self, range, page)?;
        gathered.map_note = map_note.or(gathered.map_note);
        if backdrop.is_some() && !gathered.y_up {
            return Err(Error::Argument {
                operation: Operation::Render,
                message: "an overview image is for a Source demo".into(),
            });
        }
        gathered.backdrop = backdrop;
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
}
