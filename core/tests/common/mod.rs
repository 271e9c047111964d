//! Snapshots shared by the integration tests. Each test crate uses the one it
//! needs, so the other may be unused there.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file below `root` by relative `/` path: the bytes of regular files,
/// a marker for anything else that is not a directory (links, sockets). A
/// missing `root` is an empty tree.
pub type Tree = BTreeMap<String, Vec<u8>>;

pub fn tree(root: &Path) -> Tree {
    fn walk(dir: &Path, rel: &str, out: &mut Tree) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let r = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                walk(&e.path(), &r, out);
            } else if ft.is_file() {
                out.insert(r, std::fs::read(e.path()).unwrap());
            } else {
                out.insert(r, b"<not a regular file>".to_vec());
            }
        }
    }
    let mut t = Tree::new();
    walk(root, "", &mut t);
    t
}

/// Everything below `dir` (links not followed) with size, mtime and the bytes
/// of regular files: what must stay identical outside a workspace.
pub fn watch(dir: &Path) -> BTreeMap<PathBuf, (u64, u128, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            let mtime = m
                .modified()
                .unwrap()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos();
            let bytes = if m.is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            if m.is_dir() {
                todo.push(e.path());
            }
            out.insert(e.path(), (m.len(), mtime, bytes));
        }
    }
    out
}

/// The full name, as the test harness lists it, of the test `name` in the
/// module whose `module_path!()` is `module` (the crate's own name left
/// out): what `--exact` takes to re-run that one test in a child process.
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, inner)) => format!("{inner}::{name}"),
        None => name.to_string(),
    }
}

/// A temporary workspace, `ws/` in a fresh temp directory, holding `files`
/// (relative path, parents made as needed; contents); the directory goes
/// when the handle is dropped.
pub fn workspace(files: &[(&str, &[u8])]) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    for (p, b) in files {
        let f = root.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, b).unwrap();
    }
    (t, root)
}

/// The repository's root: the engine's crate is `core/` in it, and what the
/// tests read besides the crate's own files (README, schemas, types, the
/// JS fixtures) lives there.
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// Options for a quick call in `root`: no fsync, no journal.
pub fn quick(root: &Path) -> serde_json::Value {
    serde_json::json!({ "workspaceRoot": root, "durable": false, "journal": false })
}

/// Every `.rs` file below `dir`, in path order (the rules over `src/` read
/// them so).
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// Asserts that the child process `out` comes from was killed by SIGKILL
/// (the writer a test kills at an exact step), showing its stderr if not.
#[cfg(unix)]
pub fn assert_killed(out: &std::process::Output) {
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(9),
        "the writer was not killed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
