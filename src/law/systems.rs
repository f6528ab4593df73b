//! What the law makes of a system over its life: when it began and whether its construction was permitted
//! (a new or replaced system starts a new life), when it was replaced or abandoned, which of a parcel's
//! events concern it, and whether its design is grandfathered (Gorham Ch. 56 §304.2).

use std::borrow::Cow;
use std::sync::Arc;

use chrono::NaiveDate;

use crate::law::clocks::answered_on_time;
use crate::records::events::Event;
use crate::records::inspections::{Dated, Inspections, Installed, SystemSize};
use crate::rules::vocabulary::{SYSTEM_ABANDONED, SYSTEM_INSTALLED, SYSTEM_REPLACED};
use crate::rules::{GrandfatherReading, GrandfatherRules, RuleSet, SystemRules};

/// Where a system stands in its life: when it began, whether its construction was permitted before it, and
/// whether it has been replaced or abandoned.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Life {
    /// The day the system was put in service, when the records say (its `system-installed` or
    /// `system-replaced` event, or the installation an inspection records).
    pub since: Option<NaiveDate>,
    /// Whether its plans were accepted and its permit issued before it was built, as the clocks the
    /// installation starts ask (Art. V §VII.A.1, §III.B; Ch. 56 §301.1); an installation an inspection
    /// records counts as permitted. Only a permitted construction counts as the system's first inspection and
    /// leaves the findings on the system it replaced behind.
    pub permitted: bool,
    /// How its life ended, when it has.
    pub retired: Option<Retired>,
}

/// How a system's life ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Retired {
    /// Replaced on this day by the system named (when the record names it); `permitted` as [`Life::permitted`]
    /// says of the replacement.
    Replaced {
        /// The day the replacement was put in service.
        on: NaiveDate,
        /// The new system's id, when the record names it.
        by: Option<Arc<str>>,
        /// Whether the replacement was permitted before it was built.
        permitted: bool,
    },
    /// Taken out of service on this day, not replaced.
    Abandoned(NaiveDate),
}

impl Retired {
    /// `replaced on 2026-05-01 by S-7 (permitted)`, `abandoned on 2025-10-01`.
    pub fn describe(&self) -> String {
        match self {
            Retired::Replaced { on, by, permitted } => format!(
                "replaced on {on}{} ({})",
                by.as_ref().map_or(String::new(), |by| format!(" by {by}")),
                if *permitted {
                    "permitted before construction: its open duties closed"
                } else {
                    "without plans accepted and a permit before construction: its duties stay open"
                }
            ),
            Retired::Abandoned(on) => format!("abandoned on {on}"),
        }
    }
}

/// The events of a parcel's `events` that concern its system `id`: those naming it and those naming no
/// system. For a system with no id of its own (a parcel with no register), every event of the parcel.
pub fn concerning<'a>(events: &'a [Event], id: Option<&str>) -> Cow<'a, [Event]> {
    match id {
        Some(id) if events.iter().any(|e| e.system.as_deref().is_some_and(|s| s != id)) => Cow::Owned(
            events.iter().filter(|e| e.system.as_deref().is_none_or(|s| s == id)).cloned().collect(),
        ),
        _ => Cow::Borrowed(events),
    }
}

/// The events of a system shared by two parcels: those of the parcel at hand (`events`), and those of the
/// other parcel it serves (`partner`) that name it (`system_id` or `replaces`), by date. A system with no id of
/// its own, or none of the other parcel's naming it, has the parcel's alone.
pub fn with_shared<'a>(events: &'a [Event], partner: &[Event], id: Option<&str>) -> Cow<'a, [Event]> {
    let Some(id) = id else { return Cow::Borrowed(events) };
    let names = |e: &&Event| e.system.as_deref() == Some(id) || e.replaces.as_deref() == Some(id);
    if !partner.iter().any(|e| names(&e)) {
        return Cow::Borrowed(events);
    }
    let mut all: Vec<Event> = events.iter().chain(partner.iter().filter(names)).cloned().collect();
    all.sort_by(|a, b| (a.date, &a.source).cmp(&(b.date, &b.source)));
    Cow::Owned(all)
}

/// The life of the system `id` (`None`: the parcel's one system, unnamed) on the as-of date, from the
/// events of its parcel (`events`, all of them: a replacement names the system it replaces) and the
/// installation the inspections file records for the parcel (`installed`).
///
/// It began with the latest `system-installed` or `system-replaced` that concerns it (names it, or names no
/// system), or the recorded installation, whichever is later. It ended with a `system-replaced` whose
/// `replaces` names it, or a `system-abandoned` that names it (or, for the unnamed system, names none).
pub fn life(
    rules: &RuleSet,
    events: &[Event],
    id: Option<&str>,
    installed: Option<Dated<Installed>>,
) -> Life {
    let concerns = |e: &Event| match (id, e.system.as_deref()) {
        (_, None) => true,
        (Some(id), Some(named)) => id == named,
        (None, Some(_)) => false,
    };
    let built = events
        .iter()
        .filter(|e| (e.kind == SYSTEM_INSTALLED || e.kind == SYSTEM_REPLACED) && concerns(e))
        .filter(|e| e.kind != SYSTEM_REPLACED || id.is_none() || e.replaces.as_deref() != id)
        .max_by_key(|e| e.date);
    let from_event = built.map(|e| (e.date, answered_on_time(rules, e, events)));
    let from_record = installed.map(|i| (i.value.date, true));
    let (since, permitted) = match (from_event, from_record) {
        (Some(a), Some(b)) => Some(if b.0 > a.0 { b } else { a }),
        (a, b) => a.or(b),
    }
    .map_or((None, false), |(on, permitted)| (Some(on), permitted));
    let replaced = id.and_then(|id| {
        events
            .iter()
            .filter(|e| e.kind == SYSTEM_REPLACED && e.replaces.as_deref() == Some(id))
            .min_by_key(|e| e.date)
    });
    let abandoned = events
        .iter()
        .filter(|e| e.kind == SYSTEM_ABANDONED && e.system.as_deref() == id)
        .map(|e| e.date)
        .min();
    let retired = match (replaced, abandoned) {
        (Some(e), a) if a.is_none_or(|a| e.date <= a) => Some(Retired::Replaced {
            on: e.date,
            by: e.system.clone(),
            permitted: answered_on_time(rules, e, events),
        }),
        (_, Some(a)) => Some(Retired::Abandoned(a)),
        _ => None,
    };
    Life { since, permitted, retired }
}

/// Whether a lot owes no system duty because it has no system: a lot of a vacant property class of `rules`
/// (`class`, as the parcels layer writes it) with no system on record that serves it or lies on it
/// (`has_system`, asked only of a lot of a vacant class). The law's duties are a system's (Art. V §IV.A: "All wastewater treatment systems must
/// have a completed inspection report"; Ch. 56 §102); an improved lot with no system on record is still
/// scheduled, its one system located by the lot.
pub fn without_system(rules: &SystemRules, class: Option<&str>, has_system: impl FnOnce() -> bool) -> bool {
    let class = class.map(str::trim).unwrap_or_default();
    !class.is_empty() && rules.vacant_classes.iter().any(|v| class.starts_with(v.trim())) && !has_system()
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
    use crate::rules::vocabulary::EventKind;
    use crate::rules::RuleSet;

    /// An event of `kind` on `date` naming `system` (and the system it `replaces`).
    fn event(kind: EventKind, date: NaiveDate, system: Option<&str>, replaces: Option<&str>) -> Event {
        let source =
            crate::records::events::Source { path: std::path::Path::new("events.csv").into(), line: 2 };
        Event {
            parcel: 0,
            kind,
            date,
            source,
            values: Vec::new(),
            system: system.map(Arc::from),
            replaces: replaces.map(Arc::from),
        }
    }

    fn named(kind: &str, date: NaiveDate) -> Event {
        event(EventKind::named(kind).expect("a kind of the vocabulary"), date, None, None)
    }

    /// Art. V §VII.A.1: construction of a new system requires "a review of plans and acceptance by the Cayuga
    /// County Health Department, prior to construction"; §III.B: no one shall build one "without obtaining the
    /// requisite approval and permits". S-2 replaces S-1 on Friday 2026-05-01 with its plans accepted on
    /// 2026-03-02 and its construction permit of 2026-03-20, both before it: a permitted new life, which
    /// counts as its first inspection; S-1 is retired, replaced by S-2, its open duties closed. With the
    /// permit only on 2026-06-03, after the work, the replacement is not permitted: S-2's life still begins
    /// on 2026-05-01, but it counts as no inspection, and S-1's duties stay open.
    #[test]
    fn a_replaced_system_starts_a_new_life_counted_only_when_permitted() {
        let rules = RuleSet::cayuga_art_v();
        let replaced = event(SYSTEM_REPLACED, d(2026, 5, 1), Some("S-2"), Some("S-1"));
        let permitted = [
            named("plan-accepted", d(2026, 3, 2)),
            named("construction-permit", d(2026, 3, 20)),
            replaced.clone(),
        ];
        let new = life(&rules, &permitted, Some("S-2"), None);
        assert_eq!(new, Life { since: Some(d(2026, 5, 1)), permitted: true, retired: None });
        let old = life(&rules, &permitted, Some("S-1"), None);
        assert_eq!(old.since, None);
        assert_eq!(
            old.retired,
            Some(Retired::Replaced { on: d(2026, 5, 1), by: Some("S-2".into()), permitted: true })
        );
        let late =
            [named("plan-accepted", d(2026, 3, 2)), replaced, named("construction-permit", d(2026, 6, 3))];
        assert!(!life(&rules, &late, Some("S-2"), None).permitted);
        assert!(matches!(
            life(&rules, &late, Some("S-1"), None).retired,
            Some(Retired::Replaced { permitted: false, .. })
        ));
        // A replacement that names no system is the parcel's one unnamed system's new life.
        let unnamed = [
            named("plan-accepted", d(2026, 3, 2)),
            named("construction-permit", d(2026, 3, 20)),
            named("system-replaced", d(2026, 5, 1)),
        ];
        assert_eq!(
            life(&rules, &unnamed, None, None),
            Life { since: Some(d(2026, 5, 1)), permitted: true, retired: None }
        );
    }

    /// A system abandoned (the lot connected to a sewer, the building removed) ends its life on that day; an
    /// event naming another system does not touch it, and one naming none concerns every system.
    #[test]
    fn an_abandoned_system_ends_its_life_and_events_concern_the_systems_they_name() {
        let rules = RuleSet::cayuga_art_v();
        let events = [
            event(SYSTEM_ABANDONED, d(2025, 10, 1), Some("S-7"), None),
            event(EventKind::named("complaint").expect("complaint"), d(2025, 11, 3), Some("S-8"), None),
            named("transfer", d(2026, 2, 2)),
        ];
        assert_eq!(
            life(&rules, &events, Some("S-7"), None).retired,
            Some(Retired::Abandoned(d(2025, 10, 1)))
        );
        assert_eq!(life(&rules, &events, Some("S-8"), None).retired, None);
        let kinds =
            |id| -> Vec<&str> { concerning(&events, Some(id)).iter().map(|e| e.kind.as_str()).collect() };
        assert_eq!(kinds("S-7"), ["system-abandoned", "transfer"]);
        assert_eq!(kinds("S-8"), ["complaint", "transfer"]);
    }

    /// A system serving two lots (the systems layer's second parcel) has one life, whichever lot's row its
    /// records are filed under: S-9, abandoned on 2025-10-01 in a record of the other lot, is abandoned on
    /// this one's too; a record of the other lot naming its own system S-8 is not this system's.
    #[test]
    fn a_shared_system_takes_the_events_of_the_other_lot_that_name_it() {
        let rules = RuleSet::cayuga_art_v();
        let here = [named("transfer", d(2026, 2, 2))];
        let there = [
            event(SYSTEM_ABANDONED, d(2025, 10, 1), Some("S-9"), None),
            event(EventKind::named("complaint").expect("complaint"), d(2025, 11, 3), Some("S-8"), None),
        ];
        let shared = with_shared(&here, &there, Some("S-9"));
        let kinds: Vec<&str> = shared.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["system-abandoned", "transfer"]);
        assert_eq!(
            life(&rules, &shared, Some("S-9"), None).retired,
            Some(Retired::Abandoned(d(2025, 10, 1)))
        );
        assert!(matches!(with_shared(&here, &there, Some("S-7")), Cow::Borrowed(_)));
        assert!(matches!(with_shared(&here, &there, None), Cow::Borrowed(_)));
    }

    /// Art. V §IV.A puts the duties on "wastewater treatment systems": a lot of vacant land (New York RPS
    /// class 311, "residential vacant land") with no system on record serving it or lying on it owes none; the
    /// same lot with a system on it does, and so does an improved lot (210, one-family residence) with no
    /// system on record, whose system the records simply lack. Whether a system lies on a lot is asked only of
    /// a vacant one.
    #[test]
    fn a_vacant_lot_without_a_system_owes_no_system_duty() {
        let rules = RuleSet::cayuga_art_v().systems;
        assert_eq!(rules.vacant_classes, ["3"]);
        assert!(without_system(&rules, Some("311"), || false));
        assert!(without_system(&rules, Some(" 322 "), || false));
        assert!(!without_system(&rules, Some("311"), || true));
        assert!(!without_system(&rules, Some("210"), || panic!("asked of an improved lot")));
        assert!(!without_system(&rules, None, || panic!("asked of a lot of no class")));
        let none = SystemRules { vacant_classes: Vec::new(), ..rules };
        assert!(!without_system(&none, Some("311"), || false));
    }

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
