// The creation wizard, made easier where JavaScript runs; the form works without it.
// - Only the chosen game system's library is shown (the others are hidden and disabled, so what is
//   sent is what is seen; a ship in two systems' libraries is listed under each).
// - Each commander box becomes a menu of the players and bots typed above, kept in step as the
//   names change (a typed name that is no longer a seat stays, marked, for the server to refuse).
// - The seats are counted against the stated limit as they are typed.
(function () {
  "use strict";
  var form = document.getElementById("wizard");
  if (!form) return;
  var limit = Number(form.dataset.maxSeats) || 0;

  function names(field) {
    var box = form.elements[field];
    return box ? box.value.split("\n").map(function (n) { return n.trim(); }).filter(Boolean) : [];
  }

  function showSystem() {
    var picked = form.querySelector("input[name=system]:checked");
    var system = picked ? picked.value : "";
    form.querySelectorAll("fieldset.library").forEach(function (set) {
      var on = set.dataset.system === system;
      set.hidden = !on;
      set.disabled = !on;  // a hidden system's ticks and commanders are not sent
    });
  }

  function menus() {
    var seats = names("players").concat(names("bots"));
    form.querySelectorAll("input.commander-input").forEach(function (input) {
      var select = document.createElement("select");
      select.name = input.name;
      select.className = "commander-select";
      ["id", "aria-describedby", "aria-invalid"].forEach(function (a) {
        if (input.hasAttribute(a)) select.setAttribute(a, input.getAttribute(a));
      });
      select.dataset.typed = input.value;
      input.replaceWith(select);
    });
    form.querySelectorAll("select.commander-select").forEach(function (select) {
      var keep = select.value || select.dataset.typed || "";
      select.dataset.typed = "";
      select.textContent = "";
      var none = new Option("unassigned", "");
      select.add(none);
      seats.forEach(function (name) { select.add(new Option(name, name)); });
      if (keep && seats.indexOf(keep) < 0) {
        var gone = new Option(keep + " (not a seat above)", keep);
        select.add(gone);
      }
      select.value = keep;
    });
  }

  function count() {
    var out = document.getElementById("seat-count");
    if (!out || !limit) return;
    var asked = names("players").length + names("bots").length + names("spectators").length + 1;
    out.hidden = false;
    out.classList.toggle("over", asked > limit);
    out.textContent = asked > limit
      ? asked + " seats with yours — " + (asked - limit) + " more than the " + limit + " a battle holds: remove " + (asked - limit) + " before creating."
      : asked + " of " + limit + " seats, yours included.";
  }

  form.addEventListener("change", function (event) {
    if (event.target.name === "system") showSystem();
  });
  ["players", "bots", "spectators"].forEach(function (field) {
    var box = form.elements[field];
    if (!box) return;
    box.addEventListener("input", function () { count(); if (field !== "spectators") menus(); });
  });
  showSystem();
  menus();
  count();
})();
