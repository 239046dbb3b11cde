//! Messages: the typed form of everything after the header, with a zero-copy decoder and a
//! canonical encoder.
//!
//! Strings and payloads borrow from the input and keep their raw bytes: DDNet writes UTF-8,
//! but a reader should not refuse (or silently repair) what a file holds. The decoder accepts
//! ints in non-canonical forms, as DDNet's unpacker does, and counts them
//! ([`Decoded::non_canonical`]); the encoder writes only canonical ints, so a message with a
//! non-zero count re-encodes to different bytes and a byte-exact rewrite must copy its raw
//! bytes instead (the [`writer`](super::writer) does).

use super::error::EncodeError;
use super::format::{ExFrame, INPUT_INTS, VarInts, id};
use crate::codec::varint;
use binrw::BinWrite;
use std::borrow::Cow;
use std::fmt;
use uuid::Uuid;

/// A NUL-terminated string field, without its NUL, as raw bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct RawStr<'a>(pub &'a [u8]);

impl<'a> RawStr<'a> {
    /// The bytes, without the NUL.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The text, if it is UTF-8 (DDNet writes UTF-8).
    pub fn to_str(&self) -> Result<&'a str, std::str::Utf8Error> {
        std::str::from_utf8(self.0)
    }

    /// The text with invalid UTF-8 replaced, for display.
    pub fn to_string_lossy(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.0)
    }

    /// The number of bytes, without the NUL.
    pub const fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the string is empty.
    pub const fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a> From<&'a str> for RawStr<'a> {
    fn from(s: &'a str) -> Self {
        RawStr(s.as_bytes())
    }
}

impl<'a> From<&'a [u8]> for RawStr<'a> {
    fn from(s: &'a [u8]) -> Self {
        RawStr(s)
    }
}

impl fmt::Debug for RawStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string_lossy())
    }
}

/// The argument strings of a CONSOLE_COMMAND.
///
/// Read from a file they are one borrowed run of NUL-terminated strings ([`Args::packed`]);
/// a program recording commands hands in a list instead ([`Args::list`]). Both forms compare
/// equal when they hold the same strings.
#[derive(Clone, Copy)]
pub struct Args<'a>(ArgsRepr<'a>);

#[derive(Clone, Copy)]
enum ArgsRepr<'a> {
    Packed { raw: &'a [u8], count: usize },
    List(&'a [&'a [u8]]),
}

impl<'a> Args<'a> {
    /// No arguments.
    pub const EMPTY: Args<'static> = Args(ArgsRepr::List(&[]));

    /// Arguments stored as consecutive NUL-terminated strings, as in the file. Returns `None`
    /// unless `raw` is empty or ends with a NUL.
    pub fn packed(raw: &'a [u8]) -> Option<Self> {
        if !raw.is_empty() && raw.last() != Some(&0) {
            return None;
        }
        let count = raw.iter().filter(|&&b| b == 0).count();
        Some(Args(ArgsRepr::Packed { raw, count }))
    }

    /// Arguments as a list of strings (without NULs; the encoder refuses a NUL inside one).
    pub const fn list(items: &'a [&'a [u8]]) -> Self {
        Args(ArgsRepr::List(items))
    }

    /// The number of arguments.
    pub fn len(&self) -> usize {
        match self.0 {
            ArgsRepr::Packed { count, .. } => count,
            ArgsRepr::List(items) => items.len(),
        }
    }

    /// Whether there are no arguments.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The arguments in order.
    pub fn iter(&self) -> ArgsIter<'a> {
        ArgsIter(match self.0 {
            ArgsRepr::Packed { raw, .. } => ArgsIterRepr::Packed(raw),
            ArgsRepr::List(items) => ArgsIterRepr::List(items.iter()),
        })
    }

    /// The bytes of the packed form (each argument followed by a NUL), if this was read from
    /// a file.
    pub fn packed_bytes(&self) -> Option<&'a [u8]> {
        match self.0 {
            ArgsRepr::Packed { raw, .. } => Some(raw),
            ArgsRepr::List(_) => None,
        }
    }
}

impl Default for Args<'_> {
    fn default() -> Self {
        Args::EMPTY
    }
}

impl PartialEq for Args<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Args<'_> {}

impl fmt::Debug for Args<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for Args<'a> {
    type Item = RawStr<'a>;
    type IntoIter = ArgsIter<'a>;
    fn into_iter(self) -> ArgsIter<'a> {
        self.iter()
    }
}

/// Iterator over [`Args`].
#[derive(Debug, Clone)]
pub struct ArgsIter<'a>(ArgsIterRepr<'a>);

#[derive(Debug, Clone)]
enum ArgsIterRepr<'a> {
    Packed(&'a [u8]),
    List(std::slice::Iter<'a, &'a [u8]>),
}

impl<'a> Iterator for ArgsIter<'a> {
    type Item = RawStr<'a>;
    fn next(&mut self) -> Option<RawStr<'a>> {
        match &mut self.0 {
            ArgsIterRepr::Packed(rest) => {
                let nul = rest.iter().position(|&b| b == 0)?;
                let item = &rest[..nul];
                *rest = &rest[nul + 1..];
                Some(RawStr(item))
            }
            ArgsIterRepr::List(items) => items.next().map(|s| RawStr(s)),
        }
    }
}

/// Defines [`ExKind`] from one table of variant, name and UUID, so that the three cannot
/// drift apart. The UUIDs are uuid3(name) in the Teeworlds namespace; a test recomputes them.
macro_rules! ex_kinds {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $uuid:literal; )*) => {
        /// The 21 extension messages DDNet 20.1 defines (`teehistorian_ex_chunks.h`, in
        /// its order).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ExKind {
            $( $(#[$doc])* $variant, )*
        }

        impl ExKind {
            /// Every kind, in DDNet's registration order.
            pub const ALL: &'static [ExKind] = &[ $( ExKind::$variant, )* ];

            /// The extension's name, e.g. `"teehistorian-player-name@ddnet.org"`.
            pub const fn name(self) -> &'static str {
                match self { $( ExKind::$variant => $name, )* }
            }

            /// `"EX:"` and the name: the kind name [`Message::kind_name`] reports.
            pub const fn kind_name(self) -> &'static str {
                match self { $( ExKind::$variant => concat!("EX:", $name), )* }
            }

            /// The extension's UUID.
            pub const fn uuid(self) -> Uuid {
                match self { $( ExKind::$variant => Uuid::from_u128($uuid), )* }
            }

            /// The kind with this UUID, if it is one of the 21.
            pub const fn from_uuid(uuid: Uuid) -> Option<ExKind> {
                match uuid.as_u128() {
                    $( $uuid => Some(ExKind::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

ex_kinds! {
    /// TEST: empty payload.
    Test = "teehistorian-test@ddnet.tw", 0x6bb8ba88_0f0b_382e_8dae_dbf4052b8b7d;
    /// DDNETVER_OLD: cid, DDNet version number.
    DdnetVersionOld = "teehistorian-ddnetver-old@ddnet.tw", 0x41b49541_f26f_325d_8715_9baf4b544ef9;
    /// DDNETVER: cid, connection UUID, version number, version string.
    DdnetVersion = "teehistorian-ddnetver@ddnet.tw", 0x1397b63e_ee4e_3919_b86a_b058887fcaf5;
    /// AUTH_INIT: cid, level, auth name.
    AuthInit = "teehistorian-auth-init@ddnet.tw", 0x60daba5c_52c4_3aeb_b8ba_b2953fb55a17;
    /// AUTH_LOGIN: cid, level, auth name.
    AuthLogin = "teehistorian-auth-login@ddnet.tw", 0x37ecd3b8_9218_3bb9_a71b_a935b86f6a81;
    /// AUTH_LOGOUT: cid.
    AuthLogout = "teehistorian-auth-logout@ddnet.tw", 0xd4f5abe8_edd2_3fb9_abd8_1c8bb84f4a63;
    /// JOINVER6: cid.
    JoinVer6 = "teehistorian-joinver6@ddnet.tw", 0x1899a382_71e3_36da_937d_c9de6bb95b1d;
    /// JOINVER7: cid.
    JoinVer7 = "teehistorian-joinver7@ddnet.tw", 0x59239b05_0540_318d_bea4_9aa1e80e7d2b;
    /// PLAYER_SWITCH: two cids.
    PlayerSwitch = "teehistorian-player-swap@ddnet.tw", 0x5de9b633_49cf_3e99_9a25_d4a78e9717d7;
    /// SAVE_SUCCESS: team, save UUID, save string.
    SaveSuccess = "teehistorian-save-success@ddnet.tw", 0x4560c756_da29_3036_81d4_90a50f0182cd;
    /// SAVE_FAILURE: team.
    SaveFailure = "teehistorian-save-failure@ddnet.tw", 0xb29901d5_1244_3bd0_bbde_23d04b1f7ba9;
    /// LOAD_SUCCESS: team, save UUID, save string.
    LoadSuccess = "teehistorian-load-success@ddnet.tw", 0xe05408d3_a313_33df_9eb3_ddb990ab954a;
    /// LOAD_FAILURE: team.
    LoadFailure = "teehistorian-load-failure@ddnet.tw", 0xef8905a2_c695_3591_a1cd_53d2015992dd;
    /// PLAYER_TEAM: cid, team.
    PlayerTeam = "teehistorian-player-team@ddnet.tw", 0xa111c04e_1ea8_38e0_90b1_d7f993ca0da9;
    /// TEAM_PRACTICE: team, practice flag.
    TeamPractice = "teehistorian-team-practice@ddnet.tw", 0x5792834e_81d1_34c9_a29b_b5ff25dac3bc;
    /// PLAYER_READY: cid.
    PlayerReady = "teehistorian-player-ready@ddnet.tw", 0x638587c9_3f75_3887_918e_a3c2614ffaa0;
    /// PLAYER_REJOIN: cid.
    PlayerRejoin = "teehistorian-rejoinver6@ddnet.org", 0xc1e921d5_96f5_37bb_8a45_7a06f163d27e;
    /// ANTIBOT: opaque bytes from the antibot module.
    Antibot = "teehistorian-antibot@ddnet.org", 0x866bfdac_fb49_3c0b_a887_5fe1f3ea00b8;
    /// PLAYER_NAME: cid, name.
    PlayerName = "teehistorian-player-name@ddnet.org", 0xd016f9b9_4151_3b87_87e5_3a6087eb5f26;
    /// PLAYER_FINISH: cid, time in ticks.
    PlayerFinish = "teehistorian-player-finish@ddnet.org", 0x68943c01_2348_3e01_9490_3f27f8269d94;
    /// TEAM_FINISH: team, time in ticks.
    TeamFinish = "teehistorian-team-finish@ddnet.org", 0x9588b9af_3fdc_3760_8043_82deeee317a5;
}

/// An extension (EX) message: a UUID and a payload, typed when the UUID is one of DDNet's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ex<'a> {
    /// `teehistorian-test@ddnet.tw`: written by DDNet's tests; empty payload.
    Test,
    /// `teehistorian-ddnetver-old@ddnet.tw`: a client's DDNet version (old clients).
    DdnetVersionOld {
        /// Client id.
        cid: i32,
        /// DDNet version number, e.g. 16050.
        ddnet_version: i32,
    },
    /// `teehistorian-ddnetver@ddnet.tw`: a client's DDNet version.
    DdnetVersion {
        /// Client id.
        cid: i32,
        /// The connection's UUID.
        connection_id: Uuid,
        /// DDNet version number.
        ddnet_version: i32,
        /// Version string.
        version_str: RawStr<'a>,
    },
    /// `teehistorian-auth-init@ddnet.tw`: a client authenticated at start (e.g. by key).
    AuthInit {
        /// Client id.
        cid: i32,
        /// Authentication level.
        level: i32,
        /// Account name.
        auth_name: RawStr<'a>,
    },
    /// `teehistorian-auth-login@ddnet.tw`: a client logged in to rcon.
    AuthLogin {
        /// Client id.
        cid: i32,
        /// Authentication level.
        level: i32,
        /// Account name.
        auth_name: RawStr<'a>,
    },
    /// `teehistorian-auth-logout@ddnet.tw`: a client logged out of rcon.
    AuthLogout {
        /// Client id.
        cid: i32,
    },
    /// `teehistorian-joinver6@ddnet.tw`: the next JOIN is a 0.6 client.
    JoinVer6 {
        /// Client id.
        cid: i32,
    },
    /// `teehistorian-joinver7@ddnet.tw`: the next JOIN is a 0.7 client.
    JoinVer7 {
        /// Client id.
        cid: i32,
    },
    /// `teehistorian-player-swap@ddnet.tw`: two players swapped places.
    PlayerSwitch {
        /// First client id.
        cid1: i32,
        /// Second client id.
        cid2: i32,
    },
    /// `teehistorian-save-success@ddnet.tw`: a team was saved.
    SaveSuccess {
        /// Team.
        team: i32,
        /// The save's UUID.
        save_id: Uuid,
        /// The serialized save.
        team_save: RawStr<'a>,
    },
    /// `teehistorian-save-failure@ddnet.tw`: saving a team failed.
    SaveFailure {
        /// Team.
        team: i32,
    },
    /// `teehistorian-load-success@ddnet.tw`: a team was loaded.
    LoadSuccess {
        /// Team.
        team: i32,
        /// The save's UUID.
        save_id: Uuid,
        /// The serialized save.
        team_save: RawStr<'a>,
    },
    /// `teehistorian-load-failure@ddnet.tw`: loading a team failed.
    LoadFailure {
        /// Team.
        team: i32,
    },
    /// `teehistorian-player-team@ddnet.tw`: a player's team changed.
    PlayerTeam {
        /// Client id.
        cid: i32,
        /// New team.
        team: i32,
    },
    /// `teehistorian-team-practice@ddnet.tw`: a team's practice mode changed.
    TeamPractice {
        /// Team.
        team: i32,
        /// 1 in practice mode, 0 not (kept as written).
        practice: i32,
    },
    /// `teehistorian-player-ready@ddnet.tw`: a player became ready.
    PlayerReady {
        /// Client id.
        cid: i32,
    },
    /// `teehistorian-rejoinver6@ddnet.org`: a 0.6 client rejoined.
    PlayerRejoin {
        /// Client id.
        cid: i32,
    },
    /// `teehistorian-antibot@ddnet.org`: opaque antibot data.
    Antibot {
        /// The payload.
        data: &'a [u8],
    },
    /// `teehistorian-player-name@ddnet.org`: a player's name.
    PlayerName {
        /// Client id.
        cid: i32,
        /// The name.
        name: RawStr<'a>,
    },
    /// `teehistorian-player-finish@ddnet.org`: a player finished the race.
    PlayerFinish {
        /// Client id.
        cid: i32,
        /// Race time in ticks.
        time: i32,
    },
    /// `teehistorian-team-finish@ddnet.org`: a team finished the race.
    TeamFinish {
        /// Team.
        team: i32,
        /// Race time in ticks.
        time: i32,
    },
    /// An EX message this crate does not type: its UUID is not one of the 21, or its payload
    /// does not match the layout of its UUID ([`ExKind::from_uuid`] still names it then).
    Unknown {
        /// The UUID.
        uuid: Uuid,
        /// The payload.
        data: &'a [u8],
    },
}

impl<'a> Ex<'a> {
    /// The kind of a typed message; for [`Ex::Unknown`], the kind its UUID names, if any.
    pub fn kind(&self) -> Option<ExKind> {
        Some(match self {
            Ex::Test => ExKind::Test,
            Ex::DdnetVersionOld { .. } => ExKind::DdnetVersionOld,
            Ex::DdnetVersion { .. } => ExKind::DdnetVersion,
            Ex::AuthInit { .. } => ExKind::AuthInit,
            Ex::AuthLogin { .. } => ExKind::AuthLogin,
            Ex::AuthLogout { .. } => ExKind::AuthLogout,
            Ex::JoinVer6 { .. } => ExKind::JoinVer6,
            Ex::JoinVer7 { .. } => ExKind::JoinVer7,
            Ex::PlayerSwitch { .. } => ExKind::PlayerSwitch,
            Ex::SaveSuccess { .. } => ExKind::SaveSuccess,
            Ex::SaveFailure { .. } => ExKind::SaveFailure,
            Ex::LoadSuccess { .. } => ExKind::LoadSuccess,
            Ex::LoadFailure { .. } => ExKind::LoadFailure,
            Ex::PlayerTeam { .. } => ExKind::PlayerTeam,
            Ex::TeamPractice { .. } => ExKind::TeamPractice,
            Ex::PlayerReady { .. } => ExKind::PlayerReady,
            Ex::PlayerRejoin { .. } => ExKind::PlayerRejoin,
            Ex::Antibot { .. } => ExKind::Antibot,
            Ex::PlayerName { .. } => ExKind::PlayerName,
            Ex::PlayerFinish { .. } => ExKind::PlayerFinish,
            Ex::TeamFinish { .. } => ExKind::TeamFinish,
            Ex::Unknown { uuid, .. } => return ExKind::from_uuid(*uuid),
        })
    }

    /// The UUID written in the file.
    pub fn uuid(&self) -> Uuid {
        match self {
            Ex::Unknown { uuid, .. } => *uuid,
            typed => typed.kind().map(ExKind::uuid).unwrap_or_default(),
        }
    }

    /// `"EX:"` and the extension's name, or `"EX:"` and the hyphenated UUID when the UUID is
    /// not one of DDNet's.
    pub fn kind_name(&self) -> Cow<'static, str> {
        match self.kind() {
            Some(kind) => Cow::Borrowed(kind.kind_name()),
            None => Cow::Owned(format!("EX:{}", self.uuid())),
        }
    }

    /// Types the payload of an EX message with `uuid`. Falls back to [`Ex::Unknown`] when the
    /// UUID is unknown or the payload is not exactly its layout. Returns the message and the
    /// number of non-canonical ints in a typed payload.
    pub fn from_payload(uuid: Uuid, data: &'a [u8]) -> (Ex<'a>, u32) {
        let unknown = Ex::Unknown { uuid, data };
        let Some(kind) = ExKind::from_uuid(uuid) else {
            return (unknown, 0);
        };
        let mut c = Fields::new(data, "");
        let typed = match parse_ex(kind, &mut c, data) {
            Ok(ex) if c.pos == data.len() => ex,
            _ => return (unknown, 0),
        };
        (typed, c.non_canonical)
    }

    /// Appends the payload in DDNet's form (canonical ints, NUL-terminated strings).
    pub fn encode_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match *self {
            Ex::Test => {}
            Ex::DdnetVersionOld { cid, ddnet_version } => put(out, [cid, ddnet_version]),
            Ex::DdnetVersion {
                cid,
                connection_id,
                ddnet_version,
                version_str,
            } => {
                put(out, [cid]);
                out.extend_from_slice(connection_id.as_bytes());
                put(out, [ddnet_version]);
                put_str(out, version_str, "DDNETVER version string")?;
            }
            Ex::AuthInit {
                cid,
                level,
                auth_name,
            }
            | Ex::AuthLogin {
                cid,
                level,
                auth_name,
            } => {
                put(out, [cid, level]);
                put_str(out, auth_name, "auth name")?;
            }
            Ex::AuthLogout { cid }
            | Ex::JoinVer6 { cid }
            | Ex::JoinVer7 { cid }
            | Ex::PlayerReady { cid }
            | Ex::PlayerRejoin { cid } => put(out, [cid]),
            Ex::SaveFailure { team } | Ex::LoadFailure { team } => put(out, [team]),
            Ex::PlayerSwitch { cid1, cid2 } => put(out, [cid1, cid2]),
            Ex::SaveSuccess {
                team,
                save_id,
                team_save,
            }
            | Ex::LoadSuccess {
                team,
                save_id,
                team_save,
            } => {
                put(out, [team]);
                out.extend_from_slice(save_id.as_bytes());
                put_str(out, team_save, "team save")?;
            }
            Ex::PlayerTeam { cid, team } => put(out, [cid, team]),
            Ex::TeamPractice { team, practice } => put(out, [team, practice]),
            Ex::PlayerName { cid, name } => {
                put(out, [cid]);
                put_str(out, name, "player name")?;
            }
            Ex::PlayerFinish { cid, time } => put(out, [cid, time]),
            Ex::TeamFinish { team, time } => put(out, [team, time]),
            Ex::Antibot { data } => out.extend_from_slice(data),
            Ex::Unknown { uuid, data } => {
                // A payload that fits the layout of a known UUID reads back typed.
                let (typed, _) = Ex::from_payload(uuid, data);
                if let Some(kind) = typed.kind()
                    && !matches!(typed, Ex::Unknown { .. })
                {
                    return Err(EncodeError::UntypedKnownExtension {
                        name: kind.kind_name(),
                    });
                }
                out.extend_from_slice(data)
            }
        }
        Ok(())
    }
}

/// Parses the payload of a known EX kind; the caller checks that all of it was used.
fn parse_ex<'a>(kind: ExKind, c: &mut Fields<'a>, data: &'a [u8]) -> Result<Ex<'a>, Need> {
    Ok(match kind {
        ExKind::Test => Ex::Test,
        ExKind::DdnetVersionOld => Ex::DdnetVersionOld {
            cid: c.int()?,
            ddnet_version: c.int()?,
        },
        ExKind::DdnetVersion => Ex::DdnetVersion {
            cid: c.int()?,
            connection_id: c.uuid()?,
            ddnet_version: c.int()?,
            version_str: c.str()?,
        },
        ExKind::AuthInit => Ex::AuthInit {
            cid: c.int()?,
            level: c.int()?,
            auth_name: c.str()?,
        },
        ExKind::AuthLogin => Ex::AuthLogin {
            cid: c.int()?,
            level: c.int()?,
            auth_name: c.str()?,
        },
        ExKind::AuthLogout => Ex::AuthLogout { cid: c.int()? },
        ExKind::JoinVer6 => Ex::JoinVer6 { cid: c.int()? },
        ExKind::JoinVer7 => Ex::JoinVer7 { cid: c.int()? },
        ExKind::PlayerSwitch => Ex::PlayerSwitch {
            cid1: c.int()?,
            cid2: c.int()?,
        },
        ExKind::SaveSuccess => Ex::SaveSuccess {
            team: c.int()?,
            save_id: c.uuid()?,
            team_save: c.str()?,
        },
        ExKind::SaveFailure => Ex::SaveFailure { team: c.int()? },
        ExKind::LoadSuccess => Ex::LoadSuccess {
            team: c.int()?,
            save_id: c.uuid()?,
            team_save: c.str()?,
        },
        ExKind::LoadFailure => Ex::LoadFailure { team: c.int()? },
        ExKind::PlayerTeam => Ex::PlayerTeam {
            cid: c.int()?,
            team: c.int()?,
        },
        ExKind::TeamPractice => Ex::TeamPractice {
            team: c.int()?,
            practice: c.int()?,
        },
        ExKind::PlayerReady => Ex::PlayerReady { cid: c.int()? },
        ExKind::PlayerRejoin => Ex::PlayerRejoin { cid: c.int()? },
        ExKind::Antibot => {
            c.pos = data.len();
            Ex::Antibot { data }
        }
        ExKind::PlayerName => Ex::PlayerName {
            cid: c.int()?,
            name: c.str()?,
        },
        ExKind::PlayerFinish => Ex::PlayerFinish {
            cid: c.int()?,
            time: c.int()?,
        },
        ExKind::TeamFinish => Ex::TeamFinish {
            team: c.int()?,
            time: c.int()?,
        },
    })
}

/// One teehistorian message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message<'a> {
    /// PLAYER_DIFF (id = cid ≥ 0): a character moved by (dx, dy).
    PlayerDiff {
        /// Client id, written as the message id; must not be negative.
        cid: i32,
        /// Change of x.
        dx: i32,
        /// Change of y.
        dy: i32,
    },
    /// FINISH (-1): the end of the file.
    Finish,
    /// TICK_SKIP (-2): the next tick is the last one plus `dt + 1`.
    TickSkip {
        /// Ticks skipped without any record.
        dt: i32,
    },
    /// PLAYER_NEW (-3): a character appeared at (x, y).
    PlayerNew {
        /// Client id.
        cid: i32,
        /// Position x.
        x: i32,
        /// Position y.
        y: i32,
    },
    /// PLAYER_OLD (-4): a character disappeared.
    PlayerOld {
        /// Client id.
        cid: i32,
    },
    /// INPUT_DIFF (-5): an input, as the wrapping difference to the previous one.
    InputDiff {
        /// Client id.
        cid: i32,
        /// New input minus old input, per int (wrapping).
        diff: [i32; INPUT_INTS],
    },
    /// INPUT_NEW (-6): an input recorded whole.
    InputNew {
        /// Client id.
        cid: i32,
        /// The input ints.
        input: [i32; INPUT_INTS],
    },
    /// MESSAGE (-7): a packed network message a client sent.
    NetMessage {
        /// Client id.
        cid: i32,
        /// The packed message (starting with the int `(msgid << 1) | sys`).
        data: &'a [u8],
    },
    /// JOIN (-8): a client joined.
    Join {
        /// Client id.
        cid: i32,
    },
    /// DROP (-9): a client left or was dropped.
    Drop {
        /// Client id.
        cid: i32,
        /// The reason.
        reason: RawStr<'a>,
    },
    /// CONSOLE_COMMAND (-10): a console command was executed.
    ConsoleCommand {
        /// Client id (-1 for the server itself).
        cid: i32,
        /// The console's flag mask.
        flags: i32,
        /// The command name.
        cmd: RawStr<'a>,
        /// The arguments.
        args: Args<'a>,
    },
    /// EX (-11): an extension message.
    Ex(Ex<'a>),
}

impl<'a> Message<'a> {
    /// The id the message starts with (the cid for PLAYER_DIFF).
    pub fn id(&self) -> i32 {
        match self {
            Message::PlayerDiff { cid, .. } => *cid,
            Message::Finish => id::FINISH,
            Message::TickSkip { .. } => id::TICK_SKIP,
            Message::PlayerNew { .. } => id::PLAYER_NEW,
            Message::PlayerOld { .. } => id::PLAYER_OLD,
            Message::InputDiff { .. } => id::INPUT_DIFF,
            Message::InputNew { .. } => id::INPUT_NEW,
            Message::NetMessage { .. } => id::MESSAGE,
            Message::Join { .. } => id::JOIN,
            Message::Drop { .. } => id::DROP,
            Message::ConsoleCommand { .. } => id::CONSOLE_COMMAND,
            Message::Ex(_) => id::EX,
        }
    }

    /// The name of the message's kind as the reference reader counts them: `"PLAYER_DIFF"`,
    /// `"TICK_SKIP"`, `"MESSAGE"`, ..., and for EX `"EX:"` with the extension's name (or its
    /// UUID when unknown), e.g. `"EX:teehistorian-player-name@ddnet.org"`.
    pub fn kind_name(&self) -> Cow<'static, str> {
        match self {
            Message::Ex(ex) => ex.kind_name(),
            other => Cow::Borrowed(id_name(other.id()).unwrap_or("PLAYER_DIFF")),
        }
    }

    /// The client id of a player record (PLAYER_DIFF, PLAYER_NEW, PLAYER_OLD): the records
    /// that advance the tick implicitly.
    pub fn player_record_cid(&self) -> Option<i32> {
        match *self {
            Message::PlayerDiff { cid, .. }
            | Message::PlayerNew { cid, .. }
            | Message::PlayerOld { cid } => Some(cid),
            _ => None,
        }
    }

    /// Decodes the message at the start of `input`.
    ///
    /// Never reads past what the message's own fields announce and never allocates: a size
    /// field larger than the input is a [`DecodeError::Incomplete`] error, not a buffer.
    #[inline]
    pub fn decode(input: &'a [u8]) -> Result<Decoded<'a>, DecodeError> {
        if let Some(window) = input.first_chunk::<INT_WINDOW>()
            && let Some(decoded) = decode_ints_only(window)
        {
            return Ok(decoded);
        }
        let mut c = Fields::new(input, "a message id");
        let id = c.int().map_err(|n| c.incomplete(n))?;
        c.expected = expected_whole(id);
        let message = decode_body(id, &mut c)?;
        Ok(Decoded {
            message,
            len: c.pos,
            non_canonical: c.non_canonical,
            cut_args: 0,
        })
    }

    /// Decodes a CONSOLE_COMMAND as DDNet's writer wrote it before minor version 9, when
    /// every record went through a packer of [`LEGACY_PACKER_SIZE`] bytes.
    ///
    /// A command line too long for it was cut: the argument that did not fit was kept up
    /// to the packer's end (at a character boundary, with its NUL), and the arguments after
    /// it were left out while the argument count still counted them. Read as usual, such a
    /// record would take the messages after it for its missing arguments. This reads the
    /// record to the end of the first argument that ends in the packer's last 4 bytes
    /// before the count is reached, which is where the old writer stopped.
    ///
    /// `None` when `input` does not start with such a record (another message, a command
    /// whose arguments all end within the packer, or one whose arguments do not end within
    /// it at all).
    pub fn decode_cut_console_command(input: &'a [u8]) -> Option<Decoded<'a>> {
        let window = &input[..input.len().min(LEGACY_PACKER_SIZE)];
        let mut c = Fields::new(window, "");
        if c.int().ok()? != id::CONSOLE_COMMAND {
            return None;
        }
        let cid = c.int().ok()?;
        let flags = c.int().ok()?;
        let cmd = c.str().ok()?;
        let count = usize::try_from(c.int().ok()?).ok()?;
        let start = c.pos;
        for present in 1..count {
            c.str().ok()?;
            if c.pos > LEGACY_PACKER_SIZE - 4 {
                let raw = &window[start..c.pos];
                return Some(Decoded {
                    message: Message::ConsoleCommand {
                        cid,
                        flags,
                        cmd,
                        args: Args(ArgsRepr::Packed {
                            raw,
                            count: present,
                        }),
                    },
                    len: c.pos,
                    non_canonical: c.non_canonical,
                    cut_args: u32::try_from(count - present).unwrap_or(u32::MAX),
                });
            }
        }
        None
    }

    /// Appends the message as DDNet writes it: canonical ints, NUL-terminated strings.
    ///
    /// On error `out` is left as it was.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        let result = self.encode_unchecked(out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    fn encode_unchecked(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match *self {
            Message::PlayerDiff { cid, dx, dy } => {
                if cid < 0 {
                    // A negative first int would be read as another message.
                    return Err(EncodeError::NegativePlayerDiffCid { cid });
                }
                put(out, [cid, dx, dy]);
            }
            Message::Finish => put(out, [id::FINISH]),
            Message::TickSkip { dt } => put(out, [id::TICK_SKIP, dt]),
            Message::PlayerNew { cid, x, y } => put(out, [id::PLAYER_NEW, cid, x, y]),
            Message::PlayerOld { cid } => put(out, [id::PLAYER_OLD, cid]),
            Message::InputDiff { cid, diff } => {
                put(out, [id::INPUT_DIFF, cid]);
                put(out, diff);
            }
            Message::InputNew { cid, input } => {
                put(out, [id::INPUT_NEW, cid]);
                put(out, input);
            }
            Message::NetMessage { cid, data } => {
                put(
                    out,
                    [id::MESSAGE, cid, len_int(data.len(), "MESSAGE data")?],
                );
                out.extend_from_slice(data);
            }
            Message::Join { cid } => put(out, [id::JOIN, cid]),
            Message::Drop { cid, reason } => {
                put(out, [id::DROP, cid]);
                put_str(out, reason, "DROP reason")?;
            }
            Message::ConsoleCommand {
                cid,
                flags,
                cmd,
                args,
            } => {
                put(out, [id::CONSOLE_COMMAND, cid, flags]);
                put_str(out, cmd, "console command")?;
                put(out, [len_int(args.len(), "console argument list")?]);
                match args.packed_bytes() {
                    // Already in file form (and checked to end with a NUL).
                    Some(raw) => out.extend_from_slice(raw),
                    None => {
                        for arg in args.iter() {
                            put_str(out, arg, "console argument")?;
                        }
                    }
                }
            }
            Message::Ex(ex) => {
                let start = out.len();
                ex.encode_payload(out)?;
                let size = len_int(out.len() - start, "EX payload")?;
                // The frame goes before the payload, whose size is known only now: append
                // it and rotate it into place rather than encode the payload twice.
                put(out, [id::EX]);
                let frame = ExFrame {
                    uuid: *ex.uuid().as_bytes(),
                    size,
                };
                write_layout(out, &frame);
                let frame_len = out.len() - start - size as usize;
                out[start..].rotate_right(frame_len);
            }
        }
        Ok(())
    }

    /// The number of bytes [`encode`](Self::encode) appends (found by encoding into a
    /// scratch vector).
    pub fn encoded_len(&self) -> Result<usize, EncodeError> {
        let mut buf = Vec::new();
        self.encode(&mut buf)?;
        Ok(buf.len())
    }
}

/// The INPUT_DIFF payload DDNet writes for a client whose input changes from `old` to
/// `new`: the difference per int, wrapping as DDNet's `CSnapshotDelta::DiffItem` does in
/// practice.
pub fn input_diff(old: &[i32; INPUT_INTS], new: &[i32; INPUT_INTS]) -> [i32; INPUT_INTS] {
    std::array::from_fn(|i| new[i].wrapping_sub(old[i]))
}

/// The input an INPUT_DIFF leads to from the client's previous input `old`.
pub fn apply_input_diff(old: &[i32; INPUT_INTS], diff: &[i32; INPUT_INTS]) -> [i32; INPUT_INTS] {
    std::array::from_fn(|i| old[i].wrapping_add(diff[i]))
}

/// The DDNet name of a message id (PLAYER_DIFF for ids ≥ 0), or `None` for unknown ids.
pub fn id_name(id: i32) -> Option<&'static str> {
    Some(match id {
        0.. => "PLAYER_DIFF",
        id::FINISH => "FINISH",
        id::TICK_SKIP => "TICK_SKIP",
        id::PLAYER_NEW => "PLAYER_NEW",
        id::PLAYER_OLD => "PLAYER_OLD",
        id::INPUT_DIFF => "INPUT_DIFF",
        id::INPUT_NEW => "INPUT_NEW",
        id::MESSAGE => "MESSAGE",
        id::JOIN => "JOIN",
        id::DROP => "DROP",
        id::CONSOLE_COMMAND => "CONSOLE_COMMAND",
        id::EX => "EX",
        _ => return None,
    })
}

/// What a truncation error says was expected, for a message that starts with `id`.
fn expected_whole(id: i32) -> &'static str {
    match id {
        0.. => "the rest of a PLAYER_DIFF message",
        id::FINISH => "a FINISH message",
        id::TICK_SKIP => "the rest of a TICK_SKIP message",
        id::PLAYER_NEW => "the rest of a PLAYER_NEW message",
        id::PLAYER_OLD => "the rest of a PLAYER_OLD message",
        id::INPUT_DIFF => "the rest of an INPUT_DIFF message",
        id::INPUT_NEW => "the rest of an INPUT_NEW message",
        id::MESSAGE => "the rest of a MESSAGE message",
        id::JOIN => "the rest of a JOIN message",
        id::DROP => "the rest of a DROP message",
        id::CONSOLE_COMMAND => "the rest of a CONSOLE_COMMAND message",
        id::EX => "the rest of an EX message",
        _ => "a message",
    }
}

#[inline(always)]
fn decode_body<'a>(id: i32, c: &mut Fields<'a>) -> Result<Message<'a>, DecodeError> {
    // Reads an int or turns a shortage into this message's truncation error.
    macro_rules! int {
        () => {
            c.int().map_err(|n| c.incomplete(n))?
        };
    }
    macro_rules! str_ {
        () => {
            c.str().map_err(|n| c.incomplete(n))?
        };
    }
    Ok(match id {
        cid @ 0.. => Message::PlayerDiff {
            cid,
            dx: int!(),
            dy: int!(),
        },
        id::FINISH => Message::Finish,
        id::TICK_SKIP => Message::TickSkip { dt: int!() },
        id::PLAYER_NEW => Message::PlayerNew {
            cid: int!(),
            x: int!(),
            y: int!(),
        },
        id::PLAYER_OLD => Message::PlayerOld { cid: int!() },
        id::INPUT_DIFF | id::INPUT_NEW => {
            let cid = int!();
            let mut ints = [0; INPUT_INTS];
            for slot in &mut ints {
                *slot = int!();
            }
            if id == id::INPUT_DIFF {
                Message::InputDiff { cid, diff: ints }
            } else {
                Message::InputNew { cid, input: ints }
            }
        }
        id::MESSAGE => {
            let cid = int!();
            let size = c.length("MESSAGE size")?;
            let data = c.bytes(size).map_err(|n| c.incomplete(n))?;
            Message::NetMessage { cid, data }
        }
        id::JOIN => Message::Join { cid: int!() },
        id::DROP => Message::Drop {
            cid: int!(),
            reason: str_!(),
        },
        id::CONSOLE_COMMAND => {
            let cid = int!();
            let flags = int!();
            let cmd = str_!();
            let count = c.length("CONSOLE_COMMAND argument count")?;
            let start = c.pos;
            // Each argument takes at least its NUL, so the loop ends with the input even for
            // a huge count.
            for _ in 0..count {
                str_!();
            }
            let raw = &c.input[start..c.pos];
            Message::ConsoleCommand {
                cid,
                flags,
                cmd,
                args: Args(ArgsRepr::Packed { raw, count }),
            }
        }
        id::EX => {
            let uuid = c.uuid().map_err(|n| c.incomplete(n))?;
            let size = c.length("EX size")?;
            let data = c.bytes(size).map_err(|n| c.incomplete(n))?;
            let (ex, non_canonical) = Ex::from_payload(uuid, data);
            c.non_canonical += non_canonical;
            Message::Ex(ex)
        }
        id => return Err(DecodeError::UnknownMessageId { id }),
    })
}

/// The packer every record went through in DDNet's teehistorian writer before minor
/// version 9 (and in version 1): a record never exceeded it, and a console command that did
/// not fit was cut ([`Message::decode_cut_console_command`]).
pub const LEGACY_PACKER_SIZE: usize = 2048;

/// Whether a file with this header was written with the 2 KiB packer
/// ([`LEGACY_PACKER_SIZE`]): version 1, or version 2 without a minor version or with one
/// below 9.
pub fn has_legacy_packer(version: &str, version_minor: Option<&str>) -> bool {
    match (version, version_minor) {
        ("1", _) | ("2", None) => true,
        ("2", Some(minor)) => minor.parse::<u32>().is_ok_and(|m| m < 9),
        _ => false,
    }
}

/// A message decoded from the front of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// The message.
    pub message: Message<'a>,
    /// Its length in bytes.
    pub len: usize,
    /// How many of its ints were not in the form DDNet writes (so re-encoding the message
    /// would give different bytes).
    pub non_canonical: u32,
    /// For a CONSOLE_COMMAND cut by DDNet's old 2 KiB packer
    /// ([`Message::decode_cut_console_command`]): how many of the arguments its count
    /// announces are missing (so re-encoding the message would give different bytes).
    pub cut_args: u32,
}

/// Why [`Message::decode`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ends inside the message.
    #[error("expected {expected}, but the input ends")]
    Incomplete {
        /// What was being read.
        expected: &'static str,
        /// The message's length if the part read so far already tells (a MESSAGE or EX
        /// payload); otherwise more input is needed to know.
        need: Option<usize>,
    },
    /// The id is below EX (-11): the message's length cannot be known.
    #[error("unknown message id {id}")]
    UnknownMessageId {
        /// The id.
        id: i32,
    },
    /// A size or count is negative.
    #[error("{what} is negative ({value})")]
    NegativeLength {
        /// The field.
        what: &'static str,
        /// Its value.
        value: i32,
    },
}

/// How much input a read that ran out needed: a total length when known.
#[derive(Debug, Clone, Copy)]
struct Need(Option<usize>);

/// A read position over a message's bytes that counts non-canonical ints.
struct Fields<'a> {
    input: &'a [u8],
    pos: usize,
    non_canonical: u32,
    expected: &'static str,
}

impl<'a> Fields<'a> {
    fn new(input: &'a [u8], expected: &'static str) -> Self {
        Fields {
            input,
            pos: 0,
            non_canonical: 0,
            expected,
        }
    }

    fn incomplete(&self, need: Need) -> DecodeError {
        DecodeError::Incomplete {
            expected: self.expected,
            need: need.0,
        }
    }

    /// Reads one int. Most ints in a recording are small diffs stored in one byte (always
    /// canonical), so that case comes first; a longer int with eight bytes left is decoded
    /// without further branches, and the end of the input goes through
    /// [`int_tail`](Self::int_tail).
    #[inline(always)]
    fn int(&mut self) -> Result<i32, Need> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        match rest.first_chunk::<8>() {
            Some(word) if word[0] & 0x80 == 0 => {
                let b = word[0];
                self.pos += 1;
                Ok(i32::from(b & 0x3F) ^ -i32::from((b >> 6) & 1))
            }
            Some(word) => {
                let (value, len, last) = varint::unpack_word(u64::from_le_bytes(*word));
                if !is_canonical_end(len, last) {
                    self.non_canonical += 1;
                }
                self.pos += len;
                Ok(value)
            }
            None => self.int_tail(),
        }
    }

    /// [`int`](Self::int) within the last eight bytes of the input.
    #[inline(never)]
    fn int_tail(&mut self) -> Result<i32, Need> {
        let rest = &self.input[self.pos..];
        let (value, len) = varint::unpack(rest).ok_or(Need(None))?;
        if !is_canonical_end(len, rest[len - 1]) {
            self.non_canonical += 1;
        }
        self.pos += len;
        Ok(value)
    }

    /// A size or count field: an int that must not be negative.
    fn length(&mut self, what: &'static str) -> Result<usize, DecodeError> {
        let value = self.int().map_err(|n| self.incomplete(n))?;
        usize::try_from(value).map_err(|_| DecodeError::NegativeLength { what, value })
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], Need> {
        let end = self.pos.saturating_add(n);
        let bytes = self.input.get(self.pos..end).ok_or(Need(Some(end)))?;
        self.pos = end;
        Ok(bytes)
    }

    fn uuid(&mut self) -> Result<Uuid, Need> {
        let bytes = self.bytes(16)?;
        Ok(Uuid::from_slice(bytes).unwrap_or_default())
    }

    fn str(&mut self) -> Result<RawStr<'a>, Need> {
        let rest = &self.input[self.pos..];
        let nul = rest.iter().position(|&b| b == 0).ok_or(Need(None))?;
        self.pos += nul + 1;
        Ok(RawStr(&rest[..nul]))
    }
}

/// Enough input for any message made only of ints (twelve ints of at most five bytes),
/// with room to load the last one as an eight-byte word.
pub(crate) const INT_WINDOW: usize = 64;

/// Ints read from a window known to hold the whole message, so no read can run out.
struct WindowInts<'w> {
    window: &'w [u8; INT_WINDOW],
    start: usize,
    non_canonical: u32,
}

impl<'w> WindowInts<'w> {
    #[inline(always)]
    fn new(window: &'w [u8; INT_WINDOW]) -> Self {
        WindowInts {
            window,
            start: 0,
            non_canonical: 0,
        }
    }

    /// The next int; never `None` for the twelve ints a message holds at most (the
    /// `Option` keeps the reads checked without a panic path).
    #[inline(always)]
    fn int(&mut self) -> Option<i32> {
        let word: &[u8; 8] = self.window.get(self.start..)?.first_chunk()?;
        let b = word[0];
        if b & 0x80 == 0 {
            // One byte: by far the most common int, and always canonical.
            self.start += 1;
            return Some(i32::from(b & 0x3F) ^ -i32::from((b >> 6) & 1));
        }
        let (value, len, last) = varint::unpack_word(u64::from_le_bytes(*word));
        if !is_canonical_end(len, last) {
            self.non_canonical += 1;
        }
        self.start += len;
        Some(value)
    }
}

/// The messages that hold only ints (players, inputs, ticks, joins, FINISH), decoded from a
/// window that is sure to hold them: the common case of the body, without the end-of-input
/// checks of [`Fields`]. Other messages give `None` and take the general path.
#[inline(always)]
pub(crate) fn decode_ints_only(window: &[u8; INT_WINDOW]) -> Option<Decoded<'static>> {
    let mut c = WindowInts::new(window);
    let message = match c.int()? {
        cid @ 0.. => Message::PlayerDiff {
            cid,
            dx: c.int()?,
            dy: c.int()?,
        },
        id @ (id::INPUT_DIFF | id::INPUT_NEW) => {
            let cid = c.int()?;
            // Spelled out rather than a loop over a zeroed array, so the ints are stored
            // once, in place, instead of element by element and then copied.
            let ints = [
                c.int()?,
                c.int()?,
                c.int()?,
                c.int()?,
                c.int()?,
                c.int()?,
                c.int()?,
                c.int()?,
                c.int()?,
                c.int()?,
            ];
            if id == id::INPUT_DIFF {
                Message::InputDiff { cid, diff: ints }
            } else {
                Message::InputNew { cid, input: ints }
            }
        }
        id::TICK_SKIP => Message::TickSkip { dt: c.int()? },
        id::PLAYER_NEW => Message::PlayerNew {
            cid: c.int()?,
            x: c.int()?,
            y: c.int()?,
        },
        id::PLAYER_OLD => Message::PlayerOld { cid: c.int()? },
        id::JOIN => Message::Join { cid: c.int()? },
        id::FINISH => Message::Finish,
        _ => return None,
    };
    Some(Decoded {
        message,
        len: c.start,
        non_canonical: c.non_canonical,
        cut_args: 0,
    })
}

/// Whether an int of `len` bytes ending in `last` is in the form DDNet writes: a longer int
/// must carry value bits in its last byte (else a shorter form would hold it), and a fifth
/// byte nothing else. The same rule as [`varint::is_canonical`],
/// from the last byte.
#[inline(always)]
fn is_canonical_end(len: usize, last: u8) -> bool {
    match len {
        1 => true,
        varint::MAX_BYTES => last & 0x0F != 0 && last & 0xF0 == 0,
        _ => last & 0x7F != 0,
    }
}

/// Appends ints in canonical form through their binrw layout.
fn put<const N: usize>(out: &mut Vec<u8>, ints: [i32; N]) {
    write_layout(out, &VarInts { ints });
}

/// Appends a binrw layout to a vector.
fn write_layout<T>(out: &mut Vec<u8>, layout: &T)
where
    T: for<'b> BinWrite<Args<'b> = ()>,
{
    let mut cursor = std::io::Cursor::new(out);
    cursor.set_position(cursor.get_ref().len() as u64);
    // Writing to a vector cannot fail; a failure could only come from a broken layout.
    layout
        .write_le(&mut cursor)
        .expect("writing a layout to a Vec");
}

fn put_str(out: &mut Vec<u8>, s: RawStr<'_>, what: &'static str) -> Result<(), EncodeError> {
    if s.0.contains(&0) {
        return Err(EncodeError::NulInString { what });
    }
    out.extend_from_slice(s.0);
    out.push(0);
    Ok(())
}

fn len_int(len: usize, what: &'static str) -> Result<i32, EncodeError> {
    i32::try_from(len).map_err(|_| EncodeError::TooLong { what, len })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::uuid::teeworlds_uuid;

    #[test]
    fn ex_uuids_are_uuid3_of_their_names() {
        assert_eq!(ExKind::ALL.len(), 21);
        for &kind in ExKind::ALL {
            assert_eq!(kind.uuid(), teeworlds_uuid(kind.name()), "{kind:?}");
            assert_eq!(ExKind::from_uuid(kind.uuid()), Some(kind));
            assert_eq!(kind.kind_name(), format!("EX:{}", kind.name()));
        }
    }

    fn round_trip(bytes: &[u8], expected: Message<'_>) {
        let d = Message::decode(bytes).unwrap();
        assert_eq!(d.message, expected);
        assert_eq!(d.len, bytes.len());
        assert_eq!(d.non_canonical, 0);
        let mut out = Vec::new();
        expected.encode(&mut out).unwrap();
        assert_eq!(out, bytes);
        // Every proper prefix is incomplete.
        for cut in 0..bytes.len() {
            assert!(
                matches!(
                    Message::decode(&bytes[..cut]),
                    Err(DecodeError::Incomplete { .. })
                ),
                "{expected:?} cut at {cut}"
            );
        }
    }

    #[test]
    fn reference_body_messages() {
        // The body of the conformance reference file, message by message.
        let mut joinver6 = vec![0x4a];
        joinver6.extend_from_slice(ExKind::JoinVer6.uuid().as_bytes());
        joinver6.extend_from_slice(&[0x01, 0x00]);
        round_trip(&joinver6, Message::Ex(Ex::JoinVer6 { cid: 0 }));
        round_trip(&[0x47, 0x00], Message::Join { cid: 0 });
        let mut name = vec![0x4a];
        name.extend_from_slice(ExKind::PlayerName.uuid().as_bytes());
        name.extend_from_slice(b"\x0e\x00nameless tee\x00");
        round_trip(
            &name,
            Message::Ex(Ex::PlayerName {
                cid: 0,
                name: "nameless tee".into(),
            }),
        );
        round_trip(
            &[0x42, 0x00, 0xa4, 0x01, 0x88, 0x03],
            Message::PlayerNew {
                cid: 0,
                x: 100,
                y: 200,
            },
        );
        round_trip(
            &[0x45, 0x00, 0x01, 0x0a, 0x53, 0, 0, 0, 0, 0, 0, 0],
            Message::InputNew {
                cid: 0,
                input: [1, 10, -20, 0, 0, 0, 0, 0, 0, 0],
            },
        );
        round_trip(
            &[0x00, 0x03, 0x00],
            Message::PlayerDiff {
                cid: 0,
                dx: 3,
                dy: 0,
            },
        );
        round_trip(
            &[0x44, 0x00, 0x40, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0],
            Message::InputDiff {
                cid: 0,
                diff: [-1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
            },
        );
        round_trip(&[0x41, 0x07], Message::TickSkip { dt: 7 });
        round_trip(&[0x43, 0x00], Message::PlayerOld { cid: 0 });
        round_trip(
            b"\x48\x00bye\x00",
            Message::Drop {
                cid: 0,
                reason: "bye".into(),
            },
        );
        round_trip(&[0x40], Message::Finish);
    }

    #[test]
    fn console_command_and_message() {
        // The first message of the DDNet 11.0.1 file after its TICK_SKIP.
        let bytes = b"\x49\x40\x24record\x00\x01fixture_dm1\x00";
        let list: &[&[u8]] = &[b"fixture_dm1"];
        round_trip(
            bytes,
            Message::ConsoleCommand {
                cid: -1,
                flags: 36,
                cmd: "record".into(),
                args: Args::list(list),
            },
        );
        round_trip(
            &[0x46, 0x00, 0x03, 1, 2, 3],
            Message::NetMessage {
                cid: 0,
                data: &[1, 2, 3],
            },
        );
        assert_eq!(
            Message::decode(&[0x46, 0x00, 0x0a, 1]),
            Err(DecodeError::Incomplete {
                expected: "the rest of a MESSAGE message",
                need: Some(13)
            })
        );
        assert_eq!(
            Message::decode(&[0x46, 0x00, 0x41]),
            Err(DecodeError::NegativeLength {
                what: "MESSAGE size",
                value: -2
            })
        );
        assert_eq!(
            Message::decode(&[0x4b]),
            Err(DecodeError::UnknownMessageId { id: -12 })
        );
    }

    #[test]
    fn non_canonical_ints_are_counted() {
        let d = Message::decode(&[0x80, 0x00, 0x81, 0x00, 0x00]).unwrap();
        assert_eq!(
            d.message,
            Message::PlayerDiff {
                cid: 0,
                dx: 1,
                dy: 0
            }
        );
        assert_eq!((d.len, d.non_canonical), (5, 2));
        // Inside a typed EX payload too.
        let mut ex = vec![0x4a];
        ex.extend_from_slice(ExKind::JoinVer7.uuid().as_bytes());
        ex.extend_from_slice(&[0x02, 0x85, 0x00]);
        let d = Message::decode(&ex).unwrap();
        assert_eq!(d.message, Message::Ex(Ex::JoinVer7 { cid: 5 }));
        assert_eq!(d.non_canonical, 1);
    }

    #[test]
    fn malformed_known_ex_payload_stays_raw() {
        let uuid = ExKind::PlayerName.uuid();
        // No NUL after the name.
        let (ex, _) = Ex::from_payload(uuid, b"\x00abc");
        assert_eq!(
            ex,
            Ex::Unknown {
                uuid,
                data: b"\x00abc"
            }
        );
        assert_eq!(ex.kind(), Some(ExKind::PlayerName));
        assert_eq!(ex.kind_name(), "EX:teehistorian-player-name@ddnet.org");
        // Trailing bytes after a complete payload.
        let (ex, _) = Ex::from_payload(ExKind::Test.uuid(), b"x");
        assert!(matches!(ex, Ex::Unknown { .. }));
        let other = Uuid::from_u128(1);
        let (ex, _) = Ex::from_payload(other, b"");
        assert_eq!(ex.kind_name(), "EX:00000000-0000-0000-0000-000000000001");
    }

    #[test]
    fn encoder_refuses_what_cannot_be_read_back() {
        let mut out = vec![7];
        assert_eq!(
            Message::Drop {
                cid: 0,
                reason: RawStr(b"a\0b")
            }
            .encode(&mut out),
            Err(EncodeError::NulInString {
                what: "DROP reason"
            })
        );
        assert_eq!(out, [7]);
        assert!(
            Message::PlayerDiff {
                cid: -1,
                dx: 0,
                dy: 0
            }
            .encode(&mut out)
            .is_err()
        );
    }

    #[test]
    fn input_diffs_wrap() {
        let old = [1, 10, -20, 0, 0, 0, 0, 0, 0, i32::MIN];
        let new = [0, 10, -20, 1, 0, 0, 0, 0, 0, i32::MAX];
        let diff = input_diff(&old, &new);
        assert_eq!(diff, [-1, 0, 0, 1, 0, 0, 0, 0, 0, -1]);
        assert_eq!(apply_input_diff(&old, &diff), new);
    }

    #[test]
    fn args_forms_compare_equal() {
        let list: &[&[u8]] = &[b"a", b"", b"bc"];
        let packed = Args::packed(b"a\0\0bc\0").unwrap();
        assert_eq!(packed, Args::list(list));
        assert_eq!(packed.len(), 3);
        assert!(Args::packed(b"a").is_none());
        assert_eq!(Args::packed(b"").unwrap(), Args::EMPTY);
    }

    #[test]
    fn kind_names() {
        assert_eq!(
            Message::PlayerDiff {
                cid: 3,
                dx: 0,
                dy: 0
            }
            .kind_name(),
            "PLAYER_DIFF"
        );
        assert_eq!(Message::TickSkip { dt: 0 }.kind_name(), "TICK_SKIP");
        assert_eq!(
            Message::NetMessage { cid: 0, data: &[] }.kind_name(),
            "MESSAGE"
        );
        assert_eq!(
            Message::Ex(Ex::PlayerReady { cid: 0 }).kind_name(),
            "EX:teehistorian-player-ready@ddnet.tw"
        );
    }
}
