use std::collections::HashMap;

use super::{Buffer, InputError, InputErrors, Semantics};
use crate::metrics;

/// A validated instance: buffers plus an optional capacity. Construction checks every buffer, so
/// solvers may rely on: size > 0, start < end, alignment >= 1, unique ids, pinned offsets aligned,
/// no offset + size beyond u64, and a max load that fits in u64.
///
/// Any capacity is a question with an answer, 0 included: as every buffer has a size, only an
/// empty instance fits in 0 bytes, and a solver proves a non-empty one infeasible there (by its
/// max load) like any capacity below the max load. Input files, `--capacity` and the page all
/// accept it, so that they give one answer.
#[derive(Clone, Debug)]
pub struct Problem {
    buffers: Vec<Buffer>,
    capacity: Option<u64>,
    /// What the times meant in the input; the buffers themselves are always `[start, end)`.
    semantics: Semantics,
    max_load: u64,
}

impl Problem {
    /// Checks the buffers and returns every violation, each with the buffer's line when known.
    pub fn new(buffers: Vec<Buffer>, capacity: Option<u64>) -> Result<Problem, InputErrors> {
        let mut errors = Vec::new();
        let located = |buffer: &Buffer, message: String| match buffer.line {
            Some(line) => InputError::at_line(line, message),
            None => InputError::new(message),
        };
        let mut first_line_of: HashMap<&str, Option<usize>> = HashMap::with_capacity(buffers.len());
        for buffer in &buffers {
            if buffer.size == 0 {
                errors.push(located(buffer, format!("buffer {}: size must be greater than 0", buffer.id)));
            }
            if buffer.end <= buffer.start {
                errors.push(located(
                    buffer,
                    format!("buffer {}: end ({}) must be greater than start ({})", buffer.id, buffer.end, buffer.start),
                ));
            }
            if buffer.alignment == 0 {
                errors.push(located(buffer, format!("buffer {}: alignment must be at least 1", buffer.id)));
            }
            if let Some(offset) = buffer.pinned {
                if buffer.alignment > 0 && offset % buffer.alignment != 0 {
                    errors.push(located(
                        buffer,
                        format!(
                            "buffer {}: pinned offset {offset} is not a multiple of its alignment {}",
                            buffer.id, buffer.alignment
                        ),
                    ));
                }
                if offset.checked_add(buffer.size).is_none() {
                    errors.push(located(
                        buffer,
                        format!("buffer {}: pinned offset {offset} + size {} overflows u64", buffer.id, buffer.size),
                    ));
                }
            }
            match first_line_of.get(buffer.id.as_str()) {
                Some(first) => {
                    let previous = first.map(|l| format!(" (first seen on line {l})")).unwrap_or_default();
                    errors.push(located(buffer, format!("duplicate buffer id {}{previous}", buffer.id)));
                }
                None => {
                    first_line_of.insert(&buffer.id, buffer.line);
                }
            }
        }
        if !errors.is_empty() {
            return Err(InputErrors::new(errors));
        }
        let max_load = metrics::max_load_wide(&buffers);
        let max_load = u64::try_from(max_load).map_err(|_| {
            InputErrors::single(InputError::new(format!(
                "the total size of buffers alive at once ({max_load}) does not fit in 64 bits"
            )))
        })?;
        Ok(Problem { buffers, capacity, semantics: Semantics::HalfOpen, max_load })
    }

    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }

    pub fn capacity(&self) -> Option<u64> {
        self.capacity
    }

    pub fn set_capacity(&mut self, capacity: Option<u64>) {
        self.capacity = capacity;
    }

    pub fn semantics(&self) -> Semantics {
        self.semantics
    }

    /// Records what the input's times meant, so that writers can give them back the same way.
    pub fn set_semantics(&mut self, semantics: Semantics) {
        self.semantics = semantics;
    }

    /// The most bytes alive at once (L): no plan can have a smaller makespan.
    pub fn max_load(&self) -> u64 {
        self.max_load
    }

    /// A lower bound on the makespan of every valid plan: L, and the top of each pinned buffer.
    pub fn lower_bound(&self) -> u64 {
        let pinned_top = self
            .buffers
            .iter()
            .filter_map(|b| b.pinned.map(|offset| offset + b.size)) // no overflow: checked in new()
            .max()
            .unwrap_or(0);
        self.max_load.max(pinned_top)
    }

    pub fn has_pinned(&self) -> bool {
        self.buffers.iter().any(|b| b.pinned.is_some())
    }

    pub fn has_alignment(&self) -> bool {
        self.buffers.iter().any(|b| b.alignment > 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_every_violation_with_its_line() {
        let mut buffers = vec![
            Buffer::new("a", 0, 4, 0),
            Buffer::new("b", 9, 4, 8),
            Buffer::new("a", 0, 1, 8).with_alignment(0),
            Buffer::new("d", 0, 1, 8).with_alignment(4).pinned_at(6),
        ];
        for (i, b) in buffers.iter_mut().enumerate() {
            b.line = Some(i + 2);
        }
        let errors = Problem::new(buffers, None).unwrap_err().errors;
        let lines: Vec<_> = errors.iter().map(|e| e.line.unwrap()).collect();
        assert_eq!(lines, vec![2, 3, 4, 4, 5], "{errors:?}");
        assert!(errors[1].message.contains("end (4) must be greater than start (9)"));
        assert!(errors[3].message.contains("duplicate buffer id a (first seen on line 2)"));
        assert!(errors[4].message.contains("not a multiple of its alignment 4"));
    }

    #[test]
    fn pinned_offset_overflow_is_an_error() {
        let buffers = vec![Buffer::new("a", 0, 4, 16).pinned_at(u64::MAX - 7)];
        let errors = Problem::new(buffers, None).unwrap_err();
        assert!(errors.to_string().contains("overflows u64"), "{errors}");
    }

    #[test]
    fn max_load_beyond_u64_is_an_error() {
        let buffers = vec![Buffer::new("a", 0, 4, u64::MAX), Buffer::new("b", 1, 2, 2)];
        assert!(Problem::new(buffers, None).is_err());
    }

    #[test]
    fn capacity_zero_is_a_question_only_an_empty_instance_fits() {
        let empty = Problem::new(Vec::new(), Some(0)).unwrap();
        assert_eq!((empty.capacity(), empty.lower_bound()), (Some(0), 0));
        let one = Problem::new(vec![Buffer::new("a", 0, 1, 1)], Some(0)).unwrap();
        assert!(one.lower_bound() > one.capacity().unwrap());
    }

    #[test]
    fn lower_bound_includes_pinned_tops() {
        let buffers = vec![Buffer::new("a", 0, 4, 16), Buffer::new("b", 5, 6, 8).pinned_at(32)];
        let problem = Problem::new(buffers, None).unwrap();
        assert_eq!(problem.max_load(), 16);
        assert_eq!(problem.lower_bound(), 40);
    }
}
