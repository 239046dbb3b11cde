//! Writes the seed corpora of every fuzz target to `fuzz/corpus/<target>/` from the
//! project's `fixtures/` and the real recordings in `../shared` (conformance vectors and
//! real fixtures), which stay out of the repository: the corpus directory is ignored by git.
//!
//! Large recordings are cut to a prefix and repaired into complete files (a few KiB of
//! chunks or frames after the header and map), since the fuzzer mutates small inputs far
//! faster. The codec targets get what the container readers hand them in real files:
//! compressed chunk payloads, decoded ints, and pairs of snapshot and delta.
//!
//! `cargo run --release --manifest-path fuzz/Cargo.toml --example seed_corpora [SHARED]`

use demokit::source;
use demokit::twdemo::{self as tw, Chunk, ChunkKind};
use std::path::{Path, PathBuf};

/// Bytes of chunks or frames kept after the prelude when a large recording is cut.
const BODY: usize = 12 * 1024;
/// Recordings whose prelude (header and map) is larger than this give no seed.
const MAX_PRELUDE: usize = 128 * 1024;
/// Payload and delta seeds taken from each demo.
const PER_DEMO: usize = 24;

struct Corpora {
    root: PathBuf,
    written: usize,
}

impl Corpora {
    fn put(&mut self, targets: &[&str], name: &str, bytes: &[u8]) {
        for target in targets {
            let dir = self.root.join(target);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(name), bytes).unwrap();
            self.written += 1;
        }
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

const TW: &[&str] = &["twdemo_read", "twdemo_roundtrip", "twdemo_tools", "render_page"];
const TH: &[&str] = &["teehistorian_read", "teehistorian_roundtrip", "render_page"];
const SRC: &[&str] = &["source_read", "source_roundtrip", "render_page"];

/// A demo cut to its prelude plus [`BODY`] bytes of chunks and repaired, or `None` when its
/// prelude is too large.
fn small_demo(data: &[u8]) -> Option<Vec<u8>> {
    let slice = tw::DemoSlice::parse(data).ok()?;
    let start = slice.chunks_offset();
    if start > MAX_PRELUDE {
        return None;
    }
    let end = (start + BODY).min(data.len());
    let mut bytes = Vec::new();
    tw::edit::repair::repair(&data[..end], &mut bytes)
        .ok()
        .map(|_| bytes)
}

/// Codec seeds from one demo: Huffman payloads (with a limit selector byte), decoded ints
/// as packed bytes, and snapshot/delta pairs in the `snapshot_delta` input layout.
fn codec_seeds(corpora: &mut Corpora, name: &str, data: &[u8]) {
    let Ok(slice) = tw::DemoSlice::parse(data) else {
        return;
    };
    let net_version = slice.prelude().header.net_version.to_string_lossy();
    let table = if net_version.starts_with("0.7") {
        1u8
    } else {
        0
    };
    let mut decoder = tw::PayloadDecoder::new();
    let mut snapshot: Option<Vec<i32>> = None;
    let (mut payloads, mut pairs) = (0, 0);
    for item in slice.chunks() {
        let Ok(item) = item else { break };
        let Chunk::Data(chunk) = item.chunk else {
            continue;
        };
        if payloads < PER_DEMO {
            // Selector 3: a 64 KiB output limit, as for chunk payloads.
            let mut seed = vec![3u8];
            seed.extend_from_slice(chunk.payload);
            corpora.put(&["huffman"], &format!("{name}-{payloads}"), &seed);
            let mut plain = Vec::new();
            if demokit::codec::huffman::decompress(chunk.payload, &mut plain, 1 << 16).is_ok() {
                corpora.put(&["varint"], &format!("{name}-{payloads}"), &plain);
            }
            payloads += 1;
        }
        let Ok(decoded) = decoder.decode(chunk.payload) else {
            continue;
        };
        match chunk.kind {
            ChunkKind::Snapshot => snapshot = Some(decoded.ints.to_vec()),
            ChunkKind::SnapshotDelta if pairs < PER_DEMO => {
                if let Some(from) = &snapshot
                    && let Ok(count) = u16::try_from(from.len())
                {
                    let mut seed = vec![table];
                    seed.extend_from_slice(&count.to_le_bytes());
                    for v in from.iter().chain(decoded.ints.iter()) {
                        seed.extend_from_slice(&v.to_le_bytes());
                    }
                    corpora.put(&["snapshot_delta"], &format!("{name}-{pairs}"), &seed);
                    pairs += 1;
                }
            }
            _ => {}
        }
    }
}

/// A Source demo cut to its header plus [`BODY`] bytes of frames and repaired.
fn small_source(data: &[u8]) -> Option<Vec<u8>> {
    let end = (source::format::HEADER_SIZE + BODY).min(data.len());
    let mut bytes = Vec::new();
    source::repair::repair(&data[..end], &source::repair::RepairOptions::default(), &mut bytes)
        .ok()
        .map(|_| bytes)
}

fn main() {
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let shared = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| project.join("../shared"));
    let mut corpora = Corpora {
        root: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus"),
        written: 0,
    };

    let fixtures = project.join("fixtures");
    let mut sources: Vec<PathBuf> = files(&fixtures);
    sources.extend(files(&fixtures.join("malformed")));
    sources.extend(files(&fixtures.join("malformed/fuzz")));
    sources.extend(files(&shared.join("conformance/ddnet-recorder")));
    for dir in ["twdemo", "teehistorian", "source", "negative"] {
        sources.extend(files(&shared.join("real-fixtures").join(dir)));
    }
    if !shared.join("real-fixtures").is_dir() {
        eprintln!(
            "note: {} not found; seeding from fixtures/ only",
            shared.display()
        );
    }

    for path in &sources {
        let data = std::fs::read(path).unwrap();
        let name = name_of(path);
        let name = name.as_str();
        match demokit::detect::detect(&data) {
            Some(demokit::detect::Format::TwDemo) => {
                if data.len() <= BODY * 2 {
                    corpora.put(TW, name, &data);
                } else if let Some(small) = small_demo(&data) {
                    corpora.put(TW, name, &small);
                }
                codec_seeds(&mut corpora, name, &data);
            }
            Some(demokit::detect::Format::Teehistorian) => corpora.put(TH, name, &data),
            Some(demokit::detect::Format::SourceDemo) => {
                if data.len() <= BODY * 2 {
                    corpora.put(SRC, name, &data);
                } else if let Some(small) = small_source(&data) {
                    corpora.put(SRC, name, &small);
                }
            }
            // Other formats and unknown bytes: every reader must refuse them cleanly.
            _ => {
                let head = &data[..data.len().min(BODY)];
                corpora.put(TW, name, head);
                corpora.put(TH, name, head);
                corpora.put(SRC, name, head);
            }
        }
    }
    println!(
        "{} seed files in {}",
        corpora.written,
        corpora.root.display()
    );
}
