//! A refused call changes nothing — not even the directory tree — and
//! names paths the way a success does; a dry run applies only where it was
//! made; crashes and failed commits leave nothing that needs a person.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use patch_file_tool::api;
use serde_json::{json, Value};

fn ws() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(t.path()).unwrap();
    let root = base.join("ws");
    let outside = base.join("outside");
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("docs/a.md"), "hello\n").unwrap();
    (t, root, outside)
}

fn opts(root: &Path) -> Value {
    json!({ "workspaceRoot": root, "durable": false })
}

#[test]
fn a_refused_write_creates_no_directory() {
    let (_t, root, outside) = ws();
    let before = common::tree(root.parent().unwrap());
    for p in [
        "sub/../../outside/new.txt",
        "sub/deeper/../../../outside/new.txt",
    ] {
        let r = api::write_file(
            &json!({"file_path": p, "content": "x\n", "create_dirs": true}),
            Some(&opts(&root)),
        );
        assert_eq!(r["code"], "PATH_OUTSIDE_WORKSPACE", "{p}: {r}");
        assert!(!root.join("sub").exists(), "{p}: `sub/` was created");
    }
    assert!(!outside.join("new.txt").exists());
    assert_eq!(common::tree(root.parent().unwrap()), before);
}

#[test]
fn escaping_through_a_missing_directory_is_outside_the_workspace() {
    let (_t, root, _) = ws();
    for p in [
        "missing/../../outside/x",
        "docs/../../outside/x",
        "docs/missing/../../../x",
    ] {
        for r in [
            api::write_file(&json!({"file_path": p, "content": "x"}), Some(&opts(&root))),
            api::patch_file(
                &json!({"file_path": p, "search_block": "a", "replace_block": "b"}),
                Some(&opts(&root)),
            ),
        ] {
            assert_eq!(r["code"], "PATH_OUTSIDE_WORKSPACE", "{p}: {r}");
        }
    }
}

#[test]
fn a_dry_run_of_a_file_deleted_since_names_it_absolutely() {
    let (_t, root, _) = ws();
    let d = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye", "dry_run": true}),
        Some(&opts(&root)),
    );
    assert_eq!(d["ok"], true, "{d}");
    fs::remove_file(root.join("docs/a.md")).unwrap();
    let r = api::apply_dry_run(&json!({"run_id": d["run_id"]}), Some(&opts(&root)));
    assert_eq!(r["code"], "FILE_CHANGED", "{r}");
    assert_eq!(r["file_path"], json!(root.join("docs/a.md")), "{r}");
    assert!(!root.join("docs/a.md").exists(), "not recreated");
}

#[test]
fn a_dry_run_applies_only_in_its_own_workspace() {
    let (_t, root, _) = ws();
    let other = root.parent().unwrap().join("other");
    fs::create_dir_all(other.join("docs")).unwrap();
    fs::write(other.join("docs/a.md"), "hello\n").unwrap();
    let d = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye", "dry_run": true}),
        Some(&opts(&root)),
    );
    let r = api::apply_dry_run(&json!({"run_id": d["run_id"]}), Some(&opts(&other)));
    assert_eq!(r["code"], "INVALID_INPUT", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("not used up"),
        "{r}"
    );
    assert_eq!(
        fs::read_to_string(root.join("docs/a.md")).unwrap(),
        "hello\n"
    );
    assert_eq!(
        fs::read_to_string(other.join("docs/a.md")).unwrap(),
        "hello\n"
    );
    // Still applicable where it was made.
    let r = api::apply_dry_run(&json!({"run_id": d["run_id"]}), Some(&opts(&root)));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read_to_string(root.join("docs/a.md")).unwrap(), "bye\n");
}

/// A temp file whose writer is gone (nobody holds its lock) is removed by
/// the next commit in its directory at once, not after 15 minutes; one a
/// live writer holds is left alone.
#[cfg(target_os = "linux")]
#[test]
fn leftover_temps_of_dead_writers_go_at_once() {
    use std::os::fd::AsFd;
    let (_t, root, _) = ws();
    let dead = root.join("docs/.a.md.pft-0123456789abcdef.tmp");
    let live = root.join("docs/.a.md.pft-fedcba9876543210.tmp");
    fs::write(&dead, vec![b'x'; 4096]).unwrap();
    fs::write(&live, b"y").unwrap();
    let held = fs::File::open(&live).unwrap();
    rustix::fs::flock(held.as_fd(), rustix::fs::FlockOperation::LockExclusive).unwrap();
    // Both a few seconds old (younger ones may be just being created).
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
    for p in [&dead, &live] {
        fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    // A fresh process's first commit in the directory sweeps it.
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(!dead.exists(), "the dead writer's temp stayed");
    assert!(live.exists(), "a live writer's temp was removed");
}

/// An interrupted in-place write (the process died between writing and
/// removing its copy) is undone by the next call that reads the file, or,
/// if it had completed, only its copy is removed.
#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_in_place_write_is_recovered() {
    use sha2::{Digest, Sha256};
    use std::os::unix::fs::MetadataExt;
    let (_t, root, _) = ws();
    let f = root.join("docs/a.md");
    let hex = |b: &[u8]| {
        Sha256::digest(b)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    let m = fs::metadata(&f).unwrap();
    let copy = root.join("docs/.a.md.pft-backup");
    // Torn: the file holds half of the new content.
    let header = format!(
        "PFT-BACKUP 1 {} {} {} {}\n",
        m.dev(),
        m.ino(),
        hex(b"HELLO WORLD\n"),
        hex(b"hello\n")
    );
    fs::write(&copy, [header.as_bytes(), b"hello\n"].concat()).unwrap();
    fs::write(&f, "HELLO WO").unwrap();
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "the original came back and was edited: {r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "bye\n");
    assert!(
        r["warnings"][0].as_str().unwrap().contains("restored"),
        "{r}"
    );
    assert!(!copy.exists());
    // Completed: the file holds exactly the announced content.
    let m = fs::metadata(&f).unwrap();
    let header = format!(
        "PFT-BACKUP 1 {} {} {} {}\n",
        m.dev(),
        m.ino(),
        hex(b"bye\n"),
        hex(b"before\n")
    );
    fs::write(&copy, [header.as_bytes(), b"before\n"].concat()).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "bye", "replace_block": "ciao"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "ciao\n");
    assert!(!copy.exists());
    // A copy of another file (different inode) is not used.
    let header = format!(
        "PFT-BACKUP 1 {} {} {} {}\n",
        m.dev(),
        m.ino() + 1,
        hex(b"x"),
        hex(b"other\n")
    );
    fs::write(&copy, [header.as_bytes(), b"other\n"].concat()).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "ciao", "replace_block": "hej"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "hej\n");
    assert!(copy.exists(), "someone else's copy is left alone");
    // A copy whose writer died while making it (shorter than its header
    // says): the file was never touched, so the copy only goes.
    let m = fs::metadata(&f).unwrap();
    let header = format!(
        "PFT-BACKUP 1 {} {} {} {}\n",
        m.dev(),
        m.ino(),
        hex(b"new\n"),
        hex(b"hej\n")
    );
    fs::write(&copy, [header.as_bytes(), b"h"].concat()).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "hej", "replace_block": "hi"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "hi\n");
    assert!(!copy.exists());
    assert!(
        r["warnings"][0].as_str().unwrap().contains("incomplete"),
        "{r}"
    );
}

/// A raised cancellation token or a spent `timeoutMs` stops a call before it
/// writes anything (here before the commit, after the file was read and
/// matched); every writing entry point checks it.
#[test]
fn a_cancelled_or_timed_out_call_writes_nothing() {
    use patch_file_tool::model::cancel_tokens;
    let (_t, root, _) = ws();
    let token = cancel_tokens::take();
    cancel_tokens::raise(token);
    let cancelled = json!({ "workspaceRoot": root, "cancelToken": token });
    let before = common::tree(&root);
    for r in [
        api::patch_file(
            &json!({"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye"}),
            Some(&cancelled),
        ),
        api::write_file(
            &json!({"file_path": "docs/new.md", "content": "x"}),
            Some(&cancelled),
        ),
        api::apply_patch(
            &json!({"patch": "*** Begin Patch\n*** Update File: docs/a.md\n@@\n-hello\n+bye\n*** End Patch\n"}),
            Some(&cancelled),
        ),
        api::batch_patch_files(
            &json!({"files": [{"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye"}]}),
            Some(&cancelled),
        ),
    ] {
        assert_eq!(r["code"], "CANCELLED", "{r}");
    }
    cancel_tokens::release(token);
    assert_eq!(common::tree(&root), before);
    // An unraised token changes nothing.
    let token = cancel_tokens::take();
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye"}),
        Some(&json!({ "workspaceRoot": root, "cancelToken": token, "timeoutMs": 60000 })),
    );
    cancel_tokens::release(token);
    assert_eq!(r["ok"], true, "{r}");
    // A time budget already spent by the time of the commit.
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "bye", "replace_block": "ciao"}),
        Some(&json!({ "workspaceRoot": root, "timeoutMs": 1 })),
    );
    // 1 ms may or may not be spent before the commit; either way the file is whole.
    match r["code"].as_str() {
        Some(code) => {
            assert_eq!(code, "CANCELLED", "{r}");
            assert_eq!(fs::read_to_string(root.join("docs/a.md")).unwrap(), "bye\n");
        }
        None => assert_eq!(
            fs::read_to_string(root.join("docs/a.md")).unwrap(),
            "ciao\n"
        ),
    }
}
