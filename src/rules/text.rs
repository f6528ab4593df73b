//! The words of a rule set that outputs quote: rule ids, tier names, citations, clock ids and their duties.
//!
//! A schedule row or an obligation quotes its rule set's words rather than copying them (a million rows, one
//! citation), and the rows, obligations and reports made from a rule set are values of their own, not borrows
//! of it. So these words are interned: each distinct text is stored once for the life of the process, and a
//! [`Text`] is a `&'static str` to it, as cheap to copy as a pointer. A run loads one rule set; a process that
//! loads many keeps each distinct text once, however often it is loaded.

use std::collections::HashSet;
use std::fmt;
use std::ops::Deref;
use std::sync::{Mutex, OnceLock, PoisonError};

use serde::{Deserialize, Deserializer};

/// An interned text of a rule set (see the module documentation). It derefs to `str` and compares, hashes
/// and orders as its text.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(&'static str);

impl Text {
    /// The interned copy of `text`: the one stored already, or a new one.
    pub fn new(text: &str) -> Text {
        static TEXTS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
        let mut texts = TEXTS.get_or_init(Mutex::default).lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&stored) = texts.get(text) {
            return Text(stored);
        }
        let stored: &'static str = Box::leak(text.into());
        texts.insert(stored);
        Text(stored)
    }

    /// A text that lives for the whole program already, not interned: a built-in word.
    pub const fn from_static(text: &'static str) -> Text {
        Text(text)
    }

    /// The text, for as long as the process runs.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|s| Text::new(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_text_is_stored_once() {
        let a = Text::new(&String::from("Art. V §IV.A.1"));
        let b = Text::new(&String::from("Art. V §IV.A.1"));
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert_eq!(a, "Art. V §IV.A.1");
        assert_ne!(Text::new("Art. V §X"), a);
    }

    #[test]
    fn texts_order_as_their_words() {
        let mut texts = [Text::new("watershed"), Text::new("county"), Text::new("lakefront")];
        texts.sort();
        assert_eq!(texts.map(Text::as_str), ["county", "lakefront", "watershed"]);
    }
}
