//! Teeworlds/DDNet demos: the container, snapshots, the recorder, the editing tools, and the
//! differential tests against libtw2.
//!
//! One test binary of modules (one per concern), sharing the helpers in `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod chat;
mod large;
mod libtw2_differential;
mod props;
mod real;
mod recorder;
mod replay;
mod snapshot_props;
mod snapshots;
mod streaming;
mod streaming_edit;
mod tools;
mod trim;
mod validate_ddnet;

/// Counts allocations for the tests that bound memory (armed per thread, so tests running
/// in parallel do not see each other's).
#[global_allocator]
static ALLOCATOR: common::alloc::CountingAllocator = common::alloc::CountingAllocator;
