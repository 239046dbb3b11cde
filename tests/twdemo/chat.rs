//! A demo's chat as DDNet's `demo_extract_chat` prints it (`src/tools/demo_extract_chat.cpp`
//! at the reference commit 28baa427).
//!
//! DDNet's tool was not built here (it needs DDNet's whole build). The expected lines are
//! worked out by hand from its code, message by message: which messages it prints
//! (`Sv_Chat` and `Sv_Broadcast` that pass `SecureUnpackMsg`), how it names the speaker
//! (from the `ClientInfo` items of the snapshots it was handed before the message, never
//! forgotten; a client id without a name is not printed), its time (`(CurrentTick -
//! FirstTick) / 50` whole seconds through `str_time`'s `HOURS` format) and its line
//! formats. Each expectation below says which rule it shows.
//!
//! The real recordings: `real_demos_list_what_demo_extract_chat_prints` holds, for every
//! demo of the corpus's `real-fixtures/twdemo` and `fixtures/`, the tool's output worked out
//! the same way from the demo's `Sv_Chat` and `Sv_Broadcast` chunks, its first tick and
//! (for player lines) the names its snapshots give before each line.

use crate::common;

use demokit::codec::varint::pack_into;
use demokit::gamenet::wire::IntString;
use demokit::twdemo::game::chat::{ChatKind, DemoChatLine, chat_lines};
use demokit::twdemo::{DemoSlice, Recorder, RecorderConfig, SnapshotBuilder};
use std::io::Cursor;

/// A field of a packed message.
enum F<'a> {
    I(i32),
    S(&'a [u8]),
}

/// A game message (not system) of `id` with `fields`, packed as DDNet packs it.
fn msg(id: i32, fields: &[F<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    pack_into(id << 1, &mut out);
    for field in fields {
        match field {
            F::I(v) => pack_into(*v, &mut out),
            F::S(s) => {
                out.extend_from_slice(s);
                out.push(0);
            }
        }
    }
    out
}

/// 0.6 `Sv_Chat`: team, client id, text.
fn chat6(team: i32, client_id: i32, text: &[u8]) -> Vec<u8> {
    msg(3, &[F::I(team), F::I(client_id), F::S(text)])
}

/// `Sv_Broadcast` (id 2 in both protocols).
fn broadcast(text: &[u8]) -> Vec<u8> {
    msg(2, &[F::S(text)])
}

/// 0.7 `Sv_Chat`: mode (1 all, 2 team, 3 whisper), client id, target id, text.
fn chat7(mode: i32, client_id: i32, target_id: i32, text: &[u8]) -> Vec<u8> {
    msg(
        3,
        &[F::I(mode), F::I(client_id), F::I(target_id), F::S(text)],
    )
}

/// 0.7 `Sv_ClientInfo` (id 18) of a player who is not the recording one.
fn client_info7(client_id: i32, name: &[u8]) -> Vec<u8> {
    let mut fields = vec![
        F::I(client_id),
        F::I(0), // local
        F::I(0), // team
        F::S(name),
        F::S(b""), // clan
        F::I(-1),  // country
    ];
    fields.extend((0..6).map(|_| F::S(b"standard")));
    fields.extend((0..6).map(|_| F::I(0))); // use custom colors
    fields.extend((0..6).map(|_| F::I(0))); // colors
    fields.push(F::I(0)); // silent
    msg(18, &fields)
}

/// 0.7 `Sv_ClientDrop` (id 20).
fn client_drop7(client_id: i32) -> Vec<u8> {
    msg(20, &[F::I(client_id), F::S(b""), F::I(0)])
}

/// `name` in 4 ints, as `StrToInts` stores it.
fn name_ints(name: &str) -> Vec<i32> {
    IntString::<4>::from_text(name.as_bytes())
        .unwrap()
        .0
        .to_vec()
}

/// A 0.6 `ClientInfo` item's data (17 ints) naming `name`.
fn client_info6(name: &str) -> Vec<i32> {
    let mut data = name_ints(name);
    data.resize(17, 0);
    data
}

/// A 0.7 `De_ClientInfo` item's data (58 ints) naming `name`.
fn de_client_info7(local: bool, name: &str) -> Vec<i32> {
    let mut data = vec![i32::from(local), 0];
    data.extend(name_ints(name));
    data.resize(58, 0);
    data
}

/// A snapshot of `items` (type, id, data).
fn snapshot(items: &[(i32, i32, Vec<i32>)]) -> demokit::twdemo::SnapshotBuf {
    let mut builder = SnapshotBuilder::new();
    for (type_id, id, data) in items {
        builder.add_item(*type_id, *id, data).unwrap();
    }
    builder.finish()
}

/// What a demo is made of, in order.
enum Step {
    /// A tick's snapshot (the recorder writes a keyframe, a delta, or only the marker).
    Snap(i32, demokit::twdemo::SnapshotBuf),
    /// A message chunk.
    Msg(Vec<u8>),
}

/// A demo of `steps` under `net_version`.
fn demo(net_version: &str, steps: &[Step]) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet("chat", "2026-01-01_00-00-00");
    config.net_version = net_version.into();
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"map").unwrap();
    for step in steps {
        match step {
            Step::Snap(tick, s) => rec.record_snapshot(*tick, s.as_snapshot()).unwrap(),
            Step::Msg(bytes) => rec.record_message(bytes).unwrap(),
        }
    }
    rec.finish().unwrap().into_inner()
}

/// The tool's output for `data`: its lines, each as it prints them.
fn printed(data: &[u8]) -> Vec<String> {
    let demo = DemoSlice::parse(data).unwrap();
    let (lines, error) = chat_lines(&demo);
    assert!(error.is_none(), "{error:?}");
    lines.iter().map(ToString::to_string).collect()
}

const SIX: &str = "0.6 626fce9a778df4d4";
const SEVEN: &str = "0.7 802f1be60a05665f";

#[test]
fn a_six_demo_lists_what_demo_extract_chat_prints() {
    use Step::{Msg, Snap};
    let named = snapshot(&[(11, 0, client_info6("alice"))]);
    let gone = snapshot(&[(5, 0, vec![0, 0, 0])]);
    let long = vec![b'x'; 2000];
    let data = demo(
        SIX,
        &[
            // Before the first tick marker: the player's tick is -1, shown as 00:00; no
            // snapshot named anyone yet, so client 0's line is left out.
            Msg(chat6(0, -1, b"welcome")),
            Msg(chat6(0, 0, b"too early")),
            Snap(100, named.clone()),
            Msg(chat6(0, 0, b"hi")),
            Msg(chat6(1, 0, b"to my team")),
            Msg(chat6(2, 0, b"psst")),
            Msg(chat6(3, 0, b"back")),
            // m_Team -1 is in range (-2..3) and not 0: "teamchat".
            Msg(chat6(-1, 0, b"spectators")),
            // Client 1 has no name: not printed.
            Msg(chat6(0, 1, b"who am i")),
            // Out of SecureUnpackMsg's ranges: dropped.
            Msg(chat6(4, 0, b"team 4")),
            Msg(chat6(0, 128, b"client 128")),
            // Not UTF-8: the unpacker fails, dropped.
            Msg(chat6(0, 0, b"bad \xff")),
            // SANITIZE_CC: a tab becomes a space.
            Msg(chat6(0, 0, b"tab\there")),
            // A broadcast is a line per non-empty line, cut at the tool's 1023 bytes.
            Msg(broadcast(b"line one\n\nline two\n")),
            Msg(broadcast(&long)),
            // 61 s later alice's info is gone from the snapshot, but the tool keeps names.
            Snap(100 + 61 * 50, gone.clone()),
            Msg(chat6(0, 0, b"still alice")),
            // Past an hour: hh:mm:ss. 129 ticks are 2 whole seconds.
            Snap(100 + 3602 * 50 + 29, gone),
            Msg(chat6(0, -1, b"late")),
        ],
    );
    let x = "x".repeat(1023);
    let rest = "x".repeat(2000 - 1023);
    let expected = [
        "[00:00] chat: *** welcome".to_string(),
        "[00:00] chat: alice: hi".into(),
        "[00:00] teamchat: alice: to my team".into(),
        "[00:00] whisper: -> alice: psst".into(),
        "[00:00] whisper: <- alice: back".into(),
        "[00:00] teamchat: alice: spectators".into(),
        "[00:00] chat: alice: tab here".into(),
        "[00:00] broadcast: line one".into(),
        "[00:00] broadcast: line two".into(),
        format!("[00:00] broadcast: {x}"),
        format!("[00:00] broadcast: {rest}"),
        "[01:01] chat: alice: still alice".into(),
        "[01:00:02] chat: *** late".into(),
    ];
    assert_eq!(printed(&data), expected);
}

/// A 0.7 demo as DDNet's client reads it. DDNet's tool is wrong here: it types every demo
/// as 0.6, so it would learn no name (the 0.7 `PlayerInfo`, type 11, is 3 ints, too short
/// for the 0.6 `ClientInfo` of that number), print none of the players' lines, and print
/// the server's with the 0.7 mode as the 0.6 team and the target id as the text's first
/// byte (`[00:00] teamchat: *** @server says`). The lines below are what it prints when it
/// sees the snapshots and messages as the client's 0.7 translation makes them.
#[test]
fn a_seven_demo_is_read_as_ddnets_client_translates_it() {
    use Step::{Msg, Snap};
    let me = snapshot(&[(13, 0, de_client_info7(true, "me"))]);
    let data = demo(
        SEVEN,
        &[
            Snap(100, me.clone()),
            // TranslateSnap builds the ClientInfo items from its context before it reads
            // this snapshot's De_ClientInfo: no name yet at tick 100.
            Msg(chat7(1, 0, -1, b"not yet")),
            Msg(client_info7(1, b"  friend")),
            // A name from a message reaches the tool with the next snapshot only.
            Msg(chat7(1, 1, -1, b"not yet either")),
            // Tick 101 has no snapshot chunk (nothing changed): its first message makes
            // the player hand the last snapshot over again, translated with both names.
            Snap(101, me.clone()),
            Msg(chat7(1, 0, -1, b"hello")),
            Msg(chat7(2, 0, -1, b"team")),
            // Whispers: to the recording player (0) received, from it sent, each named
            // by the other side.
            Msg(chat7(3, 1, 0, b"for you")),
            Msg(chat7(3, 0, 1, b"for friend")),
            // The server; NetStringStrict skips the leading whitespace.
            Msg(chat7(1, -1, -1, b"  server says")),
            // Mode 4 is past 0.7's chat modes: dropped.
            Msg(chat7(4, 0, -1, b"mode 4")),
            Msg(broadcast(b"0.7 broadcast")),
            Msg(client_drop7(1)),
            Snap(150, me),
            // The tool never forgets a name, whoever left.
            Msg(chat7(1, 1, -1, b"bye")),
        ],
    );
    let expected = [
        "[00:00] chat: me: hello",
        "[00:00] teamchat: me: team",
        "[00:00] whisper: <- friend: for you",
        "[00:00] whisper: -> friend: for friend",
        "[00:00] chat: *** server says",
        "[00:00] broadcast: 0.7 broadcast",
        "[00:01] chat: friend: bye",
    ];
    assert_eq!(printed(&data), expected);

    let demo = DemoSlice::parse(&data).unwrap();
    let (lines, _) = chat_lines(&demo);
    let whisper = &lines[2];
    assert_eq!(
        (whisper.kind, whisper.channel, whisper.client_id),
        (ChatKind::Whisper, 3, 1)
    );
    assert_eq!(lines[0].tick, 101);
}

/// How DDNet's player ends a demo.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// It plays to the end.
    Plays,
    /// It stops at a chunk it cannot read or decode, after printing what came before.
    Ends,
    /// It does not load the demo: the tool prints nothing.
    NoLoad,
}

/// DDNet's tool's output for a real demo, worked out by hand from the demo's messages.
struct Expected {
    /// File name under `fixtures` or the corpus's `real-fixtures/twdemo`.
    file: &'static str,
    /// How the player ends it.
    end: End,
    /// The lines, in order.
    lines: &'static [&'static str],
}

/// Every demo of the real recordings and of `fixtures/`, with the tool's output (0.7
/// demos: what it prints when it reads them as DDNet's client does; see each).
const REAL: &[Expected] = &[
    // Three server lines (client id -1, team 0); first tick 178: ticks 212, 462, 952 are 0, 5
    // and 15 s in.
    Expected {
        file: "v3_tw061_server_dm1.demo",
        end: End::Plays,
        lines: &[
            "[00:00] chat: *** 'mover1' entered and joined the game",
            "[00:05] chat: *** 'mover2' entered and joined the game",
            "[00:15] chat: *** fixture map change",
        ],
    },
    // The same game on 0.6.5; first tick 180: ticks 216, 466, 958.
    Expected {
        file: "v4_tw065_server_dm1.demo",
        end: End::Plays,
        lines: &[
            "[00:00] chat: *** 'mover1' entered and joined the game",
            "[00:05] chat: *** 'mover2' entered and joined the game",
            "[00:15] chat: *** fixture map change",
        ],
    },
    // A vanilla 0.7.5 client's demo: one 0.7 chat line (mode 1, all) from client 0 at tick 518
    // (first tick 430), named by the De_ClientInfo items of the snapshots before it. DDNet's
    // tool prints nothing here: it reads the 0.7 snapshots as 0.6, learns no name and leaves
    // client 0's line out.
    Expected {
        file: "v4_tw075_client_dm1.demo",
        end: End::Plays,
        lines: &["[00:01] chat: nameless tee: hello"],
    },
    // No chat, two broadcasts (ticks 278 and 528, first tick 200); the message before the
    // first tick marker is no chat.
    Expected {
        file: "v5_ddnet1261_server_dm1.demo",
        end: End::Plays,
        lines: &[
            "[00:01] broadcast: Get DDNet client from DDNet.tw to use all features on DDNet!",
            "[00:06] broadcast: Get DDNet client from DDNet.tw to use all features on DDNet!",
        ],
    },
    // One line from client 0 at tick 1528 (first tick 1432).
    Expected {
        file: "v6_ddnet194_client_tutorial.demo",
        end: End::Plays,
        lines: &["[00:01] chat: nameless tee: hello"],
    },
    // No chat and no broadcast.
    Expected {
        file: "v6_ddnet201_server_dm1.demo",
        end: End::Plays,
        lines: &[],
    },
    // One line from client 0 at tick 2460 (first tick 2176).
    Expected {
        file: "v6_ddnet_client_daydream_big_chungus.demo",
        end: End::Plays,
        lines: &["[00:05] chat: MilkeeyCat: big chungus"],
    },
    // A busy DDNet server: every player line's speaker has a ClientInfo item in the snapshots
    // before it (the names agree with the replayed world's players, an independent reading);
    // first tick 2674626.
    Expected {
        file: "v6_ddnet_client_multeasymap_2020.demo",
        end: End::Plays,
        lines: &[
            "[00:00] chat: Y-G-B: noob",
            "[00:00] chat: Felit: GOOOO",
            "[00:00] chat: *** fakaskin finished in: 25 minute(s) 28.38 second(s)",
            "[00:01] chat: Tiizz: Timstar08: wie hast du 6:29 geschafft? :D",
            "[00:01] chat: *** Zrocken finished in: 17 minute(s) 36.68 second(s)",
            "[00:01] chat: *** New record: 8 minute(s) 39.54 second(s) better.",
            "[00:08] chat: *** 'fakaskin' has left the game",
            "[00:12] chat: *** ----------- Top 5 -----------",
            "[00:12] chat: *** 1. Brokecdx- Time: 05:49.54",
            "[00:12] chat: *** 1. ɌʘϚКỤṨ Time: 05:49.54",
            "[00:12] chat: *** 3. Lizard Time: 06:08.98",
            "[00:12] chat: *** 3. orbilo Time: 06:08.98",
            "[00:12] chat: *** 5. Cor Time: 06:12.29",
            "[00:12] chat: *** -------------------------------",
            "[00:12] chat: Timstar08: Tiizz: gute frage",
            "[00:16] chat: *** '2221' changed name to 'nnnyyy'",
            "[00:16] chat: *** ------------- Last Times -------------",
            "[00:16] chat: *** Zrocken, 15 secs ago, 17:36.68",
            "[00:16] chat: *** fakaskin, 16 secs ago, 25:28.38",
            "[00:16] chat: *** Steroid Stewie, 19 secs ago, 17:24.35",
            "[00:16] chat: *** Kurapika, 25 secs ago, 22:03.81",
            "[00:16] chat: *** Killua, 26 secs ago, 22:02.59",
            "[00:16] chat: *** ----------------------------------------------------",
            "[00:22] chat: *** 'FuckingFuck' entered and joined the game",
            "[00:34] chat: Tiizz: Timstar08: hab zwar jetzt paar mal verkackt und wir hätten schneller sein können aber 6:29?:D",
            "[00:36] chat: Timstar08: und orbilio ist halt schon krass",
            "[00:39] chat: *** 'cikmepls' has left the game",
            "[00:40] chat: deen: 宇宙收藏家: hi",
            "[00:45] chat: *** 'steve' entered and joined the game",
            "[00:47] chat: V5|AlexOFF|Cola: Zrocken: jump )",
            "[00:49] chat: *** 'SCP 096.exe' has left the game",
            "[00:53] chat: *** 'Zrocken' has left the game",
            "[00:55] chat: 宇宙收藏家: ???????",
            "[00:57] chat: *** 'Fox' entered and joined the game",
            "[01:02] chat: 宇宙收藏家: what's up",
            "[01:04] chat: *** 'V5|AlexOFF|Cola' has left the game",
            "[01:06] chat: Tiizz: mir sagt der name was aber bin mir nicht sicher wer genau er ist :D",
            "[01:10] chat: *** 'Steroid Stewie' has left the game",
            "[01:14] chat: LemonCake: What's up",
            "[01:15] chat: *** '{БАЛДЕЖ}' has left the game",
        ],
    },
    // No chat and no broadcast.
    Expected {
        file: "v6_ddnet_client_rainymore2_2020.demo",
        end: End::Plays,
        lines: &[],
    },
    // A DDNet client on a 0.7 server: one server line (mode 1, all) at tick 268 (first tick
    // 172). DDNet's tool would print `[00:01] teamchat: *** @Your timeout code ...`: the 0.7
    // mode read as the 0.6 team (1, "teamchat") and the 0.7 target id (-1, the byte `@`) as
    // the text's start.
    Expected {
        file: "v6_ddnet_client_sixup_tinycave.demo",
        end: End::Plays,
        lines: &[
            "[00:01] chat: *** Your timeout code has been set. 0.7 clients can not reclaim their tees on timeout; however, a 0.6 client can claim your tee ",
        ],
    },
    // DDNet's player does not load it: nothing printed.
    Expected {
        file: "version_2.demo",
        end: End::NoLoad,
        lines: &[],
    },
    // DDNet's player does not load it: nothing printed.
    Expected {
        file: "bad_magic.demo",
        end: End::NoLoad,
        lines: &[],
    },
    // DDNet's player stops at the chunk that does not decode, before any chat.
    Expected {
        file: "corrupt_huffman.demo",
        end: End::Ends,
        lines: &[],
    },
    // DDNet's player does not load it: nothing printed.
    Expected {
        file: "map_past_end.demo",
        end: End::NoLoad,
        lines: &[],
    },
    // The project's recorder: a server line every 40 ticks from tick 1000, the first tick.
    Expected {
        file: "recorded_v3.demo",
        end: End::Plays,
        lines: &[
            "[00:00] chat: *** tick 1000",
            "[00:00] chat: *** tick 1040",
            "[00:01] chat: *** tick 1080",
            "[00:02] chat: *** tick 1120",
            "[00:03] chat: *** tick 1160",
            "[00:04] chat: *** tick 1200",
            "[00:04] chat: *** tick 1240",
            "[00:05] chat: *** tick 1280",
            "[00:06] chat: *** tick 1320",
            "[00:07] chat: *** tick 1360",
        ],
    },
    // As recorded_v3.demo, version 4.
    Expected {
        file: "recorded_v4.demo",
        end: End::Plays,
        lines: &[
            "[00:00] chat: *** tick 1000",
            "[00:00] chat: *** tick 1040",
            "[00:01] chat: *** tick 1080",
            "[00:02] chat: *** tick 1120",
            "[00:03] chat: *** tick 1160",
            "[00:04] chat: *** tick 1200",
            "[00:04] chat: *** tick 1240",
            "[00:05] chat: *** tick 1280",
            "[00:06] chat: *** tick 1320",
            "[00:07] chat: *** tick 1360",
        ],
    },
    // As recorded_v3.demo, version 5.
    Expected {
        file: "recorded_v5.demo",
        end: End::Plays,
        lines: &[
            "[00:00] chat: *** tick 1000",
            "[00:00] chat: *** tick 1040",
            "[00:01] chat: *** tick 1080",
            "[00:02] chat: *** tick 1120",
            "[00:03] chat: *** tick 1160",
            "[00:04] chat: *** tick 1200",
            "[00:04] chat: *** tick 1240",
            "[00:05] chat: *** tick 1280",
            "[00:06] chat: *** tick 1320",
            "[00:07] chat: *** tick 1360",
        ],
    },
    // As recorded_v3.demo, version 6.
    Expected {
        file: "recorded_v6.demo",
        end: End::Plays,
        lines: &[
            "[00:00] chat: *** tick 1000",
            "[00:00] chat: *** tick 1040",
            "[00:01] chat: *** tick 1080",
            "[00:02] chat: *** tick 1120",
            "[00:03] chat: *** tick 1160",
            "[00:04] chat: *** tick 1200",
            "[00:04] chat: *** tick 1240",
            "[00:05] chat: *** tick 1280",
            "[00:06] chat: *** tick 1320",
            "[00:07] chat: *** tick 1360",
        ],
    },
    // Cut inside a chunk after the last line: the player prints every line, then stops with
    // "Error reading chunk data".
    Expected {
        file: "truncated.demo",
        end: End::Ends,
        lines: &[
            "[00:00] chat: *** tick 1000",
            "[00:00] chat: *** tick 1040",
            "[00:01] chat: *** tick 1080",
            "[00:02] chat: *** tick 1120",
            "[00:03] chat: *** tick 1160",
            "[00:04] chat: *** tick 1200",
            "[00:04] chat: *** tick 1240",
            "[00:05] chat: *** tick 1280",
            "[00:06] chat: *** tick 1320",
            "[00:07] chat: *** tick 1360",
        ],
    },
    // DDNet's player does not load it: nothing printed.
    Expected {
        file: "unterminated_map_name.demo",
        end: End::NoLoad,
        lines: &[],
    },
];

#[test]
fn real_demos_list_what_demo_extract_chat_prints() {
    let root = common::root();
    let shared = common::shared_dir();
    let mut names: Vec<String> = std::fs::read_dir(root.join("fixtures"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".demo"))
        .collect();
    if let Some(shared) = &shared {
        let dir = shared.join("real-fixtures/twdemo");
        names.extend(
            std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap()),
        );
    }
    names.sort();
    // A name in `fixtures/` is the repository's; any other, a real recording beside it.
    let path_of = |file: &str| {
        let own = root.join("fixtures").join(file);
        match &shared {
            _ if own.exists() => Some(own),
            Some(shared) => {
                Some(shared.join("real-fixtures/twdemo").join(file)).filter(|path| path.is_file())
            }
            None => None,
        }
    };
    let mut listed: Vec<String> = REAL
        .iter()
        .filter(|e| path_of(e.file).is_some())
        .map(|e| e.file.to_string())
        .collect();
    listed.sort();
    assert_eq!(listed, names, "every demo has its expected output");
    if !common::has_full_corpus() {
        common::skip::partly(common::NOT_BUNDLED);
    }
    for expected in REAL {
        let Some(path) = path_of(expected.file) else {
            continue;
        };
        let data = std::fs::read(&path).unwrap();
        let Ok(demo) = DemoSlice::parse(&data) else {
            assert_eq!(expected.end, End::NoLoad, "{}", expected.file);
            continue;
        };
        let (lines, error) = chat_lines(&demo);
        let end = if error.is_some() {
            End::Ends
        } else {
            End::Plays
        };
        assert_eq!(end, expected.end, "{}: {error:?}", expected.file);
        let lines: Vec<String> = lines.iter().map(DemoChatLine::to_string).collect();
        assert_eq!(lines, expected.lines, "{}", expected.file);
    }
}
