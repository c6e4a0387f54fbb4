"""What the browser tests share: the server's address and key, waits, and the page's parts.

Every wait is a WebDriverWait on a condition of the page, never a sleep.
"""

import json
import os
import urllib.request

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait

BASE = os.environ.get("SIGNALBOX_URL", "").rstrip("/")
KEY = os.environ.get("SIGNALBOX_API_KEY", "")
ARTIFACTS = os.environ.get("SIGNALBOX_ARTIFACTS", "artifacts/browser")
WAIT_SECONDS = 10


def wait(driver, condition, message):
    # The page re-renders lists as data comes (the collection menu once a key is typed): an element
    # found by one poll may be gone when the condition reads it; the next poll finds the new ones.
    return WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d), message)


def hit_names(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#results .hit .name')).map(n => n.textContent)")


def text_of(driver, element_id):
    return driver.execute_script("return document.getElementById(arguments[0]).textContent", element_id)


def screenshot(driver, name):
    driver.save_screenshot(os.path.join(ARTIFACTS, f"{name}.png"))


def api(method, path, body=None):
    request = urllib.request.Request(
        f"{BASE}{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status
