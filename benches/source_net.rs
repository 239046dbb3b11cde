//! Source demos above the container: the network messages, string tables and game events
//! of every real Source demo (`fixtures/source` and `fixtures/shared/real-fixtures/source`), and
//! the same work side by side with tf-demo-parser on the TF2 demos.
//!
//! * A ratio per TF2 demo: `source::game::walk_reader` (every message of every packet
//!   decoded, string tables and game events applied, players, chat and events handed out)
//!   against tf-demo-parser's `DemoParser::parse` with its own analyser (players, chat,
//!   deaths, rounds: it decodes the messages that analyser asks for).
//! * A ratio per TF2 demo for the whole parse: the same walk following the entities
//!   (`Walk::entities`: data tables, baselines, every `svc_PacketEntities` applied,
//!   players' positions handed out after each packet) against tf-demo-parser's
//!   `DemoParser::new_all_with_analyser` with its `GameStateAnalyser` (every message,
//!   entities included, into its game state). The goal is at least 2x.
//! * Group `messages`: the same walk per demo, with the throughput in file bytes (MB/s for
//!   each game's fixture).
//!
//! Quick run: `cargo bench --bench source_net -- --warm-up-time 1 --measurement-time 3`.

mod ratio;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use demokit::source::SourceSlice;
use demokit::source::game::{Walk, walk_reader, walk_reader_with};
use ratio::Ratio;
use std::hint::black_box;
use std::path::PathBuf;

/// A real demo loaded for the benchmarks.
struct Loaded {
    label: String,
    game: String,
    data: Vec<u8>,
}

/// The real Source demos of both folders, sorted by name; panics when none is there.
fn load() -> Vec<Loaded> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        root.join("fixtures/source"),
        root.join("fixtures/shared/real-fixtures/source"),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.extension().is_none_or(|x| x != "dem") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let game = SourceSlice::parse(&data)
                .unwrap()
                .header()
                .game_dir
                .to_string_lossy();
            files.push(Loaded {
                label: path.file_stem().unwrap().to_string_lossy().into_owned(),
                game,
                data,
            });
        }
    }
    assert!(!files.is_empty(), "no Source demos found");
    files.sort_by(|a, b| a.label.cmp(&b.label));
    files
}

/// Walks a demo's game layer; the count of items handed out.
fn walk(data: &[u8]) -> u64 {
    let mut items = 0u64;
    let end = walk_reader(data, |item| {
        black_box(&item);
        items += 1;
    })
    .unwrap();
    // An unfinished recording ends early; the items before count.
    black_box(end.last_tick);
    items
}

/// Walks a demo's game layer following the entities; the count of items handed out.
fn walk_entities(data: &[u8]) -> u64 {
    let mut items = 0u64;
    let end = walk_reader_with(data, Walk::entities(), |item| {
        black_box(&item);
        items += 1;
    })
    .unwrap();
    black_box(end.last_tick);
    items
}

/// tf-demo-parser's whole parse into its game state (entities included); the count of
/// players in the last state.
fn tf_demo_parser_all(data: &[u8]) -> u64 {
    use tf_demo_parser::demo::parser::gamestateanalyser::GameStateAnalyser;
    let demo = tf_demo_parser::Demo::new(data);
    let (_, state) = tf_demo_parser::DemoParser::new_all_with_analyser(
        demo.get_stream(),
        GameStateAnalyser::new(),
    )
    .parse()
    .unwrap();
    black_box(&state);
    state.players.len() as u64
}

/// tf-demo-parser's parse with its own analyser; the count of chat lines and users.
fn tf_demo_parser(data: &[u8]) -> u64 {
    let demo = tf_demo_parser::Demo::new(data);
    let (_, state) = tf_demo_parser::DemoParser::new(demo.get_stream())
        .parse()
        .unwrap();
    (state.chat.len() + state.users.len()) as u64
}

fn messages(c: &mut Criterion) {
    let files = load();
    for f in files.iter().filter(|f| f.game == "tf") {
        Ratio::measure(|| walk(&f.data), || tf_demo_parser(&f.data)).print(&format!(
            "Source messages, tables and events of {} vs tf-demo-parser's parse",
            f.label
        ));
    }
    for f in files.iter().filter(|f| f.game == "tf") {
        Ratio::measure(|| walk_entities(&f.data), || tf_demo_parser_all(&f.data)).print(&format!(
            "Source whole parse (messages, events, entities) of {} vs tf-demo-parser's game state",
            f.label
        ));
    }
    let mut group = c.benchmark_group("messages");
    for f in &files {
        group.throughput(Throughput::Bytes(f.data.len() as u64));
        group.bench_function(BenchmarkId::new("walk", &f.label), |b| {
            b.iter(|| walk(black_box(&f.data)))
        });
        if f.game == "tf" {
            group.bench_function(BenchmarkId::new("tf-demo-parser", &f.label), |b| {
                b.iter(|| tf_demo_parser(black_box(&f.data)))
            });
            group.bench_function(BenchmarkId::new("walk+entities", &f.label), |b| {
                b.iter(|| walk_entities(black_box(&f.data)))
            });
            group.bench_function(BenchmarkId::new("tf-demo-parser-all", &f.label), |b| {
                b.iter(|| tf_demo_parser_all(black_box(&f.data)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, messages);
criterion_main!(benches);
