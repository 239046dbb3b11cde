//! `seven::object_is_valid`: DDNet's 0.7 `ValidateObj`, which its client runs on every item
//! of a 0.7 demo's snapshots (and marks those that fail invalid in the player's snapshot).

use demokit::gamenet::ObjectType;
use demokit::gamenet::seven::{self, object_is_valid};

/// The size in ints of a 0.7 object of `type_id` as the protocol table types it (the one
/// size it decodes exactly), if the table has the type.
fn table_size(type_id: i32) -> Option<usize> {
    (0..=64).find(|&n| {
        !matches!(
            seven::Object::decode(ObjectType::Static(type_id), &vec![0; n]),
            seven::Object::Raw(_)
        )
    })
}

/// Every 0.7 object (types 1 to 24) is valid at exactly its size with every int 0, which
/// is in every field's range; no other type is a 0.7 object.
#[test]
fn every_seven_object_has_the_size_of_the_protocol_table() {
    for type_id in 1..=24 {
        let size = table_size(type_id).unwrap_or_else(|| panic!("type {type_id}"));
        assert!(object_is_valid(type_id, &vec![0; size]), "type {type_id}");
        assert!(
            !object_is_valid(type_id, &vec![0; size + 1]),
            "type {type_id}"
        );
        if size > 0 {
            assert!(
                !object_is_valid(type_id, &vec![0; size - 1]),
                "type {type_id}"
            );
        }
    }
    for type_id in [-1, 0, 25, 0x4000] {
        assert!(!object_is_valid(type_id, &[0, 0]), "type {type_id}");
    }
}

/// Ranges and flag masks as `datasrc/seven/network.py` gives them.
#[test]
fn fields_out_of_range_fail() {
    // Flag: team 0 or 1.
    assert!(object_is_valid(5, &[1, 2, 1]));
    assert!(!object_is_valid(5, &[1, 2, 2]));
    assert!(!object_is_valid(5, &[1, 2, -1]));
    // Character: weapon -1 to 5 (int 18), triggered events in 5 bits (int 21).
    let mut character = vec![0; 22];
    character[18] = -1;
    assert!(object_is_valid(10, &character));
    character[18] = 6;
    assert!(!object_is_valid(10, &character));
    character[18] = 0;
    character[21] = 0x20;
    assert!(!object_is_valid(10, &character));
    // PlayerInfo: player flags in 8 bits.
    assert!(object_is_valid(11, &[0xff, -5, 999]));
    assert!(!object_is_valid(11, &[0x100, 0, 0]));
    // De_ClientInfo: local is a bool, team -1 to 1.
    let mut info = vec![0; 58];
    info[1] = -1;
    assert!(object_is_valid(13, &info));
    info[0] = 2;
    assert!(!object_is_valid(13, &info));
    // SoundWorld: 41 sounds.
    assert!(object_is_valid(21, &[0, 0, 40]));
    assert!(!object_is_valid(21, &[0, 0, 41]));
    // A tick is never negative.
    assert!(!object_is_valid(23, &[-1]));
}
