//! The Teeworlds/DDNet demo as a [`RecordingFormat`]: every operation of the entry point
//! done by this format's layers, each reading the [`Input`] as a stream, and this format's
//! errors turned into the one [`Error`] here, once.
//!
//! The streaming readers the operations use stay in their layers (`edit::trim`,
//! `game::chat`, ...); this file only connects them to the trait's one signature family.

use super::container::reader::{Chunk, ChunkAt, ChunkSource, DemoReader};
use super::edit::{convert, markers, repair, scrub, trim};
use super::game::chat::DemoChatLine;
use super::game::{Event, GameReplay, ObjectAt, TickLogger};
use super::snapshot::replay::{ReplayError, ReplayedTick, SnapshotReplay};
use super::{ChunkKind, DecodedPayload, PayloadDecoder, SnapshotBuf, WriteError};
use crate::format::{
    Capability, DumpEnd, Error, Format, GameEnd, GameWalk, Input, Operation, OptionalResults,
    RecordingFormat, RepairOptions, Validation,
};
use crate::gamenet::summary::GameLog;
use crate::gamenet::{AnyMessage, Unpacked};
use crate::model::{GameFacts, GameOptions, GameSink, PlayerAt, PlayerList, Sample};
use crate::scrub::{ChatFilter, Pseudonyms, ScrubOptions};
use crate::time::{RangeBound, TickRange};
use std::io::Write;

/// The Teeworlds/DDNet demo format (`TWDEMO`, versions 3 to 6), as the entry point sees it.
#[derive(Debug, Clone, Copy)]
pub struct TwDemo;

/// A demo's chunk as it is stored, the tick a data chunk belongs to, and its decoded
/// payload or why it did not decode: one record of [`TwDemo::dump`].
///
/// With the `serde` feature: the chunk's [`ChunkAt`] fields, then `tick`, `decoded` and
/// `error` where they apply.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct DemoChunk<'a> {
    /// The chunk as read.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub chunk: ChunkAt<'a>,
    /// For a data chunk: the tick of the last tick marker before it (absent before the
    /// first; a tick marker carries its own `tick`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub tick: Option<i32>,
    /// The decoded payload of a data chunk (chunks of the unknown type are not decoded:
    /// players skip them, and their payload need not be a Huffman stream at all).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub decoded: Option<DecodedPayload<'a>>,
    /// Why the payload could not be decoded.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub error: Option<String>,
}

impl DemoChunk<'_> {
    /// The tick the chunk belongs to: a tick marker's own, a data chunk's last marker's
    /// (`None` before the first).
    pub fn tick(&self) -> Option<i32> {
        match self.chunk.chunk {
            Chunk::Tick(marker) => Some(marker.tick),
            Chunk::Data(_) => self.tick,
        }
    }
}

/// How many ints a text line shows before it elides the rest.
const TEXT_INTS_SHOWN: usize = 16;

/// The text line of a chunk: offset, tick and kind, then for a data chunk its stored and
/// decoded sizes and the first ints (or the stored bytes of an undecoded chunk).
impl std::fmt::Display for DemoChunk<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let offset = self.chunk.offset;
        let d = match self.chunk.chunk {
            Chunk::Tick(marker) => {
                let keyframe = if marker.keyframe { " keyframe" } else { "" };
                let line = format!("{offset:>10} {:>10}  {:<8}{keyframe}", marker.tick, "tick");
                return f.write_str(line.trim_end());
            }
            Chunk::Data(d) => d,
        };
        let tick = self.tick.map_or_else(|| "-".to_string(), |t| t.to_string());
        let decoded = self
            .decoded
            .map_or_else(|| "-".to_string(), |p| (4 * p.ints.len()).to_string());
        let mut line = format!(
            "{offset:>10} {tick:>10}  {:<8} {:>6} {decoded:>7}  ",
            d.kind.name(),
            d.payload.len()
        );
        use std::fmt::Write as _;
        if let Some(decoded) = self.decoded {
            let ints = decoded.ints;
            let shown = ints.get(..TEXT_INTS_SHOWN).unwrap_or(ints);
            let list: Vec<String> = shown.iter().map(i32::to_string).collect();
            let _ = write!(line, "[{}", list.join(" "));
            if ints.len() > shown.len() {
                let _ = write!(line, " ... +{} more", ints.len() - shown.len());
            }
            line.push(']');
        } else if self.error.is_none() {
            let shown = d.payload.get(..TEXT_INTS_SHOWN * 4).unwrap_or(d.payload);
            let more = if shown.len() < d.payload.len() {
                "..."
            } else {
                ""
            };
            let _ = write!(line, "raw {}{more}", hex::encode(shown));
        }
        if let Some(error) = &self.error {
            let _ = write!(line, "error: {error}");
        }
        f.write_str(line.trim_end())
    }
}

/// One game event of a demo and its tick: one record of [`TwDemo::events`].
///
/// With the `serde` feature: `{"tick", "kind", ...}` with the event's fields.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct EventAt<'a> {
    /// The tick.
    pub tick: i32,
    /// What happened.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub event: &'a Event,
}

/// A demo's typed snapshot item or message of a tick: one record of
/// [`TwDemo::game_records`].
#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "record", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum DemoRecord<'a> {
    /// A snapshot item.
    Object {
        /// The tick.
        tick: i32,
        /// The item.
        #[cfg_attr(feature = "serde", serde(flatten))]
        object: &'a ObjectAt<'a>,
    },
    /// A message chunk.
    Message {
        /// The tick.
        tick: i32,
        /// The message.
        #[cfg_attr(feature = "serde", serde(flatten))]
        message: &'a Unpacked<'a, AnyMessage<'a>>,
    },
}

impl DemoRecord<'_> {
    /// The tick the record belongs to.
    pub fn tick(&self) -> i32 {
        match self {
            DemoRecord::Object { tick, .. } | DemoRecord::Message { tick, .. } => *tick,
        }
    }
}

impl From<ReplayError> for Error {
    fn from(error: ReplayError) -> Error {
        match error {
            ReplayError::Read(e) => e.into(),
            ReplayError::Payload {
                offset, ref error, ..
            } => Error::Invalid {
                offset,
                message: error.to_string(),
                truncated: false,
                io: false,
            },
            other => Error::Invalid {
                offset: other.offset(),
                message: other.to_string(),
                truncated: false,
                io: false,
            },
        }
    }
}

/// A range error of `operation`: a read error as it is, anything else the arguments'.
fn range_error(error: trim::RangeError, operation: Operation) -> Error {
    match error {
        trim::RangeError::Read(e) => e.into(),
        trim::RangeError::NoTicks if operation == Operation::Trim => {
            Error::refused(operation, error)
        }
        usage => Error::Argument {
            operation,
            message: usage.to_string(),
        },
    }
}

// The results of the operations only demos have: real ones.
impl Capability for convert::ConvertReport {
    const SUPPORTED: bool = true;
}
impl Capability for markers::MarkerList {
    const SUPPORTED: bool = true;
}
impl Capability for markers::MarkersReport {
    const SUPPORTED: bool = true;
}
impl Capability for repair::ExtractedMap {
    const SUPPORTED: bool = true;
}
impl Capability for Vec<DemoChatLine> {
    const SUPPORTED: bool = true;
}
impl Capability for ReplayedTick<'_> {
    const SUPPORTED: bool = true;
}

/// A demo has every operation only some formats have.
impl OptionalResults for TwDemo {
    type ConvertReport = convert::ConvertReport;
    type Markers = markers::MarkerList;
    type MarkersReport = markers::MarkersReport;
    type EmbeddedMap = repair::ExtractedMap;
    type ChatLines = Vec<DemoChatLine>;
    type Snapshot<'a> = ReplayedTick<'a>;
}

impl RecordingFormat for TwDemo {
    const FORMAT: Format = Format::TwDemo;
    const DUMP_COLUMNS: &'static str = "    offset       tick  kind        raw decoded  payload";
    type Summary = super::Summary;
    type RewriteStats = super::RewriteStats;
    type RepairReport = repair::RepairReport;
    type TrimReport = trim::TrimReport;
    type ScrubReport = scrub::ScrubReport;
    type Record<'a> = DemoChunk<'a>;
    type Event<'a> = EventAt<'a>;
    type GameRecord<'a> = DemoRecord<'a>;
    type Optional = Self;

    fn check_header(input: Input<'_>) -> Result<(), Error> {
        DemoReader::new(input.open()?)?;
        Ok(())
    }

    fn summary(input: Input<'_>) -> Result<(Self::Summary, Option<Error>), Error> {
        let (summary, error) = super::Summary::scan_reader(input.open()?)?;
        Ok((summary, error.map(Into::into)))
    }

    fn validate(input: Input<'_>) -> Result<Validation, Error> {
        // Read twice as a stream (DDNet's scan, then its playing).
        let report = super::edit::validate::validate_reader(|| input.reopen());
        Ok(Validation {
            format: Self::FORMAT,
            accepted: report.accepted(),
            verdict: Some(report.verdict()),
            problems: report.problems,
        })
    }

    fn rewrite(
        input: Input<'_>,
        out: &mut dyn Write,
    ) -> Result<(Self::RewriteStats, Option<Error>), Error> {
        crate::format::rewritten(super::rewrite_reader(input.open()?, out))
    }

    fn repair(
        input: Input<'_>,
        _options: &RepairOptions,
        out: &mut dyn Write,
    ) -> Result<Self::RepairReport, Error> {
        // Read twice as a stream: what the header needs is at the end.
        repair::repair_reader(|| input.reopen(), out).map_err(|e| match e {
            repair::RepairError::Write(e) => Error::write(e),
            repair::RepairError::Reread(e) => e.into(),
            other => Error::refused(Operation::Repair, other),
        })
    }

    fn tick_range(
        input: Input<'_>,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        operation: Operation,
    ) -> Result<TickRange, Error> {
        trim::resolve_range_reader(input.open()?, from, to).map_err(|e| range_error(e, operation))
    }

    fn trim(
        input: Input<'_>,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        out: &mut dyn Write,
    ) -> Result<Self::TrimReport, Error> {
        // Read as streams (the range's end, then the two runs of the trim, whose first
        // finds the header's fields), so that memory does not grow with the file.
        let range = Self::tick_range(input, from, to, Operation::Trim)?;
        trim::trim_reader(|| input.reopen(), range, out).map_err(|e| match e {
            trim::TrimError::Write(WriteError::Io(e)) => Error::write(e),
            other => Error::refused(Operation::Trim, other),
        })
    }

    fn scrub_everything(key: Option<Vec<u8>>) -> ScrubOptions {
        ScrubOptions {
            names: Some(Pseudonyms { key }),
            chat: Some(ChatFilter::All),
            server: true,
            ..ScrubOptions::default()
        }
    }

    fn scrub(
        input: Input<'_>,
        options: &ScrubOptions,
        out: &mut dyn Write,
    ) -> Result<Self::ScrubReport, Error> {
        // Read twice as a stream (to check it and find the names, then to write), so
        // memory does not grow with the file; nothing is written before the first reading
        // has checked it all.
        scrub::scrub_reader(|| input.reopen(), options, out).map_err(|e| match e {
            scrub::ScrubError::Write {
                source: WriteError::Io(e),
                ..
            } => Error::write(e),
            scrub::ScrubError::Options(_) => crate::format::scrub_failed(None, &e),
            e => crate::format::scrub_failed(e.offset(), &e),
        })
    }

    fn dump(input: Input<'_>, each: &mut dyn FnMut(DemoChunk<'_>)) -> Result<DumpEnd, Error> {
        // Read as a stream: memory does not grow with the file.
        let mut end = DumpEnd::default();
        let mut reader = DemoReader::new(input.open()?)?;
        let mut decoder = PayloadDecoder::new();
        let mut tick = None;
        while let Some(item) = reader.next() {
            let item = match item {
                Ok(item) => item,
                Err(e) => {
                    end.error = Some(e.into());
                    break;
                }
            };
            let mut line = DemoChunk {
                chunk: item,
                tick: None,
                decoded: None,
                error: None,
            };
            match item.chunk {
                Chunk::Tick(marker) => tick = Some(marker.tick),
                Chunk::Data(d) => {
                    line.tick = tick;
                    if d.kind != ChunkKind::Unknown {
                        match decoder.decode(d.payload) {
                            Ok(decoded) => line.decoded = Some(decoded),
                            Err(e) => line.error = Some(e.to_string()),
                        }
                    }
                }
            }
            if let Some(error) = &line.error {
                let first = end
                    .undecodable
                    .get_or_insert((0, item.offset, error.clone()));
                first.0 += 1;
            }
            each(line);
        }
        Ok(end)
    }

    fn game_log(input: Input<'_>) -> Result<(GameLog, Option<Error>), Error> {
        // Streamed: memory does not grow with the file.
        let (log, error) = super::game::game_log_reader(input.open()?)?;
        Ok((log, error.map(Into::into)))
    }

    fn events(input: Input<'_>, each: &mut dyn FnMut(EventAt<'_>)) -> Result<GameWalk, Error> {
        // Streamed: memory does not grow with the file.
        let mut walk = GameWalk::default();
        let mut replay = GameReplay::from_reader(DemoReader::new(input.open()?)?);
        while let Some(tick) = replay.next() {
            match tick {
                Ok(tick) => {
                    for event in tick.world.events() {
                        each(EventAt {
                            tick: tick.tick,
                            event,
                        });
                    }
                }
                Err(e) => {
                    walk.error = Some(e.into());
                    break;
                }
            }
        }
        walk.skipped = replay.skipped();
        Ok(walk)
    }

    fn game_records(
        input: Input<'_>,
        each: &mut dyn FnMut(DemoRecord<'_>),
    ) -> Result<GameWalk, Error> {
        // Streamed: memory does not grow with the file.
        let mut replay = GameReplay::from_reader(DemoReader::new(input.open()?)?);
        let mut walk = GameWalk::default();
        while let Some(tick) = replay.next() {
            let tick = match tick {
                Ok(tick) => tick,
                Err(e) => {
                    walk.error = Some(e.into());
                    break;
                }
            };
            for object in tick.objects() {
                each(DemoRecord::Object {
                    tick: tick.tick,
                    object: &object,
                });
            }
            for message in tick.messages() {
                each(DemoRecord::Message {
                    tick: tick.tick,
                    message: &message,
                });
            }
        }
        walk.skipped = replay.skipped();
        Ok(walk)
    }

    fn facts(input: Input<'_>) -> Result<GameFacts, Error> {
        let reader = DemoReader::new(input.open()?)?;
        let prelude = reader.prelude();
        let header = &prelude.header;
        Ok(GameFacts {
            version: prelude.version().to_string(),
            map: String::from_utf8_lossy(header.map_name.text_bytes()).into_owned(),
            start_time: crate::model::start_time_of_demo(&String::from_utf8_lossy(
                header.timestamp.text_bytes(),
            )),
            tick_rate: f64::from(crate::time::SERVER_TICK_SPEED),
            ..GameFacts::default()
        })
    }

    fn game(
        input: Input<'_>,
        options: &GameOptions,
        sink: &mut dyn GameSink,
    ) -> Result<GameEnd, Error> {
        let mut end = GameEnd {
            facts: Self::facts(input)?,
            ..GameEnd::default()
        };
        // Streamed: memory does not grow with the file.
        let reader = DemoReader::new(input.open()?)?;
        let prelude = *reader.prelude();
        let chunks = CountedChunks {
            chunks: reader,
            read: std::rc::Rc::default(),
        };
        let read = std::rc::Rc::clone(&chunks.read);
        let mut replay = GameReplay::over(&prelude, chunks);
        let mut log = TickLogger::default();
        // The last tick sampled and its samples, for the ticks after it that have none.
        let mut last_sampled: Option<i32> = None;
        let mut previous: Vec<(Sample, String)> = Vec::new();
        let mut list = PlayerList::default();
        while let Some(tick) = replay.next() {
            let tick = match tick {
                Ok(tick) => tick,
                Err(e) => {
                    end.error = Some(e.into());
                    break;
                }
            };
            let at = tick.tick;
            end.saw(at);
            if options.log {
                log.tick(&tick);
            }
            if options.players {
                // Ticks without a snapshot of their own hold the last one's characters
                // (the model's sampling rule), up to a minute of them.
                if let Some(skipped) = crate::model::filled_ticks(last_sampled, at)
                    && !previous.is_empty()
                {
                    list.with(|players| {
                        players.extend(previous.iter().map(|(sample, name)| PlayerAt {
                            sample: *sample,
                            name,
                            camera: false,
                        }));
                        for skipped in skipped.filter(|&t| options.keeps(t)) {
                            sink.players(skipped, players);
                        }
                    });
                }
                last_sampled = Some(at);
                // A tick before the range still gives the samples its following ticks
                // are filled with.
                previous.clear();
                for c in tick
                    .world
                    .characters()
                    .filter(|c| options.keeps_player(c.client_id))
                {
                    let name = match tick.world.player(c.client_id) {
                        Some(p) if options.names => p.name.clone(),
                        _ => String::new(),
                    };
                    previous.push((c.sample(at), name));
                }
                if options.keeps(at) {
                    list.with(|players| {
                        players.extend(previous.iter().map(|(sample, name)| PlayerAt {
                            sample: *sample,
                            name,
                            camera: false,
                        }));
                        sink.players(at, players);
                    });
                }
            }
            if options.stops_at(at) {
                break;
            }
        }
        end.records = read.get();
        if options.log {
            end.log = log.finish();
        }
        Ok(end)
    }

    fn game_map(
        input: Input<'_>,
        given: Option<&[u8]>,
        operation: Operation,
    ) -> Result<Option<Vec<u8>>, Error> {
        let embedded = Self::extract_map(input).ok();
        match (given, embedded) {
            (Some(map), Some(embedded)) => {
                let actual = crc32fast::hash(map);
                if actual != embedded.crc32.expected {
                    return Err(crate::format::map_mismatch(
                        operation,
                        "CRC-32",
                        format!("{:08x}", embedded.crc32.expected),
                        format!("{actual:08x}"),
                    ));
                }
                Ok(Some(map.to_vec()))
            }
            (Some(map), None) => Ok(Some(map.to_vec())),
            (None, embedded) => Ok(embedded.map(|e| e.bytes).filter(|bytes| !bytes.is_empty())),
        }
    }

    fn convert(
        input: Input<'_>,
        version: u8,
        out: &mut dyn Write,
    ) -> Result<convert::ConvertReport, Error> {
        // Read as a stream and written as it goes.
        convert::convert_reader(|| input.reopen(), version, out).map_err(|e| match e {
            convert::ConvertError::Write(WriteError::Io(e)) => Error::write(e),
            other => Error::refused(Operation::Convert, other),
        })
    }

    fn markers(input: Input<'_>) -> Result<markers::MarkerList, Error> {
        Ok(markers::list_markers_reader(input.open()?)?)
    }

    fn edit_markers(
        input: Input<'_>,
        add: &[RangeBound],
        remove: &[RangeBound],
        out: &mut dyn Write,
    ) -> Result<markers::MarkersReport, Error> {
        // Read as streams: the ticks named, then the markers' checks, then the copy.
        let ticks = |bounds: &[RangeBound]| {
            trim::resolve_ticks_reader(input.open()?, bounds)
                .map_err(|e| range_error(e, Operation::Markers))
        };
        let (add, remove) = (ticks(add)?, ticks(remove)?);
        markers::edit_markers_reader(|| input.reopen(), &add, &remove, out).map_err(|e| match e {
            markers::MarkersError::Write(WriteError::Io(e)) => Error::write(e),
            other => Error::refused(Operation::Markers, other),
        })
    }

    fn extract_map(input: Input<'_>) -> Result<repair::ExtractedMap, Error> {
        repair::extract_map_reader(input.open()?)
            .map_err(|e| Error::refused(Operation::ExtractMap, e))
    }

    fn chat(input: Input<'_>) -> Result<(Vec<DemoChatLine>, Option<Error>), Error> {
        // Streamed: memory does not grow with the file.
        let (lines, error) = super::game::chat::chat_lines_reader(input.open()?)?;
        Ok((lines, error.map(Into::into)))
    }

    fn snapshots(
        input: Input<'_>,
        each: &mut dyn FnMut(ReplayedTick<'_>),
    ) -> Result<GameWalk, Error> {
        // Streamed: memory does not grow with the file.
        let mut replay = SnapshotReplay::from_reader(DemoReader::new(input.open()?)?);
        let mut sorted = SnapshotBuf::new();
        let mut walk = GameWalk::default();
        while let Some(tick) = replay.next() {
            let mut tick = match tick {
                Ok(tick) => tick,
                Err(e) => {
                    walk.error = Some(e.into());
                    break;
                }
            };
            if let Some(snapshot) = tick.snapshot {
                sorted.copy_from(snapshot);
                sorted.sort_by_key();
                tick.snapshot = Some(sorted.as_snapshot());
            }
            each(tick);
        }
        walk.skipped = replay.skipped();
        Ok(walk)
    }
}

/// A demo's chunks, counted as they are read: the records a game walk read.
struct CountedChunks<C> {
    chunks: C,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<C: ChunkSource> ChunkSource for CountedChunks<C> {
    fn next_chunk(&mut self) -> Option<Result<ChunkAt<'_>, super::ReadError>> {
        let chunk = self.chunks.next_chunk();
        if let Some(Ok(_)) = chunk {
            self.read.set(self.read.get() + 1);
        }
        chunk
    }
}
