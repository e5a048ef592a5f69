//! MiniMalloc CSV: a header naming the columns, then one buffer per line. Columns are found by
//! name in any order, so files from MiniMalloc, idealloc and hand-written ones all read; the
//! [`CsvLayout`] remembers the header so that output keeps the user's columns (MiniMalloc's output
//! is its input plus `offset`).

mod records;

use std::collections::HashMap;

use self::records::{Cell, Record, Records};
use super::reading::{self, Row, Rows, WrittenLifetime};
use super::{Document, Format, Note, Offsets, ReadOptions};
use crate::model::{Buffer, BufferId, Category, Details, InputError, InputErrors, Problem, Semantics};

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Role {
    Id,
    Lower,
    /// The half-open end `upper`.
    Upper,
    /// MiniMalloc's legacy `end` column: an inclusive end, whatever semantics was asked for.
    InclusiveEnd,
    Size,
    Alignment,
    Offset,
    Hint,
    /// A name for the buffer (a tensor's name), carried through.
    Name,
    /// What the buffer holds (input, output, ...), carried through.
    Category,
    /// MiniMalloc's gaps: `lo-hi` and `lo-hi@lower:upper` items split on blanks.
    Gaps,
    /// A column memplan does not know: read past with a note, and not written back.
    Ignored,
}

/// Listed in the error for an unknown column, so that the fix is in the message.
const ACCEPTED_COLUMNS: &str = "id (or buffer, buffer_id), lower (or start, begin), upper (or the legacy inclusive \
                                end), size, alignment, offset, hint, name, category, gaps";

impl Role {
    fn from_header(name: &str) -> Option<Role> {
        Some(match name.to_ascii_lowercase().as_str() {
            "id" | "buffer" | "buffer_id" => Role::Id,
            "lower" | "start" | "begin" => Role::Lower,
            "upper" => Role::Upper,
            "end" => Role::InclusiveEnd,
            "size" => Role::Size,
            "alignment" => Role::Alignment,
            "offset" => Role::Offset,
            "hint" => Role::Hint,
            "name" => Role::Name,
            "category" => Role::Category,
            "gaps" => Role::Gaps,
            _ => return None,
        })
    }

    /// The name memplan writes when it makes up a header, and uses in "missing column" errors.
    fn name(self) -> &'static str {
        match self {
            Role::Id => "id",
            Role::Lower => "lower",
            Role::Upper => "upper",
            Role::InclusiveEnd => "end",
            Role::Size => "size",
            Role::Alignment => "alignment",
            Role::Offset => "offset",
            Role::Hint => "hint",
            Role::Name => "name",
            Role::Category => "category",
            Role::Gaps => "gaps",
            Role::Ignored => "",
        }
    }

    /// Upper and the legacy end both give the end of the lifetime: a file may have only one.
    fn meaning(self) -> Role {
        if self == Role::InclusiveEnd { Role::Upper } else { self }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Column {
    /// The header cell as written (trimmed), so that output repeats it.
    header: String,
    role: Role,
}

/// The columns of a CSV input in their order, with their original header names, so that writing a
/// plan gives back the user's file plus offsets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CsvLayout {
    columns: Vec<Column>,
    /// What was added to every time so that the earliest is 0 (MiniMalloc's times are signed);
    /// the writer takes it off again.
    time_shift: u64,
}

impl CsvLayout {
    /// The header names in input order, as written.
    pub fn headers(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|c| c.header.as_str())
    }

    /// True when the input used MiniMalloc's legacy inclusive `end` column.
    pub fn has_inclusive_end(&self) -> bool {
        self.position(Role::InclusiveEnd).is_some()
    }

    fn position(&self, role: Role) -> Option<usize> {
        self.columns.iter().position(|c| c.role == role)
    }

    /// The columns memplan writes when the problem did not come from a CSV file: `id,lower,upper,
    /// size`, then `alignment`, `hint`, `gaps`, `name` and `category` only when some buffer has one.
    fn for_problem(problem: &Problem) -> CsvLayout {
        let mut roles = vec![Role::Id, Role::Lower, Role::Upper, Role::Size];
        if problem.has_alignment() {
            roles.push(Role::Alignment);
        }
        if problem.buffers().iter().any(|b| b.hint.is_some()) {
            roles.push(Role::Hint);
        }
        if problem.has_gaps() {
            roles.push(Role::Gaps);
        }
        if problem.buffers().iter().any(|b| b.name.is_some()) {
            roles.push(Role::Name);
        }
        if problem.buffers().iter().any(|b| b.category.is_some()) {
            roles.push(Role::Category);
        }
        let columns = roles.into_iter().map(|role| Column { header: role.name().to_string(), role }).collect();
        CsvLayout { columns, time_shift: 0 }
    }
}

/// Where each column is, once the header has been checked: the required ones always exist.
struct Indices {
    id: usize,
    lower: usize,
    /// `upper` or the legacy `end`.
    end: usize,
    size: usize,
    alignment: Option<usize>,
    offset: Option<usize>,
    hint: Option<usize>,
    name: Option<usize>,
    category: Option<usize>,
    gaps: Option<usize>,
}

/// Reads MiniMalloc CSV. Every error in the file is reported, each with its line and column; a
/// broken header stops the reading there, since the rows cannot be understood without it.
pub(super) fn read(text: &str, options: &ReadOptions) -> Result<Document, InputErrors> {
    let mut records = Records::new(text);
    let mut errors = Vec::new();
    let mut header = Record { line: 0, cells: Vec::new() };
    let header_line = loop {
        match records.next_into(&mut header.cells) {
            Some(Ok(line)) => break Some(line),
            Some(Err(error)) => errors.push(error),
            None => break None,
        }
    };
    let Some(header_line) = header_line else {
        if errors.is_empty() {
            errors.push(InputError::at_line(1, "empty input: there is no header line and no buffers"));
        }
        return Err(InputErrors::new(errors));
    };
    header.line = header_line;
    let mut notes = Vec::new();
    let (mut layout, indices) = match read_header(&header, options, &mut notes) {
        Ok(read) => read,
        Err(header_errors) => {
            // The rows cannot be read without the header, but the records that cannot even be
            // split are said too.
            let mut cells = Vec::new();
            while let Some(next) = records.next_into(&mut cells) {
                errors.extend(next.err());
            }
            errors.extend(header_errors);
            return Err(reading::sorted(errors));
        }
    };
    // The legacy `end` column is inclusive by definition (read_header rejects a conflicting request).
    let semantics = if layout.has_inclusive_end() { Semantics::Inclusive } else { options.semantics };
    // MiniMalloc reads times as signed: a file whose earliest start is negative is shifted so
    // that it is 0, which keeps every lifetime's length and every overlap, and shifted back on
    // output. Rows are read as they come, unshifted; the rare file with a negative start is read
    // again with its shift.
    let (mut rows, earliest) =
        read_rows(records.clone(), &layout, &indices, semantics, options.offsets, errors.clone());
    if earliest < 0 {
        drop(rows);
        layout.time_shift = u64::try_from(-earliest).unwrap_or(u64::MAX);
        notes.push(Note {
            line: None,
            column: None,
            message: format!(
                "the earliest start is {earliest}: every time is read {} later so that it is 0, and written back \
                 as it was",
                layout.time_shift
            ),
        });
        rows = read_rows(records, &layout, &indices, semantics, options.offsets, errors).0;
    }
    let (problem, plan) = reading::assemble(rows, None, semantics)?;
    Ok(Document { problem, plan, format: Format::Csv, csv_layout: Some(layout), notes })
}

/// Reads the rows after the header, each as it is split, with `layout`'s time shift; `errors` are
/// those found before them. Also returns the earliest start written (0 when none is negative; a
/// cell that is not a number is skipped there, and its row's reading reports it).
fn read_rows<'t>(
    mut records: Records<'t>,
    layout: &CsvLayout,
    indices: &Indices,
    semantics: Semantics,
    offsets: Offsets,
    errors: Vec<InputError>,
) -> (Rows, i128) {
    let mut rows = Rows::new(semantics, offsets);
    rows.errors = errors;
    let mut earliest: i128 = 0;
    let mut record = Record { line: 0, cells: Vec::new() };
    while let Some(next) = records.next_into(&mut record.cells) {
        record.line = match next {
            Ok(line) => line,
            Err(error) => {
                rows.errors.push(error);
                continue;
            }
        };
        if let Some(cell) = record.cells.get(indices.lower)
            && cell.text.trim_start().starts_with('-')
            && let Some(time) = reading::signed_time(&cell.text)
        {
            earliest = earliest.min(time);
        }
        match read_row(&record, layout, indices, semantics, offsets) {
            Ok(row) => rows.push(row),
            Err(row_errors) => rows.errors.extend(row_errors),
        }
    }
    (rows, earliest)
}

fn read_header(
    header: &Record,
    options: &ReadOptions,
    notes: &mut Vec<Note>,
) -> Result<(CsvLayout, Indices), Vec<InputError>> {
    let mut errors = Vec::new();
    let mut columns = Vec::new();
    // By meaning, so that `lower` and `start`, or `upper` and `end`, count as the same column:
    // the first column seen with each meaning, as (column number, header, role).
    let mut first_with_meaning: HashMap<Role, (usize, &str, Role)> = HashMap::new();
    // The unknown columns, as (column number, cell): one note names them all.
    let mut unknown: Vec<(usize, &Cell)> = Vec::new();
    for (index, cell) in header.cells.iter().enumerate() {
        let number = index + 1;
        let name = cell.text.trim();
        // An unknown column is read past, as MiniMalloc's reader does, with a note naming the
        // known ones (it may be a misspelling).
        let Some(role) = Role::from_header(name) else {
            unknown.push((number, cell));
            columns.push(Column { header: name.to_string(), role: Role::Ignored });
            continue;
        };
        if let Some(&(first_number, first_name, first_role)) = first_with_meaning.get(&role.meaning()) {
            let message = if first_role == role || role.meaning() != Role::Upper {
                format!(
                    "duplicate column '{name}' (column {number}): column {first_number} '{first_name}' has the same meaning"
                )
            } else {
                format!(
                    "columns '{first_name}' (column {first_number}) and '{name}' (column {number}) both give the end \
                     of the lifetime; keep one: 'upper' is a half-open end, the legacy 'end' an inclusive one"
                )
            };
            errors.push(InputError::at(cell.line, cell.column, message));
        } else {
            first_with_meaning.insert(role.meaning(), (number, name, role));
        }
        if role == Role::InclusiveEnd && options.semantics == Semantics::Exclusive {
            errors.push(InputError::at(
                cell.line,
                cell.column,
                "the legacy 'end' column holds inclusive ends, which conflicts with the requested exclusive \
                 semantics; rename the column to 'upper' or ask for inclusive semantics",
            ));
        }
        columns.push(Column { header: name.to_string(), role });
    }
    if let Some(note) = unknown_columns_note(&unknown) {
        notes.push(note);
    }
    let layout = CsvLayout { columns, time_shift: 0 };
    let find = |role: Role| layout.position(role);
    let mut required = |role: Role, described: &str| {
        let found = find(role);
        if found.is_none() {
            errors.push(InputError::at_line(header.line, format!("missing column {described}")));
        }
        found
    };
    let id = required(Role::Id, "'id' (or 'buffer', 'buffer_id')");
    let lower = required(Role::Lower, "'lower' (or 'start', 'begin')");
    let end = match find(Role::Upper).or_else(|| find(Role::InclusiveEnd)) {
        Some(end) => Some(end),
        None => required(Role::Upper, "'upper' (or the legacy inclusive 'end')"),
    };
    let size = required(Role::Size, "'size'");
    let offset = match options.offsets {
        Offsets::Plan => required(Role::Offset, "'offset' (checking a plan needs an offset for every buffer)"),
        Offsets::Pinned => find(Role::Offset),
    };
    let (Some(id), Some(lower), Some(end), Some(size)) = (id, lower, end, size) else {
        return Err(errors);
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let indices = Indices {
        id,
        lower,
        end,
        size,
        alignment: find(Role::Alignment),
        offset,
        hint: find(Role::Hint),
        name: find(Role::Name),
        category: find(Role::Category),
        gaps: find(Role::Gaps),
    };
    Ok((layout, indices))
}

/// How many unknown columns one note names; a file with many (a wide export) gets their count.
const UNKNOWN_NAMED: usize = 5;

/// One note for every unknown column (`(column number, header cell)`), at the first of them: the
/// first few named, the rest counted.
fn unknown_columns_note(unknown: &[(usize, &Cell)]) -> Option<Note> {
    let &(_, first) = unknown.first()?;
    let named: Vec<String> = unknown
        .iter()
        .take(UNKNOWN_NAMED)
        .map(|(number, cell)| format!("'{}' (column {number})", cell.text.trim()))
        .collect();
    let what = match unknown.len() {
        1 => format!("unknown column {}", named[0]),
        n if n <= UNKNOWN_NAMED => format!("{n} unknown columns {}", named.join(", ")),
        n => format!("{n} unknown columns, {} and {} more,", named.join(", "), n - UNKNOWN_NAMED),
    };
    Some(Note {
        line: Some(first.line),
        column: Some(first.column),
        message: format!("{what} ignored, and not written back; the known columns are {ACCEPTED_COLUMNS}"),
    })
}

/// Reads the cells of one row, recording every bad cell with its position.
struct RowReader<'r> {
    record: &'r Record<'r>,
    layout: &'r CsvLayout,
    errors: Vec<InputError>,
}

impl RowReader<'_> {
    /// Only called with indices of the header, after checking that the row has as many cells.
    fn cell(&self, index: usize) -> &Cell<'_> {
        &self.record.cells[index]
    }

    fn header(&self, index: usize) -> &str {
        &self.layout.columns[index].header
    }

    fn fail(&mut self, index: usize, message: impl std::fmt::Display) {
        let cell = self.cell(index);
        let error = InputError::at(cell.line, cell.column, format!("{}: {message}", self.header(index)));
        self.errors.push(error);
    }

    fn integer(&mut self, index: usize) -> Option<u64> {
        match reading::parse_integer(&self.cell(index).text) {
            Ok(value) => Some(value),
            Err(message) => {
                self.fail(index, message);
                None
            }
        }
    }

    /// A time, which may be negative in the file: `shift` makes the earliest 0.
    fn time(&mut self, index: usize, shift: u64) -> Option<u64> {
        match reading::parse_time(&self.cell(index).text, shift) {
            Ok(value) => Some(value),
            Err(message) => {
                self.fail(index, message);
                None
            }
        }
    }

    /// `None` when the column is absent or the cell is blank, like a name; an unknown category
    /// is recorded as an error listing the allowed ones.
    fn category(&mut self, index: Option<usize>) -> Option<Category> {
        let index = index?;
        let text = self.cell(index).text.trim().to_string();
        if text.is_empty() {
            return None;
        }
        let category = Category::parse(&text);
        if category.is_none() {
            self.fail(index, format!("unknown category '{text}'; expected one of {}", Category::names()));
        }
        category
    }

    /// `None` when the column is absent or the cell is blank (a bad value is recorded as an error).
    fn optional(&mut self, index: Option<usize>) -> Option<u64> {
        let index = index?;
        if self.cell(index).text.is_empty() { None } else { self.integer(index) }
    }
}

fn read_row(
    record: &Record,
    layout: &CsvLayout,
    at: &Indices,
    semantics: Semantics,
    offsets: Offsets,
) -> Result<Row, Vec<InputError>> {
    if record.cells.len() != layout.columns.len() {
        return Err(vec![InputError::at_line(
            record.line,
            format!("expected {} cells, as in the header, but found {}", layout.columns.len(), record.cells.len()),
        )]);
    }
    let mut reader = RowReader { record, layout, errors: Vec::new() };
    let id = BufferId::from(&*reader.cell(at.id).text);
    if id.is_empty() {
        reader.fail(at.id, "missing value; every buffer needs an id");
    }
    let shift = layout.time_shift;
    let (lower, upper, size) = (reader.time(at.lower, shift), reader.time(at.end, shift), reader.integer(at.size));
    // A blank name cell is no name, as a buffer written without one gives.
    let name = at.name.map(|index| reader.cell(index).text.to_string()).filter(|name| !name.is_empty());
    let category = reader.category(at.category);
    let alignment = reader.optional(at.alignment);
    // MiniMalloc writes -1 for no hint.
    let hint = match at.hint {
        Some(index) if reader.cell(index).text.trim() == "-1" => None,
        index => reader.optional(index),
    };
    let gaps = match at.gaps.map(|index| (index, reading::parse_gaps(&reader.cell(index).text, semantics, shift))) {
        None => Vec::new(),
        Some((_, Ok(gaps))) => gaps,
        Some((index, Err(message))) => {
            reader.fail(index, message);
            Vec::new()
        }
    };
    let offset = reader.optional(at.offset);
    if let Some(index) = at.offset
        && offsets == Offsets::Plan
        && reader.cell(index).text.is_empty()
    {
        reader.fail(index, "missing value; checking a plan needs an offset on every row");
    }
    let mut lifetime = None;
    if let (Some(lower), Some(upper)) = (lower, upper) {
        let written = WrittenLifetime {
            start_name: reader.header(at.lower),
            start: lower,
            end_name: reader.header(at.end),
            end: upper,
        };
        match reading::to_half_open(semantics, &written) {
            Ok(converted) => lifetime = Some(converted),
            Err(message) => {
                let cell = reader.cell(at.end);
                reader.errors.push(InputError::at(cell.line, cell.column, message));
            }
        }
    }
    let (Some((start, end)), Some(lower), Some(upper), Some(size)) = (lifetime, lower, upper, size) else {
        return Err(reader.errors);
    };
    if !reader.errors.is_empty() {
        return Err(reader.errors);
    }
    let (pinned, planned) = match offsets {
        Offsets::Pinned => (offset, None),
        Offsets::Plan => (None, offset),
    };
    let alignment = alignment.unwrap_or(1);
    let buffer = Buffer::new(id, start, end, size)
        .with_alignment(alignment)
        .with_line(u32::try_from(record.line).ok())
        .with_details(Details { pinned, hint, name, category, gaps, ..Details::default() });
    Ok(Row { buffer, written: (lower, upper, size), planned })
}

/// Writes MiniMalloc's output: the layout's columns in order (the problem's default columns
/// without one) with times in the problem's semantics, and the offsets in the `offset` column,
/// which is added at the end when the layout has none. A buffer without an entry in `offsets`
/// gets its pinned offset, or a blank cell. With no offsets and nothing pinned, no `offset`
/// column is added, unless there are no buffers: then the empty offsets are a whole plan, and a
/// plan always has its `offset` column (read back as a problem, the empty column changes nothing).
pub(super) fn write(problem: &Problem, layout: Option<&CsvLayout>, offsets: &[u64]) -> String {
    let mut out = Vec::new();
    // (Writing into memory cannot fail.)
    let _ = write_to(problem, layout, offsets, &mut out);
    super::utf8(out)
}

/// [`write`], line by line into `out`, so that a plan of millions of buffers is never held as one
/// text.
pub(super) fn write_to(
    problem: &Problem,
    layout: Option<&CsvLayout>,
    offsets: &[u64],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let default_layout;
    let layout = match layout {
        Some(layout) if !layout.columns.is_empty() => layout,
        _ => {
            default_layout = CsvLayout::for_problem(problem);
            &default_layout
        }
    };
    let is_plan = !offsets.is_empty() || problem.is_empty();
    let add_offset = layout.position(Role::Offset).is_none() && (is_plan || problem.has_pinned());
    let columns: Vec<&Column> = layout.columns.iter().filter(|c| c.role != Role::Ignored).collect();
    let mut headers: Vec<&str> = columns.iter().map(|c| c.header.as_str()).collect();
    if add_offset {
        headers.push(Role::Offset.name());
    }
    for (i, header) in headers.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        out.write_all(records::quote(header).as_bytes())?;
    }
    out.write_all(b"\n")?;

    let semantics = problem.semantics();
    let shift = layout.time_shift;
    // Each row is made in `line` and written whole: one call a row, where one a cell (through
    // `dyn Write` and the formatting machinery) took most of the writing of millions of rows.
    let mut line: Vec<u8> = Vec::with_capacity(128);
    let mut digits = itoa::Buffer::new();
    let time = |line: &mut Vec<u8>, digits: &mut itoa::Buffer, t: u64| {
        if shift == 0 {
            line.extend_from_slice(digits.format(t).as_bytes());
        } else {
            line.extend_from_slice(digits.format(t as i128 - shift as i128).as_bytes());
        }
    };
    for (index, buffer) in problem.buffers().iter().enumerate() {
        line.clear();
        let offset = offsets.get(index).copied().or(buffer.pinned);
        let (lower, upper) = semantics.from_half_open(buffer.start, buffer.end);
        let cells = columns.iter().map(|column| column.role).chain(add_offset.then_some(Role::Offset));
        for (i, role) in cells.enumerate() {
            if i > 0 {
                line.push(b',');
            }
            match role {
                Role::Id => line.extend_from_slice(records::quote(&buffer.id).as_bytes()),
                Role::Lower => time(&mut line, &mut digits, lower),
                Role::Upper => time(&mut line, &mut digits, upper),
                Role::InclusiveEnd => {
                    time(&mut line, &mut digits, Semantics::Inclusive.from_half_open(buffer.start, buffer.end).1)
                }
                Role::Size => line.extend_from_slice(digits.format(buffer.size).as_bytes()),
                Role::Alignment => line.extend_from_slice(digits.format(buffer.alignment()).as_bytes()),
                Role::Offset => {
                    if let Some(offset) = offset {
                        line.extend_from_slice(digits.format(offset).as_bytes());
                    }
                }
                // MiniMalloc's "no hint", never a blank cell.
                Role::Hint => match buffer.hint {
                    Some(hint) => line.extend_from_slice(digits.format(hint).as_bytes()),
                    None => line.extend_from_slice(b"-1"),
                },
                Role::Name => {
                    if let Some(name) = buffer.name.as_deref() {
                        line.extend_from_slice(records::quote(name).as_bytes());
                    }
                }
                Role::Category => {
                    if let Some(category) = buffer.category {
                        line.extend_from_slice(category.name().as_bytes());
                    }
                }
                Role::Gaps => line.extend_from_slice(reading::write_gaps(&buffer.gaps, semantics, shift).as_bytes()),
                Role::Ignored => unreachable!("filtered out above"),
            }
        }
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Document, InputErrors> {
        read(text, &ReadOptions::default())
    }

    #[test]
    fn reads_the_minimalloc_example() {
        let document = read_text("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n").unwrap();
        let buffers = document.problem.buffers();
        assert_eq!(buffers.len(), 2);
        assert_eq!((buffers[1].id.as_str(), buffers[1].start, buffers[1].end, buffers[1].size), ("b2", 3, 9, 4));
        assert_eq!(buffers[1].line(), Some(3));
        assert_eq!(document.problem.max_load(), 4);
        assert_eq!(document.format, Format::Csv);
        assert!(document.plan.is_none());
    }

    #[test]
    fn layout_keeps_the_header_as_written() {
        let document = read_text(" Size ,BEGIN,buffer,end\n8,0,x,3\n").unwrap();
        let layout = document.csv_layout.unwrap();
        assert_eq!(layout.headers().collect::<Vec<_>>(), ["Size", "BEGIN", "buffer", "end"]);
        assert!(layout.has_inclusive_end());
        assert_eq!(document.problem.semantics(), Semantics::Inclusive);
        assert_eq!(document.problem.buffers()[0].end, 4);
    }

    #[test]
    fn writes_the_input_columns_with_offsets_replaced_in_place() {
        let document = read_text("offset,id,lower,end,size,hint\n,a,0,2,8,7\n16,b,1,1,8,\n").unwrap();
        assert_eq!(document.problem.buffers()[1].pinned, Some(16));
        let out = write(&document.problem, document.csv_layout.as_ref(), &[0, 16]);
        // No hint is written as MiniMalloc's -1, and -1 reads as no hint.
        assert_eq!(out, "offset,id,lower,end,size,hint\n0,a,0,2,8,7\n16,b,1,1,8,-1\n");
        assert_eq!(read_text(&out).unwrap().problem.buffers()[1].hint, None);
    }

    #[test]
    fn default_columns_appear_only_when_needed() {
        let plain = Problem::new(vec![Buffer::new("a", 0, 2, 8)], None).unwrap();
        assert_eq!(write(&plain, None, &[]), "id,lower,upper,size\na,0,2,8\n");
        assert_eq!(write(&plain, None, &[4]), "id,lower,upper,size,offset\na,0,2,8,4\n");
        let mut rich = Buffer::new("a,b", 0, 2, 8).with_alignment(4).pinned_at(8);
        rich.hint = Some(3);
        let mut rich = Problem::new(vec![rich], None).unwrap();
        rich.set_semantics(Semantics::Inclusive);
        assert_eq!(write(&rich, None, &[]), "id,lower,upper,size,alignment,hint,offset\n\"a,b\",0,1,8,4,3,8\n");
    }

    /// The plan of an empty instance was written without its `offset` column, which
    /// reading it as a plan rejects.
    #[test]
    fn an_empty_plan_has_an_offset_column() {
        let empty = Problem::new(Vec::new(), None).unwrap();
        assert_eq!(write(&empty, None, &[]), "id,lower,upper,size,offset\n");
        let document = read_text("id,lower,upper,size\n").unwrap();
        let written = write(&document.problem, document.csv_layout.as_ref(), &[]);
        assert_eq!(written, "id,lower,upper,size,offset\n");
        let plan = read(&written, &ReadOptions { offsets: Offsets::Plan, ..ReadOptions::default() }).unwrap();
        assert_eq!(plan.plan, Some(Vec::new()));
    }
}
