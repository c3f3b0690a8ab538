'use strict';
/**
 * The `require` condition of every entry in package.json's exports leads here. fdkit is ESM only: a
 * second, CommonJS build would give a program that both imports and requires fdkit two copies of every
 * class and of every module's state, so that `instanceof NetworkError` fails across them. Instead, where
 * Node can require an ES module (20.19 and 22.12 on, or earlier with --experimental-require-module), this
 * hands back the one ES module instance that `import` also gets; where it cannot, the error says what to
 * write instead, rather than Node's ERR_PACKAGE_PATH_NOT_EXPORTED, which says nothing of ESM.
 */

const RECIPE = 'https://github.com/fdkit/fdkit/blob/main/docs/node.md#commonjs';

/**
 * The ES module `load` requires, or an Error with the code FDKIT_ESM_ONLY when this Node cannot require
 * one. `specifier` is what the user required (`fdkit`, `fdkit/swim`), for the recipe in the message.
 */
module.exports = function requireEsm(specifier, load) {
  try {
    return load();
  } catch (error) {
    if (error?.code !== 'ERR_REQUIRE_ESM') throw error;
    const name = specifier.split('/').pop();
    const esmOnly = new Error(
      `${specifier} is an ES module, and this Node.js (${process.version}) cannot require() one: ` +
        'that needs Node.js 20.19 or 22.12 and later, without --no-experimental-require-module. ' +
        `From CommonJS, import it instead, in an async function: const ${name} = await import('${specifier}'); ` +
        `see ${RECIPE}`,
      { cause: error },
    );
    esmOnly.code = 'FDKIT_ESM_ONLY';
    throw esmOnly;
  }
};
