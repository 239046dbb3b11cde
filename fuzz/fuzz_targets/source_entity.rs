//! Fuzz target: see `demokit_fuzz::source_entity` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| demokit_fuzz::source_entity(data));
