//! Fuzz target: see `demokit_fuzz::teehistorian_read` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| demokit_fuzz::teehistorian_read(data));
