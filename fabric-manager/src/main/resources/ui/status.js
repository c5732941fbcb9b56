// The operator's status page: polls the daemon's read-only REST endpoints every few seconds and draws
// the fabric by level (leaves at the bottom), switch states, failed and quarantined cables, the routing
// in force, the last fault reactions and the link load under a chosen traffic pattern as a heat map.
// Every URL is relative, so the page works behind any host name, over HTTP or HTTPS. Text from the
// fabric (switch names, messages) is only ever set as textContent, never parsed as markup.
(function () {
  'use strict';

  var POLL_MS = 3000;
  /** Above this many switches the fabric is drawn one cell per (level, group) instead of one per switch. */
  var DRAW_EVERY_SWITCH_UP_TO = 256;
  /** Above this many switches link loads are computed only when asked for (about a second of CPU at 768). */
  var AUTO_LOAD_UP_TO = 256;
  /**
   * The load scale is absolute, not relative to the busiest link: a balanced fabric is pale and a fault makes
   * links darker. Under a permutation pattern a link carrying 1 route is free of contention and HOT_ROUTES or
   * more is the darkest; under all-to-all a link is compared with its tier's fair share (the mean of the links
   * of the same levels), the darkest from HOT_SHARE times it.
   */
  var HOT_ROUTES = 4;
  var HOT_SHARE = 2;
  var EVENTS_KEPT = 200;
  var REACTIONS_SHOWN = 8;
  var STATES = ['IN_SYNC', 'PENDING', 'PENDING_ADMISSION', 'DRAINED', 'FAILING', 'DEAD'];
  var STATE_TEXT = {
    IN_SYNC: 'in sync', PENDING: 'pending', PENDING_ADMISSION: 'pending admission', DRAINED: 'drained',
    FAILING: 'failing', DEAD: 'dead'
  };
  // light to dark blue-purple: no contention is pale, contended links stand out
  var HEAT = [[0xe0, 0xec, 0xf4], [0x9e, 0xbc, 0xda], [0x8c, 0x96, 0xc6], [0x88, 0x56, 0xa7], [0x81, 0x0f, 0x7c]];
  var SVG_NS = 'http://www.w3.org/2000/svg';

  var view = {
    status: null, graph: null, routing: null, faults: null, events: [], lastSeq: 0,
    load: null, loadKey: null, loadError: null, loadPending: false, loadAsked: false,
    expanded: null, // "level:group" of the group drawn switch by switch below the aggregate
    pattern: 'shift'
  };

  // ---- small DOM helpers ------------------------------------------------------------------------

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    append(e, children);
    return e;
  }

  function svg(tag, attrs, children) {
    var e = document.createElementNS(SVG_NS, tag);
    setAttrs(e, attrs);
    append(e, children);
    return e;
  }

  function setAttrs(e, attrs) {
    if (!attrs) { return; }
    Object.keys(attrs).forEach(function (k) {
      if (attrs[k] !== null && attrs[k] !== undefined) { e.setAttribute(k, String(attrs[k])); }
    });
  }

  function append(e, children) {
    if (children === null || children === undefined) { return; }
    (Array.isArray(children) ? children : [children]).forEach(function (c) {
      if (c === null || c === undefined) { return; }
      e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    });
  }

  function clear(e) { while (e.firstChild) { e.removeChild(e.firstChild); } return e; }

  function text(id, value) { $(id).textContent = value === null || value === undefined ? '–' : String(value); }

  function title(s) { return svg('title', null, s); }

  function fmtTime(ms) {
    var d = new Date(ms);
    function two(n) { return (n < 10 ? '0' : '') + n; }
    return two(d.getHours()) + ':' + two(d.getMinutes()) + ':' + two(d.getSeconds());
  }

  function fmtMs(ms) {
    if (ms === null || ms === undefined) { return '–'; }
    return ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : ms.toFixed(ms < 10 ? 1 : 0) + ' ms';
  }

  function heat(fraction) {
    var f = Math.max(0, Math.min(1, fraction)) * (HEAT.length - 1);
    var i = Math.min(HEAT.length - 2, Math.floor(f));
    var t = f - i;
    var c = HEAT[i].map(function (v, k) { return Math.round(v + (HEAT[i + 1][k] - v) * t); });
    return 'rgb(' + c[0] + ',' + c[1] + ',' + c[2] + ')';
  }

  /** Where a link's load falls on the absolute scale (0 pale .. 1 darkest) for a link from level a to level b. */
  function loadScale(load) {
    if (load.pattern !== 'all2all') {
      return { at: function (routes) { return (routes - 1) / (HOT_ROUTES - 1); }, share: false };
    }
    var byLevel = {};
    var byGuid = {};
    (view.graph ? view.graph.switches : []).forEach(function (n) { byGuid[n.guid] = n.level; });
    var q = load.links;
    for (var k = 0; k < q.length; k += 4) {
      var tier = byGuid[load.switches[q[k]]] + '>' + byGuid[load.switches[q[k + 2]]];
      var t = byLevel[tier] || (byLevel[tier] = { sum: 0, n: 0 });
      t.sum += q[k + 3];
      t.n++;
    }
    return {
      at: function (routes, from, to) {
        var t = byLevel[from + '>' + to];
        var fair = t && t.sum > 0 ? t.sum / t.n : 1;
        return (routes / fair - 1) / (HOT_SHARE - 1);
      },
      share: true
    };
  }

  // ---- fetching ---------------------------------------------------------------------------------

  function getJson(url, acceptStatuses) {
    return fetch(url, { cache: 'no-store', headers: { Accept: 'application/json' } }).then(function (r) {
      return r.json().catch(function () { return { error: 'HTTP ' + r.status }; }).then(function (body) {
        if (r.ok || (acceptStatuses && acceptStatuses.indexOf(r.status) >= 0)) { return body; }
        var e = new Error(url + ': ' + (body && body.error ? body.error : 'HTTP ' + r.status));
        e.status = r.status;
        throw e;
      });
    });
  }

  function poll() {
    Promise.all([
      getJson('api/v1/status'),
      getJson('api/v1/fabric/graph'),
      getJson('api/v1/faults'),
      getJson('api/v1/events?since=' + view.lastSeq),
      getJson('health/ready', [503]),
      // how far a repair is from a full recompute (computed once per version by the daemon, read here)
      getJson('api/v1/routing').catch(function () { return null; }),
      // links erring without going down: suspect, bad, isolated by the gray-link policy
      getJson('api/v1/links/health').catch(function () { return null; })
    ]).then(function (r) {
      view.status = r[0];
      view.graph = r[1];
      view.faults = r[2];
      r[3].forEach(function (m) { view.events.push(m); view.lastSeq = Math.max(view.lastSeq, m.seq); });
      if (view.events.length > EVENTS_KEPT) { view.events = view.events.slice(view.events.length - EVENTS_KEPT); }
      view.ready = r[4];
      view.routing = r[5];
      view.links = r[6];
      $('error').hidden = true;
      render();
      maybeLoad();
      $('updated').textContent = 'updated ' + fmtTime(Date.now());
    }).catch(function (e) {
      var box = $('error');
      box.textContent = 'Cannot reach the daemon: ' + e.message + ' (retrying every ' + POLL_MS / 1000 + ' s)';
      box.hidden = false;
    }).then(function () {
      setTimeout(poll, POLL_MS);
    });
  }

  function patternText() {
    var p = $('pattern').value;
    if (p !== 'random') { return p; }
    var count = Math.max(1, Math.min(1000, parseInt($('permutations').value, 10) || 1));
    var seed = parseInt($('seed').value, 10) || 0;
    return 'random:' + count + ':' + seed;
  }

  /** Fetches the link loads when the routing version or the pattern changed (the daemon caches them per version). */
  function maybeLoad() {
    var g = view.graph;
    if (!g || g.version <= 0 || view.loadPending) { return; }
    if (g.switchCount > AUTO_LOAD_UP_TO && !view.loadAsked) {
      $('load-summary').textContent = g.switchCount + ' switches: link loads are computed when asked for (press Show)';
      return;
    }
    var key = g.version + '/' + view.pattern;
    if (view.loadKey === key && (view.load || !view.loadError || !view.loadError.retry)) { return; }
    view.loadPending = true;
    $('load-summary').textContent = 'computing link loads for v' + g.version + ' under ' + view.pattern + '…';
    getJson('api/v1/fabric/load?pattern=' + encodeURIComponent(view.pattern)).then(function (load) {
      view.load = load;
      view.loadKey = load.version + '/' + view.pattern;
      view.loadError = null;
    }).catch(function (e) {
      view.load = null;
      view.loadKey = key;
      // 503: busy or still computing, ask again on the next poll; 400: a bad pattern, say so and wait for another
      view.loadError = { message: e.message, retry: e.status !== 400 };
    }).then(function () {
      view.loadPending = false;
      renderLoad();
      renderFabric();
    });
  }

  // ---- rendering --------------------------------------------------------------------------------

  function render() {
    renderCards();
    renderLegend();
    renderFabric();
    renderLoad();
    renderReactions();
    renderFaults();
    renderGrayLinks();
    renderEvents();
  }

  /** ", repaired: 1234 entries from a full recompute (all2all max 48 → 40)", or how far that is known. */
  function fromFullText(r) {
    if (!r || !r.routing || !r.routing.repaired) { return ''; }
    if (r.fromFull !== 'known' || !r.estimate) {
      return ', repaired (distance from a full recompute: ' + (r.fromFull === 'onRequest' ? 'ask the rebalance what-if' : r.fromFull) + ')';
    }
    var e = r.estimate;
    var gaps = [];
    Object.keys(e.after).forEach(function (p) {
      var b = e.before[p];
      if (b && b.max !== e.after[p].max) { gaps.push(p + ' max ' + b.max + ' \u2192 ' + e.after[p].max); }
    });
    return ', repaired: ' + e.changedEntries + ' entries from a full recompute' +
        (gaps.length ? ' (' + gaps.join(', ') + ')' : ', same congestion') +
        (e.changedEntries > 0 ? '; POST api/v1/routing/rebalance applies it' : '');
  }

  // OpenSM as its plug-in's keepalives show it; hidden for a daemon without OpenSM
  function renderOpenSm(o) {
    var b = $('opensm');
    b.hidden = !o;
    if (!o) {
      return;
    }
    b.textContent = o.state === 'UP' ? 'OpenSM up' : o.state === 'LOST' ? 'OpenSM LOST' : 'waiting for OpenSM';
    b.className = 'badge ' + (o.state === 'UP' ? 'good' : o.state === 'LOST' ? 'bad' : 'busy');
    b.title = o.state === 'LOST' ? 'since ' + new Date(o.sinceMillis).toLocaleString() + ': ' + o.lostReason +
        '; the switches keep their tables, but nothing can change them'
      : (o.smState ? 'SM ' + o.smState + ', ' : '') + (o.lastKeepaliveMs !== null ? 'last keepalive ' +
        Math.round(o.lastKeepaliveMs / 1000) + ' s ago' : 'no keepalive yet');
  }

  function renderCards() {
    var s = view.status;
    var g = view.graph;
    var st = $('daemon-state');
    st.textContent = s.state;
    st.className = 'badge ' + (s.state === 'CONVERGED' ? 'good' : s.state === 'ROUTING' || s.state === 'PUSHING' ? 'busy' : '');
    var ready = $('ready');
    if (view.ready) {
      ready.textContent = view.ready.ready ? 'ready' : 'not ready';
      ready.className = 'badge ' + (view.ready.ready ? 'good' : 'bad');
      ready.title = view.ready.reason || '';
    }
    renderOpenSm(s.opensm);
    text('switch-count', g.switchCount);
    $('switch-sub').textContent = s.switches.connected + ' connected' +
        (s.switches.expected !== null && s.switches.expected !== undefined ? ', ' + s.switches.expected + ' expected' : '');
    text('node-count', s.nodes);
    $('discovery').textContent = s.discovery ? discoveryText(s.discovery) : '';
    $('discovery').title = s.discovery ? s.discovery.summary : '';
    text('routing-version', s.routing.version > 0 ? 'v' + s.routing.version : 'none');
    $('routing-engine').textContent = s.routing.engine + (s.routing.durationMs !== null ? ', ' + fmtMs(s.routing.durationMs) : '') +
        (s.routing.reusedFromState ? ', reused' : '') + (s.routing.valid === false ? ', INVALID' : '') +
        (s.routing.unreachableLeafPairs ? ', ' + s.routing.unreachableLeafPairs + ' leaf pairs unreachable' : '') +
        fromFullText(view.routing);
    text('tables', s.tables.inSync + ' / ' + s.switches.connected);
    $('tables-sub').textContent = 'in sync' + (s.tables.pending ? ', ' + s.tables.pending + ' pending' : '') +
        (s.tables.failing ? ', ' + s.tables.failing + ' failing' : '');
    var l = g.links;
    text('link-count', l.up + l.failed + l.quarantined + (l.drained || 0));
    $('link-sub').textContent = l.failed + ' failed, ' + l.quarantined + ' quarantined' +
        (l.drained ? ', ' + l.drained + ' drained' : '');
    var f = view.faults;
    text('reaction-count', f.reactions);
    $('ring').textContent = f.detectorEnabled ? 'ring of ' + f.ringMembers + ', epoch ' + f.ringEpoch +
        (f.pendingEvents ? ', reacting (' + f.pendingEvents + ' events)' : '') : 'ring detector off';
    $('build').textContent = 'fabric-manager ' + s.build.version + ' (' + s.build.commit + '), daemon ' + s.daemonId +
        ', up ' + Math.round(s.uptimeMs / 1000) + ' s';
  }

  /** The check's verdict, with the drained parts it found present (they are not missing): "intact, 1 link drained". */
  function discoveryText(d) {
    var drained = [];
    if (d.drainedSwitches) drained.push(d.drainedSwitches + (d.drainedSwitches === 1 ? ' switch' : ' switches'));
    if (d.drainedLinks) drained.push(d.drainedLinks + (d.drainedLinks === 1 ? ' link' : ' links'));
    return d.verdict.toLowerCase() + (drained.length ? ', ' + drained.join(' and ') + ' drained' : '') +
        (d.unready ? ' (not ready)' : '');
  }

  function renderLegend() {
    var box = clear($('state-legend'));
    STATES.forEach(function (s) {
      box.appendChild(el('span', { 'class': 'chip', 'data-state': s }, [
        el('i', { 'class': 'state-' + s }), STATE_TEXT[s] + ' ', el('b', { id: 'count-' + s }, view.graph.states[s])
      ]));
    });
    box.appendChild(el('span', { 'class': 'chip' }, [el('i', { 'class': 'swatch', id: 'failed-swatch' }), 'failed link']));
    box.appendChild(el('span', { 'class': 'chip' }, [el('i', { 'class': 'swatch', id: 'quarantined-swatch' }), 'quarantined link']));
    $('failed-swatch').style.background = 'repeating-linear-gradient(90deg, #c92a2a 0 4px, transparent 4px 7px)';
    box.appendChild(el('span', { 'class': 'chip' }, [el('i', { 'class': 'swatch', id: 'drained-swatch' }), 'drained link']));
    $('quarantined-swatch').style.background = 'repeating-linear-gradient(90deg, #f08c00 0 2px, transparent 2px 4px)';
    $('drained-swatch').style.background = 'repeating-linear-gradient(90deg, #868e96 0 1px, transparent 1px 4px)';
  }

  /** Switches by level (top first), each level's in group order. */
  function levels(nodes) {
    var by = {};
    nodes.forEach(function (n) { (by[n.level] = by[n.level] || []).push(n); });
    return Object.keys(by).map(Number).sort(function (a, b) {
      // level 0 (not placed) goes under the leaves
      return (b === 0 ? Infinity : b) - (a === 0 ? Infinity : a);
    }).map(function (l) { return { level: l, nodes: by[l] }; });
  }

  function levelName(l) { return l === 0 ? 'not placed' : l === 1 ? 'L1 leaves' : 'L' + l; }

  function renderFabric() {
    var g = view.graph;
    if (!g) { return; }
    var box = clear($('fabric'));
    if (g.switchCount === 0) {
      box.appendChild(el('p', { 'class': 'muted' }, 'No switch has connected yet.'));
      $('fabric-mode').textContent = '';
      return;
    }
    if (g.switchCount <= DRAW_EVERY_SWITCH_UP_TO) {
      $('fabric-mode').textContent = 'every switch; links coloured by predicted load' + (view.load ? ' (' + view.load.pattern + ')' : '');
      box.appendChild(drawSwitches(g.switches, true));
      $('pod-detail').hidden = true;
    } else {
      $('fabric-mode').textContent = g.switchCount + ' switches: one cell per pod and level, coloured by its worst ' +
          'switch (count of switches not in sync inside); click a cell to see its switches';
      box.appendChild(drawGroups(g.groups));
      renderPodDetail();
    }
  }

  /** Every switch as a small box; cables coloured by load when loads are known, failed and quarantined ones marked. */
  function drawSwitches(nodes, withCables) {
    var rows = levels(nodes);
    var widest = Math.max.apply(null, rows.map(function (r) { return r.nodes.length; }));
    var avail = Math.max(600, ($('fabric').clientWidth || 1100) - 90);
    var step = Math.max(8, Math.min(28, Math.floor(avail / (widest + 8))));
    var size = Math.max(6, step - 3);
    var rowGap = withCables ? 110 : 46;
    var left = 84;
    var pos = {};
    var width = 0;
    var shapes = [];
    rows.forEach(function (r, i) {
      var y = 20 + i * rowGap;
      var x = left;
      var lastGroup = null;
      shapes.push(svg('text', { x: 0, y: y + size / 2 + 4, 'class': 'axis' }, levelName(r.level)));
      r.nodes.forEach(function (n) {
        if (lastGroup !== null && n.group !== lastGroup) { x += step / 2; } // a gap between pods
        lastGroup = n.group;
        pos[n.guid] = { x: x + size / 2, y: y + size / 2, level: n.level, state: n.state };
        shapes.push(svg('rect', {
          x: x, y: y, width: size, height: size, rx: 2, 'class': 'switch ' + n.state + ' state-' + n.state,
          'data-guid': n.guid, 'data-state': n.state
        }, title((n.name || n.guid) + '\n' + n.guid + '\n' + STATE_TEXT[n.state])));
        x += step;
      });
      width = Math.max(width, x);
    });
    var height = 20 + (rows.length - 1) * rowGap + size + 12;
    var s = svg('svg', { width: width + 10, height: height, viewBox: '0 0 ' + (width + 10) + ' ' + height, id: 'fabric-svg' });
    if (withCables) { s.appendChild(drawCables(pos)); }
    shapes.forEach(function (e) { s.appendChild(e); });
    return s;
  }

  function drawCables(pos) {
    var layer = svg('g', { 'class': 'cables' });
    var load = view.load;
    if (load) {
      // one line per cable, coloured by the busier direction
      var seen = {};
      var routes = {};
      var scale = loadScale(load);
      var q = load.links;
      for (var k = 0; k < q.length; k += 4) {
        var a = load.switches[q[k]], b = load.switches[q[k + 2]];
        var id = a < b ? a + '|' + b : b + '|' + a;
        if (!pos[a] || !pos[b]) { continue; }
        var f = Math.max(0, Math.min(1, scale.at(q[k + 3], pos[a].level, pos[b].level)));
        if (seen[id] === undefined || f > seen[id]) { seen[id] = f; routes[id] = q[k + 3]; }
      }
      // contended cables last, so that they are drawn over the pale ones
      Object.keys(seen).sort(function (x, y) { return seen[x] - seen[y]; }).forEach(function (id) {
        var ends = id.split('|');
        var pa = pos[ends[0]], pb = pos[ends[1]];
        var line = svg('line', { x1: pa.x, y1: pa.y, x2: pb.x, y2: pb.y, 'class': 'cable', 'data-heat': seen[id].toFixed(2) },
            title(ends[0] + ' – ' + ends[1] + ': up to ' + routes[id] + ' routes (predicted for ' + load.pattern + ')'));
        line.style.stroke = heat(seen[id]);
        line.style.strokeWidth = String(0.5 + 2 * seen[id]);
        layer.appendChild(line);
      });
    }
    view.graph.downLinks.forEach(function (c) {
      var pa = pos[c.a], pb = pos[c.b];
      // a dead switch is marked itself; its cables, down with it, would only hide the live ones
      if (!pa || !pb || (c.state === 'failed' && (pa.state === 'DEAD' || pb.state === 'DEAD'))) { return; }
      layer.appendChild(svg('line', { x1: pa.x, y1: pa.y, x2: pb.x, y2: pb.y, 'class': 'cable ' + c.state, 'data-link': c.state },
          title((c.aName || c.a) + ':' + c.aPort + ' – ' + (c.bName || c.b) + ':' + c.bPort + ' ' + c.state)));
    });
    return layer;
  }

  /** One cell per (level, group), coloured by its worst switch; the number is how many are not in sync. */
  function drawGroups(groups) {
    var rows = levels(groups.map(function (gr) { return { level: gr.level, group: gr.group, g: gr }; }));
    var widest = Math.max.apply(null, rows.map(function (r) { return r.nodes.length; }));
    var avail = Math.max(600, ($('fabric').clientWidth || 1100) - 90);
    var step = Math.max(30, Math.min(72, Math.floor(avail / widest)));
    var w = step - 6, h = 34, left = 84, rowGap = 54;
    var height = 16 + rows.length * rowGap;
    var width = left + widest * step + 10;
    var s = svg('svg', { width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, id: 'fabric-svg' });
    rows.forEach(function (r, i) {
      var y = 10 + i * rowGap;
      s.appendChild(svg('text', { x: 0, y: y + h / 2 + 4, 'class': 'axis' }, levelName(r.level)));
      r.nodes.forEach(function (n, j) {
        var gr = n.g;
        var x = left + j * step;
        var key = gr.level + ':' + gr.group;
        var bad = gr.switches - gr.states.IN_SYNC;
        var lines = [gr.label + ' at ' + levelName(gr.level) + ': ' + gr.switches + ' switches'];
        STATES.forEach(function (st) { if (gr.states[st]) { lines.push(gr.states[st] + ' ' + STATE_TEXT[st]); } });
        var cell = svg('rect', {
          x: x, y: y, width: w, height: h, rx: 3, 'class': 'group state-' + gr.worst + (view.expanded === key ? ' selected' : ''),
          'data-group': key, 'data-state': gr.worst
        }, title(lines.join('\n')));
        cell.addEventListener('click', function () {
          view.expanded = view.expanded === key ? null : key;
          renderFabric();
        });
        s.appendChild(cell);
        var label = svg('text', { x: x + w / 2, y: y + h / 2 + 4, 'text-anchor': 'middle', 'class': 'on-cell' },
            bad > 0 ? bad + '/' + gr.switches : String(gr.switches));
        label.style.pointerEvents = 'none';
        s.appendChild(label);
      });
    });
    return s;
  }

  /** The switches of the expanded group: for a pod, the whole pod on every level below the top. */
  function renderPodDetail() {
    var box = clear($('pod-detail'));
    if (!view.expanded) { box.hidden = true; return; }
    var parts = view.expanded.split(':').map(Number);
    var g = view.graph;
    var group = g.groups.filter(function (gr) { return gr.level === parts[0] && gr.group === parts[1]; })[0];
    if (!group) { view.expanded = null; box.hidden = true; return; }
    var pod = /^pod /.test(group.label);
    var members = g.switches.filter(function (n) {
      if (n.group !== parts[1]) { return false; }
      if (!pod) { return n.level === parts[0]; }
      var gr = g.groups.filter(function (x) { return x.level === n.level && x.group === n.group; })[0];
      return gr && /^pod /.test(gr.label);
    });
    box.hidden = false;
    box.appendChild(el('h3', null, (pod ? group.label : group.label + ' at ' + levelName(group.level)) + ': ' +
        members.length + ' switches'));
    box.appendChild(drawSwitches(members, false));
    var list = el('ul', { 'class': 'plain' });
    members.filter(function (n) { return n.state !== 'IN_SYNC'; }).forEach(function (n) {
      list.appendChild(el('li', null, [el('i', { 'class': 'state-' + n.state }), (n.name || n.guid) + ' (' + n.guid + '): ' + STATE_TEXT[n.state]]));
    });
    box.appendChild(list);
  }

  // ---- link load heat map -----------------------------------------------------------------------

  function renderLoad() {
    var box = clear($('heatmap'));
    var legend = clear($('heat-legend'));
    var load = view.load;
    if (!load) {
      if (view.loadError) {
        $('load-summary').textContent = view.loadError.message;
      } else if (!view.graph || view.graph.version <= 0) {
        $('load-summary').textContent = 'no routing yet';
      }
      return;
    }
    $('load-summary').textContent = 'predicted from the tables, not measured traffic: ' + load.pattern + ' on v' + load.version + ' (' + load.engine + '): ' + load.permutations +
        ' permutation' + (load.permutations === 1 ? '' : 's') + ', at most ' + load.max + ' routes on a link' +
        (load.permutations > 1 ? ', mean of the maxima ' + load.mean.toFixed(2) : '') +
        (load.unroutedPairs ? ', ' + load.unroutedPairs + ' pairs unrouted' : '') + ' — computed in ' + fmtMs(load.computeMs);
    var scale = loadScale(load);
    legend.appendChild(document.createTextNode(scale.share ? 'fair share ' : '1 route (no contention) '));
    for (var i = 0; i <= 10; i++) {
      var sw = el('i', { 'class': 'swatch' });
      sw.style.background = heat(i / 10);
      sw.style.width = '8px';
      legend.appendChild(sw);
    }
    legend.appendChild(document.createTextNode(scale.share ? ' ' + HOT_SHARE + '× fair share or more'
        : ' ' + HOT_ROUTES + ' routes or more on a link'));
    var g = view.graph;
    var byGuid = {};
    g.switches.forEach(function (n) { byGuid[n.guid] = n; });
    var groups = {};
    g.groups.forEach(function (gr) { groups[gr.level + ':' + gr.group] = gr; });
    var perSwitch = g.switchCount <= DRAW_EVERY_SWITCH_UP_TO;
    // rows: link tiers (from level -> to level); columns: the sending switch (or its group)
    var rows = {};
    var q = load.links;
    for (var k = 0; k < q.length; k += 4) {
      var from = byGuid[load.switches[q[k]]], to = byGuid[load.switches[q[k + 2]]];
      if (!from || !to) { continue; }
      var tier = from.level + '>' + to.level;
      var col = perSwitch ? from.guid : from.level + ':' + from.group;
      var row = rows[tier] || (rows[tier] = { from: from.level, to: to.level, cells: {} });
      var c = row.cells[col] || (row.cells[col] = { max: 0, sum: 0, n: 0, node: from });
      c.max = Math.max(c.max, q[k + 3]);
      c.sum += q[k + 3];
      c.n++;
    }
    var tiers = Object.keys(rows).map(function (t) { return rows[t]; }).sort(function (a, b) {
      var ua = a.to > a.from, ub = b.to > b.from;
      if (ua !== ub) { return ua ? -1 : 1; }
      return ua ? a.from - b.from : b.from - a.from;
    });
    if (tiers.length === 0) {
      box.appendChild(el('p', { 'class': 'muted' }, 'No switch-to-switch links in the routed fabric.'));
      return;
    }
    var widest = 0;
    tiers.forEach(function (t) {
      t.cols = Object.keys(t.cells).sort(function (a, b) {
        var na = t.cells[a].node, nb = t.cells[b].node;
        return na.group - nb.group || (na.guid < nb.guid ? -1 : na.guid > nb.guid ? 1 : 0);
      });
      widest = Math.max(widest, t.cols.length);
    });
    var avail = Math.max(600, ($('heatmap').clientWidth || 1100) - 110);
    var step = Math.max(6, Math.min(60, Math.floor(avail / widest)));
    var h = 22, left = 104;
    var width = left + widest * step + 10;
    var height = tiers.length * (h + 6) + 8;
    var s = svg('svg', { width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, id: 'heat-svg' });
    tiers.forEach(function (t, i) {
      var y = 4 + i * (h + 6);
      var up = t.to > t.from;
      s.appendChild(svg('text', { x: 0, y: y + h / 2 + 4, 'class': 'axis' },
          'L' + t.from + ' → L' + t.to + (up ? ' up' : ' down')));
      t.cols.forEach(function (col, j) {
        var c = t.cells[col];
        var label = perSwitch ? (c.node.name || c.node.guid) : groups[col] ? groups[col].label : col;
        var cell = svg('rect', { x: left + j * step, y: y, width: Math.max(2, step - 1), height: h, 'class': 'heat',
          'data-load': c.max },
            title(label + ', L' + t.from + ' → L' + t.to + ': at most ' + c.max + ' routes on one of its ' + c.n +
                ' links (mean ' + (c.sum / c.n).toFixed(1) + ')'));
        cell.style.fill = heat(scale.at(c.max, t.from, t.to));
        s.appendChild(cell);
      });
    });
    box.appendChild(s);
  }

  // ---- reactions, faults, events ----------------------------------------------------------------

  function renderReactions() {
    var body = clear($('reactions').tBodies[0]);
    var reactions = view.events.filter(function (m) { return m.kind === 'REACTION' || m.kind === 'REROUTE'; })
        .slice(-REACTIONS_SHOWN).reverse();
    if (reactions.length === 0) {
      body.appendChild(el('tr', null, el('td', { colspan: 3, 'class': 'muted' }, 'No fault reaction yet.')));
      return;
    }
    reactions.forEach(function (m) {
      var d = m.details || {};
      var total = d.faultToConvergedMs !== undefined ? d.faultToConvergedMs : d.requestToConvergedMs;
      var figures = [
        'converged in ' + fmtMs(total),
        'routing ' + fmtMs(d.engineMs) + ' (' + d.computations + 'x)',
        d.blocksPushed + ' blocks, ' + d.switchesAcked + ' switches acked',
        'v' + d.tableVersion
      ];
      if (d.nodesCutOff !== undefined) {
        // who the fault touched: the nodes cut off by name, the moved ones by count
        figures.push(d.nodesCutOff > 0 ? d.nodesCutOff + ' end nodes cut off (' + (d.cutOffNodes || [])
            .slice(0, 8).map(function (n) { return n.name; }).join(', ') + (d.nodesCutOff > 8 ? ', …' : '') + ')'
            : 'no end node cut off');
        figures.push(d.nodesMoved + ' end nodes moved');
      }
      var what = (m.kind === 'REACTION' ? 'fault: ' : 're-route: ') + (d.triggers && d.triggers.length
          ? d.triggers[0] + (d.triggerCount > 1 ? ' (+' + (d.triggerCount - 1) + ' more)' : '') : m.message);
      body.appendChild(el('tr', { 'data-kind': m.kind }, [
        el('td', null, el('time', null, fmtTime(m.timeMillis))),
        el('td', null, what),
        el('td', { 'class': 'figures' }, figures.join(' · '))
      ]));
    });
  }

  function renderFaults() {
    var list = clear($('faults'));
    var f = view.faults;
    var g = view.graph;
    g.switches.filter(function (n) {
      return n.state === 'DEAD' || n.state === 'FAILING' || n.state === 'PENDING_ADMISSION' || n.state === 'DRAINED';
    })
        .slice(0, 50).forEach(function (n) {
          list.appendChild(el('li', { 'data-state': n.state }, [el('span', { 'class': 'chip' }, [el('i', { 'class': 'state-' + n.state })]),
            ' ' + (n.name || n.guid) + ' ' + STATE_TEXT[n.state] + ' (' + levelName(n.level) + ')']));
        });
    var dead = {};
    g.switches.forEach(function (n) { if (n.state === 'DEAD' || n.state === 'DRAINED') { dead[n.guid] = true; } });
    // a dead or drained switch's cables are down with it: list the others
    g.downLinks.filter(function (c) { return !dead[c.a] && !dead[c.b]; }).slice(0, 50).forEach(function (c) {
      list.appendChild(el('li', { 'data-link': c.state }, (c.state === 'quarantined' ? 'quarantined (flapping): '
          : c.state === 'drained' ? 'drained (maintenance): ' : 'link down: ') +
          (c.aName || c.a) + ':' + c.aPort + ' – ' + (c.bName || c.b) + ':' + c.bPort));
    });
    if (f.nodesUnreachable > 0) {
      list.appendChild(el('li', { 'data-nodes': 'unreachable' }, f.nodesUnreachable + ' end nodes unreachable: ' +
          (f.unreachableNodes || []).slice(0, 20).map(function (n) { return n.name + ' (' + n.index + ')'; }).join(', ') +
          (f.nodesUnreachable > 20 ? ', …' : '')));
    }
    (f.unwatched || []).slice(0, 20).forEach(function (u) {
      list.appendChild(el('li', null, 'not watched by the ring: ' + (u.name || u.guid) + ' (' + u.reason + ')'));
    });
    if (!list.firstChild) {
      list.appendChild(el('li', { 'class': 'muted' }, 'No faults.'));
    }
  }

  /** The links judged suspect or bad from their counters and those the gray-link policy isolated, with why. */
  function renderGrayLinks() {
    var body = clear($('gray-links').tBodies[0]);
    var links = view.links;
    if (!links || !links.length) {
      body.appendChild(el('tr', null, [el('td', { 'class': 'muted', colspan: '3' },
          links ? 'No link errs beyond its thresholds.' : 'Link health is not available.')]));
      return;
    }
    links.slice(0, 50).forEach(function (l) {
      var ends = l.link.split('-');
      var name = (l.aName ? l.aName + ' (' + ends[0] + ')' : ends[0]) + ' – ' + (l.bName ? l.bName + ' (' + ends[1] + ')' : ends[1]);
      var state = l.isolated ? 'isolated' : (l.level || 'not judged').toLowerCase();
      var why = l.isolated ? 'decided by: ' + (l.isolatedFigures || 'isolated before this manager started') +
          '; given back after ' + Math.round(l.probationMs / 1000) + ' s healthy; now: ' + (l.figures || 'not judged yet')
          : (l.advice ? 'not isolated (' + l.advice + '): ' : '') + (l.figures || '');
      body.appendChild(el('tr', { 'data-link-health': state }, [el('td', null, name), el('td', null, state),
        el('td', null, why)]));
    });
  }

  function renderEvents() {
    var list = clear($('events'));
    view.events.slice(-60).reverse().forEach(function (m) {
      list.appendChild(el('li', null, [el('time', null, fmtTime(m.timeMillis)), el('span', { 'class': 'kind' }, m.kind), m.message]));
    });
  }

  // ---- start ------------------------------------------------------------------------------------

  function patternChanged() {
    $('load-form').className = $('pattern').value;
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('pattern').addEventListener('change', patternChanged);
    patternChanged();
    $('load-form').addEventListener('submit', function (e) {
      e.preventDefault();
      view.pattern = patternText();
      view.loadAsked = true;
      view.load = null;
      view.loadError = null;
      view.loadKey = null;
      renderLoad();
      maybeLoad();
    });
    window.addEventListener('resize', function () { if (view.graph) { renderFabric(); renderLoad(); } });
    poll();
  });
}());
