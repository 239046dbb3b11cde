//! Tells recording formats apart by their first bytes: each format's magic, read from
//! the format's own constants.

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

pub use crate::format::Format;

/// The teehistorian file UUID ([`FILE_UUID`](crate::teehistorian::format::FILE_UUID)).
pub const TEEHISTORIAN_UUID: [u8; 16] = crate::teehistorian::format::FILE_UUID;

/// The format `data` starts like, if any, told by each format's own magic.
///
/// A non-empty input that is cut off inside the demo magic counts as a demo, so that the
/// demo reader can say where it ends rather than the caller calling it unknown.
pub fn detect(data: &[u8]) -> Option<Format> {
    use crate::source::format::{GOLDSRC_MAGIC, MAGIC as SOURCE_MAGIC, SOURCE2_MAGIC};
    use crate::teehistorian::format::FILE_UUID;
    use crate::twdemo::container::format::MAGIC as TWDEMO_MAGIC;
    let twdemo_prefix =
        !data.is_empty() && data.iter().zip(TWDEMO_MAGIC.iter()).all(|(a, b)| a == b);
    if twdemo_prefix {
        Some(Format::TwDemo)
    } else if data.starts_with(&FILE_UUID) {
        Some(Format::Teehistorian)
    } else if data.starts_with(&SOURCE_MAGIC) {
        Some(Format::SourceDemo)
    } else if data.starts_with(&GOLDSRC_MAGIC[..7]) {
        // The first seven bytes, as the Source reader compares them when it names GoldSrc.
        Some(Format::GoldSrcDemo)
    } else if data.starts_with(&SOURCE2_MAGIC) {
        Some(Format::Source2Demo)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_off_demo_magic_is_a_demo() {
        assert_eq!(detect(b"TWD"), Some(Format::TwDemo));
        assert_eq!(detect(b"TWDEMO\0\x06"), Some(Format::TwDemo));
        assert_eq!(detect(b""), None);
        assert_eq!(detect(b"TWX"), None);
        assert_eq!(detect(b"HLDEMO\0\0"), Some(Format::GoldSrcDemo));
    }
}
