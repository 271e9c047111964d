'use strict'
// Loads the native engine through binding.js (the loader napi-rs generates,
// not edited by hand) and, when it cannot, throws one error that says what
// to do instead of napi-rs's generic "npm has a bug related to optional
// dependencies": this machine's platform, arch and libc; the platforms with
// a prebuilt binary; why no binary loaded; and how to build from source.
//
// The first advice fits the case found (see unavailableError): a source
// checkout not built yet, a copy packed without a binary for this machine, a
// release whose platform package npm left out or that has none for this
// platform, an unsupported platform, or a binary that does not load.
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

/** The package's own directory (a source checkout, an installed package, or an unpacked tarball). */
const PACKAGE_ROOT = path.join(__dirname, '..')

/** Whether the package is a source checkout (it can build its own engine), not an installed copy. */
function isSourceCheckout(root = PACKAGE_ROOT) {
  return fs.existsSync(path.join(root, 'Cargo.toml')) && fs.existsSync(path.join(root, 'src', 'lib.rs'))
}

/** The abis of the binaries lying in the package's own directory (`<binaryName>.<abi>.node`). */
function localBinaries(root = PACKAGE_ROOT) {
  const { binaryName } = packageJson().napi
  try {
    return fs
      .readdirSync(root)
      .filter((f) => f.startsWith(`${binaryName}.`) && f.endsWith('.node'))
      .map((f) => f.slice(binaryName.length + 1, -'.node'.length))
  } catch {
    return []
  }
}

function labelOf(abi) {
  const t = supportedTargets().find((x) => x.abi === abi)
  return t ? t.label : abi
}

/**
 * The error thrown when the native engine cannot be loaded. Its `reason`,
 * and the first advice of its message, say which case this is:
 *
 * - `load-failed`: a binary for this machine is there (or named by
 *   NAPI_RS_NATIVE_LIBRARY_PATH) but does not load;
 * - `unsupported-platform`: no target of this package is built for this machine;
 * - `not-built`: a source checkout whose engine is not built yet (`npm run build`);
 * - `platform-package-missing`: a release whose optional platform package npm left out;
 * - `platform-not-released`: a release that ships no package for this platform;
 * - `packed-without-binary`: a copy packed from a checkout (`npm pack`) that
 *   carries no binary for this machine (`npm run pack:local` packs one).
 */
function unavailableError(loadError) {
  const pkg = packageJson()
  const host = describeHost()
  const match = hostTarget(host)
  const checkout = isSourceCheckout()
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
    if (checkout) lines.push(`This is a source checkout (${PACKAGE_ROOT}): build the engine for this machine there with \`npm run build\` (needs Rust).`)
  } else {
    const platformPackage = `${pkg.name}-${match.abi}`
    let installed = false
    try {
      require.resolve(`${platformPackage}/package.json`)
      installed = true
    } catch {
      installed = localBinaries().includes(match.abi)
    }
    const optional = pkg.optionalDependencies || {}
    if (installed) {
      reason = 'load-failed'
      lines.push(
        `${pkg.name}: the native engine for ${match.label} (${platformPackage}) is installed but could not be loaded on this machine (${host.text}, Node ${process.version}).`,
      )
      if (match.libc === 'glibc') lines.push('The Linux glibc binaries need glibc 2.17 or newer.')
    } else if (checkout) {
      reason = 'not-built'
      lines.push(
        `${pkg.name}: this source checkout (${PACKAGE_ROOT}) has no native engine built yet.`,
        `Build it there: \`npm run build\` (needs Rust: https://rustup.rs; cargo takes a few minutes the first time). \`npm test\` builds it too.`,
      )
    } else if (Object.prototype.hasOwnProperty.call(optional, platformPackage)) {
      reason = 'platform-package-missing'
      lines.push(
        `${pkg.name}: the native engine for this platform (${host.text}) comes in the optional dependency ${platformPackage}, which is not installed.`,
        'npm skips optional dependencies with --omit=optional or --no-optional, and a lock file written by an old npm may leave them out:',
        `reinstall with optional dependencies (npm install ${pkg.name}), or delete node_modules and run npm install again.`,
      )
    } else if (Object.keys(optional).some((d) => d.startsWith(`${pkg.name}-`))) {
      reason = 'platform-not-released'
      const shipped = Object.keys(optional)
        .filter((d) => d.startsWith(`${pkg.name}-`))
        .map((d) => labelOf(d.slice(pkg.name.length + 1)))
      lines.push(
        `${pkg.name}@${pkg.version}: this release ships no native engine for ${match.label} (${host.text}); its platform packages are for ${shipped.join(', ')}.`,
        `Install a release that includes ${platformPackage}, or build from source (below).`,
      )
    } else {
      reason = 'packed-without-binary'
      const others = localBinaries()
      lines.push(
        `${pkg.name}: this copy of the package (${PACKAGE_ROOT}) has no native engine for this platform (${host.text}): ` +
          (others.length
            ? `it was packed with the engine for ${others.map(labelOf).join(', ')} only.`
            : 'it was packed from a source checkout without one (a plain `npm pack` ships no binary; a release brings it as a per-platform package).'),
        `Pack it with \`npm run pack:local\` in a built checkout on this machine (the tarball then holds this machine's engine), or build from source (below); a registry release of ${pkg.name} would bring the engine as a per-platform package, where one is published.`,
      )
    }
  }
  lines.push(`Prebuilt binaries: ${supportedTargets().map((t) => t.label).join(', ')}.`)
  lines.push(
    'To build the engine from source: install Rust (https://rustup.rs), then',
    `  git clone ${REPOSITORY}.git && cd patch-file-tool && npm ci && npm run build`,
    'and run bin/patch-file-tool.js from there, `npm install /path/to/the/clone` in your project, or `npm run pack:local` there for a tarball to install anywhere on this platform.',
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

module.exports = { load, unavailableError, supportedTargets, describeHost, hostTarget, isSourceCheckout, localBinaries, CODE }
