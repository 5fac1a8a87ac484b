//! Every structured family (Euler, heat, shallow water) split over MPI ranks by the grid layer
//! (`grid::parts`, CPU backend, `mpirun -np 2` and `-np 4`), through the same checks: every
//! template's output files equal the single-rank run's byte for byte (the ranks take the same
//! global steps and every cell the same arithmetic: MUSCL-Hancock and PLM + SSP-RK3 with each
//! Riemann solver, gravity and hydrostatic walls, periodic split axes joined in a ring, the heat
//! stencil's Dirichlet and periodic faces; shallow water's wet/dry fronts crossing the parts'
//! boundaries, a pollutant, Manning friction, a tide and a river source, f64 and f32, with its
//! halo of 1, 2 or 3 ghost rows exchanged every as many steps); summary.json lists each rank's
//! block and the totals agree with one rank's; a checkpoint written by 2 ranks restarts on 4; a
//! rank count the grid cannot share is refused (exit 2, nothing written), and so is a family
//! that does not decompose. Needs the `mpi` feature and Open MPI's `mpirun`
//! (scripts/setup.sh installs both); skipped with a message otherwise, except under CI.

mod common;

use common::mpi::{
    assert_refused_on, assert_same_files, assert_two_ranks_restart_on_four, available, mpirun_with, run, solver_run,
};
use common::{summary, vti_files, write_template};

/// The split runs of a case: ranks and extra overrides of each.
type Splits = &'static [(usize, &'static [&'static str])];

/// 2 and 4 ranks.
const TWO_AND_FOUR: Splits = &[(2, &[]), (4, &[])];

/// Shallow water's: 2 and 4 ranks, and its ghost-cell expansion (2 and 3 ghost rows, exchanged
/// every 2 and 3 steps).
const GHOST_ROWS: Splits = &[
    (2, &["shallow-water.ghost_rows=1"]),
    (4, &["shallow-water.ghost_rows=1"]),
    (2, &["shallow-water.ghost_rows=2"]),
    (4, &["shallow-water.ghost_rows=3"]),
];

/// Every Euler, heat and shallow-water template, on grids small enough for 2 CI cores, split
/// along its outermost axis (x in 1D, y in 2D, z in 3D): template, overrides, split runs.
const CASES: &[(&str, &[&str], Splits)] = &[
    ("euler-toro-1", &[], TWO_AND_FOUR),
    ("euler-toro-2", &[], TWO_AND_FOUR),
    ("euler-toro-3", &[], TWO_AND_FOUR),
    ("euler-toro-4", &[], TWO_AND_FOUR),
    (
        "euler-toro-5",
        &["euler.scheme=\"plm-rk3\"", "euler.riemann=\"hllc\""],
        TWO_AND_FOUR,
    ),
    (
        "euler-toro-1",
        &["euler.riemann=\"hll\"", "euler.boundary.x=\"periodic\""],
        TWO_AND_FOUR,
    ),
    ("euler-density-wave", &["grid.dims=[32,32,1]"], TWO_AND_FOUR),
    (
        "euler-density-wave",
        &["grid.dims=[32,32,1]", "euler.scheme=\"plm-rk3\""],
        TWO_AND_FOUR,
    ),
    (
        "euler-riemann-2d",
        &["grid.dims=[48,48,1]", "euler.riemann=\"hllc\""],
        TWO_AND_FOUR,
    ),
    (
        "euler-rt-2d",
        &["grid.dims=[16,48,1]", "time.end_time=0.5"],
        TWO_AND_FOUR,
    ),
    (
        "euler-rt-3d",
        &["grid.dims=[8,8,24]", "time.end_time=0.5"],
        TWO_AND_FOUR,
    ),
    (
        "euler-rt-3d-multimode",
        &["grid.dims=[8,8,24]", "time.end_time=0.5"],
        TWO_AND_FOUR,
    ),
    (
        "euler-toro-1",
        &[
            "grid.dims=[6,5,40]",
            "euler.initial.axis=2",
            "euler.boundary.z=\"periodic\"",
        ],
        TWO_AND_FOUR,
    ),
    (
        "heat-benchmark",
        &["grid.dims=[16,15,16]", "time.steps=40", "output.every=20"],
        TWO_AND_FOUR,
    ),
    (
        "heat-benchmark",
        &[
            "grid.dims=[12,12,17]",
            "time.steps=30",
            "output.every=15",
            "heat.boundary={x={dirichlet=[0.5,2.0]}, y=\"periodic\", z={dirichlet=[1.0,0.0]}}",
        ],
        TWO_AND_FOUR,
    ),
    ("heat-gaussian", &["grid.dims=[9,64,16]"], TWO_AND_FOUR),
    ("heat-erfc", &["grid.dims=[9,32,16]"], TWO_AND_FOUR),
    ("heat-decay", &["grid.dims=[10,10,16]"], TWO_AND_FOUR),
    // Thacker: moving wet/dry fronts crossing the parts' boundaries; the tank: a pollutant,
    // Manning friction, outflow faces; uneven parts (30 rows over 4 ranks).
    (
        "swe-thacker",
        &["grid.dims=[40,30,1]", "time.end_time=1.0", "output.interval=0.25"],
        GHOST_ROWS,
    ),
    (
        "swe-column",
        &[
            "grid.dims=[36,30,1]",
            "shallow-water.manning=0.03",
            "shallow-water.boundary={x=\"outflow\",y=\"outflow\"}",
        ],
        GHOST_ROWS,
    ),
    (
        "swe-column",
        &["grid.dims=[36,30,1]", "run.precision=\"f32\""],
        GHOST_ROWS,
    ),
    // The estuary: a tide through the sea side (x-, every part has a share), a river source in
    // one part, banks that dry and wet.
    (
        "swe-estuary",
        &["time.end_time=7200.0", "output.interval=2400.0"],
        GHOST_ROWS,
    ),
];

/// Each rank's block, in order, covering the grid's values once, the last ending where the grid
/// does; the summary counts the ranks.
fn assert_blocks(template: &str, s: &serde_json::Value, ranks: usize) {
    assert_eq!(s["ranks"], ranks, "{template}");
    let blocks = s["decomposition"].as_array().expect("decomposition");
    assert_eq!(blocks.len(), ranks, "{template}");
    let cells: u64 = blocks.iter().map(|b| b["cells"].as_u64().unwrap()).sum();
    let whole = s["points"].as_array().or(s["grid"].as_array()).unwrap();
    let product: u64 = whole.iter().map(|v| v.as_u64().unwrap()).product();
    assert_eq!(cells, product, "{template}: {blocks:?}");
    for (r, b) in blocks.iter().enumerate() {
        assert_eq!(b["rank"], r, "{template}");
    }
    assert_eq!(
        &blocks[ranks - 1]["hi"],
        &serde_json::Value::from(whole.clone()),
        "{template}"
    );
}

/// The totals of a split run are the single run's summed over ranks (other sums of the same
/// numbers: equal to round-off); a pollutant's imbalance, a residual of round-off, is closed,
/// not equal.
fn assert_totals_agree(template: &str, many: &serde_json::Value, one: &serde_json::Value) {
    let Some(totals) = many["totals"].as_object() else {
        return;
    };
    for (name, t) in totals {
        if name.starts_with("pollutant_imbalance") {
            let r = many["totals"]["pollutant_imbalance_relative"]["end"].as_f64().unwrap();
            let bound = if many["precision"] == "f32" { 1e-5 } else { 1e-12 };
            assert!(r.abs() < bound, "{template} {name}: relative imbalance {r}");
            continue;
        }
        let (a, b) = (t["end"].as_f64().unwrap(), one["totals"][name]["end"].as_f64().unwrap());
        assert!(
            (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0),
            "{template} {name}: {a} vs {b}"
        );
    }
}

#[test]
fn every_structured_template_split_over_ranks_writes_the_single_ranks_bytes() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (k, (template, sets, splits)) in CASES.iter().enumerate() {
        let case = write_template(dir.path(), template);
        let one = dir.path().join(format!("one-{k}"));
        run(1, &case, &one, sets);
        let one_s = summary(&one);
        assert!(one_s.get("decomposition").is_none(), "one rank runs the whole grid");
        for (v, (ranks, extra)) in splits.iter().enumerate() {
            let many = dir.path().join(format!("ranks{ranks}-{k}-{v}"));
            let all: Vec<&str> = sets.iter().chain(extra.iter()).copied().collect();
            run(*ranks, &case, &many, &all);
            assert_same_files(&one, &many);
            let s = summary(&many);
            assert_blocks(template, &s, *ranks);
            assert_totals_agree(template, &s, &one_s);
            println!(
                "{template} {all:?}: {ranks} ranks equal 1 rank in {} files",
                vti_files(&many).len()
            );
        }
    }
}

#[test]
fn a_checkpoint_of_two_ranks_restarts_on_four() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rt = ["grid.dims=[8,8,24]", "output.interval=0.25"];
    assert_two_ranks_restart_on_four(dir.path(), "euler-rt-3d", &rt, "time.end_time=0.5", "time.end_time=1.0");
    let heat = ["grid.dims=[16,15,16]", "output.every=10"];
    assert_two_ranks_restart_on_four(dir.path(), "heat-benchmark", &heat, "time.steps=20", "time.steps=40");
    let swe = ["grid.dims=[40,30,1]", "output.interval=0.5"];
    assert_two_ranks_restart_on_four(
        dir.path(),
        "swe-thacker",
        &swe,
        "time.end_time=0.5",
        "time.end_time=1.0",
    );
}

#[test]
fn a_rank_count_the_grid_cannot_share_is_refused() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let at_most = "use at most 3 GPUs and ranks";
    assert_refused_on(
        4,
        dir.path(),
        "euler-toro-1",
        &["grid.dims=[6,1,1]"],
        "grid.dims",
        at_most,
    );
    let thin = "each needs at least 4";
    assert_refused_on(
        4,
        dir.path(),
        "heat-decay",
        &["grid.dims=[10,10,12]"],
        "grid.dims",
        thin,
    );
    // Shallow water: too few rows, a periodic y (not split), ghost rows beyond a part.
    let refuse =
        |sets: &[&str], key: &str, needle: &str| assert_refused_on(4, dir.path(), "swe-column", sets, key, needle);
    refuse(&["grid.dims=[40,6,1]"], "grid.dims", at_most);
    refuse(
        &["shallow-water.boundary={x=\"reflect\",y=\"periodic\"}"],
        "grid.dims",
        "periodic y is not decomposed",
    );
    refuse(
        &["grid.dims=[40,12,1]", "shallow-water.ghost_rows=4"],
        "shallow-water.ghost_rows",
        "own 3 rows at the least, and each step reads 2 rows beyond a slab; set at most 1",
    );
}

/// A NaN made in one part (rank 1's planes) stops every rank at the next health check; rank 0
/// names the cell, the part's planes and the rank that holds it, and the last good output stays.
#[test]
fn a_nan_in_one_part_stops_every_rank_naming_the_part() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let case = write_template(dir.path(), "euler-rt-3d");
    let out = dir.path().join("nan");
    let sets = [
        "grid.dims=[8,8,24]",
        "time.end_time=1.0",
        "time.check_every=5",
        "output.interval=0.25",
    ];
    let args = common::cpu_run_args(&case, &out, &[], &sets);
    // 8 x 8 x 24 cells, planes 12..24 on rank 1: cell 8 * 8 * 18 + 3 lies in plane 18.
    let o = mpirun_with(2, &args, &[("CFD_INJECT_NAN", "10:1155")]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{e}");
    assert!(e.contains("made NaN after step 10 on rank 1"), "{e}");
    let said = "error: the solution diverged at step 10 (t = ";
    let part = "in cell (3, 0, 18) (in the part of planes 12..24 along z, on rank 1)";
    let line = e
        .lines()
        .find(|l| l.starts_with(said))
        .unwrap_or_else(|| panic!("rank 0 did not stop: {e}"));
    assert!(line.contains("density NaN") && line.contains(part), "{line}");
    assert!(line.contains("The last good output was kept (step 0"), "{line}");
    assert_eq!(vti_files(&out).len(), 1, "the initial frame, and nothing unsound");
}

/// `mpirun -np 2 solver run` of a family that does not decompose (the tetrahedral ones):
/// refused (exit 2, saying so, before anything is written) instead of each rank computing the
/// whole case.
#[test]
fn families_that_do_not_decompose_refuse_several_ranks() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let case = write_template(dir.path(), "dfg-2d-2");
    let out = dir.path().join("dfg");
    let o = solver_run(2, &case, &out, &[], &[]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("does not decompose across ranks") && e.contains("2 ranks"),
        "{e}"
    );
    assert!(!out.join("summary.json").exists(), "it ran");
}

/// The `Extent` and `Source` of every piece a `.pvti` lists, in order.
fn pvti_pieces(path: &std::path::Path) -> Vec<([[usize; 2]; 3], String)> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains("<PImageData WholeExtent=\""), "{}", path.display());
    text.lines()
        .filter(|l| l.starts_with("<Piece "))
        .map(|l| {
            let attr = |k: &str| {
                l.split(&format!("{k}=\""))
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .to_string()
            };
            let e: Vec<usize> = attr("Extent").split(' ').map(|v| v.parse().unwrap()).collect();
            ([[e[0], e[1]], [e[2], e[3]], [e[4], e[5]]], attr("Source"))
        })
        .collect()
}

/// The files of `dir` ending in `.ext`.
fn files_with(dir: &std::path::Path, ext: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect()
}

/// The pieces `index` (a `.pvti`) lists, joined along z (a point field's piece, `points`,
/// without the plane it shares with the next), equal the arrays of the single file `single`
/// bit for bit; 3 pieces, each starting on the plane where the one before ends.
fn assert_pieces_join_to(single: &std::path::Path, index: &std::path::Path, points: bool) {
    let pieces = pvti_pieces(index);
    assert_eq!(pieces.len(), 3, "{}", index.display());
    let dir = index.parent().unwrap();
    let whole = common::vtk_arrays(single).unwrap();
    let parts: Vec<_> = pieces
        .iter()
        .map(|(_, s)| common::vtk_arrays(&dir.join(s)).unwrap())
        .collect();
    for (w, (name, comps, values)) in whole.iter().enumerate() {
        let mut joined = vec![];
        for (k, ((extent, _), arrays)) in pieces.iter().zip(&parts).enumerate() {
            assert_eq!(&arrays[w].0, name);
            let span = |a: usize| extent[a][1] - extent[a][0] + usize::from(points);
            let plane = span(0).max(1) * span(1).max(1) * comps;
            let mut v = arrays[w].2.clone();
            if points && k + 1 < pieces.len() {
                v.truncate(v.len() - plane);
            }
            if k > 0 {
                assert_eq!(extent[2][0], pieces[k - 1].0[2][1], "pieces share their boundary plane");
            }
            joined.extend(v);
        }
        let same = joined.len() == values.len() && joined.iter().zip(values).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(
            same,
            "{name} in {}: pieces differ from the single file",
            index.display()
        );
    }
}

/// `output.pieces = "always"` on 3 ranks: the .pvd lists one .pvti a frame; each names the
/// pieces of the 3 parts, which exist, with extents that tile the grid along z; joined along z
/// (a point field's piece without the plane it shares with the next), every array equals the
/// single-rank file's, bit for bit: heat (point data) and Rayleigh-Taylor 3D (cell data).
#[test]
fn pieces_of_three_ranks_joined_equal_the_single_file() {
    if !available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str], bool); 2] = [
        (
            "heat-benchmark",
            &["grid.dims=[16,15,16]", "time.steps=20", "output.every=10"],
            true,
        ),
        ("euler-rt-3d", &["grid.dims=[8,8,24]", "time.end_time=0.5"], false),
    ];
    for (template, sets, points) in cases {
        let case = write_template(dir.path(), template);
        let one = dir.path().join(format!("{template}-one"));
        run(1, &case, &one, sets);
        let many = dir.path().join(format!("{template}-pieces"));
        let with_pieces: Vec<&str> = sets.iter().copied().chain(["output.pieces=\"always\""]).collect();
        run(3, &case, &many, &with_pieces);
        let singles = vti_files(&one);
        assert_eq!(
            files_with(&many, "pvti").len(),
            singles.len(),
            "{template}: a .pvti per frame"
        );
        let pvd = &files_with(&many, "pvd")[0];
        assert_eq!(
            std::fs::read_to_string(pvd).unwrap().matches(".pvti\"").count(),
            singles.len(),
            "{template}: the series lists the .pvti files"
        );
        for single in &singles {
            let index = many.join(single.file_name().unwrap()).with_extension("pvti");
            assert_pieces_join_to(single, &index, points);
        }
        // The summary's final range comes from the parts, not a gathered field.
        let (s1, s3) = (summary(&one), summary(&many));
        assert_eq!(s1["final_min"], s3["final_min"], "{template}");
        assert_eq!(s1["final_max"], s3["final_max"], "{template}");
        println!(
            "{template}: 3 ranks' pieces joined equal 1 rank's {} files",
            singles.len()
        );
    }
}
