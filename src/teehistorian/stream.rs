//! The game stream of a teehistorian file (the [`RecordingFormat::game`] of
//! [`Teehistorian`](super::operations::Teehistorian)): the players' positions tick by
//! tick, filled forward over the ticks the file skips, the inputs the clients sent, and
//! the log, with what nobody asked for stepped over (the inputs, the moves of players not
//! followed, the names). A long file can be walked on a thread of its own while the
//! caller's thread hands on what the walk found; what the sink gets is the same.
//!
//! [`RecordingFormat::game`]: crate::format::RecordingFormat::game

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::EventKind;
use super::game::EventLogger;
use super::walk::{TickWalk, WalkSource};
use crate::format::{Error, GameEnd};
use crate::gamenet::summary::GameLog;
use crate::model::{GameOptions, GameSink, InputAt, PlayerAt, PlayerList, Sample, TeamGame};

/// What a walk finds before it goes to the sink, gathered tick by tick: on one thread a
/// tick's worth, on two a batch of [`BATCH`] rows (handing on each tick between threads
/// costs more than its rows).
const BATCH: usize = 16 * 1024;

/// A walk's finds, in the order they go to the sink.
#[derive(Debug, Default)]
struct Found {
    /// Every input the clients sent.
    inputs: Vec<InputAt>,
    /// Every position handed out: client id, x, y.
    positions: Vec<[i32; 3]>,
    /// Every tick walked and where its inputs and positions end.
    ticks: Vec<Walked>,
    /// Names that changed: the first position with the new name, its client id and the
    /// name (a rename per change rather than a name per position).
    renames: Vec<(usize, i32, String)>,
}

/// One tick of a [`Found`].
#[derive(Debug, Clone, Copy)]
struct Walked {
    tick: i32,
    inputs_end: usize,
    positions_end: usize,
    /// Whether its players go to the sink (the range keeps it).
    kept: bool,
}

impl Found {
    fn clear(&mut self) {
        self.inputs.clear();
        self.positions.clear();
        self.ticks.clear();
        self.renames.clear();
    }

    fn len(&self) -> usize {
        self.inputs.len() + self.positions.len() + self.ticks.len()
    }
}

/// How a walk ended.
struct Walk {
    error: Option<Error>,
    records: u64,
    finished: bool,
    first_tick: Option<i32>,
    last_tick: Option<i32>,
    log: Option<GameLog>,
}

/// Walks `walk` as `options` asks, handing what it finds to `sink`; the game's team
/// kind names the log's teams. Facts are the caller's to fill in.
pub(crate) fn game<S: WalkSource + Send>(
    walk: TickWalk<S>,
    team_game: TeamGame,
    options: &GameOptions,
    sink: &mut dyn GameSink,
) -> GameEnd {
    // Inputs are most of a server's file: without them the walk steps over them.
    let walk = if options.inputs {
        walk
    } else {
        walk.skipping_inputs()
    };
    // Only the followed players' moves are decoded; no one's when no player is wanted
    // (the log comes from joins, drops, messages and commands, never from moves).
    let walk = match &options.client_ids {
        Some(ids) => walk.following(ids),
        None if !options.players => walk.following(&[]),
        None => walk,
    };
    // Each client id's name, as the renames the walk noted leave it.
    let mut names: Vec<String> = Vec::new();
    let mut list = PlayerList::default();
    let walked = if options.pipelined {
        // Batches go to this thread, and their buffers come back for reuse.
        let (full, filled) = std::sync::mpsc::sync_channel::<Found>(2);
        let (empty, emptied) = std::sync::mpsc::channel::<Found>();
        std::thread::scope(|scope| {
            let walker = scope.spawn(move || {
                walk_found(walk, options, BATCH, |found| {
                    let _ = full.send(std::mem::replace(
                        found,
                        emptied.try_recv().unwrap_or_default(),
                    ));
                })
            });
            for mut found in filled {
                hand_on(&found, &mut names, &mut list, sink);
                found.clear();
                let _ = empty.send(found);
            }
            walker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    } else {
        // Each tick's finds, still in the cache, go straight to the sink; a selection's
        // few gather for a while first.
        let at_least = if options.range.is_some() || options.client_ids.is_some() {
            BATCH
        } else {
            1
        };
        walk_found(walk, options, at_least, |found| {
            hand_on(found, &mut names, &mut list, sink);
            found.clear();
        })
    };
    GameEnd {
        error: walked.error,
        records: walked.records,
        first_tick: walked.first_tick,
        last_tick: walked.last_tick,
        finished: Some(walked.finished),
        log: walked
            .log
            .map(|log| GameLog {
                team_game: Some(team_game),
                ..log
            })
            .unwrap_or_default(),
        ..GameEnd::default()
    }
}

/// Walks `walk` to its end (or the range's, if it stops there), gathering what `options`
/// asks for and handing it to `hand` (which leaves it empty) whenever `at_least` rows
/// have gathered, at a tick's end, and at the end.
fn walk_found<S: WalkSource>(
    mut walk: TickWalk<S>,
    options: &GameOptions,
    at_least: usize,
    mut hand: impl FnMut(&mut Found),
) -> Walk {
    let names_wanted = options.players && options.names;
    let mut error = None;
    let mut log = (options.log || names_wanted).then(EventLogger::new);
    let mut found = Found::default();
    // The name each client id's positions were last given.
    let mut named = vec![String::new(); super::format::MAX_CLIENTS as usize];
    let mut names_seen = 0;
    // The positions after the last tick the walk met, for the ticks the file skips (it
    // stores a tick only when something changed): the game model fills them forward.
    let mut previous: Vec<[i32; 3]> = Vec::new();
    let (mut first_tick, mut last_tick) = (None, None);
    loop {
        let inputs_before = found.inputs.len();
        let inputs = &mut found.inputs;
        let tick = match walk.next_tick(|event| {
            if let Some(log) = &mut log {
                log.add(&event);
            }
            if let EventKind::Input { cid, input, new } = event.kind
                && options.inputs
            {
                let [
                    direction,
                    target_x,
                    target_y,
                    jump,
                    fire,
                    hook,
                    player_flags,
                    wanted_weapon,
                    next_weapon,
                    prev_weapon,
                ] = input;
                inputs.push(InputAt {
                    tick: event.tick,
                    client_id: cid,
                    direction,
                    target_x,
                    target_y,
                    jump,
                    fire,
                    hook,
                    player_flags,
                    wanted_weapon,
                    next_weapon,
                    prev_weapon,
                    new,
                });
            }
        }) {
            None => break,
            Some(Ok(tick)) => tick,
            Some(Err(e)) => {
                error = Some(e.into());
                break;
            }
        };
        first_tick.get_or_insert(tick);
        if options.players
            && let Some(skipped) = crate::model::filled_ticks(last_tick, tick)
            && !previous.is_empty()
        {
            for skipped in skipped.filter(|&t| options.keeps(t)) {
                found.positions.extend_from_slice(&previous);
                found.ticks.push(Walked {
                    tick: skipped,
                    inputs_end: inputs_before,
                    positions_end: found.positions.len(),
                    kept: true,
                });
            }
        }
        last_tick = Some(tick);
        let first_position = found.positions.len();
        if options.players {
            let world = walk.world();
            match &options.client_ids {
                // A few players of many: looked up rather than filtered out.
                Some(ids) => found.positions.extend(
                    ids.iter()
                        .filter_map(|&cid| world.position(cid).map(|(x, y)| [cid, x, y])),
                ),
                None => found
                    .positions
                    .extend(world.players().map(|(cid, (x, y))| [cid, x, y])),
            }
            previous.clear();
            previous.extend(found.positions.iter().skip(first_position));
            // Computed for the ticks before the range too, which may fill into it; not
            // handed out.
            if !options.keeps(tick) {
                found.positions.truncate(first_position);
            }
        }
        // When a player came, went or was renamed, every client id's name is compared
        // with the one its positions were given, and a rename noted for those that
        // differ (from this tick's first position on).
        if let Some(log) = log.as_ref().filter(|_| names_wanted)
            && log.name_changes() != names_seen
        {
            names_seen = log.name_changes();
            for (cid, named) in (0..).zip(&mut named) {
                let name = log.roster().player(cid).map_or("", |p| p.name.as_str());
                if named != name {
                    named.clear();
                    named.push_str(name);
                    found.renames.push((first_position, cid, name.to_owned()));
                }
            }
        }
        found.ticks.push(Walked {
            tick,
            inputs_end: found.inputs.len(),
            positions_end: found.positions.len(),
            kept: options.players && options.keeps(tick),
        });
        if found.len() >= at_least {
            hand(&mut found);
        }
        if options.stops_at(tick) {
            break;
        }
    }
    if found.len() > 0 {
        hand(&mut found);
    }
    Walk {
        error,
        records: walk.records(),
        finished: walk.finished(),
        first_tick,
        last_tick,
        log: log
            .filter(|_| options.log)
            .map(|log| log.finish(walk.tick())),
    }
}

/// Hands a walk's finds to `sink` tick by tick as the walk went: each tick's inputs,
/// then its players; inputs after the last tick (of a tick an error ended) last.
fn hand_on(found: &Found, names: &mut Vec<String>, list: &mut PlayerList, sink: &mut dyn GameSink) {
    let (mut inputs, mut positions) = (0, 0);
    let mut renames = found.renames.iter().peekable();
    for walked in &found.ticks {
        if let Some(tick_inputs) = found.inputs.get(inputs..walked.inputs_end)
            && !tick_inputs.is_empty()
        {
            sink.inputs(tick_inputs);
        }
        inputs = walked.inputs_end;
        while let Some((_, cid, name)) = renames.next_if(|r| r.0 < walked.positions_end) {
            rename(names, *cid, name);
        }
        if walked.kept {
            let tick_positions = found
                .positions
                .get(positions..walked.positions_end)
                .unwrap_or_default();
            let names = &*names;
            list.with(|players| {
                players.extend(tick_positions.iter().map(|&[client_id, x, y]| {
                    PlayerAt {
                        // A teehistorian file records a position when it changed: the one
                        // after the tick, filled forward or not.
                        sample: Sample {
                            client_id,
                            x,
                            y,
                            position_tick: walked.tick,
                            ..Sample::default()
                        },
                        name: usize::try_from(client_id)
                            .ok()
                            .and_then(|i| names.get(i))
                            .map_or("", String::as_str),
                        camera: false,
                    }
                }));
                sink.players(walked.tick, players);
            });
        }
        positions = walked.positions_end;
    }
    if let Some(rest) = found.inputs.get(inputs..)
        && !rest.is_empty()
    {
        sink.inputs(rest);
    }
    // Renames after the last position hold for the next ones.
    for (_, cid, name) in renames {
        rename(names, *cid, name);
    }
}

/// Gives client id `client_id` (from a walk's world: `0..128`) the name `name`.
fn rename(names: &mut Vec<String>, client_id: i32, name: &str) {
    let Ok(slot) = usize::try_from(client_id) else {
        return;
    };
    if names.len() <= slot {
        names.resize(slot + 1, String::new());
    }
    if let Some(named) = names.get_mut(slot) {
        named.clear();
        named.push_str(name);
    }
}
