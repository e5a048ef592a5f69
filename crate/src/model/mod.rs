//! The shared vocabulary: buffers, problems, plans, solutions and input errors.

mod buffer;
mod category;
mod error;
pub(crate) mod load;
mod memo;
mod problem;
mod semantics;
mod solution;
pub(crate) mod stacking;
pub(crate) mod wire;

pub(crate) use buffer::Piece;
pub use buffer::{Buffer, BufferId, Details, Gap, Window};
pub use category::Category;
pub use error::{InputError, InputErrors};
pub use problem::Problem;
pub use semantics::Semantics;
pub use solution::{Outcome, Plan, StatValue, Stats, StopGroup, Stopped};
