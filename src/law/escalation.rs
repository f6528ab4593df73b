//! What the notices of one duty call for on a day: its first notice, the next stage of a chain left
//! unanswered (reminder, final notice, referral for enforcement), or nothing yet.
//!
//! A chain is the notices issued for one duty of one parcel (a periodic inspection by its due date, an event's
//! duty by its kind and due date). Only notices that reached the owner the duty now falls on count:
//!
//! - a notice returned undeliverable is no notice;
//! - a sale restarts the chain: notices issued before the last transfer on record, or to another owner than
//!   the parcel layer now names, were notices to someone else, and the new owner is noticed from `first`.
//!
//! The next stage comes `after_days` (the rule set's `[notices]`, the law's interval or the county's
//! practice) after the one before reached the owner: its return receipt's date, or the mailing date plus the
//! days the rule set allows for mailing. The reminder waits for the due date as well. Duties the rule set sends
//! straight to enforcement (`[[notices.direct]]`, a repair order under §V.G.4) go from the first notice to the
//! referral once their own time has run. An inspection or event on record that answers the duty ends the chain
//! at whatever stage: the duty is then no longer open, and nothing here is asked of it.

use chrono::{Days, NaiveDate};

use crate::law::obligations::ObligationKind;
use crate::rules::notices::{NoticeRules, Stage};

/// A notice issued for a duty, as the program store recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issued {
    /// The stage it was issued at.
    pub stage: Stage,
    /// Its letter number.
    pub letter: String,
    /// The day it was issued.
    pub issued: NaiveDate,
    /// The day a return receipt or a signature says it was received.
    pub received: Option<NaiveDate>,
    /// The day it came back undeliverable.
    pub returned: Option<NaiveDate>,
    /// The owner it went to, normalised (case, punctuation, name order aside).
    pub owner: String,
}

/// What a duty's notices call for on a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// A notice at this stage is due now.
    Notice(Stage),
    /// Noticed at `stage` (letter `letter` of `issued`), and nothing more is due yet: the next stage comes on
    /// `next`, or never after a referral.
    Waiting {
        /// The last stage that reached the owner.
        stage: Stage,
        /// Its letter number.
        letter: String,
        /// The day it was issued.
        issued: NaiveDate,
        /// The day the next stage falls due, the duty still unanswered.
        next: Option<NaiveDate>,
    },
}

/// The duty being noticed: its kind, due date, and the parcel's owner and last sale.
#[derive(Debug, Clone, Copy)]
pub struct Duty<'a> {
    /// The obligation's kind, as the `obligation` column writes it.
    pub kind: &'a str,
    /// Its due date.
    pub due: NaiveDate,
    /// The owner the parcel layer now names, normalised as [`Issued::owner`].
    pub owner: &'a str,
    /// The last transfer of the parcel on record.
    pub sold: Option<NaiveDate>,
}

/// The day notice `n` is taken to have reached the owner: its receipt, or its mailing plus `mailing_days`.
pub fn reached(n: &Issued, mailing_days: u32) -> NaiveDate {
    n.received
        .unwrap_or_else(|| n.issued.checked_add_days(Days::new(u64::from(mailing_days))).unwrap_or(n.issued))
}

/// Whether notice `n` counts for `duty`: not returned, issued to the owner it now falls on, since the last
/// sale.
pub fn counts(n: &Issued, duty: &Duty<'_>) -> bool {
    n.returned.is_none() && n.owner == duty.owner && duty.sold.is_none_or(|sold| n.issued >= sold)
}

/// The notices of a parcel's `history` (each with its duty's kind and due date) that are of the chain of a duty
/// of `kind` due `due`: the notices of its kind and due date.
///
/// The periodic inspection left unanswered stays one chain as the next date of its grid passes: while it is
/// `overdue`, its chain also holds the notices of its kind for earlier due dates issued after the last
/// inspection on record (`answered`), which would have ended it. (An inspection answers the due date it was
/// made for, which may be a day after the grid's date where a deadline rolled to a business day, so an
/// inspection ends only the chains of the notices issued before it.)
pub fn chain(
    kind: ObligationKind,
    due: NaiveDate,
    overdue: bool,
    answered: Option<NaiveDate>,
    history: &[(String, NaiveDate, Issued)],
) -> Vec<Issued> {
    let spans = overdue && kind == ObligationKind::PERIODIC_INSPECTION;
    history
        .iter()
        .filter(|(k, d, n)| {
            k == kind.as_str() && (*d == due || (spans && *d < due && answered.is_none_or(|a| n.issued > a)))
        })
        .map(|(_, _, n)| n.clone())
        .collect()
}

/// What the notices `history` of `duty` (in any order) call for on `as_of`, under `rules` (`None`: first
/// notices only, the rule set naming no stage after it).
pub fn next(rules: Option<&NoticeRules>, duty: &Duty<'_>, history: &[Issued], as_of: NaiveDate) -> Next {
    let last = history.iter().filter(|n| counts(n, duty)).max_by_key(|n| (n.stage, n.issued));
    let Some(last) = last else { return Next::Notice(Stage::First) };
    let waiting = |next: Option<NaiveDate>| Next::Waiting {
        stage: last.stage,
        letter: last.letter.clone(),
        issued: last.issued,
        next,
    };
    let Some(rules) = rules else { return waiting(None) };
    let (stage, after) = match (last.stage, rules.direct_for(duty.kind)) {
        (Stage::Referral, _) => return waiting(None),
        (Stage::First, Some(direct)) => (Stage::Referral, direct.after_days),
        (Stage::First, None) => (Stage::Reminder, rules.reminder.after_days),
        (Stage::Reminder, _) => (Stage::Final, rules.final_notice.after_days),
        (Stage::Final, _) => (Stage::Referral, rules.referral.after_days),
    };
    let mut from = reached(last, rules.mailing_days);
    // Nothing is late before its due date: the first step after the first notice waits for it too.
    if last.stage == Stage::First {
        from = from.max(duty.due);
    }
    let on = from.checked_add_days(Days::new(u64::from(after))).unwrap_or(from);
    if as_of >= on && as_of > duty.due {
        Next::Notice(stage)
    } else {
        waiting(Some(on))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    fn d(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn issued(stage: Stage, on: &str) -> Issued {
        Issued {
            stage,
            letter: format!("{}-000001", &on[..4]),
            issued: d(on),
            received: None,
            returned: None,
            owner: "SMITH JOHN".into(),
        }
    }

    const DUTY: Duty<'static> = Duty {
        kind: "periodic-inspection",
        due: NaiveDate::from_ymd_opt(2027, 11, 1).unwrap(),
        owner: "SMITH JOHN",
        sold: None,
    };

    /// Cayuga's `[notices]`: reminder 30 days after the due date (the first notice having reached the owner by
    /// then), final 30 days after the reminder reached the owner, referral 30 days after the final; 5 days
    /// for mailing.
    #[test]
    fn an_unanswered_duty_climbs_the_stages_at_the_rule_sets_intervals() {
        let rules = RuleSet::cayuga_art_v();
        let rules = rules.notices.as_ref();
        assert_eq!(next(rules, &DUTY, &[], d("2027-01-15")), Next::Notice(Stage::First));
        let first = issued(Stage::First, "2027-01-15");
        // Due 2027-11-01; reached the owner 01-20; the reminder comes 30 days after the due date: 12-01.
        let waiting = next(rules, &DUTY, std::slice::from_ref(&first), d("2027-11-30"));
        assert!(
            matches!(waiting, Next::Waiting { stage: Stage::First, next: Some(n), .. } if n == d("2027-12-01"))
        );
        assert_eq!(
            next(rules, &DUTY, std::slice::from_ref(&first), d("2027-12-01")),
            Next::Notice(Stage::Reminder)
        );
        // The reminder mailed 12-01 reaches the owner 12-06; the final notice 30 days later: 2028-01-05.
        let reminder = issued(Stage::Reminder, "2027-12-01");
        let both = [first.clone(), reminder];
        assert!(
            matches!(next(rules, &DUTY, &both, d("2028-01-04")), Next::Waiting { next: Some(n), .. } if n == d("2028-01-05"))
        );
        assert_eq!(next(rules, &DUTY, &both, d("2028-01-05")), Next::Notice(Stage::Final));
        // The final notice's return receipt is signed 01-09: the referral comes 30 days after, 02-08.
        let mut last = issued(Stage::Final, "2028-01-05");
        last.received = Some(d("2028-01-09"));
        let three = [both[0].clone(), both[1].clone(), last];
        assert_eq!(
            next(rules, &DUTY, &three, d("2028-02-07")).clone(),
            Next::Waiting {
                stage: Stage::Final,
                letter: "2028-000001".into(),
                issued: d("2028-01-05"),
                next: Some(d("2028-02-08")),
            }
        );
        assert_eq!(next(rules, &DUTY, &three, d("2028-02-08")), Next::Notice(Stage::Referral));
        let mut four = three.to_vec();
        four.push(issued(Stage::Referral, "2028-02-08"));
        assert!(matches!(
            next(rules, &DUTY, &four, d("2030-01-01")),
            Next::Waiting { stage: Stage::Referral, next: None, .. }
        ));
    }

    #[test]
    fn a_returned_notice_or_a_sale_is_no_notice_to_the_owner() {
        let rules = RuleSet::cayuga_art_v();
        let rules = rules.notices.as_ref();
        let mut returned = issued(Stage::First, "2027-01-15");
        returned.returned = Some(d("2027-02-01"));
        assert_eq!(next(rules, &DUTY, &[returned], d("2027-12-15")), Next::Notice(Stage::First));
        // Sold 2027-06-30 to a new owner: the old owner's reminder does not carry over.
        let old = [issued(Stage::First, "2027-01-15"), issued(Stage::Reminder, "2027-12-01")];
        let sold = Duty { sold: Some(d("2027-12-10")), ..DUTY };
        assert_eq!(next(rules, &sold, &old, d("2027-12-15")), Next::Notice(Stage::First));
        let renamed = Duty { owner: "DOE JANE", ..DUTY };
        assert_eq!(next(rules, &renamed, &old, d("2027-12-15")), Next::Notice(Stage::First));
    }

    /// §V.G.4: a repair order not carried out within its time goes to a hearing; no reminder between.
    #[test]
    fn a_repair_order_goes_from_its_notice_to_the_hearing() {
        let rules = RuleSet::cayuga_art_v();
        let rules = rules.notices.as_ref();
        let order = Duty { kind: "repair-order", due: d("2027-06-30"), ..DUTY };
        let first = [issued(Stage::First, "2027-03-01")];
        assert!(
            matches!(next(rules, &order, &first, d("2027-06-30")), Next::Waiting { next: Some(n), .. } if n == d("2027-07-01"))
        );
        assert_eq!(next(rules, &order, &first, d("2027-07-01")), Next::Notice(Stage::Referral));
    }

    /// A periodic inspection due 2027-11-01 noticed and never answered (the last inspection 2020-05-01) is
    /// still one chain when 2034-11-01 passes and it stands overdue; inspected 2035-03-01, a notice before it
    /// is of no chain. One not yet overdue starts its own.
    #[test]
    fn an_unanswered_periodic_duty_keeps_its_chain_across_its_grid() {
        let periodic = ObligationKind::PERIODIC_INSPECTION;
        let kind = periodic.as_str().to_string();
        let history = vec![
            (kind.clone(), d("2027-11-01"), issued(Stage::First, "2027-01-15")),
            (kind.clone(), d("2027-11-01"), issued(Stage::Reminder, "2027-12-01")),
            ("transfer-inspection".to_string(), d("2027-11-01"), issued(Stage::First, "2027-06-01")),
        ];
        let found = chain(periodic, d("2034-11-01"), true, Some(d("2020-05-01")), &history);
        assert_eq!(found.iter().map(|n| n.stage).collect::<Vec<_>>(), [Stage::First, Stage::Reminder]);
        assert!(chain(periodic, d("2041-11-01"), true, Some(d("2035-03-01")), &history).is_empty());
        // Answered on time in 2027 (recorded late or not), the 2034 duty is noticed afresh.
        assert!(chain(periodic, d("2034-11-01"), false, Some(d("2027-10-20")), &history).is_empty());
        // Its own due date's notices are its chain whatever came before.
        assert_eq!(chain(periodic, d("2027-11-01"), false, Some(d("2020-05-01")), &history).len(), 2);
        // An event's duty keeps to its own due date.
        let sale = ObligationKind::clock(crate::rules::Text::new("transfer-inspection"));
        assert_eq!(chain(sale, d("2027-11-01"), true, None, &history).len(), 1);
        assert!(chain(sale, d("2028-11-01"), true, None, &history).is_empty());
    }

    #[test]
    fn without_notice_rules_a_duty_is_noticed_once() {
        let first = [issued(Stage::First, "2027-01-15")];
        assert!(matches!(
            next(None, &DUTY, &first, d("2029-01-01")),
            Next::Waiting { stage: Stage::First, next: None, .. }
        ));
    }
}
