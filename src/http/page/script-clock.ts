/**
 * The browser's clock for the status page: the page script's only reads of wall time and its only
 * timers. This is browser code in a string, never run by Node, and it is kept to this one file so that
 * the tidy check's exception for it (test/project/tidy.test.ts) stays as narrow as the one for the
 * runtime's system clock.
 */
export const SCRIPT_CLOCK = `
const clock = {
  // Wall time in Unix ms, the unit of MemberJson.since and of the events' t.
  now: function () { return Date.now(); },
  every: function (ms, fn) { return setInterval(fn, ms); },
  after: function (ms, fn) { return setTimeout(fn, ms); },
};
`;
