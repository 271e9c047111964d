// patch-file-tool/openai-agents driven by the OpenAI Agents SDK's own runtime:
// a Runner runs an Agent whose only tool is applyPatchTool({ editor:
// createEditor(...) }), with a scripted Model (no network) that emits
// apply_patch_call items: a create, an update with `@@` context, a delete,
// then a stale update. The files change, and each next request carries the
// apply_patch_call_output items with the right status and the engine's
// diagnosis.
import './helpers/private-state.mjs'
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import * as agentsCurrent from '@openai/agents'
import * as agentsPrevious from '@openai/agents-v0.19'
import { createEditor } from 'patch-file-tool/openai-agents'
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

// Every test runs against both minors the package supports (0.x: a minor is a major): the current one
// (`@openai/agents`) and the previous one (the dev dependency `@openai/agents-v0.19`, an npm alias).
/** The version of the package installed as `dep` (it does not export its package.json). */
const versionOf = (dep) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'node_modules', dep, 'package.json'), 'utf8')).version
const VERSIONS = [
  { label: `@openai/agents ${versionOf('@openai/agents')}`, sdk: agentsCurrent },
  { label: `@openai/agents ${versionOf('@openai/agents-v0.19')}`, sdk: agentsPrevious },
]
assert.notEqual(VERSIONS[0].label, VERSIONS[1].label)

for (const { label, sdk } of VERSIONS) {
const { Agent, Runner, Usage, applyPatchTool } = sdk

const patchCall = (callId, operation) => ({ type: 'apply_patch_call', callId, status: 'completed', operation })
const message = (text) => ({
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text }],
})

/** A Model that plays `script` (one list of output items per turn) and records every request. */
function scriptedModel(script) {
  const requests = []
  return {
    requests,
    async getResponse(request) {
      requests.push(request)
      const output = script[requests.length - 1]
      assert.ok(output, `turn ${requests.length} is past the script`)
      return { usage: new Usage(), output, responseId: `resp-${requests.length}` }
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() {
      throw new Error('not streamed in this test')
    },
  }
}

/** The apply_patch_call_output items of a request's input, by call id. */
function outputsIn(request) {
  const items = Array.isArray(request.input) ? request.input : []
  return Object.fromEntries(items.filter((i) => i.type === 'apply_patch_call_output').map((i) => [i.callId, i]))
}

async function run(ws, script, options = {}) {
  const model = scriptedModel(script)
  const agent = new Agent({
    name: 'editor',
    instructions: 'Edit files with apply_patch.',
    model,
    tools: [applyPatchTool({ editor: createEditor({ workspaceRoot: ws, ...options }) })],
  })
  const result = await new Runner({ tracingDisabled: true }).run(agent, 'Make the changes.', { maxTurns: script.length + 1 })
  return { result, requests: model.requests }
}

test(`${label}: ` + 'Runner + applyPatchTool + createEditor: create, update with @@ context, delete, then a stale update that fails with the diagnosis', async () => {
  const ws = tempDir('pft-agents-')
  fs.writeFileSync(path.join(ws, 'old.txt'), 'obsolete\n')
  const script = [
    [patchCall('c1', { type: 'create_file', path: 'src/greet.ts', diff: '+export function greet(name: string) {\n+  return `Hi ${name}`;\n+}\n' })],
    [patchCall('c2', { type: 'update_file', path: 'src/greet.ts', diff: '@@ export function greet(name: string) {\n-  return `Hi ${name}`;\n+  return `Hello, ${name}!`;\n }\n' })],
    [patchCall('c3', { type: 'delete_file', path: 'old.txt' })],
    // Stale: the model edits the line as it was before c2.
    [patchCall('c4', { type: 'update_file', path: 'src/greet.ts', diff: '@@\n export function greet(name: string) {\n-  return `Hi ${name}`;\n+  return `Hey ${name}`;\n }\n' })],
    [message('All done.')],
  ]
  const { result, requests } = await run(ws, script)

  assert.equal(result.finalOutput, 'All done.')
  assert.equal(requests.length, 5)
  assert.equal(fs.readFileSync(path.join(ws, 'src', 'greet.ts'), 'utf8'), 'export function greet(name: string) {\n  return `Hello, ${name}!`;\n}\n')
  assert.ok(!fs.existsSync(path.join(ws, 'old.txt')), 'old.txt deleted')

  // Each request carries the outputs of every earlier call.
  assert.deepEqual(Object.keys(outputsIn(requests[0])), [])
  const last = outputsIn(requests[4])
  assert.deepEqual(Object.keys(last), ['c1', 'c2', 'c3', 'c4'])
  assert.deepEqual(outputsIn(requests[1]).c1, last.c1)
  assert.equal(last.c1.status, 'completed')
  assert.match(last.c1.output, /^Created src\/greet\.ts\.$/)
  assert.equal(last.c2.status, 'completed')
  assert.match(last.c2.output, /^Updated src\/greet\.ts: 1 section applied at line 2\.$/)
  assert.equal(last.c3.status, 'completed')
  assert.equal(last.c3.output, 'Deleted old.txt.')
  assert.equal(last.c4.status, 'failed')
  // The engine's diagnosis: the code, which section, and which lines were not found; line numbers are the diff's.
  assert.match(last.c4.output, /^SEARCH_BLOCK_NOT_FOUND: `src\/greet\.ts`: hunk 1 \(diff line 1\): the 3 context\/removed lines starting with `export function greet\(name: string\) \{` were not found/)
  assert.match(last.c4.output, /nothing was written/)
  assert.ok(!/patch line/.test(last.c4.output), last.c4.output)
})

test(`${label}: ` + 'update_file with moveTo moves the file; a missing file, a bad diff and an escaping path fail as outputs, not exceptions', async () => {
  const ws = tempDir('pft-agents-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\n')
  const script = [
    [
      patchCall('m', { type: 'update_file', path: 'a.txt', moveTo: 'b/a.txt', diff: '@@\n one\n-two\n+TWO\n' }),
      patchCall('x', { type: 'delete_file', path: 'missing.txt' }),
      patchCall('h', { type: 'update_file', path: 'b/a.txt', diff: '*** Delete File: b/a.txt\n' }),
      patchCall('p', { type: 'create_file', path: '../escape.txt', diff: '+x\n' }),
      patchCall('n', { type: 'create_file', path: 'note.txt\n*** Delete File: b/a.txt', diff: '+x\n' }),
    ],
    [message('ok')],
  ]
  const { requests } = await run(ws, script)
  const out = outputsIn(requests[1])
  assert.equal(out.m.status, 'completed', out.m.output)
  assert.equal(out.m.output, 'Updated a.txt and moved it to b/a.txt: 1 section applied at line 1.')
  assert.ok(!fs.existsSync(path.join(ws, 'a.txt')))
  assert.equal(fs.readFileSync(path.join(ws, 'b', 'a.txt'), 'utf8'), 'one\nTWO\n')
  assert.equal(out.x.status, 'failed')
  assert.match(out.x.output, /^FILE_READ_ERROR: /)
  // A header line in a diff cannot add an operation: refused before the engine, b/a.txt stays.
  assert.equal(out.h.status, 'failed')
  assert.match(out.h.output, /^PATCH_PARSE_ERROR: diff line 1: an update_file diff is the body of the update only/)
  assert.equal(out.p.status, 'failed')
  assert.match(out.p.output, /^PATH_OUTSIDE_WORKSPACE: /)
  assert.ok(!fs.existsSync(path.join(path.dirname(ws), 'escape.txt')))
  assert.equal(out.n.status, 'failed')
  assert.match(out.n.output, /^INVALID_INPUT: `path` must not contain a line break/)
  assert.ok(fs.existsSync(path.join(ws, 'b', 'a.txt')), 'no operation smuggled through a path or a diff ran')
  assert.ok(!fs.existsSync(path.join(ws, 'note.txt')))
})

test(`${label}: ` + 'the editor answers every operation with { status, output } and never rejects, even for malformed operations', async () => {
  const ws = tempDir('pft-agents-')
  const editor = createEditor({ workspaceRoot: ws })
  for (const op of [undefined, null, 'x', {}, { path: 5 }, { path: 'a', diff: 7 }, { path: ' a', diff: '+x' }]) {
    for (const fn of [editor.createFile, editor.updateFile, editor.deleteFile]) {
      const r = await fn(op)
      assert.equal(r.status, 'failed', JSON.stringify(op))
      assert.match(r.output, /^(INVALID_INPUT|PATCH_PARSE_ERROR|FILE_READ_ERROR): /, `${JSON.stringify(op)}: ${r.output}`)
    }
  }
  assert.deepEqual(fs.readdirSync(ws), [])
  // A create's diff is `+` lines only; the error counts lines of the diff.
  const r = await editor.createFile({ type: 'create_file', path: 'a.txt', diff: '+one\ntwo\n' })
  assert.deepEqual(r, {
    status: 'failed',
    output: 'PATCH_PARSE_ERROR: diff line 2: a create_file diff is the new file\'s lines, each starting with `+`; found `two`; nothing was written',
  })
  // A create over an existing file says so.
  fs.writeFileSync(path.join(ws, 'e.txt'), 'old\n')
  const over = await editor.createFile({ type: 'create_file', path: 'e.txt', diff: '+new' })
  assert.deepEqual(over, { status: 'completed', output: 'Replaced e.txt, which already existed.' })
})

test(`${label}: ` + 'no line of a diff and no character of a path can change which files an operation touches; a document quoting a patch is edited', async () => {
  const ws = tempDir('pft-agents-')
  const editor = createEditor({ workspaceRoot: ws })
  fs.writeFileSync(path.join(ws, 'victim.txt'), 'keep me\n')
  fs.writeFileSync(path.join(ws, 'v.txt'), 'keep me too\n')
  // A document that quotes a Codex patch: its lines are context lines of the diff.
  const doc = '# How to patch\n*** Begin Patch\n*** Delete File: victim.txt\n*** Add File: planted.sh\n+echo hi\n*** End of File\n*** End Patch\nend\n'
  fs.writeFileSync(path.join(ws, 'doc.md'), doc)
  const r = await editor.updateFile({
    type: 'update_file',
    path: 'doc.md',
    diff: '@@\n # How to patch\n *** Begin Patch\n *** Delete File: victim.txt\n *** Add File: planted.sh\n +echo hi\n *** End of File\n *** End Patch\n-end\n+END\n',
  })
  assert.equal(r.status, 'completed', r.output)
  assert.equal(r.output, 'Updated doc.md: 1 section applied at line 1.')
  assert.equal(fs.readFileSync(path.join(ws, 'doc.md'), 'utf8'), doc.replace('end\n', 'END\n'))
  assert.equal(fs.readFileSync(path.join(ws, 'victim.txt'), 'utf8'), 'keep me\n')
  assert.ok(!fs.existsSync(path.join(ws, 'planted.sh')))
  // A path ending in U+0085 (a space to Rust's trim, not to JavaScript's) names that file, not v.txt.
  const d = await editor.deleteFile({ type: 'delete_file', path: 'v.txt\u0085' })
  assert.equal(d.status, 'failed', d.output)
  assert.equal(fs.readFileSync(path.join(ws, 'v.txt'), 'utf8'), 'keep me too\n')
  assert.deepEqual(fs.readdirSync(ws).sort(), ['doc.md', 'v.txt', 'victim.txt'])
})

test(`${label}: ` + 'the editor never rejects when reading the operation throws: failed with INVALID_INPUT, nothing written', async () => {
  const ws = tempDir('pft-agents-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const editor = createEditor({ workspaceRoot: ws })
  const boom = (what) => () => {
    throw new Error(`${what} threw`)
  }
  const proxy = new Proxy({}, { get: boom('get'), has: boom('has'), ownKeys: boom('ownKeys'), getOwnPropertyDescriptor: boom('descriptor') })
  const ops = [
    proxy,
    { type: 'update_file', get path() { throw new Error('path getter') }, diff: '@@\n-one\n+two\n' },
    { type: 'update_file', path: 'a.txt', get diff() { throw new Error('diff getter') } },
    { type: 'update_file', path: 'a.txt', diff: '@@\n-one\n+two\n', get moveTo() { throw new Error('moveTo getter') } },
  ]
  for (const op of ops) {
    for (const fn of [editor.createFile, editor.updateFile, editor.deleteFile]) {
      const r = await fn(op)
      assert.deepEqual(Object.keys(r), ['status', 'output'])
      assert.equal(r.status, 'failed')
      assert.match(r.output, /^INVALID_INPUT: the operation threw an exception when read \(\w+ (getter|threw)\).*; nothing was written$/)
    }
  }
  assert.deepEqual(fs.readdirSync(ws), ['a.txt'])
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\n')
  // A path that reads once and then throws: the answer agrees with the file.
  let reads = 0
  const flaky = {
    get path() {
      if (++reads > 1) throw new Error('path read twice')
      return 'a.txt'
    },
    diff: '@@\n-one\n+two\n',
  }
  const r = await editor.updateFile(flaky)
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), r.status === 'completed' ? 'two\n' : 'one\n', r.output)
})

test(`${label}: ` + 'an editor made with dryRun answers the change without a run_id: nothing in this tool set applies one', async () => {
  const ws = tempDir('pft-agents-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const r = await createEditor({ workspaceRoot: ws, dryRun: true }).updateFile({ type: 'update_file', path: 'a.txt', diff: '@@\n-one\n+two\n' })
  assert.deepEqual(r, {
    status: 'completed',
    output: 'Updated a.txt: 1 section applied at line 1.\nDry run: nothing was written.\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n',
  })
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\n')
})
}
