//! Fixed-size, NUL-terminated string fields as Teeworlds headers store them.
//!
//! The field keeps all `N` raw bytes, including whatever follows the first NUL, so that a
//! rewrite reproduces the original bytes even when a writer left garbage there. The text
//! is the part before the first NUL.

use binrw::{BinRead, BinWrite};
use std::fmt;

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
    pub fn nul_position(&self) -> Option<usize> {
        self.raw.iter().position(|&b| b == 0)
    }

    /// Whether the field is terminated within its size, as DDNet's header check requires.
    pub fn is_terminated(&self) -> bool {
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
    fn unterminated_and_too_long() {
        let s = FixedStr::from_raw(*b"abcd");
        assert!(!s.is_terminated());
        assert_eq!(s.text_bytes(), b"abcd");
        assert!(FixedStr::<4>::new("abcd").is_none());
        assert!(FixedStr::<4>::new("a\0b").is_none());
        assert_eq!(FixedStr::<4>::new("abc").unwrap().raw(), b"abc\0");
    }
}
