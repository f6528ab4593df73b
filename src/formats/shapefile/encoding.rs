//! The text encoding of a `.dbf`: the one the `.cpg` names, else the code page the `.dbf` header declares,
//! else UTF-8 with a Windows-1252 fallback. A declaration the bytes contradict (a `.cpg` saying UTF-8 over
//! Windows-1252 text, or saying 1252 over UTF-8 text, as a layer re-saved by another program can be) is told
//! ([`TextDecoder::contradiction`]), and the value is read as what its bytes are.

use ::shapefile::dbase::encoding::{DynEncoding, EncodingRs};
use ::shapefile::dbase::{encoding_rs, CodePageMark, Encoding, UnicodeLossy};

/// How `.dbf` text is decoded, and what the `.cpg` or the header declared it to be.
pub(super) struct TextDecoder {
    decoding: Decoding,
    /// The declaration the decoding follows, as a message names it ("the .cpg says 'UTF-8'"); `None` when
    /// nothing declared an encoding and UTF-8 is assumed.
    declared: Option<String>,
}

/// The decoding of a [`TextDecoder`].
enum Decoding {
    /// UTF-8, falling back to Windows-1252 for a value that is not valid UTF-8 (every byte means something in
    /// 1252, so nothing is lost to replacement characters).
    Utf8,
    /// A code page named by the `.cpg` or the `.dbf` header; a value whose bytes are UTF-8 beyond ASCII is
    /// read as UTF-8 (and reported, as [`TextDecoder::contradiction`]).
    CodePage(DynEncoding),
}

impl TextDecoder {
    /// The decoder for a `.cpg` label, else for the `.dbf`'s code page mark, with a warning when neither can
    /// be honoured.
    pub(super) fn choose(cpg: Option<&str>, mark: CodePageMark) -> (Self, Option<String>) {
        let mut warning = None;
        let label = cpg.map(|l| l.trim_start_matches('\u{feff}').trim()).filter(|l| !l.is_empty());
        if let Some(label) = label {
            match Decoding::for_label(label) {
                Some(decoding) => {
                    return (
                        TextDecoder { decoding, declared: Some(format!("the .cpg says '{label}'")) },
                        None,
                    )
                }
                None => {
                    warning = Some(format!(
                        "unknown encoding '{label}', so text is read as {}: write a known one in the .cpg \
                         (e.g. UTF-8 or 1252)",
                        if Decoding::for_mark(mark).is_some() { "the .dbf header declares" } else { "UTF-8" }
                    ))
                }
            }
        }
        let declared = match mark {
            CodePageMark::Undefined | CodePageMark::Invalid => None,
            CodePageMark::Utf8 => Some("the .dbf header declares UTF-8".to_string()),
            _ => Some(format!("the .dbf header declares code page {mark:?}")),
        };
        match Decoding::for_mark(mark) {
            Some(decoding) => (TextDecoder { decoding, declared }, warning),
            None => {
                let warning = warning.unwrap_or_else(|| {
                    format!(
                        "the .dbf declares code page {mark:?}, which cannot be decoded, so text is read as UTF-8: \
                         add a .cpg naming the encoding (e.g. 1252)"
                    )
                });
                (TextDecoder { decoding: Decoding::Utf8, declared: None }, Some(warning))
            }
        }
    }

    /// The encoding dbase decodes field names with.
    pub(super) fn for_names(&self) -> DynEncoding {
        match &self.decoding {
            Decoding::Utf8 => UnicodeLossy.into(),
            Decoding::CodePage(encoding) => encoding.clone(),
        }
    }

    pub(super) fn decode(&self, bytes: &[u8]) -> Box<str> {
        match &self.decoding {
            Decoding::Utf8 => match std::str::from_utf8(bytes) {
                Ok(text) => text.into(),
                Err(_) => encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes).0.into(),
            },
            Decoding::CodePage(encoding) => {
                if let Some(utf8) = (!bytes.is_ascii()).then(|| std::str::from_utf8(bytes).ok()).flatten() {
                    return utf8.into();
                }
                match encoding.decode(bytes) {
                    Ok(text) => text.into(),
                    Err(_) => String::from_utf8_lossy(bytes).into(),
                }
            }
        }
    }

    /// The message for a text value of the field `field` (its trimmed bytes) that contradicts the declared
    /// encoding: bytes that are not UTF-8 where UTF-8 is declared, or UTF-8 beyond ASCII where a code page
    /// is. Text that is only ASCII reads the same in every encoding, and an undeclared one contradicts
    /// nothing.
    pub(super) fn contradiction(&self, field: &str, bytes: &[u8]) -> Option<String> {
        if bytes.is_ascii() {
            return None;
        }
        let declared = self.declared.as_deref()?;
        let (what, fix) = match (&self.decoding, std::str::from_utf8(bytes).is_ok()) {
            (Decoding::Utf8, false) => ("is not UTF-8", "Windows-1252: name the layer's real encoding"),
            (Decoding::CodePage(_), true) => ("is UTF-8", "UTF-8: write UTF-8"),
            _ => return None,
        };
        let read = self.decode(bytes);
        Some(format!(
            "field {field}: '{read}' {what} though {declared}, so it and every value like it are read as {fix} \
             in the .cpg"
        ))
    }
}

impl Decoding {
    fn for_label(label: &str) -> Option<Self> {
        if ["UTF-8", "UTF8", "65001"].iter().any(|u| label.eq_ignore_ascii_case(u)) {
            return Some(Decoding::Utf8);
        }
        if let Some(encoding) = DynEncoding::from_name(label) {
            return Some(Decoding::CodePage(encoding));
        }
        encoding_rs::Encoding::for_label(label.as_bytes()).map(|e| match e == encoding_rs::UTF_8 {
            true => Decoding::Utf8,
            false => Decoding::CodePage(EncodingRs::from(e).into()),
        })
    }

    fn for_mark(mark: CodePageMark) -> Option<Self> {
        match mark {
            CodePageMark::Utf8 | CodePageMark::Undefined | CodePageMark::Invalid => Some(Decoding::Utf8),
            _ => mark.to_encoding().map(Decoding::CodePage),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_choice() {
        let decode = |cpg: Option<&str>, mark, bytes: &[u8]| {
            let (decoder, warning) = TextDecoder::choose(cpg, mark);
            (decoder.decode(bytes), warning.is_some())
        };
        assert_eq!(decode(None, CodePageMark::Utf8, "Café".as_bytes()), ("Café".into(), false));
        assert_eq!(decode(None, CodePageMark::Undefined, b"Caf\xE9"), ("Café".into(), false));
        assert_eq!(decode(None, CodePageMark::CP1251, b"\xE9"), ("й".into(), false));
        assert_eq!(decode(Some(" ISO-8859-1\r\n"), CodePageMark::Utf8, b"\xE9"), ("é".into(), false));
        assert_eq!(decode(Some("latin1"), CodePageMark::Utf8, b"\xE9"), ("é".into(), false));
        assert_eq!(decode(Some("utf-8"), CodePageMark::CP1251, "й".as_bytes()), ("й".into(), false));
        assert_eq!(decode(Some("nonsense"), CodePageMark::CP1251, b"\xE9"), ("й".into(), true));
        assert_eq!(decode(Some(" \n"), CodePageMark::CP1251, b"\xE9"), ("й".into(), false));
    }

    #[test]
    fn a_declaration_the_bytes_contradict_is_told_and_nothing_else_is() {
        let told = |cpg: Option<&str>, mark, bytes: &[u8]| {
            let (decoder, _) = TextDecoder::choose(cpg, mark);
            decoder.contradiction("OWNER", bytes).map(|m| (decoder.decode(bytes), m))
        };
        let utf8 = "Nuñez".as_bytes();
        let cp1252 = b"Nu\xF1ez";
        // UTF-8 under a declared single-byte code page, from the .cpg or the header: read as UTF-8.
        let (read, message) = told(Some("1252"), CodePageMark::Undefined, utf8).unwrap();
        assert_eq!(&*read, "Nuñez");
        assert!(
            message.starts_with("field OWNER: 'Nuñez' is UTF-8 though the .cpg says '1252'"),
            "{message}"
        );
        let (read, message) = told(None, CodePageMark::CP1252, utf8).unwrap();
        assert_eq!(&*read, "Nuñez");
        assert!(message.contains("though the .dbf header declares code page CP1252"), "{message}");
        // A byte that is not UTF-8 under a declared UTF-8: read as Windows-1252.
        let (read, message) = told(Some("utf8"), CodePageMark::Undefined, cp1252).unwrap();
        assert_eq!(&*read, "Nuñez");
        assert!(message.contains("is not UTF-8 though the .cpg says 'utf8'"), "{message}");
        assert!(told(None, CodePageMark::Utf8, cp1252).unwrap().1.contains("the .dbf header declares UTF-8"));
        // What agrees with its declaration, ASCII, and text under no declaration at all are not told.
        assert_eq!(told(Some("1252"), CodePageMark::Undefined, cp1252), None);
        assert_eq!(told(Some("UTF-8"), CodePageMark::Undefined, utf8), None);
        assert_eq!(told(Some("1252"), CodePageMark::Undefined, b"Smith"), None);
        assert_eq!(told(None, CodePageMark::Undefined, cp1252), None);
        assert_eq!(told(None, CodePageMark::Undefined, utf8), None);
    }
}
