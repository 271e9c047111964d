//! The journal trusts only what it wrote, where only its user could write:
//! damaged, planted or foreign files in its directory are listed as damaged
//! or left alone, never followed, never a hang or an abort; undo is a write
//! like any other (owner, mode, attributes come back, set-id never under
//! another owner); the replaced inode is kept instead of a copy.
//!
//! The cases with a second user need root: the test creates the user with
//! `useradd`, runs this binary as that user with `setpriv`, and removes the
//! user afterwards; without root they say so and return.
#![cfg(target_os = "linux")]

use crate::common;

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use patch_file_core::api;
use serde_json::{json, Value};

/// A workspace and a journal base directory of its own.
struct Ws {
    _t: tempfile::TempDir,
    root: PathBuf,
    jbase: PathBuf,
}

fn ws() -> Ws {
    let t = tempfile::tempdir().unwrap();
    let base = t.path().canonicalize().unwrap();
    let root = base.join("ws");
    fs::create_dir(&root).unwrap();
    let jbase = base.join("journal");
    Ws { _t: t, root, jbase }
}

fn opts(root: &Path, jbase: &Path) -> Value {
    json!({"workspaceRoot": root, "durable": false, "journal": {"dir": jbase}})
}

impl Ws {
    fn o(&self) -> Value {
        opts(&self.root, &self.jbase)
    }
    fn with(&self, extra: Value) -> Value {
        let mut o = self.o();
        for (k, v) in extra.as_object().unwrap() {
            if k == "journal" {
                for (jk, jv) in v.as_object().unwrap() {
                    o["journal"][jk] = jv.clone();
                }
            } else {
                o[k] = v.clone();
            }
        }
        o
    }
    fn patch(&self, file: &str, search: &str, replace: &str) -> Value {
        api::patch_file(
            &json!({"file_path": file, "search": search, "replace": replace}),
            Some(&self.o()),
        )
    }
    fn history(&self) -> Value {
        ok(&api::history(&json!({"limit": 1000}), Some(&self.o()))).clone()
    }
    fn undo(&self, input: Value) -> Value {
        api::undo(&input, Some(&self.o()))
    }
    /// The workspace's own journal directory (`<base>/<key>`).
    fn jdir(&self) -> PathBuf {
        PathBuf::from(self.history()["journal"].as_str().unwrap())
    }
}

fn ok(v: &Value) -> &Value {
    assert_eq!(v["ok"], true, "{v:#}");
    v
}

fn warnings(v: &Value) -> String {
    v["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The files of the journal directory `j` ending in `suffix`, sorted.
fn named(j: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(j)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// Runs `f` on its own thread and fails the test if it has not answered
/// after two minutes (a hang), instead of hanging the test run.
fn answers<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(120))
        .unwrap_or_else(|_| panic!("{what} did not answer: it hangs"))
}

fn mkfifo(p: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        p,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

fn set_xattr(p: &Path, name: &str, value: &[u8]) -> bool {
    rustix::fs::lsetxattr(p, name, value, rustix::fs::XattrFlags::empty()).is_ok()
}

fn get_xattr(p: &Path, name: &str) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 4096];
    let n = rustix::fs::lgetxattr(p, name, &mut buf).ok()?;
    buf.truncate(n);
    Some(buf)
}

// ---------------------------------------------------------------------------
// A second user

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// A user created for one test and removed when dropped.
struct User {
    name: String,
    uid: u32,
    gid: u32,
}

impl User {
    /// `None` (with a note) when the test cannot make one.
    fn create(tag: &str) -> Option<User> {
        if !is_root() {
            eprintln!("SKIP: needs root to create a second user");
            return None;
        }
        let name = format!("pftj{}{tag}", std::process::id() % 100_000);
        let made = Command::new("useradd")
            .args(["-M", "-U", "-s", "/usr/sbin/nologin", &name])
            .status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("SKIP: useradd failed");
            return None;
        }
        let id = |flag: &str| -> u32 {
            let o = Command::new("id").args([flag, &name]).output().unwrap();
            String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
        };
        Some(User {
            uid: id("-u"),
            gid: id("-g"),
            name,
        })
    }

    /// Runs the child role `test` of this binary as this user with `env`;
    /// returns the JSON it printed on its `RESULT:` line.
    fn run(&self, test: &str, env: &[(&str, &OsStr)]) -> Value {
        let mut c = Command::new("setpriv");
        c.arg(format!("--reuid={}", self.uid))
            .arg(format!("--regid={}", self.gid))
            .arg("--clear-groups")
            .arg(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &common::test_name(module_path!(), test),
                "--nocapture",
                "--test-threads=1",
            ]);
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{test} as {}: {out}\n{}",
            self.name,
            String::from_utf8_lossy(&o.stderr)
        );
        let line = out
            .split_once("RESULT:")
            .and_then(|(_, r)| r.lines().next())
            .unwrap_or_else(|| panic!("{test} printed no result: {out}"));
        serde_json::from_str(line).unwrap()
    }
}

impl Drop for User {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(&self.name).status();
        let _ = Command::new("groupdel").arg(&self.name).status();
    }
}

fn chown(p: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::lchown(p, Some(uid), Some(gid)).unwrap();
}

fn chmod(p: &Path, mode: u32) {
    fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
}

/// The child roles read their paths from the environment.
fn env_path(k: &str) -> Option<PathBuf> {
    std::env::var_os(k).map(PathBuf::from)
}

fn result(v: &Value) {
    println!("RESULT:{v}");
}

// ---------------------------------------------------------------------------
// 4. A recorded length is checked against the file before anything is
//    allocated.

/// Rewrites the header line of the entry file `p` with `f`, keeping the
/// rest of the file.
fn edit_header(p: &Path, f: impl FnOnce(&str) -> String) {
    let bytes = fs::read(p).unwrap();
    let nl = bytes.iter().position(|&b| b == b'\n').unwrap();
    let header = std::str::from_utf8(&bytes[..nl]).unwrap();
    let mut out = f(header).into_bytes();
    out.extend_from_slice(&bytes[nl..]);
    fs::write(p, out).unwrap();
}

#[test]
fn a_huge_recorded_length_is_damage_not_an_abort() {
    let w = ws();
    fs::write(w.root.join("a.txt"), "one\n").unwrap();
    ok(&w.patch("a.txt", "one", "two"));
    let j = w.jdir();
    let entry = named(&j, ".entry").pop().unwrap();
    // The saved content's length says 2^40 bytes.
    edit_header(&entry, |h| {
        let at = h.find("\"blob\":[0,").expect("the content is inline");
        let end = at + h[at..].find(']').unwrap();
        format!("{}\"blob\":[0,1099511627776{}", &h[..at], &h[end..])
    });
    let h = w.history();
    let t = &h["transactions"][0];
    assert_eq!(t["damaged"], true, "{h:#}");
    assert_eq!(t["undoable"], false);
    let u = w.undo(json!({}));
    assert_eq!(u["ok"], false, "{u:#}");
    let u = w.undo(json!({"id": t["id"]}));
    assert_eq!(u["code"], "JOURNAL_DAMAGED", "{u:#}");
    assert_eq!(fs::read(w.root.join("a.txt")).unwrap(), b"two\n");
}

// ---------------------------------------------------------------------------
// 5. Journal files are never opened through a link, and another user's
//    state is never used.

#[test]
fn a_symlinked_state_file_is_never_followed() {
    let w = ws();
    fs::write(w.root.join("a.txt"), "0\n").unwrap();
    ok(&w.patch("a.txt", "0", "1"));
    let j = w.jdir();
    let victim = w.root.parent().unwrap().join("victim");
    fs::write(&victim, "precious\n").unwrap();
    for name in ["state", "lock"] {
        let p = j.join(name);
        let _ = fs::remove_file(&p);
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        let r = w.patch("a.txt", "1", "2");
        ok(&r);
        assert!(warnings(&r).contains("not journaled"), "{r:#}");
        assert_eq!(fs::read(&victim).unwrap(), b"precious\n", "{name}");
        assert_eq!(fs::read(w.root.join("a.txt")).unwrap(), b"2\n");
        fs::remove_file(&p).unwrap();
        ok(&w.patch("a.txt", "2", "1"));
    }
}

/// Child role: as the second user, make a journal in `PFT_J_BASE` for the
/// workspace `PFT_J_ROOT`, then put a link to `PFT_J_VICTIM` in place of
/// its `state` file.
#[test]
fn child_plant_state_link() {
    let (Some(root), Some(base), Some(victim)) = (
        env_path("PFT_J_ROOT"),
        env_path("PFT_J_BASE"),
        env_path("PFT_J_VICTIM"),
    ) else {
        return;
    };
    let o = opts(&root, &base);
    ok(&api::patch_file(
        &json!({"file_path": "a.txt", "search": "0", "replace": "1"}),
        Some(&o),
    ));
    let h = api::history(&json!({}), Some(&o));
    let j = PathBuf::from(h["journal"].as_str().unwrap());
    fs::remove_file(j.join("state")).unwrap();
    std::os::unix::fs::symlink(&victim, j.join("state")).unwrap();
    result(&json!({"journal": j}));
}

#[test]
fn root_never_uses_another_users_state_directory() {
    let Some(u) = User::create("s") else { return };
    let t = tempfile::tempdir().unwrap();
    let top = t.path().canonicalize().unwrap();
    chmod(&top, 0o755);
    let root = top.join("ws");
    let base = top.join("userstate");
    fs::create_dir(&root).unwrap();
    fs::create_dir(&base).unwrap();
    fs::write(root.join("a.txt"), "0\n").unwrap();
    for p in [&root, &base, &root.join("a.txt")] {
        chown(p, u.uid, u.gid);
    }
    chmod(&base, 0o700);
    let victim = top.join("root-secret");
    fs::write(&victim, "root's own bytes\n").unwrap();
    chmod(&victim, 0o600);
    u.run(
        "child_plant_state_link",
        &[
            ("PFT_J_ROOT", root.as_os_str()),
            ("PFT_J_BASE", base.as_os_str()),
            ("PFT_J_VICTIM", victim.as_os_str()),
        ],
    );
    // Root edits the user's file with the user's state directory (as
    // `sudo -E` would): the edit is made, nothing is journaled there, and
    // root's file is untouched.
    let r = api::patch_file(
        &json!({"file_path": "a.txt", "search": "1", "replace": "2"}),
        Some(&opts(&root, &base)),
    );
    ok(&r);
    assert!(warnings(&r).contains("not journaled"), "{r:#}");
    assert!(warnings(&r).contains(&format!("uid {}", u.uid)), "{r:#}");
    assert_eq!(fs::read(&victim).unwrap(), b"root's own bytes\n");
    assert_eq!(fs::read(root.join("a.txt")).unwrap(), b"2\n");
}

// ---------------------------------------------------------------------------
// 6. Nothing the journal did not create is deleted.

#[test]
fn pruning_never_deletes_what_the_journal_did_not_create() {
    let w = ws();
    fs::create_dir_all(&w.jbase).unwrap();
    chmod(&w.jbase, 0o700);
    // A folder of the user's with a `root` file naming no existing path,
    // and one named like a journal.
    let mine = w.jbase.join("notes");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("root"), "/no/such/path").unwrap();
    fs::write(mine.join("keep.txt"), "mine\n").unwrap();
    let like = w.jbase.join("0123456789abcdef0123456789abcdef");
    fs::create_dir(&like).unwrap();
    fs::write(like.join("root"), "/no/such/path").unwrap();
    fs::write(like.join("state"), "1 0 0").unwrap();
    // A journal of the engine's own, whose workspace is then removed, with
    // a file of someone else's inside.
    let gone = w.root.parent().unwrap().join("gone");
    fs::create_dir(&gone).unwrap();
    fs::write(gone.join("g.txt"), "g\n").unwrap();
    let og = opts(&gone, &w.jbase);
    ok(&api::patch_file(
        &json!({"file_path": "g.txt", "search": "g", "replace": "h"}),
        Some(&og),
    ));
    let gj = PathBuf::from(
        api::history(&json!({}), Some(&og))["journal"]
            .as_str()
            .unwrap(),
    );
    fs::write(gj.join("README.txt"), "not the journal's\n").unwrap();
    fs::remove_dir_all(&gone).unwrap();
    // Not written for longer than the retention.
    let month = std::time::Duration::from_secs(31 * 24 * 3600);
    fs::File::options()
        .write(true)
        .open(gj.join("state"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() - month)
        .unwrap();
    // A new workspace's journal is made: the pruning runs.
    fs::write(w.root.join("a.txt"), "a\n").unwrap();
    ok(&w.patch("a.txt", "a", "b"));
    assert_eq!(fs::read(mine.join("keep.txt")).unwrap(), b"mine\n");
    assert_eq!(fs::read(mine.join("root")).unwrap(), b"/no/such/path");
    assert_eq!(fs::read(like.join("state")).unwrap(), b"1 0 0");
    // The gone workspace's journal lost its own files, not the other one.
    assert!(gj.is_dir());
    assert_eq!(
        fs::read(gj.join("README.txt")).unwrap(),
        b"not the journal's\n"
    );
    assert!(named(&gj, ".entry").is_empty(), "its entries are pruned");
}

/// A workspace whose root cannot be opened for a moment (renamed, a drive
/// not mounted, a sandbox's own mounts) keeps its journal when another
/// workspace's journal is made: the journal is the only copy of what undo
/// brings back, and it was pruned as "gone".
#[test]
fn a_workspace_out_of_sight_keeps_its_journal() {
    let w = ws();
    fs::create_dir_all(&w.jbase).unwrap();
    chmod(&w.jbase, 0o700);
    let away = w.root.parent().unwrap().join("away");
    fs::create_dir(&away).unwrap();
    fs::write(away.join("g.txt"), "g\n").unwrap();
    let oa = opts(&away, &w.jbase);
    ok(&api::patch_file(
        &json!({"file_path": "g.txt", "search": "g", "replace": "h"}),
        Some(&oa),
    ));
    let moved = w.root.parent().unwrap().join("away.moved");
    fs::rename(&away, &moved).unwrap();
    fs::write(w.root.join("a.txt"), "a\n").unwrap();
    ok(&w.patch("a.txt", "a", "b"));
    fs::rename(&moved, &away).unwrap();
    let h = ok(&api::history(&json!({}), Some(&oa))).clone();
    assert_eq!(h["transactions"].as_array().unwrap().len(), 1, "{h}");
    ok(&api::undo(&json!({}), Some(&oa)));
    assert_eq!(fs::read_to_string(away.join("g.txt")).unwrap(), "g\n");
}

// ---------------------------------------------------------------------------
// 7. A root that is not UTF-8 is recorded exactly.

#[test]
fn a_non_utf8_root_keeps_its_journal_and_its_spelling() {
    let w = ws();
    let top = w.root.parent().unwrap();
    let real = top.join(OsStr::from_bytes(b"caf\xe9-\xff"));
    fs::create_dir(&real).unwrap();
    fs::write(real.join("a.txt"), "one\n").unwrap();
    // The only way to name it in JSON: a link with a UTF-8 name.
    let link = top.join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = opts(&link, &w.jbase);
    let p = ok(&api::patch_file(
        &json!({"file_path": "a.txt", "search": "one", "replace": "two"}),
        Some(&o),
    ))
    .clone();
    let h = ok(&api::history(&json!({}), Some(&o))).clone();
    assert_eq!(h["transactions"].as_array().unwrap().len(), 1);
    assert_eq!(
        h["workspace_root"].as_str().unwrap(),
        real.to_string_lossy(),
        "rendered as every result renders a path"
    );
    // Recorded exactly: the journal's marker holds the root's own bytes.
    let j = PathBuf::from(h["journal"].as_str().unwrap());
    let hex: String = real
        .as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let marker: String = fs::read_dir(&j)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".entry"))
        .filter_map(|p| fs::read_to_string(p).ok())
        .collect();
    assert!(marker.contains(&hex), "{marker}");
    // Another workspace's journal is made (the pruning runs): this one stays.
    fs::write(w.root.join("b.txt"), "b\n").unwrap();
    ok(&w.patch("b.txt", "b", "c"));
    let h = ok(&api::history(&json!({}), Some(&o))).clone();
    assert_eq!(h["transactions"].as_array().unwrap().len(), 1, "{h:#}");
    let u = ok(&api::undo(&json!({}), Some(&o))).clone();
    assert_eq!(u["files"][0]["file_path"], p["file_path"]);
    assert_eq!(fs::read(real.join("a.txt")).unwrap(), b"one\n");
}

// ---------------------------------------------------------------------------
// 8. Transactions recorded without content are listed, not undoable.

#[test]
fn transactions_without_content_are_listed_as_not_undoable() {
    let w = ws();
    fs::write(w.root.join("a.txt"), "small\n").unwrap();
    fs::write(w.root.join("b.txt"), format!("{}\nend\n", "x".repeat(300))).unwrap();
    // A batch whose second file is over maxFileBytes.
    ok(&api::batch_patch_files(
        &json!({"files": [
            {"file_path": "a.txt", "search": "small", "replace": "SMALL"},
            {"file_path": "b.txt", "search": "end", "replace": "END"}
        ]}),
        Some(&w.with(json!({"journal": {"maxFileBytes": 100}}))),
    ));
    let h = w.history();
    let ts = h["transactions"].as_array().unwrap();
    assert_eq!(ts.len(), 1, "{h:#}");
    assert_eq!(ts[0]["undoable"], false);
    assert!(ts[0]["why_not_undoable"]
        .as_str()
        .unwrap()
        .contains("b.txt"));
    assert_eq!(ts[0]["files"].as_array().unwrap().len(), 2);
    assert_eq!(w.undo(json!({}))["code"], "INVALID_INPUT");
    // One file over maxBytes (the cap then also evicts the older entry).
    ok(&api::patch_file(
        &json!({"file_path": "b.txt", "search": "END", "replace": "end"}),
        Some(&w.with(json!({"journal": {"maxBytes": 200}}))),
    ));
    let h = w.history();
    let t = &h["transactions"][0];
    assert_eq!(t["id"], "2", "{h:#}");
    assert_eq!(t["undoable"], false);
    assert!(
        t["why_not_undoable"].as_str().unwrap().contains("maxBytes"),
        "{h:#}"
    );
    assert_eq!(w.undo(json!({}))["code"], "INVALID_INPUT");
}

// ---------------------------------------------------------------------------
// 9. Undo is a write like any other.

#[test]
fn undo_of_a_delete_brings_back_mode_and_attributes() {
    let w = ws();
    let f = w.root.join("run.sh");
    fs::write(&f, "#!/bin/sh\necho hi\n").unwrap();
    chmod(&f, 0o751);
    let xattr = set_xattr(&f, "user.pft-test", b"kept");
    let before = fs::metadata(&f).unwrap();
    ok(&api::apply_patch(
        &json!("*** Begin Patch\n*** Delete File: run.sh\n*** End Patch\n"),
        Some(&w.o()),
    ));
    assert!(!f.exists());
    ok(&w.undo(json!({})));
    let after = fs::metadata(&f).unwrap();
    assert_eq!(fs::read(&f).unwrap(), b"#!/bin/sh\necho hi\n");
    assert_eq!(after.mode() & 0o7777, 0o751);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    if xattr {
        assert_eq!(
            get_xattr(&f, "user.pft-test").as_deref(),
            Some(&b"kept"[..])
        );
    } else {
        eprintln!("(no user xattrs on this file system: mode only)");
    }
}

/// A POSIX access ACL granting `uid` read, as the kernel stores it.
fn acl_granting(uid: u32) -> Vec<u8> {
    let mut v = 2u32.to_le_bytes().to_vec();
    for (tag, perm, id) in [
        (0x01u16, 7u16, u32::MAX),
        (0x02, 4, uid),
        (0x04, 5, u32::MAX),
        (0x10, 5, u32::MAX),
        (0x20, 5, u32::MAX),
    ] {
        v.extend_from_slice(&tag.to_le_bytes());
        v.extend_from_slice(&perm.to_le_bytes());
        v.extend_from_slice(&id.to_le_bytes());
    }
    v
}

#[test]
fn undo_as_root_of_a_deleted_setuid_file_restores_owner_mode_acl_and_xattrs() {
    let Some(u) = User::create("r") else { return };
    let w = ws();
    let f = w.root.join("tool");
    fs::write(&f, "#!/bin/sh\nid\n").unwrap();
    chown(&f, u.uid, u.gid);
    chmod(&f, 0o4755);
    let acl = acl_granting(u.uid + 1);
    let have_acl = set_xattr(&f, "system.posix_acl_access", &acl);
    assert!(set_xattr(&f, "user.origin", b"theirs"));
    let want_acl = get_xattr(&f, "system.posix_acl_access");
    let mode = fs::metadata(&f).unwrap().mode() & 0o7777;
    ok(&api::apply_patch(
        &json!("*** Begin Patch\n*** Delete File: tool\n*** End Patch\n"),
        Some(&w.o()),
    ));
    ok(&w.undo(json!({})));
    let m = fs::metadata(&f).unwrap();
    assert_eq!((m.uid(), m.gid()), (u.uid, u.gid), "the user's again");
    assert_eq!(m.mode() & 0o7777, mode);
    assert_eq!(
        get_xattr(&f, "user.origin").as_deref(),
        Some(&b"theirs"[..])
    );
    if have_acl {
        assert_eq!(get_xattr(&f, "system.posix_acl_access"), want_acl);
    }
}

/// Child role: as the second user, delete `PFT_J_ROOT`'s `tool` (another
/// user's set-uid file in a directory this user may write) and undo it.
#[test]
fn child_delete_and_undo() {
    let (Some(root), Some(base)) = (env_path("PFT_J_ROOT"), env_path("PFT_J_BASE")) else {
        return;
    };
    let o = opts(&root, &base);
    ok(&api::apply_patch(
        &json!("*** Begin Patch\n*** Delete File: tool\n*** End Patch\n"),
        Some(&o),
    ));
    let u = api::undo(&json!({}), Some(&o));
    let m = fs::metadata(root.join("tool")).unwrap();
    result(&json!({"undo": u, "uid": m.uid(), "mode": m.mode() & 0o7777}));
}

#[test]
fn undo_never_gives_set_id_bits_to_another_owner() {
    let Some(u) = User::create("u") else { return };
    let t = tempfile::tempdir().unwrap();
    let top = t.path().canonicalize().unwrap();
    chmod(&top, 0o755);
    let root = top.join("ws");
    let base = top.join("state");
    fs::create_dir(&root).unwrap();
    fs::create_dir(&base).unwrap();
    chown(&root, u.uid, u.gid);
    chown(&base, u.uid, u.gid);
    chmod(&base, 0o700);
    // Root's set-uid program in the user's directory.
    let f = root.join("tool");
    fs::write(&f, "#!/bin/sh\nid\n").unwrap();
    chmod(&f, 0o4755);
    let r = u.run(
        "child_delete_and_undo",
        &[
            ("PFT_J_ROOT", root.as_os_str()),
            ("PFT_J_BASE", base.as_os_str()),
        ],
    );
    ok(&r["undo"]);
    assert_eq!(r["uid"], u.uid, "recreated by the user: the user's file");
    assert_eq!(r["mode"], 0o755, "without set-uid: {r:#}");
    assert_eq!(fs::read(&f).unwrap(), b"#!/bin/sh\nid\n");
}

// ---------------------------------------------------------------------------
// 10. FIFOs hang nothing.

#[test]
fn a_fifo_named_like_an_entry_hangs_neither_history_nor_undo() {
    let w = ws();
    fs::write(w.root.join("a.txt"), "a\n").unwrap();
    ok(&w.patch("a.txt", "a", "b"));
    let j = w.jdir();
    mkfifo(&j.join("0000000099-100.entry"));
    let o = w.o();
    let h = answers("history", move || api::history(&json!({}), Some(&o)));
    ok(&h);
    let t = &h["transactions"][0];
    assert_eq!(t["id"], "99", "{h:#}");
    assert_eq!(t["damaged"], true);
    let o = w.o();
    let u = answers("undo 99", move || api::undo(&json!({"id": "99"}), Some(&o)));
    assert_eq!(u["code"], "JOURNAL_DAMAGED", "{u:#}");
    let o = w.o();
    let u = answers("undo", move || api::undo(&json!({}), Some(&o)));
    ok(&u);
    assert_eq!(fs::read(w.root.join("a.txt")).unwrap(), b"a\n");
    let o = w.o();
    ok(&answers("journalClear", move || {
        api::journal_clear(&json!({}), Some(&o))
    }));
}

#[test]
fn a_fifo_in_place_of_the_state_file_hangs_no_edit() {
    let w = ws();
    fs::write(w.root.join("a.txt"), "0\n").unwrap();
    ok(&w.patch("a.txt", "0", "1"));
    let j = w.jdir();
    for name in ["state", "lock"] {
        fs::remove_file(j.join(name)).unwrap();
        mkfifo(&j.join(name));
        let o = w.o();
        let r = answers("an edit", move || {
            api::patch_file(
                &json!({"file_path": "a.txt", "search": "1", "replace": "2"}),
                Some(&o),
            )
        });
        ok(&r);
        assert!(warnings(&r).contains("not journaled"), "{r:#}");
        let o = w.o();
        ok(&answers("history", move || {
            api::history(&json!({}), Some(&o))
        }));
        fs::remove_file(j.join(name)).unwrap();
        ok(&w.patch("a.txt", "2", "1"));
    }
}

// ---------------------------------------------------------------------------
// 11. A journal belongs to one project, is never reached through a link,
//     and says when an entry is damaged.

#[test]
fn a_new_project_at_an_old_path_starts_a_new_journal() {
    let w = ws();
    fs::write(w.root.join("old.txt"), "old\n").unwrap();
    ok(&api::apply_patch(
        &json!("*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n"),
        Some(&w.o()),
    ));
    assert_eq!(w.history()["transactions"].as_array().unwrap().len(), 1);
    fs::remove_dir_all(&w.root).unwrap();
    fs::create_dir(&w.root).unwrap();
    let h = w.history();
    assert_eq!(h["transactions"], json!([]), "{h:#}");
    let d = w.undo(json!({"dry_run": true}));
    assert_eq!(d["code"], "INVALID_INPUT", "{d:#}");
    assert!(!w.root.join("old.txt").exists());
}

#[test]
fn a_journal_folder_that_is_a_symlink_is_not_followed() {
    let w = ws();
    fs::write(w.root.join("a.txt"), "0\n").unwrap();
    ok(&w.patch("a.txt", "0", "1"));
    let j = w.jdir();
    let elsewhere = w.root.parent().unwrap().join("elsewhere");
    fs::rename(&j, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &j).unwrap();
    let before = common::tree(&elsewhere);
    let r = w.patch("a.txt", "1", "2");
    ok(&r);
    assert!(warnings(&r).contains("not journaled"), "{r:#}");
    assert_eq!(
        common::tree(&elsewhere),
        before,
        "nothing written through it"
    );
    let h = api::history(&json!({}), Some(&w.o()));
    assert_eq!(h["ok"], false, "{h:#}");
    assert!(h["message"].as_str().unwrap().contains("symlink"), "{h:#}");
}

#[test]
fn a_hand_edited_entry_is_damaged_not_changed() {
    let w = ws();
    fs::write(w.root.join("a.txt"), "first\n").unwrap();
    ok(&w.patch("a.txt", "first", "second"));
    let entry = named(&w.jdir(), ".entry").pop().unwrap();
    // The same length, another path: a hand edit.
    edit_header(&entry, |h| h.replace("\"a.txt\"", "\"b.txt\""));
    let h = w.history();
    assert_eq!(h["transactions"][0]["damaged"], true, "{h:#}");
    let u = w.undo(json!({"id": h["transactions"][0]["id"]}));
    assert_eq!(u["code"], "JOURNAL_DAMAGED", "{u:#}");
    assert!(u["message"].as_str().unwrap().contains("damaged"));
    assert_eq!(fs::read(w.root.join("a.txt")).unwrap(), b"second\n");
    assert!(!w.root.join("b.txt").exists());
}

// ---------------------------------------------------------------------------
// Zero-copy journaling.

#[test]
fn an_edit_keeps_the_replaced_inode_instead_of_a_copy() {
    let w = ws();
    let f = w.root.join("big.txt");
    let body = format!("{}\nmarker\n", "line of text\n".repeat(80_000));
    fs::write(&f, &body).unwrap();
    let ino = fs::metadata(&f).unwrap().ino();
    ok(&w.patch("big.txt", "marker", "MARKER"));
    let j = w.jdir();
    let kept = named(&j, ".kept");
    assert_eq!(kept.len(), 1, "{kept:?}");
    let m = fs::metadata(&kept[0]).unwrap();
    assert_eq!(m.ino(), ino, "the original inode itself");
    assert_eq!(m.nlink(), 1, "the journal's link only");
    let entry = named(&j, ".entry").pop().unwrap();
    assert!(
        fs::metadata(&entry).unwrap().len() < 4096,
        "no copy of the content in the entry"
    );
    // A journaled file is not hard-linked: the next edit goes through.
    ok(&w.patch("big.txt", "MARKER", "marker2"));
    ok(&w.undo(json!({})));
    ok(&w.undo(json!({})));
    assert_eq!(fs::read(&f).unwrap(), body.as_bytes());
}

#[test]
fn a_link_the_journal_holds_is_not_counted_as_another_hard_link() {
    let w = ws();
    let f = w.root.join("f.txt");
    let body = format!("{}\nend\n", "text\n".repeat(50_000));
    fs::write(&f, &body).unwrap();
    ok(&w.patch("f.txt", "end", "END"));
    let kept = named(&w.jdir(), ".kept").pop().expect("the inode is kept");
    // The journal's inode gets a second name inside the workspace.
    let g = w.root.join("g.txt");
    fs::hard_link(&kept, &g).unwrap();
    let r = w.patch("g.txt", "end", "fin");
    ok(&r);
    assert_eq!(r["write_strategy"], "rename");
    assert_eq!(fs::read(&kept).unwrap(), body.as_bytes(), "kept intact");
    // A real second link is still refused.
    let h = w.root.join("h.txt");
    fs::hard_link(&g, &h).unwrap();
    assert_eq!(w.patch("g.txt", "fin", "end")["code"], "HARD_LINKED_FILE");
    fs::remove_file(&h).unwrap();
    // The first edit still undoes from the kept inode.
    let id = w.history()["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["files"][0]["file_path"] == "f.txt")
        .unwrap()["id"]
        .clone();
    ok(&w.undo(json!({"id": id})));
    assert_eq!(fs::read(&f).unwrap(), body.as_bytes());
}

#[test]
fn kept_inodes_count_against_the_byte_cap_and_go_with_their_entries() {
    let w = ws();
    let f = w.root.join("k.txt");
    fs::write(&f, format!("{}\nv0\n", "x".repeat(100_000))).unwrap();
    let capped = w.with(json!({"journal": {"maxBytes": 350_000}}));
    for i in 0..8 {
        ok(&api::patch_file(
            &json!({"file_path": "k.txt", "search": format!("v{i}\n"), "replace": format!("v{}\n", i + 1)}),
            Some(&capped),
        ));
    }
    let j = w.jdir();
    let kept = named(&j, ".kept");
    let entries = named(&j, ".entry");
    assert!(kept.len() <= 3, "{kept:?}");
    assert_eq!(kept.len(), entries.len(), "one kept inode per entry left");
    for k in &kept {
        let id = k.file_name().unwrap().to_string_lossy()[..10].to_string();
        assert!(
            entries
                .iter()
                .any(|e| e.file_name().unwrap().to_string_lossy().starts_with(&id)),
            "{k:?} without its entry"
        );
    }
    // The newest still undoes from its kept inode.
    ok(&w.undo(json!({})));
    assert!(fs::read_to_string(&f).unwrap().ends_with("v7\n"));
}

#[test]
fn a_journal_on_another_file_system_copies_instead() {
    if !is_root() {
        eprintln!("SKIP: needs root to mount a tmpfs");
        return;
    }
    let w = ws();
    let other = w.root.parent().unwrap().join("tmpfs");
    fs::create_dir(&other).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16m", "pft-journal-test"])
        .arg(&other)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("SKIP: cannot mount a tmpfs here");
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _u = Unmount(other.clone());
    let o = opts(&w.root, &other.join("journal"));
    let body = format!("{}\nend\n", "y".repeat(200_000));
    fs::write(w.root.join("b.txt"), &body).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "b.txt", "search": "end", "replace": "END"}),
        Some(&o),
    );
    ok(&r);
    assert!(warnings(&r).is_empty(), "{r:#}");
    let h = ok(&api::history(&json!({}), Some(&o))).clone();
    let j = PathBuf::from(h["journal"].as_str().unwrap());
    assert!(named(&j, ".kept").is_empty(), "no link across file systems");
    let entry = named(&j, ".entry").pop().unwrap();
    assert!(
        fs::metadata(&entry).unwrap().len() > 200_000,
        "the content is copied"
    );
    ok(&api::undo(&json!({}), Some(&o)));
    assert_eq!(fs::read_to_string(w.root.join("b.txt")).unwrap(), body);
}

/// A file of `len` bytes (more than the journal copies: its inode is kept
/// when it is deleted), mode 0640, with a user xattr where the file system
/// has them; and a descriptor opened on it before anything else happens.
fn kept_on_delete(w: &Ws, len: usize) -> (PathBuf, Vec<u8>, fs::File, bool) {
    let f = w.root.join("big.txt");
    let content: Vec<u8> = (0..len).map(|i| b"abcdefghij\n"[i % 11]).collect();
    fs::write(&f, &content).unwrap();
    chmod(&f, 0o640);
    let xattr = set_xattr(&f, "user.pft-test", b"recorded");
    let fd = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&f)
        .unwrap();
    ok(&api::apply_patch(
        &json!("*** Begin Patch\n*** Delete File: big.txt\n*** End Patch\n"),
        Some(&w.o()),
    ));
    assert!(!f.exists());
    assert_eq!(named(&w.jdir(), ".kept").len(), 1, "the inode was kept");
    (f, content, fd, xattr)
}

#[test]
fn undo_of_a_delete_restores_the_recorded_mode_not_what_the_kept_inode_has_now() {
    let w = ws();
    let (f, content, fd, xattr) = kept_on_delete(&w, 200 << 10);
    // Whoever held the file open changes the kept inode's metadata.
    fd.set_permissions(fs::Permissions::from_mode(0o6777))
        .unwrap();
    assert_eq!(fd.metadata().unwrap().mode() & 0o7777, 0o6777);
    if xattr {
        rustix::fs::fsetxattr(
            &fd,
            "user.pft-test",
            b"changed",
            rustix::fs::XattrFlags::empty(),
        )
        .unwrap();
        rustix::fs::fsetxattr(
            &fd,
            "user.pft-added",
            b"later",
            rustix::fs::XattrFlags::empty(),
        )
        .unwrap();
    }
    ok(&w.undo(json!({})));
    let m = fs::metadata(&f).unwrap();
    assert_eq!(m.mode() & 0o7777, 0o640, "the mode recorded at the delete");
    assert_eq!(fs::read(&f).unwrap(), content);
    if xattr {
        assert_eq!(
            get_xattr(&f, "user.pft-test").as_deref(),
            Some(&b"recorded"[..])
        );
        assert_eq!(get_xattr(&f, "user.pft-added"), None);
    } else {
        eprintln!("(no user xattrs on this file system: mode only)");
    }
}

#[test]
fn undo_of_a_delete_refuses_when_the_kept_inode_was_written_since() {
    use std::os::unix::fs::FileExt;
    let w = ws();
    let (f, _, fd, _) = kept_on_delete(&w, 200 << 10);
    // The same length, other bytes: only the content check can tell.
    fd.write_all_at(b"XXXXXXXXXX", 1000).unwrap();
    let u = w.undo(json!({}));
    assert_eq!(u["code"], "JOURNAL_DAMAGED", "{u:#}");
    assert!(
        u["message"]
            .as_str()
            .unwrap()
            .contains("the kept previous content of `big.txt` was written to since"),
        "{u:#}"
    );
    assert!(!f.exists(), "nothing was written");
    let dry = w.undo(json!({"dry_run": true}));
    assert_eq!(dry["code"], "JOURNAL_DAMAGED", "{dry:#}");
}

/// A link put in place of a file after it was written, or after a dry run
/// read it, leads to another file: undo and applyDryRun refuse
/// (`FILE_CHANGED`) rather than write that file, though it holds the bytes
/// they expect.
#[cfg(unix)]
#[test]
fn a_link_put_in_place_of_a_file_is_not_followed_by_undo_or_a_dry_run() {
    let w = ws();
    let (a, b) = (w.root.join("a.txt"), w.root.join("b.txt"));
    let swap = || {
        fs::rename(&a, w.root.join("a.bak")).unwrap();
        std::os::unix::fs::symlink("b.txt", &a).unwrap();
    };
    // undo: a.txt was written "new"; b.txt also holds "new".
    fs::write(&a, "old\n").unwrap();
    fs::write(&b, "new\n").unwrap();
    assert_eq!(w.patch("a.txt", "old", "new")["ok"], true);
    swap();
    let r = w.undo(json!({}));
    assert_eq!(r["code"], "FILE_CHANGED", "{r}");
    assert_eq!(fs::read_to_string(&b).unwrap(), "new\n");
    // applyDryRun: the dry run read a.txt "same"; b.txt also holds "same".
    fs::remove_file(&a).unwrap();
    fs::remove_file(w.root.join("a.bak")).unwrap();
    fs::write(&a, "same\n").unwrap();
    fs::write(&b, "same\n").unwrap();
    let dry = api::patch_file(
        &json!({"file_path": "a.txt", "search": "same", "replace": "new", "dry_run": true}),
        Some(&w.o()),
    );
    let run_id = dry["run_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{dry}"))
        .to_string();
    swap();
    let r = api::apply_dry_run(&json!({"run_id": run_id}), Some(&w.o()));
    assert_eq!(r["code"], "FILE_CHANGED", "{r}");
    assert_eq!(fs::read_to_string(&b).unwrap(), "same\n");
}
