//! What the law makes of a parcel's system over its life: the day it was put in service, and whether its
//! design is grandfathered (Gorham Ch. 56 §304.2).

use chrono::NaiveDate;

use crate::records::events::Event;
use crate::records::inspections::{Dated, Inspections, Installed, SystemSize};
use crate::rules::vocabulary::{SYSTEM_INSTALLED, SYSTEM_REPLACED};
use crate::rules::{GrandfatherReading, GrandfatherRules};

/// The day the parcel's present system was put in service, from its `system-installed` and `system-replaced`
/// events and the installation its latest inspection that says records: the latest of them.
pub fn in_service(events: &[Event], installed: Option<Dated<Installed>>) -> Option<NaiveDate> {
    let built =
        events.iter().filter(|e| e.kind == SYSTEM_INSTALLED || e.kind == SYSTEM_REPLACED).map(|e| e.date);
    built.chain(installed.map(|i| i.value.date)).max()
}

/// Whether the system of the parcel at `at` is grandfathered under `rules`, from what the inspections file
/// says of it (its installation and size, the authority's findings): see [`grandfathered_by`].
pub fn grandfathered(rules: &GrandfatherRules, inspections: &Inspections, at: usize) -> Option<bool> {
    let installed = inspections.installed.get(at).copied().flatten().map(|i| i.value);
    let intermediate = installed.is_some_and(|i| i.size == SystemSize::Intermediate);
    let functioning = inspections.functioning.get(at).copied().flatten().map(|f| f.value);
    let illegal = inspections.illegally_installed.get(at).copied().flatten().map(|f| f.value);
    grandfathered_by(rules, installed.map(|i| i.date), intermediate, functioning, illegal)
}

/// Whether a system installed on `installed` (`intermediate`: an intermediate-sized system) is
/// grandfathered; `functioning` is the authority's finding that it is adequately functioning, which
/// grandfathers it whatever its date; `illegal` is the authority's determination that it was illegally
/// installed, which takes away the date (the sentence grandfathers systems "legally installed"). `None`
/// when neither date nor finding is known.
pub fn grandfathered_by(
    rules: &GrandfatherRules,
    installed: Option<NaiveDate>,
    intermediate: bool,
    functioning: Option<bool>,
    illegal: Option<bool>,
) -> Option<bool> {
    if functioning == Some(true) {
        return Some(true);
    }
    if illegal == Some(true) {
        return Some(false);
    }
    let date = rules.paragraph_date(intermediate);
    let by_date = installed.map(|on| match rules.reading {
        GrandfatherReading::Between => on > date && on < rules.adopted,
        GrandfatherReading::Before => on < date,
    });
    by_date.or(functioning)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap_or(NaiveDate::MIN)
    }

    /// Ch. 56 §304.2: the design standards "shall not apply to existing wastewater treatment systems legally
    /// installed, repaired or approved ..., prior to the date of adoption of this local law and after the
    /// dates identified in Paragraphs a and b identified below, or those systems determined by the authority
    /// having jurisdiction to be adequately functioning"; (a) "prior to December 1, 1990", (b) "prior to
    /// January 1, 1988". The rule set reads the sentence: after the paragraph date, before adoption (taken as
    /// the filing date 2000-10-23).
    #[test]
    fn grandfathering_reads_the_sentence_and_its_alternative() {
        let g = RuleSet::gorham_ch56().grandfather.expect("§304.2");
        let individual = |on, functioning| grandfathered_by(&g, Some(on), false, functioning, None);
        assert_eq!(individual(d(1985, 6, 1), None), Some(false)); // before (a): not in the window
        assert_eq!(individual(d(1990, 12, 1), None), Some(false)); // on the date is not "after" it
        assert_eq!(individual(d(1990, 12, 2), None), Some(true));
        assert_eq!(individual(d(2000, 10, 22), None), Some(true));
        assert_eq!(individual(d(2000, 10, 23), None), Some(false)); // not "prior to the date of adoption"
                                                                    // (b) for intermediate-sized systems: after 1988-01-01.
        assert_eq!(grandfathered_by(&g, Some(d(1987, 7, 1)), true, None, None), Some(false));
        assert_eq!(grandfathered_by(&g, Some(d(1988, 3, 1)), true, None, None), Some(true));
        // "or ... determined ... to be adequately functioning": any date, or none.
        assert_eq!(individual(d(1985, 6, 1), Some(true)), Some(true));
        assert_eq!(grandfathered_by(&g, None, false, Some(true), None), Some(true));
        assert_eq!(grandfathered_by(&g, None, false, Some(false), None), Some(false));
        assert_eq!(grandfathered_by(&g, None, false, None, None), None);
        // The other reading, the paragraphs' "prior to": the 1985 system is grandfathered, the 1992 one not.
        let before = GrandfatherRules { reading: GrandfatherReading::Before, ..g };
        assert_eq!(grandfathered_by(&before, Some(d(1985, 6, 1)), false, None, None), Some(true));
        assert_eq!(grandfathered_by(&before, Some(d(1992, 5, 1)), false, None, None), Some(false));
    }

    /// Ch. 56 §304.2 grandfathers systems "legally installed, repaired or approved" in the window: a system
    /// the authority determined illegally installed (§601.1) is not grandfathered by its date, even one
    /// installed in the window (1995 is after 1990-12-01 and before the 2000-10-23 adoption), nor when its
    /// date is unknown. The other branch, "or those systems determined ... to be adequately functioning",
    /// does not ask how the system was installed.
    #[test]
    fn an_illegally_installed_system_is_not_grandfathered_by_its_date() {
        let g = RuleSet::gorham_ch56().grandfather.expect("§304.2");
        assert_eq!(grandfathered_by(&g, Some(d(1995, 6, 1)), false, None, None), Some(true));
        assert_eq!(grandfathered_by(&g, Some(d(1995, 6, 1)), false, None, Some(true)), Some(false));
        assert_eq!(grandfathered_by(&g, None, false, None, Some(true)), Some(false));
        assert_eq!(grandfathered_by(&g, Some(d(1995, 6, 1)), false, None, Some(false)), Some(true));
        assert_eq!(grandfathered_by(&g, Some(d(1985, 6, 1)), false, Some(true), Some(true)), Some(true));
    }
}
