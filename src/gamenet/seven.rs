//! Teeworlds 0.7: the snapshot objects and events, the game messages and the engine's
//! system messages, as DDNet defines them for its 0.7 support at the reference commit
//! (`datasrc/seven/network.py`, `src/engine/shared/protocol7.h`, and the system messages'
//! fields as `src/engine/server/server.cpp`, `src/engine/client/client.cpp` and
//! `sixup_translate_system.cpp` pack and read them for 0.7 connections), written at build
//! time from `spec/seven.json` and `spec/seven.overlay.json` (see [the module docs](super)).
//!
//! Events (`Explosion`, `Death`, ...) are snapshot objects that exist for one tick; their
//! common `x`, `y` fields come first, as in DDNet's `Common` base. `Character` holds the
//! fields of `CharacterCore` first, as DDNet's derived struct does.
//!
//! Unlike 0.6, several objects carry no client id of their own: the id of a `PlayerInfo`,
//! `PlayerInfoRace`, `SpectatorInfo` or `De_ClientInfo` item is the client id it is about.
//! The `De_*` objects and messages exist for demos: a recording client writes them so that
//! a demo holds what the server told it outside the snapshots (names, skins, game settings,
//! tuning).
//!
//! Three game messages have no fixed layout and are kept as their bytes (`Sv_TuneParams`,
//! `Sv_VoteOptionListAdd`, `Sv_GameMsg`); their docs say what the bytes hold.

// The objects (`net_objects!`) and messages (`net_messages!`), written by `build.rs` from
// `spec/seven.json` and `spec/seven.overlay.json` (see the module docs of `gamenet`).
include!(concat!(env!("OUT_DIR"), "/gamenet_seven.rs"));

/// What DDNet's 0.7 validation asks of one int of an object.
#[derive(Debug, Clone, Copy)]
enum Check {
    /// Any value (`NetIntAny`).
    Any,
    /// Within an inclusive range (`NetIntRange`, `NetBool`, `NetEnum`, `NetTick`).
    Range(i32, i32),
    /// No bit outside the mask (`NetFlag`).
    Flags(i32),
}

/// `NetBool`.
const BOOL: Check = Check::Range(0, 1);
/// `NetTick`: 0 to `max_int`.
const TICK: Check = Check::Range(0, i32::MAX);
/// `MAX_CLIENTS - 1` as DDNet's generated 0.7 code sees it (the engine's 128 clients).
const LAST_CLIENT: i32 = 127;
/// `NUM_WEAPONS - 1` of 0.7's content (hammer, gun, shotgun, grenade, laser, ninja).
const LAST_WEAPON: i32 = 5;

use Check::{Any, Flags, Range};

/// `CharacterCore`, which `Character` starts with.
const CORE: [(usize, Check); 8] = [
    (1, TICK),                   // tick
    (5, Any),                    // x, y, vel x/y, angle
    (1, Range(-1, 1)),           // direction
    (1, Range(0, 3)),            // jumped
    (1, Range(-1, LAST_CLIENT)), // hooked player
    (1, Range(-1, 5)),           // hook state
    (1, TICK),                   // hook tick (0 to max_int)
    (4, Any),                    // hook x/y, hook dx/dy
];

/// `Character`: the core, then its own fields.
const CHARACTER: [(usize, Check); 14] = [
    CORE[0],
    CORE[1],
    CORE[2],
    CORE[3],
    CORE[4],
    CORE[5],
    CORE[6],
    CORE[7],
    (2, Range(0, 10)),           // health, armor
    (1, Any),                    // ammo count
    (1, Range(-1, LAST_WEAPON)), // weapon
    (1, Range(0, 5)),            // emote (6 emotes)
    (1, TICK),                   // attack tick
    (1, Flags(0x1f)),            // triggered events (5 core event flags)
];

/// The checks of each 0.7 object by type (0 is no object), as runs of (ints, check) in
/// field order. From `datasrc/seven/network.py` at the reference commit.
const OBJECT_CHECKS: [&[(usize, Check)]; 25] = [
    &[],
    // 1 PlayerInput: direction, target x/y, jump, fire, hook, player flags (8), wanted
    // weapon, next and previous weapon.
    &[
        (1, Range(-1, 1)),
        (2, Any),
        (1, BOOL),
        (1, Any),
        (1, BOOL),
        (1, Flags(0xff)),
        (1, Range(0, LAST_WEAPON)),
        (2, Any),
    ],
    // 2 Projectile: x, y, vel x/y, type, start tick.
    &[(4, Any), (1, Range(0, LAST_WEAPON)), (1, TICK)],
    // 3 Laser: x, y, from x/y, start tick.
    &[(4, Any), (1, TICK)],
    // 4 Pickup: x, y, type (8 pickups).
    &[(2, Any), (1, Range(0, 7))],
    // 5 Flag: x, y, team (red or blue).
    &[(2, Any), (1, Range(0, 1))],
    // 6 GameData: start tick, game state flags (6), state end tick.
    &[(1, TICK), (1, Flags(0x3f)), (1, TICK)],
    // 7 GameDataTeam: the two scores.
    &[(2, Any)],
    // 8 GameDataFlag: carriers (from FLAG_MISSING, -3), drop ticks.
    &[(2, Range(-3, LAST_CLIENT)), (2, TICK)],
    // 9 CharacterCore.
    &CORE,
    // 10 Character.
    &CHARACTER,
    // 11 PlayerInfo: player flags (8), score, latency.
    &[(1, Flags(0xff)), (2, Any)],
    // 12 SpectatorInfo: spec mode (4), spectator id, x, y.
    &[(1, Range(0, 3)), (1, Range(-1, LAST_CLIENT)), (2, Any)],
    // 13 De_ClientInfo: local, team, name (4), clan (3), country, skin part names (6 × 6),
    // use custom colors (6), skin part colors (6).
    &[
        (1, BOOL),
        (1, Range(-1, 1)),
        (4 + 3 + 1 + 36, Any),
        (6, BOOL),
        (6, Any),
    ],
    // 14 De_GameInfo: game flags (4), score limit, time limit, match num, match current.
    &[(1, Flags(0xf)), (4, Range(0, i32::MAX))],
    // 15 De_TuneParams.
    &[(32, Any)],
    // 16 Common, 17 Explosion, 18 Spawn, 19 HammerHit: x, y.
    &[(2, Any)],
    &[(2, Any)],
    &[(2, Any)],
    &[(2, Any)],
    // 20 Death: x, y, client id.
    &[(2, Any), (1, Range(0, LAST_CLIENT))],
    // 21 SoundWorld: x, y, sound id (0.7 has 41 sounds).
    &[(2, Any), (1, Range(0, 40))],
    // 22 Damage: x, y, client id, angle, health and armor amounts, self.
    &[
        (2, Any),
        (1, Range(0, LAST_CLIENT)),
        (1, Any),
        (2, Range(0, 9)),
        (1, BOOL),
    ],
    // 23 PlayerInfoRace: race start tick.
    &[(1, TICK)],
    // 24 GameDataRace: best time (-1 none), precision, race flags (3).
    &[(1, Range(-1, i32::MAX)), (1, Range(0, 3)), (1, Flags(0x7))],
];

/// Whether a snapshot item of static type `type_id` passes DDNet's 0.7 validation
/// (`protocol7::CNetObjHandler::ValidateObj`): the type is a 0.7 object, the item has
/// exactly its size, and every int is in its range or flag mask.
///
/// DDNet's client runs this on every item of a 0.7 demo's snapshots when it translates
/// them (`CGameClient::TranslateSnap`), and marks an item that fails invalid (type -1) in
/// the demo player's own snapshot, which a later delta then trips over (the demo
/// validator follows this).
pub fn object_is_valid(type_id: i32, data: &[i32]) -> bool {
    let Some(&checks) = usize::try_from(type_id)
        .ok()
        .and_then(|t| OBJECT_CHECKS.get(t))
        .filter(|checks| !checks.is_empty())
    else {
        return false;
    };
    let size: usize = checks.iter().map(|&(n, _)| n).sum();
    if data.len() != size {
        return false;
    }
    let mut values = data.iter();
    checks.iter().all(|&(n, check)| {
        values.by_ref().take(n).all(|&v| match check {
            Check::Any => true,
            Check::Range(min, max) => (min..=max).contains(&v),
            Check::Flags(mask) => v & mask == v,
        })
    })
}
