//! Opening an input (`-`: standard input) through the library's entry point,
//! [`demokit::recording::Recording`], and turning its errors into messages and exit
//! statuses.

use super::output::complain;
use super::{Exit, Outcome, Stop};
use demokit::recording::{Cause, Error, Recording};
use std::io;
use std::path::Path;

/// Whether `path` is `-`: standard input (as an OUTPUT: standard output). A file named
/// `-` is still reachable as `./-`.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Opens the recording at `path`, or on standard input for `-`.
pub(crate) fn open(path: &Path) -> Result<Recording, Error> {
    if is_stdin(path) {
        Recording::from_reader(io::stdin().lock())
    } else {
        Recording::open(path)
    }
}

/// The exit status an error of the library earns.
pub(crate) fn exit_of(error: &Error) -> Exit {
    match error.cause() {
        Cause::Io => Exit::Io,
        Cause::Argument => Exit::Usage,
        _ => Exit::Invalid,
    }
}

/// Prints `error` about `file` (with the command that helps, for a recording that breaks
/// off) and returns the matching stop.
pub(crate) fn failure(file: &Path, error: &Error) -> Stop {
    if error.is_truncation() {
        complain(
            file,
            format_args!("{error} (`demokit repair` keeps every complete record)"),
        );
    } else {
        complain(file, error);
    }
    Stop(exit_of(error))
}

/// Opens `file` as a recording, or says why it cannot be.
pub(crate) fn open_recording(file: &Path) -> Outcome<Recording> {
    open(file).map_err(|e| failure(file, &e))
}
