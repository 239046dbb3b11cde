//! Teeworlds 0.7: the snapshot objects and events, the game messages and the engine's
//! system messages, as DDNet defines them for its 0.7 support at the reference commit
//! (`datasrc/seven/network.py`, `src/engine/shared/protocol7.h`, and the system messages'
//! fields as `src/engine/server/server.cpp`, `src/engine/client/client.cpp` and
//! `sixup_translate_system.cpp` pack and read them for 0.7 connections).
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

net_objects! {
    /// A player's input (`NETOBJTYPE_PLAYERINPUT`).
    PlayerInput = 1, "PlayerInput" {
        /// -1 left, 0 none, 1 right.
        direction: int,
        /// Aim, relative to the character.
        target_x: int,
        /// Aim, relative to the character.
        target_y: int,
        /// Jump held.
        jump: int,
        /// Fire presses (counted, the low bit is the state).
        fire: int,
        /// Hook held.
        hook: int,
        /// `PLAYERFLAG_*` (0.7 bits: admin, chatting, scoreboard, ready, dead, watching,
        /// bot, aim).
        player_flags: int,
        /// The weapon the player wants (`WEAPON_*`).
        wanted_weapon: int,
        /// Next-weapon presses.
        next_weapon: int,
        /// Previous-weapon presses.
        prev_weapon: int,
    }
    /// A projectile in flight.
    Projectile = 2, "Projectile" {
        /// Position at `start_tick`.
        x: int,
        /// Position at `start_tick`.
        y: int,
        /// Velocity × 100.
        vel_x: int,
        /// Velocity × 100.
        vel_y: int,
        /// `WEAPON_*`.
        kind: int,
        /// Tick it was fired.
        start_tick: int,
    }
    /// A laser beam.
    Laser = 3, "Laser" {
        /// End point.
        x: int,
        /// End point.
        y: int,
        /// Start point.
        from_x: int,
        /// Start point.
        from_y: int,
        /// Tick it was fired.
        start_tick: int,
    }
    /// A pickup.
    Pickup = 4, "Pickup" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// `PICKUP_*`: 0 health, 1 armor, 2 grenade, 3 shotgun, 4 laser, 5 ninja, 6 gun,
        /// 7 hammer.
        kind: int,
    }
    /// A capture-the-flag flag.
    Flag = 5, "Flag" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// 0 red, 1 blue.
        team: int,
    }
    /// The game's state over time.
    GameData = 6, "GameData" {
        /// Tick the match started.
        game_start_tick: int,
        /// `GAMESTATEFLAG_*`: 1 warmup, 2 sudden death, 4 round over, 8 game over,
        /// 16 paused, 32 start countdown.
        game_state_flags: int,
        /// Tick the current state (warmup, pause, countdown, round over) ends, 0 if open.
        game_state_end_tick: int,
    }
    /// Team scores.
    GameDataTeam = 7, "GameDataTeam" {
        /// Red score.
        teamscore_red: int,
        /// Blue score.
        teamscore_blue: int,
    }
    /// Where the flags are.
    GameDataFlag = 8, "GameDataFlag" {
        /// Client id carrying the red flag, or -3 missing, -2 at its stand, -1 away from
        /// its stand with no carrier.
        flag_carrier_red: int,
        /// Same for blue.
        flag_carrier_blue: int,
        /// Tick the red flag was dropped.
        flag_drop_tick_red: int,
        /// Tick the blue flag was dropped.
        flag_drop_tick_blue: int,
    }
    /// The physics state of a character.
    CharacterCore = 9, "CharacterCore" {
        /// Tick of the state.
        tick: int,
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// Velocity × 256.
        vel_x: int,
        /// Velocity × 256.
        vel_y: int,
        /// Aim angle × 256 (radians).
        angle: int,
        /// -1, 0, 1.
        direction: int,
        /// Jump state bits (0 to 3).
        jumped: int,
        /// Client id hooked, or -1.
        hooked_player: int,
        /// Hook state (-1 retracted ... 5 grabbed).
        hook_state: int,
        /// Tick the hook state began.
        hook_tick: int,
        /// Hook position.
        hook_x: int,
        /// Hook position.
        hook_y: int,
        /// Hook direction × 256.
        hook_dx: int,
        /// Hook direction × 256.
        hook_dy: int,
    }
    /// A character: its core, then what the owner and spectators see.
    Character = 10, "Character" {
        /// Tick of the state.
        tick: int,
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// Velocity × 256.
        vel_x: int,
        /// Velocity × 256.
        vel_y: int,
        /// Aim angle × 256 (radians).
        angle: int,
        /// -1, 0, 1.
        direction: int,
        /// Jump state bits (0 to 3).
        jumped: int,
        /// Client id hooked, or -1.
        hooked_player: int,
        /// Hook state.
        hook_state: int,
        /// Tick the hook state began.
        hook_tick: int,
        /// Hook position.
        hook_x: int,
        /// Hook position.
        hook_y: int,
        /// Hook direction × 256.
        hook_dx: int,
        /// Hook direction × 256.
        hook_dy: int,
        /// Health, 0 to 10 (0 if not visible to the recording client).
        health: int,
        /// Armor, 0 to 10.
        armor: int,
        /// Ammo, -1 infinite.
        ammo_count: int,
        /// `WEAPON_*`, -1 none.
        weapon: int,
        /// `EMOTE_*`: 0 normal, 1 pain, 2 happy, 3 surprise, 4 angry, 5 blink.
        emote: int,
        /// Tick of the last attack.
        attack_tick: int,
        /// `COREEVENTFLAG_*` of this tick: 1 ground jump, 2 air jump, 4 hooked a player,
        /// 8 hooked the ground, 16 hit an unhookable tile.
        triggered_events: int,
    }
    /// A player's state in the game; the item id is the client id.
    PlayerInfo = 11, "PlayerInfo" {
        /// `PLAYERFLAG_*` (admin, chatting, scoreboard, ready, dead, watching, bot, aim).
        player_flags: int,
        /// Score.
        score: int,
        /// Latency, ms.
        latency: int,
    }
    /// What a spectator looks at; the item id is the spectator's client id.
    SpectatorInfo = 12, "SpectatorInfo" {
        /// `SPEC_*`: 0 free view, 1 a player, 2 the red flag, 3 the blue flag.
        spec_mode: int,
        /// Client id followed, -1 none.
        spectator_id: int,
        /// Camera position.
        x: int,
        /// Camera position.
        y: int,
    }
    /// A player's identity, for demos; the item id is the client id.
    DeClientInfo = 13, "De_ClientInfo" {
        /// 1 for the recording client's own player.
        local: int,
        /// -1 spectators, 0 red (or the game), 1 blue.
        team: int,
        /// Name.
        name: (text 4),
        /// Clan.
        clan: (text 3),
        /// ISO 3166-1 numeric country code (-1 none).
        country: int,
        /// Skin part names: body, marking, decoration, hands, feet, eyes.
        skin_part_names: (texts 6 6),
        /// Per skin part, 1 if its color below is used.
        use_custom_colors: (ints 6),
        /// Per skin part, its color (packed HSL, alpha in the top byte for the marking).
        skin_part_colors: (ints 6),
    }
    /// The game's settings, for demos.
    DeGameInfo = 14, "De_GameInfo" {
        /// `GAMEFLAG_*`: 1 teams, 2 flags, 4 survival, 8 race.
        game_flags: int,
        /// Score limit, 0 none.
        score_limit: int,
        /// Time limit, minutes, 0 none.
        time_limit: int,
        /// Matches per map, 0 unlimited.
        match_num: int,
        /// This match's number.
        match_current: int,
    }
    /// The tuning, for demos.
    DeTuneParams = 15, "De_TuneParams" {
        /// One int (× 100) per tuning parameter, in the 0.7 order.
        tune_params: (ints 32),
    }
    /// The base of every event: a position (`NETEVENTTYPE_COMMON`).
    Common = 16, "Common" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// An explosion.
    Explosion = 17, "Explosion" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// A character spawned.
    Spawn = 18, "Spawn" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// A hammer hit.
    HammerHit = 19, "HammerHit" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// A character died.
    Death = 20, "Death" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// Who died.
        client_id: int,
    }
    /// A sound at a position.
    SoundWorld = 21, "SoundWorld" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// `SOUND_*`.
        sound_id: int,
    }
    /// Damage taken (a damage indicator).
    Damage = 22, "Damage" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// Who was hit.
        client_id: int,
        /// Angle × 256.
        angle: int,
        /// Health lost, 0 to 9.
        health_amount: int,
        /// Armor lost, 0 to 9.
        armor_amount: int,
        /// 1 if the player hurt itself.
        is_self: int,
    }
    /// A player's race; the item id is the client id.
    PlayerInfoRace = 23, "PlayerInfoRace" {
        /// Tick the player's run started (the item is only there while it runs).
        race_start_tick: int,
    }
    /// The race's state.
    GameDataRace = 24, "GameDataRace" {
        /// The server's best time, ms, -1 none.
        best_time: int,
        /// Digits of the milliseconds to show, 0 to 3.
        precision: int,
        /// `RACEFLAG_*`: 1 hide kill messages, 2 finish messages as chat, 4 keep the
        /// wanted weapon.
        race_flags: int,
    }
}

net_messages! {
    // ---- Game messages (NETMSGTYPE_*), server to client ----

    /// The message of the day.
    SvMotd<'a> = 1, "Sv_Motd" {
        /// Text.
        message: str,
    }
    /// A broadcast shown mid-screen.
    SvBroadcast<'a> = 2, "Sv_Broadcast" {
        /// Text.
        message: str,
    }
    /// A chat line.
    SvChat<'a> = 3, "Sv_Chat" {
        /// `CHAT_*`: 0 none, 1 all, 2 team, 3 whisper.
        mode: int,
        /// Who said it, -1 the server.
        client_id: int,
        /// Whom a whisper is for, else -1.
        target_id: int,
        /// Text.
        message: str,
    }
    /// A player joined a team.
    SvTeam = 4, "Sv_Team" {
        /// Client id.
        client_id: int,
        /// -1 spectators, 0 red (or the game), 1 blue.
        team: int,
        /// 1 to show no chat line for it.
        silent: int,
        /// Tick before which the player may not change team again.
        cooldown_tick: int,
    }
    /// A kill.
    SvKillMsg = 5, "Sv_KillMsg" {
        /// Killer's client id (negative: none).
        killer: int,
        /// Victim's client id.
        victim: int,
        /// `WEAPON_*`, -1 world, -2 self, -3 game (team change).
        weapon: int,
        /// Mode-specific bits (flag carrier kills).
        mode_special: int,
    }
    /// Tuning parameters: one int (× 100) per parameter, as many as the server knows.
    SvTuneParams<'a> = 6, "Sv_TuneParams" {
        /// The packed ints.
        params: rest,
    }
    /// An unused id.
    Unused = 7, "Unused" {}
    /// The client may enter the game.
    SvReadyToEnter = 8, "Sv_ReadyToEnter" {}
    /// A weapon was picked up.
    SvWeaponPickup = 9, "Sv_WeaponPickup" {
        /// `WEAPON_*`.
        weapon: int,
    }
    /// A player's emoticon.
    SvEmoticon = 10, "Sv_Emoticon" {
        /// Client id.
        client_id: int,
        /// `EMOTICON_*`, 0 to 15.
        emoticon: int,
    }
    /// The vote list is cleared.
    SvVoteClearOptions = 11, "Sv_VoteClearOptions" {}
    /// Vote options: an int, how many, then that many descriptions (strings).
    SvVoteOptionListAdd<'a> = 12, "Sv_VoteOptionListAdd" {
        /// The packed count and strings.
        options: rest,
    }
    /// A vote option was added.
    SvVoteOptionAdd<'a> = 13, "Sv_VoteOptionAdd" {
        /// Its description.
        description: str,
    }
    /// A vote option was removed.
    SvVoteOptionRemove<'a> = 14, "Sv_VoteOptionRemove" {
        /// Its description.
        description: str,
    }
    /// A vote started or ended.
    SvVoteSet<'a> = 15, "Sv_VoteSet" {
        /// Who called it, -1 the server.
        client_id: int,
        /// `VOTE_*`: 0 unknown, 1 option, 2 kick, 3 spectate (started); 4 aborted,
        /// 5 passed, 6 failed (ended).
        kind: int,
        /// Seconds left, 0 when the vote ended.
        timeout: int,
        /// What is voted on.
        description: str,
        /// Why.
        reason: str,
    }
    /// The vote's count.
    SvVoteStatus = 16, "Sv_VoteStatus" {
        /// Yes votes.
        yes: int,
        /// No votes.
        no: int,
        /// Abstentions.
        pass: int,
        /// Voters.
        total: int,
    }
    /// The server's settings.
    SvServerSettings = 17, "Sv_ServerSettings" {
        /// 1 if kick votes are allowed.
        kick_vote: int,
        /// Players needed for a kick vote.
        kick_min: int,
        /// 1 if spectate votes are allowed.
        spec_vote: int,
        /// 1 if teams are locked.
        team_lock: int,
        /// 1 if teams are balanced automatically.
        team_balance: int,
        /// Player slots (the rest are for spectators).
        player_slots: int,
    }
    /// A player's identity (sent when it joins, and for every player to a new client).
    SvClientInfo<'a> = 18, "Sv_ClientInfo" {
        /// Client id.
        client_id: int,
        /// 1 for the receiving client's own player.
        local: int,
        /// -1 spectators, 0 red (or the game), 1 blue.
        team: int,
        /// Name.
        name: str,
        /// Clan.
        clan: str,
        /// ISO 3166-1 numeric country code (-1 none).
        country: int,
        /// Skin part names: body, marking, decoration, hands, feet, eyes.
        skin_part_names: (strs 6),
        /// Per skin part, 1 if its color below is used.
        use_custom_colors: (ints 6),
        /// Per skin part, its color (packed HSL, alpha in the top byte for the marking).
        skin_part_colors: (ints 6),
        /// 1 to show no join line for it.
        silent: int,
    }
    /// The game's settings.
    SvGameInfo = 19, "Sv_GameInfo" {
        /// `GAMEFLAG_*`: 1 teams, 2 flags, 4 survival, 8 race.
        game_flags: int,
        /// Score limit, 0 none.
        score_limit: int,
        /// Time limit, minutes, 0 none.
        time_limit: int,
        /// Matches per map, 0 unlimited.
        match_num: int,
        /// This match's number.
        match_current: int,
    }
    /// A player left.
    SvClientDrop<'a> = 20, "Sv_ClientDrop" {
        /// Client id.
        client_id: int,
        /// Why.
        reason: str,
        /// 1 to show no leave line for it.
        silent: int,
    }
    /// A message the client words itself: an int, `GAMEMSG_*` (0 teams swapped,
    /// 1 invalid spectator id, 2 teams shuffled, 3 teams balanced, 4 flag dropped, 5 flag
    /// returned, 6 all moved to a team, 7 moved by balancing, 8 flag grabbed, 9 flag
    /// captured, 10 game paused), then its int parameters: none for 0 to 5, three (flag
    /// team, client id, ticks) for 9, one (a team or a client id) for the others.
    SvGameMsg<'a> = 21, "Sv_GameMsg" {
        /// The packed id and parameters.
        params: rest,
    }

    // ---- Game messages for demos ----

    /// A player joined (written into demos by the recording client).
    DeClientEnter<'a> = 22, "De_ClientEnter" {
        /// Name.
        name: str,
        /// Client id.
        client_id: int,
        /// -1 spectators, 0 red (or the game), 1 blue.
        team: int,
    }
    /// A player left (written into demos by the recording client).
    DeClientLeave<'a> = 23, "De_ClientLeave" {
        /// Name.
        name: str,
        /// Client id.
        client_id: int,
        /// Why.
        reason: str,
    }

    // ---- Game messages, client to server ----

    /// A chat line a client sends.
    ClSay<'a> = 24, "Cl_Say" {
        /// `CHAT_*`: 1 all, 2 team, 3 whisper.
        mode: int,
        /// Whom a whisper is for, else -1.
        target: int,
        /// Text.
        message: str,
    }
    /// A team change request.
    ClSetTeam = 25, "Cl_SetTeam" {
        /// -1 spectators, 0 red (or the game), 1 blue.
        team: int,
    }
    /// What to spectate.
    ClSetSpectatorMode = 26, "Cl_SetSpectatorMode" {
        /// `SPEC_*`: 0 free view, 1 a player, 2 the red flag, 3 the blue flag.
        spec_mode: int,
        /// Client id, for a player, else -1.
        spectator_id: int,
    }
    /// The player's first info.
    ClStartInfo<'a> = 27, "Cl_StartInfo" {
        /// Name.
        name: str,
        /// Clan.
        clan: str,
        /// ISO 3166-1 numeric country code (-1 none).
        country: int,
        /// Skin part names: body, marking, decoration, hands, feet, eyes.
        skin_part_names: (strs 6),
        /// Per skin part, 1 if its color below is used.
        use_custom_colors: (ints 6),
        /// Per skin part, its color (packed HSL, alpha in the top byte for the marking).
        skin_part_colors: (ints 6),
    }
    /// The player kills itself.
    ClKill = 28, "Cl_Kill" {}
    /// The player toggles its ready state (warmup, pause).
    ClReadyChange = 29, "Cl_ReadyChange" {}
    /// An emoticon.
    ClEmoticon = 30, "Cl_Emoticon" {
        /// `EMOTICON_*`, 0 to 15.
        emoticon: int,
    }
    /// A vote.
    ClVote = 31, "Cl_Vote" {
        /// -1 no, 0 pass, 1 yes.
        vote: int,
    }
    /// A vote call.
    ClCallVote<'a> = 32, "Cl_CallVote" {
        /// `"option"`, `"kick"` or `"spectate"`.
        kind: str,
        /// The option or client id.
        value: str,
        /// Why.
        reason: str,
        /// 1 for an admin forcing it through.
        force: int,
    }

    // ---- Game messages added later ----

    /// A player changed skin.
    SvSkinChange<'a> = 33, "Sv_SkinChange" {
        /// Client id.
        client_id: int,
        /// Skin part names: body, marking, decoration, hands, feet, eyes.
        skin_part_names: (strs 6),
        /// Per skin part, 1 if its color below is used.
        use_custom_colors: (ints 6),
        /// Per skin part, its color (packed HSL, alpha in the top byte for the marking).
        skin_part_colors: (ints 6),
    }
    /// The player changes skin.
    ClSkinChange<'a> = 34, "Cl_SkinChange" {
        /// Skin part names: body, marking, decoration, hands, feet, eyes.
        skin_part_names: (strs 6),
        /// Per skin part, 1 if its color below is used.
        use_custom_colors: (ints 6),
        /// Per skin part, its color (packed HSL, alpha in the top byte for the marking).
        skin_part_colors: (ints 6),
    }
    /// A race finish.
    SvRaceFinish = 35, "Sv_RaceFinish" {
        /// Who finished.
        client_id: int,
        /// Time, ms (-1 none).
        time: int,
        /// Difference to the personal record, ms.
        diff: int,
        /// 1 for a new personal record.
        record_personal: int,
        /// 1 for a new server record (older servers leave it out; then 0).
        record_server: (opt int),
    }
    /// A checkpoint was passed.
    SvCheckpoint = 36, "Sv_Checkpoint" {
        /// Difference to the personal record at this checkpoint, ms.
        diff: int,
    }
    /// A chat command the client may complete.
    SvCommandInfo<'a> = 37, "Sv_CommandInfo" {
        /// Command.
        name: str,
        /// Argument format.
        args_format: str,
        /// Help text.
        help_text: str,
    }
    /// A chat command was removed.
    SvCommandInfoRemove<'a> = 38, "Sv_CommandInfoRemove" {
        /// Command.
        name: str,
    }
    /// A chat command the client runs.
    ClCommand<'a> = 39, "Cl_Command" {
        /// Command.
        name: str,
        /// Its arguments, as typed.
        arguments: str,
    }

    // ---- System messages (protocol7::NETMSG_*) ----

    /// The client's version and password.
    Info<'a> = (sys 1), "NETMSG_INFO" {
        /// Network version, e.g. `"0.7 802f1be60a05665f"`.
        version: str,
        /// Password.
        password: str,
        /// The client's version number (e.g. `0x0705` for 0.7.5).
        client_version: int,
    }
    /// The map changes.
    MapChange<'a> = (sys 2), "NETMSG_MAP_CHANGE" {
        /// Map name.
        name: str,
        /// CRC.
        crc: int,
        /// Size in bytes.
        size: int,
        /// Chunks sent per map data request.
        chunks_per_request: int,
        /// Bytes per chunk (the last one is shorter).
        chunk_size: int,
        /// SHA-256 of the map file.
        sha256: (raw 32),
    }
    /// A chunk of the map file (its number and size follow from the order and the map
    /// change).
    MapData<'a> = (sys 3), "NETMSG_MAP_DATA" {
        /// The chunk.
        data: rest,
    }
    /// The server's info, once the client is in the game.
    ServerInfo<'a> = (sys 4), "NETMSG_SERVERINFO" {
        /// Server version.
        version: str,
        /// Server name.
        name: str,
        /// Host name.
        hostname: str,
        /// Map name.
        map_name: str,
        /// Game type.
        game_type: str,
        /// `SERVER_FLAG_*`: 1 password, 2 times as score.
        flags: int,
        /// Skill level: 0 casual, 1 normal, 2 competitive.
        skill_level: int,
        /// Players.
        num_players: int,
        /// Player slots.
        max_players: int,
        /// Clients, spectators included.
        num_clients: int,
        /// Client slots.
        max_clients: int,
    }
    /// The connection is ready.
    ConReady = (sys 5), "NETMSG_CON_READY" {}
    /// A part of a snapshot.
    Snap<'a> = (sys 6), "NETMSG_SNAP" {
        /// Tick.
        tick: int,
        /// Ticks back to the delta's base.
        delta_tick: int,
        /// Parts.
        num_parts: int,
        /// This part.
        part: int,
        /// Snapshot CRC.
        crc: int,
        /// The part, after its size.
        data: bytes,
    }
    /// An empty snapshot delta.
    SnapEmpty = (sys 7), "NETMSG_SNAPEMPTY" {
        /// Tick.
        tick: int,
        /// Ticks back to the delta's base.
        delta_tick: int,
    }
    /// A snapshot in one part.
    SnapSingle<'a> = (sys 8), "NETMSG_SNAPSINGLE" {
        /// Tick.
        tick: int,
        /// Ticks back to the delta's base.
        delta_tick: int,
        /// Snapshot CRC.
        crc: int,
        /// The data, after its size.
        data: bytes,
    }
    /// An unused snapshot message.
    SnapSmall<'a> = (sys 9), "NETMSG_SNAPSMALL" {
        /// Its bytes.
        data: rest,
    }
    /// How early the client's input arrived.
    InputTiming = (sys 10), "NETMSG_INPUTTIMING" {
        /// The input's intended tick.
        input_pred_tick: int,
        /// Time left, ms.
        time_left: int,
    }
    /// The client is now authenticated on the remote console.
    RconAuthOn = (sys 11), "NETMSG_RCON_AUTH_ON" {}
    /// The client is no longer authenticated on the remote console.
    RconAuthOff = (sys 12), "NETMSG_RCON_AUTH_OFF" {}
    /// A remote console line.
    RconLine<'a> = (sys 13), "NETMSG_RCON_LINE" {
        /// Text.
        line: str,
    }
    /// A remote console command became available.
    RconCmdAdd<'a> = (sys 14), "NETMSG_RCON_CMD_ADD" {
        /// Command.
        name: str,
        /// Help.
        help: str,
        /// Parameter format.
        params: str,
    }
    /// A remote console command went away.
    RconCmdRemove<'a> = (sys 15), "NETMSG_RCON_CMD_REM" {
        /// Command.
        name: str,
    }
    /// The client is ready.
    Ready = (sys 18), "NETMSG_READY" {}
    /// The client enters the game.
    EnterGame = (sys 19), "NETMSG_ENTERGAME" {}
    /// The client's input.
    Input = (sys 20), "NETMSG_INPUT" {
        /// Last snapshot received.
        ack_snapshot: int,
        /// The tick the input is for.
        intended_tick: int,
        /// Input size in bytes.
        input_size: int,
        /// The input (a `PlayerInput`).
        input: (ints 10),
    }
    /// A remote console command.
    RconCmd<'a> = (sys 21), "NETMSG_RCON_CMD" {
        /// Command.
        cmd: str,
    }
    /// Remote console login (a password only, no user name).
    RconAuth<'a> = (sys 22), "NETMSG_RCON_AUTH" {
        /// Password.
        password: str,
    }
    /// The client asks for the next chunks of the map (as many as the map change says).
    RequestMapData = (sys 23), "NETMSG_REQUEST_MAP_DATA" {}
    /// A ping.
    Ping = (sys 26), "NETMSG_PING" {}
    /// A ping's reply.
    PingReply = (sys 27), "NETMSG_PING_REPLY" {}
    /// A map joined the list an authenticated client may vote or change to (sent by
    /// Teeworlds 0.7 servers; DDNet neither sends nor reads it).
    MaplistEntryAdd<'a> = (sys 29), "NETMSG_MAPLIST_ENTRY_ADD" {
        /// Map name.
        name: str,
    }
    /// A map left that list (Teeworlds 0.7 servers only, as above).
    MaplistEntryRemove<'a> = (sys 30), "NETMSG_MAPLIST_ENTRY_REM" {
        /// Map name.
        name: str,
    }
}

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
