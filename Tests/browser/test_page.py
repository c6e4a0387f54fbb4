"""The search page at `/` in a real headless Chromium (Selenium).

Run by scripts/browser-test, which starts the server and passes SIGNALBOX_URL,
SIGNALBOX_API_KEY and SIGNALBOX_ARTIFACTS (screenshots); the browser and the
helpers are in conftest.py and pagekit.py. Every wait is a WebDriverWait on a
condition of the page, never a sleep.
"""

import os
import re
import socket
import threading
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from pagekit import BASE, WAIT_SECONDS, api, hit_names, screenshot, text_of, wait

pytestmark = pytest.mark.skipif(not BASE, reason="SIGNALBOX_URL is not set (run scripts/browser-test)")


def test_partial_accent_free_query_finds_sao_paulo_first_and_the_address_follows(page):
    page.get(f"{BASE}/")
    box = page.find_element(By.ID, "q")
    box.send_keys("sao pa")
    wait(page, lambda d: hit_names(d)[:1] == ["São Paulo"], "São Paulo is not the first hit")
    marks = page.execute_script(
        "return Array.from(document.querySelectorAll('#results .hit:first-child mark')).map(m => m.textContent)")
    assert marks == ["São", "Pa"]
    wait(page, lambda d: re.search(r"[?&]q=sao(\+|%20)pa(&|$)", d.current_url), "the address does not follow the query")
    status = text_of(page, "status")
    assert re.search(r"\d[\d,]* (city|cities).* \d[\d,]* µs on the server", status), status
    first = page.find_element(By.CSS_SELECTOR, "#results .hit:first-child .meta").text
    assert "Brazil (BR)" in first and re.search(r"pop\. \d{1,3}(,\d{3})+", first), first
    assert box.get_attribute("aria-expanded") == "true"
    screenshot(page, "desktop-sao-pa")
    severe = [entry for entry in page.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == [], severe  # no CSP violation, no script error


SLOW_FIRST_FETCH = """
window.requests = [];
const realFetch = window.fetch;
window.fetch = (url, options) => {
  const entry = {url: String(url), aborted: false, settled: false};
  window.requests.push(entry);
  options.signal.addEventListener('abort', () => { entry.aborted = true; });
  const delay = window.requests.length === 1 ? 1500 : 0;
  return new Promise((resolve, reject) => setTimeout(() => realFetch(url, options).then(resolve, reject), delay))
    .finally(() => { entry.settled = true; });
};
"""


def test_the_latest_query_wins_and_the_stale_request_is_cancelled(page):
    page.get(f"{BASE}/")
    page.execute_script(SLOW_FIRST_FETCH)  # the first request (for "a") answers late
    page.find_element(By.ID, "q").send_keys("amsterdam")
    wait(page, lambda d: hit_names(d)[:1] == ["Amsterdam"], "Amsterdam is not the first hit")
    requests = lambda d: d.execute_script("return window.requests")
    wait(page, lambda d: requests(d)[0]["settled"], "the slow first request never settles")
    first = requests(page)[0]
    assert "q=a&" in first["url"] and first["aborted"], first
    assert len(requests(page)) < len("amsterdam"), "keystrokes are not throttled"
    assert hit_names(page)[:1] == ["Amsterdam"], "a stale answer replaced the latest one"


def test_a_link_with_q_opens_with_its_results(page):
    page.get(f"{BASE}/?q=amsterdam")
    wait(page, lambda d: hit_names(d)[:1] == ["Amsterdam"], "Amsterdam is not the first hit")
    assert page.find_element(By.ID, "q").get_attribute("value") == "amsterdam"


def test_keyboard_moves_the_selection_and_enter_opens_the_city(page):
    page.get(f"{BASE}/?q=paris")
    wait(page, lambda d: len(hit_names(d)) >= 3, "fewer than 3 hits for paris")
    box = page.find_element(By.ID, "q")
    selected = lambda d: d.execute_script(
        "return Array.from(document.querySelectorAll('#results [aria-selected=true]')).map(o => o.id)")
    box.send_keys(Keys.ARROW_DOWN)
    wait(page, lambda d: selected(d) == ["hit-0"], "ArrowDown does not select the first hit")
    box.send_keys(Keys.ARROW_DOWN, Keys.ARROW_DOWN)
    wait(page, lambda d: selected(d) == ["hit-2"], "ArrowDown does not move to the third hit")
    assert box.get_attribute("aria-activedescendant") == "hit-2"
    box.send_keys(Keys.ARROW_UP)
    wait(page, lambda d: selected(d) == ["hit-1"], "ArrowUp does not move back")
    name = hit_names(page)[1]
    box.send_keys(Keys.ENTER)
    wait(page, lambda d: d.find_element(By.ID, "detail").is_displayed()
         and name in d.find_element(By.CSS_SELECTOR, "#detail h2").text, "Enter does not open the city")
    assert "Time zone" in page.find_element(By.ID, "detail").text
    assert page.switch_to.active_element == box  # focus stays in the box
    screenshot(page, "desktop-keyboard")


def test_an_error_shows_inline_and_the_box_keeps_working(page):
    page.get(f"{BASE}/")
    box = page.find_element(By.ID, "q")
    # A paste longer than the server's 512-byte query limit: the server answers 400.
    page.execute_script(
        "arguments[0].value = 'x'.repeat(600); arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", box)
    wait(page, lambda d: "400" in text_of(d, "error"), "the 400 is not shown inline")
    assert "Search failed" in text_of(page, "error")
    screenshot(page, "desktop-error")
    box.clear()
    box.send_keys("berlin")
    wait(page, lambda d: hit_names(d)[:1] == ["Berlin"], "the box stopped working after the error")
    assert text_of(page, "error") == ""


def test_a_change_shows_in_the_live_panel_and_in_a_live_query(page):
    page.get(f"{BASE}/")
    wait(page, lambda d: text_of(d, "events-state") == "connected", "the /events stream does not connect")
    box = page.find_element(By.ID, "q")
    box.send_keys("qwxyzburg")
    page.find_element(By.ID, "live").click()
    wait(page, lambda d: "· live" in text_of(d, "status"), "the live query does not start")
    assert "live=1" in page.current_url

    document = {"name": "Qwxyzburg Signalbox", "alternateNames": ["QSB"], "rank": 123456,
                "attributes": {"countryCode": "FR", "timezone": "Europe/Paris"}}
    assert api("PUT", "/documents/browser-1", document) == 204
    event_of = lambda d, kind: d.execute_script(
        "return Array.from(document.querySelectorAll('#events .event.' + arguments[0]))"
        ".filter(e => e.dataset.id === 'browser-1').map(e => e.textContent)", kind)
    wait(page, lambda d: any("Qwxyzburg Signalbox" in t for t in event_of(d, "upserted")), "no upserted event in the panel")
    wait(page, lambda d: hit_names(d)[:1] == ["Qwxyzburg Signalbox"], "the live query does not show the new document")
    marks = page.execute_script(
        "return Array.from(document.querySelectorAll('#results .hit:first-child mark')).map(m => m.textContent)")
    assert marks == ["Qwxyzburg"]
    screenshot(page, "desktop-live")

    assert api("DELETE", "/documents/browser-1") == 204
    wait(page, lambda d: event_of(d, "deleted"), "no deleted event in the panel")
    wait(page, lambda d: "Qwxyzburg Signalbox" not in hit_names(d), "the live query still shows the deleted document")
    screenshot(page, "desktop-live-deleted")


class DroppableRelay:
    """A TCP relay in front of the server whose connections the test can cut.

    Cutting closes every open connection (the page's event stream among them)
    and turns new ones away until restored, as a lost network would.
    """

    def __init__(self, base):
        host, port = base.split("//", 1)[1].split(":")
        self.target = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.lock = threading.Lock()
        self.open = set()
        self.refusing = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                refusing = self.refusing
            if refusing:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.open |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                self._drop(end)

    def _drop(self, end):
        with self.lock:
            self.open.discard(end)
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        end.close()

    def cut(self):
        with self.lock:
            self.refusing = True
            ends = list(self.open)
        for end in ends:
            self._drop(end)

    def restore(self):
        with self.lock:
            self.refusing = False

    def close(self):
        self.listener.close()
        self.cut()


@pytest.fixture
def relay():
    relay = DroppableRelay(BASE)
    yield relay
    relay.close()


def panel_ids(driver):
    return driver.execute_script("return Array.from(document.querySelectorAll('#events .event')).map(e => e.dataset.id)")


def put_city(doc_id, name):
    assert api("PUT", f"/documents/{doc_id}", {"name": name, "rank": 1, "attributes": {"countryCode": "NO"}}) == 204


def test_the_changes_panel_resumes_after_a_lost_connection(page, relay):
    page.get(f"{relay.url}/")
    wait(page, lambda d: text_of(d, "events-state") == "connected", "the /events stream does not connect")
    put_city("browser-r1", "Resumeville One")  # an event, so EventSource has a Last-Event-ID to send
    wait(page, lambda d: "browser-r1" in panel_ids(d), "the first change does not arrive")
    try:
        relay.cut()
        wait(page, lambda d: text_of(d, "events-state") == "reconnecting", "the lost connection is not shown")
        put_city("browser-r2", "Resumeville Two")  # happens while the page is away
    finally:
        relay.restore()
    # EventSource reconnects by itself (a few seconds) and sends Last-Event-ID.
    WebDriverWait(page, 20, poll_frequency=0.1).until(
        lambda d: "browser-r2" in panel_ids(d), "the change missed while away is not replayed")
    notes = page.execute_script("return Array.from(document.querySelectorAll('#events .note')).map(e => e.textContent)")
    assert any("Reconnected, resuming after #" in note for note in notes), notes
    assert text_of(page, "events-state") == "connected"
    screenshot(page, "desktop-reconnected")
    for doc_id in ("browser-r1", "browser-r2"):
        api("DELETE", f"/documents/{doc_id}")


def test_the_changes_panel_shows_a_reset_when_the_missed_changes_are_gone(page, relay):
    # The runner keeps only a few events (SIGNALBOX_EVENTS_HISTORY), so missing more asks for a reset.
    history = int(os.environ.get("SIGNALBOX_EVENTS_HISTORY", "4"))
    page.get(f"{relay.url}/")
    wait(page, lambda d: text_of(d, "events-state") == "connected", "the /events stream does not connect")
    put_city("browser-s0", "Resetburg")
    wait(page, lambda d: "browser-s0" in panel_ids(d), "the first change does not arrive")
    ids = [f"browser-s{n}" for n in range(1, history + 2)]
    try:
        relay.cut()
        wait(page, lambda d: text_of(d, "events-state") == "reconnecting", "the lost connection is not shown")
        for doc_id in ids:
            put_city(doc_id, "Resetburg")
    finally:
        relay.restore()
    WebDriverWait(page, 20, poll_frequency=0.1).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#events .note.reset"), "no reset is shown")
    assert not set(ids) & set(panel_ids(page)), "a reset should not come with the missed events"
    screenshot(page, "desktop-reset")
    for doc_id in ["browser-s0", *ids]:
        api("DELETE", f"/documents/{doc_id}")


def test_leaving_the_page_releases_its_streams(page):
    # A browser opens at most six connections to one server. Pages kept in the
    # back/forward cache must not hold their event streams, or the next pages stall.
    page.set_page_load_timeout(WAIT_SECONDS)
    try:
        # Eight different addresses (one address again would replace its history entry,
        # and nothing would be cached), with two streams each: /events and the live query.
        for city in ("oslo", "lima", "rome", "kyiv", "baku", "doha", "riga", "bern"):
            page.get(f"{BASE}/?q={city}&live=1")
            wait(page, lambda d: text_of(d, "events-state") == "connected" and "· live" in text_of(d, "status"),
                 "the streams do not connect")
    finally:
        page.set_page_load_timeout(300)


def test_highlights_count_code_points_not_utf16_units(page):
    # Two letters outside the BMP (two UTF-16 units each) before the match.
    document = {"name": "\U00010330\U00010331 Qwxyzton", "rank": 5, "attributes": {"countryCode": "IS"}}
    assert api("PUT", "/documents/browser-astral", document) == 204
    try:
        page.get(f"{BASE}/?q=qwxyzt")
        wait(page, lambda d: hit_names(d)[:1] == [document["name"]], "the astral-named document is not found")
        marks = page.execute_script(
            "return Array.from(document.querySelectorAll('#results .hit:first-child mark')).map(m => m.textContent)")
        assert marks == ["Qwxyzt"]
    finally:
        api("DELETE", "/documents/browser-astral")


def test_the_page_fits_a_narrow_screen(page):
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    page.get(f"{BASE}/?q=sao+pa")
    wait(page, lambda d: hit_names(d)[:1] == ["São Paulo"], "no results on the narrow screen")
    assert page.execute_script("return window.innerWidth") == 390
    overflow = page.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px"
    screenshot(page, "narrow-390-sao-pa")
    page.execute_script("document.querySelector('.events').scrollIntoView()")
    screenshot(page, "narrow-390-changes")


def test_a_dark_color_scheme_is_followed(page):
    page.execute_cdp_cmd("Emulation.setEmulatedMedia",
                         {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    page.get(f"{BASE}/?q=sao+pa")
    wait(page, lambda d: hit_names(d)[:1] == ["São Paulo"], "no results in the dark scheme")
    background = page.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(17, 20, 24)", background
    screenshot(page, "desktop-dark-sao-pa")


def test_assets_carry_types_cache_headers_and_a_strict_policy():
    for path, kind in (("/", "text/html"), ("/assets/app.js", "text/javascript"), ("/assets/style.css", "text/css")):
        with urllib.request.urlopen(f"{BASE}{path}", timeout=10) as response:
            assert response.headers["Content-Type"].startswith(kind), path
            assert response.headers["Cache-Control"] == "no-cache", path
            assert "default-src 'none'" in response.headers["Content-Security-Policy"], path
            etag = response.headers["ETag"]
        request = urllib.request.Request(f"{BASE}{path}", headers={"If-None-Match": etag})
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=10)
        assert answer.value.code == 304, path
