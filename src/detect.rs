//! Tells recording formats apart by their first bytes.

/// A recording format demokit knows of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Format {
    /// Teeworlds/DDNet demo (`TWDEMO\0`).
    #[cfg_attr(feature = "serde", serde(rename = "twdemo"))]
    TwDemo,
    /// DDNet teehistorian (starts with its 16-byte UUID).
    #[cfg_attr(feature = "serde", serde(rename = "teehistorian"))]
    Teehistorian,
    /// Source engine demo (`HL2DEMO\0`).
    #[cfg_attr(feature = "serde", serde(rename = "source"))]
    SourceDemo,
    /// GoldSrc (Half-Life 1) demo (`HLDEMO\0`): a different format.
    #[cfg_attr(feature = "serde", serde(rename = "goldsrc"))]
    GoldSrcDemo,
    /// Source 2 demo (`PBDEMS2\0`): a different format.
    #[cfg_attr(feature = "serde", serde(rename = "source2"))]
    Source2Demo,
}

impl Format {
    /// The format's short name in JSON, the tables and Python ("twdemo", "teehistorian",
    /// "source", "goldsrc", "source2"): its serde name.
    pub const fn id(self) -> &'static str {
        match self {
            Format::TwDemo => "twdemo",
            Format::Teehistorian => "teehistorian",
            Format::SourceDemo => "source",
            Format::GoldSrcDemo => "goldsrc",
            Format::Source2Demo => "source2",
        }
    }

    /// Whether demokit reads recordings of this format (the others it only names).
    pub const fn is_read(self) -> bool {
        matches!(
            self,
            Format::TwDemo | Format::Teehistorian | Format::SourceDemo
        )
    }

    /// The file-name extensions recordings of this format carry (without the dot): a
    /// file found under a directory with one of them is taken as meant to be a recording,
    /// and is an error, not a file passed over, when it is none.
    pub const fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::TwDemo => &["demo"],
            Format::Teehistorian => &["teehistorian"],
            // GoldSrc and Source 2 demos are `.dem` files too.
            Format::SourceDemo | Format::GoldSrcDemo | Format::Source2Demo => &["dem"],
        }
    }

    /// The formats whose files carry the extension of `path` (compared without regard to
    /// case), if any: `.demo`, `.teehistorian` and `.dem`.
    pub fn by_extension(path: &std::path::Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?;
        [Format::TwDemo, Format::Teehistorian, Format::SourceDemo]
            .into_iter()
            .find(|f| {
                f.extensions()
                    .iter()
                    .any(|e| e.eq_ignore_ascii_case(extension))
            })
    }

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
    use crate::twdemo::container::format::MAGIC as TWDEMO_MAGIC;
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
