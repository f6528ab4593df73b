//! Tests of the notices: which obligations are noticed for a year, and how they are grouped into letters.

use super::*;
use chrono::NaiveDate;
use std::borrow::Cow;

fn date(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

fn obligation(parcel: usize, kind: ObligationKind, who: &'static str, due: Option<&str>) -> Obligation {
    let due = due.map(date);
    Obligation {
        parcel,
        kind,
        what: Cow::Borrowed("something"),
        who: crate::rules::Party::named(who),
        trigger: crate::law::obligations::Trigger::Schedule,
        since: None,
        due,
        overdue: due.is_some_and(|d| d < date("2027-01-15")),
        corrected: None,
        detail: None,
        citation: crate::rules::Text::new("§1"),
        source: None,
    }
}

/// A parcel at position `at` owned by `owner` with the mailing street `street` in Auburn.
fn parcel_row(at: usize, owner: &str, street: &str) -> Row {
    let mailing = crate::classify::parcels::MailingAddress {
        street: Some(street.into()),
        city: Some("Auburn".into()),
        state: Some("NY".into()),
        zip: Some("13021".into()),
    };
    Row {
        at,
        parcel: ParcelRecord {
            id: format!("050100-1.00-1-{at}").as_str().into(),
            record: at + 1,
            owner: Some(owner.into()),
            mailing: Some(Box::new(mailing)),
            ..ParcelRecord::empty()
        },
        facts: None,
        entry: crate::law::schedule::Entry {
            tier: crate::law::schedule::Tier::Rule(crate::rules::Text::new("county")),
            ..crate::law::schedule::Entry::unscheduled(None, crate::rules::Text::default(), None)
        },
        systems: Vec::new(),
    }
}

/// What the notices of 2027 keep of `rows` (never sold, no system) and their `obligations`.
fn noticed_of(rules: &RuleSet, rows: &[Row], obligations: &[Obligation]) -> Noticed {
    let parcels = rows.iter().filter_map(|row| {
        let of = obligations.iter().filter(|o| o.parcel == row.at);
        NoticedParcel::of(rules, row, (None, None), of, 2027, true)
    });
    Noticed { parcels: parcels.collect() }
}

/// One letter per owner: two unrelated owners at one mailing address get a letter each, addressed to each
/// alone; one owner whose name the assessor writes "LAST FIRST" and the clerk "Last, First", at one address
/// written two ways, gets one letter for both parcels.
#[test]
fn letters_go_to_each_owner_at_an_address() {
    let rules = RuleSet::cayuga_art_v();
    let rows = [
        parcel_row(0, "ZIMMERMAN-LEE JAMES", "12 N Lake St"),
        parcel_row(1, "OKONJO JOHN", "12 North Lake Street"),
        parcel_row(2, "MARSH-TILLEY GRACE", "40 Elm St"),
        parcel_row(3, "Marsh-Tilley, Grace", "40 ELM STREET"),
    ];
    let list: Vec<Obligation> = (0..4)
        .map(|i| obligation(i, ObligationKind::PERIODIC_INSPECTION, "owner", Some("2027-11-01")))
        .collect();
    let noticed = noticed_of(&rules, &rows, &list);
    let notices = Notices::new(&std::sync::Arc::new(rules), noticed, 2027, date("2027-01-15"), None).unwrap();
    let letters: Vec<(&str, Option<String>, Vec<&str>)> = notices
        .batch
        .letters
        .iter()
        .map(|l| (l.number.as_str(), l.owner.clone(), table::parcel_ids(l)))
        .collect();
    // In bulk-mail order (one ZIP code: by address, then owner), numbered in that order.
    assert_eq!(
        letters,
        [
            ("2027-000001", Some("ZIMMERMAN-LEE JAMES".into()), vec!["050100-1.00-1-0"]),
            ("2027-000002", Some("OKONJO JOHN".into()), vec!["050100-1.00-1-1"]),
            ("2027-000003", Some("MARSH-TILLEY GRACE".into()), vec!["050100-1.00-1-2", "050100-1.00-1-3"]),
        ]
    );
}

fn gorham() -> RuleSet {
    RuleSet::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/rules/gorham-ch56.toml"))
        .unwrap()
}

#[test]
fn notices_go_to_owners_with_dated_obligations_due_by_the_end_of_the_year() {
    let rules = RuleSet::cayuga_art_v();
    let list = [
        obligation(0, ObligationKind::PERIODIC_INSPECTION, "owner", Some("2027-11-01")), // due within the year
        obligation(1, ObligationKind::PERIODIC_INSPECTION, "owner", Some("2020-11-01")), // overdue and still open
        obligation(2, ObligationKind::PERIODIC_INSPECTION, "owner", Some("2028-11-01")), // next year: no
        obligation(3, ObligationKind::INTERIM_RENEWAL, "owner", Some("2027-12-31")), // last day of the year
        obligation(4, ObligationKind::INTERIM_RENEWAL, "owner", Some("2028-01-01")), // a day too late
        obligation(
            5,
            ObligationKind::clock(crate::rules::Text::new("transfer-inspection")),
            "owner",
            Some("2026-10-15"),
        ), // event-driven, overdue
        obligation(6, ObligationKind::clock(crate::rules::Text::new("refinance-report")), "owner", None), // no time set: no
        obligation(
            7,
            ObligationKind::clock(crate::rules::Text::new("inspection-report")),
            "inspector R. Okafor",
            Some("2027-02-19"),
        ), // not the owner's
        obligation(
            8,
            ObligationKind::clock(crate::rules::Text::new("repair-order")),
            "health department",
            None,
        ),
        obligation(
            9,
            ObligationKind::clock(crate::rules::Text::new("pipe-retest")),
            "owner",
            Some("2027-01-19"),
        ),
    ];
    let parcels: Vec<usize> = select(&list, &rules, 2027).iter().map(|o| o.parcel).collect();
    assert_eq!(parcels, [0, 1, 3, 5, 9]);
}

/// Art. V §V.B "a term of up to five years": the term is the Health Department's to set, so a term not
/// yet set is never mailed, even if a date were attached; nor is a transfer pump-out done late (§IV.B.1),
/// which is a record of the breach, not a duty still owed.
#[test]
fn staff_terms_and_corrected_breaches_are_not_mailed() {
    let rules = RuleSet::cayuga_art_v();
    let late = Obligation {
        corrected: Some(date("2026-10-20")),
        overdue: false,
        ..obligation(
            1,
            ObligationKind::clock(crate::rules::Text::new("transfer-pump-out")),
            "owner",
            Some("2026-10-15"),
        )
    };
    let list = [
        obligation(0, ObligationKind::PERMIT_TERM, "owner", Some("2027-06-15")),
        late,
        obligation(
            2,
            ObligationKind::clock(crate::rules::Text::new("transfer-pump-out")),
            "owner",
            Some("2026-10-15"),
        ),
    ];
    let parcels: Vec<usize> = select(&list, &rules, 2027).iter().map(|o| o.parcel).collect();
    assert_eq!(parcels, [2]);
}

#[test]
fn a_lapsing_right_is_not_noticed_but_a_duty_of_the_same_parcel_is() {
    let rules = gorham();
    let list = [
        obligation(
            0,
            ObligationKind::clock(crate::rules::Text::new("appeal-window")),
            "owner",
            Some("2027-02-10"),
        ),
        obligation(
            0,
            ObligationKind::clock(crate::rules::Text::new("deficiency-permit")),
            "owner",
            Some("2027-02-10"),
        ),
        obligation(
            1,
            ObligationKind::clock(crate::rules::Text::new("complaint-notice")),
            "authority",
            Some("2027-01-20"),
        ),
    ];
    let chosen: Vec<(usize, &str)> =
        select(&list, &rules, 2027).iter().map(|o| (o.parcel, o.kind.as_str())).collect();
    assert_eq!(chosen, [(0, "deficiency-permit")]);
}

#[test]
fn a_parcels_obligations_stand_together_in_due_order() {
    let rules = RuleSet::cayuga_art_v();
    let list = [
        obligation(2, ObligationKind::PERIODIC_INSPECTION, "owner", Some("2027-11-01")),
        obligation(
            1,
            ObligationKind::clock(crate::rules::Text::new("transfer-inspection")),
            "owner",
            Some("2026-10-15"),
        ),
        obligation(
            2,
            ObligationKind::clock(crate::rules::Text::new("transfer-inspection")),
            "owner",
            Some("2026-12-01"),
        ),
        obligation(1, ObligationKind::PERIODIC_INSPECTION, "owner", Some("2027-11-01")),
    ];
    let chosen: Vec<(usize, &str)> =
        select(&list, &rules, 2027).iter().map(|o| (o.parcel, o.kind.as_str())).collect();
    assert_eq!(
        chosen,
        [
            (1, "transfer-inspection"),
            (1, "periodic-inspection"),
            (2, "transfer-inspection"),
            (2, "periodic-inspection")
        ]
    );
}

#[test]
fn the_city_line_uses_the_parts_there_are() {
    let mut a = Address {
        owner: None,
        street: "PO Box 101",
        city: Some("Scranton"),
        state: Some("PA"),
        zip: Some("18503"),
    };
    assert_eq!(a.city_line(), "Scranton, PA 18503");
    a.zip = None;
    assert_eq!(a.city_line(), "Scranton, PA");
    a.state = None;
    assert_eq!(a.city_line(), "Scranton");
    a.city = None;
    assert_eq!(a.city_line(), "");
}

/// A letter the post returned is no notice: the owner's duties at that address go to staff, and once the
/// parcel layer gives the owner a new address, the duty is mailed there from its first notice.
#[test]
fn a_returned_address_is_left_to_staff_until_the_parcel_layer_gives_a_new_one() {
    let rules = std::sync::Arc::new(RuleSet::cayuga_art_v());
    let dir = crate::scratch::root().join("notices-returned");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut store = Store::open(&dir.join("program.sqlite")).unwrap();
    let noticed = |street: &str| {
        let duty = obligation(0, ObligationKind::PERIODIC_INSPECTION, "owner", Some("2027-11-01"));
        noticed_of(&rules, &[parcel_row(0, "SMITH JOHN", street)], &[duty])
    };
    // January: the first notice, issued; February: it comes back.
    let january =
        Notices::new(&rules, noticed("12 Lake Rd"), 2027, date("2027-01-15"), Some(&store)).unwrap();
    let number = january.batch.letters[0].number.clone();
    let (id, _) = store.record_pending(&january.batch, "out".as_ref(), "x").unwrap();
    store.mark_issued(id).unwrap();
    let returned = [(number.clone(), date("2027-02-01"))];
    store.mark(crate::program::mail::Mail::Returned, &returned, date("2027-02-03")).unwrap();
    // December, the same address: nothing mailed, the duty left to staff with why.
    let same = Notices::new(&rules, noticed("12 Lake Road"), 2027, date("2027-12-15"), Some(&store)).unwrap();
    assert_eq!(same.letter_count(), 0);
    assert_eq!(same.cannot_mail().len(), 1);
    assert!(same.cannot_mail()[0]
        .because
        .contains(&format!("came back undeliverable on 2027-02-01 (letter {number})")));
    // A new address in the parcel layer: mailed again, at the first notice (the returned one was none).
    let moved = Notices::new(&rules, noticed("40 Elm St"), 2027, date("2027-12-15"), Some(&store)).unwrap();
    assert_eq!(moved.letter_count(), 1);
    assert_eq!(moved.batch.letters[0].stage, Stage::First);
    assert_eq!(moved.batch.letters[0].street, "40 Elm St");
    assert_eq!(moved.batch.letters[0].number, "2027-000002");
}
