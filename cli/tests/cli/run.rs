//! Running the `demokit` binary cargo built for these tests.

use serde_json::Value;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

/// The path of the binary.
pub const BIN: &str = env!("CARGO_BIN_EXE_demokit");

/// A command that runs the binary, for a test that sets its input, environment or way of
/// running it.
pub fn command() -> Command {
    Command::new(BIN)
}

/// Runs `demokit` with `args` and returns what it did.
pub fn demokit<S: AsRef<OsStr>>(args: &[S]) -> Output {
    command().args(args).output().expect("demokit runs")
}

/// Runs `demokit SUBCOMMAND FILE [extra...]`.
pub fn run(subcommand: &str, file: &Path, extra: &[&str]) -> Output {
    let mut args = vec![subcommand.as_ref(), file.as_os_str()];
    args.extend(extra.iter().map(OsStr::new));
    demokit(&args)
}

/// The process's stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The process's stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every stdout line, parsed as JSON.
pub fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}
