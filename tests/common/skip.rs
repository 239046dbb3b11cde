//! Skipped tests, counted where a reader sees them. A test whose prerequisite is missing
//! (the shared corpus, a Python with the right packages, `/usr/bin/time`) cannot tell libtest that
//! it skipped, so it returns early after calling [`skipped`], which notes the test's name
//! and the reason. When the test binary exits, the notes are written straight to the
//! process's standard error (not the captured output), after libtest's own summary:
//!
//! ```text
//! SKIPPED 12 tests of this binary (they checked nothing):
//!   only the full corpus holds some files (...): real::facts_agree, ...
//! ```
//!
//! so a plain `cargo test` shows how many tests did not run, and why. In CI (`CI=true`)
//! the helpers that find the prerequisites fail instead of skipping.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::{Mutex, Once};

/// Test names by reason.
static SKIPPED: Mutex<BTreeMap<String, BTreeSet<String>>> = Mutex::new(BTreeMap::new());
/// Tests that ran but left part of their inputs out, by reason.
static PARTLY: Mutex<BTreeMap<String, BTreeSet<String>>> = Mutex::new(BTreeMap::new());
static REPORT_AT_EXIT: Once = Once::new();

unsafe extern "C" {
    /// The C library's `atexit`: libtest ends the process through `exit` (or by returning
    /// from `main`), which runs these handlers after its summary.
    fn atexit(handler: extern "C" fn()) -> std::ffi::c_int;
}

/// Notes that the current test skipped for `reason`; the caller returns right after.
pub fn skipped(reason: &str) {
    note(&SKIPPED, reason);
}

/// Notes that the current test ran but left some of its inputs out for `reason` (files
/// only the full corpus holds): it checked what it had, and the closing note says what
/// it did not check.
pub fn partly(reason: &str) {
    note(&PARTLY, reason);
}

/// Adds the current test to `notes` under `reason`, and makes sure they are reported.
fn note(notes: &Mutex<BTreeMap<String, BTreeSet<String>>>, reason: &str) {
    // libtest runs each test on a thread named after it.
    let test = std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_owned();
    notes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(reason.to_owned())
        .or_default()
        .insert(test);
    REPORT_AT_EXIT.call_once(|| {
        // SAFETY: `report` is a plain function that lives as long as the process.
        unsafe {
            atexit(report);
        }
    });
}

/// Writes the closing count of skipped (and partly run) tests to the process's standard
/// error.
extern "C" fn report() {
    let mut text = String::new();
    for (notes, heading) in [
        (
            &SKIPPED,
            "SKIPPED {} tests of this binary (they checked nothing)",
        ),
        (
            &PARTLY,
            "PARTLY RUN {} tests of this binary (some of their inputs were missing)",
        ),
    ] {
        let notes = notes.lock().unwrap_or_else(|e| e.into_inner());
        let count: usize = notes.values().map(BTreeSet::len).sum();
        if count == 0 {
            continue;
        }
        text.push_str(&format!(
            "\n{}:\n",
            heading.replace("{}", &count.to_string())
        ));
        for (reason, tests) in notes.iter() {
            let tests: Vec<&str> = tests.iter().map(String::as_str).collect();
            text.push_str(&format!("  {reason}: {}\n", tests.join(", ")));
        }
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
}
