//! Property tests of the network message layouts: for every message kind of every engine
//! branch, bits that decode as the message encode back to the same bits (bits -> typed ->
//! bits), and the message decodes back from them (typed -> bits -> typed). Case counts
//! follow PROPTEST_CASES (default 256); failures persist under proptest-regressions/.

use demokit::codec::bits::{BitReader, BitWriter};
use demokit::source::net::{
    Branch, Coder, Decoder, Encoder, MessageKind, NetMessage, Packet, ProtoMessage, Protocol,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/source_net_props.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// One protocol of each layout variant the branches have.
fn protocols() -> Vec<Protocol> {
    let p = |branch, network, build, table_index_bits| Protocol {
        branch,
        network,
        build,
        table_index_bits,
        table_index_bits_known: true,
    };
    vec![
        p(Branch::Classic, 7, 7, 5),
        p(Branch::Classic, 7, 7, 4),
        p(Branch::Classic, 14, 14, 5),
        p(Branch::Classic, 15, 15, 5),
        p(Branch::Classic, 18, 18, 5),
        p(Branch::Classic, 24, 24, 5),
        p(Branch::Left4Dead, 37, 37, 5),
        p(Branch::Left4Dead, 1040, 1040, 5),
        p(Branch::Left4Dead2, 2027, 2027, 5),
        p(Branch::Left4Dead2, 2042, 2091, 5),
        p(Branch::Left4Dead2, 2042, 2147, 5),
        p(Branch::Left4Dead2, 2100, 2203, 5),
        p(Branch::Portal2, 2001, 2001, 5),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_message_kind_round_trips(
        bytes in proptest::collection::vec(any::<u8>(), 0..96),
        skew in 0u32..8,
    ) {
        for protocol in protocols() {
            for &kind in MessageKind::ALL {
                if protocol.number(kind).is_none() {
                    continue;
                }
                // The message at a bit offset that is not a byte boundary, as in a packet.
                let mut r = BitReader::new(&bytes);
                if r.read(skew.min(r.remaining() as u32)).is_err() {
                    continue;
                }
                let start = r.position();
                let mut decoder = Decoder::new(r);
                let mut message = kind.empty();
                if message.code(&mut decoder, protocol).is_err() {
                    continue;
                }
                let consumed = decoder.position() - start;
                let mut encoder = Encoder::new(BitWriter::new());
                message.clone().code(&mut encoder, protocol).unwrap();
                let bits = encoder.into_writer().finish();
                // bits -> typed -> bits: the same bits as were consumed.
                let mut original = BitReader::new(&bytes);
                original.read(start as u32).unwrap();
                let expected = original.read_bits(consumed).unwrap();
                prop_assert_eq!(&bits, &expected, "{} on {:?}", kind.name(), protocol);
                // typed -> bits -> typed.
                let mut again = kind.empty();
                again.code(&mut Decoder::new(bits.reader()), protocol).unwrap();
                // A NaN float is not equal to itself: then the debug forms are compared (the
                // bits were compared above).
                #[allow(clippy::eq_op)]
                let comparable = message == message;
                if comparable {
                    prop_assert_eq!(&again, &message, "{} on {:?}", kind.name(), protocol);
                } else {
                    prop_assert_eq!(format!("{again:?}"), format!("{message:?}"));
                }
            }
        }
    }
}

/// CS:GO's protocol (network protocol 13585, a 2017 build).
fn csgo() -> Protocol {
    Protocol {
        branch: Branch::CsGo,
        network: 13585,
        build: 13585,
        table_index_bits: 5,
        table_index_bits_known: true,
    }
}

proptest! {
    #![proptest_config(config())]

    /// CS:GO packets: any bytes that decode as messages encode back to themselves, and
    /// any messages (a kind CS:GO numbers, any body) encode to bytes that decode back to
    /// them.
    #[test]
    fn csgo_packets_round_trip(
        bytes in proptest::collection::vec(any::<u8>(), 0..96),
        messages in proptest::collection::vec(
            (any::<proptest::sample::Index>(), proptest::collection::vec(any::<u8>(), 0..200)),
            0..6,
        ),
    ) {
        let protocol = csgo();
        let mut p = protocol;
        if let Ok(packet) = Packet::decode(&bytes, &mut p) {
            let encoded = packet.encode(p).unwrap();
            prop_assert_eq!(encoded.as_bytes(), &bytes[..]);
        }
        let kinds: Vec<MessageKind> = MessageKind::ALL
            .iter()
            .copied()
            .filter(|&k| protocol.number(k).is_some())
            .collect();
        let packet = Packet {
            messages: messages
                .into_iter()
                .map(|(i, body)| NetMessage::Protobuf(ProtoMessage { kind: *i.get(&kinds), body }))
                .collect(),
            tail: Default::default(),
        };
        let encoded = packet.encode(protocol).unwrap();
        let mut p = protocol;
        let again = Packet::decode(encoded.as_bytes(), &mut p).unwrap();
        prop_assert_eq!(again, packet);
    }
}
