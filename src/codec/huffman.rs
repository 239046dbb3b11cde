//! Teeworlds Huffman coding (STUB: API contract only; the implementation is being written).

/// How many bytes a compressed stream occupies after its EOF code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LengthRule {
    /// `floor(bits / 8) + 1` bytes: every writer before DDNet 20.1.
    TrailingByte,
    /// `ceil(bits / 8)` bytes: DDNet 20.1 and later.
    Tight,
}

/// Why a Huffman stream could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HuffmanError {
    /// The input ended before the EOF symbol.
    #[error("Huffman stream ends before its EOF code (after {decoded} output bytes)")]
    MissingEof {
        /// Bytes decoded before the input ran out.
        decoded: usize,
    },
    /// The decoded output would exceed the caller's limit.
    #[error("Huffman output exceeds {limit} bytes")]
    OutputTooLarge {
        /// The limit that was exceeded.
        limit: usize,
    },
}

/// What a successful decode found out about the stream's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded {
    /// Bits consumed, the EOF code included.
    pub bits: usize,
}

impl Decoded {
    /// The number of bytes a stream of this many bits occupies under `rule`.
    pub fn len_under(&self, rule: LengthRule) -> usize {
        match rule {
            LengthRule::TrailingByte => self.bits / 8 + 1,
            LengthRule::Tight => self.bits.div_ceil(8),
        }
    }
}

/// Appends the compressed form of `input` to `out`.
pub fn compress(input: &[u8], rule: LengthRule, out: &mut Vec<u8>) {
    let _ = (input, rule, out);
    unimplemented!()
}

/// Appends the decoded bytes of `input` to `out`, failing if more than `limit` bytes would be
/// appended. Bytes after the EOF code are ignored.
pub fn decompress(input: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<Decoded, HuffmanError> {
    let _ = (input, out, limit);
    unimplemented!()
}
