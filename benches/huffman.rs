//! Huffman throughput on the chunk streams of real demos, demokit against libtw2.
//!
//! Throughput is counted in bytes of compressed data for both directions, so that the
//! decompress and compress numbers of one file are comparable.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use demokit::codec::huffman::{self, LengthRule};
use libtw2_huffman::instances::TEEWORLDS;

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/shared/real-fixtures/twdemo"
);
const DEMOS: [&str; 3] = [
    "v6_ddnet_client_multeasymap_2020",
    "v6_ddnet_client_rainymore2_2020",
    "v6_ddnet201_server_dm1",
];

/// DDNet's largest chunk payload; also a safe decompression limit here.
const LIMIT: usize = 65536;

/// The UUID-like marker after which a v6 header carries 48 more bytes (the map's SHA-256).
const SHA256_MARKER: [u8; 16] = [
    0x6b, 0xe6, 0xda, 0x4a, 0xce, 0xbd, 0x38, 0x0c, 0x9b, 0x5b, 0x12, 0x89, 0xc8, 0x42, 0xd7, 0x80,
];

/// The payloads of all data chunks of a demo, found with the least parsing that works on the
/// fixtures; the bench must not depend on the crate's own demo reader.
fn chunk_streams(demo: &[u8]) -> Vec<&[u8]> {
    let version = demo[7];
    let mut p = 7 + 1 + 168;
    if version >= 4 {
        p += 260;
    }
    if version == 6 && demo.get(p..p + 16) == Some(&SHA256_MARKER[..]) {
        p += 48;
    }
    let map_size = u32::from_be_bytes(demo[136..140].try_into().unwrap()) as usize;
    p += map_size;
    let mut streams = Vec::new();
    while let Some(&b) = demo.get(p) {
        p += 1;
        if b & 0x80 != 0 {
            let has_delta = if version >= 5 {
                b & 0x20 != 0
            } else {
                b & 0x3f != 0
            };
            if !has_delta {
                p += 4;
            }
            continue;
        }
        let size = match b & 0x1f {
            30 => {
                p += 1;
                usize::from(demo[p - 1])
            }
            31 => {
                p += 2;
                usize::from(u16::from_le_bytes([demo[p - 2], demo[p - 1]]))
            }
            n => usize::from(n),
        };
        let Some(payload) = demo.get(p..p + size) else {
            break;
        };
        streams.push(payload);
        p += size;
    }
    streams
}

fn bench(c: &mut Criterion) {
    for name in DEMOS {
        let demo = std::fs::read(format!("{FIXTURES}/{name}.demo")).expect("fixture");
        let streams = chunk_streams(&demo);
        let decoded: Vec<Vec<u8>> = streams
            .iter()
            .map(|s| {
                let mut out = Vec::new();
                huffman::decompress(s, &mut out, LIMIT).expect("fixture stream decodes");
                out
            })
            .collect();
        let compressed_bytes: usize = streams.iter().map(|s| s.len()).sum();

        let mut group = c.benchmark_group(format!("decompress/{name}"));
        group.throughput(Throughput::Bytes(compressed_bytes as u64));
        group.bench_function("demokit", |b| {
            let mut out = Vec::with_capacity(LIMIT);
            b.iter(|| {
                for s in &streams {
                    out.clear();
                    black_box(huffman::decompress(black_box(s), &mut out, LIMIT).unwrap());
                }
            })
        });
        group.bench_function("libtw2", |b| {
            let mut out = Vec::with_capacity(LIMIT * 8);
            b.iter(|| {
                for s in &streams {
                    out.clear();
                    black_box(TEEWORLDS.decompress(black_box(s), &mut out).unwrap());
                }
            })
        });
        group.finish();

        let mut group = c.benchmark_group(format!("compress/{name}"));
        group.throughput(Throughput::Bytes(compressed_bytes as u64));
        group.bench_function("demokit", |b| {
            let mut out = Vec::with_capacity(LIMIT * 2);
            b.iter(|| {
                for d in &decoded {
                    out.clear();
                    huffman::compress(black_box(d), LengthRule::TrailingByte, &mut out);
                    black_box(&out);
                }
            })
        });
        group.bench_function("libtw2", |b| {
            let mut out = Vec::with_capacity(LIMIT * 3 + 3);
            b.iter(|| {
                for d in &decoded {
                    out.clear();
                    black_box(TEEWORLDS.compress_bug(black_box(d), &mut out).unwrap());
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
