//! What the demo benchmarks share: the real DDNet demos they measure, loaded once.

use demokit::twdemo::{Chunk, DemoSlice};
use std::path::PathBuf;

/// The demos measured: a short label and the file name in `fixtures/shared/real-fixtures/twdemo`.
pub const FILES: &[(&str, &str)] = &[
    ("multeasymap", "v6_ddnet_client_multeasymap_2020.demo"),
    ("rainymore2", "v6_ddnet_client_rainymore2_2020.demo"),
    ("dm1_server", "v6_ddnet201_server_dm1.demo"),
];

/// A demo loaded for the benchmarks.
pub struct Loaded {
    /// Its label in [`FILES`].
    pub label: &'static str,
    /// The file.
    pub data: Vec<u8>,
    /// Compressed payload bytes over all data chunks: the decode throughput.
    pub payload_bytes: u64,
}

/// Loads [`FILES`], or returns `None` (saying why) when `fixtures/shared` is not there.
pub fn load() -> Option<Vec<Loaded>> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/shared/real-fixtures/twdemo");
    if !dir.is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return None;
    }
    let demos = FILES
        .iter()
        .map(|&(label, file)| {
            let data = std::fs::read(dir.join(file)).unwrap();
            let payload_bytes = DemoSlice::parse(&data)
                .unwrap()
                .chunks()
                .map(|c| match c.unwrap().chunk {
                    Chunk::Data(d) => d.payload.len() as u64,
                    Chunk::Tick(_) => 0,
                })
                .sum();
            Loaded {
                label,
                data,
                payload_bytes,
            }
        })
        .collect();
    Some(demos)
}
