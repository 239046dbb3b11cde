//! `SnapshotReplay` on every real demo: one replayed tick per tick marker, every message
//! counted, no snapshot or delta skipped, and at each keyframe the replayed snapshot is the
//! stored one.

use crate::common;

use demokit::twdemo::snapshot::replay::SnapshotReplay;
use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, PayloadDecoder, Snapshot};
use std::collections::HashMap;

#[test]
fn every_real_demo_replays_tick_by_tick() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, facts) in common::twdemo_facts(&shared) {
        let name = path.file_name().unwrap().display().to_string();
        let data = std::fs::read(&path).unwrap();
        let demo = DemoSlice::parse(&data).unwrap();
        // The stored keyframe snapshots, by the offset of the tick marker before them.
        let mut stored: HashMap<u64, Vec<i32>> = HashMap::new();
        let mut decoder = PayloadDecoder::new();
        let mut marker = None;
        for item in demo.chunks() {
            let item = item.unwrap();
            match item.chunk {
                Chunk::Tick(_) => marker = Some(item.offset),
                Chunk::Data(c) if c.kind == ChunkKind::Snapshot => {
                    decoder.decode(c.payload).unwrap();
                    stored.insert(marker.unwrap(), decoder.last_ints().to_vec());
                }
                Chunk::Data(_) => {}
            }
        }
        let mut replay = SnapshotReplay::new(&demo);
        let (mut ticks, mut messages, mut with_snapshot, mut keyframes_checked) = (0, 0, 0, 0);
        let mut seen_snapshot = false;
        while let Some(tick) = replay.next() {
            let tick = tick.unwrap();
            ticks += 1;
            messages += tick.messages;
            if let Some(snapshot) = tick.snapshot {
                with_snapshot += 1;
                seen_snapshot = true;
                if let Some(ints) = stored.get(&tick.offset) {
                    let expected = Snapshot::parse(ints).unwrap();
                    let items: Vec<_> = snapshot.items().collect();
                    let expected: Vec<_> = expected.items().collect();
                    // 0.7 clients' snapshots are replayed sorted by key.
                    if items != expected {
                        let mut a: Vec<_> = items.iter().map(|i| (i.key, i.data)).collect();
                        let mut b: Vec<_> = expected.iter().map(|i| (i.key, i.data)).collect();
                        a.sort();
                        b.sort();
                        assert_eq!(a, b, "{name}: keyframe at {}", tick.offset);
                    }
                    keyframes_checked += 1;
                }
            } else {
                assert!(!seen_snapshot, "{name}: a snapshot disappeared");
            }
        }
        let counts = &facts["chunk_counts"];
        assert_eq!(ticks as u64, counts["tick"].as_u64().unwrap(), "{name}");
        // Messages before the first tick marker belong to no replayed tick.
        assert!(messages as u64 <= counts["msg"].as_u64().unwrap(), "{name}");
        assert_eq!(replay.skipped(), 0, "{name}");
        assert_eq!(keyframes_checked, stored.len(), "{name}");
        assert!(with_snapshot > 0, "{name}");
    }
}
