// The shape of the shipped JavaScript (index.js, js/, bin/): no file
// requires itself back through others (a require inside a function counts:
// it only defers the circle); production code reads no test-only
// environment variable (every variable it reads is a documented one); and
// nothing rewrites Node's module cache (a dependency is loaded as it ships).
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The shipped JS files, relative to the repository. */
function shipped() {
  const out = ['index.js']
  for (const dir of ['js', 'bin']) {
    for (const f of fs.readdirSync(path.join(REPO, dir), { recursive: true })) {
      if (/\.(c?js)$/.test(f)) out.push(path.join(dir, f).split(path.sep).join('/'))
    }
  }
  return out
}

const source = (f) => fs.readFileSync(path.join(REPO, f), 'utf8')

/** The shipped files `file` requires by a relative path (wherever the require sits). */
function requires(file) {
  const out = []
  for (const m of source(file).matchAll(/require\(\s*(['"`])(\.{1,2}\/[^'"`$]+)\1\s*\)/g)) {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[2]))
    const hit = [base, `${base}.js`, `${base}/index.js`].find((c) => fs.existsSync(path.join(REPO, c)) && fs.statSync(path.join(REPO, c)).isFile())
    assert.ok(hit, `${file} requires ${m[2]}, which does not exist`)
    if (/\.c?js$/.test(hit)) out.push(hit)
  }
  return out
}

/** Every cycle of the require graph over `files`, each as a path [a, b, ..., a]. */
function cycles(files) {
  const graph = new Map(files.map((f) => [f, requires(f)]))
  const found = []
  const state = new Map()
  const stack = []
  const visit = (f) => {
    state.set(f, 'open')
    stack.push(f)
    for (const g of graph.get(f) || []) {
      if (state.get(g) === 'open') found.push([...stack.slice(stack.indexOf(g)), g])
      else if (!state.has(g)) visit(g)
    }
    stack.pop()
    state.set(f, 'done')
  }
  for (const f of files) if (!state.has(f)) visit(f)
  return found
}

test('the require graph of the shipped JS has no circle', () => {
  const files = shipped()
  assert.deepEqual(cycles(files).map((c) => c.join(' -> ')), [])
  assert.ok(files.includes('js/tools.js') && files.includes('js/engine.js') && files.includes('js/adapters/toolset.js'), files.join(', '))
  assert.deepEqual(requires('js/engine.js').sort(), ['js/api.js', 'js/native.js'])
  assert.ok(!requires('js/tools.js').includes('index.js') && !requires('js/tools.js').includes('js/engine.js'), 'the table loads no engine')
})

test('production JS reads no test-only environment variable: each one it names is documented', () => {
  const docs = [source('README.md'), ...fs.readdirSync(path.join(REPO, 'docs')).map((f) => source(`docs/${f}`))].join('\n')
  const named = new Map()
  for (const f of shipped()) {
    const text = source(f)
    const names = [
      ...[...text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]),
      ...[...text.matchAll(/['"`](PATCH_FILE_[A-Z0-9_]+)['"`]/g)].map((m) => m[1]),
    ]
    for (const n of names) named.set(n, [...(named.get(n) || []), f])
  }
  for (const [name, files] of named) assert.doesNotMatch(name, /TEST/, `${files.join(', ')} read a test hook, ${name}`)
  for (const [name, files] of named) assert.ok(docs.includes(name), `${name} (read by ${files.join(', ')}) is documented in README.md or docs/`)
  assert.ok(named.has('PATCH_FILE_TOOLS') && named.has('PATCH_FILE_LOG'), [...named.keys()].join(', '))
})

test('no shipped file rewrites the module cache', () => {
  for (const f of shipped()) {
    assert.doesNotMatch(source(f), /require\.cache\s*\[[^\]]*\]\s*=|Module\._cache|new Module\(/, f)
  }
})
