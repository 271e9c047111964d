// Drives the real bin over raw stdin/stdout lines, for what the SDK client
// cannot send (malformed JSON-RPC) or observe (exit codes, signals).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BIN = path.join(ROOT, 'bin', 'patch-file-tool.js')

/** A fresh temp directory (real path, so results compare equal). */
export function tempDir(prefix = 'pft-') {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
}

/** process.env without the workspace variable, plus `extra`. */
export function cleanEnv(extra = {}) {
  const env = { ...process.env }
  delete env.PATCH_FILE_WORKSPACE_ROOT
  delete env.PATCH_FILE_LOG
  delete env.PATCH_FILE_TEST_CALL_DELAY_MS
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
      child.stdin.write((typeof msg === 'string' ? msg : JSON.stringify(msg)) + '\n')
    },
    response(id) {
      return waitFor((m) => m.id === id && ('result' in m || 'error' in m), `response ${id}`)
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
