#!/usr/bin/env python3
"""End-to-end checks of the collections (issues 25 and 26) over real sockets.

usage: python3 scripts/e2e.d/collections.py PATH_TO_SIGNALBOX   (scripts/e2e runs it after plain.py)
Starts the binary on a free port with a fresh store and `import.maxBytes` and `search.maxFacets` set small, then checks every
collection endpoint and its errors: schemas, documents, NDJSON and CSV imports (gzip too), every filter
operator against the same filter evaluated here, facets and stats, sorts, geo against distances
computed here (haversine), live searches over SSE, /events?collection=, a schema replace while
documents exist, a collection delete, and a restart on the same store. Each check is a function of
CHECKS, run in that order; a later check may use what an earlier one wrote.
"""
import gzip
import json
import math
import os
import sys
import threading
import urllib.parse

import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from harness import Report, Server, ServerFailed, SSEReader, request, run_checks, wait_until  # noqa: E402

# The OpenAPI document of this tree (the binary under test serves the one it was built with).
OPENAPI = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "Sources", "Signalbox", "Resources", "openapi.yaml")
# Small enough that a test body goes over it; every other import here is far below.
IMPORT_MAX_BYTES = 65536
# Low enough that a query with one more facet than the checks use is refused.
MAX_FACETS = 5
# The debug binary loads the embedded cities slowly on a busy machine.
READY_SECONDS = 400
EARTH_RADIUS = 6371008.8  # meters, the mean radius
# How far from the radius the edge documents are: the server's earth radius may differ from ours
# by far less than this.
EDGE = 0.002

SHOP_SCHEMA = {"id": "sku", "fields": [
    {"name": "title", "type": "string", "search": True},
    {"name": "brand", "type": "string", "search": True},
    {"name": "category", "type": "string"},
    {"name": "tags", "type": "string[]"},
    {"name": "price", "type": "number"},
    {"name": "inStock", "type": "boolean"},
    {"name": "store", "type": "geo", "from": ["lat", "lon"]},
], "rank": "price"}

# Paris, the center of the radius checks.
CENTER = (48.8566, 2.3522)


def haversine(a, b):
    (lat1, lng1), (lat2, lng2) = [(math.radians(p[0]), math.radians(p[1])) for p in (a, b)]
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
    return 2 * EARTH_RADIUS * math.asin(math.sqrt(h))


def north_of(point, meters):
    """The point `meters` due north of `point` (along a meridian)."""
    return (point[0] + math.degrees(meters / EARTH_RADIUS), point[1])


def shop_documents():
    """The search data set: values chosen so that every operator has hits and misses."""
    brands = ["Acme", "Zeta", "Acme Corp", "Globex"]
    categories = ["shoes", "hats", "bags"]
    documents = []
    for n in range(30):
        document = {"sku": f"s{n:02d}", "title": f"Item {n} {'red' if n % 3 == 0 else 'blue'} thing",
                    "brand": brands[n % 4], "category": categories[n % 3],
                    "tags": [["sale"], ["new", "sale"], ["new"], []][n % 4]}
        if n % 7 != 6:  # some documents have no price: a sort puts them last, EXISTS leaves them out
            document["price"] = 5 + n * 3.5
        if n % 5 != 4:
            document["inStock"] = n % 2 == 0
        # Stores on a meridian north of Paris, 10 km apart, and a few far away.
        if n < 20:
            document["lat"], document["lon"] = north_of(CENTER, 10_000 * n)
        elif n < 24:
            document["lat"], document["lon"] = [(5.0, 175.0), (-5.0, -175.0), (0.0, 160.0), (0.0, -160.0)][n - 20]
        documents.append(document)
    return documents


def destination(origin, meters, bearing):
    """The point `meters` from `origin` on `bearing` degrees (a great circle), longitude in -180...180."""
    d, b = meters / EARTH_RADIUS, math.radians(bearing)
    lat1, lng1 = math.radians(origin[0]), math.radians(origin[1])
    lat2 = math.asin(math.sin(lat1) * math.cos(d) + math.cos(lat1) * math.sin(d) * math.cos(b))
    lng2 = lng1 + math.atan2(math.sin(b) * math.sin(d) * math.cos(lat1), math.cos(d) - math.sin(lat1) * math.sin(lat2))
    return math.degrees(lat2), (math.degrees(lng2) + 540) % 360 - 180


# Near Fiji, 0.5° west of the antimeridian: a radius around it reaches across.
ANTIMERIDIAN_CENTER = (-17.3, 179.5)


def antimeridian_documents(radius):
    """Stores around ANTIMERIDIAN_CENTER: east across the antimeridian just inside and just outside
    `radius`, west well inside, north just outside."""
    places = {"am-east-in": (radius * (1 - EDGE), 90), "am-east-out": (radius * (1 + EDGE), 90),
              "am-west-in": (radius * 0.5, 270), "am-north-out": (radius * (1 + EDGE), 0)}
    documents = []
    for sku, (meters, bearing) in places.items():
        lat, lon = destination(ANTIMERIDIAN_CENTER, meters, bearing)
        documents.append({"sku": sku, "title": "Antimeridian store", "brand": "Edge", "category": "edge", "lat": lat, "lon": lon})
    return documents


def edge_documents(radius):
    """Two stores at the edge of `radius` around CENTER: just inside and just outside."""
    inside, outside = north_of(CENTER, radius * (1 - EDGE)), north_of(CENTER, radius * (1 + EDGE))
    return [{"sku": "edge-in", "title": "Edge inside", "brand": "Edge", "category": "edge", "lat": inside[0], "lon": inside[1]},
            {"sku": "edge-out", "title": "Edge outside", "brand": "Edge", "category": "edge", "lat": outside[0], "lon": outside[1]}]


class CollectionsE2E:
    """What the checks share: the server, the report, and what one check leaves for a later one."""

    def __init__(self, server, report):
        self.server, self.report, self.require = server, report, report.require
        self.documents = {}  # sku → document of `shop` as the checks wrote it
        self.shop_events = []  # (id, event, data) of shop seen on /events?collection=shop
        self.resume_from = None  # an event id of shop before the last writes ahead of the restart
        self.after_resume = []  # what a resume from `resume_from` must bring, in order: (event, id)

    @property
    def port(self):
        return self.server.port

    @property
    def token(self):
        """The key as a query parameter, for streams (shop is private, issue 29; an EventSource sends no header)."""
        return f"token={self.server.key}"

    def call(self, method, path, body=None, headers=None, key=True):
        """One request; the body parsed as JSON when it is JSON (else bytes) as `.json`."""
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        response = request(self.port, method, path, body=body, headers=headers,
                           key=self.server.key if key else None, timeout=60)
        try:
            parsed = json.loads(response.body) if response.body else None
        except ValueError:
            parsed = None
        return Answer(response.status, response.headers, response.body, parsed)

    def search(self, collection="shop", **parameters):
        query = urllib.parse.urlencode({"q": "", **parameters})
        return self.call("GET", f"/collections/{collection}/search?{query}")

    def problem(self, answer, status):
        return (answer.status == status and answer.headers.get("content-type", "").startswith("application/problem+json")
                and answer.json and answer.json.get("status") == status)

    def ndjson(self, collection, lines, headers=None):
        body = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines).encode()
        return self.call("POST", f"/collections/{collection}/documents", body=body,
                         headers={"Content-Type": "application/x-ndjson", **(headers or {})})


class Answer:
    def __init__(self, status, headers, body, parsed):
        self.status, self.headers, self.body, self.json = status, headers, body, parsed

    def __repr__(self):
        return f"{self.status} {self.body[:300]!r}"


# ---------------------------------------------------------------------------------------------
# Schemas


def schemas(e):
    e.report.section("schemas")
    answer = e.call("PUT", "/collections/shop", SHOP_SCHEMA)
    e.require("PUT /collections/shop creates it: 201 with Location and Signalbox-Seq",
              answer.status == 201 and answer.headers.get("location") == "/collections/shop"
              and answer.headers.get("signalbox-seq", "").isdigit(), answer)
    e.require("the answer is the collection: name, documents 0, id, fields, rank",
              answer.json and answer.json.get("name") == "shop" and answer.json.get("documents") == 0
              and answer.json.get("id") == "sku" and len(answer.json.get("fields", [])) == 7 and answer.json.get("rank") == "price",
              answer)
    answer = e.call("PUT", "/collections/shop", SHOP_SCHEMA)
    e.require("PUT of an existing collection replaces its schema: 200", answer.status == 200, answer)
    answer = e.call("GET", "/collections")
    names = [c["name"] for c in (answer.json or {}).get("collections", [])]
    e.require("GET /collections lists cities and shop", answer.status == 200 and "cities" in names and "shop" in names, names)
    cities = next((c for c in answer.json["collections"] if c["name"] == "cities"), {})
    e.require("cities are listed with their schema and documents", cities.get("documents", 0) > 1000 and cities.get("fields"), cities.get("documents"))
    answer = e.call("GET", "/collections/shop")
    e.require("GET /collections/shop 200 with its fields", answer.status == 200
              and [f["name"] for f in answer.json["fields"]] == [f["name"] for f in SHOP_SCHEMA["fields"]], answer)
    e.require("GET /collections/nope 404 problem", e.problem(e.call("GET", "/collections/nope"), 404))

    bad = {
        "an unknown type": {"fields": [{"name": "a", "type": "text"}]},
        "search on a number": {"fields": [{"name": "a", "type": "number", "search": True}]},
        "rank not a number field": {"fields": [{"name": "a", "type": "string"}], "rank": "a"},
        "rank naming no field": {"fields": [{"name": "a", "type": "string"}], "rank": "b"},
        "duplicate names": {"fields": [{"name": "a", "type": "string"}, {"name": "a", "type": "number"}]},
        "not JSON": "{fields:",
    }
    for what, schema in bad.items():
        answer = e.call("PUT", "/collections/bad", schema)
        e.require(f"a schema with {what} is a 400 problem", e.problem(answer, 400), answer)
    e.require("a refused schema created nothing", e.call("GET", "/collections/bad").status == 404)
    for name in ["Shop", "_x", "a" * 65, "a.b"]:
        answer = e.call("PUT", f"/collections/{name}", SHOP_SCHEMA)
        e.require(f"a bad name {name[:12]!r} is a 400 problem", e.problem(answer, 400), answer)
    e.require("PUT /collections/cities is a 409 problem", e.problem(e.call("PUT", "/collections/cities", SHOP_SCHEMA), 409))
    e.require("DELETE /collections/cities is a 409 problem", e.problem(e.call("DELETE", "/collections/cities"), 409))
    e.require("PUT without the key is a 401", e.call("PUT", "/collections/nokey", SHOP_SCHEMA, key=False).status == 401)
    e.require("DELETE without the key is a 401", e.call("DELETE", "/collections/shop", key=False).status == 401)
    e.require("DELETE of a missing collection is a 404 problem", e.problem(e.call("DELETE", "/collections/nope"), 404))


# ---------------------------------------------------------------------------------------------
# Documents


def documents(e):
    e.report.section("documents")
    document = {"title": "Red shoe", "brand": "Acme", "category": "shoes", "tags": ["red"], "price": 12.5,
                "inStock": True, "lat": 48.85, "lon": 2.35, "extra": {"kept": [1, 2]}}
    answer = e.call("PUT", "/collections/shop/documents/d1", document)
    e.require("PUT a document without its id field: 204 with Signalbox-Seq",
              answer.status == 204 and answer.headers.get("signalbox-seq", "").isdigit(), answer)
    answer = e.call("GET", "/collections/shop/documents/d1")
    e.require("GET it: 200, the id field filled from the path, undeclared fields kept",
              answer.status == 200 and answer.json.get("sku") == "d1" and answer.json.get("extra") == {"kept": [1, 2]}, answer)
    e.require("it is searchable at once", [h["id"] for h in e.search(q="red shoe").json["hits"]][:1] == ["d1"])
    answer = e.call("PUT", "/collections/shop/documents/d1", {**document, "sku": "d1", "price": 13})
    e.require("PUT with the same id in the body: 204", answer.status == 204, answer)
    answer = e.call("PUT", "/collections/shop/documents/d1", {**document, "sku": "other"})
    e.require("PUT with a different id in the body is a 422 problem", e.problem(answer, 422), answer)
    answer = e.call("PUT", "/collections/shop/documents/d2", {**document, "price": "cheap"})
    e.require("a value of the wrong type is a 422 problem naming the field",
              e.problem(answer, 422) and "price" in answer.json.get("detail", ""), answer)
    answer = e.call("PUT", "/collections/shop/documents/d2", {**document, "tags": "red"})
    e.require("a string for a string[] field is a 422 naming it", e.problem(answer, 422) and "tags" in answer.json.get("detail", ""), answer)
    answer = e.call("PUT", "/collections/shop/documents/d2", {**document, "lat": 91})
    e.require("a latitude beyond 90 is a 422 problem", e.problem(answer, 422), answer)
    answer = e.call("PUT", "/collections/shop/documents/d2", {**document, "lon": -180.5})
    e.require("a longitude beyond 180 is a 422 problem", e.problem(answer, 422), answer)
    e.require("a refused document was not stored", e.call("GET", "/collections/shop/documents/d2").status == 404)
    answer = e.call("PUT", "/collections/shop/documents/d2", "{not json", headers={"Content-Type": "application/json"})
    e.require("a body that is not JSON is a 422 problem", e.problem(answer, 422), answer)
    answer = e.call("PUT", "/collections/shop/documents/d2", "x", headers={"Content-Type": "text/plain"})
    e.require("a body that is not application/json is a 415", answer.status == 415, answer)
    e.require("PUT without the key is a 401", e.call("PUT", "/collections/shop/documents/d3", document, key=False).status == 401)
    e.require("PUT into a missing collection is a 404 problem", e.problem(e.call("PUT", "/collections/nope/documents/x", document), 404))
    e.require("GET from a missing collection is a 404 problem", e.problem(e.call("GET", "/collections/nope/documents/x"), 404))
    e.require("DELETE without the key is a 401", e.call("DELETE", "/collections/shop/documents/d1", key=False).status == 401)
    answer = e.call("DELETE", "/collections/shop/documents/d1")
    e.require("DELETE the document: 204", answer.status == 204, answer)
    e.require("then GET is a 404 problem", e.problem(e.call("GET", "/collections/shop/documents/d1"), 404))
    e.require("and a search no longer finds it", e.search(q="red shoe").json["total"] == 0)
    e.require("DELETE again is a 404 problem", e.problem(e.call("DELETE", "/collections/shop/documents/d1"), 404))


# ---------------------------------------------------------------------------------------------
# Imports


def imports(e):
    e.report.section("imports")
    data = shop_documents()
    lines = [json.dumps(d) for d in data[:10]] + ['{"sku": "bad1", "price": ', json.dumps({"sku": "bad2", "price": "x"})] \
        + [json.dumps(d) for d in data[10:]]
    answer = e.ndjson("shop", lines)
    report = answer.json or {}
    e.require("an NDJSON import: 200, 30 created, 2 failed", answer.status == 200 and report.get("created") == 30
              and report.get("updated") == 0 and report.get("failed") == 2, answer)
    e.require("the failed lines are numbered from 1 (11 and 12), each a 422 with a detail",
              [x["line"] for x in report.get("errors", [])] == [11, 12] and all(x["status"] == 422 and x["detail"] for x in report["errors"]),
              report.get("errors"))
    e.require("the wrong type's error names the document's id", [x.get("id") for x in report.get("errors", [])] == [None, "bad2"],
              report.get("errors"))
    e.require("the wrong type's error names the field", "price" in report.get("errors", [{}, {}])[1:2][0].get("detail", ""), report.get("errors"))
    e.require("an import's answer carries Signalbox-Seq", answer.headers.get("signalbox-seq", "").isdigit())
    e.require("every imported document is searchable once answered", e.search(limit=250).json["total"] == 30)
    e.documents = {d["sku"]: d for d in data}

    answer = e.ndjson("shop", [json.dumps({**data[0], "title": "Item 0 red thing"}), json.dumps(edge_documents(50_000)[0])])
    e.require("importing an existing id counts it updated, a new one created",
              answer.status == 200 and answer.json["updated"] == 1 and answer.json["created"] == 1, answer)
    e.documents["edge-in"] = edge_documents(50_000)[0]
    e.call("DELETE", "/collections/shop/documents/edge-in")
    del e.documents["edge-in"]

    csv = ("sku,title,brand,category,tags,price,inStock,lat,lon\n"
           "c1,CSV one,Acme,hats,new|sale,7.5,true,48.1,2.1\n"
           "c2,CSV two,Zeta,hats,,,false,,\n"
           "c3,CSV three,Zeta,hats,sale,not-a-number,true,1,1\n"
           "c4,\"CSV, four\",Globex,bags,new,8,true,\"45.5\",\"-73.5\"\n")
    answer = e.call("POST", "/collections/shop/documents", body=csv.encode(), headers={"Content-Type": "text/csv"})
    report = answer.json or {}
    e.require("a CSV import: 200, 3 created, 1 failed", answer.status == 200 and report.get("created") == 3 and report.get("failed") == 1, answer)
    e.require("its failed record is line 4 (the header is line 1)", [x["line"] for x in report.get("errors", [])] == [4], report.get("errors"))
    c1 = e.call("GET", "/collections/shop/documents/c1").json or {}
    e.require("CSV cells converted by type: string[] split on |, number, boolean",
              c1.get("tags") == ["new", "sale"] and c1.get("price") == 7.5 and c1.get("inStock") is True, c1)
    c2 = e.call("GET", "/collections/shop/documents/c2").json or {}
    e.require("an empty CSV cell is a missing field", "price" not in c2 and "tags" not in c2, c2)
    c4 = e.call("GET", "/collections/shop/documents/c4").json or {}
    e.require("a quoted CSV cell keeps its comma; numeric strings make the geo point",
              c4.get("title") == "CSV, four" and e.search(filter="_geoRadius(45.5, -73.5, 10)").json["total"] == 1, c4)
    answer = e.call("POST", "/collections/shop/documents", body=b"title,brand\nNo id,Acme\n", headers={"Content-Type": "text/csv"})
    e.require("a CSV header without the id column is a 400 problem (nothing imported)", e.problem(answer, 400), answer)
    for sku in ("c1", "c2", "c4"):
        e.call("DELETE", f"/collections/shop/documents/{sku}")

    body = gzip.compress(("\n".join(json.dumps({"sku": f"g{n}", "title": f"Gzipped {n}", "category": "gz"}) for n in range(50)) + "\n").encode())
    answer = e.call("POST", "/collections/shop/documents", body=body,
                    headers={"Content-Type": "application/x-ndjson", "Content-Encoding": "gzip"})
    e.require("a gzip-compressed NDJSON import: 50 created", answer.status == 200 and answer.json["created"] == 50, answer)
    e.require("the gzipped documents are searchable", e.search(filter="category = gz").json["total"] == 50)
    for n in range(50):
        e.call("DELETE", f"/collections/shop/documents/g{n}")

    answer = e.call("POST", "/collections/shop/documents", body=b"{}", headers={"Content-Type": "application/json"})
    e.require("an import as application/json is a 415", answer.status == 415, answer)
    answer = e.call("POST", "/collections/shop/documents", body=b"{}", headers={"Content-Type": "application/x-ndjson", "Content-Encoding": "br"})
    e.require("an import with Content-Encoding br is a 415", answer.status == 415, answer)
    big = ("\n".join(json.dumps({"sku": f"big{n}", "title": "x" * 100}) for n in range(IMPORT_MAX_BYTES // 100 + 10))).encode()
    answer = e.ndjson("shop", [big.decode()])
    e.require(f"an import over import.maxBytes ({IMPORT_MAX_BYTES}) is a 413", answer.status == 413, answer)
    bomb = gzip.compress(b"\n" * (IMPORT_MAX_BYTES * 4))
    answer = e.call("POST", "/collections/shop/documents", body=bomb,
                    headers={"Content-Type": "application/x-ndjson", "Content-Encoding": "gzip"})
    e.require("a gzip body inflating past import.maxBytes is a 413", answer.status == 413, answer)
    e.require("an import into a missing collection is a 404 problem", e.problem(e.ndjson("nope", ["{}"]), 404))
    e.require("an import into cities is refused (409)", e.ndjson("cities", ["{}"]).status == 409)
    answer = e.call("POST", "/collections/shop/documents", body=b"{}", headers={"Content-Type": "application/x-ndjson"}, key=False)
    e.require("an import without the key is a 401", answer.status == 401, answer)
    e.require("after it all, shop holds the 30 documents", e.search(limit=250).json["total"] == 30)


# ---------------------------------------------------------------------------------------------
# Search: every operator against the same filter evaluated here


def folded(value):
    return value.casefold() if isinstance(value, str) else value


def has(document, field, value):
    """`field = value` as the issue defines it: a string[] matches when any element does."""
    got = document.get(field)
    if isinstance(got, list):
        return any(folded(x) == folded(value) for x in got)
    return got is not None and folded(got) == folded(value)


FILTERS = [
    ("category = shoes", lambda d: has(d, "category", "shoes")),
    ("category = SHOES", lambda d: has(d, "category", "shoes")),
    ("category != shoes", lambda d: not has(d, "category", "shoes")),
    ("price > 50", lambda d: d.get("price", -1) > 50),
    ("price >= 50.5", lambda d: d.get("price", -1) >= 50.5),
    ("price < 40", lambda d: "price" in d and d["price"] < 40),
    ("price <= 40", lambda d: "price" in d and d["price"] <= 40),
    ("price 19 TO 40", lambda d: "price" in d and 19 <= d["price"] <= 40),
    ("brand IN [Zeta, Globex]", lambda d: d["brand"] in ("Zeta", "Globex")),
    ("brand = \"Acme Corp\"", lambda d: d["brand"] == "Acme Corp"),
    ("brand = 'Acme Corp'", lambda d: d["brand"] == "Acme Corp"),
    ("brand = Acme", lambda d: d["brand"] == "Acme"),
    ("tags = sale", lambda d: "sale" in d["tags"]),
    ("tags IN [new]", lambda d: "new" in d["tags"]),
    ("price EXISTS", lambda d: "price" in d),
    ("NOT price EXISTS", lambda d: "price" not in d),
    ("inStock = true", lambda d: d.get("inStock") is True),
    ("inStock = false", lambda d: d.get("inStock") is False),
    ("NOT category = shoes", lambda d: not has(d, "category", "shoes")),
    ("category = shoes AND price > 30", lambda d: has(d, "category", "shoes") and d.get("price", -1) > 30),
    ("category = hats OR price < 20", lambda d: has(d, "category", "hats") or ("price" in d and d["price"] < 20)),
    ("category = bags OR category = hats AND inStock = true",
     lambda d: has(d, "category", "bags") or (has(d, "category", "hats") and d.get("inStock") is True)),
    ("(category = bags OR category = hats) AND inStock = true",
     lambda d: (has(d, "category", "bags") or has(d, "category", "hats")) and d.get("inStock") is True),
    ("NOT (tags = new OR brand = Zeta)", lambda d: not ("new" in d["tags"] or d["brand"] == "Zeta")),
]


def filters(e):
    e.report.section("filters")
    documents = list(e.documents.values())
    for text, predicate in FILTERS:
        answer = e.search(filter=text, limit=250)
        expected = sorted(d["sku"] for d in documents if predicate(d))
        got = sorted(h["id"] for h in (answer.json or {}).get("hits", []))
        e.require(f"filter {text}: the documents evaluated here ({len(expected)})",
                  answer.status == 200 and got == expected and answer.json["total"] == len(expected),
                  f"{answer.status} missing {sorted(set(expected) - set(got))} extra {sorted(set(got) - set(expected))}")
    answer = e.search(q="red", filter="category = shoes", limit=250)
    expected = sorted(d["sku"] for d in documents if "red" in d["title"] and d["category"] == "shoes")
    e.require("a text query and a filter together", sorted(h["id"] for h in answer.json["hits"]) == expected, answer)

    errors = {
        "price >": "a value",
        "price > 10 AND": None,
        "(category = shoes": None,
        "category = shoes)": None,
        "colour = red": "colour",
        "price > cheap": "price",
        "price 10 TO": None,
        "brand IN [Acme": None,
        "_geoRadius(91, 0, 1000)": None,
        "_geoRadius(0, 181, 1000)": None,
        "_geoBoundingBox([0, 0])": None,
        "NOT " * 12 + "price > 1": None,
        "(" * 12 + "price > 1" + ")" * 12: None,
    }
    for text, named in errors.items():
        answer = e.search(filter=text)
        detail = (answer.json or {}).get("detail", "")
        e.require(f"filter {text[:40]!r} is a 400 problem with the position", e.problem(answer, 400) and "at " in detail
                  and (named is None or named in detail), detail or answer)
    answer = e.search(facets="title,brand,category,tags,price,inStock")
    e.require(f"more facets than search.maxFacets ({MAX_FACETS}) is a 400 problem", e.problem(answer, 400), answer)
    e.require("a facet on an undeclared field is a 400 naming it", "colour" in (e.search(facets="colour").json or {}).get("detail", ""))
    e.require("a sort on an undeclared field is a 400", e.problem(e.search(sort="colour:asc"), 400))
    e.require("a sort with a bad direction is a 400", e.problem(e.search(sort="price:up"), 400))
    e.require("limit above search.maxLimit (250) is a 400", e.problem(e.search(limit=251), 400))
    e.require("a negative offset is a 400", e.problem(e.search(offset=-1), 400))
    e.require("offset above search.maxOffset (10000) is a 400", e.problem(e.search(offset=10001), 400))
    e.require("a search of a missing collection is a 404 problem", e.problem(e.search("nope"), 404))


def facets_and_stats(e):
    e.report.section("facets and stats")
    documents = [d for d in e.documents.values() if d["category"] != "shoes"]
    answer = e.search(filter="category != shoes", facets="brand,tags,inStock,price,category", limit=1)
    result = answer.json or {}
    e.require("facets with limit=1: total counts every hit", answer.status == 200 and result.get("total") == len(documents)
              and len(result.get("hits", [])) == 1, answer)

    def counts(field):
        counted = {}
        for d in documents:
            values = d.get(field)
            for value in (values if isinstance(values, list) else [] if values is None else [values]):
                key = str(value).lower() if isinstance(value, bool) else value
                counted[key] = counted.get(key, 0) + 1
        return counted

    facets = result.get("facets", {})
    for field in ("brand", "tags", "category"):
        e.require(f"facet {field}: counts over all hits", {k.lower(): v for k, v in facets.get(field, {}).items()}
                  == {k.lower(): v for k, v in counts(field).items()}, f"{facets.get(field)} != {counts(field)}")
    e.require("facet inStock: boolean counts", facets.get("inStock") == counts("inStock"), f"{facets.get('inStock')} != {counts('inStock')}")
    prices = [d["price"] for d in documents if "price" in d]
    stats = result.get("stats", {}).get("price", {})
    e.require("stats price: min and max of the hits", stats.get("min") == min(prices) and stats.get("max") == max(prices), stats)
    answer = e.search(q="red", facets="brand")
    red = [d for d in e.documents.values() if "red" in d["title"]]
    e.require("facets follow the text query too", sum(answer.json["facets"]["brand"].values()) == len(red), answer)


def sorts(e):
    e.report.section("sort")
    documents = list(e.documents.values())
    priced = sorted((d for d in documents if "price" in d), key=lambda d: d["price"])
    missing = sorted(d["sku"] for d in documents if "price" not in d)
    for direction, ordered in (("asc", priced), ("desc", priced[::-1])):
        ids = [h["id"] for h in e.search(sort=f"price:{direction}", limit=250).json["hits"]]
        e.require(f"sort price:{direction}, documents without a price last",
                  ids[:len(ordered)] == [d["sku"] for d in ordered] and sorted(ids[len(ordered):]) == missing, ids)
    ids = [h["id"] for h in e.search(sort="price:asc", limit=5, offset=5).json["hits"]]
    e.require("offset pages through a sorted result", ids == [d["sku"] for d in priced[5:10]], ids)
    ids = [h["id"] for h in e.search(sort="brand:asc,price:desc", filter="price EXISTS", limit=250).json["hits"]]
    expected = [d["sku"] for d in sorted(priced, key=lambda d: (d["brand"].casefold(), -d["price"]))]
    e.require("two sort keys: brand asc, then price desc", ids[:len(expected)] == expected, ids)
    ids = [h["id"] for h in e.search(limit=250).json["hits"]]
    e.require("q empty: by rank (price), highest first", ids[:len(priced)] == [d["sku"] for d in priced[::-1]], ids)


def geo(e):
    e.report.section("geo")
    radius = 50_000
    edge = edge_documents(radius)
    answer = e.ndjson("shop", edge)
    e.require("the edge stores are imported", answer.status == 200 and answer.json["created"] == 2, answer)
    located = {d["sku"]: (d["lat"], d["lon"]) for d in list(e.documents.values()) + edge if "lat" in d}
    inside = sorted(sku for sku, p in located.items() if haversine(CENTER, p) <= radius)
    answer = e.search(filter=f"_geoRadius({CENTER[0]}, {CENTER[1]}, {radius})", limit=250)
    got = sorted(h["id"] for h in answer.json["hits"])
    e.require(f"_geoRadius {radius} m: the stores within it by haversine ({len(inside)}), edge-in in and edge-out out",
              got == inside and "edge-in" in got and "edge-out" not in got, f"{got} != {inside}")
    distances_ok = all(abs(h["distance"] - haversine(CENTER, located[h["id"]])) <= max(2, 0.001 * h["distance"]) for h in answer.json["hits"])
    e.require("every hit carries its distance in meters, as haversine says", distances_ok,
              [(h["id"], h.get("distance"), round(haversine(CENTER, located[h["id"]]))) for h in answer.json["hits"][:5]])
    answer = e.search(sort=f"_geoPoint({CENTER[0]}, {CENTER[1]}):asc", limit=10)
    expected = [sku for sku, _ in sorted(located.items(), key=lambda x: haversine(CENTER, x[1]))][:10]
    e.require("sort _geoPoint asc: nearest first", [h["id"] for h in answer.json["hits"]] == expected
              and all("distance" in h for h in answer.json["hits"]), [h["id"] for h in answer.json["hits"]])
    answer = e.search(sort=f"_geoPoint({CENTER[0]}, {CENTER[1]}):desc", limit=3)
    farthest = [sku for sku, _ in sorted(located.items(), key=lambda x: -haversine(CENTER, x[1]))][:3]
    e.require("sort _geoPoint desc: farthest first (no location last)", [h["id"] for h in answer.json["hits"]] == farthest, answer)
    radius = 200_000
    across = antimeridian_documents(radius)
    answer = e.ndjson("shop", across)
    e.require("the stores around the antimeridian are imported", answer.status == 200 and answer.json["created"] == 4, answer)
    e.require("they lie on both sides of it", sorted(d["lon"] > 0 for d in across) == [False, False, True, True],
              [d["lon"] for d in across])
    located = {d["sku"]: (d["lat"], d["lon"]) for d in across}
    center = f"{ANTIMERIDIAN_CENTER[0]}, {ANTIMERIDIAN_CENTER[1]}"
    answer = e.search(filter=f"_geoRadius({center}, {radius}) AND category = edge", sort=f"_geoPoint({center}):asc", limit=250)
    hits = (answer.json or {}).get("hits", [])
    expected = [sku for sku, p in sorted(located.items(), key=lambda x: haversine(ANTIMERIDIAN_CENTER, x[1]))
                if haversine(ANTIMERIDIAN_CENTER, p) <= radius]
    e.require("_geoRadius across the antimeridian: the store just inside across it found, those just outside not, nearest first",
              [h["id"] for h in hits] == expected == ["am-west-in", "am-east-in"], [h["id"] for h in hits])
    e.require("their distances are haversine's", all(abs(h["distance"] - haversine(ANTIMERIDIAN_CENTER, located[h["id"]])) <= 2 for h in hits),
              [(h["id"], h.get("distance"), round(haversine(ANTIMERIDIAN_CENTER, located[h["id"]]))) for h in hits])
    for sku in located:
        e.call("DELETE", f"/collections/shop/documents/{sku}")
    answer = e.search(filter="_geoBoundingBox([10, 170], [-10, -170])", limit=250)
    e.require("_geoBoundingBox across the antimeridian: lng 175 and -175 in, 160 and -160 out",
              sorted(h["id"] for h in answer.json["hits"]) == ["s20", "s21"], answer)
    answer = e.search(filter="_geoBoundingBox([10, -10], [-10, 10])", limit=250)
    e.require("_geoBoundingBox around 0,0 finds none of them", answer.status == 200 and answer.json["total"] == 0, answer)
    answer = e.search("cities", filter="countryCode IN [FR, DE]", sort="_geoPoint(48.85, 2.35):asc", limit=3)
    e.require("the cities collection: countryCode IN and _geoPoint sort, Paris first",
              answer.status == 200 and answer.json["hits"] and answer.json["hits"][0]["document"]["name"] == "Paris"
              and answer.json["hits"][0]["distance"] < 5000, answer)
    for sku in ("edge-in", "edge-out"):
        e.call("DELETE", f"/collections/shop/documents/{sku}")


# ---------------------------------------------------------------------------------------------
# OpenAPI


def answers_conform_to_openapi(e):
    e.report.section("openapi")
    with open(OPENAPI) as f:
        spec = yaml.safe_load(f)

    def conforms(name, value):
        try:
            jsonschema.validate(value, {"$ref": f"#/components/schemas/{name}", "components": spec["components"]})
            return True, ""
        except jsonschema.ValidationError as error:
            return False, error.message

    documented = spec["paths"]["/collections/{name}/search"]["get"]["responses"]
    answers = {
        "Collection": e.call("GET", "/collections/shop"),
        "CollectionSearchResponse": e.search(q="item", filter=f"_geoRadius({CENTER[0]}, {CENTER[1]}, 100000)",
                                             facets="brand,tags,price", sort="price:desc"),
        "ImportReport": e.ndjson("shop", ['{"sku": 1, "title": 2}']),
        "Problem": e.search(filter="price >"),
    }
    for name, answer in answers.items():
        ok, why = conforms(name, answer.json)
        e.require(f"{name} conforms to openapi.yaml", ok, why)
    e.require("the search's statuses are documented", all(str(a.status) in documented for a in (answers["CollectionSearchResponse"], answers["Problem"])))
    listed = e.call("GET", "/collections").json["collections"]
    e.require("every listed collection conforms", all(conforms("Collection", c)[0] for c in listed))


# ---------------------------------------------------------------------------------------------
# Live


def end(reader):
    """Ends a started reader: its own thread closes the socket (a close from here could come before
    that thread first reads, which then fails on a closed descriptor)."""
    reader.stop.set()
    reader.join(10)


def results_of(reader, count, timeout=30):
    wait_until(lambda: reader.count("result") >= count or reader.ended, timeout)
    return [json.loads(x.data) for x in reader.events if x.event == "result"]


def live_search(e):
    e.report.section("live search")
    query = urllib.parse.urlencode({"q": "", "filter": "category = shoes", "facets": "brand", "limit": 250})
    reader = SSEReader(e.port, f"/collections/shop/search/live?{query}&{e.token}", stop=threading.Event())
    reader.start()
    try:
        e.require("live search answers 200 text/event-stream", reader.status == 200 and "text/event-stream" in reader.head, reader.head)
        first = results_of(reader, 1)
        shoes = [d for d in e.documents.values() if d["category"] == "shoes"]
        e.require("the current result at once", first and first[0]["total"] == len(shoes), first[:1])
        # A write outside the filter alters nothing; the write inside it after it does. Writes are
        # applied in order, so if the first had sent a result it would come before the second's.
        e.call("PUT", "/collections/shop/documents/live-hat", {"title": "Live hat", "brand": "Zeta", "category": "hats"})
        e.call("PUT", "/collections/shop/documents/live-shoe", {"title": "Live shoe", "brand": "Acme", "category": "shoes"})
        results = results_of(reader, 2)
        e.require("a change inside the filter sends one new result", len(results) >= 2 and results[1]["total"] == len(shoes) + 1, results[1:])
        e.require("the change outside the filter sent none", len(results) >= 2 and "live-shoe" in [h["id"] for h in results[1]["hits"]],
                  [r["total"] for r in results])
        before = results[0]["facets"]["brand"].get("Acme", 0) if results else None
        e.require("the facet counts are updated live", len(results) >= 2 and results[1]["facets"]["brand"].get("Acme", 0) == before + 1,
                  [r.get("facets") for r in results[:2]])
        e.call("DELETE", "/collections/shop/documents/live-hat")
        e.call("PUT", "/collections/shop/documents/live-shoe", {"title": "Live shoe", "brand": "Zeta", "category": "shoes"})
        results = results_of(reader, 3)
        e.require("a brand change inside the filter: a result with the counts moved (and none for the hat's delete)",
                  len(results) == 3 and results[2]["facets"]["brand"].get("Zeta", 0) == results[1]["facets"]["brand"].get("Zeta", 0) + 1
                  and results[2]["total"] == results[1]["total"], [r.get("facets") for r in results])
        e.call("DELETE", "/collections/shop/documents/live-shoe")
        results = results_of(reader, 4)
        e.require("a delete inside the filter: a result without it", len(results) == 4 and results[3]["total"] == len(shoes), len(results))
    finally:
        end(reader)
    reader = SSEReader(e.port, "/collections/shop/search/live?" + urllib.parse.urlencode({"q": "", "filter": "price >"}) + f"&{e.token}", stop=threading.Event())
    reader.run() if reader.status != 200 else reader.close()
    e.require("a live search with a bad filter is a 400", reader.status == 400, reader.head[:80])


def events_of_a_collection(e):
    e.report.section("/events?collection=")
    e.require("/events?collection=nope (no such collection) is a 404 problem, not an empty stream",
              e.problem(e.call("GET", "/events?collection=nope"), 404))
    reader = SSEReader(e.port, f"/events?collection=shop&{e.token}", stop=threading.Event())
    reader.start()
    try:
        e.require("/events?collection=shop answers 200", reader.status == 200, reader.head[:80])
        e.call("PUT", "/collections/other", {"fields": [{"name": "title", "type": "string", "search": True}]})
        e.call("PUT", "/collections/other/documents/o1", {"title": "Other"})
        e.call("PUT", "/collections/shop/documents/ev1", {"title": "Event one", "category": "ev"})
        e.call("DELETE", "/collections/shop/documents/ev1")
        wait_until(lambda: reader.count("document.deleted") >= 1 or reader.ended, 30)
        seen = [(x.event, json.loads(x.data)) for x in reader.events if x.event]
        e.require("only shop's changes, each carrying its collection",
                  [k for k, _ in seen] == ["document.upserted", "document.deleted"] and all(d.get("collection") == "shop" for _, d in seen),
                  seen)
        first = next((x.id for x in reader.events if x.event == "document.upserted"), None)
    finally:
        end(reader)
    e.call("PUT", "/collections/other/documents/o2", {"title": "Other two"})
    e.call("PUT", "/collections/shop/documents/ev2", {"title": "Event two", "category": "ev"})
    e.documents["ev2"] = {"sku": "ev2", "title": "Event two", "category": "ev", "brand": None, "tags": []}
    resumed = SSEReader(e.port, f"/events?collection=shop&{e.token}", last_event_id=first, stop=threading.Event())
    resumed.start()
    try:
        wait_until(lambda: resumed.count("document.upserted") >= 1 or resumed.ended, 30)
        seen = [(x.event, json.loads(x.data).get("id"), json.loads(x.data).get("collection")) for x in resumed.events if x.event]
        e.require("Last-Event-ID resume: the missed changes of shop only, in order",
                  seen[:2] == [("document.deleted", "ev1", "shop"), ("document.upserted", "ev2", "shop")], seen)
    finally:
        end(resumed)
    e.resume_from = first
    e.after_resume = [("document.deleted", "ev1"), ("document.upserted", "ev2")]
    e.call("DELETE", "/collections/other")


def cities_through_their_collection(e):
    e.report.section("the cities through /collections/cities/documents/{id}")
    city = {"name": "Collectionville", "alternateNames": ["Cville"], "rank": 5, "attributes": {"countryCode": "FR"}}
    answer = e.call("PUT", "/collections/cities/documents/cv1", city)
    e.require("PUT: 204 with Signalbox-Seq, as PUT /documents/{id}", answer.status == 204 and answer.headers.get("signalbox-seq", "").isdigit(), answer)
    plain = e.call("GET", "/documents/cv1", key=False)
    e.require("GET /documents/{id} serves it", plain.status == 200 and plain.json["name"] == "Collectionville", plain)
    same = e.call("GET", "/collections/cities/documents/cv1", key=False).json or {}
    e.require("GET /collections/cities/documents/{id} the same city (in the collection's shape)",
              (same.get("name"), same.get("alternateNames"), same.get("population"), same.get("countryCode")) == ("Collectionville", ["Cville"], 5, "FR"), same)
    hits = e.search("cities", q="collectionville").json["hits"]
    e.require("the cities collection's search finds it", [h["id"] for h in hits][:1] == ["cv1"], hits[:2])
    e.require("a body without a name is a 422 problem", e.problem(e.call("PUT", "/collections/cities/documents/cv2", {"rank": 1}), 422))
    e.require("without the key: 401", e.call("PUT", "/collections/cities/documents/cv2", city, key=False).status == 401)
    answer = e.call("DELETE", "/collections/cities/documents/cv1")
    e.require("DELETE: 204 with Signalbox-Seq", answer.status == 204 and answer.headers.get("signalbox-seq", "").isdigit(), answer)
    e.require("then GET is a 404 problem", e.problem(e.call("GET", "/documents/cv1", key=False), 404))
    e.require("and DELETE again a 404 problem", e.problem(e.call("DELETE", "/collections/cities/documents/cv1"), 404))


# ---------------------------------------------------------------------------------------------
# Schema replace, delete, restart


def schema_replace(e):
    e.report.section("schema replace")
    for sku, colour in (("s00", "red"), ("s01", "blue"), ("s02", "red")):
        e.call("PUT", f"/collections/shop/documents/{sku}", {**e.documents[sku], "colour": colour})
        e.documents[sku] = {**e.documents[sku], "colour": colour}
    e.require("before: colour is not filterable (400 naming it)", "colour" in (e.search(filter="colour = red").json or {}).get("detail", ""))
    stop, statuses = threading.Event(), {}

    def search_throughout():
        while not stop.is_set():
            status = e.search(q="item", filter="category = shoes").status
            statuses[status] = statuses.get(status, 0) + 1

    searcher = threading.Thread(target=search_throughout, daemon=True)
    searcher.start()
    events = SSEReader(e.port, f"/events?collection=shop&{e.token}", stop=threading.Event())
    events.start()
    try:
        schema = {**SHOP_SCHEMA, "fields": SHOP_SCHEMA["fields"] + [{"name": "colour", "type": "string"}]}
        answer = e.call("PUT", "/collections/shop", schema)
        e.require("PUT a new schema with documents in: 200", answer.status == 200, answer)
        answer = e.call("PUT", "/collections/shop/documents/s03", {**e.documents["s03"], "colour": "red"})
        e.documents["s03"] = {**e.documents["s03"], "colour": "red"}
        e.require("a write right after the replace is accepted", answer.status == 204, answer)
        red = sorted(s for s, d in e.documents.items() if d.get("colour") == "red")
        ready = wait_until(lambda: sorted(h["id"] for h in (e.search(filter="colour = red").json or {}).get("hits", [])) == red, 60)
        e.require("after it the new field is filterable, the write during it included", ready, red)
        total = e.search(limit=250).json["total"]
        e.require("the documents are all still there", total == len(e.documents), f"{total} != {len(e.documents)}")
        wait_until(lambda: events.count("collection.replaced") >= 1, 30)
        e.require("a collection.replaced event", events.count("collection.replaced") == 1, [x.event for x in events.events])
    finally:
        stop.set()
        searcher.join(60)
        end(events)
    e.require("searches answered 200 throughout", set(statuses) == {200}, statuses)


def collection_delete(e):
    e.report.section("collection delete")
    e.call("PUT", "/collections/gone", {"fields": [{"name": "title", "type": "string", "search": True}]})
    e.ndjson("gone", [{"id": f"x{n}", "title": f"Gone {n}"} for n in range(3)])
    events = SSEReader(e.port, f"/events?collection=gone&{e.token}", stop=threading.Event())
    events.start()
    try:
        answer = e.call("DELETE", "/collections/gone")
        e.require("DELETE /collections/gone: 204 with Signalbox-Seq", answer.status == 204 and answer.headers.get("signalbox-seq"), answer)
        wait_until(lambda: events.count("collection.deleted") >= 1 or events.ended, 30)
        deleted = [json.loads(x.data) for x in events.events if x.event == "collection.deleted"]
        e.require("subscribers get collection.deleted", deleted and deleted[0].get("collection") == "gone", deleted)
    finally:
        end(events)
    e.require("the collection is gone: 404", e.problem(e.call("GET", "/collections/gone"), 404))
    e.require("its documents are gone: 404", e.problem(e.call("GET", "/collections/gone/documents/x1"), 404))
    e.require("its search is gone: 404", e.problem(e.search("gone"), 404))
    answer = e.call("PUT", "/collections/gone", {"fields": [{"name": "title", "type": "string", "search": True}]})
    e.require("created again it is empty", answer.status == 201 and answer.json["documents"] == 0
              and e.search("gone", q="gone").json["total"] == 0, answer)


def restart(e):
    e.report.section("restart")
    before = {c["name"]: c for c in e.call("GET", "/collections").json["collections"]}
    e.require("SIGTERM exits 0", e.server.stop() == 0)
    try:
        e.server.start(timeout=READY_SECONDS)
    except ServerFailed as error:
        e.require("restarts on the same store", False, str(error)[-2000:])
        return
    after = {c["name"]: c for c in e.call("GET", "/collections").json["collections"]}
    e.require("every collection is back with its schema and document count", after == before,
              {k: (before.get(k, {}).get("documents"), after.get(k, {}).get("documents")) for k in set(before) | set(after)})
    missing = [sku for sku, d in e.documents.items() if (e.call("GET", f"/collections/shop/documents/{sku}").json or {}).get("title") != d["title"]]
    e.require("every document of shop is back", not missing, missing)
    red = sorted(s for s, d in e.documents.items() if d.get("colour") == "red")
    e.require("the replaced schema's field is still filterable", sorted(h["id"] for h in e.search(filter="colour = red").json["hits"]) == red)
    resumed = SSEReader(e.port, f"/events?collection=shop&{e.token}", last_event_id=e.resume_from, stop=threading.Event())
    resumed.start()
    try:
        wait_until(lambda: resumed.count("document.upserted") >= 1 or resumed.ended, 30)
        seen = [(x.event, json.loads(x.data).get("id")) for x in resumed.events if x.event and x.event.startswith("document.")]
        e.require("a Last-Event-ID resume across the restart gets the changes after it", seen[:2] == e.after_resume, seen[:4])
    finally:
        end(resumed)


CHECKS = [schemas, documents, imports, filters, facets_and_stats, sorts, geo, answers_conform_to_openapi, live_search, events_of_a_collection,
          cities_through_their_collection, schema_replace, collection_delete, restart]


def main(binary):
    report = Report(details_on_pass=False)
    with Server(binary, settings={"import.maxBytes": IMPORT_MAX_BYTES, "search.maxFacets": MAX_FACETS}, env={"SIGNALBOX_SSE_HEARTBEAT_INTERVAL": "1"},
                log_level=None, prefix="signalbox-e2e-collections-", ready_timeout=READY_SECONDS) as server:
        try:
            server.start()
            started = True
        except ServerFailed as error:
            started = False
            print(error)
        if report.require("server becomes ready", started):
            run_checks(report, CHECKS, CollectionsE2E(server, report))
            if server.alive():
                server.stop_and_require_clean_exit(report)
        if report.failures:
            sys.stdout.write(server.log_tail(40))
    print(report.tally("e2e collections"))
    return report


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]).failures else 0)
