//! Gmsh MSH reader: format 2.2 and 4.1, ASCII and binary, as written by Gmsh 4.x.
//!
//! Reads nodes (tags need not be contiguous), linear tetrahedra (type 4), boundary triangles
//! (type 2) with their physical group, and physical names. Points and lines are skipped; any
//! other volume element is an error that names its type and element tag. Every malformed input
//! is an error naming the line (ASCII) or byte offset (binary), never a panic.
//!
//! `$Periodic` (MSH 2.2: always ASCII, an optional `Affine` line per link; MSH 4.1: ASCII or
//! binary, `numAffine` 0 or 16 values) is read for surface links (dimension 2); the links of
//! points and curves are skipped, since Gmsh lists a surface's bounding nodes in the surface
//! link too. Every node pair is checked against the link's affine map (x_slave = A x_master).

use crate::error::{MeshError, Result};
use crate::mesh::{vec3, PeriodicLink, RawMesh};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const TET4: i32 = 4;
const TRI3: i32 = 2;

/// A Gmsh element type's node count, name and dimension.
fn element_info(t: i32) -> Option<(usize, &'static str, u8)> {
    crate::element_types::element_type(t).map(|e| (e.nodes, e.name, e.dim))
}

/// Read a `.msh` file from disk.
pub fn read_msh(path: &Path) -> Result<RawMesh> {
    let bytes = std::fs::read(path).map_err(|e| MeshError::io(path, e))?;
    parse_msh(&bytes, path)
}

/// Parse MSH bytes; `path` only labels errors.
pub fn parse_msh(bytes: &[u8], path: &Path) -> Result<RawMesh> {
    let mut c = Cursor {
        data: bytes,
        pos: 0,
        path: path.to_path_buf(),
        binary: false,
        size_t: 8,
    };
    let mut builder = Builder::default();
    let mut version: Option<u8> = None;
    while let Some(header) = c.next_nonempty_line() {
        read_section(&mut c, &mut builder, &mut version, header.trim())?;
    }
    if version.is_none() {
        return Err(c.err_at(0, "no $MeshFormat section: this is not a Gmsh .msh file"));
    }
    builder.finish(&c)
}

/// The section whose header line was just read, through its end marker; `$MeshFormat` sets
/// the version (2 or 4) that the sections after it are read by. Unknown sections are skipped.
fn read_section(c: &mut Cursor, b: &mut Builder, version: &mut Option<u8>, header: &str) -> Result<()> {
    match header {
        "$MeshFormat" => {
            *version = Some(read_mesh_format(c)?);
            c.expect_end("$EndMeshFormat")?;
        }
        "$PhysicalNames" => {
            read_physical_names(c, b)?;
            c.expect_end("$EndPhysicalNames")?;
        }
        "$Entities" => {
            require_version(c, *version, 4, "$Entities")?;
            read_entities(c, b)?;
            c.expect_end("$EndEntities")?;
        }
        "$Nodes" => {
            match *version {
                Some(2) => read_nodes_v2(c, b)?,
                Some(4) => read_nodes_v4(c, b)?,
                _ => return Err(c.err_at(c.pos, "$Nodes before $MeshFormat")),
            }
            c.expect_end("$EndNodes")?;
        }
        "$Periodic" => {
            match *version {
                // Gmsh writes this section in ASCII even in binary MSH 2.2 files.
                Some(2) => read_periodic_v2(c, b)?,
                Some(4) => read_periodic_v4(c, b)?,
                _ => return Err(c.err_at(c.pos, "$Periodic before $MeshFormat")),
            }
            c.expect_end("$EndPeriodic")?;
        }
        "$Elements" => {
            match *version {
                Some(2) => read_elements_v2(c, b)?,
                Some(4) => read_elements_v4(c, b)?,
                _ => return Err(c.err_at(c.pos, "$Elements before $MeshFormat")),
            }
            c.expect_end("$EndElements")?;
        }
        h if h.starts_with('$') && !h.starts_with("$End") => {
            // Unknown section ($NodeData, $PartitionedEntities...): skip it.
            let end = format!("$End{}", &h[1..]);
            c.skip_to_line(&end)?;
        }
        other => {
            let at = c.pos.saturating_sub(other.len() + 1);
            return Err(c.err_at(
                at,
                format!("expected a section header like $Nodes, found '{}'", truncate(other)),
            ));
        }
    }
    Ok(())
}

/// `$MeshFormat`: version (2.2 or 4.1), file type and data size, and in binary files the
/// endianness marker. Sets the cursor's encoding; returns the major version.
fn read_mesh_format(c: &mut Cursor) -> Result<u8> {
    let at = c.pos;
    let line = c.line().ok_or_else(|| c.err_at(at, "file ends inside $MeshFormat"))?;
    let mut it = line.split_whitespace();
    let v = it.next().unwrap_or("");
    let ft = it.next().unwrap_or("");
    let ds = it.next().unwrap_or("");
    let version = match v {
        "2.2" => 2,
        v if v.starts_with("4.1") => 4,
        other => {
            return Err(c.err_at(
                at,
                format!("unsupported MSH version '{other}'; save as 2.2 or 4.1 (gmsh -format msh22 | msh41)"),
            ))
        }
    };
    c.binary = match ft {
        "0" => false,
        "1" => true,
        _ => return Err(c.err_at(at, format!("file-type must be 0 (ASCII) or 1 (binary), found '{ft}'"))),
    };
    c.size_t = match ds {
        "8" => 8,
        "4" => 4,
        _ => return Err(c.err_at(at, format!("data-size must be 4 or 8, found '{ds}'"))),
    };
    if c.binary {
        let at = c.pos;
        let one = c.bin_i32()?;
        if one != 1 {
            return Err(c.err_at(
                at,
                "binary endianness marker is not 1: big-endian files are not supported",
            ));
        }
        c.skip_newline();
    }
    Ok(version)
}

/// `$PhysicalNames`: a count, then `dim tag "name"` lines.
fn read_physical_names(c: &mut Cursor, b: &mut Builder) -> Result<()> {
    let n = c.ascii_count("number of physical names")?;
    for _ in 0..n {
        let at = c.pos;
        let line = c
            .line()
            .ok_or_else(|| c.err_at(at, "file ends inside $PhysicalNames"))?;
        let (dim_tag, name) = match line.find('"') {
            Some(q) => (&line[..q], line[q..].trim().trim_matches('"')),
            None => return Err(c.err_at(at, "physical name must be quoted: dim tag \"name\"")),
        };
        let mut it = dim_tag.split_whitespace();
        let dim: i32 = parse_tok(c, at, it.next(), "physical dimension")?;
        let tag: i32 = parse_tok(c, at, it.next(), "physical tag")?;
        b.physical_names.insert((dim, tag), name.to_string());
    }
    Ok(())
}

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}

fn require_version(c: &Cursor, v: Option<u8>, want: u8, what: &str) -> Result<()> {
    if v != Some(want) {
        return Err(c.err_at(c.pos, format!("{what} is only valid in MSH {want}.x files")));
    }
    Ok(())
}

fn parse_tok<T: std::str::FromStr>(c: &Cursor, at: usize, tok: Option<&str>, what: &str) -> Result<T> {
    let tok = tok.ok_or_else(|| c.err_at(at, format!("missing {what}: line too short or file truncated")))?;
    tok.parse()
        .map_err(|_| c.err_at(at, format!("{what}: cannot parse '{}'", truncate(tok))))
}

/// One element as read, before node tags are resolved.
struct Element<'n> {
    /// Byte offset, for error messages.
    at: usize,
    tag: u64,
    etype: i32,
    nodes: &'n [u64],
    /// Physical group (0 = none) and elementary entity tags.
    physical: i32,
    entity: i32,
}

#[derive(Default)]
struct Builder {
    physical_names: HashMap<(i32, i32), String>,
    /// (dim, entity tag) -> first physical tag (MSH 4.1).
    entity_physical: HashMap<(i32, i32), i32>,
    node_tags: Vec<u64>,
    node_xyz: Vec<[f64; 3]>,
    /// Element node lists by node tag, resolved to indices in `finish`.
    tets: Vec<[u64; 4]>,
    tet_tags: Vec<u64>,
    tris: Vec<[u64; 3]>,
    /// (physical tag, elementary tag) of each triangle; physical 0 = none.
    tri_groups: Vec<(i32, i32)>,
    /// Byte offset of each element, for error messages.
    tet_at: Vec<usize>,
    tri_at: Vec<usize>,
    periodic: Vec<RawLink>,
}

/// One `$Periodic` link as read, before node tags are resolved.
struct RawLink {
    at: usize,
    dim: i32,
    slave: i32,
    master: i32,
    affine: Option<[f64; 16]>,
    pairs: Vec<[u64; 2]>,
}

impl Builder {
    fn add_element(&mut self, c: &Cursor, e: Element) -> Result<()> {
        let Element {
            at,
            tag,
            etype,
            nodes,
            physical: phys,
            entity: elem,
        } = e;
        match etype {
            TET4 => {
                self.tets.push([nodes[0], nodes[1], nodes[2], nodes[3]]);
                self.tet_tags.push(tag);
                self.tet_at.push(at);
            }
            TRI3 => {
                self.tris.push([nodes[0], nodes[1], nodes[2]]);
                self.tri_groups.push((phys, elem));
                self.tri_at.push(at);
            }
            t => match element_info(t) {
                Some((_, name, 3)) => {
                    return Err(MeshError::UnsupportedElement {
                        path: c.path.clone(),
                        element: tag,
                        type_id: t,
                        type_name: name,
                    })
                }
                Some(_) => {} // points, lines, quads, higher-order surfaces: not needed
                None => return Err(c.err_at(at, format!("element {tag} has unknown element type {t}"))),
            },
        }
        Ok(())
    }

    /// Canonical order, so the same mesh saved in any MSH version or encoding gives the same
    /// result: nodes by node tag, tetrahedra by element tag, patches by physical tag.
    fn finish(mut self, c: &Cursor) -> Result<RawMesh> {
        self.sort_by_tags();
        if self.tets.is_empty() {
            // Once there are physical groups, Gmsh saves only their elements.
            let grouped = self.tri_groups.iter().any(|&(phys, _)| phys != 0) || !self.physical_names.is_empty();
            return Err(c.err_at(0, if grouped {
                "the file contains no linear tetrahedra (element type 4): mesh the volume in 3-D (`gmsh -3`, or Mesh > 3D) and save again; if it was meshed, the volume is in no physical group while surfaces are, and Gmsh then saves only the grouped elements: add one (e.g. `Physical Volume(\"fluid\") = {1};`) and save again"
            } else {
                "the file contains no linear tetrahedra (element type 4): mesh the volume in 3-D (`gmsh -3`, or Mesh > 3D) and save again"
            }));
        }
        let index = NodeIndex::new(&self.node_tags, c)?;
        let mut mesh = RawMesh {
            tets: self.resolve_tets(c, &index)?,
            ..RawMesh::default()
        };
        self.resolve_triangles(c, &index, &mut mesh)?;
        mesh.nodes = std::mem::take(&mut self.node_xyz);
        mesh.sort_patches_by_tag();
        mesh.periodic = self.resolve_periodic(c, &index, &mesh)?;
        Ok(mesh)
    }

    /// Nodes by node tag, tetrahedra by element tag.
    fn sort_by_tags(&mut self) {
        let mut by_tag: Vec<usize> = (0..self.node_tags.len()).collect();
        by_tag.sort_unstable_by_key(|&i| self.node_tags[i]);
        self.node_tags = by_tag.iter().map(|&i| self.node_tags[i]).collect();
        self.node_xyz = by_tag.iter().map(|&i| self.node_xyz[i]).collect();
        let mut by_tag: Vec<usize> = (0..self.tets.len()).collect();
        by_tag.sort_by_key(|&i| self.tet_tags[i]);
        self.tets = by_tag.iter().map(|&i| self.tets[i]).collect();
        self.tet_at = by_tag.iter().map(|&i| self.tet_at[i]).collect();
    }

    /// The tetrahedra's node tags as node indices.
    fn resolve_tets(&self, c: &Cursor, index: &NodeIndex) -> Result<Vec<[u32; 4]>> {
        let mut tets = Vec::with_capacity(self.tets.len());
        for (tet, &at) in self.tets.iter().zip(&self.tet_at) {
            tets.push(index.resolve(c, tet, at, "tetrahedron")?);
        }
        Ok(tets)
    }

    /// The boundary triangles as node indices, each in the patch of its physical group (or,
    /// without one, of its geometric surface).
    fn resolve_triangles(&self, c: &Cursor, index: &NodeIndex, mesh: &mut RawMesh) -> Result<()> {
        for (k, tri) in self.tris.iter().enumerate() {
            let out = index.resolve(c, tri, self.tri_at[k], "triangle")?;
            let (phys, elem) = self.tri_groups[k];
            let names = &self.physical_names;
            let patch = if phys != 0 {
                mesh.patch_index(phys, || {
                    names
                        .get(&(2, phys))
                        .cloned()
                        .unwrap_or_else(|| format!("patch_{phys}"))
                })
            } else {
                // No physical group: group by geometric surface. Negative tags keep them apart
                // from physical tags.
                mesh.patch_index(-elem - 1, || format!("surface_{elem}"))
            };
            mesh.boundary_tris.push(out);
            mesh.boundary_patch.push(patch);
        }
        Ok(())
    }

    /// The periodic surface links (those of points and curves are dropped): entity -> patch
    /// through the triangles, node tags -> indices, and every pair checked against the affine
    /// map.
    fn resolve_periodic(&self, c: &Cursor, index: &NodeIndex, mesh: &RawMesh) -> Result<Vec<PeriodicLink>> {
        let mut entity_patch: HashMap<i32, u32> = HashMap::new();
        for (k, &(_, elem)) in self.tri_groups.iter().enumerate() {
            entity_patch.entry(elem).or_insert(mesh.boundary_patch[k]);
        }
        let (lo, hi) = mesh.bounding_box();
        let tol = 1e-6 * vec3::norm(vec3::sub(hi, lo));
        let mut links = Vec::new();
        for l in self.periodic.iter().filter(|l| l.dim == 2) {
            let patch_of = |e: i32| {
                entity_patch.get(&e).copied().ok_or_else(|| {
                    c.err_at(
                        l.at,
                        format!(
                            "periodic link of surface {} (master {}): surface {e} has no boundary triangles in the file; add both surfaces to physical groups (Physical Surface) so Gmsh saves their triangles",
                            l.slave, l.master
                        ),
                    )
                })
            };
            let (slave_patch, master_patch) = (patch_of(l.slave)?, patch_of(l.master)?);
            links.push(PeriodicLink {
                slave_entity: l.slave,
                master_entity: l.master,
                slave_patch,
                master_patch,
                affine: l.affine,
                pairs: link_pairs(c, l, index, &mesh.nodes, tol)?,
            });
        }
        Ok(links)
    }
}

/// The node pairs of link `l` as node indices, each checked against the link's affine map
/// when that map is a translation (a rotation is refused later, by the topology, with its own
/// message).
fn link_pairs(c: &Cursor, l: &RawLink, index: &NodeIndex, nodes: &[[f64; 3]], tol: f64) -> Result<Vec<[u32; 2]>> {
    let translation_only = l.affine.as_ref().filter(|a| {
        [a[0] - 1.0, a[1], a[2], a[4], a[5] - 1.0, a[6], a[8], a[9], a[10] - 1.0]
            .iter()
            .all(|x| x.abs() <= 1e-9)
    });
    let mut pairs = Vec::with_capacity(l.pairs.len());
    for &[ts, tm] in &l.pairs {
        let idx = |t: u64| {
            index.get(t).ok_or_else(|| {
                c.err_at(
                    l.at,
                    format!(
                        "periodic link of surface {} (master {}): node pair ({ts}, {tm}) refers to node tag {t} which is not in $Nodes",
                        l.slave, l.master
                    ),
                )
            })
        };
        let (s, m) = (idx(ts)?, idx(tm)?);
        if let Some(a) = translation_only {
            check_image(c, l, a, ([ts, tm], [nodes[s as usize], nodes[m as usize]]), tol)?;
        }
        pairs.push([s, m]);
    }
    Ok(pairs)
}

/// Refuse a node pair ([slave tag, master tag], [slave position, master position]) whose slave
/// is farther than `tol` from the master's image under the affine map `a`.
fn check_image(c: &Cursor, l: &RawLink, a: &[f64; 16], pair: ([u64; 2], [[f64; 3]; 2]), tol: f64) -> Result<()> {
    let ([ts, tm], [xs, xm]) = pair;
    let img: [f64; 3] =
        std::array::from_fn(|r| a[4 * r] * xm[0] + a[4 * r + 1] * xm[1] + a[4 * r + 2] * xm[2] + a[4 * r + 3]);
    let off = vec3::norm(vec3::sub(img, xs));
    if off > tol || off.is_nan() {
        return Err(c.err_at(
            l.at,
            format!(
                "periodic link of surface {} (master {}): slave node {ts} ({:.9}, {:.9}, {:.9}) is not the image of master node {tm} ({:.9}, {:.9}, {:.9}) under the affine transform, which maps it to ({:.9}, {:.9}, {:.9}): mismatch {off:.3e} (tolerance {tol:.1e})",
                l.slave, l.master, xs[0], xs[1], xs[2], xm[0], xm[1], xm[2], img[0], img[1], img[2]
            ),
        ));
    }
    Ok(())
}

/// Node tag -> node index. Node tags may be sparse: a dense table when they are compact, else
/// a hash map.
enum NodeIndex {
    Dense(Vec<u32>),
    Sparse(HashMap<u64, u32>),
}

impl NodeIndex {
    /// The index of the sorted node tags; refuses a tag defined twice.
    fn new(tags: &[u64], c: &Cursor) -> Result<NodeIndex> {
        let max_tag = tags.iter().copied().max().unwrap_or(0);
        let mut index = if max_tag as usize <= 4 * tags.len() + 1024 {
            NodeIndex::Dense(vec![u32::MAX; max_tag as usize + 1])
        } else {
            NodeIndex::Sparse(HashMap::new())
        };
        for (i, &t) in tags.iter().enumerate() {
            let slot = match &mut index {
                NodeIndex::Dense(v) => &mut v[t as usize],
                NodeIndex::Sparse(m) => m.entry(t).or_insert(u32::MAX),
            };
            if *slot != u32::MAX {
                return Err(c.err_at(0, format!("node tag {t} is defined twice")));
            }
            *slot = i as u32;
        }
        Ok(index)
    }

    fn get(&self, t: u64) -> Option<u32> {
        match self {
            NodeIndex::Dense(v) => v.get(t as usize).copied().filter(|&i| i != u32::MAX),
            NodeIndex::Sparse(m) => m.get(&t).copied(),
        }
    }

    /// An element's node tags as indices; a tag not in `$Nodes` is refused at the element's
    /// offset `at`, naming the element's kind `what`.
    fn resolve<const N: usize>(&self, c: &Cursor, tags: &[u64; N], at: usize, what: &str) -> Result<[u32; N]> {
        let mut out = [0u32; N];
        for j in 0..N {
            out[j] = self.get(tags[j]).ok_or_else(|| {
                c.err_at(
                    at,
                    format!("{what} refers to node tag {} which is not in $Nodes", tags[j]),
                )
            })?;
        }
        Ok(out)
    }
}

/// MSH 2.2 `$Periodic` (ASCII in both encodings):
/// ```text
/// number-of-links
/// dimension slave-tag master-tag          (per link)
/// Affine a11 a12 ... a44                  (optional: 16 numbers, x_slave = A x_master)
/// number-of-node-pairs
/// slave-node master-node                  (per pair)
/// ```
fn read_periodic_v2(c: &mut Cursor, b: &mut Builder) -> Result<()> {
    let n = c.ascii_count("number of periodic links")?;
    c.check_count(n, 6, c.pos)?;
    for _ in 0..n {
        let at = c.pos;
        let line = c.line().ok_or_else(|| c.err_at(at, "file ends inside $Periodic"))?;
        let mut it = line.split_whitespace();
        let dim: i32 = parse_tok(c, at, it.next(), "periodic link dimension")?;
        let slave: i32 = parse_tok(c, at, it.next(), "periodic slave entity tag")?;
        let master: i32 = parse_tok(c, at, it.next(), "periodic master entity tag")?;
        let at2 = c.pos;
        let line = c.line().ok_or_else(|| c.err_at(at2, "file ends inside $Periodic"))?;
        let mut affine = None;
        let count_line = if let Some(rest) = line.trim_start().strip_prefix("Affine") {
            let v: Vec<f64> = rest
                .split_whitespace()
                .map(|t| {
                    t.parse()
                        .map_err(|_| c.err_at(at2, format!("Affine: cannot parse '{}'", truncate(t))))
                })
                .collect::<Result<_>>()?;
            let a: [f64; 16] = v
                .try_into()
                .map_err(|v: Vec<f64>| c.err_at(at2, format!("Affine needs 16 numbers, found {}", v.len())))?;
            affine = Some(a);
            let at3 = c.pos;
            (
                at3,
                c.line().ok_or_else(|| c.err_at(at3, "file ends inside $Periodic"))?,
            )
        } else {
            (at2, line)
        };
        let np: u64 = parse_tok(
            c,
            count_line.0,
            count_line.1.split_whitespace().next(),
            "number of periodic node pairs",
        )?;
        c.check_count(np, 4, count_line.0)?;
        let mut pairs = Vec::with_capacity(np as usize);
        for _ in 0..np {
            pairs.push([c.tok("periodic slave node")?, c.tok("periodic master node")?]);
        }
        c.skip_newline();
        b.periodic.push(RawLink {
            at,
            dim,
            slave,
            master,
            affine,
            pairs,
        });
    }
    Ok(())
}

/// MSH 4.1 `$Periodic` (ASCII or binary):
/// ```text
/// numPeriodicLinks(size_t)
/// entityDim(int) entityTag(int) entityTagMaster(int)
/// numAffine(size_t) value(double) ...         (0 or 16 values, x_slave = A x_master)
/// numCorrespondingNodes(size_t)
/// nodeTag(size_t) nodeTagMaster(size_t) ...
/// ```
fn read_periodic_v4(c: &mut Cursor, b: &mut Builder) -> Result<()> {
    let n = c.size("number of periodic links")?;
    c.check_count(n, 6, c.pos)?;
    for _ in 0..n {
        let at = c.pos;
        let (dim, slave, master) = if c.binary {
            (c.bin_i32()?, c.bin_i32()?, c.bin_i32()?)
        } else {
            (
                c.tok("periodic link dimension")?,
                c.tok("periodic slave entity tag")?,
                c.tok("periodic master entity tag")?,
            )
        };
        let na = c.size("number of affine values")?;
        let mut affine = None;
        match na {
            0 => {}
            16 => {
                let mut a = [0.0; 16];
                for x in &mut a {
                    *x = if c.binary { c.bin_f64()? } else { c.tok("affine value")? };
                }
                affine = Some(a);
            }
            k => {
                return Err(c.err_at(
                    at,
                    format!("periodic link of surface {slave}: numAffine must be 0 or 16, found {k}"),
                ))
            }
        }
        let np = c.size("number of periodic node pairs")?;
        c.check_count(np, if c.binary { 2 * c.size_t as u64 } else { 4 }, at)?;
        let mut pairs = Vec::with_capacity(np as usize);
        for _ in 0..np {
            pairs.push([c.size("periodic slave node")?, c.size("periodic master node")?]);
        }
        b.periodic.push(RawLink {
            at,
            dim,
            slave,
            master,
            affine,
            pairs,
        });
    }
    c.skip_newline();
    Ok(())
}

fn read_entities(c: &mut Cursor, b: &mut Builder) -> Result<()> {
    let counts: [u64; 4] = if c.binary {
        [c.bin_size()?, c.bin_size()?, c.bin_size()?, c.bin_size()?]
    } else {
        let at = c.pos;
        let line = c.line().ok_or_else(|| c.err_at(at, "file ends inside $Entities"))?;
        let mut it = line.split_whitespace();
        [
            parse_tok(c, at, it.next(), "number of points")?,
            parse_tok(c, at, it.next(), "number of curves")?,
            parse_tok(c, at, it.next(), "number of surfaces")?,
            parse_tok(c, at, it.next(), "number of volumes")?,
        ]
    };
    for (dim, &n) in counts.iter().enumerate() {
        for _ in 0..n {
            let at = c.pos;
            if c.binary {
                let tag = c.bin_i32()?;
                let ncoord = if dim == 0 { 3 } else { 6 };
                c.skip_bytes(8 * ncoord)?;
                let nphys = c.bin_size()?;
                c.check_count(nphys, 4, at)?;
                let mut first = None;
                for _ in 0..nphys {
                    let p = c.bin_i32()?;
                    first.get_or_insert(p);
                }
                if let Some(p) = first {
                    b.entity_physical.insert((dim as i32, tag), p);
                }
                if dim > 0 {
                    let nb = c.bin_size()?;
                    c.check_count(nb, 4, at)?;
                    c.skip_bytes(4 * nb as usize)?;
                }
            } else {
                let line = c.line().ok_or_else(|| c.err_at(at, "file ends inside $Entities"))?;
                let mut it = line.split_whitespace();
                let tag: i32 = parse_tok(c, at, it.next(), "entity tag")?;
                let ncoord = if dim == 0 { 3 } else { 6 };
                for _ in 0..ncoord {
                    let _: f64 = parse_tok(c, at, it.next(), "entity coordinate")?;
                }
                let nphys: usize = parse_tok(c, at, it.next(), "number of physical tags")?;
                for k in 0..nphys {
                    let p: i32 = parse_tok(c, at, it.next(), "physical tag")?;
                    if k == 0 {
                        b.entity_physical.insert((dim as i32, tag), p);
                    }
                }
            }
        }
    }
    if c.binary {
        c.skip_newline();
    }
    Ok(())
}

fn read_nodes_v2(c: &mut Cursor, b: &mut Builder) -> Result<()> {
    let n = c.ascii_count("number of nodes")?;
    c.check_count(n, if c.binary { 28 } else { 8 }, c.pos)?;
    b.node_tags.reserve(n as usize);
    b.node_xyz.reserve(n as usize);
    for _ in 0..n {
        let at = c.pos;
        if c.binary {
            let tag = c.bin_i32()?;
            if tag <= 0 {
                return Err(c.err_at(at, format!("node tag {tag} must be positive")));
            }
            let xyz = [c.bin_f64()?, c.bin_f64()?, c.bin_f64()?];
            b.node_tags.push(tag as u64);
            b.node_xyz.push(xyz);
        } else {
            let tag: u64 = c.tok("node tag")?;
            let xyz = [c.tok("node x")?, c.tok("node y")?, c.tok("node z")?];
            if tag == 0 {
                return Err(c.err_at(at, "node tag 0 is not allowed (tags start at 1)"));
            }
            b.node_tags.push(tag);
            b.node_xyz.push(xyz);
        }
    }
    if c.binary {
        c.skip_newline();
    }
    Ok(())
}

fn read_nodes_v4(c: &mut Cursor, b: &mut Builder) -> Result<()> {
    let (nblocks, nnodes) = c.block_header("node")?;
    c.check_count(nnodes, if c.binary { 24 + c.size_t as u64 } else { 8 }, c.pos)?;
    b.node_tags.reserve(nnodes as usize);
    b.node_xyz.reserve(nnodes as usize);
    for _ in 0..nblocks {
        let at = c.pos;
        let (dim, parametric, n) = if c.binary {
            let dim = c.bin_i32()?;
            c.bin_i32()?;
            let par = c.bin_i32()?;
            (dim, par, c.bin_size()?)
        } else {
            let dim: i32 = c.tok("entity dimension")?;
            let _: i32 = c.tok("entity tag")?;
            let par: i32 = c.tok("parametric flag")?;
            (dim, par, c.tok::<u64>("nodes in block")?)
        };
        c.check_count(n, if c.binary { 24 + c.size_t as u64 } else { 8 }, at)?;
        let start = b.node_tags.len();
        for _ in 0..n {
            let t = if c.binary { c.bin_size()? } else { c.tok("node tag")? };
            if t == 0 {
                return Err(c.err_at(at, "node tag 0 is not allowed (tags start at 1)"));
            }
            b.node_tags.push(t);
        }
        let npar = if parametric != 0 { dim.clamp(0, 3) as usize } else { 0 };
        for _ in 0..n {
            let xyz = if c.binary {
                [c.bin_f64()?, c.bin_f64()?, c.bin_f64()?]
            } else {
                [c.tok("node x")?, c.tok("node y")?, c.tok("node z")?]
            };
            for _ in 0..npar {
                if c.binary {
                    c.bin_f64()?;
                } else {
                    c.tok::<f64>("parametric coordinate")?;
                }
            }
            b.node_xyz.push(xyz);
        }
        debug_assert_eq!(b.node_tags.len() - start, n as usize);
    }
    if b.node_tags.len() as u64 != nnodes {
        return Err(c.err_at(
            c.pos,
            format!(
                "$Nodes header announces {nnodes} nodes but the blocks hold {}",
                b.node_tags.len()
            ),
        ));
    }
    if c.binary {
        c.skip_newline();
    }
    Ok(())
}

fn read_elements_v2(c: &mut Cursor, b: &mut Builder) -> Result<()> {
    let n = c.ascii_count("number of elements")?;
    c.check_count(n, if c.binary { 12 } else { 6 }, c.pos)?;
    let mut read = 0u64;
    while read < n {
        if c.binary {
            read += read_element_block_v2(c, b, n, read)?;
        } else {
            read_element_line_v2(c, b, n, read)?;
            read += 1;
        }
    }
    if c.binary {
        c.skip_newline();
    }
    Ok(())
}

/// Binary MSH 2.2: one block of (type, count, ntags), then count * (tag, tags..., nodes...),
/// `read` of the `n` elements being read before it; returns the block's count.
fn read_element_block_v2(c: &mut Cursor, b: &mut Builder, n: u64, read: u64) -> Result<u64> {
    let at = c.pos;
    let etype = c.bin_i32()?;
    let count = c.bin_i32()?;
    let ntags = c.bin_i32()?;
    if count <= 0 || ntags < 0 || read + count as u64 > n {
        return Err(c.err_at(
            at,
            format!("bad element block header (type {etype}, count {count}, tags {ntags})"),
        ));
    }
    let (nn, _, _) = element_info(etype).ok_or_else(|| c.err_at(at, format!("unknown element type {etype}")))?;
    let mut nodes = vec![0u64; nn];
    for _ in 0..count {
        let at = c.pos;
        let tag = c.bin_i32()?;
        let mut tags = [0i32; 2];
        for k in 0..ntags as usize {
            let t = c.bin_i32()?;
            if k < 2 {
                tags[k] = t;
            }
        }
        for node in nodes.iter_mut().take(nn) {
            *node = c.bin_i32()?.max(0) as u64;
        }
        b.add_element(
            c,
            Element {
                at,
                tag: tag as u64,
                etype,
                nodes: &nodes[..nn],
                physical: tags[0],
                entity: tags[1],
            },
        )?;
    }
    Ok(count as u64)
}

/// ASCII MSH 2.2: one element line `tag type ntags tags... nodes...`, `read` of the `n`
/// elements being read before it.
fn read_element_line_v2(c: &mut Cursor, b: &mut Builder, n: u64, read: u64) -> Result<()> {
    let at = c.pos;
    let line = c
        .line()
        .ok_or_else(|| c.err_at(at, format!("file ends after {read} of {n} elements")))?;
    if line.starts_with('$') {
        return Err(c.err_at(
            at,
            format!(
                "the header announces {n} elements but {} follows after {read}: fix the count",
                line.trim()
            ),
        ));
    }
    let mut it = line.split_whitespace();
    let tag: u64 = parse_tok(c, at, it.next(), "element tag")?;
    let etype: i32 = parse_tok(c, at, it.next(), "element type")?;
    let ntags: usize = parse_tok(c, at, it.next(), "number of tags")?;
    let mut tags = [0i32; 2];
    for k in 0..ntags {
        let t: i32 = parse_tok(c, at, it.next(), "element tag list")?;
        if k < 2 {
            tags[k] = t;
        }
    }
    let (nn, _, _) =
        element_info(etype).ok_or_else(|| c.err_at(at, format!("element {tag} has unknown element type {etype}")))?;
    // On the stack for the usual types; Gmsh's high orders have up to 1000 nodes.
    let (mut small, mut large) = ([0u64; 32], Vec::new());
    let nodes: &mut [u64] = if nn <= small.len() {
        &mut small[..nn]
    } else {
        large.resize(nn, 0);
        &mut large
    };
    for node in nodes.iter_mut() {
        *node = parse_tok(c, at, it.next(), "element node")?;
    }
    if it.next().is_some() {
        return Err(c.err_at(
            at,
            format!("element {tag}: more node tags than a type-{etype} element has"),
        ));
    }
    b.add_element(
        c,
        Element {
            at,
            tag,
            etype,
            nodes: &nodes[..nn],
            physical: tags[0],
            entity: tags[1],
        },
    )
}

fn read_elements_v4(c: &mut Cursor, b: &mut Builder) -> Result<()> {
    let (nblocks, nelem) = c.block_header("element")?;
    c.check_count(nelem, 4, c.pos)?;
    let mut total = 0u64;
    let mut nodes: Vec<u64> = Vec::new();
    for _ in 0..nblocks {
        let at = c.pos;
        let (dim, etag, etype, n) = if c.binary {
            (c.bin_i32()?, c.bin_i32()?, c.bin_i32()?, c.bin_size()?)
        } else {
            (
                c.tok("entity dimension")?,
                c.tok("entity tag")?,
                c.tok("element type")?,
                c.tok::<u64>("elements in block")?,
            )
        };
        let (nn, _, _) = element_info(etype).ok_or_else(|| c.err_at(at, format!("unknown element type {etype}")))?;
        c.check_count(n, (nn as u64 + 1) * if c.binary { c.size_t as u64 } else { 2 }, at)?;
        let phys = b.entity_physical.get(&(dim, etag)).copied().unwrap_or(0);
        nodes.resize(nn, 0);
        for _ in 0..n {
            let at = c.pos;
            let tag = if c.binary { c.bin_size()? } else { c.tok("element tag")? };
            for node in nodes.iter_mut().take(nn) {
                *node = if c.binary {
                    c.bin_size()?
                } else {
                    c.tok("element node")?
                };
            }
            b.add_element(
                c,
                Element {
                    at,
                    tag,
                    etype,
                    nodes: &nodes[..nn],
                    physical: phys,
                    entity: etag,
                },
            )?;
        }
        total += n;
    }
    if total != nelem {
        return Err(c.err_at(
            c.pos,
            format!("$Elements header announces {nelem} elements but the blocks hold {total}"),
        ));
    }
    if c.binary {
        c.skip_newline();
    }
    Ok(())
}

/// A position in the file with helpers for ASCII tokens and little-endian binary values.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    path: PathBuf,
    binary: bool,
    size_t: u8,
}

impl<'a> Cursor<'a> {
    fn err_at(&self, at: usize, msg: impl Into<String>) -> MeshError {
        let at = at.min(self.data.len());
        // Lines mean nothing inside binary data: binary files report byte offsets.
        let location = if self.binary {
            format!("byte {at}")
        } else {
            let line = self.data[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            format!("line {line}")
        };
        MeshError::Parse {
            path: self.path.clone(),
            location,
            message: msg.into(),
        }
    }

    fn line(&mut self) -> Option<&'a str> {
        if self.pos >= self.data.len() {
            return None;
        }
        let rest = &self.data[self.pos..];
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        self.pos += (end + 1).min(rest.len());
        let raw = &rest[..end];
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        Some(std::str::from_utf8(raw).unwrap_or("<binary data>"))
    }

    fn next_nonempty_line(&mut self) -> Option<&'a str> {
        loop {
            let l = self.line()?;
            if !l.trim().is_empty() {
                return Some(l);
            }
        }
    }

    fn expect_end(&mut self, end: &str) -> Result<()> {
        let at = self.pos;
        match self.next_nonempty_line() {
            Some(l) if l.trim() == end => Ok(()),
            Some(l) => Err(self.err_at(
                at,
                format!(
                    "expected {end}, found '{}' (wrong counts in the section header?)",
                    truncate(l.trim())
                ),
            )),
            None => Err(self.err_at(at, format!("file ends before {end}: truncated file?"))),
        }
    }

    fn skip_to_line(&mut self, end: &str) -> Result<()> {
        let at = self.pos;
        while let Some(l) = self.line() {
            if l.trim() == end {
                return Ok(());
            }
        }
        Err(self.err_at(at, format!("file ends before {end}")))
    }

    /// Next whitespace-separated token, parsed.
    fn tok<T: std::str::FromStr>(&mut self, what: &str) -> Result<T> {
        let d = self.data;
        while self.pos < d.len() && d[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        let start = self.pos;
        while self.pos < d.len() && !d[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.err_at(start, format!("file ends while reading {what}: truncated file?")));
        }
        let s = std::str::from_utf8(&d[start..self.pos]).unwrap_or("<non-text>");
        if s.starts_with('$') {
            return Err(self.err_at(
                start,
                format!(
                    "expected {what}, found '{}' (too few entries for the count in the header?)",
                    truncate(s)
                ),
            ));
        }
        s.parse()
            .map_err(|_| self.err_at(start, format!("{what}: cannot parse '{}'", truncate(s))))
    }

    /// A count on a line of its own (also in binary files).
    fn ascii_count(&mut self, what: &str) -> Result<u64> {
        let at = self.pos;
        let line = self
            .line()
            .ok_or_else(|| self.err_at(at, format!("file ends before {what}")))?;
        let mut it = line.split_whitespace();
        let v = parse_tok(self, at, it.next(), what)?;
        Ok(v)
    }

    /// Guard against absurd counts before reserving memory: each item needs at least
    /// `min_bytes` of the file.
    fn check_count(&self, n: u64, min_bytes: u64, at: usize) -> Result<()> {
        let left = (self.data.len() - self.pos.min(self.data.len())) as u64;
        if n.saturating_mul(min_bytes) > left {
            return Err(self.err_at(
                at,
                format!("count {n} is larger than the rest of the file can hold: wrong count or truncated file"),
            ));
        }
        Ok(())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.pos + n > self.data.len() {
            return Err(self.err_at(self.pos, "file ends inside binary data: truncated file?"));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn skip_bytes(&mut self, n: usize) -> Result<()> {
        self.take(n).map(|_| ())
    }

    fn bin_i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn bin_f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }

    fn bin_size(&mut self) -> Result<u64> {
        Ok(if self.size_t == 8 {
            u64::from_le_bytes(self.take(8)?.try_into().unwrap())
        } else {
            u32::from_le_bytes(self.take(4)?.try_into().unwrap()) as u64
        })
    }

    /// A size: size_t in binary files, a token in ASCII ones.
    fn size(&mut self, what: &str) -> Result<u64> {
        if self.binary {
            self.bin_size()
        } else {
            self.tok(what)
        }
    }

    /// The MSH 4.1 section header: number of entity blocks, number of items, min and max tag.
    fn block_header(&mut self, item: &str) -> Result<(u64, u64)> {
        let blocks = self.size(&format!("number of {item} blocks"))?;
        let items = self.size(&format!("number of {item}s"))?;
        self.size(&format!("minimum {item} tag"))?;
        self.size(&format!("maximum {item} tag"))?;
        Ok((blocks, items))
    }

    fn skip_newline(&mut self) {
        if self.data.get(self.pos) == Some(&b'\r') {
            self.pos += 1;
        }
        if self.data.get(self.pos) == Some(&b'\n') {
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE_TET_22: &str = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n2 7 \"wall\"\n3 9 \"fluid\"\n$EndPhysicalNames\n$Nodes\n4\n10 0 0 0\n20 1 0 0\n30 0 1 0\n45 0 0 1\n$EndNodes\n$Elements\n5\n1 4 2 9 1 10 20 30 45\n2 2 2 7 1 10 30 20\n3 2 2 7 1 10 20 45\n4 2 2 7 1 10 45 30\n5 2 2 7 1 20 30 45\n$EndElements\n";

    fn parse(s: &str) -> Result<RawMesh> {
        parse_msh(s.as_bytes(), Path::new("t.msh"))
    }

    #[test]
    fn sparse_node_tags_become_dense_indices_and_named_groups_become_patches() {
        let m = parse(ONE_TET_22).unwrap();
        assert_eq!(m.nodes.len(), 4);
        assert_eq!(m.tets, vec![[0, 1, 2, 3]]);
        assert_eq!(m.boundary_tris.len(), 4);
        assert_eq!(m.patches.len(), 1);
        assert_eq!(m.patches[0].name, "wall");
    }

    #[test]
    fn a_missing_node_tag_is_refused_naming_the_tag_and_the_line() {
        let bad = ONE_TET_22.replace("1 4 2 9 1 10 20 30 45", "1 4 2 9 1 10 20 30 99");
        let e = parse(&bad).unwrap_err().to_string();
        assert!(e.contains("node tag 99") && e.contains("line 18"), "{e}");
    }

    /// Gmsh's high orders have more nodes than the usual types (64 for a cubic hexahedron):
    /// read in full, in ASCII and binary, and refused by their order.
    #[test]
    fn an_element_of_64_nodes_is_read_and_refused_by_its_order() {
        let nodes = vec!["10"; 64].join(" ");
        let ascii = ONE_TET_22.replace("1 4 2 9 1 10 20 30 45", &format!("1 92 2 9 1 {nodes}"));
        let mut binary = b"$MeshFormat\n2.2 1 8\n".to_vec();
        binary.extend(1i32.to_le_bytes());
        binary.extend(b"\n$EndMeshFormat\n$Nodes\n1\n");
        binary.extend(10i32.to_le_bytes());
        binary.extend([0.0f64; 3].iter().flat_map(|x| x.to_le_bytes()));
        binary.extend(b"\n$EndNodes\n$Elements\n1\n");
        for v in [92i32, 1, 2, 1, 9, 1].into_iter().chain([10; 64]) {
            binary.extend(v.to_le_bytes());
        }
        binary.extend(b"\n$EndElements\n");
        for bytes in [ascii.as_bytes(), &binary] {
            let e = parse_msh(bytes, Path::new("t.msh")).unwrap_err().to_string();
            assert!(
                e.contains("element 1 has type 92 (64-node hexahedron)")
                    && e.contains("third-order (64-node) hexahedra")
                    && e.contains("Mesh.ElementOrder = 1"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_hexahedron_is_refused_by_its_name_and_type() {
        let bad = ONE_TET_22.replace("1 4 2 9 1 10 20 30 45", "1 5 2 9 1 10 20 30 45 10 20 30 45");
        let e = parse(&bad).unwrap_err().to_string();
        assert!(e.contains("8-node hexahedron") && e.contains("type 5"), "{e}");
    }

    #[test]
    fn a_wrong_node_count_or_a_truncated_file_is_an_error_not_a_panic() {
        let bad = ONE_TET_22.replace("$Nodes\n4\n", "$Nodes\n5\n");
        let e = parse(&bad).unwrap_err().to_string();
        assert!(e.contains("node"), "{e}");
        let cut = &ONE_TET_22[..ONE_TET_22.len() - 40];
        let e = parse(cut).unwrap_err().to_string();
        assert!(e.contains("truncated") || e.contains("ends"), "{e}");
    }

    #[test]
    fn an_unknown_element_type_is_refused_with_its_number() {
        let bad = ONE_TET_22.replace("2 2 2 7 1 10 30 20", "2 77 2 7 1 10 30 20");
        let e = parse(&bad).unwrap_err().to_string();
        assert!(e.contains("unknown element type 77"), "{e}");
    }
}
