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
