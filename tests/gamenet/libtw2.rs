//! demokit's game protocol layer (`demokit::gamenet`) against libtw2's, an independent
//! implementation (`pre-rfc3243-libtw2-gamenet-ddnet` for Teeworlds 0.6 with DDNet's
//! extensions, `pre-rfc3243-libtw2-gamenet-teeworlds-0-7` for 0.7), on every snapshot item and
//! every message chunk of the real demos in the corpus's `real-fixtures/twdemo`.
//!
//! What it proves, for each demo (0.6/DDNet ones against libtw2's DDNet crate, the 0.7 ones
//! against its 0.7 crate, except DDNet's extended objects and messages, which both sides type
//! as DDNet's in either protocol):
//!
//! * Every snapshot item: demokit types it (not `Raw`) exactly when libtw2 decodes it, under
//!   the same name (DDNet's names in demokit's tables, libtw2's Rust names, compared without
//!   case and underscores), and libtw2's object as ints is the item's data. ClientInfo and
//!   De_ClientInfo strings are also compared as text: demokit's text, stored by libtw2's
//!   `string_to_ints`, is libtw2's ints.
//! * Every message chunk: demokit types it exactly when libtw2 decodes it, under the same
//!   name, and each side's message packed again (id included) is the chunk's bytes: libtw2's
//!   followed by the chunk's zero padding to whole ints, demokit's with its trailing bytes
//!   (demokit's `rest` fields, the tuning or the map data, take the padding in; libtw2 reads
//!   those by their length or as ints and leaves it out). The common messages are
//!   also compared field by field (Sv_Chat, Sv_KillMsg, Sv_Emoticon, Sv_Motd, Sv_Broadcast,
//!   Sv_SoundGlobal, Sv_WeaponPickup, Sv_Record(Legacy), Sv_VoteOptionListAdd, 0.7's
//!   Sv_ClientInfo and Sv_ClientDrop, the system messages' map change, map details,
//!   capabilities and input timing).
//!
//! Where the two differ, DDNet's code at the reference commit decides (`datasrc/network.py`,
//! `CNetObjHandler::SecureUnpackObj` in `datasrc/compile.py`, `CGameClient::OnMessage`), and
//! every difference is one of these exceptions, counted per demo in [`EXPECTED`] (anything
//! else fails the test):
//!
//! * [`Exception::ExtendedTypeItem`]: `NETOBJTYPE_EX` items (type 0, naming an extended
//!   type's UUID). libtw2's object layer has no object for them (its snapshot layer reads
//!   them); DDNet's `SecureUnpackObj` unpacks them as 16 UUID bytes, demokit types them. The
//!   UUID demokit reads is checked against the item's ints read big-endian here.
//! * [`Exception::NoMapBestTime`]: libtw2 has no `MapBestTime` (`map-best-time@netobj.ddnet.org`),
//!   which DDNet's table has; demokit types it.
//! * [`Exception::DdnetPlayerFinishTime`]: libtw2's `DDNetPlayer` stops after `AuthLevel`;
//!   DDNet added `FinishTimeSeconds` and `FinishTimeMillis`. libtw2 decodes the first two ints
//!   and warns of excess data; they equal demokit's.
//! * [`Exception::GameInfoExTeamSize`]: the same for `GameInfoEx`'s `MinTeamSize` and
//!   `MaxTeamSize`.
//! * [`Exception::DefaultsFilled`]: an older server's short `DDNetCharacter` or `GameInfoEx`
//!   (fields with a default, which DDNet's `SecureUnpackObj` fills in). libtw2 fills the
//!   defaults too; demokit keeps the fields as not sent. libtw2's ints start with the item's
//!   data and go on with DDNet's defaults.
//! * [`Exception::ExtraProjectile`]: game message 7 from Teeworlds 0.6 servers
//!   (`Sv_ExtraProjectile`: a count and projectile ints). DDNet's table and libtw2 call the
//!   id `Unused`, without fields, and ignore the rest (libtw2 warns of excess data); demokit
//!   keeps the vanilla layout so that the fields are typed. Both pack the same id.
//! * [`Exception::ShortTuneParams`]: `Sv_TuneParams` with fewer parameters than DDNet's list
//!   (vanilla and older DDNet servers). libtw2 wants the whole list and refuses the message;
//!   DDNet's client reads parameters until the message ends and keeps the defaults for the
//!   rest, and demokit keeps the ints as they are.
//! * [`Exception::LongTuneParams7`]: a 0.7 `Sv_TuneParams` from a DDNet server, which sends its
//!   own, longer list (without `laser_damage`). libtw2's 0.7 list is vanilla 0.7's: it decodes
//!   that many and warns of excess data; DDNet's client reads all of them, demokit keeps them
//!   all. libtw2's packed message is the start of demokit's.
//! * [`Exception::ShortTeamsState`]: `Sv_TeamsState` listing fewer than 128 clients (older DDNet
//!   servers send 64). libtw2 wants 128 and refuses it; DDNet's client reads clients until the
//!   message ends, demokit keeps the ints as they are.
//! * [`Exception::MapDetailsSizeUrl`]: `NETMSG_MAP_DETAILS`, whose `size` (and `url`, which
//!   newer servers add) libtw2 does not know: it stops after the CRC and warns of excess
//!   data. DDNet's client reads them, demokit types them; libtw2's packed message is the
//!   start of demokit's, and the fields both have are compared one by one.
//!
//! Items and messages that neither side knows (extended types whose `EX` item is missing,
//! for instance) agree, and are counted apart.

use crate::common;

use demokit::gamenet::{self, AnyMessage, AnyObject, MessageId, ObjectType, Protocol, seven, six};
use demokit::twdemo::snapshot::replay::SnapshotReplay;
use demokit::twdemo::snapshot::{OFFSET_UUID_TYPE, Snapshot};
use demokit::twdemo::{Chunk, ChunkKind, DemoSlice, PayloadDecoder};
use libtw2_gamenet_ddnet as ddnet;
use libtw2_gamenet_teeworlds_0_7 as tw7;
use libtw2_packer::{ExcessData, IntUnpacker, Unpacker, Warning, with_packer};
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

/// Why an item or message is not the same on both sides (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Exception {
    /// `NETOBJTYPE_EX` items: libtw2 has no object for them.
    ExtendedTypeItem,
    /// libtw2 has no `MapBestTime`.
    NoMapBestTime,
    /// libtw2's `DDNetPlayer` lacks the finish time.
    DdnetPlayerFinishTime,
    /// libtw2's `GameInfoEx` lacks the team sizes.
    GameInfoExTeamSize,
    /// A short extended item: libtw2 fills DDNet's defaults.
    DefaultsFilled,
    /// Vanilla 0.6's `Sv_ExtraProjectile`: `Unused` for libtw2 and DDNet.
    ExtraProjectile,
    /// `Sv_TuneParams` shorter than libtw2's list.
    ShortTuneParams,
    /// 0.7 `Sv_TuneParams` longer than libtw2's list.
    LongTuneParams7,
    /// `Sv_TeamsState` shorter than libtw2's 128 clients.
    ShortTeamsState,
    /// `NETMSG_MAP_DETAILS` with the size and URL libtw2 does not know.
    MapDetailsSizeUrl,
}

impl Exception {
    /// Why, for the summary.
    fn why(self) -> &'static str {
        match self {
            Exception::ExtendedTypeItem => {
                "EX items: libtw2 has no object for them (DDNet unpacks the UUID)"
            }
            Exception::NoMapBestTime => "MapBestTime: not in libtw2 (in DDNet's table)",
            Exception::DdnetPlayerFinishTime => {
                "DDNetPlayer: libtw2 lacks DDNet's finish time fields"
            }
            Exception::GameInfoExTeamSize => "GameInfoEx: libtw2 lacks DDNet's team size fields",
            Exception::DefaultsFilled => "short extended item: libtw2 fills DDNet's defaults",
            Exception::ExtraProjectile => {
                "message 7: vanilla Sv_ExtraProjectile, Unused for DDNet and libtw2"
            }
            Exception::ShortTuneParams => {
                "Sv_TuneParams shorter than libtw2's list (DDNet reads what is there)"
            }
            Exception::LongTuneParams7 => {
                "0.7 Sv_TuneParams longer than libtw2's list (DDNet reads all)"
            }
            Exception::ShortTeamsState => {
                "Sv_TeamsState shorter than libtw2's 128 (DDNet reads what is there)"
            }
            Exception::MapDetailsSizeUrl => "NETMSG_MAP_DETAILS: libtw2 lacks DDNet's size and url",
        }
    }
}

/// What one demo is expected to give: how many items and messages are compared, how many of
/// them neither side knows, and the exceptions among them.
struct Expected {
    file: &'static str,
    items: usize,
    messages: usize,
    unknown_items: usize,
    unknown_messages: usize,
    exceptions: &'static [(Exception, usize)],
}

use Exception::*;

/// The figures of every real demo.
const EXPECTED: &[Expected] = &[
    Expected {
        file: "v3_tw061_server_dm1.demo",
        items: 11179,
        messages: 1294,
        unknown_items: 0,
        unknown_messages: 0,
        exceptions: &[(ExtraProjectile, 21), (ShortTuneParams, 2)],
    },
    Expected {
        file: "v4_tw065_server_dm1.demo",
        items: 11255,
        messages: 1289,
        unknown_items: 0,
        unknown_messages: 0,
        exceptions: &[(ShortTuneParams, 2)],
    },
    Expected {
        file: "v4_tw075_client_dm1.demo",
        items: 4194,
        messages: 1,
        unknown_items: 0,
        unknown_messages: 0,
        exceptions: &[],
    },
    Expected {
        file: "v5_ddnet1261_server_dm1.demo",
        items: 14669,
        messages: 1677,
        // Three extended items in the first snapshot they appear in, whose `EX` items this
        // server sent only from the next snapshot on: DDNet cannot type them either.
        unknown_items: 3,
        unknown_messages: 0,
        exceptions: &[
            (ExtendedTypeItem, 1159),
            // 648 DDNetCharacter of 5 ints, 387 GameInfoEx of 2.
            (DefaultsFilled, 1035),
            (ExtraProjectile, 9),
            (ShortTuneParams, 392),
            (MapDetailsSizeUrl, 2),
        ],
    },
    Expected {
        file: "v6_ddnet194_client_tutorial.demo",
        items: 3714,
        messages: 4,
        unknown_items: 0,
        unknown_messages: 0,
        exceptions: &[(ExtendedTypeItem, 1292)],
    },
    Expected {
        file: "v6_ddnet201_server_dm1.demo",
        items: 41223,
        messages: 2426,
        unknown_items: 0,
        unknown_messages: 0,
        exceptions: &[
            (ExtendedTypeItem, 7097),
            (NoMapBestTime, 986),
            (DdnetPlayerFinishTime, 1425),
            (GameInfoExTeamSize, 986),
            (ShortTeamsState, 2),
            (MapDetailsSizeUrl, 2),
        ],
    },
    Expected {
        file: "v6_ddnet_client_daydream_big_chungus.demo",
        items: 3150,
        messages: 212,
        unknown_items: 0,
        unknown_messages: 0,
        // DDNetCharacter of 10 ints.
        exceptions: &[(ExtendedTypeItem, 1470), (DefaultsFilled, 210)],
    },
    Expected {
        file: "v6_ddnet_client_multeasymap_2020.demo",
        items: 618802,
        messages: 2073,
        unknown_items: 0,
        unknown_messages: 0,
        exceptions: &[
            (ExtendedTypeItem, 5736),
            // DDNetCharacter of 5 ints.
            (DefaultsFilled, 118688),
            (ShortTuneParams, 1912),
        ],
    },
    Expected {
        file: "v6_ddnet_client_rainymore2_2020.demo",
        items: 7985,
        messages: 1717,
        unknown_items: 0,
        unknown_messages: 0,
        exceptions: &[(ShortTuneParams, 1597)],
    },
    Expected {
        file: "v6_ddnet_client_sixup_tinycave.demo",
        items: 1200,
        messages: 7,
        unknown_items: 0,
        unknown_messages: 0,
        exceptions: &[(ExtendedTypeItem, 330), (LongTuneParams7, 2)],
    },
];

/// What was counted for one demo.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    items: usize,
    messages: usize,
    unknown_items: usize,
    unknown_messages: usize,
    /// Items whose strings were compared as text.
    text_items: usize,
    /// Messages compared field by field.
    field_messages: usize,
    exceptions: BTreeMap<Exception, usize>,
}

impl Tally {
    fn except(&mut self, exception: Exception) {
        *self.exceptions.entry(exception).or_default() += 1;
    }
}

/// The type of a snapshot item, as `tests/gamenet/real.rs` finds it.
fn object_type(snapshot: &Snapshot<'_>, type_id: i32) -> ObjectType {
    if type_id >= OFFSET_UUID_TYPE {
        match snapshot.extended_type_uuid(type_id) {
            Some(uuid) => ObjectType::Extended(uuid),
            None => ObjectType::Static(type_id),
        }
    } else {
        ObjectType::Static(type_id)
    }
}

/// A name compared across the two: without `NETMSG_`, underscores and case, with the few
/// system messages libtw2 names otherwise mapped to DDNet's.
fn normalized(name: &str) -> String {
    let name = name.strip_prefix("NETMSG_").unwrap_or(name);
    let name: String = name
        .chars()
        .filter(|&c| c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    match name.as_str() {
        "clientversion" => "clientver".to_string(),
        "rconcmdremove" => "rconcmdrem".to_string(),
        _ => name,
    }
}

/// Collects the first word libtw2's `Debug` writes (the struct's name) and stops it there.
struct FirstWord(String);

impl fmt::Write for FirstWord {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            if c.is_alphanumeric() || c == '_' {
                self.0.push(c);
            } else {
                return Err(fmt::Error);
            }
        }
        Ok(())
    }
}

/// The name libtw2 gives a value: its `Debug` struct name.
fn libtw2_name(value: &dyn fmt::Debug) -> String {
    let mut word = FirstWord(String::new());
    // The error is the sink stopping after the name.
    let _ = write!(word, "{value:?}");
    word.0
}

// ---- Snapshot items ----

/// A snapshot item as libtw2 decodes it.
struct Libtw2Object {
    name: String,
    /// The object as ints, every field libtw2 has.
    ints: Vec<i32>,
    /// libtw2 warned that the item has more ints than its object.
    excess: bool,
    /// For ClientInfo / De_ClientInfo: the string fields' ints, in order.
    strings: Vec<Vec<i32>>,
}

/// libtw2's DDNet object as ints. Objects with a `bool` field are built by hand: libtw2's
/// `encode` reinterprets the struct's memory, which is only ints when every field is one.
fn ddnet_object(object: &ddnet::SnapObj) -> (Vec<i32>, Vec<Vec<i32>>) {
    match object {
        ddnet::SnapObj::DdnetSpectatorInfo(s) => (
            vec![
                i32::from(s.has_camera_info),
                s.zoom,
                s.deadzone,
                s.follow_factor,
                s.spectator_count,
            ],
            Vec::new(),
        ),
        ddnet::SnapObj::ClientInfo(c) => (
            object.encode().to_vec(),
            vec![c.name.to_vec(), c.clan.to_vec(), c.skin.to_vec()],
        ),
        other => (other.encode().to_vec(), Vec::new()),
    }
}

/// libtw2's 0.7 object as ints (by hand for the objects with `bool` fields, see above).
fn tw7_object(object: &tw7::SnapObj) -> (Vec<i32>, Vec<Vec<i32>>) {
    match object {
        tw7::SnapObj::PlayerInput(i) => (
            vec![
                i.direction,
                i.target_x,
                i.target_y,
                i32::from(i.jump),
                i.fire,
                i32::from(i.hook),
                i.player_flags,
                i.wanted_weapon,
                i.next_weapon,
                i.prev_weapon,
            ],
            Vec::new(),
        ),
        tw7::SnapObj::Damage(d) => (
            vec![
                d.common.x,
                d.common.y,
                d.client_id,
                d.angle,
                d.health_amount,
                d.armor_amount,
                i32::from(d.self_),
            ],
            Vec::new(),
        ),
        tw7::SnapObj::DeClientInfo(c) => {
            let mut ints = vec![i32::from(c.local), c.team as i32];
            ints.extend_from_slice(&c.name);
            ints.extend_from_slice(&c.clan);
            ints.push(c.country);
            c.skin_part_names
                .iter()
                .for_each(|n| ints.extend_from_slice(n));
            ints.extend(c.use_custom_colors.iter().map(|&b| i32::from(b)));
            ints.extend_from_slice(&c.skin_part_colors);
            let mut strings = vec![c.name.to_vec(), c.clan.to_vec()];
            strings.extend(c.skin_part_names.iter().map(|n| n.to_vec()));
            (ints, strings)
        }
        other => (other.encode().to_vec(), Vec::new()),
    }
}

/// Decodes an item with libtw2: DDNet's crate for 0.6 and for DDNet's extensions (type 0
/// and extended types), the 0.7 crate for the rest of a 0.7 demo, as demokit routes them.
fn libtw2_object(
    protocol: Protocol,
    ty: ObjectType,
    data: &[i32],
) -> Result<Libtw2Object, ddnet::Error> {
    let type_id = match ty {
        ObjectType::Static(n) => {
            ddnet::snap_obj::TypeId::Ordinal(u16::try_from(n).map_err(|_| ddnet::Error::UnknownId)?)
        }
        ObjectType::Extended(uuid) => ddnet::snap_obj::TypeId::Uuid(uuid),
    };
    let ddnet_extension = matches!(ty, ObjectType::Extended(_) | ObjectType::Static(0));
    let mut warnings: Vec<ExcessData> = Vec::new();
    let (name, (ints, strings)) = if protocol == Protocol::Seven && !ddnet_extension {
        let object = tw7::SnapObj::decode_obj(&mut warnings, type_id, &mut IntUnpacker::new(data))?;
        (libtw2_name(&object), tw7_object(&object))
    } else {
        let object =
            ddnet::SnapObj::decode_obj(&mut warnings, type_id, &mut IntUnpacker::new(data))?;
        (libtw2_name(&object), ddnet_object(&object))
    };
    Ok(Libtw2Object {
        name,
        ints,
        excess: !warnings.is_empty(),
        strings,
    })
}

/// DDNet's defaults (`datasrc/network.py`) for the objects whose fields all have one, in
/// field order, as far as libtw2 has the fields.
fn ddnet_defaults(name: &str) -> Option<&'static [i32]> {
    match name {
        "DDNetCharacter" => Some(&[0, 0, 2, -1, 0, -1, -1, -1, 0, 0, -1]),
        "GameInfoEx" => Some(&[0, 0, 0]),
        _ => None,
    }
}

/// demokit's strings of a ClientInfo / De_ClientInfo as libtw2's `string_to_ints` stores
/// their text; `None` for other objects.
fn demokit_strings(object: &AnyObject<'_>) -> Option<Vec<Vec<i32>>> {
    fn ints<const N: usize>(s: &gamenet::IntString<N>) -> Vec<i32> {
        // Only canonical strings hold exactly what their text stores.
        assert!(s.is_canonical(), "a string with bytes after its end: {s:?}");
        let mut out = vec![0; N];
        libtw2_packer::string_to_ints(&mut out, &s.text_bytes());
        out
    }
    match object {
        AnyObject::Six(six::Object::ClientInfo(c)) => {
            Some(vec![ints(&c.name), ints(&c.clan), ints(&c.skin)])
        }
        AnyObject::Seven(seven::Object::DeClientInfo(c)) => {
            let mut all = vec![ints(&c.name), ints(&c.clan)];
            all.extend(c.skin_part_names.iter().map(ints));
            Some(all)
        }
        _ => None,
    }
}

/// Compares one item.
fn compare_item(
    protocol: Protocol,
    snapshot: &Snapshot<'_>,
    type_id: i32,
    id: i32,
    data: &[i32],
    tally: &mut Tally,
) {
    tally.items += 1;
    let ty = object_type(snapshot, type_id);
    let object = protocol.decode_object(ty, data);
    let what = || format!("item type {type_id} ({ty:?}) id {id} {data:?} (demokit: {object:?})");
    let libtw2 = libtw2_object(protocol, ty, data);
    let libtw2 = match (object.as_raw(), libtw2) {
        // Neither knows it, or neither takes its size.
        (Some(_), Err(_)) => {
            tally.unknown_items += 1;
            return;
        }
        (Some(_), Ok(l)) => panic!("libtw2 decodes {} but demokit does not: {}", l.name, what()),
        (None, Err(ddnet::Error::UnknownId)) => {
            match &object {
                AnyObject::Six(six::Object::ExtendedType(ex)) => {
                    // The UUID's 16 bytes are the 4 ints big-endian.
                    let bytes: Vec<u8> = data.iter().flat_map(|i| i.to_be_bytes()).collect();
                    assert_eq!(
                        ex.uuid(),
                        uuid::Uuid::from_slice(&bytes).unwrap(),
                        "{}",
                        what()
                    );
                    tally.except(ExtendedTypeItem);
                }
                AnyObject::Six(six::Object::MapBestTime(_)) => tally.except(NoMapBestTime),
                _ => panic!("libtw2 does not know {}", what()),
            }
            return;
        }
        (None, Err(e)) => panic!("libtw2 refuses ({e:?}) {}", what()),
        (None, Ok(l)) => l,
    };
    assert_eq!(
        normalized(object.name()),
        normalized(&libtw2.name),
        "names differ: {}",
        what()
    );
    let mut written = Vec::new();
    object.write_ints(&mut written).unwrap();
    assert_eq!(written, data, "demokit writes other ints: {}", what());
    if libtw2.ints == data && !libtw2.excess {
        // The same object.
    } else if libtw2.excess && data.starts_with(&libtw2.ints) {
        // libtw2's object stops early.
        match object.name() {
            "DDNetPlayer" => tally.except(DdnetPlayerFinishTime),
            "GameInfoEx" => tally.except(GameInfoExTeamSize),
            _ => panic!("libtw2 stops after {:?}: {}", libtw2.ints, what()),
        }
    } else if !libtw2.excess && libtw2.ints.starts_with(data) {
        // A short item: libtw2 fills in the defaults.
        let defaults = ddnet_defaults(object.name())
            .unwrap_or_else(|| panic!("libtw2 fills {:?}: {}", libtw2.ints, what()));
        assert_eq!(
            libtw2.ints[data.len()..],
            defaults[data.len()..],
            "libtw2 fills other defaults than DDNet: {}",
            what()
        );
        tally.except(DefaultsFilled);
    } else {
        panic!("libtw2 has {:?} for {}", libtw2.ints, what());
    }
    if let Some(strings) = demokit_strings(&object) {
        assert_eq!(strings, libtw2.strings, "strings differ: {}", what());
        tally.text_items += 1;
    }
}

// ---- Messages ----

/// A message as libtw2 decodes it. One lives at a time, on the stack: its size is no matter.
#[allow(clippy::large_enum_variant)]
enum Libtw2Message<'a> {
    Ddnet(ddnet::msg::SystemOrGame<ddnet::msg::System<'a>, ddnet::msg::Game<'a>>),
    Seven(tw7::msg::SystemOrGame<tw7::msg::System<'a>, tw7::msg::Game<'a>>),
}

impl Libtw2Message<'_> {
    /// libtw2's name of the message.
    fn name(&self) -> String {
        use ddnet::msg::SystemOrGame::{Game, System};
        match self {
            Libtw2Message::Ddnet(System(m)) => libtw2_name(m),
            Libtw2Message::Ddnet(Game(m)) => libtw2_name(m),
            Libtw2Message::Seven(System(m)) => libtw2_name(m),
            Libtw2Message::Seven(Game(m)) => libtw2_name(m),
        }
    }

    /// The message packed again, id included.
    fn pack(&self, capacity: usize) -> Vec<u8> {
        use ddnet::msg::SystemOrGame::{Game, System};
        let mut out = Vec::with_capacity(capacity);
        with_packer(&mut out, |p| match self {
            Libtw2Message::Ddnet(System(m)) => m.encode(p).map(<[u8]>::len),
            Libtw2Message::Ddnet(Game(m)) => m.encode(p).map(<[u8]>::len),
            Libtw2Message::Seven(System(m)) => m.encode(p).map(<[u8]>::len),
            Libtw2Message::Seven(Game(m)) => m.encode(p).map(<[u8]>::len),
        })
        .expect("libtw2 packs the message");
        out
    }
}

/// Decodes a message chunk's bytes with libtw2 (DDNet's crate for 0.6 and for messages behind
/// a UUID, the 0.7 crate for the rest of a 0.7 demo, as demokit routes them), with the
/// warnings it raised.
fn libtw2_message(
    protocol: Protocol,
    bytes: &[u8],
) -> (Result<Libtw2Message<'_>, ddnet::Error>, Vec<Warning>) {
    let uuid = matches!(
        gamenet::unpack_message_id(&mut gamenet::Unpacker::new(bytes)),
        Some((_, MessageId::Uuid(_)))
    );
    let mut warnings = Vec::new();
    // Demo messages are padded with zeros to whole ints, which libtw2 allows for.
    let mut unpacker = Unpacker::new_from_demo(bytes);
    let message = if protocol == Protocol::Seven && !uuid {
        tw7::msg::decode(&mut warnings, &mut unpacker).map(Libtw2Message::Seven)
    } else {
        ddnet::msg::decode(&mut warnings, &mut unpacker).map(Libtw2Message::Ddnet)
    };
    (message, warnings)
}

/// Compares the fields of the common messages one by one; `true` if it did.
fn compare_fields(message: &AnyMessage<'_>, libtw2: &Libtw2Message<'_>) -> bool {
    use ddnet::msg::SystemOrGame::{Game, System};
    use ddnet::msg::game as dg;
    use ddnet::msg::system as ds;
    use tw7::msg::game as sg;
    match (message, libtw2) {
        (
            AnyMessage::Six(six::Message::SvChat(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvChat(b))),
        ) => {
            assert_eq!(
                (a.team, a.client_id, a.message.as_bytes()),
                (b.team, b.client_id, b.message)
            );
        }
        (
            AnyMessage::Six(six::Message::SvKillMsg(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvKillMsg(b))),
        ) => {
            assert_eq!(
                (a.killer, a.victim, a.weapon, a.mode_special),
                (b.killer, b.victim, b.weapon, b.mode_special)
            );
        }
        (
            AnyMessage::Six(six::Message::SvEmoticon(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvEmoticon(b))),
        ) => {
            assert_eq!((a.client_id, a.emoticon), (b.client_id, b.emoticon as i32));
        }
        (
            AnyMessage::Six(six::Message::SvMotd(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvMotd(b))),
        ) => {
            assert_eq!(a.message.as_bytes(), b.message);
        }
        (
            AnyMessage::Six(six::Message::SvBroadcast(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvBroadcast(b))),
        ) => {
            assert_eq!(a.message.as_bytes(), b.message);
        }
        (
            AnyMessage::Six(six::Message::SvSoundGlobal(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvSoundGlobal(b))),
        ) => {
            assert_eq!(a.sound_id, b.sound_id as i32);
        }
        (
            AnyMessage::Six(six::Message::SvWeaponPickup(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvWeaponPickup(b))),
        ) => {
            assert_eq!(a.weapon, b.weapon as i32);
        }
        (
            AnyMessage::Six(six::Message::SvRecord(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvRecord(b))),
        ) => {
            assert_eq!(
                (a.server_time_best, a.player_time_best),
                (b.server_time_best, b.player_time_best)
            );
        }
        (
            AnyMessage::Six(six::Message::SvRecordLegacy(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvRecordLegacy(b))),
        ) => {
            assert_eq!(
                (a.server_time_best, a.player_time_best),
                (b.server_time_best, b.player_time_best)
            );
        }
        (
            AnyMessage::Six(six::Message::SvVoteOptionListAdd(a)),
            Libtw2Message::Ddnet(Game(dg::Game::SvVoteOptionListAdd(b))),
        ) => {
            assert_eq!(a.num_options, b.num_options);
            let ours: Vec<&[u8]> = a.descriptions.iter().map(|d| d.as_bytes()).collect();
            assert_eq!(ours, b.description);
        }
        (
            AnyMessage::Six(six::Message::MapChange(a)),
            Libtw2Message::Ddnet(System(ds::System::MapChange(b))),
        ) => {
            assert_eq!((a.name.as_bytes(), a.crc, a.size), (b.name, b.crc, b.size));
        }
        (
            AnyMessage::Six(six::Message::MapDetails(a)),
            Libtw2Message::Ddnet(System(ds::System::MapDetails(b))),
        ) => {
            assert_eq!(
                (a.name.as_bytes(), a.sha256.0, a.crc),
                (b.name, b.sha256.0, b.crc)
            );
        }
        (
            AnyMessage::Six(six::Message::Capabilities(a)),
            Libtw2Message::Ddnet(System(ds::System::Capabilities(b))),
        ) => {
            assert_eq!((a.version, a.flags), (b.version, b.flags));
        }
        (
            AnyMessage::Six(six::Message::InputTiming(a)),
            Libtw2Message::Ddnet(System(ds::System::InputTiming(b))),
        ) => {
            assert_eq!(
                (a.input_pred_tick, a.time_left),
                (b.input_pred_tick, b.time_left)
            );
        }
        (
            AnyMessage::Seven(seven::Message::SvChat(a)),
            Libtw2Message::Seven(Game(sg::Game::SvChat(b))),
        ) => {
            assert_eq!(
                (a.mode, a.client_id, a.target_id, a.message.as_bytes()),
                (b.mode as i32, b.client_id, b.target_id, b.message)
            );
        }
        (
            AnyMessage::Seven(seven::Message::SvKillMsg(a)),
            Libtw2Message::Seven(Game(sg::Game::SvKillMsg(b))),
        ) => {
            assert_eq!(
                (a.killer, a.victim, a.weapon, a.mode_special),
                (b.killer, b.victim, b.weapon, b.mode_special)
            );
        }
        (
            AnyMessage::Seven(seven::Message::SvClientInfo(a)),
            Libtw2Message::Seven(Game(sg::Game::SvClientInfo(b))),
        ) => {
            assert_eq!(
                (
                    a.client_id,
                    a.local,
                    a.team,
                    a.name.as_bytes(),
                    a.clan.as_bytes(),
                    a.country
                ),
                (
                    b.client_id,
                    i32::from(b.local),
                    b.team as i32,
                    b.name,
                    b.clan,
                    b.country
                )
            );
            let names: Vec<&[u8]> = a.skin_part_names.iter().map(|n| n.as_bytes()).collect();
            assert_eq!(names, b.skin_part_names);
            assert_eq!(a.use_custom_colors, b.use_custom_colors.map(i32::from));
            assert_eq!(a.skin_part_colors, b.skin_part_colors);
            assert_eq!(a.silent, i32::from(b.silent));
        }
        (
            AnyMessage::Seven(seven::Message::SvClientDrop(a)),
            Libtw2Message::Seven(Game(sg::Game::SvClientDrop(b))),
        ) => {
            assert_eq!(
                (a.client_id, a.reason.as_bytes(), a.silent),
                (b.client_id, b.reason, i32::from(b.silent))
            );
        }
        _ => return false,
    }
    true
}

/// Compares one message chunk (its payload ints as little-endian bytes).
fn compare_message(protocol: Protocol, bytes: &[u8], tally: &mut Tally) {
    tally.messages += 1;
    let unpacked = protocol.unpack_message(bytes);
    let mut again = Vec::new();
    unpacked.pack(&mut again).unwrap();
    assert_eq!(again, bytes, "demokit packs other bytes");
    let what = || format!("message {:02x?} (demokit: {:?})", bytes, unpacked.message);
    let (libtw2, warnings) = libtw2_message(protocol, bytes);
    let name = unpacked.message.name();
    let libtw2 = match (unpacked.message.as_raw(), libtw2) {
        (Some(_), Err(_)) => {
            tally.unknown_messages += 1;
            return;
        }
        (Some(_), Ok(l)) => panic!(
            "libtw2 decodes {} but demokit does not: {}",
            l.name(),
            what()
        ),
        (None, Err(ddnet::Error::UnexpectedEnd)) => {
            match name {
                "Sv_TuneParams" if protocol == Protocol::Six => tally.except(ShortTuneParams),
                "Sv_TeamsState" => tally.except(ShortTeamsState),
                _ => panic!("libtw2 finds {} too short: {}", name, what()),
            }
            return;
        }
        (None, Err(e)) => panic!("libtw2 refuses ({e:?}) {}", what()),
        (None, Ok(l)) => l,
    };
    let libtw2_name = libtw2.name();
    if name == "Sv_ExtraProjectile" {
        assert_eq!(libtw2_name, "Unused", "{}", what());
    } else {
        assert_eq!(
            normalized(name),
            normalized(&libtw2_name),
            "names differ: {}",
            what()
        );
    }
    // Packed again, libtw2's message and its demo padding (zeros to whole ints) are the
    // chunk's bytes, which are demokit's message packed again and its padding (asserted
    // above). demokit's `rest` fields (tuning, map data) take the padding in, libtw2 reads
    // such a field by its length or as ints and leaves the padding out; compared with the
    // padding, the two are the same.
    let theirs = libtw2.pack(2 * bytes.len() + 64);
    let padding = bytes.get(theirs.len()..).unwrap_or(&[0xff]);
    let excess = warnings.contains(&Warning::ExcessData);
    if bytes.starts_with(&theirs) && padding.len() < 4 && padding.iter().all(|&b| b == 0) {
        assert!(warnings.is_empty(), "libtw2 warns {warnings:?}: {}", what());
    } else if excess && bytes.starts_with(&theirs) {
        // libtw2's message stops early.
        match name {
            "Sv_ExtraProjectile" => tally.except(ExtraProjectile),
            "NETMSG_MAP_DETAILS" => tally.except(MapDetailsSizeUrl),
            "Sv_TuneParams" if protocol == Protocol::Seven => tally.except(LongTuneParams7),
            _ => panic!("libtw2 stops after {theirs:02x?}: {}", what()),
        }
    } else {
        panic!("libtw2 packs {theirs:02x?} ({warnings:?}) for {}", what());
    }
    if compare_fields(&unpacked.message, &libtw2) {
        tally.field_messages += 1;
    }
}

/// Compares every item and message of one demo.
fn compare_demo(data: &[u8]) -> (String, Tally) {
    let demo = DemoSlice::parse(data).unwrap();
    let net_version = demo.prelude().header.net_version.to_string_lossy();
    let protocol = Protocol::for_net_version(&net_version);
    let mut tally = Tally::default();
    let mut replay = SnapshotReplay::new(&demo);
    while let Some(tick) = replay.next() {
        let Some(snapshot) = tick.unwrap().snapshot else {
            continue;
        };
        for item in snapshot.items() {
            compare_item(
                protocol,
                &snapshot,
                item.type_id,
                item.id,
                item.data,
                &mut tally,
            );
        }
    }
    let mut decoder = PayloadDecoder::new();
    for chunk in demo.chunks() {
        let Chunk::Data(data) = chunk.unwrap().chunk else {
            continue;
        };
        if data.kind != ChunkKind::Message {
            continue;
        }
        let payload = decoder.decode(data.payload).unwrap();
        compare_message(protocol, &payload.to_bytes(), &mut tally);
    }
    (net_version, tally)
}

#[test]
fn real_demos_match_libtw2() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut failures = Vec::new();
    for (path, _) in common::twdemo_facts(&shared) {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let (net_version, tally) = compare_demo(&std::fs::read(&path).unwrap());
        println!(
            "{file} ({net_version}): {} items ({} unknown to both, {} with strings as text), \
             {} messages ({} unknown to both, {} field by field)",
            tally.items,
            tally.unknown_items,
            tally.text_items,
            tally.messages,
            tally.unknown_messages,
            tally.field_messages
        );
        for (exception, count) in &tally.exceptions {
            println!("  {count:7} {exception:?}: {}", exception.why());
        }
        let expected = EXPECTED.iter().find(|e| e.file == file);
        let matches = expected.is_some_and(|e| {
            let exceptions: BTreeMap<Exception, usize> = e.exceptions.iter().copied().collect();
            (
                e.items,
                e.messages,
                e.unknown_items,
                e.unknown_messages,
                &exceptions,
            ) == (
                tally.items,
                tally.messages,
                tally.unknown_items,
                tally.unknown_messages,
                &tally.exceptions,
            )
        });
        if !matches {
            failures.push(format!(
                "{file}: expected figures differ; found {} items, {} messages, {} / {} unknown, {:?}",
                tally.items,
                tally.messages,
                tally.unknown_items,
                tally.unknown_messages,
                tally.exceptions
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
