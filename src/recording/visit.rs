//! Work of a front end's own, per format, with the entry point choosing the format: a
//! [`Visitor`] has a method for each format demokit reads, and
//! [`Recording::visit`](super::Recording::visit) (or [`Recording::visit_bytes`]) calls the
//! one the recording's magic names. The tables (`export`) build their rows this way, so
//! that no front end tells formats apart itself.

use super::{Error, Format, Recording, Source, supported};
use crate::teehistorian::TeehistorianReader;
use std::fs::File;

/// A teehistorian file as a stream: its header read, at its first message.
pub type TeehistorianStream = TeehistorianReader<File>;

/// What a front end does with a recording of each format.
pub trait Visitor {
    /// What each method gives.
    type Output;
    /// A Teeworlds/DDNet demo, whole.
    fn twdemo(&mut self, data: &[u8]) -> Self::Output;
    /// A teehistorian file, whole (also one whose header does not read as a stream, so
    /// that the slice reader can say why).
    fn teehistorian(&mut self, data: &[u8]) -> Self::Output;
    /// A teehistorian file read as a stream, so that its length costs no memory; `len` is
    /// the file's size.
    fn teehistorian_stream(&mut self, reader: TeehistorianStream, len: u64) -> Self::Output;
    /// A Source engine demo, whole.
    fn source(&mut self, data: &[u8]) -> Self::Output;
}

/// Calls the visitor's method for `format`.
fn dispatch<V: Visitor>(format: Format, data: &[u8], visitor: &mut V) -> Option<V::Output> {
    match format {
        Format::TwDemo => Some(visitor.twdemo(data)),
        Format::Teehistorian => Some(visitor.teehistorian(data)),
        Format::SourceDemo => Some(visitor.source(data)),
        _ => None,
    }
}

impl Recording {
    /// Hands `data` to the visitor's method for its format (without copying it), and says
    /// which format that was; bytes that are no recording demokit reads are
    /// [`Error::UnknownFormat`].
    pub fn visit_bytes<V: Visitor>(
        data: &[u8],
        visitor: &mut V,
    ) -> Result<(Format, V::Output), Error> {
        let format = supported(data)?;
        match dispatch(format, data, visitor) {
            Some(output) => Ok((format, output)),
            None => Err(Error::UnknownFormat {
                format: Some(format),
                message: format!("{} files are not read by demokit", format.name()),
            }),
        }
    }

    /// The format of `data` and the game's facts its header gives ([`facts`](Self::facts)
    /// of bytes that are not held in a `Recording`); bytes that are no recording demokit
    /// reads are [`Error::UnknownFormat`].
    pub fn facts_of_bytes(data: &[u8]) -> Result<(Format, crate::model::GameFacts), Error> {
        use crate::format::{Input, RecordingFormat};
        let format = supported(data)?;
        let input = Input::from_bytes(data);
        let facts = forward!(format, F => F::facts(input))?;
        Ok((format, facts))
    }

    /// Hands the recording to the visitor's method for its format: a teehistorian file on
    /// disk as a stream, anything else whole.
    pub fn visit<V: Visitor>(&self, visitor: &mut V) -> Result<V::Output, Error> {
        if let (Source::Path(path), Format::Teehistorian) = (&self.source, self.format) {
            let file = File::open(path).map_err(Error::read)?;
            let len = file.metadata().map_err(Error::read)?.len();
            // A header that does not read is read again whole, for the slice reader's
            // account of it.
            if let Ok(reader) = TeehistorianReader::new(file) {
                return Ok(visitor.teehistorian_stream(reader, len));
            }
        }
        let data = self.bytes()?;
        match dispatch(self.format, &data, visitor) {
            Some(output) => Ok(output),
            None => Err(self.unsupported(super::Operation::Summary)),
        }
    }
}
