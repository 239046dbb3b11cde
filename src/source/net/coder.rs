//! One description per message, two directions: a message's `code` method walks its fields
//! in wire order through a [`Coder`], and the [`Decoder`] fills them from bits while the
//! [`Encoder`] writes them out. A field's width, its condition on the protocol or on an
//! earlier field, and its length prefix are written once, so the two directions cannot
//! drift apart.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{NetError, NetErrorKind};
use crate::codec::bits::{BitReader, BitWriter, Bits, BitsEnded};
use crate::codec::string::NulStr;

/// A NUL-terminated string in a network message, without its NUL.
pub type NetStr = NulStr<Vec<u8>>;

/// How the length of a run of bits is stored in front of it.
#[derive(Debug, Clone, Copy)]
pub enum Length {
    /// The length in bits, as an unsigned value of this many bits.
    Bits(u32),
    /// The length in bits, as a varint32.
    VarBits,
    /// The length in bytes, as an unsigned value of this many bits.
    Bytes(u32),
    /// The length in bytes, as a varint32.
    VarBytes,
    /// No prefix: the length in bits is known from an earlier field.
    Given(usize),
    /// No prefix: every bit left in the message.
    Rest,
    /// No prefix: the decoder measures the run with this function, which reads a copy of
    /// the reader at the run's start (for fields kept as bits whose length follows from
    /// their content).
    Measured(fn(BitReader<'_>) -> Result<usize, BitsEnded>),
}

/// An unsigned field type of at most 32 bits.
pub trait Uint: Copy {
    /// The value from the bits read.
    fn from_u32(v: u32) -> Self;
    /// The value to write.
    fn to_u32(self) -> u32;
}

macro_rules! uint {
    ($($t:ty),*) => {$(
        impl Uint for $t {
            fn from_u32(v: u32) -> Self {
                v as $t
            }
            fn to_u32(self) -> u32 {
                self as u32
            }
        }
    )*};
}
uint!(u8, u16, u32);

/// Walks the fields of a message in wire order, reading or writing them.
pub trait Coder {
    /// Whether this coder fills fields from bits (`true`) or writes them (`false`).
    const READING: bool;

    /// The position in the message's bit stream, for errors.
    fn position(&self) -> usize;

    /// The bits left to read (`None` when writing), for layouts that run to the end of
    /// their message.
    fn remaining(&self) -> Option<usize>;

    /// An unsigned value of `bits` bits (at most 32, and at most the type's width).
    fn uint<T: Uint>(&mut self, v: &mut T, bits: u32) -> Result<(), NetError>;
    /// A two's-complement value of `bits` bits.
    fn int(&mut self, v: &mut i32, bits: u32) -> Result<(), NetError>;
    /// An unsigned value of up to 64 bits.
    fn u64(&mut self, v: &mut u64, bits: u32) -> Result<(), NetError>;
    /// One bit.
    fn bool(&mut self, v: &mut bool) -> Result<(), NetError>;
    /// A 32-bit float.
    fn f32(&mut self, v: &mut f32) -> Result<(), NetError>;
    /// A varint32.
    fn varint32(&mut self, v: &mut u32) -> Result<(), NetError>;
    /// A NUL-terminated string.
    fn string(&mut self, v: &mut NetStr) -> Result<(), NetError>;
    /// Whole bytes, as many as `v` holds.
    fn bytes(&mut self, v: &mut [u8]) -> Result<(), NetError>;
    /// A run of bits with its length stored as `length` says.
    fn bits(&mut self, v: &mut Bits, length: Length) -> Result<(), NetError>;

    /// A value present when a flag bit before it is set.
    fn opt<T: Default>(
        &mut self,
        v: &mut Option<T>,
        mut item: impl FnMut(&mut Self, &mut T) -> Result<(), NetError>,
    ) -> Result<(), NetError> {
        let mut present = v.is_some();
        self.bool(&mut present)?;
        if Self::READING {
            *v = present.then(T::default);
        }
        match v {
            Some(value) => item(self, value),
            None => Ok(()),
        }
    }

    /// A list of `count` items, the count stored elsewhere; an encoder refuses a list of
    /// another length.
    fn list<T: Default>(
        &mut self,
        v: &mut Vec<T>,
        count: usize,
        mut item: impl FnMut(&mut Self, &mut T) -> Result<(), NetError>,
    ) -> Result<(), NetError> {
        if Self::READING {
            v.clear();
            // Every item takes a bit or more: what is left bounds the reservation.
            v.reserve(count.min(self.remaining().unwrap_or(0)));
            for _ in 0..count {
                // Every item needs at least one bit, so a count larger than what is left is
                // refused by the first item that runs out: nothing grows past the input.
                let mut value = T::default();
                item(self, &mut value)?;
                v.push(value);
            }
            Ok(())
        } else if v.len() != count {
            Err(NetError::new(
                self.position(),
                NetErrorKind::Inconsistent {
                    what: "a list's length differs from its count field",
                },
            ))
        } else {
            v.iter_mut().try_for_each(|value| item(self, value))
        }
    }
}

/// Fills message fields from a bit stream.
#[derive(Debug)]
pub struct Decoder<'a> {
    reader: BitReader<'a>,
    skim: bool,
}

impl<'a> Decoder<'a> {
    /// A decoder over `reader`'s bits.
    pub fn new(reader: BitReader<'a>) -> Self {
        Decoder {
            reader,
            skim: false,
        }
    }

    /// A decoder that steps over strings and runs of bits without copying them (they
    /// decode empty), checking only that they are there: for the parts of a layout nobody
    /// reads, such as the entries of string tables a walk does not follow.
    pub fn skimming(reader: BitReader<'a>) -> Self {
        Decoder { reader, skim: true }
    }

    /// The reader, where decoding left it.
    pub fn reader(&self) -> &BitReader<'a> {
        &self.reader
    }

    /// The reader, to read what the messages' layouts do not describe.
    pub fn reader_mut(&mut self) -> &mut BitReader<'a> {
        &mut self.reader
    }
}

impl Decoder<'_> {
    /// A varint32 in its shortest form: the engine writes no other, and a longer one would
    /// not encode back to the same bits.
    fn read_varint32(&mut self) -> Result<u32, NetError> {
        let at = self.reader.position();
        let v = self.reader.read_varint32().map_err(ended)?;
        if !varint_is_canonical(v, self.reader.position() - at) {
            return Err(NetError::new(
                at,
                NetErrorKind::Invalid {
                    what: "a varint32 longer than its shortest form",
                },
            ));
        }
        Ok(v)
    }
}

fn ended(e: BitsEnded) -> NetError {
    NetError::new(e.at, NetErrorKind::Ended { wanted: e.wanted })
}

impl Coder for Decoder<'_> {
    const READING: bool = true;

    fn position(&self) -> usize {
        self.reader.position()
    }

    fn remaining(&self) -> Option<usize> {
        Some(self.reader.remaining())
    }

    fn uint<T: Uint>(&mut self, v: &mut T, bits: u32) -> Result<(), NetError> {
        *v = T::from_u32(self.reader.read(bits).map_err(ended)?);
        Ok(())
    }

    fn int(&mut self, v: &mut i32, bits: u32) -> Result<(), NetError> {
        *v = self.reader.read_signed(bits).map_err(ended)?;
        Ok(())
    }

    fn u64(&mut self, v: &mut u64, bits: u32) -> Result<(), NetError> {
        *v = self.reader.read_u64(bits).map_err(ended)?;
        Ok(())
    }

    fn bool(&mut self, v: &mut bool) -> Result<(), NetError> {
        *v = self.reader.read_bool().map_err(ended)?;
        Ok(())
    }

    fn f32(&mut self, v: &mut f32) -> Result<(), NetError> {
        *v = self.reader.read_f32().map_err(ended)?;
        Ok(())
    }

    fn varint32(&mut self, v: &mut u32) -> Result<(), NetError> {
        let at = self.reader.position();
        *v = self.reader.read_varint32().map_err(ended)?;
        if self.reader.position() - at > 8 && !varint_is_canonical(*v, self.reader.position() - at)
        {
            return Err(NetError::new(
                at,
                NetErrorKind::Invalid {
                    what: "an overlong varint32 (it would not encode back to the same bits)",
                },
            ));
        }
        Ok(())
    }

    fn string(&mut self, v: &mut NetStr) -> Result<(), NetError> {
        if self.skim {
            v.0.clear();
            return self.reader.skip_string().map_err(ended);
        }
        v.0 = self.reader.read_string().map_err(ended)?;
        Ok(())
    }

    fn bytes(&mut self, v: &mut [u8]) -> Result<(), NetError> {
        self.reader.read_bytes_into(v).map_err(ended)
    }

    fn bits(&mut self, v: &mut Bits, length: Length) -> Result<(), NetError> {
        let len = match length {
            Length::Bits(w) => self.reader.read(w).map_err(ended)? as usize,
            Length::VarBits => self.read_varint32()? as usize,
            Length::Bytes(w) => self.reader.read(w).map_err(ended)? as usize * 8,
            Length::VarBytes => self.read_varint32()? as usize * 8,
            Length::Given(n) => n,
            Length::Rest => self.reader.remaining(),
            Length::Measured(measure) => measure(self.reader).map_err(ended)?,
        };
        if self.skim {
            *v = Bits::default();
            return self.reader.skip(len).map_err(ended);
        }
        *v = self.reader.read_bits(len).map_err(ended)?;
        Ok(())
    }
}

/// Whether `len_bits` bits are the shortest varint32 of `v`.
fn varint_is_canonical(v: u32, len_bits: usize) -> bool {
    let shortest = (32 - v.leading_zeros()).max(1).div_ceil(7) as usize;
    len_bits == shortest * 8
}

/// Writes message fields into a bit stream.
#[derive(Debug, Default)]
pub struct Encoder {
    writer: BitWriter,
}

impl Encoder {
    /// An encoder writing into `writer`.
    pub fn new(writer: BitWriter) -> Self {
        Encoder { writer }
    }

    /// The bits written.
    pub fn into_writer(self) -> BitWriter {
        self.writer
    }

    /// The writer, to write what the messages' layouts do not describe.
    pub fn writer_mut(&mut self) -> &mut BitWriter {
        &mut self.writer
    }

    fn too_long(&self, len: usize, width: u32) -> NetError {
        NetError::new(
            self.writer.len(),
            NetErrorKind::TooLong {
                len,
                max: (1u64 << width) - 1,
            },
        )
    }

    fn fits(&self, value: u64, bits: u32) -> Result<(), NetError> {
        if bits < 64 && value >> bits != 0 {
            Err(self.too_long(value as usize, bits))
        } else {
            Ok(())
        }
    }
}

impl Coder for Encoder {
    const READING: bool = false;

    fn position(&self) -> usize {
        self.writer.len()
    }

    fn remaining(&self) -> Option<usize> {
        None
    }

    fn uint<T: Uint>(&mut self, v: &mut T, bits: u32) -> Result<(), NetError> {
        self.fits(u64::from(v.to_u32()), bits)?;
        self.writer.write(v.to_u32(), bits);
        Ok(())
    }

    fn int(&mut self, v: &mut i32, bits: u32) -> Result<(), NetError> {
        let shift = 32 - bits;
        if (*v << shift) >> shift != *v {
            return Err(self.too_long(v.unsigned_abs() as usize, bits - 1));
        }
        self.writer.write_signed(*v, bits);
        Ok(())
    }

    fn u64(&mut self, v: &mut u64, bits: u32) -> Result<(), NetError> {
        self.fits(*v, bits)?;
        self.writer.write_u64(*v, bits);
        Ok(())
    }

    fn bool(&mut self, v: &mut bool) -> Result<(), NetError> {
        self.writer.write_bool(*v);
        Ok(())
    }

    fn f32(&mut self, v: &mut f32) -> Result<(), NetError> {
        self.writer.write_f32(*v);
        Ok(())
    }

    fn varint32(&mut self, v: &mut u32) -> Result<(), NetError> {
        self.writer.write_varint32(*v);
        Ok(())
    }

    fn string(&mut self, v: &mut NetStr) -> Result<(), NetError> {
        if v.0.contains(&0) {
            return Err(NetError::new(
                self.writer.len(),
                NetErrorKind::Inconsistent {
                    what: "a string holds a NUL byte",
                },
            ));
        }
        self.writer.write_string(&v.0);
        Ok(())
    }

    fn bytes(&mut self, v: &mut [u8]) -> Result<(), NetError> {
        self.writer.write_bytes(v);
        Ok(())
    }

    fn bits(&mut self, v: &mut Bits, length: Length) -> Result<(), NetError> {
        let whole_bytes = || {
            if v.len().is_multiple_of(8) {
                Ok(v.len() / 8)
            } else {
                Err(NetErrorKind::Inconsistent {
                    what: "a length in bytes for bits that are not whole bytes",
                })
            }
        };
        match length {
            Length::Bits(w) => {
                self.fits(v.len() as u64, w)?;
                self.writer.write(v.len() as u32, w);
            }
            Length::VarBits => self
                .writer
                .write_varint32(u32::try_from(v.len()).map_err(|_| self.too_long(v.len(), 32))?),
            Length::Bytes(w) => {
                let n = whole_bytes().map_err(|k| NetError::new(self.writer.len(), k))?;
                self.fits(n as u64, w)?;
                self.writer.write(n as u32, w);
            }
            Length::VarBytes => {
                let n = whole_bytes().map_err(|k| NetError::new(self.writer.len(), k))?;
                self.writer
                    .write_varint32(u32::try_from(n).map_err(|_| self.too_long(n, 32))?);
            }
            Length::Given(n) if n != v.len() => {
                return Err(NetError::new(
                    self.writer.len(),
                    NetErrorKind::Inconsistent {
                        what: "a run of bits differs from the length an earlier field gives",
                    },
                ));
            }
            Length::Given(_) | Length::Rest | Length::Measured(_) => {}
        }
        self.writer.write_bits(v);
        Ok(())
    }
}
