#!/usr/bin/env node
// The release, rehearsed on this machine against a local registry, then
// installed and used the way a user does, with no Rust toolchain:
//
//  1. build this machine's binary (`npm run build`; cargo does nothing when
//     it is up to date); binaries cross-built by scripts/cross.mjs are added
//     with --artifacts DIR;
//  2. start verdaccio (a devDependency) on 127.0.0.1, its config and storage
//     in a temporary directory: our package names are served only from what
//     is published to it; every other package is proxied from the npm
//     registry this npm uses;
//  3. publish with scripts/publish.mjs's steps, the ones the release job
//     runs (stage what `npm pack` takes, `napi artifacts`, `napi prepublish`,
//     `npm publish --ignore-scripts`), with --only-built: the release covers
//     the targets built here;
//  4. in an empty project, with no cargo or rustc on PATH (a trap that
//     records any call to cargo, rustc or rustup stands in their place):
//     `npm install patch-file-tool`; checks that no install script ran and
//     nothing called the trap, that the package holds every file it must and
//     no binary, and that this platform's package was installed and is the
//     binary that loads; a CommonJS `require`, an ES module `import`, a
//     TypeScript consumer under `tsc --strict`; with the agent SDKs installed
//     beside it, each SDK subpath through `import` and `require` and a
//     `tsc --strict` consumer of them; `npx patch-file-tool --help`;
//     the MCP server started as `npx patch-file-tool` by the MCP SDK's client
//     (initialize, tools/list, a real patch_file call); then `npm ci` from
//     the consumer's lock file, and the package loads again;
//  5. stop verdaccio (also on failure or Ctrl-C) and remove the temporary
//     directory (PFT_REHEARSE_KEEP=1 keeps it).
//
//   npm run release:rehearse                         build here, release this machine's target
//   npm run release:rehearse -- --artifacts DIR      also the binaries under DIR (scripts/cross.mjs's)
//   npm run release:rehearse -- --no-build --artifacts DIR
//                                                    only the binaries under DIR (CI: all eight)
//
// PFT_REHEARSE_BREAK=missing-file|wrong-platform|build-on-install breaks the
// staged package on purpose (a file left out; the platform package marked
// for another OS; an install script that runs cargo) to show the rehearsal
// fails on each. docs/releasing.md lists what each step proves.
import fs from 'node:fs'
import os from 'node:os'
import net from 'node:net'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { createRequire } from 'node:module'
import * as publish from './publish.mjs'
import { CONSUMER_MTS as ADAPTERS_MTS, CONSUMER_CTS as ADAPTERS_CTS, adaptersScript, checkAdaptersRun } from '../__test__/helpers/adapter-consumer.mjs'

const { root, npmCli, run } = publish
const require = createRequire(import.meta.url)
const pkg = require('../package.json')
const { values: opts } = parseArgs({ options: { artifacts: { type: 'string' }, 'no-build': { type: 'boolean' } } })
const BREAK = process.env.PFT_REHEARSE_BREAK || ''
if (BREAK && !['missing-file', 'wrong-platform', 'build-on-install'].includes(BREAK)) {
  console.error(`PFT_REHEARSE_BREAK=${BREAK}: expected missing-file, wrong-platform or build-on-install`)
  process.exit(2)
}
if (process.platform === 'win32') {
  console.error('the rehearsal runs on Linux and macOS (its cargo trap is a shell script)')
  process.exit(2)
}

const t0 = Date.now()
const secs = (t) => ((Date.now() - t) / 1000).toFixed(1)
const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-rehearse-')))
const timings = []
let verdaccio = null

async function step(name, fn) {
  const t = Date.now()
  process.stdout.write(`\n=== rehearse: ${name}\n`)
  const r = await fn()
  timings.push([name, secs(t)])
  process.stdout.write(`--- ok: ${name} (${secs(t)} s)\n`)
  return r
}

function check(cond, msg) {
  if (!cond) throw new Error(`check failed: ${msg}`)
  process.stdout.write(`  ok  ${msg.split('\n')[0]}\n`)
}

const npmJs = npmCli()
const npxJs = path.join(path.dirname(npmJs), 'npx-cli.js')

// ---------------------------------------------------------------------------
// The local registry

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

function npmConfig(key) {
  const r = spawnSync(process.execPath, [npmJs, 'config', 'get', key], { encoding: 'utf8', cwd: os.tmpdir() })
  const v = (r.stdout || '').trim()
  return v && v !== 'undefined' && v !== 'null' ? v : undefined
}

async function startRegistry() {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/`
  const upstream = npmConfig('registry') || 'https://registry.npmjs.org/'
  const dir = path.join(work, 'verdaccio')
  fs.mkdirSync(path.join(dir, 'storage'), { recursive: true })
  const ours = (name) => `  '${name}':\n    access: $all\n    publish: $authenticated\n    unpublish: $authenticated\n`
  const config = `# Written by scripts/release-rehearse.mjs for one run.
storage: ${JSON.stringify(path.join(dir, 'storage'))}
auth:
  htpasswd:
    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}
    max_users: 10
uplinks:
  npmjs:
    url: ${JSON.stringify(upstream)}
    timeout: 60s
    max_fails: 20
packages:
  # Our packages: only what this rehearsal publishes (no uplink).
${ours(pkg.name)}${ours(`${pkg.name}-*`)}  # Everything else (the package's dependencies): proxied from the npm registry.
  '@*/*':
    access: $all
    publish: $authenticated
    proxy: npmjs
  '**':
    access: $all
    publish: $authenticated
    proxy: npmjs
server:
  keepAliveTimeout: 60
web:
  enable: false
middlewares:
  audit:
    enabled: false
log:
  type: stdout
  format: pretty
  level: warn
`
  const configPath = path.join(dir, 'config.yaml')
  fs.writeFileSync(configPath, config)
  const logPath = path.join(dir, 'verdaccio.log')
  const logFd = fs.openSync(logPath, 'a')
  const env = { ...process.env }
  // npm may trust a CA bundle of its own (npm config cafile); verdaccio's uplink must too.
  const cafile = npmConfig('cafile')
  if (cafile && fs.existsSync(cafile)) env.NODE_EXTRA_CA_CERTS = cafile
  const bin = path.join(root, 'node_modules', 'verdaccio', 'bin', 'verdaccio')
  verdaccio = spawn(process.execPath, [bin, '--config', configPath, '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    env,
    stdio: ['ignore', logFd, logFd],
  })
  fs.closeSync(logFd)
  const exited = new Promise((resolve) => verdaccio.once('exit', (code, signal) => resolve(`exited ${code ?? signal}`)))
  const deadline = Date.now() + 60_000
  for (;;) {
    const r = await Promise.race([
      fetch(`${url}-/ping`).then((res) => (res.ok ? 'up' : `HTTP ${res.status}`), () => 'down'),
      exited,
    ])
    if (r === 'up') break
    if (r.startsWith('exited') || Date.now() > deadline) {
      throw new Error(`verdaccio did not start (${r}):\n${fs.readFileSync(logPath, 'utf8').slice(-4000)}`)
    }
    await new Promise((res) => setTimeout(res, 250))
  }
  check(true, `verdaccio ${require('verdaccio/package.json').version} on ${url} (pid ${verdaccio.pid}); other packages from ${upstream}`)

  // A user for publishing (verdaccio's htpasswd: the first PUT creates it and returns a token).
  const user = 'rehearsal'
  const res = await fetch(`${url}-/user/org.couchdb.user:${user}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: user, password: `pw-${process.pid}-${Date.now()}`, type: 'user', roles: [], date: new Date().toISOString() }),
  })
  const body = await res.json()
  if (!res.ok || !body.token) throw new Error(`verdaccio: creating the user failed: HTTP ${res.status} ${JSON.stringify(body)}`)
  const npmrc = path.join(work, 'npmrc')
  fs.writeFileSync(
    npmrc,
    [`registry=${url}`, `//127.0.0.1:${port}/:_authToken=${body.token}`, 'audit=false', 'fund=false', 'update-notifier=false', ''].join('\n'),
  )
  return { url, npmrc, logPath }
}

async function stopRegistry() {
  if (!verdaccio || verdaccio.exitCode !== null || verdaccio.signalCode !== null) return
  const child = verdaccio
  const gone = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const t = setTimeout(() => child.kill('SIGKILL'), 5000)
  await gone
  clearTimeout(t)
  process.stdout.write(`\nverdaccio (pid ${child.pid}) stopped\n`)
}

// Stop the registry whatever happens.
process.on('exit', () => {
  if (verdaccio && verdaccio.exitCode === null && verdaccio.signalCode === null) verdaccio.kill('SIGKILL')
})
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    stopRegistry().finally(() => process.exit(130))
  })
}

// ---------------------------------------------------------------------------
// The consumer's environment: no Rust, our registry, a fresh npm cache

/** Directories of PATH that hold no cargo, rustc or rustup. */
function pathWithoutRust() {
  return (process.env.PATH || '')
    .split(path.delimiter)
    .filter((d) => d && !['cargo', 'rustc', 'rustup'].some((e) => fs.existsSync(path.join(d, e))))
}

function consumerEnv(npmrc) {
  const trap = path.join(work, 'trap')
  const marker = path.join(work, 'trap-called')
  fs.mkdirSync(trap, { recursive: true })
  for (const tool of ['cargo', 'rustc', 'rustup']) {
    const f = path.join(trap, tool)
    fs.writeFileSync(f, `#!/bin/sh\n# The rehearsal's stand-in: a consumer install must never build.\necho "${tool} $*" >> '${marker}'\necho "rehearsal: ${tool} was called ($*): an install must not build" >&2\nexit 1\n`)
    fs.chmodSync(f, 0o755)
  }
  const env = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(CARGO|RUSTUP|RUSTC|RUSTFLAGS|npm_)/i.test(k)) continue
    env[k] = v
  }
  Object.assign(env, {
    PATH: [trap, ...pathWithoutRust()].join(path.delimiter),
    npm_config_userconfig: npmrc,
    npm_config_cache: path.join(work, 'consumer-npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    // The consumer's edits are journaled in a state directory of the
    // rehearsal's own, never in the user's.
    PATCH_FILE_STATE_DIR: path.join(work, 'consumer-state'),
  })
  return { env, marker }
}

// ---------------------------------------------------------------------------

const CONSUMER_TS = `import { patchFile, patchFileSync, PATCH_FILE_ERROR_CODES, schemas } from '${pkg.name}'
import type { PatchFileInput, PatchFileOptions, PatchFileResult, PatchFileErrorCode } from '${pkg.name}'

const input: PatchFileInput = { file_path: 'config.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' }
const options: PatchFileOptions = { workspaceRoot: 'ws' }

export async function main(): Promise<string> {
  const r: PatchFileResult = await patchFile(input, options)
  if (r.ok) return \`\${r.file_path}:\${r.line_number}\`
  const code: PatchFileErrorCode = r.code
  return code === PATCH_FILE_ERROR_CODES.SEARCH_BLOCK_NOT_FOUND ? 'not found' : r.message
}
export const sync: PatchFileResult = patchFileSync(input)
export const toolNames: string[] = Object.keys(schemas)
// @ts-expect-error replace_block is required
export const bad: PatchFileInput = { file_path: 'a', search_block: 'b' }
`

const MCP_CLIENT = `import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
const [npx, ws] = process.argv.slice(2)
// As an MCP client config does: command npx, args [patch-file-tool].
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [npx, '${pkg.name}'],
  env: { ...process.env, PATCH_FILE_WORKSPACE_ROOT: ws, PATCH_FILE_LOG: 'error' },
  stderr: 'inherit',
})
const client = new Client({ name: 'release-rehearsal', version: '1.0.0' })
await client.connect(transport)
const server = client.getServerVersion()
const { tools } = await client.listTools()
const call = await client.callTool({
  name: 'patch_file',
  arguments: { file_path: 'config.ts', search_block: 'retries = 5;', replace_block: 'retries = 6;' },
})
await client.close()
console.log(JSON.stringify({ server, tools: tools.map((t) => ({ name: t.name, hasSchema: !!t.inputSchema })), call }))
`

async function main() {
  const artifacts = path.join(work, 'artifacts')
  fs.mkdirSync(artifacts)

  // 1. Binaries
  const built = await step('build (this machine)', () => {
    if (!opts['no-build']) run(process.execPath, [npmJs, 'run', 'build'])
    // The checkout's own build (npm run build leaves it in the root), unless
    // --no-build was given with --artifacts (CI's rehearsal of all targets).
    const local = fs.readdirSync(root).filter((f) => f.startsWith(`${pkg.napi.binaryName}.`) && f.endsWith('.node'))
    if (!(opts['no-build'] && opts.artifacts)) {
      if (local.length === 0) throw new Error('no patch-file-tool.<platform>.node in the checkout: npm run build')
      for (const f of local) fs.copyFileSync(path.join(root, f), path.join(artifacts, f))
    }
    if (opts.artifacts) {
      for (const [abi, p] of publish.findBinaries(path.resolve(opts.artifacts), pkg.napi.binaryName)) {
        if (pkg.napi.targets.some((t) => publish.abiOf(t) === abi)) fs.copyFileSync(p, path.join(artifacts, path.basename(p)))
      }
    }
    const abis = [...publish.findBinaries(artifacts, pkg.napi.binaryName).keys()]
    check(abis.length > 0, `binaries to release: ${abis.join(', ')}`)
    return abis
  })
  const hostAbi = require('../js/native.js').hostTarget()?.abi
  if (!hostAbi || !built.includes(hostAbi)) throw new Error(`this machine's platform (${hostAbi || 'unsupported'}) has no binary to install`)

  // 2. Registry
  const reg = await step('local registry', startRegistry)
  const publishEnv = { ...process.env, npm_config_userconfig: reg.npmrc }
  for (const k of Object.keys(publishEnv)) if (/^npm_config_(registry|_auth|_authtoken)/i.test(k)) delete publishEnv[k]

  // 3. Publish, as the release does
  let stagedFiles
  let released
  await step('publish (scripts/publish.mjs steps, npm publish --ignore-scripts)', () => {
    publish.checkGenerated()
    const { dir, files } = publish.stage(path.join(work, 'stage'))
    stagedFiles = files
    if (BREAK === 'missing-file') {
      fs.rmSync(path.join(dir, 'index.mjs'))
      process.stdout.write('  BREAK: index.mjs left out of the package\n')
    }
    released = publish.assemble(dir, artifacts, { onlyBuilt: true })
    publish.checkBinaries(dir, released)
    if (BREAK === 'wrong-platform') {
      const p = path.join(dir, 'npm', hostAbi, 'package.json')
      fs.writeFileSync(p, JSON.stringify({ ...JSON.parse(fs.readFileSync(p, 'utf8')), os: ['aix'] }, null, 2))
      process.stdout.write(`  BREAK: npm/${hostAbi} marked os: aix\n`)
    }
    publish.publishPlatformPackages(dir, released, { registry: reg.url, env: publishEnv })
    if (BREAK === 'build-on-install') {
      const p = path.join(dir, 'package.json')
      const j = JSON.parse(fs.readFileSync(p, 'utf8'))
      j.scripts = { ...j.scripts, install: 'cargo build --release' }
      fs.writeFileSync(p, JSON.stringify(j, null, 2))
      process.stdout.write('  BREAK: an install script that runs cargo\n')
    }
    publish.publishMain(dir, { registry: reg.url, env: publishEnv })
  })

  // 4. The consumer
  const app = path.join(work, 'consumer')
  fs.mkdirSync(app)
  const { env, marker } = consumerEnv(reg.npmrc)
  const inApp = (cmd, args, extra = {}) => {
    const r = spawnSync(cmd, args, { cwd: app, env, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 300_000, ...extra })
    if (r.error) throw r.error
    return r
  }
  const ok = (r, what) => {
    if (r.status !== 0) throw new Error(`${what} exited ${r.status ?? r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`)
    return r.stdout
  }
  const npmInApp = (args) => ok(inApp(process.execPath, [npmJs, ...args]), `npm ${args.join(' ')}`)
  const installed = path.join(app, 'node_modules', pkg.name)
  const platformDir = path.join(app, 'node_modules', `${pkg.name}-${hostAbi}`)

  await step('consumer environment: no Rust toolchain', () => {
    const probe = inApp('sh', ['-c', 'command -v cargo; command -v rustc; cargo --version'])
    check(probe.status !== 0 && probe.stdout.split('\n').filter(Boolean).every((l) => l.startsWith(path.join(work, 'trap'))), 'cargo and rustc on PATH are only the trap, and it fails')
    fs.rmSync(marker, { force: true })
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'rehearsal-consumer', version: '1.0.0', private: true }, null, 2) + '\n')
  })

  const noBuild = (out, what) => {
    check(!fs.existsSync(marker), `${what}: nothing called cargo, rustc or rustup${fs.existsSync(marker) ? `:\n${fs.readFileSync(marker, 'utf8')}` : ''}`)
    const scripts = out.split('\n').filter((l) => l.startsWith(`> ${pkg.name}`))
    check(scripts.length === 0, `${what}: no lifecycle script of ${pkg.name} ran${scripts.length ? `: ${scripts.join('; ')}` : ''}`)
  }

  const checkInstalled = () => {
    const ipkg = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'))
    check(ipkg.version === pkg.version, `installed ${pkg.name}@${ipkg.version}`)
    const must = [
      'package.json', 'LICENSE', 'README.md', 'index.js', 'index.mjs', 'index.d.ts', 'binding.js',
      ...fs.readdirSync(path.join(root, 'js')).map((f) => `js/${f}`),
      ...fs.readdirSync(path.join(root, 'bin')).map((f) => `bin/${f}`),
      ...fs.readdirSync(path.join(root, 'schemas')).map((f) => `schemas/${f}`),
      ...stagedFiles,
    ]
    const lacking = [...new Set(must)].filter((f) => !fs.existsSync(path.join(installed, f)))
    check(lacking.length === 0, `the installed package has every file (${new Set(must).size})${lacking.length ? `; missing: ${lacking.join(', ')}` : ''}`)
    const nodes = []
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory() && e.name !== 'node_modules') walk(path.join(d, e.name))
        else if (e.name.endsWith('.node')) nodes.push(path.join(d, e.name))
      }
    }
    walk(installed)
    check(nodes.length === 0, `no binary in the main package${nodes.length ? `: ${nodes.join(', ')}` : ''}`)
    const bin = path.join(platformDir, `${pkg.napi.binaryName}.${hostAbi}.node`)
    check(fs.existsSync(bin), `the platform package ${pkg.name}-${hostAbi} was picked and holds its binary`)
    const others = built.filter((a) => a !== hostAbi && fs.existsSync(path.join(app, 'node_modules', `${pkg.name}-${a}`)))
    check(others.length === 0, `no other platform's package was installed${others.length ? `: ${others.join(', ')}` : ''}`)
  }

  const loads = (what) => {
    fs.writeFileSync(path.join(app, 'ws', 'config.ts'), 'export const retries = 2;\n')
    const script = `const api = require('${pkg.name}')
const r = api.patchFileSync({ file_path: 'config.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' }, { workspaceRoot: 'ws' })
const natives = Object.keys(require.cache).filter((k) => k.endsWith('.node'))
console.log(JSON.stringify({ r, natives, frozen: Object.isFrozen(api.PATCH_FILE_ERROR_CODES) }))`
    const out = JSON.parse(ok(inApp(process.execPath, ['-e', script]), 'CommonJS require'))
    check(out.r.ok === true && out.r.replacements === 1, `${what}: CommonJS require patches a file (${JSON.stringify(out.r.ok)})`)
    check(
      out.natives.length === 1 && out.natives[0] === fs.realpathSync(path.join(platformDir, `${pkg.napi.binaryName}.${hostAbi}.node`)),
      `${what}: the binary loaded is the platform package's: ${out.natives.join(', ')}`,
    )
    check(fs.readFileSync(path.join(app, 'ws', 'config.ts'), 'utf8') === 'export const retries = 3;\n', `${what}: the file on disk changed`)
  }

  await step(`npm install ${pkg.name} (from the local registry)`, () => {
    const r = inApp(process.execPath, [npmJs, 'install', `${pkg.name}@${pkg.version}`, '--foreground-scripts'])
    noBuild(r.stdout + r.stderr, 'npm install')
    ok(r, `npm install ${pkg.name}`)
    fs.mkdirSync(path.join(app, 'ws'))
    checkInstalled()
    const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8'))
    for (const abi of built) {
      const entry = lock.packages[`node_modules/${pkg.name}-${abi}`]
      check(entry && entry.optional === true && entry.version === pkg.version, `the lock file records the optional ${pkg.name}-${abi}@${pkg.version}`)
    }
  })

  await step('CommonJS require (prebuilt binary)', () => loads('install'))

  await step('ES module import', () => {
    fs.writeFileSync(path.join(app, 'ws', 'config.ts'), 'export const retries = 3;\n')
    fs.writeFileSync(
      path.join(app, 'esm.mjs'),
      `import { patchFile, PATCH_FILE_ERROR_CODES, schemas } from '${pkg.name}'
import api from '${pkg.name}'
const r = await patchFile({ filePath: 'config.ts', searchBlock: 'retries = 3;', replaceBlock: 'retries = 4;' }, { workspaceRoot: 'ws' })
const miss = await patchFile({ file_path: 'config.ts', search_block: 'nowhere', replace_block: 'x' }, { workspaceRoot: 'ws' })
console.log(JSON.stringify({ ok: r.ok, miss: miss.code === PATCH_FILE_ERROR_CODES.SEARCH_BLOCK_NOT_FOUND, same: api.patchFile === patchFile, tools: Object.keys(schemas).length }))
`,
    )
    const out = JSON.parse(ok(inApp(process.execPath, ['esm.mjs']), 'ESM import'))
    check(out.ok && out.miss && out.same, `import: patchFile applied, a miss is SEARCH_BLOCK_NOT_FOUND, default and named exports agree (${JSON.stringify(out)})`)
    check(fs.readFileSync(path.join(app, 'ws', 'config.ts'), 'utf8') === 'export const retries = 4;\n', 'import: the file on disk changed')
  })

  await step('TypeScript consumer (tsc --strict)', () => {
    fs.writeFileSync(path.join(app, 'consumer.mts'), CONSUMER_TS)
    fs.writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [], skipLibCheck: false }, files: ['consumer.mts'] }),
    )
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    ok(inApp(process.execPath, [tsc, '-p', '.']), 'tsc --strict')
    check(true, 'consumer.mts type-checks against the installed index.d.ts')
    fs.writeFileSync(path.join(app, 'broken.mts'), `import { patchFile } from '${pkg.name}'\nvoid patchFile({ file_path: 'a', search_block: 1, replace_block: 'c' })\n`)
    const bad = inApp(process.execPath, [tsc, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'broken.mts'])
    check(bad.status !== 0 && /broken\.mts\(2,/.test(bad.stdout), 'tsc rejects a wrong call (the types are really checked)')
  })

  await step('agent SDK subpaths (import, require, tsc --strict) with the SDKs installed beside the package', () => {
    // The SDKs a user installs (the package's optional peers), at the versions the repository tests.
    const lock = require('../package-lock.json')
    const sdks = Object.keys(pkg.peerDependencies).map((n) => `${n}@${lock.packages[`node_modules/${n}`].version}`)
    const r = inApp(process.execPath, [npmJs, 'install', ...sdks, '--foreground-scripts'])
    noBuild(r.stdout + r.stderr, 'npm install the SDKs')
    ok(r, `npm install ${sdks.join(' ')}`)
    fs.writeFileSync(path.join(app, 'adapters.mjs'), adaptersScript('import'))
    fs.writeFileSync(path.join(app, 'adapters.cjs'), adaptersScript('require'))
    for (const script of ['adapters.mjs', 'adapters.cjs']) {
      fs.writeFileSync(path.join(app, 'ws', 'adapters.txt'), 'v0\n')
      const out = JSON.parse(ok(inApp(process.execPath, [script]), script).trim().split('\n').pop())
      checkAdaptersRun(out, fs.readFileSync(path.join(app, 'ws', 'adapters.txt'), 'utf8'), script)
      check(true, `${script}: ${pkg.name}/ai-sdk, /openai-agents, /langchain and /anthropic edit a file, a stale edit fails with its code, one native engine`)
    }
    fs.writeFileSync(path.join(app, 'adapters-consumer.mts'), ADAPTERS_MTS)
    fs.writeFileSync(path.join(app, 'adapters-consumer.cts'), ADAPTERS_CTS)
    // The SDKs' own declaration files are not the package's to check (skipLibCheck, as tsc --init sets it).
    const compilerOptions = { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [], skipLibCheck: true }
    fs.writeFileSync(path.join(app, 'tsconfig.adapters.json'), JSON.stringify({ compilerOptions, files: ['adapters-consumer.mts', 'adapters-consumer.cts'] }))
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    ok(inApp(process.execPath, [tsc, '-p', 'tsconfig.adapters.json']), 'tsc --strict (adapters)')
    check(true, 'an ES module and a CommonJS consumer of the four subpaths type-check against the installed types and the SDKs\' own')
  })

  await step(`npx ${pkg.name} --help`, () => {
    const help = ok(inApp(process.execPath, [npxJs, pkg.name, '--help']), 'npx --help')
    check(help.includes(`${pkg.name} ${pkg.version}`) && /Exit codes:/.test(help), `npx ${pkg.name} --help prints the usage of ${pkg.version}`)
    const version = ok(inApp(process.execPath, [npxJs, pkg.name, '--version']), 'npx --version').trim()
    check(version === pkg.version, `npx ${pkg.name} --version: ${version}`)
  })

  await step('MCP server (npx patch-file-tool) through the MCP SDK client', () => {
    fs.writeFileSync(path.join(app, 'ws', 'config.ts'), 'export const retries = 5;\n')
    fs.writeFileSync(path.join(app, 'mcp-client.mjs'), MCP_CLIENT)
    const out = JSON.parse(ok(inApp(process.execPath, ['mcp-client.mjs', npxJs, path.join(app, 'ws')]), 'MCP client').trim().split('\n').pop())
    check(out.server.name === pkg.name && out.server.version === pkg.version, `initialize: serverInfo ${out.server.name} ${out.server.version}`)
    const want = require('../js/tools.js').DEFAULT_TOOLS
    const names = out.tools.map((t) => t.name)
    check(JSON.stringify(names) === JSON.stringify(want) && out.tools.every((t) => t.hasSchema), `tools/list: the ${names.length} default tools, each with its input schema`)
    const sc = JSON.parse(out.call.content[0].text)
    // The server's compact result: the file relative to the root, where the edit landed, the new sha256.
    check(
      out.call.isError === false && sc.ok === true && sc.file_path === 'config.ts' && sc.line_number === 1 && /^[0-9a-f]{64}$/.test(sc.sha256),
      `tools/call patch_file: ok, ${sc.file_path} line ${sc.line_number}`,
    )
    check(fs.readFileSync(path.join(app, 'ws', 'config.ts'), 'utf8') === 'export const retries = 6;\n', 'the MCP call changed the file on disk')
  })

  await step("consumer's npm ci (from its lock file)", () => {
    fs.rmSync(path.join(app, 'node_modules'), { recursive: true })
    const r = inApp(process.execPath, [npmJs, 'ci', '--foreground-scripts'])
    noBuild(r.stdout + r.stderr, 'npm ci')
    ok(r, 'npm ci')
    checkInstalled()
    loads('npm ci')
  })
}

let failed = null
try {
  await main()
} catch (err) {
  failed = err
} finally {
  await stopRegistry()
  if (process.env.PFT_REHEARSE_KEEP || failed) process.stdout.write(`work directory kept: ${work}\n`)
  if (!process.env.PFT_REHEARSE_KEEP && !failed) fs.rmSync(work, { recursive: true, force: true })
}
process.stdout.write(`\n${timings.map(([n, s]) => `  ${s.padStart(6)} s  ${n}`).join('\n')}\n`)
if (failed) {
  process.stdout.write(`\nrelease rehearsal FAILED after ${secs(t0)} s${BREAK ? ` (PFT_REHEARSE_BREAK=${BREAK})` : ''}:\n${failed.stack || failed}\n`)
  process.exit(1)
}
process.stdout.write(`\nrelease rehearsal passed in ${secs(t0)} s\n`)
