//! `parse_size`: no panic, and every text of the form `<digits>[.<digits>]<suffix>` gets the value
//! that exact decimal arithmetic gives (or an error exactly when that is not a whole number of
//! bytes in 64 bits).
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan::parse_size;

#[path = "../../src/size/oracle.rs"]
mod oracle;

fuzz_target!(|text: &str| {
    let parsed = parse_size(text);
    if let Some(expected) = oracle::expected(text) {
        assert_eq!(parsed.clone().ok(), expected, "{text:?} gave {parsed:?}");
    }
    if let Ok(bytes) = parsed {
        assert_eq!(parse_size(&bytes.to_string()), Ok(bytes), "{text:?}");
    }
});
