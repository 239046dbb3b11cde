//! Finding the map a recording was played on in a directory of maps, by the checksum the
//! recording gives rather than by file name: DDNet's map archives name their files
//! `NAME_SHA256.map`, players keep `NAME.map`, and two maps of one name differ.

use super::{Limits, read_input};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// How many `.map` files a [`MapDirectory`] indexes at most; a directory of more is
/// searched only so far (DDNet's whole map archive holds a few thousand).
pub const MAX_MAP_FILES: usize = 100_000;

/// A directory of Teeworlds/DDNet maps, searched by checksum.
///
/// [`find`](Self::find) tries the likely names first (`NAME.map`, `NAME_SHA256.map`),
/// checking their checksums; only when they miss does it index the directory: every
/// `.map` file under it (symbolic links to directories are not followed), each read and
/// hashed once, at most [`MAX_MAP_FILES`]. One `MapDirectory` can serve many recordings,
/// from several threads.
#[derive(Debug)]
pub struct MapDirectory {
    /// The directory.
    dir: PathBuf,
    /// Every `.map` file under it with its SHA-256 and CRC-32, made on first need.
    index: OnceLock<Vec<MapFile>>,
}

/// One map file of the index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct MapFile {
    path: PathBuf,
    /// SHA-256, lowercase hex.
    sha256: String,
    /// CRC-32, 8 lowercase hex digits.
    crc32: String,
}

impl MapFile {
    /// Whether this is the map a recording names: the same SHA-256 when the recording
    /// gives one, else the same CRC-32, else (a recording that gives no checksum) any map
    /// of its name.
    fn fits(&self, sha256: Option<&str>, crc32: Option<&str>) -> bool {
        match (sha256, crc32) {
            (Some(sha256), _) => self.sha256.eq_ignore_ascii_case(sha256),
            (None, Some(crc32)) => self.crc32.eq_ignore_ascii_case(crc32),
            (None, None) => true,
        }
    }

    fn of(path: PathBuf, bytes: &[u8]) -> MapFile {
        use sha2::Digest;
        MapFile {
            path,
            sha256: hex::encode(sha2::Sha256::digest(bytes)),
            crc32: format!("{:08x}", crc32fast::hash(bytes)),
        }
    }
}

impl MapDirectory {
    /// The maps in `dir` (nothing is read before the first [`find`](Self::find)).
    pub fn new(dir: &Path) -> MapDirectory {
        MapDirectory {
            dir: dir.to_path_buf(),
            index: OnceLock::new(),
        }
    }

    /// The bytes of the map named `name` with these checksums (SHA-256 and CRC-32 in hex,
    /// as [`MapProblem::Missing`](super::MapProblem::Missing) gives them), or a message
    /// saying that the directory has none. A recording that gives no checksum is matched
    /// by the file name `NAME.map` only.
    pub fn find(
        &self,
        name: &str,
        sha256: Option<&str>,
        crc32: Option<&str>,
    ) -> Result<Vec<u8>, String> {
        let mut likely = vec![self.dir.join(format!("{name}.map"))];
        if let Some(sha256) = sha256 {
            likely.push(
                self.dir
                    .join(format!("{name}_{}.map", sha256.to_lowercase())),
            );
        }
        for path in likely {
            if let Ok(bytes) = read_input(&path, Limits::DEFAULT)
                && MapFile::of(path, &bytes).fits(sha256, crc32)
            {
                return Ok(bytes);
            }
        }
        let checked = sha256.is_some() || crc32.is_some();
        let index = self.index.get_or_init(|| self.build_index());
        if checked {
            // A file could have changed since it was indexed: its bytes are checked again.
            for file in index.iter().filter(|f| f.fits(sha256, crc32)) {
                if let Ok(bytes) = read_input(&file.path, Limits::DEFAULT)
                    && MapFile::of(file.path.clone(), &bytes).fits(sha256, crc32)
                {
                    return Ok(bytes);
                }
            }
        }
        let wanted = match (sha256, crc32) {
            (Some(sha256), _) => format!("with SHA-256 {sha256}"),
            (None, Some(crc32)) => format!("with CRC-32 {crc32}"),
            (None, None) => format!("named {name}.map (the recording gives no checksum)"),
        };
        Err(format!(
            "its map {name:?} is not in {}: no map {wanted} among its {} .map files",
            self.dir.display(),
            index.len()
        ))
    }

    /// Every `.map` file under the directory with its checksums, sorted by path.
    fn build_index(&self) -> Vec<MapFile> {
        let mut found = Vec::new();
        let mut dirs = vec![self.dir.clone()];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir {
                    dirs.push(path);
                } else if path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("map"))
                {
                    if found.len() >= MAX_MAP_FILES {
                        break;
                    }
                    if let Ok(bytes) = read_input(&path, Limits::DEFAULT) {
                        found.push(MapFile::of(path, &bytes));
                    }
                }
            }
        }
        found.sort();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(label: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "demokit-maps-{label}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        dir
    }

    /// A map under any name is found by its SHA-256 or CRC-32; a map of the right name
    /// with another checksum is not taken; without a checksum only `NAME.map` is.
    #[test]
    fn maps_are_found_by_checksum_whatever_their_name() {
        use sha2::Digest;
        let dir = temp_dir("find");
        let map = b"the real map".to_vec();
        let other = b"another map of that name".to_vec();
        std::fs::write(dir.join("sub/renamed.map"), &map).unwrap();
        std::fs::write(dir.join("dm1.map"), &other).unwrap();
        let sha = hex::encode(sha2::Sha256::digest(&map));
        let crc = format!("{:08x}", crc32fast::hash(&map));
        let shelf = MapDirectory::new(&dir);
        assert_eq!(shelf.find("dm1", Some(&sha), None).unwrap(), map);
        assert_eq!(
            shelf.find("dm1", Some(&sha.to_uppercase()), None).unwrap(),
            map
        );
        assert_eq!(shelf.find("dm1", None, Some(&crc)).unwrap(), map);
        assert_eq!(shelf.find("dm1", None, None).unwrap(), other);
        let missing = shelf.find("dm1", Some(&"0".repeat(64)), None).unwrap_err();
        assert!(
            missing.contains("no map with SHA-256 000") && missing.contains("2 .map files"),
            "{missing}"
        );
        assert!(shelf.find("dm2", None, None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
