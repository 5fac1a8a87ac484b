//! VTK XML export through vtkio (binary, zlib-compressed), written atomically. The solver
//! reuses `write_atomic` for its own fields.

use crate::error::{MeshError, Result};
use crate::faces::{is_boundary, patch_of};
use crate::pmesh::PreparedMesh;
use crate::quality::CellQuality;
use std::path::Path;
use vtkio::model::{
    Attribute, Attributes, ByteOrder, CellType, Cells, DataSet, Piece, UnstructuredGridPiece, Version, VertexNumbers,
    Vtk,
};
use vtkio::xml::Compressor;

/// Serialise `data` as VTK XML (zlib level 5) into a temporary file next to `path`, then rename.
pub fn write_atomic(data: DataSet, path: &Path) -> Result<()> {
    let vtk = Vtk {
        version: Version::new_xml(1, 0),
        title: String::new(),
        byte_order: ByteOrder::LittleEndian,
        data,
        file_path: None,
    };
    let xml = vtk
        .try_into_xml_format(Compressor::ZLib, 5)
        .map_err(|e| MeshError::Invalid(format!("{}: VTK conversion failed: {e}", path.display())))?;
    crate::atomic::write_with(path, |w| xml.write(w).map_err(std::io::Error::other))
}

pub fn cell_array(name: &str, values: Vec<f64>) -> Attribute {
    Attribute::scalars(name, 1).with_data(values)
}

/// The tetrahedra with the given cell arrays as an unstructured-grid data set.
pub fn tet_grid(mesh: &PreparedMesh, cell_data: Vec<Attribute>) -> DataSet {
    let connectivity: Vec<u64> = mesh.topo.cells.iter().flatten().map(|&v| v as u64).collect();
    let offsets: Vec<u64> = (1..=mesh.num_cells() as u64).map(|i| 4 * i).collect();
    DataSet::UnstructuredGrid {
        meta: None,
        pieces: vec![Piece::Inline(Box::new(UnstructuredGridPiece {
            points: mesh.nodes.as_flattened().to_vec().into(),
            cells: Cells {
                cell_verts: VertexNumbers::XML { connectivity, offsets },
                types: vec![CellType::Tetra; mesh.num_cells()],
            },
            data: Attributes {
                point: vec![],
                cell: cell_data,
            },
        }))],
    }
}

/// Export the mesh for inspection: quality fields, boundary patch of each cell (-1 inside),
/// the cell's index in the prepared order and in the input.
pub fn export_mesh(mesh: &PreparedMesh, q: &CellQuality, path: &Path) -> Result<()> {
    let patch: Vec<f64> = mesh
        .topo
        .neighbours
        .iter()
        .map(|nb| {
            nb.iter()
                .find(|&&d| is_boundary(d))
                .map_or(-1.0, |&d| patch_of(d) as f64)
        })
        .collect();
    let arrays = vec![
        cell_array("volume", mesh.topo.volumes.clone()),
        cell_array("aspect_ratio", q.aspect_ratio.clone()),
        cell_array("edge_inradius_ratio", q.edge_inradius_ratio.clone()),
        cell_array("min_dihedral_deg", q.min_dihedral_deg.clone()),
        cell_array("max_dihedral_deg", q.max_dihedral_deg.clone()),
        cell_array("non_orthogonality_deg", q.non_orthogonality_deg.clone()),
        cell_array("skewness", q.skewness.clone()),
        cell_array("distance_skewness", q.distance_skewness.clone()),
        cell_array("boundary_patch", patch),
        cell_array("order_index", (0..mesh.num_cells()).map(|i| i as f64).collect()),
        cell_array("input_index", mesh.cell_original.iter().map(|&i| i as f64).collect()),
    ];
    write_atomic(tet_grid(mesh, arrays), path)
}
