//! The committed C header is what cbindgen makes of the crate now.

use std::path::PathBuf;

#[test]
fn ffi_header_is_current() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let path = crate_dir.join("include/demokit.h");
    if std::env::var("DEMOKIT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "ffi/include/demokit.h is stale: run `DEMOKIT_BLESS=1 cargo test -p demokit-ffi ffi_header_is_current`"
    );
}
