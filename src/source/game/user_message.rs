//! The user messages that carry text: `SayText`, `SayText2` and `TextMsg`.
//!
//! A game numbers its user messages in the order it registers them, and a Source 1 demo
//! does not carry the list: the numbers are per game ([`TextMessages::of`]). Every game
//! this layer knows registers `SayText` third; `SayText2` and `TextMsg` follow, except in
//! the 2004 engine and Day of Defeat: Source, which have no `SayText2`.

use crate::source::net::{Branch, Coder, NetError, NetStr, Protocol};

/// The numbers of a game's text user messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextMessages {
    /// `SayText`.
    pub say_text: u8,
    /// `SayText2`, if the game has it.
    pub say_text2: Option<u8>,
    /// `TextMsg`.
    pub text_msg: u8,
}

impl TextMessages {
    /// The numbers of the game in `game_dir` on `protocol`.
    pub fn of(protocol: Protocol, game_dir: &str) -> TextMessages {
        let without_say_text2 = (protocol.branch == Branch::Classic && protocol.network <= 7)
            || game_dir.eq_ignore_ascii_case("dod");
        if without_say_text2 {
            TextMessages {
                say_text: 3,
                say_text2: None,
                text_msg: 4,
            }
        } else {
            TextMessages {
                say_text: 3,
                say_text2: Some(4),
                text_msg: 5,
            }
        }
    }
}

/// Reads strings to the end of the message (at most `max`), or writes all of them.
fn code_strings<C: Coder>(c: &mut C, v: &mut Vec<NetStr>, max: usize) -> Result<(), NetError> {
    if C::READING {
        v.clear();
        while v.len() < max && c.remaining().is_some_and(|bits| bits >= 8) {
            let mut s = NetStr::default();
            c.string(&mut s)?;
            v.push(s);
        }
        Ok(())
    } else {
        v.iter_mut().try_for_each(|s| c.string(s))
    }
}

/// `SayText`: a line of text from a client (0 the server).
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SayText {
    /// The speaker's entity index (player slot + 1), 0 the server.
    pub client: u8,
    /// The text.
    pub text: NetStr,
    /// Shown in the chat (rather than only the console), when the game sends the flag.
    pub chat: Option<u8>,
}

impl SayText {
    /// Decodes (or encodes) the message.
    pub fn code<C: Coder>(&mut self, c: &mut C) -> Result<(), NetError> {
        c.uint(&mut self.client, 8)?;
        c.string(&mut self.text)?;
        if C::READING {
            self.chat = None;
            if c.remaining().is_some_and(|bits| bits >= 8) {
                self.chat = Some(0);
            }
        }
        if let Some(chat) = &mut self.chat {
            c.uint(chat, 8)?;
        }
        Ok(())
    }
}

/// `SayText2`: a localized line: a format token (`TF_Chat_All`, `L4D_Chat_All`, ...) and
/// its parameters, normally the speaker's name and the text.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SayText2 {
    /// The speaker's entity index (player slot + 1), 0 the server.
    pub client: u8,
    /// Shown in the chat.
    pub chat: u8,
    /// The format token, or the whole text when a plugin sent raw text.
    pub message: NetStr,
    /// The parameters (up to four).
    pub params: Vec<NetStr>,
}

impl SayText2 {
    /// Decodes (or encodes) the message.
    pub fn code<C: Coder>(&mut self, c: &mut C) -> Result<(), NetError> {
        c.uint(&mut self.client, 8)?;
        c.uint(&mut self.chat, 8)?;
        c.string(&mut self.message)?;
        code_strings(c, &mut self.params, 4)
    }
}

/// `TextMsg`: a notice for the HUD, console or chat: a token and up to four parameters.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TextMsg {
    /// Where it shows: 1 notify, 2 console, 3 chat, 4 centre.
    pub destination: u8,
    /// The text or its token.
    pub message: NetStr,
    /// The parameters.
    pub params: Vec<NetStr>,
}

impl TextMsg {
    /// Decodes (or encodes) the message.
    pub fn code<C: Coder>(&mut self, c: &mut C) -> Result<(), NetError> {
        c.uint(&mut self.destination, 8)?;
        c.string(&mut self.message)?;
        code_strings(c, &mut self.params, 4)
    }
}
