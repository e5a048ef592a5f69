//! `format::read` as the CLI calls it for a file without an extension: the format is sniffed from
//! the content. No panic, and what reads writes back to the same problem (see the lib).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| memplan_fuzz::read_and_round_trip(data, None));
