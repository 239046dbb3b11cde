//! `demokit report` pages as a person sees them: loaded in headless Chromium
//! (`tests/browser/check_pages.py`, over the DevTools Protocol) and checked against what
//! the library gives: the players, the chat lines and the markers shown, each tee drawn
//! (its pixel in its colour) where the export's `ticks` table has it when the slider is
//! moved to a tick, the index's rows, filter, sort and links, and no network request from
//! any page. Each recording's page is steered too: a click on a player's row follows them
//! and `+` zooms in, and while it plays the followed tee stays in the map view; at a slow
//! speed the frames between two stored positions draw the tee between them (time runs on
//! smoothly); space, the arrows, Home, End, `-` and `0` do what the page says; the chat
//! and event lists highlight their last line at or before the tick, a click on a line
//! goes there, and the event filter lists every kind the events have. At 400×800 and
//! 1400×900 no page is wider than the window. Screenshots of each page (and at both
//! sizes) are kept in `target/browser-artefacts/`.
//!
//! Needs Chromium (`DEMOKIT_CHROMIUM`, else `/usr/bin/chromium`) and a Python with
//! `websocket-client` (`DEMOKIT_PYTHON`); `.ci/run` installs both, and with
//! `DEMOKIT_REQUIRE_CHROMIUM=1` a missing one fails the test rather than skipping it.

use crate::common;

use crate::run::{demokit, stderr};
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use common::shared_dir;
use common::temp::TempDir;
use demokit::export::{Exporter, Table};
use demokit::recording::Recording;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Chromium and a Python that drives it, or `None` after noting the skip.
fn browser() -> Option<(PathBuf, String)> {
    let chromium = std::env::var_os("DEMOKIT_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let python = std::env::var("DEMOKIT_PYTHON").unwrap_or_else(|_| "python3".into());
    let python_ready = Command::new(&python)
        .args(["-c", "import websocket"])
        .output()
        .is_ok_and(|o| o.status.success());
    let missing = if !chromium.is_file() {
        Some(format!("no Chromium at {}", chromium.display()))
    } else if !python_ready {
        Some(format!(
            "{python} cannot import websocket (websocket-client)"
        ))
    } else {
        None
    };
    let Some(missing) = missing else {
        return Some((chromium, python));
    };
    if std::env::var("DEMOKIT_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1") {
        panic!("DEMOKIT_REQUIRE_CHROMIUM=1 but {missing}");
    }
    common::skip::skipped(&format!(
        "{missing} (the browser tests need Chromium and websocket-client; .ci/run installs them)"
    ));
    None
}

/// Where screenshots go: kept after the run, beside the build.
fn artefacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join("target"));
    let dir = target.join("browser-artefacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the checker; panics with its output when a check fails.
fn check(python: &str, chromium: &Path, kind: &str, html: &Path, expect: &serde_json::Value) {
    let expect_file = html.with_extension("expect.json");
    std::fs::write(&expect_file, serde_json::to_vec(expect).unwrap()).unwrap();
    let shot = artefacts().join(format!(
        "{}.png",
        html.file_name().unwrap().to_string_lossy()
    ));
    let out = Command::new(python)
        .arg(common::root().join("tests/browser/check_pages.py"))
        .arg(kind)
        .arg("--chromium")
        .arg(chromium)
        .arg("--html")
        .arg(html)
        .arg("--expect")
        .arg(&expect_file)
        .arg("--shot")
        .arg(&shot)
        .output()
        .expect("the checker runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{}: {text}", html.display());
    assert!(shot.is_file(), "no screenshot of {}", html.display());
    // And one at a phone's and one at a desktop's size.
    for size in ["400x800", "1400x900"] {
        let sized = shot.with_file_name(format!(
            "{}-{size}.png",
            shot.file_stem().unwrap().to_string_lossy()
        ));
        assert!(
            sized.is_file(),
            "no screenshot of {} at {size}",
            html.display()
        );
    }
    eprintln!("{}", text.trim());
}

/// The `ticks` table's positions by tick: (client id, x, y), read by the export (a
/// reading of its own, not the page's).
fn positions(path: &Path) -> BTreeMap<i32, Vec<(i32, i32, i32)>> {
    let data = std::fs::read(path).unwrap();
    let mut exporter = Exporter::with_tables(&[Table::Ticks]);
    let mut out: BTreeMap<i32, Vec<(i32, i32, i32)>> = BTreeMap::new();
    let mut sink = |table: Table, batch: demokit::export::RecordBatch| {
        if table != Table::Ticks {
            return;
        }
        let int = |name: &str| {
            batch
                .column_by_name(name)
                .unwrap()
                .as_primitive::<Int32Type>()
                .clone()
        };
        let (tick, cid, x, y) = (int("tick"), int("client_id"), int("x"), int("y"));
        for i in 0..batch.num_rows() {
            out.entry(tick.value(i))
                .or_default()
                .push((cid.value(i), x.value(i), y.value(i)));
        }
    };
    exporter.add("f", &data, &mut sink);
    exporter.finish(&mut sink);
    out
}

/// What the page must show, from the library: players, chat, markers, and the positions
/// at three ticks with players on the map.
fn expectations(path: &Path) -> serde_json::Value {
    let recording = Recording::open(path).unwrap();
    let (log, _) = recording.game_log().unwrap();
    let markers = recording.markers().map(|m| m.markers).unwrap_or_default();
    let by_tick = positions(path);
    let ticks: Vec<i32> = by_tick.keys().copied().collect();
    assert!(!ticks.is_empty(), "{}: no positions", path.display());
    let mut chosen = BTreeMap::new();
    for quarter in 1..=3 {
        let tick = ticks[ticks.len() * quarter / 4];
        chosen.insert(tick.to_string(), by_tick[&tick].clone());
    }
    json!({
        "players": log.players.iter().map(|p| (p.client_id, p.name.clone())).collect::<Vec<_>>(),
        "event_kinds": log.events.iter().map(|e| e.kind.name()).collect::<std::collections::BTreeSet<_>>(),
        "chat": log.chat.iter().map(|c| c.text.clone()).collect::<Vec<_>>(),
        "markers": markers,
        "positions": chosen,
        "first_tick": ticks.first(),
        "last_tick": ticks.last(),
    })
}

fn real(dir: &str, name: &str) -> Option<PathBuf> {
    Some(shared_dir()?.join("real-fixtures").join(dir).join(name))
}

/// Writes `input`'s page with the tool and checks it in the browser.
fn page_in_browser(input: &Path, extra: &[&std::ffi::OsStr], out_name: &str) {
    page_in_browser_expecting(input, extra, out_name, expectations(input));
}

/// [`page_in_browser`] with the expectations given.
fn page_in_browser_expecting(
    input: &Path,
    extra: &[&std::ffi::OsStr],
    out_name: &str,
    expect: serde_json::Value,
) {
    let Some((chromium, python)) = browser() else {
        return;
    };
    let dir = TempDir::new("browser-page");
    let html = dir.path(out_name);
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "report".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        html.as_os_str(),
    ];
    args.extend_from_slice(extra);
    let run = demokit(&args);
    assert!(run.status.success(), "{}", stderr(&run));
    check(&python, &chromium, "page", &html, &expect);
}

/// A recording whose map, server and player names and chat hold markup, the template's
/// slot names, a comment opener, U+2028 and script (`<script>`, an `onerror` handler):
/// its page loads without a script error, shows every text literally (the names in the
/// players table, the chat lines) and runs none of it.
#[test]
fn a_page_of_hostile_text_shows_it_literally_and_runs_none() {
    let Some(map) = real("maps", "dm1_0.6.map") else {
        return;
    };
    let hostile = "{{script}}{{style}}{{data}}</script><script>window.pwned=1</script>\
                   <img src=x onerror=\"window.pwned=2\"><!--\u{2028}&amp;";
    let dir = TempDir::new("browser-hostile");
    let input = dir.write(
        "{{script}}<!--.teehistorian",
        &crate::hostile_text::teehistorian_with(hostile),
    );
    let mut expect = expectations(&input);
    expect["undefined"] = json!(["pwned"]);
    // Its player stands still: no smooth motion to see.
    expect["moves"] = json!(false);
    page_in_browser_expecting(
        &input,
        &["--map".as_ref(), map.as_os_str()],
        "hostile.html",
        expect,
    );
}

#[test]
fn a_demo_page_shows_its_players_chat_markers_and_tees() {
    let Some(input) = real("twdemo", "v6_ddnet201_server_dm1.demo") else {
        return;
    };
    page_in_browser(&input, &[], "demo.html");
}

/// A crowded client demo (66 players), given timeline markers by `demokit markers`.
#[test]
fn a_client_demo_with_markers_plays_in_the_browser() {
    let Some(input) = real("twdemo", "v6_ddnet_client_multeasymap_2020.demo") else {
        return;
    };
    let dir = TempDir::new("browser-markers");
    let marked = dir.path("marked.demo");
    let run = demokit(&[
        "markers".as_ref(),
        input.as_os_str(),
        "--add".as_ref(),
        "10s,40s".as_ref(),
        "-o".as_ref(),
        marked.as_os_str(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let markers = Recording::open(&marked).unwrap().markers().unwrap().markers;
    assert_eq!(markers.len(), 2);
    page_in_browser(&marked, &[], "client-demo.html");
}

#[test]
fn a_teehistorian_page_with_its_map_plays_in_the_browser() {
    let (Some(input), Some(map)) = (
        real("teehistorian", "v2_ddnet1261_dm1.teehistorian"),
        real("maps", "dm1_0.6.map"),
    ) else {
        return;
    };
    page_in_browser(
        &input,
        &["--map".as_ref(), map.as_os_str()],
        "teehistorian.html",
    );
}

#[test]
fn a_source_demo_page_plays_in_the_browser() {
    let input = common::root().join("fixtures/source/tf2_short_2024.dem");
    page_in_browser(&input, &[], "source.html");
}

/// An index over a directory of real recordings (symbolic links to them, read in place):
/// a row per recording, a filter, a sort, and links that open; a second run makes no
/// page again.
#[test]
fn an_index_filters_sorts_and_links_its_pages() {
    let Some(shared) = shared_dir() else {
        return;
    };
    let Some((chromium, python)) = browser() else {
        return;
    };
    let dir = TempDir::new("browser-index");
    let recordings = dir.path("recordings");
    std::fs::create_dir_all(recordings.join("th")).unwrap();
    let real = shared.join("real-fixtures");
    let files = [
        ("twdemo/v6_ddnet201_server_dm1.demo", "server_dm1.demo"),
        ("twdemo/v3_tw061_server_dm1.demo", "client_dm1.demo"),
        (
            "twdemo/v6_ddnet_client_rainymore2_2020.demo",
            "tinycave.demo",
        ),
        (
            "teehistorian/v2_ddnet1261_dm1.teehistorian",
            "th/dm1.teehistorian",
        ),
    ];
    for (from, to) in files {
        std::os::unix::fs::symlink(real.join(from), recordings.join(to)).unwrap();
    }
    std::fs::write(recordings.join("notes.txt"), "not a recording").unwrap();
    let maps = dir.path("maps");
    std::fs::create_dir_all(&maps).unwrap();
    std::os::unix::fs::symlink(real.join("maps/dm1_0.6.map"), maps.join("dm1.map")).unwrap();
    let index = dir.path("site/index.html");
    std::fs::create_dir_all(index.parent().unwrap()).unwrap();
    let args = [
        "report".as_ref(),
        recordings.as_os_str(),
        "-o".as_ref(),
        index.as_os_str(),
        "--maps".as_ref(),
        maps.as_os_str(),
    ];
    let first = demokit(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    let said = crate::run::stdout(&first);
    assert!(
        said.contains("4 recordings (4 pages made, 0 up to date"),
        "{said}"
    );
    // Nothing changed: nothing is read again.
    let second = demokit(&args);
    assert!(second.status.success(), "{}", stderr(&second));
    let said = crate::run::stdout(&second);
    assert!(
        said.contains("4 recordings (0 pages made, 4 up to date"),
        "{said}"
    );

    let paths: Vec<&str> = files.iter().map(|(_, to)| *to).collect();
    let expect = json!({
        "paths": paths,
        "pages": 4,
        "filters": {
            "teehistorian": ["th/dm1.teehistorian"],
            "rainymore": ["tinycave.demo"],
            "dm1 demo": ["server_dm1.demo", "client_dm1.demo"],
            "no such thing": [],
        },
    });
    check(&python, &chromium, "index", &index, &expect);
}
