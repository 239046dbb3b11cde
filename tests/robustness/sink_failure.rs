//! A failing sink (disk full, closed pipe) is reported as an error by the call that hit it,
//! every later call is refused without touching the sink, and what reached the sink reads
//! back up to the last tick (teehistorian) or chunk (demo) completed before the failure.
//!
//! [`FailAfter`] accepts `limit` bytes (a write that crosses the limit is accepted up to it,
//! as a disk would), then returns `StorageFull`. Like a disk, rewriting bytes it already
//! holds (the demo recorder patching its header) costs no space.
//!
//! * `teehistorian_*`: the 64-player server of `tests/common/server.rs`, driven through a
//!   fallible copy of its tick loop, with the sink full at every byte offset of the first
//!   4 KiB and at spread offsets over 300 ticks, under several flush policies and with and
//!   without a `BufWriter`.
//! * `demo_*`: a small DDNet demo (keyframes, deltas, marker-only ticks, messages) with the
//!   sink full at every byte offset; the cut file is read, repaired and validated.
//! * `*_transient_failure_*`: a sink that fails once and then accepts writes again: the
//!   recorder must still refuse to go on (it does not know how much of the failed write
//!   landed), or the file would have a half record in the middle.

use crate::common;

use common::server::Server;
use demokit::gamenet::Protocol;
use demokit::teehistorian::{
    FlushPolicy, Header, MessageAt, Recorder, RecorderError, TeehistorianSlice,
};
use demokit::twdemo::{
    self, Chunk, DemoSlice, RecorderConfig, SnapshotBuf, SnapshotBuilder, WriteError,
};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};

// ---- the sink ----

/// A file on a disk with room for `limit` bytes: writes at positions below `limit` land,
/// the first write with no room left fails with `StorageFull`.
#[derive(Debug, Default)]
struct FailAfter {
    data: Vec<u8>,
    pos: usize,
    limit: usize,
    /// After the first failure the disk has room again (space was freed).
    transient: bool,
    /// Writes refused so far.
    refused: usize,
    /// Bytes that landed after the first refused write.
    landed_after_failure: usize,
}

impl FailAfter {
    fn new(limit: usize) -> Self {
        FailAfter {
            limit,
            ..FailAfter::default()
        }
    }

    fn transient(limit: usize) -> Self {
        FailAfter {
            transient: true,
            ..FailAfter::new(limit)
        }
    }
}

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let room = self.limit.saturating_sub(self.pos);
        if room == 0 {
            self.refused += 1;
            if self.transient {
                self.limit = usize::MAX;
            }
            return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
        }
        let n = room.min(buf.len());
        let end = self.pos + n;
        if end > self.data.len() {
            self.data.resize(end, 0);
        }
        self.data[self.pos..end].copy_from_slice(&buf[..n]);
        self.pos = end;
        if self.refused > 0 {
            self.landed_after_failure += n;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for FailAfter {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(p) => p as i64,
            SeekFrom::End(d) => self.data.len() as i64 + d,
            SeekFrom::Current(d) => self.pos as i64 + d,
        };
        self.pos = usize::try_from(pos)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "before the start"))?;
        Ok(self.pos as u64)
    }
}

#[test]
fn fail_after_accepts_up_to_the_limit() {
    let mut sink = FailAfter::new(5);
    assert_eq!(sink.write(b"abc").unwrap(), 3);
    assert_eq!(sink.write(b"defg").unwrap(), 2);
    let e = sink.write(b"x").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::StorageFull);
    assert_eq!(sink.data, b"abcde");
    // Rewriting what is there costs no space.
    sink.seek(SeekFrom::Start(1)).unwrap();
    sink.write_all(b"XY").unwrap();
    assert_eq!(sink.data, b"aXYde");
    assert_eq!(sink.refused, 1);
    let mut sink = FailAfter::transient(2);
    assert!(sink.write_all(b"abc").is_err());
    sink.write_all(b"d").unwrap();
    assert_eq!(
        (sink.data.as_slice(), sink.landed_after_failure),
        (&b"abd"[..], 1)
    );
}

// ---- teehistorian ----

const PLAYERS: i32 = 64;

fn th_header() -> Header {
    Header {
        map_name: Some("sink".into()),
        ..Header::new("2")
    }
}

/// The outcome of every recorder call, in order.
#[derive(Debug, Default)]
struct Calls {
    /// The first failing call, with its error.
    first_error: Option<(&'static str, RecorderError)>,
    /// Calls made after the first failure, and those of them that returned `Ok`.
    after: usize,
    ok_after: Vec<&'static str>,
    /// Errors after the first that are not `Poisoned`.
    not_poisoned_after: Vec<String>,
}

impl Calls {
    /// Notes the result of `call`; returns whether it succeeded.
    fn note(&mut self, call: &'static str, result: Result<(), RecorderError>) -> bool {
        if self.first_error.is_some() {
            self.after += 1;
            match result {
                Ok(()) => self.ok_after.push(call),
                Err(RecorderError::Poisoned { call: c }) if c == call => {}
                Err(e) => self.not_poisoned_after.push(format!("{call}: {e}")),
            }
            return false;
        }
        match result {
            Ok(()) => true,
            Err(e) => {
                self.first_error = Some((call, e));
                false
            }
        }
    }
}

/// [`Server::start`] without the unwraps.
fn th_start<W: Write>(players: i32, rec: &mut Recorder<W>, calls: &mut Calls) {
    for cid in 0..players {
        let protocol = if cid % 2 == 0 {
            Protocol::Six
        } else {
            Protocol::Seven
        };
        calls.note("record_player_join", rec.record_player_join(cid, protocol));
        calls.note(
            "record_player_name",
            rec.record_player_name(cid, &format!("tee {cid}")),
        );
    }
}

/// [`Server::tick`] without the unwraps: the same calls with the same arguments (the
/// random numbers are drawn whatever the calls return). Returns whether `end_tick`
/// succeeded.
fn th_tick<W: Write>(
    server: &mut Server,
    players: i32,
    rec: &mut Recorder<W>,
    tick: i32,
    calls: &mut Calls,
) -> bool {
    calls.note("begin_tick", rec.begin_tick(tick));
    calls.note("begin_players", rec.begin_players());
    calls.note("record_player", rec.record_player(0, 1000 + tick, 500));
    for cid in 1..players {
        if server.next(50) == 0 {
            calls.note("record_dead_player", rec.record_dead_player(cid));
        } else {
            let (x, y) = (server.next(4000), server.next(4000));
            calls.note("record_player", rec.record_player(cid, x, y));
        }
    }
    calls.note("end_players", rec.end_players());
    calls.note("begin_inputs", rec.begin_inputs());
    for cid in 0..players {
        if server.next(3) == 0 {
            continue;
        }
        let input = [
            server.next(3) - 1,
            server.next(2000) - 1000,
            server.next(2000) - 1000,
            server.next(2),
            server.next(2),
            server.next(2),
            server.next(4),
            server.next(6),
            0,
            0,
        ];
        calls.note(
            "record_player_input",
            rec.record_player_input(cid, 1 + cid as u32, &input),
        );
    }
    if tick % 10 == 0 {
        let cid = server.next(players as u64);
        calls.note(
            "record_player_message",
            rec.record_player_message(cid, b"\x04\x00hello there\0"),
        );
    }
    if tick % 25 == 0 {
        let cid = server.next(players as u64);
        calls.note(
            "record_player_team",
            rec.record_player_team(cid, server.next(4)),
        );
        calls.note(
            "record_player_finish",
            rec.record_player_finish(cid, server.next(100_000)),
        );
        calls.note(
            "record_console_command",
            rec.record_console_command(cid, 1, "say", &["gg", "wp"]),
        );
    }
    calls.note("end_inputs", rec.end_inputs());
    calls.note("end_tick", rec.end_tick())
}

/// The recording without failures.
struct ThReference {
    /// The file without FINISH.
    bytes: Vec<u8>,
    header_len: usize,
    /// `ends[t]`: bytes in the sink after `end_tick` of tick `t` (`ends[0]` = header).
    ends: Vec<usize>,
}

fn th_reference(ticks: i32) -> ThReference {
    let mut rec = Recorder::new(Vec::new(), &th_header()).unwrap();
    let header_len = rec.position() as usize;
    let mut server = Server::new(PLAYERS);
    let mut calls = Calls::default();
    th_start(PLAYERS, &mut rec, &mut calls);
    let mut ends = vec![header_len];
    for tick in 1..=ticks {
        assert!(th_tick(&mut server, PLAYERS, &mut rec, tick, &mut calls));
        ends.push(rec.position() as usize);
    }
    assert!(calls.first_error.is_none());
    let bytes = rec.into_inner().unwrap();
    assert_eq!(bytes.len(), ends[ticks as usize]);
    ThReference {
        bytes,
        header_len,
        ends,
    }
}

/// The fallible driver records exactly what the shared server records.
#[test]
fn teehistorian_driver_matches_the_shared_server() {
    let reference = th_reference(60);
    let mut rec = Recorder::new(Vec::new(), &th_header()).unwrap();
    let mut server = Server::new(PLAYERS);
    server.start(&mut rec);
    for tick in 1..=60 {
        server.tick(&mut rec, tick);
    }
    assert_eq!(rec.into_inner().unwrap(), reference.bytes);
    // Every tick writes something (client 0 moves), so every tick ends at a new offset.
    assert!(reference.ends.windows(2).all(|w| w[0] < w[1]));
}

/// How a failure run is set up.
#[derive(Debug, Clone, Copy)]
struct ThSetup {
    /// `None`: the recorder's default policy.
    policy: Option<FlushPolicy>,
    /// A `BufWriter` of this capacity between the recorder and the disk.
    buffer: Option<usize>,
}

impl ThSetup {
    fn policy(&self) -> FlushPolicy {
        self.policy.unwrap_or_default()
    }

    /// Whether the tick's `end_tick` puts its bytes on the disk when it returns `Ok`.
    fn completes(&self, tick: i32) -> bool {
        if self.buffer.is_none() {
            return true; // bytes are handed to the sink at every end_tick
        }
        match self.policy() {
            FlushPolicy::EveryTick => true,
            FlushPolicy::EveryNTicks(n) => (tick as u32).is_multiple_of(n.get()),
            FlushPolicy::Never => false,
        }
    }
}

/// Records with the disk full after `limit` bytes and checks the calls and the file.
fn th_run(reference: &ThReference, setup: ThSetup, limit: usize) {
    let ctx = format!("{setup:?}, limit {limit}");
    assert!(
        limit < reference.bytes.len(),
        "{ctx}: the disk must fill up"
    );
    match setup.buffer {
        None => {
            let rec = Recorder::new(FailAfter::new(limit), &th_header());
            let (data, refused) = th_drive(reference, setup, limit, rec, |s| {
                (s.data.clone(), s.refused)
            });
            // Nothing is written after the failure: write_all stopped at the first refusal
            // and the poisoned recorder never called the sink again.
            if let Some(data) = data {
                assert_eq!(refused, 1, "{ctx}: the sink was written after it failed");
                th_check_file(reference, setup, limit, &data);
            }
        }
        Some(capacity) => {
            let sink = BufWriter::with_capacity(capacity, FailAfter::new(limit));
            let rec = Recorder::new(sink, &th_header());
            let (data, _) = th_drive(reference, setup, limit, rec, |s| {
                (s.get_ref().data.clone(), s.get_ref().refused)
            });
            if let Some(data) = data {
                th_check_file(reference, setup, limit, &data);
            }
        }
    }
}

/// Drives the server until a call fails and a few ticks beyond; returns what `peek` saw of
/// the sink before the recorder was dropped (`None` if `new` failed).
fn th_drive<W: Write>(
    reference: &ThReference,
    setup: ThSetup,
    limit: usize,
    rec: Result<Recorder<W>, RecorderError>,
    peek: impl Fn(&W) -> (Vec<u8>, usize),
) -> (Option<Vec<u8>>, usize) {
    let ctx = format!("{setup:?}, limit {limit}");
    let mut rec = match rec {
        Ok(rec) => {
            assert!(
                limit >= reference.header_len || setup.buffer.is_some(),
                "{ctx}: new succeeded with no room for the header"
            );
            rec
        }
        Err(RecorderError::Io {
            call: "new",
            source,
        }) => {
            assert_eq!(source.kind(), io::ErrorKind::StorageFull, "{ctx}");
            assert!(limit < reference.header_len, "{ctx}: new failed with room");
            return (None, 0);
        }
        Err(e) => panic!("{ctx}: new: {e}"),
    };
    if let Some(policy) = setup.policy {
        rec.set_flush_policy(policy);
    }
    assert_eq!(rec.flush_policy(), setup.policy());
    let mut calls = Calls::default();
    let mut server = Server::new(PLAYERS);
    th_start(PLAYERS, &mut rec, &mut calls);
    assert!(
        calls.first_error.is_none(),
        "{ctx}: the start records are buffered until the first end_tick"
    );
    let mut last_complete: i32 = 0;
    let mut failed_at = None;
    let mut tick = 0;
    while failed_at.is_none() || tick < failed_at.unwrap() + 3 {
        tick += 1;
        assert!(tick < reference.ends.len() as i32, "{ctx}: never failed");
        let ok = th_tick(&mut server, PLAYERS, &mut rec, tick, &mut calls);
        if ok && setup.completes(tick) {
            last_complete = tick;
        }
        if failed_at.is_none() && calls.first_error.is_some() {
            failed_at = Some(tick);
        }
    }
    let failed_at = failed_at.unwrap();
    assert!(rec.is_poisoned(), "{ctx}");
    calls.note("flush", rec.flush());
    let (data, refused) = peek(rec.get_ref());
    calls.note("finish", rec.finish().map(drop));

    // The failing call: the sink sees bytes only in end_tick (the tick's one write_all, and
    // the flush the policy asks for).
    let (call, error) = calls.first_error.as_ref().unwrap();
    assert_eq!(*call, "end_tick", "{ctx}: {error}");
    match error {
        RecorderError::Io { call, source } => {
            assert_eq!(*call, "end_tick", "{ctx}");
            assert_eq!(source.kind(), io::ErrorKind::StorageFull, "{ctx}");
        }
        e => panic!("{ctx}: the failure was reported as {e}"),
    }
    assert!(calls.after > 20, "{ctx}");
    assert!(calls.ok_after.is_empty(), "{ctx}: {:?}", calls.ok_after);
    assert!(
        calls.not_poisoned_after.is_empty(),
        "{ctx}: {:?}",
        calls.not_poisoned_after
    );

    // Which tick: the last one whose bytes fit was reported complete (in a flushing tick
    // when buffered); the failure comes at the first tick that does not fit, or with a
    // buffer no later than the first flushing tick that does not fit.
    let fits = |t: i32| reference.ends[t as usize] <= limit;
    let expected_complete = (1..tick)
        .filter(|&t| fits(t) && setup.completes(t))
        .max()
        .unwrap_or(0);
    assert_eq!(last_complete, expected_complete, "{ctx}");
    let first_unfit = (1..).find(|&t| !fits(t)).unwrap();
    if setup.buffer.is_none() {
        assert_eq!(failed_at, first_unfit, "{ctx}");
    } else {
        assert!(failed_at > last_complete, "{ctx}");
        let first_unfit_flush = (first_unfit..).find(|&t| setup.completes(t)).unwrap();
        assert!(
            (first_unfit..=first_unfit_flush).contains(&failed_at),
            "{ctx}: failed at tick {failed_at}"
        );
    }
    if last_complete > 0 || setup.buffer.is_none() {
        assert!(
            data.len() >= reference.ends[last_complete as usize],
            "{ctx}"
        );
    }
    (Some(data), refused)
}

/// What reached the disk is a prefix of the recording holding every message of every
/// completed tick, without FINISH: it ends on a message boundary or inside a message.
fn th_check_file(reference: &ThReference, setup: ThSetup, limit: usize, data: &[u8]) {
    let ctx = format!("{setup:?}, limit {limit}");
    assert!(data.len() <= limit, "{ctx}");
    assert_eq!(data, &reference.bytes[..data.len()], "{ctx}");
    if data.len() < reference.header_len {
        // Buffered, and not even the header was flushed.
        assert!(setup.buffer.is_some(), "{ctx}");
        assert!(TeehistorianSlice::parse(data).is_err(), "{ctx}");
        return;
    }
    let slice = TeehistorianSlice::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let mut items: Vec<MessageAt<'_>> = Vec::new();
    let mut end_error = None;
    let mut messages = slice.messages();
    for item in messages.by_ref() {
        match item {
            Ok(item) => items.push(item),
            Err(e) => end_error = Some(e),
        }
    }
    assert!(!messages.finished(), "{ctx}");
    let complete = items.last().map_or(slice.body_offset() as u64, |m| m.end());
    // Cut inside a message: a truncation where it starts; on a boundary: an unfinished
    // file that reads to its end.
    match end_error {
        Some(e) => {
            assert!(e.is_truncation(), "{ctx}: {e}");
            assert_eq!(e.offset, complete, "{ctx}");
        }
        None => assert_eq!(data.len() as u64, complete, "{ctx}"),
    }
    // Every message that fits is there: the cut is inside the message after the last one.
    assert!(data.len() as u64 - complete < 64, "{ctx}");
    let reference_slice = TeehistorianSlice::parse(&reference.bytes).unwrap();
    let expected = reference_slice
        .messages()
        .map_while(Result::ok)
        .take_while(|m| m.end() <= data.len() as u64)
        .count();
    assert_eq!(items.len(), expected, "{ctx}");
    // Every completed tick is there, and client 0 is where that tick put it.
    let last_complete = (0..reference.ends.len())
        .rev()
        .find(|&t| reference.ends[t] <= data.len())
        .unwrap() as i32;
    let last_tick = items.last().map_or(0, |m| m.tick);
    assert!(
        last_tick >= last_complete,
        "{ctx}: ends at tick {last_tick}"
    );
    let client0 = items
        .iter()
        .filter(|m| {
            matches!(
                m.message,
                demokit::teehistorian::Message::PlayerDiff { cid: 0, .. }
                    | demokit::teehistorian::Message::PlayerNew { cid: 0, .. }
            )
        })
        .count() as i32;
    assert!(
        client0 >= last_complete,
        "{ctx}: {client0} ticks of client 0"
    );
}

/// Every byte offset of the first 4 KiB (the header, the joins and the first ticks), with
/// the default policy and the sink written directly.
#[test]
fn teehistorian_every_offset_of_the_first_kilobytes() {
    assert_eq!(FlushPolicy::default(), FlushPolicy::EveryTick);
    let reference = th_reference(20);
    assert!(reference.bytes.len() > 4096);
    let setup = ThSetup {
        policy: None,
        buffer: None,
    };
    for limit in 0..4096 {
        th_run(&reference, setup, limit);
    }
}

/// Every flush policy, with and without a `BufWriter` (where the policy decides which ticks
/// are on disk): every 7th offset of the first 4 KiB and spread offsets over 300 ticks.
#[test]
fn teehistorian_policies_and_buffering() {
    let reference = th_reference(300);
    let len = reference.bytes.len();
    let every_5 = FlushPolicy::EveryNTicks(5.try_into().unwrap());
    let setups = [
        (Some(FlushPolicy::EveryTick), None),
        (Some(FlushPolicy::Never), None),
        (Some(every_5), None),
        (None, Some(256)),
        (Some(FlushPolicy::EveryTick), Some(8192)),
        (Some(every_5), Some(8192)),
    ];
    for (policy, buffer) in setups {
        let setup = ThSetup { policy, buffer };
        let spread = (0..40).map(|i| 4096 + i * (len - 4200) / 40 + i % 13);
        for limit in (0..4096).step_by(7).chain(spread) {
            th_run(&reference, setup, limit);
        }
    }
}

/// A sink that fails once and then takes bytes again: the recorder still refuses, so
/// nothing lands after the cut.
#[test]
fn teehistorian_transient_failure_poisons() {
    let reference = th_reference(40);
    for limit in [
        reference.ends[3] + 17,
        reference.ends[10] + 1,
        reference.ends[20],
    ] {
        let mut rec = Recorder::new(FailAfter::transient(limit), &th_header()).unwrap();
        let mut calls = Calls::default();
        let mut server = Server::new(PLAYERS);
        th_start(PLAYERS, &mut rec, &mut calls);
        for tick in 1..=40 {
            th_tick(&mut server, PLAYERS, &mut rec, tick, &mut calls);
        }
        assert!(calls.first_error.is_some());
        assert!(calls.ok_after.is_empty(), "{:?}", calls.ok_after);
        assert!(calls.not_poisoned_after.is_empty());
        assert!(matches!(rec.flush(), Err(RecorderError::Poisoned { .. })));
        let sink = rec.abandon();
        assert_eq!(sink.landed_after_failure, 0);
        assert_eq!(sink.data, reference.bytes[..limit]);
    }
}

// ---- demo recorder ----

/// One call of the demo recording.
#[derive(Debug, Clone)]
enum Op {
    Snapshot(i32, SnapshotBuf),
    Message(Vec<u8>),
    Marker,
}

/// A map DDNet loads, so that `validate` can accept the finished demo.
fn demo_map() -> Vec<u8> {
    demokit::datafile::minimal_map(10, 6, "sink").unwrap()
}

fn demo_config() -> RecorderConfig {
    RecorderConfig::ddnet("sink", "2026-01-02_03-04-05")
}

/// About 4 KB of chunks: keyframes at ticks 100, 355 and 610, deltas, marker-only ticks
/// (every 4th snapshot repeats the previous one), messages and timeline markers.
fn demo_ops() -> Vec<Op> {
    let mut ops = Vec::new();
    let mut previous = None;
    for (i, tick) in (100..700).step_by(5).enumerate() {
        let snapshot = if i % 4 == 3 {
            previous.clone().unwrap()
        } else {
            let mut b = SnapshotBuilder::new();
            for id in 0..(4 + i as i32 % 5) {
                b.add_item(9, id, &[tick + id, 7, -(i as i32), id * id, 0, 1])
                    .unwrap();
            }
            if i % 10 < 5 {
                b.add_item(11, 0, &[1, 2, 3]).unwrap();
            }
            b.finish()
        };
        previous = Some(snapshot.clone());
        ops.push(Op::Snapshot(tick, snapshot));
        if i % 6 == 1 {
            ops.push(Op::Message(format!("chat {i}").into_bytes()));
        }
        if i % 30 == 0 {
            ops.push(Op::Marker);
        }
    }
    ops
}

/// Applies `op`; `None` for an op that writes nothing.
fn demo_apply<W: Write + Seek>(
    rec: &mut twdemo::Recorder<W>,
    op: &Op,
) -> Option<Result<(), WriteError>> {
    match op {
        Op::Snapshot(tick, snapshot) => Some(rec.record_snapshot(*tick, snapshot.as_snapshot())),
        Op::Message(bytes) => Some(rec.record_message(bytes)),
        Op::Marker => {
            rec.add_timeline_marker_now();
            None
        }
    }
}

struct DemoReference {
    /// The file as it is before `finish` (length 0, no markers).
    bytes: Vec<u8>,
    /// Where the chunks start.
    chunks_offset: usize,
    /// `ends[i]`: bytes written after op `i`.
    ends: Vec<usize>,
    /// The end offset of every chunk.
    chunk_ends: Vec<usize>,
}

fn demo_reference(ops: &[Op]) -> DemoReference {
    let mut rec =
        twdemo::Recorder::start(FailAfter::new(usize::MAX), &demo_config(), &demo_map()).unwrap();
    let chunks_offset = rec.position() as usize;
    let mut ends = Vec::new();
    for op in ops {
        if let Some(r) = demo_apply(&mut rec, op) {
            r.unwrap();
        }
        ends.push(rec.position() as usize);
    }
    let bytes = rec.get_ref().data.clone();
    let finished = rec.finish().unwrap().data;
    assert_eq!(bytes.len(), finished.len());
    assert!(twdemo::edit::validate::validate(&finished).accepted());
    let slice = DemoSlice::parse(&bytes).unwrap();
    assert_eq!(slice.chunks_offset(), chunks_offset);
    let mut chunks = slice.chunks();
    let mut chunk_ends = Vec::new();
    let mut keyframes = 0;
    while let Some(chunk) = chunks.next() {
        if let Chunk::Tick(t) = chunk.unwrap().chunk {
            keyframes += t.keyframe as usize;
        }
        chunk_ends.push(chunks.position());
    }
    assert_eq!(keyframes, 3);
    assert_eq!(chunk_ends.last(), Some(&bytes.len()));
    DemoReference {
        bytes,
        chunks_offset,
        ends,
        chunk_ends,
    }
}

fn is_storage_full(e: &WriteError) -> bool {
    matches!(e, WriteError::Io(io) if io.kind() == io::ErrorKind::StorageFull)
}

/// Records with the disk full after `limit` bytes and checks the calls and the file.
fn demo_run(reference: &DemoReference, ops: &[Op], sink: FailAfter) {
    let limit = sink.limit;
    let ctx = format!("limit {limit}");
    let mut rec = match twdemo::Recorder::start(sink, &demo_config(), &demo_map()) {
        Ok(rec) => {
            assert!(limit >= reference.chunks_offset, "{ctx}: start succeeded");
            rec
        }
        Err(e) => {
            assert!(is_storage_full(&e), "{ctx}: {e}");
            assert!(limit < reference.chunks_offset, "{ctx}: start failed");
            return;
        }
    };
    // The first op that does not fit fails; all before succeed, all after fail.
    let failing = reference
        .ends
        .iter()
        .position(|&end| end > limit)
        .expect("the disk fills up");
    let mut results = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let Some(result) = demo_apply(&mut rec, op) else {
            continue;
        };
        match (i.cmp(&failing), result) {
            (std::cmp::Ordering::Less, r) => r.unwrap_or_else(|e| panic!("{ctx}: op {i}: {e}")),
            (std::cmp::Ordering::Equal, Err(e)) => {
                assert!(is_storage_full(&e), "{ctx}: op {i}: {e}")
            }
            (_, Ok(())) => results.push(format!("op {i} succeeded")),
            (_, Err(WriteError::Io(_))) => {}
            (_, Err(e)) => results.push(format!("op {i}: {e}")),
        }
    }
    assert!(results.is_empty(), "{ctx}: {results:?}");
    assert!(rec.flush().is_err(), "{ctx}: flush after the failure");
    let data = rec.get_ref().data.clone();
    let landed = rec.get_ref().landed_after_failure;
    let refused = rec.get_ref().refused;
    match rec.finish() {
        Ok(_) => panic!("{ctx}: finish succeeded after the sink failed"),
        Err(e) => assert!(matches!(e, WriteError::Io(_)), "{ctx}: {e}"),
    }
    assert_eq!(refused, 1, "{ctx}: the sink was written after it failed");
    assert_eq!(landed, 0, "{ctx}");
    demo_check_file(reference, limit, &data);
}

/// Whole chunks up to the last one that fits, then a truncation error (none when the cut
/// falls between chunks); the repaired file validates once it has a keyframe and two ticks.
fn demo_check_file(reference: &DemoReference, limit: usize, data: &[u8]) {
    let ctx = format!("limit {limit}");
    assert_eq!(
        data,
        &reference.bytes[..limit.min(reference.bytes.len())],
        "{ctx}"
    );
    let slice = DemoSlice::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let mut chunks = slice.chunks();
    let mut ends = Vec::new();
    let mut end_error = None;
    let (mut markers, mut keyframes) = (0, 0);
    while let Some(chunk) = chunks.next() {
        match chunk {
            Ok(chunk) => {
                if let Chunk::Tick(t) = chunk.chunk {
                    markers += 1;
                    keyframes += t.keyframe as usize;
                }
                ends.push(chunks.position());
            }
            Err(e) => end_error = Some(e),
        }
    }
    let whole: Vec<usize> = reference
        .chunk_ends
        .iter()
        .copied()
        .take_while(|&end| end <= data.len())
        .collect();
    assert_eq!(ends, whole, "{ctx}");
    let complete = whole.last().copied().unwrap_or(reference.chunks_offset);
    match end_error {
        None => assert_eq!(complete, data.len(), "{ctx}: no error inside a chunk"),
        Some(e) => {
            assert!(e.is_truncation(), "{ctx}: {e}");
            assert_eq!(e.offset, complete as u64, "{ctx}");
            assert!(complete < data.len(), "{ctx}");
        }
    }
    if keyframes == 0 || markers < 2 {
        // Too little for DDNet to play: the repair refuses, and validate agrees.
        assert!(
            matches!(
                common::into_vec(|out| twdemo::edit::repair::repair(data, out)),
                Err(twdemo::edit::repair::RepairError::Unplayable { .. })
            ),
            "{ctx}"
        );
        assert!(!twdemo::edit::validate::validate(data).accepted(), "{ctx}");
        return;
    }
    let (repaired, report) = common::into_vec(|out| twdemo::edit::repair::repair(data, out))
        .unwrap_or_else(|e| panic!("{ctx}: {e}"));
    assert_eq!(repaired.len(), complete, "{ctx}");
    assert_eq!(report.break_off.is_some(), complete < data.len(), "{ctx}");
    assert_eq!(
        (report.tick_markers_kept, report.keyframes_kept),
        (markers, keyframes),
        "{ctx}"
    );
    let validation = twdemo::edit::validate::validate(&repaired);
    if keyframes >= 1 && markers >= 2 {
        assert!(
            validation.accepted(),
            "{ctx}: {:?}",
            validation.first_fatal()
        );
    } else {
        assert!(!validation.accepted(), "{ctx}: too few ticks to play");
    }
}

/// Every byte offset of a small demo, header and map included.
#[test]
fn demo_every_offset() {
    let ops = demo_ops();
    let reference = demo_reference(&ops);
    assert!(reference.bytes.len() > 3000, "{}", reference.bytes.len());
    for limit in 0..reference.bytes.len() {
        demo_run(&reference, &ops, FailAfter::new(limit));
    }
}

/// A sink that fails once and then takes bytes again: the demo recorder still refuses, so
/// nothing lands after the cut and `finish` does not report a complete demo.
#[test]
fn demo_transient_failure_poisons() {
    let ops = demo_ops();
    let reference = demo_reference(&ops);
    let offsets = [
        reference.chunks_offset + 1,
        reference.chunk_ends[5] + 2,
        reference.chunk_ends[40],
        reference.bytes.len() - 1,
    ];
    for limit in offsets {
        demo_run(&reference, &ops, FailAfter::transient(limit));
    }
}
