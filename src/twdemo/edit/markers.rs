//! Timeline markers: listing them, and setting, adding or removing them with nothing else
//! in the file changed.
//!
//! Versions 4 and later hold up to 64 marker ticks in a fixed 260-byte block right after
//! the header ([`TimelineMarkers`]: a big-endian count, then 64 big-endian tick slots);
//! DDNet's player draws them on its seek bar and jumps between them. This module writes
//! only what DDNet itself would write there (DDNet 20.1 at 28baa427,
//! `src/engine/shared/demo.cpp` and `src/engine/demo.h`):
//!
//! * at most [`MAX_TIMELINE_MARKERS`] (64, `MAX_TIMELINE_MARKERS` in `engine/demo.h`);
//! * in ascending order, each at least [`MIN_MARKER_SPACING`] ticks (one second) after the
//!   one before: `CDemoRecorder::AddDemoMarker` drops a marker whose distance to the last
//!   one kept is below `SERVER_TICK_SPEED`, which also drops a repeated or an earlier
//!   tick; the player's "next/previous marker" keys (`menus_demo.cpp`) walk the list in
//!   stored order and rely on it;
//! * each within the demo, from its first to its last tick marker: the recorder marks the
//!   tick it last wrote (`AddDemoMarker()` takes `m_LastTickMarker`), and the seek bar
//!   places a marker at `(tick - FirstTick) / (LastTick - FirstTick)` with those ticks from
//!   `ScanFile`, so a marker outside them would be drawn off the bar;
//! * the count and then the ticks in use, as `Stop` writes them over the block `Start`
//!   wrote as zeros. Slots past the count are not read by anyone; the slots of markers
//!   taken away are zeroed here (as `Start` left them), and slots past the old count are
//!   left as found: some older clients wrote garbage there, and keeping it means setting a
//!   demo's own markers gives back the same bytes.
//!
//! Where DDNet's recorder silently ignores a marker, this module refuses with a typed
//! [`MarkersError`] and writes nothing. DDNet's player itself rejects no marker: it clamps
//! the count to 0..=64 and takes the ticks as they are (`CDemoPlayer::Load`), and reads the
//! block for any version above 3, so a version-3 demo has none to edit
//! ([`MarkersError::NoMarkerBlock`]).
//!
//! The block is written through its binrw layout at [`TIMELINE_MARKERS_OFFSET`], over a copy
//! of the input: the header's `length`, the map and every chunk stay byte for byte. Finding
//! the demo's tick range reads every chunk header (payloads are not decoded), so a demo
//! whose chunks do not read to the end is refused: a cut-off recording is
//! [`repair`](super::repair::repair)'s business, and whether the demo plays at all is
//! [`validate`](super::validate::validate)'s.

use crate::format::BreakOff;
use crate::time::SERVER_TICK_SPEED;
use crate::twdemo::container::error::{ReadError, ReadErrorKind, WriteError};
use crate::twdemo::container::format::{
    FIRST_VERSION_WITH_MARKERS, FIRST_VERSION_WITH_SHA256, MAX_TIMELINE_MARKERS,
    TIMELINE_MARKERS_OFFSET, TIMELINE_MARKERS_SIZE, TimelineMarkers,
};
use crate::twdemo::container::reader::{Chunk, ChunkSource, DemoReader, Prelude};
use binrw::BinWrite;
use std::io::{self, Cursor, Read, Write};

use super::stream::{CopyError, copy_patched, open_failed};

/// Fewest ticks from one marker to the next: DDNet's recorder drops a marker less than a
/// second (`SERVER_TICK_SPEED` ticks) after the one before.
pub const MIN_MARKER_SPACING: i32 = SERVER_TICK_SPEED;

/// A demo's timeline markers as DDNet's player reads them, and the ticks they may mark.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MarkerList {
    /// The format version.
    pub version: u8,
    /// The count as stored, which the player clamps to 0..=64; `None` for version 3,
    /// which has no marker block.
    pub stored_count: Option<i32>,
    /// The markers in use, in stored order.
    pub markers: Vec<i32>,
    /// Tick of the first tick marker: where the player's seek bar starts.
    pub first_tick: Option<i32>,
    /// Tick of the last tick marker: where the seek bar ends.
    pub last_tick: Option<i32>,
    /// Where the chunks stop reading, if they do before the end of the file; the tick
    /// range then covers the ticks before it, as DDNet's scan does. Editing refuses such
    /// a demo until it is repaired.
    pub break_off: Option<BreakOff>,
}

/// What [`set_markers`] or [`edit_markers`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MarkersReport {
    /// The markers in use before, in stored order.
    pub before: Vec<i32>,
    /// The markers written, in order.
    pub after: Vec<i32>,
    /// Markers written that were not there before.
    pub added: Vec<i32>,
    /// Markers that were there before and are not written.
    pub removed: Vec<i32>,
    /// Tick of the demo's first tick marker (`None` only when there is none, and then no
    /// marker either).
    pub first_tick: Option<i32>,
    /// Tick of the demo's last tick marker.
    pub last_tick: Option<i32>,
    /// Whether any byte of the result differs from the input.
    pub changed: bool,
}

/// Why markers were not written: what DDNet would not write, or a demo that does not read.
///
/// A marker already stored in the file is named with the byte offset of its slot
/// (`stored_at`), so that a bad marker left by another tool can be told from one being
/// added.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MarkersError {
    /// The demo does not read to its end (the error has the offset). A cut-off recording
    /// needs [`repair`](super::repair::repair) first.
    #[error("reading the demo: {0}")]
    Read(#[from] ReadError),
    /// Version 3 has no timeline-marker block (version 4 added it).
    #[error(
        "a version-{version} demo has no timeline-marker block (version 4 added it; \
         `convert` can add an empty one)"
    )]
    NoMarkerBlock {
        /// The demo's version.
        version: u8,
    },
    /// A version after 6: DDNet reads a marker block there too, but no DDNet ever wrote
    /// such a demo, so this module does not write into one.
    #[error("demo version {version} is not one DDNet writes (4 to 6 have timeline markers)")]
    UnsupportedVersion {
        /// The demo's version.
        version: u8,
    },
    /// More markers than the block holds.
    #[error("{count} timeline markers do not fit: a demo holds at most 64")]
    TooMany {
        /// How many were asked for.
        count: usize,
    },
    /// Markers asked for in a demo without a single tick marker.
    #[error("the demo has no tick markers, so no tick lies inside it to be marked")]
    NoTicks,
    /// A marker before the demo's first tick marker or after its last.
    #[error(
        "{}timeline marker {tick} lies outside the demo, which runs from tick {first_tick} \
         to {last_tick}",
        at(*stored_at)
    )]
    OutsideDemo {
        /// The marker.
        tick: i32,
        /// The demo's first tick.
        first_tick: i32,
        /// The demo's last tick.
        last_tick: i32,
        /// Offset of the slot that holds it, if the input already has it.
        stored_at: Option<u64>,
    },
    /// The same tick twice: asked for twice, or added where it is a marker already.
    #[error("{}tick {tick} is a timeline marker already", at(*stored_at))]
    Duplicate {
        /// The tick.
        tick: i32,
        /// Offset of the slot that holds it, if the input already has it.
        stored_at: Option<u64>,
    },
    /// A marker after a later one: DDNet's player steps through them in stored order.
    #[error(
        "{}timeline marker {tick} comes after {previous}; markers must be in ascending order",
        at(*stored_at)
    )]
    OutOfOrder {
        /// The marker.
        tick: i32,
        /// The marker before it.
        previous: i32,
        /// Offset of the slot that holds it, if the input already has it.
        stored_at: Option<u64>,
    },
    /// A marker less than a second after the one before, which DDNet's recorder drops.
    #[error(
        "{}timeline marker {tick} is {} ticks after {previous}; DDNet's recorder keeps \
         markers at least 50 ticks (one second) apart",
        at(*stored_at),
        *tick as i64 - *previous as i64
    )]
    TooClose {
        /// The marker.
        tick: i32,
        /// The marker before it.
        previous: i32,
        /// Offset of the slot that holds it, if the input already has it.
        stored_at: Option<u64>,
    },
    /// A tick to remove that is no marker of the demo.
    #[error("tick {tick} is not a timeline marker of the demo, so it cannot be removed")]
    NotAMarker {
        /// The tick.
        tick: i32,
    },
    /// The block could not be written over the copy (not expected: the prelude was read,
    /// so the block's place exists).
    #[error("writing the timeline-marker block: {0}")]
    Write(#[from] WriteError),
}

/// `"at byte N: "` for a marker stored in the input, nothing for one being added.
fn at(stored_at: Option<u64>) -> String {
    stored_at
        .map(|offset| format!("at byte {offset}: "))
        .unwrap_or_default()
}

/// Lists the timeline markers of `data` and the tick range of its chunks. Only the
/// prelude must read; chunks that stop reading early end the range there
/// ([`MarkerList::break_off`]).
pub fn list_markers(data: &[u8]) -> Result<MarkerList, ReadError> {
    list_markers_reader(data)
}

/// [`list_markers`] of a demo read as a stream: its chunk headers are read one at a time
/// (payloads are not decoded), so memory does not grow with the demo.
pub fn list_markers_reader<R: Read>(input: R) -> Result<MarkerList, ReadError> {
    let mut chunks = DemoReader::new(input)?;
    let prelude = *chunks.prelude();
    let (range, error) = tick_range(&mut chunks);
    let cut = error.map(|e| BreakOff {
        offset: e.offset,
        truncated: matches!(e.kind, ReadErrorKind::UnexpectedEnd { .. }),
        reason: e.kind.to_string(),
    });
    Ok(MarkerList {
        version: prelude.version(),
        stored_count: prelude.timeline_markers.map(|block| block.count),
        markers: prelude.markers_in_use().to_vec(),
        first_tick: range.map(|(first, _)| first),
        last_tick: range.map(|(_, last)| last),
        break_off: cut,
    })
}

/// Returns `data` with exactly `markers` as its timeline markers, in the order given, and
/// every byte outside the marker block unchanged; see the [module docs](self) for the
/// rules. Setting the markers a demo already has returns the input unchanged, provided
/// DDNet could have written them (and their count).
pub fn set_markers(data: &[u8], markers: &[i32]) -> Result<(Vec<u8>, MarkersReport), MarkersError> {
    let mut out = Vec::with_capacity(data.len());
    let report = set_markers_reader(|| Ok(data), markers, &mut out)?;
    Ok((out, report))
}

/// [`set_markers`] of a demo read twice as a stream from its start, each time from what
/// `open` returns (a file opened again): once to check the markers against its tick range,
/// once to copy it into `out` with the new marker block. Memory does not grow with the
/// demo. Nothing is written when the markers are refused; the second reading stops where
/// the first ended (one that ends sooner, the file having changed, is
/// [`MarkersError::Read`] with part of the demo written).
pub fn set_markers_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> io::Result<R>,
    markers: &[i32],
    out: W,
) -> Result<MarkersReport, MarkersError> {
    let mut chunks = DemoReader::new(open().map_err(open_failed)?)?;
    let block = marker_block(chunks.prelude())?;
    set_in(&mut open, &mut chunks, block, markers, out)
}

/// Removes the markers `remove` and adds the markers `add`, then writes the result in
/// ascending order with [`set_markers`].
///
/// Each tick in `remove` must be a marker of the demo ([`MarkersError::NotAMarker`]); each
/// tick in `add` must not be one after the removals, nor be given twice
/// ([`MarkersError::Duplicate`]). The markers kept are checked again with the ones added,
/// so a stored marker DDNet would not have written (another tool's) is refused until it is
/// removed.
pub fn edit_markers(
    data: &[u8],
    add: &[i32],
    remove: &[i32],
) -> Result<(Vec<u8>, MarkersReport), MarkersError> {
    let mut out = Vec::with_capacity(data.len());
    let report = edit_markers_reader(|| Ok(data), add, remove, &mut out)?;
    Ok((out, report))
}

/// [`edit_markers`] of a demo read twice as a stream, as [`set_markers_reader`] reads it.
pub fn edit_markers_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> io::Result<R>,
    add: &[i32],
    remove: &[i32],
    out: W,
) -> Result<MarkersReport, MarkersError> {
    let mut chunks = DemoReader::new(open().map_err(open_failed)?)?;
    let block = marker_block(chunks.prelude())?;
    let before = block.in_use();
    let mut after = before.to_vec();
    for &tick in remove {
        match after.iter().position(|&t| t == tick) {
            Some(i) => {
                after.remove(i);
            }
            None => return Err(MarkersError::NotAMarker { tick }),
        }
    }
    for &tick in add {
        if after.contains(&tick) {
            return Err(MarkersError::Duplicate {
                tick,
                stored_at: stored_at(before, tick),
            });
        }
        after.push(tick);
    }
    after.sort_unstable();
    set_in(&mut open, &mut chunks, block, &after, out)
}

/// Sets `markers` in the demo whose chunks `chunks` is about to read (its marker block is
/// `block`): checks them against its tick range, then copies the demo from a second
/// reading into `out` with the new block.
fn set_in<R: Read, W: Write>(
    open: &mut impl FnMut() -> io::Result<R>,
    chunks: &mut DemoReader<R>,
    block: TimelineMarkers,
    markers: &[i32],
    out: W,
) -> Result<MarkersReport, MarkersError> {
    let range = match tick_range(chunks) {
        (range, None) => range,
        (_, Some(e)) => return Err(e.into()),
    };
    // Every chunk read: this is the end of the demo.
    let len = chunks.position();
    let before = block.in_use();
    check(markers, range, before)?;

    let mut new_block = block;
    new_block.count = markers.len() as i32;
    for (i, slot) in new_block.ticks.iter_mut().enumerate() {
        if let Some(&tick) = markers.get(i) {
            *slot = tick;
        } else if i < before.len() {
            // A marker taken away is cleared, as `Start` left its slot; slots past the old
            // count keep whatever the input's recorder left there.
            *slot = 0;
        }
    }
    let mut bytes = Cursor::new(Vec::with_capacity(TIMELINE_MARKERS_SIZE));
    new_block.write(&mut bytes).map_err(WriteError::from)?;
    let bytes = bytes.into_inner();
    let again = open().map_err(|e| MarkersError::Read(open_failed(e)))?;
    copy_patched(again, len, &[(TIMELINE_MARKERS_OFFSET, &bytes)], out).map_err(|e| match e {
        CopyError::Read(e) => MarkersError::Read(e),
        CopyError::Write(e) => MarkersError::Write(WriteError::Io(e)),
    })?;

    Ok(MarkersReport {
        before: before.to_vec(),
        after: markers.to_vec(),
        added: markers
            .iter()
            .copied()
            .filter(|t| !before.contains(t))
            .collect(),
        removed: before
            .iter()
            .copied()
            .filter(|t| !markers.contains(t))
            .collect(),
        first_tick: range.map(|(first, _)| first),
        last_tick: range.map(|(_, last)| last),
        changed: new_block != block,
    })
}

/// The demo's marker block, if it has one that this module writes.
fn marker_block(prelude: &Prelude) -> Result<TimelineMarkers, MarkersError> {
    let version = prelude.version();
    if version > FIRST_VERSION_WITH_SHA256 {
        return Err(MarkersError::UnsupportedVersion { version });
    }
    match prelude.timeline_markers {
        Some(block) if version >= FIRST_VERSION_WITH_MARKERS => Ok(block),
        _ => Err(MarkersError::NoMarkerBlock { version }),
    }
}

/// The first and last tick of a demo's tick markers, if it has any.
type TickSpan = Option<(i32, i32)>;

/// The first and last tick marker, in file order, as DDNet's `ScanFile` takes them, and
/// the error that ended the chunks early, if one did (the span then covers the chunks
/// before it).
fn tick_range(chunks: &mut impl ChunkSource) -> (TickSpan, Option<ReadError>) {
    let mut range: TickSpan = None;
    while let Some(item) = chunks.next_chunk() {
        match item {
            Ok(item) => {
                if let Chunk::Tick(marker) = item.chunk {
                    let first = range.map_or(marker.tick, |(first, _)| first);
                    range = Some((first, marker.tick));
                }
            }
            Err(e) => return (range, Some(e)),
        }
    }
    (range, None)
}

/// Offset of the slot that holds `tick` among the stored markers in use.
fn stored_at(stored: &[i32], tick: i32) -> Option<u64> {
    stored
        .iter()
        .position(|&t| t == tick)
        .map(|i| TIMELINE_MARKERS_OFFSET + 4 + 4 * i as u64)
}

/// DDNet's rules for the markers of a demo whose tick markers run over `range`.
fn check(markers: &[i32], range: TickSpan, stored: &[i32]) -> Result<(), MarkersError> {
    if markers.len() > MAX_TIMELINE_MARKERS {
        return Err(MarkersError::TooMany {
            count: markers.len(),
        });
    }
    if markers.is_empty() {
        return Ok(());
    }
    let (first_tick, last_tick) = range.ok_or(MarkersError::NoTicks)?;
    let mut previous: Option<i32> = None;
    for &tick in markers {
        let stored_at = stored_at(stored, tick);
        if !(first_tick..=last_tick).contains(&tick) {
            return Err(MarkersError::OutsideDemo {
                tick,
                first_tick,
                last_tick,
                stored_at,
            });
        }
        if let Some(previous) = previous {
            // i64: two ticks of the demo are both in [0, 0x6FFFFFFF), but the arithmetic
            // stays exact whatever they are.
            let gap = tick as i64 - previous as i64;
            if gap == 0 {
                return Err(MarkersError::Duplicate { tick, stored_at });
            }
            if gap < 0 {
                return Err(MarkersError::OutOfOrder {
                    tick,
                    previous,
                    stored_at,
                });
            }
            if gap < MIN_MARKER_SPACING as i64 {
                return Err(MarkersError::TooClose {
                    tick,
                    previous,
                    stored_at,
                });
            }
        }
        previous = Some(tick);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twdemo::container::format::TickForm;
    use crate::twdemo::container::reader::{DemoSlice, TickMarker};
    use crate::twdemo::container::writer::DemoWriter;
    use crate::twdemo::{Recorder, RecorderConfig};

    /// A demo of `version` recorded with tick markers at 100..=400, a message, and
    /// `markers` added through the recorder, as DDNet's would.
    fn recorded(version: u8, markers: &[i32]) -> Vec<u8> {
        let mut config = RecorderConfig::ddnet("m", "2024-01-01_00-00-00");
        config.version = version;
        let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"MAP").unwrap();
        for tick in 100..=400 {
            rec.record_tick_marker(tick, tick % 250 == 100).unwrap();
        }
        // Something to cut inside.
        rec.record_message(&[1; 40]).unwrap();
        for &tick in markers {
            assert!(rec.add_timeline_marker(tick));
        }
        rec.finish().unwrap().into_inner()
    }

    fn block(data: &[u8]) -> TimelineMarkers {
        DemoSlice::parse(data)
            .unwrap()
            .prelude()
            .timeline_markers
            .unwrap()
    }

    fn outside_block_equal(a: &[u8], b: &[u8]) -> bool {
        let end = TIMELINE_MARKERS_OFFSET as usize + TIMELINE_MARKERS_SIZE;
        a.len() == b.len()
            && a[..TIMELINE_MARKERS_OFFSET as usize] == b[..TIMELINE_MARKERS_OFFSET as usize]
            && a[end..] == b[end..]
    }

    #[test]
    fn writes_what_the_recorder_writes() {
        for version in 4..=6 {
            let plain = recorded(version, &[]);
            for markers in [&[][..], &[100], &[100, 150, 400], &[250]] {
                let (out, report) = set_markers(&plain, markers).unwrap();
                assert!(out == recorded(version, markers), "{version} {markers:?}");
                assert_eq!(report.after, markers);
                assert_eq!(report.changed, !markers.is_empty());
                // And back: the markers' slots are zero again.
                let (back, report) = set_markers(&out, &[]).unwrap();
                assert!(back == plain);
                assert_eq!(report.removed, markers);
            }
        }
    }

    #[test]
    fn edits_keep_order_and_clear_removed_slots() {
        let data = recorded(6, &[100, 200, 300]);
        let (out, report) = edit_markers(&data, &[399, 150], &[200]).unwrap();
        assert_eq!(report.after, [100, 150, 300, 399]);
        assert_eq!((report.added, report.removed), (vec![150, 399], vec![200]));
        assert!(outside_block_equal(&out, &data));
        let (out, _) = edit_markers(&out, &[], &[100, 150, 300]).unwrap();
        let b = block(&out);
        assert_eq!(
            (b.count, b.ticks[0], b.ticks[1..4].to_vec()),
            (1, 399, vec![0; 3])
        );
        // Garbage past the old count is left alone.
        let mut odd = data.clone();
        odd[TIMELINE_MARKERS_OFFSET as usize + 4 + 4 * 10] = 0x7f;
        let (out, report) = edit_markers(&odd, &[], &[300]).unwrap();
        assert!(report.changed);
        assert_eq!(block(&out).ticks[10], 0x7f00_0000);
        let (same, report) = set_markers(&odd, &[100, 200, 300]).unwrap();
        assert!(same == odd && !report.changed);
    }

    #[test]
    fn refuses_what_ddnet_would_not_write() {
        let data = recorded(5, &[200]);
        let err = |add: &[i32], remove: &[i32]| edit_markers(&data, add, remove).unwrap_err();
        assert!(matches!(
            err(&[99], &[]),
            MarkersError::OutsideDemo {
                tick: 99,
                first_tick: 100,
                last_tick: 400,
                stored_at: None
            }
        ));
        assert!(matches!(
            err(&[401], &[]),
            MarkersError::OutsideDemo { tick: 401, .. }
        ));
        assert!(matches!(err(&[-5], &[]), MarkersError::OutsideDemo { .. }));
        assert!(matches!(
            err(&[200], &[]),
            MarkersError::Duplicate {
                tick: 200,
                stored_at: Some(180)
            }
        ));
        assert!(matches!(
            err(&[300, 300], &[]),
            MarkersError::Duplicate {
                tick: 300,
                stored_at: None
            }
        ));
        let e = err(&[249], &[]);
        assert!(matches!(
            e,
            MarkersError::TooClose {
                tick: 249,
                previous: 200,
                ..
            }
        ));
        assert_eq!(
            e.to_string(),
            "timeline marker 249 is 49 ticks after 200; DDNet's recorder keeps markers at \
             least 50 ticks (one second) apart"
        );
        assert!(matches!(
            err(&[], &[201]),
            MarkersError::NotAMarker { tick: 201 }
        ));
        // Removing and adding the same tick is no change.
        let (out, report) = edit_markers(&data, &[200], &[200]).unwrap();
        assert!(out == data && !report.changed);

        let set = |markers: &[i32]| set_markers(&data, markers).unwrap_err();
        assert!(matches!(
            set(&[300, 200]),
            MarkersError::OutOfOrder {
                tick: 200,
                previous: 300,
                stored_at: Some(180)
            }
        ));
        assert_eq!(
            set(&[300, 200]).to_string(),
            "at byte 180: timeline marker 200 comes after 300; markers must be in ascending order"
        );
        let many: Vec<i32> = (0..65).map(|i| 100 + i).collect();
        assert!(matches!(set(&many), MarkersError::TooMany { count: 65 }));

        let v3 = recorded(3, &[]);
        for result in [set_markers(&v3, &[]), edit_markers(&v3, &[100], &[])] {
            assert!(matches!(
                result,
                Err(MarkersError::NoMarkerBlock { version: 3 })
            ));
        }
        let mut v7 = recorded(6, &[]);
        v7[7] = 7;
        assert!(matches!(
            set_markers(&v7, &[]),
            Err(MarkersError::UnsupportedVersion { version: 7 })
        ));
        // A cut-off recording is for `repair`; listing still works.
        let cut = &data[..data.len() - 2];
        assert!(matches!(
            set_markers(cut, &[200]),
            Err(MarkersError::Read(_))
        ));
        let list = list_markers(cut).unwrap();
        assert_eq!((list.markers, list.first_tick), (vec![200], Some(100)));
        assert!(list.break_off.unwrap().truncated);
        assert!(matches!(
            set_markers(&data[..300], &[]),
            Err(MarkersError::Read(_))
        ));
    }

    #[test]
    fn sixty_four_fit_and_a_stored_bad_marker_is_named() {
        let prelude = *DemoSlice::parse(&recorded(6, &[])).unwrap().prelude();
        let mut w = DemoWriter::new(Vec::new(), &prelude, b"MAP").unwrap();
        for tick in [0, 5000] {
            w.write_tick_marker(TickMarker {
                tick,
                keyframe: true,
                form: TickForm::Absolute,
            })
            .unwrap();
        }
        let data = w.into_inner().unwrap();
        let all: Vec<i32> = (0..64).map(|i| i * 50).collect();
        let (out, _) = set_markers(&data, &all).unwrap();
        assert_eq!(block(&out).in_use(), &all[..]);
        assert_eq!(list_markers(&out).unwrap().stored_count, Some(64));
        assert!(matches!(
            edit_markers(&out, &[4000], &[]),
            Err(MarkersError::TooMany { count: 65 })
        ));
        // A count above 64 reads as 64 (clamped); setting those 64 writes the count DDNet
        // would.
        let mut over = out.clone();
        over[TIMELINE_MARKERS_OFFSET as usize + 3] = 70;
        let (fixed, report) = set_markers(&over, &all).unwrap();
        assert!(fixed == out && report.changed);
        // A marker another tool stored too close is named at its slot.
        let (mut close, _) = set_markers(&data, &[100, 200]).unwrap();
        let slot = TIMELINE_MARKERS_OFFSET as usize + 8;
        close[slot..slot + 4].copy_from_slice(&120i32.to_be_bytes());
        let e = edit_markers(&close, &[3000], &[]).unwrap_err();
        assert!(matches!(
            e,
            MarkersError::TooClose {
                tick: 120,
                previous: 100,
                stored_at: Some(184)
            }
        ));
        assert!(e.to_string().starts_with("at byte 184: "));
        assert!(edit_markers(&close, &[3000], &[120]).is_ok());
    }

    #[test]
    fn no_ticks_no_markers() {
        let prelude = *DemoSlice::parse(&recorded(4, &[])).unwrap().prelude();
        let empty = DemoWriter::new(Vec::new(), &prelude, b"MAP")
            .unwrap()
            .into_inner()
            .unwrap();
        assert!(matches!(
            set_markers(&empty, &[0]),
            Err(MarkersError::NoTicks)
        ));
        let (out, report) = set_markers(&empty, &[]).unwrap();
        assert!(out == empty && !report.changed && report.first_tick.is_none());
    }
}
