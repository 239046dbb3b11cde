//! String and byte fields as Teeworlds formats store them.
//!
//! * [`FixedStr`]: a fixed-size, NUL-terminated field as headers store it. It keeps all `N`
//!   raw bytes, including whatever follows the first NUL, so that a rewrite reproduces the
//!   original bytes even when a writer left garbage there. The text is the part before the
//!   first NUL.
//! * [`NulStr`]: a NUL-terminated string of any length inside a packed record (teehistorian
//!   messages, network messages), without its NUL; over borrowed bytes in zero-copy views
//!   (then it is `Copy`), over borrowed-or-owned ones in records that can own them.
//! * [`Bytes`]: a run of raw bytes inside a record; borrowed or owned.

use binrw::{BinRead, BinWrite};
use std::borrow::Cow;
use std::fmt;

/// A NUL-terminated string field without its NUL, over the storage `S` of its bytes (as
/// [`std::io::Cursor`] is over its buffer): one string type, in the form each record
/// needs.
///
/// * `NulStr<&'a [u8]>` borrows from the input. The zero-copy views hold it (teehistorian
///   [`Message`](crate::teehistorian::Message)s and events), and it is `Copy`, so they are.
/// * `NulStr<Cow<'a, [u8]>>` borrows or owns. Records that are built from a view without a
///   copy but read or deserialized owned hold it: the teehistorian
///   [layouts](crate::teehistorian::layout) (an
///   [`OwnedMessage`](crate::teehistorian::layout::OwnedMessage) owns its strings) and the
///   network messages of [`gamenet`](crate::gamenet) (`into_owned` makes them own theirs).
/// * `NulStr<Vec<u8>>` owns its bytes.
///
/// Every form has the same methods, compares, hashes and prints as its bytes do, and turns
/// into the borrowed form with [`as_borrowed`](Self::as_borrowed). `From<&str>` and
/// `From<&[u8]>` make any form whose storage comes from a byte slice.
///
/// With feature `serde` it is a JSON string when it is UTF-8 (as DDNet writes) and an array
/// of byte values otherwise, so that no byte is lost or changed; the forms that can own
/// their bytes (`Cow`, `Vec`) deserialize.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NulStr<S>(pub S);

impl<S: AsRef<[u8]>> NulStr<S> {
    /// The bytes, without the NUL.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_ref()
    }

    /// The number of bytes, without the NUL.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the string is empty.
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }

    /// The text, if it is UTF-8.
    pub fn to_str(&self) -> Result<&str, std::str::Utf8Error> {
        std::str::from_utf8(self.as_bytes())
    }

    /// The text with invalid UTF-8 replaced, for display.
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(self.as_bytes())
    }

    /// The same string borrowing its bytes from this one.
    pub fn as_borrowed(&self) -> NulStr<&[u8]> {
        NulStr(self.as_bytes())
    }
}

impl<'a> NulStr<&'a [u8]> {
    /// A string borrowing `bytes` (without the NUL).
    pub const fn borrowed(bytes: &'a [u8]) -> Self {
        NulStr(bytes)
    }
}

impl NulStr<Cow<'_, [u8]>> {
    /// The same string owning its bytes.
    pub fn into_owned(self) -> NulStr<Cow<'static, [u8]>> {
        NulStr(Cow::Owned(self.0.into_owned()))
    }
}

impl<'a, S: From<&'a [u8]>> From<&'a str> for NulStr<S> {
    fn from(text: &'a str) -> Self {
        NulStr(S::from(text.as_bytes()))
    }
}

impl<'a, S: From<&'a [u8]>> From<&'a [u8]> for NulStr<S> {
    fn from(bytes: &'a [u8]) -> Self {
        NulStr(S::from(bytes))
    }
}

impl<S: AsRef<[u8]>> fmt::Debug for NulStr<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string_lossy())
    }
}

/// A run of raw bytes inside a record: borrowed from a view, owned when read.
///
/// With feature `serde` it is a string of lowercase hex digits.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Bytes<'a>(pub Cow<'a, [u8]>);

impl<'a> Bytes<'a> {
    /// Borrowed bytes.
    pub const fn borrowed(bytes: &'a [u8]) -> Self {
        Bytes(Cow::Borrowed(bytes))
    }

    /// The same bytes, owned.
    pub fn into_owned(self) -> Bytes<'static> {
        Bytes(Cow::Owned(self.0.into_owned()))
    }
}

impl fmt::Debug for Bytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", hex::encode(&self.0))
    }
}

#[cfg(feature = "serde")]
mod serde_forms {
    use super::{Bytes, NulStr};
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::ser::Serializer;
    use serde::{Deserialize, Serialize};
    use std::borrow::Cow;
    use std::fmt;

    impl<B: AsRef<[u8]>> Serialize for NulStr<B> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            match self.to_str() {
                Ok(text) => serializer.serialize_str(text),
                Err(_) => serializer.collect_seq(self.as_bytes()),
            }
        }
    }

    impl<'de, B: From<Vec<u8>>> Deserialize<'de> for NulStr<B> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct TextOrBytes;
            impl<'de> Visitor<'de> for TextOrBytes {
                type Value = Vec<u8>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a string or an array of byte values")
                }
                fn visit_str<E: de::Error>(self, text: &str) -> Result<Vec<u8>, E> {
                    Ok(text.as_bytes().to_vec())
                }
                fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
                    Ok(bytes.to_vec())
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                    let mut out = Vec::new();
                    while let Some(byte) = seq.next_element::<u8>()? {
                        out.push(byte);
                    }
                    Ok(out)
                }
            }
            let bytes = deserializer.deserialize_any(TextOrBytes)?;
            Ok(NulStr(B::from(bytes)))
        }
    }

    impl Serialize for Bytes<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_str(&hex::encode(&self.0))
        }
    }

    impl<'de> Deserialize<'de> for Bytes<'_> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let text = Cow::<str>::deserialize(deserializer)?;
            hex::decode(text.as_bytes())
                .map(|bytes| Bytes(Cow::Owned(bytes)))
                .map_err(de::Error::custom)
        }
    }
}

/// A string field of exactly `N` bytes whose text ends at the first NUL.
#[derive(Clone, Copy, PartialEq, Eq, Hash, BinRead, BinWrite)]
pub struct FixedStr<const N: usize> {
    raw: [u8; N],
}

impl<const N: usize> FixedStr<N> {
    /// Wraps the raw bytes of a field as read from a file.
    pub const fn from_raw(raw: [u8; N]) -> Self {
        FixedStr { raw }
    }

    /// A zero-filled field holding `text`, the way DDNet writes header strings.
    ///
    /// Returns `None` if `text` does not fit with its NUL or contains a NUL itself.
    pub fn new(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() >= N || bytes.contains(&0) {
            return None;
        }
        let mut raw = [0; N];
        raw[..bytes.len()].copy_from_slice(bytes);
        Some(FixedStr { raw })
    }

    /// All `N` bytes of the field.
    pub const fn raw(&self) -> &[u8; N] {
        &self.raw
    }

    /// The bytes before the first NUL, or all bytes if there is none.
    pub fn text_bytes(&self) -> &[u8] {
        match self.nul_position() {
            Some(end) => &self.raw[..end],
            None => &self.raw,
        }
    }

    /// Where the first NUL is, if the field has one.
    pub(crate) fn nul_position(&self) -> Option<usize> {
        self.raw.iter().position(|&b| b == 0)
    }

    /// Whether the field is terminated within its size, as DDNet's header check requires.
    pub(crate) fn is_terminated(&self) -> bool {
        self.nul_position().is_some()
    }

    /// The text as UTF-8, if it is.
    pub fn to_str(&self) -> Result<&str, std::str::Utf8Error> {
        std::str::from_utf8(self.text_bytes())
    }

    /// The text, with invalid UTF-8 replaced, for display.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(self.text_bytes()).into_owned()
    }
}

impl<const N: usize> Default for FixedStr<N> {
    fn default() -> Self {
        FixedStr { raw: [0; N] }
    }
}

impl<const N: usize> fmt::Debug for FixedStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string_lossy())
    }
}

/// With the `serde` feature a field is its text as a string when that says everything: the
/// text is UTF-8, ends at a NUL and only NULs follow it (as DDNet writes header strings).
/// Any other field is `{"text": <the text, invalid UTF-8 replaced>, "raw": <all N bytes in
/// hex>}`, and reading it back takes `raw`, so every field round-trips byte for byte.
#[cfg(feature = "serde")]
impl<const N: usize> serde::Serialize for FixedStr<N> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let canonical = self
            .nul_position()
            .filter(|&end| self.raw[end..].iter().all(|&b| b == 0))
            .and_then(|_| self.to_str().ok());
        if let Some(text) = canonical {
            return s.serialize_str(text);
        }
        let mut st = s.serialize_struct("FixedStr", 2)?;
        st.serialize_field("text", &self.to_string_lossy())?;
        st.serialize_field("raw", &hex::encode(self.raw))?;
        st.end()
    }
}

#[cfg(feature = "serde")]
impl<'de, const N: usize> serde::Deserialize<'de> for FixedStr<N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, MapAccess, Visitor};

        struct FieldVisitor<const N: usize>;

        impl<'de, const N: usize> Visitor<'de> for FieldVisitor<N> {
            type Value = FixedStr<N>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "a string shorter than {N} bytes without NUL, or {{\"raw\": {N} bytes in hex}}"
                )
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<FixedStr<N>, E> {
                FixedStr::new(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FixedStr<N>, A::Error> {
                let mut raw = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "raw" {
                        let hex_text: std::borrow::Cow<'de, str> = map.next_value()?;
                        let bytes = hex::decode(hex_text.as_bytes()).map_err(de::Error::custom)?;
                        let len = bytes.len();
                        let bytes: [u8; N] = bytes.try_into().map_err(|_| {
                            de::Error::invalid_length(len, &format!("{N} bytes").as_str())
                        })?;
                        raw = Some(bytes);
                    } else {
                        map.next_value::<de::IgnoredAny>()?;
                    }
                }
                raw.map(FixedStr::from_raw)
                    .ok_or_else(|| de::Error::missing_field("raw"))
            }
        }

        d.deserialize_any(FieldVisitor::<N>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_bytes_after_nul() {
        let mut raw = [0u8; 8];
        raw[..3].copy_from_slice(b"dm1");
        raw[5] = 0xAB;
        let s = FixedStr::from_raw(raw);
        assert_eq!(s.text_bytes(), b"dm1");
        assert_eq!(s.raw(), &raw);
        assert!(s.is_terminated());
    }

    #[test]
    fn nul_str_forms_agree() {
        let view = NulStr::borrowed(b"nameless tee\xff");
        let copied = view;
        let cow: NulStr<Cow<'_, [u8]>> = NulStr::from(&b"nameless tee\xff"[..]);
        let owned: NulStr<Vec<u8>> = NulStr::from(view.0);
        assert_eq!(cow.as_borrowed(), copied);
        assert_eq!(owned.as_borrowed(), view);
        assert_eq!(cow.clone().into_owned(), cow);
        assert_eq!(format!("{view:?}"), format!("{owned:?}"));
        assert_eq!(view.len(), 13);
        assert!(view.to_str().is_err());
        assert_eq!(NulStr::<&[u8]>::from("dm1").to_str(), Ok("dm1"));
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_string(&view).unwrap();
            assert_eq!(json, serde_json::to_string(&cow).unwrap());
            let back: NulStr<Vec<u8>> = serde_json::from_str(&json).unwrap();
            assert_eq!(back, owned);
            let text: NulStr<Cow<'_, [u8]>> = serde_json::from_str("\"dm1\"").unwrap();
            assert_eq!(text.as_bytes(), b"dm1");
        }
    }

    #[test]
    fn unterminated_and_too_long() {
        let s = FixedStr::from_raw(*b"abcd");
        assert!(!s.is_terminated());
        assert_eq!(s.text_bytes(), b"abcd");
        assert!(FixedStr::<4>::new("abcd").is_none());
        assert!(FixedStr::<4>::new("a\0b").is_none());
        assert_eq!(FixedStr::<4>::new("abc").unwrap().raw(), b"abc\0");
    }
}
