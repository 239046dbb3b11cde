//! A C ABI over demokit's recorders, so that C and C++ game servers (DDNet and its plugins)
//! can record teehistorian files and demos through demokit.
//!
//! The interface is in `ffi/include/demokit.h`, generated from this crate by cbindgen (the test
//! `ffi_header_is_current` fails when the committed header is stale). Its shape:
//!
//! * Opaque handles: [`DemokitThHeader`], [`DemokitThRecorder`], [`DemokitDemoRecorder`],
//!   each created by a `_new`/`_create`/`_start` function through an out-pointer and freed
//!   by a `_free`/`_close` call. Every call checks its handle against the live ones, so a
//!   closed or freed handle gets [`DemokitStatus::ClosedHandle`] (and a second close does
//!   nothing) instead of a read of freed memory.
//! * Every fallible function returns a [`DemokitStatus`]; on failure,
//!   [`demokit_last_error`] gives a message on the calling thread.
//! * Every pointer is checked for null; strings are NUL-terminated UTF-8 and are refused
//!   ([`DemokitStatus::InvalidUtf8`]) otherwise.
//! * No panic crosses the boundary. The calls hold nothing that can panic on any argument
//!   (every error is a returned status), and as a second line each body runs under
//!   `catch_unwind`, which turns a panic into [`DemokitStatus::Internal`] in builds that
//!   unwind. Builds with `panic = "abort"` (as DDNet links Rust code) do not rely on it.
//!
//! This is the one crate of the project with `unsafe` code: dereferencing the pointers C
//! hands in. Each use states what it relies on; the rules are the ones the header
//! documents for each argument (a non-null pointer points to as many valid elements as its
//! length argument says, for the duration of the call).
//!
//! What the calls do is the Rust recorders' business: [`demokit::teehistorian::Recorder`]
//! and [`demokit::twdemo::Recorder`]; the bytes are the same as theirs for the same calls.

// No panics outside tests: errors are returned, and the few invariants that rule one out
// are proven where they are allowed (clippy.toml lets tests use these).
#![cfg_attr(
    not(test),
    deny(
        clippy::expect_used,
        clippy::unwrap_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

mod demo;
mod error;
mod teehistorian;

pub use demo::*;
pub use error::*;
pub use teehistorian::*;
