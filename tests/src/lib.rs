//! Integration tests live in tests/tests/. This library holds the fuzzing harness: one function
//! per reader, called by the libFuzzer targets in `fuzz/` (`scripts/fuzz.sh`) and by the stable
//! test `tests/tests/fuzz_corpus.rs`, which replays the kept corpus on every CI run. Each takes
//! any bytes; a reader must answer with a value or an error, never a panic, a hang or an
//! allocation the input does not pay for.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Meshes with more tetrahedra than this are parsed but not prepared (time per input).
const PREPARE_MAX_CELLS: usize = 4096;

/// A Gmsh `.msh` file (2.2 / 4.1, ASCII / binary): parsed, and what parses prepared (faces,
/// neighbours, patches, dual tables, Hilbert order) as `meshtool prepare` does.
pub fn msh(data: &[u8]) {
    if let Ok(raw) = meshtool::msh::parse_msh(data, Path::new("fuzz.msh")) {
        if raw.tets.len() <= PREPARE_MAX_CELLS {
            let _ = meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Hilbert);
        }
    }
}

/// A prepared mesh (`.pmesh`). An even first byte: the rest as the file's bytes. An odd one:
/// the rest as the payload of a well-framed file (magic, version, length and the CRC-32
/// computed here), so that inputs reach the sections behind the checksum.
pub fn pmesh(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let path = Path::new("fuzz.pmesh");
    if mode % 2 == 0 {
        let _ = meshtool::pmesh::PreparedMesh::from_bytes(rest, path);
    } else {
        let _ = meshtool::pmesh::PreparedMesh::from_bytes(&frame_pmesh(rest), path);
    }
}

/// `payload` inside a .pmesh header and checksum.
pub fn frame_pmesh(payload: &[u8]) -> Vec<u8> {
    let mut b = meshtool::pmesh::MAGIC.to_vec();
    b.extend_from_slice(&meshtool::pmesh::FORMAT_VERSION.to_le_bytes());
    b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    b.extend_from_slice(payload);
    b.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    b
}

/// A case file: the framework's sections and the family's, parsed and validated as `solver
/// run` does before it builds anything. The file sits in a folder holding `box.pmesh` (a 2³
/// Kuhn box) and `g.grid.toml` (a 4 x 3 x 1 grid), so that cases naming them get past the
/// file reads. Inputs with a string value holding a path separator are skipped: the harness
/// reads no file outside its folder (a case may name any file, `/dev/zero` included).
pub fn case(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(table) = text.parse::<toml::Table>() {
        if names_a_path(&toml::Value::Table(table)) {
            return;
        }
    }
    let file = case_dir().join("case.toml");
    if let Ok(doc) = solver::framework::CaseDoc::parse(text, &file, &[]) {
        let _ = solver::framework::case::parse_setup(&doc, solver::cases::FAMILIES);
    }
}

/// Whether a TOML value holds a string with a path separator.
fn names_a_path(v: &toml::Value) -> bool {
    match v {
        toml::Value::String(s) => s.contains(['/', '\\']),
        toml::Value::Array(a) => a.iter().any(names_a_path),
        toml::Value::Table(t) => t.values().any(names_a_path),
        _ => false,
    }
}

/// A checkpoint file (`checkpoint.bin`): refused with a message unless whole and intact.
pub fn checkpoint(data: &[u8]) {
    let _ = solver::framework::checkpoint::from_bytes(data, Path::new("checkpoint.bin"));
}

/// The folder the case harness reads from, made once per process.
fn case_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder").keep();
        let raw = meshtool::generate::cartesian_box::generate(&meshtool::generate::cartesian_box::BoxSpec {
            dims: [2; 3],
            lo: [0.0; 3],
            hi: [1.0; 3],
        })
        .expect("a box");
        let (mesh, _) = meshtool::pmesh::prepare(&raw, meshtool::reorder::Reorder::Hilbert).expect("prepared");
        mesh.write(&dir.join("box.pmesh")).expect("box.pmesh written");
        let grid = "format = \"cfd-grid\"\nversion = 1\norigin = [0.0, 0.0, 0.0]\nextent = [1.0, 1.0, 0.1]\ndims = [4, 3, 1]\n";
        std::fs::write(dir.join("g.grid.toml"), grid).expect("grid written");
        dir
    })
}

/// The kept corpus of a fuzz target (`fuzz/corpus/NAME`), every file in it.
pub fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}
