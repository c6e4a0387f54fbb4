// The RxSwift documents' search box, in plain JavaScript:
//
//   query.throttle(.milliseconds(200), latest: true)
//        .distinctUntilChanged()
//        .flatMapLatest { fetch($0).asDriver(onErrorJustReturn: failure) }
//        .drive(results, count)
//
// Each step below names the operator it stands for. Every text we insert goes
// through textContent or a text node, never innerHTML. The picked collection's
// refinements (refine.js) add their filter, sort and facets to the same query.
"use strict";

(() => {
  const THROTTLE_MS = 200;
  const LIMIT = 10;
  const EVENTS_KEPT = 50;
  const DETAIL_FIELDS = 40; // fields a document's detail lists

  const $ = (id) => document.getElementById(id);
  const form = $("search-form");
  const input = $("q");
  const liveSwitch = $("live");
  const statusLine = $("status");
  const errorLine = $("error");
  const list = $("results");
  const detail = $("detail");
  const eventList = $("events");
  const eventsState = $("events-state");
  const picker = $("collection");
  const searchLabel = $("search-label");
  const refinePanel = $("refine");
  const refine = new Refinements($("refine-controls"), () => typed(input.value));

  // The key or tenant token typed into the page (kept for this tab only): every request
  // below is made through these. fetch carries it as a header; EventSource cannot set
  // headers, so a stream carries it in the address (`token=`, which the access log hides).
  const keyInput = $("key");
  const access = {
    key: sessionStorage.getItem("signalbox.key") || "",
    headers() {
      return this.key ? { Accept: "application/json", Authorization: `Bearer ${this.key}` } : { Accept: "application/json" };
    },
    streamURL(url) {
      if (!this.key) return url;
      return `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(this.key)}`;
    },
  };
  keyInput.value = access.key;

  // The collections by name ({name, documents, id, fields, rank}); cities is built in.
  const CITIES = "cities";
  const collections = new Map();
  let current = CITIES;

  const numbers = new Intl.NumberFormat("en");
  const regions = typeof Intl.DisplayNames === "function" ? new Intl.DisplayNames(["en"], { type: "region" }) : null;

  // ---- throttle(_, latest: true): the first value goes at once, the newest
  // of each window at its end; values in between are dropped.
  function throttle(ms, next) {
    let timer = null;
    let pending = null;
    const tick = () => {
      if (pending === null) { timer = null; return; }
      const value = pending;
      pending = null;
      next(value);
      timer = setTimeout(tick, ms);
    };
    return (value) => {
      if (timer === null) { next(value); timer = setTimeout(tick, ms); }
      else pending = value;
    };
  }

  // ---- distinctUntilChanged, then flatMapLatest: a new query cancels the
  // request (or live stream) in flight, so only the latest one can answer.
  let lastQuery = null;
  let inFlight = null;   // AbortController of the running fetch
  let liveSource = null; // EventSource of the running live query

  function runQuery(query, { force = false } = {}) {
    const live = liveSwitch.checked;
    const url = searchURL(query, live);
    const key = `${live ? "live" : "once"}:${url}`;
    if (!force && key === lastQuery) return;
    lastQuery = key;
    followInAddress(query);
    cancelInFlight();
    if (!asksCollection() && query.trim() === "") { show({ cleared: true }); return; }
    if (live) startLive(url, searchURL(query, false));
    else fetchOnce(url);
  }

  // The cities with nothing refined ask /search as they always did (its tuned ranking);
  // any other query asks its collection, where an empty q lists every document.
  const asksCollection = () => current !== CITIES || refinePanel.open || refine.active;

  function cancelInFlight() {
    if (inFlight) { inFlight.abort(); inFlight = null; }
    if (liveSource) { liveSource.close(); liveSource = null; }
  }

  function searchURL(query, live) {
    const stream = live ? "/live" : "";
    if (!asksCollection()) return `/search${stream}?${new URLSearchParams({ q: query, limit: String(LIMIT) })}`;
    return collectionURL(`search${stream}`, { q: query, limit: String(LIMIT), ...refine.params() });
  }

  // /collections/{current}/{path}?params, empty parameters left out.
  function collectionURL(path, params) {
    const search = new URLSearchParams(Object.entries(params).filter(([, value]) => value !== ""));
    return `/collections/${encodeURIComponent(current)}/${path}?${search}`;
  }

  function fetchOnce(url) {
    const controller = new AbortController();
    inFlight = controller;
    statusLine.dataset.busy = "true";
    fetch(url, { signal: controller.signal, headers: access.headers() })
      .then(async (response) => {
        if (!response.ok) throw await problem(response);
        return response.json();
      })
      // asDriver(onErrorJustReturn:): an error becomes a value the view shows;
      // the box stays subscribed and the next keystroke searches again.
      .then((body) => ({ result: body }), (error) => ({ error }))
      .then((outcome) => {
        if (controller !== inFlight) return; // a newer query won
        inFlight = null;
        if (outcome.error && outcome.error.name === "AbortError") return;
        show(outcome);
      });
  }

  async function problem(response) {
    let detailText = "";
    try {
      const body = await response.json();
      detailText = body.detail || body.title || "";
    } catch (_) { /* not a problem body */ }
    const error = new Error(`${response.status} ${response.statusText || "error"}${detailText ? ": " + detailText : ""}`);
    error.status = response.status;
    return error;
  }

  // A live query: /search/live is a Driver over SSE — the current result at
  // once, then a new one whenever a change alters it.
  function startLive(url, onceURL) {
    const source = new EventSource(access.streamURL(url));
    liveSource = source;
    statusLine.dataset.busy = "true";
    source.addEventListener("result", (event) => {
      if (source !== liveSource) return;
      try { show({ result: JSON.parse(event.data), live: true }); }
      catch (error) { show({ error }); }
    });
    source.addEventListener("error", () => {
      if (source !== liveSource) return;
      if (source.readyState === EventSource.CLOSED) {
        // Refused (e.g. 400): EventSource hides the body, so ask once for the problem.
        liveSource = null;
        fetchOnce(onceURL);
      } else {
        statusLine.textContent = "Live query reconnecting…";
      }
    });
  }

  // ---- the views: one outcome drives the list, the count and the error.
  let hits = [];
  let active = -1;
  const knownNames = new Map(); // collection and document id → name, from hits and change events, to name deletions
  const NAMES_KEPT = 1000;
  function remember(collection, id, name) {
    const key = `${collection}/${id}`;
    knownNames.delete(key);
    knownNames.set(key, name);
    if (knownNames.size > NAMES_KEPT) knownNames.delete(knownNames.keys().next().value);
  }

  function show(outcome) {
    delete statusLine.dataset.busy;
    if (outcome.error) {
      errorLine.textContent = `Search failed — ${outcome.error.message}`;
      statusLine.textContent = "";
      render([]);
      return;
    }
    errorLine.textContent = "";
    if (outcome.cleared) { statusLine.textContent = ""; render([]); return; }
    const { result } = outcome;
    const shown = result.hits.length;
    const [one, many] = current === CITIES ? ["city", "cities"] : ["document", "documents"];
    const count = result.total === 0 ? `No ${many} found`
      : `${numbers.format(result.total)} ${result.total === 1 ? one : many}${shown < result.total ? `, best ${shown} shown` : ""}`;
    statusLine.textContent = `${count} · ${numbers.format(result.took_us)} µs on the server${outcome.live ? " · live" : ""}`;
    statusLine.dataset.took = String(result.took_us);
    render(result.hits);
    if (result.facets || result.stats) {
      refine.show(result);
      answeredQuery = result.query;
      refreshOwnCounts(answeredQuery);
    }
  }

  // A facet with checked values is counted without its own filter, so its other values keep
  // their counts; asked again after every answer, live ones included, and (Live on) after
  // each write to the collection, which may change those counts and not the answer.
  let ownCounts = null;
  let answeredQuery = "";
  function refreshOwnCounts(query) {
    if (ownCounts) ownCounts.abort();
    const controller = new AbortController();
    ownCounts = controller;
    for (const field of refine.ownCountFields) {
      const { filter } = refine.params(field);
      fetch(collectionURL("search", { q: query, limit: "0", filter, facets: field }), { signal: controller.signal, headers: access.headers() })
        .then((response) => (response.ok ? response.json() : null))
        .then((body) => { if (body && controller === ownCounts) refine.showOwnCounts(field, (body.facets || {})[field]); },
          () => { /* aborted, or failed: the counts of the last answer stay */ });
    }
  }

  function render(newHits) {
    const selectedID = active >= 0 && hits[active] ? hits[active].id : null;
    hits = newHits;
    list.replaceChildren(...hits.map(option));
    input.setAttribute("aria-expanded", hits.length > 0 ? "true" : "false");
    // Keep the selection on the same city when a live update reorders the list.
    setActive(selectedID === null ? -1 : hits.findIndex((hit) => hit.id === selectedID));
  }

  function option(hit, index) {
    const item = document.createElement("li");
    item.id = `hit-${index}`;
    item.className = "hit";
    item.setAttribute("role", "option");
    item.setAttribute("aria-selected", "false");
    item.dataset.id = hit.id;
    const shown = present(hit);
    remember(current, hit.id, shown.title[0]);

    const name = document.createElement("span");
    name.className = "name";
    name.append(...highlighted(...shown.title));

    const meta = document.createElement("span");
    meta.className = "meta";
    for (const [className, text] of shown.meta) {
      const part = document.createElement("span");
      part.className = className;
      part.textContent = text;
      meta.append(part);
    }
    item.append(name, meta);
    if (shown.also.length) {
      const also = document.createElement("span");
      also.className = "also";
      for (const [label, text, ranges] of shown.also) {
        const part = document.createElement("span");
        part.dataset.field = label;
        part.append(`${label}: `, ...highlighted(text, ranges));
        also.append(part);
      }
      item.append(also);
    }
    item.addEventListener("mousedown", (event) => event.preventDefault()); // keep focus in the box
    item.addEventListener("click", () => { setActive(index); open(index); });
    return item;
  }

  // What a hit shows: its title with highlights, other searched fields that matched, and
  // meta: {title: [text, ranges], also: [[field, text, ranges]], meta: [[class, text]]}.
  // A /search hit is a city as today; a collection hit is {id, document, highlight, distance}.
  function present(hit) {
    if (!hit.document) return { title: [hit.name, hit.highlight], also: [], meta: cityMeta(hit.attributes || {}, hit.rank) };
    const doc = hit.document, highlight = hit.highlight || {};
    const searched = searchedFields(current);
    const titleField = searched.find((field) => field.type === "string" && typeof doc[field.name] === "string");
    const title = titleField ? [doc[titleField.name], highlight[titleField.name]] : [String(hit.id), []];
    const also = [];
    for (const field of searched) {
      const ranges = highlight[field.name];
      if (field === titleField || !ranges || !ranges.length) continue;
      if (field.type === "string[]") {
        // [index, start, end]: the matched elements, each with its own ranges.
        const byElement = new Map();
        for (const [index, start, end] of ranges) byElement.set(index, [...(byElement.get(index) || []), [start, end]]);
        for (const [index, own] of Array.from(byElement).slice(0, 3)) {
          if (typeof (doc[field.name] || [])[index] === "string") also.push([field.name, doc[field.name][index], own]);
        }
      } else if (typeof doc[field.name] === "string") {
        also.push([field.name, doc[field.name], ranges]);
      }
    }
    const meta = [];
    if (typeof hit.distance === "number") meta.push(["distance", distanceText(hit.distance)]);
    if (current === CITIES) return { title, also, meta: [...meta, ...cityMeta(doc, doc.population)] };
    const schema = collections.get(current) || {};
    const sortField = refine.params().sort.split(":")[0].replace(/^"|"$/g, "");
    for (const name of new Set([sortField, schema.rank])) {
      if (name && !name.startsWith("_geo") && doc[name] !== undefined && doc[name] !== null) {
        meta.push(["value", `${name} ${typeof doc[name] === "number" ? numbers.format(doc[name]) : String(doc[name])}`]);
      }
    }
    return { title, also, meta };
  }

  function cityMeta(attributes, population) {
    const code = attributes.countryCode;
    return [["country", code ? `${regionName(code)} (${code})` : ""], ["population", `pop. ${numbers.format(population || 0)}`]];
  }

  const searchedFields = (name) => ((collections.get(name) || {}).fields || []).filter((field) => field.search);

  function distanceText(meters) {
    return meters < 1000 ? `${Math.round(meters)} m` : `${numbers.format(Math.round(meters / 100) / 10)} km`;
  }

  function regionName(code) {
    try { return (regions && regions.of(code)) || code; } catch (_) { return code; }
  }

  // highlight holds [start, end) ranges in Unicode code points of name.
  function highlighted(name, ranges) {
    const chars = Array.from(name);
    const parts = [];
    let at = 0;
    const sorted = (ranges || []).slice().sort((a, b) => a[0] - b[0]);
    for (const [rawStart, rawEnd] of sorted) {
      const start = Math.max(at, Math.min(rawStart, chars.length));
      const end = Math.max(start, Math.min(rawEnd, chars.length));
      if (start > at) parts.push(document.createTextNode(chars.slice(at, start).join("")));
      if (end > start) {
        const mark = document.createElement("mark");
        mark.textContent = chars.slice(start, end).join("");
        parts.push(mark);
      }
      at = end;
    }
    if (at < chars.length) parts.push(document.createTextNode(chars.slice(at).join("")));
    return parts;
  }

  // ---- keyboard: the combobox keeps focus, aria-activedescendant names the option.
  function setActive(index) {
    active = index;
    for (const [i, item] of Array.from(list.children).entries()) {
      item.setAttribute("aria-selected", i === index ? "true" : "false");
    }
    if (index >= 0 && list.children[index]) {
      input.setAttribute("aria-activedescendant", list.children[index].id);
      list.children[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (hits.length === 0) return;
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive(active < 0 ? (step > 0 ? 0 : hits.length - 1) : (active + step + hits.length) % hits.length);
    } else if (event.key === "Enter" && active >= 0) {
      event.preventDefault();
      open(active);
    } else if (event.key === "Escape") {
      if (active >= 0) { event.preventDefault(); setActive(-1); }
    }
  });

  // Enter without a selection searches at once, without waiting for the throttle.
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    runQuery(input.value, { force: true });
  });

  // Enter on a result: the document itself (GET /documents/{id}, a Maybe: 200 or 404).
  let detailRequest = null;
  function open(index) {
    const hit = hits[index];
    if (!hit) return;
    if (detailRequest) detailRequest.abort();
    const controller = new AbortController();
    detailRequest = controller;
    // The cities' own endpoint answers a city in today's shape; any other collection's, its document.
    const path = current === CITIES ? `/documents/${encodeURIComponent(hit.id)}`
      : `/collections/${encodeURIComponent(current)}/documents/${encodeURIComponent(hit.id)}`;
    fetch(path, { signal: controller.signal, headers: access.headers() })
      .then(async (response) => {
        if (response.status === 404) return null;
        if (!response.ok) throw await problem(response);
        return response.json();
      })
      .then((document_) => { if (controller === detailRequest) showDetail(hit, document_); },
        (error) => { if (error.name !== "AbortError" && controller === detailRequest) showDetail(hit, null, error); });
  }

  function showDetail(hit, doc, error) {
    const heading = document.createElement("h2");
    heading.textContent = present(hit).title[0];
    const rows = document.createElement("dl");
    const row = (term, value) => {
      if (value === undefined || value === null || value === "") return;
      const dt = document.createElement("dt");
      dt.textContent = term;
      const dd = document.createElement("dd");
      dd.textContent = String(value);
      rows.append(dt, dd);
    };
    if (doc && current !== CITIES) {
      // Every field as stored, in its order (lists joined, objects as JSON).
      for (const [key, value] of Object.entries(doc).slice(0, DETAIL_FIELDS)) {
        row(key, Array.isArray(value) ? value.join(", ") : typeof value === "object" && value !== null ? JSON.stringify(value) : value);
      }
    } else if (doc) {
      const a = doc.attributes || {};
      row("Country", a.countryCode ? `${regionName(a.countryCode)} (${a.countryCode})` : "");
      row("Population", numbers.format(doc.rank));
      row("Time zone", a.timezone);
      if (typeof a.latitude === "number" && typeof a.longitude === "number") {
        row("Position", `${a.latitude.toFixed(4)}, ${a.longitude.toFixed(4)}`);
      }
      row("Also known as", (doc.alternateNames || []).slice(0, 12).join(", "));
      row("Id", doc.id);
    } else {
      row("Status", error ? error.message : "This document no longer exists.");
    }
    detail.replaceChildren(heading, rows);
    detail.hidden = false;
    detail.scrollIntoView({ block: "nearest" });
  }

  // ---- the address follows the query (and the live switch); a link opens with its results.
  function followInAddress(query) {
    const params = new URLSearchParams(location.search);
    if (query) params.set("q", query); else params.delete("q");
    if (current !== CITIES) params.set("c", current); else params.delete("c");
    refine.write(params);
    if (liveSwitch.checked) params.set("live", "1"); else params.delete("live");
    const search = params.toString();
    const url = `${location.pathname}${search ? "?" + search : ""}${location.hash}`;
    if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, "", url);
  }

  const typed = throttle(THROTTLE_MS, (query) => runQuery(query));
  input.addEventListener("input", () => typed(input.value));
  liveSwitch.addEventListener("change", () => runQuery(input.value, { force: true }));
  refinePanel.addEventListener("toggle", () => runQuery(input.value));
  picker.addEventListener("change", () => pick(picker.value));

  // ---- the collection picker: GET /collections, again after a collection event.
  function pick(name, refinedBy = null) {
    current = collections.has(name) ? name : CITIES;
    picker.value = current;
    refine.use(collections.get(current) || null);
    if (refinedBy) refine.read(refinedBy);
    if (refine.active) refinePanel.open = true;
    searchLabel.textContent = `Search ${current}`;
    const searched = searchedFields(current).map((field) => field.name);
    input.placeholder = current === CITIES ? "sao pa, amsterdma, москва…" : `${searched.join(", ") || "every document"}…`;
    detail.hidden = true;
    runQuery(input.value, { force: true });
  }

  function loadCollections() {
    return fetch("/collections", { headers: access.headers() })
      .then(async (response) => {
        if (!response.ok) throw await problem(response);
        return response.json();
      })
      .then((body) => {
        collections.clear();
        for (const collection of body.collections || []) collections.set(collection.name, collection);
        picker.replaceChildren(...Array.from(collections.keys(), (name) => {
          const option = document.createElement("option");
          option.value = name;
          option.textContent = name;
          return option;
        }));
        picker.value = collections.has(current) ? current : CITIES;
      }, (error) => { errorLine.textContent = `The collections could not be listed — ${error.message}`; });
  }

  // ---- the change feed: /events is a Signal over SSE. EventSource reconnects
  // by itself and sends Last-Event-ID, so the server replays what we missed.
  let opened = 0;
  let lastEventID = null;

  let eventsSource = null;

  function connectEvents() {
    const source = new EventSource(access.streamURL("/events"));
    eventsSource = source;
    source.addEventListener("open", () => {
      opened += 1;
      setEventsState("connected");
      if (opened > 1) note(`Reconnected${lastEventID ? `, resuming after #${lastEventID}` : ""}.`, "reconnect");
    });
    source.addEventListener("error", () => {
      // Each failed retry fires again: note only the change of state.
      const state = source.readyState === EventSource.CLOSED ? "closed" : "reconnecting";
      if (eventsState.dataset.state === state) return;
      setEventsState(state);
      note(state === "closed" ? "The change feed closed." : "Connection lost, reconnecting…", "reconnect");
    });
    for (const kind of ["document.upserted", "document.deleted"]) {
      source.addEventListener(kind, (event) => change(kind, event));
    }
    for (const kind of ["collection.created", "collection.replaced", "collection.deleted"]) {
      source.addEventListener(kind, (event) => collectionChange(kind, event));
    }
    source.addEventListener("reset", (event) => {
      lastEventID = event.lastEventId || lastEventID;
      const reload = input.value.trim() !== "" || asksCollection();
      note(`Reset: the changes you missed are no longer kept${reload ? "; results reloaded" : ""}.`, "reset");
      if (reload) runQuery(input.value, { force: true });
    });
  }

  function setEventsState(state) {
    eventsState.textContent = state;
    eventsState.dataset.state = state;
  }

  function change(kind, event) {
    lastEventID = event.lastEventId || lastEventID;
    let body = {};
    try { body = JSON.parse(event.data); } catch (_) { /* shown without a body */ }
    const item = document.createElement("li");
    item.className = `event ${kind === "document.deleted" ? "deleted" : "upserted"}`;
    item.dataset.id = body.id || "";
    const id = document.createElement("span");
    id.className = "event-id";
    id.textContent = `#${event.lastEventId}`;
    const what = document.createElement("span");
    what.className = "event-kind";
    what.textContent = kind === "document.deleted" ? "deleted" : "upserted";
    // A deletion carries only the id: name it from what this page has seen.
    const collection = body.collection || CITIES;
    const titleField = collection === CITIES ? { name: "name" } : searchedFields(collection).find((field) => field.type === "string");
    const title = body.document && titleField ? body.document[titleField.name] : undefined;
    if (body.id && typeof title === "string") remember(collection, body.id, title);
    if (liveSwitch.checked && collection === current && asksCollection()) refreshOwnCounts(answeredQuery);
    const known = body.id ? knownNames.get(`${collection}/${body.id}`) : undefined;
    const name = document.createElement("span");
    name.className = "event-name";
    name.textContent = known || body.id || "";
    const docID = document.createElement("span");
    docID.className = "event-doc";
    docID.textContent = known && body.id ? `(${body.id})` : "";
    item.append(id, what, name, docID);
    if (collection !== CITIES) {
      const where = document.createElement("span");
      where.className = "event-collection";
      where.textContent = `in ${collection}`;
      item.append(where);
    }
    append(item);
  }

  // A collection made, replaced or dropped: the picker lists it (or no longer does).
  function collectionChange(kind, event) {
    lastEventID = event.lastEventId || lastEventID;
    let body = {};
    try { body = JSON.parse(event.data); } catch (_) { /* noted without a name */ }
    note(`Collection ${body.collection || ""} ${kind.split(".")[1]}.`, "collection");
    loadCollections().then(() => {
      // The picked one's schema changed, or it is gone (then the cities are picked).
      if (body.collection === current && kind !== "collection.created") pick(current);
    });
  }

  function note(text, kind) {
    const item = document.createElement("li");
    item.className = `event note ${kind}`;
    item.textContent = text;
    append(item);
  }

  function append(item) {
    const time = document.createElement("time");
    const now = new Date();
    time.dateTime = now.toISOString();
    time.textContent = now.toLocaleTimeString("en-GB");
    item.prepend(time);
    eventList.prepend(item);
    while (eventList.children.length > EVENTS_KEPT) eventList.lastElementChild.remove();
  }

  // A page left open in the back/forward cache would keep its streams, and
  // the browser allows only six connections to one server: close them on the
  // way out, reopen them on the way back.
  window.addEventListener("pagehide", () => {
    cancelInFlight();
    if (eventsSource) { eventsSource.close(); eventsSource = null; }
  });
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    connectEvents();
    runQuery(input.value, { force: true });
  });

  // A key typed (or cleared): what this page may see changes, so the list, the change feed
  // and the query are asked again with it.
  keyInput.addEventListener("change", () => {
    access.key = keyInput.value.trim();
    if (access.key) sessionStorage.setItem("signalbox.key", access.key);
    else sessionStorage.removeItem("signalbox.key");
    errorLine.textContent = "";
    if (eventsSource) eventsSource.close();
    connectEvents();
    loadCollections().then(() => pick(picker.value));
  });

  // ---- start: the address's query, at once.
  const start = new URLSearchParams(location.search);
  input.value = start.get("q") || "";
  liveSwitch.checked = start.get("live") === "1";
  const wanted = start.get("c") || CITIES;
  connectEvents();
  // The cities answer before the list arrives; another collection waits for its schema.
  if (wanted === CITIES && input.value) runQuery(input.value);
  loadCollections().then(() => {
    if (wanted !== CITIES && collections.has(wanted)) { pick(wanted, start); return; }
    if (wanted !== CITIES) errorLine.textContent = `There is no collection named ${wanted}.`;
    refine.use(collections.get(CITIES) || null);
    refine.read(start);
    if (refine.active) refinePanel.open = true;
    runQuery(input.value);
  });
  input.focus();
})();
