//! Every registered family x template, as a user drives it: the template parses, steps on the
//! CPU, restarts bit-identically from a checkpoint, writes VTK that VTK's own reader opens with
//! the fields the summary promises, and a misspelt key of the family's section is refused with
//! the right key suggested. A new family is covered by this test as soon as it is registered,
//! and the registry must list every template file shipped.

mod common;

use common::{run_cpu, stderr};

use std::path::{Path, PathBuf};

/// A small Kuhn box for the families that read a tetrahedral mesh.
fn box_mesh(dir: &Path) -> PathBuf {
    use meshtool::generate::cartesian_box::{generate, BoxSpec};
    let raw = generate(&BoxSpec {
        dims: [5; 3],
        lo: [0.0; 3],
        hi: [1.0; 3],
    })
    .unwrap();
    let p = dir.join("box5.pmesh");
    meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Rcm)
        .unwrap()
        .0
        .write(&p)
        .unwrap();
    p
}

/// The template made small and short: 6 steps, output every 3, structured grids of at most
/// 16 cells per axis (but those a data file fixes), the box mesh for unstructured families.
fn shrink(text: &str, mesh: &Path) -> toml::Table {
    let mut t: toml::Table = toml::from_str(text).unwrap();
    // A built-in mesh is small and carries the template's own patches: kept.
    let builtin = t
        .get("mesh")
        .and_then(|m| m.as_str())
        .is_some_and(|m| m.starts_with("builtin:"));
    if t.contains_key("mesh") && !builtin {
        t.insert("mesh".into(), mesh.display().to_string().into());
        // Patch names belong to the template's own mesh (the duct's inlet, outlet).
        for (_, s) in t.iter_mut().filter_map(|(k, v)| Some((k, v.as_table_mut()?))) {
            s.remove("boundary");
        }
    }
    // A grid whose cells a data file fixes (a bathymetry raster) keeps its size.
    let data_grid = t
        .values()
        .any(|v| v.get("initial").and_then(|i| i.get("bathymetry")).is_some());
    if let Some(dims) = t
        .get_mut("grid")
        .filter(|_| !data_grid)
        .and_then(|g| g.get_mut("dims"))
        .and_then(|d| d.as_array_mut())
    {
        for d in dims.iter_mut() {
            *d = d.as_integer().unwrap().min(16).into();
        }
    }
    let time = t
        .entry("time")
        .or_insert(toml::Table::new().into())
        .as_table_mut()
        .unwrap();
    time.remove("end_time");
    time.insert("steps".into(), 6.into());
    let output = t
        .entry("output")
        .or_insert(toml::Table::new().into())
        .as_table_mut()
        .unwrap();
    output.remove("interval");
    output.insert("every".into(), 3.into());
    t
}

/// Each data set of a .pvd series read by VTK's XML readers: "file arrays cells points".
fn vtk_read_back(pvd: &Path) -> Option<String> {
    let script = r#"
import sys, os, vtk
import xml.etree.ElementTree as ET
pvd = sys.argv[1]
for d in ET.parse(pvd).getroot().iter('DataSet'):
    f = os.path.join(os.path.dirname(pvd), d.get('file'))
    r = vtk.vtkXMLUnstructuredGridReader() if f.endswith('.vtu') else vtk.vtkXMLImageDataReader()
    r.SetFileName(f)
    r.Update()
    o = r.GetOutput()
    names = []
    for data in (o.GetPointData(), o.GetCellData()):
        for i in range(data.GetNumberOfArrays()):
            a = data.GetArray(i)
            names.append('%s:%d:%d' % (a.GetName(), a.GetNumberOfComponents(), a.GetNumberOfTuples()))
    print(d.get('file'), ','.join(names), o.GetNumberOfCells(), o.GetNumberOfPoints())
"#;
    common::vtk_python(script, pvd)
}

/// The first key of the family's own section, misspelt by swapping its last two letters.
fn misspelt_key(t: &toml::Table, family: &str) -> (String, String) {
    let key = t[family].as_table().unwrap().keys().next().unwrap().clone();
    let mut c: Vec<char> = key.chars().collect();
    let n = c.len();
    c.swap(n - 1, n - 2);
    (key, c.into_iter().collect())
}

fn conform(dir: &Path, mesh: &Path, family: &str, template: &str, text: &str) {
    let t = shrink(text, mesh);
    let case = dir.join(format!("{template}.toml"));
    std::fs::write(&case, toml::to_string(&t).unwrap()).unwrap();
    let (full, part) = (dir.join("full"), dir.join("part"));
    let o = run_cpu(&case, &full, &[]);
    assert!(o.status.success(), "{template}: {}", stderr(&o));
    let o = run_cpu(
        &case,
        &part,
        &["--set", "time.steps=3", "--set", "output.checkpoint_every=3"],
    );
    assert!(o.status.success(), "{template}: {}", stderr(&o));
    let o = run_cpu(&case, &part, &["--restart"]);
    assert!(o.status.success(), "{template} restart: {}", stderr(&o));
    let file = |d: &Path| {
        let e = ["vti", "vtu"]
            .into_iter()
            .find(|e| d.join(format!("step_0000006.{e}")).exists());
        std::fs::read(d.join(format!("step_0000006.{}", e.expect("step 6 written")))).unwrap()
    };
    assert!(file(&full) == file(&part), "{template}: the restarted run differs");

    let name = t["case"]
        .get("name")
        .and_then(|n| n.as_str())
        .unwrap_or(template)
        .to_string();
    if let Some(text) = vtk_read_back(&full.join(format!("{name}.pvd"))) {
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{template}: steps 0, 3, 6 in the series: {text}");
        for l in &lines {
            let cols: Vec<&str> = l.split(' ').collect();
            assert!(
                cols[2].parse::<usize>().unwrap() > 0 && !cols[1].is_empty(),
                "{template}: {l}"
            );
        }
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(full.join("summary.json")).unwrap()).unwrap();
        let cells = summary["cells"].as_u64().unwrap();
        assert!(
            lines[0].contains(&format!(":{cells}")),
            "{template}: {cells} values per field: {}",
            lines[0]
        );
    }

    let (key, typo) = misspelt_key(&t, family);
    let o = run_cpu(&case, &dir.join("typo"), &["--set", &format!("{family}.{typo}=1")]);
    assert_eq!(o.status.code(), Some(2), "{template}: {}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("did you mean `{key}`")),
        "{template}: {}",
        stderr(&o)
    );
}

/// Every template file shipped under `solver/src/cases/<family>/templates/`: (name, text), by
/// name.
fn shipped_templates() -> Vec<(String, String)> {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cases");
    let mut out = vec![];
    for folder in std::fs::read_dir(&cases).unwrap().map(|e| e.unwrap().path()) {
        let Ok(files) = std::fs::read_dir(folder.join("templates")) else {
            continue;
        };
        for f in files.map(|e| e.unwrap().path()) {
            let name = f.file_stem().unwrap().to_string_lossy().into_owned();
            out.push((name, std::fs::read_to_string(&f).unwrap()));
        }
    }
    out.sort();
    out
}

/// The registry lists exactly the shipped templates, each once with its file's text and in the
/// family whose `[case] kind` it names; every check and benchmark runs one of its own family's
/// templates.
#[test]
fn the_registry_lists_every_shipped_template_once() {
    let shipped = shipped_templates();
    let mut names: Vec<&str> = vec![];
    for family in solver::cases::FAMILIES {
        for t in family.templates() {
            names.push(t.name);
            let (_, text) = shipped
                .iter()
                .find(|(name, _)| name == t.name)
                .unwrap_or_else(|| panic!("{}: no file {}.toml under a family's templates/", family.name(), t.name));
            assert_eq!(t.text, text, "{}: the registered text is not the file's", t.name);
            let kind: toml::Table = toml::from_str(t.text).unwrap();
            assert_eq!(kind["case"]["kind"].as_str(), Some(family.name()), "{}", t.name);
        }
        let own: Vec<&str> = family.templates().iter().map(|t| t.name).collect();
        for spec in family.checks().iter().map(|c| (c.name, c.template)) {
            assert!(
                own.contains(&spec.1),
                "{} check {}: template {}",
                family.name(),
                spec.0,
                spec.1
            );
        }
        for spec in family.benches().iter().map(|b| (b.name, b.template)) {
            assert!(
                own.contains(&spec.1),
                "{} bench {}: template {}",
                family.name(),
                spec.0,
                spec.1
            );
        }
    }
    names.sort();
    let files: Vec<&str> = shipped.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(names, files, "the registry's templates are not the shipped files");
}

#[test]
fn every_family_and_template_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = box_mesh(dir.path());
    let mut conformed = vec![];
    for family in solver::cases::FAMILIES {
        for t in family.templates() {
            let sub = dir.path().join(t.name);
            std::fs::create_dir_all(&sub).unwrap();
            conform(&sub, &mesh, family.name(), t.name, t.text);
            conformed.push(t.name);
        }
    }
    println!(
        "{} templates of {} families conform",
        conformed.len(),
        solver::cases::FAMILIES.len()
    );
    // Each shipped template, once (`the_registry_lists_every_shipped_template_once`).
    conformed.sort();
    let shipped: Vec<String> = shipped_templates().into_iter().map(|s| s.0).collect();
    assert_eq!(conformed, shipped);
}
