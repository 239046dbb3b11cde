//! Timeline markers: `twdemo::edit::markers` and `demokit markers`.
//!
//! * Every real demo in the corpus's `real-fixtures/twdemo` and DDNet's own reference demo
//!   (`the corpus's conformance/ddnet-recorder/ref_client.demo`, markers 103 and 351): setting
//!   the markers a demo has gives back its bytes; adding and removing markers gives a demo
//!   that reads back (with demokit and with libtw2, an independent reader) with exactly the
//!   markers asked for and differs from the input only inside the 260-byte marker block.
//! * The refusals, each of something DDNet's recorder would not write: more than 64
//!   markers, a tick outside the demo, markers less than a second apart, a version-3 demo;
//!   and a demo whose chunks do not read to the end.
//! * The CLI: the list (text and the library's JSON), `--add`/`--remove` with `-o`,
//!   `--in-place` and `-o -`, usage errors, and output safety (the input is never the
//!   output, an existing output needs `--force`, a refusal or a failing write leaves no
//!   file behind).
//! * Properties: any marker set DDNet's rules allow round-trips; any list of ticks at all
//!   is written exactly when the crate's recorder (which follows DDNet's `AddDemoMarker`)
//!   would keep every one of them and each lies in the demo. Case counts follow
//!   PROPTEST_CASES; failures persist under proptest-regressions/.

use crate::common;

use crate::run::{BIN, command, demokit, json_lines, stderr, stdout};
use common::temp::TempDir;
use common::{recorded, shared_dir};
use demokit::twdemo::container::format::{
    MAX_TIMELINE_MARKERS, TIMELINE_MARKERS_OFFSET, TIMELINE_MARKERS_SIZE,
};
use demokit::twdemo::edit::markers::{
    MIN_MARKER_SPACING, MarkersError, edit_markers, list_markers, set_markers,
};
use demokit::twdemo::{DemoSlice, Recorder, RecorderConfig};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::ffi::OsStr;
use std::io::Cursor;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Where the marker block lies in a file of version 4 or later.
const BLOCK: Range<usize> =
    TIMELINE_MARKERS_OFFSET as usize..TIMELINE_MARKERS_OFFSET as usize + TIMELINE_MARKERS_SIZE;

/// The real demos, sorted by name, with their bytes (none, with a note, without
/// the corpus outside CI).
fn real_demos() -> Vec<(PathBuf, Vec<u8>)> {
    let Some(shared) = shared_dir() else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(shared.join("real-fixtures/twdemo"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "demo"))
        .collect();
    paths.sort();
    let expected = if common::has_full_corpus() { 10 } else { 6 };
    assert!(
        paths.len() >= expected,
        "real demos went missing: {paths:?}"
    );
    paths
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// DDNet's reference demo, written by its own `CDemoRecorder` with markers 103 and 351.
fn ddnet_reference() -> Option<Vec<u8>> {
    let shared = shared_dir()?;
    Some(std::fs::read(shared.join("conformance/ddnet-recorder/ref_client.demo")).unwrap())
}

/// The markers of `data` as demokit reads them, checked against libtw2's reading.
fn read_back(data: &[u8]) -> Vec<i32> {
    let ours = DemoSlice::parse(data)
        .unwrap()
        .prelude()
        .markers_in_use()
        .to_vec();
    let mut warnings: Vec<libtw2_demo::Warning> = Vec::new();
    let reader = libtw2_demo::Reader::new(Cursor::new(data), &mut warnings).unwrap();
    assert_eq!(
        reader.timeline_markers(),
        &ours[..],
        "libtw2 reads otherwise"
    );
    ours
}

/// Asserts that `a` and `b` differ at most inside the marker block.
fn assert_only_block_differs(a: &[u8], b: &[u8], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: length");
    assert!(
        a[..BLOCK.start] == b[..BLOCK.start],
        "{what}: before the block"
    );
    assert!(a[BLOCK.end..] == b[BLOCK.end..], "{what}: after the block");
}

/// `n` markers from `first` to `last`, evenly apart (at least a second, so `n` is bounded
/// by the span).
fn spread(first: i32, last: i32, n: usize) -> Vec<i32> {
    let span = (last - first) as i64;
    let n = n.min(span as usize / MIN_MARKER_SPACING as usize + 1);
    if n <= 1 {
        return vec![first][..n].to_vec();
    }
    (0..n as i64)
        .map(|i| (first as i64 + span * i / (n as i64 - 1)) as i32)
        .collect()
}

/// The demo's first and last tick.
fn range(data: &[u8]) -> (i32, i32) {
    let list = list_markers(data).unwrap();
    assert!(list.break_off.is_none());
    (list.first_tick.unwrap(), list.last_tick.unwrap())
}

#[test]
fn a_demo_given_its_own_markers_comes_back_byte_for_byte() {
    let mut demos = real_demos();
    demos.extend(ddnet_reference().map(|d| (PathBuf::from("ref_client.demo"), d)));
    for (path, data) in &demos {
        let what = path.display().to_string();
        let list = list_markers(data).unwrap();
        if list.version < 4 {
            assert_eq!((list.stored_count, &list.markers[..]), (None, &[][..]));
            assert!(matches!(
                set_markers(data, &[]),
                Err(MarkersError::NoMarkerBlock { version: 3 })
            ));
            continue;
        }
        let (out, report) = set_markers(data, &list.markers).unwrap();
        assert!(out == *data, "{what}");
        assert!(!report.changed, "{what}");
        let (out, report) = edit_markers(data, &[], &[]).unwrap();
        assert!(out == *data && !report.changed, "{what}");
    }
    if let Some(reference) = ddnet_reference() {
        assert_eq!(read_back(&reference), [103, 351]);
        // Taking a marker away and putting it back is no change either.
        let (without, report) = edit_markers(&reference, &[], &[103]).unwrap();
        assert_eq!(
            (read_back(&without), report.removed),
            (vec![351], vec![103])
        );
        let (back, _) = edit_markers(&without, &[103], &[]).unwrap();
        assert!(back == reference);
    }
}

#[test]
fn markers_added_and_removed_read_back_exactly() {
    let demos = real_demos();
    let mut edited = 0;
    for (path, data) in &demos {
        let (path, data) = (path, data.clone());
        let what = path.display().to_string();
        let list = list_markers(&data).unwrap();
        if list.version < 4 {
            continue;
        }
        edited += 1;
        let (first, last) = range(&data);
        // As many as fit, the first and last tick included.
        let all = spread(first, last, MAX_TIMELINE_MARKERS);
        assert!(all.len() >= 2, "{what}: a span of {}", last - first);
        let (full, report) = edit_markers(&data, &all, &[]).unwrap();
        assert_eq!(read_back(&full), all, "{what}");
        assert_eq!((&report.added, report.changed), (&all, true), "{what}");
        assert_only_block_differs(&full, &data, &what);
        // Every other one removed: the rest stay in order, their slots move up, and the
        // slots they leave are zero.
        let remove: Vec<i32> = all.iter().copied().step_by(2).collect();
        let kept: Vec<i32> = all.iter().copied().skip(1).step_by(2).collect();
        let (half, report) = edit_markers(&full, &[], &remove).unwrap();
        assert_eq!(read_back(&half), kept, "{what}");
        assert_eq!(report.removed, remove, "{what}");
        assert_only_block_differs(&half, &data, &what);
        let block = DemoSlice::parse(&half)
            .unwrap()
            .prelude()
            .timeline_markers
            .unwrap();
        assert!(block.ticks[kept.len()..].iter().all(|&t| t == 0), "{what}");
        // Adding some back in another order writes them sorted.
        let again: Vec<i32> = remove.iter().rev().take(3).copied().collect();
        let (mixed, _) = edit_markers(&half, &again, &[]).unwrap();
        let mut expected = [kept.clone(), again].concat();
        expected.sort_unstable();
        assert_eq!(read_back(&mixed), expected, "{what}");
        // None at all: the input again, unless its recorder left garbage past the count
        // where markers were written, which is zero now.
        let (none, _) = set_markers(&mixed, &[]).unwrap();
        assert_eq!(read_back(&none), Vec::<i32>::new(), "{what}");
        assert_only_block_differs(&none, &data, &what);
        let written = BLOCK.start + 4..BLOCK.start + 4 + 4 * all.len();
        let had_garbage = data[written].iter().any(|&b| b != 0);
        assert_eq!(none == data, !had_garbage, "{what}");
        // The chunks are untouched, so the demo reads to its end as before.
        assert_eq!(range(&none), (first, last), "{what}");
    }
    // Every real demo but the one of version 3.
    assert!(
        demos.is_empty() || edited == demos.len() - 1,
        "{edited} edited"
    );
}

#[test]
fn what_ddnet_would_not_write_is_refused() {
    for (path, data) in real_demos() {
        let what = path.display().to_string();
        let list = list_markers(&data).unwrap();
        if list.version < 4 {
            assert!(matches!(
                edit_markers(&data, &[list.first_tick.unwrap()], &[]),
                Err(MarkersError::NoMarkerBlock { version: 3 })
            ));
            continue;
        }
        let (first, last) = range(&data);
        let err = |add: &[i32]| edit_markers(&data, add, &[]).unwrap_err();
        for outside in [first - 1, last + 1, -1, i32::MIN, i32::MAX] {
            match err(&[outside]) {
                MarkersError::OutsideDemo {
                    tick,
                    first_tick,
                    last_tick,
                    stored_at: None,
                } => assert_eq!((tick, first_tick, last_tick), (outside, first, last)),
                other => panic!("{what}: {outside}: {other:?}"),
            }
        }
        assert!(matches!(
            err(&[first, first + MIN_MARKER_SPACING - 1]),
            MarkersError::TooClose { previous, .. } if previous == first
        ));
        assert!(matches!(
            err(&[first, first]),
            MarkersError::Duplicate {
                stored_at: None,
                ..
            }
        ));
        assert!(matches!(
            edit_markers(&data, &[], &[first]),
            Err(MarkersError::NotAMarker { tick }) if tick == first
        ));
        // 64 fit where the demo is long enough, and a 65th does not.
        let all = spread(first, last, MAX_TIMELINE_MARKERS);
        if all.len() == MAX_TIMELINE_MARKERS {
            let (full, _) = set_markers(&data, &all).unwrap();
            // The count is checked before any single marker.
            assert!(matches!(
                edit_markers(&full, &[all[0] + 1], &[]),
                Err(MarkersError::TooMany { count: 65 })
            ));
        }
        let mut backwards = all.clone();
        backwards.reverse();
        if backwards.len() >= 2 {
            assert!(matches!(
                set_markers(&data, &backwards),
                Err(MarkersError::OutOfOrder { .. })
            ));
        }
        // A demo cut inside a chunk is for `repair`: refused with the offset of the chunk,
        // which the list names too.
        let cut = &data[..data.len() - 1];
        let list = list_markers(cut).unwrap();
        if let Some(at) = list.break_off.map(|c| c.offset) {
            match set_markers(cut, &[]) {
                Err(MarkersError::Read(e)) => assert_eq!(e.offset, at, "{what}"),
                other => panic!("{what}: {other:?}"),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The CLI.

/// A demo with a 20 KiB map (so that a write limited to a few KiB fails midway), tick
/// markers 1000 to 1400 and markers 1000, 1100 and 1200.
fn demo() -> Vec<u8> {
    recorded::demo_with_map("markers", 1000..=1400, |rec, tick| {
        if tick % 100 == 0 && tick < 1300 {
            assert!(rec.add_timeline_marker(tick));
        }
    })
}

/// Runs `demokit markers INPUT ARGS...`.
fn markers(input: &Path, args: &[&str]) -> Output {
    let mut all = vec![OsStr::new("markers"), input.as_os_str()];
    all.extend(args.iter().map(OsStr::new));
    demokit(&all)
}

/// Asserts the exit status, with stderr in the message.
fn assert_exit(out: &Output, code: i32, what: &str) {
    assert_eq!(out.status.code(), Some(code), "{what}: {}", stderr(out));
}

#[test]
fn cli_lists_markers_as_the_library_does() {
    let dir = TempDir::new("markers-list");
    let data = demo();
    let input = dir.write("in.demo", &data);
    let out = markers(&input, &[]);
    assert_exit(&out, 0, "list");
    let text = stdout(&out);
    for line in [
        "ticks             1000 to 1400",
        "timeline markers  3",
        "m1                tick 1000 (0 s)",
        "m2                tick 1100 (2 s)",
        "m3                tick 1200 (4 s)",
    ] {
        assert!(text.contains(line), "{line:?} not in {text}");
    }
    let out = markers(&input, &["--json"]);
    assert_exit(&out, 0, "list --json");
    let expected = serde_json::to_value(list_markers(&data).unwrap()).unwrap();
    assert_eq!(json_lines(&out), [expected]);
    assert_eq!(
        json_lines(&out)[0]["markers"],
        serde_json::json!([1000, 1100, 1200])
    );

    // A cut-off demo: the list of what reads, then the cut on stderr (exit 1).
    let cut = dir.write("cut.demo", &data[..data.len() - 3]);
    let out = markers(&cut, &[]);
    assert_exit(&out, 1, "list of a cut demo");
    assert!(stdout(&out).contains("m3                tick 1200"));
    assert!(stderr(&out).contains("demokit repair"), "{}", stderr(&out));

    // Version 3: no block, said so.
    let (v3, _) = demokit::twdemo::edit::convert::convert(&data, 3).unwrap();
    let v3 = dir.write("v3.demo", &v3);
    let out = markers(&v3, &[]);
    assert_exit(&out, 0, "list of v3");
    assert!(stdout(&out).contains("none (version 3 has no marker block)"));
    let out = markers(
        &v3,
        &[
            "--add",
            "1000",
            "-o",
            dir.path("v3-out.demo").to_str().unwrap(),
        ],
    );
    assert_exit(&out, 1, "add to v3");
    assert!(stderr(&out).contains("no timeline-marker block"));
    assert!(!dir.path("v3-out.demo").exists());
}

#[test]
fn cli_adds_and_removes_as_the_library_does() {
    let dir = TempDir::new("markers-edit");
    let data = demo();
    let input = dir.write("in.demo", &data);
    let output = dir.path("out.demo");
    let (expected, report) = edit_markers(&data, &[1300, 1400, 1050], &[1100]).unwrap();
    for args in [
        &["--add", "1300", "1400", "1050", "--remove", "1100"][..],
        &["--add", "1300,1400", "--remove", "1100", "--add", "1050"],
        &["--remove=1100", "--add=1050,1300,1400"],
        // As trim takes bounds: seconds from the first tick (1000) and markers.
        &["--add", "6s,8s", "1s", "--remove", "m2"],
    ] {
        let _ = std::fs::remove_file(&output);
        let mut all = args.to_vec();
        all.extend(["-o", output.to_str().unwrap(), "--json"]);
        let out = markers(&input, &all);
        assert_exit(&out, 0, &format!("{args:?}"));
        assert!(std::fs::read(&output).unwrap() == expected, "{args:?}");
        assert_eq!(
            json_lines(&out),
            [serde_json::to_value(&report).unwrap()],
            "{args:?}"
        );
    }
    assert_eq!(read_back(&expected), [1000, 1050, 1200, 1300, 1400]);
    assert!(std::fs::read(&input).unwrap() == data);

    // The text report.
    let out = markers(&input, &["--remove", "1000", "-o", "-"]);
    assert_exit(&out, 0, "to stdout");
    let (expected, _) = edit_markers(&data, &[], &[1000]).unwrap();
    assert!(out.stdout == expected, "the demo goes to stdout");
    let report = stderr(&out);
    assert!(
        report.contains("timeline markers  2 (1100, 1200)"),
        "{report}"
    );
    assert!(report.contains("removed           1 (1000)"), "{report}");

    // In place.
    let out = markers(&input, &["--add", "1250", "--in-place"]);
    assert_exit(&out, 0, "in place");
    let (expected, _) = edit_markers(&data, &[1250], &[]).unwrap();
    assert!(std::fs::read(&input).unwrap() == expected);
    assert_eq!(dir.names(), ["in.demo", "out.demo"]);
}

#[test]
fn cli_refusals_and_usage_errors_write_nothing() {
    let dir = TempDir::new("markers-refused");
    let data = demo();
    let input = dir.write("in.demo", &data);
    let out_path = dir.path("out.demo");
    let output = out_path.to_str().unwrap();
    for (args, code, message) in [
        (
            &["--add", "1120", "-o", output][..],
            1,
            "is 20 ticks after 1100",
        ),
        (
            &["--add", "999", "-o", output],
            2,
            "tick 999 is outside the demo, whose ticks run from 1000 to 1400",
        ),
        (
            &["--add", "-3", "-o", output],
            2,
            "tick -3 is outside the demo",
        ),
        (
            &["--add", "9s", "-o", output],
            1,
            "marker 1450 lies outside",
        ),
        (
            &["--remove", "m4", "-o", output],
            2,
            "there is no timeline marker 4",
        ),
        (
            &["--add", "1100", "-o", output],
            1,
            "is a timeline marker already",
        ),
        (
            &["--remove", "1101", "--in-place"],
            1,
            "not a timeline marker",
        ),
        (&["--add", "1300"], 2, "--output"),
        (&["-o", output], 2, "--add"),
        (&["--in-place"], 2, "--add"),
        (
            &["--add", "1300", "-o", output, "--in-place"],
            2,
            "cannot be used with",
        ),
        (&["--add", "x", "-o", output], 2, "invalid value"),
    ] {
        let out = markers(&input, args);
        assert_exit(&out, code, &format!("{args:?}"));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(std::fs::read(&input).unwrap() == data, "{args:?}");
        assert_eq!(dir.names(), ["in.demo"], "{args:?}");
    }
    // Standard input can be read, but not replaced.
    let run_stdin = |args: &[&str]| {
        let mut child = command()
            .args(["markers", "-"])
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        // The command may refuse before reading; a closed pipe is then fine.
        let _ = child.stdin.take().unwrap().write_all(&data);
        child.wait_with_output().unwrap()
    };
    let out = run_stdin(&["--add", "1300", "--in-place"]);
    assert_exit(&out, 2, "stdin in place");
    let out = run_stdin(&["--add", "1300", "-o", output]);
    assert_exit(&out, 0, "stdin to a file");
    assert!(std::fs::read(&out_path).unwrap() == edit_markers(&data, &[1300], &[]).unwrap().0);
}

#[test]
fn cli_never_destroys_its_input_or_an_existing_output() {
    let dir = TempDir::new("markers-safety");
    let data = demo();
    let input = dir.write("in.demo", &data);
    let sub = dir.path("sub");
    std::fs::create_dir(&sub).unwrap();
    let mut aliases = vec![input.clone(), sub.join("..").join("in.demo")];
    #[cfg(unix)]
    {
        let hard = dir.path("hard.demo");
        std::fs::hard_link(&input, &hard).unwrap();
        let soft = dir.path("soft.demo");
        std::os::unix::fs::symlink("in.demo", &soft).unwrap();
        aliases.extend([hard, soft]);
    }
    let before = dir.names();
    for alias in &aliases {
        for force in [&[][..], &["--force"]] {
            let mut args = vec!["--add", "1300", "-o", alias.to_str().unwrap()];
            args.extend(force);
            let out = markers(&input, &args);
            assert_exit(&out, 2, &alias.display().to_string());
            assert!(stderr(&out).contains("same file as the input"));
            assert!(std::fs::read(&input).unwrap() == data);
            assert_eq!(dir.names(), before);
        }
    }

    // An existing output: refused, then replaced with --force.
    let output = dir.write("out.demo", b"an older file");
    let out = markers(&input, &["--add", "1300", "-o", output.to_str().unwrap()]);
    assert_exit(&out, 2, "existing");
    assert!(stderr(&out).contains("already exists"));
    assert_eq!(std::fs::read(&output).unwrap(), b"an older file");
    let out = markers(
        &input,
        &["--add", "1300", "-o", output.to_str().unwrap(), "-f"],
    );
    assert_exit(&out, 0, "existing with -f");
    assert!(std::fs::read(&output).unwrap() == edit_markers(&data, &[1300], &[]).unwrap().0);
    // A refusal leaves the existing output as it was, even with --force.
    std::fs::write(&output, b"an older file").unwrap();
    let out = markers(
        &input,
        &["--add", "1210", "-o", output.to_str().unwrap(), "-f"],
    );
    assert_exit(&out, 1, "too close");
    assert_eq!(std::fs::read(&output).unwrap(), b"an older file");
    assert!(std::fs::read(&input).unwrap() == data);
}

/// With the process's file-size limit at a few KiB, the write fails midway: exit 3 and
/// nothing of the new file anywhere, the input and an existing output as they were.
#[cfg(unix)]
#[test]
fn a_write_failing_midway_leaves_no_partial_file() {
    let dir = TempDir::new("markers-efbig");
    let data = demo();
    assert!(data.len() > 16 * 1024);
    let input = dir.write("in.demo", &data);
    let run_limited = |args: &[&str]| -> Output {
        Command::new("sh")
            .arg("-c")
            .arg("trap '' XFSZ; ulimit -f 8 && exec \"$@\"")
            .arg("sh")
            .arg(BIN)
            .arg("markers")
            .arg(&input)
            .args(args)
            .output()
            .unwrap()
    };
    let output = dir.path("out.demo");
    let out = run_limited(&["--add", "1300", "-o", output.to_str().unwrap()]);
    assert_exit(&out, 3, "new file");
    assert!(
        stderr(&out).contains("cannot write at byte "),
        "{}",
        stderr(&out)
    );
    assert_eq!(dir.names(), ["in.demo"]);
    std::fs::write(&output, b"an older file").unwrap();
    let out = run_limited(&["--add", "1300", "-o", output.to_str().unwrap(), "-f"]);
    assert_exit(&out, 3, "over an existing file");
    assert_eq!(std::fs::read(&output).unwrap(), b"an older file");
    let out = run_limited(&["--add", "1300", "--in-place"]);
    assert_exit(&out, 3, "in place");
    assert!(std::fs::read(&input).unwrap() == data);
    assert_eq!(dir.names(), ["in.demo", "out.demo"]);
}

// ---------------------------------------------------------------------------------------------
// Properties.

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../proptest-regressions/twdemo_markers.txt"
        )))),
        ..ProptestConfig::default()
    }
}

/// A demo of `version` whose tick markers run from `first` to `last` (a few in between),
/// recorded without timeline markers.
fn recorded(version: u8, first: i32, last: i32) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet("props", "2026-11-26_12-00-00");
    config.version = version;
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"MAP").unwrap();
    let mut ticks = vec![
        first,
        first + (last - first) / 3,
        first + (last - first) / 2,
        last,
    ];
    ticks.dedup();
    for (i, tick) in ticks.into_iter().enumerate() {
        rec.record_tick_marker(tick, i == 0).unwrap();
        rec.record_message(&[1, 2, 3]).unwrap();
    }
    rec.finish().unwrap().into_inner()
}

/// A demo and a marker set DDNet's recorder would write into it: ascending, at least a
/// second apart, at most 64, within the demo's ticks (its ends included now and then).
fn demo_and_valid_markers() -> impl Strategy<Value = (Vec<u8>, Vec<i32>)> {
    (
        4u8..=6,
        0..1_000_000i32,
        0..6_000i32,
        0..120i32,
        prop::collection::vec(50..700i32, 0..80),
    )
        .prop_map(|(version, first, span, start, gaps)| {
            let last = first + span;
            let mut markers = Vec::new();
            let mut tick = first + start.min(span);
            for gap in std::iter::once(0).chain(gaps) {
                tick += gap;
                if tick > last || markers.len() == MAX_TIMELINE_MARKERS {
                    break;
                }
                markers.push(tick);
            }
            (recorded(version, first, last), markers)
        })
}

proptest! {
    #![proptest_config(config())]

    /// A valid set is written, reads back exactly (demokit and libtw2), changes only the
    /// block, is what the recorder writes with the same markers, and goes away again.
    #[test]
    fn any_valid_marker_set_round_trips((data, markers) in demo_and_valid_markers()) {
        let (out, report) = set_markers(&data, &markers).unwrap();
        prop_assert_eq!(read_back(&out), markers.clone());
        prop_assert_eq!(&report.after, &markers);
        prop_assert_eq!(report.changed, !markers.is_empty());
        assert_only_block_differs(&out, &data, "set");
        // Added one by one in any order through edit_markers: the same bytes.
        let mut shuffled = markers.clone();
        shuffled.reverse();
        let (edited, _) = edit_markers(&data, &shuffled, &[]).unwrap();
        prop_assert!(edited == out);
        // The same set again changes nothing; none at all gives the input back.
        let (again, report) = set_markers(&out, &markers).unwrap();
        prop_assert!(again == out && !report.changed);
        let (none, _) = edit_markers(&out, &[], &markers).unwrap();
        prop_assert!(none == data);
    }

    /// Any ticks at all: written exactly when DDNet's recorder would keep every one (the
    /// crate's `Recorder::add_timeline_marker` follows `AddDemoMarker`: at most 64, each at
    /// least 50 ticks after the last) and each lies in the demo; then read back as given.
    /// The ticks step from near the demo's first tick, half the steps near a second (45 to
    /// 54 ticks) and half by -20 to 119, so that lists both pass and fail, on every rule and
    /// at its edge; or they are anywhere at all.
    #[test]
    fn any_ticks_are_written_only_as_ddnet_would(
        first in 0..2_000i32,
        span in 0..4_000i32,
        start in -100..200i32,
        steps in prop::collection::vec(prop_oneof![45..55i32, -20..120i32], 0..70),
        anywhere in prop::collection::vec(any::<i32>(), 0..3),
        use_anywhere in prop::bool::weighted(0.1),
    ) {
        let data = recorded(6, first, first + span);
        let ticks: Vec<i32> = if use_anywhere {
            anywhere
        } else {
            steps
                .iter()
                .scan(first + start, |tick, step| {
                    let this = *tick;
                    *tick += step;
                    Some(this)
                })
                .collect()
        };
        let mut recorder = Recorder::start(
            Cursor::new(Vec::new()),
            &RecorderConfig::ddnet("oracle", "2026-11-26_12-00-00"),
            b"",
        )
        .unwrap();
        let ddnet_keeps = ticks.iter().all(|&t| recorder.add_timeline_marker(t))
            && ticks.iter().all(|t| (first..=first + span).contains(t));
        match set_markers(&data, &ticks) {
            Ok((out, _)) => {
                prop_assert!(ddnet_keeps, "written: {:?}", ticks);
                prop_assert_eq!(read_back(&out), ticks);
                assert_only_block_differs(&out, &data, "any");
            }
            Err(e) => {
                prop_assert!(!ddnet_keeps, "refused {:?}: {}", ticks, e);
                let is_rule = matches!(
                    e,
                    MarkersError::TooMany { .. }
                        | MarkersError::OutsideDemo { .. }
                        | MarkersError::Duplicate { .. }
                        | MarkersError::OutOfOrder { .. }
                        | MarkersError::TooClose { .. }
                );
                prop_assert!(is_rule, "{}", e);
            }
        }
    }
}
