/* The log's filter bar (templates/partials/log.html): All · Mine · Enemy for a commander, Find for
   anyone, and how many entries the filter hides. It only hides entries the page already holds: what
   this seat may not see never reached the page. "Mine" is an entry about one of the reader's ships,
   "Enemy" one about any other ship (each event names its ship: data-ship). Entries that arrive
   live are filtered as they come, and the count follows. The replay swaps its whole page in at each
   step: the choice is kept for the bar that comes with it, so a reader stepping through keeps it. */
(function () {
  "use strict";
  var chosen = { show: "all", find: "" };

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
    var hidden = 0;
    Array.prototype.forEach.call(list.querySelectorAll(".log-entry"), function (entry) {
      var keep = (show === "all" || about(entry, mine, show === "mine")) &&
        (!text || entry.textContent.toLowerCase().indexOf(text) >= 0);
      if (entry.hidden === keep) entry.hidden = !keep;
      if (!keep) hidden += 1;
    });
    var said = hidden ? hidden + " hidden by filter" : "";
    if (count.textContent !== said) count.textContent = said;  // a change only: the observer watches text
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
  document.addEventListener("input", function (evt) {
    var bar = evt.target.closest && evt.target.closest(".log-filter");
    if (!bar || evt.target.type !== "search") return;
    chosen.find = evt.target.value;
    announce(apply(bar));
  });
  function refresh() {
    each(function (bar) {
      if (bar.dataset.adopted !== "1") adopt(bar);
      if (chosen.show !== "all" || chosen.find) apply(bar);
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
