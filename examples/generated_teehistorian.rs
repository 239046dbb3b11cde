//! Writes the large generated teehistorian recording of the benchmarks (a deterministic
//! 64-player server, about 55 MB) to a file, for benchmarks outside Rust such as
//! `python/benches/vs_teehistorian_py.py`:
//!
//! ```sh
//! cargo run --release --example generated_teehistorian -- /tmp/generated.teehistorian
//! ```
//!
//! A second argument gives the ticks (about 900 bytes each; 555000 makes about 500 MB,
//! the file of the memory figures in `docs/performance.md`), written as a server writes
//! them, straight to the file.

#[path = "../tests/common/server.rs"]
#[allow(dead_code)]
mod server;

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: generated_teehistorian OUT");
        std::process::exit(2);
    };
    if let Some(ticks) = std::env::args().nth(2) {
        let ticks: i32 = ticks.parse().expect("TICKS is a number");
        let file =
            std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
        let file = server::record_generated(file, ticks, demokit::teehistorian::FlushPolicy::Never);
        let file = file.into_inner().unwrap();
        eprintln!("{} bytes", file.metadata().unwrap().len());
        return;
    }
    let data = server::large_generated();
    std::fs::write(&path, &data).unwrap();
    eprintln!("{} bytes", data.len());
}
