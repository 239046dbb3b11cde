//! Pseudonyms, chat filters and the name mapping that every format's scrub uses.
//!
//! Recordings are handed to researchers, and a file of any format carries the players'
//! names and clans and what they said. Each format's scrub
//! ([`teehistorian::scrub`](mod@crate::teehistorian::scrub),
//! [`twdemo::edit::scrub`](mod@crate::twdemo::edit::scrub)) takes the same
//! [`ScrubOptions`] and makes pseudonyms the same way, so that a player scrubbed with one
//! key has the same pseudonym in a demo and in a teehistorian file:
//!
//! * Every player name and clan becomes a pseudonym, the same one for the same name
//!   throughout the file: `player-<8 hex>` and `clan-<6 hex>` (account names
//!   `account-<8 hex>`), the first bytes of HMAC-SHA256(key, name) when a key is given
//!   ([`Pseudonyms::key`]: the same player gets the same pseudonym in every file scrubbed
//!   with that key), else `player-1`, `player-2`, … and `clan-1`, … in order of appearance
//!   in the file. Both fit DDNet's limits (15 bytes for a name, 11 for a clan).
//! * In free text (chat, console arguments, ...) names are replaced wherever they occur,
//!   a name of one or two bytes only where it is the whole text (as a substring it would
//!   hit every word).
//! * A name that already has the shape of a pseudonym (`player-` and 8 hex digits or a
//!   number; `clan-` and 6 hex digits or a number) is left as it is, which is what makes
//!   scrubbing idempotent; counters skip numbers already taken so.
//! * [`Mapping`] lists each original with its pseudonym, for the formats' reports;
//!   [`ChatFilter`] says which chat goes.
//!
//! Where a format carries names and chat, and how its records are rewritten or dropped,
//! stays in the format, as do its report and its errors. An option a format has nothing
//! for (credentials, drop reasons and header keys, in a demo) is refused by its scrub.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use crate::gamenet::{Unpacker, unpack_message_id};

/// How names become pseudonyms.
#[derive(Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Pseudonyms {
    /// The HMAC key: with one, a name's pseudonym depends only on the key and the name, the
    /// same in every file. Without, pseudonyms are numbered per file. Never serialized, so
    /// that a report or a saved set of options does not give it away.
    #[cfg_attr(feature = "serde", serde(skip_serializing, default))]
    pub key: Option<Vec<u8>>,
}

impl fmt::Debug for Pseudonyms {
    // The key is a secret: debug output (logs, panics) must not show it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pseudonyms")
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// Which chat to remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ChatFilter {
    /// Every `Cl_Say` and every whisper command (in a demo: every `Sv_Chat`).
    All,
    /// Whispers: 0.7 `Cl_Say` in whisper mode, 0.6 `Cl_Say` whose text is a whisper command
    /// (`/w`, `/whisper`, `/c`, `/converse`), and those commands recorded as console
    /// commands (in a demo: DDNet's whisper `Sv_Chat`, see
    /// [`twdemo::edit::scrub`](mod@crate::twdemo::edit::scrub)).
    Whispers,
    /// Team chat: 0.6 `Cl_Say` with `team` set, 0.7 `Cl_Say` in team mode (in a demo: team
    /// `Sv_Chat`).
    Team,
}

/// What a scrub removes, the same options for every format (see the [module docs](self)).
/// The default removes nothing (the output is the input).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct ScrubOptions {
    /// Replace player names and clans with pseudonyms (made as the [module docs](self)
    /// describe).
    pub names: Option<Pseudonyms>,
    /// Drop console commands that carry credentials and pseudonymise account names
    /// (teehistorian only: a demo holds neither, and
    /// [`twdemo::edit::scrub`](mod@crate::twdemo::edit::scrub) refuses it).
    pub credentials: bool,
    /// Empty every DROP reason (teehistorian only).
    pub drop_reasons: bool,
    /// Remove what identifies the server that recorded the file: its name, address and
    /// port, its build's free text and every free-text setting (teehistorian only: what
    /// goes is listed in [`teehistorian::scrub`](mod@crate::teehistorian::scrub)).
    pub server: bool,
    /// Header keys whose values are emptied, and `config.VARIABLE` or `tuning.VARIABLE`
    /// for one setting taken out (`version` cannot be; teehistorian only). A key the
    /// header cannot hold is refused.
    pub clear_header: Vec<String>,
    /// Chat to remove.
    pub chat: Option<ChatFilter>,
}

impl ScrubOptions {
    /// Whether chat of this kind (team chat, a whisper) is removed.
    pub(crate) fn removes_chat(&self, team: bool, whisper: bool) -> bool {
        match self.chat {
            Some(ChatFilter::All) => true,
            Some(ChatFilter::Team) => team,
            Some(ChatFilter::Whispers) => whisper,
            None => false,
        }
    }

    /// What identifies the people and the server: names (with `key`, if given), all chat
    /// and the server's identity; what a demo or a Source demo can carry that names
    /// someone.
    pub fn people_and_server(key: Option<Vec<u8>>) -> Self {
        ScrubOptions {
            names: Some(Pseudonyms { key }),
            chat: Some(ChatFilter::All),
            server: true,
            ..ScrubOptions::default()
        }
    }

    /// Everything: names (with `key`, if given), credentials, drop reasons, all chat and
    /// the server's identity.
    pub fn all(key: Option<Vec<u8>>) -> Self {
        ScrubOptions {
            names: Some(Pseudonyms { key }),
            credentials: true,
            drop_reasons: true,
            server: true,
            clear_header: Vec::new(),
            chat: Some(ChatFilter::All),
        }
    }
}

/// Original → pseudonym, for each kind of name that was replaced (names that were already
/// pseudonyms are not listed). Invalid UTF-8 is shown replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Mapping {
    /// Player names.
    pub names: BTreeMap<String, String>,
    /// Clans.
    pub clans: BTreeMap<String, String>,
    /// Account names (AUTH_INIT, AUTH_LOGIN), with [`ScrubOptions::credentials`].
    pub accounts: BTreeMap<String, String>,
    /// Rcon roles by name (AUTH_INIT_ROLE, AUTH_LOGIN), with [`ScrubOptions::credentials`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub roles: BTreeMap<String, String>,
}

impl Mapping {
    /// Whether nothing was replaced.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
            && self.clans.is_empty()
            && self.accounts.is_empty()
            && self.roles.is_empty()
    }

    /// How many pseudonyms were given, of every kind.
    pub fn len(&self) -> usize {
        self.names.len() + self.clans.len() + self.accounts.len() + self.roles.len()
    }

    /// Serializes a mapping as its [`len`](Self::len) only: what a report says of the
    /// pseudonyms, without the names that would undo the scrub.
    #[cfg(feature = "serde")]
    pub(crate) fn serialize_count<S: serde::Serializer>(
        mapping: &Mapping,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_u64(mapping.len() as u64)
    }
}

/// HMAC-SHA256 (RFC 2104), written out over `sha2` rather than adding a crate for ten
/// lines.
fn hmac_sha256(key: &[u8], message: &[&[u8]]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut k = [0u8; BLOCK];
    match k.get_mut(..key.len()) {
        Some(head) => head.copy_from_slice(key),
        // Longer than a block: the key is its digest.
        None => k[..32].copy_from_slice(&Sha256::digest(key)),
    }
    let mut inner = Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    for part in message {
        inner.update(part);
    }
    let mut outer = Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// One kind of name: its pseudonyms' prefix and how many hex digits a keyed one has.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum NameKind {
    /// A player name: `player-…`.
    Name,
    /// A clan: `clan-…`.
    Clan,
    /// An account name (teehistorian's AUTH_INIT and AUTH_LOGIN): `account-…`.
    Account,
    /// An rcon role's name (teehistorian's AUTH_INIT_ROLE and AUTH_LOGIN): `role-…`.
    Role,
}

impl NameKind {
    const fn prefix(self) -> &'static [u8] {
        match self {
            NameKind::Name => b"player-",
            NameKind::Clan => b"clan-",
            NameKind::Account => b"account-",
            NameKind::Role => b"role-",
        }
    }

    /// Hex digits of a keyed pseudonym: what fits DDNet's buffers (16 bytes with the NUL
    /// for names, 12 for clans).
    const fn hex_len(self) -> usize {
        match self {
            NameKind::Name | NameKind::Account | NameKind::Role => 8,
            NameKind::Clan => 6,
        }
    }

    /// The number of a counted pseudonym, `Some(0)` for a keyed one, `None` if `bytes` is
    /// not shaped like a pseudonym of this kind.
    fn pseudonym_number(self, bytes: &[u8]) -> Option<u64> {
        let rest = bytes.strip_prefix(self.prefix())?;
        let is_hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
        if rest.len() == self.hex_len() && rest.iter().all(is_hex) {
            return Some(0);
        }
        if (1..=9).contains(&rest.len())
            && rest.first() != Some(&b'0')
            && rest.iter().all(u8::is_ascii_digit)
        {
            return std::str::from_utf8(rest).ok()?.parse().ok();
        }
        None
    }
}

/// A name to hide in free text and its pseudonym.
type Replacement = (Vec<u8>, Vec<u8>);

/// The pseudonyms of one file: every name found in it, mapped, and the names to look for
/// in free text.
#[derive(Default)]
pub(crate) struct Names {
    /// Pseudonym by kind and original, identity for names already pseudonyms.
    map: HashMap<(NameKind, Vec<u8>), Vec<u8>>,
    /// Names to hide in free text: original and pseudonym, by first byte, longest first.
    by_first: HashMap<u8, Vec<Replacement>>,
    pub(crate) mapping: Mapping,
}

impl Names {
    /// Maps every name of `found` (in order of appearance, by kind).
    pub(crate) fn build(found: &[(NameKind, Vec<u8>)], key: Option<&[u8]>) -> Names {
        let mut names = Names::default();
        let mut taken: HashMap<NameKind, std::collections::HashSet<u64>> = HashMap::new();
        for (kind, name) in found {
            if let Some(n) = kind.pseudonym_number(name) {
                taken.entry(*kind).or_default().insert(n);
            }
        }
        let mut next: HashMap<NameKind, u64> = HashMap::new();
        for (kind, name) in found {
            if name.is_empty() || names.map.contains_key(&(*kind, name.clone())) {
                continue;
            }
            let pseudonym = if kind.pseudonym_number(name).is_some() {
                name.clone()
            } else if let Some(key) = key {
                let tag: &[u8] = match kind {
                    NameKind::Name => b"name\0",
                    NameKind::Clan => b"clan\0",
                    NameKind::Account => b"account\0",
                    NameKind::Role => b"role\0",
                };
                let mac = hmac_sha256(key, &[tag, name]);
                let mut p = kind.prefix().to_vec();
                p.extend_from_slice(
                    hex::encode(mac)
                        .as_bytes()
                        .get(..kind.hex_len())
                        .unwrap_or(&[]),
                );
                p
            } else {
                let counter = next.entry(*kind).or_insert(0);
                let taken = taken.entry(*kind).or_default();
                loop {
                    *counter += 1;
                    if !taken.contains(counter) {
                        break;
                    }
                }
                let mut p = kind.prefix().to_vec();
                p.extend_from_slice(counter.to_string().as_bytes());
                p
            };
            if pseudonym != *name
                && let Some(&first) = name.first()
            {
                let shown = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                let list = match kind {
                    NameKind::Name => &mut names.mapping.names,
                    NameKind::Clan => &mut names.mapping.clans,
                    NameKind::Account => &mut names.mapping.accounts,
                    NameKind::Role => &mut names.mapping.roles,
                };
                list.insert(shown(name), shown(&pseudonym));
                // A role's name is a word of the game's own ("admin"): replaced where it
                // is a role, never in free text.
                if *kind != NameKind::Role {
                    names
                        .by_first
                        .entry(first)
                        .or_default()
                        .push((name.clone(), pseudonym.clone()));
                }
            }
            names.map.insert((*kind, name.clone()), pseudonym);
        }
        // Longest first, so that a name containing another is replaced whole.
        for list in names.by_first.values_mut() {
            list.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
            list.dedup_by(|a, b| a.0 == b.0);
        }
        names
    }

    /// The pseudonym of a name of `kind` (the name itself if it was not found).
    pub(crate) fn get<'a>(&'a self, kind: NameKind, name: &'a [u8]) -> &'a [u8] {
        self.map
            .get(&(kind, name.to_vec()))
            .map_or(name, Vec::as_slice)
    }

    /// `text` with every name replaced (names of fewer than three bytes only when they are
    /// the whole text), or `None` when there is nothing to replace.
    pub(crate) fn replace_in(&self, text: &[u8]) -> Option<Vec<u8>> {
        if let Some(list) = text.first().and_then(|b| self.by_first.get(b))
            && let Some((_, p)) = list.iter().find(|(n, _)| n == text)
        {
            return Some(p.clone());
        }
        let mut out: Option<Vec<u8>> = None;
        let mut i = 0;
        while let Some((before, rest @ [first, ..])) = text.split_at_checked(i) {
            let hit = self.by_first.get(first).and_then(|list| {
                list.iter()
                    .find(|(n, _)| n.len() >= 3 && rest.starts_with(n))
            });
            match hit {
                Some((n, p)) => {
                    let o = out.get_or_insert_with(|| before.to_vec());
                    o.extend_from_slice(p);
                    i += n.len();
                }
                None => {
                    if let Some(o) = &mut out {
                        o.push(*first);
                    }
                    i += 1;
                }
            }
        }
        out
    }

    /// Whether `bytes` hold a name of three bytes or more.
    pub(crate) fn found_in(&self, bytes: &[u8]) -> bool {
        let mut rest = bytes;
        while let [first, tail @ ..] = rest {
            let hit = self.by_first.get(first).is_some_and(|list| {
                list.iter()
                    .any(|(n, _)| n.len() >= 3 && rest.starts_with(n))
            });
            if hit {
                return true;
            }
            rest = tail;
        }
        false
    }
}

/// A network message split around its string fields: the bytes before them, the strings
/// (without their NULs) and the bytes after.
pub(crate) type Split<'a> = (&'a [u8], Vec<&'a [u8]>, &'a [u8]);

/// The message's bytes up to its first string field after `ints` ints, and the rest:
/// `(head, strings, tail)` with `count` strings, or `None` if they do not unpack.
pub(crate) fn split_strings(data: &[u8], ints: usize, count: usize) -> Option<Split<'_>> {
    let mut u = Unpacker::new(data);
    unpack_message_id(&mut u)?;
    for _ in 0..ints {
        u.int()?;
    }
    let head = data.get(..u.position())?;
    let mut strings = Vec::with_capacity(count);
    for _ in 0..count {
        strings.push(u.str()?);
    }
    Some((head, strings, data.get(u.position()..)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test case 2 of RFC 4231.
        let mac = hmac_sha256(b"Jefe", &[b"what do ya want ", b"for nothing?"]);
        assert_eq!(
            hex::encode(mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block is hashed first.
        let mac = hmac_sha256(
            &[0xaa; 131],
            &[b"Test Using Larger Than Block-Size Key - Hash Key First"],
        );
        assert_eq!(
            hex::encode(mac),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn pseudonym_shapes() {
        assert_eq!(NameKind::Name.pseudonym_number(b"player-12"), Some(12));
        assert_eq!(NameKind::Name.pseudonym_number(b"player-0a1b2c3d"), Some(0));
        assert_eq!(NameKind::Name.pseudonym_number(b"player-01"), None);
        assert_eq!(NameKind::Name.pseudonym_number(b"player-"), None);
        assert_eq!(NameKind::Clan.pseudonym_number(b"clan-abcdef"), Some(0));
        assert_eq!(NameKind::Clan.pseudonym_number(b"player-1"), None);
    }

    #[test]
    fn counters_skip_taken_numbers_and_keep_pseudonyms() {
        let found = [
            (NameKind::Name, b"alice".to_vec()),
            (NameKind::Name, b"player-1".to_vec()),
            (NameKind::Name, b"bob".to_vec()),
            (NameKind::Name, b"alice".to_vec()),
        ];
        let names = Names::build(&found, None);
        assert_eq!(names.get(NameKind::Name, b"alice"), b"player-2");
        assert_eq!(names.get(NameKind::Name, b"player-1"), b"player-1");
        assert_eq!(names.get(NameKind::Name, b"bob"), b"player-3");
        assert_eq!(
            names.replace_in(b"kick alice and bob, not al").as_deref(),
            Some(&b"kick player-2 and player-3, not al"[..])
        );
        assert_eq!(names.replace_in(b"nothing here"), None);
    }

    #[test]
    fn short_names_are_replaced_only_whole() {
        let names = Names::build(&[(NameKind::Name, b"ab".to_vec())], Some(b"k"));
        let p = names.get(NameKind::Name, b"ab").to_vec();
        assert_eq!(p.len(), 15);
        assert_eq!(names.replace_in(b"ab"), Some(p));
        assert_eq!(names.replace_in(b"abc"), None);
        assert!(!names.found_in(b"xxabxx"));
    }
}
