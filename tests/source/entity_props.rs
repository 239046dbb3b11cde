//! Property tests of the entity prop codings: for every decoder with a natural encoder,
//! bits the engine writes decode to a value that encodes back to the same bits, and
//! values encode to bits that decode back to them. Case counts follow PROPTEST_CASES
//! (default 256); failures persist under proptest-regressions/.

use demokit::codec::bits::{BitReader, BitWriter};
use demokit::source::entity::prop::{self, FloatCoding};
use demokit::source::entity::{PropDef, PropFlags, PropKind, Value};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/source_entity_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

fn def(kind: PropKind, flags: u32, bits: u32) -> PropDef {
    PropDef {
        kind,
        flags: PropFlags(flags),
        varint: false,
        low: 0.0,
        high: 1.0,
        bits,
        elements: 0,
        element: None,
    }
}

/// Decodes a value from `bytes` at bit `skew`, encodes it, and checks the encoder wrote
/// exactly the bits the decoder read.
fn bits_value_bits(d: &PropDef, bytes: &[u8], skew: u32) -> Result<Option<Value>, TestCaseError> {
    let mut r = BitReader::new(bytes);
    if r.read(skew).is_err() {
        return Ok(None);
    }
    let start = r.position();
    let Ok(value) = prop::decode(&mut r, d) else {
        return Ok(None);
    };
    let read = r.position() - start;
    let mut w = BitWriter::new();
    prop::encode(&mut w, d, &value).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let written = w.finish();
    prop_assert_eq!(written.len(), read, "{:?} {:?}", d, value);
    let mut original = BitReader::new(bytes);
    original.read(skew).unwrap();
    let original = original.read_bits(read).unwrap();
    prop_assert_eq!(written, original, "{:?} {:?}", d, value);
    Ok(Some(value))
}

/// Encodes a value, decodes it back and encodes again: the value and the bits stay.
fn value_bits_value(d: &PropDef, value: &Value) -> Result<(), TestCaseError> {
    let mut w = BitWriter::new();
    if prop::encode(&mut w, d, value).is_err() {
        return Ok(());
    }
    let bits = w.finish();
    let mut r = bits.reader();
    let back = prop::decode(&mut r, d).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(r.remaining(), 0);
    prop_assert_eq!(&back, value, "{:?}", d);
    let mut again = BitWriter::new();
    prop::encode(&mut again, d, &back).unwrap();
    prop_assert_eq!(again.finish(), bits);
    Ok(())
}

const COORDS: [u32; 4] = [
    PropFlags::COORD,
    PropFlags::COORD_MP,
    PropFlags::COORD_MP_LOWPRECISION,
    PropFlags::COORD_MP_INTEGRAL,
];
const CELLS: [u32; 3] = [
    PropFlags::CELL_COORD,
    PropFlags::CELL_COORD_LOWPRECISION,
    PropFlags::CELL_COORD_INTEGRAL,
];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn ints_of_every_width_and_sign(
        bytes in proptest::collection::vec(any::<u8>(), 9),
        skew in 0u32..8,
        bits in 1u32..=32,
        unsigned: bool,
    ) {
        let flags = if unsigned { PropFlags::UNSIGNED } else { 0 };
        bits_value_bits(&def(PropKind::Int, flags, bits), &bytes, skew)?;
    }

    #[test]
    fn varint_ints(value: i32, unsigned: bool) {
        let mut d = def(PropKind::Int, if unsigned { PropFlags::UNSIGNED } else { 0 }, 32);
        d.varint = true;
        value_bits_value(&d, &Value::Int(value))?;
    }

    #[test]
    fn int64s(
        bytes in proptest::collection::vec(any::<u8>(), 10),
        skew in 0u32..8,
        bits in 33u32..=64,
        unsigned: bool,
        value: i64,
    ) {
        let flags = if unsigned { PropFlags::UNSIGNED } else { 0 };
        let d = def(PropKind::Int64, flags, bits);
        // A sign bit with a magnitude of zero is the one form the engine never writes.
        if let Some(Value::Int64(0)) = bits_value_bits_lenient(&d, &bytes, skew) {
        } else {
            bits_value_bits(&d, &bytes, skew)?;
        }
        let mut v = d.clone();
        v.varint = true;
        value_bits_value(&v, &Value::Int64(value))?;
    }

    #[test]
    fn no_scale_normal_and_cell_floats_keep_their_bits(
        bytes in proptest::collection::vec(any::<u8>(), 9),
        skew in 0u32..8,
        which in 0usize..5,
        // Up to 18 integer bits and 5 of fraction fit a float's 24-bit mantissa: wider
        // cells (no game sends them) would round two offsets to one value.
        bits in 0u32..=18,
    ) {
        let flags = [PropFlags::NOSCALE, PropFlags::NORMAL, CELLS[0], CELLS[1], CELLS[2]][which];
        let d = def(PropKind::Float, flags, bits);
        prop_assert!(FloatCoding::of(d.flags) != FloatCoding::Quantized);
        if let Some(Value::Float(v)) = bits_value_bits(&d, &bytes, skew)? {
            prop_assert!(which == 0 || v.is_finite());
        }
    }

    #[test]
    fn quantized_floats_keep_their_bits(
        bytes in proptest::collection::vec(any::<u8>(), 8),
        skew in 0u32..8,
        bits in 1u32..=20,
        low in -10000.0f32..0.0,
        high in 1.0f32..10000.0,
    ) {
        let mut d = def(PropKind::Float, 0, bits);
        d.low = low;
        d.high = high;
        if let Some(Value::Float(v)) = bits_value_bits(&d, &bytes, skew)? {
            // Single precision may land a hair past either end, as it does in the engine.
            let slack = (high - low) * 1e-6;
            prop_assert!(v >= low - slack && v <= high + slack, "{} not in {}..{}", v, low, high);
        }
    }

    #[test]
    fn coordinates_keep_their_values(
        which in 0usize..4,
        int in 0u32..16384,
        frac in 0u32..32,
        negative: bool,
    ) {
        let flags = COORDS[which];
        let frac_bits = match flags {
            PropFlags::COORD_MP_INTEGRAL => 0,
            PropFlags::COORD_MP_LOWPRECISION => 3,
            _ => 5,
        };
        let magnitude = int as f32 + (frac % (1 << frac_bits)) as f32 / (1 << frac_bits) as f32;
        let v = if negative { -magnitude } else { magnitude };
        if v != 0.0 {
            value_bits_value(&def(PropKind::Float, flags, 0), &Value::Float(v))?;
        }
    }

    #[test]
    fn decoded_coordinates_encode_to_the_same_value(
        bytes in proptest::collection::vec(any::<u8>(), 8),
        skew in 0u32..8,
        which in 0usize..4,
    ) {
        let d = def(PropKind::Float, COORDS[which], 0);
        let mut r = BitReader::new(&bytes);
        r.read(skew).unwrap();
        if let Ok(Value::Float(v)) = prop::decode(&mut r, &d) {
            let mut w = BitWriter::new();
            prop::encode(&mut w, &d, &Value::Float(v)).unwrap();
            let bits = w.finish();
            let back = prop::decode(&mut bits.reader(), &d).unwrap();
            prop_assert_eq!(back, Value::Float(v));
        }
    }

    #[test]
    fn vectors_and_strings(
        x in -4000i32..4000,
        y in -4000i32..4000,
        z in -4000i32..4000,
        text in proptest::collection::vec(any::<u8>(), 0..511),
        bytes in proptest::collection::vec(any::<u8>(), 0..80),
        skew in 0u32..8,
    ) {
        let coord = |v: i32| v as f32 / 8.0;
        for flags in [PropFlags::COORD, PropFlags::COORD_MP, PropFlags::NOSCALE] {
            let v = [coord(x), coord(y), coord(z)];
            if v.iter().all(|c| *c != 0.0) {
                value_bits_value(&def(PropKind::Vector, flags, 0), &Value::Vector(v))?;
                value_bits_value(&def(PropKind::VectorXY, flags, 0), &Value::VectorXY([v[0], v[1]]))?;
            }
        }
        value_bits_value(&def(PropKind::String, 0, 0), &Value::String(text.into()))?;
        bits_value_bits(&def(PropKind::String, 0, 0), &bytes, skew)?;
    }

    #[test]
    fn arrays_of_ints(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        skew in 0u32..8,
        elements in 1u32..64,
        bits in 1u32..=12,
    ) {
        let mut d = def(PropKind::Array, 0, 0);
        d.elements = elements;
        d.element = Some(Box::new(def(PropKind::Int, PropFlags::UNSIGNED, bits)));
        bits_value_bits(&d, &bytes, skew)?;
    }
}

/// The value at `skew`, if it decodes.
fn bits_value_bits_lenient(d: &PropDef, bytes: &[u8], skew: u32) -> Option<Value> {
    let mut r = BitReader::new(bytes);
    r.read(skew).ok()?;
    prop::decode(&mut r, d).ok()
}
