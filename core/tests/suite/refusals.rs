//! A refused call changes nothing — not even the directory tree — and
//! names paths the way a success does; a dry run applies only where it was
//! made; crashes and failed commits leave nothing that needs a person.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use patch_file_core::api;
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
    let dir = patch_file_core::testing::dir::Dir::open_root(&root.join("docs")).unwrap();
    let made = || {
        let (mut f, n) =
            patch_file_core::testing::temps::create(&dir, std::ffi::OsStr::new("a.md"), 0o600)
                .unwrap();
        std::io::Write::write_all(&mut f, &[b'x'; 4096]).unwrap();
        root.join("docs").join(n)
    };
    let (dead, live) = (made(), made());
    let held = fs::File::open(&live).unwrap();
    rustix::fs::flock(held.as_fd(), rustix::fs::FlockOperation::LockExclusive).unwrap();
    // Both a few seconds old (younger ones may be just being created).
    age(&[&dead, &live]);
    // A fresh process's first commit in the directory sweeps it.
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(!dead.exists(), "the dead writer's temp stayed");
    assert!(live.exists(), "a live writer's temp was removed");
}

fn age(paths: &[&Path]) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(10);
    for p in paths {
        fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
}

/// A user's own files named like temp files — the engine's name shape,
/// with any hex, copied from another directory — are never swept: only a
/// name whose tag the engine made with its private key, in that directory,
/// is proof that the engine created the file.
#[cfg(target_os = "linux")]
#[test]
fn a_users_file_named_like_a_temp_file_is_never_swept() {
    let (_t, root, _) = ws();
    let other = root.join("other");
    fs::create_dir(&other).unwrap();
    let od = patch_file_core::testing::dir::Dir::open_root(&other).unwrap();
    let (_, copied) =
        patch_file_core::testing::temps::create(&od, std::ffi::OsStr::new("a.md"), 0o600).unwrap();
    let names = [
        ".a.md.pft-0123456789abcdef.tmp".to_string(),
        format!(".a.md.pft-{}.tmp", "0123456789abcdef".repeat(2)),
        format!(".notes.pft-{}.tmp", "f".repeat(32)),
        copied.to_string_lossy().into_owned(),
    ];
    let paths: Vec<PathBuf> = names.iter().map(|n| root.join("docs").join(n)).collect();
    for p in &paths {
        fs::write(p, "the user's own notes\n").unwrap();
    }
    age(&paths.iter().map(PathBuf::as_path).collect::<Vec<_>>());
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    for p in &paths {
        assert_eq!(
            fs::read_to_string(p).unwrap(),
            "the user's own notes\n",
            "{} was removed",
            p.display()
        );
    }
}

/// A copy beside a file in the format older versions kept there
/// (`.<name>.pft-backup`, naming the file's device and inode, both public)
/// is evidence anyone who can write the directory could plant: it is never
/// read, applied or removed, by a read, a dry run, a refused edit or a
/// write.
#[cfg(target_os = "linux")]
#[test]
fn a_copy_beside_a_file_is_never_acted_on() {
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
    let planted = b"planted by someone else\n";
    let header = format!(
        "PFT-BACKUP 1 {} {} {} {}\n",
        m.dev(),
        m.ino(),
        hex(b"HELLO WORLD\n"),
        hex(planted)
    );
    let body = [header.as_bytes(), planted].concat();
    fs::write(&copy, &body).unwrap();
    let o = opts(&root);
    let r = api::read_file(&json!({"file_path": "docs/a.md"}), Some(&o));
    assert_eq!(r["content"], "hello\n", "{r}");
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "absent", "replace_block": "x", "dry_run": true}),
        Some(&o),
    );
    assert_eq!(r["code"], "SEARCH_BLOCK_NOT_FOUND", "{r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "hello\n");
    let r = api::patch_file(
        &json!({"file_path": "docs/a.md", "search_block": "hello", "replace_block": "bye"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(r.get("warnings").is_none(), "{r}");
    assert_eq!(fs::read_to_string(&f).unwrap(), "bye\n");
    assert_eq!(
        fs::read(&copy).unwrap(),
        body,
        "someone else's file was changed"
    );
}

/// A raised cancellation token or a spent `timeoutMs` stops a call before it
/// writes anything (here before the commit, after the file was read and
/// matched); every writing entry point checks it.
#[test]
fn a_cancelled_or_timed_out_call_writes_nothing() {
    use patch_file_core::model::cancel_tokens;
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

/// Python refuses an unexpected indent, a dedent to no outer level, a tab
/// in a block of spaces and a block left empty, which tree-sitter-python
/// reads without an error: the guard reports them (refused under `syntax:
/// "refuse"`, nothing written), and leaves the file's own ones alone.
#[test]
fn an_edit_breaking_python_indentation_is_a_syntax_error() {
    let src = "def load(cfg):\n    a = parse(cfg)\n    return a\n";
    for (search, replace, line) in [
        ("    return a\n", "        return a\n", 3),
        ("    return a\n", "  return a\n", 3),
        ("    return a\n", "\treturn a\n", 3),
        ("    a = parse(cfg)\n    return a\n", "a = 1\n", 2),
    ] {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("m.py"), src).unwrap();
        let o = json!({"workspaceRoot": t.path(), "durable": false, "journal": false, "syntax": "refuse"});
        let r = api::patch_file(
            &json!({"file_path": "m.py", "search_block": search, "replace_block": replace}),
            Some(&o),
        );
        assert_eq!(r["code"], "SYNTAX_ERROR_INTRODUCED", "{replace:?}: {r}");
        assert_eq!(r["syntax"]["errors"][0]["line"], line, "{r}");
        assert_eq!(std::fs::read_to_string(t.path().join("m.py")).unwrap(), src);
    }
    // A file already wrongly indented: an edit elsewhere is its own.
    let t = tempfile::tempdir().unwrap();
    let broken = "def f():\n    x = 1\n      y = 2\n\ndef g():\n    return 1\n";
    std::fs::write(t.path().join("m.py"), broken).unwrap();
    let o =
        json!({"workspaceRoot": t.path(), "durable": false, "journal": false, "syntax": "refuse"});
    let r = api::patch_file(
        &json!({"file_path": "m.py", "search_block": "return 1", "replace_block": "return 2"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
}

/// A YAML file nested deeper than its grammar's scanner can serialize (a
/// 526-byte file: one line of 255 compact `- `) aborted the whole process
/// on any edit with the guard on: it is left unchecked now, and the edit
/// lands.
#[test]
fn a_yaml_file_nested_too_deep_is_left_unchecked() {
    let deep = format!("name: a\nlist:\n{}x\n", "- ".repeat(255));
    for syntax in ["refuse", "warn"] {
        let t = tempfile::tempdir().unwrap();
        fs::write(t.path().join("config.yml"), &deep).unwrap();
        let o = json!({"workspaceRoot": t.path(), "durable": false, "journal": false, "syntax": syntax});
        let r = api::patch_file(
            &json!({"file_path": "config.yml", "search_block": "name: a", "replace_block": "name: b"}),
            Some(&o),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["syntax"]["unchecked"], "too_deep", "{r}");
        assert_eq!(
            fs::read_to_string(t.path().join("config.yml")).unwrap(),
            deep.replace("name: a", "name: b")
        );
    }
}

/// A Python file 511 indentations deep with a string at the bottom made the
/// grammar's scanner overrun its buffer and abort the process (a Node host,
/// an MCP server) on any write of it: it is left unchecked now, and the
/// edit lands.
#[test]
fn a_python_file_nested_too_deep_is_left_unchecked() {
    let mut deep = String::new();
    for i in 0..511 {
        deep.push_str(&" ".repeat(i));
        deep.push_str("if 1:\n");
    }
    deep.push_str(&" ".repeat(511));
    deep.push_str("x = \"abc\"\n");
    for syntax in ["refuse", "warn"] {
        let t = tempfile::tempdir().unwrap();
        fs::write(t.path().join("gen.py"), &deep).unwrap();
        let o = json!({"workspaceRoot": t.path(), "durable": false, "journal": false, "syntax": syntax});
        let r = api::patch_file(
            &json!({"file_path": "gen.py", "search_block": "\"abc\"", "replace_block": "\"abd\""}),
            Some(&o),
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["syntax"]["unchecked"], "too_deep", "{r}");
        assert_eq!(
            fs::read_to_string(t.path().join("gen.py")).unwrap(),
            deep.replace("\"abc\"", "\"abd\"")
        );
    }
}
