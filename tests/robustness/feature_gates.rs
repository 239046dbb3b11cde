//! The command-line tool's dependencies stay out of what library users build: the tool is
//! a crate of its own (`cli/`), so neither the library (with any feature) nor the C ABI
//! crate (linked into game servers) has them in its normal dependency tree.

use std::process::Command;

/// Crates only the CLI needs.
const CLI_ONLY: [&str; 3] = ["clap", "indicatif", "rayon"];

fn tree(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--locked",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The crate names in a `cargo tree --prefix none` listing.
fn names(tree: &str) -> Vec<&str> {
    tree.lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect()
}

#[test]
fn the_library_builds_no_cli_dependency() {
    // With every feature on, the library's normal dependencies hold none of the tool's.
    let lib = tree(&["-p", "demokit", "--all-features"]);
    let ffi = tree(&["-p", "demokit-ffi"]);
    for listing in [&lib, &ffi] {
        let crates = names(listing);
        assert!(crates.contains(&"demokit"), "{listing}");
        for cli in CLI_ONLY {
            assert!(
                !crates.contains(&cli),
                "{cli} is built for a library user:\n{listing}"
            );
        }
    }
    // The tool's own listing does have them: the check can see them.
    let tool = tree(&["-p", "demokit-cli"]);
    for cli in CLI_ONLY {
        assert!(names(&tool).contains(&cli), "{tool}");
    }
}
