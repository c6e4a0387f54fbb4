"""The one headless Chromium the browser tests share (Selenium), and a page fixture per test."""

import os

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from pagekit import ARTIFACTS


@pytest.fixture(scope="session")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", "--lang=en-US", "--force-prefers-reduced-motion"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    os.makedirs(ARTIFACTS, exist_ok=True)
    yield driver
    driver.quit()


@pytest.fixture
def page(browser):
    """The browser at the desktop size, its console log emptied."""
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    browser.get_log("browser")
    return browser
