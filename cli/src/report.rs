//! `demokit report`: a recording as one self-contained HTML page, or an index page over a
//! directory of recordings with a page for each. The library builds the page
//! ([`Recording::page`](demokit::recording::Recording::page)) and writes its HTML
//! ([`demokit::page`]); this module finds the files, runs them in parallel with a progress
//! bar, keeps the index up to date (a file whose size and time have not changed since the
//! last run is not read again) and writes every file atomically.

use super::batch::{Job, Status, collect_jobs, open_job, progress_bar};
use super::destination::{NamedOutputArgs, failure as output_failure, write_output};
use super::input::{failure, open_recording};
use super::output::{Output, complain, shown_name};
use super::{Exit, Outcome, Stop};
use demokit::output::{Overwrite, check_output, write_atomically};
use demokit::page::{IndexRow, Page, PageOptions, index_html};
use demokit::recording::{Limits, MapDirectory, MapProblem, read_input};
use rayon::iter::{IntoParallelRefIterator, ParallelIterator};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::time::UNIX_EPOCH;

/// `demokit report FILE -o PAGE`: the recording's page, written atomically.
pub(crate) fn report_file(
    input: &Path,
    output: &NamedOutputArgs,
    map: Option<&Path>,
    mut options: PageOptions,
) -> Outcome {
    let destination = output.destination(input)?;
    if let Some(map) = map {
        let bytes = read_input(map, Limits::DEFAULT).map_err(|e| failure(map, &e))?;
        options.render.map = Some(bytes);
    }
    let recording = open_recording(input)?;
    let page = recording.page(&options).map_err(|e| failure(input, &e))?;
    let html = page.to_html();
    write_output(&destination, html.as_bytes())?;
    let mut out = Output::for_report(destination.is_stdout());
    out.write_fmt(format_args!(
        "{}: {}, {} bytes\n",
        destination.name(),
        describe(&page),
        html.len()
    ))?;
    out.flush()?;
    super::render::partial(input, page.error.as_deref())
}

/// What a page holds, in one line.
fn describe(page: &Page) -> String {
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let mut text = format!(
        "{}, {}, {}, {} of {} positions",
        plural(page.players.len(), "player"),
        plural(page.chat.len(), "chat line"),
        plural(page.events.len(), "event"),
        page.samples_kept,
        page.samples_read
    );
    if page.step > 1 {
        text.push_str(&format!(" (every {} ticks)", page.step));
    }
    text
}

/// The record of an index's pages, kept beside them so that a second run reads only the
/// files that changed.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    /// The tool's version that wrote it: another version makes every page again.
    version: String,
    /// The options the pages were made with ([`settings`]): other options make every page
    /// again.
    #[serde(default)]
    settings: String,
    /// By the file's path relative to the directory.
    files: BTreeMap<String, ManifestEntry>,
}

/// One file of a [`Manifest`].
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ManifestEntry {
    /// The file's size when its page was made.
    size: u64,
    /// Its modification time then, in nanoseconds since 1970.
    modified_ns: u128,
    /// Its row.
    row: IndexRow,
}

/// The manifest's name in the pages directory.
const MANIFEST: &str = "manifest.json";
/// The lock file's name in the pages directory: one run updates an index at a time.
const LOCK: &str = ".lock";

/// What happened to one file of an index.
enum Made {
    /// Its page is up to date from an earlier run.
    Kept(ManifestEntry),
    /// Its page was made (or could not be: the row says why).
    Fresh(ManifestEntry),
    /// Not a recording: passed over.
    Skipped,
}

/// `demokit report DIR -o INDEX`: a page for every recording under `dir` (in a directory
/// named after the index, `INDEX-stem.pages/`) and the index page linking them.
pub(crate) fn report_dir(
    dir: &Path,
    output: &NamedOutputArgs,
    maps: Option<&Path>,
    options: PageOptions,
) -> Outcome {
    let index = output.path().to_path_buf();
    let stem = index
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "index".into());
    let parent = index
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let pages_name = format!("{stem}.pages");
    let pages = parent.join(&pages_name);
    let manifest_path = pages.join(MANIFEST);
    // An index of our own (its manifest is beside it) is brought up to date; any other
    // file there is only replaced with --force, and refused before any work.
    let ours = manifest_path.is_file();
    let overwrite = if ours || output.force() {
        Overwrite::Replace
    } else {
        Overwrite::Refuse
    };
    if index.as_os_str() == "-" {
        complain(
            dir,
            "an index is written beside its pages: name an OUTPUT file, not standard output",
        );
        return Err(Stop(Exit::Usage));
    }
    // The recordings first: the index may not be (or replace) one of them.
    let (jobs, _) = collect_jobs(&[dir.to_path_buf()]);
    let inputs: Vec<&Path> = jobs.iter().map(|job| job.path.as_path()).collect();
    check_output(&index, overwrite, &inputs).map_err(|e| output_failure(&e, ""))?;
    std::fs::create_dir_all(&pages).map_err(|e| {
        complain(
            &pages,
            format_args!("cannot create the pages directory: {e}"),
        );
        Stop(Exit::Io)
    })?;
    // One run at a time: the lock is the operating system's, so a killed run leaves none.
    let lock = File::create(pages.join(LOCK)).map_err(|e| {
        complain(&pages, format_args!("cannot create the lock file: {e}"));
        Stop(Exit::Io)
    })?;
    if lock.try_lock().is_err() {
        complain(
            &index,
            "another `demokit report` is updating this index; try again when it is done",
        );
        return Err(Stop(Exit::Io));
    }
    let settings = settings(&options, maps);
    let old: Manifest = std::fs::read(&manifest_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .filter(|m: &Manifest| m.version == env!("CARGO_PKG_VERSION") && m.settings == settings)
        .unwrap_or_default();
    let maps = maps.map(MapDirectory::new);
    // Everything written or removed below lies in the pages folder, resolved.
    let pages_real = std::fs::canonicalize(&pages).map_err(|e| {
        complain(
            &pages,
            format_args!("cannot resolve the pages directory: {e}"),
        );
        Stop(Exit::Io)
    })?;
    let confined = Confined {
        parent: &parent,
        pages_name: &pages_name,
        pages_real: &pages_real,
    };

    let bar = progress_bar(jobs.len());
    let made: Vec<(String, Made)> = jobs
        .par_iter()
        .map(|job| {
            let rel = relative(dir, &job.path);
            let made = index_one(job, &rel, &old, &confined, maps.as_ref(), &options);
            bar.inc(1);
            (rel, made)
        })
        .collect();
    bar.finish_and_clear();

    let mut manifest = Manifest {
        version: env!("CARGO_PKG_VERSION").into(),
        settings,
        files: BTreeMap::new(),
    };
    let (mut kept, mut fresh, mut skipped) = (0, 0, 0);
    let (mut partial, mut failed) = (Vec::new(), Vec::new());
    let total = made.len();
    for (rel, made) in made {
        let entry = match made {
            Made::Kept(entry) => {
                kept += 1;
                entry
            }
            Made::Fresh(entry) => {
                fresh += 1;
                entry
            }
            Made::Skipped => {
                skipped += 1;
                continue;
            }
        };
        // A page made of a recording that broke off is partial; no page, failed.
        match (&entry.row.error, &entry.row.page) {
            (None, _) => {}
            (Some(_), Some(_)) => partial.push(dir.join(&rel)),
            (Some(_), None) => failed.push(dir.join(&rel)),
        }
        manifest.files.insert(rel, entry);
    }
    // Pages of files that are gone: only where the manifest (input like any other) names
    // a file in the pages folder.
    for (rel, entry) in &old.files {
        if !manifest.files.contains_key(rel)
            && let Some(page) = entry.row.page.as_deref().and_then(|p| confined.page(p))
        {
            let _ = std::fs::remove_file(page);
        }
    }
    let rows: Vec<IndexRow> = manifest.files.values().map(|e| e.row.clone()).collect();
    let title = format!("Recordings in {}", shown_name(dir));
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| {
        complain(&manifest_path, &e);
        Stop(Exit::Io)
    })?;
    write_atomically(&manifest_path, Overwrite::Replace, &json).map_err(|e| {
        complain(&manifest_path, &e);
        Stop(Exit::Io)
    })?;
    write_atomically(&index, overwrite, index_html(&title, &rows).as_bytes())
        .map_err(|e| output_failure(&e, ""))?;
    drop(lock);
    let mut out = Output::for_report(false);
    out.write_fmt(format_args!(
        "{}: {} recordings ({} pages made, {} up to date, {} with errors) in {}\n",
        shown_name(&index),
        rows.len(),
        fresh,
        kept,
        partial.len() + failed.len(),
        shown_name(&pages)
    ))?;
    out.flush()?;
    let note = super::batch::closing_note(total, &partial, &failed, skipped, "");
    super::output::to_stderr(&note);
    if partial.is_empty() && failed.is_empty() {
        Ok(())
    } else {
        Err(Stop(Exit::Invalid))
    }
}

/// The options that shape a page, as the manifest keeps them: a run with others makes
/// every page again.
fn settings(options: &PageOptions, maps: Option<&Path>) -> String {
    let render = &options.render;
    let maps = maps.map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()));
    format!(
        "from={:?} to={:?} players={:?} size={:?} max_positions={} maps={:?}",
        render.from, render.to, render.players, render.size, options.max_samples, maps
    )
}

/// Where an index's pages may be: in its pages folder, resolved. The manifest is read
/// from disk like any input, so a page path it names is taken only when it is relative,
/// starts with the pages folder's name, has only plain names after it (no `..`, no root)
/// and resolves, symbolic links followed, to a place inside the pages folder.
struct Confined<'a> {
    /// The index's directory, which page paths are relative to.
    parent: &'a Path,
    /// The pages folder's name (`INDEX-stem.pages`).
    pages_name: &'a str,
    /// The pages folder, resolved.
    pages_real: &'a Path,
}

impl Confined<'_> {
    /// The file a manifest's page path names, if it lies in the pages folder.
    fn page(&self, page: &str) -> Option<std::path::PathBuf> {
        use std::path::Component;
        let mut components = Path::new(page).components();
        if components.next() != Some(Component::Normal(self.pages_name.as_ref())) {
            return None;
        }
        let rest: Vec<_> = components.collect();
        if rest.is_empty() || !rest.iter().all(|c| matches!(c, Component::Normal(_))) {
            return None;
        }
        let path = self.parent.join(page);
        self.holds(&path).then_some(path)
    }

    /// Whether `path` (in the pages folder by name) lies there once resolved: its
    /// directory resolves inside the folder and it is no symbolic link itself.
    fn holds(&self, path: &Path) -> bool {
        let Some(dir) = path.parent() else {
            return false;
        };
        let inside = std::fs::canonicalize(dir).is_ok_and(|d| d.starts_with(self.pages_real));
        let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        inside && !link
    }

    /// The page of the recording at `rel` (its path under the directory, found by the
    /// walk), its directories made: `None` when it would not lie in the pages folder.
    fn page_of(&self, rel: &str) -> Result<std::path::PathBuf, String> {
        let page = format!("{}/{rel}.html", self.pages_name);
        let path = self.parent.join(&page);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", shown_name(dir)))?;
        }
        self.page(&page).ok_or_else(|| {
            format!(
                "its page {} would lie outside {} (a symbolic link on the way): not written",
                shown_name(&path),
                shown_name(self.pages_real)
            )
        })
    }
}

/// `path` relative to `dir`, with `/` between its parts.
fn relative(dir: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(dir).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The file's size and modification time.
fn stamp(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some((meta.len(), modified.as_nanos()))
}

/// One file of an index: its row, kept from the last run when the file has not changed,
/// else read again and its page written.
fn index_one(
    job: &Job,
    rel: &str,
    old: &Manifest,
    confined: &Confined<'_>,
    maps: Option<&MapDirectory>,
    options: &PageOptions,
) -> Made {
    let stamp = stamp(&job.path);
    // A page is kept when its file has not changed and it was made: a failed attempt is
    // tried again (its map may have come, the file may have been repaired).
    if let (Some((size, modified_ns)), Some(entry)) = (stamp, old.files.get(rel))
        && entry.row.error.is_none()
        && entry.size == size
        && entry.modified_ns == modified_ns
        && entry
            .row
            .page
            .as_ref()
            .is_none_or(|page| confined.page(page).is_some_and(|p| p.is_file()))
    {
        return Made::Kept(entry.clone());
    }
    let (size, modified_ns) = stamp.unwrap_or((0, 0));
    let entry = |row: IndexRow| ManifestEntry {
        size,
        modified_ns,
        row,
    };
    let failed = |message: String, format: String| IndexRow {
        path: rel.to_owned(),
        page: None,
        format,
        map: String::new(),
        date: String::new(),
        seconds: None,
        players: Vec::new(),
        error: Some(message),
    };
    let recording = match open_job(job, false) {
        Ok(recording) => recording,
        Err(done) if done.status == Status::Skipped => return Made::Skipped,
        Err(done) => {
            let message = done.err.trim().to_owned();
            return Made::Fresh(entry(failed(message, String::new())));
        }
    };
    let format = recording.format().name().to_owned();
    // A teehistorian file names its map: look for it in --maps, by its checksum (without
    // --maps its page is drawn on a grid).
    let mut page = None;
    if let (
        Some(MapProblem::Missing {
            name,
            sha256,
            crc32,
            ..
        }),
        Some(maps),
    ) = (maps.and_then(|_| recording.missing_map()), maps)
    {
        match maps.find(&name, sha256.as_deref(), crc32.as_deref()) {
            Ok(bytes) => {
                let mut with_map = options.clone();
                with_map.render.map = Some(bytes);
                page = Some(recording.page(&with_map));
            }
            Err(why) => return Made::Fresh(entry(failed(why, format))),
        }
    }
    let page = page.unwrap_or_else(|| recording.page(options));
    let page = match page {
        Ok(page) => page,
        Err(e) => return Made::Fresh(entry(failed(e.to_string(), format))),
    };
    let target = match confined.page_of(rel) {
        Ok(target) => target,
        Err(why) => return Made::Fresh(entry(failed(why, format))),
    };
    if let Err(e) = write_atomically(&target, Overwrite::Replace, page.to_html().as_bytes()) {
        return Made::Fresh(entry(failed(e.to_string(), format)));
    }
    Made::Fresh(entry(page.row(
        rel.to_owned(),
        Some(format!("{}/{rel}.html", confined.pages_name)),
    )))
}
