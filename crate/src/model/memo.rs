//! What solvers derive from a problem's buffers and keep for one another: the solvers of one run
//! (the portfolio's members, the warm start before a search) get the same [`super::Problem`], so
//! a costly fact one of them proved (MiniMalloc's window bound, which the stacking solver computes
//! too) is proved once. The model does not know what the facts are: each solver keeps its own, by
//! type.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex};

/// The facts kept for one problem, one value per type. Clones of the problem share them: a
/// problem's buffers never change once built, and the facts depend on nothing else (not on the
/// capacity, which a clone may change).
#[derive(Clone, Default)]
pub struct Memo(Arc<Mutex<Vec<Box<dyn Any + Send>>>>);

impl Memo {
    /// Runs `visit` on this problem's value of type `T`, made with `T::default()` the first time.
    /// The value is locked meanwhile: keep `visit` short (look up, store), not the work itself.
    pub fn with<T: Any + Send + Default, R>(&self, visit: impl FnOnce(&mut T) -> R) -> R {
        // A panic elsewhere while the lock was held leaves facts that were each stored whole.
        let mut values = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let at = match values.iter().position(|value| value.is::<T>()) {
            Some(at) => at,
            None => {
                values.push(Box::new(T::default()));
                values.len() - 1
            }
        };
        match values[at].downcast_mut::<T>() {
            Some(value) => visit(value),
            None => unreachable!("the value was found by its type"),
        }
    }
}

impl fmt::Debug for Memo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.0.lock().map_or(0, |values| values.len());
        write!(f, "Memo({count} kinds of fact)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type_shared_by_clones() {
        let memo = Memo::default();
        memo.with(|count: &mut u32| *count += 1);
        memo.with(|text: &mut String| text.push('a'));
        let clone = memo.clone();
        clone.with(|count: &mut u32| *count += 1);
        assert_eq!(memo.with(|count: &mut u32| *count), 2);
        assert_eq!(memo.with(|text: &mut String| text.clone()), "a");
        // Another memo starts empty.
        assert_eq!(Memo::default().with(|count: &mut u32| *count), 0);
    }
}
