//! `demokit info` on one file: the format's summary as text or one JSON line.

use super::batch::{Done, Job, Status, open_job, read_rest};
use super::output::{ErrorJson, Failure, FileJson, complaint, json_line, row, shown_name};
use super::{source, teehistorian, twdemo};
use demokit::detect::Format;
use serde::Serialize;
use std::io::{self, Read};
use std::path::Path;

/// `demokit info` on one file.
pub(crate) fn info_job(job: &Job, json: bool, batch: bool) -> Done {
    let path = &job.path;
    let (format, head, file) = match open_job(job, json) {
        Ok(opened) => opened,
        Err(done) => return done,
    };
    let header_failed = |e: &dyn Failure| {
        let (exit, offset) = (e.exit(), Some(e.offset()));
        Done::failed(path, Some(format), exit, offset, e.message(), json)
    };
    if format == Format::SourceDemo {
        let reader = io::BufReader::new(io::Cursor::new(head).chain(file));
        return match demokit::source::summary::Summary::scan_reader(reader) {
            Ok((s, error)) => {
                let text = |out: &mut String| source::summary_text(out, &s);
                info_done(path, &s, text, error.as_ref().map(|e| e as _), json, batch)
            }
            Err(e) => header_failed(&e),
        };
    }
    if format == Format::Teehistorian {
        // Streamed, so that memory stays flat however long the server ran.
        let reader = io::BufReader::new(io::Cursor::new(head).chain(file));
        return match demokit::teehistorian::Summary::scan_reader(reader) {
            Ok((s, error)) => {
                let text = |out: &mut String| teehistorian::summary_text(out, &s);
                info_done(path, &s, text, error.as_ref().map(|e| e as _), json, batch)
            }
            Err(e) => header_failed(&e),
        };
    }
    let data = match read_rest(job, json, head, file) {
        Ok(data) => data,
        Err(done) => return done,
    };
    match demokit::twdemo::Summary::scan(&data) {
        Ok((s, error)) => {
            let text = |out: &mut String| twdemo::summary_text(out, &s);
            info_done(path, &s, text, error.as_ref().map(|e| e as _), json, batch)
        }
        Err(e) => header_failed(&e),
    }
}

/// `demokit info --json` output: the file, the summary's fields, then the error if there
/// was one.
#[derive(Debug, Serialize)]
struct InfoJson<'a, S: Serialize> {
    /// The file.
    #[serde(flatten)]
    file: FileJson,
    /// The summary of everything before the error.
    #[serde(flatten)]
    summary: &'a S,
    /// Why the chunk or message stream ended early.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorJson>,
}

/// The output of `info` for a file whose header could be read: the summary (as JSON, or as
/// text written by `text`), and the error that ended the scan, if any.
fn info_done<S: Serialize>(
    file: &Path,
    summary: &S,
    text: impl FnOnce(&mut String),
    error: Option<&dyn Failure>,
    json: bool,
    batch: bool,
) -> Done {
    let mut done = Done::default();
    if json {
        done.out = json_line(&InfoJson {
            file: FileJson::of(file),
            summary,
            error: error.map(ErrorJson::of),
        });
    } else {
        if batch {
            row(&mut done.out, "file", shown_name(file));
        }
        text(&mut done.out);
        if let Some(e) = error {
            row(&mut done.out, "error", e);
        }
        if batch {
            done.out.push('\n');
        }
    }
    if let Some(e) = error {
        done.err = complaint(file, e);
        done.status = Status::Failed(e.exit());
    }
    done
}
