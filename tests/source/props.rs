//! Property tests of the Source demo module, using the public strategies of the `proptest`
//! feature: generated demos of every profile round-trip through both readers and the
//! writer, cut demos give their complete frames then a truncation error, and arbitrary
//! bytes never panic, and whatever the writer accepts reads back as given. Case counts follow PROPTEST_CASES (default 256); failures persist
//! under proptest-regressions/.

use crate::common;

use common::read::Dribble;
use demokit::source::format::{HEADER_SIZE, MAGIC};
use demokit::source::strategies::{self, BodySpec, DemoSpec, FrameSpec};
use demokit::source::{
    Body, FrameAt, Profile, ProfileOrigin, ReadError, ReadErrorKind, SourceReader, SourceSlice,
    SourceWriter, rewrite,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::io::Read;

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/source_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// What a reader yields: the frames, then the error if there was one.
type Items<'a> = (Vec<FrameAt<'a>>, Option<ReadError>);

/// Everything a slice reader yields.
fn slice_items<'a>(slice: &SourceSlice<'a>) -> Items<'a> {
    let mut items = Vec::new();
    for item in slice.frames() {
        match item {
            Ok(item) => items.push(item),
            Err(e) => return (items, Some(e)),
        }
    }
    (items, None)
}

/// Everything the slice reader yields over `data` read with `profile`, or with the
/// detected one when `profile` is `None`.
fn read_slice(data: &[u8], profile: Option<Profile>) -> Items<'_> {
    let slice = match profile {
        Some(p) => SourceSlice::with_profile(data, p),
        None => SourceSlice::parse(data),
    };
    match slice {
        Ok(s) => slice_items(&s),
        Err(e) => (Vec::new(), Some(e)),
    }
}

/// The error's offset and text, for comparing errors of two readers.
fn error_key(e: Option<&ReadError>) -> Option<(u64, String)> {
    e.map(|e| (e.offset, e.to_string()))
}

/// The streaming reader over `source` (with `profile`, or detecting one) yields what a
/// slice reader yielded: the same frames, then an error with the same offset and text.
fn stream_agrees(
    expected: &Items<'_>,
    source: impl Read,
    profile: Option<Profile>,
) -> Result<(), TestCaseError> {
    let reader = match profile {
        Some(p) => SourceReader::with_profile(source, p),
        None => SourceReader::new(source),
    };
    let mut reader = match reader {
        Ok(r) => r,
        Err(e) => {
            prop_assert!(expected.0.is_empty());
            prop_assert_eq!(error_key(Some(&e)), error_key(expected.1.as_ref()));
            return Ok(());
        }
    };
    for want in &expected.0 {
        match reader.next() {
            Some(Ok(got)) => prop_assert_eq!(&got, want),
            other => prop_assert!(false, "stream gave {:?}, slice {:?}", other, want),
        }
    }
    match reader.next() {
        None => prop_assert!(expected.1.is_none(), "slice: {:?}", expected.1),
        Some(Ok(got)) => prop_assert!(false, "stream gave one more frame: {:?}", got),
        Some(Err(e)) => {
            prop_assert_eq!(error_key(Some(&e)), error_key(expected.1.as_ref()));
        }
    }
    prop_assert!(reader.next().is_none());
    Ok(())
}

/// The header of `demo` as bytes.
fn header_bytes(demo: &DemoSpec) -> Vec<u8> {
    SourceWriter::with_profile(Vec::new(), &demo.header, demo.profile)
        .unwrap()
        .finish()
        .unwrap()
}

/// Arbitrary frame bytes: mostly command bytes, small lengths and zeros, so that the
/// readers get past the first frame often.
fn body_bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![3 => any::<u8>(), 2 => 0u8..11, 2 => Just(0u8), 1 => Just(0xffu8)],
        0..600,
    )
}

proptest! {
    #![proptest_config(config())]

    /// A generated demo of any profile: both readers give its header and frames, the
    /// writer gives its bytes back, and the streaming reader agrees with the slice reader
    /// whatever its source delivers per read.
    #[test]
    fn demos_round_trip_through_both_readers(demo in strategies::demo(), n in 1usize..8) {
        let bytes = demo.to_bytes();
        let expected = demo.frames();

        let slice = SourceSlice::with_profile(&bytes, demo.profile).unwrap();
        prop_assert_eq!(slice.header(), &demo.header);
        prop_assert_eq!(slice.profile_origin(), ProfileOrigin::Given);
        let (items, err) = slice_items(&slice);
        prop_assert!(err.is_none(), "{:?}", err);
        let frames: Vec<_> = items.iter().map(|i| i.frame.clone()).collect();
        prop_assert_eq!(&frames, &expected);
        // Offsets and lengths tile the file.
        let mut pos = HEADER_SIZE as u64;
        for item in &items {
            prop_assert_eq!(item.offset, pos);
            pos += item.len as u64;
        }
        prop_assert_eq!(pos, bytes.len() as u64);

        // Written again: the same bytes.
        let mut writer = SourceWriter::with_profile(Vec::new(), slice.header(), *slice.profile()).unwrap();
        for item in &items {
            writer.write_frame(&item.frame).unwrap();
        }
        prop_assert_eq!(&writer.finish().unwrap(), &bytes);

        // The streaming reader, over the whole slice and dribbled.
        let reader = SourceReader::with_profile(&bytes[..], demo.profile).unwrap();
        prop_assert_eq!(reader.header(), &demo.header);
        let whole = (items, None);
        stream_agrees(&whole, &bytes[..], Some(demo.profile))?;
        stream_agrees(&whole, Dribble { data: &bytes, n }, Some(demo.profile))?;

        // A header that settles the profile: detection finds it, and rewrite is exact.
        if Profile::from_header(&demo.header) == (demo.profile, true) {
            let parsed = SourceSlice::parse(&bytes).unwrap();
            prop_assert_eq!(parsed.profile(), &demo.profile);
            prop_assert_eq!(parsed.profile_origin(), ProfileOrigin::Header);
            let stream = SourceReader::new(Dribble { data: &bytes, n }).unwrap();
            prop_assert_eq!(stream.profile(), &demo.profile);
            let mut out = Vec::new();
            prop_assert_eq!(rewrite(&bytes, &mut out).unwrap().1.frames, expected.len() as u64);
            prop_assert_eq!(&out, &bytes);
        }
    }

    /// Headers for the real profiles and the Classic one settle them.
    #[test]
    fn settling_headers_settle(profile in strategies::profile().prop_flat_map(|p| (Just(p), strategies::header_for(p)))) {
        let (p, header) = profile;
        let settles = p == Profile::SOURCE_2013
            || p == Profile::PORTAL2
            || p == Profile::LEFT4DEAD
            || p == Profile { commands: demokit::source::CommandTable::Classic, ..Profile::SOURCE_2013 };
        if settles {
            prop_assert_eq!(Profile::from_header(&header), (p, true));
        }
    }

    /// A generated demo cut anywhere: both readers deliver exactly the frames that end
    /// before the cut, then a truncation error where the first incomplete frame starts; a
    /// cut inside the stop tail reads as a stop with a shorter tail.
    #[test]
    fn cut_demos_give_complete_frames_then_truncation(
        demo in strategies::demo(),
        at in any::<prop::sample::Index>(),
        in_header in proptest::bool::weighted(0.1),
        n in 1usize..8,
    ) {
        let bytes = demo.to_bytes();
        let (full, err) = read_slice(&bytes, Some(demo.profile));
        prop_assert!(err.is_none());
        let stop = full.last().unwrap();
        // Mostly after the header, sometimes inside it.
        let cut = if in_header {
            at.index(HEADER_SIZE)
        } else {
            HEADER_SIZE + at.index(bytes.len() - HEADER_SIZE + 1)
        };
        let data = &bytes[..cut];
        let got = read_slice(data, Some(demo.profile));
        if cut < HEADER_SIZE {
            let e = got.1.as_ref().unwrap();
            prop_assert_eq!(e.offset, 0);
            prop_assert!(got.0.is_empty());
            if cut == 0 {
                let empty_stamp = matches!(&e.kind, ReadErrorKind::BadMagic { found } if found.is_empty());
                prop_assert!(empty_stamp, "{}", e);
            } else {
                prop_assert!(e.is_truncation(), "{}", e);
            }
        } else if cut as u64 > stop.offset {
            // Every frame, the stop with the tail the cut leaves.
            prop_assert!(got.1.is_none(), "{:?}", got.1);
            prop_assert_eq!(&got.0[..got.0.len() - 1], &full[..full.len() - 1]);
            let last = &got.0[got.0.len() - 1];
            prop_assert_eq!(last.offset, stop.offset);
            prop_assert_eq!(last.len, cut - stop.offset as usize);
            let tail_matches = matches!(&last.frame.body, Body::Stop { tail } if **tail == bytes[stop.offset as usize + 1..cut]);
            prop_assert!(tail_matches);
        } else {
            let complete = full.iter().take_while(|f| f.offset as usize + f.len <= cut).count();
            prop_assert_eq!(&got.0[..], &full[..complete]);
            let e = got.1.as_ref().unwrap();
            prop_assert!(e.is_truncation(), "{}", e);
            prop_assert_eq!(e.offset, full[complete].offset);
            let available = matches!(e.kind, ReadErrorKind::UnexpectedEnd { available, .. } if available == cut as u64 - e.offset);
            prop_assert!(available, "{}", e);
        }
        stream_agrees(&got, data, Some(demo.profile))?;
        stream_agrees(&got, Dribble { data, n }, Some(demo.profile))?;
    }

    /// Arbitrary bytes never panic the readers or the profile detection, and both readers
    /// agree on them.
    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..1200),
            // A stamp, so that more inputs reach the header.
            proptest::collection::vec(any::<u8>(), 0..1200).prop_map(|mut b| {
                let n = b.len().min(MAGIC.len());
                b[..n].copy_from_slice(&MAGIC[..n]);
                b
            }),
        ],
        n in 1usize..8,
    ) {
        let slice = read_slice(&bytes, None);
        stream_agrees(&slice, &bytes[..], None)?;
        stream_agrees(&slice, Dribble { data: &bytes, n }, None)?;
        if let Ok(s) = SourceSlice::parse(&bytes) {
            for p in Profile::candidates() {
                let _ = p.probe(s.header(), &bytes);
            }
        }
    }

    /// Frames edited the way a caller gets them wrong (a slot byte the profile lacks or
    /// misses, a stop frame whose tick or slot is not its tail's, frames after the stop):
    /// the writer refuses each such frame and writes nothing for it, and every frame it
    /// accepts reads back exactly, with the same profile.
    #[test]
    fn accepted_frames_read_back_as_given(
        demo in strategies::demo(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..5, any::<i32>()), 0..4),
    ) {
        let mut frames: Vec<FrameSpec> = demo.frames.clone();
        for (at, how, value) in edits {
            let i = at.index(frames.len());
            match how {
                0 => frames[i].slot = match frames[i].slot {
                    Some(_) => None,
                    None => Some(value as u8),
                },
                1 => frames[i].tick = frames[i].tick.wrapping_add(1),
                2 => {
                    let extra = FrameSpec { tick: value, slot: frames[i].slot, body: BodySpec::SyncTick };
                    frames.push(extra);
                }
                3 => {
                    let stop = frames.last().unwrap().clone();
                    frames.insert(i, stop);
                }
                _ => {}
            }
        }
        let mut writer = SourceWriter::with_profile(Vec::new(), &demo.header, demo.profile).unwrap();
        let mut accepted = Vec::new();
        let mut refused = 0;
        for frame in &frames {
            let before = writer.position();
            match writer.write_frame(&frame.frame()) {
                Ok(()) => accepted.push(frame.frame()),
                Err(_) => {
                    refused += 1;
                    prop_assert_eq!(writer.position(), before);
                }
            }
        }
        let bytes = writer.finish().unwrap();
        let (items, err) = read_slice(&bytes, Some(demo.profile));
        let read: Vec<_> = items.iter().map(|i| i.frame.clone()).collect();
        prop_assert_eq!(&read, &accepted);
        let stopped = accepted.last().is_some_and(|f| matches!(f.body, Body::Stop { .. }));
        prop_assert!(err.is_none() || !stopped, "{:?}", err);
        // Unedited demos are written whole.
        if frames == demo.frames {
            prop_assert_eq!(refused, 0);
        }
    }

    /// Arbitrary frame bytes after a valid header, read with every profile and with the
    /// detected one: no panic, the readers agree, and whatever was read writes back to the
    /// bytes it came from.
    #[test]
    fn arbitrary_bodies_never_panic(
        demo in strategies::demo(),
        body in body_bytes(),
        n in 1usize..8,
    ) {
        let mut bytes = header_bytes(&demo);
        bytes.extend_from_slice(&body);
        let header = *SourceSlice::parse(&bytes).unwrap().header();
        let _ = Profile::detect(&header, &bytes);
        let detected = read_slice(&bytes, None);
        stream_agrees(&detected, Dribble { data: &bytes, n }, None)?;
        for profile in Profile::candidates() {
            let got = read_slice(&bytes, Some(profile));
            stream_agrees(&got, &bytes[..], Some(profile))?;
            let mut writer = SourceWriter::with_profile(Vec::new(), &header, profile).unwrap();
            for item in &got.0 {
                writer.write_frame(&item.frame).unwrap();
            }
            let end = got.0.last().map_or(HEADER_SIZE, |i| i.offset as usize + i.len);
            prop_assert_eq!(writer.finish().unwrap(), bytes[..end].to_vec());
            match &got.1 {
                None => prop_assert_eq!(end, bytes.len()),
                Some(e) => prop_assert_eq!(e.offset as usize, end),
            }
        }
    }
}
