//! Entities of every real Source demo: the data tables frame decodes and encodes back to
//! its bytes, every class flattens, every instance baseline fills its bits, every
//! `svc_PacketEntities` uses exactly its bits from the first packet to the last; and what
//! the entities say about the players is what a person watching the demo would check.

use crate::common;

use demokit::source::entity::{
    DataTables, EntityErrorKind, EntityState, PlayerEntity, ServerClasses, decode_baseline, players,
};
use demokit::source::net::NetMessage;
use demokit::source::net::state::{NetState, TableChange};
use demokit::source::{Body, SourceSlice};
use std::collections::HashSet;
use std::fmt::Write as _;

/// What one demo's walk found.
#[derive(Default, Debug)]
struct Walk {
    branch: String,
    classes: usize,
    props: usize,
    baselines: usize,
    updates: usize,
    decoded: usize,
    full: usize,
    entered: usize,
    left: usize,
    deleted: usize,
    /// Updates that change an entity the demo never created (a recording that starts
    /// from deltas against a state it does not hold).
    no_base: usize,
    re_encoded_differently: bool,
    errors: Vec<String>,
}

/// Walks a demo's entities; `each` sees the players after every update.
fn walk(data: &[u8], mut each: impl FnMut(i32, &[PlayerEntity])) -> Walk {
    let slice = SourceSlice::parse(data).unwrap();
    let mut state = NetState::of_header(slice.header()).expect("a branch the layers decode");
    let mut w = Walk::default();
    let mut classes: Option<ServerClasses> = None;
    let mut entities = EntityState::new();
    let mut checked: HashSet<(Vec<u8>, Vec<u8>)> = HashSet::new();
    let mut dirty = false;
    for frame in slice.frames() {
        let Ok(frame) = frame else { break };
        let at = frame.offset;
        match &frame.frame.body {
            Body::DataTables(bytes) => {
                let tables = DataTables::decode(bytes, state.protocol)
                    .unwrap_or_else(|e| panic!("dem_datatables at {at}: {e}"));
                w.re_encoded_differently |= tables.encode(state.protocol).unwrap() != *bytes;
                assert!(tables.tail.len() < 8, "padding only after the classes");
                let c = ServerClasses::new(tables, state.protocol)
                    .unwrap_or_else(|e| panic!("flattening at {at}: {e}"));
                w.classes = c.classes.len();
                w.props = c.classes.iter().map(|c| c.props.len()).sum();
                classes = Some(c);
                dirty = true;
            }
            Body::StringTables(bytes) => {
                state.apply_string_tables_frame(bytes).unwrap();
                dirty = true;
            }
            Body::Signon(packet) | Body::Packet(packet) => {
                let mut messages = state.messages(packet.data);
                let decoded: Vec<_> = messages.by_ref().map(|m| m.unwrap().message).collect();
                state.learned(&messages);
                let baseline_table = state.table_index("instancebaseline");
                for m in &decoded {
                    match state.apply(m) {
                        Ok(Some(
                            TableChange::Created { table, .. } | TableChange::Updated { table, .. },
                        )) if Some(table) == baseline_table
                            || state.table_index("instancebaseline") == Some(table) =>
                        {
                            dirty = true
                        }
                        _ => {}
                    }
                    let NetMessage::PacketEntities(update) = m else {
                        continue;
                    };
                    let Some(classes) = &classes else { continue };
                    if dirty {
                        check_baselines(&state, classes, &mut checked, &mut w);
                        dirty = false;
                    }
                    w.updates += 1;
                    w.full += usize::from(update.delta_from.is_none());
                    match entities.apply(update, classes, state.table("instancebaseline")) {
                        Ok(counts) => {
                            w.decoded += 1;
                            w.entered += counts.entered;
                            w.left += counts.left;
                            w.deleted += counts.deleted;
                            each(frame.frame.tick, &players(&entities, classes));
                        }
                        Err(e)
                            if matches!(e.kind, EntityErrorKind::NoEntity { .. })
                                && w.full == 0 =>
                        {
                            w.no_base += 1
                        }
                        Err(e) => w.errors.push(format!("frame at {at}: {e}")),
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(classes) = &classes {
        check_baselines(&state, classes, &mut checked, &mut w);
    }
    w.branch = format!("{:?} {}", state.protocol.branch, state.protocol.build);
    w
}

/// Decodes every `instancebaseline` entry not decoded before.
fn check_baselines(
    state: &NetState,
    classes: &ServerClasses,
    checked: &mut HashSet<(Vec<u8>, Vec<u8>)>,
    w: &mut Walk,
) {
    let Some(table) = state.table("instancebaseline") else {
        return;
    };
    for entry in &table.entries {
        let Some(data) = &entry.user_data else {
            continue;
        };
        let key = (entry.string.as_bytes().to_vec(), data.as_bytes().to_vec());
        if !checked.insert(key) {
            continue;
        }
        let class = std::str::from_utf8(entry.string.as_bytes())
            .ok()
            .and_then(|s| s.parse().ok())
            .and_then(|id| classes.by_id(id));
        let Some(class) = class else {
            w.errors
                .push(format!("baseline of no class {:?}", entry.string));
            continue;
        };
        match decode_baseline(data, class, classes.protocol) {
            Ok(_) => w.baselines += 1,
            Err(e) => w.errors.push(format!("baseline of {}: {e}", class.name)),
        }
    }
}

#[test]
fn every_update_of_every_source_demo_decodes_exactly() {
    let demos = common::source_demos();
    let mut table = String::from(
        "file | branch build | classes | props | baselines | updates | decoded | full | entered | left | deleted | no base | errors\n",
    );
    let mut failures = Vec::new();
    for path in &demos {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(path).unwrap();
        let w = walk(&data, |_, _| {});
        writeln!(
            table,
            "{name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {}",
            w.branch,
            w.classes,
            w.props,
            w.baselines,
            w.updates,
            w.decoded,
            w.full,
            w.entered,
            w.left,
            w.deleted,
            w.no_base,
            w.errors.len()
        )
        .unwrap();
        assert!(w.classes > 100 && w.baselines > 10, "{name}: {w:?}");
        if !w.errors.is_empty() || w.re_encoded_differently {
            failures.push(format!(
                "{name}: re-encoded differently {}; {:?}",
                w.re_encoded_differently,
                &w.errors[..w.errors.len().min(5)]
            ));
        }
        if w.full > 0 {
            // A demo that holds its entities decodes every update.
            assert_eq!(w.decoded, w.updates, "{name}");
            assert!(w.entered > 100, "{name}: {w:?}");
        } else {
            // The 2004 engine's recordings start from deltas of a state they do not hold.
            assert!(name.starts_with("hl2_"), "{name}: no full update");
            assert_eq!(w.no_base + w.decoded, w.updates, "{name}");
        }
    }
    println!("{table}");
    assert!(failures.is_empty(), "{failures:#?}\n{table}");
}
