//! Teeworlds variable-width integers (`CVariableInt` in DDNet) and the int-array packing
//! that demo chunks use between Huffman coding and the payload.
//!
//! Layout of one int: `ESDDDDDD EDDDDDDD ...`, at most five bytes. `E` (0x80) says another
//! byte follows, `S` (0x40, first byte only) says the value was negative and stored as its
//! one's complement. The fifth byte carries only four data bits and its `E` bit is ignored,
//! exactly as DDNet's unpacker does.

/// The longest encoding of one int.
pub const MAX_BYTES: usize = 5;

/// Why packed ints could not be unpacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VarIntError {
    /// The input ended inside an int whose last byte still had the extend bit set.
    #[error("variable-width int cut short at byte {offset}")]
    UnexpectedEnd {
        /// Offset in the packed input where the cut-short int starts.
        offset: usize,
    },
    /// Unpacking would produce more ints than the caller allows.
    #[error("unpacked ints exceed {limit} ints")]
    TooMany {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The byte input of [`pack_words`] is not a whole number of 32-bit words.
    #[error("{len} bytes are not a whole number of 32-bit words")]
    NotWordAligned {
        /// The length that was offered.
        len: usize,
    },
}

/// Writes `value` into `buf` and returns how many bytes were used (1..=5).
#[inline]
pub fn pack(value: i32, buf: &mut [u8; MAX_BYTES]) -> usize {
    // Negative values are stored as their complement so that small magnitudes stay short.
    let sign = (value >> 31) as u32; // 0 or 0xFFFF_FFFF
    let mut rest = (value as u32) ^ sign;
    let sign_bit = (sign & 0x40) as u8;
    if rest < 0x40 {
        // Most ints in real payloads fit one byte.
        buf[0] = sign_bit | rest as u8;
        return 1;
    }
    let [first, more @ ..] = buf;
    *first = 0x80 | sign_bit | (rest & 0x3F) as u8;
    rest >>= 6;
    // Seven bits a byte after the first six: 26 bits at most, so the fifth byte ends the int.
    let mut len = 1;
    for byte in more {
        len += 1;
        if rest < 0x80 {
            *byte = rest as u8;
            break;
        }
        *byte = 0x80 | (rest & 0x7F) as u8;
        rest >>= 7;
    }
    len
}

/// The number of bytes [`pack`] uses for `value`.
#[inline]
pub fn packed_len(value: i32) -> usize {
    let magnitude = (value ^ (value >> 31)) as u32;
    match magnitude {
        0..=0x3F => 1,
        0x40..=0x1FFF => 2,
        0x2000..=0xF_FFFF => 3,
        0x10_0000..=0x7FF_FFFF => 4,
        _ => 5,
    }
}

/// Appends the packed form of `value` to `out`.
#[inline]
pub fn pack_into(value: i32, out: &mut Vec<u8>) {
    let mut buf = [0; MAX_BYTES];
    let len = pack(value, &mut buf);
    out.extend(buf.iter().take(len));
}

/// Reads one int from the front of `input`; returns it and the number of bytes used.
///
/// Returns `None` if `input` ends before the int does.
#[inline]
pub fn unpack(input: &[u8]) -> Option<(i32, usize)> {
    if let Some(bytes) = input.first_chunk::<MAX_BYTES>() {
        return Some(unpack_five(bytes));
    }
    let mut padded = [0u8; MAX_BYTES];
    for (to, from) in padded.iter_mut().zip(input) {
        *to = *from;
    }
    let (value, len) = unpack_five(&padded);
    // Zero padding ends any int, so an int cut short looks longer than the input.
    (len <= input.len()).then_some((value, len))
}

/// [`unpack`] on at least five readable bytes: no length checks in the chain.
#[inline(always)]
fn unpack_five(b: &[u8; MAX_BYTES]) -> (i32, usize) {
    let sign = ((b[0] >> 6) & 1) as i32;
    let mut value = (b[0] & 0x3F) as u32;
    let mut len = 1;
    // DDNet masks: 7 bits at shifts 6, 13, 20, then 4 bits at 27; the fifth byte's extend
    // bit is ignored.
    if b[0] & 0x80 != 0 {
        value |= ((b[1] & 0x7F) as u32) << 6;
        len = 2;
        if b[1] & 0x80 != 0 {
            value |= ((b[2] & 0x7F) as u32) << 13;
            len = 3;
            if b[2] & 0x80 != 0 {
                value |= ((b[3] & 0x7F) as u32) << 20;
                len = 4;
                if b[3] & 0x80 != 0 {
                    value |= ((b[4] & 0x0F) as u32) << 27;
                    len = 5;
                }
            }
        }
    }
    ((value as i32) ^ -sign, len)
}

/// [`unpack`] on the first five bytes of `word` (little-endian; the upper three bytes are
/// ignored), without branches: returns the int, its length and its last byte.
///
/// Where the lengths of successive ints vary unpredictably (positions and aim in
/// teehistorian), a branch per byte costs more than doing the arithmetic for all five.
#[inline(always)]
pub fn unpack_word(word: u64) -> (i32, usize, u8) {
    // The first byte without the extend bit ends the int; the fifth always does.
    let stops = (!word & 0x80_8080_8080) | 0x80_0000_0000;
    let len = (stops.trailing_zeros() / 8 + 1) as usize;
    // Keep only the int's own bytes (len <= 5, so the shift stays below 64).
    let x = word & ((1u64 << (8 * len)) - 1);
    let magnitude = (x & 0x3F)
        | ((x >> 2) & (0x7F << 6))
        | ((x >> 3) & (0x7F << 13))
        | ((x >> 4) & (0x7F << 20))
        | ((x >> 5) & (0x0F << 27));
    let sign = ((x >> 6) & 1) as i32;
    let last = (x >> (8 * (len - 1))) as u8;
    ((magnitude as i32) ^ -sign, len, last)
}

/// [`unpack_word`] for a word whose first byte has its extend bit set (an int of two bytes
/// or more), with a branch of its own for two bytes: returns the int, its length and its
/// last byte.
///
/// Two-byte ints are most of the longer ones in teehistorian (moves, aim), in runs the
/// processor predicts; the branch lets it start on the next int before this one's length
/// is computed, where [`unpack_word`]'s arithmetic makes it wait (1.3x faster decoding of
/// the generated benchmark file).
#[inline(always)]
pub(crate) fn unpack_long_word(word: u64) -> (i32, usize, u8) {
    let (first, second) = (word as u8, (word >> 8) as u8);
    if second & 0x80 == 0 {
        let magnitude = i32::from(first & 0x3F) | i32::from(second) << 6;
        return (magnitude ^ -i32::from((first >> 6) & 1), 2, second);
    }
    unpack_word(word)
}

/// Whether `bytes`, which [`unpack`] read as `value`, are exactly the bytes [`pack`] writes
/// for it (and DDNet's packer with it).
///
/// Besides the length this checks the fifth byte, whose top four bits the unpacker ignores:
/// `bf ff ff ff ff` reads as `i32::MAX` in five bytes, the canonical length, yet is not what a
/// writer emits (`bf ff ff ff 0f`), so re-encoding would not give the stored bytes back.
#[inline]
pub fn is_canonical(value: i32, bytes: &[u8]) -> bool {
    packed_len(value) == bytes.len() && bytes.get(4).is_none_or(|fifth| fifth & 0xF0 == 0)
}

/// Appends the packed form of every int in `ints` to `out`.
pub fn pack_ints(ints: &[i32], out: &mut Vec<u8>) {
    let base = out.len();
    out.resize(base + ints.len() * MAX_BYTES, 0);
    let len = pack_into_slots(ints, out.get_mut(base..).unwrap_or_default());
    out.truncate(base + len);
}

/// [`pack_ints`] into `buf` from its start, treating `buf` as scratch space: it grows when
/// it must and is never shortened or zeroed, so a caller that reuses it (an encoder, chunk
/// after chunk) pays for neither. Returns the packed length, `buf[..len]`.
pub(crate) fn pack_ints_reusing(ints: &[i32], buf: &mut Vec<u8>) -> usize {
    let need = ints.len() * MAX_BYTES;
    if buf.len() < need {
        buf.resize(need, 0);
    }
    pack_into_slots(ints, buf)
}

/// Packs `ints` into `buf`, which holds at least [`MAX_BYTES`] per int (the callers size it
/// so; where it would not, the ints that fit); returns the length.
/// Writing whole five-byte slots and then advancing by the real length keeps capacity
/// checks out of the loop.
fn pack_into_slots(ints: &[i32], buf: &mut [u8]) -> usize {
    let mut pos = 0;
    for &value in ints {
        let Some(slot) = buf
            .get_mut(pos..)
            .and_then(|rest| rest.first_chunk_mut::<MAX_BYTES>())
        else {
            break;
        };
        pos += pack(value, slot);
    }
    pos
}

/// Packs a byte buffer the way DDNet's demo recorder does: as little-endian 32-bit words.
///
/// `bytes.len()` must be a multiple of four (DDNet pads chunk payloads with zeros first;
/// see [`pad_to_words`]).
pub fn pack_words(bytes: &[u8], out: &mut Vec<u8>) -> Result<(), VarIntError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(VarIntError::NotWordAligned { len: bytes.len() });
    }
    out.reserve(bytes.len() / 2);
    for word in bytes.as_chunks::<4>().0 {
        pack_into(i32::from_le_bytes(*word), out);
    }
    Ok(())
}

/// Converts a byte payload to the int words DDNet's recorder packs, zero-padding the last
/// word as DDNet does.
pub fn pad_to_words(bytes: &[u8], out: &mut Vec<i32>) {
    out.reserve(bytes.len().div_ceil(4));
    let (words, tail) = bytes.as_chunks::<4>();
    out.extend(words.iter().map(|w| i32::from_le_bytes(*w)));
    if !tail.is_empty() {
        let mut w = [0u8; 4];
        for (to, from) in w.iter_mut().zip(tail) {
            *to = *from;
        }
        out.push(i32::from_le_bytes(w));
    }
}

/// Appends every int packed in `input` to `out`, refusing to hold more than `limit` ints
/// in `out` (so a hostile input cannot make it grow without bound).
///
/// Returns how many of the ints were not in their shortest form; DDNet never writes those,
/// so a non-zero count means the bytes did not come from DDNet's packer.
pub fn unpack_ints(input: &[u8], out: &mut Vec<i32>, limit: usize) -> Result<usize, VarIntError> {
    let base = out.len();
    // Every int takes at least one byte, so the input length bounds the output; writing
    // into a pre-sized slice keeps the hot loop free of capacity checks.
    let room = input.len().min(limit.saturating_sub(base));
    out.resize(base + room, 0);
    let (written, result) = unpack_into(input, out.get_mut(base..).unwrap_or_default(), limit);
    out.truncate(base + written);
    result
}

/// [`unpack_ints`] into `buf` from its start, treating `buf` as scratch space: it grows
/// when it must and is never shortened or zeroed, so a caller that reuses it pays for
/// neither. Returns the number of ints written, `buf[..n]` (also on error: the ints before
/// it), and the non-canonical count or the error.
pub(crate) fn unpack_ints_reusing(
    input: &[u8],
    buf: &mut Vec<i32>,
    limit: usize,
) -> (usize, Result<usize, VarIntError>) {
    let room = input.len().min(limit);
    if buf.len() < room {
        buf.resize(room, 0);
    }
    unpack_into(input, buf.get_mut(..room).unwrap_or_default(), limit)
}

/// The value of a one-byte int (extend bit clear).
#[inline(always)]
fn one_byte(byte: u8) -> i32 {
    (byte & 0x3F) as i32 ^ -(((byte >> 6) & 1) as i32)
}

/// Whether an int [`unpack_word`] read as `value` in `len` bytes, the last being `last`, is
/// in the form [`pack`] writes (see [`is_canonical`]).
#[inline(always)]
fn word_is_canonical(value: i32, len: usize, last: u8) -> bool {
    packed_len(value) == len && (len < MAX_BYTES || last & 0xF0 == 0)
}

/// Bit 7 of each of eight bytes: the extend bits.
const EXTEND_BITS: u64 = 0x8080_8080_8080_8080;

/// The loop behind [`unpack_ints`]: the ints written to `dst` (on error, those before it)
/// and the non-canonical count or the error.
#[inline]
fn unpack_into(input: &[u8], dst: &mut [i32], limit: usize) -> (usize, Result<usize, VarIntError>) {
    let mut pos = 0;
    let mut n = 0;
    let mut non_canonical = 0;
    // Eight bytes at a time while both sides have room for eight: most ints in real chunks
    // are single bytes (most of them zeros), which convert as a block without a branch per
    // byte; a longer int ends the block at its first byte and is read from one word.
    while let (Some(bytes), Some(slots)) = (input.get(pos..pos + 8), dst.get_mut(n..n + 8)) {
        let word = u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
        // Converting all eight is cheaper than stopping early: slots past a longer int are
        // written again by the ints that really go there.
        for (k, slot) in slots.iter_mut().enumerate() {
            *slot = one_byte((word >> (8 * k)) as u8);
        }
        let extend = word & EXTEND_BITS;
        if extend == 0 {
            pos += 8;
            n += 8;
            continue;
        }
        let singles = (extend.trailing_zeros() / 8) as usize;
        pos += singles;
        n += singles;
        // Longer ints, one word each, for as long as they follow one another (message
        // chunks hold their bytes as words, mostly five-byte ints).
        while let (Some(bytes), Some(slot)) = (input.get(pos..pos + 8), dst.get_mut(n)) {
            let word = u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
            if word & 0x80 == 0 {
                break;
            }
            let (value, len, last) = unpack_word(word);
            non_canonical += !word_is_canonical(value, len, last) as usize;
            *slot = value;
            pos += len;
            n += 1;
        }
    }
    // The last few bytes (or ints), one at a time.
    while let Some(rest @ [first, ..]) = input.get(pos..) {
        let Some(slot) = dst.get_mut(n) else {
            return (n, Err(VarIntError::TooMany { limit }));
        };
        if first & 0x80 == 0 {
            *slot = one_byte(*first);
            pos += 1;
        } else {
            let Some((value, len)) = unpack(rest) else {
                return (n, Err(VarIntError::UnexpectedEnd { offset: pos }));
            };
            // `unpack` read `len` bytes of `rest`.
            let bytes = rest.get(..len).unwrap_or(rest);
            non_canonical += !is_canonical(value, bytes) as usize;
            *slot = value;
            pos += len;
        }
        n += 1;
    }
    (n, Ok(non_canonical))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every two-byte int, and every first two bytes of a longer one.
    #[test]
    fn unpack_long_word_on_every_first_two_bytes() {
        for first in 0x80..=0xFFu8 {
            for second in 0..=0xFFu8 {
                let word = u64::from_le_bytes([first, second, 0x85, 0x81, 0x03, 0xAA, 0xBB, 0xCC]);
                assert_eq!(
                    unpack_long_word(word),
                    unpack_word(word),
                    "{first:#x} {second:#x}"
                );
            }
        }
    }

    const VECTORS: &[(i32, &[u8])] = &[
        (0, &[0x00]),
        (1, &[0x01]),
        (-1, &[0x40]),
        (32, &[0x20]),
        (64, &[0x80, 0x01]),
        (256, &[0x80, 0x04]),
        (-512, &[0xFF, 0x07]),
        (12345, &[0xB9, 0xC0, 0x01]),
        (1000, &[0xA8, 0x0F]),
        (1000000, &[0x80, 0x89, 0x7A]),
        (13010, &[0x92, 0xCB, 0x01]),
        (499, &[0xB3, 0x07]),
        (i32::MAX, &[0xBF, 0xFF, 0xFF, 0xFF, 0x0F]),
        (i32::MIN, &[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
    ];

    #[test]
    fn ddnet_vectors_pack_and_unpack() {
        for &(value, bytes) in VECTORS {
            let mut out = Vec::new();
            pack_into(value, &mut out);
            assert_eq!(out, bytes, "pack {value}");
            assert_eq!(unpack(bytes), Some((value, bytes.len())), "unpack {value}");
            assert_eq!(packed_len(value), bytes.len());
        }
    }

    #[test]
    fn ddnet_sizes() {
        let values = [
            0,
            1,
            -1,
            32,
            64,
            256,
            -512,
            12345,
            -123456,
            1234567,
            12345678,
            123456789,
            i32::MAX,
            i32::MIN,
        ];
        let sizes = [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 4, 5, 5];
        for (v, s) in values.iter().zip(sizes) {
            assert_eq!(packed_len(*v), s, "{v}");
        }
    }

    #[test]
    fn unpack_edge_cases() {
        assert_eq!(unpack(&[0xFF; 5]), Some((i32::MIN, 5)));
        assert_eq!(unpack(&[0xBF, 0xFF, 0xFF, 0xFF, 0xFF]), Some((i32::MAX, 5)));
        assert_eq!(unpack(&[0x80]), None);
        assert_eq!(unpack(&[]), None);
        let mut out = Vec::new();
        assert_eq!(
            unpack_ints(&[0x01, 0x80], &mut out, 10),
            Err(VarIntError::UnexpectedEnd { offset: 1 })
        );
        out.clear();
        assert_eq!(
            unpack_ints(&[0, 0, 0], &mut out, 2),
            Err(VarIntError::TooMany { limit: 2 })
        );
        out.clear();
        // 1 written with a needless extension byte.
        assert_eq!(unpack_ints(&[0x81, 0x00], &mut out, 2), Ok(1));
        assert_eq!(out, [1]);
    }

    #[test]
    fn words_are_little_endian_and_padded() {
        let mut ints = Vec::new();
        pad_to_words(&[6, 0, 0x40, 0x68, 0x69, 0], &mut ints);
        assert_eq!(ints, [0x6840_0006, 0x0000_0069]);
        assert_eq!(
            pack_words(&[1, 2, 3], &mut Vec::new()),
            Err(VarIntError::NotWordAligned { len: 3 })
        );
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;
        use proptest::test_runner::FileFailurePersistence;

        proptest! {
            #![proptest_config(ProptestConfig {
                failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
                    "proptest-regressions/codec-varint.txt",
                ))),
                ..ProptestConfig::default()
            })]

            #[test]
            fn round_trip_any_i32(value in any::<i32>()) {
                let mut buf = [0; MAX_BYTES];
                let len = pack(value, &mut buf);
                prop_assert_eq!(len, packed_len(value));
                prop_assert_eq!(unpack(&buf[..len]), Some((value, len)));
            }

            #[test]
            fn round_trip_int_arrays(ints in proptest::collection::vec(any::<i32>(), 0..200)) {
                let mut packed = Vec::new();
                pack_ints(&ints, &mut packed);
                let mut back = Vec::new();
                prop_assert_eq!(unpack_ints(&packed, &mut back, ints.len()), Ok(0));
                prop_assert_eq!(back, ints);
            }

            #[test]
            fn unpack_word_agrees_with_unpack(bytes in any::<[u8; 8]>()) {
                let (value, len, last) = unpack_word(u64::from_le_bytes(bytes));
                prop_assert_eq!(unpack(&bytes), Some((value, len)));
                prop_assert_eq!(last, bytes[len - 1]);
            }

            /// For a first byte with its extend bit, the two-byte branch agrees with the
            /// arithmetic; the second byte ranges over both of its cases.
            #[test]
            fn unpack_long_word_agrees_with_unpack_word(mut bytes in any::<[u8; 8]>(), short in any::<bool>()) {
                bytes[0] |= 0x80;
                if short {
                    bytes[1] &= 0x7F;
                }
                let word = u64::from_le_bytes(bytes);
                prop_assert_eq!(unpack_long_word(word), unpack_word(word));
            }

            /// Packing into a reused buffer (longer or shorter, holding old bytes) gives
            /// the bytes packing into a fresh one gives.
            #[test]
            fn reused_buffer_packs_as_fresh(
                ints in proptest::collection::vec(any::<i32>(), 0..100),
                old in proptest::collection::vec(any::<u8>(), 0..600),
            ) {
                let mut fresh = Vec::new();
                pack_ints(&ints, &mut fresh);
                let mut reused = old;
                let len = pack_ints_reusing(&ints, &mut reused);
                prop_assert_eq!(&reused[..len], &fresh[..]);
            }

            /// The block-wise loop gives what reading one int after another with
            /// [`unpack`] gives: the same ints, non-canonical count, error and ints
            /// before it, also into a reused buffer holding old ints.
            #[test]
            fn unpack_ints_reads_int_by_int(
                bytes in proptest::collection::vec(
                    prop_oneof![4 => 0u8..0x80, 1 => any::<u8>()], 0..80),
                limit in 0usize..100,
                old in proptest::collection::vec(any::<i32>(), 0..100),
            ) {
                let mut expected = Vec::new();
                let (mut pos, mut non_canonical) = (0, 0);
                let expected_result = loop {
                    if pos == bytes.len() {
                        break Ok(non_canonical);
                    }
                    if expected.len() == limit {
                        break Err(VarIntError::TooMany { limit });
                    }
                    let Some((value, len)) = unpack(&bytes[pos..]) else {
                        break Err(VarIntError::UnexpectedEnd { offset: pos });
                    };
                    non_canonical += !is_canonical(value, &bytes[pos..pos + len]) as usize;
                    expected.push(value);
                    pos += len;
                };
                let mut out = Vec::new();
                prop_assert_eq!(unpack_ints(&bytes, &mut out, limit), expected_result);
                prop_assert_eq!(&out, &expected);
                let mut reused = old;
                let (n, result) = unpack_ints_reusing(&bytes, &mut reused, limit);
                prop_assert_eq!(result, expected_result);
                prop_assert_eq!(&reused[..n], &expected[..]);
            }

            #[test]
            fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
                let mut out = Vec::new();
                let _ = unpack_ints(&bytes, &mut out, 16);
                prop_assert!(out.len() <= 16);
            }
        }
    }
}
