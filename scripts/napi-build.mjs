#!/usr/bin/env node
// `npm run build` / `npm run build:debug`: `napi build` for this machine, with
// one fix: a build right after a build that napi forced compiles nothing.
//
// napi forces a build of the crate whenever its folder of type definitions
// (target/napi-rs/<crate>-<hash>/<crate>) is missing — a fresh clone, a changed
// dependency — by setting NAPI_FORCE_BUILD_PATCH_FILE_TOOL to the current
// time; napi-build's build script tells cargo to rerun when that variable
// changes. The next build does not set it, cargo sees it change (set ->
// unset) and compiles the whole crate again (a release build with LTO: one
// to several minutes). So this script passes the value the last build ran
// with (read back from cargo's record of the build script) to every build,
// and napi sets a new one only when it really has to force.
//
//   node scripts/napi-build.mjs [--release] [other napi build flags]
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const FORCE = 'NAPI_FORCE_BUILD_PATCH_FILE_TOOL'
const target = path.resolve(root, process.env.CARGO_TARGET_DIR || 'target')
const args = process.argv.slice(2)
const profile = args.includes('--release') ? 'release' : 'debug'
const stampFile = path.join(target, `napi-force-build-${profile}.txt`)

/** The value cargo last ran the crate's build script with, for this profile (newest record), or null. */
function lastForceValue() {
  let best = null
  let triples
  try {
    triples = readdirSync(target)
  } catch {
    return null
  }
  for (const triple of triples) {
    const fp = path.join(target, triple, profile, '.fingerprint')
    if (!existsSync(fp)) continue
    for (const d of readdirSync(fp)) {
      if (!d.startsWith('patch-file-tool-')) continue
      const f = path.join(fp, d, 'run-build-script-build-script-build.json')
      if (!existsSync(f)) continue
      try {
        const mtime = statSync(f).mtimeMs
        const local = JSON.parse(readFileSync(f, 'utf8')).local || []
        for (const l of local) {
          const e = l && l.RerunIfEnvChanged
          if (e && e.var === FORCE && (!best || mtime > best.mtime)) best = { mtime, value: e.val }
        }
      } catch {
        // a record cargo changed the shape of: fall back to napi's own behaviour
      }
    }
  }
  return best ? best.value : null
}

const env = { ...process.env }
if (env[FORCE] === undefined && existsSync(stampFile)) {
  const saved = readFileSync(stampFile, 'utf8').trim()
  if (saved) env[FORCE] = saved
}
const napi = path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
const r = spawnSync(process.execPath, [napi, 'build', '--platform', '--js', 'binding.js', '--dts', 'binding.d.ts', ...args], {
  cwd: root,
  env,
  stdio: 'inherit',
})
if (r.status === 0) {
  const used = lastForceValue()
  if (used) {
    mkdirSync(target, { recursive: true })
    writeFileSync(stampFile, `${used}\n`)
  }
}
process.exit(r.status ?? 1)
