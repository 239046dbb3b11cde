//! Bad Source demo input: other formats' stamps, short headers, unknown command bytes,
//! negative lengths, lengths larger than the file, files without a stop command, and the
//! real files of the corpus's `real-fixtures/source` cut at many offsets. Each gives a typed
//! error with its offset, after every frame before it, from both readers alike, with no
//! panic and no allocation sized by a length field.

use crate::common;

use common::alloc::largest_allocation;

use common::read::Dribble;
use demokit::source::format::HEADER_SIZE;
use demokit::source::writer::encode_frame;
use demokit::source::{
    Body, CommandTable, Frame, Header, PacketBody, Profile, ReadError, ReadErrorKind, SourceReader,
    SourceSlice, SourceWriter,
};
use std::io::Read;
use std::path::PathBuf;

/// What a reader delivered: each frame's offset, length and stop tail (if it is a stop),
/// then the error.
#[derive(Debug)]
struct Outcome {
    frames: Vec<(u64, usize, Option<Vec<u8>>)>,
    error: Option<ReadError>,
    /// The largest single allocation while reading.
    largest: usize,
}

fn entry(offset: u64, len: usize, frame: &Frame<'_>) -> (u64, usize, Option<Vec<u8>>) {
    let tail = match &frame.body {
        Body::Stop { tail } => Some(tail.to_vec()),
        _ => None,
    };
    (offset, len, tail)
}

/// The slice reader over `data` (detecting the profile).
fn read_slice(data: &[u8]) -> Outcome {
    let ((frames, error), largest) = largest_allocation(|| {
        let slice = match SourceSlice::parse(data) {
            Ok(s) => s,
            Err(e) => return (Vec::new(), Some(e)),
        };
        let mut frames = Vec::new();
        for item in slice.frames() {
            match item {
                // Only the offsets are kept (in a vector that grows with the frame count).
                Ok(item) => frames.push((item.offset, item.len, None)),
                Err(e) => return (frames, Some(e)),
            }
        }
        (frames, None)
    });
    let mut out = Outcome {
        frames,
        error,
        largest,
    };
    // The stop tail, looked at outside the measurement.
    if let Ok(slice) = SourceSlice::parse(data)
        && let Some(Ok(stop)) = slice.frames().last()
    {
        let last = out.frames.len() - 1;
        out.frames[last] = entry(stop.offset, stop.len, &stop.frame);
    }
    out
}

/// The streaming reader over `source` (detecting the profile).
fn read_stream(source: impl Read) -> Outcome {
    let ((frames, error), largest) = largest_allocation(|| {
        let mut reader = match SourceReader::new(source) {
            Ok(r) => r,
            Err(e) => return (Vec::new(), Some(e)),
        };
        let mut frames = Vec::new();
        loop {
            match reader.next() {
                None => return (frames, None),
                Some(Ok(item)) => frames.push(entry(item.offset, item.len, &item.frame)),
                Some(Err(e)) => return (frames, Some(e)),
            }
        }
    });
    Outcome {
        frames,
        error,
        largest,
    }
}

/// Both readers over `data` (the streaming one over the bytes and, for small inputs,
/// dribbled in 7-byte reads), checked to agree; returns the slice reader's outcome.
fn read_both(data: &[u8]) -> Outcome {
    let slice = read_slice(data);
    let mut streams = vec![read_stream(data)];
    if data.len() < 1 << 16 {
        streams.push(read_stream(Dribble { data, n: 7 }));
    }
    for stream in streams {
        assert_eq!(slice.frames, stream.frames);
        let key = |e: &Option<ReadError>| e.as_ref().map(|e| (e.offset, e.to_string()));
        assert_eq!(key(&slice.error), key(&stream.error));
    }
    slice
}

/// The error of `outcome`, which must have one.
fn error(outcome: &Outcome) -> &ReadError {
    outcome.error.as_ref().expect("an error")
}

/// `header` and `frames` laid out by `profile`.
fn file(header: &Header, profile: Profile, frames: &[Frame<'_>]) -> Vec<u8> {
    let mut w = SourceWriter::with_profile(Vec::new(), header, profile).unwrap();
    for frame in frames {
        w.write_frame(frame).unwrap();
    }
    w.finish().unwrap()
}

/// A header that settles on `profile` (one of the three real ones or the Classic one).
fn header_for(profile: Profile) -> Header {
    if profile == Profile::LEFT4DEAD {
        Header::new(4, 2027, "localhost:27015", "me", "c3m3", "left4dead2")
    } else if profile == Profile::PORTAL2 {
        Header::new(4, 2001, "localhost:27015", "me", "sp_a2", "portal2")
    } else if profile.commands == CommandTable::Classic {
        Header::new(3, 7, "localhost:0", "me", "d1_canals_11", "hl2oe")
    } else {
        Header::new(3, 24, "localhost:27015", "me", "cp_foo", "tf")
    }
}

const CLASSIC: Profile = Profile {
    commands: CommandTable::Classic,
    ..Profile::SOURCE_2013
};

const PROFILES: [Profile; 4] = [
    Profile::SOURCE_2013,
    CLASSIC,
    Profile::PORTAL2,
    Profile::LEFT4DEAD,
];

fn sync(tick: i32, profile: Profile) -> Frame<'static> {
    Frame {
        tick,
        slot: profile.slot_byte.then_some(0),
        body: Body::SyncTick,
    }
}

/// A file of `profile` with a synctick, then `tail` as raw bytes.
fn sync_then(profile: Profile, tail: &[u8]) -> (Vec<u8>, u64) {
    let mut data = file(&header_for(profile), profile, &[sync(0, profile)]);
    let at = data.len() as u64;
    data.extend_from_slice(tail);
    (data, at)
}

#[test]
fn other_formats_and_broken_stamps() {
    let empty = read_both(b"");
    assert!(empty.frames.is_empty());
    let e = error(&empty);
    assert_eq!(e.offset, 0);
    assert!(
        matches!(&e.kind, ReadErrorKind::BadMagic { found } if found.is_empty()),
        "{e}"
    );

    let mut wrong = b"HL2DEMX\0".to_vec();
    wrong.resize(4096, 0);
    let e = read_both(&wrong).error.unwrap();
    assert_eq!(e.offset, 0);
    assert!(
        matches!(&e.kind, ReadErrorKind::BadMagic { found } if found == b"HL2DEMX\0"),
        "{e}"
    );
    let e = read_both(b"TWDEMO").error.unwrap();
    assert!(
        matches!(&e.kind, ReadErrorKind::BadMagic { found } if found == b"TWDEMO"),
        "{e}"
    );

    let mut goldsrc = b"HLDEMO\0\0".to_vec();
    goldsrc.resize(2048, 0);
    let e = read_both(&goldsrc).error.unwrap();
    assert_eq!(e.offset, 0);
    assert!(matches!(e.kind, ReadErrorKind::GoldSrc), "{e}");

    let mut source2 = b"PBDEMS2\0".to_vec();
    source2.extend_from_slice(&[0x12, 0x34, 0, 0, 0x56, 0, 0, 0]);
    let e = read_both(&source2).error.unwrap();
    assert_eq!(e.offset, 0);
    assert!(matches!(e.kind, ReadErrorKind::Source2), "{e}");
}

#[test]
fn the_real_goldsrc_demo_is_named() {
    let Some(dir) = real_fixtures() else { return };
    let data = std::fs::read(dir.join("negative/goldsrc_hldemo_basic.dem")).unwrap();
    assert!(data.starts_with(b"HLDEMO\0\0"));
    let e = read_both(&data).error.unwrap();
    assert_eq!(e.offset, 0);
    assert!(matches!(e.kind, ReadErrorKind::GoldSrc), "{e}");
    assert!(e.to_string().contains("GoldSrc"), "{e}");
}

#[test]
fn short_headers_are_truncations_at_zero() {
    let full = file(&header_for(Profile::SOURCE_2013), Profile::SOURCE_2013, &[]);
    assert_eq!(full.len(), HEADER_SIZE);
    for cut in [1, 3, 7, 8, 100, 1056, HEADER_SIZE - 1] {
        let out = read_both(&full[..cut]);
        assert!(out.frames.is_empty());
        let e = error(&out);
        assert_eq!(e.offset, 0);
        assert!(
            matches!(e.kind, ReadErrorKind::UnexpectedEnd { available, .. } if available == cut as u64),
            "cut at {cut}: {e}"
        );
    }
    // The header alone: no frame, the end of the file where the first one should be.
    let out = read_both(&full);
    assert!(out.frames.is_empty());
    let e = error(&out);
    assert_eq!(e.offset, HEADER_SIZE as u64);
    assert!(
        matches!(e.kind, ReadErrorKind::UnexpectedEnd { available: 0, .. }),
        "{e}"
    );
}

#[test]
fn unknown_command_bytes() {
    let cases: [(Profile, &[u8]); 4] = [
        (CLASSIC, &[0, 8, 9, 10, 11, 0xff]),
        (Profile::SOURCE_2013, &[0, 9, 10, 0xff]),
        (Profile::PORTAL2, &[0, 10, 0x80]),
        (Profile::LEFT4DEAD, &[0, 10, 0xff]),
    ];
    for (profile, bytes) in cases {
        for &byte in bytes {
            let (data, at) = sync_then(profile, &[byte, 0, 0, 0, 0, 0, 0, 0, 0]);
            let out = read_both(&data);
            assert_eq!(out.frames.len(), 1);
            let e = error(&out);
            assert_eq!(e.offset, at);
            assert!(
                matches!(e.kind, ReadErrorKind::UnknownCommand { command, table }
                    if command == byte && table == profile.commands),
                "{profile:?} {byte}: {e}"
            );
        }
    }
}

/// For every length-prefixed command of `profile`: a frame of it with an empty payload and
/// what its length field is called in errors. The length field is the frame's last 4 bytes.
fn length_frames(profile: Profile) -> Vec<(Vec<u8>, &'static str)> {
    let view = vec![0u8; usize::from(profile.view_splits) * 76];
    let packet = PacketBody {
        view: &view,
        seq_in: 1,
        seq_out: 2,
        data: &[],
    };
    let slot = profile.slot_byte.then_some(0);
    let bodies = [
        (Body::Signon(packet), "the packet data"),
        (Body::Packet(packet), "the packet data"),
        (Body::ConsoleCmd(&[]), "the console command"),
        (
            Body::UserCmd {
                sequence: 3,
                data: &[],
            },
            "the user command",
        ),
        (Body::DataTables(&[]), "the data tables"),
        (Body::StringTables(&[]), "the string tables"),
        (
            Body::CustomData {
                callback: -1,
                data: &[],
            },
            "the custom data",
        ),
    ];
    let mut out = Vec::new();
    for (body, what) in bodies {
        let frame = Frame {
            tick: 7,
            slot,
            body,
        };
        let mut bytes = Vec::new();
        if encode_frame(&profile, &frame, &mut bytes).is_ok() {
            out.push((bytes, what));
        }
    }
    out
}

#[test]
fn negative_lengths() {
    for profile in PROFILES {
        let frames = length_frames(profile);
        assert_eq!(
            frames.len(),
            if profile.commands == CommandTable::Classic {
                5
            } else if profile.commands == CommandTable::StringTables8 {
                6
            } else {
                7
            }
        );
        for (frame, field) in frames {
            for value in [-1, i32::MIN] {
                let mut frame = frame.clone();
                let n = frame.len();
                frame[n - 4..].copy_from_slice(&value.to_le_bytes());
                frame.extend_from_slice(&[0; 64]);
                let (data, at) = sync_then(profile, &frame);
                let out = read_both(&data);
                assert_eq!(out.frames.len(), 1);
                let e = error(&out);
                assert_eq!(e.offset, at);
                assert!(
                    matches!(e.kind, ReadErrorKind::NegativeLength { what, value: v }
                        if what == field && v == value),
                    "{profile:?} {field}: {e}"
                );
            }
        }
    }
}

/// A length up to [`MAX_PAYLOAD_LEN`] past the end of the file is a truncation; one beyond
/// it is refused at once. Neither allocates by the length.
#[test]
fn huge_lengths_are_truncations_without_big_allocations() {
    use demokit::source::reader::MAX_PAYLOAD_LEN;
    for profile in PROFILES {
        for (frame, field) in length_frames(profile) {
            // Past the cap, the length is refused where it stands.
            {
                let mut frame = frame.clone();
                let n = frame.len();
                let over = MAX_PAYLOAD_LEN as i32 + 1;
                for length in [over, i32::MAX] {
                    frame[n - 4..n].copy_from_slice(&length.to_le_bytes());
                    frame.resize(n + 3000, 0x55);
                    let (data, at) = sync_then(profile, &frame);
                    for out in [&read_slice(&data), &read_stream(&data[..])] {
                        assert_eq!(out.frames.len(), 1);
                        let e = error(out);
                        assert_eq!(e.offset, at);
                        assert!(
                            matches!(e.kind, ReadErrorKind::PayloadTooLong { what, length: l }
                                if what == field && l == length),
                            "{profile:?} {field}: {e}"
                        );
                    }
                }
            }
            // The largest length allowed, with a little (or a megabyte of) data after it.
            for after in [3000, 200_000, 1 << 20] {
                let mut frame = frame.clone();
                let n = frame.len();
                frame[n - 4..].copy_from_slice(&(MAX_PAYLOAD_LEN as i32).to_le_bytes());
                frame.resize(n + after, 0x55);
                let (data, at) = sync_then(profile, &frame);
                let slice = read_slice(&data);
                let stream = read_stream(&data[..]);
                let dribble = read_stream(Dribble { data: &data, n: 5 });
                for out in [&slice, &stream, &dribble] {
                    assert_eq!(out.frames.len(), 1);
                    let e = error(out);
                    assert_eq!(e.offset, at);
                    assert!(e.is_truncation(), "{e}");
                    assert!(
                        matches!(e.kind, ReadErrorKind::UnexpectedEnd { expected, available }
                            if expected == field && available == data.len() as u64 - at),
                        "{profile:?} {field}: {e}"
                    );
                }
                // Nothing is allocated by the length field. The slice reader allocates
                // nothing but the test's list of frames: its largest single allocation
                // stays far below the input size.
                assert!(
                    slice.largest < data.len() / 16,
                    "{profile:?} {field}: the slice reader allocated {} for {} bytes",
                    slice.largest,
                    data.len()
                );
                // The streaming reader holds the unread input, the frame cut short being
                // all of it; its buffer grows by doubling as bytes arrive, so one
                // allocation may reach twice the bytes it has received, never 2 GiB.
                for (reader, out) in [("stream", &stream), ("dribble", &dribble)] {
                    assert!(
                        out.largest < 2 * data.len(),
                        "{profile:?} {field}: the {reader} reader allocated {} for {} bytes",
                        out.largest,
                        data.len()
                    );
                }
                eprintln!(
                    "{} bytes: slice {}, stream {}, dribble {}",
                    data.len(),
                    slice.largest,
                    stream.largest,
                    dribble.largest
                );
            }
        }
    }
}

#[test]
fn files_without_stop_end_in_a_truncation_after_every_frame() {
    for profile in PROFILES {
        let console = Frame {
            tick: -3,
            slot: profile.slot_byte.then_some(1),
            body: Body::ConsoleCmd(b"+forward\0"),
        };
        let frames = [sync(0, profile), console.clone(), sync(5, profile), console];
        let data = file(&header_for(profile), profile, &frames);
        let out = read_both(&data);
        assert_eq!(out.frames.len(), 4);
        let e = error(&out);
        assert_eq!(e.offset, data.len() as u64);
        assert!(
            matches!(e.kind, ReadErrorKind::UnexpectedEnd { available: 0, expected }
                if expected.contains("dem_stop")),
            "{e}"
        );
        // With the stop command: no error, and the stop is the last frame.
        let mut data = data;
        let stop = Frame::stop(9, &profile);
        encode_frame(&profile, &stop, &mut data).unwrap();
        let out = read_both(&data);
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(out.frames.len(), 5);
        let tail = out.frames[4].2.as_deref().unwrap();
        assert_eq!(tail.len(), 4 + usize::from(profile.slot_byte));
    }
}

/// the corpus's `real-fixtures`, or `None` (see [`common::shared_dir`]).
fn real_fixtures() -> Option<PathBuf> {
    Some(common::shared_dir()?.join("real-fixtures"))
}

/// The real Source demos, sorted by name.
fn real_source_files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join("source"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dem"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// `data` cut at `cut`: every frame that ends before the cut (the stop with a shorter tail
/// when the cut is inside it), then a truncation error where the cut frame starts, from
/// both readers. `full` is what the whole file gave.
fn check_cut(name: &str, data: &[u8], full: &Outcome, cut: usize) {
    let out = read_both(&data[..cut]);
    let (stop_offset, _, _) = *full.frames.last().unwrap();
    if cut as u64 > stop_offset {
        assert!(out.error.is_none(), "{name} cut at {cut}: {:?}", out.error);
        let n = full.frames.len();
        assert_eq!(
            out.frames[..n - 1],
            full.frames[..n - 1],
            "{name} cut at {cut}"
        );
        let (offset, len, tail) = &out.frames[n - 1];
        assert_eq!((*offset, *len), (stop_offset, cut - stop_offset as usize));
        assert_eq!(tail.as_deref(), Some(&data[stop_offset as usize + 1..cut]));
        return;
    }
    let complete = full
        .frames
        .iter()
        .take_while(|(offset, len, _)| *offset as usize + len <= cut)
        .count();
    assert_eq!(out.frames, full.frames[..complete], "{name} cut at {cut}");
    let e = error(&out);
    let at = full.frames[complete].0;
    assert_eq!(e.offset, at, "{name} cut at {cut}: {e}");
    assert!(
        matches!(e.kind, ReadErrorKind::UnexpectedEnd { available, .. } if available == cut as u64 - at),
        "{name} cut at {cut}: {e}"
    );
}

#[test]
fn real_files_cut_anywhere_give_complete_frames_then_truncation() {
    let Some(dir) = real_fixtures() else { return };
    let files = real_source_files(&dir);
    assert_eq!(files.len(), 4, "the four real Source demos");
    for (name, data) in &files {
        let full = read_both(data);
        assert!(full.error.is_none(), "{name}: {:?}", full.error);
        let (stop_offset, stop_len, _) = *full.frames.last().unwrap();
        assert_eq!(stop_offset as usize + stop_len, data.len());
        // About 200 cuts spread over the file (and the last few bytes), then every byte of
        // the first 2 KB after the header.
        let step = (data.len() - HEADER_SIZE) / 200;
        let spread = (0..200).map(|i| HEADER_SIZE + i * step + i % 7);
        let end = (data.len() - 8)..data.len();
        let start = HEADER_SIZE..HEADER_SIZE + 2048;
        for cut in spread.chain(end).chain(start) {
            check_cut(name, data, &full, cut);
        }
    }
}

/// An unsettled header (demo protocol 4, an unknown game) and a first frame larger than the
/// streaming reader's first read: the slice reader detects the one-split layout from the
/// whole file; the streaming reader must read on until detection can decide (it once fell
/// back to the header's guess, Portal 2's layout, and stopped with an unknown command at
/// byte 1242) and agree with it frame for frame.
#[test]
fn both_readers_detect_the_same_profile_past_the_first_read() {
    let profile = Profile::SOURCE_2013;
    let mut header = Header::new(4, 1, "", "", "", "mod");
    let view = [0u8; 76];
    let data = vec![0u8; 140_000];
    let signon = Frame {
        tick: 0,
        slot: None,
        body: Body::Signon(PacketBody {
            view: &view,
            seq_in: 0,
            seq_out: 0,
            data: &data,
        }),
    };
    header.signon_length = (5 + 76 + 12 + data.len()) as i32;
    let bytes = file(
        &header,
        profile,
        &[signon, sync(0, profile), Frame::stop(1, &profile)],
    );
    let slice = SourceSlice::parse(&bytes).unwrap();
    let stream = SourceReader::new(&bytes[..]).unwrap();
    assert_eq!(slice.profile().view_splits, 1);
    assert_eq!(stream.profile(), slice.profile());
    let out = read_both(&bytes);
    assert_eq!(out.frames.len(), 3);
    assert!(out.error.is_none());
}
