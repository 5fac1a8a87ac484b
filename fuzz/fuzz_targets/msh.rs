//! The msh reader under libFuzzer: integration_tests::msh (tests/src/lib.rs) on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| integration_tests::msh(data));
