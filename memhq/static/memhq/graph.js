/* The memory graph page: draws GET /graph's nodes and edges (fetched from the page's data URL) with
 * cytoscape.js; the as-of control refetches the graph as it was then; clicking a node or an edge lists its
 * memories and their evidence. window.memhqGraph exposes the drawn graph (for tests and the console). */
(function () {
  "use strict";
  var COLOURS = {
    user: "#d1495b", person: "#2a9d8f", organization: "#e9c46a", organisation: "#e9c46a",
    place: "#457b9d", location: "#457b9d", product: "#f4a261", event: "#8e7dbe", value: "#adb5bd",
    other: "#6c757d"
  };
  var container = document.getElementById("graph");
  var range = document.getElementById("as-of-range");
  var picker = document.getElementById("as-of");
  var statusLine = document.getElementById("status");
  var details = document.getElementById("details");
  var span = null;
  var cy = cytoscape({
    container: container,
    wheelSensitivity: 0.3,
    maxZoom: 1.5,
    style: [
      { selector: "node", style: {
        "background-color": "data(colour)", label: "data(label)", "font-size": 11,
        "text-valign": "bottom", "text-margin-y": 4, width: "data(size)", height: "data(size)" } },
      { selector: "edge", style: {
        label: "data(predicate)", "font-size": 9, "curve-style": "bezier", "target-arrow-shape": "triangle",
        width: 1.5, "line-color": "#9aa5b1", "target-arrow-color": "#9aa5b1", "text-rotation": "autorotate",
        "text-background-color": "#fff", "text-background-opacity": 0.8 } },
      { selector: "edge[status = 'superseded']", style: { "line-style": "dashed" } },
      { selector: ":selected", style: { "border-width": 3, "border-color": "#111", "line-color": "#111" } }
    ]
  });
  window.memhqGraph = { cy: cy, data: null, loads: 0 };

  function colour(node) {
    if (node.kind === "user") return COLOURS.user;
    if (node.kind === "value") return COLOURS.value;
    return COLOURS[(node.type || "other").toLowerCase()] || COLOURS.other;
  }

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }

  function showMemories(title, edges) {
    details.replaceChildren(el("h2", title));
    if (!edges.length) details.appendChild(el("p", "No live memories at this time.", "hint"));
    edges.forEach(function (edge) {
      var item = el("div", undefined, "memory");
      item.appendChild(el("div", edge.text));
      item.appendChild(el("div", edge.predicate + " · " + edge.status + " · from " +
        (edge.valid_from || "?") + (edge.valid_until ? " until " + edge.valid_until : ""), "meta"));
      (edge.evidence || []).forEach(function (ev) {
        item.appendChild(el("blockquote", "“" + ev.quote + "”"));
      });
      details.appendChild(item);
    });
  }

  function legend(nodes) {
    var seen = {};
    var list = document.getElementById("legend");
    list.replaceChildren();
    nodes.forEach(function (node) {
      var name = node.kind === "entity" ? (node.type || "other") : node.kind;
      if (seen[name]) return;
      seen[name] = true;
      var item = el("li");
      var dot = el("span");
      dot.style.background = colour(node);
      item.append(dot, name);
      list.appendChild(item);
    });
  }

  function draw(data) {
    var byId = {};
    data.edges.forEach(function (edge) { byId[edge.id] = edge; });
    cy.elements().remove();
    cy.add(data.nodes.map(function (node) {
      return { group: "nodes", data: { id: node.id, label: node.label, kind: node.kind, colour: colour(node),
        size: node.kind === "user" ? 34 : 18 + Math.min(16, 2 * (node.mention_count || 0)) } };
    }));
    cy.add(data.edges.map(function (edge) {
      return { group: "edges", data: { id: "m:" + edge.id, source: edge.source, target: edge.target,
        predicate: edge.predicate, status: edge.status, memory: edge.id } };
    }));
    cy.layout({ name: data.nodes.length > 150 ? "grid" : "cose", animate: false, randomize: false,
      padding: 40 }).run();
    details.replaceChildren(el("p", "Click a node or an edge to see its memories and their evidence.", "hint"));
    cy.off("tap");
    cy.on("tap", "node", function (event) {
      var id = event.target.id();
      var touching = data.edges.filter(function (e) { return e.source === id || e.target === id; });
      showMemories(event.target.data("label"), touching);
    });
    cy.on("tap", "edge", function (event) {
      var edge = byId[event.target.data("memory")];
      showMemories(edge.predicate, [edge]);
    });
    legend(data.nodes);
    statusLine.textContent = data.nodes.length + " nodes, " + data.edges.length + " memories as of " +
      new Date(data.as_of).toISOString().replace(".000Z", "Z") + (data.truncated ? " (truncated)" : "");
    window.memhqGraph.data = data;
    window.memhqGraph.loads += 1;
  }

  function toLocalInput(date) {
    return date.toISOString().slice(0, 19);  // shown and read as UTC
  }

  function load(asOf) {
    var url = container.dataset.url;
    if (asOf) url += (url.indexOf("?") >= 0 ? "&" : "?") + "as_of=" + encodeURIComponent(asOf.toISOString());
    statusLine.textContent = "loading…";
    return fetch(url, { credentials: "same-origin" }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    }).then(function (data) {
      if (!span && data.time_span.first) {
        span = { first: new Date(data.time_span.first), last: new Date(data.time_span.last) };
      }
      picker.value = toLocalInput(asOf || new Date(data.as_of));
      if (span) {
        var at = (asOf || span.last).getTime();
        var width = Math.max(1, span.last.getTime() - span.first.getTime());
        range.value = String(Math.round(1000 * (at - span.first.getTime()) / width));
      }
      draw(data);
    }).catch(function (error) { statusLine.textContent = "could not load the graph: " + error.message; });
  }

  range.addEventListener("change", function () {
    if (!span) return;
    var at = span.first.getTime() + (span.last.getTime() - span.first.getTime()) * Number(range.value) / 1000;
    load(Number(range.value) >= 1000 ? null : new Date(at));
  });
  picker.addEventListener("change", function () {
    if (picker.value) load(new Date(picker.value + "Z"));
  });
  document.getElementById("as-of-now").addEventListener("click", function () { load(null); });
  document.getElementById("as-of-form").addEventListener("submit", function (e) { e.preventDefault(); });
  window.memhqGraph.load = function (iso) { return load(iso ? new Date(iso) : null); };
  load(container.dataset.asOf ? new Date(container.dataset.asOf) : null);
}());
