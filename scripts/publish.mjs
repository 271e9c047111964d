#!/usr/bin/env node
// Publishes a release from prebuilt binaries, without building anything
// (no cargo, no lifecycle script of this package). The release job of
// .github/workflows/ci.yml runs it against the npm registry; the release
// rehearsal (scripts/release-rehearse.mjs) runs the same steps, through the
// same functions, against a local registry.
//
//   node scripts/publish.mjs --artifacts DIR [--registry URL] [--only-built] [--dry-run]
//
// Steps (docs/releasing.md):
//  1. check the committed generated files match package.json (binding.js,
//     npm/*/package.json: scripts/sync-version.mjs --check; index.mjs and
//     index.d.ts: scripts/gen-entry.mjs --check);
//  2. stage the package in a temporary directory: exactly the files
//     `npm pack` takes from this checkout, plus npm/;
//  3. `napi artifacts`: each `patch-file-tool.<platform>.node` found under
//     DIR goes into npm/<platform>/; LICENSE is copied into each;
//  4. check each binary is built for its platform (file format and CPU);
//  5. `napi prepublish -t npm --no-gh-release`: publishes every
//     npm/<platform> package and writes them into the staged package.json as
//     optionalDependencies at this version;
//  6. `npm publish --ignore-scripts` of the staged package.
//
// Every target of package.json `napi.targets` must have its binary, unless
// --only-built: then the release covers the targets whose binary is in DIR
// (the rehearsal on a machine that cannot build all of them), and the main
// package's optionalDependencies name exactly those.
//
// `npm publish` straight from the checkout is refused (the `prepublishOnly`
// script runs this file with --refuse): it would publish a package without
// its platform packages.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const napiCli = path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')

function log(msg) {
  process.stdout.write(`publish: ${msg}\n`)
}

/** The `npm` CLI as a script for this node (no shell, works on Windows too). */
export function npmCli() {
  const candidates = [
    process.env.npm_execpath,
    path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ]
  const found = candidates.find((c) => c && /npm-cli\.js$/.test(c) && fs.existsSync(c))
  if (!found) throw new Error(`npm-cli.js not found among ${candidates.filter(Boolean).join(', ')}`)
  return found
}

/** Runs a command, inheriting output; throws with its output on failure. Returns stdout when `capture`. */
export function run(cmd, args, { cwd = root, env = process.env, capture = false } = {}) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', maxBuffer: 64 << 20 })
  if (r.error) throw r.error
  if (r.status !== 0) {
    throw new Error(`${path.basename(cmd)} ${args.join(' ')} (in ${cwd}) exited ${r.status ?? r.signal}${capture ? `\n${r.stdout}\n${r.stderr}` : ''}`)
  }
  return r.stdout
}

const npm = (args, opts) => run(process.execPath, [npmCli(), ...args], opts)

/** 1. The committed generated files are what the generators write for this package.json. */
export function checkGenerated() {
  run(process.execPath, [path.join(root, 'scripts', 'sync-version.mjs'), '--check'])
  run(process.execPath, [path.join(root, 'scripts', 'gen-entry.mjs'), '--check'])
}

/** 2. A temporary copy of the package as `npm pack` would take it, plus npm/. Returns its path and file list. */
export function stage(dest = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-publish-'))) {
  const out = npm(['pack', '--dry-run', '--json', '--ignore-scripts'], { capture: true })
  const files = JSON.parse(out.slice(out.indexOf('['))).flatMap((p) => p.files.map((f) => f.path))
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dest, f)), { recursive: true })
    fs.copyFileSync(path.join(root, f), path.join(dest, f))
  }
  fs.cpSync(path.join(root, 'npm'), path.join(dest, 'npm'), { recursive: true })
  log(`staged ${files.length} files in ${dest}`)
  return { dir: dest, files }
}

const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'))
const writeJson = (f, v) => fs.writeFileSync(f, JSON.stringify(v, null, 2) + '\n')

const { parseTriple } = await import(path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'index.js'))

/** The `<platform>-<arch>[-<abi>]` of a napi target triple, as napi-rs names npm/ directories and binaries. */
export function abiOf(triple) {
  return parseTriple(triple).platformArchABI
}

/** The binaries (`<binaryName>.<abi>.node`) anywhere under `dir`: abi -> path. */
export function findBinaries(dir, binaryName) {
  const found = new Map()
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.startsWith(`${binaryName}.`) && e.name.endsWith('.node')) found.set(e.name.slice(binaryName.length + 1, -'.node'.length), p)
    }
  }
  walk(dir)
  return found
}

/**
 * 3. The binaries from `artifacts` into the staged npm/<platform>/ directories (napi artifacts), with LICENSE.
 * With onlyBuilt, the staged package.json's napi.targets shrink to the targets that have a binary.
 * Returns the targets released, as {triple, abi}.
 */
export function assemble(dir, artifacts, { onlyBuilt = false } = {}) {
  const pkgPath = path.join(dir, 'package.json')
  const pkg = readJson(pkgPath)
  const binaries = findBinaries(artifacts, pkg.napi.binaryName)
  const targets = pkg.napi.targets.map((triple) => ({ triple, abi: abiOf(triple) }))
  const missing = targets.filter((t) => !binaries.has(t.abi))
  let released = targets
  if (missing.length && !onlyBuilt) {
    throw new Error(`no binary in ${artifacts} for ${missing.map((t) => t.triple).join(', ')} (a release needs all ${targets.length})`)
  }
  if (onlyBuilt) {
    released = targets.filter((t) => binaries.has(t.abi))
    if (released.length === 0) throw new Error(`no binary for any target of package.json napi.targets in ${artifacts}`)
    pkg.napi.targets = released.map((t) => t.triple)
    writeJson(pkgPath, pkg)
    for (const t of missing) fs.rmSync(path.join(dir, 'npm', t.abi), { recursive: true, force: true })
    if (missing.length) log(`--only-built: releasing ${released.map((t) => t.abi).join(', ')}; not built here: ${missing.map((t) => t.abi).join(', ')}`)
  }
  run(process.execPath, [napiCli, 'artifacts', '--cwd', dir, '--output-dir', artifacts, '--npm-dir', 'npm'])
  for (const t of released) {
    fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'npm', t.abi, 'LICENSE'))
    const bin = path.join(dir, 'npm', t.abi, `${pkg.napi.binaryName}.${t.abi}.node`)
    if (!fs.existsSync(bin)) throw new Error(`napi artifacts did not place ${bin}`)
  }
  return released
}

/** What a binary is, from its header: {format, cpu}. */
export function binaryKind(file) {
  const fd = fs.openSync(file, 'r')
  const b = Buffer.alloc(4096)
  fs.readSync(fd, b, 0, b.length, 0)
  fs.closeSync(fd)
  if (b.readUInt32BE(0) === 0x7f454c46) {
    const machine = b.readUInt16LE(18)
    return { format: 'elf', cpu: { 0x3e: 'x64', 0xb7: 'arm64' }[machine] || `e_machine ${machine}` }
  }
  if (b.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = b.readUInt32LE(4)
    return { format: 'mach-o', cpu: { 0x01000007: 'x64', 0x0100000c: 'arm64' }[cpu] || `cputype ${cpu}` }
  }
  if (b.toString('latin1', 0, 2) === 'MZ') {
    const pe = b.readUInt32LE(0x3c)
    const machine = b.readUInt16LE(pe + 4)
    return { format: 'pe', cpu: { 0x8664: 'x64', 0xaa64: 'arm64' }[machine] || `machine ${machine}` }
  }
  return { format: 'unknown', cpu: 'unknown' }
}

/** 4. Each staged binary is of its platform's format and CPU. */
export function checkBinaries(dir, released) {
  const pkg = readJson(path.join(dir, 'package.json'))
  for (const t of released) {
    const [platform, arch] = t.abi.split('-')
    const want = { format: { linux: 'elf', darwin: 'mach-o', win32: 'pe' }[platform], cpu: arch }
    const got = binaryKind(path.join(dir, 'npm', t.abi, `${pkg.napi.binaryName}.${t.abi}.node`))
    if (got.format !== want.format || got.cpu !== want.cpu) {
      throw new Error(`npm/${t.abi}: the binary is ${got.format} ${got.cpu}, expected ${want.format} ${want.cpu}`)
    }
  }
  log(`binaries checked: ${released.map((t) => t.abi).join(', ')}`)
}

/** An environment whose npm publishes to `registry` (when given). */
function registryEnv(registry, env = process.env) {
  return registry ? { ...env, npm_config_registry: registry } : env
}

/** 5. napi prepublish: publishes npm/<platform> packages and writes optionalDependencies into the staged package.json. */
export function publishPlatformPackages(dir, released, { registry, dryRun = false, env } = {}) {
  const args = [napiCli, 'prepublish', '--cwd', dir, '-t', 'npm', '--no-gh-release']
  if (dryRun) args.push('--dry-run')
  run(process.execPath, args, { cwd: dir, env: registryEnv(registry, env) })
  const pkg = readJson(path.join(dir, 'package.json'))
  const want = Object.fromEntries(released.map((t) => [`${pkg.name}-${t.abi}`, pkg.version]))
  const got = pkg.optionalDependencies || {}
  if (!dryRun && JSON.stringify(Object.entries(got).sort()) !== JSON.stringify(Object.entries(want).sort())) {
    throw new Error(`napi prepublish wrote optionalDependencies ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`)
  }
  log(`platform packages ${dryRun ? 'checked (dry run)' : 'published'}: ${Object.keys(want).join(', ')}`)
}

/** 6. The main package, with no lifecycle script (nothing is built). */
export function publishMain(dir, { registry, dryRun = false, env } = {}) {
  const args = ['publish', '--ignore-scripts', '--access', 'public']
  if (dryRun) args.push('--dry-run')
  npm(args, { cwd: dir, env: registryEnv(registry, env) })
  const pkg = readJson(path.join(dir, 'package.json'))
  log(`${pkg.name}@${pkg.version} ${dryRun ? 'packed (dry run)' : 'published'}${registry ? ` to ${registry}` : ''}`)
}

/** Every step, in order. */
export function release({ artifacts, registry, onlyBuilt = false, dryRun = false, env } = {}) {
  checkGenerated()
  const { dir } = stage()
  try {
    const released = assemble(dir, artifacts, { onlyBuilt })
    checkBinaries(dir, released)
    publishPlatformPackages(dir, released, { registry, dryRun, env })
    publishMain(dir, { registry, dryRun, env })
    return released
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      artifacts: { type: 'string' },
      registry: { type: 'string' },
      'only-built': { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      refuse: { type: 'boolean' },
    },
  })
  if (values.refuse) {
    console.error(
      'npm publish from the checkout is refused: it would publish no platform packages.\n' +
        'Publish with node scripts/publish.mjs --artifacts DIR (docs/releasing.md), which runs npm publish --ignore-scripts.',
    )
    process.exit(1)
  }
  if (!values.artifacts) {
    console.error('usage: node scripts/publish.mjs --artifacts DIR [--registry URL] [--only-built] [--dry-run]')
    process.exit(2)
  }
  try {
    release({ artifacts: path.resolve(values.artifacts), registry: values.registry, onlyBuilt: values['only-built'], dryRun: values['dry-run'] })
  } catch (err) {
    console.error(`publish: ${err.message}`)
    process.exit(1)
  }
}
