//! A global allocator for tests that bound allocations: it records the largest single
//! allocation made on the current thread while armed, so that tests running in parallel do
//! not see each other's allocations. A test binary installs it with
//! `#[global_allocator] static ALLOCATOR: LargestAllocation = LargestAllocation;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The allocator: `System`, noting sizes.
pub struct LargestAllocation;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`; noting a size touches only
// thread-locals with const initializers, which do not allocate.
unsafe impl GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn note(size: usize) {
    // try_with: the allocator runs during thread teardown too.
    let _ = ARMED.try_with(|armed| {
        if armed.get() {
            let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
        }
    });
}

/// Runs `f` and returns its result with the largest allocation it made on this thread
/// (0 unless the test binary installed [`LargestAllocation`]).
pub fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|l| l.set(0));
    ARMED.with(|a| a.set(true));
    let out = f();
    ARMED.with(|a| a.set(false));
    (out, LARGEST.with(|l| l.get()))
}
