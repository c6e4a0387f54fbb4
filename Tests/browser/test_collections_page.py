"""The page with collections (issues 25 and 26) in a real headless Chromium.

A collection made here (with a geo field) is picked, searched with highlights, refined with
facet checkboxes, a number range, a sort and a "near" point whose distances are checked
against a haversine of our own, and followed live while a document is written. Run by
scripts/browser-test; every wait is a condition of the page, never a sleep.
"""

import json
import math
import re
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from pagekit import BASE, KEY, api, hit_names, screenshot, text_of, wait

pytestmark = pytest.mark.skipif(not BASE, reason="SIGNALBOX_URL is not set (run scripts/browser-test)")

SHOPS = "browser-shops"
PLAIN = "browser-plain"
SCHEMA = {
    "id": "sku",
    "public": True,  # the page sends no key yet
    "fields": [
        {"name": "title", "type": "string", "search": True},
        {"name": "tags", "type": "string[]", "search": True},
        {"name": "brand", "type": "string"},
        {"name": "inStock", "type": "boolean"},
        {"name": "price", "type": "number"},
        {"name": "store", "type": "geo", "from": ["lat", "lon"]},
    ],
    "rank": "price",
}
# sku, title, tags, brand, in stock, price, and the store's city.
PRODUCTS = [
    ("p1", "Wool socks", ["wool", "winter"], "Acme", True, 9.5, 48.8566, 2.3522),      # Paris
    ("p2", "Running socks", ["run", "sale"], "Acme", True, 12, 45.7640, 4.8357),       # Lyon
    ("p3", "Trail shoes", ["run", "trail"], "Zeta", False, 89.9, 52.5200, 13.4050),    # Berlin
    ("p4", "Rain jacket", ["rain"], "Zeta", True, 120, 51.5072, -0.1276),              # London
    ("p5", "Sock liners", ["wool"], "Orbit", True, 5, 50.8503, 4.3517),                # Brussels
    ("p6", "Ski gloves", ["winter"], "Acme", False, 35, 46.2044, 6.1432),              # Geneva
    ("p7", "Beach towel", ["summer"], "Orbit", True, 15, 41.3874, 2.1686),             # Barcelona
    ("p8", "Wool hat", ["wool", "winter"], "Zeta", True, 22, 40.4168, -3.7038),        # Madrid
]
TITLES = {sku: title for sku, title, *_ in PRODUCTS}
PARIS = (48.8566, 2.3522)


def document(sku, title, tags, brand, in_stock, price, lat, lon):
    return {"sku": sku, "title": title, "tags": tags, "brand": brand, "inStock": in_stock,
            "price": price, "lat": lat, "lon": lon}


def post_ndjson(path, lines):
    request = urllib.request.Request(
        f"{BASE}{path}", method="POST", data="\n".join(json.dumps(line) for line in lines).encode(),
        headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/x-ndjson"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


@pytest.fixture(scope="module", autouse=True)
def collections():
    assert api("PUT", f"/collections/{SHOPS}", SCHEMA) == 201
    assert api("PUT", f"/collections/{PLAIN}", {"public": True, "fields": [{"name": "title", "type": "string", "search": True}]}) == 201
    report = post_ndjson(f"/collections/{SHOPS}/documents", [document(*p) for p in PRODUCTS])
    assert report["created"] == len(PRODUCTS) and report["failed"] == 0, report
    yield
    for name in (SHOPS, PLAIN):
        api("DELETE", f"/collections/{name}")


def haversine_m(a, b):
    """Great-circle distance with the mean earth radius, computed apart from the server's."""
    lat1, lng1, lat2, lng2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
    return 2 * 6_371_008.8 * math.asin(math.sqrt(h))


def open_collection(page, name=SHOPS, query="", refine=True, live=False):
    page.get(f"{BASE}/?c={name}" + (f"&q={query}" if query else "") + ("&live=1" if live else ""))
    wait(page, lambda d: d.find_element(By.ID, "collection").get_attribute("value") == name, f"{name} is not picked")
    wait(page, lambda d: re.search(r"\d+ documents?|No documents", text_of(d, "status")), "no result for the collection")
    if refine:
        page.find_element(By.CSS_SELECTOR, "#refine summary").click()


def facet(page, field):
    """{value: count} of a facet as shown, and the checked values."""
    rows = page.execute_script(
        "return Array.from(document.querySelectorAll(`fieldset[data-field='${arguments[0]}'] .facet-value`))"
        ".map(l => [l.querySelector('input').value, l.querySelector('.count').textContent, l.querySelector('input').checked])",
        field)
    return {value: int(count.replace(",", "")) for value, count, _ in rows}, {value for value, _, checked in rows if checked}


def count_shown(page):
    match = re.match(r"(\d+) documents?", text_of(page, "status"))
    return int(match.group(1)) if match else 0 if "No documents" in text_of(page, "status") else None


def metas(page):
    return page.execute_script(
        "return Array.from(document.querySelectorAll('#results .hit .meta')).map(m => m.textContent)")


def test_the_collections_are_listed_and_cities_is_the_default(page):
    page.get(f"{BASE}/")
    picker = page.find_element(By.ID, "collection")
    options = lambda d: [o.get_attribute("value") for o in d.find_elements(By.CSS_SELECTOR, "#collection option")]
    wait(page, lambda d: {"cities", SHOPS, PLAIN} <= set(options(d)), "the picker does not list the collections")
    assert picker.get_attribute("value") == "cities"
    assert page.find_element(By.ID, "refine").get_attribute("open") is None  # the cities look as before
    Select(picker).select_by_value(SHOPS)
    wait(page, lambda d: count_shown(d) == len(PRODUCTS), "picking the collection does not list its documents")
    assert f"c={SHOPS}" in page.current_url
    assert text_of(page, "search-label") == f"Search {SHOPS}"
    severe = [entry for entry in page.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == [], severe


def test_hits_show_the_searched_fields_with_their_highlights(page):
    open_collection(page, refine=False)
    page.find_element(By.ID, "q").send_keys("wool")
    wait(page, lambda d: set(hit_names(d)) == {"Wool socks", "Wool hat", "Sock liners"}, "not the three wool products")
    hits = page.execute_script(
        "return Array.from(document.querySelectorAll('#results .hit')).map(h => ({"
        " name: h.querySelector('.name').textContent,"
        " marks: Array.from(h.querySelectorAll('.name mark')).map(m => m.textContent),"
        " also: Array.from(h.querySelectorAll('.also [data-field]')).map(a => [a.dataset.field, a.textContent,"
        "   Array.from(a.querySelectorAll('mark')).map(m => m.textContent)])}))")
    by_name = {hit["name"]: hit for hit in hits}
    assert by_name["Wool socks"]["marks"] == ["Wool"] and by_name["Wool hat"]["marks"] == ["Wool"]
    # Matched only in its tags (a string[] field): the matched element, marked.
    assert by_name["Sock liners"]["marks"] == []
    assert by_name["Sock liners"]["also"] == [["tags", "tags: wool", ["wool"]]], by_name["Sock liners"]
    screenshot(page, "collection-highlights")
    # Enter opens the document from /collections/{name}/documents/{id}, every field listed.
    box = page.find_element(By.ID, "q")
    box.send_keys(Keys.ARROW_DOWN, Keys.ENTER)
    first = hit_names(page)[0]
    wait(page, lambda d: first in d.find_element(By.CSS_SELECTOR, "#detail h2").text, "Enter does not open the document")
    detail = page.find_element(By.ID, "detail").text
    assert "brand" in detail and "price" in detail and "sku" in detail, detail


def test_a_checked_facet_narrows_the_hits_and_the_counts(page):
    open_collection(page)
    wait(page, lambda d: facet(d, "brand")[0] == {"Acme": 3, "Zeta": 3, "Orbit": 2}, "brand's counts are not shown")
    assert facet(page, "inStock")[0] == {"true": 6, "false": 2}
    # With the keyboard: focus the box, Space checks it.
    acme = page.find_element(By.CSS_SELECTOR, "fieldset[data-field='brand'] input[value='Acme']")
    page.execute_script("arguments[0].focus()", acme)
    acme.send_keys(Keys.SPACE)
    wait(page, lambda d: count_shown(d) == 3, "checking Acme does not narrow to 3 documents")
    assert set(hit_names(page)) == {"Wool socks", "Running socks", "Ski gloves"}
    wait(page, lambda d: facet(d, "inStock")[0] == {"true": 2, "false": 1}, "inStock's counts do not follow the facet")
    # The other brands keep their counts (values of one facet are OR'ed), so a second one can be added.
    wait(page, lambda d: facet(d, "brand") == ({"Acme": 3, "Zeta": 3, "Orbit": 2}, {"Acme"}), "brand's own counts")
    page.find_element(By.CSS_SELECTOR, "fieldset[data-field='brand'] input[value='Orbit']").click()
    wait(page, lambda d: count_shown(d) == 5, "Acme or Orbit is not 5 documents")
    assert "f.brand=Acme" in page.current_url and "f.brand=Orbit" in page.current_url  # the address follows
    screenshot(page, "collection-facets")


def test_a_link_opens_refined(page):
    page.get(f"{BASE}/?c={SHOPS}&f.brand=Acme&min.price=10&sort=price%3Adesc")
    wait(page, lambda d: hit_names(d) == ["Ski gloves", "Running socks"], "the link's refinements are not applied")
    assert page.find_element(By.ID, "refine").get_attribute("open") is not None
    assert facet(page, "brand")[1] == {"Acme"}
    assert page.find_element(By.ID, "sort").get_attribute("value") == "price:desc"
    page.find_element(By.CSS_SELECTOR, "#refine .clear").click()
    wait(page, lambda d: count_shown(d) == len(PRODUCTS), "Clear does not lift the refinements")
    assert "f.brand" not in page.current_url and "sort=" not in page.current_url
    assert page.switch_to.active_element.get_attribute("id") == "sort"
    page.get(f"{BASE}/?q=paris&f.countryCode=FR&near=48.8566,2.3522,50")
    wait(page, lambda d: hit_names(d)[:1] == ["Paris"] and all("(FR)" in m for m in metas(d)), "the cities link is not refined")
    assert re.match(r"\d+ m\D", metas(page)[0]), metas(page)[0]  # nearest first, its distance shown


def test_a_number_range_shows_its_stats_and_filters(page):
    open_collection(page)
    low = page.find_element(By.CSS_SELECTOR, "fieldset[data-field='price'] input[aria-label='price at least']")
    high = page.find_element(By.CSS_SELECTOR, "fieldset[data-field='price'] input[aria-label='price at most']")
    wait(page, lambda d: (low.get_attribute("placeholder"), high.get_attribute("placeholder")) == ("5", "120"),
         "the range does not show the price stats")
    low.send_keys("20")
    high.send_keys("100")
    wait(page, lambda d: set(hit_names(d)) == {"Wool hat", "Ski gloves", "Trail shoes"}, "the range does not filter")
    assert (low.get_attribute("placeholder"), high.get_attribute("placeholder")) == ("22", "89.9")
    high.clear()
    high.send_keys("-")  # not a number: marked invalid, left out of the query
    wait(page, lambda d: high.get_attribute("aria-invalid") == "true", "a bad bound is not marked")


def test_a_sort_orders_the_hits(page):
    open_collection(page)
    Select(page.find_element(By.ID, "sort")).select_by_value("price:asc")
    by_price = [TITLES[p[0]] for p in sorted(PRODUCTS, key=lambda p: p[5])]
    wait(page, lambda d: hit_names(d) == by_price, "the hits are not sorted by price")
    assert metas(page)[0] == "price 5"
    Select(page.find_element(By.ID, "sort")).select_by_value("price:desc")
    wait(page, lambda d: hit_names(d) == by_price[::-1], "the hits are not sorted by price, highest first")


def test_near_keeps_the_radius_sorts_nearest_first_and_shows_distances(page):
    open_collection(page)
    near = lambda label: page.find_element(By.CSS_SELECTOR, f"fieldset[data-field='near'] input[aria-label='{label}']")
    near("Latitude").send_keys(str(PARIS[0]))
    near("Longitude").send_keys(str(PARIS[1]))
    radius = near("Radius in km")
    radius.clear()
    radius.send_keys("500")
    distances = {sku: haversine_m(PARIS, (lat, lon)) for sku, *_, lat, lon in PRODUCTS}
    inside = sorted((sku for sku in distances if distances[sku] <= 500_000), key=distances.get)
    expected = [TITLES[sku] for sku in inside]
    wait(page, lambda d: hit_names(d) == expected, f"not the stores within 500 km, nearest first: {expected}")
    assert page.find_element(By.ID, "sort").get_attribute("value") == "distance"
    shown = page.execute_script(
        "return Array.from(document.querySelectorAll('#results .hit .meta .distance')).map(m => m.textContent)")
    assert len(shown) == len(inside), shown
    for sku, text in zip(inside, shown):
        meters = distances[sku]
        if meters < 1000:
            assert text == f"{round(meters)} m", (sku, text)
        else:
            value = float(text.removesuffix(" km").replace(",", ""))
            assert abs(value * 1000 - meters) <= 100, (sku, text, meters)  # shown to 0.1 km
    screenshot(page, "collection-near")
    # Out of range: marked, and the query goes on without the point.
    near("Latitude").clear()
    near("Latitude").send_keys("91")
    wait(page, lambda d: near("Latitude").get_attribute("aria-invalid") == "true", "latitude 91 is not marked")
    wait(page, lambda d: count_shown(d) == len(PRODUCTS), "without a valid point the radius still applies")


def test_a_live_query_follows_a_write_with_its_facet_counts(page):
    open_collection(page, live=True)
    page.find_element(By.CSS_SELECTOR, "fieldset[data-field='brand'] input[value='Orbit']").click()
    wait(page, lambda d: count_shown(d) == 2 and "· live" in text_of(d, "status"), "the live query does not start")
    assert facet(page, "inStock")[0] == {"true": 2}
    new = document("p9", "Orbit socks", ["wool"], "Orbit", True, 7, 48.85, 2.35)
    assert api("PUT", f"/collections/{SHOPS}/documents/p9", new) == 204
    wait(page, lambda d: count_shown(d) == 3 and "Orbit socks" in hit_names(d), "the live query does not show the write")
    wait(page, lambda d: facet(d, "inStock")[0] == {"true": 3}, "the facet counts do not follow the write")
    assert facet(page, "brand")[0]["Orbit"] == 3  # its own count, asked again after the live answer
    panel = lambda d: d.execute_script(
        "return Array.from(document.querySelectorAll('#events .event.upserted')).filter(e => e.dataset.id === 'p9')"
        ".map(e => e.textContent)")
    wait(page, lambda d: any("Orbit socks" in t and f"in {SHOPS}" in t for t in panel(d)), "the changes panel lacks the write")
    screenshot(page, "collection-live")
    assert api("DELETE", f"/collections/{SHOPS}/documents/p9") == 204
    wait(page, lambda d: count_shown(d) == 2 and "Orbit socks" not in hit_names(d), "the live query keeps the deleted one")
    # A write outside the checked brand leaves the answer as it is, but not the other brands' counts.
    other = document("p10", "Zeta scarf", ["winter"], "Zeta", True, 30, 48.85, 2.35)
    assert api("PUT", f"/collections/{SHOPS}/documents/p10", other) == 204
    try:
        wait(page, lambda d: facet(d, "brand")[0].get("Zeta") == 4, "Zeta's count does not follow a write outside the filter")
        assert count_shown(page) == 2
    finally:
        assert api("DELETE", f"/collections/{SHOPS}/documents/p10") == 204
    wait(page, lambda d: facet(d, "brand")[0].get("Zeta") == 3, "Zeta's count does not follow the deletion")


def test_the_cities_get_facets_and_near_too(page):
    page.get(f"{BASE}/?q=paris")
    wait(page, lambda d: "Paris" in hit_names(d), "no Paris")
    page.find_element(By.CSS_SELECTOR, "#refine summary").click()
    wait(page, lambda d: facet(d, "countryCode")[0].get("FR", 0) >= 1, "no countryCode facet for the cities")
    page.find_element(By.CSS_SELECTOR, "fieldset[data-field='countryCode'] input[value='FR']").click()
    wait(page, lambda d: hit_names(d) and all("(FR)" in m for m in metas(d)), "checking FR leaves other countries")
    assert re.search(r"\d+ (city|cities)", text_of(page, "status"))
    screenshot(page, "cities-refined")


def test_a_collection_without_a_geo_field_has_no_near_control(page):
    open_collection(page, PLAIN)
    wait(page, lambda d: d.find_elements(By.ID, "sort"), "no refinements")
    assert page.find_elements(By.CSS_SELECTOR, "fieldset[data-field='near']") == []
    values = [o.get_attribute("value") for o in page.find_elements(By.CSS_SELECTOR, "#sort option")]
    assert "distance" not in values and "title:asc" in values


def test_the_refinements_fit_a_narrow_screen(page):
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    open_collection(page)
    wait(page, lambda d: facet(d, "brand")[0], "no facets on the narrow screen")
    overflow = page.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px"
    screenshot(page, "narrow-390-refine")


def test_a_collection_deleted_while_picked_falls_back_to_the_cities(page):
    temporary = "browser-temporary"
    assert api("PUT", f"/collections/{temporary}", {"public": True, "fields": [{"name": "title", "type": "string", "search": True}]}) == 201
    try:
        open_collection(page, temporary, refine=False)
        wait(page, lambda d: text_of(d, "events-state") == "connected", "the /events stream does not connect")
    finally:
        assert api("DELETE", f"/collections/{temporary}") == 204
    wait(page, lambda d: d.find_element(By.ID, "collection").get_attribute("value") == "cities", "the cities are not picked")
    options = [o.get_attribute("value") for o in page.find_elements(By.CSS_SELECTOR, "#collection option")]
    assert temporary not in options
    notes = page.execute_script("return Array.from(document.querySelectorAll('#events .note')).map(e => e.textContent)")
    assert any(f"Collection {temporary} deleted." in note for note in notes), notes


def test_a_long_facet_lists_all_its_values_on_demand(page):
    page.get(f"{BASE}/?q=san")
    page.find_element(By.CSS_SELECTOR, "#refine summary").click()
    more = "fieldset[data-field='countryCode'] .more"
    wait(page, lambda d: len(facet(d, "countryCode")[0]) == 8 and d.find_elements(By.CSS_SELECTOR, more),
         "countryCode does not list 8 values and an 'all' button")
    button = page.find_element(By.CSS_SELECTOR, more)
    total = int(button.text.removeprefix("all "))
    assert total > 8, button.text
    page.execute_script("arguments[0].focus()", button)
    button.send_keys(Keys.ENTER)
    wait(page, lambda d: len(facet(d, "countryCode")[0]) == total, "'all' does not list every value")
    focused = page.switch_to.active_element
    assert focused.text == "fewer" and focused.get_attribute("aria-expanded") == "true"


def test_every_refinement_has_a_name_and_no_script_writes_html(page):
    open_collection(page)
    wait(page, lambda d: facet(d, "brand")[0], "no facets")
    unnamed = page.execute_script(
        "return Array.from(document.querySelectorAll('#refine input, #refine select, #collection'))"
        ".filter(c => !(c.labels && c.labels.length) && !c.getAttribute('aria-label')).map(c => c.outerHTML)")
    assert unnamed == [], unnamed
    for script in ("app.js", "refine.js"):
        with urllib.request.urlopen(f"{BASE}/assets/{script}", timeout=10) as response:
            source = response.read().decode()
        assert not re.search(r"\.(inner|outer)HTML\s*\+?=|insertAdjacentHTML\(|document\.write\(", source), script


def test_a_key_typed_into_the_page_opens_a_private_collection(page):
    """A private collection is not listed without a key; typed into the page, the key (sent as
    a header, and as `token=` on the streams) lists it, searches it and streams its changes."""
    private = "browser-private"
    assert api("PUT", f"/collections/{private}", {"fields": [{"name": "title", "type": "string", "search": True}]}) == 201
    try:
        assert api("PUT", f"/collections/{private}/documents/s1", {"id": "s1", "title": "Secret lamp"}) == 204
        page.get(f"{BASE}/")
        page.execute_script("sessionStorage.clear()")
        page.get(f"{BASE}/")
        options = lambda d: [o.get_attribute("value") for o in d.find_elements(By.CSS_SELECTOR, "#collection option")]
        wait(page, lambda d: SHOPS in options(d), "the public collections are not listed")
        assert private not in options(page)
        key = page.find_element(By.ID, "key")
        assert key.get_attribute("type") == "password"
        key.send_keys(KEY, Keys.TAB)
        wait(page, lambda d: private in options(d), "the key does not list the private collection")
        Select(page.find_element(By.ID, "collection")).select_by_value(private)
        page.find_element(By.ID, "q").send_keys("secret")
        wait(page, lambda d: hit_names(d) == ["Secret lamp"], "the private collection is not searched with the key")
        # The change feed follows with the key too: a write to the private collection is noted.
        assert api("PUT", f"/collections/{private}/documents/s2", {"id": "s2", "title": "Secret desk"}) == 204
        wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#events li[data-id='s2']"),
             "the private collection's change does not reach the page")
        # Cleared, the page is a visitor's again.
        key.clear()
        key.send_keys(Keys.TAB)
        wait(page, lambda d: private not in options(d), "the private collection is still listed without the key")
    finally:
        page.execute_script("sessionStorage.clear()")
        api("DELETE", f"/collections/{private}")
