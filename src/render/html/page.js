"use strict";
(function () {
  // Sorting and filtering without a server: the rows are in the page, the controls name them.
  function cellText(row, i) { var c = row.cells[i]; return c ? (c.getAttribute("data-sort") || c.textContent) : ""; }
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  document.querySelectorAll("table[data-sortable]").forEach(function (table) {
    var body = table.tBodies[0];
    table.querySelectorAll("thead th").forEach(function (th, i) {
      var button = th.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        var up = th.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("thead th").forEach(function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) { var r = collator.compare(cellText(a, i), cellText(b, i)); return up ? r : -r; });
        var frag = document.createDocumentFragment();
        rows.forEach(function (r) { frag.appendChild(r); });
        body.appendChild(frag);
      });
    });
  });
  document.querySelectorAll("form.filters").forEach(function (form) {
    var table = document.getElementById(form.getAttribute("data-table"));
    var shown = form.querySelector("output");
    var rows = table.tBodies[0].rows;
    function apply() {
      var wanted = [];
      form.querySelectorAll("[data-col]").forEach(function (f) {
        if (f.value) { wanted.push([Number(f.getAttribute("data-col")), f.value.toLowerCase(), f.tagName === "SELECT"]); }
      });
      var count = 0;
      Array.prototype.forEach.call(rows, function (row) {
        var ok = wanted.every(function (w) {
          var text = cellText(row, w[0]).toLowerCase();
          if (!w[2]) { return text.indexOf(w[1]) >= 0; }
          return text.split(/[\s,()]+/).indexOf(w[1]) >= 0;
        });
        row.hidden = !ok;
        if (ok) { count += 1; }
      });
      if (shown) { shown.value = count + " shown"; }
    }
    form.addEventListener("input", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    // The counts' and the causes' buttons set one filter and clear the others.
    [["status", "data-status"], ["finding", "data-finding"]].forEach(function (pair) {
      document.querySelectorAll("button[" + pair[1] + "]").forEach(function (b) {
        b.addEventListener("click", function () {
          form.querySelectorAll("[data-col]").forEach(function (f) { f.value = ""; });
          var select = form.querySelector("select[name=" + pair[0] + "]");
          if (select) { select.value = b.getAttribute(pair[1]); apply(); table.scrollIntoView(); }
        });
      });
    });
    // A link can carry a view: #services?status=dark&namespace=home&sort=Name&order=desc.
    var hash = location.hash;
    var view = hash.indexOf("#" + table.id.replace(/-table$/, "") + "?") === 0 ? new URLSearchParams(hash.slice(hash.indexOf("?") + 1)) : null;
    if (view) {
      form.querySelectorAll("[data-col]").forEach(function (f) {
        var v = view.get(f.name);
        if (v !== null) { f.value = f.tagName === "SELECT" ? v.toLowerCase() : v; }
      });
      var sortBy = view.get("sort");
      if (sortBy) {
        table.querySelectorAll("thead th").forEach(function (th) {
          var b = th.querySelector("button");
          if (b && b.textContent === sortBy) {
            b.click();
            if (view.get("order") === "desc") { b.click(); }
          }
        });
      }
      apply();
    } else if (shown) {
      // Nothing is filtered yet: every row shows.
      shown.value = rows.length + " shown";
    }
  });
})();
