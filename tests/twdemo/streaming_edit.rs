//! The entry point's demo editors read a Teeworlds/DDNet demo as a stream: rewrite, repair,
//! convert, the markers' listing and editing, extract-map, scrub and trim each hold a heap
//! far below the file's size, so a long recording can be edited on a small machine. The
//! file is a generated 0.6 game of 16 players with chat (about 4.8 MB); each editor must
//! peak below a tenth of it, where one that held the file once would peak above its size.
//! What they write is the in-memory editors' bytes.

use crate::common::alloc::{Peaks, measure};
use crate::common::recorded::game_demo;
use crate::common::temp::TempDir;
use demokit::recording::{Recording, RepairOptions};
use demokit::scrub::{Pseudonyms, ScrubOptions};
use demokit::time::{RangeBound, TickRange};
use demokit::twdemo::edit::{convert, markers, repair, scrub, trim};
use std::io::{self, Write};

/// A writer that keeps only the number of bytes written: an output that costs no memory.
#[derive(Default)]
struct Counted(u64);

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The scrub the test runs: names made pseudonyms with a key, team chat taken out.
fn scrub_options() -> ScrubOptions {
    ScrubOptions {
        names: Some(Pseudonyms {
            key: Some(b"key".to_vec()),
        }),
        ..ScrubOptions::default()
    }
}

/// The middle range the test trims.
const TRIM: (i32, i32) = (15_000, 16_000);

/// The tick the test adds a timeline marker at.
const MARKER: i32 = 20_000;

/// Heap peaks of each editor on the whole file at `path` whose bytes are `data`, by name,
/// each checked for having done its work.
fn peaks(path: &std::path::Path, data: &[u8]) -> Vec<(&'static str, usize)> {
    let recording = Recording::open(path).unwrap();
    let len = data.len() as u64;
    let mut peaks = Peaks::default();
    peaks.run("rewrite", || {
        let report = recording.rewrite(Counted::default()).unwrap();
        assert!(report.error.is_none());
        assert_eq!(report.written, len);
    });
    peaks.run("repair", || {
        let mut out = Counted::default();
        let report = recording
            .repair(&RepairOptions::default(), &mut out)
            .unwrap();
        let demokit::recording::RepairReport::TwDemo(report) = report else {
            panic!("a demo's repair")
        };
        assert!(!report.changed());
        assert_eq!(out.0, len);
    });
    peaks.run("convert", || {
        let mut out = Counted::default();
        let report = recording.convert(5, &mut out).unwrap();
        assert_eq!(report.output_len as u64, out.0);
        assert!(report.tick_markers >= 40_000, "{report:?}");
    });
    peaks.run("markers", || {
        let list = recording.markers().unwrap();
        assert_eq!((list.first_tick, list.last_tick), (Some(1), Some(40_000)));
    });
    peaks.run("edit_markers", || {
        let mut out = Counted::default();
        let report = recording
            .edit_markers(&[RangeBound::Tick(MARKER)], &[], &mut out)
            .unwrap();
        assert_eq!(report.after, [MARKER]);
        assert_eq!(out.0, len);
    });
    peaks.run("extract_map", || {
        let map = recording.extract_map().unwrap();
        assert!(map.verify().is_ok() && !map.bytes.is_empty());
    });
    peaks.run("scrub", || {
        let mut out = Counted::default();
        let report = recording.scrub(&scrub_options(), &mut out).unwrap();
        let demokit::recording::ScrubReport::TwDemo(report) = report else {
            panic!("a demo's scrub")
        };
        assert!(report.names_rewritten > 0 && report.snapshots_rewritten > 0);
        assert_eq!(report.output_len as u64, out.0);
    });
    peaks.run("trim", || {
        let mut out = Counted::default();
        let (from, to) = (RangeBound::Tick(TRIM.0), RangeBound::Tick(TRIM.1));
        let report = recording.trim(Some(from), Some(to), &mut out).unwrap();
        let demokit::recording::TrimReport::TwDemo(report) = report else {
            panic!("a demo's trim")
        };
        assert_eq!((report.first_tick, report.last_tick), TRIM);
        assert!(out.0 > 0);
    });
    peaks.0
}

#[test]
fn every_editor_holds_a_bounded_part_of_the_file() {
    let data = game_demo(40_000);
    let dir = TempDir::new("twdemo-streaming-edit");
    let whole = dir.write("game.demo", &data);
    let len = data.len();
    assert!(len > 4_000_000, "the generated demo has {len} bytes");
    let mut all = peaks(&whole, &data);

    // A repair of the file cut inside its last chunk.
    let cut = dir.write("cut.demo", &data[..len - 3]);
    let recording = Recording::open(&cut).unwrap();
    let (report, usage) = measure(|| {
        let mut out = Counted::default();
        let report = recording.repair(&RepairOptions::default(), &mut out);
        (report.unwrap(), out.0)
    });
    let (demokit::recording::RepairReport::TwDemo(report), written) = report else {
        panic!("a demo's repair")
    };
    assert!(report.break_off.is_some() && report.bytes_dropped > 0);
    assert_eq!(written as usize, report.output_len);
    all.push(("repair of the cut file", usage.peak));

    println!("file: {len} bytes; heap peaks: {all:?}");
    for (name, peak) in all {
        assert!(
            peak < len / 10,
            "{name} held {peak} bytes at once of a {len}-byte file"
        );
    }
}

/// What the entry point wrote into memory, and its report.
fn into_vec<R>(run: impl FnOnce(&mut Vec<u8>) -> R) -> (Vec<u8>, R) {
    let mut out = Vec::new();
    let report = run(&mut out);
    (out, report)
}

#[test]
fn streamed_editors_write_the_in_memory_editors_bytes() {
    // Shorter than the other test's: the same code, for a fraction of the time.
    let data = game_demo(3_000);
    let dir = TempDir::new("twdemo-streaming-edit-bytes");
    let path = dir.write("game.demo", &data);
    let recording = Recording::open(&path).unwrap();

    let (bytes, report) = into_vec(|out| recording.rewrite(out).unwrap());
    let (expected, _) = into_vec(|out| {
        demokit::twdemo::container::demo::rewrite(&data, out)
            .map(|(_, stats)| stats)
            .unwrap()
    });
    assert!(bytes == expected && report.error.is_none());

    let (bytes, _) = into_vec(|out| recording.convert(4, out).unwrap());
    let (expected, report) = convert::convert(&data, 4).unwrap();
    assert!(bytes == expected && report.tick_markers == 3_000);

    let (bytes, _) = into_vec(|out| {
        recording
            .edit_markers(&[RangeBound::Tick(1_000)], &[], out)
            .unwrap()
    });
    let (expected, report) = markers::edit_markers(&data, &[1_000], &[]).unwrap();
    assert!(bytes == expected && report.changed);
    assert_eq!(
        recording.markers().unwrap(),
        markers::list_markers(&data).unwrap()
    );
    assert_eq!(
        recording.extract_map().unwrap(),
        repair::extract_map(&data).unwrap()
    );

    let (bytes, _) = into_vec(|out| recording.scrub(&scrub_options(), out).unwrap());
    let (expected, report) = into_vec(|out| scrub::scrub(&data, &scrub_options(), out).unwrap());
    assert!(bytes == expected && report.changed());

    let (bytes, _) = into_vec(|out| {
        let (from, to) = (RangeBound::Tick(1_000), RangeBound::Seconds(30.0));
        recording.trim(Some(from), Some(to), out).unwrap()
    });
    let range = trim::resolve_range(&data, Some(RangeBound::Tick(1_000)), None).unwrap();
    assert_eq!(range, TickRange::new(1_000, 3_000));
    let to = trim::resolve_range(&data, None, Some(RangeBound::Seconds(30.0))).unwrap();
    let (expected, report) =
        into_vec(|out| trim::trim(&data, TickRange::new(1_000, to.to), out).unwrap());
    assert!(bytes == expected && report.ticks > 0);

    for cut in [data.len(), data.len() - 3, data.len() - 200] {
        let path = dir.write("cut.demo", &data[..cut]);
        let (bytes, _) = into_vec(|out| {
            Recording::open(&path)
                .unwrap()
                .repair(&RepairOptions::default(), out)
                .unwrap()
        });
        let (expected, _) = into_vec(|out| repair::repair(&data[..cut], out).unwrap());
        assert!(bytes == expected, "cut at {cut}");
    }
}
