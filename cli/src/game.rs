//! The CLI's game-layer commands: `chat`, `players`, `events` and `dump --game-records`. They
//! print what [`demokit::twdemo::game`] and [`demokit::teehistorian::game`] return: JSON from
//! the library's serde types, and text made from the same values.

use super::batch::{Done, Job, Status, open_job};
use super::input::{exit_of, failure, open_recording};
use super::output::{
    ErrorJson, FileJson, Output, WithFile, complain, complaint, json_line, shown_name, warn_skipped,
};
use super::{Exit, Outcome, Stop};
use demokit::gamenet::names::country_code;
use demokit::gamenet::summary::GameLog;
use demokit::recording::Error;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;
use unicode_width::UnicodeWidthStr;

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

/// The text form of a record: its JSON fields as `key=value` (`tick`, `kind` and `record`
/// first), one line per record. A nested object (a typed snapshot item or message) shows
/// as its key naming its `type` or `kind`, then its own fields on the same line; a list of
/// numbers as the numbers joined by commas; strings are quoted only when they hold spaces
/// or are empty.
fn fields_text(out: &mut String, value: &impl Serialize) {
    let Ok(Value::Object(mut fields)) = serde_json::to_value(value) else {
        return;
    };
    let mut ordered: Vec<(String, Value)> = ["tick", "kind", "record"]
        .into_iter()
        .filter_map(|key| Some((key.to_string(), fields.remove(key)?)))
        .collect();
    ordered.extend(fields);
    // A field the record does not have (null in JSON) is left out of the text.
    ordered.retain(|(_, value)| !value.is_null());
    let mut first = true;
    for (key, value) in ordered {
        field_text(out, &mut first, &key, value);
    }
    out.push('\n');
}

/// One field of [`fields_text`], nested objects flattened into the line.
fn field_text(out: &mut String, first: &mut bool, key: &str, value: Value) {
    let mut sep = |out: &mut String| {
        if !*first {
            out.push(' ');
        }
        *first = false;
    };
    match value {
        Value::Object(mut inner) => {
            let name = ["type", "kind"]
                .into_iter()
                .find_map(|k| match inner.remove(k) {
                    Some(Value::String(s)) => Some(s),
                    _ => None,
                });
            if let Some(name) = name {
                sep(out);
                let _ = write!(out, "{key}={name}");
            }
            for (k, v) in inner {
                field_text(out, first, &k, v);
            }
        }
        Value::Array(items) if items.iter().all(|v| !v.is_object() && !v.is_array()) => {
            sep(out);
            let joined: Vec<String> = items.iter().map(scalar_text).collect();
            let _ = write!(out, "{key}={}", joined.join(","));
        }
        other => {
            sep(out);
            let _ = write!(out, "{key}={}", scalar_text(&other));
        }
    }
}

/// A value as [`fields_text`] shows it: a string quoted (as JSON quotes it) only when it
/// holds spaces, commas or nothing; anything else as JSON writes it.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) if s.is_empty() || s.contains(|c: char| c.is_whitespace() || c == ',') => {
            // JSON's quoting, which escapes only quotes, backslashes and control
            // characters (Rust's debug quoting would escape every unusual space too).
            value.to_string()
        }
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
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
            self.out.push_str(&json_line(&WithFile {
                file: &self.file,
                record,
            }));
        } else {
            self.out.push_str(&self.prefix);
            fields_text(&mut self.out, record);
        }
    }

    /// Like [`push`](Self::push), but the text line is the record's own `Display` (a
    /// demo's chat line as DDNet's `demo_extract_chat` prints it).
    fn push_shown(&mut self, record: &(impl Serialize + std::fmt::Display)) {
        if self.json {
            self.push(record);
        } else {
            let _ = writeln!(self.out, "{}{record}", self.prefix);
        }
    }

    /// Text lines already made (a table), each behind the file's prefix.
    fn push_table(&mut self, text: &str) {
        for line in text.lines() {
            let _ = writeln!(self.out, "{}{line}", self.prefix);
        }
    }

    /// The job's result, failed by `error` if the file broke off.
    fn done(self, path: &Path, error: Option<&Error>) -> Done {
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
            done.status = Status::Partial(exit_of(e));
        }
        done
    }
}

/// `demokit chat`, `players` or `events` on one file.
pub(crate) fn listing_job(
    job: &Job,
    listing: Listing,
    json: bool,
    select: &super::Select,
    batch: bool,
) -> Done {
    let path = &job.path;
    let recording = match open_job(job, json) {
        Ok(recording) => recording,
        Err(done) => return done,
    };
    if !select.kind.is_empty() && listing != Listing::Events {
        return Done::failed(
            path,
            Some(recording.format()),
            Exit::Usage,
            None,
            "--kind selects events: `demokit events --kind ...`".to_owned(),
            json,
        );
    }
    let selected = match select.resolve(&recording) {
        Ok(selected) => selected,
        Err(e) => return Done::error(path, Some(recording.format()), &e, json),
    };
    // The game model's records, as the selection keeps them.
    let log = || {
        recording
            .game_log()
            .map(|(log, error)| (selected.apply(log), error))
    };
    let mut lines = Lines::new(path, json, batch);
    let walked = match listing {
        // A demo's chat as DDNet's own tool lists it (broadcasts and whispers too, each
        // line's `kind` saying which); the other formats' from the model's log.
        Listing::Chat => match recording.chat() {
            Ok((chat, error)) => {
                chat.iter()
                    .filter(|line| {
                        selected.keeps_tick(line.tick) && selected.keeps_client(line.client_id)
                    })
                    .for_each(|line| lines.push_shown(line));
                Ok(error)
            }
            Err(Error::Unsupported { .. }) => log().map(|(log, error)| {
                log.chat.iter().for_each(|line| lines.push(line));
                error
            }),
            Err(e) => Err(e),
        },
        // The game model's events, for every format (each format's own records are
        // `dump --game-records`).
        Listing::Events => log().map(|(log, error)| {
            log.events.iter().for_each(|event| lines.push(event));
            error
        }),
        Listing::Players => log().map(|(log, error)| {
            if json {
                log.players.iter().for_each(|stint| lines.push(stint));
            } else {
                lines.push_table(&players_table(&log));
            }
            error
        }),
    };
    match walked {
        Ok(error) => lines.done(path, error.as_ref()),
        // Found in a directory, a file without a game layer is passed over; named on its
        // own, it is refused.
        Err(Error::Unsupported { format, .. }) if job.found() => Done {
            err: complaint(
                path,
                format_args!("skipped: a {} has no game layer here", format.name()),
            ),
            status: Status::Skipped,
            ..Done::default()
        },
        Err(Error::Unsupported { format, .. }) => Done::failed(
            path,
            Some(format),
            Exit::Invalid,
            None,
            format!("a {} has no game layer here", format.name()),
            json,
        ),
        Err(e) => Done::error(path, Some(recording.format()), &e, json),
    }
}

/// The players as an aligned table: a header, then a row per stint, with the country's
/// code and the team's name beside their numbers.
fn players_table(log: &GameLog) -> String {
    let players = &log.players;
    // The JSON's field names: one vocabulary.
    let header = [
        "client_id",
        "name",
        "clan",
        "country",
        "team",
        "first_tick",
        "last_tick",
        "left",
    ];
    let named = |code: Option<&str>, number: i32| match code {
        Some(code) => format!("{code} ({number})"),
        None => number.to_string(),
    };
    let rows: Vec<[String; 8]> = players
        .iter()
        .map(|p| {
            [
                p.client_id.to_string(),
                p.name.clone(),
                p.clan.clone(),
                if p.country == -1 {
                    "-".to_owned()
                } else {
                    named(country_code(p.country), p.country)
                },
                match (&p.team_name, p.team) {
                    (Some(name), Some(code)) => format!("{name} ({code})"),
                    _ => "-".to_owned(),
                },
                p.first_tick.to_string(),
                p.last_tick.to_string(),
                if p.left { "yes" } else { "no" }.to_owned(),
            ]
        })
        .collect();
    aligned(&header, &rows)
}

/// `header` and `rows` as columns padded to their widest cell as a terminal shows it (a
/// CJK character takes two columns), numbers to the right.
fn aligned<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let widths: Vec<usize> = header
        .iter()
        .enumerate()
        .map(|(i, name)| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|cell| cell.width())
                .chain([name.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let numeric: Vec<bool> = (0..N)
        .map(|i| {
            !rows.is_empty()
                && rows
                    .iter()
                    .all(|r| r.get(i).is_some_and(|c| c.parse::<i64>().is_ok()))
        })
        .collect();
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (i, cell) in cells.enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let pad = widths.get(i).map_or(0, |w| w.saturating_sub(cell.width()));
            if numeric.get(i).copied().unwrap_or(false) {
                text.extend(std::iter::repeat_n(' ', pad));
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut header.iter().copied());
    for row in rows {
        line(&mut row.iter().map(String::as_str));
    }
    out
}

/// `demokit dump --game-records`: every snapshot item and message of a demo typed, tick by
/// tick; for a teehistorian file, its game events with every client message typed.
pub(crate) fn dump_game_records(
    file: &Path,
    json: bool,
    named: Option<&FileJson>,
    ticks: &super::Ticks,
) -> Outcome {
    let recording = open_recording(file)?;
    let range = ticks.of(file, &recording)?;
    let mut out = Output::new();
    let mut written = Ok(());
    let walked = recording.game_records(|record| {
        if written.is_ok() && range.is_none_or(|r| r.contains(record.tick())) {
            written = write_record(&mut out, named, &record, json);
        }
    });
    written?;
    out.flush()?;
    match walked {
        Ok(walk) => {
            warn_skipped(file, walk.skipped);
            match walk.error {
                Some(e) => Err(failure(file, &e)),
                None => Ok(()),
            }
        }
        Err(Error::Unsupported { format, .. }) => {
            complain(
                file,
                format_args!("a {} has no game layer here", format.name()),
            );
            Err(Stop(Exit::Invalid))
        }
        Err(e) => Err(failure(file, &e)),
    }
}

fn write_record(
    out: &mut Output,
    named: Option<&FileJson>,
    record: &impl Serialize,
    json: bool,
) -> Outcome {
    if json {
        return out.json_record(named, record);
    }
    let mut text = String::new();
    fields_text(&mut text, record);
    out.write_str(&text)
}
