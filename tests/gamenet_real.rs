//! Every snapshot item and message of every real demo and teehistorian file decodes typed
//! and re-encodes to the same ints and bytes.

mod common;

use demokit::gamenet::{ObjectType, Protocol};
use demokit::twdemo::replay::SnapshotReplay;
use demokit::twdemo::snapshot::{OFFSET_UUID_TYPE, Snapshot};
use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, PayloadDecoder};
use std::collections::BTreeMap;

fn object_type(snapshot: &Snapshot<'_>, type_id: i32) -> ObjectType {
    if type_id >= OFFSET_UUID_TYPE {
        match snapshot.extended_type_uuid(type_id) {
            Some(uuid) => ObjectType::Extended(uuid),
            None => ObjectType::Static(type_id),
        }
    } else {
        ObjectType::Static(type_id)
    }
}

#[test]
fn explore() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in common::twdemo_facts(&shared) {
        let data = std::fs::read(&path).unwrap();
        let demo = DemoSlice::parse(&data).unwrap();
        let nv = demo.prelude().header.net_version.to_string_lossy();
        let protocol = Protocol::for_net_version(&nv);
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let mut replay = SnapshotReplay::new(&demo);
        while let Some(tick) = replay.next() {
            let tick = tick.unwrap();
            let Some(snap) = tick.snapshot else { continue };
            for item in snap.items() {
                let ty = object_type(&snap, item.type_id);
                let obj = protocol.decode_object(ty, item.data);
                let name = match obj.as_raw() {
                    Some(r) => format!("RAW {:?} {:?} len {}", r.object_type, r.why, r.data.len()),
                    None => obj.name().to_string(),
                };
                *counts.entry(format!("obj {name}")).or_default() += 1;
                let mut out = Vec::new();
                obj.write_ints(&mut out).unwrap();
                assert_eq!(out, item.data);
            }
        }
        let mut decoder = PayloadDecoder::new();
        for chunk in demo.chunks() {
            let chunk = chunk.unwrap();
            if let Chunk::Data(d) = chunk.chunk {
                if d.kind != ChunkKind::Message {
                    continue;
                }
                let Ok(p) = decoder.decode(d.payload) else {
                    continue;
                };
                let bytes = p.to_bytes();
                let u = protocol.unpack_message(&bytes);
                let name = match u.message.as_raw() {
                    Some(r) => format!(
                        "RAW {:?} {:?} {:02x?}",
                        r.id(),
                        r.why,
                        &r.bytes.0[..r.bytes.0.len().min(12)]
                    ),
                    None => u.message.name().to_string(),
                };
                *counts
                    .entry(format!("msg {name} trailing {}", u.trailing.0.len()))
                    .or_default() += 1;
                let mut out = Vec::new();
                u.pack(&mut out).unwrap();
                assert_eq!(out, bytes);
            }
        }
        println!("== {} ({nv})", path.display());
        for (k, v) in counts {
            println!("  {v:7} {k}");
        }
    }
}

#[test]
fn explore_teehistorian() {
    use demokit::teehistorian::{Message, TeehistorianSlice};
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in common::facts_files(&shared, "teehistorian") {
        let data = std::fs::read(&path).unwrap();
        let file = TeehistorianSlice::parse(&data).unwrap();
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for m in file.messages() {
            let m = m.unwrap();
            if let Message::NetMessage { data, .. } = m.message {
                let u = Protocol::Six.unpack_message(data);
                let name = match u.message.as_raw() {
                    Some(r) => format!(
                        "RAW {:?} {:?} {:02x?}",
                        r.id(),
                        r.why,
                        &r.bytes.0[..r.bytes.0.len().min(12)]
                    ),
                    None => u.message.name().to_string(),
                };
                *counts
                    .entry(format!("msg {name} trailing {}", u.trailing.0.len()))
                    .or_default() += 1;
            }
        }
        println!("== {}", path.display());
        for (k, v) in counts {
            println!("  {v:7} {k}");
        }
    }
}

#[test]
fn explore_world() {
    use demokit::twdemo::game::{Event, GameReplay};
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in common::twdemo_facts(&shared) {
        let data = std::fs::read(&path).unwrap();
        let demo = DemoSlice::parse(&data).unwrap();
        let mut replay = GameReplay::new(&demo);
        let mut names = std::collections::BTreeSet::new();
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        let mut lines = Vec::new();
        let mut ticks = 0;
        while let Some(t) = replay.next() {
            let t = t.unwrap();
            ticks += 1;
            for p in t.world.players() {
                names.insert((
                    p.client_id,
                    p.name.clone(),
                    p.clan.clone(),
                    p.skin.clone(),
                    p.team,
                ));
            }
            for e in t.world.events() {
                *kinds.entry(e.kind_name()).or_default() += 1;
                match e {
                    Event::Chat { .. }
                    | Event::Kill { .. }
                    | Event::Join { .. }
                    | Event::Leave { .. }
                    | Event::RaceFinish { .. }
                    | Event::Broadcast { .. } => lines.push(format!("{} {e:?}", t.tick)),
                    _ => {}
                }
            }
        }
        println!("== {} ticks {ticks}", path.display());
        println!("  players {names:?}");
        println!("  kinds {kinds:?}");
        for l in lines.iter().take(40) {
            println!("  {l}");
        }
    }
}
