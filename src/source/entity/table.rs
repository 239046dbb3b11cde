//! The `dem_datatables` frame: every send table with its props, then the server classes,
//! laid out once for both directions through the network layer's [`Coder`].
//!
//! The frame's widths differ by branch (13, 16 or 19 flag bits, a priority byte or not, 6
//! or 7 bits of a prop's bit count, a type table with or without `VectorXY`); the props
//! keep their raw type and flags so that the frame encodes back to its bytes, and
//! [`SendProp::kind`] and [`SendProp::flags`] give them in one numbering for every branch.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use crate::codec::bits::Bits;
use crate::source::net::csgo::pb;
use crate::source::net::{
    Branch, Coder, Length, MessageKind, NetError, NetErrorKind, NetStr, ProtoMessage, Protocol,
};

/// What a branch's data tables frame looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableWidths {
    /// Bits of a table's prop count: 9 in the 2004 engine, 10 after.
    pub prop_count_bits: u32,
    /// Bits of a prop's flags: 13 (2004 engine), 16 (Orange Box, Source 2013, Left 4
    /// Dead) or 19 (Left 4 Dead 2, Portal 2).
    pub flag_bits: u32,
    /// Whether a prop has a priority byte (Left 4 Dead 2, Portal 2).
    pub priority: bool,
    /// Bits of a prop's bit count: 6 up to network protocol 14 and in both Left 4 Dead
    /// games, 7 elsewhere.
    pub numbits_bits: u32,
    /// Whether the type table is the old one without `VectorXY` (network protocol 14 and
    /// older).
    pub old_types: bool,
    /// Whether an `Int` prop with the `NORMAL` flag is a varint (Source 2013, network
    /// protocol 24, where the flag means `VARINT`).
    pub int_varint: bool,
    /// CS:GO: the tables are protobuf messages, and flag bit 19 (past Portal 2's 19
    /// flags) is `VARINT`, for `Int` and `Int64` props.
    pub csgo: bool,
}

impl TableWidths {
    /// The widths of `p`'s branch.
    pub const fn of(p: Protocol) -> Self {
        let classic = matches!(p.branch, Branch::Classic);
        let l4d = matches!(p.branch, Branch::Left4Dead | Branch::Left4Dead2);
        TableWidths {
            prop_count_bits: if classic && p.network <= 7 { 9 } else { 10 },
            flag_bits: match p.branch {
                Branch::Classic if p.network <= 7 => 13,
                Branch::Classic | Branch::Left4Dead => 16,
                Branch::Left4Dead2 | Branch::Portal2 | Branch::CsGo => 19,
            },
            priority: matches!(
                p.branch,
                Branch::Left4Dead2 | Branch::Portal2 | Branch::CsGo
            ),
            numbits_bits: if (classic && p.network <= 14) || l4d {
                6
            } else {
                7
            },
            old_types: classic && p.network <= 14,
            int_varint: classic && p.network >= 24,
            csgo: matches!(p.branch, Branch::CsGo),
        }
    }
}

/// A send prop's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum PropKind {
    /// An integer of up to 32 bits.
    Int,
    /// A float.
    Float,
    /// Three floats.
    Vector,
    /// Two floats (the third is a prop of its own).
    VectorXY,
    /// A string of at most 511 bytes.
    String,
    /// Elements of the prop before it in its table.
    Array,
    /// A link to another send table.
    DataTable,
    /// A 64-bit integer.
    Int64,
    /// A type number the branch does not have.
    Unknown(u8),
}

impl PropKind {
    /// The type numbered `raw` on a branch with the old (`old == true`) or new type table.
    pub const fn of(raw: u8, old: bool) -> Self {
        match (raw, old) {
            (0, _) => PropKind::Int,
            (1, _) => PropKind::Float,
            (2, _) => PropKind::Vector,
            (3, true) => PropKind::String,
            (4, true) => PropKind::Array,
            (5, true) => PropKind::DataTable,
            (3, false) => PropKind::VectorXY,
            (4, false) => PropKind::String,
            (5, false) => PropKind::Array,
            (6, false) => PropKind::DataTable,
            (7, false) => PropKind::Int64,
            _ => PropKind::Unknown(raw),
        }
    }
}

/// A prop's flags in one numbering for every branch (the Source 2013 one, with Left 4
/// Dead 2's cell coordinates after it and the varint flag last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PropFlags(pub u32);

impl PropFlags {
    /// An unsigned integer.
    pub const UNSIGNED: u32 = 1 << 0;
    /// A world coordinate (`bf_read::ReadBitCoord`).
    pub const COORD: u32 = 1 << 1;
    /// A float sent as its 32 bits.
    pub const NOSCALE: u32 = 1 << 2;
    /// Rounded down (the server has folded it into low and high).
    pub const ROUNDDOWN: u32 = 1 << 3;
    /// Rounded up (the server has folded it into low and high).
    pub const ROUNDUP: u32 = 1 << 4;
    /// A normal (a float in -1..1; on Source 2013 ints the varint flag).
    pub const NORMAL: u32 = 1 << 5;
    /// Not a prop: removes the named prop of another table.
    pub const EXCLUDE: u32 = 1 << 6;
    /// Unused.
    pub const XYZE: u32 = 1 << 7;
    /// The element of the array prop after it; never flattened itself.
    pub const INSIDEARRAY: u32 = 1 << 8;
    /// Unused on the client.
    pub const PROXY_ALWAYS_YES: u32 = 1 << 9;
    /// Sorted to the front of the flat list.
    pub const CHANGES_OFTEN: u32 = 1 << 10;
    /// A component of a vector sent as three props.
    pub const IS_A_VECTOR_ELEM: u32 = 1 << 11;
    /// A data table whose props join the enclosing table's.
    pub const COLLAPSIBLE: u32 = 1 << 12;
    /// A multiplayer coordinate.
    pub const COORD_MP: u32 = 1 << 13;
    /// A multiplayer coordinate with 3 fraction bits.
    pub const COORD_MP_LOWPRECISION: u32 = 1 << 14;
    /// A multiplayer coordinate without fraction.
    pub const COORD_MP_INTEGRAL: u32 = 1 << 15;
    /// An offset inside a cell (Left 4 Dead 2, Portal 2).
    pub const CELL_COORD: u32 = 1 << 16;
    /// A cell offset with 3 fraction bits.
    pub const CELL_COORD_LOWPRECISION: u32 = 1 << 17;
    /// A cell offset without fraction.
    pub const CELL_COORD_INTEGRAL: u32 = 1 << 18;

    /// Whether every flag of `flags` is set.
    pub const fn has(self, flags: u32) -> bool {
        self.0 & flags == flags
    }

    /// The flags a branch writes as `raw` with `widths.flag_bits` bits.
    pub const fn of(raw: u32, widths: TableWidths) -> Self {
        if widths.flag_bits < 19 {
            // The 2004 engine's 13 flags and the 16 of the Orange Box line are this
            // numbering's first bits.
            return PropFlags(raw);
        }
        // Left 4 Dead 2 and Portal 2 moved CHANGES_OFTEN to the top and everything after
        // PROXY_ALWAYS_YES down by one.
        let low = raw & 0x3ff;
        let moved = (raw >> 10) & 0xff; // bits 10..17 -> 11..18
        let often = (raw >> 18) & 1;
        PropFlags(low | moved << 11 | often << 10)
    }
}

/// One prop of a send table, as the frame stores it.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SendProp {
    /// The type number (see [`SendProp::kind`]).
    pub raw_kind: u8,
    /// The prop's name.
    pub name: NetStr,
    /// The flags as the branch numbers them (see [`SendProp::flags`]).
    pub raw_flags: u32,
    /// The priority (Left 4 Dead 2 and Portal 2; 0 elsewhere).
    pub priority: u8,
    /// For a data table: the table it links to; for an exclude: the table of the prop it
    /// removes.
    pub table: NetStr,
    /// For an array: the number of elements.
    pub elements: u16,
    /// The low end of a quantized float's range.
    pub low: f32,
    /// The high end.
    pub high: f32,
    /// The number of bits.
    pub bits: u8,
}

impl SendProp {
    /// The prop's type.
    pub fn kind(&self, widths: TableWidths) -> PropKind {
        PropKind::of(self.raw_kind, widths.old_types)
    }

    /// The prop's flags.
    pub fn flags(&self, widths: TableWidths) -> PropFlags {
        PropFlags::of(self.raw_flags, widths)
    }

    fn code<C: Coder>(&mut self, c: &mut C, w: TableWidths) -> Result<(), NetError> {
        c.uint(&mut self.raw_kind, 5)?;
        c.string(&mut self.name)?;
        c.uint(&mut self.raw_flags, w.flag_bits)?;
        if w.priority {
            c.uint(&mut self.priority, 8)?;
        }
        // What follows depends on the type and flags just read.
        if self.kind(w) == PropKind::DataTable || self.flags(w).has(PropFlags::EXCLUDE) {
            c.string(&mut self.table)
        } else if self.kind(w) == PropKind::Array {
            c.uint(&mut self.elements, 10)
        } else {
            c.f32(&mut self.low)?;
            c.f32(&mut self.high)?;
            c.uint(&mut self.bits, w.numbits_bits)
        }
    }
}

/// One send table.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SendTable {
    /// Whether the client needs a decoder for it (a class's root table).
    pub needs_decoder: bool,
    /// Its name, e.g. `DT_BaseEntity`.
    pub name: NetStr,
    /// Its props in declared order.
    pub props: Vec<SendProp>,
}

/// One server class: an id, its name and the name of its root send table.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClassEntry {
    /// The class id entity updates use.
    pub id: u16,
    /// The class name, e.g. `CTFPlayer`.
    pub name: NetStr,
    /// The root send table's name, e.g. `DT_TFPlayer`.
    pub table: NetStr,
}

/// The `dem_datatables` frame.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DataTables {
    /// The send tables, in the order sent.
    pub tables: Vec<SendTable>,
    /// The server classes.
    pub classes: Vec<ClassEntry>,
    /// The bits after the class list (the last byte's padding).
    pub tail: Bits,
    /// CS:GO: the `svc_SendTable` protobuf messages the tables were decoded from, the
    /// last one the empty table that ends them, kept byte for byte; the encoder writes
    /// these (not `tables`).
    pub proto_tables: Vec<ProtoMessage>,
}

impl DataTables {
    /// Decodes (or encodes) the frame's data as `p`'s branch lays it out.
    pub fn code<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        let w = TableWidths::of(p);
        if p.is_protobuf() {
            self.code_protobuf(c, p)?;
        } else if C::READING {
            // Each table is announced by a set bit; a clear bit ends them. Every table
            // takes bits of the input, so the list cannot outgrow it.
            self.tables.clear();
            loop {
                let mut more = false;
                c.bool(&mut more)?;
                if !more {
                    break;
                }
                let mut table = SendTable::default();
                code_table(c, &mut table, w)?;
                self.tables.push(table);
            }
        } else {
            for table in &mut self.tables {
                c.bool(&mut true)?;
                code_table(c, table, w)?;
            }
            c.bool(&mut false)?;
        }
        // The server classes: the same in every branch.
        let mut count = self.classes.len() as u16;
        c.uint(&mut count, 16)?;
        c.list(&mut self.classes, usize::from(count), |c, class| {
            c.uint(&mut class.id, 16)?;
            c.string(&mut class.name)?;
            c.string(&mut class.table)
        })?;
        c.bits(&mut self.tail, Length::Rest)
    }

    /// CS:GO's tables: `svc_SendTable` protobuf messages, each behind its message number
    /// and size as in a packet, until one with `is_end` set.
    fn code_protobuf<C: Coder>(&mut self, c: &mut C, p: Protocol) -> Result<(), NetError> {
        if !C::READING {
            for table in &self.proto_tables {
                let mut number = p.number(table.kind).unwrap_or(u32::MAX);
                c.varint32(&mut number)?;
                table.clone().code(c)?;
            }
            return Ok(());
        }
        self.tables.clear();
        self.proto_tables.clear();
        loop {
            let at = c.position();
            let mut number = 0u32;
            c.varint32(&mut number)?;
            if p.kind(number) != Some(MessageKind::SendTable) {
                return Err(NetError::new(
                    at,
                    NetErrorKind::Invalid {
                        what: "a message other than svc_SendTable among CS:GO's data tables",
                    },
                ));
            }
            let mut message = ProtoMessage::new(MessageKind::SendTable);
            message.code(c)?;
            let table: pb::SendTable = message.decode()?;
            self.proto_tables.push(message);
            if table.is_end.unwrap_or(false) {
                return Ok(());
            }
            self.tables.push(send_table_of(table));
        }
    }

    /// The frame decoded from its bytes.
    pub fn decode(data: &[u8], p: Protocol) -> Result<Self, NetError> {
        let mut frame = DataTables::default();
        let mut decoder =
            crate::source::net::Decoder::new(crate::codec::bits::BitReader::new(data));
        frame.code(&mut decoder, p)?;
        Ok(frame)
    }

    /// The frame's bytes.
    pub fn encode(&self, p: Protocol) -> Result<Vec<u8>, NetError> {
        let mut encoder = crate::source::net::Encoder::default();
        self.clone().code(&mut encoder, p)?;
        Ok(encoder.into_writer().into_bytes())
    }
}

fn code_table<C: Coder>(c: &mut C, table: &mut SendTable, w: TableWidths) -> Result<(), NetError> {
    c.bool(&mut table.needs_decoder)?;
    c.string(&mut table.name)?;
    let mut count = table.props.len() as u32;
    c.uint(&mut count, w.prop_count_bits)?;
    c.list(&mut table.props, count as usize, |c, prop| prop.code(c, w))
}

/// A CS:GO protobuf send table as the bit-layout branches' tables (widths that do not fit
/// are cut: the engine's own fields are no wider).
fn send_table_of(t: pb::SendTable) -> SendTable {
    let text = |s: Option<Vec<u8>>| {
        let mut b = s.unwrap_or_default();
        if let Some(nul) = b.iter().position(|&x| x == 0) {
            b.truncate(nul);
        }
        crate::codec::string::NulStr(b)
    };
    SendTable {
        needs_decoder: t.needs_decoder.unwrap_or(false),
        name: text(t.net_table_name),
        props: t
            .props
            .into_iter()
            .map(|p| SendProp {
                raw_kind: p.r#type.unwrap_or(0) as u8,
                name: text(p.var_name),
                raw_flags: p.flags.unwrap_or(0) as u32,
                priority: p.priority.unwrap_or(0) as u8,
                table: text(p.dt_name),
                elements: p.num_elements.unwrap_or(0) as u16,
                low: p.low_value.unwrap_or(0.0),
                high: p.high_value.unwrap_or(0.0),
                bits: p.num_bits.unwrap_or(0) as u8,
            })
            .collect(),
    }
}
