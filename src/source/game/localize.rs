//! The readable text of the localisation tokens Source servers send instead of text.
//!
//! A server tells clients to show `#TF_timeleft` with the parameters `29` and `55`, and
//! each client looks the token up in its game's language files. A demo holds only the
//! token, so the chat and text lines read from it would show `#TF_timeleft 29 55`. The
//! table below gives the common tokens of the games demokit reads (Team Fortress 2,
//! Counter-Strike: Source and CS:GO, Left 4 Dead 1 and 2, Half-Life 2: Deathmatch, Day of
//! Defeat: Source, Portal) a short English text of our own wording, `{1}` to `{4}` standing
//! for the parameters; a token not in it is kept as it is, parameters after it.
//!
//! This module knows no demo: it turns a token and its parameters into text.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

/// The tokens (without `#`, compared without regard to case) and their text.
const TOKENS: &[(&str, &str)] = &[
    // Every game.
    ("game_connected", "{1} connected"),
    ("game_disconnected", "{1} disconnected"),
    ("game_player_joined_game", "{1} joined the game"),
    ("game_player_left_game", "{1} left the game ({2})"),
    ("game_player_joined_team", "{1} joined team {2}"),
    ("game_player_changed_name", "{1} is now {2}"),
    ("game_scoring", "scoring"),
    ("game_idle_kick", "{1} was kicked for being idle"),
    ("game_timelimit", "time limit: {1}"),
    ("game_nextmap", "next map: {1}"),
    // Team Fortress 2.
    ("tf_timeleft", "time left: {1}:{2}"),
    ("tf_timeleft_nolimit", "no time limit"),
    ("tf_nextmap", "next map: {1}"),
    (
        "tf_autobalance_start",
        "teams will be balanced in {1} seconds",
    ),
    ("tf_autobalance_teams", "the teams have been balanced"),
    ("tf_teams_unbalanced", "the teams are unbalanced"),
    ("tf_game_over", "game over"),
    ("tf_win_condition", "win condition: {1}"),
    ("tf_mvm_wave_lose", "the wave was lost"),
    ("tf_arena_notenoughplayers", "arena: not enough players"),
    ("tf_autoteambalance", "auto team balance: {1}"),
    // Counter-Strike: Source and CS:GO.
    (
        "sfui_notice_match_will_start_chat",
        "the match starts when the players are ready",
    ),
    ("sfui_notice_warmup_has_ended", "the warmup has ended"),
    ("sfui_notice_round_draw", "round draw"),
    ("sfui_notice_terrorists_win", "terrorists win"),
    ("sfui_notice_cts_win", "counter-terrorists win"),
    ("sfui_notice_target_bombed", "the target was bombed"),
    ("sfui_notice_target_saved", "the target was saved"),
    ("sfui_notice_bomb_defused", "the bomb was defused"),
    (
        "sfui_notice_all_hostages_rescued",
        "every hostage was rescued",
    ),
    (
        "sfui_notice_hostages_not_rescued",
        "the hostages were not rescued",
    ),
    (
        "sfui_notice_game_will_restart_in",
        "the game restarts in {1} {2}",
    ),
    ("sfui_notice_game_commencing", "the game is starting"),
    ("sfui_notice_match_restart", "the match restarts"),
    ("sfui_notice_last_round_half", "last round of the half"),
    ("sfui_notice_match_point", "match point"),
    (
        "cstrike_titlestxt_game_will_restart_in",
        "the game restarts in {1} {2}",
    ),
    ("game_will_restart_in", "the game restarts in {1} {2}"),
    ("game_commencing", "the game is starting"),
    ("round_draw", "round draw"),
    ("terrorists_win", "terrorists win"),
    ("cts_win", "counter-terrorists win"),
    ("target_bombed", "the target was bombed"),
    ("target_saved", "the target was saved"),
    ("bomb_defused", "the bomb was defused"),
    ("bomb_planted", "the bomb has been planted"),
    ("all_hostages_rescued", "every hostage was rescued"),
    ("game_teammate_attack", "{1} attacked a teammate"),
    ("game_join_terrorist", "{1} joins the terrorists"),
    ("game_join_ct", "{1} joins the counter-terrorists"),
    (
        "game_join_terrorist_auto",
        "{1} joins the terrorists (auto)",
    ),
    (
        "game_join_ct_auto",
        "{1} joins the counter-terrorists (auto)",
    ),
    ("game_bomb_drop", "{1} dropped the bomb"),
    ("game_bomb_pickup", "{1} picked up the bomb"),
    ("cstrike_tutor_bomb_planted", "the bomb has been planted"),
    // Left 4 Dead 1 and 2.
    ("l4d_idle_spectator", "{1} is idle"),
    ("l4d_idle_player", "{1} is back"),
    ("l4d_scenario_restart", "the scenario restarts"),
    ("l4d_scenario_lost", "the survivors were lost"),
    ("l4d_vote_passed", "the vote passed"),
    ("l4d_vote_failed", "the vote failed"),
    ("l4d_player_kicked", "{1} was kicked"),
    ("l4d_game_over", "game over"),
    // Day of Defeat: Source.
    ("dod_allies_win", "the Allies win"),
    ("dod_axis_win", "the Axis win"),
    ("dod_round_restart", "the round restarts"),
    // Half-Life 2: Deathmatch.
    ("hl2mp_teams_unbalanced", "the teams are unbalanced"),
];

/// The text of `token` (with or without its `#`) with `params` in its places, or `None`
/// for a token not in the table. Parameters the text has no place for are left out; a
/// place without a parameter is left empty.
pub fn readable(token: &str, params: &[String]) -> Option<String> {
    let name = token.strip_prefix('#').unwrap_or(token);
    let (_, text) = TOKENS.iter().find(|(t, _)| t.eq_ignore_ascii_case(name))?;
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = *text;
    while let Some(at) = rest.find('{') {
        let (before, place) = rest.split_at(at);
        out.push_str(before);
        let mut chars = place.chars();
        chars.next();
        match (chars.next(), chars.next()) {
            (Some(d @ '1'..='4'), Some('}')) => {
                let i = usize::from(d as u8 - b'1');
                out.push_str(params.get(i).map_or("", String::as_str));
                rest = place.get(3..).unwrap_or_default();
            }
            _ => {
                out.push('{');
                rest = place.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_read_with_their_parameters() {
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            readable("#TF_timeleft", &p(&["29", "55"])).as_deref(),
            Some("time left: 29:55")
        );
        assert_eq!(
            readable("#SFUI_Notice_Match_Will_Start_Chat", &[]).as_deref(),
            Some("the match starts when the players are ready")
        );
        assert_eq!(
            readable("#L4D_idle_spectator", &p(&["Ellis"])).as_deref(),
            Some("Ellis is idle")
        );
        assert_eq!(
            readable("#Game_connected", &[]).as_deref(),
            Some(" connected")
        );
        assert_eq!(readable("#Some_Mod_Token", &p(&["x"])), None);
        // Every text's places are {1} to {4}.
        for (token, text) in TOKENS {
            let places = text.matches('{').count();
            assert_eq!(places, text.matches('}').count(), "{token}");
            assert!(
                token
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{token}"
            );
        }
    }
}
