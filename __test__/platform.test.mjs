// A machine the native engine cannot load on: what the JS API, the CLI and
// the MCP server say and do there.
//
// A platform without a prebuilt binary is simulated by the test-only preload
// __test__/helpers/fake-platform.cjs (`node --require ...`), which sets
// process.platform / process.arch from PFT_FAKE_PLATFORM / PFT_FAKE_ARCH before
// anything loads: napi-rs's loader (binding.js) then looks for that
// platform's binary and finds none, exactly as on such a machine. A missing
// platform package and a binary that does not load are simulated with a
// copy of the package's files in a temp directory.
import './helpers/private-state.mjs'
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { BIN, ROOT, INITIALIZE, tempDir, cleanEnv } from './helpers/mcp-raw.mjs'

const require = createRequire(import.meta.url)
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
const native = require('../js/native.js')
const PRELOAD = path.join(ROOT, '__test__', 'helpers', 'fake-platform.cjs')
const EXIT_NO_ENGINE = 4
const temps = []
after(() => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true })
})

/** Runs node with the fake-platform preload; returns {status, stdout, stderr}. */
function fake({ platform, arch }, args, { input, cwd, env: extra = {} } = {}) {
  const env = cleanEnv({ PFT_FAKE_PLATFORM: platform || '', PFT_FAKE_ARCH: arch || '', ...extra })
  const r = spawnSync(process.execPath, ['--require', PRELOAD, ...args], { env, input, cwd, encoding: 'utf8', timeout: 30_000 })
  if (r.error) throw r.error
  return r
}

const REQUIRE_INDEX = (dir) => `
try {
  require(${JSON.stringify(path.join(dir, 'index.js'))})
  console.log(JSON.stringify({ loaded: true }))
} catch (e) {
  console.log(JSON.stringify({ loaded: false, code: e.code, reason: e.reason, platform: e.platform, arch: e.arch, libc: e.libc, supportedTargets: e.supportedTargets, message: e.message }))
}`

/** The assertions every NATIVE_ENGINE_UNAVAILABLE message must pass. */
function assertHelpful(message) {
  for (const t of native.supportedTargets()) assert.ok(message.includes(t.label), `lists ${t.label}:\n${message}`)
  assert.match(message, /rustup/, 'says to install Rust with rustup')
  assert.match(message, /npm ci && npm run build/, 'says how a clone builds it')
  assert.match(message, /npm run pack:local/, 'says how to pack a tarball with the engine')
  assert.match(message, /git clone https:\/\/github\.com\/patch-file-tool\/patch-file-tool/, 'names the repository')
  assert.doesNotMatch(message, /npm has a bug related to optional dependencies/, "not napi-rs's generic advice")
  assert.doesNotMatch(message, /wasi/i, 'no WebAssembly package we never build')
}

test('the preload really changes what the loader sees, and the real platform still loads', () => {
  const r = fake({ platform: process.platform, arch: process.arch }, ['-e', REQUIRE_INDEX(ROOT)])
  assert.equal(r.status, 0, r.stderr)
  assert.deepEqual(JSON.parse(r.stdout), { loaded: true })
  const seen = fake({ platform: 'freebsd', arch: 'riscv64' }, ['-p', 'process.platform + " " + process.arch'])
  assert.equal(seen.stdout.trim(), 'freebsd riscv64')
})

test('require on an unsupported platform: NATIVE_ENGINE_UNAVAILABLE naming the platform, the supported ones and the build from source', () => {
  const r = fake({ platform: 'freebsd', arch: 'riscv64' }, ['-e', REQUIRE_INDEX(ROOT)])
  assert.equal(r.status, 0, r.stderr)
  const e = JSON.parse(r.stdout)
  assert.equal(e.loaded, false)
  assert.equal(e.code, 'NATIVE_ENGINE_UNAVAILABLE')
  assert.equal(e.reason, 'unsupported-platform')
  assert.deepEqual([e.platform, e.arch, e.libc], ['freebsd', 'riscv64', undefined])
  assert.deepEqual(e.supportedTargets, pkg.napi.targets)
  assert.equal(pkg.napi.targets.length, 8)
  assert.match(e.message, /no prebuilt native engine for this platform: freebsd riscv64 \(Node v\d+/)
  assertHelpful(e.message)
})

test('on Linux the message names the libc too', () => {
  const r = fake({ platform: 'linux', arch: 'riscv64' }, ['-e', REQUIRE_INDEX(ROOT)])
  const e = JSON.parse(r.stdout)
  assert.equal(e.reason, 'unsupported-platform')
  const host = native.describeHost()
  const libc = process.platform === 'linux' ? host.libc : 'glibc|musl'
  assert.ok(['glibc', 'musl'].includes(e.libc), `libc ${e.libc}`)
  assert.match(e.message, new RegExp(`this platform: linux riscv64 (${libc})`))
  assertHelpful(e.message)
})

test('ESM import on an unsupported platform rejects with the same error', () => {
  const src = `import(${JSON.stringify(new URL('../index.mjs', import.meta.url).href)}).then(
  () => console.log('loaded'),
  (e) => console.log(JSON.stringify({ code: e.code, message: e.message })))`
  const r = fake({ platform: 'aix', arch: 'ppc64' }, ['--input-type=module', '-e', src])
  const e = JSON.parse(r.stdout)
  assert.equal(e.code, 'NATIVE_ENGINE_UNAVAILABLE')
  assert.match(e.message, /aix ppc64/)
  assertHelpful(e.message)
})

test('the MCP server refuses to start: exit code 4, the message on stderr, nothing on stdout', () => {
  const ws = tempDir('pft-plat-')
  temps.push(ws)
  const r = fake({ platform: 'freebsd', arch: 'x64' }, [BIN, '--root', ws], { input: JSON.stringify(INITIALIZE) + '\n' })
  assert.equal(r.status, EXIT_NO_ENGINE, r.stderr)
  assert.equal(r.stdout, '', 'no initialize answer: the server never started')
  assert.match(r.stderr, /the MCP server cannot start/)
  assert.match(r.stderr, /freebsd x64/)
  assertHelpful(r.stderr)
  // The same bin on the real platform answers initialize (the refusal is the platform's doing).
  const ok = fake({}, [BIN, '--root', ws], { input: JSON.stringify(INITIALIZE) + '\n' })
  assert.equal(ok.status, 0, ok.stderr)
  assert.equal(JSON.parse(ok.stdout.split('\n')[0]).result.serverInfo.name, pkg.name)
})

test('the CLI exits with code 4 and the message; --help and --version still work and document code 4', () => {
  const ws = tempDir('pft-plat-')
  temps.push(ws)
  fs.writeFileSync(path.join(ws, 'a.txt'), 'alpha\n')
  const r = fake({ platform: 'win32', arch: 'ia32' }, [BIN, 'patch', 'a.txt', '--search', 'alpha', '--replace', 'beta'], { cwd: ws })
  assert.equal(r.status, EXIT_NO_ENGINE, r.stderr)
  assert.match(r.stderr, /no prebuilt native engine for this platform: win32 ia32/)
  assertHelpful(r.stderr)
  assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'alpha\n')
  const call = fake({ platform: 'win32', arch: 'ia32' }, [BIN, 'call', 'read_file'], { cwd: ws, input: '{"file_path":"a.txt"}' })
  assert.equal(call.status, EXIT_NO_ENGINE, call.stderr)
  const help = fake({ platform: 'win32', arch: 'ia32' }, [BIN, '--help'])
  assert.equal(help.status, 0, help.stderr)
  assert.match(help.stdout, /^ {2}4 {2}the native engine cannot be loaded here/m)
  const version = fake({ platform: 'win32', arch: 'ia32' }, [BIN, '--version'])
  assert.equal(version.stdout.trim(), pkg.version)
})

/**
 * The package's files (what `files` ships) copied to a temp dir, with the repo's node_modules for its dependencies.
 * optionalDependencies: written into its package.json, as a release's (napi prepublish) has them;
 * checkout: with a Cargo.toml and src/lib.rs beside it, as in a clone.
 */
function stagedPackage({ optionalDependencies, checkout = false } = {}) {
  const dir = tempDir('pft-plat-pkg-')
  temps.push(dir)
  for (const entry of ['package.json', ...pkg.files]) fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true })
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'junction')
  if (optionalDependencies) fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...pkg, optionalDependencies }, null, 2))
  if (checkout) {
    fs.copyFileSync(path.join(ROOT, 'Cargo.toml'), path.join(dir, 'Cargo.toml'))
    fs.mkdirSync(path.join(dir, 'src'))
    fs.copyFileSync(path.join(ROOT, 'src', 'lib.rs'), path.join(dir, 'src', 'lib.rs'))
  }
  return dir
}

/** The optionalDependencies napi prepublish writes for every target. */
const RELEASE_DEPS = Object.fromEntries(native.supportedTargets().map((t) => [`${pkg.name}-${t.abi}`, pkg.version]))

/** The advice lines before the common tail (the prebuilt list and the build from source). */
function firstAdvice(message) {
  return message.slice(0, message.indexOf('\nPrebuilt binaries: '))
}

test('a supported platform whose platform package is not installed: the message names the package to install', (t) => {
  const target = native.hostTarget()
  if (!target) return t.skip(`this machine (${native.describeHost().text}) has no prebuilt target`)
  const dir = stagedPackage({ optionalDependencies: RELEASE_DEPS })
  const r = fake({}, ['-e', REQUIRE_INDEX(dir)])
  const e = JSON.parse(r.stdout)
  assert.equal(e.code, 'NATIVE_ENGINE_UNAVAILABLE', r.stdout + r.stderr)
  assert.equal(e.reason, 'platform-package-missing')
  assert.ok(e.message.includes(`${pkg.name}-${target.abi}, which is not installed`), e.message)
  assert.match(e.message, /--omit=optional/)
  assertHelpful(e.message)
})

test('a binary that is there but does not load: the message says so and gives the loader error', (t) => {
  const target = native.hostTarget()
  if (!target) return t.skip(`this machine (${native.describeHost().text}) has no prebuilt target`)
  const dir = stagedPackage()
  fs.writeFileSync(path.join(dir, `${pkg.napi.binaryName}.${target.abi}.node`), 'not a shared library\n'.repeat(512))
  const r = fake({}, ['-e', REQUIRE_INDEX(dir)])
  const e = JSON.parse(r.stdout)
  assert.equal(e.reason, 'load-failed', e.message)
  assert.match(e.message, /is installed but could not be loaded on this machine/)
  assert.match(e.message, /Loader said: .*(invalid ELF header|Exec format error|not a valid Win32 application|not a mach-o file|slice is not valid mach-o)/i)
  assertHelpful(e.message)
})

test('a binary named by NAPI_RS_NATIVE_LIBRARY_PATH that does not load: the message names the variable and the path', () => {
  const missing = path.join(ROOT, 'target', 'no-such-dir', 'missing.node')
  const r = fake({}, ['-e', REQUIRE_INDEX(ROOT)], { env: { NAPI_RS_NATIVE_LIBRARY_PATH: missing } })
  const e = JSON.parse(r.stdout)
  assert.equal(e.code, 'NATIVE_ENGINE_UNAVAILABLE')
  assert.equal(e.reason, 'load-failed')
  assert.ok(e.message.includes(`the binary NAPI_RS_NATIVE_LIBRARY_PATH names (${missing}) could not be loaded`), e.message)
  assertHelpful(e.message)
})

test('a source checkout whose engine is not built: the first advice is npm run build there', (t) => {
  const target = native.hostTarget()
  if (!target) return t.skip(`this machine (${native.describeHost().text}) has no prebuilt target`)
  const dir = stagedPackage({ checkout: true })
  const r = fake({}, ['-e', REQUIRE_INDEX(dir)])
  const e = JSON.parse(r.stdout)
  assert.equal(e.code, 'NATIVE_ENGINE_UNAVAILABLE', r.stdout + r.stderr)
  assert.equal(e.reason, 'not-built')
  const first = firstAdvice(e.message)
  assert.ok(first.includes(`this source checkout (${dir}) has no native engine built yet`), first)
  assert.match(first, /Build it there: `npm run build` \(needs Rust/)
  assert.doesNotMatch(first, /optional dependenc|reinstall/i, 'no advice about npm installs, which cannot help a checkout')
  assertHelpful(e.message)
  // The CLI from that checkout says the same, with exit code 4.
  const cli = fake({}, [path.join(dir, 'bin', 'patch-file-tool.js'), 'call', 'read_file', '--root', dir], { input: '{"file_path":"x"}' })
  assert.equal(cli.status, EXIT_NO_ENGINE, cli.stderr)
  assert.match(cli.stderr, /Build it there: `npm run build`/)
})

test('a copy packed from a checkout without a binary: the first advice is npm run pack:local, not a reinstall', (t) => {
  const target = native.hostTarget()
  if (!target) return t.skip(`this machine (${native.describeHost().text}) has no prebuilt target`)
  const dir = stagedPackage()
  const e = JSON.parse(fake({}, ['-e', REQUIRE_INDEX(dir)]).stdout)
  assert.equal(e.reason, 'packed-without-binary', e.message)
  const first = firstAdvice(e.message)
  assert.match(first, /it was packed from a source checkout without one \(a plain `npm pack` ships no binary/)
  assert.match(first, /Pack it with `npm run pack:local` in a built checkout on this machine/)
  assert.doesNotMatch(first, /optional dependenc|reinstall/i, first)
  assertHelpful(e.message)
})

test("a copy packed locally on another platform: the message names the engine it carries", (t) => {
  const target = native.hostTarget()
  if (!target) return t.skip(`this machine (${native.describeHost().text}) has no prebuilt target`)
  const other = native.supportedTargets().find((x) => x.abi !== target.abi)
  const dir = stagedPackage()
  fs.writeFileSync(path.join(dir, `${pkg.napi.binaryName}.${other.abi}.node`), 'the binary of another platform\n')
  const e = JSON.parse(fake({}, ['-e', REQUIRE_INDEX(dir)]).stdout)
  assert.equal(e.reason, 'packed-without-binary', e.message)
  assert.ok(firstAdvice(e.message).includes(`it was packed with the engine for ${other.label} only`), e.message)
  assert.match(firstAdvice(e.message), /npm run pack:local/)
})

test('a release that ships no package for this platform: the message says so and lists what it ships', (t) => {
  const target = native.hostTarget()
  if (!target) return t.skip(`this machine (${native.describeHost().text}) has no prebuilt target`)
  const other = native.supportedTargets().find((x) => x.abi !== target.abi)
  const dir = stagedPackage({ optionalDependencies: { [`${pkg.name}-${other.abi}`]: pkg.version } })
  const e = JSON.parse(fake({}, ['-e', REQUIRE_INDEX(dir)]).stdout)
  assert.equal(e.reason, 'platform-not-released', e.message)
  assert.ok(firstAdvice(e.message).includes(`this release ships no native engine for ${target.label}`), e.message)
  assert.ok(firstAdvice(e.message).includes(`its platform packages are for ${other.label}`), e.message)
  assert.doesNotMatch(firstAdvice(e.message), /reinstall/i)
})
