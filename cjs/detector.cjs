'use strict';
// What require('fdkit/detector') returns: the ES module itself, or the FDKIT_ESM_ONLY error (require-esm.cjs says why).
module.exports = require('./require-esm.cjs')('fdkit/detector', () => require('../dist/entries/detector.js'));
