//! Property-based fuzzing of the readers: mutated, truncated and random inputs give an error
//! or a mesh, never a panic.

mod common;
use meshtool::msh::parse_msh;
use meshtool::pmesh::{prepare, PreparedMesh};
use meshtool::reorder::Reorder;
use proptest::prelude::*;
use std::path::Path;

const V22: &str = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n2 7 \"wall\"\n$EndPhysicalNames\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n$Elements\n8\n1 4 2 9 1 1 2 3 4\n2 4 2 9 1 2 3 4 5\n3 2 2 7 1 1 3 2\n4 2 2 7 1 1 2 4\n5 2 2 7 1 1 4 3\n6 2 2 7 1 2 3 5\n7 2 2 7 1 2 5 4\n8 2 2 7 1 3 4 5\n$EndElements\n";

const V41: &str = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 1 1\n1 0 0 0 1 1 1 1 7 0\n1 0 0 0 1 1 1 1 9 0\n$EndEntities\n$Nodes\n1 5 1 5\n3 1 0 5\n1\n2\n3\n4\n5\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n$EndNodes\n$Elements\n2 8 1 8\n3 1 4 2\n1 1 2 3 4\n2 2 3 4 5\n2 1 2 6\n3 1 3 2\n4 1 2 4\n5 1 4 3\n6 2 3 5\n7 2 5 4\n8 3 4 5\n$EndElements\n";

/// Binary MSH 4.1 and 2.2 samples written by Gmsh itself, when it is installed.
fn binary_samples() -> Vec<Vec<u8>> {
    let mut out = vec![];
    if std::process::Command::new("gmsh")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("v41.msh");
        std::fs::write(&src, V41).unwrap();
        for f in ["msh41", "msh22"] {
            out.push(std::fs::read(common::gmsh_convert(&src, dir.path(), f, true)).unwrap());
        }
    }
    out
}

fn check(bytes: &[u8]) {
    let path = Path::new("fuzz.msh");
    if let Ok(mesh) = parse_msh(bytes, path) {
        // Whatever parses must also prepare without panicking.
        let _ = prepare(&mesh, Reorder::Rcm);
    }
}

#[test]
fn the_seed_meshes_ascii_and_binary_parse_into_two_tetrahedra_and_prepare() {
    for s in [V22.as_bytes(), V41.as_bytes()] {
        let m = parse_msh(s, Path::new("s.msh")).unwrap();
        assert_eq!(m.tets.len(), 2);
        prepare(&m, Reorder::Rcm).unwrap();
    }
    for b in binary_samples() {
        let m = parse_msh(&b, Path::new("s.msh")).unwrap();
        assert_eq!(m.tets.len(), 2);
        prepare(&m, Reorder::Rcm).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn truncation_never_panics(which in 0usize..2, cut in 0usize..1000) {
        let s = [V22, V41][which].as_bytes();
        check(&s[..cut.min(s.len())]);
    }

    #[test]
    fn byte_mutations_never_panic(which in 0usize..2, edits in prop::collection::vec((0usize..1000, any::<u8>()), 1..6)) {
        let mut s = [V22, V41][which].as_bytes().to_vec();
        for (at, b) in edits {
            let n = s.len();
            s[at % n] = b;
        }
        check(&s);
    }

    #[test]
    fn token_replacement_never_panics(which in 0usize..2, at in 0usize..200, value in prop_oneof![
        Just("-1".to_string()), Just("0".to_string()), Just("4294967296".to_string()),
        Just("99999999999999999999".to_string()), Just("nan".to_string()), Just("$Nodes".to_string()),
        any::<i64>().prop_map(|v| v.to_string()), "[a-z]{1,4}"]) {
        let s = [V22, V41][which];
        let mut toks: Vec<&str> = s.split(' ').collect();
        let n = toks.len();
        toks[at % n] = &value;
        check(toks.join(" ").as_bytes());
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check(&bytes);
        let _ = PreparedMesh::from_bytes(&bytes, Path::new("fuzz.pmesh"));
    }
}

/// The checked-in periodic boxes (MSH 2.2 and 4.1 ASCII), whose `$Periodic` sections the
/// next test mutates.
fn periodic_samples() -> [String; 2] {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    ["periodic-box-22.msh", "periodic-box-41.msh"].map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn periodic_section_mutations_never_panic(which in 0usize..2, picks in prop::collection::vec((0usize..100_000, prop_oneof![
        Just("-1".to_string()), Just("0".to_string()), Just("16".to_string()), Just("999999".to_string()),
        Just("nan".to_string()), Just("inf".to_string()), Just("Affine".to_string()), Just("$EndPeriodic".to_string()),
        any::<i32>().prop_map(|v| v.to_string()), (-2.0f64..2.0).prop_map(|v| v.to_string())]), 1..4), cut in 0usize..100_000) {
        let s = &periodic_samples()[which];
        let (a, b) = (s.find("$Periodic").unwrap() + 10, s.find("$EndPeriodic").unwrap());
        // Token spans of the section; replace the picked ones, keeping every separator.
        let mut spans = vec![];
        let mut start = None;
        for (i, ch) in s[a..b].char_indices() {
            match (ch.is_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(st)) => {
                    spans.push((a + st, a + i));
                    start = None;
                }
                _ => {}
            }
        }
        let mut edits: Vec<((usize, usize), String)> = picks.into_iter().map(|(at, v)| (spans[at % spans.len()], v)).collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        edits.dedup_by_key(|e| e.0);
        let mut mutated = s.clone();
        for ((x, y), v) in edits {
            mutated.replace_range(x..y, &v);
        }
        check(mutated.as_bytes());
        // Truncated inside or after the section.
        let cut = a + cut % (s.len() - a);
        check(&s.as_bytes()[..cut]);
    }
}

#[test]
fn binary_mutations_never_panic() {
    use proptest::test_runner::TestRunner;
    for sample in binary_samples() {
        let mut runner = TestRunner::new(ProptestConfig {
            cases: 2000,
            ..ProptestConfig::default()
        });
        let n = sample.len();
        runner
            .run(
                &(prop::collection::vec((0..n, any::<u8>()), 1..4), 0..=n),
                |(edits, cut)| {
                    let mut s = sample.clone();
                    for (at, b) in edits {
                        s[at] = b;
                    }
                    check(&s[..cut]);
                    Ok(())
                },
            )
            .unwrap();
    }
}
