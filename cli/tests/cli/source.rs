//! End-to-end tests of the `demokit` binary on Source demos: `info --json` against
//! `facts.json`, `rewrite`, `validate`, `dump`, `repair`, and the formats it refuses.

use crate::common;

use crate::run::{demokit, json_lines, run, stderr, stdout};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::PathBuf;

/// A scratch file path under the temp dir, unique to this process and `name`.
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("demokit-cli-source-{}-{name}", std::process::id()))
}

/// The source entries of `facts.json` with their paths.
fn real_files() -> Vec<(PathBuf, Value)> {
    let Some(shared) = common::shared_dir() else {
        return Vec::new();
    };
    common::facts_files(&shared, "source")
}

/// `info --json` has every field the issue asks for, agreeing with facts.json.
#[test]
fn info_json_agrees_with_facts() {
    let files = real_files();
    for (path, f) in &files {
        let out = demokit(&["info".as_ref(), path.as_os_str(), "--json".as_ref()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let lines = json_lines(&out);
        assert_eq!(lines.len(), 1);
        let j = &lines[0];
        let h = &f["header"];
        assert_eq!(j["format"], "source");
        assert_eq!(j["demo_protocol"], h["demo_protocol"]);
        assert_eq!(j["network_protocol"], h["net_protocol"]);
        assert_eq!(j["server"], h["server"]);
        assert_eq!(j["client"], h["client"]);
        assert_eq!(j["map_name"], h["map"]);
        assert_eq!(j["game_dir"], h["game"]);
        assert_eq!(
            j["playback_time"].as_f64().unwrap() as f32,
            h["time"].as_f64().unwrap() as f32
        );
        assert_eq!(j["ticks"], h["ticks"]);
        assert_eq!(j["frames"], h["frames"]);
        assert_eq!(j["signon_length"], h["signonlen"]);
        assert_eq!(j["view_splits"], f["splits"]);
        assert_eq!(j["slot_byte"], f["slot_byte"]);
        assert_eq!(j["stop_tail_len"], f["stop_tail_len"]);
        assert_eq!(j["stop_tail"], f["stop_tail"]);
        assert_eq!(j["counts"], f["counts"], "{}", path.display());
        assert!(j.get("error").is_none());
    }
    // All four at once, through a directory-like batch: one line each, sorted.
    if !files.is_empty() {
        let mut args: Vec<&OsStr> = vec!["info".as_ref(), "--json".as_ref()];
        args.extend(files.iter().map(|(p, _)| p.as_os_str()));
        let out = demokit(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(json_lines(&out).len(), files.len());
    }
}

/// `rewrite` is byte-identical and `validate` accepts every real file; `dump --json` has
/// one line per frame.
#[test]
fn rewrite_validate_and_dump() {
    for (path, f) in real_files() {
        let out_path = scratch(&format!("rewrite-{}", path.file_name().unwrap().display()));
        let out = demokit(&["rewrite".as_ref(), path.as_os_str(), out_path.as_os_str()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let same = std::fs::read(&out_path).unwrap() == std::fs::read(&path).unwrap();
        std::fs::remove_file(&out_path).unwrap();
        assert!(same, "{}: rewrite differs", path.display());

        let out = demokit(&["validate".as_ref(), path.as_os_str(), "--json".as_ref()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let report = &json_lines(&out)[0];
        assert_eq!(report["format"], "source");
        assert_eq!(report["accepted"], true);

        let out = demokit(&["dump".as_ref(), path.as_os_str(), "--json".as_ref()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let lines = json_lines(&out);
        let total: u64 = f["counts"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(lines.len() as u64, total);
        let last = lines.last().unwrap();
        assert_eq!(last["command"], "stop");
        assert_eq!(last["tail"], f["stop_tail"]);
        assert_eq!(last["offset"], f["stop_off"]);
    }
}

/// `repair` restores a real file whose header counts were zeroed, and reports what it
/// changed; `validate` rejects the zeroed file and accepts the repaired one.
#[test]
fn repair_restores_a_zeroed_header() {
    for (path, _) in real_files() {
        let data = std::fs::read(&path).unwrap();
        let mut zeroed = data.clone();
        zeroed[1056..1072].fill(0);
        let name = path.file_name().unwrap().display().to_string();
        let broken = scratch(&format!("zeroed-{name}"));
        let fixed = scratch(&format!("fixed-{name}"));
        std::fs::write(&broken, &zeroed).unwrap();
        let out = demokit(&["validate".as_ref(), broken.as_os_str()]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let out = demokit(&[
            "repair".as_ref(),
            broken.as_os_str(),
            fixed.as_os_str(),
            "--json".as_ref(),
        ]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let report = &json_lines(&out)[0];
        let changed: Vec<&str> = report["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["field"].as_str().unwrap())
            .collect();
        for field in ["ticks", "frames", "playback_time", "signon_length"] {
            assert!(changed.contains(&field), "{name}: {report}");
        }
        let repaired = std::fs::read(&fixed).unwrap();
        let out = demokit(&["validate".as_ref(), fixed.as_os_str()]);
        std::fs::remove_file(&broken).unwrap();
        std::fs::remove_file(&fixed).unwrap();
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(repaired == data, "{name}: repair did not restore the file");
    }
}

/// GoldSrc and Source 2 demos are named and refused, in every command.
#[test]
fn goldsrc_and_source2_are_refused_by_name() {
    let source2 = common::root().join("fixtures/source2_minimal.dem");
    let mut cases = vec![(source2, ["Source 2", "PBDEMS2"])];
    if let Some(shared) = common::shared_dir() {
        cases.push((
            shared.join("real-fixtures/negative/goldsrc_hldemo_basic.dem"),
            ["GoldSrc", "HLDEMO"],
        ));
    }
    for (path, names) in cases {
        for command in ["info", "dump", "validate"] {
            let out = demokit(&[command.as_ref(), path.as_os_str()]);
            assert_eq!(out.status.code(), Some(1), "{command} {}", path.display());
            let err = stderr(&out);
            for name in names {
                assert!(err.contains(name), "{command}: {err}");
            }
            assert!(err.contains("different format"), "{command}: {err}");
        }
        let out_path = scratch("refused");
        let out = demokit(&["repair".as_ref(), path.as_os_str(), out_path.as_os_str()]);
        assert_eq!(out.status.code(), Some(1));
        assert!(!out_path.exists());
    }
}

/// `--tick-interval` must be a positive number: anything else is a usage error (exit 2)
/// and no file is written.
#[test]
fn repair_refuses_a_bad_tick_interval() {
    let Some((path, _)) = real_files().into_iter().next() else {
        return;
    };
    let out_path = scratch("bad-interval");
    for bad in ["0", "-1", "NaN", "inf"] {
        let out = demokit(&[
            "repair".as_ref(),
            path.as_os_str(),
            out_path.as_os_str(),
            "--tick-interval".as_ref(),
            bad.as_ref(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(!out_path.exists());
    }
    let out = demokit(&[
        "repair".as_ref(),
        path.as_os_str(),
        out_path.as_os_str(),
        "--tick-interval".as_ref(),
        "0.03".as_ref(),
        "--json".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::remove_file(&out_path).unwrap();
    let report = &json_lines(&out)[0];
    assert_eq!(report["interval_source"], "given");
    assert_eq!(report["interval"].as_f64().unwrap() as f32, 0.03);
}

#[test]
fn chat_players_and_events_of_source_demos() {
    let file = common::root().join("fixtures/source/l4d1_37_v1005.dem");
    let out = run("players", &file, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for name in ["adok1n", "Francis", "Louis", "Bill"] {
        assert!(text.contains(name), "{text}");
    }
    let out = run("players", &file, &["--json"]);
    let players = json_lines(&out);
    assert_eq!(players.len(), 4);
    assert_eq!(players[0]["name"], "adok1n");

    let file = common::root().join("fixtures/source/l4d2_2100_v2220.dem");
    let out = run("chat", &file, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let chat = json_lines(&out);
    assert_eq!(chat.len(), 1);
    assert_eq!(chat[0]["name"], "aciidz");
    assert_eq!(chat[0]["client_id"], 0);

    // `events` is the game model's: joins by client id and name.
    let out = run("events", &file, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let model = json_lines(&out);
    assert!(
        model
            .iter()
            .any(|e| e["kind"] == "join" && e["name"] == "aciidz" && e["client_id"].is_i64()),
        "{model:?}"
    );
    // The demo's own records, typed by its descriptors, are `dump --game-records`.
    let out = run("dump", &file, &["--game-records", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let events = json_lines(&out);
    let deaths: Vec<_> = events
        .iter()
        .filter(|e| e["record"] == "event" && e["kind"] == "player_spawn")
        .collect();
    assert!(!deaths.is_empty(), "typed game events by name");
    assert!(
        events
            .iter()
            .any(|e| e["record"] == "join" && e["player"]["name"] == "aciidz")
    );
    // Text lines show each event's own keys.
    let out = run("dump", &file, &["--game-records"]);
    assert!(stdout(&out).contains("kind=player_spawn record=event userid="));
}

/// Issue 49's D2 and D3 on the TF2 fixture (a SourceTV-less POV demo whose player never
/// changed team, so no `player_team` event names it): `players` takes the team from the
/// player's entity (RED, 2), and the stint lies within the ticks `info` gives, where the
/// signon frames' client clock once made it end at tick 236 of a demo that ends at 115.
#[test]
fn source_players_have_the_entitys_team_and_stay_within_the_ticks_of_play() {
    let Some(file) = common::shared_file("real-fixtures/source/tf2_cp_gullywash_small.dem") else {
        return;
    };
    let info = json_lines(&run("info", &file, &["--json"]));
    let (first, last) = (
        info[0]["first_tick"].as_i64().unwrap(),
        info[0]["last_tick"].as_i64().unwrap(),
    );
    let players = json_lines(&run("players", &file, &["--json"]));
    assert_eq!(players.len(), 1, "{players:?}");
    let p = &players[0];
    assert_eq!(p["name"], "Icewind | demos.tf");
    assert_eq!(
        (&p["team"], &p["team_name"]),
        (&Value::from(2), &Value::from("RED"))
    );
    for key in ["first_tick", "last_tick"] {
        let tick = p[key].as_i64().unwrap();
        assert!(
            (first..=last).contains(&tick),
            "{key} {tick} outside {first}..={last}"
        );
    }
    // The text names the team the game's way, not Teeworlds' (D7).
    let text = stdout(&run("players", &file, &[]));
    assert!(text.contains("RED (2)"), "{text}");
}

/// `scrub --all` of a Source demo: the output validates, the players and chat read back
/// with pseudonyms and without chat, the JSON report counts the pseudonyms without naming
/// anyone, and `--mapping` holds the one name it replaced. A CS:GO demo is refused by name
/// (exit 1) and nothing is written.
#[test]
fn scrub_gives_source_players_pseudonyms_and_drops_their_chat() {
    let input = common::root().join("fixtures/source/l4d2_2100_v2220.dem");
    let output = scratch("scrubbed.dem");
    let mapping = scratch("mapping.json");
    let _ = std::fs::remove_file(&mapping);
    let out = demokit(&[
        "scrub".as_ref(),
        "--all".as_ref(),
        "--json".as_ref(),
        "-f".as_ref(),
        "--mapping".as_ref(),
        mapping.as_os_str(),
        input.as_os_str(),
        output.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains("aciidz"), "{text}");
    let report = &json_lines(&out)[0];
    assert_eq!(report["pseudonyms"], 1, "{report}");
    assert_eq!(report["dropped"]["SayText2"], 1, "{report}");
    let names: Value = serde_json::from_slice(&std::fs::read(&mapping).unwrap()).unwrap();
    assert_eq!(names["names"]["aciidz"], "player-1", "{names}");

    let out = run("validate", &output, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run("players", &output, &["--json"]);
    let players = json_lines(&out);
    assert_eq!(players[0]["name"], "player-1", "{players:?}");
    let out = run("chat", &output, &["--json"]);
    assert!(json_lines(&out).is_empty(), "{}", stdout(&out));
    let bytes = std::fs::read(&output).unwrap();
    assert!(
        !bytes.windows(8).any(|w| w == b"STEAM_1:"),
        "a SteamID is left"
    );
    let _ = std::fs::remove_file(&output);
    let _ = std::fs::remove_file(&mapping);
}

/// A CS:GO demo scrubbed and trimmed from the command line: both outputs validate, the
/// scrubbed one names its human player by a pseudonym, the trimmed one starts at tick 0.
#[test]
fn scrub_and_trim_a_csgo_demo() {
    let Some(csgo) = common::csgo_demo() else {
        return;
    };
    let scrubbed = scratch("csgo-scrubbed.dem");
    let out = demokit(&[
        "scrub".as_ref(),
        "--all".as_ref(),
        "-f".as_ref(),
        csgo.as_os_str(),
        scrubbed.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run("validate", &scrubbed, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let players = json_lines(&run("players", &scrubbed, &["--json"]));
    assert_eq!(players[0]["name"], "player-1", "{players:?}");
    let trimmed = scratch("csgo-trimmed.dem");
    let out = demokit(&[
        "trim".as_ref(),
        "--from".as_ref(),
        "300".as_ref(),
        "--to".as_ref(),
        "600".as_ref(),
        "-f".as_ref(),
        csgo.as_os_str(),
        trimmed.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run("validate", &trimmed, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info = &json_lines(&run("info", &trimmed, &["--json"]))[0];
    assert!(info["ticks"].as_i64().unwrap() <= 300, "{info}");
    let _ = std::fs::remove_file(&scrubbed);
    let _ = std::fs::remove_file(&trimmed);
}
