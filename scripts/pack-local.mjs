#!/usr/bin/env node
// `npm run pack:local`: a tarball of this package with this machine's native
// engine inside, to install where there is no Rust and no release to install
// from (another project, another machine of the same platform, a container).
//
// A plain `npm pack` ships no binary: a release brings it as a per-platform
// package (scripts/publish.mjs), so the tarball installs and then throws
// NATIVE_ENGINE_UNAVAILABLE. Here the binary goes into the main package, next
// to binding.js, where napi-rs's loader looks first; nothing else changes
// (no optionalDependencies, no install script: installing builds nothing).
//
//   npm run pack:local                     build (cargo does nothing when up to date), then pack
//   npm run pack:local -- --no-build       pack the binary already built
//   npm run pack:local -- --out DIR        write the tarball into DIR (default: the checkout)
//
// The tarball is named patch-file-tool-<version>-<platform>.tgz; install it
// with `npm install /path/to/that.tgz`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import * as publish from './publish.mjs'

const { root, npmCli, run } = publish
const require = createRequire(import.meta.url)
const pkg = require('../package.json')
const native = require('../js/native.js')

function log(msg) {
  process.stdout.write(`pack:local: ${msg}\n`)
}

/** The binary of this machine in the checkout: {abi, file}. */
function hostBinary() {
  const built = native.localBinaries(root)
  const target = native.hostTarget()
  const abi = target ? target.abi : built.length === 1 ? built[0] : undefined
  if (!abi || !built.includes(abi)) {
    const want = target ? `${pkg.napi.binaryName}.${target.abi}.node` : `a ${pkg.napi.binaryName}.<platform>.node`
    throw new Error(`no ${want} in ${root}: build it first (npm run build)${built.length ? `; found only ${built.join(', ')}` : ''}`)
  }
  const file = path.join(root, `${pkg.napi.binaryName}.${abi}.node`)
  if (target) {
    const want = { format: { linux: 'elf', darwin: 'mach-o', win32: 'pe' }[target.platform], cpu: target.arch }
    const got = publish.binaryKind(file)
    if (got.format !== want.format || got.cpu !== want.cpu) {
      throw new Error(`${path.basename(file)} is ${got.format} ${got.cpu}, not a binary for this machine (${want.format} ${want.cpu}): rebuild it (npm run build)`)
    }
  }
  return { abi, file }
}

/** Packs the package with this machine's binary into `out`; returns the tarball's path. */
export function packLocal({ out = root, build = true } = {}) {
  if (build) run(process.execPath, [npmCli(), 'run', 'build'])
  const { abi, file } = hostBinary()
  const stageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-pack-local-'))
  try {
    const { dir } = publish.stage(stageDir)
    fs.rmSync(path.join(dir, 'npm'), { recursive: true, force: true })
    const name = path.basename(file)
    fs.copyFileSync(file, path.join(dir, name))
    const manifestPath = path.join(dir, 'package.json')
    const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'))
    manifest.files = [...manifest.files, name]
    fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n')
    const tmpOut = path.join(stageDir, 'out')
    fs.mkdirSync(tmpOut)
    const json = run(process.execPath, [npmCli(), 'pack', '--ignore-scripts', '--json', '--pack-destination', tmpOut], { cwd: dir, capture: true })
    const info = JSON.parse(json.slice(json.indexOf('[')))[0]
    if (!info.files.some((f) => f.path === name)) throw new Error(`npm pack left ${name} out`)
    fs.mkdirSync(out, { recursive: true })
    const tarball = path.join(out, `${pkg.name}-${pkg.version}-${abi}.tgz`)
    fs.copyFileSync(path.join(tmpOut, info.filename), tarball)
    log(`${tarball} (${info.files.length} files, ${(fs.statSync(tarball).size / 1024).toFixed(0)} KiB, with ${name})`)
    log(`install it with: npm install ${tarball}`)
    return tarball
  } finally {
    fs.rmSync(stageDir, { recursive: true, force: true })
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'no-build': { type: 'boolean' } } })
  try {
    packLocal({ out: values.out ? path.resolve(values.out) : root, build: !values['no-build'] })
  } catch (err) {
    console.error(`pack:local: ${err.message}`)
    process.exit(1)
  }
}
