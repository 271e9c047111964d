//! The not-found report: the closest match, whether the edit was already
//! applied, and the message naming the next step.

use crate::likeness::align::char_ratio;
use crate::likeness::anchors::{Hits, Scanner};
use crate::likeness::applied;
use crate::likeness::nearest::{closest_match, match_at, Closest};
use crate::likeness::readings;
use crate::likeness::search::Reading;
use crate::likeness::windows::GaveUp;
use crate::likeness::Budget;
use crate::model::Said;
use crate::printer;
use crate::result::diagnosis::ContextHint;
use crate::result::diagnosis::Difference;

/// What diagnosis learned about one failed edit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnosis {
    pub closest_match: Option<Closest>,
    /// 1-based line range where the replacement text already stands.
    pub(crate) already_applied: Option<(usize, usize)>,
    pub unique_context_hint: Vec<ContextHint>,
    /// The diagnosis ran out of budget (very large file) and is partial.
    pub incomplete: bool,
    /// A message naming the problem and the next step, replacing the
    /// generic one when set.
    pub(crate) message: Option<String>,
}

impl Diagnosis {
    /// One clause on what diagnosis found, for the messages of edit formats
    /// that word their own failure (a hunk, a SEARCH/REPLACE block).
    pub(crate) fn summary(&self) -> Option<String> {
        if let Some((a, b)) = self.already_applied {
            return Some(printer::applied_summary(a, b));
        }
        let c = self.closest_match.as_ref()?;
        Some(printer::closest_summary(
            c.line_number,
            c.end_line,
            c.similarity_milli / 10,
            &c.kinds(),
        ))
    }

    /// The diagnosis fields of a failure.
    pub(crate) fn to_result(&self) -> crate::result::diagnosis::Diagnosed {
        use crate::result::diagnosis as out;
        out::Diagnosed {
            closest_match: self.closest_match.as_ref().map(|c| out::ClosestMatch {
                line_number: c.line_number,
                end_line: c.end_line,
                similarity: f64::from(c.similarity_milli) / 1000.0,
                text: c.text.clone(),
                differences: c.differences.iter().map(|d| d.kind).collect(),
                details: c
                    .differences
                    .iter()
                    .filter(|d| !d.detail.is_empty())
                    .map(|d| d.detail.clone())
                    .collect(),
                equally_close: c.equally_close.clone(),
            }),
            already_applied: self.already_applied.map(|_| crate::result::marks::True),
            applied_at: self.already_applied.map(|(a, b)| out::LineRange {
                line_number: a,
                end_line: b,
            }),
            unique_context_hint: self.unique_context_hint.clone(),
            diagnosis_incomplete: crate::result::marks::flag(self.incomplete),
        }
    }
}

/// The message for a block that was not found, given what was learned.
fn not_found_message(
    (pre, said): (&str, Said),
    c: Option<&Closest>,
    applied: Option<(usize, usize)>,
    tolerated: &[Difference],
) -> Option<String> {
    if let Some((a, b)) = applied {
        return Some(printer::not_found_applied(pre, said, a, b));
    }
    let c = c?;
    let kinds = c.kinds();
    let details: Vec<&str> = c
        .differences
        .iter()
        .filter(|d| !d.detail.is_empty() && d.kind != Difference::Content)
        .map(|d| d.detail.as_str())
        .collect();
    let near = printer::Near {
        from: c.line_number,
        to: c.end_line,
        percent: c.similarity_milli / 10,
        kinds: &kinds,
        details: &details,
        equally_close: &c.equally_close,
        // Resending with `match` helps only when it names a tolerance the
        // edit was not already matched with.
        tolerable: c.tolerable && !kinds.iter().all(|k| tolerated.contains(k)),
    };
    Some(if c.only_formatting() {
        printer::not_found_formatting(pre, said, &near)
    } else {
        printer::not_found_content(pre, said, &near)
    })
}

/// Where each form of the replacement occurs: found by the first anchor
/// pass, or (when there was none) by a pass of its own.
fn replacement_hits(
    scanner: &mut Scanner<'_>,
    needles: &[Vec<u8>],
    budget: &Budget,
    incomplete: &mut bool,
) -> Option<Vec<Hits>> {
    if needles.is_empty() {
        return None;
    }
    match scanner.rider_hits.take() {
        Some(h) => Some(h),
        None if *incomplete => None,
        None => {
            let needles: Vec<&[u8]> = needles.iter().map(Vec::as_slice).collect();
            scanner.riders.clear();
            match scanner.find(&needles, 1, budget) {
                Ok(h) => Some(h),
                Err(GaveUp) => {
                    *incomplete = true;
                    None
                }
            }
        }
    }
}

/// How much less like the block than the replacement's occurrence another
/// near miss may be and still be the block's place.
const RIVAL_MARGIN: f64 = 0.05;

/// Whether the block `search` still has a place outside `at` (byte range,
/// where its replacement stands): the region most like it with `at`
/// blanked out is a near miss ([`applied::NEAR_MISS`]) about as like the
/// block, character for character, as the replacement there is (within
/// [`RIVAL_MARGIN`]). The region
/// found for a block can be the replacement's own occurrence (a line the
/// edit extends holds the block's text; a change of whitespace alone keeps
/// its keys) while the block's own place, changed since it was read, stands
/// elsewhere, closer to it: the block is not gone, and nothing proves the
/// edit landed. (A search that runs out of budget finds no place: on a
/// file too large for it, the claim rests on the region alone.)
fn near_miss_outside(text: &[u8], search: &str, at: (usize, usize), budget: &Budget) -> bool {
    let mut blanked = text.to_vec();
    for b in &mut blanked[at.0..at.1] {
        if *b != b'\n' {
            *b = b' ';
        }
    }
    let mut scanner = Scanner::new(&blanked);
    let (found, _) = readings::best(&mut scanner, search, budget);
    let there = char_ratio(search, &String::from_utf8_lossy(&text[at.0..at.1]));
    // Nearly as like it is enough: a one-line block whose place had `_v2`
    // added since is as far from it as the replacement (`; ;` for `;`)
    // standing at a twin, and nothing in the file tells the two apart.
    let bar = (applied::NEAR_MISS.max(there - RIVAL_MARGIN) * 1000.0).round();
    found
        .and_then(|l| closest_match(&blanked, &l, Said::CANONICAL))
        .is_some_and(|c| f64::from(c.similarity_milli) >= bar)
}

/// Diagnoses a block that was not found in `text`. `label` prefixes the
/// message (e.g. `edits[2]: `); the message and details name the two texts
/// as `said`.
pub fn not_found(
    text: &[u8],
    search: &str,
    replace: &str,
    label: &str,
    said: Said,
    budget: &Budget,
    tolerated: &[Difference],
) -> Diagnosis {
    #[cfg(test)]
    super::testutil::ran();
    let mut d = Diagnosis::default();
    let mut scanner = Scanner::new(text);
    // The replacement is looked for along with the first anchor pass.
    let needles = applied::needles(search, replace);
    scanner.riders = needles.iter().map(|n| (n.clone(), 1)).collect();
    // The block as read to find its region: the proof that the edit was
    // applied compares that with the replacement (a block that elides
    // lines proves nothing).
    let mut read = Some(search.to_string());
    if budget.expired() {
        d.incomplete = true;
    } else {
        let (found, incomplete) = readings::best(&mut scanner, search, budget);
        d.incomplete = incomplete;
        if let Some(l) = &found {
            read = match l.reading {
                Reading::Elided(_) => None,
                _ => l.parts.first().map(|p| p.text.clone()),
            };
        }
        d.closest_match = found.and_then(|l| closest_match(text, &l, said));
    }
    let hits = replacement_hits(&mut scanner, &needles, budget, &mut d.incomplete);
    let region = d.closest_match.as_ref().map(|c| {
        let also = c.equally_close.iter().map(|l| l - 1).collect();
        (c.start, c.end, f64::from(c.similarity_milli) / 1000.0, also)
    });
    let at = hits
        .and_then(|h| applied::once(&needles, &h))
        .filter(|&at| {
            read.as_deref().is_some_and(|s| {
                match applied::proof(text, s, replace, at, region.clone()) {
                    Some(applied::Proof::Region) => !near_miss_outside(text, s, at, budget),
                    Some(applied::Proof::Context) => true,
                    None => false,
                }
            })
        });
    if let Some(at) = at {
        let m = match_at(text, search, at, said);
        d.already_applied = Some((m.line_number, m.end_line));
        d.closest_match = Some(m);
    }
    d.message = not_found_message(
        (label, said),
        d.closest_match.as_ref(),
        d.already_applied,
        tolerated,
    );
    if d.incomplete && d.message.is_none() {
        d.message = Some(printer::not_found_too_large(label, said.search));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::diagnose::ambiguous;
    use crate::diagnose::testutil::{diag, kinds, texty, RUST};
    use crate::likeness::anchors::CHUNK;
    use crate::likeness::budget::CHECK_EVERY;
    use crate::likeness::windows::CANDIDATES;

    /// A 6 MB text with `RUST` at its end.
    fn big_text() -> String {
        let mut text = "let value = compute(item, 42);\n".repeat(200_000);
        text.push_str(RUST);
        text
    }

    #[test]
    fn anchored_search_costs_one_pass_not_a_scan() {
        let text = big_text();
        let chunks = text.len().div_ceil(CHUNK) as u64;
        let scan_checks = (200_000 / CHECK_EVERY) as u64;
        // Budget checks: one before the search, one per chunk of the
        // anchor pass, a few while scoring; the full scan alone would need
        // one per CHECK_EVERY lines, more than this budget allows.
        let checks = 1 + chunks + CANDIDATES as u64;
        assert!(checks < scan_checks);
        // The longest line is intact (only indentation differs): one pass.
        // The replacement, present once, is found in that same pass.
        let d = not_found(
            text.as_bytes(),
            "  let total = compute(1, 2);\n  println!(\"{total}\");",
            "    let name = \"world\";",
            "",
            crate::model::Said::CANONICAL,
            &Budget::checks(checks),
            &[],
        );
        assert!(!d.incomplete);
        let c = d.closest_match.as_ref().unwrap();
        assert_eq!((c.line_number, c.end_line), (200_009, 200_010));
        assert_eq!(kinds(&d), vec!["indentation"]);
        // An edit whose replacement already stands where the block would
        // be: found in that same pass.
        let d = not_found(
            text.as_bytes(),
            "  let total = compute(1, 3);\n  println!(\"{total}\");",
            "    let total = compute(1, 2);\n    println!(\"{total}\");",
            "",
            crate::model::Said::CANONICAL,
            &Budget::checks(checks),
            &[],
        );
        assert!(!d.incomplete);
        assert_eq!(d.already_applied, Some((200_009, 200_010)));
        // A one-line block that differs in letter case: its words anchor it.
        let d = not_found(
            text.as_bytes(),
            "fn Compute(a: i32, b: i32) -> i32 {",
            "x",
            "",
            crate::model::Said::CANONICAL,
            &Budget::checks(1 + 2 * chunks + CANDIDATES as u64),
            &[],
        );
        assert!(!d.incomplete);
        assert_eq!(d.closest_match.as_ref().unwrap().line_number, 200_013);
        assert_eq!(kinds(&d), vec!["case"]);
        // Nothing anchors: the full scan runs, and does not fit.
        let search = "SELECT * FROM accounts WHERE id = 7";
        let d = not_found(
            text.as_bytes(),
            search,
            "x",
            "",
            crate::model::Said::CANONICAL,
            &Budget::checks(1 + 3 * chunks + scan_checks / 2),
            &[],
        );
        assert!(d.incomplete);
        let d = diag(&text, search, "x");
        assert!(!d.incomplete && d.closest_match.is_none());
    }

    #[test]
    fn nothing_similar_gives_no_candidate() {
        let d = diag(RUST, "SELECT * FROM accounts WHERE id = 7", "x");
        assert_eq!(d.closest_match, None);
        assert_eq!(d.message, None);
    }

    #[test]
    fn already_applied() {
        let d = diag(
            RUST,
            "let total = compute(1, 1);",
            "let total = compute(1, 2);",
        );
        assert_eq!(d.already_applied, Some((9, 9)));
        let m = d.message.unwrap();
        assert!(m.contains("already") && m.contains("line 9"), "{m}");
        // Too short to prove anything.
        assert_eq!(diag(RUST, "a + c", "a + b").already_applied, None);
        // Not unique: no claim.
        let text = format!("{RUST}{RUST}");
        assert_eq!(
            diag(&text, "zzz", "let name = \"world\";").already_applied,
            None
        );
        // CRLF file, LF replacement.
        let text = RUST.replace('\n', "\r\n");
        let d = diag(
            &text,
            "fn compute(a: i32, b: i32) -> i32 {\n    a - b\n",
            "fn compute(a: i32, b: i32) -> i32 {\n    a + b\n",
        );
        assert_eq!(d.already_applied, Some((13, 14)));
        // Present, but nothing says the block was meant for that place (a
        // short replacement can stand anywhere)...
        let d = diag(&text, "q", "    a + b\n}\n");
        assert_eq!(d.already_applied, None);
        // ...unless it is long and the block is nowhere near any more.
        let d = diag(
            &text,
            "fn calc(x: u8)",
            "fn compute(a: i32, b: i32) -> i32 {\n    a + b\n",
        );
        assert_eq!(d.already_applied, Some((13, 14)));
    }

    #[test]
    fn budget_gives_up_on_huge_input() {
        // ~6 MB, with the search block's lines near the end.
        let mut text = "let value = compute(item, 42);\n".repeat(200_000);
        text.push_str(RUST);
        let search = "    let total = compute(1, 3);\n    println!(\"{total}\");";
        // Two checks allow the start; the scan checks every CHECK_EVERY
        // lines and must stop long before its end.
        let d = not_found(
            text.as_bytes(),
            search,
            "x",
            "",
            Said::CANONICAL,
            &Budget::checks(2),
            &[],
        );
        assert!(d.incomplete);
        assert_eq!(d.closest_match, None);
        assert!(d.message.unwrap().contains("too large"));
        // An expired budget is honoured before any scanning.
        let d = not_found(
            text.as_bytes(),
            search,
            "x",
            "",
            Said::CANONICAL,
            &Budget::checks(0),
            &[],
        );
        assert!(d.incomplete);
        // With budget, the same input is diagnosed.
        let d = not_found(
            text.as_bytes(),
            search,
            "x",
            "",
            Said::CANONICAL,
            &Budget::new(u64::MAX),
            &[],
        );
        assert!(!d.incomplete);
        assert_eq!(d.closest_match.unwrap().line_number, 200_009);
        let d = ambiguous(text.as_bytes(), b"compute(item", &Budget::checks(1));
        assert!(d.incomplete);
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(crate::text::test_seeds::config(400))]
        // Whatever the input: no panic, and a closest match is a real region
        // whose text and line numbers agree with its byte range.
        #[test]
        fn closest_match_is_consistent(text in texty(), search in texty(), cut in 0usize..60, len in 1usize..30) {
            // Half the time, search a mutated piece of the text.
            let chars: Vec<char> = text.chars().collect();
            let search = if cut % 2 == 0 && !chars.is_empty() {
                let a = cut.min(chars.len() - 1);
                let b = (a + len).min(chars.len());
                let piece: String = chars[a..b].iter().collect();
                piece.replace(' ', "  ").replace('“', "\"")
            } else {
                search
            };
            prop_assume!(!search.is_empty() && !text.contains(&search));
            let d = not_found(text.as_bytes(), &search, "r", "", Said::CANONICAL, &Budget::new(u64::MAX), &[]);
            if let Some(c) = d.closest_match {
                prop_assert!(c.start <= c.end && c.end <= text.len());
                prop_assert_eq!(&c.text, &text[c.start..c.end]);
                prop_assert_eq!(c.line_number, 1 + text[..c.start].matches('\n').count());
                // The last line is the one the region's final newline ends,
                // or the one it stops inside.
                let newlines = memchr::memchr_iter(b'\n', &text.as_bytes()[..c.end]).count();
                let ends_line = c.end > c.start && text.as_bytes()[c.end - 1] == b'\n';
                prop_assert_eq!(c.end_line, newlines + usize::from(!ends_line));
                prop_assert!(!c.differences.is_empty());
            }
        }
    }
}
