'use strict';
// What require('fdkit/fencing') returns: the ES module itself, or the FDKIT_ESM_ONLY error (require-esm.cjs says why).
module.exports = require('./require-esm.cjs')('fdkit/fencing', () => require('../dist/entries/fencing.js'));
