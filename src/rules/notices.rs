//! What the rule set says of notices to owners and what follows when one goes unanswered (`[notices]`): the
//! stages a duty is noticed at (first notice, reminder, final notice, referral for enforcement), how long each
//! waits after the one before, how each is served, and the clause behind each. Where the law sets an interval
//! or a way of service it is the law's, cited; where it does not, the county's practice, marked `practice`.
//! What the law makes of a duty's notices on a day is `law::escalation`'s.

use serde::Deserialize;

use super::Text;

/// A stage of the notices of one duty, in the order they come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// The first notice of a duty (`first`).
    First,
    /// A reminder of a duty noticed and not answered (`reminder`).
    Reminder,
    /// The final notice before enforcement (`final`).
    Final,
    /// The referral for the enforcement the law provides (`referral`).
    Referral,
}

impl Stage {
    /// Every stage, in order.
    pub const ALL: [Stage; 4] = [Stage::First, Stage::Reminder, Stage::Final, Stage::Referral];

    /// The stage's name, as tables and the program store write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::First => "first",
            Stage::Reminder => "reminder",
            Stage::Final => "final",
            Stage::Referral => "referral",
        }
    }

    /// The stage named `name`.
    pub fn parse(name: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a notice is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Service {
    /// First-class mail (`first-class`).
    FirstClass,
    /// Certified mail, return receipt requested (`certified`).
    Certified,
    /// Delivered in person (`personal`).
    Personal,
}

impl Service {
    /// The way of service's name, as tables and the program store write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Service::FirstClass => "first-class",
            Service::Certified => "certified",
            Service::Personal => "personal",
        }
    }

    /// The way of service named `name`.
    pub fn parse(name: &str) -> Option<Service> {
        [Service::FirstClass, Service::Certified, Service::Personal].into_iter().find(|s| s.as_str() == name)
    }

    /// Words for a letter or a label: "first-class mail", "certified mail, return receipt requested".
    pub fn words(self) -> &'static str {
        match self {
            Service::FirstClass => "first-class mail",
            Service::Certified => "certified mail, return receipt requested",
            Service::Personal => "personal service",
        }
    }
}

/// One stage after the first notice: how long after the notice before it, how it is served, and why.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Days after the notice before it was received (or, for the reminder, after the due date, whichever is
    /// later) that this stage comes, the duty still unanswered.
    pub after_days: u32,
    /// How it is served.
    pub served: Service,
    /// The clause it rests on (for a referral, the enforcement the law provides).
    #[serde(default)]
    pub citation: Text,
    /// Who the referral goes to, in words (a hearing, a court); other stages leave it empty.
    #[serde(default)]
    pub to: Text,
    /// Whether the interval is the county's practice rather than the law's.
    #[serde(default)]
    pub practice: bool,
}

/// Duties the law sends straight from their first notice to enforcement once their own time has run (a
/// repair order not carried out goes to a hearing), with the interval after the due date.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Direct {
    /// The obligation kinds (a clock's id, or a built-in kind such as `repair-order`).
    pub obligations: Vec<String>,
    /// Days after the due date that the referral comes, the duty still unanswered.
    pub after_days: u32,
    /// Who the referral goes to.
    pub to: Text,
    /// How it is served.
    pub served: Service,
    /// The clause.
    pub citation: Text,
}

/// `[notices]`: the stages of the notices of a duty.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoticeRules {
    /// Days a mailed notice is taken to reach the owner where no return receipt or signature dates it.
    #[serde(default = "NoticeRules::default_mailing_days")]
    pub mailing_days: u32,
    /// The first notice: how it is served and its clause.
    pub first: First,
    /// The reminder.
    pub reminder: Step,
    /// The final notice.
    #[serde(rename = "final")]
    pub final_notice: Step,
    /// The referral for enforcement.
    pub referral: Step,
    /// Duties that go straight from the first notice to enforcement.
    #[serde(default, rename = "direct")]
    pub direct: Vec<Direct>,
}

/// The first notice of a duty.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct First {
    /// How it is served.
    pub served: Service,
    /// The clause that makes the notice.
    #[serde(default)]
    pub citation: Text,
}

impl NoticeRules {
    fn default_mailing_days() -> u32 {
        5
    }

    /// The stage after the first notice: its interval, service, clause and addressee.
    pub fn step(&self, stage: Stage) -> Option<&Step> {
        match stage {
            Stage::First => None,
            Stage::Reminder => Some(&self.reminder),
            Stage::Final => Some(&self.final_notice),
            Stage::Referral => Some(&self.referral),
        }
    }

    /// How a notice at `stage` of a duty of kind `kind` is served.
    pub fn served(&self, stage: Stage, kind: &str) -> Service {
        match (stage, self.direct_for(kind)) {
            (Stage::First, _) => self.first.served,
            (Stage::Referral, Some(direct)) => direct.served,
            (stage, _) => self.step(stage).map_or(self.first.served, |s| s.served),
        }
    }

    /// The duties of kind `kind` that go straight to enforcement, when they do.
    pub fn direct_for(&self, kind: &str) -> Option<&Direct> {
        self.direct.iter().find(|d| d.obligations.iter().any(|o| o == kind))
    }

    /// The shortest wait between two stages of a chain (reminder, final notice, referral), days: how often a
    /// department must issue to send each stage on time.
    pub fn shortest_interval(&self) -> u32 {
        let steps = [&self.reminder, &self.final_notice, &self.referral].map(|s| s.after_days);
        steps.into_iter().filter(|d| *d > 0).min().unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_and_services_read_back_their_names() {
        for stage in Stage::ALL {
            assert_eq!(Stage::parse(stage.as_str()), Some(stage));
        }
        assert_eq!(Stage::parse("second"), None);
        for s in [Service::FirstClass, Service::Certified, Service::Personal] {
            assert_eq!(Service::parse(s.as_str()), Some(s));
        }
        assert!(Stage::First < Stage::Reminder && Stage::Final < Stage::Referral);
    }
}
