//! The datafile reader and DDNet's map-load checks on real maps: the files in
//! the corpus's `real-fixtures/maps` and the maps embedded in every real demo.

use crate::common;

use demokit::datafile::{Datafile, MapFacts, check_load};
use demokit::twdemo::DemoSlice;

#[test]
fn real_maps_open_and_load() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let dir = shared.join("real-fixtures/maps");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let file = Datafile::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(file.version(), 4, "{}", path.display());
        check_load(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let facts = MapFacts::read(&bytes).unwrap();
        assert!(facts.loads);
        assert_eq!(facts.map_version, Some(1), "{}", path.display());
        assert!(facts.game_layer.is_some(), "{}", path.display());
        assert!(facts.groups >= 1 && facts.layers.tiles >= 1);
        // Every data block of a real map inflates to its declared size.
        for index in 0..file.num_data() {
            let data = file.data(index as i64).unwrap();
            assert_eq!(data.len() as u64, file.data_size(index).unwrap());
        }
        seen += 1;
    }
    assert_eq!(seen, 4);
}

/// dm1_2008-01.map is from a writer that left the inflated-size table out of the header's
/// size fields; DDNet fixes that when it opens the file, and so does the reader.
#[test]
fn old_writer_size_quirk_is_forgiven() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let bytes = std::fs::read(shared.join("real-fixtures/maps/dm1_2008-01.map")).unwrap();
    let file = Datafile::parse(&bytes).unwrap();
    assert!(file.header_fixed());
    let fresh = std::fs::read(shared.join("real-fixtures/maps/dm1_0.6.map")).unwrap();
    assert!(!Datafile::parse(&fresh).unwrap().header_fixed());
}

#[test]
fn maps_embedded_in_real_demos_load() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    for (path, _) in common::twdemo_facts(&shared) {
        let data = std::fs::read(&path).unwrap();
        let demo = DemoSlice::parse(&data).unwrap();
        check_load(demo.map()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let facts = MapFacts::read(demo.map()).unwrap();
        assert_eq!(facts.size, demo.map().len() as u64);
        assert_eq!(
            facts.crc32,
            format!("{:08x}", demo.prelude().header.map_crc)
        );
    }
}
