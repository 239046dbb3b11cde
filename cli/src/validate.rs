//! `demokit validate` on one file: the format's report, its problems on stderr.

use super::Exit;
use super::batch::{Done, Job, Status, read_job};
use super::input::format_id;
use super::output::{FileJson, complaint, json_line, shown_name};
use demokit::detect::Format;
use demokit::twdemo::validate::{Problem, Report, Verdict, validate};
use serde::Serialize;

/// `demokit validate --json` output.
#[derive(Debug, Serialize)]
struct ValidateJson<'a> {
    /// The file.
    #[serde(flatten)]
    file: FileJson,
    /// "twdemo", "teehistorian" or "source".
    format: &'static str,
    /// Whether the file passes: no fatal problem.
    accepted: bool,
    /// Demos: how DDNet's client ends with it ("plays", "rejects" or "crashes").
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<Verdict>,
    /// Everything found, in file order.
    problems: &'a [Problem],
}

/// `demokit validate` on one file.
pub(crate) fn validate_job(job: &Job, json: bool, batch: bool) -> Done {
    let (format, data) = match read_job(job, json) {
        Ok(read) => read,
        Err(done) => return done,
    };
    let path = &job.path;
    let report: Report = match format {
        Format::Teehistorian => demokit::teehistorian::summary::validate(&data),
        Format::SourceDemo => demokit::source::summary::validate(&data),
        _ => validate(&data),
    };
    drop(data);
    let mut done = Done::default();
    for p in &report.problems {
        let prefix = if p.fatal { "" } else { "warning: " };
        done.err += &complaint(
            path,
            format_args!("{prefix}at byte {}: {}", p.offset, p.message),
        );
    }
    if json {
        done.out = json_line(&ValidateJson {
            file: FileJson::of(path),
            format: format_id(format),
            accepted: report.accepted(),
            verdict: (format == Format::TwDemo).then(|| report.verdict()),
            problems: &report.problems,
        });
    } else if batch {
        let warnings = report.problems.iter().filter(|p| !p.fatal).count();
        let verdict = match (report.accepted(), warnings) {
            (false, _) if report.verdict() == Verdict::Crashes => {
                "rejected (DDNet would crash)".to_string()
            }
            (false, _) => "rejected".to_string(),
            (true, 0) => "ok".to_string(),
            (true, 1) => "ok (1 warning)".to_string(),
            (true, n) => format!("ok ({n} warnings)"),
        };
        done.out = format!("{}: {verdict}\n", shown_name(path));
    }
    if !report.accepted() {
        done.status = Status::Failed(Exit::Invalid);
    }
    done
}
