//! Tells recording formats apart by their first bytes.

/// A recording format demokit knows of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Format {
    /// Teeworlds/DDNet demo (`TWDEMO\0`).
    TwDemo,
    /// DDNet teehistorian (starts with its 16-byte UUID).
    Teehistorian,
    /// Source engine demo (`HL2DEMO\0`).
    SourceDemo,
    /// GoldSrc (Half-Life 1) demo (`HLDEMO\0`): a different format.
    GoldSrcDemo,
    /// Source 2 demo (`PBDEMS2\0`): a different format.
    Source2Demo,
}

impl Format {
    /// A human-readable name.
    pub const fn name(self) -> &'static str {
        match self {
            Format::TwDemo => "Teeworlds/DDNet demo (TWDEMO)",
            Format::Teehistorian => "DDNet teehistorian",
            Format::SourceDemo => "Source engine demo (HL2DEMO)",
            Format::GoldSrcDemo => "GoldSrc demo (HLDEMO)",
            Format::Source2Demo => "Source 2 demo (PBDEMS2)",
        }
    }
}

/// The teehistorian file UUID ([`FILE_UUID`](crate::teehistorian::format::FILE_UUID)).
pub const TEEHISTORIAN_UUID: [u8; 16] = crate::teehistorian::format::FILE_UUID;

/// The format `data` starts like, if any, told by each format's own magic.
///
/// A non-empty input that is cut off inside the demo magic counts as a demo, so that the
/// demo reader can say where it ends rather than the caller calling it unknown.
pub fn detect(data: &[u8]) -> Option<Format> {
    use crate::source::format::{GOLDSRC_MAGIC, MAGIC as SOURCE_MAGIC, SOURCE2_MAGIC};
    use crate::teehistorian::format::FILE_UUID;
    use crate::twdemo::format::MAGIC as TWDEMO_MAGIC;
    let twdemo_prefix =
        !data.is_empty() && TWDEMO_MAGIC.starts_with(&data[..data.len().min(TWDEMO_MAGIC.len())]);
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
