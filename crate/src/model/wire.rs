//! How numbers cross JSON (the CLI's output, the page's messages): one rule for every integer
//! that may pass 2^53. JavaScript reads JSON numbers as doubles, which hold every integer only up
//! to 2^53 − 1 (`Number.MAX_SAFE_INTEGER`), so an integer up to that is written as a JSON number
//! and a larger one as a decimal string (`"18446744073709551615"`). Readers that may meet large values accept both. Floats are rounded
//! to six significant digits: they are measures (times, percentages), and the digits past that
//! are noise of the arithmetic, not information.

use serde::{Deserialize, Deserializer, Serializer};

/// The largest integer a JSON reader in JavaScript holds exactly (`Number.MAX_SAFE_INTEGER`).
pub(crate) const EXACT_LIMIT: u64 = (1 << 53) - 1;

/// Writes `value` by the rule: a number up to 2^53 − 1, else a decimal string.
pub(crate) fn serialize_u64<S: Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    if *value <= EXACT_LIMIT { serializer.serialize_u64(*value) } else { serializer.collect_str(value) }
}

/// [`serialize_u64`]'s rule for a 128-bit value (a sum of sizes).
pub(crate) fn serialize_u128<S: Serializer>(value: &u128, serializer: S) -> Result<S::Ok, S::Error> {
    match u64::try_from(*value) {
        Ok(value) => serialize_u64(&value, serializer),
        Err(_) => serializer.collect_str(value),
    }
}

/// [`serialize_u64`]'s rule for a signed value (a difference of sizes): a number when its
/// magnitude is at most 2^53 − 1, else a decimal string.
pub(crate) fn serialize_i128<S: Serializer>(value: &i128, serializer: S) -> Result<S::Ok, S::Error> {
    match i64::try_from(*value) {
        Ok(small) if small.unsigned_abs() <= EXACT_LIMIT => serializer.serialize_i64(small),
        _ => serializer.collect_str(value),
    }
}

/// [`serialize_u64`] for an optional value (`null` when absent).
pub(crate) fn serialize_option_u64<S: Serializer>(value: &Option<u64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serialize_u64(value, serializer),
        None => serializer.serialize_none(),
    }
}

/// Reads a value written by [`serialize_u64`]: a JSON number or a decimal string.
pub(crate) fn deserialize_u64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(u64),
        Text(String),
    }
    match Either::deserialize(deserializer)? {
        Either::Number(value) => Ok(value),
        Either::Text(text) => text.parse().map_err(serde::de::Error::custom),
    }
}

/// [`deserialize_u64`] for an optional value.
pub(crate) fn deserialize_option_u64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    struct Wrapped(#[serde(deserialize_with = "deserialize_u64")] u64);
    Ok(Option::<Wrapped>::deserialize(deserializer)?.map(|Wrapped(value)| value))
}

/// A float rounded to six significant digits (non-finite values as they are).
pub(crate) fn round_float(value: f64) -> f64 {
    if !value.is_finite() || value == 0.0 {
        return value;
    }
    let digits = 5 - value.abs().log10().floor() as i32;
    // Scale by an exact power of ten on the side that keeps it whole (10^-k is not a double).
    let rounded = if digits >= 0 {
        let scale = 10f64.powi(digits);
        (value * scale).round() / scale
    } else {
        let scale = 10f64.powi(-digits);
        (value / scale).round() * scale
    };
    if rounded.is_finite() { rounded } else { value }
}

/// Writes a float rounded by [`round_float`].
pub(crate) fn serialize_f64<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(round_float(*value))
}

/// [`serialize_f64`] for an optional value.
pub(crate) fn serialize_option_f64<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serialize_f64(value, serializer),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Probe {
        #[serde(serialize_with = "serialize_u64")]
        value: u64,
        #[serde(serialize_with = "serialize_f64")]
        ratio: f64,
    }

    fn json(value: u64, ratio: f64) -> String {
        serde_json::to_string(&Probe { value, ratio }).unwrap()
    }

    #[test]
    fn integers_from_two_to_the_53_become_strings() {
        assert_eq!(json(EXACT_LIMIT, 1.0), r#"{"value":9007199254740991,"ratio":1.0}"#);
        assert_eq!(json(EXACT_LIMIT + 1, 1.0), r#"{"value":"9007199254740992","ratio":1.0}"#);
        assert_eq!(json(u64::MAX, 1.0), r#"{"value":"18446744073709551615","ratio":1.0}"#);
    }

    #[derive(serde::Serialize, Deserialize, Debug, PartialEq)]
    struct Both {
        #[serde(serialize_with = "serialize_u64", deserialize_with = "deserialize_u64")]
        value: u64,
        #[serde(serialize_with = "serialize_option_u64", deserialize_with = "deserialize_option_u64")]
        maybe: Option<u64>,
    }

    #[test]
    fn integers_read_back_as_written() {
        for value in [0, EXACT_LIMIT, EXACT_LIMIT + 1, u64::MAX] {
            for maybe in [None, Some(value)] {
                let both = Both { value, maybe };
                let text = serde_json::to_string(&both).unwrap();
                assert_eq!(serde_json::from_str::<Both>(&text).unwrap(), both, "{text}");
            }
        }
        assert!(serde_json::from_str::<Both>(r#"{"value":"12x","maybe":null}"#).is_err());
        assert!(serde_json::from_str::<Both>(r#"{"value":-1,"maybe":null}"#).is_err());
    }

    #[test]
    fn floats_keep_six_significant_digits() {
        assert_eq!(json(0, 66.24561299999999), r#"{"value":0,"ratio":66.2456}"#);
        assert_eq!(json(0, 0.000123456789), r#"{"value":0,"ratio":0.000123457}"#);
        assert_eq!(json(0, 1234567.8), r#"{"value":0,"ratio":1234570.0}"#);
        assert_eq!(round_float(f64::MAX), 1.79769e308);
        assert!(round_float(f64::NAN).is_nan());
        assert_eq!(round_float(-2.5e-7), -2.5e-7);
    }
}
