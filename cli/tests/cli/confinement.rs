//! Outputs stay where they belong and inputs stay as they were, whatever the files say:
//! `report DIR` writes and removes only in its pages folder (its manifest is input like
//! any other) and never replaces a recording with its index; `export` exports a file
//! named twice once and completes a commit a killed run began; `info` on a named pipe
//! returns; `scrub --output-dir --mapping` leaves no output without its mapping; a
//! `--clear-header` setting the file lacks is refused.

use crate::common;

use crate::run::{demokit, stderr};
use common::temp::TempDir;
use std::ffi::OsStr;
use std::path::Path;

fn server_demo() -> Vec<u8> {
    common::read_shared("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo").unwrap()
}

fn teehistorian() -> Vec<u8> {
    common::read_shared("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian").unwrap()
}

fn run(args: &[&OsStr]) -> std::process::Output {
    demokit(args)
}

/// A manifest naming a page outside the pages folder (absolute, through `..`, through a
/// symbolic link planted in the folder) gets nothing outside removed.
#[test]
fn report_removes_nothing_outside_its_pages_folder() {
    let dir = TempDir::new("confined-manifest");
    let recordings = dir.path("recordings");
    std::fs::create_dir_all(&recordings).unwrap();
    std::fs::write(recordings.join("gone.demo"), server_demo()).unwrap();
    let index = dir.path("site/index.html");
    std::fs::create_dir_all(index.parent().unwrap()).unwrap();
    let args = [
        "report".as_ref(),
        recordings.as_os_str(),
        "-o".as_ref(),
        index.as_os_str(),
    ];
    let first = run(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    // Victims outside the pages folder, and a link inside it pointing at one.
    let absolute = dir.write("victim-absolute.txt", b"keep");
    let relative = dir.write("victim-relative.txt", b"keep");
    let linked = dir.write("victim-linked.txt", b"keep");
    let pages = dir.path("site/index.pages");
    std::os::unix::fs::symlink(dir.path("."), pages.join("out")).unwrap();
    let manifest_path = pages.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    let template = manifest["files"]["gone.demo"].clone();
    for (name, page) in [
        ("a.demo", absolute.display().to_string()),
        ("b.demo", "index.pages/../../victim-relative.txt".to_owned()),
        ("c.demo", "index.pages/out/victim-linked.txt".to_owned()),
        ("d.demo", "../victim-relative.txt".to_owned()),
    ] {
        let mut entry = template.clone();
        entry["row"]["page"] = page.into();
        manifest["files"][name] = entry;
    }
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    // The recordings named in the manifest are gone: their "pages" would be removed.
    let second = run(&args);
    assert!(second.status.success(), "{}", stderr(&second));
    for victim in [&absolute, &relative, &linked] {
        assert_eq!(
            std::fs::read(victim).unwrap(),
            b"keep",
            "{}",
            victim.display()
        );
    }
    // A page of a recording that is gone, in the folder, is removed as before.
    std::fs::remove_file(recordings.join("gone.demo")).unwrap();
    let third = run(&args);
    assert!(third.status.success(), "{}", stderr(&third));
    assert!(!pages.join("gone.demo.html").exists());
    // A symbolic link planted where a page goes is not written through.
    std::fs::write(recordings.join("new.demo"), server_demo()).unwrap();
    let target = dir.write("victim-page.txt", b"keep");
    std::os::unix::fs::symlink(&target, pages.join("new.demo.html")).unwrap();
    let fourth = run(&args);
    assert_eq!(fourth.status.code(), Some(1), "{}", stderr(&fourth));
    assert_eq!(std::fs::read(&target).unwrap(), b"keep");
}

/// `report DIR -o DIR/<recording> -f` is refused: the index would replace an input.
#[test]
fn report_never_replaces_a_recording_with_its_index() {
    let dir = TempDir::new("confined-report-input");
    let demo = server_demo();
    let input = dir.write("d2/ok.demo", &demo);
    let out = run(&[
        "report".as_ref(),
        dir.path("d2").as_os_str(),
        "-o".as_ref(),
        input.as_os_str(),
        "-f".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read(&input).unwrap(), demo);
}

/// The number of `files` rows in a dataset.
fn files_rows(dataset: &Path) -> usize {
    crate::export::visible_rows(&dataset.join("files"))
}

/// One file named twice, or by two spellings in two runs, is exported once.
#[test]
fn export_takes_one_file_once_under_any_spelling() {
    let dir = TempDir::new("confined-export-twice");
    let demo = dir.write("a.demo", &server_demo());
    let dotted = dir.path("./a.demo");
    let dataset = dir.path("ds");
    let out = run(&[
        "export".as_ref(),
        demo.as_os_str(),
        dotted.as_os_str(),
        "-o".as_ref(),
        dataset.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 named again under another path"),
        "{}",
        stderr(&out)
    );
    assert_eq!(files_rows(&dataset), 1);
    // A second run naming it another way finds it exported.
    let again = run(&[
        "export".as_ref(),
        dotted.as_os_str(),
        "-o".as_ref(),
        dataset.as_os_str(),
    ]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stderr(&again).contains("1 unchanged"), "{}", stderr(&again));
    assert_eq!(files_rows(&dataset), 1);
}

/// A run killed among the renames of its commit leaves the commit journal and some parts
/// under their temporary names; the next run completes that commit (every part in place,
/// no row lost) and exports nothing twice.
#[test]
fn a_commit_cut_short_is_completed_by_the_next_run() {
    let dir = TempDir::new("confined-export-commit");
    let inputs = dir.path("in");
    std::fs::create_dir_all(&inputs).unwrap();
    std::fs::write(inputs.join("a.demo"), server_demo()).unwrap();
    std::fs::write(inputs.join("b.teehistorian"), teehistorian()).unwrap();
    let dataset = dir.path("ds");
    let export = || {
        run(&[
            "export".as_ref(),
            inputs.as_os_str(),
            "-o".as_ref(),
            dataset.as_os_str(),
            "--partition-by".as_ref(),
            "none".as_ref(),
        ])
    };
    let out = export();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut parts: Vec<String> = Vec::new();
    for table in std::fs::read_dir(&dataset)
        .unwrap()
        .map(|e| e.unwrap().path())
    {
        if table.is_dir() {
            for part in std::fs::read_dir(&table)
                .unwrap()
                .map(|e| e.unwrap().path())
            {
                let relative = part.strip_prefix(&dataset).unwrap();
                parts.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    parts.sort();
    let rows_before = files_rows(&dataset);
    // The state a kill leaves after half the renames: the journal names every part, and
    // the second half (the `files` part among them) is still under temporary names.
    let journal = parts.join("\n") + "\n";
    std::fs::write(dataset.join(".demokit-commit"), journal).unwrap();
    for part in &parts[parts.len() / 2..] {
        let path = dataset.join(part);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::rename(&path, path.with_file_name(format!(".{name}.partial"))).unwrap();
    }
    assert!(parts.iter().any(|p| p.starts_with("files/")));
    let again = export();
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stderr(&again).contains("2 unchanged"), "{}", stderr(&again));
    assert!(!dataset.join(".demokit-commit").exists());
    for part in &parts {
        assert!(dataset.join(part).is_file(), "{part} back in place");
    }
    assert_eq!(files_rows(&dataset), rows_before);
}

/// Every command on a named pipe reads it once and returns (`info` used to open it again
/// to try it as a map, waiting for a writer forever).
#[test]
fn every_command_on_a_named_pipe_returns() {
    let dir = TempDir::new("confined-fifo");
    let fifo = dir.path("pipe.demo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let out = |name: &str| dir.path(name).into_os_string();
    let commands: Vec<Vec<std::ffi::OsString>> = vec![
        vec!["info".into()],
        vec!["validate".into()],
        vec!["chat".into()],
        vec!["players".into()],
        vec!["events".into()],
        vec!["dump".into()],
        vec!["export".into(), "-o".into(), out("ds")],
        vec!["render".into(), "-o".into(), out("x.png")],
        vec!["report".into(), "-o".into(), out("x.html")],
        vec!["rewrite".into()],
        vec!["extract-map".into()],
    ];
    for mut args in commands {
        let name = args[0].clone();
        args.insert(1, fifo.clone().into_os_string());
        if name == "rewrite" || name == "extract-map" {
            args.push(out("out"));
        }
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let _ = std::fs::write(fifo, b"invalid data\n");
            })
        };
        let mut child = crate::run::command()
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > std::time::Duration::from_secs(30) {
                let _ = child.kill();
                release_writer(&fifo);
                panic!("{name:?} on a named pipe did not return");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        // A writer still waiting (the command refused the pipe unread) is let go.
        if !writer.is_finished() {
            release_writer(&fifo);
        }
        writer.join().unwrap();
        assert_ne!(status.code(), Some(0), "{name:?}");
        assert!(status.code().is_some(), "{name:?} was killed by a signal");
    }
}

/// Lets a writer blocked opening `fifo` go: a reader opened without blocking (a plain open
/// would wait for a writer when there is none).
fn release_writer(fifo: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    const O_NONBLOCK: i32 = 0o4000;
    let _ = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(fifo);
}

/// With `--output-dir` and `--mapping`, a mapping that cannot be written leaves no
/// scrubbed output behind (the mapping is written first).
#[test]
fn scrub_writes_no_output_without_its_mapping() {
    let dir = TempDir::new("confined-scrub-mapping");
    let inputs = dir.path("in");
    std::fs::create_dir_all(&inputs).unwrap();
    std::fs::write(inputs.join("a.teehistorian"), teehistorian()).unwrap();
    std::fs::write(inputs.join("b.demo"), server_demo()).unwrap();
    let out_dir = dir.path("out");
    let unwritable = dir.path("no/such/dir/names.json");
    let out = run(&[
        "scrub".as_ref(),
        "--all".as_ref(),
        "--mapping".as_ref(),
        unwritable.as_os_str(),
        "--output-dir".as_ref(),
        out_dir.as_os_str(),
        inputs.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let written: Vec<_> = std::fs::read_dir(&out_dir)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(written.is_empty(), "{written:?}");
    // Writable: the mapping and both outputs.
    let mapping = dir.path("private/names.json");
    std::fs::create_dir_all(mapping.parent().unwrap()).unwrap();
    let out = run(&[
        "scrub".as_ref(),
        "--all".as_ref(),
        "--mapping".as_ref(),
        mapping.as_os_str(),
        "--output-dir".as_ref(),
        out_dir.as_os_str(),
        inputs.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&mapping).unwrap()).unwrap();
    assert_eq!(names.as_object().unwrap().len(), 2, "{names}");
    assert!(out_dir.join("a.teehistorian").is_file() && out_dir.join("b.demo").is_file());
}

/// `--clear-header config.sv_nmae` (a typo of a setting) is refused, as an unknown key is.
#[test]
fn clearing_a_setting_the_file_lacks_is_refused() {
    let dir = TempDir::new("confined-clear-header");
    let input = dir.write("a.teehistorian", &teehistorian());
    let output = dir.path("b.teehistorian");
    let out = run(&[
        "scrub".as_ref(),
        "--clear-header".as_ref(),
        "config.sv_nmae".as_ref(),
        input.as_os_str(),
        output.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("holds no \"sv_nmae\""),
        "{}",
        stderr(&out)
    );
    assert!(!output.exists());
    // One location per message, whatever wraps what.
    let data = teehistorian();
    let cut = dir.write("cut.teehistorian", &data[..data.len() - 9]);
    let out = run(&[
        "scrub".as_ref(),
        "--all".as_ref(),
        cut.as_os_str(),
        dir.path("c").as_os_str(),
    ]);
    let err = stderr(&out);
    for line in err.lines() {
        let places: Vec<&str> = line.matches("at byte ").collect();
        assert!(places.len() <= 1, "{line}");
    }
}

/// An output that is the input, under any spelling, is refused by every command that
/// writes one, the input left as it was (exit 2): the pictures, the page and the export
/// as much as the editors.
#[test]
fn no_command_writes_over_its_input() {
    let dir = TempDir::new("confined-output-input");
    let demo = server_demo();
    let input = dir.write("in.demo", &demo);
    let spelled = dir.path("./in.demo");
    let link = dir.path("link.demo");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    for output in [&input, &spelled, &link] {
        let o = output.as_os_str();
        let i = input.as_os_str();
        let commands: Vec<Vec<&OsStr>> = vec![
            vec![
                "render".as_ref(),
                i,
                "-o".as_ref(),
                o,
                "--format".as_ref(),
                "png".as_ref(),
                "-f".as_ref(),
            ],
            vec!["report".as_ref(), i, "-o".as_ref(), o, "-f".as_ref()],
            vec!["rewrite".as_ref(), i, o, "-f".as_ref()],
            vec!["repair".as_ref(), i, o, "-f".as_ref()],
            vec!["scrub".as_ref(), "--all".as_ref(), i, o, "-f".as_ref()],
            vec![
                "convert".as_ref(),
                "--version".as_ref(),
                "5".as_ref(),
                i,
                o,
                "-f".as_ref(),
            ],
            vec![
                "trim".as_ref(),
                "--from".as_ref(),
                "200".as_ref(),
                i,
                o,
                "-f".as_ref(),
            ],
            vec!["extract-map".as_ref(), i, o, "-f".as_ref()],
            vec![
                "markers".as_ref(),
                i,
                "--add".as_ref(),
                "300".as_ref(),
                "-o".as_ref(),
                o,
                "-f".as_ref(),
            ],
        ];
        for args in commands {
            let out = run(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
            assert_eq!(
                std::fs::read(&input).unwrap(),
                demo,
                "{args:?} changed its input"
            );
        }
    }
    // The export's dataset directory is no file: naming the input as it is refused.
    let out = run(&[
        "export".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        input.as_os_str(),
    ]);
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(&input).unwrap(), demo);
}
