//! The oracle `parse_size` is tested against, by the unit tests and by the fuzz target (which
//! includes this file by path): exact arithmetic on decimal digit strings and its own table of
//! suffixes, nothing shared with `parse_size`.

/// Every suffix `parse_size` accepts (in mixed cases) and its multiplier.
pub(super) const SUFFIXES: [(&str, u64); 14] = [
    ("", 1),
    ("B", 1),
    ("K", 1 << 10),
    ("KiB", 1 << 10),
    ("M", 1 << 20),
    ("MiB", 1 << 20),
    ("g", 1 << 30),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
    ("t", 1 << 40),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("gb", 1_000_000_000),
    ("TB", 1_000_000_000_000),
];

/// `digits × multiplier / 10^scale`, or `None` when it is not whole or exceeds `u64::MAX`.
pub(super) fn exact(digits: &str, scale: usize, multiplier: u64) -> Option<u64> {
    // Least significant digit first; multiply by `multiplier` with a carry.
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
    // Dividing by 10^scale drops the `scale` lowest digits, which must all be zero.
    let (dropped, kept) = product.split_at(scale.min(product.len()));
    if dropped.iter().any(|&d| d != 0) {
        return None;
    }
    let significant: String = kept.iter().rev().skip_while(|&&d| d == 0).map(|&d| char::from(b'0' + d as u8)).collect();
    if significant.len() > 20 {
        return None;
    }
    let value: u128 = if significant.is_empty() { 0 } else { significant.parse().ok()? };
    u64::try_from(value).ok()
}

/// What `text` should read as, when it has the plain form `<digits>[.<digits>]<suffix>` with at
/// least one digit (`None` for any other form): `Some(None)` for "an error".
pub(super) fn expected(text: &str) -> Option<Option<u64>> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let &(_, multiplier) = SUFFIXES.iter().find(|(name, _)| name.eq_ignore_ascii_case(suffix))?;
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if fraction.contains('.') || whole.len() + fraction.len() == 0 {
        return None;
    }
    Some(exact(&format!("{whole}{fraction}"), fraction.len(), multiplier))
}
