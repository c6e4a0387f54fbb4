// The refinements of a collection query, built from its schema: facets as checkboxes with their
// counts (string, string[] and boolean fields), a min/max range per number field (its stats as
// placeholders), a sort choice, and for a collection with a geo field a "near" point and radius.
// They write one query's filter, sort and facets, and read each answer's counts back.
// Loaded before app.js, which uses the class. Every text goes in through textContent.
"use strict";

class Refinements {
  static FACETS_MAX = 10;     // the server's default search.maxFacets
  static VALUES_SHOWN = 8;    // values listed per facet until "all" (the checked ones are always listed)
  static RADIUS_KM = 100;     // the near control's starting radius

  constructor(root, changed) {
    this.root = root;
    this.changed = changed;
    this.use(null);
  }

  // A collection's schema ({id, fields, rank}): the controls anew, nothing set.
  use(schema) {
    this.schema = schema;
    const fields = schema ? schema.fields : [];
    this.facetFields = fields.filter((f) => !f.search && ["string", "string[]", "boolean"].includes(f.type));
    this.numberFields = fields.filter((f) => f.type === "number");
    const room = Refinements.FACETS_MAX - this.numberFields.length;
    this.facetFields = this.facetFields.slice(0, Math.max(0, room));
    this.numberFields = this.numberFields.slice(0, Refinements.FACETS_MAX);
    this.checked = new Map(this.facetFields.map((f) => [f.name, new Set()]));
    this.counts = new Map();     // facet field → [[value, count]] as last shown
    this.ownCounts = new Map();  // facet field with checked values → its counts without its own filter
    this.expanded = new Set();   // facet fields showing all their values
    this.hasGeo = fields.some((f) => f.type === "geo");
    this.build(fields);
  }

  build(fields) {
    const parts = [];
    this.facetBoxes = new Map();
    for (const field of this.facetFields) {
      const list = element("div", "facet-values");
      this.facetBoxes.set(field.name, list);
      parts.push(group(field.name, list, "facet"));
    }
    this.ranges = new Map();
    for (const field of this.numberFields) {
      const min = numberInput(`${field.name} at least`, "min");
      const max = numberInput(`${field.name} at most`, "max");
      this.ranges.set(field.name, { min, max });
      for (const input of [min, max]) input.addEventListener("input", () => this.changed());
      const row = element("div", "range");
      row.append(labelled(min, "from"), labelled(max, "to"));
      parts.push(group(field.name, row, "range-group"));
    }
    this.near = null;
    if (this.hasGeo) {
      const lat = numberInput("Latitude", "lat", "-90", "90");
      const lng = numberInput("Longitude", "lng", "-180", "180");
      const radius = numberInput("Radius in km", "radius", "0");
      radius.value = String(Refinements.RADIUS_KM);
      this.near = { lat, lng, radius };
      for (const input of [lat, lng, radius]) input.addEventListener("input", () => this.nearChanged());
      const row = element("div", "near");
      row.append(labelled(lat, "lat"), labelled(lng, "lng"), labelled(radius, "km"));
      parts.push(group("near", row, "near-group"));
    }
    this.sort = document.createElement("select");
    this.sort.id = "sort";
    this.sort.addEventListener("change", () => this.changed());
    this.sortFields = fields.filter((f) => f.type !== "geo" && f.type !== "string[]");
    this.fillSort();
    const sortRow = element("div", "sort");
    sortRow.append(labelled(this.sort, "Sort"));
    const clear = element("button", "clear");
    clear.type = "button";
    clear.textContent = "Clear";
    // Everything back to nothing set; the keyboard lands on the new sort choice.
    clear.addEventListener("click", () => { this.use(this.schema); this.sort.focus(); this.changed(); });
    sortRow.append(clear);
    this.root.replaceChildren(sortRow, ...parts);
  }

  // Relevance, each sortable field both ways, and distance while a near point is set.
  fillSort() {
    const before = this.sort.value;
    const options = [["", "relevance"]];
    if (this.nearPoint()) options.push(["distance", "distance, nearest first"]);
    for (const field of this.sortFields) {
      options.push([`${field.name}:asc`, `${field.name}, lowest first`], [`${field.name}:desc`, `${field.name}, highest first`]);
    }
    this.sort.replaceChildren(...options.map(([value, text]) => {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = text;
      return option;
    }));
    this.sort.value = options.some(([value]) => value === before) ? before : "";
  }

  nearChanged() {
    const had = this.sort.querySelector('option[value="distance"]') !== null;
    this.fillSort();
    const has = this.nearPoint() !== null;
    if (has && !had) this.sort.value = "distance"; // a new point: nearest first
    this.changed();
  }

  // {lat, lng, meters} when the near inputs hold a valid point, else null (invalid ones say so).
  nearPoint() {
    if (!this.near) return null;
    const lat = valid(this.near.lat), lng = valid(this.near.lng), km = valid(this.near.radius);
    if (lat === null || lng === null || km === null || km <= 0) return null;
    return { lat, lng, meters: km * 1000 };
  }

  // Whether anything is set (a cities query with nothing set can stay on /search).
  get active() {
    if (!this.schema) return false;
    for (const values of this.checked.values()) if (values.size > 0) return true;
    for (const { min, max } of this.ranges.values()) if (valid(min) !== null || valid(max) !== null) return true;
    return this.nearPoint() !== null || this.sort.value !== "";
  }

  // The query's filter, sort and facets; `without` leaves one facet's own checked values out.
  params(without = null) {
    const clauses = [];
    for (const [field, values] of this.checked) {
      if (field === without || values.size === 0) continue;
      clauses.push(`${quoted(field)} IN [${Array.from(values, quoted).join(", ")}]`);
    }
    for (const [field, { min, max }] of this.ranges) {
      const low = valid(min), high = valid(max);
      if (low !== null) clauses.push(`${quoted(field)} >= ${decimal(low)}`);
      if (high !== null) clauses.push(`${quoted(field)} <= ${decimal(high)}`);
    }
    const point = this.nearPoint();
    if (point) clauses.push(`_geoRadius(${decimal(point.lat)}, ${decimal(point.lng)}, ${decimal(point.meters)})`);
    let sort = this.sort.value;
    if (sort === "distance") sort = point ? `_geoPoint(${decimal(point.lat)}, ${decimal(point.lng)}):asc` : "";
    const facets = without ? [without] : [...this.facetFields, ...this.numberFields].map((f) => f.name);
    return { filter: clauses.join(" AND "), sort, facets: facets.join(",") };
  }

  // The refinements in the page's address (f.FIELD=value, repeated; min.FIELD, max.FIELD;
  // near=lat,lng,km; sort), so a link opens refined. `read` runs once the schema is known.
  write(params) {
    for (const key of Array.from(params.keys())) if (/^(f|min|max)\.|^(near|sort)$/.test(key)) params.delete(key);
    for (const [field, values] of this.checked) for (const value of values) params.append(`f.${field}`, value);
    for (const [field, { min, max }] of this.ranges) {
      if (valid(min) !== null) params.set(`min.${field}`, min.value);
      if (valid(max) !== null) params.set(`max.${field}`, max.value);
    }
    if (this.nearPoint()) params.set("near", [this.near.lat.value, this.near.lng.value, this.near.radius.value].join(","));
    if (this.sort.value) params.set("sort", this.sort.value);
  }

  read(params) {
    for (const [key, value] of params) {
      const [kind, field] = [key.slice(0, key.indexOf(".")), key.slice(key.indexOf(".") + 1)];
      if (kind === "f" && this.checked.has(field)) this.checked.get(field).add(value);
      if ((kind === "min" || kind === "max") && this.ranges.has(field)) this.ranges.get(field)[kind].value = value;
    }
    const near = (params.get("near") || "").split(",");
    if (this.near && near.length === 3) [this.near.lat.value, this.near.lng.value, this.near.radius.value] = near;
    this.fillSort();
    const sort = params.get("sort");
    if (sort && this.sort.querySelector(`option[value="${CSS.escape(sort)}"]`)) this.sort.value = sort;
    for (const field of this.checked.keys()) this.renderFacet(field);
  }

  // The facets with checked values, whose counts come from a query without their own filter
  // (checking FR must not hide DE's count: values of one facet are OR'ed).
  get ownCountFields() {
    return Array.from(this.checked).filter(([, values]) => values.size > 0).map(([field]) => field);
  }

  showOwnCounts(field, counts) {
    this.ownCounts.set(field, entries(counts));
    this.renderFacet(field);
  }

  // An answer's facets and stats.
  show(result) {
    for (const field of this.facetFields) {
      this.counts.set(field.name, entries((result.facets || {})[field.name]));
      if (this.checked.get(field.name).size === 0) this.ownCounts.delete(field.name);
      this.renderFacet(field.name);
    }
    for (const [field, { min, max }] of this.ranges) {
      const stats = (result.stats || {})[field];
      min.placeholder = stats ? String(stats.min) : "min";
      max.placeholder = stats ? String(stats.max) : "max";
    }
  }

  renderFacet(field) {
    const checked = this.checked.get(field);
    const counts = this.ownCounts.get(field) || this.counts.get(field) || [];
    const all = this.expanded.has(field);
    const shown = all ? counts.slice() : counts.slice(0, Refinements.VALUES_SHOWN);
    for (const value of checked) if (!shown.some(([v]) => v === value)) shown.push([value, countOf(counts, value)]);
    const list = this.facetBoxes.get(field);
    const focus = document.activeElement && list.contains(document.activeElement) ? document.activeElement : null;
    list.replaceChildren(...shown.map(([value, count]) => {
      const box = document.createElement("input");
      box.type = "checkbox";
      box.value = value;
      box.checked = checked.has(value);
      box.addEventListener("change", () => {
        if (box.checked) checked.add(value); else checked.delete(value);
        this.changed();
      });
      const label = element("label", "facet-value");
      const name = element("span", "facet-name");
      name.textContent = value;
      const number = element("span", "count");
      number.textContent = count.toLocaleString("en");
      label.append(box, name, number);
      return label;
    }));
    if (!shown.length) list.textContent = "none";
    if (counts.length > Refinements.VALUES_SHOWN) {
      const more = element("button", "more");
      more.type = "button";
      more.textContent = all ? "fewer" : `all ${counts.length}`;
      more.setAttribute("aria-expanded", String(all));
      more.addEventListener("click", () => {
        if (all) this.expanded.delete(field); else this.expanded.add(field);
        this.renderFacet(field);
      });
      list.append(more);
    }
    // Keep the keyboard where it was when the counts are redrawn.
    if (focus) Array.from(list.querySelectorAll("input, .more")).find((b) => b.className === focus.className && b.value === focus.value)?.focus();
  }
}

function element(tag, className) {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}

function group(title, body, className) {
  const fieldset = element("fieldset", className);
  fieldset.dataset.field = title;
  const legend = document.createElement("legend");
  legend.textContent = title;
  fieldset.append(legend, body);
  return fieldset;
}

function labelled(control, text) {
  const label = document.createElement("label");
  const span = document.createElement("span");
  span.textContent = text;
  label.append(span, control);
  return label;
}

function numberInput(name, placeholder, min, max) {
  const input = document.createElement("input");
  input.type = "number";
  input.step = "any";
  input.inputMode = "decimal";
  input.placeholder = placeholder;
  input.setAttribute("aria-label", name);
  if (min !== undefined) input.min = min;
  if (max !== undefined) input.max = max;
  return input;
}

// An input's number, or null when empty, not a number or out of its bounds (those marked invalid).
function valid(input) {
  const text = input.value.trim();
  const ok = input.checkValidity();
  input.setAttribute("aria-invalid", ok ? "false" : "true");
  if (text === "" || !ok) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

// A number as the filter grammar reads it: plain digits, never an exponent.
function decimal(value) {
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(12).replace(/\.?0+$/, "") : text;
}

// A field or value, always quoted ("..." with \" and \\ escaped), so no word is read as a keyword.
function quoted(text) {
  return `"${String(text).replace(/[\\"]/g, "\\$&")}"`;
}

// A facet's {value: count} as [value, count] pairs, most frequent first (an object's
// integer-like keys come out in numeric order, not the server's).
function entries(counts) {
  return Object.entries(counts || {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function countOf(counts, value) {
  const found = counts.find(([v]) => v === value);
  return found ? found[1] : 0;
}
