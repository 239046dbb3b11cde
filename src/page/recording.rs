//! Report pages of a recording: the game stream read as for a picture, with the
//! recording's summary and timeline markers, into a [`Page`]. The method is
//! [`Recording`]'s, written here so that the entry point does not depend on the pages: this
//! layer sits above it.

use super::{Page, PageOptions};
use crate::recording::{Error, Operation, Recording};

impl Recording {
    /// The report page's contents over `options`' range: the summary, the players, chat,
    /// events and markers, the map picture and every player's positions (thinned to
    /// [`PageOptions::max_samples`]). Refused as [`scene`](Self::scene) refuses: a range
    /// outside the recording, a player it does not have or a size out of bounds is
    /// [`Error::Argument`]; a map that does not load or is not the recording's is
    /// [`Error::Map`]. A teehistorian file without its map still gets its page: the
    /// players, chat, events and timeline, with the positions on a grid.
    pub fn page(&self, options: &PageOptions) -> Result<Page, Error> {
        let mut render = options.render.clone();
        render.heatmap = false;
        let (mut gathered, layers) = self.gather(&render, true)?;
        let scene =
            crate::render::build(&mut gathered, layers.as_ref(), &render).map_err(|message| {
                Error::Argument {
                    operation: Operation::Page,
                    message,
                }
            })?;
        // The header's facts; a recording that ends early still has them.
        let summary = self.summary().ok().map(|(summary, _)| summary);
        // Only demos have timeline markers; the others have none to show.
        let markers = self.markers().map(|m| m.markers).unwrap_or_default();
        let file = self
            .path()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Page::build(
            gathered,
            &scene,
            summary,
            markers,
            file,
            self.format().name().to_owned(),
            options.max_samples,
        ))
    }
}
