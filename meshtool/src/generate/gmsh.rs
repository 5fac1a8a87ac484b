//! CAD geometries meshed through the Gmsh C API (`gmsh-sys`, cargo feature `gmsh`).
//!
//! Every call used here was checked against the installed `/usr/include/gmshc.h` (Gmsh 4.8.4,
//! API 4.8.0) as well as the 4.4.1 bindings of gmsh-sys 0.1.2; the signatures are identical:
//! gmshInitialize, gmshFinalize, gmshOptionSetNumber, gmshModelAdd, gmshModelOccAddBox,
//! gmshModelOccAddCylinder, gmshModelOccAddSphere, gmshModelOccCut, gmshModelOccSynchronize,
//! gmshModelGetEntities, gmshModelGetBoundingBox, gmshModelAddPhysicalGroup (4.8 has no
//! `name` argument; 4.11 added one), gmshModelSetPhysicalName, gmshModelMeshGenerate,
//! gmshWrite, gmshFree.
//!
//! The model is written to a temporary MSH 4.1 file and read back by our own reader, so CAD
//! meshes go through exactly the same import path as user files.

use crate::error::{MeshError, Result};
use crate::mesh::RawMesh;
use gmsh_sys as g;
use std::ffi::CString;
use std::os::raw::c_int;
use std::path::Path;
use std::sync::Mutex;

/// Gmsh keeps global state: one model at a time per process.
static GMSH: Mutex<()> = Mutex::new(());

/// The DFG 3D benchmark channel (Schäfer & Turek): 2.5 × 0.41 × 0.41 with an obstacle.
pub const CHANNEL: [f64; 3] = [2.5, 0.41, 0.41];

#[derive(Clone, Copy, Debug)]
pub enum Obstacle {
    /// Cylinder of diameter 0.1, axis along z through (0.5, 0.2).
    Cylinder,
    /// Sphere of diameter 0.1 centred at (0.5, 0.2, 0.205).
    Sphere,
}

fn check(ierr: c_int, what: &str) -> Result<()> {
    if ierr != 0 {
        Err(MeshError::Invalid(format!("Gmsh failed in {what} (error code {ierr})")))
    } else {
        Ok(())
    }
}

fn set_option(name: &str, value: f64) -> Result<()> {
    let c = CString::new(name).unwrap();
    let mut ierr = 0;
    // SAFETY: valid NUL-terminated name and error pointer.
    unsafe { g::gmshOptionSetNumber(c.as_ptr(), value, &mut ierr) };
    check(ierr, name)
}

/// Mesh the channel with the obstacle; `size` is the element size far from the obstacle, and
/// `size / OBSTACLE_REFINEMENT` on it (`size_field`): every length of the mesh scales with
/// `size`, so that a smaller one refines the obstacle's surface too. Patches: inlet (x=0), outlet (x=2.5), walls, cylinder|sphere.
/// With `msh22`, Gmsh's mesh is also saved there as MSH 2.2 ASCII (what OpenFOAM's gmshToFoam
/// reads); it prepares to the same mesh as the one returned.
pub fn channel_with_obstacle(obstacle: Obstacle, size: f64, msh22: Option<&Path>) -> Result<RawMesh> {
    if !(size > 0.0 && size < 1.0) {
        return Err(MeshError::Invalid(format!("--size must be in (0, 1), got {size}")));
    }
    let _guard = GMSH.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().map_err(|e| MeshError::io(std::env::temp_dir(), e))?;
    let path = dir.path().join("channel.msh");
    let legacy = dir.path().join("channel-2.2.msh");
    let mut ierr: c_int = 0;
    // SAFETY: argc = 0 with a null argv is allowed by the API.
    unsafe { g::gmshInitialize(0, std::ptr::null_mut(), 0, &mut ierr) };
    check(ierr, "gmshInitialize")?;
    let result = (|| -> Result<()> {
        set_option("General.Terminal", 0.0)?;
        set_option("General.Verbosity", 1.0)?;
        build_geometry(obstacle)?;
        add_patches(obstacle)?;
        mesh_and_write(obstacle, size, &path, msh22.map(|_| legacy.as_path()))
    })();
    unsafe { g::gmshFinalize(&mut ierr) };
    result?;
    if let Some(out) = msh22 {
        let mut src = std::fs::File::open(&legacy).map_err(|e| MeshError::io(&legacy, e))?;
        crate::atomic::write_with(out, |w| std::io::copy(&mut src, w).map(|_| ()))?;
    }
    crate::msh::read_msh(&path)
}
/// The channel box minus the obstacle (OpenCASCADE), synchronized into the model.
fn build_geometry(obstacle: Obstacle) -> Result<()> {
    let mut ierr: c_int = 0;
    let name = CString::new("channel").unwrap();
    unsafe { g::gmshModelAdd(name.as_ptr(), &mut ierr) };
    check(ierr, "gmshModelAdd")?;
    let [lx, ly, lz] = CHANNEL;
    // SAFETY: plain value arguments and a valid error pointer.
    let boxtag = unsafe { g::gmshModelOccAddBox(0.0, 0.0, 0.0, lx, ly, lz, -1, &mut ierr) };
    check(ierr, "gmshModelOccAddBox")?;
    let tool = match obstacle {
        Obstacle::Cylinder => unsafe {
            g::gmshModelOccAddCylinder(
                0.5,
                0.2,
                0.0,
                0.0,
                0.0,
                lz,
                0.05,
                -1,
                2.0 * std::f64::consts::PI,
                &mut ierr,
            )
        },
        Obstacle::Sphere => unsafe {
            g::gmshModelOccAddSphere(
                0.5,
                0.2,
                0.205,
                0.05,
                -1,
                -std::f64::consts::FRAC_PI_2,
                std::f64::consts::FRAC_PI_2,
                2.0 * std::f64::consts::PI,
                &mut ierr,
            )
        },
    };
    check(ierr, "adding the obstacle")?;
    let mut object = [3, boxtag];
    let mut tools = [3, tool];
    let mut out: *mut c_int = std::ptr::null_mut();
    let mut out_n: usize = 0;
    let mut map: *mut *mut c_int = std::ptr::null_mut();
    let mut map_n: *mut usize = std::ptr::null_mut();
    let mut map_nn: usize = 0;
    // SAFETY: the in-arrays live for the call; Gmsh allocates the out-arrays, freed below.
    unsafe {
        g::gmshModelOccCut(
            object.as_mut_ptr(),
            2,
            tools.as_mut_ptr(),
            2,
            &mut out,
            &mut out_n,
            &mut map,
            &mut map_n,
            &mut map_nn,
            -1,
            1,
            1,
            &mut ierr,
        );
        for i in 0..map_nn {
            g::gmshFree(*map.add(i) as *mut _);
        }
        g::gmshFree(map as *mut _);
        g::gmshFree(map_n as *mut _);
        g::gmshFree(out as *mut _);
    }
    check(ierr, "gmshModelOccCut")?;
    unsafe { g::gmshModelOccSynchronize(&mut ierr) };
    check(ierr, "gmshModelOccSynchronize")?;
    Ok(())
}

/// Physical groups: inlet, outlet, walls, the obstacle (by bounding boxes), and the fluid.
fn add_patches(obstacle: Obstacle) -> Result<()> {
    let lx = CHANNEL[0];
    // Classify boundary surfaces by their bounding boxes.
    let eps = 1e-6;
    let mut groups: [Vec<c_int>; 4] = Default::default(); // inlet, outlet, walls, obstacle
    for (_, tag) in entities(2)? {
        let (lo, hi) = bbox(2, tag)?;
        let k = if hi[0] < eps {
            0
        } else if lo[0] > lx - eps {
            1
        } else if lo[0] > 0.4 - eps && hi[0] < 0.6 + eps && lo[1] > 0.1 && hi[1] < 0.3 {
            3
        } else {
            2
        };
        groups[k].push(tag);
    }
    let obstacle_name = match obstacle {
        Obstacle::Cylinder => "cylinder",
        Obstacle::Sphere => "sphere",
    };
    for (k, name) in ["inlet", "outlet", "walls", obstacle_name].iter().enumerate() {
        if groups[k].is_empty() {
            return Err(MeshError::Invalid(format!("Gmsh geometry has no '{name}' surface")));
        }
        add_physical(2, &mut groups[k], k as c_int + 1, name)?;
    }
    let mut vols: Vec<c_int> = entities(3)?.into_iter().map(|(_, t)| t).collect();
    add_physical(3, &mut vols, 10, "fluid")?;
    Ok(())
}

/// The element size on the obstacle is `size / OBSTACLE_REFINEMENT`...
pub const OBSTACLE_REFINEMENT: f64 = 5.0;
/// ...and grows linearly with the distance from its surface to `size` at this distance (2.5 D).
pub const GRADING_DISTANCE: f64 = 0.25;

/// The exact distance from the obstacle's surface, as a Gmsh MathEval expression: a field
/// that meshes sample exactly on the surface, unlike Gmsh's Distance field, which measures
/// from sample points.
fn obstacle_distance(obstacle: Obstacle) -> &'static str {
    match obstacle {
        Obstacle::Cylinder => "Sqrt((x - 0.5)^2 + (y - 0.2)^2) - 0.05",
        Obstacle::Sphere => "Sqrt((x - 0.5)^2 + (y - 0.2)^2 + (z - 0.205)^2) - 0.05",
    }
}

/// The size field that makes `size` refine the whole mesh, the obstacle's surface and the
/// layers around it included (meshes/channel.geo sets the same): a Threshold on the exact
/// distance r from the obstacle, size / OBSTACLE_REFINEMENT at r = 0 growing linearly to `size`
/// at r = GRADING_DISTANCE and beyond. Curvature-based sizing is off: it would give the
/// obstacle the same number of segments around whatever `size` is.
fn size_field(obstacle: Obstacle, size: f64) -> Result<()> {
    let mut ierr: c_int = 0;
    let kind = |k: &str| CString::new(k).unwrap();
    // SAFETY: valid NUL-terminated strings and error pointers for every call.
    let distance = unsafe { g::gmshModelMeshFieldAdd(kind("MathEval").as_ptr(), -1, &mut ierr) };
    check(ierr, "gmshModelMeshFieldAdd (MathEval)")?;
    let f = CString::new(obstacle_distance(obstacle)).unwrap();
    unsafe { g::gmshModelMeshFieldSetString(distance, kind("F").as_ptr(), f.as_ptr(), &mut ierr) };
    check(ierr, "gmshModelMeshFieldSetString (F)")?;
    let threshold = unsafe { g::gmshModelMeshFieldAdd(kind("Threshold").as_ptr(), -1, &mut ierr) };
    check(ierr, "gmshModelMeshFieldAdd (Threshold)")?;
    for (option, value) in [
        ("IField", distance as f64),
        ("LcMin", size / OBSTACLE_REFINEMENT),
        ("LcMax", size),
        ("DistMin", 0.0),
        ("DistMax", GRADING_DISTANCE),
    ] {
        unsafe { g::gmshModelMeshFieldSetNumber(threshold, kind(option).as_ptr(), value, &mut ierr) };
        check(ierr, option)?;
    }
    unsafe { g::gmshModelMeshFieldSetAsBackgroundMesh(threshold, &mut ierr) };
    check(ierr, "gmshModelMeshFieldSetAsBackgroundMesh")?;
    set_option("Mesh.MeshSizeMax", size)?;
    set_option("Mesh.MeshSizeMin", size / 10.0)?;
    set_option("Mesh.MeshSizeFromCurvature", 0.0)?;
    set_option("Mesh.MeshSizeExtendFromBoundary", 0.0)
}

/// Mesh in 3-D, write MSH 4.1 binary to `path` and, if asked, MSH 2.2 ASCII to `legacy`.
fn mesh_and_write(obstacle: Obstacle, size: f64, path: &Path, legacy: Option<&Path>) -> Result<()> {
    let mut ierr: c_int = 0;
    size_field(obstacle, size)?;
    unsafe { g::gmshModelMeshGenerate(3, &mut ierr) };
    check(ierr, "gmshModelMeshGenerate")?;
    set_option("Mesh.MshFileVersion", 4.1)?;
    set_option("Mesh.Binary", 1.0)?;
    let p = CString::new(path.to_string_lossy().as_bytes()).unwrap();
    unsafe { g::gmshWrite(p.as_ptr(), &mut ierr) };
    check(ierr, "gmshWrite")?;
    if let Some(legacy) = legacy {
        set_option("Mesh.MshFileVersion", 2.2)?;
        set_option("Mesh.Binary", 0.0)?;
        let p = CString::new(legacy.to_string_lossy().as_bytes()).unwrap();
        unsafe { g::gmshWrite(p.as_ptr(), &mut ierr) };
        check(ierr, "gmshWrite (MSH 2.2)")?;
    }
    Ok(())
}

fn entities(dim: c_int) -> Result<Vec<(c_int, c_int)>> {
    let mut ptr: *mut c_int = std::ptr::null_mut();
    let mut n: usize = 0;
    let mut ierr = 0;
    // SAFETY: Gmsh allocates `ptr` with n ints (dim, tag pairs); copied, then freed.
    let v = unsafe {
        g::gmshModelGetEntities(&mut ptr, &mut n, dim, &mut ierr);
        let v = if ptr.is_null() {
            vec![]
        } else {
            std::slice::from_raw_parts(ptr, n).to_vec()
        };
        g::gmshFree(ptr as *mut _);
        v
    };
    check(ierr, "gmshModelGetEntities")?;
    Ok(v.chunks_exact(2).map(|c| (c[0], c[1])).collect())
}

fn bbox(dim: c_int, tag: c_int) -> Result<([f64; 3], [f64; 3])> {
    let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
    let mut ierr = 0;
    // SAFETY: six valid out-pointers.
    unsafe {
        g::gmshModelGetBoundingBox(
            dim, tag, &mut lo[0], &mut lo[1], &mut lo[2], &mut hi[0], &mut hi[1], &mut hi[2], &mut ierr,
        )
    };
    check(ierr, "gmshModelGetBoundingBox")?;
    Ok((lo, hi))
}

fn add_physical(dim: c_int, tags: &mut [c_int], tag: c_int, name: &str) -> Result<()> {
    let mut ierr = 0;
    // SAFETY: `tags` is valid for its length during the call.
    let t = unsafe { g::gmshModelAddPhysicalGroup(dim, tags.as_mut_ptr(), tags.len(), tag, &mut ierr) };
    check(ierr, "gmshModelAddPhysicalGroup")?;
    let c = CString::new(name).unwrap();
    unsafe { g::gmshModelSetPhysicalName(dim, t, c.as_ptr(), &mut ierr) };
    check(ierr, "gmshModelSetPhysicalName")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obstacle's triangles and their mean edge length.
    fn obstacle_faces(raw: &RawMesh, name: &str) -> (usize, f64) {
        let p = raw.patches.iter().position(|p| p.name == name).unwrap() as u32;
        let tris: Vec<&[u32; 3]> = raw
            .boundary_tris
            .iter()
            .zip(&raw.boundary_patch)
            .filter(|(_, &q)| q == p)
            .map(|(t, _)| t)
            .collect();
        let len = |a: u32, b: u32| {
            let (x, y) = (raw.nodes[a as usize], raw.nodes[b as usize]);
            ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2)).sqrt()
        };
        let sum: f64 = tris
            .iter()
            .map(|t| len(t[0], t[1]) + len(t[1], t[2]) + len(t[2], t[0]))
            .sum();
        (tris.len(), sum / (3 * tris.len()) as f64)
    }

    /// `size` refines the obstacle too: its edges are about size / OBSTACLE_REFINEMENT and
    /// halving `size` gives it about 4 times the triangles (with the earlier curvature
    /// sizing, 24 points per 2 pi whatever the size, both meshes had the same 1804).
    #[test]
    fn size_refines_the_cylinder_surface() {
        let coarse = channel_with_obstacle(Obstacle::Cylinder, 0.2, None).unwrap();
        let fine = channel_with_obstacle(Obstacle::Cylinder, 0.1, None).unwrap();
        let (nc, hc) = obstacle_faces(&coarse, "cylinder");
        let (nf, hf) = obstacle_faces(&fine, "cylinder");
        let ratio = nf as f64 / nc as f64;
        assert!((3.0..5.5).contains(&ratio), "{nc} -> {nf} cylinder triangles");
        for (h, size) in [(hc, 0.2), (hf, 0.1)] {
            let want = size / OBSTACLE_REFINEMENT;
            assert!((0.7 * want..1.3 * want).contains(&h), "mean edge {h} at size {size}");
        }
        assert!(
            fine.tets.len() > 4 * coarse.tets.len(),
            "{} -> {} tets",
            coarse.tets.len(),
            fine.tets.len()
        );
    }
}
