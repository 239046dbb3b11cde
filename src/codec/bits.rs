//! Little-endian bit streams as the Source engine packs its network messages (`bf_read` /
//! `bf_write`): bit `i` of the stream is bit `i % 8` of byte `i / 8`, and a value of `n`
//! bits is stored low bit first.
//!
//! * [`BitReader`] reads values of 1 to 64 bits, NUL-terminated strings, floats and the
//!   engine's variable-length forms from a byte slice, bounded by a length in bits, and says
//!   at which bit it ran out.
//! * [`BitWriter`] writes the same forms; what a reader reads, a writer writes back to the
//!   same bits.
//! * [`Bits`] owns a run of bits that need not start or end on a byte boundary (a packet's
//!   embedded string-table data, an entity delta), copied so that it starts at bit 0.
//!
//! What the values mean is left to the formats.

use std::fmt;

/// A bit stream ended before a value it should hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("bit stream ends at bit {end}, {wanted} bits wanted at bit {at}")]
pub struct BitsEnded {
    /// The bit where the value starts.
    pub at: usize,
    /// How many bits the value needs (for strings: the bits left when no NUL came).
    pub wanted: usize,
    /// The length of the stream in bits.
    pub end: usize,
}

/// Reads values from a bit stream over borrowed bytes.
#[derive(Clone, Copy)]
pub struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
}

impl fmt::Debug for BitReader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BitReader")
            .field("pos", &self.pos)
            .field("end", &self.end)
            .finish()
    }
}

impl<'a> BitReader<'a> {
    /// A reader over every bit of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            pos: 0,
            end: data.len() * 8,
        }
    }

    /// A reader over the first `bits` bits of `data` (at most all of them).
    pub fn with_len(data: &'a [u8], bits: usize) -> Self {
        BitReader {
            data,
            pos: 0,
            end: bits.min(data.len() * 8),
        }
    }

    /// The position of the next bit to read, counted from the start of the stream.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The length of the stream in bits.
    pub fn len(&self) -> usize {
        self.end
    }

    /// Whether the stream has no bits at all.
    pub fn is_empty(&self) -> bool {
        self.end == 0
    }

    /// How many bits are left.
    pub fn remaining(&self) -> usize {
        self.end - self.pos
    }

    fn need(&self, bits: usize) -> Result<(), BitsEnded> {
        if bits > self.remaining() {
            Err(BitsEnded {
                at: self.pos,
                wanted: bits,
                end: self.end,
            })
        } else {
            Ok(())
        }
    }

    /// The 64 bits from bit `pos` on (zeros past the data), without bounds on `end`.
    #[inline]
    fn window(&self, pos: usize) -> u64 {
        let byte = pos / 8;
        let tail = self.data.get(byte..).unwrap_or(&[]);
        let word = match tail.first_chunk::<8>() {
            Some(b) => u64::from_le_bytes(*b),
            None => {
                let mut b = [0u8; 8];
                for (to, from) in b.iter_mut().zip(tail) {
                    *to = *from;
                }
                u64::from_le_bytes(b)
            }
        };
        word >> (pos % 8)
    }

    /// Reads an unsigned value of `bits` bits (0 to 32).
    #[inline]
    pub fn read(&mut self, bits: u32) -> Result<u32, BitsEnded> {
        debug_assert!(bits <= 32);
        self.need(bits as usize)?;
        let value = self.window(self.pos) & ((1u64 << bits) - 1);
        self.pos += bits as usize;
        Ok(value as u32)
    }

    /// Reads an unsigned value of `bits` bits (0 to 64).
    pub fn read_u64(&mut self, bits: u32) -> Result<u64, BitsEnded> {
        debug_assert!(bits <= 64);
        if bits <= 32 {
            return self.read(bits).map(u64::from);
        }
        self.need(bits as usize)?;
        let low = u64::from(self.read(32)?);
        let high = u64::from(self.read(bits - 32)?);
        Ok(low | high << 32)
    }

    /// Reads one bit.
    #[inline]
    pub(crate) fn read_bool(&mut self) -> Result<bool, BitsEnded> {
        Ok(self.read(1)? == 1)
    }

    /// Reads a two's-complement signed value of `bits` bits (1 to 32).
    pub fn read_signed(&mut self, bits: u32) -> Result<i32, BitsEnded> {
        let raw = self.read(bits)?;
        let shift = 32 - bits;
        Ok(((raw << shift) as i32) >> shift)
    }

    /// Reads an IEEE 754 single as its 32 bits.
    pub(crate) fn read_f32(&mut self) -> Result<f32, BitsEnded> {
        self.read(32).map(f32::from_bits)
    }

    /// Reads `out.len()` whole bytes (they need not be byte-aligned in the stream).
    pub(crate) fn read_bytes_into(&mut self, out: &mut [u8]) -> Result<(), BitsEnded> {
        self.need(out.len() * 8)?;
        let start = self.pos / 8;
        if self.pos.is_multiple_of(8) {
            let Some(bytes) = self.data.get(start..start + out.len()) else {
                // `need` bounds the stream by the data: not reached.
                return Err(BitsEnded {
                    at: self.pos,
                    wanted: out.len() * 8,
                    end: self.end,
                });
            };
            out.copy_from_slice(bytes);
            self.pos += out.len() * 8;
        } else {
            let shift = self.pos % 8;
            for (i, byte) in out.iter_mut().enumerate() {
                *byte = self.byte_at(start + i, shift);
            }
            self.pos += out.len() * 8;
        }
        Ok(())
    }

    /// Reads `len` whole bytes into a new vector.
    pub fn read_bytes(&mut self, len: usize) -> Result<Vec<u8>, BitsEnded> {
        self.need(len * 8)?;
        let mut out = vec![0; len];
        self.read_bytes_into(&mut out)?;
        Ok(out)
    }

    /// Reads a NUL-terminated string and returns its bytes without the NUL. Fails when the
    /// stream ends before a NUL.
    pub fn read_string(&mut self) -> Result<Vec<u8>, BitsEnded> {
        let len = self.string_len()?;
        let mut out = Vec::with_capacity(len);
        self.extend_bytes(len, &mut out);
        self.pos += 8;
        Ok(out)
    }

    /// Steps over a NUL-terminated string without copying it. Fails, where
    /// [`read_string`](Self::read_string) would, when the stream ends before a NUL.
    pub fn skip_string(&mut self) -> Result<(), BitsEnded> {
        let len = self.string_len()?;
        self.pos += (len + 1) * 8;
        Ok(())
    }

    /// The length of the string at the position, without its NUL.
    fn string_len(&self) -> Result<usize, BitsEnded> {
        let at = self.pos;
        let ended = BitsEnded {
            at,
            wanted: self.end - at + 8,
            end: self.end,
        };
        let whole = (self.end - at) / 8;
        let shift = at % 8;
        let start = at / 8;
        if shift == 0 {
            // Byte-aligned: a search for the NUL in place.
            return self
                .data
                .get(start..start + whole)
                .and_then(|bytes| bytes.iter().position(|&b| b == 0))
                .ok_or(ended);
        }
        // Eight bytes at a time while a ninth follows to fill the shifted word.
        let mut i = 0;
        while i + 8 <= whole {
            let Some(word) = self.word_at(start + i, shift) else {
                break;
            };
            let zero = word.wrapping_sub(0x0101_0101_0101_0101) & !word & 0x8080_8080_8080_8080;
            if zero != 0 {
                return Ok(i + zero.trailing_zeros() as usize / 8);
            }
            i += 8;
        }
        (i..whole)
            .find(|&i| self.byte_at(start + i, shift) == 0)
            .ok_or(ended)
    }

    /// The eight bytes from bit `8 * i + shift` on (`shift` 1 to 7), if `data[i + 8]`
    /// exists to fill them.
    #[inline]
    fn word_at(&self, i: usize, shift: usize) -> Option<u64> {
        let (low, [high, ..]) = self.data.get(i..)?.split_first_chunk::<8>()? else {
            return None;
        };
        Some(u64::from_le_bytes(*low) >> shift | u64::from(*high) << (64 - shift))
    }

    /// The byte made of the high `8 - shift` bits of `data[i]` and the low `shift` bits
    /// of `data[i + 1]` (zeros past the data).
    #[inline]
    fn byte_at(&self, i: usize, shift: usize) -> u8 {
        let low = self.data.get(i).map_or(0, |&b| b >> shift);
        let high = self.data.get(i + 1).map_or(0, |&b| b << (8 - shift));
        low | high
    }

    /// Appends the next `len` whole bytes (checked by the caller) to `out` and steps over
    /// them.
    fn extend_bytes(&mut self, len: usize, out: &mut Vec<u8>) {
        let start = self.pos / 8;
        let shift = self.pos % 8;
        if shift == 0 {
            out.extend_from_slice(self.data.get(start..start + len).unwrap_or_default());
        } else {
            out.reserve(len);
            let mut i = 0;
            while i + 8 <= len {
                let Some(word) = self.word_at(start + i, shift) else {
                    break;
                };
                out.extend_from_slice(&word.to_le_bytes());
                i += 8;
            }
            out.extend((i..len).map(|i| self.byte_at(start + i, shift)));
        }
        self.pos += len * 8;
    }

    /// Reads the next `bits` bits as an owned [`Bits`].
    pub fn read_bits(&mut self, bits: usize) -> Result<Bits, BitsEnded> {
        self.need(bits)?;
        let whole = bits / 8;
        let rest = (bits % 8) as u32;
        let mut data = Vec::with_capacity(bits.div_ceil(8));
        self.extend_bytes(whole, &mut data);
        if rest > 0 {
            data.push(self.read(rest)? as u8);
        }
        Ok(Bits { data, len: bits })
    }

    /// A reader over the next `bits` bits, which this reader then steps over.
    pub fn sub(&mut self, bits: usize) -> Result<BitReader<'a>, BitsEnded> {
        self.need(bits)?;
        let sub = BitReader {
            data: self.data,
            pos: self.pos,
            end: self.pos + bits,
        };
        self.pos += bits;
        Ok(sub)
    }

    /// Steps over `bits` bits.
    pub fn skip(&mut self, bits: usize) -> Result<(), BitsEnded> {
        self.need(bits)?;
        self.pos += bits;
        Ok(())
    }

    /// Reads the engine's 32-bit varint: groups of seven bits low first in bytes whose
    /// high bit says another follows, at most five bytes (`bf_read::ReadVarInt32`).
    pub fn read_varint32(&mut self) -> Result<u32, BitsEnded> {
        let mut value = 0u32;
        for i in 0..5 {
            let byte = self.read(8)?;
            value |= (byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                break;
            }
        }
        Ok(value)
    }

    /// Reads the engine's `UBitVar`: a two-bit selector, then 4, 8, 12 or 32 bits
    /// (`bf_read::ReadUBitVar`).
    pub fn read_ubitvar(&mut self) -> Result<u32, BitsEnded> {
        // The selector and the value from one window when the longest form fits (entity
        // updates read one per prop).
        if self.remaining() >= 34 {
            let window = self.window(self.pos);
            let bits = ubitvar_bits(window as u32);
            self.pos += 2 + bits as usize;
            return Ok(((window >> 2) & ((1u64 << bits) - 1)) as u32);
        }
        let selector = self.read(2)?;
        self.read(ubitvar_bits(selector))
    }
}

/// The payload width of the `UBitVar` selector in the low two bits of `selector`: 4, 8, 12
/// or 32.
#[inline]
fn ubitvar_bits(selector: u32) -> u32 {
    match selector & 3 {
        0 => 4,
        1 => 8,
        2 => 12,
        _ => 32,
    }
}

/// Writes values into a growing bit stream.
#[derive(Debug, Clone, Default)]
pub struct BitWriter {
    data: Vec<u8>,
    len: usize,
}

impl BitWriter {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty stream with room for `bytes` bytes.
    pub fn with_capacity(bytes: usize) -> Self {
        BitWriter {
            data: Vec::with_capacity(bytes),
            len: 0,
        }
    }

    /// How many bits have been written.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes the low `bits` bits of `value` (0 to 32).
    #[inline]
    pub fn write(&mut self, value: u32, bits: u32) {
        debug_assert!(bits <= 32);
        if bits == 0 {
            return;
        }
        let value = u64::from(value) & ((1u64 << bits) - 1);
        let shift = self.len % 8;
        let mut acc = value << shift;
        let mut left = bits as usize + shift;
        // A partly filled last byte (there is one when `shift` is not 0) takes the low bits.
        if shift != 0
            && let Some(last) = self.data.last_mut()
        {
            *last |= acc as u8;
            acc >>= 8;
            left = left.saturating_sub(8);
        }
        while left > 0 {
            self.data.push(acc as u8);
            acc >>= 8;
            left = left.saturating_sub(8);
        }
        self.len += bits as usize;
    }

    /// Writes the low `bits` bits of `value` (0 to 64).
    pub(crate) fn write_u64(&mut self, value: u64, bits: u32) {
        if bits <= 32 {
            self.write(value as u32, bits);
        } else {
            self.write(value as u32, 32);
            self.write((value >> 32) as u32, bits - 32);
        }
    }

    /// Writes one bit.
    pub(crate) fn write_bool(&mut self, value: bool) {
        self.write(u32::from(value), 1);
    }

    /// Writes a signed value in `bits` bits of two's complement.
    pub fn write_signed(&mut self, value: i32, bits: u32) {
        self.write(value as u32, bits);
    }

    /// Writes an IEEE 754 single as its 32 bits.
    pub(crate) fn write_f32(&mut self, value: f32) {
        self.write(value.to_bits(), 32);
    }

    /// Writes whole bytes.
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        if self.len.is_multiple_of(8) {
            self.data.extend_from_slice(bytes);
            self.len += bytes.len() * 8;
        } else {
            for &b in bytes {
                self.write(u32::from(b), 8);
            }
        }
    }

    /// Writes the bytes of a string and its NUL.
    pub(crate) fn write_string(&mut self, bytes: &[u8]) {
        self.write_bytes(bytes);
        self.write(0, 8);
    }

    /// Writes the engine's 32-bit varint (the inverse of [`BitReader::read_varint32`]).
    pub fn write_varint32(&mut self, mut value: u32) {
        while value >= 0x80 {
            self.write(value & 0x7f | 0x80, 8);
            value >>= 7;
        }
        self.write(value, 8);
    }

    /// Writes `value` as a `UBitVar` with the smallest selector that holds it, as the
    /// engine's `WriteUBitVar` does.
    pub fn write_ubitvar(&mut self, value: u32) {
        let selector = match value {
            0..0x10 => 0,
            0x10..0x100 => 1,
            0x100..0x1000 => 2,
            _ => 3,
        };
        self.write(selector, 2);
        self.write(value, ubitvar_bits(selector));
    }

    /// Writes the bits a reader has left, leaving the reader where it is.
    pub fn write_reader(&mut self, mut reader: BitReader<'_>) {
        if self.len.is_multiple_of(8) {
            // Byte-aligned here (most copies): whole bytes at once.
            let whole = reader.remaining() / 8;
            reader.extend_bytes(whole, &mut self.data);
            self.len += whole * 8;
        }
        // Reads fail, without a step, only where fewer bits are left than they want.
        while let Ok(v) = reader.read(32) {
            self.write(v, 32);
        }
        let rest = reader.remaining() as u32;
        if let Ok(v) = reader.read(rest) {
            self.write(v, rest);
        }
    }

    /// Writes the bits of `bits`.
    pub(crate) fn write_bits(&mut self, bits: &Bits) {
        self.write_reader(bits.reader());
    }

    /// The bits written, as an owned [`Bits`].
    pub fn finish(self) -> Bits {
        Bits {
            data: self.data,
            len: self.len,
        }
    }

    /// The bytes written; the last one is padded with zero bits.
    pub fn into_bytes(self) -> Vec<u8> {
        self.data
    }

    /// The bytes written so far; the last one is padded with zero bits.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data
    }
}

/// An owned run of bits starting at bit 0 of its bytes; the bits past `len` in the last
/// byte are zero.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Bits {
    data: Vec<u8>,
    len: usize,
}

impl Bits {
    /// The bits of whole bytes.
    pub fn from_bytes(data: Vec<u8>) -> Self {
        let len = data.len() * 8;
        Bits { data, len }
    }

    /// The number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes, the last one padded with zero bits.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data
    }

    /// A reader over the bits.
    pub fn reader(&self) -> BitReader<'_> {
        BitReader::with_len(&self.data, self.len)
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bits({} bits: ", self.len)?;
        for b in self.data.iter().take(32) {
            write!(f, "{b:02x}")?;
        }
        if self.data.len() > 32 {
            write!(f, "...")?;
        }
        write!(f, ")")
    }
}

/// A JSON object `{"bits": n, "hex": "..."}`: the length and the padded bytes.
#[cfg(feature = "serde")]
impl serde::Serialize for Bits {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Bits", 2)?;
        st.serialize_field("bits", &self.len)?;
        st.serialize_field("hex", &hex::encode(&self.data))?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_at_every_alignment() {
        for offset in 0..9u32 {
            let mut w = BitWriter::new();
            w.write(0, offset);
            w.write(0x1234_5678, 32);
            w.write(5, 3);
            w.write_signed(-7, 5);
            w.write_u64(0xdead_beef_0bad_f00d, 64);
            w.write_string(b"hello");
            w.write_varint32(300);
            w.write_ubitvar(4095);
            w.write_f32(1.5);
            let bits = w.finish();
            let mut r = bits.reader();
            assert_eq!(r.read(offset).unwrap(), 0);
            assert_eq!(r.read(32).unwrap(), 0x1234_5678);
            assert_eq!(r.read(3).unwrap(), 5);
            assert_eq!(r.read_signed(5).unwrap(), -7);
            assert_eq!(r.read_u64(64).unwrap(), 0xdead_beef_0bad_f00d);
            assert_eq!(r.read_string().unwrap(), b"hello");
            assert_eq!(r.read_varint32().unwrap(), 300);
            assert_eq!(r.read_ubitvar().unwrap(), 4095);
            assert_eq!(r.read_f32().unwrap(), 1.5);
            assert_eq!(r.remaining(), 0);
            let end = r.read(1).unwrap_err();
            assert_eq!(end.at, bits.len());
        }
    }

    #[test]
    fn a_string_without_its_nul_is_an_error_at_its_start() {
        let mut r = BitReader::new(b"xabc");
        r.read(8).unwrap();
        let e = r.read_string().unwrap_err();
        assert_eq!(e.at, 8);
    }

    #[test]
    fn sub_readers_copy_back_the_same_bits() {
        let data = [0b1011_0110u8, 0xff, 0x01, 0x80];
        let mut r = BitReader::new(&data);
        r.read(3).unwrap();
        let bits = r.read_bits(20).unwrap();
        let mut w = BitWriter::new();
        w.write(0b110, 3);
        w.write_bits(&bits);
        w.write_reader(r);
        assert_eq!(w.into_bytes(), data);
    }
}
