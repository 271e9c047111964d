//! Sample files for the syntax guard's tests (tests only): one small,
//! idiomatic file per language the guard parses, with the edits the tests
//! make to it. Each edit is a `(find, replace)` pair applied once, where
//! `find` occurs exactly once in the text it is applied to, so the line it
//! damages is known without counting by hand.

use crate::result::syntax::SyntaxProblem;

/// One replacement: `find` (occurring once) becomes `replace`.
pub(super) type SampleEdit = (&'static str, &'static str);

/// A sample file and its edits.
pub(super) struct Sample {
    /// What a failure calls it.
    pub name: &'static str,
    /// The path the check is given (it chooses the grammar).
    pub path: &'static str,
    /// A file that parses without error.
    pub text: &'static str,
    /// An edit that breaks it (and the problem reported, when stable).
    pub brk: (SampleEdit, Option<SyntaxProblem>),
    /// An edit that keeps it valid, away from `brk` and `dmg`.
    pub ok: SampleEdit,
    /// A different break elsewhere: the damage of an already-broken file.
    pub dmg: SampleEdit,
    /// The opening and the unit repeated to nest deeply in this language.
    pub deep: (&'static str, &'static str),
}

use SyntaxProblem::Missing;

pub(super) const SAMPLES: &[Sample] = &[
    Sample {
        name: "typescript",
        path: "src/cache.ts",
        text: r#"import { readFile } from "node:fs/promises";

export interface Entry<T> {
  value: T;
  expires: number;
}

export class Cache<T> {
  private items = new Map<string, Entry<T>>();

  constructor(private readonly ttl: number) {}

  get(key: string): T | undefined {
    const e = this.items.get(key);
    if (!e || e.expires < Date.now()) {
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: T): void {
    this.items.set(key, { value, expires: Date.now() + this.ttl });
  }
}

export async function load(path: string): Promise<string[]> {
  const raw = await readFile(path, "utf8");
  return raw.split("\n").filter((l) => l.length > 0);
}
"#,
        brk: (
            (
                "if (!e || e.expires < Date.now()) {",
                "if (!e || e.expires < Date.now() {",
            ),
            None,
        ),
        ok: ("return e.value;", "return e.value ?? undefined;"),
        dmg: (
            "const raw = await readFile(path, \"utf8\");",
            "const raw = await readFile(path, \"utf8\";",
        ),
        deep: ("const x = ", "("),
    },
    Sample {
        name: "tsx",
        path: "src/List.tsx",
        text: r#"import React, { useState } from "react";

type Props = { items: string[]; title?: string };

export function List({ items, title = "Items" }: Props) {
  const [open, setOpen] = useState<boolean>(true);
  const toggle = () => setOpen((o) => !o);
  return (
    <section className="list">
      <h2 onClick={toggle}>{title}</h2>
      {open && (
        <ul>
          {items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
"#,
        brk: (
            ("<li key={item}>{item}</li>", "<li key={item}>{item</li>"),
            None,
        ),
        ok: ("useState<boolean>(true)", "useState<boolean>(false)"),
        dmg: (
            "const toggle = () => setOpen((o) => !o);",
            "const toggle = () => setOpen((o) => !o;",
        ),
        deep: ("const x = ", "<a>"),
    },
    Sample {
        name: "javascript",
        path: "lib/retry.js",
        text: r#""use strict";

const DEFAULTS = { attempts: 3, delay: 100 };

async function retry(fn, options = {}) {
  const { attempts, delay } = { ...DEFAULTS, ...options };
  let last;
  for (let i = 0; i < attempts; i++) {
    try {
      return await fn(i);
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, delay * 2 ** i));
    }
  }
  throw last;
}

module.exports = { retry, DEFAULTS };
"#,
        brk: (
            (
                "for (let i = 0; i < attempts; i++) {",
                "for (let i = 0; i < attempts; i++ {",
            ),
            None,
        ),
        ok: ("delay: 100", "delay: 250"),
        dmg: ("last = err;", "last = = err;"),
        deep: ("x = ", "["),
    },
    Sample {
        name: "jsx",
        path: "components/Button.jsx",
        text: r#"import React from "react";

export default function Button({ label, onPress, disabled = false }) {
  const className = disabled ? "btn btn-off" : "btn";
  return (
    <button className={className} onClick={onPress} disabled={disabled}>
      <span className="label">{label}</span>
    </button>
  );
}

export function Toolbar({ actions }) {
  return (
    <div className="toolbar">
      {actions.map((a) => (
        <Button key={a.id} label={a.label} onPress={a.run} />
      ))}
    </div>
  );
}
"#,
        brk: (
            (
                "<span className=\"label\">{label}</span>",
                "<span className=\"label\">{label</span>",
            ),
            None,
        ),
        ok: ("\"btn btn-off\"", "\"btn btn-disabled\""),
        dmg: ("key={a.id} label", "key={a.id label"),
        deep: ("x = ", "{"),
    },
    Sample {
        name: "python",
        path: "app/stats.py",
        text: r#""""Small statistics helpers."""

from dataclasses import dataclass
from typing import Iterable


@dataclass
class Summary:
    count: int
    mean: float
    peak: float


def summarize(values: Iterable[float]) -> Summary:
    data = list(values)
    if not data:
        raise ValueError("no values")
    total = sum(data)
    return Summary(count=len(data), mean=total / len(data), peak=max(data))


def report(s: Summary) -> str:
    lines = [f"count: {s.count}", f"mean: {s.mean:.2f}"]
    lines.append(f"peak: {s.peak}")
    return "\n".join(lines)
"#,
        brk: (("if not data:", "if not data"), None),
        ok: ("\"no values\"", "\"empty input\""),
        dmg: ("    mean: float\n", "    mean: float)\n"),
        deep: ("x = ", "("),
    },
    Sample {
        name: "rust",
        path: "src/config.rs",
        text: r#"use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct Config {
    values: HashMap<String, String>,
}

impl Config {
    pub fn parse(text: &str) -> Self {
        let mut values = HashMap::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            if let Some((k, v)) = line.split_once('=') {
                values.insert(k.trim().to_string(), v.trim().to_string());
            }
        }
        Config { values }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }
}
"#,
        brk: (
            (
                "let mut values = HashMap::new();",
                "let mut values = HashMap::new()",
            ),
            Some(Missing),
        ),
        ok: ("'#'", "';'"),
        dmg: (
            "self.values.get(key).map(String::as_str)",
            "self.values.get(key).map(String::as_str",
        ),
        deep: ("fn f() { let x = ", "("),
    },
    Sample {
        name: "go",
        path: "pkg/queue/queue.go",
        text: "package queue

import (
\t\"errors\"
\t\"sync\"
)

var ErrEmpty = errors.New(\"queue: empty\")

type Queue[T any] struct {
\tmu    sync.Mutex
\titems []T
}

func (q *Queue[T]) Push(v T) {
\tq.mu.Lock()
\tdefer q.mu.Unlock()
\tq.items = append(q.items, v)
}

func (q *Queue[T]) Pop() (T, error) {
\tq.mu.Lock()
\tdefer q.mu.Unlock()
\tvar zero T
\tif len(q.items) == 0 {
\t\treturn zero, ErrEmpty
\t}
\tv := q.items[0]
\tq.items = q.items[1:]
\treturn v, nil
}
",
        brk: (
            (
                "q.items = append(q.items, v)",
                "q.items = append(q.items, v",
            ),
            None,
        ),
        ok: ("\"queue: empty\"", "\"queue: nothing queued\""),
        dmg: ("v := q.items[0]", "v := q.items[0"),
        deep: ("package p\nvar x = ", "("),
    },
    Sample {
        name: "java",
        path: "src/main/java/shop/Inventory.java",
        text: r#"package shop;

import java.util.HashMap;
import java.util.Map;

public class Inventory {
    private final Map<String, Integer> stock = new HashMap<>();

    public void add(String sku, int count) {
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive");
        }
        stock.merge(sku, count, Integer::sum);
    }

    public boolean take(String sku, int count) {
        int have = stock.getOrDefault(sku, 0);
        if (have < count) {
            return false;
        }
        stock.put(sku, have - count);
        return true;
    }
}
"#,
        brk: (
            (
                "stock.merge(sku, count, Integer::sum);",
                "stock.merge(sku, count, Integer::sum)",
            ),
            Some(Missing),
        ),
        ok: ("\"count must be positive\"", "\"count must be > 0\""),
        dmg: (
            "int have = stock.getOrDefault(sku, 0);",
            "int have = stock.getOrDefault(sku, 0;",
        ),
        deep: ("class A { int x = ", "("),
    },
    Sample {
        name: "c",
        path: "src/buf.c",
        text: r#"#include <stdlib.h>
#include <string.h>

struct buf {
    char *data;
    size_t len, cap;
};

int buf_push(struct buf *b, const char *s, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + n)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p)
            return -1;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}
"#,
        brk: (
            (
                "memcpy(b->data + b->len, s, n);",
                "memcpy(b->data + b->len, s, n;",
            ),
            None,
        ),
        ok: (": 64;", ": 128;"),
        dmg: ("cap *= 2;", "cap *= ;"),
        deep: ("int x = ", "("),
    },
    Sample {
        name: "cpp",
        path: "src/shapes.cpp",
        text: r#"#include <memory>
#include <vector>

namespace geo {

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
};

class Circle : public Shape {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override { return 3.14159 * r_ * r_; }

private:
    double r_;
};

double total(const std::vector<std::unique_ptr<Shape>>& shapes) {
    double sum = 0;
    for (const auto& s : shapes) sum += s->area();
    return sum;
}

}  // namespace geo
"#,
        brk: (
            (
                "for (const auto& s : shapes) sum",
                "for (const auto& s : shapes sum",
            ),
            None,
        ),
        ok: ("double sum = 0;", "double sum = 0.0;"),
        dmg: (
            "explicit Circle(double r) : r_(r) {}",
            "explicit Circle(double r) : r_(r {}",
        ),
        deep: ("int x = ", "("),
    },
    Sample {
        name: "csharp",
        path: "Demo/Greeter.cs",
        text: r#"using System;
using System.Collections.Generic;
using System.Linq;

namespace Demo
{
    public record Person(string Name, int Age);

    public static class Greeter
    {
        public static string Greet(Person p) =>
            p.Age < 18 ? $"Hi, {p.Name}!" : $"Hello, {p.Name}.";

        public static IEnumerable<string> GreetAll(IEnumerable<Person> people)
        {
            foreach (var p in people.OrderBy(x => x.Name))
            {
                yield return Greet(p);
            }
        }
    }
}
"#,
        brk: (("yield return Greet(p);", "yield return Greet(p;"), None),
        ok: ("p.Age < 18", "p.Age < 21"),
        dmg: (
            "public record Person(string Name, int Age);",
            "public record Person(string Name, int Age;",
        ),
        deep: ("class A { int x = ", "("),
    },
    Sample {
        name: "json",
        path: "package.json",
        text: r#"{
  "name": "demo-app",
  "version": "1.2.0",
  "private": true,
  "scripts": {
    "build": "tsc -p .",
    "test": "node --test"
  },
  "dependencies": {
    "express": "^4.19.2",
    "zod": "^3.23.8"
  },
  "engines": { "node": ">=20" }
}
"#,
        brk: (("\"version\": \"1.2.0\",", "\"version\": \"1.2.0\""), None),
        ok: ("\"demo-app\"", "\"demo-web\""),
        dmg: ("\"express\": \"^4.19.2\",", "\"express\" \"^4.19.2\","),
        deep: ("", "["),
    },
    Sample {
        name: "yaml",
        path: ".github/workflows/ci.yml",
        text: r#"name: ci
on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        node: [18, 20, 22]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: ${{ matrix.node }}
      - run: npm ci
      - run: npm test -- --coverage
"#,
        brk: (("node: [18, 20, 22]", "node: [18, 20, 22]]"), None),
        ok: ("branches: [main]", "branches: [main, release]"),
        dmg: (
            "- run: npm test -- --coverage",
            "- run: [npm test -- --coverage]]",
        ),
        deep: ("a: ", "["),
    },
    Sample {
        name: "toml",
        path: "Cargo.toml",
        text: r#"[package]
name = "demo"
version = "0.3.1"
edition = "2021"

[dependencies]
serde = { version = "1", features = ["derive"] }
anyhow = "1.0"

[dev-dependencies]
proptest = "1"

[[bin]]
name = "demo-cli"
path = "src/main.rs"

[profile.release]
lto = true
"#,
        brk: (("anyhow = \"1.0\"", "anyhow = = \"1.0\""), None),
        ok: ("lto = true", "lto = \"thin\""),
        dmg: ("[dev-dependencies]", "[dev-dependencies"),
        deep: ("a = ", "["),
    },
    Sample {
        name: "html",
        path: "public/index.html",
        text: r#"<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Status</title>
    <link rel="stylesheet" href="style.css">
  </head>
  <body>
    <main id="app">
      <h1>Service status</h1>
      <ul class="checks">
        <li data-state="ok">API</li>
        <li data-state="down">Queue</li>
      </ul>
      <p>Updated <time datetime="2024-05-01">May 1</time></p>
    </main>
    <script src="app.js" defer></script>
  </body>
</html>
"#,
        brk: (("<h1>Service status</h1>", "<h1>Service status</h1"), None),
        ok: ("Queue</li>", "Workers</li>"),
        dmg: (
            "<li data-state=\"ok\">API</li>",
            "<li data-state=\"ok\">API</li",
        ),
        deep: ("", "<div>"),
    },
    Sample {
        name: "css",
        path: "styles/site.css",
        text: r#":root {
  --accent: #0a66c2;
  --gap: 8px;
}

body {
  margin: 0;
  font-family: system-ui, sans-serif;
}

.checks li {
  display: flex;
  gap: var(--gap);
  color: var(--accent);
}

@media (max-width: 600px) {
  .checks li {
    flex-direction: column;
  }
}
"#,
        brk: (("color: var(--accent);", "color: var(--accent));"), None),
        ok: ("margin: 0;", "margin: 0 auto;"),
        dmg: ("flex-direction: column;", "flex-direction: column;;:"),
        deep: ("a { b: ", "calc("),
    },
    Sample {
        name: "bash",
        path: "scripts/deploy.sh",
        text: r#"#!/usr/bin/env bash
set -euo pipefail

TARGET="${1:-staging}"
LOG_DIR="/var/log/deploy"

log() {
  printf '%s %s\n' "$(date +%T)" "$*" | tee -a "$LOG_DIR/deploy.log"
}

if [[ "$TARGET" != "staging" && "$TARGET" != "prod" ]]; then
  echo "unknown target: $TARGET" >&2
  exit 1
fi

for svc in api worker; do
  log "deploying $svc to $TARGET"
  ./scripts/push.sh "$svc" "$TARGET" || exit 2
done

log "done"
"#,
        brk: (
            ("for svc in api worker; do", "for svc in api worker; then"),
            None,
        ),
        ok: ("exit 1", "exit 3"),
        dmg: (
            "LOG_DIR=\"/var/log/deploy\"",
            "LOG_DIR=\"/var/log/deploy\")",
        ),
        deep: ("x=", "$("),
    },
    Sample {
        name: "ruby",
        path: "lib/ledger.rb",
        text: r#"# frozen_string_literal: true

module Accounts
  class Ledger
    attr_reader :entries

    def initialize
      @entries = []
    end

    def record(amount, memo: nil)
      raise ArgumentError, "amount must be non-zero" if amount.zero?

      @entries << { amount: amount, memo: memo, at: Time.now }
      self
    end

    def balance
      @entries.sum { |e| e[:amount] }
    end
  end
end
"#,
        brk: (("e[:amount] }", "e[:amount }"), None),
        ok: ("\"amount must be non-zero\"", "\"zero amount\""),
        dmg: ("memo: memo, at", "memo: memo,, at"),
        deep: ("x = ", "["),
    },
    Sample {
        name: "php",
        path: "src/Router.php",
        text: r#"<?php

declare(strict_types=1);

namespace App;

final class Router
{
    /** @var array<string, callable> */
    private array $routes = [];

    public function get(string $path, callable $handler): self
    {
        $this->routes["GET " . $path] = $handler;
        return $this;
    }

    public function dispatch(string $method, string $path): mixed
    {
        $key = strtoupper($method) . " " . $path;
        if (!isset($this->routes[$key])) {
            throw new \RuntimeException("no route for $key");
        }
        return ($this->routes[$key])();
    }
}
"#,
        brk: (("return $this;", "return $this"), None),
        ok: ("\"no route for $key\"", "\"no route: $key\""),
        dmg: (
            "$key = strtoupper($method) . \" \" . $path;",
            "$key = strtoupper($method . \" \" . $path;",
        ),
        deep: ("<?php $x = ", "("),
    },
];
