//! Teeworlds 0.6 with DDNet's extensions: the snapshot objects and events, the game
//! messages and the engine's system messages, as DDNet defines them at the reference commit
//! (`datasrc/network.py`, `src/engine/shared/protocol.h`, `protocol_ex_msgs.h`, and the
//! system messages' fields as `src/engine/server/server.cpp` and `client.cpp` pack them),
//! written at build time from `spec/six.json` and `spec/six.overlay.json` (see
//! [the module docs](super)).
//!
//! Events (`Explosion`, `Death`, ...) are snapshot objects that exist for one tick; their
//! common `x`, `y` fields come first, as in DDNet's `Common` base. `Character` holds the
//! fields of `CharacterCore` first, as DDNet's derived struct does.
//!
//! Besides the reference commit, the tables hold DDNet's game-protocol changes in flight
//! (`spec/six.inflight.json`): the tuning fields and `CharacterTuning` of DDNet PR #12359
//! (shipped in 20.0-rc1 to rc5, reverted in rc6), and `CommonEx` with the events on it of
//! PR #12676 (open; `Birthday` and `Finish` take a `client_id` there). Both the older and
//! the newer sizes of what they change read typed. An extended object longer than the
//! table's keeps the ints after its fields ([`ExObject`](super::ExObject)).
//!
//! DDNet's objects grew over its versions by fields with a default value, which older
//! servers do not send and DDNet's client (`SecureUnpackObj`) fills with the default: those
//! fields are optional here (`None`: not sent; the default is named in the field's doc). A
//! vanilla message id DDNet no longer uses keeps its vanilla layout
//! (`Sv_ExtraProjectile`).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

// The objects (`net_objects!`) and messages (`net_messages!`), written by `build.rs` from
// `spec/six.json` and `spec/six.overlay.json` (see the module docs of `gamenet`).
include!(concat!(env!("OUT_DIR"), "/gamenet_six.rs"));

/// `PROJECTILEFLAG_HAS_TUNEPARAMS` of DDNet PR #12359 (shipped in 20.0-rc1 to rc5, reverted
/// in rc6): a [`DdnetProjectile`]'s `curvature`, `speed` and `lifetime` hold its tuning.
pub const PROJECTILEFLAG_HAS_TUNEPARAMS: i32 = 1 << 5;

/// `LASERFLAG_HAS_TUNEPARAMS` of DDNet PR #12359: a [`DdnetLaser`]'s `shotgun_strength`,
/// `bounce_num`, `bounce_cost` and `bounce_delay` hold its tuning.
pub const LASERFLAG_HAS_TUNEPARAMS: i32 = 1 << 1;

impl ExtendedType {
    /// The UUID the item names.
    pub fn uuid(&self) -> uuid::Uuid {
        crate::codec::uuid::uuid_from_ints(&self.uuid)
    }
}
