//! Source engine entities: the send tables, the server classes flattened to prop lists,
//! prop values, entity updates and the players among the entities, for every engine
//! branch the network layer decodes.
//!
//! * [`table`]: the `dem_datatables` frame, laid out once through the network layer's
//!   [`Coder`](crate::source::net::Coder): it decodes and encodes back to its bytes.
//! * [`class`]: each server class's flat prop list, in the order updates number it.
//! * [`prop`]: how each prop type and flag sends a value, both directions.
//! * [`update`]: `svc_PacketEntities` data applied to an [`EntityState`], with class and
//!   instance baselines; `svc_TempEntities` data as [`TempEntity`]s.
//! * [`player`]: position, eye angles, team, health and life state of player entities.
//!
//! This layer takes its messages from [`net`](crate::source::net) (the updates, the
//! `instancebaseline` string table) and the data tables frame from the container. It
//! does not decode entity messages or user messages, nor CS:GO's protobuf tables. Updates apply to the latest state, not to the snapshot of the tick
//! they name as their base: a recording's client acknowledges every tick, so the two are
//! the same in demos.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod class;
pub mod error;
pub mod player;
pub mod prop;
pub mod table;
pub mod update;

pub use class::{FlatProp, PropDef, ServerClass, ServerClasses};
pub use error::{EntityError, EntityErrorKind};
pub use player::{
    OriginLayout, PlayerEntity, PlayerProps, origin, players, players_into, update_players,
};
pub use prop::Value;
pub use table::{ClassEntry, DataTables, PropFlags, PropKind, SendProp, SendTable, TableWidths};
pub use update::{
    Entity, EntityChange, EntityState, TempEntity, UpdateCounts, UpdateLayout, decode_baseline,
    temp_entities,
};
