//! `teehistorian::scrub` and `demokit scrub`.
//!
//! What every scrub must hold: the output reads and validates; the semantic layer gives the
//! same ticks, positions, inputs and connected clients at every tick; no original player
//! name (of three bytes or more) nor removed credential is left anywhere in its bytes; the
//! messages it did not change are the input's, byte for byte and at their ticks; and
//! scrubbing the output again changes nothing. Checked on every real teehistorian file in
//! the corpus and on generated recordings with names, chat, commands and drops (a property
//! test; case counts follow PROPTEST_CASES; failures persist under proptest-regressions/).
//! Also: pseudonyms across files with a key, and the CLI.

use crate::common;

use crate::run::{demokit, stderr, stdout};
use common::temp::TempDir;
use demokit::scrub::{ChatFilter, Pseudonyms, ScrubOptions};
use demokit::teehistorian::game::{GameEvent, GameEvents};
use demokit::teehistorian::scrub::{ScrubReport, scrub};
use demokit::teehistorian::strategies::{self, ServerRecord, ServerTick};
use demokit::teehistorian::summary::validate;
use demokit::teehistorian::{Events, Header, Message, Recorder, TeehistorianSlice, World};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::path::PathBuf;

/// Every option, with `key`.
fn every_option(key: Option<&[u8]>) -> ScrubOptions {
    ScrubOptions {
        clear_header: vec![
            "server_name".into(),
            "server_port".into(),
            "map_name".into(),
        ],
        ..ScrubOptions::all(key.map(<[u8]>::to_vec))
    }
}

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

/// Every message as (tick, kind, raw bytes).
fn messages(data: &[u8]) -> Vec<(i32, String, Vec<u8>)> {
    TeehistorianSlice::parse(data)
        .unwrap()
        .messages()
        .map(|m| {
            let m = m.unwrap();
            (m.tick, m.message.kind_name().into_owned(), m.raw.to_vec())
        })
        .collect()
}

/// The names the game layer sees (PLAYER_NAME records and client info messages).
fn names(data: &[u8]) -> Vec<String> {
    let file = TeehistorianSlice::parse(data).unwrap();
    let mut names = Vec::new();
    for event in GameEvents::new(file.messages()) {
        if let Ok(event) = event
            && let GameEvent::Name { name, .. } = event.event
        {
            names.push(name);
        }
    }
    names
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// `bytes` with every occurrence of each of `pseudonyms` replaced by one 0xff byte (no
/// text holds it), longest first.
fn mask<'a>(bytes: &[u8], pseudonyms: impl Iterator<Item = &'a String>) -> Vec<u8> {
    let mut pseudonyms: Vec<&[u8]> = pseudonyms
        .map(|p| p.as_bytes())
        .filter(|p| !p.is_empty())
        .collect();
    pseudonyms.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    'bytes: while i < bytes.len() {
        for p in &pseudonyms {
            if bytes[i..].starts_with(p) {
                out.push(0xff);
                i += p.len();
                continue 'bytes;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

type Messages = Vec<(i32, String, Vec<u8>)>;

/// Aligns the output's messages with the input's: each input message is kept (the same
/// bytes at the same tick), changed (the same kind at the same tick, other bytes) or
/// dropped, in order, and only client messages, commands, drops and EX records may be
/// changed or dropped. Returns how many of each, for the alignment with the most kept
/// messages; panics if there is none.
fn align(ins: &Messages, outs: &Messages) -> (u64, u64, u64) {
    let may_change = |kind: &str| {
        ["MESSAGE", "CONSOLE_COMMAND", "DROP"].contains(&kind) || kind.starts_with("EX")
    };
    let (n, m) = (ins.len(), outs.len());
    // best[i][j]: the best score aligning ins[i..] with outs[j..] (keep 2, change 1, drop 0).
    let mut best = vec![vec![None::<u32>; m + 1]; n + 1];
    best[n][m] = Some(0);
    for i in (0..n).rev() {
        for j in (0..=m).rev() {
            let (tick, kind, raw) = &ins[i];
            let mut score = None;
            if j < m && outs[j] == ins[i] {
                score = best[i + 1][j + 1].map(|s| s + 2);
            }
            if j < m
                && may_change(kind)
                && (&outs[j].0, &outs[j].1) == (tick, kind)
                && &outs[j].2 != raw
            {
                score = score.max(best[i + 1][j + 1].map(|s| s + 1));
            }
            if may_change(kind) {
                score = score.max(best[i + 1][j]);
            }
            best[i][j] = score;
        }
    }
    assert!(
        best[0][0].is_some(),
        "the output is not the input with messages changed or dropped\n{:?}\n{:?}",
        ins.iter()
            .map(|m| (m.0, &m.1, m.2.len()))
            .collect::<Vec<_>>(),
        outs.iter()
            .map(|m| (m.0, &m.1, m.2.len()))
            .collect::<Vec<_>>()
    );
    let (mut i, mut j) = (0, 0);
    let (mut kept, mut changed, mut dropped) = (0, 0, 0);
    while i < n {
        let here = best[i][j];
        if j < m && outs[j] == ins[i] && best[i + 1][j + 1].map(|s| s + 2) == here {
            kept += 1;
            j += 1;
        } else if j < m
            && (&outs[j].0, &outs[j].1) == (&ins[i].0, &ins[i].1)
            && best[i + 1][j + 1].map(|s| s + 1) == here
        {
            changed += 1;
            j += 1;
        } else {
            dropped += 1;
        }
        i += 1;
    }
    (kept, changed, dropped)
}

/// Scrubs `input` and checks everything a scrub must hold; returns the output and report.
/// `secrets` must not appear in the output.
fn check_scrub(input: &[u8], options: &ScrubOptions, secrets: &[&[u8]]) -> (Vec<u8>, ScrubReport) {
    let mut out = Vec::new();
    let report = scrub(input, options, &mut out).unwrap();
    assert_eq!(report.output_len, out.len() as u64);
    // Reads and validates.
    let problems = validate(&out);
    assert!(problems.accepted(), "{problems:?}");
    assert_eq!(
        problems.problems.len(),
        validate(input).problems.len(),
        "no new warnings"
    );
    // Same ticks, positions, inputs, connected clients.
    assert_eq!(worlds(&out), worlds(input));
    // No name left. The pseudonyms put in are masked first: a name can appear across a
    // pseudonym and the text beside it without being in the output (`e p` in the
    // rewritten `bye player-2`, a case proptest found).
    if options.names.is_some() {
        let masked = mask(&out, report.mapping.names.values());
        for name in names(input) {
            if name.len() > 2 && !report.mapping.names.values().any(|p| *p == name) {
                assert!(
                    !contains(&masked, name.as_bytes()),
                    "name {name:?} left in the output"
                );
            }
        }
    }
    for secret in secrets {
        assert!(!contains(&out, secret), "{secret:?} left in the output");
    }
    // Messages: the unchanged ones byte for byte at their ticks, in order; only client
    // messages, commands, drops and EX records are changed or dropped.
    let (ins, outs) = (messages(input), messages(&out));
    let (kept, changed, dropped) = align(&ins, &outs);
    assert_eq!(kept, report.messages_kept);
    assert_eq!(ins.len() as u64, report.messages);
    assert_eq!(dropped + changed + kept, report.messages);
    assert_eq!(dropped, report.dropped_total(), "{report:?}");
    // Idempotent.
    let mut again = Vec::new();
    let second = scrub(&out, options, &mut again).unwrap();
    assert_eq!(again, out, "scrubbing again changed the bytes");
    assert!(!second.changed(), "{second:?}");
    (out, report)
}

// ---------------------------------------------------------------------------------------
// Real files
// ---------------------------------------------------------------------------------------

fn real_files() -> Vec<PathBuf> {
    let Some(shared) = common::shared_dir() else {
        return Vec::new();
    };
    let dir = shared.join("real-fixtures/teehistorian");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no teehistorian file in {}",
        dir.display()
    );
    files
}

#[test]
fn real_files_scrub_with_every_option() {
    for path in real_files() {
        let input = std::fs::read(&path).unwrap();
        let found = names(&input);
        assert!(!found.is_empty(), "{}: no names to scrub", path.display());
        for options in [
            every_option(Some(b"secret key")),
            every_option(None),
            ScrubOptions {
                names: Some(Pseudonyms::default()),
                ..ScrubOptions::default()
            },
            ScrubOptions {
                chat: Some(ChatFilter::Team),
                ..ScrubOptions::default()
            },
        ] {
            let (out, report) = check_scrub(&input, &options, &[]);
            if options.names.is_some() {
                assert!(report.names_rewritten > 0, "{}", path.display());
                let header = TeehistorianSlice::parse(&out).unwrap().header().clone();
                if options.clear_header.contains(&"server_name".to_string()) {
                    assert_eq!(header.server_name.as_deref().unwrap_or(""), "");
                }
                assert_eq!(names(&out).len(), found.len());
            } else {
                assert_eq!(out, input, "nothing to scrub in {}", path.display());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Generated recordings
// ---------------------------------------------------------------------------------------

/// A packed 0.6 `Cl_StartInfo`: name, clan, country 0, skin "default", three ints 0.
fn start_info(name: &str, clan: &str) -> Vec<u8> {
    let mut m = vec![20 << 1];
    for s in [name, clan] {
        m.extend_from_slice(s.as_bytes());
        m.push(0);
    }
    m.push(0);
    m.extend_from_slice(b"default\0");
    m.extend_from_slice(&[0, 0, 0]);
    m
}

/// A packed 0.6 `Cl_Say`.
fn say(team: bool, text: &str) -> Vec<u8> {
    let mut m = vec![17 << 1, team as u8];
    m.extend_from_slice(text.as_bytes());
    m.push(0);
    m
}

/// Records that name players, chat, carry credentials or give reasons, by name index.
#[derive(Debug, Clone)]
enum Private {
    Name(i32, usize),
    Info(i32, usize, usize),
    Say(i32, bool, String, usize),
    Login(i32),
    Whisper(i32, usize),
    Kick(i32, usize),
    Drop(i32, usize),
}

/// The password in every credential command.
const PASSWORD: &str = "hunter2Secret";

fn private() -> impl Strategy<Value = Private> {
    let cid = || 0i32..4;
    let i = || 0usize..4;
    prop_oneof![
        (cid(), i()).prop_map(|(c, n)| Private::Name(c, n)),
        (cid(), i(), i()).prop_map(|(c, n, k)| Private::Info(c, n, k)),
        (cid(), any::<bool>(), "/?[a-z ]{0,6}", i())
            .prop_map(|(c, t, s, n)| Private::Say(c, t, s, n)),
        cid().prop_map(Private::Login),
        (cid(), i()).prop_map(|(c, n)| Private::Whisper(c, n)),
        (cid(), i()).prop_map(|(c, n)| Private::Kick(c, n)),
        (cid(), i()).prop_map(|(c, n)| Private::Drop(c, n)),
    ]
}

/// Names that cannot appear inside a pseudonym (`player-`, lowercase hex).
fn name() -> impl Strategy<Value = String> {
    "[G-Z][G-Zg-z ]{2,10}"
}

fn server_record(p: &Private, names: &[String]) -> ServerRecord {
    let n = |i: usize| names[i % names.len()].clone();
    match p {
        Private::Name(c, i) => ServerRecord::PlayerName(*c, n(*i)),
        Private::Info(c, i, k) => ServerRecord::NetMessage(*c, start_info(&n(*i), &n(*k))),
        Private::Say(c, team, text, i) => {
            ServerRecord::NetMessage(*c, say(*team, &format!("{text} {}", n(*i))))
        }
        Private::Login(c) => ServerRecord::ConsoleCommand(
            *c,
            "auth_add".into(),
            vec!["admin".into(), "admin".into(), PASSWORD.into()],
        ),
        Private::Whisper(c, i) => {
            ServerRecord::ConsoleCommand(*c, "w".into(), vec![n(*i), "psst".into()])
        }
        Private::Kick(c, i) => ServerRecord::ConsoleCommand(
            -1,
            "kick".into(),
            vec![c.to_string(), format!("bye {}", n(*i))],
        ),
        Private::Drop(c, i) => ServerRecord::Drop(*c, format!("kicked {}", n(*i))),
    }
}

fn record(ticks: &[ServerTick]) -> Vec<u8> {
    let header = Header {
        server_name: Some("My Private Server".into()),
        server_port: Some("8303".into()),
        ..Header::new("2")
    };
    let mut rec = Recorder::new(Vec::new(), &header).unwrap();
    for tick in ticks {
        tick.record(&mut rec).unwrap();
    }
    rec.finish().unwrap()
}

/// Generated ticks with private records spread over them.
fn recording() -> impl Strategy<Value = (Vec<u8>, Vec<String>)> {
    (
        strategies::server_ticks(16),
        proptest::collection::vec(name(), 1..4),
        proptest::collection::vec(private(), 0..12),
    )
        .prop_map(|(mut ticks, names, privates)| {
            if !ticks.is_empty() {
                let len = ticks.len();
                for (i, p) in privates.iter().enumerate() {
                    let record = server_record(p, &names);
                    ticks[i * 7 % len].records.push(record);
                }
                // Every name recorded as one, at the end: a name is only known to be one
                // when the file says so, but names mentioned before are replaced too.
                for (cid, name) in (0..).zip(&names) {
                    ticks[len - 1]
                        .records
                        .push(ServerRecord::PlayerName(cid, name.clone()));
                }
            }
            (record(&ticks), names)
        })
}

/// The 0.6 `Cl_Say` messages of a file, typed by `gamenet`: team flag and text.
fn says(data: &[u8]) -> Vec<(bool, Vec<u8>)> {
    use demokit::gamenet::{AnyMessage, Protocol, six};
    let file = TeehistorianSlice::parse(data).unwrap();
    file.messages()
        .filter_map(|m| match m.unwrap().message {
            Message::NetMessage { data, .. } => match Protocol::Six.unpack_message(data).message {
                AnyMessage::Six(six::Message::ClSay(m)) => {
                    Some((m.team != 0, m.message.0.to_vec()))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../proptest-regressions/teehistorian_scrub.txt"
        )))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Every option, with and without a key: valid, same worlds, no name, password or
    /// server name left, idempotent.
    #[test]
    fn generated_recordings_scrub((input, names) in recording(), keyed in any::<bool>()) {
        let key = keyed.then_some(&b"k"[..]);
        let (out, report) = check_scrub(
            &input,
            &every_option(key),
            &[PASSWORD.as_bytes(), b"My Private Server", b"psst"],
        );
        for name in &names {
            prop_assert!(!contains(&out, name.as_bytes()), "{name:?} left");
        }
        for pseudonym in report.mapping.names.values() {
            prop_assert!(pseudonym.starts_with("player-"));
        }
        // Only some of it.
        for chat in [ChatFilter::Team, ChatFilter::Whispers] {
            let options = ScrubOptions { chat: Some(chat), ..ScrubOptions::default() };
            let (out, _) = check_scrub(&input, &options, &[]);
            for (team, text) in says(&out) {
                match chat {
                    ChatFilter::Team => prop_assert!(!team),
                    _ => prop_assert!(!["/w ", "/whisper ", "/c ", "/converse "]
                        .iter()
                        .any(|p| text.starts_with(p.as_bytes()))),
                }
            }
        }
        prop_assert!(says(&out).is_empty(), "all chat dropped");
        let options = ScrubOptions { credentials: true, ..ScrubOptions::default() };
        check_scrub(&input, &options, &[PASSWORD.as_bytes()]);
    }
}

// ---------------------------------------------------------------------------------------
// Pseudonyms across files
// ---------------------------------------------------------------------------------------

fn file_with_names(names: &[(i32, &str)]) -> Vec<u8> {
    let mut rec = Recorder::new(Vec::new(), &Header::new("2")).unwrap();
    for &(cid, name) in names {
        rec.record_player_join(cid, demokit::gamenet::Protocol::Six)
            .unwrap();
        rec.record_player_name(cid, name).unwrap();
        rec.record_player_message(cid, &start_info(name, "Clan Foo"))
            .unwrap();
    }
    rec.finish().unwrap()
}

#[test]
fn a_key_gives_the_same_pseudonym_in_every_file() {
    let a = file_with_names(&[(0, "Alice"), (1, "Bob")]);
    let b = file_with_names(&[(3, "Carol"), (5, "Bob"), (6, "Alice")]);
    let keyed = |key: &[u8]| ScrubOptions {
        names: Some(Pseudonyms {
            key: Some(key.to_vec()),
        }),
        ..ScrubOptions::default()
    };
    let (out_a, ra) = check_scrub(&a, &keyed(b"one key"), &[]);
    let (out_b, rb) = check_scrub(&b, &keyed(b"one key"), &[]);
    for name in ["Alice", "Bob"] {
        let p = &ra.mapping.names[name];
        assert_eq!(p, &rb.mapping.names[name]);
        assert_eq!(p.len(), "player-".len() + 8);
        assert!(contains(&out_a, p.as_bytes()) && contains(&out_b, p.as_bytes()));
    }
    assert_eq!(ra.mapping.clans["Clan Foo"], rb.mapping.clans["Clan Foo"]);
    assert_ne!(ra.mapping.names["Alice"], ra.mapping.names["Bob"]);
    // Another key, other pseudonyms.
    let (_, other) = check_scrub(&a, &keyed(b"another key"), &[]);
    assert_ne!(other.mapping.names["Alice"], ra.mapping.names["Alice"]);
    // Without a key: numbered in order of appearance, per file.
    let (_, numbered) = check_scrub(&b, &every_option(None), &[]);
    assert_eq!(numbered.mapping.names["Carol"], "player-1");
    assert_eq!(numbered.mapping.names["Bob"], "player-2");
    assert_eq!(numbered.mapping.names["Alice"], "player-3");
    assert_eq!(numbered.mapping.clans["Clan Foo"], "clan-1");
    // The game layer sees the pseudonyms.
    let seen = names(&out_b);
    assert!(seen.iter().all(|n| n.starts_with("player-")), "{seen:?}");
}

#[test]
fn a_file_that_does_not_read_is_refused() {
    let a = file_with_names(&[(0, "Alice")]);
    let cut = &a[..a.len() - 3];
    let mut out = Vec::new();
    let e = scrub(cut, &every_option(None), &mut out).unwrap_err();
    assert!(
        e.offset().is_some_and(|o| o > 0 && o < a.len() as u64),
        "{e}"
    );
    assert!(out.is_empty(), "nothing written");
    // Unfinished on a boundary: scrubbed, still unfinished.
    let unfinished = &a[..a.len() - 1];
    let (out, report) = check_scrub(unfinished, &every_option(None), &[]);
    assert!(!report.finished);
    assert!(!contains(&out, b"Alice"));
    // The version cannot be cleared.
    let options = ScrubOptions {
        clear_header: vec!["version".into()],
        ..ScrubOptions::default()
    };
    assert!(scrub(&a, &options, Vec::new()).is_err());
}

#[test]
fn a_tick_left_with_only_its_tick_skip_keeps_its_number() {
    let mut rec = Recorder::new(Vec::new(), &Header::new("2")).unwrap();
    rec.record_player_join(0, demokit::gamenet::Protocol::Six)
        .unwrap();
    for tick in 1..=6 {
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        if tick % 3 == 1 {
            rec.record_player(0, tick, 0).unwrap();
        }
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        if tick % 2 == 0 {
            rec.record_console_command(0, 0, "sv_rcon_password", &[PASSWORD])
                .unwrap();
        }
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
    }
    let input = rec.finish().unwrap();
    let options = ScrubOptions {
        credentials: true,
        ..ScrubOptions::default()
    };
    let (out, report) = check_scrub(&input, &options, &[PASSWORD.as_bytes()]);
    assert_eq!(report.dropped["CONSOLE_COMMAND sv_rcon_password"], 3);
    let ticks = |d: &[u8]| {
        let mut t: Vec<i32> = messages(d).iter().map(|m| m.0).collect();
        t.dedup();
        t
    };
    assert_eq!(ticks(&out), ticks(&input));
    assert!(messages(&out).iter().any(|m| m.1 == "TICK_SKIP"));
}

// ---------------------------------------------------------------------------------------
// The CLI
// ---------------------------------------------------------------------------------------

#[test]
fn scrub_json_reports_never_hold_the_names() {
    let dir = TempDir::new("scrub-json");
    let input = dir.write(
        "in.teehistorian",
        &file_with_names(&[(0, "Alice"), (1, "Bobby")]),
    );
    let out = dir.path("out.teehistorian");
    for (output, json_on) in [(out.to_str().unwrap(), "stdout"), ("-", "stderr")] {
        let o = demokit(&[
            "scrub".as_ref(),
            input.as_os_str(),
            output.as_ref(),
            "--all".as_ref(),
            "--json".as_ref(),
            "-f".as_ref(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = if json_on == "stdout" {
            stdout(&o)
        } else {
            stderr(&o)
        };
        let report: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        // Two names and their one clan.
        assert_eq!(report["pseudonyms"], 3, "{report}");
        for name in ["Alice", "Bobby"] {
            assert!(
                !text.contains(name),
                "{name} in the report on {json_on}: {text}"
            );
        }
    }
}

#[test]
fn a_mapping_that_cannot_be_written_leaves_no_output() {
    let dir = TempDir::new("scrub-pair");
    let input = dir.write("in.teehistorian", &file_with_names(&[(0, "Alice")]));
    let out = dir.path("out.teehistorian");
    // A directory that is not there: the mapping's temporary file cannot be created, as
    // on a full disk. Before, the scrubbed output landed and the run exited 3.
    let map = dir.path("missing/map.json");
    let o = demokit(&[
        "scrub".as_ref(),
        input.as_os_str(),
        out.as_os_str(),
        "--names".as_ref(),
        "--mapping".as_ref(),
        map.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(!out.exists(), "the output landed without its mapping");
    assert!(!map.exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path("."))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_key_file_others_can_read_is_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("scrub-key-mode");
    let input = dir.write("in.teehistorian", &file_with_names(&[(0, "Alice")]));
    let key = dir.write("key", b"secret\n");
    let out = dir.path("out.teehistorian");
    for (mode, warned) in [(0o644, true), (0o600, false)] {
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(mode)).unwrap();
        let o = demokit(&[
            "scrub".as_ref(),
            input.as_os_str(),
            out.as_os_str(),
            "--key-file".as_ref(),
            key.as_os_str(),
            "-f".as_ref(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            stderr(&o).contains("can be read by others"),
            warned,
            "mode {mode:o}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn cli_scrubs_with_a_key_and_a_mapping() {
    let dir = TempDir::new("scrub-cli");
    let input = dir.write("in.teehistorian", &file_with_names(&[(0, "Alice")]));
    let key = dir.write("key", b"secret\n");
    let out = dir.path("out.teehistorian");
    let map = dir.path("map.json");
    let run = |extra: &[&str]| {
        let mut args = vec!["scrub".as_ref(), input.as_os_str()];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        demokit(&args)
    };
    let o = run(&[
        out.to_str().unwrap(),
        "--all",
        "--key-file",
        key.to_str().unwrap(),
        "--mapping",
        map.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    // The report says how many pseudonyms, never which: the mapping goes only to its file.
    assert_eq!(report.get("mapping"), None, "{report}");
    // Alice and her clan.
    assert_eq!(report["pseudonyms"], 2, "{report}");
    assert!(!stdout(&o).contains("Alice") && !stderr(&o).contains("Alice"));
    assert_eq!(report["names_rewritten"], 2);
    let mapping: serde_json::Value = serde_json::from_slice(&std::fs::read(&map).unwrap()).unwrap();
    let pseudonym = mapping["names"]["Alice"].as_str().unwrap().to_owned();
    assert!(pseudonym.starts_with("player-"));
    // The mapping undoes the scrub: only its owner may read it, whatever the umask.
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&map).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "mapping mode {mode:o}");
    }
    let scrubbed = std::fs::read(&out).unwrap();
    assert!(!contains(&scrubbed, b"Alice"));
    assert!(validate(&scrubbed).accepted());
    // The same key without a final newline: the same pseudonyms (the library's result).
    let expected = {
        let mut v = Vec::new();
        scrub(
            &std::fs::read(&input).unwrap(),
            &ScrubOptions::all(Some(b"secret".to_vec())),
            &mut v,
        )
        .unwrap();
        v
    };
    assert_eq!(scrubbed, expected);

    // Existing output: refused without -f and left as it was, replaced with it.
    std::fs::write(&out, b"old").unwrap();
    let o = run(&[out.to_str().unwrap(), "--names"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    let o = run(&[out.to_str().unwrap(), "--names", "-f"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(validate(&std::fs::read(&out).unwrap()).accepted());
    // The input as output, or as the mapping: refused, input untouched.
    let before = std::fs::read(&input).unwrap();
    let o = run(&[input.to_str().unwrap(), "--names", "-f"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let other = dir.path("other.teehistorian");
    let o = run(&[
        other.to_str().unwrap(),
        "--names",
        "--mapping",
        input.to_str().unwrap(),
        "-f",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!other.exists(), "nothing written after a refusal");
    assert_eq!(std::fs::read(&input).unwrap(), before);
    // Nothing asked: refused.
    let o = run(&[other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // In place, text report.
    let o = run(&["--in-place", "--names"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("names"), "{}", stdout(&o));
    let after = std::fs::read(&input).unwrap();
    assert!(!contains(&after, b"Alice") && validate(&after).accepted());
    // No temporary file left beside the outputs.
    let mut left = dir.names();
    left.sort();
    assert_eq!(
        left,
        ["in.teehistorian", "key", "map.json", "out.teehistorian"]
    );
}

/// The JSON header of a teehistorian file.
fn header_json(data: &[u8]) -> serde_json::Value {
    let file = TeehistorianSlice::parse(data).unwrap();
    serde_json::from_slice(file.header_json()).unwrap()
}

#[test]
fn scrub_all_leaves_nothing_that_names_the_server() {
    let dir = TempDir::new("scrub-server");
    for path in real_files() {
        let input = std::fs::read(&path).unwrap();
        let before = header_json(&input);
        let out = dir.path("out.teehistorian");
        let o = demokit(&[
            "scrub".as_ref(),
            path.as_os_str(),
            out.as_os_str(),
            "--all".as_ref(),
            "-f".as_ref(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let scrubbed = std::fs::read(&out).unwrap();
        assert!(validate(&scrubbed).accepted());
        let after = header_json(&scrubbed);
        let name = path.display();
        // Every text that named or located the server, anywhere in the file.
        let mut secrets = vec![before["server_name"].as_str().unwrap().to_owned()];
        for (key, value) in before["config"].as_object().unwrap() {
            let value = value.as_str().unwrap();
            if key.ends_with("port") || value.parse::<i64>().is_err() {
                // The map's name is kept in the header; sv_map only repeats it.
                if value != before["map_name"] {
                    secrets.push(value.to_owned());
                }
                assert!(
                    after["config"].get(key).is_none(),
                    "{name}: config.{key} stayed"
                );
            } else {
                assert_eq!(after["config"][key], value, "{name}: config.{key} changed");
            }
        }
        secrets.push(before["server_port"].as_str().unwrap().to_owned());
        for secret in secrets.iter().filter(|s| s.len() >= 3) {
            assert!(
                !contains(&scrubbed, secret.as_bytes()),
                "{name}: {secret:?} is still in the file"
            );
        }
        assert_eq!(after["server_name"], "", "{name}");
        assert_eq!(after["server_port"], "", "{name}");
        // The version numbers stay; what a build adds after them goes.
        let version = after["server_version"].as_str().unwrap();
        assert!(
            version
                .bytes()
                .all(|b| b.is_ascii_digit() || b".,  ".contains(&b)),
            "{name}: server_version {version:?}"
        );
        assert!(
            before["server_version"]
                .as_str()
                .unwrap()
                .starts_with(version)
                && version.contains(", "),
            "{name}: server_version {version:?}"
        );
        assert_eq!(after["tuning"], before["tuning"], "{name}");
        assert_eq!(after["map_name"], before["map_name"], "{name}");
    }
}

#[test]
fn clear_header_refuses_a_key_that_names_nothing() {
    let dir = TempDir::new("scrub-keys");
    let input = dir.write("in.teehistorian", &file_with_names(&[(0, "Alice")]));
    let out = dir.path("out.teehistorian");
    let run = |key: &str| {
        demokit(&[
            "scrub".as_ref(),
            input.as_os_str(),
            out.as_os_str(),
            "--clear-header".as_ref(),
            key.as_ref(),
            "-f".as_ref(),
        ])
    };
    for key in ["no_such_key", "config.", "config.Sv Name", "nested.sv_name"] {
        let o = run(key);
        assert_eq!(o.status.code(), Some(2), "{key}: {}", stderr(&o));
        assert!(stderr(&o).contains(key), "{key}: {}", stderr(&o));
        assert!(!out.exists(), "{key}: an output was written");
    }
    // One setting out of config, the rest kept.
    let with_config = {
        let mut header = Header::new("2");
        header.config = Some(vec![
            ("sv_name".into(), "Alice's server".into()),
            ("sv_max_clients".into(), "64".into()),
        ]);
        Recorder::new(Vec::new(), &header)
            .unwrap()
            .finish()
            .unwrap()
    };
    let input = dir.write("config.teehistorian", &with_config);
    let o = demokit(&[
        "scrub".as_ref(),
        input.as_os_str(),
        out.as_os_str(),
        "--clear-header".as_ref(),
        "config.sv_name".as_ref(),
        "-f".as_ref(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let after = header_json(&std::fs::read(&out).unwrap());
    assert_eq!(after["config"], serde_json::json!({"sv_max_clients": "64"}));
}

/// Rcon roles by name (DDNet #12788) and account names are pseudonymised with credentials;
/// the antibot's opaque records go with every scrub and are counted in the report.
#[test]
fn auth_roles_and_antibot_data_are_scrubbed() {
    let mut rec = Recorder::new(Vec::new(), &Header::new("2")).unwrap();
    for cid in 0..3 {
        rec.record_player_join(cid, demokit::gamenet::Protocol::Six)
            .unwrap();
    }
    rec.record_auth_initial_role(0, "ops-alice", "alice_acct")
        .unwrap();
    rec.record_auth_login_role(1, "moderator", "bob_acct")
        .unwrap();
    rec.record_auth_login(2, 3, "carol_acct").unwrap();
    rec.record_antibot(b"antibot notes on carol").unwrap();
    rec.record_antibot(b"").unwrap();
    let input = rec.finish().unwrap();
    let options = ScrubOptions {
        credentials: true,
        ..ScrubOptions::default()
    };
    let secrets: [&[u8]; 6] = [
        b"ops-alice",
        b"alice_acct",
        b"moderator",
        b"bob_acct",
        b"carol_acct",
        b"antibot notes",
    ];
    let (out, report) = check_scrub(&input, &options, &secrets);
    assert_eq!(report.dropped["EX:teehistorian-antibot@ddnet.org"], 2);
    assert_eq!(report.accounts_rewritten, 3);
    assert_eq!(report.roles_rewritten, 2);
    assert_eq!(report.mapping.roles.len(), 2);
    let kinds: Vec<String> = messages(&out).into_iter().map(|m| m.1).collect();
    assert_eq!(
        kinds
            .iter()
            .filter(|k| k.contains("auth-init-role") || k.contains("auth-login"))
            .count(),
        3,
        "{kinds:?}"
    );
    // Nothing asked but the antibot's data: it goes all the same.
    let (_, report) = check_scrub(&input, &ScrubOptions::default(), &[b"antibot notes"]);
    assert_eq!(report.dropped_total(), 2);
    assert_eq!(report.roles_rewritten + report.accounts_rewritten, 0);
}
