//! The user messages that carry text: `SayText`, `SayText2` and `TextMsg`.
//!
//! A game numbers its user messages in the order it registers them, and a Source 1 demo
//! does not carry the list: the numbers are per game ([`TextMessages::of`]). Every game
//! this layer knows registers `SayText` third; `SayText2` and `TextMsg` follow, except in
//! the 2004 engine and Day of Defeat: Source, which have no `SayText2`. CS:GO numbers
//! them 5, 6 and 7 (`ECstrike15UserMessages`) and lays them out as protobuf messages
//! ([`SayText::from_csgo`] and its siblings read them into the same structs).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use crate::codec::string::NulStr;
use crate::source::net::csgo::pb;
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
        if protocol.is_protobuf() {
            return TextMessages {
                say_text: 5,
                say_text2: Some(6),
                text_msg: 7,
            };
        }
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

/// A protobuf string as a network string, cut at a NUL.
fn net_str(mut bytes: Vec<u8>) -> NetStr {
    if let Some(nul) = bytes.iter().position(|&b| b == 0) {
        bytes.truncate(nul);
    }
    NulStr(bytes)
}

/// A protobuf entity index as the byte the bit layouts carry.
fn client(ent_idx: Option<i32>) -> u8 {
    u8::try_from(ent_idx.unwrap_or(0)).unwrap_or(0)
}

impl SayText {
    /// CS:GO's `CCSUsrMsg_SayText` (user message 5); `None` when it does not decode.
    pub fn from_csgo(data: &[u8]) -> Option<SayText> {
        let m = <pb::SayText as prost::Message>::decode(data).ok()?;
        Some(SayText {
            client: client(m.ent_idx),
            text: net_str(m.text.unwrap_or_default()),
            chat: m.chat.map(u8::from),
        })
    }
}

impl SayText2 {
    /// CS:GO's `CCSUsrMsg_SayText2` (user message 6); `None` when it does not decode.
    pub fn from_csgo(data: &[u8]) -> Option<SayText2> {
        let m = <pb::SayText2 as prost::Message>::decode(data).ok()?;
        Some(SayText2 {
            client: client(m.ent_idx),
            chat: u8::from(m.chat.unwrap_or(false)),
            message: net_str(m.msg_name.unwrap_or_default()),
            params: m.params.into_iter().map(net_str).collect(),
        })
    }
}

impl TextMsg {
    /// CS:GO's `CCSUsrMsg_TextMsg` (user message 7), whose first parameter is the text or
    /// its token; `None` when it does not decode.
    pub fn from_csgo(data: &[u8]) -> Option<TextMsg> {
        let m = <pb::TextMsg as prost::Message>::decode(data).ok()?;
        let mut params = m.params.into_iter().map(net_str);
        Some(TextMsg {
            destination: u8::try_from(m.msg_dst.unwrap_or(0)).unwrap_or(0),
            message: params.next().unwrap_or_default(),
            params: params.collect(),
        })
    }
}
