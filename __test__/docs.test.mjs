import './helpers/private-state.mjs'
// The documentation as a user meets it: README.md stays a manual of at most
// 20 KB; every TypeScript and JavaScript block of README.md and docs/*.md
// type-checks under `tsc --strict` against the repository's index.d.ts (and
// the agent SDKs' own types), in one tsc run; the runnable ones run, each in
// a fresh temp workspace (its cwd), and leave the files they promise; and
// every relative link and #anchor of README.md and docs/*.md resolves.
//
// A block is runnable unless an HTML comment on the line right above its fence
// says otherwise; the comment is invisible where the Markdown is rendered:
//
//   <!-- example {"files": {"src/a.ts": "x = 1\n"}, "after": {"src/a.ts": "x = 2\n"}} -->
//       runnable: the workspace holds `files` before, and `after` once it ran
//       (a null content: the file no longer exists)
//   <!-- example {"run": false, "why": "calls a model: an API key and the network"} -->
//       type-checked, not run
//   <!-- example {"fragment": "why"} -->
//       neither: a piece of a larger program (kept to very few)
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { REPO, ts, consumerProject, tsc } from './helpers/typescript.mjs'
import { SDK_PACKAGES } from './helpers/adapter-consumer.mjs'

const README_MAX_BYTES = 20 * 1024
const LANGS = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs', 'cjs'])
/** At most this many blocks may be fragments (skipped); each says why. */
const MAX_FRAGMENTS = 3

/** README.md and docs/*.md, as paths relative to the repository. */
function markdownFiles() {
  const docs = fs
    .readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`)
  return ['README.md', ...docs]
}

/**
 * The fenced code blocks of a Markdown text: { lang, line (1-based, of the
 * opening fence), code, directive } where directive is the parsed JSON of an
 * `<!-- example {...} -->` line right above the fence, or null.
 */
function codeBlocks(file, text) {
  const lines = text.split('\n')
  const blocks = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/.exec(lines[i])
    if (!open) continue
    const [, indent, fence, lang] = open
    const body = []
    let j = i + 1
    for (; j < lines.length; j++) {
      if (new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(lines[j])) break
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart())
    }
    assert.ok(j < lines.length, `${file}:${i + 1}: a code fence that is never closed`)
    let directive = null
    const above = i > 0 ? /^\s*<!--\s*example\s+(\{.*\})\s*-->\s*$/.exec(lines[i - 1]) : null
    if (above) {
      try {
        directive = JSON.parse(above[1])
      } catch (e) {
        assert.fail(`${file}:${i}: the example comment is not JSON: ${e.message}`)
      }
    }
    blocks.push({ file, line: i + 1, lang: lang.toLowerCase(), code: body.join('\n') + '\n', directive })
    i = j
  }
  // A directive belongs to the block right below it.
  lines.forEach((l, i) => {
    if (/^\s*<!--\s*example\b/.test(l)) assert.ok(blocks.some((b) => b.line === i + 2), `${file}:${i + 1}: an example comment not right above a code fence`)
  })
  return blocks
}

/** Every TypeScript/JavaScript block of README.md and docs/*.md, each with its kind: run, check, fragment. */
function examples() {
  const out = []
  for (const file of markdownFiles()) {
    for (const b of codeBlocks(file, fs.readFileSync(path.join(REPO, file), 'utf8'))) {
      if (!LANGS.has(b.lang)) {
        assert.equal(b.directive, null, `${b.file}:${b.line}: an example comment on a ${b.lang || 'plain'} block`)
        continue
      }
      const d = b.directive || {}
      const known = new Set(['files', 'after', 'run', 'why', 'fragment'])
      for (const k of Object.keys(d)) assert.ok(known.has(k), `${b.file}:${b.line}: unknown key ${k} in the example comment`)
      let kind = 'run'
      if (d.fragment !== undefined) {
        assert.ok(typeof d.fragment === 'string' && d.fragment.length > 10, `${b.file}:${b.line}: a fragment says why`)
        kind = 'fragment'
      } else if (d.run === false) {
        assert.ok(typeof d.why === 'string' && d.why.length > 10, `${b.file}:${b.line}: a block not run says why`)
        assert.ok(!d.files && !d.after, `${b.file}:${b.line}: files/after on a block not run`)
        kind = 'check'
      }
      const cjs = b.lang === 'cjs' || /\brequire\(/.test(b.code)
      const stem = `${b.file.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')}-L${b.line}`
      out.push({ ...b, kind, cjs, name: `${stem}.${cjs ? 'cts' : 'mts'}`, files: d.files || {}, after: d.after || {}, why: d.why || d.fragment })
    }
  }
  return out
}

/**
 * Runs example `e` (already type-checked) as a script in `dir`, which links
 * the package, with a fresh workspace under `dir` as its cwd holding
 * `e.files`; asserts it exits 0 and leaves `e.after`.
 */
function runExample(dir, e) {
  const js = ts.transpileModule(e.code, {
    compilerOptions: { module: e.cjs ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText
  const script = path.join(dir, e.name.replace(/\.cts$/, '.cjs').replace(/\.mts$/, '.mjs'))
  fs.writeFileSync(script, js)
  const ws = fs.mkdtempSync(path.join(dir, 'ws-'))
  for (const [rel, content] of Object.entries(e.files)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true })
    fs.writeFileSync(path.join(ws, rel), content)
  }
  const run = spawnSync(process.execPath, [script], { cwd: ws, encoding: 'utf8', timeout: 60_000 })
  assert.equal(run.status, 0, `${e.file}:${e.line} exits 0:\n${run.stdout}${run.stderr}`)
  for (const [rel, content] of Object.entries(e.after)) {
    const p = path.join(ws, rel)
    if (content === null) assert.ok(!fs.existsSync(p), `${e.file}:${e.line}: ${rel} is gone`)
    else assert.equal(fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null, content, `${e.file}:${e.line}: ${rel} afterwards`)
  }
}

test(`README.md is at most ${README_MAX_BYTES} bytes`, () => {
  const size = fs.statSync(path.join(REPO, 'README.md')).size
  assert.ok(size <= README_MAX_BYTES, `README.md is ${size} bytes`)
})

test('every TypeScript/JavaScript block of README.md and docs/ type-checks under tsc --strict, and the runnable ones run', (t) => {
  const all = examples()
  const compiled = all.filter((e) => e.kind !== 'fragment')
  const fragments = all.filter((e) => e.kind === 'fragment')
  for (const e of all.filter((x) => x.kind !== 'run')) t.diagnostic(`${e.kind === 'check' ? 'type-checked, not run' : 'fragment, skipped'}: ${e.file}:${e.line}: ${e.why}`)
  assert.ok(fragments.length <= MAX_FRAGMENTS, `${fragments.length} fragments: ${fragments.map((f) => `${f.file}:${f.line}`).join(', ')}`)
  for (const e of all.filter((x) => x.kind === 'run')) {
    assert.doesNotMatch(e.code, /\/path\/to\//, `${e.file}:${e.line} runs, so its workspace is its cwd, not a placeholder path`)
  }

  // One tsc run for every block, each its own module.
  const files = Object.fromEntries(compiled.map((e) => [e.name, e.code]))
  const dir = consumerProject(files, { links: [...SDK_PACKAGES, '@types/node'], compilerOptions: { types: ['node'], skipLibCheck: true } })
  try {
    const r = tsc(dir)
    const where = (f) => {
      const e = compiled.find((x) => x.name === path.basename(f))
      return e ? `${e.file}:${e.line}` : f
    }
    const errors = r.errors.map((x) => {
      const e = compiled.find((c) => c.name === path.basename(x.file))
      return `${e ? `${e.file}:${e.line + x.line}` : where(x.file)}: ${x.code} ${x.message}`
    })
    assert.deepEqual(errors, [], r.output)
    assert.equal(r.status, 0, r.output)

    // Run the runnable ones, each in a fresh workspace of its own.
    for (const e of compiled.filter((x) => x.kind === 'run')) runExample(dir, e)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  assert.ok(compiled.length >= 12, `only ${compiled.length} blocks found`)
  assert.ok(all.some((e) => e.file === 'README.md' && e.kind === 'run'), 'README has a runnable example')
})

test('the check is real: a block with a type error, or one that fails at run time, is caught', () => {
  const md = [
    '```ts',
    "import { patchFile } from 'patch-file-tool'",
    "const r = await patchFile({ file_path: 'a.txt', search_block: 'a', replace_block: 'b' }, { workspaceRoot: process.cwd() })",
    'const n: string = r.ok ? r.line_number : r.code',
    '```',
  ].join('\n')
  const [block] = codeBlocks('x.md', md)
  const dir = consumerProject({ 'x.mts': block.code }, { links: ['@types/node'], compilerOptions: { types: ['node'], skipLibCheck: true } })
  try {
    const r = tsc(dir)
    assert.deepEqual(
      r.errors.map((e) => [e.line, e.code]),
      [[3, 'TS2322']],
      r.output,
    )
    // An example that does not do what its comment promises, and one that throws.
    const edit = "import { patchFile } from 'patch-file-tool'\nawait patchFile({ file_path: 'a.txt', search_block: 'a', replace_block: 'b' })\n"
    const base = { file: 'x.md', line: 1, cjs: false, files: { 'a.txt': 'a\n' } }
    runExample(dir, { ...base, name: 'ok.mts', code: edit, after: { 'a.txt': 'b\n' } })
    assert.throws(() => runExample(dir, { ...base, name: 'wrong.mts', code: edit, after: { 'a.txt': 'c\n' } }), /a\.txt afterwards/)
    assert.throws(() => runExample(dir, { ...base, name: 'throws.mts', code: "throw new Error('no')\n", after: {} }), /exits 0/)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

// ---------------------------------------------------------------------------
// Links

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
function anchors(text) {
  const seen = new Map()
  const out = new Set()
  let fence = false
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence
    if (fence) continue
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!h) continue
    const plain = h[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '')
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const n = seen.get(slug) || 0
    seen.set(slug, n + 1)
    out.add(n ? `${slug}-${n}` : slug)
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1])
  return out
}

/** The Markdown links of a text outside code: { target, line }. */
function links(text) {
  const out = []
  let fence = false
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence
    if (fence) return
    const prose = line.replace(/`[^`]*`/g, '')
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ target: m[1], line: i + 1 })
  })
  return out
}

test("README's and docs' relative links and #anchors resolve", () => {
  const broken = []
  let checked = 0
  const cache = new Map()
  const anchorsOf = (rel) => {
    if (!cache.has(rel)) cache.set(rel, anchors(fs.readFileSync(path.join(REPO, rel), 'utf8')))
    return cache.get(rel)
  }
  for (const file of markdownFiles()) {
    const text = fs.readFileSync(path.join(REPO, file), 'utf8')
    for (const { target, line } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
      checked++
      const [p, frag] = target.split('#')
      const rel = p ? path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(p))) : file
      if (rel.startsWith('..') || !fs.existsSync(path.join(REPO, rel))) {
        broken.push(`${file}:${line}: ${target} (no such file)`)
        continue
      }
      if (frag !== undefined) {
        if (!rel.endsWith('.md')) broken.push(`${file}:${line}: ${target} (an anchor into a file that is not Markdown)`)
        else if (!anchorsOf(rel).has(frag)) broken.push(`${file}:${line}: ${target} (no heading #${frag} in ${rel})`)
      }
    }
  }
  assert.deepEqual(broken, [])
  assert.ok(checked >= 30, `only ${checked} relative links found`)
})

test('the anchor rule is GitHub\'s', () => {
  const a = anchors('# A b\n## Tools listed: profiles and `--tools`\n## Transactions: many edits, counts\n## A b\n```\n# not a heading\n```\n')
  assert.deepEqual([...a].sort(), ['a-b', 'a-b-1', 'tools-listed-profiles-and---tools', 'transactions-many-edits-counts'])
})

test("README's JSON blocks parse (users paste them into their config as they are)", () => {
  const json = codeBlocks('README.md', fs.readFileSync(path.join(REPO, 'README.md'), 'utf8')).filter((b) => b.lang === 'json')
  assert.ok(json.length >= 1, 'README has the MCP client config')
  for (const b of json) assert.doesNotThrow(() => JSON.parse(b.code), `README.md:${b.line}`)
  const config = JSON.parse(json[0].code)
  assert.deepEqual(Object.keys(config.mcpServers['patch-file-tool']).sort(), ['args', 'command', 'env'])
  assert.ok(config.mcpServers['patch-file-tool'].env.PATCH_FILE_WORKSPACE_ROOT, 'the config sets the workspace root')
})
