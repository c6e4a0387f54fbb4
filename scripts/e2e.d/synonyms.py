"""End-to-end checks of a collection's synonyms and stop words (issue 28) over real sockets.

usage: python3 scripts/e2e.d/synonyms.py PATH_TO_SIGNALBOX   (scripts/e2e runs it after collections.py)
Starts the binary on a small data set (no embedded cities to load) with a low
collections.maxSynonymGroups, then: PUT/GET of synonyms and stop words and their effect on searches,
the refusals (each names its field or limit), a live search over SSE that gets a new result after a
synonym change that alters it and none after one that does not, the answers against openapi.yaml,
and a restart on the same store that keeps them.
"""
import json
import os
import sys
import tempfile
import threading
import urllib.parse

import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/
from harness import Report, Server, ServerFailed, SSEReader, request, run_checks, wait_until  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPENAPI = os.path.join(ROOT, "Sources", "Signalbox", "Resources", "openapi.yaml")
MAX_GROUPS = 3
SCHEMA = {"id": "sku", "fields": [{"name": "title", "type": "string", "search": True},
                                  {"name": "price", "type": "number"}], "rank": "price"}
DOCUMENTS = {"s": ("Running sneakers", 10), "t": ("Running trainers", 50), "b": ("New York bagels", 20),
             "n": ("NYC deli", 5), "w": ("The House of Wood", 1)}


class SynonymsE2E:
    def __init__(self, server, report):
        self.server, self.report, self.require = server, report, report.require

    @property
    def port(self):
        return self.server.port

    def call(self, method, path, body=None, key=True):
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        response = request(self.port, method, path, body=body, key=self.server.key if key else None, timeout=60,
                           headers={"Content-Type": "application/json"} if body is not None else None)
        try:
            parsed = json.loads(response.body) if response.body else None
        except ValueError:
            parsed = None
        return response.status, parsed, response.headers

    def ids(self, q):
        status, answer, _ = self.call("GET", "/collections/shop/search?" + urllib.parse.urlencode({"q": q}))
        return [h["id"] for h in (answer or {}).get("hits", [])] if status == 200 else status

    def problem(self, answer, status, mentions):
        code, body, headers = answer
        return (code == status and headers.get("content-type", "").startswith("application/problem+json")
                and mentions in (body or {}).get("detail", ""))


def setup(e):
    e.report.section("collection")
    e.require("PUT /collections/shop 201", e.call("PUT", "/collections/shop", SCHEMA)[0] == 201)
    for sku, (title, price) in DOCUMENTS.items():
        e.call("PUT", f"/collections/shop/documents/{sku}", {"title": title, "price": price})
    e.require("the documents are searchable", sorted(e.ids("")) == sorted(DOCUMENTS), e.ids(""))


def put_and_get(e):
    e.report.section("PUT and GET")
    status, answer, _ = e.call("GET", "/collections/shop/synonyms")
    e.require("none at first", status == 200 and answer == {"synonyms": [], "oneWay": {}}, answer)
    e.require("sneakers finds only the sneakers", e.ids("sneakers ") == ["s"], e.ids("sneakers "))
    body = {"synonyms": [["nyc", "new york"]], "oneWay": {"sneakers": ["trainers"]}}
    status, answer, headers = e.call("PUT", "/collections/shop/synonyms", body)
    e.require("PUT synonyms: 200 with them and Signalbox-Seq", status == 200 and answer == body
              and headers.get("signalbox-seq", "").isdigit(), (status, answer))
    e.require("GET gives them back", e.call("GET", "/collections/shop/synonyms")[1] == body)
    e.require("one way: sneakers finds the trainers after the sneakers", e.ids("sneakers ") == ["s", "t"], e.ids("sneakers "))
    e.require("one way: trainers does not find the sneakers", e.ids("trainers ") == ["t"], e.ids("trainers "))
    e.require("mutual, a phrase: nyc finds New York after NYC", e.ids("nyc ") == ["n", "b"], e.ids("nyc "))
    e.require("mutual, a phrase: new york finds NYC after New York", e.ids("new york ") == ["b", "n"], e.ids("new york "))
    status, answer, _ = e.call("GET", "/collections/shop/search?q=nyc%20")
    bagels = next((h for h in (answer or {}).get("hits", []) if h["id"] == "b"), {})
    e.require("the highlights show the synonym's words", bagels.get("highlight", {}).get("title") == [[0, 3], [4, 8]], bagels)

    e.require("before stop words, 'the running' finds only the house", e.ids("the running ") == ["w"], e.ids("the running "))
    status, answer, _ = e.call("PUT", "/collections/shop/stopwords", {"stopwords": ["the", "of"]})
    e.require("PUT stopwords: 200 with them", status == 200 and answer == {"stopwords": ["the", "of"]}, answer)
    e.require("GET gives them back", e.call("GET", "/collections/shop/stopwords")[1] == {"stopwords": ["the", "of"]})
    e.require("'the' is ignored: 'the running' finds the running shoes", e.ids("the running ") == ["t", "s"], e.ids("the running "))
    e.require("a query of stop words only is searched as typed", e.ids("the of ") == ["w"], e.ids("the of "))


def refusals(e):
    e.report.section("refusals")
    cases = [
        ("synonyms", {"synonyms": [["a", 2]]}, "synonyms[0][1]"),
        ("synonyms", {"synonyms": [["a"]]}, "synonyms[0]"),
        ("synonyms", {"oneWay": {"a": []}}, "oneWay.a"),
        ("synonyms", {"synonym": []}, "synonym"),
        ("synonyms", {"synonyms": [["a", "b"]] * (MAX_GROUPS + 1)}, "collections.maxSynonymGroups"),
        ("stopwords", {"stopwords": ["new york"]}, "stopwords[0]"),
        ("stopwords", {"stopwords": "the"}, "stopwords"),
    ]
    for part, body, named in cases:
        answer = e.call("PUT", f"/collections/shop/{part}", body)
        e.require(f"{json.dumps(body)[:60]} is a 400 problem naming {named}", e.problem(answer, 400, named), answer[:2])
    e.require("not JSON is a 400", e.call("PUT", "/collections/shop/synonyms", "{")[0] == 400)
    e.require("a missing collection is a 404", e.call("PUT", "/collections/nope/synonyms", {"synonyms": []})[0] == 404)
    e.require("the cities' are fixed: 409", e.call("PUT", "/collections/cities/stopwords", {"stopwords": []})[0] == 409)
    e.require("PUT without the key is a 401", e.call("PUT", "/collections/shop/synonyms", {"synonyms": []}, key=False)[0] == 401)
    e.require("GET of a private collection's without the key is a 401", e.call("GET", "/collections/shop/synonyms", key=False)[0] == 401)
    e.require("nothing refused was stored", e.call("GET", "/collections/shop/synonyms")[1]["oneWay"] == {"sneakers": ["trainers"]})


def conform(e):
    e.report.section("openapi.yaml")
    with open(OPENAPI, encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    schemas = spec["components"]["schemas"]
    resolver = {"components": {"schemas": schemas}}
    for path, name in [("/collections/shop/synonyms", "Synonyms"), ("/collections/shop/stopwords", "StopWords")]:
        answer = e.call("GET", path)[1]
        try:
            jsonschema.validate(answer, {**schemas[name], "components": resolver["components"]})
            ok, why = True, ""
        except jsonschema.ValidationError as error:
            ok, why = False, error.message
        e.require(f"GET {path} conforms to {name}", ok, why)
    e.require("both paths are documented", "/collections/{name}/synonyms" in spec["paths"] and "/collections/{name}/stopwords" in spec["paths"])


def live(e):
    e.report.section("live search")
    reader = SSEReader(e.port, "/collections/shop/search/live?q=sneakers%20&token=" + e.server.key, stop=threading.Event())
    reader.start()

    def results(count):
        wait_until(lambda: reader.count("result") >= count or reader.ended, 30)
        return [[h["id"] for h in json.loads(x.data)["hits"]] for x in reader.events if x.event == "result"]
    try:
        e.require("the current result at once", results(1)[:1] == [["s", "t"]], results(1))
        # A change that does not alter this query's result sends nothing; changes are applied and
        # pushed in order, so had it sent a result, it would come before the next one's.
        e.call("PUT", "/collections/shop/synonyms", {"synonyms": [["nyc", "new york"], ["sofa", "couch"]], "oneWay": {"sneakers": ["trainers"]}})
        e.call("PUT", "/collections/shop/synonyms", {"synonyms": [["nyc", "new york"]]})
        got = results(2)
        e.require("a synonym change that alters the result sends a new one (the trainers leave)", got[1:2] == [["s"]], got)
        e.call("PUT", "/collections/shop/synonyms", {"synonyms": [["nyc", "new york"], ["sneakers", "trainers"]]})
        got = results(3)
        e.require("and one that brings them back sends another; the unrelated one sent none", got == [["s", "t"], ["s"], ["s", "t"]], got)
    finally:
        reader.stop.set()
        reader.join(10)


def restart(e):
    e.report.section("restart")
    before = (e.call("GET", "/collections/shop/synonyms")[1], e.call("GET", "/collections/shop/stopwords")[1])
    e.require("SIGTERM exits 0", e.server.stop() == 0)
    try:
        e.server.start()
    except ServerFailed as error:
        e.require("restarts on the same store", False, str(error)[-2000:])
        return
    after = (e.call("GET", "/collections/shop/synonyms")[1], e.call("GET", "/collections/shop/stopwords")[1])
    e.require("the synonyms and stop words are back", after == before, (before, after))
    e.require("and applied", e.ids("trainers ") == ["t", "s"] and e.ids("the running ") == ["t", "s"], (e.ids("trainers "), e.ids("the running ")))
    e.require("a deleted collection takes them along", e.call("DELETE", "/collections/shop")[0] == 204
              and e.call("PUT", "/collections/shop", SCHEMA)[0] == 201
              and e.call("GET", "/collections/shop/stopwords")[1] == {"stopwords": []})


CHECKS = [setup, put_and_get, refusals, conform, live, restart]


def main(binary):
    report = Report("synonyms and stop words (issue 28)", details_on_pass=False)
    data = tempfile.NamedTemporaryFile("w", suffix=".ndjson", delete=False)
    for n in range(20):
        data.write(json.dumps({"id": f"c{n}", "name": f"Town {n}", "rank": n}) + "\n")
    data.close()
    with Server(binary, settings={"data": data.name, "collections.maxSynonymGroups": MAX_GROUPS}, log_level=None,
                prefix="signalbox-e2e-synonyms-") as server:
        try:
            server.start()
        except ServerFailed as failure:
            report.require("the server starts", False, str(failure)[-400:])
            report.finish()
        run_checks(report, CHECKS, SynonymsE2E(server, report))
        if server.alive():
            server.stop_and_require_clean_exit(report)
        if report.failures:
            sys.stdout.write(server.log_tail(40))
    os.unlink(data.name)
    report.finish()


if __name__ == "__main__":
    main(sys.argv[1])
