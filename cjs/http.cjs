'use strict';
// What require('fdkit/http') returns: the ES module itself, or the FDKIT_ESM_ONLY error (require-esm.cjs says why).
module.exports = require('./require-esm.cjs')('fdkit/http', () => require('../dist/entries/http.js'));
