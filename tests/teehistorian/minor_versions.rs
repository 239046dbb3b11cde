//! Files of every teehistorian minor version DDNet has written (none, "2" to "22"): each
//! minor's header with the records that existed by then, including the save/load records
//! as old servers cut them (a 2 KiB packer: the payload stops at 2048 bytes and keeps its
//! NUL) and as servers since minor 9 write them (up to 64 KiB). No record's layout changed
//! between minors, so every one reads typed, validates and rewrites byte for byte.

use crate::common;

use common::read::Dribble;
use demokit::gamenet::Protocol;
use demokit::teehistorian::{
    Ex, ExKind, Header, Message, Recorder, TeehistorianSlice, rewrite, summary,
};
use std::collections::BTreeMap;
use uuid::Uuid;

/// The EX records DDNet added, by the minor version that added them.
const ADDED: [(u32, &[ExKind]); 4] = [
    (2, &[ExKind::PlayerTeam, ExKind::TeamPractice]),
    (3, &[ExKind::PlayerReady]),
    (4, &[ExKind::PlayerSwitch]),
    (5, &[ExKind::PlayerRejoin, ExKind::Antibot]),
];

/// A save string of `len` bytes: team members' lines, as DDNet's save code writes them.
fn save_string(len: usize) -> String {
    let line = "2\tH.\nll0\t";
    line.repeat(len / line.len() + 1)[..len].to_string()
}

/// Records what a server of `minor` writes (`None`: a version-2 header without a minor,
/// which predates every addition), with save strings of `save_len` bytes.
fn record(minor: Option<u32>, save_len: usize) -> Vec<u8> {
    let header = Header {
        version_minor: minor.map(|m| m.to_string()),
        map_name: Some("dm1".into()),
        ..Header::new("2")
    };
    let has = |kind: ExKind| {
        minor.is_some_and(|m| {
            ADDED
                .iter()
                .any(|(added, kinds)| *added <= m && kinds.contains(&kind))
                || (m >= 8
                    && matches!(
                        kind,
                        ExKind::PlayerName | ExKind::PlayerFinish | ExKind::TeamFinish
                    ))
        })
    };
    let save_id = Uuid::from_u128(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10);
    let mut r = Recorder::new(Vec::new(), &header).unwrap();
    r.record_player_join(0, Protocol::Six).unwrap();
    r.record_player_join(1, Protocol::Seven).unwrap();
    if has(ExKind::PlayerName) {
        r.record_player_name(0, "nameless tee").unwrap();
    }
    for tick in 1..=40 {
        r.begin_tick(tick).unwrap();
        r.begin_players().unwrap();
        r.record_player(0, 100 + tick, 200).unwrap();
        r.record_player(1, 300, 400 - tick).unwrap();
        r.end_players().unwrap();
        r.begin_inputs().unwrap();
        r.record_player_input(0, 1, &[tick % 3 - 1, 10, -20, 0, 0, 0, 1, 0, 0, tick])
            .unwrap();
        if tick == 10 {
            if has(ExKind::PlayerTeam) {
                r.record_player_team(0, 1).unwrap();
                r.record_player_team(1, 1).unwrap();
                r.record_team_practice(1, true).unwrap();
            }
            if has(ExKind::PlayerReady) {
                r.record_player_ready(0).unwrap();
            }
            r.record_team_save_success(1, save_id, &save_string(save_len))
                .unwrap();
            r.record_team_load_success(1, save_id, &save_string(save_len))
                .unwrap();
            r.record_team_save_failure(2).unwrap();
        }
        if tick == 20 {
            if has(ExKind::PlayerSwitch) {
                r.record_player_swap(0, 1).unwrap();
            }
            if has(ExKind::PlayerRejoin) {
                r.record_player_rejoin(1).unwrap();
            }
            if has(ExKind::Antibot) {
                r.record_antibot(&[0xde, 0xad, 0xbe, 0xef]).unwrap();
            }
        }
        if tick == 30 && has(ExKind::PlayerFinish) {
            r.record_player_finish(0, 1500).unwrap();
            r.record_team_finish(1, 1500).unwrap();
        }
        r.end_inputs().unwrap();
        r.end_tick().unwrap();
    }
    r.record_player_drop(1, "timeout").unwrap();
    r.finish().unwrap()
}

/// EX kinds and how often each occurs in `data`, which must read cleanly.
fn ex_counts(data: &[u8]) -> BTreeMap<&'static str, usize> {
    let slice = TeehistorianSlice::parse(data).unwrap();
    let mut counts = BTreeMap::new();
    for item in slice.messages() {
        let item = item.unwrap();
        if let Message::Ex(ex) = item.message {
            assert!(!matches!(ex, Ex::Unknown { .. }), "untyped {ex:?}");
            *counts.entry(ex.kind().unwrap().kind_name()).or_default() += 1;
        }
    }
    counts
}

#[test]
fn every_minor_version_reads_typed_and_rewrites_exactly() {
    let minors = std::iter::once(None).chain((2..=22).map(Some));
    for minor in minors {
        // Before minor 9 a save string was cut so that the EX payload (team, save id,
        // string, NUL) stopped at the 2 KiB packer's end; since then up to 64 KiB fit.
        let save_lens: &[usize] = match minor {
            Some(m) if m >= 9 => &[200, 2030, 60_000],
            _ => &[200, 2030],
        };
        for &save_len in save_lens {
            let data = record(minor, save_len);
            let what = format!("minor {minor:?}, save string {save_len} bytes");
            let slice = TeehistorianSlice::parse(&data).unwrap();
            assert_eq!(
                slice.header().version_minor,
                minor.map(|m| m.to_string()),
                "{what}"
            );
            let counts = ex_counts(&data);
            assert_eq!(counts["EX:teehistorian-save-success@ddnet.tw"], 1, "{what}");
            assert_eq!(counts["EX:teehistorian-load-success@ddnet.tw"], 1, "{what}");
            let expected_kinds = 5 // joinver6, joinver7, save/load success, save failure
                + match minor {
                    None => 0,
                    Some(m) => {
                        ADDED
                            .iter()
                            .filter(|(added, _)| *added <= m)
                            .map(|(_, kinds)| kinds.len())
                            .sum::<usize>()
                            + if m >= 8 { 3 } else { 0 }
                    }
                };
            assert_eq!(counts.len(), expected_kinds, "{what}: {counts:?}");
            // The old packer's limit: the payload of the 2030-byte save is exactly 2048.
            for item in slice.messages() {
                if let Message::Ex(Ex::SaveSuccess { team_save, .. }) = item.unwrap().message {
                    assert_eq!(team_save.as_bytes().len(), save_len, "{what}");
                    let mut payload = Vec::new();
                    let ex = Ex::SaveSuccess {
                        team: 1,
                        save_id: Uuid::from_u128(0),
                        team_save,
                    };
                    ex.encode_payload(&mut payload).unwrap();
                    if save_len == 2030 {
                        assert_eq!(payload.len(), 2048, "{what}");
                    }
                }
            }
            assert_eq!(summary::validate(&data).problems, [], "{what}");
            assert_eq!(rewrite(&data, Vec::new()).unwrap().0, data, "{what}");
        }
    }
}

/// The bytes DDNet's writer before minor version 9 produced for a console command through
/// its 2 KiB packer: ints while 6 bytes are free, each string up to the packer's end with
/// its NUL kept, nothing after the first string that did not fit.
fn old_packer_console_command(cid: i32, flags: i32, cmd: &str, args: &[&str]) -> Vec<u8> {
    const SIZE: usize = 2048;
    let mut out = Vec::new();
    let mut full = false;
    let int = |out: &mut Vec<u8>, full: &mut bool, v: i32| {
        if *full || SIZE - out.len() < 6 {
            *full = true;
            return;
        }
        let mut buf = [0u8; 5];
        let n = demokit::codec::varint::pack(v, &mut buf);
        out.extend_from_slice(&buf[..n]);
    };
    let string = |out: &mut Vec<u8>, full: &mut bool, s: &str| {
        if *full {
            return;
        }
        let room = SIZE - out.len() - 1;
        let mut end = s.len().min(room);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        out.extend_from_slice(&s.as_bytes()[..end]);
        out.push(0);
        *full = end < s.len();
    };
    int(&mut out, &mut full, -10);
    int(&mut out, &mut full, cid);
    int(&mut out, &mut full, flags);
    string(&mut out, &mut full, cmd);
    int(&mut out, &mut full, args.len() as i32);
    for arg in args {
        string(&mut out, &mut full, arg);
    }
    out
}

#[test]
fn console_commands_cut_by_the_old_packer() {
    use demokit::codec::string::NulStr;
    use demokit::teehistorian::{Args, TeehistorianReader, TeehistorianWriter};
    // A long first argument (with a two-byte character where the packer ends), two more
    // that never made it into the file.
    let long = format!("{}é{}", "x".repeat(2031), "y".repeat(500));
    let cut = old_packer_console_command(-1, 4, "say", &[&long, "second", "third"]);
    assert!((2045..=2048).contains(&cut.len()), "{}", cut.len());
    let file = |minor: &str| {
        let json = format!(r#"{{"version":"2","version_minor":"{minor}"}}"#);
        let mut w = TeehistorianWriter::with_header_json(Vec::new(), json.as_bytes()).unwrap();
        w.write(&Message::Join { cid: 0 }).unwrap();
        w.write(&Message::PlayerNew { cid: 0, x: 1, y: 2 }).unwrap();
        let body_at = w.position() as usize;
        let mut data = w.into_inner().unwrap();
        data.extend_from_slice(&cut);
        // PLAYER_DIFF 0 begins with a zero byte, which a whole reading of the command
        // would take for an empty argument.
        for (cid, dx) in [(0, 3), (0, 1)] {
            Message::PlayerDiff { cid, dx, dy: 0 }
                .encode(&mut data)
                .unwrap();
        }
        Message::Finish.encode(&mut data).unwrap();
        (data, body_at)
    };

    let (data, at) = file("8");
    let slice = TeehistorianSlice::parse(&data).unwrap();
    let items: Vec<_> = slice.messages().map(Result::unwrap).collect();
    let kinds: Vec<_> = items.iter().map(|m| m.message.kind_name()).collect();
    assert_eq!(
        kinds,
        [
            "JOIN",
            "PLAYER_NEW",
            "CONSOLE_COMMAND",
            "PLAYER_DIFF",
            "PLAYER_DIFF",
            "FINISH"
        ]
    );
    let command = &items[2];
    assert_eq!(
        (command.offset as usize, command.raw.len()),
        (at, cut.len())
    );
    assert_eq!(command.cut_args, 2);
    let Message::ConsoleCommand { args, .. } = command.message else {
        unreachable!()
    };
    let kept: Vec<NulStr<&[u8]>> = args.iter().collect();
    assert_eq!(kept.len(), 1);
    assert!(long.as_bytes().starts_with(kept[0].as_bytes()));
    // The messages after it keep their ticks: PLAYER_NEW 0 opened tick 1, each record of
    // the same cid again opens the next.
    assert_eq!((items[1].tick, items[3].tick, items[4].tick), (1, 2, 3));
    // The streaming reader agrees, whatever its source delivers per read.
    for chunk in [1, 7, 4096] {
        let mut reader = TeehistorianReader::new(Dribble::new(&data, chunk)).unwrap();
        let mut seen = Vec::new();
        while let Some(m) = reader.next() {
            let m = m.unwrap();
            seen.push((m.offset, m.tick, m.cut_args));
        }
        let expected: Vec<_> = items
            .iter()
            .map(|m| (m.offset, m.tick, m.cut_args))
            .collect();
        assert_eq!(seen, expected, "{chunk} bytes per read");
    }
    let report = summary::validate(&data);
    assert!(report.accepted());
    assert_eq!(report.problems.len(), 1, "{report:?}");
    assert_eq!(report.problems[0].offset, at as u64);
    assert!(
        report.problems[0]
            .message
            .contains("2 arguments were never written")
    );
    assert_eq!(rewrite(&data, Vec::new()).unwrap().0, data);

    // The same bytes under a header of minor 9 (64 KiB packer) are read whole: the command
    // swallows the next messages, so the file no longer reads as the server wrote it.
    let (data9, _) = file("9");
    let slice = TeehistorianSlice::parse(&data9).unwrap();
    let kinds: Vec<_> = slice
        .messages()
        .map_while(Result::ok)
        .map(|m| m.message.kind_name())
        .collect();
    assert_ne!(
        kinds[..],
        [
            "JOIN",
            "PLAYER_NEW",
            "CONSOLE_COMMAND",
            "PLAYER_DIFF",
            "PLAYER_DIFF",
            "FINISH"
        ]
    );

    // Writers refuse a whole command that a reader of a minor-8 file would take for a cut
    // one; the same command is fine in a minor-9 file.
    let whole = Message::ConsoleCommand {
        cid: -1,
        flags: 4,
        cmd: NulStr::borrowed(b"say"),
        // 8 bytes before the arguments: the first one ends at byte 2046.
        args: Args::list(&[&[b'x'; 2037], b"second"]),
    };
    for (minor, refused) in [("8", true), ("9", false)] {
        let json = format!(r#"{{"version":"2","version_minor":"{minor}"}}"#);
        let mut w = TeehistorianWriter::with_header_json(Vec::new(), json.as_bytes()).unwrap();
        assert_eq!(w.write(&whole).is_err(), refused, "minor {minor}");
        let mut rec = Recorder::with_header_json(Vec::new(), json.as_bytes()).unwrap();
        let arg = "x".repeat(2037);
        rec.begin_tick(1).unwrap();
        rec.begin_players().unwrap();
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        let result = rec.record_console_command(-1, 4, "say", &[&arg, "second"]);
        assert_eq!(result.is_err(), refused, "minor {minor}");
    }
}
