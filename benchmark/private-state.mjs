// Imported first by every benchmark entry point (bench.mjs, tokens.mjs): the
// engine the benchmarks run, in this process and in the servers they start,
// keeps its state (journal, in-place copies) in a fresh temp directory,
// removed at exit, never in the user's real per-user state. A caller's own
// PATCH_FILE_STATE_DIR is kept.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

if (!process.env.PATCH_FILE_STATE_DIR) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-bench-state-'))
  process.env.PATCH_FILE_STATE_DIR = dir
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
}

/** The state directory, for the environment of a server a benchmark starts. */
export const STATE_DIR = process.env.PATCH_FILE_STATE_DIR
