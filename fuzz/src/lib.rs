//! demokit's fuzz targets: each target in `fuzz_targets/` calls one function of this
//! crate with the fuzzer's input.
//!
//! The functions, and what each checks, are in `tests/robustness/fuzz_checks.rs` of the project
//! root, which `tests/robustness/fuzz_regressions.rs` also compiles, so that every input a fuzzer ever
//! found (`fixtures/malformed/fuzz/`) stays fixed under `cargo test`. What this crate adds
//! is the fuzzer's side: the allocation cap below.

#[cfg(fuzzing)]
mod capped {
    //! Under the fuzzer, any single allocation of 64 MiB or more aborts the process, which
    //! libFuzzer reports as a crash with the input that caused it: no reader may size an
    //! allocation by a length field beyond what the input holds.
    use std::alloc::{GlobalAlloc, Layout, System};

    /// The largest single allocation allowed.
    const CAP: usize = 64 << 20;

    struct Capped;

    fn check(size: usize) {
        if size >= CAP {
            eprintln!("allocation of {size} bytes (cap {CAP})");
            std::process::abort();
        }
    }

    // SAFETY: every call is forwarded unchanged to `System`; the size check neither
    // allocates nor touches the memory.
    unsafe impl GlobalAlloc for Capped {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            check(layout.size());
            unsafe { System.alloc(layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            check(layout.size());
            unsafe { System.alloc_zeroed(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            check(new_size);
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Capped = Capped;
}

// The checks live in the main crate's tests/, which the published crate ships (this crate
// is not published), so that tests/robustness/fuzz_regressions.rs compiles there too.
#[path = "../../tests/robustness/fuzz_checks.rs"]
mod checks;

pub use checks::*;
