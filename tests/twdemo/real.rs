//! The library against the real recordings in the corpus's real-fixtures/twdemo: counts agree
//! with facts.json, the slice and streaming readers agree, the Huffman length rule of every
//! chunk is detected as the independent reader found, and a rewrite is byte-identical.

use crate::common;

use common::read::Dribble;

use demokit::codec::huffman::LengthRule;
use demokit::twdemo::container::demo::rewrite;
use demokit::twdemo::{Chunk, Demo, DemoReader, DemoSlice, PayloadDecoder, Summary};
use sha2::Digest;

#[test]
fn summaries_agree_with_facts() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let all = common::twdemo_facts(&shared);
    common::check_total("real demos", all.len(), 10);
    for (path, f) in all {
        let data = std::fs::read(&path).unwrap();
        let name = path.display();
        let (s, err) = Summary::scan(&data).unwrap();
        assert!(err.is_none(), "{name}: {err:?}");
        // The streaming summary, which `info` uses, is the same.
        let (streamed, err) = Summary::scan_reader(&data[..]).unwrap();
        assert!(err.is_none(), "{name}: {err:?}");
        assert_eq!(streamed, s, "{name}");
        // So are the streamed game log and chat lines (`players`, `events`, `chat`).
        let demo = DemoSlice::parse(&data).unwrap();
        let (log, error) = demokit::twdemo::game::game_log(&demo);
        let (streamed_log, streamed_error) =
            demokit::twdemo::game::game_log_reader(&data[..]).unwrap();
        assert_eq!(streamed_log, log, "{name}");
        assert_eq!(
            streamed_error.map(|e| e.to_string()),
            error.map(|e| e.to_string()),
            "{name}"
        );
        let (lines, _) = demokit::twdemo::game::chat::chat_lines(&demo);
        let (streamed_lines, _) =
            demokit::twdemo::game::chat::chat_lines_reader(&data[..]).unwrap();
        assert_eq!(streamed_lines, lines, "{name}");
        assert_eq!(s.version as u64, f["version"].as_u64().unwrap(), "{name}");
        assert_eq!(s.net_version, f["net_version"].as_str().unwrap(), "{name}");
        assert_eq!(s.map_name, f["map_name"].as_str().unwrap(), "{name}");
        assert_eq!(s.map_size as u64, f["map_size"].as_u64().unwrap(), "{name}");
        assert_eq!(s.map_crc, f["map_crc"].as_str().unwrap(), "{name}");
        assert_eq!(s.kind, f["type"].as_str().unwrap(), "{name}");
        assert_eq!(s.length as i64, f["length_s"].as_i64().unwrap(), "{name}");
        assert_eq!(
            s.start_time,
            demokit::model::start_time_of_demo(f["timestamp"].as_str().unwrap()),
            "{name}"
        );
        assert_eq!(s.map_sha256.as_deref(), f["map_sha256"].as_str(), "{name}");
        assert_eq!(
            s.map_offset as u64,
            f["map_offset"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            s.chunks_offset as u64,
            f["chunks_offset"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            s.first_tick.map(i64::from),
            f["first_tick"].as_i64(),
            "{name}"
        );
        assert_eq!(
            s.last_tick.map(i64::from),
            f["last_tick"].as_i64(),
            "{name}"
        );
        if let Some(n) = f["num_timeline_markers"].as_u64() {
            assert_eq!(s.markers.len() as u64, n, "{name}");
        }
        let c = &f["chunk_counts"];
        assert_eq!(s.counts.tick_markers, c["tick"].as_u64().unwrap(), "{name}");
        assert_eq!(
            s.counts.keyframes,
            c["keyframe"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(s.counts.snapshots, c["snap"].as_u64().unwrap(), "{name}");
        assert_eq!(s.counts.deltas, c["delta"].as_u64().unwrap(), "{name}");
        assert_eq!(s.counts.messages, c["msg"].as_u64().unwrap(), "{name}");
        assert_eq!(s.counts.unknown, 0, "{name}");
        let data_chunks = s.counts.snapshots + s.counts.deltas + s.counts.messages;
        assert_eq!(data_chunks, f["data_chunks"].as_u64().unwrap(), "{name}");
    }
}

#[test]
fn tick_forms_and_huffman_rules_agree_with_facts() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut decoder = PayloadDecoder::new();
    for (path, f) in common::twdemo_facts(&shared) {
        let data = std::fs::read(&path).unwrap();
        let name = path.display();
        let slice = DemoSlice::parse(&data).unwrap();
        let (mut absolute, mut delta) = (0u64, 0u64);
        let (mut chunks, mut trailing_ok, mut tight_ok) = (0u64, 0u64, 0u64);
        for item in slice.chunks() {
            match item.unwrap().chunk {
                Chunk::Tick(m) => match m.form {
                    demokit::twdemo::TickForm::Absolute => absolute += 1,
                    demokit::twdemo::TickForm::Delta => delta += 1,
                },
                Chunk::Data(d) => {
                    let decoded = decoder.decode(d.payload).unwrap();
                    assert_eq!(decoded.non_canonical_ints, 0, "{name}");
                    chunks += 1;
                    let len = d.payload.len();
                    let bits = demokit::codec::huffman::Decoded {
                        bits: decoded.huffman_bits,
                    };
                    trailing_ok += (bits.len_under(LengthRule::TrailingByte) == len) as u64;
                    tight_ok += (bits.len_under(LengthRule::Tight) == len) as u64;
                }
            }
        }
        let t = &f["tick_encoding"];
        assert_eq!(absolute, t["full_4byte"].as_u64().unwrap(), "{name}");
        assert_eq!(
            delta,
            t["compressed_delta(0x20)"].as_u64().unwrap()
                + t["legacy_delta(v<5)"].as_u64().unwrap(),
            "{name}"
        );
        let h = &f["huffman_reencode"];
        assert_eq!(chunks, h["chunks"].as_u64().unwrap(), "{name}");
        assert_eq!(
            trailing_ok,
            h["identical_with_trailing_byte_rule"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            tight_ok,
            h["identical_with_tight_rule"].as_u64().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn streaming_reader_agrees_with_slice_reader() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in common::twdemo_facts(&shared) {
        let data = std::fs::read(&path).unwrap();
        let slice = DemoSlice::parse(&data).unwrap();
        // A reader that hands out 7 bytes at a time exercises every refill boundary.
        let mut stream = DemoReader::new(Dribble::new(&data, 7)).unwrap();
        assert_eq!(stream.prelude(), slice.prelude());
        assert_eq!(stream.map(), slice.map());
        for (n, expected) in slice.chunks().enumerate() {
            let expected = expected.unwrap();
            let got = stream.next().expect("stream ended early").unwrap();
            assert_eq!(got, expected, "{} chunk {n}", path.display());
        }
        assert!(stream.next().is_none());
    }
}

#[test]
fn rewrite_is_byte_identical() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut files: Vec<_> = common::twdemo_facts(&shared)
        .into_iter()
        .map(|(p, f)| (p, f["sha256"].as_str().map(String::from)))
        .collect();
    files.push((
        shared.join("conformance/ddnet-recorder/ref_client.demo"),
        None,
    ));
    for (path, sha) in files {
        let data = std::fs::read(&path).unwrap();
        let name = path.display();
        let (out, stats) = rewrite(&data, Vec::new()).unwrap();
        assert!(out == data, "{name}: rewrite differs");
        if let Some(sha) = sha {
            assert_eq!(hex::encode(sha2::Sha256::digest(&out)), sha, "{name}");
        }
        // Every chunk of a real file goes through decode and encode: none is copied.
        assert_eq!(stats.kept_stored, 0, "{name}");
        assert_eq!(stats.kept_raw_headers, 0, "{name}");
        // The owned model round-trips too.
        let demo = Demo::from_bytes(&data).unwrap();
        assert!(
            demo.to_bytes().unwrap() == data,
            "{name}: Demo round trip differs"
        );
    }
}
