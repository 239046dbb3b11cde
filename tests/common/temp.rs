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
