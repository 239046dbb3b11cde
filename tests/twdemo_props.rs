//! Property tests of the demo container, using the public strategies of the `proptest`
//! feature. Case counts follow PROPTEST_CASES; failures persist under proptest-regressions/.

use demokit::twdemo::strategies;
use demokit::twdemo::{Demo, DemoReader, DemoSlice, RawChunkHeader, SizeForm};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::io::Cursor;

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/twdemo_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Arbitrary header and chunk sequence -> bytes -> the same structure -> the same bytes.
    #[test]
    fn whole_demo_round_trip(demo in strategies::demo(40, 300)) {
        let bytes = demo.to_bytes().unwrap();
        let back = Demo::from_bytes(&bytes).unwrap();
        prop_assert_eq!(&back, &demo);
        prop_assert_eq!(&back.to_bytes().unwrap(), &bytes);
        // The streaming rewrite, which goes through the same writer, agrees.
        let (rewritten, stats) = demokit::twdemo::demo::rewrite(&bytes, Vec::new()).unwrap();
        prop_assert_eq!(rewritten, bytes);
        prop_assert_eq!(stats.kept_raw_headers, 0);
    }

    /// The streaming reader sees what the slice reader sees.
    #[test]
    fn readers_agree(demo in strategies::demo(20, 40)) {
        let bytes = demo.to_bytes().unwrap();
        let slice = DemoSlice::parse(&bytes).unwrap();
        let mut stream = DemoReader::new(&bytes[..]).unwrap();
        prop_assert_eq!(stream.map(), slice.map());
        for expected in slice.chunks() {
            let got = stream.next().unwrap().unwrap();
            prop_assert_eq!(got, expected.unwrap());
        }
        prop_assert!(stream.next().is_none());
    }

    /// Chunk headers round-trip through binrw for every lead byte and version form.
    #[test]
    fn chunk_header_round_trip(lead in any::<u8>(), tail in any::<[u8; 4]>(), tick_compression in any::<bool>()) {
        use binrw::{BinRead, BinWrite};
        let len = RawChunkHeader::len_from_lead(lead, tick_compression);
        let mut bytes = vec![lead];
        bytes.extend_from_slice(&tail[..len - 1]);
        let h = RawChunkHeader::read_args(&mut Cursor::new(&bytes), (tick_compression,)).unwrap();
        prop_assert_eq!(h.len(), len);
        let mut out = Cursor::new(Vec::new());
        h.write_args(&mut out, (tick_compression,)).unwrap();
        prop_assert_eq!(out.into_inner(), bytes);
    }

    /// A data header built for any size and form reads back to that size.
    #[test]
    fn data_header_sizes(size in 0usize..=65535, form in prop_oneof![Just(SizeForm::Inline), Just(SizeForm::Byte), Just(SizeForm::Word)]) {
        if let Some(h) = RawChunkHeader::data(demokit::twdemo::ChunkKind::Message, size, form) {
            prop_assert_eq!(h.payload_size(), size);
            prop_assert_eq!(h.size_form(), form);
        } else {
            prop_assert!(form != SizeForm::Word);
        }
    }

    /// Arbitrary bytes, and arbitrary chunk bytes behind a valid prelude, never panic.
    #[test]
    fn arbitrary_bytes_never_panic(prefix in strategies::demo(0, 20), tail in proptest::collection::vec(any::<u8>(), 0..400), raw in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut bytes = prefix.to_bytes().unwrap();
        bytes.extend_from_slice(&tail);
        for data in [&bytes[..], &raw[..]] {
            let _ = Demo::from_bytes(data);
            let _ = demokit::twdemo::validate::validate(data);
            let _ = demokit::twdemo::Summary::scan(data);
            if let Ok(mut r) = DemoReader::new(data) {
                while let Some(item) = r.next() {
                    if item.is_err() {
                        break;
                    }
                }
            }
        }
    }
}
