//! End-to-end tests of the `demokit` binary on teehistorian files, and of `info` and
//! `validate` over several files and directories.

use crate::common;

use crate::run::{demokit, json_lines, run, stderr, stdout};
use common::sha256_hex;
use common::temp::TempDir;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The teehistorian entries of facts.json with their paths.
fn teehistorian_facts(shared: &Path) -> Vec<(PathBuf, Value)> {
    let entries = common::facts_files(shared, "teehistorian");
    assert_eq!(entries.len(), 3);
    entries
}

/// DDNet's reference file, written by its own writer from the calls in
/// conformance/teehistorian-ddnet.md.
fn reference(shared: &Path) -> PathBuf {
    shared.join("conformance/ddnet-recorder/ref.teehistorian")
}

/// The reference file's messages by kind, as the conformance notes list its body.
fn reference_counts() -> Value {
    serde_json::json!({
        "EX:teehistorian-joinver6@ddnet.tw": 1,
        "JOIN": 1,
        "EX:teehistorian-player-name@ddnet.org": 1,
        "PLAYER_NEW": 1,
        "INPUT_NEW": 1,
        "PLAYER_DIFF": 1,
        "INPUT_DIFF": 1,
        "TICK_SKIP": 2,
        "PLAYER_OLD": 1,
        "DROP": 1,
        "FINISH": 1,
    })
}

/// The sum of the counts in a `{kind: count}` object.
fn total(counts: &Value) -> u64 {
    counts
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum()
}

/// The header fields `info --json` reports beside their header key.
const HEADER_FIELDS: [&str; 5] = [
    "version_minor",
    "game_uuid",
    "server_version",
    "map_name",
    "start_time",
];

/// `info --json` agrees with facts.json: counts by kind, header length and keys, FINISH.
#[test]
fn info_json_agrees_with_facts() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, f) in teehistorian_facts(&shared) {
        let name = path.display().to_string();
        let out = run("info", &path, &["--json"]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{name}: {}", stderr(&out));
        let lines = json_lines(&out);
        assert_eq!(lines.len(), 1, "{name}: one object");
        let info = &lines[0];
        assert_eq!(info["file"], name.as_str());
        assert_eq!(info["format"], "teehistorian", "{name}");
        assert!(info.get("error").is_none(), "{name}: {info}");
        assert_eq!(info["counts"], f["chunk_counts"], "{name}: counts");
        assert_eq!(info["messages"], total(&f["chunk_counts"]), "{name}");
        assert_eq!(info["header_len"], f["header_len"], "{name}");
        assert_eq!(info["finished"], f["finished_with_FINISH"], "{name}");
        assert_eq!(info["trailing_bytes"], f["trailing_bytes"], "{name}");
        assert_eq!(info["non_canonical_messages"], 0, "{name}");
        let keys: Vec<&str> = f["header_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        for field in HEADER_FIELDS {
            assert_eq!(
                info[field].is_string(),
                keys.contains(&field),
                "{name}: {field} is present exactly when the header has it"
            );
        }
        let file_name = path.file_name().unwrap().to_str().unwrap();
        let version = if file_name.starts_with("v1_") {
            "1"
        } else {
            "2"
        };
        assert_eq!(info["version"], version, "{name}");
        assert_eq!(info["map_name"], "dm1", "{name}");
        let (first, last) = (&info["first_tick"], &info["last_tick"]);
        assert!(first.as_i64().unwrap() <= last.as_i64().unwrap(), "{name}");
    }
}

/// `info --json` on DDNet's reference file gives the values DDNet's writer was called with.
#[test]
fn info_json_on_the_ddnet_reference_file() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = reference(&shared);
    let out = run("info", &path, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let info = &json_lines(&out)[0];
    assert_eq!(info["counts"], reference_counts());
    assert_eq!(info["version"], "2");
    let uuid = demokit::codec::uuid::teeworlds_uuid("test@ddnet.tw").to_string();
    assert_eq!(info["game_uuid"], uuid.as_str());
    assert_eq!(info["server_version"], "DDNet test");
    assert_eq!(info["map_name"], "Kobra 3 Solo");
    assert_eq!(info["header_len"], 3190);
    assert_eq!(
        (&info["first_tick"], &info["last_tick"]),
        (&0.into(), &11.into())
    );
    assert_eq!(info["finished"], true);

    // The text form shows the same, and every kind with its count.
    let out = run("info", &path, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("map name") && l.ends_with("Kobra 3 Solo"))
    );
    for (kind, n) in reference_counts().as_object().unwrap() {
        assert!(
            text.lines().any(|l| {
                let mut words = l.split_whitespace();
                words.next() == Some(kind) && words.next() == Some(&n.to_string())
            }),
            "{kind} {n}: {text}"
        );
    }
}

/// `rewrite` reproduces every real teehistorian file and the reference file byte for byte.
#[test]
fn rewrite_is_byte_identical() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let tmp = TempDir::new("rewrite");
    let mut files: Vec<(PathBuf, Option<String>)> = teehistorian_facts(&shared)
        .into_iter()
        .map(|(path, f)| (path, Some(f["sha256"].as_str().unwrap().to_string())))
        .collect();
    files.push((reference(&shared), None));
    for (path, sha) in files {
        let name = path.display().to_string();
        let target = tmp.path("out.teehistorian");
        // One output for every file: each rewrite replaces the last one's.
        let out = demokit(&[
            OsStr::new("rewrite"),
            path.as_os_str(),
            target.as_os_str(),
            OsStr::new("--force"),
        ]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("re-encoded"),
            "{name}: stats on stderr"
        );
        let input = sha256_hex(&std::fs::read(&path).unwrap());
        if let Some(sha) = sha {
            assert_eq!(input, sha, "{name}: input");
        }
        let output = sha256_hex(&std::fs::read(&target).unwrap());
        assert_eq!(output, input, "{name}: rewrite differs");
    }
}

/// Every real teehistorian file and the reference file pass `validate`, with no problem.
#[test]
fn validate_accepts_real_files() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut files: Vec<PathBuf> = teehistorian_facts(&shared)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    files.push(reference(&shared));
    for path in files {
        let name = path.display().to_string();
        let out = run("validate", &path, &[]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{name}: {}", stderr(&out));
        let out = run("validate", &path, &["--json"]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let report = &json_lines(&out)[0];
        assert_eq!(report["format"], "teehistorian");
        assert_eq!(report["accepted"], true, "{name}");
        assert_eq!(report["problems"], serde_json::json!([]), "{name}");
    }
}

/// `dump --json` prints one object per message, agreeing with the counts in facts.json.
#[test]
fn dump_json_has_one_line_per_message() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut files: Vec<(PathBuf, Value)> = teehistorian_facts(&shared)
        .into_iter()
        .map(|(p, f)| (p, f["chunk_counts"].clone()))
        .collect();
    files.push((reference(&shared), reference_counts()));
    for (path, counts) in files {
        let name = path.display().to_string();
        let out = run("dump", &path, &["--json"]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let lines = json_lines(&out);
        assert_eq!(lines.len() as u64, total(&counts), "{name}");
        let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
        let mut end = 0;
        let mut tick = 0;
        for line in &lines {
            // The library's kind names: EX records add the extension's name.
            let kind = match (line["kind"].as_str().unwrap(), line["ex"].as_str()) {
                ("EX", Some("unknown")) => format!("EX:{}", line["uuid"].as_str().unwrap()),
                ("EX", Some(ex)) => format!("EX:{ex}"),
                (kind, _) => kind.to_string(),
            };
            *by_kind.entry(kind).or_default() += 1;
            // Messages follow each other without gaps; ticks never go back.
            let offset = line["offset"].as_u64().unwrap();
            assert!(end == 0 || offset == end, "{name}: {line}");
            end = offset + line["size"].as_u64().unwrap();
            let t = line["tick"].as_i64().unwrap();
            assert!(t >= tick, "{name}: {line}");
            tick = t;
        }
        assert_eq!(serde_json::to_value(&by_kind).unwrap(), counts, "{name}");
        assert_eq!(lines.last().unwrap()["kind"], "FINISH");
        assert_eq!(end, std::fs::metadata(&path).unwrap().len(), "{name}");

        // The text dump: a column header, then one line per message.
        let out = run("dump", &path, &[]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert_eq!(stdout(&out).lines().count(), lines.len() + 1, "{name}");
    }
}

/// The dump of the reference file shows each message's fields and DDNet's ticks.
#[test]
fn dump_json_shows_message_fields() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let out = run("dump", &reference(&shared), &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let find = |kind: &str| {
        lines
            .iter()
            .find(|l| l["kind"] == kind || l["ex"] == kind)
            .unwrap_or_else(|| panic!("a {kind} line"))
    };
    let player_new = find("PLAYER_NEW");
    assert_eq!(
        (
            &player_new["tick"],
            &player_new["client_id"],
            &player_new["x"],
            &player_new["y"]
        ),
        (&1.into(), &0.into(), &100.into(), &200.into())
    );
    assert_eq!(
        find("INPUT_NEW")["input"],
        serde_json::json!([1, 10, -20, 0, 0, 0, 0, 0, 0, 0])
    );
    assert_eq!(find("PLAYER_DIFF")["dx"], 3);
    assert_eq!(
        find("teehistorian-player-name@ddnet.org")["name"],
        "nameless tee"
    );
    let drop = find("DROP");
    assert_eq!(
        (&drop["tick"], &drop["reason"]),
        (&11.into(), &"bye".into())
    );
    let skips: Vec<(&Value, &Value)> = lines
        .iter()
        .filter(|l| l["kind"] == "TICK_SKIP")
        .map(|l| (&l["dt"], &l["tick"]))
        .collect();
    assert_eq!(skips, [(&7.into(), &10.into()), (&0.into(), &11.into())]);
    assert_eq!(lines[0]["offset"], 3190);
}

/// The 13 bytes of text named `.teehistorian` are refused by every command as an unknown
/// format, naming the expected magics.
#[test]
fn negative_fixture_is_refused() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = shared.join("real-fixtures/negative/kog_dummy_invalid.teehistorian");
    let tmp = TempDir::new("negative");
    let target = tmp.path("out.teehistorian");
    let runs = [
        run("info", &path, &[]),
        run("info", &path, &["--json"]),
        run("dump", &path, &[]),
        run("validate", &path, &[]),
        demokit(&[OsStr::new("rewrite"), path.as_os_str(), target.as_os_str()]),
    ];
    for out in &runs {
        assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
        let err = stderr(out);
        let expected = format!("demokit: {}: at byte 0: unknown format", path.display());
        assert!(err.starts_with(&expected), "{err}");
        assert!(
            err.contains("TWDEMO") && err.contains("teehistorian"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(!target.exists(), "nothing written");
    let error = &json_lines(&runs[1])[0];
    assert_eq!(error["file"], path.display().to_string().as_str());
    assert_eq!(error["error"]["offset"], 0);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown format")
    );
}

/// A file cut inside its body: `info` prints the summary so far with the error and exits 1;
/// `rewrite` writes every whole message before the cut; `validate` names the cut.
#[test]
fn cut_off_file() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = shared.join("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian");
    let data = std::fs::read(&path).unwrap();
    let tmp = TempDir::new("cut");
    let cut = tmp.write("cut.teehistorian", &data[..data.len() - 100]);

    // The offset of the message the cut falls into, from the dump of the whole file.
    let out = run("dump", &path, &["--json"]);
    let offset = json_lines(&out)
        .iter()
        .map(|l| l["offset"].as_u64().unwrap())
        .take_while(|&o| o < data.len() as u64 - 100)
        .last()
        .unwrap();

    let out = run("info", &cut, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let info = &json_lines(&out)[0];
    assert_eq!(info["map_name"], "dm1");
    assert_eq!(info["finished"], false);
    assert_eq!(info["error"]["offset"], offset);
    let expected = format!("demokit: {}: at byte {offset}: ", cut.display());
    assert!(stderr(&out).starts_with(&expected), "{}", stderr(&out));

    let target = tmp.path("out.teehistorian");
    let out = demokit(&[OsStr::new("rewrite"), cut.as_os_str(), target.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains(&expected), "{}", stderr(&out));
    assert_eq!(std::fs::read(&target).unwrap(), data[..offset as usize]);

    let out = run("validate", &cut, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).starts_with(&expected), "{}", stderr(&out));

    // The dump prints everything before the cut, then fails.
    let out = run("dump", &cut, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let last = json_lines(&out).last().unwrap().clone();
    assert_eq!(
        last["offset"].as_u64().unwrap() + last["size"].as_u64().unwrap(),
        offset
    );
}

/// `validate`: bytes after FINISH are fatal; ints in a non-canonical form are a warning
/// (exit 0), and a rewrite keeps them as stored.
#[test]
fn validate_trailing_data_and_non_canonical_ints() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let data = std::fs::read(reference(&shared)).unwrap();
    let tmp = TempDir::new("validate");

    let mut trailing = data.clone();
    trailing.extend_from_slice(b"xy");
    let trailing = tmp.write("trailing.teehistorian", &trailing);
    let out = run("validate", &trailing, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = &json_lines(&out)[0];
    assert_eq!(report["accepted"], false);
    assert_eq!(report["problems"][0]["offset"], data.len());
    assert_eq!(report["problems"][0]["fatal"], true);
    assert_eq!(report["problems"][0]["kind"], "data_after_finish");
    let expected = format!(
        "demokit: {}: at byte {}: 2 bytes",
        trailing.display(),
        data.len()
    );
    assert!(stderr(&out).starts_with(&expected), "{}", stderr(&out));
    let out = run("info", &trailing, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(json_lines(&out)[0]["trailing_bytes"], 2);

    // JOIN 0 at 3209 (47 00) with its cid in two bytes (80 00).
    assert_eq!(data[3209..3211], [0x47, 0x00]);
    let mut odd = data[..3210].to_vec();
    odd.extend_from_slice(&[0x80, 0x00]);
    odd.extend_from_slice(&data[3211..]);
    let odd_path = tmp.write("non_canonical.teehistorian", &odd);
    let out = run("validate", &odd_path, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = format!(
        "demokit: {}: warning: at byte 3209: 1 message",
        odd_path.display()
    );
    assert!(stderr(&out).starts_with(&expected), "{}", stderr(&out));
    let out = run("info", &odd_path, &["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json_lines(&out)[0]["non_canonical_messages"], 1);
    let target = tmp.path("out.teehistorian");
    let out = demokit(&[
        OsStr::new("rewrite"),
        odd_path.as_os_str(),
        target.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&target).unwrap(), odd);
}

/// Checks that stderr carries no progress bar: no escape codes, carriage returns or bar.
fn assert_no_progress_bar(out: &Output) {
    let err = stderr(out);
    assert!(!err.contains('\x1b'), "escape code: {err:?}");
    assert!(!err.contains('\r'), "carriage return: {err:?}");
    assert!(
        !err.contains("=>") && !err.contains(" left"),
        "bar: {err:?}"
    );
}

/// `info --json DIR` and `validate --json DIR` over a directory tree of real demos and
/// teehistorian files, a cut-off file, a broken header and files of unknown format: one
/// JSON object per file in sorted path order, the broken files named, exit 1, no progress
/// bar into a pipe, the same output every run.
#[test]
fn info_and_validate_over_a_directory() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let real = shared.join("real-fixtures");
    let read = |file: &str| std::fs::read(real.join(file)).unwrap();
    let tmp = TempDir::new("dir");
    let dir = tmp.path("archive");
    let th201 = read("teehistorian/v2_ddnet201_dm1.teehistorian");
    let demo = read("twdemo/v3_tw061_server_dm1.demo");
    let good = [
        tmp.write(
            "archive/b/v1.teehistorian",
            &read("teehistorian/v1_ddnet1101_dm1.teehistorian"),
        ),
        tmp.write("archive/b/v2.teehistorian", &th201),
        tmp.write("archive/a/deep/er/tinycave.demo", &demo),
        tmp.write(
            "archive/server.demo",
            &read("twdemo/v5_ddnet1261_server_dm1.demo"),
        ),
        tmp.write(
            "archive/no_extension",
            &std::fs::read(reference(&shared)).unwrap(),
        ),
    ];
    let cut_th = tmp.write("archive/b/cut.teehistorian", &th201[..th201.len() / 2]);
    let cut_demo = tmp.write("archive/a/cut.demo", &demo[..demo.len() - 50]);
    let mut garbage_header = th201[..16].to_vec();
    garbage_header.extend_from_slice(b"{not json\0\x40");
    let bad_header = tmp.write("archive/garbage.teehistorian", &garbage_header);
    let skipped = [tmp.write(
        "archive/garbage.bin",
        b"\x13\x37 random garbage bytes \xff\xfe",
    )];
    // Named like recordings, and none: failed, not passed over.
    let not_recordings = [
        tmp.write(
            "archive/a/kog.teehistorian",
            &read("negative/kog_dummy_invalid.teehistorian"),
        ),
        tmp.write("archive/empty.demo", b""),
    ];
    let broken = [cut_th, cut_demo, bad_header];
    let mut all: Vec<&PathBuf> = good
        .iter()
        .chain(&broken)
        .chain(&skipped)
        .chain(&not_recordings)
        .collect();
    all.sort();

    for command in ["info", "validate"] {
        let out = run(command, &dir, &["--json"]);
        assert_eq!(out.status.code(), Some(1), "{command}: {}", stderr(&out));
        assert_no_progress_bar(&out);
        let lines = json_lines(&out);
        let files: Vec<PathBuf> = lines
            .iter()
            .map(|l| PathBuf::from(l["file"].as_str().expect("a file field")))
            .collect();
        assert_eq!(files.iter().collect::<Vec<_>>(), all, "{command}: sorted");
        let err = stderr(&out);
        for line in &lines {
            let file = PathBuf::from(line["file"].as_str().unwrap());
            let name = file.display().to_string();
            // The closing note lists each file not read whole: partial (`info` shows
            // what comes before the break) or failed.
            let named_failed = err
                .lines()
                .any(|l| l == format!("  failed: {name}") || l == format!("  partial: {name}"));
            if skipped.contains(&file) {
                assert!(line["skipped"].is_string(), "{command}: {line}");
                // Listed in the JSON only; stderr just counts them.
                assert!(!err.contains(&format!("{name}:")), "{command}: {err}");
                assert!(
                    err.contains(&format!("{} skipped", skipped.len())),
                    "{command}: {err}"
                );
                assert!(!named_failed, "{command}: {name}");
            } else if not_recordings.contains(&file) {
                assert!(named_failed, "{command}: {name} named as failed: {err}");
                assert!(
                    err.contains(&format!("demokit: {name}: ")),
                    "{command}: {err}"
                );
                assert!(line["error"]["message"].is_string(), "{command}: {line}");
            } else if broken.contains(&file) {
                assert!(named_failed, "{command}: {name} named as failed: {err}");
                let line_err = format!("demokit: {name}: at byte ");
                assert!(err.contains(&line_err), "{command}: {err}");
                match command {
                    "info" => assert!(line["error"]["offset"].is_u64(), "{line}"),
                    _ => assert_eq!(line["accepted"], false, "{line}"),
                }
            } else {
                assert!(!named_failed, "{command}: {name}");
                assert!(!err.contains(&format!("{name}:")), "{command}: {err}");
                match command {
                    "info" => assert!(line.get("error").is_none(), "{line}"),
                    _ => assert_eq!(line["accepted"], true, "{line}"),
                }
            }
        }
        // The header that is not JSON has only an error, and the cut demo its summary too.
        if command == "info" {
            let by_file = |p: &Path| {
                lines
                    .iter()
                    .find(|l| l["file"] == p.display().to_string().as_str())
                    .unwrap()
            };
            let header = by_file(&broken[2]);
            assert_eq!(header["error"]["offset"], 16, "{header}");
            assert!(header.get("counts").is_none(), "{header}");
            assert_eq!(by_file(&broken[1])["format"], "twdemo");
            assert_eq!(by_file(&good[4])["map_name"], "Kobra 3 Solo");
        }
        // `info` shows what comes before a cut (partial); `validate` rejects the file.
        let counts = match command {
            "info" => "5 ok, 2 partial, 3 failed, 1 skipped",
            _ => "5 ok, 0 partial, 5 failed, 1 skipped",
        };
        assert!(
            err.contains(&format!("demokit: 11 files: {counts}\n")),
            "{command}: {err}"
        );

        // Deterministic: a second run prints the same bytes.
        let again = run(command, &dir, &["--json"]);
        assert_eq!(again.stdout, out.stdout, "{command}");
        assert_eq!(again.stderr, out.stderr, "{command}");
    }
}

/// Several files named on the command line come out sorted, each with its "file"; a file
/// named explicitly is read whatever its magic (so an unknown one fails rather than being
/// skipped). All good files: exit 0.
#[test]
fn several_files_are_reported_in_sorted_order() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut files: Vec<PathBuf> = teehistorian_facts(&shared)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    files.push(shared.join("real-fixtures/twdemo/v3_tw061_server_dm1.demo"));
    files.reverse();
    let mut args = vec![OsStr::new("info"), OsStr::new("--json")];
    args.extend(files.iter().map(|p| p.as_os_str()));
    let out = demokit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "demokit: {n} files: {n} ok, 0 partial, 0 failed, 0 skipped\n",
            n = files.len()
        )
    );
    assert_no_progress_bar(&out);
    let got: Vec<PathBuf> = json_lines(&out)
        .iter()
        .map(|l| PathBuf::from(l["file"].as_str().unwrap()))
        .collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(got, sorted);

    // Text mode: one block per file, each starting with its file row.
    args.remove(1);
    let out = demokit(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let file_rows: Vec<&str> = text.lines().filter(|l| l.starts_with("file ")).collect();
    assert_eq!(file_rows.len(), files.len(), "{text}");

    // An explicitly named file of unknown format fails the batch.
    let negative = shared.join("real-fixtures/negative/kog_dummy_invalid.teehistorian");
    let mut args = vec![OsStr::new("validate")];
    args.extend(files.iter().map(|p| p.as_os_str()));
    args.push(negative.as_os_str());
    let out = demokit(&args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&format!(
        "{}: at byte 0: unknown format",
        negative.display()
    )));
    assert!(
        err.contains("5 files: 4 ok, 0 partial, 1 failed, 0 skipped"),
        "{err}"
    );
    assert_eq!(
        stdout(&out).lines().filter(|l| l.ends_with(": ok")).count(),
        4
    );
    assert_no_progress_bar(&out);
}

/// A missing path among several is an I/O failure (exit 3), named like any other.
#[test]
fn missing_file_among_several_is_an_io_error() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let tmp = TempDir::new("missing");
    let missing = tmp.path("does_not_exist.teehistorian");
    let good = reference(&shared);
    let out = demokit(&[
        OsStr::new("info"),
        OsStr::new("--json"),
        good.as_os_str(),
        missing.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2);
    let error = lines
        .iter()
        .find(|l| l["file"] == missing.display().to_string().as_str())
        .unwrap();
    assert!(error["error"]["offset"].is_null(), "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("cannot read")
    );
    assert!(stderr(&out).contains(&format!("  failed: {}", missing.display())));
}
