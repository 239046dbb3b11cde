//! The layers hold: the imports between the library's modules are listed from the source
//! and checked against the rules of the crate's shape.
//!
//! * No format (`twdemo`, `teehistorian`, `source`) uses another format.
//! * The shared layers (`codec`, the game protocol `gamenet`, and what formats share:
//!   `time`, `scrub`, `read`, `report`, `output`, `datafile`) use no format.
//! * The front ends (the tool in `cli/src`, the Python package in `python/src`, the tables
//!   in `src/export`, the C ABI in `ffi/src`) never tell formats apart themselves: no
//!   `Format::` variant, no `demokit::detect`; they open recordings through the entry point
//!   (`demokit::recording`). The entry point (`recording`, with `detect`,
//!   which reads each format's magic) is the one place that dispatches on the format.
//!
//! Comments are left out, so a doc link to a sibling is no import.

use crate::common;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The format modules.
const FORMATS: [&str; 3] = ["twdemo", "teehistorian", "source"];

/// Modules beneath the formats, which must use none of them.
const SHARED: [&str; 8] = [
    "codec", "gamenet", "time", "scrub", "read", "report", "output", "datafile",
];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    common::files_with_extension(dir, "rs")
}

/// The file's code without its comments (line comments, doc comments and block comments;
/// string literals are kept, which at worst finds a module name in a message).
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut code = String::new();
    let mut in_block = 0usize;
    for line in text.lines() {
        let mut rest = line;
        let mut kept = String::new();
        loop {
            if in_block > 0 {
                match rest.find("*/") {
                    Some(end) => {
                        in_block -= 1;
                        rest = &rest[end + 2..];
                    }
                    None => break,
                }
            } else if let Some(start) = rest.find("/*") {
                let before = &rest[..start];
                if let Some(comment) = before.find("//") {
                    kept.push_str(&before[..comment]);
                    break;
                }
                kept.push_str(before);
                in_block += 1;
                rest = &rest[start + 2..];
            } else {
                match rest.find("//") {
                    Some(comment) => kept.push_str(&rest[..comment]),
                    None => kept.push_str(rest),
                }
                break;
            }
        }
        code.push_str(&kept);
        code.push('\n');
    }
    code
}

/// The library module a file of `src/` belongs to: its first path component.
fn module_of(src: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(src).unwrap();
    let first = relative.components().next().unwrap();
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string()
}

/// The crate-root modules `code` names as `crate::NAME` or `demokit::NAME`.
fn uses(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for prefix in ["crate::", "demokit::"] {
        for (at, _) in code.match_indices(prefix) {
            // `somecrate::` is not `crate::`.
            let before = code[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let name: String = code[at + prefix.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// The imports between the library's modules: module -> the modules it uses.
fn library_imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in rust_files(src) {
        let module = module_of(src, &path);
        let used = uses(&code_of(&path));
        let entry = imports.entry(module.clone()).or_default();
        entry.extend(used.into_iter().filter(|m| *m != module));
    }
    imports
}

#[test]
fn no_format_and_no_shared_layer_uses_a_format() {
    let root = common::root();
    let imports = library_imports(&root.join("src"));
    // The listing sees the modules: it is no check that passes on an empty list.
    for module in FORMATS.iter().chain(&SHARED) {
        assert!(imports.contains_key(*module), "no module {module} in src/");
    }
    assert!(imports["twdemo"].contains("codec"), "{imports:?}");
    let mut broken = Vec::new();
    for (module, used) in &imports {
        let is_format = FORMATS.contains(&module.as_str());
        let is_shared = SHARED.contains(&module.as_str());
        if !is_format && !is_shared {
            continue;
        }
        for other in used {
            if FORMATS.contains(&other.as_str()) {
                broken.push(format!("{module} uses {other}"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "layers broken:\n{}\n(all imports: {imports:#?})",
        broken.join("\n")
    );
}

/// Whether `code` tells formats apart itself.
fn dispatches_on_format(code: &str) -> bool {
    let variants = [
        "Format::TwDemo",
        "Format::Teehistorian",
        "Format::SourceDemo",
        "Format::GoldSrcDemo",
        "Format::Source2Demo",
    ];
    variants.iter().any(|v| code.contains(v))
        || code.contains("detect::detect(")
        || code.contains("demokit::detect")
}

#[test]
fn front_ends_reach_the_formats_through_the_entry_point() {
    let root = common::root();
    let mut front_ends = Vec::new();
    for dir in ["cli/src", "python/src", "src/export", "ffi/src"] {
        let files = rust_files(&root.join(dir));
        assert!(!files.is_empty(), "no files under {dir}");
        front_ends.extend(files);
    }
    let mut offenders = BTreeSet::new();
    for path in &front_ends {
        if dispatches_on_format(&code_of(path)) {
            let relative = path.strip_prefix(&root).unwrap();
            offenders.insert(relative.to_string_lossy().into_owned());
        }
    }
    assert!(
        offenders.is_empty(),
        "front ends that tell formats apart instead of using demokit::recording: {offenders:?}"
    );
    // The check sees a dispatch where there is one: the entry point itself has them.
    assert!(dispatches_on_format(&code_of(
        &root.join("src/recording/mod.rs")
    )));
}
