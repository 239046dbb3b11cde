//! Source demo container scan on the four real files of `fixtures/shared/real-fixtures/source`.
//!
//! One group, `scan`, with the throughput in file bytes, for each file and for all four
//! together (`all`):
//!
//! * `slice`: [`SourceSlice::parse`] (stamp, header, profile) and every frame of the file
//!   cut off by its iterator and counted as `demokit info` does (frames by command, payload
//!   bytes, last tick; the result is `black_box`ed).
//! * `stream`: the same with [`SourceReader`] over the bytes as a `Read` (which copies
//!   them into its buffer).
//! * `memcpy`: a plain copy of the same bytes into a preallocated buffer
//!   (`dst.copy_from_slice(src)`, `black_box`ed): the reference for how fast a pass over
//!   the bytes can be.
//!
//! The files are loaded outside the timed loops; without them the benchmark panics saying
//! where it looked. Quick run:
//! `cargo bench --bench source -- --warm-up-time 1 --measurement-time 3`.

mod ratio;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use demokit::source::{Frame, SourceReader, SourceSlice};
use ratio::Ratio;
use std::hint::black_box;
use std::path::PathBuf;

/// A real demo loaded for the benchmarks.
struct Loaded {
    label: String,
    data: Vec<u8>,
}

/// The real Source demos, sorted by name; panics when they are not there.
fn load() -> Vec<Loaded> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/shared/real-fixtures/source");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "the Source benchmark reads the real demos in {}: {e}",
            dir.display()
        )
    });
    let mut files: Vec<Loaded> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dem"))
        .map(|p| Loaded {
            label: p.file_stem().unwrap().to_string_lossy().into_owned(),
            data: std::fs::read(&p).unwrap(),
        })
        .collect();
    assert!(!files.is_empty(), "no .dem files in {}", dir.display());
    files.sort_by(|a, b| a.label.cmp(&b.label));
    files
}

/// What a container scan computes, as `demokit info` does: frames by command, payload
/// bytes and the last tick. Every frame's command, tick and payload are used, so no part of
/// cutting it can be optimised away; the frame itself is not copied out again.
#[derive(Default)]
struct Scan {
    counts: [u64; 9],
    payload: usize,
    last_tick: i32,
}

impl Scan {
    #[inline(always)]
    fn add(&mut self, frame: &Frame<'_>) {
        self.counts[frame.command() as usize] += 1;
        self.payload += frame.payload().len();
        self.last_tick = frame.tick;
    }
}

/// Parses `data` and cuts every frame into a [`Scan`].
fn scan_slice(data: &[u8]) -> Scan {
    let slice = SourceSlice::parse(data).unwrap();
    let mut scan = Scan::default();
    for item in slice.frames() {
        scan.add(&item.unwrap().frame);
    }
    scan
}

/// The same with the streaming reader over `data`.
fn scan_stream(data: &[u8]) -> Scan {
    let mut reader = SourceReader::new(data).unwrap();
    let mut scan = Scan::default();
    while let Some(item) = reader.next() {
        scan.add(&item.unwrap().frame);
    }
    scan
}

fn scan(c: &mut Criterion) {
    let files = load();
    for f in &files {
        let (a, b) = (scan_slice(&f.data), scan_stream(&f.data));
        assert_eq!(a.counts, b.counts, "{}", f.label);
        assert_eq!(
            (a.payload, a.last_tick),
            (b.payload, b.last_tick),
            "{}",
            f.label
        );
    }
    let mut dst = vec![0u8; files.iter().map(|f| f.data.len()).max().unwrap()];
    let copy_all = |dst: &mut [u8]| {
        for f in &files {
            let dst = &mut dst[..f.data.len()];
            dst.copy_from_slice(black_box(&f.data));
            black_box(dst);
        }
        1
    };
    Ratio::measure(
        || {
            files
                .iter()
                .map(|f| scan_slice(&f.data).payload as u64)
                .sum()
        },
        || copy_all(&mut dst),
    )
    .print("Source slice scan, all files, vs memcpy of the same bytes");
    Ratio::measure(
        || {
            files
                .iter()
                .map(|f| scan_stream(&f.data).payload as u64)
                .sum()
        },
        || {
            files
                .iter()
                .map(|f| scan_slice(&f.data).payload as u64)
                .sum()
        },
    )
    .print("Source streaming scan vs the slice scan (goal >= 0.77, within 1.3x)");
    let mut group = c.benchmark_group("scan");
    for f in &files {
        group.throughput(Throughput::Bytes(f.data.len() as u64));
        group.bench_function(BenchmarkId::new("slice", &f.label), |b| {
            b.iter(|| scan_slice(black_box(&f.data)))
        });
        group.bench_function(BenchmarkId::new("stream", &f.label), |b| {
            b.iter(|| scan_stream(black_box(&f.data)))
        });
        group.bench_function(BenchmarkId::new("memcpy", &f.label), |b| {
            b.iter(|| {
                let dst = &mut dst[..f.data.len()];
                dst.copy_from_slice(black_box(&f.data));
                black_box(dst);
            })
        });
    }
    group.throughput(Throughput::Bytes(
        files.iter().map(|f| f.data.len() as u64).sum(),
    ));
    group.bench_function(BenchmarkId::new("slice", "all"), |b| {
        b.iter(|| {
            files
                .iter()
                .map(|f| scan_slice(black_box(&f.data)).payload)
                .sum::<usize>()
        })
    });
    group.bench_function(BenchmarkId::new("stream", "all"), |b| {
        b.iter(|| {
            files
                .iter()
                .map(|f| scan_stream(black_box(&f.data)).payload)
                .sum::<usize>()
        })
    });
    group.bench_function(BenchmarkId::new("memcpy", "all"), |b| {
        b.iter(|| {
            for f in &files {
                let dst = &mut dst[..f.data.len()];
                dst.copy_from_slice(black_box(&f.data));
                black_box(dst);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, scan);
criterion_main!(benches);
