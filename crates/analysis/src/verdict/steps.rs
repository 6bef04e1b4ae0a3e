//! Which steps of a saved run a check judges: the one `--step` names ([`step_named`]: a name
//! in any case, or `#N`), and how a guide's profile meets the run's steps
//! ([`match_profile`]: by name, or a one-step run standing in for a one-step profile).
//! Pure: names in, positions out.

/// The position in `names` of the step `wanted` names: `#N` (1-based), or a name in any case.
pub fn step_named(names: &[&str], wanted: &str) -> Option<usize> {
    let by_number = wanted
        .strip_prefix('#')
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n >= 1 && n <= names.len())
        .map(|n| n - 1);
    by_number.or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(wanted)))
}

/// How a profile's steps meet the steps a check may judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileSteps {
    /// At least one step has a name of the profile: each figure is judged on the step of
    /// its name (a figure whose step is missing is not measured).
    ByName,
    /// No name matches, but one step is checked against a one-step profile: that step
    /// (its position among the candidates) is the scenario, whatever it was called (a plain
    /// `diskmeter run` of the guide's job).
    StandIn(usize),
    /// No name matches and no step can stand in.
    Unmatched,
}

/// How the profile with steps `profile` meets the steps named `candidates`.
pub fn match_profile(candidates: &[&str], profile: &[&str]) -> ProfileSteps {
    let any_named = profile
        .iter()
        .any(|p| candidates.iter().any(|c| c.eq_ignore_ascii_case(p)));
    if any_named {
        ProfileSteps::ByName
    } else if candidates.len() == 1 && profile.len() == 1 {
        ProfileSteps::StandIn(0)
    } else {
        ProfileSteps::Unmatched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_named_by_its_name_in_any_case_or_its_number() {
        let names = ["seq-read", "rand-write"];
        assert_eq!(step_named(&names, "RAND-WRITE"), Some(1));
        assert_eq!(step_named(&names, "#1"), Some(0));
        assert_eq!(step_named(&names, "#3"), None);
        assert_eq!(step_named(&names, "other"), None);
    }

    #[test]
    fn a_lone_step_stands_in_for_a_lone_profile_step() {
        assert_eq!(match_profile(&["a", "B"], &["b"]), ProfileSteps::ByName);
        assert_eq!(
            match_profile(&["job"], &["4k-qd32"]),
            ProfileSteps::StandIn(0)
        );
        assert_eq!(match_profile(&["x", "y"], &["4k"]), ProfileSteps::Unmatched);
    }
}
