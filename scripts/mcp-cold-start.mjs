#!/usr/bin/env node
// Measures the MCP server's cold start: from spawning `node bin/patch-file-tool.js`
// to the `initialize` answer on stdout, and on to the answer of a first
// tools/call (which loads the native engine). Prints min / median / p90 in ms.
//
//   node scripts/mcp-cold-start.mjs            20 runs
//   RUNS=50 node scripts/mcp-cold-start.mjs
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = path.join(root, 'bin', 'patch-file-tool.js')
const runs = Number(process.env.RUNS) || 20
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-cold-'))
fs.writeFileSync(path.join(dir, 'f.txt'), 'a = 1\n')

const line = (o) => JSON.stringify(o) + '\n'
const init = line({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cold-start', version: '0' } },
})
const call = line({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
  line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'f.txt' } } })

// Baseline: a bare node process that answers the first line it reads.
const bare = `let n = 0; process.stdin.on('data', () => { if (n++ === 0) process.stdout.write('{"id":0}\\n{"id":1,"result":{}}\\n') })`

function once(args = [bin]) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint()
    const env = { ...process.env, PATCH_FILE_WORKSPACE_ROOT: dir, PATCH_FILE_LOG: 'silent' }
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'inherit'] })
    let buf = ''
    let tInit
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (s) => {
      buf += s
      let i
      while ((i = buf.indexOf('\n')) !== -1) {
        const msg = JSON.parse(buf.slice(0, i))
        buf = buf.slice(i + 1)
        const ms = Number(process.hrtime.bigint() - t0) / 1e6
        if (msg.id === 0) {
          tInit = ms
          child.stdin.write(call)
        } else if (msg.id === 1) {
          if (!msg.result || msg.result.isError) reject(new Error(JSON.stringify(msg)))
          child.stdin.end()
          child.on('exit', () => resolve({ init: tInit, call: ms }))
        }
      }
    })
    child.stdin.write(init)
  })
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))]
  return `min ${s[0].toFixed(0)}  median ${q(0.5).toFixed(0)}  p90 ${q(0.9).toFixed(0)}`
}

await once() // warm the OS file cache
const results = []
const baseline = []
for (let i = 0; i < runs; i++) {
  results.push(await once())
  baseline.push((await once(['-e', bare])).init)
}
console.log(`node ${process.version}, ${os.cpus().length} CPUs, ${runs} runs, load average ${os.loadavg()[0].toFixed(1)}`)
console.log(`baseline: bare node answering one line (ms): ${stats(baseline)}`)
console.log(`spawn -> initialize answer (ms):       ${stats(results.map((r) => r.init))}`)
console.log(`spawn -> first tools/call answer (ms): ${stats(results.map((r) => r.call))}`)
fs.rmSync(dir, { recursive: true, force: true })
