/* charts.js: draws every chart of a diskmeter page with uPlot.
 *
 * The chart specs (diskmeter_views::ChartSpec serialised) are the JSON array in
 * the JSON script element #chart-data; each is drawn into the element whose id
 * is the spec's id. Styles: "lines", "lines_points", "bars" (grouped per category when the
 * x axis has categories). Scales: "linear", "log10" (uPlot's log distribution; values <= 0
 * cannot be placed and are left out) and "nines" (percentiles placed at -log10(1 - p/100),
 * so 90, 99 and 99.9 are evenly spaced; 100 cannot be placed). A y of null is a gap.
 * Once every spec is drawn, the html element's data-charts-drawn holds their number. Errors are not
 * caught: they reach the console, where the browser tests look for them.
 */
(function () {
  "use strict";

  var PALETTE = ["#0969da", "#cf222e", "#1a7f37", "#bf8700", "#8250df", "#1b7c83",
    "#bc4c00", "#6e7781", "#e85aad", "#4d2d00"];
  var HEIGHT_PX = 300;
  /* A group of bars fills this share of its category's width. */
  var GROUP_WIDTH = 0.8;
  /* Longer category names are cut on the axis. */
  var CATEGORY_CHARS = 24;

  function colour(index) {
    return PALETTE[index % PALETTE.length];
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
      options.values = function (u, splits) {
        return splits.map(logLabel);
      };
    }
    return options;
  }

  /* How the legend prints a value of an axis. */
  function legendValue(axis, spec) {
    if (hasCategories(spec)) {
      return function (u, value) {
        return value === null || value === undefined ? "--" : spec.x.categories[value];
      };
    }
    if (axis.scale === "nines") {
      return function (u, value) {
        if (value === null || value === undefined) {
          return "--";
        }
        return (100 * (1 - Math.pow(10, -value))).toPrecision(6) + "%";
      };
    }
    return undefined;
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
    var options = {
      label: series.label,
      stroke: colour(index),
      width: 2,
      spanGaps: false,
      scale: "y"
    };
    if (spec.style === "bars") {
      options.fill = colour(index) + "cc";
      options.width = 1;
      options.points = { show: false };
      options.paths = hasCategories(spec)
        ? groupedBars(index, spec.series.length)
        : uPlot.paths.bars({ size: [GROUP_WIDTH / Math.max(1, spec.series.length), Infinity, 1] });
    } else if (spec.style === "lines_points") {
      options.points = { show: true, size: 7, fill: colour(index) };
    } else {
      options.points = { show: false, filter: isolatedPoints, fill: colour(index) };
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
      legend: { live: true },
      hooks: {
        draw: [function () {
          if (onDrawn) {
            onDrawn(spec.id);
          }
        }]
      }
    };
    var chart = new uPlot(options, alignedData(spec), element);
    window.addEventListener("resize", function () {
      var now = element.clientWidth;
      if (now > 0 && now !== chart.width) {
        chart.setSize({ width: now, height: HEIGHT_PX });
      }
    });
    return chart;
  }

  window.diskmeterCharts = { draw: draw };

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
    draw(spec, element, noteDrawn);
  });
})();
