// The published shape of the package, tested the way a user gets it:
//
// 1. `npm pack` the package; run `napi prepublish` on a copy of its files (as the
//    publish job does) and check it wires every `npm/<platform>` package as an
//    optional dependency; pack that again: this is the tarball npm would publish.
// 2. Stage this machine's `npm/<platform>` package with the built addon and pack it.
// 3. Install both tarballs into a fresh project, offline, with no Rust on PATH,
//    then `import` and `require` the package there and patch a real file.
// 4. Type-check a TypeScript consumer against the installed `index.d.ts` with
//    `tsc --strict`, including `@ts-expect-error` lines that prove wrong inputs
//    are rejected by the types.
// 5. With the agent SDKs installed beside it (the package's optional peers),
//    use each SDK subpath through `import` and `require`, and type-check a
//    consumer of them against the SDKs' own types.
//
// Needs the addon built (`npm run build`) and the dependencies installed
// (`npm install` fills npm's cache, which the offline install reads; the
// package's runtime dependencies are pinned from the repository's lockfile).
import './helpers/private-state.mjs'
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { CONSUMER_MTS as ADAPTERS_MTS, CONSUMER_CTS as ADAPTERS_CTS, adaptersScript, checkAdaptersRun } from './helpers/adapter-consumer.mjs'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'))
const binaryName = pkg.napi.binaryName
const win = process.platform === 'win32'

/** The `npm` CLI as a script run by this node (no shell needed anywhere). */
function npmCli() {
  const candidates = [
    process.env.npm_execpath,
    path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ]
  const found = candidates.find((c) => c && /npm-cli\.js$/.test(c) && fs.existsSync(c))
  assert.ok(found, `npm-cli.js not found among ${candidates.join(', ')}`)
  return found
}

/** PATH without any directory that holds cargo or rustc. */
function pathWithoutRust() {
  const exe = win ? ['cargo.exe', 'rustc.exe'] : ['cargo', 'rustc']
  return (process.env.PATH || '')
    .split(path.delimiter)
    .filter((d) => d && !exe.some((e) => fs.existsSync(path.join(d, e))))
    .join(path.delimiter)
}

/** The environment of the consumer: no Rust (npm settings such as its cache are kept). */
function consumerEnv() {
  const env = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(CARGO|RUSTUP|RUSTC)/i.test(k)) continue
    env[k] = v
  }
  env.PATH = pathWithoutRust()
  env.npm_config_audit = 'false'
  env.npm_config_fund = 'false'
  env.npm_config_update_notifier = 'false'
  return env
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts })
  const out = `${cmd} ${args.join(' ')}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`
  assert.equal(r.error, undefined, `${out}\n${r.error}`)
  assert.equal(r.status, 0, out)
  return r.stdout
}

const npm = (args, opts) => run(process.execPath, [npmCli(), ...args], opts)

/** Packs `dir` into `dest` without running lifecycle scripts; returns the tarball path. */
function pack(dir, dest, env) {
  const out = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dest], { cwd: dir, env })
  const info = JSON.parse(out.slice(out.indexOf('[')))
  return { tarball: path.join(dest, info[0].filename), files: info[0].files.map((f) => f.path) }
}

/** Copies the files `npm pack` listed from the repo into `dest` (the tarball's content). */
function stage(files, dest) {
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dest, f)), { recursive: true })
    fs.copyFileSync(path.join(repo, f), path.join(dest, f))
  }
  return dest
}

/**
 * The lock file keys (`node_modules/...`) of `roots` and everything they need
 * (dependencies, optional and peer dependencies present in the lock),
 * resolved the way Node does: the nearest node_modules up the tree.
 */
function lockClosure(packages, roots) {
  const found = new Set()
  const resolve = (from, name) => {
    for (let dir = from; ; ) {
      const key = `${dir ? `${dir}/` : ''}node_modules/${name}`
      if (packages[key]) return key
      if (!dir) return null
      const i = dir.lastIndexOf('/node_modules/')
      dir = i === -1 ? '' : dir.slice(0, i)
    }
  }
  const visit = (key) => {
    if (!key || found.has(key)) return
    found.add(key)
    const e = packages[key]
    for (const d of Object.keys({ ...e.dependencies, ...e.optionalDependencies, ...e.peerDependencies })) visit(resolve(key, d))
  }
  for (const r of roots) visit(resolve('', r))
  return found
}

const state = {}

/**
 * A fresh project in the temp directory with `dependencies`, installed offline
 * without Rust on PATH. The package's own runtime dependencies are pinned by a
 * lockfile made from the repository's (its non-dev entries), so that the
 * offline install finds every tarball in npm's cache, which `npm ci` in the
 * checkout filled. Returns {dir, out}: the project's directory and npm's output.
 */
function installOffline(name, dependencies) {
  const app = path.join(state.tmp, name)
  fs.mkdirSync(app)
  const manifest = { name: `consumer-${name}`, version: '1.0.0', private: true, dependencies }
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(manifest, null, 2))
  const repoLock = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8'))
  const packages = { '': { name: manifest.name, version: manifest.version, dependencies } }
  for (const [k, v] of Object.entries(repoLock.packages)) if (k && !v.dev && !v.devOptional) packages[k] = v
  fs.writeFileSync(
    path.join(app, 'package-lock.json'),
    JSON.stringify({ name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages }, null, 2),
  )
  const out = npm(['install', '--offline', '--no-audit', '--no-fund', '--foreground-scripts'], { cwd: app, env: state.env })
  return { dir: app, out }
}

before(() => {
  const addon = fs.readdirSync(repo).find((f) => f.startsWith(`${binaryName}.`) && f.endsWith('.node'))
  assert.ok(addon, 'the addon is built (npm run build)')
  state.abi = addon.slice(binaryName.length + 1, -'.node'.length)
  state.addon = path.join(repo, addon)
  state.tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-pack-')))
  state.env = consumerEnv()
  // npm's own logs go to the temp directory too, not to ~/.npm/_logs.
  state.env.npm_config_logs_dir = path.join(state.tmp, 'npm-logs')
  const r = spawnSync(win ? 'cargo.exe' : 'cargo', ['--version'], { env: state.env })
  assert.ok(r.error && r.error.code === 'ENOENT', 'cargo is not reachable from the consumer environment')
})

after(() => {
  if (state.tmp) fs.rmSync(state.tmp, { recursive: true, force: true })
})

test('npm pack ships the JS entry points, the generated types with the hand-written ones, the schemas, and no addon', () => {
  const dest = path.join(state.tmp, 'plain')
  fs.mkdirSync(dest)
  const { tarball, files } = pack(repo, dest, state.env)
  state.plainTarball = tarball
  state.plainFiles = files
  for (const f of ['package.json', 'index.js', 'index.mjs', 'index.d.ts', 'binding.js', 'schemas/patch_file.schema.json']) {
    assert.ok(files.includes(f), `tarball has ${f}: ${files.join(', ')}`)
  }
  assert.ok(!files.some((f) => f.endsWith('.node')), 'no native addon in the main package')
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('target/') || f.startsWith('__test__/')), 'no sources or tests')
  const dts = fs.readFileSync(path.join(repo, 'index.d.ts'), 'utf8')
  for (const t of ['PatchFileInput', 'PatchFileOptions', 'PatchFileResult', 'PatchFileSuccess', 'PatchFileFailure', 'PatchFileErrorCode', 'PatchFileSchema']) {
    assert.match(dts, new RegExp(`export (type|interface) ${t}\\b`), `index.d.ts exports ${t}`)
  }
  // Generic over the dry-run flag: `patchFile<D extends boolean = false>(`.
  assert.match(dts, /export declare function patchFile(<[^>]*>)?\(/)
  assert.match(dts, /export declare function patchFileSync(<[^>]*>)?\(/)
  assert.match(dts, /PATCH_FILE_ERROR_CODES/)
})

test('npm pack ships only what users need: the entry points, js/, bin/, schemas/, LICENSE and README', () => {
  assert.ok(state.plainFiles, 'packed')
  const allowed = [
    /^package\.json$/,
    /^README\.md$/,
    /^LICENSE$/,
    /^index\.(js|mjs|d\.ts)$/,
    /^binding\.js$/,
    /^js\/[\w-]+\.js$/,
    /^js\/tools\.json$/,
    /^js\/adapters\/[\w-]+\.(js|mjs|d\.ts|d\.mts)$/,
    /^bin\/[\w-]+\.js$/,
    /^schemas\/\w+\.schema\.json$/,
    // Their strict variants (scripts/gen-strict-schemas.mjs).
    /^schemas\/strict\/\w+\.json$/,
    // The result contract: the MCP server's output schemas are made from it (js/output-schemas.js).
    /^schemas\/results\.json$/,
  ]
  const extra = state.plainFiles.filter((f) => !allowed.some((re) => re.test(f)))
  assert.deepEqual(extra, [], `files a user does not need: ${extra.join(', ')}`)
  for (const dir of ['js', 'bin', 'schemas']) {
    for (const f of fs.readdirSync(path.join(repo, dir), { recursive: true })) {
      if (fs.statSync(path.join(repo, dir, f)).isDirectory()) continue
      assert.ok(state.plainFiles.includes(`${dir}/${f.split(path.sep).join('/')}`), `the tarball has ${dir}/${f}`)
    }
  }
  // Every entry point package.json exports ships, types included.
  for (const target of Object.values(pkg.exports).flatMap(function targets(t) { return typeof t === 'string' ? [t] : Object.values(t).flatMap(targets) })) {
    if (target.includes('*')) continue
    assert.ok(state.plainFiles.includes(target.replace(/^\.\//, '')), `the tarball has ${target}`)
  }
  assert.ok(state.plainFiles.includes('LICENSE'), 'LICENSE ships')
  assert.equal(pkg.license, 'MIT')
  assert.match(fs.readFileSync(path.join(repo, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) \d{4} patch-file-tool\n/)
  for (const key of ['repository', 'homepage', 'bugs']) assert.ok(pkg[key], `package.json has ${key}`)
  assert.ok(!pkg.scripts.install && !pkg.scripts.preinstall && !pkg.scripts.postinstall, 'no install script: a registry install never builds')
})

test('engines.node admits no Node version that a runtime dependency (in the lock file) refuses', () => {
  const semver = createRequire(path.join(repo, 'package.json'))('semver')
  const lock = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8'))
  const refused = []
  for (const [k, v] of Object.entries(lock.packages)) {
    if (!k || v.dev || v.devOptional || !v.engines || typeof v.engines.node !== 'string') continue
    if (!semver.subset(pkg.engines.node, v.engines.node)) refused.push(`${k.replace(/^.*node_modules\//, '')}@${v.version} needs node ${v.engines.node}`)
  }
  assert.deepEqual(refused, [], `engines.node is ${pkg.engines.node}`)
  for (const d of fs.readdirSync(path.join(repo, 'npm'))) {
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(repo, 'npm', d, 'package.json'), 'utf8')).engines, pkg.engines, `npm/${d} engines`)
  }
})

test('every napi target has an npm/<platform> package matching the root name and version', () => {
  const dirs = fs.readdirSync(path.join(repo, 'npm')).sort()
  assert.equal(dirs.length, pkg.napi.targets.length, `one npm dir per target: ${dirs.join(', ')}`)
  for (const d of dirs) {
    const p = JSON.parse(fs.readFileSync(path.join(repo, 'npm', d, 'package.json'), 'utf8'))
    assert.equal(p.name, `${pkg.name}-${d}`)
    assert.equal(p.version, pkg.version, `${d} version follows the root package`)
    assert.equal(p.main, `${binaryName}.${d}.node`)
    assert.deepEqual(p.files, [`${binaryName}.${d}.node`])
    assert.ok(Array.isArray(p.os) && p.os.length === 1 && d.startsWith(p.os[0]), `${d} os`)
    assert.ok(Array.isArray(p.cpu) && p.cpu.length === 1 && d.includes(p.cpu[0]), `${d} cpu`)
    if (d.includes('-gnu')) assert.deepEqual(p.libc, ['glibc'])
    if (d.includes('-musl')) assert.deepEqual(p.libc, ['musl'])
  }
  // The loader asks for exactly these package names.
  const loader = fs.readFileSync(path.join(repo, 'binding.js'), 'utf8')
  for (const d of dirs) assert.ok(loader.includes(`'${pkg.name}-${d}'`), `binding.js loads ${pkg.name}-${d}`)
})

test('napi prepublish wires every platform package as an optionalDependency of the published package.json', () => {
  assert.ok(state.plainFiles, 'packed')
  const root = stage(state.plainFiles, path.join(state.tmp, 'publish'))
  fs.cpSync(path.join(repo, 'npm'), path.join(root, 'npm'), { recursive: true })
  // prepublish checks each platform package holds its binary; CI downloads
  // them all, here only this machine's is real and the others are stand-ins.
  for (const d of fs.readdirSync(path.join(root, 'npm'))) {
    const bin = path.join(root, 'npm', d, `${binaryName}.${d}.node`)
    if (d === state.abi) fs.copyFileSync(state.addon, bin)
    else fs.writeFileSync(bin, 'stand-in for the CI-built binary')
  }
  const napi = path.join(repo, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
  run(process.execPath, [napi, 'prepublish', '-t', 'npm', '--no-gh-release', '--skip-optional-publish'], { cwd: root, env: state.env })
  const published = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const expected = Object.fromEntries(fs.readdirSync(path.join(repo, 'npm')).map((d) => [`${pkg.name}-${d}`, pkg.version]))
  assert.deepEqual(published.optionalDependencies, expected)
  fs.rmSync(path.join(root, 'npm'), { recursive: true })
  const dest = path.join(state.tmp, 'published')
  fs.mkdirSync(dest)
  state.publishedTarball = pack(root, dest, state.env).tarball
})

test('installed offline into a fresh project without Rust, the package works through import and require', () => {
  assert.ok(state.publishedTarball, 'published tarball packed')
  // This machine's platform package, as CI would publish it.
  const platDir = path.join(state.tmp, 'platform-src')
  fs.cpSync(path.join(repo, 'npm', state.abi), platDir, { recursive: true })
  fs.copyFileSync(state.addon, path.join(platDir, path.basename(state.addon)))
  const platDest = path.join(state.tmp, 'platform')
  fs.mkdirSync(platDest)
  const plat = pack(platDir, platDest, state.env)
  assert.deepEqual(plat.files.sort(), ['README.md', path.basename(state.addon), 'package.json'].sort())

  const app = path.join(state.tmp, 'app')
  fs.mkdirSync(app)
  // The consumer also installs the agent SDKs (the package's optional peers), at the versions the repository tests.
  const repoLock = JSON.parse(fs.readFileSync(path.join(repo, 'package-lock.json'), 'utf8'))
  const sdks = Object.fromEntries(Object.keys(pkg.peerDependencies).map((n) => [n, repoLock.packages[`node_modules/${n}`].version]))
  const dependencies = { [pkg.name]: `file:${state.publishedTarball}`, [`${pkg.name}-${state.abi}`]: `file:${plat.tarball}`, ...sdks }
  const manifest = { name: 'consumer-app', version: '1.0.0', private: true, dependencies }
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(manifest, null, 2))
  // The package's own runtime dependencies and the SDKs with theirs are pinned
  // by a lockfile made from the repository's (its non-dev entries, and the
  // SDKs' dependency closure), so that the offline install finds every
  // tarball in npm's cache, which `npm install` in the checkout filled.
  const packages = { '': { name: manifest.name, version: manifest.version, dependencies } }
  for (const [k, v] of Object.entries(repoLock.packages)) if (k && !v.dev && !v.devOptional) packages[k] = v
  for (const k of lockClosure(repoLock.packages, Object.keys(sdks))) {
    const { dev, devOptional, peer, ...entry } = repoLock.packages[k]
    packages[k] = entry
  }
  fs.writeFileSync(
    path.join(app, 'package-lock.json'),
    JSON.stringify({ name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages }, null, 2),
  )
  npm(['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app, env: state.env })
  const installed = path.join(app, 'node_modules', pkg.name)
  assert.ok(fs.existsSync(path.join(installed, 'index.js')))
  assert.ok(!fs.readdirSync(installed).some((f) => f.endsWith('.node')), 'the addon comes from the platform package')
  assert.ok(fs.existsSync(path.join(app, 'node_modules', `${pkg.name}-${state.abi}`, path.basename(state.addon))))

  const ws = path.join(app, 'ws')
  fs.mkdirSync(ws)
  fs.writeFileSync(path.join(ws, 'config.ts'), 'export const retries = 2;\n')
  fs.writeFileSync(
    path.join(app, 'esm.mjs'),
    `import { patchFile, patchFileSync, PATCH_FILE_ERROR_CODES, patchFileSchema } from '${pkg.name}'
const r = await patchFile({ file_path: 'config.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' }, { workspaceRoot: 'ws' })
const again = patchFileSync({ filePath: 'config.ts', searchBlock: 'retries = 2;', replaceBlock: 'x' }, { workspaceRoot: 'ws' })
console.log(JSON.stringify({ r, again, notFound: PATCH_FILE_ERROR_CODES.SEARCH_BLOCK_NOT_FOUND, schema: patchFileSchema.name }))
`,
  )
  fs.writeFileSync(
    path.join(app, 'cjs.cjs'),
    `const api = require('${pkg.name}')
const r = api.patchFileSync({ file_path: 'config.ts', search_block: 'retries = 3;', replace_block: 'retries = 4;' }, { workspaceRoot: 'ws' })
const schema = require('${pkg.name}/schemas/patch_file.schema.json')
console.log(JSON.stringify({ r, frozen: Object.isFrozen(api.PATCH_FILE_ERROR_CODES), schema: schema.name, same: JSON.stringify(schema) === JSON.stringify(api.patchFileSchema) }))
`,
  )
  const esm = JSON.parse(run(process.execPath, ['esm.mjs'], { cwd: app, env: state.env }))
  assert.equal(esm.r.ok, true, JSON.stringify(esm.r))
  assert.deepEqual([esm.r.line_number, esm.r.before_chars, esm.r.after_chars, esm.r.before_bytes, esm.r.after_bytes], [1, 26, 26, 26, 26])
  assert.equal(esm.r.file_path, path.join(ws, 'config.ts'))
  assert.equal(esm.again.code, 'SEARCH_BLOCK_NOT_FOUND')
  assert.equal(esm.notFound, 'SEARCH_BLOCK_NOT_FOUND')
  assert.equal(esm.schema, 'patch_file')
  const cjs = JSON.parse(run(process.execPath, ['cjs.cjs'], { cwd: app, env: state.env }))
  assert.equal(cjs.r.ok, true, JSON.stringify(cjs.r))
  assert.deepEqual([cjs.frozen, cjs.schema, cjs.same], [true, 'patch_file', true])
  assert.equal(fs.readFileSync(path.join(ws, 'config.ts'), 'utf8'), 'export const retries = 4;\n')

  // The installed executables: the CLI edits a file, and with no command the
  // MCP server answers `initialize` on stdout and exits 0 when stdin closes.
  const bin = path.join(app, 'node_modules', '.bin', win ? 'patch-file-tool.cmd' : 'patch-file-tool')
  assert.ok(fs.existsSync(bin), 'bin linked')
  const cli = spawnSync(bin, ['patch', 'config.ts', '--search', 'retries = 4;', '--replace', 'retries = 5;', '--root', '.'], {
    cwd: ws,
    env: state.env,
    encoding: 'utf8',
    shell: win,
  })
  assert.equal(cli.status, 0, cli.stderr)
  assert.match(cli.stdout, /config\.ts:1/)
  assert.equal(fs.readFileSync(path.join(ws, 'config.ts'), 'utf8'), 'export const retries = 5;\n')
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'packaging-test', version: '1' } },
  }
  const mcpBin = path.join(app, 'node_modules', '.bin', win ? 'patch-file-mcp.cmd' : 'patch-file-mcp')
  const mcp = spawnSync(mcpBin, ['--root', ws], {
    env: state.env,
    encoding: 'utf8',
    input: JSON.stringify(init) + '\n',
    timeout: 30_000,
    shell: win,
  })
  assert.equal(mcp.status, 0, mcp.stderr)
  const answer = JSON.parse(mcp.stdout.trim().split('\n')[0])
  assert.equal(answer.id, 1)
  assert.equal(answer.result.serverInfo.name, pkg.name)
  state.app = app
})

test('installed with the agent SDKs, each subpath works through import and require, with one native engine', () => {
  assert.ok(state.app, 'consumer project installed')
  const app = state.app
  fs.writeFileSync(path.join(app, 'adapters.mjs'), adaptersScript('import'))
  fs.writeFileSync(path.join(app, 'adapters.cjs'), adaptersScript('require'))
  for (const script of ['adapters.mjs', 'adapters.cjs']) {
    fs.writeFileSync(path.join(app, 'ws', 'adapters.txt'), 'v0\n')
    const out = JSON.parse(run(process.execPath, [script], { cwd: app, env: state.env }).trim().split('\n').pop())
    checkAdaptersRun(out, fs.readFileSync(path.join(app, 'ws', 'adapters.txt'), 'utf8'), script)
  }
})

const CONSUMER_TS = `import { patchFile, patchFileSync, PATCH_FILE_ERROR_CODES, patchFileSchema } from '${pkg.name}'
import type {
  PatchFileInput,
  PatchFileOptions,
  PatchFileResult,
  PatchFileSuccess,
  PatchFileFailure,
  PatchFileErrorCode,
  PatchFileSchema,
} from '${pkg.name}'

const snake: PatchFileInput = { file_path: 'src/a.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' }
const camel: PatchFileInput = { filePath: 'src/a.ts', searchBlock: 'retries = 2;', replaceBlock: 'retries = 3;' }
const mixed: PatchFileInput = { filePath: 'src/a.ts', search_block: 'x', replaceBlock: '' }
const options: PatchFileOptions = { workspaceRoot: '/work' }

function describe(r: PatchFileResult): string {
  if (r.ok) {
    const s: PatchFileSuccess = r
    const figures: number[] = [s.replacements, s.line_number, s.before_chars, s.after_chars, s.before_bytes, s.after_bytes]
    return s.file_path + figures.join(',')
  }
  const f: PatchFileFailure = r
  const code: PatchFileErrorCode = f.code
  if (f.code === PATCH_FILE_ERROR_CODES.SEARCH_BLOCK_NOT_FOUND) return 'reread and retry'
  if (code === PATCH_FILE_ERROR_CODES.SEARCH_BLOCK_AMBIGUOUS) {
    const n: number | undefined = f.match_count
    return 'add context: ' + String(n)
  }
  const where: string | undefined = f.file_path
  return f.message + (where ?? '')
}

export async function main(): Promise<string[]> {
  const results: PatchFileResult[] = [await patchFile(snake, options), await patchFile(camel), patchFileSync(mixed, options)]
  const promised: Promise<PatchFileResult> = patchFile(snake)
  const first = await promised
  // @ts-expect-error line_number exists only once ok is known to be true
  const early: number = first.line_number
  void early
  const codes: readonly PatchFileErrorCode[] = Object.values(PATCH_FILE_ERROR_CODES)
  const schema: PatchFileSchema = patchFileSchema
  const required: string[] = schema.parameters.required
  return [...results.map(describe), String(codes.length), schema.name, ...required]
}

// @ts-expect-error replace_block is required
export const missingReplace: PatchFileInput = { file_path: 'a', search_block: 'b' }
// @ts-expect-error file_path must be a string
export const numericPath: PatchFileInput = { file_path: 1, search_block: 'b', replace_block: 'c' }
// @ts-expect-error search_block must be a string
export const numericSearch: PatchFileInput = { filePath: 'a', searchBlock: 2, replaceBlock: 'c' }
// @ts-expect-error workspaceRoot must be a string
export const badOptions: PatchFileOptions = { workspaceRoot: 1 }
// @ts-expect-error not a code
export const badCode: PatchFileErrorCode = 'NOT_A_CODE'
// @ts-expect-error patchFile returns a Promise, not a result
export const notAwaited: PatchFileResult = patchFile(snake)
// @ts-expect-error the code map is read-only
PATCH_FILE_ERROR_CODES.SEARCH_BLOCK_NOT_FOUND = 'SEARCH_BLOCK_NOT_FOUND'
export function narrowed(r: PatchFileResult): void {
  if (!r.ok) {
    // @ts-expect-error a failure's code is a PatchFileErrorCode, not any string
    const c: 'SOMETHING_ELSE' = r.code
    void c
  }
}
`

const CONSUMER_CTS = `import api = require('${pkg.name}')
const r: Promise<api.PatchFileResult> = api.patchFile({ file_path: 'a', search_block: 'b', replace_block: 'c' })
const s: api.PatchFileResult = api.patchFileSync({ filePath: 'a', searchBlock: 'b', replaceBlock: 'c' }, { workspaceRoot: '.' })
// @ts-expect-error search_block must be a string
api.patchFileSync({ file_path: 'a', search_block: 0, replace_block: 'c' })
export = [r, s]
`

test('a TypeScript consumer type-checks against the installed package under tsc --strict', () => {
  assert.ok(state.app, 'consumer project installed')
  const app = state.app
  fs.writeFileSync(path.join(app, 'consumer.mts'), CONSUMER_TS)
  fs.writeFileSync(path.join(app, 'consumer.cts'), CONSUMER_CTS)
  fs.writeFileSync(
    path.join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        types: [],
        skipLibCheck: false,
        noUnusedLocals: false,
      },
      files: ['consumer.mts', 'consumer.cts'],
    }),
  )
  const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc')
  run(process.execPath, [tsc, '-p', app, '--strict', '--noEmit'], { cwd: app, env: state.env })
  // The check is real: a wrong call without @ts-expect-error fails.
  fs.writeFileSync(path.join(app, 'broken.mts'), `import { patchFile } from '${pkg.name}'\nvoid patchFile({ file_path: 'a', search_block: 1, replace_block: 'c' })\n`)
  const r = spawnSync(process.execPath, [tsc, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'broken.mts'], {
    cwd: app,
    env: state.env,
    encoding: 'utf8',
  })
  assert.notEqual(r.status, 0, 'tsc rejects a numeric search_block')
  assert.match(r.stdout, /broken\.mts\(2,/, r.stdout)
})

/**
 * Type-checks `files` (name -> text) in the consumer project under `options` (tsconfig.<name>.json), then
 * `broken` (one more file whose line 2 is a wrong call): it must fail there. Returns tsc's output for it.
 */
function typeChecks(name, options, files, broken) {
  const app = state.app
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(app, f), text)
  const tsc = path.join(repo, 'node_modules', 'typescript', 'bin', 'tsc')
  const config = (n, list) => {
    const p = path.join(app, `tsconfig.${n}.json`)
    fs.writeFileSync(p, JSON.stringify({ compilerOptions: options, files: list }))
    return p
  }
  run(process.execPath, [tsc, '-p', config(name, Object.keys(files))], { cwd: app, env: state.env })
  // The installed types are really used: a wrong call fails.
  fs.writeFileSync(path.join(app, broken.file), broken.text)
  const r = spawnSync(process.execPath, [tsc, '-p', config(`${name}-broken`, [broken.file])], { cwd: app, env: state.env, encoding: 'utf8' })
  assert.notEqual(r.status, 0, 'tsc rejects a numeric workspaceRoot')
  assert.ok(r.stdout.includes(`${broken.file}(2,`), r.stdout)
  return r.stdout
}

test('a TypeScript consumer of the agent-SDK subpaths type-checks against the installed package and SDKs under tsc --strict', () => {
  assert.ok(state.app, 'consumer project installed')
  // The SDKs' own declaration files are not ours to check (skipLibCheck, as tsc --init sets it);
  // the subpaths' declarations check on their own in __test__/adapters.test.mjs.
  const options = { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [], skipLibCheck: true }
  typeChecks('adapters', options, { 'adapters-consumer.mts': ADAPTERS_MTS, 'adapters-consumer.cts': ADAPTERS_CTS }, {
    file: 'adapters-broken.mts',
    text: `import { createEditor } from '${pkg.name}/openai-agents'\nvoid createEditor({ workspaceRoot: 1 })\n`,
  })
})

test('a CommonJS TypeScript consumer under the node10 resolution (tsc --init of TypeScript 5) finds the root and subpath types', () => {
  assert.ok(state.app, 'consumer project installed')
  // node10 reads no `exports`: the subpaths' types come through `typesVersions`.
  const options = { strict: true, noEmit: true, module: 'commonjs', moduleResolution: 'node10', target: 'es2022', types: [], skipLibCheck: true }
  const out = typeChecks('node10', options, { 'node10-root.ts': CONSUMER_CTS, 'node10-adapters.ts': ADAPTERS_CTS }, {
    file: 'node10-broken.ts',
    text: `import agents = require('${pkg.name}/openai-agents')\nagents.createEditor({ workspaceRoot: 1 })\nexport {}\n`,
  })
  assert.doesNotMatch(out, /TS2307/, 'the subpath resolves')
})

/** Runs `script` with node in `cwd` (the consumer's environment); returns {status, stdout, stderr}. */
function nodeIn(cwd, args, extra = {}) {
  return spawnSync(process.execPath, args, { cwd, env: state.env, encoding: 'utf8', timeout: 60_000, ...extra })
}

const REQUIRE_AND_PATCH = `const fs = require('node:fs')
let out
try {
  const api = require('${pkg.name}')
  fs.mkdirSync('ws', { recursive: true })
  fs.writeFileSync('ws/a.txt', 'retries = 2;\\n')
  const r = api.patchFileSync({ file_path: 'a.txt', search_block: 'retries = 2;', replace_block: 'retries = 3;' }, { workspaceRoot: 'ws' })
  out = { ok: r.ok, text: fs.readFileSync('ws/a.txt', 'utf8'), natives: Object.keys(require.cache).filter((k) => k.endsWith('.node')) }
} catch (e) {
  out = { code: e.code, reason: e.reason, message: e.message }
}
console.log(JSON.stringify(out))`

test('a plain npm pack, installed, says NATIVE_ENGINE_UNAVAILABLE with npm run pack:local as its first advice (not a reinstall)', () => {
  assert.ok(state.plainTarball, 'packed')
  const { dir: app } = installOffline('plain-app', { [pkg.name]: `file:${state.plainTarball}` })
  const r = nodeIn(app, ['-e', REQUIRE_AND_PATCH])
  const e = JSON.parse(r.stdout)
  assert.equal(e.code, 'NATIVE_ENGINE_UNAVAILABLE', r.stdout + r.stderr)
  assert.equal(e.reason, 'packed-without-binary')
  const first = e.message.split('\nPrebuilt binaries: ')[0]
  assert.match(first, /has no native engine for this platform .*: it was packed from a source checkout without one/)
  assert.match(first, /Pack it with `npm run pack:local` in a built checkout/)
  assert.doesNotMatch(first, /reinstall|optional dependenc/i)
  // The CLI says the same, with exit code 4.
  const cli = nodeIn(app, [path.join(app, 'node_modules', pkg.name, 'bin', 'patch-file-tool.js'), '--version'])
  assert.equal(cli.status, 0, 'the usage still works without the engine')
  const call = nodeIn(app, [path.join(app, 'node_modules', pkg.name, 'bin', 'patch-file-tool.js'), 'call', 'read_file'], { input: '{"file_path":"x"}' })
  assert.equal(call.status, 4, call.stderr)
  assert.match(call.stderr, /npm run pack:local/)
})

test("npm run pack:local: a tarball with this machine's engine that installs offline, without Rust, and works there", () => {
  const out = path.join(state.tmp, 'local-pack')
  const packed = run(process.execPath, [path.join(repo, 'scripts', 'pack-local.mjs'), '--no-build', '--out', out], { cwd: repo, env: state.env })
  const tarball = path.join(out, `${pkg.name}-${pkg.version}-${state.abi}.tgz`)
  assert.ok(fs.existsSync(tarball), packed)
  assert.ok(packed.includes(`npm install ${tarball}`), packed)
  const listed = run('tar', ['-tzf', tarball]).split('\n').filter(Boolean)
  assert.ok(listed.includes(`package/${path.basename(state.addon)}`), listed.join(', '))
  assert.deepEqual(listed.filter((f) => f.endsWith('.node')), [`package/${path.basename(state.addon)}`], 'only this machine\'s engine')
  for (const f of state.plainFiles) assert.ok(listed.includes(`package/${f}`), `${f} is in the local pack as in npm pack`)
  const manifest = JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json']))
  for (const k of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(manifest.scripts[k], undefined, `no ${k} script`)
  assert.equal(manifest.optionalDependencies, undefined)

  const { dir: app, out: log } = installOffline('local-app', { [pkg.name]: `file:${tarball}` })
  assert.doesNotMatch(log, new RegExp(`> ${pkg.name}@`), 'no lifecycle script of the package ran')
  const r = nodeIn(app, ['-e', REQUIRE_AND_PATCH])
  const res = JSON.parse(r.stdout)
  assert.equal(res.ok, true, r.stdout + r.stderr)
  assert.equal(res.text, 'retries = 3;\n')
  assert.deepEqual(res.natives, [fs.realpathSync(path.join(app, 'node_modules', pkg.name, path.basename(state.addon)))])
  // The installed commands: the CLI edits, the MCP server answers initialize.
  const bin = path.join(app, 'node_modules', '.bin', win ? 'patch-file-tool.cmd' : 'patch-file-tool')
  const cli = spawnSync(bin, ['patch', 'a.txt', '--search', 'retries = 3;', '--replace', 'retries = 4;'], { cwd: path.join(app, 'ws'), env: state.env, encoding: 'utf8', shell: win })
  assert.equal(cli.status, 0, cli.stderr)
  assert.equal(fs.readFileSync(path.join(app, 'ws', 'a.txt'), 'utf8'), 'retries = 4;\n')
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-local-test', version: '1' } } }
  const mcp = spawnSync(bin, ['--root', path.join(app, 'ws')], { env: state.env, encoding: 'utf8', input: JSON.stringify(init) + '\n', timeout: 30_000, shell: win })
  assert.equal(mcp.status, 0, mcp.stderr)
  assert.equal(JSON.parse(mcp.stdout.split('\n')[0]).result.serverInfo.name, pkg.name)
})

test('npm install /path/to/a/built/clone in another project runs no script of the package, warns nothing, and the engine loads', () => {
  // A built clone: what npm pack takes, plus the sources and the binary `npm run build` leaves.
  assert.ok(state.plainFiles, 'packed')
  const clone = stage(state.plainFiles, path.join(state.tmp, 'clone'))
  fs.copyFileSync(path.join(repo, 'Cargo.toml'), path.join(clone, 'Cargo.toml'))
  fs.cpSync(path.join(repo, 'src'), path.join(clone, 'src'), { recursive: true })
  fs.copyFileSync(state.addon, path.join(clone, path.basename(state.addon)))
  const app = path.join(state.tmp, 'linking-app')
  fs.mkdirSync(app)
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'linking-app', version: '1.0.0', private: true }))
  const r = spawnSync(process.execPath, [npmCli(), 'install', '--offline', '--foreground-scripts', clone], { cwd: app, env: state.env, encoding: 'utf8' })
  const log = `${r.stdout}\n${r.stderr}`
  assert.equal(r.status, 0, log)
  assert.doesNotMatch(log, new RegExp(`> ${pkg.name}@`), `no lifecycle script of ${pkg.name} ran (a build would take minutes)`)
  assert.doesNotMatch(log, /install-scripts|allowScripts|EBADENGINE/, log)
  assert.deepEqual(log.split('\n').filter((l) => /^npm warn/i.test(l) && !/Unknown \w+ config/i.test(l)), [], 'no npm warning')
  const res = JSON.parse(nodeIn(app, ['-e', REQUIRE_AND_PATCH]).stdout)
  assert.equal(res.ok, true, JSON.stringify(res))
  assert.deepEqual(res.natives, [fs.realpathSync(path.join(clone, path.basename(state.addon)))])
})
