'use strict';
// What require('fdkit/metrics') returns: the ES module itself, or the FDKIT_ESM_ONLY error (require-esm.cjs says why).
module.exports = require('./require-esm.cjs')('fdkit/metrics', () => require('../dist/entries/metrics.js'));
