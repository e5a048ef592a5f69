//! What each buffer of a trace holds, from XLA's buffer allocations: an allocation flagged as an
//! entry computation parameter holds inputs, one that may be live out holds the module's output,
//! a constant one holds weights baked into the module, and the rest (the temp allocation the heap
//! simulator packs) holds temporaries. The flags are XLA's own, so nothing is guessed from names.

use std::collections::HashMap;

use super::decode::BufferAllocation;
use super::trace::Simulation;
use crate::model::Category;

/// The category of an allocation's values.
fn category_of(allocation: &BufferAllocation) -> Category {
    if allocation.is_entry_computation_parameter {
        Category::Input
    } else if allocation.maybe_live_out {
        Category::Output
    } else if allocation.is_constant {
        Category::Weight
    } else {
        Category::Temporary
    }
}

/// One category per group of `simulation` (= buffer of the instance), `None` when no allocation
/// holds any of its values. A group whose members differ takes the first of input, output, weight,
/// temporary: a parameter or a result aliased by a temporary is still what the caller sees.
pub(super) fn categories(allocations: &[BufferAllocation], simulation: &Simulation) -> Vec<Option<Category>> {
    let mut by_value: HashMap<i64, Category> = HashMap::new();
    for allocation in allocations {
        let category = category_of(allocation);
        for assigned in &allocation.assigned {
            by_value.insert(assigned.logical_buffer_id, category);
        }
    }
    let rank = |category: Category| match category {
        Category::Input => 0,
        Category::Output => 1,
        Category::Weight => 2,
        Category::Variable => 3,
        Category::Temporary => 4,
    };
    simulation
        .groups
        .iter()
        .map(|group| {
            group
                .members
                .iter()
                .filter_map(|&member| by_value.get(&simulation.values[member].id).copied())
                .min_by_key(|&category| rank(category))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::xla::decode::Assigned;
    use crate::import::xla::trace::{Group, Value};

    fn allocation(ids: &[i64], parameter: bool, live_out: bool, constant: bool) -> BufferAllocation {
        BufferAllocation {
            is_entry_computation_parameter: parameter,
            maybe_live_out: live_out,
            is_constant: constant,
            assigned: ids.iter().map(|&id| Assigned { logical_buffer_id: id, ..Default::default() }).collect(),
            ..Default::default()
        }
    }

    fn value(id: i64, group: usize) -> Value {
        Value { id, name: format!("v{id}"), size: 8, start: 0, end: 1, group }
    }

    #[test]
    fn flags_give_categories_and_a_group_takes_the_most_visible() {
        let allocations = [
            allocation(&[1], true, false, false),
            allocation(&[2], false, true, false),
            allocation(&[3], false, false, true),
            allocation(&[4, 5], false, false, false),
        ];
        let values = vec![value(1, 0), value(2, 1), value(3, 2), value(4, 3), value(5, 4), value(2, 4), value(9, 5)];
        let group = |canonical: i64, members: Vec<usize>| Group { canonical, members, pieces: vec![(0, 1)], size: 8 };
        let groups = vec![
            group(1, vec![0]),
            group(2, vec![1]),
            group(3, vec![2]),
            group(4, vec![3]),
            // A temporary sharing memory with the output is shown as the output.
            group(5, vec![4, 5]),
            // A value no allocation holds has no category.
            group(9, vec![6]),
        ];
        let simulation = Simulation { values, groups, ticks: 1 };
        assert_eq!(
            categories(&allocations, &simulation),
            [
                Some(Category::Input),
                Some(Category::Output),
                Some(Category::Weight),
                Some(Category::Temporary),
                Some(Category::Output),
                None
            ]
        );
    }
}
