//! Writes the large generated teehistorian recording of the benchmarks (a deterministic
//! 64-player server, about 55 MB) to a file, for benchmarks outside Rust such as
//! `python/benches/vs_teehistorian_py.py`:
//!
//! ```sh
//! cargo run --release --example generated_teehistorian -- /tmp/generated.teehistorian
//! ```

#[path = "../tests/common/server.rs"]
#[allow(dead_code)]
mod server;

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: generated_teehistorian OUT");
        std::process::exit(2);
    };
    let data = server::large_generated();
    std::fs::write(&path, &data).unwrap();
    eprintln!("{} bytes", data.len());
}
