//! What a demo's messages build up on the client, message after message: the protocol as
//! the data refines it, the string tables and the game event descriptors.
//!
//! [`NetState`] is what the layers above (entities, players, chat, events) carry through a
//! demo. It applies the messages that change it and leaves the others alone.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::branch::Protocol;
use super::coder::Decoder;
use super::csgo;
use super::error::NetError;
use super::game_event::{EventData, EventDescriptor, EventDescriptors};
use super::message::{GameEvent, MessageKind, NetMessage};
use super::string_table::{
    Entry, StringTable, StringTableError, StringTablesFrame, TableShape, code_entries, create_data,
};
use super::{Messages, NetErrorKind};
use crate::source::format::Header;

/// The largest decompressed string table accepted (the engine's own buffer for the
/// `dem_stringtables` frame is 5,000,000 bytes).
pub const MAX_TABLE_BYTES: usize = 8 << 20;
/// The most string tables a demo can create (`MAX_TABLES`).
pub const MAX_TABLES: usize = 32;

/// A change a message made to the string tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableChange {
    /// A table was created; its entries are the changed ones.
    Created {
        /// The table's index.
        table: usize,
        /// The entries set.
        entries: Vec<usize>,
    },
    /// Entries of a table changed.
    Updated {
        /// The table's index.
        table: usize,
        /// The entries changed, in order.
        entries: Vec<usize>,
    },
    /// The state does not follow this table ([`NetState::follow_tables`]): it was
    /// created, or its entries changed, and they were not decoded.
    Skipped {
        /// The table's index.
        table: usize,
    },
    /// Entries arrived encoded with a dictionary the demo does not hold (Left 4 Dead's
    /// precache tables): the table keeps what the `dem_stringtables` frame says.
    Unreadable {
        /// The table's index.
        table: usize,
    },
}

/// The client's state as a demo's messages build it.
#[derive(Debug, Clone)]
pub struct NetState {
    /// The protocol, refined by what the messages have told.
    pub protocol: Protocol,
    /// The string tables, in creation order (updates name them by that index).
    pub tables: Vec<StringTable>,
    /// The game event descriptors.
    pub events: EventDescriptors,
    /// The names of the tables whose entries are decoded; `None`: every table.
    follow: Option<Vec<Vec<u8>>>,
}

impl NetState {
    /// A fresh state for a demo with this header, or `None` when this layer does not
    /// decode its messages.
    pub fn of_header(header: &Header) -> Option<Self> {
        Protocol::of_header(header).map(NetState::new)
    }

    /// A fresh state for `protocol`.
    pub fn new(protocol: Protocol) -> Self {
        NetState {
            protocol,
            tables: Vec::new(),
            events: EventDescriptors::default(),
            follow: None,
        }
    }

    /// Decodes the entries of the tables named only: the others are created empty and
    /// their updates stepped over ([`TableChange::Skipped`]). By default every table is
    /// followed; a walk that needs two tables of a TF2 demo's dozen (the game layer
    /// follows `userinfo` and `instancebaseline`) spends most of its time on the others'
    /// thousands of precache strings otherwise.
    pub fn follow_tables(&mut self, names: &[&str]) {
        self.follow = Some(names.iter().map(|n| n.as_bytes().to_vec()).collect());
    }

    /// Whether the entries of the table named `name` are decoded.
    pub fn follows(&self, name: &[u8]) -> bool {
        self.follow
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }

    /// The messages of one signon or packet frame's data. Carry
    /// [`Messages::protocol`] back with [`NetState::learned`] when they are done.
    pub fn messages<'a>(&self, data: &'a [u8]) -> Messages<'a> {
        Messages::new(data, self.protocol)
    }

    /// Takes what a packet's messages taught about the protocol.
    pub fn learned(&mut self, messages: &Messages<'_>) {
        self.protocol = messages.protocol();
    }

    /// The table named `name`.
    pub fn table(&self, name: &str) -> Option<&StringTable> {
        self.tables
            .iter()
            .find(|t| t.name.as_bytes() == name.as_bytes())
    }

    /// The index of the table named `name`.
    pub fn table_index(&self, name: &str) -> Option<usize> {
        self.tables
            .iter()
            .position(|t| t.name.as_bytes() == name.as_bytes())
    }

    /// Applies a message: string-table creations and updates, the game event list. Other
    /// messages change nothing and give `None`.
    pub fn apply(&mut self, message: &NetMessage) -> Result<Option<TableChange>, StringTableError> {
        if let NetMessage::Protobuf(proto) = message {
            return match proto.kind {
                MessageKind::CreateStringTable | MessageKind::UpdateStringTable => {
                    match proto.classic()? {
                        Some(classic) => self.apply(&classic),
                        None => Ok(None),
                    }
                }
                MessageKind::GameEventList => {
                    self.events = csgo::event_descriptors(proto)?;
                    Ok(None)
                }
                _ => Ok(None),
            };
        }
        match message {
            NetMessage::CreateStringTable(create) => {
                if self.tables.len() == MAX_TABLES {
                    return Err(StringTableError::TooManyTables);
                }
                let shape = TableShape::of(create);
                let table = self.tables.len();
                self.tables.push(StringTable {
                    name: create.name.clone(),
                    shape,
                    entries: Vec::new(),
                });
                if !self.follows(create.name.as_bytes()) {
                    return Ok(Some(TableChange::Skipped { table }));
                }
                let data = create_data(create, MAX_TABLE_BYTES)?;
                self.entries(table, &data, usize::from(create.entries))
                    .map(|c| {
                        Some(c.map_or(TableChange::Unreadable { table }, |entries| {
                            TableChange::Created { table, entries }
                        }))
                    })
            }
            NetMessage::UpdateStringTable(update) => {
                let table = usize::from(update.table);
                let Some(t) = self.tables.get(table) else {
                    return Err(StringTableError::NoTable(update.table));
                };
                if !self.follows(t.name.as_bytes()) {
                    return Ok(Some(TableChange::Skipped { table }));
                }
                let count = update.changed.map_or(1, usize::from);
                self.entries(table, &update.data, count).map(|c| {
                    Some(c.map_or(TableChange::Unreadable { table }, |entries| {
                        TableChange::Updated { table, entries }
                    }))
                })
            }
            NetMessage::GameEventList(list) => {
                self.events = EventDescriptors::decode(list)?;
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// Decodes and applies `count` entries to table `table`; `None` when they are
    /// dictionary-encoded.
    fn entries(
        &mut self,
        table: usize,
        data: &crate::codec::bits::Bits,
        count: usize,
    ) -> Result<Option<Vec<usize>>, StringTableError> {
        let mut updates = Vec::new();
        // `table` is one the caller found or made (fewer than `MAX_TABLES`).
        let Some(t) = self.tables.get_mut(table) else {
            return Err(StringTableError::NoTable(
                u8::try_from(table).unwrap_or(u8::MAX),
            ));
        };
        let mut decoder = Decoder::new(data.reader());
        match code_entries(&mut decoder, &mut updates, count, t.shape, self.protocol) {
            Ok(()) => t.apply(updates).map(Some),
            Err(NetError {
                kind: NetErrorKind::Invalid { .. },
                bit: 0,
            }) if self.protocol.is_demo4() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Applies a `dem_stringtables` frame: each table it names takes its entries from the
    /// frame, as the engine's `ReadStringTables` does; tables it does not know are left out.
    pub fn apply_string_tables_frame(&mut self, data: &[u8]) -> Result<(), NetError> {
        let follow = &self.follow;
        let tables = &mut self.tables;
        StringTablesFrame::read_tables(
            data,
            |name| {
                follow
                    .as_ref()
                    .is_none_or(|names| names.iter().any(|n| n == name))
            },
            |t| {
                if let Some(table) = tables.iter_mut().find(|table| table.name == t.name) {
                    table.entries = t
                        .entries
                        .into_iter()
                        .map(|e| Entry {
                            string: e.string,
                            user_data: e.user_data,
                        })
                        .collect();
                }
            },
        )
    }

    /// Decodes the game event `message` carries with the demo's descriptors: a
    /// `svc_GameEvent` of any branch, CS:GO's protobuf one included; `None` for other
    /// messages.
    pub fn event_of(
        &self,
        message: &NetMessage,
    ) -> Option<Result<(&EventDescriptor, EventData), NetError>> {
        let data = match message {
            NetMessage::GameEvent(event) => return Some(self.event(event)),
            NetMessage::Protobuf(p) if p.kind == MessageKind::GameEvent => {
                csgo::event_data(p, &self.events)
            }
            _ => return None,
        };
        Some(data.and_then(|data| self.with_descriptor(data)))
    }

    /// `data` with its descriptor, which decoding it found (the error is for a list that
    /// changed since, which `&self` rules out).
    fn with_descriptor(&self, data: EventData) -> Result<(&EventDescriptor, EventData), NetError> {
        let Some(descriptor) = self.events.get(data.id) else {
            let what = "an event id the game event list does not declare";
            return Err(NetError::new(0, NetErrorKind::Invalid { what }));
        };
        Ok((descriptor, data))
    }

    /// Decodes a game event with the demo's descriptors.
    pub fn event(&self, event: &GameEvent) -> Result<(&EventDescriptor, EventData), NetError> {
        let data = EventData::decode(event.data.reader(), &self.events)?;
        self.with_descriptor(data)
    }
}
