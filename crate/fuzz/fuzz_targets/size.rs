//! `parse_size`: no panic, and every text of the form `<digits>[.<digits>]<suffix>` gets the value
//! that exact decimal arithmetic gives (or an error exactly when that is not a whole number of
//! bytes in 64 bits).
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan::size::parse_size;

const SUFFIXES: [(&str, u64); 14] = [
    ("", 1),
    ("b", 1),
    ("k", 1 << 10),
    ("kib", 1 << 10),
    ("m", 1 << 20),
    ("mib", 1 << 20),
    ("g", 1 << 30),
    ("gib", 1 << 30),
    ("t", 1 << 40),
    ("tib", 1 << 40),
    ("kb", 1_000),
    ("mb", 1_000_000),
    ("gb", 1_000_000_000),
    ("tb", 1_000_000_000_000),
];

/// `digits × multiplier / 10^scale` on decimal digit strings, or `None` when it is not whole or
/// exceeds `u64::MAX`.
fn exact(digits: &str, scale: usize, multiplier: u64) -> Option<u64> {
    let mut product: Vec<u128> = digits.bytes().rev().map(|d| u128::from(d - b'0')).collect();
    let mut carry = 0u128;
    for digit in &mut product {
        let value = *digit * u128::from(multiplier) + carry;
        *digit = value % 10;
        carry = value / 10;
    }
    while carry > 0 {
        product.push(carry % 10);
        carry /= 10;
    }
    let (dropped, kept) = product.split_at(scale.min(product.len()));
    if dropped.iter().any(|&d| d != 0) {
        return None;
    }
    let significant: String = kept.iter().rev().skip_while(|&&d| d == 0).map(|&d| char::from(b'0' + d as u8)).collect();
    if significant.len() > 20 {
        return None;
    }
    u64::try_from(significant.parse::<u128>().unwrap_or(0)).ok()
}

/// What the text should read as, when it has the plain form `<digits>[.<digits>]<suffix>` with
/// at least one digit: `Some(None)` for "an error".
fn expected(text: &str) -> Option<Option<u64>> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let &(_, multiplier) = SUFFIXES.iter().find(|(name, _)| name.eq_ignore_ascii_case(suffix))?;
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if fraction.contains('.') || whole.len() + fraction.len() == 0 {
        return None;
    }
    Some(exact(&format!("{whole}{fraction}"), fraction.len(), multiplier))
}

fuzz_target!(|text: &str| {
    let parsed = parse_size(text);
    if let Some(expected) = expected(text) {
        assert_eq!(parsed.clone().ok(), expected, "{text:?} gave {parsed:?}");
    }
    if let Ok(bytes) = parsed {
        assert_eq!(parse_size(&bytes.to_string()), Ok(bytes), "{text:?}");
    }
});
