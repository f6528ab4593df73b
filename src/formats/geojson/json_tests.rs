//! Tests of the JSON reader: numbers, strings, containers and nesting, each against values worked out by hand
//! or against the standard library's own correctly rounded `f64` parsing.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

fn cursor(text: &[u8]) -> Cursor<'_> {
    Cursor::new(text, 0, 0)
}

/// Checks one whole JSON text as [`Check::Full`] does.
fn check(text: &str) -> Parse<()> {
    let mut cur = cursor(text.as_bytes());
    cur.skip(Check::Full)?;
    cur.end("trailing characters")
}

fn fault(text: &str) -> SyntaxError {
    check(text).expect_err(text)
}

#[test]
fn numbers_are_correctly_rounded() {
    let cases: [(&str, f64); 14] = [
        ("0", 0.0),
        ("-0", -0.0),
        ("1e2", 100.0),
        ("1E+2", 100.0),
        ("2.5e-3", 0.0025),
        ("0.1", 0.1),
        ("762804.8554207676", 762804.8554207676),
        // 17 significant digits: more than the 53 bits of the quick path, so the slow one decides. The double
        // nearest to them is written here with the fewest digits that name it.
        ("-76.583333333333329", -76.583_333_333_333_33),
        // 2^53 + 1 is halfway between two doubles and rounds to the even one, 2^53.
        ("9007199254740993", 9_007_199_254_740_992.0),
        ("12345678901234567890", 12345678901234567890.0),
        ("1.7976931348623157e308", f64::MAX),
        ("5e-324", 5e-324),
        ("1e-400", 0.0),
        ("123456789012345678901234567890e-30", 0.123_456_789_012_345_68),
    ];
    for (text, expected) in cases {
        let x = cursor(text.as_bytes()).number().unwrap();
        assert_eq!(x.to_bits(), expected.to_bits(), "{text}: {x}");
    }
}

#[test]
fn numbers_match_the_standard_library_to_the_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..20_000 {
        let digits: String =
            (0..rng.random_range(1..=20)).map(|_| char::from(b'0' + rng.random_range(0..10))).collect();
        let int = digits.trim_start_matches('0');
        let int = if int.is_empty() { "0" } else { int };
        let split = rng.random_range(1..=int.len());
        let mut text = String::new();
        if rng.random_bool(0.5) {
            text.push('-');
        }
        text.push_str(&int[..split]);
        if split < int.len() {
            text.push('.');
            text.push_str(&int[split..]);
        }
        if rng.random_bool(0.3) {
            text.push_str(&format!("e{}", rng.random_range(-30..30)));
        }
        let expected: f64 = text.parse().unwrap();
        let x = cursor(text.as_bytes()).number().unwrap();
        assert_eq!(x.to_bits(), expected.to_bits(), "{text}");
    }
}

#[test]
fn numbers_that_are_not_json_or_beyond_f64_are_errors() {
    let cases = [
        ("[01]", 2, "expected `,` or `]`"),
        ("[1.]", 3, "invalid number"),
        ("[-a]", 2, "invalid number"),
        ("[.5]", 1, "expected value"),
        ("[+1]", 1, "expected value"),
        ("[1e]", 3, "invalid number"),
        ("[NaN]", 1, "expected value"),
        ("[Infinity]", 1, "expected value"),
        ("[1e400]", 1, "number out of range"),
        ("[-2.5e308]", 1, "number out of range"),
        ("-", 1, "EOF while parsing a value"),
    ];
    for (text, at, what) in cases {
        let e = fault(text);
        assert_eq!((e.at, e.what.as_ref()), (at, what), "{text}");
    }
    // A number too large for `f64` where nothing reads it is syntax like any other.
    let mut cur = cursor(b"[1e400, 1e999999999999]");
    assert_eq!(cur.skip(Check::Syntax), Ok(()));
}

#[test]
fn strings_are_unescaped_and_borrowed_when_they_can_be() {
    let mut cur = cursor(br#""a\"b\\c\/d\b\f\n\r\t""#);
    assert_eq!(cur.string().unwrap(), "a\"b\\c/d\u{8}\u{c}\n\r\t");
    let mut cur = cursor(r#""\u00e9t\u00C9 \ud83d\ude00 Skaneateles""#.as_bytes());
    assert_eq!(cur.string().unwrap(), "étÉ 😀 Skaneateles");
    let mut cur = cursor("\"Cayuga – Owasco\"".as_bytes());
    assert!(matches!(cur.string().unwrap(), Cow::Borrowed("Cayuga – Owasco")));
    assert_eq!(cur.pos(), "\"Cayuga – Owasco\"".len());
}

#[test]
fn strings_that_are_not_json_are_errors() {
    let cases: [(&[u8], u64, &str); 7] = [
        (b"\"Owasco", 7, "EOF while parsing a string"),
        (b"\"a\x01b\"", 2, "control character (\\u0000-\\u001F) found while parsing a string"),
        (b"\"a\nb\"", 2, "control character (\\u0000-\\u001F) found while parsing a string"),
        (br#""\x""#, 2, "invalid escape"),
        (br#""\u12g4""#, 5, "invalid escape"),
        (br#""\ud83d""#, 1, "lone leading surrogate in hex escape"),
        (b"\"caf\xe9\"", 4, "invalid unicode code point"),
    ];
    for (text, at, what) in cases {
        let e = cursor(text).string().expect_err(&String::from_utf8_lossy(text));
        assert_eq!((e.at, e.what.as_ref()), (at, what), "{}", String::from_utf8_lossy(text));
    }
    assert_eq!(cursor(br#""\ude00""#).string().unwrap_err().what, "invalid unicode code point");
    // Skipped text is checked for syntax only, as serde_json checks what it ignores.
    for text in [&b"\"\\ud83d\""[..], b"\"caf\xe9\""] {
        assert_eq!(cursor(text).skip(Check::Syntax), Ok(()));
        assert!(cursor(text).skip(Check::Full).is_err());
    }
}

#[test]
fn containers_follow_the_grammar() {
    for good in ["[]", "{}", " [ 1 , [ ] , { } ] ", r#"{"a": {"b": [true, false, null]}, "c": "d"}"#] {
        assert_eq!(check(good), Ok(()), "{good}");
    }
    let cases = [
        ("[1,]", 3, "trailing comma"),
        (r#"{"a": 1,}"#, 8, "trailing comma"),
        ("[1 2]", 3, "expected `,` or `]`"),
        (r#"{"a" 1}"#, 5, "expected `:`"),
        ("{a: 1}", 1, "key must be a string"),
        (r#"{"a": 1 "b": 2}"#, 8, "expected `,` or `}`"),
        ("[1}", 2, "expected `,` or `]`"),
        ("[tru]", 4, "expected ident"),
        ("[1] [2]", 4, "trailing characters"),
        ("[[1, 2]", 7, "EOF while parsing a list"),
        (r#"{"a": "#, 6, "EOF while parsing a value"),
    ];
    for (text, at, what) in cases {
        let e = fault(text);
        assert_eq!((e.at, e.what.as_ref()), (at, what), "{text}");
    }
}

#[test]
fn nesting_is_limited_and_followed_without_recursion() {
    let nested = |n: usize| "[".repeat(n) + &"]".repeat(n);
    assert_eq!(check(&nested(MAX_DEPTH)), Ok(()));
    let e = fault(&nested(MAX_DEPTH + 1));
    assert_eq!((e.at, e.what.as_ref()), (128, "nesting deeper than 128 arrays and objects"));
    // Far deeper than any stack would take by recursion.
    assert_eq!(fault(&nested(1_000_000)).at, 128);
    let objects = r#"{"a":"#.repeat(MAX_DEPTH) + "1" + &"}".repeat(MAX_DEPTH);
    assert_eq!(check(&objects), Ok(()));
    // Inside containers opened around it, a value has less room.
    let mut cur = Cursor::new(b"[[1]]", 100, MAX_DEPTH - 1);
    assert_eq!(cur.skip(Check::Full).unwrap_err().at, 101);
}

#[test]
fn a_string_fails_where_skipping_it_fails() {
    // Reading a string and skipping it under the full check find the same fault at the same byte, escapes
    // or not: a pass that skips what another reads fails as that one does.
    for text in
        [&b"\"caf\xe9\""[..], b"\"\\n\\t caf\xe9\"", b"\"\\u00e9\xff\"", b"\"a\\qb\"", b"\"\\ud83d x\""]
    {
        let read = cursor(text).string().map(drop);
        assert!(read.is_err(), "{}", String::from_utf8_lossy(text));
        assert_eq!(read, cursor(text).skip(Check::Full), "{}", String::from_utf8_lossy(text));
    }
}

#[test]
fn passing_over_a_value_finds_its_end_unchecked() {
    let text = br#"{"a": [1, {"b": "]}\"{"}], "c": 2} , 3"#;
    let mut cur = cursor(text);
    cur.pass().unwrap();
    assert_eq!(&text[cur.pos()..], b" , 3");
    let mut cur = cursor(b"[[1, 2]");
    assert_eq!(cur.pass().unwrap_err().what, "EOF while parsing a value");
    let mut cur = Cursor::new(b"[[1]]", 100, MAX_DEPTH - 1);
    assert_eq!(cur.pass().unwrap_err().at, 101);
}
