//! Test support shared by the test binaries (each `main.rs` declares `mod common;` with a
//! `#[path]` to this file, and its modules use what they need): locating the repository and
//! `../shared` with its facts, and the modules below: temporary files and directories
//! (`temp`), the counting allocator (`alloc`), a reader that returns a few bytes at a time
//! (`read`), crash-test children (`child`), small recorded demos (`recorded`) and a simulated
//! game server (`server`). The tool's tests add running the binary (`cli/tests/cli/run.rs`).
#![allow(dead_code)]

use std::path::PathBuf;

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

/// The `../shared` directory, or `None` (with a printed reason) when it is missing outside CI.
/// In CI (`CI=true`) a missing directory fails the test loudly.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = root().join("../shared");
    if dir.join("real-fixtures/facts.json").is_file() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "CI=true but {} is missing: the real fixtures must be beside the project",
            dir.display()
        );
    }
    skip::skipped("../shared not found (tests on real recordings need ../shared/real-fixtures)");
    None
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
/// Every real Source demo the tests know: the ones in `fixtures/source` (always) and the
/// ones in `../shared/real-fixtures/source` (when `../shared` is there), sorted by name.
pub fn source_demos() -> Vec<PathBuf> {
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

/// A CS:GO demo to test with: the file `DEMOKIT_CSGO_DEMO` names. No CS:GO demo is
/// committed (none small enough was found under a licence that lets it ship here), so the
/// tests on one skip, saying so, when the variable is unset.
pub fn csgo_demo() -> Option<PathBuf> {
    match std::env::var_os("DEMOKIT_CSGO_DEMO") {
        Some(path) => Some(PathBuf::from(path)),
        None => {
            skip::skipped("DEMOKIT_CSGO_DEMO not set (no CS:GO demo is committed)");
            None
        }
    }
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

/// The SHA-256 of `data` in lowercase hex.
pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(data))
}

pub mod alloc;
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
