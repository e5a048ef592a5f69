//! The shared vocabulary: buffers, problems, plans, solutions and input errors.

mod buffer;
mod category;
mod error;
pub mod load;
mod memo;
mod problem;
mod semantics;
mod solution;
pub mod stacking;
pub mod wire;

pub use buffer::{Buffer, BufferId, Details, Gap, Piece, Window};
pub use category::Category;
pub use error::{InputError, InputErrors};
pub use memo::Memo;
pub use problem::Problem;
pub use semantics::Semantics;
pub use solution::{Outcome, Plan, StatValue, Stats, StopGroup, Stopped};
