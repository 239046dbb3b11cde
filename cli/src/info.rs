//! `demokit info` on one file: the format's summary as text or one JSON line.

use super::batch::{Done, Job, Status, open_job};
use super::input::{exit_of, is_stdin};
use super::output::{ErrorJson, FileJson, complaint, json_line, row, shown_name};
use demokit::recording::{Compression, Error, Summary, map_summary};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// `demokit info` on one file: the library's summary (teehistorian files and Source demos
/// read as a stream, so memory stays flat however long the recording is).
pub(crate) fn info_job(job: &Job, json: bool, batch: bool) -> Done {
    let path = &job.path;
    let recording = match open_job(job, json) {
        Ok(recording) => recording,
        // A map named on its own (one `extract-map` wrote, say) gets its facts; anything
        // else keeps the entry point's refusal.
        Err(done) if !job.found() && !is_stdin(path) => match map_summary(path) {
            Ok(Some(summary)) => return info_done(path, &summary, None, json, batch, None),
            Err(e @ Error::Invalid { .. }) => return Done::error(path, None, &e, json),
            Ok(None) | Err(_) => return done,
        },
        Err(done) => return done,
    };
    match recording.summary() {
        Ok((summary, error)) => {
            // A compressed file's sizes: one more pass through the stream, for a file
            // whose stream reads to its end (a broken one has its error already).
            let compression = match error {
                None => recording.compression().ok().flatten(),
                Some(_) => None,
            };
            let mut done = info_done(path, &summary, error.as_ref(), json, batch, compression);
            if let (None, Some(codec), false) = (compression, recording.codec(), json) {
                // A broken stream: its codec at least.
                let mut rows = String::new();
                row(&mut rows, "compression", codec);
                done.out = match done.out.strip_suffix('\n') {
                    Some(text) if batch => format!("{text}\n{rows}\n"),
                    _ => format!("{}{rows}", done.out),
                };
            }
            done
        }
        Err(e) => Done::error(path, Some(recording.format()), &e, json),
    }
}

/// `demokit info --json` output: the file, the summary's fields, then the error if there
/// was one.
#[derive(Debug, Serialize)]
struct InfoJson<'a> {
    /// The file.
    #[serde(flatten)]
    file: FileJson,
    /// The summary of everything before the error.
    #[serde(flatten)]
    summary: &'a Summary,
    /// How a compressed file is stored: codec, compressed and recording sizes.
    #[serde(skip_serializing_if = "Option::is_none")]
    compression: Option<Compression>,
    /// Why the chunk or message stream ended early.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorJson>,
}

/// The output of `info` for a file whose header could be read: the summary (as JSON, or as
/// its text), and the error that ended the scan, if any.
fn info_done(
    file: &Path,
    summary: &Summary,
    error: Option<&Error>,
    json: bool,
    batch: bool,
    compression: Option<Compression>,
) -> Done {
    let mut done = Done::default();
    if json {
        done.out = json_line(&InfoJson {
            file: FileJson::of(file),
            summary,
            compression,
            error: error.map(ErrorJson::of),
        });
    } else {
        if batch {
            row(&mut done.out, "file", shown_name(file));
        }
        let _ = write!(done.out, "{summary}");
        if let Some(c) = compression {
            row(&mut done.out, "compression", c.codec);
            row(
                &mut done.out,
                "compressed size",
                format_args!("{} bytes", c.compressed_bytes),
            );
            row(
                &mut done.out,
                "recording size",
                format_args!("{} bytes", c.recording_bytes),
            );
        }
        if let Some(e) = error {
            row(&mut done.out, "error", e);
        }
        if batch {
            done.out.push('\n');
        }
    }
    if let Some(e) = error {
        done.err = complaint(file, e);
        done.status = Status::Partial(exit_of(e));
    }
    done
}
