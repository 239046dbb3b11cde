//! Whole-file output that never leaves a partial file and never overwrites a file by
//! accident.
//!
//! Tools that turn one file into another (a rewrite, a repair, a conversion) hand their
//! result to this module instead of calling `fs::write`. The bytes go to a temporary file
//! in the target's own directory, are flushed and synced to disk, and only then take the
//! target's name in a single rename, after which the directory is synced too (on Unix). A
//! failure before the rename removes the temporary file and leaves whatever was at the
//! target as it was; after the rename the target holds the complete new file. The
//! temporary file lives beside the target because a rename is only atomic within one file
//! system.
//!
//! A run killed while writing (kill -9, a crash, a power cut) leaves its temporary file.
//! Each temporary file is locked while its writer lives (on Unix; the kernel lets go of
//! the lock when the process dies, however it dies), and the next write of the same target
//! removes the temporary files of that target whose lock is free: proven abandoned, never
//! another run's file in progress.
//!
//! Before any work is done, [`check_output`] refuses an output that is one of the inputs
//! (the same file, also through a hard or symbolic link, or under another spelling), an
//! existing file the caller did not ask to replace, and anything that is not a regular file.
//! [`AtomicFile`] runs the same checks when it is created and, when replacing was not
//! asked for, commits with a hard link that fails if a file appeared at the target in the
//! meantime, so even a race does not clobber it.
//!
//! The module knows nothing about recording formats and nothing about command lines: what
//! to write, and how a refusal is worded to a user, are left to the callers. Live
//! recorders do not use it either: their file is meant to be readable while it grows, so a
//! crash keeps every complete tick.
//!
//! Replacing a file gives the target path a new file: it takes over the old one's
//! permission bits, but other hard links to the old file keep the old contents, and its
//! owner is not carried over. A target that is a symbolic link is followed, so the file
//! it points to is replaced and the link stays.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What to do when the target path already holds a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    /// Leave an existing file alone and fail with [`OutputError::Exists`].
    Refuse,
    /// Replace an existing file (atomically, like any other output).
    Replace,
}

/// The step of writing a file that an I/O error interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Looking at what is at the target path, or at an input to compare it with.
    Inspect,
    /// Creating the temporary file in the target's directory.
    CreateTemporary,
    /// Syncing the temporary file's contents to disk.
    Sync,
    /// Giving the temporary file the target's name.
    Rename,
    /// Removing the temporary file's name after it was linked to the target; the target
    /// holds the complete new file.
    RemoveTemporary,
    /// Syncing the directory so that the rename survives a crash; the target holds the
    /// complete new file.
    SyncDirectory,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Step::Inspect => "cannot inspect it",
            Step::CreateTemporary => "cannot create a temporary file beside it",
            Step::Sync => "cannot sync it to disk",
            Step::Rename => "cannot move the temporary file over it",
            Step::RemoveTemporary => "written, but the temporary file could not be removed",
            Step::SyncDirectory => "written, but its directory could not be synced",
        })
    }
}

/// Why an output was refused or could not be written. The message does not repeat the
/// target path; [`OutputError::path`] gives it.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The target is one of the inputs: writing it would destroy the data being read.
    #[error("is the same file as the input {}; refusing to overwrite the input", input.display())]
    SameFile {
        /// The target as the caller named it.
        path: PathBuf,
        /// The input as the caller named it.
        input: PathBuf,
    },
    /// A file exists at the target and [`Overwrite::Refuse`] was asked for.
    #[error("already exists")]
    Exists {
        /// The target.
        path: PathBuf,
    },
    /// The target is a directory, a device, a pipe or anything else that is not a regular
    /// file, which cannot be replaced by renaming a file over it.
    #[error("is not a regular file")]
    NotAFile {
        /// The target.
        path: PathBuf,
    },
    /// Writing the temporary file failed after `offset` bytes had reached it; it was
    /// removed and the target left as it was.
    #[error("cannot write at byte {offset}: {source}")]
    Write {
        /// The target.
        path: PathBuf,
        /// Bytes the temporary file had accepted before the failure.
        offset: u64,
        /// What the operating system said.
        source: io::Error,
    },
    /// Another step failed (see [`Step`]: only the last two come after the target was
    /// replaced).
    #[error("{step}: {source}")]
    Io {
        /// The target.
        path: PathBuf,
        /// What was being done.
        step: Step,
        /// What the operating system said.
        source: io::Error,
    },
}

impl OutputError {
    /// The target path the error is about, as the caller named it.
    pub fn path(&self) -> &Path {
        match self {
            OutputError::SameFile { path, .. }
            | OutputError::Exists { path }
            | OutputError::NotAFile { path }
            | OutputError::Write { path, .. }
            | OutputError::Io { path, .. } => path,
        }
    }

    /// Whether the target already holds the complete new file: only a failure after the
    /// rename ([`Step::RemoveTemporary`], [`Step::SyncDirectory`]). Every other error left
    /// the target as it was.
    pub fn target_replaced(&self) -> bool {
        matches!(
            self,
            OutputError::Io {
                step: Step::RemoveTemporary | Step::SyncDirectory,
                ..
            }
        )
    }

    /// Whether the output was refused as asked for (the same file as an input, an existing
    /// file, not a regular file) rather than failing on the way; nothing was written then.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            OutputError::SameFile { .. }
                | OutputError::Exists { .. }
                | OutputError::NotAFile { .. }
        )
    }
}

/// An error of [`write_atomically_with`]: the output's own, or the one the writing closure
/// returned (the target is left as it was in both cases).
#[derive(Debug, thiserror::Error)]
pub enum WriteWithError<E> {
    /// The output was refused or could not be created or committed.
    #[error(transparent)]
    Output(OutputError),
    /// The closure failed; its partial output was thrown away.
    #[error(transparent)]
    Writer(E),
}

/// Whether `a` and `b` name the same existing file: the same device and inode on Unix, so
/// that hard links, symbolic links and any spelling of the path are caught; the same
/// canonical path elsewhere (which catches symbolic links and spellings, not hard links).
/// A path that does not exist is no file at all, so the answer is then `false`.
pub fn same_file(a: &Path, b: &Path) -> io::Result<bool> {
    let (Some(a_meta), Some(b_meta)) = (metadata_if_exists(a)?, metadata_if_exists(b)?) else {
        return Ok(false);
    };
    same_identity(a, &a_meta, b, &b_meta)
}

/// The metadata of the file `path` names (links followed), or `None` if there is none.
fn metadata_if_exists(path: &Path) -> io::Result<Option<Metadata>> {
    match fs::metadata(path) {
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether two existing files are one: the same device and inode.
#[cfg(unix)]
fn same_identity(_: &Path, a: &Metadata, _: &Path, b: &Metadata) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    Ok(a.dev() == b.dev() && a.ino() == b.ino())
}

/// Whether two existing files are one: the same canonical path (hard links look like two
/// files here).
#[cfg(not(unix))]
fn same_identity(a: &Path, _: &Metadata, b: &Path, _: &Metadata) -> io::Result<bool> {
    Ok(fs::canonicalize(a)? == fs::canonicalize(b)?)
}

/// Checks, before any work is done, that `output` may be written: it must not be any of
/// `inputs` (see [`same_file`]), must not exist unless `overwrite` is
/// [`Overwrite::Replace`], and if it exists must be a regular file. A symbolic link at
/// `output` counts as existing, even a dangling one.
///
/// To replace an input on purpose (an in-place edit), call it with the input as `output`,
/// [`Overwrite::Replace`] and no `inputs`.
pub fn check_output(
    output: &Path,
    overwrite: Overwrite,
    inputs: &[&Path],
) -> Result<(), OutputError> {
    let inspect = |source| OutputError::Io {
        path: output.to_path_buf(),
        step: Step::Inspect,
        source,
    };
    let Some(meta) = metadata_if_exists(output).map_err(inspect)? else {
        // Nothing there, or a dangling symbolic link: writing creates the file it names.
        return match fs::symlink_metadata(output) {
            Ok(_) if overwrite == Overwrite::Refuse => Err(OutputError::Exists {
                path: output.to_path_buf(),
            }),
            _ => Ok(()),
        };
    };
    for &input in inputs {
        if let Some(input_meta) = metadata_if_exists(input).map_err(inspect)?
            && same_identity(output, &meta, input, &input_meta).map_err(inspect)?
        {
            return Err(OutputError::SameFile {
                path: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    if !meta.is_file() {
        return Err(OutputError::NotAFile {
            path: output.to_path_buf(),
        });
    }
    match overwrite {
        Overwrite::Refuse => Err(OutputError::Exists {
            path: output.to_path_buf(),
        }),
        Overwrite::Replace => Ok(()),
    }
}

/// Writes `bytes` as the file `output`, atomically: see the [module docs](self). With
/// [`Overwrite::Refuse`], an existing file at `output` is an error and left alone.
///
/// It does not know the inputs: call [`check_output`] with them first (before doing the
/// work whose result `bytes` is).
pub fn write_atomically(
    output: &Path,
    overwrite: Overwrite,
    bytes: &[u8],
) -> Result<(), OutputError> {
    let mut file = AtomicFile::create(output, overwrite)?;
    file.write_all(bytes).map_err(|e| file.write_error(e))?;
    file.commit()
}

/// Like [`write_atomically`], for a file only its owner may read or write (mode 0600 on
/// Unix, set before any byte is written): a file that undoes a privacy measure, such as a
/// scrub's name mapping. An existing file it replaces does not lend it its permissions.
pub fn write_atomically_private(
    output: &Path,
    overwrite: Overwrite,
    bytes: &[u8],
) -> Result<(), OutputError> {
    let mut file = AtomicFile::create(output, overwrite)?;
    file.restrict_to_owner().map_err(|e| file.write_error(e))?;
    file.write_all(bytes).map_err(|e| file.write_error(e))?;
    file.commit()
}

/// Writes `bytes` as `output` and `companion_bytes` as `companion`, a file only its owner
/// may read (as [`write_atomically_private`]) that belongs with it, such as the mapping that
/// undoes a scrub: both land or neither. Both are written and synced under temporary names
/// first, so a full disk stops both; then `companion` takes its name, then `output`, and if
/// that rename fails `companion` is removed again. `output` goes last because it may
/// replace an input (an in-place edit), which must never be the file removed.
pub fn write_with_private_companion(
    output: &Path,
    overwrite: Overwrite,
    bytes: &[u8],
    companion: &Path,
    companion_overwrite: Overwrite,
    companion_bytes: &[u8],
) -> Result<(), OutputError> {
    let mut file = AtomicFile::create(output, overwrite)?;
    file.write_all(bytes).map_err(|e| file.write_error(e))?;
    commit_with_private_companion(file, companion, companion_overwrite, companion_bytes)
}

/// [`write_with_private_companion`] for an output already written into `output` (streamed
/// there by the caller): the companion is written and synced, `output` synced, and then
/// both take their names, the companion first (and removed again if `output`'s rename
/// fails).
pub fn commit_with_private_companion(
    mut output: AtomicFile,
    companion: &Path,
    companion_overwrite: Overwrite,
    companion_bytes: &[u8],
) -> Result<(), OutputError> {
    let mut companion_file = AtomicFile::create(companion, companion_overwrite)?;
    companion_file
        .restrict_to_owner()
        .map_err(|e| companion_file.write_error(e))?;
    companion_file
        .write_all(companion_bytes)
        .map_err(|e| companion_file.write_error(e))?;
    companion_file.sync()?;
    output.sync()?;
    companion_file.commit()?;
    output.commit().inspect_err(|e| {
        if !e.target_replaced() {
            // Best effort: the companion alone would stand for an output that is not there.
            let _ = fs::remove_file(companion);
        }
    })
}

/// Like [`write_atomically`], with the bytes written by `write` into the (buffered)
/// temporary file. If `write` fails, its error is returned, the temporary file is removed
/// and `output` is left as it was.
pub fn write_atomically_with<T, E>(
    output: &Path,
    overwrite: Overwrite,
    write: impl FnOnce(&mut AtomicFile) -> Result<T, E>,
) -> Result<T, WriteWithError<E>> {
    let mut file = AtomicFile::create(output, overwrite).map_err(WriteWithError::Output)?;
    let value = write(&mut file).map_err(WriteWithError::Writer)?;
    file.commit().map_err(WriteWithError::Output)?;
    Ok(value)
}

/// A file being written under a temporary name beside its target, which it replaces only
/// on [`commit`](AtomicFile::commit). Dropped without a commit, it removes the temporary
/// file and the target is untouched.
///
/// Writes are buffered. After a failed write the file refuses to commit, so a caller that
/// ignores the error cannot install a file with a hole in it.
#[derive(Debug)]
pub struct AtomicFile {
    /// The temporary file; `None` once committed or given up.
    file: Option<BufWriter<Counted>>,
    /// Its path.
    temp: PathBuf,
    /// The path the caller named, for errors.
    path: PathBuf,
    /// Where the file goes: `path` with symbolic links followed.
    target: PathBuf,
    /// The directory of `target` and of the temporary file.
    dir: PathBuf,
    /// Whether an existing file at `target` may be replaced.
    overwrite: Overwrite,
    /// A write or flush failed after this many bytes had reached the temporary file.
    failed_at: Option<u64>,
    /// The temporary file has the target's name: nothing to remove on drop.
    committed: bool,
    /// A second handle on the temporary file holding an exclusive lock on it until it is
    /// committed or removed: the proof, for a later run cleaning up after a killed one,
    /// that this temporary file is still being written (see [`remove_stale_temporaries`]).
    /// Kept apart from the written handle, which is closed before the rename.
    lock: Option<File>,
}

/// The temporary file, counting the bytes it has accepted so that a failure can say where
/// it happened.
#[derive(Debug)]
struct Counted {
    file: File,
    written: u64,
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Symbolic links followed before giving up, as the usual operating-system limit.
const MAX_LINKS: usize = 40;

/// Attempts at finding an unused temporary name before giving up.
const MAX_TEMP_ATTEMPTS: u32 = 100;

/// Distinguishes the temporary files one process creates.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl AtomicFile {
    /// Starts writing `output`: runs [`check_output`] (without inputs) and creates the
    /// temporary file in the directory of `output` (of the file it links to, for a
    /// symbolic link). When an existing file is to be replaced, the temporary file takes
    /// its permissions.
    pub fn create(output: &Path, overwrite: Overwrite) -> Result<AtomicFile, OutputError> {
        check_output(output, overwrite, &[])?;
        let io_error = |step, source| OutputError::Io {
            path: output.to_path_buf(),
            step,
            source,
        };
        let target = follow_links(output).map_err(|e| io_error(Step::Inspect, e))?;
        let Some(name) = target.file_name() else {
            return Err(OutputError::NotAFile {
                path: output.to_path_buf(),
            });
        };
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        remove_stale_temporaries(&dir, name);
        let (file, temp, lock) =
            create_temporary(&dir, name).map_err(|e| io_error(Step::CreateTemporary, e))?;
        if let Ok(existing) = fs::metadata(&target) {
            // Best effort: the new file should be as readable as the one it replaces, but
            // a file system that cannot set permissions is no reason to refuse the output.
            let _ = file.set_permissions(existing.permissions());
        }
        Ok(AtomicFile {
            file: Some(BufWriter::new(Counted { file, written: 0 })),
            temp,
            path: output.to_path_buf(),
            target,
            dir,
            overwrite,
            failed_at: None,
            committed: false,
            lock,
        })
    }

    /// Lets only the file's owner read or write it (mode 0600 on Unix; elsewhere the file
    /// keeps what the system gives it).
    pub fn restrict_to_owner(&mut self) -> io::Result<()> {
        #[cfg(unix)]
        if let Some(file) = &self.file {
            use std::os::unix::fs::PermissionsExt;
            file.get_ref()
                .file
                .set_permissions(fs::Permissions::from_mode(0o600))?;
        }
        Ok(())
    }

    /// The path the file will have once committed (symbolic links followed).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Bytes that have reached the temporary file so far (not counting the buffer).
    pub fn written(&self) -> u64 {
        self.file.as_ref().map_or(0, |f| f.get_ref().written)
    }

    /// An [`OutputError::Write`] for `source`, at the offset where writing failed: what a
    /// caller that streamed into the file reports when one of its writes failed.
    pub fn write_error(&self, source: io::Error) -> OutputError {
        OutputError::Write {
            path: self.path.clone(),
            offset: self.failed_at.unwrap_or_else(|| self.written()),
            source,
        }
    }

    /// Flushes and syncs the temporary file without giving it the target's name: after
    /// this, [`commit`](AtomicFile::commit) only renames, which does not fail for want of
    /// space. Files that must land together (an output and the file that undoes it) are
    /// each synced before the first is committed, so a full disk stops both.
    pub fn sync(&mut self) -> Result<(), OutputError> {
        let flushed = self.flush();
        flushed.map_err(|e| self.write_error(e))?;
        let synced = match &self.file {
            Some(writer) => writer.get_ref().file.sync_all(),
            None => Err(io::Error::other("already committed")),
        };
        synced.map_err(|e| self.io_error(Step::Sync, e))
    }

    /// Flushes and syncs the temporary file, gives it the target's name and syncs the
    /// directory. With [`Overwrite::Refuse`] it fails with [`OutputError::Exists`] if a
    /// file appeared at the target since [`create`](AtomicFile::create). On any failure
    /// before the rename the temporary file is removed and the target left as it was.
    pub fn commit(mut self) -> Result<(), OutputError> {
        if let Some(offset) = self.failed_at {
            return Err(OutputError::Write {
                path: self.path.clone(),
                offset,
                source: io::Error::other("an earlier write failed"),
            });
        }
        // `file` is only taken by `commit` and `drop`, which both consume the file.
        let Some(mut writer) = self.file.take() else {
            return Err(self.io_error(Step::Sync, io::Error::other("already committed")));
        };
        let flushed = writer.flush();
        let offset = writer.get_ref().written;
        // Closed before the rename: some platforms cannot rename an open file.
        let (counted, _) = writer.into_parts();
        if let Err(e) = flushed {
            self.failed_at = Some(offset);
            return Err(self.write_error(e));
        }
        counted
            .file
            .sync_all()
            .map_err(|e| self.io_error(Step::Sync, e))?;
        drop(counted);
        match self.overwrite {
            Overwrite::Replace => {
                fs::rename(&self.temp, &self.target).map_err(|e| self.io_error(Step::Rename, e))?
            }
            Overwrite::Refuse => self.link_without_replacing()?,
        }
        self.committed = true;
        sync_directory(&self.dir).map_err(|e| self.io_error(Step::SyncDirectory, e))
    }

    /// Gives the temporary file the target's name unless a file is there. A hard link
    /// fails if the name is taken, with no window in between; on a file system without
    /// hard links the check and the rename are two steps.
    fn link_without_replacing(&self) -> Result<(), OutputError> {
        match fs::hard_link(&self.temp, &self.target) {
            Ok(()) => {
                // The target is complete from here on, whatever happens to the second name.
                let removed = fs::remove_file(&self.temp);
                removed.map_err(|e| self.io_error(Step::RemoveTemporary, e))
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(OutputError::Exists {
                path: self.path.clone(),
            }),
            Err(_) => match fs::symlink_metadata(&self.target) {
                Ok(_) => Err(OutputError::Exists {
                    path: self.path.clone(),
                }),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::rename(&self.temp, &self.target).map_err(|e| self.io_error(Step::Rename, e))
                }
                Err(e) => Err(self.io_error(Step::Inspect, e)),
            },
        }
    }

    /// An [`OutputError::Io`] at `step`.
    fn io_error(&self, step: Step, source: io::Error) -> OutputError {
        OutputError::Io {
            path: self.path.clone(),
            step,
            source,
        }
    }

    /// The open writer, or an error once the file has been given up.
    fn writer(&mut self) -> io::Result<&mut BufWriter<Counted>> {
        if self.failed_at.is_some() {
            return Err(io::Error::other("an earlier write to this file failed"));
        }
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("the file was already committed"))
    }

    /// Records a failed write or flush (see [`AtomicFile`]).
    fn note<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        if result.is_err() {
            self.failed_at = Some(self.written());
        }
        result
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.writer()?.write(buf);
        self.note(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.writer()?.flush();
        self.note(result)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(writer) = self.file.take() {
            // `into_parts` rather than dropping the writer, which would flush the buffer
            // into a file about to be deleted.
            drop(writer.into_parts());
        }
        if !self.committed {
            let _ = fs::remove_file(&self.temp);
        }
        // Released only now: until the name is gone, no other run may take the file for
        // an abandoned one.
        drop(self.lock.take());
    }
}

/// `path` with symbolic links at its last component followed (relative links are relative
/// to the link's directory); the result may not exist (a dangling link names the file to
/// create). Links in the directories above need no following: a rename works through them.
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The temporary names of `name`'s outputs: `.NAME.` (`NAME` cut short so that a long
/// target name cannot make the temporary name too long), then `PID-N.tmp`.
fn temporary_prefix(name: &std::ffi::OsStr) -> String {
    let name = name.to_string_lossy();
    let short: String = name.chars().take(64).collect();
    format!(".{short}.")
}

/// Creates a new, unused file `.NAME.PID-N.tmp` in `dir` (hidden on Unix), and a second
/// handle on it holding an exclusive lock where the platform has file locks (`None` where
/// it has not).
fn create_temporary(
    dir: &Path,
    name: &std::ffi::OsStr,
) -> io::Result<(File, PathBuf, Option<File>)> {
    let prefix = temporary_prefix(name);
    let mut last = None;
    for _ in 0..MAX_TEMP_ATTEMPTS {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!("{prefix}{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => match lock_temporary(&temp)? {
                Some(lock) => return Ok((file, temp, lock)),
                // Another run's clean-up took it between its creation and the lock.
                None => last = Some(io::Error::other("the temporary file was taken away")),
            },
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no unused temporary name")))
}

/// Locks the new temporary file `temp` through a handle of its own; `Some(None)` where
/// files cannot be locked, `None` when the file was removed (by another run's clean-up)
/// before the lock was taken, so that its writer picks another name.
#[cfg(unix)]
fn lock_temporary(temp: &Path) -> io::Result<Option<Option<File>>> {
    use std::os::unix::fs::MetadataExt;
    let lock = File::open(temp)?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => return Ok(None),
        // A file system without locks: no clean-up of this file by later runs either.
        Err(fs::TryLockError::Error(_)) => return Ok(Some(None)),
    }
    // The lock is on the file opened; the name must still be that file's.
    let held = lock.metadata()?;
    match fs::symlink_metadata(temp) {
        Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => Ok(Some(Some(lock))),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Where files cannot be locked the same way, temporary files are not locked and not
/// cleaned up by later runs.
#[cfg(not(unix))]
fn lock_temporary(_: &Path) -> io::Result<Option<Option<File>>> {
    Ok(Some(None))
}

/// Removes the temporary files a killed or crashed run left for the target `name` in
/// `dir`: files named as [`create_temporary`] names them whose lock nobody holds. A
/// running writer holds its lock until its file is renamed or removed, and the kernel
/// releases it when the writer dies, however it dies; so a free lock proves the file
/// abandoned. Best effort: what cannot be listed, opened or locked is left alone.
#[cfg(unix)]
fn remove_stale_temporaries(dir: &Path, name: &std::ffi::OsStr) {
    let prefix = temporary_prefix(name);
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let ours = rest
            .strip_suffix(".tmp")
            .and_then(|id| id.split_once('-'))
            .is_some_and(|(pid, n)| {
                let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                digits(pid) && digits(n)
            });
        if !ours || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        if let Ok(file) = File::open(&path)
            && file.try_lock().is_ok()
        {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Without file locks nothing proves a temporary file abandoned: none is removed.
#[cfg(not(unix))]
fn remove_stale_temporaries(_: &Path, _: &std::ffi::OsStr) {}

/// Syncs a directory, so that a rename in it is on disk. Some file systems cannot sync a
/// directory and say so; that is no failure of the write.
#[cfg(unix)]
fn sync_directory(dir: &Path) -> io::Result<()> {
    match File::open(dir).and_then(|d| d.sync_all()) {
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::InvalidInput | io::ErrorKind::Unsupported
            ) =>
        {
            Ok(())
        }
        other => other,
    }
}

/// Elsewhere a directory cannot be opened to sync it: the rename is all there is.
#[cfg(not(unix))]
fn sync_directory(_: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of its own under the system temp dir, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(label: &str) -> Scratch {
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir()
                .join(format!("demokit-output-{label}-{}-{n}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn path(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }

        fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
            let path = self.path(name);
            fs::write(&path, bytes).unwrap();
            path
        }

        /// The names in the directory, sorted: a leftover temporary file shows up here.
        fn names(&self) -> Vec<String> {
            let mut names: Vec<String> = fs::read_dir(&self.0)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// Bytes that differ from position to position, so a shifted or cut copy shows.
    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    /// A writer that passes `limit` bytes on to `inner`, then fails as a full disk does.
    struct FailAfter<'a> {
        inner: &'a mut AtomicFile,
        limit: usize,
        passed: usize,
    }

    impl Write for FailAfter<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let room = self.limit - self.passed;
            if room == 0 {
                return Err(io::ErrorKind::StorageFull.into());
            }
            let n = self.inner.write(&buf[..buf.len().min(room)])?;
            self.passed += n;
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            self.inner.flush()
        }
    }

    #[test]
    fn writes_a_new_file_and_nothing_else() {
        let dir = Scratch::new("new");
        let out = dir.path("out.bin");
        let data = pattern(100_000);
        write_atomically(&out, Overwrite::Refuse, &data).unwrap();
        assert_eq!(fs::read(&out).unwrap(), data);
        assert_eq!(dir.names(), ["out.bin"]);
    }

    #[test]
    fn an_existing_file_is_kept_unless_replacing_was_asked_for() {
        let dir = Scratch::new("existing");
        let out = dir.write("out.bin", b"old contents");
        let error = write_atomically(&out, Overwrite::Refuse, b"new").unwrap_err();
        assert!(matches!(error, OutputError::Exists { .. }), "{error}");
        assert!(error.is_refusal());
        assert_eq!(error.path(), out);
        assert_eq!(fs::read(&out).unwrap(), b"old contents");
        assert_eq!(dir.names(), ["out.bin"]);

        write_atomically(&out, Overwrite::Replace, b"new").unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"new");
        assert_eq!(dir.names(), ["out.bin"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = Scratch::new("mode");
        let out = dir.write("out.bin", b"old");
        fs::set_permissions(&out, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&out, Overwrite::Replace, b"new").unwrap();
        let mode = fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn the_input_is_caught_under_any_name() {
        let dir = Scratch::new("same");
        let input = dir.write("in.demo", b"the input");
        let other = dir.write("other.demo", b"another file");
        let mut names = vec![
            input.clone(),
            dir.0.join(".").join("in.demo"),
            dir.0
                .join("..")
                .join(dir.0.file_name().unwrap())
                .join("in.demo"),
        ];
        #[cfg(unix)]
        {
            let hard = dir.path("hard.demo");
            fs::hard_link(&input, &hard).unwrap();
            names.push(hard);
            let soft = dir.path("soft.demo");
            std::os::unix::fs::symlink("in.demo", &soft).unwrap();
            names.push(soft);
            let chain = dir.path("chain.demo");
            std::os::unix::fs::symlink(dir.path("soft.demo"), &chain).unwrap();
            names.push(chain);
        }
        for name in &names {
            assert!(same_file(&input, name).unwrap(), "{}", name.display());
            for overwrite in [Overwrite::Refuse, Overwrite::Replace] {
                let error = check_output(name, overwrite, &[&other, &input]).unwrap_err();
                assert!(
                    matches!(&error, OutputError::SameFile { input: i, .. } if *i == input),
                    "{}: {error}",
                    name.display()
                );
                assert!(error.is_refusal());
            }
        }
        assert_eq!(fs::read(&input).unwrap(), b"the input");
        assert!(!same_file(&input, &other).unwrap());
        assert!(!same_file(&input, &dir.path("absent")).unwrap());
        check_output(&other, Overwrite::Replace, &[&input]).unwrap();
        check_output(&dir.path("absent"), Overwrite::Refuse, &[&input]).unwrap();
    }

    #[test]
    fn only_regular_files_are_targets() {
        let dir = Scratch::new("notfile");
        fs::create_dir(dir.path("sub")).unwrap();
        let error = write_atomically(&dir.path("sub"), Overwrite::Replace, b"x").unwrap_err();
        assert!(matches!(error, OutputError::NotAFile { .. }), "{error}");
        #[cfg(unix)]
        {
            let error = check_output(Path::new("/dev/null"), Overwrite::Replace, &[]).unwrap_err();
            assert!(matches!(error, OutputError::NotAFile { .. }), "{error}");
        }
        assert_eq!(dir.names(), ["sub"]);
    }

    /// The writer fails after every interesting number of bytes (inside the buffer, at its
    /// edge, past it): the target keeps its old contents, or stays absent, and no
    /// temporary file is left.
    #[test]
    fn a_writer_failing_midway_leaves_the_target_as_it_was() {
        let data = pattern(100_000);
        for limit in [0, 1, 100, 8191, 8192, 8193, 65_536, 99_999] {
            for existing in [false, true] {
                let dir = Scratch::new("fail");
                let out = dir.path("out.bin");
                if existing {
                    fs::write(&out, b"old contents").unwrap();
                }
                let result = write_atomically_with(&out, Overwrite::Replace, |file| {
                    let mut sink = FailAfter {
                        inner: file,
                        limit,
                        passed: 0,
                    };
                    sink.write_all(&data)
                });
                match result {
                    Err(WriteWithError::Writer(e)) => {
                        assert_eq!(e.kind(), io::ErrorKind::StorageFull)
                    }
                    other => panic!("limit {limit}: {other:?}"),
                }
                if existing {
                    assert_eq!(fs::read(&out).unwrap(), b"old contents", "limit {limit}");
                    assert_eq!(dir.names(), ["out.bin"], "limit {limit}");
                } else {
                    assert!(dir.names().is_empty(), "limit {limit}: {:?}", dir.names());
                }
            }
        }
    }

    #[test]
    fn a_file_dropped_without_commit_leaves_nothing() {
        let dir = Scratch::new("drop");
        let out = dir.path("out.bin");
        let mut file = AtomicFile::create(&out, Overwrite::Refuse).unwrap();
        file.write_all(&pattern(50_000)).unwrap();
        file.flush().unwrap();
        assert_eq!(
            dir.names().len(),
            1,
            "the temporary file exists while writing"
        );
        assert!(!out.exists());
        drop(file);
        assert!(dir.names().is_empty(), "{:?}", dir.names());
    }

    /// A caller that ignores a failed write cannot commit what is left.
    #[test]
    fn a_failed_write_forbids_the_commit() {
        let dir = Scratch::new("poison");
        let out = dir.write("out.bin", b"old contents");
        let mut file = AtomicFile::create(&out, Overwrite::Replace).unwrap();
        file.write_all(b"part of it").unwrap();
        // What `note` records when the operating system refuses a write.
        let _ = file.note::<()>(Err(io::ErrorKind::StorageFull.into()));
        assert!(file.write_all(b"more").is_err());
        let error = file.commit().unwrap_err();
        assert!(matches!(error, OutputError::Write { .. }), "{error}");
        assert!(!error.is_refusal());
        assert_eq!(fs::read(&out).unwrap(), b"old contents");
        assert_eq!(dir.names(), ["out.bin"]);
    }

    /// A file that appears at the target while the output is being written is not
    /// clobbered when replacing was not asked for.
    #[test]
    fn a_file_appearing_meanwhile_is_not_clobbered() {
        let dir = Scratch::new("race");
        let out = dir.path("out.bin");
        let mut file = AtomicFile::create(&out, Overwrite::Refuse).unwrap();
        file.write_all(b"ours").unwrap();
        fs::write(&out, b"theirs").unwrap();
        let error = file.commit().unwrap_err();
        assert!(matches!(error, OutputError::Exists { .. }), "{error}");
        assert_eq!(fs::read(&out).unwrap(), b"theirs");
        assert_eq!(dir.names(), ["out.bin"]);
    }

    #[test]
    fn a_parent_that_is_a_file_is_an_io_error() {
        let dir = Scratch::new("parent");
        let parent = dir.write("file", b"not a directory");
        let out = parent.join("out.bin");
        for overwrite in [Overwrite::Refuse, Overwrite::Replace] {
            let error = write_atomically(&out, overwrite, b"x").unwrap_err();
            assert!(matches!(error, OutputError::Io { .. }), "{error}");
            assert!(!error.is_refusal());
        }
        let missing = dir.path("missing").join("out.bin");
        let error = write_atomically(&missing, Overwrite::Refuse, b"x").unwrap_err();
        assert!(
            matches!(
                error,
                OutputError::Io {
                    step: Step::CreateTemporary,
                    ..
                }
            ),
            "{error}"
        );
        assert_eq!(fs::read(&parent).unwrap(), b"not a directory");
        assert_eq!(dir.names(), ["file"]);
    }

    /// Replacing through a symbolic link replaces the file it points to and keeps the link;
    /// a dangling link names the file to create.
    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_followed() {
        let dir = Scratch::new("link");
        fs::create_dir(dir.path("real")).unwrap();
        let real = dir.write("real/file.bin", b"old");
        let link = dir.path("link.bin");
        std::os::unix::fs::symlink("real/file.bin", &link).unwrap();
        let error = write_atomically(&link, Overwrite::Refuse, b"new").unwrap_err();
        assert!(matches!(error, OutputError::Exists { .. }), "{error}");
        write_atomically(&link, Overwrite::Replace, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(dir.names(), ["link.bin", "real"]);

        let dangling = dir.path("dangling.bin");
        std::os::unix::fs::symlink("real/created.bin", &dangling).unwrap();
        let error = write_atomically(&dangling, Overwrite::Refuse, b"x").unwrap_err();
        assert!(matches!(error, OutputError::Exists { .. }), "{error}");
        write_atomically(&dangling, Overwrite::Replace, b"created").unwrap();
        assert_eq!(fs::read(dir.path("real/created.bin")).unwrap(), b"created");
        let mut real_names: Vec<_> = fs::read_dir(dir.path("real"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        real_names.sort();
        assert_eq!(real_names, ["created.bin", "file.bin"]);
    }

    #[test]
    fn a_long_name_gets_a_temporary_file_too() {
        let dir = Scratch::new("long");
        let out = dir.path(&"n".repeat(240));
        write_atomically(&out, Overwrite::Refuse, b"x").unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"x");
        assert_eq!(dir.names().len(), 1);
    }
}
