//! Source engine maps (Valve BSP, `VBSP`): the little of a compiled map that a top-down
//! picture needs, and Valve's overview descriptions.
//!
//! [`World::read`] takes the bytes of a `.bsp` file of version 19, 20 or 21 (HL2, CS:S,
//! TF2, Portal, Left 4 Dead 1 and 2, Portal 2, CS:GO; Left 4 Dead 2's lump directory,
//! which stores each entry as {version, offset, length} rather than {offset, length,
//! version}, is told apart by which reading puts the lumps inside the file) and returns a
//! format-neutral [`World`]: the map's drawn surfaces as [`Polygon`]s of 3D points, each a
//! [`SurfaceKind::Floor`] (facing up) or a [`SurfaceKind::Wall`] (steep), with the
//! bounds. Ceilings (facing down) are left out, and so are the faces whose texture is sky,
//! `nodraw`, a trigger, `skip` or `hint`. Displacements (terrain: many maps' floors) are
//! read from the displacement infos and vertices and given as small quads.
//!
//! Only planes, vertices, edges, surface edges, faces, texture infos and displacements are
//! read; every header and record is a declarative binrw struct. Each count and offset is
//! checked against the file before anything is allocated, and what the lumps hold can
//! only make as many points as the file has surface edges and displacement vertices: no
//! input panics, hangs or allocates without bound. Compressed lumps (LZMA, some TF2 and
//! CS:GO maps) are refused with [`BspErrorKind::CompressedLump`].
//!
//! [`Overview::parse`] reads a `resource/overview/<map>.txt` (Valve KeyValues text) for
//! the calibration of an overview image: world (x, y) lands on image pixel
//! ((x - `pos_x`) / `scale`, (`pos_y` - y) / `scale`).
//!
//! What this layer leaves to others: drawing (`demokit::render`), textures, lighting,
//! entities, props and the visibility tree, and finding the files (the front ends).

// No indexing or slicing that could panic: every access is checked or proven in range.
#![deny(clippy::indexing_slicing)]

use binrw::{BinRead, binrw};
use std::io::Cursor;

/// The four bytes every Valve BSP file starts with.
pub const MAGIC: [u8; 4] = *b"VBSP";
/// The BSP versions read: 19 (HL2, CS:S), 20 (TF2, Portal, L4D1), 21 (L4D2, Portal 2,
/// CS:GO).
pub const VERSIONS: std::ops::RangeInclusive<i32> = 19..=21;
/// Entries of the lump directory.
pub const LUMP_COUNT: usize = 64;
/// Size of [`Header`]: magic, version, 64 directory entries, map revision.
pub const HEADER_SIZE: usize = 8 + LUMP_COUNT * 16 + 4;
/// Texture flags of faces that are never drawn (`SURF_SKY2D`, `SURF_SKY`,
/// `SURF_TRIGGER`, `SURF_NODRAW`, `SURF_HINT`, `SURF_SKIP`).
pub const HIDDEN_FLAGS: i32 = 0x2 | 0x4 | 0x40 | 0x80 | 0x100 | 0x200;
/// A polygon whose normal's z is at least this faces up: a floor (45.6°, the slope a
/// player can stand on).
pub const FLOOR_NORMAL_Z: f32 = 0.7;
/// The most quads one displacement is given as (a side of 4): enough for a top-down
/// picture's shading, where a full power-4 displacement has 256.
pub const MAX_DISP_QUADS_PER_SIDE: usize = 4;

/// The lumps read, by their index in the directory.
pub mod lump {
    /// `dplane_t`.
    pub const PLANES: usize = 1;
    /// `dvertex_t` (the vertex positions).
    pub const VERTICES: usize = 3;
    /// `texinfo_t`.
    pub const TEXINFO: usize = 6;
    /// `dface_t`, the faces drawn with the low-dynamic-range lighting.
    pub const FACES: usize = 7;
    /// `dedge_t`.
    pub const EDGES: usize = 12;
    /// Signed edge indices, the faces' outlines.
    pub const SURFEDGES: usize = 13;
    /// `ddispinfo_t`.
    pub const DISPINFO: usize = 26;
    /// `CDispVert`.
    pub const DISP_VERTS: usize = 33;
    /// The faces of a map compiled with HDR lighting only (then [`FACES`] is empty).
    pub const FACES_HDR: usize = 58;
}

/// One lump directory entry as stored: three integers and a four-byte code, whose meaning
/// depends on the [`LumpOrder`].
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RawLump {
    /// Offset (standard order) or version (Left 4 Dead 2).
    pub a: i32,
    /// Length (standard) or offset (Left 4 Dead 2).
    pub b: i32,
    /// Version (standard) or length (Left 4 Dead 2).
    pub c: i32,
    /// The uncompressed length of an LZMA-compressed lump, else zeros.
    pub four_cc: [u8; 4],
}

/// The 1036-byte file header.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `"VBSP"` in a valid file; kept raw so that the reader can say what it found.
    pub magic: [u8; 4],
    /// The BSP version.
    pub version: i32,
    /// The lump directory.
    pub lumps: [RawLump; LUMP_COUNT],
    /// How many times the map was saved in the editor.
    pub map_revision: i32,
}

/// How a lump directory entry orders its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LumpOrder {
    /// {offset, length, version, four-byte code}: every game but Left 4 Dead 2.
    Standard,
    /// {version, offset, length, four-byte code}: Left 4 Dead 2.
    Left4Dead2,
}

/// Where a lump lies in the file, as the directory says once its order is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LumpEntry {
    /// Its first byte.
    pub offset: i64,
    /// Its length in bytes.
    pub length: i64,
    /// The lump's own version.
    pub version: i32,
    /// Non-zero when the lump is LZMA-compressed.
    pub four_cc: [u8; 4],
}

impl LumpOrder {
    /// The entry `raw` read in this order.
    pub fn entry(self, raw: &RawLump) -> LumpEntry {
        let (offset, length, version) = match self {
            LumpOrder::Standard => (raw.a, raw.b, raw.c),
            LumpOrder::Left4Dead2 => (raw.b, raw.c, raw.a),
        };
        LumpEntry {
            offset: i64::from(offset),
            length: i64::from(length),
            version,
            four_cc: raw.four_cc,
        }
    }
}

impl LumpEntry {
    /// Whether the lump is empty, or lies within a file of `file_len` bytes after the
    /// header.
    pub fn fits(&self, file_len: usize) -> bool {
        self.length == 0
            || (self.offset >= HEADER_SIZE as i64
                && self.length > 0
                && self.offset + self.length <= file_len as i64)
    }
}

/// A plane (`dplane_t`, 20 bytes).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    /// Unit normal.
    pub normal: [f32; 3],
    /// Distance from the origin along the normal.
    pub dist: f32,
    /// Axis type (0-5).
    pub kind: i32,
}

/// An edge (`dedge_t`, 4 bytes): two vertex indices.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// First and second vertex.
    pub vertices: [u16; 2],
}

/// A face (`dface_t`, 56 bytes in versions 19 to 21).
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Face {
    /// Index of its plane.
    pub plane: u16,
    /// Non-zero when the face looks the other way from its plane's normal.
    pub side: u8,
    /// Whether the face lies on a node (rather than a leaf).
    pub on_node: u8,
    /// Index of its first surface edge.
    pub first_edge: i32,
    /// How many surface edges outline it.
    pub edge_count: i16,
    /// Index of its texture info (-1: none).
    pub texinfo: i16,
    /// Index of its displacement info (-1: not a displacement).
    pub dispinfo: i16,
    /// Fog volume.
    pub fog_volume: i16,
    /// Light styles.
    pub styles: [u8; 4],
    /// Offset of its lightmap.
    pub light_offset: i32,
    /// Area in square units.
    pub area: f32,
    /// Lightmap extents.
    pub lightmap_mins: [i32; 2],
    /// Lightmap size.
    pub lightmap_size: [i32; 2],
    /// The original face it was split from.
    pub original_face: i32,
    /// Primitive count.
    pub primitive_count: u16,
    /// First primitive.
    pub first_primitive: u16,
    /// Smoothing groups.
    pub smoothing_groups: u32,
}

/// A texture info (`texinfo_t`, 72 bytes); only the flags are used.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TexInfo {
    /// Texture projection vectors.
    pub texture_vecs: [[f32; 4]; 2],
    /// Lightmap projection vectors.
    pub lightmap_vecs: [[f32; 4]; 2],
    /// `SURF_*` flags (see [`HIDDEN_FLAGS`]).
    pub flags: i32,
    /// Index of its texture data.
    pub texdata: i32,
}

/// A displacement info (`ddispinfo_t`, 176 bytes); the neighbour tables are skipped.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DispInfo {
    /// The corner of the base face the vertex grid starts at.
    pub start: [f32; 3],
    /// Index of its first displacement vertex.
    pub first_vertex: i32,
    /// Index of its first displacement triangle.
    pub first_triangle: i32,
    /// 2, 3 or 4: the grid has 2^power + 1 vertices a side.
    pub power: i32,
    /// Minimum tessellation.
    pub min_tess: i32,
    /// Smoothing angle.
    pub smoothing_angle: f32,
    /// Contents flags.
    pub contents: i32,
    /// The face it displaces.
    pub map_face: u16,
    /// Padding, then lightmap data, then neighbour tables and allowed vertices.
    #[br(pad_before = 2, pad_after = 136)]
    #[bw(pad_before = 2, pad_after = 136)]
    pub lightmap_alpha_start: i32,
}

/// A displacement vertex (`CDispVert`, 20 bytes): the offset from the base face.
#[binrw]
#[brw(little)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DispVert {
    /// Unit direction of the offset.
    pub direction: [f32; 3],
    /// Its length.
    pub distance: f32,
    /// Blend alpha.
    pub alpha: f32,
}

/// A BSP file could not be read past its `offset`.
pub type BspError = crate::read::ReadError<BspErrorKind>;

/// The ways reading a BSP file can fail.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BspErrorKind {
    /// The file does not start with `"VBSP"`.
    #[error("expected the stamp \"VBSP\", found {}", crate::read::HexBytes(.found))]
    BadMagic {
        /// The first bytes of the file (fewer than 4 if it is that short).
        found: Vec<u8>,
    },
    /// A version other than 19, 20 or 21.
    #[error("BSP version {version} is not read (versions 19 to 21 are)")]
    UnsupportedVersion {
        /// The version.
        version: i32,
    },
    /// The input ended inside an element.
    #[error("expected {expected}, but only {available} bytes remain")]
    UnexpectedEnd {
        /// What was being read.
        expected: &'static str,
        /// Bytes that were left.
        available: u64,
    },
    /// A lump lies (partly) outside the file.
    #[error("lump {lump} ({length} bytes at {offset}) lies outside the file of {file_len} bytes")]
    LumpOutsideFile {
        /// The lump's index.
        lump: usize,
        /// Its offset as the directory says.
        offset: i64,
        /// Its length.
        length: i64,
        /// The file's length.
        file_len: usize,
    },
    /// A lump's length is not a whole number of its records.
    #[error("lump {lump} is {length} bytes long, not a multiple of its {record}-byte records")]
    LumpNotWhole {
        /// The lump's index.
        lump: usize,
        /// Its length.
        length: i64,
        /// The record size.
        record: usize,
    },
    /// An LZMA-compressed lump: not read.
    #[error("lump {lump} is LZMA-compressed, which is not read (decompress the map first)")]
    CompressedLump {
        /// The lump's index.
        lump: usize,
    },
    /// An index that points past its table.
    #[error("{what} {index} is out of range (there are {count})")]
    BadIndex {
        /// Which index.
        what: &'static str,
        /// Its value.
        index: i64,
        /// The table's length.
        count: usize,
    },
    /// The faces make more points than the file has surface edges and displacement
    /// vertices (faces sharing outlines over and over).
    #[error("the faces make more than {limit} points")]
    TooManyPoints {
        /// The limit for this file.
        limit: usize,
    },
}

impl crate::read::ErrorKind for BspErrorKind {
    fn is_truncation(&self) -> bool {
        matches!(
            self,
            BspErrorKind::UnexpectedEnd { .. } | BspErrorKind::LumpOutsideFile { .. }
        )
    }

    fn is_io(&self) -> bool {
        false
    }
}

/// What a surface is, seen from above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SurfaceKind {
    /// Facing up (normal z at least [`FLOOR_NORMAL_Z`]): somewhere to stand.
    Floor,
    /// Steep: drawn as an outline.
    Wall,
}

/// A drawn surface: a convex polygon (a displacement: one quad of its grid).
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    /// Floor or wall.
    pub kind: SurfaceKind,
    /// Its corners, in world units, in order around it.
    pub points: Vec<[f32; 3]>,
}

impl Polygon {
    /// The mean height of its corners.
    pub fn mean_z(&self) -> f32 {
        let n = self.points.len().max(1) as f32;
        self.points.iter().map(|p| p[2]).sum::<f32>() / n
    }
}

/// Counts of what the file held, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BspCounts {
    /// Planes.
    pub planes: usize,
    /// Vertices.
    pub vertices: usize,
    /// Edges.
    pub edges: usize,
    /// Surface edges.
    pub surfedges: usize,
    /// Faces (of the lump read: LDR, else HDR).
    pub faces: usize,
    /// Texture infos.
    pub texinfos: usize,
    /// Displacement infos.
    pub displacements: usize,
    /// Displacement vertices.
    pub disp_vertices: usize,
    /// Faces left out for their texture flags (sky, nodraw, trigger, skip, hint).
    pub hidden_faces: usize,
    /// Faces facing down, left out.
    pub ceilings: usize,
}

/// A map's surfaces as a top-down picture needs them; see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
pub struct World {
    /// The BSP version.
    pub version: i32,
    /// How the lump directory was ordered.
    pub lump_order: LumpOrder,
    /// What the file held.
    pub counts: BspCounts,
    /// The floors and walls.
    pub polygons: Vec<Polygon>,
    /// The smallest and the largest x, y, z over the polygons (zeros when there are none).
    pub bounds: [[f32; 3]; 2],
}

/// Whether `bytes` start like a Valve BSP file.
pub fn is_bsp(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

fn err(offset: usize, kind: BspErrorKind) -> BspError {
    BspError::new(offset as u64, kind)
}

/// Reads the header and tells the lump order apart.
fn header(bytes: &[u8]) -> Result<(Header, LumpOrder), BspError> {
    let found = bytes.get(..4).unwrap_or(bytes);
    if found != MAGIC {
        return Err(err(
            0,
            BspErrorKind::BadMagic {
                found: found.to_vec(),
            },
        ));
    }
    if bytes.len() < HEADER_SIZE {
        // Say the version first if there is one to say.
        if let Some(v) = bytes.get(4..8).and_then(|v| <[u8; 4]>::try_from(v).ok()) {
            let version = i32::from_le_bytes(v);
            if !VERSIONS.contains(&version) {
                return Err(err(4, BspErrorKind::UnsupportedVersion { version }));
            }
        }
        return Err(err(
            bytes.len().min(8),
            BspErrorKind::UnexpectedEnd {
                expected: "the 1036-byte BSP header",
                available: bytes.len().saturating_sub(8) as u64,
            },
        ));
    }
    let header = Header::read(&mut Cursor::new(bytes)).map_err(|_| {
        err(
            0,
            BspErrorKind::UnexpectedEnd {
                expected: "the BSP header",
                available: bytes.len() as u64,
            },
        )
    })?;
    if !VERSIONS.contains(&header.version) {
        return Err(err(
            4,
            BspErrorKind::UnsupportedVersion {
                version: header.version,
            },
        ));
    }
    // The order in which more of the non-empty lumps lie inside the file (less those
    // that do not); the standard one when both do equally. Read in the wrong order, a
    // lump's version (a small number) becomes its offset or its length.
    // A file cut short reads as mostly empty lumps in the wrong order: Left 4 Dead 2's
    // needs at least one lump inside the file.
    let score = |order: LumpOrder| {
        header
            .lumps
            .iter()
            .fold((0i64, 0usize), |(score, inside), raw| {
                let entry = order.entry(raw);
                match (entry.length == 0, entry.fits(bytes.len())) {
                    (true, _) => (score, inside),
                    (false, true) => (score + 1, inside + 1),
                    (false, false) => (score - 1, inside),
                }
            })
    };
    let (l4d2, l4d2_inside) = score(LumpOrder::Left4Dead2);
    let order = if l4d2 > score(LumpOrder::Standard).0 && l4d2_inside > 0 {
        LumpOrder::Left4Dead2
    } else {
        LumpOrder::Standard
    };
    Ok((header, order))
}

/// The bytes of lump `index`, checked against the file.
fn lump_bytes<'a>(
    bytes: &'a [u8],
    header: &Header,
    order: LumpOrder,
    index: usize,
    record: usize,
) -> Result<(&'a [u8], usize), BspError> {
    let entry_offset = 8 + index * 16;
    let Some(raw) = header.lumps.get(index) else {
        return Ok((&[], 0));
    };
    let entry = order.entry(raw);
    if entry.length == 0 {
        return Ok((&[], 0));
    }
    if !entry.fits(bytes.len()) {
        return Err(err(
            entry_offset,
            BspErrorKind::LumpOutsideFile {
                lump: index,
                offset: entry.offset,
                length: entry.length,
                file_len: bytes.len(),
            },
        ));
    }
    if entry.four_cc != [0; 4] {
        return Err(err(
            entry_offset,
            BspErrorKind::CompressedLump { lump: index },
        ));
    }
    if record == 0 || entry.length % record as i64 != 0 {
        return Err(err(
            entry_offset,
            BspErrorKind::LumpNotWhole {
                lump: index,
                length: entry.length,
                record,
            },
        ));
    }
    // `fits` proved 0 <= offset and offset + length <= bytes.len().
    let start = entry.offset as usize;
    let end = start + entry.length as usize;
    let slice = bytes.get(start..end).unwrap_or(&[]);
    Ok((slice, start))
}

/// Every record of lump `index`: as many as the lump's bytes hold, so the allocation is
/// bounded by the file.
fn records<T>(
    bytes: &[u8],
    header: &Header,
    order: LumpOrder,
    index: usize,
    record: usize,
) -> Result<Vec<T>, BspError>
where
    T: for<'a> BinRead<Args<'a> = ()>,
{
    let (slice, start) = lump_bytes(bytes, header, order, index, record)?;
    let count = slice.len() / record;
    let mut out = Vec::with_capacity(count);
    let mut cursor = Cursor::new(slice);
    for i in 0..count {
        let item = T::read_le(&mut cursor).map_err(|_| {
            err(
                start + i * record,
                BspErrorKind::UnexpectedEnd {
                    expected: "a lump record",
                    available: (slice.len() - i * record) as u64,
                },
            )
        })?;
        out.push(item);
    }
    Ok(out)
}

fn bad_index(offset: usize, what: &'static str, index: i64, count: usize) -> BspError {
    err(offset, BspErrorKind::BadIndex { what, index, count })
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn lerp(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// Floor, wall or (`None`) ceiling, by the normal's z.
fn kind_of(normal_z: f32) -> Option<SurfaceKind> {
    if normal_z >= FLOOR_NORMAL_Z {
        Some(SurfaceKind::Floor)
    } else if normal_z <= -FLOOR_NORMAL_Z || normal_z.is_nan() {
        None
    } else {
        Some(SurfaceKind::Wall)
    }
}

impl World {
    /// Reads a BSP file's surfaces; see the [module docs](self).
    pub fn read(bytes: &[u8]) -> Result<World, BspError> {
        let (header, order) = header(bytes)?;
        let planes: Vec<Plane> = records(bytes, &header, order, lump::PLANES, 20)?;
        let vertices: Vec<[f32; 3]> = records(bytes, &header, order, lump::VERTICES, 12)?;
        let edges: Vec<Edge> = records(bytes, &header, order, lump::EDGES, 4)?;
        let surfedges: Vec<i32> = records(bytes, &header, order, lump::SURFEDGES, 4)?;
        let texinfos: Vec<TexInfo> = records(bytes, &header, order, lump::TEXINFO, 72)?;
        let mut faces_lump = lump::FACES;
        let mut faces: Vec<Face> = records(bytes, &header, order, lump::FACES, 56)?;
        if faces.is_empty() {
            faces_lump = lump::FACES_HDR;
            faces = records(bytes, &header, order, lump::FACES_HDR, 56)?;
        }
        let dispinfos: Vec<DispInfo> = records(bytes, &header, order, lump::DISPINFO, 176)?;
        let disp_verts: Vec<DispVert> = records(bytes, &header, order, lump::DISP_VERTS, 20)?;
        let faces_at = lump_bytes(bytes, &header, order, faces_lump, 56)?.1;

        let mut counts = BspCounts {
            planes: planes.len(),
            vertices: vertices.len(),
            edges: edges.len(),
            surfedges: surfedges.len(),
            faces: faces.len(),
            texinfos: texinfos.len(),
            displacements: dispinfos.len(),
            disp_vertices: disp_verts.len(),
            hidden_faces: 0,
            ceilings: 0,
        };
        // Every surface edge and displacement vertex makes at most one point in a sound
        // file (a displacement's quads repeat their corners: four per vertex).
        let limit = surfedges.len() + 4 * disp_verts.len() + 1024;
        let mut points_made = 0usize;
        let mut polygons = Vec::new();
        for (i, face) in faces.iter().enumerate() {
            let at = faces_at + i * 56;
            if face.texinfo >= 0 {
                let t = texinfos.get(face.texinfo as usize).ok_or_else(|| {
                    bad_index(at, "texture info", face.texinfo.into(), texinfos.len())
                })?;
                if t.flags & HIDDEN_FLAGS != 0 {
                    counts.hidden_faces += 1;
                    continue;
                }
            }
            let plane = planes
                .get(usize::from(face.plane))
                .ok_or_else(|| bad_index(at, "plane", face.plane.into(), planes.len()))?;
            let mut normal = plane.normal;
            if face.side != 0 {
                normal = normal.map(|v| -v);
            }
            // The outline.
            let first = usize::try_from(face.first_edge).map_err(|_| {
                bad_index(
                    at,
                    "first surface edge",
                    face.first_edge.into(),
                    surfedges.len(),
                )
            })?;
            let n = usize::try_from(face.edge_count).unwrap_or(0);
            let outline = surfedges
                .get(first..first.saturating_add(n))
                .ok_or_else(|| {
                    bad_index(at, "surface edge", first as i64 + n as i64, surfedges.len())
                })?;
            points_made += outline.len();
            if points_made > limit {
                return Err(err(at, BspErrorKind::TooManyPoints { limit }));
            }
            let mut points = Vec::with_capacity(outline.len());
            for &se in outline {
                let edge = edges
                    .get(se.unsigned_abs() as usize)
                    .ok_or_else(|| bad_index(at, "edge", se.into(), edges.len()))?;
                let v = if se >= 0 {
                    edge.vertices[0]
                } else {
                    edge.vertices[1]
                };
                let p = vertices
                    .get(usize::from(v))
                    .ok_or_else(|| bad_index(at, "vertex", v.into(), vertices.len()))?;
                points.push(*p);
            }
            if face.dispinfo >= 0 {
                let info = dispinfos.get(face.dispinfo as usize).ok_or_else(|| {
                    bad_index(at, "displacement", face.dispinfo.into(), dispinfos.len())
                })?;
                let quads = displacement(info, &points, &disp_verts, normal).ok_or_else(|| {
                    bad_index(
                        at,
                        "displacement vertex",
                        info.first_vertex.into(),
                        disp_verts.len(),
                    )
                })?;
                points_made += quads.len() * 4;
                if points_made > limit {
                    return Err(err(at, BspErrorKind::TooManyPoints { limit }));
                }
                for (kind, quad) in quads {
                    polygons.push(Polygon {
                        kind,
                        points: quad.to_vec(),
                    });
                }
                continue;
            }
            if points.len() < 3 {
                continue;
            }
            match kind_of(normal[2]) {
                Some(kind) => polygons.push(Polygon { kind, points }),
                None => counts.ceilings += 1,
            }
        }
        let mut bounds: Option<[[f32; 3]; 2]> = None;
        for p in polygons.iter().flat_map(|p| p.points.iter()) {
            if !p.iter().all(|v| v.is_finite()) {
                continue;
            }
            let b = bounds.get_or_insert([*p, *p]);
            b[0] = [b[0][0].min(p[0]), b[0][1].min(p[1]), b[0][2].min(p[2])];
            b[1] = [b[1][0].max(p[0]), b[1][1].max(p[1]), b[1][2].max(p[2])];
        }
        Ok(World {
            version: header.version,
            lump_order: order,
            counts,
            polygons,
            bounds: bounds.unwrap_or([[0.0; 3]; 2]),
        })
    }

    /// The floors.
    pub fn floors(&self) -> impl Iterator<Item = &Polygon> {
        self.polygons
            .iter()
            .filter(|p| p.kind == SurfaceKind::Floor)
    }
}

/// A displacement's surface as quads (at most [`MAX_DISP_QUADS_PER_SIDE`] a side), each
/// with its kind; ceiling quads left out. `None` when its vertices are not in the table.
fn displacement(
    info: &DispInfo,
    base: &[[f32; 3]],
    verts: &[DispVert],
    face_normal: [f32; 3],
) -> Option<Vec<(SurfaceKind, [[f32; 3]; 4])>> {
    let corners: [[f32; 3]; 4] = match base {
        [a, b, c, d] => [*a, *b, *c, *d],
        _ => return Some(Vec::new()),
    };
    if !(2..=4).contains(&info.power) {
        return Some(Vec::new());
    }
    let side = (1usize << info.power) + 1;
    let first = usize::try_from(info.first_vertex).ok()?;
    let grid = verts.get(first..first.checked_add(side * side)?)?;
    // The base face's corners from the one nearest the start position.
    let distance = |p: &[f32; 3]| {
        let d = sub(*p, info.start);
        d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
    };
    let nearest = (0..4)
        .min_by(|&a, &b| {
            let (da, db) = (
                corners.get(a).map_or(f32::MAX, distance),
                corners.get(b).map_or(f32::MAX, distance),
            );
            da.total_cmp(&db)
        })
        .unwrap_or(0);
    let c = |k: usize| corners.get((nearest + k) % 4).copied().unwrap_or([0.0; 3]);
    let (c0, c1, c2, c3) = (c(0), c(1), c(2), c(3));
    let at = |row: usize, col: usize| -> [f32; 3] {
        let (t, s) = (
            row as f32 / (side - 1) as f32,
            col as f32 / (side - 1) as f32,
        );
        let (a, b) = (lerp(c0, c1, t), lerp(c3, c2, t));
        let base = lerp(a, b, s);
        let v = grid
            .get(row * side + col)
            .map_or([0.0; 3], |v| v.direction.map(|d| d * v.distance));
        [base[0] + v[0], base[1] + v[1], base[2] + v[2]]
    };
    let cells = side - 1;
    let step = cells.div_ceil(MAX_DISP_QUADS_PER_SIDE).max(1);
    let mut quads = Vec::new();
    let mut row = 0;
    while row < cells {
        let row2 = (row + step).min(cells);
        let mut col = 0;
        while col < cells {
            let col2 = (col + step).min(cells);
            let quad = [at(row, col), at(row2, col), at(row2, col2), at(row, col2)];
            let [q0, q1, q2, q3] = quad;
            let mut n = cross(sub(q2, q0), sub(q3, q1));
            let dot = n[0] * face_normal[0] + n[1] * face_normal[1] + n[2] * face_normal[2];
            if dot < 0.0 {
                n = n.map(|v| -v);
            }
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let nz = if len > 0.0 {
                n[2] / len
            } else {
                face_normal[2]
            };
            if let Some(kind) = kind_of(nz) {
                quads.push((kind, quad));
            }
            col = col2;
        }
        row = row2;
    }
    Some(quads)
}

/// An overview image's calibration, from `resource/overview/<map>.txt`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Overview {
    /// The world x at the image's left edge.
    pub pos_x: f64,
    /// The world y at the image's top edge.
    pub pos_y: f64,
    /// World units per image pixel.
    pub scale: f64,
    /// The `rotate` value, 0 when absent (demokit draws the image unrotated either way).
    pub rotate: f64,
}

/// Why an overview description does not read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OverviewError {
    /// A key the calibration needs is not there.
    #[error("the overview description has no \"{key}\"")]
    Missing {
        /// `pos_x`, `pos_y` or `scale`.
        key: &'static str,
    },
    /// A value that is not a finite number (or a scale that is not positive).
    #[error("the overview's \"{key}\" is {value:?} at byte {offset}, not a usable number")]
    NotANumber {
        /// The key.
        key: &'static str,
        /// Its value as written (at most 64 characters).
        value: String,
        /// Where the value starts.
        offset: usize,
    },
}

impl Overview {
    /// Reads the KeyValues text of an overview description: the keys `pos_x`, `pos_y`,
    /// `scale` and `rotate` (case-insensitive, at any depth; the first of each counts).
    pub fn parse(text: &str) -> Result<Overview, OverviewError> {
        let tokens = kv_tokens(text);
        let find = |key: &'static str| -> Result<Option<f64>, OverviewError> {
            let mut it = tokens.iter();
            while let Some((k, _)) = it.next() {
                if k.eq_ignore_ascii_case(key) {
                    let Some((value, offset)) = it.next() else {
                        return Err(OverviewError::Missing { key });
                    };
                    return match value.trim().parse::<f64>() {
                        Ok(v) if v.is_finite() => Ok(Some(v)),
                        _ => Err(OverviewError::NotANumber {
                            key,
                            value: value.chars().take(64).collect(),
                            offset: *offset,
                        }),
                    };
                }
            }
            Ok(None)
        };
        let need = |key: &'static str| find(key)?.ok_or(OverviewError::Missing { key });
        let pos_x = need("pos_x")?;
        let pos_y = need("pos_y")?;
        let scale = need("scale")?;
        if scale <= 0.0 {
            return Err(OverviewError::NotANumber {
                key: "scale",
                value: scale.to_string(),
                offset: 0,
            });
        }
        let rotate = find("rotate")?.unwrap_or(0.0);
        Ok(Overview {
            pos_x,
            pos_y,
            scale,
            rotate,
        })
    }

    /// The image pixel that world (`x`, `y`) lands on.
    pub fn pixel(&self, x: f64, y: f64) -> (f64, f64) {
        ((x - self.pos_x) / self.scale, (self.pos_y - y) / self.scale)
    }

    /// The world position of image pixel (`px`, `py`).
    pub fn world(&self, px: f64, py: f64) -> (f64, f64) {
        (self.pos_x + px * self.scale, self.pos_y - py * self.scale)
    }
}

/// The strings of a KeyValues text (quoted or bare), with their byte offsets; braces and
/// `//` comments dropped.
fn kv_tokens(text: &str) -> Vec<(&str, usize)> {
    let mut tokens = Vec::new();
    let mut rest = text;
    let mut at = 0usize;
    loop {
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        rest = trimmed;
        if rest.is_empty() {
            break;
        }
        if let Some(after) = rest.strip_prefix("//") {
            let line = after.find('\n').map_or(after.len(), |i| i + 1);
            at += 2 + line;
            rest = after.get(line..).unwrap_or("");
        } else if rest.starts_with(['{', '}']) {
            at += 1;
            rest = rest.get(1..).unwrap_or("");
        } else if let Some(after) = rest.strip_prefix('"') {
            let end = after.find('"').unwrap_or(after.len());
            tokens.push((after.get(..end).unwrap_or(""), at + 1));
            let skip = (end + 1).min(after.len());
            at += 1 + skip;
            rest = after.get(skip..).unwrap_or("");
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '"' || c == '{' || c == '}')
                .unwrap_or(rest.len());
            tokens.push((rest.get(..end).unwrap_or(""), at));
            at += end;
            rest = rest.get(end..).unwrap_or("");
        }
    }
    tokens
}
