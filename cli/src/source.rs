//! The CLI's Source demo commands: `info` text, `dump`, `rewrite` and `repair`. Like the
//! rest of the CLI, it only prints what [`demokit::source`] returns.

use super::destination::{Destination, write_output};
use super::output::{Failure, Output, complain, interval, read_failure, row, seconds, shown_name};
use super::{Exit, Outcome, Stop};
use demokit::source::repair::{IntervalSource, RepairOptions, repair};
use demokit::source::summary::Summary;
use demokit::source::{self, Body, CommandTable, ProfileOrigin, ReadErrorKind, SourceSlice};
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
        ("playback time", format!("{} s", seconds(s.playback_time))),
        ("ticks", s.ticks.to_string()),
        ("frames", s.frames.to_string()),
        ("signon length", format!("{} bytes", s.signon_length)),
        (
            "profile",
            format!(
                "{} view split{}, {}slot byte, {} (from the {})",
                s.view_splits,
                if s.view_splits == 1 { "" } else { "s" },
                if s.slot_byte { "" } else { "no " },
                command_table(s.command_table),
                match s.profile_origin {
                    ProfileOrigin::Header => "header",
                    ProfileOrigin::Detected => "first frames",
                    ProfileOrigin::Guessed => "defaults: a guess",
                    ProfileOrigin::Given => "caller",
                },
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

/// The command numbers above 7 a table gives, e.g. "commands 8 = customdata, 9 =
/// stringtables" (1 to 7 are the same in every table).
fn command_table(table: CommandTable) -> String {
    let extra: Vec<String> = (8..=u8::MAX)
        .filter_map(|n| table.command(n).map(|c| format!("{n} = {}", c.name())))
        .collect();
    if extra.is_empty() {
        "commands 1 to 7 only".into()
    } else {
        format!("commands {}", extra.join(", "))
    }
}

/// `demokit dump` on a Source demo: one line per frame, in JSON the library's
/// [`FrameAt`](demokit::source::FrameAt) (see its docs for the fields).
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
        if json {
            out.json_line(&item)?;
            continue;
        }
        let frame = &item.frame;
        let mut text = format!(
            "{:>10} {:>8} {:>8}  {:<12} {:>8} ",
            item.offset,
            item.len,
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
        writeln!(out, "{}", text.trim_end())?;
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
                shown_name(input),
                output.name(),
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
        shown_name(input),
        output.name(),
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
    let mut out = Output::for_report(output.is_stdout());
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
            // The time as people read it; the report (and --json) keep the exact value.
            let time = |v: &str| v.parse().map_or_else(|_| v.to_string(), seconds);
            let (old, new) = match change.field {
                "playback_time" => (time(&change.old), time(&change.new)),
                _ => (change.old.clone(), change.new.clone()),
            };
            row(&mut text, change.field, format_args!("{old} -> {new}"));
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
                "{} ({})",
                interval(report.interval),
                match report.interval_source {
                    IntervalSource::Given => "given",
                    IntervalSource::GameDir => "the game's",
                    IntervalSource::HeaderTime => "the header's time over its ticks",
                    IntervalSource::Guessed => "a guess: the engine's default",
                }
            ),
        );
        if let Some(e) = &report.read_error {
            row(&mut text, "read stopped", e);
        }
        write!(out, "{text}")?;
    }
    out.flush()
}
