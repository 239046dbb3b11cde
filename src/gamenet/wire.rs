//! The primitives the protocol tables are built from: item ints, packed message bytes and
//! strings stored as ints.
//!
//! A snapshot item is a run of 32-bit ints; a network message is a run of bytes that DDNet's
//! `CPacker` filled with variable-width ints, NUL-terminated strings and raw UUID bytes. The
//! readers here take those apart the way DDNet's `CUnpacker` does, and note anything that
//! would not pack back to the same bytes (an int not in its shortest form), so that a typed
//! record is only ever handed out when it re-encodes exactly.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use crate::codec::varint;
use std::fmt;
use uuid::Uuid;

/// Reads the fields of one snapshot item in order.
pub(crate) struct IntReader<'a> {
    ints: &'a [i32],
}

impl<'a> IntReader<'a> {
    pub(crate) fn new(ints: &'a [i32]) -> Self {
        IntReader { ints }
    }

    /// The next int; `None` past the end.
    pub(crate) fn int(&mut self) -> Option<i32> {
        let (&first, rest) = self.ints.split_first()?;
        self.ints = rest;
        Some(first)
    }

    /// The next `N` ints.
    pub(crate) fn array<const N: usize>(&mut self) -> Option<[i32; N]> {
        let (head, rest) = self.ints.split_first_chunk::<N>()?;
        self.ints = rest;
        Some(*head)
    }

    /// Whether every int was read.
    pub(crate) fn is_empty(&self) -> bool {
        self.ints.is_empty()
    }

    /// The ints not read yet.
    pub(crate) fn rest(&self) -> &'a [i32] {
        self.ints
    }
}

/// Why a typed record cannot be encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// An optional field is set after one that is not: the record is a prefix of its fields,
    /// so the later value would be read back into the earlier field.
    #[error("{record}: `{field}` is set after an optional field that is not")]
    OptionalGap {
        /// DDNet's name of the record.
        record: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A raw record whose data would be read back as a typed one.
    #[error("raw data that reads back as {record}")]
    RawReadsTyped {
        /// DDNet's name of the record it reads back as.
        record: &'static str,
    },
    /// Bytes after a message that ends in a field reading to the end (a missing optional
    /// int, a `rest`), or after a raw message: they would be read back as part of it.
    #[error("trailing bytes after {record}, which would read them as its own")]
    TrailingAfterOpenEnd {
        /// DDNet's name of the message.
        record: &'static str,
    },
    /// A byte field longer than an int can count.
    #[error("{record}: `{field}` is longer than an int can count")]
    TooLong {
        /// DDNet's name of the record.
        record: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A string holds a NUL, which would end it early on reading.
    #[error("{record}: `{field}` holds a NUL")]
    NulInString {
        /// DDNet's name of the record.
        record: &'static str,
        /// The field.
        field: &'static str,
    },
}

/// Writes the fields of a record in order, refusing an optional field after a missing one.
pub(crate) struct FieldWriter<'o, T> {
    pub(crate) out: &'o mut Vec<T>,
    record: &'static str,
    ended: bool,
}

impl<'o, T> FieldWriter<'o, T> {
    pub(crate) fn new(out: &'o mut Vec<T>, record: &'static str) -> Self {
        FieldWriter {
            out,
            record,
            ended: false,
        }
    }

    /// Checks that a present field may be written (no optional field before it was missing).
    pub(crate) fn present(&mut self, field: &'static str) -> Result<(), EncodeError> {
        if self.ended {
            return Err(EncodeError::OptionalGap {
                record: self.record,
                field,
            });
        }
        Ok(())
    }

    /// Notes a missing optional field: nothing may follow it.
    pub(crate) fn missing(&mut self) {
        self.ended = true;
    }

    /// Whether more data after the fields would be read back into one of them.
    pub(crate) fn is_open(&self) -> bool {
        self.ended
    }

    pub(crate) fn record(&self) -> &'static str {
        self.record
    }
}

/// Reads a packed network message the way DDNet's `CUnpacker` does: variable-width ints,
/// NUL-terminated strings and raw bytes, front to back.
#[derive(Debug, Clone)]
pub struct Unpacker<'a> {
    data: &'a [u8],
    pos: usize,
    non_canonical: bool,
}

impl<'a> Unpacker<'a> {
    /// An unpacker at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Unpacker {
            data,
            pos: 0,
            non_canonical: false,
        }
    }

    /// The next int; `None` if the data ends first (DDNet's unpacker sets its error flag).
    pub fn int(&mut self) -> Option<i32> {
        let rest = self.remaining();
        let (value, len) = varint::unpack(rest)?;
        if !varint::is_canonical(value, rest.get(..len)?) {
            self.non_canonical = true;
        }
        self.pos += len;
        Some(value)
    }

    /// The next int, or `None` without error when no data is left (DDNet's
    /// `GetIntOrDefault`).
    pub fn opt_int(&mut self) -> Option<Option<i32>> {
        if self.is_empty() {
            return Some(None);
        }
        self.int().map(Some)
    }

    /// The next NUL-terminated string, without its NUL; `None` if no NUL follows.
    pub fn str(&mut self) -> Option<&'a [u8]> {
        let rest = self.remaining();
        let len = rest.iter().position(|&b| b == 0)?;
        self.pos += len + 1;
        rest.get(..len)
    }

    /// The next `N` raw bytes.
    pub fn raw<const N: usize>(&mut self) -> Option<[u8; N]> {
        let bytes: [u8; N] = self.data.get(self.pos..self.pos + N)?.try_into().ok()?;
        self.pos += N;
        Some(bytes)
    }

    /// An int size, then that many raw bytes; `None` if the size is negative or more
    /// bytes than are left.
    pub fn sized(&mut self) -> Option<&'a [u8]> {
        let start = self.pos;
        let len = usize::try_from(self.int()?).ok();
        match len.and_then(|len| self.data.get(self.pos..self.pos.checked_add(len)?)) {
            Some(bytes) => {
                self.pos += bytes.len();
                Some(bytes)
            }
            None => {
                self.pos = start;
                None
            }
        }
    }

    /// A UUID as 16 raw bytes.
    pub fn uuid(&mut self) -> Option<Uuid> {
        self.raw::<16>().map(Uuid::from_bytes)
    }

    /// Every byte not read yet (consumes them).
    pub fn rest(&mut self) -> &'a [u8] {
        let rest = self.remaining();
        self.pos = self.data.len();
        rest
    }

    /// The bytes not read yet (`pos` never passes the end: every read moves it by what it
    /// read).
    fn remaining(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Whether an int read so far was not in its shortest form, so that packing the values
    /// again would give other bytes.
    pub fn saw_non_canonical(&self) -> bool {
        self.non_canonical
    }
}

/// Packs a string with its NUL.
pub(crate) fn pack_str(
    w: &mut FieldWriter<'_, u8>,
    field: &'static str,
    bytes: &[u8],
) -> Result<(), EncodeError> {
    w.present(field)?;
    if bytes.contains(&0) {
        return Err(EncodeError::NulInString {
            record: w.record(),
            field,
        });
    }
    w.out.extend_from_slice(bytes);
    w.out.push(0);
    Ok(())
}

/// Packs an int size, then the bytes.
pub(crate) fn pack_sized(
    w: &mut FieldWriter<'_, u8>,
    field: &'static str,
    bytes: &[u8],
) -> Result<(), EncodeError> {
    w.present(field)?;
    let len = i32::try_from(bytes.len()).map_err(|_| EncodeError::TooLong {
        record: w.record(),
        field,
    })?;
    varint::pack_into(len, w.out);
    w.out.extend_from_slice(bytes);
    Ok(())
}

/// Packs an int.
pub(crate) fn pack_int(
    w: &mut FieldWriter<'_, u8>,
    field: &'static str,
    value: i32,
) -> Result<(), EncodeError> {
    w.present(field)?;
    varint::pack_into(value, w.out);
    Ok(())
}

/// A string of up to `4 * N - 1` bytes stored in `N` ints, as DDNet's `StrToInts` stores
/// player names, clans and skins in snapshot items: four bytes per int, the first in the
/// highest byte, each byte offset by 128, the last byte always zero.
///
/// It keeps the `N` ints as they were, so an item re-encodes exactly even when its writer
/// left other bytes after the text; [`text_bytes`](Self::text_bytes) reads it as DDNet's
/// `IntsToStr` does.
///
/// With the `serde` feature it is the text as a JSON string when the ints are exactly what
/// `StrToInts` makes of that text (valid UTF-8), else `{"ints": [...]}`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntString<const N: usize>(pub [i32; N]);

impl<const N: usize> Default for IntString<N> {
    /// The empty string as `StrToInts` stores it.
    fn default() -> Self {
        IntString::from_text(b"").unwrap_or(IntString([0; N]))
    }
}

impl<const N: usize> IntString<N> {
    /// The most bytes the text can have.
    pub const MAX_LEN: usize = 4 * N - 1;

    /// Stores `text` as DDNet's `StrToInts` does; `None` if it is longer than
    /// [`MAX_LEN`](Self::MAX_LEN) or holds a NUL.
    pub fn from_text(text: &[u8]) -> Option<Self> {
        if text.len() > Self::MAX_LEN || text.contains(&0) {
            return None;
        }
        let mut ints = [0i32; N];
        for (i, int) in ints.iter_mut().enumerate() {
            let mut word = [0u8; 4];
            for (c, byte) in word.iter_mut().enumerate() {
                *byte = text.get(4 * i + c).copied().unwrap_or(0) ^ 0x80;
            }
            *int = i32::from_be_bytes(word);
        }
        // The last byte is always zero.
        if let Some(last) = ints.last_mut() {
            *last &= !0xff;
        }
        Some(IntString(ints))
    }

    /// The stored bytes up to the first NUL, as DDNet's `IntsToStr` reads them (without its
    /// UTF-8 check: see [`to_str`](Self::to_str)).
    pub fn text_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 * N);
        'ints: for int in &self.0 {
            for byte in int.to_be_bytes() {
                let byte = byte ^ 0x80;
                if byte == 0 {
                    break 'ints;
                }
                out.push(byte);
            }
        }
        // `IntsToStr` puts a NUL in the last byte whatever it holds.
        out.truncate(Self::MAX_LEN);
        out
    }

    /// The text if it is valid UTF-8; DDNet's `IntsToStr` gives an empty string otherwise.
    pub fn to_str(&self) -> Option<String> {
        String::from_utf8(self.text_bytes()).ok()
    }

    /// The text with invalid UTF-8 replaced, for display.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(&self.text_bytes()).into_owned()
    }

    /// Whether the ints are exactly what `StrToInts` stores for the text.
    pub fn is_canonical(&self) -> bool {
        IntString::from_text(&self.text_bytes()).is_some_and(|s| s == *self)
    }
}

impl<const N: usize> fmt::Debug for IntString<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_canonical() {
            write!(f, "{:?}", self.to_string_lossy())
        } else {
            write!(f, "IntString({:?})", self.0)
        }
    }
}

#[cfg(feature = "serde")]
mod serde_forms {
    use super::IntString;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Form<const N: usize> {
        Text(String),
        Ints {
            #[serde(with = "crate::serde_util::int_array")]
            ints: [i32; N],
        },
    }

    impl<const N: usize> Serialize for IntString<N> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            match self.to_str().filter(|_| self.is_canonical()) {
                Some(text) => Form::<N>::Text(text).serialize(serializer),
                None => Form::Ints { ints: self.0 }.serialize(serializer),
            }
        }
    }

    impl<'de, const N: usize> Deserialize<'de> for IntString<N> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            match Form::<N>::deserialize(deserializer)? {
                Form::Text(text) => IntString::from_text(text.as_bytes()).ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "a text of at most {} bytes without NUL",
                        IntString::<N>::MAX_LEN
                    ))
                }),
                Form::Ints { ints } => Ok(IntString(ints)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_string_as_ddnet_stores_it() {
        // "nameless tee" as DDNet's StrToInts stores it in 4 ints.
        let s = IntString::<4>::from_text(b"nameless tee").unwrap();
        assert_eq!(
            s.0,
            [
                i32::from_be_bytes([b'n' ^ 0x80, b'a' ^ 0x80, b'm' ^ 0x80, b'e' ^ 0x80]),
                i32::from_be_bytes([b'l' ^ 0x80, b'e' ^ 0x80, b's' ^ 0x80, b's' ^ 0x80]),
                i32::from_be_bytes([b' ' ^ 0x80, b't' ^ 0x80, b'e' ^ 0x80, b'e' ^ 0x80]),
                i32::from_be_bytes([0x80, 0x80, 0x80, 0]),
            ]
        );
        assert_eq!(s.text_bytes(), b"nameless tee");
        assert!(s.is_canonical());
        assert!(IntString::<4>::from_text(b"sixteen bytes!!!").is_none());
        assert_eq!(
            IntString::<4>::from_text(b"fifteen bytes!!")
                .unwrap()
                .text_bytes(),
            b"fifteen bytes!!"
        );
    }

    #[test]
    fn non_canonical_ints_keep_their_value() {
        let mut s = IntString::<2>::from_text(b"ab").unwrap();
        s.0[1] = 0x1234_5600;
        assert!(!s.is_canonical());
        assert_eq!(s.text_bytes(), b"ab");
    }

    #[test]
    fn unpacker_flags_non_canonical_ints() {
        let mut u = Unpacker::new(&[0x80, 0x00, 0x05]);
        assert_eq!(u.int(), Some(0));
        assert!(u.saw_non_canonical());
        assert_eq!(u.int(), Some(5));
        assert!(u.is_empty());
        assert_eq!(u.int(), None);
        assert_eq!(u.opt_int(), Some(None));
        let mut u = Unpacker::new(b"hi\0x");
        assert_eq!(u.str(), Some(&b"hi"[..]));
        assert_eq!(u.str(), None);
    }
}
