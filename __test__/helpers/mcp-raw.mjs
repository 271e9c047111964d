// Drives the real bin over raw stdin/stdout lines, for what the SDK client
// cannot send (malformed JSON-RPC) or observe (exit codes, signals). Every
// answer to a tools/call it sent is checked (helpers/mcp-results.mjs) when
// it arrives: one compact JSON text block whose result fits the tool's
// output schema.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { answersStructured, checkAnswer } from './mcp-results.mjs'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BIN = path.join(ROOT, 'bin', 'patch-file-tool.js')

/**
 * A preload (node -r) that holds every tool call for `PFT_TEST_CALL_DELAY_MS`
 * before it reaches the engine, so that a test can act while calls are in
 * flight (cancel them, stop the server).
 */
export const DELAY_PRELOAD = path.join(ROOT, '__test__', 'helpers', 'delay-preload.cjs')

/** cleanEnv plus the preload that holds each tool call for `ms`. */
export function delayedEnv(ms, extra = {}) {
  return cleanEnv({ NODE_OPTIONS: `-r ${DELAY_PRELOAD}`, PFT_TEST_CALL_DELAY_MS: String(ms), ...extra })
}

/** A fresh temp directory (real path, so results compare equal). */
export function tempDir(prefix = 'pft-') {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
}

/** process.env without the server's own variables, plus `extra`. */
export function cleanEnv(extra = {}) {
  const env = { ...process.env }
  for (const k of ['PATCH_FILE_WORKSPACE_ROOT', 'PATCH_FILE_LOG', 'PATCH_FILE_TOOLS', 'PATCH_FILE_OUTPUT_SCHEMAS']) delete env[k]
  return { ...env, ...extra }
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '0' } },
}

const live = new Set()

/** Kills every server still running (after a failed test), so the run never hangs. */
export function killAll() {
  for (const child of live) child.kill('SIGKILL')
  live.clear()
}

/** Spawns the server; collects stdout lines (parsed) and stderr text. */
export function rawServer({ args = [], env = cleanEnv(), cwd } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] })
  live.add(child)
  child.on('exit', () => live.delete(child))
  const messages = []
  const lines = []
  const nonJson = []
  const waiters = []
  let stderr = ''
  let buf = ''
  const stderrWaiters = []
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (s) => {
    buf += s
    let i
    while ((i = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, i)
      buf = buf.slice(i + 1)
      lines.push(line)
      let msg
      try {
        msg = JSON.parse(line)
      } catch {
        nonJson.push(line)
        for (const w of [...waiters]) w()
        continue
      }
      messages.push(msg)
      for (const w of [...waiters]) w()
    }
  })
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (s) => {
    stderr += s
    for (const w of [...stderrWaiters]) w()
  })
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  const structured = answersStructured(args, env)
  /** id (as JSON text) -> the tool name of each tools/call sent. */
  const calls = new Map()
  const noteCall = (msg) => {
    let m = msg
    if (typeof m === 'string') {
      try {
        m = JSON.parse(m)
      } catch {
        return
      }
    }
    if (m && m.method === 'tools/call' && m.params && typeof m.params.name === 'string' && m.id !== undefined) {
      calls.set(JSON.stringify(m.id), m.params.name)
    }
  }

  function waitFor(pred, what = 'message', ms = 15000) {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = messages.find(pred)
        if (m) {
          waiters.splice(waiters.indexOf(check), 1)
          clearTimeout(timer)
          resolve(m)
        }
      }
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(check), 1)
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages)}; stderr: ${stderr}`))
      }, ms)
      waiters.push(check)
      check()
    })
  }

  function waitForStderr(text, ms = 15000) {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (stderr.includes(text)) {
          stderrWaiters.splice(stderrWaiters.indexOf(check), 1)
          clearTimeout(timer)
          resolve()
        }
      }
      const timer = setTimeout(() => reject(new Error(`timed out waiting for stderr ${text}; stderr: ${stderr}`)), ms)
      stderrWaiters.push(check)
      check()
    })
  }

  /** The first stdout line (raw text, as the server wrote it) that `pred` accepts. */
  function waitForLine(pred, what = 'line', ms = 15000) {
    return new Promise((resolve, reject) => {
      const check = () => {
        const l = lines.find(pred)
        if (l !== undefined) {
          waiters.splice(waiters.indexOf(check), 1)
          clearTimeout(timer)
          resolve(l)
        }
      }
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(check), 1)
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(lines)}; stderr: ${stderr}`))
      }, ms)
      waiters.push(check)
      check()
    })
  }

  return {
    child,
    messages,
    /** Every stdout line as written, before parsing (JSON.parse loses integers past 2^53). */
    lines,
    nonJson,
    exit,
    get stderr() {
      return stderr
    },
    send(msg) {
      noteCall(msg)
      child.stdin.write((typeof msg === 'string' ? msg : JSON.stringify(msg)) + '\n')
    },
    /** The answer to request `id`; an answer to a tools/call is checked (helpers/mcp-results.mjs). */
    async response(id) {
      const m = await waitFor((x) => x.id === id && ('result' in x || 'error' in x), `response ${id}`)
      const name = calls.get(JSON.stringify(id))
      if (name && m.result && !m.error) checkAnswer(name, m.result, structured)
      return m
    },
    /** The engine's result object answering the tools/call `id`. */
    async result(id) {
      const m = await this.response(id)
      if (!m.result) throw new Error(`request ${id} has no result: ${JSON.stringify(m).slice(0, 500)}`)
      return JSON.parse(m.result.content[0].text)
    },
    waitFor,
    waitForLine,
    waitForStderr,
    async initialize() {
      this.send(INITIALIZE)
      const r = await this.response(0)
      this.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      return r
    },
  }
}
