//! Protocol profiles: how one game's build lays out the frames of the common container.
//!
//! Three things vary (checked on 34 real files, see `the corpus's conformance/source-dem.md`):
//! the command numbers above 7, how many 76-byte view-info blocks a signon or packet frame
//! carries (one per split screen), and whether each frame header ends in a player-slot
//! byte. The header says most of it; where it cannot, [`Profile::detect`] tries the
//! candidates on the first frames.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::format::{HEADER_SIZE, Header};

/// What a frame does; the number it is stored as depends on the [`CommandTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum Command {
    /// `dem_signon`: a network packet recorded while connecting.
    Signon,
    /// `dem_packet`: a network packet.
    Packet,
    /// `dem_synctick`: the client syncs its clock to the demo here.
    SyncTick,
    /// `dem_consolecmd`: a console command.
    ConsoleCmd,
    /// `dem_usercmd`: one user input command.
    UserCmd,
    /// `dem_datatables`: the send and class tables.
    DataTables,
    /// `dem_stop`: the end of the recording.
    Stop,
    /// `dem_customdata` (demo protocol 4): data for a registered callback.
    CustomData,
    /// `dem_stringtables`: a snapshot of the string tables.
    StringTables,
}

impl Command {
    /// Every command, in the order counts are reported.
    pub const ALL: [Command; 9] = [
        Command::Signon,
        Command::Packet,
        Command::SyncTick,
        Command::ConsoleCmd,
        Command::UserCmd,
        Command::DataTables,
        Command::Stop,
        Command::CustomData,
        Command::StringTables,
    ];

    /// The name used in counts and dumps: "signon", "packet", "synctick", ...
    pub const fn name(self) -> &'static str {
        match self {
            Command::Signon => "signon",
            Command::Packet => "packet",
            Command::SyncTick => "synctick",
            Command::ConsoleCmd => "consolecmd",
            Command::UserCmd => "usercmd",
            Command::DataTables => "datatables",
            Command::Stop => "stop",
            Command::CustomData => "customdata",
            Command::StringTables => "stringtables",
        }
    }
}

/// Which numbers the commands have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum CommandTable {
    /// The oldest builds (network protocol below 14, e.g. HL2 old engine at 7): 1 to 7 only.
    Classic,
    /// Demo protocol 3 from network protocol 14 on (TF2, Portal 1, HL2 Steampipe):
    /// 8 = stringtables.
    StringTables8,
    /// Demo protocol 4 (L4D, Portal 2, CS:GO): 8 = customdata, 9 = stringtables.
    CustomData8StringTables9,
}

impl CommandTable {
    /// The command stored as `number`, if this table has one.
    pub const fn command(self, number: u8) -> Option<Command> {
        Some(match (number, self) {
            (1, _) => Command::Signon,
            (2, _) => Command::Packet,
            (3, _) => Command::SyncTick,
            (4, _) => Command::ConsoleCmd,
            (5, _) => Command::UserCmd,
            (6, _) => Command::DataTables,
            (7, _) => Command::Stop,
            (8, CommandTable::StringTables8) => Command::StringTables,
            (8, CommandTable::CustomData8StringTables9) => Command::CustomData,
            (9, CommandTable::CustomData8StringTables9) => Command::StringTables,
            _ => return None,
        })
    }

    /// The number `command` is stored as, if this table has it.
    pub const fn number(self, command: Command) -> Option<u8> {
        Some(match (command, self) {
            (Command::Signon, _) => 1,
            (Command::Packet, _) => 2,
            (Command::SyncTick, _) => 3,
            (Command::ConsoleCmd, _) => 4,
            (Command::UserCmd, _) => 5,
            (Command::DataTables, _) => 6,
            (Command::Stop, _) => 7,
            (Command::StringTables, CommandTable::StringTables8) => 8,
            (Command::CustomData, CommandTable::CustomData8StringTables9) => 8,
            (Command::StringTables, CommandTable::CustomData8StringTables9) => 9,
            _ => return None,
        })
    }
}

/// How a file's frames are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Profile {
    /// View-info blocks per signon/packet frame: 1, 2 or 4.
    pub view_splits: u8,
    /// Whether every frame header (the stop command's included) ends in a player-slot byte.
    pub slot_byte: bool,
    /// The command numbering.
    pub commands: CommandTable,
}

/// Where a [`Profile`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ProfileOrigin {
    /// The header's demo protocol, network protocol and game directory decide it.
    Header,
    /// The header left it open; the first frames decided it.
    Detected,
    /// The header left it open and no candidate fit the first frames better than the
    /// header's best guess, which is used.
    Guessed,
    /// The caller chose it.
    Given,
}

/// Game directories of demo protocol 4 known to record two view splits.
const TWO_SPLIT_GAMES: [&str; 8] = [
    "portal2",
    "revolution",
    "csgo",
    "portalreloaded",
    "portal_stories",
    "twtm",
    "aperturetag",
    "p2ce",
];

impl Profile {
    /// The profile of demo protocol 3 and the Source 2013 games (TF2, HL2, Portal 1).
    pub const SOURCE_2013: Profile = Profile {
        view_splits: 1,
        slot_byte: false,
        commands: CommandTable::StringTables8,
    };

    /// The profile of Portal 2 and CS:GO (demo protocol 4, two splits).
    pub const PORTAL2: Profile = Profile {
        view_splits: 2,
        slot_byte: true,
        commands: CommandTable::CustomData8StringTables9,
    };

    /// The profile of Left 4 Dead 1 and 2 (demo protocol 4, four splits).
    pub const LEFT4DEAD: Profile = Profile {
        view_splits: 4,
        slot_byte: true,
        commands: CommandTable::CustomData8StringTables9,
    };

    /// The profile the header points to, and whether the header settles it.
    pub fn from_header(header: &Header) -> (Profile, bool) {
        let game = header.game_dir.to_string_lossy().to_ascii_lowercase();
        match header.demo_protocol {
            4.. => {
                if game.starts_with("left4dead") {
                    (Profile::LEFT4DEAD, true)
                } else {
                    let known = TWO_SPLIT_GAMES.contains(&game.as_str());
                    (Profile::PORTAL2, known)
                }
            }
            3 => {
                let commands = if header.network_protocol < 14 {
                    CommandTable::Classic
                } else {
                    CommandTable::StringTables8
                };
                (
                    Profile {
                        commands,
                        ..Profile::SOURCE_2013
                    },
                    true,
                )
            }
            // Demo protocol 2 (no sample known) or nonsense: the 2007 layout is the guess.
            _ => (Profile::SOURCE_2013, false),
        }
    }

    /// The profile for a file: from the header when it settles it, otherwise the candidate
    /// whose first frames parse best (see [`probe`](Self::probe)), the header's guess first.
    pub fn detect(header: &Header, file: &[u8]) -> (Profile, ProfileOrigin) {
        let (guess, settled) = Profile::from_header(header);
        if settled {
            return (guess, ProfileOrigin::Header);
        }
        let mut best = (guess, guess.probe(header, file));
        for candidate in Profile::candidates() {
            let score = candidate.probe(header, file);
            if score > best.1 {
                best = (candidate, score);
            }
        }
        if best.0 == guess {
            (guess, ProfileOrigin::Guessed)
        } else {
            (best.0, ProfileOrigin::Detected)
        }
    }

    /// Every profile [`detect`](Self::detect) tries.
    pub fn candidates() -> impl Iterator<Item = Profile> {
        let tables = [
            CommandTable::CustomData8StringTables9,
            CommandTable::StringTables8,
            CommandTable::Classic,
        ];
        [1u8, 2, 4].into_iter().flat_map(move |view_splits| {
            [false, true].into_iter().flat_map(move |slot_byte| {
                tables.into_iter().map(move |commands| Profile {
                    view_splits,
                    slot_byte,
                    commands,
                })
            })
        })
    }

    /// How well the first frames of `file` fit this profile: the number of frames (up to
    /// 64) that parse in a row, plus a bonus when the first synctick sits where the
    /// header's `signon_length` says, or the stop command ends the file.
    pub fn probe(&self, header: &Header, file: &[u8]) -> u32 {
        self.probe_prefix(header, file, true).0
    }

    /// [`probe`](Self::probe) over the first part of a file (`at_end`: whether `prefix` is
    /// the whole file); also says whether the probe ran out of input, i.e. whether more of
    /// the file could change the score.
    pub(crate) fn probe_prefix(&self, header: &Header, prefix: &[u8], at_end: bool) -> (u32, bool) {
        use super::reader::{Step, step};
        let mut pos = HEADER_SIZE;
        let mut score = 0;
        for _ in 0..64 {
            let Some(rest) = prefix.get(pos..) else { break };
            match step(self, rest, at_end) {
                Step::Frame { frame, len } => {
                    score += 1;
                    if frame.command() == Command::SyncTick {
                        let expected = HEADER_SIZE as i64 + i64::from(header.signon_length);
                        if header.signon_length > 0 && pos as i64 == expected {
                            score += 64;
                        }
                    }
                    if frame.command() == Command::Stop {
                        score += 64;
                        break;
                    }
                    pos += len;
                }
                Step::NeedMore(_) => return (score, true),
                Step::Fail(_) => break,
            }
        }
        (score, false)
    }
}

/// The seconds per tick a game records at, from its game directory, and whether the game
/// is known: Source 2013 games (TF2, HL2, Portal 1, CS:S, DoD:S) 0.015, Left 4 Dead 1/30,
/// Portal 2 and its mods 1/60, CS:GO 1/64 (its matchmaking rate; servers may run 128).
/// An unknown game gets 0.015, the engine's default, with `false`.
pub fn tick_interval(game_dir: &str) -> (f32, bool) {
    let game = game_dir.to_ascii_lowercase();
    let known = match game.as_str() {
        "tf" | "tf2" | "hl2" | "hl2oe" | "hl2mp" | "hl1" | "hl1mp" | "episodic" | "ep2"
        | "lostcoast" | "portal" | "cstrike" | "dod" | "garrysmod" => Some(0.015),
        "left4dead" | "left4dead2" => Some(1.0 / 30.0),
        "csgo" => Some(1.0 / 64.0),
        g if TWO_SPLIT_GAMES.contains(&g) => Some(1.0 / 60.0),
        _ => None,
    };
    match known {
        Some(interval) => (interval, true),
        None => (0.015, false),
    }
}

/// The header's `playback_time` for `ticks` at `interval`, computed as the engine does (one
/// 32-bit float multiplication).
pub fn playback_time(ticks: i32, interval: f32) -> f32 {
    interval * ticks as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_inverse() {
        for table in [
            CommandTable::Classic,
            CommandTable::StringTables8,
            CommandTable::CustomData8StringTables9,
        ] {
            for n in 0..=255u8 {
                if let Some(c) = table.command(n) {
                    assert_eq!(table.number(c), Some(n));
                }
            }
            for c in Command::ALL {
                if let Some(n) = table.number(c) {
                    assert_eq!(table.command(n), Some(c));
                }
            }
        }
        assert_eq!(CommandTable::Classic.command(8), None);
    }

    #[test]
    fn header_rules() {
        let h = |demo, net, game| Header::new(demo, net, "", "", "", game);
        assert_eq!(
            Profile::from_header(&h(3, 24, "tf")),
            (Profile::SOURCE_2013, true)
        );
        assert_eq!(
            Profile::from_header(&h(3, 7, "hl2")).0.commands,
            CommandTable::Classic
        );
        assert_eq!(
            Profile::from_header(&h(4, 2027, "left4dead2")),
            (Profile::LEFT4DEAD, true)
        );
        assert_eq!(
            Profile::from_header(&h(4, 2001, "portal2")),
            (Profile::PORTAL2, true)
        );
        assert_eq!(
            Profile::from_header(&h(4, 9, "somemod")),
            (Profile::PORTAL2, false)
        );
        assert_eq!(Profile::candidates().count(), 18);
    }

    #[test]
    fn playback_times_of_the_real_files() {
        // Header time (as stored bits), ticks and game directory of the four real files.
        for (time, ticks, game) in [
            (0x424f_2e14_u32, 3453, "hl2oe"),
            (0x41b2_6667, 669, "left4dead2"),
            (0x41a1_5556, 1210, "portal2"),
            (0x3fdc_cccc, 115, "tf"),
        ] {
            let (interval, known) = tick_interval(game);
            assert!(known);
            assert_eq!(playback_time(ticks, interval).to_bits(), time, "{game}");
        }
        assert_eq!(tick_interval("some_mod"), (0.015, false));
    }
}
