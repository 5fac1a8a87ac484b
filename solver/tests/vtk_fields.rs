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

/// The parallel block compression: the same bytes on one thread as on several (outputs of the
/// same data are identical whatever the machine), for each compressor, in Float64 and in
/// Float32; the values read back exactly (each the nearest f32 in Float32; decoded here, and
/// by VTK itself where python3-vtk9 is there).
#[test]
fn compressed_arrays_are_the_same_on_any_number_of_threads_and_read_back() {
    use solver::output::{write_fields_with, Codec, VtkOptions};
    let dir = tempfile::tempdir().unwrap();
    // 300 x 200 cells: 480 000 bytes per scalar, 15 blocks of 32 KiB, the last one partial.
    let geometry = Geometry::Image {
        points: [301, 201, 1],
        origin: [0.0, -1.0, 0.0],
        spacing: [1.0 / 300.0, 0.01, 1.0],
    };
    let cells = 300 * 200;
    let wave = |i: usize| (i as f64 * 0.001).sin() + if i.is_multiple_of(7) { 1e-9 * i as f64 } else { 0.0 };
    let fields = vec![
        Field::scalar("density", Centring::Cell, (0..cells).map(wave).collect()),
        Field::vector(
            "velocity",
            2,
            Centring::Cell,
            (0..2 * cells).map(|i| wave(3 * i)).collect(),
        ),
    ];
    let codecs = [Codec::Zlib, Codec::Lz4, Codec::None];
    for (codec, single) in codecs.into_iter().flat_map(|c| [(c, false), (c, true)]) {
        let opts = VtkOptions {
            codec,
            level: 5,
            single,
        };
        let stored = |v: f64| if single { v as f32 as f64 } else { v };
        let write = |threads: usize, stem: &str| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let file = pool.install(|| write_fields_with(&dir.path().join(stem), &geometry, &fields, opts).unwrap());
            dir.path().join(file)
        };
        let one = write(1, &format!("{codec:?}-{single}-1"));
        let four = write(4, &format!("{codec:?}-{single}-4"));
        assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&four).unwrap(), "{codec:?}");
        // Decoded here (vtkio reads no flat image data): the values exactly.
        let read = common::vtk_arrays(&one).unwrap_or_else(|e| panic!("{codec:?}: {e}"));
        let want: Vec<f64> = fields[0].values.iter().map(|&v| stored(v)).collect();
        assert_eq!(read[0].2, want, "{codec:?} {single}");
        let padded: Vec<f64> = fields[1]
            .values
            .chunks(2)
            .flat_map(|v| [stored(v[0]), stored(v[1]), 0.0])
            .collect();
        assert_eq!((read[1].1, &read[1].2), (3, &padded), "{codec:?} {single}");
        let script = r#"
import sys, vtk
r = vtk.vtkXMLImageDataReader()
r.SetFileName(sys.argv[1])
r.Update()
c = r.GetOutput().GetCellData()
print(c.GetArray('density').GetNumberOfTuples(), repr(c.GetArray('density').GetValue(59999)), c.GetArray('velocity').GetTuple3(12345))
"#;
        if let Some(text) = common::vtk_python(script, &one) {
            let v = &fields[1].values;
            let want = format!(
                "60000 {:?} ({:?}, {:?}, 0.0)",
                stored(fields[0].values[59999]),
                stored(v[2 * 12345]),
                stored(v[2 * 12345 + 1])
            );
            assert_eq!(text.trim(), want, "{codec:?} {single}");
        }
    }
}
