//! A bounds-checked reader of the FlatBuffers binary layout: tables found through their vtables,
//! vectors, strings and little-endian scalars, which is all the TFLite and ExecuTorch schemas need. Every read
//! checks its bytes against the file first, so that a truncated or hostile file gives a message
//! (with the byte position) instead of a panic; sizes are checked before anything is allocated.
//!
//! The layout, from the FlatBuffers documentation: the file starts with the `u32` offset of the
//! root table; a table starts with an `i32` that, subtracted from the table's position, gives its
//! vtable; a vtable is `u16` vtable length, `u16` table length, then one `u16` per field (0 =
//! absent) giving the field's position inside the table; offsets to tables, vectors and strings
//! are `u32`s relative to where they are stored; a vector is a `u32` count then its elements.

/// A read that failed, said in words (the caller adds which table and field it was reading).
pub(crate) type Read<T> = Result<T, String>;

/// How many vector elements a reading may still visit. FlatBuffers lets many offsets point at one
/// table, so a small hostile file could make a reader visit the same large vector again and again
/// (16,000 subgraphs that are all one subgraph of 16,000 tensors); a file whose parts are not
/// shared holds every element it has, so twice its length (plus a little) is never reached by one.
#[derive(Debug)]
pub(crate) struct Budget(std::cell::Cell<usize>);

impl Budget {
    pub(crate) fn for_file(bytes: &[u8]) -> Budget {
        Budget(std::cell::Cell::new(bytes.len().saturating_mul(2).saturating_add(1024)))
    }

    fn charge(&self, elements: usize, at: usize) -> Read<()> {
        let left = self.0.get();
        if elements > left {
            return Err(format!(
                "the vector at byte {at} would make the reading visit more elements than the file holds \
                 (its tables point at the same data over and over)"
            ));
        }
        self.0.set(left - elements);
        Ok(())
    }
}

fn slice(bytes: &[u8], at: usize, len: usize) -> Read<&[u8]> {
    at.checked_add(len).and_then(|end| bytes.get(at..end)).ok_or_else(|| {
        format!("the file ends at byte {} but a value at byte {at} needs {len} bytes (a truncated file?)", bytes.len())
    })
}

fn u16_at(bytes: &[u8], at: usize) -> Read<u16> {
    let raw = slice(bytes, at, 2)?;
    Ok(u16::from_le_bytes([raw[0], raw[1]]))
}

fn u32_at(bytes: &[u8], at: usize) -> Read<u32> {
    let raw = slice(bytes, at, 4)?;
    Ok(u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]))
}

fn u64_at(bytes: &[u8], at: usize) -> Read<u64> {
    let raw = slice(bytes, at, 8)?;
    let mut word = [0u8; 8];
    word.copy_from_slice(raw);
    Ok(u64::from_le_bytes(word))
}

/// Follows the `u32` offset stored at `at` (relative to `at`).
fn follow(bytes: &[u8], at: usize) -> Read<usize> {
    let relative = u32_at(bytes, at)? as usize;
    let target = at.checked_add(relative).filter(|&t| t < bytes.len());
    target.ok_or_else(|| format!("the offset at byte {at} points past the end of the file ({} bytes)", bytes.len()))
}

/// The root table of a FlatBuffer; every vector read through it is charged to `budget`.
pub(crate) fn root<'a>(bytes: &'a [u8], budget: &'a Budget) -> Read<Table<'a>> {
    if bytes.len() < 8 {
        return Err(format!(
            "{} bytes is too short for a FlatBuffer (at least 8: root offset and identifier)",
            bytes.len()
        ));
    }
    Table::at(bytes, budget, follow(bytes, 0)?)
}

/// The 4-byte file identifier after the root offset (`TFL3` for TFLite, `ET12` for an ExecuTorch
/// program), when the file has 8 bytes.
pub(crate) fn identifier(bytes: &[u8]) -> Option<&[u8]> {
    bytes.get(4..8)
}

/// A table: its position and its vtable, both checked to lie inside the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Table<'a> {
    bytes: &'a [u8],
    budget: &'a Budget,
    at: usize,
    vtable: usize,
    vtable_len: usize,
    table_len: usize,
}

impl<'a> Table<'a> {
    fn at(bytes: &'a [u8], budget: &'a Budget, at: usize) -> Read<Table<'a>> {
        let raw = slice(bytes, at, 4)?;
        let back = i32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
        let vtable = usize::try_from(at as i64 - i64::from(back))
            .ok()
            .filter(|&v| v < bytes.len())
            .ok_or_else(|| format!("the table at byte {at} has its vtable outside the file"))?;
        let vtable_len = usize::from(u16_at(bytes, vtable)?);
        let table_len = usize::from(u16_at(bytes, vtable + 2)?);
        if vtable_len < 4 || vtable_len % 2 != 0 {
            return Err(format!("the vtable at byte {vtable} has a bad length {vtable_len}"));
        }
        slice(bytes, vtable, vtable_len)?;
        if table_len < 4 {
            return Err(format!("the table at byte {at} has a bad length {table_len}"));
        }
        slice(bytes, at, table_len)?;
        Ok(Table { bytes, budget, at, vtable, vtable_len, table_len })
    }

    /// Where the table starts in the file.
    pub(crate) fn position(&self) -> usize {
        self.at
    }

    /// The number of field slots its vtable has (fields past it are absent).
    pub(crate) fn field_slots(&self) -> usize {
        (self.vtable_len - 4) / 2
    }

    /// The position of field `id` in the file, `None` when absent; `size` bytes must fit in the table.
    pub(crate) fn field(&self, id: usize, size: usize) -> Read<Option<usize>> {
        let slot = 4 + 2 * id;
        if slot + 2 > self.vtable_len {
            return Ok(None);
        }
        let offset = usize::from(u16_at(self.bytes, self.vtable + slot)?);
        if offset == 0 {
            return Ok(None);
        }
        if offset + size > self.table_len {
            return Err(format!("field {id} of the table at byte {} lies outside the table", self.at));
        }
        Ok(Some(self.at + offset))
    }

    pub(crate) fn u8(&self, id: usize, default: u8) -> Read<u8> {
        Ok(match self.field(id, 1)? {
            Some(at) => slice(self.bytes, at, 1)?[0],
            None => default,
        })
    }

    pub(crate) fn i8(&self, id: usize, default: i8) -> Read<i8> {
        Ok(self.u8(id, default as u8)? as i8)
    }

    pub(crate) fn bool(&self, id: usize) -> Read<bool> {
        Ok(self.u8(id, 0)? != 0)
    }

    pub(crate) fn u32(&self, id: usize, default: u32) -> Read<u32> {
        match self.field(id, 4)? {
            Some(at) => u32_at(self.bytes, at),
            None => Ok(default),
        }
    }

    pub(crate) fn i32(&self, id: usize, default: i32) -> Read<i32> {
        Ok(self.u32(id, default as u32)? as i32)
    }

    pub(crate) fn u64(&self, id: usize, default: u64) -> Read<u64> {
        match self.field(id, 8)? {
            Some(at) => u64_at(self.bytes, at),
            None => Ok(default),
        }
    }

    /// The table an offset field points to.
    pub(crate) fn table(&self, id: usize) -> Read<Option<Table<'a>>> {
        match self.field(id, 4)? {
            Some(at) => Table::at(self.bytes, self.budget, follow(self.bytes, at)?).map(Some),
            None => Ok(None),
        }
    }

    /// The vector an offset field points to, of elements `element_size` bytes wide.
    pub(crate) fn vector(&self, id: usize, element_size: usize) -> Read<Option<Vector<'a>>> {
        match self.field(id, 4)? {
            Some(at) => Vector::at(self.bytes, self.budget, follow(self.bytes, at)?, element_size).map(Some),
            None => Ok(None),
        }
    }

    /// A string field (invalid UTF-8 replaced, so that a name never stops the reading).
    pub(crate) fn string(&self, id: usize) -> Read<Option<String>> {
        Ok(self.vector(id, 1)?.map(|v| String::from_utf8_lossy(v.data()).into_owned()))
    }

    /// A vector of `i32`, empty when absent.
    pub(crate) fn i32s(&self, id: usize) -> Read<Vec<i32>> {
        Ok(self.vector(id, 4)?.map(|v| v.i32s()).unwrap_or_default())
    }

    /// A vector of tables, empty when absent.
    pub(crate) fn tables(&self, id: usize) -> Read<Vec<Table<'a>>> {
        match self.vector(id, 4)? {
            Some(vector) => (0..vector.len()).map(|i| vector.table(i)).collect(),
            None => Ok(Vec::new()),
        }
    }
}

/// A vector whose elements are known to lie inside the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vector<'a> {
    bytes: &'a [u8],
    budget: &'a Budget,
    /// The position of the first element (after the count).
    start: usize,
    len: usize,
    element_size: usize,
}

impl<'a> Vector<'a> {
    fn at(bytes: &'a [u8], budget: &'a Budget, at: usize, element_size: usize) -> Read<Vector<'a>> {
        let len = u32_at(bytes, at)? as usize;
        let start = at + 4;
        let size = len.checked_mul(element_size).ok_or_else(|| format!("the vector at byte {at} is too long"))?;
        slice(bytes, start, size)
            .map_err(|_| format!("the vector at byte {at} claims {len} elements, more than the file holds"))?;
        budget.charge(len, at)?;
        Ok(Vector { bytes, budget, start, len, element_size })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Where the elements start in the file.
    pub(crate) fn position(&self) -> usize {
        self.start
    }

    /// The elements' bytes (checked when the vector was found).
    pub(crate) fn data(&self) -> &'a [u8] {
        &self.bytes[self.start..self.start + self.len * self.element_size]
    }

    pub(crate) fn i32s(&self) -> Vec<i32> {
        self.data().chunks_exact(4).map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
    }

    pub(crate) fn i64s(&self) -> Vec<i64> {
        self.data()
            .chunks_exact(8)
            .map(|w| i64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
            .collect()
    }

    /// Element `index` of a vector of tables.
    pub(crate) fn table(&self, index: usize) -> Read<Table<'a>> {
        Table::at(self.bytes, self.budget, follow(self.bytes, self.start + 4 * index)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table with one u32 field (id 0) = 7 and one vector field (id 1) of two i32: root offset
    /// and identifier (0..8), vtable (8..16), table (16..28), vector (28..40).
    fn sample() -> Vec<u8> {
        let mut b = Vec::new();
        b.extend(16u32.to_le_bytes());
        b.extend(b"TEST");
        for half in [8u16, 12, 4, 8] {
            b.extend(half.to_le_bytes()); // vtable length, table length, field 0 at +4, field 1 at +8
        }
        b.extend(8i32.to_le_bytes()); // the table at 16 has its vtable 8 bytes back
        b.extend(7u32.to_le_bytes());
        b.extend(4u32.to_le_bytes()); // at 24: the vector is 4 bytes on, at 28
        b.extend(2u32.to_le_bytes());
        b.extend((-1i32).to_le_bytes());
        b.extend(5i32.to_le_bytes());
        b
    }

    #[test]
    fn reads_fields_through_the_vtable() {
        let bytes = sample();
        let budget = Budget::for_file(&bytes);
        let root = root(&bytes, &budget).unwrap();
        assert_eq!(root.u32(0, 0).unwrap(), 7);
        assert_eq!(root.i32s(1).unwrap(), [-1, 5]);
        assert_eq!(root.u32(5, 9).unwrap(), 9, "a field past the vtable has its default");
        assert_eq!(identifier(&bytes), Some(&b"TEST"[..]));
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let bytes = sample();
        for len in 0..bytes.len() {
            let cut = &bytes[..len];
            let budget = Budget::for_file(cut);
            let read = root(cut, &budget).and_then(|t| Ok((t.u32(0, 0)?, t.i32s(1)?)));
            assert!(read.is_err(), "{len} bytes read as {read:?}");
        }
    }

    #[test]
    fn a_vector_longer_than_the_file_is_refused_before_allocating() {
        let mut bytes = sample();
        bytes[28..32].copy_from_slice(&u32::MAX.to_le_bytes());
        let budget = Budget::for_file(&bytes);
        let error = root(&bytes, &budget).unwrap().i32s(1).unwrap_err();
        assert!(error.contains("more than the file holds"), "{error}");
    }

    #[test]
    fn reading_the_same_vector_over_and_over_runs_out_of_budget() {
        let bytes = sample();
        let budget = Budget::for_file(&bytes);
        let root = root(&bytes, &budget).unwrap();
        let visits = (0..1000).map(|_| root.i32s(1)).position(|read| read.is_err());
        // 40 bytes allow 2 * 40 + 1024 elements: 552 visits of two.
        assert_eq!(visits, Some(552));
    }
}
