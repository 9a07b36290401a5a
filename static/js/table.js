// At the table: the chat form clears after a message is taken, and the browser's
// Notification API tells a player whose tab is hidden when the turn bar's data-your-move flips to yes.
(function () {
  "use strict";

  // The chat form: cleared once the server took the message (an error keeps the text to fix).
  document.addEventListener("htmx:after:request", function (evt) {
    var form = evt.target && evt.target.closest && evt.target.closest("#chat-form");
    var ctx = evt.detail && evt.detail.ctx;
    var status = ctx && ctx.response && ctx.response.status;
    if (form && status && status < 400) form.reset();
  });

  // Unread table talk: lines others wrote while the chat was out of view (scrolled away, or the
  // tab hidden) are counted on a badge in its heading, until the chat is in view again. Lines are
  // told apart by their ordinal (data-chat-seq): the list is drawn again whole on every line.
  function setUpUnread() {
    var list = document.getElementById("chat-list");
    var badge = document.getElementById("chat-unread");
    if (!list || !badge) return;
    var newest = 0, unread = 0, inView = true;
    function seqOf(li) { return parseInt(li.getAttribute("data-chat-seq") || "0", 10) || 0; }
    list.querySelectorAll(".chat-line").forEach(function (li) { newest = Math.max(newest, seqOf(li)); });
    function show() {
      badge.hidden = unread === 0;
      badge.textContent = unread ? unread + " unread" : "";
    }
    function read() {
      if (inView && !document.hidden && unread) { unread = 0; show(); }
    }
    if ("IntersectionObserver" in window) {
      new IntersectionObserver(function (entries) {
        inView = entries[entries.length - 1].isIntersecting;
        read();
      }).observe(list);
    }
    document.addEventListener("visibilitychange", read);
    new MutationObserver(function () {
      var fresh = 0;
      list.querySelectorAll(".chat-line").forEach(function (li) {
        var seq = seqOf(li);
        if (seq > newest) {
          newest = seq;
          if (!li.classList.contains("mine")) fresh++;
        }
      });
      if (fresh && (!inView || document.hidden)) { unread += fresh; show(); }
    }).observe(list, { childList: true });
  }
  document.addEventListener("DOMContentLoaded", setUpUnread);

  // The referee: players' requests still waiting are counted in the bar at the top (a link to the
  // queue) and in the tab's title, as they arrive live and as they are decided.
  function setUpRequestCue() {
    var list = document.getElementById("requests-list");
    var cue = document.getElementById("requests-waiting");
    if (!list || !cue) return;
    function count() {
      var waiting = list.querySelectorAll(".request-pending").length;
      cue.hidden = waiting === 0;
      var link = cue.querySelector("a");
      if (link) link.textContent = waiting + " request" + (waiting === 1 ? "" : "s") + " from players waiting";
      document.documentElement.dataset.requests = String(waiting);
      if (window.starboardTitle) window.starboardTitle();
    }
    new MutationObserver(count).observe(list, { childList: true });
    count();
  }
  document.addEventListener("DOMContentLoaded", setUpRequestCue);

  // Browser notifications: a button asks for permission; then a hidden tab gets one notification
  // each time "your move" turns on.
  function yourMove() {
    var bar = document.getElementById("turnbar");
    return bar ? bar.dataset.yourMove === "yes" : false;
  }
  var was = false;
  function setUpButton() {
    var button = document.getElementById("browser-notify");
    var state = document.getElementById("browser-notify-state");
    if (!button || !("Notification" in window)) return;
    function show() {
      button.hidden = Notification.permission !== "default";
      if (state) state.textContent = Notification.permission === "granted" ? "Browser notifications are on while this tab is open."
        : Notification.permission === "denied" ? "This browser blocks notifications for this site." : "";
    }
    button.addEventListener("click", function () {
      Notification.requestPermission().then(show);
    });
    show();
  }
  document.addEventListener("htmx:ws:after:message:incoming", function () {
    var now = yourMove();
    var wanted = typeof window.starboardPings !== "function" || window.starboardPings("your_move");
    if (now && !was && wanted && document.hidden && "Notification" in window && Notification.permission === "granted") {
      try {
        new Notification("Starboard: your move", { body: document.title.replace(/^● Your move – /, ""), tag: "starboard-your-move" });
      } catch (e) { /* some browsers allow notifications only from a service worker */ }
    }
    was = now;
  });
  document.addEventListener("DOMContentLoaded", function () {
    was = yourMove();
    setUpButton();
  });

  // While the page is open and visible, tell the server now and then: nobody is notified of a move
  // they are looking at.
  var socket = null;
  function seen() {
    if (socket && socket.readyState === 1 && !document.hidden) socket.send(JSON.stringify({ type: "seen" }));
  }
  document.addEventListener("htmx:ws:after:connection", function (evt) {
    socket = evt.detail && evt.detail.connection && evt.detail.connection.socket;
  });
  document.addEventListener("visibilitychange", seen);
  setInterval(seen, 60000);
})();
