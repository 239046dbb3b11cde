//! The bit reader's and writer's whole-byte paths (strings, owned runs of bits, copies
//! into a writer) at every bit offset agree with a bit-by-bit reading of the same
//! stream. Case counts follow PROPTEST_CASES; failures persist under
//! proptest-regressions/.

use demokit::codec::bits::{BitReader, BitWriter};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/source_bits_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// Bit `i` of `data` (the stream's order: bit `i % 8` of byte `i / 8`).
fn bit(data: &[u8], i: usize) -> u8 {
    (data[i / 8] >> (i % 8)) & 1
}

/// `len` bytes from bit `at` on, one bit at a time.
fn bytes_at(data: &[u8], at: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|b| (0..8).fold(0u8, |v, k| v | bit(data, at + b * 8 + k) << k))
        .collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn strings_read_as_bit_by_bit(data in proptest::collection::vec(prop_oneof![3 => 1u8..=255, 1 => Just(0u8)], 0..64), skip in 0usize..16, cut in 0usize..16) {
        let total = (data.len() * 8).saturating_sub(cut);
        prop_assume!(skip <= total);
        let mut reader = BitReader::with_len(&data, total);
        reader.skip(skip).unwrap();
        let mut skipper = reader;
        let skipped = skipper.skip_string();
        let whole = (total - skip) / 8;
        let bytes = bytes_at(&data, skip, whole);
        match bytes.iter().position(|&b| b == 0) {
            Some(n) => {
                prop_assert_eq!(reader.read_string().unwrap(), bytes[..n].to_vec());
                prop_assert_eq!(reader.position(), skip + (n + 1) * 8);
                prop_assert!(skipped.is_ok());
                prop_assert_eq!(skipper.position(), reader.position());
            }
            None => {
                let e = reader.read_string().unwrap_err();
                prop_assert_eq!(e.at, skip);
                prop_assert_eq!(reader.position(), skip);
                prop_assert_eq!(skipped.unwrap_err(), e);
            }
        }
    }

    #[test]
    fn runs_of_bits_copy_as_bit_by_bit(data in proptest::collection::vec(any::<u8>(), 1..64), skip in 0usize..24, len in 0usize..400, lead in 0u32..8) {
        let total = data.len() * 8;
        let skip = skip % (total + 1);
        let len = len % (total - skip + 1);
        let mut reader = BitReader::new(&data);
        reader.skip(skip).unwrap();
        let run = reader.read_bits(len).unwrap();
        prop_assert_eq!(reader.position(), skip + len);
        prop_assert_eq!(run.len(), len);
        let mut back = run.reader();
        for i in 0..len {
            prop_assert_eq!(back.read(1).unwrap() as u8, bit(&data, skip + i));
        }
        // Copied into a writer at any offset, the same bits follow what was there.
        let mut writer = BitWriter::with_capacity(0);
        writer.write(0b101, lead);
        let mut from = BitReader::new(&data);
        from.skip(skip).unwrap();
        writer.write_reader(from.sub(len).unwrap());
        let written = writer.finish();
        prop_assert_eq!(written.len(), lead as usize + len);
        let mut check = written.reader();
        check.skip(lead as usize).unwrap();
        for i in 0..len {
            prop_assert_eq!(check.read(1).unwrap() as u8, bit(&data, skip + i));
        }
        // Padding past the last bit is zero, so equal runs compare equal as bytes.
        for bits in [&run, &written] {
            let bytes = bits.as_bytes();
            prop_assert_eq!(bytes.len(), bits.len().div_ceil(8));
            if bits.len() % 8 != 0 {
                prop_assert_eq!(bytes[bytes.len() - 1] >> (bits.len() % 8), 0);
            }
        }
    }
}
