//! Crash tests: the test binary runs one of its own tests as a child process that records
//! to a file and reports progress on stdout, then kills it with SIGKILL.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// The name the test harness gives the test `name` of the module `module` (its
/// `module_path!()`): the path without the crate's name.
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}

/// Runs the test `child_test` (its full name, see [`test_name`]) of this binary with `env` set to `path`, reads its stdout
/// until a line `<prefix><n>` with `n >= until`, then kills it (SIGKILL on Unix: no
/// destructor, no flush) and waits for it. Returns the last `n` seen, which may be below
/// `until` if the child ended on its own first.
pub fn record_then_kill(child_test: &str, env: &str, path: &Path, prefix: &str, until: i32) -> i32 {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", child_test, "--include-ignored", "--nocapture"])
        .arg("--test-threads=1")
        .env(env, path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = 0;
    for line in stdout.lines() {
        let line = line.unwrap();
        if let Some(n) = line.strip_prefix(prefix) {
            seen = n.parse().unwrap();
            if seen >= until {
                break;
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    seen
}
