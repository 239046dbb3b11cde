//! Reading an input file and telling its format from its magic bytes.

use super::output::complain;
use super::{Exit, Outcome, Stop};
use demokit::detect::{self, Format};
use std::path::Path;

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
                "unknown format: the file starts with {} ({:?}), which is no known magic (a \
                 Teeworlds/DDNet demo starts with \"TWDEMO\\0\", a DDNet teehistorian file \
                 with the UUID 699db17b-8efb-34ff-b1d8-da6f60c15dd1, a Source demo with \
                 \"HL2DEMO\\0\")",
                hex::encode(head),
                String::from_utf8_lossy(head)
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

/// Reads a whole file, or says why it could not.
pub(crate) fn load(file: &Path) -> Outcome<Vec<u8>> {
    std::fs::read(file).map_err(|e| {
        complain(file, format_args!("cannot read: {e}"));
        Stop(Exit::Io)
    })
}

/// Reads `file` and checks that it is a demo or a teehistorian file, refusing other formats.
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
