//! Typed fields as VTK, read back by VTK's own readers: point and cell data on one ImageData
//! (a cell-centred grid and a vertex-centred one), 2-component vectors written as 3-component
//! VTK vectors with z = 0 (so ParaView's glyphs and stream tracers take them).

mod common;

use solver::output::{write_fields, Centring, Field, Geometry};

#[test]
fn point_and_cell_data_and_2d_vectors_read_back_in_vtk() {
    let dir = tempfile::tempdir().unwrap();
    // A 2D grid of 4 x 3 cells: 5 x 4 points, flat in z.
    let geometry = Geometry::Image {
        points: [5, 4, 1],
        origin: [0.0, 0.0, 0.0],
        spacing: [0.25, 0.5, 1.0],
    };
    let cells = 12;
    let fields = vec![
        Field::scalar("density", Centring::Cell, (0..cells).map(|i| 1.0 + i as f64).collect()),
        Field::vector(
            "momentum",
            2,
            Centring::Cell,
            (0..2 * cells).map(|i| i as f64).collect(),
        ),
        Field::scalar("phi", Centring::Point, (0..20).map(|i| i as f64 * 0.5).collect()),
    ];
    let file = write_fields(&dir.path().join("f"), &geometry, &fields).unwrap();
    assert_eq!(file, "f.vti");
    // A field of the wrong size is refused, not written.
    let bad = vec![Field::scalar("x", Centring::Cell, vec![0.0; 5])];
    assert!(write_fields(&dir.path().join("bad"), &geometry, &bad).is_err());
    assert!(!dir.path().join("bad.vti").exists());

    let script = r#"
import sys, vtk
r = vtk.vtkXMLImageDataReader()
r.SetFileName(sys.argv[1])
r.Update()
o = r.GetOutput()
c, p = o.GetCellData(), o.GetPointData()
m = c.GetArray('momentum')
print(o.GetNumberOfCells(), o.GetNumberOfPoints())
print(c.GetArray('density').GetNumberOfTuples(), c.GetArray('density').GetValue(11))
print(c.GetVectors().GetName(), m.GetNumberOfComponents(), m.GetTuple3(5))
print(p.GetArray('phi').GetNumberOfTuples(), p.GetArray('phi').GetValue(19))
"#;
    let Some(text) = common::vtk_python(script, &dir.path().join(file)) else {
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        ["12 20", "12 12.0", "momentum 3 (10.0, 11.0, 0.0)", "20 9.5"],
        "{text}"
    );
}
