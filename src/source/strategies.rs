//! proptest strategies for Source demos, public under the `proptest` feature so that
//! projects using demokit can property-test their own Source demo code.
//!
//! The strategies produce owned values ([`FrameSpec`], [`DemoSpec`]) that lend borrowed
//! [`Frame`]s. Every value writes without error and reads back to itself with its
//! [`Profile`]: view-info bytes have the profile's size, commands are in its table, slot
//! bytes appear only where it has them, and a stop frame's tick and slot are what the
//! reader derives from its tail. Headers from [`header_for`] settle the profile
//! ([`Profile::from_header`]) whenever the header can; for the other candidates read with
//! [`SourceSlice::with_profile`](super::reader::SourceSlice::with_profile).

// Test support (feature `proptest`): strategies build valid inputs for property tests and
// fail loudly where a generated value breaks their own invariants.
#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use super::format::{Header, MAGIC, VIEW_INFO_SIZE, ViewInfo};
use super::profile::{Command, CommandTable, Profile};
use super::reader::{Body, Frame, PacketBody, stop_tick};
use super::writer::{SourceWriter, view_bytes};
use crate::codec::string::FixedStr;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use std::borrow::Cow;

/// Game directories of demo protocol 4 that [`Profile::from_header`] settles as two-split
/// games (a copy of its list).
const TWO_SPLIT_GAMES: [&str; 7] = [
    "portal2",
    "csgo",
    "portalreloaded",
    "portal_stories",
    "twtm",
    "aperturetag",
    "p2ce",
];

/// The most payload bytes a generated frame carries.
const MAX_PAYLOAD: usize = 64;

/// The most frames [`demo`] puts before the stop frame.
const MAX_FRAMES: usize = 20;

/// The longest stop tail [`demo`] generates (real files hold 3, 4 or 5 bytes).
const MAX_STOP_TAIL: usize = 6;

/// The owned body of a [`FrameSpec`], one variant per [`Body`] variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodySpec {
    /// `dem_signon`.
    Signon(PacketSpec),
    /// `dem_packet`.
    Packet(PacketSpec),
    /// `dem_synctick`.
    SyncTick,
    /// `dem_consolecmd`: the stored command bytes.
    ConsoleCmd(Vec<u8>),
    /// `dem_usercmd`.
    UserCmd {
        /// Outgoing sequence number.
        sequence: i32,
        /// The bit-packed user command.
        data: Vec<u8>,
    },
    /// `dem_datatables`.
    DataTables(Vec<u8>),
    /// `dem_stop`: the bytes after the command byte.
    Stop {
        /// The tail as stored.
        tail: Vec<u8>,
    },
    /// `dem_customdata`.
    CustomData {
        /// Callback index.
        callback: i32,
        /// The data.
        data: Vec<u8>,
    },
    /// `dem_stringtables`.
    StringTables(Vec<u8>),
}

/// The owned body of a signon or packet frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketSpec {
    /// The view-info blocks as stored (76 bytes per split).
    pub view: Vec<u8>,
    /// Incoming sequence number.
    pub seq_in: i32,
    /// Outgoing sequence number.
    pub seq_out: i32,
    /// The network data.
    pub data: Vec<u8>,
}

impl PacketSpec {
    fn body(&self) -> PacketBody<'_> {
        PacketBody {
            view: &self.view,
            seq_in: self.seq_in,
            seq_out: self.seq_out,
            data: &self.data,
        }
    }
}

/// An owned frame: [`frame`](Self::frame) lends it as a [`Frame`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameSpec {
    /// The tick.
    pub tick: i32,
    /// The slot byte, `Some` exactly when the profile has one (for a stop frame: the fifth
    /// tail byte, as the reader reports it).
    pub slot: Option<u8>,
    /// The body.
    pub body: BodySpec,
}

impl FrameSpec {
    /// A stop frame with `tail` after its command byte, its tick and slot derived from the
    /// tail as the reader derives them.
    pub fn stop(tail: Vec<u8>, profile: &Profile) -> FrameSpec {
        FrameSpec {
            tick: stop_tick(&tail).unwrap_or(0),
            slot: if profile.slot_byte {
                tail.get(4).copied()
            } else {
                None
            },
            body: BodySpec::Stop { tail },
        }
    }

    /// The frame, borrowing this value's bytes.
    pub fn frame(&self) -> Frame<'_> {
        let body = match &self.body {
            BodySpec::Signon(p) => Body::Signon(p.body()),
            BodySpec::Packet(p) => Body::Packet(p.body()),
            BodySpec::SyncTick => Body::SyncTick,
            BodySpec::ConsoleCmd(d) => Body::ConsoleCmd(d),
            BodySpec::UserCmd { sequence, data } => Body::UserCmd {
                sequence: *sequence,
                data,
            },
            BodySpec::DataTables(d) => Body::DataTables(d),
            BodySpec::Stop { tail } => Body::Stop {
                tail: Cow::Borrowed(tail),
            },
            BodySpec::CustomData { callback, data } => Body::CustomData {
                callback: *callback,
                data,
            },
            BodySpec::StringTables(d) => Body::StringTables(d),
        };
        Frame {
            tick: self.tick,
            slot: self.slot,
            body,
        }
    }
}

/// A whole demo: header, profile and frames, the last of them a stop frame.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoSpec {
    /// The header.
    pub header: Header,
    /// The profile the frames are laid out with.
    pub profile: Profile,
    /// The frames in file order; [`demo`] ends them with a stop frame.
    pub frames: Vec<FrameSpec>,
}

impl DemoSpec {
    /// The frames, borrowing this value's bytes.
    pub fn frames(&self) -> Vec<Frame<'_>> {
        self.frames.iter().map(FrameSpec::frame).collect()
    }

    /// The file: the header, then every frame laid out by the profile ([`SourceWriter`]).
    ///
    /// # Panics
    ///
    /// When a frame does not fit the profile (a command its table lacks, view-info bytes
    /// of the wrong size), which only a hand-made value can have.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut writer = SourceWriter::with_profile(Vec::new(), &self.header, self.profile)
            .expect("writing to a Vec cannot fail");
        for frame in &self.frames {
            writer
                .write_frame(&frame.frame())
                .expect("generated frames fit their profile");
        }
        writer.finish().expect("writing to a Vec cannot fail")
    }
}

/// A profile: one of the three real ones (more often), or any of
/// [`Profile::candidates`].
pub fn profile() -> impl Strategy<Value = Profile> {
    prop_oneof![
        1 => Just(Profile::SOURCE_2013),
        1 => Just(Profile::PORTAL2),
        1 => Just(Profile::LEFT4DEAD),
        2 => select(Profile::candidates().collect::<Vec<_>>()),
    ]
}

/// Text bytes without a NUL: mostly printable ASCII, sometimes any other byte.
fn text(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    vec(prop_oneof![4 => 0x20u8..0x7f, 1 => 1u8..=255], 0..=max_len)
}

/// A 260-byte field holding `text` (cut to 259 bytes) and a NUL, then zeros or arbitrary
/// bytes (both occur in real files: the engine does not always clear its buffers).
fn field(text: Vec<u8>, after: Option<Vec<u8>>) -> FixedStr<260> {
    let mut raw = [0u8; 260];
    if let Some(after) = after {
        raw.copy_from_slice(&after);
    }
    let n = text.len().min(259);
    raw[..n].copy_from_slice(&text[..n]);
    raw[n] = 0;
    FixedStr::from_raw(raw)
}

/// A NUL-terminated string field with arbitrary text.
pub fn fixed_str() -> impl Strategy<Value = FixedStr<260>> {
    let text = prop_oneof![4 => text(40), 1 => text(259)];
    (text, proptest::option::of(vec(any::<u8>(), 260))).prop_map(|(t, a)| field(t, a))
}

/// `name` in random ASCII case (the header rules compare lowercased).
fn any_case(name: &'static str) -> impl Strategy<Value = Vec<u8>> {
    vec(any::<bool>(), name.len()).prop_map(move |upper| {
        name.bytes()
            .zip(upper)
            .map(|(b, u)| if u { b.to_ascii_uppercase() } else { b })
            .collect()
    })
}

/// A game directory (text bytes, without the NUL) that settles `profile` under demo
/// protocol 4, if there is one.
fn settling_game(profile: Profile) -> Option<BoxedStrategy<Vec<u8>>> {
    if profile == Profile::LEFT4DEAD {
        Some(
            (any_case("left4dead"), text(8))
                .prop_map(|(mut game, suffix)| {
                    game.extend_from_slice(&suffix);
                    game
                })
                .boxed(),
        )
    } else if profile == Profile::PORTAL2 {
        Some(
            select(TWO_SPLIT_GAMES.to_vec())
                .prop_flat_map(any_case)
                .boxed(),
        )
    } else {
        None
    }
}

/// A finite float: anything finite, mostly of the size coordinates and angles have.
pub fn finite_f32() -> impl Strategy<Value = f32> {
    use proptest::num::f32 as f;
    prop_oneof![
        3 => -16384.0f32..16384.0,
        1 => f::POSITIVE | f::NEGATIVE | f::NORMAL | f::SUBNORMAL | f::ZERO,
    ]
}

/// A valid header for `profile`: the stamp, and a demo protocol, network protocol and game
/// directory with which [`Profile::from_header`] settles on `profile` when any header can
/// (the three real profiles and the Classic one-split profile). Otherwise the protocols and
/// game directory are arbitrary. Strings are NUL-terminated with arbitrary text, the time
/// is any finite float, ticks, frames and signon length any `i32`.
pub fn header_for(profile: Profile) -> impl Strategy<Value = Header> {
    let one_split = profile.view_splits == 1 && !profile.slot_byte;
    let protocols: BoxedStrategy<(i32, i32)> = if settling_game(profile).is_some() {
        (4i32.., any::<i32>()).boxed()
    } else if one_split && profile.commands == CommandTable::StringTables8 {
        (Just(3), 14i32..).boxed()
    } else if one_split && profile.commands == CommandTable::Classic {
        (Just(3), prop_oneof![0i32..14, i32::MIN..0]).boxed()
    } else {
        (
            prop_oneof![-1i32..8, any::<i32>()],
            prop_oneof![0i32..20_000, any::<i32>()],
        )
            .boxed()
    };
    let game: BoxedStrategy<FixedStr<260>> = match settling_game(profile) {
        Some(game) => (game, proptest::option::of(vec(any::<u8>(), 260)))
            .prop_map(|(t, a)| field(t, a))
            .boxed(),
        None => fixed_str().boxed(),
    };
    (
        protocols,
        fixed_str(),
        fixed_str(),
        fixed_str(),
        game,
        finite_f32(),
        any::<[i32; 3]>(),
    )
        .prop_map(
            |((demo_protocol, network_protocol), server, client, map, game_dir, time, n)| Header {
                magic: MAGIC,
                demo_protocol,
                network_protocol,
                server,
                client,
                map,
                game_dir,
                playback_time: time,
                ticks: n[0],
                frames: n[1],
                signon_length: n[2],
            },
        )
        // A header that settles another profile would make a reader lay the frames out
        // by that one (and the writer refuses it).
        .prop_filter(
            "the header settles another profile",
            move |h| !matches!(Profile::from_header(h), (settled, true) if settled != profile),
        )
}

/// One view-info block of finite floats and any flags.
pub fn view_info() -> impl Strategy<Value = ViewInfo> {
    (any::<i32>(), vec(finite_f32(), 18)).prop_map(|(flags, f)| {
        let v = |i: usize| [f[i], f[i + 1], f[i + 2]];
        ViewInfo {
            flags,
            view_origin: v(0),
            view_angles: v(3),
            local_view_angles: v(6),
            view_origin2: v(9),
            view_angles2: v(12),
            local_view_angles2: v(15),
        }
    })
}

/// Payload bytes: 0 to 64 arbitrary bytes.
fn payload() -> impl Strategy<Value = Vec<u8>> {
    vec(any::<u8>(), 0..MAX_PAYLOAD)
}

/// A signon or packet body with `splits` view-info blocks.
fn packet(splits: u8) -> impl Strategy<Value = PacketSpec> {
    (
        vec(view_info(), usize::from(splits)),
        any::<i32>(),
        any::<i32>(),
        payload(),
    )
        .prop_map(|(views, seq_in, seq_out, data)| {
            let view = view_bytes(&views);
            debug_assert_eq!(view.len(), views.len() * VIEW_INFO_SIZE);
            PacketSpec {
                view,
                seq_in,
                seq_out,
                data,
            }
        })
}

/// A body for `command` in `profile` (not stop).
fn body(profile: Profile, command: Command) -> BoxedStrategy<BodySpec> {
    match command {
        Command::Signon => packet(profile.view_splits)
            .prop_map(BodySpec::Signon)
            .boxed(),
        Command::Packet => packet(profile.view_splits)
            .prop_map(BodySpec::Packet)
            .boxed(),
        Command::SyncTick => Just(BodySpec::SyncTick).boxed(),
        Command::ConsoleCmd => payload().prop_map(BodySpec::ConsoleCmd).boxed(),
        Command::UserCmd => (any::<i32>(), payload())
            .prop_map(|(sequence, data)| BodySpec::UserCmd { sequence, data })
            .boxed(),
        Command::DataTables => payload().prop_map(BodySpec::DataTables).boxed(),
        Command::StringTables => payload().prop_map(BodySpec::StringTables).boxed(),
        Command::CustomData => (prop_oneof![Just(-1i32), any::<i32>()], payload())
            .prop_map(|(callback, data)| BodySpec::CustomData { callback, data })
            .boxed(),
        Command::Stop => unreachable!("stop frames come from FrameSpec::stop"),
    }
}

/// A frame for `profile`: any command its table has except stop, any tick (negative
/// ones included), a slot byte exactly when the profile has one, view-info blocks of the
/// profile's size from finite floats, payloads of 0 to 64 bytes.
pub fn frame_for(profile: Profile) -> impl Strategy<Value = FrameSpec> {
    let commands: Vec<Command> = Command::ALL
        .into_iter()
        .filter(|&c| c != Command::Stop && profile.commands.number(c).is_some())
        .collect();
    let slot = if profile.slot_byte {
        any::<u8>().prop_map(Some).boxed()
    } else {
        Just(None).boxed()
    };
    let tick = prop_oneof![3 => -100i32..100_000, 1 => any::<i32>()];
    (
        select(commands).prop_flat_map(move |c| body(profile, c)),
        tick,
        slot,
    )
        .prop_map(|(body, tick, slot)| FrameSpec { tick, slot, body })
}

/// A stop frame for `profile` whose tail is 0 to 6 arbitrary bytes, most often the 3, 4 or
/// 5 real files hold.
pub fn stop_for(profile: Profile) -> impl Strategy<Value = FrameSpec> {
    prop_oneof![
        3 => vec(any::<u8>(), 3..=5),
        1 => vec(any::<u8>(), 0..=MAX_STOP_TAIL),
    ]
    .prop_map(move |tail| FrameSpec::stop(tail, &profile))
}

/// A demo for `profile`: a header from [`header_for`], 0 to 20 frames from [`frame_for`]
/// and a stop frame from [`stop_for`].
pub fn demo_for(profile: Profile) -> impl Strategy<Value = DemoSpec> {
    (
        header_for(profile),
        vec(frame_for(profile), 0..=MAX_FRAMES),
        stop_for(profile),
    )
        .prop_map(move |(header, mut frames, stop)| {
            frames.push(stop);
            DemoSpec {
                header,
                profile,
                frames,
            }
        })
}

/// A demo of any [`profile`], from [`demo_for`].
pub fn demo() -> impl Strategy<Value = DemoSpec> {
    profile().prop_flat_map(demo_for)
}
