//! Prop values: how each type and flag sends a value, read from bits and written back.
//!
//! A float's flags are tested in the engine's order and the first one set decides (a prop
//! often carries several: TF2's non-local `m_vecOrigin[2]` has both `COORD_MP_LOWPRECISION`
//! and `NOSCALE`, and the coordinate wins). Rounding flags need no work here: the server
//! has already folded them into the low and high ends it sends. Widths come from the
//! data tables, never from here; a width no engine writes (an int of 40 bits) is an error,
//! not a panic.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::class::PropDef;
use super::error::{EntityError, EntityErrorKind};
use super::table::{PropFlags, PropKind};
use crate::codec::bits::{BitReader, BitWriter};
use std::sync::Arc;

/// Bits of a string prop's length (`DT_MAX_STRING_BITS`, the same in every branch).
pub const STRING_LENGTH_BITS: u32 = 9;
/// Integer bits of a world coordinate (`COORD_INTEGER_BITS`).
pub const COORD_INTEGER_BITS: u32 = 14;
/// Fraction bits of a world coordinate (`COORD_FRACTIONAL_BITS`).
pub const COORD_FRACTIONAL_BITS: u32 = 5;
/// Integer bits of an in-bounds multiplayer coordinate (`COORD_INTEGER_BITS_MP`).
pub const COORD_INTEGER_BITS_MP: u32 = 11;
/// Fraction bits of a low-precision coordinate.
pub const COORD_FRACTIONAL_BITS_LOWPRECISION: u32 = 3;
/// Fraction bits of a normal (`NORMAL_FRACTIONAL_BITS`).
pub const NORMAL_FRACTIONAL_BITS: u32 = 11;

/// A prop's value. Serialized as the plain value: a number, a list of numbers, a string
/// or a list of values.
///
/// Strings and arrays are shared, not copied, when an entity starts from a baseline: a
/// baseline of long strings entered by two thousand entities would otherwise take
/// gigabytes. The most an [`EntityState`](super::EntityState) holds is then bounded by
/// its 2048 entities of at most 4096 props.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum Value {
    /// An `Int` (unsigned ones of 32 bits keep their bits).
    Int(i32),
    /// An `Int64`.
    Int64(i64),
    /// A `Float`.
    Float(f32),
    /// A `Vector`.
    Vector([f32; 3]),
    /// A `VectorXY`.
    VectorXY([f32; 2]),
    /// A `String`'s bytes (serialized as text, invalid UTF-8 replaced).
    String(#[cfg_attr(feature = "serde", serde(serialize_with = "text"))] Arc<[u8]>),
    /// An `Array`'s elements.
    Array(#[cfg_attr(feature = "serde", serde(serialize_with = "values"))] Arc<[Value]>),
}

#[cfg(feature = "serde")]
fn text<S: serde::Serializer>(v: &Arc<[u8]>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(v))
}

#[cfg(feature = "serde")]
fn values<S: serde::Serializer>(v: &Arc<[Value]>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter())
}

impl Value {
    /// The value as an integer, if it is one.
    pub fn as_int(&self) -> Option<i64> {
        match *self {
            Value::Int(v) => Some(i64::from(v)),
            Value::Int64(v) => Some(v),
            _ => None,
        }
    }

    /// The value as a float, if it is one.
    pub fn as_float(&self) -> Option<f32> {
        match *self {
            Value::Float(v) => Some(v),
            _ => None,
        }
    }
}

fn invalid(at: usize, what: &'static str) -> EntityError {
    EntityError::new(at, EntityErrorKind::Invalid { what })
}

/// Checks a width the data tables gave against what a field can hold.
fn width(r: &BitReader<'_>, bits: u32, min: u32, max: u32) -> Result<u32, EntityError> {
    if (min..=max).contains(&bits) {
        Ok(bits)
    } else {
        Err(invalid(r.position(), "a prop width no engine sends"))
    }
}

/// Reads one value of prop `def`.
pub fn decode(r: &mut BitReader<'_>, def: &PropDef) -> Result<Value, EntityError> {
    Ok(match def.kind {
        PropKind::Int => Value::Int(decode_int(r, def)?),
        PropKind::Int64 => Value::Int64(decode_int64(r, def)?),
        PropKind::Float => Value::Float(decode_float(r, def)?),
        PropKind::Vector => {
            let x = decode_float(r, def)?;
            let y = decode_float(r, def)?;
            let z = if def.flags.has(PropFlags::NORMAL) {
                // A unit vector sends only the sign of its third component.
                let negative = r.read_bool()?;
                let square = x * x + y * y;
                let z = if square < 1.0 {
                    (1.0 - square).sqrt()
                } else {
                    0.0
                };
                if negative { -z } else { z }
            } else {
                decode_float(r, def)?
            };
            Value::Vector([x, y, z])
        }
        PropKind::VectorXY => Value::VectorXY([decode_float(r, def)?, decode_float(r, def)?]),
        PropKind::String => {
            let len = r.read(STRING_LENGTH_BITS)? as usize;
            Value::String(r.read_bytes(len)?.into())
        }
        PropKind::Array => {
            let element = def
                .element
                .as_deref()
                .filter(|e| e.kind != PropKind::Array)
                .ok_or_else(|| invalid(r.position(), "an array of arrays"))?;
            // At most 1023 elements (a 10-bit count in the tables): the count's width
            // bounds the list.
            let count = r.read(array_count_bits(def.elements))? as usize;
            let mut items = Vec::with_capacity(count.min(r.remaining()));
            for _ in 0..count {
                // An element of no bits (a zero-width int) would let a few bits make a
                // thousand values.
                let at = r.position();
                items.push(decode(r, element)?);
                if r.position() == at {
                    return Err(invalid(at, "an array element of no bits"));
                }
            }
            Value::Array(items.into())
        }
        PropKind::DataTable | PropKind::Unknown(_) => {
            return Err(invalid(r.position(), "a prop type with no value"));
        }
    })
}

/// Bits of an array's element count: `Q_log2(elements) + 1`.
pub fn array_count_bits(elements: u32) -> u32 {
    crate::source::net::message::log2(elements) + 1
}

/// Reads an `Int`.
pub fn decode_int(r: &mut BitReader<'_>, def: &PropDef) -> Result<i32, EntityError> {
    if def.varint {
        let v = r.read_varint32()?;
        return Ok(if def.flags.has(PropFlags::UNSIGNED) {
            v as i32
        } else {
            zigzag_decode(v)
        });
    }
    if def.flags.has(PropFlags::UNSIGNED) {
        let bits = width(r, def.bits, 0, 32)?;
        Ok(r.read(bits)? as i32)
    } else {
        let bits = width(r, def.bits, 1, 32)?;
        Ok(r.read_signed(bits)?)
    }
}

/// Reads an `Int64`.
pub fn decode_int64(r: &mut BitReader<'_>, def: &PropDef) -> Result<i64, EntityError> {
    if def.varint {
        let v = read_varint64(r)?;
        return Ok(if def.flags.has(PropFlags::UNSIGNED) {
            v as i64
        } else {
            (v >> 1) as i64 ^ -((v & 1) as i64)
        });
    }
    if def.flags.has(PropFlags::UNSIGNED) {
        let high = width(r, def.bits, 32, 64)? - 32;
        let low = u64::from(r.read(32)?);
        Ok((low | r.read_u64(high)? << 32) as i64)
    } else {
        // A sign bit, then the magnitude's low 32 bits and the rest.
        let high = width(r, def.bits, 33, 64)? - 33;
        let negative = r.read_bool()?;
        let low = u64::from(r.read(32)?);
        let magnitude = (low | r.read_u64(high)? << 32) as i64;
        Ok(if negative {
            magnitude.wrapping_neg()
        } else {
            magnitude
        })
    }
}

fn read_varint64(r: &mut BitReader<'_>) -> Result<u64, EntityError> {
    let mut value = 0u64;
    for i in 0..10 {
        let byte = r.read(8)?;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            break;
        }
    }
    Ok(value)
}

/// The signed value of a zigzag-coded varint.
pub fn zigzag_decode(v: u32) -> i32 {
    (v >> 1) as i32 ^ -((v & 1) as i32)
}

/// The zigzag code of a signed value.
pub fn zigzag_encode(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

/// How a float prop is sent, from its flags in the engine's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatCoding {
    /// `ReadBitCoord`.
    Coord,
    /// `ReadBitCoordMP`, full precision.
    CoordMp,
    /// `ReadBitCoordMP`, 3 fraction bits.
    CoordMpLow,
    /// `ReadBitCoordMP`, no fraction.
    CoordMpIntegral,
    /// The float's 32 bits.
    NoScale,
    /// `ReadBitNormal`.
    Normal,
    /// `ReadBitCellCoord`, full precision.
    Cell,
    /// `ReadBitCellCoord`, 3 fraction bits.
    CellLow,
    /// `ReadBitCellCoord`, no fraction.
    CellIntegral,
    /// An unsigned value of the prop's bits scaled into low..high.
    Quantized,
}

impl FloatCoding {
    /// The coding of a float with `flags`.
    pub fn of(flags: PropFlags) -> Self {
        const ORDER: [(u32, FloatCoding); 9] = [
            (PropFlags::COORD, FloatCoding::Coord),
            (PropFlags::COORD_MP, FloatCoding::CoordMp),
            (PropFlags::COORD_MP_LOWPRECISION, FloatCoding::CoordMpLow),
            (PropFlags::COORD_MP_INTEGRAL, FloatCoding::CoordMpIntegral),
            (PropFlags::NOSCALE, FloatCoding::NoScale),
            (PropFlags::NORMAL, FloatCoding::Normal),
            (PropFlags::CELL_COORD, FloatCoding::Cell),
            (PropFlags::CELL_COORD_LOWPRECISION, FloatCoding::CellLow),
            (PropFlags::CELL_COORD_INTEGRAL, FloatCoding::CellIntegral),
        ];
        ORDER
            .iter()
            .find(|(flag, _)| flags.has(*flag))
            .map_or(FloatCoding::Quantized, |&(_, c)| c)
    }
}

/// Reads a `Float` (or one component of a vector).
pub fn decode_float(r: &mut BitReader<'_>, def: &PropDef) -> Result<f32, EntityError> {
    let signed = |negative: bool, v: f32| if negative { -v } else { v };
    Ok(match FloatCoding::of(def.flags) {
        FloatCoding::Coord => {
            let has_int = r.read_bool()?;
            let has_frac = r.read_bool()?;
            if !has_int && !has_frac {
                return Ok(0.0);
            }
            let negative = r.read_bool()?;
            let int = if has_int {
                r.read(COORD_INTEGER_BITS)? + 1
            } else {
                0
            };
            let frac = if has_frac {
                r.read(COORD_FRACTIONAL_BITS)?
            } else {
                0
            };
            signed(negative, int as f32 + frac as f32 / 32.0)
        }
        coding @ (FloatCoding::CoordMp | FloatCoding::CoordMpLow) => {
            let in_bounds = r.read_bool()?;
            let has_int = r.read_bool()?;
            let negative = r.read_bool()?;
            let int = if has_int {
                r.read(mp_int_bits(in_bounds))? + 1
            } else {
                0
            };
            let frac_bits = if coding == FloatCoding::CoordMpLow {
                COORD_FRACTIONAL_BITS_LOWPRECISION
            } else {
                COORD_FRACTIONAL_BITS
            };
            let frac = r.read(frac_bits)?;
            signed(
                negative,
                int as f32 + frac as f32 / (1u32 << frac_bits) as f32,
            )
        }
        FloatCoding::CoordMpIntegral => {
            let in_bounds = r.read_bool()?;
            if !r.read_bool()? {
                return Ok(0.0);
            }
            let negative = r.read_bool()?;
            signed(negative, (r.read(mp_int_bits(in_bounds))? + 1) as f32)
        }
        FloatCoding::NoScale => r.read_f32()?,
        FloatCoding::Normal => {
            let negative = r.read_bool()?;
            let frac = r.read(NORMAL_FRACTIONAL_BITS)?;
            signed(negative, frac as f32 / NORMAL_DENOMINATOR)
        }
        coding @ (FloatCoding::Cell | FloatCoding::CellLow | FloatCoding::CellIntegral) => {
            // An offset inside a cell: never negative, so no sign bit.
            let int = r.read(width(r, def.bits, 0, 32)?)?;
            match coding {
                FloatCoding::CellIntegral => int as f32,
                FloatCoding::CellLow => {
                    int as f32 + r.read(COORD_FRACTIONAL_BITS_LOWPRECISION)? as f32 / 8.0
                }
                _ => int as f32 + r.read(COORD_FRACTIONAL_BITS)? as f32 / 32.0,
            }
        }
        FloatCoding::Quantized => {
            let bits = width(r, def.bits, 0, 32)?;
            let raw = r.read(bits)?;
            quantized(def, raw, bits)
        }
    })
}

/// `NORMAL_DENOMINATOR`: the largest 11-bit value.
const NORMAL_DENOMINATOR: f32 = ((1 << NORMAL_FRACTIONAL_BITS) - 1) as f32;

fn mp_int_bits(in_bounds: bool) -> u32 {
    if in_bounds {
        COORD_INTEGER_BITS_MP
    } else {
        COORD_INTEGER_BITS
    }
}

/// A quantized float's value as the engine computes it, in single precision.
fn quantized(def: &PropDef, raw: u32, bits: u32) -> f32 {
    let steps = ((1u64 << bits) - 1) as f32;
    def.low + (def.high - def.low) * (raw as f32 / steps)
}

fn too_big(w: &BitWriter) -> EntityError {
    invalid(w.len(), "a value its prop cannot send")
}

/// Writes one value of prop `def`, as the engine would; the inverse of [`decode`] for
/// the bits the engine writes.
pub fn encode(w: &mut BitWriter, def: &PropDef, value: &Value) -> Result<(), EntityError> {
    match (def.kind, value) {
        (PropKind::Int, &Value::Int(v)) => encode_int(w, def, v),
        (PropKind::Int64, &Value::Int64(v)) => encode_int64(w, def, v),
        (PropKind::Float, &Value::Float(v)) => encode_float(w, def, v),
        (PropKind::Vector, Value::Vector([x, y, z])) => {
            encode_float(w, def, *x)?;
            encode_float(w, def, *y)?;
            if def.flags.has(PropFlags::NORMAL) {
                w.write_bool(z.is_sign_negative());
                Ok(())
            } else {
                encode_float(w, def, *z)
            }
        }
        (PropKind::VectorXY, Value::VectorXY([x, y])) => {
            encode_float(w, def, *x)?;
            encode_float(w, def, *y)
        }
        (PropKind::String, Value::String(s)) => {
            if s.len() >= 1 << STRING_LENGTH_BITS {
                return Err(too_big(w));
            }
            w.write(s.len() as u32, STRING_LENGTH_BITS);
            w.write_bytes(s);
            Ok(())
        }
        (PropKind::Array, Value::Array(items)) => {
            let element = def.element.as_deref().ok_or_else(|| too_big(w))?;
            let bits = array_count_bits(def.elements);
            if items.len() >> bits != 0 {
                return Err(too_big(w));
            }
            w.write(items.len() as u32, bits);
            items.iter().try_for_each(|v| encode(w, element, v))
        }
        _ => Err(invalid(w.len(), "a value of another type than its prop")),
    }
}

/// Writes an `Int`.
pub fn encode_int(w: &mut BitWriter, def: &PropDef, v: i32) -> Result<(), EntityError> {
    if def.varint {
        let raw = if def.flags.has(PropFlags::UNSIGNED) {
            v as u32
        } else {
            zigzag_encode(v)
        };
        w.write_varint32(raw);
        return Ok(());
    }
    let bits = def.bits;
    if bits > 32 || (bits == 0 && !def.flags.has(PropFlags::UNSIGNED)) {
        return Err(too_big(w));
    }
    let fits = if def.flags.has(PropFlags::UNSIGNED) {
        bits == 32 || (v as u32) >> bits == 0
    } else {
        let shift = 32 - bits;
        (v << shift) >> shift == v
    };
    if !fits {
        return Err(too_big(w));
    }
    w.write(v as u32, bits);
    Ok(())
}

/// Writes an `Int64`.
pub fn encode_int64(w: &mut BitWriter, def: &PropDef, v: i64) -> Result<(), EntityError> {
    if def.varint {
        let mut raw = if def.flags.has(PropFlags::UNSIGNED) {
            v as u64
        } else {
            ((v << 1) ^ (v >> 63)) as u64
        };
        while raw >= 0x80 {
            w.write((raw as u32 & 0x7f) | 0x80, 8);
            raw >>= 7;
        }
        w.write(raw as u32, 8);
        return Ok(());
    }
    let (negative, magnitude, high) = if def.flags.has(PropFlags::UNSIGNED) {
        if !(32..=64).contains(&def.bits) {
            return Err(too_big(w));
        }
        (None, v as u64, def.bits - 32)
    } else {
        if !(33..=64).contains(&def.bits) {
            return Err(too_big(w));
        }
        (Some(v < 0), v.unsigned_abs(), def.bits - 33)
    };
    if high < 32 && magnitude >> 32 >> high != 0 {
        return Err(too_big(w));
    }
    if let Some(negative) = negative {
        w.write_bool(negative);
    }
    w.write(magnitude as u32, 32);
    w.write_u64(magnitude >> 32, high);
    Ok(())
}

/// Writes a `Float` (or one component of a vector).
pub fn encode_float(w: &mut BitWriter, def: &PropDef, v: f32) -> Result<(), EntityError> {
    let negative = v.is_sign_negative();
    let a = v.abs();
    match FloatCoding::of(def.flags) {
        FloatCoding::Coord => {
            let (int, frac) = split(a, COORD_FRACTIONAL_BITS);
            if int > 1 << COORD_INTEGER_BITS {
                return Err(too_big(w));
            }
            w.write_bool(int != 0);
            w.write_bool(frac != 0);
            if int != 0 || frac != 0 {
                w.write_bool(negative);
                if int != 0 {
                    w.write(int - 1, COORD_INTEGER_BITS);
                }
                if frac != 0 {
                    w.write(frac, COORD_FRACTIONAL_BITS);
                }
            }
        }
        coding @ (FloatCoding::CoordMp | FloatCoding::CoordMpLow) => {
            let frac_bits = if coding == FloatCoding::CoordMpLow {
                COORD_FRACTIONAL_BITS_LOWPRECISION
            } else {
                COORD_FRACTIONAL_BITS
            };
            let (int, frac) = split(a, frac_bits);
            if int > 1 << COORD_INTEGER_BITS {
                return Err(too_big(w));
            }
            let in_bounds = int <= 1 << COORD_INTEGER_BITS_MP;
            w.write_bool(in_bounds);
            w.write_bool(int != 0);
            w.write_bool(negative);
            if int != 0 {
                w.write(int - 1, mp_int_bits(in_bounds));
            }
            w.write(frac, frac_bits);
        }
        FloatCoding::CoordMpIntegral => {
            let int = a as u32;
            if int as f32 != a || int > 1 << COORD_INTEGER_BITS {
                return Err(too_big(w));
            }
            let in_bounds = int <= 1 << COORD_INTEGER_BITS_MP;
            w.write_bool(in_bounds);
            w.write_bool(int != 0);
            if int != 0 {
                w.write_bool(negative);
                w.write(int - 1, mp_int_bits(in_bounds));
            }
        }
        FloatCoding::NoScale => w.write_f32(v),
        FloatCoding::Normal => {
            let frac = (a * NORMAL_DENOMINATOR).round();
            if frac > NORMAL_DENOMINATOR {
                return Err(too_big(w));
            }
            w.write_bool(negative);
            w.write(frac as u32, NORMAL_FRACTIONAL_BITS);
        }
        coding @ (FloatCoding::Cell | FloatCoding::CellLow | FloatCoding::CellIntegral) => {
            let frac_bits = match coding {
                FloatCoding::CellIntegral => 0,
                FloatCoding::CellLow => COORD_FRACTIONAL_BITS_LOWPRECISION,
                _ => COORD_FRACTIONAL_BITS,
            };
            let (int, frac) = split(a, frac_bits);
            if negative && v != 0.0 || def.bits > 32 || (def.bits < 32 && int >> def.bits != 0) {
                return Err(too_big(w));
            }
            w.write(int, def.bits);
            w.write(frac, frac_bits);
        }
        FloatCoding::Quantized => {
            let bits = def.bits;
            if bits > 32 {
                return Err(too_big(w));
            }
            // The nearest step, then its neighbours: single-precision rounding may put
            // the value on the step next to the one the arithmetic suggests.
            let steps = ((1u64 << bits) - 1) as f64;
            let span = f64::from(def.high) - f64::from(def.low);
            let guess = ((f64::from(v) - f64::from(def.low)) / span * steps).round();
            let guess = if guess.is_finite() {
                guess.clamp(0.0, steps) as u64
            } else {
                0
            };
            let raw = [
                guess,
                guess.saturating_sub(1),
                (guess + 1).min(steps as u64),
            ]
            .into_iter()
            .find(|&raw| quantized(def, raw as u32, bits).to_bits() == v.to_bits())
            .ok_or_else(|| too_big(w))?;
            w.write(raw as u32, bits);
        }
    }
    Ok(())
}

/// The integer part and the fraction in `frac_bits` bits of a non-negative value.
fn split(a: f32, frac_bits: u32) -> (u32, u32) {
    let scaled = (f64::from(a) * f64::from(1u32 << frac_bits)).round();
    let scaled = if scaled.is_finite() {
        scaled.min(f64::from(u32::MAX)) as u64
    } else {
        u64::from(u32::MAX)
    };
    (
        (scaled >> frac_bits) as u32,
        (scaled & ((1 << frac_bits) - 1)) as u32,
    )
}
