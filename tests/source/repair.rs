//! `source::repair` on the four real Source demos: intact files come back unchanged, zeroed
//! headers are restored bit for bit, and files cut anywhere become files that read to their
//! stop command with a header that agrees with their frames.

use crate::common;

use demokit::source::format::{HEADER_SIZE, PLAYBACK_TIME_OFFSET};
use demokit::source::repair::{IntervalSource, RepairError, RepairOptions};
use demokit::source::{Body, Command, SourceSlice, playback_time, stop_tick, tick_interval};
use std::path::PathBuf;

/// The real Source demos, or `None` (see [`common::shared_dir`]).
fn real_dir() -> Option<PathBuf> {
    Some(common::shared_dir()?.join("real-fixtures/source"))
}

/// Every `.dem` file of the real fixtures, by name, in name order.
fn real_files() -> Option<Vec<(String, Vec<u8>)>> {
    let dir = real_dir()?;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dem"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .dem files in {}", dir.display());
    Some(files)
}

/// One frame as the slice reader cut it.
#[derive(Debug, Clone)]
struct Info {
    offset: usize,
    len: usize,
    command: Command,
    tick: i32,
    /// The stop command's tail.
    tail: Option<Vec<u8>>,
}

impl Info {
    fn end(&self) -> usize {
        self.offset + self.len
    }
}

/// The frames of `data` up to the stop command or the first error (returned with them).
fn read(data: &[u8]) -> (Vec<Info>, Option<String>) {
    let slice = SourceSlice::parse(data).unwrap();
    let mut frames = Vec::new();
    for item in slice.frames() {
        match item {
            Ok(at) => frames.push(Info {
                offset: at.offset as usize,
                len: at.len,
                command: at.frame.command(),
                tick: at.frame.tick,
                tail: match &at.frame.body {
                    Body::Stop { tail } => Some(tail.to_vec()),
                    _ => None,
                },
            }),
            Err(e) => return (frames, Some(e.to_string())),
        }
    }
    (frames, None)
}

/// The largest tick among the frames after the first synctick (the stop excluded), or 0.
fn max_tick_after_synctick(frames: &[Info]) -> i32 {
    let Some(sync) = frames.iter().position(|f| f.command == Command::SyncTick) else {
        return 0;
    };
    frames[sync + 1..]
        .iter()
        .filter(|f| f.command != Command::Stop)
        .map(|f| f.tick)
        .max()
        .unwrap_or(0)
}

/// The four repaired header fields as stored.
fn fields(data: &[u8]) -> (f32, i32, i32, i32) {
    let h = SourceSlice::parse(data).unwrap();
    let h = h.header();
    (h.playback_time, h.ticks, h.frames, h.signon_length)
}

/// Checks that `out` reads to its stop command with no error and that its header agrees
/// with its frames; returns its frames.
fn check_invariants(out: &[u8], interval: f32, what: &str) -> Vec<Info> {
    let (frames, error) = read(out);
    assert_eq!(error, None, "{what}: the output does not read to its end");
    let stop = frames.last().expect("at least the stop frame");
    assert_eq!(
        stop.command,
        Command::Stop,
        "{what}: last frame is not a stop"
    );
    assert_eq!(stop.end(), out.len(), "{what}");
    let (time, ticks, count, signon) = fields(out);
    let packets = frames
        .iter()
        .filter(|f| f.command == Command::Packet)
        .count();
    assert_eq!(count as usize, packets, "{what}: frames");
    match frames.iter().find(|f| f.command == Command::SyncTick) {
        Some(sync) => assert_eq!(signon as usize, sync.offset - HEADER_SIZE, "{what}"),
        None => {
            let data_bytes = stop.offset - HEADER_SIZE;
            assert!(
                (0..=data_bytes as i64).contains(&i64::from(signon)),
                "{what}: signon_length {signon} outside the {data_bytes} bytes kept"
            );
        }
    }
    // A stop tail of fewer than 3 bytes holds no tick; the stop-tail test covers that case.
    if let Some(tick) = stop_tick(stop.tail.as_deref().unwrap()) {
        assert_eq!(ticks, tick, "{what}: ticks");
    }
    assert_eq!(
        time.to_bits(),
        playback_time(ticks, interval).to_bits(),
        "{what}: playback_time"
    );
    frames
}

/// The game directory's tick interval (all real files are of known games).
fn interval_of(data: &[u8]) -> f32 {
    let slice = SourceSlice::parse(data).unwrap();
    let (interval, known) = tick_interval(&slice.header().game_dir.to_string_lossy());
    assert!(known);
    interval
}

#[test]
fn intact_files_repair_to_themselves() {
    let Some(files) = real_files() else { return };
    for (name, data) in &files {
        let repaired = common::source_repair(data, &RepairOptions::default()).unwrap();
        assert!(repaired.bytes == *data, "{name}: bytes differ");
        let report = &repaired.report;
        assert!(report.is_unchanged(), "{name}: {report:?}");
        assert_eq!(report.changes, []);
        assert_eq!(report.read_error, None, "{name}");
        assert_eq!(report.frames_kept as usize, read(data).0.len(), "{name}");
        assert_eq!(report.interval_source, IntervalSource::GameDir, "{name}");
        assert_eq!(report.interval.to_bits(), interval_of(data).to_bits());
    }
}

#[test]
fn zeroed_headers_are_restored() {
    let Some(files) = real_files() else { return };
    for (name, data) in &files {
        let (time, ticks, frames, signon) = fields(data);
        let mut zeroed = data.clone();
        zeroed[PLAYBACK_TIME_OFFSET..HEADER_SIZE].fill(0);
        assert_eq!(PLAYBACK_TIME_OFFSET + 16, HEADER_SIZE);
        let repaired = common::source_repair(&zeroed, &RepairOptions::default()).unwrap();
        assert!(
            repaired.bytes == *data,
            "{name}: not restored byte for byte"
        );
        let report = &repaired.report;
        assert!(!report.is_unchanged());
        assert!(!report.stop_appended && report.bytes_dropped == 0, "{name}");
        let changes: Vec<_> = report
            .changes
            .iter()
            .map(|c| (c.field, c.old.as_str(), c.new.clone()))
            .collect();
        assert_eq!(
            changes,
            [
                ("playback_time", "0", time.to_string()),
                ("ticks", "0", ticks.to_string()),
                ("frames", "0", frames.to_string()),
                ("signon_length", "0", signon.to_string()),
            ],
            "{name}"
        );
    }
}

/// Where to cut `data`: before and at the header's end, spread over the file, around the
/// first frames and frame boundaries (the first synctick's included), and inside the stop
/// command.
fn cuts(data: &[u8], frames: &[Info]) -> Vec<usize> {
    let len = data.len();
    let mut cuts = vec![0, 1, 7, 8, 100, HEADER_SIZE - 1];
    cuts.extend((0..40).map(|i| HEADER_SIZE + (len - HEADER_SIZE) * i / 40 + 17 * i));
    let first = &frames[0];
    cuts.extend([first.offset + 1, first.offset + 5, first.end() - 1]);
    let sync = frames
        .iter()
        .position(|f| f.command == Command::SyncTick)
        .unwrap();
    let picks = [1, 2, sync - 1, sync, sync + 1, sync + 2, frames.len() / 2];
    for &i in &picks {
        let f = &frames[i];
        cuts.extend([f.offset - 1, f.offset, f.offset + 1]);
    }
    let stop = frames.last().unwrap();
    cuts.extend(stop.offset - 1..=len);
    cuts.retain(|&c| c <= len);
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

#[test]
fn cut_files_become_readable() {
    let Some(files) = real_files() else { return };
    for (name, data) in &files {
        let (frames, _) = read(data);
        let interval = interval_of(data);
        let slot_byte = SourceSlice::parse(data).unwrap().profile().slot_byte;
        let stop_offset = frames.last().unwrap().offset;
        for cut in cuts(data, &frames) {
            let what = format!("{name} cut at {cut}");
            let input = &data[..cut];
            if cut < HEADER_SIZE {
                assert!(
                    matches!(
                        common::source_repair(input, &RepairOptions::default()),
                        Err(RepairError::Header(_))
                    ),
                    "{what}"
                );
                continue;
            }
            let repaired = common::source_repair(input, &RepairOptions::default()).unwrap();
            let out = &repaired.bytes;
            let report = &repaired.report;
            let out_frames = check_invariants(out, interval, &what);

            // The input's complete frames come first, unchanged, and only the header's
            // four counts differ.
            let kept: Vec<_> = frames.iter().filter(|f| f.end() <= cut).collect();
            let kept_end = kept.last().map_or(HEADER_SIZE, |f| f.end());
            let had_stop = cut > stop_offset;
            // Slices compared with `==`: a failing `assert_eq!` would print megabytes.
            assert!(
                out[..PLAYBACK_TIME_OFFSET] == input[..PLAYBACK_TIME_OFFSET],
                "{what}"
            );
            if had_stop {
                // A cut inside the stop tail still ends in a stop command: kept as it is,
                // and the header (finished before the cut) already agrees.
                assert!(out == input, "{what}: a stop tail cut must come back as is");
                assert!(report.is_unchanged(), "{what}: {report:?}");
                assert_eq!(report.frames_kept as usize, frames.len(), "{what}");
                continue;
            }
            assert_eq!(
                out[HEADER_SIZE..kept_end],
                input[HEADER_SIZE..kept_end],
                "{what}"
            );
            assert_eq!(report.frames_kept as usize, kept.len(), "{what}");
            assert_eq!(report.bytes_dropped as usize, cut - kept_end, "{what}");
            assert!(report.stop_appended, "{what}");
            assert!(report.read_error.is_some(), "{what}");
            assert_eq!(out_frames.len(), kept.len() + 1, "{what}");
            let stop_len = 5 + usize::from(slot_byte);
            assert_eq!(out.len(), kept_end + stop_len, "{what}");
            let kept_infos: Vec<Info> = kept.into_iter().cloned().collect();
            assert_eq!(
                fields(out).1,
                max_tick_after_synctick(&kept_infos),
                "{what}: appended stop tick"
            );

            // The output is finished: repairing it again changes nothing.
            let again = common::source_repair(out, &RepairOptions::default()).unwrap();
            assert!(again.bytes == *out, "{what}: a second repair changed it");
            assert!(again.report.is_unchanged(), "{what}: {:?}", again.report);
        }
    }
}

#[test]
fn missing_stop_is_appended_with_the_largest_tick() {
    let Some(files) = real_files() else { return };
    for (name, data) in &files {
        let (frames, _) = read(data);
        let stop = frames.last().unwrap();
        let slot_byte = SourceSlice::parse(data).unwrap().profile().slot_byte;
        // Cut exactly where the stop command starts: every frame complete, no stop.
        let input = &data[..stop.offset];
        let repaired = common::source_repair(input, &RepairOptions::default()).unwrap();
        let report = &repaired.report;
        assert!(report.stop_appended, "{name}");
        assert_eq!(report.bytes_dropped, 0, "{name}");
        assert_eq!(report.frames_kept as usize, frames.len() - 1, "{name}");
        assert!(
            report
                .read_error
                .as_deref()
                .is_some_and(|e| e.contains("without dem_stop")),
            "{name}: {:?}",
            report.read_error
        );
        let tick = max_tick_after_synctick(&frames);
        eprintln!(
            "{name}: appended stop tick {tick}, the real stop's {:?}",
            stop_tick(stop.tail.as_deref().unwrap())
        );
        let mut expected_stop = vec![7];
        expected_stop.extend(tick.to_le_bytes());
        if slot_byte {
            expected_stop.push(0);
        }
        // Slices compared with `==`: a failing `assert_eq!` would print megabytes.
        assert!(repaired.bytes[..PLAYBACK_TIME_OFFSET] == data[..PLAYBACK_TIME_OFFSET]);
        assert!(
            repaired.bytes[HEADER_SIZE..stop.offset] == data[HEADER_SIZE..stop.offset],
            "{name}: frames changed"
        );
        assert_eq!(repaired.bytes[stop.offset..], expected_stop, "{name}");
        let out = &repaired.bytes;
        assert_eq!(fields(out).1, tick, "{name}");
        check_invariants(out, interval_of(data), name);
        // The counts did not change; only the stop tick and time may have.
        let fields_changed: Vec<_> = report.changes.iter().map(|c| c.field).collect();
        assert!(
            fields_changed
                .iter()
                .all(|f| ["playback_time", "ticks"].contains(f)),
            "{name}: {fields_changed:?}"
        );
    }
}

#[test]
fn unreadable_frame_drops_the_rest() {
    let Some(files) = real_files() else { return };
    for (name, data) in &files {
        let (frames, _) = read(data);
        let broken = &frames[frames.len() / 2];
        let mut input = data.clone();
        input[broken.offset] = 0xee;
        let repaired = common::source_repair(&input, &RepairOptions::default()).unwrap();
        let report = &repaired.report;
        assert_eq!(report.bytes_dropped as usize, data.len() - broken.offset);
        assert!(report.stop_appended, "{name}");
        assert!(
            report
                .read_error
                .as_deref()
                .is_some_and(|e| e.contains("unknown command 238")),
            "{name}: {:?}",
            report.read_error
        );
        assert!(
            repaired.bytes[HEADER_SIZE..broken.offset] == data[HEADER_SIZE..broken.offset],
            "{name}: frames changed"
        );
        check_invariants(&repaired.bytes, interval_of(data), name);
    }
}

/// `data` with its game directory (260 bytes at offset 796) replaced by `game`.
fn with_game_dir(data: &[u8], game: &str) -> Vec<u8> {
    const GAME_DIR_OFFSET: usize = 8 + 4 + 4 + 3 * 260;
    let mut out = data.to_vec();
    let field = &mut out[GAME_DIR_OFFSET..GAME_DIR_OFFSET + 260];
    field.fill(0);
    field[..game.len()].copy_from_slice(game.as_bytes());
    out
}

#[test]
fn interval_sources() {
    let Some(files) = real_files() else { return };
    // Demo protocol 3 settles the profile whatever the game directory says.
    let (name, data) = files
        .iter()
        .find(|(n, _)| n.starts_with("tf2"))
        .expect("the TF2 fixture");
    let (time, ticks, _, _) = fields(data);
    let unknown = with_game_dir(data, "some_mod");
    assert_eq!(
        SourceSlice::parse(&unknown)
            .unwrap()
            .header()
            .game_dir
            .to_string_lossy(),
        "some_mod"
    );

    // Unknown game, zero time: the engine's default is guessed.
    let mut zero_time = unknown.clone();
    zero_time[PLAYBACK_TIME_OFFSET..PLAYBACK_TIME_OFFSET + 4].fill(0);
    let repaired = common::source_repair(&zero_time, &RepairOptions::default()).unwrap();
    assert_eq!(repaired.report.interval_source, IntervalSource::Guessed);
    assert_eq!(repaired.report.interval, 0.015);
    assert_eq!(
        fields(&repaired.bytes).0.to_bits(),
        playback_time(ticks, 0.015).to_bits()
    );

    // Unknown game, finished header: its own time / ticks, which reproduces the time
    // exactly, so the file comes back unchanged.
    let repaired = common::source_repair(&unknown, &RepairOptions::default()).unwrap();
    assert_eq!(repaired.report.interval_source, IntervalSource::HeaderTime);
    assert!(
        repaired.report.is_unchanged(),
        "{name}: {:?}",
        repaired.report
    );
    assert!(repaired.bytes == unknown);
    assert_eq!(
        playback_time(ticks, repaired.report.interval).to_bits(),
        time.to_bits()
    );

    // Unknown game, zero ticks in the header but a time: guessed (no ratio to take), and
    // the ticks come from the stop command.
    let mut zero_ticks = unknown.clone();
    zero_ticks[PLAYBACK_TIME_OFFSET + 4..PLAYBACK_TIME_OFFSET + 8].fill(0);
    let repaired = common::source_repair(&zero_ticks, &RepairOptions::default()).unwrap();
    assert_eq!(repaired.report.interval_source, IntervalSource::Guessed);
    assert_eq!(fields(&repaired.bytes).1, ticks);

    // A given interval wins over the game directory and is used.
    for input in [data, &unknown] {
        let options = RepairOptions {
            tick_interval: Some(0.03),
        };
        let repaired = common::source_repair(input, &options).unwrap();
        assert_eq!(repaired.report.interval_source, IntervalSource::Given);
        assert_eq!(repaired.report.interval, 0.03);
        let new_time = playback_time(ticks, 0.03);
        assert_eq!(fields(&repaired.bytes).0.to_bits(), new_time.to_bits());
        assert_eq!(repaired.report.changes.len(), 1);
        assert_eq!(repaired.report.changes[0].field, "playback_time");
        assert_eq!(repaired.report.changes[0].new, new_time.to_string());
        assert_eq!(
            repaired.bytes[PLAYBACK_TIME_OFFSET + 4..],
            input[PLAYBACK_TIME_OFFSET + 4..]
        );
    }
}

#[test]
fn not_a_source_demo_is_an_error() {
    for input in [
        &b""[..],
        b"HLDEMO\0\0 a GoldSrc demo",
        b"PBDEMS2\0 a Source 2 demo",
        b"HL2DEMO\0",
    ] {
        assert!(matches!(
            common::source_repair(input, &RepairOptions::default()),
            Err(RepairError::Header(_))
        ));
    }
}

#[test]
fn report_serializes() {
    let Some(files) = real_files() else { return };
    let (_, data) = &files[0];
    let mut zeroed = data.clone();
    zeroed[PLAYBACK_TIME_OFFSET..HEADER_SIZE].fill(0);
    let report = common::source_repair(&zeroed[..data.len() - 1000], &RepairOptions::default())
        .unwrap()
        .report;
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["interval_source"], "game_dir");
    assert_eq!(json["stop_appended"], true);
    let changes = json["changes"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .any(|c| c["field"] == "ticks" && c["old"] == "0")
    );
    assert!(json["read_error"].is_string());
}

#[test]
fn mutated_inputs_repair_without_panic() {
    let Some(files) = real_files() else { return };
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for (name, data) in &files {
        // The header and the first frames: enough for every field and command to be hit.
        let prefix = &data[..data.len().min(HEADER_SIZE + 48 * 1024)];
        for round in 0..300 {
            let mut input = prefix.to_vec();
            for _ in 0..1 + next(4) {
                // Half of the hits land in the four header fields and the first frame
                // headers, where a flipped byte changes the most.
                let at = if next(2) == 0 {
                    PLAYBACK_TIME_OFFSET + next(64)
                } else {
                    8 + next(input.len() - 8)
                };
                input[at] = next(256) as u8;
            }
            let cut = HEADER_SIZE + next(input.len() - HEADER_SIZE + 1);
            let input = &input[..cut];
            let what = format!("{name} round {round}");
            let repaired = common::source_repair(input, &RepairOptions::default())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            // Read back with the profile the input was read with: the output's header may
            // leave the profile open, and then detection weighs the new signon_length.
            let profile = *SourceSlice::parse(input).unwrap().profile();
            let out = SourceSlice::with_profile(&repaired.bytes, profile).unwrap();
            let items: Vec<_> = out.frames().collect();
            assert!(
                items.iter().all(|i| i.is_ok()),
                "{what}: output does not read"
            );
            let last = items.last().unwrap().as_ref().unwrap();
            assert_eq!(last.frame.command(), Command::Stop, "{what}");
            let packets = items
                .iter()
                .filter(|i| i.as_ref().unwrap().frame.command() == Command::Packet)
                .count();
            assert_eq!(out.header().frames as usize, packets, "{what}");
        }
    }
}
