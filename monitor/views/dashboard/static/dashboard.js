// sumwatch dashboard: hands each page's Plotly figures to Plotly.newPlot, and wires the filter bars,
// keyboard labelling and the issue export button. No chart is drawn here.
(function () {
  "use strict";

  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function drawCharts() {
    if (typeof Plotly === "undefined") return;
    document.querySelectorAll("[data-figure]").forEach(function (el) {
      var spec = JSON.parse(document.getElementById(el.dataset.figure).textContent);
      Plotly.newPlot(el, spec.data, spec.layout, spec.config).then(function () {
        el.dataset.drawn = "1";
        if (el.dataset.clickLinks) {
          // each point's customdata is the path of its trace page
          el.on("plotly_click", function (event) {
            var point = event.points && event.points[0];
            if (point && typeof point.customdata === "string" && point.customdata.charAt(0) === "/") {
              window.location.href = point.customdata;
            }
          });
        }
      });
    });
  }

  function autoSubmit() {
    document.querySelectorAll("form[data-autosubmit] select").forEach(function (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    });
  }

  function post(url, fields) {
    var body = new URLSearchParams(fields);
    body.set("csrf_token", csrfToken());
    return fetch(url, {method: "POST", credentials: "same-origin", body: body,
                       headers: {"X-CSRF-Token": csrfToken(), "Accept": "application/json"}});
  }

  function labelling() {
    var queue = document.getElementById("queue");
    if (!queue) return;
    var current = 0;
    function items() { return Array.prototype.slice.call(queue.querySelectorAll(".queue-item:not(.done)")); }
    function select(index) {
      var list = items();
      queue.querySelectorAll(".queue-item.current").forEach(function (el) { el.classList.remove("current"); });
      if (!list.length) return;
      current = Math.max(0, Math.min(index, list.length - 1));
      list[current].classList.add("current");
      list[current].scrollIntoView({block: "nearest", behavior: "smooth"});
    }
    function refreshTable() {
      fetch("/labelling/table", {credentials: "same-origin"}).then(function (r) { return r.text(); }).then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var table = doc.getElementById("calibration-table");
        var holder = document.getElementById("calibration");
        if (table && holder) holder.replaceChildren(table);
      });
    }
    function label(item, verdict) {
      var status = item.querySelector(".status");
      status.textContent = "saving…";
      var labeller = document.getElementById("labeller");  // who labels: kept in the session's cookie
      var count = document.getElementById("queue-count");
      var fields = {verdict: verdict, rubric: count ? count.dataset.rubric : ""};
      if (labeller && labeller.value.trim()) fields.by = labeller.value.trim();
      post("/labelling/" + encodeURIComponent(item.dataset.item), fields).then(function (r) {
        return r.json().catch(function () { return {error: "HTTP " + r.status}; }).then(function (body) {
          if (!r.ok) { status.textContent = body.error || ("HTTP " + r.status); return; }
          item.classList.add("done");
          item.classList.remove("current");
          status.textContent = body.status === "rejected" ? "rejected" : "labelled " + body.verdict;
          // the server's count of what still waits (this rubric's, or every rubric's): one source, however many
          // labels were given, changed or given by someone else meanwhile
          if (count && typeof body.waiting === "number") count.textContent = body.waiting + " waiting";
          select(current);
          refreshTable();
        });
      }, function (err) { status.textContent = "not saved: " + err; });
    }
    queue.querySelectorAll("form.verdicts").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var item = form.closest(".queue-item");
        if (event.submitter) label(item, event.submitter.value);
      });
    });
    queue.addEventListener("click", function (event) {
      var item = event.target.closest(".queue-item:not(.done)");
      if (item) select(items().indexOf(item));
    });
    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var tag = (event.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "select" || tag === "textarea") return;
      var list = items();
      var item = list[current];
      var key = event.key;
      if (key === "j" || key === "ArrowDown") { select(current + 1); }
      else if (key === "k" || key === "ArrowUp") { select(current - 1); }
      else if (!item) { return; }
      else if (key === "p") { label(item, item.dataset.pass); }
      else if (key === "f") { label(item, item.dataset.fail); }
      else if (key === "r") { label(item, "rejected"); }
      else if (key === "s") { select(current + 1); }
      else if (/^[1-9]$/.test(key)) {
        var verdict = item.dataset.verdicts.split(" ")[Number(key) - 1];
        if (!verdict) return;
        label(item, verdict);
      } else { return; }
      event.preventDefault();
    });
    select(0);
  }

  // POST /api/issues/{id}/export {"to": target}: one result per target, each with its action and ticket URL
  function exportButton() {
    var button = document.querySelector("[data-export-url]");
    if (!button) return;
    button.addEventListener("click", function () {
      var out = document.getElementById(button.dataset.output);
      var target = document.getElementById(button.dataset.targetSelect).value;
      button.disabled = true;
      out.textContent = "exporting to " + target + "…";
      fetch(button.dataset.exportUrl, {method: "POST", credentials: "same-origin", body: JSON.stringify({to: target}),
                                       headers: {"Content-Type": "application/json", "Accept": "application/json",
                                                 "X-CSRF-Token": csrfToken()}}).then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (body) {
          button.disabled = false;
          if (r.status === 404 && !body.error) { out.textContent = "No tracker export on this server."; return; }
          if (!r.ok) { out.textContent = body.error || ("export failed: HTTP " + r.status); return; }
          out.textContent = "";
          (body.results || []).forEach(function (result) {
            var line = document.createElement("span");
            line.textContent = result.target + ": " + result.action + (result.error ? " (" + result.error + ") " : " ");
            out.appendChild(line);
            if (typeof result.url === "string" && /^https?:\/\//.test(result.url)) {
              var link = document.createElement("a");
              link.href = result.url;
              link.textContent = result.external_id || result.url;
              link.target = "_blank";
              link.rel = "noopener";
              out.appendChild(link);
            } else if (result.url) {
              out.appendChild(document.createTextNode(result.url));
            }
            showTicket(result);
          });
        });
      }, function (err) { button.disabled = false; out.textContent = "export failed: " + err; });
    });
  }

  // the ticket list takes an export's result in place (as the page shows it after a reload)
  function showTicket(result) {
    var list = document.getElementById("ticket-list");
    if (!list || !result.target || /^(would-|skipped)/.test(result.action || "")) return;
    var alert = result.target === "slack" || result.target === "webhook";  // shown by name alone
    var item = document.createElement("span");
    item.className = "ticket";
    item.dataset.target = result.target;
    var name = document.createElement("span");
    name.className = "ticket-target";
    name.textContent = result.target;
    item.appendChild(name);
    var url = alert ? "" : (result.url || "");
    if (url) {
      item.appendChild(document.createTextNode(" "));
      var ref = document.createElement(/^https?:\/\//.test(url) ? "a" : "span");
      if (ref.tagName === "A") { ref.href = url; ref.target = "_blank"; ref.rel = "noopener"; }
      else { ref.className = "ticket-ref"; }
      ref.textContent = ref.tagName === "A" ? (result.external_id || url) : url;
      item.appendChild(ref);
    }
    var state = alert ? "" : (result.action === "failed" ? "failed" : (result.tracker_state || "synced"));
    if (state) {
      var badge = document.createElement("span");
      badge.className = "badge state-" + state;
      badge.textContent = state;
      item.appendChild(document.createTextNode(" "));
      item.appendChild(badge);
    }
    if (!alert && result.error) {
      var error = document.createElement("span");
      error.className = "ticket-error";
      error.textContent = result.error;
      item.appendChild(document.createTextNode(" "));
      item.appendChild(error);
    }
    var old = list.querySelector('.ticket[data-target="' + result.target + '"]');
    if (old) { list.replaceChild(item, old); } else { list.appendChild(item); }
    var none = document.getElementById("no-tickets");
    if (none) none.hidden = true;
  }

  // a long source scrolls inside its box: bring the first marked phrase into view
  function showMarks() {
    document.querySelectorAll(".pair .body").forEach(function (body) {
      var mark = body.querySelector("mark");
      if (mark && body.scrollHeight > body.clientHeight) {
        body.scrollTop = Math.max(0, mark.offsetTop - 40);  // .body is positioned: offsetTop is within it
      }
    });
  }

  drawCharts();
  showMarks();
  autoSubmit();
  labelling();
  exportButton();
})();
