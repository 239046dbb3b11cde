//! demokit reads and writes game recordings byte for byte.
//!
//! The crate is layered the way libtw2 is:
//!
//! * [`codec`] holds the shared primitives (Teeworlds variable-width ints, Huffman,
//!   fixed-size string fields, Teeworlds UUIDs). It knows nothing about files.
//! * [`twdemo`] is the Teeworlds/DDNet demo, in three layers: the container (header
//!   layouts, readers, a writer), the snapshot layer (snapshots, deltas, replay, the
//!   recorder) and the editing tools (trim, convert, repair, validate). The meaning of
//!   snapshot items and network messages is left to callers.
//! * [`teehistorian`] is DDNet's teehistorian format: header, messages, readers, a writer.
//! * [`source`] is the Source engine demo container (`HL2DEMO`): header, command frames,
//!   per-game profiles, readers, a writer and a repair for unfinished recordings.
//! * [`datafile`] reads Teeworlds/DDNet datafiles (map files), as DDNet's client checks
//!   them when it loads a demo's embedded map.
//! * [`detect`] tells formats apart by their magic bytes, for front ends such as the CLI.
//! * [`output`] writes whole files atomically and refuses to overwrite an input or an
//!   existing file by accident; it knows no format.
//! * [`read`] holds what the readers of every format share: the read error shape and the
//!   streaming input buffer.
//! * [`report`] holds what the tools of every format report in the same shape.
//!
//! # Cargo features
//!
//! | feature | default | what it gates |
//! | --- | --- | --- |
//! | `cli` | on | the `demokit` command-line tool (the binary) and the crates only it needs: clap, indicatif, rayon. Turns on `serde`, since the tool's JSON comes from the derives. The library's API is the same with or without it. |
//! | `serde` | with `cli` | `Serialize` on the public record, summary and report types, and `Deserialize` on their owned forms (UUIDs through `uuid/serde`). serde itself is always a dependency: the teehistorian header is JSON. |
//! | `proptest` | off | `twdemo::strategies`, `teehistorian::strategies` and `source::strategies`: the proptest strategies this crate's own property tests use, for whole files and single records of every kind, which always write without error and read back to themselves. |
//!
//! A library user who wants none of the tool's dependencies writes
//! `demokit = { version = "0.1", default-features = false }` and adds `features =
//! ["serde"]` for the derives; `features = ["proptest"]` (usually under
//! `[dev-dependencies]`) for the strategies. docs.rs documents every feature.

#![warn(missing_docs)]
// No `unsafe` anywhere: no benchmark has shown a hot loop that needs it.
#![forbid(unsafe_code)]

pub mod codec;
pub mod datafile;
pub mod detect;
#[cfg(feature = "export")]
pub mod export;
pub mod gamenet;
pub mod output;
pub mod read;
pub mod report;
#[cfg(feature = "serde")]
mod serde_util;
pub mod source;
pub mod teehistorian;
pub mod twdemo;

/// The README's examples, compiled and run as doctests so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
