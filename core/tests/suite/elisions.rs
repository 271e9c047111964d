//! Elision markers (`// ... existing code ...`) in new text, through every
//! entry point and format: expanded when the lines they stand for are
//! certain, refused with ELIDED_CONTENT (nothing written) otherwise, and
//! written as sent when they remove nothing or the caller asks.

use std::path::Path;

use patch_file_core::api;
use serde_json::{json, Value};

use crate::common::{quick as opts, workspace as setup};

fn read(root: &Path, p: &str) -> String {
    String::from_utf8(std::fs::read(root.join(p)).unwrap()).unwrap()
}

const RS: &str = "use std::io;\n\nfn total(a: u32, b: u32) -> u32 {\n    let x = a * 2;\n    let y = b * 3;\n    let z = x + y;\n    z + 1\n}\n\nfn main() {\n    println!(\"{}\", total(1, 2));\n}\n";

/// A lazy edit of RS: the signature changed, a marker between unchanged
/// lines for the three `let`s but the first.
const LAZY_SEARCH: &str = "fn total(a: u32, b: u32) -> u32 {\n    let x = a * 2;\n    let y = b * 3;\n    let z = x + y;\n    z + 1\n}\n";
const LAZY_REPLACE: &str = "fn total(a: u64, b: u64) -> u64 {\n    let x = a * 2;\n    // ... existing code ...\n    z + 1\n}\n";
/// The same, the line after the marker changed: refused.
const BAD_REPLACE: &str = "fn total(a: u32, b: u32) -> u32 {\n    let x = a * 2;\n    // ... existing code ...\n    z + 2\n}\n";

fn intended() -> String {
    RS.replace("a: u32, b: u32) -> u32", "a: u64, b: u64) -> u64")
}

fn assert_refused(r: &Value, after: &str, name: &str) {
    assert_eq!(after, RS, "{name}: nothing written");
    assert_eq!(r["ok"], false, "{name}: {r}");
    assert_eq!(r["code"], "ELIDED_CONTENT", "{name}: {r}");
    assert_eq!(r["elision"]["marker"], "// ... existing code ...", "{r}");
    assert_eq!(r["elision"]["deleted"], 3, "{r}");
    assert_eq!(r["elision"]["deletes"][0]["line"], 5, "{r}");
    assert_eq!(
        r["elision"]["deletes"][0]["text"], "    let y = b * 3;",
        "{r}"
    );
    let m = r["message"].as_str().unwrap();
    assert!(
        m.contains("lines 5-7") && m.contains("Send those lines"),
        "{name}: {m}"
    );
}

fn block(search: &str, replace: &str) -> String {
    format!("f.rs\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n")
}

fn codex(search: &str, replace: &str) -> String {
    let mut p = String::from("*** Begin Patch\n*** Update File: f.rs\n@@\n");
    for l in search.lines() {
        p.push_str(&format!("-{l}\n"));
    }
    for l in replace.lines() {
        p.push_str(&format!("+{l}\n"));
    }
    p + "*** End Patch\n"
}

fn unified(search: &str, replace: &str) -> String {
    let (a, b) = (search.lines().count(), replace.lines().count());
    let mut p = format!("--- a/f.rs\n+++ b/f.rs\n@@ -3,{a} +3,{b} @@\n");
    for l in search.lines() {
        p.push_str(&format!("-{l}\n"));
    }
    for l in replace.lines() {
        p.push_str(&format!("+{l}\n"));
    }
    p
}

/// A call of an entry point.
type Call<'a> = Box<dyn Fn() -> Value + 'a>;

/// Every entry point that writes new text over an existing file, with
/// (search, replace): its result and the file after it. (The text
/// editor's `create` only makes new files: it has no old text.)
fn every_entry(root: &Path, search: &str, replace: &str) -> Vec<(&'static str, Value, String)> {
    let o = opts(root);
    let calls: Vec<(&'static str, Call<'_>)> = vec![
        (
            "patchFile",
            Box::new(|| {
                api::patch_file(
                    &json!({"file_path": "f.rs", "search": search, "replace": replace}),
                    Some(&o),
                )
            }),
        ),
        (
            "patchFile edits[]",
            Box::new(|| {
                api::patch_file(
                    &json!({"file_path": "f.rs", "edits": [{"search": "use std::io;", "replace": "use std::io::{self};"}, {"search": search, "replace": replace}]}),
                    Some(&o),
                )
            }),
        ),
        (
            "batchPatchFiles",
            Box::new(|| {
                api::batch_patch_files(
                    &json!({"files": [{"file_path": "f.rs", "search": search, "replace": replace}]}),
                    Some(&o),
                )
            }),
        ),
        (
            "applyEditBlocks",
            Box::new(|| api::apply_edit_blocks(&json!({"text": block(search, replace)}), Some(&o))),
        ),
        (
            "applyPatch codex",
            Box::new(|| api::apply_patch(&json!({"patch": codex(search, replace)}), Some(&o))),
        ),
        (
            "applyPatch unified",
            Box::new(|| api::apply_patch(&json!({"patch": unified(search, replace)}), Some(&o))),
        ),
        (
            "textEditor str_replace",
            Box::new(|| {
                api::text_editor(
                    &json!({"command": "str_replace", "path": "f.rs", "old_str": search, "new_str": replace}),
                    Some(&o),
                )
            }),
        ),
        (
            "editFile",
            Box::new(|| {
                api::edit_file(
                    &json!({"path": "f.rs", "edits": [{"oldText": search, "newText": replace}]}),
                    Some(&o),
                )
            }),
        ),
        (
            "writeFile",
            Box::new(|| {
                api::write_file(
                    &json!({"file_path": "f.rs", "content": RS.replace(search, replace)}),
                    Some(&o),
                )
            }),
        ),
    ];
    calls
        .into_iter()
        .map(|(name, call)| {
            std::fs::write(root.join("f.rs"), RS).unwrap();
            let r = call();
            (name, r, read(root, "f.rs"))
        })
        .collect()
}

/// The `expanded` report of a result, wherever its entry point puts it.
fn expanded_report(r: &Value) -> Value {
    for v in [&r["expanded"], &r["files"][0]["expanded"]] {
        if v.is_array() {
            return v.clone();
        }
    }
    Value::Null
}

#[test]
fn every_entry_point_expands_a_certain_marker() {
    let (_t, root) = setup(&[]);
    for (name, r, after) in every_entry(&root, LAZY_SEARCH, LAZY_REPLACE) {
        assert_eq!(r["ok"], true, "{name}: {r}");
        let want = if name == "patchFile edits[]" {
            intended().replace("use std::io;", "use std::io::{self};")
        } else {
            intended()
        };
        assert_eq!(after, want, "{name}");
        let e = expanded_report(&r);
        assert_eq!(e[0]["marker"], "// ... existing code ...", "{name}: {r}");
        assert_eq!(e[0]["kept_lines"], json!([5, 6]), "{name}: {r}");
    }
}

#[test]
fn every_entry_point_refuses_an_uncertain_marker() {
    let (_t, root) = setup(&[]);
    for (name, r, after) in every_entry(&root, LAZY_SEARCH, BAD_REPLACE) {
        let r = if name == "batchPatchFiles" {
            assert_eq!(r["code"], "ELIDED_CONTENT", "{name}: {r}");
            r["files"][0].clone()
        } else {
            r
        };
        assert_refused(&r, &after, name);
    }
}

#[test]
fn the_compact_view_and_a_dry_run_carry_the_refusal_and_the_expansion() {
    let (_t, root) = setup(&[("f.rs", RS.as_bytes())]);
    let mut o = opts(&root);
    o["results"] = json!("compact");
    let r = api::patch_file(
        &json!({"file_path": "f.rs", "search": LAZY_SEARCH, "replace": BAD_REPLACE}),
        Some(&o),
    );
    assert_eq!(r["code"], "ELIDED_CONTENT", "{r}");
    assert_eq!(r["elision"]["deleted"], 3, "{r}");
    let r = api::patch_file(
        &json!({"file_path": "f.rs", "search": LAZY_SEARCH, "replace": LAZY_REPLACE, "dry_run": true}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        r["diff"].as_str().unwrap().contains("+fn total(a: u64"),
        "{r}"
    );
    assert!(
        !r["diff"].as_str().unwrap().contains("existing code"),
        "{r}"
    );
    assert_eq!(read(&root, "f.rs"), RS);
    let a = api::apply_dry_run(&json!({"run_id": r["run_id"]}), Some(&opts(&root)));
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(read(&root, "f.rs"), intended());
}

/// A marker on the first line of a block, new code after it ending in
/// copies of the lines it stands for (a function appended after another,
/// the other's tail elided): read as a new comment at the block's start,
/// it was written as sent, the marker inside `total` and `total`'s tail
/// gone from its place. Every entry point refuses it now, as the whole
/// file's write always did.
#[test]
fn a_marker_at_a_blocks_edge_before_new_code_is_refused_everywhere() {
    let (_t, root) = setup(&[]);
    let search = "    z + 1\n}\n";
    let replace = "    // ... existing code ...\n\nfn extra(x: u32, y: u32) -> u32 {\n    let z = x + y;\n    z + 1\n}\n";
    for (name, r, after) in every_entry(&root, search, replace) {
        let r = if name == "batchPatchFiles" {
            r["files"][0].clone()
        } else {
            r
        };
        assert_eq!(r["code"], "ELIDED_CONTENT", "{name}: {r}");
        assert_eq!(after, RS, "{name}: nothing written");
    }
}

#[test]
fn markers_that_remove_nothing_or_were_there_or_are_meant_are_written_as_sent() {
    let (_t, root) = setup(&[("f.rs", RS.as_bytes())]);
    // A new marker-like comment that removes nothing.
    let r = api::patch_file(
        &json!({"file_path": "f.rs", "search": "    z + 1\n", "replace": "    // ... more terms to come ...\n    z + 1\n"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(r.get("expanded").is_none(), "{r}");
    assert!(read(&root, "f.rs").contains("    // ... more terms to come ...\n    z + 1\n"));
    // The caller means the text.
    std::fs::write(root.join("f.rs"), RS).unwrap();
    let mut o = opts(&root);
    o["elisions"] = json!("literal");
    let r = api::patch_file(
        &json!({"file_path": "f.rs", "search": LAZY_SEARCH, "replace": BAD_REPLACE}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "f.rs"), RS.replace(LAZY_SEARCH, BAD_REPLACE));
    // A marker the file already has is kept as any line.
    let r = api::patch_file(
        &json!({"file_path": "f.rs", "search": "    // ... existing code ...\n    z + 2\n", "replace": "    // ... existing code ...\n    z + 3\n"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    o["elisions"] = json!("sometimes");
    let r = api::patch_file(
        &json!({"file_path": "f.rs", "search": "z + 3", "replace": "z + 4"}),
        Some(&o),
    );
    assert_eq!(r["code"], "INVALID_INPUT", "{r}");
}

/// (file, content, search, replace with a marker, intended content) for
/// each language, in two comment styles.
fn languages() -> Vec<(&'static str, String, String, String, String)> {
    let mut out = Vec::new();
    let mut add =
        |file: &'static str, body: &str, marker: &str, old_mid: &str, first: (&str, &str)| {
            let search = body.to_string();
            let mut lines: Vec<&str> = body.lines().collect();
            // Keep the first two and the last line, elide the middle.
            let last = lines.pop().unwrap();
            let replace = format!(
                "{}\n{}\n{marker}\n{last}\n",
                lines[0].replace(first.0, first.1),
                lines[1]
            );
            let intended = body.replace(first.0, first.1);
            let _ = old_mid;
            out.push((
                file,
                format!("head\n{body}tail\n"),
                search,
                replace,
                format!("head\n{intended}tail\n"),
            ));
        };
    let py = "def area(w, h):\n    s = w * h\n    t = s / 2\n    u = t + 1\n    return u\n";
    add(
        "a.py",
        py,
        "    # ... existing code ...",
        "",
        ("area", "surface"),
    );
    add(
        "b.py",
        py,
        "    # ...rest unchanged",
        "",
        ("area", "surface"),
    );
    let js = "function area(w, h) {\n  const s = w * h;\n  const t = s / 2;\n  const u = t + 1;\n  return u; }\n";
    add(
        "a.ts",
        js,
        "  // ... existing code ...",
        "",
        ("area", "surface"),
    );
    add("b.js", js, "  /* ... */", "", ("area", "surface"));
    let rs = "fn area(w: f64) -> f64 {\n    let s = w * w;\n    let t = s / 2.0;\n    let u = t + 1.0;\n    u }\n";
    add("a.rs", rs, "    // ...", "", ("area", "surface"));
    add(
        "b.go",
        &rs.replace("fn ", "func "),
        "    /* existing code here */",
        "",
        ("area", "surface"),
    );
    add(
        "c.c",
        &rs.replace("fn ", "double "),
        "    /* ... */",
        "",
        ("area", "surface"),
    );
    let cs = "public int Area(int w) {\n    var s = w * w;\n    var t = s / 2;\n    var u = t + 1;\n    return u; }\n";
    add(
        "a.cs",
        cs,
        "    // ... existing code ...",
        "",
        ("Area", "Surface"),
    );
    add(
        "b.cs",
        cs,
        "    /* ... rest of the method ... */",
        "",
        ("Area", "Surface"),
    );
    let md = "# Area\nThe area of a square.\nIt is w times w.\nHalve it for a triangle.\nAdd one for luck.\n";
    add("a.md", md, "<!-- ... -->", "", ("Area", "Surface"));
    add(
        "b.md",
        md,
        "… rest of the section …",
        "",
        ("Area", "Surface"),
    );
    let yaml = "area:\n  width: 2\n  height: 3\n  units: cm\n  shape: square\n";
    add(
        "a.yaml",
        yaml,
        "  # ... existing keys ...",
        "",
        ("area", "surface"),
    );
    add("b.yml", yaml, "  # ...", "", ("area", "surface"));
    // Template languages: their own comment syntaxes.
    let html = "<section class=\"area\">\n  <h1>{{ title }}</h1>\n  <p>{{ width }}</p>\n  <p>{{ height }}</p>\n  <p>{{ units }}</p></section>\n";
    add(
        "a.html.j2",
        html,
        "  {# ... existing code ... #}",
        "",
        ("area", "surface"),
    );
    add(
        "a.blade.php",
        html,
        "  {{-- ... existing code ... --}}",
        "",
        ("area", "surface"),
    );
    add(
        "a.html.erb",
        html,
        "  <%# ... existing code ... %>",
        "",
        ("area", "surface"),
    );
    add(
        "a.cshtml",
        html,
        "  @* ... existing code ... *@",
        "",
        ("area", "surface"),
    );
    add(
        "a.hbs",
        html,
        "  {{!-- ... existing code ... --}}",
        "",
        ("area", "surface"),
    );
    let hs = "area w h =\n  let s = w * h\n      t = s / 2\n      u = t + 1\n  in u\n";
    add(
        "a.hs",
        hs,
        "      {- ... existing code ... -}",
        "",
        ("area", "surface"),
    );
    let lua = "function area(w, h)\n  local s = w * h\n  local t = s / 2\n  local u = t + 1\n  return u end\n";
    add(
        "a.lua",
        lua,
        "  --[[ ... existing code ... ]]",
        "",
        ("area", "surface"),
    );
    out
}

#[test]
fn each_language_and_comment_style_expands_and_refuses() {
    for (file, content, search, replace, intended) in languages() {
        let (_t, root) = setup(&[(file, content.as_bytes())]);
        let r = api::patch_file(
            &json!({"file_path": file, "search": search, "replace": replace}),
            Some(&opts(&root)),
        );
        assert_eq!(r["ok"], true, "{file}: {r}");
        assert_eq!(read(&root, file), intended, "{file}");
        assert!(r["expanded"].is_array(), "{file}: {r}");
        // The last line changed as well: the marker touches a change.
        std::fs::write(root.join(file), &content).unwrap();
        let last = search.lines().last().unwrap();
        let bad = replace.replace(last, &format!("{last} // changed"));
        let r = api::patch_file(
            &json!({"file_path": file, "search": search, "replace": bad}),
            Some(&opts(&root)),
        );
        assert_eq!(r["code"], "ELIDED_CONTENT", "{file}: {r}");
        assert_eq!(read(&root, file), content, "{file}");
    }
}

#[test]
fn crlf_bom_and_utf16_files_keep_their_form() {
    let crlf = format!("\u{FEFF}{}", RS.replace('\n', "\r\n"));
    let (_t, root) = setup(&[("f.rs", crlf.as_bytes())]);
    let r = api::patch_file(
        &json!({"file_path": "f.rs", "search": LAZY_SEARCH.replace('\n', "\r\n"), "replace": LAZY_REPLACE.replace('\n', "\r\n")}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        read(&root, "f.rs"),
        format!("\u{FEFF}{}", intended().replace('\n', "\r\n"))
    );
    // UTF-16 LE with its BOM, through a whole-file write.
    let utf16 = |s: &str| -> Vec<u8> {
        let mut b = vec![0xFF, 0xFE];
        s.encode_utf16()
            .for_each(|u| b.extend_from_slice(&u.to_le_bytes()));
        b
    };
    std::fs::write(root.join("g.rs"), utf16(RS)).unwrap();
    let r = api::write_file(
        &json!({"file_path": "g.rs", "content": RS.replace(LAZY_SEARCH, LAZY_REPLACE)}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        std::fs::read(root.join("g.rs")).unwrap(),
        utf16(&intended())
    );
}

#[test]
fn a_lazy_whole_file_write_keeps_every_elided_function() {
    let src = "import os\nimport sys\n\n\ndef one():\n    return 1\n\n\ndef two():\n    x = 2\n    return x\n\n\ndef three():\n    return 3\n\n\nif __name__ == \"__main__\":\n    main()\n";
    let (_t, root) = setup(&[("m.py", src.as_bytes())]);
    let lazy = "import os\nimport sys\n\n\ndef one():\n    # ... existing code ...\n\n\ndef two():\n    x = 22\n    return x\n\n\ndef three():\n    # ... existing code ...\n\n\nif __name__ == \"__main__\":\n    main()\n";
    let r = api::write_file(
        &json!({"file_path": "m.py", "content": lazy}),
        Some(&opts(&root)),
    );
    // The markers' lower bounds are blank lines, and beyond them unchanged
    // lines with words: certain.
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "m.py"), src.replace("x = 2", "x = 22"));
    assert_eq!(r["expanded"][1]["kept_lines"], json!([15, 15]), "{r}");
    std::fs::write(root.join("m.py"), src).unwrap();
    // A blank bound whose text recurs inside the run: refused.
    let blank = "import os\nimport sys\n\n\ndef one():\n    return 1\n\n\ndef two():\n    x = 22\n    return x\n\n\n# ... rest of the file unchanged ...\nif __name__ == \"__main__\":\n    main()\n";
    let r = api::write_file(
        &json!({"file_path": "m.py", "content": blank}),
        Some(&opts(&root)),
    );
    assert_eq!(r["code"], "ELIDED_CONTENT", "{r}");
    let lazy = "import os\nimport sys\n\n\ndef one():\n    return 1\n\n\ndef two():\n    x = 22\n    return x\n# ... rest of the file unchanged ...\nif __name__ == \"__main__\":\n    main()\n";
    let r = api::write_file(
        &json!({"file_path": "m.py", "content": lazy}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "m.py"), src.replace("x = 2", "x = 22"));
}

#[test]
fn an_edit_marker_stands_for_lines_of_its_own_block_only() {
    // `}` closes both functions: in the whole file it is no certain bound,
    // in the edit's block it occurs once, and the block is all the marker
    // can stand for.
    let old = "fn a() {\n    one();\n    two();\n}\nx();\n\nfn b() {\n    four();\n}\n";
    let search = "fn a() {\n    one();\n    two();\n}\nx();\n";
    let replace = "fn a() {\n    // ... existing code ...\n}\ny();\n";
    let want = old.replace("x();", "y();");
    let (_t, root) = setup(&[]);
    let o = opts(&root);
    let calls: Vec<(&str, Call<'_>)> = vec![
        (
            "patchFile",
            Box::new(|| {
                api::patch_file(
                    &json!({"file_path": "f.rs", "search": search, "replace": replace}),
                    Some(&o),
                )
            }),
        ),
        (
            "applyEditBlocks",
            Box::new(|| api::apply_edit_blocks(&json!({"text": block(search, replace)}), Some(&o))),
        ),
        (
            "textEditor str_replace",
            Box::new(|| {
                api::text_editor(
                    &json!({"command": "str_replace", "path": "f.rs", "old_str": search, "new_str": replace}),
                    Some(&o),
                )
            }),
        ),
    ];
    for (name, call) in calls {
        std::fs::write(root.join("f.rs"), old).unwrap();
        let r = call();
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(read(&root, "f.rs"), want, "{name}");
        assert_eq!(
            expanded_report(&r)[0]["kept_lines"],
            json!([2, 3]),
            "{name}: {r}"
        );
    }
    // The same new text written whole: refused, nothing written.
    std::fs::write(root.join("f.rs"), old).unwrap();
    let r = api::write_file(
        &json!({"file_path": "f.rs", "content": old.replace(search, replace)}),
        Some(&o),
    );
    assert_eq!(r["code"], "ELIDED_CONTENT", "{r}");
    assert_eq!(read(&root, "f.rs"), old);
}

#[test]
fn edit_lines_gets_the_same_check() {
    let (_t, root) = setup(&[("f.rs", RS.as_bytes())]);
    let o = opts(&root);
    let r = api::read_file(&json!({"file_path": "f.rs", "anchors": true}), Some(&o));
    assert_eq!(r["ok"], true, "{r}");
    let anchors: Vec<String> = r["content"]
        .as_str()
        .unwrap()
        .lines()
        .map(|l| l.split('|').next().unwrap().to_string())
        .collect();
    // Lines 3-7 (the signature to `z + 1`): the signature changed, a
    // marker between unchanged lines for the `let`s but the first.
    let lazy = json!([
        "fn total(a: u64, b: u64) -> u64 {",
        "    let x = a * 2;",
        "    // ... existing code ...",
        "    z + 1"
    ]);
    let r = api::edit_lines(
        &json!({"file_path": "f.rs", "edits": [{"pos": anchors[2], "end": anchors[6], "lines": lazy}]}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "f.rs"), intended());
    assert_eq!(r["expanded"][0]["kept_lines"], json!([5, 6]), "{r}");
    // The line after the marker changed: refused, nothing written.
    std::fs::write(root.join("f.rs"), RS).unwrap();
    let bad = json!([
        "fn total(a: u32, b: u32) -> u32 {",
        "    let x = a * 2;",
        "    // ... existing code ...",
        "    z + 2"
    ]);
    let r = api::edit_lines(
        &json!({"file_path": "f.rs", "edits": [{"pos": anchors[2], "end": anchors[6], "lines": bad}]}),
        Some(&o),
    );
    assert_refused(&r, &read(&root, "f.rs"), "editLines");
}

#[test]
fn dots_inside_a_new_comment_paragraph_are_prose_written_as_sent() {
    // A real commit of a public project: a method's body rewritten, its new
    // first lines quoting a specification with `// ...` between two of its
    // sentences. Every entry point writes it as sent.
    let old = "class T\n{\n    static string Enc(string value)\n    {\n        // escape the apostrophe too\n        var ret = value.Replace(\"'\", \"%27\");\n        return ret.Replace(\"%%\", \"%25%\");\n    }\n}\n";
    let search = "        // escape the apostrophe too\n        var ret = value.Replace(\"'\", \"%27\");\n        return ret.Replace(\"%%\", \"%25%\");\n";
    let replace = "        // From the spec: -\n        // Characters not in the unreserved character set MUST be encoded.\n        // ...\n        // unreserved = ALPHA, DIGIT, '-', '.', '_', '~'\n        return Escape(value);\n";
    let (_t, root) = setup(&[("t.cs", old.as_bytes())]);
    let o = opts(&root);
    let want = old.replace(search, replace);
    let calls: [(&str, Call<'_>); 3] = [
        (
            "patchFile",
            Box::new(|| {
                api::patch_file(
                    &json!({"file_path": "t.cs", "search": search, "replace": replace}),
                    Some(&o),
                )
            }),
        ),
        (
            "textEditor",
            Box::new(|| {
                api::text_editor(
                    &json!({"command": "str_replace", "path": "t.cs", "old_str": search, "new_str": replace}),
                    Some(&o),
                )
            }),
        ),
        (
            "writeFile",
            Box::new(|| api::write_file(&json!({"file_path": "t.cs", "content": want}), Some(&o))),
        ),
    ];
    for (name, call) in calls {
        std::fs::write(root.join("t.cs"), old).unwrap();
        let r = call();
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(read(&root, "t.cs"), want, "{name}");
    }
    // Dots between two comment lines the file keeps may stand for the code
    // between them: not prose.
    let old = "fn f() {\n    // setup\n    let a = 1;\n    let b = 2;\n    // done\n    a + b\n}\n";
    let (_t, root) = setup(&[("f.rs", old.as_bytes())]);
    let r = api::patch_file(
        &json!({"file_path": "f.rs",
                "search": "    // setup\n    let a = 1;\n    let b = 2;\n    // done\n    a + b\n",
                "replace": "    // setup\n    // ...\n    // done\n    a + b + 1\n"}),
        Some(&opts(&root)),
    );
    assert_ne!(
        read(&root, "f.rs"),
        old.replace("    let a = 1;\n    let b = 2;\n", "    // ...\n"),
        "{r}"
    );
}

#[test]
fn every_entry_point_refuses_a_nul_byte_sent_into_a_text_file() {
    let (_t, root) = setup(&[]);
    let nul = LAZY_SEARCH.replace("z + 1", "z + 1 // \0");
    for (name, r, after) in every_entry(&root, LAZY_SEARCH, &nul) {
        let r = if name == "batchPatchFiles" {
            r["files"][0].clone()
        } else {
            r
        };
        assert_eq!(r["code"], "INVALID_INPUT", "{name}: {r}");
        let m = r["message"].as_str().unwrap();
        assert!(m.contains("NUL byte (line 7)"), "{name}: {m}");
        assert_eq!(after, RS, "{name}: nothing written");
    }
    // editLines, and a new file.
    let o = opts(&root);
    let tagged = api::read_file(&json!({"file_path": "f.rs", "anchors": true}), Some(&o));
    let pos = tagged["content"].as_str().unwrap().lines().next().unwrap();
    let pos = pos.split('|').next().unwrap();
    let r = api::edit_lines(
        &json!({"file_path": "f.rs", "edits": [{"pos": pos, "lines": "use std::io;\0"}]}),
        Some(&o),
    );
    assert_eq!(r["code"], "INVALID_INPUT", "{r}");
    assert_eq!(read(&root, "f.rs"), RS);
    let r = api::write_file(
        &json!({"file_path": "new.txt", "content": "a\0b"}),
        Some(&o),
    );
    assert_eq!(r["code"], "INVALID_INPUT", "{r}");
    assert!(!root.join("new.txt").exists());
    // A file that already holds one (past the first 8 KiB, so it reads as
    // text) takes another: it is the caller's file as it is.
    let odd = format!("{}\0\n", "x\n".repeat(5000));
    std::fs::write(root.join("odd.txt"), &odd).unwrap();
    let r = api::patch_file(
        &json!({"file_path": "odd.txt", "search": "\0\n", "replace": "\0\0\n"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
}

#[test]
fn a_marker_in_an_edit_applied_after_another_of_its_call_is_refused_not_read_against_the_file_as_read(
) {
    // The second edit's block is the text the first left (`two()` gone):
    // read against the file as read, its marker kept `two()`, and the first
    // edit was undone with ok: true.
    let (_t, root) = setup(&[]);
    let o = opts(&root);
    let src = "function a() {\n  one()\n  two()\n  three()\n}\n";
    let edits = json!([
        {"search": "  two()\n", "replace": ""},
        {"search": "function a() {\n  one()\n  three()\n}\n",
         "replace": "function a() {\n  // ... existing code ...\n  three()\n  x()\n}\n"}
    ]);
    let blocks = "a.js\n<<<<<<< SEARCH\n  two()\n=======\n>>>>>>> REPLACE\na.js\n<<<<<<< SEARCH\nfunction a() {\n  one()\n  three()\n}\n=======\nfunction a() {\n  // ... existing code ...\n  three()\n  x()\n}\n>>>>>>> REPLACE\n";
    let calls: Vec<(&str, Call<'_>)> = vec![
        (
            "patchFile",
            Box::new(|| api::patch_file(&json!({"file_path": "a.js", "edits": edits}), Some(&o))),
        ),
        (
            "batchPatchFiles",
            Box::new(|| {
                api::batch_patch_files(
                    &json!({"files": [{"file_path": "a.js", "edits": edits}]}),
                    Some(&o),
                )
            }),
        ),
        (
            "applyEditBlocks",
            Box::new(|| api::apply_edit_blocks(&json!({"text": blocks}), Some(&o))),
        ),
    ];
    for (name, call) in calls {
        std::fs::write(root.join("a.js"), src).unwrap();
        let r = call();
        let r = if name == "batchPatchFiles" {
            r["files"][0].clone()
        } else {
            r
        };
        assert_eq!(r["code"], "ELIDED_CONTENT", "{name}: {r}");
        let m = r["message"].as_str().unwrap();
        assert!(m.contains("in a call of its own"), "{name}: {m}");
        assert_eq!(read(&root, "a.js"), src, "{name}: nothing written");
    }
    // Sent in a call of its own, after the first: expanded over the text
    // as it now is.
    std::fs::write(root.join("a.js"), src).unwrap();
    let first = api::patch_file(&json!({"file_path": "a.js", "edits": [edits[0]]}), Some(&o));
    assert_eq!(first["ok"], true, "{first}");
    let second = api::patch_file(&json!({"file_path": "a.js", "edits": [edits[1]]}), Some(&o));
    assert_eq!(second["ok"], true, "{second}");
    assert_eq!(
        read(&root, "a.js"),
        "function a() {\n  one()\n  three()\n  x()\n}\n"
    );
}

#[test]
fn a_marker_in_a_call_of_edits_apart_is_expanded_whichever_edit_holds_it() {
    // Applied one after another (the planner's choice), but each block is
    // a stretch of the file as read: the marker stands for those lines.
    let (_t, root) = setup(&[]);
    let o = opts(&root);
    let io = ("use std::io;\n", "use std::io::{self};\n");
    let want = intended().replace("use std::io;", "use std::io::{self};");
    for lazy_first in [false, true] {
        std::fs::write(root.join("f.rs"), RS).unwrap();
        let (a, b) = (block(io.0, io.1), block(LAZY_SEARCH, LAZY_REPLACE));
        let text = if lazy_first { b + &a } else { a + &b };
        let r = api::apply_edit_blocks(&json!({ "text": text }), Some(&o));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(read(&root, "f.rs"), want, "lazy first: {lazy_first}");
        // The expanded block is vouched for by the file read back.
        assert_eq!(r["verified"], true, "{r}");
        assert!(r.get("message").is_none(), "{r}");
        std::fs::write(root.join("f.rs"), RS).unwrap();
        let (a, b) = (
            json!({"search": io.0, "replace": io.1}),
            json!({"search": LAZY_SEARCH, "replace": LAZY_REPLACE}),
        );
        let edits = if lazy_first {
            json!([b, a])
        } else {
            json!([a, b])
        };
        let r = api::patch_file(&json!({"file_path": "f.rs", "edits": edits}), Some(&o));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(read(&root, "f.rs"), want, "lazy first: {lazy_first}");
    }
}

#[test]
fn a_block_whose_search_ends_in_a_blank_line_reads_its_last_marker_as_that_line() {
    // A SEARCH/REPLACE block's texts lose their last line break, so the
    // marker ending the replacement takes the blank line's break: the
    // check saw the marker as a new last line and wrote it, the blank line
    // gone, with ok: true.
    let (_t, root) = setup(&[]);
    let o = opts(&root);
    let src = "fn a() {\n    one();\n}\n\nfn b() {}\n";
    let block = |replace: &str| {
        format!("f.rs\n<<<<<<< SEARCH\nfn a() {{\n    one();\n}}\n\n=======\n{replace}>>>>>>> REPLACE\n")
    };
    for (replace, want) in [
        (
            "fn a() {\n    one();\n    two();\n}\n// ... existing code ...\n",
            "fn a() {\n    one();\n    two();\n}\n\nfn b() {}\n",
        ),
        (
            "// new comment\nfn a() {\n    one();\n}\n// ... existing code ...\n",
            "// new comment\nfn a() {\n    one();\n}\n\nfn b() {}\n",
        ),
    ] {
        std::fs::write(root.join("f.rs"), src).unwrap();
        let r = api::apply_edit_blocks(&json!({ "text": block(replace) }), Some(&o));
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(read(&root, "f.rs"), want);
        assert_eq!(
            r["files"][0]["expanded"][0]["kept_lines"],
            json!([4, 4]),
            "{r}"
        );
    }
}

#[test]
fn a_marker_the_file_already_has_once_is_still_a_marker_where_the_new_text_adds_a_copy() {
    // `# ...` stands in `load` as written; the new text keeps it there and
    // writes it again over `save`'s body, which was deleted with ok: true.
    let (_t, root) = setup(&[]);
    let o = opts(&root);
    let src = "def load(path):\n    # ...\n    return open(path).read()\n\n\ndef save(path, data):\n    tmp = path + \".tmp\"\n    with open(tmp, \"w\") as f:\n        f.write(data)\n    os.replace(tmp, path)\n    return True\n";
    let lazy = "def load(path):\n    # ...\n    return open(path).read()\n\n\ndef save(path, data):\n    # ...\n    return len(data)\n";
    std::fs::write(root.join("io.py"), src).unwrap();
    let r = api::write_file(&json!({"file_path": "io.py", "content": lazy}), Some(&o));
    // `return len(data)` beside it is new: no certain bound, refused.
    assert_eq!(r["code"], "ELIDED_CONTENT", "{r}");
    assert_eq!(r["elision"]["line"], 7, "{r}");
    assert_eq!(read(&root, "io.py"), src);
    // The same file with the line kept where it is and a new stub holding
    // another copy that removes nothing: written as sent.
    std::fs::write(root.join("io.py"), src).unwrap();
    let stub = format!("{src}\n\ndef close():\n    # ...\n    pass\n");
    let r = api::write_file(&json!({"file_path": "io.py", "content": stub}), Some(&o));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "io.py"), stub);
    // And a marker between unchanged lines of `save`, `# ...` also in `load`:
    // expanded.
    std::fs::write(root.join("io.py"), src).unwrap();
    let lazy = src.replace(
        "    with open(tmp, \"w\") as f:\n        f.write(data)\n",
        "    # ...\n",
    );
    let lazy = lazy.replace("return True", "return False");
    let r = api::write_file(&json!({"file_path": "io.py", "content": lazy}), Some(&o));
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        read(&root, "io.py"),
        src.replace("return True", "return False")
    );
}

/// Edits of one call as `edits[]`, as SEARCH/REPLACE blocks of `a.js`, and
/// as a batch: each result, with the file after it (written as `src` first).
fn each_multi_edit_entry(
    root: &Path,
    src: &str,
    edits: &[(&str, &str)],
) -> Vec<(&'static str, Value, String)> {
    let o = opts(root);
    let list: Vec<Value> = edits
        .iter()
        .map(|(s, r)| json!({"search": s, "replace": r}))
        .collect();
    let blocks: String = edits
        .iter()
        .map(|(s, r)| format!("a.js\n<<<<<<< SEARCH\n{s}=======\n{r}>>>>>>> REPLACE\n"))
        .collect();
    let calls: Vec<(&'static str, Call<'_>)> = vec![
        (
            "patchFile",
            Box::new(|| api::patch_file(&json!({"file_path": "a.js", "edits": list}), Some(&o))),
        ),
        (
            "batchPatchFiles",
            Box::new(|| {
                let r = api::batch_patch_files(
                    &json!({"files": [{"file_path": "a.js", "edits": list}]}),
                    Some(&o),
                );
                if r["ok"] == true {
                    r
                } else {
                    r["files"][0].clone()
                }
            }),
        ),
        (
            "applyEditBlocks",
            Box::new(|| api::apply_edit_blocks(&json!({"text": blocks}), Some(&o))),
        ),
    ];
    calls
        .into_iter()
        .map(|(name, call)| {
            std::fs::write(root.join("a.js"), src).unwrap();
            let r = call();
            (name, r, read(root, "a.js"))
        })
        .collect()
}

#[test]
fn edits_of_one_call_that_touch_or_lie_apart_each_keep_their_marker_to_their_own_block() {
    let (_t, root) = setup(&[]);
    // Touching at a line boundary: the first edit's marker stood for the
    // second's deleted line too, undoing it with ok: true.
    let src = "function f2() {\n  return x\n}\n\nfunction f3() {\n  one()\n  two()\n  three()\n}\n";
    let e1 = (
        "  return x\n}\n\nfunction f3() {\n  one()\n",
        "  return y\n}\n\nfunction f3() {\n  // ...\n",
    );
    let e2 = ("  two()\n  three()\n}\n", "  three()\n}\n");
    let want = "function f2() {\n  return y\n}\n\nfunction f3() {\n  one()\n  three()\n}\n";
    for order in [[e1, e2], [e2, e1]] {
        for (name, r, after) in each_multi_edit_entry(&root, src, &order) {
            assert_eq!(r["ok"], true, "{name}: {r}");
            assert_eq!(after, want, "{name}");
        }
    }
    // The same in a file with a BOM, whose blocks' new text is made in one
    // buffer, not kept as slices of the file.
    let bom = |t: &str| format!("\u{FEFF}{t}");
    for order in [[e1, e2], [e2, e1]] {
        for (name, r, after) in each_multi_edit_entry(&root, &bom(src), &order) {
            assert_eq!(r["ok"], true, "{name}: {r}");
            assert_eq!(after, bom(want), "{name}");
        }
    }
    // Far apart: the lazy edit is read in its own block, as when sent alone
    // (it was refused, its bound read in the whole file's changed region).
    let src = "import x from \"x\"\n\nfunction f2() {\n  step()\n}\n\nfunction f3() {\n  three()\n}\n\nexport default f3\n";
    let lazy = (
        "  step()\n}\n",
        "  // ... existing code ...\n}\n\nfunction f2b() {}\n",
    );
    let z = ("export default f3\n", "export default f2\n");
    let want = src
        .replace("  step()\n}\n", "  step()\n}\n\nfunction f2b() {}\n")
        .replace("default f3", "default f2");
    for order in [[lazy, z], [z, lazy]] {
        for (name, r, after) in each_multi_edit_entry(&root, src, &order) {
            assert_eq!(r["ok"], true, "{name}: {r}");
            assert_eq!(after, want, "{name}");
        }
    }
}

#[test]
fn a_marker_an_edit_sends_that_a_later_edit_joins_to_code_is_refused() {
    // The second edit's search starts at the break that ends the first
    // edit's marker line: the marker and `init2()` became one line,
    // written with ok: true, the blank line the marker stood for gone.
    let (_t, root) = setup(&[]);
    let src = "function f1() {\n  one()\n}\n\nfunction f2() {\n  two()\n}\n";
    let e1 = (
        "function f1() {\n  one()\n}\n\nfunction f2() {\n",
        "function f1() {\n  one(1)\n}\n// ... existing code ...\nfunction f2() {\n",
    );
    let e2 = ("\nfunction f2() {\n", "  init2()\n\nfunction f2() {\n");
    for (name, r, after) in each_multi_edit_entry(&root, src, &[e1, e2]) {
        assert_eq!(r["code"], "ELIDED_CONTENT", "{name}: {r}");
        assert!(
            r["message"]
                .as_str()
                .unwrap()
                .contains("in a call of its own"),
            "{name}: {r}"
        );
        assert_eq!(after, src, "{name}: nothing written");
    }
}

/// Section comments of real code are not markers: a change that deletes a
/// `case` and leaves `// Other cases` (or `// everything else`, `// keep`)
/// before `default:` is written as sent. Read as markers they were expanded
/// over the deleted lines, writing back the code the change removed.
#[test]
fn a_section_comment_beside_deleted_code_is_written_as_sent() {
    let old = "function f(x) {\n  switch (x) {\n    case 1: a(); break;\n    case 2: b(); break;\n    default: c();\n  }\n  return f(x);\n}\n";
    for comment in [
        "// Other cases",
        "// everything else",
        "// keep",
        "// remaining options",
    ] {
        let new = format!(
            "function f(x) {{\n  switch (x) {{\n    case 1: a(); break;\n    {comment}\n    default: c();\n  }}\n  return f(x, y);\n}}\n"
        );
        let (_t, root) = setup(&[("f.js", old.as_bytes())]);
        let r = api::write_file(
            &json!({"file_path": "f.js", "content": new}),
            Some(&opts(&root)),
        );
        assert_eq!(r["ok"], true, "{comment}: {r}");
        assert!(r.get("expanded").is_none(), "{comment}: {r}");
        assert_eq!(read(&root, "f.js"), new, "{comment}");
    }
}

/// An elision that names the kind of code it keeps (`// other functions`,
/// `// remaining fields`, `# prior methods`) over code a change deletes is
/// refused: written, `b` and `c` were gone with `ok: true`.
#[test]
fn a_comment_naming_the_code_it_keeps_is_a_marker() {
    let old = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nfunction c() {\n  return 3;\n}\n";
    for comment in [
        "// other functions",
        "// remaining functions",
        "// prior methods",
        "// original methods",
        "// other members",
    ] {
        let (_t, root) = setup(&[("f.js", old.as_bytes())]);
        let new = format!("function a() {{\n  return 10;\n}}\n\n{comment}\n");
        let r = api::patch_file(
            &json!({"file_path": "f.js", "search_block": old, "replace_block": new}),
            Some(&opts(&root)),
        );
        assert_eq!(r["code"], "ELIDED_CONTENT", "{comment}: {r}");
        assert_eq!(read(&root, "f.js"), old, "{comment}");
    }
}

/// Markers agents write that named code or said `rest of` with what is
/// kept, and a leftover marker of the file sent again over the body it
/// elides: each deleted code with `ok: true` (written as sent). Through
/// patchFile and writeFile.
#[test]
fn markers_naming_code_and_a_leftover_marker_do_not_delete_what_they_stand_for() {
    let py = "class Client:\n    def __init__(self, path):\n        self.path = path\n        self.retries = 3\n        self.cache = {}\n        self.session = None\n        self.log = []\n";
    let (_t, root) = setup(&[("c.py", py.as_bytes())]);
    for marker in [
        "        # ... rest of __init__ unchanged ...",
        "        # ... existing setup_session code ...",
        "        # rest of the constructor",
    ] {
        let search = "        self.path = path\n        self.retries = 3\n        self.cache = {}\n        self.session = None\n        self.log = []\n";
        let replace = format!(
            "        self.path = path\n{marker}\n        self.log = []\n        self.ready = True\n"
        );
        let r = api::patch_file(
            &json!({"file_path": "c.py", "search_block": search, "replace_block": replace}),
            Some(&opts(&root)),
        );
        assert_eq!(r["ok"], true, "{marker}: {r}");
        assert_eq!(
            read(&root, "c.py"),
            format!("{py}        self.ready = True\n"),
            "{marker}"
        );
        std::fs::write(root.join("c.py"), py).unwrap();
    }
    // A leftover marker in the file, sent again with its body gone.
    let rs = "fn setup() {\n    let cfg = load();\n    // ... existing code ...\n    init(&cfg);\n    start(&cfg);\n}\n\nfn teardown() {\n    stop();\n}\n";
    std::fs::write(root.join("m.rs"), rs).unwrap();
    let lazy = "fn setup() {\n    // ... existing code ...\n}\n\nfn teardown() {\n    stop();\n    flush();\n}\n";
    let r = api::write_file(
        &json!({"file_path": "m.rs", "content": lazy}),
        Some(&opts(&root)),
    );
    assert_eq!(r["code"], "ELIDED_CONTENT", "{r}");
    assert_eq!(read(&root, "m.rs"), rs, "nothing written");
    // A new doc comment trailing off, far from an import the write
    // deletes: refused (a marker written as sent only where the edit
    // deletes nothing), and the message says no line beside it goes.
    let body: String = (0..30)
        .map(|i| format!("export const k{i} = {i};\n"))
        .collect();
    let js =
        format!("import {{ unused }} from './unused';\nimport {{ used }} from './used';\n\n{body}");
    std::fs::write(root.join("g.js"), &js).unwrap();
    let new = format!("import {{ used }} from './used';\n\n{body}\n/**\n * Units:\n * - mm\n * ...\n */\nexport const unit = used;\n");
    let r = api::write_file(
        &json!({"file_path": "g.js", "content": new}),
        Some(&opts(&root)),
    );
    assert_eq!(r["code"], "ELIDED_CONTENT", "{r}");
    assert_eq!(r["elision"]["deleted"], 0, "{r}");
    let m = r["message"].as_str().unwrap();
    assert!(
        m.contains("in a change that deletes lines") && !m.contains("0 line(s)"),
        "{m}"
    );
    assert_eq!(read(&root, "g.js"), js, "nothing written");
}

/// A Python body elided as a placeholder statement with a marker comment
/// (`...  # existing code`, `pass  # rest of the function unchanged`)
/// stands for the body: it was written as code, the body deleted.
#[test]
fn a_placeholder_statement_with_a_marker_comment_is_a_marker() {
    let src = "def load(cfg):\n    a = parse(cfg.alpha)\n    b = parse(cfg.beta)\n    validate(a, b)\n    return merge(a, b)\n";
    for m in [
        "    ...  # existing code",
        "    pass  # rest of the function unchanged",
    ] {
        let (_t, root) = setup(&[("a.py", src.as_bytes())]);
        let r = api::patch_file(
            &json!({"file_path": "a.py", "search_block": src, "replace_block": format!("def load(cfg):\n    a = parse(cfg.alpha)\n{m}\n    return merge(a, b)\n\n\ndef extra():\n    return 1\n")}),
            Some(&opts(&root)),
        );
        assert_eq!(r["ok"], true, "{m}: {r}");
        assert_eq!(
            read(&root, "a.py"),
            format!("{src}\n\ndef extra():\n    return 1\n"),
            "{m}"
        );
    }
}

/// An insertion keeps every line of the file: a marker-like comment in it
/// stands for nothing and is written as sent (textEditor `insert`, as
/// editLines `append`), where an edit of the same text would be refused.
#[test]
fn an_inserted_marker_comment_is_written_as_sent() {
    let (_t, root) = setup(&[("a.js", b"a();\nb();\n")]);
    let o = opts(&root);
    let r = api::text_editor(
        &json!({"command": "insert", "path": "a.js", "insert_line": 1,
                "insert_text": "// ... existing code ...\nx();"}),
        Some(&o),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        read(&root, "a.js"),
        "a();\n// ... existing code ...\nx();\nb();\n"
    );
}

/// A line of dots alone where the file's language can hold no such line
/// (JSON, TypeScript, Go, Rust, Java, ...): the only elision a model can
/// write in JSON, written as sent with `ok: true` (the sections it stood
/// for deleted). It is a marker there now: expanded between unchanged
/// lines, refused beside a change. In Python (`...` is a statement) and
/// YAML (a document's end) it stays code.
#[test]
fn a_line_of_dots_is_a_marker_where_the_language_has_no_such_line() {
    let json = "{\n  \"name\": \"x\",\n  \"scripts\": {\n    \"test\": \"t\"\n  },\n  \"deps\": {\n    \"a\": \"1\"\n  },\n  \"private\": true,\n  \"version\": \"1.0.0\"\n}\n";
    let (_t, root) = setup(&[("package.json", json.as_bytes())]);
    let r = api::patch_file(
        &json!({"file_path": "package.json", "search": json, "replace": json.replace("  \"scripts\": {\n    \"test\": \"t\"\n  },\n  \"deps\": {\n    \"a\": \"1\"\n  },\n", "  ...\n").replace("1.0.0", "1.0.1")}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "package.json"), json.replace("1.0.0", "1.0.1"));
    assert_eq!(r["expanded"][0]["marker"], "...", "{r}");
    let ts = "function f(xs: number[]) {\n  let t = 0;\n  for (const x of xs) {\n    t += x;\n  }\n  return t;\n}\n";
    for (name, dots) in [
        ("f.ts", "  \u{2026}\n"),
        ("f.go", "  ...\n"),
        ("f.rs", "    ...\n"),
    ] {
        let (_t, root) = setup(&[(name, ts.as_bytes())]);
        let lazy =
            format!("function f(xs: number[]) {{\n  let t = 0;\n{dots}  return t;\n}}\nf([]);\n");
        let r = api::patch_file(
            &json!({"file_path": name, "search": "  for (const x of xs) {\n    t += x;\n  }\n  return t;\n", "replace": format!("{dots}  return t + 1;\n")}),
            Some(&opts(&root)),
        );
        // Beside a changed line: refused, nothing written.
        assert_eq!(r["code"], "ELIDED_CONTENT", "{name}: {r}");
        assert_eq!(read(&root, name), ts);
        let r = api::write_file(
            &json!({"file_path": name, "content": lazy}),
            Some(&opts(&root)),
        );
        assert_eq!(r["ok"], true, "{name}: {r}");
        assert_eq!(
            read(&root, name),
            format!("{ts}f([]);\n"),
            "{name}: the body kept"
        );
    }
    // Code in Python and YAML.
    let py = "class A:\n    def f(self):\n        return 1\n";
    let (_t, root) = setup(&[("a.py", py.as_bytes())]);
    let r = api::patch_file(
        &json!({"file_path": "a.py", "search": "        return 1\n", "replace": "        ...\n"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        read(&root, "a.py"),
        "class A:\n    def f(self):\n        ...\n"
    );
    let yml = "a: 1\nb: 2\n";
    let (_t, root) = setup(&[("d.yml", yml.as_bytes())]);
    let r = api::patch_file(
        &json!({"file_path": "d.yml", "search": "b: 2\n", "replace": "...\n"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "d.yml"), "a: 1\n...\n");
}

/// Lazy texts found written with their code deleted: dots alone in more
/// languages (a Vue component's script, a Cargo manifest), an ellipsis
/// character alone in Python, a JSON key and value of dots, phrases in
/// other languages, a phrase of keeping that trails off, Markdown emphasis
/// around a marker. Each is expanded where its reading is certain.
/// A loop summing prices, elided by a marker in [`lazy_loop`].
const LOOP: &str = "function total(items) {\n  let sum = 0;\n  for (const it of items) {\n    sum += it.price;\n  }\n  return sum;\n}\n";

/// [`LOOP`] written whole with `marker` for its loop and a call added.
fn lazy_loop(marker: &str) -> String {
    format!("function total(items) {{\n  let sum = 0;\n  {marker}\n  return sum;\n}}\ntotal([]);\n")
}

/// Each case (file, old text, lazy whole text, intended text) written over
/// its old text: expanded, and the intended text on disk.
fn writes_expanded(cases: &[(&str, &str, String, String)]) {
    for (name, old, lazy, want) in cases {
        let (_t, root) = setup(&[(name, old.as_bytes())]);
        let r = api::write_file(
            &json!({"file_path": name, "content": lazy}),
            Some(&opts(&root)),
        );
        assert_eq!(r["ok"], true, "{name} {lazy:?}: {r}");
        assert!(r["expanded"].is_array(), "{name} {lazy:?}: {r}");
        assert_eq!(read(&root, name), *want, "{name} {lazy:?}");
    }
}

#[test]
fn more_lazy_texts_keep_the_code_they_stand_for() {
    let vue = "<script setup>\nimport { ref } from 'vue'\nconst store = useStore()\nconst text = ref('')\nfunction add() {\n  store.add(text.value)\n}\n</script>\n";
    let py = "def parse(line):\n    parts = line.split(\",\")\n    name = parts[0]\n    age = int(parts[1])\n    return User(name, age)\n";
    let pkg = "{\n  \"name\": \"demo\",\n  \"version\": \"1.0.0\",\n  \"scripts\": {\n    \"build\": \"tsc\",\n    \"test\": \"vitest\",\n    \"lint\": \"eslint .\"\n  }\n}\n";
    let md = "## Install\n\nRun npm install.\nRequires Node 20.\nSet FOO_TOKEN.\n";
    let toml =
        "[dependencies]\nserde = \"1\"\nanyhow = \"1\"\n\n[dev-dependencies]\ntempfile = \"3\"\n";
    let mut cases: Vec<(&str, &str, String, String)> = vec![
        (
            "Todo.vue",
            vue,
            "<script setup>\n...\nfunction add() {\n  store.add(text.value)\n}\n</script>\n<style></style>\n".into(),
            format!("{vue}<style></style>\n"),
        ),
        (
            "Cargo.toml",
            toml,
            "[dependencies]\n...\n\n[dev-dependencies]\ntempfile = \"3\"\nproptest = \"1\"\n".into(),
            format!("{toml}proptest = \"1\"\n"),
        ),
        (
            "parse.py",
            py,
            "def parse(line):\n    parts = line.split(\",\")\n    \u{2026}\n    return User(name, age)\n\nparse(\"a,1\")\n".into(),
            format!("{py}\nparse(\"a,1\")\n"),
        ),
        (
            "package.json",
            pkg,
            pkg.replace("1.0.0", "1.0.1")
                .replace("\"build\": \"tsc\",\n    \"test\": \"vitest\",", "\"...\": \"...\","),
            pkg.replace("1.0.0", "1.0.1"),
        ),
        (
            "R.md",
            md,
            "## Install\n\n*(unchanged)*\nSet FOO_TOKEN.\nAlso set BAR_URL.\n".into(),
            format!("{md}Also set BAR_URL.\n"),
        ),
    ];
    for m in [
        "// resto sin cambios",
        "// остальной код без изменений",
        "// 기존 코드 유지",
        "// 中略",
        "// 생략",
        "// and so on...",
        "// existing loop",
    ] {
        cases.push(("t.js", LOOP, lazy_loop(m), format!("{LOOP}total([]);\n")));
    }
    writes_expanded(&cases);
}

/// A JSX form whose inputs a lazy write elides.
const FORM: &str = "export function Form() {\n  return (\n    <form>\n      <input name=\"a\" />\n      <input name=\"b\" />\n      <button>Go</button>\n    </form>\n  )\n}\n";

/// Phrasings agents write that read as a comment before: what is kept
/// named then how, a list's item of dots, words of keeping in other
/// languages after dots, `the rest of` named at length. Each was written
/// with the lines it stands for deleted; now each keeps them. So was a
/// JSX comment of dots glued to what it elides (`{/* ...inputs */}`).
#[test]
fn named_kept_list_items_and_foreign_words_after_dots_keep_the_code() {
    let yml = "jobs:\n  lint:\n    runs-on: ubuntu\n    steps:\n      - run: a\n      - run: b\n  test:\n    runs-on: ubuntu\n";
    let md = "# Title\n\n- one\n- two\n- three\n- four\n\nEnd.\n";
    let mut cases: Vec<(&str, &str, String, String)> = vec![
        (
            "ci.yml",
            yml,
            "jobs:\n  lint:\n    runs-on: ubuntu\n    # lint steps unchanged\n  test:\n    runs-on: windows\n".into(),
            yml.replacen("  test:\n    runs-on: ubuntu", "  test:\n    runs-on: windows", 1),
        ),
        (
            "README.md",
            md,
            "# Title\n\n- one\n- ...\n- four\n\nEnd, changed.\n".into(),
            md.replace("End.", "End, changed."),
        ),
        (
            "Form.jsx",
            FORM,
            FORM.replace("      <input name=\"a\" />\n      <input name=\"b\" />\n", "      {/* ...inputs */}\n")
                .replace("Form()", "Form(props)"),
            FORM.replace("Form()", "Form(props)"),
        ),
    ];
    for m in [
        "// ...summing",
        "// keep the loop as is",
        "// summing untouched",
        "// ... similar for the loop",
        "// ... resto del bucle",
        "// ... остальной цикл",
        "// ... 其他循环",
        "// ... (the rest of the loop stays exactly as it was before this change)",
    ] {
        cases.push(("t.js", LOOP, lazy_loop(m), format!("{LOOP}total([]);\n")));
    }
    writes_expanded(&cases);
    // A sentence about the code beside it stays a comment: written as sent.
    let (_t, root) = setup(&[("t.js", LOOP.as_bytes())]);
    let sent = "function total(items) {\n  let sum = 0;\n  // Return unchanged\n  return sum;\n}\n";
    let r = api::write_file(
        &json!({"file_path": "t.js", "content": sent}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(r.get("expanded").is_none(), "{r}");
    assert_eq!(read(&root, "t.js"), sent);
}

/// A marker line the file already has (`# ...` left in it), sent again
/// just below a changed line with the lines above it elided, may be that
/// line kept (the lines above it deleted) or a marker for them: refused,
/// as when the change is on its other side. It was written with the lines
/// deleted, reported as no marker at all.
#[test]
fn a_leftover_marker_beside_a_change_is_refused() {
    let old = "def start(self):\n    self.conn = connect()\n    self.cache = Cache()\n    self.pool = Pool(4)\n    # ...\n    self.running = True\n";
    for lazy in [
        "def start(self, workers=4):\n    self.conn = connect()\n    # ...\n    self.running = True\n",
        "def start(self):\n    self.conn = connect()\n    # ...\n    self.running = True\n    log(\"started\")\n",
    ] {
        for whole in [false, true] {
            let (_t, root) = setup(&[("svc.py", old.as_bytes())]);
            let r = if whole {
                api::write_file(
                    &json!({"file_path": "svc.py", "content": lazy}),
                    Some(&opts(&root)),
                )
            } else {
                api::patch_file(
                    &json!({"file_path": "svc.py", "search": old, "replace": lazy}),
                    Some(&opts(&root)),
                )
            };
            assert_eq!(r["code"], "ELIDED_CONTENT", "{lazy:?}: {r}");
            assert_eq!(read(&root, "svc.py"), old);
        }
    }
}

/// Dots that end a new example comment above a line the edit keeps (the
/// edit deletes nothing) stand for no line: written as sent. They were
/// refused as a marker beside a change that deletes lines.
#[test]
fn dots_ending_a_new_example_comment_are_written_as_sent() {
    let py = "import socket\n\n\ndef send(msg):\n    sock.sendall(msg)\n";
    let (_t, root) = setup(&[("send.py", py.as_bytes())]);
    let add =
        "# Example:\n#   client = Client()\n#   client.send(b\"hi\")\n#   ...\ndef send(msg):";
    let r = api::patch_file(
        &json!({"file_path": "send.py", "search": "def send(msg):", "replace": add}),
        Some(&opts(&root)),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(read(&root, "send.py"), py.replace("def send(msg):", add));
    // A marker under a kept line with new code below it is still refused.
    let (_t, root) = setup(&[("send.py", py.as_bytes())]);
    let r = api::patch_file(
        &json!({"file_path": "send.py", "search": "def send(msg):\n", "replace": "def send(msg):\n    # ...\n    log(msg)\n"}),
        Some(&opts(&root)),
    );
    assert_eq!(r["code"], "ELIDED_CONTENT", "{r}");
}

/// A changed line, then a marker for the rest, where the changed line's
/// new text is an old line further down (`return None`; two lock lines of
/// another function; a step of another job): read as that later line kept
/// and every line between deleted, it was written with those lines gone.
/// Now refused, through whole-file writes and edits alike.
#[test]
fn a_changed_line_before_a_marker_for_the_rest_is_not_read_as_a_later_copy() {
    let cases = [
        (
            "repo.py",
            "class Repo:\n    def get(self, key):\n        if key is None:\n            raise KeyError(key)\n        row = self.db.find(key)\n        if row is None:\n            return None\n        return row.value\n\n    def put(self, key, value):\n        self.db.save(key, value)\n",
            "class Repo:\n    def get(self, key):\n        if key is None:\n            return None\n        # ... existing code ...\n",
        ),
        (
            "s.go",
            "package store\n\nfunc (s *Server) Get(id string) *Item {\n\titem := s.items[id]\n\treturn item\n}\n\nfunc (s *Server) Put(id string, it *Item) {\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n\ts.items[id] = it\n}\n",
            "package store\n\nfunc (s *Server) Get(id string) *Item {\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n\t// ... existing code ...\n",
        ),
        (
            "ci.yml",
            "jobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm run lint\n  build:\n    steps:\n      - run: npm run build\n  test:\n    steps:\n      - run: npm test\n  deploy:\n    needs: [build, test]\n",
            "jobs:\n  lint:\n    # ... existing code ...\n      - run: npm run lint\n      - run: npm test\n  # ... existing code ...\n",
        ),
    ];
    for (name, old, lazy) in cases {
        let (_t, root) = setup(&[(name, old.as_bytes())]);
        let r = api::write_file(
            &json!({"file_path": name, "content": lazy}),
            Some(&opts(&root)),
        );
        assert_eq!(r["code"], "ELIDED_CONTENT", "{name}: {r}");
        let r = api::patch_file(
            &json!({"file_path": name, "search": old, "replace": lazy}),
            Some(&opts(&root)),
        );
        assert_eq!(r["code"], "ELIDED_CONTENT", "{name}: {r}");
        assert_eq!(read(&root, name), old);
    }
}

/// Two markers, one standing for lines and the other, beside a block the
/// new text moved, for none: the second was written into the file as a
/// comment and the move lost.
#[test]
fn a_marker_that_would_stand_for_nothing_beside_an_expanded_one_is_refused() {
    let old = "import { a } from './a'\nimport { b } from './b'\n\nexport function one() {\n  return a(1)\n}\n\nexport function two() {\n  return b(2)\n}\n\nfunction helper(x: number) {\n  return x * 2\n}\n\nexport function three() {\n  return helper(3)\n}\n";
    let lazy = "import { a } from './a'\nimport { b } from './b'\n// ... existing code ...\nfunction helper(x: number) {\n  return x * 2\n}\n\n// ... existing code ...\nexport function three() {\n  return helper(3)\n}\n";
    let (_t, root) = setup(&[("m.ts", old.as_bytes())]);
    let r = api::write_file(
        &json!({"file_path": "m.ts", "content": lazy}),
        Some(&opts(&root)),
    );
    assert_eq!(r["code"], "ELIDED_CONTENT", "{r}");
    assert_eq!(r["elision"]["line"], 8, "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("stands for no line"),
        "{r}"
    );
    assert_eq!(read(&root, "m.ts"), old);
}
