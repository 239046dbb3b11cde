//! Temporary files for tests that write real files (crash tests, CLI tests).

use std::path::PathBuf;

/// A unique path under the temp dir for this process, `label` and extension `ext`.
pub fn temp_path(label: &str, ext: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!(
        "demokit-{label}-{}-{nanos}.{ext}",
        std::process::id()
    ))
}

/// Removes its files when dropped, so that a failing test leaves nothing behind.
pub struct TempFiles(pub Vec<PathBuf>);

impl Drop for TempFiles {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A directory of its own under the temp dir, removed with everything in it when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// Creates an empty directory named after `label`.
    pub fn new(label: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = temp_path(&format!("{label}-{n}"), "d");
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// `name` inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes `bytes` as `name` (which may name subdirectories, created as needed) and
    /// returns its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// The names in the directory, sorted: a leftover temporary file shows up here.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
