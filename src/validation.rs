//! What the validation of every format finds, in one shape: the [`Report`] of a
//! `validate` ([`twdemo::edit::validate`](crate::twdemo::edit::validate::validate),
//! [`teehistorian::summary::validate`](crate::teehistorian::summary::validate),
//! [`source::summary::validate`](crate::source::summary::validate)), its [`Problem`]s and
//! DDNet's client's [`Verdict`].
//!
//! A [`Problem`] carries a [`ProblemKind`] for code to match on and a message for people.
//! The kinds of all three formats are one enum: a kind that means the same in two formats
//! (the file's header cannot be read) is one variant, and each variant's doc says which
//! formats report it. This module only holds the shapes; finding problems is each format's
//! business.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

/// What a problem is about. For a demo, the step of DDNet's client that finds it; for a
/// teehistorian or Source file, what is wrong.
///
/// New kinds may come with new checks (or new DDNet versions), so matches need a `_` arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum ProblemKind {
    /// All formats: the header cannot be read. Demos: "Error reading demo header" (magic, a
    /// cut header, a string field without NUL or not UTF-8). Teehistorian: the file UUID,
    /// the JSON header or its version. Source: the stamp or the fixed header.
    Header,
    /// Demo: "Demo version '%d' is not supported": a version below 3.
    Version,
    /// Demo: "Error reading timeline markers": the block is cut.
    TimelineMarkers,
    /// Demo: "Error reading SHA256": the SHA-256 block is cut.
    Sha256Block,
    /// Demo: a version-6 demo without the SHA-256 block ("Demo version incremented, but
    /// not by DDNet"): a warning while loading, a crash once the map is extracted.
    Sha256Missing,
    /// Demo: "Error scanning demo file": no keyframe.
    NoKeyframe,
    /// Demo: "Could not find map": no map bytes, or a map name that is no path.
    MapMissing,
    /// Demo: the map's checksums against the header's.
    MapChecksum,
    /// Demo: "Could not find map": the map does not load as DDNet loads maps.
    MapLoad,
    /// Demo: "Error reading chunk header".
    ChunkHeader,
    /// Demo: "Error reading chunk data": a chunk cut short.
    ChunkData,
    /// Demo: "Error during network decompression": Huffman.
    Huffman,
    /// Demo: "Error during intpack decompression".
    IntPack,
    /// Demo: "Delta snapshot before any full snapshot".
    DeltaBeforeSnapshot,
    /// Demo: a full snapshot that fails `CSnapshot::IsValid` (logged and skipped).
    SnapshotInvalid,
    /// Demo: a delta that fails to unpack (logged and skipped).
    DeltaFailed,
    /// Demo: a delta unpacked over an item of negative type: DDNet asserts.
    NegativeItemType,
    /// Demo: a chunk of the unused type 0 (decoded, then ignored).
    UnknownChunk,
    /// Demo: "Empty demo": fewer than two tick markers.
    EmptyDemo,
    /// Teehistorian and Source: the file ends inside a message or frame (a recording cut
    /// off mid-write; `repair` keeps what comes before).
    Truncated,
    /// Teehistorian: a message that does not read (an unknown id, a negative length, a
    /// tick or client id out of range, a message beyond the length limit).
    Message,
    /// Teehistorian: bytes follow FINISH.
    DataAfterFinish,
    /// Teehistorian: the file ends on a message boundary without FINISH (the server was
    /// still writing it, was stopped or crashed).
    Unfinished,
    /// Teehistorian: messages hold ints in a form DDNet does not write.
    NonCanonicalInts,
    /// Teehistorian: console commands that DDNet's old 2 KiB packer cut.
    CutConsoleCommands,
    /// Source: a frame that does not read (an unknown command, a bad length).
    Frame,
    /// Source: the header's `signon_length` against the first synctick frame.
    SignonLength,
    /// Source: no synctick frame, so the signon length cannot be checked.
    NoSynctick,
    /// Source: the header's `frames` against the packet frames.
    FrameCount,
    /// Source: the header's `ticks` against the stop command's tick.
    TickCount,
    /// Source: the header's `playback_time` against its ticks and the game's tick interval.
    PlaybackTime,
    /// Source: the game's tick interval is not known, so `playback_time` was not checked.
    UnknownTickInterval,
    /// Source: the stop command is followed by an unusual number of bytes.
    StopTail,
}

impl ProblemKind {
    /// Whether a fatal problem of this kind crashes DDNet's client rather than being
    /// refused.
    pub fn crashes(self) -> bool {
        matches!(
            self,
            ProblemKind::Sha256Missing | ProblemKind::NegativeItemType
        )
    }
}

/// How DDNet's client ends with a demo. For the other formats a report says
/// [`Plays`](Verdict::Plays) or [`Rejects`](Verdict::Rejects): it passes or it does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Verdict {
    /// It loads and plays to the end.
    Plays,
    /// It refuses the demo or stops playing it with an error.
    Rejects,
    /// It hits an assertion and the client aborts.
    Crashes,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Problem {
    /// Offset the problem was found at.
    pub offset: u64,
    /// What is wrong, in words (for a demo, also what DDNet would say).
    pub message: String,
    /// Whether the file fails on it (false: a warning; DDNet only logs it).
    pub fatal: bool,
    /// What it is about.
    pub kind: ProblemKind,
    /// Whether the file simply breaks off (cut while being written, or never finished):
    /// a repair keeps everything before it. Absent from JSON when false.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "std::ops::Not::not")
    )]
    pub truncated: bool,
}

/// The outcome of a `validate`: the warnings, in file order, then the fatal problem the
/// check stopped at, if any.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Report {
    /// Everything found, in file order.
    pub problems: Vec<Problem>,
}

impl Report {
    /// Whether the file passes: no fatal problem (for a demo: DDNet's client would load
    /// and play it to its end).
    pub fn accepted(&self) -> bool {
        !self.problems.iter().any(|p| p.fatal)
    }

    /// The first fatal problem.
    pub fn first_fatal(&self) -> Option<&Problem> {
        self.problems.iter().find(|p| p.fatal)
    }

    /// How DDNet ends: plays, rejects, or crashes.
    pub fn verdict(&self) -> Verdict {
        match self.first_fatal() {
            None => Verdict::Plays,
            Some(p) if p.kind.crashes() => Verdict::Crashes,
            Some(_) => Verdict::Rejects,
        }
    }

    /// Records a warning.
    pub(crate) fn warn(&mut self, offset: u64, kind: ProblemKind, message: impl Into<String>) {
        let truncated = kind == ProblemKind::Unfinished;
        self.push(offset, kind, false, truncated, message);
    }

    /// Records a fatal problem.
    pub(crate) fn fail(&mut self, offset: u64, kind: ProblemKind, message: impl Into<String>) {
        let truncated = kind == ProblemKind::Truncated;
        self.push(offset, kind, true, truncated, message);
    }

    /// Records a fatal problem where the file breaks off, under a kind of its own (a
    /// demo's chunk header or data, as DDNet names them).
    pub(crate) fn fail_truncated(
        &mut self,
        offset: u64,
        kind: ProblemKind,
        message: impl Into<String>,
    ) {
        self.push(offset, kind, true, true, message);
    }

    fn push(
        &mut self,
        offset: u64,
        kind: ProblemKind,
        fatal: bool,
        truncated: bool,
        message: impl Into<String>,
    ) {
        self.problems.push(Problem {
            offset,
            message: message.into(),
            fatal,
            kind,
            truncated,
        });
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    /// The JSON of a report names each kind by its snake-case name (the CLI's `validate
    /// --json` prints it) and reads back as the same report.
    #[test]
    fn report_json_round_trips() {
        let report = Report {
            problems: vec![
                Problem {
                    offset: 7,
                    message: "warned".into(),
                    fatal: false,
                    kind: ProblemKind::NonCanonicalInts,
                    truncated: false,
                },
                Problem {
                    offset: 484,
                    message: "stops".into(),
                    fatal: true,
                    kind: ProblemKind::MapLoad,
                    truncated: false,
                },
            ],
        };
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["problems"][0]["kind"], "non_canonical_ints");
        assert_eq!(json["problems"][1]["kind"], "map_load");
        assert_eq!(json["problems"][1]["offset"], 484);
        let back: Report = serde_json::from_value(json).unwrap();
        assert_eq!(back, report);
        assert_eq!(back.verdict(), Verdict::Rejects);
    }
}
