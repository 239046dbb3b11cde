//! Teeworlds UUIDs: version-3 (MD5) UUIDs of a name in the Teeworlds namespace.
//!
//! DDNet names its protocol extensions this way (`"demoitem-sha256@ddnet.tw"`,
//! `"teehistorian-player-name@ddnet.org"`, ...), so any two programs derive the same
//! 16 bytes from the same name.
//!
//! Where a UUID travels in ints (extended snapshot item types in a demo's snapshots, the
//! game protocol's `NETOBJTYPE_EX` items), DDNet stores its 16 bytes as 4 big-endian ints:
//! [`uuid_to_ints`] and [`uuid_from_ints`] convert between the two.

use uuid::Uuid;

/// The namespace DDNet hashes extension names in: e05ddaaa-c4e6-4cfb-b642-5d48e80c0029.
pub(crate) const TEEWORLDS_NAMESPACE: Uuid = Uuid::from_bytes([
    0xe0, 0x5d, 0xda, 0xaa, 0xc4, 0xe6, 0x4c, 0xfb, 0xb6, 0x42, 0x5d, 0x48, 0xe8, 0x0c, 0x00, 0x29,
]);

/// The UUID DDNet derives from an extension `name`.
pub fn teeworlds_uuid(name: &str) -> Uuid {
    Uuid::new_v3(&TEEWORLDS_NAMESPACE, name.as_bytes())
}

/// The 16 UUID bytes as the 4 ints DDNet stores them in: each read big-endian.
pub fn uuid_to_ints(uuid: &Uuid) -> [i32; 4] {
    // The UUID as one big-endian number: its first four bytes are the top 32 bits.
    let v = uuid.as_u128();
    [96, 64, 32, 0].map(|shift| (v >> shift) as u32 as i32)
}

/// The UUID stored as 4 big-endian ints (the inverse of [`uuid_to_ints`]).
pub fn uuid_from_ints(ints: &[i32; 4]) -> Uuid {
    let mut bytes = [0u8; 16];
    for (chunk, v) in bytes.chunks_exact_mut(4).zip(ints) {
        chunk.copy_from_slice(&v.to_be_bytes());
    }
    Uuid::from_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_sha256_extension() {
        assert_eq!(
            teeworlds_uuid("demoitem-sha256@ddnet.tw").to_string(),
            "6be6da4a-cebd-380c-9b5b-1289c842d780"
        );
    }
}
