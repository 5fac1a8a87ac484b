//! The checkpoint reader under libFuzzer: integration_tests::checkpoint (tests/src/lib.rs) on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| integration_tests::checkpoint(data));
