//! The editing commands over several files and directories: `--output-dir DIR FILE|DIR...`
//! of `rewrite`, `repair`, `scrub`, `convert`, `trim` and `extract-map`.
//!
//! What must hold: each recording named or found writes DIR/<its name> or DIR/<its path
//! under the directory named> (extract-map: `.map`), byte for byte what the one-file form
//! writes; everything refused is refused before anything is written (two inputs onto one
//! output, an output that is an input, DIR inside an input directory, an existing output
//! without --force, a positional OUTPUT or --in-place beside --output-dir); one failing
//! input does not stop the others and sets the exit status; `scrub --mapping` gathers one
//! mapping per input, and a key gives one name one pseudonym in every file.
//!
//! The real recordings are read where they are: a test that wants them in a tree of its
//! own links them there.

use crate::common;

use crate::run::{demokit, json_lines, stderr, stdout};
use common::temp::TempDir;
use serde_json::Value;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The real recording `name` (a path under real-fixtures), from the test corpus.
fn real(name: &str) -> Option<PathBuf> {
    Some(common::shared_dir()?.join("real-fixtures").join(name))
}

/// Links `target` as `name` in `dir` (subdirectories made), so that a test has a tree of
/// real recordings without copying them.
#[cfg(unix)]
fn link(dir: &TempDir, name: &str, target: &Path) -> PathBuf {
    let path = dir.path(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, &path).unwrap();
    path
}

/// Runs `demokit` with `args`, each a string or a path.
fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let args: Vec<OsString> = args.iter().map(|a| a.as_ref().to_os_string()).collect();
    demokit(&args)
}

/// Every file under `dir`, as paths relative to it, sorted.
fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    fn walk(root: &Path, dir: &Path, into: &mut BTreeSet<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, into);
            } else {
                into.insert(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut files = BTreeSet::new();
    if dir.exists() {
        walk(dir, dir, &mut files);
    }
    files
}

/// The `==> FILE <==` lines of a run's stdout.
fn headers(out: &Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter_map(|l| {
            l.strip_prefix("==> ")?
                .strip_suffix(" <==")
                .map(String::from)
        })
        .collect()
}

/// `rewrite --output-dir` over a directory of every real recording (in subdirectories, with
/// a file that is no recording beside them) writes each one byte for byte at its path
/// under the directory, and nothing else; each report follows its `==> FILE <==` line.
#[cfg(unix)]
#[test]
fn rewrite_mirrors_a_directory_byte_for_byte() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = TempDir::new("edit-many-rewrite");
    let mut expected = BTreeSet::new();
    for format in ["twdemo", "teehistorian", "source"] {
        for (path, _) in common::facts_files(&shared, format) {
            let relative = Path::new("in/games")
                .join(format)
                .join(path.file_name().unwrap());
            link(&dir, relative.to_str().unwrap(), &path);
            expected.insert(relative.strip_prefix("in").unwrap().to_path_buf());
        }
    }
    // Passed over as a search passes over it: no output, counted as skipped.
    link(
        &dir,
        "in/README.md",
        &shared.join("real-fixtures/README.md"),
    );
    let (input, output) = (dir.path("in"), dir.path("out"));
    let out = run(&[&"rewrite", &"--output-dir", &output, &input]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(files_under(&output), expected);
    for relative in &expected {
        let (read, written) = (input.join(relative), output.join(relative));
        assert!(
            std::fs::read(&read).unwrap() == std::fs::read(&written).unwrap(),
            "{} differs from its input",
            relative.display()
        );
    }
    // One header per recording, in sorted path order, as `dump` heads its files.
    let shown: Vec<String> = expected
        .iter()
        .map(|r| input.join(r).display().to_string())
        .collect();
    assert_eq!(headers(&out), shown);
    assert!(stderr(&out).contains("1 skipped"), "{}", stderr(&out));
}

/// `scrub --all --key-file --mapping --output-dir` over two demos and a teehistorian file
/// from different servers: the players they share get one pseudonym in all three (the one
/// the one-file form gives with that key), the mapping holds one object per input under
/// its name, and every JSON report names its file.
#[cfg(unix)]
#[test]
fn scrub_with_a_key_gives_one_pseudonym_across_files() {
    let (Some(v6), Some(v5), Some(th)) = (
        real("twdemo/v6_ddnet201_server_dm1.demo"),
        real("twdemo/v5_ddnet1261_server_dm1.demo"),
        real("teehistorian/v2_ddnet201_dm1.teehistorian"),
    ) else {
        return;
    };
    let dir = TempDir::new("edit-many-scrub");
    let key = dir.write("key", b"one key for the archive\n");
    let more = dir.path("more");
    let (b, c) = (
        link(&dir, "more/b.demo", &v5),
        link(&dir, "more/c.teehistorian", &th),
    );
    let (shared, mapping) = (dir.path("shared"), dir.path("mapping.json"));
    let out = run(&[
        &"scrub",
        &"--all",
        &"--key-file",
        &key,
        &"--mapping",
        &mapping,
        &"--json",
        &"--output-dir",
        &shared,
        &v6,
        &more,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let names: BTreeSet<PathBuf> = ["b.demo", "c.teehistorian", "v6_ddnet201_server_dm1.demo"]
        .iter()
        .map(PathBuf::from)
        .collect();
    assert_eq!(files_under(&shared), names);
    let reports = json_lines(&out);
    let files: Vec<&str> = reports
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    // The files have their turns in the order of their paths (where the repository and
    // the temporary directory are decides which comes first).
    let mut inputs = [
        b.to_str().unwrap(),
        c.to_str().unwrap(),
        v6.to_str().unwrap(),
    ];
    inputs.sort_by_key(|p| Path::new(p).to_path_buf());
    assert_eq!(files, inputs);

    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&mapping).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the mapping undoes the scrub");
    }
    let mappings: Value = serde_json::from_slice(&std::fs::read(&mapping).unwrap()).unwrap();
    let keys: Vec<&String> = mappings.as_object().unwrap().keys().collect();
    assert_eq!(keys, inputs, "{mappings}");
    // The names the three files share, each with one pseudonym everywhere.
    let names_of = |input: &str| mappings[input]["names"].as_object().unwrap().clone();
    let (in_b, in_c, in_v6) = (
        names_of(b.to_str().unwrap()),
        names_of(c.to_str().unwrap()),
        names_of(v6.to_str().unwrap()),
    );
    let shared_names: Vec<&String> = in_v6
        .keys()
        .filter(|n| in_b.contains_key(*n) && in_c.contains_key(*n))
        .collect();
    assert!(!shared_names.is_empty(), "{mappings}");
    for name in shared_names {
        let pseudonym = in_v6[name].as_str().unwrap();
        assert_eq!(in_b[name], pseudonym, "{name}");
        assert_eq!(in_c[name], pseudonym, "{name}");
        // Keyed (`player-<8 hex>`), not numbered per file.
        let hex = pseudonym.strip_prefix("player-").unwrap_or_default();
        assert!(
            hex.len() == 8 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
            "{pseudonym}"
        );
    }

    // The one-file form with the key writes the same demo and the same mapping.
    let (one, one_mapping) = (dir.path("one.demo"), dir.path("one.json"));
    let out = run(&[
        &"scrub",
        &v6,
        &one,
        &"--all",
        &"--key-file",
        &key,
        &"--mapping",
        &one_mapping,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = shared.join(v6.file_name().unwrap());
    assert!(std::fs::read(&one).unwrap() == std::fs::read(&written).unwrap());
    let one_mapping: Value = serde_json::from_slice(&std::fs::read(&one_mapping).unwrap()).unwrap();
    assert_eq!(one_mapping, mappings[v6.to_str().unwrap()]);
}

/// Two inputs that would write one output are a usage error naming both, and nothing is
/// written (the output directory is not even made).
#[cfg(unix)]
#[test]
fn two_inputs_onto_one_output_write_nothing() {
    let (Some(v3), Some(v4)) = (
        real("twdemo/v3_tw061_server_dm1.demo"),
        real("twdemo/v4_tw065_server_dm1.demo"),
    ) else {
        return;
    };
    let dir = TempDir::new("edit-many-collision");
    let (a, b) = (link(&dir, "a/x.demo", &v3), link(&dir, "b/x.demo", &v4));
    let good = link(&dir, "good.demo", &v3);
    let output = dir.path("out");
    let out = run(&[&"rewrite", &"--output-dir", &output, &good, &a, &b]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    for path in [&a, &b, &output.join("x.demo")] {
        assert!(err.contains(path.to_str().unwrap()), "{err}");
    }
    assert!(!output.exists(), "nothing is written, not even good.demo");

    // One file under two spellings (named, named again, and found) is one input.
    let again = dir.path("a/./x.demo");
    let out = run(&[
        &"rewrite",
        &"--output-dir",
        &output,
        &a,
        &again,
        &dir.path("a"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        files_under(&output),
        BTreeSet::from([PathBuf::from("x.demo")])
    );
    assert_eq!(headers(&out).len(), 1, "{}", stdout(&out));
}

/// An existing output is refused (exit 2) without --force, before any file is written, and
/// replaced with it; no temporary file is left either way.
#[cfg(unix)]
#[test]
fn an_existing_output_needs_force() {
    let (Some(v3), Some(v4)) = (
        real("twdemo/v3_tw061_server_dm1.demo"),
        real("twdemo/v4_tw065_server_dm1.demo"),
    ) else {
        return;
    };
    let dir = TempDir::new("edit-many-force");
    let output = dir.path("out");
    let old = dir.write("out/v4_tw065_server_dm1.demo", b"old");
    let out = run(&[&"rewrite", &"--output-dir", &output, &v3, &v4]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&old).unwrap(), b"old");
    assert_eq!(
        files_under(&output),
        BTreeSet::from([PathBuf::from("v4_tw065_server_dm1.demo")]),
        "v3's output is not written either"
    );

    let out = run(&[&"rewrite", &"--force", &"--output-dir", &output, &v3, &v4]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read(&old).unwrap() == std::fs::read(&v4).unwrap());
    assert!(
        std::fs::read(output.join("v3_tw061_server_dm1.demo")).unwrap()
            == std::fs::read(&v3).unwrap()
    );
    assert_eq!(files_under(&output).len(), 2, "{:?}", files_under(&output));
}

/// One input that fails (cut short, of a format convert does not take) among good ones:
/// the good ones are written, the others named with the library's message, and the exit
/// status is 1; a file that is no recording is passed over.
#[cfg(unix)]
#[test]
fn a_failing_input_does_not_stop_the_others() {
    let (Some(v3), Some(th)) = (
        real("twdemo/v3_tw061_server_dm1.demo"),
        real("teehistorian/v2_ddnet201_dm1.teehistorian"),
    ) else {
        return;
    };
    let dir = TempDir::new("edit-many-failing");
    let good = link(&dir, "in/good.demo", &v3);
    link(&dir, "in/sub/later.demo", &v3);
    link(&dir, "in/th.teehistorian", &th);
    let data = std::fs::read(&v3).unwrap();
    dir.write("in/cut.demo", &data[..data.len() / 20]);
    dir.write("in/notes.txt", b"not a recording\n");
    let (input, output) = (dir.path("in"), dir.path("out"));
    let out = run(&[
        &"convert",
        &"--version",
        &"5",
        &"--json",
        &"--output-dir",
        &output,
        &input,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        files_under(&output),
        BTreeSet::from([PathBuf::from("good.demo"), PathBuf::from("sub/later.demo")])
    );
    let err = stderr(&out);
    assert!(
        err.contains("convert needs a Teeworlds/DDNet demo"),
        "{err}"
    );
    assert!(err.contains("2 failed"), "{err}");
    assert!(err.contains("1 skipped"), "{err}");
    // The reports of the files written (and the skipped file's line), each naming its file.
    let lines = json_lines(&out);
    let named: Vec<&str> = lines.iter().map(|l| l["file"].as_str().unwrap()).collect();
    assert_eq!(
        named,
        [
            good.to_str().unwrap(),
            input.join("notes.txt").to_str().unwrap(),
            input.join("sub/later.demo").to_str().unwrap(),
        ]
    );
    assert_eq!(lines[0]["to_version"], 5);
    // What the one-file form writes.
    let one = dir.path("one.demo");
    let out = run(&[&"convert", &good, &one, &"--version", &"5"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read(&one).unwrap() == std::fs::read(output.join("good.demo")).unwrap());
}

/// `extract-map --output-dir` writes each demo's map as `<name>.map`, at its path under a
/// directory named; one file named on its own is reported as the one-file form reports it.
#[cfg(unix)]
#[test]
fn extract_map_writes_map_names() {
    let (Some(v6), Some(v5)) = (
        real("twdemo/v6_ddnet201_server_dm1.demo"),
        real("twdemo/v5_ddnet1261_server_dm1.demo"),
    ) else {
        return;
    };
    let dir = TempDir::new("edit-many-maps");
    link(&dir, "in/server/dm1.v5.demo", &v5);
    let (input, output) = (dir.path("in"), dir.path("maps"));
    let out = run(&[&"extract-map", &"--output-dir", &output, &input, &v6]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        files_under(&output),
        BTreeSet::from([
            PathBuf::from("server/dm1.v5.map"),
            PathBuf::from("v6_ddnet201_server_dm1.map"),
        ])
    );
    let one = dir.path("one.map");
    let out = run(&[&"extract-map", &v6, &one]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        std::fs::read(&one).unwrap()
            == std::fs::read(output.join("v6_ddnet201_server_dm1.map")).unwrap()
    );

    // One file named: no header, and the JSON report as the one-file form prints it.
    let alone = dir.path("alone");
    let out = run(&[&"extract-map", &"--json", &"--output-dir", &alone, &v6]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["name"], "dm1");
    assert_eq!(lines[0].get("file"), None, "{}", lines[0]);
    assert!(alone.join("v6_ddnet201_server_dm1.map").is_file());
}

/// An output directory inside a directory named as input (or that directory itself) is
/// refused: the next run over it would find the outputs. Nothing is made.
#[cfg(unix)]
#[test]
fn an_output_dir_inside_an_input_dir_is_refused() {
    let Some(v3) = real("twdemo/v3_tw061_server_dm1.demo") else {
        return;
    };
    let dir = TempDir::new("edit-many-inside");
    link(&dir, "in/a.demo", &v3);
    let input = dir.path("in");
    // Also spelled through a directory that does not exist (made on the way, then left).
    let spellings = [
        input.join("out"),
        dir.path("missing/../in/out"),
        input.clone(),
    ];
    for output in spellings {
        let out = run(&[&"repair", &"--output-dir", &output, &input]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("inside the input directory"),
            "{}",
            stderr(&out)
        );
        assert_eq!(dir.names(), ["in"]);
        assert_eq!(
            files_under(&input),
            BTreeSet::from([PathBuf::from("a.demo")])
        );
    }
}

/// An output that is an input is refused, --force or not: the input itself (written under
/// its own name into its own directory), and another input of the run.
#[cfg(unix)]
#[test]
fn an_output_that_is_an_input_is_refused() {
    let Some(v3) = real("twdemo/v3_tw061_server_dm1.demo") else {
        return;
    };
    let dir = TempDir::new("edit-many-input");
    let data = std::fs::read(&v3).unwrap();
    let file = dir.write("a.demo", &data);
    let out = run(&[&"rewrite", &"--force", &"--output-dir", &dir.0, &file]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("same file as the input"),
        "{}",
        stderr(&out)
    );
    // An input directory under the output directory: in/in/b.demo would be written over
    // in/b.demo, which is read too.
    dir.write("out/in/b.demo", &data);
    dir.write("out/in/in/b.demo", &data);
    let output = dir.path("out");
    let out = run(&[
        &"rewrite",
        &"--force",
        &"--output-dir",
        &output,
        &output.join("in"),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("is the input"), "{}", stderr(&out));
    assert_eq!(dir.names(), ["a.demo", "out"]);
    assert_eq!(
        files_under(&output),
        BTreeSet::from([PathBuf::from("in/b.demo"), PathBuf::from("in/in/b.demo")])
    );
}

/// `--output-dir` beside a positional INPUT or OUTPUT, or beside --in-place, is a usage
/// error, and so is standard input among its inputs; nothing is written.
#[cfg(unix)]
#[test]
fn output_dir_with_an_output_is_a_usage_error() {
    let Some(v3) = real("twdemo/v3_tw061_server_dm1.demo") else {
        return;
    };
    let dir = TempDir::new("edit-many-usage");
    let input = link(&dir, "a.demo", &v3);
    let (file, output) = (dir.path("b.demo"), dir.path("out"));
    let cases: [&[&dyn AsRef<std::ffi::OsStr>]; 5] = [
        &[&"rewrite", &input, &file, &"--output-dir", &output, &input],
        &[
            &"trim",
            &"--from",
            &"5s",
            &input,
            &"--output-dir",
            &output,
            &input,
        ],
        &[
            &"scrub",
            &"--all",
            &"--in-place",
            &"--output-dir",
            &output,
            &input,
        ],
        &[
            &"convert",
            &"--version",
            &"5",
            &"--output-dir",
            &output,
            &"-",
        ],
        // DIR without an input after it.
        &[&"extract-map", &input, &"--output-dir", &output],
    ];
    for args in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_eq!(dir.names(), ["a.demo"], "{}", stderr(&out));
    }
    let out = run(&[&"rewrite", &input, &file, &"--output-dir", &output, &input]);
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
}
