//! Endless inputs: a pipe that sends a recording's header and then never ends. Every
//! command reading one stops at the documented cap on a stream
//! ([`DEFAULT_MAX_STREAM_BYTES`], 1 GiB), fails with exit 1 and a message naming the
//! limit, and holds at most 1.25 times the cap meanwhile (peak RSS measured with
//! `/usr/bin/time -v`; where that program is missing the memory check says it skipped).

use crate::run::BIN;
use demokit::recording::DEFAULT_MAX_STREAM_BYTES;
use demokit::teehistorian::{Header, Recorder};
use std::io::Write;
use std::process::{Command, Stdio};

/// A teehistorian file's start: the magic and its header, then only ticks.
fn teehistorian_head() -> Vec<u8> {
    Recorder::new(Vec::new(), &Header::new("2"))
        .unwrap()
        .into_inner()
        .unwrap()
}

/// A demo's start: a version 6 header with the rest zeros.
fn demo_head() -> Vec<u8> {
    let demo = std::fs::read(crate::common::root().join("fixtures/recorded_v6.demo")).unwrap();
    demo[..200].to_vec()
}

/// Runs `demokit ARGS` with `head` and then `filler` forever on stdin (until the tool
/// closes it); returns the exit status, stderr and, under `/usr/bin/time`, the peak RSS
/// in KiB.
fn run_endless(
    args: &[&str],
    head: Vec<u8>,
    filler: Vec<u8>,
) -> (Option<i32>, String, Option<u64>) {
    let timed = std::path::Path::new("/usr/bin/time").exists();
    let mut command = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.arg("-v").arg(BIN);
        c
    } else {
        Command::new(BIN)
    };
    let mut child = command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        // Stops when the tool closes the pipe (a write error): the stream itself never ends.
        if stdin.write_all(&head).is_err() {
            return;
        }
        while stdin.write_all(&filler).is_ok() {}
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let rss = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .map(|v| v.trim().parse().unwrap());
    (out.status.code(), stderr, rss)
}

#[test]
fn endless_streams_stop_at_the_documented_cap() {
    // A teehistorian stream of empty ticks (TICK_SKIP 0, forever): valid to its last byte.
    let tick_skips = [0xfe_u8, 0x00].repeat(32 * 1024);
    let zeros = vec![0u8; 64 * 1024];
    let cases: [(&[&str], Vec<u8>, &Vec<u8>); 4] = [
        (&["info", "-"], teehistorian_head(), &tick_skips),
        (&["validate", "-"], teehistorian_head(), &tick_skips),
        (&["dump", "-"], demo_head(), &zeros),
        (&["rewrite", "-", "-"], demo_head(), &zeros),
    ];
    let cap_kib = DEFAULT_MAX_STREAM_BYTES / 1024;
    let mut measured = 0;
    for (args, head, filler) in cases {
        let (code, stderr, rss) = run_endless(args, head, filler.clone());
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("longer than {DEFAULT_MAX_STREAM_BYTES} bytes")),
            "{args:?}: {stderr}"
        );
        if let Some(rss) = rss {
            measured += 1;
            assert!(
                rss < cap_kib * 5 / 4 + 64 * 1024,
                "{args:?}: peak RSS {rss} KiB for a cap of {cap_kib} KiB"
            );
        }
    }
    if measured == 0 {
        crate::common::skip::skipped("/usr/bin/time not found (the memory check did not run)");
    }
}
