//! The teehistorian file as a [`RecordingFormat`]: every operation of the entry point done
//! by this format's modules, each reading the [`Input`] as a stream (memory does not grow
//! with the file), and this format's errors turned into the one [`Error`] here, once.

use super::game::GameEventAt;
use super::reader::{MessageAt, TeehistorianReader};
use super::semantic::SemanticError;
use super::walk::TickWalk;
use super::{WriteError, repair, scrub, trim};
use crate::format::{
    DumpEnd, Error, Format, GameEnd, GameWalk, Input, MapProblem, Operation, RecordingFormat,
    RepairOptions, Unsupported, Validation,
};
use crate::gamenet::summary::GameLog;
use crate::model::{GameFacts, GameOptions, GameSink};
use crate::read::ErrorKind as _;
use crate::scrub::ScrubOptions;
use crate::time::{RangeBound, TickRange};
use sha2::Digest;
use std::io::Write;

/// The DDNet teehistorian format (versions 1 and 2), as the entry point sees it.
#[derive(Debug, Clone, Copy)]
pub struct Teehistorian;

impl From<SemanticError> for Error {
    fn from(error: SemanticError) -> Error {
        match error {
            SemanticError::Read(e) => e.into(),
            SemanticError::State { offset, tick, kind } => Error::Invalid {
                offset,
                message: format!("at tick {tick}: {kind}"),
                truncated: false,
                io: false,
            },
        }
    }
}

/// The text line of a message: offset, tick and kind, then its fields as the library
/// serializes them (so this needs the `serde` feature).
#[cfg(feature = "serde")]
impl std::fmt::Display for MessageAt<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write as _;
        let kind = self.message.kind_name();
        let mut text = format!("{:>10} {:>10}  {:<15}", self.offset, self.tick, kind);
        if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(self.message) {
            for (key, value) in fields.iter().filter(|(k, _)| *k != "kind" && *k != "ex") {
                let _ = write!(text, " {key}={value}");
            }
        }
        if self.non_canonical > 0 {
            let _ = write!(text, " non_canonical={}", self.non_canonical);
        }
        f.write_str(text.trim_end())
    }
}

/// The game's facts as a teehistorian header gives them.
fn facts_of(header: &super::Header) -> GameFacts {
    GameFacts {
        version: header.version.clone(),
        map: header.map_name.clone().unwrap_or_default(),
        start_time: header.start_time.clone().unwrap_or_default(),
        server_version: header.server_version.clone().unwrap_or_default(),
        game_uuid: header.game_uuid.clone().unwrap_or_default(),
        tick_rate: f64::from(crate::time::SERVER_TICK_SPEED),
        ..GameFacts::default()
    }
}

impl RecordingFormat for Teehistorian {
    const FORMAT: Format = Format::Teehistorian;
    const DUMP_COLUMNS: &'static str = "    offset       tick  kind            fields";
    type Summary = super::Summary;
    type RewriteStats = super::RewriteStats;
    type RepairReport = repair::RepairReport;
    type TrimReport = trim::TrimReport;
    type ScrubReport = scrub::ScrubReport;
    type Record<'a> = MessageAt<'a>;
    type Event<'a> = GameEventAt<'a>;
    type GameRecord<'a> = GameEventAt<'a>;
    type Optional = Unsupported;

    fn check_header(input: Input<'_>) -> Result<(), Error> {
        TeehistorianReader::new(input.open()?)?;
        Ok(())
    }

    fn summary(input: Input<'_>) -> Result<(Self::Summary, Option<Error>), Error> {
        let (summary, error) = super::Summary::scan_reader(input.open()?)?;
        Ok((summary, error.map(Into::into)))
    }

    fn validate(input: Input<'_>) -> Result<Validation, Error> {
        let report = super::summary::validate_reader(input.open()?);
        Ok(Validation {
            format: Self::FORMAT,
            accepted: report.accepted(),
            // Only DDNet's client has a way of ending worth naming beyond pass or fail.
            verdict: None,
            problems: report.problems,
        })
    }

    fn rewrite(
        input: Input<'_>,
        out: &mut dyn Write,
    ) -> Result<(Self::RewriteStats, Option<Error>), Error> {
        crate::format::rewritten(super::writer::rewrite_reader(input.open()?, out))
    }

    fn repair(
        input: Input<'_>,
        _options: &RepairOptions,
        out: &mut dyn Write,
    ) -> Result<Self::RepairReport, Error> {
        repair::repair_reader(input.open()?, out).map_err(|e| match e {
            repair::RepairError::Write(e) => Error::write(e),
            other => Error::refused(Operation::Repair, other),
        })
    }

    fn tick_range(
        input: Input<'_>,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        operation: Operation,
    ) -> Result<TickRange, Error> {
        trim::resolve_range_reader(input.open()?, from, to).map_err(|e| match e {
            trim::RangeError::Read(e) => e.into(),
            usage => Error::Argument {
                operation,
                message: usage.to_string(),
            },
        })
    }

    fn trim(
        input: Input<'_>,
        from: Option<RangeBound>,
        to: Option<RangeBound>,
        out: &mut dyn Write,
    ) -> Result<Self::TrimReport, Error> {
        // Read as streams (the range's end, then the two passes of the cut).
        let range = Self::tick_range(input, from, to, Operation::Trim)?;
        trim::trim_reader(|| input.reopen(), range, out).map_err(|e| match e {
            trim::TrimError::Header(e) => e.into(),
            trim::TrimError::Read(e) => Error::Invalid {
                offset: e.offset,
                message: format!(
                    "cannot trim: the file does not read up to tick {}: {}",
                    range.from, e.kind
                ),
                truncated: e.kind.is_truncation(),
                io: e.kind.is_io(),
            },
            trim::TrimError::State { offset, tick, kind } => Error::Invalid {
                offset,
                message: format!("cannot trim: at tick {tick}: {kind}"),
                truncated: false,
                io: false,
            },
            trim::TrimError::Write(WriteError::Io(e)) => Error::write(e),
            other => Error::refused(Operation::Trim, other),
        })
    }

    fn scrub_everything(key: Option<Vec<u8>>) -> ScrubOptions {
        // Credentials and drop reasons too: a server's file carries them.
        ScrubOptions::all(key)
    }

    fn scrub(
        input: Input<'_>,
        options: &ScrubOptions,
        out: &mut dyn Write,
    ) -> Result<Self::ScrubReport, Error> {
        // Read twice as a stream (to check it and find the names, then to write); nothing
        // is written before the first reading has checked it all.
        scrub::scrub_reader(|| input.reopen(), options, out).map_err(|e| match e {
            scrub::ScrubError::Write {
                source: WriteError::Io(e),
                ..
            } => Error::write(e),
            e => crate::format::scrub_failed(e.offset(), &e),
        })
    }

    fn dump(input: Input<'_>, each: &mut dyn FnMut(MessageAt<'_>)) -> Result<DumpEnd, Error> {
        let mut end = DumpEnd::default();
        let mut reader = TeehistorianReader::new(input.open()?)?;
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
        let (log, error) = super::game::game_log_reader(input.open()?)?;
        Ok((log, error.map(Into::into)))
    }

    fn events(input: Input<'_>, each: &mut dyn FnMut(GameEventAt<'_>)) -> Result<GameWalk, Error> {
        let error = super::game::game_events_reader(input.open()?, |_, event| each(event))?;
        Ok(GameWalk {
            error: error.map(Into::into),
            ..GameWalk::default()
        })
    }

    fn game_records(
        input: Input<'_>,
        each: &mut dyn FnMut(GameEventAt<'_>),
    ) -> Result<GameWalk, Error> {
        // A teehistorian file's typed records are its events, every client message typed.
        Self::events(input, each)
    }

    fn facts(input: Input<'_>) -> Result<GameFacts, Error> {
        Ok(facts_of(TeehistorianReader::new(input.open()?)?.header()))
    }

    fn game(
        input: Input<'_>,
        options: &GameOptions,
        sink: &mut dyn GameSink,
    ) -> Result<GameEnd, Error> {
        let team_game = |header: &super::Header| {
            crate::model::TeamGame::of_game_type(header.game_type.as_deref().unwrap_or(""))
        };
        // A file in memory is walked over its slice (faster than a reader); one on disk is
        // streamed: memory does not grow with the file.
        let (facts, end) = match input.in_memory() {
            Some(data) => {
                let file = super::TeehistorianSlice::parse(data)?;
                let walk = TickWalk::new(&file);
                let end = super::stream::game(walk, team_game(file.header()), options, sink);
                (facts_of(file.header()), end)
            }
            None => {
                let reader = TeehistorianReader::new(input.open()?)?;
                let facts = facts_of(reader.header());
                let team_game = team_game(reader.header());
                let walk = TickWalk::from_reader(reader);
                (facts, super::stream::game(walk, team_game, options, sink))
            }
        };
        Ok(GameEnd { facts, ..end })
    }

    fn game_map(
        input: Input<'_>,
        given: Option<&[u8]>,
        operation: Operation,
    ) -> Result<Option<Vec<u8>>, Error> {
        let reader = TeehistorianReader::new(input.open()?)?;
        let header = reader.header();
        let Some(map) = given else {
            return Err(Error::Map {
                operation,
                problem: MapProblem::Missing {
                    format: Self::FORMAT,
                    name: header.map_name.clone().unwrap_or_default(),
                    sha256: header.map_sha256.as_ref().map(|s| s.to_lowercase()),
                    crc32: header
                        .map_crc
                        .as_ref()
                        .and_then(|s| u32::from_str_radix(s, 16).ok())
                        .map(|crc| format!("{crc:08x}")),
                },
            });
        };
        if let Some(expected) = &header.map_sha256 {
            let actual = hex::encode(sha2::Sha256::digest(map));
            if !actual.eq_ignore_ascii_case(expected) {
                return Err(crate::format::map_mismatch(
                    operation,
                    "SHA-256",
                    expected.to_lowercase(),
                    actual,
                ));
            }
        } else if let Some(expected) = &header.map_crc {
            let actual = crc32fast::hash(map);
            if u32::from_str_radix(expected, 16).ok() != Some(actual) {
                return Err(crate::format::map_mismatch(
                    operation,
                    "CRC-32",
                    expected.to_lowercase(),
                    format!("{actual:08x}"),
                ));
            }
        }
        Ok(Some(map.to_vec()))
    }
}
