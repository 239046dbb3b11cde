//! The Hive-partitioned layout of `demokit export` datasets
//! (`<table>/format=<format>/date=<YYYY-MM-DD>/part-<n>.parquet`): the directories the
//! real recordings get, each `files` row in the partition of its own format and date, the
//! same rows per table as the flat layout, the other `--partition-by` layouts, and the
//! bound on open part files (more partitions than it still give every row).

use crate::common;

use common::temp::TempDir;
use demokit::export::{
    DatasetWriter, Exporter, NULL_PARTITION, Partition, Partitioning, RecordBatch, Table,
};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

/// 2001-02-03T04:05:06Z: the modification time the copies of the recordings get.
const MODIFIED: u64 = 981_173_106;

/// Sets a file's modification time to `secs` since the Unix epoch.
fn set_modified(path: &Path, secs: u64) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

/// Copies the real recordings (demos, teehistorian files, Source demos) into a directory
/// of their own, each modified at [`MODIFIED`].
fn copied_recordings(shared: &Path) -> TempDir {
    let dir = TempDir::new("partitions-in");
    for folder in ["twdemo", "teehistorian", "source"] {
        let from = shared.join("real-fixtures").join(folder);
        for entry in std::fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            let name = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
            let copy = dir.write(&name, &std::fs::read(&path).unwrap());
            set_modified(&copy, MODIFIED);
        }
    }
    dir
}

/// Runs `demokit export INPUT -o OUT EXTRA...`, which must succeed; returns its stderr.
fn cli_export(input: &Path, out: &Path, extra: &[&str]) -> String {
    cli_export_all(&[input.to_path_buf()], out, extra)
}

/// Runs `demokit export INPUTS... -o OUT EXTRA...`, which must succeed; returns its stderr.
fn cli_export_all(inputs: &[PathBuf], out: &Path, extra: &[&str]) -> String {
    cli_export_exiting(inputs, out, extra, 0)
}

/// Runs `demokit export INPUTS... -o OUT EXTRA...`, which must exit with `code` (1: some
/// input named is no recording, its `files` row written all the same); returns its stderr.
fn cli_export_exiting(inputs: &[PathBuf], out: &Path, extra: &[&str], code: i32) -> String {
    let mut args: Vec<&std::ffi::OsStr> = vec!["export".as_ref()];
    args.extend(inputs.iter().map(|p| p.as_os_str()));
    args.extend(["-o".as_ref(), out.as_os_str()]);
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let run = crate::run::demokit(&args);
    assert_eq!(
        run.status.code(),
        Some(code),
        "{}",
        crate::run::stderr(&run)
    );
    crate::run::stderr(&run)
}

/// The files under `dir` a dataset reader sees (not hidden ones), recursively, relative
/// to it, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
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
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// A Parquet file's batches.
fn read_parquet(path: &Path) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).unwrap();
    ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Rows per table, summed over every part in any directory under it.
fn rows_per_table(dataset: &Path) -> BTreeMap<String, usize> {
    let mut rows = BTreeMap::new();
    for file in files_under(dataset) {
        let table = file.iter().next().unwrap().to_string_lossy().into_owned();
        let n: usize = read_parquet(&dataset.join(&file))
            .iter()
            .map(|b| b.num_rows())
            .sum();
        *rows.entry(table).or_insert(0) += n;
    }
    rows
}

/// The partition directories (between the table and the part) of a table's parts.
fn partition_dirs(dataset: &Path, table: &str) -> BTreeSet<String> {
    files_under(&dataset.join(table))
        .iter()
        .map(|f| f.parent().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// A string column's values.
fn strings(batch: &RecordBatch, column: &str) -> Vec<Option<String>> {
    let column = batch.column_by_name(column).unwrap();
    let column = column
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .unwrap();
    column.iter().map(|v| v.map(str::to_owned)).collect()
}

#[test]
fn the_default_layout_partitions_the_real_recordings_by_format_and_date() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let input = copied_recordings(&shared);
    let recordings = ["twdemo", "teehistorian", "source"]
        .map(|f| common::facts_files(&shared, f).len())
        .iter()
        .sum::<usize>();
    common::check_total("the corpus's recordings", recordings, 17);
    let out = TempDir::new("partitions-out");
    let said = cli_export(&input.0, &out.0, &[]);
    assert!(
        said.contains(&format!("exported {recordings} files")),
        "{said}"
    );
    // Demos and teehistorian files by the date their headers give (facts.json has the
    // demos' timestamps), Source demos (which give none) by their modification date in UTC.
    let mut expected: BTreeSet<String> = common::twdemo_facts(&shared)
        .iter()
        .map(|(_, f)| {
            format!(
                "format=twdemo/date={}",
                &f["timestamp"].as_str().unwrap()[..10]
            )
        })
        .collect();
    expected.insert("format=teehistorian/date=2026-11-22".into());
    expected.insert("format=source/date=2001-02-03".into());
    assert_eq!(partition_dirs(&out.0, "files"), expected);
    assert_eq!(
        partition_dirs(&out.0, "frames"),
        BTreeSet::from(["format=source/date=2001-02-03".to_owned()])
    );
    assert_eq!(
        partition_dirs(&out.0, "inputs"),
        BTreeSet::from(["format=teehistorian/date=2026-11-22".to_owned()])
    );
    // Every part is complete (no temporary name left), one per partition in one run.
    for file in files_under(&out.0) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name, "part-0.parquet", "{}", file.display());
        assert_eq!(file.iter().count(), 4, "{}", file.display());
    }
    // Each `files` row is in the partition of its own format and date; the partition
    // columns are not in the files (the `files` table's own `format` column aside).
    for file in files_under(&out.0.join("files")) {
        let dir = file.parent().unwrap().to_string_lossy().into_owned();
        for batch in read_parquet(&out.0.join("files").join(&file)) {
            assert!(batch.column_by_name("date").is_none());
            let formats = strings(&batch, "format");
            let starts = strings(&batch, "start_time");
            for (format, start) in formats.iter().zip(&starts) {
                let format = format.as_deref().unwrap();
                let date = match format {
                    "source" => "2001-02-03".to_owned(),
                    _ => start.as_deref().unwrap()[..10].to_owned(),
                };
                assert_eq!(dir, format!("format={format}/date={date}"));
            }
        }
    }
    // The same rows per table as the flat layout.
    let flat = TempDir::new("partitions-flat");
    cli_export(&input.0, &flat.0, &["--partition-by", "none"]);
    for &table in Table::ALL {
        assert_eq!(
            files_under(&flat.0.join(table.name())),
            [PathBuf::from("part-0.parquet")]
        );
    }
    let rows = rows_per_table(&out.0);
    assert_eq!(rows, rows_per_table(&flat.0));
    assert_eq!(rows.len(), Table::ALL.len());
    // A second run reads every `files` part in the partitions and skips every file.
    let before = files_under(&out.0);
    let said = cli_export(&input.0, &out.0, &[]);
    assert!(
        said.contains("exported 0 files") && said.contains(&format!("{recordings} unchanged")),
        "{said}"
    );
    assert_eq!(files_under(&out.0), before);
    assert_eq!(
        DatasetWriter::create(&out.0)
            .unwrap()
            .exported()
            .unwrap()
            .len(),
        recordings
    );
}

/// Small files that are not recordings (named, the CLI exports them with their error and
/// exits 1), `count` of them, modified on `count` days in a row from 2001-02-03.
fn dated_files(count: u64) -> (TempDir, Vec<PathBuf>) {
    let dir = TempDir::new("partitions-dated");
    let mut paths = Vec::new();
    for day in 0..count {
        let path = dir.write(&format!("note-{day:02}.txt"), b"not a recording");
        set_modified(&path, MODIFIED + day * 86_400);
        paths.push(path);
    }
    (dir, paths)
}

#[test]
fn the_other_layouts_have_their_directories() {
    let (_input, inputs) = dated_files(2);
    for (by, dirs) in [
        ("format", vec!["format=unknown"]),
        ("date", vec!["date=2001-02-03", "date=2001-02-04"]),
        (
            "format,date",
            vec![
                "format=unknown/date=2001-02-03",
                "format=unknown/date=2001-02-04",
            ],
        ),
        ("none", vec![""]),
    ] {
        let out = TempDir::new("partitions-layout");
        cli_export_exiting(&inputs, &out.0, &["--partition-by", by], 1);
        let dirs: BTreeSet<String> = dirs.into_iter().map(String::from).collect();
        assert_eq!(partition_dirs(&out.0, "files"), dirs, "{by}");
        assert_eq!(rows_per_table(&out.0)["files"], 2, "{by}");
        // Only `files` has rows.
        assert_eq!(files_under(&out.0).len(), dirs.len(), "{by}");
    }
    let run = crate::run::demokit(&["export", ".", "-o", ".", "--partition-by", "map"]);
    assert!(!run.status.success());
}

#[test]
fn more_partitions_than_open_parts_still_give_every_row_in_the_cli() {
    // More dates than the CLI keeps parts open (8 per table).
    let count = demokit::export::MAX_OPEN_PARTS as u64 + 4;
    let (_input, inputs) = dated_files(count);
    let out = TempDir::new("partitions-many");
    let said = cli_export_exiting(&inputs, &out.0, &[], 1);
    assert!(said.contains(&format!("{count} failed")), "{said}");
    assert_eq!(partition_dirs(&out.0, "files").len(), count as usize);
    assert_eq!(rows_per_table(&out.0)["files"], count as usize);
    assert!(
        files_under(&out.0)
            .iter()
            .all(|f| f.extension().unwrap() == "parquet")
    );
}

#[test]
fn the_writer_closes_the_least_recently_written_part_and_opens_a_new_one_later() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let data =
        std::fs::read(shared.join("real-fixtures/source/portal2_sp_laser_relays.dem")).unwrap();
    let out = TempDir::new("partitions-lru");
    // Two parts open per table, five dates visited in turn, twice: every partition is
    // closed before its next file comes.
    let writer = DatasetWriter::with_partitioning(&out.0, Partitioning::Date)
        .unwrap()
        .max_open_parts(2);
    let mut frames_per_file = 0;
    for i in 0..10u64 {
        let modified_ns = ((MODIFIED + (i % 5) * 86_400) * 1_000_000_000) as i64;
        let partition = Partition::of(&data, Some(modified_ns));
        assert_eq!(partition.format(), Some("source"));
        // The frames alone: a table of many rows per file.
        let mut exporter = Exporter::with_tables(&[Table::Files, Table::Frames]);
        let mut frames = 0;
        let mut sink = |table: Table, batch: RecordBatch| {
            if table == Table::Frames {
                frames += batch.num_rows();
            }
            writer.write_in(table, &partition, &batch).unwrap();
        };
        exporter.add_modified(
            &format!("copy-{i}.dem"),
            Some(modified_ns),
            &data,
            &mut sink,
        );
        exporter.finish(&mut sink);
        frames_per_file = frames;
        // Nothing a reader sees is in place before `finish`.
        assert_eq!(files_under(&out.0), Vec::<PathBuf>::new());
    }
    assert!(frames_per_file > 0);
    assert_eq!(writer.finish().unwrap(), [Table::Files, Table::Frames]);
    let parts = files_under(&out.0.join("frames"));
    assert_eq!(parts.len(), 10, "a new part each time: {parts:?}");
    assert_eq!(partition_dirs(&out.0, "frames").len(), 5);
    // Each partition's first part has the run's number (0), the parts opened again the
    // table's next numbers; a later writer starts past them all.
    let names: BTreeSet<String> = parts
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let numbers = |range: std::ops::RangeInclusive<u32>| -> BTreeSet<String> {
        range.map(|n| format!("part-{n}.parquet")).collect()
    };
    assert_eq!(names, numbers(0..=5));
    let rows = rows_per_table(&out.0);
    assert_eq!(rows["files"], 10);
    assert_eq!(rows["frames"], 10 * frames_per_file);
    assert_eq!(
        DatasetWriter::create(&out.0)
            .unwrap()
            .exported()
            .unwrap()
            .len(),
        10
    );
    let writer = DatasetWriter::with_partitioning(&out.0, Partitioning::Date).unwrap();
    let batch = {
        let mut exporter = Exporter::with_tables(&[]);
        let mut batches = Vec::new();
        exporter.add("x", b"not a recording", &mut |_, b| batches.push(b));
        exporter.finish(&mut |_, b| batches.push(b));
        batches.pop().unwrap()
    };
    writer.write(Table::Files, &batch).unwrap();
    writer.finish().unwrap();
    assert!(
        out.0
            .join("files")
            .join(format!("date={NULL_PARTITION}/part-6.parquet"))
            .is_file()
    );
}

/// A part that reaches its row groups is closed and the partition's next rows go to a
/// new part: memory stays bounded however many rows one partition gets, and every row is
/// there, in parts that keep to the limit.
#[test]
fn a_full_part_is_closed_and_the_next_rows_go_to_a_new_one() {
    let data = common::server::record_generated(
        Vec::new(),
        6_000,
        demokit::teehistorian::FlushPolicy::Never,
    );
    let out = TempDir::new("partitions-row-groups");
    let writer = DatasetWriter::with_partitioning(&out.0, Partitioning::FormatDate)
        .unwrap()
        .max_row_groups_per_part(1);
    let partition = Partition::of(&data, None);
    let mut exporter = Exporter::with_tables(&[Table::Ticks]);
    let mut rows = 0;
    let mut sink = |table: Table, batch: RecordBatch| {
        if table == Table::Ticks {
            rows += batch.num_rows();
        }
        writer.write_in(table, &partition, &batch).unwrap();
    };
    exporter.add("generated.teehistorian", &data, &mut sink);
    exporter.finish(&mut sink);
    writer.finish().unwrap();
    let parts = files_under(&out.0.join("ticks"));
    assert!(parts.len() >= 2, "{parts:?}");
    for part in &parts {
        let reader = ParquetRecordBatchReaderBuilder::try_new(
            std::fs::File::open(out.0.join("ticks").join(part)).unwrap(),
        )
        .unwrap();
        // The limit's row group, and the rest of the batch that filled it.
        assert!(reader.metadata().num_row_groups() <= 2, "{part:?}");
    }
    assert_eq!(partition_dirs(&out.0, "ticks").len(), 1);
    assert_eq!(rows_per_table(&out.0)["ticks"], rows);
    assert!(rows > 300_000, "{rows} rows");
}

/// The tables of a few rows per file are written without dictionaries (a dictionary
/// column's writer makes a hash table per row group, more memory than the dictionary
/// saves on disk there); the tables of a row per tick keep them.
#[test]
fn only_the_per_tick_tables_have_dictionaries() {
    let data =
        common::server::record_generated(Vec::new(), 50, demokit::teehistorian::FlushPolicy::Never);
    let out = TempDir::new("partitions-dictionaries");
    let writer = DatasetWriter::create(&out.0).unwrap();
    let mut exporter = Exporter::new();
    let mut sink = |table: Table, batch: RecordBatch| writer.write(table, &batch).unwrap();
    exporter.add("generated.teehistorian", &data, &mut sink);
    for i in 0..50 {
        exporter.add_unreadable(&format!("recordings/{i:03}.demo"), "not a recording");
    }
    exporter.finish(&mut sink);
    writer.finish().unwrap();
    // Whether the part's column `name` has a dictionary page.
    let dictionary = |table: &str, name: &str| {
        let parts = files_under(&out.0.join(table));
        assert_eq!(parts.len(), 1, "{table}: {parts:?}");
        let reader = ParquetRecordBatchReaderBuilder::try_new(
            std::fs::File::open(out.0.join(table).join(&parts[0])).unwrap(),
        )
        .unwrap();
        let group = reader.metadata().row_group(0);
        let column = (0..group.num_columns())
            .find(|&i| group.column(i).column_path().string() == name)
            .unwrap_or_else(|| panic!("{table} has no column {name}"));
        group.column(column).dictionary_page_offset().is_some()
    };
    for (table, column) in [("files", "path"), ("files", "format"), ("players", "name")] {
        assert!(!dictionary(table, column), "{table}.{column}");
    }
    for (table, column) in [("ticks", "path"), ("ticks", "x"), ("inputs", "direction")] {
        assert!(dictionary(table, column), "{table}.{column}");
    }
}

/// Every row of a dataset's table, each as the debug text of its one-row slice of every
/// column, sorted: what a reader sees, whatever the parts and row groups.
fn sorted_rows(dataset: &Path, table: &str) -> Vec<String> {
    let mut rows = Vec::new();
    for file in files_under(&dataset.join(table)) {
        for batch in read_parquet(&dataset.join(table).join(file)) {
            for row in 0..batch.num_rows() {
                let values: Vec<String> = batch
                    .columns()
                    .iter()
                    .map(|c| {
                        // A dictionary's row as its value, not its key into the part's
                        // dictionary.
                        use arrow_array::Array;
                        use arrow_array::cast::AsArray;
                        match c.as_dictionary_opt::<arrow_array::types::Int32Type>() {
                            Some(d) if d.is_valid(row) => {
                                let key = d.keys().value(row) as usize;
                                format!("{:?}", d.values().slice(key, 1))
                            }
                            _ => format!("{:?}", c.slice(row, 1)),
                        }
                    })
                    .collect();
                rows.push(values.join("|"));
            }
        }
    }
    rows.sort();
    rows
}

/// Threads writing into one writer at once (each encoding row groups of its own, which
/// go to shared parts) give the same rows as one thread, each row once, also while parts
/// are closed for their row groups and for other partitions.
#[test]
fn threads_writing_at_once_give_every_row_once() {
    let data = common::server::record_generated(
        Vec::new(),
        150,
        demokit::teehistorian::FlushPolicy::Never,
    );
    let files: Vec<(String, i64)> = (0..12u64)
        .map(|i| {
            let day = MODIFIED + (i % 3) * 86_400;
            (
                format!("copy-{i:02}.teehistorian"),
                (day * 1_000_000_000) as i64,
            )
        })
        .collect();
    let export = |threads: usize| {
        let out = TempDir::new("partitions-threads");
        let writer = DatasetWriter::with_partitioning(&out.0, Partitioning::Date)
            .unwrap()
            .max_open_parts(2)
            .max_row_groups_per_part(2);
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    while let Some((path, modified_ns)) =
                        files.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        let partition = Partition::of(&data, Some(*modified_ns));
                        let mut sink = |table: Table, batch: RecordBatch| {
                            writer.write_in(table, &partition, &batch).unwrap()
                        };
                        let mut exporter = Exporter::new();
                        exporter.add_modified(path, Some(*modified_ns), &data, &mut sink);
                        exporter.finish(&mut sink);
                    }
                });
            }
        });
        writer.finish().unwrap();
        out
    };
    let one = export(1);
    let four = export(4);
    let rows = rows_per_table(&one.0);
    assert_eq!(rows_per_table(&four.0), rows);
    assert_eq!(rows["files"], files.len());
    assert!(rows["ticks"] > 50_000, "{rows:?}");
    assert_eq!(partition_dirs(&four.0, "ticks").len(), 3);
    for table in ["files", "ticks", "inputs", "players", "chat"] {
        assert_eq!(
            sorted_rows(&four.0, table),
            sorted_rows(&one.0, table),
            "{table}"
        );
    }
    // The parts keep to their row groups; more than one part per partition was needed.
    let parts = files_under(&four.0.join("ticks"));
    assert!(parts.len() > 3, "{parts:?}");
    for part in &parts {
        let reader = ParquetRecordBatchReaderBuilder::try_new(
            std::fs::File::open(four.0.join("ticks").join(part)).unwrap(),
        )
        .unwrap();
        assert!(reader.metadata().num_row_groups() <= 2, "{part:?}");
    }
}
