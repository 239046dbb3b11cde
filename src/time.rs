//! Tick ranges and time, as every format counts them.
//!
//! A Teeworlds/DDNet server advances its world [`SERVER_TICK_SPEED`] times a second, and
//! every recording numbers its moments with those ticks: a demo's tick markers, a
//! teehistorian file's ticks. This module holds what does not depend on the file:
//!
//! * [`SERVER_TICK_SPEED`], the ticks in a second;
//! * [`TickRange`], ticks `from..=to`;
//! * [`RangeBound`], one end of a range as a person names it (a tick, seconds from the
//!   start, a timeline marker), with its text form, and [`tick_after_seconds`], the rounding
//!   a time in seconds gets when it becomes a tick.
//!
//! What the bounds mean in a given file is the format's: where its time starts, which ticks
//! it holds, whether it has timeline markers. Each format's `resolve_range` (demo trimming,
//! teehistorian cutting) answers that and refuses what its files cannot have.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

/// Ticks per second of a Teeworlds/DDNet server (DDNet's `SERVER_TICK_SPEED`): the rate at
/// which demos and teehistorian files count ticks, the unit of a demo's `length` and of
/// the spacing of its timeline markers.
pub const SERVER_TICK_SPEED: i32 = 50;

/// A start time as pictures, pages and indexes show it, one way for every format:
/// `2026-11-22 01:37:51`, with the zone where the recording gives one
/// (`2021-05-23 18:06:01 +02:00`). Takes the model's start times (ISO 8601: a demo's as
/// [`start_time_of_demo`](crate::model::start_time_of_demo) writes it, a teehistorian
/// file's `start_time`); anything else is shown as written.
pub fn shown_start_time(start_time: &str) -> String {
    let b = start_time.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let shaped = b.len() >= 19
        && digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && matches!(b.get(10), Some(b'T' | b' '))
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16)
        && b.get(16) == Some(&b':')
        && digits(17..19);
    let (Some(date), Some(clock), Some(rest)) = (
        start_time.get(..10),
        start_time.get(11..19),
        start_time.get(19..),
    ) else {
        return start_time.to_owned();
    };
    if !shaped {
        return start_time.to_owned();
    }
    // Fractions of a second are dropped; the zone is written `+hh:mm` (`Z` as `UTC`).
    let rest = rest.trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    let zone = match rest.as_bytes() {
        [] => String::new(),
        [b'Z'] => " UTC".to_owned(),
        [s @ (b'+' | b'-'), h0, h1, m0, m1] | [s @ (b'+' | b'-'), h0, h1, b':', m0, m1]
            if [h0, h1, m0, m1].iter().all(|d| d.is_ascii_digit()) =>
        {
            format!(
                " {}{}{}:{}{}",
                *s as char, *h0 as char, *h1 as char, *m0 as char, *m1 as char
            )
        }
        _ => return start_time.to_owned(),
    };
    format!("{date} {clock}{zone}")
}

/// Ticks `from..=to`, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TickRange {
    /// The first tick.
    pub from: i32,
    /// The last tick.
    pub to: i32,
}

impl TickRange {
    /// The ticks `from..=to`.
    pub const fn new(from: i32, to: i32) -> Self {
        TickRange { from, to }
    }

    /// Whether `tick` is in the range.
    pub const fn contains(&self, tick: i32) -> bool {
        self.from <= tick && tick <= self.to
    }
}

/// One end of a tick range as a person names it: a tick number, a time from the start of
/// the recording, or a timeline marker. A format's `resolve_range` turns it into a tick of
/// a given file.
///
/// Its text form ([`FromStr`](std::str::FromStr)): an integer is a tick (`"1500"`,
/// `"-3"`); a non-negative number ending in `s` is seconds (`"30s"`, `"12.5s"`); `m` and a
/// number from 1 is a timeline marker (`"m2"`, the second marker in a demo's header).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RangeBound {
    /// A tick number, as the recording numbers its ticks.
    Tick(i32),
    /// Seconds after the recording's start, at the servers' fixed 50 ticks a second
    /// ([`SERVER_TICK_SPEED`]), as DDNet's player shows the time. Where the start is
    /// depends on the format.
    Seconds(f64),
    /// The n-th timeline marker, counting from 1 (demos have them, teehistorian files do
    /// not).
    Marker(usize),
}

/// The text form [`FromStr`](std::str::FromStr) reads back: `1500`, `30s`, `m2`.
impl std::fmt::Display for RangeBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RangeBound::Tick(tick) => write!(f, "{tick}"),
            RangeBound::Seconds(seconds) => write!(f, "{seconds}s"),
            RangeBound::Marker(n) => write!(f, "m{n}"),
        }
    }
}

/// Why a text is not a [`RangeBound`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "\"{text}\" is not a tick (e.g. 1500), a time from the start (e.g. 30s or 12.5s) or a \
     timeline marker (m1, m2, ...)"
)]
pub struct ParseRangeBoundError {
    /// The text given.
    pub text: String,
}

impl std::str::FromStr for RangeBound {
    type Err = ParseRangeBoundError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let refuse = || ParseRangeBoundError { text: text.into() };
        if let Some(n) = text.strip_prefix('m') {
            // Digits only: no sign, no spaces.
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                return n
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n >= 1)
                    .map(RangeBound::Marker)
                    .ok_or_else(refuse);
            }
            return Err(refuse());
        }
        if let Some(s) = text.strip_suffix('s') {
            let plain_number = !s.is_empty()
                && s.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && s.bytes().any(|b| b.is_ascii_digit());
            return s
                .parse::<f64>()
                .ok()
                .filter(|v| plain_number && v.is_finite())
                .map(RangeBound::Seconds)
                .ok_or_else(refuse);
        }
        text.parse().map(RangeBound::Tick).map_err(|_| refuse())
    }
}

/// Which end of a range a bound gives, for [`tick_after_seconds`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RangeEnd {
    /// The first tick: a time rounds up to the next whole tick.
    Start,
    /// The last tick: a time rounds down.
    End,
}

/// The tick `seconds` after tick `origin` at [`SERVER_TICK_SPEED`], as the `end` of a
/// range: a start rounds up to the next whole tick and an end down, so that a range never
/// holds a tick outside the times given. Ticks past the `i32` range saturate.
pub fn tick_after_seconds(origin: i32, seconds: f64, end: RangeEnd) -> i32 {
    // A whisker of slack so that 0.1 s (not exact in binary) is 5 ticks.
    let ticks = seconds * f64::from(SERVER_TICK_SPEED);
    let ticks = match end {
        RangeEnd::Start => (ticks - 1e-6).ceil(),
        RangeEnd::End => (ticks + 1e-6).floor(),
    };
    let tick = f64::from(origin) + ticks;
    tick.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

#[cfg(test)]
mod tests {

    #[test]
    fn start_times_are_shown_one_way() {
        assert_eq!(
            shown_start_time("2026-11-22T01:37:51"),
            "2026-11-22 01:37:51"
        );
        assert_eq!(
            shown_start_time("2021-05-23T18:06:01+0200"),
            "2021-05-23 18:06:01 +02:00"
        );
        assert_eq!(
            shown_start_time("2021-05-23T18:06:01.123-03:30"),
            "2021-05-23 18:06:01 -03:30"
        );
        assert_eq!(
            shown_start_time("2021-05-23T18:06:01Z"),
            "2021-05-23 18:06:01 UTC"
        );
        for kept in [
            "",
            "yesterday",
            "2021-05-23T18:06",
            "2021-05-23T18:06:01+02",
        ] {
            assert_eq!(shown_start_time(kept), kept);
        }
    }

    use super::*;

    #[test]
    fn bounds_parse() {
        let p = |t: &str| t.parse::<RangeBound>();
        assert_eq!(p("1500"), Ok(RangeBound::Tick(1500)));
        assert_eq!(p("-3"), Ok(RangeBound::Tick(-3)));
        assert_eq!(p("30s"), Ok(RangeBound::Seconds(30.0)));
        assert_eq!(p("12.5s"), Ok(RangeBound::Seconds(12.5)));
        assert_eq!(p("m2"), Ok(RangeBound::Marker(2)));
        for bad in [
            "", "m0", "m", "m-1", "-1s", "s", ".s", "1e3s", "nans", "infs", "1.5", "x",
        ] {
            assert!(p(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bounds_read_back_as_written() {
        for text in ["1500", "-3", "30s", "12.5s", "m2"] {
            let bound: RangeBound = text.parse().unwrap();
            assert_eq!(bound.to_string(), text);
        }
    }
}
