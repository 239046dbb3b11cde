//! Test support: locating `../shared` beside the project.
#![allow(dead_code)]

use std::path::PathBuf;

/// The `../shared` directory, or `None` (with a printed reason) when it is missing outside CI.
/// In CI (`CI=true`) a missing directory fails the test loudly.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.join("real-fixtures/facts.json").is_file() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "CI=true but {} is missing: the real fixtures must be beside the project",
            dir.display()
        );
    }
    eprintln!(
        "skipping: {} not found (tests on real recordings need ../shared)",
        dir.display()
    );
    None
}

/// The parsed `facts.json`.
pub fn facts(shared: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(shared.join("real-fixtures/facts.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The twdemo entries of `facts.json` with their file paths.
pub fn twdemo_facts(shared: &std::path::Path) -> Vec<(PathBuf, serde_json::Value)> {
    facts(shared)["twdemo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let path = shared
                .join("real-fixtures")
                .join(f["file"].as_str().unwrap());
            (path, f.clone())
        })
        .collect()
}
pub mod alloc;
pub mod child;
pub mod server;
pub mod temp;
