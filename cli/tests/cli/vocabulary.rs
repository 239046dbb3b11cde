//! One vocabulary (issue 31): every field name the tool prints as JSON and every column of
//! the tables is listed in `docs/vocabulary.md` with its meaning, and no synonym of a listed
//! name appears (`cid` for `client_id`, and the like). The Python package's dicts are the
//! same serde types as the tool's JSON (its `header` is `info --json`, its edit reports
//! the edit commands' `--json`), and its tables are these tables, so they are covered too.
//!
//! The JSON comes from running every reading command and every editing command with
//! `--json` on every real recording of the corpus. Keys that are data rather than field
//! names (message names in a count, `EX:` UUIDs) are those that are not lowercase snake
//! case; every field name must be.

use crate::common;

use crate::run::demokit;
use common::temp::TempDir;
use demokit::export::Table;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Names that say a listed fact another way: the synonym and the name to use.
const SYNONYMS: &[(&str, &str)] = &[
    ("cid", "client_id"),
    ("cid1", "client_id1"),
    ("cid2", "client_id2"),
    ("client_ids", "client_id"),
    ("player_id", "client_id"),
    ("victim_id", "victim"),
    ("crc", "crc32"),
    ("map_crc32", "map_crc"),
    ("filename", "file"),
    ("file_path", "path"),
    ("timestamp", "start_time"),
    ("timeline_markers", "markers"),
];

/// The names `docs/vocabulary.md` lists.
fn vocabulary() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(common::root().join("docs/vocabulary.md")).unwrap();
    doc.lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split('`').next())
        .map(str::to_owned)
        .collect()
}

/// Every key of `value`, recursively, with the command that printed it.
fn keys(value: &Value, command: &str, out: &mut BTreeMap<String, BTreeSet<String>>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                let is_field = key
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                if is_field {
                    out.entry(key.clone())
                        .or_default()
                        .insert(command.to_owned());
                }
                // A Source game event's `values` are keyed by the demo's own descriptor:
                // data, not field names.
                if key == "values" && map.get("record") == Some(&Value::from("event")) {
                    continue;
                }
                // A Source entity's `props` are keyed by the demo's own data tables.
                if key == "props" && map.get("record") == Some(&Value::from("entity")) {
                    continue;
                }
                keys(value, command, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| keys(v, command, out)),
        _ => {}
    }
}

/// The kind of a JSON value, as a fact's type is compared across outputs: `integer`,
/// `number`, `string`, `bool`, `object`, `array`; `None` for null (a fact a record does
/// not have).
fn kind_of(value: &Value) -> Option<&'static str> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    })
}

/// Every field of `value`, recursively, with the kinds of value it has (as [`keys`] walks
/// it: a Source event's `values` and an entity's `props` are data).
fn kinds(value: &Value, out: &mut BTreeMap<String, BTreeSet<&'static str>>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                if let Some(kind) = kind_of(value) {
                    out.entry(key.clone()).or_default().insert(kind);
                }
                let record = map.get("record");
                if (key == "values" && record == Some(&Value::from("event")))
                    || (key == "props" && record == Some(&Value::from("entity")))
                {
                    continue;
                }
                kinds(value, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| kinds(v, out)),
        _ => {}
    }
}

/// The kind of JSON value an Arrow column's values are.
fn kind_of_column(data_type: &arrow_schema::DataType) -> &'static str {
    use arrow_schema::DataType;
    match data_type {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => "integer",
        DataType::Float32 | DataType::Float64 => "number",
        DataType::Boolean => "bool",
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Dictionary(_, _) => "string",
        other => panic!("a column of type {other}"),
    }
}

/// The facts of the game model: each has one name and one type in the CLI's JSON, the
/// tables and Python (whose dicts are the CLI's JSON and whose tables are these).
const MODEL_FACTS: &[&str] = &[
    "map_name",
    "start_time",
    "markers",
    "client_id",
    "name",
    "clan",
    "country",
    "country_code",
    "team",
    "team_name",
    "first_tick",
    "last_tick",
    "tick",
    "position_tick",
    "channel",
    "victim",
    "victim_name",
    "weapon",
    "weapon_name",
    "time_ms",
    "x",
    "y",
    "text",
    "left",
];

/// A JSON value's `format` fields.
fn formats(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(format)) = map.get("format") {
                out.insert(format.clone());
            }
            map.values().for_each(|v| formats(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| formats(v, out)),
        _ => {}
    }
}

#[test]
fn every_field_name_is_in_the_vocabulary() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut files: Vec<_> = ["twdemo", "teehistorian", "source"]
        .iter()
        .flat_map(|d| std::fs::read_dir(shared.join("real-fixtures").join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let dir = TempDir::new("vocabulary");
    let out = dir.path("out");
    let out = out.to_str().unwrap();
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut format_values = BTreeSet::new();
    let mut found_kinds: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    let mut lines = 0;
    for file in &files {
        let file = file.to_str().unwrap();
        let mut runs: Vec<Vec<&str>> = vec![
            vec!["info", "--json", file],
            vec!["validate", "--json", file],
            vec!["players", "--json", file],
            vec!["chat", "--json", file],
            vec!["events", "--json", file],
            vec!["markers", "--json", file],
            vec!["rewrite", "--json", "-f", file, out],
            vec!["repair", "--json", "-f", file, out],
            vec!["scrub", "--json", "--all", "-f", file, out],
            vec!["trim", "--json", "--from", "1s", "-f", file, out],
            vec!["convert", "--json", "--to", "5", "-f", file, out],
            vec!["extract-map", "--json", "-f", file, out],
        ];
        // Typed records: a Source demo's are a few thousand lines; a Teeworlds demo's
        // objects are the protocol's own names, checked by the `gamenet` tests.
        if file.ends_with(".dem") {
            runs.push(vec!["dump", "--game-records", "--json", file]);
        }
        for args in runs {
            let output = demokit(&args);
            // Reports go to stdout, or to stderr when the output is standard output.
            let text = String::from_utf8_lossy(&output.stdout).into_owned()
                + &String::from_utf8_lossy(&output.stderr);
            for line in text.lines().filter(|l| l.starts_with('{')) {
                let value: Value = serde_json::from_str(line).unwrap();
                keys(&value, args[0], &mut found);
                kinds(&value, &mut found_kinds);
                formats(&value, &mut format_values);
                lines += 1;
            }
        }
    }
    for table in Table::ALL {
        for field in table.schema().fields() {
            found
                .entry(field.name().clone())
                .or_default()
                .insert(format!("table {}", table.name()));
            found_kinds
                .entry(field.name().clone())
                .or_default()
                .insert(kind_of_column(field.data_type()));
        }
    }
    println!(
        "{} field names from {lines} JSON lines and {} tables",
        found.len(),
        Table::ALL.len()
    );
    assert!(lines > 100, "{lines} JSON lines");
    let listed = vocabulary();
    let unlisted: Vec<_> = found
        .iter()
        .filter(|(name, _)| !listed.contains(*name))
        .collect();
    assert!(
        unlisted.is_empty(),
        "not in docs/vocabulary.md (name, where): {unlisted:?}"
    );
    for (synonym, name) in SYNONYMS {
        assert!(
            !found.contains_key(*synonym) && !listed.contains(*synonym),
            "`{synonym}` ({:?}) says what `{name}` says",
            found.get(*synonym)
        );
    }
    // Meanings, not only spellings: each fact of the game model has one type wherever
    // it is written (a tick range is `first_tick`/`last_tick` integers everywhere, a map
    // `map_name` a string, the markers an array of ticks, a team its number beside its
    // name, an actor `client_id` beside `name`).
    for fact in MODEL_FACTS {
        let kinds = found_kinds.get(*fact);
        assert!(
            kinds.is_some_and(|k| k.len() == 1),
            "`{fact}` has the types {kinds:?} (written by {:?})",
            found.get(*fact)
        );
    }
    // A format is named by `Format::id` everywhere.
    let ids: BTreeSet<String> = ["twdemo", "teehistorian", "source", "goldsrc", "source2"]
        .map(String::from)
        .into();
    assert!(
        format_values.is_subset(&ids),
        "format values {format_values:?}"
    );
    assert!(format_values.len() >= 3, "{format_values:?}");
}
