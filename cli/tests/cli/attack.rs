//! Damaged recordings through every command: each real recording of the corpus, mutated at
//! fixed pseudo-random places (a flipped bit, an int set to `0x7fffffff`, a cut), run
//! through every command that reads or writes a recording. No run may panic (exit 101),
//! die by a signal or take longer than the watchdog allows, and no input may change.

use crate::common;

use crate::run::command;
use common::temp::TempDir;
use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

/// Mutations of each file.
const MUTATIONS: u64 = 9;

/// How long one command may take on one input.
const WATCHDOG: Duration = Duration::from_secs(60);

/// Every command on `input`, its outputs in `out`.
fn commands(input: &Path, out: &Path, map: &Path) -> Vec<Vec<OsString>> {
    let i = || input.as_os_str().to_owned();
    let o = |name: &str| out.join(name).into_os_string();
    let mut all: Vec<Vec<OsString>> = ["info", "validate", "chat", "players", "events", "dump"]
        .into_iter()
        .map(|c| vec![c.into(), i()])
        .collect();
    all.push(vec!["dump".into(), "--game-records".into(), i()]);
    all.push(vec!["export".into(), i(), "-o".into(), o("ds")]);
    all.push(vec![
        "render".into(),
        i(),
        "-o".into(),
        o("x.png"),
        "--size".into(),
        "320x240".into(),
        "--map".into(),
        map.into(),
        "-f".into(),
    ]);
    all.push(vec![
        "render".into(),
        i(),
        "-o".into(),
        o("h.svg"),
        "--heatmap".into(),
        "-f".into(),
    ]);
    all.push(vec![
        "report".into(),
        i(),
        "-o".into(),
        o("x.html"),
        "-f".into(),
    ]);
    all.push(vec!["rewrite".into(), i(), o("rewritten"), "-f".into()]);
    all.push(vec!["repair".into(), i(), o("repaired"), "-f".into()]);
    all.push(vec![
        "scrub".into(),
        "--all".into(),
        i(),
        o("scrubbed"),
        "-f".into(),
    ]);
    all.push(vec![
        "trim".into(),
        "--from".into(),
        "1s".into(),
        i(),
        o("trimmed"),
        "-f".into(),
    ]);
    all.push(vec![
        "convert".into(),
        "--version".into(),
        "5".into(),
        i(),
        o("converted"),
        "-f".into(),
    ]);
    all.push(vec!["extract-map".into(), i(), o("x.map"), "-f".into()]);
    all
}

#[test]
fn mutated_recordings_through_every_command() {
    let shared = common::shared_dir().unwrap();
    let map = shared.join("real-fixtures/maps/dm1_0.6.map");
    let mut files: Vec<_> = ["twdemo", "teehistorian", "source"]
        .into_iter()
        .flat_map(|format| common::facts_files(&shared, format))
        .map(|(path, _)| path)
        .filter(|path| std::fs::metadata(path).is_ok_and(|m| m.len() < 1_500_000))
        .collect();
    files.sort();
    let dir = TempDir::new("attack");
    let (mut runs, mut by_exit) = (0, std::collections::BTreeMap::new());
    for (n, path) in files.iter().enumerate() {
        let data = std::fs::read(path).unwrap();
        let extension = path.extension().unwrap().to_string_lossy().into_owned();
        for (k, (what, copy)) in common::mutations(&data, 0x2545_f491 ^ (n as u64) << 8, MUTATIONS)
            .into_iter()
            .enumerate()
        {
            let input = dir.write(&format!("in-{n}-{k}.{extension}"), &copy);
            for args in commands(&input, &dir.0, &map) {
                let started = Instant::now();
                let mut child = command()
                    .args(&args)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap();
                let status = loop {
                    if let Some(status) = child.try_wait().unwrap() {
                        break status;
                    }
                    if started.elapsed() > WATCHDOG {
                        let _ = child.kill();
                        panic!("{} ({what}): {args:?} hangs", path.display());
                    }
                    std::thread::sleep(Duration::from_millis(2));
                };
                let code = status.code();
                assert!(
                    matches!(code, Some(0..=3)),
                    "{} ({what}): {args:?} ended with {status}",
                    path.display()
                );
                *by_exit.entry(code).or_insert(0) += 1;
                assert_eq!(
                    std::fs::read(&input).unwrap(),
                    copy,
                    "{} ({what}): {args:?} changed its input",
                    path.display()
                );
                runs += 1;
            }
            let _ = std::fs::remove_dir_all(dir.path("ds"));
        }
    }
    println!("{runs} runs, by exit status: {by_exit:?}");
    assert!(runs >= 9 * MUTATIONS as usize * 16, "{runs}");
}
