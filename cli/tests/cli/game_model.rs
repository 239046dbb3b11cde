//! The game model (`demokit::model`): the same game gives the same tables in every format,
//! and every recording's tables keep the model's rules.

use crate::common;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, RecordBatch};
use demokit::export::{Exporter, Table};
use demokit::recording::Recording;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A table's rows as JSON objects (column name to value), the `path` column left out.
fn rows(batches: &[(Table, RecordBatch)], table: Table) -> Vec<BTreeMap<String, Value>> {
    let mut out = Vec::new();
    for (_, batch) in batches.iter().filter(|(t, _)| *t == table) {
        let schema = batch.schema();
        for row in 0..batch.num_rows() {
            let mut fields = BTreeMap::new();
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                if field.name() == "path" {
                    continue;
                }
                fields.insert(field.name().clone(), cell(column.as_ref(), row));
            }
            out.push(fields);
        }
    }
    out
}

/// One cell as JSON.
pub(crate) fn cell(column: &dyn Array, row: usize) -> Value {
    use arrow_schema::DataType;
    if column.is_null(row) {
        return Value::Null;
    }
    match column.data_type() {
        DataType::Int32 => column.as_primitive::<Int32Type>().value(row).into(),
        DataType::Int64 => column
            .as_primitive::<arrow_array::types::Int64Type>()
            .value(row)
            .into(),
        DataType::UInt64 => column
            .as_primitive::<arrow_array::types::UInt64Type>()
            .value(row)
            .into(),
        DataType::Boolean => column.as_boolean().value(row).into(),
        DataType::Utf8 => column.as_string::<i32>().value(row).into(),
        DataType::Dictionary(_, _) => {
            let dict = column.as_dictionary::<Int32Type>();
            let key = dict.keys().value(row) as usize;
            dict.values().as_string::<i32>().value(key).into()
        }
        other => panic!("a column of type {other} in a test of the model"),
    }
}

/// Every batch of an export of `path`.
fn export(path: &Path) -> Vec<(Table, RecordBatch)> {
    let mut exporter = Exporter::new();
    let mut out = Vec::new();
    let mut sink = |table, batch| out.push((table, batch));
    let data = std::fs::read(path).unwrap();
    let end = exporter.add(&path.display().to_string(), &data, &mut sink);
    assert!(end.is_whole(), "{}: {end:?}", path.display());
    exporter.finish(&mut sink);
    out
}

fn int(row: &BTreeMap<String, Value>, key: &str) -> i64 {
    row[key]
        .as_i64()
        .unwrap_or_else(|| panic!("{key} of {row:?}"))
}

/// Acceptance 1 of issue 48: the one game the corpus has recorded both ways (DDNet 20.1,
/// one server, a demo and a teehistorian file of the same minutes) gives the same
/// players, stints, joins and leaves, the same `ticks` rows per player, and positions
/// that agree by the model's rule: the demo's position at a tick is the teehistorian
/// file's at the demo's `position_tick` (DDNet's core as last sent), and equal outright
/// where that is the tick itself.
#[test]
fn one_game_as_a_demo_and_a_teehistorian_file_gives_the_same_tables() {
    let (Some(demo), Some(th)) = (
        common::shared_file("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo"),
        common::shared_file("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian"),
    ) else {
        return;
    };
    let (demo, th) = (export(&demo), export(&th));
    for table in [Table::Players, Table::Events] {
        assert_eq!(rows(&demo, table), rows(&th, table), "{}", table.name());
    }
    // The one difference that remains: DDNet writes chat into a server demo only with
    // `sv_demo_chat 1` (off by default), and the teehistorian file records the server's
    // console `say` (client -1) that the demo then leaves out.
    assert_eq!(rows(&demo, Table::Chat), []);
    let th_chat = rows(&th, Table::Chat);
    assert_eq!(th_chat.len(), 1);
    assert!(th_chat.iter().all(|line| int(line, "client_id") == -1));
    assert_eq!(rows(&demo, Table::Players).len(), 2);
    let key = |r: &BTreeMap<String, Value>| (int(r, "tick"), int(r, "client_id"));
    let demo_ticks: BTreeMap<_, _> = rows(&demo, Table::Ticks)
        .into_iter()
        .map(|r| (key(&r), r))
        .collect();
    let th_ticks: BTreeMap<_, _> = rows(&th, Table::Ticks)
        .into_iter()
        .map(|r| (key(&r), r))
        .collect();
    // The same (tick, client) rows: as many per player, on the same ticks.
    assert_eq!(
        demo_ticks.keys().collect::<Vec<_>>(),
        th_ticks.keys().collect::<Vec<_>>()
    );
    let per_player = |ticks: &BTreeMap<(i64, i64), _>| {
        let mut counts = BTreeMap::new();
        ticks
            .keys()
            .for_each(|(_, c)| *counts.entry(*c).or_insert(0) += 1);
        counts
    };
    assert_eq!(
        per_player(&demo_ticks),
        BTreeMap::from([(0, 841), (1, 590)])
    );
    let (mut current, mut older) = (0, 0);
    for ((tick, client_id), row) in &demo_ticks {
        let at = int(row, "position_tick");
        assert!(at <= *tick, "{row:?}");
        let th_row = &th_ticks[&(at, *client_id)];
        assert_eq!(
            (&row["x"], &row["y"]),
            (&th_row["x"], &th_row["y"]),
            "tick {tick}, client {client_id}, position from {at}"
        );
        assert_eq!(row["name"], th_ticks[&(*tick, *client_id)]["name"]);
        if at == *tick {
            current += 1;
        } else {
            older += 1;
        }
    }
    // Both kinds of rows are there: the rule is tested, not assumed.
    assert!(
        current > 300 && older > 300,
        "{current} current, {older} older"
    );
}

/// The recordings a property of the model is checked on: every real recording of the
/// corpus (the repository's part of it on a bare clone).
fn recordings() -> Vec<PathBuf> {
    let Some(shared) = common::shared_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for format in ["twdemo", "teehistorian", "source"] {
        let dir = shared.join("real-fixtures").join(format);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        out.extend(entries.map(|e| e.unwrap().path()));
    }
    out.sort();
    out
}

/// Acceptance 2 of issue 48, over every real recording: no two `ticks` rows share a tick
/// and a client; the `files` row's ticks are `info`'s, first before last; every event
/// with an actor names it by id and by name; every team has a name.
#[test]
fn every_recording_keeps_the_models_rules() {
    let recordings = recordings();
    common::check_total("real recordings", recordings.len(), 17);
    assert!(recordings.len() >= 13, "{recordings:?}");
    let mut checked = BTreeSet::new();
    for path in &recordings {
        let shown = path.display();
        let batches = export(path);
        let mut seen = BTreeSet::new();
        for row in rows(&batches, Table::Ticks) {
            let key = (int(&row, "tick"), int(&row, "client_id"));
            assert!(seen.insert(key), "{shown}: two rows of {key:?}");
        }
        let files = rows(&batches, Table::Files);
        let (summary, _) = Recording::open(path).unwrap().summary().unwrap();
        let info = serde_json::to_value(&summary).unwrap();
        assert_eq!(files[0]["first_tick"], info["first_tick"], "{shown}");
        assert_eq!(files[0]["last_tick"], info["last_tick"], "{shown}");
        if let (Some(first), Some(last)) = (info["first_tick"].as_i64(), info["last_tick"].as_i64())
        {
            assert!(first <= last, "{shown}: ticks {first}..{last}");
        }
        for event in rows(&batches, Table::Events) {
            if event["client_id"].as_i64().is_some_and(|id| id >= 0) {
                assert_ne!(event["name"], "", "{shown}: {event:?}");
            }
            if event["victim"].as_i64().is_some_and(|id| id >= 0) {
                assert!(
                    event["victim_name"].as_str().is_some_and(|n| !n.is_empty()),
                    "{shown}: {event:?}"
                );
            }
            assert_eq!(
                event["team"].is_null(),
                event["team_name"].is_null(),
                "{shown}: {event:?}"
            );
        }
        for player in rows(&batches, Table::Players) {
            assert_eq!(
                player["team"].is_null(),
                player["team_name"].is_null(),
                "{shown}: {player:?}"
            );
            assert!(int(&player, "first_tick") <= int(&player, "last_tick"));
        }
        checked.insert(shown.to_string());
    }
    assert_eq!(checked.len(), recordings.len());
}
