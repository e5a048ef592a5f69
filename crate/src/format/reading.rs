//! What the CSV and JSON readers share: integers written as text, lifetimes converted to
//! `[start, end)` with messages in the file's own field names, and assembling the checked problem.

use super::Offsets;
use crate::model::{Buffer, Gap, InputError, InputErrors, Problem, Semantics, Window};

/// Parses a plain decimal `u64` (blanks around it allowed). The error says which way the text is
/// wrong, because "negative" and "too large" need different fixes from "not a number".
pub(super) fn parse_integer(text: &str) -> Result<u64, String> {
    // The common cell, a few plain digits, without the general parse (19 digits never overflow).
    if (1..=19).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(text.bytes().fold(0, |value, digit| value * 10 + u64::from(digit - b'0')));
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("missing value; expected a non-negative integer".to_string());
    }
    let is_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Ok(value) = trimmed.parse::<u64>() {
        return Ok(value);
    }
    if is_digits(trimmed.strip_prefix('+').unwrap_or(trimmed)) {
        return Err(format!("'{trimmed}' is larger than {} (the largest 64-bit value)", u64::MAX));
    }
    if trimmed.strip_prefix('-').is_some_and(is_digits) {
        return Err(format!("'{trimmed}' is negative; expected a non-negative integer"));
    }
    Err(format!("'{trimmed}' is not a non-negative integer"))
}

/// Parses a time that may be negative (MiniMalloc reads times as signed 64-bit values) and adds
/// `shift`, which the reader chose to make the file's earliest time 0 or more.
pub(super) fn parse_time(text: &str, shift: u64) -> Result<u64, String> {
    let trimmed = text.trim();
    let Some(digits) = trimmed.strip_prefix('-') else {
        return parse_integer(trimmed)?.checked_add(shift).ok_or_else(|| too_late(trimmed, shift));
    };
    let magnitude = parse_integer(digits).map_err(|_| format!("'{trimmed}' is not an integer"))?;
    shift
        .checked_sub(magnitude)
        .ok_or_else(|| format!("'{trimmed}' is before the earliest start ({})", -(shift as i128)))
}

fn too_late(text: &str, shift: u64) -> String {
    format!("'{text}' is too large once every time is shifted by {shift} to make the earliest start 0")
}

/// The signed value of a time cell, for finding the earliest one; `None` when it is not a number
/// (the row's reading reports that).
pub(super) fn signed_time(text: &str) -> Option<i128> {
    let trimmed = text.trim();
    match trimmed.strip_prefix('-') {
        Some(digits) => parse_integer(digits).ok().map(|m| -(m as i128)),
        None => parse_integer(trimmed).ok().map(i128::from),
    }
}

/// Reads a `gaps` cell: items split on blanks (empty ones skipped), each `lo-hi` (not alive in
/// `[lo, hi)`) or `lo-hi@lower:upper` (only bytes `[lower, upper)` alive then). Times are read like
/// the lifetime's, in its semantics (so `hi` is inclusive with the legacy `end` column) and with the
/// same shift; the window's bytes are taken as written.
pub(super) fn parse_gaps(text: &str, semantics: Semantics, shift: u64) -> Result<Vec<Gap>, String> {
    text.split_whitespace().map(|item| parse_gap(item, semantics, shift)).collect()
}

fn parse_gap(item: &str, semantics: Semantics, shift: u64) -> Result<Gap, String> {
    let expected = || format!("gap '{item}': expected lo-hi or lo-hi@lower:upper");
    let (times, window) = match item.split_once('@') {
        Some((times, window)) => (times, Some(window)),
        None => (item, None),
    };
    // The separator is the first '-' after the first character (a leading one is a sign).
    let split = times.char_indices().skip(1).find(|&(_, c)| c == '-').map(|(i, _)| i).ok_or_else(expected)?;
    let (lo, hi) = (&times[..split], &times[split + 1..]);
    let lo = parse_time(lo, shift).map_err(|message| format!("gap '{item}': {message}"))?;
    let hi = parse_time(hi, shift).map_err(|message| format!("gap '{item}': {message}"))?;
    let (start, end) = semantics.to_half_open(lo, hi).map_err(|message| format!("gap '{item}': {message}"))?;
    let window = match window {
        None => None,
        Some(window) => {
            let (lower, upper) = window.split_once(':').ok_or_else(expected)?;
            let lower = parse_integer(lower).map_err(|message| format!("gap '{item}': window: {message}"))?;
            let upper = parse_integer(upper).map_err(|message| format!("gap '{item}': window: {message}"))?;
            Some(Window { lower, upper })
        }
    };
    Ok(Gap { start, end, window })
}

/// Writes gaps as [`parse_gaps`] reads them, times in `semantics` and unshifted by `shift`.
pub(super) fn write_gaps(gaps: &[Gap], semantics: Semantics, shift: u64) -> String {
    let time = |t: u64| (t as i128 - shift as i128).to_string();
    let items: Vec<String> = gaps
        .iter()
        .map(|gap| {
            let (lo, hi) = semantics.from_half_open(gap.start, gap.end);
            match gap.window {
                None => format!("{}-{}", time(lo), time(hi)),
                Some(w) => format!("{}-{}@{}:{}", time(lo), time(hi), w.lower, w.upper),
            }
        })
        .collect();
    items.join(" ")
}

/// One lifetime as written in the file, with the names its two times had there (`lower`/`upper`,
/// `start`/`end`, ...), so that a conversion error speaks the file's language.
pub(super) struct WrittenLifetime<'a> {
    pub start_name: &'a str,
    pub start: u64,
    pub end_name: &'a str,
    pub end: u64,
}

/// Converts to `[start, end)` like [`Semantics::to_half_open`], rewording its error with the
/// file's field names, e.g. "upper (4) must be greater than lower (9)".
pub(super) fn to_half_open(semantics: Semantics, lifetime: &WrittenLifetime) -> Result<(u64, u64), String> {
    let WrittenLifetime { start_name, start, end_name, end } = *lifetime;
    semantics.to_half_open(start, end).map_err(|_| match semantics {
        Semantics::Inclusive if end >= start => {
            format!("{end_name} ({end}) is too large to convert to a half-open end")
        }
        Semantics::Inclusive => format!("{end_name} ({end}) must not be less than {start_name} ({start})"),
        Semantics::HalfOpen | Semantics::Exclusive => {
            format!("{end_name} ({end}) must be greater than {start_name} ({start})")
        }
    })
}

/// One buffer as read from a file, before the whole problem is checked.
pub(super) struct Row {
    pub buffer: Buffer,
    /// `(start, end, size)` as written, for the max-load check.
    pub written: (u64, u64, u64),
    /// The buffer's offset when reading a plan (always `Some` then), `None` otherwise.
    pub planned: Option<u64>,
}

/// The rows read so far, kept as the problem will hold them: each row's buffer goes straight into
/// the list the problem takes over, so that a large input is not held twice.
pub(super) struct Rows {
    buffers: Vec<Buffer>,
    /// `(start, end, size)` of each row as written, for the max-load check; only kept when the
    /// semantics converts the times (half-open times are the buffers' own).
    written: Option<Vec<(u64, u64, u64)>>,
    /// The offset of each row when reading a plan.
    planned: Vec<u64>,
    offsets: Offsets,
    /// Every error found so far, in the order found.
    pub errors: Vec<InputError>,
}

impl Rows {
    pub(super) fn new(semantics: Semantics, offsets: Offsets) -> Rows {
        let written = (semantics != Semantics::HalfOpen).then(Vec::new);
        Rows { buffers: Vec::new(), written, planned: Vec::new(), offsets, errors: Vec::new() }
    }

    pub(super) fn push(&mut self, row: Row) {
        // A plan's offsets stay out of the problem (only pinned ones go in, and Problem::new
        // checks those), so their overflow is caught here, where the line is known.
        if let Some(offset) = row.planned {
            if offset.checked_add(row.buffer.size).is_none() {
                let message =
                    format!("buffer {}: offset {offset} + size {} overflows u64", row.buffer.id, row.buffer.size);
                self.errors.push(match row.buffer.line() {
                    Some(line) => InputError::at_line(line as usize, message),
                    None => InputError::new(message),
                });
            }
            if self.offsets == Offsets::Plan {
                self.planned.push(offset);
            }
        }
        if let Some(written) = &mut self.written {
            written.push(row.written);
        }
        self.buffers.push(row.buffer);
    }
}

/// Builds the problem from the rows that were read, or returns every error: the readers' own
/// (`rows.errors`) together with [`Problem::new`]'s, sorted by position. Also returns the plan when
/// reading one.
pub(super) fn assemble(
    rows: Rows,
    capacity: Option<u64>,
    semantics: Semantics,
) -> Result<(Problem, Option<Vec<u64>>), InputErrors> {
    let Rows { mut buffers, written, planned, offsets, mut errors } = rows;
    buffers.shrink_to_fit();
    if errors.is_empty()
        && let Some(written) = written
    {
        check_max_load(semantics, &written, &buffers).map_err(InputErrors::single)?;
    }
    match Problem::new(buffers, capacity) {
        Ok(mut problem) if errors.is_empty() => {
            problem.set_semantics(semantics);
            // The readers give every row a planned offset in plan mode, so this holds them all.
            let plan = match offsets {
                Offsets::Plan => Some(planned),
                Offsets::Pinned => None,
            };
            Ok((problem, plan))
        }
        Ok(_) => Err(sorted(errors)),
        Err(problem_errors) => {
            errors.extend(problem_errors.errors);
            Err(sorted(errors))
        }
    }
}

/// Guards the conversion: the max load computed in the file's semantics from the times as written
/// must equal the one of the converted `[start, end)` buffers. A mismatch is a bug in memplan, not
/// in the input, and is reported rather than planning a different problem than the one given.
fn check_max_load(semantics: Semantics, written: &[(u64, u64, u64)], buffers: &[Buffer]) -> Result<(), InputError> {
    let expected = semantics.max_load_raw(written.iter().copied());
    // The times as written know nothing of gaps: compare with the hulls.
    let converted = crate::model::load::max_load_of_hulls(buffers);
    if expected == converted {
        Ok(())
    } else {
        Err(InputError::new(format!(
            "internal error: converting {} lifetimes to [start, end) changed the max load from {expected} to \
             {converted}; please report this input",
            semantics.name()
        )))
    }
}

/// The errors sorted by position (unlocated ones last), keeping the order of errors on one spot.
pub(super) fn sorted(mut errors: Vec<InputError>) -> InputErrors {
    errors.sort_by_key(|e| (e.line.unwrap_or(usize::MAX), e.column.unwrap_or(0)));
    InputErrors::new(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_say_why_they_are_rejected() {
        assert_eq!(parse_integer(" 42 "), Ok(42));
        assert_eq!(parse_integer("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_integer("18446744073709551616").unwrap_err().contains("larger than"));
        assert!(parse_integer("-3").unwrap_err().contains("negative"));
        assert!(parse_integer("abc").unwrap_err().contains("'abc' is not a non-negative integer"));
        assert!(parse_integer("1.5").unwrap_err().contains("not a non-negative integer"));
        assert!(parse_integer("  ").unwrap_err().contains("missing value"));
        // The plain-digits path and the general one agree, up to 19 digits and past them.
        for text in ["0", "007", "9999999999999999999", "10000000000000000000", "18446744073709551615"] {
            assert_eq!(parse_integer(text).ok(), text.parse::<u64>().ok(), "{text}");
        }
        assert!(parse_integer("18446744073709551616").is_err());
        assert_eq!(parse_integer("+5"), Ok(5));
    }

    #[test]
    fn gaps_read_and_write_back() {
        let gaps = parse_gaps("  2-4   6-8@0:16 ", Semantics::HalfOpen, 0).unwrap();
        assert_eq!(gaps, vec![Gap::new(2, 4), Gap::windowed(6, 8, 0, 16)]);
        assert_eq!(write_gaps(&gaps, Semantics::HalfOpen, 0), "2-4 6-8@0:16");
        // Inclusive: hi + 1, the window as written; a shift of 5 makes -5 time 0.
        let gaps = parse_gaps("-3--1@2:3", Semantics::Inclusive, 5).unwrap();
        assert_eq!(gaps, vec![Gap::windowed(2, 5, 2, 3)]);
        assert_eq!(write_gaps(&gaps, Semantics::Inclusive, 5), "-3--1@2:3");
        assert_eq!(parse_gaps("", Semantics::HalfOpen, 0), Ok(Vec::new()));
        assert!(parse_gaps("4", Semantics::HalfOpen, 0).unwrap_err().contains("expected lo-hi"));
        assert!(parse_gaps("1-2@3", Semantics::HalfOpen, 0).unwrap_err().contains("expected lo-hi"));
        assert!(parse_gaps("1-x", Semantics::HalfOpen, 0).unwrap_err().contains("'x' is not"));
        assert!(parse_gaps("4-2", Semantics::HalfOpen, 0).unwrap_err().contains("must be greater"));
        assert!(parse_time("-6", 5).unwrap_err().contains("before the earliest start (-5)"));
    }

    #[test]
    fn lifetime_errors_use_the_file_names() {
        let lifetime = WrittenLifetime { start_name: "lower", start: 9, end_name: "upper", end: 4 };
        assert_eq!(
            to_half_open(Semantics::HalfOpen, &lifetime),
            Err("upper (4) must be greater than lower (9)".to_string())
        );
        let lifetime = WrittenLifetime { start_name: "start", start: 3, end_name: "end", end: 3 };
        assert_eq!(to_half_open(Semantics::Inclusive, &lifetime), Ok((3, 4)));
        assert!(to_half_open(Semantics::Exclusive, &lifetime).unwrap_err().contains("end (3) must be greater"));
    }
}
