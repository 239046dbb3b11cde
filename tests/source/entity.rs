//! Entities of every real Source demo: the data tables frame decodes and encodes back to
//! its bytes, every class flattens, every instance baseline fills its bits, every
//! `svc_PacketEntities` and `svc_TempEntities` uses exactly its bits from the first packet
//! to the last; and what the entities say about the players is what a person watching the
//! demo would check.

use crate::common;

use demokit::source::entity::{
    DataTables, EntityState, PlayerEntity, ServerClasses, decode_baseline, players, temp_entities,
};
use demokit::source::net::NetMessage;
use demokit::source::net::state::{NetState, TableChange};
use demokit::source::{Body, SourceSlice, ViewInfo};
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
    re_encoded_differently: bool,
    errors: Vec<String>,
    temp_entities: usize,
    temp_errors: Vec<String>,
}

/// Walks a demo's entities; `each` sees the players after every update.
fn walk(data: &[u8], mut each: impl FnMut(Option<ViewInfo>, &[PlayerEntity])) -> Walk {
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
                let mut decoded = Vec::new();
                for m in messages.by_ref() {
                    match m {
                        Ok(m) => decoded.push(m.message),
                        Err(e) => w.errors.push(format!("frame at {at}: message: {e}")),
                    }
                }
                state.learned(&messages);
                let baseline_table = state.table_index("instancebaseline");
                for m in &decoded {
                    // CS:GO's protobuf messages as the other branches' structs.
                    let classic = match m {
                        NetMessage::Protobuf(p) => p.classic().unwrap(),
                        _ => None,
                    };
                    let m = classic.as_ref().unwrap_or(m);
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
                    if let (NetMessage::TempEntities(te), Some(classes)) = (m, &classes) {
                        match temp_entities(te.count, &te.data, classes) {
                            Ok(events) => w.temp_entities += events.len(),
                            Err(e) => w.temp_errors.push(format!("frame at {at}: {e}")),
                        }
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
                            each(packet.view_infos().next(), &players(&entities, classes));
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

/// The CS:GO demo (`DEMOKIT_CSGO_DEMO`): the protobuf data tables encode back, every
/// baseline, update and temporary entity uses exactly its bits (up to the last byte's
/// padding), and the ten players stand at their team's de_dust2 spawn when the round
/// starts.
#[test]
fn every_update_of_the_csgo_demo_decodes_and_players_stand_at_their_spawns() {
    let Some(data) = common::csgo_ok_dem() else {
        return;
    };
    let mut at_spawns = 0;
    let mut most = 0;
    let w = walk(&data, |_, players| {
        most = most.max(players.len());
        // The first update where all ten are alive at full health: the round's start.
        if at_spawns == 0 && players.len() == 10 && players.iter().all(|p| p.health == Some(100)) {
            at_spawns += 1;
            for p in players {
                let [x, y, _] = p.origin.unwrap();
                match p.team {
                    // The terrorists' spawn, at the map's south end.
                    Some(2) => assert!(
                        (-1300.0..200.0).contains(&x) && (-1000.0..-500.0).contains(&y),
                        "{p:?}"
                    ),
                    // The counter-terrorists' spawn, at its north end.
                    Some(3) => assert!(
                        (0.0..600.0).contains(&x) && (2200.0..2600.0).contains(&y),
                        "{p:?}"
                    ),
                    _ => panic!("{p:?}"),
                }
                assert_eq!(&*p.class, "CCSPlayer");
            }
        }
    });
    println!("{w:?}");
    assert_eq!(w.branch, "CsGo 13585");
    assert!(!w.re_encoded_differently);
    assert!(
        w.errors.is_empty(),
        "{:?}",
        &w.errors[..w.errors.len().min(5)]
    );
    assert!(w.temp_errors.is_empty(), "{:?}", w.temp_errors);
    assert!(w.classes > 200 && w.baselines > 10, "{w:?}");
    assert_eq!(w.decoded, w.updates);
    assert!(w.full > 0 && w.entered > 100, "{w:?}");
    assert_eq!(most, 10);
    assert!(at_spawns > 0);
}

#[test]
fn every_update_of_every_source_demo_decodes_exactly() {
    let demos = common::source_demos();
    let mut table = String::from(
        "file | branch build | classes | props | baselines | updates | decoded | full | entered | left | deleted | temp entities | temp errors | errors\n",
    );
    let mut failures = Vec::new();
    for path in &demos {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(path).unwrap();
        let mut w = walk(&data, |_, _| {});
        writeln!(
            table,
            "{name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {}",
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
            w.temp_entities,
            w.temp_errors.len(),
            w.errors.len()
        )
        .unwrap();
        assert!(w.classes > 100 && w.baselines > 10, "{name}: {w:?}");
        w.errors.extend(w.temp_errors.iter().cloned());
        if !w.errors.is_empty() || w.re_encoded_differently {
            failures.push(format!(
                "{name}: re-encoded differently {}; {:?}",
                w.re_encoded_differently,
                &w.errors[..w.errors.len().min(5)]
            ));
        }
        // Every demo starts with a full update, and every update decodes.
        assert!(w.full > 0, "{name}: no full update");
        assert_eq!(w.decoded, w.updates, "{name}");
        // A listen server's item test map has a few dozen entities.
        assert!(w.entered > 30, "{name}: {w:?}");
    }
    println!("{table}");
    assert!(failures.is_empty(), "{failures:#?}\n{table}");
}

/// What the players of one demo did: per entity index, the box their positions span and
/// every value seen.
#[derive(Default, Debug)]
struct Seen {
    updates: usize,
    most_players: usize,
    least_players: usize,
    indexes: std::collections::BTreeSet<usize>,
    classes: std::collections::BTreeSet<String>,
    low: [f32; 3],
    high: [f32; 3],
    teams: std::collections::BTreeSet<i64>,
    health_alive: std::collections::BTreeSet<i64>,
    life_states: std::collections::BTreeSet<i64>,
    pitch: (f32, f32),
    yaw: (f32, f32),
    without_origin: usize,
    /// The recording player's view origin (the demo's own view info) less the origin
    /// of entity 1, after each update.
    view_offsets: Vec<[f32; 3]>,
    /// The view angles of the demo's view info and entity 1's eye angles.
    view_angles: Vec<([f32; 3], [f32; 2])>,
}

/// The players of the demo named `name`, watched after every update (the recording
/// player: entity 1 only, when `only_first`).
fn seen(name: &str, only_first: bool) -> Seen {
    let path = common::source_demos()
        .into_iter()
        .find(|p| p.file_name().unwrap().to_string_lossy() == name)
        .unwrap_or_else(|| panic!("{name} is among the fixtures"));
    let data = std::fs::read(path).unwrap();
    let mut s = Seen {
        least_players: usize::MAX,
        low: [f32::MAX; 3],
        high: [f32::MIN; 3],
        pitch: (f32::MAX, f32::MIN),
        yaw: (f32::MAX, f32::MIN),
        ..Default::default()
    };
    let w = walk(&data, |view, players| {
        s.updates += 1;
        if let (Some(view), Some(p)) = (view, players.iter().find(|p| p.index == 1))
            && let Some(o) = p.origin
        {
            let d = [0, 1, 2].map(|a| view.view_origin[a] - o[a]);
            s.view_offsets.push(d);
            if let Some(a) = p.eye_angles {
                s.view_angles.push((view.view_angles, a));
            }
        }
        s.most_players = s.most_players.max(players.len());
        s.least_players = s.least_players.min(players.len());
        for p in players.iter().filter(|p| !only_first || p.index == 1) {
            s.indexes.insert(p.index);
            s.classes.insert(p.class.to_string());
            match p.origin {
                Some(o) => {
                    for (axis, c) in o.into_iter().enumerate() {
                        s.low[axis] = s.low[axis].min(c);
                        s.high[axis] = s.high[axis].max(c);
                    }
                }
                None => s.without_origin += 1,
            }
            s.teams.extend(p.team);
            s.life_states.extend(p.life_state);
            if p.life_state == Some(0) {
                s.health_alive.extend(p.health);
            }
            if let Some([pitch, yaw]) = p.eye_angles {
                s.pitch = (s.pitch.0.min(pitch), s.pitch.1.max(pitch));
                s.yaw = (s.yaw.0.min(yaw), s.yaw.1.max(yaw));
            }
        }
    });
    assert!(w.errors.is_empty(), "{name}: {:?}", w.errors);
    s
}

impl Seen {
    /// The positions lie inside the world (the engine's coordinates end at +-16384) and
    /// span at least `distance` units on some axis.
    fn moves_inside_the_world(&self, distance: f32) {
        for axis in 0..3 {
            assert!(
                self.low[axis] >= -16384.0 && self.high[axis] <= 16384.0,
                "{self:?}"
            );
        }
        let span = (0..3)
            .map(|a| self.high[a] - self.low[a])
            .fold(0.0, f32::max);
        assert!(span >= distance, "moved {span} units: {self:?}");
        assert_eq!(self.without_origin, 0, "{self:?}");
    }

    /// Entity 1 is where the demo's own view is: the view info each packet stores for
    /// the recording player has its origin (the view offset is added on playback), so
    /// the two agree to within a fraction of a unit (a coordinate rounds to 1/32 or 1/8).
    fn is_where_the_view_is(&self) {
        assert!(self.view_offsets.len() > 50, "{}", self.view_offsets.len());
        let worst = self
            .view_offsets
            .iter()
            .flatten()
            .fold(0.0f32, |m, d| m.max(d.abs()));
        assert!(worst <= 0.125, "view and entity 1 differ by {worst}");
    }

    /// Entity 1's eye angles are the demo's view angles, up to the degree or so the
    /// props quantize them to, in most updates (the view turns between ticks).
    fn looks_where_the_view_looks(&self) {
        assert!(self.view_angles.len() > 50, "{}", self.view_angles.len());
        let apart = |a: f32, b: f32| {
            let d = (a - b).rem_euclid(360.0);
            d.min(360.0 - d)
        };
        let close = self
            .view_angles
            .iter()
            .filter(|(view, eye)| apart(view[0], eye[0]) < 1.0 && apart(view[1], eye[1]) < 1.0)
            .count();
        eprintln!("{close} of {} within a degree", self.view_angles.len());
        assert!(
            close * 10 >= self.view_angles.len() * 9,
            "{close} of {}",
            self.view_angles.len()
        );
    }
}

#[test]
fn the_tf2_player_moves_on_the_map_and_lives_by_the_rules() {
    let s = seen("tf2_cp_gullywash_small.dem", true);
    assert!(s.updates > 100, "{s:?}");
    assert_eq!(s.classes.iter().collect::<Vec<_>>(), ["CTFPlayer"]);
    s.moves_inside_the_world(100.0);
    s.is_where_the_view_is();
    // cp_gullywash is a few thousand units across.
    assert!(s.low[0] > -6000.0 && s.high[0] < 6000.0, "{s:?}");
    assert!(s.teams.iter().all(|t| (0..=3).contains(t)), "{s:?}");
    assert!(s.teams.contains(&2) || s.teams.contains(&3), "{s:?}");
    assert!(!s.health_alive.is_empty(), "{s:?}");
    assert!(
        s.health_alive.iter().all(|h| (0..=300).contains(h)),
        "{s:?}"
    );
    assert!(s.life_states.iter().all(|l| (0..=3).contains(l)), "{s:?}");
    // TF2 sends the pitch in -90..90 and the yaw in 0..360.
    assert!(s.pitch.0 >= -90.0 && s.pitch.1 <= 90.0, "{s:?}");
    assert!(s.yaw.0 >= 0.0 && s.yaw.1 <= 360.0, "{s:?}");
    // The recording player does not look around in this short demo.
    s.looks_where_the_view_looks();
}

#[test]
fn the_portal2_player_is_alone_and_walks_through_the_chamber() {
    let s = seen("portal2_sp_laser_relays.dem", false);
    // Single player: one player entity in every update, entity 1.
    assert_eq!((s.least_players, s.most_players), (1, 1), "{s:?}");
    assert_eq!(s.indexes.iter().collect::<Vec<_>>(), [&1]);
    assert_eq!(s.classes.iter().collect::<Vec<_>>(), ["CPortal_Player"]);
    s.moves_inside_the_world(1000.0);
    s.is_where_the_view_is();
    s.looks_where_the_view_looks();
    assert_eq!(s.life_states.iter().collect::<Vec<_>>(), [&0], "{s:?}");
    assert!(
        s.health_alive.iter().all(|h| (1..=100).contains(h)),
        "{s:?}"
    );
    assert!(
        s.yaw.0 >= 0.0 && s.yaw.1 <= 360.0 && s.yaw.1 - s.yaw.0 > 90.0,
        "{s:?}"
    );
}

#[test]
fn left_4_dead_survivors_stay_on_their_team() {
    // Left 4 Dead: one human survivor and three survivor bots.
    let s = seen("l4d1_37_v1005.dem", false);
    assert_eq!(s.most_players, 4, "{s:?}");
    assert_eq!(s.indexes.iter().collect::<Vec<_>>(), [&1, &2, &3, &4]);
    assert_eq!(
        s.classes.iter().collect::<Vec<_>>(),
        ["CTerrorPlayer", "SurvivorBot"]
    );
    assert_eq!(s.teams.iter().collect::<Vec<_>>(), [&2], "survivors: {s:?}");
    s.moves_inside_the_world(1000.0);
    s.is_where_the_view_is();
    s.looks_where_the_view_looks();
    assert!(s.life_states.iter().all(|l| (0..=2).contains(l)), "{s:?}");
    // Left 4 Dead 2's fixtures are solo runs: one survivor, whose origin comes from the
    // local table and the others' from cells.
    for name in [
        "l4d2_2027_shantytown.dem",
        "l4d2_2042_v2091.dem",
        "l4d2_2100_v2220.dem",
    ] {
        let s = seen(name, true);
        assert_eq!(
            s.classes.iter().collect::<Vec<_>>(),
            ["CTerrorPlayer"],
            "{name}"
        );
        assert_eq!(s.teams.iter().collect::<Vec<_>>(), [&2], "{name}: {s:?}");
        assert!(
            s.health_alive.iter().all(|h| (1..=100).contains(h)),
            "{name}: {s:?}"
        );
        s.moves_inside_the_world(2000.0);
        s.is_where_the_view_is();
        s.looks_where_the_view_looks();
    }
}

#[test]
fn half_life_2_players_move_through_the_level() {
    for name in ["hl2_oe_canals11.dem", "hl2_ep2_demo_guard.dem"] {
        let s = seen(name, false);
        assert_eq!((s.least_players, s.most_players), (1, 1), "{name}: {s:?}");
        assert_eq!(
            s.classes.iter().collect::<Vec<_>>(),
            ["CHL2_Player"],
            "{name}"
        );
        s.moves_inside_the_world(1000.0);
        s.is_where_the_view_is();
        assert!(
            s.health_alive.iter().all(|h| (1..=100).contains(h)),
            "{name}: {s:?}"
        );
    }
}

/// The data tables of the demo named `name`, flattened.
fn classes_of(name: &str) -> ServerClasses {
    let path = common::source_demos()
        .into_iter()
        .find(|p| p.file_name().unwrap().to_string_lossy() == name)
        .unwrap_or_else(|| panic!("{name} is among the fixtures"));
    let data = std::fs::read(path).unwrap();
    let slice = SourceSlice::parse(&data).unwrap();
    let state = NetState::of_header(slice.header()).unwrap();
    let bytes = slice
        .frames()
        .find_map(|f| match f.ok()?.frame.body {
            Body::DataTables(bytes) => Some(bytes),
            _ => None,
        })
        .unwrap();
    ServerClasses::new(
        DataTables::decode(bytes, state.protocol).unwrap(),
        state.protocol,
    )
    .unwrap()
}

/// Flat indexes of the player class that the research notes read off the same games'
/// tables with a separate parser: the sort by priority or by "changes often" moved them
/// there, so any slip in the sort shows.
#[test]
fn player_props_sit_where_the_sort_puts_them() {
    /// A demo, its player class, the class's prop count and (table, prop, flat index).
    type Case = (
        &'static str,
        &'static str,
        usize,
        &'static [(&'static str, &'static str, usize)],
    );
    let cases: &[Case] = &[
        (
            "tf2_short_2024.dem",
            "CTFPlayer",
            881,
            &[
                ("DT_TFLocalPlayerExclusive", "m_vecOrigin", 9),
                ("DT_TFLocalPlayerExclusive", "m_vecOrigin[2]", 10),
                ("DT_TFLocalPlayerExclusive", "m_angEyeAngles[0]", 11),
                ("DT_TFLocalPlayerExclusive", "m_angEyeAngles[1]", 12),
                ("DT_TFNonLocalPlayerExclusive", "m_vecOrigin", 13),
                ("DT_BasePlayer", "m_iHealth", 18),
                ("DT_BaseEntity", "m_iTeamNum", 794),
                ("DT_BasePlayer", "m_lifeState", 828),
            ],
        ),
        (
            "portal2_sp_laser_relays.dem",
            "CPortal_Player",
            545,
            &[
                ("DT_PortalLocalPlayerExclusive", "m_vecOrigin", 2),
                ("DT_PortalLocalPlayerExclusive", "m_vecOrigin[2]", 3),
                ("DT_PortalNonLocalPlayerExclusive", "m_vecOrigin", 7),
                ("DT_PortalNonLocalPlayerExclusive", "m_vecOrigin[2]", 8),
                ("DT_Portal_Player", "m_angEyeAngles[0]", 22),
                ("DT_Portal_Player", "m_angEyeAngles[1]", 23),
                ("DT_BasePlayer", "m_iHealth", 490),
                ("DT_BasePlayer", "m_lifeState", 491),
            ],
        ),
        (
            "l4d2_2100_v2220.dem",
            "CTerrorPlayer",
            565,
            &[
                ("DT_CSLocalPlayerExclusive", "m_vecOrigin", 2),
                ("DT_CSPlayer", "m_angEyeAngles[0]", 3),
                ("DT_CSPlayer", "m_angEyeAngles[1]", 4),
                ("DT_CSLocalPlayerExclusive", "m_vecOrigin[2]", 5),
                ("DT_CSNonLocalPlayerExclusive", "m_vecOrigin", 8),
                ("DT_CSNonLocalPlayerExclusive", "m_vecOrigin[2]", 9),
            ],
        ),
    ];
    for &(demo, class_name, count, props) in cases {
        let classes = classes_of(demo);
        let class = classes.by_name(class_name).unwrap();
        assert_eq!(class.props.len(), count, "{demo} {class_name}");
        for &(table, prop, index) in props {
            assert_eq!(
                classes.find(class, Some(table), prop),
                Some(index),
                "{demo}: {table}.{prop}"
            );
        }
        let player = class.player.as_ref().unwrap();
        assert_eq!(
            class.origin.origins.len(),
            2,
            "{demo}: local and non-local copies"
        );
        assert!(!player.angles.is_empty());
    }
}

/// Every entity that sends an origin is inside the world, in every demo; in Left 4 Dead
/// 2 and Portal 2 most of them are cell coordinates (a cell of `2^m_cellbits` units
/// counted from -16384, plus the offset), which land outside it when the cell arithmetic
/// is wrong.
#[test]
fn every_entity_is_inside_the_world() {
    use demokit::source::entity::origin;
    for path in common::source_demos() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(&path).unwrap();
        let slice = SourceSlice::parse(&data).unwrap();
        let mut state = NetState::of_header(slice.header()).unwrap();
        let mut classes: Option<ServerClasses> = None;
        let mut entities = EntityState::new();
        let (mut placed, mut in_cells, mut outside) = (0usize, 0usize, Vec::new());
        for frame in slice.frames() {
            let Ok(frame) = frame else { break };
            match &frame.frame.body {
                Body::DataTables(bytes) => {
                    classes = Some(
                        ServerClasses::new(
                            DataTables::decode(bytes, state.protocol).unwrap(),
                            state.protocol,
                        )
                        .unwrap(),
                    )
                }
                Body::StringTables(bytes) => state.apply_string_tables_frame(bytes).unwrap(),
                Body::Signon(p) | Body::Packet(p) => {
                    let mut messages = state.messages(p.data);
                    let decoded: Vec<_> = messages.by_ref().map(|m| m.unwrap().message).collect();
                    state.learned(&messages);
                    for m in &decoded {
                        let _ = state.apply(m);
                        let (NetMessage::PacketEntities(u), Some(c)) = (m, &classes) else {
                            continue;
                        };
                        entities
                            .apply(u, c, state.table("instancebaseline"))
                            .unwrap();
                        for (i, e) in entities.entities() {
                            let Some(o) = origin(e, c) else { continue };
                            placed += 1;
                            let class = c.by_id(e.class).unwrap();
                            in_cells += usize::from(class.origin.origins.iter().any(|o| o.cell));
                            if o.iter().any(|v| !(-16384.0..=16384.0).contains(v)) {
                                outside.push(format!("{i} {} {o:?}", class.name));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        println!(
            "{name}: {placed} placed, {in_cells} in cells, {} outside",
            outside.len()
        );
        assert!(placed > 1000, "{name}");
        assert!(
            outside.is_empty(),
            "{name}: {:?}",
            &outside[..outside.len().min(10)]
        );
        if name.starts_with("l4d2") || name.starts_with("portal2") {
            assert!(
                in_cells * 2 > placed,
                "{name}: {in_cells} of {placed} in cells"
            );
        }
    }
}
