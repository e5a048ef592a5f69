//! Byte sizes as people write them: `1048576`, `1MiB`, `64KiB`, `1.5GiB`, `2MB`.

/// Parses a size. Binary suffixes (`KiB`, `MiB`, `GiB`, `TiB`, and the short `K`, `M`, `G`, `T`)
/// are powers of 1024; decimal ones (`KB`, `MB`, `GB`, `TB`) powers of 1000; `B` or none is bytes.
/// Fractions are allowed when the result is a whole number of bytes; underscores between digits
/// are ignored. The arithmetic is exact and checked: a size past `u64::MAX` bytes, however it is
/// written (many digits, a suffix, a long fraction), is an error, never a wrapped value.
///
/// ```
/// use memplan::parse_size;
///
/// assert_eq!(parse_size("64KiB"), Ok(65_536));
/// assert_eq!(parse_size("1.5K"), Ok(1_536));
/// assert_eq!(parse_size("2MB"), Ok(2_000_000));
/// assert_eq!(parse_size("1_000"), Ok(1_000));
/// assert!(parse_size("-1").is_err());
/// assert!(parse_size("0.5B").is_err()); // not a whole number of bytes
/// ```
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim().replace('_', "");
    if trimmed.starts_with('-') {
        return Err(format!("'{text}' is negative; a size is a non-negative number of bytes"));
    }
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(trimmed.len());
    let (number, suffix) = trimmed.split_at(split);
    let multiplier: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        other => {
            return Err(format!(
                "unknown size suffix '{other}' in '{text}' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)"
            ));
        }
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return Err(format!("'{text}' is not a size: it has no number"));
    }
    if fraction.contains('.') {
        return Err(format!("'{text}' is not a size: it has more than one decimal point"));
    }
    let too_large = || format!("size '{text}' does not fit in 64 bits (at most {} bytes)", u64::MAX);
    let whole_bytes = digits_value(whole).and_then(|value| value.checked_mul(multiplier)).ok_or_else(too_large)?;
    let fraction_bytes =
        fraction_times(fraction, multiplier).ok_or_else(|| format!("size '{text}' is not a whole number of bytes"))?;
    whole_bytes.checked_add(fraction_bytes).ok_or_else(too_large)
}

/// The value of a string of ASCII digits (empty is 0), or `None` past `u64::MAX`.
fn digits_value(digits: &str) -> Option<u64> {
    digits.bytes().try_fold(0u64, |value, digit| value.checked_mul(10)?.checked_add(u64::from(digit - b'0')))
}

/// `0.<digits> × multiplier` when that is a whole number, else `None`.
///
/// Works from the last digit inwards: `x` is `0.<digits[i..]> × multiplier`, and
/// `0.<digits[i-1..]> × multiplier = (digits[i-1] × multiplier + x) / 10`. The result is whole
/// exactly when every step divides evenly (each `x` is 10 × the next one minus a whole number of
/// multipliers), so there is no need to hold `<digits> × multiplier` (which can exceed any fixed
/// width); each `x` stays below the multiplier and `9 × multiplier + x` below 10 × 2^40.
fn fraction_times(digits: &str, multiplier: u64) -> Option<u64> {
    digits.bytes().rev().try_fold(0u64, |x, digit| {
        let sum = u64::from(digit - b'0') * multiplier + x;
        sum.is_multiple_of(10).then_some(sum / 10)
    })
}

#[cfg(test)]
mod oracle;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::oracle::{SUFFIXES, exact, expected};
    use super::parse_size;

    #[test]
    fn suffixes() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("64 KiB"), Ok(64 << 10));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("2MB"), Ok(2_000_000));
        assert_eq!(parse_size("1_000"), Ok(1000));
        assert_eq!(parse_size(".5K"), Ok(512));
        assert_eq!(parse_size("3."), Ok(3));
        assert!(parse_size("1.3B").is_err());
        assert!(parse_size("16EiB").is_err());
        assert!(parse_size("17179869184GiB").is_err());
        assert!(parse_size("MiB").unwrap_err().contains("no number"));
        assert!(parse_size(".").unwrap_err().contains("no number"));
        assert!(parse_size("-1").unwrap_err().contains("negative"));
        assert!(parse_size("1.2.3").unwrap_err().contains("more than one decimal point"));
    }

    /// The oracle's reading of whole texts (what the fuzz target checks every input against)
    /// agrees with `parse_size` on hand cases, and declines the forms it does not judge.
    #[test]
    fn the_oracle_reads_texts_as_parse_size_does() {
        for text in ["1048576", "1MiB", "1.5gib", ".5K", "3.", "1.3B", "16777216TiB", "0.000001MB"] {
            assert_eq!(expected(text), Some(parse_size(text).ok()), "{text}");
        }
        for text in ["", "MiB", "1.2.3", "1 MiB", "1EiB", "-1"] {
            assert_eq!(expected(text), None, "{text}");
        }
    }

    #[test]
    fn the_largest_size_and_one_past_it() {
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_size("18446744073709551615.0"), Ok(u64::MAX));
        assert_eq!(parse_size("0000000000000000000000018446744073709551615"), Ok(u64::MAX));
        assert!(parse_size("18446744073709551616").unwrap_err().contains("does not fit in 64 bits"));
        assert!(parse_size("18446744073709551616.0").unwrap_err().contains("does not fit in 64 bits"));
        // 2^64 - 2^40 = 16777215 TiB fits; one TiB more does not, nor does half a TiB more.
        assert_eq!(parse_size("16777215TiB"), Ok(u64::MAX - (1 << 40) + 1));
        assert!(parse_size("16777216TiB").is_err());
        assert_eq!(parse_size("16777215.5TiB"), Ok(u64::MAX - (1 << 39) + 1));
        assert!(parse_size("16777215.9999999999999999999999999999999999999990TiB").is_err());
    }

    /// `(int × 10^k + frac) × multiplier` was computed in unchecked u128, so a value
    /// of 2^127 + 5 with a fraction wrapped to 5.
    #[test]
    fn decimals_past_u128_do_not_wrap() {
        for text in [
            "170141183460469231731687303715884105733.0",
            "340282366920938463463374607431768211461.0",
            "170141183460469231731687303715884105733.5KiB",
            "99999999999999999999999999999999999999999999999999.25",
        ] {
            let error = parse_size(text).unwrap_err();
            assert!(error.contains("does not fit in 64 bits"), "{text}: {error}");
        }
    }

    #[test]
    fn long_fractions_are_exact() {
        let zeros = "0".repeat(10_000);
        assert_eq!(parse_size(&format!("7.{zeros}")), Ok(7));
        assert_eq!(parse_size(&format!("7.{zeros}KiB")), Ok(7 << 10));
        assert!(parse_size(&format!("7.{zeros}1TiB")).unwrap_err().contains("not a whole number"));
        // 2^-40 TiB is one byte: forty fractional digits, all of them needed.
        assert_eq!(parse_size("0.0000000000009094947017729282379150390625TiB"), Ok(1));
        assert_eq!(parse_size("0.00000000000090949470177292823791503906250000TiB"), Ok(1));
        assert!(parse_size("0.0000000000009094947017729282379150390624TiB").is_err());
        assert_eq!(parse_size("0.000001MB"), Ok(1));
        assert!(parse_size("0.0000001MB").is_err());
    }

    /// A number near a boundary: a random u64 divided by a suffix's multiplier, written with a
    /// fraction, so that values just below and just above `u64::MAX` come up often.
    fn near_the_limit() -> impl Strategy<Value = (String, String, usize)> {
        (any::<u64>(), 0..SUFFIXES.len(), 0u64..3, 0usize..45).prop_map(|(bytes, suffix, extra, fraction_digits)| {
            let multiplier = SUFFIXES[suffix].1;
            let bytes = u128::from(bytes) + u128::from(extra) * u128::from(multiplier);
            let whole = bytes / u128::from(multiplier);
            let remainder = bytes % u128::from(multiplier);
            // remainder / multiplier in decimal, cut to `fraction_digits` digits.
            let mut fraction = String::new();
            let mut rest = remainder;
            for _ in 0..fraction_digits {
                rest *= 10;
                fraction.push(char::from(b'0' + (rest / u128::from(multiplier)) as u8));
                rest %= u128::from(multiplier);
            }
            (whole.to_string(), fraction, suffix)
        })
    }

    fn random_digits() -> impl Strategy<Value = (String, String, usize)> {
        ("[0-9]{0,45}", "[0-9]{0,45}", 0..SUFFIXES.len())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn parse_size_agrees_with_exact_decimal_arithmetic(
            (whole, fraction, suffix) in prop_oneof![random_digits(), near_the_limit()],
            with_point in any::<bool>(),
        ) {
            let (name, multiplier) = SUFFIXES[suffix];
            let with_point = with_point || !fraction.is_empty();
            let text = if with_point { format!("{whole}.{fraction}{name}") } else { format!("{whole}{name}") };
            let expected = if whole.is_empty() && fraction.is_empty() {
                None
            } else {
                exact(&format!("{whole}{fraction}"), fraction.len(), multiplier)
            };
            let parsed = parse_size(&text);
            prop_assert_eq!(parsed.clone().ok(), expected, "{} gave {:?}", text, parsed);
        }
    }
}
