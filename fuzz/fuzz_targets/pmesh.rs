//! The pmesh reader under libFuzzer: integration_tests::pmesh (tests/src/lib.rs) on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| integration_tests::pmesh(data));
