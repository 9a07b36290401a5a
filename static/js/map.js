// The tactical map's hands: zoom and pan (wheel, drag, pinch, buttons, + and −), select a
// counter (tap, click, or Enter on it), move the selection by hex-direction keys or the pad, tap a
// hex to put it there, Enter confirms by submitting the move form. Everything it draws comes from
// the server, which renders the board per viewer: this file never learns a hidden position. Its hex
// arithmetic (printed CCRR, flat-topped odd-q columns, facing 1 up) mirrors app/rules/geometry.py.
(function () {
  "use strict";
  var ROOT3 = Math.sqrt(3);
  // facing → axial step (q, r), as geometry.STEPS
  var STEPS = { 1: [0, -1], 2: [1, -1], 3: [1, 0], 4: [0, 1], 5: [-1, 1], 6: [-1, 0] };
  var KEYS = { q: 6, w: 1, e: 2, a: 5, s: 4, d: 3 };
  var at = { view: null, selected: "", proposal: null, boardEl: null, loading: 0, started: false };

  function $(id) { return document.getElementById(id); }
  function section() { return $("map"); }
  function board() { return $("map-board"); }
  function size() { var b = board(); return b ? parseFloat(b.dataset.size) || 30 : 30; }
  function box(text) { return text.split(/[ ,]+/).map(Number); }
  function two(n) { return (n < 10 ? "0" : "") + n; }

  // --- hexes ---------------------------------------------------------------------------------------
  function toAxial(hex) {
    if (!/^[0-9]{4}$/.test(hex || "")) return null;
    var c = parseInt(hex.slice(0, 2), 10) - 1, r = parseInt(hex.slice(2), 10) - 1;
    if (c < 0 || r < 0) return null;
    return [c, r - (c - (c & 1)) / 2];
  }
  function printed(q, r) {
    var row = r + (q - (q & 1)) / 2;
    if (q < 0 || row < 0 || q > 98 || row > 98) return null;
    return two(q + 1) + two(row + 1);
  }
  function centre(hex) {
    var a = toAxial(hex), S = size();
    if (!a) return null;
    return { x: S + 1.5 * S * a[0], y: ROOT3 * S * (0.5 + a[1] + a[0] / 2) };
  }
  function neighbour(hex, facing) {
    var a = toAxial(hex), s = STEPS[facing];
    return a && s ? printed(a[0] + s[0], a[1] + s[1]) : null;
  }
  function hexAt(x, y) {
    var S = size(), qf = (x - S) / (1.5 * S), rf = y / (ROOT3 * S) - 0.5 - qf / 2, sf = -qf - rf;
    var q = Math.round(qf), r = Math.round(rf), s = Math.round(sf);
    var dq = Math.abs(q - qf), dr = Math.abs(r - rf), ds = Math.abs(s - sf);
    if (dq > dr && dq > ds) q = -r - s; else if (dr > ds) r = -q - s;
    return printed(q, r);
  }

  // --- pan and zoom --------------------------------------------------------------------------------
  function viewBox() { var b = board(); return at.view || (b ? box(b.dataset.viewbox) : [0, 0, 100, 100]); }
  function applyView() {
    var b = board(), o = $("map-overlay");
    if (!b) return;
    var text = at.view ? at.view.map(function (n) { return n.toFixed(1); }).join(" ") : b.dataset.viewbox;
    b.setAttribute("viewBox", text);
    if (o) o.setAttribute("viewBox", text);
  }
  function zoom(factor, cx, cy) {
    var v = viewBox().slice(), base = box(board().dataset.viewbox);
    var w = Math.max(base[2] / 8, Math.min(base[2] * 3, v[2] * factor));
    var k = w / v[2];
    if (cx === undefined) { cx = v[0] + v[2] / 2; cy = v[1] + v[3] / 2; }
    at.view = [cx - (cx - v[0]) * k, cy - (cy - v[1]) * k, v[2] * k, v[3] * k];
    applyView();
  }
  function toSvg(evt) {
    var b = board(), rect = b.getBoundingClientRect(), v = viewBox();
    // preserveAspectRatio xMidYMid meet: one scale for both axes, the picture centred
    var scale = Math.min(rect.width / v[2], rect.height / v[3]);
    var ox = (rect.width - v[2] * scale) / 2, oy = (rect.height - v[3] * scale) / 2;
    return { x: v[0] + (evt.clientX - rect.left - ox) / scale, y: v[1] + (evt.clientY - rect.top - oy) / scale, scale: scale };
  }

  // On a narrow screen the whole board would make the counters specks: start closer, on the
  // reader's own ships (or every ship shown), at about one screen pixel per map unit.
  function closeUp() {
    var frame = $("map-frame"), b = board();
    if (!frame || !b || frame.clientWidth >= 560) return;
    var marks = b.querySelectorAll(".counter.mine");
    if (!marks.length) marks = b.querySelectorAll(".counter, .ghost");
    if (!marks.length) return;
    var x = 0, y = 0;
    for (var i = 0; i < marks.length; i++) {
      var m = /translate\(([-0-9.]+) ([-0-9.]+)\)/.exec(marks[i].getAttribute("transform") || "");
      if (m) { x += parseFloat(m[1]); y += parseFloat(m[2]); }
    }
    x /= marks.length; y /= marks.length;
    var w = frame.clientWidth / 0.9, h = frame.clientHeight / 0.9;
    at.view = [x - w / 2, y - h / 2, w, h];
    at.closed = true;
    applyView();
  }

  // --- selection -----------------------------------------------------------------------------------
  function counter(id) { return id ? $("counter-" + id) : null; }
  function movable(id) {
    var pick = $("map-move-ship");
    return !!(pick && id && pick.querySelector("option[value='" + CSS.escape(id) + "']"));
  }
  function form() { return $("map-move-form"); }
  function fill(hex, facing) {
    var f = form();
    if (!f) return;
    if (hex !== undefined) $("map-move-hex").value = hex || "";
    if (facing !== undefined) $("map-move-facing").value = facing || "";
  }
  function select(id, keepFocus) {
    var root = section();
    if (!root) return;
    at.selected = id;
    var boardCounters = document.querySelectorAll("#map-board .counter");
    for (var i = 0; i < boardCounters.length; i++) {
      boardCounters[i].setAttribute("aria-pressed", boardCounters[i].dataset.ship === id ? "true" : "false");
    }
    var c = counter(id), f = form();
    if (f && movable(id)) {
      $("map-move-ship").value = id;
      var hex = c ? c.dataset.hex : "", facing = c ? c.dataset.facing : "";
      fill(hex, facing);
      $("map-move-speed").value = c ? c.dataset.speed : "";
      at.proposal = { ship: id, hex: hex, facing: parseInt(facing || "0", 10) || 1, from: placeOf(c) };
      if (!facing) fill(undefined, 1);  // a ship being placed starts facing 1, up the map
    } else {
      at.proposal = null;
    }
    refresh();
    if (keepFocus && c) c.focus();
  }
  // The overlay and its words for the selection, drawn by the server for this viewer.
  function refresh() {
    var root = section();
    if (!root) return;
    var ticket = ++at.loading;
    var url = "/battles/" + root.dataset.battle + "/map?part=selection&select=" + encodeURIComponent(at.selected || "");
    if (root.dataset.at) url += "&seq=" + root.dataset.at;
    fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        if (ticket !== at.loading) return;  // a newer selection won
        var doc = new DOMParser().parseFromString(html, "text/html");
        ["map-overlay", "map-selection"].forEach(function (id) {
          var fresh = doc.getElementById(id), old = $(id);
          if (fresh && old) old.replaceWith(document.importNode(fresh, true));
        });
        applyView();
        drawProposal();
        var title = document.querySelector("#map-selection h3");  // said once, by the page's one voice
        if (title && title.textContent !== at.said) { at.said = title.textContent; say("Selected " + title.textContent.replace(/\s+/g, " ").trim() + "."); }
      })
      .catch(function () { /* the selection stays as it was; the board is unaffected */ });
  }
  function drawProposal() {
    var g = $("map-proposal"), p = at.proposal, c = p && counter(p.ship);
    if (!g) return;
    while (g.firstChild) g.removeChild(g.firstChild);
    if (!p || !p.hex || (c && p.hex === c.dataset.hex && String(p.facing || "") === c.dataset.facing)) return;
    var here = centre(p.hex);
    if (!here) return;
    var NS = "http://www.w3.org/2000/svg";
    var mark = document.createElementNS(NS, "g");
    mark.setAttribute("class", "proposal");
    mark.setAttribute("transform", "translate(" + here.x + " " + here.y + ")");
    var rect = document.createElementNS(NS, "rect");
    [["x", -17], ["y", -17], ["width", 34], ["height", 34], ["rx", 5]].forEach(function (a) { rect.setAttribute(a[0], a[1]); });
    mark.appendChild(rect);
    if (p.facing) {
      var arrow = document.createElementNS(NS, "path");
      arrow.setAttribute("d", "M 0 -27 L 8 -16 L -8 -16 Z");
      arrow.setAttribute("transform", "rotate(" + (p.facing - 1) * 60 + ")");
      mark.appendChild(arrow);
    }
    var label = document.createElementNS(NS, "text");
    label.setAttribute("y", "4");
    label.textContent = p.hex;
    mark.appendChild(label);
    g.appendChild(mark);
  }
  function propose(hex, facing) {
    var p = at.proposal;
    if (!p || !hex) return;
    p.hex = hex;
    if (facing) p.facing = facing;
    fill(p.hex, p.facing);
    drawProposal();
    say("Proposed: hex " + p.hex + (p.facing ? ", facing " + p.facing : "") + ". Enter confirms.");
  }
  function stepBy(facing) { var p = at.proposal; if (p && p.hex) propose(neighbour(p.hex, facing) || p.hex); }
  function turnBy(delta) {
    var p = at.proposal;
    if (!p) return;
    p.facing = ((((p.facing || 1) - 1 + delta) % 6) + 6) % 6 + 1;
    propose(p.hex, p.facing);
  }
  // The counter of the ship the form would move, where the selection is that ship.
  function formShip() {
    var p = at.proposal, pick = $("map-move-ship");
    return p && pick && pick.value === p.ship ? counter(p.ship) : null;
  }
  // A blank speed is the ship's current one: a move made by keys or taps keeps it.
  function keepSpeed() {
    var c = formShip(), speed = $("map-move-speed");
    if (c && speed && speed.value === "" && c.dataset.speed) speed.value = c.dataset.speed;
  }
  // Whether the form would send the ship to where it already is (nothing to confirm).
  function unchanged() {
    var c = formShip();
    return !!c && $("map-move-hex").value === c.dataset.hex && $("map-move-facing").value === c.dataset.facing && $("map-move-speed").value === c.dataset.speed;
  }
  function confirm() {
    var f = form();
    if (!f || !at.proposal) return;
    if (f.requestSubmit) f.requestSubmit(); else if (!refuse()) f.submit();
  }
  function refuse() {
    keepSpeed();
    if (!unchanged()) return false;
    say("Nothing to confirm: move or turn " + (counter(at.proposal.ship).getAttribute("aria-label") || "").split(":")[0] + " first.");
    return true;  // Enter or Confirm on a ship left where it is sends no empty move to the log
  }
  function say(text) { var el = $("announcer"); if (el) el.textContent = text; }

  // --- events --------------------------------------------------------------------------------------
  document.addEventListener("keydown", function (evt) {
    var root = section();
    if (!root || !root.contains(evt.target) || evt.altKey || evt.ctrlKey || evt.metaKey) return;
    if (/INPUT|SELECT|TEXTAREA|BUTTON/.test(evt.target.tagName)) return;
    var key = evt.key.length === 1 ? evt.key.toLowerCase() : evt.key, done = true;
    var onCounter = evt.target.closest && evt.target.closest(".counter");
    if (key === "+" || key === "=") zoom(0.8);
    else if (key === "-") zoom(1.25);
    else if ((key === "Enter" || key === " ") && onCounter && onCounter.dataset.ship !== at.selected) select(onCounter.dataset.ship, true);
    else if (!at.proposal) done = false;
    else if (KEYS[key]) stepBy(KEYS[key]);
    else if (key === "ArrowLeft") turnBy(-1);
    else if (key === "ArrowRight") turnBy(1);
    else if (key === "ArrowUp") stepBy(at.proposal.facing || 1);
    else if (key === "ArrowDown") stepBy((((at.proposal.facing || 1) + 2) % 6) + 1);
    else if (key === "Enter") confirm();
    else if (key === "Escape") select(at.selected, true);
    else done = false;
    if (done) { evt.preventDefault(); evt.stopPropagation(); }
  });
  document.addEventListener("click", function (evt) {
    var t = evt.target;
    if (!t.closest) return;
    var z = t.closest("[data-map-zoom]");
    if (z) { if (z.dataset.mapZoom === "fit") { at.view = null; applyView(); } else zoom(z.dataset.mapZoom === "in" ? 0.8 : 1.25); return; }
    var s = t.closest("[data-map-step]");
    if (s) { stepBy(parseInt(s.dataset.mapStep, 10)); return; }
    var r = t.closest("[data-map-turn]");
    if (r) { turnBy(parseInt(r.dataset.mapTurn, 10)); return; }
  });
  // live.js clears a form once its action is taken (so a second Enter sends no second hit). The
  // move form is not cleared: it stays on the ship just moved, with its speed, and follows the
  // counter when the move lands (sync). A second Enter there has nothing to confirm.
  document.addEventListener("reset", function (evt) {
    if (evt.target === form()) evt.preventDefault();
  }, true);
  // Enter, the Confirm button or the browser's own submit: a move to where the ship already is
  // goes nowhere (caught before htmx sends it).
  document.addEventListener("submit", function (evt) {
    if (evt.target === form() && refuse()) { evt.preventDefault(); evt.stopImmediatePropagation(); }
  }, true);
  document.addEventListener("change", function (evt) {
    if (evt.target && evt.target.id === "map-move-ship") select(evt.target.value);
  });
  document.addEventListener("input", function (evt) {
    var id = evt.target && evt.target.id, p = at.proposal;
    if (!p || (id !== "map-move-hex" && id !== "map-move-facing")) return;
    var hex = $("map-move-hex").value, facing = parseInt($("map-move-facing").value, 10);
    if (toAxial(hex)) p.hex = hex;
    if (facing >= 1 && facing <= 6) p.facing = facing;
    drawProposal();
  });
  document.addEventListener("wheel", function (evt) {
    var b = board();
    if (!b || !b.contains(evt.target)) return;
    evt.preventDefault();
    var at0 = toSvg(evt);
    zoom(evt.deltaY > 0 ? 1.15 : 0.87, at0.x, at0.y);
  }, { passive: false });

  // One pointer drags the board (a short tap selects or places), two pinch.
  var pointers = {}, drag = null;
  document.addEventListener("pointerdown", function (evt) {
    var b = board();
    if (!b || !b.contains(evt.target)) return;
    pointers[evt.pointerId] = { x: evt.clientX, y: evt.clientY };
    var ids = Object.keys(pointers);
    drag = { start: toSvg(evt), x: evt.clientX, y: evt.clientY, moved: false, view: viewBox().slice(), pinch: ids.length === 2 ? spread() : 0 };
  });
  function spread() {
    var p = Object.keys(pointers).map(function (k) { return pointers[k]; });
    return p.length < 2 ? 0 : Math.hypot(p[0].x - p[1].x, p[0].y - p[1].y);
  }
  document.addEventListener("pointermove", function (evt) {
    if (!drag || !(evt.pointerId in pointers)) return;
    pointers[evt.pointerId] = { x: evt.clientX, y: evt.clientY };
    if (Math.abs(evt.clientX - drag.x) + Math.abs(evt.clientY - drag.y) > 6) drag.moved = true;
    if (!drag.moved) return;
    if (drag.pinch) {
      var now = spread();
      if (now) { at.view = drag.view; zoom(drag.pinch / now, drag.start.x, drag.start.y); }
      return;
    }
    var v = drag.view, scale = drag.start.scale;
    at.view = [v[0] - (evt.clientX - drag.x) / scale, v[1] - (evt.clientY - drag.y) / scale, v[2], v[3]];
    applyView();
  });
  function release(evt) {
    if (!(evt.pointerId in pointers)) return;
    delete pointers[evt.pointerId];
    var d = drag;
    if (Object.keys(pointers).length === 0) drag = null;
    if (!d || d.moved || d.pinch || evt.type === "pointercancel") return;
    var c = evt.target.closest && evt.target.closest(".counter");
    var frame = $("map-frame");  // keys work after a tap: the focus goes to the counter or the board
    if (c) c.focus({ preventScroll: true }); else if (frame) frame.focus({ preventScroll: true });
    if (c && c.dataset.ship !== (at.proposal && at.proposal.ship)) { select(c.dataset.ship); return; }
    // Nothing selected yet, a hex tapped: it is for the ship the form names (a player's only ship,
    // not placed, is named there from the start, and picking it in a one-option list is no change).
    var pick = $("map-move-ship");
    if (!at.proposal && !c && pick && movable(pick.value)) select(pick.value);
    if (at.proposal) propose(hexAt(d.start.x, d.start.y));
    else if (c) select(c.dataset.ship);
  }
  document.addEventListener("pointerup", release);
  document.addEventListener("pointercancel", release);

  // A frame morphs the board in place (the server's viewBox comes back: the reader's view is put
  // again); a replay step brings a new board element. The selection stays; a proposal stays unless
  // the selected ship itself moved (its move landed, or the referee corrected it).
  function placeOf(c) { return c ? [c.dataset.hex, c.dataset.facing, c.dataset.speed].join("/") : ""; }
  function sync() {
    var c = counter(at.selected), p = at.proposal;
    if (!c || !p || p.ship !== at.selected) return;
    var now = placeOf(c);
    if (now !== p.from) {
      p.from = now; p.hex = c.dataset.hex; p.facing = parseInt(c.dataset.facing || "0", 10) || null;
      fill(p.hex, p.facing);
      $("map-move-speed").value = c.dataset.speed;
    }
  }
  function adopt() {
    var b = board();
    if (!at.started || !b || b === at.boardEl) return;
    at.boardEl = b;
    applyView();
    if (at.selected) { sync(); refresh(); }
  }
  function start() {  // once the page is parsed (the observer would see a half-parsed board)
    at.started = true;
    at.boardEl = board();
    if (!at.boardEl) return;
    closeUp();
    var root = section();
    if (root && root.dataset.select) select(root.dataset.select);
  }
  document.addEventListener("htmx:ws:after:message:incoming", function () {
    if (!board()) return;
    if (!at.view && !at.closed) closeUp();  // the first ships placed after the page loaded
    applyView();
    if (at.selected) { sync(); refresh(); }
  });
  new MutationObserver(adopt).observe(document.documentElement, { childList: true, subtree: true });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
