//! Placing anchored line edits (`editLines`) in a file's text: every
//! anchor is judged against one snapshot of what the caller read (or, with
//! none kept, against the current line numbers), then the edits become
//! byte spans of the current text, refused together when any anchor does
//! not hold or two edits overlap. Pure: the pipeline reads the file and
//! writes the result (`txn::lines`).

use crate::result::lines::{AnchorProblem, Verified};

use super::anchors::{
    diff_map, id_of, map_line_in, positions, tagged, tie, Anchor, Line, Mapped, Positions, Tie,
};

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
    /// The line break new lines get (the file's own; LF in a file with
    /// both, whose new lines take the break of the line they are anchored
    /// on).
    pub(crate) eol: &'t [u8],
    /// The file has both CRLF and LF breaks.
    pub(crate) mixed: bool,
}

impl<'t> Current<'t> {
    /// The break of line `i`; for a last line without one, the break of
    /// the line before it (else [`Current::eol`]).
    fn break_of(&self, i: usize) -> &'t [u8] {
        let at = |k: usize| self.lines.get(k).map(|l| &self.text[l.end..l.next]);
        match (at(i), i.checked_sub(1).and_then(at)) {
            (Some(b), _) if !b.is_empty() => b,
            (_, Some(b)) if !b.is_empty() => b,
            _ => self.eol,
        }
    }

    /// The break new lines anchored on line `i` (none: at an end of the
    /// file, `at_end`) get: the file's own; in a file with both, the
    /// anchored line's (at the start, the first line's; at the end, the
    /// last line's).
    fn eol_at(&self, i: Option<usize>, at_end: bool) -> &'t [u8] {
        let n = self.lines.len();
        if !self.mixed || n == 0 {
            return self.eol;
        }
        self.break_of(i.unwrap_or(if at_end { n - 1 } else { 0 }))
    }

    /// Whether the last line has no line break.
    fn open_end(&self) -> bool {
        self.lines.last().is_some_and(|l| l.next == l.end)
    }

    /// The break the last line is read with when it has none (so that every
    /// line ends with one while the edits are placed; taken off again by
    /// [`pieces`]): the break of the line before it, else the file's.
    ///
    /// A last line ending with a lone CR (`c\r`) is given the LF that makes
    /// it a CRLF, not a second CR (`c\r\r\n`).
    fn virtual_break(&self) -> &'t [u8] {
        if !self.open_end() {
            return &[];
        }
        let b = self.break_of(self.lines.len() - 1);
        &b[crate::text::lines::break_written(self.text, b)..]
    }

    /// Where line `i` ends, its break included (a virtual one for a last
    /// line without a break).
    fn next(&self, i: usize) -> usize {
        let l = self.lines[i];
        if i + 1 == self.lines.len() && l.next == l.end {
            l.next + self.virtual_break().len()
        } else {
            l.next
        }
    }
}

/// An anchor refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    pub(crate) edit: usize,
    pub(crate) anchor: String,
    pub(crate) problem: AnchorProblem,
    /// The current lines around (tagged), and which (0-based `from..to`).
    pub(crate) lines: String,
    pub(crate) shown: (usize, usize),
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
    /// Order among spans at the same byte: an insertion at the start of
    /// the file first, then other insertions, then a replacement.
    rank: u8,
    /// The index of its edit in the call.
    pub(crate) edit: usize,
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
    /// The diff from the read to the file as it is now did not end in time.
    OutOfTime,
}

/// A kept read with anchors of the file: every line's key, and the lines
/// each read of that content showed (0-based `from..to`) with its stamp
/// (larger is newer).
pub(crate) struct KeptRead<'a> {
    pub(crate) keys: &'a [u64],
    pub(crate) shown: &'a [(u64, u64, u64)],
}

impl KeptRead<'_> {
    /// The stamp of the newest read of this content that showed line `i`.
    fn showed(&self, i: usize) -> Option<u64> {
        let i = i as u64;
        self.shown
            .iter()
            .filter(|s| s.0 <= i && i < s.1)
            .map(|s| s.2)
            .max()
    }
}

/// The read an edit's anchors are judged against, and when it showed
/// them: of the reads that showed each anchored line with the anchor's ID
/// there, the one that showed them last (a read of other lines gave the
/// caller none of them). `Err(())`: reads showed those lines, none with
/// those IDs (the anchors are older than every read kept of them, or
/// wrong). `Ok(None)`: no read showed them.
fn read_for(reads: &[KeptRead<'_>], anchors: &[&Anchor]) -> Result<Option<(usize, u64)>, ()> {
    let mut showed = false;
    let best = reads
        .iter()
        .enumerate()
        .filter_map(|(r, k)| {
            let stamps: Option<Vec<u64>> = anchors.iter().map(|a| k.showed(a.line)).collect();
            let stamp = stamps?.into_iter().min()?;
            showed = true;
            let fits = anchors
                .iter()
                .all(|a| k.keys.get(a.line).is_some_and(|&key| id_of(key) == a.id));
            fits.then_some((stamp, r))
        })
        .max();
    match best {
        Some((stamp, r)) => Ok(Some((r, stamp))),
        None if showed => Err(()),
        None => Ok(None),
    }
}

/// Line diffs between kept reads and the file as it is now, each made once
/// and bounded by a deadline.
struct Diffs<'a> {
    cur: &'a [u64],
    reads: &'a [KeptRead<'a>],
    deadline: Option<std::time::Instant>,
    made: std::collections::HashMap<(usize, usize), Vec<Option<usize>>>,
    /// Where each key is in a read or the file ([`positions`]), by target.
    at: std::collections::HashMap<usize, Positions>,
    /// The keys of a read or the file, as a set, by target.
    sets: std::collections::HashMap<usize, std::collections::HashSet<u64>>,
    /// Whether two reads (or a read and the file) have the same content,
    /// compared once: a comparison costs the file's lines, and a call asks
    /// it for each of up to 10,000 anchors.
    same: std::collections::HashMap<(usize, usize), bool>,
    /// The mapped lines nearest each line of a read's map to the file, by
    /// read ([`Nearest`]).
    nearest: std::collections::HashMap<usize, Nearest>,
}

/// For the map of a read's lines to the file's, the nearest mapped line
/// below and at or above each line: a refused anchor's window is found
/// without walking the unmapped lines around it (in a file changed all
/// over, a walk of the whole map for each of thousands of anchors).
struct Nearest {
    /// `below[i]`: the last mapped line before `i` (`i` up to the map's
    /// length).
    below: Vec<Option<usize>>,
    /// `from[i]`: the first mapped line at or after `i`.
    from: Vec<Option<usize>>,
}

impl Nearest {
    fn of(map: &[Option<usize>]) -> Nearest {
        let n = map.len();
        let mut below = vec![None; n + 1];
        for k in 0..n {
            below[k + 1] = if map[k].is_some() { Some(k) } else { below[k] };
        }
        let mut from = vec![None; n + 1];
        for k in (0..n).rev() {
            from[k] = if map[k].is_some() {
                Some(k)
            } else {
                from[k + 1]
            };
        }
        Nearest { below, from }
    }

    /// [`near`], in constant time.
    fn near(&self, map: &[Option<usize>], i: usize) -> usize {
        let n = map.len();
        let below = self.below[i.min(n)].and_then(|k| map[k].map(|j| j + (i - k)));
        let above = (i < n)
            .then(|| self.from[i])
            .flatten()
            .and_then(|k| map[k].map(|j| j.saturating_sub(k - i)));
        below.or(above).unwrap_or(i)
    }
}

/// The file as it is now, as a target of [`Diffs::map`].
const NOW: usize = usize::MAX;

impl<'a> Diffs<'a> {
    /// Whether the deadline has passed.
    fn late(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
    }

    fn keys(&self, r: usize) -> &'a [u64] {
        if r == NOW {
            self.cur
        } else {
            self.reads[r].keys
        }
    }

    /// The current line nearest to where line `line` of the read that
    /// judges anchor `i` of an edit (`judged`) went, or `line`.
    fn near(&mut self, judged: Judged, i: usize, line: usize) -> usize {
        let Some((r, _)) = judged.via(i) else {
            return line;
        };
        let Some(map) = self.made.get(&(r, NOW)) else {
            return line;
        };
        self.nearest
            .entry(r)
            .or_insert_with(|| Nearest::of(map))
            .near(map, line)
    }

    /// Whether `a` and `b` (reads, or [`NOW`]) have the same content.
    fn same(&mut self, a: usize, b: usize) -> bool {
        let (ka, kb) = (self.keys(a), self.keys(b));
        *self
            .same
            .entry((a.min(b), a.max(b)))
            .or_insert_with(|| ka == kb)
    }

    /// Where `lines` of read `from` are in `to` (a read, or [`NOW`]). When
    /// none of them is anywhere in `to`, nothing is diffed: each changed.
    fn map(&mut self, from: usize, to: usize, lines: &[usize]) -> Result<Vec<Mapped>, NotPlaced> {
        let (a, b) = (self.keys(from), self.keys(to));
        // The same content: every line is where it was (in a long run of
        // equal lines, too, where a diff could not say which it is).
        if self.same(from, to) {
            return Ok(lines.iter().map(|&l| Mapped::At(l)).collect());
        }
        if !self.made.contains_key(&(from, to)) {
            // None of these lines anywhere in `to`: each changed, with no
            // diff (and none kept: other lines asked later may be there).
            let there = self
                .sets
                .entry(to)
                .or_insert_with(|| b.iter().copied().collect());
            if !lines
                .iter()
                .any(|&l| a.get(l).is_some_and(|k| there.contains(k)))
            {
                return Ok(vec![Mapped::Changed; lines.len()]);
            }
            let m = diff_map(a, b, self.deadline).ok_or(NotPlaced::OutOfTime)?;
            self.made.insert((from, to), m);
        }
        for r in [from, to] {
            if self.late() {
                return Err(NotPlaced::OutOfTime);
            }
            let keys = self.keys(r);
            self.at.entry(r).or_insert_with(|| positions(keys));
        }
        let m = &self.made[&(from, to)];
        let (at_a, at_b) = (&self.at[&from], &self.at[&to]);
        // Each line's check looks at up to a run's length around it: many
        // anchors in long runs are bounded by the same deadline.
        lines
            .iter()
            .map(|&l| match self.late() {
                true => Err(NotPlaced::OutOfTime),
                false => Ok(match map_line_in(a, b, m, l, (at_a, at_b)) {
                    Mapped::At(j) => match tie(m, (l, j), (a, b), (at_a, at_b)) {
                        Tie::Pinned => Mapped::At(j),
                        Tie::LeftBehind => Mapped::Changed,
                        Tie::Loose => Mapped::Several(vec![j]),
                    },
                    mapped => mapped,
                }),
            })
            .collect()
    }
}

/// Each edit's anchors (`pos`, `end`) as current 0-based lines.
type Located = Vec<(Option<usize>, Option<usize>)>;

/// How one edit's anchors are judged: against a read (its index, and
/// whether a newer read shows one of its lines gone since), against the
/// current line numbers (no read showed them), or refused (reads showed
/// those lines, none as the anchors name them).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Judged {
    Read(usize, bool),
    /// A range whose `pos` and `end` no one read showed, each shown by a
    /// read of its own (a file read in pages, changed between them): each
    /// anchor against its read, as `Read` says.
    Split([(usize, bool); 2]),
    Numbers,
    Stale,
}

impl Judged {
    /// The read anchor `i` of the edit is judged against, and whether a
    /// newer read shows its line gone since (`None`: no read).
    fn via(self, i: usize) -> Option<(usize, bool)> {
        match self {
            Judged::Read(r, gone) => Some((r, gone)),
            Judged::Split(each) => Some(each[i]),
            Judged::Numbers | Judged::Stale => None,
        }
    }
}

/// Whether the range `p..=q` of an edit judged `judged`, placed at current
/// lines `jp..=jq`, is still whole: every line of it kept, in one piece;
/// read in two pieces ([`Judged::Split`]), every line now between its ends
/// one its reads showed, unchanged since, in order.
fn whole(
    diffs: &Diffs<'_>,
    reads: &[KeptRead<'_>],
    judged: Judged,
    (p, q): (&Anchor, &Anchor),
    (jp, jq): (usize, usize),
) -> bool {
    let Judged::Split([(a, _), (b, _)]) = judged else {
        return made_map(diffs, judged, 0)
            .is_none_or(|m| (p.line..=q.line).all(|i| m[i] == Some(jp + (i - p.line))));
    };
    // The current lines from `jp` on that read `a` showed from `pos` on,
    // unchanged since and in order, and those up to `jq` that read `b`
    // showed up to `end`: they must meet, every line of the range one the
    // caller was shown. No diff made: that read is of the content as it is
    // now.
    let run =
        |m: Option<&[Option<usize>]>, r: usize, at: &mut dyn Iterator<Item = (usize, usize)>| {
            let now = |i: usize| m.map_or(Some(i), |m| m.get(i).copied().flatten());
            at.take_while(|&(i, j)| reads[r].showed(i).is_some() && now(i) == Some(j))
                .count()
        };
    let up = run(made_map(diffs, judged, 0), a, &mut (p.line..).zip(jp..));
    let down = run(
        made_map(diffs, judged, 1),
        b,
        &mut (0..=q.line).rev().zip((0..=jq).rev()),
    );
    jp <= jq && jq + 1 - down <= jp + up
}

/// The diff from the read anchor `i` of an edit judged `judged` is judged
/// against to the file as it is now, when it was made.
fn made_map<'d>(diffs: &'d Diffs<'_>, judged: Judged, i: usize) -> Option<&'d [Option<usize>]> {
    let (r, _) = judged.via(i)?;
    diffs.made.get(&(r, NOW)).map(Vec::as_slice)
}

/// Whether a read newer than `stamp` (of another content than read `r`)
/// shows one of `lines` of read `r` gone.
fn gone_since(
    diffs: &mut Diffs<'_>,
    reads: &[KeptRead<'_>],
    (r, stamp): (usize, u64),
    lines: &[usize],
) -> Result<bool, NotPlaced> {
    let mut gone = false;
    for (n, k) in reads.iter().enumerate() {
        let newer = k.shown.iter().any(|s| s.2 > stamp);
        if n != r && newer && !diffs.same(n, r) {
            gone |= diffs
                .map(r, n, lines)?
                .iter()
                .any(|m| !matches!(m, Mapped::At(_)));
        }
    }
    Ok(gone)
}

/// How each edit is judged ([`Judged`]): a read that showed its lines, and
/// each newer read of the file, in which those lines must still be (a line
/// read, then changed, then written again by someone else is another
/// line, though the oldest read and the file agree on it).
fn judge(
    diffs: &mut Diffs<'_>,
    reads: &[KeptRead<'_>],
    edits: &[LineEdit],
) -> Result<Vec<Judged>, NotPlaced> {
    let mut out = Vec::with_capacity(edits.len());
    for e in edits {
        let anchors: Vec<&Anchor> = e.pos.iter().chain(e.end.iter()).collect();
        let lines: Vec<usize> = anchors.iter().map(|a| a.line).collect();
        let judged = match read_for(reads, &anchors) {
            _ if anchors.is_empty() => Judged::Numbers,
            Err(()) => Judged::Stale,
            Ok(None) if anchors.len() == 2 => {
                match (
                    read_for(reads, &anchors[..1]),
                    read_for(reads, &anchors[1..]),
                ) {
                    (Ok(Some(a)), Ok(Some(b))) => Judged::Split([
                        (a.0, gone_since(diffs, reads, a, &lines[..1])?),
                        (b.0, gone_since(diffs, reads, b, &lines[1..])?),
                    ]),
                    (Err(()), _) | (_, Err(())) => Judged::Stale,
                    _ => Judged::Numbers,
                }
            }
            Ok(None) => Judged::Numbers,
            Ok(Some((r, stamp))) => Judged::Read(r, gone_since(diffs, reads, (r, stamp), &lines)?),
        };
        out.push(judged);
    }
    Ok(out)
}

/// Where each anchor is now (0-based current line), each edit judged as
/// [`judge`] says; whether some anchor moved, and whether every anchored
/// edit was judged against a read.
fn locate(
    cur: &Current<'_>,
    reads: &[KeptRead<'_>],
    edits: &[LineEdit],
    deadline: Option<std::time::Instant>,
) -> Result<(Located, bool, bool), NotPlaced> {
    let mut diffs = Diffs {
        cur: cur.keys,
        reads,
        deadline,
        made: Default::default(),
        at: Default::default(),
        sets: Default::default(),
        same: Default::default(),
        nearest: Default::default(),
    };
    let judged = judge(&mut diffs, reads, edits)?;
    // Refused anchors (edit, anchor, problem, the current line to show
    // around), and anchors refused or placed at another line than their
    // number.
    let mut refused: Vec<(usize, String, AnchorProblem, usize)> = Vec::new();
    let mut elsewhere: Vec<(usize, [u8; 2])> = Vec::new();
    let mut moved = false;
    let mut at = Vec::with_capacity(edits.len());
    for (k, e) in edits.iter().enumerate() {
        let anchors: Vec<&Anchor> = e.pos.iter().chain(e.end.iter()).collect();
        let lines: Vec<usize> = anchors.iter().map(|a| a.line).collect();
        let mut found: Vec<Result<usize, AnchorProblem>> = Vec::with_capacity(lines.len());
        for (i, a) in anchors.iter().enumerate() {
            found.push(match (judged[k], judged[k].via(i)) {
                (_, Some((r, gone))) => match diffs.map(r, NOW, &[a.line])?.pop() {
                    Some(Mapped::At(j)) if !gone => Ok(j),
                    Some(Mapped::Several(_)) => Err(AnchorProblem::Several),
                    _ => Err(AnchorProblem::Changed),
                },
                (Judged::Stale, _) => Err(AnchorProblem::Changed),
                _ => match cur.keys.get(a.line) {
                    Some(&key) if id_of(key) == a.id => Ok(a.line),
                    Some(_) => Err(AnchorProblem::Mismatch),
                    None => Err(AnchorProblem::BeyondEnd),
                },
            });
        }
        let mut placed = Vec::with_capacity(anchors.len());
        for (i, (a, f)) in anchors.iter().zip(found).enumerate() {
            let problem = match f {
                Ok(j) => {
                    moved |= j != a.line;
                    if j != a.line {
                        elsewhere.push((a.line, a.id));
                    }
                    placed.push(Some(j));
                    continue;
                }
                Err(problem) => problem,
            };
            placed.push(None);
            elsewhere.push((a.line, a.id));
            // Shown around the line where its text now stands once (moved,
            // or swapped with another: the lines the diff pairs around it
            // are another line's), else where its neighbours went.
            let once_now = judged[k].via(i).and_then(|(r, _)| {
                let key = diffs.keys(r).get(a.line)?;
                let at = diffs.at.get(&NOW)?.get(key)?;
                (at.len() == 1).then(|| at[0])
            });
            let near = once_now.unwrap_or_else(|| diffs.near(judged[k], i, a.line));
            refused.push((k, a.show(), problem, near));
        }
        let p = e.pos.as_ref().and(placed.first().copied().flatten());
        let q = e.end.as_ref().and(placed.get(1).copied().flatten());
        at.push((p, q));
        // A range must still be whole (judged against reads: at line
        // numbers nothing is relocated).
        if let (Some(pa), Some(qa), Some(jp)) = (&e.pos, &e.end, p) {
            if judged[k].via(0).is_some()
                && placed.iter().all(Option::is_some)
                && !whole(&diffs, reads, judged[k], (pa, qa), (jp, q.unwrap_or(jp)))
            {
                // data: the range's anchors, `12#ab..14#cd`
                let anchor = format!("{}..{}", pa.show(), qa.show());
                refused.push((k, anchor, AnchorProblem::Changed, jp));
            }
        }
    }
    if !refused.is_empty() {
        let refused = shown_with(cur, reads, &mut diffs, refused, &elsewhere);
        return Err(NotPlaced::Anchors(refused));
    }
    let mut anchored = edits
        .iter()
        .zip(&judged)
        .filter(|(e, _)| e.pos.is_some())
        .map(|(_, j)| j)
        .peekable();
    let by_reads = anchored.peek().is_some()
        && anchored.all(|j| matches!(j, Judged::Read(..) | Judged::Split(_)));
    Ok((at, moved, by_reads))
}

/// Refused anchors shown with the current lines around them; those after
/// are listed without (a call of 10,000 stale anchors over long lines
/// answered with hundreds of megabytes).
pub(crate) const SHOWN_REFUSED: usize = 32;

/// The refused anchors (edit, anchor, problem, the current line to show
/// around), the first [`SHOWN_REFUSED`] with the current lines around it, none of them a line
/// that bears an anchor of `elsewhere` (refused, or placed at another
/// line) at its number with its ID, or one [`claimed`] by a kept read.
fn shown_with(
    cur: &Current<'_>,
    reads: &[KeptRead<'_>],
    diffs: &mut Diffs<'_>,
    refused: Vec<(usize, String, AnchorProblem, usize)>,
    elsewhere: &[(usize, [u8; 2])],
) -> Vec<Refused> {
    // Current lines that bear such an anchor at its number, or that a
    // kept read of another content showed at the same number with the
    // same ID while that line is elsewhere now (a later call naming it
    // from that read would find it claimed by this refusal).
    let mut avoid: std::collections::HashSet<usize> = elsewhere
        .iter()
        .filter(|&&(line, id)| cur.keys.get(line).is_some_and(|&key| id_of(key) == id))
        .map(|&(line, _)| line)
        .collect();
    let n = cur.lines.len();
    for &(_, _, _, near) in refused.iter().take(SHOWN_REFUSED) {
        for x in near.saturating_sub(2)..(near + 3).min(n) {
            if !avoid.contains(&x) && claimed(diffs, reads, cur, x) {
                avoid.insert(x);
            }
        }
    }
    refused
        .into_iter()
        .enumerate()
        .map(|(k, (edit, anchor, problem, near))| {
            let (lines, shown) = match k < SHOWN_REFUSED {
                true => around(cur, near, &avoid),
                false => (String::new(), (0, 0)),
            };
            Refused {
                edit,
                anchor,
                problem,
                lines,
                shown,
            }
        })
        .collect()
}

/// Whether current line `x` is, at its number and with its ID, a line a
/// kept read of another content showed that is not this line now (moved,
/// changed, or not placed in time).
fn claimed(diffs: &mut Diffs<'_>, reads: &[KeptRead<'_>], cur: &Current<'_>, x: usize) -> bool {
    let Some(&now) = cur.keys.get(x) else {
        return false;
    };
    (0..reads.len()).any(|r| {
        let k = &reads[r];
        k.showed(x).is_some()
            && !diffs.same(r, NOW)
            && k.keys.get(x).is_some_and(|&key| id_of(key) == id_of(now))
            && !matches!(diffs.map(r, NOW, &[x]).as_deref(), Ok([Mapped::At(j)]) if *j == x)
    })
}

/// The current line nearest to where snapshot line `i` went (the naive
/// reference of [`Nearest::near`]).
#[cfg(test)]
fn near(map: &[Option<usize>], i: usize) -> usize {
    let below = (0..i.min(map.len()))
        .rev()
        .find_map(|k| map[k].map(|j| j + (i - k)));
    let above = (i..map.len()).find_map(|k| map[k].map(|j| j.saturating_sub(k - i)));
    below.or(above).unwrap_or(i)
}

/// The current lines around `line`, tagged (two before, two after), and
/// which (0-based `from..to`), none of `avoid`: a refusal's lines count as
/// a read of the file, and a line there that bears, at its own number, the
/// anchor of an edit of the call (one placed elsewhere, or one refused)
/// would claim that anchor in the retry (a `}` shown at line 6 while the
/// `}` read at line 6 is now line 9; a record's line sent again as it was
/// refused, now taken from the refusal). The window stops short of such a
/// line; when `line` is one, it is the longer side of it.
fn around(
    cur: &Current<'_>,
    line: usize,
    avoid: &std::collections::HashSet<usize>,
) -> (String, (usize, usize)) {
    let n = cur.lines.len();
    if n == 0 {
        return (String::new(), (0, 0));
    }
    let at = line.min(n - 1);
    let (from, to) = (at.saturating_sub(2), (at + 3).min(n));
    let free = |x: &usize| !avoid.contains(x);
    let below = (from..at).rev().take_while(free).count();
    let above = (at + 1..to).take_while(free).count();
    let (from, to) = if free(&at) {
        (at - below, at + 1 + above)
    } else if above >= below {
        (at + 1, at + 1 + above)
    } else {
        (at - below, at)
    };
    let shown = tagged(cur.text, cur.lines, cur.keys, from, to);
    (String::from_utf8_lossy(&shown).into_owned(), (from, to))
}

/// Places `edits` in the current file, each judged against the kept read
/// that last showed its anchored lines (see [`read_for`]), the diffs to the
/// file ended by `deadline`.
pub(crate) fn place(
    cur: &Current<'_>,
    reads: &[KeptRead<'_>],
    edits: &[LineEdit],
    deadline: Option<std::time::Instant>,
) -> Result<Placed, NotPlaced> {
    let (at, rebased, by_reads) = locate(cur, reads, edits, deadline)?;
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
        .enumerate()
        .map(|(k, (e, &(p, q)))| Span {
            edit: k,
            ..span(cur, e, p, q)
        })
        .collect();
    // At the same byte: an insertion at the start of the file, then other
    // insertions, then a replacement; otherwise stable.
    spans.sort_by_key(|s| (s.start, s.rank));
    Ok(Placed {
        verified: if by_reads {
            Verified::Snapshot
        } else {
            Verified::LineNumbers
        },
        rebased,
        spans,
    })
}

/// The lines, each followed by `eol`.
fn joined(lines: &[String], eol: &[u8]) -> Vec<u8> {
    joined_with(lines, |_| eol)
}

/// The lines, line `k` followed by `eol(k)`.
fn joined_with<'e>(lines: &[String], eol: impl Fn(usize) -> &'e [u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.iter().map(|l| l.len() + 2).sum());
    for (k, l) in lines.iter().enumerate() {
        out.extend_from_slice(l.as_bytes());
        out.extend_from_slice(eol(k));
    }
    out
}

/// The new lines of a replacement of lines `p..=q`, in a file with both
/// breaks: line `k` takes the break of the old line it stands in for
/// (`p + k`), the last new line and any beyond the old ones the break of
/// line `q`, so the break before the next line stays as it was and a line
/// rewritten in place keeps its own. (Taking the first line's break for
/// all turned the break after the range into the other kind.)
fn replaced(cur: &Current<'_>, lines: &[String], (p, q): (usize, usize)) -> Vec<u8> {
    if !cur.mixed {
        return joined(lines, cur.eol);
    }
    let last = lines.len().saturating_sub(1);
    joined_with(lines, |k| {
        cur.break_of(if k == last { q } else { (p + k).min(q) })
    })
}

/// One edit as a span of the current text (`p`, `q`: its anchors' current
/// lines). Every line is placed as if it ended with a break, the last one
/// too (see [`Current::virtual_break`]): [`pieces`] takes the last break
/// off again when the file had none, whatever the edits did at its end.
fn span(cur: &Current<'_>, e: &LineEdit, p: Option<usize>, q: Option<usize>) -> Span {
    let n = cur.lines.len();
    let end_of_file = cur.text.len() + cur.virtual_break().len();
    let added = e.lines.len();
    let insert = |at: usize, line: usize, eol: &[u8], rank: u8| Span {
        start: at,
        end: at,
        new: joined(&e.lines, eol),
        line,
        removed: 0,
        added,
        rank,
        edit: 0,
    };
    match (e.op, p) {
        (LineOp::Replace, Some(p)) => {
            let q = q.unwrap_or(p);
            Span {
                start: cur.lines[p].start,
                end: cur.next(q),
                new: replaced(cur, &e.lines, (p, q)),
                line: p,
                removed: q - p + 1,
                added,
                rank: 2,
                edit: 0,
            }
        }
        (LineOp::Append, Some(p)) => insert(cur.next(p), p + 1, cur.eol_at(Some(p), false), 1),
        (LineOp::Prepend, Some(p)) => insert(cur.lines[p].start, p, cur.eol_at(Some(p), false), 1),
        (LineOp::Prepend, None) => insert(0, 0, cur.eol_at(None, false), 0),
        (_, None) => insert(end_of_file, n, cur.eol_at(None, true), 1),
    }
}

/// The new text as pieces: unchanged slices of the current text (and the
/// virtual break of a last line without one) and the new lines; when the
/// file's last line had no break, the new text's last line has none
/// either.
pub(crate) fn pieces<'t>(cur: &Current<'t>, placed: &'t Placed) -> Vec<&'t [u8]> {
    let (text, vb) = (cur.text, cur.virtual_break());
    let len = text.len();
    let mut out: Vec<&'t [u8]> = Vec::with_capacity(placed.spans.len() * 2 + 2);
    let old = |a: usize, b: usize, out: &mut Vec<&'t [u8]>| {
        if a < b.min(len) {
            out.push(&text[a..b.min(len)]);
        }
        if b > len {
            out.push(&vb[a.max(len) - len..b - len]);
        }
    };
    let mut at = 0;
    for s in &placed.spans {
        old(at, s.start, &mut out);
        out.push(&s.new);
        at = s.end;
    }
    old(at, len + vb.len(), &mut out);
    out.retain(|p| !p.is_empty());
    if cur.open_end() {
        if let Some(last) = out.pop() {
            let cut = if last.ends_with(b"\r\n") {
                2
            } else {
                usize::from(last.ends_with(b"\n"))
            };
            let kept = &last[..last.len() - cut];
            if !kept.is_empty() {
                out.push(kept);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {

    proptest::proptest! {
        #![proptest_config(crate::text::test_seeds::config(500))]
        /// The nearest mapped line found in constant time is the one a walk
        /// over the map finds.
        #[test]
        fn nearest_is_the_walk(
            map in proptest::collection::vec(proptest::option::weighted(0.2, 0usize..50), 0..40),
            i in 0usize..50,
        ) {
            proptest::prop_assert_eq!(Nearest::of(&map).near(&map, i), near(&map, i));
        }
    }
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
            mixed: text.contains("\r\n") && text.replace("\r\n", "").contains('\n'),
        };
        let sk = snap.map(|s| {
            let b = s.as_bytes();
            keys(b, &lines(b))
        });
        let all = [(0, u64::MAX, 1)];
        let reads: Vec<KeptRead<'_>> = sk
            .iter()
            .map(|k| KeptRead {
                keys: k,
                shown: &all,
            })
            .collect();
        let placed = place(&cur, &reads, edits, None)?;
        let out = pieces(&cur, &placed).concat();
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
    fn a_file_without_a_final_break_keeps_having_none_whatever_its_end_becomes() {
        let del = |t: &str, a: usize, b: usize| {
            edit(LineOp::Replace, Some(anchor(t, a)), Some(anchor(t, b)), &[])
        };
        let t = "a\nb";
        let r = |es: &[LineEdit]| apply(t, Some(t), es).unwrap();
        // The last line deleted beside an edit of the line before it.
        assert_eq!(r(&[del(t, 1, 1), del(t, 2, 2)]), "");
        let one = edit(LineOp::Replace, Some(anchor(t, 1)), None, &["A"]);
        assert_eq!(r(&[one, del(t, 2, 2)]), "A");
        let after = edit(LineOp::Append, Some(anchor(t, 1)), None, &["x"]);
        assert_eq!(r(&[after, del(t, 2, 2)]), "a\nx");
        // Every line deleted and lines added at an end: no blank line.
        let z = |op| edit(op, None, None, &["z"]);
        assert_eq!(r(&[del(t, 1, 2), z(LineOp::Prepend)]), "z");
        assert_eq!(
            apply("a", Some("a"), &[del("a", 1, 1), z(LineOp::Append)]).unwrap(),
            "z"
        );
        let t = "a\r\nb";
        let yz = edit(LineOp::Append, None, None, &["y", "z"]);
        assert_eq!(apply(t, Some(t), &[del(t, 1, 2), yz]).unwrap(), "y\r\nz");
        // With a final break, it stays.
        let t = "a\nb\n";
        assert_eq!(
            apply(t, Some(t), &[del(t, 1, 2), z(LineOp::Append)]).unwrap(),
            "z\n"
        );
    }

    #[test]
    fn at_the_ends_of_an_empty_file_a_prepend_comes_first() {
        let last = edit(LineOp::Append, None, None, &["last"]);
        let first = edit(LineOp::Prepend, None, None, &["first"]);
        assert_eq!(apply("", None, &[last, first]).unwrap(), "first\nlast\n");
    }

    #[test]
    fn in_a_file_with_both_breaks_each_edit_takes_its_own_lines_break() {
        let t = "p\r\nq\r\nr\ns\n";
        let e1 = edit(LineOp::Replace, Some(anchor(t, 1)), None, &["P"]);
        let e4 = edit(LineOp::Replace, Some(anchor(t, 4)), None, &["S"]);
        assert_eq!(apply(t, Some(t), &[e1, e4]).unwrap(), "P\r\nq\r\nr\nS\n");
        // Relocated: the break of the line the anchor moved to.
        let read = "p\nq\nr\r\ns\r\n";
        let now = "n1\nn2\np\nq\nr\r\ns\r\n";
        let e = edit(LineOp::Replace, Some(anchor(read, 3)), None, &["R1", "R2"]);
        assert_eq!(
            apply(now, Some(read), &[e]).unwrap(),
            "n1\nn2\np\nq\nR1\r\nR2\r\ns\r\n"
        );
        // A range across both kinds: each line rewritten in place keeps
        // its own break, and the break before the next line stays (the
        // first line's break for all turned `q`'s LF into CRLF).
        let t = "p\r\nq\nr\n";
        let range = |new: &[&str]| {
            let e = edit(LineOp::Replace, Some(anchor(t, 1)), Some(anchor(t, 2)), new);
            apply(t, Some(t), &[e]).unwrap()
        };
        assert_eq!(range(&["P", "Q"]), "P\r\nQ\nr\n");
        assert_eq!(range(&["P"]), "P\nr\n");
        assert_eq!(range(&["P", "Q", "X"]), "P\r\nQ\nX\nr\n");
        let t = "p\nq\r\nr";
        let e = edit(
            LineOp::Replace,
            Some(anchor(t, 1)),
            Some(anchor(t, 3)),
            &["A", "B", "C", "D"],
        );
        assert_eq!(apply(t, Some(t), &[e]).unwrap(), "A\nB\r\nC\r\nD");
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
