// Starboard page glue (no build step): fresh action ids and the current seq on every htmx form,
// resync by seq when the websocket (re)connects, and a brief highlight on values that changed.
(function () {
  "use strict";

  function currentSeq() {
    var bar = document.getElementById("turnbar");
    return bar ? parseInt(bar.dataset.seq || "0", 10) : 0;
  }

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  // Each submission is a new action; a double click inside one request is still one action.
  document.addEventListener("htmx:config:request", function (evt) {
    var body = evt.detail && evt.detail.ctx && evt.detail.ctx.request && evt.detail.ctx.request.body;
    if (body && typeof body.set === "function") {
      if (body.has("action_id")) body.set("action_id", newId());
      if (body.has("seen_seq")) body.set("seen_seq", String(currentSeq()));
    }
  });

  // Plain (non-htmx) submissions get an id too.
  document.addEventListener("submit", function (evt) {
    var field = evt.target.querySelector && evt.target.querySelector("[data-action-id]");
    if (field && !field.value) field.value = newId();
  }, true);

  // On (re)connect, say which seq we have: the server sends what we missed.
  document.addEventListener("htmx:ws:after:connection", function (evt) {
    var socket = evt.detail && evt.detail.connection && evt.detail.connection.socket;
    if (socket) socket.send(JSON.stringify({ type: "hello", seq: currentSeq() }));
    document.documentElement.dataset.live = "connected";
  });
  document.addEventListener("htmx:ws:close", function () {
    document.documentElement.dataset.live = "disconnected";
  });

  // Highlight [data-watch] elements whose data-value changed, without moving focus or scrolling.
  var seen = {};
  function snapshot(mark) {
    var nodes = document.querySelectorAll("[data-watch][id]");
    for (var i = 0; i < nodes.length; i++) {
      var el = nodes[i], value = el.getAttribute("data-value");
      if (mark && el.id in seen && seen[el.id] !== value) {
        el.classList.remove("changed");
        void el.offsetWidth;
        el.classList.add("changed");
        (function (node) { setTimeout(function () { node.classList.remove("changed"); }, 1700); })(el);
      }
      seen[el.id] = value;
    }
  }
  function yourMoveTitle() {
    var bar = document.getElementById("turnbar");
    var base = document.title.replace(/^● Your move – /, "");
    document.title = bar && bar.dataset.yourMove === "yes" ? "● Your move – " + base : base;
  }
  document.addEventListener("htmx:ws:after:message:incoming", function () {
    snapshot(true);
    yourMoveTitle();
    var bar = document.getElementById("turnbar");
    if (bar) document.documentElement.dataset.seq = bar.dataset.seq;
  });
  // Replay: ← and → step through the actions (not while typing in a field).
  document.addEventListener("keydown", function (evt) {
    var replay = document.querySelector(".replay");
    if (!replay || /INPUT|SELECT|TEXTAREA/.test(evt.target.tagName)) return;
    var link = document.getElementById(evt.key === "ArrowLeft" ? "replay-prev" : evt.key === "ArrowRight" ? "replay-next" : "");
    if (link) window.location.href = link.href;
  });
  document.addEventListener("DOMContentLoaded", function () {
    snapshot(false);
    yourMoveTitle();
  });
})();
