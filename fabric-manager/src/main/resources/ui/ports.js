// A switch's port counters on the status page: a click on a switch of the fabric drawing shows its ports'
// packets, bytes, errors and drops as its agent last reported them (GET api/v1/switches/{guid}/ports), errors
// and drops above zero highlighted, values the daemon flagged implausible marked '?' with the reason; the table
// follows the daemon's reports while it is open (also opened by a link to the page ending in #ports=GUID). Kept
// apart from status.js, which draws the fabric: this file only listens for clicks on elements with a data-guid.
// Text from the fabric is only ever set as textContent.
(function () {
  'use strict';

  var REFRESH_MS = 10000;
  var COLUMNS = [['rxPackets', 'rx packets'], ['txPackets', 'tx packets'], ['rxBytes', 'rx bytes'],
    ['txBytes', 'tx bytes'], ['rxErrors', 'rx errors'], ['txErrors', 'tx errors'], ['rxDrops', 'rx drops'],
    ['txDrops', 'tx drops']];
  var TROUBLE = { rxErrors: true, txErrors: true, rxDrops: true, txDrops: true };
  var shown = null;
  var timer = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function number(v) { return v === null || v === undefined ? '–' : v.toLocaleString('en-US'); }

  function render(box, view) {
    while (box.firstChild) { box.removeChild(box.firstChild); }
    var head = el('div', 'panel-head');
    head.appendChild(el('h3', null, 'Ports of ' + (view.name ? view.name + ' (' + view.guid + ')' : view.guid)));
    var close = el('button', null, 'close');
    close.addEventListener('click', hide);
    head.appendChild(el('span', 'spacer'));
    head.appendChild(close);
    box.appendChild(head);
    if (!view.ports.length) {
      box.appendChild(el('p', 'muted', view.reporting ? 'no counters yet: the daemon asks every '
          + view.intervalMs / 1000 + ' s' : 'its agent reports no port counters'));
      return;
    }
    var troubled = view.ports.filter(function (p) {
      return Object.keys(TROUBLE).some(function (k) { return p[k] > 0; });
    }).length;
    box.appendChild(el('p', 'muted', 'reported ' + (view.ageMs / 1000).toFixed(1) + ' s ago, counts since the agent '
        + 'started' + (view.reporting ? '' : ' (not reporting now)') + '; ' + troubled + ' of ' + view.ports.length
        + ' ports with errors or drops'));
    var table = el('table', 'ports');
    var tr = el('tr');
    tr.appendChild(el('th', null, 'port'));
    COLUMNS.forEach(function (c) { tr.appendChild(el('th', null, c[1])); });
    var thead = el('thead');
    thead.appendChild(tr);
    table.appendChild(thead);
    var body = el('tbody');
    view.ports.forEach(function (p) {
      var row = el('tr');
      row.appendChild(el('td', null, p.port));
      COLUMNS.forEach(function (c) {
        var why = p.implausible ? p.implausible[c[0]] : undefined;
        var td = el('td', why ? 'num implausible' : TROUBLE[c[0]] && p[c[0]] > 0 ? 'num trouble' : 'num',
            number(p[c[0]]) + (why ? ' ?' : ''));
        if (why) { td.title = why; }
        row.appendChild(td);
      });
      body.appendChild(row);
    });
    table.appendChild(body);
    box.appendChild(table);
  }

  function load() {
    var box = document.getElementById('switch-ports');
    if (!shown || !box) { return; }
    var guid = shown;
    fetch('api/v1/switches/' + encodeURIComponent(guid) + '/ports', { cache: 'no-store',
      headers: { Accept: 'application/json' } }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) { throw new Error(body.error || 'HTTP ' + r.status); }
        return body;
      });
    }).then(function (view) {
      if (shown === guid) { render(box, view); }
    }).catch(function (e) {
      if (shown === guid) {
        while (box.firstChild) { box.removeChild(box.firstChild); }
        box.appendChild(el('p', 'muted', 'ports of ' + guid + ': ' + e.message));
      }
    });
  }

  function show(guid) {
    var box = document.getElementById('switch-ports');
    if (!box) { return; }
    shown = guid;
    box.hidden = false;
    load();
    if (timer) { clearInterval(timer); }
    timer = setInterval(load, REFRESH_MS);
  }

  function hide() {
    shown = null;
    if (timer) { clearInterval(timer); timer = null; }
    var box = document.getElementById('switch-ports');
    if (box) { box.hidden = true; }
  }

  // a link to one switch's ports: index.html#ports=0x1000000100000000
  var linked = /^#ports=(0x[0-9a-fA-F]{1,16})$/.exec(location.hash);
  if (linked) {
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', function () { show(linked[1]); });
    } else {
      show(linked[1]);
    }
  }

  document.addEventListener('click', function (e) {
    var t = e.target;
    var guid = t && t.getAttribute ? t.getAttribute('data-guid') : null;
    if (guid && document.getElementById('fabric-svg') && t.closest && t.closest('#fabric, #pod-detail')) {
      show(guid);
    }
  });
}());
