//! The snapshot layer: what the snapshot and delta chunks of a demo hold, and recording them.
//!
//! * [`items`]: snapshots as DDNet stores them (items, extended UUID item types), checked
//!   as DDNet checks them, and a builder. Its items are re-exported here.
//! * [`delta`]: snapshot deltas, created and applied with the protocol's item sizes.
//! * [`replay`]: the full snapshot at every tick.
//! * [`recorder`]: records a demo the way DDNet's recorder does, from ints or from full
//!   snapshots (keyframes and deltas chosen as DDNet chooses them).
//!
//! It builds on the [container layer](super::container) for chunks and leaves editing
//! whole files to the [editing tools](super::edit). What the items mean (which type is a
//! character, a flag, ...) is left to callers.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod delta;
pub mod items;
pub mod recorder;
pub mod replay;

pub use items::*;
