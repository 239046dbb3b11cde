//! The CLI's teehistorian output: `info` text, `dump` and `rewrite`. Like the rest of the
//! CLI, it only prints what [`demokit::teehistorian`] returns.

use super::destination::{Destination, write_output};
use super::output::{Failure, Output, complain, read_failure, row, shown_name, tick_range};
use super::{Exit, Outcome, Stop};
use demokit::teehistorian::{self as th, TeehistorianSlice, TeehistorianWriter};
use serde_json::Value;
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
        if json {
            // The library's serde form: place, size, `kind` (and `ex`) and the fields.
            out.json_line(&item)?;
        } else {
            let kind = item.message.kind_name();
            let mut text = format!("{:>10} {:>10}  {:<15}", item.offset, item.tick, kind);
            // The fields as the library serializes them, the kind already shown.
            if let Ok(Value::Object(fields)) = serde_json::to_value(item.message) {
                for (key, value) in fields.iter().filter(|(k, _)| *k != "kind" && *k != "ex") {
                    let _ = write!(text, " {key}={value}");
                }
            }
            if item.non_canonical > 0 {
                let _ = write!(text, " non_canonical={}", item.non_canonical);
            }
            writeln!(out, "{}", text.trim_end())?;
        }
    }
    out.flush()
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
