//! The ExecuTorch importer on arbitrary bytes: no panic; what imports writes back and reads
//! again (see the lib).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| memplan_fuzz::import_pte(data));
