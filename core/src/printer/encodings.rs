//! What the engine says of a file that is not plain UTF-8 (`crate::codec`):
//! binary, malformed UTF-16, an edit that would split a character of a
//! legacy encoding, text the encoding cannot hold or give back exactly.

/// The file at `path` looks binary (`why`).
pub(crate) fn looks_binary(path: &str, why: &str) -> String {
    format!("`{path}` looks binary ({why}); it was not edited")
}

/// The file at `path` has a UTF-16 BOM but is not UTF-16.
pub(crate) fn malformed_utf16(path: &str) -> String {
    format!(
        "`{path}` has a UTF-16 BOM but malformed UTF-16 (odd length or unpaired surrogate); it was not edited"
    )
}

/// A UTF-16LE file whose new text would start with U+0000: after its BOM
/// the bytes `FF FE 00 00` are UTF-32LE's BOM.
pub(crate) fn utf16_starts_with_nul(path: &str) -> String {
    format!(
        "`{path}` is UTF-16LE, and its new text would start with the character U+0000: after the BOM that reads \
         as a UTF-32 byte order mark (FF FE 00 00), for this tool and every other, so the file would change \
         encoding; nothing was written. Keep another character first"
    )
}

/// A 7-bit file in ISO-2022-JP, -KR or -CN.
pub(crate) fn iso_2022(path: &str) -> String {
    format!(
        "`{path}` is in an ISO-2022 encoding (ISO-2022-JP, -KR or -CN: escape sequences switch to two-byte characters \
         spelled with ASCII letters and signs), which is not supported: an edit of its ASCII text could change those \
         characters; it was not edited. Convert it to UTF-8 first"
    )
}

/// An edit on line `line_at` of a file read as `enc` that would split or
/// merge a character if the file were in one of `broken`.
pub(crate) fn splits_a_character(path: &str, enc: &str, line_at: usize, broken: &[&str]) -> String {
    format!(
        "`{path}` is not UTF-8 (read as {enc}); the edit on line {line_at} would split or merge a character \
         if the file is in {} — its bytes are valid there, so that cannot be ruled out — and could change bytes \
         nobody asked to change; nothing was written. Include the whole characters around the change (e.g. the \
         whole word or line) in the search and replacement",
        broken.join(" or ")
    )
}

/// An edit on line `line_at` of a file read as `enc` that would break the
/// bytes `ch`, one UTF-8 character (`utf8`) shown in that encoding as
/// `shown`.
pub(crate) fn splits_utf8_character(
    path: &str,
    enc: &str,
    line_at: usize,
    (ch, shown, utf8): (&[u8], &str, &str),
) -> String {
    let hex: Vec<String> = ch.iter().map(|b| format!("{b:02X}")).collect();
    format!(
        "`{path}` is read as {enc}, but line {line_at} holds bytes that are valid UTF-8: `{shown}` ({}) is the \
         UTF-8 character `{utf8}`, so that text is probably UTF-8. The edit would keep part of that character and \
         change or remove the rest, leaving bytes that are neither your text nor UTF-8; nothing was written. \
         Replace the whole `{shown}` (or the whole line), or leave it out of the edit",
        hex.join(" ")
    )
}

/// An edit of a file edited as bytes that begins or ends, on line `line`,
/// next to a non-ASCII byte.
pub(crate) fn beside_non_ascii(path: &str, line: usize) -> String {
    format!(
        "`{path}` is not valid UTF-8 and its encoding could not be determined (it is edited as bytes); \
         the edit on line {line} begins or ends next to a non-ASCII byte, which may be half of a \
         character in the file's real encoding, so it could change a character nobody asked to change; \
         nothing was written. Choose a search block that begins and ends between ASCII characters"
    )
}

/// The text of a file in `ename` near byte `at` would not be written back
/// as the same bytes.
pub(crate) fn no_round_trip(path: &str, ename: &str, at: usize) -> String {
    format!(
        "`{path}` is not UTF-8 and does not round-trip exactly through {ename} (read as that): the text \
         near byte {at} would not be written back as the same bytes, so it was not edited; nothing was \
         written"
    )
}

/// A replacement holds `c`, which `ename` cannot encode.
pub(crate) fn unencodable(path: &str, ename: &str, c: char) -> String {
    format!(
        "`{path}` is in {ename}, which has no `{c}` (U+{:04X}); the replacement cannot be \
         written in the file's encoding, so nothing was written",
        c as u32
    )
}
