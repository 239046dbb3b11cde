//! Fuzz target: see `demokit_fuzz::render_page` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| demokit_fuzz::render_page(data));
