//! Trimming a Source demo to a range of ticks: a demo of its own that starts with the
//! state the original had at the range's start.
//!
//! A Source demo cannot simply be cut: its packets are deltas against what the client
//! already holds (entities, their baselines, string tables). [`trim`] keeps
//!
//! * the frames before the first packet (signon data: server info, class info, data
//!   tables, string tables as created, the game event list, the sync tick) byte for byte;
//! * then packets it writes itself, stamped at the range's first tick: the string-table
//!   entries that changed before the cut (`svc_UpdateStringTable`), the two slots of
//!   instance baselines as they stood (two full updates that set `update_baseline`, the
//!   older slot first: the newer slot always holds every entity of the older, so the copy
//!   the second update makes and its own entities give it back exactly), a full entity
//!   update of every entity at the cut (`svc_PacketEntities` without `delta_from`), and a
//!   delta sending the dormant ones out of the PVS;
//! * then every frame whose tick lies in the range, byte for byte, its tick moved back by
//!   the range's start (the engine's demo player waits for a frame's tick), and a stop
//!   frame at the last one; the header's `ticks`, `frames` and `playback_time` say so.
//!
//! What is written is checked before anything is: the written updates are read back by
//! this crate's entity layer into the same entities (class, serial, PVS, every prop) and
//! the same baselines, or the trim is refused ([`TrimError::NotRestored`]).
//!
//! Left to others: game events, user messages, sounds and temp entities before the cut
//! are gone (they were the past); console variables changed after the signon are not
//! carried; string-table updates the demo encodes with a dictionary it does not hold
//! (Left 4 Dead's precache tables) cannot be read, so they are not carried either (the
//! report counts them). A demo whose string tables are created after its first packet is
//! refused. CS:GO's packets are written as its protobuf messages
//! ([`ProtoMessage::from_classic`]).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use super::entity::class::ServerClasses;
use super::entity::table::DataTables;
use super::entity::update::{EntityState, EntityWrite, Values, decode_baseline, write_update};
use super::error::{ReadError, ReadErrorKind, WriteError};
use super::format::Header;
use super::net::message::{PacketEntities, Tick, UpdateStringTable};
use super::net::state::{NetState, TableChange};
use super::net::string_table::{EntryIndex, EntryString, EntryUpdate, StringTable, code_entries};
use super::net::{Encoder, NetMessage, Packet, ProtoMessage};
use super::profile::{playback_time, tick_interval};
use super::reader::{Body, Frame, PacketBody, SourceReader};
use super::writer::SourceWriter;
use crate::codec::bits::BitWriter;
use std::collections::HashMap;
use std::io::{self, Read, Write};

/// The most entries one written `svc_UpdateStringTable` carries.
const ENTRIES_PER_UPDATE: usize = 256;

/// What [`trim`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TrimReport {
    /// The tick of the first packet kept, as the input numbers it: the output's tick 0
    /// (frames before it are left out).
    pub from: i32,
    /// The last tick kept, as the input numbers it.
    pub to: i32,
    /// Frames copied: the signon part and the frames of the range.
    pub frames_kept: u64,
    /// Frames of the input left out.
    pub frames_dropped: u64,
    /// Packets written to restore the state at the cut.
    pub packets_written: u64,
    /// Entities in the written full update.
    pub entities: usize,
    /// Instance baselines restored, both slots.
    pub baselines: usize,
    /// String-table entries restored.
    pub table_entries: usize,
    /// String-table updates before the cut that could not be read (dictionary-encoded),
    /// and so are not carried.
    pub tables_not_carried: usize,
    /// Size of the output.
    pub output_len: u64,
}

/// Why a Source demo cannot be trimmed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrimError {
    /// The demo is of a branch this trim cannot write yet (CS:GO), or is shaped in a way it
    /// does not restore.
    #[error("{0} are not trimmed yet; nothing was written")]
    Unsupported(&'static str),
    /// The range holds no packet of the demo.
    #[error(
        "no packet lies in ticks {from}..={to} (the demo's packets are at ticks {first}..={last})"
    )]
    Empty {
        /// The range's start.
        from: i32,
        /// The range's end.
        to: i32,
        /// The demo's first packet tick.
        first: i32,
        /// The demo's last packet tick.
        last: i32,
    },
    /// The demo does not read up to the range's end: nothing is written.
    #[error("{0}; nothing was written (a repair keeps every complete frame)")]
    Read(#[source] ReadError),
    /// A frame's network data or entities do not decode.
    #[error("at byte {offset}: {message}; nothing was written")]
    Network {
        /// Offset of the frame.
        offset: u64,
        /// What went wrong.
        message: String,
    },
    /// The written updates would not give back the state at the cut.
    #[error("the state at tick {tick} cannot be written back ({what}); nothing was written")]
    NotRestored {
        /// The cut.
        tick: i32,
        /// What differs.
        what: String,
    },
    /// Writing failed.
    #[error("{0}")]
    Write(#[from] WriteError),
}

impl TrimError {
    /// The byte offset of the input the error is about, if there is one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            TrimError::Read(e) => Some(e.offset),
            TrimError::Network { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

/// Trims the Source demo `data` to the frames of ticks `from..=to` (see the
/// [module docs](self)) into `out`.
pub fn trim<W: Write>(data: &[u8], from: i32, to: i32, out: W) -> Result<TrimReport, TrimError> {
    trim_reader(|| Ok(data), from, to, out)
}

/// [`trim`] of a demo read twice as a stream (to build the state at the cut, then to copy
/// the frames), which `open` opens from its start each time: memory holds the state, not
/// the file.
pub fn trim_reader<R: Read, W: Write>(
    mut open: impl FnMut() -> io::Result<R>,
    from: i32,
    to: i32,
    out: W,
) -> Result<TrimReport, TrimError> {
    let opened = |e: io::Error| TrimError::Read(ReadError::new(0, ReadErrorKind::Io(e)));
    let cut = Cut::find(
        SourceReader::new(open().map_err(opened)?).map_err(TrimError::Read)?,
        from,
        to,
    )?;
    let mut reader = SourceReader::new(open().map_err(opened)?).map_err(TrimError::Read)?;
    let profile = *reader.profile();
    let mut header: Header = *reader.header();
    // The first packet kept is the output's tick 0.
    let from = cut.report.from;
    let last = cut.last_tick - from;
    header.ticks = last;
    header.frames = i32::try_from(cut.packets_kept + cut.written.len() as u64).unwrap_or(i32::MAX);
    header.playback_time = playback_time(last, cut.interval);
    let mut writer = SourceWriter::with_profile(out, &header, profile)?;
    let mut report = cut.report.clone();
    let mut synthesized = false;
    while let Some(item) = reader.next() {
        let item = item.map_err(TrimError::Read)?;
        let frame = &item.frame;
        if item.offset < cut.first_packet {
            writer.write_frame(frame)?;
            report.frames_kept += 1;
            continue;
        }
        if !synthesized {
            for data in &cut.written {
                writer.write_frame(&Frame {
                    tick: 0,
                    slot: cut.slot,
                    body: Body::Packet(PacketBody {
                        data,
                        ..cut.packet_head.body()
                    }),
                })?;
            }
            synthesized = true;
        }
        if matches!(frame.body, Body::Stop { .. }) || frame.tick > to {
            break;
        }
        if frame.tick < from {
            report.frames_dropped += 1;
            continue;
        }
        writer.write_frame(&Frame {
            tick: frame.tick - from,
            ..frame.clone()
        })?;
        report.frames_kept += 1;
    }
    writer.write_frame(&Frame::stop(last, &profile))?;
    report.output_len = writer.position();
    writer.finish()?;
    Ok(report)
}

/// A packet frame's fields besides its data, for the packets a trim writes.
#[derive(Debug, Clone)]
struct PacketHead {
    view: Vec<u8>,
    seq_in: i32,
    seq_out: i32,
}

impl PacketHead {
    fn body(&self) -> PacketBody<'_> {
        PacketBody {
            view: &self.view,
            seq_in: self.seq_in,
            seq_out: self.seq_out,
            data: &[],
        }
    }
}

/// What the first reading finds: where the cut is and the packets that restore the state
/// there.
struct Cut {
    /// Offset of the first packet frame: the frames before it are kept as they are.
    first_packet: u64,
    /// The packets to write at the cut, their data.
    written: Vec<Vec<u8>>,
    /// The first kept packet's fields, given to the written packets.
    packet_head: PacketHead,
    /// The slot byte of the first kept packet.
    slot: Option<u8>,
    /// The tick of the first packet kept: frames before it are left out.
    start: i32,
    /// The tick of the last frame kept.
    last_tick: i32,
    /// Packet frames kept.
    packets_kept: u64,
    /// Seconds per tick, for the header's playback time.
    interval: f32,
    report: TrimReport,
}

impl Cut {
    /// Reads the demo up to the cut, building its state, and on to the range's end.
    fn find<R: Read>(mut reader: SourceReader<R>, from: i32, to: i32) -> Result<Cut, TrimError> {
        let header = *reader.header();
        let mut state = NetState::of_header(&header).ok_or(TrimError::Unsupported(
            "demos whose network messages are not decoded",
        ))?;
        let game_dir = header.game_dir.to_string_lossy();
        // As `repair` chooses it: the game's interval when the game is known, else the
        // one the header implies, else the engine's default.
        let interval = match tick_interval(&game_dir) {
            (interval, true) => interval,
            _ if header.ticks > 0 && header.playback_time > 0.0 => {
                header.playback_time / header.ticks as f32
            }
            (interval, false) => interval,
        };
        let mut classes: Option<ServerClasses> = None;
        let mut entities = EntityState::new();
        let mut tables_at_start: Option<Vec<StringTable>> = None;
        let mut report = TrimReport {
            from,
            to,
            ..TrimReport::default()
        };
        let mut server_tick = 0;
        let mut max_entries = 0u16;
        let (mut first, mut last) = (None::<i32>, None::<i32>);
        let mut found: Option<Cut> = None;
        let mut first_packet = None;
        let mut protocol_at_start = None;
        while let Some(item) = reader.next() {
            let item = item.map_err(TrimError::Read)?;
            let offset = item.offset;
            let frame = &item.frame;
            let failed = |message: String| TrimError::Network { offset, message };
            if matches!(frame.body, Body::Packet(_)) {
                first_packet.get_or_insert(offset);
            }
            if let Some(cut) = &mut found {
                // After the cut: only where the range ends.
                match frame.body {
                    Body::Stop { .. } => break,
                    _ if frame.tick > to => break,
                    // Left out, as the writing will leave it.
                    _ if frame.tick < cut.start => {}
                    Body::Packet(_) => {
                        cut.packets_kept += 1;
                        cut.last_tick = cut.last_tick.max(frame.tick);
                    }
                    _ => cut.last_tick = cut.last_tick.max(frame.tick),
                }
                continue;
            }
            match &frame.body {
                Body::DataTables(data) => {
                    let tables = DataTables::decode(data, state.protocol)
                        .map_err(|e| failed(format!("data tables: {e}")))?;
                    classes = Some(
                        ServerClasses::new(tables, state.protocol)
                            .map_err(|e| failed(format!("server classes: {e}")))?,
                    );
                }
                Body::StringTables(data) => state
                    .apply_string_tables_frame(data)
                    .map_err(|e| failed(format!("string tables: {e}")))?,
                Body::Packet(packet) if frame.tick >= from && frame.tick <= to => {
                    protocol_at_start.get_or_insert(state.protocol);
                    let tables_at_start =
                        tables_at_start.get_or_insert_with(|| state.tables.clone());
                    let mut messages = state.messages(packet.data);
                    let mut delta_from = None;
                    for m in messages.by_ref() {
                        let message = classic(m.map_err(|e| failed(e.to_string()))?.message)
                            .map_err(|e| failed(e.to_string()))?;
                        if let NetMessage::PacketEntities(update) = message {
                            delta_from = update.delta_from;
                        }
                    }
                    let classes = classes
                        .as_ref()
                        .ok_or(TrimError::Unsupported("demos without data tables"))?;
                    let restore = Restore {
                        state: &state,
                        reading: protocol_at_start.unwrap_or(state.protocol),
                        classes,
                        entities: &entities,
                        tables_at_start,
                        server_tick: delta_from.unwrap_or(server_tick),
                        max_entries,
                        tick: frame.tick,
                    };
                    let written = restore.packets(&mut report)?;
                    report.packets_written = written.len() as u64;
                    found = Some(Cut {
                        first_packet: first_packet.unwrap_or(offset),
                        written,
                        packet_head: PacketHead {
                            view: packet.view.to_vec(),
                            seq_in: packet.seq_in,
                            seq_out: packet.seq_out,
                        },
                        slot: frame.slot,
                        start: frame.tick,
                        last_tick: frame.tick,
                        packets_kept: 1,
                        interval,
                        report: TrimReport::default(),
                    });
                }
                Body::Signon(packet) | Body::Packet(packet) => {
                    if matches!(frame.body, Body::Packet(_)) {
                        protocol_at_start.get_or_insert(state.protocol);
                        tables_at_start.get_or_insert_with(|| state.tables.clone());
                        first.get_or_insert(frame.tick);
                        last = Some(frame.tick);
                        if frame.tick > to {
                            break;
                        }
                    }
                    let mut messages = state.messages(packet.data);
                    let mut decoded = Vec::new();
                    for m in messages.by_ref() {
                        decoded.push(m.map_err(|e| failed(e.to_string()))?.message);
                    }
                    state.learned(&messages);
                    for message in &decoded {
                        let change = state
                            .apply(message)
                            .map_err(|e| failed(format!("string tables: {e}")))?;
                        if matches!(change, Some(TableChange::Unreadable { .. }))
                            && tables_at_start.is_some()
                        {
                            report.tables_not_carried += 1;
                        }
                        let message =
                            &classic(message.clone()).map_err(|e| failed(e.to_string()))?;
                        match message {
                            NetMessage::Tick(tick) => server_tick = tick.tick,
                            NetMessage::PacketEntities(update) => {
                                max_entries = max_entries.max(update.max_entries);
                                let classes = classes
                                    .as_ref()
                                    .ok_or(TrimError::Unsupported("demos without data tables"))?;
                                let baselines = state
                                    .table_index("instancebaseline")
                                    .and_then(|t| state.tables.get(t));
                                entities
                                    .apply(update, classes, baselines)
                                    .map_err(|e| failed(format!("entities: {e}")))?;
                            }
                            _ => {}
                        }
                    }
                }
                Body::Stop { .. } => break,
                _ => {}
            }
        }
        let mut cut = found.ok_or(TrimError::Empty {
            from,
            to,
            first: first.unwrap_or(0),
            last: last.unwrap_or(0),
        })?;
        report.from = cut.start;
        report.to = cut.last_tick;
        cut.report = report;
        Ok(cut)
    }
}

/// A CS:GO message as the classic struct the shared layers read, where it has one;
/// others as they are.
fn classic(message: NetMessage) -> Result<NetMessage, super::net::NetError> {
    match message {
        NetMessage::Protobuf(p) => Ok(p.classic()?.unwrap_or(NetMessage::Protobuf(p))),
        other => Ok(other),
    }
}

/// The state at the cut and what is needed to write it.
#[derive(Clone, Copy)]
struct Restore<'a> {
    state: &'a NetState,
    /// The protocol a reader has after the signon part (it learns the rest again from the
    /// written packets: a 2004-engine demo's string-table index width, from the first
    /// update).
    reading: super::net::Protocol,
    classes: &'a ServerClasses,
    entities: &'a EntityState,
    tables_at_start: &'a [StringTable],
    server_tick: i32,
    max_entries: u16,
    tick: i32,
}

impl Restore<'_> {
    /// The packets that bring a client that read the signon part to the state at the cut,
    /// checked by reading them back.
    fn packets(&self, report: &mut TrimReport) -> Result<Vec<Vec<u8>>, TrimError> {
        let refused = |what: String| TrimError::NotRestored {
            tick: self.tick,
            what,
        };
        let mut packets: Vec<Vec<NetMessage>> = Vec::new();
        if let Some(probe) = self.width_probe()? {
            packets.push(vec![probe]);
        }
        // String tables first: the baselines below are read against `instancebaseline`.
        let updates = self.table_updates(report)?;
        if !updates.is_empty() {
            packets.push(updates);
        }
        // The baselines, the older slot first (see the module docs).
        // Full updates send what differs from the class baselines.
        let mut cache = HashMap::new();
        if let Some(newer) = self.entities.newer_baseline() {
            let older = 1 - newer;
            for (slot, named) in [(older, newer), (newer, older)] {
                let sent: Vec<(usize, u16, Values)> = self
                    .entities
                    .baselines(slot)
                    .map(|(i, class, values)| {
                        (i, class, self.beyond_baseline(class, values, &mut cache))
                    })
                    .collect();
                let list: Vec<(usize, EntityWrite<'_>)> = sent
                    .iter()
                    .map(|(i, class, values)| {
                        (
                            *i,
                            EntityWrite::Enter {
                                class: *class,
                                serial: 0,
                                values,
                            },
                        )
                    })
                    .collect();
                report.baselines += list.len();
                packets.push(vec![self.update(&list, None, named == 1, true)?]);
            }
        }
        // Every entity, then the dormant ones out of the PVS.
        let sent: Vec<(usize, u16, u16, Values)> = self
            .entities
            .entities()
            .map(|(i, e)| {
                (
                    i,
                    e.class,
                    e.serial,
                    self.beyond_baseline(e.class, &e.values, &mut cache),
                )
            })
            .collect();
        let all: Vec<(usize, EntityWrite<'_>)> = sent
            .iter()
            .map(|(i, class, serial, values)| {
                let write = EntityWrite::Enter {
                    class: *class,
                    serial: *serial,
                    values,
                };
                (*i, write)
            })
            .collect();
        report.entities = all.len();
        packets.push(vec![self.update(&all, None, false, false)?]);
        // The copies of a value written in the order they were: each later rank of their
        // updates again, in updates of its own (the values are the same).
        let ranked = self.ranked();
        let ranks = ranked.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
        for rank in 1..ranks {
            let list: Vec<(usize, EntityWrite<'_>)> = ranked
                .iter()
                .filter_map(|(i, r)| {
                    let (class, values) = r.get(rank)?;
                    Some((
                        *i,
                        EntityWrite::Change {
                            class: *class,
                            values,
                        },
                    ))
                })
                .collect();
            packets.push(vec![self.update(
                &list,
                Some(self.server_tick),
                false,
                false,
            )?]);
        }
        let dormant: Vec<(usize, EntityWrite<'_>)> = self
            .entities
            .entities()
            .filter(|(_, e)| !e.in_pvs)
            .map(|(i, _)| (i, EntityWrite::Leave))
            .collect();
        if !dormant.is_empty() {
            packets.push(vec![self.update(
                &dormant,
                Some(self.server_tick),
                false,
                false,
            )?]);
        }
        // Encoded as the reader will read them, and read back: the same entities and
        // baselines, or nothing is written.
        let mut reading = self.reading;
        let mut written = Vec::with_capacity(packets.len());
        let mut check = NetState::new(reading);
        check.tables = self.state.tables.clone();
        let mut entities = EntityState::new();
        let baselines = check
            .table_index("instancebaseline")
            .and_then(|t| check.tables.get(t));
        for messages in packets {
            let (data, read) = self.packet(messages, &mut reading)?;
            for message in read {
                let message = classic(message).map_err(|e| refused(e.to_string()))?;
                if let NetMessage::PacketEntities(update) = &message {
                    entities
                        .apply(update, self.classes, baselines)
                        .map_err(|e| refused(format!("a written update does not read: {e}")))?;
                }
            }
            written.push(data);
        }
        let same = |a: &EntityState, b: &EntityState| {
            a.entities().count() == b.entities().count()
                && a.entities().zip(b.entities()).all(|((i, x), (j, y))| {
                    i == j
                        && x.class == y.class
                        && x.serial == y.serial
                        && x.in_pvs == y.in_pvs
                        && x.values == y.values
                })
        };
        if !same(&entities, self.entities) {
            return Err(refused("the entities".into()));
        }
        let reread = Restore {
            entities: &entities,
            ..*self
        };
        if self.ranked() != reread.ranked() {
            return Err(refused(
                "the order the origin's copies were written in".into(),
            ));
        }
        for slot in 0..2 {
            if !entities.baselines(slot).eq(self.entities.baselines(slot)) {
                return Err(refused(format!("instance baseline slot {slot}")));
            }
        }
        Ok(written)
    }

    /// For a 2004-engine demo whose string-table indexes are 4 bits and whose reader has
    /// yet to learn it: an update that reads only with 4 bits, to go first. A reader
    /// settles the width on the first update of the demo, trying 5 bits first, and an
    /// update can read both ways. This one re-sends a table's first entry as it is, its
    /// index "next" (a first data bit of 1) and its data an even number of bits long: read
    /// with 5 bits, the index takes the "count" flag's bit, the flag the length's lowest
    /// bit (0) and the length starts one bit later, so it ends with that 1: at least 2^15
    /// bits, more than the small packet holds.
    fn width_probe(&self) -> Result<Option<NetMessage>, TrimError> {
        let protocol = self.state.protocol;
        if self.reading.table_index_bits_known || protocol.table_index_bits != 4 {
            return Ok(None);
        }
        // The table whose first entry is the shortest.
        let Some((t, table, entry)) = self
            .state
            .tables
            .iter()
            .enumerate()
            .filter_map(|(t, table)| Some((t, table, table.entries.first()?)))
            .min_by_key(|(_, _, e)| {
                e.string.len() + e.user_data.as_ref().map_or(0, |d| d.len() / 8)
            })
        else {
            return Ok(None);
        };
        let mut entries = vec![EntryUpdate {
            index: EntryIndex::Next,
            string: Some(EntryString::Whole(entry.string.clone())),
            user_data: entry.user_data.clone(),
        }];
        let mut encoder = Encoder::new(BitWriter::new());
        code_entries(&mut encoder, &mut entries, 1, table.shape, protocol).map_err(|e| {
            TrimError::NotRestored {
                tick: self.tick,
                what: format!("string table {}: {e}", table.name.to_string_lossy()),
            }
        })?;
        let mut data = encoder.into_writer();
        if data.len() % 2 == 1 {
            // A bit after the entries, which readers leave.
            data.write_bool(false);
        }
        Ok(Some(NetMessage::UpdateStringTable(UpdateStringTable {
            table: t as u8,
            changed: None,
            data: data.finish(),
        })))
    }

    /// For each entity with props written in order ([`ServerClass::written_in_order`]):
    /// its class and those props grouped by the update that last wrote them, the earliest
    /// first, each group as values (the others `None`).
    ///
    /// [`ServerClass::written_in_order`]: super::entity::class::ServerClass::written_in_order
    fn ranked(&self) -> Vec<(usize, Vec<(u16, Values)>)> {
        let mut ranked = Vec::new();
        for (i, e) in self.entities.entities() {
            let Some(class) = self.classes.by_id(e.class) else {
                continue;
            };
            let props: Vec<usize> = class
                .written_in_order()
                .into_iter()
                .filter(|&p| e.values.get(p).is_some_and(Option::is_some))
                .collect();
            let mut stamps: Vec<u32> = props
                .iter()
                .filter_map(|&p| e.changed.get(p).copied())
                .collect();
            stamps.sort_unstable();
            stamps.dedup();
            if stamps.len() < 2 {
                continue;
            }
            let groups = stamps
                .iter()
                .map(|&stamp| {
                    let mut values: Values = vec![None; e.values.len()];
                    for &p in props.iter().filter(|&&p| e.changed.get(p) == Some(&stamp)) {
                        if let (Some(to), Some(from)) = (values.get_mut(p), e.values.get(p)) {
                            to.clone_from(from);
                        }
                    }
                    (e.class, values)
                })
                .collect();
            ranked.push((i, groups));
        }
        ranked
    }

    /// `values` without the props equal to the class's baseline (an entity entering in a
    /// full update starts from it): what a full update needs to send.
    fn beyond_baseline(
        &self,
        class: u16,
        values: &Values,
        cache: &mut HashMap<u16, Values>,
    ) -> Values {
        let baseline = cache.entry(class).or_insert_with(|| {
            let key = class.to_string();
            let data = self
                .state
                .table("instancebaseline")
                .and_then(|t| {
                    t.entries
                        .iter()
                        .rev()
                        .find(|e| e.string.as_bytes() == key.as_bytes())
                })
                .and_then(|e| e.user_data.as_ref());
            match (data, self.classes.by_id(class)) {
                (Some(data), Some(c)) => {
                    decode_baseline(data, c, self.classes.protocol).unwrap_or_default()
                }
                _ => Vec::new(),
            }
        });
        values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.clone()
                    .filter(|v| baseline.get(i).and_then(Option::as_ref) != Some(v))
            })
            .collect()
    }

    /// `svc_UpdateStringTable`s for the entries that changed since the signon part.
    fn table_updates(&self, report: &mut TrimReport) -> Result<Vec<NetMessage>, TrimError> {
        let protocol = self.state.protocol;
        let mut messages = Vec::new();
        for (t, table) in self.state.tables.iter().enumerate() {
            let Some(start) = self.tables_at_start.get(t) else {
                return Err(TrimError::Unsupported(
                    "demos whose string tables are created after their first packet",
                ));
            };
            let changed: Vec<EntryUpdate> = table
                .entries
                .iter()
                .enumerate()
                .filter(|&(i, e)| start.entries.get(i) != Some(e))
                .map(|(i, e)| EntryUpdate {
                    index: EntryIndex::At(i as u16),
                    string: Some(EntryString::Whole(e.string.clone())),
                    user_data: e.user_data.clone(),
                })
                .collect();
            report.table_entries += changed.len();
            for chunk in changed.chunks(ENTRIES_PER_UPDATE) {
                let mut entries = chunk.to_vec();
                let mut encoder = Encoder::new(BitWriter::new());
                code_entries(
                    &mut encoder,
                    &mut entries,
                    chunk.len(),
                    table.shape,
                    protocol,
                )
                .map_err(|e| TrimError::NotRestored {
                    tick: self.tick,
                    what: format!("string table {}: {e}", table.name.to_string_lossy()),
                })?;
                messages.push(NetMessage::UpdateStringTable(UpdateStringTable {
                    table: t as u8,
                    changed: (chunk.len() != 1).then_some(chunk.len() as u16),
                    data: encoder.into_writer().finish(),
                }));
            }
        }
        Ok(messages)
    }

    /// An `svc_PacketEntities` of `entities`.
    fn update(
        &self,
        entities: &[(usize, EntityWrite<'_>)],
        delta_from: Option<i32>,
        baseline: bool,
        update_baseline: bool,
    ) -> Result<NetMessage, TrimError> {
        let (data, updated) =
            write_update(self.classes, entities, delta_from.is_some()).map_err(|e| {
                TrimError::NotRestored {
                    tick: self.tick,
                    what: format!("an entity does not encode: {e}"),
                }
            })?;
        Ok(NetMessage::PacketEntities(PacketEntities {
            max_entries: self.max_entries,
            delta_from,
            baseline,
            updated,
            update_baseline,
            data,
        }))
    }

    /// A packet's data: the server tick, then `messages`, and the messages as a reader
    /// with protocol `reading` reads them (which learns from them). A reader that still
    /// has to settle a width (a 2004-engine demo's string-table index) tries the wider one
    /// first: when the packet reads with it too, `net_NOP`s after the messages change what
    /// the rest of the packet reads as, until it reads as written.
    fn packet(
        &self,
        messages: Vec<NetMessage>,
        reading: &mut super::net::Protocol,
    ) -> Result<(Vec<u8>, Vec<NetMessage>), TrimError> {
        let mut all = vec![NetMessage::Tick(Tick {
            tick: self.server_tick,
            ..Tick::default()
        })];
        all.extend(messages);
        if self.state.protocol.is_protobuf() {
            // CS:GO's messages are protobuf bodies: the same fields, their own encoder.
            all = all
                .iter()
                .map(|m| ProtoMessage::from_classic(m).map(NetMessage::Protobuf))
                .collect::<Option<_>>()
                .ok_or(TrimError::NotRestored {
                    tick: self.tick,
                    what: "a message without a CS:GO form".into(),
                })?;
        }
        // NOPs vary only a bit-layout packet (a protobuf one reads one way).
        let tries = if self.state.protocol.is_protobuf() {
            0
        } else {
            8
        };
        for _ in 0..=tries {
            let packet = Packet {
                messages: all.clone(),
                tail: Default::default(),
            };
            let bits = packet
                .encode(self.state.protocol)
                .map_err(|e| TrimError::NotRestored {
                    tick: self.tick,
                    what: format!("a packet does not encode: {e}"),
                })?;
            let data = bits.as_bytes().to_vec();
            let mut protocol = *reading;
            if let Ok(read) = Packet::decode(&data, &mut protocol) {
                // Padding may read as a `net_NOP` more.
                let mut messages = read.messages;
                while messages.len() > all.len()
                    && matches!(messages.last(), Some(NetMessage::Nop(_)))
                {
                    messages.pop();
                }
                if messages == all {
                    *reading = protocol;
                    return Ok((data, messages));
                }
            }
            all.push(NetMessage::Nop(Default::default()));
        }
        Err(TrimError::NotRestored {
            tick: self.tick,
            what: "a written packet does not read back as written".into(),
        })
    }
}
