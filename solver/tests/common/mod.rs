//! Helpers shared by the solver's integration tests.
#![allow(dead_code)] // each test binary uses its own subset

pub mod mpi;

use std::path::Path;
use std::process::{Command, Output};

/// The solver binary with these arguments.
pub fn solver(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_solver")).args(args).output().unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Run a Python script with VTK's own readers on `file`; its standard output. None (with a
/// visible SKIPPED) where python3-vtk9 is missing, which CI does not allow.
pub fn vtk_python(script: &str, file: &Path) -> Option<String> {
    let py = "/usr/bin/python3";
    if !Command::new(py)
        .args(["-c", "import vtk"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        assert!(std::env::var_os("CI").is_none(), "python3-vtk9 is required under CI");
        eprintln!("SKIPPED: VTK read-back (python3-vtk9 missing; scripts/setup.sh installs it)");
        return None;
    }
    let o = Command::new(py).args(["-c", script]).arg(file).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The arguments of `solver run CASE --backend cpu -q -o OUT`, then `extra`, then one `--set`
/// per override.
pub fn cpu_run_args<'a, S: AsRef<str>>(
    case: &'a Path,
    out: &'a Path,
    extra: &[&'a str],
    sets: &'a [S],
) -> Vec<&'a str> {
    let mut a = vec![
        "run",
        case.to_str().unwrap(),
        "--backend",
        "cpu",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ];
    a.extend_from_slice(extra);
    for s in sets {
        a.extend(["--set", s.as_ref()]);
    }
    a
}

/// `solver run CASE --backend cpu -q -o OUT` with more arguments.
pub fn run_cpu(case: &Path, out: &Path, extra: &[&str]) -> Output {
    solver(&cpu_run_args::<&str>(case, out, extra, &[]))
}

/// The template's text written to DIR/TEMPLATE.toml.
pub fn write_template(dir: &Path, template: &str) -> std::path::PathBuf {
    let case = dir.join(format!("{template}.toml"));
    std::fs::write(&case, solver(&["cases", template]).stdout).unwrap();
    case
}

/// Run a template on the CPU with overrides, asserting success; its output folder (named
/// after the overrides, so runs of one test do not overwrite each other).
pub fn run_template(dir: &Path, template: &str, sets: &[String]) -> std::path::PathBuf {
    let case = write_template(dir, template);
    let out = dir.join(format!(
        "out-{template}-{}",
        sets.join("-").replace(['/', '"', '=', '[', ']', ','], "_")
    ));
    let extra: Vec<&str> = sets.iter().flat_map(|s| ["--set", s.as_str()]).collect();
    let o = run_cpu(&case, &out, &extra);
    assert!(o.status.success(), "{template} {sets:?}: {}", stderr(&o));
    out
}

/// A run's summary.json.
pub fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Overrides from string literals.
pub fn sets(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

/// Run `template` on the CPU with one bad override: exit 2, `needle` in the message, nothing
/// written.
pub fn assert_refused(dir: &Path, template: &str, set: &str, needle: &str) {
    let case = write_template(dir, template);
    let out = dir.join("out");
    let o = run_cpu(&case, &out, &["--set", set]);
    assert_eq!(o.status.code(), Some(2), "{set}: {}", stderr(&o));
    assert!(stderr(&o).contains(needle), "{set}: {}", stderr(&o));
    assert!(!out.exists(), "{set}: output written");
}

/// The VTK image files of an output folder, by name.
pub fn vti_files(out: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vti"))
        .collect();
    v.sort();
    v
}

/// The cell array `name` of the last VTU of a run's series.
pub fn last_cell_array(out: &Path, name: &str) -> Vec<f64> {
    let mut files: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vtu"))
        .collect();
    files.sort();
    let vtk = vtkio::Vtk::import(files.last().unwrap()).unwrap();
    let vtkio::model::DataSet::UnstructuredGrid { pieces, .. } = vtk.data else {
        panic!("not a VTU")
    };
    let piece = pieces.into_iter().next().unwrap().into_loaded_piece_data(None).unwrap();
    piece
        .data
        .cell
        .into_iter()
        .find_map(|a| match a {
            vtkio::model::Attribute::DataArray(d) if d.name == name => d.data.cast_into::<f64>(),
            _ => None,
        })
        .unwrap()
}

/// The Float64 and Float32 data arrays (as f64) of a VTK XML file as the solver writes it
/// (inline base64, UInt64 headers, zlib / LZ4 blocks or uncompressed), decoded here
/// independently of vtkio (which reads no flat 2D image data): (name, components, values). An
/// error says what is wrong.
pub fn vtk_arrays(path: &Path) -> Result<Vec<(String, usize, Vec<f64>)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !text.starts_with("<VTKFile") || !text.trim_end().ends_with("</VTKFile>") {
        return Err(format!("{}: not a complete VTKFile", path.display()));
    }
    let compressor = text.split("compressor=\"").nth(1).and_then(|r| r.split('"').next());
    let mut out = vec![];
    for chunk in text.split("<DataArray ").skip(1) {
        let (tag, rest) = chunk.split_once('>').ok_or("unclosed tag")?;
        let attr = |k: &str| tag.split(&format!("{k}=\"")).nth(1).and_then(|r| r.split('"').next());
        let single = match attr("type") {
            Some("Float64") => false,
            Some("Float32") => true,
            _ => continue,
        };
        let name = attr("Name").ok_or("no Name")?.to_string();
        let ncomp: usize = attr("NumberOfComponents")
            .map_or(Ok(1), str::parse)
            .map_err(|e| format!("{e}"))?;
        let data = rest.split_once("</DataArray>").ok_or("unclosed DataArray")?.0;
        let raw = decode_array(data, compressor).map_err(|e| format!("{name}: {e}"))?;
        let values = if single {
            raw.chunks(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()) as f64)
                .collect()
        } else {
            raw.chunks(8)
                .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
                .collect()
        };
        out.push((name, ncomp, values));
    }
    Ok(out)
}

/// The bytes of one data array's base64 text: [n][data] uncompressed, or the UInt64 block
/// header ([blocks][block size][last block's size][compressed sizes...]) then the blocks.
fn decode_array(data: &str, compressor: Option<&str>) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let Some(c) = compressor else {
        let all = b64.decode(data).map_err(|e| e.to_string())?;
        let n = u64::from_le_bytes(all[..8].try_into().unwrap()) as usize;
        if all.len() != 8 + n {
            return Err(format!("header says {n} bytes, {} follow", all.len() - 8));
        }
        return Ok(all[8..].to_vec());
    };
    let first = b64.decode(&data[..12]).map_err(|e| e.to_string())?;
    let nb = u64::from_le_bytes(first[..8].try_into().unwrap()) as usize;
    let hchars = 4 * (8 * (3 + nb)).div_ceil(3);
    let header: Vec<usize> = b64
        .decode(&data[..hchars])
        .map_err(|e| e.to_string())?
        .chunks(8)
        .take(3 + nb)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()) as usize)
        .collect();
    let (nu, np) = (header[1], header[2]);
    let blocks = b64.decode(&data[hchars..]).map_err(|e| e.to_string())?;
    let (mut raw, mut at) = (vec![], 0);
    for (i, &size) in header[3..].iter().enumerate() {
        let block = blocks
            .get(at..at + size)
            .ok_or(format!("block {i} runs past the data"))?;
        at += size;
        let want = if i + 1 == nb && np > 0 {
            np
        } else if i + 1 == nb {
            0
        } else {
            nu
        };
        let got = inflate(c, block, want).map_err(|e| format!("block {i}: {e}"))?;
        if got.len() != want {
            return Err(format!("block {i} holds {} bytes, not {want}", got.len()));
        }
        raw.extend(got);
    }
    if at != blocks.len() {
        return Err(format!("{} bytes after the blocks", blocks.len() - at));
    }
    Ok(raw)
}

/// One block decompressed by VTK's compressor `c` (`want` bytes expected).
fn inflate(c: &str, block: &[u8], want: usize) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    match c {
        "vtkZLibDataCompressor" => {
            let mut v = vec![];
            flate2::read::ZlibDecoder::new(block)
                .read_to_end(&mut v)
                .map_err(|e| e.to_string())?;
            Ok(v)
        }
        "vtkLZ4DataCompressor" => lz4_flex::block::decompress(block, want).map_err(|e| e.to_string()),
        other => Err(format!("unknown compressor {other}")),
    }
}
