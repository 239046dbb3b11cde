//! The command-line tool's dependencies stay out of what library users build: the C ABI
//! crate (linked into game servers) takes demokit without default features, and its
//! normal dependency tree has none of them.

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
fn the_c_abi_crate_builds_no_cli_dependency() {
    // The published library crate ships this test but not the C ABI crate.
    if !std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("ffi")
        .is_dir()
    {
        eprintln!("skipping: no ffi/ beside this test (a packaged crate)");
        return;
    }
    let ffi = tree(&["-p", "demokit-ffi"]);
    let ffi_names = names(&ffi);
    assert!(ffi_names.contains(&"demokit"), "{ffi}");
    for cli in CLI_ONLY {
        assert!(
            !ffi_names.contains(&cli),
            "demokit-ffi pulls in {cli}:\n{ffi}"
        );
    }
    // The same listing with the CLI on does have them: the check can see them.
    let with_cli = tree(&["-p", "demokit", "--features", "cli"]);
    for cli in CLI_ONLY {
        assert!(names(&with_cli).contains(&cli), "{with_cli}");
    }
}
