'use strict';
// What require('fdkit/sim') returns: the ES module itself, or the FDKIT_ESM_ONLY error (require-esm.cjs says why).
module.exports = require('./require-esm.cjs')('fdkit/sim', () => require('../dist/entries/sim.js'));
