'use strict'
// Loads the native engine through binding.js (the loader napi-rs generates,
// not edited by hand) and, when it cannot, throws one error that says what
// to do instead of napi-rs's generic "npm has a bug related to optional
// dependencies": this machine's platform, arch and libc; the platforms with
// a prebuilt binary; whether the platform package is missing or failed to
// load; and how to build from source.
//
// The error has code NATIVE_ENGINE_UNAVAILABLE. The CLI exits with code 4 on
// it (js/cli.js), and the MCP server refuses to start with the same exit code
// and the message on stderr (js/mcp.js).

const path = require('node:path')
const fs = require('node:fs')

const CODE = 'NATIVE_ENGINE_UNAVAILABLE'
const REPOSITORY = 'https://github.com/patch-file-tool/patch-file-tool'

/** napi-rs target triple -> the `<platform>-<arch>[-<abi>]` suffix of its npm package. */
const NAMES = {
  'x86_64-unknown-linux-gnu': { platform: 'linux', arch: 'x64', libc: 'glibc', abi: 'linux-x64-gnu', label: 'Linux x64 (glibc)' },
  'aarch64-unknown-linux-gnu': { platform: 'linux', arch: 'arm64', libc: 'glibc', abi: 'linux-arm64-gnu', label: 'Linux arm64 (glibc)' },
  'x86_64-unknown-linux-musl': { platform: 'linux', arch: 'x64', libc: 'musl', abi: 'linux-x64-musl', label: 'Linux x64 (musl, e.g. Alpine)' },
  'aarch64-unknown-linux-musl': { platform: 'linux', arch: 'arm64', libc: 'musl', abi: 'linux-arm64-musl', label: 'Linux arm64 (musl, e.g. Alpine)' },
  'x86_64-apple-darwin': { platform: 'darwin', arch: 'x64', abi: 'darwin-x64', label: 'macOS x64' },
  'aarch64-apple-darwin': { platform: 'darwin', arch: 'arm64', abi: 'darwin-arm64', label: 'macOS arm64 (Apple silicon)' },
  'x86_64-pc-windows-msvc': { platform: 'win32', arch: 'x64', abi: 'win32-x64-msvc', label: 'Windows x64' },
  'aarch64-pc-windows-msvc': { platform: 'win32', arch: 'arm64', abi: 'win32-arm64-msvc', label: 'Windows arm64' },
}

function packageJson() {
  return require('../package.json')
}

/** The targets this package ships prebuilt binaries for (package.json `napi.targets`). */
function supportedTargets() {
  const pkg = packageJson()
  return pkg.napi.targets.map((t) => ({ target: t, ...(NAMES[t] || { abi: t, label: t }) }))
}

/** 'glibc', 'musl' or undefined (not Linux); and the glibc version when known. */
function detectLibc(platform = process.platform) {
  if (platform !== 'linux') return {}
  try {
    // What napi-rs's loader goes by: Node built against glibc reports its version.
    const header = process.report.getReport().header
    return header.glibcVersionRuntime ? { libc: 'glibc', glibc: header.glibcVersionRuntime } : { libc: 'musl' }
  } catch {
    // no report: look at ldd
  }
  try {
    return { libc: fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl') ? 'musl' : 'glibc' }
  } catch {
    return { libc: 'unknown libc' }
  }
}

/** What this machine is, as the loader sees it. */
function describeHost() {
  const { libc, glibc } = detectLibc()
  const parts = [process.platform, process.arch]
  if (libc) parts.push(glibc ? `${libc} ${glibc}` : libc)
  return { platform: process.platform, arch: process.arch, libc, glibc, text: parts.join(' ') }
}

/** The supported target matching this machine, if any. */
function hostTarget(host = describeHost()) {
  return supportedTargets().find((t) => t.platform === host.platform && t.arch === host.arch && (!t.libc || t.libc === host.libc))
}

function causeText(err) {
  const lines = []
  for (let e = err, depth = 0; e && depth < 8; e = e.cause, depth++) {
    const msg = String(e && e.message ? e.message : e).split('\n')[0]
    if (msg && !lines.includes(msg)) lines.push(msg)
  }
  return lines
}

/** The error thrown when the native engine cannot be loaded. */
function unavailableError(loadError) {
  const pkg = packageJson()
  const host = describeHost()
  const match = hostTarget(host)
  const lines = []
  let reason
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (override) {
    reason = 'load-failed'
    lines.push(
      `${pkg.name}: the binary NAPI_RS_NATIVE_LIBRARY_PATH names (${override}) could not be loaded on this machine (${host.text}, Node ${process.version}).`,
    )
  } else if (!match) {
    reason = 'unsupported-platform'
    lines.push(`${pkg.name} has no prebuilt native engine for this platform: ${host.text} (Node ${process.version}).`)
  } else {
    const platformPackage = `${pkg.name}-${match.abi}`
    let installed = false
    try {
      require.resolve(`${platformPackage}/package.json`)
      installed = true
    } catch {
      installed = fs.existsSync(path.join(__dirname, '..', `${pkg.napi.binaryName}.${match.abi}.node`))
    }
    if (installed) {
      reason = 'load-failed'
      lines.push(
        `${pkg.name}: the native engine for ${match.label} (${platformPackage}) is installed but could not be loaded on this machine (${host.text}, Node ${process.version}).`,
      )
      if (match.libc === 'glibc') lines.push('The Linux glibc binaries need glibc 2.17 or newer.')
    } else {
      reason = 'platform-package-missing'
      lines.push(
        `${pkg.name}: the native engine for this platform (${host.text}) comes in the optional dependency ${platformPackage}, which is not installed.`,
        'npm skips optional dependencies with --omit=optional or --no-optional, and a lock file written by an old npm may leave them out:',
        `reinstall with optional dependencies (npm install ${pkg.name}), or delete node_modules and run npm install again.`,
      )
    }
  }
  lines.push(`Prebuilt binaries: ${supportedTargets().map((t) => t.label).join(', ')}.`)
  lines.push(
    'Elsewhere, build the engine from source: install Rust (https://rustup.rs), then',
    `  git clone ${REPOSITORY}.git && cd patch-file-tool && npm install`,
    '(npm install compiles the engine with cargo); run bin/patch-file-tool.js from there, or `npm install /path/to/the/clone` in your project.',
  )
  // napi-rs's own advice and its WebAssembly fallback (never built for this package) would mislead.
  const causes = causeText(loadError).filter((m) => !/npm has a bug related to optional dependencies|wasi/i.test(m))
  if (causes.length) lines.push(`Loader said: ${causes.join(' <- ')}`)
  const error = new Error(lines.join('\n'))
  error.code = CODE
  error.reason = reason
  error.platform = host.platform
  error.arch = host.arch
  if (host.libc) error.libc = host.libc
  error.supportedTargets = supportedTargets().map((t) => t.target)
  error.cause = loadError
  return error
}

let cached = null

/** The native binding (binding.js's exports), or throws NATIVE_ENGINE_UNAVAILABLE. */
function load() {
  if (cached) return cached
  try {
    cached = require('../binding.js')
  } catch (err) {
    throw unavailableError(err)
  }
  return cached
}

module.exports = { load, unavailableError, supportedTargets, describeHost, hostTarget, CODE }
