// Join links are /join#<token>: the fragment never leaves the browser, so no request line, proxy
// or access log ever holds the token. This reads it, forgets it from the address bar and history,
// and posts it (with the page's CSRF token) to take the seat. Without JavaScript, paste it in.
(function () {
  "use strict";
  var form = document.getElementById("join-form");
  var field = document.getElementById("join-token");
  var token = window.location.hash.replace(/^#/, "");
  if (!form || !field || !token) return;
  try { history.replaceState(null, "", window.location.pathname); } catch (e) { /* old browsers */ }
  field.value = decodeURIComponent(token);
  form.submit();
})();
