//! `demokit::export` on the real recordings of the corpus's `real-fixtures`: the Parquet
//! dataset reads back (with the parquet crate's own Arrow reader) with exactly the rows the
//! library's readers count by other routes, one `files` row per recording with no error,
//! the schema version in every file; a cut recording keeps its rows before the cut and
//! names its error; the CLI writes the same dataset (flat with `--partition-by none`; the
//! partitioned default layout is tested in `export_partitions.rs`).

use crate::common;

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use common::temp::TempDir;
use demokit::export::{DatasetWriter, Exporter, Partition, RecordBatch, SCHEMA_VERSION, Table};
use demokit::recording::{Format, Recording, detect};
use demokit::source::SourceSlice;
use demokit::teehistorian::{EventKind, Events, FlushPolicy, TeehistorianSlice};
use demokit::twdemo::DemoSlice;
use demokit::twdemo::game::GameReplay;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every recording under `dir` in a format demokit reads (as the CLI picks them from a
/// directory), sorted.
fn recordings(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if detect(&std::fs::read(&path).unwrap()).is_some_and(|f| f.is_read()) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The game events of the recording at `path` by kind, as the `events` table names them,
/// counted from the game layers' own events (`Recording::events`) rather than from the log
/// the exporter reads: a demo's joins, leaves, kills, deaths, race finishes and votes, and
/// its players' team changes from the replayed world; a teehistorian file's joins, drops,
/// names, teams, finishes and the clients' `Cl_Kill` and `Cl_CallVote`.
fn expected_events(path: &Path) -> BTreeMap<&'static str, usize> {
    use demokit::gamenet::{AnyMessage, seven, six};
    use demokit::recording::GameEvent;
    use demokit::teehistorian::game::GameEvent as ThEvent;
    let mut counts = BTreeMap::new();
    let mut add = |kind: &'static str| *counts.entry(kind).or_insert(0) += 1;
    // Teehistorian: each client's name since it joined (`None`: not named yet).
    let mut names: BTreeMap<i32, Option<String>> = BTreeMap::new();
    let recording = Recording::open(path).unwrap();
    if recording.format() == Format::SourceDemo {
        // Source events come from the game log alone: joins, leaves, renames, team
        // changes and kills.
        let data = std::fs::read(path).unwrap();
        let (log, _) = demokit::source::game::game_log_reader(&data[..]).unwrap();
        for event in &log.events {
            add(event.kind.name());
        }
        return counts;
    }
    if !matches!(recording.format(), Format::TwDemo | Format::Teehistorian) {
        return counts;
    }
    let walk = recording
        .events(|event| match event {
            GameEvent::TwDemo(at) => match at.event.kind_name() {
                "join" => add("join"),
                "leave" => add("leave"),
                "kill" => add("kill"),
                "death" => add("death"),
                "race_finish" => add("finish"),
                "vote_start" => add("vote_start"),
                _ => {}
            },
            GameEvent::Teehistorian(at) => match at.event {
                ThEvent::Join { cid, .. } => {
                    names.insert(cid, None);
                    add("join")
                }
                ThEvent::Drop { cid, .. } => {
                    names.remove(&cid);
                    add("leave")
                }
                // The first name after a join names the join; the same name again is no
                // change; any other is a rename.
                ThEvent::Name { cid, name } => {
                    let known = names.insert(cid, Some(name.to_owned()));
                    if matches!(known, Some(Some(ref old)) if *old != name) || known.is_none() {
                        add("name")
                    }
                }
                ThEvent::Team { .. } => add("team"),
                ThEvent::Finish { .. } => add("finish"),
                ThEvent::TeamFinish { .. } => add("team_finish"),
                ThEvent::Message { message, .. } => match message {
                    AnyMessage::Six(six::Message::ClKill(_))
                    | AnyMessage::Seven(seven::Message::ClKill(_)) => add("kill"),
                    AnyMessage::Six(six::Message::ClCallVote(_))
                    | AnyMessage::Seven(seven::Message::ClCallVote(_)) => add("vote_start"),
                    _ => {}
                },
                _ => {}
            },
            _ => {}
        })
        .unwrap();
    assert!(walk.error.is_none(), "{}", path.display());
    // A demo's team changes: a player seen again in another team.
    let data = std::fs::read(path).unwrap();
    if let Ok(demo) = DemoSlice::parse(&data) {
        let mut teams = BTreeMap::new();
        let mut replay = GameReplay::new(&demo);
        while let Some(tick) = replay.next() {
            let world = tick.unwrap().world;
            for event in world.events() {
                if let demokit::twdemo::game::Event::Leave { client_id, .. } = event {
                    teams.remove(client_id);
                }
            }
            for p in world.players() {
                if teams
                    .insert(p.client_id, p.team)
                    .is_some_and(|t| t != p.team)
                {
                    *counts.entry("team").or_insert(0) += 1;
                }
            }
        }
    }
    counts
}

/// The rows each table should get from `files`, counted through the format readers
/// rather than through the exporter.
/// The rows the model fills in before `tick`: the ticks skipped since the last tick
/// (with its `n` rows), each with those rows.
fn filled(last: Option<(i32, usize)>, tick: i32) -> usize {
    last.and_then(|(before, n)| {
        demokit::model::filled_ticks(Some(before), tick).map(|t| t.len() * n)
    })
    .unwrap_or(0)
}

fn expected_rows(files: &[PathBuf]) -> BTreeMap<&'static str, usize> {
    let mut rows = BTreeMap::new();
    let mut add = |table: &'static str, n: usize| *rows.entry(table).or_insert(0) += n;
    add("files", files.len());
    for path in files {
        add("events", expected_events(path).values().sum());
        let data = std::fs::read(path).unwrap();
        if let Ok(demo) = DemoSlice::parse(&data) {
            let mut replay = GameReplay::new(&demo);
            // Each tick's rows, and those of the ticks the demo has no snapshot of, which
            // repeat the tick before (the model fills forward).
            let mut last: Option<(i32, usize)> = None;
            while let Some(tick) = replay.next() {
                let tick = tick.unwrap();
                let n = tick.world.characters().count();
                add("ticks", n + filled(last, tick.tick));
                last = Some((tick.tick, n));
            }
            let (log, error) = demokit::twdemo::game::game_log(&demo);
            assert!(error.is_none());
            add("chat", log.chat.len());
            add("players", log.players.len());
        } else if let Ok(th) = TeehistorianSlice::parse(&data) {
            let mut events = Events::new(th.messages());
            let mut last: Option<(i32, usize)> = None;
            while let Some(event) = events.next() {
                let event = event.unwrap();
                match event.kind {
                    EventKind::Input { .. } => add("inputs", 1),
                    EventKind::TickEnd => {
                        let n = events.world().players().count();
                        add("ticks", n + filled(last, event.tick));
                        last = Some((event.tick, n));
                    }
                    _ => {}
                }
            }
            let (log, error) = demokit::teehistorian::game::game_log(th.messages());
            assert!(error.is_none());
            add("chat", log.chat.len());
            add("players", log.players.len());
        } else {
            let demo = SourceSlice::parse(&data).unwrap();
            add("frames", demo.frames().count());
            let mut typed = 0;
            // One row per player per tick, however many updates the tick has.
            let mut positions = std::collections::HashSet::new();
            let (log, error) = demokit::source::game::game_log_reader_with(
                &data[..],
                demokit::source::game::Walk::entities(),
                |item| match item {
                    demokit::source::game::Item::Event(_) => typed += 1,
                    demokit::source::game::Item::Players { tick, players } => positions.extend(
                        players
                            .iter()
                            .filter(|p| p.in_pvs && p.origin.is_some())
                            .map(|p| (*tick, p.index)),
                    ),
                    _ => {}
                },
            )
            .unwrap();
            assert!(error.is_none());
            add("game_events", typed);
            add("ticks", positions.len());
            add("chat", log.chat.len());
            add("players", log.players.len());
        }
    }
    rows
}

/// Exports `files` through the library into `dir`.
fn export(files: &[PathBuf], dir: &Path) -> Vec<Table> {
    let writer = DatasetWriter::create(dir).unwrap();
    let mut exporter = Exporter::new();
    let mut sink = |table, batch| writer.write(table, &batch).unwrap();
    for path in files {
        let data = std::fs::read(path).unwrap();
        exporter.add(&path.to_string_lossy(), &data, &mut sink);
    }
    exporter.finish(&mut sink);
    writer.finish().unwrap()
}

/// A table's file read back: its rows as batches, and its key-value metadata.
fn read_table(
    dir: &Path,
    table: Table,
) -> (Vec<demokit::export::RecordBatch>, Vec<(String, String)>) {
    let file = std::fs::File::open(dir.join(table.name()).join("part-0.parquet")).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    assert_eq!(
        builder.schema().fields(),
        table.schema().fields(),
        "{table:?}"
    );
    let metadata = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .map(|kv| (kv.key.clone(), kv.value.clone().unwrap_or_default()))
        .collect();
    let batches = builder.build().unwrap().map(Result::unwrap).collect();
    (batches, metadata)
}

fn row_count(batches: &[demokit::export::RecordBatch]) -> usize {
    batches.iter().map(|b| b.num_rows()).sum()
}

#[test]
fn the_real_recordings_export_with_the_rows_the_readers_count() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let files = recordings(&shared.join("real-fixtures"));
    common::check_total("the recordings of the corpus", files.len(), 18);
    let dir = TempDir::new("export");
    let written = export(&files, &dir.0);
    assert_eq!(written, Table::ALL, "every table gets rows");
    let expected = expected_rows(&files);
    for &table in Table::ALL {
        let (batches, metadata) = read_table(&dir.0, table);
        assert_eq!(
            row_count(&batches),
            expected[table.name()],
            "{}",
            table.name()
        );
        assert!(metadata.contains(&(
            "demokit.schema_version".to_owned(),
            SCHEMA_VERSION.to_string()
        )));
    }
    // One row per recording, none with an error, in the order given.
    let (batches, _) = read_table(&dir.0, Table::Files);
    let mut listed = Vec::new();
    let mut errors = 0;
    for batch in &batches {
        errors += batch.column_by_name("error").unwrap().null_count();
        // `path` is dictionary-encoded; every row has one.
        let paths = batch
            .column_by_name("path")
            .unwrap()
            .as_dictionary::<Int32Type>()
            .downcast_dict::<arrow_array::StringArray>()
            .unwrap();
        listed.extend(paths.into_iter().map(|p| p.unwrap().to_owned()));
    }
    assert_eq!(errors, files.len(), "no file has an error");
    let given: Vec<String> = files
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    assert_eq!(listed, given);
}

/// The `events` table has, kind by kind, the events the game layers report, with the
/// names of the players they are about and the weapon's name beside its number.
#[test]
fn the_events_table_counts_what_the_game_layers_report() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let files = recordings(&shared.join("real-fixtures"));
    let dir = TempDir::new("export-events");
    export(&files, &dir.0);
    let (batches, _) = read_table(&dir.0, Table::Events);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut named = 0;
    for batch in &batches {
        let kinds = batch.column_by_name("kind").unwrap().as_string::<i32>();
        let names = batch
            .column_by_name("name")
            .unwrap()
            .as_dictionary::<Int32Type>();
        let name_values = names.values().as_string::<i32>();
        let name = |i: usize| name_values.value(names.keys().value(i) as usize);
        let weapons = batch
            .column_by_name("weapon")
            .unwrap()
            .as_primitive::<Int32Type>();
        let weapon_names = batch
            .column_by_name("weapon_name")
            .unwrap()
            .as_string::<i32>();
        for i in 0..batch.num_rows() {
            *counts.entry(kinds.value(i).to_owned()).or_insert(0) += 1;
            named += usize::from(!name(i).is_empty());
            assert_eq!(weapons.is_null(i), weapon_names.is_null(i), "row {i}");
            if weapons.is_valid(i) {
                assert_eq!(
                    demokit::gamenet::names::weapon_name(weapons.value(i)),
                    Some(weapon_names.value(i))
                );
            }
        }
    }
    let mut expected: BTreeMap<String, usize> = BTreeMap::new();
    for path in &files {
        for (kind, n) in expected_events(path) {
            *expected.entry(kind.to_owned()).or_insert(0) += n;
        }
    }
    println!("events by kind: {counts:?}");
    assert_eq!(counts, expected);
    assert!(counts.get("join").is_some_and(|&n| n > 0), "{counts:?}");
    assert!(named > 0, "some events name their player");
    // The units are in the schema, which the Parquet files keep (`read_table` compares).
    let schema = Table::Ticks.schema();
    let unit = |column: &str| {
        schema
            .field_with_name(column)
            .unwrap()
            .metadata()
            .get("unit")
            .cloned()
    };
    assert_eq!(
        unit("x").as_deref(),
        Some("world units (Teeworlds/DDNet: 32 to a tile; Source: Hammer units)")
    );
    assert_eq!(
        unit("tick").as_deref(),
        Some("server ticks (Teeworlds/DDNet: 50 a second; Source: the demo's own tick rate)")
    );
    assert_eq!(unit("client_id"), None);
}

#[test]
fn a_cut_recording_keeps_its_rows_before_the_cut_and_names_the_error() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = shared.join("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian");
    let data = std::fs::read(&path).unwrap();
    let cut = &data[..data.len() / 2];
    let mut tables: BTreeMap<Table, usize> = BTreeMap::new();
    let mut files = Vec::new();
    let mut exporter = Exporter::new();
    let mut sink = |table: Table, batch: demokit::export::RecordBatch| {
        *tables.entry(table).or_default() += batch.num_rows();
        if table == Table::Files {
            files.push(batch);
        }
    };
    exporter.add("cut.teehistorian", cut, &mut sink);
    exporter.add("not-a-recording.txt", b"hello", &mut sink);
    exporter.finish(&mut sink);
    // The inputs before the cut, counted by the reader on the same bytes.
    let th = TeehistorianSlice::parse(cut).unwrap();
    let inputs = Events::new(th.messages())
        .map_while(Result::ok)
        .filter(|e| matches!(e.kind, EventKind::Input { .. }))
        .count();
    assert!(inputs > 0);
    assert_eq!(tables[&Table::Inputs], inputs);
    let batch = &files[0];
    assert_eq!(batch.num_rows(), 2);
    let errors = batch
        .column_by_name("error")
        .unwrap()
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .unwrap();
    let offsets = batch
        .column_by_name("error_offset")
        .unwrap()
        .as_any()
        .downcast_ref::<arrow_array::UInt64Array>()
        .unwrap();
    assert!(!errors.value(0).is_empty() && !errors.value(1).is_empty());
    assert_eq!(arrow_array::Array::null_count(errors), 0);
    assert!(offsets.value(0) > 0 && offsets.value(0) <= cut.len() as u64);
    assert_eq!(offsets.value(1), 0);
}

/// Every batch an export of one file gives, by table, in order.
fn batches_of<T>(
    add: impl FnOnce(&mut Exporter, &mut dyn FnMut(Table, RecordBatch)) -> T,
) -> Vec<(Table, RecordBatch)> {
    batches_of_exporter(Exporter::new(), add)
}

/// [`batches_of`] with `exporter`.
fn batches_of_exporter<T>(
    mut exporter: Exporter,
    add: impl FnOnce(&mut Exporter, &mut dyn FnMut(Table, RecordBatch)) -> T,
) -> Vec<(Table, RecordBatch)> {
    let mut out = Vec::new();
    let mut sink = |table, batch| out.push((table, batch));
    add(&mut exporter, &mut sink);
    exporter.finish(&mut sink);
    out
}

/// A teehistorian file exported as a stream from its file, and exported pipelined (walked
/// on a thread of its own), gives the batches of the whole file in memory read on one
/// thread: the real recordings, DDNet's reference
/// file, a generated file of 3,000 ticks of 64 players (several batches), each of them
/// also cut in half.
#[test]
fn a_streamed_teehistorian_exports_as_the_whole_file_does() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(shared.join("real-fixtures/teehistorian"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.push(shared.join("conformance/ddnet-recorder/ref.teehistorian"));
    let mut named: Vec<(String, Vec<u8>)> = paths
        .iter()
        .map(|p| (p.to_string_lossy().into_owned(), std::fs::read(p).unwrap()))
        .collect();
    let generated = common::server::record_generated(Vec::new(), 3_000, FlushPolicy::Never);
    named.push(("generated.teehistorian".to_owned(), generated));
    for (name, data) in named {
        files.push((format!("{name} (cut)"), data[..data.len() / 2].to_vec()));
        files.push((name, data));
    }
    let dir = TempDir::new("export-streamed");
    let mut compared = 0;
    for (name, data) in &files {
        let whole = batches_of(|e, sink| e.add_modified(name, Some(7), data, sink));
        let pipelined = batches_of_exporter(Exporter::new().pipelined(true), |e, sink| {
            e.add_modified(name, Some(7), data, sink)
        });
        assert_eq!(pipelined, whole, "{name}, pipelined");
        // Streamed from its file, on one thread and on two.
        let file = dir.path("streamed.teehistorian");
        std::fs::write(&file, data).unwrap();
        let recording = Recording::open(&file).unwrap();
        for pipelined in [false, true] {
            let exporter = Exporter::new().pipelined(pipelined);
            let streamed = batches_of_exporter(exporter, |e, sink| {
                e.add_recording(name, Some(7), &recording, sink)
            });
            assert_eq!(streamed, whole, "{name}, streamed, pipelined {pipelined}");
            compared += 1;
        }
    }
    // Every whole file and the cut ones that keep their header.
    assert!(
        compared > files.len(),
        "{compared} of {} files",
        files.len()
    );
}

/// A teehistorian file's `ticks` and `inputs` rows hold the values the semantic layer
/// gives, in its order: every player's position after each tick, every input as it
/// applied; and the path of each row is its own file's when two files share a batch.
#[test]
fn teehistorian_rows_hold_the_semantic_layers_values() {
    let generated = common::server::record_generated(Vec::new(), 300, FlushPolicy::Never);
    let files = [
        ("a.teehistorian", &generated[..]),
        ("b.teehistorian", &generated[..generated.len() / 3]),
    ];
    let batches = batches_of(|e, sink| {
        for (name, data) in files {
            e.add(name, data, sink);
        }
    });
    let (mut ticks, mut inputs) = (Vec::new(), Vec::new());
    for (table, batch) in &batches {
        let int = |name: &str| {
            batch
                .column_by_name(name)
                .unwrap()
                .as_primitive::<Int32Type>()
                .clone()
        };
        let paths = batch
            .column_by_name("path")
            .unwrap()
            .as_dictionary::<Int32Type>();
        let path_values = paths.values().as_string::<i32>();
        let path = |i: usize| path_values.value(paths.keys().value(i) as usize).to_owned();
        match table {
            Table::Ticks => {
                let (tick, cid, x, y) = (int("tick"), int("client_id"), int("x"), int("y"));
                for i in 0..batch.num_rows() {
                    ticks.push((path(i), tick.value(i), cid.value(i), x.value(i), y.value(i)));
                }
            }
            Table::Inputs => {
                let (tick, cid, aim) = (int("tick"), int("client_id"), int("target_x"));
                let new = batch.column_by_name("new").unwrap().as_boolean().clone();
                for i in 0..batch.num_rows() {
                    inputs.push((
                        path(i),
                        tick.value(i),
                        cid.value(i),
                        aim.value(i),
                        new.value(i),
                    ));
                }
            }
            _ => {}
        }
    }
    let (mut want_ticks, mut want_inputs) = (Vec::new(), Vec::new());
    for (name, data) in files {
        let file = TeehistorianSlice::parse(data).unwrap();
        let mut events = Events::new(file.messages());
        while let Some(Ok(event)) = events.next() {
            match event.kind {
                EventKind::TickEnd => {
                    for (cid, (x, y)) in events.world().players() {
                        want_ticks.push((name.to_owned(), event.tick, cid, x, y));
                    }
                }
                EventKind::Input { cid, input, new } => {
                    want_inputs.push((name.to_owned(), event.tick, cid, input[1], new));
                }
                _ => {}
            }
        }
    }
    assert!(
        want_ticks.len() > 300 * 32,
        "{} tick rows",
        want_ticks.len()
    );
    assert!(
        want_inputs.len() > 300 * 16,
        "{} input rows",
        want_inputs.len()
    );
    assert_eq!(ticks, want_ticks);
    assert_eq!(inputs, want_inputs);
}

/// A recording opened from a path (streamed) gives the partition and the rows of the same
/// bytes in memory: a teehistorian file, one cut inside its header, a demo.
#[test]
fn recordings_opened_from_a_path_export_as_their_bytes_do() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = TempDir::new("export-file-input");
    let fixtures = shared.join("real-fixtures");
    let teehistorian =
        std::fs::read(fixtures.join("teehistorian/v2_ddnet201_dm1.teehistorian")).unwrap();
    let cases = [
        ("whole.teehistorian", teehistorian.clone()),
        ("header-cut.teehistorian", teehistorian[..40].to_vec()),
        (
            "game.demo",
            std::fs::read(fixtures.join("twdemo/v3_tw061_server_dm1.demo")).unwrap(),
        ),
    ];
    for (name, data) in cases {
        dir.write(name, &data);
        let recording = Recording::open(dir.path(name)).unwrap();
        assert_eq!(
            Partition::of_recording(&recording, Some(7)),
            Partition::of(&data, Some(7)),
            "{name}"
        );
        let whole = batches_of(|e, sink| e.add_modified(name, Some(7), &data, sink));
        let opened = batches_of(|e, sink| e.add_recording(name, Some(7), &recording, sink));
        assert_eq!(opened, whole, "{name}");
    }
}

/// Runs `demokit export INPUT -o OUT EXTRA...`, which must succeed; returns what it said
/// on stderr.
fn cli_export_with(input: &Path, out: &Path, extra: &[&str]) -> String {
    let (code, said) = cli_export_status(input, out, extra);
    assert_eq!(code, Some(0), "{said}");
    said
}

/// Runs `demokit export INPUT -o OUT EXTRA...`: its exit code and stderr.
fn cli_export_status(input: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "export".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let run = crate::run::demokit(&args);
    (run.status.code(), crate::run::stderr(&run))
}

/// Runs `demokit export INPUT -o OUT` (the default layout, partitioned by format and date).
fn cli_export(input: &Path, out: &Path) -> String {
    cli_export_with(input, out, &[])
}

/// The files under `dir` a dataset reader sees (not hidden ones), recursively, as paths
/// relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().unwrap().to_string_lossy().starts_with('.') {
                // Hidden: the lock and parts in progress, which readers pass over.
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                out.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// The rows of a Parquet file.
/// The rows of every visible Parquet part under `dir`, recursively (hidden parts, a run's
/// temporary ones, left out as readers leave them out).
pub(crate) fn visible_rows(dir: &Path) -> usize {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for path in entries.map(|e| e.unwrap().path()) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".parquet") && !name.starts_with('.') {
                total += parquet_rows(&path);
            }
        }
    }
    total
}

/// The rows of one Parquet file.
pub(crate) fn parquet_rows(path: &Path) -> usize {
    let file = std::fs::File::open(path).unwrap();
    ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum()
}

#[test]
fn the_cli_exports_a_directory() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = TempDir::new("export-cli");
    let (code, said) = cli_export_status(
        &shared.join("real-fixtures"),
        &dir.0,
        &["--partition-by", "none"],
    );
    // The two files of `negative/` are named like recordings and are none (a text file
    // and a GoldSrc demo): each gets its `files` row, the run counts them failed and
    // exits 1; the maps, facts.json and the README are passed over.
    assert_eq!(code, Some(1), "{said}");
    let files = recordings(&shared.join("real-fixtures"));
    let n = files.len();
    let (mut failed, mut skipped) = (0, 0);
    let mut stack = vec![shared.join("real-fixtures")];
    while let Some(dir) = stack.pop() {
        for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                stack.push(path);
            } else if !files.contains(&path) {
                match demokit::recording::Format::by_extension(&path) {
                    Some(_) => failed += 1,
                    None => skipped += 1,
                }
            }
        }
    }
    assert_eq!(failed, 2);
    assert!(
        said.contains(&format!("exported {} files", n + failed)),
        "{said}"
    );
    assert!(
        said.contains(&format!(": {n} ok, 0 partial, 2 failed, {skipped} skipped")),
        "{said}"
    );
    assert!(
        said.contains("  failed: ") && said.contains("kog_dummy_invalid.teehistorian"),
        "{said}"
    );
    let mut expected = expected_rows(&files);
    // The failed files have their `files` rows too.
    *expected.get_mut("files").unwrap() += failed;
    for &table in Table::ALL {
        let (batches, _) = read_table(&dir.0, table);
        assert_eq!(
            row_count(&batches),
            expected[table.name()],
            "{}",
            table.name()
        );
    }
    // The flat layout: one part per table, no partition directories, and no file left
    // under a temporary name.
    for &table in Table::ALL {
        let names: Vec<_> = std::fs::read_dir(dir.0.join(table.name()))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["part-0.parquet"]);
    }
}

/// A table's columns as `docs/export.md` lists them: `` `name` type ``, `?` after a nullable
/// type.
fn readme_columns(table: Table) -> String {
    table
        .schema()
        .fields()
        .iter()
        .map(|f| {
            let ty = match f.data_type() {
                arrow_schema::DataType::Int32 => "int32",
                arrow_schema::DataType::Int64 => "int64",
                arrow_schema::DataType::UInt64 => "uint64",
                arrow_schema::DataType::Boolean => "bool",
                arrow_schema::DataType::Utf8 => "string",
                arrow_schema::DataType::Dictionary(key, value)
                    if **key == arrow_schema::DataType::Int32
                        && **value == arrow_schema::DataType::Utf8 =>
                {
                    "dictionary string"
                }
                other => panic!("no README name for {other}"),
            };
            let null = if f.is_nullable() { "?" } else { "" };
            format!("`{}` {ty}{null}", f.name())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The schema table of `docs/export.md` (the tables' reference, which the README links to)
/// lists every table's columns as the declarations make them, and names the schema version.
#[test]
fn the_readme_lists_the_schemas() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/export.md")).unwrap();
    let missing: Vec<String> = Table::ALL
        .iter()
        .map(|&table| format!("| `{}` | {} |", table.name(), readme_columns(table)))
        .filter(|line| !doc.contains(line.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/export.md lacks the lines\n{}",
        missing.join("\n")
    );
    assert!(doc.contains(&format!("schema version {SCHEMA_VERSION}")));
    // The units table: every column with a unit is in the row of that unit, and every
    // column the table names has that unit.
    let units: Vec<(Vec<&str>, &str)> = doc
        .lines()
        .skip_while(|l| !l.starts_with("| columns | unit |"))
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let names = cells[0]
                .trim_start_matches("| ")
                .split(", ")
                .map(|n| n.trim_matches('`'))
                .collect();
            (names, cells[1].trim_end_matches(" |"))
        })
        .collect();
    assert!(!units.is_empty(), "docs/export.md has no units table");
    for table in Table::ALL {
        for field in table.schema().fields() {
            let documented = units
                .iter()
                .find(|(names, _)| names.contains(&field.name().as_str()));
            let declared = demokit::export::units::unit(field.name());
            assert_eq!(
                documented.is_some(),
                declared.is_some(),
                "{}.{}: docs/export.md's units and the declarations disagree",
                table.name(),
                field.name()
            );
        }
    }
    for (names, _) in &units {
        for name in names {
            assert!(
                demokit::export::units::unit(name).is_some(),
                "docs/export.md gives {name} a unit the declarations do not"
            );
        }
    }
}

/// The Python with `duckdb` and `pyarrow` that `.ci/run` sets up (`DEMOKIT_PYTHON`), or
/// `None` with a printed reason elsewhere; in CI a missing one fails.
fn python_with_duckdb() -> Option<String> {
    if let Ok(python) = std::env::var("DEMOKIT_PYTHON") {
        return Some(python);
    }
    let found = std::process::Command::new("python3")
        .args(["-c", "import duckdb, pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some("python3".into());
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "CI=true but DEMOKIT_PYTHON is unset: .ci/run makes a virtualenv with duckdb and pyarrow"
        );
    }
    crate::common::skip::skipped(
        "no python3 with duckdb and pyarrow (set DEMOKIT_PYTHON, or run .ci/run)",
    );
    None
}

/// DuckDB and pyarrow read the dataset the CLI writes with the rows the readers count.
#[test]
fn duckdb_and_pyarrow_read_the_dataset() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let Some(python) = python_with_duckdb() else {
        return;
    };
    let dir = TempDir::new("export-duckdb");
    // negative/'s two files named like recordings fail (exit 1), their `files` rows kept.
    let (code, said) = cli_export_status(&shared.join("real-fixtures"), &dir.0, &[]);
    assert_eq!(code, Some(1), "{said}");
    let mut expected = expected_rows(&recordings(&shared.join("real-fixtures")));
    *expected.get_mut("files").unwrap() += 2;
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/python/check_export.py"
    );
    let run = std::process::Command::new(&python)
        .arg(script)
        .arg(&dir.0)
        .arg(serde_json::to_string(&expected).unwrap())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    println!("{said}{}", String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "{said}");
    assert!(said.contains("fastest demo:"));
}

/// A second export into the same (partitioned) dataset skips the files it holds and adds
/// no part; a changed file is exported again into a new part of its partition.
#[test]
fn a_second_export_adds_only_what_changed() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let inputs = TempDir::new("export-incremental-in");
    let fixtures = shared.join("real-fixtures");
    for name in [
        "twdemo/v3_tw061_server_dm1.demo",
        "teehistorian/v2_ddnet201_dm1.teehistorian",
    ] {
        let data = std::fs::read(fixtures.join(name)).unwrap();
        inputs.write(name.split('/').next_back().unwrap(), &data);
    }
    let dir = TempDir::new("export-incremental-out");
    let export = || cli_export(&inputs.0, &dir.0);
    assert!(export().contains("exported 2 files"));
    let first = files_under(&dir.0);
    assert!(
        first.contains(&"files/format=twdemo/date=2026-11-22/part-0.parquet".to_owned()),
        "{first:?}"
    );
    let said = export();
    assert!(
        said.contains("exported 0 files") && said.contains("2 unchanged"),
        "{said}"
    );
    assert_eq!(files_under(&dir.0), first, "the second run adds no part");
    // A changed file (here: a new modification time) is read again.
    let changed = inputs.path("v3_tw061_server_dm1.demo");
    let later = std::fs::metadata(&changed).unwrap().modified().unwrap()
        + std::time::Duration::from_secs(10);
    std::fs::File::options()
        .write(true)
        .open(&changed)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let said = export();
    assert!(
        said.contains("exported 1 files") && said.contains("1 unchanged"),
        "{said}"
    );
    let added: Vec<String> = files_under(&dir.0)
        .into_iter()
        .filter(|f| !first.contains(f))
        .collect();
    assert!(
        added.contains(&"files/format=twdemo/date=2026-11-22/part-1.parquet".to_owned()),
        "{added:?}"
    );
    assert_eq!(
        parquet_rows(
            &dir.0
                .join("files/format=twdemo/date=2026-11-22/part-1.parquet")
        ),
        1
    );
    // A third run finds the changed file in the new part.
    assert!(export().contains("exported 0 files"));
}

/// A run refuses to add to a dataset of another schema version (here: a `files` part
/// claiming version 1, with plain string paths), rather than mix two schemas in it.
#[test]
fn a_dataset_of_another_schema_version_is_refused() {
    use std::sync::Arc;
    let input = TempDir::new("export-version-in");
    input.write("empty.teehistorian", b"not a recording");
    let dir = TempDir::new("export-version-out");
    let part = dir.0.join("files/part-0.parquet");
    std::fs::create_dir_all(part.parent().unwrap()).unwrap();
    let schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
        "path",
        arrow_schema::DataType::Utf8,
        false,
    )]));
    let properties = parquet::file::properties::WriterProperties::builder()
        .set_key_value_metadata(Some(vec![parquet::file::metadata::KeyValue::new(
            "demokit.schema_version".to_owned(),
            "1".to_owned(),
        )]))
        .build();
    let mut writer = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&part).unwrap(),
        schema.clone(),
        Some(properties),
    )
    .unwrap();
    let paths = arrow_array::StringArray::from(vec!["old.demo"]);
    writer
        .write(&arrow_array::RecordBatch::try_new(schema, vec![Arc::new(paths)]).unwrap())
        .unwrap();
    writer.close().unwrap();
    let err = DatasetWriter::create(&dir.0)
        .unwrap()
        .exported()
        .unwrap_err();
    assert!(
        err.to_string().contains(&format!(
            "schema version 1, this demokit writes {SCHEMA_VERSION}"
        )),
        "{err}"
    );
    let args: Vec<&std::ffi::OsStr> = vec![
        "export".as_ref(),
        input.0.as_os_str(),
        "-o".as_ref(),
        dir.0.as_os_str(),
    ];
    let run = crate::run::demokit(&args);
    assert!(!run.status.success());
    assert!(
        crate::run::stderr(&run).contains("export into a new directory"),
        "{}",
        crate::run::stderr(&run)
    );
    assert_eq!(
        files_under(&dir.0),
        ["files/part-0.parquet"],
        "nothing written"
    );
}

/// An input that cannot be read fails the export as it fails `info` (exit 3), after its
/// row is in `files`: a script sees the failure, the dataset keeps the record of it.
#[test]
fn an_unreadable_input_fails_the_export_with_exit_3() {
    let dir = TempDir::new("export-missing");
    let missing = dir.path("missing.demo");
    let out = dir.path("ds");
    let run = crate::run::demokit(&[
        "export".as_ref(),
        missing.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(run.status.code(), Some(3), "{}", crate::run::stderr(&run));
    let said = crate::run::stderr(&run);
    assert!(
        said.contains("1 file: 0 ok, 0 partial, 1 failed, 0 skipped")
            && said.contains(&format!("  failed: {}", missing.display())),
        "{said}"
    );
    let info = crate::run::demokit(&["info".as_ref(), missing.as_os_str()]);
    assert_eq!(info.status.code(), Some(3));
}

/// The `(tick, client_id, name)` of every `ticks` row in `batches`.
fn tick_names(batches: &[(Table, RecordBatch)]) -> Vec<(i32, i32, String)> {
    let mut rows = Vec::new();
    for (_, batch) in batches.iter().filter(|(t, _)| *t == Table::Ticks) {
        let int = |name: &str| {
            batch
                .column_by_name(name)
                .unwrap()
                .as_primitive::<Int32Type>()
                .clone()
        };
        let (tick, cid) = (int("tick"), int("client_id"));
        let names = batch
            .column_by_name("name")
            .unwrap()
            .as_dictionary::<Int32Type>();
        let values = names.values().as_string::<i32>();
        for i in 0..batch.num_rows() {
            let name = values.value(names.keys().value(i) as usize).to_owned();
            rows.push((tick.value(i), cid.value(i), name));
        }
    }
    rows
}

/// A teehistorian file's `ticks` rows carry each player's name at that tick: none before
/// the server names it, the new one from the tick of a rename (by the server's record or
/// by the client's own `Cl_ChangeInfo`), a rejoined client id's new name after a drop,
/// unchanged by chat, team changes and an info change that keeps the name; in one pass
/// and pipelined alike, and not carried over into the next file of the same exporter.
#[test]
fn teehistorian_ticks_rows_name_the_player_then() {
    use demokit::codec::string::NulStr;
    use demokit::gamenet::{AnyMessage, PackMessage, Protocol, six};
    use demokit::teehistorian::{Header, Recorder};
    // Client 1's own info change, as its client sends it.
    let change_info = |name: &str| {
        let message = AnyMessage::Six(six::Message::ClChangeInfo(six::ClChangeInfo {
            name: NulStr(name.as_bytes().to_vec().into()),
            clan: NulStr(b"clan".to_vec().into()),
            country: -1,
            skin: NulStr(b"default".to_vec().into()),
            use_custom_color: 0,
            color_body: 0,
            color_feet: 0,
        }));
        let mut out = Vec::new();
        message.pack_message(&mut out).unwrap();
        out
    };
    let header = Header {
        map_name: Some("names".into()),
        ..Header::new("2")
    };
    let mut rec = Recorder::new(Vec::new(), &header).unwrap();
    for cid in [0, 1] {
        rec.record_player_join(cid, Protocol::Six).unwrap();
    }
    rec.record_player_name(1, "bob").unwrap();
    let mut want = Vec::new();
    for tick in 1..=12 {
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        for cid in [0, 1] {
            // Client 0 leaves in tick 8's inputs (its character still there at that
            // tick's end, its name gone), has none in tick 9, and is back in tick 9's
            // inputs under another name.
            if tick == 9 && cid == 0 {
                rec.record_dead_player(cid).unwrap();
            } else {
                rec.record_player(cid, 10 * tick, cid).unwrap();
            }
        }
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        match tick {
            3 => rec.record_player_name(0, "alice").unwrap(),
            4 => rec.record_player_message(1, &change_info("bobby")).unwrap(),
            // Chat, a team change and an info change that keeps the name rename no one.
            5 => {
                rec.record_player_message(1, b"\x04\x00hello\0").unwrap();
                rec.record_player_team(0, 1).unwrap();
                rec.record_player_message(1, &change_info("bobby")).unwrap();
            }
            6 => rec.record_player_name(1, "robert").unwrap(),
            8 => rec.record_player_drop(0, "gone").unwrap(),
            9 => {
                rec.record_player_join(0, Protocol::Six).unwrap();
                rec.record_player_name(0, "carol").unwrap();
            }
            _ => {}
        }
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
        let zero = match tick {
            1..=2 => Some(""),
            3..=7 => Some("alice"),
            8 => Some(""),
            9 => None,
            _ => Some("carol"),
        };
        let one = match tick {
            1..=3 => "bob",
            4..=5 => "bobby",
            _ => "robert",
        };
        if let Some(zero) = zero {
            want.push((tick, 0, zero.to_owned()));
        }
        want.push((tick, 1, one.to_owned()));
    }
    let data = rec.finish().unwrap();
    for pipelined in [false, true] {
        let batches = batches_of_exporter(Exporter::new().pipelined(pipelined), |e, sink| {
            e.add("a.teehistorian", &data, sink);
            e.add("b.teehistorian", &data, sink);
        });
        let rows = tick_names(&batches);
        let twice: Vec<_> = want.iter().chain(&want).cloned().collect();
        assert_eq!(rows, twice, "pipelined {pipelined}");
    }
    // Asked for without names, the rows are the same but for the column.
    let selection = demokit::export::TickSelection {
        columns: Some(demokit::export::TickSelection::column_indexes(&["tick", "x"]).unwrap()),
        ..Default::default()
    };
    let exporter = Exporter::new().select_ticks(selection);
    let schema = exporter.schema(Table::Ticks);
    let batches = batches_of_exporter(exporter, |e, sink| e.add("a.teehistorian", &data, sink));
    let ticks: Vec<_> = batches.iter().filter(|(t, _)| *t == Table::Ticks).collect();
    assert_eq!(ticks.len(), 1);
    assert_eq!(ticks[0].1.schema(), schema);
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["tick", "x"]);
    assert_eq!(ticks[0].1.num_rows(), want.len());
}

/// On the real recordings, every `ticks` row names its player: a demo's row the name of
/// the player item of that tick's snapshot, a teehistorian row as the game layer's roster
/// names the client then; and each player's last row has the last name the `players`
/// table gives that client id.
#[test]
fn real_ticks_rows_name_their_players() {
    use demokit::teehistorian::TickWalk;
    use demokit::teehistorian::game::EventLogger;
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut checked = 0;
    for path in recordings(&shared.join("real-fixtures")) {
        let data = std::fs::read(&path).unwrap();
        let mut want = Vec::new();
        // The rows of the ticks walked, each tick the file did not store filled with the
        // rows of the tick before (the game model's rule, `demokit::model::filled_ticks`).
        let mut last: Option<(i32, Vec<(i32, String)>)> = None;
        let mut filled_push =
            |want: &mut Vec<(i32, i32, String)>, tick: i32, rows: Vec<(i32, String)>| {
                if let Some((before, previous)) = &last
                    && let Some(skipped) = demokit::model::filled_ticks(Some(*before), tick)
                {
                    for t in skipped {
                        want.extend(previous.iter().map(|(c, n)| (t, *c, n.clone())));
                    }
                }
                want.extend(rows.iter().map(|(c, n)| (tick, *c, n.clone())));
                last = Some((tick, rows));
            };
        match detect(&data) {
            Some(Format::TwDemo) => {
                let Ok(demo) = DemoSlice::parse(&data) else {
                    continue;
                };
                let mut replay = GameReplay::new(&demo);
                while let Some(Ok(tick)) = replay.next() {
                    let mut rows = Vec::new();
                    for c in tick.world.characters() {
                        let name = tick.world.player(c.client_id).map(|p| p.name.clone());
                        rows.push((c.client_id, name.unwrap_or_default()));
                    }
                    filled_push(&mut want, tick.tick, rows);
                }
            }
            Some(Format::Teehistorian) => {
                let th = TeehistorianSlice::parse(&data).unwrap();
                let mut walk = TickWalk::new(&th);
                let mut log = EventLogger::new();
                while let Some(Ok(tick)) = walk.next_tick(|e| log.add(&e)) {
                    let mut rows = Vec::new();
                    for (cid, _) in walk.world().players() {
                        let name = log.roster().player(cid).map(|p| p.name.clone());
                        rows.push((cid, name.unwrap_or_default()));
                    }
                    filled_push(&mut want, tick, rows);
                }
            }
            _ => continue,
        }
        let name = path.to_string_lossy().into_owned();
        let batches = batches_of(|e, sink| e.add(&name, &data, sink));
        let rows = tick_names(&batches);
        assert_eq!(rows, want, "{name}");
        // Each client id's last row against the players table's last name.
        for (_, batch) in batches.iter().filter(|(t, _)| *t == Table::Players) {
            let cids = batch
                .column_by_name("client_id")
                .unwrap()
                .as_primitive::<Int32Type>();
            let names = batch.column_by_name("name").unwrap().as_string::<i32>();
            let last = batch
                .column_by_name("last_tick")
                .unwrap()
                .as_primitive::<Int32Type>();
            for i in 0..batch.num_rows() {
                let row = rows
                    .iter()
                    .rev()
                    .find(|(tick, cid, _)| *cid == cids.value(i) && *tick <= last.value(i));
                if let Some((_, _, name)) = row {
                    assert_eq!(name, names.value(i), "{name}: client {}", cids.value(i));
                }
            }
        }
        if rows.iter().any(|(_, _, name)| !name.is_empty()) {
            checked += 1;
        }
    }
    assert!(
        checked >= 5,
        "only {checked} recordings had named ticks rows"
    );
}

/// One `ticks` row per player per tick in every real recording of every format: a Source
/// demo's walk hands out several updates of one tick (TF2's gullywash had 111 rows for
/// 100 (tick, client) pairs, Left 4 Dead 1.0.0.5's 5,584 for 5,544), and the row keeps
/// the player's last state in that tick.
#[test]
fn no_two_ticks_rows_share_a_tick_and_a_client() {
    let shared = common::shared_dir().unwrap();
    let mut files = common::source_demos();
    for format in ["twdemo", "teehistorian"] {
        files.extend(
            common::facts_files(&shared, format)
                .into_iter()
                .map(|(p, _)| p),
        );
    }
    if common::has_full_corpus() || std::env::var_os("DEMOKIT_CSGO_DEMO").is_some() {
        files.extend(common::csgo_demo());
    } else {
        common::skip::partly("no CS:GO demo (none is committed; set DEMOKIT_SHARED)");
    }
    let mut checked = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let batches = batches_of(|e, sink| e.add("f", &data, sink));
        let mut seen = std::collections::HashSet::new();
        let mut rows = 0;
        for (table, batch) in &batches {
            if *table != Table::Ticks {
                continue;
            }
            let ticks = batch
                .column_by_name("tick")
                .unwrap()
                .as_primitive::<Int32Type>();
            let ids = batch
                .column_by_name("client_id")
                .unwrap()
                .as_primitive::<Int32Type>();
            for i in 0..batch.num_rows() {
                rows += 1;
                assert!(
                    seen.insert((ticks.value(i), ids.value(i))),
                    "{}: two rows of client {} at tick {}",
                    path.display(),
                    ids.value(i),
                    ticks.value(i)
                );
            }
        }
        checked += usize::from(rows > 0);
    }
    assert!(checked >= 15, "only {checked} recordings had ticks rows");
}
