//! The Source engine demo as a [`RecordingFormat`]: every operation of the entry point done
//! by this format's layers, each reading the [`Input`] as a stream (memory does not grow
//! with the file), and this format's errors turned into the one [`Error`] here, once.

use super::game::{GameError, Item, Walk};
use super::reader::{FrameAt, SourceReader};
use super::{WriteError, repair, scrub, trim};
use crate::format::{
    DumpEnd, Error, Format, GameEnd, GameWalk, Input, Operation, RecordingFormat, RepairOptions,
    Unsupported, Validation,
};
use crate::gamenet::summary::GameLog;
use crate::model::{
    FieldValue, GameFacts, GameOptions, GameSink, PlayerAt, PlayerList, ProtocolEvent, Sample,
};
use crate::scrub::{ChatFilter, Pseudonyms, ScrubOptions};
use crate::time::{RangeBound, TickRange};
use std::io::Write;

/// The ticks per second of a demo whose header does not say (a recording cut off before
/// its end was written): the Source engine's default.
const DEFAULT_TICK_RATE: f64 = 66.0;

/// The Source engine demo format (`HL2DEMO`), as the entry point sees it.
#[derive(Debug, Clone, Copy)]
pub struct SourceDemo;

impl From<GameError> for Error {
    fn from(error: GameError) -> Error {
        match error {
            GameError::Read(e) => e.into(),
            GameError::Unsupported { .. } => Error::Refused {
                operation: Operation::GameLog,
                message: error.to_string(),
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

/// The text line of a frame: offset, size, tick, command, payload size and the command's
/// own fields (a console command quoted as a JSON string, so this needs the `serde`
/// feature).
#[cfg(feature = "serde")]
impl std::fmt::Display for FrameAt<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use super::Body;
        use std::fmt::Write as _;
        let frame = &self.frame;
        let mut text = format!(
            "{:>10} {:>8} {:>8}  {:<12} {:>8} ",
            self.offset,
            self.len,
            frame.tick,
            frame.command().name(),
            frame.payload().len()
        );
        let _ = match &frame.body {
            Body::Signon(p) | Body::Packet(p) => {
                write!(text, " seq_in={} seq_out={}", p.seq_in, p.seq_out)
            }
            Body::ConsoleCmd(bytes) => {
                let bytes = bytes.strip_suffix(b"\0").unwrap_or(bytes);
                // Quoted and escaped as a JSON string: control characters stay visible.
                let quoted =
                    serde_json::to_string(&String::from_utf8_lossy(bytes)).unwrap_or_default();
                write!(text, " {quoted}")
            }
            Body::UserCmd { sequence, .. } => write!(text, " sequence={sequence}"),
            Body::CustomData { callback, .. } => write!(text, " callback={callback}"),
            Body::Stop { tail } => write!(text, " tail={}", hex::encode(tail)),
            // synctick, datatables, stringtables: nothing more to show.
            _ => Ok(()),
        };
        f.write_str(text.trim_end())
    }
}

impl RecordingFormat for SourceDemo {
    const FORMAT: Format = Format::SourceDemo;
    const DUMP_COLUMNS: &'static str =
        "    offset     size     tick  command       payload  fields";
    type Summary = super::summary::Summary;
    type RewriteStats = super::RewriteStats;
    type RepairReport = repair::RepairReport;
    type TrimReport = trim::TrimReport;
    type ScrubReport = scrub::ScrubReport;
    type Record<'a> = FrameAt<'a>;
    type Event<'a> = Item<'a>;
    type GameRecord<'a> = Item<'a>;
    type Optional = Unsupported;

    fn check_header(input: Input<'_>) -> Result<(), Error> {
        SourceReader::new(input.open()?)?;
        Ok(())
    }

    fn summary(input: Input<'_>) -> Result<(Self::Summary, Option<Error>), Error> {
        let (summary, error) = super::summary::Summary::scan_reader(input.open()?)?;
        Ok((summary, error.map(Into::into)))
    }

    fn validate(input: Input<'_>) -> Result<Validation, Error> {
        let report = super::summary::validate_reader(input.open()?);
        Ok(Validation {
            format: Self::FORMAT,
            accepted: report.accepted(),
            verdict: None,
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
        options: &RepairOptions,
        out: &mut dyn Write,
    ) -> Result<Self::RepairReport, Error> {
        let options = repair::RepairOptions {
            tick_interval: options.tick_interval,
        };
        // Read twice as a stream: what the header needs is at the end.
        repair::repair_reader(|| input.reopen(), &options, out).map_err(|e| match e {
            repair::RepairError::Write(WriteError::Io(e)) => Error::write(e),
            other => Error::refused(Operation::Repair, other),
        })
    }

    fn tick_range(
        _input: Input<'_>,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        operation: Operation,
    ) -> Result<TickRange, Error> {
        let argument = |message: String| Error::Argument { operation, message };
        // A Source demo's ticks are its own: only tick numbers name them.
        let tick = |bound: Option<RangeBound>, open: i32| match bound {
            None => Ok(open),
            Some(RangeBound::Tick(t)) => Ok(t),
            Some(other) => Err(argument(format!(
                "{other}: a Source demo's range is given in ticks (e.g. 1500)"
            ))),
        };
        let (from, to) = (tick(from, i32::MIN)?, tick(to, i32::MAX)?);
        if from > to {
            return Err(argument(format!(
                "the range is empty: it starts at tick {from}, after its end at tick {to}"
            )));
        }
        Ok(TickRange::new(from, to))
    }

    fn trim(
        input: Input<'_>,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        out: &mut dyn Write,
    ) -> Result<Self::TrimReport, Error> {
        // Read as streams: the state at the cut, then the frames.
        let range = Self::tick_range(input, from, to, Operation::Trim)?;
        trim::trim_reader(|| input.reopen(), range.from, range.to, out).map_err(|e| match e {
            trim::TrimError::Write(WriteError::Io(e)) => Error::write(e),
            trim::TrimError::Empty { .. } => Error::Argument {
                operation: Operation::Trim,
                message: e.to_string(),
            },
            trim::TrimError::Read(e) => e.into(),
            e @ trim::TrimError::Network { .. } => Error::Invalid {
                offset: e.offset().unwrap_or(0),
                message: format!("cannot trim: {e}"),
                truncated: false,
                io: false,
            },
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
        // Read twice as a stream, as the other formats.
        scrub::scrub_reader(|| input.reopen(), options, out).map_err(|e| match e {
            scrub::ScrubError::Write {
                source: WriteError::Io(e),
                ..
            } => Error::write(e),
            scrub::ScrubError::Options(_) => crate::format::scrub_failed(None, &e),
            // A branch the scrub cannot rewrite yet: refused as an operation a format
            // lacks is.
            scrub::ScrubError::Unsupported(_) => Error::refused(Operation::Scrub, e),
            e => crate::format::scrub_failed(e.offset(), &e),
        })
    }

    fn dump(input: Input<'_>, each: &mut dyn FnMut(FrameAt<'_>)) -> Result<DumpEnd, Error> {
        let mut end = DumpEnd::default();
        let mut reader = SourceReader::new(input.open()?)?;
        while let Some(item) = reader.next() {
            match item {
                Ok(item) => each(item),
                Err(e) => {
                    end.error = Some(e.into());
                    break;
                }
            }
        }
        Ok(end)
    }

    fn game_log(input: Input<'_>) -> Result<(GameLog, Option<Error>), Error> {
        // The entities give every player's team, which the events say only for those who
        // changed it.
        let (log, error) =
            super::game::game_log_reader_with(input.open()?, Walk::entities(), |_| {})?;
        Ok((log, error.map(Into::into)))
    }

    fn events(input: Input<'_>, each: &mut dyn FnMut(Item<'_>)) -> Result<GameWalk, Error> {
        let end = super::game::walk_reader(input.open()?, each)?;
        Ok(GameWalk {
            error: end.error.map(Into::into),
            ..GameWalk::default()
        })
    }

    fn game_records(input: Input<'_>, each: &mut dyn FnMut(Item<'_>)) -> Result<GameWalk, Error> {
        let end = super::game::walk_reader_with(input.open()?, Walk::objects(), |item| {
            if !matches!(item, Item::Players { .. }) {
                each(item);
            }
        })?;
        Ok(GameWalk {
            error: end.error.map(Into::into),
            ..GameWalk::default()
        })
    }

    fn facts(input: Input<'_>) -> Result<GameFacts, Error> {
        let header = *SourceReader::new(input.open()?)?.header();
        Ok(GameFacts {
            version: header.demo_protocol.to_string(),
            map: String::from_utf8_lossy(header.map.text_bytes()).into_owned(),
            server: String::from_utf8_lossy(header.server.text_bytes()).into_owned(),
            tick_rate: if header.playback_time > 0.0 && header.ticks > 0 {
                f64::from(header.ticks) / f64::from(header.playback_time)
            } else {
                DEFAULT_TICK_RATE
            },
            y_up: true,
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
        // The container's frames first: they count the records and the ticks of play
        // (Source ticks are not in order: sign-on frames, a level change), as `info`
        // gives them.
        let mut frames = SourceReader::new(input.open()?)?;
        let mut play = super::summary::PlayTicks::default();
        let mut index = 0;
        while let Some(frame) = frames.next() {
            let frame = match frame {
                Ok(frame) => frame,
                Err(e) => {
                    end.error = Some(e.into());
                    break;
                }
            };
            play.add(frame.frame.command(), frame.frame.tick);
            end.records += 1;
            if options.frames {
                sink.frame(&crate::model::FrameAt {
                    index,
                    offset: frame.offset,
                    len: frame.len as u64,
                    command: frame.frame.command().name(),
                    tick: frame.frame.tick,
                    slot: frame.frame.slot.map(i32::from),
                });
            }
            index += 1;
        }
        (end.first_tick, end.last_tick) = (play.first, play.last);
        if !(options.players || options.log || options.protocol_events) {
            return Ok(end);
        }
        // The players' names by slot, as the walk has met them so far.
        // The players' names by slot, and whether each is a camera (a SourceTV relay).
        let mut names: Vec<(i32, String, bool)> = Vec::new();
        // The walk can hand out several updates of one tick (a packet per view split,
        // frames of one tick): the players of the latest tick wait here, each player's
        // last state kept, until another tick comes.
        #[allow(clippy::type_complexity)]
        let mut pending: Option<(i32, Vec<(Sample, String, bool)>)> = None;
        let mut list = PlayerList::default();
        let mut hand_on =
            |sink: &mut dyn GameSink, tick: i32, samples: &mut Vec<(Sample, String, bool)>| {
                samples.sort_by_key(|(sample, ..)| sample.client_id);
                list.with(|players| {
                    players.extend(samples.iter().map(|(sample, name, camera)| PlayerAt {
                        sample: *sample,
                        name,
                        camera: *camera,
                    }));
                    sink.players(tick, players);
                });
            };
        let walk = Walk {
            // The entities give the positions, and every player's team.
            entities: options.players || options.log,
            ..Walk::default()
        };
        let walked = super::game::game_log_reader_with(input.open()?, walk, |item| match item {
            Item::Event(event) if options.protocol_events => {
                sink.protocol_event(&protocol_event(event));
            }
            Item::Join { slot, player, .. } | Item::Rename { slot, player, .. }
                if options.names || options.players =>
            {
                names.retain(|n| n.0 != *slot);
                let name = if options.names {
                    player.name.clone()
                } else {
                    String::new()
                };
                names.push((*slot, name, player.hltv));
            }
            Item::Players { tick, players } if options.players && options.keeps(*tick) => {
                if let Some((t, mut samples)) = pending.take_if(|(t, _)| t != tick) {
                    hand_on(sink, t, &mut samples);
                }
                let (_, samples) = pending.get_or_insert_with(|| (*tick, Vec::new()));
                for p in players.iter().filter(|p| p.in_pvs) {
                    let Some([x, y, _]) = p.origin else { continue };
                    let slot = p.index as i32 - 1;
                    if !options.keeps_player(slot) {
                        continue;
                    }
                    let named = names.iter().find(|n| n.0 == slot);
                    let name = named.map_or("", |n| &n.1);
                    let camera = named.is_some_and(|n| n.2);
                    let sample = Sample {
                        client_id: slot,
                        x: x.round() as i32,
                        y: y.round() as i32,
                        position_tick: *tick,
                        health: p.health.and_then(|h| i32::try_from(h).ok()),
                        ..Sample::default()
                    };
                    match samples.iter_mut().find(|s| s.0.client_id == slot) {
                        Some(earlier) => *earlier = (sample, name.to_owned(), camera),
                        None => samples.push((sample, name.to_owned(), camera)),
                    }
                }
            }
            _ => {}
        });
        if let Some((tick, mut samples)) = pending {
            hand_on(sink, tick, &mut samples);
        }
        match walked {
            Ok((log, error)) => {
                if options.log {
                    end.log = log;
                }
                if end.error.is_none() {
                    end.error = error.map(Into::into);
                }
            }
            Err(e) => {
                if end.error.is_none() {
                    end.error = Some(e.into());
                }
            }
        }
        Ok(end)
    }

    fn game_map(
        _input: Input<'_>,
        given: Option<&[u8]>,
        operation: Operation,
    ) -> Result<Option<Vec<u8>>, Error> {
        // The map is the BSP file the game loads (`maps/<name>.bsp`), which the demo
        // does not hold; the picture reads it (`source::bsp`).
        match given {
            Some(bytes) if super::bsp::is_bsp(bytes) => Ok(Some(bytes.to_vec())),
            Some(bytes) => Err(Error::Argument {
                operation,
                message: format!(
                    "a Source demo's map is a BSP file (starting \"VBSP\"); this one starts {}",
                    crate::read::HexBytes(bytes.get(..4).unwrap_or(bytes))
                ),
            }),
            None => Ok(None),
        }
    }
}

/// A game event as the model's [`ProtocolEvent`], its values named by its descriptor.
fn protocol_event<'a>(event: &'a super::game::SourceEvent<'_>) -> ProtocolEvent<'a> {
    use super::net::game_event::EventValue;
    let values = event
        .descriptor
        .keys
        .iter()
        .zip(event.values)
        .map(|(key, value)| {
            let value = match value {
                EventValue::String(text) => match text.to_str() {
                    Ok(text) => FieldValue::Text(text.into()),
                    Err(_) => FieldValue::Bytes(text.as_bytes().into()),
                },
                EventValue::Float(v) => FieldValue::Float(*v),
                EventValue::Long(v) => FieldValue::Int(i64::from(*v)),
                EventValue::Short(v) => FieldValue::Int(i64::from(*v)),
                EventValue::Byte(v) => FieldValue::Int(i64::from(*v)),
                EventValue::Bool(v) => FieldValue::Bool(*v),
                EventValue::Uint64(v) => FieldValue::Uint(*v),
            };
            (key.name.to_string_lossy(), value)
        })
        .collect();
    ProtocolEvent {
        tick: event.tick,
        name: event.name(),
        values,
    }
}
