// JSON-RPC batches on the MCP stdio server. Protocol 2025-03-26 requires a
// server to accept them: a JSON array of requests and notifications on one
// line is answered with one JSON array holding a response per request, by
// its id (JSON-RPC 2.0 section 6). 2025-06-18 removed batching, and the
// versions before 2025-03-26 never had it: there a batch is refused with one
// -32600. Driven over raw stdin/stdout lines through the real bin.
import './helpers/private-state.mjs'
import { test, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { tempDir, cleanEnv, delayedEnv, rawServer, killAll } from './helpers/mcp-raw.mjs'
import { checkAnswer } from './helpers/mcp-results.mjs'

afterEach(killAll)

const T = { timeout: 60_000 }

/** Starts a server and initializes it with `protocolVersion`; resolves to the raw server. */
async function started(protocolVersion, { args = [], env = cleanEnv(), dir = tempDir() } = {}) {
  const s = rawServer({ args: ['--root', dir, ...args], env })
  s.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'batch-test', version: '0' } } })
  assert.equal((await s.response(0)).result.protocolVersion, protocolVersion)
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  return s
}

const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })

/** The first stdout message that is a JSON array (a batch answer). */
async function batchAnswer(s, what = 'batch answer') {
  return s.waitFor((m) => Array.isArray(m), what)
}

/** The engine's result in the batch entry answering `id`, checked like every tools/call answer. */
function entryResult(answer, id, tool) {
  const entry = answer.find((e) => e.id === id)
  assert.ok(entry, `no entry for id ${JSON.stringify(id)} in ${JSON.stringify(answer).slice(0, 500)}`)
  assert.ok(entry.result, `entry ${JSON.stringify(id)} has no result: ${JSON.stringify(entry).slice(0, 500)}`)
  return checkAnswer(tool, entry.result, false)
}

async function stop(s) {
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.deepEqual(s.nonJson, [])
}

test('2025-03-26: a batch is answered with one JSON array, each request by its id, notifications without an entry', T, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'r.txt'), 'one\ntwo\n')
  const s = await started('2025-03-26', { dir })
  const before = s.lines.length
  s.send([
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    call('read', 'read_file', { file_path: 'r.txt' }),
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nothing-in-flight' } },
    call(3, 'write_file', { file_path: 'new.txt', content: 'made in a batch\n' }),
    { jsonrpc: '2.0', id: 4, method: 'no/such/method' },
  ])
  const answer = await batchAnswer(s)
  assert.equal(s.lines.length, before + 1, 'one line answers the whole batch')
  assert.deepEqual(answer.map((e) => e.id), [1, 'read', 3, 4], 'one entry per request, in the batch order; none for the notification')
  for (const e of answer) assert.equal(e.jsonrpc, '2.0')
  assert.deepEqual(answer[0].result, {})
  assert.equal(entryResult(answer, 'read', 'read_file').content, 'one\ntwo\n')
  assert.equal(entryResult(answer, 3, 'write_file').ok, true)
  assert.equal(fs.readFileSync(path.join(dir, 'new.txt'), 'utf8'), 'made in a batch\n')
  assert.equal(answer[3].error.code, -32601)
  // Single messages keep working, on their own lines.
  s.send({ jsonrpc: '2.0', id: 5, method: 'ping' })
  assert.deepEqual((await s.response(5)).result, {})
  await stop(s)
})

test('2025-03-26: invalid members get their own error entries; the valid ones run', T, async () => {
  const s = await started('2025-03-26')
  // As in the JSON-RPC 2.0 examples: a member that is not a message is answered -32600 with id null.
  s.send('[1,{"jsonrpc":"2.0","id":"p","method":"ping"},{"foo":"boo"},{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":7}}]')
  const answer = await batchAnswer(s)
  assert.equal(answer.length, 4, JSON.stringify(answer))
  assert.deepEqual(answer[0], { jsonrpc: '2.0', id: null, error: answer[0].error })
  assert.equal(answer[0].error.code, -32600)
  assert.match(answer[0].error.message, /must be a JSON object, not the number 1/)
  assert.deepEqual(answer[1], { jsonrpc: '2.0', id: 'p', result: {} })
  assert.equal(answer[2].id, null)
  assert.equal(answer[2].error.code, -32600)
  assert.equal(answer[3].id, 7)
  assert.equal(answer[3].error.code, -32602)
  await stop(s)
})

test('2025-03-26: ids are echoed exactly inside a batch, integers past 2^53 included', T, async () => {
  const s = await started('2025-03-26')
  const big = '9007199254740993'
  s.send(`[{"jsonrpc":"2.0","id":${big},"method":"ping"},{"method":"ping","jsonrpc":"2.0","id":1e3},{"jsonrpc":"2.0","id":"${big}","method":"ping"}]`)
  const line = await s.waitForLine((l) => l.startsWith('['), 'batch answer')
  const ids = [...line.matchAll(/"id":(-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*")/g)].map((m) => m[1])
  assert.deepEqual(ids, [big, '1e3', `"${big}"`], line)
  assert.deepEqual(JSON.parse(line).map((e) => e.result), [{}, {}, {}])
  await stop(s)
})

test('2025-03-26: an empty batch is one invalid request; a batch of notifications gets no answer', T, async () => {
  const s = await started('2025-03-26')
  s.send('[]')
  const empty = await s.waitFor((m) => !Array.isArray(m) && m.id === null, 'empty batch error')
  assert.equal(empty.error.code, -32600)
  assert.match(empty.error.message, /empty batch/)
  const before = s.lines.length
  s.send([{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }])
  s.send({ jsonrpc: '2.0', id: 'after', method: 'ping' })
  await s.response('after')
  assert.equal(s.lines.length, before + 1, `only the ping is answered: ${s.lines.slice(before).join('\n')}`)
  await stop(s)
})

test('2025-03-26: a batch over the size limits is refused, none of it run', T, async () => {
  const dir = tempDir()
  const s = await started('2025-03-26', { dir, env: cleanEnv({ PATCH_FILE_MCP_MAX_MESSAGE_BYTES: '4096' }) })
  // More messages than the server takes in one batch (16, its limit of requests in flight).
  s.send(Array.from({ length: 17 }, (_, i) => call(i + 1, 'write_file', { file_path: `many-${i}.txt`, content: 'x' })))
  const many = await s.waitFor((m) => !Array.isArray(m) && m.id === null && m.error, 'too many')
  assert.equal(many.error.code, -32600)
  assert.match(many.error.message, /at most 16 messages/)
  assert.match(many.error.message, /17/)
  // A batch line over the message limit is skipped like any other line.
  s.send([call(20, 'write_file', { file_path: 'big.txt', content: 'y'.repeat(5000) }), { jsonrpc: '2.0', id: 21, method: 'ping' }])
  const big = await s.waitFor((m) => !Array.isArray(m) && m.id === null && m.error && m !== many, 'oversized')
  assert.equal(big.error.code, -32600)
  assert.match(big.error.message, /larger than 4096 bytes/)
  s.send({ jsonrpc: '2.0', id: 'after', method: 'ping' })
  await s.response('after')
  assert.equal(s.messages.some((m) => Array.isArray(m)), false, 'no batch answer')
  assert.deepEqual(fs.readdirSync(dir), [], 'nothing was written')
  await stop(s)
})

test('2025-03-26: the answers of a batch share the result limit; a result that does not fit is RESULT_TOO_LARGE', T, async () => {
  const dir = tempDir()
  const text = 'z'.repeat(39) + '\n'
  fs.writeFileSync(path.join(dir, 'a.txt'), text.repeat(150)) // 6,000 bytes
  fs.writeFileSync(path.join(dir, 'b.txt'), text.repeat(150))
  const s = await started('2025-03-26', { dir, env: cleanEnv({ PATCH_FILE_MCP_MAX_RESULT_BYTES: '10000' }) })
  s.send([call('a', 'read_file', { file_path: 'a.txt' }), call('b', 'read_file', { file_path: 'b.txt' })])
  const line = await s.waitForLine((l) => l.startsWith('['), 'batch answer')
  assert.ok(Buffer.byteLength(line) <= 10000, `the batch answer is ${Buffer.byteLength(line)} bytes`)
  const answer = JSON.parse(line)
  const results = ['a', 'b'].map((id) => entryResult(answer, id, 'read_file'))
  assert.deepEqual(results.map((r) => r.ok).sort(), [false, true], JSON.stringify(results).slice(0, 500))
  const tooLarge = results.find((r) => !r.ok)
  assert.equal(tooLarge.code, 'RESULT_TOO_LARGE')
  assert.equal(results.find((r) => r.ok).content, text.repeat(150))
  await stop(s)
})

test('2025-03-26: a batch may not hold initialize or an id in flight; a cancelled member gets no entry', T, async () => {
  const s = await started('2025-03-26', { env: delayedEnv(800) })
  s.send([
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'again', version: '0' } } },
    { jsonrpc: '2.0', id: 2, method: 'ping' },
    { jsonrpc: '2.0', id: 2, method: 'ping' },
    call(3, 'read_file', { file_path: 'missing.txt' }),
    call(4, 'read_file', { file_path: 'missing.txt' }),
  ])
  s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } })
  const answer = await batchAnswer(s)
  assert.deepEqual(answer.map((e) => e.id), [1, 2, 2, 3], JSON.stringify(answer))
  assert.equal(answer[0].error.code, -32600)
  assert.match(answer[0].error.message, /initialize must not be part of a batch/)
  assert.deepEqual(answer[1].result, {})
  assert.equal(answer[2].error.code, -32600)
  assert.match(answer[2].error.message, /id 2 is already used by a request not answered yet/)
  assert.match(entryResult(answer, 3, 'read_file').message, /cannot read `missing.txt`: no such file/)
  await stop(s)
})

for (const version of ['2025-06-18', '2025-11-25', '2024-11-05']) {
  test(`${version}: a batch is refused with one -32600 naming the protocol version, and none of it runs`, T, async () => {
    const dir = tempDir()
    const s = await started(version, { dir })
    s.send([call(1, 'write_file', { file_path: 'no.txt', content: 'x' }), { jsonrpc: '2.0', id: 2, method: 'ping' }])
    const refused = await s.waitFor((m) => !Array.isArray(m) && m.id === null, 'refusal')
    assert.equal(refused.error.code, -32600)
    assert.match(refused.error.message, new RegExp(`protocol version ${version} has no JSON-RPC batches`))
    s.send({ jsonrpc: '2.0', id: 'after', method: 'ping' })
    await s.response('after')
    assert.equal(s.messages.some((m) => Array.isArray(m) || m.id === 1 || m.id === 2), false)
    assert.equal(fs.existsSync(path.join(dir, 'no.txt')), false)
    await stop(s)
  })
}

test('before initialize, a batch is refused: the version that allows it is not negotiated yet', T, async () => {
  const s = rawServer({ args: ['--root', tempDir()] })
  s.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }])
  const refused = await s.waitFor((m) => !Array.isArray(m) && m.id === null, 'refusal')
  assert.equal(refused.error.code, -32600)
  assert.match(refused.error.message, /only after initialize/)
  await stop(s)
})
