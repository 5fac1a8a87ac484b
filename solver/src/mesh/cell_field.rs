//! A cell vector field a previous run wrote on this prepared mesh, read back: the vector cell
//! array of a VTU file (or of the latest file of a `.pvd` series), checked to have the mesh's
//! cells in the prepared order (a velocity to advect with, an initial velocity).

use crate::error::{Result, SolverError};
use meshtool::PreparedMesh;
use std::path::Path;

/// The vector cell array `array` of the VTU file `path` (or of the latest file of a `.pvd`
/// series), checked to be written on `mesh`: the same cells in the prepared order.
pub fn read_cell_field(
    path: &Path,
    array: &str,
    mesh: &PreparedMesh,
    fail: &dyn Fn(String) -> SolverError,
) -> Result<Vec<[f64; 3]>> {
    let fail = |what: String| fail(format!("{}: {what}", path.display()));
    let piece = read_vtu(path, &fail)?;
    let n = mesh.num_cells();
    let same_cells = match &piece.cells.cell_verts {
        vtkio::model::VertexNumbers::XML { connectivity, .. } => {
            connectivity.len() == 4 * n
                && connectivity
                    .iter()
                    .zip(mesh.topo.cells.iter().flatten())
                    .all(|(&a, &b)| a == b as u64)
        }
        vtkio::model::VertexNumbers::Legacy { .. } => false,
    };
    if !same_cells {
        return Err(fail(format!(
            "its cells are not those of the prepared mesh ({} cells, in the prepared order); \
             write the field with `solver run` on the same .pmesh",
            n
        )));
    }
    cell_vectors(piece, array, n, &fail)
}

/// The first piece of a VTU file (or of the latest file of a `.pvd` series), loaded.
fn read_vtu(path: &Path, fail: &dyn Fn(String) -> SolverError) -> Result<vtkio::model::UnstructuredGridPiece> {
    use vtkio::model::DataSet;
    let series_file;
    let path = if path.extension().is_some_and(|e| e == "pvd") && path.is_file() {
        series_file =
            crate::output::pvd::Series::last_file(path).ok_or_else(|| fail("the series lists no data set".into()))?;
        series_file.as_path()
    } else {
        path
    };
    if !path.is_file() {
        return Err(fail(
            "no such file (a relative path is taken from the case file's folder); give a .vtu a run wrote on this mesh"
                .into(),
        ));
    }
    let vtk = vtkio::Vtk::import(path).map_err(|e| fail(format!("cannot read it as VTK XML: {e}")))?;
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        return Err(fail(
            "not an unstructured grid (.vtu); give a cell field written by `solver run` on this mesh".into(),
        ));
    };
    let piece = pieces
        .into_iter()
        .next()
        .ok_or_else(|| fail("it holds no data".into()))?;
    piece
        .into_loaded_piece_data(None)
        .map_err(|e| fail(format!("cannot load its data: {e}")))
}

/// The finite 3-vector cell array `array` of n cells.
fn cell_vectors(
    piece: vtkio::model::UnstructuredGridPiece,
    array: &str,
    n: usize,
    fail: &dyn Fn(String) -> SolverError,
) -> Result<Vec<[f64; 3]>> {
    use vtkio::model::Attribute;
    let names: Vec<String> = piece.data.cell.iter().map(|a| a.name().to_string()).collect();
    let data = piece
        .data
        .cell
        .into_iter()
        .find_map(|a| match a {
            Attribute::DataArray(d) if d.name == array => Some(d),
            _ => None,
        })
        .ok_or_else(|| {
            fail(format!(
                "no cell array named '{array}' (it has: {}); set `array`",
                names.join(", ")
            ))
        })?;
    let comps = data.num_comp();
    let values: Vec<f64> = data
        .data
        .cast_into::<f64>()
        .ok_or_else(|| fail(format!("cell array '{array}' is not numeric")))?;
    if comps != 3 || values.len() != 3 * n {
        return Err(fail(format!(
            "cell array '{array}' has {comps} components and {} values; a velocity needs 3 per cell ({})",
            values.len(),
            3 * n
        )));
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(fail(format!("cell array '{array}' is not finite at cell {}", i / 3)));
    }
    Ok(values.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
}
