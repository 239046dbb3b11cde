//! Files of every teehistorian minor version DDNet has written (none, "2" to "22"): each
//! minor's header with the records that existed by then, including the save/load records
//! as old servers cut them (a 2 KiB packer: the payload stops at 2048 bytes and keeps its
//! NUL) and as servers since minor 9 write them (up to 64 KiB). No record's layout changed
//! between minors, so every one reads typed, validates and rewrites byte for byte.

use demokit::teehistorian::{
    Ex, ExKind, Header, Message, Protocol, Recorder, TeehistorianSlice, rewrite, summary,
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
    r.record_player_join(0, Protocol::V6).unwrap();
    r.record_player_join(1, Protocol::V7).unwrap();
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
            assert_eq!(rewrite(&data).unwrap(), data, "{what}");
        }
    }
}
