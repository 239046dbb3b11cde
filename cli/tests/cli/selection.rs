//! Selection on the command line: `--kind`, `--from/--to` and `--players` select the same
//! rows in `events`, `chat`, `players`, `export` (and `--from/--to` in `dump`), in every
//! format; a selection of nothing is a usage error that names what exists.

use crate::common;
use crate::run::{demokit, json_lines, stderr};
use common::temp::TempDir;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every row of the Parquet files under `dir`, as column name to JSON value.
fn parquet_rows(dir: &Path) -> Vec<BTreeMap<String, Value>> {
    let mut rows = Vec::new();
    for path in common::files_with_extension(dir, "parquet") {
        let file = std::fs::File::open(&path).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        for batch in reader {
            let batch = batch.unwrap();
            let schema = batch.schema();
            for row in 0..batch.num_rows() {
                rows.push(
                    schema
                        .fields()
                        .iter()
                        .zip(batch.columns())
                        .map(|(f, c)| (f.name().clone(), crate::game_model::cell(c.as_ref(), row)))
                        .collect(),
                );
            }
        }
    }
    rows
}

/// The DDNet 20.1 game recorded both ways (bundled, so this runs on a bare clone).
fn pair() -> Option<[PathBuf; 2]> {
    Some([
        common::shared_file("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo")?,
        common::shared_file("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian")?,
    ])
}

/// `demokit SUBCOMMAND FILE ARGS... --json`'s records.
fn json(subcommand: &str, file: &Path, args: &[&str]) -> Vec<Value> {
    let mut all: Vec<&std::ffi::OsStr> = vec![subcommand.as_ref(), file.as_os_str()];
    all.extend(args.iter().map(|a| -> &std::ffi::OsStr { a.as_ref() }));
    all.push("--json".as_ref());
    let out = demokit(&all);
    assert!(
        out.status.success(),
        "{subcommand} {args:?}: {}",
        stderr(&out)
    );
    json_lines(&out)
}

fn ints(records: &[Value], key: &str) -> Vec<i64> {
    records.iter().filter_map(|r| r[key].as_i64()).collect()
}

/// Each option keeps what it says and nothing else, the same way for the demo and the
/// teehistorian file of one game: kinds, ticks (both ends kept), players by id and by name.
#[test]
fn events_chat_and_players_keep_what_the_options_select() {
    let Some(files) = pair() else { return };
    for file in &files {
        let all = json("events", file, &[]);
        assert!(all.len() >= 2, "{}: {all:?}", file.display());
        let joins = json("events", file, &["--kind", "join"]);
        assert!(!joins.is_empty());
        assert!(joins.iter().all(|e| e["kind"] == "join"), "{joins:?}");
        assert_eq!(
            joins.len(),
            all.iter().filter(|e| e["kind"] == "join").count()
        );
        let both = json("events", file, &["--kind", "join,leave"]);
        assert_eq!(
            both.len(),
            all.iter()
                .filter(|e| e["kind"] == "join" || e["kind"] == "leave")
                .count()
        );
        // The second join's tick as both ends: that tick's events only.
        let tick = ints(&joins, "tick")[1];
        let at = tick.to_string();
        let one_tick = json("events", file, &["--from", &at, "--to", &at]);
        assert!(!one_tick.is_empty());
        assert!(ints(&one_tick, "tick").iter().all(|&t| t == tick));
        assert_eq!(
            one_tick.len(),
            all.iter()
                .filter(|e| e["tick"].as_i64() == Some(tick))
                .count()
        );
        // A player by name and by client id: the same events, each about them.
        let by_name = json("events", file, &["--players", "mover2"]);
        let by_id = json("events", file, &["--players", "1"]);
        assert_eq!(by_name, by_id);
        assert!(!by_name.is_empty());
        assert!(
            by_name
                .iter()
                .all(|e| e["client_id"] == 1 || e["victim"] == 1),
            "{by_name:?}"
        );
        let players = json("players", file, &["--players", "mover1"]);
        assert_eq!(players.len(), 1, "{players:?}");
        assert_eq!(players[0]["name"], "mover1");
        // A range before mover2 joined keeps mover1's stint only.
        let before = (tick - 1).to_string();
        let early = json("players", file, &["--to", &before]);
        assert_eq!(
            early.iter().map(|p| &p["name"]).collect::<Vec<_>>(),
            ["mover1"]
        );
        for line in json("chat", file, &["--from", &at]) {
            assert!(line["tick"].as_i64().unwrap() >= tick);
        }
    }
}

/// A selection of nothing is exit status 2, and the message lists what there is: the kinds,
/// the players, the client ids, the recording's ticks. `--kind` is for events only.
#[test]
fn a_selection_of_nothing_names_what_exists() {
    let Some(files) = pair() else { return };
    for file in &files {
        let cases: [(&[&str], &[&str]); 5] = [
            (
                &["events", "--kind", "kil"],
                &["kill", "join", "vote_start"],
            ),
            (
                &["events", "--players", "nobody"],
                &["\"mover1\"", "\"mover2\""],
            ),
            (&["chat", "--players", "7"], &["0, 1"]),
            (&["players", "--from", "100000"], &["100000", "989"]),
            (&["players", "--kind", "join"], &["events --kind"]),
        ];
        for (args, says) in cases {
            let mut all: Vec<&std::ffi::OsStr> = vec![args[0].as_ref(), file.as_os_str()];
            all.extend(args[1..].iter().map(|a| -> &std::ffi::OsStr { a.as_ref() }));
            let out = demokit(&all);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            for word in says {
                assert!(err.contains(word), "{args:?} should say {word}: {err}");
            }
        }
    }
}

/// `dump --from/--to` keeps the records of those ticks, in all three dumps.
#[test]
fn dump_keeps_the_ticks_it_is_given() {
    let Some(files) = pair() else { return };
    for file in &files {
        for mode in [&[][..], &["--game-records"][..]] {
            let mut args = mode.to_vec();
            args.extend(["--from", "395", "--to", "405"]);
            let records = json("dump", file, &args);
            assert!(!records.is_empty(), "{}: {mode:?}", file.display());
            for tick in ints(&records, "tick") {
                assert!((395..=405).contains(&tick), "{mode:?}: {tick}");
            }
            let whole = json("dump", file, mode);
            let inside = whole
                .iter()
                .filter(|r| r["tick"].as_i64().is_some_and(|t| (395..=405).contains(&t)))
                .count();
            assert_eq!(records.len(), inside, "{mode:?}");
        }
    }
    let snapshots = json(
        "dump",
        &files[0],
        &["--snapshots", "--from", "395", "--to", "405"],
    );
    assert_eq!(ints(&snapshots, "tick"), (395..=405).collect::<Vec<_>>());
    let out = demokit(&[
        "dump".as_ref(),
        files[1].as_os_str(),
        "--from".as_ref(),
        "m1".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `export` with a selection: the model's tables hold what the listings select, the
/// format's own tables are left out, every `files` row says the selection, a second run
/// with the same selection finds the files unchanged while one without it exports them
/// whole, and a selection of nothing in every file is a usage error.
#[test]
fn export_keeps_the_selection_and_says_it_in_files() {
    let Some(files) = pair() else { return };
    let dir = TempDir::new("selection-export");
    let out_dir = dir.path("dataset");
    let export = |extra: &[&str]| {
        let mut all: Vec<&std::ffi::OsStr> = vec!["export".as_ref()];
        all.extend(files.iter().map(|f| f.as_os_str()));
        all.extend([
            "-o".as_ref(),
            out_dir.as_os_str(),
            "--partition-by".as_ref(),
        ]);
        all.push("none".as_ref());
        all.extend(extra.iter().map(|a| -> &std::ffi::OsStr { a.as_ref() }));
        demokit(&all)
    };
    let selection = ["--from", "300", "--to", "400", "--players", "mover1"];
    let out = export(&selection);
    assert!(out.status.success(), "{}", stderr(&out));
    let tables: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert!(
        !tables.iter().any(|t| t == "inputs"),
        "the format's own tables are left out: {tables:?}"
    );
    let ticks = parquet_rows(&out_dir.join("ticks"));
    // mover1 on every tick 300..=400 in both files.
    assert_eq!(ticks.len(), 2 * 101, "{}", ticks.len());
    for row in &ticks {
        assert_eq!(row["client_id"], 0);
        let tick = row["tick"].as_i64().unwrap();
        assert!((300..=400).contains(&tick), "{tick}");
    }
    let rows = parquet_rows(&out_dir.join("files"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(
            row["selection"], "--from 300 --to 400 --players mover1",
            "{row:?}"
        );
    }
    let again = export(&selection);
    assert!(again.status.success());
    assert!(stderr(&again).contains("2 unchanged"), "{}", stderr(&again));
    let whole = export(&[]);
    assert!(whole.status.success());
    assert!(
        stderr(&whole).contains("exported 2 files"),
        "{}",
        stderr(&whole)
    );
    let selections: Vec<Value> = parquet_rows(&out_dir.join("files"))
        .into_iter()
        .map(|r| r["selection"].clone())
        .collect();
    assert_eq!(selections.iter().filter(|s| s.is_null()).count(), 2);
    let nothing = export(&["--players", "nobody"]);
    assert_eq!(nothing.status.code(), Some(2), "{}", stderr(&nothing));
    assert!(
        stderr(&nothing).contains("\"mover1\""),
        "{}",
        stderr(&nothing)
    );
    let bad_kind = export(&["--kind", "kil"]);
    assert_eq!(bad_kind.status.code(), Some(2));
    assert!(stderr(&bad_kind).contains("team_finish"));
}
