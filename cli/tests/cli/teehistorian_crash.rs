//! A server killed mid-recording leaves a readable file, and `demokit info` reads a file in
//! flat memory.
//!
//! * `crash_leaves_every_flushed_tick`: this test binary runs itself as a child
//!   ([`child_records`] with `DEMOKIT_CRASH_CHILD` set), which records a server loop to a
//!   file with [`FlushPolicy::EveryTick`] and reports every ended tick on stdout. The parent
//!   kills it with SIGKILL after [`KILL_AFTER`] ticks and checks that every reported tick is
//!   in the file, that ticks number consistently, and that the file's complete prefix
//!   summarizes and rewrites.
//! * `info_memory_does_not_grow_with_file_size`: `demokit info --json` on a ~1 MB and a
//!   ~30 MB recording, peak RSS measured by `/usr/bin/time -v`.

use crate::common;

use common::child::{record_then_kill, test_name};
use common::temp::{TempFiles, temp_path};

use common::server::Server;
use demokit::teehistorian::{
    FlushPolicy, Header, Message, MessageAt, Recorder, Summary, TeehistorianSlice,
    TeehistorianWriter,
};
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The environment variable that turns [`child_records`] on; its value is the output path.
const CHILD_ENV: &str = "DEMOKIT_CRASH_CHILD";

/// Ticks the parent waits to see flushed before it kills the child.
const KILL_AFTER: i32 = 200;

/// The child stops by itself after this many ticks...
const CHILD_MAX_TICKS: i32 = 100_000;

/// ...or after this long, whichever comes first.
const CHILD_MAX_TIME: Duration = Duration::from_secs(15);

/// The header every recording here starts with.
fn header() -> Header {
    Header {
        map_name: Some("crash".into()),
        ..Header::new("2")
    }
}

/// The child's side of the crash test: does nothing unless [`CHILD_ENV`] names a path.
/// Records to that file, printing `flushed <tick>` after each tick, until it is killed
/// (or, failing that, after [`CHILD_MAX_TICKS`] ticks or [`CHILD_MAX_TIME`]).
#[test]
fn child_records() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let file = std::fs::File::create(path).unwrap();
    let mut rec = Recorder::new(file, &header())
        .unwrap()
        .with_flush_policy(FlushPolicy::EveryTick);
    let mut server = Server::new(16);
    server.start(&mut rec);
    let started = Instant::now();
    let mut out = std::io::stdout().lock();
    for tick in 1..=CHILD_MAX_TICKS {
        server.tick(&mut rec, tick);
        writeln!(out, "flushed {tick}").unwrap();
        out.flush().unwrap();
        if started.elapsed() > CHILD_MAX_TIME {
            break;
        }
    }
    rec.finish().unwrap();
}

/// Checks the messages of a killed recording: ticks never go back, client 0's position
/// matches the tick of each of its records. Returns the last tick.
fn check_ticks(items: &[MessageAt<'_>]) -> i32 {
    let mut last_tick = 0;
    let mut x0 = None;
    for item in items {
        assert!(item.tick >= last_tick, "tick went back at {}", item.offset);
        last_tick = item.tick;
        match item.message {
            Message::PlayerNew { cid: 0, x, .. } => x0 = Some(x),
            Message::PlayerDiff { cid: 0, dx, .. } => x0 = Some(x0.unwrap() + dx),
            _ => continue,
        }
        assert_eq!(x0, Some(1000 + item.tick), "client 0 at {}", item.offset);
    }
    last_tick
}

/// A recording killed with SIGKILL after [`KILL_AFTER`] flushed ticks holds every one of
/// them, ends in a truncation error, and its complete messages summarize and rewrite.
#[test]
fn crash_leaves_every_flushed_tick() {
    let path = temp_path("crash", "teehistorian");
    let _cleanup = TempFiles(vec![path.clone()]);
    // SIGKILL: no FINISH, no flush beyond what end_tick did.
    let seen = record_then_kill(
        &test_name(module_path!(), "child_records"),
        CHILD_ENV,
        &path,
        "flushed ",
        KILL_AFTER,
    );
    assert!(seen >= KILL_AFTER, "the child stopped after tick {seen}");

    let data = std::fs::read(&path).unwrap();
    let slice = TeehistorianSlice::parse(&data).unwrap();
    let mut items = Vec::new();
    let mut end_error = None;
    let mut messages = slice.messages();
    for item in messages.by_ref() {
        match item {
            Ok(item) => items.push(item),
            Err(e) => end_error = Some(e),
        }
    }
    // The file ends without FINISH: at a message boundary (an unfinished file, which reads
    // to its end) or inside the message the child was writing (a truncation where that
    // message starts).
    assert!(!messages.finished(), "a killed recording has no FINISH");
    let complete = items.last().map_or(slice.body_offset() as u64, |m| m.end());
    match &end_error {
        Some(e) => {
            assert!(e.is_truncation(), "{e}");
            assert_eq!(e.offset, complete);
        }
        None => assert_eq!(data.len() as u64, complete),
    }
    assert!(!items.iter().any(|m| m.message == Message::Finish));
    let last_tick = check_ticks(&items);
    assert!(
        last_tick >= seen,
        "tick {seen} was reported flushed, the file ends at tick {last_tick}"
    );

    // The summary of the killed file covers everything up to the cut.
    let (summary, error) = Summary::scan(&data).unwrap();
    assert_eq!(error.is_some(), end_error.is_some());
    assert!(error.iter().all(|e| e.is_truncation()));
    assert!(!summary.finished);
    assert_eq!(summary.last_tick, Some(last_tick));
    assert_eq!(summary.messages, items.len() as u64);

    // The complete messages rewrite to the file's prefix plus FINISH.
    let mut writer = TeehistorianWriter::with_header_json(Vec::new(), slice.header_json()).unwrap();
    for item in &items {
        writer.write_item(item).unwrap();
    }
    let fixed = writer.finish().unwrap();
    assert_eq!(fixed[..complete as usize], data[..complete as usize]);
    assert_eq!(fixed.len(), complete as usize + 1);
    let (summary, error) = Summary::scan(&fixed).unwrap();
    assert!(error.is_none());
    assert!(summary.finished);
    // `repair` gives the same file.
    let (repaired, report) =
        common::into_vec(|out| demokit::teehistorian::repair(&data, out)).unwrap();
    assert!(repaired == fixed);
    assert!(report.finish_appended);
    assert_eq!(report.bytes_dropped as u64, data.len() as u64 - complete);
    assert_eq!(summary.last_tick, Some(last_tick));
    assert_eq!(summary.messages, items.len() as u64 + 1);
    assert_eq!(
        demokit::teehistorian::rewrite(&fixed, Vec::new())
            .unwrap()
            .0,
        fixed
    );
}

/// Records `ticks` ticks of a 64-player server to `path`; returns the file's size.
fn record_file(path: &Path, ticks: i32) -> u64 {
    let file = std::fs::File::create(path).unwrap();
    let sink = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut rec = Recorder::new(sink, &header())
        .unwrap()
        .with_flush_policy(FlushPolicy::Never);
    let mut server = Server::new(64);
    server.start(&mut rec);
    for tick in 1..=ticks {
        server.tick(&mut rec, tick);
    }
    rec.finish().unwrap().flush().unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// Runs `demokit info --json <path>` under `/usr/bin/time -v`; returns the peak RSS in KiB
/// and the JSON output.
fn info_peak_rss(path: &Path) -> (u64, serde_json::Value) {
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(crate::run::BIN)
        .args(["info", "--json"])
        .arg(path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let rss = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .unwrap_or_else(|| panic!("no peak RSS in {stderr}"))
        .trim()
        .parse()
        .unwrap();
    (rss, serde_json::from_slice(&out.stdout).unwrap())
}

/// `demokit info` streams a teehistorian file: its peak memory on a ~30 MB recording is
/// within a few MiB of that on a ~1 MB one.
#[test]
fn info_memory_does_not_grow_with_file_size() {
    if !Path::new("/usr/bin/time").is_file() {
        crate::common::skip::skipped("/usr/bin/time not found (needed to measure peak RSS)");
        return;
    }
    let (small, large) = (
        temp_path("mem-small", "teehistorian"),
        temp_path("mem-large", "teehistorian"),
    );
    let _cleanup = TempFiles(vec![small.clone(), large.clone()]);
    let small_len = record_file(&small, 1_000);
    let large_len = record_file(&large, 33_000);
    assert!(small_len > 500_000 && small_len < 2_000_000, "{small_len}");
    assert!(large_len > 28_000_000, "{large_len}");
    let (small_rss, small_json) = info_peak_rss(&small);
    let (large_rss, large_json) = info_peak_rss(&large);
    eprintln!(
        "peak RSS: {small_rss} KiB for {small_len} bytes, {large_rss} KiB for {large_len} bytes"
    );
    assert_eq!(small_json["last_tick"], 1_000);
    assert_eq!(large_json["last_tick"], 33_000);
    assert_eq!(large_json["finished"], true);
    // Reading the whole file would add ~30 MB; streaming adds nothing but noise.
    assert!(
        large_rss < small_rss + 8 * 1024,
        "peak RSS grew from {small_rss} KiB to {large_rss} KiB"
    );
}
