//! How the record types spell bytes, fixed-size arrays and floats in serde formats, for
//! `#[serde(with = ...)]` on their fields (only built with the `serde` feature).
//!
//! * Byte strings (payloads, magic, digests) are lowercase hex strings: readable in JSON,
//!   and as long as the bytes in any format.
//! * Int arrays longer than serde's built-in 32 are plain sequences.
//! * Floats are numbers, written as the shortest decimal that reads back as the same
//!   `f32`; a float that is not finite (which JSON cannot hold as a number) is the string
//!   `"0x"` and its 8 hex digits of bits, so NaN payloads survive a round trip too.
//!
//! Reading accepts exactly what writing produces (hex in either case).

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use std::fmt;

/// Bytes as one hex string: for `&[u8]`, `Vec<u8>` and `Cow<[u8]>` fields.
pub(crate) mod hex_bytes {
    use super::*;

    /// Writes `bytes` as a lowercase hex string.
    pub(crate) fn serialize<S: Serializer, T: AsRef<[u8]> + ?Sized>(
        bytes: &T,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(bytes.as_ref()))
    }

    /// Reads a hex string into owned bytes.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text: std::borrow::Cow<'de, str> = serde::Deserialize::deserialize(d)?;
        hex::decode(text.as_bytes()).map_err(de::Error::custom)
    }
}

/// A byte array of fixed size as one hex string.
pub(crate) mod hex_array {
    use super::*;

    /// Writes the array as a lowercase hex string.
    pub(crate) fn serialize<S: Serializer, const N: usize>(
        bytes: &[u8; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(bytes))
    }

    /// Reads a hex string of exactly `N` bytes.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u8; N], D::Error> {
        let bytes = super::hex_bytes::deserialize(d)?;
        let len = bytes.len();
        bytes
            .try_into()
            .map_err(|_| de::Error::invalid_length(len, &format!("{N} bytes").as_str()))
    }
}

/// An int array of fixed size (longer than serde's built-in 32) as a sequence.
pub(crate) mod int_array {
    use super::*;

    /// Writes the ints as a sequence.
    pub(crate) fn serialize<S: Serializer, const N: usize>(
        ints: &[i32; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(ints)
    }

    /// Reads a sequence of exactly `N` ints.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[i32; N], D::Error> {
        let ints: Vec<i32> = serde::Deserialize::deserialize(d)?;
        let len = ints.len();
        ints.try_into()
            .map_err(|_| de::Error::invalid_length(len, &format!("{N} ints").as_str()))
    }
}

/// Writes one float: a number when finite, else its bits as `"0x"` and 8 hex digits.
fn write_f32<S: Serializer>(v: f32, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f32(v)
    } else {
        s.serialize_str(&format!("{:#010x}", v.to_bits()))
    }
}

/// Reads what [`write_f32`] writes.
struct F32Visitor;

impl Visitor<'_> for F32Visitor {
    type Value = f32;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number or the bits of a float as \"0x\" and 8 hex digits")
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f32, E> {
        Ok(v as f32)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f32, E> {
        Ok(v as f32)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f32, E> {
        Ok(v as f32)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<f32, E> {
        v.strip_prefix("0x")
            .filter(|digits| digits.len() == 8)
            .and_then(|digits| u32::from_str_radix(digits, 16).ok())
            .map(f32::from_bits)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

/// One `f32`, NaNs and infinities included.
pub(crate) mod float {
    use super::*;

    /// Writes the float (see the module docs).
    pub(crate) fn serialize<S: Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
        write_f32(*v, s)
    }

    /// Reads a float written by [`serialize`].
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        d.deserialize_any(F32Visitor)
    }
}

/// A fixed number of `f32`s as a sequence, each as [`float`] writes it.
pub(crate) mod float_array {
    use super::*;

    /// One element, for the sequence.
    struct Element(f32);

    impl serde::Serialize for Element {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            write_f32(self.0, s)
        }
    }

    impl<'de> serde::Deserialize<'de> for Element {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(F32Visitor).map(Element)
        }
    }

    /// Writes the floats as a sequence.
    pub(crate) fn serialize<S: Serializer, const N: usize>(
        v: &[f32; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(N))?;
        for &x in v {
            seq.serialize_element(&Element(x))?;
        }
        seq.end()
    }

    /// Reads a sequence of exactly `N` floats.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[f32; N], D::Error> {
        let v: Vec<Element> = serde::Deserialize::deserialize(d)?;
        let len = v.len();
        let v: Vec<f32> = v.into_iter().map(|e| e.0).collect();
        v.try_into()
            .map_err(|_| de::Error::invalid_length(len, &format!("{N} floats").as_str()))
    }
}
