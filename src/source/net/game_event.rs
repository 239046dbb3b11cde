//! Game events: the descriptors `svc_GameEventList` declares and the events
//! `svc_GameEvent` carries, typed by them.
//!
//! A demo declares every event it can hold, with its keys' names and types, so events are
//! decoded generically: a game this crate has never seen still works. Which events mean a
//! kill or a chat line is left to the game layer.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::coder::{Coder, NetStr};
use super::error::{NetError, NetErrorKind};
use super::message::GameEventList;
use crate::codec::bits::BitReader;

/// Bits of an event id (`MAX_EVENT_BITS`).
const EVENT_ID_BITS: u32 = 9;
/// Bits of a key's type.
const TYPE_BITS: u32 = 3;

/// The type of an event key's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ValueType {
    /// A NUL-terminated string (1).
    #[default]
    String,
    /// A 32-bit float (2).
    Float,
    /// A signed 32-bit int (3).
    Long,
    /// A signed 16-bit int (4).
    Short,
    /// An unsigned byte (5).
    Byte,
    /// One bit (6).
    Bool,
    /// An unsigned 64-bit int (7).
    Uint64,
}

impl ValueType {
    const fn number(self) -> u32 {
        match self {
            ValueType::String => 1,
            ValueType::Float => 2,
            ValueType::Long => 3,
            ValueType::Short => 4,
            ValueType::Byte => 5,
            ValueType::Bool => 6,
            ValueType::Uint64 => 7,
        }
    }

    const fn from_number(n: u32) -> Option<ValueType> {
        Some(match n {
            1 => ValueType::String,
            2 => ValueType::Float,
            3 => ValueType::Long,
            4 => ValueType::Short,
            5 => ValueType::Byte,
            6 => ValueType::Bool,
            7 => ValueType::Uint64,
            _ => return None,
        })
    }
}

/// One key of an event descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EventKey {
    /// Its type.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub ty: ValueType,
    /// Its name.
    pub name: NetStr,
}

/// One event descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EventDescriptor {
    /// The event's id.
    pub id: u16,
    /// Its name (`player_death`, `player_say`, ...).
    pub name: NetStr,
    /// Its networked keys, in wire order.
    pub keys: Vec<EventKey>,
}

/// Every descriptor of a `svc_GameEventList`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EventDescriptors {
    /// The descriptors, in wire order.
    pub descriptors: Vec<EventDescriptor>,
}

impl EventDescriptors {
    /// Decodes (or encodes) the message's data: `count` descriptors, each its id, name and
    /// keys, the keys ended by a type of 0.
    pub fn code<C: Coder>(&mut self, c: &mut C, count: usize) -> Result<(), NetError> {
        c.list(&mut self.descriptors, count, |c, d| {
            c.uint(&mut d.id, EVENT_ID_BITS)?;
            c.string(&mut d.name)?;
            if C::READING {
                d.keys.clear();
                loop {
                    let at = c.position();
                    let mut ty = 0u32;
                    c.uint(&mut ty, TYPE_BITS)?;
                    if ty == 0 {
                        break;
                    }
                    let ty = ValueType::from_number(ty).ok_or(NetError::new(
                        at,
                        NetErrorKind::Invalid {
                            what: "an event key type above 7",
                        },
                    ))?;
                    let mut key = EventKey {
                        ty,
                        name: NetStr::default(),
                    };
                    c.string(&mut key.name)?;
                    d.keys.push(key);
                }
            } else {
                for key in &mut d.keys {
                    c.uint(&mut key.ty.number(), TYPE_BITS)?;
                    c.string(&mut key.name)?;
                }
                c.uint(&mut 0u32, TYPE_BITS)?;
            }
            Ok(())
        })
    }

    /// The descriptors of a `svc_GameEventList` message.
    pub fn decode(list: &GameEventList) -> Result<Self, NetError> {
        let mut out = EventDescriptors::default();
        let mut d = super::coder::Decoder::new(list.data.reader());
        out.code(&mut d, usize::from(list.count))?;
        Ok(out)
    }

    /// The descriptor with this id.
    pub fn get(&self, id: u16) -> Option<&EventDescriptor> {
        // Ids are dense from 0 in every real list; fall back to a search otherwise.
        match self.descriptors.get(usize::from(id)) {
            Some(d) if d.id == id => Some(d),
            _ => self.descriptors.iter().find(|d| d.id == id),
        }
    }
}

/// One value of an event.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum EventValue {
    /// A string.
    String(NetStr),
    /// A float.
    Float(f32),
    /// A signed 32-bit int.
    Long(i32),
    /// A signed 16-bit int.
    Short(i16),
    /// A byte.
    Byte(u8),
    /// A bool.
    Bool(bool),
    /// An unsigned 64-bit int.
    Uint64(u64),
}

impl EventValue {
    /// The value as an integer, for the integer and bool types.
    pub fn as_i64(&self) -> Option<i64> {
        Some(match *self {
            EventValue::Long(v) => i64::from(v),
            EventValue::Short(v) => i64::from(v),
            EventValue::Byte(v) => i64::from(v),
            EventValue::Bool(v) => i64::from(v),
            EventValue::Uint64(v) => v as i64,
            EventValue::String(_) | EventValue::Float(_) => return None,
        })
    }

    /// The value as text, for strings.
    pub fn as_str(&self) -> Option<&NetStr> {
        match self {
            EventValue::String(s) => Some(s),
            _ => None,
        }
    }

    fn code<C: Coder>(&mut self, c: &mut C, ty: ValueType) -> Result<(), NetError> {
        if C::READING {
            *self = match ty {
                ValueType::String => EventValue::String(NetStr::default()),
                ValueType::Float => EventValue::Float(0.0),
                ValueType::Long => EventValue::Long(0),
                ValueType::Short => EventValue::Short(0),
                ValueType::Byte => EventValue::Byte(0),
                ValueType::Bool => EventValue::Bool(false),
                ValueType::Uint64 => EventValue::Uint64(0),
            };
        }
        match self {
            EventValue::String(s) => c.string(s),
            EventValue::Float(v) => c.f32(v),
            EventValue::Long(v) => c.int(v, 32),
            EventValue::Short(v) => {
                let mut w = i32::from(*v);
                c.int(&mut w, 16)?;
                *v = w as i16;
                Ok(())
            }
            EventValue::Byte(v) => c.uint(v, 8),
            EventValue::Bool(v) => c.bool(v),
            EventValue::Uint64(v) => c.u64(v, 64),
        }
    }

    fn ty(&self) -> ValueType {
        match self {
            EventValue::String(_) => ValueType::String,
            EventValue::Float(_) => ValueType::Float,
            EventValue::Long(_) => ValueType::Long,
            EventValue::Short(_) => ValueType::Short,
            EventValue::Byte(_) => ValueType::Byte,
            EventValue::Bool(_) => ValueType::Bool,
            EventValue::Uint64(_) => ValueType::Uint64,
        }
    }
}

impl Default for EventValue {
    fn default() -> Self {
        EventValue::Bool(false)
    }
}

/// One event: its id and its values in the descriptor's key order.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EventData {
    /// The descriptor's id.
    pub id: u16,
    /// The values.
    pub values: Vec<EventValue>,
}

impl EventData {
    /// Decodes (or encodes) an event's data with the descriptors of its demo.
    pub fn code<C: Coder>(&mut self, c: &mut C, list: &EventDescriptors) -> Result<(), NetError> {
        let at = c.position();
        c.uint(&mut self.id, EVENT_ID_BITS)?;
        let descriptor = list.get(self.id).ok_or(NetError::new(
            at,
            NetErrorKind::Invalid {
                what: "an event id the game event list does not declare",
            },
        ))?;
        if !C::READING
            && (self.values.len() != descriptor.keys.len()
                || self
                    .values
                    .iter()
                    .zip(&descriptor.keys)
                    .any(|(v, k)| v.ty() != k.ty))
        {
            return Err(NetError::new(
                at,
                NetErrorKind::Inconsistent {
                    what: "an event's values do not match its descriptor's keys",
                },
            ));
        }
        // One value per key: `list` codes exactly as many as there are keys.
        let mut keys = descriptor.keys.iter();
        c.list(&mut self.values, descriptor.keys.len(), |c, v| {
            let key = keys.next().ok_or(NetError::new(
                c.position(),
                NetErrorKind::Inconsistent {
                    what: "more values than the descriptor has keys",
                },
            ))?;
            v.code(c, key.ty)
        })
    }

    /// Decodes the data of a `svc_GameEvent` message.
    pub fn decode(data: BitReader<'_>, list: &EventDescriptors) -> Result<Self, NetError> {
        let mut out = EventData::default();
        out.code(&mut super::coder::Decoder::new(data), list)?;
        Ok(out)
    }
}
