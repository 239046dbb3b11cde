//! A small Valve BSP file written by the tests themselves (no third-party map can ship
//! with demokit): a room 1024 units square with a floor at z 0, four walls, a ceiling, a
//! platform at z 128, a sky face and one displacement, in either lump-directory order.

/// What [`room`] holds, for the tests to check against.
pub struct Room {
    /// The file.
    pub bytes: Vec<u8>,
    /// Faces written.
    pub faces: usize,
    /// Planes written.
    pub planes: usize,
}

/// Normal, corners, hidden (sky), displacement.
type Poly = ([f32; 3], Vec<[f32; 3]>, bool, bool);

fn le(out: &mut Vec<u8>, v: &[f32]) {
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

/// The room; `l4d2` writes each lump directory entry as {version, offset, length}.
pub fn room(version: i32, l4d2: bool) -> Room {
    // Polygons: (normal, points, hidden, displacement).
    let mut polys: Vec<Poly> = Vec::new();
    let (lo, hi, top) = (0.0, 1024.0, 256.0);
    // Floor (normal up), counter-clockwise seen from above.
    polys.push((
        [0.0, 0.0, 1.0],
        vec![[lo, lo, 0.0], [hi, lo, 0.0], [hi, hi, 0.0], [lo, hi, 0.0]],
        false,
        false,
    ));
    // Ceiling.
    polys.push((
        [0.0, 0.0, -1.0],
        vec![[lo, lo, top], [lo, hi, top], [hi, hi, top], [hi, lo, top]],
        false,
        false,
    ));
    // Walls.
    polys.push((
        [1.0, 0.0, 0.0],
        vec![[lo, lo, 0.0], [lo, hi, 0.0], [lo, hi, top], [lo, lo, top]],
        false,
        false,
    ));
    polys.push((
        [-1.0, 0.0, 0.0],
        vec![[hi, lo, 0.0], [hi, lo, top], [hi, hi, top], [hi, hi, 0.0]],
        false,
        false,
    ));
    polys.push((
        [0.0, 1.0, 0.0],
        vec![[lo, lo, 0.0], [lo, lo, top], [hi, lo, top], [hi, lo, 0.0]],
        false,
        false,
    ));
    polys.push((
        [0.0, -1.0, 0.0],
        vec![[lo, hi, 0.0], [hi, hi, 0.0], [hi, hi, top], [lo, hi, top]],
        false,
        false,
    ));
    // A platform at z 128 in one corner.
    polys.push((
        [0.0, 0.0, 1.0],
        vec![
            [640.0, 640.0, 128.0],
            [960.0, 640.0, 128.0],
            [960.0, 960.0, 128.0],
            [640.0, 960.0, 128.0],
        ],
        false,
        false,
    ));
    // A sky face (never drawn).
    polys.push((
        [0.0, 0.0, -1.0],
        vec![
            [lo, lo, 512.0],
            [lo, hi, 512.0],
            [hi, hi, 512.0],
            [hi, lo, 512.0],
        ],
        true,
        false,
    ));
    // A displacement over the corner (64..320)², a hill rising to z 64.
    polys.push((
        [0.0, 0.0, 1.0],
        vec![
            [64.0, 64.0, 8.0],
            [320.0, 64.0, 8.0],
            [320.0, 320.0, 8.0],
            [64.0, 320.0, 8.0],
        ],
        false,
        true,
    ));

    let mut planes = Vec::new();
    let mut vertices = Vec::new();
    let mut edges: Vec<u8> = vec![0, 0, 0, 0]; // edge 0 is never used
    let mut surfedges = Vec::new();
    let mut faces = Vec::new();
    let mut n_edges = 1i32;
    let mut n_vertices = 0u16;
    let mut n_surfedges = 0i32;
    for (i, (normal, points, hidden, disp)) in polys.iter().enumerate() {
        le(&mut planes, normal);
        let dist = normal[0] * points[0][0] + normal[1] * points[0][1] + normal[2] * points[0][2];
        le(&mut planes, &[dist]);
        planes.extend_from_slice(&0i32.to_le_bytes());
        let first_vertex = n_vertices;
        for p in points {
            le(&mut vertices, p);
            n_vertices += 1;
        }
        let first_edge = n_surfedges;
        for k in 0..points.len() as u16 {
            let a = first_vertex + k;
            let b = first_vertex + (k + 1) % points.len() as u16;
            // Every other edge stored reversed and used through a negative index.
            if k % 2 == 0 {
                edges.extend_from_slice(&a.to_le_bytes());
                edges.extend_from_slice(&b.to_le_bytes());
                surfedges.extend_from_slice(&n_edges.to_le_bytes());
            } else {
                edges.extend_from_slice(&b.to_le_bytes());
                edges.extend_from_slice(&a.to_le_bytes());
                surfedges.extend_from_slice(&(-n_edges).to_le_bytes());
            }
            n_edges += 1;
            n_surfedges += 1;
        }
        let mut face = Vec::new();
        face.extend_from_slice(&(i as u16).to_le_bytes()); // plane
        face.extend_from_slice(&[0, 0]); // side, on node
        face.extend_from_slice(&first_edge.to_le_bytes());
        face.extend_from_slice(&(points.len() as i16).to_le_bytes());
        face.extend_from_slice(&(if *hidden { 1i16 } else { 0 }).to_le_bytes()); // texinfo
        face.extend_from_slice(&(if *disp { 0i16 } else { -1 }).to_le_bytes()); // dispinfo
        face.resize(56, 0);
        faces.extend_from_slice(&face);
    }
    // Texinfo 0: plain; 1: sky.
    let mut texinfo = vec![0u8; 64];
    texinfo.extend_from_slice(&0i32.to_le_bytes());
    texinfo.extend_from_slice(&0i32.to_le_bytes());
    texinfo.extend_from_slice(&[0u8; 64]);
    texinfo.extend_from_slice(&0x4i32.to_le_bytes());
    texinfo.extend_from_slice(&0i32.to_le_bytes());
    // The displacement: power 2 (5 x 5 vertices), a bump in the middle.
    let mut dispinfo = Vec::new();
    le(&mut dispinfo, &[64.0, 64.0, 8.0]);
    dispinfo.extend_from_slice(&0i32.to_le_bytes()); // first vertex
    dispinfo.extend_from_slice(&0i32.to_le_bytes()); // first triangle
    dispinfo.extend_from_slice(&2i32.to_le_bytes()); // power
    dispinfo.resize(40, 0);
    dispinfo.extend_from_slice(&8u16.to_le_bytes()); // map face
    dispinfo.resize(176, 0);
    let mut disp_verts = Vec::new();
    for row in 0i32..5 {
        for col in 0i32..5 {
            let centre = (2 - (row - 2).abs()).min(2 - (col - 2).abs()) as f32;
            le(&mut disp_verts, &[0.0, 0.0, 1.0, centre * 28.0, 1.0]);
        }
    }

    let lumps: Vec<(usize, Vec<u8>)> = vec![
        (1, planes),
        (3, vertices),
        (6, texinfo),
        (7, faces),
        (12, edges),
        (13, surfedges),
        (26, dispinfo),
        (33, disp_verts),
    ];
    let header = 8 + 64 * 16 + 4;
    let mut directory = vec![[0i32; 3]; 64];
    let mut body = Vec::new();
    for (index, data) in &lumps {
        let offset = (header + body.len()) as i32;
        directory[*index] = if l4d2 {
            [0, offset, data.len() as i32]
        } else {
            [offset, data.len() as i32, 0]
        };
        body.extend_from_slice(data);
    }
    let mut bytes = b"VBSP".to_vec();
    bytes.extend_from_slice(&version.to_le_bytes());
    for entry in &directory {
        for v in entry {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes.extend_from_slice(&[0; 4]);
    }
    bytes.extend_from_slice(&1i32.to_le_bytes());
    bytes.extend_from_slice(&body);
    Room {
        bytes,
        faces: polys.len(),
        planes: polys.len(),
    }
}
