//! `teehistorian::trim` and `demokit trim` on teehistorian files.
//!
//! The property every cut must hold: the output reads and validates, its messages after
//! the first tick are the input's in the range (TICK_SKIPs aside, whose `dt` may change),
//! at their original ticks, and from the first tick to the end of the range the semantic
//! layer gives the same positions, inputs and connected clients as the input at every tick,
//! and the game layer the same players (name, clan, country, skin, team, protocol, DDNet
//! version) and, after the first tick, the same events. Checked on every real file and
//! DDNet's reference file of the corpus at many cut points, on a recording with every kind
//! of state record, and on generated recordings with random cut points (a property test;
//! case counts follow PROPTEST_CASES; failures persist under proptest-regressions/). Also:
//! the header marker, the refusals, and the CLI.

use crate::common;

use crate::run::{demokit, stderr, stdout};
use common::temp::TempDir;
use demokit::gamenet::Protocol;
use demokit::teehistorian::game::{GameEvents, Player};
use demokit::teehistorian::strategies::{self, PlayerState, ServerRecord, ServerTick};
use demokit::teehistorian::summary::validate;
use demokit::teehistorian::trim::{HEADER_KEY, resolve_range};
use demokit::teehistorian::{
    EventKind, Events, Header, Message, Recorder, TeehistorianSlice, TrimError, TrimReport, World,
    rewrite, trim,
};
use demokit::time::TickRange;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------
// What a cut must keep
// ---------------------------------------------------------------------------------------

/// The world after every tick that has messages, in order.
fn worlds(data: &[u8]) -> Vec<(i32, World)> {
    let file = TeehistorianSlice::parse(data).unwrap();
    let mut events = Events::new(file.messages());
    let mut out = Vec::new();
    while let Some(tick) = events.next_tick() {
        let tick = tick.unwrap_or_else(|e| panic!("semantic layer: {e}"));
        out.push((tick, events.world().clone()));
    }
    out
}

/// The state as of tick `t`: after the last tick up to it that has messages.
fn world_at(worlds: &[(i32, World)], t: i32) -> World {
    worlds
        .iter()
        .take_while(|(tick, _)| *tick <= t)
        .last()
        .map_or_else(World::new, |(_, w)| w.clone())
}

/// The game layer's players after each of its events, and the events themselves (tick
/// and debug text).
type Rosters = Vec<(i32, Vec<Player>)>;
fn game(data: &[u8]) -> (Rosters, Vec<(i32, String)>) {
    let file = TeehistorianSlice::parse(data).unwrap();
    let mut events = GameEvents::new(file.messages());
    let (mut rosters, mut list) = (Vec::new(), Vec::new());
    while let Some(event) = events.next() {
        let event = event.unwrap_or_else(|e| panic!("game layer: {e}"));
        list.push((event.tick, format!("{:?}", event.event)));
        rosters.push((event.tick, events.roster().players().cloned().collect()));
    }
    (rosters, list)
}

/// The players as of tick `t`, with a join before `from` counted as at `from` (a cut's
/// JOIN for a client connected before it is in its first tick).
fn players_at(rosters: &Rosters, t: i32, from: i32) -> Vec<Player> {
    let mut players = rosters
        .iter()
        .take_while(|(tick, _)| *tick <= t)
        .last()
        .map(|(_, p)| p.clone())
        .unwrap_or_default();
    for p in &mut players {
        p.joined = p.joined.max(from);
    }
    players
}

/// Every message: tick and debug text.
fn messages(data: &[u8]) -> Vec<(i32, Message<'_>)> {
    let file = TeehistorianSlice::parse(data).unwrap();
    file.messages()
        .map(|m| {
            let m = m.unwrap();
            (m.tick, m.message)
        })
        .collect()
}

/// Cuts `data` to `from..=to` and checks everything a cut must keep; returns the output
/// and the report.
fn check_cut(data: &[u8], from: i32, to: i32) -> (Vec<u8>, TrimReport) {
    let ctx = format!("cut {from}..={to}");
    let mut out = Vec::new();
    let report = trim(data, TickRange::new(from, to), &mut out)
        .unwrap_or_else(|e| panic!("{ctx}: refused: {e}"));
    assert_eq!(report.output_len, out.len() as u64, "{ctx}");
    let (first, last) = (report.first_tick, report.last_tick);
    assert_eq!(first, from.max(0), "{ctx}");
    assert!(last <= to && first <= last, "{ctx}: {report:?}");

    // It reads to FINISH, validates and rewrites byte for byte.
    let verdict = validate(&out);
    assert!(verdict.problems.is_empty(), "{ctx}: {:?}", verdict.problems);
    assert_eq!(rewrite(&out, Vec::new()).unwrap().0, out, "{ctx}");
    let header = TeehistorianSlice::parse(&out).unwrap().header().clone();
    let marker = header
        .extra
        .iter()
        .find(|(k, _)| k == HEADER_KEY)
        .map(|(_, v)| v.clone())
        .unwrap();
    assert_eq!(marker["from_tick"], first.to_string(), "{ctx}");
    assert_eq!(marker["to_tick"], last.to_string(), "{ctx}");
    assert_eq!(header.game_uuid.as_ref(), Some(&report.game_uuid));

    // Tick numbers: the first tick is `from`, the rest are the input's.
    let ours = messages(&out);
    let theirs = messages(data);
    if first > 0 {
        assert_eq!(
            ours[0],
            (first, Message::TickSkip { dt: first - 1 }),
            "{ctx}"
        );
    }
    assert!(
        ours.iter().all(|(t, _)| (first..=last).contains(t)),
        "{ctx}"
    );
    let later = |list: &[(i32, Message<'_>)], skips: bool| -> Vec<String> {
        list.iter()
            .filter(|(t, m)| {
                *t > first
                    && *t <= last
                    && *m != Message::Finish
                    && matches!(m, Message::TickSkip { .. }) == skips
            })
            .map(|(t, m)| format!("{t} {m:?}"))
            .collect()
    };
    assert_eq!(later(&ours, false), later(&theirs, false), "{ctx}");
    // A TICK_SKIP of the input after the first tick is there at its tick (its dt may
    // differ); the cut may add one, at the first tick after its first.
    let tick_of = |s: &String| s.split(' ').next().unwrap().parse::<i32>().unwrap();
    let our_skips: Vec<i32> = later(&ours, true).iter().map(tick_of).collect();
    let their_skips: Vec<i32> = later(&theirs, true).iter().map(tick_of).collect();
    let next_tick = theirs.iter().map(|(t, _)| *t).find(|&t| t > first);
    for t in &our_skips {
        assert!(
            their_skips.contains(t) || Some(*t) == next_tick,
            "{ctx}: {t}"
        );
    }
    for t in &their_skips {
        assert!(our_skips.contains(t), "{ctx}: {t}");
    }
    // The input's FINISH in the range is copied; otherwise one is appended.
    let input_finish = theirs
        .iter()
        .any(|(t, m)| *m == Message::Finish && *t <= last);
    assert_eq!(report.finish_appended, !input_finish, "{ctx}");

    // Semantic layer: the same state as of every tick of the range.
    let (ow, tw) = (worlds(&out), worlds(data));
    let mut ticks: Vec<i32> = ow
        .iter()
        .chain(&tw)
        .map(|(t, _)| *t)
        .filter(|t| (first..=last).contains(t))
        .chain([first, last])
        .collect();
    ticks.sort_unstable();
    ticks.dedup();
    for &t in &ticks {
        let (a, b) = (world_at(&ow, t), world_at(&tw, t));
        if a != b {
            let diff: Vec<_> = (0..128)
                .filter(|&c| {
                    a.position(c) != b.position(c)
                        || a.input(c) != b.input(c)
                        || a.is_connected(c) != b.is_connected(c)
                })
                .map(|c| {
                    format!(
                        "cid {c}: cut {:?} {:?} {}, input {:?} {:?} {}",
                        a.position(c),
                        a.input(c),
                        a.is_connected(c),
                        b.position(c),
                        b.input(c),
                        b.is_connected(c)
                    )
                })
                .collect();
            panic!("{ctx}: the state at tick {t} differs: {diff:#?}");
        }
    }

    // Game layer: the same players as of every tick, the same events after the first.
    let ((or, oe), (tr, te)) = (game(&out), game(data));
    for &t in &ticks {
        assert_eq!(
            players_at(&or, t, first),
            players_at(&tr, t, first),
            "{ctx}: players at tick {t}"
        );
    }
    let after = |events: &[(i32, String)]| -> Vec<(i32, String)> {
        events
            .iter()
            .filter(|(t, _)| *t > first && *t <= last)
            .cloned()
            .collect()
    };
    assert_eq!(after(&oe), after(&te), "{ctx}: game events");

    // Another parser (zwelf's `teehistorian` crate) reads it, header marker included.
    let mut th = teehistorian::Th::parse(&out[..]).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let json: serde_json::Value = serde_json::from_slice(th.header().unwrap()).unwrap();
    assert_eq!(json[HEADER_KEY]["from_tick"], first.to_string(), "{ctx}");
    let mut n = 0;
    loop {
        match th.next_chunk() {
            Ok(_) => n += 1,
            Err(e) if e.is_eof() => break,
            Err(e) => panic!("{ctx}: theirs: {e}"),
        }
    }
    assert_eq!(n, ours.len(), "{ctx}");
    (out, report)
}

// ---------------------------------------------------------------------------------------
// Real files
// ---------------------------------------------------------------------------------------

/// The real teehistorian files of the corpus and DDNet's reference file.
fn real_files(shared: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(shared.join("real-fixtures/teehistorian"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 3);
    paths.push(shared.join("conformance/ddnet-recorder/ref.teehistorian"));
    paths
}

/// Every real file cut at its start, in the middle, near its end, to single ticks (with and
/// without messages) and at a sweep of points.
#[test]
fn real_files_cut_anywhere() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut cuts = 0;
    for path in real_files(&shared) {
        let name = path.display();
        let data = std::fs::read(&path).unwrap();
        let all = messages(&data);
        let last = all.last().unwrap().0;
        let first = all.iter().map(|(t, _)| *t).find(|&t| t > 0).unwrap_or(0);
        let mid = (first + last) / 2;
        // A tick without messages, if the file has one after its first.
        let gap = (first..last).find(|t| all.iter().all(|(m, _)| m != t));
        let mut ranges = vec![
            (0, last),
            (0, 0),
            (first, last),
            (first, first),
            (1, first + 1),
            (mid, last),
            (mid, mid),
            (mid, mid + 100),
            (last - 3, last),
            (last, last),
            (last, i32::MAX),
        ];
        ranges.extend(gap.map(|g| (g, g)));
        ranges.extend(gap.map(|g| (g, g + 20)));
        ranges.extend((0..last).step_by(37).map(|t| (t, t + 45)));
        for (from, to) in ranges {
            let (out, report) = std::panic::catch_unwind(|| check_cut(&data, from, to))
                .unwrap_or_else(|_| panic!("{name}: cut {from}..={to}"));
            cuts += 1;
            if from <= 0 && to >= last {
                // The whole file: the body is the input's.
                let body = TeehistorianSlice::parse(&data).unwrap().body_offset();
                let out_body = TeehistorianSlice::parse(&out).unwrap().body_offset();
                assert_eq!(out[out_body..], data[body..], "{name}");
                assert_eq!(report.synthesized_total(), 0, "{name}");
            }
        }
    }
    assert!(cuts > 80, "{cuts}");
}

/// A cut of a real file in the middle holds a connected player's name records and
/// position, and keeps the header's keys.
#[test]
fn real_file_header_and_state() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = shared.join("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian");
    let data = std::fs::read(&path).unwrap();
    let (out, report) = check_cut(&data, 300, 600);
    let input = TeehistorianSlice::parse(&data).unwrap();
    let output = TeehistorianSlice::parse(&out).unwrap();
    let (a, b) = (input.header(), output.header());
    // Every key is kept; only game_uuid changes, and the cut key comes last.
    assert_eq!(
        Header {
            game_uuid: a.game_uuid.clone(),
            extra: Vec::new(),
            ..b.clone()
        },
        *a
    );
    assert_eq!(report.original_game_uuid, a.game_uuid);
    assert_ne!(b.game_uuid, a.game_uuid);
    let json = std::str::from_utf8(output.header_json()).unwrap();
    let stored = std::str::from_utf8(input.header_json()).unwrap();
    assert_eq!(
        json,
        format!(
            "{},\"cut\":{{\"from_tick\":\"300\",\"original_game_uuid\":\"{}\",\"to_tick\":\"600\"}}}}",
            &stored[..stored.len() - 1].replace(
                a.game_uuid.as_deref().unwrap(),
                b.game_uuid.as_deref().unwrap()
            ),
            a.game_uuid.as_deref().unwrap()
        )
    );
    for kind in [
        "TICK_SKIP",
        "JOIN",
        "EX:teehistorian-joinver6@ddnet.tw",
        "EX:teehistorian-player-name@ddnet.org",
        "MESSAGE",
        "PLAYER_NEW",
        "INPUT_NEW",
    ] {
        assert!(report.synthesized.contains_key(kind), "{kind}: {report:?}");
    }
    let (rosters, _) = game(&out);
    assert_eq!(rosters[0].1.len(), 0);
    let players = &rosters.last().unwrap().1;
    assert_eq!(players[0].name, "mover1", "{players:?}");
}

// ---------------------------------------------------------------------------------------
// Every kind of state record
// ---------------------------------------------------------------------------------------

/// A packed 0.6 `Cl_StartInfo` (or `Cl_ChangeInfo`) with `name`, as clients send it.
fn info_message(name: &str, change: bool) -> Vec<u8> {
    let mut data = vec![if change { 0x2a } else { 0x28 }];
    for s in [name, "clan"] {
        data.extend_from_slice(s.as_bytes());
        data.push(0);
    }
    data.push(0x40); // country -1
    data.extend_from_slice(b"default\0");
    data.extend_from_slice(&[0, 0, 0]);
    data
}

/// State records a generated tick may hold besides a [`ServerTick`]'s.
#[derive(Debug, Clone)]
enum Extra {
    /// A 0.7 join (JOINVER7 and JOIN).
    JoinSeven(i32),
    /// JOINVER6 or JOINVER7 alone, announcing a join.
    Announce(i32, bool),
    Team(i32, i32),
    Practice(i32, bool),
    DdnetVersion(i32, i32),
    Login(i32),
    Logout(i32),
    Info(i32, String, bool),
}

/// Records a tick as [`ServerTick::record`] does, with `extras` in its inputs phase before
/// the tick's own records.
fn record_tick(rec: &mut Recorder<Vec<u8>>, tick: &ServerTick, extras: &[Extra]) {
    rec.begin_tick(tick.tick).unwrap();
    rec.begin_players().unwrap();
    for &(cid, state) in &tick.players {
        match state {
            PlayerState::Alive { x, y } => rec.record_player(cid, x, y).unwrap(),
            PlayerState::Dead => rec.record_dead_player(cid).unwrap(),
        }
    }
    rec.end_players().unwrap();
    rec.begin_inputs().unwrap();
    for (cid, id, input) in &tick.inputs {
        rec.record_player_input(*cid, *id, input).unwrap();
    }
    for extra in extras {
        match extra {
            Extra::JoinSeven(cid) => rec.record_player_join(*cid, Protocol::Seven).unwrap(),
            Extra::Announce(cid, seven) => {
                let protocol = if *seven {
                    Protocol::Seven
                } else {
                    Protocol::Six
                };
                rec.record_join_version(*cid, protocol).unwrap()
            }
            Extra::Team(cid, team) => rec.record_player_team(*cid, *team).unwrap(),
            Extra::Practice(team, on) => rec.record_team_practice(*team, *on).unwrap(),
            Extra::DdnetVersion(cid, v) => rec
                .record_ddnet_version(*cid, uuid::Uuid::from_u128(7), *v, "DDNet 19.0")
                .unwrap(),
            Extra::Login(cid) => rec.record_auth_login(*cid, 3, "admin").unwrap(),
            Extra::Logout(cid) => rec.record_auth_logout(*cid).unwrap(),
            Extra::Info(cid, name, change) => rec
                .record_player_message(*cid, &info_message(name, *change))
                .unwrap(),
        }
    }
    for r in &tick.records {
        match r {
            ServerRecord::Join(cid) => rec.record_player_join(*cid, Protocol::Six).unwrap(),
            ServerRecord::Drop(cid, reason) => rec.record_player_drop(*cid, reason).unwrap(),
            ServerRecord::NetMessage(cid, data) => rec.record_player_message(*cid, data).unwrap(),
            ServerRecord::ConsoleCommand(cid, cmd, args) => {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                rec.record_console_command(*cid, 0, cmd, &args).unwrap()
            }
            ServerRecord::PlayerReady(cid) => rec.record_player_ready(*cid).unwrap(),
            ServerRecord::PlayerName(cid, name) => rec.record_player_name(*cid, name).unwrap(),
            ServerRecord::PlayerFinish(cid, time) => rec.record_player_finish(*cid, *time).unwrap(),
            ServerRecord::Test => rec.record_test_extra().unwrap(),
        }
    }
    rec.end_inputs().unwrap();
    rec.end_tick().unwrap();
}

/// A recording from ticks and their extra records.
fn record(ticks: &[(ServerTick, Vec<Extra>)]) -> Vec<u8> {
    let header = Header {
        game_uuid: Some("00000000-0000-4000-8000-000000000001".into()),
        ..Header::new("2")
    };
    let mut rec = Recorder::new(Vec::new(), &header).unwrap();
    for (tick, extras) in ticks {
        record_tick(&mut rec, tick, extras);
    }
    rec.finish().unwrap()
}

/// Two clients with every kind of state (0.7 join, team, practice, versions, login,
/// info messages and name records in both orders), a drop and a rejoin; cut at every
/// tick, to the end and to single ticks.
#[test]
fn every_kind_of_state_record() {
    let alive = |x| PlayerState::Alive { x, y: 7 };
    let tick = |t, players: Vec<(i32, PlayerState)>, records: Vec<ServerRecord>| ServerTick {
        tick: t,
        players,
        inputs: vec![(0, 1, [t; 10]), (1, 2, [t + 1; 10])],
        records,
    };
    use Extra::*;
    let ticks = vec![
        (
            tick(1, vec![], vec![ServerRecord::Join(1)]),
            vec![
                JoinSeven(0),
                Info(0, "seven".into(), false),
                DdnetVersion(0, 16050),
                Login(0),
            ],
        ),
        (
            tick(2, vec![(0, alive(1)), (1, alive(2))], vec![]),
            vec![
                Info(1, "six".into(), false),
                Team(1, 3),
                Practice(3, true),
                Practice(4, true),
            ],
        ),
        (
            tick(
                3,
                vec![(0, alive(4)), (1, alive(2))],
                vec![ServerRecord::PlayerName(1, "renamed".into())],
            ),
            vec![Practice(4, false), Team(0, 5)],
        ),
        (
            tick(
                5,
                vec![(1, alive(9))],
                vec![ServerRecord::Drop(0, "bye".into())],
            ),
            vec![Logout(0), Announce(0, true)],
        ),
        (
            tick(6, vec![(1, PlayerState::Dead)], vec![ServerRecord::Join(0)]),
            vec![Info(1, "six again".into(), true), Team(0, 0)],
        ),
        (
            tick(8, vec![(0, alive(3)), (1, alive(1))], vec![]),
            vec![DdnetVersion(0, 17000), Announce(1, false)],
        ),
        (tick(9, vec![(0, alive(5))], vec![]), vec![]),
    ];
    let data = record(&ticks);
    for from in 0..=10 {
        for to in [from, from + 1, from + 3, 20] {
            let result = trim(&data, TickRange::new(from, to), Vec::new());
            if from > 9 {
                assert!(matches!(result, Err(TrimError::OutsideFile { .. })));
                continue;
            }
            check_cut(&data, from, to);
        }
    }
    let kinds_of = |out: &[u8]| -> Vec<String> {
        messages(out)
            .iter()
            .map(|(_, m)| m.kind_name().into_owned())
            .collect()
    };
    // At tick 4 (no messages there): the 0.7 client with its version, login and team 5,
    // client 1 renamed by its name record, in team 3 with team 3 practising.
    let (out, _) = check_cut(&data, 4, 4);
    let (rosters, _) = game(&out);
    let players = &rosters.last().unwrap().1;
    assert_eq!(players.len(), 2);
    assert_eq!(
        (players[0].sixup, players[0].ddnet_version, players[0].team),
        (true, Some(16050), 5),
        "{players:?}"
    );
    assert_eq!(
        (&*players[1].name, &*players[1].clan, players[1].team),
        ("renamed", "clan", 3)
    );
    let kinds = kinds_of(&out);
    for kind in [
        "EX:teehistorian-player-team@ddnet.tw",
        "EX:teehistorian-team-practice@ddnet.tw",
        "EX:teehistorian-ddnetver@ddnet.tw",
        "EX:teehistorian-joinver7@ddnet.tw",
        "EX:teehistorian-joinver6@ddnet.tw",
        "EX:teehistorian-auth-login@ddnet.tw",
        "EX:teehistorian-player-name@ddnet.org",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "{kind}: {kinds:?}");
    }
    // At tick 7: client 0 dropped (its version and login with it) and joined again as a
    // 0.6 client, its team back to 0; client 1 renamed by its change-info message. Team
    // 4's practice ended: only team 3's and client 1's team are carried over.
    let (out, _) = check_cut(&data, 7, 7);
    let (rosters, _) = game(&out);
    let players = &rosters.last().unwrap().1;
    assert_eq!(
        (players[0].sixup, players[0].ddnet_version, players[0].team),
        (false, None, 0),
        "{players:?}"
    );
    assert_eq!(
        (&*players[1].name, &*players[1].clan, players[1].team),
        ("six again", "clan", 3)
    );
    let kinds = kinds_of(&out);
    assert!(!kinds.iter().any(|k| k.contains("auth")), "{kinds:?}");
    assert!(!kinds.iter().any(|k| k.contains("ddnetver")), "{kinds:?}");
    assert_eq!(
        kinds
            .iter()
            .filter(|k| k.contains("team-practice") || k.contains("player-team"))
            .count(),
        2,
        "{kinds:?}"
    );
}

/// JOINVER records as the game layer takes them: a JOIN takes the last JOINVER before it
/// (a DROP in between does not cancel it), and a JOIN without one is a 0.6 client even
/// after a 0.7 connection of the same client id.
#[test]
fn join_versions_as_the_game_layer_reads_them() {
    use demokit::teehistorian::{Ex, TeehistorianWriter};
    let seven = |cid| Message::Ex(Ex::JoinVer7 { cid });
    let skip = || Message::TickSkip { dt: 0 };
    let start_info = info_message("tee", false);
    let info = |cid| Message::NetMessage {
        cid,
        data: &start_info,
    };
    let drop = |cid| Message::Drop {
        cid,
        reason: "".into(),
    };
    let join = |cid| Message::Join { cid };
    let body = [
        // Tick 1: client 0 joins as a 0.7 client; tick 2: drops and joins without JOINVER.
        skip(),
        seven(0),
        join(0),
        info(0),
        skip(),
        drop(0),
        join(0),
        info(0),
        // Tick 3: client 1 is announced as 0.7, dropped before joining; joins at tick 4.
        skip(),
        seven(1),
        drop(1),
        skip(),
        join(1),
        info(1),
        // Tick 5: client 2 announced; joins at tick 6.
        skip(),
        seven(2),
        skip(),
        join(2),
        skip(),
    ];
    let mut w = TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
    for m in &body {
        w.write(m).unwrap();
    }
    let data = w.finish().unwrap();
    for from in 1..=7 {
        for to in [from, 7] {
            check_cut(&data, from, to);
        }
    }
    let (out, _) = check_cut(&data, 7, 7);
    let (rosters, _) = game(&out);
    let sixup: Vec<(i32, bool)> = rosters
        .last()
        .unwrap()
        .1
        .iter()
        .map(|p| (p.cid, p.sixup))
        .collect();
    assert_eq!(sixup, [(0, false), (1, true), (2, true)]);
}

/// Ticks DDNet does not write but a reader numbers: player records in tick 0 (after a
/// TICK_SKIP of -1), and a TICK_SKIP of -1 inside a tick that lets a client id have two
/// player records there, folded with a PLAYER_OLD into the first tick's state.
#[test]
fn unusual_ticks_keep_their_numbers() {
    use demokit::teehistorian::TeehistorianWriter;
    let body = [
        Message::TickSkip { dt: -1 },
        Message::PlayerNew { cid: 0, x: 1, y: 1 },
        Message::InputNew {
            cid: 0,
            input: [1; 10],
        },
        Message::PlayerDiff {
            cid: 0,
            dx: 1,
            dy: 0,
        },
        Message::PlayerNew { cid: 1, x: 5, y: 5 },
        Message::TickSkip { dt: -1 },
        Message::PlayerDiff {
            cid: 0,
            dx: 1,
            dy: 0,
        },
        Message::PlayerOld { cid: 1 },
        Message::PlayerDiff {
            cid: 0,
            dx: 0,
            dy: 1,
        },
        Message::PlayerNew { cid: 1, x: 6, y: 6 },
    ];
    let mut w = TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
    let ticks: Vec<i32> = body.iter().map(|m| w.write(m).unwrap()).collect();
    assert_eq!(ticks, [0, 0, 0, 1, 1, 1, 1, 1, 2, 2]);
    let data = w.finish().unwrap();
    for from in 0..=2 {
        for to in from..=2 {
            check_cut(&data, from, to);
        }
    }
    let (out, report) = check_cut(&data, 1, 2);
    assert_eq!(
        messages(&out)[..4],
        [
            (1, Message::TickSkip { dt: 0 }),
            (1, Message::PlayerNew { cid: 0, x: 3, y: 1 }),
            (
                1,
                Message::InputNew {
                    cid: 0,
                    input: [1; 10]
                }
            ),
            (
                2,
                Message::PlayerDiff {
                    cid: 0,
                    dx: 0,
                    dy: 1
                }
            ),
        ]
    );
    // The first tick's four player records and its TICK_SKIP are folded into the state.
    assert_eq!(report.messages_replaced, 5);
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// A small recording: client 0 joins at tick 1, moves at ticks 1 to 4, its input changes.
fn small() -> Vec<u8> {
    let ticks: Vec<(ServerTick, Vec<Extra>)> = (1..=4)
        .map(|t| {
            (
                ServerTick {
                    tick: t,
                    players: vec![(0, PlayerState::Alive { x: t, y: 0 })],
                    inputs: vec![(0, 1, [t; 10])],
                    records: if t == 1 {
                        vec![ServerRecord::Join(0)]
                    } else {
                        vec![]
                    },
                },
                vec![],
            )
        })
        .collect();
    record(&ticks)
}

#[test]
fn refusals_are_typed() {
    let data = small();
    let refuse =
        |data: &[u8], from, to| trim(data, TickRange::new(from, to), Vec::new()).unwrap_err();
    // from > to.
    assert!(matches!(
        refuse(&data, 3, 2),
        TrimError::InvalidRange { from: 3, to: 2 }
    ));
    // A range after the file's last tick, or before tick 0.
    let e = refuse(&data, 5, 9);
    assert!(
        matches!(
            e,
            TrimError::OutsideFile {
                last_tick: Some(4),
                range: TickRange { from: 5, to: 9 }
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("end at tick 4"), "{e}");
    assert!(matches!(
        refuse(&data, -9, -1),
        TrimError::OutsideFile { .. }
    ));
    // A header that does not read.
    assert!(matches!(refuse(&data[..40], 0, 1), TrimError::Header(_)));
    let file = TeehistorianSlice::parse(&data).unwrap();
    let offsets: Vec<(u64, i32)> = file
        .messages()
        .map(|m| m.map(|m| (m.offset, m.tick)).unwrap())
        .collect();
    // Cut inside the first message of tick 3: a cut from tick 4 is refused at its offset,
    // one from tick 2 keeps what is complete and says where the input broke off.
    let (at, _) = *offsets.iter().find(|(_, t)| *t == 3).unwrap();
    let broken = &data[..at as usize + 1];
    let e = refuse(broken, 4, 4);
    assert!(matches!(&e, TrimError::Read(r) if r.is_truncation()), "{e}");
    assert_eq!(e.offset(), Some(at));
    let mut out = Vec::new();
    let report = trim(broken, TickRange::new(2, 4), &mut out).unwrap();
    let c = report.break_off.clone().unwrap();
    assert!(c.truncated && c.offset == at, "{c:?}");
    assert!(report.finish_appended);
    assert_eq!(report.input_ticks, TickRange::new(1, 2));
    assert_eq!(report.last_tick, 2);
    assert!(validate(&out).accepted());
    assert_eq!(world_at(&worlds(&out), 2), world_at(&worlds(&data), 2));
    // Bytes that are no message (id -12) in the same place.
    let mut garbage = data[..at as usize].to_vec();
    garbage.extend_from_slice(&[0x4b, 0, 0]);
    assert!(matches!(refuse(&garbage, 3, 4), TrimError::Read(r) if !r.is_truncation()));
    let report = trim(&garbage, TickRange::new(1, 9), Vec::new()).unwrap();
    assert!(!report.break_off.unwrap().truncated);
    // Bytes after FINISH after the range are not looked at; in it, they are dropped.
    let mut trailing = data.clone();
    trailing.extend_from_slice(b"junk");
    let report = trim(&trailing, TickRange::new(1, 2), Vec::new()).unwrap();
    assert!(report.break_off.is_none());
    let mut out = Vec::new();
    let report = trim(&trailing, TickRange::new(4, 4), &mut out).unwrap();
    assert!(report.break_off.is_none() && !report.finish_appended);
    assert!(validate(&out).accepted());
    // A message before the range that does not fit the state: PLAYER_DIFF for a client
    // without a character, in tick 1.
    let mut w =
        demokit::teehistorian::TeehistorianWriter::new(Vec::new(), &Header::new("2")).unwrap();
    w.write(&Message::PlayerDiff {
        cid: 3,
        dx: 1,
        dy: 1,
    })
    .unwrap();
    w.write(&Message::TickSkip { dt: 0 }).unwrap();
    w.write(&Message::Join { cid: 3 }).unwrap();
    let bad = w.finish().unwrap();
    let e = refuse(&bad, 2, 2);
    assert!(matches!(e, TrimError::State { tick: 1, .. }), "{e}");
    assert_eq!(
        e.offset(),
        Some(TeehistorianSlice::parse(&bad).unwrap().body_offset() as u64)
    );
    // In the first tick it is refused too (it is folded into the state); after the first
    // tick it is copied as it is.
    assert!(matches!(refuse(&bad, 1, 2), TrimError::State { .. }));
    let mut out = Vec::new();
    trim(&bad, TickRange::new(0, 2), &mut out).unwrap();
    assert_eq!(
        messages(&out)[..1],
        [(
            1,
            Message::PlayerDiff {
                cid: 3,
                dx: 1,
                dy: 1
            }
        )]
    );
}

// ---------------------------------------------------------------------------------------
// Generated recordings
// ---------------------------------------------------------------------------------------

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../proptest-regressions/teehistorian_cut.txt"
        )))),
        ..ProptestConfig::default()
    }
}

fn extra() -> impl Strategy<Value = Extra> {
    let cid = || 0i32..4;
    prop_oneof![
        cid().prop_map(Extra::JoinSeven),
        (cid(), any::<bool>()).prop_map(|(c, s)| Extra::Announce(c, s)),
        (cid(), -1i32..4).prop_map(|(c, t)| Extra::Team(c, t)),
        (0i32..4, any::<bool>()).prop_map(|(t, on)| Extra::Practice(t, on)),
        (cid(), 15000i32..18000).prop_map(|(c, v)| Extra::DdnetVersion(c, v)),
        cid().prop_map(Extra::Login),
        cid().prop_map(Extra::Logout),
        (cid(), "[a-z]{1,6}", any::<bool>()).prop_map(|(c, n, ch)| Extra::Info(c, n, ch)),
    ]
}

/// Server ticks (players, inputs, joins, drops, names, messages, commands) with extra state
/// records, and a cut range given as a start and a length.
fn recording() -> impl Strategy<Value = (Vec<(ServerTick, Vec<Extra>)>, i32, i32)> {
    (
        strategies::server_ticks(24),
        proptest::collection::vec(proptest::collection::vec(extra(), 0..3), 24),
        any::<prop::sample::Index>(),
        prop_oneof![Just(0i32), 0i32..4, 0i32..60, Just(i32::MAX / 2)],
    )
        .prop_map(|(ticks, extras, start, len)| {
            let last = ticks.last().map_or(0, |t| t.tick);
            let from = start.index(last as usize + 2) as i32;
            let ticks = ticks.into_iter().zip(extras).collect();
            (ticks, from, from.saturating_add(len))
        })
}

proptest! {
    #![proptest_config(config())]

    /// Generated recordings cut at random points keep what a cut must keep.
    #[test]
    fn generated_recordings_cut_anywhere((ticks, from, to) in recording()) {
        let data = record(&ticks);
        let last = messages(&data).last().map_or(0, |(t, _)| *t);
        if from > last {
            let refused = matches!(
                trim(&data, TickRange::new(from, to), Vec::new()),
                Err(TrimError::OutsideFile { .. })
            );
            prop_assert!(refused);
        } else {
            check_cut(&data, from, to);
        }
    }

    /// Any file (every message kind, any order, a header of any text) is refused with a
    /// typed error or cut to a file that reads to FINISH, whose later ticks are the input's.
    #[test]
    fn any_file_is_cut_or_refused(
        data in strategies::file(30),
        start in any::<prop::sample::Index>(),
        len in prop_oneof![0i32..3, 0i32..1200, Just(i32::MAX)],
    ) {
        // A start from -1 to just after the file's last tick.
        let last = TeehistorianSlice::parse(&data)
            .unwrap()
            .messages()
            .map_while(Result::ok)
            .last()
            .map_or(0, |m| m.tick);
        let from = start.index(last as usize + 3) as i32 - 1;
        let to = from.saturating_add(len);
        let mut out = Vec::new();
        match trim(&data, TickRange::new(from, to), &mut out) {
            Err(e) => {
                let typed = matches!(
                    e,
                    TrimError::OutsideFile { .. } | TrimError::State { .. } | TrimError::Read(_)
                );
                prop_assert!(typed, "{e}");
            }
            Ok(report) => {
                prop_assert!(validate(&out).accepted(), "{:?}", validate(&out));
                let first = report.first_tick;
                let later = |d: &[u8]| -> Vec<(i32, String)> {
                    let file = TeehistorianSlice::parse(d).unwrap();
                    file.messages()
                        .map_while(Result::ok)
                        .filter(|m| {
                            m.tick > first
                                && m.tick <= report.last_tick
                                && !matches!(m.message, Message::TickSkip { .. } | Message::Finish)
                        })
                        .map(|m| (m.tick, format!("{:?}", m.message)))
                        .collect()
                };
                prop_assert_eq!(later(&out), later(&data));
                // Where the input reads through the semantic layer to the end of the range,
                // the state as of every tick of the range is the input's.
                let file = TeehistorianSlice::parse(&data).unwrap();
                let mut events = Events::new(file.messages());
                let mut theirs = Vec::new();
                let mut fits = true;
                while let Some(tick) = events.next_tick() {
                    match tick {
                        Ok(t) => theirs.push((t, events.world().clone())),
                        Err(e) => {
                            let tick = match &e {
                                demokit::teehistorian::SemanticError::State { tick, .. } => *tick,
                                _ => events.tick(),
                            };
                            fits = tick > report.last_tick;
                            break;
                        }
                    }
                }
                if fits {
                    let ours = worlds(&out);
                    for t in first..=report.last_tick.min(first + 2000) {
                        prop_assert_eq!(world_at(&ours, t), world_at(&theirs, t), "tick {}", t);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------------------

fn run_trim(args: &[&OsStr]) -> std::process::Output {
    let mut full: Vec<&OsStr> = vec!["trim".as_ref()];
    full.extend_from_slice(args);
    demokit(&full)
}

/// `demokit trim` on a real file: the output validates and says it is a cut; ticks and
/// seconds; the report in JSON.
#[test]
fn cli_trims_a_teehistorian_file() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let input = shared.join("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian");
    let tmp = TempDir::new("teehistorian-cut");
    let out_path = tmp.path("cut.teehistorian");
    let out = run_trim(&[
        input.as_os_str(),
        out_path.as_os_str(),
        "--from".as_ref(),
        "300".as_ref(),
        "--to".as_ref(),
        "600".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("300 to 600"), "{}", stdout(&out));
    let v = demokit(&[OsStr::new("validate"), out_path.as_os_str()]);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
    // The same cut as the library's.
    let data = std::fs::read(&input).unwrap();
    let mut expected = Vec::new();
    trim(&data, TickRange::new(300, 600), &mut expected).unwrap();
    assert_eq!(std::fs::read(&out_path).unwrap(), expected);

    // Seconds from tick 0, to stdout, the report as JSON on stderr.
    let out = run_trim(&[
        input.as_os_str(),
        "-".as_ref(),
        "--from".as_ref(),
        "6s".as_ref(),
        "--to".as_ref(),
        "12.01s".as_ref(),
        "--json".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, expected);
    let report: serde_json::Value = serde_json::from_str(stderr(&out).trim()).unwrap();
    assert_eq!(report["first_tick"], 300);
    assert_eq!(report["last_tick"], 600);
    assert_eq!(report["input_ticks"]["to"], 989);
    assert_eq!(report["synthesized"]["JOIN"], 1);
    assert_eq!(report["break_off"], serde_json::Value::Null);

    // An open end runs to the last tick; an open start from tick 0 keeps the body.
    let whole = tmp.path("whole.teehistorian");
    let out = run_trim(&[
        input.as_os_str(),
        whole.as_os_str(),
        "--to".as_ref(),
        "100000".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let whole = std::fs::read(&whole).unwrap();
    let body = TeehistorianSlice::parse(&data).unwrap().body_offset();
    assert!(whole.ends_with(&data[body..]));
}

/// Markers, an empty or reversed range, a range after the file and a file broken before
/// the range are refused; so is writing over the input or an existing file without -f.
#[test]
fn cli_refusals() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let input = shared.join("real-fixtures/teehistorian/v2_ddnet1261_dm1.teehistorian");
    let tmp = TempDir::new("teehistorian-cut-refusals");
    let out_path = tmp.path("cut.teehistorian");
    let cases: [(&[&str], i32, &str); 7] = [
        (&["--from", "m1"], 2, "no timeline markers"),
        (&["--from", "100", "--to", "m2"], 2, "no timeline markers"),
        (&["--from", "600", "--to", "300"], 2, "the range is empty"),
        (&["--from", "20s", "--to", "10s"], 2, "the range is empty"),
        (&["--from", "5000"], 2, "the range is empty"),
        (
            &["--from", "5000", "--to", "6000"],
            1,
            "no tick in [5000, 6000]",
        ),
        (&["--from", "x"], 2, "is not a tick"),
    ];
    for (args, code, says) in cases {
        let mut full = vec![input.as_os_str(), out_path.as_os_str()];
        full.extend(args.iter().map(OsStr::new));
        let out = run_trim(&full);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(!out_path.exists(), "{args:?}");
    }
    // Broken off before the range: exit 1, naming the offset.
    let data = std::fs::read(&input).unwrap();
    let broken = tmp.write("broken.teehistorian", &data[..5000]);
    let out = run_trim(&[
        broken.as_os_str(),
        out_path.as_os_str(),
        "--from".as_ref(),
        "900".as_ref(),
        "--to".as_ref(),
        "950".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("at byte "), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("does not read up to tick 900"),
        "{}",
        stderr(&out)
    );
    assert!(!out_path.exists());
    // Broken off inside the range: cut up to the break, and the report says where.
    let out = run_trim(&[
        broken.as_os_str(),
        out_path.as_os_str(),
        "--from".as_ref(),
        "300".as_ref(),
        "--to".as_ref(),
        "950".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("input breaks off"),
        "{}",
        stdout(&out)
    );
    let v = demokit(&[OsStr::new("validate"), out_path.as_os_str()]);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));

    // Output safety: not over the input, not over an existing file without -f.
    let copy = tmp.write("input.teehistorian", &data);
    let range = ["--from", "300", "--to", "400"].map(OsStr::new);
    let mut over_input = vec![copy.as_os_str(), copy.as_os_str()];
    over_input.extend(range);
    let out = run_trim(&over_input);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read(&copy).unwrap(), data);
    let mut existing = vec![copy.as_os_str(), out_path.as_os_str()];
    existing.extend(range);
    let before = std::fs::read(&out_path).unwrap();
    let out = run_trim(&existing);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read(&out_path).unwrap(), before);
    existing.push("-f".as_ref());
    let out = run_trim(&existing);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(std::fs::read(&out_path).unwrap(), before);

    // resolve_range, which the CLI uses, agrees.
    assert!(resolve_range(&data, None, None).is_ok());
}

/// Events of the first tick of a cut: the semantic layer sees the state as new records.
#[test]
fn the_first_tick_holds_the_state() {
    let data = small();
    let (out, _) = check_cut(&data, 3, 4);
    let file = TeehistorianSlice::parse(&out).unwrap();
    let first: Vec<EventKind<'_>> = Events::new(file.messages())
        .map(|e| e.unwrap())
        .take_while(|e| e.tick == 3)
        .map(|e| e.kind)
        .collect();
    assert!(matches!(first[0], EventKind::TickSkip { dt: 2 }));
    assert!(first.contains(&EventKind::Join { cid: 0 }));
    assert!(first.contains(&EventKind::PlayerNew {
        cid: 0,
        x: 3,
        y: 0,
        previous: None
    }));
    assert!(first.iter().any(|e| matches!(
        e,
        EventKind::Input {
            cid: 0,
            new: true,
            ..
        }
    )));
}
