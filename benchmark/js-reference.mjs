// js-reference: a careful pure-JS engine with the same contract as
// patch-file-tool's patchFile, the baseline the native engine must beat.
//
// It is what a good TypeScript engineer would write with Node's own APIs:
// resolve the path inside the workspace (realpath, so symlinks cannot
// escape), read the bytes, refuse binary (NUL in the first 8 KiB), decode
// UTF-8 strictly (a BOM is kept), count each search block with indexOf
// (non-overlapping, left to right, every occurrence so the failure can say
// how many and where), apply the edits to the text as it stands, encode,
// write a temp file beside the target (exclusive create, original mode),
// fsync it, check the target is still the file that was read, rename over
// it, fsync the directory. The result carries the same figures as the
// native engine: replacements, line numbers, UTF-16 lengths, byte sizes and
// the sha256 of the bytes on disk before and after (node:crypto, OpenSSL).
//
// Not supported (unused by the benchmark): UTF-16 files and byte-level edits
// of invalid UTF-8, which it refuses with UNSUPPORTED_ENCODING.

import fs from 'node:fs/promises'
import path from 'node:path'
import { createHash, randomBytes } from 'node:crypto'

const MAX_REPORTED_MATCHES = 50
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function fail(code, message, extra = {}) {
  return { ok: false, code, message, ...extra }
}

/** 1-based line numbers of ascending string offsets. */
function lineNumbers(text, offsets) {
  const out = []
  let line = 1
  let at = 0
  for (const o of offsets) {
    for (let i = text.indexOf('\n', at); i !== -1 && i < o; i = text.indexOf('\n', i + 1)) line++
    at = o
    out.push(line)
  }
  return out
}

async function resolveInside(root, filePath) {
  const realRoot = await fs.realpath(root)
  const abs = path.resolve(realRoot, filePath)
  let real
  try {
    real = await fs.realpath(abs)
  } catch (e) {
    return { error: fail('FILE_READ_ERROR', `cannot open \`${filePath}\`: ${e.code}`) }
  }
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) {
    return { error: fail('PATH_OUTSIDE_WORKSPACE', `\`${filePath}\` is outside the workspace`) }
  }
  return { real }
}

/**
 * patchFile({ file_path, search_block, replace_block } | { file_path, edits: [{ search_block, replace_block }] },
 *           { workspaceRoot, durable = true })
 */
export async function patchFile(input, options = {}) {
  const root = options.workspaceRoot ?? process.cwd()
  const durable = options.durable !== false
  const edits = input.edits ?? [{ search_block: input.search_block, replace_block: input.replace_block }]
  for (const e of edits) {
    if (typeof e.search_block !== 'string' || e.search_block === '' || typeof e.replace_block !== 'string') {
      return fail('INVALID_INPUT', 'search_block must be a non-empty string and replace_block a string')
    }
  }
  const { real, error } = await resolveInside(root, input.file_path)
  if (error) return error

  // Read: one open handle, so the stat and the bytes describe the same file.
  let bytes, st
  const fh = await fs.open(real, 'r')
  try {
    st = await fh.stat()
    if (!st.isFile()) return fail('TARGET_IS_DIRECTORY', `\`${input.file_path}\` is not a regular file`)
    bytes = await fh.readFile()
  } finally {
    await fh.close()
  }
  if (bytes.subarray(0, 8192).includes(0)) return fail('BINARY_FILE_REJECTED', 'the file looks binary')
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  let text
  try {
    text = decoder.decode(bom ? bytes.subarray(bom) : bytes)
  } catch {
    return fail('UNSUPPORTED_ENCODING', 'the file is not valid UTF-8')
  }

  // Plan: every edit against the text as it stands; all failures reported.
  const before = text
  const failures = []
  const reports = []
  for (const [index, e] of edits.entries()) {
    const needle = e.search_block
    const positions = []
    let count = 0
    for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) {
      if (positions.length < MAX_REPORTED_MATCHES) positions.push(i)
      count++
    }
    if (count !== 1) {
      const code = count === 0 ? 'SEARCH_BLOCK_NOT_FOUND' : 'SEARCH_BLOCK_AMBIGUOUS'
      const f = { index, code, match_count: count, message: `search_block occurs ${count} times` }
      if (count > 1) f.match_lines = lineNumbers(text, positions)
      failures.push(f)
      continue
    }
    const at = positions[0]
    reports.push({ line_number: lineNumbers(text, [at])[0], replacements: 1 })
    text = text.slice(0, at) + e.replace_block + text.slice(at + needle.length)
  }
  if (failures.length) {
    const first = failures[0]
    const r = fail(first.code, first.message, { file_path: real, match_count: first.match_count })
    if (first.match_lines) r.match_lines = first.match_lines
    if (failures.length > 1 || first.index > 0) r.failed_edits = failures
    return r
  }

  // Encode and commit atomically.
  const body = Buffer.from(text, 'utf8')
  const out = bom ? Buffer.concat([bytes.subarray(0, bom), body]) : body
  const sha256Before = createHash('sha256').update(bytes).digest('hex')
  const sha256 = createHash('sha256').update(out).digest('hex')
  const dir = path.dirname(real)
  const tmp = path.join(dir, `.${path.basename(real)}.ref-${randomBytes(6).toString('hex')}.tmp`)
  const th = await fs.open(tmp, 'wx', 0o600)
  try {
    await th.writeFile(out)
    await th.chmod(st.mode & 0o7777)
    if (durable) await th.sync()
    await th.close()
    const now = await fs.lstat(real)
    if (now.ino !== st.ino || now.dev !== st.dev || now.size !== st.size || now.mtimeMs !== st.mtimeMs) {
      await fs.unlink(tmp)
      return fail('FILE_CHANGED', 'the file changed while it was being edited; nothing was written')
    }
    await fs.rename(tmp, real)
  } catch (e) {
    await th.close().catch(() => {})
    await fs.unlink(tmp).catch(() => {})
    return fail('FILE_WRITE_ERROR', `cannot write: ${e.message}`)
  }
  if (durable) {
    const dh = await fs.open(dir, 'r')
    try {
      await dh.sync()
    } finally {
      await dh.close()
    }
  }
  return {
    ok: true,
    file_path: real,
    replacements: reports.length,
    line_number: reports[0].line_number,
    before_chars: before.length,
    after_chars: text.length,
    before_bytes: bytes.length,
    after_bytes: out.length,
    edits: reports,
    sha256_before: sha256Before,
    sha256,
  }
}
