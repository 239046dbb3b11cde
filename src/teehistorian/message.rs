//! Messages: the typed form of everything after the header, with a zero-copy decoder and a
//! canonical encoder.
//!
//! Strings and payloads borrow from the input and keep their raw bytes: DDNet writes UTF-8,
//! but a reader should not refuse (or silently repair) what a file holds. The decoder accepts
//! ints in non-canonical forms, as DDNet's unpacker does, and counts them
//! ([`Decoded::non_canonical`]); the encoder writes only canonical ints, so a message with a
//! non-zero count re-encodes to different bytes and a byte-exact rewrite must copy its raw
//! bytes instead (the [`writer`](super::writer) does).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::EncodeError;
use super::format::{INPUT_INTS, id};
use crate::codec::string::NulStr;
use crate::codec::varint;
use std::borrow::Cow;
use std::fmt;
use uuid::Uuid;

/// With feature `serde`: an array of strings, each as a [`NulStr`] serializes.
#[cfg(feature = "serde")]
impl serde::Serialize for Args<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// Serializes bytes as lowercase hex (the form of [`Bytes`](crate::codec::string::Bytes)).
#[cfg(feature = "serde")]
pub(crate) fn serialize_hex<S: serde::Serializer>(
    bytes: &&[u8],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&hex::encode(bytes))
}

/// Who a client is on the remote console, as AUTH_LOGIN records it: a level number (DDNet up
/// to 20.x: 1 helper, 2 moderator, 3 admin) or, since DDNet #12788, a role by name. `S` holds
/// the name's bytes: borrowed in a [`Message`], a [`Cow`] in a layout. With feature `serde`
/// it is the number or the name's string.
///
/// Level 0 (which DDNet never logs in at) and an empty name have the same bytes; they
/// read back as the empty name.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
#[cfg_attr(
    feature = "serde",
    serde(bound(serialize = "S: AsRef<[u8]>", deserialize = "S: From<Vec<u8>>"))
)]
pub enum AuthRole<S> {
    /// A level, as DDNet up to 20.x writes it.
    Level(i32),
    /// A role's name, as DDNet #12788 writes it.
    Name(NulStr<S>),
}

impl<S: AsRef<[u8]>> fmt::Debug for AuthRole<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthRole::Level(level) => f.debug_tuple("Level").field(level).finish(),
            AuthRole::Name(name) => f.debug_tuple("Name").field(name).finish(),
        }
    }
}

impl<S: AsRef<[u8]>> AuthRole<S> {
    /// The role borrowing its name.
    pub fn as_borrowed(&self) -> AuthRole<&[u8]> {
        match self {
            AuthRole::Level(level) => AuthRole::Level(*level),
            AuthRole::Name(name) => AuthRole::Name(name.as_borrowed()),
        }
    }

    /// The role's name: the one written, or DDNet's name of a level (`helper`,
    /// `moderator`, `admin`; other levels by number).
    pub fn name(&self) -> Cow<'_, str> {
        match self {
            AuthRole::Level(1) => Cow::Borrowed("helper"),
            AuthRole::Level(2) => Cow::Borrowed("moderator"),
            AuthRole::Level(3) => Cow::Borrowed("admin"),
            AuthRole::Level(level) => Cow::Owned(format!("level {level}")),
            AuthRole::Name(name) => name.to_string_lossy(),
        }
    }
}

/// The argument strings of a CONSOLE_COMMAND.
///
/// Read from a file they are one borrowed run of NUL-terminated strings ([`Args::packed`]);
/// a program recording commands hands in a list instead ([`Args::list`]). Both forms compare
/// equal when they hold the same strings.
#[derive(Clone, Copy)]
pub struct Args<'a>(ArgsRepr<'a>);

#[derive(Clone, Copy)]
enum ArgsRepr<'a> {
    Packed { raw: &'a [u8], count: usize },
    List(&'a [&'a [u8]]),
}

impl<'a> Args<'a> {
    /// No arguments.
    pub const EMPTY: Args<'static> = Args(ArgsRepr::List(&[]));

    /// Arguments stored as consecutive NUL-terminated strings, as in the file. Returns `None`
    /// unless `raw` is empty or ends with a NUL.
    pub fn packed(raw: &'a [u8]) -> Option<Self> {
        if !raw.is_empty() && raw.last() != Some(&0) {
            return None;
        }
        let count = raw.iter().filter(|&&b| b == 0).count();
        Some(Args(ArgsRepr::Packed { raw, count }))
    }

    /// Packed arguments whose count is known (read from a file: `raw` holds `count`
    /// NUL-terminated strings).
    pub(crate) const fn packed_counted(raw: &'a [u8], count: usize) -> Self {
        Args(ArgsRepr::Packed { raw, count })
    }

    /// Arguments as a list of strings (without NULs; the encoder refuses a NUL inside one).
    pub const fn list(items: &'a [&'a [u8]]) -> Self {
        Args(ArgsRepr::List(items))
    }

    /// The number of arguments.
    pub fn len(&self) -> usize {
        match self.0 {
            ArgsRepr::Packed { count, .. } => count,
            ArgsRepr::List(items) => items.len(),
        }
    }

    /// Whether there are no arguments.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The arguments in order.
    pub fn iter(&self) -> ArgsIter<'a> {
        ArgsIter(match self.0 {
            ArgsRepr::Packed { raw, .. } => ArgsIterRepr::Packed(raw),
            ArgsRepr::List(items) => ArgsIterRepr::List(items.iter()),
        })
    }

    /// The bytes of the packed form (each argument followed by a NUL), if this was read from
    /// a file.
    pub(crate) fn packed_bytes(&self) -> Option<&'a [u8]> {
        match self.0 {
            ArgsRepr::Packed { raw, .. } => Some(raw),
            ArgsRepr::List(_) => None,
        }
    }
}

impl Default for Args<'_> {
    fn default() -> Self {
        Args::EMPTY
    }
}

impl PartialEq for Args<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Args<'_> {}

impl fmt::Debug for Args<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for Args<'a> {
    type Item = NulStr<&'a [u8]>;
    type IntoIter = ArgsIter<'a>;
    fn into_iter(self) -> ArgsIter<'a> {
        self.iter()
    }
}

/// Iterator over [`Args`].
#[derive(Debug, Clone)]
pub struct ArgsIter<'a>(ArgsIterRepr<'a>);

#[derive(Debug, Clone)]
enum ArgsIterRepr<'a> {
    Packed(&'a [u8]),
    List(std::slice::Iter<'a, &'a [u8]>),
}

impl<'a> Iterator for ArgsIter<'a> {
    type Item = NulStr<&'a [u8]>;
    fn next(&mut self) -> Option<NulStr<&'a [u8]>> {
        match &mut self.0 {
            ArgsIterRepr::Packed(rest) => {
                let nul = rest.iter().position(|&b| b == 0)?;
                let (item, tail) = rest.split_at_checked(nul)?;
                // Past the NUL.
                *rest = tail.get(1..).unwrap_or_default();
                Some(NulStr(item))
            }
            ArgsIterRepr::List(items) => items.next().map(|&s| NulStr(s)),
        }
    }
}

/// The view type of a field encoding (see [`records`](super::records)).
macro_rules! view_type {
    (int) => { i32 };
    (input) => { [i32; INPUT_INTS] };
    (uuid) => { Uuid };
    (str) => { NulStr<&'a [u8]> };
    (bytes) => { &'a [u8] };
    (rest) => { &'a [u8] };
    (args) => { Args<'a> };
    (role) => { AuthRole<&'a [u8]> };
}

/// Decodes one field with the fast decoder; `$what` names it in errors.
macro_rules! decode_field {
    ($c:ident, int, $what:expr) => {
        $c.int()?
    };
    ($c:ident, input, $what:expr) => {
        $c.input()?
    };
    ($c:ident, uuid, $what:expr) => {
        $c.uuid()?
    };
    ($c:ident, str, $what:expr) => {
        $c.str()?
    };
    ($c:ident, bytes, $what:expr) => {
        $c.sized_bytes(concat!($what, " size"))?
    };
    ($c:ident, rest, $what:expr) => {
        $c.rest()
    };
    ($c:ident, args, $what:expr) => {
        $c.args(concat!($what, " count"))?
    };
    ($c:ident, role, $what:expr) => {
        $c.role()?
    };
}

/// Defines [`ExKind`] and [`Ex`] from the table of EX records, with the fast decoding of
/// their payloads.
macro_rules! define_ex_views {
    ($(
        $(#[$doc:meta])*
        $variant:ident $(<$lt:lifetime>)? = $name:literal, $uuid:literal
        $({ $( $(#[$fdoc:meta])* $field:ident $(as $json:literal)? : $kind:ident ),* $(,)? })? $(;)?
    )*) => {
        /// The 22 extension records: DDNet 20.1's 21 (`teehistorian_ex_chunks.h`, in its
        /// order) and AUTH_INIT_ROLE (DDNet #12788). DDNet adds records over time, so matches need a wildcard arm.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ExKind {
            $( $(#[$doc])* $variant, )*
        }

        impl ExKind {
            /// Every kind, in DDNet's registration order.
            pub const ALL: &'static [ExKind] = &[ $( ExKind::$variant, )* ];

            /// The extension's name, e.g. `"teehistorian-player-name@ddnet.org"`.
            pub const fn name(self) -> &'static str {
                match self { $( ExKind::$variant => $name, )* }
            }

            /// `"EX:"` and the name: the kind name [`Message::kind_name`] reports.
            pub const fn kind_name(self) -> &'static str {
                match self { $( ExKind::$variant => concat!("EX:", $name), )* }
            }

            /// The extension's UUID.
            pub const fn uuid(self) -> Uuid {
                match self { $( ExKind::$variant => Uuid::from_u128($uuid), )* }
            }

            /// The kind with this UUID, if it is one of the 22.
            pub const fn from_uuid(uuid: Uuid) -> Option<ExKind> {
                match uuid.as_u128() {
                    $( $uuid => Some(ExKind::$variant), )*
                    _ => None,
                }
            }
        }

        /// An extension (EX) message: a UUID and a payload, typed when the UUID is one of
        /// DDNet's. DDNet adds records over time, so matches need a wildcard arm.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Ex<'a> {
            $(
                $(#[$doc])*
                $variant $({ $( $(#[$fdoc])* $field: view_type!($kind), )* })?,
            )*
            /// An EX message this crate does not type: its UUID is not one of the 22, or its
            /// payload does not match the layout of its UUID ([`ExKind::from_uuid`] still
            /// names it then).
            Unknown {
                /// The UUID.
                uuid: Uuid,
                /// The payload.
                data: &'a [u8],
            },
        }

        impl<'a> Ex<'a> {
            /// The kind of a typed message; for [`Ex::Unknown`], the kind its UUID names, if
            /// any.
            pub fn kind(&self) -> Option<ExKind> {
                Some(match self {
                    $( Ex::$variant $({ $($field: _),* })? => ExKind::$variant, )*
                    Ex::Unknown { uuid, .. } => return ExKind::from_uuid(*uuid),
                })
            }
        }

        /// Decodes the payload of a known EX kind; the caller checks that all of it was used.
        fn parse_ex<'a>(kind: ExKind, c: &mut Fields<'a>) -> Result<Ex<'a>, DecodeError> {
            Ok(match kind {
                $(
                    ExKind::$variant => Ex::$variant $({
                        $( $field: decode_field!(c, $kind, concat!($name, " ", stringify!($field))), )*
                    })?,
                )*
            })
        }
    };
}

/// Defines [`Message`] from the table of messages (and the two messages outside it), with
/// the fast decoding of their bodies.
macro_rules! define_message_views {
    ($(
        $(#[$doc:meta])*
        $variant:ident $(<$lt:lifetime>)? = $id:ident, $name:literal
        $({ $( $(#[$fdoc:meta])* $field:ident $(as $json:literal)? : $kind:ident ),* $(,)? })? $(;)?
    )*) => {
        /// One teehistorian message, borrowing its strings and payloads from the input.
        ///
        /// The owned form is [`OwnedMessage`](super::layout::OwnedMessage) (through
        /// [`to_layout`](Message::to_layout) and
        /// [`as_message`](super::layout::MessageLayout::as_message)); with feature `serde`
        /// a message serializes as its layout does.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Message<'a> {
            /// PLAYER_DIFF (id = cid ≥ 0): a character moved by (dx, dy).
            PlayerDiff {
                /// Client id, written as the message id; must not be negative.
                cid: i32,
                /// Change of x.
                dx: i32,
                /// Change of y.
                dy: i32,
            },
            $(
                $(#[$doc])*
                $variant $({ $( $(#[$fdoc])* $field: view_type!($kind), )* })?,
            )*
            /// EX (-11): an extension message.
            Ex(Ex<'a>),
        }

        impl<'a> Message<'a> {
            /// The id the message starts with (the cid for PLAYER_DIFF).
            pub fn id(&self) -> i32 {
                match self {
                    Message::PlayerDiff { cid, .. } => *cid,
                    $( Message::$variant $({ $($field: _),* })? => id::$id, )*
                    Message::Ex(_) => id::EX,
                }
            }
        }

        /// The DDNet name of a message id (PLAYER_DIFF for ids ≥ 0), or `None` for unknown
        /// ids.
        pub fn id_name(id: i32) -> Option<&'static str> {
            Some(match id {
                0.. => "PLAYER_DIFF",
                $( id::$id => $name, )*
                id::EX => "EX",
                _ => return None,
            })
        }

        /// What a truncation error says was expected, for a message that starts with `id`.
        fn expected_whole(id: i32) -> &'static str {
            match id {
                0.. => "the rest of the PLAYER_DIFF message",
                $( id::$id => concat!("the rest of the ", $name, " message"), )*
                id::EX => "the rest of the EX message",
                _ => "a message",
            }
        }

        /// Decodes the body of a message that starts with `id`.
        #[inline(always)]
        fn decode_body<'a>(id: i32, c: &mut Fields<'a>) -> Result<Message<'a>, DecodeError> {
            Ok(match id {
                cid @ 0.. => Message::PlayerDiff {
                    cid,
                    dx: c.int()?,
                    dy: c.int()?,
                },
                $(
                    id::$id => Message::$variant $({
                        $( $field: decode_field!(c, $kind, concat!($name, " ", stringify!($field))), )*
                    })?,
                )*
                id::EX => {
                    let uuid = c.uuid()?;
                    let data = c.sized_bytes("EX size")?;
                    let (ex, non_canonical) = Ex::from_payload(uuid, data);
                    c.non_canonical += non_canonical;
                    Message::Ex(ex)
                }
                id => return Err(DecodeError::UnknownMessageId { id }),
            })
        }
    };
}

ex_records!(define_ex_views);
message_records!(define_message_views);

// The readers hand out a message per call and the loops over them move it: a message and
// the views that carry one stay `Copy` (no drop glue) and a message no larger than its
// largest variant needs (CONSOLE_COMMAND: two ints, a borrowed string and the packed
// arguments), so that handing one on costs no more than decoding it. A 64-byte message
// that was not `Copy` (strings that could be owned) made the slice reader 1.45 times and
// its fold 1.96 times slower.
const _: () = assert!(std::mem::size_of::<Message<'static>>() <= 56);
const _: () = {
    const fn copy<T: Copy>() {}
    copy::<Message<'static>>();
    copy::<Ex<'static>>();
    copy::<Decoded<'static>>();
    copy::<super::reader::MessageAt<'static>>();
    copy::<super::semantic::Event<'static>>();
    copy::<super::semantic::EventKind<'static>>();
};

impl<'a> Ex<'a> {
    /// The UUID written in the file.
    pub fn uuid(&self) -> Uuid {
        match self {
            Ex::Unknown { uuid, .. } => *uuid,
            typed => typed.kind().map(ExKind::uuid).unwrap_or_default(),
        }
    }

    /// `"EX:"` and the extension's name, or `"EX:"` and the hyphenated UUID when the UUID is
    /// not one of DDNet's.
    pub fn kind_name(&self) -> Cow<'static, str> {
        match self.kind() {
            Some(kind) => Cow::Borrowed(kind.kind_name()),
            None => Cow::Owned(format!("EX:{}", self.uuid())),
        }
    }

    /// Types the payload of an EX message with `uuid`. Falls back to [`Ex::Unknown`] when the
    /// UUID is unknown or the payload is not exactly its layout. Returns the message and the
    /// number of non-canonical ints in a typed payload.
    pub(crate) fn from_payload(uuid: Uuid, data: &'a [u8]) -> (Ex<'a>, u32) {
        let unknown = Ex::Unknown { uuid, data };
        let Some(kind) = ExKind::from_uuid(uuid) else {
            return (unknown, 0);
        };
        let mut c = Fields::new(data, "");
        match parse_ex(kind, &mut c) {
            Ok(ex) if c.pos == data.len() => (ex, c.non_canonical),
            _ => (unknown, 0),
        }
    }

    /// Appends the payload in DDNet's form (canonical ints, NUL-terminated strings), through
    /// its layout.
    pub fn encode_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let mut cursor = std::io::Cursor::new(out);
        cursor.set_position(cursor.get_ref().len() as u64);
        let start = cursor.get_ref().len();
        let result = self.to_layout().write_payload(&mut cursor);
        let out = cursor.into_inner();
        result.map_err(|e| {
            out.truncate(start);
            encode_error(&e)
        })
    }
}

/// The [`EncodeError`] a layout refused a write with.
fn encode_error(e: &binrw::Error) -> EncodeError {
    e.custom_err::<EncodeError>()
        .copied()
        // Writing to a vector fails only by the layouts' own refusals.
        .unwrap_or(EncodeError::TooLong {
            what: "message",
            len: usize::MAX,
        })
}

impl<'a> Message<'a> {
    /// The name of the message's kind as the reference reader counts them: `"PLAYER_DIFF"`,
    /// `"TICK_SKIP"`, `"MESSAGE"`, ..., and for EX `"EX:"` with the extension's name (or its
    /// UUID when unknown), e.g. `"EX:teehistorian-player-name@ddnet.org"`.
    pub fn kind_name(&self) -> Cow<'static, str> {
        match self {
            Message::Ex(ex) => ex.kind_name(),
            other => Cow::Borrowed(id_name(other.id()).unwrap_or("PLAYER_DIFF")),
        }
    }

    /// The client id of a player record (PLAYER_DIFF, PLAYER_NEW, PLAYER_OLD): the records
    /// that advance the tick implicitly.
    pub fn player_record_cid(&self) -> Option<i32> {
        match *self {
            Message::PlayerDiff { cid, .. }
            | Message::PlayerNew { cid, .. }
            | Message::PlayerOld { cid } => Some(cid),
            _ => None,
        }
    }

    /// Decodes the message at the start of `input`.
    ///
    /// Never reads past what the message's own fields announce and never allocates: a size
    /// field larger than the input is a [`DecodeError::Incomplete`] error, not a buffer.
    #[inline]
    pub fn decode(input: &'a [u8]) -> Result<Decoded<'a>, DecodeError> {
        if let Some(window) = input.first_chunk::<INT_WINDOW>()
            && let Some(decoded) = decode_ints_only(window)
        {
            return Ok(decoded);
        }
        let mut c = Fields::new(input, "a message id");
        let id = c.int()?;
        c.expected = expected_whole(id);
        let message = decode_body(id, &mut c)?;
        Ok(Decoded {
            message,
            len: c.pos,
            non_canonical: c.non_canonical,
            cut_args: 0,
        })
    }

    /// Decodes `raw`, the stored bytes of exactly one message, as the readers decode it in
    /// a file whose writer used the old 2 KiB packer when `legacy_packer` is set
    /// ([`has_legacy_packer`]): a console command such a packer may have cut is read as one.
    /// `None` when `raw` is not exactly one message.
    ///
    /// For a tool that keeps a message's bytes past the reader's next one and needs the
    /// message again, and for the writers' check of bytes they copy.
    pub(crate) fn decode_stored(raw: &'a [u8], legacy_packer: bool) -> Option<Decoded<'a>> {
        legacy_packer
            .then(|| Message::decode_cut_console_command(raw))
            .flatten()
            .or_else(|| Message::decode(raw).ok())
            .filter(|decoded| decoded.len == raw.len())
    }

    /// Decodes a CONSOLE_COMMAND as DDNet's writer wrote it before minor version 9, when
    /// every record went through a packer of [`LEGACY_PACKER_SIZE`] bytes.
    ///
    /// A command line too long for it was cut: the argument that did not fit was kept up
    /// to the packer's end (at a character boundary, with its NUL), and the arguments after
    /// it were left out while the argument count still counted them. Read as usual, such a
    /// record would take the messages after it for its missing arguments. This reads the
    /// record to the end of the first argument that ends in the packer's last 4 bytes
    /// before the count is reached, which is where the old writer stopped.
    ///
    /// `None` when `input` does not start with such a record (another message, a command
    /// whose arguments all end within the packer, or one whose arguments do not end within
    /// it at all).
    pub fn decode_cut_console_command(input: &'a [u8]) -> Option<Decoded<'a>> {
        let window = input.get(..LEGACY_PACKER_SIZE).unwrap_or(input);
        let mut c = Fields::new(window, "");
        if c.int().ok()? != id::CONSOLE_COMMAND {
            return None;
        }
        let cid = c.int().ok()?;
        let flags = c.int().ok()?;
        let cmd = c.str().ok()?;
        let count = usize::try_from(c.int().ok()?).ok()?;
        let start = c.pos;
        for present in 1..count {
            c.str().ok()?;
            if c.pos > LEGACY_PACKER_SIZE - 4 {
                let raw = window.get(start..c.pos)?;
                return Some(Decoded {
                    message: Message::ConsoleCommand {
                        cid,
                        flags,
                        cmd,
                        args: Args::packed_counted(raw, present),
                    },
                    len: c.pos,
                    non_canonical: c.non_canonical,
                    cut_args: u32::try_from(count - present).unwrap_or(u32::MAX),
                });
            }
        }
        None
    }

    /// Appends the message as DDNet writes it (canonical ints, NUL-terminated strings),
    /// through its declarative layout ([`to_layout`](Self::to_layout)).
    ///
    /// On error `out` is left as it was.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.to_layout().encode(out)
    }

    /// The number of bytes [`encode`](Self::encode) appends (found by encoding into a
    /// scratch vector).
    pub fn encoded_len(&self) -> Result<usize, EncodeError> {
        let mut buf = Vec::new();
        self.encode(&mut buf)?;
        Ok(buf.len())
    }
}

/// The INPUT_DIFF payload DDNet writes for a client whose input changes from `old` to
/// `new`: the difference per int, wrapping as DDNet's `CSnapshotDelta::DiffItem` does in
/// practice.
pub(crate) fn input_diff(old: &[i32; INPUT_INTS], new: &[i32; INPUT_INTS]) -> [i32; INPUT_INTS] {
    let mut diff = [0; INPUT_INTS];
    for ((d, n), o) in diff.iter_mut().zip(new).zip(old) {
        *d = n.wrapping_sub(*o);
    }
    diff
}

/// The input an INPUT_DIFF leads to from the client's previous input `old`.
pub fn apply_input_diff(old: &[i32; INPUT_INTS], diff: &[i32; INPUT_INTS]) -> [i32; INPUT_INTS] {
    let mut new = [0; INPUT_INTS];
    for ((n, o), d) in new.iter_mut().zip(old).zip(diff) {
        *n = o.wrapping_add(*d);
    }
    new
}

/// The packer every record went through in DDNet's teehistorian writer before minor
/// version 9 (and in version 1): a record never exceeded it, and a console command that did
/// not fit was cut ([`Message::decode_cut_console_command`]).
pub const LEGACY_PACKER_SIZE: usize = 2048;

/// Whether a file with this header was written with the 2 KiB packer
/// ([`LEGACY_PACKER_SIZE`]): version 1, or version 2 without a minor version or with one
/// below 9.
pub(crate) fn has_legacy_packer(version: &str, version_minor: Option<&str>) -> bool {
    match (version, version_minor) {
        ("1", _) | ("2", None) => true,
        ("2", Some(minor)) => minor.parse::<u32>().is_ok_and(|m| m < 9),
        _ => false,
    }
}

/// A message decoded from the front of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// The message.
    pub message: Message<'a>,
    /// Its length in bytes.
    pub len: usize,
    /// How many of its ints were not in the form DDNet writes (so re-encoding the message
    /// would give different bytes).
    pub non_canonical: u32,
    /// For a CONSOLE_COMMAND cut by DDNet's old 2 KiB packer
    /// ([`Message::decode_cut_console_command`]): how many of the arguments its count
    /// announces are missing (so re-encoding the message would give different bytes).
    pub cut_args: u32,
}

/// Why [`Message::decode`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ends inside the message.
    #[error("expected {expected}, but the input ends")]
    Incomplete {
        /// What was being read.
        expected: &'static str,
        /// The message's length if the part read so far already tells (a MESSAGE or EX
        /// payload); otherwise more input is needed to know.
        need: Option<usize>,
    },
    /// The id is below EX (-11): the message's length cannot be known.
    #[error("unknown message id {id}")]
    UnknownMessageId {
        /// The id.
        id: i32,
    },
    /// A size or count is negative.
    #[error("{what} is negative ({value})")]
    NegativeLength {
        /// The field.
        what: &'static str,
        /// Its value.
        value: i32,
    },
}

/// A read position over a message's bytes that counts non-canonical ints.
struct Fields<'a> {
    input: &'a [u8],
    pos: usize,
    non_canonical: u32,
    /// What a truncation error says was expected.
    expected: &'static str,
}

impl<'a> Fields<'a> {
    fn new(input: &'a [u8], expected: &'static str) -> Self {
        Fields {
            input,
            pos: 0,
            non_canonical: 0,
            expected,
        }
    }

    /// The input ends inside the message; `need` is its length when the part read tells.
    #[cold]
    fn incomplete(&self, need: Option<usize>) -> DecodeError {
        DecodeError::Incomplete {
            expected: self.expected,
            need,
        }
    }

    /// Reads one int. Most ints in a recording are small diffs stored in one byte (always
    /// canonical), so that case comes first; a longer int with eight bytes left is decoded
    /// from one word ([`varint::unpack_long_word`]), and the end of the input goes through
    /// [`int_tail`](Self::int_tail).
    #[inline(always)]
    fn int(&mut self) -> Result<i32, DecodeError> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        match rest.first_chunk::<8>() {
            Some(word) if word[0] & 0x80 == 0 => {
                let b = word[0];
                self.pos += 1;
                Ok(i32::from(b & 0x3F) ^ -i32::from((b >> 6) & 1))
            }
            Some(word) => {
                let (value, len, last) = varint::unpack_long_word(u64::from_le_bytes(*word));
                if !is_canonical_end(len, last) {
                    self.non_canonical += 1;
                }
                self.pos += len;
                Ok(value)
            }
            None => self.int_tail(),
        }
    }

    /// [`int`](Self::int) within the last eight bytes of the input.
    #[inline(never)]
    fn int_tail(&mut self) -> Result<i32, DecodeError> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        let (value, len) = varint::unpack(rest).ok_or_else(|| self.incomplete(None))?;
        // `unpack` read `len` bytes, at least one.
        let last = rest.get(..len).and_then(<[u8]>::last).copied();
        if !is_canonical_end(len, last.unwrap_or_default()) {
            self.non_canonical += 1;
        }
        self.pos += len;
        Ok(value)
    }

    /// `input` fields.
    fn input(&mut self) -> Result<[i32; INPUT_INTS], DecodeError> {
        let mut ints = [0; INPUT_INTS];
        for slot in &mut ints {
            *slot = self.int()?;
        }
        Ok(ints)
    }

    /// A size or count: an int that must not be negative.
    fn length(&mut self, what: &'static str) -> Result<usize, DecodeError> {
        let value = self.int()?;
        usize::try_from(value).map_err(|_| DecodeError::NegativeLength { what, value })
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.pos.saturating_add(n);
        let bytes = self
            .input
            .get(self.pos..end)
            .ok_or_else(|| self.incomplete(Some(end)))?;
        self.pos = end;
        Ok(bytes)
    }

    /// `bytes` fields: a size, then that many bytes.
    fn sized_bytes(&mut self, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let size = self.length(what)?;
        self.bytes(size)
    }

    /// `rest` fields: everything left.
    fn rest(&mut self) -> &'a [u8] {
        // `pos` never passes the end of the input.
        let rest = self.input.get(self.pos..).unwrap_or_default();
        self.pos = self.input.len();
        rest
    }

    fn uuid(&mut self) -> Result<Uuid, DecodeError> {
        let bytes = self.bytes(16)?;
        Ok(Uuid::from_slice(bytes).unwrap_or_default())
    }

    fn str(&mut self) -> Result<NulStr<&'a [u8]>, DecodeError> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        let nul = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.incomplete(None))?;
        self.pos += nul + 1;
        Ok(NulStr(rest.get(..nul).unwrap_or_default()))
    }

    /// `role` fields: a role's name when the rest of the payload holds two NULs (the
    /// role's and the account name's), else the level as an int. The two layouts of
    /// AUTH_LOGIN differ there: DDNet up to 20.x writes `int level, str name` (one NUL, as
    /// a canonical int holds no zero byte but 0 itself), DDNet #12788 `str role, str name`
    /// (two NULs). The one payload both could read (level 0, an empty role) has the same
    /// bytes either way.
    fn role(&mut self) -> Result<AuthRole<&'a [u8]>, DecodeError> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        if rest.iter().filter(|&&b| b == 0).nth(1).is_some() {
            Ok(AuthRole::Name(self.str()?))
        } else {
            Ok(AuthRole::Level(self.int()?))
        }
    }

    /// `args` fields: a count, then that many strings, kept packed.
    fn args(&mut self, what: &'static str) -> Result<Args<'a>, DecodeError> {
        let count = self.length(what)?;
        let start = self.pos;
        // Each argument takes at least its NUL, so the loop ends with the input even for a
        // huge count.
        for _ in 0..count {
            self.str()?;
        }
        let packed = self.input.get(start..self.pos).unwrap_or_default();
        Ok(Args::packed_counted(packed, count))
    }
}

/// Enough input for any message made only of ints (twelve ints of at most five bytes),
/// with room to load the last one as an eight-byte word.
pub(crate) const INT_WINDOW: usize = 64;

/// Ints read from a window known to hold the whole message, so no read can run out.
struct WindowInts<'w> {
    window: &'w [u8; INT_WINDOW],
    start: usize,
    non_canonical: u32,
}

impl<'w> WindowInts<'w> {
    #[inline(always)]
    fn new(window: &'w [u8; INT_WINDOW]) -> Self {
        WindowInts {
            window,
            start: 0,
            non_canonical: 0,
        }
    }

    /// The next int; never `None` for the twelve ints a message holds at most (the
    /// `Option` keeps the reads checked without a panic path).
    #[inline(always)]
    fn int(&mut self) -> Option<i32> {
        let word: &[u8; 8] = self.window.get(self.start..)?.first_chunk()?;
        let b = word[0];
        if b & 0x80 == 0 {
            // One byte: by far the most common int, and always canonical.
            self.start += 1;
            return Some(i32::from(b & 0x3F) ^ -i32::from((b >> 6) & 1));
        }
        let (value, len, last) = varint::unpack_long_word(u64::from_le_bytes(*word));
        if !is_canonical_end(len, last) {
            self.non_canonical += 1;
        }
        self.start += len;
        Some(value)
    }

    /// The ten ints of an input. Spelled out rather than a loop over a zeroed array, so
    /// the ints are stored once, in place, instead of element by element and then copied.
    #[inline(always)]
    fn input(&mut self) -> Option<[i32; 10]> {
        Some([
            self.int()?,
            self.int()?,
            self.int()?,
            self.int()?,
            self.int()?,
            self.int()?,
            self.int()?,
            self.int()?,
            self.int()?,
            self.int()?,
        ])
    }
}

/// The messages that hold only ints (players, inputs, ticks, joins, FINISH), decoded from a
/// window that is sure to hold them: the common case of the body, without the end-of-input
/// checks of [`Fields`]. Other messages give `None` and take the general path.
#[inline(always)]
pub(crate) fn decode_ints_only(window: &[u8; INT_WINDOW]) -> Option<Decoded<'static>> {
    let mut c = WindowInts::new(window);
    let message = match c.int()? {
        cid @ 0.. => Message::PlayerDiff {
            cid,
            dx: c.int()?,
            dy: c.int()?,
        },
        id @ (id::INPUT_DIFF | id::INPUT_NEW) => {
            let cid = c.int()?;
            let ints = c.input()?;
            if id == id::INPUT_DIFF {
                Message::InputDiff { cid, diff: ints }
            } else {
                Message::InputNew { cid, input: ints }
            }
        }
        id::TICK_SKIP => Message::TickSkip { dt: c.int()? },
        id::PLAYER_NEW => Message::PlayerNew {
            cid: c.int()?,
            x: c.int()?,
            y: c.int()?,
        },
        id::PLAYER_OLD => Message::PlayerOld { cid: c.int()? },
        id::JOIN => Message::Join { cid: c.int()? },
        id::FINISH => Message::Finish,
        _ => return None,
    };
    Some(Decoded {
        message,
        len: c.start,
        non_canonical: c.non_canonical,
        cut_args: 0,
    })
}

/// A PLAYER_DIFF of a client id below 64 (its id one byte) at the start of `window`: the
/// client id, the move and the length; `None` for any other message. The commonest message
/// of a body, decoded without a [`Message`] made (see [`TickWalk`](super::TickWalk)).
#[inline(always)]
pub(crate) fn decode_player_diff(window: &[u8; INT_WINDOW]) -> Option<(i32, i32, i32, usize)> {
    let first = window[0];
    // One byte, no sign bit: a client id of 0..64.
    if first >= 0x40 {
        return None;
    }
    let mut c = WindowInts::new(window);
    c.start = 1;
    let (dx, dy) = (c.int()?, c.int()?);
    Some((i32::from(first), dx, dy, c.start))
}

/// An INPUT_DIFF or INPUT_NEW at the start of `window`: whether it is INPUT_NEW, the
/// client id, the ten ints and the length; `None` for any other message. The second
/// commonest message of a body, decoded without a [`Message`] made.
#[inline(always)]
pub(crate) fn decode_input(window: &[u8; INT_WINDOW]) -> Option<(bool, i32, [i32; 10], usize)> {
    // One byte each: 0x44 is -5 (INPUT_DIFF), 0x45 is -6 (INPUT_NEW).
    let new = match window[0] {
        0x44 => false,
        0x45 => true,
        _ => return None,
    };
    let mut c = WindowInts::new(window);
    c.start = 1;
    let cid = c.int()?;
    let ints = c.input()?;
    Some((new, cid, ints, c.start))
}

/// [`decode_input`] without the ints: whether it is INPUT_NEW, the client id and the
/// length. The ten ints are stepped over by [`skip_ints`]: a walk that wants no inputs (one
/// player's positions, say) spends most of its time on them otherwise.
#[inline(always)]
pub(crate) fn skip_input(window: &[u8; INT_WINDOW]) -> Option<(bool, i32, usize)> {
    let new = match window[0] {
        0x44 => false,
        0x45 => true,
        _ => return None,
    };
    let first = window[1];
    if first < 0x40 {
        // A client id of 0..64, one byte: the ints start at byte 2 whatever it is, so
        // their two words load at once rather than after the id is read.
        return Some((new, i32::from(first), skip_ten_from_two(window)?));
    }
    let mut c = WindowInts::new(window);
    c.start = 1;
    let cid = c.int()?;
    Some((new, cid, skip_ints(window, c.start, 10)?))
}

/// The end of a PLAYER_DIFF of a one-byte client id at the start of `window`: its two
/// ints from byte 1, when they fit its bytes 1..9 in ints of at most four bytes (moves
/// mostly take one or two); else [`skip_ints`].
#[inline(always)]
pub(crate) fn skip_player_diff(window: &[u8; INT_WINDOW]) -> Option<usize> {
    const EXTEND: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let word = u64::from_le_bytes(*window[1..].first_chunk::<8>()?);
    let extended = word & EXTEND;
    let counts = ((!word & EXTEND) >> 7).wrapping_mul(ONES);
    if extended & (extended >> 8) & (extended >> 16) & (extended >> 24) != 0 || counts >> 56 < 2 {
        return skip_ints(window, 1, 2);
    }
    let reached = counts.wrapping_add((0x80 - 2) * ONES);
    Some(1 + ((reached & EXTEND).trailing_zeros() / 8) as usize + 1)
}

/// The end of the ten ints from byte 2 of `window`, when they fit its bytes 2..18 in
/// ints of at most four bytes (the common input); else [`skip_ints`].
#[inline(always)]
pub(crate) fn skip_ten_from_two(window: &[u8; INT_WINDOW]) -> Option<usize> {
    const EXTEND: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let low = u64::from_le_bytes(*window[2..].first_chunk::<8>()?);
    let high = u64::from_le_bytes(*window[10..].first_chunk::<8>()?);
    let (low_extended, high_extended) = (low & EXTEND, high & EXTEND);
    let four = |e: u64| e & (e >> 8) & (e >> 16) & (e >> 24);
    // Four extend bits in a row within or across the words: maybe a five-byte int.
    let across = (low_extended >> 40) | (high_extended << 24);
    if four(low_extended) | four(high_extended) | four(across) != 0 {
        return skip_ints(window, 2, 10);
    }
    let found = (((!low & EXTEND) >> 7).wrapping_mul(ONES) >> 56) as u32;
    let counts = ((!high & EXTEND) >> 7).wrapping_mul(ONES);
    let left = 10 - found;
    if (counts >> 56) as u32 >= left {
        let reached = counts.wrapping_add(u64::from(0x80 - left) * ONES);
        return Some(10 + ((reached & EXTEND).trailing_zeros() / 8) as usize + 1);
    }
    skip_ints(window, 2, 10)
}

/// A PLAYER_NEW or PLAYER_OLD at the start of `window`: the message, its client id and
/// its length; `None` for any other message. For a walk that steps over the records of
/// the clients it does not follow, which still need their characters' comings and goings.
#[inline(always)]
pub(crate) fn decode_player_new_old(
    window: &[u8; INT_WINDOW],
) -> Option<(Message<'static>, i32, usize)> {
    let mut c = WindowInts::new(window);
    let message = match c.int()? {
        id::PLAYER_NEW => Message::PlayerNew {
            cid: c.int()?,
            x: c.int()?,
            y: c.int()?,
        },
        id::PLAYER_OLD => Message::PlayerOld { cid: c.int()? },
        _ => return None,
    };
    let (Message::PlayerNew { cid, .. } | Message::PlayerOld { cid }) = message else {
        return None;
    };
    Some((message, cid, c.start))
}

/// The end of the `count` ints (at most ten) from `start` in `window`, found eight bytes
/// at a time by their last bytes (those without the extend bit) rather than by decoding
/// them one by one. `start` + 5 * `count` + 8 must fit the window.
#[inline(always)]
pub(crate) fn skip_ints(window: &[u8; INT_WINDOW], start: usize, count: u32) -> Option<usize> {
    const EXTEND: u64 = 0x8080_8080_8080_8080;
    let mut c = WindowInts::new(window);
    c.start = start;
    let mut left = count;
    loop {
        let word = u64::from_le_bytes(*window.get(c.start..)?.first_chunk::<8>()?);
        let extended = word & EXTEND;
        // Four extend bits in a row: an int may reach its fifth byte, which ends it
        // whatever its extend bit says. Int by int from here (rare: |value| >= 2^27).
        if extended & (extended >> 8) & (extended >> 16) & (extended >> 24) != 0 {
            for _ in 0..left {
                c.int()?;
            }
            return Some(c.start);
        }
        // Without such a run, the word holds the last byte of at least one int.
        let ends = !word & EXTEND;
        // Byte i of `counts` is how many of bytes 0..=i end an int: a one in each such
        // byte, summed by a multiplication (branch-free, where a loop over the set bits
        // mispredicts, and `count_ones` is a dozen instructions on the baseline x86-64).
        let counts = (ends >> 7).wrapping_mul(0x0101_0101_0101_0101);
        let found = (counts >> 56) as u32;
        if found >= left {
            // The first byte whose count reaches `left` ends the last int: adding
            // 0x80 - left to every count (at most 8) sets the top bit of those bytes.
            let reached = counts.wrapping_add(u64::from(0x80 - left) * 0x0101_0101_0101_0101);
            let last = (reached & EXTEND).trailing_zeros() / 8;
            return Some(c.start + last as usize + 1);
        }
        left -= found;
        c.start += ((63 - ends.leading_zeros()) / 8 + 1) as usize;
    }
}

/// Whether an int of `len` bytes ending in `last` is in the form DDNet writes: a longer int
/// must carry value bits in its last byte (else a shorter form would hold it), and a fifth
/// byte nothing else. The same rule as [`varint::is_canonical`],
/// from the last byte.
#[inline(always)]
fn is_canonical_end(len: usize, last: u8) -> bool {
    match len {
        1 => true,
        varint::MAX_BYTES => last & 0x0F != 0 && last & 0xF0 == 0,
        _ => last & 0x7F != 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::uuid::teeworlds_uuid;

    #[test]
    fn ex_uuids_are_uuid3_of_their_names() {
        assert_eq!(ExKind::ALL.len(), 22);
        for &kind in ExKind::ALL {
            assert_eq!(kind.uuid(), teeworlds_uuid(kind.name()), "{kind:?}");
            assert_eq!(ExKind::from_uuid(kind.uuid()), Some(kind));
            assert_eq!(kind.kind_name(), format!("EX:{}", kind.name()));
        }
    }

    fn round_trip(bytes: &[u8], expected: Message<'_>) {
        let d = Message::decode(bytes).unwrap();
        assert_eq!(d.message, expected);
        assert_eq!(d.len, bytes.len());
        assert_eq!(d.non_canonical, 0);
        let mut out = Vec::new();
        expected.encode(&mut out).unwrap();
        assert_eq!(out, bytes);
        // Every proper prefix is incomplete.
        for cut in 0..bytes.len() {
            assert!(
                matches!(
                    Message::decode(&bytes[..cut]),
                    Err(DecodeError::Incomplete { .. })
                ),
                "{expected:?} cut at {cut}"
            );
        }
    }

    #[test]
    fn reference_body_messages() {
        // The body of the conformance reference file, message by message.
        let mut joinver6 = vec![0x4a];
        joinver6.extend_from_slice(ExKind::JoinVer6.uuid().as_bytes());
        joinver6.extend_from_slice(&[0x01, 0x00]);
        round_trip(&joinver6, Message::Ex(Ex::JoinVer6 { cid: 0 }));
        round_trip(&[0x47, 0x00], Message::Join { cid: 0 });
        let mut name = vec![0x4a];
        name.extend_from_slice(ExKind::PlayerName.uuid().as_bytes());
        name.extend_from_slice(b"\x0e\x00nameless tee\x00");
        round_trip(
            &name,
            Message::Ex(Ex::PlayerName {
                cid: 0,
                name: "nameless tee".into(),
            }),
        );
        round_trip(
            &[0x42, 0x00, 0xa4, 0x01, 0x88, 0x03],
            Message::PlayerNew {
                cid: 0,
                x: 100,
                y: 200,
            },
        );
        round_trip(
            &[0x45, 0x00, 0x01, 0x0a, 0x53, 0, 0, 0, 0, 0, 0, 0],
            Message::InputNew {
                cid: 0,
                input: [1, 10, -20, 0, 0, 0, 0, 0, 0, 0],
            },
        );
        round_trip(
            &[0x00, 0x03, 0x00],
            Message::PlayerDiff {
                cid: 0,
                dx: 3,
                dy: 0,
            },
        );
        round_trip(
            &[0x44, 0x00, 0x40, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0],
            Message::InputDiff {
                cid: 0,
                diff: [-1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
            },
        );
        round_trip(&[0x41, 0x07], Message::TickSkip { dt: 7 });
        round_trip(&[0x43, 0x00], Message::PlayerOld { cid: 0 });
        round_trip(
            b"\x48\x00bye\x00",
            Message::Drop {
                cid: 0,
                reason: "bye".into(),
            },
        );
        round_trip(&[0x40], Message::Finish);
    }

    #[test]
    fn console_command_and_message() {
        // The first message of the DDNet 11.0.1 file after its TICK_SKIP.
        let bytes = b"\x49\x40\x24record\x00\x01fixture_dm1\x00";
        let list: &[&[u8]] = &[b"fixture_dm1"];
        round_trip(
            bytes,
            Message::ConsoleCommand {
                cid: -1,
                flags: 36,
                cmd: "record".into(),
                args: Args::list(list),
            },
        );
        round_trip(
            &[0x46, 0x00, 0x03, 1, 2, 3],
            Message::NetMessage {
                cid: 0,
                data: &[1, 2, 3],
            },
        );
        assert_eq!(
            Message::decode(&[0x46, 0x00, 0x0a, 1]),
            Err(DecodeError::Incomplete {
                expected: "the rest of the MESSAGE message",
                need: Some(13)
            })
        );
        assert_eq!(
            Message::decode(&[0x46, 0x00, 0x41]),
            Err(DecodeError::NegativeLength {
                what: "MESSAGE data size",
                value: -2
            })
        );
        assert_eq!(
            Message::decode(&[0x4b]),
            Err(DecodeError::UnknownMessageId { id: -12 })
        );
    }

    #[test]
    fn non_canonical_ints_are_counted() {
        let d = Message::decode(&[0x80, 0x00, 0x81, 0x00, 0x00]).unwrap();
        assert_eq!(
            d.message,
            Message::PlayerDiff {
                cid: 0,
                dx: 1,
                dy: 0
            }
        );
        assert_eq!((d.len, d.non_canonical), (5, 2));
        // Inside a typed EX payload too.
        let mut ex = vec![0x4a];
        ex.extend_from_slice(ExKind::JoinVer7.uuid().as_bytes());
        ex.extend_from_slice(&[0x02, 0x85, 0x00]);
        let d = Message::decode(&ex).unwrap();
        assert_eq!(d.message, Message::Ex(Ex::JoinVer7 { cid: 5 }));
        assert_eq!(d.non_canonical, 1);
    }

    #[test]
    fn malformed_known_ex_payload_stays_raw() {
        let uuid = ExKind::PlayerName.uuid();
        // No NUL after the name.
        let (ex, _) = Ex::from_payload(uuid, b"\x00abc");
        assert_eq!(
            ex,
            Ex::Unknown {
                uuid,
                data: b"\x00abc"
            }
        );
        assert_eq!(ex.kind(), Some(ExKind::PlayerName));
        assert_eq!(ex.kind_name(), "EX:teehistorian-player-name@ddnet.org");
        // Trailing bytes after a complete payload.
        let (ex, _) = Ex::from_payload(ExKind::Test.uuid(), b"x");
        assert!(matches!(ex, Ex::Unknown { .. }));
        let other = Uuid::from_u128(1);
        let (ex, _) = Ex::from_payload(other, b"");
        assert_eq!(ex.kind_name(), "EX:00000000-0000-0000-0000-000000000001");
    }

    #[test]
    fn encoder_refuses_what_cannot_be_read_back() {
        let mut out = vec![7];
        assert_eq!(
            Message::Drop {
                cid: 0,
                reason: NulStr::borrowed(b"a\0b")
            }
            .encode(&mut out),
            Err(EncodeError::NulInString {
                what: "DROP reason"
            })
        );
        assert_eq!(out, [7]);
        assert!(
            Message::PlayerDiff {
                cid: -1,
                dx: 0,
                dy: 0
            }
            .encode(&mut out)
            .is_err()
        );
    }

    #[test]
    fn input_diffs_wrap() {
        let old = [1, 10, -20, 0, 0, 0, 0, 0, 0, i32::MIN];
        let new = [0, 10, -20, 1, 0, 0, 0, 0, 0, i32::MAX];
        let diff = input_diff(&old, &new);
        assert_eq!(diff, [-1, 0, 0, 1, 0, 0, 0, 0, 0, -1]);
        assert_eq!(apply_input_diff(&old, &diff), new);
    }

    #[test]
    fn args_forms_compare_equal() {
        let list: &[&[u8]] = &[b"a", b"", b"bc"];
        let packed = Args::packed(b"a\0\0bc\0").unwrap();
        assert_eq!(packed, Args::list(list));
        assert_eq!(packed.len(), 3);
        assert!(Args::packed(b"a").is_none());
        assert_eq!(Args::packed(b"").unwrap(), Args::EMPTY);
    }

    #[test]
    fn kind_names() {
        assert_eq!(
            Message::PlayerDiff {
                cid: 3,
                dx: 0,
                dy: 0
            }
            .kind_name(),
            "PLAYER_DIFF"
        );
        assert_eq!(Message::TickSkip { dt: 0 }.kind_name(), "TICK_SKIP");
        assert_eq!(
            Message::NetMessage { cid: 0, data: &[] }.kind_name(),
            "MESSAGE"
        );
        assert_eq!(
            Message::Ex(Ex::PlayerReady { cid: 0 }).kind_name(),
            "EX:teehistorian-player-ready@ddnet.tw"
        );
    }

    mod skipping {
        use super::super::{
            INT_WINDOW, decode_input, decode_player_diff, skip_input, skip_player_diff,
        };
        use proptest::prelude::*;
        use proptest::test_runner::FileFailurePersistence;

        proptest! {
            #![proptest_config(ProptestConfig {
                failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
                    "proptest-regressions/teehistorian-skip-input.txt",
                ))),
                ..ProptestConfig::default()
            })]

            /// Skipping an input finds the client id and the length decoding finds, for
            /// inputs of every int length (1 to 5 bytes, the fifth byte's extend bit set
            /// or not) and for any other bytes.
            #[test]
            fn skip_input_agrees_with_decode_input(
                new in any::<bool>(),
                cid in prop_oneof![-70i32..200, any::<i32>()],
                ints in proptest::collection::vec(
                    prop_oneof![4 => -64i32..64, 4 => -9000i32..9000, 1 => any::<i32>()], 10),
                long_fifth in any::<bool>(),
                tail in any::<[u8; INT_WINDOW]>(),
                raw in any::<bool>(),
            ) {
                let mut window = tail;
                if !raw {
                    let mut bytes = vec![if new { 0x45 } else { 0x44 }];
                    crate::codec::varint::pack_ints(&[cid], &mut bytes);
                    for &int in &ints {
                        let start = bytes.len();
                        crate::codec::varint::pack_ints(&[int], &mut bytes);
                        // A fifth byte's top bits are not read: with its extend bit set
                        // it still ends the int.
                        if long_fifth && bytes.len() - start == 5 {
                            bytes[start + 4] |= 0xF0;
                        }
                    }
                    window[..bytes.len()].copy_from_slice(&bytes);
                }
                let decoded = decode_input(&window).map(|(new, cid, _, len)| (new, cid, len));
                prop_assert_eq!(skip_input(&window), decoded);
                // The same ints after a one-byte client id, as a PLAYER_DIFF's two.
                if window[1] < 0x40 {
                    let diff = &window[1..];
                    let mut as_diff = [0; INT_WINDOW];
                    as_diff[..diff.len()].copy_from_slice(diff);
                    let decoded = decode_player_diff(&as_diff).map(|(.., len)| len);
                    prop_assert_eq!(skip_player_diff(&as_diff), decoded);
                }
            }
        }
    }
}
