//! Teeworlds/DDNet datafiles, the container of map files: reading them with the checks
//! DDNet makes when it opens one, loading their zlib-compressed data blocks, writing them,
//! and the map layer on top (whether DDNet's client would load a map, and its facts).
//!
//! * [`format`](mod@format): the header and item-type layouts as binrw structs.
//! * [`reader`]: [`Datafile`], opened as DDNet's `CDataFileReader::Open` opens a file;
//!   items in place; data blocks inflated on demand, capped.
//! * [`writer`]: [`DatafileBuilder`], for maps made in tests and crafted demos.
//! * [`map`]: the checks of DDNet's `CMap::Load`, [`MapFacts`] for `demokit info`, the
//!   physics layers' tiles ([`physics_layers`]), and [`minimal_map`].
//!
//! What the map's layers, images and envelopes look like when drawn is left to others:
//! only what decides whether DDNet loads the map, and the physics layers' raw tiles, are
//! read.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod error;
pub mod format;
pub mod map;
pub mod reader;
pub mod writer;

pub use error::{DataError, DataErrorKind, DatafileError, DatafileErrorKind};
pub use map::{
    MapError, MapErrorKind, MapFacts, PhysicsLayer, PhysicsLayers, check_load, minimal_map,
    physics_layers,
};
pub use reader::{Datafile, Item};
pub use writer::DatafileBuilder;
