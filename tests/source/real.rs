//! The real Source demos in the corpus's `real-fixtures/source` against `facts.json`: header,
//! profile, frame counts, stop tail; byte-identical rewrite; both readers agree; the
//! header/frame invariants that `validate` checks hold.

use crate::common;

use common::read::Dribble;
use demokit::source::summary::{Summary, validate};
use demokit::source::{
    Command, CommandTable, ProfileOrigin, RewriteError, SourceReader, SourceSlice, playback_time,
    rewrite, tick_interval,
};
use demokit::validation::ProblemKind;
use serde_json::Value;
use std::path::PathBuf;

/// The source entries of `facts.json` with their file paths and bytes.
fn real_files() -> Vec<(PathBuf, Value, Vec<u8>)> {
    let Some(shared) = common::shared_dir() else {
        return Vec::new();
    };
    let files: Vec<_> = common::facts_files(&shared, "source")
        .into_iter()
        .map(|(path, f)| {
            let data = std::fs::read(&path).unwrap();
            (path, f, data)
        })
        .collect();
    assert_eq!(files.len(), 4, "facts.json lists the four Source demos");
    files
}

#[test]
fn headers_profiles_and_counts_agree_with_facts() {
    for (path, f, data) in real_files() {
        let name = path.display();
        assert_eq!(data.len() as u64, f["size"].as_u64().unwrap(), "{name}");
        let (s, error) = Summary::scan(&data).unwrap();
        assert!(error.is_none(), "{name}: {error:?}");
        let h = &f["header"];
        assert_eq!(h["stamp"], "HL2DEMO");
        assert_eq!(
            i64::from(s.demo_protocol),
            h["demo_protocol"].as_i64().unwrap()
        );
        assert_eq!(
            i64::from(s.network_protocol),
            h["net_protocol"].as_i64().unwrap()
        );
        assert_eq!(s.server, h["server"].as_str().unwrap(), "{name}");
        assert_eq!(s.client, h["client"].as_str().unwrap(), "{name}");
        assert_eq!(s.map_name, h["map"].as_str().unwrap(), "{name}");
        assert_eq!(s.game_dir, h["game"].as_str().unwrap(), "{name}");
        // The facts print the f32 in decimal; compared as the f32 it names.
        assert_eq!(
            s.playback_time,
            h["time"].as_f64().unwrap() as f32,
            "{name}"
        );
        assert_eq!(i64::from(s.ticks), h["ticks"].as_i64().unwrap(), "{name}");
        assert_eq!(i64::from(s.frames), h["frames"].as_i64().unwrap(), "{name}");
        assert_eq!(i64::from(s.signon_length), h["signonlen"].as_i64().unwrap());
        // Profile: splits and slot byte as found; the header settles all four.
        assert_eq!(
            u64::from(s.view_splits),
            f["splits"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(s.slot_byte, f["slot_byte"].as_bool().unwrap(), "{name}");
        assert_eq!(s.profile_origin, ProfileOrigin::Header, "{name}");
        // facts.json labels the HL2 old-engine file with the protocol-4 table; it holds no
        // command above 7, so both readings agree on every frame. demokit uses the oldest
        // table for network protocol 7, which refuses 8 and 9 there.
        let expected_table = match (s.demo_protocol, s.network_protocol) {
            (4, _) => CommandTable::CustomData8StringTables9,
            (_, 7) => CommandTable::Classic,
            _ => CommandTable::StringTables8,
        };
        assert_eq!(s.command_table, expected_table, "{name}");
        // Every count, and no command the facts do not list.
        let counts = f["counts"].as_object().unwrap();
        for command in Command::ALL {
            let expected = counts
                .get(command.name())
                .and_then(Value::as_u64)
                .unwrap_or(0);
            assert_eq!(s.count(command), expected, "{name}: {}", command.name());
        }
        assert_eq!(
            s.total_frames,
            counts.values().map(|v| v.as_u64().unwrap()).sum::<u64>()
        );
        // The stop command and its tail.
        assert_eq!(s.stop_offset, f["stop_off"].as_u64(), "{name}");
        assert_eq!(
            s.stop_tail_len,
            f["stop_tail_len"].as_u64().map(|n| n as usize)
        );
        assert_eq!(s.stop_tail.as_deref(), f["stop_tail"].as_str(), "{name}");
        assert_eq!(
            s.stop_tick,
            Some(s.ticks),
            "{name}: ticks = the stop's tick"
        );
        // The signon section ends at the first synctick.
        let before_sync = s.first_synctick_offset.unwrap() - 1072;
        assert_eq!(
            before_sync,
            f["bytes_before_first_synctick"].as_u64().unwrap()
        );
        assert_eq!(
            s.last_frame_tick.map(i64::from),
            f["last_tick"].as_i64(),
            "{name}: the last frame's tick before the stop command"
        );
    }
}

#[test]
fn rewrite_is_byte_identical() {
    for (path, _, data) in real_files() {
        let mut out = Vec::new();
        let frames = rewrite(&data, &mut out).unwrap().1.frames;
        assert!(frames > 100, "{}", path.display());
        assert!(out == data, "{}: rewrite differs", path.display());
        // Cut inside the last frames: every frame before the cut is written, and counted.
        let cut = &data[..data.len() - 40];
        let mut out = Vec::new();
        let (stats, error) = rewrite(cut, &mut out).unwrap_err();
        assert!(
            matches!(&error, RewriteError::Read(e) if e.is_truncation()),
            "{}: {error}",
            path.display()
        );
        let whole_frames_before_cut = SourceSlice::parse(&data)
            .unwrap()
            .frames()
            .map(Result::unwrap)
            .take_while(|f| f.offset + f.len as u64 <= cut.len() as u64)
            .count();
        assert_eq!(
            stats.frames,
            whole_frames_before_cut as u64,
            "{}",
            path.display()
        );
        assert!(cut.starts_with(&out), "{}", path.display());
    }
}

/// The streaming reader, fed a few bytes per read, gives the same frames as the slice
/// reader, and the streamed summary equals the one from memory.
#[test]
fn streaming_and_slice_readers_agree() {
    for (path, _, data) in real_files() {
        let slice = SourceSlice::parse(&data).unwrap();
        let mut stream = SourceReader::new(Dribble::new(&data, 4093)).unwrap();
        assert_eq!(stream.header(), slice.header());
        assert_eq!(stream.profile(), slice.profile());
        for (n, expected) in slice.frames().enumerate() {
            let expected = expected.unwrap();
            let got = stream.next().unwrap().unwrap();
            assert_eq!(got, expected, "{} frame {n}", path.display());
        }
        assert!(stream.next().is_none());
        let (from_memory, _) = Summary::scan(&data).unwrap();
        let (streamed, error) = Summary::scan_reader(&data[..]).unwrap();
        assert!(error.is_none());
        assert_eq!(streamed, from_memory, "{}", path.display());
    }
}

/// Every real file passes `validate`, and its header's time is the engine's product of
/// ticks and the game's interval, bit for bit.
#[test]
fn real_files_validate_and_header_invariants_hold() {
    for (path, _, data) in real_files() {
        let report = validate(&data);
        assert!(
            report.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            report
        );
        let slice = SourceSlice::parse(&data).unwrap();
        let h = slice.header();
        let (interval, known) = tick_interval(&h.game_dir.to_string_lossy());
        assert!(known);
        assert_eq!(
            playback_time(h.ticks, interval).to_bits(),
            h.playback_time.to_bits()
        );
    }
}

/// `validate` names each header field that disagrees with the frames.
#[test]
fn validate_names_broken_header_fields() {
    for (path, _, data) in real_files() {
        let mut broken = data.clone();
        broken[1056..1072].fill(0);
        let report = validate(&broken);
        assert!(!report.accepted(), "{}", path.display());
        let fatal: Vec<(u64, ProblemKind)> = report
            .problems
            .iter()
            .filter(|p| p.fatal)
            .map(|p| (p.offset, p.kind))
            .collect();
        // signon_length, frames, ticks; playback_time follows ticks (0 x interval = 0).
        assert_eq!(
            fatal,
            [
                (1068, ProblemKind::SignonLength),
                (1064, ProblemKind::FrameCount),
                (1060, ProblemKind::TickCount)
            ],
            "{}: {report:?}",
            path.display()
        );
        // Cut inside the last frames: the missing stop is fatal, at the cut frame.
        let cut = &data[..data.len() - 40];
        let report = validate(cut);
        let first = report.first_fatal().unwrap();
        assert!(first.message.contains("expected"), "{first:?}");
        assert_eq!(first.kind, ProblemKind::Truncated, "{first:?}");
    }
}

/// Where the header cannot tell the profile (a game directory no rule knows, demo protocol
/// 2), the first frames decide it, and the summary says so.
#[test]
fn profile_is_detected_when_the_header_cannot_tell() {
    for (path, _, data) in real_files() {
        let name = path.display();
        let (original, _) = Summary::scan(&data).unwrap();
        let original_profile = *SourceSlice::parse(&data).unwrap().profile();
        // An unknown game directory: for demo protocol 4 the split count is open.
        let mut renamed = data.clone();
        renamed[796..1056].fill(0);
        renamed[796..806].copy_from_slice(b"unknownmod");
        let slice = SourceSlice::parse(&renamed).unwrap();
        assert_eq!(*slice.profile(), original_profile, "{name}");
        let (s, error) = Summary::scan(&renamed).unwrap();
        assert!(error.is_none(), "{name}: {error:?}");
        assert_eq!(s.counts, original.counts, "{name}");
        if original.demo_protocol == 4 {
            // Left 4 Dead's four splits are found from the frames; Portal 2's two are the
            // header's guess and fit best.
            let expected = if original.view_splits == 4 {
                ProfileOrigin::Detected
            } else {
                ProfileOrigin::Guessed
            };
            assert_eq!(s.profile_origin, expected, "{name}");
        } else {
            assert_eq!(s.profile_origin, ProfileOrigin::Header, "{name}");
        }
        // Demo protocol 2 (no sample exists): detected, and the same frames come out.
        let mut old = data.clone();
        old[8..12].copy_from_slice(&2i32.to_le_bytes());
        let (s, error) = Summary::scan(&old).unwrap();
        assert!(error.is_none(), "{name}: {error:?}");
        assert_eq!(s.counts, original.counts, "{name}");
        assert_ne!(s.profile_origin, ProfileOrigin::Header, "{name}");
    }
}

/// Every real Source demo the tests have, of the branches whose messages demokit refuses
/// too (Portal: Revolution), rewrites to the same bytes and validates (unfinished ones
/// aside: `portal1_5135_hltv_server.dem` was never finished, and validate says so).
#[test]
fn every_demo_of_every_branch_rewrites_to_its_bytes() {
    let demos = common::all_source_demos();
    assert!(
        demos.len() > common::source_demos().len(),
        "a refused branch is among them"
    );
    for path in demos {
        let data = std::fs::read(&path).unwrap();
        let mut out = Vec::new();
        let rewritten = rewrite(&data, &mut out);
        if path
            .file_name()
            .is_some_and(|n| n == "portal1_5135_hltv_server.dem")
        {
            assert!(rewritten.is_err(), "{}", path.display());
            continue;
        }
        rewritten.unwrap_or_else(|e| panic!("{}: {}", path.display(), e.1));
        assert!(out == data, "{}: rewrite differs", path.display());
        assert!(
            demokit::source::validate(&data[..]).accepted(),
            "{}",
            path.display()
        );
    }
}
