//! The game protocol: what snapshot items and network messages are, by name, for Teeworlds
//! 0.6 with DDNet's extensions ([`six`]) and for Teeworlds 0.7 ([`seven`]).
//!
//! Each protocol is one table, from which the macros of `table` make a struct per object and
//! message, a kind enum, and `Object` / `Message` enums with their readers and writers.
//! The tables are not written by hand: `build.rs` (`build/gamenet.rs`) writes them at build
//! time from two JSON files per protocol in `src/gamenet/spec/`:
//!
//! - `six.json`, `seven.json`: what DDNet declares at the reference commit (named in the
//!   file): the objects, events and game messages of `datasrc/network.py` and
//!   `datasrc/seven/network.py`, with their members, bounds and defaults, the constants
//!   the bounds name, and the numbers and extension names of the engine's system messages
//!   (`protocol.h`, `protocol7.h`, `protocol_ex_msgs.h`). The bounds of the 0.7 objects
//!   are also what [`seven::object_is_valid`] checks. `tools/gamenet-spec/dump.py` writes
//!   them by importing DDNet's own `network.py`; to move to another DDNet commit, run
//!   `tools/gamenet-spec/dump.py <DDNet git dir> <commit>` and build: what no longer fits
//!   the overlay stops the build with its name.
//! - `six.overlay.json`, `seven.overlay.json`, written by hand: what demokit adds, the docs
//!   of every entry and field, Rust names where the generator's rules do not give them
//!   (`m_Type` is `kind`), fields that DDNet packs by hand (the system messages, as the
//!   engine's `server.cpp` and `client.cpp` pack them) or declares without members
//!   (`Sv_TuneParams`), and the one entry datasrc lacks (`EX`).
//! - `six.inflight.json`, written by hand: DDNet's pull requests in flight (PR #12359,
//!   PR #12676), as their own `datasrc/network.py` declares their objects, applied to
//!   `six.json` before the overlay joins it (see [`six`]).
//!
//! The build needs neither Python nor DDNet. Typed records
//! keep every value as the wire holds it (no clamping, strings as raw bytes) and pack back
//! to exactly the ints and bytes they came from; an item or message the table does not
//! know, or that does not decode exactly, stays raw ([`RawObject`], [`RawMessage`]) and
//! re-encodes unchanged.
//!
//! This layer knows items and messages one at a time. Where they come from (demo chunks,
//! snapshot replay, teehistorian MESSAGE records) and what they add up to over time (the
//! players, the chat, the kills) is for the formats' game layers.
//!
//! ```
//! use demokit::gamenet::six::{Message, SvChat};
//!
//! // A chat line as DDNet's server packs it: id 3 (game message), team, client id, text.
//! let bytes = [0x06, 0x00, 0x01, b'h', b'i', 0x00];
//! let unpacked = Message::unpack(&bytes);
//! let Message::SvChat(chat) = &unpacked.message else { panic!() };
//! assert_eq!((chat.client_id, chat.message.to_str()?), (1, "hi"));
//! let mut again = Vec::new();
//! unpacked.pack(&mut again)?;
//! assert_eq!(again, bytes);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

#[macro_use]
mod table;

pub mod names;
pub mod seven;
pub mod six;
pub mod summary;
pub mod wire;

use crate::codec::string::{Bytes, NulStr};
use crate::codec::varint;
use std::borrow::Cow;
use uuid::Uuid;
pub use wire::{EncodeError, IntString, Unpacker};

/// The protocol a recording speaks, or, in a teehistorian file, a client: DDNet servers
/// take 0.7 clients too, and record which protocol each joined with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Protocol {
    /// Teeworlds 0.6 and DDNet ([`six`]).
    Six,
    /// Teeworlds 0.7, and DDNet clients on 0.7 servers ([`seven`]).
    Seven,
}

impl Protocol {
    /// The protocol of a demo header's network version: 0.7 when it starts with `"0.7"`
    /// (where DDNet's player switches to its 0.7 translation), 0.6 otherwise.
    pub fn for_net_version(net_version: &str) -> Protocol {
        if net_version.starts_with("0.7") {
            Protocol::Seven
        } else {
            Protocol::Six
        }
    }
}

impl Protocol {
    /// Types a snapshot item's data in this protocol.
    ///
    /// DDNet's extended objects (and the `EX` items that name their types) are the same in
    /// both protocols: DDNet's servers put them into the snapshots of 0.7 clients too, so in
    /// a 0.7 recording they are typed by [`six`].
    pub fn decode_object(self, ty: ObjectType, data: &[i32]) -> AnyObject<'_> {
        let ddnet_extension = matches!(ty, ObjectType::Extended(_) | ObjectType::Static(0));
        match self {
            Protocol::Seven if !ddnet_extension => {
                AnyObject::Seven(seven::Object::decode(ty, data))
            }
            _ => AnyObject::Six(six::Object::decode(ty, data)),
        }
    }

    /// Unpacks a network message in this protocol.
    ///
    /// Messages behind a UUID are DDNet's extensions in both protocols (DDNet's servers send
    /// them to 0.7 clients too), so in a 0.7 recording they are typed by [`six`].
    pub fn unpack_message(self, data: &[u8]) -> Unpacked<'_, AnyMessage<'_>> {
        let ddnet_extension = matches!(
            unpack_message_id(&mut Unpacker::new(data)),
            Some((_, MessageId::Uuid(_)))
        );
        if self == Protocol::Seven && !ddnet_extension {
            let u = seven::Message::unpack(data);
            Unpacked {
                message: AnyMessage::Seven(u.message),
                trailing: u.trailing,
            }
        } else {
            let u = six::Message::unpack(data);
            Unpacked {
                message: AnyMessage::Six(u.message),
                trailing: u.trailing,
            }
        }
    }
}

/// A snapshot item typed in one of the protocols.
///
/// With the `serde` feature: the object of the protocol as it is (its `"type"` names it).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum AnyObject<'a> {
    /// A 0.6 / DDNet object.
    Six(six::Object<'a>),
    /// A 0.7 object.
    Seven(seven::Object<'a>),
}

impl<'a> AnyObject<'a> {
    /// DDNet's name of the object, or `"Raw"`.
    pub fn name(&self) -> &'static str {
        match self {
            AnyObject::Six(o) => o.name(),
            AnyObject::Seven(o) => o.name(),
        }
    }

    /// The raw item, if the object stayed raw.
    pub fn as_raw(&self) -> Option<&RawObject<'a>> {
        match self {
            AnyObject::Six(six::Object::Raw(raw)) | AnyObject::Seven(seven::Object::Raw(raw)) => {
                Some(raw)
            }
            _ => None,
        }
    }

    /// Appends the item's data.
    pub fn write_ints(&self, out: &mut Vec<i32>) -> Result<(), EncodeError> {
        match self {
            AnyObject::Six(o) => o.write_ints(out),
            AnyObject::Seven(o) => o.write_ints(out),
        }
    }

    /// The same object owning its data.
    pub fn into_owned(self) -> AnyObject<'static> {
        match self {
            AnyObject::Six(o) => AnyObject::Six(o.into_owned()),
            AnyObject::Seven(o) => AnyObject::Seven(o.into_owned()),
        }
    }
}

/// A network message typed in one of the protocols.
///
/// With the `serde` feature: the message of the protocol as it is (its `"type"` names it).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum AnyMessage<'a> {
    /// A 0.6 / DDNet message.
    Six(six::Message<'a>),
    /// A 0.7 message.
    Seven(seven::Message<'a>),
}

impl<'a> AnyMessage<'a> {
    /// DDNet's name of the message, or `"Raw"`.
    pub fn name(&self) -> &'static str {
        match self {
            AnyMessage::Six(m) => m.name(),
            AnyMessage::Seven(m) => m.name(),
        }
    }

    /// The raw message, if it stayed raw.
    pub fn as_raw(&self) -> Option<&RawMessage<'a>> {
        match self {
            AnyMessage::Six(six::Message::Raw(raw))
            | AnyMessage::Seven(seven::Message::Raw(raw)) => Some(raw),
            _ => None,
        }
    }

    /// The same message owning its strings.
    pub fn into_owned(self) -> AnyMessage<'static> {
        match self {
            AnyMessage::Six(m) => AnyMessage::Six(m.into_owned()),
            AnyMessage::Seven(m) => AnyMessage::Seven(m.into_owned()),
        }
    }
}

impl PackMessage for AnyMessage<'_> {
    fn pack_message(&self, out: &mut Vec<u8>) -> Result<bool, EncodeError> {
        match self {
            AnyMessage::Six(m) => m.pack(out),
            AnyMessage::Seven(m) => m.pack(out),
        }
    }
}

/// The type of a snapshot item: a number below the extended range, or the UUID an
/// extended type stands for.
///
/// With the `serde` feature: the number, or the UUID as a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum ObjectType {
    /// `NETOBJTYPE_*`.
    Static(i32),
    /// An extended type, by the UUID of its DDNet name.
    Extended(Uuid),
}

/// The id of a network message: a number, or the UUID of a message DDNet sends behind
/// `NETMSG_EX` / `NETMSGTYPE_EX`.
///
/// With the `serde` feature: the number, or the UUID as a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum MessageId {
    /// `NETMSG_*` or `NETMSGTYPE_*`.
    Number(i32),
    /// An extended message, by the UUID of its DDNet name.
    Uuid(Uuid),
}

/// A field of an object or message, as the protocol table declares it: what tools that
/// list fields (schemas, dumps) read, and what the property tests generate from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Field {
    /// The field's name (its Rust name and its JSON key).
    pub name: &'static str,
    /// How it is stored.
    pub kind: FieldKind,
}

/// How a field is stored (see the table in the `table` module's docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldKind {
    /// One int.
    Int,
    /// A trailing int that may be left out.
    OptInt,
    /// A fixed number of ints.
    Ints(usize),
    /// A fixed number of trailing ints that may be left out together.
    OptInts(usize),
    /// A string stored in this many ints (objects).
    Text(usize),
    /// Several strings stored in ints: ints per string, strings.
    Texts(usize, usize),
    /// A NUL-terminated string (messages).
    Str,
    /// A trailing string that may be left out.
    OptStr,
    /// A fixed number of strings.
    Strs(usize),
    /// 16 raw bytes.
    Uuid,
    /// A fixed number of raw bytes.
    Raw(usize),
    /// An int size, then that many raw bytes.
    Bytes,
    /// Every byte to the end of the message.
    Rest,
}

/// Why a record stayed raw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum RawWhy {
    /// The protocol does not define its type or id.
    UnknownType,
    /// An item whose size does not fit its type (DDNet's client drops such items).
    Size,
    /// A message that ends inside its id or fields (DDNet's client drops it).
    Malformed,
    /// A message with an int not in its shortest form: typed, it would pack to other
    /// bytes (DDNet never writes such ints).
    NonCanonical,
}

/// A snapshot item kept as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RawObject<'a> {
    /// The item type.
    pub object_type: ObjectType,
    /// The item's data.
    pub data: Cow<'a, [i32]>,
    /// Why it is raw.
    pub why: RawWhy,
}

impl<'a> RawObject<'a> {
    pub(crate) fn new(object_type: ObjectType, data: &'a [i32], why: RawWhy) -> Self {
        RawObject {
            object_type,
            data: Cow::Borrowed(data),
            why,
        }
    }

    /// The same item owning its data.
    pub fn into_owned(self) -> RawObject<'static> {
        RawObject {
            object_type: self.object_type,
            data: Cow::Owned(self.data.into_owned()),
            why: self.why,
        }
    }
}

/// An object of one of DDNet's extended (UUID) types: the fields the table knows, and the
/// ints a newer DDNet sends after them.
///
/// DDNet grows its extended objects at their end (the tuning fields of
/// `DDNetLaser`, DDNet PR #12359), and its client reads an item longer than it knows by the
/// fields it knows. So does demokit: such an item is typed by the fields the table knows,
/// with the ints after them kept in [`extra`](Self::extra) (empty for an item no longer than
/// the table's object), and writes back to exactly the ints it came from. An item shorter
/// than the object's required fields stays raw ([`RawWhy::Size`]).
///
/// It dereferences to the known object.
///
/// With the `serde` feature: the known object's fields, and `"extra"` with the ints after
/// them when there are any.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExObject<'a, T> {
    /// The fields the table knows.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub known: T,
    /// The ints after them, which a newer DDNet sends (usually none).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "ints_are_empty")
    )]
    pub extra: Cow<'a, [i32]>,
}

/// Whether no ints are kept (`skip_serializing_if` of [`ExObject::extra`]).
#[cfg(feature = "serde")]
fn ints_are_empty(ints: &[i32]) -> bool {
    ints.is_empty()
}

impl<T> ExObject<'_, T> {
    /// The object with no ints after its fields.
    pub fn new(known: T) -> Self {
        ExObject {
            known,
            extra: Cow::Borrowed(&[]),
        }
    }

    /// The same object owning its extra ints.
    pub fn into_owned(self) -> ExObject<'static, T> {
        ExObject {
            known: self.known,
            extra: Cow::Owned(self.extra.into_owned()),
        }
    }
}

impl<T> From<T> for ExObject<'_, T> {
    fn from(known: T) -> Self {
        ExObject::new(known)
    }
}

impl<T> std::ops::Deref for ExObject<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.known
    }
}

impl<T> std::ops::DerefMut for ExObject<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.known
    }
}

/// A network message kept as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RawMessage<'a> {
    /// The whole message, id included.
    pub bytes: Bytes<'a>,
    /// Why it is raw.
    pub why: RawWhy,
}

impl<'a> RawMessage<'a> {
    pub(crate) fn new(bytes: &'a [u8], why: RawWhy) -> Self {
        RawMessage {
            bytes: Bytes::borrowed(bytes),
            why,
        }
    }

    /// Whether it is a system message and its id, if the bytes hold an id.
    pub fn id(&self) -> Option<(bool, MessageId)> {
        unpack_message_id(&mut Unpacker::new(&self.bytes.0))
    }

    /// The same message owning its bytes.
    pub fn into_owned(self) -> RawMessage<'static> {
        RawMessage {
            bytes: self.bytes.into_owned(),
            why: self.why,
        }
    }
}

/// A message as unpacked from its bytes: the typed message and the bytes after its fields.
///
/// With the `serde` feature: `{"message": {...}, "trailing": <hex>}`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Unpacked<'a, M> {
    /// The message.
    pub message: M,
    /// Bytes after the message's fields: in demos, the zero padding of the message to whole
    /// ints; otherwise usually none.
    pub trailing: Bytes<'a>,
}

/// What the protocols' message enums share, for [`Unpacked::pack`].
pub trait PackMessage {
    /// Packs the message, id included; `Ok(true)` if bytes after it would be read back as
    /// one of its fields.
    fn pack_message(&self, out: &mut Vec<u8>) -> Result<bool, EncodeError>;
}

impl<M: PackMessage> Unpacked<'_, M> {
    /// Packs the message and its trailing bytes: the bytes it was unpacked from. Refuses
    /// trailing bytes that would be read back as part of the message.
    pub fn pack(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        let open = self.message.pack_message(out)?;
        if open && !self.trailing.0.is_empty() {
            out.truncate(start);
            return Err(EncodeError::TrailingAfterOpenEnd { record: "message" });
        }
        out.extend_from_slice(&self.trailing.0);
        Ok(())
    }
}

/// Reads a message's id the way DDNet's `UnpackMessageId` does: an int holding
/// `id << 1 | system`, and for id 0 (`NETMSG_EX`) a UUID after it.
pub fn unpack_message_id(u: &mut Unpacker<'_>) -> Option<(bool, MessageId)> {
    let header = u.int()?;
    let system = header & 1 != 0;
    let id = header >> 1;
    if id == 0 {
        Some((system, MessageId::Uuid(u.uuid()?)))
    } else {
        Some((system, MessageId::Number(id)))
    }
}

/// Packs a message id as DDNet's `CMsgPacker` does.
pub fn pack_message_id((system, id): (bool, MessageId), out: &mut Vec<u8>) {
    match id {
        MessageId::Number(n) => varint::pack_into((n << 1) | system as i32, out),
        MessageId::Uuid(uuid) => {
            varint::pack_into(system as i32, out);
            out.extend_from_slice(uuid.as_bytes());
        }
    }
}

/// A fixed run of raw bytes inside a message (a SHA-256).
///
/// With the `serde` feature: lowercase hex.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RawBytes<const N: usize>(
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_array"))] pub [u8; N],
);

impl<const N: usize> Default for RawBytes<N> {
    fn default() -> Self {
        RawBytes([0; N])
    }
}

impl<const N: usize> std::fmt::Debug for RawBytes<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

/// A field's owned form, for `into_owned` of the generated messages.
pub(crate) trait Owned {
    type Out;
    fn owned(self) -> Self::Out;
}

impl Owned for i32 {
    type Out = i32;
    fn owned(self) -> i32 {
        self
    }
}

impl Owned for Option<i32> {
    type Out = Option<i32>;
    fn owned(self) -> Option<i32> {
        self
    }
}

impl<const N: usize> Owned for [i32; N] {
    type Out = [i32; N];
    fn owned(self) -> [i32; N] {
        self
    }
}

impl Owned for NulStr<Cow<'_, [u8]>> {
    type Out = NulStr<Cow<'static, [u8]>>;
    fn owned(self) -> Self::Out {
        self.into_owned()
    }
}

impl<const N: usize> Owned for [NulStr<Cow<'_, [u8]>>; N] {
    type Out = [NulStr<Cow<'static, [u8]>>; N];
    fn owned(self) -> Self::Out {
        self.map(NulStr::into_owned)
    }
}

impl Owned for Option<NulStr<Cow<'_, [u8]>>> {
    type Out = Option<NulStr<Cow<'static, [u8]>>>;
    fn owned(self) -> Self::Out {
        self.map(NulStr::into_owned)
    }
}

impl Owned for Uuid {
    type Out = Uuid;
    fn owned(self) -> Uuid {
        self
    }
}

impl<const N: usize> Owned for RawBytes<N> {
    type Out = RawBytes<N>;
    fn owned(self) -> RawBytes<N> {
        self
    }
}

impl Owned for Bytes<'_> {
    type Out = Bytes<'static>;
    fn owned(self) -> Bytes<'static> {
        self.into_owned()
    }
}
