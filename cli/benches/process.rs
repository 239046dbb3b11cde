//! The whole `demokit` process, as a user runs it, against the floor under it: what
//! start-up, directory walking, file reading and output cost on top of the library.
//!
//! * `info --json` over a directory of 2,000 small real recordings (copies of the demos of
//!   up to 256 KiB and the teehistorian files in `fixtures/shared/real-fixtures`) against `cat`
//!   of the same files, both writing to `/dev/null`. Goal: within 1.5x of `cat`, i.e. a
//!   ratio of at least 0.67.
//! * `info` on one large generated teehistorian file (600 MB; `DEMOKIT_BENCH_BIG_MB` sets
//!   the size, `0` skips it) against the library's own streaming summary of the same file
//!   in this process (`Summary::scan_reader` over a buffered `File`). Goal: at least 0.8.
//!   The process's peak memory (GNU time's `%M`) is printed beside that of a file a tenth
//!   the size: `info` streams, so it should not grow.
//!
//! Ratios come from alternating rounds (see `ratio/mod.rs`): the floor's time over ours.
//! The files are written under the temp dir first and removed at the end. Needs
//! `fixtures/shared`; the memory figures need `/usr/bin/time`.

#[path = "../../benches/ratio/mod.rs"]
mod ratio;
#[path = "../../tests/common/server.rs"]
#[allow(dead_code)]
mod server;

use criterion::{Criterion, criterion_group, criterion_main};
use demokit::teehistorian::{FlushPolicy, Summary};
use ratio::Ratio;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The CLI this benchmark was built with.
const DEMOKIT: &str = env!("CARGO_BIN_EXE_demokit");

/// Small files in the directory of the first comparison.
const SMALL_FILES: usize = 2_000;

/// Runs `cmd` with its output thrown away; panics unless it succeeds.
fn run(cmd: &mut Command) -> u64 {
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{cmd:?}: {status}");
    1
}

/// Peak resident memory in KiB of `demokit args...`, by GNU time.
fn peak_kib(args: &[&Path]) -> Option<u64> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(DEMOKIT)
        .args(args)
        .stdout(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

/// 2,000 copies of the small real recordings, round robin.
fn small_files(dir: &Path) -> Option<Vec<PathBuf>> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/shared/real-fixtures");
    let mut sources = Vec::new();
    for sub in ["twdemo", "teehistorian"] {
        for entry in std::fs::read_dir(fixtures.join(sub)).ok()? {
            let path = entry.ok()?.path();
            if std::fs::metadata(&path).ok()?.len() <= 256 * 1024 {
                sources.push(std::fs::read(&path).ok()?);
            }
        }
    }
    std::fs::create_dir_all(dir).unwrap();
    let paths: Vec<PathBuf> = (0..SMALL_FILES)
        .map(|i| {
            let path = dir.join(format!("{i:05}"));
            std::fs::write(&path, &sources[i % sources.len()]).unwrap();
            path
        })
        .collect();
    Some(paths)
}

/// A generated teehistorian file of about `mb` MB (the benchmarks' simulated server).
fn big_file(path: &Path, mb: u64) {
    let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let ticks = (mb * server::LARGE_TICKS as u64 / 55) as i32;
    server::record_generated(file, ticks.max(1), FlushPolicy::Never)
        .into_inner()
        .unwrap()
        .sync_all()
        .unwrap();
}

/// The library's streaming summary of `path`: the messages counted.
fn library_info(path: &Path) -> u64 {
    let file = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path).unwrap());
    let (summary, error) = Summary::scan_reader(file).unwrap();
    assert!(error.is_none());
    summary.messages
}

fn bench(_: &mut Criterion) {
    let root = std::env::temp_dir().join(format!("demokit-process-{}", std::process::id()));
    let dir = root.join("small");
    match small_files(&dir) {
        Some(paths) => {
            let bytes: u64 = paths
                .iter()
                .map(|p| std::fs::metadata(p).unwrap().len())
                .sum();
            eprintln!("process: {SMALL_FILES} small files, {bytes} bytes");
            Ratio::measure(
                || run(Command::new(DEMOKIT).args(["info", "--json"]).arg(&dir)),
                || run(Command::new("cat").args(&paths)),
            )
            .print("`demokit info --json DIR` vs `cat` of its files (goal >= 0.67)");
        }
        None => eprintln!("process: fixtures/shared/real-fixtures missing: small files skipped"),
    }
    let mb: u64 = std::env::var("DEMOKIT_BENCH_BIG_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    if mb > 0 {
        let (big, tenth) = (
            root.join("big.teehistorian"),
            root.join("tenth.teehistorian"),
        );
        big_file(&big, mb);
        big_file(&tenth, mb.div_ceil(10));
        let size = std::fs::metadata(&big).unwrap().len();
        eprintln!("process: generated teehistorian of {size} bytes");
        Ratio::measure(
            || run(Command::new(DEMOKIT).arg("info").arg(&big)),
            || library_info(&big),
        )
        .print("`demokit info` on it vs the library's streaming summary (goal >= 0.8)");
        match (
            peak_kib(&[Path::new("info"), &big]),
            peak_kib(&[Path::new("info"), &tenth]),
        ) {
            (Some(big_kib), Some(tenth_kib)) => eprintln!(
                "process: `demokit info` peak memory: {:.1} MiB on {size} bytes, {:.1} MiB on a \
                 tenth of it",
                big_kib as f64 / 1024.0,
                tenth_kib as f64 / 1024.0
            ),
            _ => eprintln!("process: /usr/bin/time missing: memory not measured"),
        }
    }
    std::fs::remove_dir_all(&root).unwrap();
}

criterion_group!(benches, bench);
criterion_main!(benches);
