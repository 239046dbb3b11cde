//! A global allocator for tests that bound memory or allocations: while armed on the
//! current thread it counts allocations and records the largest single allocation and the
//! peak of heap bytes live on that thread (allocated minus freed since arming), so that
//! tests running in parallel do not see each other's allocations. A test binary installs it
//! with `#[global_allocator] static ALLOCATOR: CountingAllocator = CountingAllocator;`;
//! without that, [`measure`] sees nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The allocator: `System`, counting.
pub struct CountingAllocator;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    /// Allocations and reallocations.
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
    /// Bytes allocated minus bytes freed on this thread since arming; memory allocated
    /// before and freed while armed makes it negative, which only lowers the peak.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`; noting a size touches only
// thread-locals with const initializers, which do not allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size(), 0);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note_free(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size, layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// An allocation of `allocated` bytes (replacing `freed` bytes, for a reallocation).
fn note(allocated: usize, freed: usize) {
    // try_with: the allocator runs during thread teardown too.
    if ARMED.try_with(Cell::get).unwrap_or(false) {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        let _ = LARGEST.try_with(|l| l.set(l.get().max(allocated)));
        live(allocated as isize - freed as isize);
    }
}

/// `freed` bytes given back.
fn note_free(freed: usize) {
    if ARMED.try_with(Cell::get).unwrap_or(false) {
        live(-(freed as isize));
    }
}

fn live(change: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + change;
        live.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

/// What [`measure`] saw.
#[derive(Debug, Clone, Copy)]
pub struct Usage {
    /// How many allocations (and reallocations) were made.
    pub count: usize,
    /// The largest single allocation.
    pub largest: usize,
    /// The most heap bytes live at once (of those allocated while measuring).
    pub peak: usize,
}

/// Runs `f` and returns its result with the heap use it caused on this thread (zeros
/// unless the test binary installed [`CountingAllocator`]).
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Usage) {
    COUNT.with(|c| c.set(0));
    LARGEST.with(|l| l.set(0));
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    ARMED.with(|a| a.set(true));
    let out = f();
    ARMED.with(|a| a.set(false));
    let usage = Usage {
        count: COUNT.with(Cell::get),
        largest: LARGEST.with(Cell::get),
        peak: PEAK.with(Cell::get).max(0) as usize,
    };
    (out, usage)
}

/// Runs `f` and returns its result with the largest allocation it made on this thread
/// (0 unless the test binary installed [`CountingAllocator`]).
pub fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let (out, usage) = measure(f);
    (out, usage.largest)
}

/// How many allocations `f` made on this thread (0 unless the test binary installed
/// [`CountingAllocator`]).
pub fn allocations(f: impl FnOnce()) -> usize {
    measure(f).1.count
}

/// Heap peaks of named operations run one after the other, by name (see [`measure`]): what
/// the streaming tests bound.
#[derive(Debug, Default)]
pub struct Peaks(pub Vec<(&'static str, usize)>);

impl Peaks {
    /// Runs `f` and notes the heap peak it caused under `name`.
    pub fn run(&mut self, name: &'static str, f: impl FnOnce()) {
        let ((), usage) = measure(f);
        self.0.push((name, usage.peak));
    }
}
