//! End-to-end tests of the demo editing commands: `convert`, `repair` on Teeworlds demos,
//! `extract-map` and `trim`.

use crate::common;

use crate::run::{demokit, stderr};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Output;

/// The single stdout line, parsed as JSON.
fn json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A scratch file path under the temp dir, unique to this process and `name`.
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("demokit-cli-edit-{}-{name}", std::process::id()))
}

/// The real DDNet 20.1 server demo, from the test corpus.
fn server_demo() -> Option<PathBuf> {
    let shared = common::shared_dir()?;
    Some(shared.join("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo"))
}

/// `convert --version 3` then `--version 6` gives back the DDNet 20.1 server demo byte for
/// byte; the reports say what was dropped and added.
#[test]
fn convert_v6_v3_v6_is_identity() {
    let Some(demo) = server_demo() else { return };
    let (v3, v6) = (scratch("v3.demo"), scratch("v6.demo"));
    let out = demokit(&[
        "convert".as_ref(),
        demo.as_os_str(),
        v3.as_os_str(),
        "--version".as_ref(),
        "3".as_ref(),
        "--json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["to_version"], 3);
    assert_eq!(report["sha256"], "dropped");
    let out = demokit(&[
        "convert".as_ref(),
        v3.as_os_str(),
        v6.as_os_str(),
        "--version".as_ref(),
        "6".as_ref(),
        "--json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["sha256"], "added");
    let same = std::fs::read(&v6).unwrap() == std::fs::read(&demo).unwrap();
    std::fs::remove_file(&v3).unwrap();
    std::fs::remove_file(&v6).unwrap();
    assert!(same, "v6 -> v3 -> v6 differs from the input");
    // Versions outside 3..=6 are a usage error.
    let out = demokit(&[
        "convert".as_ref(),
        demo.as_os_str(),
        v3.as_os_str(),
        "--version".as_ref(),
        "7".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!v3.exists());
}

/// `extract-map` writes the embedded map, whose CRC and SHA-256 match the header; a demo
/// with one map byte changed still gets its map written, and exits 1 naming the mismatch.
#[test]
fn extract_map_checks_the_map() {
    let Some(demo) = server_demo() else { return };
    let map = scratch("dm1.map");
    let out = demokit(&[
        "extract-map".as_ref(),
        demo.as_os_str(),
        map.as_os_str(),
        "--json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["name"], "dm1");
    assert_eq!(report["matches"], true);
    // The checks as every other output writes them: the CRC-32 as eight hex digits (as
    // `info` and the demo summary), digests in hex.
    let crc = report["crc32"]["expected"].as_str().unwrap_or_default();
    assert!(
        crc.len() == 8 && crc.bytes().all(|b| b.is_ascii_hexdigit()),
        "{report}"
    );
    assert_eq!(report["crc32"]["expected"], report["crc32"]["actual"]);
    assert_eq!(report["sha256"]["actual"].as_str().unwrap().len(), 64);
    let data = std::fs::read(&demo).unwrap();
    let offset = report["offset"].as_u64().unwrap() as usize;
    let size = report["size"].as_u64().unwrap() as usize;
    assert_eq!(std::fs::read(&map).unwrap(), &data[offset..offset + size]);
    let mut damaged = data.clone();
    damaged[offset + 100] ^= 0xff;
    let bad = scratch("damaged.demo");
    std::fs::write(&bad, &damaged).unwrap();
    // Over the map written above, which needs --force.
    let out = demokit(&[
        "extract-map".as_ref(),
        bad.as_os_str(),
        map.as_os_str(),
        "--force".as_ref(),
    ]);
    let written = std::fs::read(&map).unwrap();
    std::fs::remove_file(&bad).unwrap();
    std::fs::remove_file(&map).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("CRC-32"), "{}", stderr(&out));
    assert_eq!(written, &damaged[offset..offset + size]);
}

/// `info` on the map `extract-map` wrote gives the map's facts, those `info` gives of the
/// demo's embedded map; a map found in a directory is passed over like any file that is no
/// recording, and a file that starts like a map but is not one is an invalid file.
#[test]
fn info_on_a_map_gives_its_facts() {
    let Some(demo) = server_demo() else { return };
    let map = scratch("info.map");
    let out = demokit(&[
        "extract-map".as_ref(),
        demo.as_os_str(),
        map.as_os_str(),
        "--force".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let facts = json(&demokit(&[
        "info".as_ref(),
        "--json".as_ref(),
        map.as_os_str(),
    ]));
    let of_demo = json(&demokit(&[
        "info".as_ref(),
        "--json".as_ref(),
        demo.as_os_str(),
    ]));
    for key in ["crc32", "sha256", "items", "layers", "game_layer", "loads"] {
        assert_eq!(facts[key], of_demo["map"][key], "{key}");
    }
    let text = demokit(&["info".as_ref(), map.as_os_str()]);
    assert!(text.status.success(), "{}", stderr(&text));
    assert!(String::from_utf8_lossy(&text.stdout).contains("Teeworlds/DDNet map"));
    let mut broken = std::fs::read(&map).unwrap();
    broken.truncate(40);
    let bad = scratch("broken.map");
    std::fs::write(&bad, &broken).unwrap();
    let out = demokit(&["info".as_ref(), bad.as_os_str()]);
    std::fs::remove_file(&bad).unwrap();
    std::fs::remove_file(&map).unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("not a valid map"), "{}", stderr(&out));
}

/// `repair` of a demo cut mid-chunk: the output validates; the report names the cut.
#[test]
fn repair_of_a_cut_demo_validates() {
    let Some(demo) = server_demo() else { return };
    let data = std::fs::read(&demo).unwrap();
    let (cut, fixed) = (scratch("cut.demo"), scratch("fixed.demo"));
    std::fs::write(&cut, &data[..data.len() * 2 / 3]).unwrap();
    let out = demokit(&["validate".as_ref(), cut.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let out = demokit(&[
        "repair".as_ref(),
        cut.as_os_str(),
        fixed.as_os_str(),
        "--json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    assert!(report["bytes_dropped"].as_u64().unwrap() > 0, "{report}");
    assert!(
        report["break_off"]["truncated"].as_bool().unwrap(),
        "{report}"
    );
    let out = demokit(&["validate".as_ref(), fixed.as_os_str()]);
    std::fs::remove_file(&cut).unwrap();
    std::fs::remove_file(&fixed).unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `repair` of a demo cut so early that DDNet could not play what is left (no keyframe, or
/// one tick marker): exit 1, a message saying why, and no output file. Works on crafted
/// demos, so it needs no corpus.
#[test]
fn repair_refuses_what_ddnet_cannot_play() {
    let dir = common::root().join("fixtures/validate");
    for (case, markers, keyframes) in [
        ("tick-markers-1.demo", 1, 1),
        ("no-keyframe.demo", 2, 0),
        ("tick-markers-0.demo", 0, 0),
    ] {
        let input = dir.join(case);
        let output = scratch(&format!("unplayable-{case}"));
        let out = demokit(&["repair".as_ref(), input.as_os_str(), output.as_os_str()]);
        assert_eq!(out.status.code(), Some(1), "{case}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("cannot repair"), "{case}: {err}");
        assert!(
            err.contains(&format!(
                "only {markers} tick marker(s) and {keyframes} keyframe(s) are left"
            )),
            "{case}: {err}"
        );
        assert!(
            err.contains("DDNet needs a keyframe and two tick markers"),
            "{case}: {err}"
        );
        assert!(out.stdout.is_empty(), "{case}: nothing reported as done");
        assert!(!output.exists(), "{case}: no output file");
    }
    // Two tick markers and a keyframe: repaired (here: nothing to change).
    let input = dir.join("tick-markers-2.demo");
    let output = scratch("playable.demo");
    let out = demokit(&["repair".as_ref(), input.as_os_str(), output.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&output).unwrap(),
        std::fs::read(&input).unwrap()
    );
    std::fs::remove_file(&output).unwrap();
}

/// `extract-map` reports the map's own facts from its datafile, and says when the map is
/// no datafile.
#[test]
fn extract_map_reports_the_maps_facts() {
    let dir = common::root().join("fixtures/validate");
    let output = scratch("facts.map");
    let out = demokit(&[
        "extract-map".as_ref(),
        dir.join("valid-v6.demo").as_os_str(),
        output.as_os_str(),
        "--json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    let facts = &report["facts"];
    assert_eq!(facts["datafile_version"], 4, "{report}");
    assert_eq!(facts["map_version"], 1, "{report}");
    assert_eq!(facts["info"]["author"], "demokit", "{report}");
    assert_eq!(
        facts["game_layer"],
        serde_json::json!({"width": 4, "height": 3})
    );
    assert_eq!(facts["loads"], true);
    assert_eq!(facts["size"], std::fs::metadata(&output).unwrap().len());
    // The same output again: replaced with --force.
    let out = demokit(&[
        "extract-map".as_ref(),
        dir.join("map-game-tiles-truncated.demo").as_os_str(),
        output.as_os_str(),
        "--force".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("game layer        4x4"), "{text}");
    assert!(
        text.contains("loads             no: at map byte "),
        "{text}"
    );
    let out = demokit(&[
        "extract-map".as_ref(),
        dir.join("map-not-a-datafile.demo").as_os_str(),
        output.as_os_str(),
        "-f".as_ref(),
        "--json".as_ref(),
    ]);
    std::fs::remove_file(&output).unwrap();
    let report = json(&out);
    assert!(report.get("facts").is_none(), "{report}");
    assert!(
        report["datafile_error"]
            .as_str()
            .unwrap()
            .contains("36-byte datafile header"),
        "{report}"
    );
}

/// The Teeworlds-only commands refuse other formats by name.
#[test]
fn editing_commands_need_a_teeworlds_demo() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let source = shared.join("real-fixtures/source/tf2_cp_gullywash_small.dem");
    let out_path = scratch("refused");
    for args in [vec!["convert", "--version", "3"], vec!["extract-map"]] {
        let mut full: Vec<&OsStr> =
            vec![args[0].as_ref(), source.as_os_str(), out_path.as_os_str()];
        full.extend(args[1..].iter().map(OsStr::new));
        let out = demokit(&full);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).contains("needs a Teeworlds/DDNet demo"),
            "{}",
            stderr(&out)
        );
        assert!(!out_path.exists());
    }
}

/// `trim` at a non-keyframe range of the DDNet 20.1 server demo: the output validates and
/// spans the range; a range outside the demo is refused.
#[test]
fn trim_cuts_a_range_that_validates() {
    let Some(demo) = server_demo() else { return };
    let out_path = scratch("trimmed.demo");
    let out = demokit(&[
        "trim".as_ref(),
        demo.as_os_str(),
        out_path.as_os_str(),
        "--from".as_ref(),
        "501".as_ref(),
        "--to".as_ref(),
        "700".as_ref(),
        "--json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json(&out);
    assert!(report["first_tick"].as_i64().unwrap() >= 501, "{report}");
    assert!(report["last_tick"].as_i64().unwrap() <= 700, "{report}");
    assert!(report["messages"].as_u64().unwrap() > 0, "{report}");
    let out = demokit(&["info".as_ref(), out_path.as_os_str(), "--json".as_ref()]);
    let info = json(&out);
    assert_eq!(info["first_tick"], report["first_tick"]);
    assert_eq!(info["last_tick"], report["last_tick"]);
    let out = demokit(&["validate".as_ref(), out_path.as_os_str()]);
    std::fs::remove_file(&out_path).unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = demokit(&[
        "trim".as_ref(),
        demo.as_os_str(),
        out_path.as_os_str(),
        "--from".as_ref(),
        "5000000".as_ref(),
        "--to".as_ref(),
        "5000100".as_ref(),
    ]);
    // A range outside the recording is a usage error, and nothing is written.
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is outside the demo"),
        "{}",
        stderr(&out)
    );
    assert!(!out_path.exists());
}

/// `dump --snapshots --json` on DDNet's reference recording: one line per tick marker, the
/// full snapshot at each (deltas applied), items by type and id, the extended SpecChar type
/// named by its UUID.
#[test]
fn dump_snapshots_of_ref_client() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let demo = shared.join("conformance/ddnet-recorder/ref_client.demo");
    let out = demokit(&[
        "dump".as_ref(),
        demo.as_os_str(),
        "--snapshots".as_ref(),
        "--json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ticks: Vec<i64> = lines.iter().map(|l| l["tick"].as_i64().unwrap()).collect();
    assert_eq!(ticks, [100, 101, 102, 103, 140, 351, 352]);
    let spec_char = demokit::codec::uuid::teeworlds_uuid("spec-char@netobj.ddnet.tw").to_string();
    let at_103 = lines[3]["snapshot"]["items"].as_array().unwrap();
    let find = |t: i64, id: i64| {
        at_103
            .iter()
            .find(|i| i["type_id"] == t && i["id"] == id)
            .unwrap_or_else(|| panic!("no item {t}:{id} in {at_103:?}"))
    };
    assert_eq!(find(5, 0)["data"], serde_json::json!([101, 200, 1]));
    assert_eq!(find(4, 7)["data"], serde_json::json!([16, 32, 1, 0]));
    assert_eq!(find(32767, 3)["uuid"], spec_char.as_str());
    assert_eq!(find(32767, 3)["data"], serde_json::json!([5, 6]));
    // At 140 the pickup is gone; at 352 the snapshot of 351 repeats.
    assert!(
        lines[4]["snapshot"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["type_id"] != 4)
    );
    assert_eq!(lines[6]["snapshot"], lines[5]["snapshot"]);
    // Items in order of type and id.
    let keys: Vec<(i64, i64)> = at_103
        .iter()
        .map(|i| (i["type_id"].as_i64().unwrap(), i["id"].as_i64().unwrap()))
        .collect();
    assert!(keys.is_sorted(), "{keys:?}");
    // Not for other formats.
    let source = shared.join("real-fixtures/source/tf2_cp_gullywash_small.dem");
    let out = demokit(&["dump".as_ref(), source.as_os_str(), "--snapshots".as_ref()]);
    assert_eq!(out.status.code(), Some(1));
}
