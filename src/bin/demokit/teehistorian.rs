//! The CLI's teehistorian output: `info` text, `dump` and `rewrite`. Like the rest of the
//! CLI, it only prints what [`demokit::teehistorian`] returns.

use super::destination::{Destination, write_output};
use super::output::{Failure, Output, complain, read_failure, row, shown_name, tick_range};
use super::{Exit, Outcome, Stop};
use demokit::teehistorian::{self as th, Ex, Message, TeehistorianSlice, TeehistorianWriter};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

impl Failure for th::ReadError {
    fn offset(&self) -> u64 {
        self.offset
    }
    fn message(&self) -> String {
        self.kind.to_string()
    }
    fn exit(&self) -> Exit {
        match self.kind {
            th::ReadErrorKind::Io(_) => Exit::Io,
            _ => Exit::Invalid,
        }
    }
}

/// Appends a teehistorian summary as an aligned text block, then the counts by kind.
pub(crate) fn summary_text(out: &mut String, s: &th::Summary) {
    let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    let version = match &s.version_minor {
        Some(minor) => format!("{} (minor {minor})", s.version),
        None => s.version.clone(),
    };
    let rows: [(&str, String); 11] = [
        ("format", s.format.to_string()),
        ("version", version),
        ("game uuid", or_none(&s.game_uuid)),
        ("server version", or_none(&s.server_version)),
        ("map name", or_none(&s.map_name)),
        ("start time", or_none(&s.start_time)),
        ("header", format!("{} bytes", s.header_len)),
        ("ticks", tick_range(s.first_tick, s.last_tick)),
        (
            "finished",
            if s.finished {
                "yes (FINISH)"
            } else {
                "no (the server did not finish it; `demokit repair` appends FINISH)"
            }
            .to_string(),
        ),
        ("trailing bytes", s.trailing_bytes.to_string()),
        (
            "messages",
            format!(
                "{} ({} with non-canonical ints)",
                s.messages, s.non_canonical_messages
            ),
        ),
    ];
    for (key, value) in rows {
        row(out, key, value);
    }
    let kind_width = s.counts.keys().map(String::len).max().unwrap_or(0);
    let count_width = s.counts.values().map(|n| n.to_string().len()).max();
    for (kind, n) in &s.counts {
        let _ = writeln!(
            out,
            "  {kind:<kind_width$}  {n:>w$}",
            w = count_width.unwrap_or(0)
        );
    }
}

/// One teehistorian message as `demokit dump --json` prints it.
#[derive(Debug, Serialize)]
struct MessageLine {
    /// Offset of the message's first byte.
    offset: u64,
    /// The tick it belongs to.
    tick: i32,
    /// "PLAYER_DIFF", "TICK_SKIP", ..., "EX:<name>".
    kind: Cow<'static, str>,
    /// Stored bytes.
    size: usize,
    /// How many of its ints are stored in a form DDNet does not write (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    non_canonical: u32,
    /// The message's fields.
    #[serde(flatten)]
    fields: Map<String, Value>,
}

/// Whether `n` is 0.
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// `demokit dump` on a teehistorian file.
pub(crate) fn dump(file: &Path, data: &[u8], json: bool) -> Outcome {
    let slice = TeehistorianSlice::parse(data).map_err(|e| read_failure(file, &e))?;
    let mut out = Output::new();
    if !json {
        writeln!(
            out,
            "{:>10} {:>10}  {:<15} fields",
            "offset", "tick", "kind"
        )?;
    }
    for item in slice.messages() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                out.flush()?;
                return Err(read_failure(file, &e));
            }
        };
        let line = MessageLine {
            offset: item.offset,
            tick: item.tick,
            kind: item.message.kind_name(),
            size: item.raw.len(),
            non_canonical: item.non_canonical,
            fields: message_fields(&item.message),
        };
        if json {
            out.json_line(&line)?;
        } else {
            let mut text = format!("{:>10} {:>10}  {:<15}", line.offset, line.tick, line.kind);
            for (key, value) in &line.fields {
                let _ = write!(text, " {key}={value}");
            }
            if line.non_canonical > 0 {
                let _ = write!(text, " non_canonical={}", line.non_canonical);
            }
            writeln!(out, "{}", text.trim_end())?;
        }
    }
    out.flush()
}

/// A string field as text (invalid UTF-8 replaced).
fn text(s: th::RawStr<'_>) -> Value {
    Value::String(s.to_string_lossy().into_owned())
}

/// The fields of a message as a JSON object: the names are those of the library's
/// [`Message`] and [`Ex`] fields; strings as text, byte payloads and UUIDs in hex.
fn message_fields(message: &Message<'_>) -> Map<String, Value> {
    let value = match *message {
        Message::PlayerDiff { cid, dx, dy } => json!({ "cid": cid, "dx": dx, "dy": dy }),
        Message::Finish => json!({}),
        Message::TickSkip { dt } => json!({ "dt": dt }),
        Message::PlayerNew { cid, x, y } => json!({ "cid": cid, "x": x, "y": y }),
        Message::PlayerOld { cid } | Message::Join { cid } => json!({ "cid": cid }),
        Message::InputDiff { cid, diff } => json!({ "cid": cid, "diff": diff }),
        Message::InputNew { cid, input } => json!({ "cid": cid, "input": input }),
        Message::NetMessage { cid, data } => json!({ "cid": cid, "data": hex::encode(data) }),
        Message::Drop { cid, reason } => json!({ "cid": cid, "reason": text(reason) }),
        Message::ConsoleCommand {
            cid,
            flags,
            cmd,
            args,
        } => json!({
            "cid": cid,
            "flags": flags,
            "cmd": text(cmd),
            "args": args.iter().map(text).collect::<Vec<_>>(),
        }),
        Message::Ex(ex) => ex_fields(&ex),
    };
    match value {
        Value::Object(fields) => fields,
        _ => Map::new(),
    }
}

/// The fields of an EX message (see [`message_fields`]).
fn ex_fields(ex: &Ex<'_>) -> Value {
    match *ex {
        Ex::Test => json!({}),
        Ex::DdnetVersionOld { cid, ddnet_version } => {
            json!({ "cid": cid, "ddnet_version": ddnet_version })
        }
        Ex::DdnetVersion {
            cid,
            connection_id,
            ddnet_version,
            version_str,
        } => json!({
            "cid": cid,
            "connection_id": connection_id.to_string(),
            "ddnet_version": ddnet_version,
            "version_str": text(version_str),
        }),
        Ex::AuthInit {
            cid,
            level,
            auth_name,
        }
        | Ex::AuthLogin {
            cid,
            level,
            auth_name,
        } => json!({ "cid": cid, "level": level, "auth_name": text(auth_name) }),
        Ex::AuthLogout { cid }
        | Ex::JoinVer6 { cid }
        | Ex::JoinVer7 { cid }
        | Ex::PlayerReady { cid }
        | Ex::PlayerRejoin { cid } => json!({ "cid": cid }),
        Ex::PlayerSwitch { cid1, cid2 } => json!({ "cid1": cid1, "cid2": cid2 }),
        Ex::SaveSuccess {
            team,
            save_id,
            team_save,
        }
        | Ex::LoadSuccess {
            team,
            save_id,
            team_save,
        } => json!({
            "team": team,
            "save_id": save_id.to_string(),
            "team_save": text(team_save),
        }),
        Ex::SaveFailure { team } | Ex::LoadFailure { team } => json!({ "team": team }),
        Ex::PlayerTeam { cid, team } => json!({ "cid": cid, "team": team }),
        Ex::TeamPractice { team, practice } => json!({ "team": team, "practice": practice }),
        Ex::Antibot { data } => json!({ "data": hex::encode(data) }),
        Ex::PlayerName { cid, name } => json!({ "cid": cid, "name": text(name) }),
        Ex::PlayerFinish { cid, time } => json!({ "cid": cid, "time": time }),
        Ex::TeamFinish { team, time } => json!({ "team": team, "time": time }),
        Ex::Unknown { uuid, data } => {
            json!({ "uuid": uuid.to_string(), "data": hex::encode(data) })
        }
    }
}

/// `demokit rewrite` on a teehistorian file: the stored header JSON, then every message
/// through the writer (re-encoded, or copied as stored when its ints are not canonical).
/// On a read error, the messages before it are written (without FINISH).
pub(crate) fn rewrite(input: &Path, output: &Destination, data: &[u8]) -> Outcome {
    let slice = TeehistorianSlice::parse(data).map_err(|e| read_failure(input, &e))?;
    let sink = Vec::with_capacity(data.len());
    let mut writer = TeehistorianWriter::with_header_json(sink, slice.header_json())
        .map_err(|e| write_failure(input, output.path(), e))?;
    let (mut reencoded, mut copied) = (0u64, 0u64);
    let mut error = None;
    for item in slice.messages() {
        let written = item
            .map_err(th::RewriteError::from)
            .and_then(|item| Ok(writer.write_item(&item).map(|_| item.non_canonical > 0)?));
        match written {
            Ok(true) => copied += 1,
            Ok(false) => reencoded += 1,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| write_failure(input, output.path(), e))?;
    write_output(output, &bytes)?;
    let _ = writeln!(
        io::stderr().lock(),
        "demokit: {} -> {}: {}{} bytes; {} messages re-encoded, {} copied as stored \
         (non-canonical ints), header JSON kept as stored",
        shown_name(input),
        output.name(),
        if error.is_some() {
            "stopped early, "
        } else {
            ""
        },
        bytes.len(),
        reencoded,
        copied,
    );
    match error {
        None => Ok(()),
        Some(th::RewriteError::Read(e)) => Err(read_failure(input, &e)),
        Some(th::RewriteError::Write(e)) => Err(write_failure(input, output.path(), e)),
    }
}

/// Reports a teehistorian write error: the output's I/O trouble, or a message of the input
/// that cannot be written again.
fn write_failure(input: &Path, output: &Path, error: th::WriteError) -> Stop {
    match error {
        th::WriteError::Io(e) => {
            complain(output, format_args!("cannot write: {e}"));
            Stop(Exit::Io)
        }
        e => {
            complain(input, format_args!("cannot be written again: {e}"));
            Stop(Exit::Invalid)
        }
    }
}
