//! The office on a letter: the values of the `office_*` placeholders from the config's `[office]`, and
//! whether a run would print a letter owners cannot answer ([`contact_problem`]): a fictional 555-01xx
//! telephone number, in the template's own text or in the config, or no way to reach the office at all.

use crate::pipeline::config::Office;

/// Placeholders of the office, usable anywhere in a template, each the `[office]` key after `office_`, and
/// two made of them: `office_contact`, the letterhead's line (telephone, email, website and hours that are
/// set, joined by " · "), and `office_reach`, how to reach the office in words ("call (315) 253-1405").
pub const OFFICE_FIELDS: &[&str] = &[
    "office_name",
    "office_division",
    "office_street",
    "office_city_line",
    "office_telephone",
    "office_email",
    "office_website",
    "office_hours",
    "office_signature",
    "office_title",
    "office_contact",
    "office_reach",
];

/// The placeholders that put a way to reach the office on a letter.
const CONTACT_FIELDS: &[&str] =
    &["office_telephone", "office_email", "office_website", "office_contact", "office_reach"];

/// The values of [`OFFICE_FIELDS`] for `office`, in order; `jurisdiction` stands for an office with no name.
pub fn office_values(office: &Office, jurisdiction: &str) -> Vec<String> {
    let get = |key: &str| office.get(key).unwrap_or_default().to_string();
    let mut values: Vec<String> = OFFICE_FIELDS[..10].iter().map(|f| get(&f["office_".len()..])).collect();
    if values[0].is_empty() {
        values[0] = jurisdiction.to_string();
    }
    let mut contact = Vec::new();
    if let Some(telephone) = office.get("telephone") {
        contact.push(format!("Telephone {telephone}"));
    }
    contact.extend(["email", "website", "hours"].iter().filter_map(|k| office.get(k)).map(str::to_string));
    values.push(contact.join(" \u{b7} "));
    values.push(reach(office));
    values
}

/// How to reach `office` in words, for "If you have questions, ...": "call (315) 253-1405", "write to
/// x@y.gov", "visit www.y.gov", joined by "or"; "write to us at the address above" when it gives none.
pub fn reach(office: &Office) -> String {
    let ways: Vec<String> = [("telephone", "call"), ("email", "write to"), ("website", "visit")]
        .iter()
        .filter_map(|(key, verb)| office.get(key).map(|v| format!("{verb} {v}")))
        .collect();
    if ways.is_empty() {
        return "write to us at the address above".to_string();
    }
    ways.join(" or ")
}

/// Where `text` holds a fictional telephone number (555-0100 to 555-0199, which North American numbering
/// keeps for fiction), written with a hyphen, a dot, a space or nothing between its parts: the number found.
pub fn fictional_number(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find_map(|at| {
        let rest = &bytes[at..];
        if !rest.starts_with(b"555") || (at > 0 && bytes[at - 1].is_ascii_digit()) {
            return None;
        }
        let gap = usize::from(matches!(rest.get(3), Some(b'-' | b'.' | b' ')));
        let digits = rest.get(3 + gap..7 + gap)?;
        let after = rest.get(7 + gap).is_some_and(u8::is_ascii_digit);
        (digits.starts_with(b"01") && digits.iter().all(u8::is_ascii_digit) && !after)
            .then(|| &text[at..at + 7 + gap])
    })
}

/// Whether `text` holds a telephone number of its own: ten digits grouped like `(315) 253-1405`,
/// `315-253-1405` or `315.253.1405`, not a fictional one.
fn real_number(text: &str) -> bool {
    let digits: Vec<(usize, u8)> = text.bytes().enumerate().filter(|(_, b)| b.is_ascii_digit()).collect();
    digits.windows(10).any(|w| {
        // Ten digits close together (separators between the groups only) make a number.
        let span = w[9].0 - w[0].0;
        let run = &text[w[0].0..=w[9].0];
        (10..=14).contains(&(span + 1))
            && run.bytes().all(|b| b.is_ascii_digit() || b" ()-.".contains(&b))
            && fictional_number(run).is_none()
    })
}

/// `template` without its HTML comments (`<!-- ... -->`), which no letter prints.
fn printed(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("<!--") {
        out.push_str(&rest[..open]);
        rest = rest[open..].find("-->").map_or("", |close| &rest[open + close + 3..]);
    }
    out.push_str(rest);
    out
}

/// Whether a run printing letters from `template` (the template's text) with the config's `office` would
/// print a placeholder contact or none: the problem in a sentence naming what to change, or `None`. Only
/// what a letter prints counts: the template's HTML comments are left out.
///
/// - a fictional 555-01xx number in the template's own text, or in `[office] telephone`, is a problem;
/// - otherwise the letters need a way to reach the office: the template's own telephone number, or
///   office placeholders filled from `[office]` with a return address (`street` and `city_line`) and a
///   telephone, an email or a website.
pub fn contact_problem(template: &str, office: &Office) -> Option<String> {
    let template = &printed(template);
    if let Some(number) = fictional_number(template) {
        return Some(format!(
            "the letter template prints the fictional telephone number {number}: replace it with {{{{office_telephone}}}} and set [office] telephone in the config"
        ));
    }
    if let Some(number) = office.get("telephone").and_then(fictional_number) {
        return Some(format!(
            "[office] telephone = \"{number}\" is a fictional number: set [office] telephone in the config to the number owners call"
        ));
    }
    if real_number(template) {
        return None;
    }
    let uses = |field: &str| template.contains(field);
    if !CONTACT_FIELDS.iter().any(|f| uses(f)) {
        return Some(
            "the letter template prints no way to reach the office: add {{office_contact}} to it and set [office] telephone in the config".to_string(),
        );
    }
    let missing: Vec<&str> =
        ["street", "city_line"].into_iter().filter(|k| office.get(k).is_none()).collect();
    let reachable = ["telephone", "email", "website"].iter().any(|k| office.get(k).is_some());
    match (missing.is_empty(), reachable) {
        (true, true) => None,
        (_, false) => Some(
            "the letters print no way to reach the office: set [office] telephone (or email, or website) in the config"
                .to_string(),
        ),
        (false, true) => Some(format!(
            "the letters print no return address: set [office] {} in the config",
            missing.join(" and ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn office(pairs: &[(&str, &str)]) -> Office {
        let text: String = pairs.iter().map(|(k, v)| format!("{k} = \"{v}\"\n")).collect();
        toml::from_str(&text).unwrap()
    }

    const USES_OFFICE: &str = "<p>{{office_street}}, {{office_city_line}}. Questions: {{office_reach}}.</p>";

    #[test]
    fn fictional_numbers_are_found_however_written() {
        assert_eq!(fictional_number("call (315) 555-0100 today"), Some("555-0100"));
        assert_eq!(fictional_number("315.555.0199"), Some("555.0199"));
        assert_eq!(fictional_number("5550142"), Some("5550142"));
        // 555-0200 and 555-1234 are not the fictional range; 1555-0100 is not 555.
        assert_eq!(fictional_number("(315) 555-0200"), None);
        assert_eq!(fictional_number("555-1234"), None);
        assert_eq!(fictional_number("1555-0100"), None);
        assert_eq!(fictional_number("555-01000"), None);
    }

    #[test]
    fn the_old_builtin_letter_is_a_problem_naming_the_number() {
        let old = "<div>Telephone (315) 555-0100 &middot; Monday to Friday</div>";
        let full = office(&[
            ("street", "8 Dill Street"),
            ("city_line", "Auburn, NY 13021"),
            ("telephone", "(315) 253-1405"),
        ]);
        let problem = contact_problem(old, &full).unwrap();
        assert!(problem.contains("555-0100") && problem.contains("[office] telephone"), "{problem}");
    }

    #[test]
    fn a_fictional_number_in_the_config_is_a_problem() {
        let fake = office(&[
            ("street", "1 Main St"),
            ("city_line", "Auburn, NY 13021"),
            ("telephone", "315-555-0123"),
        ]);
        let problem = contact_problem(USES_OFFICE, &fake).unwrap();
        assert!(problem.contains("[office] telephone") && problem.contains("555-0123"), "{problem}");
    }

    #[test]
    fn an_address_and_one_way_to_reach_the_office_are_enough() {
        let address = [("street", "PO Box 224"), ("city_line", "Gorham, NY 14461")];
        for way in
            [("telephone", "(585) 526-6317"), ("email", "code@town.example"), ("website", "www.town.example")]
        {
            let mut pairs = address.to_vec();
            pairs.push(way);
            assert_eq!(contact_problem(USES_OFFICE, &office(&pairs)), None, "{way:?}");
        }
    }

    #[test]
    fn no_contact_or_no_address_is_a_problem_naming_the_keys() {
        let none = contact_problem(USES_OFFICE, &Office::default()).unwrap();
        assert!(none.contains("[office] telephone (or email, or website)"), "{none}");
        let blank = office(&[("street", " "), ("city_line", ""), ("telephone", "(315) 253-1405")]);
        let no_address = contact_problem(USES_OFFICE, &blank).unwrap();
        assert!(no_address.contains("[office] street and city_line"), "{no_address}");
        // A template with no office placeholder and no number of its own prints no contact, whatever the config.
        let full = office(&[
            ("street", "8 Dill Street"),
            ("city_line", "Auburn, NY 13021"),
            ("telephone", "(315) 253-1405"),
        ]);
        let bare = contact_problem("<p>Dear owner</p>", &full).unwrap();
        assert!(bare.contains("{{office_contact}}"), "{bare}");
    }

    #[test]
    fn a_template_with_its_own_real_number_needs_no_office() {
        assert_eq!(contact_problem("<p>Call (315) 253-1405.</p>", &Office::default()), None);
        assert_eq!(contact_problem("<p>Call 585.526.6317.</p>", &Office::default()), None);
        // A number in a comment is not printed: it neither reaches the office nor is a problem.
        let commented = "<!-- e.g. (315) 253-1405 or 555-0100 --><p>{{office_reach}}</p>";
        let problem = contact_problem(commented, &Office::default()).unwrap();
        assert!(problem.contains("[office] telephone (or email, or website)"), "{problem}");
    }

    #[test]
    fn the_builtin_template_prints_the_office_and_no_number_of_its_own() {
        let builtin = crate::report::letters::BUILTIN_TEMPLATE;
        assert_eq!(fictional_number(&printed(builtin)), None);
        assert!(!real_number(&printed(builtin)));
        let full = office(&[
            ("street", "8 Dill Street"),
            ("city_line", "Auburn, NY 13021"),
            ("telephone", "(315) 253-1405"),
        ]);
        assert_eq!(contact_problem(builtin, &full), None);
        assert!(contact_problem(builtin, &Office::default()).is_some());
    }

    #[test]
    fn the_office_values_follow_the_fields() {
        let o = office(&[
            ("division", "Code Enforcement"),
            ("telephone", "(585) 526-6317"),
            ("hours", "Mon 7-3"),
        ]);
        let values = office_values(&o, "Town of Gorham");
        assert_eq!(values.len(), OFFICE_FIELDS.len());
        let at = |f: &str| values[OFFICE_FIELDS.iter().position(|x| *x == f).unwrap()].as_str();
        assert_eq!(at("office_name"), "Town of Gorham"); // none given: the jurisdiction's name
        assert_eq!(at("office_division"), "Code Enforcement");
        assert_eq!(at("office_email"), "");
        assert_eq!(at("office_contact"), "Telephone (585) 526-6317 \u{b7} Mon 7-3");
        assert_eq!(at("office_reach"), "call (585) 526-6317");
        let both = office(&[("telephone", "1"), ("email", "a@b.c")]);
        assert_eq!(reach(&both), "call 1 or write to a@b.c");
        assert_eq!(reach(&Office::default()), "write to us at the address above");
    }
}
