"use strict";
// gitmem view: a force layout of the memory graph, a search filter, a reading panel.
// Memory text is only ever set as textContent: nothing from a memory is parsed as HTML.
(function () {
  var data = JSON.parse(document.getElementById("data").textContent);
  var nodes = data.nodes, edges = data.edges;
  var svg = document.getElementById("graph");
  var NS = "http://www.w3.org/2000/svg";
  var n = nodes.length;

  function hue(c) { return (c * 137.508) % 360; }
  function colour(node) { return "hsl(" + hue(node.community) + ",62%,46%)"; }
  function radius(node) { return 5 + Math.sqrt(node.pagerank * n) * 5; }

  // -- layout: communities start on a circle, then springs pull links and nearby nodes push --
  var groups = {};
  nodes.forEach(function (node, i) { (groups[node.community] = groups[node.community] || []).push(i); });
  var keys = Object.keys(groups).sort(function (a, b) { return groups[b].length - groups[a].length; });
  var spread = 60 * Math.sqrt(n + 1);
  keys.forEach(function (key, k) {
    var members = groups[key];
    var angle = 2 * Math.PI * k / keys.length;
    var cx = keys.length > 1 ? Math.cos(angle) * spread : 0;
    var cy = keys.length > 1 ? Math.sin(angle) * spread : 0;
    members.forEach(function (i, j) {
      var a = 2.399963 * j, r = 12 * Math.sqrt(j);
      nodes[i].x = cx + Math.cos(a) * r;
      nodes[i].y = cy + Math.sin(a) * r;
      nodes[i].vx = 0; nodes[i].vy = 0;
    });
  });
  var CUT = 90, REPEL = 900, SPRING = 0.04, LENGTH = 50, GRAVITY = 0.004;
  for (var step = 0; step < 300; step++) {
    var cells = {};
    nodes.forEach(function (node, i) {
      var key = Math.floor(node.x / CUT) + ":" + Math.floor(node.y / CUT);
      (cells[key] = cells[key] || []).push(i);
    });
    nodes.forEach(function (a, i) {
      var gx = Math.floor(a.x / CUT), gy = Math.floor(a.y / CUT);
      for (var dx = -1; dx <= 1; dx++) for (var dy = -1; dy <= 1; dy++) {
        var cell = cells[(gx + dx) + ":" + (gy + dy)];
        if (!cell) continue;
        for (var c = 0; c < cell.length; c++) {
          var j = cell[c];
          if (j <= i) continue;
          var b = nodes[j], ex = a.x - b.x, ey = a.y - b.y;
          var d2 = ex * ex + ey * ey + 0.01;
          if (d2 > CUT * CUT) continue;
          var f = REPEL / d2, d = Math.sqrt(d2);
          a.vx += f * ex / d; a.vy += f * ey / d;
          b.vx -= f * ex / d; b.vy -= f * ey / d;
        }
      }
    });
    edges.forEach(function (e) {
      var a = nodes[e[0]], b = nodes[e[1]];
      var ex = b.x - a.x, ey = b.y - a.y, d = Math.sqrt(ex * ex + ey * ey) + 0.01;
      var f = SPRING * (d - LENGTH);
      a.vx += f * ex / d; a.vy += f * ey / d;
      b.vx -= f * ex / d; b.vy -= f * ey / d;
    });
    var cool = 1 - step / 300;
    nodes.forEach(function (node) {
      node.vx -= node.x * GRAVITY; node.vy -= node.y * GRAVITY;
      var v = Math.sqrt(node.vx * node.vx + node.vy * node.vy), max = 30 * cool + 1;
      if (v > max) { node.vx *= max / v; node.vy *= max / v; }
      node.x += node.vx; node.y += node.vy;
      node.vx *= 0.5; node.vy *= 0.5;
    });
  }

  // -- drawing --
  var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  nodes.forEach(function (node) {
    minX = Math.min(minX, node.x); minY = Math.min(minY, node.y);
    maxX = Math.max(maxX, node.x); maxY = Math.max(maxY, node.y);
  });
  if (!n) { minX = minY = -100; maxX = maxY = 100; }
  var pad = 80, least = 300;  // a small graph is not blown up to fill the page
  if (maxX - minX < 2 * least) { var mx = (minX + maxX) / 2; minX = mx - least; maxX = mx + least; }
  if (maxY - minY < least * 1.3) { var my = (minY + maxY) / 2; minY = my - least * 0.65; maxY = my + least * 0.65; }
  svg.setAttribute("viewBox", [minX - pad, minY - pad, maxX - minX + 2 * pad, maxY - minY + 2 * pad].join(" "));
  var linkLayer = document.createElementNS(NS, "g"), nodeLayer = document.createElementNS(NS, "g");
  svg.appendChild(linkLayer); svg.appendChild(nodeLayer);
  var lines = edges.map(function (e) {
    var line = document.createElementNS(NS, "line");
    line.setAttribute("class", "link");
    line.setAttribute("x1", nodes[e[0]].x); line.setAttribute("y1", nodes[e[0]].y);
    line.setAttribute("x2", nodes[e[1]].x); line.setAttribute("y2", nodes[e[1]].y);
    linkLayer.appendChild(line);
    return line;
  });
  var ranked = nodes.map(function (_, i) { return i; })
    .sort(function (a, b) { return nodes[b].pagerank - nodes[a].pagerank; });
  var labelled = {};
  ranked.slice(0, 60).forEach(function (i) { labelled[i] = true; });
  var shapes = nodes.map(function (node, i) {
    var g = document.createElementNS(NS, "g");
    g.setAttribute("class", "node " + (node.team ? "team" : "personal"));
    g.setAttribute("data-id", node.id);
    var circle = document.createElementNS(NS, "circle");
    circle.setAttribute("cx", node.x); circle.setAttribute("cy", node.y);
    circle.setAttribute("r", radius(node));
    circle.setAttribute("fill", colour(node)); circle.setAttribute("stroke", colour(node));
    var title = document.createElementNS(NS, "title");
    title.textContent = node.id;
    circle.appendChild(title);
    g.appendChild(circle);
    var label = document.createElementNS(NS, "text");
    label.setAttribute("x", node.x + radius(node) + 3); label.setAttribute("y", node.y + 4);
    label.textContent = node.title;
    if (!labelled[i]) label.style.display = "none";
    g.appendChild(label);
    g.addEventListener("click", function () { show(i); });
    nodeLayer.appendChild(g);
    return { g: g, label: label };
  });

  // -- search --
  var haystacks = nodes.map(function (node) {
    return [node.id, node.title, node.description, (node.tags || []).join(" "), node.text].join("\n").toLowerCase();
  });
  var input = document.getElementById("search"), count = document.getElementById("count");
  // a word's other forms, as gitmem query finds them: "deployed" finds "deploy", "retries"
  // "retried" — its root without a common ending (4 letters left at least)
  var ENDINGS = ["ments", "ment", "ings", "ing", "ions", "ion", "ies", "ied", "ed", "es", "s", "ly", "ency", "ity", "y"];
  function forms(w) {
    var out = [w];
    ENDINGS.forEach(function (e) {
      if (w.length - e.length >= 4 && w.slice(-e.length) === e) out.push(w.slice(0, -e.length));
    });
    return out;
  }
  function holds(text, words) {
    return words.every(function (w) {
      return w.some(function (f) { return text.indexOf(f) >= 0; });
    });
  }
  // round 22 (recall22b): an index of pointers only (node.list) is drawn, never counted nor
  // listed: no memory, as gitmem query's listings and the page's data.total say
  var memoriesDrawn = nodes.filter(function (node) { return !node.list; }).length;
  function filter() {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean).map(forms);
    var visible = 0, shown = [], pointed = {};
    // an index (node.points) is no answer of its own: its lines found show the memories
    // they point to, as gitmem query answers (round 21)
    if (words.length) nodes.forEach(function (node) {
      (node.points || []).forEach(function (p) { if (holds(p[0], words)) pointed[p[1]] = true; });
    });
    nodes.forEach(function (node, i) {
      var ok = !words.length || (!node.points && holds(haystacks[i], words)) || pointed[i] === true;
      shown.push(ok);
      shapes[i].g.classList.toggle("hidden", !ok);
      shapes[i].label.style.display = ok && (labelled[i] || words.length) ? "" : "none";
      if (ok && !node.list) visible++;
    });
    lines.forEach(function (line, k) {
      line.classList.toggle("hidden", !(shown[edges[k][0]] && shown[edges[k][1]]));
    });
    count.textContent = visible + " of " + data.total + " memories" +
      (data.total > memoriesDrawn ? " (the " + memoriesDrawn + " most linked-to drawn)" : "");
    if (open < 0) listed(shown, words.length > 0);
  }

  // -- reading panel: what the search found, by scope; a memory's text and history, as text --
  var panel = document.getElementById("panel"), open = -1;
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function scopeOf(node) {
    return node.team ? "team" : /^user(-|$)/.test(node.scope) ? "yours, beyond this project" : "personal";
  }
  // round 19: a search filtered the drawing only (labels on top of each other, nothing to
  // click in a list) and the page never said which scopes it held
  function listed(shown, searched) {
    panel.textContent = "";
    var scopes = {}, order = [];
    nodes.forEach(function (node, i) {
      if (!shown[i] || node.list) return;
      if (!scopes[node.scope]) { scopes[node.scope] = []; order.push(node.scope); }
      scopes[node.scope].push(i);
    });
    order.sort();
    if (!order.length) {
      panel.appendChild(el("p", "No memory matches.", "hint"));
      return;
    }
    panel.appendChild(el("p", searched ? "Found, by scope — click one to read it:" :
      "Click a memory to read it and see its history. Scopes:", "hint"));
    order.forEach(function (scope) {
      var first = nodes[scopes[scope][0]];
      panel.appendChild(el("h3", scope + " (" + scopes[scope].length + ", " + scopeOf(first) + ")", "scope"));
      var list = el("ul", undefined, "found");
      scopes[scope].slice(0, searched ? 50 : 8).forEach(function (i) {
        var item = el("li"), button = el("button", nodes[i].title, "memory");
        button.type = "button";
        button.addEventListener("click", function () { show(i); });
        item.appendChild(button);
        item.appendChild(el("span", " " + nodes[i].id, "id"));
        list.appendChild(item);
      });
      if (scopes[scope].length > (searched ? 50 : 8)) list.appendChild(el("li", "…", "hint"));
      panel.appendChild(list);
    });
  }
  function firstShown() {
    for (var i = 0; i < n; i++) if (!shapes[i].g.classList.contains("hidden")) return i;
    return -1;
  }
  input.addEventListener("input", function () {
    open = -1;
    shapes.forEach(function (s) { s.g.classList.remove("selected"); });
    filter();
  });
  input.addEventListener("keydown", function (e) {  // Enter reads the first found
    if (e.key === "Enter" && firstShown() >= 0) show(firstShown());
  });
  function when(t) { return new Date(t * 1000).toISOString().replace("T", " ").slice(0, 16); }
  function address(hash) {  // the page's own address: a link to what is shown (no request)
    try { window.history.replaceState(null, "", hash); } catch (e) { /* a sandboxed frame */ }
  }
  function show(i) {
    var node = nodes[i];
    open = i;
    address("#id=" + encodeURIComponent(node.id));
    var back = el("button", "← back to the list", "back");
    back.type = "button";
    back.addEventListener("click", function () {
      open = -1;
      shapes[i].g.classList.remove("selected");
      address(input.value ? "#q=" + encodeURIComponent(input.value) : "#");
      filter();
    });
    shapes.forEach(function (s, k) { s.g.classList.toggle("selected", k === i); });
    panel.textContent = "";
    panel.appendChild(back);
    panel.appendChild(el("h2", node.title));
    panel.appendChild(el("p", node.id + (node.type ? " · " + node.type : "") +
      " · " + scopeOf(node) + " · PageRank " + node.pagerank.toFixed(4), "meta"));
    if (node.description) panel.appendChild(el("p", node.description));
    panel.appendChild(el("pre", node.text));
    panel.appendChild(el("h3", "History"));
    var list = el("ul");
    if (!node.history.length) list.appendChild(el("li", "not yet synced"));
    node.history.forEach(function (h) {
      list.appendChild(el("li", when(h.time) + " " + h.author + ": " + h.subject + " (" + h.commit + ")"));
    });
    panel.appendChild(list);
    if (node.resolutions.length) {
      panel.appendChild(el("h3", "Merge resolutions"));
      var res = el("ul");
      node.resolutions.forEach(function (r) {
        res.appendChild(el("li", when(r.time) + " " + r.author + ": " + r.resolution));
      });
      panel.appendChild(res);
    }
  }

  // a link may carry a search (page.html#q=deploy), typed into the box as a person would, or
  // a memory to open (page.html#id=team/deploys.md, the address a click leaves)
  var given = /^#q=(.*)$/.exec(location.hash), wanted = /^#id=(.*)$/.exec(location.hash);
  if (given) {
    input.value = decodeURIComponent(given[1]);
    filter();
  } else {
    filter();
    if (wanted) {
      var id = decodeURIComponent(wanted[1]);
      for (var k = 0; k < n; k++) if (nodes[k].id === id) { show(k); break; }
    }
  }
})();
