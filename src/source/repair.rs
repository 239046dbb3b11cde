//! Repairing Source demos whose recorder never finished.
//!
//! The engine writes the header twice: with zero counts when recording starts, and with the
//! real `playback_time`, `ticks`, `frames` and `signon_length` after the stop command. A game
//! that crashes (or a copy taken while recording) leaves a file with the first header, often
//! cut inside its last frame and without a stop command. [`repair`] turns such a file into
//! one the game plays and the reader reads to its end:
//!
//! * every complete frame is kept byte for byte, up to the stop command or the first frame
//!   that cannot be read; the rest (a partial frame, or whatever follows a broken one) is
//!   dropped;
//! * a missing stop command is appended, written in full (the tick, and the slot byte when
//!   the profile has one);
//! * the four header fields are recomputed from the kept frames, by the rules every finished
//!   real recording follows (`the corpus's conformance/source-dem.md`, sections 5 and 6). All
//!   other header bytes stay as they were.
//!
//! A finished file comes back unchanged. Left to others: reading and writing files (the
//! CLI), choosing the frame layout ([`Profile::detect`](super::profile::Profile::detect), as
//! the reader does), checking a file without changing it
//! ([`summary::validate`](super::summary::validate)), and anything inside the frames:
//! broken network data in a packet is kept as it is, and nothing after the first unreadable
//! frame is recovered.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::{ReadError, ReadErrorKind, WriteError};
use super::format::{HEADER_SIZE, Header};
use super::profile::{Command, playback_time, tick_interval};
use super::reader::{Body, Frame, SourceReader, stop_tick};
use super::writer::SourceWriter;
use std::io::{self, Read, Write};

/// How [`repair`] chooses the tick interval that `playback_time` is computed with.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RepairOptions {
    /// Seconds per tick, used as given. `None`: the interval of the header's game
    /// directory when the game is known, else the one the header's own `playback_time` and
    /// `ticks` imply when both are nonzero, else the engine's default of 0.015.
    pub tick_interval: Option<f32>,
}

/// Where the tick interval came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum IntervalSource {
    /// [`RepairOptions::tick_interval`].
    Given,
    /// The game directory names a game whose interval is known
    /// ([`tick_interval`]).
    GameDir,
    /// The header's own `playback_time` divided by its `ticks`.
    HeaderTime,
    /// Nothing said: the engine's default of 0.015 seconds.
    Guessed,
}

/// One header field that [`repair`] changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Change {
    /// The field: `"playback_time"`, `"ticks"`, `"frames"` or `"signon_length"`.
    pub field: &'static str,
    /// The value the input's header held.
    pub old: String,
    /// The value written.
    pub new: String,
}

/// What [`repair`] did.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RepairReport {
    /// Each header field that changed, in header order.
    pub changes: Vec<Change>,
    /// Complete frames kept from the input (the stop command included if it was there).
    pub frames_kept: u64,
    /// Bytes cut off the end: a partial frame, or everything from the first frame that
    /// could not be read.
    pub bytes_dropped: u64,
    /// Whether a stop command was appended because the input had none.
    pub stop_appended: bool,
    /// Seconds per tick that `playback_time` was computed with.
    pub interval: f32,
    /// Where [`interval`](Self::interval) came from.
    pub interval_source: IntervalSource,
    /// The error that ended reading before a stop command, if any (for a file cut short:
    /// the truncation).
    pub read_error: Option<String>,
}

impl RepairReport {
    /// Whether the output equals the input: no header field changed, nothing was dropped
    /// and no stop command was appended.
    pub fn is_unchanged(&self) -> bool {
        self.changes.is_empty() && self.bytes_dropped == 0 && !self.stop_appended
    }
}

/// Why [`repair`] could not produce a file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepairError {
    /// The input is not a Source demo, or ends inside its 1072-byte header: there is
    /// nothing to repair from.
    #[error("cannot read the header: {0}")]
    Header(#[from] ReadError),
    /// A frame or the header could not be written.
    #[error("cannot write the repaired demo: {0}")]
    Write(#[from] WriteError),
}

/// What the frames say about the header fields, gathered in one pass.
#[derive(Default)]
struct Scan {
    frames_kept: u64,
    packets: u64,
    first_synctick: Option<u64>,
    /// The largest tick after the first synctick: signon frames carry raw client ticks
    /// from before the clock was synced, so they say nothing about the recording's length.
    max_tick: Option<i32>,
    /// End of the last kept frame other than the stop command.
    data_end: u64,
    /// End of the last kept frame.
    end: u64,
    stop_tail: Option<Vec<u8>>,
}

/// Repairs the Source demo `data` (see the [module documentation](self)): keeps its
/// complete frames, appends a stop command if it has none, and recomputes `playback_time`,
/// `ticks`, `frames` and `signon_length`.
///
/// Fails when the header cannot be read; any input with a readable header gives a file the
/// reader reads to its stop command. (A write error cannot happen with frames the reader
/// cut, but would be returned rather than panic.) A finished file is returned unchanged.
///
/// Nothing is written before the whole input has been read.
pub fn repair<W: Write>(
    input: &[u8],
    options: &RepairOptions,
    out: W,
) -> Result<RepairReport, RepairError> {
    repair_reader(|| Ok(input), options, out)
}

/// [`repair`] of a file read twice as a stream from its start, each time from what `open`
/// returns (a file opened again): once to gather what the frames say about the header, once
/// to write the new header and the frames kept. Memory does not grow with the file (beyond
/// its largest frame). The second reading stops where the first ended, so a file that grew
/// in between is repaired as it was when first read.
pub fn repair_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> io::Result<R>,
    options: &RepairOptions,
    out: W,
) -> Result<RepairReport, RepairError> {
    let mut open =
        || open().map_err(|e| RepairError::Header(ReadError::new(0, ReadErrorKind::Io(e))));
    let mut input = CountingReader {
        inner: open()?,
        count: 0,
    };
    let mut reader = SourceReader::new(&mut input)?;
    let old = *reader.header();
    let profile = *reader.profile();

    // Pass 1: what the frames say about the header.
    let mut scan = Scan {
        data_end: HEADER_SIZE as u64,
        end: HEADER_SIZE as u64,
        ..Scan::default()
    };
    let mut read_error = None;
    while let Some(item) = reader.next() {
        let at = match item {
            Ok(at) => at,
            Err(e) => {
                read_error = Some(e.to_string());
                break;
            }
        };
        scan.frames_kept += 1;
        scan.end = at.offset + at.len as u64;
        let command = at.frame.command();
        if scan.first_synctick.is_some() && command != Command::Stop {
            scan.max_tick = Some(
                scan.max_tick
                    .map_or(at.frame.tick, |t| t.max(at.frame.tick)),
            );
        }
        match at.frame.body {
            Body::Packet(_) => scan.packets += 1,
            Body::SyncTick if scan.first_synctick.is_none() => {
                scan.first_synctick = Some(at.offset);
            }
            Body::Stop { tail } => {
                scan.stop_tail = Some(tail.to_vec());
                continue;
            }
            _ => {}
        }
        scan.data_end = scan.end;
    }
    drop(reader);
    // The bytes after the last frame kept are dropped: count them all.
    let input_len = input.count + io::copy(&mut input.inner, &mut io::sink()).unwrap_or(0);

    let fallback_tick = scan.max_tick.unwrap_or(0);
    let (ticks, stop_appended) = match &scan.stop_tail {
        Some(tail) => (
            stop_tick(tail).unwrap_or_else(|| lost_stop_tick(tail, old.ticks, fallback_tick)),
            false,
        ),
        None => (fallback_tick, true),
    };
    let (interval, interval_source) = choose_interval(&old, options);
    let mut new = old;
    new.playback_time = playback_time(ticks, interval);
    new.ticks = ticks;
    new.frames = saturate(scan.packets);
    new.signon_length = signon_length(&scan, old.signon_length);

    // Pass 2: the new header and the frames kept, written through the writer with the
    // reader's profile, so the same bytes come back (the writer mirrors the reader), a stop
    // tail included.
    let mut reader = SourceReader::with_profile(open()?.take(scan.end), profile)?;
    let mut writer = SourceWriter::with_profile(out, &new, profile)?;
    for _ in 0..scan.frames_kept {
        match reader.next() {
            Some(Ok(at)) => writer.write_frame(&at.frame)?,
            // The same bytes read before; kept as an error rather than a panic.
            Some(Err(e)) => return Err(RepairError::Header(e)),
            None => {
                return Err(RepairError::Write(WriteError::Inconsistent(
                    "the input changed between the two readings",
                )));
            }
        }
    }
    if stop_appended {
        writer.write_frame(&Frame::stop(fallback_tick, &profile))?;
    }
    writer.finish()?;

    Ok(RepairReport {
        changes: changes(&old, &new),
        frames_kept: scan.frames_kept,
        bytes_dropped: input_len.saturating_sub(scan.end),
        stop_appended,
        interval,
        interval_source,
        read_error,
    })
}

/// Counts the bytes read through it.
struct CountingReader<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// The tick of a stop command whose tail is too short to hold one (fewer than 3 bytes).
///
/// The engine rewrites the header after writing the stop command, so a file cut inside the
/// stop tail usually has the finished header: its nonzero `ticks` is taken when the bytes
/// that survived agree with it. Otherwise the tick an appended stop would get.
fn lost_stop_tick(tail: &[u8], header_ticks: i32, fallback: i32) -> i32 {
    if header_ticks != 0 && header_ticks.to_le_bytes().starts_with(tail) {
        header_ticks
    } else {
        fallback
    }
}

/// The new `signon_length`: the bytes before the first synctick.
fn signon_length(scan: &Scan, old: i32) -> i32 {
    let header = HEADER_SIZE as u64;
    match scan.first_synctick {
        Some(offset) => saturate(offset - header),
        // No synctick: the file ends inside the signon data (the engine writes the synctick
        // right after it). The header's value (the engine fills it in when recording starts)
        // stands unless it points past what was kept.
        None => {
            let kept = scan.data_end - header;
            if u64::try_from(old).is_ok_and(|old| old <= kept) {
                old
            } else {
                saturate(kept)
            }
        }
    }
}

/// A count as the header's `i32`. Only a file over 2 GiB could exceed it, and then the
/// largest value is the closest the header can say.
fn saturate(n: u64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// The tick interval and where it came from.
fn choose_interval(header: &Header, options: &RepairOptions) -> (f32, IntervalSource) {
    if let Some(interval) = options.tick_interval {
        return (interval, IntervalSource::Given);
    }
    let (by_game, known) = tick_interval(&header.game_dir.to_string_lossy());
    if known {
        return (by_game, IntervalSource::GameDir);
    }
    if let Some(interval) = header_interval(header.playback_time, header.ticks) {
        return (interval, IntervalSource::HeaderTime);
    }
    (by_game, IntervalSource::Guessed)
}

/// The interval a finished header implies: `time / ticks`, if that is a plausible tick
/// interval ([`PLAUSIBLE_INTERVAL`]). Anything else is a header that was never finalized or
/// is damaged, and saying nothing is better than an interval that gives an infinite time.
/// Negative ticks (and so a negative time) are allowed: a repair writes them when the frames
/// carry negative ticks, and must read its own output back to the same interval.
///
/// For a time the engine computed (`interval * ticks` in `f32`), the quotient multiplies
/// back to exactly that time (checked on two million random intervals and tick counts), so
/// an intact header of an unknown game keeps its `playback_time` bit for bit.
fn header_interval(time: f32, ticks: i32) -> Option<f32> {
    if ticks == 0 {
        return None;
    }
    let quotient = time / ticks as f32;
    PLAUSIBLE_INTERVAL.contains(&quotient).then_some(quotient)
}

/// Tick intervals a header's time and ticks may imply: 1 ms (a 1000-tick server) to 1 s.
/// Real games use 1/128 to 1/30.
pub const PLAUSIBLE_INTERVAL: std::ops::RangeInclusive<f32> = 0.001..=1.0;

/// The header fields that differ between `old` and `new`, in header order.
fn changes(old: &Header, new: &Header) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut note = |field: &'static str, same: bool, old: String, new: String| {
        if !same {
            changes.push(Change { field, old, new });
        }
    };
    // By bits: a NaN in the input is a change, a -0.0 turned into 0.0 too.
    note(
        "playback_time",
        old.playback_time.to_bits() == new.playback_time.to_bits(),
        old.playback_time.to_string(),
        new.playback_time.to_string(),
    );
    note(
        "ticks",
        old.ticks == new.ticks,
        old.ticks.to_string(),
        new.ticks.to_string(),
    );
    note(
        "frames",
        old.frames == new.frames,
        old.frames.to_string(),
        new.frames.to_string(),
    );
    note(
        "signon_length",
        old.signon_length == new.signon_length,
        old.signon_length.to_string(),
        new.signon_length.to_string(),
    );
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_interval_multiplies_back() {
        for (ticks, interval) in [(3453, 0.015f32), (669, 1.0 / 30.0), (1210, 1.0 / 60.0)] {
            let time = playback_time(ticks, interval);
            let got = header_interval(time, ticks).unwrap();
            assert_eq!(playback_time(ticks, got).to_bits(), time.to_bits());
        }
        assert_eq!(header_interval(0.0, 10), None);
        assert_eq!(header_interval(1.0, 0), None);
        assert_eq!(header_interval(-1.0, 10), None);
        assert_eq!(header_interval(f32::NAN, 10), None);
        // Portal 1 writes negative ticks with a negative time.
        assert!(header_interval(-1.485, -99).is_some_and(|i| i > 0.0));
    }

    #[test]
    fn short_stop_tails() {
        assert_eq!(lost_stop_tick(&[0xba, 0x04], 1210, 7), 1210);
        assert_eq!(lost_stop_tick(&[0xbb], 1210, 7), 7);
        assert_eq!(lost_stop_tick(&[], 0, 7), 7);
        assert_eq!(lost_stop_tick(&[], -5, 7), -5);
    }
}
