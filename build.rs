//! Writes the game protocol tables (`build/gamenet.rs`), and compiles DDNet's C++ demo chunk
//! codec for `benches/ddnet_cpp.rs`, only when asked.
//!
//! The tables of `src/gamenet/six.rs` and `seven.rs` are written into `OUT_DIR` from the
//! JSON specs in `src/gamenet/spec/` on every build; neither Python nor DDNet is needed.
//!
//! Without `DDNET_SRC` this does nothing beyond declaring the `ddnet_cpp` cfg: the library,
//! the binaries and the tests never need a C++ compiler or DDNet's sources. With
//! `DDNET_SRC` naming a DDNet checkout (`benches/cpp/fetch-ddnet` makes one), it compiles
//! DDNet's `huffman.cpp` and `compression.cpp` with our C ABI shim
//! `benches/cpp/ddnet_codec.cpp` into a static library and sets `cfg(ddnet_cpp)`.
//!
//! The library is linked into benchmark targets only (`rustc-link-arg-benches`), not with
//! `rustc-link-lib`, which would put it and the C++ runtime into every target and into the
//! crates that depend on demokit (the C ABI crate and the Python extension).

#[path = "build/gamenet.rs"]
mod gamenet;

use std::env;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap());
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    gamenet::generate(&manifest_dir.join("src/gamenet/spec"), &out);

    println!("cargo::rustc-check-cfg=cfg(ddnet_cpp)");
    println!("cargo::rerun-if-env-changed=DDNET_SRC");
    let Some(src) = env::var_os("DDNET_SRC").filter(|s| !s.is_empty()) else {
        return;
    };
    let src = PathBuf::from(src).join("src");
    let shim = "benches/cpp/ddnet_codec.cpp";
    let ddnet_files = [
        "engine/shared/huffman.cpp",
        "engine/shared/compression.cpp",
        "engine/shared/huffman.h",
        "engine/shared/compression.h",
        "base/dbg.h",
        "base/mem.h",
    ];
    for file in ddnet_files {
        let path = src.join(file);
        assert!(
            path.is_file(),
            "DDNET_SRC: {} not found; benches/cpp/fetch-ddnet puts DDNet's sources in place",
            path.display()
        );
        println!("cargo::rerun-if-changed={}", path.display());
    }
    println!("cargo::rerun-if-changed={shim}");

    // The flags of DDNet's own release build where they matter: C++20 and NDEBUG. The
    // optimization level is cargo's (`-O3` under the bench profile, as in CMake's Release).
    cc::Build::new()
        .cpp(true)
        .std("c++20")
        .define("NDEBUG", None)
        .include(&src)
        .file(src.join("engine/shared/huffman.cpp"))
        .file(src.join("engine/shared/compression.cpp"))
        .file(shim)
        // No `rustc-link-lib` for every target: see the module comment.
        .cargo_metadata(false)
        .compile("ddnet_codec");

    let target = env::var("TARGET").unwrap();
    if target.contains("msvc") {
        println!(
            "cargo::rustc-link-arg-benches={}",
            out.join("ddnet_codec.lib").display()
        );
    } else {
        println!(
            "cargo::rustc-link-arg-benches={}",
            out.join("libddnet_codec.a").display()
        );
        // The C++ runtime, after the archive that needs it.
        let runtime = if target.contains("apple") || target.contains("bsd") {
            "c++"
        } else {
            "stdc++"
        };
        println!("cargo::rustc-link-arg-benches=-l{runtime}");
    }
    println!("cargo::rustc-cfg=ddnet_cpp");
}
