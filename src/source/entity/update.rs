//! Entity updates: `svc_PacketEntities` data applied to the entities the client holds.
//!
//! An update walks the entities it changes in index order. Each one enters the PVS (a
//! class id and serial, then its props against a baseline), is changed (props against
//! its current state), leaves the PVS, or is deleted; a delta update may end with a list
//! of explicit deletes. The branches differ in three variable-length forms and in how a
//! prop list numbers its props:
//!
//! | branch | entity index step | prop list | explicit deletes |
//! |---|---|---|---|
//! | 2004 engine (network 7) | unary `UBitVar` | continue bit, unary step | bit, 11-bit index |
//! | Orange Box, Source 2013 | `UBitVar`, selector first | continue bit, `UBitVar` step | bit, 11-bit index |
//! | Left 4 Dead | `UBitInt`, value first | field indexes, old form only | bit, 11-bit index |
//! | Left 4 Dead 2, Portal 2 | `UBitInt` | a "new way" bit, then field indexes | L4D2 from build 2091: a counted list of steps |
//!
//! Baselines: an entity entering the PVS starts from the class's baseline (the
//! `instancebaseline` string table's entry named after the class id, decoded the first
//! time it is needed and again only when its bytes change) or, in a delta update, from
//! the instance baseline the server named for that entity, if it has the same class. An
//! update that sets `update_baseline` makes the other instance slot a copy of the named
//! one plus every entity that entered. The state holds at most 2048 entities and two
//! slots of 2048 baselines, whatever the demo's length.
//!
//! The update applies in place: after an error the state is partly changed, and the
//! next full update (no `delta_from`) starts it afresh.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::class::{FlatProp, ServerClass, ServerClasses};
use super::error::{EntityError, EntityErrorKind};
use super::prop::{Value, decode, encode};
use crate::codec::bits::{BitReader, BitWriter, Bits};
use crate::source::net::message::PacketEntities;
use crate::source::net::string_table::StringTable;
use crate::source::net::{Branch, Protocol};
use std::collections::HashMap;
use std::sync::Arc;

/// Entity indexes are 11 bits (`MAX_EDICT_BITS`) in every branch.
pub const MAX_ENTITIES: usize = 2048;
/// Bits of an entity's serial number (`NUM_NETWORKED_EHANDLE_SERIAL_NUMBER_BITS`).
pub const SERIAL_BITS: u32 = 10;
/// Bits of an explicitly deleted entity's index.
const DELETE_INDEX_BITS: u32 = 11;

/// A prop list's values by flat prop index; `None` for props never sent.
pub type Values = Vec<Option<Value>>;

/// One entity the client holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    /// Its server class id.
    pub class: u16,
    /// Its serial number (told apart from earlier entities at the same index).
    pub serial: u16,
    /// Whether it is in the PVS (an entity that left it is kept, dormant).
    pub in_pvs: bool,
    /// Its props by flat index.
    pub values: Values,
    /// For each prop, the number of the update that last sent it (0: only the baseline).
    pub changed: Vec<u32>,
}

/// A baseline with the class it belongs to.
#[derive(Debug, Clone, PartialEq)]
struct Baseline {
    class: u16,
    values: Arc<Values>,
}

/// What one update did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct UpdateCounts {
    /// Entities that entered the PVS.
    pub entered: usize,
    /// Entities whose props changed.
    pub changed: usize,
    /// Entities that left the PVS.
    pub left: usize,
    /// Entities deleted (with the leave or explicitly).
    pub deleted: usize,
    /// Class baselines decoded for this update.
    pub baselines: usize,
}

/// How a branch encodes its updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct UpdateLayout {
    /// Index steps and prop steps as the 2004 engine's unary `UBitVar`.
    pub unary: bool,
    /// Demo protocol 4's forms: value-first `UBitInt` index steps and field indexes.
    pub field_indexes: bool,
    /// Prop lists start with the "new way" bit (Left 4 Dead 2, Portal 2).
    pub new_way_bit: bool,
    /// Explicit deletes as a counted list (Left 4 Dead 2 from build 2091).
    pub counted_deletes: bool,
    /// The data is whole bytes (CS:GO's protobuf `entity_data`): up to 7 bits after the
    /// updates are padding.
    pub byte_padded: bool,
    /// A prop list gives every field index, up to the end mark, before the values
    /// (CS:GO); elsewhere each index is followed by its value.
    pub indices_first: bool,
}

impl UpdateLayout {
    /// The layout of `p`'s branch.
    pub const fn of(p: Protocol) -> Self {
        UpdateLayout {
            unary: matches!(p.branch, Branch::Classic) && p.network <= 7,
            field_indexes: p.is_demo4(),
            new_way_bit: matches!(
                p.branch,
                Branch::Left4Dead2 | Branch::Portal2 | Branch::CsGo
            ),
            counted_deletes: (matches!(p.branch, Branch::Left4Dead2) && p.build >= 2091)
                || matches!(p.branch, Branch::CsGo),
            byte_padded: matches!(p.branch, Branch::CsGo),
            indices_first: matches!(p.branch, Branch::CsGo),
        }
    }
}

/// Reads the 2004 engine's `UBitVar`: as many zero bits as the value's width, a one, then
/// the value less the smallest of that width.
pub fn read_unary_ubitvar(r: &mut BitReader<'_>) -> Result<u32, EntityError> {
    let at = r.position();
    let mut width = 0;
    while !r.read_bool()? {
        width += 1;
        if width > 32 {
            return Err(EntityError::new(
                at,
                EntityErrorKind::Invalid {
                    what: "a variable-length value of more than 32 bits",
                },
            ));
        }
    }
    let value = ((1u64 << width) - 1) + u64::from(r.read(width)?);
    u32::try_from(value).map_err(|_| {
        EntityError::new(
            at,
            EntityErrorKind::Invalid {
                what: "a variable-length value past 32 bits",
            },
        )
    })
}

/// Reads demo protocol 4's `UBitInt`: four low bits, a two-bit selector, then 0, 4, 8 or
/// 28 more high bits.
pub fn read_ubitint(r: &mut BitReader<'_>) -> Result<u32, EntityError> {
    let low = r.read(4)?;
    let high = match r.read(2)? {
        0 => 0,
        1 => r.read(4)?,
        2 => r.read(8)?,
        _ => r.read(28)?,
    };
    Ok(low | high << 4)
}

/// Writes `v` as [`read_unary_ubitvar`] reads it.
pub fn write_unary_ubitvar(w: &mut BitWriter, v: u32) {
    // The value's width is the largest `n` with 2^n - 1 <= v.
    let width = (u64::from(v) + 1).ilog2();
    for _ in 0..width {
        w.write_bool(false);
    }
    w.write_bool(true);
    w.write_u64(u64::from(v) + 1 - (1 << width), width);
}

/// Writes `v` as its `low` lowest bits, a two-bit selector, then the rest of it in the
/// first of nothing and `widths` that holds it: the form of demo protocol 4's `UBitInt`
/// and of its field-index steps, which differ only in the widths.
fn write_selected(w: &mut BitWriter, v: u32, low: u32, widths: [u32; 3]) {
    w.write(v & ((1 << low) - 1), low);
    let high = v >> low;
    let selector = if high == 0 {
        0
    } else {
        1 + widths[..2].iter().take_while(|&&b| high >= 1 << b).count() as u32
    };
    w.write(selector, 2);
    let [first, second, third] = widths;
    let bits = match selector {
        0 => 0,
        1 => first,
        2 => second,
        _ => third,
    };
    w.write(high, bits);
}

/// Writes `v` as [`read_ubitint`] reads it, in the shortest form.
pub fn write_ubitint(w: &mut BitWriter, v: u32) {
    write_selected(w, v, 4, [4, 8, 28]);
}

/// The step of a field index that marks the end of a prop list.
const FIELD_INDEX_END: u32 = 0xfff;

/// Writes the step of one field index (`index - last - 1`, or [`FIELD_INDEX_END`]) in the
/// old form [`read_field_index`] reads (a writer never needs the new one).
fn write_field_step(w: &mut BitWriter, step: u32) {
    write_selected(w, step, 5, [2, 4, 7]);
}

/// Reads one field index of demo protocol 4's prop lists after index `last`: `None` at the
/// list's end mark.
pub fn read_field_index(
    r: &mut BitReader<'_>,
    last: i64,
    new_way: bool,
) -> Result<Option<i64>, EntityError> {
    if new_way && r.read_bool()? {
        return Ok(Some(last + 1));
    }
    let step = if new_way && r.read_bool()? {
        r.read(3)?
    } else {
        let low = r.read(5)?;
        let high = match r.read(2)? {
            0 => 0,
            1 => r.read(2)?,
            2 => r.read(4)?,
            _ => r.read(7)?,
        };
        low | high << 5
    };
    // The end mark is the largest step the form can hold.
    Ok((step != 0xfff).then_some(last + 1 + i64::from(step)))
}

/// Reads one prop list of `class` and hands each (flat index, value) to `set`; returns
/// how many props it held.
pub fn read_props(
    r: &mut BitReader<'_>,
    class: &ServerClass,
    layout: UpdateLayout,
    mut set: impl FnMut(usize, Value),
) -> Result<usize, EntityError> {
    let props = class.props.len();
    let mut count = 0;
    let mut take = |r: &mut BitReader<'_>, index: i64, at: usize| {
        let (prop, flat) = usize::try_from(index)
            .ok()
            .and_then(|i| Some((i, class.props.get(i)?)))
            .ok_or_else(|| {
                EntityError::new(
                    at,
                    EntityErrorKind::PropIndex {
                        index: index as u64,
                        props,
                    },
                )
            })?;
        set(prop, decode(r, &flat.def)?);
        count += 1;
        Ok::<_, EntityError>(())
    };
    let mut last: i64 = -1;
    if layout.indices_first {
        let new_way = layout.new_way_bit && r.read_bool()?;
        let mut indexes = Vec::new();
        loop {
            let at = r.position();
            match read_field_index(r, last, new_way)? {
                Some(index) => {
                    // Each index takes at least a bit: the list cannot outgrow the data,
                    // but a class has at most MAX_FLAT_PROPS props to name.
                    if indexes.len() >= super::class::MAX_FLAT_PROPS {
                        return Err(EntityError::new(
                            at,
                            EntityErrorKind::PropIndex {
                                index: index as u64,
                                props,
                            },
                        ));
                    }
                    indexes.push((index, at));
                    last = index;
                }
                None => break,
            }
        }
        for (index, at) in indexes {
            take(r, index, at)?;
        }
    } else if layout.field_indexes {
        let new_way = layout.new_way_bit && r.read_bool()?;
        loop {
            let at = r.position();
            match read_field_index(r, last, new_way)? {
                Some(index) => {
                    take(r, index, at)?;
                    last = index;
                }
                None => break,
            }
        }
    } else {
        while r.read_bool()? {
            let at = r.position();
            let step = if layout.unary {
                read_unary_ubitvar(r)?
            } else {
                r.read_ubitvar()?
            };
            last += i64::from(step) + 1;
            take(r, last, at)?;
        }
    }
    Ok(count)
}

/// Writes one prop list of `class` as [`read_props`] reads it: every prop of `values` that
/// has a value, in index order (a list of the "new way" writes the old form, which its
/// bit allows).
pub fn write_props(
    w: &mut BitWriter,
    class: &ServerClass,
    layout: UpdateLayout,
    values: &Values,
) -> Result<(), EntityError> {
    // Each prop that has a value, with its index and flat prop (values past the class's
    // props are not sent).
    let sent = || {
        values
            .iter()
            .zip(&class.props)
            .enumerate()
            .filter_map(|(i, (v, prop))| Some((i, prop, v.as_ref()?)))
    };
    let value = |w: &mut BitWriter, prop: &FlatProp, v: &Value| encode(w, &prop.def, v);
    let mut last: i64 = -1;
    let step = |index: usize, last: i64| (index as i64 - last - 1) as u32;
    if layout.indices_first || layout.field_indexes {
        if layout.new_way_bit {
            w.write_bool(false);
        }
        for (i, prop, v) in sent() {
            write_field_step(w, step(i, last));
            last = i as i64;
            if !layout.indices_first {
                value(w, prop, v)?;
            }
        }
        write_field_step(w, FIELD_INDEX_END);
        if layout.indices_first {
            for (_, prop, v) in sent() {
                value(w, prop, v)?;
            }
        }
    } else {
        for (i, prop, v) in sent() {
            w.write_bool(true);
            if layout.unary {
                write_unary_ubitvar(w, step(i, last));
            } else {
                w.write_ubitvar(step(i, last));
            }
            last = i as i64;
            value(w, prop, v)?;
        }
        w.write_bool(false);
    }
    Ok(())
}

/// One entity of an update [`write_update`] writes.
#[derive(Debug, Clone, Copy)]
pub enum EntityWrite<'a> {
    /// It enters the PVS: its class, serial and every prop that has a value.
    Enter {
        /// The class id.
        class: u16,
        /// The serial number.
        serial: u16,
        /// The props.
        values: &'a Values,
    },
    /// Props of an entity in the PVS change: every prop of `values` that has a value.
    Change {
        /// The entity's class id.
        class: u16,
        /// The props.
        values: &'a Values,
    },
    /// It leaves the PVS, kept dormant.
    Leave,
}

/// Writes the data of an `svc_PacketEntities` as [`EntityState::apply`] reads it: the
/// entities of `entities`, in increasing index order, and for a delta update an empty list
/// of explicit deletes. Returns the data and the number of entities.
pub fn write_update(
    classes: &ServerClasses,
    entities: &[(usize, EntityWrite<'_>)],
    delta: bool,
) -> Result<(Bits, u16), EntityError> {
    let layout = UpdateLayout::of(classes.protocol);
    let mut w = BitWriter::new();
    let mut last: i64 = -1;
    for &(index, ref entity) in entities {
        let step = (index as i64 - last - 1) as u32;
        last = index as i64;
        if layout.field_indexes {
            write_ubitint(&mut w, step);
        } else if layout.unary {
            write_unary_ubitvar(&mut w, step);
        } else {
            w.write_ubitvar(step);
        }
        // The props of an entering or changed entity follow its class's flat list.
        let class_of = |class: u16| {
            classes.by_id(class).ok_or_else(|| {
                EntityError::new(
                    0,
                    EntityErrorKind::NoClass {
                        class: u32::from(class),
                    },
                )
            })
        };
        match *entity {
            EntityWrite::Enter {
                class,
                serial,
                values,
            } => {
                w.write(2, 2);
                w.write(u32::from(class), classes.class_bits());
                w.write(u32::from(serial), SERIAL_BITS);
                write_props(&mut w, class_of(class)?, layout, values)?;
            }
            EntityWrite::Change { class, values } => {
                w.write(0, 2);
                write_props(&mut w, class_of(class)?, layout, values)?;
            }
            EntityWrite::Leave => w.write(1, 2),
        }
    }
    if delta {
        if layout.counted_deletes {
            write_ubitint(&mut w, 0);
        } else {
            w.write_bool(false);
        }
    }
    let count = u16::try_from(entities.len()).map_err(|_| {
        EntityError::new(
            0,
            EntityErrorKind::EntityIndex {
                index: entities.len() as u64,
            },
        )
    })?;
    Ok((w.finish(), count))
}

/// Decodes a class baseline (an `instancebaseline` entry's data): one prop list that
/// fills the bits up to the last byte's padding.
pub fn decode_baseline(
    data: &Bits,
    class: &ServerClass,
    protocol: Protocol,
) -> Result<Values, EntityError> {
    let mut values = vec![None; class.props.len()];
    let mut r = data.reader();
    read_props(&mut r, class, UpdateLayout::of(protocol), |i, v| {
        if let Some(value) = values.get_mut(i) {
            *value = Some(v);
        }
    })?;
    if r.remaining() >= 8 {
        return Err(EntityError::new(
            r.position(),
            EntityErrorKind::LeftOver {
                bits: r.remaining(),
            },
        ));
    }
    Ok(values)
}

/// The entities a demo's updates have built, with their baselines.
#[derive(Debug, Clone)]
pub struct EntityState {
    entities: Vec<Option<Entity>>,
    instance_baselines: [Vec<Option<Baseline>>; 2],
    /// The slot the last update that set `update_baseline` wrote.
    newer_baseline: Option<usize>,
    class_baselines: HashMap<u16, (Bits, Arc<Values>)>,
    updates: u32,
    touched: Vec<(usize, EntityChange)>,
}

/// What the last update did to one entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum EntityChange {
    /// It entered the PVS (or was created), from a baseline and the props sent.
    Entered,
    /// Some of its props were sent.
    Changed,
    /// It left the PVS and is kept, dormant.
    Left,
    /// It was deleted.
    Deleted,
}

impl Default for EntityState {
    fn default() -> Self {
        Self::new()
    }
}

impl EntityState {
    /// No entities.
    pub fn new() -> Self {
        EntityState {
            entities: vec![None; MAX_ENTITIES],
            instance_baselines: [vec![None; MAX_ENTITIES], vec![None; MAX_ENTITIES]],
            newer_baseline: None,
            class_baselines: HashMap::new(),
            updates: 0,
            touched: Vec::new(),
        }
    }

    /// The entity at `index`.
    pub fn entity(&self, index: usize) -> Option<&Entity> {
        self.entities.get(index)?.as_ref()
    }

    /// Every entity held, with its index.
    pub fn entities(&self) -> impl Iterator<Item = (usize, &Entity)> {
        self.entities
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((i, e.as_ref()?)))
    }

    /// The instance baselines of slot `slot` (0 or 1): each entity index with its class
    /// and values.
    pub fn baselines(&self, slot: usize) -> impl Iterator<Item = (usize, u16, &Values)> {
        self.baseline_slot(slot)
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.as_ref().map(|b| (i, b.class, b.values.as_ref())))
    }

    /// Instance baseline slot `slot & 1`.
    fn baseline_slot(&self, slot: usize) -> &[Option<Baseline>] {
        let [even, odd] = &self.instance_baselines;
        if slot & 1 == 0 { even } else { odd }
    }

    /// [`baseline_slot`](Self::baseline_slot), to change.
    fn baseline_slot_mut(&mut self, slot: usize) -> &mut [Option<Baseline>] {
        let [even, odd] = &mut self.instance_baselines;
        if slot & 1 == 0 { even } else { odd }
    }

    /// The slot the last update with `update_baseline` wrote (the other is older), if any
    /// did.
    pub fn newer_baseline(&self) -> Option<usize> {
        self.newer_baseline
    }

    /// How many updates have been applied (the number [`Entity::changed`] counts in).
    pub fn updates(&self) -> u32 {
        self.updates
    }

    /// The entities the last [`apply`](Self::apply) touched, in the order it did, and
    /// what it did to each. A changed or entered entity's props sent by that update are
    /// those whose [`Entity::changed`] is [`updates`](Self::updates).
    pub fn touched(&self) -> &[(usize, EntityChange)] {
        &self.touched
    }

    /// Applies one `svc_PacketEntities`. `baselines` is the `instancebaseline` string
    /// table. The update must use exactly its bits.
    ///
    /// The layout follows `classes.protocol`, the protocol the data tables were read
    /// with: Left 4 Dead 2's build, which decides the form of explicit deletes, comes from
    /// a `svc_Print` of the signon, before the data tables frame.
    pub fn apply(
        &mut self,
        message: &PacketEntities,
        classes: &ServerClasses,
        baselines: Option<&StringTable>,
    ) -> Result<UpdateCounts, EntityError> {
        let layout = UpdateLayout::of(classes.protocol);
        let mut counts = UpdateCounts::default();
        self.updates = self.updates.wrapping_add(1);
        let stamp = self.updates;
        self.touched.clear();
        let delta = message.delta_from.is_some();
        if !delta {
            // A full update holds every entity there is.
            self.entities.iter_mut().for_each(|e| *e = None);
        }
        let from = usize::from(message.baseline);
        let to = 1 - from;
        if message.update_baseline {
            self.newer_baseline = Some(to);
            let [a, b] = &mut self.instance_baselines;
            if from == 0 {
                b.clone_from(a);
            } else {
                a.clone_from(b);
            }
        }
        let mut r = message.data.reader();
        let class_bits = classes.class_bits();
        let mut index: i64 = -1;
        for _ in 0..message.updated {
            let at = r.position();
            let step = if layout.field_indexes {
                read_ubitint(&mut r)?
            } else if layout.unary {
                read_unary_ubitvar(&mut r)?
            } else {
                r.read_ubitvar()?
            };
            index += i64::from(step) + 1;
            let i = usize::try_from(index)
                .ok()
                .filter(|&i| i < MAX_ENTITIES)
                .ok_or_else(|| {
                    EntityError::new(
                        at,
                        EntityErrorKind::EntityIndex {
                            index: index as u64,
                        },
                    )
                })?;
            match r.read(2)? {
                0 => {
                    let entity = self.entities.get_mut(i).and_then(Option::as_mut);
                    let entity = entity.ok_or_else(|| {
                        EntityError::new(at, EntityErrorKind::NoEntity { index: i as u32 })
                    })?;
                    let class = classes.by_id(entity.class).ok_or_else(|| {
                        EntityError::new(
                            at,
                            EntityErrorKind::NoClass {
                                class: u32::from(entity.class),
                            },
                        )
                    })?;
                    // Both lists have a slot for each of the class's props.
                    read_props(&mut r, class, layout, |p, v| {
                        if let Some(value) = entity.values.get_mut(p) {
                            *value = Some(v);
                        }
                        if let Some(changed) = entity.changed.get_mut(p) {
                            *changed = stamp;
                        }
                    })?;
                    counts.changed += 1;
                    self.touched.push((i, EntityChange::Changed));
                }
                2 => {
                    let class_at = r.position();
                    let id = r.read(class_bits)?;
                    let serial = r.read(SERIAL_BITS)? as u16;
                    let class = u16::try_from(id)
                        .ok()
                        .and_then(|id| classes.by_id(id))
                        .ok_or_else(|| {
                            EntityError::new(class_at, EntityErrorKind::NoClass { class: id })
                        })?;
                    let instance = (self.baseline_slot(from).get(i))
                        .and_then(Option::as_ref)
                        .filter(|b| delta && b.class == class.id)
                        .map(|b| b.values.clone());
                    let base = match instance {
                        Some(values) => values,
                        None => self.class_baseline(class, classes, baselines, &mut counts)?,
                    };
                    let mut values: Values = base.as_ref().clone();
                    values.resize(class.props.len(), None);
                    let mut changed = vec![0; class.props.len()];
                    read_props(&mut r, class, layout, |p, v| {
                        if let Some(value) = values.get_mut(p) {
                            *value = Some(v);
                        }
                        if let Some(changed) = changed.get_mut(p) {
                            *changed = stamp;
                        }
                    })?;
                    if message.update_baseline
                        && let Some(baseline) = self.baseline_slot_mut(to).get_mut(i)
                    {
                        *baseline = Some(Baseline {
                            class: class.id,
                            values: Arc::new(values.clone()),
                        });
                    }
                    if let Some(slot) = self.entities.get_mut(i) {
                        *slot = Some(Entity {
                            class: class.id,
                            serial,
                            in_pvs: true,
                            values,
                            changed,
                        });
                    }
                    counts.entered += 1;
                    self.touched.push((i, EntityChange::Entered));
                }
                1 => {
                    if let Some(Some(e)) = self.entities.get_mut(i) {
                        e.in_pvs = false;
                    }
                    counts.left += 1;
                    self.touched.push((i, EntityChange::Left));
                }
                _ => {
                    if let Some(slot) = self.entities.get_mut(i) {
                        *slot = None;
                    }
                    counts.left += 1;
                    counts.deleted += 1;
                    self.touched.push((i, EntityChange::Deleted));
                }
            }
        }
        if delta {
            if layout.counted_deletes {
                let n = read_ubitint(&mut r)?;
                let mut index: i64 = -1;
                // Each step takes at least six bits: the count cannot outrun the data.
                for _ in 0..n {
                    index += i64::from(read_ubitint(&mut r)?);
                    self.delete(index, &mut counts);
                }
            } else {
                while r.read_bool()? {
                    let index = r.read(DELETE_INDEX_BITS)?;
                    self.delete(i64::from(index), &mut counts);
                }
            }
        }
        if r.remaining() != 0 && !(layout.byte_padded && r.remaining() < 8) {
            return Err(EntityError::new(
                r.position(),
                EntityErrorKind::LeftOver {
                    bits: r.remaining(),
                },
            ));
        }
        Ok(counts)
    }

    fn delete(&mut self, index: i64, counts: &mut UpdateCounts) {
        if let Some(e) = usize::try_from(index)
            .ok()
            .and_then(|i| self.entities.get_mut(i))
            && e.take().is_some()
        {
            counts.deleted += 1;
            self.touched.push((index as usize, EntityChange::Deleted));
        }
    }

    /// The baseline of `class` from the `instancebaseline` table, decoded when its bytes
    /// are new; no values when the table has none.
    fn class_baseline(
        &mut self,
        class: &ServerClass,
        classes: &ServerClasses,
        table: Option<&StringTable>,
        counts: &mut UpdateCounts,
    ) -> Result<Arc<Values>, EntityError> {
        let key = class.id.to_string();
        let data = table.and_then(|t| {
            t.entries
                .iter()
                .rev()
                .find(|e| e.string.as_bytes() == key.as_bytes())
                .and_then(|e| e.user_data.as_ref())
        });
        let Some(data) = data else {
            return Ok(Arc::new(Vec::new()));
        };
        if let Some((raw, values)) = self.class_baselines.get(&class.id)
            && raw == data
        {
            return Ok(values.clone());
        }
        let values = Arc::new(decode_baseline(data, class, classes.protocol)?);
        counts.baselines += 1;
        self.class_baselines
            .insert(class.id, (data.clone(), values.clone()));
        Ok(values)
    }
}

/// One temporary entity of an `svc_TempEntities`: an effect with its class and props.
#[derive(Debug, Clone, PartialEq)]
pub struct TempEntity {
    /// The delay before the effect, in hundredths of a second.
    pub delay: Option<u8>,
    /// The server class id.
    pub class: u16,
    /// The props sent, by flat index.
    pub props: Vec<(usize, Value)>,
}

/// Decodes the data of an `svc_TempEntities` of `count` entries (0: one reliable entry).
/// Each entry names its class, or repeats the one before; its props are a prop list as
/// entity updates send them. The data must be used to its last bit.
pub fn temp_entities(
    count: u8,
    data: &Bits,
    classes: &ServerClasses,
) -> Result<Vec<TempEntity>, EntityError> {
    let layout = UpdateLayout::of(classes.protocol);
    let class_bits = classes.class_bits();
    let mut r = data.reader();
    let mut out = Vec::new();
    let mut class: Option<&ServerClass> = None;
    for _ in 0..count.max(1) {
        let delay = if r.read_bool()? {
            Some(r.read(8)? as u8)
        } else {
            None
        };
        if r.read_bool()? {
            // The class id plus one.
            let at = r.position();
            let id = r.read(class_bits)?;
            class = id
                .checked_sub(1)
                .and_then(|id| u16::try_from(id).ok())
                .and_then(|id| classes.by_id(id));
            if class.is_none() {
                return Err(EntityError::new(at, EntityErrorKind::NoClass { class: id }));
            }
        }
        let class = class.ok_or_else(|| {
            EntityError::new(
                r.position(),
                EntityErrorKind::Invalid {
                    what: "a temporary entity with no class",
                },
            )
        })?;
        let mut props = Vec::new();
        read_props(&mut r, class, layout, |i, v| props.push((i, v)))?;
        out.push(TempEntity {
            delay,
            class: class.id,
            props,
        });
    }
    // CS:GO's data is whole bytes, and a reliable message's fills a fixed buffer: zero
    // bytes after the entries are padding.
    let padding = |mut r: BitReader<'_>| {
        r.remaining() < 8
            || r.read_bits(r.remaining())
                .is_ok_and(|rest| rest.as_bytes().iter().all(|&b| b == 0))
    };
    if r.remaining() != 0 && !(layout.byte_padded && padding(r)) {
        return Err(EntityError::new(
            r.position(),
            EntityErrorKind::LeftOver {
                bits: r.remaining(),
            },
        ));
    }
    Ok(out)
}
