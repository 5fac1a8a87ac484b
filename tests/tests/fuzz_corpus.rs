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

/// A short fuzz run on stable, every CI run: `CASES` inputs per reader, each a kept corpus file
/// with a few random mutations (byte flips, inserted and deleted runs, truncation, a splice of
/// another file), the kinds libFuzzer makes. The long runs (10 million executions per reader)
/// are `scripts/fuzz.sh`'s.
fn mutate_and_run(target: &str, run: fn(&[u8])) {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    const CASES: u32 = 20_000;
    let files: Vec<Vec<u8>> = harness::corpus(target)
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    let n = files.len();
    let edit = (0u8..5, any::<u32>(), any::<u32>(), any::<u8>());
    let strategy = (0..n, 0..n, proptest::collection::vec(edit, 1..6));
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |(a, b, edits)| {
            let mut data = files[a].clone();
            for (op, at, len, byte) in edits {
                let at = if data.is_empty() { 0 } else { at as usize % data.len() };
                let len = (len as usize % 64).min(data.len() - at);
                match op {
                    0 => {
                        if let Some(x) = data.get_mut(at) {
                            *x ^= byte | 1;
                        }
                    }
                    1 => data.splice(at..at, std::iter::repeat_n(byte, len)).for_each(drop),
                    2 => data.drain(at..at + len).for_each(drop),
                    3 => data.truncate(at),
                    _ => {
                        let other = &files[b];
                        let from = (len * 31) % other.len().max(1);
                        let piece = &other[from.min(other.len())..(from + len).min(other.len())];
                        data.splice(at..at, piece.iter().copied()).for_each(drop);
                    }
                }
            }
            run(&data);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{target}: {e}"));
    println!("{target}: {CASES} mutated inputs, no panic");
}

#[test]
fn msh_mutations() {
    mutate_and_run("msh", harness::msh);
}

#[test]
fn pmesh_mutations() {
    mutate_and_run("pmesh", harness::pmesh);
}

#[test]
fn case_mutations() {
    mutate_and_run("case", harness::case);
}

#[test]
fn checkpoint_mutations() {
    mutate_and_run("checkpoint", harness::checkpoint);
}
