//! Snapshot deltas (being written by a helper).
