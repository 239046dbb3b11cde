//! The entity layer's update writer (`write_update`), beside its reader: on the real
//! states of every decoded branch's fixture, a changed state (props of one entity given
//! another's values of the same class: values the game sent, so values the props can hold)
//! written as a full update and as a delta reads back, through `EntityState::apply`, to
//! exactly that state. Case counts follow PROPTEST_CASES; failures persist under
//! proptest-regressions/.

use crate::common;

use demokit::source::entity::update::{EntityWrite, Values, write_update};
use demokit::source::entity::{DataTables, EntityState, ServerClasses};
use demokit::source::net::NetMessage;
use demokit::source::net::message::PacketEntities;
use demokit::source::net::state::NetState;
use demokit::source::{Body, SourceSlice};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::sync::OnceLock;

/// A demo's state after its first half of packets: the classes, the string tables and the
/// entities.
struct Held {
    name: String,
    classes: ServerClasses,
    state: NetState,
    entities: EntityState,
}

/// The states of the fixtures in `fixtures/source` whose branch the layers decode.
fn held() -> &'static [Held] {
    static HELD: OnceLock<Vec<Held>> = OnceLock::new();
    HELD.get_or_init(|| {
        let mut out = Vec::new();
        for path in common::source_demos()
            .into_iter()
            .filter(|p| p.starts_with(common::root().join("fixtures")))
        {
            let data = std::fs::read(&path).unwrap();
            let Ok(demo) = SourceSlice::parse(&data) else {
                continue;
            };
            let mut state = NetState::of_header(demo.header()).unwrap();
            if state.protocol.is_protobuf() {
                continue;
            }
            let packets = demo
                .frames()
                .filter_map(|f| f.ok())
                .filter(|f| matches!(f.frame.body, Body::Packet(_)))
                .count();
            let (mut classes, mut entities, mut seen) = (None, EntityState::new(), 0);
            for item in demo.frames() {
                let Ok(item) = item else { break };
                match &item.frame.body {
                    Body::DataTables(b) => {
                        classes = ServerClasses::new(
                            DataTables::decode(b, state.protocol).unwrap(),
                            state.protocol,
                        )
                        .ok()
                    }
                    Body::StringTables(b) => state.apply_string_tables_frame(b).unwrap(),
                    Body::Signon(p) | Body::Packet(p) => {
                        let mut messages = state.messages(p.data);
                        let decoded: Vec<_> =
                            messages.by_ref().map(|m| m.unwrap().message).collect();
                        state.learned(&messages);
                        for m in &decoded {
                            state.apply(m).unwrap();
                            if let (NetMessage::PacketEntities(u), Some(c)) = (m, &classes) {
                                let baselines = state
                                    .table_index("instancebaseline")
                                    .map(|t| &state.tables[t]);
                                entities.apply(u, c, baselines).unwrap();
                            }
                        }
                        if matches!(item.frame.body, Body::Packet(_)) {
                            seen += 1;
                            if seen >= packets / 2 {
                                break;
                            }
                        }
                    }
                    _ => {}
                }
            }
            if let Some(classes) = classes {
                out.push(Held {
                    name: path.file_name().unwrap().to_string_lossy().into_owned(),
                    classes,
                    state,
                    entities,
                });
            }
        }
        out
    })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/source_entity_writer.txt",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Entity `a` of a demo's state takes some props from entity `b` of its class; the
    /// full update of the changed entities, and a delta that changes only those props,
    /// read back to the changed state.
    #[test]
    fn a_changed_state_reads_back_as_written(demo in 0usize..64, a in 0usize..2048, b in 0usize..2048, mask in any::<u64>()) {
        let held = held();
        prop_assume!(!held.is_empty());
        let h = &held[demo % held.len()];
        let all: Vec<(usize, &demokit::source::entity::Entity)> = h.entities.entities().collect();
        prop_assume!(!all.is_empty());
        let (ia, ea) = all[a % all.len()];
        let same_class: Vec<_> = all.iter().filter(|(_, e)| e.class == ea.class).collect();
        let (_, eb) = same_class[b % same_class.len()];
        // The changed values: a's, with the props the mask picks taken from b.
        let mut changed: Values = ea.values.clone();
        let mut delta: Values = vec![None; changed.len()];
        for (i, v) in eb.values.iter().enumerate() {
            if mask >> (i % 64) & 1 == 1 && v.is_some() && i < changed.len() {
                changed[i] = v.clone();
                delta[i] = v.clone();
            }
        }
        let baselines = h.state.table_index("instancebaseline").map(|t| &h.state.tables[t]);
        // A delta of the changed props, applied to the state.
        let (data, updated) = write_update(&h.classes, &[(ia, EntityWrite::Change { class: ea.class, values: &delta })], true)
            .map_err(|e| TestCaseError::fail(format!("{}: {e}", h.name)))?;
        let mut entities = h.entities.clone();
        let update = PacketEntities { max_entries: 2048, delta_from: Some(1), baseline: false, updated, update_baseline: false, data };
        entities.apply(&update, &h.classes, baselines).map_err(|e| TestCaseError::fail(format!("{}: {e}", h.name)))?;
        prop_assert_eq!(&entities.entity(ia).unwrap().values, &changed, "{} delta", h.name);
        // A full update of every entity, the changed one with its new values.
        let full: Vec<(usize, EntityWrite<'_>)> = all
            .iter()
            .map(|&(i, e)| (i, EntityWrite::Enter { class: e.class, serial: e.serial, values: if i == ia { &changed } else { &e.values } }))
            .collect();
        let (data, updated) = write_update(&h.classes, &full, false)
            .map_err(|e| TestCaseError::fail(format!("{}: {e}", h.name)))?;
        let mut fresh = EntityState::new();
        let update = PacketEntities { max_entries: 2048, delta_from: None, baseline: false, updated, update_baseline: false, data };
        fresh.apply(&update, &h.classes, baselines).map_err(|e| TestCaseError::fail(format!("{}: {e}", h.name)))?;
        for &(i, e) in &all {
            let want = if i == ia { &changed } else { &e.values };
            let got = &fresh.entity(i).unwrap().values;
            // A full update starts from the class baseline: a prop the entity never had
            // but the baseline has reads as the baseline's.
            for (p, (g, w)) in got.iter().zip(want).enumerate() {
                if w.is_some() {
                    prop_assert_eq!(g, w, "{} entity {} prop {}", h.name, i, p);
                }
            }
        }
    }
}

#[test]
fn the_writer_is_tried_on_every_decoded_fixture() {
    let names: Vec<&str> = held().iter().map(|h| h.name.as_str()).collect();
    assert!(names.len() >= 12, "{names:?}");
}
