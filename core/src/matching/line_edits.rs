//! Placing anchored line edits (`editLines`) in a file's text: every
//! anchor is judged against one snapshot of what the caller read (or, with
//! none kept, against the current line numbers), then the edits become
//! byte spans of the current text, refused together when any anchor does
//! not hold or two edits overlap. Pure: the pipeline reads the file and
//! writes the result (`txn::lines`).

use crate::result::lines::{AnchorProblem, Verified};

use super::anchors::{diff_map, id_of, map_line, tagged, Anchor, Line, Mapped};

/// What an edit does at its anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineOp {
    /// Replace the line `pos` (or `pos..=end`) with the lines (none: delete).
    Replace,
    /// Insert after `pos` (none: at the end of the file).
    Append,
    /// Insert before `pos` (none: at the start of the file).
    Prepend,
}

/// One anchored edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineEdit {
    pub(crate) op: LineOp,
    pub(crate) pos: Option<Anchor>,
    pub(crate) end: Option<Anchor>,
    /// The new lines, without line breaks.
    pub(crate) lines: Vec<String>,
}

/// The file as it is now.
pub(crate) struct Current<'t> {
    pub(crate) text: &'t [u8],
    pub(crate) lines: &'t [Line],
    pub(crate) keys: &'t [u64],
    /// The line break new lines get (the file's own).
    pub(crate) eol: &'t [u8],
}

/// An anchor refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) edit: usize,
    pub(crate) anchor: String,
    pub(crate) problem: AnchorProblem,
    /// The current lines around (tagged).
    pub(crate) lines: String,
}

/// One planned change of the current text: bytes `start..end` become `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) new: Vec<u8>,
    /// 0-based current line where it starts, lines removed, lines added.
    pub(crate) line: usize,
    pub(crate) removed: usize,
    pub(crate) added: usize,
}

/// The edits placed.
#[derive(Debug)]
pub(crate) struct Placed {
    pub(crate) verified: Verified,
    /// Some anchor was found at another line number than it was read at.
    pub(crate) rebased: bool,
    /// By position in the text (edits in the caller's order).
    pub(crate) spans: Vec<Span>,
}

/// Why the edits were not placed.
#[derive(Debug)]
pub(crate) enum NotPlaced {
    Anchors(Vec<Refused>),
    /// Two edits touch the same lines (their indexes).
    Overlap(usize, usize),
}

/// Whether a snapshot's lines agree with every anchor's ID (the snapshot
/// is then taken for the one the caller read).
pub(crate) fn fits(snap: &[u64], edits: &[LineEdit]) -> bool {
    edits
        .iter()
        .flat_map(|e| e.pos.iter().chain(e.end.iter()))
        .all(|a| snap.get(a.line).is_some_and(|&k| id_of(k) == a.id))
}

/// Each edit's anchors (`pos`, `end`) as current 0-based lines.
type Located = Vec<(Option<usize>, Option<usize>)>;

/// Where each anchor is now (0-based current line), judged against `snap`
/// when given; and whether some anchor moved.
fn locate(
    cur: &Current<'_>,
    snap: Option<&[u64]>,
    edits: &[LineEdit],
) -> Result<(Located, bool), Vec<Refused>> {
    let map = snap.map(|s| diff_map(s, cur.keys));
    let mut refused = Vec::new();
    let mut moved = false;
    let mut one = |k: usize, a: &Anchor| -> Option<usize> {
        let problem = match (snap, &map) {
            (Some(s), Some(m)) => match map_line(s, cur.keys, m, a.line) {
                Mapped::At(j) => {
                    moved |= j != a.line;
                    return Some(j);
                }
                Mapped::Changed => AnchorProblem::Changed,
                Mapped::Several(_) => AnchorProblem::Several,
            },
            _ => match cur.keys.get(a.line) {
                Some(&key) if id_of(key) == a.id => return Some(a.line),
                Some(_) => AnchorProblem::Mismatch,
                None => AnchorProblem::BeyondEnd,
            },
        };
        let near = match &map {
            Some(m) => near(m, a.line),
            None => a.line,
        };
        refused.push(Refused {
            edit: k,
            anchor: a.show(),
            problem,
            lines: around(cur, near),
        });
        None
    };
    let mut at = Vec::with_capacity(edits.len());
    for (k, e) in edits.iter().enumerate() {
        let p = e.pos.as_ref().map(|a| one(k, a));
        let q = e.end.as_ref().map(|a| one(k, a));
        at.push((p.flatten(), q.flatten()));
    }
    // A range must still be whole: every line of it kept, in one piece.
    if let (Some(m), true) = (&map, refused.is_empty()) {
        for (k, e) in edits.iter().enumerate() {
            if let (Some(p), Some(q), (Some(jp), Some(_))) = (&e.pos, &e.end, at[k]) {
                let whole = (p.line..=q.line).all(|i| m[i] == Some(jp + (i - p.line)));
                if !whole {
                    refused.push(Refused {
                        edit: k,
                        // data: the range's anchors, `12#ab..14#cd`
                        anchor: format!("{}..{}", p.show(), q.show()),
                        problem: AnchorProblem::Changed,
                        lines: around(cur, jp),
                    });
                }
            }
        }
    }
    if refused.is_empty() {
        Ok((at, moved))
    } else {
        Err(refused)
    }
}

/// The current line nearest to where snapshot line `i` went.
fn near(map: &[Option<usize>], i: usize) -> usize {
    let below = (0..i.min(map.len()))
        .rev()
        .find_map(|k| map[k].map(|j| j + (i - k)));
    let above = (i..map.len()).find_map(|k| map[k].map(|j| j.saturating_sub(k - i)));
    below.or(above).unwrap_or(i)
}

/// The current lines around `line`, tagged (two before, two after).
pub(crate) fn around(cur: &Current<'_>, line: usize) -> String {
    let n = cur.lines.len();
    let at = line.min(n.saturating_sub(1));
    String::from_utf8_lossy(&tagged(
        cur.text,
        cur.lines,
        cur.keys,
        at.saturating_sub(2),
        (at + 3).min(n),
    ))
    .into_owned()
}

/// Places `edits` in the current file, judged against `snap` (the keys of
/// the read the anchors come from) when given.
pub(crate) fn place(
    cur: &Current<'_>,
    snap: Option<&[u64]>,
    edits: &[LineEdit],
) -> Result<Placed, NotPlaced> {
    let (at, rebased) = locate(cur, snap, edits).map_err(NotPlaced::Anchors)?;
    // Lines each edit claims: a replaced range, or the line an insertion
    // is anchored on (an insertion anchored on a replaced line overlaps).
    let claims: Vec<(usize, usize)> = edits
        .iter()
        .zip(&at)
        .filter_map(|(e, &(p, q))| {
            p.map(|p| {
                (
                    p,
                    if e.op == LineOp::Replace {
                        q.unwrap_or(p)
                    } else {
                        p
                    },
                )
            })
        })
        .collect();
    let claimed: Vec<usize> = edits
        .iter()
        .enumerate()
        .filter(|(_, e)| e.pos.is_some())
        .map(|(k, _)| k)
        .collect();
    for x in 0..claims.len() {
        for y in x + 1..claims.len() {
            let (a, b) = (claims[x], claims[y]);
            let both_insert =
                edits[claimed[x]].op != LineOp::Replace && edits[claimed[y]].op != LineOp::Replace;
            if a.0 <= b.1 && b.0 <= a.1 && !both_insert {
                return Err(NotPlaced::Overlap(claimed[x], claimed[y]));
            }
        }
    }
    let mut spans: Vec<Span> = edits
        .iter()
        .zip(&at)
        .map(|(e, &(p, q))| span(cur, e, p, q))
        .collect();
    // Insertions before a replacement at the same byte; otherwise stable.
    spans.sort_by_key(|s| (s.start, s.end > s.start));
    Ok(Placed {
        verified: if snap.is_some() {
            Verified::Snapshot
        } else {
            Verified::LineNumbers
        },
        rebased,
        spans,
    })
}

/// The lines, each followed by `eol` (the last one too when `trailing`).
fn joined(lines: &[String], eol: &[u8], trailing: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        out.extend_from_slice(l.as_bytes());
        if trailing || i + 1 < lines.len() {
            out.extend_from_slice(eol);
        }
    }
    out
}

/// One edit as a span of the current text (`p`, `q`: its anchors' current
/// lines).
fn span(cur: &Current<'_>, e: &LineEdit, p: Option<usize>, q: Option<usize>) -> Span {
    let ls = cur.lines;
    let n = ls.len();
    // The file's last line has no line break.
    let open_end = ls.last().is_some_and(|l| l.next == l.end);
    let added = e.lines.len();
    let insert = |at: usize, line: usize, after_open: bool| {
        let mut new = Vec::new();
        if after_open {
            new.extend_from_slice(cur.eol);
        }
        new.extend(joined(&e.lines, cur.eol, !after_open));
        Span {
            start: at,
            end: at,
            new,
            line,
            removed: 0,
            added,
        }
    };
    match (e.op, p) {
        (LineOp::Replace, Some(p)) => {
            let q = q.unwrap_or(p);
            let last = q + 1 == n && open_end;
            let mut start = ls[p].start;
            if last && e.lines.is_empty() && p > 0 {
                // Keeps the file without a final line break.
                start = ls[p - 1].end;
            }
            Span {
                start,
                end: ls[q].next,
                new: joined(&e.lines, cur.eol, !last),
                line: p,
                removed: q - p + 1,
                added,
            }
        }
        (LineOp::Append, Some(p)) => insert(ls[p].next, p + 1, p + 1 == n && open_end),
        (LineOp::Prepend, Some(p)) => insert(ls[p].start, p, false),
        (LineOp::Prepend, None) => insert(0, 0, false),
        (_, None) => insert(cur.text.len(), n, open_end),
    }
}

#[cfg(test)]
mod tests {
    use super::super::anchors::{keys, line_key, lines};
    use super::*;

    fn anchor(text: &str, line: usize) -> Anchor {
        let ls = lines(text.as_bytes());
        let l = ls[line - 1];
        Anchor {
            line: line - 1,
            id: id_of(line_key(&text.as_bytes()[l.start..l.end])),
        }
    }

    fn apply(text: &str, snap: Option<&str>, edits: &[LineEdit]) -> Result<String, NotPlaced> {
        let t = text.as_bytes();
        let ls = lines(t);
        let ks = keys(t, &ls);
        let eol: &[u8] = if text.contains("\r\n") {
            b"\r\n"
        } else {
            b"\n"
        };
        let cur = Current {
            text: t,
            lines: &ls,
            keys: &ks,
            eol,
        };
        let sk = snap.map(|s| {
            let b = s.as_bytes();
            keys(b, &lines(b))
        });
        let placed = place(&cur, sk.as_deref(), edits)?;
        let mut out = Vec::new();
        let mut at = 0;
        for s in &placed.spans {
            out.extend_from_slice(&t[at..s.start]);
            out.extend_from_slice(&s.new);
            at = s.end;
        }
        out.extend_from_slice(&t[at..]);
        Ok(String::from_utf8(out).unwrap())
    }

    fn edit(op: LineOp, pos: Option<Anchor>, end: Option<Anchor>, new: &[&str]) -> LineEdit {
        LineEdit {
            op,
            pos,
            end,
            lines: new.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn each_op_at_each_place() {
        let t = "a\nb\nc\n";
        let r = |e: LineEdit| apply(t, Some(t), &[e]).unwrap();
        assert_eq!(
            r(edit(LineOp::Replace, Some(anchor(t, 2)), None, &["B"])),
            "a\nB\nc\n"
        );
        assert_eq!(
            r(edit(
                LineOp::Replace,
                Some(anchor(t, 1)),
                Some(anchor(t, 2)),
                &[]
            )),
            "c\n"
        );
        assert_eq!(
            r(edit(LineOp::Append, Some(anchor(t, 3)), None, &["d"])),
            "a\nb\nc\nd\n"
        );
        assert_eq!(
            r(edit(LineOp::Prepend, Some(anchor(t, 1)), None, &["0"])),
            "0\na\nb\nc\n"
        );
        assert_eq!(r(edit(LineOp::Append, None, None, &["z"])), "a\nb\nc\nz\n");
        assert_eq!(r(edit(LineOp::Prepend, None, None, &["z"])), "z\na\nb\nc\n");
        // No final line break: kept without one.
        let t = "a\nb";
        let r = |e: LineEdit| apply(t, Some(t), &[e]).unwrap();
        assert_eq!(r(edit(LineOp::Append, None, None, &["c"])), "a\nb\nc");
        assert_eq!(r(edit(LineOp::Replace, Some(anchor(t, 2)), None, &[])), "a");
        assert_eq!(
            r(edit(LineOp::Replace, Some(anchor(t, 2)), None, &["x", "y"])),
            "a\nx\ny"
        );
        // CRLF kept; an empty file.
        let t = "a\r\nb\r\n";
        assert_eq!(
            apply(
                t,
                None,
                &[edit(LineOp::Append, Some(anchor(t, 1)), None, &["x"])]
            )
            .unwrap(),
            "a\r\nx\r\nb\r\n"
        );
        assert_eq!(
            apply("", None, &[edit(LineOp::Append, None, None, &["x"])]).unwrap(),
            "x\n"
        );
    }

    #[test]
    fn shifted_lines_are_followed_and_changed_ones_refused() {
        let read = "fn a() {\n}\nfn b() {\n}\n";
        let now = "// new\n// lines\nfn a() {\n}\nfn b() {\n}\n";
        let e = edit(LineOp::Replace, Some(anchor(read, 4)), None, &["} // b"]);
        assert_eq!(
            apply(now, Some(read), std::slice::from_ref(&e)).unwrap(),
            "// new\n// lines\nfn a() {\n}\nfn b() {\n} // b\n"
        );
        // Without the snapshot, line 4 is now `}` of a(): same ID, wrong line.
        assert_eq!(
            apply(now, None, &[e]).unwrap(),
            "// new\n// lines\nfn a() {\n} // b\nfn b() {\n}\n"
        );
        let changed = "fn a() {\n}\nfn b(x) {\n}\n";
        let e = edit(LineOp::Replace, Some(anchor(read, 3)), None, &["fn b(y) {"]);
        match apply(changed, Some(read), &[e]) {
            Err(NotPlaced::Anchors(r)) => {
                assert_eq!(r[0].problem, AnchorProblem::Changed);
                assert!(r[0].lines.contains("|fn b(x) {"), "{:?}", r);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn overlapping_edits_are_refused() {
        let t = "a\nb\nc\n";
        let e1 = edit(
            LineOp::Replace,
            Some(anchor(t, 1)),
            Some(anchor(t, 2)),
            &["x"],
        );
        let e2 = edit(LineOp::Append, Some(anchor(t, 2)), None, &["y"]);
        assert!(matches!(
            apply(t, Some(t), &[e1.clone(), e2]),
            Err(NotPlaced::Overlap(0, 1))
        ));
        let e3 = edit(LineOp::Append, Some(anchor(t, 3)), None, &["y"]);
        assert_eq!(apply(t, Some(t), &[e1, e3]).unwrap(), "x\nc\ny\n");
    }
}
