//! Server classes and their flat prop lists: the order in which an entity update numbers
//! a class's props.
//!
//! Flattening follows the engine's `SendTable_BuildHierarchy` as every branch does it: the
//! excluded props of the whole tree are gathered first; a table's own props come after
//! those of the non-collapsible tables it links to, a collapsible table's props join its
//! parent's; then the props that change often move to the front (Left 4 Dead 2 and
//! Portal 2 order by priority instead). The sort swaps in place and is not stable, and
//! the wire numbers depend on its exact swaps, so it is reproduced swap for swap.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{EntityError, EntityErrorKind};
use super::player::{OriginLayout, PlayerProps};
use super::table::{DataTables, PropFlags, PropKind, SendProp, TableWidths};
use crate::source::net::Protocol;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// The most props a class flattens to (`MAX_TOTAL_SENDTABLE_PROPS`): more could not be
/// numbered by an update, and a tree that links a table many times could otherwise grow
/// without bound.
pub const MAX_FLAT_PROPS: usize = 4096;
/// The most props all classes together flatten to (TF2's 363 classes have 54,000): a
/// frame of thousands of classes that each reach the limit above would take gigabytes.
pub const MAX_TOTAL_FLAT_PROPS: usize = 1 << 18;
/// The most table links all classes together walk.
const MAX_TOTAL_VISITS: usize = 1 << 20;

/// CS:GO's `SPROP_VARINT`, the flag after Portal 2's 19.
const CSGO_VARINT: u32 = 1 << 19;

/// How a flat prop's value is sent: its type, flags and range, resolved for the branch.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PropDef {
    /// The type.
    pub kind: PropKind,
    /// The flags, in the common numbering.
    pub flags: PropFlags,
    /// Whether an `Int` is a varint (Source 2013's `VARINT`).
    pub varint: bool,
    /// The low end of a quantized float's range.
    pub low: f32,
    /// The high end.
    pub high: f32,
    /// The number of bits.
    pub bits: u32,
    /// For an array: the number of elements.
    pub elements: u32,
    /// For an array: how each element is sent.
    pub element: Option<Box<PropDef>>,
}

impl PropDef {
    /// The definition of `prop` as branch `w` sends it (an array's element is given apart).
    pub fn of(prop: &SendProp, w: TableWidths) -> Self {
        let kind = prop.kind(w);
        let flags = prop.flags(w);
        PropDef {
            kind,
            flags,
            varint: (w.int_varint && kind == PropKind::Int && flags.has(PropFlags::NORMAL))
                || (w.csgo
                    && matches!(kind, PropKind::Int | PropKind::Int64)
                    && prop.raw_flags & CSGO_VARINT != 0),
            low: prop.low,
            high: prop.high,
            bits: u32::from(prop.bits),
            elements: u32::from(prop.elements),
            element: None,
        }
    }
}

/// One prop of a class's flat list.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FlatProp {
    /// The index of the send table that declares it.
    pub table: usize,
    /// Its index among that table's props.
    pub prop: usize,
    /// How its value is sent.
    pub def: PropDef,
    /// Its priority (Left 4 Dead 2 and Portal 2).
    pub priority: u8,
}

/// One server class with its flat prop list.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerClass {
    /// The class id.
    pub id: u16,
    /// The class name (shared: every player entity handed out names its class).
    pub name: std::sync::Arc<str>,
    /// The index of its root send table.
    pub table: usize,
    /// Its props in wire order.
    pub props: Vec<FlatProp>,
    /// Where its origin is.
    pub origin: OriginLayout,
    /// Where its player props are, when it is a player class.
    pub player: Option<PlayerProps>,
}

/// Every server class of a demo, flattened, with the send tables they name.
#[derive(Debug, Clone)]
pub struct ServerClasses {
    /// The data tables frame the classes come from.
    pub tables: DataTables,
    /// The classes in the frame's order.
    pub classes: Vec<ServerClass>,
    /// The branch's table widths.
    pub widths: TableWidths,
    /// The protocol the frame was read with.
    pub protocol: Protocol,
    by_id: HashMap<u16, usize>,
}

impl ServerClass {
    /// The props of which several copies write one client variable (the origin's copies,
    /// the eye angles'): the value shown is the copy written last, by update and then by
    /// flat order ([`OriginLayout::origin`](super::player::OriginLayout::origin)), so a
    /// writer of updates must keep the order in which they were written. Empty when the
    /// class has one copy of each.
    pub fn written_in_order(&self) -> Vec<usize> {
        let mut props = Vec::new();
        if self.origin.origins.len() > 1 {
            props.extend(self.origin.props());
        }
        if let Some(player) = &self.player
            && player.angles.len() > 1
        {
            props.extend(player.angle_props());
        }
        props.sort_unstable();
        props.dedup();
        props
    }
}

impl ServerClasses {
    /// Flattens every class of `tables`.
    pub fn new(tables: DataTables, protocol: Protocol) -> Result<Self, EntityError> {
        let widths = TableWidths::of(protocol);
        let by_name: HashMap<&[u8], usize> = tables
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_bytes(), i))
            .collect();
        let mut classes = Vec::with_capacity(tables.classes.len());
        let mut by_id = HashMap::default();
        let mut budget = Budget {
            props: MAX_TOTAL_FLAT_PROPS,
            visits: MAX_TOTAL_VISITS,
        };
        // What each class's flattening needs besides its result, kept from one class to
        // the next (hundreds of classes: their allocations were a fifth of the time).
        let mut scratch = Scratch::default();
        for (i, class) in tables.classes.iter().enumerate() {
            let root = *by_name.get(class.table.as_bytes()).ok_or_else(|| {
                EntityError::new(0, EntityErrorKind::NoTable(lossy(class.table.as_bytes())))
            })?;
            let props = flatten(&tables, &by_name, root, widths, &mut budget, &mut scratch)?;
            by_id.insert(class.id, i);
            classes.push(ServerClass {
                id: class.id,
                name: lossy(class.name.as_bytes()).into(),
                table: root,
                props,
                origin: OriginLayout::default(),
                player: None,
            });
        }
        let mut all = ServerClasses {
            tables,
            classes,
            widths,
            protocol,
            by_id,
        };
        // Found with every class in place, then stored.
        let found: Vec<_> = (all.classes.iter().enumerate())
            .map(|(i, class)| (OriginLayout::of(&all, class), PlayerProps::of(&all, i)))
            .collect();
        for (class, (origin, player)) in all.classes.iter_mut().zip(found) {
            class.origin = origin;
            class.player = player;
        }
        Ok(all)
    }

    /// The class with id `id`.
    pub fn by_id(&self, id: u16) -> Option<&ServerClass> {
        self.by_id.get(&id).and_then(|&i| self.classes.get(i))
    }

    /// The class named `name`.
    pub fn by_name(&self, name: &str) -> Option<&ServerClass> {
        self.classes.iter().find(|c| &*c.name == name)
    }

    /// Bits of a class id in an entity update (`Q_log2(count) + 1`).
    pub fn class_bits(&self) -> u32 {
        crate::source::net::message::log2(self.classes.len() as u32) + 1
    }

    /// The send prop a flat prop comes from; `None` for a prop these classes did not
    /// flatten (its indexes are past their tables).
    pub fn send_prop(&self, prop: &FlatProp) -> Option<&SendProp> {
        self.tables.tables.get(prop.table)?.props.get(prop.prop)
    }

    /// The name of the table that declares a flat prop; `None` as for
    /// [`send_prop`](Self::send_prop).
    pub fn table_name(&self, prop: &FlatProp) -> Option<&[u8]> {
        Some(self.tables.tables.get(prop.table)?.name.as_bytes())
    }

    /// The index in `class`'s flat list of the prop `name` declared in table `table`
    /// (any table when `None`); the first one when there are several.
    pub fn find(&self, class: &ServerClass, table: Option<&str>, name: &str) -> Option<usize> {
        class.props.iter().position(|p| {
            self.send_prop(p)
                .is_some_and(|s| s.name.as_bytes() == name.as_bytes())
                && table.is_none_or(|t| self.table_name(p) == Some(t.as_bytes()))
        })
    }
}

/// What flattening may still take, over all classes.
struct Budget {
    props: usize,
    visits: usize,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The working space of [`flatten`], reused from class to class.
#[derive(Default)]
struct Scratch<'a> {
    excludes: HashSet<(&'a [u8], &'a [u8])>,
    seen: Vec<bool>,
    stack: Vec<usize>,
    path: Vec<usize>,
    /// Lists of a table's own props, one per level of the walk.
    locals: Vec<Vec<FlatProp>>,
}

/// Flattens the tree under table `root`.
fn flatten<'a>(
    tables: &'a DataTables,
    by_name: &HashMap<&[u8], usize>,
    root: usize,
    w: TableWidths,
    budget: &mut Budget,
    scratch: &mut Scratch<'a>,
) -> Result<Vec<FlatProp>, EntityError> {
    let lookup = |name: &[u8]| {
        by_name
            .get(name)
            .copied()
            .ok_or_else(|| EntityError::new(0, EntityErrorKind::NoTable(lossy(name))))
    };
    // The excludes of every table reachable from the root; a table met twice adds
    // nothing new, so each is visited once.
    let Scratch {
        excludes,
        seen,
        stack,
        path,
        locals,
    } = scratch;
    excludes.clear();
    seen.clear();
    seen.resize(tables.tables.len(), false);
    stack.clear();
    stack.push(root);
    while let Some(t) = stack.pop() {
        // `t` is the root or a table `lookup` found: both have a place in `seen`.
        let (Some(seen), Some(table)) = (seen.get_mut(t), tables.tables.get(t)) else {
            continue;
        };
        if std::mem::replace(seen, true) {
            continue;
        }
        for prop in &table.props {
            if prop.flags(w).has(PropFlags::EXCLUDE) {
                excludes.insert((prop.table.as_bytes(), prop.name.as_bytes()));
            } else if prop.kind(w) == PropKind::DataTable {
                stack.push(lookup(prop.table.as_bytes())?);
            }
        }
    }
    path.clear();
    let mut walk = Walk {
        tables,
        w,
        excludes,
        lookup: &lookup,
        path,
        locals,
        out: Vec::new(),
        visits: 0,
        budget,
    };
    walk.build(root)?;
    let mut out = walk.out;
    sort(&mut out, w);
    Ok(out)
}

struct Walk<'a, 's, F> {
    tables: &'a DataTables,
    w: TableWidths,
    excludes: &'s HashSet<(&'a [u8], &'a [u8])>,
    lookup: &'s F,
    /// The tables being walked, to refuse a table that links to itself.
    path: &'s mut Vec<usize>,
    /// Spare lists for the tables' own props.
    locals: &'s mut Vec<Vec<FlatProp>>,
    out: Vec<FlatProp>,
    /// Tables walked so far: a tree that links the same tables over and over could take
    /// exponential time without adding a prop.
    visits: usize,
    budget: &'s mut Budget,
}

impl<'a, F: Fn(&[u8]) -> Result<usize, EntityError>> Walk<'a, '_, F> {
    fn build(&mut self, table: usize) -> Result<(), EntityError> {
        let mut local = self.locals.pop().unwrap_or_default();
        let built = self.iterate(table, &mut local);
        self.out.append(&mut local);
        self.locals.push(local);
        built
    }

    fn iterate(&mut self, table: usize, local: &mut Vec<FlatProp>) -> Result<(), EntityError> {
        // `table` is the root or a table `lookup` found.
        let t: &'a super::table::SendTable =
            self.tables.tables.get(table).ok_or(EntityError::new(
                0,
                EntityErrorKind::Invalid {
                    what: "a send table index past the tables",
                },
            ))?;
        if self.path.contains(&table) {
            let name = t.name.as_bytes();
            return Err(EntityError::new(0, EntityErrorKind::Cycle(lossy(name))));
        }
        self.visits += 1;
        self.budget.visits = self.budget.visits.saturating_sub(1);
        if self.visits > MAX_FLAT_PROPS * 4 || self.budget.visits == 0 {
            return Err(EntityError::new(
                0,
                EntityErrorKind::Invalid {
                    what: "a class whose tables link more than 16384 times, or classes more than a million",
                },
            ));
        }
        self.path.push(table);
        for (i, prop) in t.props.iter().enumerate() {
            let flags = prop.flags(self.w);
            if flags.has(PropFlags::EXCLUDE)
                || flags.has(PropFlags::INSIDEARRAY)
                || (!self.excludes.is_empty()
                    && self
                        .excludes
                        .contains(&(t.name.as_bytes(), prop.name.as_bytes())))
            {
                continue;
            }
            match prop.kind(self.w) {
                PropKind::DataTable => {
                    let sub = (self.lookup)(prop.table.as_bytes())?;
                    if flags.has(PropFlags::COLLAPSIBLE) {
                        self.iterate(sub, local)?;
                    } else {
                        self.build(sub)?;
                    }
                }
                kind => {
                    let mut def = PropDef::of(prop, self.w);
                    if kind == PropKind::Array {
                        // The element is the prop declared just before the array.
                        let element =
                            i.checked_sub(1)
                                .and_then(|e| t.props.get(e))
                                .ok_or_else(|| {
                                    EntityError::new(
                                        0,
                                        EntityErrorKind::Invalid {
                                            what: "an array prop with no element before it",
                                        },
                                    )
                                })?;
                        def.element = Some(Box::new(PropDef::of(element, self.w)));
                    }
                    local.push(FlatProp {
                        table,
                        prop: i,
                        def,
                        priority: prop.priority,
                    });
                    self.budget.props = self.budget.props.saturating_sub(1);
                    if self.out.len() + local.len() > MAX_FLAT_PROPS || self.budget.props == 0 {
                        return Err(EntityError::new(
                            0,
                            EntityErrorKind::Invalid {
                                what: "a class with more than 4096 props, or classes with more than 262144",
                            },
                        ));
                    }
                }
            }
        }
        self.path.pop();
        Ok(())
    }
}

/// Moves the props that are sent first to the front, with the engine's exact swaps.
fn sort(props: &mut [FlatProp], w: TableWidths) {
    let often = |p: &FlatProp| p.def.flags.has(PropFlags::CHANGES_OFTEN);
    let mut start = 0;
    if w.priority {
        // Ascending priorities; CHANGES_OFTEN props go with priority 64 (the constant the
        // engine gives them) unless their own is lower.
        let mut priorities: Vec<u8> = props.iter().map(|p| p.priority).collect();
        priorities.push(64);
        priorities.sort_unstable();
        priorities.dedup();
        for priority in priorities {
            // The scan starts where the previous priority's props end.
            let first = start;
            for i in first..props.len() {
                let p = props.get(i);
                if p.is_some_and(|p| p.priority == priority || (priority == 64 && often(p))) {
                    props.swap(i, start);
                    start += 1;
                }
            }
        }
    } else {
        for i in 0..props.len() {
            if props.get(i).is_some_and(often) {
                props.swap(i, start);
                start += 1;
            }
        }
    }
}
