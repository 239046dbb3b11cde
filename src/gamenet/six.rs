//! Teeworlds 0.6 with DDNet's extensions: the snapshot objects and events, the game
//! messages and the engine's system messages, as DDNet defines them at the reference commit
//! (`datasrc/network.py`, `src/engine/shared/protocol.h`, `protocol_ex_msgs.h`, and the
//! system messages' fields as `src/engine/server/server.cpp` and `client.cpp` pack them).
//!
//! Events (`Explosion`, `Death`, ...) are snapshot objects that exist for one tick; their
//! common `x`, `y` fields come first, as in DDNet's `Common` base. `Character` holds the
//! fields of `CharacterCore` first, as DDNet's derived struct does.
//!
//! DDNet's objects grew over its versions by fields with a default value, which older
//! servers do not send and DDNet's client (`SecureUnpackObj`) fills with the default: those
//! fields are optional here (`None`: not sent; the default is named in the field's doc). A
//! vanilla message id DDNet no longer uses keeps its vanilla layout
//! (`Sv_ExtraProjectile`).

net_objects! {
    /// The item that names an extended type (`NETOBJTYPE_EX`): its id is the internal type
    /// number the snapshot gives the type, its data the type's UUID.
    ExtendedType = 0, "EX" {
        /// The UUID as 4 ints, each holding 4 bytes big-endian.
        uuid: (ints 4),
    }
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
        /// `PLAYERFLAG_*`.
        player_flags: int,
        /// The weapon the player wants, + 1 (0: no change).
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
    /// A pickup (health, armor, weapon, ninja).
    Pickup = 4, "Pickup" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// `POWERUP_*`.
        kind: int,
        /// The weapon, for weapon pickups.
        subtype: int,
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
    /// The game's state.
    GameInfo = 6, "GameInfo" {
        /// `GAMEFLAG_*`.
        game_flags: int,
        /// `GAMESTATEFLAG_*`.
        game_state_flags: int,
        /// Tick the round started (race: the timer's start).
        round_start_tick: int,
        /// Warmup ticks left.
        warmup_timer: int,
        /// Score limit.
        score_limit: int,
        /// Time limit, minutes.
        time_limit: int,
        /// Rounds per map.
        round_num: int,
        /// This round's number.
        round_current: int,
    }
    /// Team scores and flag carriers.
    GameData = 7, "GameData" {
        /// Red score.
        teamscore_red: int,
        /// Blue score.
        teamscore_blue: int,
        /// Client id carrying the red flag, or -1 at stand, -2 taken, -3 missing.
        flag_carrier_red: int,
        /// Same for blue.
        flag_carrier_blue: int,
    }
    /// The physics state of a character.
    CharacterCore = 8, "CharacterCore" {
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
        /// Jump state bits.
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
    Character = 9, "Character" {
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
        /// Jump state bits.
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
        /// `PLAYERFLAG_*`.
        player_flags: int,
        /// Health, 0 to 10 (0 if not visible to the recording client).
        health: int,
        /// Armor, 0 to 10.
        armor: int,
        /// Ammo, -1 infinite.
        ammo_count: int,
        /// `WEAPON_*`, -1 none.
        weapon: int,
        /// `EMOTE_*`.
        emote: int,
        /// Tick of the last attack.
        attack_tick: int,
    }
    /// A player's place in the game.
    PlayerInfo = 10, "PlayerInfo" {
        /// 1 for the recording client's own player.
        local: int,
        /// Client id.
        client_id: int,
        /// -1 spectators, 0 red (or the game), 1 blue.
        team: int,
        /// Score (race: the best time, negated, in some mods).
        score: int,
        /// Latency, ms.
        latency: int,
    }
    /// A player's name, clan, country and skin.
    ClientInfo = 11, "ClientInfo" {
        /// Name.
        name: (text 4),
        /// Clan.
        clan: (text 3),
        /// ISO 3166-1 numeric country code (-1 none).
        country: int,
        /// Skin name.
        skin: (text 6),
        /// 1 if the colors below are used.
        use_custom_color: int,
        /// Body color (HSL packed).
        color_body: int,
        /// Feet color (HSL packed).
        color_feet: int,
    }
    /// What a spectator looks at.
    SpectatorInfo = 12, "SpectatorInfo" {
        /// Client id followed, -1 free view.
        spectator_id: int,
        /// Camera position.
        x: int,
        /// Camera position.
        y: int,
    }
    /// The base of every event: a position (`NETEVENTTYPE_COMMON`).
    Common = 13, "Common" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// An explosion.
    Explosion = 14, "Explosion" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// A character spawned.
    Spawn = 15, "Spawn" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// A hammer hit.
    HammerHit = 16, "HammerHit" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// A character died.
    Death = 17, "Death" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// Who died.
        client_id: int,
    }
    /// A sound heard everywhere.
    SoundGlobal = 18, "SoundGlobal" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// `SOUND_*`.
        sound_id: int,
    }
    /// A sound at a position.
    SoundWorld = 19, "SoundWorld" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// `SOUND_*`.
        sound_id: int,
    }
    /// A damage indicator.
    DamageInd = 20, "DamageInd" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// Angle × 256.
        angle: int,
    }
    /// A test object of DDNet's (`my-own-object@heinrich5991.de`).
    MyOwnObject = (ex "my-own-object@heinrich5991.de" 0x0dc77a02_bfee_3a53_ac8e_0bb0241bd722), "MyOwnObject" {
        /// Test value.
        test: int,
    }
    /// DDNet's character state (`character@netobj.ddnet.tw`); every field optional.
    DdnetCharacter = (ex "character@netobj.ddnet.tw" 0x76ce455b_f9eb_3a48_add7_e04b941d045c), "DDNetCharacter" {
        /// `CHARACTERFLAG_*` (default 0).
        flags: (opt int),
        /// Tick the freeze ends (default 0).
        freeze_end: (opt int),
        /// Jumps, -1 infinite (default 2).
        jumps: (opt int),
        /// Last teleport checkpoint (default -1).
        tele_checkpoint: (opt int),
        /// Strong/weak hook order id (default 0).
        strong_weak_id: (opt int),
        /// Jumps used (default -1: not sent).
        jumped_total: (opt int),
        /// Tick ninja started (default -1).
        ninja_activation_tick: (opt int),
        /// Tick the freeze started (default -1).
        freeze_start: (opt int),
        /// Aim, absolute (default 0).
        target_x: (opt int),
        /// Aim, absolute (default 0).
        target_y: (opt int),
        /// Tune zone override (default -1: none).
        tune_zone_override: (opt int),
    }
    /// DDNet's player state (`player@netobj.ddnet.tw`).
    DdnetPlayer = (ex "player@netobj.ddnet.tw" 0x22ca938d_1380_3e2b_9e7b_d2558ea6be11), "DDNetPlayer" {
        /// `EXPLAYERFLAG_*` (AFK, paused, spec).
        flags: int,
        /// `AUTHED_*`.
        auth_level: int,
        /// Finish time, seconds (default -1: unset).
        finish_time_seconds: (opt int),
        /// Finish time, milliseconds part (default 0).
        finish_time_millis: (opt int),
    }
    /// DDNet's game info (`gameinfo@netobj.ddnet.tw`); every field optional.
    GameInfoEx = (ex "gameinfo@netobj.ddnet.tw" 0x933dea6a_da79_30ea_a98f_8af03689a945), "GameInfoEx" {
        /// `GAMEINFOFLAG_*` (default 0).
        flags: (opt int),
        /// Version of this object (default 0).
        version: (opt int),
        /// `GAMEINFOFLAG2_*` (default 0).
        flags2: (opt int),
        /// Smallest team (default 0).
        min_team_size: (opt int),
        /// Largest team (default 0).
        max_team_size: (opt int),
    }
    /// A DDRace projectile (`projectile@netobj.ddnet.tw`).
    DdraceProjectile = (ex "projectile@netobj.ddnet.tw" 0x0e6db85c_2b61_386f_bbf2_d0d0471b9272), "DDRaceProjectile" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// Angle.
        angle: int,
        /// Packed data (speed, flags, owner).
        data: int,
        /// `WEAPON_*`.
        kind: int,
        /// Tick it was fired.
        start_tick: int,
    }
    /// A DDNet laser (`laser@netobj.ddnet.tw`).
    DdnetLaser = (ex "laser@netobj.ddnet.tw" 0x29de68a2_6928_31b8_8360_a2307e0d844f), "DDNetLaser" {
        /// End point.
        to_x: int,
        /// End point.
        to_y: int,
        /// Start point.
        from_x: int,
        /// Start point.
        from_y: int,
        /// Tick it was fired.
        start_tick: int,
        /// Owner, -1 none.
        owner: int,
        /// `LASERTYPE_*`.
        kind: int,
        /// Switch number (default -1).
        switch_number: (opt int),
        /// Subtype (default -1).
        subtype: (opt int),
        /// `LASERFLAG_*` (default 0).
        flags: (opt int),
    }
    /// A DDNet projectile (`ddnet-projectile@netobj.ddnet.tw`).
    DdnetProjectile = (ex "ddnet-projectile@netobj.ddnet.tw" 0x6550fbce_f317_3b31_8ffe_d2b37f3ab40e), "DDNetProjectile" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// Velocity.
        vel_x: int,
        /// Velocity.
        vel_y: int,
        /// `WEAPON_*`.
        kind: int,
        /// Tick it was fired.
        start_tick: int,
        /// Owner, -1 none.
        owner: int,
        /// Switch number.
        switch_number: int,
        /// Tune zone.
        tune_zone: int,
        /// `PROJECTILEFLAG_*`.
        flags: int,
    }
    /// A DDNet pickup (`pickup@netobj.ddnet.tw`).
    DdnetPickup = (ex "pickup@netobj.ddnet.tw" 0xea5e4a51_58fb_3684_96e4_e0d267f4ca65), "DDNetPickup" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// `POWERUP_*`.
        kind: int,
        /// Subtype.
        subtype: int,
        /// Switch number.
        switch_number: int,
        /// `PICKUPFLAG_*` (default 0).
        flags: (opt int),
    }
    /// DDNet's spectator camera (`spectator-info@netobj.ddnet.org`).
    DdnetSpectatorInfo = (ex "spectator-info@netobj.ddnet.org" 0xd13307b2_9a19_37cb_8f8c_07c718521883), "DDNetSpectatorInfo" {
        /// Whether the camera fields are set.
        has_camera_info: int,
        /// Zoom.
        zoom: int,
        /// Deadzone.
        deadzone: int,
        /// Follow factor.
        follow_factor: int,
        /// Spectators watching (default 0).
        spectator_count: (opt int),
    }
    /// How many spectate the recording player (`spectator-count@netobj.ddnet.org`).
    SpectatorCount = (ex "spectator-count@netobj.ddnet.org" 0x5e5ca96f_c728_30fd_bfb3_155b07692556), "SpectatorCount" {
        /// Spectators.
        num_spectators: int,
    }
    /// Birthday confetti (`birthday@netevent.ddnet.org`).
    Birthday = (ex "birthday@netevent.ddnet.org" 0x1fd35746_6263_358c_b4d6_6ef60e0efaaa), "Birthday" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// A finish effect (`finish@netevent.ddnet.org`).
    Finish = (ex "finish@netevent.ddnet.org" 0x68bf8939_ef55_3878_9082_13527eb0a597), "Finish" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// A test event of DDNet's (`my-own-event@heinrich5991.de`).
    MyOwnEvent = (ex "my-own-event@heinrich5991.de" 0x0c4fd27d_47e3_3871_a226_9f417486a311), "MyOwnEvent" {
        /// Test value.
        test: int,
    }
    /// Where a spectated character is (`spec-char@netobj.ddnet.tw`).
    SpecChar = (ex "spec-char@netobj.ddnet.tw" 0x4b801c74_e24c_3ce0_b92c_b754d02cfc8a), "SpecChar" {
        /// Position.
        x: int,
        /// Position.
        y: int,
    }
    /// The switches of a team (`switch-state@netobj.ddnet.tw`); every field optional.
    SwitchState = (ex "switch-state@netobj.ddnet.tw" 0xec15e669_ce11_3367_ae8e_b90e5b27b9d5), "SwitchState" {
        /// The highest switch number (default 0).
        highest_switch_number: (opt int),
        /// One bit per switch, 256 switches (default all 0).
        status: (opt ints 8),
        /// Up to four timed switches (default 0).
        switch_numbers: (opt ints 4),
        /// Their end ticks (default 0).
        end_ticks: (opt ints 4),
    }
    /// Switch data of a map entity (`entity-ex@netobj.ddnet.tw`).
    EntityEx = (ex "entity-ex@netobj.ddnet.tw" 0x2de9aec3_32e4_3986_8f7e_e7459da7f535), "EntityEx" {
        /// Switch number.
        switch_number: int,
        /// Map layer.
        layer: int,
        /// `ENTITYCLASS_*`.
        entity_class: int,
    }
    /// The server's best time on the map (`map-best-time@netobj.ddnet.org`).
    MapBestTime = (ex "map-best-time@netobj.ddnet.org" 0x9ebfc6ed_bf50_30ca_988a_0ce8921ad85f), "MapBestTime" {
        /// Seconds.
        map_best_time_seconds: int,
        /// Milliseconds part.
        map_best_time_millis: int,
    }
    /// A map sound at a position (`map-sound-world@netevent.ddnet.org`).
    MapSoundWorld = (ex "map-sound-world@netevent.ddnet.org" 0x54ecad2e_bfad_3be5_8903_621ba052458e), "MapSoundWorld" {
        /// Position.
        x: int,
        /// Position.
        y: int,
        /// Map sound index.
        sound_id: int,
    }
}

impl ExtendedType {
    /// The UUID the item names.
    pub fn uuid(&self) -> uuid::Uuid {
        crate::codec::uuid::uuid_from_ints(&self.uuid)
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
        /// 0 all, 1 team; DDNet: -2..3 with whisper send (2) and receive (3).
        team: int,
        /// Who said it, -1 the server.
        client_id: int,
        /// Text.
        message: str,
    }
    /// A kill.
    SvKillMsg = 4, "Sv_KillMsg" {
        /// Killer's client id.
        killer: int,
        /// Victim's client id.
        victim: int,
        /// `WEAPON_*`, -1 world, -2 game (team change), -3 self.
        weapon: int,
        /// Mode-specific bits (flag carrier kills).
        mode_special: int,
    }
    /// A sound heard everywhere.
    SvSoundGlobal = 5, "Sv_SoundGlobal" {
        /// `SOUND_*`.
        sound_id: int,
    }
    /// Tuning parameters: one int (× 100) per parameter, as many as the server knows.
    SvTuneParams<'a> = 6, "Sv_TuneParams" {
        /// The packed ints.
        params: rest,
    }
    /// An extra projectile (Teeworlds 0.6 servers; DDNet calls the id `Unused` and sends
    /// nothing under it).
    SvExtraProjectile<'a> = 7, "Sv_ExtraProjectile" {
        /// How many projectiles follow (vanilla servers send 1).
        num: int,
        /// The projectiles' ints, packed (6 per `Projectile`).
        projectiles: rest,
    }
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
        /// `EMOTICON_*`.
        emoticon: int,
    }
    /// The vote list is cleared.
    SvVoteClearOptions = 11, "Sv_VoteClearOptions" {}
    /// Up to 15 vote options.
    SvVoteOptionListAdd<'a> = 12, "Sv_VoteOptionListAdd" {
        /// How many of the 15 are used.
        num_options: int,
        /// The descriptions (unused ones empty).
        descriptions: (strs 15),
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
    /// A vote started (or ended: timeout 0).
    SvVoteSet<'a> = 15, "Sv_VoteSet" {
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

    // ---- Game messages, client to server ----

    /// A chat line a client sends.
    ClSay<'a> = 17, "Cl_Say" {
        /// 1 for team chat.
        team: int,
        /// Text.
        message: str,
    }
    /// A team change request.
    ClSetTeam = 18, "Cl_SetTeam" {
        /// -1 spectators, 0 red / game, 1 blue.
        team: int,
    }
    /// Whom to spectate.
    ClSetSpectatorMode = 19, "Cl_SetSpectatorMode" {
        /// Client id, -1 free view.
        spectator_id: int,
    }
    /// The player's first info.
    ClStartInfo<'a> = 20, "Cl_StartInfo" {
        /// Name.
        name: str,
        /// Clan.
        clan: str,
        /// ISO 3166-1 numeric country code.
        country: int,
        /// Skin name.
        skin: str,
        /// 1 if the colors are used.
        use_custom_color: int,
        /// Body color.
        color_body: int,
        /// Feet color.
        color_feet: int,
    }
    /// A change of the player's info.
    ClChangeInfo<'a> = 21, "Cl_ChangeInfo" {
        /// Name.
        name: str,
        /// Clan.
        clan: str,
        /// ISO 3166-1 numeric country code.
        country: int,
        /// Skin name.
        skin: str,
        /// 1 if the colors are used.
        use_custom_color: int,
        /// Body color.
        color_body: int,
        /// Feet color.
        color_feet: int,
    }
    /// The player kills itself.
    ClKill = 22, "Cl_Kill" {}
    /// An emoticon.
    ClEmoticon = 23, "Cl_Emoticon" {
        /// `EMOTICON_*`.
        emoticon: int,
    }
    /// A vote.
    ClVote = 24, "Cl_Vote" {
        /// -1 no, 0 pass, 1 yes.
        vote: int,
    }
    /// A vote call.
    ClCallVote<'a> = 25, "Cl_CallVote" {
        /// `"option"`, `"kick"` or `"spectate"`.
        kind: str,
        /// The option or client id.
        value: str,
        /// Why.
        reason: str,
    }
    /// An old DDNet client says it is one.
    ClIsDdnetLegacy<'a> = 26, "Cl_IsDDNetLegacy" {
        /// The DDNet version int, when sent.
        version: rest,
    }
    /// Race time (old DDNet servers).
    SvDdraceTimeLegacy = 27, "Sv_DDRaceTimeLegacy" {
        /// Time, centiseconds.
        time: int,
        /// Checkpoint difference.
        check: int,
        /// 1 when finished.
        finish: int,
    }
    /// Records (old DDNet servers).
    SvRecordLegacy = 28, "Sv_RecordLegacy" {
        /// Server record.
        server_time_best: int,
        /// Player record.
        player_time_best: int,
    }
    /// An unused id.
    Unused2 = 29, "Unused2" {}
    /// Teams of every player (old DDNet servers): one int per client id.
    SvTeamsStateLegacy<'a> = 30, "Sv_TeamsStateLegacy" {
        /// The packed ints.
        teams: rest,
    }
    /// Show other teams (old DDNet clients).
    ClShowOthersLegacy = 31, "Cl_ShowOthersLegacy" {
        /// 1 to show.
        show: int,
    }

    // ---- DDNet's extended game messages ----

    /// A test message of DDNet's.
    SvMyOwnMessage = (ex "my-own-message@heinrich5991.de" 0x1231e484_f607_3722_a89a_bd85db46f5d2), "Sv_MyOwnMessage" {
        /// Test value.
        test: int,
    }
    /// The client's view distance.
    ClShowDistance = (ex "show-distance@netmsg.ddnet.tw" 0x53bb28af_4252_3ac9_8fd3_6ccbc2a603e3), "Cl_ShowDistance" {
        /// Width.
        x: int,
        /// Height.
        y: int,
    }
    /// Show other teams: 0 no, 1 yes, 2 own team only.
    ClShowOthers = (ex "showothers@netmsg.ddnet.tw" 0x7f264cdd_71a2_3962_bbce_0f94bbd81913), "Cl_ShowOthers" {
        /// Mode.
        show: int,
    }
    /// The client's camera.
    ClCameraInfo = (ex "camera-info@netmsg.ddnet.org" 0x8c470228_ee11_3808_93b9_c5c87d08b51c), "Cl_CameraInfo" {
        /// Zoom.
        zoom: int,
        /// Deadzone.
        deadzone: int,
        /// Follow factor.
        follow_factor: int,
    }
    /// Teams of every player: one int per client id (and more with 128 teams).
    SvTeamsState<'a> = (ex "teamsstate@netmsg.ddnet.tw" 0xa091961a_95e8_3744_bb60_5eac9bd563c6), "Sv_TeamsState" {
        /// The packed ints.
        teams: rest,
    }
    /// Race time.
    SvDdraceTime = (ex "ddrace-time@netmsg.ddnet.tw" 0x5dde8b3c_6f6f_37ac_a72a_bb341fe76de5), "Sv_DDRaceTime" {
        /// Time, centiseconds.
        time: int,
        /// Checkpoint difference.
        check: int,
        /// 1 when finished.
        finish: int,
    }
    /// Records.
    SvRecord = (ex "record@netmsg.ddnet.tw" 0x804f149f_9b53_3b0a_897f_59663a1c4eb9), "Sv_Record" {
        /// Server record.
        server_time_best: int,
        /// Player record.
        player_time_best: int,
    }
    /// A team was killed.
    SvKillMsgTeam = (ex "killmsgteam@netmsg.ddnet.tw" 0xee610b6f_909f_311e_93f7_11a95f55a086), "Sv_KillMsgTeam" {
        /// Team.
        team: int,
        /// First to die, -1 none.
        first: int,
    }
    /// The client's own vote.
    SvYourVote = (ex "yourvote@netmsg.ddnet.org" 0xbfd7f0fc_16d5_3e10_8015_a78380f13870), "Sv_YourVote" {
        /// -1 no, 0 none, 1 yes.
        voted: int,
    }
    /// A race finish.
    SvRaceFinish = (ex "racefinish@netmsg.ddnet.org" 0xc915ba68_0a49_3324_915a_7a6220cecf33), "Sv_RaceFinish" {
        /// Who finished.
        client_id: int,
        /// Time, milliseconds.
        time: int,
        /// Difference to the personal record, milliseconds.
        diff: int,
        /// 1 for a new personal record.
        record_personal: int,
        /// 1 for a new server record (older servers leave it out).
        record_server: (opt int),
    }
    /// A chat command the client may complete.
    SvCommandInfo<'a> = (ex "commandinfo@netmsg.ddnet.org" 0x90778f65_1b8f_322a_9713_cf741aa44a05), "Sv_CommandInfo" {
        /// Command.
        name: str,
        /// Argument format.
        args_format: str,
        /// Help text.
        help_text: str,
    }
    /// A chat command was removed.
    SvCommandInfoRemove<'a> = (ex "commandinfo-remove@netmsg.ddnet.org" 0xeb2e77ce_e9a2_35aa_94be_235f523ac1aa), "Sv_CommandInfoRemove" {
        /// Command.
        name: str,
    }
    /// Vote options follow.
    SvVoteOptionGroupStart = (ex "sv-vote-option-group-start@netmsg.ddnet.org" 0x969d127c_b768_390d_8879_6104993769fa), "Sv_VoteOptionGroupStart" {}
    /// Vote options end.
    SvVoteOptionGroupEnd = (ex "sv-vote-option-group-end@netmsg.ddnet.org" 0x4f096765_39b1_3766_82dc_61b20ccf589a), "Sv_VoteOptionGroupEnd" {}
    /// Chat commands follow.
    SvCommandInfoGroupStart = (ex "sv-commandinfo-group-start@netmsg.ddnet.org" 0x9e220138_d393_3cb0_90f1_e587c00ab1d0), "Sv_CommandInfoGroupStart" {}
    /// Chat commands end.
    SvCommandInfoGroupEnd = (ex "sv-commandinfo-group-end@netmsg.ddnet.org" 0x054125d8_0062_3891_840b_47462285a01f), "Sv_CommandInfoGroupEnd" {}
    /// Info changes wait until this tick.
    SvChangeInfoCooldown = (ex "change-info-cooldown@netmsg.ddnet.org" 0x746cb54c_6b2b_39a7_8cd8_7c7a1c6c3009), "Sv_ChangeInfoCooldown" {
        /// Tick.
        wait_until: int,
    }
    /// A map sound heard everywhere.
    SvMapSoundGlobal = (ex "map-sound-global@netmsg.ddnet.org" 0x669c9741_695a_369b_856c_a254f6b7f0cb), "Sv_MapSoundGlobal" {
        /// Map sound index.
        sound_id: int,
    }
    /// Another player's input ahead of its tick.
    SvPreInput = (ex "preinput@netmsg.ddnet.org" 0xb5d3a686_ad59_382c_b3de_d9fedc3320ae), "Sv_PreInput" {
        /// Direction.
        direction: int,
        /// Aim.
        target_x: int,
        /// Aim.
        target_y: int,
        /// Jump.
        jump: int,
        /// Fire.
        fire: int,
        /// Hook.
        hook: int,
        /// Wanted weapon.
        wanted_weapon: int,
        /// Next weapon.
        next_weapon: int,
        /// Previous weapon.
        prev_weapon: int,
        /// Whose input.
        owner: int,
        /// For which tick.
        intended_tick: int,
    }
    /// A team save's code and state.
    SvSaveCode<'a> = (ex "save-code@netmsg.ddnet.org" 0xdc9edffb_266a_3bd6_b101_a949fa44e16b), "Sv_SaveCode" {
        /// `SAVESTATE_*`.
        state: int,
        /// Error text.
        error: str,
        /// Who asked.
        save_requester: str,
        /// Server name.
        server_name: str,
        /// The generated code.
        generated_code: str,
        /// The code.
        code: str,
        /// The team's members.
        team_members: str,
    }
    /// A server alert.
    SvServerAlert<'a> = (ex "server-alert@netmsg.ddnet.org" 0x035206dc_9f8b_315c_9abf_5ab9153a857c), "Sv_ServerAlert" {
        /// Text.
        message: str,
    }
    /// A moderator alert.
    SvModeratorAlert<'a> = (ex "moderator-alert@netmsg.ddnet.org" 0xd7c55683_7983_32f0_8d9a_877434ea19d5), "Sv_ModeratorAlert" {
        /// Text.
        message: str,
    }
    /// The client wants spectator counts.
    ClEnableSpectatorCount = (ex "enable-spectator-count@netmsg.ddnet.org" 0xe19b66e8_0646_351b_aa03_d4aba7b9545f), "Cl_EnableSpectatorCount" {
        /// 1 to enable.
        enable: int,
    }
    /// The map's description.
    SvMapInfo<'a> = (ex "map-info@netmsg.ddnet.org" 0xda46b81d_a060_30c3_9abb_dd2945e8edb4), "Sv_MapInfo" {
        /// Text.
        description: str,
    }

    // ---- System messages (NETMSG_*) ----

    /// The client's version and password.
    Info<'a> = (sys 1), "NETMSG_INFO" {
        /// Network version, e.g. `"0.6 626fce9a778df4d4"`.
        version: str,
        /// Password.
        password: (opt str),
    }
    /// The map changes.
    MapChange<'a> = (sys 2), "NETMSG_MAP_CHANGE" {
        /// Map name.
        name: str,
        /// CRC.
        crc: int,
        /// Size in bytes.
        size: int,
    }
    /// A chunk of the map file.
    MapData<'a> = (sys 3), "NETMSG_MAP_DATA" {
        /// 1 for the last chunk.
        last: int,
        /// The map's CRC.
        crc: int,
        /// Chunk number.
        chunk: int,
        /// The chunk, after its size.
        data: bytes,
    }
    /// The connection is ready.
    ConReady = (sys 4), "NETMSG_CON_READY" {}
    /// A part of a snapshot.
    Snap<'a> = (sys 5), "NETMSG_SNAP" {
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
    SnapEmpty = (sys 6), "NETMSG_SNAPEMPTY" {
        /// Tick.
        tick: int,
        /// Ticks back to the delta's base.
        delta_tick: int,
    }
    /// A snapshot in one part.
    SnapSingle<'a> = (sys 7), "NETMSG_SNAPSINGLE" {
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
    SnapSmall<'a> = (sys 8), "NETMSG_SNAPSMALL" {
        /// Its bytes.
        data: rest,
    }
    /// How early the client's input arrived.
    InputTiming = (sys 9), "NETMSG_INPUTTIMING" {
        /// The input's intended tick.
        input_pred_tick: int,
        /// Time left, ms.
        time_left: int,
    }
    /// Remote console authentication result.
    RconAuthStatus = (sys 10), "NETMSG_RCON_AUTH_STATUS" {
        /// 1 authed.
        auth_level: (opt int),
        /// 1 if commands follow.
        receive_commands: (opt int),
    }
    /// A remote console line.
    RconLine<'a> = (sys 11), "NETMSG_RCON_LINE" {
        /// Text.
        line: str,
    }
    /// The client is ready.
    Ready = (sys 14), "NETMSG_READY" {}
    /// The client enters the game.
    EnterGame = (sys 15), "NETMSG_ENTERGAME" {}
    /// The client's input.
    Input = (sys 16), "NETMSG_INPUT" {
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
    RconCmd<'a> = (sys 17), "NETMSG_RCON_CMD" {
        /// Command.
        cmd: str,
    }
    /// Remote console login.
    RconAuth<'a> = (sys 18), "NETMSG_RCON_AUTH" {
        /// User name (empty for the plain password).
        name: str,
        /// Password.
        password: str,
        /// 1 to receive the command list.
        send_rcon_cmds: (opt int),
    }
    /// The client asks for a map chunk.
    RequestMapData = (sys 19), "NETMSG_REQUEST_MAP_DATA" {
        /// Chunk number.
        chunk: int,
    }
    /// A ping.
    Ping = (sys 22), "NETMSG_PING" {}
    /// A ping's reply.
    PingReply = (sys 23), "NETMSG_PING_REPLY" {}
    /// A remote console command became available.
    RconCmdAdd<'a> = (sys 25), "NETMSG_RCON_CMD_ADD" {
        /// Command.
        name: str,
        /// Help.
        help: str,
        /// Parameter format.
        params: str,
    }
    /// A remote console command went away.
    RconCmdRemove<'a> = (sys 26), "NETMSG_RCON_CMD_REM" {
        /// Command.
        name: str,
    }

    // ---- DDNet's extended system messages ----

    /// Which message a UUID is.
    WhatIs = (sys_ex "what-is@ddnet.tw" 0x245e5097_9fe0_39d6_bf7d_9a29e1691e4c), "NETMSG_WHATIS" {
        /// The UUID asked about.
        uuid: uuid,
    }
    /// The answer to a what-is.
    ItIs<'a> = (sys_ex "it-is@ddnet.tw" 0x6954847e_2e87_3603_b562_36da29ed1aca), "NETMSG_ITIS" {
        /// The UUID.
        uuid: uuid,
        /// Its name.
        name: str,
    }
    /// The answer to a what-is for an unknown UUID.
    IDontKnow = (sys_ex "i-dont-know@ddnet.tw" 0x416911b5_7973_33bf_8d52_7bf01e519cf0), "NETMSG_IDONTKNOW" {
        /// The UUID.
        uuid: uuid,
    }
    /// Whether rcon login takes a user name.
    RconType = (sys_ex "rcon-type@ddnet.tw" 0x12810e1f_a1db_3378_b4fb_164ed6505926), "NETMSG_RCONTYPE" {
        /// 1 if it does.
        username_required: int,
    }
    /// The map's SHA-256 and where to download it.
    MapDetails<'a> = (sys_ex "map-details@ddnet.tw" 0xf9117b3c_8039_3416_9fc0_aef2bcb75c03), "NETMSG_MAP_DETAILS" {
        /// Map name.
        name: str,
        /// SHA-256.
        sha256: (raw 32),
        /// CRC.
        crc: int,
        /// Size in bytes.
        size: int,
        /// Download URL (newer servers).
        url: (opt str),
    }
    /// What the server can do.
    Capabilities = (sys_ex "capabilities@ddnet.tw" 0xf621a5a1_f585_3775_8e73_41beee79f2b2), "NETMSG_CAPABILITIES" {
        /// Capability version.
        version: int,
        /// `SERVERCAPFLAG_*`.
        flags: int,
    }
    /// The client's DDNet version.
    ClientVersion<'a> = (sys_ex "clientver@ddnet.tw" 0x8c001304_8461_3e47_8787_f672b3835bd4), "NETMSG_CLIENTVER" {
        /// Connection UUID.
        connection_id: uuid,
        /// Version number.
        ddnet_version: int,
        /// Version string.
        ddnet_version_string: str,
    }
    /// A ping with an id.
    PingEx = (sys_ex "ping@ddnet.tw" 0xbcb43bf5_427c_36d8_b5b8_7975c8c06aa1), "NETMSG_PINGEX" {
        /// Id.
        id: uuid,
    }
    /// The answer to a ping with an id.
    PongEx = (sys_ex "pong@ddnet.tw" 0xd8295530_14a7_3a0a_b02e_b2cee08d2033), "NETMSG_PONGEX" {
        /// Id.
        id: uuid,
    }
    /// A request for a checksum of the client.
    ChecksumRequest = (sys_ex "checksum-request@ddnet.tw" 0x60a7cef1_2ecc_3ed4_b138_00fd0c8f5994), "NETMSG_CHECKSUM_REQUEST" {
        /// Id.
        id: uuid,
        /// Start.
        start: int,
        /// Length.
        length: int,
    }
    /// A checksum.
    ChecksumResponse = (sys_ex "checksum-response@ddnet.tw" 0x88fc61ec_5a3c_3fc3_8dfa_fd3b715db9e0), "NETMSG_CHECKSUM_RESPONSE" {
        /// Id.
        id: uuid,
        /// SHA-256.
        sha256: (raw 32),
    }
    /// A checksum could not be made.
    ChecksumError = (sys_ex "checksum-error@ddnet.tw" 0x090960d1_4000_3fd5_9670_4976ae702a6a), "NETMSG_CHECKSUM_ERROR" {
        /// Id.
        id: uuid,
        /// Error code.
        error: int,
    }
    /// Connect to another port of the server.
    Redirect = (sys_ex "redirect@ddnet.org" 0x4efe406a_7774_33f1_bfde_1806ff6d1528), "NETMSG_REDIRECT" {
        /// Port.
        port: int,
    }
    /// Remote console commands follow.
    RconCmdGroupStart = (sys_ex "rcon-cmd-group-start@ddnet.org" 0x85f67ffe_f1b1_3af3_98c4_26dbf77111b7), "NETMSG_RCON_CMD_GROUP_START" {
        /// How many.
        length: int,
    }
    /// Remote console commands end.
    RconCmdGroupEnd = (sys_ex "rcon-cmd-group-end@ddnet.org" 0x5e02c980_6ca1_3c99_a9af_4650ae956252), "NETMSG_RCON_CMD_GROUP_END" {}
    /// The map reloads.
    MapReload = (sys_ex "map-reload@ddnet.org" 0x9a9b28a3_19b0_37d9_b1f4_2cccfba05bac), "NETMSG_MAP_RELOAD" {}
    /// Reconnect.
    Reconnect = (sys_ex "reconnect@ddnet.org" 0x5f4d5db7_3947_3711_b04e_07a1ff23c970), "NETMSG_RECONNECT" {}
    /// Map names for the map list: NUL-terminated strings back to back.
    MaplistAdd<'a> = (sys_ex "sv-maplist-add@ddnet.org" 0xca956101_b034_3339_92ca_aa104b20d770), "NETMSG_MAPLIST_ADD" {
        /// The strings.
        names: rest,
    }
    /// Map list entries follow.
    MaplistGroupStart = (sys_ex "sv-maplist-start@ddnet.org" 0xd2fafec0_5cd2_319a_a84d_480f2072dee4), "NETMSG_MAPLIST_GROUP_START" {
        /// How many.
        length: int,
    }
    /// Map list entries end.
    MaplistGroupEnd = (sys_ex "sv-maplist-end@ddnet.org" 0x43fd0a8b_8b23_350d_b3f6_0de549246a70), "NETMSG_MAPLIST_GROUP_END" {}
}
