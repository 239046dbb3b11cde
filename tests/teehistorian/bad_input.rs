//! Bad teehistorian input: size fields larger than the file, negative sizes, unknown ids,
//! bytes after FINISH, ticks out of range, broken headers. Each gives a typed error with its
//! offset, after every message before it, from both readers alike, with no panic and no
//! allocation sized by a length field.

use crate::common;

use common::alloc::largest_allocation;

use demokit::codec::varint;
use demokit::teehistorian::format::FILE_UUID;
use demokit::teehistorian::{
    MessageAt, ReadError, ReadErrorKind, TeehistorianReader, TeehistorianSlice,
};

const HEADER: &[u8] = br#"{"version":"2"}"#;

/// The file UUID, a minimal header and `body`.
fn file(body: &[u8]) -> Vec<u8> {
    let mut data = FILE_UUID.to_vec();
    data.extend_from_slice(HEADER);
    data.push(0);
    data.extend_from_slice(body);
    data
}

const BODY_OFFSET: u64 = 16 + HEADER.len() as u64 + 1;

fn ints(values: &[i32]) -> Vec<u8> {
    let mut out = Vec::new();
    varint::pack_ints(values, &mut out);
    out
}

/// Both readers over `data`: the number of messages and the error, checked to agree.
fn read_both(data: &[u8]) -> (usize, Option<ReadError>) {
    let (slice_result, slice_largest) = largest_allocation(|| {
        let slice = match TeehistorianSlice::parse(data) {
            Ok(s) => s,
            Err(e) => return (0, Some(e)),
        };
        // Only the message loop is measured: the header parse allocates its strings.
        let mut n = 0;
        let mut error = None;
        for item in slice.messages() {
            match item {
                Ok(_) => n += 1,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        (n, error)
    });
    let (stream_result, stream_largest) = largest_allocation(|| {
        let mut stream = match TeehistorianReader::new(data) {
            Ok(s) => s,
            Err(e) => return (0, Some(e)),
        };
        let mut n = 0;
        loop {
            match stream.next() {
                None => return (n, None),
                Some(Ok(_)) => n += 1,
                Some(Err(e)) => return (n, Some(e)),
            }
        }
    });
    // Neither reader ever allocates more than a small multiple of the input (plus the
    // streaming reader's read chunk), whatever the length fields say.
    let bound = 4 * data.len() + 256 * 1024;
    assert!(
        slice_largest <= bound,
        "slice reader allocated {slice_largest}"
    );
    assert!(
        stream_largest <= bound,
        "stream reader allocated {stream_largest}"
    );
    assert_eq!(slice_result.0, stream_result.0);
    match (&slice_result.1, &stream_result.1) {
        (None, None) => {}
        (Some(a), Some(b)) => assert_eq!((a.offset, a.to_string()), (b.offset, b.to_string())),
        (a, b) => panic!("slice {a:?}, stream {b:?}"),
    }
    slice_result
}

/// Size fields beyond [`MAX_MESSAGE_LEN`](demokit::teehistorian::reader::MAX_MESSAGE_LEN)
/// are refused where they stand, whatever follows; below it a size past the end is a
/// truncation. Neither allocates by the size.
#[test]
fn size_fields_beyond_the_cap_or_past_the_end_without_big_allocations() {
    let mut join = ints(&[-8, 3]);
    let join_len = join.len() as u64;
    // MESSAGE of 2^31 - 1 bytes, EX of as many, with a megabyte of data after them.
    let tail = vec![0x55u8; 1 << 20];
    for head in [ints(&[-7, 0, i32::MAX]), {
        let mut ex = ints(&[-11]);
        ex.extend_from_slice(&[0xab; 16]);
        ex.extend_from_slice(&ints(&[i32::MAX]));
        ex
    }] {
        let mut body = join.clone();
        body.extend_from_slice(&head);
        body.extend_from_slice(&tail);
        let (n, err) = read_both(&file(&body));
        assert_eq!(n, 1);
        let err = err.unwrap();
        assert_eq!(err.offset, BODY_OFFSET + join_len);
        assert!(
            matches!(
                err.kind,
                ReadErrorKind::MessageTooLong { at_least } if at_least > i32::MAX as u64
            ),
            "{err}"
        );
    }
    // A MESSAGE of 100 KiB, cut after 1 KiB: a truncation.
    let mut body = join.clone();
    body.extend_from_slice(&ints(&[-7, 0, 100 << 10]));
    body.extend_from_slice(&[0x55; 1024]);
    let (n, err) = read_both(&file(&body));
    let err = err.unwrap();
    assert_eq!((n, err.offset), (1, BODY_OFFSET + join_len));
    assert!(
        matches!(err.kind, ReadErrorKind::UnexpectedEnd { available, .. } if available == 1024 + 5),
        "{err}"
    );
    // A string that never ends, and a console command announcing 2^31 - 1 arguments.
    join.extend_from_slice(&ints(&[-9, 0]));
    join.extend_from_slice(&tail);
    let (n, err) = read_both(&file(&join));
    assert_eq!((n, err.unwrap().offset), (1, BODY_OFFSET + join_len));
    let mut cmd = ints(&[-10, 0, 0]);
    cmd.extend_from_slice(b"say\0");
    cmd.extend_from_slice(&ints(&[i32::MAX]));
    cmd.extend_from_slice(b"a\0b\0");
    let (n, err) = read_both(&file(&cmd));
    assert_eq!(n, 0);
    assert!(err.unwrap().is_truncation());
}

#[test]
fn negative_sizes_and_unknown_ids() {
    let join = ints(&[-8, 0]);
    let at = BODY_OFFSET + join.len() as u64;
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (ints(&[-7, 0, -1]), "MESSAGE data size"),
        (
            {
                let mut ex = ints(&[-11]);
                ex.extend_from_slice(&[0; 16]);
                ex.extend_from_slice(&ints(&[-5]));
                ex
            },
            "EX size",
        ),
        (
            {
                let mut c = ints(&[-10, 0, 0]);
                c.extend_from_slice(b"x\0");
                c.extend_from_slice(&ints(&[-1]));
                c
            },
            "CONSOLE_COMMAND args count",
        ),
    ];
    for (message, field) in cases {
        let mut body = join.clone();
        body.extend_from_slice(&message);
        let (n, err) = read_both(&file(&body));
        let err = err.unwrap();
        assert_eq!((n, err.offset), (1, at));
        assert!(
            matches!(err.kind, ReadErrorKind::NegativeLength { what, .. } if what == field),
            "{err}"
        );
    }
    let mut body = join.clone();
    body.extend_from_slice(&ints(&[-12, 0]));
    let (n, err) = read_both(&file(&body));
    let err = err.unwrap();
    assert_eq!((n, err.offset), (1, at));
    assert!(matches!(
        err.kind,
        ReadErrorKind::UnknownMessageId { id: -12 }
    ));
}

#[test]
fn bytes_after_finish_are_reported() {
    let mut body = ints(&[-8, 0, -1]);
    let finish_end = BODY_OFFSET + body.len() as u64;
    body.extend_from_slice(&[0u8; 70_000]);
    let (n, err) = read_both(&file(&body));
    let err = err.unwrap();
    assert_eq!((n, err.offset), (2, finish_end));
    assert!(matches!(
        err.kind,
        ReadErrorKind::DataAfterFinish { len: 70_000 }
    ));
    // Without them the end is clean; without FINISH too (an unfinished file), but a cut
    // inside a message is a truncation where it starts.
    assert!(read_both(&file(&ints(&[-8, 0, -1]))).1.is_none());
    let (n, err) = read_both(&file(&ints(&[-8, 0])));
    assert_eq!(n, 1);
    assert!(err.is_none(), "{err:?}");
    let (n, err) = read_both(&file(&ints(&[-8])));
    let err = err.unwrap();
    assert_eq!((n, err.offset), (0, BODY_OFFSET));
    assert!(err.is_truncation());
}

#[test]
fn ticks_out_of_range_are_refused() {
    let body = ints(&[-2, i32::MAX - 1, 5, 0, 0, 5, 0, 0]);
    let (n, err) = read_both(&file(&body));
    let err = err.unwrap();
    // TICK_SKIP to i32::MAX, PLAYER_DIFF 5 stays there, the second one would open the next.
    assert_eq!((n, err.offset), (2, BODY_OFFSET + 9));
    assert!(matches!(
        err.kind,
        ReadErrorKind::TickOutOfRange { tick } if tick == i64::from(i32::MAX) + 1
    ));
}

#[test]
fn broken_headers() {
    let with_json = |json: &[u8]| {
        let mut data = FILE_UUID.to_vec();
        data.extend_from_slice(json);
        data.push(0);
        data.push(0x40);
        data
    };
    for json in [&b"not json"[..], b"[]", b"{}", br#"{"version":2}"#] {
        let (n, err) = read_both(&with_json(json));
        let err = err.unwrap();
        assert_eq!((n, err.offset), (0, 16));
        assert!(matches!(err.kind, ReadErrorKind::Header(_)), "{err}");
    }
    // DDNet cuts long values byte-wise, which can split a character: such a header reads,
    // with U+FFFD for the broken sequence, and its stored bytes are kept as they are.
    let json = b"{\"version\":\"2\",\"map_name\":\"ab\xc3\"}";
    let data = with_json(json);
    let slice = TeehistorianSlice::parse(&data).unwrap();
    assert_eq!(slice.header().map_name.as_deref(), Some("ab\u{FFFD}"));
    assert_eq!(slice.header_json(), json);
    let (n, err) = read_both(&data);
    assert_eq!(n, 1);
    assert!(err.is_none(), "{err:?}");
    let (_, err) = read_both(&with_json(br#"{"version":"3"}"#));
    assert!(matches!(
        err.unwrap().kind,
        ReadErrorKind::UnsupportedVersion { .. }
    ));
    // A header that never ends: read as it arrives, then a truncation at its start.
    let mut data = FILE_UUID.to_vec();
    data.extend_from_slice(&vec![b' '; 300_000]);
    let (_, err) = read_both(&data);
    let err = err.unwrap();
    assert!(err.is_truncation());
    assert_eq!(err.offset, 16);
    // A different format.
    let (_, err) = read_both(b"TWDEMO\0\x06 and so on");
    assert!(matches!(err.unwrap().kind, ReadErrorKind::BadMagic { .. }));
}

#[test]
fn the_slice_reader_allocates_nothing_per_message() {
    let mut body = Vec::new();
    for i in 0..1000 {
        body.extend_from_slice(&ints(&[-3, i % 64, i, -i]));
        body.extend_from_slice(&ints(&[-10, 0, 0]));
        body.extend_from_slice(b"tune\0");
        body.extend_from_slice(&ints(&[2]));
        body.extend_from_slice(b"gravity\x000.5\0");
    }
    body.extend_from_slice(&ints(&[-1]));
    let data = file(&body);
    let slice = TeehistorianSlice::parse(&data).unwrap();
    let (items, largest) = largest_allocation(|| {
        slice
            .messages()
            .map(|m: Result<MessageAt<'_>, _>| m.unwrap().tick)
            .fold(0usize, |n, _| n + 1)
    });
    assert_eq!(items, 2001);
    assert_eq!(largest, 0);
}

/// A stream that never ends its header, or a message whose string never ends, would make a
/// streaming reader buffer without bound; both readers stop at the documented caps instead,
/// and the streaming reader's heap stays within a small multiple of the cap.
#[test]
fn endless_headers_and_messages_stop_at_the_caps() {
    use demokit::teehistorian::format::id;
    use demokit::teehistorian::reader::{MAX_HEADER_LEN, MAX_MESSAGE_LEN};
    use std::io::Read;

    // A header of endless spaces (valid JSON whitespace, no NUL).
    let endless_header = FILE_UUID.as_slice().chain(std::io::repeat(b' '));
    let (result, usage) = common::alloc::measure(|| TeehistorianReader::new(endless_header).err());
    let e = result.expect("an endless header is refused");
    assert!(matches!(e.kind, ReadErrorKind::HeaderTooLong), "{e}");
    assert_eq!(e.offset, 16);
    assert!(
        usage.peak < 4 * MAX_HEADER_LEN,
        "peak {} bytes for a {} byte cap",
        usage.peak,
        MAX_HEADER_LEN
    );
    // The slice reader draws the line at the same place.
    let mut data = FILE_UUID.to_vec();
    data.resize(16 + MAX_HEADER_LEN, b' ');
    data.extend_from_slice(HEADER);
    data.push(0);
    let e = TeehistorianSlice::parse(&data).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::HeaderTooLong), "{e}");
    data.drain(16..16 + MAX_HEADER_LEN - HEADER.len() - 1);
    assert!(
        TeehistorianSlice::parse(&data).is_ok(),
        "a header at the cap reads"
    );

    // A console command whose name never ends.
    let head = file(&ints(&[id::CONSOLE_COMMAND, 0, 0]));
    let endless = head.as_slice().chain(std::io::repeat(b'x'));
    let (result, usage) = common::alloc::measure(|| {
        let mut reader = TeehistorianReader::new(endless).unwrap();
        reader.next().map(|r| r.map(|_| ()))
    });
    let e = result.unwrap().unwrap_err();
    assert_eq!(e.offset, BODY_OFFSET);
    assert!(
        matches!(e.kind, ReadErrorKind::MessageTooLong { at_least } if at_least > MAX_MESSAGE_LEN as u64),
        "{e}"
    );
    assert!(
        usage.peak < 4 * MAX_MESSAGE_LEN,
        "peak {} bytes for a {} byte cap",
        usage.peak,
        MAX_MESSAGE_LEN
    );

    // A complete MESSAGE just over the cap is refused by both readers; one at the cap reads.
    for (payload, refused) in [(MAX_MESSAGE_LEN, true), (MAX_MESSAGE_LEN - 16, false)] {
        let mut body = ints(&[id::MESSAGE, 0, payload as i32]);
        let overhead = body.len();
        body.resize(overhead + payload, 0);
        body.extend_from_slice(&ints(&[id::FINISH]));
        let (n, e) = read_both(&file(&body));
        if refused {
            let e = e.expect("refused");
            assert!(
                matches!(e.kind, ReadErrorKind::MessageTooLong { .. }),
                "{e}"
            );
            assert_eq!((n, e.offset), (0, BODY_OFFSET));
        } else {
            assert!(e.is_none(), "{e:?}");
            assert_eq!(n, 2);
        }
    }
}
