// Accessibility glue (docs/accessibility.md): one polite live region (#announcer) says once
// what changed for you — your move, what happened to your ships, a private line to you — while the
// log and the table talk stay quiet regions to read at will. The reader chooses what is announced
// (#announce-mode: mine / all / off, kept in localStorage). Focus is kept through live updates and
// given back when a message is dismissed.
(function () {
  "use strict";

  var KEY = "starboard.announce";
  var MODES = ["mine", "all", "off"];

  function mode() {
    var value = null;
    try { value = window.localStorage.getItem(KEY); } catch (e) { /* storage blocked */ }
    return MODES.indexOf(value) >= 0 ? value : "mine";
  }

  // Several changes of one update become one message, said once; a newer "your move" replaces an
  // older one still waiting to be said.
  var queue = [], timer = null;
  function say(text, kind) {
    text = (text || "").replace(/\s+/g, " ").trim();
    if (!text || mode() === "off" || queue.indexOf(text) >= 0) return;
    if (kind) queue = queue.filter(function (t) { return t.indexOf(kind) !== 0; });
    queue.push(text);
    clearTimeout(timer);
    timer = setTimeout(flush, 300);
  }
  function flush() {
    var region = document.getElementById("announcer");
    var text = queue.join(" ");
    queue = [];
    if (!region || !text || mode() === "off") return;
    region.textContent = "";
    setTimeout(function () { region.textContent = text; }, 30);
  }
  window.starboardAnnounce = say;

  function myShips() {
    var ids = {};
    var nodes = document.querySelectorAll("#my-ships article.ship");
    for (var i = 0; i < nodes.length; i++) ids[nodes[i].id.replace(/^ship-/, "")] = true;
    return ids;
  }

  function text(el) { return el ? (el.textContent || "") : ""; }

  // New log entries: in "mine" the events about your ships (hits, reactions); in "all" every event.
  function logEntries(nodes) {
    var mine = myShips(), all = mode() === "all";
    for (var i = 0; i < nodes.length; i++) {
      var entry = nodes[i];
      if (entry.nodeType !== 1 || !entry.classList.contains("log-entry")) continue;
      var events = entry.querySelectorAll(".log-event");
      for (var j = 0; j < events.length; j++) {
        if (all || mine[events[j].getAttribute("data-ship")]) say(text(events[j].querySelector("p")));
      }
    }
  }

  // Table talk: lines after the last one seen; private lines to you in "mine", every line in "all".
  var chatSeen = 0;
  function chatMax(list) {
    var max = 0, lines = list.querySelectorAll(".chat-line[data-chat-seq]");
    for (var i = 0; i < lines.length; i++) max = Math.max(max, parseInt(lines[i].getAttribute("data-chat-seq"), 10) || 0);
    return max;
  }
  function chatLines(list) {
    var lines = list.querySelectorAll(".chat-line[data-chat-seq]"), all = mode() === "all";
    for (var i = 0; i < lines.length; i++) {
      var line = lines[i], seq = parseInt(line.getAttribute("data-chat-seq"), 10) || 0;
      if (seq <= chatSeen || line.classList.contains("mine")) continue;
      if (all || line.classList.contains("private")) {
        say("Table talk, " + text(line.querySelector(".chat-who")) + ": " + text(line.querySelector(".chat-text")));
      }
    }
    chatSeen = Math.max(chatSeen, chatMax(list));
  }

  // Your move: said when the turn bar turns to you, not again while it stays so.
  var wasMyMove = null;
  function yourMove() {
    var bar = document.getElementById("turnbar");
    if (!bar) return;
    var now = bar.getAttribute("data-your-move") === "yes";
    if (now && wasMyMove === false) {
      var step = bar.querySelector("#turnbar-steps li.current");
      say("Your move" + (step ? ": " + text(step) : "") + ".", "Your move");
    }
    wasMyMove = now;
  }

  // Focus through live updates: a control replaced under the reader's focus hands focus to its
  // successor (same id, or the other button of the same form: Done ↔ Not done yet), never to <body>.
  var focusedId = null, focusedForm = null;
  document.addEventListener("focusin", function (evt) {
    var el = evt.target;
    if (!el || el === document.body || (el.closest && el.closest("#flash"))) return;
    focusedId = el.id || null;
    var form = el.closest && el.closest("form");
    focusedForm = form ? form.className : null;
  });
  // The reader moved focus away themselves (a click elsewhere): nothing to give back.
  document.addEventListener("focusout", function (evt) {
    var el = evt.target;
    setTimeout(function () {
      if (document.contains(el) && (!document.activeElement || document.activeElement === document.body)) {
        focusedId = null; focusedForm = null;
      }
    }, 0);
  });
  function keepFocus() {
    var active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) return;
    var next = focusedId && document.getElementById(focusedId);
    if (!next && focusedForm) {
      var form = document.querySelector("form[class='" + focusedForm.replace(/'/g, "") + "']");
      // Its button first: a dice box before it would pull focus into a field (and, on a phone,
      // open the on-screen keyboard) after every Done.
      next = form && (form.querySelector("button") || form.querySelector("input:not([type=hidden]), select, textarea"));
    }
    // The control is gone for good (the step no longer offers it): the main content, from where
    // the next Tab reaches the turn bar.
    if (!next && (focusedId || focusedForm)) next = document.getElementById("main");
    if (next && next.focus) next.focus({ preventScroll: true });
  }

  // A dismissed message (the answer to a form) gives focus back to the control that sent the form,
  // or failing that to the form's first field, or to the main content — never to <body>.
  var sentFrom = null, sentForm = null;
  document.addEventListener("submit", function (evt) {
    sentForm = evt.target;
    var active = document.activeElement;
    sentFrom = active && active !== document.body && !(active.closest && active.closest("#flash")) ? active : null;
  }, true);
  document.addEventListener("click", function (evt) {
    var close = evt.target && evt.target.closest && evt.target.closest(".flash-close");
    if (!close) return;
    var back = sentFrom && document.contains(sentFrom) ? sentFrom : null;
    if (!back && sentForm && document.contains(sentForm)) {
      back = sentForm.querySelector("input:not([type=hidden]), select, textarea, button");
    }
    back = back || document.getElementById("main");
    if (back && back.focus) back.focus({ preventScroll: true });
  });

  document.addEventListener("htmx:ws:after:message:incoming", function () { setTimeout(keepFocus, 0); });
  document.addEventListener("htmx:after:swap", function () { setTimeout(keepFocus, 0); });

  function setUpSettings() {
    var box = document.getElementById("announce-settings");
    var select = document.getElementById("announce-mode");
    if (!box || !select) return;
    select.value = mode();
    select.addEventListener("change", function () {
      try { window.localStorage.setItem(KEY, select.value); } catch (e) { /* storage blocked */ }
      var region = document.getElementById("announcer");
      if (region) region.textContent = "";
      queue = [];
    });
    box.hidden = false;  // without JavaScript nothing is announced, so there is nothing to set
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpSettings();
    var bar = document.getElementById("turnbar");
    wasMyMove = bar ? bar.getAttribute("data-your-move") === "yes" : null;
    // The turn bar is morphed or replaced by live updates: watch the attribute wherever it lands.
    var live = document.querySelector(".live");
    if (live) {
      new MutationObserver(function () { yourMove(); keepFocus(); })
        .observe(live, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-your-move"] });
    }
    var log = document.getElementById("log-list");
    if (log && !document.querySelector(".replay")) {
      new MutationObserver(function (records) {
        records.forEach(function (r) { logEntries(r.addedNodes); });
      }).observe(log, { childList: true });
    }
    var chat = document.getElementById("chat-list");
    if (chat) {
      chatSeen = chatMax(chat);
      new MutationObserver(function () { chatLines(chat); }).observe(chat, { childList: true });
    }
  });
})();
