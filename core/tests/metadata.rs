//! An edit changes the content and nothing else: owner, group, mode,
//! set-id bits, ACLs, extended attributes, `chattr` flags and hard links
//! survive, or the call refuses. Each case runs as root and, where it
//! matters, as an unprivileged user: a thread of this process drops to
//! another uid/gid (Linux credentials are per thread), so the engine runs
//! exactly as it would in that user's process.
//!
//! Needs root (to create files owned by others) and the `acl` and `attr`
//! tools (`setfacl`, `getfacl`, `setfattr`, `getfattr`; `.ci/run` installs
//! them); without them each test says so and returns.
#![cfg(target_os = "linux")]

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, Once};

use patch_file_core::api;
use serde_json::{json, Value};

const OWNER: u32 = 1000;
const EDITOR: u32 = 1001;
const SHARED_GROUP: u32 = 2000;

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether the test can run; says why not.
fn ready(tools: &[&str]) -> bool {
    if !is_root() {
        eprintln!("SKIP: needs root to create files owned by other users");
        return false;
    }
    for t in tools {
        if !have(t) {
            eprintln!("SKIP: `{t}` is not installed (apt-get install acl attr)");
            return false;
        }
    }
    true
}

/// Base of the per-user state directories of these tests.
fn state_base() -> PathBuf {
    std::env::temp_dir().join(format!("pft-metadata-state-{}", std::process::id()))
}

/// The private state directory of `uid` (the engine trusts only one it
/// owns, 0700), made current: `PATCH_FILE_STATE_DIR` is set to it.
fn use_state_of(uid: u32) {
    let d = state_base().join(uid.to_string());
    fs::create_dir_all(&d).unwrap();
    std::os::unix::fs::chown(&d, Some(uid), Some(uid)).unwrap();
    fs::set_permissions(&d, fs::Permissions::from_mode(0o700)).unwrap();
    std::env::set_var("PATCH_FILE_STATE_DIR", &d);
}

/// One test at a time: the per-user state directory is chosen through the
/// process environment, which every thread shares.
static SERIAL: Mutex<()> = Mutex::new(());

/// A scratch directory (mode 0777 so that other uids may work in it), kept
/// with the lock that runs these tests one at a time; the engine runs with
/// root's private state until [`as_user`] switches it.
struct Scratch {
    _dir: tempfile::TempDir,
    _one: MutexGuard<'static, ()>,
}

fn scratch() -> (Scratch, PathBuf) {
    let one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    static BASE: Once = Once::new();
    BASE.call_once(|| {
        fs::create_dir_all(state_base()).unwrap();
        fs::set_permissions(state_base(), fs::Permissions::from_mode(0o755)).unwrap();
    });
    use_state_of(0);
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o777)).unwrap();
    (Scratch { _dir: t, _one: one }, root)
}

fn sh(cmd: &str) -> String {
    let o = Command::new("sh").args(["-c", cmd]).output().unwrap();
    assert!(
        o.status.success(),
        "`{cmd}` failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The `chattr` flags of `p`, as `lsattr` shows them.
fn flags(p: &Path) -> String {
    sh(&format!("lsattr -d {}", q(p)))
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

fn q(p: &Path) -> String {
    format!("'{}'", p.display())
}

/// Everything about a file but its bytes, as the tools print it.
#[derive(Debug, PartialEq, Eq)]
struct Facts {
    uid: u32,
    gid: u32,
    mode: u32,
    nlink: u64,
    ino: u64,
    acl: String,
    xattrs: String,
}

impl Facts {
    /// What an edit must keep: owner, group, mode, ACL, attributes.
    fn kept(&self) -> (u32, u32, u32, &str, &str) {
        (self.uid, self.gid, self.mode, &self.acl, &self.xattrs)
    }
}

fn facts(p: &Path) -> Facts {
    let m = fs::symlink_metadata(p).unwrap();
    Facts {
        uid: m.uid(),
        gid: m.gid(),
        mode: m.mode() & 0o7777,
        nlink: m.nlink(),
        ino: m.ino(),
        acl: sh(&format!(
            "getfacl -n --omit-header --absolute-names {}",
            q(p)
        )),
        xattrs: sh(&format!(
            "getfattr -h -d -m - --absolute-names {} | sed 1d",
            q(p)
        )),
    }
}

/// Runs `f` on a thread with the credentials of `uid`, `gid` and `groups`.
fn as_user<T: Send + 'static>(
    uid: u32,
    gid: u32,
    groups: &[u32],
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    use_state_of(uid);
    let groups: Vec<rustix::process::Gid> = groups
        .iter()
        .map(|&g| rustix::process::Gid::from_raw(g))
        .collect();
    let r = std::thread::spawn(move || {
        use rustix::process::{Gid, Uid};
        use rustix::thread::{set_thread_groups, set_thread_res_gid, set_thread_res_uid};
        set_thread_groups(&groups).unwrap();
        let g = Gid::from_raw(gid);
        set_thread_res_gid(g, g, g).unwrap();
        let u = Uid::from_raw(uid);
        set_thread_res_uid(u, u, u).unwrap();
        assert_eq!(rustix::process::geteuid().as_raw(), uid);
        f()
    })
    .join();
    use_state_of(0);
    r.unwrap()
}

fn patch(root: &Path, rel: &str, search: &str, replace: &str, extra: Value) -> Value {
    let mut opts = json!({ "workspaceRoot": root, "durable": true });
    if let (Some(o), Some(e)) = (opts.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            o.insert(k.clone(), v.clone());
        }
    }
    api::patch_file(
        &json!({"file_path": rel, "search_block": search, "replace_block": replace}),
        Some(&opts),
    )
}

fn chown(p: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::chown(p, Some(uid), Some(gid)).unwrap();
}

fn chmod(p: &Path, mode: u32) {
    fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
}

fn no_leftovers(dir: &Path) {
    let left: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".pft-"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn acl_xattrs_and_mode_survive_a_root_edit() {
    if !ready(&["setfacl", "getfacl", "setfattr", "getfattr", "setcap"]) {
        return;
    }
    let (_t, root) = scratch();
    let f = root.join(".env");
    fs::write(&f, "SECRET=1\n").unwrap();
    chown(&f, 0, SHARED_GROUP);
    chmod(&f, 0o600);
    sh(&format!("setfacl -m u:{OWNER}:r {}", q(&f)));
    sh(&format!("setfattr -n user.origin -v checked-in {}", q(&f)));
    sh(&format!("setcap cap_net_bind_service=+ep {}", q(&f)));
    let before = facts(&f);
    assert!(
        before.acl.contains(&format!("user:{OWNER}:r--")),
        "{}",
        before.acl
    );
    assert!(
        before.xattrs.contains("security.capability"),
        "{}",
        before.xattrs
    );
    let r = patch(&root, ".env", "SECRET=1", "SECRET=2", json!({}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "rename", "{r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "SECRET=2\n");
    let after = facts(&f);
    assert_eq!(after.kept(), before.kept(),);
    // The ACL still decides access: the named user may read, the group
    // (whose bits the ACL mask governs) may not.
    let (g_read, u_read) = (
        as_user(EDITOR, SHARED_GROUP, &[SHARED_GROUP], {
            let f = f.clone();
            move || fs::read(&f).is_ok()
        }),
        as_user(OWNER, OWNER, &[], {
            let f = f.clone();
            move || fs::read(&f).is_ok()
        }),
    );
    assert!(!g_read, "the group gained access");
    assert!(u_read, "the named user lost access");
    no_leftovers(&root);
}

#[test]
fn chattr_flags_survive() {
    if !ready(&["chattr", "lsattr"]) {
        return;
    }
    let (_t, root) = scratch();
    let f = root.join("a.txt");
    fs::write(&f, "x = 1\n").unwrap();
    if Command::new("chattr")
        .arg("+d")
        .arg(&f)
        .status()
        .map(|s| !s.success())
        .unwrap_or(true)
    {
        eprintln!("SKIP: this file system has no chattr flags");
        return;
    }
    // Every other flag chattr sets here on a regular file: `s`, `t` and
    // `x` were dropped by every edit (left out of the flags copied).
    let mut set = vec!['d'];
    for flag in ['s', 't', 'x', 'A', 'S', 'j', 'm'] {
        let ok = Command::new("chattr")
            .arg(format!("+{flag}"))
            .arg(&f)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            set.push(flag);
        }
    }
    // (A flag the file system accepts and ignores, ext4's `m`, is not shown.)
    let before = flags(&f);
    assert!(before.contains('d'), "{before}");
    let r = patch(&root, "a.txt", "x = 1", "x = 2", json!({}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(flags(&f), before, "flags set: {set:?}");
}

/// A directory's inheritable flags (`chattr +dA dir`) are not given to a
/// file that lacks them by an edit that replaces it (the new inode
/// inherits them; they are taken off again).
#[test]
fn a_directorys_flags_are_not_given_to_a_file_without_them() {
    if !ready(&["chattr", "lsattr"]) {
        return;
    }
    let (_t, root) = scratch();
    let dir = root.join("d");
    fs::create_dir(&dir).unwrap();
    let f = dir.join("a.txt");
    fs::write(&f, "x = 1\n").unwrap();
    let set = Command::new("chattr").arg("+dA").arg(&dir).status();
    if !set.is_ok_and(|s| s.success()) {
        eprintln!("SKIP: this file system has no chattr flags");
        return;
    }
    let before = flags(&f);
    assert!(!before.contains('d'), "{before}");
    let r = patch(&root, "d/a.txt", "x = 1", "x = 2", json!({}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(flags(&f), before);
}

#[test]
fn a_non_owner_edit_keeps_owner_group_and_mode() {
    if !ready(&["getfacl", "getfattr"]) {
        return;
    }
    let (_t, root) = scratch();
    let f = root.join("shared.txt");
    fs::write(&f, "v = 1\n").unwrap();
    chown(&f, OWNER, SHARED_GROUP);
    chmod(&f, 0o664);
    let before = facts(&f);
    let r = as_user(EDITOR, EDITOR, &[SHARED_GROUP], {
        let root = root.clone();
        move || patch(&root, "shared.txt", "v = 1", "v = 2", json!({}))
    });
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "in_place", "{r}");
    assert!(
        r["write_strategy_reason"]
            .as_str()
            .unwrap()
            .contains("another user"),
        "{r}"
    );
    assert_eq!(fs::read_to_string(&f).unwrap(), "v = 2\n");
    assert_eq!(
        facts(&f),
        before,
        "the same inode with the same owner, group, mode"
    );
    // The owner can still write it.
    let r = as_user(OWNER, OWNER, &[SHARED_GROUP], {
        let root = root.clone();
        move || patch(&root, "shared.txt", "v = 2", "v = 3", json!({}))
    });
    assert_eq!(r["ok"], true, "{r}");
    no_leftovers(&root);
}

#[test]
fn set_id_bits_are_never_given_to_another_owner() {
    if !ready(&[]) {
        return;
    }
    let (_t, root) = scratch();
    let f = root.join("tool.sh");
    fs::write(&f, "echo 1\n").unwrap();
    chown(&f, OWNER, SHARED_GROUP);
    chmod(&f, 0o4775);
    let r = as_user(EDITOR, EDITOR, &[SHARED_GROUP], {
        let root = root.clone();
        move || patch(&root, "tool.sh", "echo 1", "echo 2", json!({}))
    });
    assert_eq!(r["ok"], true, "{r}");
    let m = fs::metadata(&f).unwrap();
    assert_eq!((m.uid(), m.gid()), (OWNER, SHARED_GROUP), "owner kept");
    // Written by a non-owner, the kernel drops set-uid (as for any writer);
    // it is never set-uid under the editor.
    assert_eq!(m.mode() & 0o777, 0o775);
    assert!(m.uid() != EDITOR || m.mode() & 0o4000 == 0);
    // Only the owner could put it back: the result says it is gone.
    assert!(r["warnings"].to_string().contains("set-user-id"), "{r}");
    // As the owner (rename keeps everything, set-uid included).
    chmod(&f, 0o4775);
    let r = as_user(OWNER, SHARED_GROUP, &[], {
        let root = root.clone();
        move || patch(&root, "tool.sh", "echo 2", "echo 3", json!({}))
    });
    assert_eq!(r["ok"], true, "{r}");
    let m = fs::metadata(&f).unwrap();
    assert_eq!(
        (m.uid(), m.gid(), m.mode() & 0o7777),
        (OWNER, SHARED_GROUP, 0o4775),
        "{r}"
    );
}

#[test]
fn an_owned_file_with_an_acl_keeps_it_when_a_user_edits_it() {
    if !ready(&["setfacl", "getfacl", "getfattr"]) {
        return;
    }
    let (_t, root) = scratch();
    let f = root.join("notes.md");
    fs::write(&f, "# one\n").unwrap();
    chown(&f, EDITOR, EDITOR);
    chmod(&f, 0o640);
    sh(&format!("setfacl -m u:{OWNER}:rw {}", q(&f)));
    sh(&format!("setfattr -n user.tag -v 42 {}", q(&f)));
    let before = facts(&f);
    let r = as_user(EDITOR, EDITOR, &[], {
        let root = root.clone();
        move || patch(&root, "notes.md", "# one", "# two", json!({}))
    });
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "rename", "{r}");
    let after = facts(&f);
    assert_ne!(after.ino, before.ino, "replaced by rename");
    assert_eq!(after.kept(), before.kept(),);
}

#[test]
fn hard_links_are_refused_split_or_kept_as_asked() {
    if !ready(&[]) {
        return;
    }
    let (_t, root) = scratch();
    let a = root.join("a.txt");
    let b = root.join("b.txt");
    fs::write(&a, "n = 1\n").unwrap();
    fs::hard_link(&a, &b).unwrap();
    let r = patch(&root, "a.txt", "n = 1", "n = 2", json!({}));
    assert_eq!(r["code"], "HARD_LINKED_FILE", "{r}");
    assert!(r["message"].as_str().unwrap().contains("hardLinks"), "{r}");
    assert_eq!(fs::read_to_string(&a).unwrap(), "n = 1\n");
    assert_eq!(fs::metadata(&a).unwrap().nlink(), 2);

    let r = patch(
        &root,
        "a.txt",
        "n = 1",
        "n = 2",
        json!({"hardLinks": "keep"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "in_place", "{r}");
    assert_eq!(
        fs::read_to_string(&b).unwrap(),
        "n = 2\n",
        "every name sees it"
    );
    assert_eq!(fs::metadata(&a).unwrap().nlink(), 2);

    let r = patch(
        &root,
        "a.txt",
        "n = 2",
        "n = 3",
        json!({"hardLinks": "split"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "rename", "{r}");
    assert_eq!(fs::read_to_string(&a).unwrap(), "n = 3\n");
    assert_eq!(
        fs::read_to_string(&b).unwrap(),
        "n = 2\n",
        "the other name keeps the old text"
    );
    assert_eq!(fs::metadata(&b).unwrap().nlink(), 1);
    no_leftovers(&root);
}

#[test]
fn a_sticky_directory_of_another_user_is_written_in_place() {
    if !ready(&[]) {
        return;
    }
    let (_t, root) = scratch();
    let dir = root.join("tmp");
    fs::create_dir(&dir).unwrap();
    chmod(&dir, 0o1777);
    let f = dir.join("board.txt");
    fs::write(&f, "todo\n").unwrap();
    chown(&f, OWNER, OWNER);
    chmod(&f, 0o666);
    let ino = fs::metadata(&f).unwrap().ino();
    let r = as_user(EDITOR, EDITOR, &[], {
        let root = root.clone();
        move || patch(&root, "tmp/board.txt", "todo", "done", json!({}))
    });
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "in_place", "{r}");
    let m = fs::metadata(&f).unwrap();
    assert_eq!((m.ino(), m.uid(), m.mode() & 0o7777), (ino, OWNER, 0o666));
    assert_eq!(fs::read_to_string(&f).unwrap(), "done\n");
    no_leftovers(&dir);
}

#[test]
fn a_writable_file_in_a_read_only_directory_is_written_in_place() {
    if !ready(&[]) {
        return;
    }
    let (_t, root) = scratch();
    let dir = root.join("locked");
    fs::create_dir(&dir).unwrap();
    let f = dir.join("config.ini");
    fs::write(&f, "a=1\n").unwrap();
    chown(&f, EDITOR, EDITOR);
    chmod(&f, 0o644);
    chmod(&dir, 0o755); // owned by root: the editor may not create files here
    let r = as_user(EDITOR, EDITOR, &[], {
        let root = root.clone();
        move || patch(&root, "locked/config.ini", "a=1", "a=2", json!({}))
    });
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "in_place", "{r}");
    assert!(
        r["write_strategy_reason"]
            .as_str()
            .unwrap()
            .contains("directory"),
        "{r}"
    );
    assert_eq!(fs::read_to_string(&f).unwrap(), "a=2\n");
    no_leftovers(&dir);
    // The record kept in the editor's private state is gone too.
    let state = state_base().join(EDITOR.to_string()).join("recovery");
    let left: Vec<_> = fs::read_dir(&state)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    let ino = fs::metadata(&f).unwrap().ino().to_string();
    assert!(
        !left.iter().any(|n| n.to_string_lossy().contains(&ino)),
        "{left:?}"
    );
}

#[test]
fn a_bind_mounted_file_is_written_in_place() {
    if !ready(&[]) {
        return;
    }
    let (_t, root) = scratch();
    let src = root.join("real.txt");
    let dst = root.join("mounted.txt");
    fs::write(&src, "k: v1\n").unwrap();
    fs::write(&dst, "placeholder\n").unwrap();
    let ok = Command::new("mount")
        .args(["--bind"])
        .arg(&src)
        .arg(&dst)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIP: cannot bind-mount here");
        return;
    }
    let r = patch(&root, "mounted.txt", "k: v1", "k: v2", json!({}));
    let _ = Command::new("umount").arg(&dst).status();
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "in_place", "{r}");
    assert_eq!(
        fs::read_to_string(&src).unwrap(),
        "k: v2\n",
        "the mounted file changed"
    );
    no_leftovers(&root);
}

#[test]
fn every_writing_entry_point_keeps_metadata() {
    if !ready(&["setfacl", "getfacl", "getfattr"]) {
        return;
    }
    let (_t, root) = scratch();
    let f = root.join("m.txt");
    let fresh = |body: &str| {
        fs::write(&f, body).unwrap();
        chown(&f, OWNER, SHARED_GROUP);
        chmod(&f, 0o640);
        sh(&format!(
            "setfacl -b {} && setfacl -m u:{EDITOR}:r {}",
            q(&f),
            q(&f)
        ));
    };
    let opts = json!({ "workspaceRoot": root });
    type Call<'a> = (&'static str, Box<dyn Fn() -> Value + 'a>);
    let calls: Vec<Call<'_>> = vec![
        (
            "batchPatchFiles",
            Box::new(|| {
                api::batch_patch_files(
                    &json!({"files": [{"file_path": "m.txt", "search_block": "one", "replace_block": "two"}]}),
                    Some(&opts),
                )
            }),
        ),
        (
            "writeFile",
            Box::new(|| {
                api::write_file(
                    &json!({"file_path": "m.txt", "content": "two\n"}),
                    Some(&opts),
                )
            }),
        ),
        (
            "applyPatch",
            Box::new(|| {
                api::apply_patch(
                    &json!({"patch": "*** Begin Patch\n*** Update File: m.txt\n@@\n-one\n+two\n*** End Patch\n"}),
                    Some(&opts),
                )
            }),
        ),
        (
            "applyEditBlocks",
            Box::new(|| {
                api::apply_edit_blocks(
                    &json!({"text": "m.txt\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n"}),
                    Some(&opts),
                )
            }),
        ),
        (
            "textEditor",
            Box::new(|| {
                api::text_editor(
                    &json!({"command": "str_replace", "path": "m.txt", "old_str": "one", "new_str": "two"}),
                    Some(&opts),
                )
            }),
        ),
        (
            "editFile",
            Box::new(|| {
                api::edit_file(
                    &json!({"path": "m.txt", "edits": [{"oldText": "one", "newText": "two"}]}),
                    Some(&opts),
                )
            }),
        ),
    ];
    for (name, call) in calls {
        fresh("one\n");
        let before = facts(&f);
        let r = call();
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(fs::read_to_string(&f).unwrap(), "two\n", "{name}");
        let after = facts(&f);
        assert_eq!(
            (after.uid, after.gid, after.mode, &after.acl),
            (before.uid, before.gid, before.mode, &before.acl),
            "{name}"
        );
    }
}

/// A moved file is a new inode at its new path: it takes the source's
/// ACL and extended attributes as well as its owner and mode (Codex `***
/// Move to:`, a git rename with or without hunks). Undoing the move brings
/// the file back with what the moved file has then (a mode or attribute
/// changed after the move is kept), as an undone edit keeps what the file
/// has.
/// A file moved by a user who may not give the new file its owner (not
/// root, another user's file) is the user's at its new path: the result's
/// warnings say so, as they name any attribute it could not keep.
#[test]
fn a_move_that_cannot_keep_the_owner_says_so() {
    if !ready(&["getfacl", "getfattr"]) {
        return;
    }
    let (_t, root) = scratch();
    std::os::unix::fs::chown(&root, Some(0), Some(SHARED_GROUP)).unwrap();
    chmod(&root, 0o2775);
    let f = root.join("f.txt");
    fs::write(&f, "one\n").unwrap();
    chown(&f, OWNER, SHARED_GROUP);
    chmod(&f, 0o664);
    let patch = "*** Begin Patch\n*** Update File: f.txt\n*** Move to: g.txt\n@@\n-one\n+two\n*** End Patch\n";
    let r = as_user(EDITOR, EDITOR, &[SHARED_GROUP], {
        let root = root.clone();
        move || {
            api::apply_patch(
                &json!({ "patch": patch }),
                Some(&json!({ "workspaceRoot": root })),
            )
        }
    });
    assert_eq!(r["ok"], true, "{r}");
    let g = fs::metadata(root.join("g.txt")).unwrap();
    assert_eq!((g.uid(), g.gid()), (EDITOR, SHARED_GROUP), "{r}");
    let w = r["warnings"].to_string();
    assert!(w.contains("g.txt") && w.contains("owner"), "{r}");
    assert!(!w.contains("group"), "the group was kept: {r}");
}

/// A file moved onto an existing one (Codex `*** Move to:` naming it) is
/// the moved file at the destination's name: its owner, mode, ACL and
/// attributes, not the replaced file's; undo brings both back as they were.
#[test]
fn a_move_onto_an_existing_file_keeps_the_moved_files_metadata() {
    if !ready(&["setfacl", "getfacl", "setfattr", "getfattr"]) {
        return;
    }
    let (_t, root) = scratch();
    let opts = json!({ "workspaceRoot": root });
    for hunk in ["", "@@\n-one\n+two\n"] {
        let (f, g) = (root.join("f.sh"), root.join("g.sh"));
        fs::write(&f, "one\n").unwrap();
        chown(&f, OWNER, SHARED_GROUP);
        chmod(&f, 0o750);
        sh(&format!("setfacl -m u:{EDITOR}:rw {}", q(&f)));
        sh(&format!("setfattr -n user.origin -v moved {}", q(&f)));
        fs::write(&g, "replaced\n").unwrap();
        chmod(&g, 0o644);
        sh(&format!("setfattr -n user.origin -v replaced {}", q(&g)));
        let (source, dest) = (facts(&f), facts(&g));
        let patch = format!(
            "*** Begin Patch\n*** Update File: f.sh\n*** Move to: g.sh\n{hunk}*** End Patch\n"
        );
        let r = api::apply_patch(&json!({ "patch": patch }), Some(&opts));
        assert_eq!(r["ok"], true, "{patch}: {r}");
        assert!(!f.exists(), "{patch}");
        assert_eq!(facts(&g).kept(), source.kept(), "{patch}");
        let u = api::undo(&json!({}), Some(&opts));
        assert_eq!(u["ok"], true, "{patch}: {u}");
        assert_eq!(facts(&f).kept(), source.kept(), "{patch}");
        assert_eq!(facts(&g).kept(), dest.kept(), "{patch}");
        assert_eq!(fs::read(&g).unwrap(), b"replaced\n", "{patch}");
        fs::remove_file(&f).unwrap();
        fs::remove_file(&g).unwrap();
    }
    no_leftovers(&root);
}

#[test]
fn a_move_keeps_acls_and_attributes_and_its_undo_keeps_later_ones() {
    if !ready(&["setfacl", "getfacl", "setfattr", "getfattr"]) {
        return;
    }
    let (_t, root) = scratch();
    let opts = json!({ "workspaceRoot": root });
    let patches = [
        "*** Begin Patch\n*** Update File: f.sh\n*** Move to: g.sh\n@@\n-one\n+two\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: f.sh\n*** Move to: g.sh\n*** End Patch\n",
        "diff --git a/f.sh b/g.sh\nsimilarity index 100%\nrename from f.sh\nrename to g.sh\n",
    ];
    for patch in patches {
        let (f, g) = (root.join("f.sh"), root.join("g.sh"));
        let _ = fs::remove_file(&g);
        fs::write(&f, "one\n").unwrap();
        chown(&f, OWNER, SHARED_GROUP);
        chmod(&f, 0o640);
        sh(&format!("setfacl -m u:{EDITOR}:rw {}", q(&f)));
        sh(&format!("setfattr -n user.origin -v checked-in {}", q(&f)));
        let before = facts(&f);
        let r = api::apply_patch(&json!({ "patch": patch }), Some(&opts));
        assert_eq!(r["ok"], true, "{patch}: {r}");
        assert!(!f.exists(), "{patch}");
        let moved = facts(&g);
        assert_eq!(moved.kept(), before.kept(), "{patch}");
        // Changed after the move, then undone: the file comes back with
        // what the moved file has now.
        chmod(&g, 0o600);
        sh(&format!("setfattr -n user.note -v later {}", q(&g)));
        let later = facts(&g);
        let u = api::undo(&json!({}), Some(&opts));
        assert_eq!(u["ok"], true, "{patch}: {u}");
        assert!(!g.exists(), "{patch}");
        let back = facts(&f);
        assert_eq!(back.kept(), later.kept(), "{patch}");
        fs::remove_file(&f).unwrap();
    }
    no_leftovers(&root);
}

/// A new file keeps what its directory gives every new file: the access
/// ACL from the directory's default ACL (which decides who may read it)
/// and its inheritable `chattr` flags, as a file made by `touch` there.
/// They were taken off (the new file treated as the replacement of a file
/// without them), so the owning group the default ACL shut out could read
/// and write it.
#[test]
fn a_new_file_keeps_the_acl_and_flags_its_directory_gives_it() {
    if !ready(&["setfacl", "getfacl", "getfattr", "chattr", "lsattr"]) {
        return;
    }
    let (_t, root) = scratch();
    let dir = root.join("shared");
    fs::create_dir(&dir).unwrap();
    sh(&format!(
        "setfacl -d -m u::rw,g::-,o::-,u:{OWNER}:rw {}",
        q(&dir)
    ));
    let flagged = Command::new("chattr")
        .arg("+d")
        .arg(&dir)
        .status()
        .is_ok_and(|s| s.success());
    fs::write(dir.join("by-hand.txt"), "x\n").unwrap();
    let want = facts(&dir.join("by-hand.txt"));
    assert!(
        want.acl.contains(&format!("user:{OWNER}:rw-")),
        "{}",
        want.acl
    );
    let opts = json!({ "workspaceRoot": root });
    let made = [
        (
            "writeFile",
            api::write_file(
                &json!({"file_path": "shared/a.txt", "content": "x\n"}),
                Some(&opts),
            ),
        ),
        (
            "applyPatch",
            api::apply_patch(
                &json!({"patch": "*** Begin Patch\n*** Add File: shared/b.txt\n+x\n*** End Patch\n"}),
                Some(&opts),
            ),
        ),
    ];
    for (what, r) in made {
        assert_eq!(r["ok"], true, "{what}: {r}");
    }
    for n in ["a.txt", "b.txt"] {
        let got = facts(&dir.join(n));
        assert_eq!((got.mode, &got.acl), (want.mode, &want.acl), "{n}");
        if flagged {
            assert_eq!(flags(&dir.join(n)), flags(&dir.join("by-hand.txt")), "{n}");
        }
    }
    let g_read = as_user(EDITOR, root_gid(), &[], {
        let f = dir.join("a.txt");
        move || fs::read(&f).is_ok()
    });
    assert!(!g_read, "the owning group gained access");
    no_leftovers(&dir);
}

fn root_gid() -> u32 {
    0
}

/// A file written in place keeps its capability and its set-id bits, which
/// the kernel takes off any file written to: put back where this process
/// may (root; an owner its set-id bits), and named in `warnings` where it
/// may not (an unprivileged owner's capability). They were lost silently.
#[test]
fn a_write_in_place_keeps_the_capability_and_set_id_bits_or_says_so() {
    if !ready(&["setcap", "getcap"]) {
        return;
    }
    let (_t, root) = scratch();
    // Root, hard links kept: in place.
    let f = root.join("tool");
    fs::write(&f, "v = 1\n").unwrap();
    fs::hard_link(&f, root.join("tool-link")).unwrap();
    chmod(&f, 0o755);
    sh(&format!("setcap cap_net_raw+ep {}", q(&f)));
    let before = sh(&format!("getcap {}", q(&f)));
    assert!(before.contains("cap_net_raw"), "{before}");
    let r = patch(
        &root,
        "tool",
        "v = 1",
        "v = 2",
        json!({"hardLinks": "keep"}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "in_place", "{r}");
    assert_eq!(sh(&format!("getcap {}", q(&f))), before);
    assert!(r.get("warnings").is_none(), "{r}");
    // An owner's own set-id file in a directory it may not write: in place.
    let dir = root.join("locked");
    fs::create_dir(&dir).unwrap();
    let (suid, cap) = (dir.join("suid"), dir.join("cap"));
    for p in [&suid, &cap] {
        fs::write(p, "v = 1\n").unwrap();
        chown(p, EDITOR, EDITOR);
    }
    chmod(&suid, 0o6755);
    chmod(&cap, 0o755);
    sh(&format!("setcap cap_net_raw+ep {}", q(&cap)));
    chmod(&dir, 0o755);
    let (r1, r2) = as_user(EDITOR, EDITOR, &[], {
        let root = root.clone();
        move || {
            (
                patch(&root, "locked/suid", "v = 1", "v = 2", json!({})),
                patch(&root, "locked/cap", "v = 1", "v = 2", json!({})),
            )
        }
    });
    for r in [&r1, &r2] {
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["write_strategy"], "in_place", "{r}");
    }
    assert_eq!(fs::read_to_string(&suid).unwrap(), "v = 2\n");
    assert_eq!(facts(&suid).mode, 0o6755);
    assert!(r1.get("warnings").is_none(), "{r1}");
    // Only a privileged process may set a capability: the owner's write
    // loses it, and says so.
    assert_eq!(fs::read_to_string(&cap).unwrap(), "v = 2\n");
    let w = r2["warnings"].to_string();
    assert!(w.contains("security.capability"), "{r2}");
}

/// A directory that is append-only (`chattr +a`) lets no name be renamed
/// over or removed: an existing file in it is written in place, and a new
/// file is refused before anything is made. Every write failed there, and
/// left behind a temp file that nothing could remove.
#[test]
fn an_append_only_directory_gets_no_temp_file() {
    if !ready(&["chattr"]) {
        return;
    }
    let (_t, root) = scratch();
    let dir = root.join("logs");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("app.log"), "level = 1\n").unwrap();
    if !Command::new("chattr")
        .arg("+a")
        .arg(&dir)
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("SKIP: this file system has no chattr flags");
        return;
    }
    struct Unflag(PathBuf);
    impl Drop for Unflag {
        fn drop(&mut self) {
            let _ = Command::new("chattr").arg("-a").arg(&self.0).status();
        }
    }
    let _unflag = Unflag(dir.clone());
    let r = patch(&root, "logs/app.log", "level = 1", "level = 2", json!({}));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["write_strategy"], "in_place", "{r}");
    assert_eq!(
        fs::read_to_string(dir.join("app.log")).unwrap(),
        "level = 2\n"
    );
    let r = api::write_file(
        &json!({"file_path": "logs/new.log", "content": "x\n"}),
        Some(&json!({ "workspaceRoot": root })),
    );
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["code"], "FILE_WRITE_ERROR", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("append-only"),
        "{r}"
    );
    assert!(!dir.join("new.log").exists());
    no_leftovers(&dir);
}
