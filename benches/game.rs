//! The typed game world of [`GameReplay`] against the plain snapshot replay under it and
//! against libtw2, on real DDNet demos from `../shared/real-fixtures/twdemo`.
//!
//! All in one group, `game`, with the compressed chunk payload bytes of the demo as the
//! throughput (as in `benches/twdemo.rs`):
//!
//! * `world`: [`GameReplay`] driven to the end, reading the [`World`](demokit::twdemo::game::World)
//!   each tick (the characters' x and the number of events). This is the figure the game
//!   layer is judged by.
//! * `objects`: the same replay, every item of the tick's snapshot typed
//!   ([`GameTick::objects`]) and every message of the tick ([`GameTick::messages`]), each
//!   handed to [`black_box`].
//! * `replay`: demokit's plain [`SnapshotReplay`]: chunks read, snapshot and delta payloads
//!   decoded and deltas applied, nothing typed (message chunks are counted, not decoded).
//!   The ratio `world / replay` is the cost of the game layer.
//! * `libtw2`: libtw2's typed demo reader (`libtw2_demo::ddnet::DemoReader` with
//!   `libtw2_gamenet_ddnet::Protocol`), read to the end with every object of every snapshot
//!   and every message handed to [`black_box`]. It replays the snapshots and types every item
//!   and message, as `objects` does, but keeps no world. libtw2's untyped snapshot replay
//!   (`libtw2_snapshot`) is not a dependency of this crate, so there is no libtw2 figure
//!   beside `replay`.
//!
//! Before measuring, the four are checked to see the same demo: as many ticks from the
//! demokit replays, the same typed items from `objects` and libtw2.
//!
//! The files are loaded, and libtw2's reader made, outside the timed loops. Without
//! `../shared` there is nothing to measure and the benchmark says so.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use demokit::twdemo::game::{GameReplay, GameTick};
use demokit::twdemo::replay::SnapshotReplay;
use demokit::twdemo::{Chunk, DemoSlice};
use libtw2_demo::ddnet::{Chunk as Libtw2Chunk, DemoReader, Warning};
use std::hint::black_box;
use std::io::Cursor;
use std::path::PathBuf;

/// The demos measured: a short label and the file name (those of `benches/twdemo.rs`).
const FILES: &[(&str, &str)] = &[
    ("multeasymap", "v6_ddnet_client_multeasymap_2020.demo"),
    ("rainymore2", "v6_ddnet_client_rainymore2_2020.demo"),
    ("dm1_server", "v6_ddnet201_server_dm1.demo"),
];

/// Samples per benchmark: a replay of all three demos takes tens of milliseconds, so
/// criterion's default of 100 would not fit a measurement time of a few seconds.
const SAMPLES: usize = 20;

/// A demo loaded for the benchmarks.
struct Loaded {
    label: &'static str,
    data: Vec<u8>,
    /// Compressed payload bytes over all data chunks: the throughput.
    payload_bytes: u64,
}

/// Loads [`FILES`], or returns `None` (saying why) when `../shared` is not there.
fn load() -> Option<Vec<Loaded>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/real-fixtures/twdemo");
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

/// What a run saw, so that the work cannot be optimised away and the variants can be
/// checked against each other.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Seen {
    ticks: usize,
    /// Snapshot items (`replay`), typed items (`objects`, `libtw2`) or characters (`world`).
    items: usize,
    /// Message chunks (`replay`), typed messages (`objects`, `libtw2`) or events (`world`).
    messages: usize,
    /// Items and messages left untyped: raw in demokit (`objects`), dropped with a warning
    /// in libtw2.
    untyped: usize,
    /// The sum of the characters' x (`world`).
    sum: i64,
}

/// `world`: the game replay to the end, reading the world each tick.
fn world(data: &[u8]) -> Seen {
    let demo = DemoSlice::parse(data).unwrap();
    let mut replay = GameReplay::new(&demo);
    let mut seen = Seen::default();
    while let Some(tick) = replay.next() {
        let world = tick.unwrap().world;
        seen.ticks += 1;
        for character in world.characters() {
            seen.items += 1;
            seen.sum += i64::from(character.x);
        }
        seen.messages += world.events().len();
    }
    seen
}

/// Hands every typed item and message of `tick` to [`black_box`] and counts them in `seen`.
fn type_tick(tick: &GameTick<'_>, seen: &mut Seen) {
    for object in tick.objects() {
        seen.items += 1;
        seen.untyped += usize::from(black_box(object).object.as_raw().is_some());
    }
    for message in tick.messages() {
        seen.messages += 1;
        seen.untyped += usize::from(black_box(message).message.as_raw().is_some());
    }
}

/// `objects`: the game replay to the end, typing every item and message of every tick.
fn objects(data: &[u8]) -> Seen {
    let demo = DemoSlice::parse(data).unwrap();
    let mut replay = GameReplay::new(&demo);
    let mut seen = Seen::default();
    while let Some(tick) = replay.next() {
        type_tick(&tick.unwrap(), &mut seen);
        seen.ticks += 1;
    }
    seen
}

/// `replay`: demokit's plain snapshot replay to the end.
fn replay(data: &[u8]) -> Seen {
    let demo = DemoSlice::parse(data).unwrap();
    let mut replay = SnapshotReplay::new(&demo);
    let mut seen = Seen::default();
    while let Some(tick) = replay.next() {
        let tick = tick.unwrap();
        seen.ticks += 1;
        seen.items += tick.snapshot.map_or(0, |s| s.len());
        seen.messages += tick.messages;
    }
    seen
}

/// libtw2's typed reader over one demo, with its warnings.
///
/// `DemoReader::new` copies the embedded map (up to 2 MB here), which is not replaying, so
/// the reader is made once and each run seeks back to the first chunk (`DemoReader::seek`
/// also forgets the snapshot and delta state).
struct Libtw2Typed<'a> {
    reader: DemoReader<'a, libtw2_gamenet_ddnet::Protocol>,
    chunks_start: u64,
    warnings: Vec<Warning>,
}

impl<'a> Libtw2Typed<'a> {
    fn new(data: &'a [u8]) -> Self {
        let mut warnings = Vec::new();
        let mut reader = DemoReader::new(Cursor::new(data), &mut warnings).unwrap();
        let chunks_start = reader.stream_position().unwrap();
        Libtw2Typed {
            reader,
            chunks_start,
            warnings,
        }
    }

    /// Reads the demo to the end, every snapshot replayed and typed and every message
    /// typed; `items` counts the typed objects, `messages` the typed messages.
    fn run(&mut self) -> Seen {
        self.reader.seek(self.chunks_start).unwrap();
        self.warnings.clear();
        let mut seen = Seen::default();
        while let Some(chunk) = self.reader.next_chunk(&mut self.warnings).unwrap() {
            match chunk {
                Libtw2Chunk::Tick { .. } => seen.ticks += 1,
                Libtw2Chunk::Snapshot(objects) => {
                    seen.items += objects.map(|o| black_box(o)).count();
                }
                Libtw2Chunk::Message(message) => {
                    black_box(message);
                    seen.messages += 1;
                }
                Libtw2Chunk::Invalid => {}
            }
        }
        seen.untyped = (self.warnings.iter())
            .filter(|w| matches!(w, Warning::Gamenet(_)))
            .count();
        seen
    }
}

fn game(c: &mut Criterion) {
    let Some(demos) = load() else {
        return;
    };
    let mut libtw2: Vec<Libtw2Typed> = demos.iter().map(|d| Libtw2Typed::new(&d.data)).collect();
    for (demo, l) in demos.iter().zip(&mut libtw2) {
        let (w, o, r, t) = (
            world(&demo.data),
            objects(&demo.data),
            replay(&demo.data),
            l.run(),
        );
        eprintln!(
            "{}: {} payload bytes; world {w:?}; objects {o:?}; replay {r:?}; libtw2 {t:?}",
            demo.label, demo.payload_bytes,
        );
        assert_eq!((w.ticks, o.ticks), (r.ticks, r.ticks), "{}", demo.label);
    }

    let mut group = c.benchmark_group("game");
    group.sample_size(SAMPLES);
    for demo in &demos {
        group.throughput(Throughput::Bytes(demo.payload_bytes));
        group.bench_function(BenchmarkId::new("world", demo.label), |b| {
            b.iter(|| world(black_box(&demo.data)))
        });
    }
    group.throughput(Throughput::Bytes(
        demos.iter().map(|d| d.payload_bytes).sum(),
    ));
    let variants: [(&str, fn(&[u8]) -> Seen); 3] =
        [("world", world), ("objects", objects), ("replay", replay)];
    for (name, run) in variants {
        group.bench_function(BenchmarkId::new(name, "all"), |b| {
            b.iter(|| {
                demos
                    .iter()
                    .map(|d| run(black_box(&d.data)).ticks)
                    .sum::<usize>()
            })
        });
    }
    group.bench_function(BenchmarkId::new("libtw2", "all"), |b| {
        b.iter(|| libtw2.iter_mut().map(|l| l.run().ticks).sum::<usize>())
    });
    group.finish();
}

criterion_group!(benches, game);
criterion_main!(benches);
