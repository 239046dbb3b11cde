//! Compressed recordings: the pure-Rust codecs demokit reads them with against the C
//! libraries, and what reading a compressed archive costs `export`.
//!
//! The recording: the generated teehistorian of a 64-player server
//! (`tests/common/server.rs`, 20,000 ticks, about 18 MB), compressed by the C reference
//! encoders (zlib's format through flate2 at level 6, zstd 3 with its checksum, xz 6,
//! bzip2 9).
//!
//! * `decompress/<codec>/rust`: the pure-Rust decoder (flate2 on miniz_oxide, ruzstd,
//!   lzma-rust2, bzip2 on libbz2-rs-sys), read to its end; `decompress/<codec>/c`: the C
//!   library (zstd through the `zstd` crate, xz through `liblzma`; gzip and bzip2 through
//!   the system's `gzip -dc` and `bzip2 -dc`, the C implementations, as a process writing
//!   into a pipe that is read to its end: a process start is a millisecond against the
//!   hundreds the decompression takes); `decompress/<codec>/demokit`: the decoder demokit
//!   chose ([`demokit::compressed::decoder`], with its checks). Throughput: decompressed
//!   bytes.
//! * `export/<plain|codec>`: [`Exporter::add_recording`] of the recording from a file,
//!   plain and compressed each way, every table. Throughput: recording bytes.

#[path = "../tests/common/server.rs"]
#[allow(dead_code)]
mod server;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use demokit::compressed::{Codec, decoder};
use demokit::export::{Exporter, Table};
use demokit::recording::Recording;
use demokit::teehistorian::FlushPolicy;
use std::hint::black_box;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Ticks of the recording: about 18 MB.
const TICKS: i32 = 20_000;

/// `data` compressed with `codec` by its C reference encoder (flate2 for gzip).
fn compress(codec: Codec, data: &[u8]) -> Vec<u8> {
    match codec {
        Codec::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Codec::Zstd => {
            let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
            e.include_checksum(true).unwrap();
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Codec::Xz => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Codec::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        other => panic!("no encoder for {other}"),
    }
}

/// Bytes `reader` gives to its end.
fn drain(mut reader: impl Read) -> u64 {
    std::io::copy(&mut reader, &mut std::io::sink()).unwrap()
}

/// Decompresses `data` with the pure-Rust decoder of `codec`.
fn rust_decompress(codec: Codec, data: &[u8]) -> u64 {
    match codec {
        Codec::Gzip => drain(flate2::read::MultiGzDecoder::new(data)),
        Codec::Zstd => drain(ruzstd::decoding::StreamingDecoder::new(data).unwrap()),
        Codec::Xz => drain(lzma_rust2::XzReader::new(data, true)),
        Codec::Bzip2 => drain(bzip2::read::MultiBzDecoder::new(data)),
        other => panic!("no decoder for {other}"),
    }
}

/// Decompresses the file at `path` with the C implementation of `codec`; the bytes
/// decompressed, or `None` where there is none to run.
fn c_decompress(codec: Codec, data: &[u8], path: &Path) -> Option<u64> {
    match codec {
        Codec::Zstd => Some(drain(zstd::Decoder::new(data).unwrap())),
        Codec::Xz => Some(drain(liblzma::read::XzDecoder::new_multi_decoder(data))),
        Codec::Gzip | Codec::Bzip2 => {
            let tool = if codec == Codec::Gzip {
                "gzip"
            } else {
                "bzip2"
            };
            let mut child = Command::new(tool)
                .arg("-dc")
                .arg(path)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .ok()?;
            let n = drain(child.stdout.take().unwrap());
            child.wait().ok()?.success().then_some(n)
        }
        _ => None,
    }
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("demokit-bench-compressed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut plain = Vec::new();
    server::record_generated(&mut plain, TICKS, FlushPolicy::Never);
    let plain_path = dir.join("generated.teehistorian");
    std::fs::write(&plain_path, &plain).unwrap();
    let len = plain.len() as u64;
    let mut files: Vec<(Codec, Vec<u8>, PathBuf)> = Vec::new();
    for codec in Codec::ALL {
        let packed = compress(codec, &plain);
        let path = dir.join(format!("generated.teehistorian.{}", codec.extension()));
        std::fs::write(&path, &packed).unwrap();
        println!(
            "{codec}: {len} bytes compressed to {} ({:.1} %)",
            packed.len(),
            100.0 * packed.len() as f64 / len as f64
        );
        files.push((codec, packed, path));
    }

    let mut group = c.benchmark_group("decompress");
    group.throughput(Throughput::Bytes(len));
    group.sample_size(10);
    for (codec, packed, path) in &files {
        group.bench_function(BenchmarkId::new(codec.name(), "demokit"), |b| {
            b.iter(|| assert_eq!(drain(decoder(*codec, black_box(packed.as_slice()))), len))
        });
        group.bench_function(BenchmarkId::new(codec.name(), "rust"), |b| {
            b.iter(|| assert_eq!(rust_decompress(*codec, black_box(packed)), len))
        });
        if c_decompress(*codec, packed, path) == Some(len) {
            group.bench_function(BenchmarkId::new(codec.name(), "c"), |b| {
                b.iter(|| c_decompress(*codec, black_box(packed), path))
            });
        } else {
            println!("{codec}: no C decoder to run");
        }
    }
    group.finish();

    let mut group = c.benchmark_group("export");
    group.throughput(Throughput::Bytes(len));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    let export = |path: &Path| {
        let recording = Recording::open(path).unwrap();
        let mut exporter = Exporter::new();
        let mut rows = 0usize;
        let mut sink = |_: Table, batch: arrow_array::RecordBatch| rows += batch.num_rows();
        exporter.add_recording("generated", None, &recording, &mut sink);
        exporter.finish(&mut sink);
        rows
    };
    group.bench_function("plain", |b| b.iter(|| export(black_box(&plain_path))));
    for (codec, _, path) in &files {
        group.bench_function(codec.name(), |b| b.iter(|| export(black_box(path))));
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
