//! Source engine demos: the container on real files of every game, bad input, property
//! tests and repair.
//!
//! One test binary of modules (one per concern), sharing the helpers in `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod bits_props;
mod bsp;
mod demofile;
mod entity;
mod entity_props;
mod entity_writer;
mod game;
mod net;
mod net_props;
mod props;
mod real;
mod repair;
mod scrub;
mod streaming;
mod tf_demo_parser;
mod trim;

/// Counts allocations for the tests that bound memory (armed per thread, so tests running
/// in parallel do not see each other's).
#[global_allocator]
static ALLOCATOR: common::alloc::CountingAllocator = common::alloc::CountingAllocator;
