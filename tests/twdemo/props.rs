//! Property tests of the demo container, using the public strategies of the `proptest`
//! feature. Case counts follow PROPTEST_CASES; failures persist under proptest-regressions/.

use demokit::twdemo::container::demo::{Payload, Record};
use demokit::twdemo::container::payload::PayloadDecoder;
use demokit::twdemo::container::strategies;
use demokit::twdemo::{Chunk, Demo, DemoReader, DemoSlice, RawChunkHeader, SizeForm};
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
        let (rewritten, stats) = demokit::twdemo::container::demo::rewrite(&bytes, Vec::new()).unwrap();
        prop_assert_eq!(rewritten, bytes);
        prop_assert_eq!(stats.kept_raw_headers, 0);
    }

    /// Whatever a caller hands the writer (hand-made raw headers, stored payloads, ticks in
    /// any form, preludes at odds with their version or map) is either refused or written
    /// as bytes that read back as exactly what was given, record for record.
    #[test]
    fn written_bytes_read_back_as_given(demo in strategies::any_demo(20, 40)) {
        let Ok(bytes) = demo.to_bytes() else {
            return Ok(());
        };
        let slice = DemoSlice::parse(&bytes);
        prop_assert!(slice.is_ok(), "{:?}", slice.err());
        let slice = slice.unwrap();
        prop_assert_eq!(slice.prelude(), &demo.prelude);
        prop_assert_eq!(slice.map(), &demo.map[..]);
        let chunks: Result<Vec<_>, _> = slice.chunks().collect();
        prop_assert!(chunks.is_ok(), "{:?}", chunks.err());
        let chunks = chunks.unwrap();
        prop_assert_eq!(chunks.len(), demo.records.len());
        let mut decoder = PayloadDecoder::new();
        for (at, record) in chunks.iter().zip(&demo.records) {
            match record {
                Record::Tick(marker) => prop_assert_eq!(at.chunk, Chunk::Tick(*marker)),
                Record::Data(data) => {
                    let Chunk::Data(read) = at.chunk else {
                        return Err(TestCaseError::fail(format!("{record:?} read as {at:?}")));
                    };
                    prop_assert_eq!(read.kind, data.kind);
                    prop_assert_eq!(at.header.size_form(), data.size_form);
                    match &data.payload {
                        Payload::Stored(stored) => prop_assert_eq!(read.payload, &stored[..]),
                        Payload::Ints { ints, .. } => {
                            let decoded = decoder.decode(read.payload);
                            prop_assert!(decoded.is_ok());
                            prop_assert_eq!(decoded.unwrap().ints, &ints[..]);
                        }
                    }
                }
                Record::Raw { header, tick, payload } => {
                    prop_assert_eq!(&at.header, header);
                    match at.chunk {
                        Chunk::Tick(marker) => prop_assert_eq!(Some(marker.tick), *tick),
                        Chunk::Data(read) => prop_assert_eq!(read.payload, &payload[..]),
                    }
                }
            }
        }
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
            let _ = demokit::twdemo::edit::validate::validate(data);
            // The streaming summary (what `info` uses) is the slice's, error included.
            let key = |scanned: Result<(demokit::twdemo::Summary, Option<demokit::twdemo::ReadError>), demokit::twdemo::ReadError>| match scanned {
                Ok((s, e)) => Ok((s, e.map(|e| (e.offset, e.to_string())))),
                Err(e) => Err((e.offset, e.to_string())),
            };
            prop_assert_eq!(
                key(demokit::twdemo::Summary::scan(data)),
                key(demokit::twdemo::Summary::scan_reader(data))
            );
            // So are the streamed game log and chat lines (what `players`, `events` and
            // `chat` use).
            if let Ok(demo) = DemoSlice::parse(data) {
                let replay_key = |e: Option<demokit::twdemo::snapshot::replay::ReplayError>| e.map(|e| (e.offset(), e.to_string()));
                let (log, error) = demokit::twdemo::game::game_log(&demo);
                let (streamed, streamed_error) = demokit::twdemo::game::game_log_reader(data).unwrap();
                prop_assert_eq!(log, streamed);
                prop_assert_eq!(replay_key(error), replay_key(streamed_error));
                let (lines, error) = demokit::twdemo::game::chat::chat_lines(&demo);
                let (streamed, streamed_error) = demokit::twdemo::game::chat::chat_lines_reader(data).unwrap();
                prop_assert_eq!(lines, streamed);
                prop_assert_eq!(replay_key(error), replay_key(streamed_error));
            }
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

/// The writer-consistency property is not vacuous: of the demos [`strategies::any_demo`]
/// makes, many are written (and so checked record for record) and many refused.
#[test]
fn any_demo_is_often_written_and_often_refused() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = strategies::any_demo(20, 40);
    let (mut written, mut refused) = (0, 0);
    for _ in 0..1000 {
        let demo = strategy.new_tree(&mut runner).unwrap().current();
        match demo.to_bytes() {
            Ok(_) => written += 1,
            Err(_) => refused += 1,
        }
    }
    println!("{written} written, {refused} refused");
    assert!(
        written >= 200 && refused >= 200,
        "{written} written, {refused} refused"
    );
}
