//! A bounded first pass over the XML parts of an OOXML workbook (`.xlsx`, `.xlsm`) that calamine parses:
//! the workbook, its relationships, styles, shared strings and every sheet part; and over the `content.xml`
//! and manifest of an OpenDocument spreadsheet (`.ods`), zipped XML as well. calamine reads the shared
//! strings whole when the workbook is opened and holds one XML token (a tag, a text, a comment) at a time in
//! memory while it reads; this pass, in constant memory, refuses a workbook before calamine sees it when a
//! token, a cell's text, the shared-strings table or its declared count passes a [`super::limits`] bound.
//! Parts calamine does not read (cell notes, drawings, pictures) are never opened.

use std::io::{BufReader, Read};
use std::path::Path;

use super::limits::{MAX_SHARED_STRINGS, MAX_SHARED_STRING_BYTES, MAX_XML_TOKEN_BYTES};
use crate::model::error::{Error, Result};

/// Which parts calamine reads, by their names in the zip (lower case, `/` separators).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The shared-strings table: its strings are counted and their text summed.
    Strings,
    /// A sheet (or an OpenDocument's content): each cell's text is bounded.
    Sheet,
    /// The workbook, its relationships, the styles: only tokens are bounded.
    Other,
}

/// The part a zip member is, or `None` when calamine does not read it.
fn part(name: &str) -> Option<Part> {
    let name = name.replace('\\', "/").to_ascii_lowercase();
    let name = name.trim_start_matches('/');
    if name == "xl/sharedstrings.xml" {
        return Some(Part::Strings);
    }
    if name == "content.xml" {
        return Some(Part::Sheet);
    }
    if ["xl/workbook.xml", "xl/styles.xml", "xl/_rels/workbook.xml.rels", "meta-inf/manifest.xml"]
        .contains(&name)
    {
        return Some(Part::Other);
    }
    let sheet = ["xl/worksheets/", "xl/chartsheets/", "xl/dialogsheets/"].iter().any(|d| name.starts_with(d));
    (sheet && name.ends_with(".xml")).then_some(Part::Sheet)
}

/// Reads every part of `file` that calamine reads and refuses the workbook when one passes a bound. A file
/// that is not a zip is left to calamine, which names the problem.
pub fn check(file: &Path) -> Result<()> {
    let Ok(input) = std::fs::File::open(file) else { return Ok(()) };
    let Ok(mut zip) = zip::ZipArchive::new(BufReader::new(input)) else { return Ok(()) };
    for i in 0..zip.len() {
        let Ok(member) = zip.by_index(i) else { continue };
        let name = member.name().to_string();
        let Some(part) = part(&name) else { continue };
        let mut scan = Scan::new(part);
        let mut member = member;
        let mut chunk = vec![0; 1 << 16];
        // A damaged member is calamine's to report: it says which and why.
        while let Ok(n @ 1..) = member.read(&mut chunk) {
            if let Err(over) = scan.feed(&chunk[..n]) {
                return Err(Error::format(
                    file,
                    format!(
                        "{name} {over}, past what this reader takes; no spreadsheet program writes such a \
                         workbook: save the sheet again from one, or export it as CSV"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Where the scan is in the XML.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    /// Character data between markup.
    Text,
    /// Inside markup that began with `<`, which `token` holds.
    Markup,
}

/// The state of one part's scan, fed its bytes in chunks.
struct Scan {
    part: Part,
    at: At,
    /// The markup being read (at most [`MAX_XML_TOKEN_BYTES`] of it).
    token: Vec<u8>,
    /// The quote an attribute value of a tag is open with.
    quote: Option<u8>,
    /// `[` minus `]` of a `<!DOCTYPE` being read.
    brackets: usize,
    /// Bytes of the text run being read.
    run: usize,
    /// Text bytes since the start or end of the current cell (`c`) or shared string (`si`).
    unit: usize,
    /// Shared strings seen and their text bytes.
    strings: usize,
    string_bytes: usize,
}

impl Scan {
    fn new(part: Part) -> Self {
        Scan {
            part,
            at: At::Text,
            token: Vec::new(),
            quote: None,
            brackets: 0,
            run: 0,
            unit: 0,
            strings: 0,
            string_bytes: 0,
        }
    }

    /// Takes the next bytes of the part; `Err` says which bound they pass.
    fn feed(&mut self, bytes: &[u8]) -> std::result::Result<(), String> {
        let mut rest = bytes;
        while !rest.is_empty() {
            match self.at {
                At::Text => {
                    let end = memchr::memchr(b'<', rest).unwrap_or(rest.len());
                    self.text(end)?;
                    if end < rest.len() {
                        self.run = 0;
                        self.at = At::Markup;
                        self.token.clear();
                        self.token.push(b'<');
                        self.quote = None;
                        self.brackets = 0;
                        rest = &rest[end + 1..];
                    } else {
                        rest = &[];
                    }
                }
                At::Markup => {
                    let (&b, tail) = rest.split_first().unwrap_or((&0, &[]));
                    rest = tail;
                    if self.token.len() >= MAX_XML_TOKEN_BYTES {
                        return Err(format!("holds {} longer than {MAX_XML_TOKEN_BYTES} bytes", self.kind()));
                    }
                    self.token.push(b);
                    if self.markup_ends(b) {
                        self.at = At::Text;
                        self.markup()?;
                    }
                }
            }
        }
        Ok(())
    }

    /// What the markup being read is, in words.
    fn kind(&self) -> &'static str {
        let t = &self.token;
        if t.starts_with(b"<!--") {
            "an XML comment"
        } else if t.starts_with(b"<![CDATA[") {
            "a CDATA section"
        } else if t.starts_with(b"<?") {
            "a processing instruction"
        } else if t.starts_with(b"<!") {
            "a document type declaration"
        } else {
            "a tag"
        }
    }

    /// Whether the markup ends with the byte `b` just taken.
    fn markup_ends(&mut self, b: u8) -> bool {
        let t = &self.token;
        if t.starts_with(b"<!--") {
            return t.len() >= 7 && t.ends_with(b"-->");
        }
        if t.starts_with(b"<![CDATA[") {
            return t.len() >= 12 && t.ends_with(b"]]>");
        }
        if t.starts_with(b"<?") {
            return t.len() >= 4 && t.ends_with(b"?>");
        }
        if t.len() < 4 && b"<!--".starts_with(t) || t.len() < 9 && b"<![CDATA[".starts_with(t) {
            // Not yet known to be a comment or CDATA: a `>` here ends an ill-formed `<!` or `<!-`, which
            // the parser rejects.
            return b == b'>';
        }
        if t.starts_with(b"<!") {
            match b {
                b'[' => self.brackets += 1,
                b']' => self.brackets = self.brackets.saturating_sub(1),
                b'>' => return self.brackets == 0,
                _ => {}
            }
            return false;
        }
        match (self.quote, b) {
            (Some(q), _) if q == b => self.quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => self.quote = Some(b),
            (None, b'>') => return true,
            (None, _) => {}
        }
        false
    }

    /// Counts `n` bytes of text (character data, or a CDATA section's content).
    fn text(&mut self, n: usize) -> std::result::Result<(), String> {
        self.run += n;
        self.unit += n;
        if self.run > MAX_XML_TOKEN_BYTES {
            return Err(format!("holds a text longer than {MAX_XML_TOKEN_BYTES} bytes"));
        }
        match self.part {
            Part::Sheet if self.unit > MAX_XML_TOKEN_BYTES => {
                Err(format!("holds a cell whose text is longer than {MAX_XML_TOKEN_BYTES} bytes"))
            }
            Part::Strings => {
                self.string_bytes += n;
                if self.unit > MAX_XML_TOKEN_BYTES {
                    return Err(format!("holds a shared string longer than {MAX_XML_TOKEN_BYTES} bytes"));
                }
                if self.string_bytes > MAX_SHARED_STRING_BYTES {
                    return Err(format!("holds more than {MAX_SHARED_STRING_BYTES} bytes of shared strings"));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Takes the markup just read whole.
    fn markup(&mut self) -> std::result::Result<(), String> {
        if self.token.starts_with(b"<![CDATA[") {
            self.run = 0;
            return self.text(self.token.len() - 12);
        }
        if self.token.starts_with(b"<!") || self.token.starts_with(b"<?") {
            return Ok(());
        }
        let closing = self.token.get(1) == Some(&b'/');
        let body = &self.token[1 + usize::from(closing)..];
        let name_end = body.iter().position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>');
        let name = &body[..name_end.unwrap_or(body.len())];
        let local = name.rsplit(|&b| b == b':').next().unwrap_or(name);
        match (self.part, local) {
            (Part::Sheet, b"c" | b"table-cell" | b"covered-table-cell") => self.unit = 0,
            (Part::Strings, b"si") => {
                self.unit = 0;
                if !closing {
                    self.strings += 1;
                    if self.strings > MAX_SHARED_STRINGS {
                        return Err(format!("holds more than {MAX_SHARED_STRINGS} shared strings"));
                    }
                }
            }
            (Part::Strings, b"sst") if !closing => {
                // calamine sets room aside for the count the table declares before it reads a string.
                let declared = attribute(&self.token, b"uniqueCount");
                if declared
                    .is_some_and(|n| n.parse::<u128>().map_or(true, |n| n > MAX_SHARED_STRINGS as u128))
                {
                    return Err(format!("declares more than {MAX_SHARED_STRINGS} shared strings"));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The value of the attribute `name` of the tag `tag`, trimmed, when it is there.
fn attribute(tag: &[u8], name: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(tag);
    let name = std::str::from_utf8(name).ok()?;
    let mut rest = &*text;
    while let Some(at) = rest.find(name) {
        let before = rest[..at].chars().last();
        let after = rest[at + name.len()..].trim_start();
        rest = &rest[at + name.len()..];
        if !before.is_some_and(|c| c.is_ascii_whitespace()) {
            continue;
        }
        let Some(value) = after.strip_prefix('=') else { continue };
        let value = value.trim_start();
        let quote = value.chars().next()?;
        let value = value.get(1..)?;
        return Some(value[..value.find(quote)?].trim().to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(part: Part, xml: &[u8], chunk: usize) -> std::result::Result<(), String> {
        let mut scan = Scan::new(part);
        xml.chunks(chunk).try_for_each(|c| scan.feed(c))
    }

    /// Comments, CDATA and quoted `>` are read as XML reads them, whatever the chunks.
    #[test]
    fn markup_ends_where_xml_says() {
        let xml = b"<?xml version=\"1.0\"?><!-- a > b --><sst uniqueCount=\"2\"><si><t a=\"x>y\">A</t></si>\
                    <si><t><![CDATA[<b>]]></t></si></sst>";
        for chunk in [1, 2, 3, 7, xml.len()] {
            assert_eq!(scan(Part::Strings, xml, chunk), Ok(()), "chunk {chunk}");
            let mut s = Scan::new(Part::Strings);
            xml.chunks(chunk).for_each(|c| s.feed(c).unwrap());
            assert_eq!((s.strings, s.string_bytes), (2, 4), "chunk {chunk}");
        }
    }

    #[test]
    fn tokens_cells_and_tables_past_their_bounds_are_named() {
        let long = vec![b'x'; MAX_XML_TOKEN_BYTES + 1];
        let comment = [b"<!--".as_slice(), &long, b"-->"].concat();
        assert_eq!(
            scan(Part::Other, &comment, 4096),
            Err(format!("holds an XML comment longer than {MAX_XML_TOKEN_BYTES} bytes"))
        );
        let text = [b"<a>".as_slice(), &long, b"</a>"].concat();
        assert_eq!(
            scan(Part::Other, &text, 4096),
            Err(format!("holds a text longer than {MAX_XML_TOKEN_BYTES} bytes"))
        );
        // One cell's text in many runs, each short.
        let half = vec![b'x'; MAX_XML_TOKEN_BYTES / 2 + 1];
        let runs = [b"<c><is><t>".as_slice(), &half, b"</t><t>", &half, b"</t></is></c>"].concat();
        assert_eq!(
            scan(Part::Sheet, &runs, 4096),
            Err(format!("holds a cell whose text is longer than {MAX_XML_TOKEN_BYTES} bytes"))
        );
        assert_eq!(
            scan(Part::Strings, b"<sst uniqueCount=\"99999999999999999999999\">", 5),
            Err(format!("declares more than {MAX_SHARED_STRINGS} shared strings"))
        );
        assert_eq!(scan(Part::Strings, b"<sst count=\"9\" uniqueCount='3'>", 5), Ok(()));
        // 65 strings of 1 MiB each: each within its bound, the table past its own.
        let mega = [b"<si><t>".as_slice(), &vec![b'x'; 1 << 20], b"</t></si>"].concat();
        let table = [b"<sst>".as_slice(), &mega.repeat(65), b"</sst>"].concat();
        assert_eq!(
            scan(Part::Strings, &table, 1 << 16),
            Err(format!("holds more than {MAX_SHARED_STRING_BYTES} bytes of shared strings"))
        );
    }

    #[test]
    fn only_the_parts_calamine_reads_are_scanned() {
        assert!(part("xl/sharedStrings.xml") == Some(Part::Strings));
        assert!(part("XL\\Worksheets\\Sheet1.xml") == Some(Part::Sheet));
        assert!(part("xl/_rels/workbook.xml.rels") == Some(Part::Other));
        assert!(part("xl/comments1.xml").is_none());
        assert!(part("content.xml") == Some(Part::Sheet));
        assert!(part("xl/media/image1.png").is_none());
    }
}
