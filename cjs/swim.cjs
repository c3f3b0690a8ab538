'use strict';
// What require('fdkit/swim') returns: the ES module itself, or the FDKIT_ESM_ONLY error (require-esm.cjs says why).
module.exports = require('./require-esm.cjs')('fdkit/swim', () => require('../dist/entries/swim.js'));
