//! TFLite Micro's offline plan: model metadata named `OfflineMemoryAllocation` whose buffer holds
//! little-endian `i32`s: a format version (1), a subgraph index, the number `n` of offsets that
//! follow, then one offset per tensor, from the start of the arena's head section, or `-1` for a
//! tensor left to the runtime's own (online) planner. Layout from TFLite Micro's memory-management
//! notes; TFLite Micro takes the offsets as fixed and fits whatever is left (`-1` tensors,
//! kernels' scratch buffers) around them. What the notes leave out, found by running the
//! `tflite-micro` package: `n` must equal the tensors of *all* subgraphs together (one list, in
//! subgraph order; it refuses "6 offsets, 17 tensors" for a loop's three subgraphs), so memplan
//! writes subgraph index 0 and an offset for every tensor of the model.
//!
//! Writing: the model is not rebuilt. A new root `Model` table goes in front of the original
//! bytes, which follow unchanged (moved by a multiple of 64, so every alignment inside them
//! holds); it repeats every field of the original root, pointing at the original tables, except
//! `buffers` (the original buffers plus one holding the plan) and `metadata` (the original entries,
//! less any earlier `OfflineMemoryAllocation`, plus the new one). FlatBuffers offsets only point
//! forward, so everything new sits before the original bytes.

use super::ImportError;
use super::schema::Model;
use crate::import::flatbuffer::{self, Table};

pub(crate) const METADATA_NAME: &str = "OfflineMemoryAllocation";
pub(crate) const FORMAT_VERSION: i32 = 1;
/// The offset that leaves a tensor to the runtime's planner.
pub(crate) const ONLINE: i32 = -1;

/// The `Model` fields this writer knows, all 4 bytes wide: 0 version (a scalar), then offsets:
/// 1 operator_codes, 2 subgraphs, 3 description, 4 buffers, 5 metadata_buffer, 6 metadata,
/// 7 signature_defs, 8 and 9 the external buffer groups and buffers.
const MODEL_FIELDS: usize = 10;
const VERSION_FIELD: usize = 0;
const BUFFERS_FIELD: usize = 4;
const METADATA_FIELD: usize = 6;
/// The original bytes move by a multiple of this, more than any alignment the schema asks for
/// (16, for buffer data).
const SHIFT_ALIGNMENT: usize = 64;

/// An offline plan as read from a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfflinePlan {
    pub version: i32,
    pub subgraph: i32,
    /// One per tensor of the model, subgraph after subgraph; -1 for tensors left to the
    /// runtime.
    pub offsets: Vec<i32>,
}

/// The model's `OfflineMemoryAllocation` plan, if it has one (the first entry, as TFLite Micro
/// reads it).
pub(crate) fn read(bytes: &[u8], model: &Model) -> Result<Option<OfflinePlan>, ImportError> {
    let Some(entry) = model.metadata.iter().find(|m| m.name == METADATA_NAME) else { return Ok(None) };
    let malformed = |what: String| {
        ImportError::Malformed(crate::import::ModelKind::Tflite, format!("{METADATA_NAME} metadata: {what}"))
    };
    let data = model
        .buffer_data(bytes, entry.buffer as usize)
        .ok_or_else(|| malformed(format!("buffer {} holds no data in the file", entry.buffer)))?;
    if data.len() < 12 || data.len() % 4 != 0 {
        return Err(malformed(format!("{} bytes; expected 12 or more, a multiple of 4", data.len())));
    }
    let words: Vec<i32> = data.chunks_exact(4).map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
    let count = words[2];
    if usize::try_from(count).ok() != Some(words.len() - 3) {
        return Err(malformed(format!("it says {count} offsets follow, but {} do", words.len() - 3)));
    }
    Ok(Some(OfflinePlan { version: words[0], subgraph: words[1], offsets: words[3..].to_vec() }))
}

/// A position in the output to fill with an offset to `target` once the layout is known.
enum Target {
    /// A position in the new part.
    New(usize),
    /// A position in the original bytes.
    Original(usize),
}

/// The new part in front of the original bytes: data plus the offsets still to resolve.
#[derive(Default)]
struct Front {
    bytes: Vec<u8>,
    fixups: Vec<(usize, Target)>,
}

impl Front {
    fn pad_to(&mut self, alignment: usize) {
        while !self.bytes.len().is_multiple_of(alignment) {
            self.bytes.push(0);
        }
    }

    fn u16(&mut self, value: u16) {
        self.bytes.extend(value.to_le_bytes());
    }

    fn u32(&mut self, value: u32) {
        self.bytes.extend(value.to_le_bytes());
    }

    /// An offset to fill in later.
    fn offset(&mut self, target: Target) {
        self.fixups.push((self.bytes.len(), target));
        self.u32(0);
    }

    /// A vtable followed by its table's start (the `i32` back to the vtable); returns the
    /// table's position. `fields` = each field's position inside the table, 0 when absent.
    fn table_start(&mut self, fields: &[u16], table_len: u16) -> usize {
        self.pad_to(4);
        let vtable = self.bytes.len();
        self.u16(4 + 2 * fields.len() as u16);
        self.u16(table_len);
        for &field in fields {
            self.u16(field);
        }
        self.pad_to(4);
        let table = self.bytes.len();
        self.bytes.extend(((table - vtable) as i32).to_le_bytes());
        table
    }
}

/// The model with `offsets` (one per tensor of the model, subgraph after subgraph) as its
/// `OfflineMemoryAllocation` metadata; see the module documentation for how the bytes are laid out.
pub(crate) fn write(bytes: &[u8], model: &Model, offsets: &[i32]) -> Result<Vec<u8>, ImportError> {
    let malformed = |what: String| ImportError::Malformed(crate::import::ModelKind::Tflite, what);
    let tensors: usize = model.subgraphs.iter().map(|s| s.tensors.len()).sum();
    if offsets.len() != tensors {
        return Err(ImportError::Request(format!(
            "{} offsets for a model of {tensors} tensors (all subgraphs together)",
            offsets.len()
        )));
    }
    if let Some(index) = model.buffers.iter().position(|b| b.offset > 1) {
        return Err(ImportError::Unsupported(format!(
            "buffer {index} keeps its data after the FlatBuffer (a model over 2 GB); moving the model's bytes \
             would break its offset, so the plan cannot be written into this file"
        )));
    }
    let budget = flatbuffer::Budget::for_file(bytes);
    let root = flatbuffer::root(bytes, &budget).map_err(malformed)?;
    if (MODEL_FIELDS..root.field_slots()).any(|id| root.field(id, 1).ok().flatten().is_some()) {
        return Err(ImportError::Unsupported(
            "the model table has fields newer than this writer knows; it cannot copy them faithfully".into(),
        ));
    }
    let field_target = |id: usize| -> Result<Option<usize>, ImportError> {
        match root.field(id, 4).map_err(malformed)? {
            Some(at) => {
                let relative = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes checked by field"));
                Ok(Some(at + relative as usize))
            }
            None => Ok(None),
        }
    };
    let positions = |tables: Vec<Table>| tables.iter().map(Table::position).collect::<Vec<_>>();
    let old_buffers = positions(root.tables(BUFFERS_FIELD).map_err(malformed)?);
    let old_metadata: Vec<usize> = {
        let tables = root.tables(METADATA_FIELD).map_err(malformed)?;
        // Keep every entry but an earlier offline plan, which the new one replaces.
        tables
            .iter()
            .zip(&model.metadata)
            .filter(|(_, entry)| entry.name != METADATA_NAME)
            .map(|(table, _)| table.position())
            .collect()
    };
    let version = root.u32(VERSION_FIELD, 0).map_err(malformed)?;

    let mut front = Front::default();
    front.offset(Target::New(0)); // the root offset, fixed below
    front.bytes.extend(b"TFL3");
    let fields: Vec<u16> = (0..MODEL_FIELDS as u16).map(|id| 4 + 4 * id).collect();
    let model_table = front.table_start(&fields, 4 + 4 * MODEL_FIELDS as u16);
    front.fixups[0].1 = Target::New(model_table);
    // Field slots in order; the vectors they point to come right after the table.
    let mut slots = Vec::new();
    for id in 0..MODEL_FIELDS {
        slots.push(front.bytes.len());
        front.u32(if id == VERSION_FIELD { version } else { 0 });
    }
    // Buffer 0 is the empty one that tensors without data point at; a model without buffers gets
    // it first, or the plan's buffer would become index 0, the data of every such tensor (found
    // by the fuzz target).
    let sentinel = old_buffers.is_empty();
    let plan_buffer = old_buffers.len() + usize::from(sentinel);
    let buffers_vector = front.bytes.len();
    front.u32(plan_buffer as u32 + 1);
    for &table in &old_buffers {
        front.offset(Target::Original(table));
    }
    let sentinel_slot = front.bytes.len();
    if sentinel {
        front.u32(0);
    }
    let new_buffer_slot = front.bytes.len();
    front.u32(0);
    let metadata_vector = front.bytes.len();
    front.u32(old_metadata.len() as u32 + 1);
    for &table in &old_metadata {
        front.offset(Target::Original(table));
    }
    let new_metadata_slot = front.bytes.len();
    front.u32(0);
    let sentinel_table = sentinel.then(|| front.table_start(&[], 4));
    // The new Buffer: one field, data.
    let buffer_table = front.table_start(&[4], 8);
    let data_slot = front.bytes.len();
    front.u32(0);
    // The new Metadata: name, then the buffer's index.
    let metadata_table = front.table_start(&[4, 8], 12);
    let name_slot = front.bytes.len();
    front.u32(0);
    front.u32(plan_buffer as u32);
    let name = front.bytes.len();
    front.u32(METADATA_NAME.len() as u32);
    front.bytes.extend(METADATA_NAME.as_bytes());
    front.bytes.push(0);
    front.pad_to(4);
    // The plan's words, their first byte 16-aligned like the schema's buffer data.
    while (front.bytes.len() + 4) % 16 != 0 {
        front.bytes.push(0);
    }
    let data = front.bytes.len();
    let words = [FORMAT_VERSION, 0, offsets.len() as i32];
    front.u32((4 * (words.len() + offsets.len())) as u32);
    for word in words.iter().chain(offsets) {
        front.bytes.extend(word.to_le_bytes());
    }
    front.pad_to(SHIFT_ALIGNMENT);
    let shift = front.bytes.len();

    // Point the fields: the original ones at the moved originals, the two replaced ones here.
    for (id, &slot) in slots.iter().enumerate() {
        let target = match id {
            BUFFERS_FIELD => Some(Target::New(buffers_vector)),
            METADATA_FIELD => Some(Target::New(metadata_vector)),
            VERSION_FIELD => None,
            _ => field_target(id)?.map(Target::Original),
        };
        if let Some(target) = target {
            front.fixups.push((slot, target));
        }
    }
    front.fixups.push((new_buffer_slot, Target::New(buffer_table)));
    if let Some(table) = sentinel_table {
        front.fixups.push((sentinel_slot, Target::New(table)));
    }
    front.fixups.push((new_metadata_slot, Target::New(metadata_table)));
    front.fixups.push((data_slot, Target::New(data)));
    front.fixups.push((name_slot, Target::New(name)));
    let mut out = front.bytes;
    for (at, target) in front.fixups {
        let target = match target {
            Target::New(position) => position,
            Target::Original(position) => position + shift,
        };
        let relative = u32::try_from(target - at)
            .map_err(|_| ImportError::Unsupported("the model is too large to rewrite (past 4 GB)".into()))?;
        out[at..at + 4].copy_from_slice(&relative.to_le_bytes());
    }
    // A slot of a field the original lacks stays 0; mark it absent in the vtable instead.
    for (id, &slot) in slots.iter().enumerate() {
        if id != VERSION_FIELD && out[slot..slot + 4] == [0, 0, 0, 0] {
            let vtable_entry = 8 + 4 + 2 * id;
            out[vtable_entry..vtable_entry + 2].copy_from_slice(&0u16.to_le_bytes());
        }
    }
    out.extend_from_slice(bytes);
    Ok(out)
}
