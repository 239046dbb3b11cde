//! Teehistorian reading and recording on a large generated recording.
//!
//! A deterministic 64-player server (players moving, inputs changing, chat, console
//! commands and EX records) is recorded once per run with demokit's [`Recorder`] into a
//! file of about 55 MB under the temp dir, read back into memory and removed; nothing is
//! generated inside the timed loops. One group, `teehistorian`:
//!
//! * `parse/demokit`: [`TeehistorianSlice`] over the bytes, every message read and
//!   `black_box`ed. Throughput: file bytes.
//! * `parse/demokit-stream`: the same with [`TeehistorianReader`] over the bytes as a `Read`.
//! * `parse/teehistorian-crate`: the `teehistorian` crate's `Th` over the same bytes, every
//!   chunk read to the end and `black_box`ed. Throughput: file bytes.
//! * `fold/demokit`, `fold/teehistorian-crate`: every message read and the ints of the
//!   position, input and tick-skip messages folded into a checksum, the same for both (and
//!   checked equal before timing): what an analysis pass does with the messages.
//! * `record`: [`RECORD_TICKS`] ticks of the same server recorded into a `Vec` (reused) and
//!   into `io::sink()`. Throughput: messages.
//!
//! The message count of the large file is printed so that bytes/s convert to messages/s.
//! Quick run: `cargo bench --bench teehistorian -- --warm-up-time 1 --measurement-time 3`.
//!
//! A second group, `info`, measures what `demokit info` does against the library's plain
//! parse on the real teehistorian files of `fixtures/shared/real-fixtures` (skipped, with the
//! reason printed, when that directory is missing), side by side per file, each from bytes
//! in memory:
//!
//! * `info/parse-stream/FILE`: [`TeehistorianReader`] over a `BufReader` of the bytes,
//!   every message `black_box`ed: the reader `info` streams with.
//! * `info/summary-stream/FILE`: [`Summary::scan_reader`] over the same: what `info` does
//!   (its file is streamed the same way).
//! * `info/parse-slice/FILE`, `info/summary-slice/FILE`: the same with
//!   [`TeehistorianSlice`] and [`Summary::scan`].
//!
//! Run it alone with `cargo bench --bench teehistorian -- info` (the large file of the
//! first group is still generated, a few seconds). The ratio of a summary's throughput to
//! its parse's is what `info` keeps of the library's speed; since criterion times one
//! benchmark after the other and this machine's speed drifts, the group first prints that
//! ratio from runs that alternate the two (median and quartiles of 31 rounds).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use demokit::teehistorian::{FlushPolicy, Summary, TeehistorianReader, TeehistorianSlice};
use std::hint::black_box;

/// Ticks recorded per iteration of the recorder benchmark.
const RECORD_TICKS: i32 = 2_000;

/// Samples for the whole-file benchmarks (each iteration reads ~55 MB).
const SAMPLES: usize = 10;

mod ratio;
#[path = "../tests/common/server.rs"]
mod server;
use ratio::Ratio;
use server::{large_generated as large_file, record_generated as record};

/// What a consumer of the messages computes: a count, and a checksum over the fields of
/// the messages a replay or analysis tool reads (positions, inputs, tick skips), so that
/// neither reader's decoding of those fields can be optimised away. Both readers must give
/// the same value.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Fold {
    messages: u64,
    checksum: u64,
}

impl Fold {
    #[inline(always)]
    fn add(&mut self, ints: &[i32]) {
        for &v in ints {
            self.checksum = self.checksum.rotate_left(5) ^ (v as u32 as u64);
        }
    }

    /// Folds the ints of a position, input or tick-skip message (what the crate's side
    /// folds of its chunks).
    #[inline(always)]
    fn message(&mut self, message: &demokit::teehistorian::Message<'_>) {
        use demokit::teehistorian::Message;
        match *message {
            Message::PlayerDiff { cid, dx, dy } => self.add(&[cid, dx, dy]),
            Message::PlayerNew { cid, x, y } => self.add(&[cid, x, y]),
            Message::InputDiff { cid, diff } => {
                self.add(&[cid]);
                self.add(&diff);
            }
            Message::InputNew { cid, input } => {
                self.add(&[cid]);
                self.add(&input);
            }
            Message::TickSkip { dt } => self.add(&[dt]),
            _ => {}
        }
    }
}

/// demokit: every message of the file, each `black_box`ed; returns the count.
fn demokit_parse(data: &[u8]) -> u64 {
    let slice = TeehistorianSlice::parse(data).unwrap();
    let mut n = 0;
    for item in slice.messages() {
        black_box(item.unwrap());
        n += 1;
    }
    n
}

/// demokit's lending [`next_ref`](demokit::teehistorian::Messages::next_ref): every
/// message `black_box`ed where the reader keeps it; returns the count.
fn demokit_parse_lent(data: &[u8]) -> u64 {
    let slice = TeehistorianSlice::parse(data).unwrap();
    let mut messages = slice.messages();
    let mut n = 0;
    while let Some(item) = messages.next_ref() {
        black_box(item.unwrap());
        n += 1;
    }
    n
}

/// [`demokit_fold`] through the lending `next_ref`.
fn demokit_fold_lent(data: &[u8]) -> Fold {
    let slice = TeehistorianSlice::parse(data).unwrap();
    let mut messages = slice.messages();
    let mut fold = Fold::default();
    while let Some(item) = messages.next_ref() {
        fold.messages += 1;
        fold.message(&item.unwrap().message);
    }
    fold
}

/// demokit's streaming reader over the bytes as a `Read`: every message `black_box`ed;
/// returns the count.
fn demokit_stream(data: &[u8]) -> u64 {
    let mut reader = TeehistorianReader::new(data).unwrap();
    let mut n = 0;
    while let Some(item) = reader.next() {
        black_box(item.unwrap());
        n += 1;
    }
    n
}

/// demokit: every message of the file folded into a [`Fold`].
fn demokit_fold(data: &[u8]) -> Fold {
    let slice = TeehistorianSlice::parse(data).unwrap();
    let mut fold = Fold::default();
    for item in slice.messages() {
        fold.messages += 1;
        fold.message(&item.unwrap().message);
    }
    fold
}

/// demokit's semantic layer tick by tick ([`TickWalk`]): every message's event, with
/// absolute positions and inputs, folded into a [`Fold`] (more work than the differences
/// the crate hands on: the world is kept).
fn demokit_walk_fold(data: &[u8]) -> Fold {
    use demokit::teehistorian::{EventKind, TickWalk};
    let slice = TeehistorianSlice::parse(data).unwrap();
    let mut walk = TickWalk::new(&slice);
    let mut fold = Fold::default();
    let mut on_event = |event: demokit::teehistorian::Event<'_>| {
        fold.messages += 1;
        match event.kind {
            EventKind::PlayerMove { cid, dx, dy, .. } => fold.add(&[cid, dx, dy]),
            EventKind::PlayerNew { cid, x, y, .. } => fold.add(&[cid, x, y]),
            EventKind::Input { cid, input, .. } => {
                fold.add(&[cid]);
                fold.add(&input);
            }
            EventKind::TickSkip { dt } => fold.add(&[dt]),
            _ => {}
        }
    };
    while let Some(tick) = walk.next_tick(&mut on_event) {
        tick.unwrap();
    }
    fold
}

/// The client a following walk follows in the `walk` benchmarks: one of the 64, as
/// `python/benches/selection.py` selects.
const FOLLOWED: i32 = 3;

/// How a `walk` benchmark walks the file: which clients it follows (`None`: every one, the
/// default) and whether it steps over the inputs.
#[derive(Clone, Copy)]
struct WalkKind {
    following: Option<&'static [i32]>,
    skipping_inputs: bool,
}

/// Every client id of the generated server.
const ALL_PLAYERS: [i32; 64] = {
    let mut ids = [0; 64];
    let mut i = 0;
    while i < 64 {
        ids[i] = i as i32;
        i += 1;
    }
    ids
};

/// A [`TickWalk`](demokit::teehistorian::TickWalk) of the file as `kind` says, with no
/// event handed on: [`FOLLOWED`]'s position after each tick folded into a checksum (what
/// one player's `x`, `y` columns take), the tick count and the record count.
fn demokit_walk_positions(data: &[u8], kind: WalkKind) -> (u64, u64, u64) {
    use demokit::teehistorian::TickWalk;
    let slice = TeehistorianSlice::parse(data).unwrap();
    let mut walk = TickWalk::new(&slice);
    if kind.skipping_inputs {
        walk = walk.skipping_inputs();
    }
    if let Some(ids) = kind.following {
        walk = walk.following(ids);
    }
    let (mut checksum, mut ticks) = (0u64, 0u64);
    while let Some(tick) = walk.next_tick(|_| {}) {
        let tick = tick.unwrap();
        if let Some((x, y)) = walk.world().position(FOLLOWED) {
            checksum = checksum.rotate_left(5) ^ (tick as u32 as u64) ^ ((x as u32 as u64) << 32);
            checksum = checksum.rotate_left(5) ^ (y as u32 as u64);
        }
        ticks += 1;
    }
    (checksum, ticks, walk.records())
}

/// The `teehistorian` crate: every chunk of the file up to and including the end of
/// stream, each `black_box`ed; returns the count.
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

/// The `teehistorian` crate: every chunk folded into a [`Fold`] as [`demokit_fold`] does.
fn crate_fold(data: &[u8]) -> Fold {
    use teehistorian::Chunk;
    let mut th = teehistorian::Th::parse(data).unwrap();
    black_box(th.header().unwrap());
    let mut fold = Fold::default();
    loop {
        fold.messages += 1;
        match th.next_chunk().unwrap() {
            Chunk::PlayerDiff(p) => fold.add(&[p.cid, p.dx, p.dy]),
            Chunk::PlayerNew(p) => fold.add(&[p.cid, p.x, p.y]),
            Chunk::InputDiff(i) => {
                fold.add(&[i.cid]);
                fold.add(&i.dinput);
            }
            Chunk::InputNew(i) => {
                fold.add(&[i.cid]);
                fold.add(&i.input);
            }
            Chunk::TickSkip { dt } => fold.add(&[dt]),
            Chunk::Eos => return fold,
            _ => {}
        }
    }
}

/// Prints the ratio `label` of `ours` to `peer` (see [`Ratio`]), unless `DEMOKIT_RATIOS`
/// leaves it out ([`ratio::wanted`]).
fn compare(label: &str, ours: impl FnMut() -> u64, peer: impl FnMut() -> u64) {
    if ratio::wanted(label) {
        Ratio::measure(ours, peer).print(label);
    }
}

/// The `teehistorian` group: parse throughput side by side, then recorder throughput.
fn bench(c: &mut Criterion) {
    let data = large_file();
    let messages = demokit_parse(&data);
    assert_eq!(crate_parse(&data), messages);
    assert_eq!(demokit_stream(&data), messages);
    let fold = demokit_fold(&data);
    assert_eq!(fold.messages, messages);
    assert_eq!(
        crate_fold(&data),
        fold,
        "the two readers disagree on the fields"
    );
    eprintln!(
        "large file: {} bytes, {messages} messages ({:.1} bytes/message)",
        data.len(),
        data.len() as f64 / messages as f64
    );
    let record_messages = demokit_parse(&record(Vec::new(), RECORD_TICKS, FlushPolicy::Never));
    eprintln!("record: {RECORD_TICKS} ticks, {record_messages} messages");

    assert_eq!(demokit_parse_lent(&data), messages);
    assert_eq!(demokit_fold_lent(&data), fold);
    compare(
        "teehistorian/parse demokit vs teehistorian crate",
        || demokit_parse(&data),
        || crate_parse(&data),
    );
    compare(
        "teehistorian/parse demokit-next_ref (lent) vs teehistorian crate",
        || demokit_parse_lent(&data),
        || crate_parse(&data),
    );
    compare(
        "teehistorian/parse demokit-stream vs teehistorian crate",
        || demokit_stream(&data),
        || crate_parse(&data),
    );
    compare(
        "teehistorian/fold demokit vs teehistorian crate",
        || demokit_fold(&data).messages,
        || crate_fold(&data).messages,
    );
    compare(
        "teehistorian/fold demokit-next_ref (lent) vs teehistorian crate",
        || demokit_fold_lent(&data).messages,
        || crate_fold(&data).messages,
    );
    assert_eq!(
        demokit_walk_fold(&data).messages,
        crate_fold(&data).messages
    );
    compare(
        "teehistorian/fold demokit TickWalk (every event, absolute) vs teehistorian crate",
        || demokit_walk_fold(&data).messages,
        || crate_fold(&data).messages,
    );
    // One player's positions (inputs stepped over, the others' moves skimmed) against
    // the walks that follow every player: what a selection of one player's `x`, `y`
    // columns saves over the whole `ticks` table.
    let walks = [
        (
            "one-player",
            WalkKind {
                following: Some(&ALL_PLAYERS[FOLLOWED as usize..FOLLOWED as usize + 1]),
                skipping_inputs: true,
            },
        ),
        (
            "following-all",
            WalkKind {
                following: Some(&ALL_PLAYERS),
                skipping_inputs: true,
            },
        ),
        (
            "skipping-inputs",
            WalkKind {
                following: None,
                skipping_inputs: true,
            },
        ),
        (
            "whole",
            WalkKind {
                following: None,
                skipping_inputs: false,
            },
        ),
    ];
    let one = demokit_walk_positions(&data, walks[0].1);
    for (name, kind) in &walks[1..] {
        assert_eq!(demokit_walk_positions(&data, *kind), one, "{name}");
    }
    for (name, kind) in &walks[1..] {
        compare(
            &format!("teehistorian/walk one-player vs {name}"),
            || demokit_walk_positions(&data, walks[0].1).0,
            || demokit_walk_positions(&data, *kind).0,
        );
    }
    compare(
        "teehistorian/walk one-player vs teehistorian crate fold",
        || demokit_walk_positions(&data, walks[0].1).0,
        || crate_fold(&data).messages,
    );
    let mut group = c.benchmark_group("teehistorian");
    group.sample_size(SAMPLES);
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.bench_with_input(BenchmarkId::new("parse", "demokit"), &data, |b, d| {
        b.iter(|| demokit_parse(d))
    });
    group.bench_with_input(
        BenchmarkId::new("parse", "demokit-next_ref"),
        &data,
        |b, d| b.iter(|| demokit_parse_lent(d)),
    );
    group.bench_with_input(
        BenchmarkId::new("parse", "demokit-stream"),
        &data,
        |b, d| b.iter(|| demokit_stream(d)),
    );
    group.bench_with_input(
        BenchmarkId::new("parse", "teehistorian-crate"),
        &data,
        |b, d| b.iter(|| crate_parse(d)),
    );
    group.bench_with_input(BenchmarkId::new("fold", "demokit"), &data, |b, d| {
        b.iter(|| demokit_fold(d))
    });
    group.bench_with_input(
        BenchmarkId::new("fold", "teehistorian-crate"),
        &data,
        |b, d| b.iter(|| crate_fold(d)),
    );
    for (name, kind) in walks {
        group.bench_with_input(BenchmarkId::new("walk", name), &data, |b, d| {
            b.iter(|| demokit_walk_positions(d, kind))
        });
    }
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

/// The real teehistorian files, or `None` (with the reason printed) without `fixtures/shared`.
fn real_files() -> Option<Vec<(String, Vec<u8>)>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/shared/real-fixtures/teehistorian");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "skipping the info group: {} not found (it needs fixtures/shared)",
            dir.display()
        );
        return None;
    };
    let mut files: Vec<(String, Vec<u8>)> = entries
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    Some(files)
}

/// The library's streaming reader: every message `black_box`ed; returns the count.
fn parse_stream(data: &[u8]) -> u64 {
    let mut reader = TeehistorianReader::new(std::io::BufReader::new(data)).unwrap();
    let mut n = 0;
    while let Some(item) = reader.next() {
        black_box(item.unwrap());
        n += 1;
    }
    n
}

/// What `demokit info` does with a teehistorian file: the summary, streamed.
fn summary_stream(data: &[u8]) -> Summary {
    let (summary, error) = Summary::scan_reader(std::io::BufReader::new(data)).unwrap();
    assert!(error.is_none());
    black_box(summary)
}

/// The ratio of `parse`'s time to `summary`'s on `data` (1.0: `info` as fast as the plain
/// parse), measured alternately so that a machine whose speed drifts (this one is shared)
/// slows both alike: `ROUNDS` rounds of `ITERS` calls of each, order swapped every round.
/// Returns the ratios of the rounds, sorted.
fn alternating_ratios(data: &[u8], parse: fn(&[u8]) -> u64, summary: fn(&[u8]) -> u64) -> Vec<f64> {
    const ROUNDS: usize = 31;
    const ITERS: usize = 200;
    let time = |f: fn(&[u8]) -> u64| {
        let start = std::time::Instant::now();
        for _ in 0..ITERS {
            black_box(f(black_box(data)));
        }
        start.elapsed().as_secs_f64()
    };
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .map(|round| {
            if round % 2 == 0 {
                let p = time(parse);
                p / time(summary)
            } else {
                let s = time(summary);
                time(parse) / s
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios
}

/// [`summary_stream`] as a message count, for [`alternating_ratios`].
fn summary_stream_count(data: &[u8]) -> u64 {
    summary_stream(data).messages
}

/// [`Summary::scan`] as a message count, for [`alternating_ratios`].
fn summary_slice_count(data: &[u8]) -> u64 {
    black_box(Summary::scan(data).unwrap()).0.messages
}

/// The `info` group: what `demokit info` does beside the plain parse, per real file.
fn bench_info(c: &mut Criterion) {
    let Some(files) = real_files() else {
        return;
    };
    // First the ratio itself, from alternating runs: median and quartiles of 31 rounds.
    for (name, data) in &files {
        for (kind, parse, summary) in [
            (
                "stream",
                parse_stream as fn(&[u8]) -> u64,
                summary_stream_count as fn(&[u8]) -> u64,
            ),
            ("slice", demokit_parse, summary_slice_count),
        ] {
            let label = format!("info/{kind}/{name}");
            if !ratio::wanted(&label) {
                continue;
            }
            let r = alternating_ratios(data, parse, summary);
            eprintln!(
                "{label}: parse time / summary time = {:.2} (quartiles {:.2} to {:.2}, \
                 range {:.2} to {:.2})",
                r[r.len() / 2],
                r[r.len() / 4],
                r[3 * r.len() / 4],
                r[0],
                r[r.len() - 1]
            );
        }
    }
    let mut group = c.benchmark_group("info");
    group
        .sample_size(30)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    for (name, data) in &files {
        let messages = parse_stream(data);
        assert_eq!(summary_stream(data).messages, messages, "{name}");
        assert_eq!(demokit_parse(data), messages, "{name}");
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.bench_with_input(BenchmarkId::new("parse-stream", name), data, |b, d| {
            b.iter(|| parse_stream(d))
        });
        group.bench_with_input(BenchmarkId::new("summary-stream", name), data, |b, d| {
            b.iter(|| summary_stream(d))
        });
        group.bench_with_input(BenchmarkId::new("parse-slice", name), data, |b, d| {
            b.iter(|| demokit_parse(d))
        });
        group.bench_with_input(BenchmarkId::new("summary-slice", name), data, |b, d| {
            b.iter(|| black_box(Summary::scan(d).unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_info, bench);
criterion_main!(benches);
