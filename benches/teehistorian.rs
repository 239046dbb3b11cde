//! Teehistorian reading and recording on a large generated recording.
//!
//! A deterministic 64-player server (players moving, inputs changing, chat, console
//! commands and EX records) is recorded once per run with demokit's [`Recorder`] into a
//! file of about 55 MB under the temp dir, read back into memory and removed; nothing is
//! generated inside the timed loops. One group, `teehistorian`:
//!
//! * `parse/demokit`: [`TeehistorianSlice`] over the bytes, every message read and
//!   `black_box`ed. Throughput: file bytes.
//! * `parse/teehistorian-crate`: the `teehistorian` crate's `Th` over the same bytes, every
//!   chunk read to the end and `black_box`ed. Throughput: file bytes.
//! * `record`: [`RECORD_TICKS`] ticks of the same server recorded into a `Vec` (reused) and
//!   into `io::sink()`. Throughput: messages.
//!
//! The message count of the large file is printed so that bytes/s convert to messages/s.
//! Quick run: `cargo bench --bench teehistorian -- --warm-up-time 1 --measurement-time 3`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use demokit::teehistorian::{FlushPolicy, Header, Recorder, TeehistorianSlice};
use std::hint::black_box;
use std::io::Write;

/// Ticks in the large file: about 900 bytes a tick, so about 55 MB.
const FILE_TICKS: i32 = 60_000;

/// Ticks recorded per iteration of the recorder benchmark.
const RECORD_TICKS: i32 = 2_000;

/// Samples for the whole-file benchmarks (each iteration reads ~55 MB).
const SAMPLES: usize = 10;

#[path = "../tests/common/server.rs"]
mod server;
use server::Server;

/// The header of every generated recording.
fn header() -> Header {
    Header {
        map_name: Some("bench".into()),
        ..Header::new("2")
    }
}

/// Records `ticks` ticks of the 64-player server into `sink`; returns the sink.
fn record<W: Write>(sink: W, ticks: i32, policy: FlushPolicy) -> W {
    let mut rec = Recorder::new(sink, &header())
        .unwrap()
        .with_flush_policy(policy);
    let mut server = Server::new(64);
    server.start(&mut rec);
    for tick in 1..=ticks {
        server.tick(&mut rec, tick);
    }
    rec.finish().unwrap()
}

/// Records the large file to the temp dir, reads it back and removes it.
fn large_file() -> Vec<u8> {
    let path =
        std::env::temp_dir().join(format!("demokit-bench-{}.teehistorian", std::process::id()));
    let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
    record(file, FILE_TICKS, FlushPolicy::Never)
        .into_inner()
        .unwrap()
        .sync_all()
        .unwrap();
    let data = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    data
}

/// demokit: every message of the file; returns the count.
fn demokit_parse(data: &[u8]) -> u64 {
    let slice = TeehistorianSlice::parse(data).unwrap();
    let mut n = 0;
    for item in slice.messages() {
        black_box(item.unwrap());
        n += 1;
    }
    n
}

/// The `teehistorian` crate: every chunk of the file up to and including the end of
/// stream; returns the count.
fn crate_parse(data: &[u8]) -> u64 {
    let mut th = teehistorian::Th::parse(data).unwrap();
    black_box(th.header().unwrap());
    let mut n = 0;
    loop {
        let chunk = th.next_chunk().unwrap();
        n += 1;
        if chunk == teehistorian::Chunk::Eos {
            return n;
        }
        black_box(chunk);
    }
}

/// The `teehistorian` group: parse throughput side by side, then recorder throughput.
fn bench(c: &mut Criterion) {
    let data = large_file();
    let messages = demokit_parse(&data);
    assert_eq!(crate_parse(&data), messages);
    eprintln!(
        "large file: {} bytes, {messages} messages ({:.1} bytes/message)",
        data.len(),
        data.len() as f64 / messages as f64
    );
    let record_messages = demokit_parse(&record(Vec::new(), RECORD_TICKS, FlushPolicy::Never));
    eprintln!("record: {RECORD_TICKS} ticks, {record_messages} messages");

    let mut group = c.benchmark_group("teehistorian");
    group.sample_size(SAMPLES);
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.bench_with_input(BenchmarkId::new("parse", "demokit"), &data, |b, d| {
        b.iter(|| demokit_parse(d))
    });
    group.bench_with_input(
        BenchmarkId::new("parse", "teehistorian-crate"),
        &data,
        |b, d| b.iter(|| crate_parse(d)),
    );
    group.sample_size(20);
    group.throughput(Throughput::Elements(record_messages));
    let mut buf = Vec::new();
    group.bench_function(BenchmarkId::new("record", "vec"), |b| {
        b.iter(|| {
            buf.clear();
            let out = record(
                std::mem::take(&mut buf),
                RECORD_TICKS,
                FlushPolicy::EveryTick,
            );
            buf = black_box(out);
        })
    });
    group.bench_function(BenchmarkId::new("record", "io-sink"), |b| {
        b.iter(|| record(std::io::sink(), RECORD_TICKS, FlushPolicy::EveryTick))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
