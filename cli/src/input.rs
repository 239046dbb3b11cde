//! Reading an input file (`-`: standard input) and telling its format from its magic
//! bytes.

use super::output::complain;
use super::{Exit, Outcome, Stop};
use demokit::detect::{self, Format};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Whether `path` is `-`: standard input (as an OUTPUT: standard output). A file named
/// `-` is still reachable as `./-`.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// An opened input: a file, or standard input for `-`.
pub(crate) enum Input {
    /// A file.
    File(File),
    /// Standard input.
    Stdin(io::Stdin),
}

impl Input {
    /// Opens `path`, or standard input for `-`.
    pub(crate) fn open(path: &Path) -> io::Result<Input> {
        if is_stdin(path) {
            Ok(Input::Stdin(io::stdin()))
        } else {
            File::open(path).map(Input::File)
        }
    }

    /// The size in bytes, when the input is a file that says it.
    pub(crate) fn len_hint(&self) -> Option<u64> {
        match self {
            Input::File(file) => file.metadata().ok().map(|m| m.len()),
            Input::Stdin(_) => None,
        }
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::File(file) => file.read(buf),
            Input::Stdin(stdin) => stdin.read(buf),
        }
    }
}

/// The supported format `head` (the first bytes of a file, at least 16 unless the file is
/// shorter) starts like, or why the file is refused (without the "at byte 0: ").
pub(crate) fn supported(head: &[u8]) -> Result<Format, String> {
    match detect::detect(head) {
        Some(format @ (Format::TwDemo | Format::Teehistorian | Format::SourceDemo)) => Ok(format),
        Some(format @ (Format::GoldSrcDemo | Format::Source2Demo)) => Err(format!(
            "{} is a different format from Source's HL2DEMO (and from Teeworlds/DDNet \
             recordings) and is refused",
            format.name()
        )),
        None if head.is_empty() => Err("the file is empty (unknown format)".into()),
        None => {
            let head = &head[..head.len().min(8)];
            Err(format!(
                "unknown format: the file starts with {} (\"{}\"), which is no known magic (a \
                 Teeworlds/DDNet demo starts with \"TWDEMO\\0\", a DDNet teehistorian file \
                 with the UUID 699db17b-8efb-34ff-b1d8-da6f60c15dd1, a Source demo with \
                 \"HL2DEMO\\0\")",
                hex::encode(head),
                head.escape_ascii()
            ))
        }
    }
}

/// The name of a supported format in JSON output, as the summaries spell it.
pub(crate) fn format_id(format: Format) -> &'static str {
    match format {
        Format::Teehistorian => "teehistorian",
        Format::SourceDemo => "source",
        _ => "twdemo",
    }
}

/// Reads a whole file (standard input for `-`), or says why it could not.
pub(crate) fn load(file: &Path) -> Outcome<Vec<u8>> {
    let read = || -> io::Result<Vec<u8>> {
        let mut input = Input::open(file)?;
        let mut data = Vec::new();
        data.reserve_exact(usize::try_from(input.len_hint().unwrap_or(0)).unwrap_or(0));
        input.read_to_end(&mut data)?;
        Ok(data)
    };
    read().map_err(|e| {
        complain(file, format_args!("cannot read: {e}"));
        Stop(Exit::Io)
    })
}

/// Reads `file` and checks that it is a Teeworlds demo, teehistorian file or Source demo,
/// refusing other formats.
pub(crate) fn load_supported(file: &Path) -> Outcome<(Format, Vec<u8>)> {
    let data = load(file)?;
    match supported(&data) {
        Ok(format) => Ok((format, data)),
        Err(why) => {
            complain(file, format_args!("at byte 0: {why}"));
            Err(Stop(Exit::Invalid))
        }
    }
}
