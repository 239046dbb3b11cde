//! exploration
mod common;

use demokit::gamenet::{ObjectType, Protocol};
use demokit::twdemo::replay::SnapshotReplay;
use demokit::twdemo::snapshot::{OFFSET_UUID_TYPE, Snapshot};
use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, PayloadDecoder};
use libtw2_gamenet_ddnet as ddnet;
use libtw2_gamenet_teeworlds_0_7 as tw7;
use libtw2_packer::{IntUnpacker, Unpacker};
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
        let mut counts: BTreeMap<String, (usize, String)> = BTreeMap::new();
        let mut replay = SnapshotReplay::new(&demo);
        while let Some(tick) = replay.next() {
            let tick = tick.unwrap();
            let Some(snap) = tick.snapshot else { continue };
            for item in snap.items() {
                let ty = object_type(&snap, item.type_id);
                let obj = protocol.decode_object(ty, item.data);
                let dk = match obj.as_raw() {
                    Some(r) => format!("RAW {:?}", r.why),
                    None => obj.name().to_string(),
                };
                let tid = match ty {
                    ObjectType::Static(n) if (0..=0xffff).contains(&n) => {
                        Some(ddnet::snap_obj::TypeId::Ordinal(n as u16))
                    }
                    ObjectType::Extended(u) => Some(ddnet::snap_obj::TypeId::Uuid(u)),
                    _ => None,
                };
                let mut w = Vec::new();
                let lt = match tid {
                    None => "no type".to_string(),
                    Some(tid) => {
                        let seven = protocol == Protocol::Seven
                            && !matches!(ty, ObjectType::Extended(_) | ObjectType::Static(0));
                        let r = if seven {
                            tw7::SnapObj::decode_obj(&mut w, tid, &mut IntUnpacker::new(item.data))
                                .map(|o| {
                                    format!("{:?}", o)
                                        .split([' ', '('])
                                        .next()
                                        .unwrap()
                                        .to_string()
                                })
                        } else {
                            ddnet::SnapObj::decode_obj(
                                &mut w,
                                tid,
                                &mut IntUnpacker::new(item.data),
                            )
                            .map(|o| {
                                format!("{:?}", o)
                                    .split([' ', '('])
                                    .next()
                                    .unwrap()
                                    .to_string()
                            })
                        };
                        match r {
                            Ok(n) => format!("{n} w{}", w.len()),
                            Err(e) => format!("ERR {e:?}"),
                        }
                    }
                };
                let e = counts
                    .entry(format!("obj {dk} | {lt} | len {}", item.data.len()))
                    .or_insert((0, String::new()));
                if e.0 == 0 {
                    e.1 = format!("{:?}", item.data);
                }
                e.0 += 1;
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
                let dk = match u.message.as_raw() {
                    Some(r) => format!("RAW {:?} {:?}", r.id(), r.why),
                    None => u.message.name().to_string(),
                };
                let mut w = Vec::new();
                let uuid = bytes.first().is_some_and(|&b| b >> 1 == 0);
                let lt = if protocol == Protocol::Seven && !uuid {
                    match tw7::msg::decode(&mut w, &mut Unpacker::new_from_demo(&bytes)) {
                        Ok(m) => format!("{:?} w{:?}", m, w)
                            .chars()
                            .take(60)
                            .collect::<String>(),
                        Err(e) => format!("ERR {e:?}"),
                    }
                } else {
                    match ddnet::msg::decode(&mut w, &mut Unpacker::new_from_demo(&bytes)) {
                        Ok(m) => format!("{:?} w{:?}", m, w)
                            .chars()
                            .take(60)
                            .collect::<String>(),
                        Err(e) => format!("ERR {e:?}"),
                    }
                };
                let lt: String = lt.split(['{', '(']).take(2).collect::<Vec<_>>().join("(");
                let e = counts
                    .entry(format!("msg {dk} | {lt} | {}", w.len()))
                    .or_insert((0, String::new()));
                if e.0 == 0 {
                    e.1 = format!("{:02x?}", &bytes[..bytes.len().min(40)]);
                }
                e.0 += 1;
            }
        }
        println!("== {} ({nv})", path.display());
        for (k, v) in counts {
            println!(
                "  {:7} {k}   e.g. {}",
                v.0,
                v.1.chars().take(150).collect::<String>()
            );
        }
    }
}
