'use strict'
// The agent SDKs are optional peer dependencies: an application installs the
// one it uses, and only the subpath of that SDK loads it. When it is not
// installed, the subpath's import fails with an error that says which
// package to install, instead of a bare "Cannot find module".

/** The error for `subpath` when loading the SDK package `name` failed with `err`; other failures pass through. */
function missingPeer(name, subpath, err) {
  const code = err && err.code
  const notFound = (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && String(err.message).includes(name)
  if (!notFound) return err
  const range = require('../../package.json').peerDependencies[name]
  const error = new Error(`${subpath} needs the package ${name} (${range}), which is not installed: npm install ${name}`)
  error.code = 'MODULE_NOT_FOUND'
  error.cause = err
  return error
}

/** require(specifier) (a module of the SDK package `name`) for `subpath`, with missingPeer's error. */
function requirePeer(specifier, name, subpath) {
  try {
    return require(specifier)
  } catch (err) {
    throw missingPeer(name, subpath, err)
  }
}

module.exports = { missingPeer, requirePeer }
