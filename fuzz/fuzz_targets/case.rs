//! The case reader under libFuzzer: integration_tests::case (tests/src/lib.rs) on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| integration_tests::case(data));
