//! Chunk payloads: Huffman-coded, variable-width-packed arrays of 32-bit ints.
//!
//! The decoder and encoder own their scratch buffers, so a reader that reuses one for every
//! chunk allocates nothing per chunk once the buffers have grown to the largest payload.

use super::error::PayloadError;
use crate::codec::huffman::{self, LengthRule};
use crate::codec::varint;

/// The most bytes a payload may decode to (DDNet's player buffers are this big).
pub const MAX_DECODED_BYTES: usize = 65536;
/// The most ints a payload may decode to.
pub(crate) const MAX_DECODED_INTS: usize = MAX_DECODED_BYTES / 4;
/// The most bytes a compressed payload can have: what a u16 size field holds.
pub const MAX_PAYLOAD_BYTES: usize = u16::MAX as usize;

/// A payload decoded by [`PayloadDecoder`], borrowing the decoder's buffers.
///
/// With the `serde` feature: `{"ints": [...], "packed": <hex>, "huffman_bits": n,
/// "non_canonical_ints": n}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DecodedPayload<'a> {
    /// The ints, in the order they were packed.
    pub ints: &'a [i32],
    /// The Huffman-decoded (still packed) bytes.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_util::hex_bytes"))]
    pub packed: &'a [u8],
    /// Bits the Huffman stream used, its EOF code included.
    pub huffman_bits: usize,
    /// Ints that were not in their shortest form (DDNet never writes such ints).
    pub non_canonical_ints: usize,
}

impl DecodedPayload<'_> {
    /// The Huffman length rule the stored payload of `stored_len` bytes follows, if any.
    ///
    /// When the bits do not end on a byte boundary both rules give the same length; this
    /// then answers [`LengthRule::Tight`], whose output is identical.
    pub fn length_rule(&self, stored_len: usize) -> Option<LengthRule> {
        let decoded = huffman::Decoded {
            bits: self.huffman_bits,
        };
        if decoded.len_under(LengthRule::Tight) == stored_len {
            Some(LengthRule::Tight)
        } else if decoded.len_under(LengthRule::TrailingByte) == stored_len {
            Some(LengthRule::TrailingByte)
        } else {
            None
        }
    }

    /// Whether the payload would be stored the same under both length rules.
    pub fn rules_agree(&self) -> bool {
        !self.huffman_bits.is_multiple_of(8)
    }

    /// The payload as the little-endian bytes DDNet's player hands on (a multiple of 4).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.ints.iter().flat_map(|i| i.to_le_bytes()).collect()
    }
}

/// Decodes payloads, reusing its buffers from one call to the next.
#[derive(Debug, Default, Clone)]
pub struct PayloadDecoder {
    /// Scratch space for the packed bytes, `packed[..packed_len]` the last payload's. The
    /// buffers keep their length from one payload to the next, so that they are neither
    /// zeroed nor shortened per chunk.
    packed: Vec<u8>,
    packed_len: usize,
    /// Scratch space for the ints, `ints[..ints_len]` the last payload's.
    ints: Vec<i32>,
    ints_len: usize,
}

impl PayloadDecoder {
    /// A decoder with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// The ints of the last [`decode`](Self::decode); meaningful only if it succeeded.
    pub fn last_ints(&self) -> &[i32] {
        self.ints.get(..self.ints_len).unwrap_or_default()
    }

    /// Decodes a stored payload: Huffman first, then the packed ints.
    pub fn decode(&mut self, payload: &[u8]) -> Result<DecodedPayload<'_>, PayloadError> {
        self.packed_len = 0;
        self.ints_len = 0;
        let (decoded, packed_len) =
            huffman::decompress_reusing(payload, &mut self.packed, MAX_DECODED_BYTES)?;
        self.packed_len = packed_len;
        // The codecs return how much of their buffer they filled.
        let packed = self.packed.get(..packed_len).unwrap_or_default();
        let (ints_len, result) =
            varint::unpack_ints_reusing(packed, &mut self.ints, MAX_DECODED_INTS);
        self.ints_len = ints_len;
        let non_canonical = result?;
        Ok(DecodedPayload {
            ints: self.ints.get(..ints_len).unwrap_or_default(),
            packed,
            huffman_bits: decoded.bits,
            non_canonical_ints: non_canonical,
        })
    }
}

/// Encodes payloads the way DDNet's recorder does, reusing its buffers.
#[derive(Debug, Default, Clone)]
pub struct PayloadEncoder {
    /// Scratch space for the packed ints and the stored bytes. Like the decoder's, the
    /// buffers keep their length from one payload to the next: zeroing them per chunk cost
    /// as much as packing payloads of small ints.
    packed: Vec<u8>,
    out: Vec<u8>,
}

impl PayloadEncoder {
    /// An encoder with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Packs `ints` and Huffman-codes them under `rule`; returns the stored bytes.
    pub fn encode(&mut self, ints: &[i32], rule: LengthRule) -> &[u8] {
        let packed_len = varint::pack_ints_reusing(ints, &mut self.packed);
        let packed = self.packed.get(..packed_len).unwrap_or_default();
        let len = huffman::compress_reusing(packed, rule, &mut self.out);
        self.out.get(..len).unwrap_or_default()
    }
}
