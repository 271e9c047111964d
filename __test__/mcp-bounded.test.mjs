// The MCP server stays bounded under any input: a client that does not read
// stdout, messages nested thousands deep, oversized lines, a last line
// without a newline, results too large to carry. Each test drives the real
// bin (or the transport in-process), stops by itself and kills its children.
//
// Memory is measured, not timed: the server runs under `ulimit -v` (a
// backstop) and its RSS is sampled from /proc; a server over the ceiling is
// killed at once, so a regression fails the test instead of taking the
// machine down.
import './helpers/private-state.mjs'
import { test, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { PassThrough, Writable } from 'node:stream'
import fs from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { withClient as withMcpClient } from './helpers/mcp-client.mjs'
import { BIN, INITIALIZE, tempDir, cleanEnv, rawServer, killAll } from './helpers/mcp-raw.mjs'

const require = createRequire(import.meta.url)
const { LineTransport } = require('../js/stdio-transport.js')

const children = new Set()
afterEach(() => {
  killAll()
  for (const c of children) c.kill('SIGKILL')
  children.clear()
})

const T = { timeout: 60_000 }
const LINUX = process.platform === 'linux'

/** `depth` nested objects: {"a":{"a":...{}}}. */
function nest(depth) {
  return '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth)
}

/** About `bytes` of printable text in 100-character lines (random, so nothing compresses it away). */
function textOf(bytes) {
  const lines = []
  let n = 0
  let seed = 12345
  while (n < bytes) {
    let s = ''
    for (let i = 0; i < 99; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      s += String.fromCharCode(97 + (seed % 26))
    }
    lines.push(s)
    n += 100
  }
  return lines.join('\n') + '\n'
}

function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : 0
  } catch {
    return 0
  }
}

/** The SDK client on a server listing every tool with its output schema (helpers/mcp-client.mjs validates each result). */
function withClient({ args = [], env = cleanEnv() }, fn) {
  return withMcpClient({ args, env, name: 'bounded-test' }, fn)
}

/** The structured result, checked against its text copy. */
function structured(r) {
  assert.equal(r.content.length, 1)
  assert.equal(r.content[0].type, 'text')
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent)
  return r.structuredContent
}

// ---------------------------------------------------------------------------
// Back-pressure

test(
  'a client that does not read stdout: the server stops reading stdin, its RSS stays bounded, and every request is answered once the client reads',
  { timeout: 120_000, skip: LINUX ? false : 'needs /proc and ulimit' },
  async () => {
    const CEILING_MIB = 400
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, 'big.txt'), textOf(1_000_000))
    // ulimit -v is a backstop (about 3 GiB of address space; Node reserves ~1.1 GiB at start);
    // the RSS watchdog below is what fails a regression, long before that.
    const child = spawn('sh', ['-c', 'ulimit -v 3000000 && exec "$0" "$@"', process.execPath, BIN, '--root', dir], {
      env: cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    children.add(child)
    let stderr = ''
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (s) => (stderr += s))
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
    let exitedEarly = null
    exited.then((e) => (exitedEarly = e))
    child.stdin.on('error', () => {})

    // Read the initialize answer, then stop reading stdout altogether.
    const lines = []
    let buf = ''
    const onData = (s) => {
      buf += s
      let i
      while ((i = buf.indexOf('\n')) !== -1) {
        lines.push(buf.slice(0, i))
        buf = buf.slice(i + 1)
      }
    }
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', onData)
    child.stdin.write(JSON.stringify(INITIALIZE) + '\n')
    for (let i = 0; i < 300 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 50))
    assert.equal(lines.length, 1, `no initialize answer; stderr: ${stderr}`)
    child.stdout.pause()
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n')

    // Sample the server's RSS; kill it over the ceiling.
    let peak = 0
    let killedForRss = false
    const sampler = setInterval(() => {
      const r = rssMiB(child.pid)
      peak = Math.max(peak, r)
      if (r > CEILING_MIB && !killedForRss) {
        killedForRss = true
        child.kill('SIGKILL')
      }
    }, 50)

    // Send read_file requests for the 1 MB file (each padded to ~32 KB) as fast as stdin
    // takes them, until stdin has not drained for 2 s (the server stopped reading) or 20 s passed.
    const pad = 'p'.repeat(32_000)
    let sent = 0
    const start = Date.now()
    let stalledSince = null
    try {
      while (!exitedEarly && !killedForRss && Date.now() - start < 20_000) {
        sent++
        const ok = child.stdin.write(
          JSON.stringify({ jsonrpc: '2.0', id: sent, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'big.txt' }, _meta: { pad } } }) + '\n',
        )
        if (ok) continue
        stalledSince = Date.now()
        const drained = await new Promise((resolve) => {
          const t = setTimeout(() => resolve(false), 2000)
          child.stdin.once('drain', () => {
            clearTimeout(t)
            resolve(true)
          })
        })
        if (!drained) break
        stalledSince = null
      }
      const stalled = stalledSince !== null
      assert.ok(!killedForRss, `server RSS passed ${CEILING_MIB} MiB (peak ${peak.toFixed(0)} MiB) after ${sent} requests`)
      assert.equal(exitedEarly, null, `server died: ${JSON.stringify(exitedEarly)}; stderr: ${stderr.slice(-2000)}`)
      assert.ok(stalled, `the server kept reading stdin for 20 s (${sent} requests) although nobody read its stdout`)
      // Still bounded a moment later, with everything it took in handled.
      await new Promise((r) => setTimeout(r, 1000))
      assert.ok(!killedForRss && peak <= CEILING_MIB, `peak RSS ${peak.toFixed(0)} MiB`)
    } finally {
      clearInterval(sampler)
    }

    // Now read: every request is answered, exactly once, with its result.
    child.stdout.resume()
    child.stdin.end()
    const exit = await exited
    assert.deepEqual(exit, { code: 0, signal: null }, stderr.slice(-2000))
    const answered = new Map()
    for (const line of lines.slice(1)) {
      const m = JSON.parse(line)
      assert.equal(answered.has(m.id), false, `id ${m.id} answered twice`)
      answered.set(m.id, m)
    }
    assert.equal(answered.size, sent, `${answered.size} answers for ${sent} requests`)
    for (let id = 1; id <= sent; id++) {
      const m = answered.get(id)
      assert.ok(m && m.result && JSON.parse(m.result.content[0].text).ok === true, `request ${id}: ${JSON.stringify(m)?.slice(0, 300)}`)
    }
    process.stdout.write(`# non-reading client: ${sent} requests taken, peak server RSS ${peak.toFixed(0)} MiB\n`)
  },
)

test('transport: while stdout is congested or requests are in flight up to the limit, no further line is read', T, async () => {
  const input = new PassThrough()
  const held = []
  const out = new Writable({
    highWaterMark: 1024,
    write(chunk, enc, cb) {
      held.push(cb)
    },
  })
  const t = new LineTransport({ stdin: input, stdout: out, maxInFlight: 4 })
  const seen = []
  t.onmessage = (m) => {
    seen.push(m.id)
    setImmediate(() => t.send({ jsonrpc: '2.0', id: m.id, result: { pad: 'x'.repeat(2000) } }))
  }
  await t.start()
  let lines = ''
  for (let id = 1; id <= 100; id++) lines += JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n'
  input.write(lines) // one chunk of 100 requests
  await new Promise((r) => setTimeout(r, 50))
  // The in-flight limit stopped dispatch at 4; the first answer (2 KB > 1 KB) congested stdout.
  assert.ok(seen.length <= 4, `dispatched ${seen.length} requests with 4 allowed in flight and stdout congested`)
  assert.ok(held.length >= 1)
  // Let stdout drain again and again: everything is read, in order, never more than 4 unanswered.
  for (let round = 0; round < 500 && seen.length < 100; round++) {
    while (held.length) held.shift()()
    await new Promise((r) => setTimeout(r, 5))
  }
  while (held.length) held.shift()()
  assert.deepEqual(seen, Array.from({ length: 100 }, (_, i) => i + 1))
  await t.close()
})

test('transport: a response that cannot be serialized is answered with an error, never dropped or thrown', T, async () => {
  const input = new PassThrough()
  const chunks = []
  const out = new Writable({
    write(chunk, enc, cb) {
      chunks.push(chunk.toString())
      cb()
    },
  })
  const t = new LineTransport({ stdin: input, stdout: out })
  t.onmessage = (m) => {
    // What JSON.stringify does with a string past V8's limit (~512 MiB).
    const huge = {
      toJSON() {
        throw new RangeError('Invalid string length')
      },
    }
    t.send({ jsonrpc: '2.0', id: m.id, result: { structuredContent: huge } }).catch(() => {})
  }
  await t.start()
  input.write(JSON.stringify({ jsonrpc: '2.0', id: 'r1', method: 'ping' }) + '\n')
  await new Promise((r) => setTimeout(r, 50))
  const answers = chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l))
  assert.equal(answers.length, 1)
  assert.equal(answers[0].id, 'r1')
  assert.equal(answers[0].error.code, -32603)
  assert.match(answers[0].error.message, /too large|Invalid string length/)
  await t.close()
})

test('SIGTERM while the client does not read stdout: the server still exits, within a bounded time', { timeout: 60_000, skip: LINUX ? false : 'Linux only' }, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'big.txt'), textOf(1_000_000))
  const s = rawServer({ args: ['--root', dir], env: cleanEnv({ PATCH_FILE_LOG: 'debug' }) })
  await s.initialize()
  s.child.stdout.pause()
  for (let id = 1; id <= 3; id++) s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'big.txt' } } })
  for (let id = 1; id <= 3; id++) await s.waitForStderr(`done read_file (request ${id})`)
  const t0 = Date.now()
  s.child.kill('SIGTERM')
  const timeout = new Promise((r) => setTimeout(() => r('still running'), 30_000))
  const exit = await Promise.race([s.exit, timeout])
  assert.notEqual(exit, 'still running', 'the server did not exit within 30 s of SIGTERM')
  assert.equal(exit.code, 0)
  assert.match(s.stderr, /not read/)
  process.stdout.write(`# SIGTERM with an unread stdout: exit after ${Date.now() - t0} ms\n`)
})

// ---------------------------------------------------------------------------
// Nesting

test('messages nested 5,000 deep (responses, errors, notifications, requests) never crash the server', T, async () => {
  const s = rawServer({ args: ['--root', tempDir()] })
  await s.initialize()
  const deep = nest(5000)
  s.send(`{"jsonrpc":"2.0","id":5,"result":${deep}}`)
  s.send(`{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"x","data":${deep}}}`)
  s.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":${deep}}`)
  s.send(`{"jsonrpc":"2.0","id":7,"method":"ping","params":${deep}}`)
  s.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read_file","arguments":${nest(100_000)}}}`)
  const seven = await s.response(7)
  assert.equal(seven.error.code, -32600)
  assert.match(seven.error.message, /nested deeper than/)
  assert.equal((await s.response(8)).error.code, -32600)
  s.send({ jsonrpc: '2.0', id: 9, method: 'ping' })
  assert.deepEqual((await s.response(9)).result, {})
  // The dropped response, error and notification are logged, not answered.
  await s.waitForStderr('dropped')
  assert.equal(s.messages.some((m) => m.id === 5 || m.id === 6), false)
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.deepEqual(s.nonJson, [])
})

test('a message that makes the SDK throw synchronously is answered (a request) or dropped with a log line; the server goes on', T, async () => {
  const input = new PassThrough()
  const chunks = []
  const out = new Writable({
    write(chunk, enc, cb) {
      chunks.push(chunk.toString())
      cb()
    },
  })
  const logs = []
  const t = new LineTransport({ stdin: input, stdout: out, log: (level, msg) => logs.push(`${level}: ${msg}`) })
  t.onmessage = (m) => {
    throw new RangeError(`boom ${m.id ?? m.method}`)
  }
  await t.start()
  input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc":"2.0","method":"notifications/x"}\n')
  await new Promise((r) => setTimeout(r, 50))
  const answers = chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l))
  assert.deepEqual(answers.map((a) => [a.id, a.error.code]), [[1, -32603]])
  // One line for the request answered, one for each message dropped.
  assert.equal(logs.length, 3, logs.join('\n'))
  assert.equal(logs.filter((l) => /dropped/.test(l)).length, 2, logs.join('\n'))
  await t.close()
})

test(
  'a line with more JSON values than a call may hold is refused without being parsed; memory stays bounded',
  { timeout: 120_000, skip: LINUX ? false : 'needs /proc' },
  async () => {
    const CEILING_MIB = 600
    const s = rawServer({ args: ['--root', tempDir()] })
    await s.initialize()
    let peak = 0
    let killed = false
    const sampler = setInterval(() => {
      const r = rssMiB(s.child.pid)
      peak = Math.max(peak, r)
      if (r > CEILING_MIB && !killed) {
        killed = true
        s.child.kill('SIGKILL')
      }
    }, 50)
    try {
      // ~42 MB: 14 million empty objects (parsed, well over 1 GB of V8 objects).
      const head = '{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"read_file","arguments":{"file_path":"x","a":['
      s.child.stdin.write(head)
      const block = '{},'.repeat(1 << 20)
      for (let i = 0; i < 14; i++) {
        if (!s.child.stdin.write(block)) await new Promise((r) => s.child.stdin.once('drain', r))
      }
      s.child.stdin.write('{}]}}}\n')
      const r = await Promise.race([s.response(51), s.exit.then((e) => ({ exited: e }))])
      assert.ok(!killed, `server RSS passed ${CEILING_MIB} MiB (peak ${peak.toFixed(0)} MiB)`)
      assert.equal(r.error?.code, -32600, JSON.stringify(r))
      assert.match(r.error.message, /more than \d+ JSON values/)
      s.send({ jsonrpc: '2.0', id: 52, method: 'ping' })
      assert.deepEqual((await s.response(52)).result, {})
    } finally {
      clearInterval(sampler)
    }
    s.child.stdin.end()
    assert.equal((await s.exit).code, 0)
    process.stdout.write(`# 14M-value line refused; peak server RSS ${peak.toFixed(0)} MiB\n`)
  },
)

// ---------------------------------------------------------------------------
// Oversized lines and the last line

test('an oversized line is answered with its request id (read from its start, or its end as the SDK writes it)', T, async () => {
  const dir = tempDir()
  const s = rawServer({ args: ['--root', dir], env: cleanEnv({ PATCH_FILE_MCP_MAX_MESSAGE_BYTES: '4096' }) })
  await s.initialize()
  const big = 'x'.repeat(20_000)
  // id near the start.
  s.send({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'a.txt', content: big } } })
  const a = await s.response(41)
  assert.equal(a.error.code, -32600)
  assert.match(a.error.message, /larger than 4096 bytes/)
  assert.match(a.error.message, /PATCH_FILE_MCP_MAX_MESSAGE_BYTES/)
  // id last, as the SDK's client writes a request (method, params, jsonrpc, id).
  s.send(`{"method":"tools/call","params":{"name":"write_file","arguments":{"file_path":"b.txt","content":"${big}"}},"jsonrpc":"2.0","id":"req-42"}`)
  assert.equal((await s.response('req-42')).error.code, -32600)
  // An "id" inside params is not the request's id.
  s.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"id":99,"name":"write_file","arguments":{"file_path":"c.txt","content":"${big}"}}}`)
  await s.waitFor((m) => m.error && m.error.code === -32600 && m.id === null, 'oversized without a readable id')
  // A line that is not JSON but starts like a request: answered with its id too.
  s.send('{"jsonrpc":"2.0","id":43,"method":"ping",')
  assert.equal((await s.response(43)).error.code, -32700)
  s.send({ jsonrpc: '2.0', id: 44, method: 'ping' })
  assert.deepEqual((await s.response(44)).result, {})
  assert.equal(s.messages.some((m) => m.id === 99), false)
  s.child.stdin.end()
  assert.equal((await s.exit).code, 0)
  for (const f of ['a.txt', 'b.txt', 'c.txt']) assert.equal(fs.existsSync(path.join(dir, f)), false, f)
})

test("an SDK client's oversized request fails promptly with -32600 instead of waiting forever", T, async () => {
  const dir = tempDir()
  await withClient({ args: ['--root', dir], env: cleanEnv({ PATCH_FILE_MCP_MAX_MESSAGE_BYTES: '4096' }) }, async (client) => {
    const t0 = Date.now()
    await assert.rejects(
      client.callTool({ name: 'write_file', arguments: { file_path: 'big.txt', content: 'x'.repeat(20_000) } }, undefined, { timeout: 15_000 }),
      (e) => e.code === -32600 && /larger than 4096 bytes/.test(e.message),
    )
    process.stdout.write(`# oversized request answered in ${Date.now() - t0} ms\n`)
    const ok = structured(await client.callTool({ name: 'write_file', arguments: { file_path: 'small.txt', content: 'x\n' } }))
    assert.equal(ok.ok, true)
  })
  assert.equal(fs.existsSync(path.join(dir, 'big.txt')), false)
})

test('a last line without a newline at EOF is processed', T, async () => {
  const dir = tempDir()
  const s = rawServer({ args: ['--root', dir] })
  await s.initialize()
  s.child.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'eof.txt', content: 'z\n' } } }))
  const r = await s.response(5)
  assert.equal(JSON.parse(r.result.content[0].text).ok, true)
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.equal(fs.readFileSync(path.join(dir, 'eof.txt'), 'utf8'), 'z\n')
})

test('an oversized last line without a newline at EOF is answered with its id', T, async () => {
  const s = rawServer({ args: ['--root', tempDir()], env: cleanEnv({ PATCH_FILE_MCP_MAX_MESSAGE_BYTES: '4096' }) })
  await s.initialize()
  s.child.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'x.txt', content: 'x'.repeat(20_000) } } }))
  assert.equal((await s.response(6)).error.code, -32600)
  assert.deepEqual(await s.exit, { code: 0, signal: null })
})

// ---------------------------------------------------------------------------
// Results too large to carry

test('a result over the message limit becomes a RESULT_TOO_LARGE tool error naming a line range; the id is answered', T, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'ascii.txt'), textOf(100_000))
  // 20,000 two-byte characters: under the limit counted in characters, over it in UTF-8 bytes.
  fs.writeFileSync(path.join(dir, 'accents.txt'), '\u00e9'.repeat(20_000) + '\n')
  await withClient({ args: ['--root', dir], env: cleanEnv({ PATCH_FILE_MCP_MAX_RESULT_BYTES: '65536' }) }, async (client) => {
    for (const file of ['ascii.txt', 'accents.txt']) {
      const r = await client.callTool({ name: 'read_file', arguments: { file_path: file } })
      assert.equal(r.isError, true, file)
      const s = structured(r)
      assert.equal(s.ok, false)
      assert.equal(s.code, 'RESULT_TOO_LARGE', file)
      assert.match(s.message, /offset/)
      assert.match(s.message, /limit/)
      assert.match(s.message, /PATCH_FILE_MCP_MAX_RESULT_BYTES/)
    }
    const part = structured(await client.callTool({ name: 'read_file', arguments: { file_path: 'ascii.txt', limit: 10 } }))
    assert.equal(part.ok, true)
    assert.equal(part.lines, 10)
  })
})

test(
  'read_file of a 300 MB file through MCP is answered (RESULT_TOO_LARGE), not left pending',
  { timeout: 300_000, skip: process.env.PFT_HUGE ? false : 'set PFT_HUGE=1 (writes a 300 MB file, uses ~1.5 GB)' },
  async () => {
    const dir = tempDir()
    const line = 'y'.repeat(99) + '\n'
    const fd = fs.openSync(path.join(dir, 'huge.txt'), 'w')
    const block = line.repeat(10_000)
    for (let i = 0; i < 300; i++) fs.writeSync(fd, block)
    fs.closeSync(fd)
    try {
      await withClient({ args: ['--root', dir] }, async (client) => {
        const t0 = Date.now()
        const r = await client.callTool({ name: 'read_file', arguments: { file_path: 'huge.txt' } }, undefined, { timeout: 240_000 })
        assert.equal(structured(r).code, 'RESULT_TOO_LARGE')
        process.stdout.write(`# 300 MB read_file answered RESULT_TOO_LARGE in ${Date.now() - t0} ms\n`)
      })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)

test('logs are dropped (and counted) rather than buffered while the client does not read stderr', () => {
  const { makeLogger } = require('../js/mcp.js')
  const written = []
  const stream = { writableLength: 2 * 1024 * 1024, write: (s) => written.push(s) }
  const log = makeLogger({ PATCH_FILE_LOG: 'debug' }, stream)
  for (let i = 0; i < 1000; i++) log.debug(`line ${i}`)
  assert.equal(written.length, 0)
  stream.writableLength = 0
  log.info('back')
  assert.deepEqual(written, ['patch-file-tool: back (1000 earlier log lines dropped: stderr was not being read)\n'])
})
