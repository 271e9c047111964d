// patch-file-tool/anthropic driven by the Anthropic SDK's own client: an agent
// loop over client.messages.create whose HTTP answers come from a scripted
// fetch (no network). The scripted model sends text editor tool_use blocks
// (view with view_range, create, str_replace that lands and one that is not
// found, insert); the loop answers each with editor.toolResult(block), and
// the next request carries those tool_result blocks: the files change, the
// view shows numbered lines, a failure is is_error with the diagnosis.
import './helpers/private-state.mjs'
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import AnthropicCurrent from '@anthropic-ai/sdk'
import AnthropicPrevious from '@anthropic-ai/sdk-v0'
import { createTextEditor } from 'patch-file-tool/anthropic'
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

// Every test runs against both majors the package supports: the current one (`@anthropic-ai/sdk`) and the
// previous one (the dev dependency `@anthropic-ai/sdk-v0`, an npm alias of the last 0.x).
/** The version of the package installed as `dep`. */
const versionOf = (dep) => JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'node_modules', dep, 'package.json'), 'utf8')).version
const VERSIONS = [
  { label: `@anthropic-ai/sdk ${versionOf('@anthropic-ai/sdk')}`, Anthropic: AnthropicCurrent },
  { label: `@anthropic-ai/sdk ${versionOf('@anthropic-ai/sdk-v0')}`, Anthropic: AnthropicPrevious },
]
assert.ok(versionOf('@anthropic-ai/sdk').startsWith('1.') && versionOf('@anthropic-ai/sdk-v0').startsWith('0.'))

for (const { label, Anthropic } of VERSIONS) {

const toolUse = (id, input) => ({ type: 'tool_use', id, name: 'str_replace_based_edit_tool', input })

/** An Anthropic client whose requests are answered by `script` (content blocks per turn); records request bodies. */
function scriptedClient(script) {
  const bodies = []
  const fetch = async (url, init) => {
    assert.match(String(url), /\/v1\/messages$/)
    bodies.push(JSON.parse(init.body))
    const content = script[bodies.length - 1]
    assert.ok(content, `request ${bodies.length} is past the script`)
    const message = {
      id: `msg_${bodies.length}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-scripted',
      content,
      stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    }
    return new Response(JSON.stringify(message), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { client: new Anthropic({ apiKey: 'test-key', fetch, maxRetries: 0 }), bodies }
}

/** The agent loop a user writes: create, answer every tool_use with toolResult, until the model stops. */
async function agentLoop(client, editor, prompt) {
  const messages = [{ role: 'user', content: prompt }]
  for (let turn = 0; turn < 10; turn++) {
    const reply = await client.messages.create({ model: 'claude-scripted', max_tokens: 1024, tools: [editor.tool], messages })
    messages.push({ role: 'assistant', content: reply.content })
    const uses = reply.content.filter((b) => b.type === 'tool_use')
    if (uses.length === 0) return reply
    messages.push({ role: 'user', content: await Promise.all(uses.map((b) => editor.toolResult(b))) })
  }
  throw new Error('the loop did not end')
}

/** The tool_result blocks of the last user message of a request body, by tool_use_id. */
function resultsIn(body) {
  const last = body.messages[body.messages.length - 1]
  return Object.fromEntries(last.content.filter((b) => b.type === 'tool_result').map((b) => [b.tool_use_id, b]))
}

test(`${label}: ` + 'an agent loop over client.messages.create: view, create, str_replace (lands, then not found), insert — each tool_result reaches the model', async () => {
  const ws = tempDir('pft-anthropic-')
  const primes = path.join(ws, 'primes.py')
  fs.writeFileSync(primes, 'def is_prime(n):\n    if n < 2:\n        return False\n    for i in range(2, n)\n        if n % i == 0:\n            return False\n    return True\n')
  const { client, bodies } = scriptedClient([
    [{ type: 'text', text: 'Let me look.' }, toolUse('v', { command: 'view', path: 'primes.py', view_range: [3, 5] })],
    [toolUse('s', { command: 'str_replace', path: 'primes.py', old_str: '    for i in range(2, n)\n', new_str: '    for i in range(2, n):\n' })],
    [
      // Stale: the colon is already there; and a new file.
      toolUse('s2', { command: 'str_replace', path: 'primes.py', old_str: 'for i in range(2, n)\n        if', new_str: 'x' }),
      toolUse('c', { command: 'create', path: 'test_primes.py', file_text: 'from primes import is_prime\n' }),
    ],
    [toolUse('i', { command: 'insert', path: 'primes.py', insert_line: 0, insert_text: '"""Primes."""\n' })],
    [{ type: 'text', text: 'Fixed.' }],
  ])
  const editor = createTextEditor({ workspaceRoot: ws, maxCharacters: 10_000 })
  const reply = await agentLoop(client, editor, 'Fix the syntax error in primes.py')

  assert.deepEqual(reply.content, [{ type: 'text', text: 'Fixed.' }])
  assert.equal(bodies.length, 5)
  assert.deepEqual(bodies[0].tools, [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 10_000 }])

  assert.deepEqual(resultsIn(bodies[1]).v, {
    type: 'tool_result',
    tool_use_id: 'v',
    content: '3:         return False\n4:     for i in range(2, n)\n5:         if n % i == 0:',
  })
  const edited = resultsIn(bodies[2]).s
  assert.equal(edited.is_error, undefined)
  assert.match(edited.content, /^Edited primes\.py at line 4\.\nThe lines around it now:\n(.*\n)*4:     for i in range\(2, n\):\n/)
  const stale = resultsIn(bodies[3]).s2
  assert.equal(stale.is_error, true)
  assert.match(stale.content, /^SEARCH_BLOCK_NOT_FOUND: `primes\.py`: old_str was not found; /)
  // The closest region's current text, with the colon the model did not know about.
  assert.match(stale.content, /<closest_match [^>]*lines="4(-5)?"[^>]*>\n {4}for i in range\(2, n\):\n/)
  assert.equal(resultsIn(bodies[3]).c.content, 'Created test_primes.py.')
  assert.match(resultsIn(bodies[4]).i.content, /^Inserted the text into primes\.py at line 1\.\n/)

  assert.equal(
    fs.readFileSync(primes, 'utf8'),
    '"""Primes."""\ndef is_prime(n):\n    if n < 2:\n        return False\n    for i in range(2, n):\n        if n % i == 0:\n            return False\n    return True\n',
  )
  assert.equal(fs.readFileSync(path.join(ws, 'test_primes.py'), 'utf8'), 'from primes import is_prime\n')
})

test(`${label}: ` + 'toolResult: a failure is is_error with the code, never a rejection; create refuses an existing file; insert takes new_str too; max_characters truncates a view', async () => {
  const ws = tempDir('pft-anthropic-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\nthree\n')
  const editor = createTextEditor({ workspaceRoot: ws, maxCharacters: 12 })
  const r = (id, input) => editor.toolResult(toolUse(id, input))

  const exists = await r('1', { command: 'create', path: 'a.txt', file_text: 'x' })
  assert.equal(exists.is_error, true)
  assert.match(exists.content, /^INVALID_INPUT: `a\.txt` already exists/)
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n')

  const inserted = await r('2', { command: 'insert', path: 'a.txt', insert_line: 3, new_str: 'four' })
  assert.equal(inserted.is_error, undefined, inserted.content)
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\ntwo\nthree\nfour\n')

  const view = await r('3', { command: 'view', path: 'a.txt' })
  assert.match(view.content, /^1: one\n.*\[truncated to max_characters; the file has 4 lines/s)
  assert.equal((await editor.run({ command: 'view', path: 'a.txt' })).truncated, true, 'options.maxCharacters reaches the engine')
  // A cut inside the next line's number (`     2`, before its tab) left that fragment as a line of the file.
  fs.writeFileSync(path.join(ws, 'b.txt'), 'line number 1\nline number 2\nline number 3\n')
  const cut = await createTextEditor({ workspaceRoot: ws, maxCharacters: 27 }).toolResult(toolUse('5', { command: 'view', path: 'b.txt' }))
  assert.equal(cut.content.split('\n').slice(0, 2).join('\n'), '1: line number 1\n[truncated to max_characters; the file has 3 lines: view a narrower view_range to see the rest]', cut.content)

  const outside = await r('4', { command: 'view', path: '../' })
  assert.equal(outside.is_error, true)
  assert.match(outside.content, /^PATH_OUTSIDE_WORKSPACE: /)

  for (const block of [undefined, null, { id: 'x', name: 'other_tool', input: {} }, toolUse('y', 'view a.txt'), toolUse('z', { command: 'delete', path: 'a.txt' })]) {
    const res = await editor.toolResult(block)
    assert.equal(res.type, 'tool_result')
    assert.equal(res.is_error, true, JSON.stringify(block))
    assert.match(res.content, /^INVALID_INPUT: /)
  }
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\ntwo\nthree\nfour\n')

  assert.deepEqual(createTextEditor({ workspaceRoot: ws }).tool, { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' })
  assert.throws(() => createTextEditor({ maxCharacters: 0 }), TypeError)
})

test(`${label}: ` + 'run and toolResult never throw when reading what code hands them throws: INVALID_INPUT, shaped as every failure, nothing written', async () => {
  const ws = tempDir('pft-anthropic-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const boom = (what) => () => {
    throw new Error(`${what} threw`)
  }
  // Reading these throws: a getter, a Proxy whose every trap throws (misuse from code; a model's input is JSON).
  const proxy = new Proxy({}, { get: boom('get'), has: boom('has'), ownKeys: boom('ownKeys'), getOwnPropertyDescriptor: boom('descriptor') })
  const inputs = [
    { get command() { throw new Error('command getter') }, path: 'a.txt' },
    { command: 'view', path: 'a.txt', get max_characters() { throw new Error('max_characters getter') } },
    proxy,
  ]
  for (const editor of [createTextEditor({ workspaceRoot: ws }), createTextEditor({ workspaceRoot: ws, maxCharacters: 50 })]) {
    for (const input of inputs) {
      const r = await editor.run(input)
      assert.deepEqual(Object.keys(r), ['ok', 'code', 'message'], JSON.stringify(r))
      assert.deepEqual([r.ok, r.code], [false, 'INVALID_INPUT'])
      assert.match(r.message, /threw an exception when read/)
      const res = await editor.toolResult(toolUse('t1', input))
      assert.deepEqual(Object.keys(res), ['type', 'tool_use_id', 'content', 'is_error'])
      assert.deepEqual([res.type, res.tool_use_id, res.is_error], ['tool_result', 't1', true])
      assert.match(res.content, /^INVALID_INPUT: .*threw an exception when read/)
    }
    // The tool_use block itself: its id, name or input cannot be read, or it is a Proxy.
    const blocks = [
      { type: 'tool_use', get id() { throw new Error('id getter') }, name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'a.txt' } },
      { type: 'tool_use', id: 'b', get name() { throw new Error('name getter') }, input: { command: 'view', path: 'a.txt' } },
      { type: 'tool_use', id: 'c', name: 'str_replace_based_edit_tool', get input() { throw new Error('input getter') } },
      proxy,
    ]
    for (const block of blocks) {
      const res = await editor.toolResult(block)
      assert.equal(res.type, 'tool_result')
      assert.equal(res.is_error, true)
      assert.match(res.content, /^INVALID_INPUT: the tool_use block threw an exception when read \(\w+ (getter|threw)\)/)
    }
    // A path that reads once and then throws: the answer, whatever it is, agrees with the files.
    let reads = 0
    const flaky = {
      command: 'create',
      get path() {
        if (++reads > 1) throw new Error('path read twice')
        return 'new.txt'
      },
      file_text: 'new\n',
    }
    const res = await editor.toolResult(toolUse('f', flaky))
    assert.equal(res.type, 'tool_result')
    assert.equal(fs.existsSync(path.join(ws, 'new.txt')), res.is_error !== true, res.content)
    fs.rmSync(path.join(ws, 'new.txt'), { force: true })
  }
  assert.deepEqual(fs.readdirSync(ws), ['a.txt'])
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\n')
})

test(`${label}: ` + 'a dry run answers the change without a run_id: nothing in this tool set applies one', async () => {
  const ws = tempDir('pft-anthropic-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const editor = createTextEditor({ workspaceRoot: ws })
  const input = { command: 'str_replace', path: 'a.txt', old_str: 'one', new_str: 'two', dry_run: true }
  assert.match((await editor.run(input)).run_id, /^dr_/, 'the result object keeps it for applyDryRun')
  const res = await editor.toolResult(toolUse('d', input))
  assert.equal(res.is_error, undefined, res.content)
  assert.equal(res.content, 'Dry run: nothing was written. The change would be:\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n')
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'one\n')
})

test('run resolves to the compact view by default (paths relative, no sizes or sha256_before); results: full gives the full result', async () => {
  const ws = tempDir('pft-anthropic-')
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n')
  const r = await createTextEditor({ workspaceRoot: ws }).run({ command: 'str_replace', path: 'a.txt', old_str: 'one', new_str: 'two' })
  assert.equal(r.ok, true)
  assert.equal(r.file_path, 'a.txt')
  assert.ok(!('sha256_before' in r) && !('after_bytes' in r))
  const full = await createTextEditor({ workspaceRoot: ws, results: 'full' }).run({ command: 'str_replace', path: 'a.txt', old_str: 'two', new_str: 'three' })
  assert.equal(full.file_path, path.join(fs.realpathSync(ws), 'a.txt'))
})
}
