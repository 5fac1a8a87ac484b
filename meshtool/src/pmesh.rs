//! The prepared mesh: the one type the solver consumes, and its `.pmesh` file format.
//!
//! File layout (all little-endian):
//! ```text
//! magic   8 bytes  "PMESH\0\r\n"
//! version u32      FORMAT_VERSION
//! length  u64      payload bytes
//! payload          sections: tag [u8; 4], byte length u64, data
//! crc32   u32      CRC-32 of the payload
//! ```
//! Sections are written in a fixed order and all are required; the reader checks lengths,
//! counts and the checksum before it trusts anything.
//!
//! Version 3 adds two sections after NORG for periodic meshes (empty when not periodic):
//! PPAR, the periodic patch pairs (names, tags, translation, face count, area), and PFAC, four
//! u32 per periodic face side (cell, local face, pair, side: 0 slave, 1 master), sorted by
//! (cell, face); and PNOD, three u32 per node of the joined faces (slave node, master node,
//! pair), sorted. On a periodic face NBRS holds the cell across the periodic boundary like any
//! interior face, and the periodic patches are not in PTCH. Version 2 files (no periodic data)
//! are still read.

use crate::dual::{self, DualTables};
use crate::error::{MeshError, Result};
use crate::faces::{is_boundary, patch_of};
use crate::mesh::{vec3, PatchDef, RawMesh};
use crate::periodic::{self, PeriodicFace, PeriodicPair};
use crate::reorder::{self, Locality, Reorder};
use crate::topology::{self, Topology};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 8] = b"PMESH\0\r\n";
pub const FORMAT_VERSION: u32 = 3;
/// The oldest version this build reads (version 2: no periodic sections).
pub const OLDEST_READABLE_VERSION: u32 = 2;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Patch {
    pub name: String,
    pub tag: i32,
    pub faces: u64,
    pub area: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PreparedMesh {
    pub nodes: Vec<[f64; 3]>,
    pub topo: Topology,
    pub patches: Vec<Patch>,
    pub dual: DualTables,
    /// Input index of each cell: `cell_original[new] = old`.
    pub cell_original: Vec<u32>,
    /// Input index of each node.
    pub node_original: Vec<u32>,
    pub reorder: Reorder,
}

/// Locality before and after reordering, for the user to see what it gained.
#[derive(Clone, Debug, Serialize)]
pub struct PrepareReport {
    pub before: Locality,
    pub after: Locality,
}

/// Build topology, reorder, and compute the dual tables.
pub fn prepare(raw: &RawMesh, method: Reorder) -> Result<(PreparedMesh, PrepareReport)> {
    let first = topology::build(raw)?;
    let before = reorder::locality(&first.neighbours);
    let (nodes, topo, cell_original, node_original) = if method == Reorder::None {
        let n = raw.nodes.len() as u32;
        let c = first.cells.len() as u32;
        (raw.nodes.clone(), first, (0..c).collect(), (0..n).collect())
    } else {
        let order = reorder::cell_order(method, &first.neighbours, &first.centroids);
        // Nodes in order of first touch by the reordered cells; unreferenced nodes last.
        let mut node_new = vec![u32::MAX; raw.nodes.len()];
        let mut node_original = Vec::with_capacity(raw.nodes.len());
        for &c in &order {
            for &v in &first.cells[c as usize] {
                if node_new[v as usize] == u32::MAX {
                    node_new[v as usize] = node_original.len() as u32;
                    node_original.push(v);
                }
            }
        }
        for v in 0..raw.nodes.len() {
            if node_new[v] == u32::MAX {
                node_new[v] = node_original.len() as u32;
                node_original.push(v as u32);
            }
        }
        let permuted = RawMesh {
            nodes: node_original.iter().map(|&v| raw.nodes[v as usize]).collect(),
            tets: order
                .iter()
                .map(|&c| first.cells[c as usize].map(|v| node_new[v as usize]))
                .collect(),
            boundary_tris: raw
                .boundary_tris
                .iter()
                .map(|t| t.map(|v| node_new[v as usize]))
                .collect(),
            boundary_patch: raw.boundary_patch.clone(),
            patches: raw.patches.clone(),
            periodic: raw
                .periodic
                .iter()
                .map(|l| crate::mesh::PeriodicLink {
                    pairs: l.pairs.iter().map(|p| p.map(|v| node_new[v as usize])).collect(),
                    ..l.clone()
                })
                .collect(),
        };
        let reoriented = first.reoriented;
        drop(first);
        let mut topo = topology::build(&permuted)?;
        topo.reoriented = reoriented;
        (permuted.nodes, topo, order, node_original)
    };
    let mut topo = topo;
    let kept = periodic::drop_periodic_patches(raw, &topo.periodic, &mut topo.neighbours);
    let after = reorder::locality(&topo.neighbours);
    let patches = patch_stats(&kept, &topo);
    let dual = dual::build(&nodes, &topo.cells);
    let mesh = PreparedMesh {
        nodes,
        topo,
        patches,
        dual,
        cell_original,
        node_original,
        reorder: method,
    };
    Ok((mesh, PrepareReport { before, after }))
}

fn patch_stats(kept: &[PatchDef], topo: &Topology) -> Vec<Patch> {
    let mut patches: Vec<Patch> = kept
        .iter()
        .map(|p| Patch {
            name: p.name.clone(),
            tag: p.tag,
            faces: 0,
            area: 0.0,
        })
        .collect();
    for (nb, ar) in topo.neighbours.iter().zip(&topo.face_areas) {
        for f in 0..4 {
            if is_boundary(nb[f]) {
                let p = &mut patches[patch_of(nb[f]) as usize];
                p.faces += 1;
                p.area += ar[f];
            }
        }
    }
    patches
}

impl PreparedMesh {
    pub fn num_cells(&self) -> usize {
        self.topo.cells.len()
    }

    pub fn total_volume(&self) -> f64 {
        self.topo.volumes.iter().sum()
    }

    pub fn patch_index(&self, name: &str) -> Option<usize> {
        self.patches.iter().position(|p| p.name == name)
    }

    pub fn bounding_box(&self) -> ([f64; 3], [f64; 3]) {
        crate::mesh::bounding_box(&self.nodes)
    }

    /// Sum over a cell's faces of the outward area vectors (zero for a closed cell).
    pub fn closure_defect(&self, c: usize) -> f64 {
        let mut s = [0.0; 3];
        for f in 0..4 {
            s = vec3::add(s, vec3::scale(self.topo.face_normals[c][f], self.topo.face_areas[c][f]));
        }
        vec3::norm(s)
    }

    /// Write atomically: a temporary file in the same folder, renamed when complete.
    pub fn write(&self, path: &Path) -> Result<()> {
        crate::atomic::write_with(path, |w| self.write_to(w))
    }

    fn sections(&self) -> Vec<([u8; 4], Section<'_>)> {
        let t = &self.topo;
        let header = vec![
            self.nodes.len() as u64,
            t.cells.len() as u64,
            self.dual.cells.len() as u64,
            self.patches.len() as u64,
            self.reorder.code() as u64,
            t.reoriented,
            t.interior_patch_faces,
        ];
        vec![
            (*b"HEAD", Section::U64(header)),
            (*b"PTCH", Section::Bytes(encode_patches(&self.patches))),
            (*b"NODE", Section::F64(flat(&self.nodes))),
            (*b"CELL", Section::U32(flat(&t.cells))),
            (*b"NBRS", Section::U32(flat(&t.neighbours))),
            (*b"FNRM", Section::F64(flat2(&t.face_normals))),
            (*b"FARE", Section::F64(flat(&t.face_areas))),
            (*b"CENT", Section::F64(flat(&t.centroids))),
            (*b"VOLU", Section::F64(&t.volumes)),
            (*b"DOFF", Section::U32(&self.dual.offsets)),
            (*b"DCEL", Section::U32(&self.dual.cells)),
            (*b"DNRM", Section::F64(flat2(&self.dual.normals))),
            (*b"DPLN", Section::F64(flat(&self.dual.plane_d))),
            (*b"DHLF", Section::F64(flat(&self.dual.half_len))),
            (*b"DDET", Section::F64(&self.dual.det)),
            (*b"CORG", Section::U32(&self.cell_original)),
            (*b"NORG", Section::U32(&self.node_original)),
        ]
    }

    pub fn write_to(&self, w: &mut dyn Write) -> std::io::Result<()> {
        self.write_version(w, FORMAT_VERSION)
    }

    /// Whether the mesh has periodic faces.
    pub fn is_periodic(&self) -> bool {
        !self.topo.periodic.is_empty()
    }

    /// An error for a solver (`user`, e.g. "family ns") that cannot use periodic faces yet:
    /// it would take them for ordinary interior faces, without the shift across the domain.
    pub fn refuse_periodic(&self, user: &str) -> Result<()> {
        if let Some(p) = self.topo.periodic.first() {
            return Err(MeshError::Invalid(format!(
                "the mesh has periodic patches ('{}' -> '{}', {} pair(s) in all), but periodic faces are not yet supported by {user}; use a mesh without Periodic Surface links",
                p.slave,
                p.master,
                self.topo.periodic.len()
            )));
        }
        Ok(())
    }

    /// Write in `version` (FORMAT_VERSION, or 2 for tests of the older reader; version 2 cannot
    /// hold periodic data).
    #[doc(hidden)]
    pub fn write_version(&self, w: &mut dyn Write, version: u32) -> std::io::Result<()> {
        let mut sections = self.sections();
        if version >= 3 {
            let t = &self.topo;
            let pf: Vec<u32> = t
                .periodic_faces
                .iter()
                .flat_map(|p| [p.cell, p.face, p.pair, p.side])
                .collect();
            sections.push((*b"PPAR", Section::Bytes(encode_periodic(&t.periodic))));
            sections.push((*b"PFAC", Section::U32Owned(pf)));
            sections.push((*b"PNOD", Section::U32(t.periodic_nodes.as_flattened())));
        } else if self.is_periodic() {
            return Err(std::io::Error::other(
                "version 2 .pmesh files cannot hold periodic data",
            ));
        }
        let payload: u64 = sections.iter().map(|(_, s)| 12 + s.byte_len() as u64).sum();
        w.write_all(MAGIC)?;
        w.write_all(&version.to_le_bytes())?;
        w.write_all(&payload.to_le_bytes())?;
        let mut crc = crc32fast::Hasher::new();
        let mut put = |w: &mut dyn Write, b: &[u8]| -> std::io::Result<()> {
            crc.update(b);
            w.write_all(b)
        };
        let mut buf = Vec::with_capacity(1 << 16);
        for (tag, s) in &sections {
            put(w, tag)?;
            put(w, &(s.byte_len() as u64).to_le_bytes())?;
            // Encode in chunks to keep memory flat for large meshes.
            macro_rules! chunks {
                ($v:expr) => {
                    for chunk in $v.chunks(8192) {
                        buf.clear();
                        for x in chunk {
                            buf.extend_from_slice(&x.to_le_bytes());
                        }
                        put(w, &buf)?;
                    }
                };
            }
            match s {
                Section::U32(v) => chunks!(v),
                Section::U32Owned(v) => chunks!(v),
                Section::U64(v) => chunks!(v),
                Section::F64(v) => chunks!(v),
                Section::Bytes(v) => put(w, v)?,
            }
        }
        w.write_all(&crc.finalize().to_le_bytes())
    }

    pub fn read(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| MeshError::io(path, e))?;
        Self::from_bytes(&bytes, path)
    }

    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Self> {
        let (version, payload) = checked_payload(bytes, path)?;
        let mut r = SectionReader {
            data: payload,
            pos: 0,
            path,
        };
        let head = r.u64s(b"HEAD", Some(7))?;
        let (nn, nc, nd, np) = (head[0] as usize, head[1] as usize, head[2] as usize, head[3] as usize);
        let reorder =
            Reorder::from_code(head[4] as u32).ok_or_else(|| r.err(format!("unknown reorder code {}", head[4])))?;
        let patches = decode_patches(r.bytes(b"PTCH")?).ok_or_else(|| r.err("malformed patch table".into()))?;
        if patches.len() != np {
            return Err(r.err("patch count does not match the header".into()));
        }
        let nodes = chunked::<3, f64>(r.f64s(b"NODE", Some(3 * nn))?);
        let mut topo = read_cell_tables(&mut r, nc)?;
        (topo.reoriented, topo.interior_patch_faces) = (head[5], head[6]);
        let dual = read_dual_tables(&mut r, nn, nd)?;
        let cell_original = r.u32s(b"CORG", Some(nc))?;
        let node_original = r.u32s(b"NORG", Some(nn))?;
        if version >= 3 {
            read_periodic_tables(&mut r, &mut topo)?;
        }
        check_periodic_tables(&r, &topo, nn)?;
        // Index sanity, so a solver can index without checks.
        check_connectivity(&r, &topo, &dual, nn, np)?;
        Ok(PreparedMesh {
            nodes,
            topo,
            patches,
            dual,
            cell_original,
            node_original,
            reorder,
        })
    }
}

/// The format version and the payload of a .pmesh file, once its magic number, version,
/// length and checksum are checked.
fn checked_payload<'a>(bytes: &'a [u8], path: &Path) -> Result<(u32, &'a [u8])> {
    let err = |m: String| MeshError::Pmesh {
        path: path.to_path_buf(),
        message: m,
    };
    if bytes.len() < 20 || &bytes[..8] != MAGIC {
        return Err(err(
            "not a .pmesh file (bad magic number); create one with `meshtool prepare`".into(),
        ));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if !(OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(err(format!(
            "format version {version}, but this build reads versions {OLDEST_READABLE_VERSION} to {FORMAT_VERSION}; re-run `meshtool prepare` on the source mesh"
        )));
    }
    let payload_len = u64::from_le_bytes(bytes[12..20].try_into().unwrap());
    let need = 20u64.saturating_add(payload_len).saturating_add(4);
    if (bytes.len() as u64) < need {
        return Err(err(format!("truncated: {} bytes, header promises {need}", bytes.len())));
    }
    let payload = &bytes[20..20 + payload_len as usize];
    let stored = u32::from_le_bytes(bytes[20 + payload_len as usize..][..4].try_into().unwrap());
    if crc32fast::hash(payload) != stored {
        return Err(err(
            "checksum mismatch: the file is corrupted; re-run `meshtool prepare`".into(),
        ));
    }
    Ok((version, payload))
}

/// Sections CELL to VOLU: the topology of `nc` cells, without its counts and periodic data.
fn read_cell_tables(r: &mut SectionReader, nc: usize) -> Result<Topology> {
    Ok(Topology {
        cells: chunked::<4, u32>(r.u32s(b"CELL", Some(4 * nc))?),
        neighbours: chunked::<4, u32>(r.u32s(b"NBRS", Some(4 * nc))?),
        face_normals: chunked::<4, [f64; 3]>(chunked::<3, f64>(r.f64s(b"FNRM", Some(12 * nc))?)),
        face_areas: chunked::<4, f64>(r.f64s(b"FARE", Some(4 * nc))?),
        centroids: chunked::<3, f64>(r.f64s(b"CENT", Some(3 * nc))?),
        volumes: r.f64s(b"VOLU", Some(nc))?,
        ..Topology::default()
    })
}

/// Sections DOFF to DDET: the dual tables of `nn` nodes and `nd` dual entries.
fn read_dual_tables(r: &mut SectionReader, nn: usize, nd: usize) -> Result<DualTables> {
    Ok(DualTables {
        offsets: r.u32s(b"DOFF", Some(nn + 1))?,
        cells: r.u32s(b"DCEL", Some(nd))?,
        normals: chunked::<3, [f64; 3]>(chunked::<3, f64>(r.f64s(b"DNRM", Some(9 * nd))?)),
        plane_d: chunked::<3, f64>(r.f64s(b"DPLN", Some(3 * nd))?),
        half_len: chunked::<3, f64>(r.f64s(b"DHLF", Some(3 * nd))?),
        det: r.f64s(b"DDET", Some(nd))?,
    })
}

/// Sections PPAR, PFAC and PNOD (version 3 on) into the topology's periodic tables.
fn read_periodic_tables(r: &mut SectionReader, topo: &mut Topology) -> Result<()> {
    topo.periodic = decode_periodic(r.bytes(b"PPAR")?).ok_or_else(|| r.err("malformed periodic pair table".into()))?;
    let pf = r.u32s(b"PFAC", None)?;
    if pf.len() % 4 != 0 {
        return Err(r.err("section PFAC is not a multiple of four values".into()));
    }
    topo.periodic_faces = pf
        .chunks_exact(4)
        .map(|c| PeriodicFace {
            cell: c[0],
            face: c[1],
            pair: c[2],
            side: c[3],
        })
        .collect();
    let pn = r.u32s(b"PNOD", None)?;
    if pn.len() % 3 != 0 {
        return Err(r.err("section PNOD is not a multiple of three values".into()));
    }
    topo.periodic_nodes = chunked::<3, u32>(pn);
    Ok(())
}

/// Refuse periodic tables that name nodes (of `nn`), cells, faces or pairs that do not exist,
/// a periodic face that is a boundary face, or faces out of (cell, face) order.
fn check_periodic_tables(r: &SectionReader, t: &Topology, nn: usize) -> Result<()> {
    let (nc, pairs) = (t.cells.len(), t.periodic.len());
    if t.periodic_nodes
        .iter()
        .any(|p| p[0] as usize >= nn || p[1] as usize >= nn || p[2] as usize >= pairs)
    {
        return Err(r.err("periodic node table out of range".into()));
    }
    if t.periodic_faces.iter().any(|p| {
        p.cell as usize >= nc
            || p.face >= 4
            || p.pair as usize >= pairs
            || p.side > 1
            || is_boundary(t.neighbours[p.cell as usize][p.face as usize])
    }) || t
        .periodic_faces
        .windows(2)
        .any(|w| (w[0].cell, w[0].face) >= (w[1].cell, w[1].face))
    {
        return Err(r.err("periodic face table out of range or unsorted".into()));
    }
    Ok(())
}

/// Refuse cells naming nodes beyond `nn`, neighbours naming cells or patches (of `np`) that do
/// not exist, and dual tables whose cells or offsets are out of range.
fn check_connectivity(r: &SectionReader, t: &Topology, dual: &DualTables, nn: usize, np: usize) -> Result<()> {
    let nc = t.cells.len();
    if t.cells.iter().flatten().any(|&v| v as usize >= nn)
        || t.neighbours.iter().flatten().any(|&d| {
            if is_boundary(d) {
                patch_of(d) as usize >= np
            } else {
                d as usize >= nc
            }
        })
        || dual.cells.iter().any(|&c| c as usize >= nc)
        || dual.offsets.windows(2).any(|w| w[0] > w[1])
        || dual.offsets.last().map(|&o| o as usize) != Some(dual.cells.len())
    {
        return Err(r.err("index out of range in the connectivity tables".into()));
    }
    Ok(())
}

enum Section<'a> {
    U32(&'a [u32]),
    U32Owned(Vec<u32>),
    U64(Vec<u64>),
    F64(&'a [f64]),
    Bytes(Vec<u8>),
}

impl Section<'_> {
    fn byte_len(&self) -> usize {
        match self {
            Section::U32(v) => 4 * v.len(),
            Section::U32Owned(v) => 4 * v.len(),
            Section::U64(v) => 8 * v.len(),
            Section::F64(v) => 8 * v.len(),
            Section::Bytes(v) => v.len(),
        }
    }
}

fn flat<T, const N: usize>(v: &[[T; N]]) -> &[T] {
    v.as_flattened()
}

fn flat2<const N: usize, const M: usize>(v: &[[[f64; N]; M]]) -> &[f64] {
    v.as_flattened().as_flattened()
}

fn chunked<const N: usize, T: Copy + Default>(v: Vec<T>) -> Vec<[T; N]> {
    v.chunks_exact(N).map(|c| std::array::from_fn(|i| c[i])).collect()
}

fn encode_patches(p: &[Patch]) -> Vec<u8> {
    let mut b = Vec::new();
    for p in p {
        b.extend_from_slice(&p.tag.to_le_bytes());
        b.extend_from_slice(&p.faces.to_le_bytes());
        b.extend_from_slice(&p.area.to_le_bytes());
        b.extend_from_slice(&(p.name.len() as u32).to_le_bytes());
        b.extend_from_slice(p.name.as_bytes());
    }
    b
}

fn decode_patches(mut b: &[u8]) -> Option<Vec<Patch>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let tag = i32::from_le_bytes(b.get(..4)?.try_into().ok()?);
        let faces = u64::from_le_bytes(b.get(4..12)?.try_into().ok()?);
        let area = f64::from_le_bytes(b.get(12..20)?.try_into().ok()?);
        let len = u32::from_le_bytes(b.get(20..24)?.try_into().ok()?) as usize;
        let name = String::from_utf8(b.get(24..24 + len)?.to_vec()).ok()?;
        out.push(Patch { name, tag, faces, area });
        b = &b[24 + len..];
    }
    Some(out)
}

fn encode_periodic(p: &[PeriodicPair]) -> Vec<u8> {
    let mut b = Vec::new();
    for p in p {
        b.extend_from_slice(&p.slave_tag.to_le_bytes());
        b.extend_from_slice(&p.master_tag.to_le_bytes());
        for x in p.translation {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&p.faces.to_le_bytes());
        b.extend_from_slice(&p.area.to_le_bytes());
        for name in [&p.slave, &p.master] {
            b.extend_from_slice(&(name.len() as u32).to_le_bytes());
            b.extend_from_slice(name.as_bytes());
        }
    }
    b
}

fn decode_periodic(mut b: &[u8]) -> Option<Vec<PeriodicPair>> {
    fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (b.get(..n)?, b.get(n..)?);
        *b = rest;
        Some(head)
    }
    let f64_ = |b: &mut &[u8]| Some(f64::from_le_bytes(take(b, 8)?.try_into().ok()?));
    let mut out = Vec::new();
    while !b.is_empty() {
        let slave_tag = i32::from_le_bytes(take(&mut b, 4)?.try_into().ok()?);
        let master_tag = i32::from_le_bytes(take(&mut b, 4)?.try_into().ok()?);
        let translation = [f64_(&mut b)?, f64_(&mut b)?, f64_(&mut b)?];
        let faces = u64::from_le_bytes(take(&mut b, 8)?.try_into().ok()?);
        let area = f64_(&mut b)?;
        let mut names = [String::new(), String::new()];
        for n in &mut names {
            let len = u32::from_le_bytes(take(&mut b, 4)?.try_into().ok()?) as usize;
            *n = String::from_utf8(take(&mut b, len)?.to_vec()).ok()?;
        }
        let [slave, master] = names;
        out.push(PeriodicPair {
            slave,
            master,
            slave_tag,
            master_tag,
            translation,
            faces,
            area,
        });
    }
    Some(out)
}

struct SectionReader<'a> {
    data: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> SectionReader<'a> {
    fn err(&self, m: String) -> MeshError {
        MeshError::Pmesh {
            path: PathBuf::from(self.path),
            message: m,
        }
    }

    fn bytes(&mut self, tag: &[u8; 4]) -> Result<&'a [u8]> {
        let name = String::from_utf8_lossy(tag).into_owned();
        let hdr = self
            .data
            .get(self.pos..self.pos + 12)
            .ok_or_else(|| self.err(format!("section {name} missing")))?;
        if &hdr[..4] != tag {
            return Err(self.err(format!(
                "expected section {name}, found {}",
                String::from_utf8_lossy(&hdr[..4])
            )));
        }
        let len = u64::from_le_bytes(hdr[4..12].try_into().unwrap()) as usize;
        let start = self.pos + 12;
        let body = self
            .data
            .get(start..start.saturating_add(len))
            .ok_or_else(|| self.err(format!("section {name} runs past the end")))?;
        self.pos = start + len;
        Ok(body)
    }

    fn typed<T, const W: usize>(&mut self, tag: &[u8; 4], count: Option<usize>, f: fn([u8; W]) -> T) -> Result<Vec<T>> {
        let b = self.bytes(tag)?;
        if b.len() % W != 0 || count.is_some_and(|n| n * W != b.len()) {
            return Err(self.err(format!(
                "section {} has {} bytes, expected {:?} values",
                String::from_utf8_lossy(tag),
                b.len(),
                count
            )));
        }
        Ok(b.chunks_exact(W).map(|c| f(c.try_into().unwrap())).collect())
    }

    fn u32s(&mut self, tag: &[u8; 4], n: Option<usize>) -> Result<Vec<u32>> {
        self.typed(tag, n, u32::from_le_bytes)
    }
    fn u64s(&mut self, tag: &[u8; 4], n: Option<usize>) -> Result<Vec<u64>> {
        self.typed(tag, n, u64::from_le_bytes)
    }
    fn f64s(&mut self, tag: &[u8; 4], n: Option<usize>) -> Result<Vec<f64>> {
        self.typed(tag, n, f64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::cartesian_box::{generate, BoxSpec};

    fn small() -> PreparedMesh {
        let raw = generate(&BoxSpec {
            dims: [3, 2, 2],
            lo: [0.0; 3],
            hi: [1.0, 2.0, 3.0],
        })
        .unwrap();
        prepare(&raw, Reorder::Rcm).unwrap().0
    }

    #[test]
    fn a_pmesh_reads_back_equal_to_what_was_written() {
        let m = small();
        let mut bytes = Vec::new();
        m.write_to(&mut bytes).unwrap();
        let back = PreparedMesh::from_bytes(&bytes, Path::new("x.pmesh")).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn version_2_files_without_periodic_data_are_still_read() {
        let m = small();
        let mut v2 = Vec::new();
        m.write_version(&mut v2, 2).unwrap();
        assert_eq!(u32::from_le_bytes(v2[8..12].try_into().unwrap()), 2);
        let back = PreparedMesh::from_bytes(&v2, Path::new("old.pmesh")).unwrap();
        assert_eq!(back, m);
        assert!(!back.is_periodic());
        back.refuse_periodic("any").unwrap();
        let mut v3 = Vec::new();
        m.write_to(&mut v3).unwrap();
        assert_eq!(v3.len(), v2.len() + 3 * 12, "version 3 adds three empty sections");
    }

    #[test]
    fn a_corrupted_truncated_foreign_or_newer_file_is_refused_with_the_reason() {
        let m = small();
        let mut bytes = Vec::new();
        m.write_to(&mut bytes).unwrap();
        let p = Path::new("x.pmesh");
        let mut bad = bytes.clone();
        bad[100] ^= 1;
        assert!(PreparedMesh::from_bytes(&bad, p)
            .unwrap_err()
            .to_string()
            .contains("checksum"));
        assert!(PreparedMesh::from_bytes(&bytes[..bytes.len() - 10], p)
            .unwrap_err()
            .to_string()
            .contains("truncated"));
        let mut v = bytes.clone();
        v[8] = 9;
        assert!(PreparedMesh::from_bytes(&v, p)
            .unwrap_err()
            .to_string()
            .contains("version 9"));
        assert!(PreparedMesh::from_bytes(b"hello world, not a mesh", p)
            .unwrap_err()
            .to_string()
            .contains("magic"));
    }

    #[test]
    fn the_box_patches_cover_its_surface_and_every_cell_is_closed() {
        let m = small();
        let total: f64 = m.patches.iter().map(|p| p.area).sum();
        assert!((total - 2.0 * (2.0 + 3.0 + 6.0)).abs() < 1e-12);
        assert!((m.total_volume() - 6.0).abs() < 1e-12);
        for c in 0..m.num_cells() {
            assert!(m.closure_defect(c) < 1e-14);
        }
    }
}
