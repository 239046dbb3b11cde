//! Snapshots (being written by a helper).
