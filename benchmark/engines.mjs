// The engines the benchmark drives, each behind one adapter:
//   run(op) -> { ok, code?, edited }
// where op = { root, rel, edits: [{ search, replace }], durable, inFlight }.
// `edited` says whether the file content changed (so the workload's toggle
// flips). Every adapter runs in-process.

import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/** patch-file-tool: the published API (async, runs on the libuv pool). */
async function ours() {
  const api = require('../index.js')
  return {
    label: 'patch-file-tool',
    async run(op) {
      const file_path = op.rel
      const input =
        op.edits.length === 1
          ? { file_path, search_block: op.edits[0].search, replace_block: op.edits[0].replace }
          : { file_path, edits: op.edits.map((e) => ({ search_block: e.search, replace_block: e.replace })) }
      const opts = { workspaceRoot: op.root }
      if (op.durable === false) opts.durable = false
      const r = op.sync ? api.patchFileSync(input, opts) : await api.patchFile(input, opts)
      return { ok: r.ok, code: r.code, edited: r.ok, result: r }
    },
  }
}

/** js-reference: the careful pure-JS engine of the same contract. */
async function jsReference() {
  const ref = await import('./js-reference.mjs')
  return {
    label: 'js-reference',
    async run(op) {
      const input =
        op.edits.length === 1
          ? { file_path: op.rel, search_block: op.edits[0].search, replace_block: op.edits[0].replace }
          : { file_path: op.rel, edits: op.edits.map((e) => ({ search_block: e.search, replace_block: e.replace })) }
      const r = await ref.patchFile(input, { workspaceRoot: op.root, durable: op.durable !== false })
      return { ok: r.ok, code: r.code, edited: r.ok, result: r }
    },
  }
}

/**
 * @modelcontextprotocol/server-filesystem's edit_file, in-process: the same
 * two calls its tool handler makes (validatePath, then applyFileEdits). Its
 * contract differs: first occurrence replaced (no ambiguity check), a
 * whitespace-tolerant line fallback on a miss, CRLF normalized, no fsync, a
 * diff returned.
 */
async function serverFilesystem() {
  const lib = await import('@modelcontextprotocol/server-filesystem/dist/lib.js')
  let rootSet = null
  return {
    label: 'server-filesystem (in-process)',
    async run(op) {
      if (rootSet !== op.root) {
        lib.setAllowedDirectories([fs.realpathSync(op.root)])
        rootSet = op.root
      }
      try {
        const valid = await lib.validatePath(path.join(fs.realpathSync(op.root), op.rel))
        await lib.applyFileEdits(
          valid,
          op.edits.map((e) => ({ oldText: e.search, newText: e.replace })),
          false,
        )
        return { ok: true, edited: true }
      } catch (e) {
        return { ok: false, code: 'ERROR', edited: false, message: String(e.message).slice(0, 80) }
      }
    },
  }
}

/**
 * floor-copy: what any engine of this contract must at least do, with no
 * search: read the file, write a temp file beside it, fsync it, rename it over
 * the file, fsync the directory. Sequential ops use blocking calls (no thread
 * hops); ops with others in flight use fs/promises so they overlap.
 */
async function floorCopy() {
  function copySync(op) {
    const file = path.join(op.root, op.rel)
    const bytes = fs.readFileSync(file)
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.floor-${randomBytes(6).toString('hex')}.tmp`)
    const fd = fs.openSync(tmp, 'wx', 0o600)
    fs.writeSync(fd, bytes)
    if (op.durable !== false) fs.fsyncSync(fd)
    fs.closeSync(fd)
    fs.renameSync(tmp, file)
    if (op.durable !== false) {
      const d = fs.openSync(path.dirname(file), 'r')
      fs.fsyncSync(d)
      fs.closeSync(d)
    }
  }
  async function copyAsync(op) {
    const file = path.join(op.root, op.rel)
    const bytes = await fsp.readFile(file)
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.floor-${randomBytes(6).toString('hex')}.tmp`)
    const fh = await fsp.open(tmp, 'wx', 0o600)
    await fh.writeFile(bytes)
    if (op.durable !== false) await fh.sync()
    await fh.close()
    await fsp.rename(tmp, file)
    if (op.durable !== false) {
      const d = await fsp.open(path.dirname(file), 'r')
      await d.sync()
      await d.close()
    }
  }
  return {
    label: 'floor-copy',
    floor: true,
    async run(op) {
      if (op.inFlight > 1) await copyAsync(op)
      else copySync(op)
      return { ok: true, edited: false }
    },
  }
}

/** floor-read: read the file into a fresh buffer (what a miss must at least cost). */
async function floorRead() {
  return {
    label: 'floor-read',
    floor: true,
    async run(op) {
      fs.readFileSync(path.join(op.root, op.rel))
      return { ok: true, edited: false }
    },
  }
}

/**
 * floor-scan: Buffer.indexOf over bytes already in memory, counting every
 * occurrence of each search block: the search alone, no I/O.
 */
async function floorScan() {
  const cache = new Map()
  return {
    label: 'floor-scan',
    floor: true,
    prepare(op) {
      const file = path.join(op.root, op.rel)
      if (!cache.has(file)) cache.set(file, fs.readFileSync(file))
    },
    forget() {
      cache.clear()
    },
    async run(op) {
      const buf = cache.get(path.join(op.root, op.rel))
      let n = 0
      for (const e of op.edits) {
        const needle = Buffer.from(e.search)
        for (let i = buf.indexOf(needle); i !== -1; i = buf.indexOf(needle, i + needle.length)) n++
      }
      return { ok: true, edited: false, count: n }
    },
  }
}

/**
 * Another build of patch-file-tool (a checkout in PFT_BENCH_COMPARE, built
 * there), run interleaved with this one: before/after figures of a change
 * taken in one process, so machine drift hits both alike.
 */
async function compare() {
  const dir = process.env.PFT_BENCH_COMPARE
  if (!dir) throw new Error('set PFT_BENCH_COMPARE to a built checkout of patch-file-tool')
  const api = require(path.resolve(dir, 'index.js'))
  const e = await ours()
  return {
    label: `patch-file-tool @ ${path.basename(path.resolve(dir))}`,
    async run(op) {
      const file_path = op.rel
      const input =
        op.edits.length === 1
          ? { file_path, search_block: op.edits[0].search, replace_block: op.edits[0].replace }
          : { file_path, edits: op.edits.map((x) => ({ search_block: x.search, replace_block: x.replace })) }
      const opts = { workspaceRoot: op.root }
      if (op.durable === false) opts.durable = false
      const r = op.sync ? api.patchFileSync(input, opts) : await api.patchFile(input, opts)
      return { ok: r.ok, code: r.code, edited: r.ok, result: r }
    },
    ours: e.label,
  }
}

export const ENGINE_FACTORIES = {
  'patch-file-tool': ours,
  'patch-file-tool-compare': compare,
  'js-reference': jsReference,
  'server-filesystem': serverFilesystem,
  'floor-copy': floorCopy,
  'floor-read': floorRead,
  'floor-scan': floorScan,
}

export async function loadEngine(name) {
  const f = ENGINE_FACTORIES[name]
  if (!f) throw new Error(`unknown engine ${name}`)
  const e = await f()
  e.name = name
  return e
}
