//! What holds for every format: malformed input, the fuzz corpus's regressions, failing
//! sinks, serde shapes, the fixtures, the feature gates, the layers of the crate and the
//! minimum Rust version.
//!
//! One test binary of modules (one per concern), sharing the helpers in `tests/common`.

#[path = "../common/mod.rs"]
mod common;

mod compressed;
mod datafile_real;
mod feature_gates;
mod fixtures;
mod fuzz_checks;
mod fuzz_regressions;
mod layers;
mod malformed;
mod malformed_corpus;
mod msrv;
mod operations;
mod serde_records;
mod sink_failure;
mod source_entity_noise;

/// Counts allocations for the tests that bound memory (armed per thread, so tests running
/// in parallel do not see each other's).
#[global_allocator]
static ALLOCATOR: common::alloc::CountingAllocator = common::alloc::CountingAllocator;
