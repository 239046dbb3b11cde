//! The CLI's Source demo commands: `info` text, `dump`, `rewrite` and `repair`. Like the
//! rest of the CLI, it only prints what [`demokit::source`] returns.

use super::destination::{Destination, write_output};
use super::{Exit, Failure, Outcome, Output, Stop, complain, read_failure, row};
use demokit::source::repair::{RepairOptions, repair};
use demokit::source::summary::Summary;
use demokit::source::{self, Body, ReadErrorKind, SourceSlice};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

impl Failure for source::ReadError {
    fn offset(&self) -> u64 {
        self.offset
    }
    fn message(&self) -> String {
        self.kind.to_string()
    }
    fn exit(&self) -> Exit {
        match self.kind {
            ReadErrorKind::Io(_) => Exit::Io,
            _ => Exit::Invalid,
        }
    }
}

/// Appends a Source demo summary as an aligned text block, then the counts by command.
pub(crate) fn summary_text(out: &mut String, s: &Summary) {
    let or_none = |v: Option<String>| v.unwrap_or_else(|| "none".into());
    let rows: [(&str, String); 14] = [
        ("format", s.format.to_string()),
        (
            "protocol",
            format!("demo {}, network {}", s.demo_protocol, s.network_protocol),
        ),
        ("server", s.server.clone()),
        ("client", s.client.clone()),
        ("map", s.map.clone()),
        ("game dir", s.game_dir.clone()),
        ("playback time", format!("{} s", s.playback_time)),
        ("ticks", s.ticks.to_string()),
        ("frames", s.frames.to_string()),
        ("signon length", format!("{} bytes", s.signon_length)),
        (
            "profile",
            format!(
                "{} view split{}, {}slot byte, {:?} commands ({})",
                s.view_splits,
                if s.view_splits == 1 { "" } else { "s" },
                if s.slot_byte { "" } else { "no " },
                s.command_table,
                serde_json::to_value(s.profile_origin)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
            ),
        ),
        ("frames read", s.total_frames.to_string()),
        (
            "stop",
            match (s.stop_offset, &s.stop_tail) {
                (Some(offset), Some(tail)) => format!(
                    "at byte {offset}, tick {}, tail {tail} ({} bytes)",
                    or_none(s.stop_tick.map(|t| t.to_string())),
                    s.stop_tail_len.unwrap_or(0)
                ),
                _ => "none".into(),
            },
        ),
        ("payload bytes", s.payload_bytes.to_string()),
    ];
    for (key, value) in rows {
        row(out, key, value);
    }
    let width = s.counts.keys().map(|k| k.len()).max().unwrap_or(0);
    for (command, n) in &s.counts {
        let _ = writeln!(out, "  {command:<width$}  {n}");
    }
}

/// One frame as `demokit dump --json` prints it.
#[derive(Debug, Serialize)]
struct FrameLine<'a> {
    /// Offset of the command byte.
    offset: u64,
    /// Bytes of the whole frame.
    size: usize,
    /// "signon", "packet", ...
    command: &'static str,
    /// The tick.
    tick: i32,
    /// The player-slot byte, if the profile has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    slot: Option<u8>,
    /// Payload bytes (network data, command text, tables).
    payload: usize,
    /// Command-specific fields.
    #[serde(flatten)]
    fields: Fields<'a>,
}

/// The fields `dump` shows per command.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Fields<'a> {
    /// Signon and packet frames.
    Packet { seq_in: i32, seq_out: i32 },
    /// Console commands: the text.
    Text { text: String },
    /// User commands: the sequence number.
    UserCmd { sequence: i32 },
    /// Custom data: the callback index.
    CustomData { callback: i32 },
    /// The stop command: its tail in hex.
    Stop { tail: &'a str },
    /// Nothing more.
    None {},
}

/// `demokit dump` on a Source demo.
pub(crate) fn dump(file: &Path, data: &[u8], json: bool) -> Outcome {
    let slice = SourceSlice::parse(data).map_err(|e| read_failure(file, &e))?;
    let mut out = Output::new();
    if !json {
        writeln!(
            out,
            "{:>10} {:>8} {:>8}  {:<12} {:>8}  fields",
            "offset", "size", "tick", "command", "payload"
        )?;
    }
    for item in slice.frames() {
        let item = match item {
            Ok(item) => item,
            Err(e) => {
                out.flush()?;
                return Err(read_failure(file, &e));
            }
        };
        let frame = &item.frame;
        let tail;
        let fields = match &frame.body {
            Body::Signon(p) | Body::Packet(p) => Fields::Packet {
                seq_in: p.seq_in,
                seq_out: p.seq_out,
            },
            Body::ConsoleCmd(text) => {
                let text = text.strip_suffix(b"\0").unwrap_or(text);
                Fields::Text {
                    text: String::from_utf8_lossy(text).into_owned(),
                }
            }
            Body::UserCmd { sequence, .. } => Fields::UserCmd {
                sequence: *sequence,
            },
            Body::CustomData { callback, .. } => Fields::CustomData {
                callback: *callback,
            },
            Body::Stop { tail: bytes } => {
                tail = hex::encode(bytes);
                Fields::Stop { tail: &tail }
            }
            Body::SyncTick | Body::DataTables(_) | Body::StringTables(_) => Fields::None {},
        };
        let line = FrameLine {
            offset: item.offset,
            size: item.len,
            command: frame.command().name(),
            tick: frame.tick,
            slot: frame.slot,
            payload: frame.payload().len(),
            fields,
        };
        if json {
            out.json_line(&line)?;
        } else {
            let mut text = format!(
                "{:>10} {:>8} {:>8}  {:<12} {:>8} ",
                line.offset, line.size, line.tick, line.command, line.payload
            );
            match &line.fields {
                Fields::Packet { seq_in, seq_out } => {
                    let _ = write!(text, " seq_in={seq_in} seq_out={seq_out}");
                }
                Fields::Text { text: t } => {
                    let _ = write!(text, " {t:?}");
                }
                Fields::UserCmd { sequence } => {
                    let _ = write!(text, " sequence={sequence}");
                }
                Fields::CustomData { callback } => {
                    let _ = write!(text, " callback={callback}");
                }
                Fields::Stop { tail } => {
                    let _ = write!(text, " tail={tail}");
                }
                Fields::None {} => {}
            }
            writeln!(out, "{}", text.trim_end())?;
        }
    }
    out.flush()
}

/// `demokit rewrite` on a Source demo: every frame cut from the input and laid out again
/// by the writer. On a read error, the frames before it are written.
pub(crate) fn rewrite(input: &Path, output: &Destination, data: &[u8]) -> Outcome {
    let mut bytes = Vec::with_capacity(data.len());
    let result = source::rewrite(data, &mut bytes).map(|(_, stats)| stats);
    if result.is_ok() || !bytes.is_empty() {
        write_output(output, &bytes)?;
    }
    let frames = match result {
        Ok(stats) => stats.frames,
        Err((_, source::RewriteError::Read(e))) => {
            let _ = writeln!(
                io::stderr().lock(),
                "demokit: {} -> {}: stopped early, {} bytes",
                input.display(),
                output.path().display(),
                bytes.len()
            );
            return Err(read_failure(input, &e));
        }
        Err((_, source::RewriteError::Write(e))) => {
            complain(input, format_args!("cannot be written again: {e}"));
            return Err(Stop(Exit::Invalid));
        }
    };
    let _ = writeln!(
        io::stderr().lock(),
        "demokit: {} -> {}: {} bytes; {frames} frames laid out again, header kept",
        input.display(),
        output.path().display(),
        bytes.len()
    );
    Ok(())
}

/// `demokit repair` on a Source demo: prints what changed (JSON with `--json`), writes the
/// repaired file.
pub(crate) fn repair_file(
    input: &Path,
    output: &Destination,
    data: &[u8],
    tick_interval: Option<f32>,
    json: bool,
) -> Outcome {
    if let Some(interval) = tick_interval
        && !(interval.is_finite() && interval > 0.0)
    {
        complain(
            input,
            format_args!("--tick-interval must be a positive number of seconds, not {interval}"),
        );
        return Err(Stop(Exit::Usage));
    }
    let options = RepairOptions { tick_interval };
    let repaired = repair(data, &options).map_err(|e| {
        complain(input, format_args!("cannot be repaired: {e}"));
        Stop(Exit::Invalid)
    })?;
    write_output(output, &repaired.bytes)?;
    let report = &repaired.report;
    let mut out = Output::new();
    if json {
        out.json_line(report)?;
    } else {
        let mut text = String::new();
        if report.is_unchanged() {
            row(
                &mut text,
                "unchanged",
                "the file was already complete and consistent",
            );
        }
        for change in &report.changes {
            row(
                &mut text,
                change.field,
                format_args!("{} -> {}", change.old, change.new),
            );
        }
        row(&mut text, "frames kept", report.frames_kept);
        if report.bytes_dropped > 0 {
            row(
                &mut text,
                "bytes dropped",
                format_args!("{} (a partial frame at the end)", report.bytes_dropped),
            );
        }
        if report.stop_appended {
            row(&mut text, "stop appended", "yes");
        }
        row(
            &mut text,
            "tick interval",
            format_args!(
                "{} s ({})",
                report.interval,
                serde_json::to_value(report.interval_source)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            ),
        );
        if let Some(e) = &report.read_error {
            row(&mut text, "read stopped", e);
        }
        write!(out, "{text}")?;
    }
    out.flush()
}
