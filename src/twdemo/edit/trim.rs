//! Cutting a tick range out of a demo at any tick, the way DDNet's demo slicer cuts at
//! keyframes, with the first kept tick turned into a keyframe.
//!
//! [`trim`] replays the input's snapshots up to the end of the range (keyframes parsed,
//! deltas applied to the snapshot before them with the item sizes of the header's network
//! version, a tick without a snapshot chunk repeating the previous snapshot, as DDNet's
//! player does) and records the ticks in the range anew through a [`Recorder`]:
//!
//! * the first kept tick becomes a keyframe holding the snapshot the player had at that
//!   tick, and every later tick is recorded from its snapshot with DDNet's
//!   `RecordSnapshot` rules (a delta against the last written snapshot, a tick marker alone
//!   when nothing changed, a keyframe when more than 250 ticks have passed since the last
//!   one);
//! * messages in the range are kept in their order, each after the snapshot of its tick (a
//!   message before the file's first tick marker belongs to the first tick); timeline
//!   markers in the range are kept; tick numbers are kept;
//! * the output has the input's version, network version, map name, map CRC, type,
//!   timestamp, embedded map and map SHA-256, and its Huffman length rule (see
//!   [`RuleSource`]); the length is computed anew.
//!
//! A delta does not say where the items it leaves alone go: the player keeps the old
//! snapshot's order and appends new items. So a delta cannot always rebuild a snapshot that
//! the input stores as a keyframe in another order (a server's snapshots are in its building
//! order). By default ([`KeyframePolicy::KeepItemOrder`]) such a tick is written as a
//! keyframe, so the output replays to the input's snapshots item for item; with
//! [`KeyframePolicy::Ddnet`] every tick goes through [`Recorder::record_snapshot`] and only
//! DDNet's keyframes are written, at the price of that order.
//!
//! Errors: a chunk that does not read or decode before the end of the range is an error
//! with its offset (DDNet's player stops there too); what follows the range is not read.
//! A snapshot that fails DDNet's validity check, or a delta that does not apply, is skipped
//! and counted, as the player logs and skips it.
//!
//! Left to others: what the items and messages mean (nothing is filtered or rewritten
//! inside them), chunks of unknown type (dropped and counted, as the player ignores them),
//! and whether the result plays ([`validate`](super::validate::validate)).

use crate::codec::huffman::LengthRule;
use crate::time::{RangeBound, RangeEnd, TickRange, tick_after_seconds};
use crate::twdemo::container::error::{PayloadError, ReadError, WriteError};
use crate::twdemo::container::format::ChunkKind;
use crate::twdemo::container::payload::PayloadDecoder;
use crate::twdemo::container::reader::{
    Chunk, ChunkSource, Chunks, DemoReader, DemoSlice, Prelude,
};
use crate::twdemo::snapshot::delta::{self, ItemSizes};
use crate::twdemo::snapshot::recorder::{
    KEYFRAME_INTERVAL, MAX_RAW_PAYLOAD, Recorder, RecorderConfig,
};
use crate::twdemo::snapshot::replay::{SnapshotOrder, SnapshotState};
use crate::twdemo::snapshot::{Snapshot, SnapshotBuf, SnapshotBuilder};
use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};

use super::stream::open_failed;

/// How the output's keyframes are chosen after the first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum KeyframePolicy {
    /// DDNet's rules, and also a keyframe wherever the delta against the last written
    /// snapshot would not rebuild the tick's snapshot item for item (same items in the
    /// same order), or would be larger than the recorder takes. The output then replays to
    /// exactly the input's snapshots.
    #[default]
    KeepItemOrder,
    /// DDNet's rules only: every tick after the first is recorded with
    /// [`Recorder::record_snapshot`]. The output replays to the input's items at every
    /// tick, but where a delta cannot express the input's order, in the delta's order.
    Ddnet,
}

/// Choices a trim leaves open; the defaults follow the input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TrimOptions {
    /// The Huffman length rule to write with; `None` takes the input's (see [`RuleSource`]).
    pub huffman_rule: Option<LengthRule>,
    /// The order a replay of the input leaves items in; `None` takes
    /// [`SnapshotOrder::for_prelude`].
    pub snapshot_order: Option<SnapshotOrder>,
    /// How keyframes after the first are chosen.
    pub keyframes: KeyframePolicy,
}

/// Where the output's Huffman length rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RuleSource {
    /// Given in [`TrimOptions::huffman_rule`].
    Given,
    /// Read off the first chunk of the input whose stored length only one rule gives (its
    /// Huffman bits end on a byte boundary, where the rules differ by a byte), at `offset`.
    Detected {
        /// Offset of that chunk.
        offset: u64,
    },
    /// No chunk of the input tells the rules apart, so both store every chunk alike. Then
    /// [`LengthRule::Tight`] for version 6 (what DDNet 20.1 and later write) and
    /// [`LengthRule::TrailingByte`] for older versions (what every writer of those wrote).
    Fallback,
}

/// What [`trim`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TrimReport {
    /// Tick of the first tick marker written.
    pub first_tick: i32,
    /// Tick of the last tick marker written.
    pub last_tick: i32,
    /// Tick markers written.
    pub ticks: usize,
    /// Snapshots written: keyframes plus deltas.
    pub snapshots: usize,
    /// Keyframes written (snapshot chunks), the first included.
    pub keyframes: usize,
    /// Of those, keyframes written only because a delta would have changed the item order
    /// ([`KeyframePolicy::KeepItemOrder`]).
    pub order_keyframes: usize,
    /// Delta chunks written.
    pub deltas: usize,
    /// Ticks written as a tick marker alone (nothing changed).
    pub unchanged_ticks: usize,
    /// Message chunks kept.
    pub messages: usize,
    /// Timeline markers kept.
    pub markers: Vec<i32>,
    /// Timeline markers of the input in the range that the recorder refused (more than 64,
    /// or less than a second after the previous one, as in DDNet).
    pub markers_refused: Vec<i32>,
    /// Ticks in the range before the first snapshot of the input: nothing to show, so not
    /// written; their messages go with the first tick written.
    pub ticks_without_snapshot: usize,
    /// Snapshot chunks and deltas read that DDNet's player would skip (an invalid snapshot,
    /// a delta that does not apply).
    pub skipped_snapshots: usize,
    /// Chunks of unknown type among the ticks written, dropped.
    pub unknown_chunks: usize,
    /// The Huffman length rule written with.
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_rule"))]
    pub huffman_rule: LengthRule,
    /// Where that rule came from.
    pub rule_source: RuleSource,
    /// The item order the input was replayed with.
    pub snapshot_order: SnapshotOrder,
}

#[cfg(feature = "serde")]
fn serialize_rule<S: serde::Serializer>(rule: &LengthRule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match rule {
        LengthRule::Tight => "tight",
        LengthRule::TrailingByte => "trailing_byte",
    })
}

/// Why a trim failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrimError {
    /// `from` is after `to`.
    #[error("the range is empty: from {from} is after to {to}")]
    InvalidRange {
        /// The first tick asked for.
        from: i32,
        /// The last tick asked for.
        to: i32,
    },
    /// No tick marker of the demo lies in the range.
    #[error("the demo has no tick in [{from}, {to}]")]
    EmptyRange {
        /// The first tick asked for.
        from: i32,
        /// The last tick asked for.
        to: i32,
    },
    /// The demo has ticks in the range but no snapshot up to its end.
    #[error("the demo has no snapshot up to the end of [{from}, {to}]")]
    NoSnapshot {
        /// The first tick asked for.
        from: i32,
        /// The last tick asked for.
        to: i32,
    },
    /// The input does not read before the end of the range (its error has the offset).
    #[error("reading the demo: {0}")]
    Read(#[from] ReadError),
    /// A chunk payload before the end of the range does not decode.
    #[error("at byte {offset}: chunk payload: {error}")]
    Payload {
        /// Offset of the chunk.
        offset: u64,
        /// What went wrong.
        error: PayloadError,
    },
    /// A delta comes before any snapshot (DDNet's player stops there).
    #[error("at byte {offset}: delta snapshot before any full snapshot")]
    DeltaBeforeSnapshot {
        /// Offset of the delta chunk.
        offset: u64,
    },
    /// A header text field is not UTF-8, so it cannot be recorded (DDNet refuses such a
    /// demo too).
    #[error("header field {field} is not valid UTF-8")]
    HeaderField {
        /// The field's name.
        field: &'static str,
    },
    /// The output could not be written.
    #[error("writing the trimmed demo: {0}")]
    Write(#[from] WriteError),
    /// The recorder was to start a second time, after starting it had failed and handed
    /// its sink on: an error ends a trim, so this is not met by any input.
    #[error("the trim's recorder was to start a second time")]
    RecorderStartedTwice,
}

impl TrimError {
    /// The input offset the error was found at, where it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            TrimError::Read(e) => Some(e.offset),
            TrimError::Payload { offset, .. } | TrimError::DeltaBeforeSnapshot { offset } => {
                Some(*offset)
            }
            _ => None,
        }
    }
}

/// Cuts the ticks `from..=to` out of the demo `data` with the default [`TrimOptions`]; see
/// the [module docs](self).
///
/// The range is clamped to the demo's ticks: what is kept is the run of tick markers that
/// starts at the first one in `from..=to` and ends before the next one outside it (tick
/// numbers only grow in demos DDNet writes). Reading stops there, or at an earlier tick
/// marker after `to`; nothing after it is read. Ticks in
/// the range before the input's first snapshot are not written (there is nothing to show);
/// their messages go with the first tick written.
///
/// The trimmed demo is written to `out` whole once it is complete (the recorder patches
/// the header at the end, so it is made in memory first; [`trim_into`] writes into a
/// seekable sink as it goes, and [`trim_reader`] into any sink from a demo read as a
/// stream).
///
/// Errors: `from > to` ([`TrimError::InvalidRange`]); no tick marker in the range
/// ([`TrimError::EmptyRange`]) or no snapshot up to its end ([`TrimError::NoSnapshot`]);
/// a chunk before the end of the range that does not read or decode, or a delta before any
/// snapshot, with its offset; a version the [`Recorder`] cannot write (above 6); `out`
/// failing ([`TrimError::Write`]).
pub fn trim<W: Write>(input: &[u8], range: TickRange, out: W) -> Result<TrimReport, TrimError> {
    trim_with(input, range, &TrimOptions::default(), out)
}

/// [`trim`] with options.
pub fn trim_with<W: Write>(
    input: &[u8],
    range: TickRange,
    options: &TrimOptions,
    mut out: W,
) -> Result<TrimReport, TrimError> {
    let (sink, report) = trim_into(
        input,
        Cursor::new(Vec::new()),
        range.from,
        range.to,
        options,
    )?;
    out.write_all(&sink.into_inner())
        .map_err(|e| TrimError::Write(WriteError::Io(e)))?;
    Ok(report)
}

/// [`trim_with`] into any seekable sink, from its current position (the recorder seeks back
/// to patch the header when it finishes). On an error the sink may hold part of a demo.
pub fn trim_into<W: Write + Seek>(
    data: &[u8],
    sink: W,
    from: i32,
    to: i32,
    options: &TrimOptions,
) -> Result<(W, TrimReport), TrimError> {
    if from > to {
        return Err(TrimError::InvalidRange { from, to });
    }
    let slice = DemoSlice::parse(data)?;
    let ahead = |chunks: &Chunks<'_>| Ok(detect_rule_ahead(&mut chunks.clone()));
    let trimmed = trim_chunks(
        slice.prelude(),
        slice.map(),
        slice.chunks(),
        ahead,
        sink,
        from,
        to,
        options,
    )?;
    Ok((trimmed.sink, trimmed.report))
}

/// [`trim`] of a demo read twice as a stream from its start, each time from what `open`
/// returns (a file opened again), into `out` as it goes: memory does not grow with the
/// demo (the embedded map, a few snapshots and one tick's messages are held). See
/// [`trim_with_reader`].
pub fn trim_reader<R: Read, W: Write>(
    open: impl FnMut() -> io::Result<R>,
    range: TickRange,
    out: W,
) -> Result<TrimReport, TrimError> {
    trim_with_reader(open, range, &TrimOptions::default(), out)
}

/// [`trim_with`] of a demo read twice as a stream, into any sink as it goes.
///
/// The recorder writes the header's length and timeline markers only once it has written
/// the last tick (it seeks back to them, as DDNet's does), and a sink that cannot seek
/// cannot take them then. So the trim runs twice: the first time into a sink that keeps
/// only those header fields, the second into `out` with the fields written in their place
/// from the start (and the recorder's own late writing of them checked against them). Each
/// run reads the input up to the end of the range (the second no further than the first,
/// so a demo that grew in between is trimmed as it was when first read); looking for the
/// Huffman rule past the first tick written (see [`RuleSource`]) reads it a third time, up
/// to the first chunk that tells the rules apart. Nothing is written when the first run
/// fails; the second fails only on `out` (or an input changed in between), with part of
/// the demo written.
pub fn trim_with_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> io::Result<R>,
    range: TickRange,
    options: &TrimOptions,
    out: W,
) -> Result<TrimReport, TrimError> {
    let (from, to) = (range.from, range.to);
    if from > to {
        return Err(TrimError::InvalidRange { from, to });
    }
    let reader = |open: &mut dyn FnMut() -> io::Result<R>| -> Result<_, TrimError> {
        Ok(DemoReader::new(open().map_err(open_failed)?)?)
    };

    // First run: where the recorder writes over the header, and with what.
    let first = reader(&mut open)?;
    let prelude = *first.prelude();
    let map = first.map().to_vec();
    let ahead = |_: &DemoReader<R>| Ok(detect_rule_ahead(&mut reader(&mut open)?));
    let pass = trim_chunks(
        &prelude,
        &map,
        first,
        ahead,
        PatchLog::default(),
        from,
        to,
        options,
    )?;
    let patches = pass.sink.patches;
    let read_up_to = pass.read_up_to;
    // The rule the first run settled on, however it found it.
    let rule = match pass.report.rule_source {
        RuleSource::Detected { offset } => Some((pass.report.huffman_rule, offset)),
        _ => None,
    };

    // Second run: the same trim into `out`, the header's late fields written in time.
    let again = DemoReader::new(open().map_err(open_failed)?.take(read_up_to))?;
    let sink = Patched {
        inner: out,
        patches: &patches,
        at: Position::default(),
        scratch: Vec::new(),
    };
    let ahead = |_: &DemoReader<io::Take<R>>| Ok(rule);
    let pass2 = trim_chunks(&prelude, &map, again, ahead, sink, from, to, options)?;
    debug_assert_eq!(pass2.report, pass.report);
    Ok(pass2.report)
}

/// What [`trim_chunks`] made.
struct Trimmed<W> {
    sink: W,
    report: TrimReport,
    /// The offset up to which the input was read: the end of the last chunk read.
    read_up_to: u64,
}

/// The trim of the demo whose `prelude` and `map` have been read and whose `chunks` follow,
/// into `sink`. `ahead` finds the Huffman rule from the chunks after a given point (see
/// [`detect_rule_ahead`]) when none read before the first tick written tells.
#[allow(clippy::too_many_arguments)] // One private core under the public forms.
fn trim_chunks<S: ChunkSource, W: Write + Seek>(
    prelude: &Prelude,
    map: &[u8],
    mut chunks: S,
    mut ahead: impl FnMut(&S) -> Result<Option<(LengthRule, u64)>, TrimError>,
    sink: W,
    from: i32,
    to: i32,
    options: &TrimOptions,
) -> Result<Trimmed<W>, TrimError> {
    let sizes = ItemSizes::for_net_version(&prelude.header.net_version.to_string_lossy());
    let order = options
        .snapshot_order
        .unwrap_or_else(|| SnapshotOrder::for_prelude(prelude));
    let mut read_up_to = prelude.map_offset() as u64 + u64::from(prelude.header.map_size);
    let mut replay = Replay {
        state: SnapshotState::new(sizes, order),
        decoder: PayloadDecoder::new(),
        detected_rule: None,
    };
    let mut out = Output {
        prelude: *prelude,
        map,
        sink: Some(sink),
        options: *options,
        recorder: None,
        rule: (LengthRule::Tight, RuleSource::Fallback),
        state: WriteState {
            options: *options,
            sizes,
            order,
            base: SnapshotBuf::new(),
            last_keyframe: None,
            delta: Vec::new(),
            builder: SnapshotBuilder::new(),
            counts: Counts::default(),
        },
    };
    // The tick whose chunks are being read: its tick and whether it is in the range.
    let mut pending: Option<(i32, bool)> = None;
    // Whether a tick marker in the range has been read.
    let mut started = false;
    let mut messages = Messages::default();
    while let Some(item) = chunks.next_chunk() {
        let item = item?;
        read_up_to = item.offset + (item.header.len() + item.header.payload_size()) as u64;
        match item.chunk {
            Chunk::Tick(marker) => {
                if let Some((tick, in_range)) = pending.take() {
                    let ahead = || ahead(&chunks);
                    out.complete_tick(tick, in_range, &replay, ahead, &mut messages)?;
                }
                let in_range = (from..=to).contains(&marker.tick);
                // The range is the run of tick markers from the first one in it; the first
                // one after it that is not in it ends the trim, and what follows is not
                // read (a later error there does not matter).
                if marker.tick > to || (started && !in_range) {
                    break;
                }
                started |= in_range;
                pending = Some((marker.tick, in_range));
            }
            Chunk::Data(chunk) => {
                // Every chunk is decoded, also before the range: a chunk DDNet's player
                // cannot decode stops playback before the range is reached.
                if chunk.kind == ChunkKind::Unknown {
                    // DDNet's player ignores it; it is counted with the tick it is dropped
                    // from, if that tick is written.
                    if pending.is_none_or(|(_, in_range)| in_range) {
                        messages.unknown += 1;
                    }
                    continue;
                }
                let decoded =
                    replay
                        .decoder
                        .decode(chunk.payload)
                        .map_err(|error| TrimError::Payload {
                            offset: item.offset,
                            error,
                        })?;
                if replay.detected_rule.is_none() && !decoded.rules_agree() {
                    replay.detected_rule = decoded
                        .length_rule(chunk.payload.len())
                        .map(|rule| (rule, item.offset));
                }
                match chunk.kind {
                    ChunkKind::Snapshot => replay.keyframe(),
                    ChunkKind::SnapshotDelta => replay.delta(item.offset)?,
                    ChunkKind::Message => {
                        // Before the first tick marker a message belongs to the first tick.
                        if pending.is_none_or(|(_, in_range)| in_range) {
                            messages.push(replay.decoder.last_ints());
                        }
                    }
                    ChunkKind::Unknown => {}
                }
            }
        }
    }
    if let Some((tick, in_range)) = pending.take() {
        let ahead = || ahead(&chunks);
        out.complete_tick(tick, in_range, &replay, ahead, &mut messages)?;
    }
    if !started {
        return Err(TrimError::EmptyRange { from, to });
    }
    let (sink, report) = out.finish(&replay, from, to)?;
    Ok(Trimmed {
        sink,
        report,
        read_up_to,
    })
}

/// The input's replay: the snapshot DDNet's player holds after each chunk.
struct Replay {
    state: SnapshotState,
    decoder: PayloadDecoder,
    /// The Huffman rule the first chunk that tells the rules apart follows, and its offset.
    detected_rule: Option<(LengthRule, u64)>,
}

impl Replay {
    /// Takes the decoded snapshot chunk as the current snapshot, if it is valid.
    fn keyframe(&mut self) {
        self.state.keyframe(self.decoder.last_ints());
    }

    /// Applies the decoded delta chunk to the current snapshot.
    fn delta(&mut self, offset: u64) -> Result<(), TrimError> {
        self.state
            .delta(self.decoder.last_ints())
            .map_err(|()| TrimError::DeltaBeforeSnapshot { offset })
    }
}

#[derive(Debug, Default)]
struct Counts {
    ticks: usize,
    keyframes: usize,
    order_keyframes: usize,
    deltas: usize,
    unchanged_ticks: usize,
    messages: usize,
    ticks_without_snapshot: usize,
    unknown_chunks: usize,
    first_tick: Option<i32>,
    last_tick: Option<i32>,
}

/// The output side: a recorder started at the first tick written.
struct Output<'a, W: Write + Seek> {
    prelude: Prelude,
    map: &'a [u8],
    /// The sink until the recorder takes it.
    sink: Option<W>,
    options: TrimOptions,
    recorder: Option<Recorder<W>>,
    rule: (LengthRule, RuleSource),
    state: WriteState,
}

/// What the output side knows of what it wrote.
struct WriteState {
    options: TrimOptions,
    sizes: ItemSizes,
    order: SnapshotOrder,
    /// The last snapshot written in full or as a delta: the base of the next delta, as in
    /// the recorder.
    base: SnapshotBuf,
    /// The tick of the last keyframe written.
    last_keyframe: Option<i32>,
    /// Scratch for deltas and for checking what they rebuild.
    delta: Vec<i32>,
    builder: SnapshotBuilder,
    counts: Counts,
}

impl<'a, W: Write + Seek> Output<'a, W> {
    /// The chunks of `tick` have all been read: writes the tick with its snapshot and the
    /// waiting messages if it is in the range, or drops the messages if it is not.
    fn complete_tick(
        &mut self,
        tick: i32,
        in_range: bool,
        replay: &Replay,
        ahead: impl FnOnce() -> Result<Option<(LengthRule, u64)>, TrimError>,
        messages: &mut Messages,
    ) -> Result<(), TrimError> {
        if !in_range {
            messages.clear();
            return Ok(());
        }
        let Some(snapshot) = &replay.state.current else {
            // Nothing to show yet; the messages wait for the first tick written.
            self.state.counts.ticks_without_snapshot += 1;
            return Ok(());
        };
        let recorder = match self.recorder.take() {
            Some(recorder) => recorder,
            None => self.start(replay, ahead)?,
        };
        let recorder = self.recorder.insert(recorder);
        self.state
            .record_snapshot(recorder, tick, snapshot.as_snapshot())?;
        for range in messages.ranges.drain(..) {
            // Each range is where a message was appended to `bytes`.
            if let Some(message) = messages.bytes.get(range) {
                recorder.record_message(message)?;
                self.state.counts.messages += 1;
            }
        }
        self.state.counts.unknown_chunks += messages.unknown;
        messages.clear();
        let counts = &mut self.state.counts;
        counts.ticks += 1;
        counts.first_tick.get_or_insert(tick);
        counts.last_tick = Some(tick);
        Ok(())
    }

    /// Starts a recorder with the input's header fields, map and Huffman rule.
    fn start(
        &mut self,
        replay: &Replay,
        ahead: impl FnOnce() -> Result<Option<(LengthRule, u64)>, TrimError>,
    ) -> Result<Recorder<W>, TrimError> {
        let prelude = self.prelude;
        let header = &prelude.header;
        let text = |field: &'static str, bytes: Result<&str, std::str::Utf8Error>| {
            bytes
                .map(str::to_owned)
                .map_err(|_| TrimError::HeaderField { field })
        };
        self.rule = match self.options.huffman_rule {
            Some(rule) => (rule, RuleSource::Given),
            None => match replay
                .detected_rule
                .map_or_else(ahead, |rule| Ok(Some(rule)))?
            {
                Some((rule, offset)) => (rule, RuleSource::Detected { offset }),
                None if prelude.version() >= 6 => (LengthRule::Tight, RuleSource::Fallback),
                None => (LengthRule::TrailingByte, RuleSource::Fallback),
            },
        };
        let config = RecorderConfig {
            version: prelude.version(),
            net_version: text("net_version", header.net_version.to_str())?,
            map_name: text("map_name", header.map_name.to_str())?,
            kind: text("type", header.kind.to_str())?,
            timestamp: text("timestamp", header.timestamp.to_str())?,
            huffman_rule: self.rule.0,
            map_crc: Some(header.map_crc),
            // A version-6 file without the block gets one, with the map's digest.
            map_sha256: prelude.map_sha256.map(|sha| sha.digest),
        };
        let sink = self.sink.take().ok_or(TrimError::RecorderStartedTwice)?;
        let mut recorder = Recorder::start(sink, &config, self.map)?;
        // The sizes the input was replayed with, whatever the recorder took from the
        // network version (they agree, both come from it).
        recorder.set_item_sizes(self.state.sizes);
        Ok(recorder)
    }

    /// Adds the timeline markers in the written range and finishes the recording.
    fn finish(self, replay: &Replay, from: i32, to: i32) -> Result<(W, TrimReport), TrimError> {
        let c = self.state.counts;
        let (Some(mut recorder), Some(first_tick), Some(last_tick)) =
            (self.recorder, c.first_tick, c.last_tick)
        else {
            return Err(TrimError::NoSnapshot { from, to });
        };
        let mut kept = Vec::new();
        let mut refused = Vec::new();
        for &marker in self.prelude.markers_in_use() {
            if (first_tick..=last_tick).contains(&marker) {
                if recorder.add_timeline_marker(marker) {
                    kept.push(marker);
                } else {
                    refused.push(marker);
                }
            }
        }
        let sink = recorder.finish()?;
        Ok((
            sink,
            TrimReport {
                first_tick,
                last_tick,
                ticks: c.ticks,
                snapshots: c.keyframes + c.deltas,
                keyframes: c.keyframes,
                order_keyframes: c.order_keyframes,
                deltas: c.deltas,
                unchanged_ticks: c.unchanged_ticks,
                messages: c.messages,
                markers: kept,
                markers_refused: refused,
                ticks_without_snapshot: c.ticks_without_snapshot,
                skipped_snapshots: replay.state.skipped,
                unknown_chunks: c.unknown_chunks,
                huffman_rule: self.rule.0,
                rule_source: self.rule.1,
                snapshot_order: self.state.order,
            },
        ))
    }
}

impl WriteState {
    /// Records the snapshot of `tick` under the keyframe policy.
    fn record_snapshot<W: Write + Seek>(
        &mut self,
        recorder: &mut Recorder<W>,
        tick: i32,
        snapshot: Snapshot<'_>,
    ) -> Result<(), TrimError> {
        let due = self
            .last_keyframe
            .is_none_or(|last| tick as i64 - last as i64 > KEYFRAME_INTERVAL as i64);
        if self.options.keyframes == KeyframePolicy::Ddnet {
            let before = recorder.last_keyframe();
            recorder.record_snapshot(tick, snapshot)?;
            // The recorder decides as `due` says; what it wrote is mirrored to count it and
            // to know the base of its next delta.
            debug_assert_eq!(due, recorder.last_keyframe() != before);
            if due {
                self.wrote_keyframe(tick, snapshot);
            } else if delta::create_delta_into(
                &self.base.as_snapshot(),
                &snapshot,
                &self.sizes,
                &mut self.delta,
            ) {
                self.counts.deltas += 1;
                self.base.copy_from(snapshot);
            } else {
                self.counts.unchanged_ticks += 1;
            }
            return Ok(());
        }
        if !due {
            // What Recorder::record_snapshot would write, if the player rebuilds the
            // snapshot from it item for item.
            let base = self.base.as_snapshot();
            let changed = delta::create_delta_into(&base, &snapshot, &self.sizes, &mut self.delta);
            let rebuilds = if changed {
                self.delta.len() * 4 <= MAX_RAW_PAYLOAD
                    && delta::apply_delta_with(&base, &self.delta, &self.sizes, &mut self.builder)
                        .is_ok()
                    && {
                        let mut rebuilt = self.builder.finish();
                        if self.order == SnapshotOrder::SortedByKey {
                            rebuilt.sort_by_key();
                        }
                        same_items(&rebuilt.as_snapshot(), &snapshot)
                    }
            } else {
                // A tick marker alone: the player repeats the last snapshot as it is.
                same_items(&base, &snapshot)
            };
            if rebuilds {
                recorder.record_tick_marker(tick, false)?;
                if changed {
                    recorder.record_delta_ints(&self.delta)?;
                    self.base.copy_from(snapshot);
                    self.counts.deltas += 1;
                } else {
                    self.counts.unchanged_ticks += 1;
                }
                return Ok(());
            }
            self.counts.order_keyframes += 1;
        }
        recorder.record_tick_marker(tick, true)?;
        recorder.record_snapshot_ints(snapshot.as_ints())?;
        self.wrote_keyframe(tick, snapshot);
        Ok(())
    }

    fn wrote_keyframe(&mut self, tick: i32, snapshot: Snapshot<'_>) {
        self.last_keyframe = Some(tick);
        self.base.copy_from(snapshot);
        self.counts.keyframes += 1;
    }
}

/// Where a seekable sink that writes front to back is: its position and the end of what
/// has been written.
#[derive(Debug, Default, Clone, Copy)]
struct Position {
    pos: u64,
    end: u64,
}

impl Position {
    /// Moves as [`Seek::seek`] does.
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => self.end.checked_add_signed(d),
        };
        self.pos = pos
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        Ok(self.pos)
    }

    /// `len` bytes written at the position: how many of them go over bytes written before.
    fn write(&mut self, len: usize) -> usize {
        let over = self.end.saturating_sub(self.pos).min(len as u64) as usize;
        self.pos += len as u64;
        self.end = self.end.max(self.pos);
        over
    }
}

/// The first run's sink: it keeps nothing but what is written over bytes written before
/// (the header fields the recorder patches when it finishes), with their offsets.
#[derive(Default)]
struct PatchLog {
    at: Position,
    patches: Vec<(u64, Vec<u8>)>,
}

impl Write for PatchLog {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let pos = self.at.pos;
        let over = self.at.write(buf.len());
        if over > 0 {
            // `over` counts bytes of `buf`.
            self.patches
                .push((pos, buf.get(..over).unwrap_or(buf).to_vec()));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for PatchLog {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.at.seek(to)
    }
}

/// The second run's sink: it writes into `inner` front to back, with the first run's
/// `patches` in place of the bytes they go over, and takes the recorder's late writing of
/// them (which must be the same bytes) without writing it again.
struct Patched<'p, W> {
    inner: W,
    patches: &'p [(u64, Vec<u8>)],
    at: Position,
    scratch: Vec<u8>,
}

impl<W: Write> Write for Patched<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let (pos, end) = (self.at.pos, self.at.end);
        let len = buf.len() as u64;
        if pos < end {
            // Only the recorder's patches go back, each in one piece.
            if pos + len > end || !self.patches.iter().any(|(at, b)| *at == pos && b == buf) {
                return Err(io::Error::other(
                    "the trim's second run wrote its header differently from its first",
                ));
            }
            self.at.write(buf.len());
            return Ok(buf.len());
        }
        if pos > end {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "a gap in a sink written front to back",
            ));
        }
        let mut patched = false;
        for (at, patch) in self.patches {
            let patch_end = at + patch.len() as u64;
            let (from, to) = ((*at).max(pos), patch_end.min(pos + len));
            if from < to {
                if !patched {
                    self.scratch.clear();
                    self.scratch.extend_from_slice(buf);
                    patched = true;
                }
                // `from..to` lies inside both the patch and `buf`.
                let range = (from - pos) as usize..(to - pos) as usize;
                if let Some(dst) = self.scratch.get_mut(range)
                    && let Some(src) = patch.get((from - at) as usize..(to - at) as usize)
                {
                    dst.copy_from_slice(src);
                }
            }
        }
        self.inner
            .write_all(if patched { &self.scratch } else { buf })?;
        self.at.write(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Seek for Patched<'_, W> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.at.seek(to)
    }
}

/// Messages waiting for the next tick written: their payloads, back to back.
#[derive(Default)]
struct Messages {
    bytes: Vec<u8>,
    ranges: Vec<std::ops::Range<usize>>,
    /// Chunks of unknown type dropped among them.
    unknown: usize,
}

impl Messages {
    fn push(&mut self, ints: &[i32]) {
        let start = self.bytes.len();
        for int in ints {
            self.bytes.extend_from_slice(&int.to_le_bytes());
        }
        self.ranges.push(start..self.bytes.len());
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ranges.clear();
        self.unknown = 0;
    }
}

/// Whether two snapshots hold the same items (keys and data) in the same order.
fn same_items(a: &Snapshot<'_>, b: &Snapshot<'_>) -> bool {
    a.len() == b.len() && a.items().eq(b.items())
}

/// Reads on from `chunks` (a copy of the trim's, or a new reading of the input: no chunk
/// before the trim's place tells) to the first chunk whose stored length tells the Huffman
/// rules apart. Stops quietly at the first error: chunks that do not read say nothing
/// about the writer.
fn detect_rule_ahead(chunks: &mut impl ChunkSource) -> Option<(LengthRule, u64)> {
    let mut decoder = PayloadDecoder::new();
    while let Some(item) = chunks.next_chunk() {
        let item = item.ok()?;
        let Chunk::Data(chunk) = item.chunk else {
            continue;
        };
        if chunk.kind == ChunkKind::Unknown {
            continue;
        }
        let Ok(decoded) = decoder.decode(chunk.payload) else {
            return None;
        };
        if !decoded.rules_agree()
            && let Some(rule) = decoded.length_rule(chunk.payload.len())
        {
            return Some((rule, item.offset));
        }
    }
    None
}

/// Why a range does not resolve to ticks of a demo, from [`resolve_range`].
#[derive(Debug, thiserror::Error)]
pub enum RangeError {
    /// The range resolves to a first tick after its last one.
    #[error("the range is empty: it starts at tick {from}, after its end at tick {to}")]
    Empty {
        /// The first tick.
        from: i32,
        /// The last tick.
        to: i32,
    },
    /// A tick given as a number lies outside the demo's ticks. Demos number their ticks
    /// from when the server started, so a small number is usually meant as seconds (`5s`)
    /// or a marker (`m1`); cutting to the whole demo instead would hide the mistake.
    #[error(
        "tick {tick} is outside the demo, whose ticks run from {first} to {last} (for a time \
         from the start write seconds, e.g. 5s; for a timeline marker, m1)"
    )]
    TickOutside {
        /// The tick asked for.
        tick: i32,
        /// The demo's first tick.
        first: i32,
        /// Its last tick.
        last: i32,
    },
    /// A timeline marker the header does not have.
    #[error("there is no timeline marker {marker}: the demo has {count}")]
    NoMarker {
        /// The marker asked for (from 1).
        marker: usize,
        /// How many the header has in use.
        count: usize,
    },
    /// A time or an open end needs the demo's ticks, and it has no tick marker before its
    /// first unreadable chunk.
    #[error("the demo has no tick to count from")]
    NoTicks,
    /// The prelude does not read.
    #[error("reading the demo: {0}")]
    Read(#[from] ReadError),
}

/// The ticks `from..=to` of the demo `data` name, for [`trim`]: `None` for `from` is the
/// demo's first tick, for `to` its last; a [`RangeBound::Seconds`] counts from the first
/// tick, a `from` rounding up to the next whole tick and a `to` down (so the range never
/// holds a tick outside the times given); a [`RangeBound::Marker`] is that marker's tick.
///
/// The first and last ticks are those of the tick markers that read, up to the first chunk
/// that does not (so an open end of a cut demo is its last readable tick); the chunks are
/// only scanned when a time or an open end needs them.
///
/// Errors: a tick outside the demo's first to last tick ([`RangeError::TickOutside`]), a
/// marker the header does not have ([`RangeError::NoMarker`]), no tick marker when one is
/// needed ([`RangeError::NoTicks`]), a first tick after the last one
/// ([`RangeError::Empty`]), a prelude that does not read.
pub fn resolve_range(
    data: &[u8],
    from: Option<RangeBound>,
    to: Option<RangeBound>,
) -> Result<TickRange, RangeError> {
    resolve_range_reader(data, from, to)
}

/// [`resolve_range`] of a demo read as a stream: its chunk headers are read one at a time
/// (payloads are not decoded), so memory does not grow with the demo.
pub fn resolve_range_reader<R: Read>(
    input: R,
    from: Option<RangeBound>,
    to: Option<RangeBound>,
) -> Result<TickRange, RangeError> {
    // An open end needs the demo's ticks as much as a tick or seconds do.
    let only_markers = [from, to]
        .iter()
        .all(|b| matches!(b, Some(RangeBound::Marker(_))));
    let demo = Bounds::of(input, !only_markers)?;
    let resolve = |bound: Option<RangeBound>, is_from: bool| -> Result<i32, RangeError> {
        let end = if is_from {
            RangeEnd::Start
        } else {
            RangeEnd::End
        };
        match bound {
            Some(bound) => demo.tick(bound, end),
            None if is_from => demo.first.ok_or(RangeError::NoTicks),
            None => demo.last.ok_or(RangeError::NoTicks),
        }
    };
    let (from, to) = (resolve(from, true)?, resolve(to, false)?);
    if from > to {
        return Err(RangeError::Empty { from, to });
    }
    Ok(TickRange::new(from, to))
}

/// The ticks `bounds` name in the demo read from `input` (as [`resolve_range_reader`] reads
/// it), each resolved as [`resolve_range`] resolves a range's start (seconds round up to
/// the next whole tick): for `demokit markers`, which takes ticks the way `trim` does.
///
/// Errors: those of [`resolve_range`] but [`RangeError::Empty`].
pub(crate) fn resolve_ticks_reader<R: Read>(
    input: R,
    bounds: &[RangeBound],
) -> Result<Vec<i32>, RangeError> {
    let needs_ticks = bounds.iter().any(|b| !matches!(b, RangeBound::Marker(_)));
    let demo = Bounds::of(input, needs_ticks)?;
    bounds
        .iter()
        .map(|&bound| demo.tick(bound, RangeEnd::Start))
        .collect()
}

/// What bounds resolve against: the demo's first and last tick (of the tick markers that
/// read, up to the first chunk that does not) and its timeline markers.
struct Bounds {
    first: Option<i32>,
    last: Option<i32>,
    markers: Vec<i32>,
}

impl Bounds {
    /// Reads the markers of `input` and, when `needs_ticks` (a tick is checked against the
    /// demo's ticks, seconds count from the first, an open end is one), scans its chunks
    /// for the first and last tick.
    fn of(input: impl Read, needs_ticks: bool) -> Result<Bounds, RangeError> {
        let mut chunks = DemoReader::new(input)?;
        let (mut first, mut last) = (None, None);
        if needs_ticks {
            while let Some(item) = chunks.next_chunk() {
                let Ok(item) = item else { break };
                if let Chunk::Tick(marker) = item.chunk {
                    first.get_or_insert(marker.tick);
                    last = Some(marker.tick);
                }
            }
        }
        Ok(Bounds {
            first,
            last,
            markers: chunks.prelude().markers_in_use().to_vec(),
        })
    }

    /// The tick `bound` names; `end` says how seconds round.
    fn tick(&self, bound: RangeBound, end: RangeEnd) -> Result<i32, RangeError> {
        match bound {
            RangeBound::Tick(tick) => match (self.first, self.last) {
                (Some(first), Some(last)) if tick < first || tick > last => {
                    Err(RangeError::TickOutside { tick, first, last })
                }
                _ => Ok(tick),
            },
            RangeBound::Marker(marker) => {
                self.markers
                    .get(marker.wrapping_sub(1))
                    .copied()
                    .ok_or(RangeError::NoMarker {
                        marker,
                        count: self.markers.len(),
                    })
            }
            RangeBound::Seconds(seconds) => {
                let first = self.first.ok_or(RangeError::NoTicks)?;
                Ok(tick_after_seconds(first, seconds, end))
            }
        }
    }
}

#[cfg(test)]
mod range_tests {
    use super::*;
    use crate::twdemo::container::writer::DemoWriter;

    /// A demo whose tick markers are `ticks` and whose header has `markers`.
    fn demo(ticks: &[i32], markers: &[i32]) -> Vec<u8> {
        let data = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/recorded_v6.demo"
        ))
        .unwrap();
        let mut prelude = *DemoSlice::parse(&data).unwrap().prelude();
        let mut block = crate::twdemo::container::format::TimelineMarkers::EMPTY;
        block.count = markers.len() as i32;
        block.ticks[..markers.len()].copy_from_slice(markers);
        prelude.timeline_markers = Some(block);
        let map = DemoSlice::parse(&data).unwrap().map().to_vec();
        let mut w = DemoWriter::new(Vec::new(), &prelude, &map).unwrap();
        for &tick in ticks {
            let marker = crate::twdemo::TickMarker {
                tick,
                keyframe: false,
                form: crate::twdemo::TickForm::Absolute,
            };
            w.write_tick_marker(marker).unwrap();
        }
        w.into_inner().unwrap()
    }

    #[test]
    fn ranges_resolve() {
        let data = demo(&[100, 101, 150, 400], &[150, 300]);
        let r = |from, to| resolve_range(&data, from, to).map(|r| (r.from, r.to));
        use RangeBound::*;
        assert_eq!(r(None, None).unwrap(), (100, 400));
        assert_eq!(r(Some(Tick(120)), None).unwrap(), (120, 400));
        assert_eq!(
            r(Some(Seconds(1.0)), Some(Seconds(5.0))).unwrap(),
            (150, 350)
        );
        // 0.1 s is 5 ticks, not 6; 0.03 s rounds up at the start and down at the end.
        assert_eq!(r(Some(Seconds(0.1)), None).unwrap(), (105, 400));
        assert_eq!(
            r(Some(Seconds(0.03)), Some(Seconds(0.05))).unwrap(),
            (102, 102)
        );
        assert_eq!(r(Some(Marker(1)), Some(Marker(2))).unwrap(), (150, 300));
        assert!(matches!(
            r(Some(Marker(3)), None),
            Err(RangeError::NoMarker {
                marker: 3,
                count: 2
            })
        ));
        assert!(matches!(
            r(Some(Tick(300)), Some(Marker(1))),
            Err(RangeError::Empty { from: 300, to: 150 })
        ));
        assert!(matches!(
            r(Some(Seconds(0.03)), Some(Seconds(0.035))),
            Err(RangeError::Empty { from: 102, to: 101 })
        ));
        let none = demo(&[], &[]);
        assert!(matches!(
            resolve_range(&none, None, Some(Tick(5))),
            Err(RangeError::NoTicks)
        ));
        assert_eq!(
            resolve_range(&none, Some(Tick(1)), Some(Tick(5))).unwrap(),
            TickRange::new(1, 5)
        );
    }
}
