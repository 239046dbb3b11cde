//! Hive-style partitions of a dataset: `format=<format>/date=<YYYY-MM-DD>` directories
//! under each table's directory, the `key=value` names DuckDB (`hive_partitioning`),
//! pyarrow (`partitioning="hive"`) and Spark turn back into columns.
//!
//! A file's [`Partition`] comes from the values of its `files` row: its `format`, and the
//! date its recording started as the file says it (teehistorian: the header's
//! `start_time`; Teeworlds demos: the header's timestamp), else the UTC date of its
//! `modified_ns`, else none. A missing value is Hive's null partition,
//! [`NULL_PARTITION`].

use crate::recording::Recording;
use std::path::PathBuf;

/// The directory value Hive, DuckDB, pyarrow and Spark read as null.
pub const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// Which keys a dataset is partitioned by, in the order of the directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Partitioning {
    /// No partitions: every part is directly in its table's directory.
    None,
    /// `format=<format>` directories.
    Format,
    /// `date=<YYYY-MM-DD>` directories.
    Date,
    /// `format=<format>/date=<YYYY-MM-DD>` directories.
    #[default]
    FormatDate,
}

impl Partitioning {
    /// Every partitioning.
    pub const ALL: &'static [Partitioning] = &[
        Partitioning::FormatDate,
        Partitioning::Format,
        Partitioning::Date,
        Partitioning::None,
    ];

    /// Its name as the CLI's `--partition-by` takes it: `format,date`, `format`, `date`
    /// or `none`.
    pub fn name(self) -> &'static str {
        match self {
            Partitioning::None => "none",
            Partitioning::Format => "format",
            Partitioning::Date => "date",
            Partitioning::FormatDate => "format,date",
        }
    }

    /// The partition keys, in the order of the directories (none for
    /// [`None`](Self::None)).
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            Partitioning::None => &[],
            Partitioning::Format => &["format"],
            Partitioning::Date => &["date"],
            Partitioning::FormatDate => &["format", "date"],
        }
    }
}

/// The partition a file's rows go to: its format and date, either possibly unknown.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Partition {
    format: Option<String>,
    date: Option<String>,
}

impl Partition {
    /// A partition of these values (`None`: the null partition). The values are escaped
    /// in the directory names, as Hive does.
    pub fn new(format: Option<&str>, date: Option<&str>) -> Self {
        Partition {
            format: format.map(str::to_owned),
            date: date.map(str::to_owned),
        }
    }

    /// The partition of a file with the bytes `data` and this modification time
    /// (nanoseconds since the Unix epoch): the `format` and date that
    /// [`Exporter::add_modified`](super::Exporter::add_modified) puts in its `files` row
    /// (the date of `start_time`, else of `modified_ns`). Reads the header only.
    pub fn of(data: &[u8], modified_ns: Option<i64>) -> Self {
        match Recording::facts_of_bytes(data) {
            Ok((format, facts)) => {
                Partition::dated(format.id(), start_time(facts).as_deref(), modified_ns)
            }
            // A file whose header does not read is still a recording of its format.
            Err(_) => match crate::recording::detect(data).filter(|f| f.is_read()) {
                Some(format) => Partition::dated(format.id(), None, modified_ns),
                None => Partition::dated("unknown", None, modified_ns),
            },
        }
    }

    /// The partition of a recording opened through the entry point
    /// ([`Exporter::add_recording`](super::Exporter::add_recording)): what [`of`](Self::of)
    /// gives for the whole file, a teehistorian file's read from its header alone.
    pub fn of_recording(recording: &Recording, modified_ns: Option<i64>) -> Self {
        let start_time = recording.facts().ok().and_then(start_time);
        Partition::dated(recording.format().id(), start_time.as_deref(), modified_ns)
    }

    /// Format `format`, dated by the recording's own start time, else the file's time.
    fn dated(format: &str, start_time: Option<&str>, modified_ns: Option<i64>) -> Self {
        Partition {
            format: Some(format.to_owned()),
            date: start_time
                .and_then(date_written)
                .or_else(|| modified_ns.map(utc_date)),
        }
    }

    /// The partition of a file that could not be read at all
    /// ([`Exporter::add_unreadable`](super::Exporter::add_unreadable)): format
    /// `unknown`, no date (its `files` row has no modification time).
    pub fn unreadable() -> Self {
        Partition::new(Some("unknown"), None)
    }

    /// The format: `twdemo`, `teehistorian`, `source` or `unknown` for a file's partition.
    pub fn format(&self) -> Option<&str> {
        self.format.as_deref()
    }

    /// The date, `YYYY-MM-DD` for a file's partition.
    pub fn date(&self) -> Option<&str> {
        self.date.as_deref()
    }

    /// Its directory under a table's directory, for `partitioning`: e.g.
    /// `format=teehistorian/date=2023-05-11` (empty for [`Partitioning::None`]).
    pub fn dir(&self, partitioning: Partitioning) -> PathBuf {
        partitioning
            .keys()
            .iter()
            .map(|&key| {
                let value = match key {
                    "format" => self.format(),
                    _ => self.date(),
                };
                format!("{key}={}", escape(value))
            })
            .collect()
    }
}

/// A partition value as a directory name: Hive's escaping (`%` and hex for control
/// characters and `"#%'*/:=?\{[]^` and DEL), the null partition for none or an empty one.
pub fn escape(value: Option<&str>) -> String {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return NULL_PARTITION.to_owned();
    };
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if c.is_ascii_control() || "\"#%'*/:=?\\{[]^".contains(c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The date a timestamp starts with, when it starts with a valid `YYYY-MM-DD`
/// (teehistorian `2023-05-11T16:42:44+02:00` or `2023-05-11 16:42:44 +0200`, demo
/// `2023-05-11_16-42-44`): the date as written, in the recording's own time zone.
fn date_written(timestamp: &str) -> Option<String> {
    let date = timestamp.get(..10)?;
    let digits = |r: std::ops::Range<usize>| {
        let part = date.get(r)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse::<u32>().ok())
            .flatten()
    };
    if date.get(4..5) != Some("-") || date.get(7..8) != Some("-") {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    (1..=12).contains(&month).then_some(())?;
    (1..=days_in_month(year, month))
        .contains(&day)
        .then_some(())?;
    Some(date.to_owned())
}

fn days_in_month(year: u32, month: u32) -> u32 {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The UTC date of a time in nanoseconds since the Unix epoch, `YYYY-MM-DD`.
fn utc_date(ns: i64) -> String {
    let days = ns.div_euclid(86_400 * 1_000_000_000);
    // Days to a civil date (proleptic Gregorian), counting eras of 400 years from
    // 0000-03-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// A recording's own start time, where its header has one.
fn start_time(facts: crate::model::GameFacts) -> Option<String> {
    Some(facts.start_time).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_written() {
        for (written, date) in [
            ("2023-05-11T16:42:44+02:00", Some("2023-05-11")),
            ("2026-11-22 01:45:25 +0000", Some("2026-11-22")),
            ("2024-03-08_14-49-24", Some("2024-03-08")),
            ("2024-02-29_00-00-00", Some("2024-02-29")),
            ("2023-02-29_00-00-00", None),
            ("2023-13-01", None),
            ("2023-1-01xx", None),
            ("", None),
            ("é2023-05-11", None),
        ] {
            assert_eq!(date_written(written).as_deref(), date, "{written}");
        }
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(-1), "1969-12-31");
        // 2000-02-29T23:59:59Z and a second later.
        assert_eq!(utc_date(951_868_799_000_000_000), "2000-02-29");
        assert_eq!(utc_date(951_868_800_000_000_000), "2000-03-01");
        assert_eq!(utc_date(1_683_816_164_000_000_000), "2023-05-11");
        // i64 nanoseconds span 1677 to 2262.
        assert_eq!(utc_date(i64::MIN), "1677-09-21");
        assert_eq!(utc_date(i64::MAX), "2262-04-11");
    }

    #[test]
    fn directories() {
        let p = Partition::new(Some("twdemo"), Some("2023-05-11"));
        assert_eq!(
            p.dir(Partitioning::FormatDate),
            PathBuf::from("format=twdemo/date=2023-05-11")
        );
        assert_eq!(p.dir(Partitioning::Date), PathBuf::from("date=2023-05-11"));
        assert_eq!(p.dir(Partitioning::None), PathBuf::new());
        assert_eq!(
            Partition::default().dir(Partitioning::Format),
            PathBuf::from("format=__HIVE_DEFAULT_PARTITION__")
        );
        assert_eq!(escape(Some("a/b=c%d\n:é")), "a%2Fb%3Dc%25d%0A%3Aé");
        assert_eq!(escape(Some("")), NULL_PARTITION);
    }
}
