//! The fuzzing corpus replayed on stable Rust: every input that `cargo fuzz` kept for each
//! reader (`fuzz/corpus/<target>/`, minimised; scripts/fuzz.sh grows it) goes through the same
//! harness as the libFuzzer targets and must not panic. CI runs this on every change; a crash
//! that fuzzing finds is added here as a file once fixed.

use integration_tests as harness;

fn replay(target: &str, run: fn(&[u8])) {
    let files = harness::corpus(target);
    assert!(files.len() >= 5, "{target}: the corpus has {} files", files.len());
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let ok = std::panic::catch_unwind(|| run(&data));
        assert!(ok.is_ok(), "{target}: {} panics", f.display());
    }
    println!("{target}: {} inputs replayed", files.len());
}

#[test]
fn msh_corpus() {
    replay("msh", harness::msh);
}

#[test]
fn pmesh_corpus() {
    replay("pmesh", harness::pmesh);
}

#[test]
fn case_corpus() {
    replay("case", harness::case);
}

#[test]
fn checkpoint_corpus() {
    replay("checkpoint", harness::checkpoint);
}
