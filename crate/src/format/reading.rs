//! What the CSV and JSON readers share: integers written as text, lifetimes converted to
//! `[start, end)` with messages in the file's own field names, and assembling the checked problem.

use super::Offsets;
use crate::metrics;
use crate::model::{Buffer, InputError, InputErrors, Problem, Semantics};

/// Parses a plain decimal `u64` (blanks around it allowed). The error says which way the text is
/// wrong, because "negative" and "too large" need different fixes from "not a number".
pub(super) fn parse_integer(text: &str) -> Result<u64, String> {
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

/// Builds the problem from the rows that were read, or returns every error: the readers' own
/// (`errors`) together with [`Problem::new`]'s, sorted by position. Also returns the plan when
/// reading one.
pub(super) fn assemble(
    rows: Vec<Row>,
    mut errors: Vec<InputError>,
    capacity: Option<u64>,
    semantics: Semantics,
    offsets: Offsets,
) -> Result<(Problem, Option<Vec<u64>>), InputErrors> {
    let mut buffers = Vec::with_capacity(rows.len());
    let mut written = Vec::with_capacity(rows.len());
    let mut planned = Vec::with_capacity(rows.len());
    for row in rows {
        // A plan's offsets stay out of the problem (only pinned ones go in, and Problem::new
        // checks those), so their overflow is caught here, where the line is known.
        if let Some(offset) = row.planned
            && offset.checked_add(row.buffer.size).is_none()
        {
            let message = format!("buffer {}: offset {offset} + size {} overflows u64", row.buffer.id, row.buffer.size);
            errors.push(match row.buffer.line {
                Some(line) => InputError::at_line(line, message),
                None => InputError::new(message),
            });
        }
        buffers.push(row.buffer);
        written.push(row.written);
        planned.push(row.planned);
    }
    if errors.is_empty() {
        check_max_load(semantics, &written, &buffers).map_err(InputErrors::single)?;
    }
    match Problem::new(buffers, capacity) {
        Ok(mut problem) if errors.is_empty() => {
            problem.set_semantics(semantics);
            // The readers give every row a planned offset in plan mode, so this collects them all.
            let plan = match offsets {
                Offsets::Plan => planned.into_iter().collect::<Option<Vec<u64>>>(),
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
    let converted = metrics::max_load_wide(buffers);
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
