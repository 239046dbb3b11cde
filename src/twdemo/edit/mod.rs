//! The editing tools: whole-file operations built on the container and snapshot layers.
//!
//! * [`trim`]: a tick range cut out at any tick, starting with a rebuilt keyframe.
//! * [`convert`]: between versions 3 to 6, payloads untouched.
//! * [`repair`]: a recording cut off mid-write made whole again, and the embedded map.
//! * [`markers`]: the timeline markers listed, set, added or removed, nothing else touched.
//! * [`scrub`]: player names and clans made pseudonyms and chat taken out, before sharing.
//! * [`validate`]: what DDNet's player would reject.
//!
//! Each reads a file through the [container layer](super::container), rebuilds snapshots
//! through the [snapshot layer](super::snapshot) where it must, and writes a new file. Each
//! has a `*_reader` form that reads the file as a stream (twice where the output's header
//! needs what only its end tells), so that memory does not grow with the file.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod convert;
pub mod markers;
pub mod repair;
pub mod scrub;
mod stream;
pub mod trim;
pub mod validate;
