//! What `demokit info` reports about a Source demo (header fields, profile, frame counts by
//! command and the stop command's tail, from one pass over the frames), and what
//! `demokit validate` checks: the header against the frames.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::error::ReadError;
use super::format::{HEADER_SIZE, Header};
use super::profile::{Command, CommandTable, Profile, ProfileOrigin, playback_time, tick_interval};
use super::reader::{Body, FrameAt, SourceReader, SourceSlice, stop_tick};
use crate::validation::{ProblemKind, Report};
use std::collections::BTreeMap;
use std::io::Read;

/// A Source demo's header fields, profile and frame counts.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Summary {
    /// Always `"source"`.
    pub format: &'static str,
    /// Header demo protocol.
    pub demo_protocol: i32,
    /// Header network protocol.
    pub network_protocol: i32,
    /// Header server name.
    pub server: String,
    /// Header client name.
    pub client: String,
    /// Header map name.
    pub map_name: String,
    /// Header game directory.
    pub game_dir: String,
    /// Header playback time in seconds.
    pub playback_time: f32,
    /// Header ticks.
    pub ticks: i32,
    /// Header frames.
    pub frames: i32,
    /// Header signon length.
    pub signon_length: i32,
    /// View-info blocks per packet (the profile's splits).
    pub view_splits: u8,
    /// Whether frame headers carry a player-slot byte.
    pub slot_byte: bool,
    /// The command numbering in use.
    pub command_table: CommandTable,
    /// Where the profile came from.
    pub profile_origin: ProfileOrigin,
    /// Frames read, the stop command included.
    pub total_frames: u64,
    /// Frame counts by command name ("signon", "packet", ..., "stringtables"); commands
    /// that do not occur are left out.
    pub counts: BTreeMap<&'static str, u64>,
    /// Offset of the first synctick frame, if any.
    pub first_synctick_offset: Option<u64>,
    /// The first tick of play (see [`PlayTicks`]): the tick of the first frame from the
    /// sign-on's synctick on.
    pub first_tick: Option<i32>,
    /// The last tick of play: the highest tick a frame from the synctick on holds.
    pub last_tick: Option<i32>,
    /// Tick of the first frame (a sign-on frame holds the server's tick at connecting).
    pub first_frame_tick: Option<i32>,
    /// Tick of the last frame before the stop command.
    pub last_frame_tick: Option<i32>,
    /// Offset of the stop command, if the file has one.
    pub stop_offset: Option<u64>,
    /// The tick the stop command's tail holds.
    pub stop_tick: Option<i32>,
    /// What [`first_tick`](Self::first_tick) and [`last_tick`](Self::last_tick) come from.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub play: PlayTicks,
    /// Bytes after the stop command's byte (3, 4 or 5 in real files).
    pub stop_tail_len: Option<usize>,
    /// Those bytes in hex.
    pub stop_tail: Option<String>,
    /// Payload bytes of all frames (network data, commands, tables).
    pub payload_bytes: u64,
}

/// A Source demo's ticks of play, the game model's first and last tick: the sign-on
/// frames hold the server's tick at connecting, the synctick starts the demo's own count
/// (from 0), and frames after a level change can hold ticks below it (Left 4 Dead 2's
/// last frames, at -4589): play runs from the first frame at or after the first synctick
/// to the highest tick a frame from there on holds. The stop command's tick is the
/// header's count, not a frame's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlayTicks {
    synced: bool,
    /// The first tick of play.
    pub first: Option<i32>,
    /// The last tick of play.
    pub last: Option<i32>,
}

impl PlayTicks {
    /// Takes in the next frame's command and tick.
    pub fn add(&mut self, command: Command, tick: i32) {
        if command == Command::Stop {
            return;
        }
        self.synced |= command == Command::SyncTick;
        if !self.synced {
            return;
        }
        let first = *self.first.get_or_insert(tick);
        if tick >= first {
            self.last = Some(self.last.map_or(tick, |last| last.max(tick)));
        }
    }
}

impl Summary {
    /// Scans a file in memory. If a frame cannot be read, the summary covers everything
    /// before it and the error is returned beside it; only an unreadable header is an `Err`.
    pub fn scan(data: &[u8]) -> Result<(Summary, Option<ReadError>), ReadError> {
        let slice = SourceSlice::parse(data)?;
        let mut summary = Summary::start(slice.header(), slice.profile(), slice.profile_origin());
        let error = slice.frames().find_map(|item| match item {
            Ok(frame) => {
                summary.add(&frame);
                None
            }
            Err(e) => Some(e),
        });
        Ok((summary, error))
    }

    /// [`scan`](Self::scan) over any [`Read`], holding one frame at a time: memory does not
    /// grow with the file (beyond its largest frame).
    pub fn scan_reader<R: Read>(reader: R) -> Result<(Summary, Option<ReadError>), ReadError> {
        let mut reader = SourceReader::new(reader)?;
        let mut summary =
            Summary::start(reader.header(), reader.profile(), reader.profile_origin());
        let mut error = None;
        while let Some(item) = reader.next() {
            match item {
                Ok(frame) => summary.add(&frame),
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        Ok((summary, error))
    }

    fn start(h: &Header, profile: &Profile, origin: ProfileOrigin) -> Summary {
        Summary {
            format: "source",
            demo_protocol: h.demo_protocol,
            network_protocol: h.network_protocol,
            server: h.server.to_string_lossy(),
            client: h.client.to_string_lossy(),
            map_name: h.map.to_string_lossy(),
            game_dir: h.game_dir.to_string_lossy(),
            playback_time: h.playback_time,
            ticks: h.ticks,
            frames: h.frames,
            signon_length: h.signon_length,
            view_splits: profile.view_splits,
            slot_byte: profile.slot_byte,
            command_table: profile.commands,
            profile_origin: origin,
            total_frames: 0,
            counts: BTreeMap::new(),
            first_synctick_offset: None,
            first_tick: None,
            last_tick: None,
            first_frame_tick: None,
            last_frame_tick: None,
            play: PlayTicks::default(),
            stop_offset: None,
            stop_tick: None,
            stop_tail_len: None,
            stop_tail: None,
            payload_bytes: 0,
        }
    }

    fn add(&mut self, item: &FrameAt<'_>) {
        let command = item.frame.command();
        self.total_frames += 1;
        *self.counts.entry(command.name()).or_default() += 1;
        self.payload_bytes += item.frame.payload().len() as u64;
        if let Body::Stop { tail } = &item.frame.body {
            self.stop_offset = Some(item.offset);
            self.stop_tick = stop_tick(tail);
            self.stop_tail_len = Some(tail.len());
            self.stop_tail = Some(hex::encode(tail));
            return;
        }
        if command == Command::SyncTick && self.first_synctick_offset.is_none() {
            self.first_synctick_offset = Some(item.offset);
        }
        self.first_frame_tick.get_or_insert(item.frame.tick);
        self.last_frame_tick = Some(item.frame.tick);
        self.play.add(command, item.frame.tick);
        (self.first_tick, self.last_tick) = (self.play.first, self.play.last);
    }

    /// How many frames of `command` were read.
    pub fn count(&self, command: Command) -> u64 {
        self.counts.get(command.name()).copied().unwrap_or(0)
    }
}

/// Checks a Source demo: it reads to its stop command, and its header agrees with its
/// frames (the invariants every finished real recording holds):
///
/// * `signon_length` is the number of bytes from the end of the header to the first
///   synctick frame;
/// * `frames` is the number of packet frames;
/// * `ticks` is the stop command's tick;
/// * `playback_time` is `ticks` times the game's tick interval (checked only for games
///   whose interval is known; otherwise a warning says it was not);
/// * the stop command's tail is 3 to 5 bytes (a warning otherwise: not an error for the
///   engine, but not what any known game writes).
///
/// A header that was never finalized (zero counts from a crashed recorder) fails these;
/// `demokit repair` recomputes them.
pub fn validate(data: &[u8]) -> Report {
    validate_reader(data)
}

/// [`validate`] of a file read as a stream, one frame at a time: memory does not grow with
/// the file (beyond its largest frame).
pub fn validate_reader<R: Read>(input: R) -> Report {
    let mut report = Report::default();
    let (s, error) = match Summary::scan_reader(input) {
        Ok(scan) => scan,
        Err(e) => {
            report.fail(e.offset, ProblemKind::Header, e.kind.to_string());
            return report;
        }
    };
    if let Some(e) = error {
        let mut message = e.kind.to_string();
        let kind = if e.is_truncation() {
            // What a recorder that crashed or was killed leaves behind.
            message.push_str(
                ": the file is cut (no stop command); a repair keeps every complete \
                 frame, appends a stop command and sets the header from the frames",
            );
            ProblemKind::Truncated
        } else {
            ProblemKind::Frame
        };
        report.fail(e.offset, kind, message);
    }
    // Offsets of the header fields, for the messages.
    const SIGNON_LENGTH_AT: u64 = 1068;
    const FRAMES_AT: u64 = 1064;
    const TICKS_AT: u64 = 1060;
    const TIME_AT: u64 = 1056;
    if let Some(sync) = s.first_synctick_offset {
        let expected = sync - HEADER_SIZE as u64;
        if i64::from(s.signon_length) != expected as i64 {
            report.fail(
                SIGNON_LENGTH_AT,
                ProblemKind::SignonLength,
                format!(
                    "header signon_length is {}, but the first synctick is {expected} bytes \
                     after the header",
                    s.signon_length
                ),
            );
        }
    } else if s.stop_offset.is_some() {
        report.warn(
            HEADER_SIZE as u64,
            ProblemKind::NoSynctick,
            "the file has no synctick frame, so its signon length cannot be checked",
        );
    }
    let packets = s.count(Command::Packet);
    if i64::from(s.frames) != packets as i64 {
        report.fail(
            FRAMES_AT,
            ProblemKind::FrameCount,
            format!(
                "header frames is {}, but the file holds {packets} packet frames",
                s.frames
            ),
        );
    }
    if let (Some(tick), Some(stop)) = (s.stop_tick, s.stop_offset) {
        if s.ticks != tick {
            report.fail(
                TICKS_AT,
                ProblemKind::TickCount,
                format!(
                    "header ticks is {}, but the stop command (at byte {stop}) is at tick {tick}",
                    s.ticks
                ),
            );
        }
        let (interval, known) = tick_interval(&s.game_dir);
        let expected = playback_time(s.ticks, interval);
        if !known {
            report.warn(
                TIME_AT,
                ProblemKind::UnknownTickInterval,
                format!(
                    "the tick interval of game directory {:?} is not known, so playback_time \
                     ({} s) was not checked",
                    s.game_dir, s.playback_time
                ),
            );
        } else if s.playback_time.to_bits() != expected.to_bits() {
            report.fail(
                TIME_AT,
                ProblemKind::PlaybackTime,
                format!(
                    "header playback_time is {} s, but {} ticks at {interval} s make {expected} s",
                    s.playback_time, s.ticks
                ),
            );
        }
    }
    if let (Some(len), Some(stop)) = (s.stop_tail_len, s.stop_offset)
        && !(3..=5).contains(&len)
    {
        report.warn(
            stop + 1,
            ProblemKind::StopTail,
            format!("the stop command is followed by {len} bytes (real files have 3 to 5)"),
        );
    }
    report
}
