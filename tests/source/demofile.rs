//! Differential test against the npm `demofile` package (saul/demofile, a CS:GO parser
//! written independently of demokit): it reads the CS:GO demo trimmed and scrubbed by
//! demokit to the end, with the same players (pseudonymised in the scrubbed one), deaths
//! and positions at every kept tick as it reads in the original.
//!
//! It needs `node` and a `node_modules` holding `demofile` where `DEMOKIT_NODE_MODULES`
//! points (`.ci/run` installs it from the npm registry); without them, or without the
//! CS:GO demo, the test says it skipped.

use crate::common;

use demokit::scrub::{ChatFilter, Pseudonyms, ScrubOptions};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

/// What `demofile_read.js` prints for `data`: players, deaths, positions per tick.
fn demofile(node_modules: &std::path::Path, data: &[u8], name: &str) -> Value {
    let path = std::env::temp_dir().join(format!(
        "demokit-demofile-{}-{name}.dem",
        std::process::id()
    ));
    std::fs::write(&path, data).unwrap();
    let script = common::root().join("tests/source/demofile_read.js");
    let out = Command::new("node")
        .arg(&script)
        .arg(&path)
        .env("NODE_PATH", node_modules)
        .output()
        .expect("node runs");
    let _ = std::fs::remove_file(&path);
    assert!(
        out.status.success(),
        "{name}: demofile failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The positions per tick: tick → the players' (index, x, y, z) as demofile gives them.
fn positions(read: &Value) -> BTreeMap<i64, Value> {
    read["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_i64().unwrap(), p[1].clone()))
        .collect()
}

#[test]
fn demofile_reads_the_trimmed_and_scrubbed_csgo_demo_with_the_same_game() {
    let Some(node_modules) = std::env::var_os("DEMOKIT_NODE_MODULES").map(std::path::PathBuf::from)
    else {
        common::skip::skipped(
            "no npm `demofile` (set DEMOKIT_NODE_MODULES to a node_modules holding it; .ci/run installs it when the npm registry answers)",
        );
        return;
    };
    let Some(path) = common::csgo_demo() else {
        return;
    };
    let data = std::fs::read(path).unwrap();
    let original = demofile(&node_modules, &data, "original");
    let original_positions = positions(&original);
    assert!(original_positions.len() > 500);

    // Trimmed: the same players and, from the first kept packet on, the same positions.
    let mut cut = Vec::new();
    let report = demokit::source::trim(&data[..], 300, 600, &mut cut).unwrap();
    let trimmed = demofile(&node_modules, &cut, "trimmed");
    let names = |read: &Value| -> Vec<(String, bool)> {
        read["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_owned(),
                    p["bot"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(names(&trimmed), names(&original));
    let mut compared = 0;
    let last = i64::from(report.to - report.from);
    for (tick, players) in positions(&trimmed).range(1..=last) {
        let theirs = &original_positions[&(tick + i64::from(report.from))];
        assert_eq!(players, theirs, "trimmed, tick {tick}");
        compared += 1;
    }
    assert!(compared > 100, "{compared} ticks compared");

    // Scrubbed: pseudonyms, no SteamID but bots', the same deaths and positions.
    let options = ScrubOptions {
        names: Some(Pseudonyms { key: None }),
        chat: Some(ChatFilter::All),
        server: true,
        ..ScrubOptions::default()
    };
    let mut out = Vec::new();
    let report = demokit::source::scrub(&data[..], &options, &mut out).unwrap();
    let scrubbed = demofile(&node_modules, &out, "scrubbed");
    let (before, after) = (names(&original), names(&scrubbed));
    assert_eq!(before.len(), after.len());
    for ((name, bot), (pseudonym, bot_after)) in before.iter().zip(&after) {
        assert_eq!(bot, bot_after);
        assert_eq!(report.mapping.names.get(name).unwrap_or(name), pseudonym);
    }
    for player in scrubbed["players"].as_array().unwrap() {
        let id = player["steam_id"].as_str().unwrap();
        assert!(id == "STEAM_ID_LAN" || id == "BOT", "{player}");
    }
    assert_eq!(scrubbed["deaths"], original["deaths"]);
    assert_eq!(positions(&scrubbed), original_positions);
    println!(
        "demofile reads the trimmed demo ({compared} ticks of positions equal) and the scrubbed one ({} ticks equal, {} players)",
        original_positions.len(),
        before.len()
    );
}
