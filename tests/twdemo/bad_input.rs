//! Bad input: truncation at every byte, malformed headers, corrupt payloads. Each gives a
//! typed error with its offset, after everything that precedes it, with no panic and no
//! allocation larger than the input.

use crate::common;

use common::alloc::largest_allocation;

use demokit::twdemo::{
    Chunk, ChunkAt, DemoReader, DemoSlice, PayloadDecoder, PayloadError, ReadError, ReadErrorKind,
};
use std::path::PathBuf;

/// Everything the slice reader yields, decoding every payload: the chunks and the error.
fn read_all(data: &[u8]) -> (Vec<ChunkAt<'_>>, Option<ReadError>) {
    let slice = match DemoSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut decoder = PayloadDecoder::new();
    let mut chunks = Vec::new();
    for item in slice.chunks() {
        match item {
            Ok(c) => {
                if let Chunk::Data(d) = c.chunk
                    && let Err(e) = decoder.decode(d.payload)
                {
                    return (
                        chunks,
                        Some(ReadError {
                            offset: c.offset,
                            kind: ReadErrorKind::Payload(e),
                        }),
                    );
                }
                chunks.push(c);
            }
            Err(e) => return (chunks, Some(e)),
        }
    }
    (chunks, None)
}

/// The first error reading and decoding `data`, holding nothing but the decoder's buffers.
fn first_error(data: &[u8]) -> Option<ReadError> {
    let slice = match DemoSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return Some(e),
    };
    let mut decoder = PayloadDecoder::new();
    for item in slice.chunks() {
        let c = match item {
            Ok(c) => c,
            Err(e) => return Some(e),
        };
        if let Chunk::Data(d) = c.chunk
            && let Err(e) = decoder.decode(d.payload)
        {
            return Some(ReadError {
                offset: c.offset,
                kind: ReadErrorKind::Payload(e),
            });
        }
    }
    None
}

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    std::fs::read(path).unwrap()
}

/// Cuts `data` at every offset and checks both readers deliver every whole chunk before
/// the cut and then a truncation error at the start of the cut element.
fn check_every_cut(data: &[u8]) {
    let (full, err) = read_all(data);
    assert!(err.is_none());
    let slice = DemoSlice::parse(data).unwrap();
    let chunks_offset = slice.chunks_offset();
    for cut in 0..data.len() {
        let part = &data[..cut];
        let (chunks, err) = read_all(part);
        if cut < chunks_offset {
            let err =
                err.unwrap_or_else(|| panic!("cut {cut} inside the prelude or map gave no error"));
            assert!(err.is_truncation(), "cut {cut}: {err}");
            assert!(chunks.is_empty());
            continue;
        }
        // Every chunk that ends at or before the cut is delivered, exactly as in the whole file.
        let whole = full
            .iter()
            .take_while(|c| (c.offset as usize) < cut && ends_before(c, cut))
            .count();
        assert_eq!(chunks.len(), whole, "cut {cut}");
        assert_eq!(&chunks[..], &full[..whole], "cut {cut}");
        match full.get(whole) {
            Some(next) if (next.offset as usize) < cut => {
                let err = err.unwrap_or_else(|| panic!("cut {cut}: no error"));
                assert!(err.is_truncation(), "cut {cut}: {err}");
                assert_eq!(err.offset, next.offset, "cut {cut}");
            }
            _ => assert!(err.is_none(), "cut {cut} on a chunk boundary: {err:?}"),
        }
        // The streaming reader agrees, including the error offset.
        let mut stream = match DemoReader::new(part) {
            Ok(s) => s,
            Err(e) => panic!("cut {cut}: streaming prelude failed: {e}"),
        };
        let mut n = 0;
        while let Some(item) = stream.next() {
            match item {
                Ok(c) => {
                    assert_eq!(c, full[n], "cut {cut}");
                    n += 1;
                }
                Err(e) => {
                    assert!(e.is_truncation(), "cut {cut}: {e}");
                    assert_eq!(e.offset, full[n].offset, "cut {cut}");
                }
            }
        }
        assert_eq!(n, whole, "cut {cut}");
    }
}

fn ends_before(c: &ChunkAt<'_>, cut: usize) -> bool {
    let len = c.header.len()
        + match c.chunk {
            Chunk::Data(d) => d.payload.len(),
            Chunk::Tick(_) => 0,
        };
    c.offset as usize + len <= cut
}

#[test]
fn real_demo_cut_at_every_offset() {
    if let Some(path) =
        common::shared_file_part("real-fixtures/twdemo/v6_ddnet_client_sixup_tinycave.demo")
    {
        check_every_cut(&std::fs::read(path).unwrap());
    }
    check_every_cut(&common::read_shared("conformance/ddnet-recorder/ref_client.demo").unwrap());
    // The smallest real server demo the repository ships, cut everywhere too.
    check_every_cut(&common::read_shared("real-fixtures/twdemo/v3_tw061_server_dm1.demo").unwrap());
}

#[test]
fn recorded_fixtures_cut_at_every_offset() {
    for v in 3..=6 {
        check_every_cut(&fixture(&format!("recorded_v{v}.demo")));
    }
}

/// Reads a malformed fixture, checking the allocation bound, and returns its error.
fn error_of(name: &str) -> ReadError {
    let data = fixture(name);
    let (err, largest) = largest_allocation(|| first_error(&data));
    assert!(
        largest <= data.len(),
        "{name}: allocated {largest} bytes for a {}-byte input",
        data.len()
    );
    err.unwrap_or_else(|| panic!("{name} was accepted"))
}

#[test]
fn malformed_headers_are_typed_errors() {
    let e = error_of("bad_magic.demo");
    assert!(matches!(e.kind, ReadErrorKind::BadMagic { .. }), "{e}");
    assert_eq!(e.offset, 0);

    let e = error_of("version_2.demo");
    assert!(
        matches!(e.kind, ReadErrorKind::UnsupportedVersion { version: 2 }),
        "{e}"
    );
    assert_eq!(e.offset, 7);

    let e = error_of("unterminated_map_name.demo");
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::UnterminatedString {
                field: "map_name",
                size: 64
            }
        ),
        "{e}"
    );
    assert_eq!(e.offset, 72);

    let e = error_of("map_past_end.demo");
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::MapPastEnd {
                map_size: 0x7FFF_FFF0,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.offset, 484);
    assert!(e.to_string().starts_with("at byte 484: "), "{e}");

    let e = error_of("truncated.demo");
    assert!(e.is_truncation(), "{e}");
}

#[test]
fn corrupt_huffman_is_a_typed_error_after_the_chunks_before_it() {
    let e = error_of("corrupt_huffman.demo");
    assert!(
        matches!(e.kind, ReadErrorKind::Payload(PayloadError::Huffman(_))),
        "{e}"
    );
    assert_eq!(e.offset, 484 + 512);
}

#[test]
fn streaming_reader_allocates_map_by_arrival_not_by_header() {
    // A header claiming a 2 GiB map on a tiny input must not make the reader reserve it.
    let data = fixture("map_past_end.demo");
    let (result, largest) = largest_allocation(|| DemoReader::new(&data[..]).map(|_| ()));
    let err = result.unwrap_err();
    assert!(
        matches!(err.kind, ReadErrorKind::MapPastEnd { .. }),
        "{err}"
    );
    // The internal 64 KiB read buffer is the largest allocation, never the claimed size.
    assert!(largest <= 64 * 1024 + data.len(), "allocated {largest}");
}

#[test]
fn short_and_empty_inputs() {
    for data in [&b""[..], b"TW", b"TWDEMO\0", b"TWDEMO\0\x06", b"HL2DEMO\0"] {
        let (chunks, err) = read_all(data);
        assert!(chunks.is_empty());
        let err = err.unwrap();
        // The error names where the missing or wrong element starts.
        let expected_offset = if data == b"TWDEMO\0\x06" { 8 } else { 0 };
        assert_eq!(err.offset, expected_offset, "{data:?}: {err}");
        assert!(DemoReader::new(data).is_err());
    }
}
