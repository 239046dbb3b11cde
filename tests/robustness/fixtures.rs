//! The files in `fixtures/` are made by this project: demos its recorder wrote, and
//! hand-made malformed inputs derived from them. This test rebuilds each one and checks the
//! committed bytes, so a change in the recorder cannot go unnoticed.
//! `DEMOKIT_BLESS=1 cargo test --test robustness fixtures::` writes them anew.

use demokit::codec::huffman::LengthRule;
use demokit::twdemo::{Recorder, RecorderConfig};
use std::io::Cursor;
use std::path::PathBuf;

/// A short deathmatch-like recording: a server message before the first tick, keyframes
/// every 250 ticks, deltas and chat messages in between, a few timeline markers.
fn recorded(version: u8) -> Vec<u8> {
    let mut config = RecorderConfig::ddnet("demokit_fixture", "2026-11-22_12-00-00");
    config.version = version;
    config.kind = "server".into();
    config.huffman_rule = if version == 6 {
        LengthRule::Tight
    } else {
        LengthRule::TrailingByte
    };
    let map: Vec<u8> = (0..512u32).map(|i| (i * 7 % 251) as u8).collect();
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, &map).unwrap();
    // Sv_MapChange-like system message before any tick, as DDNet servers write one.
    rec.record_message(&[0x05, 0x64, 0x6d, 0x31, 0x00]).unwrap();
    let mut last_key = None;
    for tick in (1000..1400).step_by(2) {
        let key = last_key.is_none_or(|k| tick - k > 250);
        rec.record_tick_marker(tick, key).unwrap();
        let x = 100 + tick % 37;
        if key {
            last_key = Some(tick);
            // [data_size, num_items, offsets, items]: one Flag (type 5) item.
            rec.record_snapshot_ints(&[16, 1, 0, 5 << 16, x, 200, 1])
                .unwrap();
        } else if tick % 6 != 0 {
            rec.record_delta_ints(&[0, 1, 0, 5, 0, 2, 0, 0]).unwrap();
        }
        if tick % 40 == 0 {
            rec.record_message(format!("\x06\x00\x40tick {tick}\0").as_bytes())
                .unwrap();
        }
        if tick % 100 == 0 {
            rec.add_timeline_marker(tick);
        }
    }
    rec.finish().unwrap().into_inner()
}

/// Every fixture: name and bytes.
fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    let v6 = recorded(6);
    let mut out = vec![
        ("recorded_v3.demo", recorded(3)),
        ("recorded_v4.demo", recorded(4)),
        ("recorded_v5.demo", recorded(5)),
        ("recorded_v6.demo", v6.clone()),
    ];
    let mut bad_magic = v6.clone();
    bad_magic[..7].copy_from_slice(b"TWDEMX\0");
    out.push(("bad_magic.demo", bad_magic));
    let mut v2 = v6.clone();
    v2[7] = 2;
    out.push(("version_2.demo", v2));
    let mut unterminated = v6.clone();
    unterminated[72..136].fill(b'A'); // map_name without NUL
    out.push(("unterminated_map_name.demo", unterminated));
    let mut map_past_end = v6.clone();
    map_past_end[136..140].copy_from_slice(&0x7FFF_FFF0u32.to_be_bytes());
    out.push(("map_past_end.demo", map_past_end));
    let mut corrupt = v6.clone();
    // The first chunk after the map (484 + 512) is the message; its payload starts one byte
    // later. All-ones bits never reach the EOF code before the input ends.
    let payload = 484 + 512 + 1;
    let len = (corrupt[484 + 512] & 0x1f) as usize;
    corrupt[payload..payload + len].fill(0xFF);
    out.push(("corrupt_huffman.demo", corrupt));
    out.push(("truncated.demo", v6[..v6.len() - 3].to_vec()));
    out
}

#[test]
fn committed_fixtures_are_what_the_code_makes() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let bless = std::env::var("DEMOKIT_BLESS").is_ok_and(|v| v == "1");
    for (name, bytes) in fixtures() {
        let path = dir.join(name);
        if bless {
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (DEMOKIT_BLESS=1 makes it)", path.display()));
        assert!(
            committed == bytes,
            "{name} differs from what the recorder writes now"
        );
    }
}
