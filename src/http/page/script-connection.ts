/**
 * The status page script's traffic with the server: the JSON endpoints polled every second, and the
 * event stream. A token given to the page as `?token=` goes on every request: as a bearer header on
 * `fetch`, and in the query of the stream's URL, since `EventSource` cannot send headers. The paths are
 * relative, so the page also works where an application mounts the handler under a prefix.
 */
export const SCRIPT_CONNECTION = `
const POLL_MS = 1000;
const RECONNECT_MS = 1000;
const token = new URLSearchParams(location.search).get('token');

const connection = {
  // connecting | open | reconnecting
  stream: 'connecting',
  pollOk: null,
  error: null,
};

let polling = false;
let source = null;

function request(path) {
  const headers = token === null ? {} : { Authorization: 'Bearer ' + token };
  return fetch(path, { headers: headers, cache: 'no-store' });
}

async function readJson(path, accepted) {
  const response = await request(path);
  if (response.status === 401) throw new Error('unauthorized');
  if (accepted.indexOf(response.status) < 0) throw new Error(path + ' answered ' + response.status);
  return { status: response.status, body: response.status === 404 ? null : await response.json() };
}

async function poll() {
  if (polling) return;
  polling = true;
  const seqAtRequest = model.seq;
  try {
    const answers = await Promise.all([
      readJson('v1/members', [200]),
      readJson('v1/self', [200]),
      // 503 carries the health too: the member is starting or has left.
      readJson('v1/health', [200, 503]),
      // 404: no leader hint configured.
      readJson('v1/leader', [200, 404]),
    ]);
    applySnapshot(answers[0].body, seqAtRequest);
    model.self = answers[1].body;
    model.health = answers[2].body;
    model.leader = answers[3].body;
    model.lastPoll = clock.now();
    connection.pollOk = true;
    connection.error = null;
  } catch (error) {
    connection.pollOk = false;
    connection.error = error && error.message ? error.message : String(error);
  } finally {
    polling = false;
    changed();
  }
}

function onStreamEvent(apply) {
  return function (message) {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch (error) {
      return;
    }
    apply(event);
    changed();
  };
}

function connect() {
  const query = token === null ? '' : '?token=' + encodeURIComponent(token);
  source = new EventSource('v1/events' + query);
  source.addEventListener('open', function () {
    connection.stream = 'open';
    // Events sent while the stream was down are lost: a snapshot brings the model back.
    poll();
    changed();
  });
  source.addEventListener('error', function () {
    connection.stream = 'reconnecting';
    // The browser retries a dropped stream itself, but gives up after an HTTP error: retry for it.
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      clock.after(RECONNECT_MS, connect);
    }
    changed();
  });
  source.addEventListener('member', onStreamEvent(applyMemberEvent));
  source.addEventListener('leader', onStreamEvent(applyLeaderEvent));
}
`;
