//! Compressed recordings (issue 52): a real demo, teehistorian file and TF2 demo, each
//! compressed four ways by the codecs' reference encoders (zlib's format through flate2,
//! the C zstd and liblzma libraries, bzip2), read through the entry point give the plain
//! file's facts: summary, validation, game log, export rows and rewritten bytes, from a
//! file and from memory. A cut or corrupt stream is an invalid recording (a cut one a
//! truncated one), never the system's trouble; a decompression bomb stops at the limits;
//! streaming a compressed teehistorian holds a bounded part of it.

use crate::common::alloc::Peaks;
use crate::common::one_real_recording_per_format;
use crate::common::server::record_generated;
use crate::common::temp::TempDir;
use demokit::export::{Exporter, Table};
use demokit::recording::{Cause, Codec, Error, Limits, Recording};
use demokit::teehistorian::FlushPolicy;
use std::io::{Read, Write};

/// `data` compressed with `codec` by its reference encoder (not demokit's).
fn compress(codec: Codec, data: &[u8]) -> Vec<u8> {
    match codec {
        Codec::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Codec::Zstd => {
            // With the content checksum, as the `zstd` tool writes it.
            let mut e = zstd::stream::Encoder::new(Vec::new(), 19).unwrap();
            e.include_checksum(true).unwrap();
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Codec::Xz => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Codec::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        other => panic!("no encoder for {other}"),
    }
}

/// `data` decompressed with `codec` by its reference decoder.
fn decompress(codec: Codec, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match codec {
        Codec::Gzip => flate2::read::MultiGzDecoder::new(data)
            .read_to_end(&mut out)
            .unwrap(),
        Codec::Zstd => zstd::Decoder::new(data)
            .unwrap()
            .read_to_end(&mut out)
            .unwrap(),
        Codec::Xz => liblzma::read::XzDecoder::new_multi_decoder(data)
            .read_to_end(&mut out)
            .unwrap(),
        Codec::Bzip2 => bzip2::read::MultiBzDecoder::new(data)
            .read_to_end(&mut out)
            .unwrap(),
        other => panic!("no decoder for {other}"),
    };
    out
}

/// Everything the comparison looks at, as text: the summary, the validation, the game
/// log, the record count and the rewritten bytes' hash.
fn facts(recording: &Recording) -> Vec<String> {
    let (summary, error) = recording.summary().unwrap();
    let validation = recording.validate().unwrap();
    let (log, log_error) = recording.game_log().unwrap();
    let mut records = 0u64;
    let dumped = recording.dump(|_| records += 1).unwrap();
    let mut rewritten = Vec::new();
    let report = recording.rewrite(&mut rewritten).unwrap();
    vec![
        summary.to_string(),
        format!("{error:?}"),
        format!("{validation:?}"),
        format!("{log:?} {log_error:?}"),
        format!("{records} records, {:?}", dumped.error),
        format!("{:?} {:?}", report.stats, report.error),
        crate::common::sha256_hex(&rewritten),
    ]
}

/// The export's rows of `recording`, every table but `files` (whose `bytes` is the stored
/// size), in the order they came.
fn rows(recording: &Recording) -> Vec<(Table, arrow_array::RecordBatch)> {
    let mut exporter = Exporter::new();
    let mut batches = Vec::new();
    let mut sink = |table: Table, batch| {
        if table != Table::Files {
            batches.push((table, batch));
        }
    };
    exporter.add_recording("recording", None, recording, &mut sink);
    exporter.finish(&mut sink);
    batches
}

#[test]
fn every_fixture_compressed_four_ways_reads_as_the_plain_file() {
    let dir = TempDir::new("compressed");
    for path in one_real_recording_per_format() {
        let plain = std::fs::read(&path).unwrap();
        let recording = Recording::open(&path).unwrap();
        assert_eq!(recording.codec(), None);
        assert_eq!(recording.compression().unwrap(), None);
        let expected = facts(&recording);
        let expected_rows = rows(&recording);
        assert!(!expected_rows.is_empty(), "{}", path.display());
        for codec in Codec::ALL {
            let packed = compress(codec, &plain);
            // Named for nothing: the magic bytes tell the codec.
            let file = dir.path(&format!(
                "{codec}-{}.bin",
                path.file_name().unwrap().display()
            ));
            std::fs::write(&file, &packed).unwrap();
            let what = format!("{} as {codec}", path.display());
            for recording in [
                Recording::open(&file).unwrap(),
                Recording::from_bytes(packed.clone()).unwrap(),
                Recording::from_reader(packed.as_slice()).unwrap(),
            ] {
                assert_eq!(recording.format(), Recording::open(&path).unwrap().format());
                assert_eq!(recording.codec(), Some(codec), "{what}");
                let compression = recording.compression().unwrap().unwrap();
                assert_eq!(compression.codec, codec);
                assert_eq!(compression.compressed_bytes, packed.len() as u64, "{what}");
                assert_eq!(compression.recording_bytes, plain.len() as u64, "{what}");
                assert_eq!(
                    recording.bytes().unwrap().as_ref(),
                    plain.as_slice(),
                    "{what}"
                );
                assert_eq!(facts(&recording), expected, "{what}");
                assert!(
                    rows(&recording) == expected_rows,
                    "{what}: export rows differ"
                );
            }
            // Written compressed by demokit's encoder: the reference decoder reads the
            // rewritten recording back byte for byte.
            let mut encoder = demokit::recording::encoder(codec, Vec::new()).unwrap();
            Recording::open(&file)
                .unwrap()
                .rewrite(&mut encoder)
                .unwrap();
            let written = encoder.finish().unwrap();
            let mut plain_rewrite = Vec::new();
            recording.rewrite(&mut plain_rewrite).unwrap();
            assert_eq!(decompress(codec, &written), plain_rewrite, "{what}");
        }
    }
}

/// The first error an operation meets on `recording`: the open's, the summary's or the
/// validation's.
fn first_error(opened: Result<Recording, Error>) -> Option<Error> {
    let recording = match opened {
        Ok(recording) => recording,
        Err(e) => return Some(e),
    };
    match recording.summary() {
        Err(e) | Ok((_, Some(e))) => Some(e),
        Ok((_, None)) => recording.rewrite(std::io::sink()).unwrap().error,
    }
}

#[test]
fn a_cut_stream_is_a_truncated_recording_and_a_corrupt_one_invalid() {
    let dir = TempDir::new("compressed-broken");
    for path in one_real_recording_per_format() {
        let plain = std::fs::read(&path).unwrap();
        for codec in Codec::ALL {
            let packed = compress(codec, &plain);
            let what = format!("{} as {codec}", path.display());
            for cut in [packed.len() / 3, packed.len() - 1] {
                let file = dir.path(&format!("cut-{codec}-{cut}"));
                std::fs::write(&file, packed.get(..cut).unwrap()).unwrap();
                let error = first_error(Recording::open(&file))
                    .unwrap_or_else(|| panic!("{what} cut at {cut}: no error"));
                assert!(error.is_truncation(), "{what} cut at {cut}: {error}");
                assert_eq!(error.cause(), Cause::Invalid, "{what}: {error}");
                assert!(error.to_string().contains(codec.name()), "{what}: {error}");
            }
            // Bytes flipped in the middle of the stream: the codec's check (or the
            // recording's own) fails, as an invalid file, not as the system's trouble.
            let mut corrupt = packed.clone();
            let middle = corrupt.len() / 2;
            // Eight bytes: a single flipped bit can fall where zstd does not look (the
            // reference decoder reads such a file as the original).
            for byte in corrupt.iter_mut().skip(middle).take(8) {
                *byte ^= 0x55;
            }
            let file = dir.path(&format!("corrupt-{codec}"));
            std::fs::write(&file, &corrupt).unwrap();
            let error = first_error(Recording::open(&file))
                .unwrap_or_else(|| panic!("{what} corrupt: no error"));
            assert_eq!(error.cause(), Cause::Invalid, "{what} corrupt: {error}");
        }
    }
}

#[test]
fn a_decompression_bomb_stops_at_the_limit() {
    // A demo header and 256 MiB of zeros: a few hundred kilobytes compressed.
    let mut head = b"TWDEMO\0\x06".to_vec();
    head.resize(1 << 20, 0);
    for codec in [Codec::Zstd, Codec::Gzip] {
        let mut encoder = demokit::recording::encoder(codec, Vec::new()).unwrap();
        encoder.write_all(&head).unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..255 {
            encoder.write_all(&zeros).unwrap();
        }
        let bomb = encoder.finish().unwrap();
        assert!(bomb.len() < 2 << 20, "{codec}: {} bytes", bomb.len());
        let limit = 16 << 20;
        let recording =
            Recording::from_bytes_with(bomb, Limits::with_max_stream_bytes(limit)).unwrap();
        let (result, usage) = crate::common::alloc::measure(|| recording.bytes().map(|b| b.len()));
        match result {
            Err(Error::TooLong { limit: l }) => assert_eq!(l, limit),
            other => panic!("{codec}: {other:?}"),
        }
        assert!(
            (usage.peak as u64) < limit * 2,
            "{codec}: {} bytes held for a limit of {limit}",
            usage.peak
        );
    }
}

#[test]
fn streaming_a_compressed_teehistorian_holds_a_bounded_part_of_it() {
    let mut plain = Vec::new();
    record_generated(&mut plain, 6000, FlushPolicy::Never);
    let len = plain.len();
    assert!(len > 4_000_000, "{len} bytes");
    let dir = TempDir::new("compressed-streaming");
    let plain_file = dir.write("generated.teehistorian", &plain);
    let recording = Recording::open(&plain_file).unwrap();
    let ((), usage) = crate::common::alloc::measure(|| {
        let mut exporter = Exporter::new();
        let mut sink = |_: Table, _| {};
        exporter.add_recording("generated", None, &recording, &mut sink);
        exporter.finish(&mut sink);
    });
    let plain_export = usage.peak;
    for codec in Codec::ALL {
        let file = dir.path(&format!("generated.teehistorian.{}", codec.extension()));
        let mut encoder = demokit::recording::encoder(codec, Vec::new()).unwrap();
        encoder.write_all(&plain).unwrap();
        std::fs::write(&file, encoder.finish().unwrap()).unwrap();
        let recording = Recording::open(&file).unwrap();
        let mut peaks = Peaks::default();
        peaks.run("summary", || {
            assert!(recording.summary().unwrap().1.is_none());
        });
        peaks.run("validate", || {
            assert!(recording.validate().unwrap().accepted);
        });
        peaks.run("rewrite", || {
            assert!(recording.rewrite(std::io::sink()).unwrap().error.is_none());
        });
        peaks.run("game_log", || {
            assert!(recording.game_log().unwrap().1.is_none());
        });
        peaks.run("export", || {
            let mut exporter = Exporter::new();
            let mut sink = |_: Table, _| {};
            exporter.add_recording("generated", None, &recording, &mut sink);
            exporter.finish(&mut sink);
        });
        println!("{codec}: file of {len} bytes; heap peaks: {:?}", peaks.0);
        for (name, peak) in peaks.0 {
            // The export gathers rows into batches, as it does from the plain file; the
            // codec adds its window and buffers (xz's at preset 6: 8 MiB), and nothing
            // grows with the file.
            let window = 9 << 20;
            let bound = if name == "export" {
                plain_export + window
            } else {
                len / 4 + window
            };
            assert!(
                peak < bound,
                "{codec}: {name} held {peak} bytes at once of a {len}-byte recording"
            );
        }
    }
}
