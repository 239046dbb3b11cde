//! The network layer of Source demos: the `NET_*` and `SVC_*` messages inside signon and
//! packet frames, for each engine branch, decoded and encoded bit for bit.
//!
//! * [`branch`]: which fork of the engine wrote a demo, and how it numbers its messages.
//! * [`coder`]: the one description both directions follow.
//! * [`message`]: the messages, each laid out once.
//! * [`csgo`]: CS:GO's protobuf messages, kept as their bytes, with typed views.
//!
//! A packet's messages come one at a time from [`Messages`]; [`Packet`] holds them all and
//! encodes them back to the same bytes. The payloads inside messages that the game defines
//! (string-table entries, game events, user messages, entity deltas) stay bits here: the
//! layers above read them.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub mod branch;
pub mod coder;
pub mod csgo;
pub mod error;
pub mod game_event;
pub mod message;
pub mod state;
pub mod string_table;

pub use branch::{Branch, Protocol};
pub use coder::{Coder, Decoder, Encoder, Length, NetStr};
pub use csgo::ProtoMessage;
pub use error::{NetError, NetErrorKind};
pub use message::{Layout, MessageKind, NetMessage};

use crate::codec::bits::{BitReader, BitWriter, Bits};

/// One message and the bit of the packet data where its number starts.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MessageAt {
    /// The bit where the message's number starts.
    pub bit: usize,
    /// The message.
    pub message: NetMessage,
}

/// The messages of one packet's data, one at a time.
///
/// Ends after the last whole message; fewer bits than a message number takes are padding,
/// which [`Messages::tail`] hands out. An unknown number or a message cut short is an
/// error, after which the iterator ends.
#[derive(Debug)]
pub struct Messages<'a> {
    decoder: Decoder<'a>,
    protocol: Protocol,
    failed: bool,
}

impl<'a> Messages<'a> {
    /// The messages of `data` as `protocol` lays them out.
    pub fn new(data: &'a [u8], protocol: Protocol) -> Self {
        Messages {
            decoder: Decoder::new(BitReader::new(data)),
            protocol,
            failed: false,
        }
    }

    /// The protocol with what this packet's messages have told about the build so far:
    /// carry it to the next packet.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Settles the width of `svc_UpdateStringTable`'s table index on the first update of
    /// a 2004-engine demo, whose builds use 5 or 4 bits: the width with which the rest of
    /// the packet decodes to its end.
    fn settle_table_index_bits(&mut self) {
        let parses = |bits: u8| {
            let mut protocol = self.protocol;
            protocol.table_index_bits = bits;
            protocol.table_index_bits_known = true;
            let mut rest = Messages {
                decoder: Decoder::new(*self.decoder.reader()),
                protocol,
                failed: false,
            };
            rest.by_ref().all(|m| m.is_ok())
        };
        self.protocol.table_index_bits = if parses(5) || !parses(4) { 5 } else { 4 };
        self.protocol.table_index_bits_known = true;
    }

    /// The bits after the last message (fewer than a message number takes), once the
    /// iterator has ended.
    pub fn tail(&self) -> Bits {
        let mut r = *self.decoder.reader();
        r.read_bits(r.remaining()).unwrap_or_default()
    }
}

impl Iterator for Messages<'_> {
    type Item = Result<MessageAt, NetError>;

    fn next(&mut self) -> Option<Self::Item> {
        let type_bits = self.protocol.type_bits();
        if self.failed || self.decoder.reader().remaining() < type_bits as usize {
            return None;
        }
        let bit = self.decoder.position();
        let mut peek = *self.decoder.reader();
        if !self.protocol.table_index_bits_known
            && peek.read(type_bits).ok() == self.protocol.number(MessageKind::UpdateStringTable)
        {
            self.settle_table_index_bits();
        }
        let result = (|| {
            let mut number = 0u32;
            if self.protocol.is_protobuf() {
                self.decoder.varint32(&mut number)?;
            } else {
                self.decoder.uint(&mut number, type_bits)?;
            }
            let kind = self
                .protocol
                .kind(number)
                .ok_or_else(|| NetError::new(bit, NetErrorKind::UnknownMessage { number }))?;
            let mut message = if self.protocol.is_protobuf() {
                NetMessage::Protobuf(ProtoMessage::new(kind))
            } else {
                kind.empty()
            };
            message.code(&mut self.decoder, self.protocol)?;
            self.protocol.learn(&message);
            Ok(MessageAt { bit, message })
        })();
        self.failed = result.is_err();
        Some(result)
    }
}

/// A whole packet: its messages and the padding bits after them.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Packet {
    /// The messages, in order.
    pub messages: Vec<NetMessage>,
    /// The bits after the last message.
    pub tail: Bits,
}

impl Packet {
    /// Decodes every message of `data`; `protocol` learns what the messages tell about
    /// the build.
    pub fn decode(data: &[u8], protocol: &mut Protocol) -> Result<Packet, NetError> {
        let mut iter = Messages::new(data, *protocol);
        let mut messages = Vec::new();
        for m in iter.by_ref() {
            messages.push(m?.message);
        }
        *protocol = iter.protocol();
        Ok(Packet {
            messages,
            tail: iter.tail(),
        })
    }

    /// Encodes the messages and the tail; fails when a message has no number on the
    /// protocol's branch or its fields do not fit their layout.
    pub fn encode(&self, protocol: Protocol) -> Result<Bits, NetError> {
        let mut encoder = Encoder::new(BitWriter::new());
        for message in &self.messages {
            encode_message(&mut encoder, message, protocol)?;
        }
        encoder.writer_mut().write_bits(&self.tail);
        Ok(encoder.into_writer().finish())
    }
}

/// Writes one message, its number first.
pub fn encode_message(
    encoder: &mut Encoder,
    message: &NetMessage,
    protocol: Protocol,
) -> Result<(), NetError> {
    let kind = message.kind();
    let mut number = protocol.number(kind).ok_or_else(|| {
        NetError::new(
            encoder.position(),
            NetErrorKind::NotOnBranch {
                message: kind.name(),
                branch: protocol.branch.name(),
            },
        )
    })?;
    match message {
        NetMessage::Protobuf(_) if protocol.is_protobuf() => encoder.varint32(&mut number)?,
        NetMessage::Protobuf(_) => {
            return Err(NetError::new(
                encoder.position(),
                NetErrorKind::NotOnBranch {
                    message: "a protobuf message",
                    branch: protocol.branch.name(),
                },
            ));
        }
        _ if protocol.is_protobuf() => {
            return Err(NetError::new(
                encoder.position(),
                NetErrorKind::NotOnBranch {
                    message: kind.name(),
                    branch: protocol.branch.name(),
                },
            ));
        }
        _ => encoder.uint(&mut number, protocol.type_bits())?,
    }
    // The layouts take `&mut self` so that one walk serves both directions; the encoder
    // changes nothing, but a copy keeps the caller's message borrowed immutably.
    message.clone().code(encoder, protocol)
}
