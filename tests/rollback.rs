//! A batch rollback needs no new resources: with every file descriptor in
//! use at the moment a rename fails, the files already replaced still get
//! their originals back (the replacement swapped them aside, and swapping
//! back needs no descriptor and no disk space). Its own test binary, since
//! it lowers the process's descriptor limit.
#![cfg(all(target_os = "linux", feature = "fault-injection"))]

use std::cell::RefCell;
use std::fs;

use patch_file_tool::api;
use patch_file_tool::io::dir::{fault, Step};
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
