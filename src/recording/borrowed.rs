//! The entry point over bytes it does not own: a front end that holds a file's bytes
//! already (the tables read many files, each once) has the format chosen and the
//! operation forwarded without the bytes being copied into a [`Recording`].

use super::{Error, Format, Recording, supported};
use crate::format::{GameEnd, Input, RecordingFormat};
use crate::model::{GameFacts, GameOptions, GameSink};

impl Recording {
    /// The format of `data` and the game's facts its header gives ([`facts`](Self::facts)
    /// of bytes that are not held in a `Recording`); bytes that are no recording demokit
    /// reads are [`Error::UnknownFormat`].
    pub fn facts_of_bytes(data: &[u8]) -> Result<(Format, GameFacts), Error> {
        let format = supported(data)?;
        let input = Input::from_bytes(data);
        let facts = forward!(format, F => F::facts(input))?;
        Ok((format, facts))
    }

    /// The format of `data` and its game stream ([`game`](Self::game) of bytes that are
    /// not held in a `Recording`): the outer error says the bytes are no recording demokit
    /// reads ([`Error::UnknownFormat`]), the inner one that the recording's start does not
    /// read.
    pub fn game_of_bytes(
        data: &[u8],
        options: &GameOptions,
        sink: &mut dyn GameSink,
    ) -> Result<(Format, Result<GameEnd, Error>), Error> {
        let format = supported(data)?;
        let input = Input::from_bytes(data);
        let end = forward!(format, F => F::game(input, options, sink));
        Ok((format, end))
    }
}
