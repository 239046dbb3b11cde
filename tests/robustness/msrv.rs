//! The minimum Rust version the workspace declares (`rust-version`, shared by `demokit`
//! and `demokit-ffi` through `[workspace.package]`) must hold: it must be at least the
//! `rust-version` of every dependency in Cargo.lock, or the first toolchain it names fails on
//! that crate. The dependencies come from `cargo metadata --locked --offline`, filtered to
//! this platform (the packages a build here resolves, normal, dev and build dependencies
//! alike; they are on disk once the tests are built, so no network is needed).

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The cargo that builds these tests.
fn cargo() -> Command {
    Command::new(option_env!("CARGO").unwrap_or("cargo"))
}

/// A version such as `1.89` or `1.89.0` as numbers, missing parts 0, for comparing.
fn parse(version: &str) -> [u64; 3] {
    let mut parts = [0; 3];
    for (part, text) in parts.iter_mut().zip(version.split('.')) {
        *part = text
            .parse()
            .unwrap_or_else(|_| panic!("not a version: {version}"));
    }
    parts
}

/// The platform the tests run on, as cargo names it.
fn host() -> String {
    let out = cargo().arg("-vV").output().expect("cargo runs");
    assert!(out.status.success(), "cargo -vV failed");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .unwrap_or_else(|| panic!("no host in cargo -vV: {text}"))
        .to_string()
}

/// `cargo metadata` for the workspace, with every dependency this platform resolves.
fn metadata() -> Value {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host()])
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo metadata failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn rust_version_covers_every_locked_dependency() {
    let metadata = metadata();
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    let packages = metadata["packages"].as_array().unwrap();
    let is_member = |p: &Value| members.contains(&p["id"].as_str().unwrap());

    // Every member declares the same version, at least what its edition needs.
    let mut declared = None;
    for member in packages.iter().filter(|p| is_member(p)) {
        let name = member["name"].as_str().unwrap();
        let version = member["rust_version"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} declares no rust-version"));
        if member["edition"] == "2024" {
            assert!(
                parse(version) >= [1, 85, 0],
                "{name}: edition 2024 needs 1.85"
            );
        }
        match declared {
            None => declared = Some(version),
            Some(first) => assert_eq!(version, first, "{name}: another rust-version"),
        }
    }
    let declared = declared.expect("the workspace has members");

    let mut offenders = Vec::new();
    let mut highest: Option<([u64; 3], String)> = None;
    for package in packages.iter().filter(|p| !is_member(p)) {
        let Some(needed) = package["rust_version"].as_str() else {
            continue;
        };
        let name = format!("{} {}", package["name"], package["version"]).replace('"', "");
        if parse(needed) > parse(declared) {
            offenders.push(format!("{name} needs {needed}"));
        }
        if highest.as_ref().is_none_or(|(v, _)| parse(needed) > *v) {
            highest = Some((parse(needed), format!("{name} needs {needed}")));
        }
    }
    assert!(
        packages.len() > members.len() + 10,
        "cargo metadata listed only {} packages",
        packages.len()
    );
    assert!(
        offenders.is_empty(),
        "rust-version = \"{declared}\" in Cargo.toml is older than what these locked \
         dependencies need: {}",
        offenders.join(", ")
    );
    if let Some((_, highest)) = highest {
        println!("declared {declared}; the most demanding dependency: {highest}");
    }
}
