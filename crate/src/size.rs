//! Byte sizes as people write them: `1048576`, `1MiB`, `64KiB`, `1.5GiB`, `2MB`.

/// Parses a size. Binary suffixes (`KiB`, `MiB`, `GiB`, `TiB`, and the short `K`, `M`, `G`, `T`)
/// are powers of 1024; decimal ones (`KB`, `MB`, `GB`, `TB`) powers of 1000; `B` or none is bytes.
/// Fractions are allowed when the result is a whole number of bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim().replace('_', "");
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
    if number.is_empty() {
        return Err(format!("'{text}' is not a size: it has no number"));
    }
    if let Ok(whole) = number.parse::<u64>() {
        return whole.checked_mul(multiplier).ok_or_else(|| format!("size '{text}' does not fit in 64 bits"));
    }
    let (int_part, frac_part) = number.split_once('.').ok_or_else(|| format!("'{text}' is not a size"))?;
    if frac_part.contains('.') || frac_part.len() > 18 {
        return Err(format!("'{text}' is not a size"));
    }
    // Exact arithmetic: value = (int * 10^k + frac) * multiplier / 10^k must be whole.
    let scale = 10u128.pow(frac_part.len() as u32);
    let int_value: u128 =
        if int_part.is_empty() { 0 } else { int_part.parse().map_err(|_| format!("'{text}' is not a size"))? };
    let frac_value: u128 =
        if frac_part.is_empty() { 0 } else { frac_part.parse().map_err(|_| format!("'{text}' is not a size"))? };
    let scaled = (int_value * scale + frac_value) * multiplier as u128;
    if !scaled.is_multiple_of(scale) {
        return Err(format!("size '{text}' is not a whole number of bytes"));
    }
    u64::try_from(scaled / scale).map_err(|_| format!("size '{text}' does not fit in 64 bits"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn suffixes() {
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("64 KiB"), Ok(64 << 10));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("2MB"), Ok(2_000_000));
        assert_eq!(parse_size("1_000"), Ok(1000));
        assert!(parse_size("1.3B").is_err());
        assert!(parse_size("16EiB").is_err());
        assert!(parse_size("17179869184GiB").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("-1").is_err());
    }
}
