//! A plan written back into an ExecuTorch program: every planned tensor of the instance gets its
//! buffer's new offset, and the memory's size becomes the plan's makespan.
//!
//! A FlatBuffer leaves out fields at their default, so a tensor at offset 0 may have no offset
//! field to overwrite. New `AllocationDetails` tables are therefore appended to the program's
//! FlatBuffer (offsets to tables point forward, and the end is after every tensor) and each
//! tensor's `allocation_info` is pointed at its new one; the old tables stay, unreferenced. The
//! program's extended header (`eh00`: the FlatBuffer's size, where the data segments start) is
//! updated, and the segments (constant data) follow at their old alignment, unchanged: their
//! offsets are relative to where they start.

use super::{ImportError, Imported, program};
use crate::model::load::makespan;

/// The extended header's magic, at byte 8 of the file.
const HEADER_MAGIC: &[u8; 4] = b"eh00";
/// Where the header's fields are: its length, the FlatBuffer's size, the segments' start.
const HEADER_LENGTH_AT: usize = 12;
const PROGRAM_SIZE_AT: usize = 16;
const SEGMENT_BASE_AT: usize = 24;
/// The largest alignment kept for the segments when they move (ExecuTorch pads them to 128 by
/// default; a file may ask for a page).
const MAX_SEGMENT_ALIGNMENT: u64 = 4096;

/// The program in `bytes` with `offsets` (one per buffer of `instance`, which was imported from
/// these bytes) as the tensors' places. The plan is checked against the instance first.
pub fn with_plan(bytes: &[u8], instance: &Imported, offsets: &[u64]) -> Result<Vec<u8>, ImportError> {
    if offsets.len() != instance.problem.len() {
        return Err(ImportError::Request(format!(
            "the plan has {} offsets for the program's {} buffers",
            offsets.len(),
            instance.problem.len()
        )));
    }
    crate::diff::check(&instance.problem, offsets)
        .map_err(|e| ImportError::Request(format!("the plan is not valid for the program: {e}")))?;
    let plan = program::read(bytes).map_err(|e| ImportError::Malformed(crate::import::ModelKind::Pte, e))?;
    let (program_size, segments) = layout(bytes)?;
    let mut out = bytes[..program_size].to_vec();
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
    // One vtable for every new table: 3 fields of 4 bytes after the 4-byte vtable offset.
    let vtable = out.len();
    for half in [10u16, 16, 4, 8, 12] {
        out.extend(half.to_le_bytes());
    }
    out.extend([0, 0]); // to a multiple of 4 again
    for (buffer, values) in instance.values.iter().enumerate() {
        let offset = offsets[buffer];
        for &v in values {
            let Some(program::Value::Tensor(program::Tensor { allocation: Some(allocation), .. })) = plan.values.get(v)
            else {
                return Err(ImportError::Request(format!("value {v} is not a planned tensor of this program")));
            };
            if allocation.field + 4 > program_size {
                return Err(ImportError::Malformed(
                    crate::import::ModelKind::Pte,
                    format!("value {v}'s allocation lies past the program's {program_size} bytes"),
                ));
            }
            let table = out.len();
            let back = i32::try_from(table - vtable).map_err(|_| too_large())?;
            out.extend(back.to_le_bytes());
            out.extend(instance.memory_id.to_le_bytes());
            out.extend((offset as u32).to_le_bytes());
            out.extend(((offset >> 32) as u32).to_le_bytes());
            let forward = u32::try_from(table - allocation.field).map_err(|_| too_large())?;
            out[allocation.field..allocation.field + 4].copy_from_slice(&forward.to_le_bytes());
        }
    }
    let size_at =
        plan.buffer_sizes_at.filter(|_| (instance.memory_id as usize) < plan.buffer_sizes.len()).ok_or_else(|| {
            ImportError::Malformed(crate::import::ModelKind::Pte, "the program lists no memory sizes".into())
        })? + 8 * instance.memory_id as usize;
    if size_at + 8 > program_size {
        return Err(ImportError::Malformed(
            crate::import::ModelKind::Pte,
            format!("the memory sizes lie past the program's {program_size} bytes"),
        ));
    }
    let arena = makespan(instance.problem.buffers(), offsets);
    let arena = i64::try_from(arena).map_err(|_| too_large())?;
    out[size_at..size_at + 8].copy_from_slice(&arena.to_le_bytes());
    if has_header(bytes) {
        let new_size = out.len() as u64;
        out[PROGRAM_SIZE_AT..PROGRAM_SIZE_AT + 8].copy_from_slice(&new_size.to_le_bytes());
        if let Some((base, data)) = segments {
            let alignment = segment_alignment(base);
            let new_base = new_size.div_ceil(alignment) * alignment;
            out.resize(new_base as usize, 0);
            out[SEGMENT_BASE_AT..SEGMENT_BASE_AT + 8].copy_from_slice(&new_base.to_le_bytes());
            out.extend_from_slice(data);
        }
    }
    Ok(out)
}

fn too_large() -> ImportError {
    ImportError::Unsupported("the program would pass 4 GiB, which FlatBuffers cannot address".into())
}

fn has_header(bytes: &[u8]) -> bool {
    bytes.get(8..12) == Some(HEADER_MAGIC.as_slice())
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// Where a program's data segments start in the file, and their bytes.
type Segments<'a> = (u64, &'a [u8]);

/// The FlatBuffer's size, and the segments when the file has any.
fn layout(bytes: &[u8]) -> Result<(usize, Option<Segments<'_>>), ImportError> {
    if !has_header(bytes) {
        return Ok((bytes.len(), None));
    }
    let malformed =
        |what: &str| ImportError::Malformed(crate::import::ModelKind::Pte, format!("the extended header: {what}"));
    let length = bytes.get(HEADER_LENGTH_AT..HEADER_LENGTH_AT + 4).ok_or_else(|| malformed("truncated"))?;
    if u32::from_le_bytes(length.try_into().expect("4 bytes")) < 24 {
        return Err(malformed("shorter than its fields"));
    }
    let program_size = u64_at(bytes, PROGRAM_SIZE_AT).ok_or_else(|| malformed("truncated"))?;
    let base = u64_at(bytes, SEGMENT_BASE_AT).ok_or_else(|| malformed("truncated"))?;
    let program_size = usize::try_from(program_size)
        .ok()
        .filter(|&size| size <= bytes.len())
        .ok_or_else(|| malformed("the program is larger than the file"))?;
    if base == 0 {
        return Ok((program_size, None));
    }
    let data = usize::try_from(base)
        .ok()
        .filter(|&base| base >= program_size && base <= bytes.len())
        .map(|base| &bytes[base..])
        .ok_or_else(|| malformed("the segments start outside the file"))?;
    Ok((program_size, Some((base, data))))
}

/// The alignment the segments' start had: the largest power of two dividing it, at most
/// [`MAX_SEGMENT_ALIGNMENT`].
fn segment_alignment(base: u64) -> u64 {
    (1u64 << base.trailing_zeros().min(63)).min(MAX_SEGMENT_ALIGNMENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_keep_their_alignment() {
        assert_eq!(segment_alignment(2816), 256);
        assert_eq!(segment_alignment(1 << 20), MAX_SEGMENT_ALIGNMENT);
        assert_eq!(segment_alignment(48), 16);
    }
}
