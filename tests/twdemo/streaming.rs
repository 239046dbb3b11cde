//! The entry point reads a demo as a stream for its game layer (`game_log`, `chat`,
//! `events`, `game_records`, the snapshot replay) as it does for `summary`, `validate` and
//! `dump`: the heap each holds at once stays far below the file's size. The file is a
//! generated 0.6 game of 16 players (`common::recorded::game_demo`), whole and cut inside its
//! last chunk; each operation must peak below a tenth of it.

use crate::common::alloc::Peaks;
use crate::common::recorded::game_demo;
use crate::common::temp::TempDir;
use demokit::recording::Recording;

/// Ticks of the generated game: about 4.8 MB.
const TICKS: i32 = 40_000;

/// Heap peaks of each streamed operation on the file at `path`, by name.
fn peaks(path: &std::path::Path, whole: bool) -> Vec<(&'static str, usize)> {
    let recording = Recording::open(path).unwrap();
    let mut peaks = Peaks::default();
    peaks.run("summary", || {
        let (_, error) = recording.summary().unwrap();
        assert_eq!(error.is_none(), whole);
    });
    peaks.run("validate", || {
        let report = recording.validate().unwrap();
        assert_eq!(report.problems.is_empty(), whole, "{:?}", report.problems);
    });
    peaks.run("dump", || {
        let mut chunks = 0;
        let end = recording.dump(|_| chunks += 1).unwrap();
        assert_eq!(end.error.is_none(), whole);
        assert!(chunks > 2 * TICKS as usize);
    });
    peaks.run("game_log", || {
        let (log, error) = recording.game_log().unwrap();
        assert_eq!(error.is_none(), whole);
        assert_eq!(log.players.len(), 16, "{:?}", log.players);
        assert!(log.chat.len() >= (TICKS / 25 - 1) as usize);
    });
    peaks.run("chat", || {
        let (lines, error) = recording.chat().unwrap();
        assert_eq!(error.is_none(), whole);
        assert!(lines.len() >= (TICKS / 25 - 1) as usize);
    });
    peaks.run("events", || {
        let mut events = 0;
        let walk = recording.events(|_| events += 1).unwrap();
        assert_eq!(walk.error.is_none(), whole);
        assert!(events > 0);
    });
    peaks.run("game_records", || {
        let mut records = 0;
        let walk = recording.game_records(|_| records += 1).unwrap();
        assert_eq!(walk.error.is_none(), whole);
        assert!(records > 48 * TICKS as usize);
    });
    peaks.run("snapshots", || {
        let mut ticks = 0;
        let walk = recording.snapshots(|_| ticks += 1).unwrap();
        assert_eq!(walk.error.is_none(), whole);
        assert!(ticks >= TICKS as usize - 1);
    });
    peaks.0
}

#[test]
fn every_read_streams_a_demo() {
    let data = game_demo(TICKS);
    let dir = TempDir::new("twdemo-streaming");
    let whole = dir.path("whole.demo");
    std::fs::write(&whole, &data).unwrap();
    let cut = dir.path("cut.demo");
    std::fs::write(&cut, &data[..data.len() - 3]).unwrap();
    let bound = data.len() / 10;
    for (path, is_whole) in [(&whole, true), (&cut, false)] {
        for (name, peak) in peaks(path, is_whole) {
            println!("{name}: {peak} bytes at most ({} bytes file)", data.len());
            assert!(
                peak < bound,
                "{name} on {}: {peak} bytes, over {bound}",
                path.display()
            );
        }
    }
}
