//! `demokit validate` on one file: the library's findings, its problems on stderr.

use super::Exit;
use super::batch::{Done, Job, Status, open_job};
use super::output::{FileJson, complaint, json_line, shown_name};
use demokit::recording::{Problem, Validation, Verdict};
use serde::Serialize;

/// `demokit validate --json` output: the file, then the library's [`Validation`].
#[derive(Debug, Serialize)]
struct ValidateJson<'a> {
    /// The file.
    #[serde(flatten)]
    file: FileJson,
    /// What the library found.
    #[serde(flatten)]
    validation: &'a Validation,
}

/// What the tool suggests running next for a problem (the library says what is wrong,
/// the tool which of its commands helps).
fn next_step(problem: &Problem) -> &'static str {
    if problem.truncated {
        " (run `demokit repair`)"
    } else {
        ""
    }
}

/// `demokit validate` on one file.
pub(crate) fn validate_job(job: &Job, json: bool) -> Done {
    let path = &job.path;
    let recording = match open_job(job, json) {
        Ok(recording) => recording,
        Err(done) => return done,
    };
    let validation = match recording.validate() {
        Ok(validation) => validation,
        Err(e) => return Done::error(path, Some(recording.format()), &e, json),
    };
    let mut done = Done::default();
    for p in &validation.problems {
        let prefix = if p.fatal { "" } else { "warning: " };
        done.err += &complaint(
            path,
            format_args!(
                "{prefix}at byte {}: {}{}",
                p.offset,
                p.message,
                next_step(p)
            ),
        );
    }
    if json {
        done.out = json_line(&ValidateJson {
            file: FileJson::of(path),
            validation: &validation,
        });
    } else {
        // One line per file, one file or many: `FILE: ok` says the check ran and passed.
        let verdict = match (validation.accepted, validation.warnings()) {
            (false, _) if validation.verdict == Some(Verdict::Crashes) => {
                "rejected (DDNet would crash)".to_string()
            }
            (false, _) => "rejected".to_string(),
            (true, 0) => "ok".to_string(),
            (true, 1) => "ok (1 warning)".to_string(),
            (true, n) => format!("ok ({n} warnings)"),
        };
        done.out = format!("{}: {verdict}\n", shown_name(path));
    }
    if !validation.accepted {
        done.status = Status::Failed(Exit::Invalid);
    }
    done
}
