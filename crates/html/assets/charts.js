/* charts.js: draws every chart of a diskmeter page with uPlot.
 *
 * The chart specs (diskmeter_views::ChartSpec serialised) are the JSON array in
 * the JSON script element #chart-data; each is drawn into the element whose id
 * is the spec's id. Styles: "lines", "lines_points", "bars" (grouped per category when the
 * x axis has categories). Scales: "linear", "log10" (uPlot's log distribution; values <= 0
 * cannot be placed and are left out) and "nines" (percentiles placed at -log10(1 - p/100),
 * so 90, 99 and 99.9 are evenly spaced; 100 cannot be placed). A y of null is a gap.
 *
 * Every spec carries its look (diskmeter_views::palette::ChartLook, decided in Rust for the
 * HTML and the PNG/SVG charts alike): each series' colour and dash, the x values of a grid
 * (ticked exactly there: 4, 16, 64) and what the legend shows while no point is hovered
 * (each series' mean or maximum, so it never reads "--"). No colour is chosen here.
 * Log axes tick at 1, 2, 5 per decade over a few decades; a linear axis labels its ticks
 * alike (0, 2.5k, 5k; never 0.00 beside 1000). Charts are redrawn at the page's width when
 * it changes, and when the page is printed (report.css sizes them for paper).
 *
 * Once every spec is drawn, the html element's data-charts-drawn holds their number. Errors are not
 * caught: they reach the console, where the browser tests look for them.
 */
(function () {
  "use strict";

  var HEIGHT_PX = 300;
  /* A group of bars fills this share of its category's width. */
  var GROUP_WIDTH = 0.8;
  /* Longer category names are cut on the axis. */
  var CATEGORY_CHARS = 24;

  /* The paint (colour, dash) Rust chose for series `index` of `spec`. */
  function paint(spec, index) {
    var painted = spec.look && spec.look.series[index];
    if (!painted) {
      throw new Error("diskmeter: chart " + spec.id + " has no paint for series " + index);
    }
    return painted;
  }

  /* A number with 4 significant digits at most and a k/M/G suffix: 0.123, 12.35, 1234, 12.3k;
     k from 10k on, or from `kFrom` (1000 on a log axis: 1k beside 10k, as axis.rs labels). */
  function shortNumber(value, kFrom) {
    if (value === null || value === undefined || !isFinite(value)) {
      return "--";
    }
    var size = Math.abs(value);
    var suffixes = [[1e9, 1e9, "G"], [1e6, 1e6, "M"], [kFrom || 1e4, 1e3, "k"]];
    for (var i = 0; i < suffixes.length; i++) {
      if (size >= suffixes[i][0]) {
        return Number((value / suffixes[i][1]).toPrecision(4)) + suffixes[i][2];
      }
    }
    return String(Number(value.toPrecision(4)));
  }

  /* The nanoseconds of one unit of an axis whose label names a time unit ("latency (usec)"),
     or 0: its legend then prints each value in its own unit, as every view does. */
  function timeUnitNs(axis) {
    var found = /\((nsec|usec|msec|sec|ns|us|ms|s)\)/.exec(axis.label || "");
    if (!found) {
      return 0;
    }
    return { nsec: 1, ns: 1, usec: 1e3, us: 1e3, msec: 1e6, ms: 1e6, sec: 1e9, s: 1e9 }[found[1]];
  }

  /* A duration in its own unit, 1 to 999 of it with at most 4 significant digits ("4.25 ms",
     "52.2 us", "850 ns"), as diskmeter_units::format_duration prints it. */
  function durationText(ns) {
    if (ns === 0) {
      return "0 ns";
    }
    var units = [["ns", 1], ["us", 1e3], ["ms", 1e6], ["s", 1e9], ["min", 60e9], ["h", 3600e9]];
    for (var i = 0; i < units.length; i++) {
      var v = ns / units[i][1];
      var text = i === 0 ? String(Number(v.toPrecision(4))) : v < 10 ? v.toFixed(2) : v.toFixed(1);
      if (Math.abs(parseFloat(text)) < 1000 || i === units.length - 1) {
        return text + " " + units[i][0];
      }
    }
  }

  /* How a legend prints a value of `axis`: a time in its own unit, else a short number. */
  function valueText(axis, value) {
    var unitNs = timeUnitNs(axis);
    return unitNs > 0 ? durationText(value * unitNs) : shortNumber(value);
  }

  /* The labels of a linear axis's ticks, alike: one suffix (k, M, G) for the axis, as many
     decimals as its step needs (as the PNG charts' axis.rs labels them). */
  function linearLabels(splits) {
    var top = 0, step = Infinity;
    for (var i = 0; i < splits.length; i++) {
      top = Math.max(top, Math.abs(splits[i]));
      if (i > 0 && splits[i] !== splits[i - 1]) {
        step = Math.min(step, Math.abs(splits[i] - splits[i - 1]));
      }
    }
    if (!isFinite(step)) {
      step = top || 1;
    }
    var divisor = 1, suffix = "";
    [[1e9, "G"], [1e6, "M"], [1e3, "k"]].some(function (unit) {
      if (top >= unit[0] * (unit[0] === 1e3 ? 10 : 1) && step / unit[0] >= 0.1) {
        divisor = unit[0];
        suffix = unit[1];
        return true;
      }
      return false;
    });
    var decimals = 0;
    while (decimals < 6) {
      var shifted = step / divisor * Math.pow(10, decimals);
      if (Math.abs(shifted - Math.round(shifted)) < 1e-6 * Math.max(shifted, 1)) {
        break;
      }
      decimals++;
    }
    return splits.map(function (value) {
      if (value === 0) {
        return "0";
      }
      var text = (value / divisor).toFixed(decimals);
      if (text.indexOf(".") >= 0) {
        text = text.replace(/0+$/, "").replace(/\.$/, "");
      }
      return (text === "-0" ? "0" : text) + suffix;
    });
  }

  /* Ticks of a log axis from min to max: 1, 2, 5 per decade over three decades or fewer,
     else the decades. */
  function logSplits(min, max) {
    var splits = [];
    var first = Math.floor(Math.log10(min)), last = Math.ceil(Math.log10(max));
    var multiples = last - first <= 3 ? [1, 2, 5] : [1];
    for (var d = first; d <= last; d++) {
      multiples.forEach(function (m) {
        var value = Number((m * Math.pow(10, d)).toPrecision(6));
        if (value >= min * (1 - 1e-9) && value <= max * (1 + 1e-9)) {
          splits.push(value);
        }
      });
    }
    return splits;
  }

  /* What the legend shows of series `values` while no point is hovered. */
  function summary(kind, values) {
    var drawn = values.filter(function (v) { return v !== null && v !== undefined && isFinite(v); });
    if (drawn.length === 0) {
      return "--";
    }
    if (kind === "mean") {
      return drawn.reduce(function (a, b) { return a + b; }, 0) / drawn.length;
    }
    return Math.max.apply(null, drawn);
  }

  function ninesPosition(percent) {
    return -Math.log10(1 - percent / 100);
  }

  /* "50%", "90%", "99%", "99.9%", "99.99%" for positions 0.301, 1, 2, 3, 4. */
  function ninesLabel(position) {
    var percent = 100 * (1 - Math.pow(10, -position));
    var digits = Math.max(0, Math.ceil(position - 1e-9) - 2);
    return percent.toFixed(digits) + "%";
  }

  /* Where a value sits on an axis of this scale; null when it cannot be placed. */
  function position(scale, value) {
    if (value === null || value === undefined || !isFinite(value)) {
      return null;
    }
    if (scale === "nines") {
      return value >= 0 && value < 100 ? ninesPosition(value) : null;
    }
    if (scale === "log10") {
      return value > 0 ? value : null;
    }
    return value;
  }

  /* A number on a log axis: 0.001, 10, 10,000, 1e-7. */
  function logLabel(value) {
    if (value === null || value === undefined) {
      return null;
    }
    var size = Math.abs(value);
    if (size !== 0 && (size < 1e-4 || size >= 1e12)) {
      return value.toExponential(0);
    }
    return Number(value.toPrecision(6)).toLocaleString("en-US", { maximumFractionDigits: 6 });
  }

  /* A category's name on its axis, shortened; the legend shows it whole. */
  function categoryLabel(name) {
    return name.length > CATEGORY_CHARS ? name.slice(0, CATEGORY_CHARS - 1) + "\u2026" : name;
  }

  function hasCategories(spec) {
    return spec.style === "bars" && spec.x.categories.length > 0;
  }

  /* uPlot wants one shared, ascending x array: the union of every series' x values.
     An x a series does not have is undefined (uPlot joins the line across it); a y of
     null stays null (a gap: no IO that second). */
  function alignedData(spec) {
    var points = [];
    spec.series.forEach(function (series, index) {
      for (var i = 0; i < series.x.length; i++) {
        var x = position(spec.x.scale, series.x[i]);
        if (x === null) {
          continue;
        }
        var y = i < series.y.length ? position(spec.y.scale, series.y[i]) : null;
        points.push({ x: x, series: index, y: y });
      }
    });
    var xs = points.map(function (p) { return p.x; });
    xs.sort(function (a, b) { return a - b; });
    var unique = xs.filter(function (x, i) { return i === 0 || x !== xs[i - 1]; });
    var slot = new Map();
    unique.forEach(function (x, i) { slot.set(x, i); });
    var data = [unique];
    spec.series.forEach(function () {
      data.push(new Array(unique.length).fill(undefined));
    });
    points.forEach(function (p) {
      data[p.series + 1][slot.get(p.x)] = p.y;
    });
    return data;
  }

  /* The scale of one axis in uPlot's terms. */
  function scaleOptions(axis, isX, spec) {
    if (isX && hasCategories(spec)) {
      var last = spec.x.categories.length - 1;
      return { time: false, range: function () { return [-0.5, last + 0.5]; } };
    }
    if (axis.scale === "log10") {
      var grid = isX ? spec.look.x_grid : [];
      if (grid.length >= 2) {
        /* A grid (a sweep's queue depths): a little beyond its ends, as the PNG shows it. */
        var low = Math.log10(grid[0]), high = Math.log10(grid[grid.length - 1]);
        var pad = (high - low) * 0.06;
        return {
          time: false, distr: 3, log: 10,
          range: function () { return [Math.pow(10, low - pad), Math.pow(10, high + pad)]; }
        };
      }
      return { time: false, distr: 3, log: 10 };
    }
    if (axis.scale === "nines") {
      return {
        time: false,
        range: function (u, min, max) {
          var low = min === null ? 0 : Math.max(0, Math.floor(min));
          var high = max === null ? 2 : Math.max(low + 1, Math.ceil(max));
          return [low, high];
        }
      };
    }
    if (isX) {
      return { time: false };
    }
    /* Rates and latencies start at zero, so heights compare truthfully. */
    return {
      range: function (u, min, max) {
        var low = min === null ? 0 : Math.min(0, min);
        var high = max === null || max <= low ? low + 1 : max * 1.05;
        return [low, high];
      }
    };
  }

  /* An axis in uPlot's terms: its label and, for categories and nines, its ticks. */
  function axisOptions(axis, isX, spec) {
    var options = { label: axis.label, stroke: "#59636e", grid: { stroke: "#eaeef2" } };
    if (!isX) {
      options.size = 70;
    }
    if (isX && hasCategories(spec)) {
      var categories = spec.x.categories;
      options.splits = function () {
        return categories.map(function (_, i) { return i; });
      };
      options.values = function (u, splits) {
        return splits.map(function (i) {
          return categories[i] === undefined ? "" : categoryLabel(categories[i]);
        });
      };
      /* Many or long names would overlap level: tilt them and make room below. */
      var longest = categories.reduce(function (n, c) {
        return Math.max(n, categoryLabel(c).length);
      }, 0);
      if (categories.length * longest > 60) {
        options.rotate = -35;
        options.size = 30 + Math.ceil(longest * 7 * Math.sin(35 * Math.PI / 180));
      }
    } else if (axis.scale === "nines") {
      options.splits = function (u, axisIndex, min, max) {
        var ticks = [];
        if (min <= Math.log10(2) && Math.log10(2) <= max) {
          ticks.push(Math.log10(2));
        }
        for (var k = Math.ceil(min); k <= max; k++) {
          /* 0% would crowd the 50% tick next to it. */
          if (k > 0 || ticks.length === 0) {
            ticks.push(k);
          }
        }
        return ticks.sort(function (a, b) { return a - b; });
      };
      options.values = function (u, splits) {
        return splits.map(ninesLabel);
      };
    } else if (axis.scale === "log10") {
      var grid = isX ? spec.look.x_grid : [];
      options.splits = function (u, axisIndex, min, max) {
        if (grid.length > 0) {
          return grid.filter(function (x) { return x >= min && x <= max; });
        }
        return logSplits(min, max);
      };
      /* uPlot labels only 1, 2 and 5 on a log axis by default; a grid's 4, 16, 64 too. */
      options.filter = function (u, splits) {
        return splits;
      };
      options.values = function (u, splits) {
        return splits.map(function (v) {
          /* A grid's values as they are (a 1024 KiB block is 1024, not 1.024k). */
          if (grid.length > 0) {
            return String(Number(v.toPrecision(6)));
          }
          return v >= 1e-4 && v < 1e12 ? shortNumber(v, 1e3) : logLabel(v);
        });
      };
    } else {
      options.values = function (u, splits) {
        return linearLabels(splits);
      };
    }
    return options;
  }

  /* How the legend prints a value of the x axis; with no point hovered, what the series'
     values are (their mean or maximum). */
  function legendValue(axis, spec) {
    var idle = spec.look.summary;
    if (hasCategories(spec)) {
      return function (u, value) {
        return value === null || value === undefined ? idle : spec.x.categories[value];
      };
    }
    if (axis.scale === "nines") {
      return function (u, value) {
        if (value === null || value === undefined) {
          return idle;
        }
        return (100 * (1 - Math.pow(10, -value))).toPrecision(6) + "%";
      };
    }
    return function (u, value) {
      return value === null || value === undefined ? idle : valueText(axis, value);
    };
  }

  /* Indices of the points a line cannot show: a value with a gap (null) or nothing on
     both sides, such as a single second, drawn as a dot instead. */
  function isolatedPoints(u, seriesIndex, show) {
    if (show) {
      return null;
    }
    var ys = u.data[seriesIndex];
    function neighbour(i, step) {
      for (var j = i + step; j >= 0 && j < ys.length; j += step) {
        if (ys[j] !== undefined) {
          return ys[j];
        }
      }
      return null;
    }
    var alone = [];
    for (var i = 0; i < ys.length; i++) {
      if (ys[i] !== null && ys[i] !== undefined && neighbour(i, -1) === null && neighbour(i, 1) === null) {
        alone.push(i);
      }
    }
    return alone.length > 0 ? alone : null;
  }

  /* Bars of series `index` of `count`: side by side within each category. */
  function groupedBars(index, count) {
    var width = GROUP_WIDTH / count;
    return uPlot.paths.bars({
      disp: {
        x0: {
          unit: 1,
          values: function (u) {
            return u.data[0].map(function (x) { return x - GROUP_WIDTH / 2 + index * width; });
          }
        },
        size: {
          unit: 1,
          values: function () { return [width]; }
        }
      }
    });
  }

  function seriesOptions(spec, series, index) {
    var painted = paint(spec, index);
    var colour = painted.colour;
    /* Shown while no point is hovered: the series' mean or maximum, as the PNG has none. */
    var idle = summary(spec.look.summary, series.y);
    var options = {
      label: series.label,
      stroke: colour,
      width: painted.dash.length > 0 ? 2 : 3,
      dash: painted.dash,
      spanGaps: false,
      scale: "y",
      value: function (u, value, seriesIndex, index) {
        if (index === null || index === undefined) {
          return typeof idle === "number" ? valueText(spec.y, idle) : idle;
        }
        return value === null || value === undefined ? "--" : valueText(spec.y, value);
      }
    };
    if (spec.style === "bars") {
      options.fill = colour + "cc";
      options.width = 1;
      options.points = { show: false };
      options.paths = hasCategories(spec)
        ? groupedBars(index, spec.series.length)
        : uPlot.paths.bars({ size: [GROUP_WIDTH / Math.max(1, spec.series.length), Infinity, 1] });
    } else if (spec.style === "lines_points") {
      options.points = { show: true, size: 7, fill: colour };
    } else {
      options.points = { show: false, filter: isolatedPoints, fill: colour };
    }
    return options;
  }

  var specs = [];
  var drawnIds = new Set();

  function noteDrawn(id) {
    if (drawnIds.has(id)) {
      return;
    }
    drawnIds.add(id);
    var expected = Number(document.documentElement.dataset.chartsExpected || specs.length);
    if (drawnIds.size >= expected) {
      document.documentElement.dataset.chartsDrawn = String(drawnIds.size);
    }
  }

  /* Draws one chart spec into `element`; returns the uPlot instance. */
  function draw(spec, element, onDrawn) {
    var width = element.clientWidth || 800;
    var options = {
      width: width,
      height: HEIGHT_PX,
      scales: {
        x: scaleOptions(spec.x, true, spec),
        y: scaleOptions(spec.y, false, spec)
      },
      axes: [axisOptions(spec.x, true, spec), axisOptions(spec.y, false, spec)],
      series: [{ label: spec.x.label, value: legendValue(spec.x, spec) }].concat(
        spec.series.map(function (series, index) { return seriesOptions(spec, series, index); })
      ),
      /* The legend's swatch is drawn as the line is: solid, dashed or dotted. */
      legend: {
        live: true,
        markers: {
          width: 3,
          dash: function (u, i) {
            var dash = u.series[i].dash || [];
            return dash.length === 0 ? "solid" : dash[0] <= 3 ? "dotted" : "dashed";
          }
        }
      },
      hooks: {
        draw: [function () {
          if (onDrawn) {
            onDrawn(spec.id);
          }
        }]
      }
    };
    var chart = new uPlot(options, alignedData(spec), element);
    /* uPlot's canvas has a fixed size: redraw it at the element's width when the page's
       width changes, and for print (the paper is narrower than most screens). */
    function fit() {
      var now = element.clientWidth;
      if (now > 0 && now !== chart.width) {
        chart.setSize({ width: now, height: HEIGHT_PX });
      }
    }
    window.addEventListener("resize", fit);
    window.addEventListener("beforeprint", fit);
    window.addEventListener("afterprint", fit);
    if (window.matchMedia) {
      var print = window.matchMedia("print");
      if (print.addEventListener) {
        print.addEventListener("change", fit);
      }
    }
    return chart;
  }

  /* The uPlot instance of each chart by id: the browser tests read the strokes drawn. */
  var instances = {};
  window.diskmeterCharts = { draw: draw, instances: instances };

  var data = document.getElementById("chart-data");
  specs = data ? JSON.parse(data.textContent) : [];
  if (specs.length === 0) {
    document.documentElement.dataset.chartsDrawn = "0";
  }
  specs.forEach(function (spec) {
    var element = document.getElementById(spec.id);
    if (!element) {
      throw new Error("diskmeter: no element for chart " + spec.id);
    }
    instances[spec.id] = draw(spec, element, noteDrawn);
  });
})();
