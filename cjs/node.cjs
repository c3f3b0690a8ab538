'use strict';
// What require('fdkit/node') returns: the ES module itself, or the FDKIT_ESM_ONLY error (require-esm.cjs says why).
module.exports = require('./require-esm.cjs')('fdkit/node', () => require('../dist/entries/node.js'));
