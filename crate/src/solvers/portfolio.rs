//! The `auto` portfolio (to be written).
use super::{Capabilities, Solver};
use crate::model::{Problem, Solution};
use crate::options::{SolveError, SolveOptions};

pub struct Auto;

impl Solver for Auto {
    fn name(&self) -> &str {
        "auto"
    }
    fn description(&self) -> String {
        "portfolio".into()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    fn solve(&self, _problem: &Problem, _options: &SolveOptions) -> Result<Solution, SolveError> {
        todo!()
    }
}
