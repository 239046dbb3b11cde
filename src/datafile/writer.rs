//! Writing a datafile: items grouped by type and data blocks compressed with zlib, laid out
//! as DDNet's `CDataFileWriter` lays them out (version 4, `size` and `swaplen` counting the
//! inflated-size table). Enough to build maps for tests and crafted demos; it does not
//! try to reproduce another writer's bytes.

use super::format::*;
use flate2::Compression;
use flate2::write::ZlibEncoder;
use std::io::Write;

/// Why a datafile cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DatafileWriteError {
    /// A type or id does not fit the 16 bits of an item key.
    #[error("item type {type_id} or id {id} is outside 0..=65535")]
    BadKey {
        /// The type.
        type_id: i32,
        /// The id.
        id: i32,
    },
    /// The file would be larger than the format's 32-bit sizes allow.
    #[error("the datafile would exceed the format's 2 GiB limit")]
    TooLarge,
    /// zlib failed to compress a data block.
    #[error("compressing data block {block} failed: {kind}")]
    Compress {
        /// The block's index.
        block: usize,
        /// What zlib's writer reported.
        kind: std::io::ErrorKind,
    },
}

/// Collects items and data blocks, then writes the datafile.
#[derive(Debug, Clone, Default)]
pub struct DatafileBuilder {
    items: Vec<(u16, u16, Vec<i32>)>,
    data: Vec<Vec<u8>>,
}

impl DatafileBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an item of `type_id` and `id` holding `ints`.
    pub fn add_item(
        &mut self,
        type_id: i32,
        id: i32,
        ints: &[i32],
    ) -> Result<(), DatafileWriteError> {
        let (Ok(t), Ok(i)) = (u16::try_from(type_id), u16::try_from(id)) else {
            return Err(DatafileWriteError::BadKey { type_id, id });
        };
        self.push_item(t, i, ints);
        Ok(())
    }

    /// [`add_item`](Self::add_item) for a key already in range.
    pub(crate) fn push_item(&mut self, type_id: u16, id: u16, ints: &[i32]) {
        self.items.push((type_id, id, ints.to_vec()));
    }

    /// Adds a data block and returns its index.
    pub fn add_data(&mut self, bytes: &[u8]) -> i32 {
        self.data.push(bytes.to_vec());
        self.data.len() as i32 - 1
    }

    /// Writes the version-4 datafile: item types in ascending order, items of one type in
    /// the order they were added, every data block zlib-compressed.
    pub fn finish(&self) -> Result<Vec<u8>, DatafileWriteError> {
        // A stable sort: items of one type keep their order.
        let mut order: Vec<&(u16, u16, Vec<i32>)> = self.items.iter().collect();
        order.sort_by_key(|item| item.0);
        let mut types: Vec<ItemType> = Vec::new();
        for (position, &&(type_id, ..)) in order.iter().enumerate() {
            let type_id = type_id as i32;
            match types.last_mut() {
                Some(t) if t.type_id == type_id => t.num += 1,
                _ => types.push(ItemType {
                    type_id,
                    start: position as i32,
                    num: 1,
                }),
            }
        }
        let mut item_bytes = Vec::new();
        let mut item_offsets = Vec::with_capacity(order.len());
        for &(type_id, id, ints) in &order {
            item_offsets.push(item_bytes.len() as i64);
            let key = ((*type_id as u32) << 16) | *id as u32;
            item_bytes.extend_from_slice(&key.to_le_bytes());
            item_bytes.extend_from_slice(&((ints.len() * 4) as i32).to_le_bytes());
            for v in ints {
                item_bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        let mut data_bytes = Vec::new();
        let mut data_offsets = Vec::with_capacity(self.data.len());
        for (index, block) in self.data.iter().enumerate() {
            data_offsets.push(data_bytes.len() as i64);
            let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
            let compressed = z.write_all(block).and_then(|()| z.finish());
            let compressed = compressed.map_err(|e| DatafileWriteError::Compress {
                block: index,
                kind: e.kind(),
            })?;
            data_bytes.extend(compressed);
        }
        let to_i32 = |v: i64| i32::try_from(v).map_err(|_| DatafileWriteError::TooLarge);
        let n_data = self.data.len() as i64;
        let tables =
            ITEM_TYPE_SIZE as i64 * types.len() as i64 + 4 * order.len() as i64 + 8 * n_data;
        let total = HEADER_SIZE as i64 + tables + item_bytes.len() as i64 + data_bytes.len() as i64;
        let header = [
            to_i32(VERSION_COMPRESSED as i64)?,
            to_i32(total - HEADER_SIZE_OFFSET)?,
            to_i32(total - data_bytes.len() as i64 - HEADER_SIZE_OFFSET)?,
            to_i32(types.len() as i64)?,
            to_i32(order.len() as i64)?,
            to_i32(n_data)?,
            to_i32(item_bytes.len() as i64)?,
            to_i32(data_bytes.len() as i64)?,
        ];
        let mut out = Vec::with_capacity(total as usize);
        out.extend_from_slice(&MAGIC);
        for v in header {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for t in &types {
            for v in [t.type_id, t.start, t.num] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for v in item_offsets.iter().chain(&data_offsets) {
            out.extend_from_slice(&to_i32(*v)?.to_le_bytes());
        }
        for block in &self.data {
            out.extend_from_slice(&to_i32(block.len() as i64)?.to_le_bytes());
        }
        out.extend_from_slice(&item_bytes);
        out.extend_from_slice(&data_bytes);
        Ok(out)
    }
}
