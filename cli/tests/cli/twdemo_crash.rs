//! A game client or server killed while it records a demo leaves a file that reads, that
//! `demokit validate` judges, and that `demokit repair` makes whole.
//!
//! This test binary runs itself as a child ([`child_records`] with `DEMOKIT_DEMO_CRASH_CHILD`
//! set), which records snapshots and chat messages to a file with the [`Recorder`], flushing
//! after every tick, and reports each tick on stdout. The parent kills it with SIGKILL after
//! [`KILL_AFTER`] ticks, then checks the file with the library and the command line.

use crate::common;

use crate::run::demokit;
use common::child::{record_then_kill, test_name};
use common::temp::{TempFiles, temp_path};

use demokit::twdemo::{self as tw, Chunk, DemoSlice, Recorder, RecorderConfig, SnapshotBuilder};
use std::io::Write;
use std::time::{Duration, Instant};

/// The environment variable that turns [`child_records`] on; its value is the output path.
const CHILD_ENV: &str = "DEMOKIT_DEMO_CRASH_CHILD";

/// Ticks the parent waits to see recorded before it kills the child.
const KILL_AFTER: i32 = 600;

/// The first tick recorded.
const FIRST_TICK: i32 = 1000;

/// The child stops by itself after this long.
const CHILD_MAX_TIME: Duration = Duration::from_secs(15);

/// The map every recording embeds.
/// A map DDNet loads, so that `validate` can accept the repaired demo.
fn map() -> Vec<u8> {
    demokit::datafile::minimal_map(40, 20, "crash").unwrap()
}

/// The snapshot of `tick`: eight players moving, a flag that moves every 50 ticks.
fn snapshot(builder: &mut SnapshotBuilder, tick: i32) {
    builder.clear();
    for id in 0..8 {
        // A character (type 9 in 0.6/DDNet): tick, x, y and more.
        let mut data = [0i32; 22];
        data[0] = tick;
        data[1] = 100 * id + tick % 400;
        data[2] = 200 + (tick / 7) % 50;
        builder.add_item(9, id, &data).unwrap();
    }
    builder.add_item(5, 0, &[tick / 50, 300, 1]).unwrap();
}

/// The child's side: does nothing unless [`CHILD_ENV`] names a path. Records to that
/// file, printing `recorded <tick>` after each flushed tick, until it is killed (or after
/// [`CHILD_MAX_TIME`]).
#[test]
fn child_records() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let file = std::fs::File::create(path).unwrap();
    let config = RecorderConfig::ddnet("crash", "2026-11-24_12-00-00");
    let mut rec = Recorder::start(file, &config, &map()).unwrap();
    let mut builder = SnapshotBuilder::new();
    let started = Instant::now();
    let mut out = std::io::stdout().lock();
    let mut tick = FIRST_TICK;
    while started.elapsed() < CHILD_MAX_TIME {
        snapshot(&mut builder, tick);
        rec.record_snapshot(tick, builder.finish().as_snapshot())
            .unwrap();
        if tick % 25 == 0 {
            // A chat line (NETMSGTYPE_SV_CHAT-like bytes; the container does not care).
            rec.record_message(&[0x06, 0x00, 0x40, b'g', b'g', 0])
                .unwrap();
        }
        rec.flush().unwrap();
        writeln!(out, "recorded {tick}").unwrap();
        out.flush().unwrap();
        tick += 1;
    }
    rec.finish().unwrap();
}

/// A recording killed with SIGKILL after [`KILL_AFTER`] ticks holds every tick the child
/// reported, reads to its last complete chunk, is judged by `validate`, and `repair` gives
/// a file that `validate` accepts, with the length the ticks imply.
#[test]
fn killed_recording_reads_validates_and_repairs() {
    let path = temp_path("crash", "demo");
    let repaired_path = temp_path("crash-repaired", "demo");
    let _cleanup = TempFiles(vec![path.clone(), repaired_path.clone()]);
    // SIGKILL: no `finish`, so no length or markers patched.
    let seen = record_then_kill(
        &test_name(module_path!(), "child_records"),
        CHILD_ENV,
        &path,
        "recorded ",
        FIRST_TICK + KILL_AFTER,
    );
    assert!(
        seen >= FIRST_TICK + KILL_AFTER,
        "the child reported only {seen}"
    );

    let data = std::fs::read(&path).unwrap();
    let slice = DemoSlice::parse(&data).unwrap();
    assert_eq!(slice.prelude().header.length, 0, "finish never ran");
    let mut last_tick = None;
    let mut keyframes = 0;
    let mut end_error = None;
    for item in slice.chunks() {
        match item {
            Ok(c) => {
                if let Chunk::Tick(m) = c.chunk {
                    last_tick = Some(m.tick);
                    keyframes += m.keyframe as usize;
                }
            }
            Err(e) => {
                end_error = Some(e);
                break;
            }
        }
    }
    let last_tick = last_tick.expect("tick markers were written");
    assert!(
        last_tick >= seen,
        "tick {seen} was reported but the file ends at {last_tick}"
    );
    // A kill lands between chunks (every tick was flushed whole) or inside one.
    if let Some(e) = &end_error {
        assert!(e.is_truncation(), "{e}");
    }
    assert!(
        keyframes >= 3,
        "DDNet's rule: a keyframe every 250 ticks, {keyframes} seen"
    );

    // `validate` names what is wrong (the header's length) and exits 1; `info` reads it,
    // up to a chunk the kill cut short (which it names, with exit 1: the recorder writes a
    // chunk's header and payload with two writes, so a kill can land between them).
    let info = demokit(&["info", "--json", path.to_str().unwrap()]);
    assert_eq!(
        info.status.code(),
        Some(if end_error.is_some() { 1 } else { 0 }),
        "{}",
        String::from_utf8_lossy(&info.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["last_tick"], last_tick);
    let validate = demokit(&["validate", "--json", path.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&validate.stdout).unwrap();
    let lib_report = tw::edit::validate::validate(&data);
    assert_eq!(report["accepted"], lib_report.accepted());
    assert_eq!(
        validate.status.code(),
        Some(if lib_report.accepted() { 0 } else { 1 })
    );

    // `repair` patches the length (and drops a chunk cut short); the result validates.
    let repair = demokit(&[
        "repair",
        "--json",
        path.to_str().unwrap(),
        repaired_path.to_str().unwrap(),
    ]);
    assert_eq!(
        repair.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&repair.stderr)
    );
    let repaired = std::fs::read(&repaired_path).unwrap();
    let fixed = DemoSlice::parse(&repaired).unwrap();
    assert_eq!(
        fixed.prelude().header.length,
        (last_tick - FIRST_TICK) / 50,
        "length from the first and last tick marker"
    );
    assert!(
        fixed.chunks().all(|c| c.is_ok()),
        "the repaired file reads to its end"
    );
    let validate = demokit(&["validate", repaired_path.to_str().unwrap()]);
    assert_eq!(
        validate.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&validate.stderr)
    );
    // The repaired file is the killed one up to its last complete chunk, but for the
    // length field (bytes 152..156).
    assert!(repaired.len() <= data.len());
    assert_eq!(repaired[..152], data[..152]);
    assert_eq!(repaired[156..], data[156..repaired.len()]);
}
