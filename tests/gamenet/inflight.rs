//! DDNet's game-protocol changes in flight (`src/gamenet/spec/six.inflight.json`): each
//! object both ways, ints → typed → ints, in the sizes before and after the pull request,
//! and a recorded demo holding them that replays typed and rewrites byte for byte.
//!
//! The vectors are built from each pull request's `datasrc/network.py` (the ints each object
//! has, in order): DDNet's tests at those heads hold no expected bytes for them
//! (`git diff $(git merge-base 28baa427 refs/pull/N/head) refs/pull/N/head -- src/test`
//! is empty for all three).
//!
//! - PR #12359 (head df36a506d8d8b320d065c825f16c87ab62393da0; shipped in DDNet 20.0-rc1
//!   to rc5, reverted in rc6): `CharacterTuning`, `DDNetLaser` + 4 ints, `DDNetProjectile`
//!   + 3 ints, `*FLAG_HAS_TUNEPARAMS`.
//! - PR #12676 (head 09e6c6343fe93d60979a0391f13efdf0e8a0168f, open): `CommonEx`,
//!   `Birthday` and `Finish` on it, `ExplosionEx`, `SpawnEx`, `HammerHitEx`, `DamageIndEx`,
//!   `SoundWorldEx`.
//! - Any extended object longer than the table's keeps its extra ints ([`ExObject`]).
//! - PR #12563 (head 4ba3f903573ce3d47746956be4812769d3dae782, open): item types up to
//!   0xffff, read only with [`ItemTypes::DdnetPr12563`].

use demokit::codec::uuid::teeworlds_uuid;
use demokit::gamenet::six::{self, Object, ObjectKind};
use demokit::gamenet::{ExObject, ObjectType, RawWhy};
use demokit::twdemo::game::{Event, GameReplay};
use demokit::twdemo::snapshot::replay::SnapshotReplay;
use demokit::twdemo::{
    DemoSlice, ItemSizes, ItemTypes, Recorder, RecorderConfig, SnapshotBuf, SnapshotBuilder,
};
use std::io::Cursor;

/// Decodes `ints` as `kind`, checks it typed, and that it writes back the same ints.
fn typed(kind: ObjectKind, ints: &[i32]) -> Object<'_> {
    let object = Object::decode(kind.object_type(), ints);
    assert_eq!(object.kind(), Some(kind), "{ints:?}: {object:?}");
    let mut out = Vec::new();
    object.write_ints(&mut out).unwrap();
    assert_eq!(out, ints, "{object:?}");
    object
}

/// Decodes `ints` as `kind` and checks that it stays raw for its size, and writes back.
fn raw_by_size(kind: ObjectKind, ints: &[i32]) {
    let object = Object::decode(kind.object_type(), ints);
    assert_eq!(object.as_raw_why(), Some(RawWhy::Size), "{ints:?}");
    let mut out = Vec::new();
    object.write_ints(&mut out).unwrap();
    assert_eq!(out, ints);
}

trait RawWhyOf {
    fn as_raw_why(&self) -> Option<RawWhy>;
}

impl RawWhyOf for Object<'_> {
    fn as_raw_why(&self) -> Option<RawWhy> {
        match self {
            Object::Raw(raw) => Some(raw.why),
            _ => None,
        }
    }
}

/// DDNet's default tuning as `CharacterTuning.m_Values` holds it (PR #12359's
/// src/game/tuning_params.h defaults, each `(int)(value * 100.0f)` as `CTuneParam` stores
/// it): the 47 ints in order.
const DEFAULT_TUNING: [i32; 47] = [
    1000, 200, 50, 1320, 1200, 500, 150, 95, 38000, 8000, 300, 1500, 50, 55000, 200000, 140, 125,
    220000, 200, 125, 275000, 80, 20, 700, 100000, 200, 80000, 15000, 100000, 0, 500, 100, 100,
    40000, 1000, 600, 100, 125, 12500, 12500, 50000, 50000, 80000, 80000, 32000, 0, 0,
];

#[test]
fn pr_12359_character_tuning() {
    let kind = ObjectKind::CharacterTuning;
    assert_eq!(
        kind.object_type(),
        ObjectType::Extended(teeworlds_uuid("character-tuning@netobj.ddnet.tw"))
    );
    assert_eq!(six::CharacterTuning::INTS, 47);
    let Object::CharacterTuning(t) = typed(kind, &DEFAULT_TUNING) else {
        unreachable!()
    };
    // Named in the order of the PR's tuning_params.h.
    assert_eq!(t.ground_control_speed, 1000);
    assert_eq!(t.ground_jump_impulse, 1320);
    assert_eq!(t.hook_length, 38000);
    assert_eq!(t.velramp_start, 55000);
    assert_eq!(t.laser_bounce_num, 100000);
    assert_eq!(t.shotgun_strength, 1000);
    assert_eq!(t.hammer_hit_fire_delay, 32000);
    assert_eq!(t.ground_elasticity_y, 0);
    assert!(t.extra.is_empty());
    let fields: Vec<&str> = kind.fields().iter().map(|f| f.name).collect();
    assert_eq!(fields.first(), Some(&"ground_control_speed"));
    assert_eq!(fields.last(), Some(&"ground_elasticity_y"));
    // Fewer than 47 stays raw; more (a later DDNet with more tunings) keeps the rest.
    raw_by_size(kind, &DEFAULT_TUNING[..46]);
    let mut longer = DEFAULT_TUNING.to_vec();
    longer.extend([7, 8]);
    let Object::CharacterTuning(t) = typed(kind, &longer) else {
        unreachable!()
    };
    assert_eq!(&*t.extra, &[7, 8]);
}

#[test]
fn pr_12359_flags() {
    assert_eq!(six::PROJECTILEFLAG_HAS_TUNEPARAMS, 1 << 5);
    assert_eq!(six::LASERFLAG_HAS_TUNEPARAMS, 1 << 1);
}

#[test]
fn pr_12359_ddnet_laser_both_sizes() {
    let kind = ObjectKind::DdnetLaser;
    // 28baa427: to, from, start tick, owner, type, switch number, subtype, flags.
    let short = [100, 200, 300, 400, 5000, 3, 1, -1, -1, 0];
    let Object::DdnetLaser(laser) = typed(kind, &short) else {
        unreachable!()
    };
    assert_eq!((laser.flags, laser.shotgun_strength), (Some(0), None));
    assert_eq!(laser.bounce_delay, None);
    // PR #12359: + shotgun strength, bounce num, bounce cost, bounce delay.
    let flags = six::LASERFLAG_HAS_TUNEPARAMS;
    let long = [
        100, 200, 300, 400, 5000, 3, 1, -1, -1, flags, 1000, 1, 0, 15000,
    ];
    let Object::DdnetLaser(laser) = typed(kind, &long) else {
        unreachable!()
    };
    assert_eq!(laser.flags, Some(flags));
    assert_eq!(laser.shotgun_strength, Some(1000));
    assert_eq!(laser.bounce_num, Some(1));
    assert_eq!(laser.bounce_cost, Some(0));
    assert_eq!(laser.bounce_delay, Some(15000));
    assert!(laser.extra.is_empty());
    // Every size from the oldest (7 ints) to the newest is typed and writes back.
    for len in 7..=long.len() {
        typed(kind, &long[..len]);
    }
    raw_by_size(kind, &long[..6]);
    // Typed from scratch, as DDNet's server fills it.
    let mut out = Vec::new();
    let built = Object::DdnetLaser(ExObject::new(six::DdnetLaser {
        to_x: 100,
        to_y: 200,
        from_x: 300,
        from_y: 400,
        start_tick: 5000,
        owner: 3,
        kind: 1,
        switch_number: Some(-1),
        subtype: Some(-1),
        flags: Some(flags),
        shotgun_strength: Some(1000),
        bounce_num: Some(1),
        bounce_cost: Some(0),
        bounce_delay: Some(15000),
    }));
    built.write_ints(&mut out).unwrap();
    assert_eq!(out, long);
}

#[test]
fn pr_12359_ddnet_projectile_both_sizes() {
    let kind = ObjectKind::DdnetProjectile;
    // 28baa427: x, y, vel, type, start tick, owner, switch number, tune zone, flags.
    let short = [10, 20, 30, 40, 2, 5000, 1, 0, 0, 4];
    let Object::DdnetProjectile(p) = typed(kind, &short) else {
        unreachable!()
    };
    assert_eq!(
        (p.flags, p.curvature, p.speed, p.lifetime),
        (4, None, None, None)
    );
    // PR #12359: + curvature, speed, lifetime.
    let flags = 4 | six::PROJECTILEFLAG_HAS_TUNEPARAMS;
    let long = [10, 20, 30, 40, 2, 5000, 1, 0, 0, flags, 700, 100000, 200];
    let Object::DdnetProjectile(p) = typed(kind, &long) else {
        unreachable!()
    };
    assert_eq!(
        (p.flags, p.curvature, p.speed, p.lifetime),
        (flags, Some(700), Some(100000), Some(200))
    );
    for len in 10..=long.len() {
        typed(kind, &long[..len]);
    }
    raw_by_size(kind, &long[..9]);
}

#[test]
fn pr_12676_common_ex_and_events() {
    let names = [
        (ObjectKind::CommonEx, "common-ex@netevent.ddnet.org"),
        (ObjectKind::Birthday, "birthday@netevent.ddnet.org"),
        (ObjectKind::Finish, "finish@netevent.ddnet.org"),
        (ObjectKind::ExplosionEx, "explosion-ex@netevent.ddnet.org"),
        (ObjectKind::SpawnEx, "spawn-ex@netevent.ddnet.org"),
        (ObjectKind::HammerHitEx, "hammerhit-ex@netevent.ddnet.org"),
        (ObjectKind::DamageIndEx, "damageind-ex@netevent.ddnet.org"),
        (ObjectKind::SoundWorldEx, "soundworld-ex@netevent.ddnet.org"),
    ];
    for (kind, name) in names {
        assert_eq!(kind.extension(), Some(name));
        assert_eq!(
            kind.object_type(),
            ObjectType::Extended(teeworlds_uuid(name))
        );
        let fields: Vec<&str> = kind.fields().iter().map(|f| f.name).collect();
        assert_eq!(fields[..3], ["x", "y", "client_id"], "{name}");
        // x, y, client id (and the event's own int).
        let ints: &[i32] = match kind {
            ObjectKind::DamageIndEx => &[64, -32, 5, 128],
            ObjectKind::SoundWorldEx => &[64, -32, 5, 11],
            _ => &[64, -32, 5],
        };
        typed(kind, ints);
    }
    let Object::DamageIndEx(d) = typed(ObjectKind::DamageIndEx, &[64, -32, 5, 128]) else {
        unreachable!()
    };
    assert_eq!((d.x, d.y, d.client_id, d.angle), (64, -32, Some(5), 128));
    let Object::SoundWorldEx(s) = typed(ObjectKind::SoundWorldEx, &[1, 2, -1, 40]) else {
        unreachable!()
    };
    assert_eq!((s.client_id, s.sound_id), (Some(-1), 40));
    // The client id is optional (default -1), the ints after it are not.
    raw_by_size(ObjectKind::DamageIndEx, &[64, -32]);
    raw_by_size(ObjectKind::DamageIndEx, &[64, -32, 5]);
    raw_by_size(ObjectKind::CommonEx, &[64]);
}

#[test]
fn pr_12676_birthday_and_finish_in_both_sizes() {
    // 28baa427: on Common (x, y); PR #12676: on CommonEx (x, y, client id).
    let Object::Finish(old) = typed(ObjectKind::Finish, &[1000, 2000]) else {
        unreachable!()
    };
    assert_eq!((old.x, old.y, old.client_id), (1000, 2000, None));
    let Object::Finish(new) = typed(ObjectKind::Finish, &[1000, 2000, 7]) else {
        unreachable!()
    };
    assert_eq!((new.x, new.y, new.client_id), (1000, 2000, Some(7)));
    let Object::Birthday(old) = typed(ObjectKind::Birthday, &[3, 4]) else {
        unreachable!()
    };
    assert_eq!(old.client_id, None);
    let Object::Birthday(new) = typed(ObjectKind::Birthday, &[3, 4, -1]) else {
        unreachable!()
    };
    assert_eq!(new.client_id, Some(-1));
    // Longer still: the extra ints are kept.
    let Object::Finish(longer) = typed(ObjectKind::Finish, &[1, 2, 3, 4, 5]) else {
        unreachable!()
    };
    assert_eq!((longer.client_id, &*longer.extra), (Some(3), &[4, 5][..]));
    raw_by_size(ObjectKind::Finish, &[1]);
}

#[test]
fn longer_extended_objects_keep_their_extra_ints() {
    // DDNetCharacter of a newer server: the table's 11 ints and 3 more.
    let mut ints: Vec<i32> = (1..=11).collect();
    ints.extend([-5, 0, 9]);
    let Object::DdnetCharacter(c) = typed(ObjectKind::DdnetCharacter, &ints) else {
        unreachable!()
    };
    assert_eq!(c.known.flags, Some(1));
    assert_eq!(&*c.extra, &[-5, 0, 9]);
    let owned = Object::DdnetCharacter(c.clone()).into_owned();
    let mut out = Vec::new();
    owned.write_ints(&mut out).unwrap();
    assert_eq!(out, ints);
    // A numbered object longer than its fields stays raw, as before.
    let object = Object::decode(ObjectType::Static(5), &[1, 2, 3, 4]);
    assert_eq!(object.as_raw_why(), Some(RawWhy::Size));
    // Extra ints after a missing optional field would read back into it: refused.
    let mut laser = match typed(ObjectKind::DdnetLaser, &[1, 2, 3, 4, 5, 6, 7]) {
        Object::DdnetLaser(laser) => laser.into_owned(),
        _ => unreachable!(),
    };
    laser.extra = vec![1].into();
    let mut out = Vec::new();
    assert!(Object::DdnetLaser(laser).write_ints(&mut out).is_err());
    assert!(out.is_empty());
}

#[cfg(feature = "serde")]
#[test]
fn extra_ints_in_json() {
    let ints = [1000, 2000, 7, 8];
    let object = typed(ObjectKind::Finish, &ints);
    let json = serde_json::to_value(&object).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"type": "Finish", "x": 1000, "y": 2000, "client_id": 7, "extra": [8]})
    );
    let back: Object<'static> = serde_json::from_value(json).unwrap();
    assert_eq!(back, object);
    // No extra ints: no "extra".
    let object = typed(ObjectKind::Finish, &ints[..2]);
    let json = serde_json::to_value(&object).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"type": "Finish", "x": 1000, "y": 2000, "client_id": null})
    );
}

/// The in-flight objects in one snapshot, as a PR #12359 / #12676 server would send them
/// next to older ones: (UUID name, id, ints).
fn inflight_items() -> Vec<(&'static str, i32, Vec<i32>)> {
    vec![
        (
            "character-tuning@netobj.ddnet.tw",
            0,
            DEFAULT_TUNING.to_vec(),
        ),
        (
            "laser@netobj.ddnet.tw",
            1,
            vec![1, 2, 3, 4, 50, 0, 1, -1, -1, 2, 1000, 1, 0, 15000],
        ),
        (
            "laser@netobj.ddnet.tw",
            2,
            vec![1, 2, 3, 4, 50, 0, 1, -1, -1, 0],
        ),
        (
            "ddnet-projectile@netobj.ddnet.tw",
            3,
            vec![10, 20, 30, 40, 2, 50, 1, 0, 0, 36, 700, 100000, 200],
        ),
        (
            "ddnet-projectile@netobj.ddnet.tw",
            4,
            vec![10, 20, 30, 40, 2, 50, 1, 0, 0, 4],
        ),
        ("finish@netevent.ddnet.org", 5, vec![100, 200]),
        ("finish@netevent.ddnet.org", 6, vec![100, 200, 0]),
        ("birthday@netevent.ddnet.org", 7, vec![100, 200, 0]),
        ("explosion-ex@netevent.ddnet.org", 8, vec![300, 400, 0]),
        ("spawn-ex@netevent.ddnet.org", 9, vec![500, 600, 0]),
        ("hammerhit-ex@netevent.ddnet.org", 10, vec![700, 800, -1]),
        ("damageind-ex@netevent.ddnet.org", 11, vec![1, 2, 0, 256]),
        ("soundworld-ex@netevent.ddnet.org", 12, vec![1, 2, 0, 3]),
        ("character@netobj.ddnet.tw", 0, (1..=14).collect()),
    ]
}

/// A 0.6 demo of two ticks whose snapshots hold [`inflight_items`] (the second changes a
/// few ints, so that it is recorded as a delta).
fn inflight_demo() -> Vec<u8> {
    let config = RecorderConfig::ddnet("inflight", "2026-12-08_00-00-00");
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"map").unwrap();
    for tick in [100, 101] {
        let mut builder = SnapshotBuilder::new();
        for (name, id, mut ints) in inflight_items() {
            if let Some(first) = ints.first_mut() {
                *first += tick - 100;
            }
            builder
                .add_extended_item(teeworlds_uuid(name), id, &ints)
                .unwrap();
        }
        rec.record_snapshot(tick, builder.finish().as_snapshot())
            .unwrap();
    }
    rec.finish().unwrap().into_inner()
}

#[test]
fn a_demo_with_inflight_objects_replays_typed_and_rewrites_byte_for_byte() {
    let data = inflight_demo();
    let demo = DemoSlice::parse(&data).unwrap();
    let mut replay = GameReplay::new(&demo);
    let mut ticks = 0;
    let mut out = Vec::new();
    while let Some(tick) = replay.next() {
        let tick = tick.unwrap();
        ticks += 1;
        let snapshot = tick.snapshot().unwrap();
        let items: Vec<_> = snapshot.items().collect();
        let mut typed = 0;
        for (object, item) in tick.objects().zip(&items) {
            out.clear();
            object.object.write_ints(&mut out).unwrap();
            assert_eq!(out, item.data, "{object:?}");
            if item.type_id != 0 {
                assert!(object.object.as_raw().is_none(), "{object:?}");
                typed += 1;
            }
        }
        assert_eq!(typed, inflight_items().len());
        // The Ex events reach the world as their plain counterparts, with the client id.
        let events = tick.world.events();
        assert!(events.contains(&Event::Explosion {
            x: 300 + tick.tick - 100,
            y: 400,
            client_id: Some(0)
        }));
        assert!(events.contains(&Event::Spawn {
            x: 500 + tick.tick - 100,
            y: 600,
            client_id: Some(0)
        }));
        assert!(events.contains(&Event::HammerHit {
            x: 700 + tick.tick - 100,
            y: 800,
            client_id: Some(-1)
        }));
    }
    assert_eq!(ticks, 2);
    let (again, _) = demokit::twdemo::rewrite(&data, Vec::new()).unwrap();
    assert_eq!(again, data);
}

/// Snapshots of a PR #12563 server: items of types 0x8000 and 0xffff next to a flag and an
/// extended type (which still counts down from 0x7fff), changing from tick to tick (the
/// 0x8000 item goes at the third).
fn wide_snapshots() -> Vec<(i32, SnapshotBuf)> {
    (0..5)
        .map(|t| {
            let mut b = SnapshotBuilder::new();
            b.set_item_types(ItemTypes::DdnetPr12563);
            b.add_item(5, 0, &[100 + t, 200, 1]).unwrap();
            if t < 2 {
                b.add_item(0x8000, 1, &[t, 2, 3]).unwrap();
            }
            b.add_item(0xffff, 0xffff, &[-t]).unwrap();
            let finish = teeworlds_uuid("finish@netevent.ddnet.org");
            assert_eq!(b.add_extended_item(finish, 4, &[t, 0, 1]), Ok(0x7fff));
            (50 + t, b.finish())
        })
        .collect()
}

/// A demo of [`wide_snapshots`], its deltas written as DDNet PR #12563 writes them.
fn wide_demo() -> Vec<u8> {
    let config = RecorderConfig::ddnet("pr12563", "2026-12-08_00-00-00");
    let mut rec = Recorder::start(Cursor::new(Vec::new()), &config, b"map").unwrap();
    rec.set_item_sizes(ItemSizes::DDNET_0_6.with_item_types(ItemTypes::DdnetPr12563));
    for (tick, snapshot) in wide_snapshots() {
        rec.record_snapshot(tick, snapshot.as_snapshot()).unwrap();
    }
    rec.finish().unwrap().into_inner()
}

#[test]
fn pr_12563_wide_item_types_replay_only_when_asked() {
    let data = wide_demo();
    let demo = DemoSlice::parse(&data).unwrap();
    // Opted in: every tick's snapshot is the one recorded.
    let mut replay = SnapshotReplay::new(&demo).with_item_types(ItemTypes::DdnetPr12563);
    let mut expected = wide_snapshots().into_iter();
    while let Some(tick) = replay.next() {
        let tick = tick.unwrap();
        let (t, snapshot) = expected.next().unwrap();
        assert_eq!(tick.tick, t);
        assert_eq!(
            tick.snapshot.unwrap().as_ints(),
            snapshot.as_ints(),
            "tick {t}"
        );
    }
    assert!(expected.next().is_none());
    assert_eq!(replay.skipped(), 0);
    // The game layer types the extended items and reports the wide types unsigned.
    let mut game = GameReplay::new(&demo).with_item_types(ItemTypes::DdnetPr12563);
    let tick = game.next().unwrap().unwrap();
    let types: Vec<i32> = tick.objects().map(|o| o.type_id).collect();
    assert_eq!(types, [5, 0x8000, 0xffff, 0, 0x7fff]);
    let finish = tick.objects().last().unwrap().object;
    assert_eq!(finish.name(), "Finish");
    // By default (DDNet at the reference commit) the deltas do not apply: DDNet's player
    // skips them, and so does the replay.
    let mut replay = SnapshotReplay::new(&demo);
    while let Some(tick) = replay.next() {
        tick.unwrap();
    }
    assert_eq!(replay.skipped(), 4);
    // Rewritten chunk by chunk, byte for byte.
    let (again, _) = demokit::twdemo::rewrite(&data, Vec::new()).unwrap();
    assert_eq!(again, data);
}
