//! The declarative binrw layouts of every teehistorian message and EX payload, built from the
//! one description in [`records`](super::records); they are also the owned, serde-ready
//! form of a message.
//!
//! Each message kind has a struct here (e.g. [`Drop`]: a client id, then a NUL-terminated
//! reason), read and written by binrw with the variable-width ints going through
//! `parse_with`/`write_with`. [`MessageLayout`] is a whole message, id included, and
//! [`ExLayout`] an EX record behind its UUID and size. Every message the crate writes goes
//! through these layouts ([`Message::encode`](super::Message::encode) converts the view
//! with [`Message::to_layout`](super::Message::to_layout), which borrows and does not
//! allocate).
//!
//! Reading through binrw needs `Read + Seek` and copies strings and payloads, so the readers
//! use the zero-copy decoder of [`message`](super::message) instead; a property test checks
//! that it decodes every input exactly as these layouts do. With `'static` the layouts own
//! their bytes: [`OwnedMessage`] is what JSON deserializes into (feature `serde`), and
//! [`MessageLayout::as_message`] gives the view back.
//!
//! The layouts refuse to write what would read back as something else (a NUL inside a
//! string, a length an int cannot hold, a PLAYER_DIFF with a negative client id, an untyped
//! EX record whose payload fits its UUID's layout): the error is a `binrw::Error::Custom`
//! holding the [`EncodeError`].

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::EncodeError;
use super::format::{ExFrame, INPUT_INTS, id, read_varint, write_varint};
use super::message::{Args, AuthRole, Ex, ExKind, Message};
use crate::codec::string::{Bytes, NulStr};
use binrw::io::{Read, Seek, SeekFrom, Write};
use binrw::{BinRead, BinResult, BinWrite, Endian};
use std::borrow::Cow;
use std::fmt;
use uuid::Uuid;

/// A whole message in its owned form (what JSON of a [`Message`] deserializes into).
pub type OwnedMessage = MessageLayout<'static>;

// ---------------------------------------------------------------------------------------
// Field encodings (see the table in `records`).
// ---------------------------------------------------------------------------------------

/// A list of NUL-terminated strings after an int count (`args`): the arguments of a console
/// command. Borrowed from a view's [`Args`], or owned in their packed file form.
///
/// With feature `serde` it is an array of strings, each as a [`NulStr`] serializes.
#[derive(Clone)]
pub struct StrList<'a>(StrListRepr<'a>);

#[derive(Clone)]
enum StrListRepr<'a> {
    View(Args<'a>),
    Packed { raw: Vec<u8>, count: usize },
}

impl<'a> StrList<'a> {
    /// The strings as [`Args`].
    pub fn args(&self) -> Args<'_> {
        match &self.0 {
            StrListRepr::View(args) => *args,
            StrListRepr::Packed { raw, count } => Args::packed_counted(raw, *count),
        }
    }
}

impl<'a> From<Args<'a>> for StrList<'a> {
    fn from(args: Args<'a>) -> Self {
        StrList(StrListRepr::View(args))
    }
}

impl StrList<'static> {
    /// Packs owned strings; `None` if one holds a NUL (it would read back as two).
    pub fn from_strings<S: AsRef<[u8]>>(items: &[S]) -> Option<Self> {
        let mut raw = Vec::new();
        for item in items {
            let item = item.as_ref();
            if item.contains(&0) {
                return None;
            }
            raw.extend_from_slice(item);
            raw.push(0);
        }
        Some(StrList(StrListRepr::Packed {
            raw,
            count: items.len(),
        }))
    }
}

impl PartialEq for StrList<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.args() == other.args()
    }
}

impl Eq for StrList<'_> {}

impl fmt::Debug for StrList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.args().fmt(f)
    }
}

/// A write refused because the bytes would read back as something else.
fn refuse(writer: &mut impl Seek, error: EncodeError) -> binrw::Error {
    binrw::Error::Custom {
        pos: writer.stream_position().unwrap_or(0),
        err: Box::new(error),
    }
}

/// A length as the int that stores it.
fn length_int(writer: &mut impl Seek, len: usize, what: &'static str) -> BinResult<i32> {
    i32::try_from(len).map_err(|_| refuse(writer, EncodeError::TooLong { what, len }))
}

/// Reads a size or count: an int that must not be negative.
fn read_length<R: Read + Seek>(reader: &mut R, endian: Endian) -> BinResult<usize> {
    let pos = reader.stream_position()?;
    let value = read_varint(reader, endian, ())?;
    usize::try_from(value).map_err(|_| binrw::Error::AssertFail {
        pos,
        message: format!("negative length {value}"),
    })
}

/// Reads exactly `len` bytes without trusting `len` for an allocation.
fn read_exact_vec<R: Read>(reader: &mut R, len: usize) -> BinResult<Vec<u8>> {
    let mut data = Vec::new();
    reader.take(len as u64).read_to_end(&mut data)?;
    if data.len() < len {
        return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into());
    }
    Ok(data)
}

/// `int` fields: one variable-width int.
pub fn read_int<R: Read + Seek>(reader: &mut R, endian: Endian, (): ()) -> BinResult<i32> {
    read_varint(reader, endian, ())
}

/// `int` fields: one canonical variable-width int.
pub fn write_int<W: Write + Seek>(
    value: &i32,
    writer: &mut W,
    endian: Endian,
    _what: &'static str,
) -> BinResult<()> {
    write_varint(value, writer, endian, ())
}

/// `input` fields: [`INPUT_INTS`] variable-width ints.
pub fn read_input<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (): (),
) -> BinResult<[i32; INPUT_INTS]> {
    let mut out = [0; INPUT_INTS];
    for slot in &mut out {
        *slot = read_varint(reader, endian, ())?;
    }
    Ok(out)
}

/// `input` fields: [`INPUT_INTS`] canonical variable-width ints.
pub(crate) fn write_input<W: Write + Seek>(
    values: &[i32; INPUT_INTS],
    writer: &mut W,
    endian: Endian,
    _what: &'static str,
) -> BinResult<()> {
    values
        .iter()
        .try_for_each(|v| write_varint(v, writer, endian, ()))
}

/// `uuid` fields: 16 bytes.
pub(crate) fn read_uuid<R: Read + Seek>(reader: &mut R, _: Endian, (): ()) -> BinResult<Uuid> {
    let mut bytes = [0; 16];
    reader.read_exact(&mut bytes)?;
    Ok(Uuid::from_bytes(bytes))
}

/// `uuid` fields: 16 bytes.
pub(crate) fn write_uuid<W: Write + Seek>(
    value: &Uuid,
    writer: &mut W,
    _: Endian,
    _what: &'static str,
) -> BinResult<()> {
    writer.write_all(value.as_bytes())?;
    Ok(())
}

/// `str` fields: bytes up to a NUL.
pub(crate) fn read_str<'a, R: Read + Seek>(
    reader: &mut R,
    _: Endian,
    (): (),
) -> BinResult<NulStr<Cow<'a, [u8]>>> {
    let mut text = Vec::new();
    loop {
        let mut byte = [0];
        reader.read_exact(&mut byte)?;
        if byte[0] == 0 {
            return Ok(NulStr(Cow::Owned(text)));
        }
        text.push(byte[0]);
    }
}

/// `str` fields: the bytes and a NUL; refuses a NUL inside.
pub fn write_str<S: AsRef<[u8]>, W: Write + Seek>(
    value: &NulStr<S>,
    writer: &mut W,
    _: Endian,
    what: &'static str,
) -> BinResult<()> {
    if value.as_bytes().contains(&0) {
        return Err(refuse(writer, EncodeError::NulInString { what }));
    }
    writer.write_all(value.as_bytes())?;
    writer.write_all(&[0])?;
    Ok(())
}

/// `role` fields: a role's name when the rest of the EX payload holds two NULs, else a
/// level (see [`AuthRole`]; the fast decoder decides alike).
pub(crate) fn read_role<'a, R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (): (),
) -> BinResult<AuthRole<Cow<'a, [u8]>>> {
    let start = reader.stream_position()?;
    // The reader holds one EX payload, which the reader bounded before handing it here.
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest)?;
    reader.seek(SeekFrom::Start(start))?;
    if rest.iter().filter(|&&b| b == 0).nth(1).is_some() {
        Ok(AuthRole::Name(read_str(reader, endian, ())?))
    } else {
        Ok(AuthRole::Level(read_int(reader, endian, ())?))
    }
}

/// `role` fields: the level as an int, or the name as a string.
pub fn write_role<S: AsRef<[u8]>, W: Write + Seek>(
    value: &AuthRole<S>,
    writer: &mut W,
    endian: Endian,
    what: &'static str,
) -> BinResult<()> {
    match value {
        AuthRole::Level(level) => write_int(level, writer, endian, what),
        AuthRole::Name(name) => write_str(name, writer, endian, what),
    }
}

/// `bytes` fields: an int size, then that many bytes.
pub(crate) fn read_sized<'a, R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (): (),
) -> BinResult<Bytes<'a>> {
    let len = read_length(reader, endian)?;
    Ok(Bytes(Cow::Owned(read_exact_vec(reader, len)?)))
}

/// `bytes` fields: the size as an int, then the bytes.
pub(crate) fn write_sized<W: Write + Seek>(
    value: &Bytes<'_>,
    writer: &mut W,
    endian: Endian,
    what: &'static str,
) -> BinResult<()> {
    let len = length_int(writer, value.0.len(), what)?;
    write_varint(&len, writer, endian, ())?;
    writer.write_all(&value.0)?;
    Ok(())
}

/// `rest` fields: every byte to the end of the (EX payload's) input.
pub(crate) fn read_rest<'a, R: Read + Seek>(
    reader: &mut R,
    _: Endian,
    (): (),
) -> BinResult<Bytes<'a>> {
    let mut data = Vec::new();
    reader.read_to_end(&mut data)?;
    Ok(Bytes(Cow::Owned(data)))
}

/// `rest` fields: the bytes as they are.
pub(crate) fn write_rest<W: Write + Seek>(
    value: &Bytes<'_>,
    writer: &mut W,
    _: Endian,
    _what: &'static str,
) -> BinResult<()> {
    writer.write_all(&value.0)?;
    Ok(())
}

/// `args` fields: an int count, then that many NUL-terminated strings.
pub fn read_args<'a, R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (): (),
) -> BinResult<StrList<'a>> {
    let count = read_length(reader, endian)?;
    let mut raw = Vec::new();
    // Each string takes at least its NUL, so a huge count ends with the input.
    for _ in 0..count {
        raw.extend_from_slice(&read_str(reader, endian, ())?.0);
        raw.push(0);
    }
    Ok(StrList(StrListRepr::Packed { raw, count }))
}

/// `args` fields: the count as an int, then each string and its NUL; refuses a NUL inside
/// a string.
pub fn write_args<W: Write + Seek>(
    value: &StrList<'_>,
    writer: &mut W,
    endian: Endian,
    what: &'static str,
) -> BinResult<()> {
    let args = value.args();
    let count = length_int(writer, args.len(), what)?;
    write_varint(&count, writer, endian, ())?;
    match (&value.0, args.packed_bytes()) {
        // Read from a file (or packed here): already in file form, one NUL per string.
        (StrListRepr::Packed { raw, .. }, _) => writer.write_all(raw)?,
        (_, Some(raw)) => writer.write_all(raw)?,
        (_, None) => {
            for arg in args.iter() {
                write_str(&arg, writer, endian, what)?;
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The layouts, from the tables in `records`.
// ---------------------------------------------------------------------------------------

/// The layout type of a field encoding.
macro_rules! layout_type {
    (int) => { i32 };
    (input) => { [i32; INPUT_INTS] };
    (uuid) => { Uuid };
    (str) => { NulStr<Cow<'a, [u8]>> };
    (bytes) => { Bytes<'a> };
    (rest) => { Bytes<'a> };
    (args) => { StrList<'a> };
    (role) => { AuthRole<Cow<'a, [u8]>> };
}

macro_rules! read_field {
    (int) => {
        read_int
    };
    (input) => {
        read_input
    };
    (uuid) => {
        read_uuid
    };
    (str) => {
        read_str
    };
    (bytes) => {
        read_sized
    };
    (rest) => {
        read_rest
    };
    (args) => {
        read_args
    };
    (role) => {
        read_role
    };
}

macro_rules! write_field {
    (int) => {
        write_int
    };
    (input) => {
        write_input
    };
    (uuid) => {
        write_uuid
    };
    (str) => {
        write_str
    };
    (bytes) => {
        write_sized
    };
    (rest) => {
        write_rest
    };
    (args) => {
        write_args
    };
    (role) => {
        write_role
    };
}

/// A layout field from a view field (borrowing).
macro_rules! to_layout {
    (int, $v:expr) => {
        $v
    };
    (input, $v:expr) => {
        $v
    };
    (uuid, $v:expr) => {
        $v
    };
    (str, $v:expr) => {
        NulStr(Cow::Borrowed($v.0))
    };
    (bytes, $v:expr) => {
        Bytes(Cow::Borrowed($v))
    };
    (rest, $v:expr) => {
        Bytes(Cow::Borrowed($v))
    };
    (args, $v:expr) => {
        StrList::from($v)
    };
    (role, $v:expr) => {
        match $v {
            AuthRole::Level(level) => AuthRole::Level(level),
            AuthRole::Name(name) => AuthRole::Name(NulStr(Cow::Borrowed(name.0))),
        }
    };
}

/// A view field from a layout field.
macro_rules! to_view {
    (int, $v:expr) => {
        $v
    };
    (input, $v:expr) => {
        $v
    };
    (uuid, $v:expr) => {
        $v
    };
    (str, $v:expr) => {
        $v.as_borrowed()
    };
    (bytes, $v:expr) => {
        &$v.0[..]
    };
    (rest, $v:expr) => {
        &$v.0[..]
    };
    (args, $v:expr) => {
        $v.args()
    };
    (role, $v:expr) => {
        $v.as_borrowed()
    };
}

/// One layout struct: its fields through binrw, each named by `$name` and its own name in
/// the encoder's errors.
macro_rules! layout_struct {
    (
        $(#[$doc:meta])* $variant:ident $(<$lt:lifetime>)?, $name:literal
        $({ $( $(#[$fdoc:meta])* $field:ident $(as $json:literal)? : $kind:ident ),* })?
    ) => {
        $(#[$doc])*
        #[binrw::binrw]
        #[brw(little)]
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub struct $variant $(<$lt>)? {
            $($(
                $(#[$fdoc])*
                $( #[cfg_attr(feature = "serde", serde(rename = $json))] )?
                #[br(parse_with = read_field!($kind))]
                #[bw(
                    write_with = write_field!($kind),
                    args_raw = concat!($name, " ", stringify!($field))
                )]
                pub $field: layout_type!($kind),
            )*)?
        }
    };
}

/// Defines the layout struct of each message of the table, [`MessageLayout`] and the
/// conversions between it and [`Message`].
macro_rules! define_message_layouts {
    ($(
        $(#[$doc:meta])*
        $variant:ident $(<$lt:lifetime>)? = $id:ident, $name:literal
        $({ $( $(#[$fdoc:meta])* $field:ident $(as $json:literal)? : $kind:ident ),* $(,)? })? $(;)?
    )*) => {
        $(
            layout_struct! {
                $(#[$doc])* $variant $(<$lt>)?, $name
                $({ $( $(#[$fdoc])* $field $(as $json)? : $kind ),* })?
            }
        )*

        /// A whole message in its declarative layout: the id, then the body of its kind.
        ///
        /// With feature `serde` it is an object whose `"kind"` is DDNet's name of the
        /// message (`"PLAYER_DIFF"`, `"INPUT_NEW"`, `"EX"`, ...) beside the fields of its
        /// layout; an EX message adds `"ex"`, the extension's name.
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(tag = "kind"))]
        pub enum MessageLayout<'a> {
            /// PLAYER_DIFF: its id is the client id.
            #[cfg_attr(feature = "serde", serde(rename = "PLAYER_DIFF"))]
            PlayerDiff(PlayerDiff),
            $(
                $(#[$doc])*
                #[cfg_attr(feature = "serde", serde(rename = $name))]
                $variant($variant $(<$lt>)?),
            )*
            /// EX: an extension record.
            #[cfg_attr(feature = "serde", serde(rename = "EX"))]
            Ex(ExLayout<'a>),
        }

        impl<'a> MessageLayout<'a> {
            /// The id the message starts with (the client id for PLAYER_DIFF).
            pub fn id(&self) -> i32 {
                match self {
                    MessageLayout::PlayerDiff(body) => body.cid,
                    $( MessageLayout::$variant(_) => id::$id, )*
                    MessageLayout::Ex(_) => id::EX,
                }
            }

            /// The message as a view that borrows from this layout.
            pub fn as_message(&self) -> Message<'_> {
                match self {
                    MessageLayout::PlayerDiff(body) => Message::PlayerDiff {
                        cid: body.cid,
                        dx: body.dx,
                        dy: body.dy,
                    },
                    $(
                        #[allow(unused_variables)]
                        MessageLayout::$variant(body) => Message::$variant $({
                            $( $field: to_view!($kind, body.$field), )*
                        })?,
                    )*
                    MessageLayout::Ex(ex) => Message::Ex(ex.as_ex()),
                }
            }

            fn read_body<R: Read + Seek>(reader: &mut R, id: i32) -> BinResult<Self> {
                Ok(match id {
                    0.. => MessageLayout::PlayerDiff(PlayerDiff::read_le_args(reader, (id,))?),
                    $( id::$id => MessageLayout::$variant($variant::read_le(reader)?), )*
                    id::EX => MessageLayout::Ex(ExLayout::read_le(reader)?),
                    _ => {
                        return Err(binrw::Error::NoVariantMatch {
                            pos: reader.stream_position()?,
                        })
                    }
                })
            }

            fn write_body<W: Write + Seek>(&self, writer: &mut W) -> BinResult<()> {
                match self {
                    MessageLayout::PlayerDiff(body) => body.write_le(writer),
                    $( MessageLayout::$variant(body) => body.write_le(writer), )*
                    MessageLayout::Ex(ex) => ex.write_le(writer),
                }
            }
        }

        impl<'a> Message<'a> {
            /// The message in its declarative layout, borrowing its strings and payloads
            /// (no allocation).
            pub fn to_layout(&self) -> MessageLayout<'a> {
                match *self {
                    Message::PlayerDiff { cid, dx, dy } => {
                        MessageLayout::PlayerDiff(PlayerDiff { cid, dx, dy })
                    }
                    $(
                        Message::$variant $({ $($field),* })? => {
                            MessageLayout::$variant($variant {
                                $($( $field: to_layout!($kind, $field), )*)?
                            })
                        }
                    )*
                    Message::Ex(ex) => MessageLayout::Ex(ex.to_layout()),
                }
            }
        }
    };
}

/// Defines the layout struct of each EX payload of the table, [`ExLayout`] and the
/// conversions between it and [`Ex`].
macro_rules! define_ex_layouts {
    ($(
        $(#[$doc:meta])*
        $variant:ident $(<$lt:lifetime>)? = $name:literal, $uuid:literal
        $({ $( $(#[$fdoc:meta])* $field:ident $(as $json:literal)? : $kind:ident ),* $(,)? })? $(;)?
    )*) => {
        /// The payload layouts of the EX records, one struct per extension.
        pub mod ex {
            use super::*;
            $(
                layout_struct! {
                    $(#[$doc])* $variant $(<$lt>)?, $name
                    $({ $( $(#[$fdoc])* $field $(as $json)? : $kind ),* })?
                }
            )*
        }

        /// An EX record in its declarative layout: the extension's UUID, the payload size,
        /// and the payload in the layout its UUID names.
        ///
        /// A payload that does not fit the layout of its UUID (or has an unknown UUID) is
        /// [`ExLayout::Unknown`], as the readers type it. With feature `serde` the object's
        /// `"ex"` is the extension's name, or `"unknown"` beside `"uuid"` and `"data"`.
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(tag = "ex"))]
        pub enum ExLayout<'a> {
            $(
                $(#[$doc])*
                #[cfg_attr(feature = "serde", serde(rename = $name))]
                $variant(ex::$variant $(<$lt>)?),
            )*
            /// A record this crate does not type.
            #[cfg_attr(feature = "serde", serde(rename = "unknown"))]
            Unknown {
                /// The UUID.
                uuid: Uuid,
                /// The payload.
                data: Bytes<'a>,
            },
        }

        impl<'a> ExLayout<'a> {
            /// The record as a view that borrows from this layout.
            pub(crate) fn as_ex(&self) -> Ex<'_> {
                match self {
                    $(
                        #[allow(unused_variables)]
                        ExLayout::$variant(body) => Ex::$variant $({
                            $( $field: to_view!($kind, body.$field), )*
                        })?,
                    )*
                    ExLayout::Unknown { uuid, data } => Ex::Unknown {
                        uuid: *uuid,
                        data: &data.0,
                    },
                }
            }

            /// The UUID written before the payload.
            pub fn uuid(&self) -> Uuid {
                match self {
                    $( ExLayout::$variant(_) => ExKind::$variant.uuid(), )*
                    ExLayout::Unknown { uuid, .. } => *uuid,
                }
            }

            /// Types `payload` by the layout `uuid` names, as the readers do: the layout
            /// must take the whole payload, else the record stays untyped.
            pub(crate) fn from_payload(uuid: Uuid, payload: Cow<'a, [u8]>) -> Self {
                let mut cursor = binrw::io::Cursor::new(&payload[..]);
                let typed = match ExKind::from_uuid(uuid) {
                    $( Some(ExKind::$variant) => {
                        ex::$variant::read_le(&mut cursor).map(ExLayout::$variant)
                    } )*
                    None => Err(binrw::Error::NoVariantMatch { pos: 0 }),
                };
                match typed {
                    Ok(typed) if cursor.position() == payload.len() as u64 => typed,
                    _ => ExLayout::Unknown { uuid, data: Bytes(payload) },
                }
            }

            /// Writes the payload alone (what the size counts).
            pub(crate) fn write_payload<W: Write + Seek>(&self, writer: &mut W) -> BinResult<()> {
                match self {
                    $( ExLayout::$variant(body) => body.write_le(writer), )*
                    ExLayout::Unknown { uuid, data } => {
                        // An untyped record that would read back typed is refused.
                        if let ExLayout::Unknown { .. } =
                            ExLayout::from_payload(*uuid, Cow::Borrowed(&data.0))
                        {
                            writer.write_all(&data.0)?;
                            return Ok(());
                        }
                        let name = ExKind::from_uuid(*uuid).map_or("EX", ExKind::kind_name);
                        Err(refuse(writer, EncodeError::UntypedKnownExtension { name }))
                    }
                }
            }
        }

        impl<'a> Ex<'a> {
            /// The record in its declarative layout, borrowing its strings and payloads.
            pub fn to_layout(&self) -> ExLayout<'a> {
                match *self {
                    $(
                        Ex::$variant $({ $($field),* })? => ExLayout::$variant(ex::$variant {
                            $($( $field: to_layout!($kind, $field), )*)?
                        }),
                    )*
                    Ex::Unknown { uuid, data } => ExLayout::Unknown {
                        uuid,
                        data: Bytes(Cow::Borrowed(data)),
                    },
                }
            }
        }
    };
}

/// PLAYER_DIFF: a character moved by (dx, dy). Its first int is the client id, which is
/// also what tells it from the other messages (whose ids are negative).
#[binrw::binrw]
#[brw(little)]
#[br(import(cid: i32))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlayerDiff {
    /// Client id: the message's id, read before the body (and written by
    /// [`MessageLayout`]).
    #[br(calc = cid)]
    #[bw(ignore)]
    #[cfg_attr(feature = "serde", serde(rename = "client_id"))]
    pub cid: i32,
    /// Change of x.
    #[br(parse_with = read_int)]
    #[bw(write_with = write_int, args_raw = "PLAYER_DIFF dx")]
    pub dx: i32,
    /// Change of y.
    #[br(parse_with = read_int)]
    #[bw(write_with = write_int, args_raw = "PLAYER_DIFF dy")]
    pub dy: i32,
}

message_records!(define_message_layouts);
ex_records!(define_ex_layouts);

impl BinRead for MessageLayout<'_> {
    type Args<'b> = ();

    fn read_options<R: Read + Seek>(reader: &mut R, endian: Endian, (): ()) -> BinResult<Self> {
        let id = read_varint(reader, endian, ())?;
        Self::read_body(reader, id)
    }
}

impl BinWrite for MessageLayout<'_> {
    type Args<'b> = ();

    fn write_options<W: Write + Seek>(
        &self,
        writer: &mut W,
        endian: Endian,
        (): (),
    ) -> BinResult<()> {
        let id = self.id();
        if let MessageLayout::PlayerDiff(_) = self
            && id < 0
        {
            // A negative first int would be read as another message.
            return Err(refuse(
                writer,
                EncodeError::NegativePlayerDiffCid { cid: id },
            ));
        }
        write_varint(&id, writer, endian, ())?;
        self.write_body(writer)
    }
}

impl BinRead for ExLayout<'_> {
    type Args<'b> = ();

    fn read_options<R: Read + Seek>(reader: &mut R, endian: Endian, (): ()) -> BinResult<Self> {
        let frame = ExFrame::read_options(reader, endian, ())?;
        let len = usize::try_from(frame.size).map_err(|_| binrw::Error::AssertFail {
            pos: reader.stream_position().unwrap_or(0),
            message: format!("negative EX size {}", frame.size),
        })?;
        let payload = read_exact_vec(reader, len)?;
        Ok(Self::from_payload(
            Uuid::from_bytes(frame.uuid),
            Cow::Owned(payload),
        ))
    }
}

impl BinWrite for ExLayout<'_> {
    type Args<'b> = ();

    /// Writes the frame and the payload. The size comes first, so the payload is put
    /// together in a buffer; [`Message::encode`] writes into its vector directly.
    fn write_options<W: Write + Seek>(
        &self,
        writer: &mut W,
        endian: Endian,
        (): (),
    ) -> BinResult<()> {
        let mut payload = binrw::io::Cursor::new(Vec::new());
        self.write_payload(&mut payload)?;
        let payload = payload.into_inner();
        let size = length_int(writer, payload.len(), "EX payload")?;
        ExFrame {
            uuid: *self.uuid().as_bytes(),
            size,
        }
        .write_options(writer, endian, ())?;
        writer.write_all(&payload)?;
        Ok(())
    }
}

impl MessageLayout<'_> {
    /// Appends the message to `out` as DDNet writes it, through the layouts. An EX payload is
    /// written first and its frame rotated in front of it, so no buffer is needed.
    ///
    /// On error `out` is left as it was.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        let result = self.append(out);
        if result.is_err() {
            out.truncate(start);
        }
        result.map_err(|e| {
            e.custom_err::<EncodeError>()
                .copied()
                // Writing to a vector fails only by the layouts' own refusals.
                .unwrap_or(EncodeError::TooLong {
                    what: "message",
                    len: usize::MAX,
                })
        })
    }

    fn append(&self, out: &mut Vec<u8>) -> BinResult<()> {
        let mut cursor = binrw::io::Cursor::new(out);
        cursor.seek(SeekFrom::End(0))?;
        let MessageLayout::Ex(ex) = self else {
            return self.write_le(&mut cursor);
        };
        let start = cursor.position() as usize;
        ex.write_payload(&mut cursor)?;
        let payload_len = cursor.position() as usize - start;
        let size = length_int(&mut cursor, payload_len, "EX payload")?;
        write_varint(&id::EX, &mut cursor, Endian::Little, ())?;
        ExFrame {
            uuid: *ex.uuid().as_bytes(),
            size,
        }
        .write_le(&mut cursor)?;
        let out = cursor.into_inner();
        let frame_len = out.len() - start - size as usize;
        if let Some(record) = out.get_mut(start..) {
            record.rotate_right(frame_len);
        }
        Ok(())
    }
}

#[cfg(feature = "serde")]
mod serde_forms {
    //! The JSON forms of the field encodings.

    use super::{Ex, Message, NulStr, StrList};
    use serde::de::{self, Deserializer};
    use serde::ser::Serializer;
    use serde::{Deserialize, Serialize};

    /// A message serializes as its layout does (borrowing: no copy of its bytes).
    impl Serialize for Message<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            self.to_layout().serialize(serializer)
        }
    }

    /// An EX record serializes as its layout does.
    impl Serialize for Ex<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            self.to_layout().serialize(serializer)
        }
    }

    impl Serialize for StrList<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            self.args().serialize(serializer)
        }
    }

    impl<'de> Deserialize<'de> for StrList<'_> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let items = Vec::<NulStr<Vec<u8>>>::deserialize(deserializer)?;
            let items: Vec<&[u8]> = items.iter().map(NulStr::as_bytes).collect();
            StrList::from_strings(&items).ok_or_else(|| de::Error::custom("a NUL inside a string"))
        }
    }
}
