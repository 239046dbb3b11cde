//! Test support shared by the test binaries (each `main.rs` declares `mod common;` with a
//! `#[path]` to this file, and its modules use what they need): locating the repository and
//! the test corpus (`fixtures/shared`, or the whole corpus where `DEMOKIT_SHARED`
//! points) with its facts, and the modules below: temporary files and directories
//! (`temp`), the counting allocator (`alloc`), a reader that returns a few bytes at a time
//! (`read`), crash-test children (`child`), small recorded demos (`recorded`) and a simulated
//! game server (`server`). The tool's tests add running the binary (`cli/tests/cli/run.rs`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's root directory: the package's own for the library's tests, the parent
/// of `cli/` for the tool's.
pub fn root() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if dir.join("fixtures").is_dir() {
        dir
    } else {
        dir.parent()
            .expect("a package has a parent directory")
            .to_path_buf()
    }
}

/// The environment variable naming the full test corpus: a directory laid out as the
/// project's shared corpus (`real-fixtures/` with `facts.json`, `conformance/`). CI points it
/// at the shared corpus beside the repository.
pub const SHARED_VAR: &str = "DEMOKIT_SHARED";

/// Whether this run must not skip for missing data (`CI=true`).
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The part of the corpus that ships with the repository: `fixtures/shared`, laid out as
/// the shared corpus and holding what may be redistributed (see `fixtures/README.md`).
pub fn bundled_dir() -> PathBuf {
    root().join("fixtures/shared")
}

/// The corpus the tests read: the directory `DEMOKIT_SHARED` names when it is set (the
/// whole shared corpus), else the part that ships with the repository. Never `None`: the
/// `Option` stays so that the call sites read as "if the corpus is there"; a file that
/// only the full corpus holds is reached through [`shared_file`], which skips (or, in CI,
/// fails) when it is absent.
///
/// # Panics
///
/// When `DEMOKIT_SHARED` is set but holds no `real-fixtures/facts.json`, or when `CI=true`
/// and `DEMOKIT_SHARED` is unset: CI must run every test.
pub fn shared_dir() -> Option<PathBuf> {
    Some(full_corpus().unwrap_or_else(bundled_dir))
}

/// Every file under `dir` (searched recursively) whose extension is `extension`, sorted.
pub fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == extension) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The full corpus `DEMOKIT_SHARED` names, or `None` when the variable is unset (a panic in
/// CI, where it must be set).
pub fn full_corpus() -> Option<PathBuf> {
    match std::env::var_os(SHARED_VAR) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.join("real-fixtures/facts.json").is_file(),
                "{SHARED_VAR}={} holds no real-fixtures/facts.json",
                dir.display()
            );
            Some(dir)
        }
        None if required() => panic!(
            "CI=true but {SHARED_VAR} is not set: CI points it at the shared corpus so that every test runs"
        ),
        None => None,
    }
}

/// A file of the corpus by its path in the corpus (`real-fixtures/twdemo/x.demo`):
/// from `DEMOKIT_SHARED` when set, else from the repository's `fixtures/shared` when it
/// ships there. `None`, noting the skip, when only the full corpus holds it (recordings
/// whose licence keeps them out of the repository) and `DEMOKIT_SHARED` is unset.
///
/// # Panics
///
/// When `DEMOKIT_SHARED` is set and lacks the file, or in CI without the variable.
pub fn shared_file(relative: &str) -> Option<PathBuf> {
    if let Some(dir) = full_corpus() {
        let path = dir.join(relative);
        assert!(path.is_file(), "{} is missing", path.display());
        return Some(path);
    }
    let path = bundled_dir().join(relative);
    if path.is_file() {
        return Some(path);
    }
    skip::skipped(NOT_BUNDLED);
    None
}

/// Why a file is missing without `DEMOKIT_SHARED`.
pub const NOT_BUNDLED: &str =
    "only the full corpus holds some files (not redistributable; set DEMOKIT_SHARED)";

/// [`shared_file`] for one of several files a test checks: a file only the full corpus
/// holds is left out (`None`), and the test is noted as run in part rather than skipped.
pub fn shared_file_part(relative: &str) -> Option<PathBuf> {
    if full_corpus().is_none() && !bundled_dir().join(relative).is_file() {
        skip::partly(NOT_BUNDLED);
        return None;
    }
    shared_file(relative)
}

/// Checks a total over the corpus's files: `full` with the whole corpus; without it, only
/// that some files were checked (the test is noted as run in part).
pub fn check_total(what: &str, actual: usize, full: usize) {
    if has_full_corpus() {
        assert_eq!(actual, full, "{what}");
    } else {
        skip::partly(NOT_BUNDLED);
        assert!(0 < actual && actual <= full, "{what}: {actual} of {full}");
    }
}

/// Whether the whole corpus is there (`DEMOKIT_SHARED` set), not only the repository's
/// part: tests whose totals count every file check them only then.
pub fn has_full_corpus() -> bool {
    full_corpus().is_some()
}

/// Reads a corpus file by its path in the corpus, or `None` (noting the skip) as
/// [`shared_file`] says.
pub fn read_shared(relative: &str) -> Option<Vec<u8>> {
    let path = shared_file(relative)?;
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The parsed `facts.json`.
pub fn facts(shared: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(shared.join("real-fixtures/facts.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The twdemo entries of `facts.json` with their file paths.
pub fn twdemo_facts(shared: &std::path::Path) -> Vec<(PathBuf, serde_json::Value)> {
    facts_files(shared, "twdemo")
}

/// The `facts.json` entries of `format` ("twdemo", "teehistorian", "source") with their
/// file paths.
pub fn facts_files(shared: &std::path::Path, format: &str) -> Vec<(PathBuf, serde_json::Value)> {
    facts(shared)[format]
        .as_array()
        .unwrap_or_else(|| panic!("facts.json has no {format} entries"))
        .iter()
        .map(|f| {
            let path = shared
                .join("real-fixtures")
                .join(f["file"].as_str().unwrap());
            (path, f.clone())
        })
        .collect()
}
/// Every real Source demo the tests know whose network messages demokit decodes (all but
/// the branches it refuses by name: Portal: Revolution): the ones in `fixtures/source`
/// and those of the corpus ([`shared_dir`]), sorted by name.
pub fn source_demos() -> Vec<PathBuf> {
    all_source_demos()
        .into_iter()
        .filter(|path| {
            let data = std::fs::read(path).unwrap();
            demokit::source::SourceSlice::parse(&data)
                .ok()
                .and_then(|s| demokit::source::net::state::NetState::of_header(s.header()))
                .is_some()
        })
        .collect()
}

/// [`source_demos`] and the demos of the branches demokit refuses by name, whose container
/// it still reads.
pub fn all_source_demos() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/source"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dem"))
        .collect();
    if let Some(shared) = shared_dir() {
        files.extend(
            facts_files(&shared, "source")
                .into_iter()
                .map(|(path, _)| path),
        );
    }
    files.sort_by_key(|p| p.file_name().map(|n| n.to_owned()));
    files
}

/// A CS:GO demo to test with: the file `DEMOKIT_CSGO_DEMO` names, else the full corpus's
/// `real-fixtures/gpl/csgo_demoinfogo_ok.dem`. No CS:GO demo is committed (none small
/// enough was found under a licence that lets it ship here), so without either the tests
/// on one skip, saying so (in CI the full corpus is required).
pub fn csgo_demo() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("DEMOKIT_CSGO_DEMO") {
        return Some(PathBuf::from(path));
    }
    // The full corpus holds it (GPL-3.0 test data: read in place, never copied here).
    if let Some(dir) = full_corpus() {
        let path = dir.join("real-fixtures/gpl/csgo_demoinfogo_ok.dem");
        assert!(path.is_file(), "{} is missing", path.display());
        return Some(path);
    }
    skip::skipped("no CS:GO demo (none is committed; set DEMOKIT_SHARED or DEMOKIT_CSGO_DEMO)");
    None
}

/// The SHA-256 of the CS:GO demo the fact tests were written against (miedzinski/demoinfogo
/// @ 8e95d9af, `test-data/ok.dem`; see `fixtures/README.md`).
pub const CSGO_OK_DEM_SHA256: &str =
    "5974224a5ddd2cb63e68d51c300738331e9e3b1838332770eceb5027304032c9";

/// The bytes of the CS:GO demo the fact tests know (`DEMOKIT_CSGO_DEMO` naming that very
/// file); `None`, noting the skip, otherwise.
pub fn csgo_ok_dem() -> Option<Vec<u8>> {
    let data = std::fs::read(csgo_demo()?).unwrap();
    if sha256_hex(&data) != CSGO_OK_DEM_SHA256 {
        skip::skipped(
            "DEMOKIT_CSGO_DEMO is not the demo these facts are about (see fixtures/README.md)",
        );
        return None;
    }
    Some(data)
}

/// `count` damaged copies of `data`, the same for the same `seed`, each with what was
/// done to it: in turn a flipped bit, an int set to `0x7fffffff`, a cut (at pseudo-random
/// places, xorshift64).
pub fn mutations(data: &[u8], seed: u64, count: u64) -> Vec<(String, Vec<u8>)> {
    let mut state = seed | 1;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    (0..count)
        .map(|i| {
            let mut copy = data.to_vec();
            let at = next(copy.len());
            let what = match i % 3 {
                0 if !copy.is_empty() => {
                    copy[at] ^= 1 << next(8);
                    format!("bit flipped at {at}")
                }
                1 => {
                    let end = (at + 4).min(copy.len());
                    copy[at..end].copy_from_slice(&[0xff, 0xff, 0xff, 0x7f][..end - at]);
                    format!("0x7fffffff at {at}")
                }
                _ => {
                    copy.truncate(at);
                    format!("cut at {at}")
                }
            };
            (what, copy)
        })
        .collect()
}

/// The SHA-256 of `data` in lowercase hex.
pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(data))
}

/// One real recording of each format that ships with the repository: DDNet 20.1's server
/// demo on dm1, its teehistorian file and a TF2 demo.
pub fn one_real_recording_per_format() -> Vec<PathBuf> {
    vec![
        bundled_dir().join("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo"),
        bundled_dir().join("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian"),
        root().join("fixtures/source/tf2_short_2024.dem"),
    ]
}

pub mod alloc;
pub mod bsp;
pub mod child;
pub mod read;
pub mod recorded;
pub mod server;
pub mod skip;
pub mod temp;

/// Runs an operation that writes into any `W: Write` (the formats' `repair`, `trim`,
/// `scrub`) into memory: the bytes it wrote and what it returned.
pub fn into_vec<R, E>(run: impl FnOnce(&mut Vec<u8>) -> Result<R, E>) -> Result<(Vec<u8>, R), E> {
    let mut out = Vec::new();
    let report = run(&mut out)?;
    Ok((out, report))
}

/// A repaired Source demo and its report, as the tests look at them.
pub struct SourceRepaired {
    /// The repaired file.
    pub bytes: Vec<u8>,
    /// What the repair did.
    pub report: demokit::source::repair::RepairReport,
}

/// The library's Source [`repair`](demokit::source::repair::repair) into memory.
pub fn source_repair(
    data: &[u8],
    options: &demokit::source::repair::RepairOptions,
) -> Result<SourceRepaired, demokit::source::repair::RepairError> {
    let (bytes, report) = into_vec(|out| demokit::source::repair::repair(data, options, out))?;
    Ok(SourceRepaired { bytes, report })
}
