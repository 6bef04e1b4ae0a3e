/* live.js: the "Runs in progress" block of diskmeter's dashboard.
 *
 * Listens to the server-sent events of /events: `run` (a live run appeared or changed:
 * running, ended with the run it was saved as, or stale) and `point` (one per-second point
 * with the IO/s and MiB/s since the point before). Each live run is a
 * <div class="live-run" data-run="LIVE_ID" data-points="N"> (the server renders those
 * running when the page loads; this script adds the others on their first event) holding a
 * uPlot chart of IO/s and MiB/s that grows as points arrive; data-points counts the points
 * received; its colours are the palette's, from the section's data-iops-colour and
 * data-mibps-colour (diskmeter_views::palette). A finished run's block links to /run/ID. Errors are not caught: they reach the
 * console, where the browser tests look for them.
 */
(function () {
  "use strict";

  var section = document.getElementById("live");
  if (!section || typeof EventSource === "undefined") {
    return;
  }
  var list = section.querySelector(".live-runs");
  var none = section.querySelector(".live-none");
  var CHART_HEIGHT_PX = 220;
  /* live id -> { el, plot, data: [x seconds, IO/s, MiB/s], lastId, points } */
  var runs = {};

  function element(tag, className) {
    var el = document.createElement(tag);
    el.className = className;
    return el;
  }

  /* The block of a live run: the one the server rendered, or a new one like it. */
  function block(liveId) {
    var found = list.querySelector('.live-run[data-run="' + liveId + '"]');
    if (found) {
      return found;
    }
    var el = element("div", "live-run");
    el.dataset.run = String(liveId);
    el.dataset.points = "0";
    el.dataset.state = "running";
    el.appendChild(element("h3", "live-title"));
    var facts = element("p", "live-facts");
    facts.appendChild(element("span", "live-where"));
    facts.appendChild(element("span", "live-status"));
    el.appendChild(facts);
    el.appendChild(element("p", "live-now"));
    el.appendChild(element("div", "live-chart"));
    list.insertBefore(el, list.firstChild);
    return el;
  }

  function state(liveId) {
    var s = runs[liveId];
    if (!s) {
      s = { el: block(liveId), plot: null, data: [[], [], []], lastId: 0, points: 0 };
      runs[liveId] = s;
      none.hidden = true;
    }
    return s;
  }

  function describe(s, run) {
    s.el.querySelector(".live-title").textContent = run.name + " (" + run.kind + ")";
    s.el.querySelector(".live-where").textContent =
      run.target + " on " + run.hostname + ", process " + run.pid + ": ";
    var status = s.el.querySelector(".live-status");
    status.textContent = "";
    if (run.running) {
      s.el.dataset.state = "running";
      status.textContent = "running";
    } else if (run.ended_unix_ms !== null) {
      s.el.dataset.state = "ended";
      if (run.run_id !== null) {
        status.appendChild(document.createTextNode("finished: "));
        var link = document.createElement("a");
        link.href = "/run/" + run.run_id;
        link.textContent = "run " + run.run_id;
        status.appendChild(link);
      } else {
        status.textContent = "ended before a step finished (nothing saved)";
      }
    } else {
      s.el.dataset.state = "stale";
      status.textContent = "stopped reporting (its process was killed?)";
    }
  }

  function chart(s) {
    if (s.plot === null) {
      var holder = s.el.querySelector(".live-chart");
      s.plot = new uPlot({
        width: Math.max(320, holder.clientWidth || list.clientWidth || 640),
        height: CHART_HEIGHT_PX,
        scales: { x: { time: true }, iops: { auto: true }, mib: { auto: true } },
        series: [
          {},
          { label: "IO/s", scale: "iops", stroke: section.dataset.iopsColour, width: 3 },
          { label: "MiB/s", scale: "mib", stroke: section.dataset.mibpsColour, width: 2,
            dash: [10, 5] }
        ],
        axes: [
          {},
          { scale: "iops", label: "IO/s" },
          { scale: "mib", label: "MiB/s", side: 1, grid: { show: false } }
        ]
      }, s.data, holder);
    } else {
      s.plot.setData(s.data);
    }
  }

  function round(value) {
    return value >= 100 ? value.toFixed(0) : value.toFixed(1);
  }

  var source = new EventSource("/events");

  source.addEventListener("run", function (event) {
    var run = JSON.parse(event.data);
    describe(state(run.live_id), run);
  });

  source.addEventListener("point", function (event) {
    var point = JSON.parse(event.data);
    var s = state(point.live_id);
    if (point.id <= s.lastId) {
      return; /* sent again after a reconnect */
    }
    s.lastId = point.id;
    s.points += 1;
    s.el.dataset.points = String(s.points);
    /* A step's first point has no rate: a gap, so steps are not joined. */
    s.data[0].push(point.t_unix_ms / 1000);
    s.data[1].push(point.iops);
    s.data[2].push(point.mib_per_sec);
    if (point.iops !== null) {
      s.el.querySelector(".live-now").textContent = "step " + (point.step_position + 1) +
        ", " + point.step_name + ": " + round(point.iops) + " IO/s, " +
        round(point.mib_per_sec) + " MiB/s";
      chart(s);
    }
  });
})();
