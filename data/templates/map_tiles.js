  // The tiled map (lakeshore's src/report/map/tiles.rs puts this at the end of the page's script, in its
  // scope). The parcels are in scripts beside the page, one a tile of D.tiles.list ([x, y, parcels, per tier
  // class, per status class]); each calls lakeshoreTile. The body's data-tiles is "loading" while tiles are
  // asked for or being drawn, "drawn" once they are. From D.tiles.parcelZoom in, the tiles the view
  // needs are added (the farthest dropped past CACHE) and their parcels drawn, filtered and clicked as the
  // single page's; farther out each tile is a square in the colour of its commonest class. The legend and the
  // total count the whole map, from the index.
  var T = D.tiles, CACHE = 64;
  var known = {}, loaded = {}, loading = {}, used = [], waiting = [], rebuilding = false;
  T.list.forEach(function (t) { known[t[0] + "_" + t[1]] = t; });
  var interned = new Map();
  S.forEach(function (s, i) { interned.set(s, i); });
  function intern(s) {
    var i = interned.get(s);
    if (i === undefined) { i = S.length; S.push(s); interned.set(s, i); }
    return i;
  }
  [["filter-town", "town"], ["filter-tier", "tier"], ["filter-status", "status"], ["filter-notice", "notice_stage"]]
    .forEach(function (f) {
      var select = document.getElementById(f[0]);
      (T.choices[f[1]] || []).forEach(function (v) { select.appendChild(el("option", { value: v }, [v])); });
    });
  document.getElementById("total").textContent = T.total + D.unmapped;

  // The legend of the whole map, by the colouring asked: set again after each filter and colouring, whose
  // own legend (apply) counts the parcels loaded only.
  function legendOfIndex() {
    var counts = D.classes.map(function () { return 0; });
    T.list.forEach(function (t) { (colourBy === "tier" ? t[3] : t[4]).forEach(function (n, k) { counts[k] += n; }); });
    var legend = document.getElementById("legend");
    legend.textContent = "";
    [4, 3, 2, 1, 9, 8, 7, 6, 5, 0].forEach(function (k) {
      if (!counts[k]) { return; }
      var c = D.classes[k], sw = el("span", { "class": "swatch", style: "background:" + (c.fill || "#ccc") });
      legend.appendChild(el("div", { "data-class": c.label }, [sw, c.label + " (" + counts[k] + ")"]));
    });
  }
  ["filter-town", "filter-tier", "filter-status", "filter-notice", "filter-overdue"].forEach(function (id) {
    document.getElementById(id).addEventListener("change", legendOfIndex);
  });
  document.getElementById("search").addEventListener("input", legendOfIndex);
  document.querySelectorAll("input[name=colour]").forEach(function (r) {
    r.addEventListener("change", function () { legendOfIndex(); drawOverview(); });
  });

  // The parcels of the tiles loaded, put together once a frame at most as tiles come and go: each tile's
  // decoded arrays (decodeLoaded, once, as it comes) copied end to end, their offsets moved on.
  function rebuild() {
    rebuilding = false;
    var parts = map.getZoom() >= T.parcelZoom ? Object.keys(loaded).map(function (key) { return loaded[key]; }) : [];
    var n = 0, v = 0, r = 0;
    parts.forEach(function (t) { n += t.n; v += t.X.length; r += t.ringStart.length - 1; });
    D.parcels = [];
    X = new Float64Array(v); Y = new Float64Array(v); box = new Float64Array(4 * n);
    ringStart = new Uint32Array(r + 1); parcelRing = new Uint32Array(n + 1);
    v = 0; r = 0; n = 0;
    parts.forEach(function (t) {
      X.set(t.X, v); Y.set(t.Y, v); box.set(t.box, 4 * n);
      for (var k = 0; k < t.ringStart.length - 1; k++) { ringStart[r + k] = t.ringStart[k] + v; }
      for (var i = 0; i < t.n; i++) { parcelRing[n + i] = t.parcelRing[i] + r; D.parcels.push(t.parcels[i]); }
      v += t.X.length; r += t.ringStart.length - 1; n += t.n;
    });
    ringStart[r] = v; parcelRing[n] = r; N = n;
    shown = new Uint8Array(N);
    search = null;
    apply();
    legendOfIndex();
    if (!Object.keys(loading).length) {
      document.body.setAttribute("data-tiles", "drawn");
      waiting.splice(0).forEach(function (f) { requestAnimationFrame(f); });
    }
  }
  function rebuildSoon() {
    document.body.setAttribute("data-tiles", "loading");
    if (!rebuilding) { rebuilding = true; requestAnimationFrame(rebuild); }
  }
  // A tile's script calls this once a segment of it: its texts, and its records referring to them.
  var arriving = {};
  window.lakeshoreTile = function (z, x, y, texts, records) {
    var ids = texts.map(intern);
    records.forEach(function (p) {
      p[0] = p[0].map(function (i) { return ids[i]; });
      p[4].forEach(function (o) { o[0] = ids[o[0]]; o[3] = ids[o[3]]; });
    });
    var key = x + "_" + y;
    arriving[key] = (arriving[key] || []).concat(records);
  };
  // A tile's script has run: its parcels are decoded once, and drawn with the others once the view's
  // tiles are all in.
  function arrived(key) {
    var all = D.parcels, records = arriving[key] || [];
    delete arriving[key];
    D.parcels = records;
    var s = decodeLoaded();
    D.parcels = all;
    delete loading[key];
    loaded[key] = { parcels: records, n: s[0], X: s[1], Y: s[2], ringStart: s[3], parcelRing: s[4], box: s[5] };
    used.push(key);
    if (!Object.keys(loading).length) { rebuildSoon(); }
  }
  function load(key) {
    loading[key] = true;
    document.body.setAttribute("data-tiles", "loading");
    var s = document.createElement("script");
    s.src = encodeURIComponent(T.prefix) + T.zoom + "_" + key + ".js";
    s.onload = function () { s.remove(); arrived(key); };
    s.onerror = function () { delete loading[key]; delete arriving[key]; s.remove(); rebuildSoon(); };
    document.head.appendChild(s);
  }

  // Far out: a square a tile, in the colour of its commonest class.
  var overview = L.layerGroup(), overviewRenderer = L.canvas({ pane: "parcels" });
  function tileBounds(x, y) {
    var crs = map.options.crs, size = 256;
    return L.latLngBounds(crs.pointToLatLng(L.point(x * size, (y + 1) * size), T.zoom),
      crs.pointToLatLng(L.point((x + 1) * size, y * size), T.zoom));
  }
  function drawOverview() {
    overview.clearLayers();
    T.list.forEach(function (t) {
      var counts = colourBy === "tier" ? t[3] : t[4], top = 0;
      counts.forEach(function (n, k) { if (n > counts[top]) { top = k; } });
      var c = D.classes[top];
      overview.addLayer(L.rectangle(tileBounds(t[0], t[1]), { renderer: overviewRenderer, interactive: false,
        stroke: false, fill: true, fillColor: c.fill || "#ccc", fillOpacity: 0.85 }));
    });
  }
  drawOverview();

  // The tiles the view needs, added; the least recently added past CACHE that it does not need, dropped.
  var wasNear = null;
  function update() {
    var near = map.getZoom() >= T.parcelZoom, changed = near !== wasNear;
    wasNear = near;
    if (!near) {
      overview.addTo(map);
      if (changed) { rebuildSoon(); }
      return;
    }
    map.removeLayer(overview);
    var b = map.getPixelBounds(), scale = Math.pow(2, T.zoom - map.getZoom()) / 256, want = {};
    for (var x = Math.floor(b.min.x * scale); x <= Math.floor(b.max.x * scale); x++) {
      for (var y = Math.floor(b.min.y * scale); y <= Math.floor(b.max.y * scale); y++) {
        var key = x + "_" + y;
        if (!known[key]) { continue; }
        want[key] = true;
        if (!loaded[key] && !loading[key]) { load(key); }
      }
    }
    used = used.filter(function (key) { return loaded[key]; });
    while (used.length > CACHE) {
      var far = used.findIndex(function (key) { return !want[key]; });
      if (far < 0) { break; }
      delete loaded[used.splice(far, 1)[0]];
      changed = true;
    }
    if (changed) { rebuildSoon(); }
  }
  map.on("moveend", update);
  // Runs `f` once the tiles asked for are in and drawn.
  function tilesReady(f) { waiting.push(f); rebuildSoon(); }
  if (T.list.length) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    T.list.forEach(function (t) {
      x0 = Math.min(x0, t[0]); y0 = Math.min(y0, t[1]); x1 = Math.max(x1, t[0]); y1 = Math.max(y1, t[1]);
    });
    map.fitBounds(tileBounds(x0, y0).extend(tileBounds(x1, y1)), { animate: false, padding: [10, 10] });
  }
  update();
  window.lakeshoreMap.parcelZoom = T.parcelZoom;
  window.lakeshoreMap.tilesLoading = function () { return Object.keys(loading).length + (rebuilding ? 1 : 0); };
  window.lakeshoreMap.tilesLoaded = function () { return Object.keys(loaded).length; };
  // The index of the tiles ([x, y, parcels, per tier class, per status class] at D.tiles.zoom), for scripts.
  window.lakeshoreMap.tiles = function () { return { zoom: T.zoom, list: T.list }; };
