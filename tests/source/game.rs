//! The game layer of Source demos: facts a person can check by eye in the fixtures (the
//! map, who played, what was said), and how the walk hands them out.

use crate::common;

use demokit::source::SourceSlice;
use demokit::source::game::{Item, game_log_reader, walk_reader};

fn fixture(name: &str) -> Option<Vec<u8>> {
    let local = common::root().join("fixtures/source").join(name);
    if local.is_file() {
        return Some(std::fs::read(local).unwrap());
    }
    let shared = common::shared_dir()?;
    Some(std::fs::read(shared.join("real-fixtures/source").join(name)).unwrap())
}

/// The players of a fixture: name, SteamID, bot.
type Players = Vec<(String, String, bool)>;
/// The chat of a fixture: name, text.
type Chat = Vec<(String, String)>;

/// The map, the players and the chat of a fixture.
fn facts(name: &str) -> Option<(String, Players, Chat)> {
    facts_of(name, &fixture(name)?)
}

/// The map, the players and the chat of a demo's bytes.
fn facts_of(name: &str, data: &[u8]) -> Option<(String, Players, Chat)> {
    let map = SourceSlice::parse(data)
        .unwrap()
        .header()
        .map
        .to_string_lossy();
    let mut players = Vec::new();
    let mut chat = Vec::new();
    let end = walk_reader(data, |item| match item {
        Item::Join { player, .. } => {
            players.push((player.name.clone(), player.guid.clone(), player.bot))
        }
        Item::Chat(c) => chat.push((c.name.clone(), c.text.clone())),
        _ => {}
    })
    .unwrap();
    assert!(end.error.is_none(), "{name}: {:?}", end.error);
    Some((map, players, chat))
}

#[test]
fn tf2_gullywash_has_its_recorder_and_the_time_left() {
    let Some((map, players, chat)) = facts("tf2_cp_gullywash_small.dem") else {
        return;
    };
    assert_eq!(map, "cp_gullywash");
    assert_eq!(
        players,
        [("Icewind | demos.tf".into(), "[U:1:64229260]".into(), false)]
    );
    // The server's `#TF_timeleft` with 29 and 55, read as its text.
    assert_eq!(chat, [(String::new(), "time left: 29:55".into())]);
}

/// Issue 49's D1: Portal 2's mods write `userinfo` in 140 bytes (the XUID layout padded
/// to 4 bytes): the name is read after the XUID, not from its bytes (`"\x01\x10"`). And
/// D5 in part: Portal Reloaded is read (Portal Revolution, protocol 13703, is still
/// refused: it has messages of its own).
#[test]
fn portal_2_mods_name_their_player() {
    for (file, map, guid) in [
        (
            "aperturetag_gg_a1_intro4.dem",
            "gg_a1_intro4",
            "STEAM_1:0:44791181",
        ),
        (
            "portal_stories_mel_intro.dem",
            "st_a1_mel_intro",
            "STEAM_1:0:44791181",
        ),
        ("twtm_tm_map_02b.dem", "tm_map_02b", "STEAM_1:0:0"),
        // Portal Reloaded numbers its protocol 1000; its messages are Portal 2's (D5).
        (
            "portalreloaded_sp_a1_pr_map_004.dem",
            "sp_a1_pr_map_004",
            "STEAM_1:0:44791181",
        ),
    ] {
        let (found_map, players, _) = facts(file).unwrap();
        assert_eq!(found_map, map, "{file}");
        assert_eq!(players.len(), 1, "{file}: {players:?}");
        assert_eq!(players[0].0, "NeKz", "{file}");
        assert_eq!(players[0].1, guid, "{file}");
        assert!(!players[0].2, "{file}");
    }
}

#[test]
fn left_4_dead_has_one_player_and_three_bots() {
    let (map, players, chat) = facts("l4d1_37_v1005.dem").unwrap();
    assert_eq!(map, "l4d_airport01_greenhouse");
    let names: Vec<(&str, bool)> = players.iter().map(|p| (&p.0[..], p.2)).collect();
    assert_eq!(
        names,
        [
            ("adok1n", false),
            ("Francis", true),
            ("Louis", true),
            ("Bill", true)
        ]
    );
    assert_eq!(players[1].1, "BOT");
    assert!(chat.is_empty());
}

#[test]
fn left_4_dead_2_chat_names_its_speaker() {
    let (map, players, chat) = facts("l4d2_2100_v2220.dem").unwrap();
    assert_eq!(map, "c2m2_fairgrounds");
    assert_eq!(
        players,
        [("aciidz".into(), "STEAM_1:0:47005136".into(), false)]
    );
    assert_eq!(chat.len(), 1);
    assert_eq!(chat[0].0, "aciidz");
}

#[test]
fn single_player_demos_have_their_player() {
    for (name, map, player) in [
        ("portal1_3740.dem", "testchmb_a_05", "DemonStrate"),
        (
            "portal2_sp_laser_relays.dem",
            "sp_a2_laser_relays",
            "UncraftedName",
        ),
        ("hl2_oe_canals11.dem", "d1_canals_11", "BitRain"),
    ] {
        let Some((m, players, _)) = facts(name) else {
            continue;
        };
        assert_eq!(m, map, "{name}");
        assert_eq!(players[0].0, player, "{name}");
    }
}

#[test]
fn the_game_log_gathers_kills_and_teams() {
    let data = fixture("l4d1_37_v1005.dem").unwrap();
    let (log, error) = game_log_reader(&data[..]).unwrap();
    assert!(error.is_none());
    assert_eq!(log.players.len(), 4);
    // Survivors are team 2 in Left 4 Dead.
    assert!(
        log.players
            .iter()
            .all(|p| p.team == Some(2) && p.team_name.as_deref() == Some("Survivor")),
        "{:?}",
        log.players
    );
    assert!(log.events.iter().any(|e| e.kind.name() == "team"));
    assert_eq!(
        log.kills,
        log.events
            .iter()
            .filter(|e| e.kind.name() == "kill")
            .count()
    );
}

/// The CS:GO demo (`DEMOKIT_CSGO_DEMO`, the 14-second de_dust2 recording of
/// miedzinski/demoinfogo's `test-data/ok.dem`): its recorder, nine bots, the warm-up
/// notice in the chat and its events, from protobuf messages.
#[test]
fn csgo_has_its_recorder_nine_bots_and_the_warmup_notice() {
    let Some(data) = common::csgo_ok_dem() else {
        return;
    };
    let (map, players, chat) = facts_of("csgo", &data).unwrap();
    assert_eq!(map, "de_dust2");
    assert_eq!(
        players[0],
        ("donnie".into(), "STEAM_1:0:14324181".into(), false)
    );
    let bots: Vec<&str> = players[1..]
        .iter()
        .filter(|p| p.1 == "BOT" && p.2)
        .map(|p| p.0.as_str())
        .collect();
    assert_eq!(
        bots,
        [
            "Nate", "Dennis", "Jason", "Jon", "Colin", "Paul", "Henry", "Dean", "Yahn"
        ]
    );
    // `#SFUI_Notice_Match_Will_Start_Chat`, read as its text.
    assert_eq!(
        chat,
        [(
            String::new(),
            "the match starts when the players are ready".into()
        )]
    );
    let mut events = std::collections::BTreeMap::<String, usize>::new();
    let mut server_text = Vec::new();
    walk_reader(&data[..], |item| match item {
        Item::Event(e) => *events.entry(e.name().into_owned()).or_default() += 1,
        Item::Text { text, .. } => server_text.push(text.to_owned()),
        _ => {}
    })
    .unwrap();
    assert_eq!(events["player_team"], 10);
    assert_eq!(events["player_spawn"], 29);
    assert_eq!(events["round_start"], 1);
    assert!(server_text[0].contains("Map: de_dust2"), "{server_text:?}");
    let (log, error) = game_log_reader(&data[..]).unwrap();
    assert!(error.is_none(), "{error:?}");
    assert_eq!(log.players.len(), 10);
}

/// CS:GO's text user messages are protobuf messages: a `SayText2` as the game writes it
/// reads as the speaker, the channel's token and the text, and a team token is a team
/// channel.
#[test]
fn csgo_say_text2_reads_from_its_protobuf_fields() {
    use demokit::source::game::{SayText2, SourceChat, TextMsg};
    use demokit::source::net::csgo::pb;
    use demokit::source::net::{MessageKind, ProtoMessage};
    let body = |m: &pb::SayText2| ProtoMessage::of(MessageKind::UserMessage, m).body;
    let say = pb::SayText2 {
        ent_idx: Some(3),
        chat: Some(true),
        msg_name: Some(b"Cstrike_Chat_CT".to_vec()),
        params: vec![b"Dennis".to_vec(), b"rush B".to_vec(), vec![], vec![]],
        textallchat: Some(false),
    };
    let read = SayText2::from_csgo(&body(&say)).unwrap();
    assert_eq!(read.client, 3);
    assert_eq!(read.chat, 1);
    assert_eq!(read.message.to_string_lossy(), "Cstrike_Chat_CT");
    assert_eq!(read.params[0].to_string_lossy(), "Dennis");
    assert_eq!(read.params[1].to_string_lossy(), "rush B");
    let chat = |kind: &str| SourceChat {
        tick: 0,
        slot: Some(2),
        name: "Dennis".into(),
        kind: kind.into(),
        text: "rush B".into(),
    };
    assert!(chat("Cstrike_Chat_CT").team_only());
    assert!(!chat("Cstrike_Chat_All").team_only());
    assert!(!chat("Cstrike_Chat_AllDead").team_only());
    // A TextMsg: its first parameter is the text or its token.
    let text = pb::TextMsg {
        msg_dst: Some(3),
        params: vec![b"#SFUI_Notice_Match_Will_Start_Chat".to_vec(), vec![]],
    };
    let msg = TextMsg::from_csgo(&ProtoMessage::of(MessageKind::UserMessage, &text).body).unwrap();
    assert_eq!(msg.destination, 3);
    assert_eq!(
        msg.message.to_string_lossy(),
        "#SFUI_Notice_Match_Will_Start_Chat"
    );
    assert_eq!(msg.params.len(), 1);
}

/// Issue 49's D5: Portal: Revolution (network protocol 13703) numbers its messages its own
/// way; its demos are refused by name (the game and the protocol), never read as garbage,
/// and its container still reads, with the Portal 2 engine's tick interval.
#[test]
fn portal_revolution_is_refused_by_name() {
    let data = fixture("portal_revolution_sp_a1_catapult_intro.dem").unwrap();
    let err = walk_reader(&data[..], |_| {}).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("13703") && text.contains("revolution"),
        "{text}"
    );
    let summary = demokit::source::validate(&data[..]);
    assert!(summary.accepted(), "{:?}", summary.problems);
    assert!(summary.problems.is_empty(), "{:?}", summary.problems);
}
