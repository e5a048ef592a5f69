//! What the page's worker and the wasm core say to each other, as Rust types. The facade
//! (`wasm.rs`) serialises and reads them; their TypeScript twins (`web/src/generated/core.ts`) are
//! generated from them by the test `the_generated_typescript_is_current`, so the page declares
//! none of them again and never matches error text. Integers follow [`crate::model::wire`]'s rule.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::format::{Format, Note};
use crate::metrics::InstanceSummary;
use crate::model::{InputError, Semantics};
use crate::options::{Effort, Params, Progress, SolveError};
use crate::run::registry::SolverInfo;
use crate::run::{Capacity, Request, Summary};

/// Everything the controls may offer, from the core (`listSolvers()`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct Catalogue {
    pub solvers: Vec<SolverInfo>,
    /// The greedy orders and fits that `greedy-<order>-<fit>` combines.
    pub orders: Vec<Choice>,
    pub fits: Vec<Choice>,
    /// A line describing the combinations.
    pub combinations: String,
    pub efforts: Vec<Effort>,
    pub semantics: Vec<Semantics>,
    /// The most threads a solve may use.
    pub max_threads: usize,
}

/// A named option with a line describing it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct Choice {
    pub name: String,
    pub description: String,
}

/// A parsed instance at a glance (`Instance.summary()`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct ParsedSummary {
    #[serde(flatten)]
    #[cfg_attr(test, ts(flatten))]
    pub instance: InstanceSummary,
    /// The format the text was read as.
    pub format: Format,
    /// What the reader did that is no error (an ignored column, shifted times).
    pub notes: Vec<Note>,
}

/// What the page asks of a solve (`Job.start`). Absent fields take the CLI's defaults.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct SolveRequest {
    pub solver: String,
    /// A size such as `1MiB`; empty or absent for none.
    #[cfg_attr(test, ts(optional))]
    pub capacity: Option<String>,
    /// Seconds; absent for none.
    #[cfg_attr(test, ts(optional))]
    pub time_limit: Option<f64>,
    /// A decimal u64, so that any seed survives JavaScript.
    #[cfg_attr(test, ts(optional))]
    pub seed: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub effort: Option<Effort>,
    /// Solver-specific settings by name (see [`SolverInfo::parameters`]), as text.
    #[cfg_attr(test, ts(optional))]
    pub params: Option<BTreeMap<String, String>>,
    /// A plan to start from and keep where it costs nothing (a compiler's, one offset per buffer)
    /// as decimal u64s, exact past 2^53; absent for none.
    #[cfg_attr(test, ts(optional))]
    pub warm_start: Option<Vec<String>>,
}

/// A running solve as the worker polls it (`Job.poll()`).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum JobStatus {
    Running {
        progress: Option<Progress>,
    },
    /// The run ended: with a plan or without, `summary.stopped` says why. The plan's offsets are
    /// read separately (`Job.offsets()`).
    Done {
        summary: Box<Summary>,
    },
}

/// Why a request was refused: what the user gave cannot be read, or the request cannot be served.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct Refusal {
    pub kind: RefusalKind,
    /// One line for a status bar.
    pub message: String,
    /// Every problem with the input, each with its line and column when known.
    pub errors: Vec<InputError>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub(crate) enum RefusalKind {
    /// The instance text (or a size, a seed) cannot be read: `errors` locate each problem.
    Input,
    /// The solve cannot be served: an unknown solver, a parameter it lacks, an impossible value.
    Request,
}

impl SolveRequest {
    /// The page's request as the core's: a translation only (the seed's decimal text read, as a
    /// u64 does not survive a JS number); every other value is read and checked by
    /// [`crate::run::Request::prepare`].
    pub(crate) fn into_request(self) -> Result<Request, Refusal> {
        let seed = match self.seed.as_deref().map(str::trim) {
            None | Some("") => 0,
            Some(text) => text.parse::<u64>().map_err(|_| Refusal::request(format!("seed '{text}' is not a u64")))?,
        };
        let warm_start = match self.warm_start {
            None => None,
            Some(offsets) => Some(
                offsets
                    .iter()
                    .map(|text| text.trim().parse::<u64>())
                    .collect::<Result<Vec<u64>, _>>()
                    .map_err(|_| Refusal::request("the warm start has an offset that is not a u64"))?,
            ),
        };
        let params =
            self.params.unwrap_or_default().into_iter().fold(Params::new(), |p, (name, value)| p.with(name, value));
        Ok(Request {
            capacity: self.capacity.map(Capacity::Text),
            time_limit: self.time_limit,
            seed,
            effort: self.effort.unwrap_or_default(),
            params,
            warm_start,
            ..Request::new(self.solver)
        })
    }
}

/// The core's refusal of a request as the page receives it, decided by kind in this one place: a
/// capacity that cannot be read is the user's input (shown at the field), the rest the request.
impl From<SolveError> for Refusal {
    fn from(error: SolveError) -> Self {
        match error {
            SolveError::InvalidCapacity(_) => {
                let message = error.to_string();
                Refusal::input(message.clone(), vec![InputError::new(message)])
            }
            other => Refusal::request(other.to_string()),
        }
    }
}

impl Refusal {
    pub(crate) fn input(message: impl Into<String>, errors: Vec<InputError>) -> Self {
        Refusal { kind: RefusalKind::Input, message: message.into(), errors }
    }

    pub(crate) fn request(message: impl Into<String>) -> Self {
        let message = message.into();
        Refusal { kind: RefusalKind::Request, errors: vec![InputError::new(message.clone())], message }
    }
}

#[cfg(test)]
mod tests {
    use ts_rs::TS;

    use super::*;

    /// Every type the page receives or sends, in the order the generated file declares them.
    fn declarations() -> Vec<String> {
        use crate::model::Stopped;
        use crate::options::Parameter;
        use crate::solvers::Capabilities;
        vec![
            Stopped::decl(),
            crate::model::StopGroup::decl(),
            Summary::decl(),
            Progress::decl(),
            JobStatus::decl(),
            SolveRequest::decl(),
            Refusal::decl(),
            RefusalKind::decl(),
            InputError::decl(),
            Semantics::decl(),
            Format::decl(),
            Note::decl(),
            InstanceSummary::decl(),
            ParsedSummary::decl(),
            Effort::decl(),
            Parameter::decl(),
            Capabilities::decl(),
            SolverInfo::decl(),
            Choice::decl(),
            Catalogue::decl(),
            crate::diff::MovedBuffer::decl(),
            crate::diff::PlanDiff::decl(),
            crate::import::ModelKind::decl(),
            crate::import::ModelInfo::decl(),
        ]
    }

    fn generated() -> String {
        let mut text = String::from(
            "// Generated from the Rust types of crate/src/protocol.rs and the types it names; do not edit.\n\
             // To regenerate: MEMPLAN_WRITE_TYPES=1 cargo test -p memplan --lib protocol\n\
             // Integers that may pass 2^53 are `number | string` (a decimal string past 2^53 - 1).\n",
        );
        for declaration in declarations() {
            text.push_str("\nexport ");
            text.push_str(&declaration);
            text.push('\n');
        }
        text.push_str(&stop_groups());
        text
    }

    /// The group of every stop reason ([`crate::Stopped::group`]) as a TypeScript table, so that
    /// the page colours a result by the core's rule rather than a copy of it.
    fn stop_groups() -> String {
        let entries: Vec<String> = crate::model::Stopped::ALL
            .iter()
            .map(|&stopped| {
                let name = serde_json::to_value(stopped).expect("a stop reason serialises as its name");
                format!("  {}: '{}',", name.as_str().unwrap_or_default(), stopped.group().name())
            })
            .collect();
        format!(
            "\n/** Which group each stop reason belongs to (the core's `Stopped::group`). */\n\
             export const STOP_GROUPS: Record<Stopped, StopGroup> = {{\n{}\n}};\n",
            entries.join("\n")
        )
    }

    /// The page's request is the core's, field for field: its capacity stays text until the core
    /// reads it (once, in `Request::prepare`), and a refusal keeps its kind.
    #[test]
    fn the_pages_request_translates_into_the_cores() {
        let asked: SolveRequest = serde_json::from_value(serde_json::json!({
            "solver": "minimalloc", "capacity": "1KiB", "timeLimit": 2.5, "seed": "18446744073709551615",
            "effort": "high", "params": { "orderings": "2" }, "warmStart": ["0", "18446744073709551615"]
        }))
        .unwrap();
        let request = asked.into_request().unwrap();
        assert_eq!(request.solver, "minimalloc");
        assert_eq!(request.capacity, Some(Capacity::Text("1KiB".into())));
        assert_eq!((request.time_limit, request.seed, request.effort), (Some(2.5), u64::MAX, Effort::High));
        assert_eq!(request.warm_start, Some(vec![0, u64::MAX]));
        assert_eq!(request.prepare().unwrap().options().capacity, Some(1024));

        let bad_seed = SolveRequest { solver: "auto".into(), seed: Some("-1".into()), ..SolveRequest::default() };
        assert_eq!(bad_seed.into_request().unwrap_err().kind, RefusalKind::Request);
        let bad_start =
            SolveRequest { solver: "auto".into(), warm_start: Some(vec!["4.5".into()]), ..SolveRequest::default() };
        assert_eq!(bad_start.into_request().unwrap_err().kind, RefusalKind::Request);
        let bad_capacity =
            SolveRequest { solver: "auto".into(), capacity: Some("lots".into()), ..SolveRequest::default() };
        let refusal = Refusal::from(bad_capacity.into_request().unwrap().prepare().unwrap_err());
        assert_eq!(refusal.kind, RefusalKind::Input);
        assert!(refusal.message.starts_with("capacity: "), "{}", refusal.message);
    }

    /// The page imports these types from the generated file: it must match the Rust types. A change
    /// to a type fails here until the file is written again (see its first lines).
    #[test]
    fn the_generated_typescript_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../web/src/generated/core.ts");
        let expected = generated();
        if std::env::var_os("MEMPLAN_WRITE_TYPES").is_some() {
            std::fs::write(path, &expected).expect("write the generated types");
        }
        let found = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            found == expected,
            "{path} is out of date: run `MEMPLAN_WRITE_TYPES=1 cargo test -p memplan --lib protocol`"
        );
    }
}
