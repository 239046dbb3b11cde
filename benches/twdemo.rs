//! demokit against libtw2 on real DDNet demos from `fixtures/shared/real-fixtures/twdemo`.
//!
//! * `decode`: every chunk of a demo read and every data chunk decoded to ints. demokit:
//!   [`DemoSlice`], its chunks and [`PayloadDecoder::decode`]. libtw2: `Reader::read_chunk`
//!   until the end, plus libtw2_packer unpacking the snapshot and delta bytes (libtw2's reader
//!   leaves those packed and unpacks only messages), so that both produce the same ints.
//!   Throughput is the compressed chunk payload bytes of the demo.
//! * `encode`: every data chunk of the three demos encoded again from its ints under the
//!   Huffman length rule it was stored with. demokit: [`PayloadEncoder::encode`]. libtw2:
//!   libtw2_packer's int packing, then libtw2_huffman (`compress` for the tight rule,
//!   `compress_bug` for the trailing-byte rule). Throughput is the compressed output bytes.
//!
//! Each group first prints demokit's speed-up over libtw2 from alternating rounds
//! ([`ratio::Ratio`]: median and quartiles), per demo and for all three.
//!
//! The files are loaded, and the inputs prepared, outside the timed loops. Without
//! `fixtures/shared` there is nothing to measure and the benchmark says so.

mod common;
mod ratio;

use common::{Loaded, load};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use demokit::codec::huffman::LengthRule;
use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, PayloadDecoder, PayloadEncoder};
use libtw2_demo::{RawChunk, Reader, Warning};
use ratio::Ratio;
use std::hint::black_box;
use std::io::Cursor;

/// Samples per benchmark. A whole-file run takes up to about 60 ms, so criterion's default
/// of 100 would not fit a measurement time of a few seconds.
const SAMPLES: usize = 30;

/// demokit: parses the demo and decodes every data chunk; returns the number of ints, so
/// that the work cannot be optimised away.
fn demokit_decode(data: &[u8], decoder: &mut PayloadDecoder) -> usize {
    let slice = DemoSlice::parse(data).unwrap();
    let mut ints = 0;
    for chunk in slice.chunks() {
        if let Chunk::Data(d) = chunk.unwrap().chunk
            && d.kind != ChunkKind::Unknown
        {
            ints += decoder.decode(d.payload).unwrap().ints.len();
        }
    }
    ints
}

/// libtw2's reader over one demo, with the buffers its decoding reuses.
///
/// `Reader::new` copies the embedded map (up to 2 MB here), which is not chunk decoding, so
/// the reader is made once and each run seeks back to the first chunk (`Reader::seek` also
/// resets its tick state).
struct Libtw2Decoder<'a> {
    reader: Reader<'a>,
    chunks_start: u64,
    warnings: Vec<Warning>,
    packer_warnings: Vec<libtw2_packer::Warning>,
    ints: Vec<i32>,
}

impl<'a> Libtw2Decoder<'a> {
    fn new(data: &'a [u8]) -> Self {
        let mut warnings = Vec::new();
        let mut reader = Reader::new(Cursor::new(data), &mut warnings).unwrap();
        let chunks_start = reader.stream_position().unwrap();
        Libtw2Decoder {
            reader,
            chunks_start,
            warnings,
            packer_warnings: Vec::new(),
            ints: Vec::new(),
        }
    }

    /// Reads every chunk and unpacks snapshots and deltas to ints; returns the number of
    /// ints, messages included (libtw2 has unpacked those to 4-byte words already).
    fn decode(&mut self) -> usize {
        self.reader.seek(self.chunks_start).unwrap();
        self.warnings.clear();
        let mut ints = 0;
        while let Some(chunk) = self.reader.read_chunk(&mut self.warnings).unwrap() {
            match chunk {
                RawChunk::Snapshot(packed) | RawChunk::SnapshotDelta(packed) => {
                    self.ints.clear();
                    let mut unpacker = libtw2_packer::Unpacker::new(packed);
                    while !unpacker.is_empty() {
                        let int = unpacker.read_int(&mut self.packer_warnings).unwrap();
                        self.ints.push(int);
                    }
                    ints += self.ints.len();
                }
                RawChunk::Message(words) => ints += words.len() / 4,
                RawChunk::Tick { .. } | RawChunk::Unknown => {}
            }
        }
        ints
    }
}

fn decode(c: &mut Criterion) {
    let Some(demos) = load() else {
        return;
    };
    let mut group = c.benchmark_group("decode");
    group.sample_size(SAMPLES);
    let mut decoder = PayloadDecoder::new();
    let mut libtw2: Vec<Libtw2Decoder> =
        demos.iter().map(|d| Libtw2Decoder::new(&d.data)).collect();
    // Both must do the same work: the same number of ints from every demo.
    for (demo, l) in demos.iter().zip(&mut libtw2) {
        assert_eq!(
            demokit_decode(&demo.data, &mut decoder),
            l.decode(),
            "{}",
            demo.label
        );
    }
    for (demo, l) in demos.iter().zip(&mut libtw2) {
        Ratio::measure(
            || demokit_decode(black_box(&demo.data), &mut decoder) as u64,
            || l.decode() as u64,
        )
        .print(&format!("decode/demokit vs libtw2/{}", demo.label));
    }
    Ratio::measure(
        || {
            (demos.iter())
                .map(|d| demokit_decode(black_box(&d.data), &mut decoder) as u64)
                .sum()
        },
        || libtw2.iter_mut().map(|l| l.decode() as u64).sum(),
    )
    .print("decode/demokit vs libtw2/all");
    for (demo, l) in demos.iter().zip(&mut libtw2) {
        group.throughput(Throughput::Bytes(demo.payload_bytes));
        group.bench_function(BenchmarkId::new("demokit", demo.label), |b| {
            b.iter(|| demokit_decode(black_box(&demo.data), &mut decoder))
        });
        group.bench_function(BenchmarkId::new("libtw2", demo.label), |b| {
            b.iter(|| l.decode())
        });
    }
    group.throughput(Throughput::Bytes(
        demos.iter().map(|d| d.payload_bytes).sum(),
    ));
    group.bench_function(BenchmarkId::new("demokit", "all"), |b| {
        b.iter(|| {
            demos
                .iter()
                .map(|d| demokit_decode(black_box(&d.data), &mut decoder))
                .sum::<usize>()
        })
    });
    group.bench_function(BenchmarkId::new("libtw2", "all"), |b| {
        b.iter(|| libtw2.iter_mut().map(Libtw2Decoder::decode).sum::<usize>())
    });
    group.finish();
}

/// A data chunk to encode: its ints and the length rule it was stored with.
struct ToEncode {
    ints: Vec<i32>,
    rule: LengthRule,
}

/// Decodes every data chunk of `demos` (type 0 has no ints and is left out).
fn chunks_to_encode(demos: &[Loaded]) -> Vec<ToEncode> {
    let mut decoder = PayloadDecoder::new();
    let mut out = Vec::new();
    for demo in demos {
        for chunk in DemoSlice::parse(&demo.data).unwrap().chunks() {
            if let Chunk::Data(d) = chunk.unwrap().chunk
                && d.kind != ChunkKind::Unknown
            {
                let decoded = decoder.decode(d.payload).unwrap();
                out.push(ToEncode {
                    ints: decoded.ints.to_vec(),
                    rule: decoded.length_rule(d.payload.len()).unwrap(),
                });
            }
        }
    }
    out
}

/// libtw2's encoding of one chunk: pack the ints with libtw2_packer, then Huffman-code them
/// with libtw2_huffman under `rule`. `packed` and `out` are reused; libtw2 writes only into
/// a `Vec`'s spare capacity, so both are given enough first (a no-op once they have grown).
fn libtw2_encode<'o>(
    ints: &[i32],
    rule: LengthRule,
    packed: &mut Vec<u8>,
    out: &'o mut Vec<u8>,
) -> &'o [u8] {
    packed.clear();
    packed.reserve(ints.len() * 5);
    libtw2_packer::with_packer(&mut *packed, |mut p| {
        for &int in ints {
            p.write_int(int).unwrap();
        }
    });
    out.clear();
    // The longest Teeworlds Huffman code is under 24 bits: at most 3 bytes per symbol.
    out.reserve(packed.len() * 3 + 3);
    let huffman = &libtw2_huffman::instances::TEEWORLDS;
    match rule {
        LengthRule::Tight => huffman.compress(packed, out),
        LengthRule::TrailingByte => huffman.compress_bug(packed, out),
    }
    .unwrap()
}

fn encode(c: &mut Criterion) {
    let Some(demos) = load() else {
        return;
    };
    let chunks = chunks_to_encode(&demos);
    let mut encoder = PayloadEncoder::new();
    let (mut packed, mut out) = (Vec::new(), Vec::new());
    // Both must produce the same bytes, which are the stored payloads.
    let mut output_bytes = 0;
    for chunk in &chunks {
        let demokit = encoder.encode(&chunk.ints, chunk.rule);
        let libtw2 = libtw2_encode(&chunk.ints, chunk.rule, &mut packed, &mut out);
        assert_eq!(demokit, libtw2);
        output_bytes += demokit.len() as u64;
    }
    let total_payload: u64 = demos.iter().map(|d| d.payload_bytes).sum();
    assert_eq!(output_bytes, total_payload);

    Ratio::measure(
        || {
            (chunks.iter())
                .map(|c| encoder.encode(black_box(&c.ints), c.rule).len() as u64)
                .sum()
        },
        || {
            (chunks.iter())
                .map(|c| {
                    libtw2_encode(black_box(&c.ints), c.rule, &mut packed, &mut out).len() as u64
                })
                .sum()
        },
    )
    .print("encode/demokit vs libtw2/all");
    let mut group = c.benchmark_group("encode");
    group.sample_size(SAMPLES);
    group.throughput(Throughput::Bytes(output_bytes));
    group.bench_function(BenchmarkId::new("demokit", "all"), |b| {
        b.iter(|| {
            chunks
                .iter()
                .map(|c| encoder.encode(black_box(&c.ints), c.rule).len())
                .sum::<usize>()
        })
    });
    group.bench_function(BenchmarkId::new("libtw2", "all"), |b| {
        b.iter(|| {
            chunks
                .iter()
                .map(|c| libtw2_encode(black_box(&c.ints), c.rule, &mut packed, &mut out).len())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, decode, encode);
criterion_main!(benches);
