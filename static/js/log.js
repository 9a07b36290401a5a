/* The log's filter bar (templates/partials/log.html): the turn stepper (◀ Turn n ▶ Live, and ← →
   while the list has focus), All · Mine · Enemy for a commander, Find for anyone, and how many
   entries the filter hides. It only hides entries the page already holds: what
   this seat may not see never reached the page. "Mine" is an entry about one of the reader's ships,
   "Enemy" one about any other ship (each event names its ship: data-ship). Entries that arrive
   live are filtered as they come, and the count follows. The replay swaps its whole page in at each
   step: the choice is kept for the bar that comes with it, so a reader stepping through keeps it. */
(function () {
  "use strict";
  var chosen = { show: "all", find: "", turn: null };  // turn: one turn's entries; null: Live, all of them

  // The turns of the entries the page holds, in order (an entry stamped before stamps has none).
  function turnsHeld(list) {
    var seen = {};
    Array.prototype.forEach.call(list.querySelectorAll(".log-entry[data-turn]"), function (entry) {
      seen[entry.dataset.turn] = true;
    });
    return Object.keys(seen).map(Number).sort(function (a, b) { return a - b; });
  }
  // The turn shown: the one chosen, or Live (null) on a bar without a stepper (the replay's).
  function turnOf(bar) {
    return bar.querySelector(".log-turns") ? chosen.turn : null;
  }
  // The stepper says which turn it shows (Live: the latest the page holds) and what it can step to.
  function drawTurns(bar, held) {
    var group = bar.querySelector(".log-turns");
    if (!group) return;
    var latest = held.length ? held[held.length - 1] : null;
    var at = chosen.turn === null ? latest : chosen.turn;
    var label = at === null ? "" : "Turn " + at;
    var shown = group.querySelector(".log-turn");
    if (shown.textContent !== label) shown.textContent = label;  // a change only: the observer watches text
    var earlier = held.some(function (turn) { return at !== null && turn < at; });
    var prev = group.querySelector("[data-turn-step='-1']"), next = group.querySelector("[data-turn-step='1']");
    var live = group.querySelector("[data-turn-live]");
    if (prev.disabled === earlier) prev.disabled = !earlier;
    if (next.disabled !== (chosen.turn === null)) next.disabled = chosen.turn === null;
    var pressed = String(chosen.turn === null);
    if (live.getAttribute("aria-pressed") !== pressed) live.setAttribute("aria-pressed", pressed);
  }
  // One turn back (from Live: the turn before the latest) or on (past the latest: Live again).
  function step(bar, delta) {
    var list = document.getElementById("log-list");
    var held = list ? turnsHeld(list) : [];
    if (!held.length) return false;
    if (delta < 0) {
      var from = chosen.turn === null ? held[held.length - 1] : chosen.turn;
      var before = held.filter(function (turn) { return turn < from; });
      if (!before.length) return false;
      chosen.turn = before[before.length - 1];
    } else {
      if (chosen.turn === null) return false;
      var after = held.filter(function (turn) { return turn > chosen.turn; });
      chosen.turn = after.length ? after[0] : null;
    }
    return true;
  }

  function about(entry, mine, wantMine) {
    return Array.prototype.some.call(entry.querySelectorAll("[data-ship]"), function (event) {
      return (mine.indexOf(event.dataset.ship) >= 0) === wantMine;
    });
  }
  // Hides what the bar's choice leaves out; returns how many it hid.
  function apply(bar) {
    var list = document.getElementById("log-list");
    var count = bar.querySelector(".log-filtered");
    if (!list || !count) return 0;
    var mine = (bar.dataset.mine || "").split(" ").filter(Boolean);
    var show = mine.length ? chosen.show : "all";
    var text = chosen.find.trim().toLowerCase();
    var turn = turnOf(bar);
    var hidden = 0;
    Array.prototype.forEach.call(list.querySelectorAll(".log-entry"), function (entry) {
      var keep = (show === "all" || about(entry, mine, show === "mine")) &&
        (turn === null || entry.dataset.turn === String(turn)) &&
        (!text || entry.textContent.toLowerCase().indexOf(text) >= 0);
      if (entry.hidden === keep) entry.hidden = !keep;
      if (!keep) hidden += 1;
    });
    var said = hidden ? hidden + " hidden by filter" : "";
    if (count.textContent !== said) count.textContent = said;  // a change only: the observer watches text
    drawTurns(bar, turnsHeld(list));
    return hidden;
  }
  // A bar just drawn (the page's first, or the replay's next) shows the choice the reader made.
  function adopt(bar) {
    bar.dataset.adopted = "1";
    Array.prototype.forEach.call(bar.querySelectorAll("button[data-show]"), function (button) {
      button.setAttribute("aria-pressed", String(button.dataset.show === chosen.show));
    });
    var find = bar.querySelector("input[type=search]");
    if (find && find.value !== chosen.find) find.value = chosen.find;
  }
  function each(fn) {
    Array.prototype.forEach.call(document.querySelectorAll(".log-filter"), fn);
  }
  // What a choice or a search left hidden is said once, through the page's announcer (a11y.js).
  function announce(hidden) {
    if (window.starboardAnnounce) {
      window.starboardAnnounce(hidden ? hidden + " log entries hidden by the filter" : "every log entry shown");
    }
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest && evt.target.closest(".log-filter button[data-show]");
    if (!button) return;
    chosen.show = button.dataset.show;
    var bar = button.closest(".log-filter");
    adopt(bar);
    announce(apply(bar));
  });
  // The stepper's buttons, and ← → while the log's list has focus (the replay's own page steps the
  // replay with them instead: its bar has no stepper).
  function stepped(bar, delta) {
    if (!step(bar, delta)) return false;
    var hidden = apply(bar);
    if (window.starboardAnnounce) {
      window.starboardAnnounce(chosen.turn === null ? "Live: every entry" : "Turn " + chosen.turn +
        (hidden ? ", " + hidden + " log entries hidden by the filter" : ""));
    }
    return true;
  }
  document.addEventListener("click", function (evt) {
    var button = evt.target.closest && evt.target.closest(".log-turns button");
    if (!button) return;
    var bar = button.closest(".log-filter");
    if (button.hasAttribute("data-turn-live")) {
      if (chosen.turn === null) return;
      chosen.turn = null;
      announce(apply(bar));
    } else {
      stepped(bar, Number(button.dataset.turnStep));
    }
  });
  document.addEventListener("keydown", function (evt) {
    if (evt.key !== "ArrowLeft" && evt.key !== "ArrowRight") return;
    if (evt.altKey || evt.ctrlKey || evt.metaKey || !evt.target.closest || !evt.target.closest("#log-list")) return;
    var section = evt.target.closest("section.log");
    var bar = section && section.querySelector(".log-filter");
    if (!bar || !bar.querySelector(".log-turns")) return;
    if (stepped(bar, evt.key === "ArrowLeft" ? -1 : 1)) evt.preventDefault();
  });
  document.addEventListener("input", function (evt) {
    var bar = evt.target.closest && evt.target.closest(".log-filter");
    if (!bar || evt.target.type !== "search") return;
    chosen.find = evt.target.value;
    announce(apply(bar));
  });
  function refresh() {
    each(function (bar) {
      if (bar.dataset.adopted !== "1") adopt(bar);
      if (chosen.show !== "all" || chosen.find || turnOf(bar) !== null) apply(bar);
      else {
        var list = document.getElementById("log-list");
        if (list) drawTurns(bar, turnsHeld(list));
      }
    });
  }
  function init() {
    refresh();
    // Live rows appended, a reopened row morphed in, or the replay's next step swapped in.
    new MutationObserver(refresh).observe(document.body, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
