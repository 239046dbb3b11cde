//! Runs that overlap or die midway: two exports into one dataset, an export killed with
//! SIGKILL, and a write killed the same way, then the next run.
//!
//! * A dataset is locked while a run writes it: a second run is refused with exit 3 and a
//!   sentence saying so, writes nothing, and two runs started together never put a file's
//!   rows in twice.
//! * A killed export leaves only hidden temporary parts (which pyarrow, DuckDB's
//!   `*.parquet` globs and Spark pass over); the next run removes them and its rows are
//!   exact.
//! * An export killed in the middle of its commit (some parts moved into place, the
//!   others not) is completed by the next run from its commit journal: no row is lost and
//!   none doubled.
//! * A killed writer (and a killed `demokit scrub`) leaves its hidden temporary file; the
//!   next write of the same output removes it, and never the temporary file of a writer
//!   still alive.
//!
//! The killed runs are this binary's own child tests (`child_*`), killed with SIGKILL at a
//! point they report, so the test does not race the run's speed.

use crate::common;

use crate::run::{demokit, stderr};
use common::child::{record_then_kill, test_name};
use common::temp::TempDir;
use demokit::export::{DatasetWriter, Exporter, Table};
use demokit::output::{AtomicFile, Overwrite};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The variable that hands the child tests their directory.
const DIR_ENV: &str = "DEMOKIT_INTERRUPTED_DIR";

/// The repository's recorded demos: inputs for the exports.
fn inputs() -> Vec<PathBuf> {
    (3..=6)
        .map(|v| common::root().join(format!("fixtures/recorded_v{v}.demo")))
        .collect()
}

/// The names of the files under `dir`, hidden ones too, recursively.
fn all_names(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// The paths the dataset's `files` table lists, with repeats.
fn listed_files(dataset: &Path) -> Vec<String> {
    let mut paths: Vec<String> = DatasetWriter::create(dataset)
        .unwrap()
        .exported()
        .unwrap()
        .into_iter()
        .map(|f| f.path)
        .collect();
    paths.sort();
    paths
}

/// `demokit export INPUTS -o DATASET`.
fn export(dataset: &Path) -> std::process::Command {
    let mut command = crate::run::command();
    command.arg("export");
    command.args(inputs());
    command.arg("-o").arg(dataset);
    command
}

#[test]
fn a_dataset_being_written_refuses_a_second_export() {
    let dir = TempDir::new("export-locked");
    let dataset = dir.path("ds");
    // This test holds the dataset, as a running export does.
    let held = DatasetWriter::create(&dataset).unwrap();
    let o = export(&dataset).output().unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("another demokit export is writing this dataset"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        all_names(&dataset),
        [".demokit-lock"],
        "the refused run wrote"
    );
    drop(held);
    let o = export(&dataset).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn two_exports_at_once_never_add_a_file_twice() {
    let dir = TempDir::new("export-twice");
    let dataset = dir.path("ds");
    let mut first = export(&dataset).spawn().unwrap();
    let mut second = export(&dataset).spawn().unwrap();
    let statuses = [first.wait().unwrap(), second.wait().unwrap()];
    // Whichever came second was refused, or (if the first had finished) found every file
    // exported already.
    assert!(statuses.iter().any(|s| s.success()), "{statuses:?}");
    assert!(
        statuses.iter().all(|s| s.success() || s.code() == Some(3)),
        "{statuses:?}"
    );
    let expected: Vec<String> = {
        let mut v: Vec<String> = inputs()
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(listed_files(&dataset), expected);
}

/// Child of [`a_killed_export_leaves_nothing_readers_see`]: writes part of an export
/// into the dataset in `DIR_ENV`, says so, and waits to be killed.
#[test]
#[ignore = "a child process of a_killed_export_leaves_nothing_readers_see, run by it"]
fn child_exports_until_killed() {
    let Ok(dir) = std::env::var(DIR_ENV) else {
        return;
    };
    let writer = DatasetWriter::create(&dir).unwrap();
    let data = std::fs::read(&inputs()[3]).unwrap();
    let mut exporter = Exporter::new();
    let mut sink = |table: Table, batch| writer.write(table, &batch).unwrap();
    exporter.add("killed.demo", &data, &mut sink);
    exporter.finish(&mut sink);
    // The rows into the part, which stays under its temporary name.
    writer.flush().unwrap();
    // On a line of its own: the harness has printed the test's name without a newline.
    println!("\nwritten 1");
    std::io::stdout().flush().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(600));
}

#[test]
fn a_killed_export_leaves_nothing_readers_see() {
    let dir = TempDir::new("export-killed");
    let dataset = dir.path("ds");
    let child = test_name(module_path!(), "child_exports_until_killed");
    let seen = record_then_kill(&child, DIR_ENV, &dataset, "written ", 1);
    assert_eq!(seen, 1, "the child did not write");
    let left = all_names(&dataset);
    assert!(
        left.iter().any(|n| n.ends_with(".parquet.partial")),
        "the kill left no part in progress: {left:?}"
    );
    // What was left is hidden: a reader of the dataset sees no file.
    assert!(left.iter().all(|n| n.starts_with('.')), "{left:?}");
    // The next run: the lock is free again, the abandoned parts go, the rows are exact.
    let o = export(&dataset).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let left = all_names(&dataset);
    assert!(
        !left.iter().any(|n| n.ends_with(".partial")),
        "abandoned parts stayed: {left:?}"
    );
    assert_eq!(listed_files(&dataset).len(), inputs().len());
}

#[test]
fn an_export_killed_during_its_commit_is_completed_by_the_next_run() {
    let dir = TempDir::new("export-killed-commit");
    let dataset = dir.path("ds");
    let child = test_name(module_path!(), "child_commits_until_killed");
    let seen = record_then_kill(&child, DIR_ENV, &dataset, "moved ", 1);
    assert_eq!(seen, 1, "the child did not begin its commit");
    let left = all_names(&dataset);
    assert!(left.iter().any(|n| n == ".demokit-commit"), "{left:?}");
    assert!(
        left.iter().any(|n| n.ends_with(".parquet.partial")),
        "{left:?}"
    );
    // The next run, over the same inputs: the killed run's parts come into place, its
    // files are found exported, nothing is exported twice and nothing is missing.
    let o = export(&dataset).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("{} unchanged", inputs().len())),
        "{}",
        stderr(&o)
    );
    let left = all_names(&dataset);
    assert!(
        !left
            .iter()
            .any(|n| n.ends_with(".partial") || n == ".demokit-commit"),
        "{left:?}"
    );
    let mut expected: Vec<String> = inputs()
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    expected.sort();
    assert_eq!(listed_files(&dataset), expected);
    // Every table's rows: those of one clean export of the same inputs.
    let clean = dir.path("clean");
    let o = export(&clean).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    for table in Table::ALL {
        assert_eq!(
            crate::export::visible_rows(&dataset.join(table.name())),
            crate::export::visible_rows(&clean.join(table.name())),
            "{}",
            table.name()
        );
    }
}

/// Child of [`an_export_killed_during_its_commit_is_completed_by_the_next_run`]: exports
/// the inputs as `demokit export` names them into the dataset in `DIR_ENV`, moves the
/// first part into place, says so, and waits to be killed.
#[test]
#[ignore = "a child process of an_export_killed_during_its_commit_is_completed_by_the_next_run, run by it"]
fn child_commits_until_killed() {
    let Ok(dir) = std::env::var(DIR_ENV) else {
        return;
    };
    let writer = DatasetWriter::create(&dir).unwrap();
    for input in inputs() {
        let data = std::fs::read(&input).unwrap();
        let modified = demokit::export::modified_ns(&input);
        let mut exporter = Exporter::new();
        let mut sink = |table: Table, batch| writer.write(table, &batch).unwrap();
        exporter.add_modified(&input.to_string_lossy(), modified, &data, &mut sink);
        exporter.finish(&mut sink);
    }
    let mut moved = 0;
    writer
        .finish_observed(|_| {
            moved += 1;
            // On a line of its own: the harness has printed the test's name.
            println!("\nmoved {moved}");
            std::io::stdout().flush().unwrap();
            std::thread::sleep(std::time::Duration::from_secs(600));
        })
        .unwrap();
}

/// Child of [`a_killed_write_is_cleaned_up_by_the_next_run`]: begins writing the file
/// `DIR_ENV`/out.demo, says so, and waits to be killed.
#[test]
#[ignore = "a child process of a_killed_write_is_cleaned_up_by_the_next_run, run by it"]
fn child_writes_until_killed() {
    let Ok(dir) = std::env::var(DIR_ENV) else {
        return;
    };
    let mut file =
        AtomicFile::create(&Path::new(&dir).join("out.demo"), Overwrite::Refuse).unwrap();
    file.write_all(&[0; 100_000]).unwrap();
    file.flush().unwrap();
    // On a line of its own: the harness has printed the test's name without a newline.
    println!("\nwritten 1");
    std::io::stdout().flush().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(600));
}

#[test]
fn a_killed_write_is_cleaned_up_by_the_next_run() {
    let dir = TempDir::new("write-killed");
    let temporaries = || -> Vec<String> {
        all_names(&dir.path(""))
            .into_iter()
            .filter(|n| n.starts_with(".out.demo.") && n.ends_with(".tmp"))
            .collect()
    };
    // A writer of the same output that is alive throughout: its temporary file must stay.
    let mut alive = AtomicFile::create(&dir.path("out.demo"), Overwrite::Replace).unwrap();
    alive.write_all(b"in progress").unwrap();
    let child = test_name(module_path!(), "child_writes_until_killed");
    let seen = record_then_kill(&child, DIR_ENV, &dir.path(""), "written ", 1);
    assert_eq!(seen, 1, "the child did not write");
    assert_eq!(temporaries().len(), 2, "the kill left no temporary file");
    let input = common::root().join("fixtures/recorded_v6.demo");
    let o = demokit(&[
        "scrub".as_ref(),
        input.as_os_str(),
        dir.path("out.demo").as_os_str(),
        "--names".as_ref(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The killed writer's file is gone; the live one's is not.
    assert_eq!(temporaries().len(), 1, "{:?}", temporaries());
    drop(alive);
    assert_eq!(temporaries(), Vec::<String>::new());
}

#[test]
fn a_killed_scrub_is_cleaned_up_by_the_next_run() {
    use common::server::record_generated;
    use demokit::teehistorian::FlushPolicy;
    let dir = TempDir::new("scrub-killed");
    // About 20 MB: the scrub streams its output into the temporary file for a while.
    let input = dir.path("in.teehistorian");
    record_generated(
        std::io::BufWriter::new(std::fs::File::create(&input).unwrap()),
        22_000,
        FlushPolicy::Never,
    )
    .into_inner()
    .unwrap();
    let out = dir.path("out.teehistorian");
    let temporaries = || -> Vec<String> {
        all_names(&dir.path(""))
            .into_iter()
            .filter(|n| n.starts_with(".out.teehistorian.") && n.ends_with(".tmp"))
            .collect()
    };
    let scrub = || {
        let mut command = crate::run::command();
        command
            .arg("scrub")
            .arg(&input)
            .arg(&out)
            .args(["--names", "-f"]);
        command
    };
    // Kill the scrub (SIGKILL) once its temporary output is there; a run that finishes
    // before it is seen is tried again.
    let mut killed = false;
    for _ in 0..5 {
        let mut child = scrub().stderr(std::process::Stdio::null()).spawn().unwrap();
        loop {
            if !temporaries().is_empty() {
                child.kill().unwrap();
                child.wait().unwrap();
                killed = true;
                break;
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        if killed {
            break;
        }
        std::fs::remove_file(&out).unwrap();
    }
    assert!(killed, "no scrub was caught writing");
    assert_eq!(temporaries().len(), 1, "the kill left no temporary file");
    assert!(!out.exists(), "the killed scrub left an output");
    // The next run: a whole output, and the killed run's temporary file is gone.
    let o = scrub().output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(temporaries(), Vec::<String>::new());
    let scrubbed = std::fs::read(&out).unwrap();
    assert!(demokit::teehistorian::summary::validate(&scrubbed).accepted());
}
