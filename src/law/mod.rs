//! What the law makes of each parcel: its due dates and status ([`schedule`]), the class and permit of its
//! last inspection ([`permit`]), and every duty it owes from the record files, with its clock
//! ([`obligations`]). Each takes the facts and the rule set and returns verdicts; none reads a file.

pub mod obligations;
pub mod permit;
pub mod schedule;
