//! The macros that turn a protocol table into types: one struct per object and message,
//! their readers and writers, a kind enum, and the enum of everything with its raw fallback.
//!
//! A table entry is a doc comment, the Rust name, the type or id (see below), DDNet's name,
//! and the fields in wire order, each with its kind:
//!
//! | kind | objects (ints) | messages (packed bytes) | Rust type |
//! |---|---|---|---|
//! | `int` | one int | one variable-width int | `i32` |
//! | `(opt int)` | a trailing int older writers leave out | an int DDNet reads with a default | `Option<i32>` |
//! | `(ints N)` | `N` ints | `N` variable-width ints | `[i32; N]` |
//! | `(opt ints N)` | `N` trailing ints older writers leave out | — | `Option<[i32; N]>` |
//! | `uuid` | — | 16 raw bytes | [`Uuid`](uuid::Uuid) |
//! | `(raw N)` | — | `N` raw bytes (a SHA-256) | `[u8; N]` |
//! | `(opt str)` | — | a string DDNet reads only if data is left | `Option<NulStr<Cow<[u8]>>>` |
//! | `(text N)` | a string in `N` ints | — | [`IntString<N>`](super::wire::IntString) |
//! | `(texts N M)` | `M` strings of `N` ints | — | `[IntString<N>; M]` |
//! | `str` | — | a NUL-terminated string | [`NulStr<Cow<[u8]>>`](crate::codec::string::NulStr) |
//! | `(strs N)` | — | `N` strings | `[NulStr<Cow<[u8]>>; N]` |
//! | `bytes` | — | an int size, then that many raw bytes | [`Bytes`](crate::codec::string::Bytes) |
//! | `rest` | — | every byte left (read by hand in DDNet) | [`Bytes`](crate::codec::string::Bytes) |
//!
//! Object types: a number (`NETOBJTYPE_*`) or `(ex "name@domain" 0x...)`, an extended type
//! by DDNet's name for it and the UUID derived from that name. Message ids: a number
//! (`NETMSGTYPE_*`), `(sys N)` for a system message, `(ex "name" 0x...)` /
//! `(sys_ex "name" 0x...)` for messages sent behind a UUID. A test recomputes every UUID
//! from its name.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

/// The Rust type of an object field kind.
macro_rules! obj_ty {
    (int) => { i32 };
    ((opt int)) => { Option<i32> };
    ((ints $n:literal)) => { [i32; $n] };
    ((opt ints $n:literal)) => { Option<[i32; $n]> };
    ((text $n:literal)) => { $crate::gamenet::wire::IntString<$n> };
    ((texts $n:literal $m:literal)) => { [$crate::gamenet::wire::IntString<$n>; $m] };
}

/// Ints an object field kind takes.
macro_rules! obj_len {
    (int) => {
        1
    };
    ((opt int)) => {
        1
    };
    ((ints $n:literal)) => {
        $n
    };
    ((opt ints $n:literal)) => {
        $n
    };
    ((text $n:literal)) => {
        $n
    };
    ((texts $n:literal $m:literal)) => {
        $n * $m
    };
}

/// Reads an object field.
macro_rules! obj_read {
    ($r:ident, int) => {
        $r.int()?
    };
    ($r:ident, (opt int)) => {
        if $r.is_empty() { None } else { Some($r.int()?) }
    };
    ($r:ident, (ints $n:literal)) => {
        $r.array::<$n>()?
    };
    ($r:ident, (opt ints $n:literal)) => {
        if $r.is_empty() {
            None
        } else {
            Some($r.array::<$n>()?)
        }
    };
    ($r:ident, (text $n:literal)) => {
        $crate::gamenet::wire::IntString($r.array::<$n>()?)
    };
    ($r:ident, (texts $n:literal $m:literal)) => {{
        let mut all = [$crate::gamenet::wire::IntString([0; $n]); $m];
        for text in &mut all {
            *text = $crate::gamenet::wire::IntString($r.array::<$n>()?);
        }
        all
    }};
}

/// Writes an object field.
macro_rules! obj_write {
    ($w:ident, $f:ident, $v:expr, int) => {{
        $w.present(stringify!($f))?;
        $w.out.push($v);
    }};
    ($w:ident, $f:ident, $v:expr, (opt int)) => {
        match $v {
            Some(v) => {
                $w.present(stringify!($f))?;
                $w.out.push(v);
            }
            None => $w.missing(),
        }
    };
    ($w:ident, $f:ident, $v:expr, (ints $n:literal)) => {{
        $w.present(stringify!($f))?;
        $w.out.extend_from_slice(&$v);
    }};
    ($w:ident, $f:ident, $v:expr, (opt ints $n:literal)) => {
        match $v {
            Some(v) => {
                $w.present(stringify!($f))?;
                $w.out.extend_from_slice(&v);
            }
            None => $w.missing(),
        }
    };
    ($w:ident, $f:ident, $v:expr, (text $n:literal)) => {{
        $w.present(stringify!($f))?;
        $w.out.extend_from_slice(&$v.0);
    }};
    ($w:ident, $f:ident, $v:expr, (texts $n:literal $m:literal)) => {{
        $w.present(stringify!($f))?;
        for text in &$v {
            $w.out.extend_from_slice(&text.0);
        }
    }};
}

/// An object type from its table form.
macro_rules! obj_type {
    ($n:literal) => {
        $crate::gamenet::ObjectType::Static($n)
    };
    ((ex $name:literal $uuid:literal)) => {
        $crate::gamenet::ObjectType::Extended(uuid::Uuid::from_u128($uuid))
    };
}

/// The payload of an object's variant in `Object`: the struct, or for an extended type the
/// struct with the ints after its fields ([`ExObject`](crate::gamenet::ExObject)).
macro_rules! obj_variant {
    ($n:literal, $name:ident) => {
        $name
    };
    ((ex $e:literal $uuid:literal), $name:ident) => {
        $crate::gamenet::ExObject<'a, $name>
    };
}

/// Reads an object's variant payload from an item's data: the exact size for a numbered
/// type; for an extended type the fields and any ints after them.
macro_rules! obj_decode {
    ($n:literal, $name:ident, $data:expr) => {
        $name::from_ints($data)
    };
    ((ex $e:literal $uuid:literal), $name:ident, $data:expr) => {
        $name::from_ints_prefix($data).map(|(known, extra)| $crate::gamenet::ExObject {
            known,
            extra: std::borrow::Cow::Borrowed(extra),
        })
    };
}

/// Appends an object's variant payload.
macro_rules! obj_write_variant {
    ($n:literal, $name:ident, $value:expr, $out:expr) => {
        $value.write_ints($out)
    };
    ((ex $e:literal $uuid:literal), $name:ident, $value:expr, $out:expr) => {
        match $value.known.write_fields($out) {
            // Ints after a missing optional field would be read back into it.
            Ok(true) if !$value.extra.is_empty() => {
                Err($crate::gamenet::wire::EncodeError::OptionalGap {
                    record: $name::NAME,
                    field: "extra",
                })
            }
            Ok(_) => {
                $out.extend_from_slice(&$value.extra);
                Ok(())
            }
            Err(e) => Err(e),
        }
    };
}

/// An object's variant payload owning its data.
macro_rules! obj_owned {
    ($n:literal, $value:expr) => {
        $value
    };
    ((ex $e:literal $uuid:literal), $value:expr) => {
        $value.into_owned()
    };
}

/// The extension name of a type or id from its table form, if it has one.
macro_rules! extension_name {
    ($n:literal) => {
        None
    };
    ((sys $n:literal)) => {
        None
    };
    (($kw:ident $name:literal $uuid:literal)) => {
        Some($name)
    };
}

/// The [`FieldKind`](crate::gamenet::FieldKind) of a table field kind.
macro_rules! field_kind {
    (int) => {
        $crate::gamenet::FieldKind::Int
    };
    ((opt int)) => {
        $crate::gamenet::FieldKind::OptInt
    };
    ((ints $n:literal)) => {
        $crate::gamenet::FieldKind::Ints($n)
    };
    ((opt ints $n:literal)) => {
        $crate::gamenet::FieldKind::OptInts($n)
    };
    ((text $n:literal)) => {
        $crate::gamenet::FieldKind::Text($n)
    };
    ((texts $n:literal $m:literal)) => {
        $crate::gamenet::FieldKind::Texts($n, $m)
    };
    (str) => {
        $crate::gamenet::FieldKind::Str
    };
    ((opt str)) => {
        $crate::gamenet::FieldKind::OptStr
    };
    ((strs $n:literal)) => {
        $crate::gamenet::FieldKind::Strs($n)
    };
    (uuid) => {
        $crate::gamenet::FieldKind::Uuid
    };
    ((raw $n:literal)) => {
        $crate::gamenet::FieldKind::Raw($n)
    };
    (rest) => {
        $crate::gamenet::FieldKind::Rest
    };
    (bytes) => {
        $crate::gamenet::FieldKind::Bytes
    };
}

/// Defines the objects of a protocol: a struct each, [`ObjectKind`] and [`Object`].
macro_rules! net_objects {
    ($(
        $(#[$doc:meta])*
        $name:ident = $ty:tt, $ddnet:literal {
            $( $(#[$fdoc:meta])* $field:ident : $kind:tt ),* $(,)?
        }
    )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
            #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
            pub struct $name {
                $( $(#[$fdoc])* pub $field: obj_ty!($kind), )*
            }

            impl $name {
                /// DDNet's name of the object.
                pub const NAME: &'static str = $ddnet;
                /// The item type.
                pub const TYPE: $crate::gamenet::ObjectType = obj_type!($ty);
                /// Ints of a whole item, optional fields included.
                pub const INTS: usize = 0 $(+ obj_len!($kind))*;
                /// The name DDNet derives the type's UUID from, for an extended type.
                pub const EXTENSION: Option<&'static str> = extension_name!($ty);
                /// The fields in item order.
                pub const FIELDS: &'static [$crate::gamenet::Field] = &[
                    $( $crate::gamenet::Field { name: stringify!($field), kind: field_kind!($kind) }, )*
                ];

                /// Reads an item's data; `None` if its size does not fit the object.
                pub fn from_ints(ints: &[i32]) -> Option<Self> {
                    match Self::from_ints_prefix(ints) {
                        Some((value, [])) => Some(value),
                        _ => None,
                    }
                }

                /// Reads the object's fields from the start of an item's data, as many
                /// optional fields as there are ints for; the object and the ints after
                /// its fields, `None` if the data is shorter than the required fields.
                pub fn from_ints_prefix(ints: &[i32]) -> Option<(Self, &[i32])> {
                    #[allow(unused_mut)]
                    let mut r = $crate::gamenet::wire::IntReader::new(ints);
                    let value = $name { $( $field: obj_read!(r, $kind), )* };
                    Some((value, r.rest()))
                }

                /// Appends the item's data.
                pub fn write_ints(
                    &self,
                    out: &mut Vec<i32>,
                ) -> Result<(), $crate::gamenet::wire::EncodeError> {
                    self.write_fields(out).map(|_| ())
                }

                /// Appends the item's data; `Ok(true)` if an optional field is missing,
                /// so that ints after them would be read back as that field.
                pub(crate) fn write_fields(
                    &self,
                    out: &mut Vec<i32>,
                ) -> Result<bool, $crate::gamenet::wire::EncodeError> {
                    #[allow(unused_mut, unused_variables)]
                    let mut w = $crate::gamenet::wire::FieldWriter::new(out, Self::NAME);
                    $( obj_write!(w, $field, self.$field, $kind); )*
                    Ok(w.is_open())
                }
            }
        )*

        /// Every object type of the protocol, without data.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[non_exhaustive]
        pub enum ObjectKind {
            $( $(#[$doc])* $name, )*
        }

        /// The kinds by static type number.
        const STATIC_OBJECT_KINDS: [Option<ObjectKind>; 64] = {
            let mut table = [None; 64];
            $(
                if let $crate::gamenet::ObjectType::Static(n) = $name::TYPE {
                    // Evaluated at build time: a number outside the table stops the build.
                    assert!(n >= 0 && n < 64, "a static object type outside 0..64");
                    if let Some((_, [slot, ..])) = table.split_at_mut_checked(n as usize) {
                        *slot = Some(ObjectKind::$name);
                    }
                }
            )*
            table
        };

        impl ObjectKind {
            /// Every kind, in table order.
            pub const ALL: &'static [ObjectKind] = &[$(ObjectKind::$name),*];

            /// DDNet's name of the object.
            pub const fn name(self) -> &'static str {
                match self { $( ObjectKind::$name => $name::NAME, )* }
            }

            /// The item type.
            pub const fn object_type(self) -> $crate::gamenet::ObjectType {
                match self { $( ObjectKind::$name => $name::TYPE, )* }
            }

            /// The name DDNet derives the type's UUID from, for an extended type.
            pub const fn extension(self) -> Option<&'static str> {
                match self { $( ObjectKind::$name => $name::EXTENSION, )* }
            }

            /// The fields in item order.
            pub const fn fields(self) -> &'static [$crate::gamenet::Field] {
                match self { $( ObjectKind::$name => $name::FIELDS, )* }
            }

            /// The kind of an item type, if the protocol defines it.
            pub fn from_type(ty: $crate::gamenet::ObjectType) -> Option<ObjectKind> {
                match ty {
                    $crate::gamenet::ObjectType::Static(n) => {
                        STATIC_OBJECT_KINDS.get(usize::try_from(n).ok()?).copied().flatten()
                    }
                    $crate::gamenet::ObjectType::Extended(_) => {
                        ObjectKind::ALL.iter().copied().find(|k| k.object_type() == ty)
                    }
                }
            }
        }

        /// A snapshot item of this protocol, typed.
        ///
        /// With the `serde` feature: the object's fields with `"type"`, DDNet's name of the
        /// object (`"Raw"` for [`Object::Raw`]).
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(tag = "type"))]
        #[non_exhaustive]
        pub enum Object<'a> {
            $(
                $(#[$doc])*
                #[cfg_attr(feature = "serde", serde(rename = $ddnet))]
                $name(obj_variant!($ty, $name)),
            )*
            /// An item of a type the protocol does not define, or whose size does not fit
            /// its type; kept as it is.
            Raw($crate::gamenet::RawObject<'a>),
        }

        impl<'a> Object<'a> {
            /// Types an item's data; what does not fit stays [`Object::Raw`].
            pub fn decode(ty: $crate::gamenet::ObjectType, data: &'a [i32]) -> Object<'a> {
                match ObjectKind::from_type(ty) {
                    Some(kind) => Object::decode_as(kind, data),
                    None => Object::Raw($crate::gamenet::RawObject::new(
                        ty,
                        data,
                        $crate::gamenet::RawWhy::UnknownType,
                    )),
                }
            }

            /// Types an item's data as `kind`; stays [`Object::Raw`] if its size does not
            /// fit: shorter than the required fields, or, for a numbered type, longer than
            /// all of them (an extended type keeps the ints after its fields, see
            /// [`ExObject`](crate::gamenet::ExObject)).
            pub fn decode_as(kind: ObjectKind, data: &'a [i32]) -> Object<'a> {
                match kind {
                    $(
                        ObjectKind::$name => {
                            if let Some(value) = obj_decode!($ty, $name, data) {
                                return Object::$name(value);
                            }
                        }
                    )*
                }
                Object::Raw($crate::gamenet::RawObject::new(
                    kind.object_type(),
                    data,
                    $crate::gamenet::RawWhy::Size,
                ))
            }

            /// The kind, or `None` for [`Object::Raw`].
            pub fn kind(&self) -> Option<ObjectKind> {
                match self {
                    $( Object::$name(_) => Some(ObjectKind::$name), )*
                    Object::Raw(_) => None,
                }
            }

            /// DDNet's name of the object, or `"Raw"`.
            pub fn name(&self) -> &'static str {
                self.kind().map_or("Raw", ObjectKind::name)
            }

            /// The item type.
            pub fn object_type(&self) -> $crate::gamenet::ObjectType {
                match self {
                    $( Object::$name(_) => $name::TYPE, )*
                    Object::Raw(raw) => raw.object_type,
                }
            }

            /// Appends the item's data. A raw item is refused if its data would read back
            /// typed.
            pub fn write_ints(
                &self,
                out: &mut Vec<i32>,
            ) -> Result<(), $crate::gamenet::wire::EncodeError> {
                let start = out.len();
                let result = match self {
                    $( Object::$name(value) => obj_write_variant!($ty, $name, value, out), )*
                    Object::Raw(raw) => {
                        match Object::decode(raw.object_type, &raw.data) {
                            Object::Raw(_) => {
                                out.extend_from_slice(&raw.data);
                                Ok(())
                            }
                            typed => Err($crate::gamenet::wire::EncodeError::RawReadsTyped {
                                record: typed.name(),
                            }),
                        }
                    }
                };
                if result.is_err() {
                    out.truncate(start);
                }
                result
            }

            /// The same object owning its data.
            pub fn into_owned(self) -> Object<'static> {
                match self {
                    $( Object::$name(value) => Object::$name(obj_owned!($ty, value)), )*
                    Object::Raw(raw) => Object::Raw(raw.into_owned()),
                }
            }
        }
    };
}

/// The Rust type of a message field kind.
macro_rules! msg_ty {
    (int) => { i32 };
    ((opt int)) => { Option<i32> };
    ((ints $n:literal)) => { [i32; $n] };
    (str) => { $crate::codec::string::NulStr<std::borrow::Cow<'a, [u8]>> };
    ((opt str)) => { Option<$crate::codec::string::NulStr<std::borrow::Cow<'a, [u8]>>> };
    (uuid) => { uuid::Uuid };
    ((raw $n:literal)) => { $crate::gamenet::RawBytes<$n> };
    ((strs $n:literal)) => { [$crate::codec::string::NulStr<std::borrow::Cow<'a, [u8]>>; $n] };
    (rest) => { $crate::codec::string::Bytes<'a> };
    (bytes) => { $crate::codec::string::Bytes<'a> };
}

/// Reads a message field.
macro_rules! msg_read {
    ($u:ident, int) => {
        $u.int()?
    };
    ($u:ident, (opt int)) => {
        $u.opt_int()?
    };
    ($u:ident, (ints $n:literal)) => {{
        let mut all = [0i32; $n];
        for value in &mut all {
            *value = $u.int()?;
        }
        all
    }};
    ($u:ident, str) => {
        $crate::codec::string::NulStr(std::borrow::Cow::Borrowed($u.str()?))
    };
    ($u:ident, (opt str)) => {
        if $u.is_empty() {
            None
        } else {
            Some($crate::codec::string::NulStr(std::borrow::Cow::Borrowed(
                $u.str()?,
            )))
        }
    };
    ($u:ident, uuid) => {
        $u.uuid()?
    };
    ($u:ident, (raw $n:literal)) => {
        $crate::gamenet::RawBytes($u.raw::<$n>()?)
    };
    ($u:ident, (strs $n:literal)) => {{
        let mut all: [$crate::codec::string::NulStr<std::borrow::Cow<'a, [u8]>>; $n] =
            Default::default();
        for text in &mut all {
            *text = $crate::codec::string::NulStr(std::borrow::Cow::Borrowed($u.str()?));
        }
        all
    }};
    ($u:ident, bytes) => {
        $crate::codec::string::Bytes::borrowed($u.sized()?)
    };
    ($u:ident, rest) => {
        $crate::codec::string::Bytes::borrowed($u.rest())
    };
}

/// Packs a message field (`$v` is a reference to it).
macro_rules! msg_write {
    ($w:ident, $f:ident, $v:expr, int) => {
        $crate::gamenet::wire::pack_int(&mut $w, stringify!($f), *$v)?
    };
    ($w:ident, $f:ident, $v:expr, (opt int)) => {
        match *$v {
            Some(v) => $crate::gamenet::wire::pack_int(&mut $w, stringify!($f), v)?,
            None => $w.missing(),
        }
    };
    ($w:ident, $f:ident, $v:expr, (ints $n:literal)) => {
        for &value in $v {
            $crate::gamenet::wire::pack_int(&mut $w, stringify!($f), value)?;
        }
    };
    ($w:ident, $f:ident, $v:expr, str) => {
        $crate::gamenet::wire::pack_str(&mut $w, stringify!($f), &$v.0)?
    };
    ($w:ident, $f:ident, $v:expr, (opt str)) => {
        match $v {
            Some(text) => $crate::gamenet::wire::pack_str(&mut $w, stringify!($f), &text.0)?,
            None => $w.missing(),
        }
    };
    ($w:ident, $f:ident, $v:expr, uuid) => {{
        $w.present(stringify!($f))?;
        $w.out.extend_from_slice($v.as_bytes());
    }};
    ($w:ident, $f:ident, $v:expr, (raw $n:literal)) => {{
        $w.present(stringify!($f))?;
        $w.out.extend_from_slice(&$v.0);
    }};
    ($w:ident, $f:ident, $v:expr, (strs $n:literal)) => {
        for text in $v {
            $crate::gamenet::wire::pack_str(&mut $w, stringify!($f), &text.0)?;
        }
    };
    ($w:ident, $f:ident, $v:expr, bytes) => {
        $crate::gamenet::wire::pack_sized(&mut $w, stringify!($f), &$v.0)?
    };
    ($w:ident, $f:ident, $v:expr, rest) => {{
        $w.present(stringify!($f))?;
        $w.out.extend_from_slice(&$v.0);
        // Whatever follows is read back into this field.
        $w.missing();
    }};
}

/// A struct name with `'static` for its lifetime, if it has one.
macro_rules! with_static {
    ($name:ident) => { $name };
    ($name:ident < $lt:lifetime >) => { $name<'static> };
}

/// A message id from its table form: (system, id).
macro_rules! msg_id {
    ($n:literal) => {
        (false, $crate::gamenet::MessageId::Number($n))
    };
    ((sys $n:literal)) => {
        (true, $crate::gamenet::MessageId::Number($n))
    };
    ((ex $name:literal $uuid:literal)) => {
        (
            false,
            $crate::gamenet::MessageId::Uuid(uuid::Uuid::from_u128($uuid)),
        )
    };
    ((sys_ex $name:literal $uuid:literal)) => {
        (
            true,
            $crate::gamenet::MessageId::Uuid(uuid::Uuid::from_u128($uuid)),
        )
    };
}

/// Defines the messages of a protocol: a struct each, [`MessageKind`] and [`Message`].
macro_rules! net_messages {
    ($(
        $(#[$doc:meta])*
        $name:ident $(<$lt:lifetime>)? = $id:tt, $ddnet:literal {
            $( $(#[$fdoc:meta])* $field:ident : $kind:tt ),* $(,)?
        }
    )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, PartialEq, Eq, Default)]
            #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
            pub struct $name $(<$lt>)? {
                $( $(#[$fdoc])* pub $field: msg_ty!($kind), )*
            }

            impl<'a> $name $(<$lt>)? {
                /// DDNet's name of the message.
                pub const NAME: &'static str = $ddnet;
                /// Whether it is a system message, and its id.
                pub const ID: (bool, $crate::gamenet::MessageId) = msg_id!($id);
                /// The name DDNet derives the message's UUID from, for an extended message.
                pub const EXTENSION: Option<&'static str> = extension_name!($id);
                /// The fields in wire order.
                pub const FIELDS: &'static [$crate::gamenet::Field] = &[
                    $( $crate::gamenet::Field { name: stringify!($field), kind: field_kind!($kind) }, )*
                ];

                /// Reads the fields (after the id).
                #[allow(unused_variables)]
                fn unpack_fields(u: &mut $crate::gamenet::wire::Unpacker<'a>) -> Option<Self> {
                    Some($name { $( $field: msg_read!(u, $kind), )* })
                }

                /// Packs the fields (after the id); `Ok(true)` if more bytes after them
                /// would be read back as a field (a missing optional int, a `rest`).
                fn pack_fields(
                    &self,
                    out: &mut Vec<u8>,
                ) -> Result<bool, $crate::gamenet::wire::EncodeError> {
                    #[allow(unused_mut, unused_variables)]
                    let mut w = $crate::gamenet::wire::FieldWriter::new(out, Self::NAME);
                    $( msg_write!(w, $field, &self.$field, $kind); )*
                    Ok(w.is_open())
                }

                /// The same message owning its strings.
                pub fn into_owned(self) -> with_static!($name $(<$lt>)?) {
                    $name { $( $field: $crate::gamenet::Owned::owned(self.$field), )* }
                }
            }
        )*

        /// Every message of the protocol, without fields.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[non_exhaustive]
        pub enum MessageKind {
            $( $(#[$doc])* $name, )*
        }

        /// The game (index 0) and system (index 1) message kinds by number.
        const NUMBERED_MESSAGE_KINDS: [[Option<MessageKind>; 64]; 2] = {
            let mut table = [[None; 64]; 2];
            $(
                if let (system, $crate::gamenet::MessageId::Number(n)) = msg_id!($id) {
                    // Evaluated at build time: a number outside the table stops the build.
                    assert!(n >= 0 && n < 64, "a numbered message id outside 0..64");
                    if let Some((_, [row, ..])) = table.split_at_mut_checked(system as usize)
                        && let Some((_, [slot, ..])) = row.split_at_mut_checked(n as usize)
                    {
                        *slot = Some(MessageKind::$name);
                    }
                }
            )*
            table
        };

        impl MessageKind {
            /// Every kind, in table order.
            pub const ALL: &'static [MessageKind] = &[$(MessageKind::$name),*];

            /// DDNet's name of the message.
            pub const fn name(self) -> &'static str {
                match self { $( MessageKind::$name => $ddnet, )* }
            }

            /// Whether it is a system message, and its id.
            pub const fn id(self) -> (bool, $crate::gamenet::MessageId) {
                match self { $( MessageKind::$name => msg_id!($id), )* }
            }

            /// The name DDNet derives the message's UUID from, for an extended message.
            pub const fn extension(self) -> Option<&'static str> {
                match self { $( MessageKind::$name => $name::EXTENSION, )* }
            }

            /// The fields in wire order.
            pub const fn fields(self) -> &'static [$crate::gamenet::Field] {
                match self { $( MessageKind::$name => $name::FIELDS, )* }
            }

            /// The kind of a message id, if the protocol defines it.
            pub fn from_id(system: bool, id: $crate::gamenet::MessageId) -> Option<MessageKind> {
                match id {
                    $crate::gamenet::MessageId::Number(n) => NUMBERED_MESSAGE_KINDS
                        .get(usize::from(system))?
                        .get(usize::try_from(n).ok()?)
                        .copied()
                        .flatten(),
                    $crate::gamenet::MessageId::Uuid(_) => {
                        MessageKind::ALL.iter().copied().find(|k| k.id() == (system, id))
                    }
                }
            }
        }

        /// A network message of this protocol, typed.
        ///
        /// With the `serde` feature: the message's fields with `"type"`, DDNet's name of the
        /// message (`"Raw"` for [`Message::Raw`]).
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(tag = "type"))]
        #[non_exhaustive]
        // Messages are views handed out one at a time; boxing the few large ones (fifteen
        // vote options) would allocate per message.
        #[allow(clippy::large_enum_variant)]
        pub enum Message<'a> {
            $(
                $(#[$doc])*
                #[cfg_attr(feature = "serde", serde(rename = $ddnet))]
                $name($name $(<$lt>)?),
            )*
            /// A message the protocol does not define, or that does not unpack exactly;
            /// kept as it is.
            Raw($crate::gamenet::RawMessage<'a>),
        }

        impl<'a> Message<'a> {
            /// Unpacks a message. It never fails: a message whose id the protocol does not
            /// define, whose fields do not unpack, or whose ints are not in their shortest
            /// form (so that packing it again would change its bytes) is [`Message::Raw`].
            /// Bytes after the fields (a demo's padding to whole ints) are kept as
            /// `trailing`.
            pub fn unpack(data: &'a [u8]) -> $crate::gamenet::Unpacked<'a, Message<'a>> {
                let raw = |why| $crate::gamenet::Unpacked {
                    message: Message::Raw($crate::gamenet::RawMessage::new(data, why)),
                    trailing: $crate::codec::string::Bytes::borrowed(&[]),
                };
                let mut u = $crate::gamenet::wire::Unpacker::new(data);
                let Some((system, id)) = $crate::gamenet::unpack_message_id(&mut u) else {
                    return raw($crate::gamenet::RawWhy::Malformed);
                };
                let Some(kind) = MessageKind::from_id(system, id) else {
                    return raw($crate::gamenet::RawWhy::UnknownType);
                };
                let message = match kind {
                    $(
                        MessageKind::$name => $name::unpack_fields(&mut u).map(Message::$name),
                    )*
                };
                match message {
                    None => raw($crate::gamenet::RawWhy::Malformed),
                    Some(_) if u.saw_non_canonical() => raw($crate::gamenet::RawWhy::NonCanonical),
                    Some(message) => $crate::gamenet::Unpacked {
                        message,
                        trailing: $crate::codec::string::Bytes::borrowed(u.rest()),
                    },
                }
            }

            /// The kind, or `None` for [`Message::Raw`].
            pub fn kind(&self) -> Option<MessageKind> {
                match self {
                    $( Message::$name(_) => Some(MessageKind::$name), )*
                    Message::Raw(_) => None,
                }
            }

            /// DDNet's name of the message, or `"Raw"`.
            pub fn name(&self) -> &'static str {
                self.kind().map_or("Raw", MessageKind::name)
            }

            /// Packs the message, id included. `Ok(true)` if bytes after it would be read
            /// back as one of its fields. A raw message is refused if it would unpack typed.
            pub fn pack(
                &self,
                out: &mut Vec<u8>,
            ) -> Result<bool, $crate::gamenet::wire::EncodeError> {
                let start = out.len();
                let result = match self {
                    $(
                        Message::$name(value) => {
                            $crate::gamenet::pack_message_id(msg_id!($id), out);
                            value.pack_fields(out)
                        }
                    )*
                    Message::Raw(raw) => match Message::unpack(&raw.bytes.0).message {
                        Message::Raw(_) => {
                            out.extend_from_slice(&raw.bytes.0);
                            Ok(true)
                        }
                        typed => Err($crate::gamenet::wire::EncodeError::RawReadsTyped {
                            record: typed.name(),
                        }),
                    },
                };
                if result.is_err() {
                    out.truncate(start);
                }
                result
            }

            /// The same message owning its strings.
            pub fn into_owned(self) -> Message<'static> {
                match self {
                    $( Message::$name(value) => Message::$name(value.into_owned()), )*
                    Message::Raw(raw) => Message::Raw(raw.into_owned()),
                }
            }
        }

        impl<'a> $crate::gamenet::PackMessage for Message<'a> {
            fn pack_message(
                &self,
                out: &mut Vec<u8>,
            ) -> Result<bool, $crate::gamenet::wire::EncodeError> {
                self.pack(out)
            }
        }
    };
}
