//! demokit's demo chunk codec against DDNet's own C++ on real DDNet demos from
//! `fixtures/shared/real-fixtures/twdemo`.
//!
//! DDNet's code is not in this repository: `build.rs` compiles its `CHuffman` and
//! `CVariableInt` from the checkout that `DDNET_SRC` names, with our C ABI shim
//! `benches/cpp/ddnet_codec.cpp`, and sets `cfg(ddnet_cpp)`. Without it this benchmark only
//! says how to run it:
//!
//! ```text
//! benches/cpp/fetch-ddnet            # or: benches/cpp/fetch-ddnet <path to a DDNet clone>
//! DDNET_SRC=$PWD/target/ddnet-src cargo bench --bench ddnet_cpp
//! ```
//!
//! * `decode`: every data chunk's stored payload Huffman-decompressed and its ints unpacked.
//!   demokit: [`PayloadDecoder::decode`]. DDNet: what its demo player does per chunk,
//!   `CHuffman::Decompress` then `CVariableInt::Decompress`, into buffers of the player's
//!   size. Throughput is the compressed payload bytes.
//! * `encode`: every data chunk's ints packed and Huffman-compressed. demokit:
//!   [`PayloadEncoder::encode`]. DDNet: what its recorder does per chunk,
//!   `CVariableInt::Compress` then `CHuffman::Compress`. DDNet's coder writes the tight
//!   length rule only (that of DDNet 20.1 and later), so both sides encode every chunk under
//!   [`LengthRule::Tight`], also the chunks stored under the older trailing-byte rule.
//!   Throughput is the compressed output bytes.
//!
//! The payloads are taken out of the demos, and the ints decoded, before anything is timed:
//! the demo container is not part of either side's work. Before measuring, both sides must
//! give the same ints and the same bytes for every chunk. Then each direction prints
//! demokit's speed-up over DDNet's C++ from alternating rounds ([`ratio::Ratio`]), per demo
//! and for all three, and criterion measures each side.

#[cfg(ddnet_cpp)]
mod common;
#[cfg(ddnet_cpp)]
mod ratio;

#[cfg(ddnet_cpp)]
mod ddnet {
    //! Safe wrappers around the shim's C functions.

    use std::ffi::{c_int, c_long, c_void};
    use std::ptr::NonNull;

    /// DDNet's `CHuffman`, only ever behind a pointer.
    #[repr(C)]
    struct CHuffman {
        _opaque: [u8; 0],
    }

    unsafe extern "C" {
        fn ddnet_huffman_new() -> *mut CHuffman;
        fn ddnet_huffman_free(huffman: *mut CHuffman);
        fn ddnet_huffman_compress(
            huffman: *const CHuffman,
            input: *const c_void,
            input_size: c_int,
            output: *mut c_void,
            output_size: c_int,
        ) -> c_int;
        fn ddnet_huffman_decompress(
            huffman: *const CHuffman,
            input: *const c_void,
            input_size: c_int,
            output: *mut c_void,
            output_size: c_int,
        ) -> c_int;
        fn ddnet_varint_compress(
            src: *const c_void,
            src_size: c_int,
            dst: *mut c_void,
            dst_size: c_int,
        ) -> c_long;
        fn ddnet_varint_decompress(
            src: *const c_void,
            src_size: c_int,
            dst: *mut c_void,
            dst_size: c_int,
        ) -> c_long;
    }

    /// DDNet's demo player and recorder buffers: `MAX_SNAPSHOT_SIZE` bytes.
    const BUFFER_BYTES: usize = 65536;

    /// DDNet's chunk codec with the buffers it works in, reused from chunk to chunk as the
    /// player and the recorder reuse theirs.
    pub struct Codec {
        huffman: NonNull<CHuffman>,
        packed: Vec<u8>,
        ints: Vec<i32>,
        out: Vec<u8>,
    }

    impl Codec {
        pub fn new() -> Codec {
            // SAFETY: the function takes no arguments; it returns an initialised coder or
            // null, which `NonNull::new` turns into a panic.
            let huffman = NonNull::new(unsafe { ddnet_huffman_new() }).expect("allocation");
            Codec {
                huffman,
                packed: vec![0; BUFFER_BYTES],
                ints: vec![0; BUFFER_BYTES / 4],
                // Room for any payload DDNet writes (at most 64 KiB) and the 8 bytes of
                // headroom its compressor's fast path writes through.
                out: vec![0; BUFFER_BYTES * 2],
            }
        }

        /// A stored payload's ints, as DDNet's demo player decodes them, or `None` where
        /// DDNet fails.
        pub fn decode(&mut self, payload: &[u8]) -> Option<&[i32]> {
            // SAFETY: `huffman` came from `ddnet_huffman_new` and is freed only on drop; the
            // input pointer and size describe `payload`, the output pointer and size
            // describe `packed`, and DDNet writes only within the sizes it is given.
            let packed = unsafe {
                ddnet_huffman_decompress(
                    self.huffman.as_ptr(),
                    payload.as_ptr().cast(),
                    payload.len().try_into().ok()?,
                    self.packed.as_mut_ptr().cast(),
                    self.packed.len() as c_int,
                )
            };
            let packed = usize::try_from(packed).ok()?;
            // SAFETY: the input is the first `packed` bytes of `packed`, which the call above
            // wrote; the output is `ints`, its size given in bytes as DDNet expects.
            let bytes = unsafe {
                ddnet_varint_decompress(
                    self.packed.as_ptr().cast(),
                    packed as c_int,
                    self.ints.as_mut_ptr().cast(),
                    (self.ints.len() * 4) as c_int,
                )
            };
            Some(&self.ints[..usize::try_from(bytes).ok()? / 4])
        }

        /// `ints` encoded as DDNet's recorder encodes a chunk, or `None` where DDNet fails.
        pub fn encode(&mut self, ints: &[i32]) -> Option<&[u8]> {
            // SAFETY: the input pointer and size (in bytes, as DDNet expects) describe
            // `ints`; the output is `packed`, within whose size DDNet writes.
            let packed = unsafe {
                ddnet_varint_compress(
                    ints.as_ptr().cast(),
                    (ints.len() * 4).try_into().ok()?,
                    self.packed.as_mut_ptr().cast(),
                    self.packed.len() as c_int,
                )
            };
            let packed = usize::try_from(packed).ok()?;
            // SAFETY: `huffman` is live (see `decode`); the input is the first `packed` bytes
            // of `packed`, which the call above wrote; the output is `out`, within whose
            // size DDNet writes.
            let len = unsafe {
                ddnet_huffman_compress(
                    self.huffman.as_ptr(),
                    self.packed.as_ptr().cast(),
                    packed as c_int,
                    self.out.as_mut_ptr().cast(),
                    self.out.len() as c_int,
                )
            };
            Some(&self.out[..usize::try_from(len).ok()?])
        }
    }

    impl Drop for Codec {
        fn drop(&mut self) {
            // SAFETY: `huffman` came from `ddnet_huffman_new` and is freed only here.
            unsafe { ddnet_huffman_free(self.huffman.as_ptr()) }
        }
    }
}

#[cfg(ddnet_cpp)]
mod bench {
    use super::common::load;
    use super::ddnet::Codec;
    use super::ratio::Ratio;
    use criterion::{BenchmarkId, Criterion, Throughput};
    use demokit::codec::huffman::LengthRule;
    use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, PayloadDecoder, PayloadEncoder};
    use std::hint::black_box;

    /// Samples per benchmark; a pass over all three demos takes tens of milliseconds.
    const SAMPLES: usize = 30;

    /// One data chunk (type 0, which holds no ints, left out).
    struct Payload {
        /// The stored bytes.
        stored: Vec<u8>,
        /// Its ints.
        ints: Vec<i32>,
        /// Whether it is stored under the tight length rule, DDNet's.
        tight: bool,
    }

    /// A demo's data chunks.
    struct Demo {
        label: &'static str,
        chunks: Vec<Payload>,
        /// All data chunks' payload bytes, type 0 included.
        payload_bytes: u64,
    }

    impl Demo {
        fn stored_bytes(&self) -> u64 {
            self.chunks.iter().map(|c| c.stored.len() as u64).sum()
        }
    }

    fn demos() -> Option<Vec<Demo>> {
        let mut decoder = PayloadDecoder::new();
        let demos = load()?
            .into_iter()
            .map(|demo| {
                let mut chunks = Vec::new();
                for chunk in DemoSlice::parse(&demo.data).unwrap().chunks() {
                    if let Chunk::Data(d) = chunk.unwrap().chunk
                        && d.kind != ChunkKind::Unknown
                    {
                        let decoded = decoder.decode(d.payload).unwrap();
                        chunks.push(Payload {
                            stored: d.payload.to_vec(),
                            ints: decoded.ints.to_vec(),
                            tight: decoded.length_rule(d.payload.len()) == Some(LengthRule::Tight),
                        });
                    }
                }
                Demo {
                    label: demo.label,
                    chunks,
                    payload_bytes: demo.payload_bytes,
                }
            })
            .collect();
        Some(demos)
    }

    /// demokit's decoding of a demo's chunks; returns the number of ints, so that the work
    /// cannot be optimised away.
    fn demokit_decode(demo: &Demo, decoder: &mut PayloadDecoder) -> u64 {
        (demo.chunks.iter())
            .map(|c| decoder.decode(black_box(&c.stored)).unwrap().ints.len() as u64)
            .sum()
    }

    fn ddnet_decode(demo: &Demo, codec: &mut Codec) -> u64 {
        (demo.chunks.iter())
            .map(|c| codec.decode(black_box(&c.stored)).unwrap().len() as u64)
            .sum()
    }

    /// demokit's encoding of a demo's chunks under DDNet's rule; returns the output bytes.
    fn demokit_encode(demo: &Demo, encoder: &mut PayloadEncoder) -> u64 {
        (demo.chunks.iter())
            .map(|c| encoder.encode(black_box(&c.ints), LengthRule::Tight).len() as u64)
            .sum()
    }

    fn ddnet_encode(demo: &Demo, codec: &mut Codec) -> u64 {
        (demo.chunks.iter())
            .map(|c| codec.encode(black_box(&c.ints)).unwrap().len() as u64)
            .sum()
    }

    /// Both sides must do the same work: the same ints from every payload, and the same bytes
    /// from every chunk's ints (the stored bytes, where the chunk was stored by DDNet's rule).
    fn check_same_output(demos: &[Demo], codec: &mut Codec) {
        let (mut decoder, mut encoder) = (PayloadDecoder::new(), PayloadEncoder::new());
        for demo in demos {
            let mut trailing_byte = 0;
            for (i, chunk) in demo.chunks.iter().enumerate() {
                let ours = decoder.decode(&chunk.stored).unwrap().ints;
                assert_eq!(
                    Some(ours),
                    codec.decode(&chunk.stored),
                    "{} chunk {i}",
                    demo.label
                );
                let ours = encoder.encode(&chunk.ints, LengthRule::Tight);
                assert_eq!(
                    Some(ours),
                    codec.encode(&chunk.ints),
                    "{} chunk {i}",
                    demo.label
                );
                if chunk.tight {
                    assert_eq!(ours, chunk.stored, "{} chunk {i}", demo.label);
                } else {
                    trailing_byte += 1;
                }
            }
            eprintln!(
                "{}: {} chunks ({} of {} payload bytes) decode and encode to the same ints \
                 and bytes in demokit and DDNet's C++; {trailing_byte} of them are stored \
                 under the older trailing-byte rule and encoded here under DDNet's tight one",
                demo.label,
                demo.chunks.len(),
                demo.stored_bytes(),
                demo.payload_bytes,
            );
        }
    }

    pub fn decode(c: &mut Criterion) {
        let Some(demos) = demos() else {
            return;
        };
        let mut codec = Codec::new();
        check_same_output(&demos, &mut codec);
        let mut decoder = PayloadDecoder::new();
        for demo in &demos {
            Ratio::measure(
                || demokit_decode(demo, &mut decoder),
                || ddnet_decode(demo, &mut codec),
            )
            .print(&format!("decode/demokit vs DDNet C++/{}", demo.label));
        }
        Ratio::measure(
            || demos.iter().map(|d| demokit_decode(d, &mut decoder)).sum(),
            || demos.iter().map(|d| ddnet_decode(d, &mut codec)).sum(),
        )
        .print("decode/demokit vs DDNet C++/all");

        // Not "decode": `benches/twdemo.rs` has that group, whose demokit side also parses
        // the demo container.
        let mut group = c.benchmark_group("chunk_decode");
        group.sample_size(SAMPLES);
        for demo in &demos {
            group.throughput(Throughput::Bytes(demo.stored_bytes()));
            group.bench_function(BenchmarkId::new("demokit", demo.label), |b| {
                b.iter(|| demokit_decode(demo, &mut decoder))
            });
            group.bench_function(BenchmarkId::new("ddnet_cpp", demo.label), |b| {
                b.iter(|| ddnet_decode(demo, &mut codec))
            });
        }
        group.throughput(Throughput::Bytes(
            demos.iter().map(Demo::stored_bytes).sum(),
        ));
        group.bench_function(BenchmarkId::new("demokit", "all"), |b| {
            b.iter(|| {
                (demos.iter())
                    .map(|d| demokit_decode(d, &mut decoder))
                    .sum::<u64>()
            })
        });
        group.bench_function(BenchmarkId::new("ddnet_cpp", "all"), |b| {
            b.iter(|| {
                (demos.iter())
                    .map(|d| ddnet_decode(d, &mut codec))
                    .sum::<u64>()
            })
        });
        group.finish();
    }

    pub fn encode(c: &mut Criterion) {
        let Some(demos) = demos() else {
            return;
        };
        let mut codec = Codec::new();
        let mut encoder = PayloadEncoder::new();
        for demo in &demos {
            Ratio::measure(
                || demokit_encode(demo, &mut encoder),
                || ddnet_encode(demo, &mut codec),
            )
            .print(&format!("encode/demokit vs DDNet C++/{}", demo.label));
        }
        Ratio::measure(
            || demos.iter().map(|d| demokit_encode(d, &mut encoder)).sum(),
            || demos.iter().map(|d| ddnet_encode(d, &mut codec)).sum(),
        )
        .print("encode/demokit vs DDNet C++/all");

        let mut group = c.benchmark_group("chunk_encode");
        group.sample_size(SAMPLES);
        for demo in &demos {
            let output_bytes = demokit_encode(demo, &mut encoder);
            group.throughput(Throughput::Bytes(output_bytes));
            group.bench_function(BenchmarkId::new("demokit", demo.label), |b| {
                b.iter(|| demokit_encode(demo, &mut encoder))
            });
            group.bench_function(BenchmarkId::new("ddnet_cpp", demo.label), |b| {
                b.iter(|| ddnet_encode(demo, &mut codec))
            });
        }
        let output_bytes = demos.iter().map(|d| demokit_encode(d, &mut encoder)).sum();
        group.throughput(Throughput::Bytes(output_bytes));
        group.bench_function(BenchmarkId::new("demokit", "all"), |b| {
            b.iter(|| {
                (demos.iter())
                    .map(|d| demokit_encode(d, &mut encoder))
                    .sum::<u64>()
            })
        });
        group.bench_function(BenchmarkId::new("ddnet_cpp", "all"), |b| {
            b.iter(|| {
                (demos.iter())
                    .map(|d| ddnet_encode(d, &mut codec))
                    .sum::<u64>()
            })
        });
        group.finish();
    }
}

#[cfg(ddnet_cpp)]
criterion::criterion_group!(benches, bench::decode, bench::encode);
#[cfg(ddnet_cpp)]
criterion::criterion_main!(benches);

#[cfg(not(ddnet_cpp))]
fn main() {
    eprintln!(
        "ddnet_cpp: DDNet's C++ codec is not built in. To compare with it: \
         `benches/cpp/fetch-ddnet` (or `benches/cpp/fetch-ddnet <DDNet clone>`), then \
         `DDNET_SRC=$PWD/target/ddnet-src cargo bench --bench ddnet_cpp`"
    );
}
