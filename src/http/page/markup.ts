/**
 * The status page's body: the fixed skeleton that the script fills. It holds no data at all, so nothing
 * a member says about itself can reach the markup; the script writes every value with `textContent`.
 */
export const PAGE_BODY = `
<header>
  <h1>fdkit status</h1>
  <span class="self" id="title-self"></span>
  <span class="spacer"></span>
  <span>leader: <b id="leader">…</b></span>
  <span class="badge" id="health-status" data-state="connecting">health …</span>
  <span class="badge" id="conn" data-state="connecting">connecting…</span>
</header>
<section id="summary" aria-label="Summary and filters">
  <button type="button" class="chip" data-filter="all" aria-pressed="true">members <b id="count-total">0</b></button>
  <button type="button" class="chip" data-filter="alive" aria-pressed="false"><span class="dot s-alive"></span>alive <b id="count-alive">0</b></button>
  <button type="button" class="chip" data-filter="suspect" aria-pressed="false"><span class="dot s-suspect"></span>suspect <b id="count-suspect">0</b></button>
  <button type="button" class="chip" data-filter="dead" aria-pressed="false"><span class="dot s-dead"></span>dead <b id="count-dead">0</b></button>
  <button type="button" class="chip" data-filter="left" aria-pressed="false"><span class="dot s-left"></span>left <b id="count-left">0</b></button>
  <input type="search" id="search" placeholder="Search by name" aria-label="Search by name" autocomplete="off">
  <select id="state-filter" aria-label="Filter by state">
    <option value="all">all states</option>
    <option value="alive">alive</option>
    <option value="suspect">suspect</option>
    <option value="dead">dead</option>
    <option value="left">left</option>
  </select>
  <span id="shown"></span>
</section>
<main>
  <section class="panel" id="table-panel" aria-label="Members">
    <div id="table-scroll">
      <table id="members">
        <colgroup>
          <col class="w-mark"><col class="w-name"><col class="w-address"><col class="w-state">
          <col class="w-inc"><col class="w-since"><col class="w-rtt"><col class="w-phi">
          <col class="w-accuser"><col>
        </colgroup>
        <thead>
          <tr>
            <th title="The local member">&#9733;</th>
            <th data-sort="name">Name</th>
            <th data-sort="address">Address</th>
            <th data-sort="state">State</th>
            <th data-sort="incarnation" title="Incarnation">Inc.</th>
            <th data-sort="since" title="Time of the last transition">Since</th>
            <th data-sort="rtt" title="Smoothed probe round-trip time">RTT</th>
            <th data-sort="phi" title="Phi of the silence since the last message">&#966;</th>
            <th data-sort="accuser" title="Who raised the suspicion or declared the death, and the independent confirmations">Suspected by</th>
            <th title="Metadata">Meta</th>
          </tr>
        </thead>
        <tbody id="rows"></tbody>
      </table>
      <p id="empty" hidden>No member matches.</p>
    </div>
  </section>
  <aside>
    <section class="panel" aria-label="This member">
      <h2>This member</h2>
      <dl>
        <dt>name</dt><dd id="self-name">…</dd>
        <dt>address</dt><dd id="self-address">…</dd>
        <dt>incarnation</dt><dd id="self-incarnation">…</dd>
        <dt>local health</dt><dd id="self-health">…</dd>
        <dt>joined</dt><dd id="self-joined">…</dd>
        <dt>pending broadcasts</dt><dd id="self-pending">…</dd>
        <dt>last update</dt><dd id="self-updated">…</dd>
      </dl>
    </section>
    <section class="panel" aria-label="Cluster grid">
      <h2>Cluster</h2>
      <div id="grid-box"><canvas id="grid" height="24"></canvas></div>
      <p id="grid-tip">Hover a dot to see its member; click to search for it.</p>
    </section>
    <section class="panel" aria-label="Suspicions">
      <h2>Who suspects whom</h2>
      <ul id="suspicions"></ul>
    </section>
    <section class="panel" id="timeline-panel" aria-label="Timeline">
      <h2>Timeline</h2>
      <ol id="timeline"></ol>
    </section>
  </aside>
</main>
`;
