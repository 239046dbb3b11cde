//! Every operation of the entry point reads a teehistorian file as a stream: the heap it
//! holds at once stays far below the file's size (a server's file of gigabytes can be
//! checked, cut, scrubbed or listed on a small machine). The file is generated as a 64-player
//! server writes it, about 5 MB, and each operation must peak below a tenth of it; one that
//! held the file once would peak above its size.

use crate::common::alloc::Peaks;
use crate::common::server::record_generated;
use crate::common::temp::TempDir;
use demokit::recording::{Recording, RepairOptions};
use demokit::teehistorian::FlushPolicy;
use demokit::time::RangeBound;
use std::io::{BufWriter, sink};

/// Heap peaks of each operation, by name.
fn peaks(path: &std::path::Path) -> Vec<(&'static str, usize)> {
    let recording = Recording::open(path).unwrap();
    let mut peaks = Peaks::default();
    peaks.run("summary", || {
        let (_, error) = recording.summary().unwrap();
        assert!(error.is_none());
    });
    peaks.run("validate", || {
        assert!(recording.validate().unwrap().problems.is_empty());
    });
    let mut records = 0u64;
    peaks.run("dump", || {
        let end = recording.dump(|_| records += 1).unwrap();
        assert!(end.error.is_none());
    });
    peaks.run("rewrite", || {
        assert!(recording.rewrite(sink()).unwrap().error.is_none());
    });
    peaks.run("repair", || {
        recording.repair(&RepairOptions::default(), sink()).unwrap();
    });
    peaks.run("scrub", || {
        let options = recording.scrub_everything(Some(b"key".to_vec()));
        recording.scrub(&options, sink()).unwrap();
    });
    peaks.run("trim", || {
        let (from, to) = (RangeBound::Tick(2000), RangeBound::Tick(3000));
        recording.trim(Some(from), Some(to), sink()).unwrap();
    });
    peaks.run("trim to the end", || {
        recording
            .trim(Some(RangeBound::Tick(10)), None, sink())
            .unwrap();
    });
    peaks.run("game_log", || {
        let (log, error) = recording.game_log().unwrap();
        assert!(error.is_none());
        assert!(!log.players.is_empty());
    });
    let mut events = 0u64;
    peaks.run("events", || {
        let walk = recording.events(|_| events += 1).unwrap();
        assert!(walk.error.is_none());
    });
    assert!(
        records > 0 && events > 0,
        "{records} records, {events} events"
    );
    peaks.0
}

#[test]
fn every_operation_holds_a_bounded_part_of_the_file() {
    let dir = TempDir::new("streaming");
    let path = dir.path("generated.teehistorian");
    let file = BufWriter::new(std::fs::File::create(&path).unwrap());
    record_generated(file, 6000, FlushPolicy::Never)
        .into_inner()
        .unwrap();
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    assert!(len > 4_000_000, "the generated file has {len} bytes");
    let peaks = peaks(&path);
    println!("file: {len} bytes; heap peaks: {peaks:?}");
    for (name, peak) in peaks {
        assert!(
            peak < len / 10,
            "{name} held {peak} bytes at once of a {len}-byte file"
        );
    }
}
