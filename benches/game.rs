//! The typed game world of [`GameReplay`] against what lies under it and against libtw2,
//! on real DDNet demos from `fixtures/shared/real-fixtures/twdemo` (those of `benches/twdemo.rs`).
//!
//! One group, `game`; the throughput is the compressed chunk payload bytes of the demo, as
//! in `benches/twdemo.rs`. Each run parses the demo and reads it to the end.
//!
//! * `world`: [`GameReplay`], reading the [`World`](demokit::twdemo::game::World) each
//!   tick (the characters' x and the number of events). The figure the game layer is judged
//!   by, per demo and for all three.
//! * `objects`: the same replay, every item of each tick's snapshot typed
//!   ([`GameTick::objects`]) and every message of the tick ([`GameTick::messages`]), each
//!   handed to [`black_box`].
//! * `replay`: demokit's plain [`SnapshotReplay`]: snapshot and delta payloads decoded and
//!   deltas applied, nothing typed. `world / replay` is the cost of the game layer; note
//!   that `replay` counts message chunks without decoding them, while `world` and `objects`
//!   decode and type them too.
//! * `decode`: every data chunk decoded to ints ([`PayloadDecoder`], as `decode/demokit` in
//!   `benches/twdemo.rs`): the floor under any replay of the demo.
//! * `libtw2`: libtw2's typed demo reader (`libtw2_demo::ddnet::DemoReader` with
//!   `libtw2_gamenet_ddnet::Protocol`), every object of every snapshot and every message
//!   handed to [`black_box`]. It replays the snapshots and types items and messages as
//!   `objects` does (into a `Vec` of owned objects per snapshot), but keeps no world. It
//!   types less of these demos than demokit: it leaves out the `EX` items, DDNet's
//!   per-tick `Sv_TuneParams` fails its decoder, and it reads only game messages, not the
//!   system messages of the server demo; the check before measuring prints both counts.
//!   libtw2's untyped snapshot replay (`libtw2_snapshot`) is not a dependency of this
//!   crate, so `replay` has no libtw2 counterpart.
//!
//! Before measuring, the variants are run once and checked to see the same ticks, and
//! `objects` the same items as `replay`. The files are loaded, and libtw2's readers made,
//! outside the timed loops. Without `fixtures/shared` there is nothing to measure and the
//! benchmark says so.

mod common;
mod ratio;

use common::load;
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use demokit::twdemo::game::{GameReplay, GameTick};
use demokit::twdemo::snapshot::replay::SnapshotReplay;
use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, PayloadDecoder};
use libtw2_demo::ddnet::{Chunk as Libtw2Chunk, DemoReader, Warning};
use ratio::Ratio;
use std::hint::black_box;
use std::io::Cursor;

/// Samples per benchmark, taken flat (the same number of runs in each): a run over all
/// three demos takes up to a few hundred milliseconds, so criterion's default of 100
/// linearly growing samples would not fit a measurement time of a few seconds.
const SAMPLES: usize = 10;

/// What a run saw, so that the work cannot be optimised away and the variants can be
/// checked against each other.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Seen {
    ticks: usize,
    /// Snapshot items (`replay`), typed items (`objects`, `libtw2`), characters (`world`)
    /// or ints (`decode`).
    items: usize,
    /// Message chunks (`replay`), typed messages (`objects`, `libtw2`) or events (`world`).
    messages: usize,
    /// Items and messages left untyped: raw in demokit (`objects`), dropped with a warning
    /// in libtw2.
    untyped: usize,
    /// The sum of the characters' x (`world`).
    sum: i64,
}

/// A variant measured on all demos: one run over one demo.
type Run = fn(&[u8]) -> Seen;

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

/// `decode`: every data chunk of the demo decoded to ints.
fn decode(data: &[u8], decoder: &mut PayloadDecoder) -> Seen {
    let mut seen = Seen::default();
    for chunk in DemoSlice::parse(data).unwrap().chunks() {
        match chunk.unwrap().chunk {
            Chunk::Tick(_) => seen.ticks += 1,
            Chunk::Data(d) if d.kind != ChunkKind::Unknown => {
                seen.items += decoder.decode(d.payload).unwrap().ints.len();
            }
            Chunk::Data(_) => {}
        }
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
                    for object in objects {
                        black_box(object);
                        seen.items += 1;
                    }
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
    let mut decoder = PayloadDecoder::new();
    let mut libtw2: Vec<Libtw2Typed> = demos.iter().map(|d| Libtw2Typed::new(&d.data)).collect();
    for (demo, l) in demos.iter().zip(&mut libtw2) {
        let (w, o, r) = (world(&demo.data), objects(&demo.data), replay(&demo.data));
        let (d, t) = (decode(&demo.data, &mut decoder), l.run());
        eprintln!(
            "{}: {} payload bytes\n  world {w:?}\n  objects {o:?}\n  replay {r:?}\n  \
             decode {d:?}\n  libtw2 {t:?}",
            demo.label, demo.payload_bytes,
        );
        // The demokit replays see a tick per tick marker, as libtw2 does.
        for ticks in [w.ticks, o.ticks, r.ticks, t.ticks] {
            assert_eq!(ticks, d.ticks, "{}", demo.label);
        }
        assert_eq!(o.items, r.items, "{}", demo.label);
    }

    Ratio::measure(
        || {
            (demos.iter())
                .map(|d| world(black_box(&d.data)).ticks as u64)
                .sum()
        },
        || libtw2.iter_mut().map(|l| l.run().ticks as u64).sum(),
    )
    .print("game/world vs libtw2 typed reader/all");
    let mut group = c.benchmark_group("game");
    group.sample_size(SAMPLES);
    group.sampling_mode(SamplingMode::Flat);
    for demo in &demos {
        group.throughput(Throughput::Bytes(demo.payload_bytes));
        group.bench_function(BenchmarkId::new("world", demo.label), |b| {
            b.iter(|| world(black_box(&demo.data)))
        });
    }
    group.throughput(Throughput::Bytes(
        demos.iter().map(|d| d.payload_bytes).sum(),
    ));
    let variants: [(&str, Run); 3] = [("world", world), ("objects", objects), ("replay", replay)];
    for (name, run) in variants {
        group.bench_function(BenchmarkId::new(name, "all"), |b| {
            b.iter(|| {
                (demos.iter())
                    .map(|d| run(black_box(&d.data)).ticks)
                    .sum::<usize>()
            })
        });
    }
    group.bench_function(BenchmarkId::new("decode", "all"), |b| {
        b.iter(|| {
            (demos.iter())
                .map(|d| decode(black_box(&d.data), &mut decoder).items)
                .sum::<usize>()
        })
    });
    group.bench_function(BenchmarkId::new("libtw2", "all"), |b| {
        b.iter(|| libtw2.iter_mut().map(|l| l.run().ticks).sum::<usize>())
    });
    group.finish();
}

criterion_group!(benches, game);
criterion_main!(benches);
