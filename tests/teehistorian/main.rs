//! DDNet teehistorian: layouts, readers and writers, the semantic layer, DDNet's byte
//! vectors and the differential tests against the `teehistorian` crate.
//!
//! One test binary of modules (one per concern), sharing the helpers in `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod differential;
mod layout_props;
mod minor_versions;
mod props;
mod real;
mod semantic_props;
mod streaming;
mod vectors;

/// Counts allocations for the tests that bound memory (armed per thread, so tests running
/// in parallel do not see each other's).
#[global_allocator]
static ALLOCATOR: common::alloc::CountingAllocator = common::alloc::CountingAllocator;
