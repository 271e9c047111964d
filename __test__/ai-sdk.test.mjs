// patch-file-tool/ai-sdk driven by the AI SDK's own runtime: generateText with
// a scripted MockLanguageModelV3 (no network) that calls patch_file with a
// real edit, then with a stale block, then answers. The file changes, each
// tool result reaches the model's next call, and the failure carries the
// engine's diagnosis (the closest match's current text). Every test runs
// against both majors the package supports: AI SDK 7 (`ai`, through the
// package's own subpath) and AI SDK 6 (the dev dependency `ai-v6`, an alias
// of ai@6, through the same tool builder).
import './helpers/private-state.mjs'
import { listedByDefault } from './helpers/listed.mjs'
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import * as ai7 from 'ai'
import * as ai7test from 'ai/test'
import * as ai6 from 'ai-v6'
import * as ai6test from 'ai-v6/test'
import { createPatchFileTools as createTools7 } from 'patch-file-tool/ai-sdk'
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
const { aiSdkTools } = require('../js/adapters/toolset.js')

const MAJORS = [
  { major: 7, ai: ai7, test: ai7test, createPatchFileTools: createTools7 },
  { major: 6, ai: ai6, test: ai6test, createPatchFileTools: (options, toolOptions) => aiSdkTools(ai6, options, toolOptions) },
]
assert.equal(Number(require('ai/package.json').version.split('.')[0]), 7)
assert.equal(Number(require('ai-v6/package.json').version.split('.')[0]), 6)

for (const { major, ai, test: aiTest, createPatchFileTools } of MAJORS) {
const { generateText, stepCountIs } = ai
const { MockLanguageModelV3 } = aiTest

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
const toolCall = (id, toolName, input) => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
})
const answer = (text) => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] })

/** A model that plays `script` in order and records every call it receives. */
function scriptedModel(script) {
  const calls = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      calls.push(options)
      const next = script[calls.length - 1]
      assert.ok(next, `the model was called ${calls.length} times; the script has ${script.length} steps`)
      return next
    },
  })
  return { model, calls }
}

/** The tool results the model received in a call's prompt, by tool call id. */
function toolResultsIn(prompt) {
  const out = {}
  for (const m of prompt) if (m.role === 'tool') for (const p of m.content) if (p.type === 'tool-result') out[p.toolCallId] = p
  return out
}

test(`AI SDK ${major}: ` + 'generateText with a scripted model: a real edit lands, a stale block fails with the closest match, both results reach the model', async () => {
  const ws = tempDir('pft-ai-sdk-')
  const file = path.join(ws, 'config.ts')
  fs.writeFileSync(file, 'export const retries = 2;\nexport const timeoutMs = 500;\n')
  const { model, calls } = scriptedModel([
    toolCall('call-1', 'patch_file', { file_path: 'config.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' }),
    // Stale: the model still believes retries is 2.
    toolCall('call-2', 'patch_file', { file_path: 'config.ts', search_block: 'export const retries = 2;', replace_block: 'export const retries = 4;' }),
    answer('Done: retries is 3.'),
  ])

  const result = await generateText({
    model,
    tools: createPatchFileTools({ workspaceRoot: ws }),
    stopWhen: stepCountIs(5),
    prompt: 'Set retries to 3.',
  })

  assert.equal(fs.readFileSync(file, 'utf8'), 'export const retries = 3;\nexport const timeoutMs = 500;\n', 'the first edit landed; the stale one wrote nothing')
  assert.equal(result.text, 'Done: retries is 3.')
  assert.equal(calls.length, 3)

  // The model saw the default tool set, with the package's own descriptions and input schemas.
  const listed = calls[0].tools
  assert.deepEqual(listed.map((t) => t.name), [...DEFAULT_TOOLS])
  for (const t of listed) {
    assert.equal(t.type, 'function')
    assert.equal(t.description, schemas[t.name].description)
    assert.deepEqual(t.inputSchema, listedByDefault(t.name, schemas[t.name].parameters))
  }

  // execute's value is the engine's result object, as the application sees it: in the compact view, what the model reads.
  const [first, second] = result.steps.map((s) => s.toolResults[0])
  assert.equal(first.toolName, 'patch_file')
  assert.equal(first.output.ok, true)
  assert.equal(first.output.file_path, 'config.ts')
  for (const f of ['sha256_before', 'before_bytes', 'after_bytes', 'replacements']) assert.ok(!(f in first.output), f)
  assert.equal(first.output.line_number, 1)
  assert.equal(second.output.ok, false)
  assert.equal(second.output.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.equal(second.output.closest_match.text, 'export const retries = 3;')

  // The second call carries the success as JSON; the third carries the failure as error text with the diagnosis.
  const seen2 = toolResultsIn(calls[1].prompt)
  assert.deepEqual(Object.keys(seen2), ['call-1'])
  assert.equal(seen2['call-1'].output.type, 'json')
  assert.deepEqual(seen2['call-1'].output.value, first.output)
  const seen3 = toolResultsIn(calls[2].prompt)
  assert.deepEqual(Object.keys(seen3).sort(), ['call-1', 'call-2'])
  const failure = seen3['call-2'].output
  assert.equal(failure.type, 'error-text')
  assert.equal(failure.value, failureText(second.output))
  assert.match(failure.value, /^SEARCH_BLOCK_NOT_FOUND: /)
  assert.match(failure.value, /<closest_match lines="1" similarity="\d+%" differences="content">\nexport const retries = 3;\n<\/closest_match>/)
})

test(`AI SDK ${major}: ` + 'a Codex patch whose hunk no longer applies reaches the model with the exact current text of its region', async () => {
  const ws = tempDir('pft-ai-sdk-')
  const file = path.join(ws, 'a.py')
  fs.writeFileSync(file, 'def f():\n    return 1\n\nprint(f())\n')
  const patch = '*** Begin Patch\n*** Update File: a.py\n@@\n def f():\n-    return 0\n+    return 2\n*** End Patch\n'
  const { model, calls } = scriptedModel([toolCall('call-1', 'apply_patch', { patch }), answer('Rereading.')])
  const result = await generateText({ model, tools: createPatchFileTools({ workspaceRoot: ws }), stopWhen: stepCountIs(3), prompt: 'Make f return 2.' })
  assert.equal(fs.readFileSync(file, 'utf8'), 'def f():\n    return 1\n\nprint(f())\n', 'nothing written')
  const out = result.steps[0].toolResults[0].output
  assert.equal(out.ok, false)
  assert.equal(out.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.equal(out.closest_match.text, 'def f():\n    return 1\n')
  const seen = toolResultsIn(calls[1].prompt)['call-1'].output
  assert.equal(seen.type, 'error-text')
  assert.match(seen.value, /<closest_match[^>]*lines="1-2"[^>]*>\ndef f\(\):\n    return 1\n\n?<\/closest_match>/)
})

test(`AI SDK ${major}: ` + 'every default tool runs through generateText, sandboxed to workspaceRoot, and bad input is a result, not an exception', async () => {
  const ws = tempDir('pft-ai-sdk-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'alpha\n')
  const { model, calls } = scriptedModel([
    {
      ...answer(''),
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      content: [
        { type: 'tool-call', toolCallId: 'r', toolName: 'read_file', input: JSON.stringify({ file_path: 'a.txt' }) },
        { type: 'tool-call', toolCallId: 'w', toolName: 'write_file', input: JSON.stringify({ file_path: 'b.txt', content: 'beta\n' }) },
        { type: 'tool-call', toolCallId: 'x', toolName: 'write_file', input: JSON.stringify({ file_path: '../outside.txt', content: 'x' }) },
        { type: 'tool-call', toolCallId: 'i', toolName: 'patch_file', input: JSON.stringify({ file_path: 'a.txt' }) },
      ],
    },
    // Calls of one step run concurrently: the patch gets a step of its own, so that undo takes it back.
    toolCall('p', 'apply_patch', { patch: '*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n*** End Patch\n' }),
    toolCall('u', 'undo', {}),
    answer('ok'),
  ])
  const result = await generateText({ model, tools: createPatchFileTools({ workspaceRoot: ws }), stopWhen: stepCountIs(5), prompt: 'go' })
  const byId = Object.fromEntries(result.steps.flatMap((s) => s.toolResults).map((r) => [r.toolCallId, r.output]))
  assert.equal(byId.r.content, 'alpha\n')
  assert.equal(byId.w.ok, true)
  assert.equal(byId.p.ok, true)
  assert.equal(byId.x.code, 'PATH_OUTSIDE_WORKSPACE')
  assert.equal(byId.i.code, 'INVALID_INPUT')
  assert.equal(byId.u.ok, true, JSON.stringify(byId.u))
  assert.ok(!fs.existsSync(path.join(path.dirname(ws), 'outside.txt')), 'nothing written outside the workspace')
  // undo took back the last transaction (the patch), so a.txt is as it was.
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'alpha\n')
  assert.equal(fs.readFileSync(path.join(ws, 'b.txt'), 'utf8'), 'beta\n')
  // No tool error parts: every failure was a result the model read.
  assert.ok(result.steps.every((s) => s.content.every((p) => p.type !== 'tool-error')))
  assert.equal(calls.length, 4)
  const seen = toolResultsIn(calls[1].prompt)
  assert.equal(seen.x.output.type, 'error-text')
  assert.match(seen.x.output.value, /^PATH_OUTSIDE_WORKSPACE: /)
})

test(`AI SDK ${major}: ` + "the AI SDK's abort signal cancels the engine call: CANCELLED, nothing written", async () => {
  const ws = tempDir('pft-ai-sdk-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const tools = createPatchFileTools({ workspaceRoot: ws })
  const controller = new AbortController()
  controller.abort()
  const r = await tools.patch_file.execute(
    { file_path: 'a.txt', search_block: 'one', replace_block: 'two' },
    { toolCallId: 't', messages: [], abortSignal: controller.signal },
  )
  assert.equal(r.code, 'CANCELLED')
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\n')
})

test(`AI SDK ${major}: ` + 'execute and toModelOutput never throw when reading what code hands them throws: INVALID_INPUT, nothing written', async () => {
  const ws = tempDir('pft-ai-sdk-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const set = createPatchFileTools({ workspaceRoot: ws })
  const boom = (what) => () => {
    throw new Error(`${what} threw`)
  }
  const proxy = new Proxy({}, { get: boom('get'), has: boom('has'), ownKeys: boom('ownKeys'), getOwnPropertyDescriptor: boom('descriptor') })
  const edit = { file_path: 'a.txt', search_block: 'one', replace_block: 'two' }
  for (const callOptions of [proxy, { get abortSignal() { throw new Error('abortSignal getter') } }]) {
    let r
    assert.doesNotThrow(() => (r = set.patch_file.execute(edit, callOptions)))
    r = await r
    assert.deepEqual(Object.keys(r), ['ok', 'code', 'message'], JSON.stringify(r))
    assert.deepEqual([r.ok, r.code], [false, 'INVALID_INPUT'])
    assert.match(r.message, /^the call options threw an exception when read \(\w+ (getter|threw)\)/)
  }
  // The tool input itself is the engine's to refuse, and so are the options, joined to the SDK's abort signal.
  const own = await set.patch_file.execute(proxy, {})
  assert.deepEqual([own.ok, own.code], [false, 'INVALID_INPUT'])
  const hostileOptions = await createPatchFileTools(proxy).patch_file.execute(edit, { abortSignal: new AbortController().signal })
  assert.deepEqual([hostileOptions.ok, hostileOptions.code], [false, 'INVALID_INPUT'], JSON.stringify(hostileOptions))
  assert.match(hostileOptions.message, /^options is a value that threw an exception when read/)
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\n')
  for (const [label, part] of [['undefined', undefined], ['a Proxy', proxy], ['a throwing getter', { get output() { throw new Error('output getter') } }]]) {
    let out
    assert.doesNotThrow(() => (out = set.patch_file.toModelOutput(part)), label)
    assert.equal(out.type, 'error-text')
    assert.match(out.value, /^INVALID_INPUT: the tool output (is missing|threw an exception when read)/)
  }
})

test(`AI SDK ${major}: ` + 'a dry run reaches the model without a run_id (no default tool applies one); the application keeps it for applyDryRun', async () => {
  const ws = tempDir('pft-ai-sdk-')
  const file = path.join(ws, 'a.txt')
  fs.writeFileSync(file, 'one\n')
  const { model, calls } = scriptedModel([
    toolCall('d', 'patch_file', { file_path: 'a.txt', search_block: 'one', replace_block: 'two', dry_run: true }),
    answer('previewed'),
  ])
  const result = await generateText({ model, tools: createPatchFileTools({ workspaceRoot: ws }), stopWhen: stepCountIs(3), prompt: 'preview' })
  const output = result.steps[0].toolResults[0].output
  assert.equal(output.dry_run, true)
  assert.match(output.run_id, /^dr_/)
  const seen = toolResultsIn(calls[1].prompt).d.output
  assert.equal(seen.type, 'json')
  const { run_id: _runId, expires_in: _expiresIn, ...rest } = output
  assert.deepEqual(seen.value, rest, 'the model reads the preview without run_id and expires_in')
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\n')
  assert.equal((await applyDryRun({ run_id: output.run_id }, { workspaceRoot: ws })).ok, true)
  assert.equal(fs.readFileSync(file, 'utf8'), 'two\n')
})

test(`AI SDK ${major}: ` + '{ strict: true }: the model gets the strict schemas with strict: true, and a call with null for what it leaves out lands', async () => {
  const ws = tempDir('pft-ai-sdk-')
  const file = path.join(ws, 'a.txt')
  fs.writeFileSync(file, 'one\ntwo\n')
  const nulls = { search_block: null, replace_block: null, expected_replacements: null, replace_all: null, expected_sha256: null, match: null, dry_run: null }
  const { model, calls } = scriptedModel([
    toolCall('s1', 'patch_file', { file_path: 'a.txt', ...nulls, edits: [{ search_block: 'one', replace_block: '1', expected_replacements: null, replace_all: null }] }),
    toolCall('s2', 'read_file', { file_path: 'a.txt', offset: null, limit: null }),
    answer('done'),
  ])
  const result = await generateText({ model, tools: createPatchFileTools({ workspaceRoot: ws }, { strict: true }), stopWhen: stepCountIs(4), prompt: 'go' })
  for (const t of calls[0].tools) {
    assert.equal(t.strict, true, t.name)
    assert.deepEqual(t.inputSchema, listedByDefault(t.name, JSON.parse(fs.readFileSync(new URL(`../schemas/strict/${t.name}.json`, import.meta.url), 'utf8')).parameters))
  }
  const [edit, read] = result.steps.slice(0, 2).map((s) => s.toolResults[0].output)
  assert.equal(edit.ok, true, JSON.stringify(edit))
  assert.equal(read.content, '1\ntwo\n')
  assert.equal(fs.readFileSync(file, 'utf8'), '1\ntwo\n')
  // Without the option: no strict flag, the listed schemas.
  const plain = createPatchFileTools({ workspaceRoot: ws })
  assert.equal(plain.patch_file.strict, undefined)
})

}

test('the model reads the compact view by default (path relative, no sha256_before, no sizes); a caller asking for full gets full', async () => {
  const ws = tempDir('pft-ai-sdk-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const set = createTools7({ workspaceRoot: ws })
  const out = await set.patch_file.execute({ file_path: 'a.txt', search_block: 'one', replace_block: 'two' }, {})
  const seen = set.patch_file.toModelOutput({ output: out }).value
  assert.equal(seen.file_path, 'a.txt')
  for (const f of ['sha256_before', 'before_bytes', 'after_bytes', 'before_chars', 'after_chars', 'write_strategy']) assert.ok(!(f in seen), f)
  const full = createTools7({ workspaceRoot: ws, results: 'full' })
  const r = await full.patch_file.execute({ file_path: 'a.txt', search_block: 'two', replace_block: 'three' }, {})
  assert.equal(r.file_path, path.join(fs.realpathSync(ws), 'a.txt'))
  assert.equal(typeof r.sha256_before, 'string')
})
