//! Property tests of the teehistorian semantic layer: server event sequences recorded with
//! the [`Recorder`] read back as the positions, inputs and ticks the sequence says, and any
//! bytes go through the layer without a panic. Case counts follow PROPTEST_CASES; failures
//! persist under proptest-regressions/. Also: the semantic layer over the real recordings
//! and DDNet's reference file of the corpus.

use crate::common;

use common::alloc::allocations;
use demokit::teehistorian::format::{FILE_UUID, INPUT_INTS, MAX_CLIENTS};
use demokit::teehistorian::game::{EventLogger, game_log};
use demokit::teehistorian::strategies::{self, PlayerState, ServerRecord, ServerTick};
use demokit::teehistorian::{
    EventKind, Events, Header, Recorder, StreamEvents, TeehistorianReader, TeehistorianSlice,
    TickWalk, WalkSource, World,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/teehistorian_semantic_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// The state a reader should reconstruct, and what the recorder remembers to decide
/// whether a record writes bytes.
#[derive(Clone, PartialEq, Debug)]
struct Model {
    positions: Vec<Option<(i32, i32)>>,
    inputs: Vec<Option<[i32; INPUT_INTS]>>,
    /// The recorder's stored unique client id and input per client id.
    stored: Vec<(u32, [i32; INPUT_INTS])>,
}

impl Model {
    fn new() -> Self {
        Model {
            positions: vec![None; MAX_CLIENTS as usize],
            inputs: vec![None; MAX_CLIENTS as usize],
            stored: vec![(0, [0; INPUT_INTS]); MAX_CLIENTS as usize],
        }
    }

    /// Applies a tick; returns whether the recorder writes any bytes for it.
    fn apply(&mut self, tick: &ServerTick) -> bool {
        let mut wrote = !tick.records.is_empty();
        for &(cid, state) in &tick.players {
            let slot = &mut self.positions[cid as usize];
            let new = match state {
                PlayerState::Alive { x, y } => Some((x, y)),
                PlayerState::Dead => None,
            };
            // A dead player that was dead writes nothing, nor does one standing still.
            wrote |= *slot != new;
            *slot = new;
        }
        for &(cid, id, input) in &tick.inputs {
            let stored = &mut self.stored[cid as usize];
            wrote |= *stored != (id, input);
            *stored = (id, input);
            self.inputs[cid as usize] = Some(input);
        }
        wrote
    }

    fn matches(&self, world: &World) -> bool {
        world.positions()[..] == self.positions[..] && world.inputs()[..] == self.inputs[..]
    }
}

fn record(ticks: &[ServerTick]) -> Vec<u8> {
    let mut rec = Recorder::new(Vec::new(), &Header::new("2")).unwrap();
    for tick in ticks {
        tick.record(&mut rec).unwrap();
    }
    rec.finish().unwrap()
}

/// An event as a comparable value: offset, tick and debug text, or an error's offset and
/// text.
type Seen = Result<(u64, i32, String), (u64, String)>;

/// The events of the slice reader.
fn slice_events(data: &[u8]) -> Vec<Seen> {
    let Ok(file) = TeehistorianSlice::parse(data) else {
        return Vec::new();
    };
    Events::new(file.messages())
        .map(|e| match e {
            Ok(e) => Ok((e.offset, e.tick, format!("{:?}", e.kind))),
            Err(e) => Err((e.offset(), e.to_string())),
        })
        .collect()
}

/// The same from [`StreamEvents`], with the final world.
fn stream_events(data: &[u8]) -> (Vec<Seen>, World) {
    let Ok(reader) = TeehistorianReader::new(data) else {
        return (Vec::new(), World::new());
    };
    let mut stream = StreamEvents::new(reader);
    let mut out = Vec::new();
    while let Some(e) = stream.next() {
        out.push(match e {
            Ok(e) => Ok((e.offset, e.tick, format!("{:?}", e.kind))),
            Err(e) => Err((e.offset(), e.to_string())),
        });
    }
    (out, stream.world().clone())
}

/// A step of the semantic layer as both [`Events`] and [`TickWalk`] show it.
#[derive(Debug, PartialEq)]
enum Step {
    /// An event other than a tick's end: offset, tick and the event's debug text.
    Event(u64, i32, String),
    /// A tick ended, with the world after it.
    Tick(i32, Box<World>),
    /// The error that ended the reading: offset and text.
    Error(u64, String),
}

/// [`TickWalk`] gives what [`Events`] gives: the same events in order, the same ticks with
/// the same world after each, the same error, record count and finish.
fn walk_matches_events(data: &[u8]) {
    let Ok(file) = TeehistorianSlice::parse(data) else {
        return;
    };
    let (mut expected, mut records) = (Vec::new(), 0);
    let mut events = Events::new(file.messages());
    while let Some(event) = events.next() {
        match event {
            Ok(e) if e.kind == EventKind::TickEnd => {
                expected.push(Step::Tick(e.tick, Box::new(events.world().clone())))
            }
            Ok(e) => {
                records += 1;
                expected.push(Step::Event(e.offset, e.tick, format!("{:?}", e.kind)));
            }
            Err(e) => expected.push(Step::Error(e.offset(), e.to_string())),
        }
    }
    let mut walk = TickWalk::new(&file);
    let mut log = EventLogger::new();
    assert_eq!(walk_steps(&mut walk, &mut log), expected);
    assert_eq!(walk.records(), records);
    assert_eq!(walk.tick(), events.tick());
    assert_eq!(walk.finished(), events.finished());
    assert!(
        walk.next_tick(|_| panic!("an event after the end"))
            .is_none()
    );
    // The game log built from the walk's events is the one of a pass of its own.
    assert_eq!(log.finish(walk.tick()), game_log(file.messages()).0);
    // A walk that steps over the inputs, or follows only some clients' moves, or both,
    // gives the same ticks, the followed clients' positions after each, the same other
    // events, error, record count and finish (in memory and over a stream).
    for ids in [
        None,
        Some(&[0][..]),
        Some(&[1, 3, 64][..]),
        Some(&[2, 5, 33, 63][..]),
        Some(&[][..]),
    ] {
        for skip_inputs in [false, true] {
            if ids.is_none() && !skip_inputs {
                continue;
            }
            let chosen = |walk: TickWalk<_>| {
                let walk = if skip_inputs {
                    walk.skipping_inputs()
                } else {
                    walk
                };
                match ids {
                    Some(ids) => walk.following(ids),
                    None => walk,
                }
            };
            let want = selected_steps(&expected, ids);
            let mut walk = chosen(TickWalk::new(&file));
            let got = selected_steps(&walk_steps(&mut walk, &mut EventLogger::new()), ids);
            assert_eq!(
                got, want,
                "following {ids:?}, skipping inputs {skip_inputs}"
            );
            assert_eq!(walk.records(), records);
            assert_eq!(walk.finished(), events.finished());
            let reader = TeehistorianReader::new(common::read::Dribble::new(data, 7)).unwrap();
            let mut walk = TickWalk::from_reader(reader);
            walk = if skip_inputs {
                walk.skipping_inputs()
            } else {
                walk
            };
            if let Some(ids) = ids {
                walk = walk.following(ids);
            }
            let got = selected_steps(&walk_steps(&mut walk, &mut EventLogger::new()), ids);
            assert_eq!(
                got, want,
                "streamed, following {ids:?}, inputs {skip_inputs}"
            );
            assert_eq!(walk.records(), records);
        }
    }
    // Over a stream handed out a few bytes at a time (refilled inside messages) and in
    // large pieces, the walk is the same.
    for piece in [1, 5, 4096] {
        if piece < 4096 && data.len() > 64 * 1024 {
            continue;
        }
        let reader = TeehistorianReader::new(common::read::Dribble::new(data, piece)).unwrap();
        let mut streamed = TickWalk::from_reader(reader);
        let mut log = EventLogger::new();
        assert_eq!(
            walk_steps(&mut streamed, &mut log),
            expected,
            "pieces of {piece}"
        );
        assert_eq!(streamed.records(), records);
        assert_eq!(streamed.tick(), events.tick());
        assert_eq!(streamed.finished(), events.finished());
        assert!(
            streamed
                .next_tick(|_| panic!("an event after the end"))
                .is_none()
        );
        assert_eq!(log.finish(streamed.tick()), game_log(file.messages()).0);
    }
}

/// `steps` as a walk that follows only the moves of `ids` (everyone's when `None`) and
/// may step over inputs shows them: each tick with the followed clients' positions, every
/// event but the player records and inputs, and the error.
fn selected_steps(steps: &[Step], ids: Option<&[i32]>) -> Vec<String> {
    let quiet = ["PlayerMove", "PlayerNew", "PlayerOld", "Input"];
    steps
        .iter()
        .filter_map(|step| match step {
            Step::Event(_, _, text) if quiet.iter().any(|q| text.starts_with(q)) => None,
            Step::Event(offset, tick, text) => Some(format!("{offset} {tick} {text}")),
            Step::Tick(tick, world) => {
                let positions: Vec<_> = match ids {
                    Some(ids) => ids.iter().map(|&cid| world.position(cid)).collect(),
                    None => (0..128).map(|cid| world.position(cid)).collect(),
                };
                Some(format!("tick {tick} {positions:?}"))
            }
            Step::Error(offset, text) => Some(format!("error {offset} {text}")),
        })
        .collect()
}

/// Every step of `walk` to its end, its events added to `log`.
fn walk_steps<S: WalkSource>(walk: &mut TickWalk<S>, log: &mut EventLogger) -> Vec<Step> {
    let mut got = Vec::new();
    loop {
        let mut seen = Vec::new();
        let tick = walk.next_tick(|e| {
            log.add(&e);
            seen.push(Step::Event(e.offset, e.tick, format!("{:?}", e.kind)));
        });
        // A lone FINISH is handed on in the call that finds no tick to end.
        got.append(&mut seen);
        let Some(tick) = tick else {
            return got;
        };
        got.push(match tick {
            Ok(t) => Step::Tick(t, Box::new(walk.world().clone())),
            Err(e) => Step::Error(e.offset(), e.to_string()),
        });
    }
}

/// Runs the semantic layer over `data` to the end, checking only that events stay
/// consistent with the world they are yielded with.
fn run_to_end(data: &[u8]) {
    let Ok(file) = TeehistorianSlice::parse(data) else {
        return;
    };
    let mut events = Events::new(file.messages());
    let mut last_tick = 0;
    let mut errors = 0;
    while let Some(event) = events.next() {
        let Ok(event) = event else {
            errors += 1;
            continue;
        };
        assert!(event.tick >= last_tick);
        last_tick = event.tick;
        match event.kind {
            EventKind::PlayerNew { cid, x, y, .. } | EventKind::PlayerMove { cid, x, y, .. } => {
                assert_eq!(events.world().position(cid), Some((x, y)));
            }
            EventKind::PlayerOld { cid, .. } => assert_eq!(events.world().position(cid), None),
            EventKind::Input { cid, input, .. } => {
                assert_eq!(events.world().input(cid), Some(&input))
            }
            _ => {}
        }
    }
    assert!(errors <= 1);
    assert_eq!(stream_events(data).0, slice_events(data));
    walk_matches_events(data);
}

/// Every file of the corpus reads through the semantic layer without a state error, and
/// the reference file gives the positions and inputs of the conformance description.
#[test]
fn real_files_and_reference() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut paths: Vec<_> = std::fs::read_dir(shared.join("real-fixtures/teehistorian"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let reference = shared.join("conformance/ddnet-recorder/ref.teehistorian");
    paths.push(reference.clone());
    for path in paths {
        let data = std::fs::read(&path).unwrap();
        let file = TeehistorianSlice::parse(&data).unwrap();
        let mut events = Events::new(file.messages());
        let mut ticks = Vec::new();
        while let Some(tick) = events.next_tick() {
            let tick = tick.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let w = events.world();
            ticks.push((tick, w.position(0), w.input(0).copied()));
        }
        assert!(events.finished(), "{}", path.display());
        walk_matches_events(&data);
        if path == reference {
            let a = [1, 10, -20, 0, 0, 0, 0, 0, 0, 0];
            let b = [0, 10, -20, 1, 0, 0, 0, 0, 0, 0];
            assert_eq!(
                ticks,
                [
                    (0, None, None),
                    (1, Some((100, 200)), Some(a)),
                    (2, Some((103, 200)), Some(b)),
                    (10, None, Some(b)),
                    (11, None, Some(b)),
                ]
            );
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn recorded_sequences_read_back(ticks in strategies::server_ticks(40)) {
        let data = record(&ticks);
        let mut model = Model::new();
        // (tick, expected state after it) for every tick that writes bytes.
        let mut expected = Vec::new();
        let (mut joins, mut drops) = (0, 0);
        for tick in &ticks {
            if model.apply(tick) {
                expected.push((tick.tick, model.clone()));
            }
            for r in &tick.records {
                match r {
                    ServerRecord::Join(_) => joins += 1,
                    ServerRecord::Drop(..) => drops += 1,
                    _ => {}
                }
            }
        }

        let file = TeehistorianSlice::parse(&data).unwrap();
        let mut events = Events::new(file.messages());
        let mut expected_iter = expected.iter();
        let mut tick_ends = 0;
        let (mut seen_joins, mut seen_drops) = (0, 0);
        while let Some(event) = events.next() {
            let event = event.unwrap();
            match event.kind {
                EventKind::TickEnd => {
                    tick_ends += 1;
                    let (t, want) = expected_iter.next().expect("a tick with data");
                    prop_assert_eq!(event.tick, *t);
                    prop_assert!(want.matches(events.world()), "tick {}", t);
                }
                EventKind::Join { .. } => seen_joins += 1,
                EventKind::Drop { .. } => seen_drops += 1,
                _ => {}
            }
        }
        prop_assert!(expected_iter.next().is_none());
        prop_assert_eq!(tick_ends, expected.len());
        prop_assert_eq!((seen_joins, seen_drops), (joins, drops));
        prop_assert!(events.finished());
        prop_assert!(model.matches(events.world()));
        // The streaming events agree, world included.
        let (streamed, world) = stream_events(&data);
        prop_assert_eq!(streamed, slice_events(&data));
        prop_assert_eq!(&world, events.world());
        walk_matches_events(&data);
    }

    #[test]
    fn arbitrary_bodies_never_panic(body in proptest::collection::vec(any::<u8>(), 0..256)) {
        let mut data = FILE_UUID.to_vec();
        data.extend_from_slice(br#"{"version":"2"}"#);
        data.push(0);
        data.extend_from_slice(&body);
        run_to_end(&data);
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..64)) {
        run_to_end(&data);
    }

    #[test]
    fn generated_files_never_panic(data in strategies::file(24)) {
        run_to_end(&data);
    }

    #[test]
    fn cut_recordings_never_panic(ticks in strategies::server_ticks(10), cut in any::<prop::sample::Index>()) {
        let data = record(&ticks);
        run_to_end(&data[..cut.index(data.len() + 1)]);
    }
}

// ---------------------------------------------------------------------------------------
// No allocation per message
// ---------------------------------------------------------------------------------------

#[test]
fn events_allocate_nothing_per_message() {
    let mut rec = Recorder::new(Vec::new(), &Header::new("2")).unwrap();
    for cid in 0..16 {
        rec.record_player_join(cid, demokit::gamenet::Protocol::Six)
            .unwrap();
    }
    for tick in 1..=400 {
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        for cid in 0..16 {
            if (cid + tick) % 5 == 0 {
                rec.record_dead_player(cid).unwrap();
            } else {
                rec.record_player(cid, tick * 3 + cid, -tick).unwrap();
            }
        }
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        for cid in 0..16 {
            rec.record_player_input(
                cid,
                1 + tick as u32 / 50,
                &[tick, cid, 0, 0, 0, 0, 0, 0, 0, 0],
            )
            .unwrap();
        }
        rec.record_player_message(3, &[0x22, 0x00, 0x68, 0x69, 0x00])
            .unwrap();
        rec.record_console_command(-1, 36, "say", &["hello", "world"])
            .unwrap();
        rec.record_player_name(5, "nameless tee").unwrap();
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
    }
    let data = rec.finish().unwrap();

    let file = TeehistorianSlice::parse(&data).unwrap();
    let mut events = Events::new(file.messages());
    let mut count = 0;
    let n = allocations(|| {
        for event in &mut events {
            event.unwrap();
            count += 1;
        }
    });
    assert!(count > 400 * 30, "{count} events");
    assert!(events.finished());
    assert_eq!(n, 0, "allocations while iterating slice events");

    // The streaming reader and the read-ahead buffer grow during the first ticks.
    let mut stream = StreamEvents::new(TeehistorianReader::new(&data[..]).unwrap());
    while stream.next_tick().unwrap().unwrap() < 50 {}
    let n = allocations(|| {
        while let Some(tick) = stream.next_tick() {
            tick.unwrap();
        }
    });
    assert!(stream.finished());
    assert_eq!(stream.world(), events.world());
    assert_eq!(n, 0, "allocations while iterating streaming events");
}

/// A generated server's file, 64 players moving every tick with inputs, chat and EX
/// records, walks as [`Events`] reads it, also following a few clients and stepping over
/// the inputs (most of its messages are then stepped over in runs).
#[test]
fn a_generated_server_walks_the_same_when_following_a_few() {
    let data = common::server::record_generated(
        Vec::new(),
        300,
        demokit::teehistorian::FlushPolicy::Never,
    );
    walk_matches_events(&data);
    // Cut inside a run of moves and inside an input, the same.
    walk_matches_events(&data[..data.len() / 2]);
    walk_matches_events(&data[..data.len() / 3 + 5]);
}

/// An int of a length drawn by `shape` (0: one byte, 1: two, 2: three or four, 3: five)
/// from `random`.
fn int_of_shape(shape: u64, random: u64) -> i32 {
    let magnitude = match shape {
        0 => random % 64,
        1 => 64 + random % 8_128,
        2 => 8_192 + random % (1 << 26),
        _ => (1 << 27) + random % (1 << 31),
    } as i32;
    if random >> 40 & 1 == 0 {
        magnitude
    } else {
        -1 - magnitude
    }
}

/// A crowded server's file: the clients `clients` (ascending) moving and changing inputs
/// for `ticks` ticks, by amounts whose ints take one to five bytes in proportions `shapes`
/// (the chance of each length, in 256ths: one byte for the rest), dying now and then and
/// coming back; each tick's players and inputs in runs, as a server writes them. Random
/// from `seed`.
fn crowded_server(seed: u64, clients: &[i32], ticks: i32, shapes: [u64; 3]) -> Vec<u8> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let int = |next: &mut dyn FnMut() -> u64| {
        let draw = next() % 256;
        let shape = match draw {
            d if d < shapes[0] => 1,
            d if d < shapes[0] + shapes[1] => 2,
            d if d < shapes[0] + shapes[1] + shapes[2] => 3,
            _ => 0,
        };
        int_of_shape(shape, next())
    };
    let mut rec = Recorder::new(Vec::new(), &Header::new("2")).unwrap();
    for &cid in clients {
        rec.record_player_join(cid, demokit::gamenet::Protocol::Six)
            .unwrap();
    }
    let mut positions = vec![(0i32, 0i32); MAX_CLIENTS as usize];
    let mut inputs = vec![[0i32; INPUT_INTS]; MAX_CLIENTS as usize];
    for tick in 1..=ticks {
        rec.begin_tick(tick).unwrap();
        rec.begin_players().unwrap();
        for &cid in clients {
            if next() % 16 == 0 {
                rec.record_dead_player(cid).unwrap();
            } else {
                let (x, y) = &mut positions[cid as usize];
                *x = x.wrapping_add(int(&mut next));
                *y = y.wrapping_add(int(&mut next));
                rec.record_player(cid, *x, *y).unwrap();
            }
        }
        rec.end_players().unwrap();
        rec.begin_inputs().unwrap();
        for &cid in clients {
            if next() % 4 == 0 {
                continue;
            }
            let input = &mut inputs[cid as usize];
            for v in input.iter_mut() {
                if next() % 3 != 0 {
                    *v = v.wrapping_add(int(&mut next));
                }
            }
            // Now and then a new unique client id: an INPUT_NEW.
            let id = 1 + (tick / 5 + cid) as u32 * u32::from(next() % 8 != 0);
            rec.record_player_input(cid, id.max(1), input).unwrap();
        }
        rec.end_inputs().unwrap();
        rec.end_tick().unwrap();
    }
    rec.finish().unwrap()
}

proptest! {
    #![proptest_config(config())]

    /// A crowded server's file, whole or damaged (a few bytes changed: an extend bit, a
    /// sign or the low bit, which turns INPUT_NEW into INPUT_DIFF, or any bits, and maybe
    /// cut), walks as [`Events`] reads it when following a few clients and stepping over
    /// the inputs too: the runs of moves and inputs a following walk skims, of every
    /// shape, with the errors of every kind inside them (a move of a client without a
    /// character, an INPUT_DIFF without an input, client ids out of order or range). Some
    /// clients of 64 and above, whose ids take two bytes, go between the others' runs.
    #[test]
    fn crowded_servers_walk_the_same_when_following_a_few(
        seed in any::<u64>(),
        players in 1i32..=64,
        high in proptest::sample::subsequence(vec![64, 100, 127], 0..=3),
        ticks in 1i32..6,
        shapes in (0u64..256, 0u64..16, 0u64..4),
        changes in proptest::collection::vec(
            (any::<prop::sample::Index>(), prop_oneof![Just(0x80u8), Just(0x40), Just(0x01), any::<u8>()]),
            0..4,
        ),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let shapes = [shapes.0.min(255 - shapes.1 - shapes.2), shapes.1, shapes.2];
        let clients: Vec<i32> = (0..players).chain(high).collect();
        let mut data = crowded_server(seed, &clients, ticks, shapes);
        // The header stays whole.
        let body = 17 + data[16..].iter().position(|&b| b == 0).unwrap();
        for (at, bits) in changes {
            if data.len() > body {
                let at = body + at.index(data.len() - body);
                data[at] ^= bits;
            }
        }
        if let Some(cut) = cut {
            data.truncate(cut.index(data.len() + 1));
        }
        walk_matches_events(&data);
    }
}
