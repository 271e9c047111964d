//! A batch rollback needs no new resources: with every file descriptor in
//! use at the moment a rename fails, the files already replaced still get
//! their originals back (the replacement swapped them aside, and swapping
//! back needs no descriptor and no disk space). Its own test binary, since
//! it lowers the process's descriptor limit.
#![cfg(all(target_os = "linux", feature = "fault-injection"))]

use std::cell::RefCell;
use std::fs;

use patch_file_core::api;
use patch_file_core::testing::dir::{fault, Step};
use serde_json::json;

thread_local! {
    static HOARD: RefCell<Vec<fs::File>> = const { RefCell::new(Vec::new()) };
}

#[test]
fn rollback_with_no_descriptor_left_restores_every_file() {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    let n = 6;
    let names: Vec<String> = (0..n).map(|i| format!("f{i}.txt")).collect();
    for (i, name) in names.iter().enumerate() {
        fs::write(root.join(name), format!("value = old {i}\n")).unwrap();
    }
    let input = json!({"files": names.iter().map(|n| json!({
        "file_path": n, "search_block": "old", "replace_block": "new"})).collect::<Vec<_>>()});
    let saved = getrlimit(Resource::Nofile);
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(256),
            maximum: saved.maximum,
        },
    )
    .unwrap();
    // The fourth replacement fails, after every descriptor was taken.
    fault::arm_hook_fail(Step::Rename, 3, || {
        HOARD.with(|h| {
            let mut h = h.borrow_mut();
            while let Ok(f) = fs::File::open("/dev/null") {
                h.push(f);
            }
        })
    });
    let r = api::batch_patch_files(&input, Some(&json!({"workspaceRoot": root})));
    fault::disarm();
    let hoarded = HOARD.with(|h| std::mem::take(&mut *h.borrow_mut()).len());
    setrlimit(Resource::Nofile, saved).unwrap();
    assert!(hoarded > 0, "the hook took the remaining descriptors");
    assert_eq!(r["code"], "FILE_WRITE_ERROR", "{r}");
    assert_eq!(r["rollback_failed"], json!([]), "{r}");
    assert_eq!(r["rolled_back"].as_array().unwrap().len(), 3, "{r}");
    for (i, name) in names.iter().enumerate() {
        assert_eq!(
            fs::read_to_string(root.join(name)).unwrap(),
            format!("value = old {i}\n"),
            "{name}"
        );
    }
    let left: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains(".pft-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// An in-place write that fails after its content reached the file (its
/// flush fails) puts the original back through the descriptor it holds and
/// removes its copy; the file keeps its inode and links.
#[test]
fn a_failed_in_place_write_restores_the_original() {
    use std::os::unix::fs::MetadataExt;
    let t = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(t.path()).unwrap();
    fs::write(root.join("a.txt"), "keep = 1\n").unwrap();
    fs::hard_link(root.join("a.txt"), root.join("b.txt")).unwrap();
    let ino = fs::metadata(root.join("a.txt")).unwrap().ino();
    // The copy is flushed without a fault check; the first Fsync step is
    // the flush of the new content, after it was written.
    fault::arm_hook_fail(Step::Fsync, 0, || {});
    let r = api::patch_file(
        &json!({"file_path": "a.txt", "search_block": "keep = 1", "replace_block": "keep = 2, a longer line"}),
        Some(&json!({"workspaceRoot": root, "hardLinks": "keep", "durable": true})),
    );
    fault::disarm();
    assert_eq!(r["code"], "FILE_WRITE_ERROR", "{r}");
    assert_eq!(
        fs::read_to_string(root.join("a.txt")).unwrap(),
        "keep = 1\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("b.txt")).unwrap(),
        "keep = 1\n"
    );
    let m = fs::metadata(root.join("a.txt")).unwrap();
    assert_eq!((m.ino(), m.nlink()), (ino, 2));
    let left: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains(".pft-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // And without the fault the same call writes in place.
    let r = api::patch_file(
        &json!({"file_path": "a.txt", "search_block": "keep = 1", "replace_block": "keep = 2"}),
        Some(&json!({"workspaceRoot": root, "hardLinks": "keep"})),
    );
    assert_eq!(r["write_strategy"], "in_place", "{r}");
    assert_eq!(
        fs::read_to_string(root.join("b.txt")).unwrap(),
        "keep = 2\n"
    );
}
