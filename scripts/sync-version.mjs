#!/usr/bin/env node
// Keeps the files napi-rs generates from package.json in step with it,
// without building anything (no cargo):
//
// - binding.js, the native loader: napi-rs writes package.json's version into
//   it (28 places: the version check of each platform package). It is
//   rewritten here with napi-rs's own template (`writeJsBinding` from
//   @napi-rs/cli, the function `napi build` calls), so it is byte for byte what
//   the next `npm run build` writes.
// - npm/<platform>/package.json: rewritten by `napi create-npm-dirs` from
//   package.json (version, engines, license, repository, homepage, bugs...).
//
// `npm version X` runs it (the `version` script), after npm has written the
// new version into package.json and package-lock.json and before npm commits:
// it stages what it wrote, so the version commit and its tag hold a loader
// and platform packages of the same version, and a build on the tag changes
// nothing.
//
//   node scripts/sync-version.mjs          rewrite binding.js and npm/*/package.json
//   node scripts/sync-version.mjs --check  exit 1 if either is not what would be written
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const check = process.argv.includes('--check')
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
const napiCli = path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
const { writeJsBinding } = await import(path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'index.js'))

const lf = (s) => s.replace(/\r\n/g, '\n')
const stale = []

/** The names binding.js re-exports (`module.exports.NAME = nativeBinding.NAME`), in file order. */
function bindingIdents(text) {
  return [...text.matchAll(/^module\.exports\.(\w+) = nativeBinding\.\1$/gm)].map((m) => m[1])
}

// 1. binding.js
const bindingPath = path.join(root, 'binding.js')
const current = lf(fs.readFileSync(bindingPath, 'utf8'))
const idents = bindingIdents(current)
if (idents.length === 0) {
  console.error('binding.js re-exports nothing: run npm run build first (napi build writes it)')
  process.exit(1)
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pft-sync-'))
try {
  await writeJsBinding({
    platform: true,
    idents,
    jsBinding: 'binding.js',
    binaryName: pkg.napi.binaryName,
    packageName: pkg.napi.packageName ?? pkg.name,
    version: pkg.version,
    outputDir: tmp,
    // The WASI flavours the package declares (none: napi-rs then keeps its default chain).
    wasiFlavors: pkg.napi.targets.filter((t) => t.startsWith('wasm32-wasi')),
  })
  const wanted = lf(fs.readFileSync(path.join(tmp, 'binding.js'), 'utf8'))
  if (wanted !== current) {
    if (check) stale.push('binding.js')
    else fs.writeFileSync(bindingPath, wanted)
  }

  // 2. npm/<platform>/package.json, written by napi-rs into a scratch copy first.
  const scratch = path.join(tmp, 'pkg')
  fs.mkdirSync(scratch)
  fs.copyFileSync(path.join(root, 'package.json'), path.join(scratch, 'package.json'))
  const r = spawnSync(process.execPath, [napiCli, 'create-npm-dirs', '--cwd', scratch], { encoding: 'utf8' })
  if (r.status !== 0) {
    console.error(`napi create-npm-dirs failed:\n${r.stdout}${r.stderr}`)
    process.exit(1)
  }
  for (const dir of fs.readdirSync(path.join(scratch, 'npm')).sort()) {
    for (const file of ['package.json', 'README.md']) {
      const from = lf(fs.readFileSync(path.join(scratch, 'npm', dir, file), 'utf8'))
      const target = path.join(root, 'npm', dir, file)
      const have = fs.existsSync(target) ? lf(fs.readFileSync(target, 'utf8')) : null
      if (have === from) continue
      if (check) stale.push(`npm/${dir}/${file}`)
      else {
        fs.mkdirSync(path.dirname(target), { recursive: true })
        fs.writeFileSync(target, from)
      }
    }
  }
  const extra = fs.readdirSync(path.join(root, 'npm')).filter((d) => !fs.existsSync(path.join(scratch, 'npm', d)))
  if (extra.length) {
    console.error(`npm/ has ${extra.join(', ')}, which package.json napi.targets does not list: remove ${extra.length === 1 ? 'it' : 'them'}`)
    process.exit(1)
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}

if (check) {
  if (stale.length) {
    console.error(`${stale.join(', ')}: not what napi-rs generates for package.json (version ${pkg.version}); run node scripts/sync-version.mjs`)
    process.exit(1)
  }
  console.log(`binding.js and npm/*/package.json match package.json (version ${pkg.version})`)
} else if (process.env.npm_lifecycle_event === 'version' && process.env.npm_config_git_tag_version !== 'false') {
  // Inside `npm version`: stage what changed, so npm's version commit holds it.
  const git = spawnSync('git', ['add', '--', 'binding.js', 'npm'], { cwd: root, stdio: 'inherit' })
  if (git.status !== 0) process.exit(git.status || 1)
}
