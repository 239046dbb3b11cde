//! The game-layer commands: `chat`, `players`, `events` and `dump --game-records` on demos and
//! teehistorian files, single and in batches, as text and JSON Lines.

use crate::common;

use crate::run::{demokit, json_lines, stderr, stdout};
use serde_json::Value;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    common::root().join("fixtures").join(name)
}

/// `demokit chat` prints a demo's chat as DDNet's `demo_extract_chat` prints it, line for
/// line (the expected lines are worked out by hand from the tool's code at DDNet's
/// reference commit; see `tests/twdemo/chat.rs` for every demo). Before, it printed
/// `tick=... client_id=... team=...` rows of every `Sv_Chat` and no broadcast.
#[test]
fn chat_of_a_server_demo_names_the_lines() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let file = shared.join("real-fixtures/twdemo/v3_tw061_server_dm1.demo");
    let out = demokit(&["chat".as_ref(), file.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "[00:00] chat: *** 'mover1' entered and joined the game\n\
         [00:05] chat: *** 'mover2' entered and joined the game\n\
         [00:15] chat: *** fixture map change\n"
    );

    let out = demokit(&["chat".as_ref(), "--json".as_ref(), file.as_os_str()]);
    let lines = json_lines(&out);
    let said: Vec<_> = lines.iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert_eq!(
        said,
        [
            "'mover1' entered and joined the game",
            "'mover2' entered and joined the game",
            "fixture map change"
        ]
    );
    for line in &lines {
        assert!(
            line["file"]
                .as_str()
                .unwrap()
                .ends_with("v3_tw061_server_dm1.demo")
        );
        assert_eq!(line["client_id"], -1);
        assert_eq!(line["kind"], "chat");
    }
    assert_eq!(lines[1]["seconds"], 5);
    assert_eq!(lines[1]["tick"], 462);
}

/// The demos where `demokit chat` and DDNet's tool differed: broadcasts (which the tool
/// prints and `chat` left out), and the 0.7 demos, where `chat` gave the 0.7 chat mode as
/// the team (1, all chat, read as team chat). On a 0.7 demo DDNet's tool itself is wrong:
/// it types the demo as 0.6, so it knows no player (and leaves out the vanilla 0.7
/// client's one player line) and prints the server's line as `teamchat: *** @Your ...`
/// (the 0.7 mode as the 0.6 team, the target id as the text's first byte); `chat` reads a
/// 0.7 demo as DDNet's client does.
#[test]
fn chat_lists_broadcasts_and_reads_sixup_demos_as_the_client_does() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = shared.join("real-fixtures/twdemo");
    let cases = [
        (
            "v5_ddnet1261_server_dm1.demo",
            "[00:01] broadcast: Get DDNet client from DDNet.tw to use all features on DDNet!\n\
             [00:06] broadcast: Get DDNet client from DDNet.tw to use all features on DDNet!\n",
        ),
        (
            "v4_tw075_client_dm1.demo",
            "[00:01] chat: nameless tee: hello\n",
        ),
        (
            "v6_ddnet_client_sixup_tinycave.demo",
            "[00:01] chat: *** Your timeout code has been set. 0.7 clients can not reclaim \
             their tees on timeout; however, a 0.6 client can claim your tee \n",
        ),
    ];
    for (name, expected) in cases {
        let Some(path) = common::shared_file_part(&format!("real-fixtures/twdemo/{name}")) else {
            continue;
        };
        let out = demokit(&["chat".as_ref(), path.as_os_str()]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert_eq!(stdout(&out), expected, "{name}");
    }
    // In a batch every line starts with its file.
    let out = demokit(&["chat".as_ref(), dir.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let file_of = |l: &str| l.split(".demo: ").next().map(str::to_owned);
    assert!(
        text.lines()
            .all(|l| file_of(l).is_some_and(|f| l.starts_with(&f))),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.ends_with(
            "v5_ddnet1261_server_dm1.demo: [00:01] broadcast: Get DDNet client from DDNet.tw \
             to use all features on DDNet!"
        )),
        "{text}"
    );
    if common::has_full_corpus() {
        assert!(
            text.lines().any(|l| l
                .ends_with("v4_tw075_client_dm1.demo: [00:01] chat: nameless tee: hello")),
            "{text}"
        );
        assert_eq!(
            text.lines().count(),
            3 + 3 + 1 + 2 + 1 + 1 + 40 + 1,
            "{text}"
        );
    } else {
        // The repository's demos: the three server demos, multeasymap's 40 and rainymore2.
        assert_eq!(text.lines().count(), 48, "{text}");
    }
}

#[test]
fn players_of_demos_and_teehistorian_files() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    // The same game, recorded by DDNet 20.1's server both ways.
    let demo = shared.join("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo");
    let th = shared.join("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian");
    let out = demokit(&[
        "players".as_ref(),
        "--json".as_ref(),
        demo.as_os_str(),
        th.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<(String, String, bool)> = json_lines(&out)
        .iter()
        .map(|l| {
            let file = l["file"].as_str().unwrap();
            let format = if file.ends_with(".demo") {
                "demo"
            } else {
                "th"
            };
            (
                format.into(),
                l["name"].as_str().unwrap().into(),
                l["left"].as_bool().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("th", "mover1", false),
        ("th", "mover2", false),
        ("demo", "mover1", false),
        ("demo", "mover2", false),
    ];
    let expected: Vec<(String, String, bool)> = expected
        .iter()
        .map(|(f, n, l)| (f.to_string(), n.to_string(), *l))
        .collect();
    // Sorted path order: the teehistorian directory comes before the twdemo one.
    assert_eq!(rows, expected);
}

/// `players` as text is a table: a header of the JSON's field names, a row per stint,
/// every column starting where its header does, the flag's code beside its number.
#[test]
fn players_as_text_is_an_aligned_table() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let demo = shared.join("real-fixtures/twdemo/v6_ddnet_client_multeasymap_2020.demo");
    let out = demokit(&["players".as_ref(), demo.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let header = lines[0];
    assert!(header.starts_with("client_id  name"), "{header}");
    assert!(lines.len() > 1, "{text}");
    // Columns as a terminal shows them: a CJK character takes two (the demo has such
    // names).
    let columns = |line: &str| -> Vec<char> {
        line.chars()
            .flat_map(|c| {
                let wide = unicode_width::UnicodeWidthChar::width(c).unwrap_or(1) == 2;
                std::iter::once(c).chain(wide.then_some('\u{0}'))
            })
            .collect()
    };
    let name_at = header.find("name").unwrap();
    let country_at = header.find("country").unwrap();
    for row in &lines[1..] {
        let row = columns(row);
        // The name and country columns start under their headers, after a blank gap.
        for at in [name_at, country_at] {
            assert_eq!(row[at - 2..at], [' ', ' '], "{row:?}");
            assert_ne!(row[at], ' ', "{row:?}");
        }
    }
    assert!(text.contains("UA (804)"), "{text}");
    // A deathmatch has no teams: a player in the game has none, a spectator is one.
    assert!(text.contains("spectators (-1)"), "{text}");
    assert!(!text.contains("red (0)"), "{text}");
}

#[test]
fn events_over_a_directory_cover_every_kind_the_demos_hold() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = shared.join("real-fixtures/twdemo");
    let out = demokit(&["events".as_ref(), "--json".as_ref(), dir.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let mut kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    // The game model's kinds (a demo's chat, emoticons, broadcasts and spawns are its
    // own records: `chat` and `dump --game-records`).
    for kind in ["kill", "join", "leave", "death"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    let model: Vec<&str> = demokit::model::EventKind::ALL
        .iter()
        .map(|k| k.name())
        .collect();
    assert!(kinds.iter().all(|k| model.contains(k)), "{kinds:?}");
    let kills: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "kill").collect();
    // multeasymap's 30, and the 0.7 client demo's one that only the full corpus has.
    let expected = if common::has_full_corpus() { 31 } else { 30 };
    assert_eq!(kills.len(), expected);
    assert!(
        lines
            .iter()
            .all(|l| l["file"].is_string() && l["tick"].is_i64())
    );
}

#[test]
fn events_of_a_teehistorian_file_are_typed() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let file = shared.join("real-fixtures/teehistorian/v1_ddnet1101_dm1.teehistorian");
    let out = demokit(&[
        "dump".as_ref(),
        "--game-records".as_ref(),
        "--json".as_ref(),
        file.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let messages: Vec<&str> = lines
        .iter()
        .filter(|l| l["kind"] == "message")
        .map(|l| l["message"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        ["Cl_StartInfo", "Cl_SetTeam", "Cl_StartInfo", "Cl_SetTeam"]
    );
    let names: Vec<&str> = lines
        .iter()
        .filter(|l| l["kind"] == "name")
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mover1", "mover2"]);
    assert_eq!(lines.iter().filter(|l| l["kind"] == "join").count(), 2);
}

#[test]
fn dump_game_records_types_every_item_and_message() {
    let file = fixture("recorded_v6.demo");
    let out = demokit(&[
        "dump".as_ref(),
        "--game-records".as_ref(),
        "--json".as_ref(),
        file.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert!(!lines.is_empty());
    let (mut objects, mut messages) = (0, 0);
    for line in &lines {
        match line["record"].as_str().unwrap() {
            "object" => {
                objects += 1;
                assert_ne!(line["object"]["type"], "Raw", "{line}");
            }
            "message" => {
                messages += 1;
                assert_ne!(line["message"]["type"], "Raw", "{line}");
            }
            other => panic!("{other}"),
        }
    }
    assert!(objects > 0 && messages > 0, "{objects} {messages}");
    let text = demokit(&["dump".as_ref(), "--game-records".as_ref(), file.as_os_str()]);
    // The flag's former name still says the same.
    let former = demokit(&["dump".as_ref(), "--objects".as_ref(), file.as_os_str()]);
    assert_eq!(former, text);
    assert_eq!(stdout(&text).lines().count(), lines.len());
}

/// `dump --game-records` on a Source demo: every entity each update touched, with the props
/// it sent by `table.prop` name, among the chat, joins and game events; the text form has
/// one line per JSON record and no embedded JSON.
#[test]
fn source_demos_dump_their_entities_by_name() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let tf2 = shared.join("real-fixtures/source/tf2_cp_gullywash_small.dem");
    let out = demokit(&["chat".as_ref(), tf2.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = demokit(&[
        "dump".as_ref(),
        "--game-records".as_ref(),
        "--json".as_ref(),
        tf2.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let entities: Vec<&Value> = lines.iter().filter(|l| l["record"] == "entity").collect();
    assert!(entities.len() > 100, "{}", entities.len());
    // The recording player enters as entity 1 with both copies of its origin.
    let player = entities.iter().find(|l| l["index"] == 1).expect("entity 1");
    assert_eq!(player["change"], "entered");
    assert_eq!(player["class"], "CTFPlayer");
    let props = player["props"].as_object().unwrap();
    for name in [
        "DT_TFLocalPlayerExclusive.m_vecOrigin",
        "DT_TFLocalPlayerExclusive.m_vecOrigin[2]",
        "DT_TFNonLocalPlayerExclusive.m_vecOrigin[2]",
        "DT_BasePlayer.m_iHealth",
    ] {
        assert!(props.contains_key(name), "{name} in {props:?}");
    }
    assert_eq!(props["DT_TFNonLocalPlayerExclusive.m_vecOrigin[2]"], 298.0);
    // TF2's four teams, by the names their entities carry.
    let mut teams: Vec<&str> = entities
        .iter()
        .filter(|l| l["class"] == "CTFTeam" && l["change"] == "entered")
        .filter_map(|l| l["props"]["DT_Team.m_szTeamname"].as_str())
        .collect();
    teams.sort_unstable();
    assert_eq!(teams, ["Blue", "Red", "Spectator", "Unassigned"]);
    // A changed entity lists only what the update sent: never nothing.
    for l in entities.iter().filter(|l| l["change"] == "changed") {
        assert!(!l["props"].as_object().unwrap().is_empty(), "{l}");
    }
    // The game layer's other records are there too.
    assert!(lines.iter().any(|l| l["record"] == "join"));
    assert!(lines.iter().any(|l| l["record"] == "chat"));
    let text = demokit(&["dump".as_ref(), "--game-records".as_ref(), tf2.as_os_str()]);
    assert!(text.status.success(), "{}", stderr(&text));
    let text = stdout(&text);
    assert_eq!(text.lines().count(), lines.len());
    for line in text.lines() {
        assert!(line.starts_with("tick="), "{line}");
        assert!(!line.contains('{'), "{line}");
    }
    let dir = shared.join("real-fixtures/source");
    let out = demokit(&["players".as_ref(), dir.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(" 0 partial, 0 failed, 0 skipped\n"),
        "{}",
        stderr(&out)
    );
}

/// `dump --game-records` as text is one `key=value` line per record with no JSON in it: a typed
/// item or message shows as its type, then its own fields; number lists as `1,2,3`.
#[test]
fn dump_game_records_text_has_no_embedded_json() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for file in [
        "real-fixtures/twdemo/v6_ddnet201_server_dm1.demo",
        "real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian",
    ] {
        let path = shared.join(file);
        let out = demokit(&["dump".as_ref(), "--game-records".as_ref(), path.as_os_str()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.lines().count() > 10, "{file}");
        for line in text.lines() {
            assert!(line.starts_with("tick="), "{line}");
            assert!(!line.contains(['{', '[']), "{file}: {line}");
        }
    }
}

/// The same game recorded both ways by DDNet 20.1's server names its players on their
/// joins in both: DDNet's teehistorian records a join, then the player's name, which
/// completes the join (it is no rename); a later name is a rename.
#[test]
fn joins_name_their_players_in_the_demo_and_the_teehistorian_file_alike() {
    use demokit::gamenet::summary::EventKind;
    let joins = |relative: &str| {
        let path = common::shared_file(relative).unwrap();
        let (log, error) = demokit::recording::Recording::open(&path)
            .unwrap()
            .game_log()
            .unwrap();
        assert!(error.is_none());
        let names: Vec<(i32, String)> = log
            .events
            .iter()
            .filter(|e| e.kind == EventKind::Join)
            .map(|e| (e.client_id.unwrap(), e.name.clone()))
            .collect();
        let renames = log
            .events
            .iter()
            .filter(|e| e.kind == EventKind::Name)
            .count();
        (names, renames)
    };
    let expected = vec![(0, "mover1".to_owned()), (1, "mover2".to_owned())];
    assert_eq!(
        joins("real-fixtures/twdemo/v6_ddnet201_server_dm1.demo"),
        (expected.clone(), 0)
    );
    assert_eq!(
        joins("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian"),
        (expected, 0)
    );
}
