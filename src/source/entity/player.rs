//! Players as entities: position, view angles, team, health and life state, read from
//! the props each game's player class has.
//!
//! A class is a player class when its props include `DT_BasePlayer`'s (`CTFPlayer`,
//! `CPortal_Player`, `CTerrorPlayer` and Left 4 Dead 2's `SurvivorBot`, `CHL2_Player`,
//! ...). Its props are found by name once, when the classes are flattened
//! ([`PlayerProps`]); reading a player is then a few lookups by index.
//!
//! Games send some of these twice: TF2, Portal 2 and both Left 4 Dead games send the
//! origin and eye angles in a table for the recording player (`...LocalPlayerExclusive`,
//! full precision) and another for everyone else (`...NonLocalPlayerExclusive`). Both
//! write the same client variable, so each coordinate is the one written last. An origin may be a `VectorXY` with its height in
//! the sibling prop `m_vecOrigin[2]`, and in Left 4 Dead 2 and Portal 2 an offset inside
//! a cell of the entity's `m_cellX/Y/Z` grid (`m_cellbits` wide).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::class::{ServerClass, ServerClasses};
use super::prop::Value;
use super::table::{PropFlags, PropKind};
use super::update::{Entity, EntityState};

/// `MAX_COORD_INTEGER`: cell coordinates count from the world's low corner.
pub const MAX_COORD_INTEGER: f32 = 16384.0;
/// The cell width in bits when the entity sends none.
pub const DEFAULT_CELL_BITS: i64 = 5;

/// Where one copy of the origin is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OriginProps {
    /// The `Vector` or `VectorXY` prop.
    pub xy: usize,
    /// The height prop when `xy` is a `VectorXY`.
    pub z: Option<usize>,
    /// Whether the values are offsets inside cells.
    pub cell: bool,
}

/// Where one copy of the eye angles is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AngleProps {
    /// Pitch and yaw as two floats (`m_angEyeAngles[0]`, `m_angEyeAngles[1]`).
    Pair(usize, usize),
    /// One vector of pitch, yaw, roll.
    Vector(usize),
}

/// Where a class's origin is: every copy of `m_vecOrigin` and the cell it lies in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OriginLayout {
    /// Each copy of the origin.
    pub origins: Vec<OriginProps>,
    /// `m_cellbits`, `m_cellX`, `m_cellY`, `m_cellZ`.
    pub cells: Option<[usize; 4]>,
}

impl OriginLayout {
    /// The origin props of `class`, found in one pass over its props (this runs for each
    /// of a game's hundreds of classes when the data tables arrive).
    pub fn of(classes: &ServerClasses, class: &ServerClass) -> Self {
        let mut layout = OriginLayout::default();
        // (table, index) of each `m_vecOrigin` and `m_vecOrigin[2]`, in flat order.
        let mut origins: Vec<(usize, usize)> = Vec::new();
        let mut heights: Vec<(usize, usize)> = Vec::new();
        let mut cells: [Option<usize>; 4] = [None; 4];
        for (i, p) in class.props.iter().enumerate() {
            let Some(prop) = classes.send_prop(p) else {
                continue;
            };
            match prop.name.as_bytes() {
                b"m_vecOrigin" => origins.push((p.table, i)),
                b"m_vecOrigin[2]" => heights.push((p.table, i)),
                b"m_cellbits" => {
                    cells[0].get_or_insert(i);
                }
                b"m_cellX" => {
                    cells[1].get_or_insert(i);
                }
                b"m_cellY" => {
                    cells[2].get_or_insert(i);
                }
                b"m_cellZ" => {
                    cells[3].get_or_insert(i);
                }
                _ => {}
            }
        }
        for (table, i) in origins {
            let Some(p) = class.props.get(i) else {
                continue;
            };
            let cell = p.def.flags.0
                & (PropFlags::CELL_COORD
                    | PropFlags::CELL_COORD_LOWPRECISION
                    | PropFlags::CELL_COORD_INTEGRAL)
                != 0;
            let z = match p.def.kind {
                PropKind::Vector => None,
                // The height declared in the same table.
                PropKind::VectorXY => match heights.iter().find(|h| h.0 == table) {
                    Some(&(_, z)) => Some(z),
                    None => continue,
                },
                _ => continue,
            };
            layout.origins.push(OriginProps { xy: i, z, cell });
        }
        if let [Some(bits), Some(x), Some(y), Some(z)] = cells {
            layout.cells = Some([bits, x, y, z]);
        }
        layout
    }

    /// The props of the origin's copies (and their cell), in flat order.
    pub fn props(&self) -> impl Iterator<Item = usize> + '_ {
        self.origins
            .iter()
            .flat_map(|o| std::iter::once(o.xy).chain(o.z))
    }

    /// The world position of entity `e` of this class.
    ///
    /// Every copy of the origin writes the same variable on the client, so each
    /// coordinate is the one written last: by the copy sent in the latest update, and
    /// within one update by the later prop, as props apply in flat order. A `VectorXY`
    /// and its height prop are separate writes: a player moving on flat ground sends a
    /// new x and y in its local copy while the height last written may be the other
    /// copy's (TF2 players stand 1/32 above the floor, which the low-precision copy
    /// rounds away: the engine shows the rounded height).
    pub fn origin(&self, e: &Entity) -> Option<[f32; 3]> {
        let value = |i: usize| e.values.get(i).and_then(Option::as_ref);
        let written = |i: usize| (e.changed.get(i).copied().unwrap_or(0), i);
        let mut last: [Option<((u32, usize), f32)>; 3] = [None; 3];
        let mut write = |axis: usize, at: (u32, usize), v: f32| {
            if let Some(last) = last.get_mut(axis)
                && last.is_none_or(|(before, _)| at >= before)
            {
                *last = Some((at, v));
            }
        };
        for o in &self.origins {
            let world = |axis: usize, v: f32| {
                if o.cell {
                    self.in_world(e, axis, v)
                } else {
                    Some(v)
                }
            };
            match value(o.xy) {
                Some(Value::Vector(v)) => {
                    for (axis, &v) in v.iter().enumerate() {
                        if let Some(v) = world(axis, v) {
                            write(axis, written(o.xy), v);
                        }
                    }
                }
                Some(Value::VectorXY(v)) => {
                    for (axis, &v) in v.iter().enumerate() {
                        if let Some(v) = world(axis, v) {
                            write(axis, written(o.xy), v);
                        }
                    }
                    let height = o.z.and_then(|z| Some((z, value(z)?.as_float()?)));
                    if let Some((z, v)) = height
                        && let Some(v) = world(2, v)
                    {
                        write(2, written(z), v);
                    }
                }
                _ => {}
            }
        }
        Some([last[0]?.1, last[1]?.1, last[2]?.1])
    }

    /// A cell offset on `axis` turned into a world coordinate:
    /// `cell * 2^cellbits - 16384 + offset`.
    fn in_world(&self, e: &Entity, axis: usize, offset: f32) -> Option<f32> {
        let [bits, x, y, z] = self.cells?;
        let int = |i: usize| e.values.get(i)?.as_ref()?.as_int();
        let bits = int(bits).unwrap_or(DEFAULT_CELL_BITS).clamp(0, 20);
        let width = (1i64 << bits) as f32;
        let cell = int(*[x, y, z].get(axis)?)?;
        Some(cell as f32 * width - MAX_COORD_INTEGER + offset)
    }
}

/// The world position of any entity whose class sends an origin.
pub fn origin(entity: &Entity, classes: &ServerClasses) -> Option<[f32; 3]> {
    classes.by_id(entity.class)?.origin.origin(entity)
}

/// The flat indexes of a player class's props (the origin is the class's
/// [`OriginLayout`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlayerProps {
    /// Each copy of the eye angles.
    pub angles: Vec<AngleProps>,
    /// `m_iTeamNum`.
    pub team: Option<usize>,
    /// `m_iHealth`.
    pub health: Option<usize>,
    /// `m_lifeState`.
    pub life_state: Option<usize>,
}

impl PlayerProps {
    /// The props of the eye angles' copies, in flat order.
    pub fn angle_props(&self) -> impl Iterator<Item = usize> + '_ {
        self.angles.iter().flat_map(|a| match *a {
            AngleProps::Pair(p, y) => vec![p, y],
            AngleProps::Vector(i) => vec![i],
        })
    }

    /// The player props of class `index`, or `None` when it is not a player class; one
    /// pass over its props.
    pub fn of(classes: &ServerClasses, index: usize) -> Option<Self> {
        let class = classes.classes.get(index)?;
        let mut player = PlayerProps::default();
        let mut is_player = false;
        // (table, index) of each `m_angEyeAngles[0]` and `[1]`, in flat order.
        let mut pitches: Vec<(usize, usize)> = Vec::new();
        let mut yaws: Vec<(usize, usize)> = Vec::new();
        for (i, p) in class.props.iter().enumerate() {
            is_player |= classes.table_name(p) == Some(b"DT_BasePlayer");
            let Some(prop) = classes.send_prop(p) else {
                continue;
            };
            match prop.name.as_bytes() {
                b"m_iTeamNum" => {
                    player.team.get_or_insert(i);
                }
                b"m_iHealth" => {
                    player.health.get_or_insert(i);
                }
                b"m_lifeState" => {
                    player.life_state.get_or_insert(i);
                }
                b"m_angEyeAngles[0]" => pitches.push((p.table, i)),
                b"m_angEyeAngles[1]" => yaws.push((p.table, i)),
                b"m_angEyeAngles" if p.def.kind == PropKind::Vector => {
                    player.angles.push(AngleProps::Vector(i));
                }
                _ => {}
            }
        }
        if !is_player {
            return None;
        }
        for (table, pitch) in pitches {
            // The yaw declared in the same table.
            if let Some(&(_, yaw)) = yaws.iter().find(|y| y.0 == table) {
                player.angles.push(AngleProps::Pair(pitch, yaw));
            }
        }
        // Pairs and vectors in flat order, as the loop above met them.
        player.angles.sort_by_key(|a| match *a {
            AngleProps::Pair(p, _) | AngleProps::Vector(p) => p,
        });
        Some(player)
    }
}

/// One player entity's state at a tick.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PlayerEntity {
    /// The entity index (1 and up: the player's slot plus one).
    pub index: usize,
    /// The class name.
    pub class: std::sync::Arc<str>,
    /// Whether the entity is in the PVS.
    pub in_pvs: bool,
    /// The world position.
    pub origin: Option<[f32; 3]>,
    /// Pitch and yaw in degrees.
    pub eye_angles: Option<[f32; 2]>,
    /// `m_iTeamNum`.
    pub team: Option<i64>,
    /// `m_iHealth`.
    pub health: Option<i64>,
    /// `m_lifeState`: 0 alive, 1 dying, 2 dead (TF2: 3 respawnable).
    pub life_state: Option<i64>,
}

/// The highest entity index a player can have: players take the entities after the
/// world, one per slot, and no Source game has more than 255 slots
/// (`ABSOLUTE_PLAYER_LIMIT`).
pub const MAX_PLAYER_INDEX: usize = 255;

/// Every player entity the state holds, in index order.
pub fn players(state: &EntityState, classes: &ServerClasses) -> Vec<PlayerEntity> {
    let mut out = Vec::new();
    players_into(state, classes, MAX_PLAYER_INDEX, &mut out);
    out
}

/// [`players`] into `out` (cleared first), looking at the indexes up to `slots` only (the
/// server's player slots, which `svc_ServerInfo` gives): a walk that lists the players
/// after every packet reuses one list, and a SourceTV demo of thousands of packets spends
/// most of that listing in the empty slots otherwise.
pub fn players_into(
    state: &EntityState,
    classes: &ServerClasses,
    slots: usize,
    out: &mut Vec<PlayerEntity>,
) {
    out.clear();
    out.extend(
        (1..=slots.min(MAX_PLAYER_INDEX))
            .filter_map(|index| Some((index, state.entity(index)?)))
            .filter_map(|(index, entity)| {
                let class = classes.by_id(entity.class)?;
                let props = class.player.as_ref()?;
                Some(player(index, entity, class, props))
            }),
    );
}

/// [`players_into`] a new list.
pub fn players_of(state: &EntityState, classes: &ServerClasses, slots: usize) -> Vec<PlayerEntity> {
    let mut out = Vec::new();
    players_into(state, classes, slots, &mut out);
    out
}

/// Brings `list` (the players as [`players_into`] listed them, in index order) up to date
/// after updates that touched the entities at `touched` only: each of those is listed
/// again, or left out when it is no player any more.
pub fn update_players(
    state: &EntityState,
    classes: &ServerClasses,
    touched: &[usize],
    list: &mut Vec<PlayerEntity>,
) {
    for &index in touched {
        let now = state.entity(index).and_then(|entity| {
            let class = classes.by_id(entity.class)?;
            let props = class.player.as_ref()?;
            Some(player(index, entity, class, props))
        });
        match (list.binary_search_by_key(&index, |p| p.index), now) {
            (Ok(at), Some(p)) => {
                if let Some(entry) = list.get_mut(at) {
                    *entry = p;
                }
            }
            (Ok(at), None) => {
                list.remove(at);
            }
            (Err(at), Some(p)) => list.insert(at, p),
            (Err(_), None) => {}
        }
    }
}

fn player(index: usize, e: &Entity, class: &ServerClass, props: &PlayerProps) -> PlayerEntity {
    let value = |i: usize| e.values.get(i).and_then(Option::as_ref);
    let int = |i: Option<usize>| i.and_then(value).and_then(Value::as_int);
    let written = |i: usize| (e.changed.get(i).copied().unwrap_or(0), i);
    let origin = class.origin.origin(e);
    // Like the origin's copies, each angle is the one written last.
    let mut last: [Option<((u32, usize), f32)>; 2] = [None; 2];
    let mut write = |axis: usize, at: (u32, usize), v: f32| {
        if let Some(last) = last.get_mut(axis)
            && last.is_none_or(|(before, _)| at >= before)
        {
            *last = Some((at, v));
        }
    };
    for a in &props.angles {
        match *a {
            AngleProps::Pair(p, y) => {
                if let Some(v) = value(p).and_then(Value::as_float) {
                    write(0, written(p), v);
                }
                if let Some(v) = value(y).and_then(Value::as_float) {
                    write(1, written(y), v);
                }
            }
            AngleProps::Vector(i) => {
                if let Some(Value::Vector([p, y, _])) = value(i) {
                    write(0, written(i), *p);
                    write(1, written(i), *y);
                }
            }
        }
    }
    let eye_angles = match last {
        [Some((_, p)), Some((_, y))] => Some([p, y]),
        _ => None,
    };
    PlayerEntity {
        index,
        class: class.name.clone(),
        in_pvs: e.in_pvs,
        origin,
        eye_angles,
        team: int(props.team),
        health: int(props.health),
        life_state: int(props.life_state),
    }
}
