//! Fuzz target: see `demokit_fuzz::twdemo_roundtrip` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| demokit_fuzz::twdemo_roundtrip(data));
