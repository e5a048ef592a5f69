//! The CSV reader: no panic, and what reads writes back to the same problem (see the lib).
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan::format::Format;

fuzz_target!(|data: &[u8]| memplan_fuzz::read_and_round_trip(data, Some(Format::Csv)));
