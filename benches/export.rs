//! `demokit::export` (what `demokit export` runs per file) beside the readers under it.
//!
//! Group `export`, one run, side by side on the same bytes in memory:
//!
//! Ratios printed first: the tables against the readers under them, and one player's
//! `ticks` rows ([`TickSelection`](demokit::export::TickSelection)) against the whole
//! table.
//!
//! * `teehistorian/export`: the large generated recording (a 64-player server, about
//!   55 MB, as in `benches/teehistorian.rs`) into every table ([`Exporter::add`], batches
//!   handed to [`black_box`]); `teehistorian/parse`: the same bytes through the semantic
//!   layer alone ([`Events`], every event read), the floor under the export. Throughput:
//!   file bytes.
//! * `demos/export`: the three real demos of `benches/twdemo.rs` into every table;
//!   `demos/world`: their game replay alone ([`GameReplay`], the world read each tick), the
//!   floor under it. Throughput: file bytes (the figure `demokit export` users see; the
//!   game benchmark counts compressed chunk bytes instead).
//!
//! Before measuring, the rows each export gives are printed, so that bytes/s convert to
//! rows/s.
//!
//! Then, not timed by criterion: the peak memory (maximum resident set, from GNU time's
//! `%M`, the median of three runs) of the release CLI's `demokit export DIR -o OUT` over 1,000, 10,000 and 30,000
//! copies of the smallest real demo (3.4 KB) and over 1,000 and 10,000 of a real server
//! demo (241 KB; hard links, where the file system has them, so that they take no room),
//! to show how it grows with the number of files, and over one teehistorian file of 5.4
//! and one of 54 MB, to show that it does not grow with the length of a file.
//! It needs `/usr/bin/time` and the CLI built with the command (`cargo build --release
//! -p demokit-cli`); without either, or
//! without `fixtures/shared`, it says so and is skipped. `DEMOKIT_BENCH_MEMORY=0` skips it.

#[allow(dead_code)] // The demo benchmarks' loader; this one uses the demos' bytes only.
mod common;
mod ratio;

#[path = "../tests/common/server.rs"]
#[allow(dead_code)]
mod server;

use common::load;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use demokit::export::{DatasetWriter, Exporter, Partition, Partitioning, Table};
use demokit::teehistorian::{EventKind, Events, TeehistorianSlice, TickWalk};
use demokit::twdemo::game::GameReplay;
use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, PayloadDecoder};
use ratio::Ratio;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `demokit export DIR -o OUT` does, on `threads` workers: every file of `files`
/// into every table, the batches written to a Parquet dataset under the temp dir (one
/// shared writer, which each worker encodes into, as the tool has it), each worker taking
/// the next file; returns the files exported. The dataset is removed afterwards.
fn export_dir(files: &[(String, &[u8])], threads: usize) -> u64 {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = std::env::temp_dir().join(format!(
        "demokit-bench-export-dir-{}-{threads}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let writer = DatasetWriter::with_partitioning(&dir, Partitioning::FormatDate).unwrap();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some((path, data)) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let partition = Partition::of(data, None);
                    let mut sink = |table: Table, batch: demokit::export::RecordBatch| {
                        writer.write_in(table, &partition, &batch).unwrap();
                    };
                    let mut exporter = Exporter::new();
                    exporter.add(path, data, &mut sink);
                    exporter.finish(&mut sink);
                }
            });
        }
    });
    writer.finish().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    files.len() as u64
}

/// Exports one file into every table; returns the rows per table.
fn export(path: &str, data: &[u8]) -> BTreeMap<Table, usize> {
    let mut rows = BTreeMap::new();
    let mut exporter = Exporter::new();
    let mut sink = |table: Table, batch: demokit::export::RecordBatch| {
        *rows.entry(table).or_insert(0) += batch.num_rows();
        black_box(batch);
    };
    exporter.add(path, data, &mut sink);
    exporter.finish(&mut sink);
    rows
}

/// The teehistorian semantic layer over the whole file: the events counted.
fn teehistorian_events(data: &[u8]) -> usize {
    let th = TeehistorianSlice::parse(data).unwrap();
    let mut events = 0;
    for event in Events::new(th.messages()) {
        black_box(event.unwrap());
        events += 1;
    }
    events
}

/// The container reader alone, its fastest way: every message of the file, with its
/// tick, lent by `next_ref`.
fn teehistorian_messages(data: &[u8]) -> u64 {
    let th = TeehistorianSlice::parse(data).unwrap();
    let mut reader = th.messages();
    let mut messages = 0;
    while let Some(message) = reader.next_ref() {
        black_box(message.unwrap());
        messages += 1;
    }
    messages
}

/// The container reader through `next`, which moves each message out to the caller.
fn teehistorian_messages_moved(data: &[u8]) -> u64 {
    let th = TeehistorianSlice::parse(data).unwrap();
    let mut messages = 0;
    for message in th.messages() {
        black_box(message.unwrap());
        messages += 1;
    }
    messages
}

/// The `ticks` table alone.
fn export_ticks(path: &str, data: &[u8]) -> u64 {
    rows_of(Exporter::with_tables(&[Table::Ticks]), path, data)
}

/// The rows `exporter` gives of the file, its batches handed to [`black_box`].
fn rows_of(mut exporter: Exporter, path: &str, data: &[u8]) -> u64 {
    let mut rows = 0;
    let mut sink = |_: Table, batch: demokit::export::RecordBatch| {
        rows += batch.num_rows() as u64;
        black_box(batch);
    };
    exporter.add(path, data, &mut sink);
    exporter.finish(&mut sink);
    rows
}

/// Two columns of the `ticks` rows of one player only, all ticks, as
/// `Recording.ticks(columns=["x", "y"], players=[3])` reads them in Python: the selection
/// pushed into the walk ([`TickSelection`]).
fn export_ticks_of_one_player(path: &str, data: &[u8]) -> u64 {
    let selection = demokit::export::TickSelection {
        client_ids: Some(vec![3]),
        ticks: None,
        columns: Some(demokit::export::TickSelection::column_indexes(&["x", "y"]).unwrap()),
    };
    rows_of(
        Exporter::with_tables(&[Table::Ticks]).select_ticks(selection),
        path,
        data,
    )
}

/// The world tick by tick ([`TickWalk`]), every position read: what the tables are built on.
fn teehistorian_walk(data: &[u8]) -> u64 {
    let th = TeehistorianSlice::parse(data).unwrap();
    let mut walk = TickWalk::new(&th);
    let mut positions = 0;
    while let Some(tick) = walk.next_tick(|event| {
        if let EventKind::Input { input, .. } = event.kind {
            black_box(input);
        }
    }) {
        tick.unwrap();
        positions += walk.world().players().count() as u64;
    }
    positions
}

/// The container reader of a demo alone: every data chunk decoded (Huffman and ints).
fn demo_chunks(data: &[u8]) -> u64 {
    let demo = DemoSlice::parse(data).unwrap();
    let mut decoder = PayloadDecoder::new();
    let mut ints = 0;
    for chunk in demo.chunks() {
        if let Chunk::Data(d) = chunk.unwrap().chunk
            && d.kind != ChunkKind::Unknown
        {
            ints += decoder.decode(d.payload).unwrap().ints.len() as u64;
        }
    }
    ints
}

/// The game replay of a demo, reading each tick's world: the characters counted.
fn demo_world(data: &[u8]) -> usize {
    let demo = DemoSlice::parse(data).unwrap();
    let mut replay = GameReplay::new(&demo);
    let mut characters = 0;
    while let Some(tick) = replay.next() {
        characters += black_box(tick.unwrap().world).characters().count();
    }
    characters
}

fn print_rows(what: &str, bytes: usize, rows: &BTreeMap<Table, usize>) {
    let total: usize = rows.values().sum();
    let list: Vec<String> = rows
        .iter()
        .map(|(t, n)| format!("{} {n}", t.name()))
        .collect();
    eprintln!(
        "export: {what}: {bytes} bytes, {total} rows ({})",
        list.join(", ")
    );
}

fn bench(c: &mut Criterion) {
    let generated = server::large_generated();
    let demos = load();
    print_rows(
        "generated teehistorian",
        generated.len(),
        &export("generated.teehistorian", &generated),
    );
    // Issue 34's goal: the tables take at most 1/0.6 (about 1.7) times the reader's time.
    if ratio::wanted("teehistorian export, every table, vs the container reader (goal >= 0.6)") {
        Ratio::measure(
            || export("generated.teehistorian", &generated).len() as u64,
            || teehistorian_messages(&generated),
        )
        .print("teehistorian export, every table, vs the container reader (goal >= 0.6)");
    }
    if ratio::wanted("teehistorian export, every table, vs the reader's next") {
        Ratio::measure(
            || export("generated.teehistorian", &generated).len() as u64,
            || teehistorian_messages_moved(&generated),
        )
        .print("teehistorian export, every table, vs the reader's next (moving each message)");
    }
    if ratio::wanted("teehistorian export, ticks table, vs the container reader") {
        Ratio::measure(
            || export_ticks("generated.teehistorian", &generated),
            || teehistorian_messages(&generated),
        )
        .print("teehistorian export, ticks table, vs the container reader");
    }
    // Issue 31's goal: one player's rows at least 3x faster than the whole table.
    if ratio::wanted("teehistorian ticks of one player vs the whole ticks table (goal >= 3)") {
        Ratio::measure(
            || export_ticks_of_one_player("generated.teehistorian", &generated),
            || export_ticks("generated.teehistorian", &generated),
        )
        .print("teehistorian ticks of one player vs the whole ticks table (goal >= 3)");
    }
    if ratio::wanted("teehistorian TickWalk vs Events, every event (semantic layer)") {
        Ratio::measure(
            || teehistorian_walk(&generated),
            || teehistorian_events(&generated) as u64,
        )
        .print("teehistorian TickWalk vs Events, every event (semantic layer)");
    }
    if let Some(demos) = &demos {
        if ratio::wanted("demo export, every table, vs the container reader (goal >= 0.6)") {
            Ratio::measure(
                || {
                    demos
                        .iter()
                        .map(|d| export(d.label, &d.data).len() as u64)
                        .sum()
                },
                || demos.iter().map(|d| demo_chunks(&d.data)).sum(),
            )
            .print("demo export, every table, vs the container reader (goal >= 0.6)");
        }
        if ratio::wanted("demo game world vs the container reader (goal >= 0.6)") {
            Ratio::measure(
                || demos.iter().map(|d| demo_world(&d.data) as u64).sum(),
                || demos.iter().map(|d| demo_chunks(&d.data)).sum(),
            )
            .print("demo game world vs the container reader (goal >= 0.6)");
        }
    }
    // `demokit export DIR` on both cores against one: the three demos eight times each and
    // a tenth of the generated teehistorian file four times (a server's archive: many demos,
    // a few long files).
    if let Some(demos) = &demos {
        let tenth = generated.len() / 10;
        let mut files: Vec<(String, &[u8])> = Vec::new();
        for copy in 0..8 {
            for d in demos {
                files.push((format!("{copy}/{}.demo", d.label), &d.data[..]));
            }
        }
        for copy in 0..4 {
            files.push((
                format!("{copy}/generated.teehistorian"),
                &generated[..tenth],
            ));
        }
        if ratio::wanted("export DIR on 2 threads vs 1 (goal >= 1.8 on 2 cores)") {
            Ratio::measure(|| export_dir(&files, 2), || export_dir(&files, 1))
                .print("export DIR on 2 threads vs 1 (goal >= 1.8 on 2 cores)");
        }
    }
    let mut group = c.benchmark_group("export");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(generated.len() as u64));
    group.bench_function(BenchmarkId::new("teehistorian", "export"), |b| {
        b.iter(|| export("generated.teehistorian", &generated))
    });
    group.bench_function(BenchmarkId::new("teehistorian", "parse"), |b| {
        b.iter(|| teehistorian_events(&generated))
    });
    if let Some(demos) = demos {
        let bytes: usize = demos.iter().map(|d| d.data.len()).sum();
        let mut rows = BTreeMap::new();
        for demo in &demos {
            for (table, n) in export(demo.label, &demo.data) {
                *rows.entry(table).or_insert(0) += n;
            }
        }
        print_rows("the three demos", bytes, &rows);
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(BenchmarkId::new("demos", "export"), |b| {
            b.iter(|| {
                for demo in &demos {
                    export(demo.label, &demo.data);
                }
            })
        });
        group.bench_function(BenchmarkId::new("demos", "world"), |b| {
            b.iter(|| {
                for demo in &demos {
                    demo_world(&demo.data);
                }
            })
        });
    }
    group.finish();
    memory(&generated);
}

/// The release CLI, if built with its `export` command.
fn cli() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/demokit");
    let has_export = Command::new(&path)
        .args(["export", "--help"])
        .output()
        .is_ok_and(|o| o.status.success());
    has_export.then_some(path)
}

/// Peak memory of `demokit export` over copies of a small and of a server demo, and over
/// one teehistorian file of a tenth of the generated one's bytes and one of all of them.
fn memory(generated: &[u8]) {
    if std::env::var("DEMOKIT_BENCH_MEMORY").is_ok_and(|v| v == "0") {
        return;
    }
    let demos = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shared/real-fixtures/twdemo");
    let (Some(cli), true, true) = (cli(), demos.is_dir(), Path::new("/usr/bin/time").is_file())
    else {
        eprintln!(
            "export memory: skipped (needs `cargo build --release -p demokit-cli`, fixtures/shared \
             and /usr/bin/time)"
        );
        return;
    };
    let root = std::env::temp_dir().join(format!("demokit-export-memory-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    for (name, counts) in [
        (
            "v6_ddnet_client_sixup_tinycave.demo",
            &[1_000, 10_000, 30_000][..],
        ),
        ("v6_ddnet201_server_dm1.demo", &[1_000, 10_000][..]),
    ] {
        // The copies link to one copy of the file in the temporary directory.
        let original = root.join(name);
        std::fs::copy(demos.join(name), &original).unwrap();
        let bytes = std::fs::metadata(&original).unwrap().len();
        let mut peaks = Vec::new();
        for &copies in counts {
            let dir = root.join(format!("in-{copies}"));
            std::fs::create_dir_all(&dir).unwrap();
            for i in 0..copies {
                let copy = dir.join(format!("{i:05}.demo"));
                if std::fs::hard_link(&original, &copy).is_err() {
                    std::fs::copy(&original, &copy).unwrap();
                }
            }
            let kib = peak_export_kib(&cli, &dir, &root.join(format!("out-{copies}")));
            eprintln!(
                "export memory: {copies} files of {name} ({bytes} bytes): peak {:.1} MiB",
                kib as f64 / 1024.0
            );
            peaks.push((copies, kib));
        }
        for &(copies, kib) in &peaks[1..] {
            eprintln!(
                "export memory: {copies} / {} files of {name}: {:.2}x",
                peaks[0].0,
                kib as f64 / peaks[0].1 as f64
            );
        }
        std::fs::remove_file(&original).unwrap();
    }
    // A tenth of the file is cut inside a message: its rows up to there are exported.
    let mut sizes = Vec::new();
    for (name, bytes) in [("tenth", generated.len() / 10), ("whole", generated.len())] {
        let dir = root.join(format!("in-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("game.teehistorian"), &generated[..bytes]).unwrap();
        let kib = peak_export_kib(&cli, &dir, &root.join(format!("out-{name}")));
        eprintln!(
            "export memory: one teehistorian file of {:.1} MB: peak {:.1} MiB",
            bytes as f64 / 1e6,
            kib as f64 / 1024.0
        );
        sizes.push(kib);
    }
    eprintln!(
        "export memory: the whole file / a tenth of it: {:.2}x",
        sizes[1] as f64 / sizes[0] as f64
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// The peak resident set, in KiB, of `demokit export IN -o OUT` (both removed after):
/// the median of three runs, as single runs of the same export differ by up to a MiB on
/// a shared machine.
fn peak_export_kib(cli: &Path, input: &Path, out: &Path) -> u64 {
    let mut peaks: Vec<u64> = (0..3)
        .map(|_| {
            let run = Command::new("/usr/bin/time")
                .args(["-f", "%M"])
                .arg(cli)
                .arg("export")
                .arg(input)
                .arg("-o")
                .arg(out)
                .output()
                .unwrap();
            assert!(
                run.status.success(),
                "{}",
                String::from_utf8_lossy(&run.stderr)
            );
            std::fs::remove_dir_all(out).unwrap();
            let stderr = String::from_utf8_lossy(&run.stderr);
            stderr.lines().last().unwrap().trim().parse().unwrap()
        })
        .collect();
    std::fs::remove_dir_all(input).unwrap();
    peaks.sort_unstable();
    peaks[1]
}

criterion_group!(benches, bench);
criterion_main!(benches);
