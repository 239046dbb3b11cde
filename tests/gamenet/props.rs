//! The protocol tables round-trip: for every object and message type of both protocols,
//! values generated from the table's own field list decode typed and encode back to the
//! same ints and bytes (typed -> ints -> typed), JSON of them reads back as the same value,
//! and any ints or bytes at all re-encode unchanged, typed or raw. Case counts follow
//! PROPTEST_CASES; failures persist under proptest-regressions/.

use demokit::codec::varint;
use demokit::gamenet::{Field, FieldKind, ObjectType, pack_message_id, seven, six};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::FileFailurePersistence;

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/gamenet_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// Ints a whole item of these fields takes.
fn item_ints(fields: &[Field]) -> usize {
    fields
        .iter()
        .map(|f| match f.kind {
            FieldKind::Int | FieldKind::OptInt => 1,
            FieldKind::Ints(n) | FieldKind::OptInts(n) | FieldKind::Text(n) => n,
            FieldKind::Texts(n, m) => n * m,
            other => panic!("{other:?} in an object"),
        })
        .sum()
}

/// The item lengths a reader accepts: the whole item, and the item cut before any optional
/// field that only optional fields follow (`DamageIndEx`'s optional `client_id` is
/// followed by a required `angle`: no cut there).
fn accepted_lengths(fields: &[Field]) -> Vec<usize> {
    let optional = |f: &Field| matches!(f.kind, FieldKind::OptInt | FieldKind::OptInts(_));
    let mut lengths: Vec<usize> = (0..fields.len())
        .filter(|&i| fields[i..].iter().all(optional))
        .map(|i| item_ints(&fields[..i]))
        .collect();
    lengths.push(item_ints(fields));
    lengths
}

/// Packed bytes of one message of these fields: `present` of the optional trailing fields
/// are written (the rest left out), values from `seed`.
fn message_bytes(fields: &[Field], seed: &[u32], present: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut seed = seed.iter().copied().cycle();
    let mut next = || seed.next().unwrap_or(7);
    let string = |out: &mut Vec<u8>, v: u32| {
        // Short strings of non-NUL bytes, UTF-8 or not.
        let len = (v % 9) as usize;
        out.extend((0..len).map(|i| ((v >> (i % 4 * 8)) as u8).max(1)));
        out.push(0);
    };
    let mut optional_seen = 0;
    for field in fields {
        match field.kind {
            FieldKind::OptInt | FieldKind::OptStr => {
                if optional_seen >= present {
                    break;
                }
                optional_seen += 1;
            }
            _ => {}
        }
        match field.kind {
            FieldKind::Int | FieldKind::OptInt => varint::pack_into(next() as i32, &mut out),
            FieldKind::Ints(n) => {
                for _ in 0..n {
                    varint::pack_into(next() as i32, &mut out);
                }
            }
            FieldKind::Str | FieldKind::OptStr => string(&mut out, next()),
            FieldKind::Strs(n) => {
                for _ in 0..n {
                    string(&mut out, next());
                }
            }
            FieldKind::Uuid => out.extend((0..16).map(|_| next() as u8)),
            FieldKind::Raw(n) => out.extend((0..n).map(|_| next() as u8)),
            FieldKind::Rest => out.extend((0..next() % 12).map(|_| next() as u8)),
            FieldKind::Bytes => {
                let len = next() % 12;
                varint::pack_into(len as i32, &mut out);
                out.extend((0..len).map(|_| next() as u8));
            }
            other => panic!("{other:?} in a message"),
        }
    }
    out
}

/// The same properties for one protocol module.
macro_rules! protocol_props {
    ($module:ident, $objects:ident, $messages:ident, $any_ints:ident, $any_bytes:ident) => {
        proptest! {
            #![proptest_config(config())]

            /// Every object type: ints of every length from the required fields to the whole
            /// item decode typed and write back the same; JSON reads back the same object.
            #[test]
            fn $objects(
                kind in select($module::ObjectKind::ALL),
                ints in vec(any::<i32>(), 0..=120),
                cut in any::<prop::sample::Index>(),
            ) {
                let fields = kind.fields();
                let whole = item_ints(fields);
                let len = *cut.get(&accepted_lengths(fields));
                let mut data: Vec<i32> = ints.iter().copied().cycle().take(whole).collect();
                data.resize(whole, 5);
                data.truncate(len);
                let object = $module::Object::decode_as(kind, &data);
                prop_assert_eq!(object.kind(), Some(kind), "{} of {} ints", kind.name(), len);
                let mut out = Vec::new();
                object.write_ints(&mut out).unwrap();
                prop_assert_eq!(&out, &data);
                let json = serde_json::to_string(&object).unwrap();
                let back: $module::Object<'static> = serde_json::from_str(&json).unwrap();
                prop_assert_eq!(&back, &object, "{}", json);
            }

            /// Every message type: bytes made from the table's field list unpack typed, pack
            /// back to the same bytes, and read back the same from JSON.
            #[test]
            fn $messages(
                kind in select($module::MessageKind::ALL),
                seed in vec(any::<u32>(), 1..40),
                present in 0usize..3,
            ) {
                let mut bytes = Vec::new();
                pack_message_id(kind.id(), &mut bytes);
                bytes.extend(message_bytes(kind.fields(), &seed, present));
                let unpacked = $module::Message::unpack(&bytes);
                prop_assert_eq!(unpacked.message.kind(), Some(kind), "{:02x?}", bytes);
                prop_assert!(unpacked.trailing.0.is_empty());
                let mut out = Vec::new();
                unpacked.pack(&mut out).unwrap();
                prop_assert_eq!(&out, &bytes);
                let json = serde_json::to_string(&unpacked.message).unwrap();
                let back: $module::Message<'static> = serde_json::from_str(&json).unwrap();
                prop_assert_eq!(&back, &unpacked.message, "{}", json);
            }

            /// Any ints of any type write back unchanged, typed or raw.
            #[test]
            fn $any_ints(ty in -2i32..70, ints in vec(any::<i32>(), 0..40)) {
                let object = $module::Object::decode(ObjectType::Static(ty), &ints);
                let mut out = Vec::new();
                object.write_ints(&mut out).unwrap();
                prop_assert_eq!(out, ints);
            }

            /// Any bytes pack back unchanged, typed or raw.
            #[test]
            fn $any_bytes(bytes in vec(any::<u8>(), 0..60), id in 0u8..0x80) {
                let mut bytes = bytes;
                bytes.insert(0, id);
                let unpacked = $module::Message::unpack(&bytes);
                let mut out = Vec::new();
                unpacked.pack(&mut out).unwrap();
                prop_assert_eq!(out, bytes);
            }
        }
    };
}

protocol_props!(
    six,
    six_objects_round_trip,
    six_messages_round_trip,
    six_any_ints_write_back,
    six_any_bytes_pack_back
);
protocol_props!(
    seven,
    seven_objects_round_trip,
    seven_messages_round_trip,
    seven_any_ints_write_back,
    seven_any_bytes_pack_back
);

proptest! {
    #![proptest_config(config())]

    /// Every extended object type: an item longer than the table's object (a newer
    /// DDNet's) decodes typed, keeps the ints after the fields, and writes back the
    /// same; JSON reads back the same object.
    #[test]
    fn six_longer_extended_objects_round_trip(
        kind in select(six_extended_kinds()),
        ints in vec(any::<i32>(), 0..=120),
        extra in vec(any::<i32>(), 1..6),
    ) {
            let whole = item_ints(kind.fields());
        let mut data: Vec<i32> = ints.iter().copied().cycle().take(whole).collect();
        data.resize(whole, 5);
        data.extend(&extra);
        let object = six::Object::decode_as(kind, &data);
        prop_assert_eq!(object.kind(), Some(kind), "{} of {} ints", kind.name(), data.len());
        let mut out = Vec::new();
        object.write_ints(&mut out).unwrap();
        prop_assert_eq!(&out, &data);
        let json = serde_json::to_string(&object).unwrap();
        let back: six::Object<'static> = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &object, "{}", json);
    }

}

/// The 0.6 object kinds of extended (UUID) types.
fn six_extended_kinds() -> Vec<six::ObjectKind> {
    six::ObjectKind::ALL
        .iter()
        .copied()
        .filter(|k| matches!(k.object_type(), ObjectType::Extended(_)))
        .collect()
}

/// The tables hold every type DDNet defines at the reference commit: the counts per
/// protocol, from DDNet's `datasrc/network.py`, `datasrc/seven/network.py`, `protocol.h`,
/// `protocol_ex_msgs.h` and `protocol7.h`.
#[test]
fn table_counts() {
    let count = |kinds: &[(bool, bool)], system: bool, ex: bool| {
        kinds.iter().filter(|&&k| k == (system, ex)).count()
    };
    let six_messages: Vec<(bool, bool)> = six::MessageKind::ALL
        .iter()
        .map(|k| {
            let (system, id) = k.id();
            (system, matches!(id, demokit::gamenet::MessageId::Uuid(_)))
        })
        .collect();
    let six_objects = six::ObjectKind::ALL;
    let six_ex = six_objects
        .iter()
        .filter(|k| matches!(k.object_type(), ObjectType::Extended(_)))
        .count();
    // 0.6: NETOBJTYPE_EX, 12 objects and 8 events by number; 18 DDNet objects and events
    // behind UUIDs, and 7 of DDNet's pull requests in flight (`CharacterTuning` of #12359;
    // `CommonEx` and 5 events on it of #12676).
    assert_eq!((six_objects.len() - six_ex, six_ex), (21, 18 + 7));
    // 0.6 game messages: 31 numbered (Sv_ExtraProjectile keeps vanilla's id 7) and 24 of
    // DDNet's behind UUIDs (`NetMessageEx`); system: 21 numbered NETMSG_* and 20 UUID ones.
    assert_eq!(count(&six_messages, false, false), 31);
    assert_eq!(count(&six_messages, false, true), 24);
    assert_eq!(count(&six_messages, true, false), 21);
    assert_eq!(count(&six_messages, true, true), 20);
    // 0.7: 24 objects and events; 39 game messages; 25 system messages.
    assert_eq!(seven::ObjectKind::ALL.len(), 24);
    let seven_system = seven::MessageKind::ALL.iter().filter(|k| k.id().0).count();
    assert_eq!(
        (seven::MessageKind::ALL.len() - seven_system, seven_system),
        (39, 25)
    );
}

/// The UUID of every extended type and message is the one DDNet derives from its name.
#[test]
fn extension_uuids_match_their_names() {
    use demokit::codec::uuid::teeworlds_uuid;
    use demokit::gamenet::MessageId;
    let mut checked = 0;
    for kind in six::ObjectKind::ALL {
        match (kind.object_type(), kind.extension()) {
            (ObjectType::Extended(uuid), Some(name)) => {
                assert_eq!(uuid, teeworlds_uuid(name), "{}", kind.name());
                checked += 1;
            }
            (ObjectType::Static(_), None) => {}
            other => panic!("{}: {other:?}", kind.name()),
        }
    }
    for kind in six::MessageKind::ALL {
        match (kind.id().1, kind.extension()) {
            (MessageId::Uuid(uuid), Some(name)) => {
                assert_eq!(uuid, teeworlds_uuid(name), "{}", kind.name());
                checked += 1;
            }
            (MessageId::Number(_), None) => {}
            other => panic!("{}: {other:?}", kind.name()),
        }
    }
    assert_eq!(checked, 18 + 7 + 24 + 20);
}
