//! Replaying a demo's snapshots: the full snapshot DDNet's player holds at every tick.
//!
//! [`SnapshotReplay`] walks the chunks of a [`DemoSlice`] or a streaming [`DemoReader`]: a SNAPSHOT chunk replaces the
//! current snapshot, a DELTA chunk is applied to it (with the demo's item-size table), and
//! each tick marker hands out the snapshot as it stands once that tick's chunks are read. As
//! in DDNet's player, an invalid snapshot or a delta that does not apply is skipped (and
//! counted) and the previous snapshot stays; a delta before any snapshot, a chunk that
//! cannot be read and a payload that cannot be decoded end the replay with an error.
//!
//! What the items mean (which object a type is) is left to callers.

use super::delta::{self, ItemSizes};
use super::items::{ItemTypes, Snapshot, SnapshotBuf, SnapshotBuilder};
use crate::twdemo::container::error::{PayloadError, ReadError};
use crate::twdemo::container::format::ChunkKind;
use crate::twdemo::container::payload::PayloadDecoder;
use crate::twdemo::container::reader::{
    Chunk, ChunkSource, Chunks, DemoReader, DemoSlice, Prelude,
};
use std::io::Read;

/// Why a replay stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// A chunk could not be read.
    #[error(transparent)]
    Read(ReadError),
    /// A snapshot or delta payload could not be decoded.
    #[error("at byte {offset}: {error}")]
    Payload {
        /// Offset of the chunk.
        offset: u64,
        /// Why.
        error: PayloadError,
    },
    /// A delta came before any snapshot ("Delta snapshot before any full snapshot").
    #[error("at byte {offset}: a delta before any full snapshot")]
    DeltaBeforeSnapshot {
        /// Offset of the chunk.
        offset: u64,
    },
}

impl ReplayError {
    /// Offset of the chunk the replay stopped at.
    pub fn offset(&self) -> u64 {
        match self {
            ReplayError::Read(e) => e.offset,
            ReplayError::Payload { offset, .. } | ReplayError::DeltaBeforeSnapshot { offset } => {
                *offset
            }
        }
    }
}

/// One tick of a replay.
///
/// With the `serde` feature: `{"tick", "keyframe", "offset", "snapshot": {"items": [...]}
/// or null, "messages"}`.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ReplayedTick<'r> {
    /// The tick.
    pub tick: i32,
    /// Whether its tick marker has the keyframe bit.
    pub keyframe: bool,
    /// Offset of its tick marker.
    pub offset: u64,
    /// The snapshot after the tick's chunks (`None` before the first valid snapshot).
    pub snapshot: Option<Snapshot<'r>>,
    /// Message chunks of the tick.
    pub messages: usize,
}

/// A tick whose chunks have all been read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TickEnd {
    /// The tick.
    pub(crate) tick: i32,
    /// Whether its tick marker has the keyframe bit.
    pub(crate) keyframe: bool,
    /// Offset of its tick marker.
    pub(crate) offset: u64,
}

/// The chunk walk every replay shares: reads chunks, keeps the snapshot as DDNet's player
/// does, hands each message chunk's ints to the caller, and stops at the end of each tick.
pub(crate) struct TickWalker<C> {
    chunks: C,
    decoder: PayloadDecoder,
    /// Message payloads decoded lately, with their ints.
    pub(crate) recent: RecentMessages,
    /// The snapshot state after the chunks read so far.
    pub(crate) state: SnapshotState,
    pending: Option<TickEnd>,
    done: bool,
}

impl<C: ChunkSource> TickWalker<C> {
    /// A walk over `chunks` of a demo whose prelude is `prelude`, with the item sizes its
    /// net version calls for and the snapshot order its writer used.
    pub(crate) fn new(prelude: &Prelude, chunks: C) -> Self {
        let net_version = prelude.header.net_version.to_string_lossy();
        TickWalker {
            chunks,
            decoder: PayloadDecoder::new(),
            recent: RecentMessages::default(),
            state: SnapshotState::new(
                ItemSizes::for_net_version(&net_version),
                SnapshotOrder::for_prelude(prelude),
            ),
            pending: None,
            done: false,
        }
    }

    /// Reads to the end of the next tick, handing every message chunk of it to `message`
    /// with `true`, and those before the first tick marker with `false`; `None` at the end
    /// or after an error.
    pub(crate) fn next(
        &mut self,
        mut message: impl FnMut(&[i32], bool),
    ) -> Option<Result<TickEnd, ReplayError>> {
        if self.done {
            return None;
        }
        loop {
            let Some(item) = self.chunks.next_chunk() else {
                self.done = true;
                return self.pending.take().map(Ok);
            };
            let item = match item {
                Ok(item) => item,
                Err(e) => {
                    self.done = true;
                    return Some(Err(ReplayError::Read(e)));
                }
            };
            match item.chunk {
                Chunk::Tick(marker) => {
                    let next = TickEnd {
                        tick: marker.tick,
                        keyframe: marker.keyframe,
                        offset: item.offset,
                    };
                    if let Some(previous) = self.pending.replace(next) {
                        return Some(Ok(previous));
                    }
                }
                Chunk::Data(chunk) => {
                    let kind = chunk.kind;
                    if !matches!(
                        kind,
                        ChunkKind::Snapshot | ChunkKind::SnapshotDelta | ChunkKind::Message
                    ) {
                        continue;
                    }
                    if kind == ChunkKind::Message
                        && let Some(ints) = self.recent.get(chunk.payload)
                    {
                        message(ints, self.pending.is_some());
                        continue;
                    }
                    if let Err(e) = self.decoder.decode(chunk.payload) {
                        self.done = true;
                        return Some(Err(ReplayError::Payload {
                            offset: item.offset,
                            error: e,
                        }));
                    }
                    let ints = self.decoder.last_ints();
                    match kind {
                        ChunkKind::Snapshot => self.state.keyframe(ints),
                        ChunkKind::SnapshotDelta => {
                            if self.state.delta(ints).is_err() {
                                self.done = true;
                                return Some(Err(ReplayError::DeltaBeforeSnapshot {
                                    offset: item.offset,
                                }));
                            }
                        }
                        _ => {
                            self.recent.insert(chunk.payload, ints);
                            message(ints, self.pending.is_some());
                        }
                    }
                }
            }
        }
    }
}

/// The last few message payloads decoded, each with its ints: DDNet's client sends its
/// tuning with every snapshot, and a client demo repeats the same `Sv_TuneParams` chunk
/// at nearly every tick (93 % of one real demo's payload bytes, over half of a server
/// demo's), so a payload equal to one of these is not decoded again. The same bytes
/// always decode to the same ints; only payloads that decoded are kept.
#[derive(Default)]
pub(crate) struct RecentMessages {
    /// `(payload, ints)`, the most recently decoded first; the vectors are reused.
    entries: Vec<(Vec<u8>, Vec<i32>)>,
    /// Tests compare replays that decode every payload with those that reuse.
    #[cfg(test)]
    pub(crate) off: bool,
}

impl RecentMessages {
    /// Entries kept: a tick's few repeated messages.
    const ENTRIES: usize = 4;
    /// Payloads longer than this are not kept, so that the entries stay small.
    const MAX_PAYLOAD: usize = 1024;

    /// The ints of `payload`, if it is one of the recent ones.
    fn get(&self, payload: &[u8]) -> Option<&[i32]> {
        #[cfg(test)]
        if self.off {
            return None;
        }
        self.entries
            .iter()
            .find(|(bytes, _)| bytes[..] == *payload)
            .map(|(_, ints)| &ints[..])
    }

    /// Keeps `payload` and its `ints` as the most recent, dropping the oldest.
    fn insert(&mut self, payload: &[u8], ints: &[i32]) {
        if payload.len() > Self::MAX_PAYLOAD {
            return;
        }
        if self.entries.len() < Self::ENTRIES {
            self.entries.push(Default::default());
        }
        self.entries.rotate_right(1);
        if let Some((bytes, to)) = self.entries.first_mut() {
            bytes.clear();
            bytes.extend_from_slice(payload);
            to.clear();
            to.extend_from_slice(ints);
        }
    }
}

/// The order a replay leaves items in after applying a delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum SnapshotOrder {
    /// As applied: the kept items in their old order, then the new ones (DDNet's player).
    AsApplied,
    /// Sorted by key, as Teeworlds 0.7's `CSnapshotBuilder::Finish` leaves every snapshot
    /// it builds, those its client rebuilds from deltas included.
    SortedByKey,
}

impl SnapshotOrder {
    /// The order of the player that recorded the demo, told from its prelude: sorted for a
    /// vanilla Teeworlds 0.7 recording (network version `"0.7 ..."` and format version 5 or
    /// older; DDNet writes its 0.7 recordings as version 6 and plays them as applied), as
    /// applied otherwise.
    pub fn for_prelude(prelude: &Prelude) -> SnapshotOrder {
        let sixup = prelude.header.net_version.text_bytes().starts_with(b"0.7");
        if sixup && prelude.version() < 6 {
            SnapshotOrder::SortedByKey
        } else {
            SnapshotOrder::AsApplied
        }
    }
}

/// The snapshot DDNet's player holds, updated chunk by chunk: shared by [`SnapshotReplay`]
/// and [`trim`](crate::twdemo::edit::trim), so that both rebuild snapshots the same way.
pub(crate) struct SnapshotState {
    sizes: ItemSizes,
    order: SnapshotOrder,
    builder: SnapshotBuilder,
    /// The keys of the current snapshot, for deltas that change it in place.
    in_place: delta::InPlace,
    /// The last valid snapshot, if any.
    pub(crate) current: Option<SnapshotBuf>,
    /// Snapshots and deltas skipped as the player skips them.
    pub(crate) skipped: usize,
    /// What changed in `current` since the last [`take_changes`](Self::take_changes).
    changes: Changes,
}

/// The items of the current snapshot that changed since a reader last looked, for readers
/// that keep state derived from the items (the game world) and redo only what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Changes {
    /// Anything may differ (a new keyframe, a rebuilt snapshot, several edits).
    All,
    /// The same items in the same places; these (indices, maybe repeated) got new data.
    Updated(Vec<usize>),
    /// One delta removed and added items: the kept ones keep their order and the added
    /// ones follow them.
    Edited {
        /// The removed items, as indices into the snapshot before, in order.
        removed: Vec<usize>,
        /// The added items (indices now).
        added: std::ops::Range<usize>,
        /// The items with new data (indices now, the added ones among them).
        updated: Vec<usize>,
    },
}

/// Past this many updated indices a change log says [`Changes::All`]: it stays bounded
/// when nobody takes it (trimming shares the state and never looks).
const MAX_LOGGED_UPDATES: usize = 4 * 1024;

impl Changes {
    /// Logs a delta applied in place (see [`delta::InPlace::last_edit`]). Updates add up
    /// while the items stay in their places; an edit is logged only as the first change.
    fn log(
        &mut self,
        removed: &[usize],
        added: std::ops::Range<usize>,
        updated: impl Iterator<Item = usize>,
    ) {
        let edits = !removed.is_empty() || !added.is_empty();
        match self {
            Changes::Updated(list) if !edits => {
                list.extend(updated);
                if list.len() > MAX_LOGGED_UPDATES {
                    *self = Changes::All;
                }
            }
            Changes::Updated(list) if list.is_empty() => {
                let mut updated_list = std::mem::take(list);
                updated_list.extend(updated);
                *self = Changes::Edited {
                    removed: removed.to_vec(),
                    added,
                    updated: updated_list,
                };
            }
            _ => *self = Changes::All,
        }
    }
}

impl SnapshotState {
    /// An empty state for a demo with these item sizes and snapshot order.
    pub(crate) fn new(sizes: ItemSizes, order: SnapshotOrder) -> Self {
        SnapshotState {
            sizes,
            order,
            builder: SnapshotBuilder::new(),
            in_place: delta::InPlace::default(),
            current: None,
            skipped: 0,
            changes: Changes::All,
        }
    }

    /// Takes the ints of a SNAPSHOT chunk as the current snapshot, if they are valid.
    pub(crate) fn keyframe(&mut self, ints: &[i32]) {
        match Snapshot::parse(ints) {
            Ok(snapshot) => {
                match &mut self.current {
                    Some(current) => current.copy_from(snapshot),
                    None => self.current = Some(snapshot.to_buf()),
                }
                self.changes = Changes::All;
                self.learn();
            }
            // DDNet logs "snapshot invalid" and plays on with the previous snapshot.
            Err(_) => self.skipped += 1,
        }
    }

    /// What changed in the current snapshot since the last call (the first call: `All`);
    /// the log starts again empty. `buf` is a spare list for the next log (the last one
    /// handed out, to keep its allocation).
    pub(crate) fn take_changes(&mut self, buf: Vec<usize>) -> Changes {
        let mut buf = buf;
        buf.clear();
        std::mem::replace(&mut self.changes, Changes::Updated(buf))
    }

    /// Reads item types as `types` says from now on (see [`ItemTypes`]).
    pub(crate) fn set_item_types(&mut self, types: ItemTypes) {
        self.sizes = self.sizes.with_item_types(types);
    }

    /// How item types are read.
    pub(crate) fn item_types(&self) -> ItemTypes {
        self.sizes.item_types()
    }

    /// Learns the keys of a new current snapshot.
    fn learn(&mut self) {
        if let Some(current) = &self.current {
            let sorted = self.order == SnapshotOrder::SortedByKey;
            let types = self.sizes.item_types();
            self.in_place.learn(&current.as_snapshot(), sorted, types);
        }
    }

    /// Applies the ints of a DELTA chunk to the current snapshot; `Err` if there is none
    /// yet (where DDNet's player stops).
    pub(crate) fn delta(&mut self, ints: &[i32]) -> Result<(), ()> {
        let Some(current) = &mut self.current else {
            return Err(());
        };
        if delta::apply_delta_in_place(current, ints, &self.sizes, &mut self.in_place) {
            let (removed, added, updated) = self.in_place.last_edit();
            self.changes.log(removed, added, updated);
            return Ok(());
        }
        match delta::apply_delta_with(&current.as_snapshot(), ints, &self.sizes, &mut self.builder)
        {
            Ok(()) => {
                self.changes = Changes::All;
                // The old snapshot is no longer needed: the new one goes into its buffer.
                self.builder.finish_over(current);
                if self.order == SnapshotOrder::SortedByKey {
                    current.sort_by_key();
                    self.learn();
                } else {
                    self.in_place.adopt(&mut self.builder);
                }
            }
            // DDNet logs the unpack error and plays on with the previous snapshot.
            Err(_) => self.skipped += 1,
        }
        Ok(())
    }
}

/// Replays the snapshots of a demo tick by tick; see the [module docs](self). `C` is where
/// the chunks come from: a [`DemoSlice`]'s [`Chunks`] ([`new`](SnapshotReplay::new)) or a
/// streaming [`DemoReader`] ([`from_reader`](SnapshotReplay::from_reader)).
pub struct SnapshotReplay<C> {
    walker: TickWalker<C>,
    /// Message chunks read for the tick being read.
    messages: usize,
}

impl<'a> SnapshotReplay<Chunks<'a>> {
    /// A replay of `demo` with the item sizes its net version calls for (0.7 or 0.6/DDNet)
    /// and the snapshot order its writer used ([`SnapshotOrder::for_prelude`]).
    pub fn new(demo: &DemoSlice<'a>) -> Self {
        SnapshotReplay::over(demo.prelude(), demo.chunks())
    }
}

impl<R: Read> SnapshotReplay<DemoReader<R>> {
    /// A replay of the chunks `reader` has not read yet (all of them, fresh from
    /// [`DemoReader::new`]), as [`new`](SnapshotReplay::new) replays a slice's; memory does
    /// not grow with the file.
    pub fn from_reader(reader: DemoReader<R>) -> Self {
        let prelude = *reader.prelude();
        SnapshotReplay::over(&prelude, reader)
    }
}

impl<C: ChunkSource> SnapshotReplay<C> {
    fn over(prelude: &Prelude, chunks: C) -> Self {
        SnapshotReplay {
            walker: TickWalker::new(prelude, chunks),
            messages: 0,
        }
    }

    /// The same replay reading item types as `types` says: with
    /// [`ItemTypes::DdnetPr12563`] (DDNet PR #12563, off by default) deltas may carry item
    /// types up to 0xffff. Call it before the first [`next`](Self::next).
    pub fn with_item_types(mut self, types: ItemTypes) -> Self {
        self.walker.state.set_item_types(types);
        self
    }

    /// Snapshots and deltas skipped so far because they were invalid or did not apply.
    pub fn skipped(&self) -> usize {
        self.walker.state.skipped
    }

    /// The next tick with its snapshot; `None` at the end of the demo or after an error.
    ///
    /// The snapshot borrows the replay, which the next call updates.
    #[allow(clippy::should_implement_trait)] // A lending iterator: items borrow the replay.
    pub fn next(&mut self) -> Option<Result<ReplayedTick<'_>, ReplayError>> {
        let messages = &mut self.messages;
        let end = match self
            .walker
            .next(|_, in_tick| *messages += usize::from(in_tick))?
        {
            Ok(end) => end,
            Err(e) => return Some(Err(e)),
        };
        // The walk returns a tick as soon as the next marker is read: what was counted
        // since the last tick is this one's.
        let messages = std::mem::take(&mut self.messages);
        Some(Ok(ReplayedTick {
            tick: end.tick,
            keyframe: end.keyframe,
            offset: end.offset,
            snapshot: self
                .walker
                .state
                .current
                .as_ref()
                .map(SnapshotBuf::as_snapshot),
            messages,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// A delta of deletions and updates (type, id, data), sizes written.
    fn delta_ints(deleted: &[(i32, i32)], updates: &[(i32, i32, Vec<i32>)]) -> Vec<i32> {
        let mut out = vec![deleted.len() as i32, updates.len() as i32, 0];
        out.extend(
            deleted
                .iter()
                .map(|&(t, id)| crate::twdemo::snapshot::key(t, id)),
        );
        for (t, id, data) in updates {
            out.extend([*t, *id, data.len() as i32]);
            out.extend(data);
        }
        out
    }

    type Updates = Vec<(i32, i32, Vec<i32>)>;

    fn updates() -> impl Strategy<Value = Updates> {
        vec((0i32..3, 0i32..3, vec(-2i32..3, 0..2)), 0..5)
    }

    proptest! {
        /// A chain of deltas through the replay state (in place where it can, its key
        /// table carried from one delta to the next or taken over from a rebuild) gives
        /// the snapshots that rebuilding every time gives.
        #[test]
        fn replay_state_gives_what_rebuilding_gives(
            first in updates(),
            steps in vec((vec((0i32..3, 0i32..3), 0..2), updates()), 1..6),
            sorted in any::<bool>(),
            twice in any::<bool>(),
        ) {
            let order = if sorted { SnapshotOrder::SortedByKey } else { SnapshotOrder::AsApplied };
            let mut state = SnapshotState::new(ItemSizes::NONE, order);
            let mut keyframe = apply_delta_ints(&Snapshot::empty(), &delta_ints(&[], &first));
            if twice {
                // A keyframe holding a key twice (no writer makes one, a file can).
                keyframe = with_first_item_twice(&keyframe);
            }
            if sorted {
                keyframe.sort_by_key();
            }
            state.keyframe(keyframe.as_ints());
            let mut expected = keyframe;
            for (deleted, updates) in &steps {
                let delta = delta_ints(deleted, updates);
                prop_assert!(state.delta(&delta).is_ok());
                if let Ok(mut next) = delta::apply_delta(&expected.as_snapshot(), &delta, &ItemSizes::NONE) {
                    if sorted {
                        next.sort_by_key();
                    }
                    expected = next;
                }
                prop_assert_eq!(state.current.as_ref(), Some(&expected));
            }
        }
    }

    /// Deltas that only add items, many times over, outgrow the key table learnt from a
    /// small keyframe: it must grow rather than fill up.
    /// The cache gives back the ints of the last four payloads it kept, by their bytes,
    /// and nothing for others: an older one pushed out, a prefix, a longer payload, or one
    /// too long to keep.
    #[test]
    fn recent_messages_keep_the_last_four_by_bytes() {
        let mut recent = RecentMessages::default();
        let payload = |i: u8| vec![i; 3];
        for i in 0..6u8 {
            recent.insert(&payload(i), &[i32::from(i), -1]);
        }
        for i in 2..6u8 {
            assert_eq!(
                recent.get(&payload(i)),
                Some(&[i32::from(i), -1][..]),
                "{i}"
            );
        }
        for gone in [payload(0), payload(1), vec![5; 2], vec![5; 4], vec![]] {
            assert_eq!(recent.get(&gone), None, "{gone:?}");
        }
        let long = vec![7; RecentMessages::MAX_PAYLOAD + 1];
        recent.insert(&long, &[7]);
        assert_eq!(recent.get(&long), None);
        assert_eq!(
            recent.get(&payload(2)),
            Some(&[2, -1][..]),
            "a long one pushes none out"
        );
    }

    #[test]
    fn added_items_outgrow_the_first_key_table() {
        let mut state = SnapshotState::new(ItemSizes::NONE, SnapshotOrder::AsApplied);
        state.keyframe(Snapshot::empty().as_ints());
        let mut expected = Snapshot::empty().to_buf();
        for step in 0..20 {
            let updates: Updates = (0..40).map(|i| (1, step * 40 + i, vec![i])).collect();
            let delta = delta_ints(&[], &updates);
            assert!(state.delta(&delta).is_ok());
            expected =
                delta::apply_delta(&expected.as_snapshot(), &delta, &ItemSizes::NONE).unwrap();
            assert_eq!(state.current.as_ref(), Some(&expected), "step {step}");
        }
        assert_eq!(expected.as_snapshot().len(), 800);
    }

    /// `snapshot` with its first item (if any) appended again at the end.
    fn with_first_item_twice(snapshot: &SnapshotBuf) -> SnapshotBuf {
        let view = snapshot.as_snapshot();
        let Some(first) = view.item(0) else {
            return snapshot.clone();
        };
        let mut items: Vec<(i32, &[i32])> = view.items().map(|i| (i.key, i.data)).collect();
        items.push((first.key, first.data));
        let data_ints: usize = items.iter().map(|(_, d)| 1 + d.len()).sum();
        let mut ints = vec![4 * data_ints as i32, items.len() as i32];
        let mut offset = 0;
        for (_, data) in &items {
            ints.push(4 * offset);
            offset += 1 + data.len() as i32;
        }
        for (key, data) in &items {
            ints.push(*key);
            ints.extend_from_slice(data);
        }
        SnapshotBuf::from_ints(ints).unwrap()
    }

    fn apply_delta_ints(from: &Snapshot<'_>, delta: &[i32]) -> SnapshotBuf {
        delta::apply_delta(from, delta, &ItemSizes::NONE).unwrap_or_default()
    }
}
