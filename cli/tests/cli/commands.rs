//! End-to-end tests of the `demokit` binary on the real recordings of the test corpus.

use crate::common;

use crate::run::{command, demokit, run, stderr, stdout};
use common::sha256_hex;
use common::temp::TempDir;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The facts entry of the real demo whose file name ends with `name`.
fn fact(shared: &Path, name: &str) -> (PathBuf, Value) {
    common::twdemo_facts(shared)
        .into_iter()
        .find(|(path, _)| path.ends_with(name))
        .unwrap_or_else(|| panic!("{name} is in facts.json"))
}

/// The offsets named as "at byte N" in `text`.
fn offsets_named(text: &str) -> Vec<u64> {
    text.split("at byte ")
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

/// `data` cut off inside the payload of its last data chunk, and that chunk's offset.
fn cut_inside_last_data_chunk(data: &[u8]) -> (Vec<u8>, u64) {
    let slice = demokit::twdemo::DemoSlice::parse(data).unwrap();
    let (offset, header_len, payload_len) = slice
        .chunks()
        .map(Result::unwrap)
        .filter_map(|item| match item.chunk {
            demokit::twdemo::Chunk::Data(d) if d.payload.len() >= 2 => {
                Some((item.offset, item.header.len(), d.payload.len()))
            }
            _ => None,
        })
        .last()
        .expect("a data chunk");
    let cut = offset as usize + header_len + payload_len / 2;
    (data[..cut].to_vec(), offset)
}

/// `info --json` reports every header field and count that facts.json records.
#[test]
fn info_json_agrees_with_facts() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let demos = common::twdemo_facts(&shared);
    common::check_total("real demos", demos.len(), 10);
    for (path, f) in demos {
        let name = path.display().to_string();
        let out = run("info", &path, &["--json"]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let text = stdout(&out);
        assert_eq!(
            text.lines().count(),
            1,
            "{name}: one JSON object on one line"
        );
        let info: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(info["format"], "twdemo", "{name}");
        assert!(info.get("error").is_none(), "{name}");
        for (ours, theirs) in [
            ("version", "version"),
            ("net_version", "net_version"),
            ("map_name", "map_name"),
            ("map_size", "map_size"),
            ("map_crc", "map_crc"),
            ("type", "type"),
            ("length", "length_s"),
            ("first_tick", "first_tick"),
            ("last_tick", "last_tick"),
            ("map_offset", "map_offset"),
            ("chunks_offset", "chunks_offset"),
        ] {
            assert_eq!(info[ours], f[theirs], "{name}: {ours}");
        }
        // The header's timestamp, as the game model writes start times (ISO 8601).
        assert_eq!(
            info["start_time"].as_str().unwrap(),
            demokit::model::start_time_of_demo(f["timestamp"].as_str().unwrap()),
            "{name}: start_time"
        );
        let crc = info["map_crc"].as_str().unwrap();
        assert!(
            crc.len() == 8 && crc.chars().all(|c| c.is_ascii_hexdigit()),
            "{name}: map_crc {crc}"
        );
        match f.get("map_sha256") {
            Some(sha) => assert_eq!(&info["map_sha256"], sha, "{name}: map_sha256"),
            None => assert!(info["map_sha256"].is_null(), "{name}: map_sha256"),
        }
        if let Some(n) = f.get("num_timeline_markers") {
            let markers = info["markers"].as_array().unwrap();
            assert_eq!(markers.len() as u64, n.as_u64().unwrap(), "{name}: markers");
        }
        let counts = &info["counts"];
        let facts = &f["chunk_counts"];
        for (ours, theirs) in [
            ("tick_markers", "tick"),
            ("keyframes", "keyframe"),
            ("snapshots", "snap"),
            ("deltas", "delta"),
            ("messages", "msg"),
        ] {
            assert_eq!(counts[ours], facts[theirs], "{name}: counts.{ours}");
        }
        assert_eq!(counts["unknown"], 0, "{name}: counts.unknown");
    }
}

/// `info` without `--json` prints `key value` rows with the values in one column.
#[test]
fn info_text_is_an_aligned_block() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (path, f) = fact(&shared, "v6_ddnet201_server_dm1.demo");
    let out = run("info", &path, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let map_line = text
        .lines()
        .find(|l| l.starts_with("map name"))
        .expect("a map name line");
    assert!(map_line.ends_with(f["map_name"].as_str().unwrap()));
    let columns: Vec<usize> = text
        .lines()
        .map(|l| l.len() - l[17..].trim_start().len())
        .collect();
    assert!(columns.iter().all(|&c| c == columns[0]), "{text}");
}

/// A broken chunk stream still gets its summary, with the error beside it, and exit 1.
#[test]
fn info_on_a_cut_off_demo_prints_the_summary_and_fails() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (path, f) = fact(&shared, "v6_ddnet201_server_dm1.demo");
    let data = std::fs::read(&path).unwrap();
    let (short, offset) = cut_inside_last_data_chunk(&data);
    let tmp = TempDir::new("info-cut");
    let cut = tmp.path("cut.demo");
    std::fs::write(&cut, short).unwrap();
    let out = run("info", &cut, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let info: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(info["map_name"], f["map_name"]);
    assert_eq!(info["first_tick"], f["first_tick"]);
    assert_eq!(info["error"]["offset"], offset);
    assert!(info["error"]["message"].is_string());
    let err = stderr(&out);
    assert!(err.starts_with(&format!("demokit: {}: at byte {offset}: ", cut.display())));
}

/// Decoding and re-encoding every real demo reproduces it byte for byte.
#[test]
fn rewrite_reproduces_every_real_demo() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let tmp = TempDir::new("rewrite");
    for (path, f) in common::twdemo_facts(&shared) {
        let name = path.display().to_string();
        let target = tmp.path("out.demo");
        // One output for every demo: each rewrite replaces the last one's.
        let out = demokit(&[
            "rewrite".as_ref(),
            path.as_os_str(),
            target.as_os_str(),
            "--force".as_ref(),
        ]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("re-encoded"),
            "{name}: stats on stderr"
        );
        let input = sha256_hex(&std::fs::read(&path).unwrap());
        let output = sha256_hex(&std::fs::read(&target).unwrap());
        assert_eq!(input, f["sha256"].as_str().unwrap(), "{name}: input");
        assert_eq!(output, input, "{name}: rewrite differs");
    }
}

/// DDNet's reference recording also survives a rewrite byte for byte; an output path that
/// cannot be written exits with 3.
#[test]
fn rewrite_reproduces_the_ddnet_reference_recording() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = shared.join("conformance/ddnet-recorder/ref_client.demo");
    let tmp = TempDir::new("rewrite-ref");
    let target = tmp.path("out.demo");
    let out = demokit(&["rewrite".as_ref(), path.as_os_str(), target.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&target).unwrap(),
        std::fs::read(&path).unwrap()
    );

    let unwritable = tmp.path("no/such/dir/out.demo");
    let out = demokit(&["rewrite".as_ref(), path.as_os_str(), unwritable.as_os_str()]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).starts_with(&format!("demokit: {}: ", unwritable.display())));
}

/// A rewrite of a cut-off demo writes everything before the cut chunk and exits 1.
#[test]
fn rewrite_of_a_cut_off_demo_writes_the_prefix_and_fails() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (path, _) = fact(&shared, "v6_ddnet201_server_dm1.demo");
    let data = std::fs::read(&path).unwrap();
    let (short, offset) = cut_inside_last_data_chunk(&data);
    let tmp = TempDir::new("rewrite-cut");
    let cut = tmp.path("cut.demo");
    std::fs::write(&cut, short).unwrap();
    let target = tmp.path("out.demo");
    let out = demokit(&["rewrite".as_ref(), cut.as_os_str(), target.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(offsets_named(&stderr(&out)), [offset], "{}", stderr(&out));
    let written = std::fs::read(&target).unwrap();
    assert_eq!(
        written.len() as u64,
        offset,
        "everything before the cut chunk"
    );
    assert_eq!(written, data[..written.len()]);
}

/// Every real recording is one DDNet would play.
#[test]
fn validate_accepts_every_real_demo() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in common::twdemo_facts(&shared) {
        let out = run("validate", &path, &[]);
        assert!(out.status.success(), "{}: {}", path.display(), stderr(&out));
    }
}

/// Offset of the header's big-endian map CRC-32 field.
const MAP_CRC_OFFSET: usize = 140;

/// The reference recording made by DDNet's own recorder (`ref_client.demo`) is refused
/// only for its embedded map: the recorder was handed the 8 bytes "MAPDATA!", which is no
/// datafile, so DDNet's client cannot load it ("Could not find map"). DDNet stops there, and
/// so does the report: one fatal problem, at the map.
#[test]
fn validate_finds_only_the_fake_map_in_the_ddnet_reference_recording() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = shared.join("conformance/ddnet-recorder/ref_client.demo");
    let out = run("validate", &path, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["accepted"], false);
    assert_eq!(report["verdict"], "rejects");
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{report}");
    let p = &problems[0];
    assert_eq!(p["offset"], 484, "{p}");
    assert_eq!(p["kind"], "map_load", "{p}");
    let message = p["message"].as_str().unwrap();
    assert!(message.contains("embedded map does not load"), "{p}");
    assert!(message.contains("Could not find map 'testmap'"), "{p}");
}

/// With a map DDNet loads spliced in for its fake one (header map size, CRC-32 and SHA-256
/// to match), DDNet's reference recording is accepted: exit 0, no problems at all.
#[test]
fn validate_accepts_the_ddnet_reference_recording_with_a_real_map() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let data = std::fs::read(shared.join("conformance/ddnet-recorder/ref_client.demo")).unwrap();
    let (map_offset, map_size) = (484, 8);
    assert_eq!(&data[map_offset..map_offset + map_size], b"MAPDATA!");
    let map = demokit::datafile::minimal_map(3, 2, "ref").unwrap();
    let mut fixed = data[..map_offset].to_vec();
    fixed[136..140].copy_from_slice(&(map.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&map);
    fixed[MAP_CRC_OFFSET..MAP_CRC_OFFSET + 4].copy_from_slice(&crc.to_be_bytes());
    fixed[map_offset - 32..map_offset].copy_from_slice(&Sha256::digest(&map));
    fixed.extend_from_slice(&map);
    fixed.extend_from_slice(&data[map_offset + map_size..]);
    let tmp = TempDir::new("validate-ref");
    let path = tmp.path("ref_client_real_map.demo");
    std::fs::write(&path, &fixed).unwrap();

    let info: Value = serde_json::from_str(&stdout(&run("info", &path, &["--json"]))).unwrap();
    assert_eq!(info["map_offset"], map_offset);
    assert_eq!(info["map_size"], map.len());
    assert_eq!(info["map_crc"], format!("{crc:08x}"));
    assert_eq!(info["map_sha256"], sha256_hex(&map));

    let out = run("validate", &path, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["accepted"], true);
    assert_eq!(report["verdict"], "plays");
    assert_eq!(report["problems"], serde_json::json!([]));
}

/// One flipped map byte: the map no longer matches the header's SHA-256 (or no longer
/// loads), and DDNet finds no map; a byte in the map is named.
#[test]
fn validate_rejects_a_corrupted_map_byte() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (path, f) = fact(&shared, "v6_ddnet201_server_dm1.demo");
    let mut data = std::fs::read(&path).unwrap();
    let map_offset = f["map_offset"].as_u64().unwrap();
    data[map_offset as usize + 100] ^= 0x55;
    let tmp = TempDir::new("validate-map");
    let bad = tmp.path("bad_map.demo");
    std::fs::write(&bad, &data).unwrap();
    let out = run("validate", &bad, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    let prefix = format!("demokit: {}: at byte ", bad.display());
    let line = err
        .lines()
        .find(|l| l.starts_with(&prefix) && l.contains("Could not find map"))
        .unwrap_or_else(|| panic!("{err}"));
    let map_size = f["map_size"].as_u64().unwrap();
    let offset = offsets_named(line)[0];
    assert!(
        (map_offset..map_offset + map_size).contains(&offset),
        "{err}"
    );
}

/// Files cut inside the map or inside a chunk are rejected with the offset named.
#[test]
fn validate_rejects_truncated_files() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (path, f) = fact(&shared, "v6_ddnet201_server_dm1.demo");
    let data = std::fs::read(&path).unwrap();
    let map_offset = f["map_offset"].as_u64().unwrap();
    let tmp = TempDir::new("validate-cut");

    // Cut inside the embedded map: the map is named at its start.
    let in_map = tmp.path("cut_in_map.demo");
    std::fs::write(&in_map, &data[..map_offset as usize + 10]).unwrap();
    let out = run("validate", &in_map, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let expected = format!("demokit: {}: at byte {map_offset}: ", in_map.display());
    assert!(stderr(&out).starts_with(&expected), "{}", stderr(&out));

    // Cut inside the chunk stream: the cut chunk is named.
    let (short, offset) = cut_inside_last_data_chunk(&data);
    let in_chunks = tmp.path("cut_in_chunks.demo");
    std::fs::write(&in_chunks, short).unwrap();
    let out = run("validate", &in_chunks, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    let fatal: Vec<&str> = err.lines().filter(|l| !l.contains("warning:")).collect();
    assert!(!fatal.is_empty(), "{err}");
    let prefix = format!("demokit: {}: at byte ", in_chunks.display());
    assert!(fatal.iter().all(|l| l.starts_with(&prefix)), "{err}");
    assert!(offsets_named(&err).contains(&offset), "{err}");
}

/// `info` reports the embedded map's own facts, read from its datafile: for the DDNet
/// tutorial demo its info item's texts and the game layer's size.
#[test]
fn info_shows_the_embedded_maps_facts() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    if common::shared_file("real-fixtures/twdemo/v6_ddnet194_client_tutorial.demo").is_none() {
        return;
    }
    let (path, f) = fact(&shared, "v6_ddnet194_client_tutorial.demo");
    let out = run("info", &path, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let map = &info["map"];
    assert_eq!(map["size"], f["map_size"], "{map}");
    assert_eq!(map["crc32"], f["map_crc"], "{map}");
    assert_eq!(map["sha256"], f["map_sha256"], "{map}");
    assert_eq!(map["datafile_version"], 4);
    assert_eq!(map["map_version"], 1);
    assert_eq!(map["info"]["license"], "CC-BY-SA", "{map}");
    assert!(
        map["info"]["author"].as_str().unwrap().contains("unique2"),
        "{map}"
    );
    assert_eq!(
        map["game_layer"],
        serde_json::json!({"width": 2210, "height": 110})
    );
    assert_eq!(map["loads"], true);
    assert!(map["groups"].as_u64().unwrap() > 1 && map["images"].as_u64().unwrap() > 1);
    let text = stdout(&run("info", &path, &[]));
    assert!(text.contains("map file          datafile v4, "), "{text}");
    assert!(text.contains("map license       CC-BY-SA"), "{text}");
    assert!(text.contains("game layer 2210x110"), "{text}");
    assert!(text.contains("map loads         yes"), "{text}");

    // A map that is no datafile is named as such, with its offset in the demo.
    let crafted = common::root().join("fixtures/validate/map-not-a-datafile.demo");
    let info: Value = serde_json::from_str(&stdout(&run("info", &crafted, &["--json"]))).unwrap();
    assert!(info.get("map").is_none(), "{info}");
    assert_eq!(info["map_error"]["offset"], 484, "{info}");
}

/// A file with no known magic is refused by every command, naming the expected magic.
#[test]
fn wrong_magic_is_refused() {
    let tmp = TempDir::new("magic");
    let path = tmp.path("not_a_demo.bin");
    std::fs::write(&path, b"NOTADEMO and some more bytes").unwrap();
    for command in ["info", "dump", "validate"] {
        let out = run(command, &path, &[]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("demokit: {}: at byte 0: ", path.display())),
            "{command}: {err}"
        );
        assert!(err.contains("unknown format"), "{command}: {err}");
        assert!(err.contains("TWDEMO"), "{command}: {err}");
    }
}

/// A GoldSrc demo is named as a different format and refused.
#[test]
fn goldsrc_demo_is_refused_as_a_different_format() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = shared.join("real-fixtures/negative/goldsrc_hldemo_basic.dem");
    for command in ["info", "dump", "validate"] {
        let out = run(command, &path, &[]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        let err = stderr(&out);
        assert!(err.contains("GoldSrc"), "{command}: {err}");
        assert!(err.contains("different format"), "{command}: {err}");
    }
}

/// A file that cannot be opened exits with 3, the I/O error code.
#[test]
fn missing_file_is_an_io_error() {
    let tmp = TempDir::new("missing");
    let path = tmp.path("does_not_exist.demo");
    let out = run("info", &path, &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).starts_with(&format!("demokit: {}: ", path.display())));
}

/// Bad command lines exit with 2, and `--help` documents every exit code.
#[test]
fn usage_errors_exit_with_2_and_help_documents_exit_codes() {
    let out = demokit(&["info"]);
    assert_eq!(out.status.code(), Some(2));
    let out = demokit(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    let out = demokit(&["--help"]);
    assert!(out.status.success());
    let help = stdout(&out);
    assert!(help.contains("Exit codes"), "{help}");
    for code in ["0", "1", "2", "3"] {
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(&format!("{code} "))),
            "exit code {code} documented: {help}"
        );
    }
}

/// `dump --json` prints one JSON object per chunk, agreeing with the counts in facts.json.
#[test]
fn dump_json_has_one_line_per_chunk() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (path, f) = fact(&shared, "v6_ddnet201_server_dm1.demo");
    let out = run("dump", &path, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let counts = &f["chunk_counts"];
    let total: u64 = ["tick", "snap", "delta", "msg"]
        .iter()
        .map(|k| counts[k].as_u64().unwrap())
        .sum();
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len() as u64, total);
    let count = |kind: &str| lines.iter().filter(|l| l["kind"] == kind).count() as u64;
    let markers = lines.iter().filter(|l| l["type"] == "tick").count() as u64;
    assert_eq!(markers, counts["tick"].as_u64().unwrap());
    assert_eq!(count("snapshot"), counts["snap"].as_u64().unwrap());
    assert_eq!(count("snapshot_delta"), counts["delta"].as_u64().unwrap());
    assert_eq!(count("message"), counts["msg"].as_u64().unwrap());
    let keyframes = lines.iter().filter(|l| l["keyframe"] == true).count() as u64;
    assert_eq!(keyframes, counts["keyframe"].as_u64().unwrap());
    assert_eq!(lines[0]["offset"], f["chunks_offset"]);
    let mut last_offset = 0;
    for line in &lines {
        let offset = line["offset"].as_u64().unwrap();
        assert!(offset >= last_offset);
        last_offset = offset;
        assert!(line["header"]["lead"].is_u64(), "{line}");
        if line["type"] == "tick" {
            assert!(line["tick"].is_i64());
            assert!(line["form"].is_string(), "{line}");
            continue;
        }
        assert_eq!(line["type"], "data", "{line}");
        assert!(line.get("error").is_none(), "{line}");
        assert!(!line["payload"].as_str().unwrap().is_empty(), "{line}");
        let decoded = &line["decoded"];
        assert!(decoded["ints"].is_array(), "{line}");
        assert_eq!(decoded["non_canonical_ints"], 0, "{line}");
    }
    let ticks: Vec<i64> = lines
        .iter()
        .filter(|l| l["type"] == "tick")
        .filter_map(|l| l["tick"].as_i64())
        .collect();
    assert_eq!(ticks.first(), f["first_tick"].as_i64().as_ref());
    assert_eq!(ticks.last(), f["last_tick"].as_i64().as_ref());
}

/// A payload that does not decode gets an "error" on its line, the dump goes on to the end,
/// and the exit status is 1 with the chunk's offset on stderr.
#[test]
fn dump_reports_an_undecodable_payload_and_goes_on() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (path, _) = fact(&shared, "v6_ddnet201_server_dm1.demo");
    let mut data = std::fs::read(&path).unwrap();
    let slice = demokit::twdemo::DemoSlice::parse(&data).unwrap();
    let total = slice.chunks().count();
    let (offset, start, len) = slice
        .chunks()
        .map(Result::unwrap)
        .find_map(|item| match item.chunk {
            demokit::twdemo::Chunk::Data(d) if d.payload.len() >= 16 => Some((
                item.offset,
                item.offset as usize + item.header.len(),
                d.payload.len(),
            )),
            _ => None,
        })
        .expect("a data chunk of 16 bytes or more");
    // All-zero bits never reach the Huffman EOF code within the chunk.
    data[start..start + len].fill(0);
    let tmp = TempDir::new("dump-undecodable");
    let bad = tmp.path("bad_payload.demo");
    std::fs::write(&bad, &data).unwrap();

    let out = run("dump", &bad, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), total);
    let failed: Vec<&Value> = lines.iter().filter(|l| l.get("error").is_some()).collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["offset"], offset);
    assert_eq!(failed[0]["payload"].as_str().unwrap().len(), 2 * len);
    assert!(failed[0].get("decoded").is_none());
    let expected = format!("demokit: {}: at byte {offset}: ", bad.display());
    assert!(stderr(&out).starts_with(&expected), "{}", stderr(&out));
}

/// The text dump has a column header and then one line per chunk.
#[test]
fn dump_text_has_a_header_and_one_line_per_chunk() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (path, f) = fact(&shared, "v6_ddnet201_server_dm1.demo");
    let out = run("dump", &path, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let counts = &f["chunk_counts"];
    let total: u64 = ["tick", "snap", "delta", "msg"]
        .iter()
        .map(|k| counts[k].as_u64().unwrap())
        .sum();
    assert_eq!(stdout(&out).lines().count() as u64, total + 1);
}

/// Closing the reading end of the pipe (as `| head` does) ends the dump quietly with 0.
#[test]
fn dump_into_a_closed_pipe_does_not_panic() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (path, _) = fact(&shared, "v6_ddnet_client_multeasymap_2020.demo");
    for json in [false, true] {
        let mut child = command()
            .arg("dump")
            .arg(&path)
            .args(json.then_some("--json"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("demokit starts");
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert!(!line.is_empty());
        drop(reader);
        let out = child.wait_with_output().unwrap();
        assert_ne!(out.status.code(), Some(101), "panicked: {}", stderr(&out));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
}

/// `completions` and `man` print what clap_complete and clap_mangen make of the commands:
/// a script that completes every subcommand, and a page that names them.
#[test]
fn completions_and_the_man_page_name_every_command() {
    let commands = [
        "info",
        "dump",
        "chat",
        "players",
        "events",
        "export",
        "rewrite",
        "repair",
        "trim",
        "convert",
        "markers",
        "extract-map",
        "scrub",
        "render",
        "report",
        "validate",
    ];
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = demokit(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = String::from_utf8(out.stdout).unwrap();
        for command in commands {
            assert!(script.contains(command), "{shell} completes {command}");
        }
    }
    let out = demokit(&["man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(
        page.to_lowercase().contains(".th demokit 1"),
        "a roff page of section 1: {}",
        &page[..page.len().min(300)]
    );
    for command in commands {
        // roff writes a hyphen as `\-`.
        let escaped = command.replace('-', "\\-");
        assert!(
            page.contains(command) || page.contains(&escaped),
            "the page names {command}"
        );
    }
    let out = demokit(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `dump` over a directory: each recording's dump in path order, the same lines as each
/// file's own dump; in text under a `==> FILE <==` line, in JSON with `file` on every line.
/// Files that are no recording are passed over and counted.
#[test]
fn dump_takes_a_directory() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = TempDir::new("dump-dir");
    let demos = ["v3_tw061_server_dm1.demo", "v6_ddnet201_server_dm1.demo"];
    for name in demos {
        std::fs::copy(
            shared.join("real-fixtures/twdemo").join(name),
            dir.path(name),
        )
        .unwrap();
    }
    std::fs::write(dir.path("notes.txt"), "not a recording").unwrap();
    let out = demokit(&["dump".as_ref(), "--json".as_ref(), dir.0.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut expected = 0;
    for name in demos {
        let own = demokit(&[
            "dump".as_ref(),
            "--json".as_ref(),
            dir.path(name).as_os_str(),
        ]);
        let own: Vec<Value> = stdout(&own)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let file = dir.path(name).to_string_lossy().into_owned();
        let listed: Vec<Value> = lines
            .iter()
            .filter(|l| l["file"] == file.as_str())
            .map(|l| {
                let mut l = l.clone();
                l.as_object_mut().unwrap().remove("file");
                l
            })
            .collect();
        assert_eq!(listed, own, "{name}");
        expected += own.len();
    }
    // The skipped text file gets a line naming why; every other line is a dump's.
    assert_eq!(lines.len(), expected + 1);
    assert!(lines.iter().any(|l| l["skipped"].is_string()));
    let text = demokit(&["dump".as_ref(), dir.0.as_os_str()]);
    assert!(text.status.success(), "{}", stderr(&text));
    let headers: Vec<String> = stdout(&text)
        .lines()
        .filter(|l| l.starts_with("==> "))
        .map(String::from)
        .collect();
    assert_eq!(headers.len(), 2, "{headers:?}");
    assert!(stderr(&text).contains("1 skipped"), "{}", stderr(&text));
}
