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

  // The form whose answer the flash region will show: cleared after a success, so a second Enter
  // does not send the same hit (or the same dice) again.
  var lastForm = null;

  // Each submission is a new action; a double click inside one request is still one action.
  document.addEventListener("htmx:config:request", function (evt) {
    var source = evt.target && evt.target.closest ? evt.target.closest("form") : null;
    if (source) lastForm = source;
    var body = evt.detail && evt.detail.ctx && evt.detail.ctx.request && evt.detail.ctx.request.body;
    if (body && typeof body.set === "function") {
      if (body.has("action_id")) body.set("action_id", newId());
      if (body.has("seen_seq")) body.set("seen_seq", String(currentSeq()));
    }
  });

  // A form that could not reach the server (offline, or the connection dropped as it was sent) says
  // so in the page's message region, as the server's own refusals are shown: nothing was taken, and
  // what was typed stays in the form to send again.
  document.addEventListener("htmx:error", function (evt) {
    var ctx = evt.detail && evt.detail.ctx;
    if (!ctx || !ctx.request) return;  // not a request (a script error inside htmx): not ours to word
    var region = document.getElementById("flash");
    if (!region) return;
    var message = document.createElement("p");
    message.className = "flash flash-error send-failed";
    message.setAttribute("role", "alert");
    message.textContent = (navigator.onLine === false ? "You are offline: " : "The server could not be reached: ")
      + "that was not sent and nothing changed. Your entry is still in the form; send it again once you are back.";
    region.replaceChildren(message);
  });

  // Committing no orders asks first (TR-26): the form's ticked and chosen orders are what commits.
  document.addEventListener("submit", function (evt) {
    var button = evt.submitter;
    if (!button || !button.dataset || !button.dataset.confirmEmpty) return;
    var picked = evt.target.querySelectorAll("input[name='p.orders:json']:checked, select[name='p.orders:json']");
    var any = false;
    for (var i = 0; i < picked.length; i++) if (picked[i].value) any = true;
    if (!any && !window.confirm(button.dataset.confirmEmpty)) { evt.preventDefault(); evt.stopImmediatePropagation(); }
  }, true);

  // Plain (non-htmx) submissions get an id too, and the seq the page shows (a pushed form carries none).
  document.addEventListener("submit", function (evt) {
    var field = evt.target.querySelector && evt.target.querySelector("[data-action-id]");
    if (field && !field.value) field.value = newId();
    var seen = evt.target.querySelector && evt.target.querySelector("input[name='seen_seq']");
    if (seen) seen.value = String(currentSeq());
  }, true);

  // On (re)connect, say which seq we have: the server sends what we missed.
  var live = { socket: null, lastHeard: 0, every: 5, asked: 0, regions: {} };
  function hello(socket, whole) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      var message = { type: "hello", seq: currentSeq() };
      if (whole) message.whole = true;  // our copy of a region was not what the server patched
      live.regions = {};  // after a hello the server sends every region whole again
      var chat = document.getElementById("chat-list");  // also resync the table talk
      if (chat) message.chat_seq = parseInt(chat.dataset.chatSeq || "0", 10);
      socket.send(JSON.stringify(message));
      live.asked = Date.now();
    }
  }
  // Connection state, said out loud: a banner while the live connection is lost, the page's forms
  // paused until it is back (an action sent now could not show its result), and a note once the
  // page has caught up again.
  function banner(text, kind) {
    var el = document.getElementById("live-banner");
    if (!el) return;
    el.textContent = text;
    el.className = "live-banner live-" + kind;
    el.hidden = !text;
  }
  function pauseForms(paused) {
    var buttons = document.querySelectorAll(".live form button[type=submit], .live form button:not([type])");
    for (var i = 0; i < buttons.length; i++) {
      if (paused) { if (!buttons[i].disabled) { buttons[i].disabled = true; buttons[i].dataset.paused = "1"; } }
      else if (buttons[i].dataset.paused) { buttons[i].disabled = false; delete buttons[i].dataset.paused; }
    }
  }
  var wasLost = false;
  document.addEventListener("htmx:ws:after:connection", function (evt) {
    var socket = evt.detail && evt.detail.connection && evt.detail.connection.socket;
    live.socket = socket; live.lastHeard = Date.now();
    hello(socket);
    document.documentElement.dataset.live = "connected";
    pauseForms(false);
    if (wasLost) {
      banner("Reconnected — catching up from #" + currentSeq() + "…", "back");
      setTimeout(function () { if (document.documentElement.dataset.live === "connected") banner("", "back"); }, 4000);
    }
    wasLost = false;
  });
  document.addEventListener("htmx:ws:close", function () {
    document.documentElement.dataset.live = "disconnected";
    wasLost = true;
    banner("Live connection lost — reconnecting. This page may be behind (#" + currentSeq() + "); its forms wait until it is back.", "lost");
    pauseForms(true);
  });

  function frameOf(detail) {
    var data = detail && detail.message && detail.message.data;
    if (typeof data !== "string" || data.charAt(0) !== "{") return null;
    try { return JSON.parse(data); } catch (e) { return null; }
  }
  // Send what changed: the server sends a region this page holds an older copy of as hunks
  // [start, end, text] against that copy (UTF-16 offsets, app/realtime/diff.py), so the page keeps
  // each region's HTML as the server last sent it — from every frame, applied or not, as the
  // server counts it sent — and rebuilds the region from it. A copy of another length than the
  // server's means the page missed something: it asks for every region again.
  function partsOf(content) {
    var parts = [], at = content.indexOf("<hx-partial ");
    while (at !== -1) {
      var next = content.indexOf("<hx-partial ", at + 1);
      parts.push(next === -1 ? content.slice(at) : content.slice(at, next));
      at = next;
    }
    return parts;
  }
  function keep(content) {
    var parts = partsOf(content);
    for (var i = 0; i < parts.length; i++) {
      var opening = parts[i].slice(0, parts[i].indexOf(">") + 1);
      var target = /^<hx-partial hx-target="([^"]+)"/.exec(opening);
      if (target && opening.indexOf("beforeend") === -1 && opening.indexOf(" data-once") === -1) {
        live.regions[target[1]] = parts[i];
      }
    }
  }
  function rebuilt(frame) {
    var out = [];
    for (var i = 0; i < frame.patch.length; i++) {
      var target = frame.patch[i][0], length = frame.patch[i][1], ops = frame.patch[i][2];
      var old = live.regions[target];
      if (typeof old !== "string" || old.length !== length) return null;
      var text = "", at = 0;
      for (var j = 0; j < ops.length; j++) {
        text += old.slice(at, ops[j][0]) + ops[j][2];
        at = ops[j][1];
      }
      out.push(live.regions[target] = text + old.slice(at));
    }
    return out.join("");
  }
  // Never apply a frame we already have: after a resync the server may send a seq twice, and the
  // log is appended, so a repeat would show its entries twice.
  document.addEventListener("htmx:ws:before:message:incoming", function (evt) {
    live.lastHeard = Date.now();
    var frame = frameOf(evt.detail);
    if (!frame) return;
    if (frame.content !== undefined && !frame.type) {
      if (frame.patch) {
        var whole = rebuilt(frame);
        if (whole === null) {
          evt.detail.cancelled = true;
          hello(evt.detail.connection && evt.detail.connection.socket, true);
          return;
        }
        frame.content = whole + frame.content;
        delete frame.patch;
        evt.detail.message.data = JSON.stringify(frame);
      }
      keep(frame.content);
    }
    if (frame.content !== undefined && typeof frame.seq === "number" && !frame.type && !frame.refresh && frame.seq <= currentSeq()) {
      evt.detail.cancelled = true;
      return;
    }
    if (wasLost === false && frame.seq && document.getElementById("live-banner") && !document.getElementById("live-banner").hidden) {
      banner("Reconnected — caught up to #" + frame.seq + ".", "back");
    }
    // Heartbeat: the battle's seq. Holding less means a frame was lost: ask again from ours.
    if (frame.type === "heartbeat") {
      if (typeof frame.every === "number" && frame.every > 0) live.every = frame.every;
      if (typeof frame.seq === "number" && frame.seq > currentSeq() && Date.now() - live.asked > 1000) {
        hello(evt.detail.connection && evt.detail.connection.socket);
      }
    }
  });
  // Silence for three heartbeats means a dead connection (a cut network closes nothing): drop it
  // so the ws extension reconnects, and the hello on reconnect catches up.
  setInterval(function () {
    var s = live.socket;
    if (!s || s.readyState !== WebSocket.OPEN || !live.lastHeard) return;
    if (Date.now() - live.lastHeard > Math.max(15, 3 * live.every) * 1000) {
      live.lastHeard = 0;
      try { s.close(); } catch (e) { /* already closing */ }
    }
  }, 2000);

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
  // The tab's title: "(2 requests) " while players' requests wait on the referee (table.js counts
  // them), then "● Your move – " while the step waits on you, then the page's own title.
  function yourMoveTitle() {
    var bar = document.getElementById("turnbar");
    var base = document.title.replace(/^\(\d+ requests?\) /, "").replace(/^● Your move – /, "");
    var waiting = parseInt(document.documentElement.dataset.requests || "0", 10) || 0;
    document.title = (waiting ? "(" + waiting + " request" + (waiting === 1 ? "" : "s") + ") " : "")
      + (bar && bar.dataset.yourMove === "yes" ? "● Your move – " : "") + base;
  }
  window.starboardTitle = yourMoveTitle;
  // The override picker: a live frame carries each ship's shell with the version of its values
  // (data-values) and never the values — drawn into every referee's frame for every action they
  // were a tenth of its CPU — and the body the page holds is left alone (hx-morph-skip-children).
  // An open ship whose body shows another version fetches its values again, morphed in so the
  // referee's pick and typing stay; a closed one waits until it is opened.
  function overrideValues(ship) {
    var body = ship.querySelector(".override-body");
    if (!body || !ship.open || ship.dataset.fetching || !window.htmx) return;
    var shown = body.querySelector(".override-shown");
    if (shown && shown.dataset.values === ship.dataset.values) return;
    ship.dataset.fetching = "yes";
    body.setAttribute("aria-busy", "true");
    var done = function () { delete ship.dataset.fetching; body.removeAttribute("aria-busy"); };
    var to = shown ? { target: shown, swap: "outerMorph" } : { target: body, swap: "innerHTML" };
    htmx.ajax("GET", ship.dataset.valuesFrom, to).then(done, done);
  }
  function overrideValuesOpen() {
    var open = document.querySelectorAll("details.override-ship[open]");
    for (var i = 0; i < open.length; i++) overrideValues(open[i]);
  }
  document.addEventListener("toggle", function (evt) {
    if (evt.target.matches && evt.target.matches("details.override-ship")) overrideValues(evt.target);
  }, true);
  // A live frame's ship list holds each card's place (data-card-slot) and carries only the cards
  // that changed; htmx finds a frame's targets before it swaps any, so the card of a ship new to
  // the list has no place to go yet when its region is read. Once the frame is in, a place left
  // empty takes its card from the copy this page keeps of every region it was sent; a place with
  // no copy means the page missed something, and it asks for every region again. A card kept in
  // its place loses the mark the list's morph gave it.
  function fillCardSlots(socket) {
    var marked = document.querySelectorAll("#ships [data-card-slot]");
    for (var i = 0; i < marked.length; i++) {
      if (marked[i].firstChild) { marked[i].removeAttribute("data-card-slot"); continue; }
      var held = live.regions["#" + marked[i].id];
      var parsed = document.createElement("template");
      if (typeof held === "string") parsed.innerHTML = held;
      var card = parsed.content.querySelector("#" + CSS.escape(marked[i].id));
      if (!card) { hello(socket, true); return; }
      marked[i].replaceWith(card);
      if (window.htmx) htmx.process(card);
    }
  }
  document.addEventListener("htmx:ws:after:message:incoming", function (evt) {
    fillCardSlots(evt.detail && evt.detail.connection && evt.detail.connection.socket);
    snapshot(true);
    yourMoveTitle();
    overrideValuesOpen();
    var bar = document.getElementById("turnbar");
    if (bar) document.documentElement.dataset.seq = bar.dataset.seq;
  });
  // Replay: ← and → (and the ◀ ▶ links) step through the actions (not while typing in a field).
  // Every press moves a target seq; one fetch at a time brings the page to it and swaps the replay
  // in place, so presses made while a step loads are counted, never dropped (a full navigation per
  // press lost the ones made while the next page loaded).
  var replayTarget = null, replayShown = null, replayBusy = false;
  function replayBounds() {
    var replay = document.querySelector(".replay");
    if (!replay) return null;
    return { root: replay, seq: Number(replay.dataset.replaySeq), last: Number(replay.dataset.replayLast),
      as: replay.dataset.replayAs || "" };
  }
  function replayLoad() {
    var at = replayBounds();
    if (!at || replayBusy || replayTarget === replayShown) return;
    replayBusy = true;
    var want = replayTarget;
    var url = window.location.pathname + "?seq=" + want + (at.as ? "&as=" + encodeURIComponent(at.as) : "");
    fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector(".replay");
        if (!fresh) throw new Error("no replay in the answer");
        var focused = document.activeElement && at.root.contains(document.activeElement) ? document.activeElement.id : "";
        at.root.replaceWith(fresh);
        var again = focused && document.getElementById(focused);
        if (again) again.focus();
        document.title = doc.title;
        replayShown = want;
        history.replaceState(null, "", url);
      })
      .catch(function () { window.location.href = url; })
      .finally(function () { replayBusy = false; replayLoad(); });
  }
  function replayStep(delta) {
    var at = replayBounds();
    if (!at) return false;
    if (replayShown === null) replayShown = replayTarget = at.seq;
    replayTarget = Math.max(0, Math.min(at.last, replayTarget + delta));
    replayLoad();
    return true;
  }
  document.addEventListener("keydown", function (evt) {
    if (/INPUT|SELECT|TEXTAREA/.test(evt.target.tagName) || evt.altKey || evt.ctrlKey || evt.metaKey) return;
    var delta = evt.key === "ArrowLeft" ? -1 : evt.key === "ArrowRight" ? 1 : 0;
    if (delta && replayStep(delta)) evt.preventDefault();
  });
  document.addEventListener("click", function (evt) {
    var link = evt.target.closest && evt.target.closest("#replay-prev, #replay-next");
    if (!link || evt.button !== 0 || evt.ctrlKey || evt.metaKey || evt.shiftKey) return;
    if (replayStep(link.id === "replay-prev" ? -1 : 1)) evt.preventDefault();
  });
  // Live morphs keep what the reader opened or closed: a pushed fragment never reopens or folds a
  // <details> (ship cards, forms, rolls) under their hands.
  if (window.htmx && htmx.registerExtension) {
    htmx.registerExtension("starboard-keep-open", {
      htmx_before_morph_attr: function (elt, detail) {
        if (elt && elt.tagName === "DETAILS" && detail && detail.attrName === "open") return false;
      }
    });
  }

  // The log: newest entry in view while the reader is at the bottom; when they have scrolled up to
  // read, new entries are counted on a "n new ↓" button instead of pulling the list away from them.
  function setUpLog() {
    var list = document.getElementById("log-list");
    if (!list) return;
    var pill = document.getElementById("log-new");
    var stick = true, unread = 0;
    function atBottom() { return list.scrollHeight - list.scrollTop - list.clientHeight < 24; }
    function toBottom() { list.scrollTop = list.scrollHeight; }
    function showPill() {
      if (!pill) return;
      pill.hidden = unread === 0;
      pill.textContent = unread + " new ↓";
    }
    toBottom();
    list.addEventListener("scroll", function () {
      stick = atBottom();
      if (stick && unread) { unread = 0; showPill(); }
    }, { passive: true });
    if (pill) pill.addEventListener("click", function () {
      list.scrollTo({ top: list.scrollHeight, behavior: reducedMotion() ? "auto" : "smooth" });
      unread = 0; showPill();
    });
    new MutationObserver(function (records) {
      var added = 0;
      records.forEach(function (r) {
        for (var i = 0; i < r.addedNodes.length; i++) if (r.addedNodes[i].nodeType === 1) added++;
      });
      if (!added) return;
      if (stick) toBottom(); else { unread += added; showPill(); }
    }).observe(list, { childList: true });
  }
  function reducedMotion() {
    return window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  // Phones: other players' ships start folded under their names (the reader's own sheets stay
  // open; a spectator's or referee's single ship too), so the page is a list to open with a tap.
  function foldOthersOnPhones() {
    if (!(window.matchMedia && matchMedia("(max-width: 760px)").matches)) return;
    var folds = document.querySelectorAll("#ships .other-ships .ship-fold");
    if (!document.querySelector("#ships .my-ships") && folds.length < 2) return;
    for (var i = 0; i < folds.length; i++) folds[i].open = false;
  }

  // Flash messages (the answer to a form): a close button; info fades after 8 s, errors stay.
  document.documentElement.classList.add("js");
  function setUpFlash() {
    var region = document.getElementById("flash");
    if (!region) return;
    var timer = null;
    function decorate() {
      var msg = region.querySelector(".flash");
      clearTimeout(timer);
      if (!msg || msg.querySelector(".flash-close")) return;
      var close = document.createElement("button");
      close.type = "button"; close.className = "flash-close"; close.textContent = "×";
      close.setAttribute("aria-label", "Dismiss message");
      close.addEventListener("click", function () { msg.remove(); });
      msg.appendChild(close);
      if (!msg.classList.contains("flash-error") && lastForm) {
        lastForm.reset();
        lastForm = null;
      }
      if (!msg.classList.contains("flash-error")) {
        timer = setTimeout(function () {
          if (msg.contains(document.activeElement)) return;
          msg.classList.add("fading");
          setTimeout(function () { msg.remove(); }, 700);
        }, 8000);
      }
    }
    decorate();
    new MutationObserver(decorate).observe(region, { childList: true });
  }

  // The message floats at the foot of the screen, where the log's newest lines are when the log is
  // read there: while it would cover the newest entry shown, it moves up under the sticky bar.
  function setUpToastPlace() {
    var region = document.getElementById("flash");
    var list = document.getElementById("log-list");
    if (!region || !list) return;
    var pending = false;
    function overlaps(a, b) { return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; }
    function place() {
      pending = false;
      region.classList.remove("flash-top");
      region.style.top = "";
      var msg = region.querySelector(".flash");
      var newest = list.lastElementChild;
      if (!msg || !newest) return;
      var box = list.getBoundingClientRect(), line = newest.getBoundingClientRect();
      var shown = line.bottom > box.top && line.top < box.bottom;  // not scrolled out of the list
      if (!shown || !overlaps(line, msg.getBoundingClientRect())) return;
      var bar = document.querySelector(".topbar");
      region.classList.add("flash-top");
      region.style.top = Math.max(8, (bar ? bar.getBoundingClientRect().bottom : 0) + 8) + "px";
    }
    function later() { if (!pending) { pending = true; requestAnimationFrame(place); } }
    new MutationObserver(later).observe(region, { childList: true, subtree: true });
    new MutationObserver(later).observe(list, { childList: true });
    window.addEventListener("scroll", later, { passive: true });
    list.addEventListener("scroll", later, { passive: true });
    window.addEventListener("resize", later);
    place();
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpFlash();
    setUpToastPlace();
    snapshot(false);
    yourMoveTitle();
    setUpLog();
    foldOthersOnPhones();
  });
})();
