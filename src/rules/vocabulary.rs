//! The events lakeshore understands: the `event` column of the events file, and the records other files
//! stand for (an inspection, the findings of a parcel's latest inspections: failed, not adequately
//! functioning, illegally installed; a pump-out). Rule sets start and close their clocks on these
//! names; a rule set that has no clock for an event simply owes nothing for it.
//!
//! An event's kind is an [`EventKind`], which only this vocabulary makes: a name the vocabulary does not
//! hold is no kind (the events file reports the row, a rule set naming it does not load).

use std::fmt;

/// The kind of an event: one name of the vocabulary ([`EVENTS`]), made only here (the constants below, or
/// [`EventKind::named`]), so an event's kind is always one the rule sets may name. It reads as its canonical
/// name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventKind(&'static str);

impl EventKind {
    /// The kind called `name` or one of its aliases (case-insensitive, spaces around aside), when the
    /// vocabulary has one.
    pub fn named(name: &str) -> Option<EventKind> {
        event_kind(name).map(|e| e.kind)
    }

    /// The kind's canonical name, as written in the events file and in rule sets.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl AsRef<str> for EventKind {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// One entry of the vocabulary: a kind of event, its spellings and what it records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventEntry {
    /// The kind, by the name written in the events file and in rule sets.
    pub kind: EventKind,
    /// Other spellings accepted in the events file.
    pub aliases: &'static [&'static str],
    /// What it records, for messages and the README.
    pub meaning: &'static str,
    /// Whether it comes from another file rather than the events file.
    pub derived: bool,
}

const fn event(name: &'static str, meaning: &'static str) -> EventEntry {
    EventEntry { kind: EventKind(name), aliases: &[], meaning, derived: false }
}

const fn derived(kind: EventKind, meaning: &'static str) -> EventEntry {
    EventEntry { kind, aliases: &[], meaning, derived: true }
}

/// The event `inspection`: every row of the inspections file.
pub const INSPECTION: EventKind = EventKind("inspection");
/// The event `failed-inspection`: an inspection that found evidence of failure.
pub const FAILED_INSPECTION: EventKind = EventKind("failed-inspection");
/// The event `not-functioning`: an inspection that found the system not adequately functioning.
pub const NOT_FUNCTIONING: EventKind = EventKind("not-functioning");
/// The event `illegally-installed`: an inspection at which the authority determined the system illegally
/// installed.
pub const ILLEGALLY_INSTALLED: EventKind = EventKind("illegally-installed");
/// The event `pump-out`: every row of the pump-outs file.
pub const PUMP_OUT: EventKind = EventKind("pump-out");

/// The event `repair-order`: a Health Department order to repair a failed system (column `due_date`).
pub const REPAIR_ORDER: EventKind = EventKind("repair-order");
/// The event `hearing-summons`: the Health Department summoned the property to a Board of Health
/// administrative hearing (Art. V §V.G.4).
pub const HEARING_SUMMONS: EventKind = EventKind("hearing-summons");
/// The event `interim-renewal`: an interim permit renewed.
pub const INTERIM_RENEWAL: EventKind = EventKind("interim-renewal");
/// The event `condition-breach`: a permit condition not conformed with.
pub const CONDITION_BREACH: EventKind = EventKind("condition-breach");
/// The event `permit-issued`: a permit issued (column `expires`).
pub const PERMIT_ISSUED: EventKind = EventKind("permit-issued");

/// The event `transfer`: a conveyance of the property (its deed date).
pub const TRANSFER: EventKind = EventKind("transfer");

/// The event `system-installed`: a new system put in service (its construction finished).
pub const SYSTEM_INSTALLED: EventKind = EventKind("system-installed");
/// The event `system-replaced`: an existing system replaced by a new one, put in service.
pub const SYSTEM_REPLACED: EventKind = EventKind("system-replaced");
/// The event `system-abandoned`: a system taken out of service and not replaced (the lot connected to a
/// sewer, the building removed).
pub const SYSTEM_ABANDONED: EventKind = EventKind("system-abandoned");

/// Every event kind, in the order the README lists them.
pub const EVENTS: &[EventEntry] = &[
    EventEntry {
        kind: TRANSFER,
        aliases: &["conveyance", "sale"],
        meaning: "conveyance of the property (deed date); column arms_length",
        derived: false,
    },
    event("refinance", "refinancing for which the lender requires a system inspection"),
    event("change-of-use", "a change of use of the property or building"),
    event("expansion", "a building-permit application for an expansion; column expansion_pct"),
    event("complaint", "a complaint about the system received by the authority"),
    event("observation", "a personal observation of a deficient system by the authority"),
    event("owner-notice", "written notice to the owner and inhabitants that an inspection is required"),
    event("deficiency-notice", "written notice to the owner of a failure or unacceptable condition; column received"),
    event("permit-application", "an application for a wastewater treatment permit; columns flow_gpd, alternative_system, realty_subdivision, doh_facility"),
    event("state-approval", "NYSDOH or NYSDEC approval of the application"),
    event("watershed-inspector-review", "review by the Canandaigua Lake Watershed Inspector"),
    event(PERMIT_ISSUED.0, "a permit issued (a wastewater treatment permit, a permit to discharge); column expires"),
    event("application-denied", "a permit application denied"),
    event("denial-notice", "written notice of denial with the reasons sent to the applicant"),
    event("appeal-received", "a written appeal received by the Clerk"),
    event("hearing-notice", "notice of the public hearing on an appeal given"),
    event("hearing-held", "a session of the public hearing on an appeal held"),
    event("hearing-continued", "the public hearing adjourned to a later session, not finally"),
    event("hearing-adjourned", "final adjournment of the public hearing on an appeal"),
    event("appeal-decision", "the written decision on an appeal"),
    event("violation-notice", "notice of a violation served on the person in violation"),
    event("violation-corrected", "the violation ended"),
    event(SYSTEM_INSTALLED.0, "a new wastewater treatment system put in service (construction finished)"),
    event(SYSTEM_REPLACED.0, "an existing system replaced by a new one, put in service; columns system_id (the new system), replaces (the old)"),
    event(SYSTEM_ABANDONED.0, "a system taken out of service and not replaced; column system_id"),
    event("plan-accepted", "the Health Department reviewed and accepted the plans (Art. V §VII.A.1)"),
    event("construction-permit", "a permit for the construction of a new or modified system issued (Art. V §III.B, §XIII.1)"),
    event(REPAIR_ORDER.0, "a Health Department order to repair a failed system; column due_date"),
    event(
        HEARING_SUMMONS.0,
        "the Health Department summoned the property to a Board of Health administrative hearing (§V.G.4)",
    ),
    event(INTERIM_RENEWAL.0, "an interim permit to discharge renewed"),
    event(CONDITION_BREACH.0, "a condition of a permit to discharge not conformed with"),
    derived(INSPECTION, "a row of the inspections file"),
    derived(FAILED_INSPECTION, "an inspection that found evidence of failure (failure = yes)"),
    derived(NOT_FUNCTIONING, "an inspection that found the system not adequately functioning (adequately_functioning = no)"),
    derived(ILLEGALLY_INSTALLED, "an inspection at which the system was determined illegally installed (illegally_installed = yes)"),
    derived(PUMP_OUT, "a row of the pump-outs file"),
];

/// The event kind called `name` or one of its aliases (case-insensitive).
pub fn event_kind(name: &str) -> Option<&'static EventEntry> {
    let name = name.trim();
    EVENTS.iter().find(|e| {
        e.kind.0.eq_ignore_ascii_case(name) || e.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    })
}

/// The names of the events an events file may hold, comma-separated, for messages.
pub fn file_event_names() -> String {
    EVENTS.iter().filter(|e| !e.derived).map(|e| e.kind.as_str()).collect::<Vec<_>>().join(", ")
}

/// The optional columns of the events file that conditions may test, with their kind.
pub const EVENT_COLUMNS: &[(&str, ColumnKind)] = &[
    ("arms_length", ColumnKind::YesNo),
    ("expansion_pct", ColumnKind::Number),
    ("flow_gpd", ColumnKind::Number),
    ("alternative_system", ColumnKind::YesNo),
    ("realty_subdivision", ColumnKind::YesNo),
    ("doh_facility", ColumnKind::YesNo),
    ("due_date", ColumnKind::Date),
    ("received", ColumnKind::Date),
    ("expires", ColumnKind::Date),
];

/// What an event column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// yes/no (also true/false, y/n, 1/0).
    YesNo,
    /// A number.
    Number,
    /// A date YYYY-MM-DD.
    Date,
}

/// The kind of the event column `name`, if it is one.
pub fn event_column(name: &str) -> Option<ColumnKind> {
    EVENT_COLUMNS.iter().find(|(n, _)| *n == name).map(|&(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_unique() {
        let mut all: Vec<String> = EVENTS
            .iter()
            .flat_map(|e| std::iter::once(e.kind.as_str()).chain(e.aliases.iter().copied()))
            .map(str::to_ascii_lowercase)
            .collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
    }

    #[test]
    fn aliases_find_their_event() {
        assert_eq!(EventKind::named(" Conveyance ").map(EventKind::as_str), Some("transfer"));
        assert_eq!(event_kind("COMPLAINT").map(|e| e.kind.as_str()), Some("complaint"));
        assert!(EventKind::named("alien-landing").is_none());
        assert!(!file_event_names().contains(PUMP_OUT.as_str()));
        // A kind reads as its name, and the constants are the vocabulary's own.
        assert_eq!(
            (SYSTEM_REPLACED.to_string(), EventKind::named("system-replaced")),
            ("system-replaced".into(), Some(SYSTEM_REPLACED))
        );
    }

    /// Every kind the code names is an entry of the vocabulary, so no event's kind is outside it.
    #[test]
    fn the_constants_are_entries_of_the_vocabulary() {
        for kind in [
            INSPECTION,
            FAILED_INSPECTION,
            NOT_FUNCTIONING,
            ILLEGALLY_INSTALLED,
            PUMP_OUT,
            REPAIR_ORDER,
            HEARING_SUMMONS,
            INTERIM_RENEWAL,
            CONDITION_BREACH,
            PERMIT_ISSUED,
            SYSTEM_INSTALLED,
            SYSTEM_REPLACED,
            SYSTEM_ABANDONED,
        ] {
            assert_eq!(EventKind::named(kind.as_str()), Some(kind), "{kind}");
        }
    }
}
