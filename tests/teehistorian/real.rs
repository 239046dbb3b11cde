//! The teehistorian module against real files: the three DDNet server recordings in
//! the corpus's real-fixtures/teehistorian and the conformance reference written by DDNet's own
//! CTeeHistorian (the corpus's conformance/ddnet-recorder/ref.teehistorian).
//!
//! Counts by kind agree with facts.json, the reference body is the one the conformance
//! document annotates (ticks included), the typed header writer reproduces every stored
//! header, a rewrite is byte-identical, both readers agree, and a file cut at any byte gives
//! its complete messages and then a truncation error at the right offset.

use crate::common;

use common::read::Dribble;
use demokit::codec::uuid::teeworlds_uuid;
use demokit::teehistorian::{
    Args, Ex, Header, Message, MessageAt, ReadError, ReadErrorKind, Summary, TeehistorianReader,
    TeehistorianSlice, rewrite,
};
use sha2::Digest;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Every teehistorian file of the shared directory: the facts.json entries (with their
/// facts) and the reference file (without).
fn files(shared: &Path) -> Vec<(PathBuf, Option<serde_json::Value>)> {
    let mut out: Vec<_> = common::facts_files(shared, "teehistorian")
        .into_iter()
        .map(|(path, f)| (path, Some(f)))
        .collect();
    out.push((reference_path(shared), None));
    out
}

fn reference_path(shared: &Path) -> PathBuf {
    shared.join("conformance/ddnet-recorder/ref.teehistorian")
}

/// Reads a whole file with the slice reader: the messages and the error, if any.
fn read_all(data: &[u8]) -> (Vec<MessageAt<'_>>, Option<ReadError>) {
    let slice = match TeehistorianSlice::parse(data) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut items = Vec::new();
    for item in slice.messages() {
        match item {
            Ok(item) => items.push(item),
            Err(e) => return (items, Some(e)),
        }
    }
    (items, None)
}

#[test]
fn counts_agree_with_facts() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let all = files(&shared);
    assert_eq!(all.len(), 4);
    for (path, facts) in all {
        let Some(f) = facts else { continue };
        let name = path.display();
        let data = std::fs::read(&path).unwrap();
        assert_eq!(data.len() as u64, f["size"].as_u64().unwrap(), "{name}");
        assert_eq!(
            hex::encode(sha2::Sha256::digest(&data)),
            f["sha256"].as_str().unwrap(),
            "{name}"
        );
        let (s, err) = Summary::scan(&data).unwrap();
        assert!(err.is_none(), "{name}: {err:?}");
        assert_eq!(s.header_len as u64, f["header_len"].as_u64().unwrap());
        assert_eq!(
            s.finished,
            f["finished_with_FINISH"].as_bool().unwrap(),
            "{name}"
        );
        assert_eq!(s.trailing_bytes, f["trailing_bytes"].as_u64().unwrap());
        let expected: std::collections::BTreeMap<String, u64> = f["chunk_counts"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        assert_eq!(s.counts, expected, "{name}");
        assert_eq!(s.non_canonical_messages, 0, "{name}");
        // facts.json has no tick range for teehistorian files; print ours for the record.
        eprintln!(
            "{name}: ticks {:?}..={:?}, {} messages",
            s.first_tick, s.last_tick, s.messages
        );
        // The keys present, in DDNet's order, are the file's keys in file order (the
        // reproduction test below shows that the order is DDNet's).
        let slice = TeehistorianSlice::parse(&data).unwrap();
        let keys = present_keys(slice.header());
        let expected_keys: Vec<&str> = f["header_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        assert_eq!(keys, expected_keys, "{name}");
    }
}

fn present_keys(h: &Header) -> Vec<&'static str> {
    let json: serde_json::Value = serde_json::from_slice(&h.to_json()).unwrap();
    demokit::teehistorian::header::DDNET_KEY_ORDER
        .into_iter()
        .filter(|k| json.get(k).is_some())
        .collect()
}

#[test]
fn ticks_never_decrease_in_real_files() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in files(&shared) {
        let data = std::fs::read(&path).unwrap();
        let (items, err) = read_all(&data);
        assert!(err.is_none(), "{}: {err:?}", path.display());
        for pair in items.windows(2) {
            assert!(pair[0].tick <= pair[1].tick, "{}", path.display());
        }
        for item in &items {
            if let Message::TickSkip { dt } = item.message {
                assert!(dt >= 0, "{}", path.display());
            }
        }
        assert_eq!(items.last().unwrap().message, Message::Finish);
    }
}

#[test]
fn reference_body_is_the_annotated_one() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let data = std::fs::read(reference_path(&shared)).unwrap();
    let slice = TeehistorianSlice::parse(&data).unwrap();
    assert_eq!(slice.body_offset(), 3190);
    let h = slice.header();
    assert_eq!(h.version, "2");
    assert_eq!(h.version_minor.as_deref(), Some("22"));
    let game_uuid = teeworlds_uuid("test@ddnet.tw").to_string();
    assert_eq!(h.game_uuid.as_deref(), Some(game_uuid.as_str()));
    assert_eq!(h.start_time.as_deref(), Some("2023-11-14T22:13:20+0000"));
    assert_eq!(h.server_version.as_deref(), Some("DDNet test"));
    assert_eq!(h.prng_description.as_deref(), Some("test-prng:02468ace"));
    assert_eq!(h.map_name.as_deref(), Some("Kobra 3 Solo"));
    assert_eq!(h.map_size.as_deref(), Some("903514"));
    assert_eq!(h.map_crc.as_deref(), Some("eceaf25c"));
    assert_eq!(h.config.as_deref(), Some(&[][..]));
    assert_eq!(h.tuning.as_deref(), Some(&[][..]));
    assert_eq!(h.uuids.as_ref().map(Vec::len), Some(86));

    // The annotated body of the conformance document, byte for byte.
    let body_hex = concat!(
        "4a1899a38271e336da937dc9de6bb95b1d0100",
        "4700",
        "4ad016f9b941513b8787e53a6087eb5f260e00",
        "6e616d656c65737320746565", // "nameless tee"
        "00",
        "4200a4018803",
        "4500010a5300000000000000",
        "000300",
        "440040000001000000000000",
        "4107",
        "4300",
        "4100",
        "4800",
        "627965", // "bye"
        "00",
        "40",
    );
    assert_eq!(hex::encode(&data[slice.body_offset()..]), body_hex);

    let no_input_after = |first: &[i32]| {
        let mut a = [0; 10];
        a[..first.len()].copy_from_slice(first);
        a
    };
    let expected: Vec<(i32, Message<'_>)> = vec![
        (0, Message::Ex(Ex::JoinVer6 { cid: 0 })),
        (0, Message::Join { cid: 0 }),
        (
            0,
            Message::Ex(Ex::PlayerName {
                cid: 0,
                name: "nameless tee".into(),
            }),
        ),
        (
            1,
            Message::PlayerNew {
                cid: 0,
                x: 100,
                y: 200,
            },
        ),
        (
            1,
            Message::InputNew {
                cid: 0,
                input: no_input_after(&[1, 10, -20]),
            },
        ),
        (
            2,
            Message::PlayerDiff {
                cid: 0,
                dx: 3,
                dy: 0,
            },
        ),
        (
            2,
            Message::InputDiff {
                cid: 0,
                diff: no_input_after(&[-1, 0, 0, 1]),
            },
        ),
        (10, Message::TickSkip { dt: 7 }),
        (10, Message::PlayerOld { cid: 0 }),
        (11, Message::TickSkip { dt: 0 }),
        (
            11,
            Message::Drop {
                cid: 0,
                reason: "bye".into(),
            },
        ),
        (11, Message::Finish),
    ];
    let (items, err) = read_all(&data);
    assert!(err.is_none(), "{err:?}");
    let got: Vec<_> = items.iter().map(|i| (i.tick, i.message)).collect();
    assert_eq!(got, expected);
    // The PLAYER_NEW of tick 1 and the PLAYER_DIFF of tick 2 are implicit ticks; the
    // PLAYER_OLD of tick 10 follows its TICK_SKIP without advancing again.
    let kinds: Vec<_> = items.iter().map(|i| i.message.kind_name()).collect();
    assert_eq!(kinds[0], "EX:teehistorian-joinver6@ddnet.tw");
    assert_eq!(kinds[2], "EX:teehistorian-player-name@ddnet.org");
    let _ = Args::EMPTY;
}

#[test]
fn typed_header_writer_reproduces_stored_headers() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in files(&shared) {
        let data = std::fs::read(&path).unwrap();
        let slice = TeehistorianSlice::parse(&data).unwrap();
        // All four were written by DDNet (11.0.1, 12.6.1, 20.1 and the 20.1 test writer):
        // the typed writer, which knows nothing of the stored text, gives the same bytes.
        assert_eq!(
            String::from_utf8_lossy(&slice.header().to_json()),
            String::from_utf8_lossy(slice.header_json()),
            "{}",
            path.display()
        );
        assert!(slice.header().extra.is_empty(), "{}", path.display());
    }
}

#[test]
fn rewrite_is_byte_identical() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in files(&shared) {
        let data = std::fs::read(&path).unwrap();
        let out = rewrite(&data, Vec::new()).unwrap().0;
        assert!(out == data, "{} differs after rewrite", path.display());
        // And with the typed header written by the writer instead of the stored text.
        let slice = TeehistorianSlice::parse(&data).unwrap();
        let mut w =
            demokit::teehistorian::TeehistorianWriter::new(Vec::new(), slice.header()).unwrap();
        for item in slice.messages() {
            w.write(&item.unwrap().message).unwrap();
        }
        assert!(w.into_inner().unwrap() == data, "{}", path.display());
    }
}

/// Reads with the streaming reader and compares every item and the final error with the
/// slice reader's.
fn assert_stream_agrees(data: &[u8], source: impl Read, what: &str) {
    let (expected, expected_err) = read_all(data);
    let mut stream = match TeehistorianReader::new(source) {
        Ok(s) => s,
        Err(e) => {
            let want = expected_err.expect("the slice reader failed too");
            assert_eq!((e.offset, e.to_string()), (want.offset, want.to_string()));
            assert!(expected.is_empty());
            return;
        }
    };
    let slice = TeehistorianSlice::parse(data).unwrap();
    assert_eq!(stream.header(), slice.header(), "{what}");
    assert_eq!(stream.header_json(), slice.header_json(), "{what}");
    for e in &expected {
        let got = stream.next().unwrap().unwrap();
        assert_eq!(&got, e, "{what}");
    }
    match (stream.next(), expected_err) {
        (None, None) => {}
        (Some(Err(got)), Some(want)) => {
            assert_eq!(
                (got.offset, got.to_string()),
                (want.offset, want.to_string()),
                "{what}"
            );
            assert!(stream.next().is_none());
        }
        (got, want) => panic!("{what}: stream gave {got:?}, slice {want:?}"),
    }
}

#[test]
fn slice_and_streaming_readers_agree() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in files(&shared) {
        let data = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        assert_stream_agrees(&data, &data[..], &name);
        for n in [1, 2, 7, 100] {
            assert_stream_agrees(&data, Dribble { data: &data, n }, &name);
        }
    }
}

/// The lending `next_ref` gives what `next` gives, message for message, on every real
/// file and on every cut of one (errors included).
#[test]
fn next_ref_lends_what_next_gives() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let lent = |data: &[u8]| -> (Vec<String>, Option<String>) {
        let slice = TeehistorianSlice::parse(data).unwrap();
        let mut messages = slice.messages();
        let mut items = Vec::new();
        while let Some(item) = messages.next_ref() {
            match item {
                Ok(at) => items.push(format!("{at:?}")),
                Err(e) => return (items, Some(format!("{e:?}"))),
            }
        }
        (items, None)
    };
    let given = |data: &[u8]| -> (Vec<String>, Option<String>) {
        let (items, error) = read_all(data);
        (
            items.iter().map(|at| format!("{at:?}")).collect(),
            error.map(|e| format!("{e:?}")),
        )
    };
    let mut compared = 0;
    for (path, _) in files(&shared) {
        let data = std::fs::read(&path).unwrap();
        if TeehistorianSlice::parse(&data).is_err() {
            continue;
        }
        let body = TeehistorianSlice::parse(&data).unwrap().body_offset();
        for cut in [
            data.len(),
            data.len() - 1,
            (body + data.len()) / 2,
            body + 3,
        ] {
            let (items, error) = given(&data[..cut]);
            assert_eq!(
                lent(&data[..cut]),
                (items.clone(), error),
                "{}",
                path.display()
            );
            compared += items.len();
        }
    }
    assert!(compared > 1000, "{compared} messages compared");
}

/// Checks the cut of `data` at `cut` against the messages of the whole file.
fn check_cut(data: &[u8], full: &[MessageAt<'_>], body_offset: usize, cut: usize) {
    let part = &data[..cut];
    let (items, err) = read_all(part);
    if cut == data.len() {
        assert!(err.is_none());
        assert_eq!(items.len(), full.len());
        return;
    }
    let complete = full
        .iter()
        .take_while(|m| m.offset as usize + m.raw.len() <= cut)
        .count();
    assert_eq!(items.len(), complete, "cut at {cut}");
    assert_eq!(&items[..], &full[..complete], "cut at {cut}");
    let boundary = full[..complete]
        .last()
        .map_or(body_offset, |m| m.offset as usize + m.raw.len());
    if cut >= body_offset && cut == boundary {
        // An unfinished file: it reads to its end.
        assert!(err.is_none(), "cut at {cut}: {err:?}");
        return;
    }
    let err = err.unwrap_or_else(|| panic!("cut at {cut}: no error"));
    assert!(err.is_truncation(), "cut at {cut}: {err}");
    let expected_offset = if cut < 16 {
        0
    } else if cut < body_offset {
        16
    } else {
        full.get(complete).map_or(data.len(), |m| m.offset as usize)
    };
    assert_eq!(err.offset as usize, expected_offset, "cut at {cut}");
    if let ReadErrorKind::UnexpectedEnd { available, .. } = err.kind {
        assert_eq!(available as usize, cut - expected_offset, "cut at {cut}");
    }
}

#[test]
fn cut_at_every_offset_gives_complete_messages_then_truncation() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let reference = std::fs::read(reference_path(&shared)).unwrap();
    let real =
        std::fs::read(shared.join("real-fixtures/teehistorian/v2_ddnet201_dm1.teehistorian"))
            .unwrap();
    for data in [&reference, &real] {
        let (full, err) = read_all(data);
        assert!(err.is_none());
        let body_offset = TeehistorianSlice::parse(data).unwrap().body_offset();
        // Every offset of the reference; every offset of the real file's body and a
        // stride through its header (which is one element: the NUL comes last).
        let offsets: Vec<usize> = if data.len() < 5000 {
            (0..=data.len()).collect()
        } else {
            (0..body_offset)
                .step_by(97)
                .chain(body_offset..=data.len())
                .collect()
        };
        for &cut in &offsets {
            check_cut(data, &full, body_offset, cut);
            // The streaming reader on every 13th cut, fed in small pieces.
            if cut % 13 == 0 {
                let part = &data[..cut];
                assert_stream_agrees(part, Dribble { data: part, n: 5 }, &format!("cut {cut}"));
            }
        }
    }
}

#[test]
fn the_negative_fixture_is_refused() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let data = std::fs::read(shared.join("real-fixtures/negative/kog_dummy_invalid.teehistorian"))
        .unwrap();
    let e = TeehistorianSlice::parse(&data).unwrap_err();
    assert_eq!(e.offset, 0);
    assert!(matches!(e.kind, ReadErrorKind::BadMagic { .. }), "{e}");
    assert!(TeehistorianReader::new(&data[..]).is_err());
}

#[test]
fn streaming_summary_equals_slice_summary() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in files(&shared) {
        let data = std::fs::read(&path).unwrap();
        let (from_slice, e1) = demokit::teehistorian::Summary::scan(&data).unwrap();
        let (from_stream, e2) = demokit::teehistorian::Summary::scan_reader(&data[..]).unwrap();
        assert_eq!(from_stream, from_slice, "{}", path.display());
        assert_eq!(e1.is_none(), e2.is_none());
        // And for a file cut short: both report the same summary and error offset.
        let cut = &data[..data.len() - 5];
        let (a, ea) = demokit::teehistorian::Summary::scan(cut).unwrap();
        let (b, eb) = demokit::teehistorian::Summary::scan_reader(cut).unwrap();
        assert_eq!(a, b);
        assert_eq!(ea.map(|e| e.offset), eb.map(|e| e.offset));
    }
}
