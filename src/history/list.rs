//! Reading the journal as a whole: `history`, which lists every entry
//! (damaged ones as damaged), and `journalClear`.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::io;
use std::path::PathBuf;

use serde_json::{json, Value};

use super::entry::{self, Damage, Entry};
use super::store::{self, Name, State, Store};
use crate::error::{fail_value, ErrorCode, Failure};
use crate::io::workspace::{Intent, Workspace};
use crate::model::Options;

/// One entry as listed: whole, or damaged (never acted on).
pub(crate) enum Listed {
    Whole(Box<Entry>),
    Damaged { id: u64, damage: Damage },
}

impl Listed {
    pub(crate) fn id(&self) -> u64 {
        match self {
            Listed::Whole(e) => e.id,
            Listed::Damaged { id, .. } => *id,
        }
    }
}

/// Every entry of `store`, oldest first.
pub(crate) fn entries(store: &Store) -> io::Result<Vec<Listed>> {
    let mut by_id: BTreeMap<u64, Vec<OsString>> = BTreeMap::new();
    for (name, n) in store.names()? {
        if let Name::Entry { id, .. } = n {
            by_id.entry(id).or_default().push(name);
        }
    }
    Ok(by_id
        .into_iter()
        .map(|(id, names)| match names.as_slice() {
            [one] => match entry::read(store, id, one) {
                Ok(e) => Listed::Whole(Box::new(e)),
                Err(damage) => Listed::Damaged { id, damage },
            },
            _ => Listed::Damaged {
                id,
                damage: Damage {
                    kind: "bad_fields",
                    why: format!("{} entry files have this id", names.len()),
                },
            },
        })
        .collect())
}

/// id -> the id of the entry that undid it (the newest such).
pub(crate) fn undone_by(all: &[Listed]) -> HashMap<u64, u64> {
    let mut m = HashMap::new();
    for l in all {
        if let Listed::Whole(e) = l {
            if let Some(t) = e.undoes() {
                m.insert(t, e.id);
            }
        }
    }
    m
}

/// The workspace's journal directory's path (for results), whether or not
/// it exists; `None` when there is no per-user state directory.
pub(crate) fn journal_path(ws: &Workspace, opts: &Options) -> Option<PathBuf> {
    store::path_for(&opts.journal, ws)
}

/// The workspace's journal for reading or changing: `Ok(None)` when there
/// is none yet; a failure result when there can be none (no state
/// directory) or it fails a trust check.
pub(crate) fn open_existing(ws: &Workspace, opts: &Options) -> Result<Option<Store>, Failure> {
    let path = journal_path(ws, opts).ok_or_else(|| {
        Failure::invalid(
            "there is no journal: no per-user state directory (set PATCH_FILE_STATE_DIR, PATCH_FILE_JOURNAL or \
             options.journal)",
        )
    })?;
    store::open(&opts.journal, ws, false).map_err(|e| {
        Failure::new(
            ErrorCode::FILE_READ_ERROR,
            format!("cannot use the journal `{}`: {e}", path.display()),
        )
    })
}

/// The reason a damaged entry is not undoable.
pub(crate) fn damaged_why(id: u64, d: &Damage) -> String {
    format!(
        "transaction {id} is damaged in the journal ({}: {}); it is never acted on",
        d.kind, d.why
    )
}

/// One entry of `history`.
fn listed_value(l: &Listed, undone: &HashMap<u64, u64>) -> Value {
    let e = match l {
        Listed::Whole(e) => e,
        Listed::Damaged { id, damage } => {
            return json!({
                "id": id.to_string(),
                "files": [],
                "undoable": false,
                "damaged": true,
                "damage": damage.kind,
                "why_not_undoable": damaged_why(*id, damage),
            });
        }
    };
    let shown: Vec<Value> = e
        .files()
        .iter()
        .filter(|f| f.moved_to.is_none())
        .map(|f| {
            let mut o = json!({
                "file_path": f.path,
                "kind": if f.moved_from.is_some() { "moved" } else { f.kind.as_str() },
                "added": f.added,
                "removed": f.removed,
            });
            if let Some(from) = &f.moved_from {
                o["from"] = json!(from);
            }
            o
        })
        .collect();
    let mut v = json!({
        "id": e.id.to_string(),
        "time": e.header.time,
        "entry_point": e.header.entry,
        "files": shown,
        "undoable": e.undoable() && !undone.contains_key(&e.id),
    });
    if let Some(w) = &e.header.why_not_undoable {
        v["why_not_undoable"] = json!(w);
    }
    if let Some(by) = undone.get(&e.id) {
        v["undone_by"] = json!(by.to_string());
        v["why_not_undoable"] = json!(format!(
            "already undone by transaction {by} (undo {by} to redo)"
        ));
    }
    if let Some(t) = e.undoes() {
        v["undoes"] = json!(t.to_string());
        v["redo"] = json!(e.depth() % 2 == 0);
    }
    v
}

/// `history`: the workspace's transactions, newest first.
pub fn history(ws: &Workspace, opts: &Options, limit: usize, file: Option<&str>) -> Value {
    let store = match open_existing(ws, opts) {
        Ok(s) => s,
        Err(f) => return fail_value(&f, None),
    };
    let all = match store.as_ref().map(entries).transpose() {
        Ok(a) => a.unwrap_or_default(),
        Err(e) => {
            let f = Failure::new(
                ErrorCode::FILE_READ_ERROR,
                format!("cannot list the journal: {e}"),
            );
            return fail_value(&f, None);
        }
    };
    let undone = undone_by(&all);
    let want = file.map(|p| {
        ws.resolve(p, Intent::Plan { create_dirs: false })
            .map(|r| r.rel_path)
            .unwrap_or_else(|_| p.trim_start_matches("./").to_string())
    });
    let touches = |l: &Listed| match (&want, l) {
        (None, _) => true,
        (Some(w), Listed::Whole(e)) => e
            .files()
            .iter()
            .any(|f| f.path == *w || f.moved_from.as_deref() == Some(w)),
        (Some(_), Listed::Damaged { .. }) => false,
    };
    let out: Vec<Value> = all
        .iter()
        .rev()
        .filter(|l| touches(l))
        .take(limit)
        .map(|l| listed_value(l, &undone))
        .collect();
    json!({
        "ok": true,
        "workspace_root": ws.root().to_string_lossy(),
        "journal": journal_path(ws, opts).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default(),
        "enabled": opts.journal.enabled,
        "transactions": out,
    })
}

/// `journal clear`: removes every entry of the workspace's journal (the
/// journal's own files only).
pub fn clear(ws: &Workspace, opts: &Options) -> Value {
    let path = journal_path(ws, opts)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut store = match open_existing(ws, opts) {
        Ok(Some(s)) => s,
        Ok(None) => return json!({"ok": true, "removed": 0, "journal": path}),
        Err(f) => return fail_value(&f, None),
    };
    let fail = |what: &str, e: io::Error| {
        let f = Failure::new(
            ErrorCode::FILE_WRITE_ERROR,
            format!("cannot {what} the journal `{path}`: {e}"),
        );
        fail_value(&f, None)
    };
    if let Err(e) = store.lock() {
        return fail("lock", e);
    }
    let names = match store.names() {
        Ok(n) => n,
        Err(e) => return fail("list", e),
    };
    // Ids keep counting after a clear (an old id never names a new entry).
    let next = match store.state() {
        Ok(Some(s)) => s.next,
        _ => store.rebuild().map_or(1, |s| s.next),
    };
    let _ = store.write_next(next);
    let _ = store.write_state(&State {
        next,
        count: 0,
        bytes: 0,
    });
    let mut n = 0;
    for (name, kind) in &names {
        if store.remove(name) && matches!(kind, Name::Entry { .. }) {
            n += 1;
        }
    }
    store.sync();
    json!({"ok": true, "removed": n, "journal": path})
}
