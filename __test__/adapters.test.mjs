// What the four agent-SDK subpaths share, beyond each SDK's own runtime test
// (ai-sdk, openai-agents, langchain, anthropic .test.mjs):
//
// - the failure text every adapter gives the model (js/adapters/render.js);
// - module loading: each subpath loads its own SDK and no other, the ES
//   module entry the SDK's ES module build and the CommonJS entry its
//   CommonJS build, and the engine is loaded once whatever mix of entries an
//   application imports; an SDK that is not installed is named in the error;
// - types: each subpath's .d.ts/.d.mts declare exactly what it exports, check
//   under --strict, and a --strict consumer (ES module and CommonJS) uses
//   them with each SDK's own types (ToolSet, Editor, StructuredTool,
//   ToolResultBlockParam); the example for each SDK (docs/agent-sdks.md)
//   type-checks.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { REPO, ts, consumerProject, tsc } from './helpers/typescript.mjs'
import { CONSUMER_MTS, CONSUMER_CTS, SDK_PACKAGES } from './helpers/adapter-consumer.mjs'

const require = createRequire(import.meta.url)
const pkg = require('../package.json')
const { failureText, MAX_HINTS } = require('../js/adapters/render.js')
const tools = require('../js/tools.js')

const SUBPATHS = ['ai-sdk', 'openai-agents', 'langchain', 'anthropic']

// ---------------------------------------------------------------------------
// The failure text

test('failureText: code and message first, then each diagnosis once, the current text alone between tag lines', () => {
  const closest = { line_number: 4, end_line: 5, similarity: 0.972, text: 'function add(a, b) {\n  return a + b;', differences: ['content'], details: ['line 4 of the file has different content'] }
  const text = failureText({
    ok: false,
    code: 'SEARCH_BLOCK_NOT_FOUND',
    message: 'search_block was not found; the closest text is lines 4-5',
    closest_match: closest,
  })
  assert.equal(
    text,
    [
      'SEARCH_BLOCK_NOT_FOUND: search_block was not found; the closest text is lines 4-5',
      'line 4 of the file has different content',
      '<closest_match lines="4-5" similarity="97%" differences="content">',
      'function add(a, b) {\n  return a + b;',
      '</closest_match>',
    ].join('\n'),
  )
})

test('failureText: the similarity is the engine message\'s (cut, not rounded: both say 88 % of 0.889)', () => {
  const text = failureText({ ok: false, code: 'SEARCH_BLOCK_NOT_FOUND', message: 'not found (88% similar)', closest_match: { line_number: 3, similarity: 0.889, text: 'x', differences: ['content'] } })
  assert.match(text, /similarity="88%"/)
})

test('failureText: the diagnosis nested in failed edits, file operations, hunks and blocks reaches the text, each part named', () => {
  const near = (line, text) => ({ line_number: line, end_line: line, similarity: 0.8, text, differences: ['trailing_whitespace'] })
  const text = failureText({
    ok: false,
    code: 'SEARCH_BLOCK_NOT_FOUND',
    message: '2 file operations failed. First: `a.ts`: hunk 2 (patch line 9): not found',
    failures: [
      {
        index: 0,
        path: 'a.ts',
        code: 'SEARCH_BLOCK_NOT_FOUND',
        message: '`a.ts`: hunk 2 (patch line 9): not found',
        hunks: [{ index: 1, patch_line: 9, code: 'SEARCH_BLOCK_NOT_FOUND', message: 'hunk 2 (patch line 9): not found', closest_match: near(12, 'let x = 1; ') }],
      },
      {
        index: 1,
        path: 'b.ts',
        code: 'SEARCH_BLOCK_AMBIGUOUS',
        message: '`b.ts`: block 1 matches 2 places',
        blocks: [{ index: 0, line: 3, code: 'SEARCH_BLOCK_AMBIGUOUS', message: 'block 1 matches 2 places', match_lines: [7, 19] }],
      },
    ],
  })
  assert.match(text, /^SEARCH_BLOCK_NOT_FOUND: 2 file operations failed\./)
  assert.match(text, /\n<closest_match for="`a\.ts` hunk 2" lines="12" similarity="80%" differences="trailing_whitespace">\nlet x = 1; \n<\/closest_match>/)
  assert.match(text, /\nSEARCH_BLOCK_AMBIGUOUS: `b\.ts`: block 1 matches 2 places\n`b\.ts` block 1: matches at lines 7, 19$/)
  assert.equal(text.match(/not found/g).length, 1, 'a message already said is not repeated')

  const edits = failureText({
    ok: false,
    code: 'SEARCH_BLOCK_NOT_FOUND',
    message: '2 of the edits failed. First: edits[0]: not found',
    closest_match: near(2, 'b'),
    failed_edits: [
      { index: 0, code: 'SEARCH_BLOCK_NOT_FOUND', message: 'edits[0]: not found', closest_match: near(2, 'b') },
      { index: 3, code: 'SEARCH_BLOCK_NOT_FOUND', message: 'edits[3]: not found either', closest_match: near(9, 'z') },
    ],
  })
  assert.equal(edits.match(/<closest_match /g).length, 2, 'the top-level closest match is edits[0]\'s, given once')
  assert.match(edits, /<closest_match for="edits\[0\]" lines="2"[^>]*>\nb\n/)
  assert.match(edits, /\nedits\[3\]: not found either\n<closest_match for="edits\[3\]" lines="9"[^>]*>\nz\n/)
})

test('failureText: unique-context hints are bounded; anything that is not a failure object still gives text', () => {
  const hints = Array.from({ length: 40 }, (_, i) => ({ match_line: i + 1, line_number: i + 1, end_line: i + 2, search_block: `line ${i}\nnext` }))
  const text = failureText({ ok: false, code: 'SEARCH_BLOCK_AMBIGUOUS', message: 'occurs 40 times', match_count: 40, unique_context_hint: hints })
  assert.equal(text.match(/<unique_block /g).length, MAX_HINTS)
  assert.match(text, /\(35 more occurrences\)$/)
  assert.match(text, /<unique_block occurrence_line="1" lines="1-2">\nline 0\nnext\n<\/unique_block>/)
  for (const junk of [undefined, null, 'x', 7, {}, { ok: false }, { failures: [null, 3, { hunks: [null] }], failed_edits: [null] }]) {
    assert.match(failureText(junk), /^INTERNAL_ERROR: the call failed/, JSON.stringify(junk))
  }
})

// ---------------------------------------------------------------------------
// Module loading

/** Runs `script` (ES module) in a consumer project that has the package and the SDKs; returns its JSON output. */
function runConsumer(script) {
  const dir = consumerProject({}, { links: SDK_PACKAGES })
  // Records every module the ES module loader loads (a CommonJS require shows in require.cache instead).
  fs.writeFileSync(path.join(dir, 'hooks.mjs'), 'let port\nexport function initialize(data) { port = data.port }\nexport async function load(url, context, next) { port.postMessage(url); return next(url, context) }\n')
  fs.writeFileSync(
    path.join(dir, 'main.mjs'),
    `import { register, createRequire } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
const require = createRequire(import.meta.url)
const esm = []
const { port1, port2 } = new MessageChannel()
port1.on('message', (url) => esm.push(url))
register('./hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] })
const out = {}
${script}
await new Promise((r) => setTimeout(r, 100))
port1.close()
console.log(JSON.stringify({ ...out, esm: esm.filter((u) => u.startsWith('file:')).map((u) => decodeURIComponent(new URL(u).pathname)), cjs: Object.keys(require.cache) }))
`,
  )
  const r = spawnSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, PATCH_FILE_STATE_DIR: path.join(dir, 'state') } })
  fs.rmSync(dir, { recursive: true, force: true })
  assert.equal(r.status, 0, r.stderr)
  return JSON.parse(r.stdout.trim().split('\n').pop())
}

/** The SDK packages among loaded module paths. */
function sdksIn(paths) {
  const found = new Set()
  for (const p of paths) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p.slice(p.lastIndexOf('/node_modules/')))
    if (m && SDK_PACKAGES.concat(['@openai/agents-core', '@openai/agents-openai', 'openai', '@ai-sdk/provider-utils']).includes(m[1])) found.add(m[1])
  }
  return [...found].sort()
}

// AI SDK 7 ships one build, an ES module (`"type": "module"`, no `require`
// condition): import and require both load it (require(esm), Node 20.19+).
const aiOneBuild = JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules', 'ai', 'package.json'), 'utf8')).type === 'module'
const ownSdk = {
  'ai-sdk': aiOneBuild
    ? { pkg: 'ai', esm: /\/node_modules\/ai\/dist\/index\.js$/, cjs: /\/node_modules\/ai\/dist\/index\.js$/, oneBuild: true }
    : { pkg: 'ai', esm: /\/node_modules\/ai\/dist\/index\.mjs$/, cjs: /\/node_modules\/ai\/dist\/index\.js$/ },
  langchain: { pkg: '@langchain/core', esm: /\/node_modules\/@langchain\/core\/dist\/tools\/index\.js$/, cjs: /\/node_modules\/@langchain\/core\/dist\/tools\/index\.cjs$/ },
}
const use = {
  'ai-sdk': (m) => `Object.keys(${m}.createPatchFileTools({ workspaceRoot: '.' })).length`,
  'openai-agents': (m) => `(await ${m}.createEditor({ workspaceRoot: '.' }).deleteFile({ type: 'delete_file', path: 'none' })).status`,
  langchain: (m) => `${m}.createPatchFileTools({ workspaceRoot: '.' }).length`,
  anthropic: (m) => `(await ${m}.createTextEditor({ workspaceRoot: '.' }).toolResult({ id: 'x', name: 'str_replace_based_edit_tool', input: { command: 'view', path: '.' } })).type`,
}

for (const sub of SUBPATHS) {
  test(`${sub}: loads its own SDK (the ES module build from import, the CommonJS build from require) and no other`, () => {
    for (const how of ['import', 'require']) {
      const load = how === 'import' ? `await import('${pkg.name}/${sub}')` : `require('${pkg.name}/${sub}')`
      const out = runConsumer(`const m = ${load}\nout.used = ${use[sub]('m')}`)
      assert.ok(out.used, `${how} ${sub}: the adapter ran (${out.used})`)
      const loaded = [...out.esm, ...out.cjs]
      const own = ownSdk[sub]
      assert.deepEqual(
        sdksIn(loaded).filter((p) => !own || !(p === own.pkg || (sub === 'ai-sdk' && p === '@ai-sdk/provider-utils'))),
        [],
        `${how} ${sub} loads no other SDK`,
      )
      if (own && own.oneBuild) {
        // One build: it is what loads, whichever way the adapter was loaded (require(esm) lists it in require.cache).
        assert.ok(loaded.some((p) => own.esm.test(p)), `${how} ${sub}: ${own.pkg}'s one build loaded`)
      } else if (own) {
        const [want, not] = how === 'import' ? [out.esm, out.cjs] : [out.cjs, out.esm]
        assert.ok(want.some((p) => own[how === 'import' ? 'esm' : 'cjs'].test(p)), `${how} ${sub}: ${own.pkg}'s ${how === 'import' ? 'ES module' : 'CommonJS'} build loaded`)
        assert.ok(!not.some((p) => own.esm.test(p) || own.cjs.test(p)), `${how} ${sub}: not also the other build of ${own.pkg}`)
      }
      assert.equal(out.cjs.filter((p) => p.endsWith('.node')).length, 1, 'one native engine')
    }
  })
}

test('the package and all four subpaths, imported and required in one process: one engine, one API object, no SDK for the root', () => {
  const root = runConsumer(`const api = await import('${pkg.name}')\nout.ok = typeof api.patchFile`)
  assert.equal(root.ok, 'function')
  assert.deepEqual(sdksIn([...root.esm, ...root.cjs]), [], 'the package itself loads no SDK')
  assert.ok(!root.cjs.some((p) => p.includes(`${path.sep}js${path.sep}adapters${path.sep}`)), 'nor any adapter')

  const all = runConsumer(
    [
      `const esmApi = await import('${pkg.name}')`,
      `const cjsApi = require('${pkg.name}')`,
      ...SUBPATHS.flatMap((s, i) => [`const e${i} = await import('${pkg.name}/${s}')`, `const c${i} = require('${pkg.name}/${s}')`]),
      `out.same = esmApi.default === cjsApi`,
      `out.used = [${SUBPATHS.flatMap((s, i) => [use[s](`e${i}`), use[s](`c${i}`)]).join(', ')}]`,
    ].join('\n'),
  )
  assert.equal(all.same, true, 'import and require give the same API object')
  assert.equal(all.used.length, 8)
  const count = (re) => all.cjs.filter((p) => re.test(p)).length
  assert.equal(count(/\.node$/), 1, 'the native engine is loaded once')
  assert.equal(count(/\/binding\.js$/), 1, 'binding.js once')
  assert.equal(count(/\/js\/api\.js$/), 1, 'the API is built once')
  assert.equal(count(/\/js\/tools\.js$/), 1, 'one tool table')
  for (const f of ['toolset.js', 'v4a.js', 'render.js']) assert.equal(count(new RegExp(`/js/adapters/${f.replace('.', '\\.')}$`)), 1, `${f} once`)
})

test('a subpath whose SDK is not installed says which package to install, from import and from require', () => {
  // A copy of the package's JavaScript with no node_modules anywhere above it.
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-nopeer-')))
  const copy = path.join(dir, pkg.name)
  for (const f of ['package.json', 'index.js', 'index.mjs', 'binding.js']) {
    fs.mkdirSync(copy, { recursive: true })
    fs.copyFileSync(path.join(REPO, f), path.join(copy, f))
  }
  for (const d of ['js', 'schemas']) fs.cpSync(path.join(REPO, d), path.join(copy, d), { recursive: true })
  try {
    for (const [sub, peer] of [['ai-sdk', 'ai'], ['langchain', '@langchain/core']]) {
      for (const how of ['import', 'require']) {
        const file = path.join(copy, 'js', 'adapters', `${sub}.${how === 'import' ? 'mjs' : 'js'}`)
        const code = how === 'import' ? `import(${JSON.stringify(file)}).catch((e) => { console.log(e.message); process.exit(3) })` : `try { require(${JSON.stringify(file)}) } catch (e) { console.log(e.message); process.exit(3) }`
        const r = spawnSync(process.execPath, ['-e', code], { cwd: dir, encoding: 'utf8' })
        assert.equal(r.status, 3, r.stderr)
        assert.equal(r.stdout.trim(), `${pkg.name}/${sub} needs the package ${peer} (${pkg.peerDependencies[peer]}), which is not installed: npm install ${peer}`)
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('package.json: each subpath has ES module and CommonJS entries with their types, ships in files, and its SDK is an optional peer', () => {
  const peers = { 'ai-sdk': ['ai'], 'openai-agents': ['@openai/agents'], langchain: ['@langchain/core', '@langchain/openai'], anthropic: ['@anthropic-ai/sdk'] }
  for (const sub of SUBPATHS) {
    assert.deepEqual(pkg.exports[`./${sub}`], {
      import: { types: `./js/adapters/${sub}.d.mts`, default: `./js/adapters/${sub}.mjs` },
      require: { types: `./js/adapters/${sub}.d.ts`, default: `./js/adapters/${sub}.js` },
    })
    for (const ext of ['js', 'mjs', 'd.ts', 'd.mts']) assert.ok(fs.existsSync(path.join(REPO, 'js', 'adapters', `${sub}.${ext}`)), `${sub}.${ext}`)
    for (const p of peers[sub]) {
      assert.ok(pkg.peerDependencies[p], `${p} is a peer dependency`)
      assert.deepEqual(pkg.peerDependenciesMeta[p], { optional: true })
      assert.ok(pkg.devDependencies[p], `${p} is a dev dependency (the tests use it)`)
      assert.ok(!(pkg.dependencies || {})[p], `${p} is not a dependency`)
    }
  }
  assert.ok(pkg.files.includes('js/'), 'js/ (with js/adapters/) ships')
})

test('DEFAULT_TOOLS names tools of the table, once each', () => {
  assert.ok(Object.isFrozen(tools.DEFAULT_TOOLS))
  assert.deepEqual(tools.DEFAULT_TOOLS, ['patch_file', 'read_file', 'write_file', 'apply_patch', 'undo'])
  for (const name of tools.DEFAULT_TOOLS) assert.ok(tools.get(name), name)
  assert.equal(new Set(tools.DEFAULT_TOOLS).size, tools.DEFAULT_TOOLS.length)
})

// ---------------------------------------------------------------------------
// Types

/** The values a declaration file exports, and its own diagnostics under --strict. */
function declared(program, file) {
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)
  const values = checker
    .getExportsOfModule(checker.getSymbolAtLocation(source))
    .filter((s) => ((s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).flags & ts.SymbolFlags.Value) !== 0)
    .map((s) => s.name)
    .sort()
  const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
  return { values, diagnostics }
}

test("each subpath's .d.ts and .d.mts declare exactly what its CommonJS and ES module entries export, and check under --strict", async () => {
  const files = SUBPATHS.flatMap((s) => ['d.ts', 'd.mts'].map((e) => path.join(REPO, 'js', 'adapters', `${s}.${e}`)))
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
    skipLibCheck: true,
  })
  for (const sub of SUBPATHS) {
    const base = path.join(REPO, 'js', 'adapters', sub)
    const cjs = declared(program, `${base}.d.ts`)
    const esm = declared(program, `${base}.d.mts`)
    assert.deepEqual(cjs.diagnostics, [], `${sub}.d.ts`)
    assert.deepEqual(esm.diagnostics, [], `${sub}.d.mts`)
    assert.deepEqual(cjs.values, Object.keys(require(`${base}.js`)).sort(), `${sub}.d.ts = ${sub}.js's exports`)
    assert.deepEqual(esm.values, Object.keys(await import(`${base}.mjs`)).sort(), `${sub}.d.mts = ${sub}.mjs's exports`)
    // The two differ in their first line only: each resolves the SDK's types in its own module format.
    const [d, dm] = ['d.ts', 'd.mts'].map((e) => fs.readFileSync(`${base}.${e}`, 'utf8').split('\n'))
    assert.deepEqual(dm.slice(1), d.slice(1), `${sub}.d.mts and ${sub}.d.ts declare the same`)
  }
})

/** docs/agent-sdks.md (README links to it): its TypeScript examples. */
function readmeExamples() {
  const text = fs.readFileSync(path.join(REPO, 'docs', 'agent-sdks.md'), 'utf8')
  assert.ok(text.startsWith('# Agent SDKs\n'), 'docs/agent-sdks.md is the Agent SDKs page')
  assert.match(fs.readFileSync(path.join(REPO, 'README.md'), 'utf8'), /\(docs\/agent-sdks\.md\)/, 'README links to it')
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1])
}

test('a --strict consumer (ES module and CommonJS) type-checks against each SDK\'s own types, and the four examples of docs/agent-sdks.md type-check', () => {
  const examples = readmeExamples()
  assert.equal(examples.length, 4, 'one example per SDK')
  for (const [i, sub] of SUBPATHS.entries()) assert.ok(examples[i].includes(`'${pkg.name}/${sub}'`), `example ${i + 1} imports ${sub}`)
  const files = { 'consumer.mts': CONSUMER_MTS, 'consumer.cts': CONSUMER_CTS }
  for (const [i, text] of examples.entries()) files[`readme-${SUBPATHS[i]}.mts`] = text
  // The SDKs' own declaration files are not ours to check (skipLibCheck, as tsc --init sets it); ours are checked above.
  const dir = consumerProject(files, { links: SDK_PACKAGES, compilerOptions: { skipLibCheck: true } })
  try {
    const r = tsc(dir)
    assert.equal(r.status, 0, r.output)
    // The check is real: a wrong use fails.
    fs.writeFileSync(path.join(dir, 'consumer.mts'), CONSUMER_MTS.replace('// @ts-expect-error workspaceRoot is a string\n', ''))
    const bad = tsc(dir)
    assert.notEqual(bad.status, 0)
    assert.deepEqual(bad.errors.map((e) => [e.file, e.code]), [['consumer.mts', 'TS2322']], bad.output)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('a typo in an adapter\'s options throws at construction, naming it (every model call was refused instead)', async () => {
  const { createPatchFileTools } = await import('patch-file-tool/ai-sdk')
  const { createEditor } = await import('patch-file-tool/openai-agents')
  const { createTextEditor } = await import('patch-file-tool/anthropic')
  const lc = await import('patch-file-tool/langchain')
  assert.throws(() => createPatchFileTools({ workspaceroot: '/tmp' }), /TypeError|unknown field `workspaceroot` \(did you mean `workspaceRoot`\?\)/)
  assert.throws(() => lc.createPatchFileTools({ workspaceRoot: '/tmp', lockWait: 5 }), TypeError)
  assert.throws(() => createEditor({ workspaceRoot: '/tmp', timeout: 5 }), /unknown field `timeout`/)
  assert.throws(() => createTextEditor({ worksapceRoot: '/tmp' }), TypeError)
  assert.throws(() => lc.createApplyPatchExecute({ workspaceRoot: '/tmp', durabel: false }), TypeError)
  // Good options, and a call's own signal, construct.
  const ac = new AbortController()
  assert.ok(createPatchFileTools({ workspaceRoot: '/tmp', lockWaitMs: 5, signal: ac.signal }))
  assert.ok(createEditor({ workspaceRoot: '/tmp' }))
  assert.ok(createTextEditor({ workspaceRoot: '/tmp', maxCharacters: 100 }))
})

test('the LangChain types need no optional peer: @langchain/openai is not imported (a consumer without it failed to type-check)', () => {
  for (const f of ['langchain.d.ts', 'langchain.d.mts']) {
    const text = fs.readFileSync(new URL(`../js/adapters/${f}`, import.meta.url), 'utf8')
    assert.doesNotMatch(text, /from '@langchain\/openai'/, f)
    assert.match(text, /export type ApplyPatchOperation =/, f)
  }
})
