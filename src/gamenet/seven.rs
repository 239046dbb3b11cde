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

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

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

// `OBJECT_CHECKS`, written by `build.rs` from the bounds in `spec/seven.json`.
include!(concat!(env!("OUT_DIR"), "/gamenet_seven_checks.rs"));

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
