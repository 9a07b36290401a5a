/* The log's filter bar (templates/partials/log.html): All · Mine · Enemy for a commander, Find for
   anyone, and how many entries the filter hides. It only hides entries the page already holds: what
   this seat may not see never reached the page. "Mine" is an entry about one of the reader's ships,
   "Enemy" one about any other ship (each event names its ship: data-ship). Entries that arrive
   live are filtered as they come, and the count follows. */
(function () {
  "use strict";

  function setup(bar) {
    var list = document.getElementById("log-list");
    var find = bar.querySelector("input[type=search]");
    var count = bar.querySelector(".log-filtered");
    if (!list || !find || !count) return;
    var mine = (bar.dataset.mine || "").split(" ").filter(Boolean);
    var show = "all";

    function about(entry, wantMine) {
      return Array.prototype.some.call(entry.querySelectorAll("[data-ship]"), function (event) {
        return (mine.indexOf(event.dataset.ship) >= 0) === wantMine;
      });
    }
    function apply() {
      var text = find.value.trim().toLowerCase();
      var hidden = 0;
      Array.prototype.forEach.call(list.querySelectorAll(".log-entry"), function (entry) {
        var keep = (show === "all" || about(entry, show === "mine")) &&
          (!text || entry.textContent.toLowerCase().indexOf(text) >= 0);
        entry.hidden = !keep;
        if (!keep) hidden += 1;
      });
      count.textContent = hidden ? hidden + " hidden by filter" : "";
      return hidden;
    }
    // A choice or a search says what it left hidden through the page's one announcer (a11y.js).
    function chosen() {
      var hidden = apply();
      if (window.starboardAnnounce) window.starboardAnnounce(hidden ? hidden + " log entries hidden by the filter" : "every log entry shown");
    }

    bar.addEventListener("click", function (evt) {
      var button = evt.target.closest && evt.target.closest("button[data-show]");
      if (!button) return;
      show = button.dataset.show;
      Array.prototype.forEach.call(bar.querySelectorAll("button[data-show]"), function (other) {
        other.setAttribute("aria-pressed", String(other === button));
      });
      chosen();
    });
    find.addEventListener("input", chosen);
    // New rows are appended by the live frames; a reopened row is morphed in place.
    new MutationObserver(function () {
      if (show !== "all" || find.value) apply();
    }).observe(list, { childList: true, subtree: true });
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".log-filter"), setup);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
