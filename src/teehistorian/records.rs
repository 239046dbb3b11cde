//! The one description of every teehistorian message and extension (EX) record: its name,
//! id or UUID, and its fields in file order with the encoding of each.
//!
//! Nothing here is code. The two tables are handed to macros that build everything else from
//! them: the zero-copy views [`Message`](super::Message), [`Ex`](super::Ex) and
//! [`ExKind`](super::ExKind) with the fast decoder and the checks of the encoder
//! ([`message`](super::message)), and the declarative binrw layouts with their serde forms
//! ([`layout`](super::layout)), through which every message is written. A new record is one
//! entry here.
//!
//! Field encodings:
//!
//! | encoding | in the file | view type | layout type |
//! |---|---|---|---|
//! | `int` | one variable-width int | `i32` | `i32` |
//! | `input` | [`INPUT_INTS`](super::format::INPUT_INTS) variable-width ints | `[i32; 10]` | `[i32; 10]` |
//! | `uuid` | 16 bytes | [`Uuid`](uuid::Uuid) | [`Uuid`](uuid::Uuid) |
//! | `str` | bytes up to a NUL | [`NulStr<&[u8]>`](crate::codec::string::NulStr) | [`NulStr<Cow<[u8]>>`](crate::codec::string::NulStr) |
//! | `bytes` | an int size, then that many bytes | `&[u8]` | [`Bytes`](crate::codec::string::Bytes) |
//! | `args` | an int count, then that many `str` | [`Args`](super::Args) | [`StrList`](super::layout::StrList) |
//! | `rest` | every byte to the end of the EX payload | `&[u8]` | [`Bytes`](crate::codec::string::Bytes) |
//! | `role` | an `int` level, or a `str` role name when a second NUL follows in the EX payload | [`AuthRole<&[u8]>`](super::AuthRole) | [`AuthRole<Cow<[u8]>>`](super::AuthRole) |
//!
//! Two messages are not in the table because their frame is not "id, then fields":
//! PLAYER_DIFF, whose id is the client id, and EX, whose payload is one of the EX records
//! behind a UUID and a size. The macros describe those two once each.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

/// Calls `$callback!` with the table of messages that start with a fixed negative id.
///
/// Each entry: doc comment, variant name, `<'a>` when a field borrows, the constant in
/// [`id`](super::format::id), DDNet's name of the message, and the fields (none: `;`).
macro_rules! message_records {
    ($callback:ident) => {
        $callback! {
            /// FINISH (-1): the end of the file.
            Finish = FINISH, "FINISH";
            /// TICK_SKIP (-2): the next tick is the last one plus `dt + 1`.
            TickSkip = TICK_SKIP, "TICK_SKIP" {
                /// Ticks skipped without any record.
                dt: int,
            }
            /// PLAYER_NEW (-3): a character appeared at (x, y).
            PlayerNew = PLAYER_NEW, "PLAYER_NEW" {
                /// Client id.
                cid as "client_id": int,
                /// Position x.
                x: int,
                /// Position y.
                y: int,
            }
            /// PLAYER_OLD (-4): a character disappeared.
            PlayerOld = PLAYER_OLD, "PLAYER_OLD" {
                /// Client id.
                cid as "client_id": int,
            }
            /// INPUT_DIFF (-5): an input, as the wrapping difference to the previous one.
            InputDiff = INPUT_DIFF, "INPUT_DIFF" {
                /// Client id.
                cid as "client_id": int,
                /// New input minus old input, per int (wrapping).
                diff: input,
            }
            /// INPUT_NEW (-6): an input recorded whole.
            InputNew = INPUT_NEW, "INPUT_NEW" {
                /// Client id.
                cid as "client_id": int,
                /// The input ints.
                input: input,
            }
            /// MESSAGE (-7): a packed network message a client sent.
            NetMessage<'a> = MESSAGE, "MESSAGE" {
                /// Client id.
                cid as "client_id": int,
                /// The packed message (starting with the int `(msgid << 1) | sys`).
                data: bytes,
            }
            /// JOIN (-8): a client joined.
            Join = JOIN, "JOIN" {
                /// Client id.
                cid as "client_id": int,
            }
            /// DROP (-9): a client left or was dropped.
            Drop<'a> = DROP, "DROP" {
                /// Client id.
                cid as "client_id": int,
                /// The reason.
                reason: str,
            }
            /// CONSOLE_COMMAND (-10): a console command was executed.
            ConsoleCommand<'a> = CONSOLE_COMMAND, "CONSOLE_COMMAND" {
                /// Client id (-1 for the server itself).
                cid as "client_id": int,
                /// The console's flag mask.
                flags: int,
                /// The command name.
                cmd: str,
                /// The arguments.
                args: args,
            }
        }
    };
}

/// Calls `$callback!` with the table of the 22 extension records: the 21 DDNet 20.1 defines
/// (`teehistorian_ex_chunks.h`, in its order), and AUTH_INIT_ROLE, which DDNet #12788 added
/// after AUTH_INIT.
///
/// Each entry: doc comment, variant name, `<'a>` when a field borrows, the extension's name,
/// its UUID (uuid3 of the name in the Teeworlds namespace; a test recomputes every one), and
/// the payload's fields (none: `;`).
macro_rules! ex_records {
    ($callback:ident) => {
        $callback! {
            /// `teehistorian-test@ddnet.tw`: written by DDNet's tests; empty payload.
            Test = "teehistorian-test@ddnet.tw", 0x6bb8ba88_0f0b_382e_8dae_dbf4052b8b7d;
            /// `teehistorian-ddnetver-old@ddnet.tw`: a client's DDNet version (old clients).
            DdnetVersionOld = "teehistorian-ddnetver-old@ddnet.tw",
                0x41b49541_f26f_325d_8715_9baf4b544ef9 {
                /// Client id.
                cid as "client_id": int,
                /// DDNet version number, e.g. 16050.
                ddnet_version: int,
            }
            /// `teehistorian-ddnetver@ddnet.tw`: a client's DDNet version.
            DdnetVersion<'a> = "teehistorian-ddnetver@ddnet.tw",
                0x1397b63e_ee4e_3919_b86a_b058887fcaf5 {
                /// Client id.
                cid as "client_id": int,
                /// The connection's UUID.
                connection_id: uuid,
                /// DDNet version number.
                ddnet_version: int,
                /// Version string.
                version_str: str,
            }
            /// `teehistorian-auth-init@ddnet.tw`: a client authenticated at start (e.g. by
            /// key).
            AuthInit<'a> = "teehistorian-auth-init@ddnet.tw",
                0x60daba5c_52c4_3aeb_b8ba_b2953fb55a17 {
                /// Client id.
                cid as "client_id": int,
                /// Authentication level.
                level: int,
                /// Account name.
                auth_name: str,
            }
            /// `teehistorian-auth-init-role@ddnet.tw`: a client authenticated at start,
            /// its rcon role by name (DDNet #12788, September 2026; replaces AUTH_INIT).
            AuthInitRole<'a> = "teehistorian-auth-init-role@ddnet.tw",
                0x463bb09f_ee44_3911_a899_fd05e733e198 {
                /// Client id.
                cid as "client_id": int,
                /// The rcon role's name (`admin`, `moderator`, `helper`, or a server's own).
                role: str,
                /// Account name.
                auth_name: str,
            }
            /// `teehistorian-auth-login@ddnet.tw`: a client logged in to rcon, at a level
            /// (DDNet up to 20.x) or a role by name (DDNet #12788).
            AuthLogin<'a> = "teehistorian-auth-login@ddnet.tw",
                0x37ecd3b8_9218_3bb9_a71b_a935b86f6a81 {
                /// Client id.
                cid as "client_id": int,
                /// Authentication level or role.
                role: role,
                /// Account name.
                auth_name: str,
            }
            /// `teehistorian-auth-logout@ddnet.tw`: a client logged out of rcon.
            AuthLogout = "teehistorian-auth-logout@ddnet.tw",
                0xd4f5abe8_edd2_3fb9_abd8_1c8bb84f4a63 {
                /// Client id.
                cid as "client_id": int,
            }
            /// `teehistorian-joinver6@ddnet.tw`: the next JOIN is a 0.6 client.
            JoinVer6 = "teehistorian-joinver6@ddnet.tw", 0x1899a382_71e3_36da_937d_c9de6bb95b1d {
                /// Client id.
                cid as "client_id": int,
            }
            /// `teehistorian-joinver7@ddnet.tw`: the next JOIN is a 0.7 client.
            JoinVer7 = "teehistorian-joinver7@ddnet.tw", 0x59239b05_0540_318d_bea4_9aa1e80e7d2b {
                /// Client id.
                cid as "client_id": int,
            }
            /// `teehistorian-player-swap@ddnet.tw`: two players swapped places.
            PlayerSwitch = "teehistorian-player-swap@ddnet.tw",
                0x5de9b633_49cf_3e99_9a25_d4a78e9717d7 {
                /// First client id.
                cid1 as "client_id1": int,
                /// Second client id.
                cid2 as "client_id2": int,
            }
            /// `teehistorian-save-success@ddnet.tw`: a team was saved.
            SaveSuccess<'a> = "teehistorian-save-success@ddnet.tw",
                0x4560c756_da29_3036_81d4_90a50f0182cd {
                /// Team.
                team: int,
                /// The save's UUID.
                save_id: uuid,
                /// The serialized save.
                team_save: str,
            }
            /// `teehistorian-save-failure@ddnet.tw`: saving a team failed.
            SaveFailure = "teehistorian-save-failure@ddnet.tw",
                0xb29901d5_1244_3bd0_bbde_23d04b1f7ba9 {
                /// Team.
                team: int,
            }
            /// `teehistorian-load-success@ddnet.tw`: a team was loaded.
            LoadSuccess<'a> = "teehistorian-load-success@ddnet.tw",
                0xe05408d3_a313_33df_9eb3_ddb990ab954a {
                /// Team.
                team: int,
                /// The save's UUID.
                save_id: uuid,
                /// The serialized save.
                team_save: str,
            }
            /// `teehistorian-load-failure@ddnet.tw`: loading a team failed.
            LoadFailure = "teehistorian-load-failure@ddnet.tw",
                0xef8905a2_c695_3591_a1cd_53d2015992dd {
                /// Team.
                team: int,
            }
            /// `teehistorian-player-team@ddnet.tw`: a player's team changed.
            PlayerTeam = "teehistorian-player-team@ddnet.tw",
                0xa111c04e_1ea8_38e0_90b1_d7f993ca0da9 {
                /// Client id.
                cid as "client_id": int,
                /// New team.
                team: int,
            }
            /// `teehistorian-team-practice@ddnet.tw`: a team's practice mode changed.
            TeamPractice = "teehistorian-team-practice@ddnet.tw",
                0x5792834e_81d1_34c9_a29b_b5ff25dac3bc {
                /// Team.
                team: int,
                /// 1 in practice mode, 0 not (kept as written).
                practice: int,
            }
            /// `teehistorian-player-ready@ddnet.tw`: a player became ready.
            PlayerReady = "teehistorian-player-ready@ddnet.tw",
                0x638587c9_3f75_3887_918e_a3c2614ffaa0 {
                /// Client id.
                cid as "client_id": int,
            }
            /// `teehistorian-rejoinver6@ddnet.org`: a 0.6 client rejoined.
            PlayerRejoin = "teehistorian-rejoinver6@ddnet.org",
                0xc1e921d5_96f5_37bb_8a45_7a06f163d27e {
                /// Client id.
                cid as "client_id": int,
            }
            /// `teehistorian-antibot@ddnet.org`: opaque antibot data.
            Antibot<'a> = "teehistorian-antibot@ddnet.org", 0x866bfdac_fb49_3c0b_a887_5fe1f3ea00b8 {
                /// The payload.
                data: rest,
            }
            /// `teehistorian-player-name@ddnet.org`: a player's name.
            PlayerName<'a> = "teehistorian-player-name@ddnet.org",
                0xd016f9b9_4151_3b87_87e5_3a6087eb5f26 {
                /// Client id.
                cid as "client_id": int,
                /// The name.
                name: str,
            }
            /// `teehistorian-player-finish@ddnet.org`: a player finished the race.
            PlayerFinish = "teehistorian-player-finish@ddnet.org",
                0x68943c01_2348_3e01_9490_3f27f8269d94 {
                /// Client id.
                cid as "client_id": int,
                /// Race time in ticks.
                time: int,
            }
            /// `teehistorian-team-finish@ddnet.org`: a team finished the race.
            TeamFinish = "teehistorian-team-finish@ddnet.org",
                0x9588b9af_3fdc_3760_8043_82deeee317a5 {
                /// Team.
                team: int,
                /// Race time in ticks.
                time: int,
            }
        }
    };
}
