// patch-file-tool/langchain driven by LangChain's own runtime (no network):
// tools.applyPatch({ execute: createApplyPatchExecute(...) }) from
// @langchain/openai and the tools of createPatchFileTools(...) invoked with
// tool calls, as an agent loop invokes them: each answers a ToolMessage with
// the result, the failures with the engine's diagnosis.
import './helpers/private-state.mjs'
import { listedByDefault } from './helpers/listed.mjs'
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { ChatOpenAI, tools } from '@langchain/openai'
import { ToolMessage } from '@langchain/core/messages'
import { StructuredTool } from '@langchain/core/tools'
import * as core0Tools from '@langchain/core-v0/tools'
import * as core0Messages from '@langchain/core-v0/messages'
import { createApplyPatchExecute, createPatchFileTools } from 'patch-file-tool/langchain'
import { tempDir as newTempDir } from './helpers/mcp-raw.mjs'

const made = []
/** A fresh workspace, removed when the tests end. */
function tempDir(prefix) {
  const dir = newTempDir(prefix)
  made.push(dir)
  return dir
}
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

const require = createRequire(import.meta.url)
const { DEFAULT_TOOLS } = require('../js/tools.js')
const { schemas, applyDryRun } = require('../index.js')
const { failureText } = require('../js/adapters/render.js')
const { langchainTools } = require('../js/adapters/toolset.js')
/** The version of the package installed as `dep`. */
const versionOf = (dep) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'node_modules', dep, 'package.json'), 'utf8')).version

const call = (id, name, args) => ({ type: 'tool_call', id, name, args })

test('tools.applyPatch with createApplyPatchExecute: operations apply and each answers a ToolMessage with the text for the model', async () => {
  const ws = tempDir('pft-langchain-')
  fs.writeFileSync(path.join(ws, 'fib.py'), 'def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n')
  const applyPatch = tools.applyPatch({ execute: createApplyPatchExecute({ workspaceRoot: ws }) })
  assert.equal(applyPatch.name, 'apply_patch')

  const created = await applyPatch.invoke(call('c1', 'apply_patch', { type: 'create_file', path: 'lib/README.md', diff: '+# lib\n' }))
  assert.ok(created instanceof ToolMessage, 'a ToolMessage of the @langchain/core the application imports')
  assert.equal(created.tool_call_id, 'c1')
  assert.equal(created.content, 'Created lib/README.md.')
  assert.equal(fs.readFileSync(path.join(ws, 'lib', 'README.md'), 'utf8'), '# lib\n')

  const updated = await applyPatch.invoke(
    call('c2', 'apply_patch', { type: 'update_file', path: 'fib.py', diff: '@@\n-def fib(n):\n-    return n if n < 2 else fib(n - 1) + fib(n - 2)\n+def fibonacci(n):\n+    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)\n' }),
  )
  assert.equal(updated.content, 'Updated fib.py: 1 section applied at line 1.')
  assert.equal(fs.readFileSync(path.join(ws, 'fib.py'), 'utf8'), 'def fibonacci(n):\n    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)\n')

  // Stale: fib() was renamed. The text carries the engine's diagnosis, with lines counted in the diff.
  const stale = await applyPatch.invoke(call('c3', 'apply_patch', { type: 'update_file', path: 'fib.py', diff: '@@\n-def fib(n):\n+def fib(n: int):\n' }))
  assert.equal(stale.tool_call_id, 'c3')
  assert.match(stale.content, /^SEARCH_BLOCK_NOT_FOUND: `fib\.py`: hunk 1 \(diff line 1\): the 1 context\/removed line starting with `def fib\(n\):` was not found/)
  assert.equal(fs.readFileSync(path.join(ws, 'fib.py'), 'utf8'), 'def fibonacci(n):\n    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)\n')

  const deleted = await applyPatch.invoke(call('c4', 'apply_patch', { type: 'delete_file', path: 'lib/README.md' }))
  assert.equal(deleted.content, 'Deleted lib/README.md.')
  assert.ok(!fs.existsSync(path.join(ws, 'lib', 'README.md')))
})

test('the applyPatch execute never rejects when reading the operation throws: INVALID_INPUT, nothing written', async () => {
  const ws = tempDir('pft-langchain-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const execute = createApplyPatchExecute({ workspaceRoot: ws })
  const boom = (what) => () => {
    throw new Error(`${what} threw`)
  }
  const proxy = new Proxy({}, { get: boom('get'), has: boom('has'), ownKeys: boom('ownKeys'), getOwnPropertyDescriptor: boom('descriptor') })
  for (const op of [
    proxy,
    { get type() { throw new Error('type getter') }, path: 'a.txt', diff: '@@\n-one\n+two\n' },
    { type: 'update_file', get path() { throw new Error('path getter') }, diff: '@@\n-one\n+two\n' },
  ]) {
    const text = await execute(op)
    assert.match(text, /^INVALID_INPUT: the operation threw an exception when read \(\w+ (getter|threw)\).*; nothing was written$/)
  }
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\n')
  // A path that reads twice and then throws: the answer agrees with the file.
  let reads = 0
  const flaky = {
    type: 'update_file',
    get path() {
      if (++reads > 2) throw new Error('path read three times')
      return 'a.txt'
    },
    diff: '@@\n-one\n+two\n',
  }
  const text = await execute(flaky)
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), text.startsWith('Updated') ? 'two\n' : 'one\n', text)
})

/** The tools of a request ChatOpenAI (Responses API) would send for `list`: [{ type, name, parameters, strict }]. */
function requestTools(list) {
  const chat = new ChatOpenAI({ model: 'gpt-5.1', useResponsesApi: true, apiKey: 'sk-test-no-network' })
  return chat.responses.invocationParams(chat.bindTools(list).defaultOptions).tools
}

test('createApplyPatchExecute answers a failed operation with status "error", a successful one with "success"', async () => {
  const ws = tempDir('pft-langchain-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const applyPatch = tools.applyPatch({ execute: createApplyPatchExecute({ workspaceRoot: ws }) })
  const failed = await applyPatch.invoke(call('f1', 'apply_patch', { type: 'update_file', path: 'a.txt', diff: '@@\n-nope\n+two\n' }))
  assert.deepEqual([failed.status, failed.tool_call_id, failed.name, failed.artifact.code], ['error', 'f1', 'apply_patch', 'SEARCH_BLOCK_NOT_FOUND'])
  assert.match(failed.content, /^SEARCH_BLOCK_NOT_FOUND: /)
  const outside = await applyPatch.invoke(call('f2', 'apply_patch', { type: 'create_file', path: '../x.txt', diff: '+x\n' }))
  assert.deepEqual([outside.status, outside.artifact.code], ['error', 'PATH_OUTSIDE_WORKSPACE'])
  const done = await applyPatch.invoke(call('f3', 'apply_patch', { type: 'update_file', path: 'a.txt', diff: '@@\n-one\n+two\n' }))
  assert.deepEqual([done.status, done.artifact.ok], ['success', true])
  // Without a tool call, the text alone.
  assert.match(await createApplyPatchExecute({ workspaceRoot: ws })({ type: 'delete_file', path: 'missing.txt' }), /^FILE_READ_ERROR|^INVALID_INPUT|^PATH/)
})

test('the setup of docs/agent-sdks.md: one tool per name in the request, and its loop never throws, whichever tool the model calls', async () => {
  const ws = tempDir('pft-langchain-')
  fs.writeFileSync(path.join(ws, 'fib.py'), 'def fib(n):\n    pass\n')
  const doc = fs.readFileSync(new URL('../docs/agent-sdks.md', import.meta.url), 'utf8')
  const line = "const editTools: StructuredTool[] = [tools.applyPatch({ execute: createApplyPatchExecute({ workspaceRoot }) }), ...createPatchFileTools({ workspaceRoot }).filter((t) => t.name !== 'apply_patch')]"
  assert.ok(doc.includes(line), 'docs/agent-sdks.md builds its tools as this test does')
  const workspaceRoot = ws
  const editTools = [tools.applyPatch({ execute: createApplyPatchExecute({ workspaceRoot }) }), ...createPatchFileTools({ workspaceRoot }).filter((t) => t.name !== 'apply_patch')]
  const sent = requestTools(editTools)
  const names = sent.map((t) => t.name ?? t.type)
  assert.deepEqual(names, ['apply_patch', 'patch_file', 'read_file', 'write_file', 'undo'])
  assert.equal(new Set(names).size, names.length)
  // The loop of the example, on scripted tool calls: OpenAI's apply_patch operations, our tools with an alias and a typo.
  const calls = [
    call('1', 'apply_patch', { type: 'update_file', path: 'fib.py', diff: '@@\n-def fib(n):\n+def fibonacci(n):\n' }),
    call('2', 'apply_patch', { type: 'update_file', path: 'fib.py', diff: '@@\n-def fib(n):\n+def f(n):\n' }),
    call('3', 'patch_file', { file_path: 'fib.py', old_string: '    pass', new_string: '    return n' }),
    call('4', 'patch_file', { file_path: 'fib.py', search_block: 'x', replace_block: 'y', typo: true }),
    call('5', 'read_file', { file_path: 'fib.py' }),
  ]
  const answers = []
  for (const c of calls) {
    const tool = editTools.find((t) => t.name === c.name)
    if (tool) answers.push(await tool.invoke(c))
  }
  assert.deepEqual(answers.map((m) => m.status), ['success', 'error', 'success', 'error', 'success'])
  assert.equal(fs.readFileSync(path.join(ws, 'fib.py'), 'utf8'), 'def fibonacci(n):\n    return n\n')
})

const haveFlock = spawnSync('sh', ['-c', 'command -v flock']).status === 0


// The tests of createPatchFileTools run against both majors of @langchain/core the package supports: the current
// one (through the package's own subpath) and the previous one (the dev dependency `@langchain/core-v0`, an npm
// alias of 0.3, through the same tool builder). @langchain/openai's tools.applyPatch exists only in its 1.x, which
// needs @langchain/core 1: the applyPatch tests and ChatOpenAI's requests are @langchain/core 1's.
const CORES = [
  { label: `@langchain/core ${versionOf('@langchain/core')}`, StructuredTool, ToolMessage, createPatchFileTools, openai: true },
  {
    label: `@langchain/core ${versionOf('@langchain/core-v0')}`,
    StructuredTool: core0Tools.StructuredTool,
    ToolMessage: core0Messages.ToolMessage,
    createPatchFileTools: (options, toolOptions) => langchainTools({ tool: core0Tools.tool, ToolMessage: core0Messages.ToolMessage }, options, toolOptions),
    openai: false,
  },
]
assert.ok(versionOf('@langchain/core').startsWith('1.') && versionOf('@langchain/core-v0').startsWith('0.3.'))

for (const { label, StructuredTool, ToolMessage, createPatchFileTools, openai } of CORES) {
test(`${label}: ` + 'createPatchFileTools: the default tools, named and described as the MCP tools; a ToolMessage with the result as content and artifact', async () => {
  const ws = tempDir('pft-langchain-')
  fs.writeFileSync(path.join(ws, 'config.ts'), 'export const retries = 2;\n')
  const list = createPatchFileTools({ workspaceRoot: ws })
  assert.deepEqual(list.map((t) => t.name), [...DEFAULT_TOOLS])
  for (const t of list) {
    assert.ok(t instanceof StructuredTool)
    assert.equal(t.description, schemas[t.name].description)
    assert.deepEqual(JSON.parse(JSON.stringify(t.schema)), listedByDefault(t.name, schemas[t.name].parameters))
    assert.notEqual(t.schema, schemas[t.name].parameters, 'LangChain gets its own copy of the schema')
    assert.ok(!Object.isFrozen(t.schema))
  }
  const patchFile = list.find((t) => t.name === 'patch_file')

  const ok = await patchFile.invoke(call('p1', 'patch_file', { file_path: 'config.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' }))
  assert.ok(ok instanceof ToolMessage)
  assert.deepEqual([ok.tool_call_id, ok.name, ok.status], ['p1', 'patch_file', 'success'])
  assert.equal(ok.artifact.ok, true)
  assert.deepEqual(JSON.parse(ok.content), ok.artifact)
  assert.equal(fs.readFileSync(path.join(ws, 'config.ts'), 'utf8'), 'export const retries = 3;\n')

  const stale = await patchFile.invoke(call('p2', 'patch_file', { file_path: 'config.ts', search_block: 'export const retries = 2;', replace_block: 'x' }))
  assert.deepEqual([stale.tool_call_id, stale.status], ['p2', 'error'])
  assert.equal(stale.artifact.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.equal(stale.content, failureText(stale.artifact))
  assert.match(stale.content, /<closest_match lines="1" similarity="\d+%" differences="content">\nexport const retries = 3;\n<\/closest_match>/)

  // Called with plain arguments, a tool answers the content itself.
  const read = await list.find((t) => t.name === 'read_file').invoke({ file_path: 'config.ts' })
  assert.equal(JSON.parse(read).content, 'export const retries = 3;\n')
  // LangChain validated against its copy: the package's schemas are untouched and still frozen.
  assert.ok(Object.isFrozen(schemas.patch_file.parameters))

  // Arguments that do not fit the listed schema are checked by the engine, not by LangChain's validator: an error
  // ToolMessage naming what is missing, never a ToolInputParsingException out of the loop; nothing is written.
  const missing = await patchFile.invoke(call('p3', 'patch_file', { search_block: 'retries = 3;', replace_block: 'retries = 4;' }))
  assert.deepEqual([missing.status, missing.artifact.code], ['error', 'INVALID_INPUT'])
  assert.match(missing.content, /file_path/)
  // A search_block without its replace_block fits the schema (edits[] is the other form) and is refused by the engine.
  const half = await patchFile.invoke(call('p4', 'patch_file', { file_path: 'config.ts', search_block: 'retries = 3;' }))
  assert.equal(half.status, 'error')
  assert.equal(half.artifact.code, 'INVALID_INPUT')
  assert.match(half.content, /replace_block/)
  assert.equal(fs.readFileSync(path.join(ws, 'config.ts'), 'utf8'), 'export const retries = 3;\n')
})

test(`${label}: ` + 'a dry run reaches the model without a run_id (no default tool applies one); the artifact keeps it for applyDryRun', async () => {
  const ws = tempDir('pft-langchain-')
  const file = path.join(ws, 'a.txt')
  fs.writeFileSync(file, 'one\n')
  const patchFile = createPatchFileTools({ workspaceRoot: ws }).find((t) => t.name === 'patch_file')
  const m = await patchFile.invoke(call('d', 'patch_file', { file_path: 'a.txt', search_block: 'one', replace_block: 'two', dry_run: true }))
  assert.equal(m.status, 'success')
  assert.match(m.artifact.run_id, /^dr_/)
  const { run_id: _runId, expires_in: _expiresIn, ...rest } = m.artifact
  assert.deepEqual(JSON.parse(m.content), rest, 'the model reads the preview without run_id and expires_in')
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\n')
  assert.equal((await applyDryRun({ run_id: m.artifact.run_id }, { workspaceRoot: ws })).ok, true)
  assert.equal(fs.readFileSync(file, 'utf8'), 'two\n')
})

test(`${label}: ` + "a LangChain tool's abort signal cancels the engine call waiting for a busy file: nothing is written", { skip: !haveFlock && 'flock(1) is not installed' }, async () => {
  const ws = tempDir('pft-langchain-')
  const file = path.join(ws, 'a.txt')
  fs.writeFileSync(file, 'one\n')
  // Another process holds the file's lock until its stdin closes: the call waits for it.
  const holder = spawn('flock', [file, 'sh', '-c', 'read x'], { stdio: ['pipe', 'ignore', 'inherit'] })
  const exited = new Promise((r) => holder.on('exit', r))
  try {
    for (let i = 0; spawnSync('flock', ['-n', file, 'true']).status === 0; i++) {
      assert.ok(i < 500, 'the lock holder took the lock')
      await new Promise((r) => setTimeout(r, 10))
    }
    const writeFile = createPatchFileTools({ workspaceRoot: ws, lockWaitMs: 60_000 }).find((t) => t.name === 'write_file')
    const controller = new AbortController()
    const pending = writeFile.invoke(call('w', 'write_file', { file_path: 'a.txt', content: 'two\n' }), { signal: controller.signal })
    await new Promise((r) => setTimeout(r, 100))
    controller.abort()
    if (openai) await assert.rejects(pending, /abort/i, 'LangChain 1 rejects the aborted invocation')
    else {
      // LangChain 0.3 waits for the tool, which answers the engine's CANCELLED.
      const m = await pending
      assert.deepEqual([m.status, m.artifact.code], ['error', 'CANCELLED'])
    }
  } finally {
    holder.stdin.end()
    await exited
  }
  // Once the file is free, a call the signal did not reach would write; this one was cancelled.
  await new Promise((r) => setTimeout(r, 300))
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\n')
})

test("createApplyPatchExecute: the call's abort signal cancels the engine call waiting for a busy file (the edit landed after the call was answered aborted)", { skip: !haveFlock && 'flock(1) is not installed' }, async () => {
  const ws = tempDir('pft-langchain-')
  const file = path.join(ws, 'a.txt')
  fs.writeFileSync(file, 'one\n')
  const holder = spawn('flock', [file, 'sh', '-c', 'read x'], { stdio: ['pipe', 'ignore', 'inherit'] })
  const exited = new Promise((r) => holder.on('exit', r))
  let answer
  try {
    for (let i = 0; spawnSync('flock', ['-n', file, 'true']).status === 0; i++) {
      assert.ok(i < 500, 'the lock holder took the lock')
      await new Promise((r) => setTimeout(r, 10))
    }
    const execute = createApplyPatchExecute({ workspaceRoot: ws, lockWaitMs: 60_000 })
    const controller = new AbortController()
    const pending = execute({ type: 'update_file', path: 'a.txt', diff: '@@\n-one\n+two\n' }, { signal: controller.signal })
    await new Promise((r) => setTimeout(r, 100))
    controller.abort()
    answer = await pending
  } finally {
    holder.stdin.end()
    await exited
  }
  assert.match(String(answer), /CANCELLED/)
  await new Promise((r) => setTimeout(r, 300))
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\n')
})

test('the model reads the compact view by default; the applyPatch execute answers text either way', async () => {
  const ws = tempDir('pft-langchain-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const patchFile = createPatchFileTools({ workspaceRoot: ws }).find((t) => t.name === 'patch_file')
  const m = await patchFile.invoke(call('c', 'patch_file', { file_path: 'a.txt', search_block: 'one', replace_block: 'two' }))
  const seen = JSON.parse(m.content)
  assert.equal(seen.file_path, 'a.txt')
  assert.ok(!('sha256_before' in seen) && !('after_bytes' in seen))
  const text = await createApplyPatchExecute({ workspaceRoot: ws })({ type: 'create_file', path: 'b.txt', diff: '+x\n' })
  assert.equal(text, 'Created b.txt.', 'the compact result has no sizes')
})

test(`${label}: ` + 'the tools accept what the engine accepts (aliases) and answer what it refuses (unknown, missing fields) with an error ToolMessage; the model still gets the listed schema', async () => {
  const ws = tempDir('pft-langchain-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const list = createPatchFileTools({ workspaceRoot: ws })
  const patchFile = list.find((t) => t.name === 'patch_file')
  const alias = await patchFile.invoke(call('a1', 'patch_file', { file_path: 'a.txt', old_string: 'one', new_string: 'two' }))
  assert.deepEqual([alias.status, alias.artifact.ok], ['success', true])
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'two\n')
  const unknown = await patchFile.invoke(call('a2', 'patch_file', { file_path: 'a.txt', search_block: 'two', replace_block: 'three', serach: 1 }))
  assert.deepEqual([unknown.status, unknown.artifact.code], ['error', 'INVALID_INPUT'])
  assert.match(unknown.content, /serach/)
  const notObject = await patchFile.invoke(call('a3', 'patch_file', 'a.txt'))
  assert.deepEqual([notObject.status, notObject.artifact.code], ['error', 'INVALID_INPUT'])
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'two\n')
  // Many calls at once: each tool's schema is the listed one before, between and after them.
  await Promise.all(
    Array.from({ length: 8 }, (_, i) => list.find((t) => t.name === 'read_file').invoke(call(`r${i}`, 'read_file', { filePath: 'a.txt', bogus: i % 2 ? 1 : undefined }))),
  )
  for (const t of list) assert.deepEqual(JSON.parse(JSON.stringify(t.schema)), listedByDefault(t.name, schemas[t.name].parameters))
  // What bindTools sends the model: the listed schemas (ChatOpenAI is @langchain/openai 1.x, on @langchain/core 1).
  if (openai) for (const sent of requestTools(list)) assert.deepEqual(sent.parameters, listedByDefault(sent.name, schemas[sent.name].parameters), sent.name)
})

test(`${label}: ` + '{ strict: true }: the strict schemas, sent with strict: true by bindTools(tools, { strict: true }); a call with nulls lands', async () => {
  const ws = tempDir('pft-langchain-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const list = createPatchFileTools({ workspaceRoot: ws }, { strict: true })
  const strictOf = (name) => listedByDefault(name, JSON.parse(fs.readFileSync(new URL(`../schemas/strict/${name}.json`, import.meta.url), 'utf8')).parameters)
  for (const t of list) assert.deepEqual(JSON.parse(JSON.stringify(t.schema)), strictOf(t.name), t.name)
  if (openai) {
    const chat = new ChatOpenAI({ model: 'gpt-5.1', useResponsesApi: true, apiKey: 'sk-test-no-network' })
    const sent = chat.responses.invocationParams(chat.bindTools(list, { strict: true }).defaultOptions).tools
    assert.deepEqual(sent.map((t) => t.name), [...DEFAULT_TOOLS])
    for (const t of sent) {
      assert.equal(t.strict, true, t.name)
      assert.deepEqual(t.parameters, strictOf(t.name), t.name)
    }
  }
  const patchFile = list.find((t) => t.name === 'patch_file')
  const nulls = { search_block: null, replace_block: null, expected_replacements: null, replace_all: null, expected_sha256: null, match: null, dry_run: null }
  const m = await patchFile.invoke(call('s1', 'patch_file', { file_path: 'a.txt', ...nulls, edits: [{ search_block: 'one', replace_block: 'two', expected_replacements: null, replace_all: null }] }))
  assert.equal(m.status, 'success', m.content)
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'two\n')
})
}
