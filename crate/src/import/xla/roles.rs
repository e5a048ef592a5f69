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
pub fn categories(allocations: &[BufferAllocation], simulation: &Simulation) -> Vec<Option<Category>> {
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
