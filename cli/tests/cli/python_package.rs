//! The Python package (`python/`): its pytest suite, run with the Python `.ci/run` prepares
//! (`DEMOKIT_PYTHON`, a virtualenv where `maturin develop` installed the package), against
//! this build's CLI. Elsewhere, without such a Python, it skips (counted at the end of the
//! run, `tests/common/skip.rs`); with `CI=true` it fails.

use std::process::Command;

/// A Python that imports `demokit` and `pytest`, or `None` with a printed reason.
fn python_with_package() -> Option<String> {
    let python = std::env::var("DEMOKIT_PYTHON").unwrap_or_else(|_| "python3".into());
    let ready = Command::new(&python)
        .args(["-c", "import demokit, pytest"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ready {
        return Some(python);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "CI=true but {python} cannot import demokit and pytest: .ci/run installs them \
             (maturin develop in its virtualenv)"
        );
    }
    crate::common::skip::skipped(
        "no Python that imports demokit and pytest (run .ci/run, or `maturin develop` in a \
         virtualenv and set DEMOKIT_PYTHON)",
    );
    None
}

#[test]
fn the_python_package_passes_its_tests() {
    let Some(python) = python_with_package() else {
        return;
    };
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../python/tests"))
        .env("DEMOKIT_BIN", env!("CARGO_BIN_EXE_demokit"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    println!("{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pytest failed:\n{said}");
    assert!(said.contains(" passed"), "{said}");
}
