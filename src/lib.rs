//! demokit reads and writes game recordings byte for byte: Teeworlds/DDNet demos, DDNet
//! teehistorian files and Source engine demos.
//!
//! Start at the entry point: [`recording::Recording`] opens any of the three formats from a
//! path, a reader or bytes, tells them apart by their magic bytes, and does every
//! operation through one API (`summary`, `validate`, `dump`, `rewrite`, `repair`, `trim`,
//! `scrub`, the game stream, the game log and the rest), an operation a format lacks being
//! an `Error::Unsupported`. Behind it, every format implements one trait,
//! [`format::RecordingFormat`] ([`twdemo::TwDemo`], [`teehistorian::Teehistorian`],
//! [`source::SourceDemo`]), and the entry point forwards each operation to it in one
//! place, so the compiler checks that the formats mirror each other. [`model`] states once
//! what a game is whatever the format (its players, samples, events and chat, and the
//! rules every format follows); the game stream ([`recording::Recording::game`]) hands it
//! out, and the pictures and pages are drawn from it.
//!
//! Under the entry point the crate is layered the way libtw2 is:
//!
//! * [`codec`] holds the shared primitives (Teeworlds variable-width ints, Huffman,
//!   fixed-size string fields, Teeworlds UUIDs, little-endian bit streams). It knows
//!   nothing about files.
//! * [`twdemo`] is the Teeworlds/DDNet demo, in four layers: the container (header
//!   layouts, readers, a writer), the snapshot layer (snapshots, deltas, replay, the
//!   recorder), the editing tools (trim, convert, repair, validate, timeline markers,
//!   scrub) and the game layer ([`twdemo::game`]: snapshot items and messages typed by name,
//!   and the world of players, characters, chat and kills tick by tick).
//! * [`teehistorian`] is DDNet's teehistorian format: header, messages, readers, a writer,
//!   the game-server recorder, the semantic layer (absolute positions and inputs per
//!   tick), the game layer, and the tools (repair, cut, scrub, validate).
//! * [`source`] is the Source engine demo (`HL2DEMO`): the container (header, command
//!   frames, per-game profiles, readers, a writer and a repair for unfinished recordings),
//!   the network layer inside packets (messages of every engine branch, string tables,
//!   game events), the entity layer (data tables, server classes, entity updates and the
//!   players among them) and the game layer, each read and written, and the tools (trim
//!   and scrub) built on them.
//! * [`gamenet`] is the game protocol of Teeworlds 0.6 with DDNet's extensions and of
//!   Teeworlds 0.7: what snapshot items and network messages are, by name, with readers
//!   and writers that pack back to the same ints and bytes. The game layers of [`twdemo`]
//!   and [`teehistorian`] are built on it.
//! * [`datafile`] reads Teeworlds/DDNet datafiles (map files), as DDNet's client checks
//!   them when it loads a demo's embedded map.
//! * [`bsp`] reads Source maps (Valve BSP), which a Source demo names but does not hold:
//!   their floors and walls, for pictures, and overview descriptions.
//! * [`format`](mod@format) is what every format shares at the top: the [`format::Format`] tag, the
//!   [`format::RecordingFormat`] trait, the [`format::Input`] its operations read, and the
//!   one [`format::Error`] they return.
//! * [`detect`] tells formats apart by their magic bytes, for front ends such as the
//!   `demokit` tool.
//! * `export` (feature `export`) turns recordings into tables: Arrow record batches and
//!   Parquet datasets, for DuckDB, Spark, pandas and Polars.
//! * `render` (feature `render`) draws a recording's map, paths and events as SVG or PNG,
//!   and `page` (feature `page`) makes a self-contained HTML page that plays it. Both sit
//!   above the entry point and read the game stream; their methods on `Recording`
//!   (`scene`, `render`, `page`) are written in them.
//! * [`output`] writes whole files atomically and refuses to overwrite an input or an
//!   existing file by accident; it knows no format.
//! * [`read`] holds what the readers of every format share: the read error shape and the
//!   streaming input buffer.
//! * [`validation`] holds what the validation of every format finds, in one shape.
//! * [`scrub`] holds the pseudonyms, chat filters and name mapping that every format's
//!   scrub uses; what each format rewrites stays in the format.
//! * [`shown`] escapes text from a recording before it is shown to a person, so that it
//!   cannot drive a terminal.
//! * [`time`] holds tick ranges and time as every format counts them: the server's tick
//!   rate, a range of ticks, and range bounds in ticks, seconds or timeline markers.
//!
//! The command-line tool is the separate crate `demokit-cli` (binary `demokit`), the C ABI
//! is `demokit-ffi`, and the Python package is built from the same repository; all three
//! are front ends over this crate.
//!
//! # Cargo features
//!
//! The crate has no default features; it builds with none of them.
//!
//! | feature | what it gates |
//! | --- | --- |
//! | `serde` | `Serialize` on the public record, summary and report types, and `Deserialize` on their owned forms (UUIDs through `uuid/serde`). serde itself is always a dependency: the teehistorian header is JSON. |
//! | `proptest` | `twdemo::container::strategies`, `teehistorian::strategies` and `source::strategies`: the proptest strategies this crate's own property tests use, for whole files and single records of every kind, which always write without error and read back to themselves. |
//! | `export` | `export`: recordings as Arrow record batches and Parquet datasets. Turns on `serde`. Arrow and Parquet are large builds. |
//! | `render` | `render`: a recording's map, paths and events as SVG or PNG (it pulls a rasterizer). |
//! | `page` | `page`: a recording as one self-contained HTML page that plays it, and an index page over many. Turns on `render` and `serde`. |
//!
//! A library user writes `demokit = "0.1"`, and adds `features = ["serde"]` for the
//! derives, `features = ["export"]` for the tables, `features = ["render"]` or `["page"]`
//! for pictures and pages, and `features = ["proptest"]` (usually under
//! `[dev-dependencies]`) for the strategies. docs.rs documents every feature.

#![warn(missing_docs)]
// No `unsafe` anywhere: no benchmark has shown a hot loop that needs it.
#![forbid(unsafe_code)]
// No panics outside tests, nor indexing or slicing that could panic: errors are returned,
// and the few invariants that rule one out are proven where they are allowed (clippy.toml
// lets tests use these).
#![cfg_attr(
    not(test),
    deny(
        clippy::expect_used,
        clippy::unwrap_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod bsp;
pub mod codec;
pub mod compressed;
pub mod datafile;
pub mod detect;
#[cfg(feature = "export")]
pub mod export;
pub mod format;
pub mod gamenet;
pub mod model;
pub mod output;
#[cfg(feature = "page")]
pub mod page;
pub mod read;
pub mod recording;
#[cfg(feature = "render")]
pub mod render;
pub mod scrub;
#[cfg(feature = "serde")]
mod serde_util;
pub mod shown;
pub mod source;
pub mod teehistorian;
pub mod time;
pub mod twdemo;
pub mod validation;

/// The README's examples, compiled and run as doctests so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The examples of `docs/library.md` (the library per format, the game layer, the
/// property-test strategies), compiled and run as doctests; the strategies need the
/// `proptest` feature.
#[cfg(all(doctest, feature = "proptest"))]
#[doc = include_str!("../docs/library.md")]
pub struct DocsLibraryDoctests;

/// The examples of `docs/validate.md` (`validate` from the library), compiled and run as
/// doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/validate.md")]
pub struct DocsValidateDoctests;

/// The examples of `docs/export.md` (tables through `demokit::export`), compiled and run as
/// doctests; they need the `export` feature.
#[cfg(all(doctest, feature = "export"))]
#[doc = include_str!("../docs/export.md")]
pub struct DocsExportDoctests;
