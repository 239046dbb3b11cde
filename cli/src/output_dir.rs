//! `--output-dir DIR FILE|DIR...`: the editing commands (`rewrite`, `repair`, `scrub`,
//! `convert`, `trim`, `extract-map`) over any number of files and directories, one output
//! file for each recording, all under one directory.
//!
//! The inputs are searched as the read-only commands search them ([`walk_jobs`] and
//! [`open_job`]: a file found in a directory that is no recording is passed over and
//! counted). Each recording gets its output path, and every output is checked before
//! anything is read or written ([`plan`]), so that a mistake in the command line costs
//! nothing: a run that stopped halfway over two inputs writing one name, or over an output
//! that is another input, would leave a directory that is neither the old state nor the
//! new. Then the files have their turns one after the other, as `dump`'s do ([`Tally`]),
//! each written atomically by the command's own one-file function into its
//! [`Destination`]; the command itself knows no more of the batch than the file to name on
//! its JSON lines.

use super::batch::{Done, Tally, is_batch, open_job, walk_jobs};
use super::destination::{Destination, OutputDir, Target, failure};
use super::input::is_stdin;
use super::output::{FileJson, complain, shown_name};
use super::{Exit, Outcome, Stop};
use demokit::output::{Overwrite, check_output};
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

/// How an input's name becomes its output's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Naming {
    /// The same name: the command writes a recording.
    Same,
    /// The name with `.map` for its extension: `extract-map` writes a map.
    Map,
}

/// One file of the run, in the order the files have their turns.
#[derive(Debug)]
struct Item {
    /// The input, as named or found.
    input: PathBuf,
    /// What becomes of it.
    work: Work,
}

/// What becomes of one file.
#[derive(Debug)]
enum Work {
    /// A recording, edited into this output file.
    Write(PathBuf),
    /// Skipped or failed before it could be read, as the read-only commands decide and
    /// print it.
    Settled(Done),
}

/// A checked run: every file's turn, and the side file (`scrub --mapping`), checked with
/// the outputs.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The files, sorted by path.
    items: Vec<Item>,
    /// Whether each file's report is named (several inputs, or a directory), as the
    /// read-only commands decide it ([`is_batch`]).
    batch: bool,
    /// Whether existing outputs may be replaced (`--force`).
    overwrite: Overwrite,
    /// The side file, checked against every input and output.
    side: Option<Destination>,
}

impl Plan {
    /// The side file asked for, checked.
    pub(crate) fn side(&self) -> Option<&Destination> {
        self.side.as_ref()
    }

    /// The inputs that will be read (not those settled while planning), in turn order.
    pub(crate) fn inputs(&self) -> impl Iterator<Item = &Path> {
        self.items.iter().filter_map(|item| match item.work {
            Work::Write(_) => Some(item.input.as_path()),
            Work::Settled(_) => None,
        })
    }
}

/// Runs an editing command's one-file `work` (the input, its checked output, and the file
/// to name on JSON lines when there are several) on what the command line names: its one
/// input and output as before, or under `--output-dir` every recording found, planned and
/// checked first ([`plan`]) and then run in turn ([`run`]).
pub(crate) fn edit(
    target: Target<'_>,
    naming: Naming,
    json: bool,
    mut work: impl FnMut(&Path, &Destination, Option<&FileJson>) -> Outcome,
) -> Outcome {
    match target {
        Target::One(input, output) => work(input, &output, None),
        Target::Dir(dir) => run(&plan(dir, naming, None, json)?, json, work),
    }
}

/// Finds the recordings `dir.inputs` name and gives each its output under `dir.dir`, then
/// checks them all before any is read (`side`, such as `scrub --mapping`, with them). What
/// is refused, each named on stderr, and nothing written:
///
/// * standard input, which has no name to write under DIR (exit 2);
/// * DIR when it is not a directory, or is inside a directory named as input, where the
///   next run over that directory would find the outputs (exit 2);
/// * two inputs that would write one output, an output that is an input, an existing
///   output without `--force`, and what [`check_output`] refuses (exit 2; exit 3 when it
///   cannot be looked at).
///
/// Then DIR is made if missing (exit 3 if it cannot be). `json` is how files skipped or
/// failed while searching are printed at their turn.
pub(crate) fn plan(
    dir: OutputDir<'_>,
    naming: Naming,
    side: Option<&Path>,
    json: bool,
) -> Outcome<Plan> {
    directory_checks(dir)?;
    let mut items = Vec::new();
    for named in dir.inputs {
        for job in walk_jobs(vec![named.clone()]) {
            let work = match open_job(&job, json) {
                Err(done) => Work::Settled(done),
                Ok(_) => {
                    // A file named writes its own name; one found, its path under the
                    // directory named. `walk_jobs` builds found paths on the name given, so
                    // the prefix is there.
                    let relative = if job.found() {
                        job.path.strip_prefix(named).ok().map(Path::to_path_buf)
                    } else {
                        job.path.file_name().map(PathBuf::from)
                    };
                    match relative {
                        Some(relative) => Work::Write(dir.dir.join(renamed(&relative, naming))),
                        None => Work::Settled(Done::failed(
                            &job.path,
                            None,
                            Exit::Usage,
                            None,
                            "has no file name to write under --output-dir".into(),
                            json,
                        )),
                    }
                }
            };
            items.push(Item {
                input: job.path,
                work,
            });
        }
    }
    // In sorted path order, as the read-only commands report.
    items.sort_by(|a, b| a.input.cmp(&b.input));
    let items = output_checks(dir, items)?;
    let side = side.map(|path| side_check(dir, &items, path)).transpose()?;
    if let Err(e) = std::fs::create_dir_all(dir.dir) {
        complain(dir.dir, format_args!("cannot create the directory: {e}"));
        return Err(Stop(Exit::Io));
    }
    Ok(Plan {
        items,
        batch: is_batch(dir.inputs),
        overwrite: dir.overwrite,
        side,
    })
}

/// `relative` as its output is named.
fn renamed(relative: &Path, naming: Naming) -> PathBuf {
    match naming {
        Naming::Same => relative.to_path_buf(),
        Naming::Map => relative.with_extension("map"),
    }
}

/// The checks on DIR and the inputs as named: no standard input, DIR a directory (or
/// nothing yet), and not inside a directory named as input.
fn directory_checks(dir: OutputDir<'_>) -> Outcome {
    let mut refused = false;
    for input in dir.inputs.iter().filter(|p| is_stdin(p)) {
        complain(
            input,
            "standard input has no file name to write under --output-dir; name files",
        );
        refused = true;
    }
    if std::fs::symlink_metadata(dir.dir).is_ok() && !dir.dir.is_dir() {
        complain(
            dir.dir,
            "--output-dir names something that is not a directory",
        );
        refused = true;
    }
    let resolved_dir = resolved(dir.dir);
    for input in dir.inputs.iter().filter(|p| !is_stdin(p) && p.is_dir()) {
        if let Ok(root) = std::fs::canonicalize(input)
            && resolved_dir.starts_with(&root)
        {
            complain(
                dir.dir,
                format_args!(
                    "the output directory is inside the input directory {}, where the next \
                     run over it would find the outputs; write them elsewhere",
                    shown_name(input)
                ),
            );
            refused = true;
        }
    }
    if refused {
        return Err(Stop(Exit::Usage));
    }
    Ok(())
}

/// `path` made absolute with its longest existing part resolved as
/// [`std::fs::canonicalize`] resolves it and the rest taken as written (`..` there is the
/// part before it, as nothing that does not exist can be a symbolic link), so that two
/// spellings of one place compare equal even when their last parts do not exist yet.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    for existing in absolute.ancestors() {
        let Ok(mut resolved) = std::fs::canonicalize(existing) else {
            continue;
        };
        let rest = absolute.strip_prefix(existing).unwrap_or(Path::new(""));
        for part in rest.components() {
            match part {
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::Normal(part) => resolved.push(part),
                _ => {}
            }
        }
        return resolved;
    }
    absolute
}

/// What a path is on the file system: its canonical form, or for a path that does not
/// exist (yet) [`resolved`]. Two spellings of one file, or a symbolic link and its file,
/// are one; hard links are told apart by [`check_output`] where it matters, an output
/// against its own input.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| resolved(path))
}

/// Checks every output before any is written (see [`plan`]), naming each refusal on
/// stderr; a file named twice (or named and found) with one output is run once.
fn output_checks(dir: OutputDir<'_>, items: Vec<Item>) -> Outcome<Vec<Item>> {
    let identities: Vec<PathBuf> = items.iter().map(|item| identity(&item.input)).collect();
    // Every input by identity, so that an output's spelling cannot hide one.
    let inputs: HashMap<&Path, &Path> = identities
        .iter()
        .zip(&items)
        .map(|(id, item)| (id.as_path(), item.input.as_path()))
        .collect();
    let mut worst = Exit::Success;
    let mut seen: HashSet<(&Path, Option<&Path>)> = HashSet::new();
    // Each output by identity, and the input (and its identity) it is written from.
    let mut written: HashMap<PathBuf, (&Path, &Path)> = HashMap::new();
    let mut keep = Vec::with_capacity(items.len());
    for (item, input_id) in items.iter().zip(&identities) {
        let output = match &item.work {
            Work::Write(output) => Some(output.as_path()),
            Work::Settled(_) => None,
        };
        let first = seen.insert((input_id, output));
        keep.push(first);
        let Some(output) = output.filter(|_| first) else {
            continue;
        };
        let output_id = identity(output);
        if let Some((other_id, other)) = written.get(&output_id) {
            // One input under two spellings is the same input, and was kept above.
            if other_id != input_id {
                complain(
                    output,
                    format_args!(
                        "would be written from both {} and {}; give one of them another \
                         --output-dir",
                        shown_name(other),
                        shown_name(&item.input)
                    ),
                );
                worst = worst.max(Exit::Usage);
            }
            continue;
        }
        if output_id != *input_id
            && let Some(other) = inputs.get(output_id.as_path())
        {
            complain(
                output,
                format_args!(
                    "is the input {}, which this run reads; refusing to write over an input",
                    shown_name(other)
                ),
            );
            worst = worst.max(Exit::Usage);
        } else if let Err(e) = check_output(output, dir.overwrite, &[&item.input]) {
            worst = worst.max(failure(&e, "").0);
        }
        written.insert(output_id, (input_id, &item.input));
    }
    if worst != Exit::Success {
        return Err(Stop(worst));
    }
    Ok(items
        .into_iter()
        .zip(keep)
        .filter_map(|(item, keep)| keep.then_some(item))
        .collect())
}

/// Checks the side file (`scrub --mapping`): a file, not standard output, neither an input
/// nor an output of the run, and an existing one only with `--force` (exit 2 otherwise),
/// in a directory that exists (exit 3 otherwise, as writing it would fail).
fn side_check(dir: OutputDir<'_>, items: &[Item], path: &Path) -> Outcome<Destination> {
    if is_stdin(path) {
        complain(path, "this output must be a file, not standard output");
        return Err(Stop(Exit::Usage));
    }
    let side_id = identity(path);
    for item in items {
        let clash = match &item.work {
            Work::Write(output) if identity(output) == side_id => Some("one of the outputs"),
            _ if identity(&item.input) == side_id => Some("one of the inputs"),
            _ => None,
        };
        if let Some(what) = clash {
            complain(path, format_args!("this output is also {what}"));
            return Err(Stop(Exit::Usage));
        }
    }
    check_output(path, dir.overwrite, &[]).map_err(|e| failure(&e, ""))?;
    // Written after every file, it would find out last, with the outputs written and
    // nothing left to undo them by.
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
        && !parent.is_dir()
    {
        complain(path, "its directory does not exist");
        return Err(Stop(Exit::Io));
    }
    Ok(Destination::checked_file(path.to_path_buf(), dir.overwrite))
}

/// Runs `work` on each file of `plan` in turn, as `dump` runs its files: with several,
/// each report after a `==> FILE <==` line (JSON: `work` is told the file to name), a
/// failing file counted and the next one run, a closing note on the files skipped and
/// failed; the exit status is the worst one earned. A file's output directory is made at
/// its turn, so that a file that fails early leaves none.
pub(crate) fn run(
    plan: &Plan,
    json: bool,
    mut work: impl FnMut(&Path, &Destination, Option<&FileJson>) -> Outcome,
) -> Outcome {
    let mut tally = Tally::default();
    for item in &plan.items {
        let output = match &item.work {
            Work::Settled(done) => {
                tally.settled(&item.input, done)?;
                continue;
            }
            Work::Write(output) => Destination::checked_file(output.clone(), plan.overwrite),
        };
        let mut one = |named: Option<&FileJson>| {
            make_parent(output.path())?;
            work(&item.input, &output, named)
        };
        if !plan.batch {
            // One file named: reported as the one-file form reports it.
            return one(None);
        }
        tally.turn(&item.input, json, one)?;
    }
    if plan.batch {
        tally.finish(plan.items.len())
    } else {
        tally.status()
    }
}

/// Makes the directory `output` goes in, if missing (exit 3 if it cannot be).
fn make_parent(output: &Path) -> Outcome {
    match output.parent() {
        Some(parent) => std::fs::create_dir_all(parent).map_err(|e| {
            complain(parent, format_args!("cannot create the directory: {e}"));
            Stop(Exit::Io)
        }),
        None => Ok(()),
    }
}
