//! Small demos recorded for the CLI's tests: a 20 KiB map (so that a write limited to a few
//! KiB fails midway), a keyframe every 200 ticks and a one-item delta on the others.

use demokit::twdemo::{Recorder, RecorderConfig};
use std::io::Cursor;
use std::ops::RangeInclusive;

/// The recorder the demos are written with.
pub type DemoRecorder = Recorder<Cursor<Vec<u8>>>;

/// A demo named `name` with a tick marker and a snapshot or delta at every tick of
/// `ticks`; after each tick's data, `each_tick` may add messages and timeline markers.
pub fn demo_with_map(
    name: &str,
    ticks: RangeInclusive<i32>,
    mut each_tick: impl FnMut(&mut DemoRecorder, i32),
) -> Vec<u8> {
    let config = RecorderConfig::ddnet(name, "2026-11-25_12-00-00");
    let map: Vec<u8> = (0..20_000u32).map(|i| (i * 13 % 251) as u8).collect();
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, &map).unwrap();
    let first = *ticks.start();
    for tick in ticks {
        let key = (tick - first) % 200 == 0;
        rec.record_tick_marker(tick, key).unwrap();
        if key {
            rec.record_snapshot_ints(&[16, 1, 0, 5 << 16, tick % 97, 200, 1])
                .unwrap();
        } else {
            rec.record_delta_ints(&[0, 1, 0, 5, 0, 2, 0, 0]).unwrap();
        }
        each_tick(&mut rec, tick);
    }
    rec.finish().unwrap().into_inner()
}

/// A 0.6 game of `ticks` ticks for the streaming tests: 16 players named `player0` ..
/// `player15` (clan `clan`), whose characters move every tick (a delta of 16 items), a chat
/// line from one of them every 25 ticks, and the recorder's keyframes.
pub fn game_demo(ticks: i32) -> Vec<u8> {
    use demokit::codec::varint::pack_into;
    use demokit::gamenet::wire::IntString;
    use demokit::twdemo::SnapshotBuilder;
    let ints = |text: &str| IntString::<4>::from_text(text.as_bytes()).unwrap().0;
    let config = RecorderConfig::ddnet("streaming", "2026-11-28_12-00-00");
    // A map DDNet loads, so that the demo validates.
    let map = demokit::datafile::minimal_map(64, 64, "streaming").unwrap();
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, &map).unwrap();
    for tick in 1..=ticks {
        let mut builder = SnapshotBuilder::new();
        for id in 0..16 {
            // 0.6 `ClientInfo` (type 11): name, clan (3 ints), country, skin (6), colors.
            let mut info = ints(&format!("player{id}")).to_vec();
            info.extend_from_slice(&IntString::<3>::from_text(b"clan").unwrap().0);
            info.push(-1);
            info.extend_from_slice(&IntString::<6>::from_text(b"default").unwrap().0);
            info.extend_from_slice(&[0, 0, 0]);
            builder.add_item(11, id, &info).unwrap();
            // 0.6 `PlayerInfo` (type 10): local, client id, team, score, latency.
            builder
                .add_item(10, id, &[0, id, 0, tick / 100, 5])
                .unwrap();
            // 0.6 `Character` (type 9): tick, x, y, vel x, vel y, ... (22 ints).
            let mut character = vec![tick, 1000 + tick % 500 + id * 32, 2000 - tick % 300];
            character.resize(22, 0);
            character[3] = tick % 7;
            builder.add_item(9, id, &character).unwrap();
        }
        let snapshot = builder.finish();
        rec.record_snapshot(tick, snapshot.as_snapshot()).unwrap();
        if tick % 25 == 0 {
            // 0.6 `Sv_Chat` (game message 3): team, client id, text.
            let mut message = Vec::new();
            pack_into(3 << 1, &mut message);
            pack_into(0, &mut message);
            pack_into(tick / 25 % 16, &mut message);
            message.extend_from_slice(format!("hello at {tick}").as_bytes());
            message.push(0);
            rec.record_message(&message).unwrap();
        }
    }
    rec.finish().unwrap().into_inner()
}
