//! The command line reads well: text without Rust debug output or float artefacts (JSON
//! with the numbers as the files hold them), `-` for standard input and output, messages
//! that name all three formats, a closing note whose counts add up, `trim` ranges in
//! ticks, seconds and timeline markers, `validate` pointing cut files to `repair`, and file
//! names that stay apart in JSON when they are not UTF-8.

use crate::common;

use common::temp::TempDir;
use serde_json::Value;
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `demokit` with `args`, `stdin` piped in.
fn demokit_with_input(args: &[&OsStr], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_demokit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("demokit runs");
    let mut pipe = child.stdin.take().unwrap();
    // demokit may stop reading early (a refused command): a broken pipe is fine.
    let _ = pipe.write_all(stdin);
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// Runs `demokit` with `args` and nothing on stdin.
fn demokit(args: &[&OsStr]) -> Output {
    demokit_with_input(args, b"")
}

/// `args` as `OsStr`s.
fn os<'a>(args: &[&'a str]) -> Vec<&'a OsStr> {
    args.iter().map(|a| OsStr::new(*a)).collect()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The lines of `text` as JSON values.
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A real recording under `real-fixtures/`.
fn real(shared: &Path, name: &str) -> PathBuf {
    shared.join("real-fixtures").join(name)
}

/// Asserts that `text` holds no Rust debug output: no `Some(`/`None`, no struct braces, no
/// escaped quotes, and none of the library enums' variant names.
fn assert_no_debug(text: &str) {
    for bad in [
        "Some(",
        "None",
        " { ",
        "\\\"",
        "Tight",
        "TrailingByte",
        "Detected",
        "Fallback",
        "Given",
        "Kept",
        "Added",
        "Dropped",
        "Absent",
        "Classic",
        "StringTables8",
        "CustomData8StringTables9",
        "GameDir",
        "HeaderTime",
        "Guessed",
    ] {
        assert!(!text.contains(bad), "{bad:?} in:\n{text}");
    }
}

/// `info`, `trim`, `convert` and `repair` print words and rounded seconds; JSON keeps the
/// `f32` a Source header holds.
#[test]
fn human_output_has_no_debug_formatting_or_float_artefacts() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let tf2 = real(&shared, "source/tf2_cp_gullywash_small.dem");
    let out = demokit(&[OsStr::new("info"), tf2.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_no_debug(&text);
    assert!(text.contains("playback time     1.725 s\n"), "{text}");
    assert!(!text.contains("1.7249999"), "{text}");
    assert!(
        text.contains("1 view split, no slot byte, commands 8 = stringtables (from the header)"),
        "{text}"
    );
    // JSON: the header's f32 as its shortest decimal, which reads back as the same f32.
    let out = demokit(&[OsStr::new("info"), tf2.as_os_str(), OsStr::new("--json")]);
    let json = stdout(&out);
    assert!(json.contains("\"playback_time\":1.7249999,"), "{json}");
    let data = std::fs::read(&tf2).unwrap();
    let held = f32::from_le_bytes(data[1056..1060].try_into().unwrap());
    let info = &json_lines(&json)[0];
    assert_eq!(
        (info["playback_time"].as_f64().unwrap() as f32).to_bits(),
        held.to_bits()
    );

    // Source repair of a header the recorder never finalized.
    let tmp = TempDir::new("reads-well-text");
    let mut zeroed = data.clone();
    zeroed[1056..1072].fill(0);
    let zeroed_path = tmp.write("zeroed.dem", &zeroed);
    let out = demokit(&os(&[
        "repair",
        zeroed_path.to_str().unwrap(),
        tmp.path("repaired.dem").to_str().unwrap(),
    ]));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_no_debug(&text);
    assert!(text.contains("playback_time     0 -> 1.725\n"), "{text}");
    assert!(
        text.contains("tick interval     0.015 s, 66.67 ticks/s (the game's)\n"),
        "{text}"
    );

    // trim and convert of a demo.
    let demo = real(&shared, "twdemo/v6_ddnet201_server_dm1.demo");
    let demo = demo.to_str().unwrap();
    let trimmed = tmp.path("trimmed.demo");
    let out = demokit(&os(&[
        "trim",
        demo,
        trimmed.to_str().unwrap(),
        "--from",
        "100",
        "--to",
        "300",
    ]));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_no_debug(&text);
    let rule = text
        .lines()
        .find_map(|l| l.strip_prefix("huffman rule      "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        rule.starts_with("tight (as the chunk at byte ") || rule.starts_with("trailing byte ("),
        "{rule}"
    );
    let converted = tmp.path("v3.demo");
    let out = demokit(&os(&[
        "convert",
        demo,
        converted.to_str().unwrap(),
        "--version",
        "3",
    ]));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_no_debug(&text);
    assert!(text.contains("markers           dropped\n"), "{text}");
    assert!(text.contains("map sha256        dropped\n"), "{text}");
}

/// `-` reads standard input and writes standard output; the report of a command whose
/// output goes to stdout moves to stderr; files named as OUTPUT keep their safety rules.
#[test]
fn dash_is_standard_input_and_output() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = real(&shared, "twdemo/v6_ddnet201_server_dm1.demo");
    let data = std::fs::read(&path).unwrap();
    let th = std::fs::read(real(&shared, "teehistorian/v2_ddnet201_dm1.teehistorian")).unwrap();

    // Reading: the same text and JSON as from the file, the file named "-" in JSON.
    let from_file = demokit(&[OsStr::new("info"), path.as_os_str()]);
    let from_stdin = demokit_with_input(&os(&["info", "-"]), &data);
    assert!(from_stdin.status.success(), "{}", stderr(&from_stdin));
    assert_eq!(from_stdin.stdout, from_file.stdout);
    for (bytes, format) in [(&data, "twdemo"), (&th, "teehistorian")] {
        let out = demokit_with_input(&os(&["info", "--json", "-"]), bytes);
        let info = &json_lines(&stdout(&out))[0];
        assert_eq!(info["file"], "-");
        assert_eq!(info["format"], format);
        let out = demokit_with_input(&os(&["validate", "--json", "-"]), bytes);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(json_lines(&stdout(&out))[0]["accepted"], true);
        let out = demokit_with_input(&os(&["dump", "--json", "-"]), bytes);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(json_lines(&stdout(&out)).len() > 100);
    }
    // An error names standard input.
    let out = demokit_with_input(&os(&["info", "-"]), b"not a recording");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("demokit: <stdin>: at byte 0: unknown format"),
        "{}",
        stderr(&out)
    );

    // Writing: the bytes on stdout, the statistics on stderr.
    let out = demokit_with_input(&os(&["rewrite", "-", "-"]), &data);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, data, "rewrite - - is byte-identical");
    assert!(
        stderr(&out).starts_with("demokit: <stdin> -> <stdout>: "),
        "{}",
        stderr(&out)
    );
    // A report that goes with the output moves to stderr, as JSON with --json.
    let out = demokit(&[
        OsStr::new("trim"),
        path.as_os_str(),
        OsStr::new("-"),
        OsStr::new("--from"),
        OsStr::new("100"),
        OsStr::new("--json"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = &json_lines(&stderr(&out))[0];
    assert_eq!(report["first_tick"], 100);
    let back = demokit_with_input(&os(&["info", "--json", "-"]), &out.stdout);
    let info = &json_lines(&stdout(&back))[0];
    assert_eq!(info["first_tick"], 100);
    assert_eq!(info["last_tick"], report["last_tick"]);
    // extract-map to stdout: the embedded map.
    let out = demokit(&[OsStr::new("extract-map"), path.as_os_str(), OsStr::new("-")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let slice = demokit::twdemo::DemoSlice::parse(&data).unwrap();
    assert_eq!(out.stdout, slice.map());
    assert!(stderr(&out).contains("crc32"), "{}", stderr(&out));

    // --in-place cannot replace standard input (exit 2, as a usage error).
    let out = demokit_with_input(&os(&["repair", "-", "--in-place"]), &data);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    // From stdin into a file: the file rules hold (an existing file needs --force).
    let tmp = TempDir::new("reads-well-dash");
    let existing = tmp.write("existing.demo", b"keep me");
    let out = demokit_with_input(
        &[OsStr::new("rewrite"), OsStr::new("-"), existing.as_os_str()],
        &data,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");
    let out = demokit_with_input(
        &[
            OsStr::new("rewrite"),
            OsStr::new("-"),
            existing.as_os_str(),
            OsStr::new("-f"),
        ],
        &data,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&existing).unwrap(), data);
    assert_eq!(tmp.names(), ["existing.demo"], "no temporary file left");
}

/// What is refused or skipped for its format names all three formats.
#[test]
fn messages_name_all_three_formats() {
    const THREE: &str = "not a Teeworlds demo, teehistorian file or Source demo";
    let tmp = TempDir::new("reads-well-formats");
    tmp.write("notes.txt", b"just some text");
    // Found in a directory, it is skipped quietly: counted in the closing note, and listed
    // with the reason in JSON.
    let out = demokit(&[OsStr::new("info"), tmp.0.as_os_str()]);
    assert!(
        stderr(&out).contains("1 file: 0 ok, 0 partial, 0 failed, 1 skipped"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("notes.txt"), "{}", stderr(&out));
    let out = demokit(&[
        OsStr::new("validate"),
        OsStr::new("--json"),
        tmp.0.as_os_str(),
    ]);
    let line = &json_lines(&stdout(&out))[0];
    assert!(line["skipped"].as_str().unwrap().contains(THREE), "{line}");
    // A file named on the command line is read, and its refusal says what each format
    // starts with.
    let out = demokit(&[OsStr::new("info"), tmp.path("notes.txt").as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    for magic in [
        "a Teeworlds/DDNet demo starts with",
        "a DDNet teehistorian file with",
        "a Source demo with",
    ] {
        assert!(err.contains(magic), "{err}");
    }
    let help = stdout(&demokit(&os(&["--help"])));
    assert!(
        help.contains("Teeworlds/DDNet demos")
            && help.contains("teehistorian")
            && help.contains("Source"),
        "{help}"
    );
}

/// The closing note of a batch counts every path the progress bar counts, and its ok,
/// skipped and failed add up to them, agreeing with the JSON lines.
#[test]
fn batch_counts_agree() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let tmp = TempDir::new("reads-well-counts");
    let demo = std::fs::read(real(&shared, "twdemo/v3_tw061_server_dm1.demo")).unwrap();
    let th = std::fs::read(real(&shared, "teehistorian/v1_ddnet1101_dm1.teehistorian")).unwrap();
    tmp.write("a.demo", &demo);
    tmp.write("b.teehistorian", &th);
    tmp.write("c.demo", &demo[..demo.len() - 40]);
    tmp.write("d.txt", b"text");
    tmp.write("e.bin", &[0xff; 40]);
    for command in ["info", "validate"] {
        let out = demokit(&[OsStr::new(command), OsStr::new("--json"), tmp.0.as_os_str()]);
        assert_eq!(out.status.code(), Some(1), "{command}: {}", stderr(&out));
        let lines = json_lines(&stdout(&out));
        let err = stderr(&out);
        // `info` shows what comes before the cut (partial); `validate` rejects the file.
        let (counts, how) = match command {
            "info" => ("2 ok, 1 partial, 0 failed, 2 skipped", "partial"),
            _ => ("2 ok, 0 partial, 1 failed, 2 skipped", "failed"),
        };
        assert!(
            err.contains(&format!("demokit: 5 files: {counts}\n")),
            "{command}: {err}"
        );
        let listed: Vec<&str> = err
            .lines()
            .skip_while(|l| !l.starts_with("demokit: 5 files"))
            .skip(1)
            .collect();
        assert_eq!(listed.len(), 1, "{command}: {err}");
        assert!(
            listed[0].starts_with(&format!("  {how}: ")) && listed[0].ends_with("c.demo"),
            "{command}: {err}"
        );
        assert_eq!(lines.len(), 5, "{command}: one line per counted file");
        let skipped = lines.iter().filter(|l| l.get("skipped").is_some()).count();
        assert_eq!(skipped, 2, "{command}");
        let failed = lines
            .iter()
            .filter(|l| l.get("error").is_some() || l["accepted"] == false)
            .count();
        assert_eq!(failed, 1, "{command}");
    }
    // All good: the note counts them, and nothing else is said; with --quiet too.
    let good = TempDir::new("reads-well-counts-good");
    good.write("a.demo", &demo);
    good.write("b.teehistorian", &th);
    for quiet in [false, true] {
        let mut args = vec![OsStr::new("validate"), good.0.as_os_str()];
        if quiet {
            args.push(OsStr::new("--quiet"));
        }
        let out = demokit(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "demokit: 2 files: 2 ok, 0 partial, 0 failed, 0 skipped\n"
        );
    }
}

/// `trim` takes ticks, seconds and timeline markers; `--to` (or `--from`) may be left out;
/// an empty range, a marker the demo lacks and a bound that is none of the three are
/// usage errors (exit 2) that write nothing.
#[test]
fn trim_ranges_in_ticks_seconds_and_markers() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    // The DDNet 20.1 server demo (ticks 1 to 989), with two timeline markers set.
    let mut data = std::fs::read(real(&shared, "twdemo/v6_ddnet201_server_dm1.demo")).unwrap();
    data[176..180].copy_from_slice(&2i32.to_be_bytes());
    data[180..184].copy_from_slice(&301i32.to_be_bytes());
    data[184..188].copy_from_slice(&601i32.to_be_bytes());
    let tmp = TempDir::new("reads-well-trim");
    let input = tmp.write("in.demo", &data);
    let trim = |range: &[&str]| -> Output {
        let output = tmp.path("out.demo");
        let _ = std::fs::remove_file(&output);
        let mut args = vec![
            OsStr::new("trim"),
            input.as_os_str(),
            output.as_os_str(),
            OsStr::new("--json"),
        ];
        args.extend(range.iter().map(OsStr::new));
        demokit(&args)
    };
    let ticks = |range: &[&str]| -> (i64, i64) {
        let out = trim(range);
        assert!(out.status.success(), "{range:?}: {}", stderr(&out));
        let report = &json_lines(&stdout(&out))[0];
        (
            report["first_tick"].as_i64().unwrap(),
            report["last_tick"].as_i64().unwrap(),
        )
    };
    assert_eq!(ticks(&["--from", "101", "--to", "201"]), (101, 201));
    // Seconds from the first tick (1), 50 ticks a second.
    assert_eq!(ticks(&["--from", "2s", "--to", "4s"]), (101, 201));
    assert_eq!(ticks(&["--from", "2.5s", "--to", "3s"]), (126, 151));
    // Timeline markers.
    assert_eq!(ticks(&["--from", "m1", "--to", "m2"]), (301, 601));
    assert_eq!(ticks(&["--from", "m2", "--to", "640"]), (601, 640));
    // Open ends: to the last tick, from the first.
    assert_eq!(ticks(&["--from", "900"]), (900, 989));
    assert_eq!(ticks(&["--to", "1s"]), (1, 51));

    for range in [
        &["--from", "600", "--to", "500"][..],
        &["--from", "4s", "--to", "2s"],
        &["--from", "m2", "--to", "m1"],
        &["--from", "m3"],
        &["--from", "5x"],
        &["--to", "-1s"],
        // Ticks outside the demo's 1..=989: never silently the whole demo.
        &["--from", "0"],
        &["--to", "990"],
        &[],
    ] {
        let out = trim(range);
        assert_eq!(out.status.code(), Some(2), "{range:?}: {}", stderr(&out));
        assert!(!tmp.path("out.demo").exists(), "{range:?}");
    }
    let out = trim(&["--from", "600", "--to", "500"]);
    assert!(
        stderr(&out).contains("the range is empty"),
        "{}",
        stderr(&out)
    );
    let out = trim(&["--from", "0"]);
    assert!(
        stderr(&out).contains("tick 0 is outside the demo, whose ticks run from 1 to 989"),
        "{}",
        stderr(&out)
    );
}

/// `validate` on a file cut off mid-write names the cut and points to `repair`, for each
/// format; `repair` then gives a file that validates.
#[test]
fn validate_on_a_cut_file_points_to_repair() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let tmp = TempDir::new("reads-well-cut");
    let demo = std::fs::read(real(&shared, "twdemo/v6_ddnet201_server_dm1.demo")).unwrap();
    let source = std::fs::read(real(&shared, "source/tf2_cp_gullywash_small.dem")).unwrap();
    let th = std::fs::read(real(&shared, "teehistorian/v2_ddnet201_dm1.teehistorian")).unwrap();
    // The teehistorian file is cut one byte into a message of more than one byte.
    let th_path = real(&shared, "teehistorian/v2_ddnet201_dm1.teehistorian");
    let dump = demokit(&[
        OsStr::new("dump"),
        OsStr::new("--json"),
        th_path.as_os_str(),
    ]);
    let message = json_lines(&stdout(&dump))
        .into_iter()
        .filter(|m| m["size"].as_u64().unwrap() > 1)
        .nth(100)
        .unwrap();
    let th_cut = message["offset"].as_u64().unwrap() as usize + 1;
    for (name, bytes) in [
        ("cut.demo", &demo[..demo.len() * 2 / 3]),
        ("cut.dem", &source[..source.len() * 2 / 3]),
        ("cut.teehistorian", &th[..th_cut]),
    ] {
        let cut = tmp.write(name, bytes);
        let out = demokit(&[OsStr::new("validate"), cut.as_os_str()]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        let err = stderr(&out);
        let fatal = err
            .lines()
            .find(|l| l.contains("cut") && !l.contains("warning:"))
            .unwrap_or_else(|| panic!("{name}: {err}"));
        assert!(fatal.contains("`demokit repair`"), "{name}: {err}");
        let repaired = tmp.path(&format!("repaired-{name}"));
        let out = demokit(&[OsStr::new("repair"), cut.as_os_str(), repaired.as_os_str()]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let out = demokit(&[OsStr::new("validate"), repaired.as_os_str()]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
    }
}

/// Two files whose names differ only in bytes that are not UTF-8 print as two names, in
/// JSON (with the bytes in `file_hex`) and in text.
#[cfg(unix)]
#[test]
fn non_utf8_names_stay_distinct() {
    use std::os::unix::ffi::OsStrExt;
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/recorded_v6.demo"
    ))
    .unwrap();
    let tmp = TempDir::new("reads-well-names");
    let names: [&[u8]; 2] = [b"a\xff.demo", b"a\xfe.demo"];
    for name in names {
        std::fs::write(tmp.0.join(OsStr::from_bytes(name)), &data).unwrap();
    }
    for command in ["info", "validate"] {
        let out = demokit(&[OsStr::new(command), OsStr::new("--json"), tmp.0.as_os_str()]);
        let lines = json_lines(&stdout(&out));
        assert_eq!(lines.len(), 2, "{command}");
        let files: Vec<&str> = lines.iter().map(|l| l["file"].as_str().unwrap()).collect();
        assert_ne!(files[0], files[1], "{command}");
        assert!(files[0].ends_with("/a\\xfe.demo"), "{command}: {files:?}");
        assert!(files[1].ends_with("/a\\xff.demo"), "{command}: {files:?}");
        for (line, name) in lines.iter().zip([names[1], names[0]]) {
            let bytes = hex::decode(line["file_hex"].as_str().unwrap()).unwrap();
            assert_eq!(
                bytes,
                tmp.0.join(OsStr::from_bytes(name)).as_os_str().as_bytes()
            );
        }
    }
    // A UTF-8 name has no file_hex.
    let plain = tmp.write("plain.demo", &data);
    let out = demokit(&[OsStr::new("info"), OsStr::new("--json"), plain.as_os_str()]);
    let line = &json_lines(&stdout(&out))[0];
    assert_eq!(line["file"], plain.to_str().unwrap());
    assert!(line.get("file_hex").is_none(), "{line}");
    // In text: the batch's file rows differ too.
    let out = demokit(&[OsStr::new("validate"), tmp.0.as_os_str()]);
    let text = stdout(&out);
    assert!(
        text.contains("a\\xfe.demo: ") && text.contains("a\\xff.demo: "),
        "{text}"
    );
}
