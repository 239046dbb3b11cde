//! The CLI's game-layer commands: `chat`, `players`, `events` and `dump --objects`. They
//! print what [`demokit::twdemo::game`] and [`demokit::teehistorian::game`] return: JSON from
//! the library's serde types, and text made from the same values.

use super::batch::{Done, Job, Status, read_job};
use super::output::{
    ErrorJson, Failure, FileJson, Output, complain, complaint, json_line, read_failure, shown_name,
    warn_skipped,
};
use super::{Exit, Outcome, Stop};
use demokit::detect::Format;
use demokit::gamenet::summary::GameLog;
use demokit::teehistorian::game::GameEvents;
use demokit::teehistorian::semantic::SemanticError;
use demokit::teehistorian::{self as th, TeehistorianSlice};
use demokit::twdemo::game::{self as game, GameReplay};
use demokit::twdemo::replay::ReplayError;
use demokit::twdemo::{self as tw, DemoSlice};
use serde::Serialize;
use serde_json::Value;
use std::fmt::{self, Display, Write as _};
use std::path::Path;

impl Failure for ReplayError {
    fn offset(&self) -> u64 {
        ReplayError::offset(self)
    }
    fn message(&self) -> String {
        match self {
            ReplayError::Read(e) => e.kind.to_string(),
            ReplayError::Payload { error, .. } => error.to_string(),
            other => other.to_string(),
        }
    }
    fn exit(&self) -> Exit {
        match self {
            ReplayError::Read(e) if matches!(e.kind, tw::ReadErrorKind::Io(_)) => Exit::Io,
            _ => Exit::Invalid,
        }
    }
}

/// A semantic error as the CLI reports it (the trait and the type are both foreign here).
struct Semantic(SemanticError);

impl Display for Semantic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            SemanticError::Read(e) => write!(f, "at byte {}: {}", e.offset, e.kind),
            other => write!(f, "at byte {}: {other}", self.offset()),
        }
    }
}

impl Failure for Semantic {
    fn offset(&self) -> u64 {
        self.0.offset()
    }
    fn message(&self) -> String {
        match &self.0 {
            SemanticError::Read(e) => e.kind.to_string(),
            other => other.to_string(),
        }
    }
    fn exit(&self) -> Exit {
        match &self.0 {
            SemanticError::Read(e) if matches!(e.kind, th::ReadErrorKind::Io(_)) => Exit::Io,
            _ => Exit::Invalid,
        }
    }
}

/// Which listing a batch job prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Listing {
    /// `demokit chat`.
    Chat,
    /// `demokit players`.
    Players,
    /// `demokit events`.
    Events,
}

/// One JSON line of a listing: the file, then the record's own fields.
#[derive(Serialize)]
struct Line<'a, T: Serialize> {
    #[serde(flatten)]
    file: &'a FileJson,
    #[serde(flatten)]
    record: T,
}

/// The text form of a record: its JSON fields as `key=value` (`tick` and `kind` first),
/// strings quoted only when they hold spaces or are empty.
fn fields_text(out: &mut String, value: &impl Serialize) {
    let Ok(Value::Object(mut fields)) = serde_json::to_value(value) else {
        return;
    };
    let mut ordered: Vec<(String, Value)> = ["tick", "kind"]
        .into_iter()
        .filter_map(|key| Some((key.to_string(), fields.remove(key)?)))
        .collect();
    ordered.extend(fields);
    let mut first = true;
    for (key, value) in ordered {
        if !first {
            out.push(' ');
        }
        first = false;
        match value {
            Value::String(s) if s.is_empty() || s.contains(char::is_whitespace) => {
                let _ = write!(out, "{key}={s:?}");
            }
            Value::String(s) => {
                let _ = write!(out, "{key}={s}");
            }
            other => {
                let _ = write!(out, "{key}={other}");
            }
        }
    }
    out.push('\n');
}

/// Collects a listing's lines for one file.
struct Lines {
    file: FileJson,
    json: bool,
    prefix: String,
    out: String,
}

impl Lines {
    fn new(path: &Path, json: bool, batch: bool) -> Lines {
        Lines {
            file: FileJson::of(path),
            json,
            prefix: if batch {
                format!("{}: ", shown_name(path))
            } else {
                String::new()
            },
            out: String::new(),
        }
    }

    fn push(&mut self, record: &impl Serialize) {
        if self.json {
            self.out.push_str(&json_line(&Line {
                file: &self.file,
                record,
            }));
        } else {
            self.out.push_str(&self.prefix);
            fields_text(&mut self.out, record);
        }
    }

    /// The job's result, failed by `error` if the file broke off.
    fn done(self, path: &Path, error: Option<&dyn Failure>) -> Done {
        let mut done = Done {
            out: self.out,
            ..Done::default()
        };
        if let Some(e) = error {
            if self.json {
                #[derive(Serialize)]
                struct ErrorLine<'a> {
                    #[serde(flatten)]
                    file: &'a FileJson,
                    error: ErrorJson,
                }
                done.out.push_str(&json_line(&ErrorLine {
                    file: &self.file,
                    error: ErrorJson::of(e),
                }));
            }
            done.err = complaint(path, e);
            done.status = Status::Failed(e.exit());
        }
        done
    }
}

/// `demokit chat`, `players` or `events` on one file.
pub(crate) fn listing_job(job: &Job, listing: Listing, json: bool, batch: bool) -> Done {
    let path = &job.path;
    let (format, data) = match read_job(job, json) {
        Ok(read) => read,
        Err(done) => return done,
    };
    let mut lines = Lines::new(path, json, batch);
    let failed = |e: &dyn Failure| {
        Done::failed(
            path,
            Some(format),
            e.exit(),
            Some(e.offset()),
            e.message(),
            json,
        )
    };
    match format {
        Format::TwDemo => {
            let demo = match DemoSlice::parse(&data) {
                Ok(demo) => demo,
                Err(e) => return failed(&e),
            };
            if listing == Listing::Events {
                let error = demo_events(&demo, &mut lines);
                return lines.done(path, error.as_ref().map(|e| e as _));
            }
            let (log, error) = game::game_log(&demo);
            print_log(&mut lines, &log, listing);
            lines.done(path, error.as_ref().map(|e| e as _))
        }
        Format::Teehistorian => {
            let file = match TeehistorianSlice::parse(&data) {
                Ok(file) => file,
                Err(e) => return failed(&e),
            };
            if listing == Listing::Events {
                let error = teehistorian_events(&file, &mut lines).map(Semantic);
                return lines.done(path, error.as_ref().map(|e| e as _));
            }
            let (log, error) = th::game::game_log(file.messages());
            print_log(&mut lines, &log, listing);
            let error = error.map(Semantic);
            lines.done(path, error.as_ref().map(|e| e as _))
        }
        // Found in a directory, a file without a game layer is passed over; named on its own,
        // it is refused.
        other if job.found() => Done {
            err: complaint(
                path,
                format_args!("skipped: a {} has no game layer here", other.name()),
            ),
            status: Status::Skipped,
            ..Done::default()
        },
        other => Done::failed(
            path,
            Some(other),
            Exit::Invalid,
            None,
            format!("a {} has no game layer here", other.name()),
            json,
        ),
    }
}

fn print_log(lines: &mut Lines, log: &GameLog, listing: Listing) {
    match listing {
        Listing::Chat => log.chat.iter().for_each(|line| lines.push(line)),
        Listing::Players => log.players.iter().for_each(|stint| lines.push(stint)),
        Listing::Events => {}
    }
}

/// A demo event with its tick.
#[derive(Serialize)]
struct TickEvent<'a> {
    tick: i32,
    #[serde(flatten)]
    event: &'a game::Event,
}

fn demo_events(demo: &DemoSlice<'_>, lines: &mut Lines) -> Option<ReplayError> {
    let mut replay = GameReplay::new(demo);
    while let Some(tick) = replay.next() {
        match tick {
            Ok(tick) => {
                for event in tick.world.events() {
                    lines.push(&TickEvent {
                        tick: tick.tick,
                        event,
                    });
                }
            }
            Err(e) => return Some(e),
        }
    }
    None
}

fn teehistorian_events(file: &TeehistorianSlice<'_>, lines: &mut Lines) -> Option<SemanticError> {
    for event in GameEvents::new(file.messages()) {
        match event {
            Ok(event) => lines.push(&event),
            Err(e) => return Some(e),
        }
    }
    None
}

/// A typed snapshot item or message of a tick, in `dump --objects`.
#[derive(Serialize)]
#[serde(tag = "record", rename_all = "snake_case")]
enum TickRecord<'a> {
    /// A snapshot item.
    Object {
        tick: i32,
        #[serde(flatten)]
        object: &'a game::ObjectAt<'a>,
    },
    /// A message chunk.
    Message {
        tick: i32,
        #[serde(flatten)]
        message: &'a demokit::gamenet::Unpacked<'a, demokit::gamenet::AnyMessage<'a>>,
    },
}

/// `demokit dump --objects`: every snapshot item and message of a demo typed, tick by
/// tick; for a teehistorian file, its game events with every client message typed.
pub(crate) fn dump_objects(file: &Path, format: Format, data: &[u8], json: bool) -> Outcome {
    let mut out = Output::new();
    if format == Format::Teehistorian {
        let slice = TeehistorianSlice::parse(data).map_err(|e| read_failure(file, &e))?;
        for event in GameEvents::new(slice.messages()) {
            match event {
                Ok(event) => write_record(&mut out, &event, json)?,
                Err(e) => {
                    out.flush()?;
                    return Err(read_failure(file, &Semantic(e)));
                }
            }
        }
        return out.flush();
    }
    let demo = DemoSlice::parse(data).map_err(|e| read_failure(file, &e))?;
    let mut replay = GameReplay::new(&demo);
    while let Some(tick) = replay.next() {
        let tick = match tick {
            Ok(tick) => tick,
            Err(e) => {
                out.flush()?;
                return Err(read_failure(file, &e));
            }
        };
        for object in tick.objects() {
            let record = TickRecord::Object {
                tick: tick.tick,
                object: &object,
            };
            write_record(&mut out, &record, json)?;
        }
        for message in tick.messages() {
            let record = TickRecord::Message {
                tick: tick.tick,
                message: &message,
            };
            write_record(&mut out, &record, json)?;
        }
    }
    warn_skipped(file, replay.skipped());
    out.flush()
}

fn write_record(out: &mut Output, record: &impl Serialize, json: bool) -> Outcome {
    if json {
        return out.json_line(record);
    }
    let mut text = String::new();
    fields_text(&mut text, record);
    out.write_str(&text)
}

/// Refuses `dump --objects` for a format without a game layer.
pub(crate) fn no_game_layer(file: &Path, format: Format) -> Outcome {
    complain(
        file,
        format_args!("a {} has no game layer here", format.name()),
    );
    Err(Stop(Exit::Invalid))
}
