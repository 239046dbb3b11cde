//! The game model (`demokit::model`): the same game gives the same tables in every format,
//! and every recording's tables keep the model's rules.

use crate::common;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, RecordBatch};
use demokit::export::{Exporter, Table};
use demokit::recording::Recording;
use proptest::prelude::*;
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
        let shown = path.display().to_string();
        let batches = export(path);
        let (summary, _) = Recording::open(path).unwrap().summary().unwrap();
        keeps_the_rules(&shown, &batches, &serde_json::to_value(&summary).unwrap());
        checked.insert(shown);
    }
    assert_eq!(checked.len(), recordings.len());
}

/// The model's rules on one file's tables (`info` its `demokit info --json`): no two
/// `ticks` rows share a tick and a client; the `files` row's ticks are `info`'s (of a file
/// read whole), first before last; every event with an actor names it by id and by name (a victim too), where
/// the recording names that player at all; every team has a name; every stint starts
/// before it ends.
fn keeps_the_rules(shown: &str, batches: &[(Table, RecordBatch)], info: &Value) {
    let mut seen = BTreeSet::new();
    for row in rows(batches, Table::Ticks) {
        let key = (int(&row, "tick"), int(&row, "client_id"));
        assert!(seen.insert(key), "{shown}: two rows of {key:?}");
    }
    let files = rows(batches, Table::Files);
    // A file read in part has the ticks read before its break (info's are the container's).
    if files[0]["error"].is_null() {
        assert_eq!(files[0]["first_tick"], info["first_tick"], "{shown}");
        assert_eq!(files[0]["last_tick"], info["last_tick"], "{shown}");
    }
    if let (Some(first), Some(last)) = (info["first_tick"].as_i64(), info["last_tick"].as_i64()) {
        assert!(first <= last, "{shown}: ticks {first}..{last}");
    }
    let players = rows(batches, Table::Players);
    // Every event, chat line and stint lies within the ticks of play.
    if files[0]["error"].is_null()
        && let (Some(first), Some(last)) = (
            files[0]["first_tick"].as_i64(),
            files[0]["last_tick"].as_i64(),
        )
    {
        let within = |tick: i64, what: &dyn std::fmt::Debug| {
            assert!(
                (first..=last).contains(&tick),
                "{shown}: tick {tick} outside {first}..={last}: {what:?}"
            )
        };
        for row in rows(batches, Table::Events)
            .iter()
            .chain(&rows(batches, Table::Chat))
        {
            within(int(row, "tick"), row);
        }
        for p in &players {
            within(int(p, "first_tick"), p);
            within(int(p, "last_tick"), p);
        }
    }
    // Whether the recording names the player `client_id` at `tick` (a stint of that
    // client id then has a name): a teehistorian file of version 1 names no one.
    let named = |client_id: i64, tick: i64| {
        players.iter().any(|p| {
            int(p, "client_id") == client_id
                && int(p, "first_tick") <= tick
                && tick <= int(p, "last_tick")
                && p["name"] != ""
        })
    };
    for event in rows(batches, Table::Events) {
        let tick = int(&event, "tick");
        if let Some(id) = event["client_id"].as_i64().filter(|&id| id >= 0) {
            assert!(
                event["name"] != "" || !named(id, tick),
                "{shown}: {event:?}"
            );
        }
        if let Some(id) = event["victim"].as_i64().filter(|&id| id >= 0) {
            assert!(
                event["victim_name"].as_str().is_some_and(|n| !n.is_empty()) || !named(id, tick),
                "{shown}: {event:?}"
            );
        }
        assert_eq!(
            event["team"].is_null(),
            event["team_name"].is_null(),
            "{shown}: {event:?}"
        );
    }
    for player in players.iter() {
        assert_eq!(
            player["team"].is_null(),
            player["team_name"].is_null(),
            "{shown}: {player:?}"
        );
        assert!(
            int(player, "first_tick") <= int(player, "last_tick"),
            "{shown}: {player:?}"
        );
    }
}

/// Every batch of an export of the recording `data`, read whole or not, and its `info`.
fn export_bytes(data: &[u8]) -> (Vec<(Table, RecordBatch)>, Value) {
    let mut exporter = Exporter::new();
    let mut out = Vec::new();
    let mut sink = |table, batch| out.push((table, batch));
    exporter.add("generated", data, &mut sink);
    exporter.finish(&mut sink);
    let info = match Recording::from_bytes(data.to_vec()).and_then(|r| r.summary()) {
        Ok((summary, _)) => serde_json::to_value(&summary).unwrap(),
        Err(_) => Value::Null,
    };
    (out, info)
}

/// What one player does in one tick of a generated game.
#[derive(Debug, Clone, Copy)]
enum Act {
    /// Nothing: absent, or there and still.
    Stay,
    /// Joins (if absent) or moves by this much.
    Move(i32, i32),
    /// Takes this team (-1 spectators, 0 red, 1 blue).
    Team(i32),
    /// Takes the name `renamed<n>`.
    Rename(u8),
    /// Dies (teehistorian: a dead player; demo: no character) or kills the next player.
    Die,
    /// Leaves.
    Leave,
}

fn act() -> impl Strategy<Value = Act> {
    prop_oneof![
        4 => Just(Act::Stay),
        8 => (-300i32..300, -300i32..300).prop_map(|(x, y)| Act::Move(x, y)),
        1 => (-1i32..2).prop_map(Act::Team),
        1 => any::<u8>().prop_map(Act::Rename),
        1 => Just(Act::Die),
        1 => Just(Act::Leave),
    ]
}

/// A generated game: for each stored tick, the gap since the one before (1: the next
/// tick) and what each of up to 6 players does.
fn game() -> impl Strategy<Value = Vec<(i32, Vec<Act>)>> {
    proptest::collection::vec(
        (
            prop_oneof![8 => Just(1i32), 1 => 2i32..80, 1 => Just(4000)],
            proptest::collection::vec(act(), 1..6),
        ),
        1..60,
    )
}

/// The game as a DDNet teehistorian file (`team_game`: a CTF server, else deathmatch).
fn teehistorian_of(game: &[(i32, Vec<Act>)], team_game: bool) -> Vec<u8> {
    use demokit::teehistorian::{Header, Recorder};
    let mut header = Header::new("2");
    header.game_type = Some(if team_game { "CTF" } else { "DM" }.into());
    let mut rec = Recorder::new(Vec::new(), &header).unwrap();
    let mut here = [false; 8];
    let mut at = [(0i32, 0i32); 8];
    let mut tick = 0;
    for (gap, acts) in game {
        tick += gap;
        rec.begin_tick(tick).unwrap();
        // Joins, names, teams and leaves first (as a server records them between ticks).
        for (cid, act) in acts.iter().enumerate() {
            let cid32 = cid as i32;
            match *act {
                Act::Move(..) if !here[cid] => {
                    rec.record_player_join(cid32, demokit::gamenet::Protocol::Six)
                        .unwrap();
                    rec.record_player_name(cid32, &format!("player{cid}"))
                        .unwrap();
                    here[cid] = true;
                }
                Act::Team(team) if here[cid] => rec.record_player_team(cid32, team).unwrap(),
                Act::Rename(n) if here[cid] => rec
                    .record_player_name(cid32, &format!("renamed{n}"))
                    .unwrap(),
                Act::Leave if here[cid] => {
                    rec.record_player_drop(cid32, "left").unwrap();
                    here[cid] = false;
                }
                _ => {}
            }
        }
        rec.begin_players().unwrap();
        for (cid, act) in acts.iter().enumerate() {
            if !here[cid] {
                continue;
            }
            match *act {
                Act::Die => rec.record_dead_player(cid as i32).unwrap(),
                Act::Move(dx, dy) => {
                    at[cid].0 += dx;
                    at[cid].1 += dy;
                    rec.record_player(cid as i32, at[cid].0, at[cid].1).unwrap();
                }
                _ => {}
            }
        }
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
    }
    rec.finish().unwrap()
}

/// The game as a 0.6 server demo: each stored tick a snapshot of the players there (their
/// `ClientInfo`, `PlayerInfo` with the team, and a `Character` unless dead), a kill
/// message for each death (killed by the next player there, or by the world).
fn demo_of(game: &[(i32, Vec<Act>)], team_game: bool) -> Vec<u8> {
    use demokit::codec::varint::pack_into;
    use demokit::gamenet::wire::IntString;
    use demokit::twdemo::{Recorder, RecorderConfig, SnapshotBuilder};
    let ints = |text: &str| IntString::<4>::from_text(text.as_bytes()).unwrap().0;
    let config = RecorderConfig::ddnet("generated", "2026-12-07_12-00-00");
    let map = demokit::datafile::minimal_map(64, 64, "generated").unwrap();
    let mut rec = Recorder::start(std::io::Cursor::new(Vec::new()), &config, &map).unwrap();
    let mut here = [false; 8];
    let mut names = [const { String::new() }; 8];
    let mut teams = [0i32; 8];
    let mut at = [(0i32, 0i32); 8];
    let mut tick = 0;
    for (gap, acts) in game {
        tick += gap;
        let mut builder = SnapshotBuilder::new();
        // 0.6 `GameInfo` (type 6): flags (1: teams), state flags, start tick, ...
        builder
            .add_item(6, 0, &[i32::from(team_game), 0, 0, 0, 0, 0, 0, 0])
            .unwrap();
        let mut deaths = Vec::new();
        for (cid, act) in acts.iter().enumerate() {
            match *act {
                Act::Move(dx, dy) => {
                    if !here[cid] {
                        names[cid] = format!("player{cid}");
                    }
                    here[cid] = true;
                    at[cid].0 += dx;
                    at[cid].1 += dy;
                }
                Act::Team(team) => teams[cid] = team,
                Act::Rename(n) => names[cid] = format!("renamed{n}"),
                Act::Leave => here[cid] = false,
                Act::Die if here[cid] => deaths.push(cid as i32),
                _ => {}
            }
        }
        for cid in (0..8).filter(|&c| here[c]) {
            let id = cid as i32;
            let mut info = ints(&names[cid]).to_vec();
            info.extend_from_slice(&IntString::<3>::from_text(b"").unwrap().0);
            info.push(-1);
            info.extend_from_slice(&IntString::<6>::from_text(b"default").unwrap().0);
            info.extend_from_slice(&[0, 0, 0]);
            builder.add_item(11, id, &info).unwrap();
            builder
                .add_item(10, id, &[0, id, teams[cid], 0, 5])
                .unwrap();
            if !deaths.contains(&id) {
                let mut character = vec![tick, at[cid].0, at[cid].1];
                character.resize(22, 0);
                builder.add_item(9, id, &character).unwrap();
            }
        }
        let snapshot = builder.finish();
        rec.record_snapshot(tick, snapshot.as_snapshot()).unwrap();
        for &victim in &deaths {
            let killer = (0..8)
                .map(|c| (victim + 1 + c) % 8)
                .find(|&c| here[c as usize] && c != victim)
                .unwrap_or(-1);
            // 0.6 `Sv_KillMsg` (game message 2): killer, victim, weapon, mode special.
            let mut message = Vec::new();
            pack_into(2 << 1 | 1, &mut message);
            for v in [killer, victim, if killer < 0 { -1 } else { 1 }, 0] {
                pack_into(v, &mut message);
            }
            rec.record_message(&message).unwrap();
        }
    }
    rec.finish().unwrap().into_inner()
}

/// Cases follow PROPTEST_CASES (256 by default: a second or two); failures persist under
/// `proptest-regressions/`.
fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../proptest-regressions/game_model.txt"
            )),
        )),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Acceptance 2 of issue 48 on generated recordings: games of joins, moves, deaths,
    /// kills, renames, team changes and leaves over ticks with gaps (a few past the
    /// minute the model fills), in deathmatch and team games, as a teehistorian file and
    /// as a demo, keep the model's rules.
    #[test]
    fn generated_games_keep_the_models_rules(game in game(), team_game in any::<bool>()) {
        for (format, data) in [
            ("teehistorian", teehistorian_of(&game, team_game)),
            ("demo", demo_of(&game, team_game)),
        ] {
            let (batches, info) = export_bytes(&data);
            keeps_the_rules(format, &batches, &info);
        }
    }

    /// The same on arbitrary teehistorian files (messages of every kind, in any order,
    /// most of them read only up to a break): the rules hold for what was read.
    #[test]
    fn arbitrary_teehistorian_files_keep_the_models_rules(
        data in demokit::teehistorian::strategies::file(48)
    ) {
        let (batches, info) = export_bytes(&data);
        if !info.is_null() {
            keeps_the_rules("arbitrary teehistorian", &batches, &info);
        }
    }
}

/// A read of the game log alone (no `ticks`, no `inputs`: a teehistorian walk that follows
/// no one's moves and steps over the inputs) gives the `players`, `events` and `chat` rows
/// of the whole read, on every real recording.
#[test]
fn the_game_log_alone_reads_as_the_whole() {
    let recordings = recordings();
    common::check_total("real recordings", recordings.len(), 17);
    let log_tables = [Table::Players, Table::Events, Table::Chat];
    for path in &recordings {
        let whole = export(path);
        let data = std::fs::read(path).unwrap();
        let mut alone = Vec::new();
        let mut exporter = Exporter::with_tables(&log_tables);
        let mut sink = |table, batch| alone.push((table, batch));
        exporter.add(&path.display().to_string(), &data, &mut sink);
        exporter.finish(&mut sink);
        for table in log_tables {
            assert_eq!(
                rows(&alone, table),
                rows(&whole, table),
                "{}: {}",
                path.display(),
                table.name()
            );
        }
    }
}
