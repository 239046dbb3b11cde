//! The Teeworlds game protocol (0.6/DDNet and 0.7): property tests, real recordings and
//! libtw2's typed protocol.
//!
//! One test binary of modules (one per concern), sharing the helpers in `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod inflight;
mod libtw2;
mod props;
mod real;
mod seven_validation;
