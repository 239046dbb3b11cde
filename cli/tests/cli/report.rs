//! `demokit report` without a browser: what it writes and refuses, the index kept up to
//! date (a changed file is read again, a removed one loses its page), one run at a time,
//! and an existing file that is no index kept unless `--force`. The pages in a browser are
//! `browser.rs`'s.

use crate::common;

use crate::run::{demokit, stderr, stdout};
use common::temp::TempDir;
use std::path::Path;

fn report(args: &[&Path]) -> std::process::Output {
    let mut all: Vec<&std::ffi::OsStr> = vec!["report".as_ref()];
    all.extend(args.iter().map(|a| a.as_os_str()));
    demokit(&all)
}

#[test]
fn a_page_is_one_file_and_refusals_write_nothing() {
    let dir = TempDir::new("report-file");
    let input = common::root().join("fixtures/source/tf2_short_2024.dem");
    let out = dir.path("tf2.html");
    let run = report(&[&input, Path::new("-o"), &out]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(stdout(&run).contains("1 player"), "{}", stdout(&run));
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("window.demokitReport"));
    // An existing page needs --force.
    let again = report(&[&input, Path::new("-o"), &out]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), html);
    // A teehistorian file without its map still gets its page: players, chat and events
    // need no map; the positions are drawn on a grid, and the page says why.
    let recorded = dir.path("game.teehistorian");
    let generated = common::server::record_generated(
        Vec::new(),
        200,
        demokit::teehistorian::FlushPolicy::Never,
    );
    std::fs::write(&recorded, generated).unwrap();
    let page = dir.path("game.html");
    let written = report(&[&recorded, Path::new("-o"), &page]);
    assert!(written.status.success(), "{}", stderr(&written));
    assert!(
        stdout(&written).contains("64 players"),
        "{}",
        stdout(&written)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains(r#"the map \"bench\" was not given"#),
        "the page says why there is no map"
    );
    // --map is for one file.
    let index = dir.path("index.html");
    let refused = report(&[
        dir.path("").as_path(),
        Path::new("-o"),
        &index,
        Path::new("--map"),
        &recorded,
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(!index.exists());
}

#[test]
fn an_index_reads_only_what_changed_and_runs_one_at_a_time() {
    let dir = TempDir::new("report-index");
    let recordings = dir.path("in");
    std::fs::create_dir_all(recordings.join("sub")).unwrap();
    for name in ["tf2_short_2024.dem", "portal1_3740.dem"] {
        std::fs::copy(
            common::root().join("fixtures/source").join(name),
            recordings.join(name),
        )
        .unwrap();
    }
    std::fs::copy(
        common::root().join("fixtures/source/l4d2_2042_v2091.dem"),
        recordings.join("sub/l4d2.dem"),
    )
    .unwrap();
    let index = dir.path("out/index.html");
    let run = || report(&[&recordings, Path::new("-o"), &index]);
    let first = run();
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(
        stdout(&first).contains("3 recordings (3 pages made, 0 up to date, 0 with errors)"),
        "{}",
        stdout(&first)
    );
    let pages = dir.path("out/index.pages");
    assert!(pages.join("sub/l4d2.dem.html").is_file());
    // A file changed (its time), one removed: one page made, one kept, one page gone.
    let touched = recordings.join("portal1_3740.dem");
    let file = std::fs::File::options().write(true).open(&touched).unwrap();
    file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    drop(file);
    std::fs::remove_file(recordings.join("sub/l4d2.dem")).unwrap();
    let second = run();
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(
        stdout(&second).contains("2 recordings (1 pages made, 1 up to date, 0 with errors)"),
        "{}",
        stdout(&second)
    );
    assert!(
        !pages.join("sub/l4d2.dem.html").exists(),
        "the page of a removed file is removed"
    );
    let html = std::fs::read_to_string(&index).unwrap();
    assert!(html.contains("portal1_3740.dem") && !html.contains("l4d2.dem"));
    // While another run holds the lock, a run is refused and changes nothing.
    let lock = std::fs::File::create(pages.join(".lock")).unwrap();
    lock.lock().unwrap();
    let blocked = run();
    assert_eq!(blocked.status.code(), Some(3), "{}", stderr(&blocked));
    assert!(
        stderr(&blocked).contains("another `demokit report`"),
        "{}",
        stderr(&blocked)
    );
    assert_eq!(std::fs::read_to_string(&index).unwrap(), html);
    drop(lock);
    // A file that is no index is replaced only with --force.
    let other = dir.path("mine.html");
    std::fs::write(&other, "my own page").unwrap();
    let refused = report(&[&recordings, Path::new("-o"), &other]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "my own page");
    let forced = report(&[&recordings, Path::new("-o"), &other, Path::new("--force")]);
    assert!(forced.status.success(), "{}", stderr(&forced));
}
