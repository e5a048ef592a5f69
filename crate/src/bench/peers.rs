//! Published figures of other planners, to set beside memplan's in a bench table.
//!
//! A bench says how memplan did; a reader also wants to know how that compares with what the
//! other planners reached on the same instance. Those planners are not part of memplan, so their
//! figures come from their papers (or from a measurement someone recorded), in a JSON file that
//! `memplan bench --peers FILE` reads. Each figure names its source, because a published
//! fragmentation of "0.8 %" is rounded and a reader must be able to tell it from a measured height.

use serde::Deserialize;

/// What a peer reached on one instance: exactly one of `makespan`, `fragmentation_pct` or
/// `fits` (with a capacity).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerFigure {
    /// The instance's file name, as the bench's first column shows it (`pangu_2.6B.csv`).
    pub instance: String,
    /// The planner, e.g. `MiniMalloc` or `SOMAS`.
    pub peer: String,
    /// The capacity of the run the figure comes from; `None` when the planner minimised the height.
    #[serde(default)]
    pub capacity: Option<u64>,
    /// The height of the peer's plan, where the source gives it in bytes.
    #[serde(default)]
    pub makespan: Option<u64>,
    /// The peer's fragmentation in percent of the max load, where the source gives only that.
    #[serde(default)]
    pub fragmentation_pct: Option<f64>,
    /// With a capacity: whether the peer found a plan within it.
    #[serde(default)]
    pub fits: Option<bool>,
    /// The peer's run time, where the source gives it.
    #[serde(default)]
    pub time_ms: Option<f64>,
    /// Where the figure comes from (a paper's table, an issue, a measurement).
    pub source: String,
}

/// Why a peers file was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum PeersError {
    #[error("line {line}, column {column}: {message}")]
    Syntax { line: usize, column: usize, message: String },
    #[error("entry {index} ({instance}, {peer}): give exactly one of makespan, fragmentation_pct or fits")]
    NotOneFigure { index: usize, instance: String, peer: String },
    #[error("entry {index} ({instance}, {peer}): fits needs the capacity it was measured at")]
    FitsWithoutCapacity { index: usize, instance: String, peer: String },
}

/// Reads a peers file: a JSON array of [`PeerFigure`]s.
pub fn parse(text: &str) -> Result<Vec<PeerFigure>, PeersError> {
    let figures: Vec<PeerFigure> = serde_json::from_str(text).map_err(|error| PeersError::Syntax {
        line: error.line(),
        column: error.column(),
        message: error.to_string(),
    })?;
    for (index, figure) in figures.iter().enumerate() {
        let given = [figure.makespan.is_some(), figure.fragmentation_pct.is_some(), figure.fits.is_some()];
        let (instance, peer) = (figure.instance.clone(), figure.peer.clone());
        if given.iter().filter(|&&g| g).count() != 1 {
            return Err(PeersError::NotOneFigure { index, instance, peer });
        }
        if figure.fits.is_some() && figure.capacity.is_none() {
            return Err(PeersError::FitsWithoutCapacity { index, instance, peer });
        }
    }
    Ok(figures)
}

impl PeerFigure {
    /// The fragmentation this figure stands for, given the instance's max load: the one to beat.
    fn fragmentation(&self, max_load: u64) -> Option<f64> {
        match (self.makespan, self.fragmentation_pct) {
            (Some(makespan), _) if max_load > 0 => Some((makespan as f64 - max_load as f64) / max_load as f64 * 100.0),
            (_, Some(pct)) => Some(pct),
            _ => None,
        }
    }

    /// The table cell: who, what, and how fast when known.
    pub fn describe(&self, max_load: u64) -> String {
        let time = self.time_ms.map_or_else(String::new, |ms| format!(", {ms} ms"));
        match (self.makespan, self.fragmentation_pct, self.fits) {
            (Some(makespan), _, _) => {
                let pct = self.fragmentation(max_load).map_or_else(String::new, |p| format!(" ({p:.3} %)"));
                format!("{} {makespan}{pct}{time}", self.peer)
            }
            (_, Some(pct), _) => format!("{} {pct} %{time}", self.peer),
            (_, _, Some(true)) => format!("{} fits{time}", self.peer),
            _ => format!("{} does not fit{time}", self.peer),
        }
    }
}

/// The best figure any peer reached on `instance` under the bench's `capacity`: with a capacity,
/// a fit (the fastest one) over a failure; without one, the lowest fragmentation. Figures measured
/// under another capacity are left out, because they answer another question.
pub fn best<'a>(
    figures: &'a [PeerFigure],
    instance: &str,
    capacity: Option<u64>,
    max_load: u64,
) -> Option<&'a PeerFigure> {
    let candidates = figures.iter().filter(|f| f.instance == instance && f.capacity == capacity);
    match capacity {
        Some(_) => candidates.min_by(|a, b| {
            let key = |f: &PeerFigure| (!f.fits.unwrap_or(true), f.time_ms.unwrap_or(f64::INFINITY));
            let (ka, kb) = (key(a), key(b));
            ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
        }),
        None => candidates.min_by(|a, b| {
            let frag = |f: &PeerFigure| f.fragmentation(max_load).unwrap_or(f64::INFINITY);
            frag(a).total_cmp(&frag(b))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"[
        {"instance": "p.csv", "peer": "SOMAS", "fragmentation_pct": 0.8, "source": "paper"},
        {"instance": "p.csv", "peer": "XLA", "fragmentation_pct": 6.1, "source": "paper"},
        {"instance": "p.csv", "peer": "Exact", "makespan": 1005, "source": "measured"},
        {"instance": "c.csv", "peer": "Slow", "capacity": 100, "fits": true, "time_ms": 900, "source": "paper"},
        {"instance": "c.csv", "peer": "Fast", "capacity": 100, "fits": true, "time_ms": 20, "source": "paper"},
        {"instance": "c.csv", "peer": "Never", "capacity": 100, "fits": false, "source": "paper"},
        {"instance": "c.csv", "peer": "Other", "capacity": 50, "fits": true, "time_ms": 1, "source": "paper"}
    ]"#;

    #[test]
    fn the_lowest_fragmentation_wins_without_a_capacity() {
        let figures = parse(SAMPLE).unwrap();
        // 1005 over a load of 1000 is 0.5 %, below SOMAS's 0.8 %.
        assert_eq!(best(&figures, "p.csv", None, 1000).unwrap().peer, "Exact");
        assert_eq!(best(&figures, "p.csv", None, 1000).unwrap().describe(1000), "Exact 1005 (0.500 %)");
        // Over a load of 990 the same height is 1.5 %: SOMAS wins.
        assert_eq!(best(&figures, "p.csv", None, 990).unwrap().peer, "SOMAS");
    }

    #[test]
    fn the_fastest_fit_under_the_same_capacity_wins() {
        let figures = parse(SAMPLE).unwrap();
        let fast = best(&figures, "c.csv", Some(100), 100).unwrap();
        assert_eq!(fast.describe(100), "Fast fits, 20 ms");
        assert_eq!(best(&figures, "c.csv", Some(50), 50).unwrap().peer, "Other");
        assert!(best(&figures, "c.csv", None, 100).is_none());
        assert!(best(&figures, "missing.csv", None, 100).is_none());
    }

    #[test]
    fn bad_files_say_where_and_what() {
        let Err(PeersError::Syntax { line, .. }) = parse("[\n{\"instance\": 3}\n]") else { panic!() };
        assert_eq!(line, 2);
        let two = r#"[{"instance": "a", "peer": "b", "makespan": 1, "fits": true, "capacity": 4, "source": "s"}]"#;
        assert!(matches!(parse(two), Err(PeersError::NotOneFigure { index: 0, .. })));
        let no_capacity = r#"[{"instance": "a", "peer": "b", "fits": true, "source": "s"}]"#;
        assert!(matches!(parse(no_capacity), Err(PeersError::FitsWithoutCapacity { .. })));
        let unknown = r#"[{"instance": "a", "peer": "b", "makespan": 1, "source": "s", "height": 2}]"#;
        assert!(matches!(parse(unknown), Err(PeersError::Syntax { .. })));
    }
}
