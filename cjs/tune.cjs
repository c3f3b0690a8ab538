'use strict';
// What require('fdkit/tune') returns: the ES module itself, or the FDKIT_ESM_ONLY error (require-esm.cjs says why).
module.exports = require('./require-esm.cjs')('fdkit/tune', () => require('../dist/entries/tune.js'));
