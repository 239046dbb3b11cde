//! Where the writing commands put their file: the output arguments they share (`OUTPUT`,
//! `--force`, and `--in-place` where replacing the input makes sense), the checks run
//! before any work is done, and the final write through [`demokit::output`], which makes
//! it atomic. The commands themselves only hand over their bytes.
//!
//! An `OUTPUT` of `-` is standard output: the bytes are written there as they are (not
//! to a terminal, which is refused with exit 2), and the command's report goes to stderr.

use super::input::is_stdin;
use super::output::{Output, complain, say, shown_name};
use super::{Exit, Outcome, Stop};
use clap::Args;
use demokit::output::{self, OutputError, Overwrite};
use demokit::recording::{Codec, Encoder, encoder};
use std::io::IsTerminal;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The output arguments of a command that always writes a new file.
#[derive(Debug, Args)]
pub(crate) struct OutputArgs {
    /// The file to write, or - for standard output. It must not be the input (under any
    /// name, hard link or symbolic link); an existing file is only replaced with --force.
    #[arg(required_unless_present = "output_dir", conflicts_with = "output_dir")]
    output: Option<PathBuf>,
    /// Write into DIR instead, one file per input; the FILE|DIR inputs follow it (no INPUT
    /// or OUTPUT then).
    #[arg(
        long,
        num_args = 2..,
        value_names = ["DIR", "FILE|DIR"],
        long_help = OUTPUT_DIR_HELP
    )]
    output_dir: Option<Vec<PathBuf>>,
    /// Replace OUTPUT if it exists (with --output-dir: any file it would write). The new
    /// file is written beside it and renamed over it, so a failure leaves the old one as it
    /// was.
    #[arg(short, long)]
    force: bool,
}

/// The long help of `--output-dir`, shared by every command that takes it.
const OUTPUT_DIR_HELP: &str = "Write into DIR (made if missing) instead of OUTPUT, one file \
    per input; the inputs follow DIR: `--output-dir DIR FILE|DIR...` (no INPUT or OUTPUT is \
    named then, and --in-place does not go with it). A FILE writes DIR/<its file name>; a DIR \
    is searched as `info` searches one (files that are no recording are passed over and \
    counted) and each recording found writes DIR/<its path under that DIR>, subdirectories \
    made as needed (extract-map: the name with .map for its extension).

Every output is checked before anything is read: two inputs that would write the same file, \
    an output that is an input, DIR inside a directory named as input (the next run would \
    find the outputs there) and an existing file without --force are refused (exit 2). Each \
    file is then written on its own, atomically; one that fails does not stop the others, \
    and the exit status is the worst one earned. With several inputs, each report follows a \
    `==> FILE <==` line (in JSON: a \"file\" field).";

/// The output arguments of a command whose result can replace its input.
#[derive(Debug, Args)]
pub(crate) struct EditOutputArgs {
    /// The file to write (- for standard output), not needed with --in-place. It must not
    /// be the input (under any name, hard link or symbolic link); an existing file is only
    /// replaced with --force.
    #[arg(
        required_unless_present_any = ["in_place", "output_dir"],
        conflicts_with_all = ["in_place", "output_dir"]
    )]
    output: Option<PathBuf>,
    /// Replace INPUT itself with the result instead of writing OUTPUT. The result is
    /// written beside it and renamed over it, so a failure leaves the input as it was.
    #[arg(long, conflicts_with = "output_dir")]
    in_place: bool,
    /// Write into DIR instead, one file per input; the FILE|DIR inputs follow it (no INPUT
    /// or OUTPUT then).
    #[arg(
        long,
        num_args = 2..,
        value_names = ["DIR", "FILE|DIR"],
        long_help = OUTPUT_DIR_HELP
    )]
    output_dir: Option<Vec<PathBuf>>,
    /// Replace OUTPUT if it exists (with --output-dir: any file it would write), written
    /// beside it and renamed over it, so a failure leaves the old one as it was.
    #[arg(short, long)]
    force: bool,
}

/// The output arguments of a command that writes a file only when asked to change
/// something (`markers`): `-o OUTPUT` or `--in-place`. Without either it only prints, so
/// its lone positional argument stays the input (`demokit markers FILE`).
#[derive(Debug, Args)]
pub(crate) struct ChangeOutputArgs {
    /// Write the changed demo to OUTPUT (- for standard output). It must not be the input
    /// (under any name, hard link or symbolic link); an existing file is only replaced
    /// with --force.
    #[arg(short, long, value_name = "OUTPUT", conflicts_with = "in_place")]
    output: Option<PathBuf>,
    /// Replace the input itself with the changed demo. The result is written beside it and
    /// renamed over it, so a failure leaves the input as it was.
    #[arg(long)]
    in_place: bool,
    /// Replace OUTPUT if it exists (written beside it and renamed over it, so a failure
    /// leaves the old one as it was).
    #[arg(short, long)]
    force: bool,
}

/// A checked output: the path a command writes and whether a file there may be replaced,
/// or standard output.
#[derive(Debug)]
pub(crate) struct Destination {
    /// The file to write (`-` for standard output).
    path: PathBuf,
    /// Whether an existing file at `path` may be replaced.
    overwrite: Overwrite,
    /// Whether the bytes go to standard output.
    stdout: bool,
}

impl Destination {
    /// The file the command writes (the input itself with `--in-place`).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the output goes to standard output (so the report goes to stderr).
    pub(crate) fn is_stdout(&self) -> bool {
        self.stdout
    }

    /// The output's name in messages: `<stdout>`, or the file's.
    pub(crate) fn name(&self) -> String {
        if self.stdout {
            "<stdout>".into()
        } else {
            shown_name(&self.path)
        }
    }

    /// A file checked already (one of `--output-dir`'s, by [`super::output_dir`]).
    pub(crate) fn checked_file(path: PathBuf, overwrite: Overwrite) -> Destination {
        Destination {
            path,
            overwrite,
            stdout: false,
        }
    }

    /// Standard output, unless it is a terminal (exit 2: a recording is no text).
    fn stdout() -> Outcome<Destination> {
        if std::io::stdout().is_terminal() {
            complain(
                Path::new("<stdout>"),
                "refusing to write a recording to a terminal; redirect standard output or \
                 name an OUTPUT file",
            );
            return Err(Stop(Exit::Usage));
        }
        Ok(Destination {
            path: PathBuf::from("-"),
            overwrite: Overwrite::Replace,
            stdout: true,
        })
    }
}

/// The overwrite policy `--force` asks for.
pub(crate) fn overwrite(force: bool) -> Overwrite {
    if force {
        Overwrite::Replace
    } else {
        Overwrite::Refuse
    }
}

/// Where an editing command writes: one output for its one input, checked, or a directory
/// for any number of inputs (`--output-dir`), whose outputs [`super::output_dir`] checks
/// once it has found the inputs.
#[derive(Debug)]
pub(crate) enum Target<'a> {
    /// `INPUT OUTPUT` (or `INPUT --in-place`): the input and its checked destination.
    One(&'a Path, Destination),
    /// `--output-dir DIR FILE|DIR...`.
    Dir(OutputDir<'a>),
}

/// `--output-dir DIR FILE|DIR...` as the command line gives it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutputDir<'a> {
    /// The directory the outputs go under.
    pub(crate) dir: &'a Path,
    /// The files and directories named as inputs.
    pub(crate) inputs: &'a [PathBuf],
    /// Whether existing files there may be replaced (`--force`).
    pub(crate) overwrite: Overwrite,
}

impl<'a> OutputDir<'a> {
    /// The option's values: DIR, then the inputs (clap asks for at least one of them).
    fn of(values: &'a [PathBuf], force: bool) -> Outcome<OutputDir<'a>> {
        match values.split_first() {
            Some((dir, inputs)) if !inputs.is_empty() => Ok(OutputDir {
                dir,
                inputs,
                overwrite: overwrite(force),
            }),
            _ => Err(no_input()),
        }
    }
}

/// A command line without INPUT, which clap lets through only with `--output-dir`: named
/// as a usage error rather than trusted to be impossible.
fn no_input() -> Stop {
    say("no INPUT given: name INPUT and OUTPUT, or --output-dir DIR FILE|DIR...");
    Stop(Exit::Usage)
}

impl OutputArgs {
    /// Checks the output against `input` before any work is done (exit 2 on a refusal), or
    /// hands over `--output-dir` (clap lets no INPUT or OUTPUT through with it).
    pub(crate) fn target<'a>(&'a self, input: Option<&'a Path>) -> Outcome<Target<'a>> {
        match (&self.output_dir, input, &self.output) {
            (Some(values), _, _) => OutputDir::of(values, self.force).map(Target::Dir),
            (None, Some(input), Some(output)) => {
                checked(input, output, overwrite(self.force), "").map(|d| Target::One(input, d))
            }
            _ => Err(no_input()),
        }
    }
}

impl EditOutputArgs {
    /// Checks the output against `input` before any work is done (exit 2 on a refusal);
    /// with `--in-place` the destination is the input, which must be a regular file. With
    /// `--output-dir`, hands it over (clap lets no INPUT, OUTPUT or --in-place through with
    /// it).
    pub(crate) fn target<'a>(&'a self, input: Option<&'a Path>) -> Outcome<Target<'a>> {
        if let Some(values) = &self.output_dir {
            return OutputDir::of(values, self.force).map(Target::Dir);
        }
        let input = input.ok_or_else(no_input)?;
        let destination = match &self.output {
            Some(output) if !self.in_place => checked(
                input,
                output,
                overwrite(self.force),
                " (--in-place replaces it with the result)",
            ),
            _ => in_place(input),
        }?;
        Ok(Target::One(input, destination))
    }
}

impl EditOutputArgs {
    /// Whether --force was given (for a command's second output file).
    pub(crate) fn force(&self) -> bool {
        self.force
    }
}

/// Checks a command's second output file (such as `scrub --mapping`) before any work:
/// not standard output, not the input, not the main output, and an existing file only
/// with `force` (exit 2 on a refusal).
pub(crate) fn side_file(
    input: &Path,
    main: &Destination,
    path: &Path,
    force: bool,
) -> Outcome<Destination> {
    if is_stdin(path) {
        complain(path, "this output must be a file, not standard output");
        return Err(Stop(Exit::Usage));
    }
    let mut others: Vec<&Path> = Vec::new();
    if !is_stdin(input) {
        others.push(input);
    }
    if !main.stdout {
        others.push(&main.path);
    }
    if others.contains(&path) {
        complain(path, "this output is also the input or the main output");
        return Err(Stop(Exit::Usage));
    }
    output::check_output(path, overwrite(force), &others).map_err(|e| failure(&e, ""))?;
    Ok(Destination {
        path: path.to_path_buf(),
        overwrite: overwrite(force),
        stdout: false,
    })
}

impl ChangeOutputArgs {
    /// Checks the output against `input` before any work is done (exit 2 on a refusal),
    /// as [`EditOutputArgs::destination`] does; `None` when neither `-o` nor `--in-place`
    /// was given.
    pub(crate) fn destination(&self, input: &Path) -> Outcome<Option<Destination>> {
        match (&self.output, self.in_place) {
            (Some(output), false) => checked(
                input,
                output,
                overwrite(self.force),
                " (--in-place replaces it with the result)",
            )
            .map(Some),
            (_, true) => in_place(input).map(Some),
            (None, false) => Ok(None),
        }
    }
}

/// The output arguments of a command that writes a new file named with `-o` (`render`),
/// its input staying the lone positional argument.
#[derive(Debug, Args)]
pub(crate) struct NamedOutputArgs {
    /// The file to write (- for standard output). It must not be the input (under any
    /// name, hard link or symbolic link); an existing file is only replaced with --force.
    #[arg(short, long, value_name = "OUTPUT")]
    output: PathBuf,
    /// Replace OUTPUT if it exists (written beside it and renamed over it, so a failure
    /// leaves the old one as it was).
    #[arg(short, long)]
    force: bool,
}

impl NamedOutputArgs {
    /// The path given with `-o`.
    pub(crate) fn path(&self) -> &Path {
        &self.output
    }

    /// Checks the output against `input` before any work is done (exit 2 on a refusal).
    pub(crate) fn destination(&self, input: &Path) -> Outcome<Destination> {
        checked(input, &self.output, overwrite(self.force), "")
    }

    /// Whether --force was given.
    pub(crate) fn force(&self) -> bool {
        self.force
    }
}

/// The input itself as the destination (`--in-place`): a regular file, not standard input.
fn in_place(input: &Path) -> Outcome<Destination> {
    if is_stdin(input) {
        complain(
            input,
            "--in-place needs a file to replace, not standard input; name an OUTPUT",
        );
        return Err(Stop(Exit::Usage));
    }
    output::check_output(input, Overwrite::Replace, &[]).map_err(|e| failure(&e, ""))?;
    Ok(Destination {
        path: input.to_path_buf(),
        overwrite: Overwrite::Replace,
        stdout: false,
    })
}

/// Runs the library's checks on `output` for `input`; `same_file_hint` is added to the
/// refusal of an output that is the input.
fn checked(
    input: &Path,
    output: &Path,
    overwrite: Overwrite,
    same_file_hint: &str,
) -> Outcome<Destination> {
    if is_stdin(output) {
        return Destination::stdout();
    }
    // Standard input is no file that the output could be.
    let inputs: &[&Path] = if is_stdin(input) { &[] } else { &[input] };
    output::check_output(output, overwrite, inputs).map_err(|e| failure(&e, same_file_hint))?;
    Ok(Destination {
        path: output.to_path_buf(),
        overwrite,
        stdout: false,
    })
}

/// Names the output's trouble on stderr: a refusal is a usage error (exit 2), anything
/// else an I/O error (exit 3).
pub(crate) fn failure(error: &OutputError, same_file_hint: &str) -> Stop {
    let hint = match error {
        OutputError::Exists { .. } => "; --force (-f) replaces it",
        OutputError::SameFile { .. } => same_file_hint,
        _ if error.target_replaced() => "",
        _ if error.is_refusal() => "",
        _ => "; left untouched",
    };
    complain(error.path(), format_args!("{error}{hint}"));
    Stop(if error.is_refusal() {
        Exit::Usage
    } else {
        Exit::Io
    })
}

/// Where a command streams its result: the temporary file beside the output (renamed over
/// it by [`Destination::commit`]), or memory for standard output, which is written only
/// once the result is complete (so a refusal midway writes nothing there either).
pub(crate) enum Sink {
    /// The output file, under its temporary name.
    File(output::AtomicFile),
    /// The output file, under its temporary name, compressed as its name asks
    /// (`out.demo.zst`).
    Compressed(Encoder<output::AtomicFile>),
    /// The bytes for standard output.
    Memory(Vec<u8>),
}

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::File(file) => file.write(buf),
            Sink::Compressed(file) => file.write(buf),
            Sink::Memory(bytes) => bytes.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::File(file) => file.flush(),
            Sink::Compressed(file) => file.flush(),
            Sink::Memory(_) => Ok(()),
        }
    }
}

impl Destination {
    /// A sink for the result, so that a recording streams into its output without being
    /// held in memory. Dropped without [`commit`](Self::commit), it leaves nothing.
    pub(crate) fn sink(&self) -> Outcome<Sink> {
        if self.stdout {
            return Ok(Sink::Memory(Vec::new()));
        }
        let file =
            output::AtomicFile::create(&self.path, self.overwrite).map_err(|e| failure(&e, ""))?;
        match Codec::by_extension(&self.path) {
            Some(codec) => match encoder(codec, file) {
                Ok(encoder) => Ok(Sink::Compressed(encoder)),
                Err(e) => {
                    complain(&self.path, e);
                    Err(Stop(Exit::Io))
                }
            },
            None => Ok(Sink::File(file)),
        }
    }

    /// Names a failed write into `sink` on stderr as the output's trouble (with the byte it
    /// failed at; the temporary file goes when `sink` is dropped, the output is left as it
    /// was) and returns the stop.
    pub(crate) fn write_failed(&self, sink: &Sink, source: std::io::Error) -> Stop {
        match sink {
            Sink::File(file) => failure(&file.write_error(source), ""),
            Sink::Compressed(file) => failure(&file.get_ref().write_error(source), ""),
            Sink::Memory(_) => {
                complain(&self.path, source);
                Stop(Exit::Io)
            }
        }
    }

    /// Puts the result in place: the file renamed over the output, or the bytes written
    /// to standard output.
    pub(crate) fn commit(&self, sink: Sink) -> Outcome {
        match sink {
            Sink::File(file) => file.commit().map_err(|e| failure(&e, "")),
            Sink::Compressed(file) => self.finished(file)?.commit().map_err(|e| failure(&e, "")),
            Sink::Memory(bytes) => write_output(self, &bytes),
        }
    }

    /// The compressed stream's end written into its file.
    fn finished(&self, file: Encoder<output::AtomicFile>) -> Outcome<output::AtomicFile> {
        let path = self.path.clone();
        file.finish().map_err(|e| {
            complain(&path, format_args!("cannot write: {e}; left untouched"));
            Stop(Exit::Io)
        })
    }

    /// [`commit`](Self::commit) with `side_bytes` as `side`'s file, one only its owner may
    /// read (what undoes a scrub), so that both land or neither
    /// ([`output::commit_with_private_companion`]). To standard output, the side file is
    /// written once the bytes are out, so a failing pipe leaves no side file.
    pub(crate) fn commit_with_private_side(
        &self,
        sink: Sink,
        side: &Destination,
        side_bytes: &[u8],
    ) -> Outcome {
        match sink {
            Sink::File(file) => {
                output::commit_with_private_companion(file, &side.path, side.overwrite, side_bytes)
                    .map_err(|e| failure(&e, ""))
            }
            Sink::Compressed(file) => output::commit_with_private_companion(
                self.finished(file)?,
                &side.path,
                side.overwrite,
                side_bytes,
            )
            .map_err(|e| failure(&e, "")),
            Sink::Memory(bytes) => {
                write_output(self, &bytes)?;
                output::write_atomically_private(&side.path, side.overwrite, side_bytes)
                    .map_err(|e| failure(&e, ""))
            }
        }
    }
}

/// Writes `bytes` as the destination's file, atomically: on failure nothing is left
/// behind and an existing file there is untouched. The one way the CLI writes a file (with
/// [`Destination::sink`] for a result streamed into its file); a name that ends in a
/// codec's extension (`.gz`, `.zst`, `.xz`, `.bz2`) gets the bytes compressed with it. To
/// standard output, the bytes are written and flushed.
pub(crate) fn write_output(destination: &Destination, bytes: &[u8]) -> Outcome {
    if destination.stdout {
        let mut out = Output::new();
        out.write_bytes(bytes)?;
        return out.flush();
    }
    if Codec::by_extension(&destination.path).is_some() {
        let mut sink = destination.sink()?;
        if let Err(e) = sink.write_all(bytes) {
            return Err(destination.write_failed(&sink, e));
        }
        return destination.commit(sink);
    }
    output::write_atomically(&destination.path, destination.overwrite, bytes)
        .map_err(|e| failure(&e, ""))
}

/// Writes `bytes` as the destination's file, atomically, for its owner only to read (see
/// [`output::write_atomically_private`]): a file that undoes a scrub.
pub(crate) fn write_private(destination: &Destination, bytes: &[u8]) -> Outcome {
    output::write_atomically_private(&destination.path, destination.overwrite, bytes)
        .map_err(|e| failure(&e, ""))
}
